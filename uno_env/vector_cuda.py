"""`UnoVectorEnv(..., device="cuda")`: the batched training env with every game on the GPU, one CUDA thread a game.

```python
venv = UnoVectorEnv("classic", num_players=2, num_envs=32768, learner_seats=[0], opponents=CounterAgent(),
                    device="cuda")
obs, masks = venv.reset(seed=0)               # torch tensors on the GPU: (B, L) int8, (B, 77) int8
obs, masks, rewards, terminated, truncated, info = venv.step(actions)   # actions: a (B,) tensor on the GPU
```

**One source of rules.** Nothing here restates a rule. The step kernel calls the engine's own functions
(`seats.settle_game`, which steps a game with `engine.step_game`, adds its rewards and resets it when it ends;
`seats.observe_game`, which encodes what the deciding seat sees and its legal actions): numba compiles an `njit`
function called from a CUDA kernel as device code, so the same Python source runs on the CPU cores and on the GPU.
The whole step of a game (the learner's action, the opponents' turns until a learner seat decides again, the
learner's next observation) is one function, `step_game_until_learner`, that this module runs as a CUDA kernel and,
for the equivalence tests, as a CPU loop.

**Opponents** decide on the device too, by their `device_rule()` (`uno_env.seats.DeviceRule`: random, naive,
greedy and counter have one), one rule for every opponent seat; or a policy network (`act_on_device`, as
`PolicyAgent`'s): the kernel then stops each game at the network's turn, the host's loop runs one forward pass for
all of them and launches the kernel again to resume them, until every game waits on a learner seat. A rule's ties
and random choices come from each game's own stream (seeded from the game's seed), not from the agent's generator:
the same choices as the agent makes on the CPU wherever it has one best action.

**Arrays.** The state and the rules keep their record layouts (`engine.STATE_DTYPE`, `CONFIG_DTYPE`), copied to the
device once. Observations, masks, rewards, seats and episode ends are torch tensors on the GPU when torch has CUDA
(shared with numba through `__cuda_array_interface__`, no copy), else numba device arrays (numba's CUDA simulator,
for the tests). Actions are read in place from a tensor or device array on the GPU (a host array is copied up).
A step moves nothing to the host but, with `check_actions` (the default), one number: how many actions were illegal,
so that an illegal action is refused before any game changes. A trainer whose actions come from masked logits turns
the check off, and then nothing crosses at all.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import cuda, njit

from . import actions as A
from . import engine as E
from . import observation as O
from . import validate as V
from .cards import NUM_COLORS
from .game import DEFAULT_MAX_STEPS, GameBatch, IllegalActionError
from .rewards import reward_kind_index
from .seats import (
    DEVICE_WORK_SIZE,
    ENDED_TERMINATED,
    ENDED_TRUNCATED,
    RESULT_DTYPE,
    DeviceRule,
    RandomPlay,
    learner_seat_list,
    observe_game,
    settle_game,
    shared_rules,
)

if not hasattr(np, "row_stack"):  # numba-cuda's CUDA target registers np.row_stack when it first compiles; numpy 2.5
    np.row_stack = np.vstack  # removed it
NUM_ACTIONS = A.NUM_ACTIONS  # a plain global: the size of a CUDA local array must be a constant the compiler sees
#: threads in a block of the step kernel
THREADS_PER_BLOCK = 128
#: the columns of `CudaVectorEnv.episodes`: the last episode result of each game (read where ended is not 0)
EPISODE_FIELDS = ("ended", "winner", "points", "length")
#: mixed into a game's seed to seed its opponents' stream, so the two streams differ
OPPONENT_STREAM = np.uint64(0xD1B54A32D192ED03)


#: what a launch of the step kernel does (its `mode`)
OBSERVE, ACT, RESUME = 0, 1, 2


@njit(cache=True, nogil=True, inline="always")
def step_game_until_learner(s, c, g, mode, actions, learner, kind, level, off, rule, network, opp_level, opp_off,
                            points, counts, params, opp_rng, opp_obs, opp_masks, waiting, scratch, rewards, results,
                            episodes, seeds, final_obs, final_seats, obs, masks, seats):  # fmt: skip
    """The whole step of game g. `mode` ACT: the learner's action actions[g] (OBSERVE: none, after a reset); then the
    opponents' turns until a learner seat decides; then that seat's observation and mask into obs[g] and masks[g].
    The opponents decide by `rule` (a `DeviceRule.decide`) or, with `network`, by a forward pass on the host's side:
    the game then stops with the opponent's observation and mask in opp_obs[g] and opp_masks[g] and waiting[g] = 1,
    and a launch in mode RESUME applies its action actions[g] and goes on. Rewards and episode ends as
    `seats.settle_game` records them (a game that ends is reset at once), summed over the launches of one step;
    episodes[g] = the results' (ended, winner, points, length), read where ended is not 0. `scratch` is the rule's
    work arrays (work, scores, hand_colors), one argument: a call of more than 30 arguments compiles to a call with
    *args (CPython's CALL_FUNCTION_EX), which numba cannot inline."""
    work, scores, hand_colors = scratch
    st = s[g]
    if mode == RESUME and waiting[g] == 0:
        return
    if mode != RESUME:
        for p in range(rewards.shape[1]):
            rewards[g, p] = 0.0
        results[g].ended = 0
        if mode == ACT:
            final_seats[g] = st.seat
    waiting[g] = 0
    action = actions[g] if mode != OBSERVE else np.int64(-1)
    while True:  # one call of settle_game in the loop: the compiled kernel holds one copy of the engine's step
        if action >= 0:
            settle_game(st, c, g, action, kind, rewards, results, seeds, final_obs, final_seats, level, off)
        deciding = learner[st.seat] != 0  # a learner seat: its observation, else the opponent's (one call site too)
        seat = observe_game(st, c, level if deciding else opp_level, off if deciding else opp_off,
                            obs[g] if deciding else opp_obs[g], masks[g] if deciding else opp_masks[g])  # fmt: skip
        if deciding:
            seats[g] = seat
            break
        if network:
            waiting[g] = 1
            return
        n = np.int64(c.num_players)
        action = np.int64(rule(opp_obs[g], opp_masks[g], opp_rng[g : g + 1], opp_off, n, points, counts, params,
                               work, scores, hand_colors))  # fmt: skip
    result = results[g]
    episodes[g, 0] = result.ended
    episodes[g, 1] = result.winner
    episodes[g, 2] = result.points
    episodes[g, 3] = result.length


def cpu_steps(rule):
    """`step_game_until_learner` over every game as a CPU loop, for `rule`: the reference the device's kernel is
    tested against (the same source, compiled for the other target)."""

    @njit(nogil=True)
    def steps(s, cfg, mode, actions, learner, kind, level, off, network, opp_level, opp_off, points, counts, params,
              opp_rng, opp_obs, opp_masks, waiting, rewards, results, episodes, seeds, final_obs, final_seats, obs,
              masks, seats):  # fmt: skip
        work = np.empty(DEVICE_WORK_SIZE)
        scores = np.empty(A.NUM_ACTIONS)
        hand_colors = np.empty(NUM_COLORS, np.int64)
        for g in range(s.shape[0]):
            step_game_until_learner(s, cfg[0], g, mode, actions, learner, kind, level, off, rule, network, opp_level,
                                    opp_off, points, counts, params, opp_rng, opp_obs, opp_masks, waiting,
                                    (work, scores, hand_colors), rewards, results, episodes, seeds, final_obs,
                                    final_seats, obs, masks, seats)  # fmt: skip

    return steps


_KERNELS: dict[Any, Any] = {}


@cuda.jit
def reset_kernel(s, cfg, seeds):
    """A new episode in every game, game g from seeds[g]."""
    g = cuda.grid(1)
    if g < s.shape[0]:
        E.reset_game(s[g], cfg[0], seeds[g])


@cuda.jit
def check_kernel(masks, actions, illegal):
    """illegal[0] += the number of actions that are not legal by their game's mask."""
    g = cuda.grid(1)
    if g < actions.shape[0]:
        a = actions[g]
        if a < 0 or a >= masks.shape[1] or masks[g, a] == 0:
            cuda.atomic.add(illegal, 0, 1)


def step_kernel(rule):
    """The step kernel for opponents deciding by `rule` (`step_game_until_learner` over the games, one thread a
    game), made once for each rule; `reset_kernel` and `check_kernel`, which no rule changes, serve every one."""
    if rule in _KERNELS:
        return _KERNELS[rule]

    @cuda.jit
    def kernel(s, cfg, mode, actions, learner, kind, level, off, network, opp_level, opp_off, points, counts, params,
               opp_rng, opp_obs, opp_masks, waiting, rewards, results, episodes, seeds, final_obs, final_seats, obs,
               masks, seats):  # fmt: skip
        g = cuda.grid(1)
        if g < s.shape[0]:
            work = cuda.local.array(DEVICE_WORK_SIZE, np.float64)
            scores = cuda.local.array(NUM_ACTIONS, np.float64)
            hand_colors = cuda.local.array(NUM_COLORS, np.int64)
            step_game_until_learner(s, cfg[0], g, mode, actions, learner, kind, level, off, rule, network, opp_level,
                                    opp_off, points, counts, params, opp_rng, opp_obs, opp_masks, waiting,
                                    (work, scores, hand_colors), rewards, results, episodes, seeds, final_obs,
                                    final_seats, obs, masks, seats)  # fmt: skip

    _KERNELS[rule] = kernel
    return kernel


def share_kernel(envs: list[CudaVectorEnv]) -> None:
    """One step kernel for device envs whose opponents decide by different rules (a league's groups): their rules
    become one `decide` (`seats.shared_rules`), compiled once where each rule compiled a kernel of its own (the
    compile is most of a GPU run's start: `benchmarks/cuda_compile.py`). Every game plays as before."""
    for env, rule in zip(envs, shared_rules([env.rule for env in envs]), strict=True):
        env.rule = rule
        env._step_kernel = step_kernel(rule.decide)


def opponent_streams(seeds: np.ndarray) -> np.ndarray:
    """Each game's opponent stream state, from its seed (a stream apart from the game's own)."""
    return seeds ^ OPPONENT_STREAM


class CudaVectorEnv:
    """B games on the GPU, stepped by one kernel a step; made by `UnoVectorEnv(..., device="cuda")` (see the
    module docstring). `reset` and `step` return what `UnoVectorEnv`'s do, as device arrays."""

    def __init__(self, variant: str = "classic", num_players: int = 2, num_envs: int = 256, *,
                 learner_seats: str | int | list[int] = "all", opponents: Any = None, observation: str = "knowledge",
                 episode: str = "round", reward: str = "win", max_steps: int = DEFAULT_MAX_STEPS,
                 check_actions: bool = True, **rule_options: Any):  # fmt: skip
        if not cuda.is_available():
            raise RuntimeError("UnoVectorEnv(device='cuda') needs a CUDA GPU (or NUMBA_ENABLE_CUDASIM=1 for numba's "
                               "simulator); none is available: use device='cpu'")  # fmt: skip
        num_envs = V.positive_int(num_envs, "num_envs")
        self.game = GameBatch(variant, num_players, num_envs, episode=episode, max_steps=max_steps, **rule_options)
        self.rules = self.game.rules
        self.num_envs, self.num_players = num_envs, self.game.num_players
        self.spec = O.ObservationSpec(observation, self.num_players)
        self.observation_level, self.observation_size = observation, self.spec.size
        self.action_names = self.game.action_names
        self.reward_kind = reward
        self._reward_kind = reward_kind_index(reward)
        self.learner_seats = learner_seat_list(learner_seats, self.num_players)
        if opponents is not None and hasattr(opponents, "bind"):
            opponents.bind(O.ObservationSpec(opponents.observation, self.num_players), self.rules)
        self.network = opponents if hasattr(opponents, "act_on_device") else None  # decides by forward passes
        self.rule = device_rule(opponents, self.learner_seats, self.num_players)
        self.opponent_spec = O.ObservationSpec(self.rule.observation, self.num_players)
        self.check_actions = bool(check_actions)
        self.on_torch = _torch_cuda() is not None  # the arrays are torch tensors (else numba's, the simulator's)
        self._allocate()
        self._ready = False

    def _allocate(self) -> None:
        b, n = self.num_envs, self.num_players
        learner = np.zeros(E.MAX_PLAYERS, np.int8)
        learner[self.learner_seats] = 1
        self._s = cuda.to_device(self.game.state_array)
        self._cfg = cuda.to_device(self.game.config_array)
        self._learner = cuda.to_device(learner)
        self._off = cuda.to_device(self.spec.offsets)
        self._opp_off = cuda.to_device(self.opponent_spec.offsets)
        self._points = cuda.to_device(np.asarray(self.rule.points, np.float64))
        self._counts = cuda.to_device(np.asarray(self.rule.counts, np.float64))
        self._results = cuda.to_device(np.zeros(b, RESULT_DTYPE))
        self._seeds = cuda.device_array(b, np.uint64)
        self._opp_rng = cuda.device_array(b, np.uint64)
        self._final_seats = cuda.device_array(b, np.int64)
        self._illegal = cuda.device_array(1, np.int64)
        self._no_actions = cuda.device_array(b, np.int64)
        self.obs = device_zeros((b, self.observation_size), np.int8)
        self.masks = device_zeros((b, A.NUM_ACTIONS), np.int8)
        self.rewards = device_zeros((b, n), np.float64)
        self.seats = device_zeros(b, np.int64)
        self.final_obs = device_zeros((b, self.observation_size), np.int8)
        self.episodes = device_zeros((b, len(EPISODE_FIELDS)), np.int64)
        self.opponent_obs = device_zeros((b, self.opponent_spec.size), np.int8)
        self.opponent_masks = device_zeros((b, A.NUM_ACTIONS), np.int8)
        self.opponent_waiting = device_zeros(b, np.int8)
        self._views = [as_numba(a) for a in (self.rewards, self.episodes, self.final_obs, self.obs, self.masks,
                                             self.seats, self.opponent_obs, self.opponent_masks,
                                             self.opponent_waiting)]  # fmt: skip
        self._step_kernel = step_kernel(self.rule.decide)
        self._blocks = (b + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK

    def _launch(self, actions, mode: int) -> None:
        self._step_kernel[self._blocks, THREADS_PER_BLOCK](*self.step_arguments(actions, mode))

    def step_arguments(self, actions, mode: int) -> tuple:
        """The step kernel's arguments for a launch in `mode` (OBSERVE, ACT or RESUME) with `actions`."""
        rewards, episodes, final_obs, obs, masks, seats, opp_obs, opp_masks, waiting = self._views
        return (self._s, self._cfg, mode, actions, self._learner, self._reward_kind, self.spec.index, self._off,
                self.network is not None, self.opponent_spec.index, self._opp_off, self._points, self._counts,
                self.rule.params, self._opp_rng, opp_obs, opp_masks, waiting, rewards, self._results, episodes,
                self._seeds, final_obs, self._final_seats, obs, masks, seats)  # fmt: skip

    def _play(self, actions, mode: int) -> None:
        """One launch; with a network opponent, then its forward passes and launches that resume the games waiting
        on it, until every game waits on a learner seat (each round asks the device whether any game waits)."""
        self._launch(actions, mode)
        while self.network is not None and self._any_waiting():
            self._launch(device_actions(self._network_actions(), self.num_envs), RESUME)

    def _any_waiting(self) -> bool:
        waiting = self.opponent_waiting
        return bool(waiting.any()) if hasattr(waiting, "__torch_function__") else bool(waiting.copy_to_host().any())

    def _network_actions(self):
        """The network opponent's actions for every game's opponent row (rows of games not waiting are ignored)."""
        obs, masks = self.opponent_obs, self.opponent_masks
        if not hasattr(obs, "__torch_function__"):  # numba's simulator: the rows through the host
            import torch

            obs, masks = torch.from_numpy(obs.copy_to_host()), torch.from_numpy(masks.copy_to_host())
        return self.network.act_on_device(obs, masks.bool()).long()

    def reset(self, seed: int | None = None):
        """New episodes in every game (game g from seed + g, as `UnoVectorEnv.reset`); returns the learners'
        observations and masks."""
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % 2**62)
        seeds = V.seeds(seed, self.num_envs, "seed")
        self._seeds.copy_to_device(seeds)
        self._opp_rng.copy_to_device(opponent_streams(seeds))
        self._final_seats.copy_to_device(np.full(self.num_envs, self.learner_seats[0], np.int64))
        reset_kernel[self._blocks, THREADS_PER_BLOCK](self._s, self._cfg, self._seeds)
        self._play(self._no_actions, OBSERVE)
        cuda.synchronize()
        self._ready = True
        return self.obs, self.masks

    def step(self, actions):
        """One action per game for its learner seat (a tensor or device array on the GPU, or a host array); returns
        obs, masks, rewards (B, N), terminated, truncated, info, as `UnoVectorEnv.step`, on the device. With
        `check_actions`, an illegal action raises IllegalActionError and no game changes."""
        if not self._ready:
            raise V.NotResetError("UnoVectorEnv.step() before reset(): call reset() first")
        actions = device_actions(actions, self.num_envs)
        if self.check_actions:
            self._check(actions)
        self._play(actions, ACT)
        return self.obs, self.masks, self.rewards, *self._ends(), self._info()

    def _check(self, actions) -> None:
        self._illegal.copy_to_device(np.zeros(1, np.int64))
        check_kernel[self._blocks, THREADS_PER_BLOCK](self._views[4], actions, self._illegal)
        illegal = int(self._illegal.copy_to_host()[0])
        if illegal:
            raise IllegalActionError(f"learner: {illegal} of {self.num_envs} actions are not legal in their games "
                                     "(each must be one whose mask entry is 1); no game changed")  # fmt: skip

    def _episodes(self):
        """The episode columns: a tensor view on the GPU with torch's CUDA, else a host copy (the simulator)."""
        return self.episodes if self.on_torch else self.episodes.copy_to_host()

    def _ends(self):
        ended = self._episodes()[:, 0]
        return ended == ENDED_TERMINATED, ended == ENDED_TRUNCATED

    def _info(self) -> dict[str, Any]:
        episodes = self._episodes()
        ended = episodes[:, 0] > 0
        return {
            "final_obs": self.final_obs,
            "_final_obs": ended,
            "episode": {name: episodes[:, i] for i, name in enumerate(EPISODE_FIELDS) if name != "ended"},
            "_episode": ended,
        }

    @staticmethod
    def opponent_streams(seeds: np.ndarray) -> np.ndarray:
        return opponent_streams(seeds)

    def state(self) -> np.ndarray:
        """Every game's state record, copied to the host (for tests and inspection)."""
        return self._s.copy_to_host()


def device_rule(opponents, learner_seats: np.ndarray, num_players: int) -> DeviceRule:
    """The `DeviceRule` every opponent seat plays by: the agent's `device_rule()`; random play when every seat is a
    learner's (the rule is then never called)."""
    if len(learner_seats) == num_players:
        return RandomPlay().device_rule()
    if hasattr(opponents, "act_on_device"):  # a network: the rule is never called, the level is the network's
        return RandomPlay().device_rule()._replace(observation=opponents.observation)
    if opponents is None or not hasattr(opponents, "device_rule"):
        raise ValueError("device='cuda' plays one agent in every opponent seat, by its device_rule() (random, naive, "
                         f"greedy, counter) or a policy network's act_on_device(); got {opponents!r}")  # fmt: skip
    return opponents.device_rule()


def _torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def device_zeros(shape, dtype):
    """A zeroed array on the GPU: a torch tensor when torch has CUDA, else a numba device array."""
    torch = _torch_cuda()
    if torch is not None:
        return torch.zeros(shape, dtype=getattr(torch, np.dtype(dtype).name), device="cuda")
    return cuda.to_device(np.zeros(shape, dtype))


def as_numba(array):
    """A numba view of a device array or a CUDA torch tensor (no copy)."""
    return cuda.as_cuda_array(array) if hasattr(array, "__torch_function__") else array


def device_actions(actions, num_envs: int):
    """The learners' actions as an int64 device array of num_envs entries: a tensor or device array on the GPU is
    read in place, a host array copied up."""
    if hasattr(actions, "__torch_function__"):
        actions = cuda.as_cuda_array(actions) if actions.is_cuda else actions.numpy()
    if isinstance(actions, np.ndarray | list | tuple):
        return cuda.to_device(V.action_batch(actions, num_envs, who="learner").astype(np.int64))
    if actions.shape != (num_envs,) or actions.dtype != np.int64:
        raise ValueError(f"actions on the device must be int64 of shape ({num_envs},), got {actions.dtype} "
                         f"{actions.shape}")  # fmt: skip
    return actions


def host(array) -> np.ndarray:
    """A device array, tensor or host array as a numpy array on the host."""
    if hasattr(array, "copy_to_host"):
        return array.copy_to_host()
    if hasattr(array, "__torch_function__"):
        return array.cpu().numpy()
    return np.asarray(array)
