"""Card kinds, card codes and the colour names of each preset.

Every card is one of 59 *kinds*; hands are count vectors over kinds and piles are arrays of kinds.

| kind id | cards                          | code examples        |
|---------|--------------------------------|----------------------|
| 0-12    | colour slot 0: 0-9, S, R, +2   | R0..R9, RS, RR, R+2  |
| 13-25   | colour slot 1 (blue)           | B0..B9, BS, BR, B+2  |
| 26-38   | colour slot 2 (green)          | G0 .. G+2            |
| 39-51   | colour slot 3 (yellow)         | Y0 .. Y+2            |
| 52      | Wild                           | W                    |
| 53      | Wild Draw Four                 | W+4                  |
| 54      | Wild Narwhal Rule              | WN                   |
| 55      | Creeperific "Urrrhhh"          | WU                   |
| 56      | Wild Emoji                     | WE                   |
| 57      | Wild Customizable              | WC                   |
| 58      | Wild Swap                      | WS                   |

A coloured kind is ``slot * 13 + rank`` with ranks 0-9 (numbers), 10 (Skip), 11 (Reverse),
12 (Draw Two). Colour slot 0 is red in `classic`, `emoji` and `swap`, pink in `unocorns` and
`monster_high`; its letter is R or P accordingly.
"""

from __future__ import annotations

NUM_COLORS = 4
RANKS_PER_COLOR = 13
NUM_COLORED_KINDS = NUM_COLORS * RANKS_PER_COLOR  # 52
SKIP_RANK, REVERSE_RANK, DRAW_TWO_RANK = 10, 11, 12

WILD, WILD_DRAW_FOUR, NARWHAL, URRRHHH, EMOJI, CUSTOMIZABLE, SWAP = range(52, 59)
NUM_KINDS = 59

RANK_CODES = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "+2")
RANK_NAMES = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "Skip", "Reverse", "Draw Two")
WILD_CODES = ("W", "W+4", "WN", "WU", "WE", "WC", "WS")
WILD_NAMES = (
    "Wild",
    "Wild Draw Four",
    "Wild Narwhal Rule",
    'Creeperific "Urrrhhh"',
    "Wild Emoji",
    "Wild Customizable",
    "Wild Swap",
)

RED_COLORS = ("red", "blue", "green", "yellow")
PINK_COLORS = ("pink", "blue", "green", "yellow")


def color_letter(color_name: str) -> str:
    """The one-letter code of a colour name: red -> R, pink -> P."""
    return color_name[0].upper()


def kind_code(kind: int, colors: tuple[str, ...]) -> str:
    """The card code of a kind, in the colour letters of `colors`."""
    if kind >= NUM_COLORED_KINDS:
        return WILD_CODES[kind - NUM_COLORED_KINDS]
    slot, rank = divmod(kind, RANKS_PER_COLOR)
    return color_letter(colors[slot]) + RANK_CODES[rank]


def all_codes(colors: tuple[str, ...]) -> list[str]:
    """The code of every kind, indexed by kind id."""
    return [kind_code(k, colors) for k in range(NUM_KINDS)]


def parse_card(code: str, colors: tuple[str, ...]) -> int:
    """The kind id of a card code; a ValueError that lists the allowed forms otherwise."""
    if not isinstance(code, str):
        raise ValueError(f"card code must be a string, got {code!r}")
    text = code.strip().upper()
    if text in WILD_CODES:
        return NUM_COLORED_KINDS + WILD_CODES.index(text)
    letters = [color_letter(c) for c in colors]
    if len(text) >= 2 and text[0] in letters and text[1:] in RANK_CODES:
        return letters.index(text[0]) * RANKS_PER_COLOR + RANK_CODES.index(text[1:])
    raise ValueError(
        f"malformed card code {code!r}: expected a colour letter {'/'.join(letters)} followed by a rank "
        f"{' '.join(RANK_CODES)} (e.g. {letters[0]}5, {letters[1]}S, {letters[2]}+2), "
        f"or a wild code {' '.join(WILD_CODES)}"
    )


def is_number_kind(kind: int) -> bool:
    return kind < NUM_COLORED_KINDS and kind % RANKS_PER_COLOR < SKIP_RANK
