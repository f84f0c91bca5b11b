"""How many deals the sequential test (`uno-bench compare`) saves against a fixed-size comparison at the same error
rates, simulated on real per-deal differences.

    python benchmarks/bench_sprt.py bench/ppo_preset.json bench/counter.json --cell classic-2p/counter/round

The two results files (`uno-bench run`) hold each agent's wins per deal on the same deals; their differences, deal by
deal, are the pool (both files are checked whole against their suite first, `uno_env.arena.bench.read_results`).
Each run of the simulation draws deals from the pool (with replacement, shifted to a chosen true difference) until
the test of the suite's settings (`uno_env.arena.bench_stats`) ends. Printed per true difference: the share of runs
with each decision (the error rates reached), the mean and 90th percentile of the deals the test took, the deals of
a fixed-size two-sided z test with the same alpha, beta and delta (for the pool's standard deviation), and the
saving. `--json FILE` writes the rows.
"""

from __future__ import annotations

import json
import sys

import numpy as np

from uno_env import cli
from uno_env.arena.bench import load_suite, read_results
from uno_env.arena.bench_stats import (
    A_BETTER,
    B_BETTER,
    MAX_COMPARE_DEALS,
    MAX_RUNS,
    NO_DIFFERENCE,
    UNDECIDED,
    SequentialTest,
    simulate,
)
from uno_env.records import write_atomic


def paired_pool(first: dict, second: dict, cell: str) -> tuple[np.ndarray, int]:
    """(per-deal differences of win rate, first - second, over the deals both played; the table's players)."""
    found = []
    for document in (first, second):
        match = [c for c in document["cells"] if f"{c['table']}/{c['opponent']}/{c['episode']}" == cell]
        if not match or match[0]["status"] != "played":
            raise ValueError(f"{document['agent']} has no played cell {cell}")
        found.append(match[0])
    a, b = ({s: w for s, w in zip(c["per_deal"]["seeds"], c["per_deal"]["wins"], strict=True)} for c in found)
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        raise ValueError(f"{cell}: the two files share {len(common)} deals; the pool needs at least 2")
    players = round(found[0]["games"] / found[0]["deals"])
    return np.array([a[s] - b[s] for s in common]) / players, players


def main(argv: list[str] | None = None) -> int:
    parser = cli.ArgumentParser(prog="bench_sprt.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("first", help="results file of agent A")
    parser.add_argument("second", help="results file of agent B")
    parser.add_argument("--suite", help="the suite both were made with (default: the shipped suite they name)")
    parser.add_argument("--cell", default="classic-2p/counter/round", help="TABLE/OPPONENT/EPISODE")
    parser.add_argument("--runs", type=cli.int_in_range(1, MAX_RUNS), default=2000,
                        help=f"simulated tests per true difference, 1 to {MAX_RUNS:,}")  # fmt: skip
    parser.add_argument("--max-deals", type=cli.int_in_range(2, MAX_COMPARE_DEALS), default=20_000,
                        help=f"deals a run may take, 2 to {MAX_COMPARE_DEALS:,}")  # fmt: skip
    parser.add_argument("--json", help="write the rows to this file")
    args = parser.parse_args(argv)
    try:
        suite = load_suite(args.suite) if args.suite else None
        first = read_results(args.first, suite)
        suite = suite or load_suite(first["suite"]["name"])
        second = read_results(args.second, suite)
        pool, players = paired_pool(first, second, args.cell)
    except ValueError as error:
        parser.error(str(error))
    settings = {k: suite.compare[k] for k in ("alpha", "beta", "delta", "min_deals", "block")}
    test = SequentialTest(**settings)
    observed = float(pool.mean())
    means = sorted({0.0, test.delta / 2, test.delta, 2 * test.delta, -test.delta, round(observed, 4)})
    rows = simulate(pool, means, test, runs=args.runs, max_deals=args.max_deals)
    print(f"{first['agent']} - {second['agent']} at {args.cell}: {len(pool)} paired deals, observed difference "
          f"{observed:+.2%}, sd per deal {pool.std(ddof=1):.3f}; test {settings}")  # fmt: skip
    print("| true difference | A better | B better | no difference | undecided | mean deals | 90% of runs within | "
          "fixed-size deals | saving |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['mean']:+.2%} | {row[A_BETTER]:.1%} | {row[B_BETTER]:.1%} | {row[NO_DIFFERENCE]:.1%} | "
              f"{row[UNDECIDED]:.1%} | {row['mean_deals']:,.0f} | {row['p90_deals']:,.0f} | {row['fixed_deals']:,} | "
              f"{1 - row['mean_deals'] / row['fixed_deals']:.0%} |")  # fmt: skip
    if args.json:
        write_atomic(args.json, json.dumps({"first": first["agent"], "second": second["agent"], "cell": args.cell,
                                            "deals": len(pool), "players": players, "test": settings,
                                            "rows": rows}, indent=1) + "\n")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
