"""How much a search finds over `counter`: a gauge of the room above the strongest baseline.

    python benchmarks/search_headroom.py --players 4 --deals 1200    # 4,800 games, about 9 minutes on 2 cores
    python benchmarks/search_headroom.py --players 2 --deals 2000    # 4,000 games, about 10 minutes

One seat plays `search_gauge.py` beside it (determinized rollouts checking `counter`'s choices) against `counter`s; each
deal is played once with the searching seat in every position (as the arena's paired seeds do). Prints its
share of wins with the 95% Wilson interval (fair share: 1 / players) and how often it overrode `counter`.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from search_gauge import run_block

from uno_env.arena.ratings import wilson_interval


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=1200, help="each played once per seat")
    parser.add_argument("--worlds", type=int, default=64, help="redealt worlds per decision")
    parser.add_argument("--z", type=float, default=2.5, help="standard errors needed to override counter")
    parser.add_argument("--seed", type=int, default=20_000, help="the first deal's seed")
    parser.add_argument("--workers", type=int, default=2, help="processes (the deals are split between them)")
    args = parser.parse_args()
    if args.deals < 1 or args.worlds < 1 or args.workers < 1:
        parser.error("--deals, --worlds and --workers must be positive")
    start = time.perf_counter()
    blocks = np.array_split(np.arange(args.seed, args.seed + args.deals), min(args.workers, args.deals))
    with ProcessPoolExecutor(len(blocks)) as pool:
        jobs = [pool.submit(run_block, args.variant, args.players, int(b[0]), len(b), args.worlds, args.z)
                for b in blocks]  # fmt: skip
        wins, games, decisions, overrides = np.sum([job.result() for job in jobs], axis=0)
    low, high = wilson_interval(wins, games)
    print(f"{args.variant}, {args.players} players, search ({args.worlds} worlds, z {args.z}) against "
          f"{args.players - 1} counter: {wins / games:.1%} [{low:.1%}, {high:.1%}] of {games} games "
          f"(fair share {1 / args.players:.1%}); it overrode counter in {overrides / max(decisions, 1):.1%} of "
          f"its {decisions} decisions; {time.perf_counter() - start:.0f} s")  # fmt: skip


if __name__ == "__main__":
    main()
