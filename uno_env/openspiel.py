"""UNO as an OpenSpiel game, `python_uno`: registered with pyspiel when this module is imported.

```python
import pyspiel
import uno_env.openspiel  # registers "python_uno"

game = pyspiel.load_game("python_uno", {"variant": "unocorns", "players": 4, "stack_draw_two": True})
state = game.new_initial_state()  # a fresh deal
```

Every state holds a 1-game `GameBatch`: legal actions, moves, the end of the episode and the returns are the
engine's; this module adds no rule. Sequential, imperfect information; chance is sampled inside the engine
(`SAMPLED_STOCHASTIC`: no chance nodes). Returns are `uno_env.rewards`' `win` kind at the episode's end: the
winner +1, each other player -1/(N-1) (tied winners share +1), zero-sum; a truncated episode gives 0 to all.

**Parameters.** `variant` (which preset of rules: classic, unocorns, monster_high, emoji, swap), `players` (2-10),
`episode` ("round" or "match"), `max_steps` (decisions before truncation; also `max_game_length`), `rng_seed`
(the deals, below) and every rule option of `uno_env.rules.OPTIONS` by its own name. OpenSpiel parameters have
typed defaults, so an option whose default differs between presets has a stand-in for "the preset's own":

| option kind | default in the parameter specification |
|---|---|
| every preset has the same default | that value (`hand_size=7`, `uno_call="auto"`, ...) |
| int | `-1` |
| rate (a float: pass `0.5`, `1.0`, never `1`) | `-1.0` |
| choice | `"preset"` |
| cards (`card_counts`, `card_points`) | `"preset"`; else overrides as `"CODE:COUNT;CODE:COUNT"`, e.g. `"WN:4;5:0"` |
| bool | the option's table default; that value stands for the preset's own |

A bool has no spare value: a bool option whose default differs between presets (today `stack_draw_two`,
`True` in `swap`) takes the preset's value when it is given as the table default (`False`), so `swap` without
stacking cannot be loaded (`make_game` says so). Bad values raise the engine's own ValueError
(`make_rules`, `GameBatch`); unknown names and wrong types raise pyspiel's error.

**Deals.** A game's initial states are dealt from the seeds `rng_seed`, `engine.next_episode_seed(rng_seed)`,
... (the seeds a vector env or `uno_env.env` goes on with), one per initial state in the order they are first
used: a state only made to be overwritten (by `clone` or deserialization) takes none, while pyspiel's tensor
shape queries (`observation_tensor_size`) observe, and so deal, one. The same parameters and calls give the
same sequence of deals. `game.new_initial_state(seed)` deals from `seed` itself.

**Observations.** `make_py_observer` gives the levels of `uno_env.observation` (`tensor`, `dict` with its named
fields, `set_from`, `string_from`), for any seat, deciding or not: `private_info=ALL_PLAYERS` is `seer`, else
`knowledge`; `params={"level": "minimal"}` picks one. The observation string shows the same fields as text.

**Information state** (perfect recall, string only): the seat, its `knowledge` observation as text, and a
128-bit digest of everything it has seen: after every step, each seat folds in its observation and the action
as it saw it. Others see a kept drawn card as the draw (`engine`'s public record) and no step while another
seat decides on its drawn card, so nothing hidden reaches a seat's information state. A state made from an
engine state (`new_state_from_engine`) recalls from there on.

**Resampling.** `resample_from_infostate(player, sampler)` is a clone redealt by `GameBatch.resample_hidden`
for the deciding seat, seeded from `sampler()` and a count of the state's redeals; another player, or a state
the engine cannot redeal (the episode is over, or no shuffle fits the seat's wrong forehead guesses), raises
`ResampleRefused` with the engine's reason.

**Copies.** `clone`, `state.serialize()` / `game.deserialize_state()`, pickling (of states and games) and this
module's `serialize_game_and_state` / `deserialize_game_and_state` keep the whole engine state (its generator
included) and a game's place in its seed sequence, so a copy goes on exactly as the original.
`pyspiel.serialize_game_and_state` (and so `random_sim_test(serialize=True)`) cannot work: for a sampled
stochastic game it calls `Game::GetRNGState`, which pyspiel does not let a Python game override.

**State text.** `state.serialize()` is data: JSON with the game's parameters (all but `rng_seed`, which only picks
new deals), the history as [player, action] pairs, every field of the engine state as integer lists, the
episode's seed, each seat's recall digest (hex) and the count of redeals. `game.deserialize_state(text)` reads it
with `json` only and checks every field (shape, range, the engine's invariants, a history no longer than the
episode's decisions) before anything is built; a text of a game with other parameters, or a malformed one, gets a
one-line ValueError. Never pass untrusted text to OpenSpiel's own `pyspiel.deserialize_game_and_state`: for any
Python game, OpenSpiel's C++ unpickles the state's `__dict__` there, before python_uno can refuse it.

**Parameters from outside.** `pyspiel.load_game` converts each value in C++ first, so an int outside a C++ int
(e.g. `max_steps=2**31`) gets pybind11's cast error there; `load_game` (and `make_game`) check every value first
(`check_parameters`) and say in one line what is allowed.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pyspiel
from numba import njit

from . import actions as A
from . import cards as C
from . import engine as E
from . import observation as O
from .game import DEFAULT_MAX_STEPS, INVARIANT_MESSAGES, MAX_STEPS_LIMIT, GameBatch
from .rewards import WIN, step_rewards_one
from .rules import MAX_PLAYERS, MIN_PLAYERS, OPTIONS, VARIANTS, RuleSet, make_rules

GAME_NAME = "python_uno"
PRESET = "preset"  # a choice or cards option: the preset's own value
PRESET_INT = -1  # an int option: the preset's own value
PRESET_RATE = -1.0  # a rate option: the preset's own value
RECALL_LEVEL = "knowledge"  # what a seat's information state folds in at every step
TERMINAL = int(pyspiel.PlayerId.TERMINAL)
CPP_INT = 2**31  # pyspiel holds an int parameter in a C++ int: from -2**31 to 2**31 - 1


def _varies(option) -> bool:
    """Whether the option's default differs between variants."""
    return len({repr(option.default_for(variant)) for variant in VARIANTS}) > 1


def _spec_default(option) -> Any:
    if not _varies(option):
        value = option.default_for(VARIANTS[0])
        return float(value) if option.kind == "rate" else value
    return {"bool": option.default, "int": PRESET_INT, "rate": PRESET_RATE}.get(option.kind, PRESET)


PARAMETERS: dict[str, Any] = {
    "variant": "classic",
    "players": 2,
    "episode": "round",
    "max_steps": DEFAULT_MAX_STEPS,
    "rng_seed": 0,
    **{option.name: _spec_default(option) for option in OPTIONS},
}

GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="UNO (uno-env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


class ResampleRefused(ValueError):
    """`resample_from_infostate` cannot redeal this state for this player (the message says why)."""


# ------------------------------------------------------------------------------------------- parameters


def _is_preset_stand_in(option, value) -> bool:
    if option.kind == "cards":
        return value == PRESET
    if not _varies(option):
        return False
    if option.kind == "bool":
        return isinstance(value, (bool, np.bool_)) and bool(value) == option.default
    if option.kind == "int":
        return not isinstance(value, bool) and value == PRESET_INT
    if option.kind == "rate":
        return not isinstance(value, bool) and value == PRESET_RATE
    return value == PRESET


def _parse_cards(option, value) -> dict[str, int]:
    """'CODE:COUNT;CODE:COUNT' -> {code: count} (make_rules checks the codes and counts)."""
    form = (
        f"{option.name} must be {PRESET!r} or overrides as 'CODE:COUNT;CODE:COUNT' (a card code or bare rank, "
        "e.g. 'WN:4;5:0')"
    )
    if not isinstance(value, str):
        raise ValueError(f"{form}, got {value!r}")
    overrides = {}
    for entry in value.split(";"):
        code, colon, count = entry.strip().partition(":")
        if not colon or not code.strip() or not count.strip().lstrip("-").isdigit():
            raise ValueError(f"{form}, got {value!r}")
        overrides[code.strip()] = int(count)
    return overrides


def rules_of(params: dict[str, Any]) -> RuleSet:
    """The rule set that complete `python_uno` parameters describe (the engine's validation on every value)."""
    options = {}
    for option in OPTIONS:
        value = params[option.name]
        if _is_preset_stand_in(option, value):
            continue
        options[option.name] = _parse_cards(option, value) if option.kind == "cards" else value
    return make_rules(params["variant"], **options)


def parameters_of(rules: RuleSet, players: int, episode: str = "round", max_steps: int = DEFAULT_MAX_STEPS) -> dict:
    """`python_uno` parameters for a rule set; a ValueError if the parameters cannot express it (see above)."""
    params = {"variant": rules.variant, "players": int(players), "episode": episode, "max_steps": int(max_steps)}
    for option in OPTIONS:
        value, own = getattr(rules, option.name), option.default_for(rules.variant)
        if option.kind == "cards":
            changed = [f"{code}:{v}" for code, v, o in zip(rules.codes, value, own, strict=True) if v != o]
            params[option.name] = ";".join(changed) or PRESET
        elif option.kind == "bool" and _varies(option):
            if value != own and value == option.default:
                raise ValueError(
                    f"python_uno cannot express {option.name}={value} with variant {rules.variant!r}: a bool option "
                    f"given as {option.default} stands for the preset's own value ({own})"
                )
            params[option.name] = bool(value)
        else:
            params[option.name] = float(value) if option.kind == "rate" else value
    return params


def check_parameters(params: dict[str, Any] | None) -> dict[str, Any]:
    """`params` completed with the defaults, every name known and every value of its parameter's type and in the
    range pyspiel can hold (an int parameter is a C++ int, below 2**31: `rng_seed` too; deal from a larger seed
    with `game.new_initial_state(seed)`); a one-line ValueError otherwise, where pyspiel would raise pybind11's
    cast error. The engine checks the rest (`make_rules`, `GameBatch`)."""
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ValueError(f"python_uno parameters must be a dict of name -> value, got {type(params).__name__}")
    unknown = sorted(map(str, set(params) - set(PARAMETERS)))
    if unknown:
        raise ValueError(f"unknown parameter(s) {', '.join(unknown)}; the parameters are {', '.join(PARAMETERS)}")
    for name, value in params.items():
        default = PARAMETERS[name]
        if isinstance(default, bool):
            ok, allowed = isinstance(value, (bool, np.bool_)), "True or False"
        elif isinstance(default, int):
            ranges = {"players": (MIN_PLAYERS, MAX_PLAYERS), "max_steps": (1, MAX_STEPS_LIMIT)}
            low, high = ranges.get(name, (-CPP_INT, CPP_INT - 1))
            if name == "rng_seed":
                low = 0
            allowed = f"an int from {low} to {high}"
            ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool) and low <= value <= high
        elif isinstance(default, float):
            allowed = "a finite float (write 1.0, not 1)"
            ok = isinstance(value, (float, np.floating)) and math.isfinite(value)
        else:
            ok, allowed = isinstance(value, str), "a string"
        if not ok:
            shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
            raise ValueError(f"python_uno parameter {name} must be {allowed}, got {shown} ({type(value).__name__})")
    return {**PARAMETERS, **params}


def load_game(params: dict[str, Any] | None = None, **more: Any) -> UnoGame:
    """`pyspiel.load_game("python_uno", params)` with every value checked first (`check_parameters`): an int out of
    a C++ int's range gets a one-line ValueError, where pyspiel's own call raises pybind11's cast error."""
    params = {**(params or {}), **more}
    check_parameters(params)
    return pyspiel.load_game(GAME_NAME, params)


def make_game(rules: RuleSet, players: int, episode: str = "round", max_steps: int = DEFAULT_MAX_STEPS):
    """The `python_uno` game of a rule set (loaded through pyspiel from `parameters_of`)."""
    game = load_game(parameters_of(rules, players, episode, max_steps))
    if game.rules != rules:
        raise ValueError(f"python_uno parameters {game} give another rule set than {rules}")
    return game


# ------------------------------------------------------------------------------------- recall (compiled)

_K0 = np.uint64(0x9E3779B97F4A7C15)
_K1 = np.uint64(0xC2B2AE3D27D4EB4F)
_P0 = np.uint64(0x100000001B3)
_P1 = np.uint64(0xFF51AFD7ED558CCD)
_S29, _S31, _S33 = np.uint64(29), np.uint64(31), np.uint64(33)


@njit(cache=True, nogil=True)
def _absorb(digests, seat, action, obs):
    """Fold (action, obs) into seat's two 64-bit lanes (obs: int8, its length a multiple of 8)."""
    words = obs.view(np.uint64)
    a = (digests[seat, 0] ^ np.uint64(action + 2)) * _P1
    b = (digests[seat, 1] + np.uint64(action + 2)) * _P0
    for i in range(words.shape[0]):
        a = (a ^ words[i]) * _P0
        a ^= a >> _S29
        b = (b + words[i]) * _P1
        b ^= b >> _S31
    a = (a ^ (a >> _S33)) * _K0
    b = (b ^ (b >> _S33)) * _K1
    digests[seat, 0] = a ^ (a >> _S29)
    digests[seat, 1] = b ^ (b >> _S31)


@njit(cache=True, nogil=True)
def _fold(st, c, actor, action, rounds_before, level, off, obs, digests):
    """Each seat folds in what it saw of the step `actor` took with `action` (actor -1: the state as it is)."""
    # While a seat decides on the card it just drew, the others see no step (encode shows them `play`).
    private = st.done == 0 and st.phase == E.DRAWN
    for seat in range(c.num_players):
        seen = action
        if seat != actor:
            if private and st.seat != seat:
                continue
            if actor >= 0 and st.rounds == rounds_before:
                seen = st.last_action[actor]  # the public record: a kept drawn card stays the draw
        O.encode(st, c, seat, level, off, obs)
        _absorb(digests, seat, seen, obs)


@njit(cache=True, nogil=True)
def _legal(st, c, legal):
    """The deciding seat's legal action ids into `legal`, ascending; returns how many (0 once it is over)."""
    if st.done:
        return 0
    mask = np.zeros(A.NUM_ACTIONS, np.uint8)
    E.fill_mask(st, c, mask)
    n = 0
    for a in range(A.NUM_ACTIONS):
        if mask[a]:
            legal[n] = a
            n += 1
    return n


@njit(cache=True, nogil=True)
def _legal_of(s, cfg, legal):
    """`_legal` for game 0 of `s`."""
    return _legal(s[0], cfg[0], legal)


@njit(cache=True, nogil=True)
def _begin(s, cfg, level, off, size, digests, legal):
    """Start every seat's recall at game 0 of `s` as it is; returns its legal actions as `_legal`."""
    st, c = s[0], cfg[0]
    obs = np.zeros(size, np.int8)
    for seat in range(c.num_players):
        digests[seat, 0] = _K0 + np.uint64(seat)
        digests[seat, 1] = _K1 + np.uint64(seat)
    _fold(st, c, -1, -1, st.rounds, level, off, obs, digests)
    return _legal(st, c, legal)


@njit(cache=True, nogil=True)
def _step(s, cfg, action, level, off, size, digests, legal):
    """Apply a legal `action` to game 0 of `s` and fold it into every seat's recall; returns the new legal
    actions as `_legal`, or -1 (nothing changed) if `action` is illegal."""
    st, c = s[0], cfg[0]
    actor, rounds = np.int64(st.seat), st.rounds
    status = np.zeros(E.STATUS_SIZE, np.int64)
    if not E.step_one(s, cfg, 0, action, status):
        return -1
    _fold(st, c, actor, action, rounds, level, off, np.zeros(size, np.int8), digests)
    return _legal(st, c, legal)


_SPECS: dict[tuple[str, int], O.ObservationSpec] = {}


def _spec(level: str, players: int) -> O.ObservationSpec:
    key = (level, players)
    if key not in _SPECS:
        _SPECS[key] = O.ObservationSpec(level, players)
    return _SPECS[key]


def _padded(size: int) -> int:
    return -(-size // 8) * 8


# --------------------------------------------------------------------------------------------- game


class UnoGame(pyspiel.Game):
    """`python_uno`: the engine's UNO for OpenSpiel (see the module docstring). `rules` is its RuleSet."""

    def __init__(self, params: dict[str, Any] | None = None):
        params = check_parameters(params)
        self.rules = rules_of(params)
        self.episode = params["episode"]
        self._template = GameBatch(
            self.rules, params["players"], 1, episode=self.episode, max_steps=params["max_steps"]
        )
        self.players = self._template.num_players
        self.max_steps = int(self._template.config["max_steps"][0])
        self.config_array = self._template.config_array
        self.action_names = self._template.action_names
        self._next_seed = int(params["rng_seed"])
        self._recall = _spec(RECALL_LEVEL, self.players)
        info = pyspiel.GameInfo(
            num_distinct_actions=A.NUM_ACTIONS,
            max_chance_outcomes=0,
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.max_steps,
        )
        super().__init__(GAME_TYPE, info, params)

    def __reduce__(self):
        """Pickled as its parameters and its seed sequence's position (pyspiel's own pickling needs GetRNGState,
        which a Python game cannot provide)."""
        return _load_game, (str(self), self._next_seed)

    def new_initial_state(self, seed: int | None = None) -> UnoState:
        """A fresh deal: from the game's seed sequence (see Deals), or from `seed`."""
        state = UnoState(self)
        if seed is not None:
            batch = self._template.copy()
            batch.reset_game(0, seed)
            state._core.start(batch)
        return state

    def new_state_from_engine(self, engine_state: np.ndarray) -> UnoState:
        """A state at a copy of `engine_state` (a (1,) array of `engine.STATE_DTYPE` dealt under this game's
        config); its players' recall starts there."""
        state = UnoState(self)
        batch = self._template.copy()
        batch.state_array[:] = np.asarray(engine_state).reshape(1)
        state._core.start(batch)
        return state

    def deserialize_state(self, text: str) -> UnoState:
        """The state `UnoState.serialize()` wrote, read as data (JSON, every field checked: see State text); a
        one-line ValueError refuses a malformed text or one of a game with other parameters."""
        fields = _read_state_text(text, self)
        state = UnoState(self)
        batch = self._template.copy()
        batch.state_array[:] = fields["engine"]
        batch.episode_seeds[0] = np.uint64(fields["episode_seed"])
        core = state._core
        core.start(batch, fields["recall"], fields["redeals"])
        core.restoring = True
        try:  # pyspiel keeps the history in C++: give it back step by step (nothing is applied)
            for player, action in fields["history"]:
                core.player = player
                state.apply_action(action)
        finally:
            core.restoring = False
        core.changed(_legal_of(batch.state_array, batch.config_array, core.buffer))
        return state

    def _claim_seed(self) -> int:
        seed = self._next_seed
        self._next_seed = int(E.next_episode_seed(np.uint64(seed)))
        return seed

    def make_py_observer(self, iig_obs_type=None, params=None) -> UnoObserver:
        """An observer (tensor, dict, set_from, string_from): see Observations and Information state."""
        if isinstance(iig_obs_type, dict):  # called as make_py_observer(params)
            iig_obs_type, params = None, iig_obs_type
        params = dict(params or {})
        level = params.pop("level", None)
        if params:
            raise ValueError(f"unknown observation parameter(s) {', '.join(sorted(params))}; the only one is 'level'")
        obs_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        everyone = obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS
        if obs_type.private_info == pyspiel.PrivateInfoType.NONE:
            raise ValueError("python_uno has no public-only observation: every level shows the seat its own hand")
        if level is None:
            level = "seer" if everyone else "knowledge"
        O.level_index(level)  # a ValueError names the levels
        if obs_type.perfect_recall and (everyone or level == "seer"):
            raise ValueError("python_uno's information state is a seat's own (perfect recall of the seer is not kept)")
        return UnoObserver(self, level, obs_type.perfect_recall)


# --------------------------------------------------------------------------------------------- state


class _Core:
    """What a State holds: the engine game (dealt when first used), every seat's recall digest, the current
    player, its legal actions and cached strings. `copy.deepcopy` (OpenSpiel's clone) and pickling deal it first."""

    def __init__(self, game: UnoGame):
        self.game = game
        self.batch: GameBatch | None = None
        self.player: int | None = None  # the current player, once dealt

    def ready(self) -> GameBatch:
        if self.batch is None:
            batch = self.game._template.copy()
            batch.reset_game(0, self.game._claim_seed())
            self.start(batch)
        return self.batch

    def start(self, batch: GameBatch, digests: np.ndarray | None = None, redeals: int = 0) -> None:
        """Play `batch` from here: every seat's recall starts at its current state, or goes on from `digests`
        (a state read back from its text)."""
        self.batch = batch
        recall = self.game._recall
        self.players = batch.num_players
        self.recall = (recall.index, recall.offsets, _padded(recall.size))
        self.digests = np.zeros((self.players, 2), np.uint64)
        self.buffer = np.zeros(A.NUM_ACTIONS, np.int64)
        self.redeals = redeals
        self.restoring = False  # while `deserialize_state` gives pyspiel the history back: no step is applied
        self.bind()
        if digests is None:
            self.changed(_begin(batch.state_array, batch.config_array, *self.recall, self.digests, self.buffer))
        else:
            self.digests[:] = digests
            self.changed(_legal_of(batch.state_array, batch.config_array, self.buffer))

    def bind(self) -> None:
        """Views of the batch's seat and done fields (made again for a copy)."""
        self.seat, self.done = self.batch.state_array["seat"], self.batch.state_array["done"]

    def changed(self, legal: int) -> None:
        """After a change: `legal` legal actions are in `buffer`."""
        self.legal = self.buffer[:legal].tolist()
        self.player = TERMINAL if self.done[0] else int(self.seat[0])
        self.strings: dict = {}

    def redeal(self, seed: int) -> None:
        """Redeal what the deciding seat cannot see (the engine's ValueError if it cannot)."""
        batch = self.batch
        batch.resample_hidden(0, seed)
        self.changed(_legal_of(batch.state_array, batch.config_array, self.buffer))

    def __deepcopy__(self, memo) -> _Core:
        self.ready()
        other = _Core.__new__(_Core)
        other.__dict__.update(self.__dict__)
        other.batch = self.batch.copy()
        other.digests = self.digests.copy()
        other.buffer = self.buffer.copy()
        other.strings = {}  # a copy computes its own
        other.bind()
        return other

    def __getstate__(self) -> dict:
        self.ready()
        views_and_caches = ("game", "seat", "done", "strings")
        return {name: value for name, value in self.__dict__.items() if name not in views_and_caches}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.game = None  # dealt already: the game is not needed again
        self.bind()
        self.strings = {}


class UnoState(pyspiel.State):
    """A `python_uno` state: a view of a 1-game `GameBatch` (`game_batch()`)."""

    def __init__(self, game: UnoGame):
        super().__init__(game)
        self._core = _Core(game)

    def __reduce__(self):
        """Pickled as its game and `serialize()` (see `serialize_game_and_state`)."""
        return _load_state, (self.get_game(), self.serialize())

    def serialize(self) -> str:
        """This state as JSON text (data only; see State text): `game.deserialize_state` reads it back exactly."""
        core = self._core
        batch = core.ready()
        engine_state = batch.state_array[0]
        return json.dumps(
            {
                "format": STATE_FORMAT,
                "version": STATE_VERSION,
                "game": _defining(self.get_game().get_parameters()),
                "history": [[int(step.player), int(step.action)] for step in self.full_history()],
                "episode_seed": int(batch.episode_seeds[0]),
                "engine": {name: engine_state[name].tolist() for name in E.STATE_DTYPE.names},
                "recall": [f"{int(a):016x}{int(b):016x}" for a, b in core.digests],
                "redeals": core.redeals,
            },
            separators=(",", ":"),
        )

    def __deepcopy__(self, memo) -> UnoState:
        return self.clone()

    # -- the OpenSpiel API
    def current_player(self) -> int:
        core = self._core
        if core.player is None:
            core.ready()
        return core.player

    def _legal_actions(self, player: int) -> list[int]:
        core = self._core
        if core.player is None:
            core.ready()
        return core.legal

    def _apply_action(self, action: int) -> None:
        core = self._core
        if core.restoring:  # pyspiel records the step in its history; the engine state is already there
            return
        batch = core.ready()
        legal = _step(batch.state_array, batch.config_array, action, *core.recall, core.digests, core.buffer)
        if legal < 0:
            batch.step_game(0, action)  # illegal: raises the engine's IllegalActionError, nothing changed
        core.changed(legal)

    def _action_to_string(self, player: int, action: int) -> str:
        names = self._core.ready().action_names
        return names[action] if 0 <= action < len(names) else f"action {action}"

    def is_terminal(self) -> bool:
        core = self._core
        if core.player is None:
            core.ready()
        return core.player == TERMINAL

    def returns(self) -> list[float]:
        batch = self._core.ready()
        out = np.zeros(batch.num_players)
        if self._core.done[0]:
            step_rewards_one(batch.state_array, batch.config_array, 0, WIN, 0, out)
        return out.tolist()

    def __str__(self) -> str:
        core = self._core
        core.ready()
        if "str" not in core.strings:
            core.strings["str"] = "\n".join(f"{key}: {_text(value)}" for key, value in self.describe().items())
        return core.strings["str"]

    def resample_from_infostate(self, player_id: int, probability_sampler) -> UnoState:
        """A clone with every card `player_id` (the deciding seat) cannot see redealt by the engine, seeded from
        `probability_sampler()` (a float in [0, 1)) and this state's count of redeals."""
        core = self._core
        seat = self.current_player()
        if player_id != seat:
            whose = "the episode is over" if seat < 0 else f"the engine redeals for the deciding seat, {seat}"
            raise ResampleRefused(f"python_uno cannot resample for player {player_id}: {whose}")
        draw = int(float(probability_sampler()) * 2**53)
        seed = (draw * 0x9E3779B97F4A7C15 + core.redeals * 0xBF58476D1CE4E5B9 + 1) % 2**64
        core.redeals += 1
        other = self.clone()
        try:  # the engine refuses some states: its reason goes through
            other._core.redeal(seed)
        except ValueError as error:
            raise ResampleRefused(f"python_uno cannot resample for player {player_id}: {error}") from error
        return other

    def resampled(self, seed: int) -> UnoState:
        """A clone redealt from `seed` by `GameBatch.resample_hidden` (for the deciding seat)."""
        other = self.clone()
        other._core.redeal(seed)
        return other

    # -- uno-env extras
    def game_batch(self) -> GameBatch:
        """The engine game this state views (read it; stepping it behind OpenSpiel's back breaks the state)."""
        return self._core.ready()

    def describe(self) -> dict[str, Any]:
        """The engine's description of the game (every card shown)."""
        return self._core.ready().describe(0)

    def observation(self, player: int, level: str = "knowledge") -> np.ndarray:
        """Seat `player`'s int8 observation at `level` (any seat, deciding or not)."""
        batch = self._core.ready()
        if isinstance(player, bool) or not isinstance(player, (int, np.integer)) or not 0 <= player < batch.num_players:
            raise ValueError(f"player must be a seat from 0 to {batch.num_players - 1}, got {player!r}")
        observation, _mask = batch.observe(0, int(player), level)
        return observation

    def observation_text(self, player: int, level: str = "knowledge") -> str:
        key = ("text", player, level)
        core = self._core
        batch = core.ready()
        if key not in core.strings:
            core.strings[key] = _render(self.observation(player, level), _spec(level, core.players), batch)
        return core.strings[key]

    def information_state(self, player: int, level: str = "knowledge") -> str:
        """Seat `player`'s information state: its observation as text and the digest of all it has seen."""
        key = ("recall", player, level)
        core = self._core
        core.ready()
        if key not in core.strings:
            text = self.observation_text(player, level)
            lanes = core.digests[player]
            core.strings[key] = f"seat {player}\n{text}\nrecall {int(lanes[0]):016x}{int(lanes[1]):016x}"
        return core.strings[key]


# ------------------------------------------------------------------------------------- serialization

_META = "# python_uno game and state (uno_env.openspiel.serialize_game_and_state)"
STATE_FORMAT = "python_uno-state"
STATE_VERSION = 1
_INT16, _INT32 = 2**15 - 1, 2**31 - 1
_TEXT = "python_uno state text"  # how its errors begin


def serialize_game_and_state(game: UnoGame, state: UnoState) -> str:
    """`pyspiel.serialize_game_and_state` for python_uno: pyspiel's own calls `Game::GetRNGState` for a sampled
    stochastic game, which a Python game cannot override; this writes the seed sequence's position instead."""
    return f"{_META}\n[Game]\n{game}\n[GameRNGState]\n{game._next_seed}\n[State]\n{state.serialize()}"


def deserialize_game_and_state(text: str) -> tuple[UnoGame, UnoState]:
    """The (game, state) pair `serialize_game_and_state` wrote, read as data: the game's parameters are parsed
    here by their types (never by pyspiel's game-string parser) and the state as `UnoGame.deserialize_state`."""
    form = "not a python_uno game and state written by serialize_game_and_state"
    if not isinstance(text, str):
        raise ValueError(f"{form}: a str is needed, got {type(text).__name__}")
    head, _, state_text = text.partition("\n[State]\n")
    lines = head.split("\n", 5)
    if len(lines) != 5 or lines[:2] != [_META, "[Game]"] or lines[3] != "[GameRNGState]" or not state_text:
        raise ValueError(f"{form}: it must be {_META!r}, [Game], the game, [GameRNGState], a seed, [State], the state")
    seed = lines[4]
    if not (seed.isascii() and seed.isdigit() and len(seed) <= 20 and int(seed) < 2**64):
        raise ValueError(f"{form}: [GameRNGState] must be a seed from 0 to 2**64 - 1, got {_short(seed)}")
    game = load_game(_game_parameters(lines[2]))
    game._next_seed = int(seed)
    return game, game.deserialize_state(state_text)


def _short(value: Any) -> str:
    """repr(value), cut to one short line for an error message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _game_parameters(line: str) -> dict[str, Any]:
    """The parameters of a game string `python_uno(name=value,...)` as pyspiel writes it, each value read by its
    parameter's type (a one-line ValueError for anything else)."""
    form = f"the [Game] line must be {GAME_NAME}(name=value,...) as str(game) writes it"
    if not (line.startswith(GAME_NAME + "(") and line.endswith(")")) or len(line) > 10_000:
        raise ValueError(f"{form}, got {_short(line)}")
    params: dict[str, Any] = {}
    inner = line[len(GAME_NAME) + 1 : -1]
    for item in inner.split(",") if inner else []:
        name, equals, value = item.partition("=")
        if not equals or name not in PARAMETERS or name in params:
            raise ValueError(f"{form}: {_short(item)} is not one of its parameters as name=value")
        default = PARAMETERS[name]
        if isinstance(default, bool):
            if value not in ("True", "False"):
                raise ValueError(f"{form}: {name} must be True or False, got {_short(value)}")
            params[name] = value == "True"
        elif isinstance(default, int):
            digits = value[1:] if value.startswith("-") else value
            if not (digits.isascii() and digits.isdigit() and len(digits) <= 10):
                raise ValueError(f"{form}: {name} must be an int, got {_short(value)}")
            params[name] = int(value)
        elif isinstance(default, float):
            try:
                params[name] = float(value) if len(value) <= 40 else None
            except ValueError:
                params[name] = None
            if params[name] is None:
                raise ValueError(f"{form}: {name} must be a float, got {_short(value)}")
        else:
            params[name] = value
    return params


def _defining(params: dict[str, Any]) -> dict[str, Any]:
    """The parameters that make a game's states what they are (all but `rng_seed`, which picks new deals only)."""
    return {name: params[name] for name in sorted(params) if name != "rng_seed"}


def _field_ranges(game: UnoGame) -> dict[str, tuple[int, int]]:
    """The values each engine state field may hold under `game` (an index the compiled code reads unchecked stays
    inside its array): the first check of a state read from text, before the engine's own (`check_game`)."""
    n, colors = game.players, len(game.rules.colors)
    seat, seat_or_none, color = (0, n - 1), (-1, n - 1), (-1, colors - 1)
    flag, kind, pile = (0, 1), (0, C.NUM_KINDS - 1), (0, E.MAX_DECK)
    return {
        "rng": (0, 2**64 - 1), "steps": (0, game.max_steps), "round_points": (0, _INT32), "phase": (0, A.PHASE_OVER),
        "seat": seat, "direction": (-1, 1), "color": color, "dealer": seat, "drawn_kind": (-1, C.NUM_KINDS - 1),
        "effect": (0, E.EFFECT_FACE), "color_then": flag, "w4_player": seat_or_none, "w4_prev_color": color,
        "w4_guilty": flag, "uno_due": flag, "done": flag, "truncated": flag, "round_winner": seat_or_none,
        "effect_amount": pile, "pending_draw": (0, _INT16), "draw_len": pile, "discard_len": pile, "fh_len": pile,
        "rounds": (0, _INT16), "draw_pile": kind, "discard": kind, "fh_card": kind, "fh_seat": seat,
        "fh_wrong": (0, 2**colors - 1), "hand": (0, 127), "face": flag, "last_action": (-1, A.NUM_ACTIONS - 1),
        "known": (0, 127), "scores": (0, _INT32), "winners": flag, "void_at": (E.NO_VOID, _INT16), "named": (0, 127),
        "took": (0, _INT16), "draw_ended": flag, "recent_action": (-1, A.NUM_ACTIONS - 1), "recent_seat": seat_or_none,
        "recent_count": (0, _INT32),
    }  # fmt: skip


def _flat_ints(value: Any, shape: tuple[int, ...], where: str) -> list[int]:
    """The ints of nested lists of exactly `shape` (an int for shape ()), flattened."""
    if not shape:
        if type(value) is not int:
            raise ValueError(f"{where} must be an int, got {_short(value)}")
        return [value]
    if not isinstance(value, list) or len(value) != shape[0]:
        got = f"a list of {len(value)}" if isinstance(value, list) else type(value).__name__
        raise ValueError(f"{where} must be a list of {shape[0]}, got {got}")
    out: list[int] = []
    for i, item in enumerate(value):
        out.extend(_flat_ints(item, shape[1:], f"{where}[{i}]"))
    return out


def _engine_array(data: Any, game: UnoGame) -> np.ndarray:
    """A (1,) engine state from the text's `engine` dict: every field of its shape, in its range, then the engine's
    invariants (every card in one place, a legal action for the deciding seat, ...)."""
    names = E.STATE_DTYPE.names
    if not isinstance(data, dict) or set(data) != set(names):
        got = sorted(map(str, data))[:5] if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"python_uno state text: 'engine' must hold exactly the fields {', '.join(names)}, got {got}")
    ranges = _field_ranges(game)
    array = np.zeros(1, E.STATE_DTYPE)
    for name in names:
        where = f"python_uno state text: engine.{name}"
        field_type = E.STATE_DTYPE.fields[name][0]
        values = _flat_ints(data[name], field_type.shape, where)
        low, high = ranges[name]
        bad = [v for v in values if not low <= v <= high]
        if bad or (name == "direction" and values[0] == 0):
            raise ValueError(f"{where} must hold ints from {low} to {high}, got {_short(bad[0] if bad else 0)}")
        array[0][name] = np.array(values, dtype=field_type.base).reshape(field_type.shape)
    code = E.check_one(array, game.config_array, 0)
    if code != E.OK:
        raise ValueError(f"python_uno state text: its engine state is not a game's: {INVARIANT_MESSAGES[code]}")
    return array


def _read_state_text(text: Any, game: UnoGame) -> dict[str, Any]:
    """The checked fields of a state text (`UnoState.serialize`) for `game`; a one-line ValueError names the first
    thing wrong. JSON only: nothing in it is unpickled, evaluated or imported."""
    form = f"not a python_uno state text (JSON with format {STATE_FORMAT!r}, written by state.serialize())"
    if not isinstance(text, str):
        raise ValueError(f"{form}: a str is needed, got {type(text).__name__}")
    try:
        data = json.loads(text)
    except RecursionError:
        raise ValueError(f"{form}: JSON nested too deeply") from None
    except ValueError as error:  # JSONDecodeError, or an int of more digits than Python reads
        raise ValueError(f"{form}: {str(error).splitlines()[0]}") from None
    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
        raise ValueError(form)
    keys = {"format", "version", "game", "history", "episode_seed", "engine", "recall", "redeals"}
    if data.get("version") != STATE_VERSION or type(data.get("version")) is not int:
        raise ValueError(f"python_uno state text: version must be {STATE_VERSION}, got {_short(data.get('version'))}")
    if set(data) != keys:
        raise ValueError(f"python_uno state text: it must hold exactly the keys {', '.join(sorted(keys))}")
    expected = _defining(game.get_parameters())
    params = data["game"]
    if params != expected or not isinstance(params, dict):
        if not isinstance(params, dict):
            raise ValueError(f"python_uno state text: 'game' must be a dict of parameters, got {_short(params)}")
        differ = [name for name in sorted(set(params) | set(expected)) if params.get(name) != expected.get(name)]
        shown = ", ".join(
            f"{name}={_short(params.get(name))} (this game: {expected.get(name)!r})" for name in differ[:4]
        )
        raise ValueError(f"python_uno state text of another game: {shown}")
    engine = _engine_array(data["engine"], game)
    history = data["history"]
    steps = int(engine[0]["steps"])
    if not isinstance(history, list) or len(history) > steps:
        raise ValueError(f"python_uno state text: 'history' must be a list of at most {steps} [player, action] steps")
    for i, step in enumerate(history):
        if (
            not isinstance(step, list)
            or len(step) != 2
            or any(type(x) is not int for x in step)
            or not 0 <= step[0] < game.players
            or not 0 <= step[1] < A.NUM_ACTIONS
        ):
            raise ValueError(
                f"python_uno state text: history[{i}] must be [player 0 to {game.players - 1}, action 0 to "
                f"{A.NUM_ACTIONS - 1}], got {_short(step)}"
            )
    seed, redeals, recall = data["episode_seed"], data["redeals"], data["recall"]
    if type(seed) is not int or not 0 <= seed < 2**64:
        raise ValueError(f"{_TEXT}: 'episode_seed' must be an int from 0 to 2**64 - 1, got {_short(seed)}")
    if type(redeals) is not int or not 0 <= redeals < 2**63:
        raise ValueError(f"{_TEXT}: 'redeals' must be an int from 0 to 2**63 - 1, got {_short(redeals)}")
    hex_digits = set("0123456789abcdef")
    if (
        not isinstance(recall, list)
        or len(recall) != game.players
        or not all(isinstance(x, str) and len(x) == 32 and set(x) <= hex_digits for x in recall)
    ):
        raise ValueError(f"{_TEXT}: 'recall' must be {game.players} strings of 32 hex digits (one a seat)")
    digests = np.array([[int(x[:16], 16), int(x[16:], 16)] for x in recall], np.uint64)
    return {"engine": engine, "history": history, "episode_seed": seed, "redeals": redeals, "recall": digests}


def _load_game(game_string: str, next_seed: int) -> UnoGame:
    """A pickled game (pickles are trusted by whoever loads them): its string and its seed sequence's position."""
    game = pyspiel.load_game(game_string)
    game._next_seed = next_seed
    return game


def _load_state(game: UnoGame, state_text: str) -> UnoState:
    return game.deserialize_state(state_text)


# ------------------------------------------------------------------------------------------ observer


class UnoObserver:
    """An OpenSpiel Python observer at one observation level (`recall`: the information state, a string)."""

    def __init__(self, game: UnoGame, level: str, recall: bool):
        self.level, self.recall = level, recall
        self.spec = _spec(level, game.players)
        if recall:
            self.tensor, self.dict = None, {}
            return
        self.tensor = np.zeros(self.spec.size, np.float32)
        self.dict = {name: self.tensor[sl].reshape(shape) for name, (sl, shape) in self.spec.layout.items()}

    def set_from(self, state: UnoState, player: int) -> None:
        if self.tensor is not None:
            self.tensor[:] = state.observation(player, self.level)

    def string_from(self, state: UnoState, player: int) -> str:
        if self.recall:
            return state.information_state(player, self.level)
        return state.observation_text(player, self.level)


def _text(value: Any) -> str:
    if isinstance(value, list):
        if value and isinstance(value[0], list):
            return " | ".join(" ".join(map(str, row)) or "-" for row in value)
        return " ".join(map(str, value)) or "-"
    return "-" if value is None else str(value)


def _render(obs: np.ndarray, spec: O.ObservationSpec, batch: GameBatch) -> str:
    """An observation vector as text, one line per field (relative seats: +0 is the observer)."""
    codes, colors, names = batch.codes, batch.rules.colors, batch.action_names
    seats = [f"+{i}" for i in range(spec.num_players)]

    def cards(counts: list[int]) -> str:
        return " ".join([codes[k] for k, n in enumerate(counts) if n for _ in range(n)]) or "-"

    def one_hot(row: list[int], labels) -> str:
        return labels[row.index(1)] if 1 in row else "-"

    def rows(value: np.ndarray, show) -> str:
        return " | ".join(f"{seat}: {show(row)}" for seat, row in zip(seats, value.tolist(), strict=False))

    lines = []
    for name, (where, shape) in spec.layout.items():
        value = obs[where].reshape(shape)
        if name in ("color", "w4_previous_color"):
            text = one_hot(value.tolist(), colors)
        elif name == "phase":
            text = one_hot(value.tolist(), A.PHASE_NAMES)
        elif name == "deciding":
            text = one_hot(value.tolist(), seats)
        elif name == "last_action":
            text = rows(value, lambda row: one_hot(row, names))
        elif name == "recent_actions":
            text = " | ".join(one_hot(row, names) for row in value.tolist())
        elif name == "recent_seats":
            text = " | ".join(one_hot(row, seats) for row in value.tolist())
        elif name in ("void_age", "counting_prior"):  # a number per kind: shown where it says something
            blank = -1 if name == "void_age" else 0
            text = rows(value, lambda row, blank=blank: " ".join(
                f"{codes[k]}:{n}" for k, n in enumerate(row) if n != blank) or "-")  # fmt: skip
        elif name == "named_colors":
            text = rows(value, lambda row: " ".join(f"{c}:{n}" for c, n in zip(colors, row, strict=True) if n) or "-")
        elif name == "wrong_guesses":
            text = " | ".join(
                " ".join(c for c, bit in zip(colors, row, strict=True) if bit) or "-" for row in value.tolist()
            )
        elif len(shape) == 2:
            text = rows(value, cards)
        elif shape == (len(codes),):
            text = cards(value.tolist())
        else:
            text = " ".join(map(str, value.tolist()))
        lines.append(f"{name}: {text}")
    return "\n".join(lines)


if GAME_NAME not in pyspiel.registered_names():
    pyspiel.register_game(GAME_TYPE, UnoGame)
