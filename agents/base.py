"""The agent protocol every agent follows (`uno_env.seats`: `Agent`, `bind`, re-exported here) and the base of the
search agents."""

from __future__ import annotations

import zlib

import numpy as np

from uno_env.seats import Agent, bind

__all__ = ["MAX_SEARCH_ITERATIONS", "MAX_SEARCH_MILLISECONDS", "Agent", "SearchAgent", "bind"]

#: the largest budget a search agent takes a decision: iterations (its tree holds a node an iteration) and
#: milliseconds; the registry reads names against the same caps
MAX_SEARCH_ITERATIONS = 100_000
MAX_SEARCH_MILLISECONDS = 600_000


class SearchAgent:
    """The base of agents that search the game (`act_in_games`, see `uno_env.seats.agent_actions`): one game at a
    time, each decision with more than one legal action given to `decide(row, config, observation, legal)`,
    with `row` a copy of that game's engine state (1 record), which the agent must read only through the
    engine's redeal of what its seat cannot see."""

    name = "search"

    def ready(self) -> bool:
        """Whether `bind` was called (a search needs the game's rules)."""
        raise NotImplementedError

    def decide(self, row: np.ndarray, config: np.ndarray, observation: np.ndarray, legal: np.ndarray) -> int:
        raise NotImplementedError

    def decision_seed(self, row: np.ndarray, observation: np.ndarray) -> int:
        """A decision's seed, from the agent's `seed` and what the seat sees (its observation and the decision
        count): the same choice in any batch, and in any world the seat cannot tell apart."""
        return (self.seed * 0x9E3779B1 + zlib.crc32(observation.tobytes()) * 0x85EBCA77 + int(row[0]["steps"])) % 2**63

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        raise TypeError(
            f"{self.name} searches the game itself and cannot act from observations alone: seat it through "
            "uno-arena, uno-play, uno-web or UnoVectorEnv, which call act_in_games"
        )

    def act_in_games(self, state, config, games, observations, action_masks) -> np.ndarray:
        """One action per game of `games` (engine state `state`, left unchanged; config `config`)."""
        if not self.ready():
            raise RuntimeError(f"{self.name} must be bound to a game first (bind(spec, rules))")
        actions = np.empty(len(games), np.int64)
        for i, g in enumerate(np.asarray(games, np.int64)):
            legal = np.flatnonzero(action_masks[i])
            actions[i] = (
                legal[0] if legal.size == 1 else self.decide(state[g : g + 1].copy(), config, observations[i], legal)
            )
        return actions
