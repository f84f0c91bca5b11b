"""A tournament's chunks of games as Ray tasks: `run_tournament(..., ray_workers=K)`, `uno-arena --ray-workers K`.

The tournament runner (`uno_env.arena.tournament`) cuts every tournament into the same chunks whether it runs here or
on Ray: consecutive seeds of one lineup, each chunk played with agents seeded from (tournament seed,
chunk index). A chunk's games depend on nothing else, so a chunk gives the same records in a Ray worker
as in this process, and the records, put back in chunk order, are those of the local runner seed for
seed. What travels is the tournament's `ChunkPlayer` (the `RuleSet` and the checked agent names) and the
chunks; this module only ships them to Ray and collects the games; it implements no part of the game.

Ray: if this process is already connected (`ray.init` was called), that Ray is used; otherwise
`ray.init(address=address)` starts a local Ray (no address) or joins a cluster (`"auto"`, or
`"ray://host:10001"`). Every node needs the project installed (`pip install "uno-env[rllib]"`), and
agents loaded from files (`rllib:DIR`) need their files at the same path on every node.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def ensure_ray(address: str | None = None):
    """The `ray` module, connected: the running Ray, else a local one (no address) or the cluster at `address`."""
    try:
        import ray
    except ImportError as error:
        raise ValueError('Ray is not installed: pip install "uno-env[rllib]" (or "ray==2.60.0")') from error
    if not ray.is_initialized():
        if address is None:
            ray.init(include_dashboard=False)
        else:
            ray.init(address=address)
    return ray


def play_chunks(
    play_chunk: Callable[[Any], Any],
    chunks: Sequence[Any],
    *,
    workers: int,
    address: str | None = None,
    progress: Callable[[Any], None] | None = None,
) -> list[Any]:
    """`[play_chunk(c) for c in chunks]`, computed by Ray tasks, at most `workers` at a time, in chunk order.

    `play_chunk` must be picklable (the tournament's `ChunkPlayer`: its rule set and checked agent names travel,
    and each worker builds a chunk's agents from them); `progress(games)` is called in this process with each
    finished chunk's games (its `ChunkGames`), in the order they finish.
    """
    if workers < 1:
        raise ValueError(f"ray_workers must be at least 1, got {workers}")
    ray = ensure_ray(address)
    remote_play = ray.remote(num_cpus=1)(_call)
    function_ref = ray.put(play_chunk)
    results: list[Any] = [None] * len(chunks)
    index_of: dict[Any, int] = {}
    pending: list[Any] = []
    next_chunk = 0
    try:
        while next_chunk < len(chunks) or pending:
            while next_chunk < len(chunks) and len(pending) < workers:
                ref = remote_play.remote(function_ref, chunks[next_chunk])
                index_of[ref] = next_chunk
                pending.append(ref)
                next_chunk += 1
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                games = ray.get(ref)  # a task's exception is raised here, as its own type
                results[index_of.pop(ref)] = games
                if progress is not None:
                    progress(games)
    finally:
        for ref in pending:
            ray.cancel(ref)
    return [games for games in results if games is not None]


def _call(function: Callable[[Any], Any], chunk: Any) -> Any:
    return function(chunk)
