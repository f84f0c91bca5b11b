"""The one table of card faces and colours (`uno_env.faces`): it covers every card kind and every colour of every
colour set, and every screen reads it: change a row and the picture, the text, the terminal, the pages' JSON and
the page's drawing in a browser follow, and the web assets hold no copy of it."""

from __future__ import annotations

import dataclasses
import html
import io
import json
import re

import numpy as np
import pytest
from conftest import headless_dom
from PIL import Image, ImageDraw
from rich.console import Console
from rich.style import Style

from uno_env import cards as C
from uno_env import faces as F
from uno_env import picture as P
from uno_env.agents import NaiveAgent
from uno_env.game import Game
from uno_env.play import terminal, web
from uno_env.render import paint
from uno_env.replay import Replay, static_asset
from uno_env.rules import VARIANTS, make_rules
from uno_env.text import card_words

COLOR_SETS = (C.RED_COLORS, C.PINK_COLORS)
ELEMENT = re.compile(r'<script type="application/json" id="uno-faces">([^<]*)</script>')


def test_the_table_covers_every_card_kind_and_every_colour_of_every_colour_set():
    assert {make_rules(variant).colors for variant in VARIANTS} == set(COLOR_SETS)
    assert set(F.COLOR_FACES) == {name for colors in COLOR_SETS for name in colors}
    for color in [*F.COLOR_FACES.values(), F.WILD_COLOR]:
        assert len(color.rgb) == 3 and all(isinstance(v, int) and 0 <= v <= 255 for v in color.rgb)
        Style.parse(color.style)  # a rich style
    for colors in COLOR_SETS:
        for kind in range(C.NUM_KINDS):
            face, color = F.face(kind), F.color_face(kind, colors)
            code = C.kind_code(kind, colors)
            assert face.mark and face.name and code.endswith(face.code)
            if kind < C.NUM_COLORED_KINDS:
                assert code == C.color_letter(colors[kind // C.RANKS_PER_COLOR]) + face.code
                assert color == F.COLOR_FACES[colors[kind // C.RANKS_PER_COLOR]]
            else:
                assert code == face.code and color == F.WILD_COLOR
    assert len({face.code for face in F.RANK_FACES}) == C.RANKS_PER_COLOR
    assert len({face.code for face in F.WILD_FACES}) == C.NUM_KINDS - C.NUM_COLORED_KINDS


def test_the_pages_carry_the_table_as_safe_json():
    element = F.faces_element()
    data = json.loads(ELEMENT.fullmatch(element).group(1))
    assert data == json.loads(json.dumps(F.faces_data()))
    assert data["ranks"][C.SKIP_RANK] == {"code": "S", "name": "Skip", "mark": "⊘", "word": "SKIP"}
    assert data["colors"]["pink"]["rgb"] == list(F.COLOR_FACES["pink"].rgb)


def test_the_web_assets_hold_no_copy_of_the_table():
    assets = static_asset("table.js") + static_asset("table.css")
    for color in [*F.COLOR_FACES.values(), F.WILD_COLOR]:
        assert ", ".join(map(str, color.rgb)) not in assets
    for face in F.RANK_FACES + F.WILD_FACES:
        copies = {f'"{face.word}"', f'"{face.mark}"', json.dumps(face.mark)} - {'""', f'"{face.code}"'}
        assert not [copy for copy in copies if copy in assets], face


# ---------------------------------------------------------------------------------------- one table, every screen
ODD = F.ColorFace((1, 2, 3), "bold cyan")
ODD_REVERSE = F.Face("R", "Turn", "TRN", "TURN AROUND")


@pytest.fixture
def changed_table(monkeypatch):
    """The table with red as ODD and the Reverse face as ODD_REVERSE."""
    monkeypatch.setitem(F.COLOR_FACES, "red", ODD)
    faces = list(F.RANK_FACES)
    faces[C.REVERSE_RANK] = ODD_REVERSE
    monkeypatch.setattr(F, "RANK_FACES", tuple(faces))


def card_picture(code: str) -> np.ndarray:
    image = Image.new("RGB", (80, 120), P.BACKGROUND)
    P.draw_card(ImageDraw.Draw(image), 0, 0, 80, 120, code, C.RED_COLORS)
    return np.asarray(image)


def colours_of(image: np.ndarray) -> set[tuple[int, ...]]:
    return {tuple(int(v) for v in pixel) for pixel in image.reshape(-1, 3)}


def test_the_picture_reads_the_table(changed_table):
    assert ODD.rgb in colours_of(P.picture(Game("classic", 2, seed=1), None))
    assert ODD.rgb in colours_of(card_picture("R5")) and ODD.rgb in colours_of(card_picture("W"))


def test_the_pictures_mark_and_word_are_the_tables(monkeypatch):
    before = card_picture("BR")
    faces = list(F.RANK_FACES)
    faces[C.REVERSE_RANK] = dataclasses.replace(faces[C.REVERSE_RANK], mark=ODD_REVERSE.mark)
    monkeypatch.setattr(F, "RANK_FACES", tuple(faces))
    marked = card_picture("BR")
    faces[C.REVERSE_RANK] = ODD_REVERSE
    monkeypatch.setattr(F, "RANK_FACES", tuple(faces))
    worded = card_picture("BR")
    assert (before != marked).any()  # the mark, in the middle
    assert (marked[100:] != worded[100:]).any() and (marked[:96] == worded[:96]).all()  # the word, at the bottom


def test_the_text_and_the_terminal_read_the_table(changed_table):
    assert paint("R5", C.RED_COLORS, True) == "\x1b[1;36mR5\x1b[0m"  # bold cyan
    assert card_words("RR", C.RED_COLORS) == "red Turn"
    screen = terminal.TerminalGame(Game("classic", 2, seed=0), 0, {1: ("naive", NaiveAgent(1))},
                                   Console(file=io.StringIO()))  # fmt: skip
    assert screen.card("R5").style == ODD.style and screen.colour("red").style == ODD.style
    assert screen.card("W+4").style == F.WILD_COLOR.style


def test_the_pages_json_reads_the_table(changed_table):
    page = web.create_app(web.parse_args(["--seed", "0"])).test_client().get("/").get_data(as_text=True)
    replay_page = Replay(Game("classic", 2, seed=0).to_record()).html()
    for text in (page, replay_page):
        data = json.loads(ELEMENT.search(text).group(1))
        assert data["colors"]["red"] == {"rgb": list(ODD.rgb), "style": ODD.style}
        assert data["ranks"][C.REVERSE_RANK]["mark"] == ODD_REVERSE.mark
    assert page.index('id="uno-faces"') < page.index('<script src="/uno-static/table.js">')


DRAW = """<script>
var card = UnoTable.card("RR", ["red", "blue", "green", "yellow"], {size: "large"});
document.body.appendChild(card);
document.body.setAttribute("data-shown", JSON.stringify([getComputedStyle(card).backgroundColor,
  card.querySelector(".uno-rank").textContent, card.querySelector(".uno-word").textContent]));
</script>"""


def test_the_pages_drawing_reads_the_table(changed_table, tmp_path):
    path = tmp_path / "card.html"
    path.write_text(f"<!DOCTYPE html><html><head><meta charset='utf-8'><style>{static_asset('table.css')}</style>"
                    f"</head><body class='uno-root'>{F.faces_element()}<script>{static_asset('table.js')}</script>"
                    f"{DRAW}</body></html>", encoding="utf-8")  # fmt: skip
    run = headless_dom(path.as_uri())
    shown = re.search(r'data-shown="([^"]*)"', run.stdout)
    assert shown, run.stderr[-2000:]
    assert json.loads(html.unescape(shown.group(1))) == ["rgb(1, 2, 3)", ODD_REVERSE.mark, ODD_REVERSE.word]
