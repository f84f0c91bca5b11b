"""Property-based fuzzing of the public API with Hypothesis (see docs/robustness.md).

Four state machines (`hypothesis.stateful.RuleBasedStateMachine`) drive `Game`, `GameBatch`, the AEC `raw_env`
and `UnoVectorEnv` through random sequences of valid calls (legal actions by id and by name, resets with valid
seeds and deals, copies, pickles and deep copies in mid-game, descriptions) and invalid ones (illegal and
out-of-range action ids, floats, strings, bools, None, bad seeds, bad game indices, stepping after the end,
malformed deals). After every rule:

- nothing raised but the documented refusals (ValueError, TypeError; IllegalActionError is a ValueError; for
  the AEC env also PettingZoo's own AssertionError);
- a refused call left the object exactly as it was (`describe()`, the raw state bytes, seeds and bookkeeping);
- every invalid input was refused (never silently accepted);
- the engine's invariant check passes;
- a clone (copy, pickle, deepcopy) equals the original and continues exactly like it; stepping a clone leaves
  the original as it was.

Plain `@given` tests fuzz `make_rules` (accepted or ValueError, and an accepted rule set plays 200 validated
random decisions), and a smoke test runs `benchmarks/soak.py`. Numba compiles (or loads its cache) on a first
call, so there are no deadlines; a watchdog ends the process with a traceback if a test hangs in compiled code.
"""

from __future__ import annotations

import copy
import faulthandler
import json
import pickle
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from uno_env import NUM_ACTIONS, PRESETS, Game, GameBatch, RuleSet, make_rules, raw_env
from uno_env import cards as C
from uno_env.game import DEFAULT_MAX_STEPS, NO_ACTION
from uno_env.observation import LEVELS
from uno_env.rules import OPTIONS
from uno_env.seats import RandomPlay
from uno_env.vector import UnoVectorEnv

ROOT = Path(__file__).resolve().parents[2]
WATCHDOG_S = 900  # past Hypothesis's 5 minutes of shrinking: a test still running is stuck; dump the stacks, exit
REFUSED = (ValueError, TypeError)  # the documented refusals; IllegalActionError is a ValueError
AEC_REFUSED = (*REFUSED, AssertionError)  # PettingZoo's API asserts some misuse itself
CLONES = ("copy", "pickle", "deepcopy")

# Hypothesis keeps no example database here (it would write .hypothesis/ into the repository); a failure prints
# its reproducer, and `print_blob` a blob for @reproduce_failure.
MACHINE_SETTINGS = settings(max_examples=12, stateful_step_count=25, deadline=None, database=None, print_blob=True)
GIVEN_SETTINGS = settings(max_examples=60, deadline=None, database=None, print_blob=True)
RULES_SETTINGS = settings(GIVEN_SETTINGS, max_examples=150)  # most requests are refused at once


@pytest.fixture(autouse=True)
def _watchdog():
    """Compiled code cannot be interrupted: a hang there would stall the whole run, so end it with its stacks."""
    faulthandler.dump_traceback_later(WATCHDOG_S, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


# ---------------------------------------------------------------------------------------------- strategies

VALID_SEEDS = st.one_of(
    st.integers(0, 2**16),
    st.integers(0, 2**64 - 1),
    st.sampled_from([0, 2**63 - 1, 2**63, 2**64 - 1]),
    st.integers(0, 2**63 - 1).map(np.int64),
    st.integers(0, 2**64 - 1).map(np.uint64),
)
# A batch's int seed gives game g the seed + g (modulo 2**64): these stay clear of the wrap all the same.
VALID_BATCH_SEEDS = st.one_of(st.integers(0, 2**16), st.integers(0, 2**63), st.integers(0, 2**62).map(np.uint64))
INVALID_SCALAR_SEEDS = st.one_of(
    st.integers(max_value=-1),
    st.integers(min_value=2**64),
    st.floats(allow_nan=True, allow_infinity=True),  # 3.0 included: a seed is an int
    st.sampled_from([36.9, 3.0, -1.5, np.float64(7.0), np.float32(2.5), np.int64(-5)]),
    st.booleans(),
    st.text(max_size=6),
    st.integers(0, 10**6).map(str),  # "7": a string, however numeric
    st.just(b"7"),
)
INVALID_SEEDS = INVALID_SCALAR_SEEDS | st.lists(st.integers(0, 5), min_size=1, max_size=3)  # where one seed is due


def invalid_batch_seeds(size: int):
    """Neither one seed nor `size` of them."""
    return INVALID_SCALAR_SEEDS | st.lists(st.integers(0, 5), max_size=6).filter(lambda seeds: len(seeds) != size)


BAD_ACTION_VALUES = st.one_of(
    st.integers(max_value=-1),
    st.integers(min_value=NUM_ACTIONS),
    st.sampled_from([-(2**70), 2**70, 2**63, NUM_ACTIONS]),
    st.floats(allow_nan=True, allow_infinity=True),  # 36.9, 59.0, nan, inf
    st.sampled_from([36.9, 59.0, 0.5, np.float64(59.0), np.float32(36.9)]),
    st.booleans(),
    st.none(),
    st.integers(0, NUM_ACTIONS - 1).map(str),  # "59"
    st.sampled_from(["", "fly", "play", "play X9", "play R10", "color purple", "swap +0", "swap +10", "uno uno"]),
    st.just(b"draw"),
    st.lists(st.integers(0, NUM_ACTIONS - 1), min_size=1, max_size=2),
)
BAD_BATCH_ACTIONS = BAD_ACTION_VALUES.filter(lambda a: not (type(a) is int and a == NO_ACTION))  # -1: leave it be
INVALID_CARDS = ["X9", "Z+2", "R10", "WW", "", "PP", "+2", 5, None, 2.5, ["R5"]]
INT_TYPES = (int, np.int64, np.int32, np.uint8)


def bad_game_indices(batch_size: int):
    return st.one_of(
        st.integers(max_value=-1),
        st.integers(batch_size, batch_size + 3),
        st.sampled_from([2**31, 0.0, 0.5, float(batch_size - 1), True, False, None, "0", [0]]),
    )


def option_values(option, preset: str, wide: bool = False):
    """Valid values of one row of the option table (a partial mapping for the 'cards' options)."""
    if option.kind == "bool":
        return st.booleans()
    if option.kind == "int":
        small = st.integers(option.low, min(option.high, option.low + 9))
        return st.one_of(small, st.integers(option.low, option.high)) if wide else small
    if option.kind == "rate":
        return st.one_of(st.sampled_from([0.0, 1.0]), st.floats(0.0, 1.0))
    if option.kind == "choice":
        return st.sampled_from(option.choices)
    keys = st.sampled_from(make_rules(preset).codes + list(C.RANK_CODES))
    counts = st.integers(0, 4) if option.name == "card_counts" and not wide else st.integers(0, option.high)
    return st.dictionaries(keys, counts, max_size=12 if wide else 4)


def option_mixes(preset: str):
    return st.fixed_dictionaries({}, optional={option.name: option_values(option, preset) for option in OPTIONS})


@st.composite
def game_setups(draw):
    """preset, players, options, episode, max_steps: the game a machine fuzzes."""
    preset = draw(st.sampled_from(PRESETS), label="preset")
    players = draw(st.integers(2, 10), label="players")
    options = draw(option_mixes(preset), label="options")
    episode = draw(st.sampled_from(["round", "match"]), label="episode")
    max_steps = draw(st.one_of(st.just(DEFAULT_MAX_STEPS), st.integers(1, 150)), label="max_steps")
    try:
        make_rules(preset, **options).check_players(players)
    except ValueError:  # a deck too small for so many players: the preset's own deck deals for 2-10
        options = {k: v for k, v in options.items() if k not in ("card_counts", "hand_size")}
        note(f"options cut to {options}")
    return preset, players, options, episode, max_steps


@st.composite
def valid_deals(draw, rules: RuleSet, players: int, target: int | None = None):
    """A dealt scenario: every seat at least one card, a card other than Wild Draw Four left to turn."""
    deck = [code for code, n in rules.card_counts_by_code().items() for _ in range(n)]
    deck = draw(st.permutations(deck))
    reserve = next(i for i, code in enumerate(deck) if code != "W+4")
    rest = deck[:reserve] + deck[reserve + 1 :]
    hands = []
    for seat in range(players):
        most = len(rest) - (players - seat - 1)
        size = min(draw(st.integers(1, 7)), most)
        hands.append(rest[:size])
        rest = rest[size:]
    deal: dict = {"dealer": draw(st.integers(0, players - 1)), "hands": hands}
    if rest and draw(st.booleans()):
        deal["top"], rest = rest[0], rest[1:]
    if rest and draw(st.booleans()):
        k = draw(st.integers(1, min(5, len(rest))))
        deal["deck"], rest = rest[:k], rest[k:]
    if rest and draw(st.booleans()):
        foreheads = [[] for _ in range(players)]
        for code in rest[: draw(st.integers(0, min(3, len(rest))))]:
            foreheads[draw(st.integers(0, players - 1))].append(code)
        deal["foreheads"] = foreheads
    if draw(st.booleans()):
        high = max(0, min(100, (target or 101) - 1))
        deal["scores"] = [draw(st.integers(0, high)) for _ in range(players)]
    return deal


@st.composite
def malformed_deals(draw, rules: RuleSet, players: int):
    """A deal with one thing wrong: an empty hand, an unknown card, too many copies, a bad dealer, ..."""
    deal = draw(valid_deals(rules, players))
    hands = deal["hands"]
    kind = draw(
        st.sampled_from(
            [
                "empty hand", "unknown card in a hand", "unknown top", "unknown deck card", "too many copies",
                "hands count", "dealer", "hands type", "unknown key", "missing key", "scores", "not a dict",
                "unknown forehead card",
            ]
        ),
        label="malformed",
    )  # fmt: skip
    seat = draw(st.integers(0, players - 1))
    if kind == "empty hand":  # no card at all (a seat may hold only forehead cards)
        hands[seat] = []
        if deal.get("foreheads"):
            deal["foreheads"][seat] = []
    elif kind == "unknown card in a hand":
        hands[seat] = [*hands[seat], draw(st.sampled_from(INVALID_CARDS))]
    elif kind == "unknown top":
        deal["top"] = draw(st.sampled_from([c for c in INVALID_CARDS if c is not None]))
    elif kind == "unknown deck card":
        deal["deck"] = [*deal.get("deck", []), draw(st.sampled_from(INVALID_CARDS))]
    elif kind == "unknown forehead card":
        foreheads = deal.get("foreheads") or [[] for _ in range(players)]
        foreheads[seat] = [*foreheads[seat], draw(st.sampled_from(INVALID_CARDS))]
        deal["foreheads"] = foreheads
    elif kind == "too many copies":
        code = draw(st.sampled_from(sorted(rules.card_counts_by_code())))
        hands[seat] = [*hands[seat], *[code] * (rules.card_counts_by_code()[code] + 1)]
    elif kind == "hands count":
        deal["hands"] = hands[:-1] if draw(st.booleans()) else [*hands, ["W"]]
    elif kind == "dealer":
        deal["dealer"] = draw(st.sampled_from([-1, players, players + 5, True, 0.0, 1.5, "0", None]))
    elif kind == "hands type":
        deal["hands"] = draw(st.sampled_from(["R5 R6", None, 7, {0: ["R5"]}]))
    elif kind == "unknown key":
        deal[draw(st.sampled_from(["dealr", "hand", "seed", ""]))] = 0
    elif kind == "missing key":
        del deal[draw(st.sampled_from(["dealer", "hands"]))]
    elif kind == "scores":
        deal["scores"] = draw(
            st.sampled_from(
                [[-1] * players, [0] * (players + 1), [0.5] * players, [True] * players, "0", [None] * players]
            )
        )
    else:
        deal = draw(st.sampled_from([[hands], "R5", 3, ()]))
    note(f"malformed deal ({kind}): {deal!r}")
    return deal


# ---------------------------------------------------------------------------------------------- helpers


def refused(call, snapshot, what: str, allowed=REFUSED) -> None:
    """`call` must raise one of `allowed` and leave `snapshot()` exactly as it was."""
    before = snapshot()
    try:
        call()
    except allowed:
        pass
    else:
        raise AssertionError(f"{what} was accepted: it must be refused")
    assert snapshot() == before, f"refused {what} changed the state"


def accepted_or_refused(call, snapshot, allowed=REFUSED) -> bool:
    """`call` may be accepted or refused (one of `allowed`); refused, it must leave `snapshot()` as it was."""
    before = snapshot()
    try:
        call()
    except allowed:
        assert snapshot() == before, "a refused call changed the state"
        return False
    return True


def state_bytes(array: np.ndarray) -> bytes:
    """The raw bytes of every field of an engine state array: `state_array.tobytes()` less the alignment padding
    between fields, which means nothing and which numpy's copies do not keep."""
    return b"".join(array[name].tobytes() for name in array.dtype.names)


def clone(obj, how: str):
    if how == "copy":
        return obj.copy()
    if how == "pickle":
        return pickle.loads(pickle.dumps(obj))
    return copy.deepcopy(obj)


def twin_goes_alike(machine, original, how: str, data, wander, step_alike, decisions: int):
    """The check of every machine's `clone_continues_exactly`: a clone (made `how`) of the `original` that `machine`
    plays is equal to it; stepping another clone (`wander(clone, rng)`) leaves the original as it was; then, up to
    `decisions` times, `step_alike(twin, rng)` steps the original and the first clone alike, and they stay equal.
    Returns the twin."""
    twin = clone(original, how)
    assert machine.snapshot(twin) == machine.snapshot(), f"a {how} differs from the original"
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32), label="rng"))
    before = machine.snapshot()
    wander(clone(original, how), rng)
    assert machine.snapshot() == before, f"stepping a {how} changed the original"
    for _ in range(data.draw(st.integers(1, decisions), label="decisions")):
        step_alike(twin, rng)
        assert machine.snapshot(twin) == machine.snapshot(), f"a {how} went another way than the original"
    return twin


def pick(rng, legal, who: str) -> int:
    """A random legal action; `who` must have one."""
    assert len(legal), f"{who} has no legal action"
    return int(rng.choice(legal))


def as_int_type(data, action: int):
    """A legal action id as int or a numpy integer type."""
    return data.draw(st.sampled_from(INT_TYPES), label="id type")(action)


def name_variant(data, name: str) -> str:
    return data.draw(st.sampled_from([str, str.upper, str.title, lambda s: f"  {s} "]), label="name form")(name)


# ---------------------------------------------------------------------------------------------- Game


class GameMachine(RuleBasedStateMachine):
    """One `Game`: any preset, 2-10 players, a random option mix, round or match, sometimes a small step limit."""

    @initialize(setup=game_setups(), seed=VALID_SEEDS)
    def start(self, setup, seed):
        self.preset, self.players, self.options, self.episode, self.max_steps = setup
        self.game = self.new_game(seed)
        self.rules = self.game.rules

    def new_game(self, seed, deal=None) -> Game:
        return Game(
            self.preset, self.players, seed=seed, deal=deal, episode=self.episode, max_steps=self.max_steps,
            **self.options,
        )  # fmt: skip

    def snapshot(self, game: Game | None = None):
        game = game or self.game
        batch = game.batch
        return repr(game.describe()), state_bytes(batch.state_array), batch.episode_seeds.tobytes()

    def legal(self) -> list[int]:
        return self.game.legal_action_ids()

    # -------------------------------------------------------------- valid calls
    @precondition(lambda self: not self.game.done)
    @rule(data=st.data())
    def play_legal_id(self, data):
        self.game.step(as_int_type(data, data.draw(st.sampled_from(self.legal()), label="action")))

    @precondition(lambda self: not self.game.done)
    @rule(data=st.data())
    def play_legal_name(self, data):
        name = data.draw(st.sampled_from(self.game.legal_actions()), label="action")
        self.game.step(name_variant(data, name))

    @rule(decisions=st.integers(1, 80), seed=st.integers(0, 2**32))
    def play_many(self, decisions, seed):
        rng = np.random.default_rng(seed)
        for _ in range(decisions):
            if self.game.done:
                return
            self.game.step(pick(rng, self.legal(), "a live game"))

    @rule(seed=VALID_SEEDS)
    def reset(self, seed):
        self.game.reset(seed)
        assert self.game.describe() == self.new_game(seed).describe(), "reset(seed) deals another game than Game(seed)"

    @rule(data=st.data(), seed=VALID_SEEDS)
    def reset_dealt(self, data, seed):
        deal = data.draw(valid_deals(self.rules, self.players, self.rules.target_score), label="deal")
        self.game.reset(seed, deal)

    @rule(seed=VALID_SEEDS, voids=st.booleans())
    def resample_hidden(self, seed, voids):
        world = self.game.copy()
        # refused (the episode is over, no forehead shuffle fits, no redeal keeps the voids): a ValueError, unchanged
        accepted_or_refused(lambda: world.resample_hidden(seed, voids=voids), lambda: self.snapshot(world))

    @rule(how=st.sampled_from(CLONES), data=st.data())
    def clone_continues_exactly(self, how, data):
        def wander(other, rng):
            for _ in range(20):
                if other.done:
                    break
                other.step(pick(rng, other.legal_action_ids(), f"a live {how}"))

        def step_alike(twin, rng):
            if self.game.done:
                seed = data.draw(VALID_SEEDS, label="seed")
                self.game.reset(seed)
                twin.reset(seed)
            else:
                action = pick(rng, self.legal(), "a live game")
                self.game.step(action)
                twin.step(action)
            assert twin.legal_actions() == self.game.legal_actions()

        twin_goes_alike(self, self.game, how, data, wander, step_alike, 40)

    # -------------------------------------------------------------- invalid calls
    @rule(data=st.data())
    def illegal_id(self, data):
        legal = set(self.legal())
        illegal = [a for a in range(NUM_ACTIONS) if a not in legal]
        action = as_int_type(data, data.draw(st.sampled_from(illegal), label="illegal action"))
        refused(lambda: self.game.step(action), self.snapshot, f"illegal action {action!r}")

    @rule(data=st.data())
    def illegal_name(self, data):
        legal = set(self.game.legal_actions())
        illegal = [name for name in self.game.action_names if name not in legal]
        name = name_variant(data, data.draw(st.sampled_from(illegal), label="illegal action"))
        refused(lambda: self.game.step(name), self.snapshot, f"illegal action {name!r}")

    @rule(action=BAD_ACTION_VALUES)
    def bad_action(self, action):
        refused(lambda: self.game.step(action), self.snapshot, f"action {action!r}")

    @precondition(lambda self: self.game.done)
    @rule(action=st.integers(0, NUM_ACTIONS - 1))
    def step_after_end(self, action):
        refused(lambda: self.game.step(action), self.snapshot, f"action {action} after the episode ended")

    @rule(seed=INVALID_SEEDS)
    def reset_bad_seed(self, seed):
        refused(lambda: self.game.reset(seed), self.snapshot, f"seed {seed!r}")

    @rule(seed=INVALID_SEEDS)
    def resample_bad_seed(self, seed):
        refused(lambda: self.game.resample_hidden(seed), self.snapshot, f"resample seed {seed!r}")

    @rule(data=st.data(), seed=VALID_SEEDS)
    def reset_malformed_deal(self, data, seed):
        deal = data.draw(malformed_deals(self.rules, self.players), label="deal")
        refused(lambda: self.game.reset(seed, deal), self.snapshot, f"malformed deal {deal!r}")

    @rule(seed=INVALID_SEEDS)
    def construct_bad_seed(self, seed):
        refused(lambda: self.new_game(seed), self.snapshot, f"Game(seed={seed!r})")

    # -------------------------------------------------------------- invariants
    @invariant()
    def engine_invariants_hold(self):
        self.game.check()

    @rule(seat=st.integers(-3, 12) | st.sampled_from([0.0, True, None, "0"]))
    def hand(self, seat):
        if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < self.players:
            assert self.game.hand(seat) == self.game.describe()["hands"][seat]
        else:
            refused(lambda: self.game.hand(seat), self.snapshot, f"hand({seat!r})")

    @invariant()
    def describes_in_plain_values(self):
        description = self.game.describe()
        assert json.loads(json.dumps(description)) == description

    @invariant()
    def legal_actions_agree(self):
        legal = self.legal()
        assert bool(legal) != self.game.done, "a live game needs a legal action, a finished one has none"
        assert self.game.legal_actions() == [self.game.action_names[a] for a in legal]
        assert (self.game.phase == "over") == self.game.done


# ---------------------------------------------------------------------------------------------- GameBatch


class GameBatchMachine(RuleBasedStateMachine):
    """A `GameBatch` of 1-4 games: batched steps (NO_ACTION for some games), per-game calls, seeds arrays."""

    @initialize(setup=game_setups(), batch_size=st.integers(1, 4), seed=VALID_BATCH_SEEDS)
    def start(self, setup, batch_size, seed):
        self.preset, self.players, self.options, self.episode, self.max_steps = setup
        self.size = batch_size
        self.batch = self.new_batch()
        self.batch.reset(seed)
        self.rules = self.batch.rules

    def new_batch(self) -> GameBatch:
        return GameBatch(
            self.preset, self.players, self.size, episode=self.episode, max_steps=self.max_steps, **self.options
        )

    def snapshot(self, batch: GameBatch | None = None):
        batch = batch or self.batch
        descriptions = repr([batch.describe(g) for g in range(self.size)])
        return state_bytes(batch.state_array), batch.episode_seeds.tobytes(), descriptions

    def legal_lists(self, batch: GameBatch | None = None) -> list[list[int]]:
        masks = (batch or self.batch).legal_masks()
        return [[int(a) for a in np.flatnonzero(masks[g])] for g in range(self.size)]

    def random_actions(self, rng, batch=None) -> np.ndarray:
        return np.array([int(rng.choice(legal)) if legal else NO_ACTION for legal in self.legal_lists(batch)])

    def drawn_actions(self, data) -> list[int]:
        """A legal action or NO_ACTION per game (always NO_ACTION for a finished game)."""
        return [
            data.draw(st.sampled_from(legal) | st.just(NO_ACTION), label=f"game {g}") if legal else NO_ACTION
            for g, legal in enumerate(self.legal_lists())
        ]

    # -------------------------------------------------------------- valid calls
    @rule(data=st.data(), form=st.sampled_from(["list", "int64", "int32", "int16"]))
    def step_legal(self, data, form):
        actions = self.drawn_actions(data)
        self.batch.step(actions if form == "list" else np.array(actions, dtype=form))

    @rule(data=st.data())
    def step_game_legal(self, data):
        live = [g for g, legal in enumerate(self.legal_lists()) if legal]
        if not live:
            return
        g = data.draw(st.sampled_from(live), label="game")
        action = data.draw(st.sampled_from(self.legal_lists()[g]), label="action")
        self.batch.step_game(as_int_type(data, g), as_int_type(data, action))

    @rule(steps=st.integers(1, 60), agent_seed=VALID_BATCH_SEEDS)
    def play_random(self, steps, agent_seed):
        finished = self.batch.play_random(steps, agent_seed, validate=True)
        assert isinstance(finished, int) and finished >= 0

    @rule(seed=VALID_BATCH_SEEDS)
    def reset_int(self, seed):
        self.batch.reset(seed)
        fresh = self.new_batch()
        fresh.reset(seed)
        assert [self.batch.describe(g) for g in range(self.size)] == [fresh.describe(g) for g in range(self.size)], (
            "reset(seed) deals other games than a new batch's reset(seed)"
        )

    @rule(data=st.data())
    def reset_array(self, data):
        seeds = data.draw(st.lists(st.integers(0, 2**64 - 1), min_size=self.size, max_size=self.size), label="seeds")
        self.batch.reset(seeds if data.draw(st.booleans()) else np.array(seeds, np.uint64))

    @rule(data=st.data())
    def reset_where(self, data):
        which = data.draw(st.lists(st.booleans(), min_size=self.size, max_size=self.size), label="which")
        seeds = data.draw(st.lists(st.integers(0, 2**64 - 1), min_size=self.size, max_size=self.size), label="seeds")
        untouched = [g for g in range(self.size) if not which[g]]
        before = [self.batch.describe(g) for g in untouched]
        self.batch.reset_where(np.array(which), np.array(seeds, np.uint64))
        assert [self.batch.describe(g) for g in untouched] == before, "reset_where touched another game"

    @rule(data=st.data(), seed=VALID_SEEDS)
    def reset_game(self, data, seed):
        g = data.draw(st.integers(0, self.size - 1), label="game")
        deal = data.draw(st.none() | valid_deals(self.rules, self.players, self.rules.target_score), label="deal")
        others = [(h, self.batch.describe(h)) for h in range(self.size) if h != g]
        self.batch.reset_game(g, seed, deal)
        assert all(self.batch.describe(h) == d for h, d in others), "reset_game touched another game"

    @rule(data=st.data(), seed=VALID_SEEDS, voids=st.booleans())
    def resample_hidden(self, data, seed, voids):
        g = data.draw(st.integers(0, self.size - 1), label="game")
        world = self.batch.copy()
        accepted_or_refused(lambda: world.resample_hidden(g, seed, voids=voids), lambda: self.snapshot(world))

    @rule(how=st.sampled_from(CLONES), data=st.data())
    def clone_continues_exactly(self, how, data):
        def wander(other, rng):
            for _ in range(15):
                other.step(self.random_actions(rng, other))
            other.play_random(10, 1, validate=True)

        def step_alike(twin, rng):
            actions = self.random_actions(rng)
            if (actions == NO_ACTION).all():
                self.batch.play_random(1, 7)  # every game is over: play_random starts their next episodes
                twin.play_random(1, 7)
            else:
                self.batch.step(actions)
                twin.step(actions)

        twin = twin_goes_alike(self, self.batch, how, data, wander, step_alike, 30)
        self.batch.play_random(25, 3, validate=True)
        twin.play_random(25, 3, validate=True)
        assert self.snapshot(twin) == self.snapshot(), f"a {how} went another way than the original in play_random"

    # -------------------------------------------------------------- invalid calls
    @rule(data=st.data())
    def step_one_illegal(self, data):
        """One illegal action among legal ones: the whole step is refused, no game changes."""
        actions = self.drawn_actions(data)
        g = data.draw(st.integers(0, self.size - 1), label="bad game")
        legal = set(self.legal_lists()[g])
        actions[g] = data.draw(
            st.sampled_from([a for a in range(NUM_ACTIONS) if a not in legal]) | BAD_BATCH_ACTIONS, label="bad action"
        )
        refused(lambda: self.batch.step(actions), self.snapshot, f"actions {actions!r}")

    @rule(data=st.data())
    def step_bad_array(self, data):
        legal = [lst[0] if lst else NO_ACTION for lst in self.legal_lists()]
        actions = data.draw(
            st.sampled_from(
                [
                    np.array(legal, np.float64) + 0.5,  # 36.9-like: floats never truncate to ids
                    np.array(legal, np.float64),
                    np.array([a == legal[0] for a in legal], np.bool_),
                    legal[:-1],
                    [*legal, NO_ACTION],
                    [legal],
                    None,
                    "draw",
                    [str(a) for a in legal],
                    np.array(legal)[:, None],
                ]
            ),
            label="actions",
        )
        refused(lambda: self.batch.step(actions), self.snapshot, f"actions {actions!r}")

    @rule(data=st.data())
    def step_game_bad(self, data):
        g = data.draw(st.integers(0, self.size - 1), label="game")
        legal = set(self.legal_lists()[g])
        action = data.draw(st.sampled_from([a for a in range(NUM_ACTIONS) if a not in legal]) | BAD_ACTION_VALUES)
        refused(lambda: self.batch.step_game(g, action), self.snapshot, f"step_game({g}, {action!r})")

    @rule(data=st.data())
    def bad_game_index(self, data):
        g = data.draw(bad_game_indices(self.size), label="game")
        legal = [lst[0] for lst in self.legal_lists() if lst] or [0]
        call = data.draw(st.sampled_from(["step_game", "reset_game", "describe", "check", "resample_hidden"]))
        calls = {
            "step_game": lambda: self.batch.step_game(g, legal[0]),
            "reset_game": lambda: self.batch.reset_game(g, 1),
            "describe": lambda: self.batch.describe(g),
            "check": lambda: self.batch.check(g),
            "resample_hidden": lambda: self.batch.resample_hidden(g, 1),
        }
        refused(calls[call], self.snapshot, f"{call} of game {g!r}")

    @rule(data=st.data())
    def bad_seeds(self, data):
        g = data.draw(st.integers(0, self.size - 1), label="game")
        seeds_array = [data.draw(VALID_BATCH_SEEDS) for _ in range(self.size)]
        seeds_array[g] = data.draw(st.integers(max_value=-1) | st.integers(min_value=2**64) | st.floats() | st.text())
        call = data.draw(
            st.sampled_from(["reset", "reset array", "reset_where", "reset_game", "play_random", "resample_hidden"])
        )
        one = call in ("reset_game", "resample_hidden")  # one seed is due; elsewhere one or `size`
        seed = data.draw(INVALID_SEEDS if one else invalid_batch_seeds(self.size), label="seed")
        calls = {
            "reset": lambda: self.batch.reset(seed),
            "reset array": lambda: self.batch.reset(seeds_array),
            "reset_where": lambda: self.batch.reset_where(np.ones(self.size, np.bool_), seeds_array),
            "reset_game": lambda: self.batch.reset_game(g, seed),
            "play_random": lambda: self.batch.play_random(5, seed, validate=True),
            "resample_hidden": lambda: self.batch.resample_hidden(g, seed),
        }
        refused(calls[call], self.snapshot, f"{call} with seed {seed!r} / seeds {seeds_array!r}")

    @rule(data=st.data(), seed=VALID_SEEDS)
    def reset_game_malformed_deal(self, data, seed):
        g = data.draw(st.integers(0, self.size - 1), label="game")
        deal = data.draw(malformed_deals(self.rules, self.players), label="deal")
        refused(lambda: self.batch.reset_game(g, seed, deal), self.snapshot, f"malformed deal {deal!r}")

    @rule(steps=st.sampled_from([0, -1, -100, 2.5, 3.0, "3", None, True]))
    def play_random_odd_steps(self, steps):
        accepted_or_refused(lambda: self.batch.play_random(steps, 0, validate=True), self.snapshot)

    # -------------------------------------------------------------- invariants
    @invariant()
    def engine_invariants_hold(self):
        for g in range(self.size):
            self.batch.check(g)

    @invariant()
    def masks_agree_with_done(self):
        masks = self.batch.legal_masks()
        assert (masks.any(axis=1) != self.batch.done.astype(bool)).all()


# ---------------------------------------------------------------------------------------------- raw_env


class AECMachine(RuleBasedStateMachine):
    """The PettingZoo AEC `raw_env`: the agent loop with dead steps, resets, deals, clones and misuse."""

    @initialize(
        setup=game_setups(),
        observation=st.sampled_from(LEVELS),
        reward=st.sampled_from(["win", "points"]),
        render_mode=st.sampled_from([None, "ansi"]),
        seed=VALID_SEEDS,
    )
    def start(self, setup, observation, reward, render_mode, seed):
        preset, self.players, options, episode, max_steps = setup
        self.env = raw_env(
            preset, self.players, render_mode=render_mode, observation=observation, episode=episode,
            max_steps=max_steps, reward=reward, **options,
        )  # fmt: skip
        self.env.reset(seed=seed)
        self.rules = self.env.rules

    def snapshot(self, env=None):
        env = env or self.env
        return (
            repr(env.describe()),
            state_bytes(env.game.state_array),
            list(env.agents),
            env.agent_selection,
            repr((env.rewards, env._cumulative_rewards, env.terminations, env.truncations, env.infos)),
            repr(getattr(env, "_last_seed", None)),  # the next seedless reset's seed comes from it
        )

    def last_signature(self, env):
        if not env.agents:
            return None
        obs, reward, termination, truncation, info = env.last()
        return obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, termination, truncation, info

    def dead(self) -> bool:
        agent = self.env.agent_selection
        return bool(self.env.agents) and (self.env.terminations[agent] or self.env.truncations[agent])

    def live(self) -> bool:
        return bool(self.env.agents) and not self.dead()

    def legal(self, env=None) -> list[int]:
        env = env or self.env
        return [int(a) for a in np.flatnonzero(env.observe(env.agent_selection)["action_mask"])]

    def advance(self, env, rng) -> None:
        """One step of the agent loop: a legal action, None for a dead agent, a new episode after the last."""
        if not env.agents:
            env.reset(seed=int(rng.integers(2**32)))
        elif env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            env.step(None)
        else:
            env.step(pick(rng, self.legal(env), f"{env.agent_selection}, deciding,"))

    # -------------------------------------------------------------- valid calls
    @precondition(lambda self: self.live())
    @rule(data=st.data())
    def step_legal(self, data):
        action = as_int_type(data, data.draw(st.sampled_from(self.legal()), label="action"))
        assert self.env.action_space(self.env.agent_selection).contains(np.int64(action))
        self.env.step(action)

    @precondition(lambda self: self.live())
    @rule(data=st.data())
    def step_legal_by_name(self, data):
        name = data.draw(st.sampled_from([self.env.action_names[a] for a in self.legal()]), label="action")
        self.env.step(self.env.action_id(name_variant(data, name)))

    @precondition(lambda self: self.dead())
    @rule()
    def step_dead(self):
        self.env.step(None)

    @rule(decisions=st.integers(1, 80), seed=st.integers(0, 2**32))
    def play_many(self, decisions, seed):
        rng = np.random.default_rng(seed)
        for _ in range(decisions):
            if not self.env.agents:
                return
            self.advance(self.env, rng)

    @rule(seed=VALID_SEEDS | st.none())
    def reset(self, seed):
        self.env.reset(seed=seed)  # None: the next episode's seed (the machine always starts seeded)
        assert self.env.agents == self.env.possible_agents

    @rule(data=st.data(), seed=VALID_SEEDS)
    def reset_dealt(self, data, seed):
        deal = data.draw(valid_deals(self.rules, self.players, self.rules.target_score), label="deal")
        self.env.reset(seed=seed, options={"deal": deal, "ignored": 1})

    @rule()
    def observe_and_render(self):
        for agent in self.env.agents:
            obs = self.env.observe(agent)
            assert self.env.observation_space(agent).contains(obs)
        self.env.render()

    @rule(how=st.sampled_from(["pickle", "deepcopy"]), data=st.data())
    def clone_continues_exactly(self, how, data):
        def wander(other, rng):
            for _ in range(15):
                self.advance(other, rng)

        def step_alike(twin, rng):
            state = rng.bit_generator.state
            self.advance(self.env, rng)
            rng.bit_generator.state = state
            self.advance(twin, rng)
            assert repr(self.last_signature(twin)) == repr(self.last_signature(self.env))

        twin = twin_goes_alike(self, self.env, how, data, wander, step_alike, 40)
        if self.env.agents:  # a seedless reset goes on from the last seed alike
            self.env.reset()
            twin.reset()
            assert self.snapshot(twin) == self.snapshot(), f"a {how} dealt another next episode"

    # -------------------------------------------------------------- invalid calls
    @precondition(lambda self: self.live())
    @rule(data=st.data())
    def step_illegal(self, data):
        legal = set(self.legal())
        action = data.draw(st.sampled_from([a for a in range(NUM_ACTIONS) if a not in legal]), label="action")
        refused(lambda: self.env.step(as_int_type(data, action)), self.snapshot, f"illegal action {action}")

    @precondition(lambda self: self.live())
    @rule(action=BAD_ACTION_VALUES)
    def step_bad_value(self, action):
        refused(lambda: self.env.step(action), self.snapshot, f"action {action!r}", AEC_REFUSED)

    @precondition(lambda self: self.dead())
    @rule(action=st.integers(0, NUM_ACTIONS - 1))
    def step_dead_with_action(self, action):
        refused(lambda: self.env.step(action), self.snapshot, f"action {action} for a dead agent", AEC_REFUSED)

    @precondition(lambda self: not self.env.agents)
    @rule(action=st.none() | st.integers(0, NUM_ACTIONS - 1))
    def step_after_all_done(self, action):
        refused(lambda: self.env.step(action), self.snapshot, f"step({action!r}) with no agents left", AEC_REFUSED)

    @rule(seed=INVALID_SEEDS)
    def reset_bad_seed(self, seed):
        refused(lambda: self.env.reset(seed=seed), self.snapshot, f"seed {seed!r}")

    @rule(data=st.data(), seed=VALID_SEEDS)
    def reset_malformed_deal(self, data, seed):
        deal = data.draw(malformed_deals(self.rules, self.players), label="deal")
        refused(lambda: self.env.reset(seed=seed, options={"deal": deal}), self.snapshot, f"malformed deal {deal!r}")

    @rule(name=st.sampled_from(["fly", "play X9", "", "color purple", "play", "swap +10"]) | st.none() | st.floats())
    def bad_action_name(self, name):
        refused(lambda: self.env.action_id(name), self.snapshot, f"action name {name!r}")

    # -------------------------------------------------------------- invariants
    @invariant()
    def engine_invariants_hold(self):
        self.env.game.check(0)

    @invariant()
    def only_the_deciding_agent_has_actions(self):
        if not self.env.agents:
            return
        deciding = self.env.agent_selection
        for agent in self.env.agents:
            mask = self.env.observe(agent)["action_mask"]
            if agent == deciding and self.live():
                assert mask.any(), "the deciding agent has no legal action"
            else:
                assert not mask.any(), f"{agent} has legal actions but {deciding} decides"


# ---------------------------------------------------------------------------------------------- UnoVectorEnv


class VectorMachine(RuleBasedStateMachine):
    """`UnoVectorEnv` with 1-4 games, some seats played by seeded random opponents."""

    @initialize(
        setup=game_setups(),
        num_envs=st.integers(1, 4),
        observation=st.sampled_from(LEVELS),
        reward=st.sampled_from(["win", "points"]),
        data=st.data(),
    )
    def start(self, setup, num_envs, observation, reward, data):
        preset, players, options, episode, max_steps = setup
        seats = data.draw(st.just("all") | st.lists(st.integers(0, players - 1), min_size=1, max_size=3, unique=True))
        self.num_envs = num_envs
        self.venv = UnoVectorEnv(
            preset, players, num_envs, learner_seats=seats, opponents=RandomPlay(data.draw(st.integers(0, 99))),
            observation=observation, episode=episode, reward=reward, max_steps=max_steps, **options,
        )  # fmt: skip
        self.venv.reset(seed=data.draw(VALID_BATCH_SEEDS, label="seed"))

    def snapshot(self, venv=None):
        venv = venv or self.venv
        return (
            state_bytes(venv.game.state_array),
            venv.seeds.tobytes(),
            venv.obs.tobytes(),
            venv.masks.tobytes(),
            venv.seats.tobytes(),
            repr([venv.describe(g) for g in range(self.num_envs)]),
        )

    def random_actions(self, rng, venv=None) -> np.ndarray:
        masks = (venv or self.venv).masks
        return np.array([pick(rng, np.flatnonzero(row), f"game {g}") for g, row in enumerate(masks)], np.int64)

    # -------------------------------------------------------------- valid calls
    @rule(data=st.data(), form=st.sampled_from(["list", "int64", "int32"]))
    def step_legal(self, data, form):
        actions = [data.draw(st.sampled_from([int(a) for a in np.flatnonzero(row)])) for row in self.venv.masks]
        obs, masks, rewards, terminated, truncated, info = self.venv.step(
            actions if form == "list" else np.array(actions, form)
        )
        assert obs.shape == (self.num_envs, self.venv.observation_size) and masks.shape == (self.num_envs, NUM_ACTIONS)
        assert rewards.shape == (self.num_envs, self.venv.num_players) and np.isfinite(rewards).all()
        assert not (terminated & truncated).any()

    @rule(decisions=st.integers(1, 40), seed=st.integers(0, 2**32))
    def play_many(self, decisions, seed):
        rng = np.random.default_rng(seed)
        for _ in range(decisions):
            self.venv.step(self.random_actions(rng))

    @rule(seed=VALID_BATCH_SEEDS)
    def reset(self, seed):
        obs, masks = self.venv.reset(seed=seed)
        assert masks.any(axis=1).all()

    @rule(level=st.sampled_from(LEVELS))
    def observe(self, level):
        before = self.snapshot()
        assert self.venv.observe(level).shape[0] == self.num_envs
        assert self.snapshot() == before

    @rule(how=st.sampled_from(["pickle", "deepcopy"]), data=st.data())
    def clone_continues_exactly(self, how, data):
        def wander(other, rng):
            for _ in range(10):
                other.step(self.random_actions(rng, other))

        def step_alike(twin, rng):
            actions = self.random_actions(rng)
            ours = self.venv.step(actions)
            theirs = twin.step(actions)
            for a, b in zip(ours[:5], theirs[:5], strict=True):
                assert np.array_equal(a, b)

        twin_goes_alike(self, self.venv, how, data, wander, step_alike, 25)

    # -------------------------------------------------------------- invalid calls
    @rule(data=st.data())
    def step_one_illegal(self, data):
        """One illegal action among legal ones: the whole step is refused, no game changes."""
        actions = [data.draw(st.sampled_from([int(a) for a in np.flatnonzero(row)])) for row in self.venv.masks]
        g = data.draw(st.integers(0, self.num_envs - 1), label="bad game")
        legal = set(np.flatnonzero(self.venv.masks[g]).tolist())
        actions[g] = data.draw(
            st.sampled_from([a for a in range(NUM_ACTIONS) if a not in legal]) | BAD_ACTION_VALUES, label="bad action"
        )
        refused(lambda: self.venv.step(actions), self.snapshot, f"actions {actions!r}")

    @rule(data=st.data())
    def step_bad_array(self, data):
        legal = [int(np.flatnonzero(row)[0]) for row in self.venv.masks]
        actions = data.draw(
            st.sampled_from(
                [
                    np.array(legal, np.float64) + 0.9,  # 36.9-like
                    np.array(legal, np.float64),
                    np.array([True] * len(legal)),
                    legal[:-1],
                    [*legal, 0],
                    [legal],
                    None,
                    "draw",
                    [str(a) for a in legal],
                ]
            ),
            label="actions",
        )
        refused(lambda: self.venv.step(actions), self.snapshot, f"actions {actions!r}")

    @rule(data=st.data())
    def reset_bad_seed(self, data):
        seed = data.draw(invalid_batch_seeds(self.num_envs), label="seed")
        refused(lambda: self.venv.reset(seed=seed), self.snapshot, f"seed {seed!r}")

    @rule(data=st.data())
    def bad_game_index(self, data):
        g = data.draw(bad_game_indices(self.num_envs), label="game")
        refused(lambda: self.venv.describe(g), self.snapshot, f"describe({g!r})")

    @rule(level=st.sampled_from(["full", "", "Minimal", None, 0]))
    def observe_bad_level(self, level):
        refused(lambda: self.venv.observe(level), self.snapshot, f"observe({level!r})")

    # -------------------------------------------------------------- invariants
    @invariant()
    def engine_invariants_hold(self):
        for g in range(self.num_envs):
            self.venv.game.check(g)

    @invariant()
    def every_game_waits_on_a_learner(self):
        assert self.venv.masks.any(axis=1).all(), "a game waits with no legal action"
        assert self.venv.is_learner[self.venv.seats].all(), "a game waits on an opponent seat"


TestGame = GameMachine.TestCase
TestGame.settings = MACHINE_SETTINGS
TestGameBatch = GameBatchMachine.TestCase
TestGameBatch.settings = MACHINE_SETTINGS
TestAEC = AECMachine.TestCase
TestAEC.settings = MACHINE_SETTINGS
TestVector = VectorMachine.TestCase
TestVector.settings = MACHINE_SETTINGS


# ---------------------------------------------------------------------------------------------- make_rules

ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-10, 10**7),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.lists(st.integers(0, 5), max_size=60),
    st.dictionaries(st.text(max_size=3), st.integers(-2, 200), max_size=3),
    st.dictionaries(st.sampled_from(["R5", "P5", "W", "WN", "5", "+2", "S"]), st.floats(0, 3) | st.none(), max_size=2),
)


@st.composite
def rule_requests(draw):
    """A preset (sometimes no preset at all) and options: valid values of the option table, or anything."""
    preset = draw(st.sampled_from(PRESETS) | st.sampled_from(["", "Classic", "uno", None, 3]), label="preset")
    table_preset = preset if preset in PRESETS else "classic"
    optional = {option.name: st.one_of(option_values(option, table_preset, wide=True), ANY_VALUE) for option in OPTIONS}
    options = draw(st.fixed_dictionaries({}, optional=optional), label="options")
    if draw(st.integers(0, 9)) == 0:
        options[draw(st.sampled_from(["stack_draw_2", "hand", "", "variant"]))] = 1
    return preset, options


@RULES_SETTINGS
@given(request=rule_requests(), players=st.integers(2, 10), seed=VALID_BATCH_SEEDS)
def test_make_rules_accepts_or_refuses_and_plays(request, players, seed):
    """make_rules accepts or raises ValueError, nothing else; an accepted rule set, dealt for a player count its
    deck allows, plays 200 random decisions with the invariants checked after each."""
    preset, options = request
    try:
        rules = make_rules(preset, **options)
    except ValueError:
        return
    assert isinstance(rules, RuleSet)
    assert rules == make_rules(preset, **options), "the same request makes another rule set"
    try:
        batch = GameBatch(rules, players, 2)
    except ValueError:  # the deck cannot deal for so many players (or the rule set cannot be played)
        return
    batch.reset(seed)
    assert batch.play_random(200, seed, validate=True) >= 0


@GIVEN_SETTINGS
@given(preset=st.sampled_from(PRESETS), players=st.integers(2, 10), data=st.data())
def test_valid_option_mixes_make_playable_games(preset, players, data):
    """Every value the option table allows is accepted; the game it makes (if the deck deals for `players`) plays."""
    options = data.draw(option_mixes(preset), label="options")
    rules = make_rules(preset, **options)
    for option in OPTIONS:
        if option.kind != "cards" and option.name in options:
            assert getattr(rules, option.name) == options[option.name]
    try:
        game = Game(rules, players, seed=data.draw(VALID_SEEDS, label="seed"))
    except ValueError:
        return
    rng = np.random.default_rng(0)
    for _ in range(200):
        if game.done:
            break
        game.step(pick(rng, game.legal_action_ids(), "a live game"))
        game.check()


# Decks at the edge of playable: accepted by make_rules today. A deck with no number card above 0 makes the draw
# for the dealer tie forever, in compiled code; each case runs in its own process so a hang fails, not stalls.
EDGE_DECKS = {
    "no number above 0": {"card_counts": {r: 0 for r in "123456789"}},
    "only action cards and wilds": {"card_counts": {r: 0 for r in "0123456789"}},
    "only wilds": {"card_counts": {**{r: 0 for r in C.RANK_CODES}, "W": 30}},
    "only fives, action cards and wilds": {"card_counts": {r: 0 for r in "012346789"}},
    "one colour": {"card_counts": {f"{colour}{r}": 0 for colour in "BGY" for r in C.RANK_CODES}},
    "50-card hands": {"hand_size": 50},
}
EDGE_SCRIPT = textwrap.dedent(
    """
    import sys
    from uno_env import GameBatch, make_rules
    for name, options in eval(sys.argv[1]).items():
        print("deck", repr(name), flush=True)
        for players in range(2, 11):
            try:
                batch = GameBatch(make_rules("classic", **options), players, 2)
            except ValueError as error:
                print(" ", players, "players refused:", error, flush=True)
                continue
            batch.reset(players)
            batch.play_random(60, players, validate=True)
            print(" ", players, "players played 60 decisions", flush=True)
    """
)


def test_edge_decks_are_refused_or_playable():
    """Each edge deck is refused with ValueError or plays 60 validated decisions, for every player count; never a
    hang (the subprocess has 120 s) or a crash."""
    try:
        run = subprocess.run(
            [sys.executable, "-c", EDGE_SCRIPT, repr(EDGE_DECKS)], capture_output=True, text=True, timeout=120, cwd=ROOT
        )
    except subprocess.TimeoutExpired as error:
        output = error.stdout.decode() if isinstance(error.stdout, bytes) else error.stdout or ""
        last = [line for line in output.splitlines() if line.startswith("deck ")][-1:]
        raise AssertionError(f"hung on {last}: neither refused nor played. Output so far:\n{output}") from None
    assert run.returncode == 0, f"crashed:\n{run.stdout}\n{run.stderr}"


# ---------------------------------------------------------------------------------------------- soak smoke


def test_soak_smoke():
    """benchmarks/soak.py over every configuration with a small budget: it reports 0 violations, exit status 0."""
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "soak.py"), "--decisions", "200000", "--quiet"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    total = re.search(r"^total: ([\d,]+) decisions, .* (\d+) violations", run.stdout, re.M)
    assert total, run.stdout
    assert int(total[1].replace(",", "")) > 150_000
    assert total[2] == "0", run.stdout
