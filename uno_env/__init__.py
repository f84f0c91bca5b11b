"""uno-env: UNO and four variants as a reinforcement-learning environment.

The rules live once, in the compiled batched engine (`uno_env.engine`); `Game` and `GameBatch`
(`uno_env.game`) are its Python face. See the README for the rules the engine plays.
"""

from .actions import NUM_ACTIONS, PHASE_NAMES, action_id, action_names
from .cards import NUM_KINDS, parse_card
from .game import Game, GameBatch, IllegalActionError
from .rules import OPTION_NAMES, PRESETS, RuleSet, make_rules

__version__ = "0.1.0"

__all__ = [
    "Game",
    "GameBatch",
    "IllegalActionError",
    "NUM_ACTIONS",
    "NUM_KINDS",
    "OPTION_NAMES",
    "PHASE_NAMES",
    "PRESETS",
    "RuleSet",
    "action_id",
    "action_names",
    "make_rules",
    "parse_card",
]
