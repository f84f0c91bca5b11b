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


def bind(agent, spec, rules) -> None:
    """Tell an agent the game it plays, if it wants to know: `agent.bind(spec, rules)` is optional.

    `spec` is the `uno_env.observation.ObservationSpec` of its observations (field layout, player count),
    `rules` the `uno_env.RuleSet` (card points, colours): public facts, nothing hidden.
    """
    if hasattr(agent, "bind"):
        agent.bind(spec, rules)
