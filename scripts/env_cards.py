"""The environment cards at the top of the API page: one per face (the PettingZoo env, the Gymnasium env, the
Stable-Baselines3 VecEnv, the vector env), as PettingZoo's classic pages open, with every number read from the code.

`docs/hooks.py` puts `cards_markdown()` where docs/api.md says `<!-- table:environments -->`, on every build:
the action count, the player counts, the observation levels and their lengths, the variants, the reward kinds and
the defaults are the code's own, so the card cannot drift from it.

    python scripts/env_cards.py     # print the cards
"""

from __future__ import annotations

import inspect

import numpy as np

from uno_env import actions as A
from uno_env import observation as O
from uno_env.aec import raw_env
from uno_env.rewards import REWARD_KINDS
from uno_env.rules import VARIANTS
from uno_env.validate import EPISODES
from uno_env.vector import UnoVectorEnv
from uno_env.wrappers import UnoSB3VecEnv, UnoSingleAgentEnv


def observation_length(level: str, players: int) -> int:
    """The length of the flat observation vector at `level` with `players` players."""
    return int(sum(np.prod(shape) for _, shape in O.observation_layout(level, players).values()))


def default(function, name: str):
    return inspect.signature(function).parameters[name].default


def observation_table() -> str:
    """Observation length by level (rows) and player count (columns)."""
    players = range(O.MIN_PLAYERS, O.MAX_PLAYERS + 1)
    level_default = default(raw_env.__init__, "observation")
    lines = ["| level | " + " | ".join(f"{n} players" if n == O.MIN_PLAYERS else str(n) for n in players) + " |",
             "|---" + "|--:" * len(players) + "|"]  # fmt: skip
    for level in O.LEVELS:
        name = f"`{level}`" + (" (default)" if level == level_default else "")
        lines.append(f"| {name} | " + " | ".join(f"{observation_length(level, n):,}" for n in players) + " |")
    return "\n".join(lines)


def card(title: str, rows: list[tuple[str, str]]) -> str:
    return "\n".join([f"**{title}**", "", "| | |", "|---|---|", *(f"| {key} | {value} |" for key, value in rows)])


def cards_markdown() -> str:
    """Every face's card, then the observation lengths they share."""
    n_actions, low, high = A.NUM_ACTIONS, O.MIN_PLAYERS, O.MAX_PLAYERS
    vector_seats = default(UnoVectorEnv.__init__, "learner_seats")
    levels = ", ".join(f"`{level}`" for level in O.LEVELS)
    reward_default = default(raw_env.__init__, "reward")
    rewards = ", ".join(f'`"{kind}"`' + (" (default)" if kind == reward_default else "") for kind in REWARD_KINDS)
    obs = f"int8[L], L by level and player count below (`observation=`: {levels})"
    cards = [
        card(f"PettingZoo AEC: `{raw_env.metadata['name']}`", [
            ("import", f"`from uno_env import {raw_env.metadata['name']}`; `env = {raw_env.metadata['name']}.env()` "
                       "or `uno_env.env()`"),
            ("agents", f"`player_0` to `player_{{N-1}}` (N = {low} to {high})"),
            ("action space", f"`Discrete({n_actions})`, the same ids for every variant and player count"),
            ("observation", f"a dict: `observation` {obs}; `action_mask` int8[{n_actions}]"),
            ("mask", "`obs[\"action_mask\"]`: 1 for each legal action of the deciding agent, all zeros for "
                     "the others"),
            ("reward", f"{rewards}: zero-sum, +1 to the winner and -1/(N-1) to each other player under `\"win\"`"),
        ]),  # fmt: skip
        card(f"Gymnasium, one learner: `{UnoSingleAgentEnv.__name__}`", [
            ("import", f"`from uno_env.wrappers import {UnoSingleAgentEnv.__name__}`"),
            ("agents", f"one learner in `learner_seat` (default {default(UnoSingleAgentEnv.__init__, 'learner_seat')}"
                       "), `opponents` in the other seats"),
            ("action space", f"`Discrete({n_actions})`"),
            ("observation", obs),
            ("mask", f"`info[\"action_mask\"]` and `env.action_masks()`, int8[{n_actions}]"),
            ("reward", f"the learner's seat's, {rewards}"),
        ]),  # fmt: skip
        card(f"Stable-Baselines3 VecEnv: `{UnoSB3VecEnv.__name__}`", [
            ("import", f"`from uno_env.wrappers import {UnoSB3VecEnv.__name__}` (MaskablePPO, the `train` extra)"),
            ("agents", f"`num_envs` games (default {default(UnoSB3VecEnv.__init__, 'num_envs')}), the learner "
                       "in `learner_seat` of each"),
            ("action space", f"`Discrete({n_actions})`"),
            ("observation", "(num_envs, L) int8, L below"),
            ("mask", f"`venv.action_masks()`, (num_envs, {n_actions})"),
            ("reward", f"the learner's seat's, {rewards}"),
        ]),  # fmt: skip
        card(f"Vector env: `{UnoVectorEnv.__name__}`", [
            ("import", f"`from uno_env.vector import {UnoVectorEnv.__name__}`"),
            ("agents", f"`learner_seats` of `num_envs` games (default `{vector_seats}`: self-play), `opponents` in "
                       "the others"),
            ("action space", f"one id in 0..{n_actions - 1} per game: `actions` of shape (num_envs,)"),
            ("observation", "(num_envs, L) int8, L below (`device=\"cuda\"`: every game on the GPU)"),
            ("mask", f"(num_envs, {n_actions}) int8, returned with the observations"),
            ("reward", f"(num_envs, N) float, per seat; {rewards}"),
        ]),  # fmt: skip
    ]
    every = (f"Every face takes `variant=` ({', '.join(f'`{v}`' for v in VARIANTS)}), `num_players=` ({low} to "
             f"{high}), `episode=` ({' or '.join(f'`{e}`' for e in EPISODES)}: one hand, or a 500-point match), "
             "`observation=`, `reward=` and any rule option as a keyword.")
    lengths = ("**Observation length** (int8 values) by level and player count, the same for every variant and "
               "face:\n\n" + observation_table())  # fmt: skip
    return "\n\n".join([every, *cards, lengths])


if __name__ == "__main__":
    print(cards_markdown())
