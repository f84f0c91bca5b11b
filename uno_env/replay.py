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
(`uno_env.render.table_view`, the one place that decides what a seat sees, computed here in Python for every
step and embedded as JSON; the page's JavaScript only draws). Its drawing code is `uno_env/static/table.js` and
`table.css` (`UnoTable.card`, `UnoTable.table`, `UnoTable.mountReplay`), inlined into the page.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from .game import Game
from .records import RecordError, check_record, game_settings, play_record
from .render import table_view

SPECTATOR = "all"  # the key of the spectator's view in the embedded data
ASSETS = ("table.js", "table.css")


def replay_steps(record: dict) -> Iterator[Game]:
    """The record's game as dealt, then after each of its decisions: one `Game`, stepped in place (copy it to keep
    a state). A RecordError says what is wrong with the record: a field, an action not legal at its point (named
    with its index), a result other than the record's (raised once the last action is applied)."""
    settings = game_settings(record)
    try:
        game = Game(**settings)
    except ValueError as error:
        raise RecordError(f"the record's game cannot be dealt: {error}") from None
    yield from play_record(game, record)


def replay(record: dict) -> Game:
    """The `Game` a record holds, replayed to its last action (see `replay_steps`)."""
    last = None
    for game in replay_steps(record):
        last = game
    return last


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


def title_of(record: dict) -> str:
    """A one-line title of a record: variant, players, episode, who played, seed."""
    n = record["num_players"]
    text = f"UNO {record['variant']}, {n} players, a {record['episode']}"
    if record["agents"]:
        text += ": " + " vs ".join(record["agents"])
    return text + (f" (seed {record['seed']}" + (", dealt" if record["deal"] is not None else "") + ")")


def replay_data(
    record: dict, *, viewers: Sequence[int | None] | None = None, title: str | None = None
) -> dict[str, Any]:
    """What the viewer draws, as JSON data: every step's `table_view` for each viewer (`viewers`: seats, None for
    the spectator; default: the spectator and every seat), the action that led to it and by whom (and the
    record's details of that decision), the seats' agents, the preset's colours and the result."""
    check_record(record)
    n = record["num_players"]
    keys = _viewer_keys(viewers, n)
    agents = record["agents"] or [None] * n
    details = record["details"] or [None] * len(record["actions"])
    steps = []
    before = None
    colors: list[str] = []
    for index, game in enumerate(replay_steps(record)):
        if index == 0:
            colors = list(game.rules.colors)
            step: dict[str, Any] = {"action": None, "by": None, "phase": None, "details": None}
        else:
            action = record["actions"][index - 1]
            step = {
                "action": game.action_names[action],
                "by": before["seat"],
                "phase": before["phase"],
                "details": details[index - 1],
            }
        frozen = _Frozen(game)
        views = {}
        for viewer in keys:
            view = table_view(frozen, viewer)
            del view["variant"], view["players"]  # the same in every view: once, at the top
            views[SPECTATOR if viewer is None else str(viewer)] = view
        step["views"] = views
        steps.append(step)
        before = frozen.describe()
    labels = {None: "Spectator: every card"}
    labels.update({seat: f"player_{seat}" + (f" ({agents[seat]})" if agents[seat] else "") for seat in range(n)})
    return {
        "format": "uno-env-replay",
        "version": 1,
        "title": title if title is not None else title_of(record),
        "variant": record["variant"],
        "players": n,
        "episode": record["episode"],
        "colors": colors,
        "seats": [{"name": f"player_{seat}", "agent": agents[seat]} for seat in range(n)],
        "viewers": [{"key": SPECTATOR if v is None else str(v), "label": labels[v]} for v in keys],
        "steps": steps,
        "result": record["result"] if record["result"] is not None else _final_result(before),
    }


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
        return len(self.data["steps"]) - 1

    def html(self) -> str:
        return page_html(self.data)

    def save_html(self, path: str | Path) -> Path:
        """Write the replay as one standalone HTML file (UTF-8); returns its path."""
        path = Path(path)
        path.write_text(self.html(), encoding="utf-8")
        return path

    def _repr_html_(self) -> str:
        page = html.escape(self.html(), quote=True)
        title = html.escape(self.data["title"], quote=True)
        return (
            f'<iframe srcdoc="{page}" sandbox="allow-scripts" title="{title}" '
            f'style="width: 100%; height: {self.height}px; border: 0; border-radius: 8px;"></iframe>'
        )

    def __repr__(self) -> str:
        return f"Replay({self.data['title']!r}, {len(self)} decisions)"
