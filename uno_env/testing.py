"""A conformance kit for agents and faces, and the scenario helpers the project's tests share.

`check_agent` plays an agent through every phase a variant has and raises AssertionError unless the agent is
legal everywhere, deterministic for a seed, independent of batch size and blind to what its observation
hides. `check_faces` steps `Game`, `GameBatch`, the AEC env, the OpenSpiel game and the vector env side by side,
with the kit's random play or agents (`opponents`) in the other seats, and raises at the first step where they
disagree. Both return a short summary of what they checked.

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
check_faces("classic", 3, steps=50, learner_seats=[0], opponents=LowestId())  # agents in seats 1 and 2
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
from . import validate
from .aec import env as make_env
from .aec import raw_env
from .game import Game, GameBatch
from .rewards import WIN, step_rewards_one
from .rules import RuleSet, make_rules
from .seats import ENDED_TERMINATED, ENDED_TRUNCATED, RESULT_DTYPE, SeatLoop, agent_actions, bind
from .vector import UnoVectorEnv

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
                raise ValueError("pass rule options inside the RuleSet or as keywords with a variant name, not both")
            self.rules = variant
        else:
            self.rules = make_rules(variant, **rule_options)
        # four agents in one state: the player, its repeat (b), the splitter (c) and the blind twin (d)
        twins = [agent(seed) for _ in range(4)] if _is_factory(agent) else [copy.deepcopy(agent) for _ in range(4)]
        self.where = f"check_agent({_agent_label(twins[0])}, {self.rules.variant!r}, {players} players, seed {seed})"
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
        redeal (`engine.resample_hidden`). A text agent (one with `prompts(state, config, games)`, such as
        `uno_env.agents.TextAgent`) must also be asked the very same prompts in both worlds. A `seer` agent sees
        everything and is refused unless `allow_seer` (then (d) is left out).

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
    if callable(getattr(check.player, "prompts", None)):  # a text agent: its prompts must be the same too
        games = np.arange(world.batch_size)
        real = check.player.prompts(world.state_array.copy(), world.config_array, games)
        redealt = check.blind.prompts(twin.state_array.copy(), twin.config_array, games)
        for g, (first, second) in enumerate(zip(real, redealt, strict=True)):
            if first != second:
                lines = [(a, b) for a, b in zip(first.splitlines(), second.splitlines(), strict=False) if a != b]
                a, b = lines[0] if lines else (first[-80:], second[-80:])
                check.fail(f"(d) not blind to hidden information: at {check.decision(world, step, g)} its prompt "
                           f"changed in a world redealt where it cannot see: {a!r} became {b!r}")  # fmt: skip
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

FACE_NAMES = ("Game", "GameBatch", *(f"raw_env({level})" for level in O.LEVELS), "OpenSpiel", "UnoVectorEnv")


def _seated(opponents: Any, seats: list[int]) -> list[Any]:
    """The agents of `seats` (ascending), as the vector env seats `opponents`: one agent for all, or a dict."""
    table = opponents if isinstance(opponents, dict) else dict.fromkeys(seats, opponents)
    return [table[p] for p in seats]


def _openspiel_face(wanted: bool | None, rules: RuleSet, players: int, episode: str, max_steps: int):
    """The `python_uno` game of these rules, or None where it is not wanted, or (wanted=None) where the openspiel
    extra is missing or its parameters cannot express the rules (`uno_env.openspiel.parameters_of`)."""
    if wanted is False:
        return None
    try:
        from . import openspiel  # needs the openspiel extra: imported only here
    except ImportError:
        if wanted:
            raise
        return None
    try:
        return openspiel.make_game(rules, players, episode, max_steps)
    except ValueError:
        if wanted:
            raise
        return None


class _Faces:
    """Every face of `games` games side by side, the seat loop that plays their opponents, and the comparison that
    names the first field that differs."""

    def __init__(self, variant, players, games, seed, episode, reward, observation, learner_seats, opponents,
                 openspiel, rule_options):  # fmt: skip
        self.where = f"check_faces({variant!r}, {players} players, seed {seed})"
        self.players = players
        self.reward = reward
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
        # every face seats its own copies of the opponents, made before any of them is bound or asked
        self.venv = UnoVectorEnv(variant, players, games, learner_seats=learner_seats, observation=observation,
                                 opponents=copy.deepcopy(opponents), reward=reward, **options)  # fmt: skip
        self.venv.reset(seed=seed)
        self.learners = self.venv.learner_seats
        others = [p for p in range(players) if not self.venv.is_learner[p]]
        if opponents is not None and not others:
            raise ValueError(f"opponents were given but every seat is a learner seat ({learner_seats!r})")
        max_steps = int(self.batch.config["max_steps"][0])
        self.spiel_game = _openspiel_face(openspiel, self.batch.rules, players, episode, max_steps)
        self.spiel = None
        if self.spiel_game is not None:
            self.spiel = [self.spiel_game.new_initial_state(seed + g) for g in range(games)]
            observer = self.spiel_game.make_py_observer
            self.spiel_observers = {level: observer(params={"level": level}) for level in O.LEVELS}
        self.specs = {level: O.ObservationSpec(level, players) for level in O.LEVELS}
        self.agents = [f"player_{p}" for p in range(players)]
        self.faces = [name for name in FACE_NAMES if name != "OpenSpiel" or self.spiel is not None]
        # the opponents: the seat loop plays them in the GameBatch, the other faces' copies answer the same rows
        self.assignment = np.full(players, -1, np.int64)
        self.assignment[others] = np.arange(len(others))
        self.loop = None
        self.seated: dict[str, list[Any]] = {}
        if others:
            labels = [f"opponent at seat {p}" for p in others]
            self.loop = SeatLoop(self.batch, _seated(copy.deepcopy(opponents), others), labels)
            for name in self.single_faces():
                seated = _seated(copy.deepcopy(opponents), others)
                bound: set[int] = set()
                for agent in seated:
                    if id(agent) not in bound:  # bound once each, as the seat loop binds
                        bound.add(id(agent))
                        bind(agent, self.specs[agent.observation], self.batch.rules)
                self.seated[name] = seated
        self.opponent_decisions = dict.fromkeys(others, 0)
        self.step_rewards = {level: np.zeros((games, players)) for level in O.LEVELS}
        self.outcomes: list[dict[str, Any] | None] = [None] * games
        self.episodes = self.truncated = 0

    def single_faces(self) -> list[str]:
        """The faces but GameBatch (which the seat loop plays) and the vector env (which plays by itself)."""
        return [name for name in self.faces if name not in ("GameBatch", "UnoVectorEnv")]

    # -- comparing
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

    def states(self, g: int, vector: bool = True) -> dict[str, tuple[GameBatch, int]]:
        """Face name -> (the engine batch behind it, the game's row there); the vector env's only if `vector`."""
        faces = {"Game": (self.singles[g].batch, 0), "GameBatch": (self.batch, g)}
        faces.update({f"raw_env({level})": (envs[g].game, 0) for level, envs in self.aec.items()})
        if self.spiel is not None:
            faces["OpenSpiel"] = (self.spiel[g].game_batch(), 0)
        if vector:
            faces["UnoVectorEnv"] = (self.venv.game, g)
        return faces

    def check_state(self, step: int, g: int, vector: bool = True) -> None:
        """The whole engine state (generator included) and the episode's seed are the same behind every face
        (the vector env's only if `vector`: between its learner decisions it is inside its own step)."""
        faces = self.states(g, vector)
        blobs = {name: batch.state_array[row : row + 1].tobytes() for name, (batch, row) in faces.items()}
        spiel, game = blobs.get("OpenSpiel"), blobs["Game"]
        if spiel is not None and spiel != game and _same_live_state(spiel, game):
            blobs["OpenSpiel"] = game  # a new state each episode: nothing is left over past the piles' lengths
        if len(set(blobs.values())) > 1:
            self.agree(step, g, "describe()", {name: batch.describe(row) for name, (batch, row) in faces.items()})
            odd = [name for name, blob in blobs.items() if blob != blobs["Game"]]
            raise AssertionError(
                f"{self.where}: step {step}, game {g}: the engine state behind {', '.join(odd)} differs from Game's "
                "in what describe() leaves out (the generator, the step count or a memory of the game)"
            )
        seeds = {name: int(batch.episode_seeds[row]) for name, (batch, row) in faces.items() if name != "UnoVectorEnv"}
        if vector:
            seeds["UnoVectorEnv"] = int(self.venv.seeds[g])
        self.agree(step, g, "episode seed", seeds)

    def check_decision(self, step: int, g: int, masks: np.ndarray, seen: dict[str, np.ndarray]) -> None:
        """Deciding seat, phase, masks and every seat's observation at every level, for game g before a step."""
        single, batch, venv = self.singles[g], self.batch, self.venv
        seat = single.seat
        seats = {"Game": seat, "GameBatch": int(batch.seat[g]), "UnoVectorEnv": int(venv.seats[g])}
        seats.update({f"raw_env({lv})": self.agents.index(envs[g].agent_selection) for lv, envs in self.aec.items()})
        if self.spiel is not None:
            seats["OpenSpiel"] = self.spiel[g].current_player()
        self.agree(step, g, "deciding seat", seats)
        phases = {"Game": single.phase, "GameBatch": int(batch.phase[g]), "UnoVectorEnv": int(venv.game.phase[g])}
        phases["Game"] = A.PHASE_NAMES.index(phases["Game"])
        self.agree(step, g, "phase", phases)
        mask = np.zeros(A.NUM_ACTIONS, np.int8)
        mask[single.legal_action_ids()] = 1
        masks_of = {"Game": mask, "GameBatch": masks[g], "UnoVectorEnv": venv.masks[g]}
        if self.spiel is not None:
            masks_of["OpenSpiel"] = _mask_of(self.spiel[g].legal_actions())
        self.agree(step, g, "mask", masks_of)
        observers = np.arange(self.players, dtype=np.int64)
        rows = np.repeat(batch.state_array[g : g + 1], self.players)
        own = np.zeros((self.players, A.NUM_ACTIONS), np.int8)  # every seat's mask: empty but the deciding seat's
        own[seat] = mask
        for level, envs in self.aec.items():
            spec = self.specs[level]
            engine = np.empty((self.players, spec.size), np.int8)
            O.encode_batch(rows, batch.config_array, observers, spec.index, spec.offsets, engine)
            views = [envs[g].observe(agent) for agent in self.agents]
            observed = {"GameBatch": engine, f"raw_env({level})": np.stack([v["observation"] for v in views])}
            if self.spiel is not None:
                observer = self.spiel_observers[level]
                tensors = []
                for p in range(self.players):
                    observer.set_from(self.spiel[g], p)
                    tensors.append(observer.tensor.astype(np.int8))
                observed["OpenSpiel"] = np.stack(tensors)
            aec_masks = np.stack([v["action_mask"] for v in views])
            same = np.array_equal(aec_masks, own) and all(np.array_equal(engine, o) for o in observed.values())
            if not same:  # name the first seat and field that differ
                for p, agent in enumerate(self.agents):
                    self.agree(step, g, f"mask of {agent}", {"Game": own[p], f"raw_env({level})": aec_masks[p]})
                    pair = {name: observations[p] for name, observations in observed.items()}
                    self.agree(step, g, f"{level} observation of {agent}", pair, spec)
            pair = {"GameBatch": engine[seat], "UnoVectorEnv.observe": seen[level][g]}
            self.agree(step, g, f"deciding seat's {level} observation", pair, spec)
        pair = {"UnoVectorEnv.obs": venv.obs[g], "UnoVectorEnv.observe": seen[venv.observation_level][g]}
        self.agree(step, g, "vector env observation", pair, venv.spec)

    # -- playing
    def move(self, step: int, g: int, actions: dict[str, int], final_seat: int) -> None:
        """Apply each face's action to its game g (the vector env aside); at an episode's end compare how it
        ended (`settle`) and deal the next episode."""
        for name, action in actions.items():
            if name == "Game":
                self.singles[g].step(action)
            elif name == "GameBatch":
                self.batch.step_game(g, action)
            elif name == "OpenSpiel":
                self.spiel[g].apply_action(action)
            else:
                level = name[len("raw_env(") : -1]
                environment = self.aec[level][g]
                environment.step(action)
                self.step_rewards[level][g] += [environment.rewards[a] for a in self.agents]
        self.settle(step, g, final_seat)

    def settle(self, step: int, g: int, final_seat: int) -> None:
        """If game g's episode is over (in every face alike), compare how it ended, keep that for the vector env's
        report (`check_outcome`) and deal the next episode everywhere but in the vector env (which did it)."""
        single, batch = self.singles[g], self.batch
        over = {"Game": single.done, "GameBatch": bool(batch.done[g])}
        over.update({f"raw_env({lv})": _ended(envs[g]) for lv, envs in self.aec.items()})
        if self.spiel is not None:
            over["OpenSpiel"] = self.spiel[g].is_terminal()
        self.agree(step, g, "episode over", over)
        if not single.done:
            return
        ended = {
            "Game": (not single.truncated, single.truncated),
            "GameBatch": (not batch.truncated[g], bool(batch.truncated[g])),
        }
        for level, envs in self.aec.items():
            ended[f"raw_env({level})"] = (all(envs[g].terminations.values()), all(envs[g].truncations.values()))
        self.agree(step, g, "(terminated, truncated)", ended)
        level = self.venv.observation_level
        final = {"raw_env": self.aec[level][g].observe(self.agents[final_seat])["observation"]}
        if self.spiel is not None:
            final["OpenSpiel"] = self.spiel[g].observation(final_seat, level)
            returns = {"OpenSpiel.returns()": self.spiel[g].returns()}
            if self.reward == "win":  # the AEC env's rewards for the last step are the win
                returns["raw_env.rewards"] = [self.aec["minimal"][g].rewards[a] for a in self.agents]
            else:  # OpenSpiel's returns are the win whatever the other faces reward
                win = np.zeros(self.players)
                step_rewards_one(batch.state_array, batch.config_array, g, WIN, 0, win)
                returns["the win (uno_env.rewards)"] = win.tolist()
            self.agree(step, g, "returns", returns)
        self.agree(step, g, "final observation", final, self.specs[level])
        winners = single.winners
        self.outcomes[g] = {
            "(terminated, truncated)": ended["Game"],
            "final scores": single.scores,
            "winner": winners[0] if winners else -1,
            "final observation": final["raw_env"],
            "length": int(batch.state.steps[g]),
            "points": int(batch.state.round_points[g]),
        }
        self.episodes += 1
        self.truncated += single.truncated
        self.next_episode(g)

    def next_episode(self, g: int) -> None:
        """Game g of every face but the vector env (which did it itself) deals its next episode."""
        following = int(E.next_episode_seed(np.uint64(self.singles[g].batch.episode_seeds[0])))
        self.singles[g].reset(following)
        self.batch.reset_game(g, following)
        for envs in self.aec.values():
            envs[g].reset()  # no seed: the env goes on with the next episode's seed, as the vector env does
        if self.spiel is not None:  # a new state from the next seed of its own episode
            seed = int(E.next_episode_seed(np.uint64(self.spiel[g].game_batch().episode_seeds[0])))
            self.spiel[g] = self.spiel_game.new_initial_state(seed)

    def play_opponents(self, step: int, final_seats: np.ndarray) -> None:
        """The opponents' turns, played by the one seat loop (`uno_env.seats.SeatLoop`) on the GameBatch; every
        other face's copy of the same agent answers the same rows, observed through that face, and must choose
        the same actions, which each face then applies its own way."""
        if self.loop is None:
            return

        def apply(games: np.ndarray, actions: np.ndarray) -> None:
            seat = int(self.batch.seat[games[0]])
            index = int(self.assignment[seat])
            level = self.loop.agents[index].observation
            names = ("GameBatch", *self.single_faces())
            rows: dict[str, list] = {name: [] for name in names}
            for g in games.tolist():
                self.check_state(step, g, vector=False)
                seen = {name: self.observe(name, g, seat, level) for name in names}
                field = f"{level} observation of player_{seat} (an opponent)"
                self.agree(step, g, field, {name: obs for name, (obs, _) in seen.items()}, self.specs[level])
                self.agree(step, g, f"mask of player_{seat} (an opponent)", {k: m for k, (_, m) in seen.items()})
                for name in names:
                    rows[name].append(seen[name])
            chosen = {"GameBatch": actions}
            for name in self.single_faces():  # each face's copy of the agent, asked for the same rows
                observations, masks = (np.stack(part) for part in zip(*rows[name], strict=True))
                agent, state, config, rows_at = self.seated[name][index], None, None, np.arange(len(games))
                if hasattr(agent, "act_in_games"):  # a search agent: the engine states of its games, through the face
                    engines = [self.engine(name, int(g)) for g in games]
                    state = np.concatenate([batch.state_array[row : row + 1] for batch, row in engines])
                    config = engines[0][0].config_array
                chosen[name] = np.asarray(agent_actions(agent, state, config, rows_at, observations, masks))
            what = f"the action of the opponent at seat {seat} (each face asks its own copy of it)"
            for i, g in enumerate(games.tolist()):
                picked = {name: int(answer[i]) for name, answer in chosen.items()}
                self.agree(step, g, what, picked)
                self.move(step, g, picked, int(final_seats[g]))
            self.opponent_decisions[seat] += len(games)

        self.loop.play(self.assignment, apply=apply)

    def observe(self, name: str, g: int, seat: int, level: str) -> tuple[np.ndarray, np.ndarray]:
        """Seat `seat`'s observation of game g at `level` and its mask, read through face `name`."""
        if name == "OpenSpiel":
            state = self.spiel[g]
            return state.observation(seat, level), _mask_of(state.legal_actions(seat))
        if name == f"raw_env({level})":
            observed = self.aec[level][g].observe(self.agents[seat])
            return observed["observation"], observed["action_mask"]
        batch, row = self.engine(name, g)  # Game, GameBatch, an AEC env of another level
        return batch.observe(row, seat, level)

    def engine(self, name: str, g: int) -> tuple[GameBatch, int]:
        """The engine batch behind game g of face `name` (not the vector env), and the game's row there."""
        if name == "GameBatch":
            return self.batch, g
        if name == "Game":
            return self.singles[g].batch, 0
        if name == "OpenSpiel":
            return self.spiel[g].game_batch(), 0
        return self.aec[name[len("raw_env(") : -1]][g].game, 0

    def check_outcome(self, step, g, rewards, terminated, truncated, info) -> None:
        """The vector env's rewards, termination and truncation after a step, and at an episode's end its report,
        against the other faces'."""
        for level in O.LEVELS:
            pair = {"UnoVectorEnv": rewards[g], f"raw_env({level}), over the step": self.step_rewards[level][g]}
            self.agree(step, g, "rewards", pair)
        outcome = self.outcomes[g] or {"(terminated, truncated)": (False, False)}
        ended = (bool(terminated[g]), bool(truncated[g]))
        pair = {"the other faces": outcome["(terminated, truncated)"], "UnoVectorEnv": ended}
        self.agree(step, g, "(terminated, truncated)", pair)
        flags = {"an episode ended": self.outcomes[g] is not None, "info['_episode']": bool(info["_episode"][g]),
                 "info['_final_obs']": bool(info["_final_obs"][g])}  # fmt: skip
        self.agree(step, g, "episode flags", flags)
        if self.outcomes[g] is None:
            return
        episode = info["episode"]
        report = {
            "final scores": episode["scores"][g].tolist(),
            "winner": int(episode["winner"][g]),
            "length": int(episode["length"][g]),
            "points": int(episode["points"][g]),
        }
        for field, value in report.items():
            self.agree(step, g, field, {"Game": outcome[field], "UnoVectorEnv": value})
        pair = {"raw_env": outcome["final observation"], "UnoVectorEnv": info["final_obs"][g]}
        self.agree(step, g, "final observation", pair, self.venv.spec)

    def begin_step(self) -> None:
        """Forget the last step's rewards and episode ends."""
        for rewards in self.step_rewards.values():
            rewards[:] = 0.0
        self.outcomes = [None] * len(self.outcomes)


_PILES = (("draw_pile", "draw_len"), ("discard", "discard_len"), ("fh_card", "fh_len"), ("fh_seat", "fh_len"),
          ("fh_wrong", "fh_len"))  # fmt: skip
_FIELD_BYTES = np.zeros(E.STATE_DTYPE.itemsize, np.bool_)  # the bytes of a state record that belong to a field
for _name in E.STATE_DTYPE.names:
    _field, _offset = E.STATE_DTYPE.fields[_name][:2]
    _FIELD_BYTES[_offset : _offset + _field.itemsize] = True


def _same_live_state(first: bytes, second: bytes) -> bool:
    """Whether two games' state records are the same but for padding and the piles' entries past their lengths:
    what is left over there from earlier episodes depends on how a face deals them, not on the game."""
    differ = (np.frombuffer(first, np.uint8) != np.frombuffer(second, np.uint8)) & _FIELD_BYTES
    st = np.frombuffer(first, E.STATE_DTYPE)[0]
    for pile, length in _PILES:
        field, offset = E.STATE_DTYPE.fields[pile][:2]
        differ[offset + int(st[length]) * field.base.itemsize : offset + field.itemsize] = False
    return not differ.any()


def _ended(environment) -> bool:
    return all(environment.terminations.values()) or all(environment.truncations.values())


def _mask_of(legal: list[int]) -> np.ndarray:
    mask = np.zeros(A.NUM_ACTIONS, np.int8)
    mask[legal] = 1
    return mask


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
    observation: str = "knowledge",
    learner_seats: str | int | list[int] = "all",
    opponents: Any = None,
    openspiel: bool | None = None,
    **rule_options: Any,
) -> dict[str, Any]:
    """Step `Game`, `GameBatch`, the AEC env (`raw_env`, one per observation level), the OpenSpiel game
    (`uno_env.openspiel`'s `python_uno`) and `UnoVectorEnv` side by side for `steps` learner decisions of `games`
    games, from the same seed, and raise AssertionError naming the first step, game and field that differ.

    The learner seats (`learner_seats`, as the vector env takes them; "all" by default) take the same random legal
    actions in every face (a card whenever one is legal, in three rows out of four, so that episodes end in tens
    of decisions). The other seats are played by `opponents` (an agent, or a dict seat -> agent, as the vector env
    takes them): the vector env plays its copy itself; in the other faces copies of the same agents are asked by
    the one seat loop (`uno_env.seats.SeatLoop`) for the same rows in the same order, each through its own face,
    and must choose the same actions. Every face gets its own copies (`copy.deepcopy`, before any is bound), so
    an agent passes if it is deterministic for its state and independent of batch size (`check_agent`).

    Compared at every learner decision: the engine state behind each face and the episode's seed, the deciding
    seat, phase, legal masks, and every seat's observation at every level (the AEC env's and OpenSpiel's against
    the engine's encoding; the deciding seat's against the vector env's, whose own level is `observation`); at
    every opponent decision: the states, the opponent's observation and mask through each face, and its copies'
    actions; after every step: the rewards (the vector env's against the AEC env's over the step), termination
    and truncation; at an episode's end: how it ended in each face, OpenSpiel's returns (the win), and the vector
    env's report (scores, winner, length, points, final observation). Game g is dealt from seed + g, as the
    vector env's game g after `reset(seed=seed)`; every face then goes on with the next episode's seed.

    `openspiel`: True requires the OpenSpiel face, False leaves it out, None (default) adds it where the
    openspiel extra is installed and its parameters can express the rules. Returns a summary: learner decisions
    compared, episodes ended (and truncated), learner decisions per phase, opponent decisions per seat, faces.
    """
    faces = _Faces(variant, players, games, seed, episode, reward, observation, learner_seats, opponents, openspiel,
                   rule_options)  # fmt: skip
    rng = np.random.default_rng(seed)
    phases: Counter[str] = Counter()
    faces.play_opponents(0, np.full(games, faces.learners[0]))  # as the vector env's reset plays them
    for step in range(steps):
        masks = faces.batch.legal_masks().astype(np.int8)
        seen = {level: faces.venv.observe(level) for level in O.LEVELS}
        for g in range(games):
            faces.check_state(step, g)
            faces.check_decision(step, g, masks, seen)
            phases[faces.singles[g].phase] += 1
        actions = _eager_random_actions(masks, rng)
        final_seats = faces.batch.seat.astype(np.int64)  # whose final observation an episode ending now reports
        faces.begin_step()
        faces.batch.step(actions)
        for g in range(games):
            faces.move(step, g, {name: int(actions[g]) for name in faces.single_faces()}, int(final_seats[g]))
        faces.play_opponents(step, final_seats)
        _, _, rewards, terminated, truncated, info = faces.venv.step(actions)
        for g in range(games):
            faces.check_outcome(step, g, rewards, terminated, truncated, info)
    return {
        "steps": steps * games,
        "episodes": faces.episodes,
        "truncated": faces.truncated,
        "phases": dict(phases),
        "opponent_decisions": faces.opponent_decisions,
        "faces": faces.faces,
    }


# ------------------------------------------------------------------------------ the engine on the GPU

def compare_with_cpu(variant: str = "classic", num_players: int = 2, num_envs: int = 8, steps: int = 40, *,
                     seed: int = 0, opponents: Any = None, learner_seats: Any = "all", observation: str = "knowledge",
                     **rule_options: Any) -> str | None:  # fmt: skip
    """Play the same games on the device and on the CPU and compare every step's observations, masks, rewards and
    episode ends; returns the first difference in words, or None. Without opponents, or against a policy network
    that takes its most likely action, the CPU side is the ordinary `UnoVectorEnv`; against a device rule it is
    `vector_cuda.step_game_until_learner` compiled for the CPU (`CpuMirror`), as the agents' device rules draw from
    each game's own stream. The learners' actions are drawn on the host from the masks."""
    from .vector_cuda import CudaVectorEnv, host

    kwargs = dict(learner_seats=learner_seats, observation=observation, **rule_options)
    device_env = CudaVectorEnv(variant, num_players, num_envs, opponents=opponents, **kwargs)
    same_env = opponents is None or hasattr(opponents, "act_on_device")  # a network decides alike on both
    cpu_env = UnoVectorEnv(variant, num_players, num_envs, opponents=opponents, **kwargs) if same_env else None
    mirror = None if same_env else CpuMirror(device_env)
    rng = np.random.default_rng(seed)
    device_out = device_env.reset(seed)
    cpu_out = cpu_env.reset(seed) if cpu_env is not None else mirror.reset(seed)
    for t in range(steps + 1):
        names = ("obs", "masks", "rewards", "terminated", "truncated")
        for name, a, b in zip(names, device_out, cpu_out, strict=False):
            a, b = host(a), host(b)
            if not np.array_equal(a, b):
                games = np.flatnonzero((a != b).reshape(num_envs, -1).any(axis=1))
                return f"{variant} {num_players}p: step {t}: {name} differ in games {games.tolist()}"
        if t == steps:
            return None
        actions = A.random_legal_actions(host(device_out[1]), rng).astype(np.int64)
        device_out = device_env.step(actions)
        cpu_out = cpu_env.step(actions) if cpu_env is not None else mirror.step(actions)
    return None


def compare_shared_kernel(opponents: list[Any], variant: str = "classic", num_players: int = 2, num_envs: int = 1,
                          steps: int = 10, *, seed: int = 0) -> str | None:  # fmt: skip
    """Play a league of device envs (one per opponent, the learner in seat i % num_players of group i) twice, with a
    step kernel each and with one kernel between them (`vector_cuda.share_kernel`), and compare every step's
    observations, masks and rewards; returns the first difference in words, or None. Each league plays copies of
    the `opponents`, as they are when called."""
    from .vector_cuda import CudaVectorEnv, host, share_kernel

    def league() -> list[Any]:
        return [CudaVectorEnv(variant, num_players, num_envs, opponents=copy.deepcopy(opponent),
                              learner_seats=[i % num_players]) for i, opponent in enumerate(opponents)]  # fmt: skip

    own, shared = league(), league()
    share_kernel(shared)
    if len({id(env._step_kernel) for env in shared}) != 1:
        return "the shared league has more than one kernel"
    rngs = [np.random.default_rng(seed), np.random.default_rng(seed)]
    outs = [[env.reset(seed=seed + 10 * i) for i, env in enumerate(envs)] for envs in (own, shared)]
    for t in range(steps + 1):
        for i in range(len(opponents)):
            for name, a, b in zip(("obs", "masks", "rewards"), outs[0][i], outs[1][i], strict=False):
                if not np.array_equal(host(a), host(b)):
                    return f"group {i}: step {t}: {name} differ"
        if t == steps:
            return None
        for k, envs in enumerate((own, shared)):
            outs[k] = [env.step(A.random_legal_actions(host(out[1]), rngs[k]).astype(np.int64))
                       for env, out in zip(envs, outs[k], strict=True)]  # fmt: skip
    return None


class CpuMirror:
    """The device env's step on the CPU (`vector_cuda.cpu_steps`: the same source compiled for the CPU), on host
    copies of the same starting state: the reference that `compare_with_cpu` holds the device to when opponents play."""

    def __init__(self, device_env):
        from . import vector_cuda

        EPISODE_FIELDS, cpu_steps = vector_cuda.EPISODE_FIELDS, vector_cuda.cpu_steps
        env = self.env = device_env
        b, n = env.num_envs, env.num_players
        self.steps = cpu_steps(env.rule.decide)
        self.s = env.game.state_array.copy().view(np.recarray)  # records by attribute also as Python (no JIT)
        self.results = np.zeros(b, RESULT_DTYPE).view(np.recarray)
        self.episodes = np.zeros((b, len(EPISODE_FIELDS)), np.int64)
        self.opp_obs = np.zeros((b, env.opponent_spec.size), np.int8)
        self.opp_masks = np.zeros((b, A.NUM_ACTIONS), np.int8)
        self.waiting = np.zeros(b, np.int8)
        self.rewards = np.zeros((b, n))
        self.final_obs = np.zeros((b, env.observation_size), np.int8)
        self.final_seats = np.zeros(b, np.int64)
        self.obs = np.zeros((b, env.observation_size), np.int8)
        self.masks = np.zeros((b, A.NUM_ACTIONS), np.int8)
        self.seats = np.zeros(b, np.int64)
        self.learner = np.zeros(E.MAX_PLAYERS, np.int8)
        self.learner[env.learner_seats] = 1

    def reset(self, seed: int):
        env = self.env
        self.seeds = validate.seeds(seed, env.num_envs, "seed")
        self.opp_rng = self.env.opponent_streams(self.seeds)
        self.final_seats[:] = env.learner_seats[0]
        for g in range(env.num_envs):
            E.reset_game(self.s[g], env.game.config_array[0], self.seeds[g])
        return self._run(np.zeros(env.num_envs, np.int64), acting=False)[:2]

    def step(self, actions: np.ndarray):
        return self._run(actions, acting=True)

    def _run(self, actions: np.ndarray, acting: bool):
        from .vector_cuda import ACT, OBSERVE

        env = self.env
        rule = env.rule
        mode = ACT if acting else OBSERVE
        self.steps(self.s, env.game.config_array, mode, actions, self.learner, env._reward_kind, env.spec.index,
                   env.spec.offsets, False, env.opponent_spec.index, env.opponent_spec.offsets,
                   np.asarray(rule.points), np.asarray(rule.counts), rule.params, self.opp_rng, self.opp_obs,
                   self.opp_masks, self.waiting, self.rewards, self.results, self.episodes, self.seeds,
                   self.final_obs, self.final_seats, self.obs, self.masks, self.seats)  # fmt: skip
        ended = self.episodes[:, 0]
        return self.obs, self.masks, self.rewards, ended == ENDED_TERMINATED, ended == ENDED_TRUNCATED
