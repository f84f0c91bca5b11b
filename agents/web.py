"""uno-web: play UNO in the browser against agents, and watch saved games, on a local web server.

    uno-web                                                 # you against `greedy`, classic, 2 players
    uno-web --variant unocorns --players 4 --opponents counter greedy naive --seat 2 --seed 7 --port 0

It takes `uno-play`'s options (`--variant`, `--players`, `--option NAME=VALUE`, `--opponents`, `--seat`, `--seed`,
`--episode`, `--trust`) plus `--port`, serves on 127.0.0.1 only and prints its URL. The engine decides
everything: the page shows the table as your seat sees it and the legal actions as buttons, and sends the id of
the one you click; the server checks it against the legal mask (an illegal one is refused with a 400 and a
message), steps the engine and plays the agents' turns (`uno_env.agents.play.TerminalGame`, the same seating,
observations and narration as `uno-play`).

No card your seat cannot see leaves the server: every answer is built from `uno_env.render.table_view(game,
your_seat)`, the legal actions when the decision is yours, and the narration of what your seat saw. The deal's
seed (from which every hidden card follows) and the game record are sent only once the game is over.

Routes: `GET /` the page; `GET /api/state`; `POST /api/act` {"action": id}; `POST /api/new` (the next seed, or new
settings); `GET /api/record` (a finished game as a record file, with `uno_env.records`); `GET /replay` and
`POST /replay` (upload a record file, shown with `uno_env.replay.replay_html`; records are data, checked by
`uno_env.records.check_record`; no route reads a file named by the request).
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import random
import sys
import threading
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from uno_env import PRESETS, Game, cli
from uno_env import actions as A
from uno_env.game import DEFAULT_MAX_STEPS as MAX_STEPS
from uno_env.render import table_view

from . import play
from .registry import agent_names, make_agent
from .trust import USER_ERRORS

HOST = "127.0.0.1"  # never another interface: the page plays for whoever reaches it
DEFAULT_PORT = 8765
STATIC = Path(__file__).resolve().parent / "static"  # the play page: play.html, play.js, play.css
#: the cards and the table, drawn by uno_env/static (shared with the replay viewer), and their types
UNO_STATIC_FILES = {"table.js": "text/javascript", "table.css": "text/css"}
MAX_UPLOAD = 16 * 1024 * 1024  # a record file
LOG_LINES = 400  # the narration kept for the page
ALLOWED_HOSTS = ("127.0.0.1", "localhost")  # the Host header: refuses DNS rebinding
#: uno-play's flags that uno-web refuses (hidden from its --help), and why
TERMINAL_ONLY = {
    "save": "--save is uno-play's: uno-web saves a finished game from the page (Save the game as a record)",
}


class Refused(ValueError):
    """A request the table refuses (an illegal action, bad settings): its message goes back with a 400."""


class SettingsError(Refused):
    """Command-line or page settings refused by the parser (the message is the parser's one line)."""


# ---------------------------------------------------------------------------------------- the command line
class WebParser(cli.ArgumentParser):
    """`uno-web`'s parser: `uno-play`'s flags plus `--port`. With ``raising=True`` (settings sent by the page) a
    refused value raises `SettingsError` with the parser's one-line message instead of exiting."""

    def __init__(self, *args: Any, raising: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.raising = raising

    def exit(self, status: int = 0, message: str | None = None):  # noqa: D102
        if self.raising:
            text = (message or "").strip()
            text = text.removeprefix(f"{self.prog}: error: ").removesuffix(f" (see {self.prog} --help)")
            raise SettingsError(text or "refused")
        super().exit(status, message)


def build_parser(raising: bool = False) -> WebParser:
    """The `uno-web` command line: `uno-play`'s flags (the same parser's, `uno_env.cli`'s convention) and --port."""
    parser = WebParser(
        prog="uno-web",
        description="Play UNO in the browser against agents (a local web server on 127.0.0.1), and watch saved "
        "game records.",
        parents=[play.build_parser()],
        add_help=False,
        raising=raising,
    )
    for action in parser._actions:  # uno-play's flags, said for the page
        if action.dest == "seed":
            action.help = "the first deal's seed; New game takes the next one; none: a random one (the page shows " \
                "the seed once the game is over) (default: none)"
        elif action.dest in TERMINAL_ONLY:
            action.help = argparse.SUPPRESS
    parser.add_argument(
        "--port", type=cli.nonnegative_int, default=DEFAULT_PORT, metavar="INT",
        help=f"the port on 127.0.0.1; 0 picks a free one (default: {DEFAULT_PORT})",
    )  # fmt: skip
    return parser


def parse_args(argv: list[str] | None = None, raising: bool = False) -> argparse.Namespace:
    """The settings of `uno-web argv` as `uno-play` checks them (`rule_options` checked against the variant and
    players, the seat, the number of opponents); a refusal exits 2 with one line, or raises `SettingsError`."""
    parser = build_parser(raising)
    return _checked(parser, argv)


def _checked(parser: WebParser, argv: list[str] | None) -> argparse.Namespace:
    args = play.parse_args(argv, parser)
    for dest, why in TERMINAL_ONLY.items():
        if getattr(args, dest, None) not in (None, False):
            parser.error(why)
    return args


def page_settings(
    current: argparse.Namespace, sent: dict[str, Any], allowed: tuple[str, ...] = ()
) -> argparse.Namespace:
    """New settings from the page's "new game" form: `variant`, `players`, `seat`, `episode`, `options` (a list of
    NAME=VALUE) and `opponents` (baseline agent names, or those in `allowed`, the command line's: the page never
    names a file to load); anything not sent stays as it is. Checked by the command line's own parser; a refusal
    raises `SettingsError`."""
    if not isinstance(sent, dict):
        raise SettingsError("send the settings as a JSON object")
    unknown = set(sent) - {"variant", "players", "seat", "episode", "options", "opponents"}
    if unknown:
        raise SettingsError(f"unknown settings {', '.join(sorted(map(str, unknown)))}; the page may set variant, "
                            "players, seat, episode, options and opponents")  # fmt: skip

    def scalar(key: str, value: Any) -> str:
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise SettingsError(f"{key} must be a string or an int, got {value!r}")
        return str(value)

    def texts(key: str, value: Any) -> list[str]:
        if isinstance(value, str):
            value = value.split()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise SettingsError(f"{key} must be a list of strings, got {value!r}")
        return [v.strip() for v in value if v.strip()]

    variant = scalar("variant", sent.get("variant", current.variant))
    players = scalar("players", sent.get("players", current.players))
    seat = scalar("seat", sent.get("seat", current.seat))
    episode = scalar("episode", sent.get("episode", current.episode))
    options = texts("options", sent["options"]) if "options" in sent else list(current.options)
    opponents = texts("opponents", sent["opponents"]) if "opponents" in sent else list(current.opponents)
    if "opponents" in sent:
        for name in opponents:
            if name not in agent_names() and name not in allowed:
                raise SettingsError(f"unknown agent {name!r}; the page seats {', '.join(agent_names())} (trained "
                                    "agents are named on the command line)")  # fmt: skip
    if not opponents:
        raise SettingsError("name at least one opponent")
    argv = [f"--variant={variant}", f"--players={players}", f"--seat={seat}", f"--episode={episode}"]
    argv += [f"--option={text}" for text in options]
    argv += ["--opponents", *opponents]  # plain names (checked above or given on the command line)
    args = parse_args(argv, raising=True)
    args.seed, args.trust, args.port = current.seed, current.trust, current.port
    return args


# ---------------------------------------------------------------------------------------- the table
class WebTable:
    """One table: a person at `settings.seat`, agents at the others, one game at a time (thread-safe).

    The seating, the agents' observations, the action labels and the narration are `uno-play`'s
    (`play.TerminalGame`, narrating into a text buffer); `state()` is everything the person's page may see."""

    def __init__(self, settings: argparse.Namespace):
        self.lock = threading.RLock()
        self.settings = settings
        self.command_line_agents = tuple(settings.opponents)  # the page may seat these again (and the baselines)
        self.seed = settings.seed if settings.seed is not None else random.SystemRandom().randrange(2**31)
        self.number = 0  # games started
        self.new_game(self.seed)

    # ------------------------------------------------------------------ games
    def new_game(self, seed: int | None = None, deal: dict | None = None, settings: argparse.Namespace | None = None):
        """Start a game: the next seed (or `seed`), a dealt scenario `deal`, or new `settings`; agents play up to
        the person's first decision. Bad settings or agents raise `Refused` and leave the table as it was."""
        with self.lock:
            settings = settings or self.settings
            seed = self.seed + 1 if seed is None else int(seed)
            try:
                game = Game(settings.variant, settings.players, seed=seed, deal=deal, episode=settings.episode,
                            max_steps=MAX_STEPS, **settings.rule_options)  # fmt: skip
                others = [s for s in range(settings.players) if s != settings.seat]
                names = settings.opponents * len(others) if len(settings.opponents) == 1 else settings.opponents
                opponents = {seat: (name, make_agent(name, seed=seed + seat, trust=settings.trust))
                             for seat, name in zip(others, names, strict=True)}  # fmt: skip
                console = Console(file=io.StringIO(), width=200, highlight=False, color_system=None)
                terminal = play.TerminalGame(game, settings.seat, opponents, console)
            except USER_ERRORS as error:
                raise Refused(str(error) or type(error).__name__) from error
            self.settings, self.seed, self.game, self.terminal, self.console = settings, seed, game, terminal, console
            self.human = settings.seat
            self.dealt = deal
            self.log: list[str] = []
            self.problem: str | None = None  # an agent's illegal action stops the game
            self.number += 1
            terminal.announce_round()
            self._agents_play()
            self._collect_log()

    def _agents_play(self) -> None:
        while not self.game.done and self.game.seat != self.human and self.problem is None:
            seat = self.game.seat
            self._apply(seat, self.terminal.agent_turn(seat))

    def _apply(self, seat: int, action: int) -> None:
        if not self.terminal.apply(seat, action):
            self.problem = f"{self.terminal.who(seat)} chose an illegal action; the game stopped"
        if self.game.done:
            self.terminal.game_over()
        self._collect_log()

    def _collect_log(self) -> None:
        buffer = self.console.file
        text = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        self.log.extend(line.rstrip() for line in text.splitlines() if line.strip())
        del self.log[:-LOG_LINES]

    def act(self, action: Any) -> None:
        """The person's action id: refused (`Refused`) unless it is the person's decision and the id is legal."""
        with self.lock:
            if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
                raise Refused(f'send {{"action": ID}} with an action id from 0 to {A.NUM_ACTIONS - 1}, got {action!r}')
            action = int(action)
            if not 0 <= action < A.NUM_ACTIONS:
                raise Refused(f"an action id is from 0 to {A.NUM_ACTIONS - 1}, got {action}")
            if self.game.done:
                raise Refused("the game is over: start a new game")
            if self.problem is not None:
                raise Refused(self.problem)
            if self.game.seat != self.human:
                raise Refused(f"it is not your decision but player {self.game.seat}'s")
            legal = self.game.legal_action_ids()
            if action not in legal:
                names = ", ".join(self.game.action_names[a] for a in legal)
                raise Refused(f"{self.game.action_names[action]!r} (id {action}) is not legal now; the legal actions "
                              f"are: {names}")  # fmt: skip
            self._apply(self.human, action)
            self._agents_play()

    # ------------------------------------------------------------------ what the page sees
    def state(self) -> dict[str, Any]:
        """What the person's page gets: the seat's `table_view`, the legal actions (id, name, label) when the
        decision is the seat's, the seats' names, the narration, and when over the result and the seed."""
        with self.lock:
            game, terminal, seat = self.game, self.terminal, self.human
            view = table_view(game, seat)
            deciding = view["deciding"] == seat and self.problem is None
            actions, prompt = [], None
            if deciding:
                d, f = game.describe(), terminal.human_fields()  # the labels read only what the seat sees
                phase = A.PHASE_NAMES.index(d["phase"])
                prompt = play.PHASE_PROMPTS.get(phase, "Your decision.")
                actions = [{"id": a, "name": game.action_names[a], "label": terminal.label(a, phase, d, f).plain}
                           for a in game.legal_action_ids()]  # fmt: skip
            settings = self.settings
            over = view["done"]
            return {
                "view": view,
                "actions": actions,
                "prompt": prompt,
                "colors": list(game.rules.colors),  # the preset's colour names, slot order (card letters)
                "names": [f"You (player {s})" if s == seat else terminal.who(s) for s in range(game.num_players)],
                "log": list(self.log),
                "result": self.result() if over else None,
                "problem": self.problem,
                "game": {
                    "number": self.number,
                    "variant": settings.variant,
                    "players": settings.players,
                    "seat": seat,
                    "episode": settings.episode,
                    "target_score": game.rules.target_score if settings.episode == "match" else None,
                    "options": list(settings.options),
                    "opponents": list(settings.opponents),
                    "seed": self.seed if over else None,  # the seed tells every hidden card: only at the end
                },
                "agents": agent_names(),
                "variants": list(PRESETS),
                "record": over and records_available(),
                "replay": replay_available(),
            }

    def result(self) -> str:
        game = self.game
        if game.truncated:
            return "Game over: cut off at the step limit."
        match = self.settings.episode == "match"
        winners = game.winners
        if self.human in winners:
            return "Game over: you win the match!" if match else "Game over: you win!"
        names = ", ".join(self.terminal.who(w) for w in winners)
        return f"Game over: {names} {'wins' if len(winners) == 1 else 'win'}{' the match' if match else ''}."

    def record(self) -> dict[str, Any]:
        """The finished game as a record (`uno_env.records`); refused before the end (it holds every card)."""
        with self.lock:
            if not self.game.done:
                raise Refused("a record holds every card: it can be saved once the game is over")
            if not records_available():
                raise Refused("saving records needs uno_env.records, which this installation lacks")
            from uno_env.records import check_record

            record = self.terminal.record(self.seed, self.dealt, human="you")  # uno-play's, with its actions
            record["meta"] = {**(record.get("meta") or {}), "source": "uno-web"}
            return check_record(record)


def _installed(*modules: str) -> bool:
    return all(importlib.util.find_spec(name) is not None for name in modules)


def records_available() -> bool:
    """Whether `uno_env.records` (saving a finished game as a record file) is installed."""
    return _installed("uno_env.records")


def replay_available() -> bool:
    """Whether `uno_env.records` and `uno_env.replay` (showing a record file) are installed."""
    return _installed("uno_env.records", "uno_env.replay")


# ---------------------------------------------------------------------------------------- the app
def create_app(settings: argparse.Namespace | None = None) -> Any:
    """The Flask app of one table with `settings` (`parse_args`; default: `uno-web`'s defaults, seed 0)."""
    from flask import Flask, Response, jsonify, request, send_from_directory

    settings = settings or parse_args(["--seed", "0"])
    table = WebTable(settings)
    app = Flask(__name__, static_folder=str(STATIC), static_url_path="/static")
    app.config["MAX_CONTENT_LENGTH"] = MAX_UPLOAD
    app.extensions["uno_table"] = table

    def refused(message: str, status: int = 400):
        return jsonify({"error": message}), status

    @app.before_request
    def local_only():
        host = request.host.rsplit(":", 1)[0] if not request.host.startswith("[") else request.host
        if host not in ALLOWED_HOSTS:
            return refused(f"uno-web answers requests for {' or '.join(ALLOWED_HOSTS)} only", 400)
        return None

    @app.after_request
    def no_store(response):
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    @app.get("/")
    def index():
        return send_from_directory(STATIC, "play.html")

    @app.get("/favicon.ico")
    def favicon():
        return Response(status=204)

    @app.get("/uno-static/<name>")
    def uno_static(name: str):  # the shared card drawing (uno_env/static): these two files only
        if name not in UNO_STATIC_FILES:
            return refused(f"no such file; this route serves {', '.join(UNO_STATIC_FILES)}", 404)
        text = (resources.files("uno_env") / "static" / name).read_text(encoding="utf-8")
        return Response(text, mimetype=UNO_STATIC_FILES[name])

    @app.get("/api/state")
    def state():
        return jsonify(table.state())

    @app.post("/api/act")
    def act():
        body = request.get_json(silent=True)
        if not isinstance(body, dict) or "action" not in body:
            return refused(f'send JSON {{"action": ID}} with an action id from 0 to {A.NUM_ACTIONS - 1}')
        try:
            table.act(body["action"])
        except Refused as error:
            return refused(str(error))
        return jsonify(table.state())

    @app.post("/api/new")
    def new():
        body = request.get_json(silent=True) if request.content_length else {}
        if body is None:
            return refused("send the settings as a JSON object (or nothing: the next seed)")
        try:
            settings = page_settings(table.settings, body, table.command_line_agents) if body else None
            table.new_game(settings=settings)
        except Refused as error:
            return refused(str(error))
        return jsonify(table.state())

    @app.get("/api/record")
    def record():
        try:
            data = table.record()
        except Refused as error:
            return refused(str(error))
        s = table.settings
        name = f"uno-{s.variant}-{s.players}p-seed{table.seed}.json"
        from uno_env.records import dumps_record

        return Response(dumps_record(data), mimetype="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})  # fmt: skip

    @app.get("/replay")
    def replay_form():
        return Response(upload_page(), mimetype="text/html")

    @app.post("/replay")
    def replay_upload():
        upload = request.files.get("record")
        if upload is None or not upload.filename:
            return Response(upload_page("Choose a record file to open."), status=400, mimetype="text/html")
        try:
            page = replay_page(upload.read())
        except Refused as error:
            return Response(upload_page(str(error)), status=400, mimetype="text/html")
        return Response(page, mimetype="text/html")

    return app


def replay_page(data: bytes) -> str:
    """The replay page of an uploaded record file: JSON data (`uno_env.records.loads_record`: parsed by `json`,
    never evaluated or unpickled, every field checked by `check_record`), shown by `uno_env.replay.replay_html`
    (which replays it through the engine and refuses an illegal action or another result)."""
    if not replay_available():
        raise Refused("showing records needs uno_env.records and uno_env.replay, which this installation lacks")
    from uno_env import records, replay

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Refused(f"not a record file: not UTF-8 text ({error.reason})") from error
    try:
        return replay.replay_html(records.loads_record(text))
    except (ValueError, TypeError, KeyError) as error:
        raise Refused(f"not a valid record: {error}") from error


def upload_page(message: str | None = None) -> str:
    note = f'<p class="error" id="error">{escape(message)}</p>' if message else ""
    missing = ""
    if not replay_available():
        missing = '<p class="error">This installation lacks uno_env.replay: records cannot be shown.</p>'
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>UNO: open a saved record</title>
<link rel="stylesheet" href="/static/play.css"></head>
<body class="upload"><main>
<h1>Open a saved game record</h1>
<p>Choose a record file (saved from a finished game, or written by <code>uno_env.records</code>). It is read as
data and checked; its game is replayed by the engine and shown step by step.</p>
{missing}{note}
<form method="post" action="/replay" enctype="multipart/form-data">
<input type="file" name="record" id="record" accept=".json,application/json">
<button type="submit" id="open">Open</button>
</form>
<p><a href="/">Back to the table</a></p>
</main></body></html>
"""


# ---------------------------------------------------------------------------------------- serving
def make_server(app: Any, port: int = 0) -> Any:
    """A threaded WSGI server for `app` on 127.0.0.1:`port` (0: a free one; `server.server_port` says which)."""
    from werkzeug.serving import make_server as werkzeug_server

    return werkzeug_server(HOST, port, app, threaded=True)


def main(argv: list[str] | None = None) -> int:
    """The `uno-web` command: serve one table on 127.0.0.1 until Ctrl-C."""
    parser = build_parser()
    args = _checked(parser, argv)
    if importlib.util.find_spec("flask") is None:
        parser.error('uno-web needs Flask: pip install "uno-env[web]"')
    try:
        app = create_app(args)
    except Refused as error:
        parser.error(str(error))
    try:
        server = make_server(app, args.port)
    except OSError as error:
        parser.error(f"cannot listen on {HOST}:{args.port}: {error.strerror or error}")
    url = f"http://{HOST}:{server.server_port}/"
    options = ", ".join(args.options)
    print(f"uno-web: UNO {args.variant}, {args.players} players, a {args.episode}" + (f", {options}" if options else "")
          + f"; you are player {args.seat} against {' '.join(args.opponents)}.", flush=True)  # fmt: skip
    print(f"uno-web: open {url} (Ctrl-C stops it)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
