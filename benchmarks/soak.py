"""Soak test: random legal play, the engine's invariant validator after every decision, over many rule sets.

Every preset, 2-10 players and a set of option mixes (stacking Draw Twos, explicit UNO calls, no challenge,
penalty scoring, match episodes, special cards added to classic, all of them at once, one-card hands):

    python benchmarks/soak.py                        # 10**8 decisions split across the configurations
    python benchmarks/soak.py --decisions 1000000    # a quick pass
    python benchmarks/soak.py --quiet                # only the total (and any configuration with a violation)

Every configuration (preset x players x mix) plays a batch of games through the compiled loop
`engine.random_play(..., validate=True)`: after each decision `engine.check_game` checks every card is in
exactly one place, counts, seat, phase, colour, that the deciding seat has a legal action and that what a
seat "knows" of another's hand is held there, and scores never go down within an episode. A game stops at
its first violation. Finished games start their next episode at once.

Reports, per configuration and in total: decisions, episodes finished, violations (games that broke an
invariant) and the first violation's description, and decisions/s (validation included). A configuration
the rules refuse (a deck too small to deal for that many players) is listed as skipped. Exit status 1 if
there was any violation.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from uno_env import PRESETS, GameBatch
from uno_env import engine as E
from uno_env.game import INVARIANT_MESSAGES

ALL_SPECIALS = {"WN": 2, "WU": 2, "WE": 2, "WC": 2, "WS": 2}


@dataclass(frozen=True)
class Mix:
    """An option mix: its label, the rule options, the episode kind and the presets it applies to."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)
    episode: str = "round"
    presets: tuple[str, ...] = PRESETS


MIXES = (
    Mix("default"),
    Mix("stack_draw_two", {"stack_draw_two": True}),
    Mix("no_stacking", {"stack_draw_two": False}, presets=("swap",)),
    Mix("uno_explicit", {"uno_call": "explicit", "uno_catch_rate": 0.5, "uno_penalty": 4}),
    Mix("no_challenge", {"challenge_wild_draw_four": False}),
    Mix("penalty_match", {"scoring": "penalty", "target_score": 150}, episode="match"),
    Mix("match", {"target_score": 200}, episode="match"),
    Mix("classic+specials", {"card_counts": ALL_SPECIALS}, presets=("classic",)),
    Mix(
        "everything",
        {
            "card_counts": ALL_SPECIALS,
            "stack_draw_two": True,
            "uno_call": "explicit",
            "uno_catch_rate": 0.7,
            "challenge_wild_draw_four": False,
            "narwhal_includes_player": False,
            "emoji_face_fail_rate": 0.3,
            "two_player_reverse_is_skip": False,
            "hand_size": 5,
            "target_score": 100,
        },
        episode="match",
    ),
    Mix("one_card_hands", {"hand_size": 1, "uno_call": "explicit"}),
)
PLAYERS = range(2, 11)


@dataclass
class Result:
    label: str
    decisions: int = 0
    finished: int = 0
    violations: int = 0
    first_violation: str = ""
    seconds: float = 0.0
    skipped: str = ""

    @property
    def rate(self) -> float:
        return self.decisions / self.seconds if self.seconds > 0 else 0.0


def configurations(presets, players, mixes) -> list[tuple[str, str, int, Mix]]:
    return [
        (f"{preset} {n}p {mix.name}", preset, n, mix)
        for preset in presets
        for mix in mixes
        if preset in mix.presets
        for n in players
    ]


def soak_one(
    label: str, preset: str, players: int, mix: Mix, decisions: int, batch_size: int, seed: int, chunk: int
) -> Result:
    """Play `decisions` validated random decisions in one configuration (fewer if a violation stops it)."""
    result = Result(label)
    try:
        batch = GameBatch(preset, players, batch_size, episode=mix.episode, **mix.options)
    except ValueError as error:
        result.skipped = str(error).split(":")[0]
        return result
    steps = max(1, -(-decisions // batch_size))  # rounded up: at least `decisions`
    batch.reset(seeds=seed)
    agent_rng = (np.uint64(seed) * np.uint64(7919) + np.arange(batch_size, dtype=np.uint64)).astype(np.uint64)
    errors = np.zeros(batch_size, np.int64)
    start = time.perf_counter()
    done_steps = 0
    while done_steps < steps:
        n = min(chunk, steps - done_steps)
        result.finished += int(
            E.random_play(batch.state_array, batch.config_array, n, batch.episode_seeds, agent_rng, True, errors)
        )
        done_steps += n
        bad = np.flatnonzero(errors)
        if bad.size:
            g = int(bad[0])
            result.violations = int(bad.size)
            result.first_violation = f"game {g}: {INVARIANT_MESSAGES[int(errors[g])]}: {batch.describe(g)}"
            break
    result.seconds = time.perf_counter() - start
    result.decisions = batch_size * done_steps  # a game stopped by a violation took fewer (upper bound then)
    return result


def warm_up() -> None:
    """Compile the loop (or load it from numba's cache) outside the timings."""
    batch = GameBatch("classic", 2, 2)
    batch.reset(seeds=0)
    batch.play_random(2, validate=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=10**8, help="total budget, split across configurations")
    parser.add_argument("--batch", type=int, default=64, help="games per configuration")
    parser.add_argument("--seed", type=int, default=0, help="seeds the deals and the random choices")
    parser.add_argument("--chunk", type=int, default=5_000, help="steps per game in one compiled call")
    parser.add_argument("--presets", nargs="+", default=list(PRESETS), choices=PRESETS)
    parser.add_argument("--players", nargs="+", type=int, default=list(PLAYERS))
    parser.add_argument("--mixes", nargs="+", default=[m.name for m in MIXES], choices=[m.name for m in MIXES])
    parser.add_argument("--quiet", action="store_true", help="print only the total and configurations with violations")
    args = parser.parse_args(argv)
    if args.decisions < 1 or args.batch < 1 or args.chunk < 1:
        parser.error("--decisions, --batch and --chunk must be positive")

    mixes = [m for m in MIXES if m.name in args.mixes]
    configs = configurations(args.presets, args.players, mixes)
    per_config = max(1, -(-args.decisions // len(configs)))  # rounded up: the total is at least --decisions
    batch_size = min(args.batch, per_config)
    warm_up()
    print(
        f"soak: {args.decisions:,} decisions over {len(configs)} configurations "
        f"({per_config:,} each, batch {batch_size}), validator after every decision, seed {args.seed}"
    )
    header = f"{'configuration':<36} {'decisions':>12} {'episodes':>10} {'violations':>10} {'decisions/s':>12}"
    if not args.quiet:
        print(header)
    results = []
    for i, (label, preset, players, mix) in enumerate(configs):
        result = soak_one(label, preset, players, mix, per_config, batch_size, args.seed + 1_000_003 * i, args.chunk)
        results.append(result)
        if result.skipped:
            if not args.quiet:
                print(f"{label:<36} skipped: {result.skipped}")
            continue
        if not args.quiet or result.violations:
            print(
                f"{label:<36} {result.decisions:>12,} {result.finished:>10,} {result.violations:>10,} "
                f"{result.rate:>12,.0f}"
            )
        if result.violations:
            print(f"  first violation: {result.first_violation}")
        sys.stdout.flush()

    played = [r for r in results if not r.skipped]
    decisions = sum(r.decisions for r in played)
    finished = sum(r.finished for r in played)
    violations = sum(r.violations for r in played)
    seconds = sum(r.seconds for r in played)
    skipped = len(results) - len(played)
    print(
        f"total: {decisions:,} decisions, {finished:,} episodes finished, {violations} violations, "
        f"{decisions / seconds if seconds else 0:,.0f} decisions/s ({seconds:.1f} s in the loop; "
        f"{len(played)} configurations played, {skipped} skipped)"
    )
    first = next((r for r in played if r.violations), None)
    if first is not None:
        print(f"first violation ({first.label}): {first.first_violation}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
