"""The statistics of uno-bench: the sequential test keeps its error rates and stops early on clear differences; the
fixed-size comparison's deals; the control variate keeps the mean and narrows the interval by what it explains."""

import math

import numpy as np
import pytest

from uno_env.arena.bench_stats import (
    A_BETTER,
    B_BETTER,
    NO_DIFFERENCE,
    UNDECIDED,
    SequentialTest,
    control_variate,
    decide,
    simulate,
)

TEST = SequentialTest(alpha=0.05, beta=0.05, delta=0.05, min_deals=20, block=20)


def _runs(mean, runs=300, deals=4000, sd=0.5, seed=0):
    rng = np.random.default_rng(seed)
    return [decide(np.clip(rng.normal(mean, sd, deals), -1, 1), TEST, final=True) for _ in range(runs)]


def test_equal_agents_are_declared_different_about_alpha_of_the_time():
    results = _runs(0.0)
    wrong = sum(r.decision in (A_BETTER, B_BETTER) for r in results) / len(results)
    assert wrong <= TEST.alpha + 0.03  # 300 runs: 3 standard errors of 0.05 is 0.038
    assert sum(r.decision == NO_DIFFERENCE for r in results) > 0.9 * len(results)


@pytest.mark.parametrize("sign, expected", [(1, A_BETTER), (-1, B_BETTER)])
def test_a_difference_of_delta_is_found_and_named_either_way(sign, expected):
    results = _runs(sign * TEST.delta, seed=1)
    found = sum(r.decision == expected for r in results) / len(results)
    assert found >= 1 - TEST.beta - 0.04
    assert not any(r.decision == (B_BETTER if sign > 0 else A_BETTER) for r in results)


def test_it_needs_fewer_deals_than_a_fixed_size_test():
    fixed = TEST.fixed_deals(0.5)
    z = 1.959963984540054 + 1.6448536269514722
    assert fixed == math.ceil((z * 0.5 / 0.05) ** 2)
    for mean in (0.0, TEST.delta, 2 * TEST.delta):
        deals = np.mean([r.deals for r in _runs(mean, runs=100, seed=2)])
        assert deals < fixed


def test_a_large_difference_ends_at_the_first_look():
    result = decide(np.full(200, 0.5) + np.tile([0.01, -0.01], 100), TEST)
    assert result.decision == A_BETTER and result.deals == TEST.min_deals
    assert result.llr_up >= result.upper_bound


def test_too_few_deals_are_undecided_unless_final():
    assert decide(np.full(10, 0.5), TEST).decision == UNDECIDED
    assert decide(np.full(10, 0.5) + np.tile([0.1, -0.1], 5), TEST, final=True).decision == A_BETTER


@pytest.mark.parametrize("settings, message", [({"alpha": 0}, "alpha"), ({"beta": 0.7}, "beta"),
                                               ({"delta": 1.5}, "delta"), ({"block": 1}, "block"),
                                               ({"block": 10**12}, "block is a whole number of deals from 2 to 20,000"),
                                               ({"min_deals": True}, "min_deals")])  # fmt: skip
def test_bad_settings_are_refused(settings, message):
    with pytest.raises(ValueError, match=message):
        SequentialTest(**settings)
    with pytest.raises(ValueError, match="differences"):
        decide([0.5, 2.0], TEST)


def test_a_simulation_is_bounded():
    """Its runs and deals are bounded, so that a typo cannot ask for terabytes."""
    pool = [-0.5, 0.0, 0.5]
    with pytest.raises(ValueError, match="max_deals is a whole number from 2 to 1,000,000"):
        simulate(pool, [0.0], TEST, runs=1, max_deals=10**12)
    with pytest.raises(ValueError, match="runs is a whole number from 1 to 100,000"):
        simulate(pool, [0.0], TEST, runs=10**9, max_deals=100)


def test_simulate_reports_rates_and_deals_per_mean():
    pool = np.random.default_rng(3).choice([-0.5, 0.0, 0.5], size=500, p=[0.3, 0.4, 0.3])
    rows = simulate(pool, [0.0, 0.1], TEST, runs=50, max_deals=2000)
    assert [r["mean"] for r in rows] == [0.0, 0.1]
    for row in rows:
        assert sum(row[k] for k in (A_BETTER, B_BETTER, NO_DIFFERENCE, UNDECIDED)) == pytest.approx(1)
        assert row["fixed_deals"] == TEST.fixed_deals(float(pool.std(ddof=1)))
    assert rows[1][A_BETTER] > 0.9 and rows[1]["mean_deals"] < rows[1]["fixed_deals"]


def test_a_control_variate_keeps_the_mean_and_narrows_by_what_it_explains():
    rng = np.random.default_rng(4)
    deals = 4000
    luck = rng.normal(0, 1, (deals, 2))  # mean zero, known
    skill = rng.normal(0, 0.3, deals)
    y = 0.55 + 0.2 * luck[:, 0] - 0.1 * luck[:, 1] + skill
    out = control_variate(y, luck)
    assert out["coefficients"] == pytest.approx([0.2, -0.1], abs=0.02)
    assert out["low"] < 0.55 < out["high"] and abs(out["mean"] - 0.55) < abs(out["plain_mean"] - 0.55) + 0.01
    explained = (0.2**2 + 0.1**2) / (0.2**2 + 0.1**2 + 0.3**2)
    assert out["narrower"] == pytest.approx(1 - math.sqrt(1 - explained), abs=0.03)
    unrelated = control_variate(skill, rng.normal(0, 1, (deals, 1)))
    assert abs(unrelated["narrower"]) < 0.01
    with pytest.raises(ValueError, match="at least 5 deals"):
        control_variate(y[:4], luck[:4])
