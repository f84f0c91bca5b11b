"""Rule sets: the five variants and every option of the project's rules, validated.

A rule set (`RuleSet`, "the rules") is a variant plus options. A variant is a named preset (`VARIANTS`: the name
`variant=` and `--variant` take everywhere) that fixes the colour names and the default deck. The options are
one table, `OPTIONS`: each row gives an option's name (the keyword argument everywhere: `make_rules`,
`Game`, `env()`, `--option NAME=VALUE`, and the engine's config field), its type and allowed values, its
default in each variant and its meaning. The `RuleSet` fields, the validation, the engine config and the
documented table (`options_markdown()`) are all made from it.

`card_counts` and `card_points` take a partial mapping that overrides the variant: keys are card codes
(`"R5"`, `"WN"`) or a bare rank (`"5"`, `"S"`, `"R"`, `"+2"`) meaning that rank in every colour. Any variant
can add any special card this way, e.g. ``make_rules("classic", card_counts={"WN": 4})``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, make_dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from . import actions as A
from . import cards as C

# The limits of the engine's fixed-size state; defined here once (the engine sizes its arrays by them).
MIN_PLAYERS = 2
MAX_PLAYERS = 10
MAX_DECK_SIZE = 256
MAX_COPIES_PER_KIND = 100
MAX_CARD_POINTS = 10_000

VARIANTS = ("classic", "unocorns", "monster_high", "emoji", "swap")
PRESETS = VARIANTS  # the older name of VARIANTS, kept for one release
_VARIANT_COLORS = {
    "classic": C.RED_COLORS,
    "unocorns": C.PINK_COLORS,
    "monster_high": C.PINK_COLORS,
    "emoji": C.RED_COLORS,
    "swap": C.RED_COLORS,
}
_VARIANT_SPECIALS = {
    "classic": {},
    "unocorns": {"WN": 4},
    "monster_high": {"WU": 4},
    "emoji": {"WE": 2, "WC": 2},
    "swap": {"WS": 2, "WC": 2},
}
_VARIANT_POINTS = {"emoji": {str(n): 5 for n in range(10)}, "swap": {"WC": 40, "WS": 40}}


def _standard_counts() -> list[int]:
    counts = [0] * C.NUM_KINDS
    for slot in range(C.NUM_COLORS):
        for rank in range(C.RANKS_PER_COLOR):
            counts[slot * C.RANKS_PER_COLOR + rank] = 1 if rank == 0 else 2
    counts[C.WILD] = 4
    counts[C.WILD_DRAW_FOUR] = 4
    return counts


def _standard_points() -> list[int]:
    points = [50] * C.NUM_KINDS
    for kind in range(C.NUM_COLORED_KINDS):
        rank = kind % C.RANKS_PER_COLOR
        points[kind] = rank if rank < C.SKIP_RANK else 20
    return points


def _kinds_of_key(key: str, colors: tuple[str, ...]) -> list[int]:
    """Kinds named by an override key: a card code, or a bare rank for every colour."""
    if isinstance(key, str) and key.strip().upper() in C.RANK_CODES:
        rank = C.RANK_CODES.index(key.strip().upper())
        return [slot * C.RANKS_PER_COLOR + rank for slot in range(C.NUM_COLORS)]
    return [C.parse_card(key, colors)]


def _apply_overrides(base: list[int], overrides, colors, option: str, high: int) -> tuple[int, ...]:
    if not isinstance(overrides, dict):
        raise ValueError(f"{option} must be a dict of card code (or bare rank) -> int, got {overrides!r}")
    values = list(base)
    for key, value in overrides.items():
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
            raise ValueError(f"{option}[{key!r}] must be an int from 0 to {high}, got {value!r}")
        for kind in _kinds_of_key(key, colors):
            values[kind] = value
    return tuple(values)


def _deck_of(variant: str) -> tuple[int, ...]:
    return _apply_overrides(
        _standard_counts(), _VARIANT_SPECIALS[variant], _VARIANT_COLORS[variant], "card_counts", MAX_COPIES_PER_KIND
    )


def _points_of(variant: str) -> tuple[int, ...]:
    return _apply_overrides(
        _standard_points(), _VARIANT_POINTS.get(variant, {}), _VARIANT_COLORS[variant], "card_points", MAX_CARD_POINTS
    )


@dataclass(frozen=True)
class Option:
    """One row of the option table: a rule option's name, type, allowed values, defaults and meaning.

    `kind` is "bool", "int" (from `low` to `high`), "rate" (a number from 0.0 to 1.0), "choice" (one of
    `choices`; the engine stores its index) or "cards" (a value per card kind, given as a partial mapping
    of card codes or bare ranks to ints from 0 to `high`, applied over the variant's own).
    """

    name: str
    kind: str
    default: Any
    meaning: str
    variant_defaults: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()
    default_of_variant: Callable[[str], Any] | None = None  # "cards": the variant's own values

    @property
    def preset_defaults(self) -> Mapping[str, Any]:
        """The older name of `variant_defaults`, kept for one release."""
        return self.variant_defaults

    def default_for(self, variant: str) -> Any:
        """This option's value in `variant` when nobody sets it."""
        if self.default_of_variant is not None:
            return self.default_of_variant(variant)
        return self.variant_defaults.get(variant, self.default)

    @property
    def allowed(self) -> str:
        """The allowed values, in words (the same words every error message uses)."""
        if self.kind == "bool":
            return "True or False"
        if self.kind == "int":
            return f"an int from {self.low} to {self.high}"
        if self.kind == "rate":
            return "a number from 0.0 to 1.0"
        if self.kind == "choice":
            return " or ".join(map(repr, self.choices))
        return f"a dict of card code (or bare rank) -> int from 0 to {self.high}"

    def check(self, value: Any) -> Any:
        """`value` as the rule set stores it, or a ValueError that says what is allowed."""
        ok = {
            "bool": lambda v: isinstance(v, (bool, np.bool_)),
            "int": lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, bool) and self.low <= v <= self.high,  # noqa: E501
            "rate": lambda v: isinstance(v, (int, float, np.integer, np.floating))
            and not isinstance(v, bool)
            and 0.0 <= v <= 1.0,
            "choice": lambda v: isinstance(v, str) and v in self.choices,
            "cards": lambda v: isinstance(v, (tuple, list, np.ndarray))
            and len(v) == C.NUM_KINDS
            and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) and 0 <= x <= self.high for x in v),
        }[self.kind](value)
        if not ok:
            raise ValueError(f"{self.name} must be {self.allowed}, got {value!r}")
        if self.kind == "cards":
            return tuple(int(x) for x in value)
        return {"bool": bool, "int": int, "rate": float}.get(self.kind, lambda v: v)(value)

    def engine_value(self, value: Any) -> Any:
        """The value as the engine's config field of the same name holds it."""
        return self.choices.index(value) if self.kind == "choice" else value

    @property
    def engine_dtype(self) -> tuple:
        """(name, numpy dtype[, shape]) of the engine's config field for this option."""
        if self.kind == "cards":
            return (self.name, np.int32, (C.NUM_KINDS,))
        return (self.name, {"bool": np.int8, "int": np.int32, "rate": np.float64, "choice": np.int8}[self.kind])

    @property
    def python_type(self) -> type:
        return {"bool": bool, "int": int, "rate": float, "choice": str, "cards": tuple}[self.kind]


UNO_CALLS = ("auto", "explicit")
SCORINGS = ("winner_takes", "penalty")

# The option table, in the order of the RuleSet fields.
OPTIONS: tuple[Option, ...] = (
    Option("two_player_reverse_is_skip", "bool", True, "with 2 players a Reverse also skips the other player"),
    Option("card_counts", "cards", "the variant's deck", "copies of each card kind in the deck",
           high=MAX_COPIES_PER_KIND, default_of_variant=_deck_of),
    Option("card_points", "cards", "the variant's points", "points of each card kind when a round is scored",
           high=MAX_CARD_POINTS, default_of_variant=_points_of),
    Option("hand_size", "int", 7, "cards dealt to each player", low=1, high=50),
    Option("stack_draw_two", "bool", False, "a Draw Two may be answered with a Draw Two, passing on the sum",
           variant_defaults=MappingProxyType({"swap": True})),
    Option("challenge_wild_draw_four", "bool", True,
           "a Wild Draw Four may be challenged (and so may be played illegally)"),
    Option("narwhal_includes_player", "bool", True, "the Narwhal's player gets a forehead card too, last"),
    Option("emoji_face_fail_rate", "rate", 0.0, "chance that a player fails to keep the emoji face (and draws 4)"),
    Option("uno_call", "choice", "auto", "'auto' (always called) or 'explicit' (an `uno` decision)",
           choices=UNO_CALLS),
    Option("uno_catch_rate", "rate", 1.0, "chance that a missed UNO call is caught"),
    Option("uno_penalty", "int", 2, "cards drawn by a player caught not calling UNO", low=0, high=50,
           variant_defaults=MappingProxyType({"swap": 4})),
    Option("target_score", "int", 500, "the score that ends a match", low=1, high=1_000_000),
    Option("scoring", "choice", "winner_takes",
           "'winner_takes' (the winner scores the others' cards) or 'penalty' (lowest running tally of own "
           "cards wins)", choices=SCORINGS),
)  # fmt: skip
OPTION_NAMES = tuple(option.name for option in OPTIONS)
OPTION_BY_NAME = MappingProxyType({option.name: option for option in OPTIONS})


class _RuleSetBase:
    """Methods of `RuleSet` (its fields are made from `OPTIONS`)."""

    def __post_init__(self) -> None:
        """Validate every field, however the rule set was built (`make_rules`, the constructor, `replace`)."""
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown variant {self.variant!r}; the variants are {', '.join(VARIANTS)}")
        if self.colors not in (C.RED_COLORS, C.PINK_COLORS):
            raise ValueError(f"colors must be {C.RED_COLORS} or {C.PINK_COLORS}, got {self.colors!r}")
        for option in OPTIONS:
            object.__setattr__(self, option.name, option.check(getattr(self, option.name)))
        if self.deck_size > MAX_DECK_SIZE:
            raise ValueError(f"card_counts make a deck of {self.deck_size} cards; at most {MAX_DECK_SIZE} are allowed")

    @property
    def preset(self) -> str:
        """The older name of `variant`, kept for one release."""
        return self.variant

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickle, also a rule set pickled before `preset` was renamed `variant`."""
        state = dict(state)
        if "preset" in state:
            state["variant"] = state.pop("preset")
        self.__dict__.update(state)

    @property
    def deck_size(self) -> int:
        return sum(self.card_counts)

    @property
    def codes(self) -> list[str]:
        """Card code of every kind id, in this rule set's colour letters."""
        return C.all_codes(self.colors)

    def card_counts_by_code(self) -> dict[str, int]:
        """The deck as {code: copies}, only kinds that are in it."""
        return {code: n for code, n in zip(self.codes, self.card_counts, strict=True) if n}

    def card_points_by_code(self) -> dict[str, int]:
        return dict(zip(self.codes, self.card_points, strict=True))

    def decision_phases(self) -> tuple[str, ...]:
        """The phases in which a game of these rules can ask for a decision (every phase but `over`): `play` and
        `drawn` always, the others when the deck holds the cards, or the options allow the decisions, that lead
        to them."""
        n = self.card_counts
        phases = {"play", "drawn"}
        if any(n[k] for k in (C.WILD, C.WILD_DRAW_FOUR, C.NARWHAL, C.URRRHHH, C.CUSTOMIZABLE, C.SWAP)):
            phases.add("color")
        if n[C.WILD_DRAW_FOUR] and self.challenge_wild_draw_four:
            phases.add("challenge")
        for kind, phase in ((C.NARWHAL, "guess"), (C.URRRHHH, "give"), (C.SWAP, "swap"), (C.EMOJI, "emoji")):
            if n[kind]:
                phases.add(phase)
        if self.uno_call == "explicit":
            phases.add("uno")
        return tuple(p for p in A.PHASE_NAMES if p in phases)

    def options(self) -> dict[str, Any]:
        """Every option's value, by name."""
        return {name: getattr(self, name) for name in OPTION_NAMES}

    def check_playable(self, num_players: int) -> None:
        """Refuse this rule set for a game of `num_players` unless it still passes every check of a new rule set
        (whatever was done to it since it was made) and its deck deals for that many players."""
        self.__post_init__()
        self.check_players(num_players)

    def check_players(self, num_players: int) -> None:
        """Refuse a player count this rule set cannot deal for."""
        if (
            isinstance(num_players, bool)
            or not isinstance(num_players, (int, np.integer))
            or not (MIN_PLAYERS <= num_players <= MAX_PLAYERS)
        ):
            raise ValueError(f"num_players must be an int from {MIN_PLAYERS} to {MAX_PLAYERS}, got {num_players!r}")
        non_draw_four = self.deck_size - self.card_counts[C.WILD_DRAW_FOUR]
        needed = num_players * self.hand_size + 1
        if non_draw_four < needed:
            raise ValueError(
                f"a deck of {self.deck_size} cards ({non_draw_four} other than Wild Draw Four) cannot deal "
                f"{self.hand_size} cards to {num_players} players and turn a first card: it needs at least "
                f"{needed} cards that are not Wild Draw Four"
            )


RuleSet = make_dataclass(
    "RuleSet",
    [("variant", str, field(default="classic")), ("colors", tuple, field(default=C.RED_COLORS))]
    + [
        (option.name, option.python_type, field(default_factory=lambda option=option: option.default_for("classic")))
        for option in OPTIONS
    ],
    bases=(_RuleSetBase,),
    frozen=True,
    namespace={"__module__": __name__},
)
RuleSet.__doc__ = (
    "A validated rule set: `variant`, its `colors` and one field per row of `OPTIONS` (`card_counts` and "
    "`card_points` per kind id). Build it with `make_rules`."
)


def make_rules(variant: str = "classic", /, **options: Any) -> RuleSet:
    """The rule set of `variant` with `options` applied; a ValueError names anything not allowed. The variant may
    also come as `variant=` (or `preset=`, its older name, kept for one release): a keyword is never a TypeError."""
    for keyword in ("variant", "preset"):
        if keyword in options:
            if variant != "classic":
                raise ValueError(f"give the variant once: {keyword}= names it too")
            variant = options.pop(keyword)
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; the variants are {', '.join(VARIANTS)}")
    unknown = sorted(set(options) - set(OPTION_NAMES))
    if unknown:
        raise ValueError(f"unknown option(s) {', '.join(unknown)}; the options are {', '.join(OPTION_NAMES)}")
    colors = _VARIANT_COLORS[variant]
    values = {}
    for option in OPTIONS:
        value = option.default_for(variant)
        if option.name in options:
            given = options[option.name]
            value = (
                _apply_overrides(list(value), given, colors, option.name, option.high)
                if option.kind == "cards"
                else given
            )
        values[option.name] = value
    return RuleSet(variant=variant, colors=colors, **values)


def options_markdown() -> str:
    """The option table as markdown: name, allowed values, default (and where a variant differs), meaning."""
    rows = ["| option | allowed values | default | meaning |", "|---|---|---|---|"]
    for option in OPTIONS:
        if option.kind == "cards":
            default = option.default
        else:
            default = f"`{option.default!r}`"
            others = [f"`{value!r}` in `{variant}`" for variant, value in option.variant_defaults.items()]
            if others:
                default += f" ({', '.join(others)})"
        rows.append(f"| `{option.name}` | {option.allowed} | {default} | {option.meaning} |")
    return "\n".join(rows) + "\n"


if __doc__:  # None under python -OO
    __doc__ += "\n" + options_markdown()
