"""How much skill the game holds: one agent (a search, a policy) in one seat against an opponent in the others.

    python benchmarks/skill.py --players 2 --agent ismcts:300 --opponent counter --deals 1000
    python benchmarks/skill.py --players 4 --agent seer:100 --opponent counter --deals 2000
    python benchmarks/skill.py --players 2 --agent ismcts:50:random:search --opponent openspiel-ismcts:50 --deals 100

Every deal is played once with the agent in each seat (the arena's rotations, `uno_env.arena.tournament.play_games`),
the deals split between `--workers` processes, each on one core (torch and numba single-threaded). Prints
the agent's win rate with two 95% intervals, by deal (`uno_env.arena.ratings.deal_interval`: the unit the
rotations make dependent) and Wilson's (every game independent), its fair share, and a search agent's mean
milliseconds per searched decision (decisions with one legal action are not searched) and how often it chose
another action than its rollout policy (`counter`).
`--json FILE` appends the result as one JSON line. The figures in docs/skill.md come from these commands.

`--engine cpu` or `--engine cuda` plays a policy network (`ppo:VARIANT`, `best:VARIANT`, `ppo:FILE.pt`) against a
baseline with a device rule (`random`, `naive`, `greedy`, `counter`) on the vector env instead, every game of a batch
at once, on the CPU cores or on the GPU (`uno_env.arena.device`; the same deals and, on both engines, the same wins),
and prints games a second too (timed after one deal that compiles the kernels):

    python benchmarks/skill.py --players 2 --agent ppo:classic --opponent counter --deals 100000 --engine cuda
"""

from __future__ import annotations

import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from uno_env import cli
from uno_env.agents.registry import is_agent_name, make_agent
from uno_env.arena.device import deal_wins as vector_deal_wins
from uno_env.arena.device import win_rate
from uno_env.arena.ratings import deal_interval, wilson_interval
from uno_env.arena.tournament import play_games


def play_block(agent: str, opponent: str, variant: str, players: int, first_seed: int, deals: int, options: dict):
    """(records, searched decisions, seconds searching, decisions) of `deals` deals from `first_seed`."""
    import numba
    import torch

    numba.set_num_threads(1)
    torch.set_num_threads(1)
    seated = {"agent": make_agent(agent, seed=first_seed), "opponent": make_agent(opponent, seed=first_seed + 1)}
    lineup = ["agent"] + ["opponent"] * (players - 1)
    records = play_games(seated, lineup, variant, games=deals * players, seed=first_seed, batch_size=256, **options)
    searcher = seated["agent"]
    decisions = sum(r.length for r in records) / players  # the agent's share of the decisions, about
    searched = (getattr(searcher, "searches", 0), getattr(searcher, "search_seconds", 0.0))
    return (records, *searched, decisions, getattr(searcher, "overrides", 0))


def deal_wins(records) -> dict[str, float]:
    """The agent's wins in each deal (over its seats' games, ties shared), by deal seed: two runs on the same deals
    compare paired (`benchmarks/paired.py`)."""
    wins: dict[int, float] = {}
    for record in records:
        share = sum(1 / len(record.winners) for seat in record.winners if record.lineup[seat] == "agent")
        wins[record.seed] = wins.get(record.seed, 0.0) + share
    return {str(seed): wins[seed] for seed in sorted(wins)}


def main(argv: list[str] | None = None) -> int:
    parser = cli.ArgumentParser(prog="skill.py", description=__doc__.split("\n\n")[0])
    cli.add_variant(parser)
    cli.add_players(parser, default=2)
    cli.add_option(parser)
    parser.add_argument("--agent", required=True, help="the agent measured (a name uno-arena knows)")
    parser.add_argument("--opponent", default="counter", help="the agent in every other seat (default: counter)")
    parser.add_argument("--deals", type=cli.positive_int, default=500, help="deals, each played once per seat")
    cli.add_seed(parser, default=30_000, help="the first deal's seed")
    parser.add_argument("--workers", type=cli.positive_int, default=2, help="processes (the deals split between them)")
    parser.add_argument("--json", default=None, help="append the result to this file as one JSON line")
    parser.add_argument("--engine", choices=("arena", "cpu", "cuda"), default="arena",
                        help="arena (default): the arena's games in --workers processes, any agents; cpu or cuda: a "
                             "policy network against a device rule on the vector env, on the CPU or the GPU")
    args = parser.parse_args(argv)
    for name in (args.agent, args.opponent):
        if not is_agent_name(name):
            parser.error(f"unknown agent {name!r}")
    options = cli.checked_rule_options(parser, args.variant, args.options, args.players)
    if args.engine != "arena":
        return play_on_vector_env(args, options)
    start = time.perf_counter()
    blocks = np.array_split(np.arange(args.seed, args.seed + args.deals), min(args.workers, args.deals))
    with ProcessPoolExecutor(len(blocks)) as pool:
        jobs = [pool.submit(play_block, args.agent, args.opponent, args.variant, args.players, int(b[0]), len(b),
                            options) for b in blocks]  # fmt: skip
        results = [job.result() for job in jobs]
    records = [r for block in results for r in block[0]]
    searches = sum(block[1] for block in results)
    seconds = sum(block[2] for block in results)
    decisions = sum(block[3] for block in results)
    overrides = sum(block[4] for block in results)
    wins = sum(1 / len(r.winners) for r in records for seat in r.winners if r.lineup[seat] == "agent")
    _, low, high = deal_interval(records, ["agent"])
    result, line = outcome(args, options, wins, len(records), float(low[0]), float(high[0]))
    result.update({
        "ms_per_searched_decision": 1000 * seconds / max(searches, 1),
        "ms_per_decision": 1000 * seconds / max(decisions, 1), "overrides": overrides / max(searches, 1),
        "seconds": time.perf_counter() - start, "deal_wins": deal_wins(records),
    })  # fmt: skip
    timing = f"; {result['ms_per_searched_decision']:.1f} ms per searched decision" if searches else ""
    if overrides:
        timing += f", another action than counter's in {result['overrides']:.1%} of them"
    print(f"{line}{timing}; {result['seconds']:.0f} s")
    write_json(args.json, result)
    return 0


def outcome(args, options: dict, wins: float, games: int, low: float, high: float, engine: str = "") -> tuple:
    """(the result's common fields, the summary line) of `wins` in `games` games with the by-deal interval
    [low, high]; `engine` names the vector env's engine in the line."""
    wilson = wilson_interval(wins, games)
    result = {
        "variant": args.variant, "players": args.players, "options": options, "agent": args.agent,
        "opponent": args.opponent, "deals": args.deals, "games": games, "win_rate": wins / games,
        "deal_interval": [low, high], "wilson_interval": list(wilson), "fair_share": 1 / args.players,
    }  # fmt: skip
    line = (
        f"{args.variant}, {args.players} players{''.join(f', {k}={v}' for k, v in options.items())}: {args.agent} "
        f"against {args.players - 1} {args.opponent}{f' (--engine {engine})' if engine else ''}: {wins / games:.1%} "
        f"[{low:.1%}, {high:.1%}] by deal, [{wilson[0]:.1%}, {wilson[1]:.1%}] Wilson, of {games} games (fair share "
        f"{1 / args.players:.1%})"
    )
    return result, line


def write_json(path: str | None, result: dict) -> None:
    """Append `result` to `path` as one JSON line (nothing without a path)."""
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(result) + "\n")


def play_on_vector_env(args, options: dict) -> int:
    """--engine cpu|cuda: the deals on the vector env (`uno_env.arena.device`), timed after one deal that compiles."""
    play = dict(deals=args.deals, seed=args.seed, engine=args.engine, **options)
    try:
        vector_deal_wins(args.agent, args.opponent, args.variant, args.players, **{**play, "deals": 1})
    except ValueError as error:
        print(f"skill.py: error: {error}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    wins = vector_deal_wins(args.agent, args.opponent, args.variant, args.players, **play)
    seconds = time.perf_counter() - start
    games = args.deals * args.players
    _, low, high = win_rate(wins, args.players)
    result, line = outcome(args, options, float(wins.sum()), games, low, high, args.engine)
    result.update({
        "engine": args.engine, "seconds": seconds, "games_per_second": games / seconds,
        "deal_wins": {str(args.seed + d): float(w) for d, w in enumerate(wins.tolist())},
    })  # fmt: skip
    print(f"{line}; {seconds:.1f} s, {games / seconds:,.1f} games/s")
    write_json(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
