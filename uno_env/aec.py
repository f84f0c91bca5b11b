"""# UNO (uno_v0): a PettingZoo AEC environment

```python
import uno_env

env = uno_env.env(variant="unocorns", num_players=4)          # or pettingzoo.make("aec", "uno_env/uno_v0")
env.reset(seed=42)
for agent in env.agent_iter():
    obs, reward, termination, truncation, info = env.last()
    action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
    env.step(action)
```

| | |
|---|---|
| Agents | `player_0` .. `player_{N-1}`; agent i sits in seat i, N = 2..10 |
| Actions | `Discrete(77)`: the engine's universal layout (`uno_env.actions`); names in `env.unwrapped.action_names` |
| Observations | `{"observation": Box(-1, 127, (L,), int8), "action_mask": Box(0, 1, (77,), int8)}` |
| Import | `uno_env.env(...)`, `uno_env.raw_env(...)`, `from uno_env import uno_v0` |

Arguments: `variant` (which preset of rules: classic, unocorns, monster_high, emoji, swap), `num_players`, `render_mode`
(None, "ansi", "human", "rgb_array": a (640, 960, 3) uint8 picture of the table as the deciding seat sees it),
`observation` ("minimal", "knowledge", "belief", "seer"), `episode` ("round" or "match"),
`max_steps` (decisions before truncation), `reward` ("win" or "points"), and any rule option of
`uno_env.rules` as a keyword (`stack_draw_two=True`, `uno_call="explicit"`, ...).

**Turns.** A turn can take several decisions (a colour after a wild, the Narwhal guesses, the UNO call):
`agent_selection` then stays with the same agent. The action mask is all zeros for every agent but the one
deciding.

**Observation.** The layout is the table in `uno_env.observation`, relative to the observer;
`env.unwrapped.observation_layout` maps field name -> (slice, shape) and `env.unwrapped.unflatten(obs)`
splits a vector into named fields. The levels follow Hanabi research: `minimal` (what the seat sees
now), `knowledge` (plus what a careful player remembers: the cards played since the last reshuffle, its
wrong Narwhal guesses, cards it saw in others' hands, everyone's last action, the colour before a Wild
Draw Four) and `seer` (everything, own forehead cards included: for debugging and upper bounds only).

**Rewards.** `reward="win"`: when the episode ends the winner gets +1 and every other player -1/(N-1)
(winners tied under penalty scoring share +1; the others share -1; if every player ties, all get 0):
zero-sum. In a match episode this
comes at the match's end. `reward="points"`: at every round's end the round's winner gets its points /
target_score and every other player -points / target_score / (N-1). A step limit truncates
(`truncations`), with reward 0.

**Seeds.** `reset(seed=s)` deals the game a vector env deals with seed s; a `reset()` without a seed goes on
with the next episode's seed, as a vector env does when it resets a finished game.

**Scenarios.** `reset(seed=..., options={"deal": {...}})` deals a scenario as in `uno_env.game`.
`env.unwrapped.describe()` is the engine's description of the game (it shows hidden cards: for tests and
debugging, not for agents). `infos` are empty: nothing secret travels there.

**Refusals and copies.** A bad seed, deal or action (a float, a string, an id outside 0..76, an illegal one)
raises a ValueError or TypeError before anything changes (see `uno_env.validate`). `pickle` and `copy.deepcopy`
of an env in mid-game give one that goes on exactly as the original: game, seeds, AEC bookkeeping, the spaces'
generators.

**Wrappers.** `env()` is `raw_env` inside PettingZoo's TerminateIllegalWrapper (an illegal move ends the
game with -1 for the mover), AssertOutOfBoundsWrapper and OrderEnforcingWrapper. `raw_env` itself refuses
an illegal action with the engine's `IllegalActionError` and leaves the game as it was.

**Version history.** The env's version (`uno_v0`) goes up only when its behaviour changes: the rules it
plays, its observations, actions, rewards or seeding; a new option with a default that keeps the old
behaviour, a refactor or a faster engine keeps the version. v0: first release (uno-env 0.1.0; unchanged in
0.2.0 and 0.3.0).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import actions as A
from . import engine as E
from . import observation as O
from . import validate as V
from .game import DEFAULT_MAX_STEPS, GameBatch, IllegalActionError
from .picture import picture
from .render import render_text
from .rewards import reward_kind_index, step_rewards_one

# A raw_env's attributes that are views of its game, made again when a copy is unpickled.
GAME_VIEWS = ("_state", "_config")

def env(**kwargs: Any) -> AECEnv:
    """The UNO AEC env inside PettingZoo's standard wrappers (see the module docstring)."""
    environment = raw_env(**kwargs)
    environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    return wrappers.OrderEnforcingWrapper(environment)


class raw_env(AECEnv, EzPickle):
    """UNO as a PettingZoo AEC env: a view of the engine with a batch of one game."""

    metadata = {
        "name": "uno_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        variant: str = "classic",
        num_players: int = 2,
        render_mode: str | None = None,
        observation: str = "knowledge",
        episode: str = "round",
        max_steps: int = DEFAULT_MAX_STEPS,
        reward: str = "win",
        **rule_options: Any,
    ):
        EzPickle.__init__(
            self, variant, num_players, render_mode, observation, episode, max_steps, reward, **rule_options
        )
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None, 'human', 'ansi' or 'rgb_array', got {render_mode!r}")
        self._reward_kind = reward_kind_index(reward)
        self._bind_game(GameBatch(variant, num_players, 1, episode=episode, max_steps=max_steps, **rule_options))
        num_players = self.num_players
        self._step_rewards = np.zeros(num_players)
        self.render_mode = render_mode
        self.reward_kind = reward
        self.spec = O.ObservationSpec(observation, num_players)
        self.observation_level = observation
        self.observation_layout = self.spec.layout
        size = self.spec.size
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agents = self.possible_agents[:]
        self._seat_of = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.action_spaces = {a: spaces.Discrete(A.NUM_ACTIONS) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(-1, 127, (size,), np.int8),
                    "action_mask": spaces.Box(0, 1, (A.NUM_ACTIONS,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._last_seed = None
        self._rounds_seen = 0
        self._rewards_given = False
        self.agent_selection = self.possible_agents[0]

    def _bind_game(self, game: GameBatch) -> None:
        """Play `game` (a batch of one): the env's views of it."""
        self.game = game
        self.rules = game.rules
        self.num_players = game.num_players
        self._state, self._config = game.state_array, game.config_array
        self.action_names = game.action_names

    def __getstate__(self) -> dict[str, Any]:
        """Pickling and deep copies keep the constructor's arguments (EzPickle) and everything an episode changes:
        the game (its state, seeds and generator), the AEC bookkeeping (agents, agent_selection, rewards,
        _cumulative_rewards, terminations, truncations, infos, the dead agents' order), the seed sequence and the
        spaces' generators. A copy made in mid-game goes on exactly as the original."""
        state = EzPickle.__getstate__(self)
        arguments = set(state)
        state["_uno_episode"] = {
            name: value for name, value in self.__dict__.items() if name not in arguments and name not in GAME_VIEWS
        }
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        episode = state.pop("_uno_episode", None)
        EzPickle.__setstate__(self, state)  # a new env from the same arguments (checked again)...
        if episode is not None:  # ...then the episode it was in
            self.__dict__.update(episode)
            self._bind_game(self.game)

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episodes
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new episode (see Seeds and Scenarios in the module docstring); a refused seed or deal changes nothing."""
        if seed is not None:
            seed = V.seed(seed)
        if options is not None and not isinstance(options, dict):
            raise V.WrongTypeError(f"options must be a dict or None, got {type(options).__name__}")
        options = options or {}  # only "deal" is read; other keys are ignored, as PettingZoo expects
        if seed is not None:
            game_seed = seed  # the same seed deals the same game as game `seed` of a vector env
        elif self._last_seed is None:
            game_seed = int(np.random.SeedSequence().entropy % 2**63)
        else:
            game_seed = int(E.next_episode_seed(np.uint64(self._last_seed)))
        self.game.reset_game(0, game_seed, options.get("deal"))  # checks the deal before it changes anything
        self._last_seed = game_seed
        self._record_seed, self._record_deal = game_seed, copy.deepcopy(options.get("deal"))
        self._record_actions: list[int] = []  # every action applied since this reset, for `to_record`
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._rounds_seen = 0
        self._rewards_given = False
        self.agent_selection = self.possible_agents[int(self.game.state.seat[0])]
        if self.render_mode == "human":
            self.render()

    def step(self, action) -> None:
        """Apply `action` (an action id) for `agent_selection`; a refused action changes nothing."""
        if not hasattr(self, "terminations"):
            raise V.NotResetError("raw_env.step() before reset(): call reset() first")
        if not self.agents:
            raise IllegalActionError("the episode is over and every agent has left it: call reset() to play again")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        rounds_before = self._rounds_seen
        status = self.game.step_game(0, action)  # checks the action before it changes anything
        self._record_actions.append(int(action))
        self._cumulative_rewards[agent] = 0.0
        if self._rewards_given:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._rewards_given = False
        self._rounds_seen = int(status[E.STATUS_ROUNDS])
        if status[E.STATUS_DONE] or self._rounds_seen > rounds_before:
            step_rewards_one(self._state, self._config, 0, self._reward_kind, rounds_before, self._step_rewards)
            if self._step_rewards.any():
                for a in self.agents:
                    self.rewards[a] = float(self._step_rewards[self._seat_of[a]])
                self._rewards_given = True
        if status[E.STATUS_DONE]:
            if status[E.STATUS_TRUNCATED]:
                self.truncations = dict.fromkeys(self.agents, True)
            else:
                self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[status[E.STATUS_SEAT]]
        if self._rewards_given:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------------ observing
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat_of.get(agent)
        if seat is None:
            raise ValueError(f"unknown agent {agent!r}; the agents are {', '.join(self.possible_agents)}")
        observation, mask = self.game.observe(0, seat, self.spec.level)
        if self.terminations.get(agent) or self.truncations.get(agent):
            mask[:] = 0  # also after a wrapper ended the game early (an illegal move under env())
        return {"observation": observation, "action_mask": mask}

    def unflatten(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """Named fields of an observation vector (views), by `observation_layout`."""
        return self.spec.unflatten(observation)

    def action_id(self, name: str) -> int:
        """The action id of a name such as 'play R5', 'color blue', 'swap +2'."""
        return A.action_id(name, self.rules.colors)

    def describe(self) -> dict[str, Any]:
        """The engine's description of the game (all cards shown: for tests and debugging)."""
        return self.game.describe(0)

    # ------------------------------------------------------------------ records
    def to_record(self, *, agents: list[str] | None = None, details: list | None = None, meta=None) -> dict:
        """The current episode as a game record (`uno_env.records`), which `raw_env.from_record` replays."""
        from .records import make_record, result_of

        if not hasattr(self, "_record_actions"):
            raise V.NotResetError("raw_env.to_record() before reset(): call reset() first")
        return make_record(
            self.rules, self.num_players, self._record_actions, seed=self._record_seed, deal=self._record_deal,
            episode=self.game.episode, max_steps=int(self._config[0]["max_steps"]), agents=agents,
            details=details, result=result_of(self), meta=meta,
        )  # fmt: skip

    @classmethod
    def from_record(cls, record: dict, **kwargs: Any) -> raw_env:
        """A raw_env that played a record's game (checked first: every field, action and the result); `kwargs`
        are render_mode, observation and reward."""
        from .replay import replay

        replay(record)
        env = cls(record["variant"], record["num_players"], episode=record["episode"],
                  max_steps=record["max_steps"], **kwargs, **record["options"])  # fmt: skip
        env.reset(seed=record["seed"], options={"deal": record["deal"]} if record["deal"] is not None else None)
        for action in record["actions"]:
            env.step(action)
        return env

    # ------------------------------------------------------------------ rendering
    def render(self) -> str | np.ndarray | None:
        """The table as the deciding seat sees it: text ("ansi", "human") or an (H, W, 3) uint8 picture
        ("rgb_array")."""
        if self.render_mode is None:
            return None
        viewer = self._seat_of[self.agent_selection]
        if self.render_mode == "rgb_array":
            return picture(self.game, viewer)
        text = render_text(self.game, viewer, color=self.render_mode == "human")
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass
