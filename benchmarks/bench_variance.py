"""Variance reduction beyond the seat rotations, measured: the draw-luck control variate of `uno-bench run
--draw-luck` on fresh deals, its intervals against the plain ones at the same games, and whether the win rate moves.

    python benchmarks/bench_variance.py --agent ppo:{preset} --opponent counter --tables classic-2p classic-4p \
        --deals 4000 --workers 2

Each table's deals (from `--seed`, away from uno-bench-v1's bank) are split into `--workers` blocks played in as many
processes; every game is traced and replayed (`uno_env.arena.bench.draw_luck`). Printed per table: the plain win rate
with its 95% interval by deal, the adjusted one, how much narrower its interval is (and the games the plain estimate
would need for the same width), the slopes, and the covariates' means in standard errors (the premise that they
have mean zero: values within about +-2.5 are what chance gives). `--json FILE` writes the rows.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from uno_env import cli
from uno_env.arena import bench
from uno_env.arena.bench_stats import control_variate
from uno_env.records import write_atomic


def play_block(agent: str, opponent: str, table: bench.Table, episode: str, first_seed: int, deals: int) -> dict:
    bench.worker_setup()
    cell = bench.Cell(table, 0, opponent, 0, episode, first_seed, deals)
    return bench.play_cell(bench.CellJob(agent, False, cell, first_seed, first_seed + 1, luck=True))


def main(argv: list[str] | None = None) -> int:
    parser = cli.ArgumentParser(prog="bench_variance.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", default="ppo:{preset}")
    parser.add_argument("--opponent", default="counter")
    parser.add_argument("--tables", nargs="+", default=["classic-2p", "classic-4p"], help="uno-bench-v1's table ids")
    parser.add_argument("--episode", default="round", choices=("round", "match"))
    parser.add_argument("--deals", type=cli.int_in_range(2, bench.MAX_DEALS), default=4000,
                        help=f"deals per table, 2 to {bench.MAX_DEALS:,}")  # fmt: skip
    parser.add_argument("--seed", type=cli.int_in_range(0, bench.MAX_FIRST_SEED), default=50_000_000,
                        help="the first deal's seed")  # fmt: skip
    parser.add_argument("--workers", type=bench.WORKERS, default=2, help=f"processes, 1 to {bench.MAX_WORKERS}")
    parser.add_argument("--json", help="write the rows to this file")
    args = parser.parse_args(argv)
    suite = bench.load_suite("uno-bench-v1")
    if args.deals < args.workers * bench.LUCK_MIN_DEALS:
        parser.error(f"each worker's block needs at least {bench.LUCK_MIN_DEALS} deals (the control variate's "
                     f"covariates and 3): give --deals at least {args.workers * bench.LUCK_MIN_DEALS}")  # fmt: skip
    try:
        for table_id in args.tables:
            suite.table(table_id)
            for name in (args.agent, args.opponent):
                bench.check_agent_name(name)
    except ValueError as error:
        parser.error(str(error))
    rows = []
    for table_id in args.tables:
        table = suite.table(table_id)
        start = time.perf_counter()
        edges = np.linspace(0, args.deals, args.workers + 1).astype(int)
        with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            jobs = [pool.submit(play_block, args.agent, args.opponent, table, args.episode, args.seed + int(a),
                                int(b - a)) for a, b in zip(edges[:-1], edges[1:], strict=True)]  # fmt: skip
            reports = [job.result() for job in jobs]
        refused = [r for r in reports if r["status"] != "played"]
        if refused:
            parser.error(f"{table_id}: {refused[0]['error']}")
        wins = np.concatenate([r["per_deal"]["wins"] for r in reports]) / table.players
        luck = np.concatenate([r["draw_luck"]["per_deal"] for r in reports])
        out = control_variate(wins, luck)
        plain_half, half = (out["plain_high"] - out["plain_low"]) / 2, (out["high"] - out["low"]) / 2
        row = {"table": table_id, "agent": args.agent, "opponent": args.opponent, "episode": args.episode,
               "deals": int(len(wins)), "games": int(len(wins) * table.players),
               "unattributed_cards": sum(r["draw_luck"]["unattributed_cards"] for r in reports),
               "seconds": time.perf_counter() - start, "games_for_same_width": (half / plain_half) ** 2,
               "features": reports[0]["draw_luck"]["features"], **out}  # fmt: skip
        rows.append(row)
        print(f"{table_id} ({row['games']:,} games, {row['seconds']:.0f} s): plain {out['plain_mean']:.2%} "
              f"[{out['plain_low']:.2%}, {out['plain_high']:.2%}] (+-{plain_half:.2%}); adjusted {out['mean']:.2%} "
              f"[{out['low']:.2%}, {out['high']:.2%}] (+-{half:.2%}): {out['narrower']:.1%} narrower, the width of "
              f"{row['games_for_same_width']:.0%} of the games; moved {out['mean'] - out['plain_mean']:+.2%}")
        print("   slopes " + ", ".join(f"{f} {c:+.3f}" for f, c in zip(row["features"], out["coefficients"],
                                                                      strict=True)))  # fmt: skip
        print("   covariate means in standard errors " + ", ".join(f"{t:+.1f}" for t in out["covariate_t"])
              + f"; cards not attributed: {row['unattributed_cards']}")  # fmt: skip
    if args.json:
        write_atomic(args.json, json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
