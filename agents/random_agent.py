"""`random`: a uniformly random legal action."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def random_decide(masks, rng, actions):
    """actions[i] = one of the legal actions of masks[i], uniformly at random (action 0 when none is legal)."""
    for i in range(masks.shape[0]):
        legal = 0
        for a in range(masks.shape[1]):
            legal += masks[i, a] != 0
        pick = rng.integers(0, legal) if legal > 0 else 0
        actions[i] = 0
        for a in range(masks.shape[1]):
            if masks[i, a] != 0:
                if pick == 0:
                    actions[i] = a
                    break
                pick -= 1


class RandomAgent:
    """Uniform over the legal actions; reproducible for a seed."""

    observation = "minimal"
    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        action_masks = np.ascontiguousarray(action_masks, dtype=np.int8)
        actions = np.empty(len(action_masks), np.int64)
        random_decide(action_masks, self.rng, actions)
        return actions
