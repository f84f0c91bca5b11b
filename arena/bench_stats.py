"""The statistics of uno-bench: a sequential test of A against B on paired deals, and control variates.

**Is A better than B?** Both agents play the same deals, each deal once with the agent in every seat against the
same opponent; the datum of a deal is the difference of their win rates on it, d = (wins of A - wins of B) / seats,
in [-1, 1]. The deal is the unit: the rotations and the shared cards make a deal's games dependent, the deals are
independent.

The test is Sobel and Wald's three-decision procedure: two sequential probability ratio tests (SPRT, Wald 1945)
run side by side on the mean difference mu, "up" (H0: mu = 0 against H1: mu = +delta) and "down" (H0: mu = 0
against H1: mu = -delta), each with error rates alpha / 2 and beta. The log-likelihood ratio is the normal one with
the variance estimated from the deals so far (the "generalized" SPRT of chess engines' testing frameworks):
LLR = s (S - n s / 2) / var for s = +delta or -delta, S the sum of the n differences. A side stops when its LLR
leaves (log(beta / (1 - alpha / 2)), log((1 - beta) / (alpha / 2))): above, it rejects H0; below, it accepts it
and is no longer watched. The test ends when a side rejects ("A is better" or "B is better", whatever the other
side did) or when both have accepted ("no difference of delta or more"). So:

* if the agents are equal (mu = 0), it declares a difference with probability about alpha (alpha / 2 each way);
* if they differ by delta or more either way, it misses the difference with probability about beta;
* between 0 and delta (the indifference region) either answer is allowed.

The deals are looked at in blocks (`block`): fewer looks than after every deal, which only makes the error rates
smaller. The rates are those of the normal model with a plug-in variance, so they are approximate for few deals:
`min_deals` deals come before the first look, and `benchmarks/bench_sprt.py` measures the rates it reaches on
real per-deal differences. A fixed-size comparison at the same rates needs `fixed_deals` deals.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist

import numpy as np

#: the decisions, as `SequentialResult.decision` names them
A_BETTER, B_BETTER, NO_DIFFERENCE, UNDECIDED = "A better", "B better", "no difference", "undecided"
#: the most deals of one cell of a suite, of a look (`min_deals`, `block`): 100 times uno-bench-v1's cells, and
#: what one process holds in memory at once
MAX_DEALS = 20_000
#: the most deals one comparison may take (`max_deals`; 50 times uno-bench-v1's)
MAX_COMPARE_DEALS = 1_000_000
MAX_RUNS = 100_000  # the most simulated tests per true difference (`simulate`)


@dataclass(frozen=True)
class SequentialTest:
    """The settings of the test: error rates `alpha` (declaring a difference between equal agents, both ways
    together) and `beta` (missing a difference of `delta`), the indifference region (0, delta) in win rate,
    the deals before the first look, and the deals per look."""

    alpha: float = 0.05
    beta: float = 0.05
    delta: float = 0.03
    min_deals: int = 50
    block: int = 50

    def __post_init__(self):
        for name, low, high in (("alpha", 0.0, 1.0), ("beta", 0.0, 0.5), ("delta", 0.0, 1.0)):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and low < value < high):
                raise ValueError(f"{name} is a number between {low:g} and {high:g} (both excluded), got {value!r}")
        for name in ("min_deals", "block"):
            value = getattr(self, name)
            if not (isinstance(value, int) and not isinstance(value, bool) and 2 <= value <= MAX_DEALS):
                raise ValueError(f"{name} is a whole number of deals from 2 to {MAX_DEALS:,}, got {value!r}")

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper) bounds of each side's log-likelihood ratio: accept H0 below, reject it above."""
        side = self.alpha / 2
        return math.log(self.beta / (1 - side)), math.log((1 - self.beta) / side)

    def looks(self, deals: int) -> np.ndarray:
        """The deal counts at which the test looks, up to `deals`: min_deals, then every block."""
        first = max(self.min_deals, 2)
        if deals < first:
            return np.zeros(0, np.int64)
        return np.arange(first, deals + 1, self.block, dtype=np.int64)

    def fixed_deals(self, sd: float) -> int:
        """Deals a fixed-size two-sided z test needs for the same rates: alpha (both ways) at mu = 0 and power
        1 - beta at |mu| = delta, for per-deal differences of standard deviation `sd`."""
        normal = NormalDist()
        z = normal.inv_cdf(1 - self.alpha / 2) + normal.inv_cdf(1 - self.beta)
        return max(2, math.ceil((z * sd / self.delta) ** 2))


@dataclass(frozen=True)
class SequentialResult:
    """What the test found after `deals` deals: the decision, the mean difference of win rates (A - B) with its
    95% interval by deal, each side's last log-likelihood ratio, and the bounds."""

    decision: str
    deals: int
    mean: float
    low: float
    high: float
    sd: float
    llr_up: float
    llr_down: float
    lower_bound: float
    upper_bound: float

    def as_dict(self) -> dict:
        return asdict(self)


def decide(differences, test: SequentialTest, final: bool = False) -> SequentialResult:
    """Run the test over the per-deal differences seen so far, look by look (`SequentialTest.looks`); the
    decision at the first look that ends it, else UNDECIDED. With `final` the last deal is also a look (the bank
    is spent), so a test cut off there still reads the last deals."""
    d = np.asarray(differences, dtype=float)
    if d.ndim != 1 or not np.all(np.isfinite(d)) or np.any(np.abs(d) > 1):
        raise ValueError("the differences are one per deal, each a difference of win rates in [-1, 1]")
    looks = test.looks(len(d))
    if final and len(d) >= 2 and (looks.size == 0 or looks[-1] != len(d)):
        looks = np.append(looks, len(d))
    lower, upper = test.bounds
    total, squares = np.cumsum(d), np.cumsum(d * d)
    stop, decision = len(d), UNDECIDED
    up, down = _llrs(total, squares, looks, test.delta)
    up_done = _first(up, lower, upper)
    down_done = _first(down, lower, upper)
    ends = []
    if up_done is not None and up[up_done] >= upper:
        ends.append((up_done, A_BETTER))
    if down_done is not None and down[down_done] >= upper:
        ends.append((down_done, B_BETTER))
    if ends:
        at, decision = min(ends)
        stop = int(looks[at])
    elif up_done is not None and down_done is not None:
        stop, decision = int(looks[max(up_done, down_done)]), NO_DIFFERENCE
    seen = d[:stop]
    mean = float(seen.mean()) if stop else 0.0
    sd = float(seen.std(ddof=1)) if stop >= 2 else 0.0
    half = 1.959963984540054 * sd / math.sqrt(stop) if stop >= 2 else 1.0
    at_stop = np.flatnonzero(looks <= stop)
    last = int(at_stop[-1]) if at_stop.size else None
    return SequentialResult(
        decision, stop, mean, mean - half, mean + half, sd,
        float(up[last]) if last is not None else 0.0, float(down[last]) if last is not None else 0.0, lower, upper,
    )  # fmt: skip


def _llrs(total, squares, looks, delta) -> tuple[np.ndarray, np.ndarray]:
    """Each side's log-likelihood ratio at each look: normal, with the variance of the deals so far (floored,
    so that identical differences do not divide by zero)."""
    if looks.size == 0:
        return np.zeros(0), np.zeros(0)
    n = looks.astype(float)
    s, q = total[looks - 1], squares[looks - 1]
    var = np.maximum((q - s * s / n) / (n - 1), 1e-6)
    return delta * (s - n * delta / 2) / var, -delta * (s + n * delta / 2) / var


def _first(llr: np.ndarray, lower: float, upper: float) -> int | None:
    """The first look at which a side's ratio leaves its bounds, or None."""
    out = np.flatnonzero((llr >= upper) | (llr <= lower))
    return int(out[0]) if out.size else None


def simulate(pool, means, test: SequentialTest, *, runs: int = 2000, max_deals: int = 20_000, seed: int = 0):
    """The test on per-deal differences drawn from `pool` (real per-deal differences, resampled with
    replacement and shifted to each mean of `means`): per mean, the share of runs that ended with each
    decision, the mean and 90th percentile of the deals they took, and the fixed-size test's deals for the pool's
    standard deviation. What `benchmarks/bench_sprt.py` reports."""
    pool = np.asarray(pool, dtype=float)
    if pool.ndim != 1 or pool.size < 2:
        raise ValueError("the pool holds the per-deal differences of at least 2 deals")
    if not (isinstance(runs, int) and 1 <= runs <= MAX_RUNS):
        raise ValueError(f"runs is a whole number from 1 to {MAX_RUNS:,}, got {runs!r}")
    if not (isinstance(max_deals, int) and 2 <= max_deals <= MAX_COMPARE_DEALS):
        raise ValueError(f"max_deals is a whole number from 2 to {MAX_COMPARE_DEALS:,}, got {max_deals!r}")
    rng = np.random.default_rng(seed)
    centred = pool - pool.mean()
    fixed = test.fixed_deals(float(pool.std(ddof=1)))
    rows = []
    for mean in means:
        counts = {A_BETTER: 0, B_BETTER: 0, NO_DIFFERENCE: 0, UNDECIDED: 0}
        taken = []
        for _ in range(runs):
            d = np.clip(centred[rng.integers(0, pool.size, max_deals)] + mean, -1.0, 1.0)
            result = decide(d, test, final=True)
            counts[result.decision] += 1
            taken.append(result.deals)
        taken = np.array(taken)
        rows.append({"mean": float(mean), **{k: v / runs for k, v in counts.items()},
                     "mean_deals": float(taken.mean()), "p90_deals": float(np.percentile(taken, 90)),
                     "fixed_deals": fixed})  # fmt: skip
    return rows


# ---------------------------------------------------------------------------------------------- control variates


def control_variate(outcomes, covariates, z: float = 1.959963984540054) -> dict:
    """A control-variate estimate of the mean of per-deal `outcomes` (D,), from per-deal `covariates` (D, k) whose
    mean is known to be zero: mean(y - X b), with b the least-squares slope of y on X, and its 95% interval by
    deal (the residuals' spread, k + 1 degrees of freedom spent); beside it the plain mean and its interval.
    Unbiased as D grows whatever X is, as long as X has mean zero; narrower by the share of y's variance that X
    explains. `covariate_t` are the covariates' means over their standard errors: far from 0, the premise fails."""
    y = np.asarray(outcomes, dtype=float)
    x = np.asarray(covariates, dtype=float).reshape(len(y), -1)
    deals, k = x.shape
    if deals < k + 3:
        raise ValueError(f"a control variate with {k} covariates needs at least {k + 3} deals, got {deals}")
    slope = np.linalg.lstsq(x - x.mean(axis=0), y - y.mean(), rcond=None)[0]
    adjusted = y - x @ slope
    plain_half = z * y.std(ddof=1) / math.sqrt(deals)
    half = z * adjusted.std(ddof=1 + k) / math.sqrt(deals)
    spread = x.std(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(spread > 0, x.mean(axis=0) / (spread / math.sqrt(deals)), 0.0)
    return {
        "mean": float(adjusted.mean()), "low": float(adjusted.mean() - half), "high": float(adjusted.mean() + half),
        "plain_mean": float(y.mean()), "plain_low": float(y.mean() - plain_half),
        "plain_high": float(y.mean() + plain_half), "narrower": float(1 - half / plain_half) if plain_half else 0.0,
        "coefficients": slope.tolist(), "covariate_t": t.tolist(),
    }  # fmt: skip
