"""How cards look, in one table that every screen reads: each card face's code, name, mark and word, and each
colour's RGB and terminal style.

| field   | what                                                          | read by                                  |
|---------|---------------------------------------------------------------|------------------------------------------|
| `code`  | a rank's code after the colour letter ("5", "S", "+2"), or a  | the card's corner (pictures, web pages)  |
|         | wild card's whole code ("W+4"); from `uno_env.cards`          |                                          |
| `name`  | the face in words ("5", "Skip", "Wild Draw Four")             | text prompts (`uno_env.text`)            |
| `mark`  | the symbol in the card's middle ("5", "⊘", "+4")              | pictures, web pages                      |
| `word`  | printed under the mark on a big card ("", "SKIP", "WILD +4")  | pictures, web pages                      |
| `rgb`   | a colour's red, green and blue, 0-255                         | pictures (`uno_env.picture`), web pages  |
| `style` | a colour's terminal style (a `rich` style)                    | `uno_env.render` (as ANSI), uno-play     |

A coloured card's face is its rank's (R5, B5 and G5 share the face "5") in its colour; a wild card's face is its
own, on `WILD_COLOR`. The web pages' JavaScript (`uno_env/static/table.js`) reads the same table from the page, as
`faces_data()` put there by `faces_element()`. A new colour or card face is a row here and nothing else.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from . import cards as C

__all__ = ["COLOR_FACES", "RANK_FACES", "WILD_COLOR", "WILD_FACES", "ColorFace", "Face", "color_face", "face",
           "faces_data", "faces_element", "script_json"]  # fmt: skip


@dataclass(frozen=True)
class Face:
    """One card face: its `code`, `name`, `mark` and `word` (the module's table says what each is for)."""

    code: str
    name: str
    mark: str
    word: str


@dataclass(frozen=True)
class ColorFace:
    """One colour: its `rgb` on pictures and web pages and its `style` in a terminal."""

    rgb: tuple[int, int, int]
    style: str


#: the mark and word of each rank, in `cards.RANK_CODES` order (the picture draws "⊘" as a shape)
_RANK_LOOKS = (*((code, "") for code in C.RANK_CODES[: C.SKIP_RANK]), ("⊘", "SKIP"), ("REV", "REVERSE"),
               ("+2", "DRAW TWO"))  # fmt: skip
#: the mark and word of each wild card, in `cards.WILD_CODES` order
_WILD_LOOKS = (("W", "WILD"), ("+4", "WILD +4"), ("WN", "NARWHAL"), ("WU", "URRRHHH"), ("WE", "EMOJI"),
               ("WC", "CUSTOM"), ("WS", "SWAP"))  # fmt: skip

RANK_FACES = tuple(
    Face(code, name, mark, word)
    for code, name, (mark, word) in zip(C.RANK_CODES, C.RANK_NAMES, _RANK_LOOKS, strict=True)
)
WILD_FACES = tuple(
    Face(code, name, mark, word)
    for code, name, (mark, word) in zip(C.WILD_CODES, C.WILD_NAMES, _WILD_LOOKS, strict=True)
)

#: every colour of every preset's colour set (`cards.RED_COLORS`, `cards.PINK_COLORS`)
COLOR_FACES = {
    "red": ColorFace((214, 40, 40), "bold red"),
    "pink": ColorFace((236, 92, 168), "bold magenta"),
    "blue": ColorFace((24, 102, 204), "bold blue"),
    "green": ColorFace((40, 156, 72), "bold green"),
    "yellow": ColorFace((240, 196, 24), "bold yellow"),
}
#: a wild card's own colour: black, and reverse video in a terminal
WILD_COLOR = ColorFace((24, 24, 24), "bold reverse")


def face(kind: int) -> Face:
    """The face of card kind `kind`: its rank's for a coloured card, its own for a wild card."""
    if kind >= C.NUM_COLORED_KINDS:
        return WILD_FACES[kind - C.NUM_COLORED_KINDS]
    return RANK_FACES[kind % C.RANKS_PER_COLOR]


def color_face(kind: int, colors: tuple[str, ...]) -> ColorFace:
    """The colour of card kind `kind` in the preset's colour names `colors`: its slot's, or `WILD_COLOR`."""
    if kind >= C.NUM_COLORED_KINDS:
        return WILD_COLOR
    return COLOR_FACES[colors[kind // C.RANKS_PER_COLOR]]


def faces_data() -> dict[str, Any]:
    """The table as JSON data: ``ranks`` and ``wilds`` (lists of faces), ``colors`` (name -> colour), ``wild``."""
    return {
        "ranks": [asdict(f) for f in RANK_FACES],
        "wilds": [asdict(f) for f in WILD_FACES],
        "colors": {name: asdict(color) for name, color in COLOR_FACES.items()},
        "wild": asdict(WILD_COLOR),
    }


def script_json(data: Any) -> str:
    """JSON safe inside a <script> element: no '<', '>' or '&' that could end it or start a comment."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def faces_element() -> str:
    """The table as the web pages carry it, for table.js to read: a JSON data element with the id uno-faces."""
    return f'<script type="application/json" id="uno-faces">{script_json(faces_data())}</script>'
