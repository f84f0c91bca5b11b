"""AEC throughput: random masked play through `raw_env` and `env()`, against RLCard's UNO in the same run.

    pip install -e ".[bench]"            # RLCard, for the comparison
    python benchmarks/aec_speed.py       # classic, 2 and 4 players

A step is one decision. Every player picks a uniformly random legal action (from the action mask here,
from `legal_actions` in RLCard) with the same numpy generator calls. Reports the median of `--repeats`
timed runs of `--steps` steps each, all measurements taking turns within every repeat so they share the
machine's noise. RLCard's UNO has 2 players only; its figure is the reference for both player counts.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from reference import interleaved_medians, rlcard_available, rlcard_rate

import uno_env


def aec_rate(make_env, steps: int, seed: int) -> float:
    env = make_env()
    rng = np.random.default_rng(seed)
    done_steps = 0
    start = time.perf_counter()
    while done_steps < steps:
        env.reset(seed=int(rng.integers(2**31)))
        for _agent in env.agent_iter():
            _, _, termination, truncation, _ = observation = env.last()
            if termination or truncation:
                action = None
            else:
                legal = observation[0]["action_mask"].nonzero()[0]
                action = int(legal[rng.integers(len(legal))])
                done_steps += 1
            env.step(action)
    return done_steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="classic", choices=uno_env.PRESETS)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    measures = {}
    if rlcard_available():
        measures["RLCard"] = lambda seed: rlcard_rate(args.steps, seed)
    for players in args.players:
        for name, maker in (("raw_env", uno_env.raw_env), ("env()", uno_env.env)):
            measures[(players, name)] = lambda seed, maker=maker, players=players: aec_rate(
                lambda: maker(variant=args.variant, num_players=players), args.steps, seed
            )
    rates = interleaved_medians(measures, args.repeats)
    reference = rates.pop("RLCard", None)
    if reference:
        print(f"RLCard UNO env.step (2 players): {reference:>10,.0f} steps/s")
    print(f"{'players':>7} {'env':>8} {'median steps/s':>15} {'x RLCard':>9}")
    for (players, name), rate in rates.items():
        ratio = f"{rate / reference:.2f}" if reference else "-"
        print(f"{players:>7} {name:>8} {rate:>15,.0f} {ratio:>9}")


if __name__ == "__main__":
    main()
