"""Information-set Monte Carlo tree search (IS-MCTS) over the compiled engine: `ismcts` and the `seer` bound.

Each iteration redeals what the deciding seat cannot see (`engine.resample_hidden`: one deal it cannot tell
from the real one), walks a tree shared by all those deals, expands one node, plays the rest of the round out
with a rollout policy (`counter` for every seat, or uniformly random) and backs the result up: 1 to the round's
winner, 0 to the others. A node is an information set of the seat to move: its observation (the
`knowledge` level) and the decision count. The other seats are either played by the rollout policy inside
the tree too (`others="model"`, the default: the tree holds only the searching seat's decisions, a search for
the best reply to that model) or searched as well (`others="search"`: every seat's choices are judged from
what that seat sees, as in Cowling, Powley and Whitehouse's multi-observer IS-MCTS, and as OpenSpiel's
IS-MCTS bot does). Actions are chosen by UCB1 with availability counts (an action is only counted where it
was legal); an untried action is tried first. Below the root the choice widens progressively: first only the
rollout policy's own choice, then one more action each time the node's visits pass `widening` * k**2 (k
actions so far), so that the few visits a deep node gets are not spent trying poor moves, which would make
every line that leads to more of the seat's own decisions look worse than it is.

The root (`root="paired"`, the default) plays every legal action once in each redealt world, with the same
cards and the same future chance, and keeps the rollout policy's choice unless another action won at least
`z` standard errors more of the same worlds (a paired comparison: far less noisy than comparing actions
tried in different worlds). With `root="ucb"` the root is chosen by UCB1 like any node, and its most visited
action is played.

A Wild Draw Four's challenge is not searched: the redeal is uniform over the hands the seat cannot see, but
players rarely play a Wild Draw Four they may not, so in redealt worlds most would be guilty and the search
would challenge far too often. The rollout policy decides it (`counter` weighs the chance of a bluff).

`seer` is the same search with every hand visible: only the draw pile's order and the future chance are
redealt (`engine.resample_draw_pile`). It cheats on purpose: its win rate bounds what search of this kind
can reach with every card known, for measuring how much skill the game holds (`benchmarks/skill.py`).

The budget per decision is `iterations` (reproducible: the same seed and game give the same choice) or
`milliseconds` (a clock: as many iterations as fit, so the choice depends on the machine's speed).
Search agents read the game state through `act_in_games` (the arena, `uno-play`, `uno-web` and
`UnoVectorEnv` call it): the search only ever looks at redealt copies, which the tests check by giving it
worlds its seat cannot tell apart.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numba import njit

from uno_env import actions as A
from uno_env import cards as C
from uno_env import engine as E
from uno_env import observation as O

from .base import MAX_SEARCH_ITERATIONS, MAX_SEARCH_MILLISECONDS, SearchAgent, bind
from .counter import CounterAgent, counter_decide

ROLLOUTS = ("counter", "random")
OTHERS = ("model", "search")  # the other seats in the tree: played by the rollout policy, or searched too
ROOTS = ("paired", "ucb")  # the root's actions: each tried in the same worlds and compared in pairs, or UCB1
#: how the hidden cards are redealt: uniformly over what the seat cannot see; so that no other seat holds a
#: coloured card it showed it lacked (`engine.resample_hidden_voids`); or uniformly but with the hands of the next
#: `seen_hands` seats as they are (a bound that sees some hands, for measuring where the seer's margin lies)
WORLDS = ("uniform", "voids", "next-seen")
WORLDS_UNIFORM, WORLDS_VOIDS, WORLDS_NEXT_SEEN = range(3)
CHUNK = 16  # iterations between clock checks with a milliseconds budget
MAX_PATH = 2048  # tree steps of one iteration


@njit(cache=True, nogil=True)
def _mix(x):
    """SplitMix64's finalizer: a well-spread 64-bit hash of x."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True, nogil=True)
def _node_key(obs, seat, steps):
    """The information set of the seat to move: a 64-bit hash (FNV-1a) of its observation and the step count."""
    h = np.uint64(0xCBF29CE484222325)
    prime = np.uint64(0x100000001B3)
    for i in range(obs.shape[0]):
        h = (h ^ np.uint64(np.uint8(obs[i]))) * prime
    h = (h ^ np.uint64(seat)) * prime
    h = (h ^ np.uint64(steps)) * prime
    return _mix(h) | np.uint64(1)  # 0 marks an empty slot


@njit(cache=True, nogil=True)
def _find_or_add(keys, slots, key, count, capacity):
    """The node of `key` in the open-addressing table, added as node count[0] if new (-1 when the tree is full)."""
    size = keys.shape[0]
    i = np.int64(key & np.uint64(size - 1))
    while keys[i] != 0:
        if keys[i] == key:
            return slots[i], False
        i = (i + 1) & (size - 1)
    if count[0] >= capacity:
        return -1, False
    keys[i] = key
    slots[i] = count[0]
    count[0] += 1
    return slots[i], True


@njit(cache=True, nogil=True)
def _choose(s, cfg, level, off, obs, mask, rng, points, counts, params, act, rollout):
    """The rollout policy's action for whoever decides in the 1-game state `s` (observation and mask filled)."""
    O.observe_one(s, cfg, 0, s[0].seat, level, off, obs[0], mask[0])
    if rollout == 0:
        counter_decide(obs, mask, rng, off, cfg[0].num_players, points, counts, params, act)
    else:
        legal = np.flatnonzero(mask[0])
        act[0] = legal[rng.integers(0, legal.shape[0])]
    return act[0]


@njit(cache=True, nogil=True)
def _playout(root, world, cfg, root_node, forced, world_seed, exploration, widening, seer, worlds, seen_hands,
             rollout, model_others, level, off, obs, mask, rng, points, counts, params, act, keys, slots, count, visits,
             wins, avail, path_node, path_action, path_seat):  # fmt: skip
    """One iteration in a world redealt from `world_seed`: down the tree (the root's action `forced` if >= 0),
    one node added, the rollout, the result backed up. Returns the winning seat (-1: none; -2: no redeal)."""
    me = root[0].seat
    capacity = visits.shape[0]
    world[:] = root
    if seer:
        code = E.resample_draw_pile(world, cfg, 0, world_seed)
    elif worlds == WORLDS_VOIDS:
        code = E.resample_hidden_voids(world, cfg, 0, world_seed)
    elif worlds == WORLDS_NEXT_SEEN:  # the next seen_hands seats' hands kept as they are (known while redealing)
        for k in range(1, seen_hands + 1):
            after = (me + k * world[0].direction) % cfg[0].num_players
            world[0].known[me, after, :] = world[0].hand[after, :]
        code = E.resample_hidden(world, cfg, 0, world_seed)
        for k in range(1, seen_hands + 1):
            after = (me + k * world[0].direction) % cfg[0].num_players
            world[0].known[me, after, :] = root[0].known[me, after, :]
    else:
        code = E.resample_hidden(world, cfg, 0, world_seed)
    if code != E.RESAMPLED:
        return -2  # never search the real deal
    rounds = world[0].rounds
    depth = 0
    expanded = False
    # Selection and expansion: down the tree while its nodes exist, adding one.
    while world[0].done == 0 and world[0].rounds == rounds and depth < MAX_PATH and not expanded:
        seat = world[0].seat
        O.observe_one(world, cfg, 0, seat, level, off, obs[0], mask[0])
        legal = np.flatnonzero(mask[0])
        forced_here = depth == 0 and forced >= 0  # the root's action is given: play it whatever the phase
        policy_move = (model_others and seat != me) or world[0].phase == E.CHALLENGE_PHASE
        if legal.shape[0] == 1 or (policy_move and not forced_here):
            if legal.shape[0] > 1:  # another seat played by its model, or a challenge: the rollout policy
                _choose(world, cfg, level, off, obs, mask, rng, points, counts, params, act, rollout)
            else:
                act[0] = legal[0]
            E.apply_actions(world, cfg, act)
            continue
        if forced_here:
            node, choice = root_node, forced
        else:
            node, added = _find_or_add(keys, slots, _node_key(obs[0], seat, world[0].steps), count, capacity)
            if node < 0:
                break  # the tree is full: roll out from here
            expanded = added
            # Progressive widening below the root: the rollout policy's choice first, one more action (in id
            # order) each time the node's visits pass widening * k**2, so a new node is not spent on poor tries.
            preferred = _choose(world, cfg, level, off, obs, mask, rng, points, counts, params, act, rollout)
            total = 0
            for a in legal:
                total += visits[node, a]
            k = legal.shape[0]
            if node != root_node and widening > 0:
                k = min(k, 1 + int(np.sqrt(total / widening)))
            candidates = np.empty(k, np.int64)
            candidates[0] = preferred
            j = 1
            for a in legal:
                if j < k and a != preferred:
                    candidates[j] = a
                    j += 1
            choice = -1
            for a in candidates:
                avail[node, a] += 1
                if choice < 0 and visits[node, a] == 0:
                    choice = a  # an untried candidate first
            if choice < 0:
                best = -1.0
                for a in candidates:
                    n = visits[node, a]
                    score = wins[node, a] / n + exploration * np.sqrt(np.log(avail[node, a]) / n)
                    if score > best:
                        best, choice = score, a
        path_node[depth] = node
        path_action[depth] = choice
        path_seat[depth] = seat
        depth += 1
        act[0] = choice
        E.apply_actions(world, cfg, act)
    # Rollout: the policy plays every seat to the end of the round.
    while world[0].done == 0 and world[0].rounds == rounds:
        _choose(world, cfg, level, off, obs, mask, rng, points, counts, params, act, rollout)
        E.apply_actions(world, cfg, act)
    winner = world[0].round_winner if world[0].rounds != rounds or world[0].truncated == 0 else -1
    for d in range(depth):
        visits[path_node[d], path_action[d]] += 1
        if path_seat[d] == winner:
            wins[path_node[d], path_action[d]] += 1.0
    return winner


@njit(cache=True, nogil=True)
def world_log_weight(root, world, cfg, log_ratio):
    """log P(world's hidden cards | belief) - log P(them | counting), up to a constant: the sum over the other
    seats' hidden cards (hand less what the deciding seat knows of it) of log_ratio[relative seat, kind]."""
    me = root[0].seat
    n = cfg[0].num_players
    total = 0.0
    for seat in range(n):
        if seat == me:
            continue
        rel = (seat - me) % n
        for k in range(E.NK):
            hidden = np.int64(world[0].hand[seat, k]) - root[0].known[me, seat, k]
            if hidden > 0:
                total += hidden * log_ratio[rel, k]
    return total


@njit(cache=True, nogil=True)
def search(root, cfg, iterations, exploration, widening, paired, seed, seer, worlds, seen_hands, rollout, model_others,
           level, off,
           obs, mask, rng, points, counts, params, act, keys, slots, count, visits, wins, avail, done, diff,
           diff_sq, log_ratio, weights, default):  # fmt: skip
    """Run about `iterations` more iterations from the 1-game state `root` (never changed) into the tree (keys,
    slots, count; visits, wins, avail per node and action). With `paired`, each world is played once after every
    root action (whole rounds of them), and diff, diff_sq (per action) sum the paired differences of its wins
    and the rollout policy's choice's; done = (iterations, worlds, paired worlds). With a belief (`log_ratio` (N,
    kinds) not all zero: `world_log_weight`), each paired world counts with the weight exp(log weight), and
    weights = (sum of the weights, sum of their squares). Returns the root's node (-1: not added) and the rollout
    policy's choice there, or `default` when it is an action (>= 0: a network's move that the paired root keeps
    unless another wins clearly more)."""
    world = root.copy()
    probe = root.copy()
    weighted = np.any(log_ratio != 0.0)
    path_node = np.empty(MAX_PATH, np.int64)
    path_action = np.empty(MAX_PATH, np.int64)
    path_seat = np.empty(MAX_PATH, np.int64)
    O.observe_one(root, cfg, 0, root[0].seat, level, off, obs[0], mask[0])
    me = root[0].seat
    legal = np.flatnonzero(mask[0]).copy()
    root_node, _ = _find_or_add(keys, slots, _node_key(obs[0], me, root[0].steps), count, visits.shape[0])
    preferred = _choose(root, cfg, level, off, obs, mask, rng, points, counts, params, act, rollout)
    if default >= 0:
        preferred = default
    won = np.zeros(legal.shape[0])
    target = done[0] + iterations
    while done[0] < target:
        world_seed = _mix(np.uint64(seed) + np.uint64(done[1]) * np.uint64(0x9E3779B97F4A7C15))
        done[1] += 1
        if not paired or root_node < 0:
            done[0] += 1
            _playout(root, world, cfg, root_node, -1, world_seed, exploration, widening, seer, worlds, seen_hands,
                     rollout, model_others, level, off, obs, mask, rng, points, counts, params, act, keys, slots, count,
                     visits, wins, avail, path_node, path_action, path_seat)  # fmt: skip
            continue
        base = 0.0
        weight = 1.0
        if weighted:  # the world this seed redeals, weighed by how the belief rates its hidden cards
            probe[:] = root
            if E.resample_hidden(probe, cfg, 0, world_seed) == E.RESAMPLED:
                weight = np.exp(world_log_weight(root, probe, cfg, log_ratio))
        for i in range(legal.shape[0]):
            done[0] += 1
            winner = _playout(root, world, cfg, root_node, legal[i], world_seed, exploration, widening, seer, worlds,
                              seen_hands, rollout,
                              model_others, level, off, obs, mask, rng, points, counts, params, act, keys, slots,
                              count, visits, wins, avail, path_node, path_action, path_seat)  # fmt: skip
            if winner == -2:
                break
            won[i] = 1.0 if winner == me else 0.0
            if legal[i] == preferred:
                base = won[i]
        else:
            for i in range(legal.shape[0]):
                d = won[i] - base
                diff[legal[i]] += weight * d
                diff_sq[legal[i]] += weight * d * d
            weights[0] += weight
            weights[1] += weight * weight
            done[2] += 1
    return root_node, preferred


class ISMCTSAgent(SearchAgent):
    """IS-MCTS over the compiled engine (see the module docstring): `iterations` or `milliseconds` per decision.

    `rollout` is "counter" (every seat plays `counter` to the end of the round) or "random"; `others` "model"
    or "search"; `exploration` is UCB1's constant (the results are win rates, 0 to 1); `widening` the visits
    per squared action below the root (0: every action from the first visit); `root` "paired" (leaving the
    rollout policy's choice only at `z` standard errors) or "ucb"; `max_nodes` caps the tree (default: one
    node per iteration, or 100,000 with a clock). `seer=True` sees every hand (a bound, not a fair player)."""

    observation = "knowledge"

    def __init__(
        self,
        seed: int | None = None,
        *,
        iterations: int | None = None,
        milliseconds: float | None = None,
        exploration: float = 0.7,
        widening: float = 8.0,
        root: str = "paired",
        z: float = 2.0,
        rollout: str = "counter",
        others: str = "model",
        seer: bool = False,
        max_nodes: int | None = None,
        belief: bool = False,
        belief_power: float = 1.0,
        prior: Any = None,
        worlds: str = "uniform",
        seen_hands: int = 1,
    ):
        if (iterations is None) == (milliseconds is None):
            if iterations is None:
                iterations = 200
            else:
                raise ValueError("give the budget as iterations or milliseconds, not both")
        if iterations is not None and (
            isinstance(iterations, bool) or not isinstance(iterations, int)
            or not 1 <= iterations <= MAX_SEARCH_ITERATIONS
        ):
            raise ValueError(f"iterations must be an int from 1 to {MAX_SEARCH_ITERATIONS:,}, got {iterations!r}")
        if milliseconds is not None and not (
            isinstance(milliseconds, int | float) and 0 < milliseconds <= MAX_SEARCH_MILLISECONDS
        ):
            raise ValueError(f"milliseconds must be a number from 0 (exclusive) to {MAX_SEARCH_MILLISECONDS:,}, got "
                             f"{milliseconds!r}")  # fmt: skip
        if others not in OTHERS:
            raise ValueError(f"others must be one of {', '.join(OTHERS)}, got {others!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        for name, value in (("exploration", exploration), ("widening", widening), ("z", z)):
            if isinstance(value, bool) or not (isinstance(value, int | float) and value >= 0):
                raise ValueError(f"{name} must be a number >= 0, got {value!r}")
        if max_nodes is not None and (type(max_nodes) is not int or max_nodes < 1):
            raise ValueError(f"max_nodes must be a positive int, got {max_nodes!r}")
        self.seed = 0 if seed is None else int(seed)
        self.iterations = iterations
        self.milliseconds = milliseconds
        self.exploration = float(exploration)
        self.widening = float(widening)
        if root not in ROOTS:
            raise ValueError(f"root must be one of {', '.join(ROOTS)}, got {root!r}")
        self.root = root
        self.z = float(z)
        self.rollout = rollout
        self.others = others
        self.seer = bool(seer)
        if worlds not in WORLDS:
            raise ValueError(f"worlds must be one of {', '.join(WORLDS)}, got {worlds!r}")
        if worlds != "uniform" and (seer or belief):
            raise ValueError("worlds redeals the hidden hands: not with seer (which sees them) or a belief's weights")
        self.worlds = worlds
        if type(seen_hands) is not int or seen_hands < 1:
            raise ValueError(f"seen_hands must be a positive int, got {seen_hands!r}")
        self.seen_hands = seen_hands  # with worlds="next-seen": how many of the following seats' hands it sees
        self.max_nodes = max_nodes or (iterations + 1 if iterations else 100_000)
        if belief and (seer or root != "paired"):
            raise ValueError("a belief weighs the paired root's worlds: it needs root='paired' and no seer")
        if isinstance(belief_power, bool) or not (isinstance(belief_power, int | float) and belief_power >= 0):
            raise ValueError(f"belief_power must be a number >= 0, got {belief_power!r}")
        self.belief_power = float(belief_power)  # the world's odds to this power: below 1 tempers them
        self.belief = None  # the shipped belief model, loaded by `bind` when `belief` is on
        self.weigh_worlds = bool(belief)
        if seer or worlds == "next-seen":
            self.observation = "seer"  # it sees hidden cards: refused where honesty is checked (check_agent)
        elif belief:
            self.observation = "belief"  # the model reads the seat's belief observation; the search still 'knowledge'
        if prior is not None and not (callable(getattr(prior, "act", None)) and hasattr(prior, "observation")):
            raise ValueError(f"prior must be an agent that acts on observations (a policy), got {prior!r}")
        if prior is not None and prior.observation == "seer" and not seer:
            raise ValueError("a prior that reads the seer observation sees every hand: only the seer may use it")
        if prior is not None and root != "paired":
            raise ValueError("a prior sets the paired root's default move: it needs root='paired'")
        self.prior = prior  # the root's default move (else the rollout policy's), e.g. a trained network
        self._prior_spec = None
        kind = "seer" if seer or worlds == "next-seen" else "ismcts-belief" if belief else "ismcts"
        self.name = kind + (f":{iterations}" if iterations else f":{milliseconds:g}ms")
        self.name += {"voids": ":voids", "next-seen": ":next" + (str(seen_hands) if seen_hands > 1 else "")}.get(
            worlds, "")
        if prior is not None:
            self.name += f":prior={getattr(prior, 'name', 'policy')}"
        if belief and self.belief_power != 1.0:
            self.name += f":power{self.belief_power:g}"
        self._counter = CounterAgent(seed=self.seed)
        self.spec = None
        self.searches = 0  # decisions searched (more than one legal action)
        self.searched_iterations = 0
        #: the last paired search's root: (the rollout policy's action, the legal actions, each one's mean win
        #: difference from that action over the same worlds, the worlds), for training a network on what it found
        self.root_advantage: tuple[int, np.ndarray, np.ndarray, int] | None = None
        self.search_seconds = 0.0
        self.overrides = 0  # searched decisions where a paired root chose another action than its rollout policy

    def bind(self, spec, rules) -> None:
        """The game it plays (`uno_env.agents.base.bind`); the rollouts' `counter` reads the same observation."""
        if self.weigh_worlds:
            from .belief import load_belief

            self.belief = load_belief(rules.variant, num_players=spec.num_players)
        if self.prior is not None:
            self._prior_spec = O.ObservationSpec(self.prior.observation, spec.num_players)
            bind(self.prior, self._prior_spec, rules)
        if spec.level != "knowledge":
            spec = O.ObservationSpec("knowledge", spec.num_players)
        self.spec = spec
        self._counter.bind(spec, rules)
        self._table_size = 1 << int(np.ceil(np.log2(2 * self.max_nodes + 2)))
        self._keys = np.zeros(self._table_size, np.uint64)
        self._slots = np.zeros(self._table_size, np.int64)
        self._visits = np.zeros((self.max_nodes, A.NUM_ACTIONS), np.int32)
        self._wins = np.zeros((self.max_nodes, A.NUM_ACTIONS), np.float64)
        self._avail = np.zeros((self.max_nodes, A.NUM_ACTIONS), np.int32)

    def ready(self) -> bool:
        return self.spec is not None

    def decide(self, row, config, observation, legal) -> int:
        """A Wild Draw Four's challenge by the rollout policy (see the module docstring); anything else searched."""
        if row[0]["phase"] == E.CHALLENGE_PHASE:
            return self._policy_choice(row, config, observation)
        return self._search_one(row, config, observation, legal)

    def _log_ratio(self, seen: np.ndarray) -> np.ndarray:
        """(N, kinds): log of the belief's probability of each hidden card's kind over counting's, per relative
        seat (zeros without a belief: every world counts the same)."""
        ratio = np.zeros((self.spec.num_players, C.NUM_KINDS))
        if self.belief is not None:
            ratio[1:] = self.belief_power * self.belief.log_odds(np.asarray(seen, np.int8)[None])[0]
        return ratio

    def _prior_choice(self, root, config, seen, legal) -> int:
        """The prior's move at the root, from the seat's own observation at the prior's level."""
        spec = self._prior_spec
        if spec.level == "knowledge":
            obs = np.asarray(seen, np.int8)[None]
        else:
            obs = np.zeros((1, spec.size), np.int8)
            O.observe_one(root, config, 0, root[0].seat, spec.index, spec.offsets, obs[0],
                          np.zeros(A.NUM_ACTIONS, np.int8))  # fmt: skip
        mask = np.zeros((1, A.NUM_ACTIONS), np.int8)
        mask[0, legal] = 1
        return int(self.prior.act(obs, mask)[0])

    def _policy_choice(self, root, config, seen) -> int:
        """The rollout policy's action, with the generator the search would have used."""
        spec, counter = self.spec, self._counter
        obs = np.zeros((1, spec.size), np.int8)
        mask = np.zeros((1, A.NUM_ACTIONS), np.int8)
        rng = np.random.default_rng(self.decision_seed(root, seen))
        return int(_choose(root, config, spec.index, spec.offsets, obs, mask, rng, counter._points, counter._counts,
                           counter.kernel_params(), np.zeros(1, np.int64), ROLLOUTS.index(self.rollout)))  # fmt: skip

    def _search_one(self, root, config, seen, legal) -> int:
        """The action the search chooses among `legal` after the budget (see the module docstring: the paired
        root's rule, or the most visited)."""
        seed = self.decision_seed(root, seen)
        rng = np.random.default_rng(seed)
        self._keys[:] = 0
        self._visits[:] = 0
        self._wins[:] = 0
        self._avail[:] = 0
        count = np.zeros(1, np.int64)
        done = np.zeros(3, np.int64)
        diff = np.zeros(A.NUM_ACTIONS)
        diff_sq = np.zeros(A.NUM_ACTIONS)
        weights = np.zeros(2)
        log_ratio = self._log_ratio(seen)
        spec, counter = self.spec, self._counter
        obs = np.zeros((1, spec.size), np.int8)
        mask = np.zeros((1, A.NUM_ACTIONS), np.int8)
        act = np.zeros(1, np.int64)
        rollout = ROLLOUTS.index(self.rollout)
        paired = self.root == "paired"
        default = self._prior_choice(root, config, seen, legal) if self.prior is not None else -1
        start = time.perf_counter()

        def run(n: int):
            return search(root, config, n, self.exploration, self.widening, paired, seed, self.seer,
                          WORLDS.index(self.worlds), self.seen_hands, rollout,
                          self.others == "model", spec.index, spec.offsets, obs, mask, rng, counter._points,
                          counter._counts, counter.kernel_params(), act, self._keys, self._slots, count,
                          self._visits, self._wins, self._avail, done, diff, diff_sq, log_ratio, weights,
                          default)  # fmt: skip

        if self.iterations is not None:
            node, preferred = run(self.iterations)
        else:
            deadline = time.perf_counter() + self.milliseconds / 1000
            node, preferred = run(1)
            while time.perf_counter() < deadline:
                run(CHUNK)
        self.searches += 1
        self.searched_iterations += int(done[0])
        self.search_seconds += time.perf_counter() - start
        if paired:  # another action than the policy's only where it won clearly more of the same worlds
            total, squares = (weights[0], weights[1]) if weights[0] > 0 else (1.0, 1.0)
            worlds = total**2 / squares  # the effective number of worlds (all of them when unweighted)
            mean = diff[legal] / total
            self.root_advantage = (int(preferred), legal.copy(), mean, int(done[2]))
            se = np.sqrt(np.maximum(diff_sq[legal] / total - mean**2, 1e-12) / worlds)
            z = np.where(mean > 0, mean / se, 0.0)
            if done[2] and z.max() > self.z:
                self.overrides += 1
                return int(legal[np.argmax(z)])
            return int(preferred)
        visits = self._visits[node, legal]
        if node < 0 or visits.max() == 0:  # no deal could be redealt: the rollout policy's choice
            return int(preferred)
        return int(legal[np.argmax(visits)])
