"""Pictures of the table: an (H, W, 3) uint8 RGB array per view, drawn with Pillow, and animations of them.

`draw_table(view, colors)` draws a `uno_env.render.table_view` (what one seat may see, or a spectator's view
with ``viewer=None``), so a seat's picture shows exactly what its text rendering shows: the viewer at the
bottom with its hand face up (the cards it may play outlined) and its own forehead cards as backs marked "?",
the other seats around the table in turn order (the next seat to the left, i.e. clockwise) with their card
counts, scores and forehead cards, the top card, the draw pile, the active colour, the direction and any
pending Draw Two stack in the middle, whose decision it is (outlined, with the phase) and, at the end, the
winners. Every picture is `WIDTH` x `HEIGHT` pixels, so frames stack into a video.

    from uno_env.game import Game
    from uno_env.picture import frames_of_random_game, picture, save_animation

    game = Game("unocorns", 3, seed=7)
    frame = picture(game, 0)  # (640, 960, 3) uint8: what player_0 sees
    frames = frames_of_random_game(game, seed=7, viewer=None, max_frames=60)  # a spectator's view of play
    save_animation(frames, "/tmp/uno_game.gif", fps=2)  # or .mp4, with imageio-ffmpeg installed

An animated GIF merges identical consecutive frames into one longer frame (Pillow does so) and holds its last picture
at least `LAST_FRAME_MS` (3 s) before it loops. A face-up hand too long for one legible row is drawn in rows.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from . import actions as A
from . import cards as C
from . import faces as F
from .records import write_atomic
from .render import table_view

WIDTH, HEIGHT = 960, 640

# The cards' colours, marks and words are `uno_env.faces`'; wild cards are black with the four colours.
WHITE = (255, 255, 255)
INK = (20, 20, 24)
BACKGROUND = (24, 27, 34)
FELT = (40, 58, 74)
PANEL = (31, 40, 52)
PANEL_EDGE = (78, 94, 112)
TEXT = (232, 236, 240)
DIM = (160, 170, 182)
HIGHLIGHT = (255, 140, 0)  # whose decision it is; the cards the viewer may play
GOLD = (255, 215, 0)  # winners

_BOTTOM_TOP = 452  # the viewer's strip starts here
_CENTER = (480, 288)


@lru_cache(maxsize=64)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's built-in scalable font (no system font files needed)."""
    return ImageFont.load_default(size=size)


def _text_size(draw: ImageDraw.ImageDraw, text: str, size: int, stroke: int = 0) -> tuple[int, int]:
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font(size), stroke_width=stroke)
    return right - left, bottom - top


def _fit(draw: ImageDraw.ImageDraw, text: str, size: int, max_width: float, stroke: int = 0) -> int:
    """The largest font size <= `size` at which `text` is at most `max_width` wide."""
    while size > 7 and _text_size(draw, text, size, stroke)[0] > max_width:
        size -= 1
    return size


def clip_text(draw: ImageDraw.ImageDraw, text: str, size: int, max_width: float) -> str:
    """`text`, cut with '...' to at most `max_width` pixels: the longest prefix that fits, found by bisection, so a
    caption of any length (an agent's name from a record) costs a few measurements, not one per character."""
    if _text_size(draw, text, size)[0] <= max_width:
        return text
    fits, too_long = 0, len(text)  # text[:fits] + "..." fits (or fits is 0); text[:too_long] + "..." does not
    while too_long - fits > 1:
        middle = (fits + too_long) // 2
        if _text_size(draw, text[:middle] + "...", size)[0] <= max_width:
            fits = middle
        else:
            too_long = middle
    return text[:fits] + "..."


def _say(draw, xy, text, size, fill=TEXT, anchor="la", stroke=0, stroke_fill=INK) -> None:
    draw.text(xy, text, font=font(size), fill=fill, anchor=anchor, stroke_width=stroke, stroke_fill=stroke_fill)


def _rgb(name: str) -> tuple[int, int, int]:
    return F.COLOR_FACES[name].rgb


# ------------------------------------------------------------------------------------------------ cards


def _oval(x: float, y: float, w: float, h: float) -> tuple[float, float, float, float]:
    return (x + w * 0.13, y + h * 0.17, x + w * 0.87, y + h * 0.83)


def _slashed_circle(draw: ImageDraw.ImageDraw, cx: float, cy: float, w: int, ink) -> None:
    """The Skip mark, a circle with a slash, centred on (cx, cy) of a card `w` wide."""
    r = w * 0.26
    width = max(2, w // 9)
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=INK, width=width + 2)
    draw.ellipse((cx - r + 1, cy - r + 1, cx + r - 1, cy + r - 1), outline=ink, width=width)
    d = r * 0.7
    draw.line((cx - d, cy + d, cx + d, cy - d), fill=INK, width=width + 2)
    draw.line((cx - d, cy + d, cx + d, cy - d), fill=ink, width=width)


#: the marks (`uno_env.faces`) that Pillow's built-in font has no glyph for, drawn as shapes
_SHAPES = {"⊘": _slashed_circle}


def draw_card(draw: ImageDraw.ImageDraw, x: float, y: float, w: int, h: int, code: str, colors, outline=None):
    """A face-up card with its top-left corner at (x, y): its colour (black with the four colours for a wild),
    a white oval and its mark large; its word under it on big cards (SKIP, NARWHAL, ...): `uno_env.faces`."""
    kind = C.parse_card(code, colors)
    face, fill = F.face(kind), F.color_face(kind, colors).rgb
    radius = max(3, w // 7)
    box = (x, y, x + w - 1, y + h - 1)
    border = max(1, w // 24)
    oval = _oval(x, y, w, h)
    draw.rounded_rectangle(box, radius, fill=fill, outline=WHITE, width=border)
    if kind >= C.NUM_COLORED_KINDS:
        for slot, (start, end) in enumerate(((180, 270), (270, 360), (90, 180), (0, 90))):
            draw.pieslice(oval, start, end, fill=_rgb(colors[slot]))
        ink = WHITE
    else:
        draw.ellipse(oval, fill=WHITE)
        ink = fill
    if face.mark in _SHAPES:
        _SHAPES[face.mark](draw, x + w / 2, y + h / 2, w, ink)
    elif face.mark:
        stroke = max(1, w // 30)
        size = _fit(draw, face.mark, int(h * (0.46 if len(face.mark) == 1 else 0.36)), w * 0.72, stroke)
        _say(draw, (x + w / 2, y + h / 2), face.mark, size, fill=ink, anchor="mm", stroke=stroke)
    if h >= 30:  # the corner index, readable where fanned cards overlap
        size = max(8, int(h * 0.17))
        _say(draw, (x + border + 2, y + border + 1), face.code, size, fill=WHITE, stroke=1)
    if face.word and h >= 80:
        size = _fit(draw, face.word, max(8, h // 9), w * 0.9)
        _say(draw, (x + w / 2, y + h - 3 - border), face.word, size, fill=WHITE, anchor="md", stroke=1)
    if outline is not None:
        draw.rounded_rectangle((x - 2, y - 2, x + w + 1, y + h + 1), radius + 2, outline=outline, width=3)


def draw_back(draw: ImageDraw.ImageDraw, x: float, y: float, w: int, h: int, colors, mark: str = "UNO", count=None):
    """A face-down card: black, an oval in the first preset colour, `mark` on it; a badge with `count`."""
    radius = max(3, w // 7)
    border = max(1, w // 24)
    draw.rounded_rectangle((x, y, x + w - 1, y + h - 1), radius, fill=F.WILD_COLOR.rgb, outline=WHITE, width=border)
    draw.ellipse(_oval(x, y, w, h), fill=_rgb(colors[0]))
    size = _fit(draw, mark, int(h * (0.42 if len(mark) == 1 else 0.26)), w * 0.7, 1)
    _say(draw, (x + w / 2, y + h / 2), mark, size, fill=_rgb(colors[3]), anchor="mm", stroke=1)
    if count is not None:
        label = str(count)
        size = max(10, min(18, h // 3))
        tw, th = _text_size(draw, label, size)
        bw, bh = max(tw + 8, th + 8), th + 8
        bx, by = x + w - bw / 2 - 2, y + h - bh / 2 - 2
        draw.rounded_rectangle((bx, by, bx + bw, by + bh), bh // 2, fill=WHITE, outline=INK, width=1)
        _say(draw, (bx + bw / 2, by + bh / 2), label, size, fill=INK, anchor="mm")


def _fan(draw, x, y, max_width, w, h, codes, colors, playable=frozenset()) -> float:
    """Face-up cards left to right from (x, y), overlapping when they do not fit in `max_width`; the width used.
    Cards in `playable` are raised and outlined."""
    if not codes:
        return 0.0
    step = w + 4.0
    if len(codes) > 1 and (len(codes) - 1) * step + w > max_width:
        step = max(2.0, (max_width - w) / (len(codes) - 1))
    lift = max(3, h // 8)
    for i, code in enumerate(codes):
        up = code in playable
        draw_card(draw, x + i * step, y - (lift if up else 0), w, h, code, colors, outline=HIGHLIGHT if up else None)
    return (len(codes) - 1) * step + w


#: the narrowest strip of an overlapped card that still shows its corner index ("W+4" at the smallest size)
_MIN_CORNER_STRIP = 19
_MAX_ROWS = 4


def _hand_rows(count: int, width: float, height: float) -> tuple[int, int, int, int]:
    """How a face-up hand of `count` cards fits a `width` x `height` box legibly: (rows, cards a row, card width,
    card height). One row of the largest cards while each overlapped card still shows its corner index; else more
    rows of smaller cards; cards too small for a corner index are not overlapped at all. At `_MAX_ROWS` rows the
    cards overlap as much as they must."""
    for rows in range(1, _MAX_ROWS + 1):
        h = int((height - 3 * (rows - 1)) / rows)
        w = int(h * 2 / 3)
        strip = max(_MIN_CORNER_STRIP, w * 0.42) if h >= 30 else w + 2  # no corner index below 30 px: no overlap
        per_row = int((width - w) // strip) + 1 if width >= w else 1
        if per_row * rows >= count or rows == _MAX_ROWS:
            return rows, max(1, -(-count // rows)), w, h
    raise AssertionError("unreachable")


def _hand(draw, x, y, width, height, codes, colors, playable=frozenset()) -> float:
    """A face-up hand in the box (x, y, `width`, `height`): one fanned row, or as many rows as keep every card's
    mark or corner index in sight (`_hand_rows`); the width used."""
    if not codes:
        return 0.0
    rows, per_row, w, h = _hand_rows(len(codes), width, height)
    if rows == 1:
        return _fan(draw, x, y, width, w, h, codes, colors, playable)
    used = 0.0
    for row in range(rows):
        part = codes[row * per_row : (row + 1) * per_row]
        if part:
            outlined = [code for code in part if code in playable]
            used = max(used, _fan(draw, x, y + row * (h + 3), width, w, h, part, colors))
            _outline(draw, x, y + row * (h + 3), width, w, h, part, outlined)
    return used


def _outline(draw, x, y, max_width, w, h, codes, outlined) -> None:
    """Outline, without raising them, the cards of a fanned row (as `_fan` placed it) that are in `outlined`."""
    step = w + 4.0
    if len(codes) > 1 and (len(codes) - 1) * step + w > max_width:
        step = max(2.0, (max_width - w) / (len(codes) - 1))
    for i, code in enumerate(codes):
        if code in outlined:
            left = x + i * step
            draw.rounded_rectangle((left - 1, y - 1, left + w, y + h), max(3, w // 7), outline=HIGHLIGHT, width=2)


def _foreheads(draw, x, y, w, h, foreheads, colors) -> float:
    """Forehead cards left to right from (x, y): face up, or a back marked "?" for each hidden one."""
    for i, code in enumerate(foreheads):
        if code is None:
            draw_back(draw, x + i * (w + 3), y, w, h, colors, mark="?")
        else:
            draw_card(draw, x + i * (w + 3), y, w, h, code, colors)
    return len(foreheads) * (w + 3) - 3 if foreheads else 0


# ------------------------------------------------------------------------------------------------ table


# Other seats -> (seats up each side, seats along the top, panel width, panel height).
_LAYOUTS = {
    1: (0, 1, 220, 116),
    2: (0, 2, 220, 116),
    3: (1, 1, 220, 116),
    4: (1, 2, 196, 112),
    5: (1, 3, 196, 112),
    6: (1, 4, 176, 104),
    7: (2, 3, 176, 104),
    8: (2, 4, 176, 100),
    9: (2, 5, 150, 96),
}


def _seat_boxes(others: int) -> tuple[list[tuple[float, float]], int, int]:
    """Centres of the other seats' panels, in turn order up the left side, along the top and down the right
    side of the table (the next seat to the viewer's left first), and the panels' width and height."""
    side, across, pw, ph = _LAYOUTS[others]
    margin = 8
    row_y = margin + ph / 2
    low, high = margin + ph + margin, _BOTTOM_TOP - margin  # the side columns, below the top row
    ys = [high - (high - low) * (k + 0.5) / side for k in range(side)]  # bottom to top
    left, right = margin + pw / 2, WIDTH - margin - pw / 2
    xs = [left + (right - left) * k / (across - 1) for k in range(across)] if across > 1 else [WIDTH / 2]
    return [(left, y) for y in ys] + [(x, row_y) for x in xs] + [(right, y) for y in reversed(ys)], pw, ph


def _name(seat: int) -> str:
    """A seat's name as the tables say it (uno-web's, the replay page's): "Player 2"."""
    return f"Player {seat}"


def _points(score: int) -> str:
    """A seat's score, in points, as the tables say it."""
    return "1 point" if score == 1 else f"{score} points"


def _cards(count: int) -> str:
    return "1 card" if count == 1 else f"{count} cards"


def _tag(draw, x, y, text, fill, size=13) -> None:
    """A small label with a coloured background, its bottom-left corner at (x, y)."""
    tw, th = _text_size(draw, text, size)
    draw.rounded_rectangle((x, y - th - 8, x + tw + 10, y), 5, fill=fill)
    _say(draw, (x + 5, y - 4), text, size, fill=INK, anchor="ls")


def _panel_frame(draw, box, seat, view, tab: bool) -> None:
    """A seat's panel, outlined when it decides (orange) or has won (gold); with `tab` a label above it says so,
    else the caller marks its header."""
    edge, width = PANEL_EDGE, 1
    if seat["winner"] and view["done"]:
        edge, width = GOLD, 4
    elif seat["deciding"]:
        edge, width = HIGHLIGHT, 4
    draw.rounded_rectangle(box, 10, fill=PANEL, outline=edge, width=width)
    if tab and edge != PANEL_EDGE:
        _tag(draw, box[0] + 10, box[1] + 2, f"to decide: {view['phase']}" if seat["deciding"] else "WINNER", edge)


def _playable(view, seat) -> frozenset[str]:
    """The cards `seat` may play now, when its legal actions are part of the view."""
    if not seat["deciding"] or view["legal"] is None:
        return frozenset()
    return frozenset(name[5:] for name in view["legal"] if name.startswith("play "))


def _other_seat(draw, cx, cy, pw, ph, seat, view, colors) -> None:
    x0, y0 = cx - pw / 2, cy - ph / 2
    _panel_frame(draw, (x0, y0, x0 + pw, y0 + ph), seat, view, tab=False)
    pad = 8
    size = 15 if pw >= 170 else 13
    mark = None
    if seat["winner"] and view["done"]:
        mark, fill = "WINNER", GOLD
    elif seat["deciding"]:
        mark, fill = view["phase"], HIGHLIGHT
    if mark is not None:  # the header on the seat's colour, with the phase or WINNER
        draw.rounded_rectangle((x0, y0, x0 + pw, y0 + 26), 10, fill=fill, corners=(True, True, False, False))
        name_fill = INK
    else:
        name_fill = TEXT
    _say(draw, (x0 + pad, y0 + 6), _name(seat["seat"]), size, fill=name_fill)
    right = _points(seat["score"]) if mark is None else f"{mark}  {_points(seat['score'])}"
    room = pw - 2 * pad - _text_size(draw, _name(seat["seat"]), size)[0] - 8
    if _text_size(draw, right, size - 2)[0] > room:
        right = f"{mark}  {seat['score']}"
    _say(draw, (x0 + pw - pad, y0 + 7), right, size - 2, fill=INK if mark is not None else DIM, anchor="ra")
    ch = ph - 44
    cw = int(ch * 2 / 3)
    y = y0 + 32
    fh = seat["foreheads"]
    fw = cw * 0.8
    fh_width = len(fh) * (fw + 3) + 6 if fh else 0
    if fh:
        fx = x0 + pw - pad - fh_width + 6
        _say(draw, (fx, y + ch + 2), "forehead", 10, fill=DIM)
        _foreheads(draw, fx, y + 2, int(fw), int(ch * 0.8), fh, colors)
    if not seat["count"]:
        _say(draw, (x0 + pad, y + ch / 2), "no cards", size - 2, fill=DIM, anchor="lm")
    elif seat["hand"] is None:
        draw_back(draw, x0 + pad, y, cw, ch, colors, count=seat["count"])
        _say(draw, (x0 + pad + cw + 10, y + ch / 2), _cards(seat["count"]), size - 2, fill=TEXT, anchor="lm")
    else:
        room = pw - 2 * pad - fh_width
        used = _hand(draw, x0 + pad, y + 2, room, ph - 38, seat["hand"], colors, _playable(view, seat))
        if used < room - 30:
            _say(draw, (x0 + pad + used + 6, y + ch), str(seat["count"]), 11, fill=DIM, anchor="ld")


def _bottom_seat(draw, seat, view, colors) -> None:
    box = (8, _BOTTOM_TOP, WIDTH - 8, HEIGHT - 8)
    _panel_frame(draw, box, seat, view, tab=True)
    you = " (you)" if seat["you"] else ""
    _say(draw, (22, _BOTTOM_TOP + 10), f"{_name(seat['seat'])}{you}", 18)
    _say(draw, (250, _BOTTOM_TOP + 13), f"{_cards(seat['count'])}   {_points(seat['score'])}", 15, fill=DIM)
    fh = seat["foreheads"]
    fw, fhh = 40, 60
    fh_width = len(fh) * (fw + 3) + 20 if fh else 0
    if fh:
        fx = WIDTH - 22 - fh_width + 20
        _say(draw, (fx, _BOTTOM_TOP + 40), "forehead", 12, fill=DIM)
        _foreheads(draw, fx, _BOTTOM_TOP + 58, fw, fhh, fh, colors)
    room = WIDTH - 44 - fh_width
    hand = seat["hand"] or []
    _fan(draw, 22, _BOTTOM_TOP + 46, room, 60, 90, hand, colors, _playable(view, seat))
    if not hand:
        _say(draw, (22, _BOTTOM_TOP + 90), "no cards", 16, fill=DIM, anchor="lm")
    if not view["done"]:
        deciding = view["deciding"]
        whose = "your" if deciding == view["viewer"] else f"{_name(deciding)}'s"
        line = f"{whose} decision ({view['phase']})"
        if view["legal"] is not None:
            line += ": " + ", ".join(view["legal"])
        _say(draw, (22, HEIGHT - 16), clip_text(draw, line, 14, WIDTH - 44), 14, fill=TEXT, anchor="ls")


def _arrow_arc(draw, cx, cy, rx, ry, start, end, fill, width) -> None:
    """An elliptical arc from angle `start` to `end` (degrees, screen coordinates) with a head at `end`."""
    lo, hi = min(start, end), max(start, end)
    draw.arc((cx - rx, cy - ry, cx + rx, cy + ry), lo, hi, fill=fill, width=width)
    a = math.radians(end)
    px, py = cx + rx * math.cos(a), cy + ry * math.sin(a)
    sign = 1 if end > start else -1
    tx, ty = -rx * math.sin(a) * sign, ry * math.cos(a) * sign  # the direction of travel
    norm = math.hypot(tx, ty) or 1.0
    tx, ty = tx / norm, ty / norm
    nx, ny = -ty, tx
    head = 7 + width * 2
    tip = (px + tx * head, py + ty * head)
    draw.polygon(
        [tip, (px + nx * head * 0.6, py + ny * head * 0.6), (px - nx * head * 0.6, py - ny * head * 0.6)], fill=fill
    )


def _middle(draw, view, colors) -> None:
    cx, cy = _CENTER
    draw.ellipse((cx - 270, cy - 148, cx + 270, cy + 148), fill=FELT)
    # The direction: +1 passes to the left, which is clockwise seen from above with the viewer at the bottom.
    clockwise = view["direction"] == 1
    for start, end in ((200, 340), (20, 160)):
        if not clockwise:
            start, end = end, start
        _arrow_arc(draw, cx, cy, 248, 128, start, end, (200, 210, 222), 3)
    label = "clockwise (+1)" if clockwise else "counter-clockwise (-1)"
    _say(draw, (cx, cy + 112), f"direction: {label}", 13, fill=TEXT, anchor="md")
    _say(draw, (cx, cy - 112), f"UNO {view['variant']}  |  round {view['round']}", 14, fill=TEXT, anchor="ma")
    # Draw pile, top card, active colour.
    draw_back(draw, cx - 170, cy - 45, 60, 90, colors, count=view["pile"])
    _say(draw, (cx - 140, cy + 58), "draw pile", 12, fill=DIM, anchor="ma")
    if view["top"] is not None:
        draw_card(draw, cx - 40, cy - 62, 80, 120, view["top"], colors)
    if view["pending_draw"]:
        _tag(draw, cx - 40, cy - 66, f"draw stack +{view['pending_draw']}", HIGHLIGHT, size=14)
    sx, sy = cx + 120, cy - 30
    active = view["color"]
    for slot, name in enumerate(colors):
        dx, dy = (slot % 2) * 34, (slot // 2) * 34
        r = 15 if name == active else 9
        ox, oy = sx + dx, sy + dy
        if name == active:
            draw.ellipse((ox - r - 3, oy - r - 3, ox + r + 3, oy + r + 3), fill=WHITE)
        draw.ellipse((ox - r, oy - r, ox + r, oy + r), fill=_rgb(name))
    _say(draw, (sx + 17, sy + 56), f"colour: {active or '?'}", 13, fill=TEXT, anchor="ma")


def _banner(draw, view) -> None:
    cx, cy = _CENTER
    if view["truncated"] and not view["winners"]:
        text = "GAME OVER (truncated)"
    else:
        names = ", ".join(_name(w) for w in view["winners"]) or "nobody"
        text = ("WINNER: " if len(view["winners"]) == 1 else "WINNERS: ") + names
    size = _fit(draw, text, 30, 460)
    tw, th = _text_size(draw, text, size)
    draw.rounded_rectangle((cx - tw / 2 - 18, cy + 74, cx + tw / 2 + 18, cy + 74 + th + 20), 12, fill=INK, outline=GOLD,
                           width=3)  # fmt: skip
    _say(draw, (cx, cy + 84 + th / 2), text, size, fill=GOLD, anchor="mm")


def draw_table(view: dict[str, Any], colors: Sequence[str]) -> np.ndarray:
    """The picture of a `table_view` with the preset's colour names `colors`: (HEIGHT, WIDTH, 3) uint8."""
    colors = tuple(colors)
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    seats = view["seats"]
    n = len(seats)
    anchor = view["viewer"] if view["viewer"] is not None else 0  # the seat drawn at the bottom
    _middle(draw, view, colors)
    centres, pw, ph = _seat_boxes(n - 1)
    for k, (x, y) in enumerate(centres, start=1):
        _other_seat(draw, x, y, pw, ph, seats[(anchor + k) % n], view, colors)
    _bottom_seat(draw, seats[anchor], view, colors)
    if view["done"]:
        _banner(draw, view)
    return np.asarray(image, dtype=np.uint8).copy()


def picture(game, viewer: int | None, g: int = 0) -> np.ndarray:
    """Game g of a GameBatch (or a `Game`) as seat `viewer` sees it (None: a spectator who sees every card)."""
    return draw_table(table_view(game, viewer, g), game.rules.colors)


# ------------------------------------------------------------------------------------------------ animations


def frames_of_actions(game, actions: Iterable[str | int], viewer: int | None = None, g: int = 0) -> list[np.ndarray]:
    """The pictures of game g of a `Game` or GameBatch before and after each of `actions` (names or ids), which
    it plays in place."""
    batch = getattr(game, "batch", game)
    frames = [picture(batch, viewer, g)]
    for action in actions:
        batch.step_game(g, A.action_id(action, batch.rules.colors) if isinstance(action, str) else action)
        frames.append(picture(batch, viewer, g))
    return frames


def frames_of_random_game(
    game, seed: int = 0, viewer: int | None = None, max_frames: int = 200, g: int = 0
) -> list[np.ndarray]:
    """Pictures of game g of a `Game` or GameBatch played on in place by uniformly random legal actions (from
    `seed`) until it is over or `max_frames` pictures are taken; ``viewer=None`` shows every card."""
    batch = getattr(game, "batch", game)
    rng = np.random.default_rng(seed)
    frames = [picture(batch, viewer, g)]
    while not batch.done[g] and len(frames) < max_frames:
        legal = np.flatnonzero(batch.legal_masks()[g])
        batch.step_game(g, int(rng.choice(legal)))
        frames.append(picture(batch, viewer, g))
    return frames


#: how long a GIF shows its last picture (the end of the game), in milliseconds, before it loops
LAST_FRAME_MS = 3000


def gif_durations(count: int, fps: float, held: int = 1) -> list[int]:
    """Each of `count` GIF pictures' time on screen in milliseconds: 1000 / `fps` each, and the end (its last
    `held` pictures, the same picture) at least `LAST_FRAME_MS` in all (a GIF loops: its end is held long enough to
    be read)."""
    each = round(1000 / fps)
    return [each] * (count - 1) + [max(each, LAST_FRAME_MS - (held - 1) * each)]


def save_animation(frames: Sequence[np.ndarray], path: str | Path, fps: float = 2) -> Path:
    """Write `frames` ((H, W, 3) uint8 arrays of one size) as an animated GIF, or as an mp4 when `path` ends in
    .mp4 (needs the imageio-ffmpeg package); a GIF holds its end at least `LAST_FRAME_MS`. Returns the path."""
    path = Path(path)
    if not len(frames):
        raise ValueError("save_animation needs at least one frame")
    if fps <= 0:
        raise ValueError(f"fps must be positive, got {fps!r}")
    arrays = [np.ascontiguousarray(frame, dtype=np.uint8) for frame in frames]
    shape = arrays[0].shape
    if len(shape) != 3 or shape[2] != 3 or any(a.shape != shape for a in arrays):
        raise ValueError(f"frames must be (H, W, 3) uint8 arrays of one shape, got {sorted({a.shape for a in arrays})}")
    suffix = path.suffix.lower()
    if suffix == ".gif":
        images = [Image.fromarray(a, "RGB") for a in arrays]
        held = 1  # the pictures that end it, all the same (Pillow merges them into one)
        while held < len(arrays) and np.array_equal(arrays[-held - 1], arrays[-1]):
            held += 1

        def write(temporary: str) -> None:
            images[0].save(temporary, format="GIF", save_all=True, append_images=images[1:],
                           duration=gif_durations(len(images), fps, held), loop=0)  # fmt: skip
    elif suffix == ".mp4":
        try:
            import imageio_ffmpeg
        except ImportError as error:
            raise ImportError(
                "writing an .mp4 needs the imageio-ffmpeg package: pip install imageio-ffmpeg (or save a .gif)"
            ) from error

        def write(temporary: str) -> None:
            writer = imageio_ffmpeg.write_frames(temporary, (shape[1], shape[0]), fps=fps)
            writer.send(None)
            for a in arrays:
                writer.send(a.tobytes())
            writer.close()
    else:
        raise ValueError(f"save_animation writes .gif or .mp4 files, got {str(path)!r}")
    return write_atomic(path, write)  # a failed save leaves the old file whole
