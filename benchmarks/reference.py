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


def interleaved_medians(measures: dict, repeats: int) -> dict:
    """Median rate of each measure(seed), timed in turn within every repeat so that all of them see the
    same machine noise (the machines are shared). One untimed warm-up round first (numba compiles)."""
    for measure in measures.values():
        measure(0)
    rates: dict = {name: [] for name in measures}
    for r in range(repeats):
        for name, measure in measures.items():
            rates[name].append(measure(r + 1))
    return {name: statistics.median(values) for name, values in rates.items()}


def rlcard_available() -> bool:
    try:
        import rlcard  # noqa: F401
    except ImportError:
        print('RLCard not installed (pip install -e ".[bench]"): no comparison')
        return False
    return True
