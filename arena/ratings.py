"""Tournament statistics: win rates with intervals, Bradley-Terry ratings, the pairwise matrix, reports.

Input is a list of finished games, one result row each (`GameResult`: not a *game record*, the replay file of
`uno_env.records`): the agent name at each seat, the winning seats, the points of each seat. Nothing here
knows the rules of the game.

Conventions, used throughout:

* A *seat-game* is one seat in one game: an agent holding k seats of a game plays k seat-games in it.
* Wins are counted per seat: each winning seat gets ``1 / len(winners)`` of a win (ties share one win;
  a game with no winner, e.g. cut off, counts its seat-games with no wins).
* Win-rate intervals, two kinds. Wilson score 95% intervals with the seat-games as trials. And one with
  the deal as the unit (`deal_interval`, a cluster-robust interval): the arena plays every seed under every
  seat rotation and in every lineup, so the games of one deal are dependent (the same cards). The Wilson
  interval treats them as independent; the deal interval does not, and as the rotations cancel much of a
  deal's luck it is narrower, and still valid. The ratings' bootstrap resamples whole games.
* *Pairwise comparisons*: in each game every winning seat beats every losing seat; two winning seats tie
  (half a win each). Seats of the same agent are never compared with each other, and losing seats are
  not compared with each other (no information). In "A vs 3x B", a win of A gives A three wins over B,
  a win of B one win over A: for equal agents both sides expect 3/4 comparison wins per game.
* Ratings: a Bradley-Terry model on those comparisons, ``P(i beats j) = p_i / (p_i + p_j)``, fitted by
  the MM algorithm (Hunter 2004, "MM algorithms for generalized Bradley-Terry models"; a Newton step is
  taken instead wherever it ends higher, as MM crawls on lopsided results) with a weak prior
  (``prior`` virtual wins and as many virtual losses against a fixed reference of strength 1), which
  keeps an undefeated or winless agent finite. Reported as ``400 * log10(p)`` shifted so the mean rating
  of the agents is 1000 (differences read like Elo: +120 is 2:1 odds, +400 is 10:1).
* Rating intervals: percentile bootstrap over games (games are resampled with replacement and the model
  refitted; each replicate is re-centred to mean 1000, so an interval is relative to the field).
  Deterministic for a given seed.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from uno_env.records import write_atomic

Z95 = 1.959963984540054  # two-sided 95% normal quantile
ELO_SCALE = 400.0 / math.log(10.0)  # rating = ELO_SCALE * ln(p)
RATING_MEAN = 1000.0


@dataclass(frozen=True)
class GameResult:
    """One finished game: agent name per seat, winning seats (none, one or tied), points per seat."""

    seed: int
    lineup: tuple[str, ...]
    winners: tuple[int, ...]
    points: tuple[int, ...]
    length: int

    def __post_init__(self):
        object.__setattr__(self, "lineup", tuple(str(n) for n in self.lineup))
        object.__setattr__(self, "winners", tuple(int(w) for w in self.winners))
        object.__setattr__(self, "points", tuple(int(p) for p in self.points))
        n = len(self.lineup)
        if len(self.points) != n:
            raise ValueError(f"points has {len(self.points)} entries for {n} seats")
        if len(set(self.winners)) != len(self.winners) or any(not 0 <= w < n for w in self.winners):
            raise ValueError(f"winners {self.winners} are not distinct seats of 0..{n - 1}")

    @classmethod
    def from_dict(cls, row: Mapping) -> GameResult:
        """Build from a mapping with the field names (extra keys are ignored)."""
        return cls(**{f.name: row[f.name] for f in dataclasses.fields(cls)})


#: the older name of `GameResult`, kept for one release (a "game record" is a replay file, `uno_env.records`)
GameRecord = GameResult


@dataclass(frozen=True)
class AgentSummary:
    """Per-agent results: seat-games, shared wins, win rate with its Wilson 95% CI, points, rating."""

    name: str
    games: int  # seat-games
    wins: float  # ties shared
    win_rate: float
    win_rate_low: float
    win_rate_high: float
    fair_share: float  # mean of 1/N over the agent's seat-games: the win rate of an equal agent
    mean_points: float  # per seat-game
    rating: float  # Elo-like, mean of the field 1000
    rating_low: float  # 95% bootstrap interval
    rating_high: float
    deal_low: float = math.nan  # win rate's 95% interval with the deal (seed) as the unit
    deal_high: float = math.nan


# ---------------------------------------------------------------------------------------------- intervals


def wilson_interval(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (successes may be fractional for shared ties).

    Chosen over the normal (Wald) interval because it stays inside [0, 1] and keeps its coverage near
    0% and 100% and for small n. n = 0 gives (0, 1).
    """
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(max(p * (1 - p) / n + z2 / (4 * n * n), 0.0))
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return float(low), float(high)


def deal_interval(
    results: Iterable[GameResult], names: Sequence[str] | None = None, z: float = Z95
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(names, low, high): each agent's win rate (wins per seat-game) with a 95% interval that takes the deal
    (the results' seed) as the unit: the ratio estimator's cluster-robust variance, sum_d (w_d - r g_d)^2 /
    G^2 * D / (D - 1) over the D deals with w_d wins in g_d seat-games (G in all). Valid however the games
    of one deal depend on each other (rotations, lineups, the same cards); clipped to [0, 1]."""
    results = list(results)
    names = agent_names(results) if names is None else list(names)
    index = {n: i for i, n in enumerate(names)}
    deals = {s: i for i, s in enumerate(dict.fromkeys(r.seed for r in results))}
    wins = np.zeros((len(deals), len(names)))
    games = np.zeros((len(deals), len(names)))
    for r in results:
        d = deals[r.seed]
        for name in r.lineup:
            if name in index:
                games[d, index[name]] += 1
        for seat in r.winners:
            if r.lineup[seat] in index:
                wins[d, index[r.lineup[seat]]] += 1 / len(r.winners)
    return names, *wins_interval(wins, games, z)


def wins_interval(wins: np.ndarray, games: np.ndarray, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """(low, high): `deal_interval`'s interval from its tables, wins[d, a] and seat-games[d, a] of agent a in deal
    d (one column, or a 1-d array each, for one agent); (0, 1) with under two deals or no games."""
    wins, games = np.asarray(wins, np.float64), np.asarray(games, np.float64)
    total = games.sum(axis=0)
    if wins.shape[0] < 2 or not np.all(total):
        return np.zeros_like(total), np.ones_like(total)
    rate = wins.sum(axis=0) / total
    spread = ((wins - rate * games) ** 2).sum(axis=0) * wins.shape[0] / (wins.shape[0] - 1)
    half = z * np.sqrt(spread) / total
    return np.clip(rate - half, 0.0, 1.0), np.clip(rate + half, 0.0, 1.0)


@dataclass(frozen=True)
class HeadToHead:
    """How `agent` did in the games whose seats only it and `opponent` held: wins per seat-game of `agent`, with
    its 95% interval by deal, and its fair share (its seats per game)."""

    agent: str
    opponent: str
    games: int
    win_rate: float
    low: float
    high: float
    fair: float


def head_to_head(results: Iterable[GameResult], names: Sequence[str] | None = None) -> list[HeadToHead]:
    """Every pair of `names` (in order; the earlier one as `agent`) that met alone at a table."""
    results = list(results)
    names = agent_names(results) if names is None else list(names)
    found = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            games = [r for r in results if set(r.lineup) == {a, b}]
            if not games:
                continue
            _, low, high = deal_interval(games, [a])
            seats = sum(r.lineup.count(a) for r in games)
            wins = sum(1 / len(r.winners) for r in games for seat in r.winners if r.lineup[seat] == a)
            fair = seats / sum(len(r.lineup) for r in games)
            found.append(HeadToHead(a, b, len(games), wins / seats, float(low[0]), float(high[0]), fair))
    return found


def format_head_to_head(pairs: Sequence[HeadToHead]) -> str:
    """One line per pair: `A against B: rate [low, high] by deal over G games (fair f)`."""
    width = max((len(p.agent) + len(p.opponent) for p in pairs), default=0) + 9
    return "\n".join(
        f"{f'{p.agent} against {p.opponent}':<{width}} {p.win_rate:.3f} [{p.low:.3f}, {p.high:.3f}] by deal, "
        f"{p.games:,} games (fair {p.fair:.3f})"
        for p in pairs
    )


# ----------------------------------------------------------------------------------- pairwise comparisons


def agent_names(results: Iterable[GameResult]) -> list[str]:
    """Distinct agent names in order of first appearance."""
    return list(dict.fromkeys(name for r in results for name in r.lineup))


def relabel(results: Iterable[GameResult], labels: Mapping[str, str]) -> list[GameResult]:
    """The results with each agent name in `labels` replaced by its label (`uno-arena --name ALIAS=AGENT`); the
    labels must keep the names apart (a ValueError names two agents that would share one)."""
    results = list(results)
    new = {name: labels.get(name, name) for name in agent_names(results)}
    shared = {}
    for name, label in new.items():
        if label in shared:
            raise ValueError(f"the agents {shared[label]!r} and {name!r} would both be labelled {label!r}")
        shared[label] = name
    if all(name == label for name, label in new.items()):
        return results
    return [dataclasses.replace(r, lineup=tuple(new[name] for name in r.lineup)) for r in results]


def _game_pairs(lineup, winners, index: Mapping[str, int]) -> dict[tuple[int, int], float]:
    """One game's pairwise comparisons: {(i, j): wins of agent i over agent j} (ties give 0.5 each way).

    Agents missing from `index` are left out."""
    won = set(winners)
    out: dict[tuple[int, int], float] = {}
    for s in winners:
        a = index.get(lineup[s])
        if a is None:
            continue
        for t, name in enumerate(lineup):
            b = index.get(name)
            if b is None or a == b:
                continue
            score = 0.5 if t in won else 1.0  # tied winners: each pair is seen from both sides
            out[(a, b)] = out.get((a, b), 0.0) + score
    return out


def _patterns(results: Iterable[GameResult]) -> tuple[list[tuple], np.ndarray]:
    """Group games by (lineup, winners), which fixes every count but the points: (keys, game counts)."""
    counts: dict[tuple, int] = {}
    for r in results:
        key = (r.lineup, r.winners)
        counts[key] = counts.get(key, 0) + 1
    return list(counts), np.fromiter(counts.values(), dtype=np.int64, count=len(counts))


def _pattern_wins(keys: Sequence[tuple], names: Sequence[str]) -> np.ndarray:
    """(P, K, K) comparison wins of each pattern."""
    index = {n: i for i, n in enumerate(names)}
    mats = np.zeros((len(keys), len(names), len(names)))
    for p, (lineup, winners) in enumerate(keys):
        for (a, b), w in _game_pairs(lineup, winners, index).items():
            mats[p, a, b] += w
    return mats


def pairwise_wins(results: Iterable[GameResult], names: Sequence[str] | None = None):
    """(names, W) with W[i, j] the comparison wins of agent i over agent j, summed over all games."""
    results = list(results)
    names = agent_names(results) if names is None else list(names)
    keys, counts = _patterns(results)
    return names, np.tensordot(counts.astype(float), _pattern_wins(keys, names), axes=1)


# ------------------------------------------------------------------------------------------ Bradley-Terry


def _log_posterior(theta: np.ndarray, w: np.ndarray, prior: float) -> np.ndarray:
    """Log-likelihood of the comparisons plus the prior games against the reference, per batch row."""
    diff = theta[:, :, None] - theta[:, None, :]
    data = -(w * np.logaddexp(0.0, -diff)).sum(axis=(1, 2))
    return data + prior * (theta - 2 * np.logaddexp(0.0, theta)).sum(axis=1)


def bradley_terry(wins: np.ndarray, prior: float = 1.0, tol: float = 1e-10, max_iter: int = 1000) -> np.ndarray:
    """Bradley-Terry strengths from comparison wins by the MM algorithm (Hunter 2004), Newton-accelerated.

    `wins` is (K, K) or a batch (B, K, K) with wins[..., i, j] = wins of i over j (may be fractional).
    Each agent also gets `prior` virtual wins and `prior` virtual losses against a reference of fixed
    strength 1, which makes the maximum (of a concave log-posterior in log p) finite and unique.
    Returns strengths of shape (K,) or (B, K).

    Each iteration computes the MM update p_i <- (W_i + prior) / (sum_j n_ij / (p_i + p_j) + 2 prior /
    (p_i + 1)), which always raises the log-posterior, and a Newton step in log p, and keeps whichever
    ends higher: as safe as MM, but fast where MM crawls (lopsided results such as an agent that never
    loses, and the common scale, which only the weak prior fixes). prior = 0: plain maximum likelihood,
    scaled to geometric mean 1; it exists only if every agent has a win and a loss in a connected set.
    """
    w = np.asarray(wins, dtype=float)
    single = w.ndim == 2
    if single:
        w = w[None]
    b, k = w.shape[:2]
    n = w + np.swapaxes(w, 1, 2)
    numer = w.sum(axis=2) + prior
    if prior <= 0 and np.any(numer <= 0):
        raise ValueError("an agent without wins has strength 0; use prior > 0")
    eye = np.eye(k)
    fix_scale = 0.0 if prior > 0 else 1.0  # prior 0: the Hessian is singular along the common scale
    theta = np.zeros((b, k))
    for _ in range(max_iter):
        p = np.exp(theta)
        denom = (n / (p[:, :, None] + p[:, None, :])).sum(axis=2) + 2 * prior / (p + 1)
        mm = np.log(numer / denom)
        # Newton: gradient and negated Hessian of the log-posterior in theta = log p.
        sig = 0.5 * (1 + np.tanh((theta[:, :, None] - theta[:, None, :]) / 2))  # P(i beats j)
        sig_ref = 0.5 * (1 + np.tanh(theta / 2))  # P(i beats the reference)
        grad = numer - (n * sig).sum(axis=2) - 2 * prior * sig_ref
        c = n * sig * (1 - sig)
        neg_h = eye * (c.sum(axis=2) + 2 * prior * sig_ref * (1 - sig_ref))[:, :, None] - c + fix_scale
        ridge = 1e-12 * (1 + neg_h.max(axis=(1, 2)))
        newton = theta + np.linalg.solve(neg_h + ridge[:, None, None] * eye, grad[:, :, None])[:, :, 0]
        if prior <= 0:
            mm -= mm.mean(axis=1, keepdims=True)
            newton -= newton.mean(axis=1, keepdims=True)
        with np.errstate(over="ignore", invalid="ignore"):
            v_mm, v_newton = _log_posterior(mm, w, prior), _log_posterior(newton, w, prior)
        take = np.isfinite(v_newton) & (v_newton >= v_mm)
        new = np.where(take[:, None], newton, mm)
        done = np.max(np.abs(new - theta), initial=0.0) < tol
        theta = new
        if done:
            break
    p = np.exp(theta)
    return p[0] if single else p


def _to_rating(strengths: np.ndarray) -> np.ndarray:
    """Elo-like scale: 400 log10(p), shifted so each row's mean is 1000."""
    r = ELO_SCALE * np.log(strengths)
    return r - r.mean(axis=-1, keepdims=True) + RATING_MEAN


def ratings(
    results: Iterable[GameResult],
    names: Sequence[str] | None = None,
    *,
    prior: float = 1.0,
    bootstrap: int = 200,
    seed: int = 0,
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """(names, rating, low, high): Bradley-Terry ratings (mean 1000) and percentile bootstrap 95% intervals.

    The bootstrap resamples the games with replacement (`bootstrap` replicates, `numpy` generator seeded
    with `seed`); games with the same lineup and winners share one comparison matrix, so a replicate is
    a multinomial draw of pattern counts and all replicates are fitted together. bootstrap=0: no interval
    (low = high = rating).
    """
    results = list(results)
    names = agent_names(results) if names is None else list(names)
    if not names:
        return names, np.zeros(0), np.zeros(0), np.zeros(0)
    keys, counts = _patterns(results)
    mats = _pattern_wins(keys, names)
    total = int(counts.sum())
    flat = mats.reshape(len(counts), len(names) ** 2)
    rating = _to_rating(bradley_terry((counts @ flat).reshape(mats.shape[1:]), prior))
    if bootstrap <= 0 or total == 0:
        return names, rating, rating.copy(), rating.copy()
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(total, counts / total, size=bootstrap).astype(float)  # (B, P)
    boot = _to_rating(bradley_terry((draws @ flat).reshape(bootstrap, *mats.shape[1:]), prior))
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    return names, rating, low, high


# ---------------------------------------------------------------------------------------------- summaries


def summarize(
    results: Iterable[GameResult], *, prior: float = 1.0, bootstrap: int = 200, seed: int = 0
) -> list[AgentSummary]:
    """Per-agent summary, sorted by rating (best first; ties by first appearance). See the module notes."""
    results = list(results)
    names = agent_names(results)
    index = {n: i for i, n in enumerate(names)}
    k = len(names)
    points = np.zeros(k)
    for r in results:
        for name, pts in zip(r.lineup, r.points, strict=True):
            points[index[name]] += pts
    games = np.zeros(k, dtype=np.int64)
    wins = np.zeros(k)
    fair = np.zeros(k)
    keys, counts = _patterns(results)
    for (lineup, winners), c in zip(keys, counts.tolist(), strict=True):
        for name in lineup:
            games[index[name]] += c
            fair[index[name]] += c / len(lineup)
        for seat in winners:
            wins[index[lineup[seat]]] += c / len(winners)
    _, rating, low, high = ratings(results, names, prior=prior, bootstrap=bootstrap, seed=seed)
    _, deal_low, deal_high = deal_interval(results, names)
    out = []
    for i, name in enumerate(names):
        lo, hi = wilson_interval(wins[i], games[i])
        out.append(
            AgentSummary(
                name=name,
                games=int(games[i]),
                wins=float(wins[i]),
                win_rate=float(wins[i] / games[i]),
                win_rate_low=lo,
                win_rate_high=hi,
                fair_share=float(fair[i] / games[i]),
                mean_points=float(points[i] / games[i]),
                rating=float(rating[i]),
                rating_low=float(low[i]),
                rating_high=float(high[i]),
                deal_low=float(deal_low[i]),
                deal_high=float(deal_high[i]),
            )
        )
    order = sorted(range(k), key=lambda i: -rating[i])  # stable: ties keep first appearance
    return [out[i] for i in order]


def pairwise_win_matrix(
    results: Iterable[GameResult], names: Sequence[str] | None = None
) -> tuple[list[str], np.ndarray]:
    """(names, M): M[i, j] = share of the games with both i and j present in which i beat j.

    Per game, i's score against j is the fraction of the game's i-vs-j comparisons that i won (ties
    half): 1 if a seat of i won and only j's seats lost, 0 if j won, 0.5 for an i-j tie, and 0 when a
    third agent won (no comparison). So M[i, j] + M[j, i] is the share of their games decided by one of
    them (1 when only the two of them play). NaN on the diagonal and where the two never met.
    Names default to first appearance order; agents left out of `names` are ignored.
    """
    results = list(results)
    names = agent_names(results) if names is None else list(names)
    index = {n: i for i, n in enumerate(names)}
    k = len(names)
    score = np.zeros((k, k))
    met = np.zeros((k, k))
    keys, counts = _patterns(results)
    for (lineup, winners), c in zip(keys, counts.tolist(), strict=True):
        present = sorted({index[n] for n in lineup if n in index})
        met[np.ix_(present, present)] += c
        pairs = _game_pairs(lineup, winners, index)
        for (a, b), w in pairs.items():
            score[a, b] += c * w / (w + pairs.get((b, a), 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.where(met > 0, score / met, np.nan)
    np.fill_diagonal(m, np.nan)
    return names, m


def pairwise_games(results: Iterable[GameResult], names: Sequence[str] | None = None) -> tuple[list[str], np.ndarray]:
    """(names, G): G[i, j] = the games in which both agent i and agent j played (the games behind
    `pairwise_win_matrix`'s M[i, j]); G[i, i] = the games agent i played."""
    results = list(results)
    names = agent_names(results) if names is None else list(names)
    index = {n: i for i, n in enumerate(names)}
    met = np.zeros((len(names), len(names)), np.int64)
    keys, counts = _patterns(results)
    for (lineup, _), c in zip(keys, counts.tolist(), strict=True):
        present = sorted({index[n] for n in lineup if n in index})
        met[np.ix_(present, present)] += c
    return names, met


# ------------------------------------------------------------------------------------------------ reports


COLUMNS = ["agent", "games", "wins", "win rate", "95% CI (deals)", "Wilson CI", "fair", "mean pts", "rating", "95% CI"]


def _cells(s: AgentSummary) -> list[str]:
    """One summary as table cells (`COLUMNS`): the win rate's intervals by deal and Wilson's, then the rest."""
    return [
        s.name,
        f"{s.games:d}",
        f"{s.wins:.10g}",
        f"{s.win_rate:.3f}",
        f"[{s.deal_low:.3f}, {s.deal_high:.3f}]",
        f"[{s.win_rate_low:.3f}, {s.win_rate_high:.3f}]",
        f"{s.fair_share:.3f}",
        f"{s.mean_points:.1f}",
        f"{s.rating:.0f}",
        f"[{s.rating_low:.0f}, {s.rating_high:.0f}]",
    ]


def format_table(summaries: Sequence[AgentSummary]) -> str:
    """Plain-text table (`COLUMNS`): agent, games, wins, win rate with its deal and Wilson 95% intervals, fair
    share, mean points, rating [95% CI]."""
    head = COLUMNS
    rows = [_cells(s) for s in summaries]
    widths = [max(len(x) for x in col) for col in zip(head, *rows, strict=True)]
    left = {0}  # names left-aligned, numbers right-aligned

    def line(cells):
        return "  ".join(
            c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    return "\n".join([line(head), "  ".join("-" * w for w in widths), *(line(r) for r in rows)])


def rich_table(summaries: Sequence[AgentSummary], title: str | None = None):
    """The same table as a `rich.table.Table` (rich is imported only here)."""
    from rich.table import Table

    table = Table(title=title)
    table.add_column("agent", style="bold", no_wrap=True)
    for col in COLUMNS[1:]:
        table.add_column(col, justify="right", no_wrap=True)
    for s in summaries:
        style = "green" if s.deal_low > s.fair_share else "red" if s.deal_high < s.fair_share else None
        table.add_row(*_cells(s), style=style)
    return table


def _nan_to_none(x):
    return [_nan_to_none(v) for v in x] if isinstance(x, list) else (None if math.isnan(x) else x)


def write_json(
    path,
    summaries: Sequence[AgentSummary],
    records_meta: Mapping | None = None,
    names: Sequence[str] | None = None,
    matrix: np.ndarray | None = None,
    games: np.ndarray | None = None,
) -> None:
    """Write {"meta": records_meta, "agents": [summary fields...]} and, if given, the pairwise matrix
    as {"pairwise": {"names": [...], "win_share": [[...]]}} with null for NaN, and with `games`
    (`pairwise_games`) the games behind each cell as "games". Strict JSON."""
    doc = {"meta": dict(records_meta or {}), "agents": [dataclasses.asdict(s) for s in summaries]}
    if matrix is not None:
        doc["pairwise"] = {"names": list(names), "win_share": _nan_to_none(np.asarray(matrix, float).tolist())}
        if games is not None:
            doc["pairwise"]["games"] = np.asarray(games, np.int64).tolist()
    write_atomic(path, json.dumps(doc, indent=2, allow_nan=False, default=_json_default) + "\n")


def _json_default(x):
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"not JSON serializable: {type(x).__name__}")


def read_json(path) -> tuple[list[AgentSummary], dict]:
    """(summaries, meta) from a file written by `write_json`."""
    with open(path) as f:
        doc = json.load(f)
    fields = {f.name for f in dataclasses.fields(AgentSummary)}
    agents = doc.get("agents") if isinstance(doc, dict) else None
    if not isinstance(agents, list) or not isinstance(doc.get("meta"), dict) or not all(
        isinstance(a, dict) and set(a) == fields for a in agents
    ):
        raise ValueError(f"{path} is not a tournament file written by write_json (meta, and agents with the fields "
                         f"{', '.join(sorted(fields))})")  # fmt: skip
    return [AgentSummary(**a) for a in agents], doc["meta"]


def write_csv(path, summaries: Sequence[AgentSummary]) -> None:
    """One row per agent, columns named as the `AgentSummary` fields (floats written exactly, repr)."""
    fields = [f.name for f in dataclasses.fields(AgentSummary)]
    text = io.StringIO(newline="")
    writer = csv.writer(text)
    writer.writerow(fields)
    for s in summaries:
        writer.writerow([repr(v) if isinstance(v, float) else v for v in dataclasses.astuple(s)])
    write_atomic(path, text.getvalue())


def read_csv(path) -> list[AgentSummary]:
    """Summaries from a file written by `write_csv`."""
    types = {f.name: f.type for f in dataclasses.fields(AgentSummary)}
    conv = {"str": str, "int": int, "float": float}
    with open(path, newline="") as f:
        return [AgentSummary(**{k: conv[types[k]](v) for k, v in row.items()}) for row in csv.DictReader(f)]


def plot_title(settings: Mapping[str, Any]) -> str:
    """A plot's title from a tournament's settings (`TournamentResult.settings`: variant, num_players, games, seed,
    and episode and rule_options when set): "UNO classic, 2 players, 20,000 games, seed 0"."""
    missing = [key for key in ("variant", "num_players", "games", "seed") if key not in settings]
    if missing:
        raise ValueError(f"a plot's title needs the settings variant, num_players, games and seed; missing {missing}")
    text = (f"UNO {settings['variant']}, {settings['num_players']} players, {settings['games']:,} games, "
            f"seed {settings['seed']}")  # fmt: skip
    if settings.get("episode", "round") != "round":
        text += f", {settings['episode']}es"
    options = settings.get("rule_options") or {}
    if options:
        shown = {name: str(value).lower() if isinstance(value, bool) else value for name, value in options.items()}
        text += " (" + ", ".join(f"{name}={value}" for name, value in shown.items()) + ")"
    return text


def plot(
    path,
    summaries: Sequence[AgentSummary],
    names: Sequence[str] | None = None,
    matrix: np.ndarray | None = None,
    title: str | None = None,
    *,
    settings: Mapping[str, Any] | None = None,
    games: np.ndarray | None = None,
):
    """PNG: left, win rate per agent with its 95% CI and the fair share (dashed); right, if a matrix is
    given, the pairwise win-share heatmap (row beat column) with the numbers in the cells, and under each
    the games behind it when `games` (`pairwise_games`) is given. The title: the tournament's `settings`
    (`plot_title`: variant, players, games, seed), then `title`. Returns the matplotlib Figure."""
    from matplotlib import colormaps
    from matplotlib.figure import Figure  # no pyplot: no backend switch, no global state (inline plots survive)

    k = len(summaries)
    has_matrix = matrix is not None and names is not None and len(names) > 0
    n = len(names) if has_matrix else 0
    height = max(4.0, (0.75 if games is not None else 0.6) * max(k, n) + 2.5)
    cell = 0.8 if games is not None else 0.6
    fig = Figure(figsize=(7 + (cell * n + 3.5 if has_matrix else 0), height), layout="constrained")
    axes = fig.subplots(
        1,
        2 if has_matrix else 1,
        squeeze=False,
    )
    ax = axes[0, 0]
    y = np.arange(k)[::-1]  # best (first) at the top
    rate = np.array([s.win_rate for s in summaries])
    err = np.array(
        [[s.win_rate - s.win_rate_low for s in summaries], [s.win_rate_high - s.win_rate for s in summaries]]
    )
    ax.barh(y, rate, xerr=err, color="tab:blue", alpha=0.8, capsize=4, error_kw={"elinewidth": 1.2})
    label_box = {"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 1}
    for yi, s in zip(y, summaries, strict=True):
        ax.plot([s.fair_share] * 2, [yi - 0.42, yi + 0.42], "k--", lw=1.2)
        ax.text(s.win_rate_high + 0.01, yi, f"{s.win_rate:.3f}  (n={s.games})", va="center", fontsize=9, bbox=label_box)
    ax.plot([], [], "k--", lw=1.2, label="fair share")
    ax.set_yticks(y, [f"{s.name}\n{s.rating:.0f} [{s.rating_low:.0f}, {s.rating_high:.0f}]" for s in summaries])
    ax.set_xlim(0, min(1.0, max([s.win_rate_high for s in summaries] + [s.fair_share for s in summaries]) + 0.2))
    ax.set_xlabel("win rate per seat-game (95% Wilson CI)")
    ax.set_title("Win rate; rating [95% CI] under each name")
    ax.legend(loc="lower right", fontsize=9)
    ax.grid(axis="x", alpha=0.3)

    if has_matrix:
        ax = axes[0, 1]
        m = np.asarray(matrix, dtype=float)
        cmap = colormaps["RdBu"].with_extremes(bad="0.85")
        im = ax.imshow(np.ma.masked_invalid(m), cmap=cmap, vmin=0, vmax=1)
        ax.set_xticks(range(n), names, rotation=45, ha="right")
        ax.set_yticks(range(n), names)
        counts = None if games is None else np.asarray(games)
        for i in range(n):
            for j in range(n):
                v = m[i, j]
                text = "–" if math.isnan(v) else f"{v:.2f}"
                if counts is not None and i != j:
                    text += f"\nn={int(counts[i, j]):,}"
                color = "white" if not math.isnan(v) and abs(v - 0.5) > 0.3 else "black"
                size = (9 if n <= 8 else 7) - (1 if counts is not None else 0)
                ax.text(j, i, text, ha="center", va="center", fontsize=size, color=color, linespacing=1.1)
        ax.set_xlabel("opponent")
        ax.set_ylabel("agent")
        ax.set_title("Row beat column: share of the games\nin which both played" +
                     (" (n: those games)" if counts is not None else ""))  # fmt: skip
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    heading = [plot_title(settings)] if settings is not None else []
    if title:
        heading.append(title)
    if heading:
        fig.suptitle("\n".join(heading))
    write_atomic(path, lambda temporary: fig.savefig(temporary, dpi=120, format=Path(path).suffix[1:] or "png"))
    return fig
