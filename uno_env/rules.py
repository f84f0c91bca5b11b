"""Rule sets: the five presets and every option of the project's rules (RULES.md), validated.

A rule set is a preset (which fixes the colour names and the default deck) plus options:

| option                       | default                  | meaning                                              |
|------------------------------|--------------------------|------------------------------------------------------|
| `two_player_reverse_is_skip` | True                     | with 2 players a Reverse also skips the other player |
| `card_counts`                | the preset's deck        | copies of each card kind in the deck                 |
| `card_points`                | see below                | points of each kind                                  |
| `hand_size`                  | 7                        | cards dealt to each player                           |
| `stack_draw_two`             | False (True in `swap`)   | a Draw Two may be answered with a Draw Two           |
| `challenge_wild_draw_four`   | True                     | a Wild Draw Four may be challenged (and played illegally) |
| `narwhal_includes_player`    | True                     | the Narwhal's player gets a forehead card too, last  |
| `emoji_face_fail_rate`       | 0.0                      | chance that a player fails to keep the emoji face    |
| `uno_call`                   | "auto"                   | "auto" (always called) or "explicit" (a `uno` decision) |
| `uno_catch_rate`             | 1.0                      | chance that a missed UNO call is caught              |
| `uno_penalty`                | 2 (4 in `swap`)          | cards drawn by a player caught not calling UNO       |
| `target_score`               | 500                      | the score that ends a match                          |
| `scoring`                    | "winner_takes"           | or "penalty": lowest running tally of own points wins |

Points by default: numbers their face value (5 each in `emoji`), Skip/Reverse/Draw Two 20, wild cards 50
(Wild Customizable and Wild Swap 40 in `swap`).

`card_counts` and `card_points` take a partial mapping that overrides the preset: keys are card codes
(`"R5"`, `"WN"`) or a bare rank (`"5"`, `"S"`, `"R"`, `"+2"`) meaning that rank in every colour. Any preset
can add any special card this way, e.g. ``make_rules("classic", card_counts={"WN": 4})``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from . import cards as C

MAX_DECK_SIZE = 256
MAX_COPIES_PER_KIND = 100
MAX_PLAYERS = 10
MIN_PLAYERS = 2

PRESETS = ("classic", "unocorns", "monster_high", "emoji", "swap")
_PRESET_COLORS = {
    "classic": C.RED_COLORS,
    "unocorns": C.PINK_COLORS,
    "monster_high": C.PINK_COLORS,
    "emoji": C.RED_COLORS,
    "swap": C.RED_COLORS,
}
_PRESET_SPECIALS = {
    "classic": {},
    "unocorns": {"WN": 4},
    "monster_high": {"WU": 4},
    "emoji": {"WE": 2, "WC": 2},
    "swap": {"WS": 2, "WC": 2},
}
_PRESET_POINTS = {"emoji": {str(n): 5 for n in range(10)}, "swap": {"WC": 40, "WS": 40}}
_PRESET_OPTIONS: dict[str, dict[str, Any]] = {"swap": {"stack_draw_two": True, "uno_penalty": 4}}


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


@dataclass(frozen=True)
class RuleSet:
    """A validated rule set. Build it with `make_rules`; `card_counts`/`card_points` are per kind id."""

    preset: str = "classic"
    colors: tuple[str, ...] = C.RED_COLORS
    two_player_reverse_is_skip: bool = True
    card_counts: tuple[int, ...] = field(default_factory=lambda: tuple(_standard_counts()))
    card_points: tuple[int, ...] = field(default_factory=lambda: tuple(_standard_points()))
    hand_size: int = 7
    stack_draw_two: bool = False
    challenge_wild_draw_four: bool = True
    narwhal_includes_player: bool = True
    emoji_face_fail_rate: float = 0.0
    uno_call: str = "auto"
    uno_catch_rate: float = 1.0
    uno_penalty: int = 2
    target_score: int = 500
    scoring: str = "winner_takes"

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

    def check_players(self, num_players: int) -> None:
        """Refuse a player count this rule set cannot deal for."""
        if (
            isinstance(num_players, bool)
            or not isinstance(num_players, int)
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


OPTION_NAMES = tuple(f.name for f in fields(RuleSet) if f.name not in ("preset", "colors"))

_CHOICES = {"uno_call": ("auto", "explicit"), "scoring": ("winner_takes", "penalty")}
_BOOLS = ("two_player_reverse_is_skip", "stack_draw_two", "challenge_wild_draw_four", "narwhal_includes_player")
_RATES = ("emoji_face_fail_rate", "uno_catch_rate")
_INT_RANGES = {"hand_size": (1, 50), "uno_penalty": (0, 50), "target_score": (1, 1_000_000)}


def make_rules(preset: str = "classic", **options: Any) -> RuleSet:
    """The rule set of `preset` with `options` applied; a ValueError names anything not allowed."""
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; the presets are {', '.join(PRESETS)}")
    unknown = sorted(set(options) - set(OPTION_NAMES))
    if unknown:
        raise ValueError(f"unknown option(s) {', '.join(unknown)}; the options are {', '.join(OPTION_NAMES)}")
    colors = _PRESET_COLORS[preset]
    settings: dict[str, Any] = dict(_PRESET_OPTIONS.get(preset, {}))
    settings.update(options)

    counts = _apply_overrides(_standard_counts(), _PRESET_SPECIALS[preset], colors, "card_counts", MAX_COPIES_PER_KIND)
    points = _apply_overrides(_standard_points(), _PRESET_POINTS.get(preset, {}), colors, "card_points", 10_000)
    if "card_counts" in settings:
        counts = _apply_overrides(list(counts), settings.pop("card_counts"), colors, "card_counts", MAX_COPIES_PER_KIND)
    if "card_points" in settings:
        points = _apply_overrides(list(points), settings.pop("card_points"), colors, "card_points", 10_000)

    for name, value in settings.items():
        if name in _BOOLS and not isinstance(value, bool):
            raise ValueError(f"{name} must be True or False, got {value!r}")
        if name in _CHOICES and value not in _CHOICES[name]:
            raise ValueError(f"{name} must be one of {', '.join(map(repr, _CHOICES[name]))}, got {value!r}")
        if name in _RATES and (
            isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0
        ):
            raise ValueError(f"{name} must be a number from 0.0 to 1.0, got {value!r}")
        if name in _INT_RANGES:
            low, high = _INT_RANGES[name]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{name} must be an int from {low} to {high}, got {value!r}")
    for name in _RATES:
        if name in settings:
            settings[name] = float(settings[name])

    rules = RuleSet(preset=preset, colors=colors, card_counts=counts, card_points=points, **settings)
    if rules.deck_size > MAX_DECK_SIZE:
        raise ValueError(f"card_counts make a deck of {rules.deck_size} cards; at most {MAX_DECK_SIZE} are allowed")
    return rules
