"""Replays of game records (`uno_env.records`): the `Game` after every decision, an interactive viewer for
notebooks and as one standalone HTML file, and captioned pictures of each step as a GIF or an MP4.

    from uno_env.replay import Replay, replay, replay_frames, replay_steps, save_replay

    game = replay(record)                 # the Game at the record's end (every action checked as it is applied)
    for game in replay_steps(record):     # the Game as dealt, then after each decision
        ...
    Replay(record)                        # in Jupyter: an interactive replay (no server; an isolated iframe)
    Replay(record).save_html("game.html") # the same, as one HTML file that fetches nothing
    frames = list(replay_frames(record, viewer=0))  # (688, 960, 3) uint8 pictures, each captioned
    save_replay(record, "game.gif")       # or .mp4 (imageio-ffmpeg) or .html, by the suffix; `uno-replay` on files

The viewer steps through the decisions (first, previous, next and last buttons, a slider, the arrow keys, Home
and End, space to play), draws the cards as cards in the preset's colours, shows the action taken at each step
and by whom, and the result at the end; a menu picks whose view to show: a spectator's (every card) or one seat's
(`uno_env.render`: `table_view` and the replay rules beside it decide what a seat sees, and a seat sees only
the moments and steps it saw live; computed here in Python and sent as each view's changes from one moment to
the next; the page's JavaScript puts them back together and only draws). Its drawing code is
`uno_env/static/table.js` and `table.css` (`UnoTable.card`, `UnoTable.table`, `UnoTable.mountReplay`), inlined into
the page with the card faces it reads (`uno_env.faces.faces_element`), with a move list beside the table (click a
move to jump to it) and the address's `#step=N&view=K` followed as it changes. `back_link` adds a link at the top
(uno-web's replay page links back to its table).

The pictures (`replay_frames`) are `uno_env.picture.draw_table` of each moment the viewer saw, under a caption that
says who just did what (the card played drawn beside it); `save_replay` writes them as an animated GIF (Pillow) or an
MP4 (imageio-ffmpeg, when installed), at most `MAX_FRAMES` pictures a file, as it draws them.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from .faces import faces_element, script_json
from .game import Game, replay_steps
from .records import check_record, write_atomic
from .render import seen_step, sees_moment, table_view

SPECTATOR = "all"  # the key of the spectator's view in the embedded data
ASSETS = ("table.js", "table.css")


def replay(record: dict) -> Game:
    """The `Game` a record holds, replayed to its last action: `Game.from_record` (the steps: `replay_steps`, from
    `uno_env.game`)."""
    return Game.from_record(record)


# ------------------------------------------------------------------------------------------------ data


def static_asset(name: str) -> str:
    """The text of one of the viewer's static files (`uno_env/static/`): table.js or table.css."""
    if name not in ASSETS:
        raise ValueError(f"unknown asset {name!r}; the assets are {', '.join(ASSETS)}")
    return (resources.files("uno_env") / "static" / name).read_text(encoding="utf-8")


def _viewer_keys(viewers: Sequence[int | None] | None, n: int) -> list[int | None]:
    if viewers is None:
        return [None, *range(n)]
    keys = []
    for viewer in viewers:
        if viewer is not None and (isinstance(viewer, bool) or not isinstance(viewer, int) or not 0 <= viewer < n):
            raise ValueError(f"viewers must be seats from 0 to {n - 1} or None (a spectator), got {viewer!r}")
        if viewer not in keys:
            keys.append(viewer)
    if not keys:
        raise ValueError("viewers must name at least one view")
    return keys


def title_of(record: dict, *, seed: bool = True) -> str:
    """A one-line title of a record: variant, players, episode, who played, and (with `seed`) the seed, which tells
    every card of a shuffled deal."""
    n = record["num_players"]
    text = f"UNO {record['variant']}, {n} players, a {record['episode']}"
    if record["agents"]:
        text += ": " + " vs ".join(record["agents"])
    if not seed:
        return text + (" (dealt)" if record["deal"] is not None else "")
    return text + (f" (seed {record['seed']}" + (", dealt" if record["deal"] is not None else "") + ")")


_JOINED = ("hand", "legal")  # lists of names sent as one string, joined by "|" (no card code or action name has one)


def _pack(fields: dict[str, Any]) -> dict[str, Any]:
    return {
        key: "|".join(value) if key in _JOINED and isinstance(value, list) else value
        for key, value in fields.items()
        if key != "deciding" or "seat" not in fields  # a seat's `deciding` follows from the view's
    }


def _unpack(fields: dict[str, Any]) -> dict[str, Any]:
    return {
        key: (value.split("|") if value else []) if key in _JOINED and isinstance(value, str) else value
        for key, value in fields.items()
    }


def _delta(before: dict[str, Any] | None, view: dict[str, Any]) -> dict[str, Any]:
    """`view` as the changes from `before` (the viewer's last table; None: the whole view): the fields that
    differ, and under `seats` the changed fields of each changed seat by its index; a seat's `deciding` is left
    out (it is the view's `deciding`) and a hand or the legal actions go as one string (`_pack`)."""
    if before is None:
        return {**_pack(view), "seats": [_pack(seat) for seat in view["seats"]]}
    out = _pack({key: value for key, value in view.items() if key != "seats" and before.get(key) != value})
    seats = {}
    for i, (old, new) in enumerate(zip(before["seats"], view["seats"], strict=True)):
        changed = {key: value for key, value in new.items() if key != "deciding" and old.get(key) != value}
        if changed:
            seats[str(i)] = _pack(changed)
    if seats:
        out["seats"] = seats
    return out


class _Pool:
    """Distinct JSON values, each kept once and referred to by its index (many views share a step's changes)."""

    def __init__(self):
        self.values: list[Any] = []
        self._index: dict[str, int] = {}

    def ref(self, value: Any) -> int:
        key = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        if key not in self._index:
            self._index[key] = len(self.values)
            self.values.append(value)
        return self._index[key]


def replay_data(
    record: dict, *, viewers: Sequence[int | None] | None = None, title: str | None = None
) -> dict[str, Any]:
    """What the viewer draws, as JSON data, for each viewer (`viewers`: seats, None for the spectator; default: the
    spectator and every seat): the moments it saw (`render.sees_moment`), each with the step that led to it as it
    saw it (`render.seen_step`: who, the action, the phase, its details; `chosen`: its own next action) and its
    `table_view` as the changes from its previous one. Steps and changes are kept once in `moves` and `changes`
    and each view lists their indices, so that the page grows with the record (by about the same few changes a
    step), not with every view of every step in full. With more than one viewer, `skipped` lists the decisions a
    view has no moment of (to keep one's place when the viewer changes); offered to seats only, the page's title
    leaves out the seed."""
    check_record(record)
    n = record["num_players"]
    keys = _viewer_keys(viewers, n)
    agents = record["agents"] or [None] * n
    details = record["details"] or [None] * len(record["actions"])
    names = [SPECTATOR if viewer is None else str(viewer) for viewer in keys]
    steps: dict[str, list[dict]] = {name: [] for name in names}
    tables: dict[str, list[int]] = {name: [] for name in names}
    skipped: dict[str, list[int]] = {name: [] for name in names}
    last_table: dict[str, dict | None] = dict.fromkeys(names)
    unseen: dict[str, list[tuple[str, str]]] = {name: [] for name in names}
    changes = _Pool()
    before = None
    colors: list[str] = []
    for index, game in enumerate(replay_steps(record)):
        if index == 0:
            colors = list(game.rules.colors)
        frozen = _Frozen(game)
        d = frozen.describe()
        for viewer, key in zip(keys, names, strict=True):
            if index == 0:
                step: dict[str, Any] = {}
            else:
                action = game.action_names[record["actions"][index - 1]]
                if not sees_moment(d, viewer):  # folded into the step this viewer sees next
                    unseen[key].append((before["phase"], action))
                    skipped[key].append(index)
                    continue
                step = seen_step(viewer, before["seat"], before["phase"], action, details[index - 1], unseen[key])
                step = {name: value for name, value in step.items() if value is not None}
                unseen[key] = []
                if viewer is None or step["by"] == viewer:
                    steps[key][-1]["chosen"] = step["action"]  # one's own next action, outlined in one's hand
            if index:
                step["says"] = narration(step, agents, n)
            view = table_view(frozen, viewer)
            del view["variant"], view["players"]  # the same in every view: once, at the top
            steps[key].append(step)
            tables[key].append(changes.ref(_delta(last_table[key], view)))
            last_table[key] = view
        before = d
    moves = _Pool()
    views = {}
    for key in names:
        views[key] = {"steps": [moves.ref(step) for step in steps[key]], "tables": tables[key]}
        if len(names) > 1:  # one view alone: nothing to keep one's place across (nor to tell what it skipped)
            views[key]["skipped"] = skipped[key]
    labels = {None: "Spectator: every card"}
    labels.update({seat: seat_name(seat, agents) for seat in range(n)})
    return {
        "format": "uno-env-replay",
        "version": 2,
        "title": title if title is not None else title_of(record, seed=None in keys),
        "variant": record["variant"],
        "players": n,
        "episode": record["episode"],
        "colors": colors,
        "seats": [{"name": f"Player {seat}", "agent": agents[seat]} for seat in range(n)],
        "viewers": [{"key": key, "label": labels[v]} for v, key in zip(keys, names, strict=True)],
        "moves": moves.values,
        "changes": changes.values,
        "views": views,
        "result": record["result"] if record["result"] is not None else _final_result(before),
    }


def seat_name(seat: int, agents: Sequence[str | None]) -> str:
    """A seat's name as the live table says it: "Player 2 (counter)", "Player 2" when no agent is named."""
    return f"Player {seat}" + (f" ({agents[seat]})" if agents[seat] else "")


#: what a decision does, in the live table's words (`uno_env.play.session`'s narration), by its phase when that
#: changes the meaning: a colour is named, guessed or given away; passing keeps a drawn card or one's hand
_SAYS_IN_PHASE = {
    ("color", "color"): "names {0}",
    ("guess", "color"): "guesses {0} for its forehead card",
    ("give", "color"): "gives away every {0} card",
    ("emoji", "play"): "puts {0} on the Wild Emoji",
    ("drawn", "play"): "plays the drawn card {0}",
    ("drawn", "pass"): "keeps the drawn card",
    ("swap", "pass"): "keeps its hand",
    ("uno", "pass"): "does not call UNO",
}
_SAYS = {"play": "plays {0}", "draw": "draws", "pass": "passes", "color": "names {0}", "uno": "calls UNO!",
         "challenge": "challenges the Wild Draw Four", "accept": "accepts the Wild Draw Four"}  # fmt: skip


def narration(step: dict[str, Any], agents: Sequence[str | None], players: int) -> str:
    """A step of `replay_data` said as the live table says it: "Player 1 (counter) plays R5", "Player 2 draws, then
    plays R5" (a draw folded into another seat's step), "Player 0 names red", "... swaps hands with Player 3"."""
    seat = step["by"]
    phrases = []
    for i, action in enumerate(step["action"].split(", then ")):
        verb, _, argument = action.partition(" ")
        if verb == "swap":  # "swap +k": the seat k to the left
            phrases.append(f"swaps hands with {seat_name((seat + int(argument)) % players, agents)}")
            continue
        phase = step["phase"] if i == 0 else "play"  # a folded step: what follows a draw is seen as a play
        phrases.append(_SAYS_IN_PHASE.get((phase, verb), _SAYS.get(verb, action)).format(argument))
    return f"{seat_name(seat, agents)} {', then '.join(phrases)}"


def view_frames(data: dict[str, Any], key: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The (step, table_view) of each moment of view `key` in `replay_data`, put back together (as the page does)."""
    return list(iter_view_frames(data, key))


def iter_view_frames(data: dict[str, Any], key: str) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """`view_frames`, one moment at a time (a long record's views are not all held at once)."""
    view = data["views"][key]
    table = None
    for move, change in zip(view["steps"], view["tables"], strict=True):
        table = _apply(table, data["changes"][change])
        yield data["moves"][move], table


def _apply(before: dict[str, Any] | None, changes: dict[str, Any]) -> dict[str, Any]:
    """`_delta` undone: the view after `before` (None: `changes` is a whole view)."""
    if before is None:
        view = {**_unpack(changes), "seats": [_unpack(seat) for seat in changes["seats"]]}
    else:
        view = {**before, **_unpack({key: value for key, value in changes.items() if key != "seats"})}
        view["seats"] = list(before["seats"])
        for i, seat in changes.get("seats", {}).items():
            view["seats"][int(i)] = {**before["seats"][int(i)], **_unpack(seat)}
    view["seats"] = [{**seat, "deciding": seat["seat"] == view["deciding"]} for seat in view["seats"]]
    return view


class _Frozen:
    """One state of a game as `table_view` reads it (its description and legal actions, computed once), so that
    every viewer's view of a step costs one `describe()`; `table_view` still decides what each viewer sees."""

    def __init__(self, game: Game):
        batch = game.batch
        self.num_players, self.rules, self.action_names = batch.num_players, batch.rules, batch.action_names
        self._description = batch.describe(0)
        self._masks = batch.legal_masks()[:1].copy()

    def describe(self, g: int = 0) -> dict[str, Any]:
        return self._description

    def legal_masks(self):
        return self._masks


def _final_result(d: dict[str, Any] | None) -> dict[str, Any] | None:
    if d is None:
        return None
    return {"scores": d["scores"], "winners": d["winners"], "done": d["done"], "truncated": d["truncated"]}


MAX_LINK_CHARS = 2000


def checked_link(href: str) -> str:
    """`href` if it is a link a replay page may show: a path on the same site (`/`, `/table?x=1`, `../game`) or an
    http(s) address, with no spaces or control characters; else a ValueError saying what is allowed."""
    allowed = "a path such as / or an http(s) address, without spaces, at most 2000 characters"
    if not isinstance(href, str) or not href or len(href) > MAX_LINK_CHARS or re.search(r"[\s\x00-\x1f\x7f]", href):
        raise ValueError(f"back_link must be {allowed}, got {href!r:.80}")
    parts = urlsplit(href)
    if parts.scheme not in ("", "http", "https") or (parts.scheme and not parts.netloc) or href.startswith("//"):
        raise ValueError(f"back_link must be {allowed}, got {href!r:.80}")
    return href


def page_html(data: dict[str, Any], *, back_link: str | None = None, back_label: str = "back to the table") -> str:
    """One self-contained HTML page that shows `replay_data` (its CSS and JavaScript inlined; nothing fetched), with a
    link `back_link` (`checked_link`), labelled `back_label`, above the viewer when given."""
    css, js = static_asset("table.css"), static_asset("table.js")
    if "</style" in css.lower() or "</script" in js.lower() or "<!--" in js:
        raise ValueError("the viewer's assets must not close their own <style> or <script> element")
    nav = ""
    if back_link is not None:
        href = html.escape(checked_link(back_link), quote=True)
        nav = (
            '<nav class="uno-root uno-nav" style="padding-bottom: 0">'
            f'<a class="uno-back-link" href="{href}">\u2190 {html.escape(str(back_label))}</a></nav>\n'
        )
    policy = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(data['title'])}</title>\n"
        f"<style>\n{css}</style>\n"
        "<style>html, body { margin: 0; background: rgb(24, 27, 34); }</style>\n"
        f'</head>\n<body>\n{nav}<div id="uno-replay"></div>\n'
        f'<script type="application/json" id="uno-replay-data">{script_json(data)}</script>\n'
        f"{faces_element()}\n<script>\n{js}</script>\n"
        '<script>\nUnoTable.mountReplay(document.getElementById("uno-replay"),\n'
        '  JSON.parse(document.getElementById("uno-replay-data").textContent),\n'
        "  {keys: document, hash: true});\n</script>\n"
        "</body>\n</html>\n"
    )


def replay_html(
    record: dict,
    *,
    viewers: Sequence[int | None] | None = None,
    title: str | None = None,
    back_link: str | None = None,
    back_label: str = "back to the table",
) -> str:
    """The replay of a record as one standalone HTML page (see `Replay`); `back_link`: a link shown above it
    (`checked_link`: a path on the same site or an http(s) address), e.g. back to uno-web's table."""
    if back_link is not None:
        checked_link(back_link)  # refused before the record is replayed
    return page_html(replay_data(record, viewers=viewers, title=title), back_link=back_link, back_label=back_label)


class Replay:
    """An interactive replay of a record: Jupyter shows it (`_repr_html_`: the page in an isolated
    ``<iframe srcdoc>``, no server needed), `save_html(path)` writes it as one HTML file, `html()` gives the page.
    `viewers`: the views offered (seats, None for the spectator; default all); `height`: the notebook frame's
    height in pixels (default: from the player count)."""

    def __init__(
        self,
        record: dict,
        *,
        viewers: Sequence[int | None] | None = None,
        title: str | None = None,
        height: int | None = None,
    ):
        self.record = check_record(record)
        self.data = replay_data(record, viewers=viewers, title=title)
        players = self.record["num_players"]
        self.height = int(height) if height is not None else 300 + 125 * math.ceil(players / 2)

    def __len__(self) -> int:
        """The decisions in the replay."""
        return len(self.record["actions"])

    def html(self, *, back_link: str | None = None, back_label: str = "back to the table") -> str:
        """The standalone page (`page_html`), with a link `back_link` above it when given."""
        return page_html(self.data, back_link=back_link, back_label=back_label)

    def save_html(self, path: str | Path, *, back_link: str | None = None) -> Path:
        """Write the replay as one standalone HTML file (UTF-8; `write_atomic`: a failed save leaves the old file
        whole), with a link `back_link` above it when given; returns its path."""
        return write_atomic(path, self.html(back_link=back_link))

    def _repr_html_(self) -> str:
        page = html.escape(self.html(), quote=True)
        title = html.escape(self.data["title"], quote=True)
        return (
            f'<iframe srcdoc="{page}" sandbox="allow-scripts" title="{title}" '
            f'style="width: 100%; height: {self.height}px; border: 0; border-radius: 8px;"></iframe>'
        )

    def __repr__(self) -> str:
        return f"Replay({self.data['title']!r}, {len(self)} decisions)"


# ------------------------------------------------------------------------------------------------ pictures


CAPTION_HEIGHT = 48  # the caption strip above each picture: frames are (HEIGHT + 48, WIDTH, 3), 688 x 960
MAX_FRAMES = 1000  # pictures in one GIF or MP4 at most (a GIF's frames are held until it is written)
DEFAULT_FRAMES = 300  # what `save_replay` and uno-replay write unless told (the first 300 moments)
VIDEO_SUFFIXES = (".gif", ".mp4")
PAGE_SUFFIXES = (".html", ".htm")


def _who(data: dict[str, Any], seat: int) -> str:
    return seat_name(seat, [info["agent"] for info in data["seats"]])


def result_text(data: dict[str, Any]) -> str:
    """The result of `replay_data` in words (as the page says it): who won, and the scores."""
    result = data["result"]
    if not result:
        return ""
    scores = ", ".join(str(score) for score in result["scores"])
    if not result["done"]:
        return f"the record ends before the game does (points {scores})"
    if result["truncated"]:
        return f"cut off at the step limit (points {scores})"
    names = ", ".join(_who(data, seat) for seat in result["winners"]) or "nobody"
    return f"{names} {'wins' if len(result['winners']) == 1 else 'win'} · points {scores}"


def step_caption(data: dict[str, Any], step: dict[str, Any], index: int, last: int) -> str:
    """What was just done at moment `index` of `last` of a view of `replay_data`, in the live table's words: "step
    3/41 · Player 1 (counter) plays R5", "step 0/41 · the deal: <title>"; the last moment adds the result."""
    if step.get("action") is None:
        text = f"step 0/{last} · the deal: {data['title']}"
    else:
        says = step.get("says") or f"{_who(data, step['by'])}: {step['action']}"
        text = f"step {index}/{last} · {says}"
    if index == last and data["result"]:
        text += " · " + result_text(data)
    return text


def _played_card(action: str | None) -> str | None:
    """The card code a step's action played ("play R5", or "draw, then play R5"), or None."""
    match = re.search(r"(?:^|, then )play (\S+)$", action or "")
    return match.group(1) if match else None


def _caption_strip(text: str, card: str | None, colors: Sequence[str], width: int) -> np.ndarray:
    from PIL import Image, ImageDraw

    from . import picture

    image = Image.new("RGB", (width, CAPTION_HEIGHT), picture.INK)
    draw = ImageDraw.Draw(image)
    x = 12
    if card is not None:
        picture.draw_card(draw, x, 4, 27, CAPTION_HEIGHT - 8, card, tuple(colors))
        x += 27 + 10
    text = picture.clip_text(draw, text, 19, width - x - 12)
    draw.text((x, CAPTION_HEIGHT / 2), text, font=picture.font(19), fill=picture.TEXT, anchor="lm")
    return np.asarray(image, dtype=np.uint8)


def _viewer_key(record: dict, viewer: int | None) -> tuple[list[int | None], str]:
    (key,) = _viewer_keys([viewer], record["num_players"])
    return [key], SPECTATOR if key is None else str(key)


def replay_frames(
    record: dict,
    viewer: int | None = None,
    *,
    start: int = 0,
    count: int | None = None,
    captions: bool = True,
    data: dict[str, Any] | None = None,
) -> Iterator[np.ndarray]:
    """The pictures of a record as `viewer` saw it (a seat, or None: a spectator who sees every card), one per moment
    it saw (`replay_data`), from moment `start`, at most `count` (default: to the end), drawn one at a time as they
    are asked for: (688, 960, 3) uint8 arrays, `uno_env.picture.draw_table` under a caption saying who just did what
    (`step_caption`), or (640, 960, 3) pictures alone with `captions=False`. `data`: the record's `replay_data` for
    this viewer, when already made."""
    from .picture import draw_table

    viewers, key = _viewer_key(record, viewer)
    if isinstance(start, bool) or not isinstance(start, int) or start < 0:
        raise ValueError(f"start must be an int >= 0, got {start!r}")
    if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 1):
        raise ValueError(f"count must be an int >= 1 or None, got {count!r}")
    if data is None:
        data = replay_data(record, viewers=viewers)
    last = len(data["views"][key]["steps"]) - 1
    end = last + 1 if count is None else min(last + 1, start + count)
    shown = {"variant": data["variant"], "players": data["players"]}
    for index, (step, view) in enumerate(iter_view_frames(data, key)):
        if index >= end:
            break
        if index < start:
            continue
        picture = draw_table({**view, **shown}, data["colors"])
        if captions:
            strip = _caption_strip(step_caption(data, step, index, last), _played_card(step.get("action")),
                                   data["colors"], picture.shape[1])  # fmt: skip
            picture = np.concatenate([strip, picture])
        yield picture


def _write_gif(frames: Iterator[np.ndarray], path: Path, fps: float, count: int) -> Path:
    """The `count` pictures of `frames` as a looping GIF, `fps` a second, the last held `picture.LAST_FRAME_MS`."""
    from PIL import Image

    from .picture import gif_durations

    first = next(frames)

    def write(temporary: str) -> None:
        images = (Image.fromarray(frame, "RGB") for frame in frames)
        Image.fromarray(first, "RGB").save(temporary, format="GIF", save_all=True, append_images=images,
                                           duration=gif_durations(count, fps), loop=0)  # fmt: skip

    return write_atomic(path, write)


def _write_mp4(frames: Iterator[np.ndarray], path: Path, fps: float) -> Path:
    imageio_ffmpeg = mp4_writer()
    first = next(frames)

    def write(temporary: str) -> None:
        writer = imageio_ffmpeg.write_frames(temporary, (first.shape[1], first.shape[0]), fps=fps,
                                             macro_block_size=16)  # fmt: skip
        writer.send(None)
        writer.send(np.ascontiguousarray(first).tobytes())
        for frame in frames:
            writer.send(np.ascontiguousarray(frame).tobytes())
        writer.close()

    return write_atomic(path, write)


MP4_NEEDS = "writing an .mp4 needs the imageio-ffmpeg package: pip install imageio-ffmpeg (or write a .gif or .html)"


def mp4_writer():
    try:
        import imageio_ffmpeg
    except ImportError:
        raise ImportError(MP4_NEEDS) from None
    return imageio_ffmpeg


def save_replay(
    record: dict,
    path: str | Path,
    *,
    viewer: int | None = None,
    fps: float = 1.5,
    start: int = 0,
    frames: int | None = DEFAULT_FRAMES,
    title: str | None = None,
    back_link: str | None = None,
    data: dict[str, Any] | None = None,
) -> Path:
    """Write a record's replay to `path`, chosen by its suffix: `.html` the interactive page (`Replay`; with a
    `viewer`, that seat's view alone, else every view), `.gif` or `.mp4` the pictures of `replay_frames` as `viewer`
    saw it (default a spectator), `fps` a second, from moment `start`, at most `frames` of them (at most
    `MAX_FRAMES`; None: all, if they fit). An .mp4 needs imageio-ffmpeg. Everything is checked before anything is
    written; a failed write leaves an old file whole (`write_atomic`). `data`: the record's `replay_data` for this
    viewer and title, when already made (a GIF or MP4). Returns the path."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in PAGE_SUFFIXES + VIDEO_SUFFIXES:
        raise ValueError(f"a replay is written as .html, .gif or .mp4, got {str(path)!r}")
    record = check_record(record)
    viewers, key = _viewer_key(record, viewer)
    if back_link is not None:
        checked_link(back_link)
    if suffix in PAGE_SUFFIXES:
        page = replay_html(record, viewers=None if viewer is None else viewers, title=title, back_link=back_link)
        return write_atomic(path, page)
    if isinstance(fps, bool) or not isinstance(fps, (int, float)) or not 0 < fps <= 60:
        raise ValueError(f"fps must be a number above 0 and at most 60, got {fps!r}")
    if frames is not None and (
        isinstance(frames, bool) or not isinstance(frames, int) or not 1 <= frames <= MAX_FRAMES
    ):
        raise ValueError(f"frames must be an int from 1 to {MAX_FRAMES} or None, got {frames!r}")
    if suffix == ".mp4":
        mp4_writer()
    if data is None:
        data = replay_data(record, viewers=viewers, title=title)
    moments = len(data["views"][key]["steps"])
    if isinstance(start, bool) or not isinstance(start, int) or not 0 <= start < moments:
        raise ValueError(f"start must be a moment from 0 to {moments - 1} of this view, got {start!r}")
    count = moments - start if frames is None else min(frames, moments - start)
    if count > MAX_FRAMES:
        raise ValueError(f"this view has {count} moments from {start}: write at most {MAX_FRAMES} a file (frames, "
                         "start)")  # fmt: skip
    pictures = replay_frames(record, viewer, start=start, count=count, data=data)
    if suffix == ".gif":
        return _write_gif(pictures, path, float(fps), count)
    return _write_mp4(pictures, path, float(fps))
