"""The agent protocol every agent follows (baselines, trained networks, a person at the terminal)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Picks one legal action per decision of a batch, from the observations alone."""

    #: the observation level the agent reads: "minimal", "knowledge" or "seer"
    observation: str

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """observations (B, L) int8 and action_masks (B, 77) int8 -> actions (B,) int64, each legal."""
        ...
