"""`naive`: the way a beginner plays.

Its kernel reads no observation field: it scores every card play, accept and uno alike and takes one of the
legal ones at random (`best_legal`). `BaselineAgent`, the base class of the rule-based baselines, is in
`uno_env.agents.rule_based`; it and the observation readers are importable from here too, as before.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from uno_env import actions as A
from uno_env import cards as C
from uno_env.observation import argmax_first, field, one_hot_index  # noqa: F401  (re-exported: their old home)
from uno_env.seats import DeviceRule

from .rule_based import NEG, TIE_BREAK, BaselineAgent, best_legal  # noqa: F401  (re-exported: their old home)


@njit(cache=True, nogil=True)
def naive_decide(masks, rng, actions):
    """`NaiveAgent`'s choices: a card before draw / pass (in every phase where both are legal), accept, uno;
    uniformly at random among those."""
    scores = np.zeros(masks.shape[1])
    scores[: C.NUM_KINDS] = 1.0
    scores[A.ACCEPT] = 1.0
    scores[A.UNO] = 1.0
    for i in range(masks.shape[0]):
        actions[i] = best_legal(scores, masks[i], rng)


@njit(cache=True, nogil=True)
def naive_decide_row(row, mask, rng, off, n, points, counts, params, work, scores, hand_colors):
    """Naive's choice for one row: its rule on the GPU (`uno_env.seats.DeviceRule`)."""
    scores[:] = 0.0
    scores[: C.NUM_KINDS] = 1.0
    scores[A.ACCEPT] = 1.0
    scores[A.UNO] = 1.0
    return best_legal(scores, mask, rng)


class NaiveAgent(BaselineAgent):
    """A beginner: plays a random playable card, draws only when it must, and knows no tactics.

    - play: a uniformly random playable card (facing a Draw Two stack: a random Draw Two if it holds one);
      `draw` only when no card plays.
    - drawn: always plays a playable drawn card.
    - colour (after a wild), Narwhal guess, Urrrhhh colour, Swap target (or not), Emoji number card: random.
    - challenge: always accepts a Wild Draw Four.
    - UNO (`uno_call="explicit"`): always calls.

    It reads the `minimal` observation; `seed` makes its random choices reproducible.
    """

    observation = "minimal"
    name = "naive"
    reads_fields = False

    def device_rule(self) -> DeviceRule:
        """Naive's rule on the GPU, its random choices drawn from each game's own stream there."""
        return DeviceRule(naive_decide_row, (np.int64(0),), self.observation, self._points, self._counts)

    def decide(self, spec, observations, action_masks, actions):
        naive_decide(action_masks, self.rng, actions)
