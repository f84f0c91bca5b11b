"""uno-bench's sequential comparison: is agent A better than agent B? Both play the same deals of the suite's compare
bank, block by block, until the sequential test (`uno_env.arena.bench_stats`) decides.
"""

from __future__ import annotations

import numpy as np

from uno_env.validate import EPISODES

from .bench_run import agent_seed, build_agent, cell_report
from .bench_stats import MAX_COMPARE_DEALS, SequentialResult, SequentialTest, decide
from .bench_suites import (
    DEFAULT_SUITE,
    Cell,
    Suite,
    check_agent_name,
    is_int,
    load_suite,
    sequential_settings,
    short_repr,
)
from .tournament import play_games

#: the opponent index that seeds `compare`'s agents (no suite has that many opponents)
COMPARE_OPPONENT = 2**20


def compare(
    first: str,
    second: str,
    suite: Suite | str = DEFAULT_SUITE,
    *,
    table: str | None = None,
    opponent: str = "counter",
    episode: str = "round",
    test: SequentialTest | None = None,
    max_deals: int | None = None,
    trust: bool = False,
    batch_size: int = 1024,
    progress=None,
) -> SequentialResult:
    """Is `first` better than `second`? Both play the same deals of the suite's compare bank at `table` (the
    suite's first table by default), each deal once with the agent in every seat against `opponent` in the
    others, block by block, until the sequential test (`uno_env.arena.bench_stats`; the suite's settings unless
    `test` is given) ends or `max_deals` are spent. `progress(result)` is called after each block."""
    suite = load_suite(suite) if isinstance(suite, str) else suite
    if episode not in EPISODES:
        raise ValueError(f"episode is one of {', '.join(EPISODES)}, got {episode!r}")
    test = test or SequentialTest(**sequential_settings(suite.compare))
    max_deals = int(suite.compare.get("max_deals", 20_000)) if max_deals is None else max_deals
    if not is_int(max_deals, test.min_deals, MAX_COMPARE_DEALS):
        raise ValueError(f"max_deals is a whole number from the test's min_deals ({test.min_deals}) to "
                         f"{MAX_COMPARE_DEALS:,}, got {short_repr(max_deals)}")  # fmt: skip
    for name in (first, second, opponent):
        check_agent_name(name)
    where = suite.table(table) if table is not None else suite.tables[0]
    first_seed = int(suite.compare["first_seeds"][episode])
    cell = Cell(where, suite.tables.index(where), opponent, COMPARE_OPPONENT, episode, first_seed, max_deals)
    agents = {}
    for role, name in enumerate((first, second)):
        agents[role] = {"candidate": build_agent(name, where, agent_seed(suite.agent_seed, cell, role), trust),
                        "opponent": build_agent(opponent, where, agent_seed(suite.agent_seed, cell, 2), False)}
    lineup = ["candidate"] + ["opponent"] * (where.players - 1)
    differences: list[float] = []
    result = decide([], test)
    while len(differences) < max_deals:
        size = min(test.block if differences else max(test.min_deals, test.block), max_deals - len(differences))
        seed = first_seed + len(differences)
        wins = []
        for role in (0, 1):
            records = play_games(agents[role], lineup, where.rules, games=size * where.players, seed=seed,
                                 batch_size=batch_size, episode=episode)  # fmt: skip
            wins.append(np.asarray(cell_report(records, where.players)["per_deal"]["wins"]))
        differences.extend(((wins[0] - wins[1]) / where.players).tolist())
        result = decide(differences, test, final=len(differences) >= max_deals)
        if progress is not None:
            progress(result)
        if result.decision != "undecided":
            break
    return result
