"""`naive`: the way a beginner plays, and the base class of the rule-based baselines.

`BaselineAgent` holds what every baseline shares: the seed and its own generator, `bind(spec, rules)`, and
the call of its compiled decision kernel. The kernels (numba, one per agent) read the int8 observation rows
in place through the field offsets of `uno_env.observation` (`spec.offsets`), score every action of a row
and take the best legal one, breaking ties at random with the agent's own generator. An agent used
without `bind` finds the player count from the length of the observations and assumes the `classic` rule
set (card points, deck).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from uno_env import actions as A
from uno_env import cards as C
from uno_env import observation as O
from uno_env.rules import RuleSet, make_rules

TIE_BREAK = 1e-3  # legal scores this close to the best are ties, broken at random (real preferences differ more)
NEG = -1e18  # the score of an illegal action


@njit(cache=True)
def best_legal(scores, mask, rng):
    """The legal action with the highest score; near ties (within TIE_BREAK of the best) go to the highest
    score + TIE_BREAK * a uniform draw from `rng` (drawn only then), so equal scores are chosen uniformly.
    Action 0 when none is legal."""
    best, top = -1, NEG
    for a in range(scores.shape[0]):
        if mask[a] != 0 and (best < 0 or scores[a] > top):
            best, top = a, scores[a]
    if best < 0:
        return 0
    tied = 0
    for a in range(scores.shape[0]):
        if mask[a] != 0 and scores[a] >= top - TIE_BREAK:
            tied += 1
    if tied == 1:
        return best
    best_value = NEG
    for a in range(scores.shape[0]):
        if mask[a] != 0 and scores[a] >= top - TIE_BREAK:
            value = scores[a] + TIE_BREAK * rng.random()
            if value > best_value:
                best, best_value = a, value
    return best


@njit(cache=True)
def field(obs, off, index, size):
    """The observation field `index` (an `uno_env.observation.F_*` id) of `size` entries, as a view."""
    start = off[index]
    return obs[start : start + size]


@njit(cache=True)
def argmax_first(values):
    """The index of the largest value (the first on ties), as numpy's argmax."""
    best = 0
    for i in range(values.shape[0]):
        if values[i] > values[best]:
            best = i
    return best


@njit(cache=True)
def one_hot_index(values):
    """The index of the one in a one-hot field, -1 when it is all zero."""
    for i in range(values.shape[0]):
        if values[i] != 0:
            return i
    return -1


class BaselineAgent:
    """A rule-based agent: scores every action of every row, then takes the best legal one.

    `seed` seeds the agent's own numpy Generator (`rng`, drawn from inside the kernels), used for random
    choices and to break ties; the same seed and the same sequence of calls give the same actions.
    """

    observation = "minimal"
    name = "baseline"
    reads_fields = True  # whether the kernel reads the observation fields (and so needs their layout)

    def __init__(self, seed: int | None = None):
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.spec: O.ObservationSpec | None = None
        self.rules: RuleSet | None = None
        self._points = np.zeros(C.NUM_KINDS)
        self._counts = np.zeros(C.NUM_KINDS)
        self.bind(None, None)

    # ------------------------------------------------------------------ the game
    def bind(self, spec: O.ObservationSpec | None, rules: RuleSet | None) -> None:
        """The observation layout and the rule set of the game (public facts). `spec` may be of a level
        above the agent's own: the agent reads only the fields of its own level."""
        if spec is not None and spec.index < O.level_index(self.observation):
            raise ValueError(f"{self.name} reads {self.observation!r} observations, got {spec.level!r} ones")
        self.spec = spec
        self.rules = rules if rules is not None else make_rules("classic")
        self._points = np.asarray(self.rules.card_points, np.float64)
        self._counts = np.asarray(self.rules.card_counts, np.float64)

    def _spec_for(self, observations: np.ndarray) -> O.ObservationSpec:
        """The bound spec, or (unbound) the one of the agent's level whose size fits the observations."""
        length = observations.shape[1]
        if self.spec is not None and self.spec.size == length:
            return self.spec
        for level in O.LEVELS[O.level_index(self.observation) :]:
            for n in range(2, 11):
                if O.observation_size(level, n) == length:
                    self.spec = O.ObservationSpec(level, n)
                    return self.spec
        raise ValueError(f"observations of length {length} fit no {self.observation!r} layout of 2-10 players")

    # ------------------------------------------------------------------ acting
    def decide(self, spec, observations, action_masks, actions) -> None:
        """Write the chosen action of every row into `actions` (int64) by the agent's compiled kernel, from
        int8 `observations` laid out by `spec` (None for an agent that reads no field) and `action_masks`."""
        raise NotImplementedError

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        observations = np.asarray(observations)
        action_masks = np.asarray(action_masks)
        if observations.ndim == 1:
            return self.act(observations[None], action_masks[None])
        observations = np.ascontiguousarray(observations, dtype=np.int8)
        action_masks = np.ascontiguousarray(action_masks, dtype=np.int8)
        spec = self._spec_for(observations) if self.reads_fields else None
        actions = np.empty(len(observations), np.int64)
        self.decide(spec, observations, action_masks, actions)
        return actions


@njit(cache=True)
def naive_decide(masks, rng, actions):
    """`NaiveAgent`'s choices: a card before draw / pass (in every phase where both are legal), accept, uno;
    uniformly at random among those."""
    scores = np.zeros(masks.shape[1])
    scores[: C.NUM_KINDS] = 1.0
    scores[A.ACCEPT] = 1.0
    scores[A.UNO] = 1.0
    for i in range(masks.shape[0]):
        actions[i] = best_legal(scores, masks[i], rng)


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

    def decide(self, spec, observations, action_masks, actions):
        naive_decide(action_masks, self.rng, actions)
