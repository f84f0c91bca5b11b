"""Tournament statistics: Wilson intervals, shared wins, Bradley-Terry ratings, the pairwise matrix, reports."""

import json
import math
import time

import numpy as np
import pytest

from uno_env.arena.ratings import (
    AgentSummary,
    GameResult,
    bradley_terry,
    deal_interval,
    format_table,
    pairwise_win_matrix,
    pairwise_wins,
    plot,
    ratings,
    read_csv,
    read_json,
    rich_table,
    summarize,
    wilson_interval,
    write_csv,
    write_json,
)

ELO_2X = 400 * math.log10(2)  # rating gap of a strength ratio of 2 (about 120.4)


def game(lineup, winners, points=None, seed=0, length=10):
    return GameResult(seed, tuple(lineup), tuple(winners), tuple(points or [0] * len(lineup)), length)


def simulate_pairs(strengths, games_per_pair, seed=0):
    """Two-seat games between every pair of agents, won with Bradley-Terry probabilities."""
    rng = np.random.default_rng(seed)
    names = list(strengths)
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            p_a = strengths[a] / (strengths[a] + strengths[b])
            for g in range(games_per_pair):
                lineup = (a, b) if g % 2 == 0 else (b, a)
                a_wins = rng.random() < p_a
                winner = lineup.index(a if a_wins else b)
                out.append(game(lineup, [winner], seed=len(out)))
    return out


# ---------------------------------------------------------------------------------------------- results


def test_a_game_result_coerces_and_validates():
    r = GameResult(3, ["a", "b"], [1], [0, 12], 40)
    assert r.lineup == ("a", "b") and r.winners == (1,) and r.points == (0, 12)
    assert GameResult.from_dict({"seed": 3, "lineup": ["a", "b"], "winners": [1], "points": [0, 12], "length": 40}) == r
    with pytest.raises(ValueError):
        GameResult(0, ("a", "b"), (2,), (0, 0), 1)
    with pytest.raises(ValueError):
        GameResult(0, ("a", "b"), (0,), (0,), 1)


def test_the_older_name_game_record_is_the_game_result_for_one_release():
    from uno_env import arena
    from uno_env.arena import ratings as ratings_module

    assert ratings_module.GameRecord is GameResult and arena.GameRecord is GameResult
    assert "GameRecord" not in arena.__all__ and "GameResult" in arena.__all__


# ---------------------------------------------------------------------------------------------- Wilson


@pytest.mark.parametrize(
    "k, n, low, high",
    [
        (50, 100, 0.40383, 0.59617),
        (0, 10, 0.0, 0.27753),
        (10, 10, 0.72247, 1.0),
        (1, 4, 0.04559, 0.69936),
    ],
)
def test_wilson_known_values(k, n, low, high):
    lo, hi = wilson_interval(k, n)
    assert lo == pytest.approx(low, abs=1e-4) and hi == pytest.approx(high, abs=1e-4)


@pytest.mark.parametrize("k, n", [(81, 263), (1.5, 4), (3, 7), (999, 1000)])
def test_wilson_endpoints_solve_the_score_equation(k, n):
    # The Wilson bounds are the p with |k/n - p| = z sqrt(p (1 - p) / n).
    z = 1.959963984540054
    for p in wilson_interval(k, n):
        assert (k / n - p) ** 2 == pytest.approx(z * z * p * (1 - p) / n, rel=1e-9, abs=1e-15)


def test_wilson_empty_is_everything():
    assert wilson_interval(0, 0) == (0.0, 1.0)


# ---------------------------------------------------------------------------------------------- summary


def test_seat_games_shared_wins_points_and_fair_share():
    records = [
        game(["c", "g", "g", "g"], [0], [30, 0, 0, 0]),  # c wins
        game(["c", "g", "g", "g"], [2], [0, 0, 20, 0]),  # g wins
        game(["c", "g", "g", "g"], [0, 1], [5, 5, 0, 0]),  # c and g tie: half a win each
        game(["c", "g"], [1], [0, 8]),  # two-player game
    ]
    s = {x.name: x for x in summarize(records, bootstrap=0)}
    assert s["c"].games == 4 and s["g"].games == 10
    assert s["c"].wins == pytest.approx(1.5) and s["g"].wins == pytest.approx(2.5)
    assert s["c"].wins + s["g"].wins == pytest.approx(len(records))
    assert s["c"].win_rate == pytest.approx(1.5 / 4)
    assert (s["c"].win_rate_low, s["c"].win_rate_high) == pytest.approx(wilson_interval(1.5, 4))
    assert s["c"].fair_share == pytest.approx((3 * 0.25 + 0.5) / 4)
    assert s["g"].fair_share == pytest.approx((9 * 0.25 + 0.5) / 10)
    assert s["c"].mean_points == pytest.approx(35 / 4) and s["g"].mean_points == pytest.approx(33 / 10)


def test_pairwise_comparisons_winners_beat_losers_ties_split():
    # c wins: beats 3 g seats; g wins: beats c once (g seats are not compared with each other);
    # c and g tie: c-g tie (0.5 each), both beat the two losing g seats.
    records = [game(["c", "g", "g", "g"], [0]), game(["c", "g", "g", "g"], [2]), game(["c", "g", "g", "g"], [0, 1])]
    names, w = pairwise_wins(records)
    assert names == ["c", "g"]
    np.testing.assert_allclose(w, [[0, 3 + 0 + 0.5 + 2], [0 + 1 + 0.5, 0]])


def test_equal_agents_in_uneven_lineups_rate_equal():
    # 1 vs 3 lineups where every seat wins equally often: no agent is better.
    records = [game(["c", "g", "g", "g"], [s]) for s in range(4)] * 50
    s = summarize(records, bootstrap=50)
    for x in s:
        assert x.rating == pytest.approx(1000, abs=1e-6)
        assert x.win_rate == pytest.approx(x.fair_share)
        assert x.rating_low <= x.rating <= x.rating_high


# ---------------------------------------------------------------------------------------------- Bradley-Terry


def test_bradley_terry_recovers_known_strengths():
    true = {"weak": 1.0, "mid": 2.0, "strong": 4.0}
    records = simulate_pairs(true, 3000, seed=1)
    summaries = summarize(records, bootstrap=100, seed=0)
    assert [s.name for s in summaries] == ["strong", "mid", "weak"]  # sorted by rating
    r = {s.name: s for s in summaries}
    assert np.mean([s.rating for s in summaries]) == pytest.approx(1000)
    assert r["mid"].rating - r["weak"].rating == pytest.approx(ELO_2X, abs=20)
    assert r["strong"].rating - r["mid"].rating == pytest.approx(ELO_2X, abs=20)
    for s in summaries:  # the intervals are tight and near the true ratings (mean 1000)
        true_rating = 1000 + 400 * math.log10(true[s.name]) - 400 * np.mean(np.log10(list(true.values())))
        assert s.rating_low < s.rating < s.rating_high
        assert s.rating_high - s.rating_low < 40
        assert abs(s.rating - true_rating) < s.rating_high - s.rating_low


def test_bradley_terry_mm_matches_exact_two_agent_solution():
    # Two agents, a beats b 30 times out of 40, no prior: the maximum likelihood p_a / p_b is 3.
    p = bradley_terry(np.array([[0.0, 30.0], [10.0, 0.0]]), prior=0.0)
    assert p[0] / p[1] == pytest.approx(3.0, rel=1e-6)
    # Batched fit equals single fits.
    w = np.array([[[0, 30], [10, 0]], [[0, 5], [5, 0]]], dtype=float)
    np.testing.assert_allclose(bradley_terry(w), np.stack([bradley_terry(w[0]), bradley_terry(w[1])]))


@pytest.mark.parametrize(
    "wins",
    [
        [[0, 40_000], [0, 0]],  # one agent never loses
        [[0, 40_000, 0], [0, 0, 40_000], [0, 0, 0]],  # a chain without upsets (plain MM crawls here)
        [[0, 39_990, 5], [10, 0, 1], [5, 0, 0]],
        [[0, 0.5, 3], [0.5, 0, 2], [1, 7, 0]],
    ],
)
def test_bradley_terry_reaches_the_posterior_mode(wins):
    # At the maximum the gradient of the log-posterior in log p vanishes:
    # W_i + prior = sum_j n_ij p_i / (p_i + p_j) + 2 prior p_i / (p_i + 1).
    w = np.array(wins, dtype=float)
    p = bradley_terry(w, prior=1.0)
    n = w + w.T
    expected = (n * p[:, None] / (p[:, None] + p[None, :])).sum(axis=1) + 2 * p / (p + 1)
    np.testing.assert_allclose(w.sum(axis=1) + 1, expected, rtol=1e-8)
    assert np.all(np.isfinite(p))


def test_undefeated_agent_stays_finite():
    records = [game(["a", "b"], [0]) for _ in range(20)]
    s = {x.name: x for x in summarize(records, bootstrap=50)}
    for x in s.values():
        assert all(math.isfinite(v) for v in (x.rating, x.rating_low, x.rating_high))
    assert s["a"].rating > s["b"].rating
    assert s["a"].win_rate == 1.0 and s["a"].win_rate_high == 1.0 and s["a"].win_rate_low < 1.0


def test_agent_without_comparisons_is_at_the_reference():
    # Self-play only: no comparison between different agents, only the prior.
    names, rating, low, high = ratings([game(["a", "a"], [0])] * 5)
    assert names == ["a"] and rating[0] == pytest.approx(1000) and low[0] == high[0] == pytest.approx(1000)


def test_bootstrap_is_deterministic_for_a_seed():
    records = simulate_pairs({"a": 1.0, "b": 1.5, "c": 3.0}, 200, seed=3)
    first = ratings(records, bootstrap=100, seed=7)
    again = ratings(records, bootstrap=100, seed=7)
    other = ratings(records, bootstrap=100, seed=8)
    for x, y in zip(first[1:], again[1:], strict=True):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(first[1], other[1])  # the point estimate does not depend on the seed
    assert not np.array_equal(first[2], other[2])


def test_forty_thousand_games_are_fast():
    rng = np.random.default_rng(0)
    names = np.array(["random", "greedy", "counter", "ppo"])
    lineups = names[rng.integers(4, size=(40_000, 4))].tolist()
    winners = rng.integers(4, size=40_000).tolist()
    points = rng.integers(0, 200, size=(40_000, 4)).tolist()
    records = [GameResult(g, lineups[g], (winners[g],), points[g], 80) for g in range(40_000)]
    start = time.perf_counter()
    summaries = summarize(records)
    pairwise_win_matrix(records)
    assert time.perf_counter() - start < 2.0  # about 0.2 s here; generous for a loaded machine
    assert sum(s.games for s in summaries) == 160_000
    assert sum(s.wins for s in summaries) == pytest.approx(40_000)


# ---------------------------------------------------------------------------------------------- matrix


def test_pairwise_win_matrix_by_hand():
    records = [
        game(["a", "b"], [0]),  # a beats b
        game(["b", "a"], [1]),  # a beats b
        game(["a", "b"], [1]),  # b beats a
        game(["a", "b", "c"], [2]),  # c beats a and b; a-b undecided
        game(["a", "b", "b"], [0, 1]),  # a ties b (seat 1), beats b (seat 2): a scores 1.5 / 2
        game(["c", "c"], [0]),  # self-play: c meets only itself
    ]
    names, m = pairwise_win_matrix(records)
    assert names == ["a", "b", "c"]
    expected = np.array(
        [
            [np.nan, (1 + 1 + 0 + 0 + 0.75) / 5, 0 / 1],
            [(0 + 0 + 1 + 0 + 0.25) / 5, np.nan, 0 / 1],
            [1 / 1, 1 / 1, np.nan],
        ]
    )
    np.testing.assert_allclose(m, expected, equal_nan=True)
    # Given names pick the order; an agent that never met another gives NaN.
    names, m = pairwise_win_matrix(records + [game(["d", "d"], [1])], names=["d", "a"])
    assert names == ["d", "a"] and np.isnan(m).all()


# ---------------------------------------------------------------------------------------------- reports


@pytest.fixture
def tournament():
    records = simulate_pairs({"random": 1.0, "greedy": 2.5, "counter": 4.0}, 60, seed=5)
    records += [game(["counter", "greedy", "greedy", "greedy"], [s % 4], [10 * s, 0, 0, 0]) for s in range(9)]
    summaries = summarize(records, bootstrap=50)
    names, matrix = pairwise_win_matrix(records, names=[s.name for s in summaries])
    return records, summaries, names, matrix


def test_json_round_trip(tmp_path, tournament):
    records, summaries, names, matrix = tournament
    path = tmp_path / "results.json"
    meta = {"games": len(records), "preset": "classic", "seeds": [0, 1]}
    write_json(path, summaries, meta, names=names, matrix=matrix)
    back, meta_back = read_json(path)
    assert back == summaries and meta_back == meta
    doc = json.loads(path.read_text())
    assert doc["pairwise"]["names"] == names
    assert doc["pairwise"]["win_share"][0][0] is None  # strict JSON: NaN written as null
    np.testing.assert_array_equal(np.array(doc["pairwise"]["win_share"], dtype=float), matrix)  # NaN == NaN here


def test_csv_round_trip(tmp_path, tournament):
    _, summaries, _, _ = tournament
    path = tmp_path / "results.csv"
    write_csv(path, summaries)
    assert read_csv(path) == summaries
    assert path.read_text().splitlines()[0].startswith("name,games,wins,win_rate")


def test_plot_writes_png(tmp_path, tournament):
    _, summaries, names, matrix = tournament
    for kwargs, fname in [({"names": names, "matrix": matrix}, "both.png"), ({}, "rates.png")]:
        path = tmp_path / fname
        plot(path, summaries, title="test tournament", **kwargs)
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


def test_format_table(tournament):
    _, summaries, _, _ = tournament
    text = format_table(summaries)
    lines = text.splitlines()
    assert len(lines) == 2 + len(summaries)
    assert lines[0].split()[:4] == ["agent", "games", "wins", "win"]
    assert lines[2].startswith(summaries[0].name)
    assert f"{summaries[0].rating:.0f}" in lines[2]
    assert len({len(line) for line in lines}) == 1  # aligned columns


def test_rich_table(tournament):
    _, summaries, _, _ = tournament
    table = rich_table(summaries, title="t")
    assert table.row_count == len(summaries)
    assert isinstance(summaries[0], AgentSummary)


def test_the_deal_interval_covers_the_truth_and_is_narrower_where_rotations_cancel_a_deals_luck():
    # Each deal favours one seat (0.9 against 0.2 for A); A plays both rotations, so its true rate is 0.55 and
    # its two games of a deal are dependent: the deal is the unit, and its interval is narrower than Wilson's.
    rng = np.random.default_rng(0)
    covered, deal_widths, wilson_widths = 0, [], []
    experiments = 120
    for _ in range(experiments):
        records = []
        favoured = rng.random(300) < 0.5
        for seed in range(300):
            for a_seat in (0, 1):
                a_won = rng.random() < (0.9 if favoured[seed] == (a_seat == 0) else 0.2)
                lineup = ("A", "B") if a_seat == 0 else ("B", "A")
                records.append(GameResult(seed, lineup, (a_seat if a_won else 1 - a_seat,), (0, 0), 1))
        names, low, high = deal_interval(records, ["A", "B"])
        assert names == ["A", "B"] and low[0] + high[1] == pytest.approx(1.0, abs=1e-9)  # mirror images
        covered += low[0] <= 0.55 <= high[0]
        deal_widths.append(high[0] - low[0])
        wins = sum(r.lineup[r.winners[0]] == "A" for r in records)
        lo, hi = wilson_interval(wins, len(records))
        wilson_widths.append(hi - lo)
    assert covered / experiments > 0.88
    assert np.mean(deal_widths) < 0.8 * np.mean(wilson_widths)


def test_summaries_carry_the_deal_interval():
    records = [GameResult(s, ("a", "b"), ((s + r) % 2,), (0, 0), 1) for s in range(50) for r in range(2)]
    a = {x.name: x for x in summarize(records, bootstrap=40, seed=3)}
    b = {x.name: x for x in summarize(records, bootstrap=40, seed=3)}
    assert a == b
    # every deal is split one-one: no deal-to-deal variation, so the deal interval is exactly 0.5
    assert (a["a"].deal_low, a["a"].deal_high) == (0.5, 0.5)
    assert a["a"].win_rate_low < 0.45  # Wilson does not know
    assert "95% CI (deals)" in format_table(list(a.values()))


def test_head_to_head_reports_each_pair_that_met_alone():
    from uno_env.arena.ratings import format_head_to_head, head_to_head

    results = [GameResult(seed, ("a", "b"), (0,), (10, 0), 5) for seed in range(6)]  # a wins 6 of 8 with b
    results += [GameResult(seed, ("b", "a"), (0,), (10, 0), 5) for seed in range(2)]
    results += [GameResult(seed, ("a", "c", "c", "c"), (1,), (0, 9, 0, 0), 5) for seed in range(4)]  # c's table
    results += [GameResult(9, ("a", "b", "c"), (2,), (0, 0, 9), 5)]  # three agents: no head-to-head
    pairs = {(p.agent, p.opponent): p for p in head_to_head(results, ["a", "b", "c"])}
    assert set(pairs) == {("a", "b"), ("a", "c")}
    ab, ac = pairs["a", "b"], pairs["a", "c"]
    assert (ab.games, ab.win_rate, ab.fair) == (8, 0.75, 0.5) and ab.low < 0.75 < ab.high
    assert (ac.games, ac.win_rate, ac.fair) == (4, 0.0, 0.25)
    assert format_head_to_head([ab]).startswith("a against b 0.750 [")
