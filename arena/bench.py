"""uno-bench: versioned evaluation suites, their results files, a leaderboard, and a sequential A/B test.

    uno-bench run counter ppo:{preset} --out bench/          # every table and opponent of uno-bench-v1
    uno-bench run greedy --suite uno-bench-smoke --out smoke/   # the tiny suite the tests use
    uno-bench run mypackage.agents:MyAgent --trust --games-scale 0.1 --out bench/
    uno-bench leaderboard bench/*.json --out bench/
    uno-bench compare ppo:{preset} counter --table classic-2p --opponent counter
    uno-bench suites

The command lives here, and here are the names of the parts it calls, from the modules that do each thing:

- `uno_env.arena.bench_suites`: a suite (`Suite`, a JSON file in `uno_env/arena/suites/`): its tables (a variant, its
  options and a player count), the bank of deals and its digests (an engine that deals differently is caught), the
  reference opponents and the shipped policies they seat, pinned by digest. `PUBLISHED` pins each published suite's
  hash: a change is a new version. Every file's fields are checked whole when it is read, and a refusal is one line
  naming the file and the field.
- `uno_env.arena.bench_run`: `run_suite` plays one candidate through every cell (table, opponent, episode), each
  deal once with the candidate in each seat, here or in worker processes (the same results); `draw_luck`, the
  draw-luck control variate.
- `uno_env.arena.bench_results`: the results file (`RESULTS_FORMAT`, documented in docs/benchmark.md): per cell the
  win rate with its 95% interval by deal, fair share, mean points, and per deal the wins and Bradley-Terry
  comparisons, so that two files compare deal by deal; read back checked whole.
- `uno_env.arena.bench_board`: `leaderboard`, ratings refitted from the results with intervals by deal, as Markdown
  and HTML in which names show as text.
- `uno_env.arena.bench_compare`: `compare`, the sequential test of `uno_env.arena.bench_stats` on paired deals of
  one table.

A candidate is any agent name the other commands take (`uno_env.agents.registry`), a user's class `module:Class`
with `--trust` (importing runs the module's code); `{preset}` in a name stands for each table's variant
(`ppo:{preset}` seats each table's shipped policy). A table the candidate cannot play at is reported as refused.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from uno_env import cli
from uno_env.agents.registry import parse_agent
from uno_env.agents.trust import USER_ERRORS, add_trust
from uno_env.records import write_atomic

from .bench_board import Leaderboard, leaderboard, markdown_text, write_leaderboard
from .bench_compare import COMPARE_OPPONENT, compare
from .bench_results import (
    ResultsError,
    check_results,
    read_results,
    results_path,
    results_suite,
    write_results,
)
from .bench_run import (
    LUCK_FEATURES,
    LUCK_MIN_DEALS,
    CellJob,
    agent_seed,
    build_agent,
    cell_report,
    check_run,
    check_seat,
    draw_luck,
    is_user_class,
    luck_report,
    play_cell,
    run_suite,
    worker_setup,
)
from .bench_stats import (
    A_BETTER,
    B_BETTER,
    MAX_COMPARE_DEALS,
    MAX_DEALS,
    NO_DIFFERENCE,
    SequentialResult,
    SequentialTest,
)
from .bench_suites import (
    DEFAULT_SUITE,
    MAX_FIRST_SEED,
    MAX_RESULTS_BYTES,
    MAX_SUITE_BYTES,
    MAX_WORKERS,
    PLACEHOLDER,
    PUBLISHED,
    RESULTS_FORMAT,
    RESULTS_VERSION,
    SUITES_DIR,
    Cell,
    Opponent,
    Suite,
    SuiteError,
    Table,
    check_agent_name,
    check_digests,
    check_policies,
    deal_digest,
    load_suite,
    parse_suite,
    read_json,
    sequential_settings,
    suite_digests,
    suite_hash,
    suite_names,
    suite_policy_digests,
    visible,
)

__all__ = [
    "COMPARE_OPPONENT", "DEFAULT_SUITE", "LUCK_FEATURES", "LUCK_MIN_DEALS", "MAX_COMPARE_DEALS", "MAX_DEALS",
    "MAX_FIRST_SEED", "MAX_RESULTS_BYTES", "MAX_SUITE_BYTES", "MAX_WORKERS", "PLACEHOLDER", "PUBLISHED",
    "RESULTS_FORMAT", "RESULTS_VERSION", "SUITES_DIR", "WORKERS", "Cell", "CellJob", "Leaderboard", "Opponent",
    "ResultsError", "SequentialResult", "SequentialTest", "Suite", "SuiteError", "Table", "agent_seed", "build_agent",
    "cell_report", "check_agent_name", "check_digests", "check_policies", "check_results", "check_run", "check_seat",
    "compare", "deal_digest", "draw_luck", "is_user_class", "leaderboard", "load_suite", "luck_report", "main",
    "markdown_text", "parse_suite", "play_cell", "read_results", "results_path", "results_suite", "run_suite",
    "suite_digests", "suite_hash", "suite_names", "suite_policy_digests", "verdict", "visible", "worker_setup",
    "write_leaderboard", "write_results",
]  # fmt: skip


# ------------------------------------------------------------------------------------------------ the command


def build_parser() -> cli.ArgumentParser:
    parser = cli.ArgumentParser(prog="uno-bench", description="Versioned evaluation suites of UNO agents: run a "
                                "suite, make its leaderboard, or test whether one agent is better than another.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=cli.ArgumentParser)
    run = commands.add_parser("run", help="play agents through a suite; write their results and the leaderboard")
    run.add_argument("agents", nargs="+", metavar="AGENT",
                     help="agent names, as every command takes them (counter, ppo:classic, best:classic, "
                          "ismcts:100, ...; ppo:{preset} is each table's shipped policy) or your own class as "
                          "module:Class (with --trust)")  # fmt: skip
    _suite_flag(run)
    run.add_argument("--games-scale", type=_scale, default=1.0, metavar="X",
                     help="play this share of each cell's deals, its first ones (default: 1, the whole suite)")
    run.add_argument("--tables", nargs="+", metavar="ID", help="only these tables (default: all)")
    cli.add_out(run, "bench-results", help="folder for AGENT.json results, leaderboard.md and leaderboard.html")
    run.add_argument("--workers", type=WORKERS, default=1, metavar="INT",
                     help=f"processes playing cells at once, one core each, 1 to {MAX_WORKERS} (default: 1)")
    run.add_argument("--draw-luck", action="store_true",
                     help="also report each cell's win rate adjusted by the draw-luck control variate (replays every "
                          "game: slower; see docs/benchmark.md)")  # fmt: skip
    add_trust(run)
    run.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                     help="a progress bar (default: %(default)s)")  # fmt: skip
    board = commands.add_parser("leaderboard", help="the leaderboard of results files (markdown and HTML)")
    board.add_argument("results", nargs="+", type=Path, metavar="FILE", help="results files of one suite")
    board.add_argument("--suite", metavar="NAME|FILE",
                       help="the suite they were made with (default: the shipped suite the files name)")
    cli.add_out(board, "bench-results", help="folder for leaderboard.md and leaderboard.html")
    comp = commands.add_parser("compare", help="a sequential test: is agent A better than agent B?")
    comp.add_argument("first", metavar="A", help="the agent under test, any name uno-arena takes (e.g. ppo:{preset})")
    comp.add_argument("second", metavar="B", help="the agent it is measured against (e.g. counter)")
    _suite_flag(comp)
    comp.add_argument("--table", metavar="ID", help="the suite's table to play at (default: its first)")
    comp.add_argument("--opponent", default="counter", help="the agent in the other seats (default: counter)")
    cli.add_episode(comp)
    comp.add_argument("--alpha", type=cli.positive_float, metavar="P",
                      help="chance of declaring a difference between equal agents, both ways (default: the suite's)")
    comp.add_argument("--beta", type=cli.positive_float, metavar="P",
                      help="chance of missing a difference of delta (default: the suite's)")
    comp.add_argument("--delta", type=cli.positive_float, metavar="D",
                      help="the smallest difference of win rates that matters (default: the suite's)")
    comp.add_argument("--block", type=cli.int_in_range(2, MAX_DEALS), metavar="DEALS",
                      help=f"deals per look, 2 to {MAX_DEALS:,} (default: the suite's)")
    comp.add_argument("--max-deals", type=cli.int_in_range(2, MAX_COMPARE_DEALS), metavar="DEALS",
                      help=f"stop undecided after this many deals, 2 to {MAX_COMPARE_DEALS:,} (default: the suite's)")
    add_trust(comp)
    comp.add_argument("--json", type=Path, metavar="FILE", help="also write the result as JSON")
    comp.add_argument("--verbose", action="store_true",
                      help="print the test at every look (difference, log-likelihood ratios and their bounds) and the "
                           "deals a fixed-size test would need; by default only the verdict")  # fmt: skip
    commands.add_parser("suites", help="list the suites shipped with uno-env")
    parser.epilog = "commands:\n" + "\n".join(
        "  " + sub.format_usage().strip().removeprefix("usage: ") for sub in commands.choices.values())
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


WORKERS = cli.int_in_range(1, MAX_WORKERS)  # --workers: processes, each one core


def _suite_flag(parser) -> None:
    parser.add_argument("--suite", default=DEFAULT_SUITE, metavar="NAME|FILE",
                        help=f"a suite's name or a suite JSON file (default: {DEFAULT_SUITE})")  # fmt: skip


def _scale(text: str) -> float:
    value = cli.positive_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1], a share of the suite's deals, got {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "suites":
            for name in suite_names():
                suite = load_suite(name)
                cells = suite.cells()
                games = sum(c.deals * c.table.players for c in cells)
                state = "published" if name in PUBLISHED else "not published"
                print(f"{name} ({state}, sha256 {suite.sha256[:16]}): {len(suite.tables)} tables, "
                      f"{len(suite.opponents)} opponents, {len(cells)} cells, {games:,} games per candidate")
            return 0
        if args.command == "leaderboard":
            suite = load_suite(args.suite) if args.suite else None
            documents = []
            for path in args.results:  # every file checked whole before anything is computed
                documents.append(read_results(path, suite))
                suite = suite or load_suite(documents[0]["suite"]["name"])
            board = leaderboard(documents, suite)
            paths = write_leaderboard(args.out, board)
            print(board.markdown().split("\n## ")[0])
            print(f"leaderboard in {visible(str(paths[0].resolve()))} and {visible(paths[1].name)}")
            return 0
        if args.command == "run":
            return _run(args, parser)
        return _compare(args)
    except (SuiteError, *USER_ERRORS) as error:
        parser.error(str(error) or type(error).__name__)


def _run(args, parser) -> int:
    suite = load_suite(args.suite)
    if args.tables:
        for table in args.tables:
            suite.table(table)
    for agent in args.agents:
        check_agent_name(agent)
        parse_agent(agent.replace(PLACEHOLDER, suite.tables[0].variant))  # the catalogue's one-line refusal
        if is_user_class(agent) and not args.trust:
            parser.error(f"{agent!r} names a class of your own (module:Class): importing it runs its module's code, "
                         "so it loads only with --trust")  # fmt: skip
    check_run(suite, args.games_scale, args.tables, args.workers, args.draw_luck)
    documents = _suite_results(args.out, suite, skip={results_path(args.out, agent) for agent in args.agents})
    args.out.mkdir(parents=True, exist_ok=True)
    for agent in args.agents:
        results = run_suite(agent, suite, games_scale=args.games_scale, tables=args.tables, trust=args.trust,
                            workers=args.workers, draw_luck=args.draw_luck, progress=args.progress)  # fmt: skip
        path = write_results(results_path(args.out, agent), results)
        documents[path] = results
        refused = sum(c["status"] != "played" for c in results["cells"])
        print(f"{visible(agent)}: {len(results['cells'])} cells ({refused} refused) in {results['seconds']:.0f} s "
              f"-> {visible(str(path))}")  # fmt: skip
    board = leaderboard([documents[path] for path in sorted(documents)], suite)
    paths = write_leaderboard(args.out, board)
    print(board.markdown().split("\n## ")[0])
    print(f"leaderboard of {len(board.agents)} agents in {visible(str(paths[0].resolve()))} and {paths[1].name}")
    return 0


def _suite_results(folder: Path, suite: Suite, skip: set[Path]) -> dict[Path, dict]:
    """The results files of `suite` in `folder` (but those in `skip`, which a run replaces), each checked whole
    (`check_results`): a damaged one is refused, naming it, before any game. JSON files that are no uno-bench
    results, and results of other suites, are left alone."""
    found = {}
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        if path in skip:
            continue
        document = read_json(path, "uno-bench results file", MAX_RESULTS_BYTES, ResultsError)
        if not isinstance(document, dict) or document.get("format") != RESULTS_FORMAT:
            continue
        if results_suite(document, str(path))[1] == suite.sha256:
            found[path] = check_results(document, suite, str(path))
    return found


def _compare(args) -> int:
    suite = load_suite(args.suite)
    settings = sequential_settings(suite.compare)
    for key in ("alpha", "beta", "delta", "block"):
        if getattr(args, key) is not None:
            settings[key] = getattr(args, key)
    test = SequentialTest(**settings)

    def report(result: SequentialResult) -> None:
        print(f"  {result.deals:>6} deals: A - B = {result.mean:+.2%} [{result.low:+.2%}, {result.high:+.2%}], "
              f"LLR up {result.llr_up:+.2f} down {result.llr_down:+.2f} (bounds {result.lower_bound:.2f}, "
              f"{result.upper_bound:.2f})", flush=True)  # fmt: skip

    start = time.perf_counter()
    result = compare(args.first, args.second, suite, table=args.table, opponent=args.opponent, episode=args.episode,
                     test=test, max_deals=args.max_deals, trust=args.trust,
                     progress=report if args.verbose else None)  # fmt: skip
    seconds = time.perf_counter() - start
    where = suite.table(args.table) if args.table else suite.tables[0]
    fixed = test.fixed_deals(result.sd) if result.sd > 0 else None
    print(verdict(result, args.first, args.second, where, args.opponent, test, seconds))
    if args.verbose:
        print(f"{result.decision}: a fixed-size test at the same error rates (alpha {test.alpha:g}, beta "
              f"{test.beta:g}, delta {test.delta:g}) needs {fixed if fixed else '?'} deals")  # fmt: skip
    if args.json is not None:
        write_atomic(args.json, json.dumps({"first": args.first, "second": args.second, "table": where.id,
                                            "opponent": args.opponent, "episode": args.episode,
                                            "test": settings, "seconds": seconds, "fixed_deals": fixed,
                                            **result.as_dict()}, indent=1) + "\n")  # fmt: skip
    return 0


def verdict(result: SequentialResult, first: str, second: str, where: Table, opponent: str, test: SequentialTest,
            seconds: float) -> str:  # fmt: skip
    """`uno-bench compare`'s answer in one plain sentence: who is better, by how much, on what evidence."""
    a, b, who = visible(first), visible(second), f"against {visible(opponent)} at {where.id}"
    sign = -1 if result.decision == B_BETTER else 1
    low, high = sorted((sign * result.low * 100, sign * result.high * 100))
    by = f"{sign * result.mean * 100:.1f} points of win rate (95% interval {low:.1f} to {high:.1f})"
    evidence = f"{result.deals:,} deals ({result.deals * where.players * 2:,} games, {seconds:.0f} s)"
    if result.decision == A_BETTER:
        return f"{a} is better than {b} {who}, by {by}, after {evidence}."
    if result.decision == B_BETTER:
        return f"{b} is better than {a} {who}, by {by}, after {evidence}."
    if result.decision == NO_DIFFERENCE:
        return (f"{a} and {b} do not differ by {test.delta * 100:g} points of win rate or more {who} "
                f"({a} - {b} = {result.mean * 100:+.1f} points), after {evidence}.")  # fmt: skip
    return (f"Undecided: {a} - {b} = {result.mean * 100:+.1f} points of win rate [{result.low * 100:+.1f}, "
            f"{result.high * 100:+.1f}] {who} after {evidence}, the most allowed (--max-deals).")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
