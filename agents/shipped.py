"""The files shipped in the package, with their digests: the agent catalogue's list (`uno_env.agents.registry`
re-exports it), data only, so that the loaders of policies and belief models read it without the catalogue.

`SHIPPED` lists every file (a test checks each digest and each file's game and level); `BEST` maps each variant and
player count to the file `best:VARIANT` seats; `SHIPPED_KINDS` says which files `ppo:VARIANT` and `best:VARIANT`
reach. A new shipped file is a row of `shipped.json` (data, read with `json`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

AGENTS_DIR = Path(__file__).parent
#: a shipped file's kind -> its folder in the package: the PPO policies (`ppo:VARIANT`), the belief models, and the
#: networks stronger than their game's PPO policy that only `best:VARIANT` seats
FOLDERS = {"policy": "policies", "belief": "beliefs", "best": "best"}


@dataclass(frozen=True)
class ShippedFile:
    """A file shipped in the package: a PPO policy, a belief model or a best network for one variant and player
    count."""

    kind: str  # "policy", "belief" or "best" (`FOLDERS`)
    variant: str
    players: int
    observation: str  # the level it reads
    sha256: str  # of the file as shipped now
    first_sha256: str = ""  # of the file as first shipped, where it was saved again with the same weights

    @property
    def name(self) -> str:
        """The file's path in the agents package, e.g. `policies/classic-2p.pt`."""
        return f"{FOLDERS[self.kind]}/{self.variant}-{self.players}p.pt"

    @property
    def path(self) -> Path:
        return AGENTS_DIR / self.name

    @property
    def pinned_sha256(self) -> str:
        """The digest suites pin: the file as first shipped (saved again since with only its description added)."""
        return self.first_sha256 or self.sha256


def _read_shipped(path: Path) -> dict[str, ShippedFile]:
    """The list of shipped files: JSON data in the package (`shipped.json`), one object per file."""
    files = [ShippedFile(**row) for row in json.loads(path.read_text(encoding="utf-8"))["files"]]
    return {f.name: f for f in files}


#: every file shipped in the package, by its path in the agents package (read from `shipped.json`). A shipped policy
#: saved again with the same weights (only fields that describe the file added, such as the observation layout's
#: digest) keeps its first digest as `first_sha256`, which suites pin (`uno_env.arena.bench_suites.check_policies`).
SHIPPED: dict[str, ShippedFile] = _read_shipped(AGENTS_DIR / "shipped.json")

#: (variant, players) -> the shipped file `best:VARIANT` seats: the strongest fast agent (a network, no search) for
#: that game: its "best" file where one is shipped (a policy file stronger than the PPO policy), else its PPO policy
#: (what `ppo:VARIANT` seats).
BEST: dict[tuple[str, int], str] = {
    (f.variant, f.players): name for kind in ("policy", "best") for name, f in SHIPPED.items() if f.kind == kind
}


def shipped_files(kind: str) -> dict[tuple[str, int], ShippedFile]:
    """(variant, players) -> the shipped file of `kind` ("policy", "belief") for that game."""
    return {(f.variant, f.players): f for f in SHIPPED.values() if f.kind == kind}


def best_files() -> dict[tuple[str, int], ShippedFile]:
    """(variant, players) -> the shipped file `best:VARIANT` seats (`BEST`)."""
    return {game: SHIPPED[name] for game, name in BEST.items()}


#: the kinds of name that seat a shipped file, KIND:VARIANT -> its files: `ppo` the PPO policies, `best` `BEST`'s
SHIPPED_KINDS: dict[str, Callable[[], dict[tuple[str, int], ShippedFile]]] = {
    "ppo": lambda: shipped_files("policy"), "best": best_files,
}  # fmt: skip


def shipped_for(kind: str, variant: str) -> dict[int, ShippedFile]:
    """players -> the file `kind:VARIANT` (a kind of `SHIPPED_KINDS`) seats at a table of that many players."""
    return {players: f for (v, players), f in SHIPPED_KINDS[kind]().items() if v == variant}


def shipped_variants(kind: str) -> list[str]:
    """The variants `kind:VARIANT` (a kind of `SHIPPED_KINDS`) takes."""
    return sorted({v for v, _ in SHIPPED_KINDS[kind]()})


def check_shipped(kind: str, variant: str) -> None:
    """Refuse (ValueError, one line naming what is shipped) `kind:VARIANT` for a variant with no shipped file."""
    if shipped_for(kind, variant):
        return
    if kind == "ppo":
        raise ValueError(f"no shipped policy for {variant[:40]!r}; shipped: {', '.join(shipped_variants(kind))} (a "
                         "policy file is ppo:FILE.pt)")  # fmt: skip
    raise ValueError(f"{kind}:VARIANT takes a variant with a shipped agent ({', '.join(shipped_variants(kind))}), "
                     f"got {variant[:40]!r}")  # fmt: skip


def missing_players(kind: str, variant: str, players: int) -> str | None:
    """Why `kind:VARIANT` cannot sit at a table of `players` (one line), or None when a file is shipped for it."""
    counts = sorted(shipped_for(kind, variant))
    if players in counts:
        return None
    return (f"{kind}:{variant} is shipped for {' and '.join(map(str, counts))} players; this game has {players} "
            "players")  # fmt: skip
