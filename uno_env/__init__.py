"""uno-env: UNO and four variants as a reinforcement-learning environment.

`uno_env.env()` is the PettingZoo AEC env (also `pettingzoo.make("aec", "uno_env/uno_v0")` once
`uno_env` is imported); `gymnasium.make("uno_env/UnoSingleAgent-v0")` is the single-agent env
(`uno_env.wrappers.UnoSingleAgentEnv`).

The rules live once, in the compiled batched engine (`uno_env.engine`); `Game` and `GameBatch`
(`uno_env.game`) are its Python face. See the README for the rules the engine plays.
"""

import os as _os

# numba's OpenMP threads wait passively between parallel regions, so they do not spin against PyTorch's
# threads while a trainer alternates between the two (on 2 cores spinning made training ~70x slower).
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from .actions import NUM_ACTIONS, PHASE_NAMES, action_id, action_names
from .aec import env, raw_env
from .cards import NUM_KINDS, parse_card
from .game import Game, GameBatch, IllegalActionError
from .observation import observation_layout
from .rules import OPTION_NAMES, PRESETS, VARIANTS, RuleSet, make_rules


def _register_with_pettingzoo() -> None:
    """Register uno_v0 in PettingZoo's registry, which exists from pettingzoo 1.27 on; older versions (AgileRL pins
    one) have none, and `uno_env.env()` works the same without it."""
    try:
        from pettingzoo import register
    except ImportError:
        return
    register("aec", "uno_env/uno_v0", entry_point="uno_env.aec:env")


_register_with_pettingzoo()

#: the gymnasium id of `uno_env.wrappers.UnoSingleAgentEnv`: `gymnasium.make(SINGLE_AGENT_ENV_ID, variant=...,
#: num_players=..., learner_seat=..., opponents=..., illegal_action=..., **env_options)`
SINGLE_AGENT_ENV_ID = "uno_env/UnoSingleAgent-v0"


def _register_with_gymnasium() -> None:
    """Register the single-agent env by id, for tools that build envs from one (`gymnasium.make`, SB3's
    `make_vec_env`); the wrappers module is imported only when an env is made."""
    import gymnasium

    if SINGLE_AGENT_ENV_ID not in gymnasium.registry:  # a reload of uno_env would otherwise warn of an override
        gymnasium.register(
            SINGLE_AGENT_ENV_ID,
            entry_point="uno_env.wrappers:UnoSingleAgentEnv",
            kwargs={"variant": "classic", "num_players": 2},
        )


_register_with_gymnasium()

__version__ = "0.3.0"

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
    "SINGLE_AGENT_ENV_ID",
    "VARIANTS",
    "action_id",
    "env",
    "raw_env",
    "observation_layout",
    "action_names",
    "make_rules",
    "parse_card",
]
