"""`openspiel-ismcts`: OpenSpiel's own IS-MCTS (`open_spiel.python.algorithms.ismcts.ISMCTSBot`) seated in uno-env.

It plays through the adapter `uno_env.openspiel`: for each decision it wraps a copy of the game's engine state
in a `python_uno` state and asks a fresh ISMCTSBot, whose worlds are the engine's redeals of what the seat cannot
see (`resample_from_infostate`) and whose leaves are valued by OpenSpiel's `RandomRolloutEvaluator` (uniformly
random play to the end of the episode). It shows what an off-the-shelf OpenSpiel search does on UNO; the
compiled `ismcts` agent is the fast one.

Reproducible: each decision's generator is seeded from the agent's seed and what the seat sees (its observation
and the decision count), so the same seed and game give the same choice, in any batch. Where the engine cannot
redeal (`uno_env.openspiel.ResampleRefused`: no shuffle fits the seat's wrong Narwhal guesses) the agent picks a
legal action uniformly at random, counts it in `fallbacks` and warns once.
"""

from __future__ import annotations

import warnings

import numpy as np

from uno_env import openspiel as U

from .base import SearchAgent


class OpenSpielISMCTSAgent(SearchAgent):
    """OpenSpiel's ISMCTSBot: `iterations` simulations per decision, UCT constant `uct_c`, `rollouts` random
    rollouts per leaf. A search agent: it reads the game through `act_in_games`."""

    observation = "knowledge"

    def __init__(self, seed: int | None = None, *, iterations: int = 100, uct_c: float = 2.0, rollouts: int = 1):
        for name, value in (("iterations", iterations), ("rollouts", rollouts)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if isinstance(uct_c, bool) or not isinstance(uct_c, (int, float)) or uct_c < 0:
            raise ValueError(f"uct_c must be a number >= 0, got {uct_c!r}")
        self.seed = 0 if seed is None else int(seed)
        self.iterations, self.uct_c, self.rollouts = iterations, float(uct_c), rollouts
        self.name = f"openspiel-ismcts:{iterations}"
        self.rules = None
        self.fallbacks = 0  # decisions the engine could not redeal for: chosen at random
        self._games: dict[bytes, U.UnoGame] = {}

    def bind(self, spec, rules) -> None:
        """The game it plays (`uno_env.agents.base.bind`): the rule set and player count of its python_uno game."""
        self.rules, self.num_players = rules, spec.num_players
        self._games = {}

    def ready(self) -> bool:
        return self.rules is not None

    def decide(self, row, config, observation, legal) -> int:
        return self._search(self._game(np.asarray(config)), row, observation, legal)

    def _game(self, config) -> U.UnoGame:
        """The python_uno game of the bound rules under this config (episode kind, step limit)."""
        key = config.tobytes()
        if key not in self._games:
            record = config[0]
            episode = "match" if record["match"] else "round"
            game = U.make_game(self.rules, self.num_players, episode, int(record["max_steps"]))
            if game.config_array.tobytes() != key:
                raise ValueError(f"{self.name}: the game's config is not that of the rules it was bound to")
            self._games[key] = game
        return self._games[key]

    def _search(self, game: U.UnoGame, row: np.ndarray, observation: np.ndarray, legal: np.ndarray) -> int:
        from open_spiel.python.algorithms import ismcts, mcts

        rng = np.random.RandomState(self.decision_seed(row, observation) % 2**32)
        state = game.new_state_from_engine(row)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=self.rollouts, random_state=rng)
        bot = ismcts.ISMCTSBot(game, evaluator, self.uct_c, self.iterations, random_state=rng)
        bot.set_resampler(lambda world, player: world.resample_from_infostate(player, rng.uniform))
        try:
            return int(bot.step(state))
        except U.ResampleRefused as refusal:
            self.fallbacks += 1
            if self.fallbacks == 1:
                warnings.warn(
                    f"{self.name} cannot search this decision ({refusal}); it picks a legal action at random "
                    "wherever the engine cannot redeal (counted in .fallbacks)",
                    RuntimeWarning,
                    stacklevel=3,
                )
            return int(legal[rng.randint(legal.size)])
