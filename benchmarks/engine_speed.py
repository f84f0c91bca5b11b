"""Engine throughput: random legal play through the batched engine, actions chosen inside compiled code.

    python benchmarks/engine_speed.py                       # unocorns, 4 players, batch 4096
    python benchmarks/engine_speed.py --preset classic --players 2

A step is one decision (one action applied to one game). Reports the median steps/s over `--repeats`
timed runs, with numba's threads set to 1 and to all cores, after one untimed warm-up run (which also
compiles on a cold cache).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numba

from uno_env import PRESETS, GameBatch


def measure(batch: GameBatch, steps: int, repeats: int) -> list[float]:
    batch.play_random(steps, agent_seed=0)  # warm-up (compiles on a cold cache)
    rates = []
    for r in range(repeats):
        start = time.perf_counter()
        batch.play_random(steps, agent_seed=r + 1)
        rates.append(batch.batch_size * steps / (time.perf_counter() - start))
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="unocorns", choices=PRESETS)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=250, help="steps per game in one timed run")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    batch = GameBatch(args.preset, args.players, args.batch)
    batch.reset(seeds=0)
    print(f"{args.preset}, {args.players} players, batch {args.batch}, {args.steps} steps/game per run")
    print(f"{'threads':>8} {'median steps/s':>16} {'min':>12} {'max':>12}")
    for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
        numba.set_num_threads(threads)
        rates = measure(batch, args.steps, args.repeats)
        print(f"{threads:>8} {statistics.median(rates):>16,.0f} {min(rates):>12,.0f} {max(rates):>12,.0f}")


if __name__ == "__main__":
    main()
