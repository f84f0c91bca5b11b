"""Adapters for single-agent RL libraries, both views of `UnoVectorEnv` (one learner seat, opponents inside).

```python
from sb3_contrib import MaskablePPO
from uno_env.agents import RandomAgent  # any agent of the agent protocol
from uno_env.wrappers import UnoSB3VecEnv, UnoSingleAgentEnv

vec_env = UnoSB3VecEnv("classic", num_players=2, num_envs=256, opponents=RandomAgent(0))
model = MaskablePPO("MlpPolicy", vec_env).learn(100_000)      # masks come from vec_env.action_masks()

env = UnoSingleAgentEnv("classic", num_players=2)             # a gymnasium.Env; random opponents by default
env = gymnasium.make("uno_env/UnoSingleAgent-v0", variant="classic", num_players=2)  # the same, by its id
```

`UnoSB3VecEnv` is a Stable-Baselines3 `VecEnv` (hundreds of games in one process, no subprocesses):
rewards are the learner seat's (`rewards[:, seat]` of the vector env), `infos` carry
`terminal_observation`, `TimeLimit.truncated` and SB3's `episode` statistics (`r`, `l`) for finished games,
and `action_masks()` / `env_method("action_masks")` give the legal actions, as sb3-contrib's MaskablePPO
expects; an illegal action raises IllegalActionError. `UnoSingleAgentEnv` is one game as a
`gymnasium.Env` with an `action_masks()` method and the mask in `info["action_mask"]`; it passes
Gymnasium's and SB3's env checkers. `import uno_env` registers it with gymnasium as `uno_env/UnoSingleAgent-v0`
(its keyword arguments as `gymnasium.make`'s), so tools that build envs from an id (`gymnasium.make`,
`gymnasium.make_vec`, SB3's `make_vec_env`) reach it. It needs only gymnasium; `UnoSB3VecEnv` needs
Stable-Baselines3 (the `train` extra).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from . import actions as A
from . import validate as V
from .extras import missing_extra_base
from .seats import RandomPlay
from .validate import IllegalActionError
from .vector import UnoVectorEnv

try:  # Stable-Baselines3 (the train extra) only for UnoSB3VecEnv: UnoSingleAgentEnv, a plain gymnasium env, needs none
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv
except ModuleNotFoundError as error:
    VecEnv = missing_extra_base(error)  # UnoSB3VecEnv(...) then says which extra to install


def _spaces(venv: UnoVectorEnv) -> tuple[spaces.Box, spaces.Discrete]:
    return spaces.Box(-1, 127, (venv.observation_size,), np.int8), spaces.Discrete(A.NUM_ACTIONS)


def _default_opponents(opponents: Any, seed: int | None) -> Any:
    if opponents is not None:
        return opponents
    return RandomPlay(seed)


class UnoSB3VecEnv(VecEnv):
    """A Stable-Baselines3 VecEnv of `num_envs` games, the learner in `learner_seat` of each."""

    def __init__(
        self,
        variant: str = "classic",
        num_players: int = 2,
        num_envs: int = 256,
        *,
        learner_seat: int = 0,
        opponents: Any = None,
        seed: int | None = None,
        **env_options: Any,
    ):
        if seed is not None:
            seed = V.seed(seed)
        self.venv = UnoVectorEnv(
            variant,
            num_players,
            num_envs,
            learner_seats=[learner_seat],
            opponents=_default_opponents(opponents, seed),
            **env_options,
        )
        self.learner_seat = learner_seat
        self.render_mode = None  # no frames to render (VecEnv asks before it sets it, and warns when it is missing)
        observation_space, action_space = _spaces(self.venv)
        super().__init__(num_envs, observation_space, action_space)
        self._actions = np.zeros(num_envs, np.int64)
        self._episode_return = np.zeros(num_envs)
        self._episode_length = np.zeros(num_envs, np.int64)
        self._next_seed = seed

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else self._next_seed
        if seed is not None:
            seed = V.seed(seed)  # before anything changes: a refused seed (from `seed()`) leaves it all as it was
        obs, _ = self.venv.reset(seed=seed)
        self._reset_seeds()
        self._episode_return[:] = 0.0
        self._episode_length[:] = 0
        return obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        """One action id per game (shape (num_envs,), or (num_envs, 1)); checked here, applied by step_wait."""
        if isinstance(actions, np.ndarray) and actions.shape == (self.num_envs, 1):
            actions = actions[:, 0]
        self._actions = V.action_batch(actions, self.num_envs, who="learner")

    def step_wait(self):
        obs, _, rewards, terminated, truncated, info = self.venv.step(self._actions)
        reward = rewards[:, self.learner_seat].astype(np.float32)
        self._episode_return += reward
        self._episode_length += 1
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for g in np.flatnonzero(dones):
            infos[g] = {
                "terminal_observation": info["final_obs"][g].copy(),
                "TimeLimit.truncated": bool(truncated[g]),
                "episode": {"r": float(self._episode_return[g]), "l": int(self._episode_length[g])},
                "winner": int(info["episode"]["winner"][g]),
            }
        self._episode_return[dones] = 0.0
        self._episode_length[dones] = 0
        return obs.copy(), reward, dones, infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, 77) bool: the learner's legal actions in every game."""
        return self.venv.masks.astype(bool)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        if method_name != "action_masks":
            raise AttributeError(f"UnoSB3VecEnv has no per-env method {method_name!r} (only 'action_masks')")
        return list(self.action_masks()[self._get_indices(indices)])

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name)] * len(list(self._get_indices(indices)))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))

    def close(self) -> None:
        pass


ILLEGAL_ACTION_MODES = ("lose", "raise")


class UnoSingleAgentEnv(gymnasium.Env):
    """One game as a Gymnasium env: the learner in `learner_seat`, `opponents` (default random) elsewhere.

    `illegal_action="lose"` (default): an illegal action ends the episode with reward -1 and
    `info["illegal_action"]`, as PettingZoo's TerminateIllegalWrapper does; `"raise"`: IllegalActionError.
    `render_mode` "ansi" (text) or "rgb_array" (an (H, W, 3) uint8 picture) shows the table as the learner's seat
    sees it, as the AEC env does.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        variant: str = "classic",
        num_players: int = 2,
        *,
        learner_seat: int = 0,
        opponents: Any = None,
        illegal_action: str = "lose",
        render_mode: str | None = None,
        **env_options: Any,
    ):
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(
                f"illegal_action must be one of {', '.join(map(repr, ILLEGAL_ACTION_MODES))}, got {illegal_action!r}"
            )
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}")
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self._default_opponent = opponents is None
        self.venv = UnoVectorEnv(
            variant,
            num_players,
            1,
            learner_seats=[learner_seat],
            opponents=_default_opponents(opponents, None),
            **env_options,
        )
        self.learner_seat = learner_seat
        self.observation_space, self.action_space = _spaces(self.venv)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """A new episode (from `seed`, or the env's generator); a refused seed changes nothing."""
        if seed is not None:
            seed = V.seed(seed)
        generator, generator_seed = getattr(self, "_np_random", None), getattr(self, "_np_random_seed", None)
        saved = generator.bit_generator.state if generator is not None else None
        opponent_rngs = {seat: getattr(agent, "rng", None) for seat, agent in self.venv.opponents.items()}
        try:
            super().reset(seed=seed)
            if self._default_opponent and seed is not None:
                for agent in self.venv.opponents.values():
                    agent.rng = np.random.default_rng(seed)
            obs, masks = self.venv.reset(seed=int(self.np_random.integers(2**62)))
        except BaseException:  # an opponent refused in the deal's first turns: everything as it was
            self._np_random, self._np_random_seed = generator, generator_seed
            if generator is not None:
                generator.bit_generator.state = saved
            for seat, rng in opponent_rngs.items():
                if rng is not None:
                    self.venv.opponents[seat].rng = rng
            raise
        return obs[0].copy(), {"action_mask": masks[0].copy()}

    def step(self, action):
        """The learner's action (an id); see the class docstring for an illegal one. A float or string is refused
        (WrongTypeError) in both modes, and so is a step before reset()."""
        if not self.venv._ready:
            raise V.NotResetError("UnoSingleAgentEnv.step() before reset(): call reset() first")
        try:
            action = V.action_id(action)
            legal = bool(self.venv.masks[0, action])
        except IllegalActionError:  # an int outside the action ids
            legal = False
        if self.illegal_action == "lose" and not legal:
            # As PettingZoo's TerminateIllegalWrapper: the episode ends, the learner gets -1, nothing is applied.
            return (
                self.venv.obs[0].copy(),
                -1.0,
                True,
                False,
                {"action_mask": np.zeros(A.NUM_ACTIONS, np.int8), "illegal_action": True},
            )
        obs, masks, rewards, terminated, truncated, info = self.venv.step(np.array([action]))
        ended = bool(terminated[0] or truncated[0])
        observation = info["final_obs"][0].copy() if ended else obs[0].copy()
        step_info = {"action_mask": np.zeros(A.NUM_ACTIONS, np.int8) if ended else masks[0].copy()}
        return observation, float(rewards[0, self.learner_seat]), bool(terminated[0]), bool(truncated[0]), step_info

    def action_masks(self) -> np.ndarray:
        return self.venv.masks[0].astype(bool)

    def render(self) -> str | np.ndarray | None:
        """The table as the learner's seat sees it (`uno_env.render.table_view`): text ("ansi") or a picture
        ("rgb_array"); None without a render_mode."""
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            from .picture import picture

            return picture(self.venv.game, self.learner_seat)
        from .render import render_text

        return render_text(self.venv.game, self.learner_seat)
