"""RLCard's UNO `env.step` with random legal actions: the reference the benchmarks compare against.

RLCard is a benchmark-only extra (`pip install -e ".[bench]"`); its UNO has 2 players only.
"""

from __future__ import annotations

import statistics
import time

import numpy as np


def rlcard_rate(steps: int, seed: int) -> float:
    """Steps per second of RLCard's UNO with uniformly random legal actions."""
    import rlcard

    env = rlcard.make("uno", config={"seed": seed})
    rng = np.random.default_rng(seed)
    state, _ = env.reset()
    start = time.perf_counter()
    for _ in range(steps):
        legal = list(state["legal_actions"])
        state, _ = env.step(legal[rng.integers(len(legal))])
        if env.is_over():
            state, _ = env.reset()
    return steps / (time.perf_counter() - start)


def median_rate(measure, repeats: int) -> float:
    """The median of `repeats` calls of measure(seed) after one warm-up call (which compiles)."""
    measure(0)
    return statistics.median(measure(r + 1) for r in range(repeats))


def reference_rate(steps: int, repeats: int) -> float | None:
    """RLCard's median steps/s, or None (with a note) when RLCard is not installed."""
    try:
        rate = median_rate(lambda seed: rlcard_rate(steps, seed), repeats)
    except ImportError:
        print('RLCard not installed (pip install -e ".[bench]"): no comparison')
        return None
    print(f"RLCard UNO env.step (2 players): {rate:>12,.0f} steps/s")
    return rate
