"""`naive`: the way a beginner plays, and the base class of the rule-based baselines.

`BaselineAgent` holds what every baseline shares: the seed and its own generator, `bind(spec, rules)`, and
reading the named fields of a batch of observations. An agent used without `bind` finds the player count
from the length of the observations and assumes the `classic` rule set (card points, deck).
"""

from __future__ import annotations

import numpy as np

from uno_env import actions as A
from uno_env import cards as C
from uno_env import observation as O
from uno_env.rules import RuleSet, make_rules

TIE_BREAK = 1e-3  # random noise added to every score: it only decides between equal scores (gaps are >= 1)
NEG = -1e18  # the score of an illegal action


class BaselineAgent:
    """A rule-based agent: scores every action of every row, then takes the best legal one.

    `seed` seeds the agent's own numpy Generator, used for random choices and to break ties; the same seed
    and the same sequence of calls give the same actions.
    """

    observation = "minimal"
    name = "baseline"
    reads_fields = True  # whether `scores` reads the observation fields

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

    def fields(self, observations: np.ndarray) -> dict[str, np.ndarray]:
        """The named fields of the agent's level (int64 copies), plus `num_players`, `phase` (ids),
        `active` (the active colour slot, -1 if none) and `cards` (hand and forehead cards per relative seat)."""
        spec = self._spec_for(observations)
        depth = O.level_index(self.observation)
        f = {}
        for name, first_level in ((n, lvl) for n, _, lvl in O.FIELDS):
            if first_level <= depth:
                sl, shape = spec.layout[name]
                f[name] = observations[:, sl].astype(np.int64).reshape((-1, *shape))
        f["foreheads"][:, 0] = 0  # own forehead cards show only at `seer`: never read them
        f["num_players"] = spec.num_players
        f["phase"] = f["phase"].argmax(axis=1)
        f["active"] = np.where(f["color"].any(axis=1), f["color"].argmax(axis=1), -1)
        f["direction"] = f["direction"][:, 0]
        f["pending_draw"] = f["pending_draw"][:, 0]
        f["cards"] = f["hand_sizes"] + f["forehead_counts"]
        return f

    # ------------------------------------------------------------------ acting
    def scores(self, f: dict[str, np.ndarray], action_masks: np.ndarray) -> np.ndarray:
        """(B, 77) preferences; only their order among legal actions matters."""
        raise NotImplementedError

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        observations = np.asarray(observations)
        action_masks = np.asarray(action_masks)
        if observations.ndim == 1:
            return self.act(observations[None], action_masks[None])
        f = self.fields(observations) if self.reads_fields else {}
        scores = self.scores(f, action_masks).astype(np.float64)
        scores += self.rng.random(scores.shape) * TIE_BREAK
        scores[action_masks == 0] = NEG
        return scores.argmax(axis=1).astype(np.int64)


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

    def scores(self, f: dict[str, np.ndarray], action_masks: np.ndarray) -> np.ndarray:
        scores = self.rng.random(action_masks.shape)
        scores[:, : C.NUM_KINDS] += 2.0  # a card before draw / pass (in every phase where both are legal)
        scores[:, A.ACCEPT] += 2.0
        scores[:, A.UNO] += 2.0
        return scores
