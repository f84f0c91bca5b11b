"""`random`: a uniformly random legal action."""

from __future__ import annotations

import numpy as np


class RandomAgent:
    """Uniform over the legal actions; reproducible for a seed."""

    observation = "minimal"
    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        scores = self.rng.random(action_masks.shape)
        scores[action_masks == 0] = -1.0
        return scores.argmax(axis=1)
