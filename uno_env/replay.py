"""Replays of game records (`uno_env.records`): the `Game` after every decision, and an interactive viewer for
notebooks and as one standalone HTML file.

    from uno_env.replay import Replay, replay, replay_steps

    game = replay(record)                 # the Game at the record's end (every action checked as it is applied)
    for game in replay_steps(record):     # the Game as dealt, then after each decision
        ...
    Replay(record)                        # in Jupyter: an interactive replay (no server; an isolated iframe)
    Replay(record).save_html("game.html") # the same, as one HTML file that fetches nothing

The viewer steps through the decisions (first, previous, next and last buttons, a slider, the arrow keys, Home
and End, space to play), draws the cards as cards in the preset's colours, shows the action taken at each step
and by whom, and the result at the end; a menu picks whose view to show: a spectator's (every card) or one seat's
(`uno_env.render`: `table_view` and the replay rules beside it decide what a seat sees, and a seat sees only
the moments and steps it saw live; computed here in Python and sent as each view's changes from one moment to
the next; the page's JavaScript puts them back together and only draws). Its drawing code is
`uno_env/static/table.js` and `table.css` (`UnoTable.card`, `UnoTable.table`, `UnoTable.mountReplay`), inlined into
the page.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

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
    labels.update({seat: f"player_{seat}" + (f" ({agents[seat]})" if agents[seat] else "") for seat in range(n)})
    return {
        "format": "uno-env-replay",
        "version": 2,
        "title": title if title is not None else title_of(record, seed=None in keys),
        "variant": record["variant"],
        "players": n,
        "episode": record["episode"],
        "colors": colors,
        "seats": [{"name": f"player_{seat}", "agent": agents[seat]} for seat in range(n)],
        "viewers": [{"key": key, "label": labels[v]} for v, key in zip(keys, names, strict=True)],
        "moves": moves.values,
        "changes": changes.values,
        "views": views,
        "result": record["result"] if record["result"] is not None else _final_result(before),
    }


def view_frames(data: dict[str, Any], key: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The (step, table_view) of each moment of view `key` in `replay_data`, put back together (as the page does)."""
    view = data["views"][key]
    frames, table = [], None
    for move, change in zip(view["steps"], view["tables"], strict=True):
        table = _apply(table, data["changes"][change])
        frames.append((data["moves"][move], table))
    return frames


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


def _script_json(data: Any) -> str:
    """JSON safe inside a <script> element: no '<', '>' or '&' that could end it or start a comment."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page_html(data: dict[str, Any]) -> str:
    """One self-contained HTML page that shows `replay_data` (its CSS and JavaScript inlined; nothing fetched)."""
    css, js = static_asset("table.css"), static_asset("table.js")
    if "</style" in css.lower() or "</script" in js.lower() or "<!--" in js:
        raise ValueError("the viewer's assets must not close their own <style> or <script> element")
    policy = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(data['title'])}</title>\n"
        f"<style>\n{css}</style>\n"
        "<style>html, body { margin: 0; background: rgb(24, 27, 34); }</style>\n"
        '</head>\n<body>\n<div id="uno-replay"></div>\n'
        f'<script type="application/json" id="uno-replay-data">{_script_json(data)}</script>\n'
        f"<script>\n{js}</script>\n"
        '<script>\nUnoTable.mountReplay(document.getElementById("uno-replay"),\n'
        '  JSON.parse(document.getElementById("uno-replay-data").textContent),\n'
        "  {keys: document, hash: true});\n</script>\n"
        "</body>\n</html>\n"
    )


def replay_html(record: dict, *, viewers: Sequence[int | None] | None = None, title: str | None = None) -> str:
    """The replay of a record as one standalone HTML page (see `Replay`)."""
    return page_html(replay_data(record, viewers=viewers, title=title))


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

    def html(self) -> str:
        return page_html(self.data)

    def save_html(self, path: str | Path) -> Path:
        """Write the replay as one standalone HTML file (UTF-8; `write_atomic`: a failed save leaves the old file
        whole); returns its path."""
        return write_atomic(path, self.html())

    def _repr_html_(self) -> str:
        page = html.escape(self.html(), quote=True)
        title = html.escape(self.data["title"], quote=True)
        return (
            f'<iframe srcdoc="{page}" sandbox="allow-scripts" title="{title}" '
            f'style="width: 100%; height: {self.height}px; border: 0; border-radius: 8px;"></iframe>'
        )

    def __repr__(self) -> str:
        return f"Replay({self.data['title']!r}, {len(self)} decisions)"
