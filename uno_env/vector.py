"""The batched training env: B games stepped by compiled code, observations and masks in preallocated arrays.

```python
from uno_env.vector import UnoVectorEnv
from uno_env.agents import RandomAgent

venv = UnoVectorEnv("unocorns", num_players=4, num_envs=4096, learner_seats=[0], opponents=RandomAgent(1))
obs, masks = venv.reset(seed=0)                  # (B, L) int8, (B, 77) int8: each game's learner decision
obs, masks, rewards, terminated, truncated, info = venv.step(actions)
```

**Seats.** `learner_seats` are played by the caller ("all" for self-play); every other seat is played by
`opponents`: one agent for all of them, or a dict seat -> agent (agents follow the protocol of
`uno_env.seats.Agent` and are called on batches). `step(actions)` applies one action per game (to the seat
in `venv.seats`), then lets the opponents play, batched by the seat loop (`uno_env.seats.SeatLoop`), until every
game waits on a learner seat again. A step
is all or nothing: the learners' actions are checked before any is applied, each opponent's before it is
applied, and an opponent's refused action (or an exception from it) undoes the step: every game, seed, reward
and result is left as it was before it.

**Rewards** are per seat: `rewards[g, s]` is what seat s earned in game g during this step (see
`uno_env.rewards`). Crediting it to seat s's latest decision in that game gives every decision the reward
its seat earns by its next decision or the game's end: nothing lost, nothing credited to the wrong seat.
With one learner seat, `rewards[:, seat]` is the learner's reward for the action it just took.

**Episodes.** A finished game is reset at once (same step) from its own next seed
(`engine.next_episode_seed`), so game g depends only on `reset(seed=S)` and its actions: it deals the game
that `raw_env.reset(seed=S + g)` deals. `terminated`/`truncated` mark games that ended in this step;
`info["final_obs"]` holds the ended game's last observation for the seat that acted last in that slot,
and `info["episode"]` its statistics (`winner`: the winning seat or -1, `points`: the last round's points,
`length`: decisions), each with a `_final_obs` / `_episode` mask, as Gymnasium's vector envs do.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

import numpy as np
from numba import njit, prange

from . import actions as A
from . import engine as E
from . import observation as O
from . import validate as V
from .game import DEFAULT_MAX_STEPS, GameBatch, IllegalActionError
from .rewards import reward_kind_index
from .seats import (  # noqa: F401  (agent_actions, illegal_flags, observe_*: re-exported, as before seats.py)
    ENDED_TERMINATED,
    ENDED_TRUNCATED,
    PARALLEL_MIN_BATCH,
    RESULT_DTYPE,
    SeatLoop,
    agent_actions,
    illegal_flags,
    is_agent,
    learner_seat_list,
    observe_deciders,
    observe_parallel,
    observe_serial,
    settle_game,
)


@njit(cache=True, nogil=True)
def settle_serial(s, cfg, games, actions, kind, rewards, results, seeds, final_obs, final_seat, level, off):
    """Apply actions[i] to game games[i] (see `settle_game`), one game after another."""
    c = cfg[0]
    for i in range(games.shape[0]):
        g = games[i]
        settle_game(s[g], c, g, actions[i], kind, rewards, results, seeds, final_obs, final_seat, level, off)


@njit(cache=True, nogil=True, parallel=True)
def settle_parallel(s, cfg, games, actions, kind, rewards, results, seeds, final_obs, final_seat, level, off):
    """`settle_serial` with the games spread over numba's threads."""
    for i in prange(games.shape[0]):
        c = cfg[0]
        g = games[i]
        settle_game(s[g], c, g, actions[i], kind, rewards, results, seeds, final_obs, final_seat, level, off)


def settle(s, cfg, games, actions, kind, rewards, results, seeds, final_obs, final_seat, spec) -> None:
    """Serial or parallel `settle_*` by batch size."""
    kernel = settle_parallel if games.shape[0] >= PARALLEL_MIN_BATCH else settle_serial
    kernel(s, cfg, games, actions, kind, rewards, results, seeds, final_obs, final_seat, spec.index, spec.offsets)


def changing_byte_ranges(num_players: int, deck_size: int, gap: int = 64) -> list[tuple[int, int]]:
    """The byte ranges of a game's state record (`engine.STATE_DTYPE`) that a step can change: all of it but the
    pile entries at or past the deck size and the per-seat rows of the seats past `num_players` (no card is ever
    past the deck's size in a pile; the rows of absent seats keep what the game's first reset put there).
    Ranges less than `gap` bytes apart are merged: a few more bytes copied in fewer runs."""
    dtype = E.STATE_DTYPE
    ranges = []
    for name in dtype.names:
        field, offset = dtype.fields[name][:2]
        shape, strides = field.shape, np.empty(field.shape, field.base).strides
        keep = [
            deck_size if (axis == 0 and size == E.MAX_DECK) else num_players if (axis < 2 and size == E.MAX_PLAYERS)
            else size
            for axis, size in enumerate(shape)
        ]  # fmt: skip
        trimmed = [axis for axis in range(len(shape)) if keep[axis] != shape[axis]]
        if not trimmed:
            ranges.append((offset, offset + field.itemsize))
            continue
        last = trimmed[-1]  # below it every row is kept whole: one run per index of the axes above it
        for index in np.ndindex(*keep[:last]):
            start = offset + sum(i * stride for i, stride in zip(index, strides, strict=False))
            ranges.append((start, start + keep[last] * strides[last]))
    merged: list[list[int]] = []
    for start, stop in sorted(ranges):
        if merged and start - merged[-1][1] <= gap:
            merged[-1][1] = max(merged[-1][1], stop)
        else:
            merged.append([start, stop])
    return [(start, stop) for start, stop in merged]


@njit(cache=True, nogil=True)
def reset_all(s, cfg, seeds):
    c = cfg[0]
    for g in range(s.shape[0]):
        E.reset_game(s[g], c, seeds[g])


class UnoVectorEnv:
    """B games for training, stepped by compiled code; see the module docstring. `device="cuda"` makes the same env
    with every game on the GPU instead (`uno_env.vector_cuda.CudaVectorEnv`)."""

    def __new__(cls, *args: Any, device: str = "cpu", **kwargs: Any):
        if device == "cuda":
            from .vector_cuda import CudaVectorEnv  # imported here: it builds on this module

            return CudaVectorEnv(*args, **kwargs)
        if device != "cpu":
            raise ValueError(f"device must be 'cpu' or 'cuda', got {device!r}")
        return super().__new__(cls)

    def __init__(
        self,
        variant: str = "classic",
        num_players: int = 2,
        num_envs: int = 256,
        *,
        learner_seats: str | int | list[int] = "all",
        opponents: Any = None,
        observation: str = "knowledge",
        episode: str = "round",
        reward: str = "win",
        max_steps: int = DEFAULT_MAX_STEPS,
        device: str = "cpu",
        **rule_options: Any,
    ):
        num_envs = V.positive_int(num_envs, "num_envs")
        self.game = GameBatch(variant, num_players, num_envs, episode=episode, max_steps=max_steps, **rule_options)
        self.rules = self.game.rules
        self.num_envs = num_envs
        self.num_players = num_players = self.game.num_players
        self.spec = O.ObservationSpec(observation, num_players)
        self.observation_level = observation
        self.observation_layout = self.spec.layout
        self.observation_size = self.spec.size
        self.reward_kind = reward
        self._reward_kind = reward_kind_index(reward)
        self.learner_seats = learner_seat_list(learner_seats, num_players)
        self.is_learner = np.zeros(num_players, np.bool_)
        self.is_learner[self.learner_seats] = True
        self.action_names = self.game.action_names

        b, n = num_envs, num_players
        self._all = np.arange(b, dtype=np.int64)
        self.obs = np.zeros((b, self.observation_size), np.int8)
        self.masks = np.zeros((b, A.NUM_ACTIONS), np.int8)
        self._legal = np.zeros((b, A.NUM_ACTIONS), np.int8)
        self.seats = np.zeros(b, np.int64)
        self.rewards = np.zeros((b, n), np.float64)
        self.results = np.zeros(b, RESULT_DTYPE).view(np.recarray)  # episodes that ended in the last step
        self._bind_views()
        self._final_obs = np.zeros((b, self.observation_size), np.int8)
        self._final_obs_work = np.zeros((b, self.observation_size), np.int8)  # kept once the step goes through
        self._flags = np.zeros(b, np.int8)
        self.seeds = np.zeros(b, np.uint64)  # each game's current episode seed
        self._observe_specs: dict[str, O.ObservationSpec] = {}  # levels read by observe(), built once each
        self._observe_masks = np.zeros((b, A.NUM_ACTIONS), np.int8)  # observe()'s scratch: masks and seats
        self._observe_seats = np.zeros(b, np.int64)
        self._saved: list[np.ndarray] = []  # seeds, rewards, results saved by _all_or_nothing
        self._step_saves: list | None = None  # (byte columns, saved bytes) of the records, made at the first step
        self._ready = False  # reset() has run
        self.set_opponents(opponents)

    def _bind_views(self) -> None:
        """(Re)make the views of the game's state and of `results` (after unpickling: they share their memory)."""
        self._s, self._cfg = self.game.state_array, self.game.config_array
        self._results_array = self.results.view(np.ndarray)  # for the kernels
        self._ended = self.results.ended  # a view of the field

    def __getstate__(self) -> dict[str, Any]:
        """Pickling and deep copies keep each array once (views are made again) and no scratch space: a copy goes
        on exactly as the original (the opponents are copied with it, their generators included)."""
        state = self.__dict__.copy()
        for view in ("_s", "_cfg", "_results_array", "_ended"):
            del state[view]
        state["_saved"], state["_step_saves"] = [], None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._bind_views()

    def set_opponents(self, opponents) -> None:
        """Seat other opponents (an agent, or a dict seat -> agent) from the next decision on; games go on."""
        self.opponents = self._parse_opponents(opponents)
        seats = list(self.opponents)
        # The seat loop asks each opponent seat on its own (an agent seated twice is asked once per seat).
        self._opponent_of_seat = np.full(self.num_players, -1, np.int64)  # -1: a learner seat, where play stops
        self._opponent_of_seat[seats] = np.arange(len(seats))
        labels = [f"opponent at seat {seat} ({type(self.opponents[seat]).__name__})" for seat in seats]
        self._seat_loop = SeatLoop(self.game, [self.opponents[seat] for seat in seats], labels)
        self._opponent_specs = self._seat_loop.specs

    # ------------------------------------------------------------------ setup
    def _parse_opponents(self, opponents) -> dict[int, Any]:
        others = [p for p in range(self.num_players) if not self.is_learner[p]]
        if not others:
            return {}
        if opponents is None:
            raise ValueError(
                f"seats {others} are not learner seats: give `opponents` (an agent, or a dict seat -> agent)"
            )
        table = opponents if isinstance(opponents, dict) else dict.fromkeys(others, opponents)
        missing = [p for p in others if p not in table]
        if missing:
            raise ValueError(f"no opponent given for seat(s) {missing}")
        for seat, agent in table.items():
            if not is_agent(agent):
                raise ValueError(
                    f"the opponent for seat {seat} is not an agent: it needs .act(observations, action_masks) and "
                    f".observation in {O.LEVELS}"
                )
        return {p: table[p] for p in others}

    # ------------------------------------------------------------------ episodes
    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """New episodes in every game (game g from seed + g, modulo 2**64); returns the learners' observations and
        masks. A refused seed, or an opponent's refused action, changes nothing."""
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % 2**62)
        seeds = V.seeds(seed, self.num_envs, "seed")
        with self._all_or_nothing(whole_records=True):
            self.seeds[:] = seeds
            reset_all(self._s, self._cfg, self.seeds)
            self.rewards[:] = 0.0
            self._ended[:] = 0
            self._play_opponents()
        self._commit_final_obs()
        self._observe_learners()
        self._ready = True
        return self.obs, self.masks

    def step(self, actions: np.ndarray):
        """One action per game for its learner seat; returns obs, masks, rewards (B, N), terminated,
        truncated, info. An illegal action (the learners' or an opponent's) raises IllegalActionError and changes
        nothing: the learners' actions are checked before any is applied, each opponent's before it is applied,
        and a step refused after the learners' actions were applied is undone."""
        if not self._ready:
            raise V.NotResetError("UnoVectorEnv.step() before reset(): call reset() first")
        actions = V.action_batch(actions, self.num_envs, who="learner")
        if not self._legal[self._all, actions].all():
            self._check_legal(self._all, actions, "learner")  # names the first illegal action
        with self._all_or_nothing():
            self.rewards[:] = 0.0
            self._ended[:] = 0
            final_seats = self.seats.copy()
            self._settle(self._all, actions, final_seats)
            self._play_opponents(final_seats)
        self._commit_final_obs()
        self._observe_learners()
        terminated = self._ended == ENDED_TERMINATED
        truncated = self._ended == ENDED_TRUNCATED
        return self.obs, self.masks, self.rewards, terminated, truncated, self._info()

    @contextmanager
    def _all_or_nothing(self, whole_records: bool = False):
        """Run the body; if it raises, put back every game, seed, reward and result as they were before it.

        Once the learners' actions are applied only the opponents (agents: any code) can fail, so without
        opponents nothing is saved. With them a step saves the bytes of each game's record that a step can change
        (`changing_byte_ranges`: about 1 KB of the 8 KB record for 2 players, under a millisecond for 4096
        games); a reset, rare, saves the whole records."""
        if not self.opponents:
            yield
            return
        records = self._s.view(np.uint8).reshape(self.num_envs, -1)
        if whole_records:
            parts = [(slice(None), records.copy())]
        else:
            if self._step_saves is None:
                ranges = changing_byte_ranges(self.num_players, self.rules.deck_size)
                self._step_saves = [(slice(a, b), np.empty((self.num_envs, b - a), np.uint8)) for a, b in ranges]
            parts = self._step_saves
            for columns, saved in parts:
                np.copyto(saved, records[:, columns])
        others = [self.seeds, self.rewards, self._results_array.view(np.uint8)]
        if not self._saved:
            self._saved = [np.empty_like(array) for array in others]
        for saved, array in zip(self._saved, others, strict=True):
            np.copyto(saved, array)
        try:
            yield
        except BaseException:
            for columns, saved in parts:
                records[:, columns] = saved
            for saved, array in zip(self._saved, others, strict=True):
                np.copyto(array, saved)
            raise

    def _commit_final_obs(self) -> None:
        """The final observations of the games that ended in this step, now that it went through."""
        ended = self._ended > 0
        if ended.any():
            self._final_obs[ended] = self._final_obs_work[ended]

    def _settle(self, games, actions, final_seats) -> None:
        settle(
            self._s, self._cfg, games, actions, self._reward_kind, self.rewards, self._results_array, self.seeds,
            self._final_obs_work, final_seats, self.spec,
        )  # fmt: skip

    def _check_legal(self, games, actions, who) -> None:
        flags = self._flags[: games.shape[0]]
        illegal_flags(self._s, self._cfg, games, actions, flags)
        bad = np.flatnonzero(flags)
        if bad.size:
            message = self.game.illegal_message(int(games[bad[0]]), int(actions[bad[0]]))
            raise IllegalActionError(f"{who}: {message}")

    def _play_opponents(self, final_seats: np.ndarray | None = None) -> None:
        """Let the opponents play, batched (`uno_env.seats.SeatLoop`), until every game waits on a learner seat.
        An opponent's actions are checked before any is applied; the caller undoes the step if one is refused."""
        if not self.opponents:
            return
        if final_seats is None:
            final_seats = np.full(self.num_envs, self.learner_seats[0])

        def apply(games: np.ndarray, actions: np.ndarray) -> None:
            self._settle(games, actions, final_seats)

        self._seat_loop.play(self._opponent_of_seat, apply=apply)

    def _observe_learners(self) -> None:
        spec = self.spec
        observe_deciders(self._s, self._cfg, self._all, spec.index, spec.offsets, self.obs, self.masks, self.seats)
        np.copyto(self._legal, self.masks)  # what step() checks actions against, safe from callers' writes

    def observe(self, level: str) -> np.ndarray:
        """The deciding seats' observations at another level, rows as in `obs` (a new array).

        For training only: `seer` rows show every hand, which is what a privileged critic (a value function
        that sees the whole game while the policy sees its own observation) learns from."""
        if level not in self._observe_specs:
            self._observe_specs[level] = O.ObservationSpec(level, self.num_players)  # a clear error for a bad level
        spec = self._observe_specs[level]
        obs = np.empty((self.num_envs, spec.size), np.int8)
        observe_deciders(
            self._s, self._cfg, self._all, spec.index, spec.offsets, obs, self._observe_masks, self._observe_seats
        )
        return obs

    def _info(self) -> dict[str, Any]:
        ended = self._ended > 0
        return {
            "final_obs": self._final_obs,
            "_final_obs": ended,
            "episode": {
                "winner": self.results.winner,
                "points": self.results.points,
                "length": self.results.length,
                "scores": self.results.scores[:, : self.num_players],
            },
            "_episode": ended,
        }

    # ------------------------------------------------------------------ reading
    def unflatten(self, observations: np.ndarray) -> dict[str, np.ndarray]:
        """Named fields of observation rows (views), by `observation_layout`."""
        return self.spec.unflatten(observations)

    def describe(self, g: int) -> dict[str, Any]:
        """The engine's description of game g (every card shown: for tests and debugging)."""
        return self.game.describe(g)
