"""A conformance kit for agents and faces, and the scenario helpers the project's tests share.

`check_agent` plays an agent through every phase a preset has and raises AssertionError unless the agent is
legal everywhere, deterministic for a seed, independent of batch size and blind to what its observation
hides. `check_faces` steps `Game`, `GameBatch`, the AEC env and the vector env side by side and raises at the
first step where they disagree. Both return a short summary of what they checked.

```python
import numpy as np

from uno_env.testing import check_agent, check_faces


class LowestId:  # plays the legal action with the lowest id
    observation = "minimal"

    def act(self, observations, action_masks):
        return action_masks.argmax(axis=1).astype(np.int64)


check_agent(LowestId(), "unocorns", 2, games=4, decisions=60)
check_agent(lambda seed: LowestId(), "classic", 3, games=4, decisions=60)  # a factory seed -> agent works too
check_faces("swap", 4, steps=50)
```

Scenario helpers, for a `Game` and for the AEC env alike: `scenario` (a `deal=` dict), `deal` (a dealt `Game`),
`deal_env` (an AEC env reset to a dealt scenario), `act` (step actions by name, checking the invariants),
`legal` (the legal action names), `assert_turn` (who decides, in which phase, with which actions) and
`discard_pile`. In every scenario the dealer defaults to the last seat, so seat 0 decides first.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Sequence
from typing import Any, NoReturn

import numpy as np

from . import actions as A
from . import cards as C
from . import engine as E
from . import observation as O
from .aec import env as make_env
from .aec import raw_env
from .game import Game, GameBatch
from .rules import RuleSet, make_rules
from .vector import UnoVectorEnv, agent_actions

__all__ = [
    "act",
    "assert_turn",
    "check_agent",
    "check_faces",
    "deal",
    "deal_env",
    "decision_phases",
    "discard_pile",
    "legal",
    "scenario",
]


# ------------------------------------------------------------------------------------------ scenarios


def scenario(
    hands: Sequence[Sequence[str]],
    top: str | None = None,
    deck: Sequence[str] = (),
    *,
    dealer: int | None = None,
    foreheads: Sequence[Sequence[str]] | None = None,
    scores: Sequence[int] | None = None,
) -> dict[str, Any]:
    """A dealt scenario (the `deal=` dict of `uno_env.game`); the dealer defaults to the last seat."""
    spec: dict[str, Any] = {
        "dealer": len(hands) - 1 if dealer is None else dealer,
        "hands": [list(h) for h in hands],
        "deck": list(deck),
    }
    if top is not None:
        spec["top"] = top
    if foreheads is not None:
        spec["foreheads"] = [list(f) for f in foreheads]
    if scores is not None:
        spec["scores"] = list(scores)
    return spec


def deal(
    variant: str | RuleSet,
    hands: Sequence[Sequence[str]],
    top: str | None = None,
    deck: Sequence[str] = (),
    *,
    dealer: int | None = None,
    foreheads: Sequence[Sequence[str]] | None = None,
    scores: Sequence[int] | None = None,
    seed: int = 0,
    **options: Any,
) -> Game:
    """A `Game` of len(hands) players dealt `scenario(...)`, its invariants checked; `options` go to `Game`
    (rule options, `episode`, `max_steps`)."""
    spec = scenario(hands, top, deck, dealer=dealer, foreheads=foreheads, scores=scores)
    game = Game(variant, len(hands), seed=seed, deal=spec, **options)
    game.check()
    return game


def deal_env(
    variant: str,
    hands: Sequence[Sequence[str]],
    top: str | None = None,
    deck: Sequence[str] = (),
    *,
    dealer: int | None = None,
    foreheads: Sequence[Sequence[str]] | None = None,
    scores: Sequence[int] | None = None,
    seed: int = 0,
    wrapped: bool = False,
    **options: Any,
):
    """The AEC env reset to `scenario(...)`: `raw_env`, or with `wrapped` `uno_env.env` (PettingZoo's wrappers);
    `options` go to the env (rule options, `episode`, `reward`, `render_mode`, ...)."""
    spec = scenario(hands, top, deck, dealer=dealer, foreheads=foreheads, scores=scores)
    environment = (make_env if wrapped else raw_env)(variant=variant, num_players=len(hands), **options)
    environment.reset(seed=seed, options={"deal": spec})
    return environment


def _is_game(face) -> bool:
    if isinstance(face, Game):
        return True
    if hasattr(face, "agent_selection"):
        return False
    raise TypeError(f"expected a uno_env.Game or a uno_env AEC env, got {type(face).__name__}")


def _agent_name(who: int | str) -> str:
    return who if isinstance(who, str) else f"player_{int(who)}"


def act(face, *actions: str | int) -> None:
    """Step each action (a name or an id) in turn, as whoever decides, checking the invariants after each."""
    for action in actions:
        if _is_game(face):
            face.step(action)
            face.check()
        else:
            base = face.unwrapped
            face.step(base.action_id(action) if isinstance(action, str) else int(action))
            base.game.check(0)


def legal(face, who: int | str | None = None) -> list[str]:
    """The legal actions of `who` (a seat, or an AEC agent name; default: whoever decides) as names, by id."""
    if _is_game(face):
        return face.legal_actions() if who is None or who == face.seat else []
    agent = face.agent_selection if who is None else _agent_name(who)
    mask = face.observe(agent)["action_mask"]
    return [face.unwrapped.action_names[a] for a in np.flatnonzero(mask)]


def assert_turn(face, who: int | str, phase: str, actions: Sequence[str] | None = None) -> None:
    """`who` (a seat, or an AEC agent name) decides in `phase`; in the AEC env every other agent's mask is
    empty; and the legal actions are `actions` (names, by id), if given."""
    if _is_game(face):
        assert (face.seat, face.phase) == (who, phase), face.describe()
    else:
        agent = _agent_name(who)
        d = face.unwrapped.describe()
        assert (face.agent_selection, d["phase"]) == (agent, phase), d
        assert d["seat"] == int(agent.rsplit("_", 1)[1])
        for other in face.agents:
            if other != agent:
                assert legal(face, other) == [], other
    if actions is not None:
        assert legal(face, who) == list(actions)


def discard_pile(face) -> list[str]:
    """The discard pile, bottom first, read from the engine state."""
    batch = face.batch if _is_game(face) else face.unwrapped.game
    st = batch.state[0]
    return [batch.rules.codes[int(k)] for k in st.discard[: int(st.discard_len)]]


# ------------------------------------------------------------------------------------------ agents


def decision_phases(rules: RuleSet) -> tuple[str, ...]:
    """The phases in which a game of `rules` asks for a decision (`RuleSet.decision_phases`)."""
    return rules.decision_phases()


def _is_factory(agent) -> bool:
    return isinstance(agent, type) or (callable(agent) and not hasattr(agent, "act"))


def _agent_label(agent) -> str:
    name = getattr(agent, "name", None)
    return f"{type(agent).__name__} {name!r}" if isinstance(name, str) else type(agent).__name__


def _observe(world: GameBatch, spec: O.ObservationSpec) -> tuple[np.ndarray, np.ndarray]:
    """Every game's deciding seat's observation at `spec`'s level, and its legal mask (int8)."""
    observations = np.empty((world.batch_size, spec.size), np.int8)
    seats = world.seat.astype(np.int64)
    O.encode_batch(world.state_array, world.config_array, seats, spec.index, spec.offsets, observations)
    return observations, world.legal_masks().astype(np.int8)


def _ask(agent, world: GameBatch, observations: np.ndarray, masks: np.ndarray, where: str, games=None) -> np.ndarray:
    """The agent's actions for rows of `world`'s decisions (games `games`, default all; given copies, so no agent
    sees another's writes), checked to be a numpy integer array of shape (B,). `world` is the game the agent is
    asked about: a search agent (`act_in_games`) is given a copy of its state."""
    games = np.arange(len(observations)) if games is None else games
    state = world.state_array.copy()
    actions = agent_actions(agent, state, world.config_array, games, observations.copy(), masks.copy())
    rows = len(observations)
    if not isinstance(actions, np.ndarray) or actions.shape != (rows,) or not np.issubdtype(actions.dtype, np.integer):
        got = type(actions).__name__
        if isinstance(actions, np.ndarray):
            got = f"shape {actions.shape}, dtype {actions.dtype}"
        raise AssertionError(f"{where}: (a) act() must return a numpy integer array of shape ({rows},), got {got}")
    return actions


class _Check:
    """What `check_agent` keeps while it plays: the rules, the agent's four twins and how to word a failure."""

    def __init__(self, agent, variant, players, seed, rule_options):
        if isinstance(variant, RuleSet):
            if rule_options:
                raise ValueError("pass rule options inside the RuleSet or as keywords with a preset name, not both")
            self.rules = variant
        else:
            self.rules = make_rules(variant, **rule_options)
        # four agents in one state: the player, its repeat (b), the splitter (c) and the blind twin (d)
        twins = [agent(seed) for _ in range(4)] if _is_factory(agent) else [copy.deepcopy(agent) for _ in range(4)]
        self.where = f"check_agent({_agent_label(twins[0])}, {self.rules.preset!r}, {players} players, seed {seed})"
        for twin in twins:
            if not callable(getattr(twin, "act", None)) or getattr(twin, "observation", None) not in O.LEVELS:
                self.fail(f"not an agent: it needs .act(observations, action_masks) and .observation in {O.LEVELS}")
        self.level = twins[0].observation
        self.spec = O.ObservationSpec(self.level, players)
        for twin in twins:
            if hasattr(twin, "bind"):  # the agent protocol's optional hook, called as environments call it
                twin.bind(self.spec, self.rules)
        self.player, self.repeat, self.splitter, self.blind = twins

    def fail(self, message: str) -> NoReturn:
        raise AssertionError(f"{self.where}: {message}")

    def decision(self, world: GameBatch, step: int, g: int) -> str:
        phase = A.PHASE_NAMES[int(world.phase[g])]
        return f"decision {step} of game {g} (seat {int(world.seat[g])}, phase {phase!r})"

    def name(self, world: GameBatch, action: int) -> str:
        return f"{world.action_names[action]!r} ({action})" if 0 <= action < A.NUM_ACTIONS else f"id {action}"

    def check_legal(self, world: GameBatch, step: int, masks: np.ndarray, actions: np.ndarray) -> None:
        in_range = (actions >= 0) & (actions < A.NUM_ACTIONS)
        ok = in_range.copy()
        ok[in_range] = masks[np.flatnonzero(in_range), actions[in_range]] == 1
        if not ok.all():
            g = int(np.flatnonzero(~ok)[0])
            allowed = ", ".join(world.action_names[a] for a in np.flatnonzero(masks[g]))
            self.fail(
                f"(a) illegal action at {self.decision(world, step, g)}: it chose {self.name(world, int(actions[g]))}; "
                f"legal: {allowed}"
            )

    def check_same(self, world, step, first, second, what: str, labels: tuple[str, str]) -> None:
        if not np.array_equal(first, second):
            g = int(np.flatnonzero(first != second)[0])
            self.fail(
                f"{what}: at {self.decision(world, step, g)} it chose {self.name(world, int(first[g]))} "
                f"{labels[0]} and {self.name(world, int(second[g]))} {labels[1]}"
            )


def check_agent(
    agent: Any,
    variant: str | RuleSet = "classic",
    players: int = 2,
    *,
    games: int = 8,
    decisions: int = 150,
    seed: int = 0,
    allow_seer: bool = False,
    **rule_options: Any,
) -> dict[str, Any]:
    """Play `agent` in every seat of `games` games for `decisions` rounds of decisions and raise AssertionError
    unless it is

    (a) **legal everywhere**: every answer is a numpy integer array of shape (B,) of actions legal under the
        masks given;
    (b) **deterministic for a seed**: a second agent in the same state gives the same actions on the same
        observations;
    (c) **independent of batch size**: the rows of a decision batch given one at a time, or split into other
        batches, get the same actions as the whole batch;
    (d) **blind to hidden information**: in a world redealt by `GameBatch.resample_hidden` (other hands, the
        draw pile and its own forehead cards changed, its observation the same, which the kit checks) it gives
        the same actions as in the real one: this catches an agent that reads the game it is asked about by
        any other way (the call stack, a global); the twin is asked with the redealt game as its `world`. A
        search agent (`act_in_games`) is given that game's state, and must read it only through the engine's
        redeal (`engine.resample_hidden`). A `seer` agent sees everything and is refused unless `allow_seer`
        (then (d) is left out).

    `agent` is an agent, or a factory `seed -> agent` (a class taking the seed works). Twins for (b)-(d) are
    made by calling the factory with `seed`, or by `copy.deepcopy` of the agent before play, and bound as
    environments bind (`bind(ObservationSpec(level, players), rules)`); each twin sees the same rows in the
    same order as the player, so an agent drawing from its own generator row by row passes honestly, and one
    drawing from a global generator, or once per call for all its rows, fails.

    Even games apply the agent's actions; odd games ask the agent at every decision but apply a uniformly
    random legal action, so that they reach every phase of `decision_phases(rules)` whatever the agent's
    style (an AssertionError says so if one was never reached: raise `decisions`). Finished games are dealt
    anew. Returns a summary: decisions checked, how many per phase, and how many of them were compared in a
    redealt world that differed from the real one.
    """
    if games < 2 or decisions < 1:
        raise ValueError(f"check_agent needs games >= 2 and decisions >= 1, got games={games}, decisions={decisions}")
    check = _Check(agent, variant, players, seed, rule_options)
    if check.level == "seer" and not allow_seer:
        check.fail("it reads 'seer' observations, which show every hidden card; pass allow_seer=True to check the rest")
    rng = np.random.default_rng([seed, 7])  # the kit's own choices: random actions, splits, redeal seeds
    world = GameBatch(check.rules, players, games)
    world.reset(seed)
    steered = np.arange(games) % 2 == 1
    phases: Counter[str] = Counter()
    redealt = 0
    for step in range(decisions):
        observations, masks = _observe(world, check.spec)
        phases.update(A.PHASE_NAMES[int(p)] for p in world.phase)
        actions = _ask(check.player, world, observations, masks, check.where)
        check.check_legal(world, step, masks, actions)
        again = _ask(check.repeat, world, observations, masks, check.where)
        check.check_same(world, step, actions, again, "(b) not deterministic for a seed", ("once", "the next time"))
        if check.level != "seer":
            redealt += _check_blind(check, world, step, observations, masks, actions, rng)
        _check_splits(check, world, step, observations, masks, actions, rng)
        applied = actions.copy()
        applied[steered] = A.random_legal_actions(masks[steered], rng)
        world.step(applied)
        done = world.done.astype(bool)
        if done.any():
            world.reset_where(done, rng.integers(0, 2**62, games, dtype=np.uint64))
    missing = [p for p in decision_phases(check.rules) if not phases[p]]
    if missing:
        check.fail(
            f"the agent was never asked in phase(s) {', '.join(missing)} in {decisions} rounds of {games} games: "
            f"raise `decisions` or `games`"
        )
    return {"decisions": decisions * games, "phases": dict(phases), "redealt": redealt}


def _check_blind(check: _Check, world, step, observations, masks, actions, rng) -> int:
    """(d): the blind twin answers the same rows in a redealt world; returns how many rows differ there."""
    twin = world.copy()
    differ = 0
    for g in range(world.batch_size):
        try:
            twin.resample_hidden(g, int(rng.integers(0, 2**63)))
        except ValueError:
            continue  # the episode is over: this world stays the same
        hands_moved = not np.array_equal(twin.state.hand[g], world.state.hand[g])
        pile = slice(0, int(world.state.draw_len[g]))
        differ += hands_moved or not np.array_equal(twin.state.draw_pile[g][pile], world.state.draw_pile[g][pile])
    seen, twin_masks = _observe(twin, check.spec)
    if not (np.array_equal(seen, observations) and np.array_equal(twin_masks, masks)):
        g = int(np.flatnonzero((seen != observations).any(axis=1) | (twin_masks != masks).any(axis=1))[0])
        fields = [
            k
            for k, v in check.spec.unflatten(seen[g]).items()
            if not np.array_equal(v, check.spec.unflatten(observations[g])[k])
        ]
        check.fail(f"the kit's redealt world is not the same to seat {int(world.seat[g])} of game {g}: "
                   f"{fields or 'the mask'} changed (an engine bug in resample_hidden)")  # fmt: skip
    blind = _ask(check.blind, twin, seen, twin_masks, check.where)
    what = "(d) not blind to hidden information: its observations were the same in a world redealt where it cannot see"
    check.check_same(world, step, actions, blind, what, ("in the real world", "in the redealt one"))
    return differ


def _check_splits(check: _Check, world, step, observations, masks, actions, rng) -> None:
    """(c): the splitter twin answers the same rows one at a time (even steps) or in random contiguous batches."""
    b = world.batch_size
    if step % 2 == 0:
        cuts = np.arange(1, b)
    else:
        cuts = np.sort(rng.choice(np.arange(1, b), size=int(rng.integers(1, min(3, b - 1) + 1)), replace=False))
    bounds = [0, *cuts.tolist(), b]
    parts = [
        _ask(check.splitter, world, observations[lo:hi], masks[lo:hi], check.where, np.arange(lo, hi))
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)
    ]
    sizes = "one row at a time" if step % 2 == 0 else f"in batches of {np.diff(bounds).tolist()}"
    labels = (f"in the whole batch of {b}", f"given {sizes}")
    check.check_same(world, step, actions, np.concatenate(parts), "(c) depends on batch size", labels)


# ------------------------------------------------------------------------------------------ faces


class _Faces:
    """Every face of `games` games side by side, and the comparison that names the first field that differs."""

    def __init__(self, variant, players, games, seed, episode, reward, rule_options):
        self.where = f"check_faces({variant!r}, {players} players, seed {seed})"
        self.players = players
        options = dict(episode=episode, **rule_options)
        self.singles = [Game(variant, players, seed=seed + g, **options) for g in range(games)]
        self.batch = GameBatch(variant, players, games, **options)
        self.batch.reset(seed)
        self.aec = {
            level: [raw_env(variant, players, observation=level, reward=reward, **options) for _ in range(games)]
            for level in O.LEVELS
        }
        for envs in self.aec.values():
            for g, environment in enumerate(envs):
                environment.reset(seed=seed + g)
        self.venv = UnoVectorEnv(variant, players, games, learner_seats="all", reward=reward, **options)
        self.venv.reset(seed=seed)
        self.specs = {level: O.ObservationSpec(level, players) for level in O.LEVELS}
        self.agents = [f"player_{p}" for p in range(players)]

    def agree(self, step: int, g: int, field: str, values: dict[str, Any], spec: O.ObservationSpec | None = None):
        """Raise unless every face gives the same value of `field` (an observation's fields named by `spec`)."""
        (first_face, first), *others = values.items()
        for face, value in others:
            arrays = isinstance(first, np.ndarray) or isinstance(value, np.ndarray)
            if np.array_equal(first, value) if arrays else first == value:
                continue
            if spec is not None:
                wrong = [k for k, (part, _) in spec.layout.items() if not np.array_equal(first[part], value[part])]
                entries = np.flatnonzero(first != value).tolist()
                shown = f"in its field(s) {', '.join(wrong)}: {first_face} and {face} differ at entries {entries}"
            elif isinstance(first, dict):
                keys = [k for k in first if first[k] != value.get(k)]
                shown = "; ".join(f"{k}: {first_face} {first[k]!r}, {face} {value.get(k)!r}" for k in keys)
            else:
                shown = "; ".join(f"{k}: {_shown(field, v)}" for k, v in ((first_face, first), (face, value)))
            raise AssertionError(f"{self.where}: step {step}, game {g}: {field} differs: {shown}")

    def states(self, g: int) -> dict[str, tuple[GameBatch, int]]:
        """Face name -> (the engine batch behind it, the game's row there)."""
        faces = {"Game": (self.singles[g].batch, 0), "GameBatch": (self.batch, g), "UnoVectorEnv": (self.venv.game, g)}
        faces.update({f"raw_env({level})": (envs[g].game, 0) for level, envs in self.aec.items()})
        return faces

    def check_state(self, step: int, g: int) -> None:
        """The whole engine state (generator included) is the same behind every face; else name what differs."""
        faces = self.states(g)
        blobs = {name: batch.state_array[row : row + 1].tobytes() for name, (batch, row) in faces.items()}
        if len(set(blobs.values())) > 1:
            self.agree(step, g, "describe()", {name: batch.describe(row) for name, (batch, row) in faces.items()})
            odd = [name for name, blob in blobs.items() if blob != blobs["Game"]]
            raise AssertionError(
                f"{self.where}: step {step}, game {g}: the engine state behind {', '.join(odd)} differs from Game's "
                "in what describe() leaves out (the generator, the step count or a memory of the game)"
            )

    def check_decision(self, step: int, g: int, masks: np.ndarray, seen: dict[str, np.ndarray]) -> None:
        """Deciding seat, phase, masks and every seat's observation at every level, for game g before a step."""
        single, batch, venv = self.singles[g], self.batch, self.venv
        seat = single.seat
        seats = {"Game": seat, "GameBatch": int(batch.seat[g]), "UnoVectorEnv": int(venv.seats[g])}
        seats.update({f"raw_env({lv})": self.agents.index(envs[g].agent_selection) for lv, envs in self.aec.items()})
        self.agree(step, g, "deciding seat", seats)
        phases = {"Game": single.phase, "GameBatch": int(batch.phase[g]), "UnoVectorEnv": int(venv.game.phase[g])}
        phases["Game"] = A.PHASE_NAMES.index(phases["Game"])
        self.agree(step, g, "phase", phases)
        mask = np.zeros(A.NUM_ACTIONS, np.int8)
        mask[single.legal_action_ids()] = 1
        self.agree(step, g, "mask", {"Game": mask, "GameBatch": masks[g], "UnoVectorEnv": venv.masks[g]})
        observers = np.arange(self.players, dtype=np.int64)
        rows = np.repeat(batch.state_array[g : g + 1], self.players)
        for level, envs in self.aec.items():
            spec = self.specs[level]
            engine = np.empty((self.players, spec.size), np.int8)
            O.encode_batch(rows, batch.config_array, observers, spec.index, spec.offsets, engine)
            for p, agent in enumerate(self.agents):
                observed = envs[g].observe(agent)
                own = mask if p == seat else np.zeros_like(mask)
                self.agree(step, g, f"mask of {agent}", {"Game": own, f"raw_env({level})": observed["action_mask"]})
                pair = {"GameBatch": engine[p], f"raw_env({level})": observed["observation"]}
                self.agree(step, g, f"{level} observation of {agent}", pair, spec)
            pair = {"GameBatch": engine[seat], "UnoVectorEnv.observe": seen[level][g]}
            self.agree(step, g, f"deciding seat's {level} observation", pair, spec)
        pair = {"UnoVectorEnv.obs": venv.obs[g], "UnoVectorEnv.observe": seen[venv.observation_level][g]}
        self.agree(step, g, "vector env observation", pair, venv.spec)

    def check_outcome(self, step, g, rewards, terminated, truncated, info, last_seat) -> bool:
        """Rewards, termination and truncation after a step; at an episode's end its results. Returns whether
        game g's episode ended."""
        single, batch = self.singles[g], self.batch
        ended = {
            "Game": (single.done and not single.truncated, single.truncated),
            "GameBatch": (bool(batch.done[g] and not batch.truncated[g]), bool(batch.truncated[g])),
            "UnoVectorEnv": (bool(terminated[g]), bool(truncated[g])),
        }
        for level, envs in self.aec.items():
            env_rewards = np.array([envs[g].rewards[a] for a in self.agents])
            self.agree(step, g, "rewards", {"UnoVectorEnv": rewards[g], f"raw_env({level})": env_rewards})
            ended[f"raw_env({level})"] = (all(envs[g].terminations.values()), all(envs[g].truncations.values()))
        self.agree(step, g, "(terminated, truncated)", ended)
        if not single.done:
            return False
        episode = info["episode"]
        self.agree(step, g, "final scores", {"Game": single.scores, "UnoVectorEnv": episode["scores"][g].tolist()})
        winners = single.winners
        self.agree(
            step, g, "winner", {"Game": winners[0] if winners else -1, "UnoVectorEnv": int(episode["winner"][g])}
        )
        final = self.aec[self.venv.observation_level][g].observe(self.agents[last_seat])["observation"]
        pair = {"raw_env": final, "UnoVectorEnv": info["final_obs"][g]}
        self.agree(step, g, "final observation", pair, self.venv.spec)
        return True

    def next_episode(self, g: int) -> None:
        """Game g of every face but the vector env (which did it itself) deals its next episode."""
        following = int(E.next_episode_seed(np.uint64(self.singles[g].batch.episode_seeds[0])))
        self.singles[g].reset(following)
        which = np.zeros(self.batch.batch_size, np.bool_)
        which[g] = True
        self.batch.reset_where(which, np.full(self.batch.batch_size, following, np.uint64))
        for envs in self.aec.values():
            envs[g].reset()  # no seed: the env goes on with the next episode's seed, as the vector env does


def _shown(field: str, value: Any) -> Any:
    if "mask" in field:
        return f"legal {np.flatnonzero(value).tolist()}"
    if isinstance(value, np.ndarray) and value.size > 8:
        return f"nonzero at {np.flatnonzero(value).tolist()[:24]}"
    return value


def _eager_random_actions(masks: np.ndarray, rng: np.random.Generator, explore: float = 0.25) -> np.ndarray:
    """Random legal actions that play a card whenever one is legal (uniformly random in a fraction `explore`
    of rows): episodes end in tens of decisions, where uniform play takes hundreds."""
    eager = masks.copy()
    plays = eager[:, : C.NUM_KINDS].any(axis=1) & (rng.random(len(masks)) >= explore)
    eager[plays, C.NUM_KINDS :] = 0
    return A.random_legal_actions(eager, rng)


def check_faces(
    variant: str = "classic",
    players: int = 2,
    *,
    steps: int = 200,
    seed: int = 0,
    games: int = 2,
    episode: str = "round",
    reward: str = "win",
    **rule_options: Any,
) -> dict[str, Any]:
    """Step `Game`, `GameBatch`, the AEC env (`raw_env`, one per observation level) and `UnoVectorEnv`
    (learner_seats="all") side by side for `steps` decisions of `games` games, from the same seed and with the
    same random legal actions (a card whenever one is legal, in three rows out of four, so that episodes end in
    tens of decisions), and raise AssertionError naming the first step, game and field that differ: the engine
    state behind each face, the deciding seat, phase, legal masks, every seat's observation at every level
    (the AEC env's against the engine's encoding; the deciding seat's against the vector env's), every step's
    rewards, termination and truncation, and at an episode's end its scores, winner and final observation.
    Game g is dealt from seed + g, as the vector env's game g after `reset(seed=seed)`; every face then goes on
    with the next episode's seed. Returns a summary: decisions compared, episodes ended, decisions per phase.
    """
    faces = _Faces(variant, players, games, seed, episode, reward, rule_options)
    rng = np.random.default_rng(seed)
    episodes = 0
    phases: Counter[str] = Counter()
    for step in range(steps):
        masks = faces.batch.legal_masks().astype(np.int8)
        seen = {level: faces.venv.observe(level) for level in O.LEVELS}
        for g in range(games):
            faces.check_state(step, g)
            faces.check_decision(step, g, masks, seen)
            phases[faces.singles[g].phase] += 1
        actions = _eager_random_actions(masks, rng)
        last_seats = [single.seat for single in faces.singles]
        for single, action in zip(faces.singles, actions, strict=True):
            single.step(int(action))
        faces.batch.step(actions)
        for envs in faces.aec.values():
            for environment, action in zip(envs, actions, strict=True):
                environment.step(int(action))
        _, _, rewards, terminated, truncated, info = faces.venv.step(actions)
        for g in range(games):
            if faces.check_outcome(step, g, rewards, terminated, truncated, info, last_seats[g]):
                episodes += 1
                faces.next_episode(g)
    return {"steps": steps * games, "episodes": episodes, "phases": dict(phases)}
