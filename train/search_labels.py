"""Search labels: states of games an expert search plays, each with what the search found there, for a network to learn.

    python -m uno_env.train.search_labels --expert seer:100 --players 4 --states 100000 --out labels.npz

One seat (0) is played by the expert (a paired-root search agent, `uno_env.agents.ismcts`: `seer`, `ismcts`,
`ismcts-belief`), the others by `--opponents`; every decision of the expert's seat with more than one legal action
is a labelled state. A state's label is the expert's action, the rollout policy's action (what the search keeps
unless another wins clearly more of the same worlds), each legal action's mean win difference from it over those
worlds (`advantage`), and whether the seat went on to win the round (`outcome`). Observations are stored at
every level asked for (`--levels`: `seer` for a privileged network, `knowledge` or `belief` for an honest one),
so one set of searches serves several networks.

The work is cut into chunks, each with its own games and agents seeded from a hash of (seed, chunk), so that no two
chunks share a deal and the labels depend only on the seed and the chunk size: `--workers K` runs chunks in K
processes here, `--ray-workers K` as Ray tasks (`uno_env.arena.ray_workers`), with the same labels either way. The
file is a plain `.npz` of arrays (read with `numpy.load(allow_pickle=False)`: data, never code) whose `settings`
entry is JSON text.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from uno_env import actions as A
from uno_env import cli
from uno_env import observation as O
from uno_env.agents.base import bind
from uno_env.agents.registry import make_agent
from uno_env.cli import rule_options
from uno_env.records import write_atomic
from uno_env.rules import MAX_PLAYERS, MIN_PLAYERS, make_rules
from uno_env.vector import UnoVectorEnv

#: the arrays of a labels file, in order: name -> dtype (observations add `obs_{level}` int8 arrays)
FIELDS = {
    "masks": np.int8, "actions": np.int16, "preferred": np.int16, "advantage": np.float16, "worlds": np.int16,
    "outcome": np.int8, "deal": np.uint64,
}  # fmt: skip
LABELS_FORMAT = "uno-env-search-labels-1"
MAX_STATES = 50_000_000
LEARNER_SEAT = 0


@dataclass(frozen=True)
class LabelChunk:
    """The settings of one chunk of labelled games: picklable, so a worker process or a Ray task builds its own
    games and agents from them and labels what this process would."""

    expert: str
    opponents: str
    variant: str
    players: int
    options: tuple[str, ...]
    levels: tuple[str, ...]
    games: int  # games played at once

    def __call__(self, job: tuple[int, int, int]) -> dict[str, np.ndarray]:
        seed, index, states = job
        return label_states(self, chunk_seed(seed, index), states)


def chunk_seed(seed: int, index: int) -> int:
    """Chunk `index`'s seed: a 64-bit hash of (seed, index), so that chunks share no deal (consecutive seeds would:
    a chunk's games are seeded seed, seed + 1, ... and each game's next rounds follow from its seed)."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1, np.uint64)[0])


def label_states(chunk: LabelChunk, seed: int, states: int) -> dict[str, np.ndarray]:
    """`states` labelled decisions of the expert's seat from games seeded from `seed` (see the module docstring);
    `deal` is each state's round's seed (the unit of a held-out split)."""
    options = rule_options(chunk.options)
    venv = UnoVectorEnv(chunk.variant, chunk.players, chunk.games, learner_seats=[LEARNER_SEAT],
                        opponents=make_agent(chunk.opponents, seed=(seed + 1) % 2**64), **options)  # fmt: skip
    expert = make_agent(chunk.expert, seed=seed)
    if getattr(expert, "root", None) != "paired":
        raise ValueError(f"the expert must be a search with a paired root (ismcts, seer, ismcts-belief), got "
                         f"{chunk.expert!r}")  # fmt: skip
    bind(expert, venv.spec, venv.rules)
    rows: dict[str, list] = {name: [] for name in (*FIELDS, *(f"obs_{level}" for level in chunk.levels))}
    pending: dict[int, list[int]] = {}  # game -> its rows still waiting for the round's outcome
    obs, masks = venv.reset(seed=seed)
    state, config = venv.game.state_array, venv.game.config_array
    count = 0
    while count < states or pending:  # then the labelled rounds are played to their end, unlabelled
        views = {level: venv.observe(level) for level in chunk.levels} if count < states else {}  # to label
        actions = np.empty(chunk.games, np.int64)
        for g in range(chunk.games):
            legal = np.flatnonzero(masks[g])
            if legal.size == 1:
                actions[g] = legal[0]
                continue
            expert.root_advantage = None
            actions[g] = expert.decide(state[g : g + 1].copy(), config, obs[g], legal)
            if count >= states or expert.root_advantage is None:
                continue  # a challenge decided by the rollout policy: no search, no label
            preferred, searched, advantage, worlds = expert.root_advantage
            full = np.zeros(A.NUM_ACTIONS, np.float32)
            full[searched] = advantage
            for level in chunk.levels:
                rows[f"obs_{level}"].append(views[level][g].copy())
            rows["masks"].append(masks[g].copy())
            rows["actions"].append(actions[g])
            rows["preferred"].append(preferred)
            rows["advantage"].append(full)
            rows["worlds"].append(min(worlds, 32767))
            rows["outcome"].append(0)
            rows["deal"].append(venv.seeds[g])
            pending.setdefault(g, []).append(len(rows["masks"]) - 1)
            count += 1
        obs, masks, rewards, terminated, truncated, _ = venv.step(actions)
        for g in np.flatnonzero(terminated | truncated):
            won = int(rewards[g, LEARNER_SEAT] > 0)
            for row in pending.pop(g, []):
                rows["outcome"][row] = won
    return {name: np.array(values, dtype=FIELDS.get(name, np.int8)) for name, values in rows.items()}


def generate(chunk: LabelChunk, states: int, seed: int, *, chunk_states: int = 2_000, workers: int = 1,
             ray_workers: int = 0, ray_address: str | None = None, progress: bool = True) -> dict[str, np.ndarray]:
    """`states` labelled states, in chunks of `chunk_states`, each chunk's games and agents seeded from its own seed
    (`chunk_seed`)."""
    jobs = [(seed, i, min(chunk_states, states - i * chunk_states)) for i in range(math.ceil(states / chunk_states))]
    from tqdm import tqdm

    bar = tqdm(total=states, unit="state", disable=not progress, file=sys.stderr)
    parts: list[dict[str, np.ndarray]] = []
    if ray_workers:
        from uno_env.arena.ray_workers import play_chunks

        parts = play_chunks(chunk, jobs, workers=ray_workers, address=ray_address,
                            progress=lambda part: bar.update(len(part["actions"])))  # fmt: skip
    elif workers > 1:
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
            for part in pool.map(chunk, jobs):
                parts.append(part)
                bar.update(len(part["actions"]))
    else:
        for job in jobs:
            parts.append(chunk(job))
            bar.update(len(parts[-1]["actions"]))
    bar.close()
    return {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}


def save_labels(path: str | Path, labels: dict[str, np.ndarray], settings: dict[str, Any]) -> Path:
    """Write labels and their settings as one `.npz` (whole or not at all: `write_atomic`)."""
    text = json.dumps({"format": LABELS_FORMAT, **settings})

    def write(temporary: str) -> None:
        with open(temporary, "wb") as file:
            np.savez_compressed(file, settings=np.array(text), **labels)

    return write_atomic(path, write)


def load_labels(path: str | Path) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Read a labels file (`numpy.load(allow_pickle=False)`: arrays only) and check its arrays agree in length and
    kind; a ValueError names what is wrong."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (OSError, ValueError) as error:
        raise ValueError(f"{str(path)!r} is not a search labels file ({error})") from None
    try:
        settings = json.loads(str(arrays.pop("settings")))
    except (KeyError, json.JSONDecodeError):
        raise ValueError(f"{str(path)!r} is not a search labels file: no settings") from None
    if not isinstance(settings, dict) or settings.get("format") != LABELS_FORMAT:
        raise ValueError(f"{str(path)!r} is not a search labels file (format {LABELS_FORMAT!r})")
    players = settings.get("players")
    if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"{str(path)!r}: settings.players must be an int from {MIN_PLAYERS} to {MAX_PLAYERS}")
    sizes = {name: len(array) for name, array in arrays.items()}
    levels = [name[4:] for name in arrays if name.startswith("obs_")]
    missing = [name for name in FIELDS if name not in arrays]
    if missing or len(set(sizes.values())) > 1 or not levels:
        raise ValueError(f"{str(path)!r}: the arrays must be {', '.join(FIELDS)} and obs_LEVEL, all of one length; "
                         f"got {sizes}")  # fmt: skip
    for level in levels:
        stamp = (settings.get("layouts") or {}).get(level)
        if isinstance(stamp, dict):  # labels from before layouts were stamped: checked by size alone
            O.check_layout(str(path), {"observation": level, "num_players": players, **stamp})
        expected = O.observation_size(level, players)
        if arrays[f"obs_{level}"].shape[1:] != (expected,):
            raise ValueError(f"{str(path)!r}: obs_{level} rows must be {expected} long")
    if arrays["masks"].shape[1:] != (A.NUM_ACTIONS,) or not (arrays["masks"][np.arange(len(arrays["masks"])),
                                                                             arrays["actions"]] == 1).all():
        raise ValueError(f"{str(path)!r}: every action must be legal in its mask")
    return arrays, settings


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m uno_env.train.search_labels", description=__doc__.split("\n")[0])
    parser.add_argument("--expert", default="seer:100", help="the search that labels (default seer:100)")
    parser.add_argument("--opponents", default="counter", help="the agent at the other seats (default counter)")
    cli.add_variant(parser)
    cli.add_players(parser, default=4)
    cli.add_option(parser)
    parser.add_argument("--levels", nargs="+", default=["knowledge", "seer"], choices=O.LEVELS,
                        help="the observation levels stored for each state (default knowledge seer)")
    parser.add_argument("--states", type=cli.int_in_range(1, MAX_STATES), default=10_000)
    parser.add_argument("--chunk-states", type=cli.int_in_range(1, 1_000_000), default=2_000)
    parser.add_argument("--games", type=cli.int_in_range(1, 4096), default=32, help="games played at once a chunk")
    cli.add_seed(parser)
    parser.add_argument("--workers", type=cli.int_in_range(1, 1024), default=1, help="processes here")
    parser.add_argument("--ray-workers", type=cli.int_in_range(0, 1024), default=0, help="Ray tasks at a time")
    parser.add_argument("--ray-address", default=None)
    parser.add_argument("--out", type=Path, required=True, help="the labels file (.npz)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        make_rules(args.variant, **rule_options(args.options)).check_players(args.players)
        chunk = LabelChunk(args.expert, args.opponents, args.variant, args.players, tuple(args.options),
                           tuple(dict.fromkeys(args.levels)), args.games)  # fmt: skip
        started = time.perf_counter()
        labels = generate(chunk, args.states, args.seed, chunk_states=args.chunk_states, workers=args.workers,
                          ray_workers=args.ray_workers, ray_address=args.ray_address)  # fmt: skip
    except ValueError as error:
        parser.error(str(error))
    seconds = time.perf_counter() - started
    settings = {**asdict(chunk), "seed": args.seed, "chunk_states": args.chunk_states, "seconds": round(seconds, 1),
                "layouts": {level: O.layout_stamp(level, args.players) for level in chunk.levels}}  # fmt: skip
    save_labels(args.out, labels, settings)
    print(f"{args.out}: {len(labels['actions']):,} states in {seconds:.0f} s "
          f"({len(labels['actions']) / seconds:.1f} a second); the expert left the rollout policy's move in "
          f"{np.mean(labels['actions'] != labels['preferred']):.1%} of them")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
