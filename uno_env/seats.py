"""Seats: the agent protocol, the default random agent and the one batched loop that plays the agents' turns.

**An agent** (`Agent`) has an `observation` attribute naming the observation level it reads ("minimal",
"knowledge" or "seer") and a method ``act(observations, action_masks) -> actions`` taking int8 arrays of shape
(B, L) and (B, 77) and returning B legal action ids. It sees nothing but its observations. Two optional hooks:

- ``bind(spec, rules)``: called first (`bind`) with the `ObservationSpec` of its observations and the `RuleSet`;
- ``act_in_games(state, config, games, observations, action_masks)``: a search agent (`uno_env.agents.ismcts`)
  is given the engine state of the games it decides in, which it must read only through the engine's redeal
  of what its seat cannot see (`engine.resample_hidden`). `agent_actions` calls whichever the agent has.

**The seat loop** (`SeatLoop`) plays the agents' turns of a `GameBatch`. An assignment table names the agent at
each seat ((seats,) for every game alike, or (games, seats)), -1 for a seat no agent plays (a learner, a person):
the loop stops where a game waits on such a seat, or is over. Every round, each agent is asked once, for all
the games waiting on it, at its own observation level, in preallocated buffers (agents must not keep the arrays
they are given past `act`); its actions are checked before any is applied, and a refused one raises a one-line
IllegalActionError naming the agent, with nothing of its batch applied. The vector env (its opponents), the
arena (`play_games`), the screens (one decision at a time) and the conformance kit all play through it; an
`apply` hook lets a caller apply the actions its own way (collect rewards, reset ended games, deal new ones).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np
from numba import njit, prange

from . import actions as A
from . import engine as E
from . import observation as O
from . import validate as V
from .cards import NUM_KINDS
from .game import GameBatch, IllegalActionError
from .rewards import add_step_rewards

PARALLEL_MIN_BATCH = 512  # smaller batches run serially: waking threads costs more than it saves


# ------------------------------------------------------------------------------------------ the protocol


@runtime_checkable
class Agent(Protocol):
    """Picks one legal action per decision of a batch, from the observations alone."""

    #: the observation level the agent reads: "minimal", "knowledge" or "seer"
    observation: str

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """observations (B, L) int8 and action_masks (B, 77) int8 -> actions (B,) int64, each legal."""
        ...


def is_agent(candidate: Any) -> bool:
    """Whether `candidate` follows the protocol: a callable `act` and an `observation` level."""
    return callable(getattr(candidate, "act", None)) and getattr(candidate, "observation", None) in O.LEVELS


def bind(agent, spec, rules) -> None:
    """Tell an agent the game it plays, if it wants to know: `agent.bind(spec, rules)` is optional.

    `spec` is the `uno_env.observation.ObservationSpec` of its observations (field layout, player count),
    `rules` the `uno_env.RuleSet` (card points, colours): public facts, nothing hidden.
    """
    if hasattr(agent, "bind"):
        agent.bind(spec, rules)


def agent_actions(agent, s, cfg, games, observations, action_masks):
    """An agent's actions for `games` of the engine state `s`: a search agent (one with `act_in_games`, such as
    `uno_env.agents.ismcts`) reads the game through the engine's redeal of what its seat cannot see; any other
    agent reads its observations."""
    search = getattr(agent, "act_in_games", None)
    if search is not None:
        return search(s, cfg, games, observations, action_masks)
    return agent.act(observations, action_masks)


class RandomPlay:
    """Uniformly random legal play, reproducible for a seed: the faces' default opponents (`uno_env.agents.RandomAgent`
    is this agent under the registry's name `random`)."""

    observation = "minimal"
    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return A.random_legal_actions(action_masks, self.rng)

    def device_rule(self) -> DeviceRule:
        """The same choice on the GPU (from each game's own stream there, not this agent's generator)."""
        empty = np.zeros(NUM_KINDS)
        return DeviceRule(random_decide_row, (np.int64(0),), "minimal", empty, empty)


#: float64 work slots a device rule may use (`DeviceRule.decide`'s `work`), one set for each GPU thread
DEVICE_WORK_SIZE = 160


class DeviceRule(NamedTuple):
    """How an agent decides on the GPU (`UnoVectorEnv(device="cuda")`): `decide(row, mask, rng, off, n, points,
    counts, params, work, scores, hand_colors) -> action` is an njit function of one observation row, compiled
    into the device's step kernel and called once for each decision, with the game's own tie-break stream `rng` (a
    one-element uint64 array: `engine.uniform`) and the work arrays its thread gives it (`work`: DEVICE_WORK_SIZE
    float64s, `scores`: one an action, `hand_colors`: one int64 a colour). `params` is a tuple of numbers,
    `observation` the level it reads, `points` and `counts` the rule set's card points and copies (float64)."""

    decide: Any
    params: tuple
    observation: str
    points: np.ndarray
    counts: np.ndarray


def learner_seat_list(seats, num_players: int) -> np.ndarray:
    """The learner seats as the vector envs take them ("all", a seat, or a list of seats), sorted, each once."""
    n = num_players
    if isinstance(seats, str) and seats == "all":
        return np.arange(n)
    chosen = [seats] if isinstance(seats, (int, np.integer)) else seats
    if (
        not isinstance(chosen, (list, tuple, np.ndarray))
        or not len(chosen)
        or any(isinstance(x, bool) or not isinstance(x, (int, np.integer)) or not 0 <= x < n for x in chosen)
    ):
        raise ValueError(f"learner_seats must be 'all', a seat or a list of seats from 0 to {n - 1}, got {seats!r}")
    return np.array(sorted(set(int(x) for x in chosen)))


@njit(cache=True, nogil=True)
def random_decide_row(row, mask, rng, off, n, points, counts, params, work, scores, hand_colors):
    """`RandomPlay`'s choice on the GPU (`DeviceRule`): a uniformly random legal action, from the stream `rng`."""
    legal = 0
    for a in range(mask.shape[0]):
        legal += mask[a] != 0
    pick = np.int64(E.uniform(rng) * legal)
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            if pick == 0:
                return a
            pick -= 1
    return 0


_EITHER: dict[tuple[Any, Any], Any] = {}


def either(first: Any, second: Any) -> Any:
    """A `DeviceRule.decide` that decides by `first` when its params are (0, first's params, second's params) and
    by `second` when they are (1, ...): two rules in one compiled function (one per pair, made once)."""
    if (first, second) not in _EITHER:

        @njit(nogil=True)
        def decide(row, mask, rng, off, n, points, counts, params, work, scores, hand_colors):
            if params[0] == 0:
                return np.int64(first(row, mask, rng, off, n, points, counts, params[1], work, scores, hand_colors))
            return np.int64(second(row, mask, rng, off, n, points, counts, params[2], work, scores, hand_colors))

        _EITHER[first, second] = decide
    return _EITHER[first, second]


def shared_rules(rules: Sequence[DeviceRule]) -> list[DeviceRule]:
    """The same rules with one `decide` between them, so that one step kernel serves them all where each rule made
    the GPU compile a kernel of its own (`vector_cuda.share_kernel`): their distinct decide functions chained by
    `either`, each rule's params the path to its own branch (the other branches hold the first params seen for
    them, never read). Each rule decides as before."""
    decides = list(dict.fromkeys(rule.decide for rule in rules))
    if len(decides) == 1:
        return list(rules)
    seen = {decide: next(rule.params for rule in rules if rule.decide is decide) for decide in decides}
    shared = decides[-1]
    for decide in reversed(decides[:-1]):
        shared = either(decide, shared)
    last = len(decides) - 1

    def path(k: int, params: tuple, i: int = 0) -> tuple:
        """The params choosing branch k (whose own params are `params`) from link i of the chain on."""
        def own(j: int) -> tuple:
            return params if j == k else seen[decides[j]]

        return (np.int64(0 if k == i else 1), own(i), own(last) if i + 1 == last else path(k, params, i + 1))

    return [rule._replace(decide=shared, params=path(decides.index(rule.decide), rule.params)) for rule in rules]


# ------------------------------------------------------------------------------------------ the kernels


@njit(cache=True, nogil=True)
def illegal_flags(s, cfg, games, actions, flags):
    """flags[i] = 1 where actions[i] is not legal in game games[i]."""
    c = cfg[0]
    m = np.zeros(A.NUM_ACTIONS, np.uint8)
    for i in range(games.shape[0]):
        flags[i] = 0 if E.is_legal(s[games[i]], c, actions[i], m) else 1


ENDED_TERMINATED, ENDED_TRUNCATED = 1, 2


# What `settle_*` records for a game that ended in the step (one record per game of the batch).
RESULT_DTYPE = np.dtype(
    [
        ("ended", np.int8),  # 0, ENDED_TERMINATED or ENDED_TRUNCATED
        ("winner", np.int64),  # the (lowest) winning seat, -1 if truncated
        ("points", np.int64),  # points of the last round
        ("length", np.int64),  # decisions in the episode
        ("scores", np.int32, (E.MAX_PLAYERS,)),  # final match scores / tallies
        ("winners", np.int8, (E.MAX_PLAYERS,)),  # every winning seat (ties under penalty scoring)
    ],
    align=True,
)


@njit(cache=True, nogil=True)
def settle_game(st, c, g, action, kind, rewards, results, seeds, final_obs, final_seat, level, off):
    """Apply one action to game g; add the step's rewards; if the game ended, record it and reset it."""
    rounds_before = st.rounds
    E.step_game(st, c, action)
    add_step_rewards(st, c, kind, rounds_before, rewards[g])
    if st.done:
        result = results[g]
        result.ended = ENDED_TRUNCATED if st.truncated else ENDED_TERMINATED
        result.winner = -1
        for p in range(c.num_players - 1, -1, -1):
            if st.winners[p]:
                result.winner = p
        result.points = st.round_points
        result.length = st.steps
        O.copy_into(result.scores, 0, st.scores)
        O.copy_into(result.winners, 0, st.winners)
        O.encode(st, c, final_seat[g], level, off, final_obs[g])
        seeds[g] = E.next_episode_seed(seeds[g])
        E.reset_game(st, c, seeds[g])


@njit(cache=True, nogil=True)
def observe_game(st, c, level, off, obs, mask):
    O.encode(st, c, st.seat, level, off, obs)
    E.fill_mask(st, c, mask)
    return st.seat


@njit(cache=True, nogil=True)
def observe_serial(s, cfg, games, level, off, obs, masks, seats):
    """Row i: the observation and mask of the deciding seat of game games[i], and that seat."""
    c = cfg[0]
    for i in range(games.shape[0]):
        seats[i] = observe_game(s[games[i]], c, level, off, obs[i], masks[i])


@njit(cache=True, nogil=True, parallel=True)
def observe_parallel(s, cfg, games, level, off, obs, masks, seats):
    """`observe_serial` with the games spread over numba's threads."""
    for i in prange(games.shape[0]):
        c = cfg[0]
        seats[i] = observe_game(s[games[i]], c, level, off, obs[i], masks[i])


def observe_deciders(s, cfg, games, level, off, obs, masks, seats) -> None:
    """Serial or parallel `observe_*` by batch size."""
    kernel = observe_parallel if games.shape[0] >= PARALLEL_MIN_BATCH else observe_serial
    kernel(s, cfg, games, level, off, obs, masks, seats)


@njit(cache=True, nogil=True)
def step_games(s, cfg, games, actions):
    """Apply actions[i] to game games[i] (each checked legal before): the seat loop's default way to apply."""
    c = cfg[0]
    for i in range(games.shape[0]):
        E.step_game(s[games[i]], c, actions[i])


# ------------------------------------------------------------------------------------------ the loop

#: apply(games, actions): apply checked actions to those games of the loop's batch
Apply = Callable[[np.ndarray, np.ndarray], None]
#: on_actions(agent index, games, actions): told of every agent's checked actions before they are applied
OnActions = Callable[[int, np.ndarray, np.ndarray], None]


class SeatLoop:
    """Plays the agents' turns of `batch`, batched (see the module docstring).

    `agents` is a list; an assignment table holds indices into it. The same agent may be listed twice: each
    entry is asked on its own (the vector env lists its opponents per seat, the arena per name). `labels`
    name the entries in refusals (default: the agent's class). Each distinct agent is bound (`bind`) once,
    to its observation level's spec and the batch's rules."""

    def __init__(self, batch: GameBatch, agents: Sequence[Any], labels: Sequence[str] | None = None):
        self.batch = batch
        self.agents = list(agents)
        for index, agent in enumerate(self.agents):
            if not is_agent(agent):
                raise ValueError(
                    f"agent {index} ({type(agent).__name__}) is not an agent: it needs .act(observations, "
                    f"action_masks) and .observation in {O.LEVELS}"
                )
        self.labels = list(labels) if labels is not None else [type(agent).__name__ for agent in self.agents]
        if len(self.labels) != len(self.agents):
            raise ValueError(f"{len(self.labels)} labels for {len(self.agents)} agents")
        n = batch.num_players
        self.specs = {level: O.ObservationSpec(level, n) for level in {agent.observation for agent in self.agents}}
        bound: set[int] = set()
        for agent in self.agents:
            if id(agent) not in bound:
                bound.add(id(agent))
                bind(agent, self.specs[agent.observation], batch.rules)
        self._make_buffers()

    def _make_buffers(self) -> None:
        """Scratch space reused every round: observations per level, masks, seats, legality flags."""
        width = self.batch.batch_size
        self._observations = {level: np.empty((width, spec.size), np.int8) for level, spec in self.specs.items()}
        self._masks = np.empty((width, A.NUM_ACTIONS), np.int8)
        self._seats = np.empty(width, np.int64)
        self._flags = np.empty(width, np.int8)
        self._rows = np.arange(width)

    def __getstate__(self) -> dict[str, Any]:
        """Copies and pickles leave the scratch space out (made again)."""
        state = self.__dict__.copy()
        for name in ("_observations", "_masks", "_seats", "_flags", "_rows"):
            del state[name]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._make_buffers()

    def decide(self, index: int, games: np.ndarray) -> np.ndarray:
        """Agent `index`'s checked actions (int64) for `games` (int64 indices of games waiting on it), nothing
        applied: one decision step, for callers that apply actions themselves (a screen narrating each one).

        A malformed answer raises TypeError/ValueError, an illegal action IllegalActionError, each one line
        that starts with the agent's label."""
        agent = self.agents[index]
        spec = self.specs[agent.observation]
        k = games.shape[0]
        s, cfg = self.batch.state_array, self.batch.config_array
        observations, masks = self._observations[agent.observation][:k], self._masks[:k]
        observe_deciders(s, cfg, games, spec.index, spec.offsets, observations, masks, self._seats[:k])
        who = self.labels[index]
        actions = V.action_batch(agent_actions(agent, s, cfg, games, observations, masks), k, who=who, games=games)
        flags = self._flags[:k]
        illegal_flags(s, cfg, games, actions, flags)
        if flags.any():
            bad = int(np.flatnonzero(flags)[0])
            raise IllegalActionError(f"{who}: {self.batch.illegal_message(int(games[bad]), int(actions[bad]))}")
        return actions

    def play_round(
        self,
        assignment: np.ndarray,
        active: np.ndarray | None = None,
        *,
        apply: Apply | None = None,
        on_actions: OnActions | None = None,
    ) -> int:
        """One round: every game that waits on an agent (and is `active`, a bool per game, where given) gets
        that agent's action; the agents are asked in list order, each once. Returns the decisions played.

        Who waits on whom is read at the start of the round: a game that `apply` changes (a new deal) waits
        for the next round. `apply(games, actions)` applies them (default: `step_games`, which leaves a game
        over as it is); it may change `assignment` and `active` in place for the next round."""
        s = self.batch.state_array
        deciding = s["seat"].astype(np.int64)
        current = assignment[deciding] if assignment.ndim == 1 else assignment[self._rows, deciding]
        waiting = (current >= 0) & (s["done"] == 0)
        if active is not None:
            waiting &= active
        waiting = np.flatnonzero(waiting)
        if waiting.size == 0:
            return 0
        current = current[waiting]
        for index in range(len(self.agents)):
            games = waiting[current == index]
            if games.size == 0:
                continue
            actions = self.decide(index, games)
            if on_actions is not None:
                on_actions(index, games, actions)
            if apply is None:
                step_games(s, self.batch.config_array, games, actions)
            else:
                apply(games, actions)
        return int(waiting.size)

    def play(
        self,
        assignment: np.ndarray,
        active: np.ndarray | None = None,
        *,
        apply: Apply | None = None,
        on_actions: OnActions | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> int:
        """Rounds (`play_round`) until no game waits on an agent, or `stop()` (asked after each round) is true.
        Returns the decisions played."""
        played = 0
        while True:
            decisions = self.play_round(assignment, active, apply=apply, on_actions=on_actions)
            if decisions == 0:
                return played
            played += decisions
            if stop is not None and stop():
                return played
