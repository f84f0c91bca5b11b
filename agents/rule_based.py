"""What the rule-based baselines (`naive`, `greedy`, `counter`) share: the base class and the one decide loop.

`BaselineAgent` holds the seed and its own generator, `bind(spec, rules)`, and the call of the agent's compiled
decision kernel. The kernels (numba) read the int8 observation rows in place through the field offsets of
`uno_env.observation` (`spec.offsets`, read with its readers `field`, `phase_of`, `one_hot_index`), score every
action of a row and take the best legal one (`best_legal`), breaking ties at random with the agent's own generator.
The scoring baselines run one loop, `decide_rows`, and differ only in the per-phase scorers they give it. An agent
used without `bind` finds the player count from the length of the observations and assumes the `classic` rule set
(card points, deck).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from uno_env import actions as A
from uno_env import cards as C
from uno_env import engine as E
from uno_env import observation as O
from uno_env.rules import RuleSet, make_rules

NK = C.NUM_KINDS
NC = C.NUM_COLORS
RPC = C.RANKS_PER_COLOR

TIE_BREAK = 1e-3  # legal scores this close to the best are ties, broken at random (real preferences differ more)
NEG = -1e18  # the score of an illegal action


@njit(cache=True, nogil=True)
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
            value = scores[a] + TIE_BREAK * E.uniform(rng)
            if value > best_value:
                best, best_value = a, value
    return best


@njit(cache=True, nogil=True)
def total(values):
    """The sum of an int8 field (as int64)."""
    result = 0
    for i in range(values.shape[0]):
        result += np.int64(values[i])
    return result


@njit(cache=True, nogil=True)
def color_counts(cards, out):
    """out[c] = the coloured cards of colour slot c in a count vector over the 59 kinds."""
    for c in range(NC):
        out[c] = total(cards[c * RPC : (c + 1) * RPC])


@njit(cache=True, nogil=True, inline="always")
def decide_rows(obs, masks, rng, off, n, points, counts, params, scratch, actions,
                play_scores, color_scores, challenge_scores, guess_scores, other_scores):  # fmt: skip
    """actions[i] = the best legal action of row i of `obs` (ties broken with `rng`), by the phase scorers given.

    Each scorer is an njit function `scorer(obs, mask, phase, off, n, points, counts, params, hand_colors, scratch,
    s)` that writes its preferences into the scores `s` of one row (zeroed for every row; only the order of the
    legal ones matters): `play_scores` in the play and drawn phases, `color_scores` when choosing a colour,
    `challenge_scores` facing a Wild Draw Four, `guess_scores` for a Narwhal guess, `other_scores` in every other
    phase (give, swap, emoji, uno). `hand_colors` holds the row's own coloured cards per colour; `params` (the
    agent's parameters) and `scratch` (its work arrays, refilled for every row) are the agent's own, passed through.

    Inlined into each caller (`greedy_decide`, `counter_decide`), so every caller is compiled with its scorers as
    direct calls, as fast as a loop written for it, and stays cacheable (numba caches no function that passes
    functions as values). For the same reason a scorer should do its work itself rather than wrap another
    function: each extra call layer per row costs measurable speed.
    """
    s = np.empty(A.NUM_ACTIONS)
    hand_colors = np.empty(NC, np.int64)
    for i in range(obs.shape[0]):
        actions[i] = decide_row(obs[i], masks[i], rng, off, n, points, counts, params, scratch, s, hand_colors,
                                play_scores, color_scores, challenge_scores, guess_scores, other_scores)  # fmt: skip


@njit(cache=True, nogil=True, inline="always")
def decide_row(row, mask, rng, off, n, points, counts, params, scratch, s, hand_colors,
               play_scores, color_scores, challenge_scores, guess_scores, other_scores):  # fmt: skip
    """One row of `decide_rows`: the best legal action of observation `row`, with the work arrays `s` (one score
    an action) and `hand_colors` (one count a colour) given, so that a GPU thread can pass its own."""
    s[:] = 0.0
    phase = O.phase_of(row, off)
    color_counts(O.field(row, off, O.F_HAND, NK), hand_colors)
    if phase == A.PHASE_PLAY or phase == A.PHASE_DRAWN:
        play_scores(row, mask, phase, off, n, points, counts, params, hand_colors, scratch, s)
    elif phase == A.PHASE_COLOR:
        color_scores(row, mask, phase, off, n, points, counts, params, hand_colors, scratch, s)
    elif phase == A.PHASE_CHALLENGE:
        challenge_scores(row, mask, phase, off, n, points, counts, params, hand_colors, scratch, s)
    elif phase == A.PHASE_GUESS:
        guess_scores(row, mask, phase, off, n, points, counts, params, hand_colors, scratch, s)
    else:
        other_scores(row, mask, phase, off, n, points, counts, params, hand_colors, scratch, s)
    return best_legal(s, mask, rng)


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
