"""Running a uno-bench suite: each cell (table, opponent, episode) played with `play_games`, here or in worker
processes (the same results either way), its report per deal, and the draw-luck control variate (`draw_luck`).

A candidate is any name the agent catalogue reads (`uno_env.agents.registry`; `{preset}` stands for each table's
variant), a user's class `module:Class` included with `trust=True`; a table the catalogue says it cannot play at, or
whose game it refuses when seated, is reported as refused.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np

from uno_env import GameBatch, __version__
from uno_env.agents.registry import can_play, make_agent, parse_agent
from uno_env.agents.trust import USER_ERRORS
from uno_env.game import DEFAULT_MAX_STEPS, NO_ACTION
from uno_env.validate import EPISODES

from .bench_stats import control_variate
from .bench_suites import (
    DEAL_BATCH,
    DEFAULT_SUITE,
    MAX_TEXT,
    MAX_WORKERS,
    PLACEHOLDER,
    RESULTS_FORMAT,
    RESULTS_VERSION,
    ROLES,
    Cell,
    Suite,
    Table,
    check_agent_name,
    check_digests,
    check_policies,
    check_scale,
    is_int,
    load_suite,
    short_repr,
    visible,
)
from .ratings import _game_pairs, deal_interval
from .tournament import play_games

# ------------------------------------------------------------------------------------------------ agents

def is_user_class(name: str) -> bool:
    """`module:Class` where `module` is no catalogue kind: a user's agent class (imported only with trust)."""
    try:
        return parse_agent(name).kind == "class"
    except ValueError:
        return False


def build_agent(name: str, table: Table, seed: int, trust: bool = False) -> Any:
    """The agent `name` for a table (`{preset}` filled in), seeded, as every command seats it
    (`uno_env.agents.registry.make_agent`: with `trust`, a user's class `module:Class` too)."""
    check_agent_name(name)
    return make_agent(name.replace(PLACEHOLDER, table.variant), seed=seed, trust=trust)


def check_seat(name: str, table: Table) -> None:
    """Refuse (ValueError) an agent the catalogue says cannot play at `table` (`uno_env.agents.registry.can_play`)."""
    why = can_play(name.replace(PLACEHOLDER, table.variant), table.variant, table.players)
    if why is not None:
        raise ValueError(why)


def agent_seed(base: int, cell: Cell, role: int) -> int:
    """The seed of a cell's candidate (role 0) or opponent (role 1): from the suite's agent seed and the cell,
    never the candidate's name, so every candidate meets the same opponent seeds."""
    episode = EPISODES.index(cell.episode)
    words = [base % 2**64, cell.table_index, cell.opponent_index, episode, role]
    return int(np.random.SeedSequence(words).generate_state(1, np.uint64)[0] >> np.uint64(1))


# ------------------------------------------------------------------------------------------------ playing


@dataclass(frozen=True)
class CellJob:
    """What a worker needs to play a cell (picklable)."""

    candidate: str
    trust: bool
    cell: Cell
    candidate_seed: int
    opponent_seed: int
    batch_size: int = 1024
    luck: bool = False  # also trace the games and report the draw-luck control variate (`draw_luck`)


def play_cell(job: CellJob) -> dict:
    """Play one cell; its report (`cell_report`), or a refusal when the candidate or opponent cannot sit at the
    table."""
    cell = job.cell
    start = time.perf_counter()
    try:
        for name in (job.candidate, cell.opponent):
            check_seat(name, cell.table)
        agents = {
            "candidate": build_agent(job.candidate, cell.table, job.candidate_seed, job.trust),
            "opponent": build_agent(cell.opponent, cell.table, job.opponent_seed, False),
        }
        lineup = ["candidate"] + ["opponent"] * (cell.table.players - 1)
        games = cell.deals * cell.table.players
        traces = {game: [] for game in range(games)} if job.luck else None
        records = play_games(agents, lineup, cell.table.rules, games=games, seed=cell.first_seed,
                             batch_size=job.batch_size, episode=cell.episode, trace=traces)  # fmt: skip
    except USER_ERRORS as error:
        message = visible(" ".join(str(error).split()))[:MAX_TEXT]  # one line of text, as a results file holds it
        return {**_cell_head(cell), "status": "refused", "error": message}
    report = {**_cell_head(cell), **cell_report(records, cell.table.players)}
    if job.luck:
        report["draw_luck"] = luck_report(cell, records, [traces[game] for game in range(games)])
    return {**report, "seconds": time.perf_counter() - start}


def luck_report(cell: Cell, records, traces) -> dict:
    """The draw-luck control variate of a cell (`draw_luck`, `control_variate`): the candidate's win rate
    adjusted, with its interval by deal, beside the plain one; the covariates per deal (the candidate's luck,
    then the other seats', feature by feature, summed over the deal's games); the cards left out."""
    seats = [r.lineup.index("candidate") for r in records]
    luck, unattributed = draw_luck(cell.table, cell.episode, [r.seed for r in records], traces, seats)
    seeds = sorted({r.seed for r in records})
    row = {seed: i for i, seed in enumerate(seeds)}
    per_deal = np.zeros((len(seeds), luck.shape[1] * luck.shape[2]))
    wins = np.zeros(len(seeds))
    for r, game_luck in zip(records, luck, strict=True):
        per_deal[row[r.seed]] += game_luck.ravel()
        if r.lineup.index("candidate") in r.winners:
            wins[row[r.seed]] += 1 / len(r.winners)
    estimate = control_variate(wins / cell.table.players, per_deal)
    return {**estimate, "features": [f"{side} {f}" for side in ROLES for f in LUCK_FEATURES],
            "unattributed_cards": unattributed, "per_deal": per_deal.tolist()}  # fmt: skip


def _cell_head(cell: Cell) -> dict:
    return {"table": cell.table.id, "opponent": cell.opponent, "episode": cell.episode,
            "first_seed": cell.first_seed, "deals": cell.deals}  # fmt: skip


def cell_report(records, players: int) -> dict:
    """What a cell reports: games, the candidate's win rate (ties shared) with its 95% interval by deal, fair
    share, mean points, games without a winner, mean decisions per game; per deal (in seed order) its wins, its
    points and its Bradley-Terry comparisons with the opponent [candidate over opponent, opponent over it]."""
    seeds = sorted({r.seed for r in records})
    row = {seed: i for i, seed in enumerate(seeds)}
    wins, points = np.zeros(len(seeds)), np.zeros(len(seeds))
    comparisons = np.zeros((len(seeds), 2))
    index = {name: i for i, name in enumerate(ROLES)}
    undecided = length = 0
    for r in records:
        d = row[r.seed]
        seat = r.lineup.index("candidate")
        points[d] += r.points[seat]
        if seat in r.winners:
            wins[d] += 1 / len(r.winners)
        undecided += not r.winners
        length += r.length
        for (a, _), w in _game_pairs(r.lineup, r.winners, index).items():
            comparisons[d, 0 if a == 0 else 1] += w
    _, low, high = deal_interval(records, ["candidate"])
    games = len(records)
    return {
        "status": "played", "games": games, "win_rate": float(wins.sum() / games), "low": float(low[0]),
        "high": float(high[0]), "fair_share": 1 / players, "mean_points": float(points.sum() / games),
        "undecided": int(undecided), "mean_length": length / games,
        "per_deal": {"seeds": seeds, "wins": wins.tolist(), "points": points.tolist(),
                     "comparisons": comparisons.tolist()},
    }  # fmt: skip


def check_run(suite: Suite, games_scale: float = 1.0, tables: Sequence[str] | None = None, workers: int = 1,
              draw_luck: bool = False) -> list[Cell]:  # fmt: skip
    """The cells a run of `suite` plays, once its settings are checked (a ValueError of one line says what is
    allowed): before any game, so that no run stops half-way on a setting."""
    check_scale(games_scale)
    if not is_int(workers, 1, MAX_WORKERS):
        raise ValueError(f"workers is a whole number from 1 to {MAX_WORKERS}, got {short_repr(workers)}")
    cells = suite.cells(games_scale, tables)
    if not cells:
        raise ValueError(f"{suite.name} has no cell at the tables {', '.join(map(str, tables or ()))}")
    few = [cell for cell in cells if cell.deals < LUCK_MIN_DEALS]
    if draw_luck and few:
        raise ValueError(f"--draw-luck needs at least {LUCK_MIN_DEALS} deals a cell (its control variate has "
                         f"{LUCK_MIN_DEALS - 3} covariates); {few[0].key} plays {few[0].deals}: use a larger "
                         "--games-scale or suite")  # fmt: skip
    return cells


def worker_setup() -> None:
    """One core per worker process: numba and torch single-threaded."""
    import numba

    numba.set_num_threads(1)
    try:
        import torch
    except ImportError:  # a plain install: no policies to run
        return
    torch.set_num_threads(1)


def run_suite(
    candidate: str,
    suite: Suite | str = DEFAULT_SUITE,
    *,
    games_scale: float = 1.0,
    tables: Sequence[str] | None = None,
    trust: bool = False,
    workers: int = 1,
    batch_size: int = 1024,
    draw_luck: bool = False,
    progress: bool = False,
) -> dict:
    """Play `candidate` through every cell of `suite` (only `tables`, if given; each cell on its first
    ceil(deals * games_scale) deals) and return the results document (`RESULTS_FORMAT`). The candidate is built
    once first, so a bad name fails before any game. `workers` > 1 plays the cells in that many processes.
    `draw_luck` adds to every cell the win rate adjusted by the draw-luck control variate (`luck_report`), beside
    the plain one, which it leaves as it is."""
    suite = load_suite(suite) if isinstance(suite, str) else suite
    check_agent_name(candidate)
    cells = check_run(suite, games_scale, tables, workers, draw_luck)
    check_digests(suite, [c.table.id for c in cells])
    check_policies(suite, [c.table.id for c in cells])
    build_agent(candidate, cells[0].table, 0, trust)  # a bad name or file fails here, before any game
    jobs = [CellJob(candidate, trust, c, agent_seed(suite.agent_seed, c, 0), agent_seed(suite.agent_seed, c, 1),
                    batch_size, draw_luck) for c in cells]  # fmt: skip
    from tqdm import tqdm

    start = time.perf_counter()
    bar = tqdm(total=len(jobs), unit="cell", disable=not progress, leave=False, desc=candidate)
    if workers == 1:
        reports = []
        for job in jobs:
            reports.append(play_cell(job))
            bar.update()
    else:
        # spawned, not forked: a fork of a process whose numba or torch threads have run can hang
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                 initializer=worker_setup) as pool:  # fmt: skip
            futures = [pool.submit(play_cell, job) for job in jobs]
            for future in futures:
                future.add_done_callback(lambda _: bar.update())
            reports = [future.result() for future in futures]
    bar.close()
    return {
        "format": RESULTS_FORMAT, "format_version": RESULTS_VERSION,
        "suite": {"name": suite.name, "sha256": suite.sha256}, "agent": candidate,
        "games_scale": games_scale, "tables": [c for c in suite.table_ids if tables is None or c in tables],
        "uno_env_version": __version__, "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "seconds": time.perf_counter() - start, "workers": workers, "draw_luck": draw_luck, "cells": reports,
    }  # fmt: skip


# ------------------------------------------------------------------------------------------------ draw luck

#: what a drawn card is worth, feature by feature (`draw_luck`): a wild card, a coloured action card, a card that
#: matches the active colour or the top card's rank when it is drawn (or is wild)
LUCK_FEATURES = ("wild", "action", "playable")
#: the fewest deals a cell needs for `--draw-luck`'s control variate (`control_variate`: its covariates, and 3)
LUCK_MIN_DEALS = len(ROLES) * len(LUCK_FEATURES) + 3


def _card_features(kinds: np.ndarray, color: int, top: int) -> np.ndarray:
    """(cards, features) of the card kinds `kinds` drawn onto a discard pile topped by `top` in colour `color`.
    Any function of the card and of what was known before it was drawn would do: only how well it predicts the
    outcome changes, never the mean of the luck (zero)."""
    colored = kinds < 52
    rank = kinds % 13
    playable = ~colored | (colored & ((kinds // 13 == color) | ((top < 52) & (rank == top % 13))))
    return np.stack([~colored, colored & (rank >= 10), playable], axis=1).astype(float)


def draw_luck(table: Table, episode: str, seeds: Sequence[int], traces: Sequence[Sequence[int]],
              seats: Sequence[int], max_steps: int = DEFAULT_MAX_STEPS) -> tuple[np.ndarray, int]:  # fmt: skip
    """The draw luck of each game, replayed from its seed and actions: for every card a seat takes from the draw
    pile, each feature (`LUCK_FEATURES`) of the card less its mean over the pile the card came from, summed for
    the seat `seats[g]` (the candidate's) and for the other seats. Given everything but the order of the pile
    (which no seat sees) the top card is any of the pile's cards alike, so each term has mean zero whatever the
    agents do: a control variate (`uno_env.arena.bench_stats.control_variate`). Returns ((games, 2, features),
    the cards it could not attribute: drawn in a step that also reshuffled, or not to exactly one hand; in a
    match, the new deal of each round is no draw)."""
    games = len(seeds)
    luck = np.zeros((games, 2, len(LUCK_FEATURES)))
    unattributed = 0
    for start in range(0, games, DEAL_BATCH):  # a batch at a time: memory bounded however many games
        part = slice(start, min(start + DEAL_BATCH, games))
        unattributed += _replay_luck(table, episode, seeds[part], traces[part], seats[part], max_steps, luck[part])
    return luck, unattributed


def _replay_luck(table: Table, episode: str, seeds: Sequence[int], traces: Sequence[Sequence[int]],
                 seats: Sequence[int], max_steps: int, luck: np.ndarray) -> int:  # fmt: skip
    """`draw_luck` of a batch of games, added into `luck`; the cards it could not attribute."""
    games, n = len(seeds), table.players
    batch = GameBatch(table.rules, n, games, episode=episode, max_steps=max_steps)
    batch.reset(np.asarray(seeds, dtype=np.uint64))
    s = batch.state_array
    lengths = np.array([len(t) for t in traces])
    padded = np.full((games, int(lengths.max(initial=0))), NO_ACTION, np.int64)
    for g, trace in enumerate(traces):
        padded[g, : len(trace)] = trace
    unattributed = 0
    for step in range(padded.shape[1]):
        hands, piles, lengths_before = s["hand"][:, :n].astype(np.int64), s["draw_pile"].copy(), s["draw_len"].copy()
        rounds, colors = s["rounds"].copy(), s["color"].copy()
        tops = s["discard"][np.arange(games), np.maximum(s["discard_len"] - 1, 0)].astype(np.int64)
        batch.step(padded[:, step])
        lengths_after = s["draw_len"]
        for g in np.flatnonzero((lengths_after != lengths_before) & (s["rounds"] == rounds)).tolist():
            before, after = int(lengths_before[g]), int(lengths_after[g])
            gained = np.clip(s["hand"][g, :n].astype(np.int64) - hands[g], 0, None).sum(axis=1)
            taken = before - after
            if after > before or not np.array_equal(piles[g, :after], s["draw_pile"][g, :after]) or (
                    np.count_nonzero(gained) != 1 or gained.sum() != taken):  # fmt: skip
                unattributed += max(taken, 0)
                continue
            pile = _card_features(piles[g, :before].astype(np.int64), int(colors[g]), int(tops[g]))
            drawn = pile[after:before]
            side = 0 if int(np.argmax(gained)) == seats[g] else 1
            luck[g, side] += drawn.sum(axis=0) - taken * pile.mean(axis=0)
    if not np.all(s["done"][:games] | s["truncated"][:games]):
        raise RuntimeError("a replayed game did not end: its actions are not the game's")
    return unattributed
