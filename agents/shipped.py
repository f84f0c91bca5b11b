"""The files shipped in the package, with their digests: the agent catalogue's list (`uno_env.agents.registry`
re-exports it), data only, so that the loaders of policies and belief models read it without the catalogue.

`SHIPPED` lists every file (a test checks each digest and each file's game and level); `BEST` maps each variant and
player count to the file `best:VARIANT` seats; `SHIPPED_KINDS` says which files `ppo:VARIANT` and `best:VARIANT`
reach. A new shipped file is a row of `SHIPPED`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

AGENTS_DIR = Path(__file__).parent
#: a shipped file's kind -> its folder in the package
FOLDERS = {"policy": "policies", "belief": "beliefs"}


@dataclass(frozen=True)
class ShippedFile:
    """A file shipped in the package: a PPO policy or a belief model for one variant and player count."""

    kind: str  # "policy" or "belief" (`FOLDERS`)
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


def _shipped(*rows: tuple) -> dict[str, ShippedFile]:
    files = [ShippedFile(*row) for row in rows]
    return {f.name: f for f in files}


#: every file shipped in the package, by its path in the agents package. A shipped policy saved again with the same
#: weights (only fields that describe the file added, such as the observation layout's digest) keeps its first
#: digest as `first_sha256`, which suites pin (`uno_env.arena.bench_suites.check_policies`).
SHIPPED: dict[str, ShippedFile] = _shipped(
    ("policy", "classic", 2, "knowledge", "95d106aad97b6bde09b811bc01121ad647600fea989d01155221bcde07726c4d",
     "8c8fc50f1bb4ae43eecde42f33e2302e0ce1bce9e188ebb799214ce554fa9734"),
    ("policy", "classic", 4, "knowledge", "abc7de47abde7ded1a8a0b848dec705e44cda3e7482b5033e6800fd47f4b305f",
     "305aba936bb4d7592918caf98dad9d220473411f0f0e3e80e90b9044596968e9"),
    ("policy", "emoji", 2, "knowledge", "3d81cc3a2f3ee0a02325a9968d1dda2abd4cb5f622327444e097def61820f8aa",
     "8cbd0a733e3310bc9b656397b89e2cd7a12113dcd7d2fbf18d642355a62a0916"),
    ("policy", "emoji", 4, "knowledge", "aea9f6b8f048b8399aeea395fd84d0383af84f03fda15168d8dbc529a787f7f7",
     "61a83e8e763f0bd7588807993d78fb8b758b00bc51ecbdb27d3fefe2816cc76b"),
    ("policy", "monster_high", 2, "knowledge", "51e815ca5335409589126faf21285569caccd8c8b46fe5714e64839ac44f7679",
     "6c106fb7598492f80b0fd44519c899cbb82466d3ba349a5e50f1b745257be749"),
    ("policy", "monster_high", 4, "knowledge", "3dd164be6e648fcfe52f60e8bce8508eedae747ebe9407a32a8b3f0f88fab89f",
     "a5f82ca54beaf01f5084f461daf450d3bbce13458cb7b2cabaa21429a2e9e272"),
    ("policy", "swap", 2, "knowledge", "19420dfc3bb70af1fe3b0d0cb1088fc1310df8bf168865019e13bcbbc550297d",
     "011ea7c9ed0b71c217d3dec281c6213c6631c021287a5406883d509c6963ccff"),
    ("policy", "swap", 4, "knowledge", "4a66e87bf3301208ced59008840edab737e5d2e77f3650cf8990728b79ab0c15",
     "55af238396eaefb88ecbf365305e949e0c7e16f865ce07ddb43a9b5438159adf"),
    ("policy", "unocorns", 2, "knowledge", "78a4494001fd8de6f5ad1d13faad267e62ee01cc2ee0201bd53a920494c5f0eb",
     "31684eafc9bf99a8a214b2c2029c0aa18bea7c838c45fb88e5fc4aa9703bd51c"),
    ("policy", "unocorns", 4, "knowledge", "e1436bf3291295bb63909a5f741ef42b0ad76f6a59b135805d395192525a807d",
     "ca285840aa6824a72fd851c7df6dccfcf2c21425f3054e6f98e67bf5e8174405"),
    ("belief", "classic", 2, "belief", "41ff74dfbaaff2b35ad66617c7eb5179c44d88a9302c91a64eedb3eac40c651b"),
    ("belief", "classic", 4, "belief", "509ce8080ab5e02fe8d52d975e3ed887c81b235fa49483cb98af69dda7111cfd"),
    ("belief", "emoji", 2, "belief", "423b64a7abbeef5ac39b49bc808c83e9a1e23763cc798b5d526560fbf64f6902"),
    ("belief", "emoji", 4, "belief", "5145d7d724279ceadc4a85255cdf90ae1c7839d2e6048afdd7e037aedf822596"),
    ("belief", "monster_high", 2, "belief", "d42a8906fa3740cb3a1bb3e95f7fb4b0c03c8fdd44155b6126885b97ee50a2a1"),
    ("belief", "monster_high", 4, "belief", "317dd4a9226d599cd84282ed285fcbccdbf90a6123f4b2523357fe7fb83054e5"),
    ("belief", "swap", 2, "belief", "ab68a4572b1207b6eee0eae6716387d421d3624fef4ab112a8cc2b34dace01d9"),
    ("belief", "swap", 4, "belief", "8f3c2ac048ce435176e094df8fb7d25d5bd43376310c18c1fc7818db04d01e4e"),
    ("belief", "unocorns", 2, "belief", "36ade3f527e4eff87025c3c122c491063066dd4ede9c4864d467f7166c36a50f"),
    ("belief", "unocorns", 4, "belief", "b542d4a4eb02e6a54c887e28ef252d0ffa4a489d3048ea2949636c8ef26093f5"),
)  # fmt: skip

#: (variant, players) -> the shipped file `best:VARIANT` seats: the strongest fast agent (a network, no search) for
#: that game. Today it is each game's PPO policy (what `ppo:VARIANT` seats); a stronger network shipped later takes
#: its game's entry here.
BEST: dict[tuple[str, int], str] = {
    (f.variant, f.players): name for name, f in SHIPPED.items() if f.kind == "policy"
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
