"""uno-web: play UNO in the browser against agents, and watch saved games, on a local web server.

    uno-web                                                 # you against `greedy`, classic, 2 players
    uno-web --variant unocorns --players 4 --opponents counter greedy naive --seat 2 --seed 7 --port 0

It takes `uno-play`'s options (`--variant`, `--players`, `--option NAME=VALUE`, `--opponents`, `--seat`, `--seed`,
`--episode`, `--trust`) plus `--port` and `--pace`, serves on 127.0.0.1 only (waitress, with connection limits and
timeouts) and prints its URL. The engine decides everything: the page shows the table as your seat sees it and the
legal actions as buttons, and sends the id of the one you click with the number of its game; the server checks it
against the legal mask (an illegal one is refused with a 400 and a message, one for another game with a 409), steps
the engine and plays the agents' turns (`uno_env.play.session.TableSession`, the same seating, observations and
narration as `uno-play`), keeping the table after each of them (`frames`) for the page to show one at a time,
`--pace` seconds apart. The page's settings seat what `check_page_agent` allows (baselines, shipped agents,
searches with a capped budget and no prior file, the command line's names: never a file it names) or a difficulty
(`DIFFICULTIES`).

No card your seat cannot see leaves the server: every answer is built from `uno_env.render.table_view(game,
your_seat)`, the legal actions when the decision is yours, and the narration of what your seat saw. The deal's
seed (from which every hidden card follows) and the game record are sent only once the game is over, and a
revealed seed tells nothing of the next game: without `--seed` every game's deal and agents are seeded from
`secrets` (64 bits each); with `--seed S` the first deal is S and the rest follow from S by BLAKE2b
(`derived_seed`), so whoever knows S can compute them (a reproducible session, for tests and research).

Only the page can change the game: a POST must carry the page's token (`X-Uno-Token`, a random value put in the
page when it is served; the upload form sends it as a field) and no cross-site Origin; every answer forbids
framing. Bodies are capped (`MAX_API_BODY`, `MAX_UPLOAD`), the page's settings are checked and capped before the
command-line parser sees them, and every `/api/*` error is JSON {"error": "one line"}.

An agent whose model fails (an OSError, such as the chat adapter's ChatError: its server down, slow or refusing)
does not end the game with a 500: its turn changes nothing, the page says why in one line (`stalled`) and offers
to ask it again or to let it play its fallback move (`POST /api/resume`).

Routes: `GET /` the page; `GET /api/state`; `POST /api/act` {"action": id, "game": number}; `POST /api/resume`
{"how": "retry" or "fallback", "game": number}; `POST /api/new` (the next game, or new settings, or a
difficulty); `GET /api/record` (a finished game as a record file, with `uno_env.records`); `GET /replay` and
`POST /replay` (upload a record file, shown with `uno_env.replay.replay_html` with a link back to the table;
records are data, checked by `uno_env.records.check_record`; no route reads a file named by the request).
docs/robustness.md lists each route's limits and refusals.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import importlib.util
import json
import secrets
import sys
import threading
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from uno_env import VARIANTS, cli
from uno_env import actions as A
from uno_env.agents.registry import (
    KINDS,
    SHIPPED_KINDS,
    agent_names,
    can_play,
    is_agent_name,
    kinds,
    parse_agent,
    shipped_variants,
)
from uno_env.agents.trust import USER_ERRORS
from uno_env.extras import MissingExtraError, require_extra
from uno_env.faces import faces_element
from uno_env.game import DEFAULT_MAX_STEPS as MAX_STEPS
from uno_env.rules import MAX_PLAYERS

from . import terminal as terminal_screen
from .session import ActionRefused, Alarm, Card, Colour, ScoreTable, Strong, TableSession, plain

HOST = "127.0.0.1"  # never another interface: the page plays for whoever reaches it
DEFAULT_PORT = 8765
STATIC = Path(__file__).resolve().parent / "static"  # the play page: play.html, play.js, play.css
#: the cards and the table, drawn by uno_env/static (shared with the replay viewer), and their types
UNO_STATIC_FILES = {"table.js": "text/javascript", "table.css": "text/css"}
LOG_LINES = 400  # the narration kept for the page
DEFAULT_PACE = 0.4  # seconds the page shows each agent's turn (0: at once)
MAX_PACE = 5.0
pace_seconds = cli.number_in_range(0, MAX_PACE, "a number of seconds")
MAX_FRAMES = 120  # the table after each step since the person's last decision, kept for the page to pace
MAX_SINCE = 200  # the entries of "since your turn"
#: how the person may go on after an agent's model failed: ask it again, or let it play its fallback move
RESUME_CHOICES = ("retry", "fallback")
MAX_STALL_REASON = 300  # the characters of a model's error said at the table
#: the page's difficulty levels: the agent each seats at every opponent seat ("{variant}": the game's variant),
#: each the next one's opponent in docs/web.md's win rates; hard is the catalogue's strongest fast agent (`BEST`)
DIFFICULTIES = {"easy": "naive", "medium": "counter", "hard": "best:{variant}"}
#: the largest budget the page may give a search agent (the page waits while the server plays the agents' turns)
PAGE_MAX_ITERATIONS = 1000
PAGE_MAX_MILLISECONDS = 1000
ALLOWED_HOSTS = ("127.0.0.1", "localhost")  # the Host header: refuses DNS rebinding
#: uno-play's flags that uno-web refuses (hidden from its --help), and why
TERMINAL_ONLY = {
    "save": "--save is uno-play's: uno-web saves a finished game from the page (Save the game as a record)",
}
port_number = cli.int_in_range(0, 65535)  # a TCP port; 0: a free one

# ------------------------------------------------------------------ limits (docs/robustness.md, "Doors: uno-web")
#: an uploaded record file: a record of the longest game uno-web deals (10,000 decisions) is about 50 KB, and
#: one with a details dict per decision (uno-arena's) under 2 MB; larger uploads get a 413
MAX_UPLOAD = 4 * 1024 * 1024
MAX_FORM_OVERHEAD = 64 * 1024  # the multipart framing around the uploaded file
#: an uploaded record's steps times its views (each seat's and the spectator's): about 12 s of replaying on one core
MAX_REPLAY_VIEWS = 30_000
MAX_API_BODY = 16 * 1024  # a JSON body of /api/*: an action or the page's settings are under 2 KB
MAX_OPTIONS = 64  # rule options in the page's settings (there are 13; a name may repeat, the last one counts)
MAX_SETTING_TEXT = 1000  # characters in one setting (a variant, an option NAME=VALUE, an agent name, a number)
MAX_OPPONENTS = MAX_PLAYERS - 1
SEED_BITS = 64  # a fresh seed: secrets.randbits(SEED_BITS)
TOKEN_HEADER = "X-Uno-Token"  # the page's token on every POST /api/* (the upload form sends it as the field token)
#: the served pages: their own scripts and styles only, nothing framed, framing refused
PAGE_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
#: an uploaded record's replay page: one self-contained page (`uno_env.replay.page_html`, its script and style
#: inline, the record's text escaped by it), which fetches and submits nothing
REPLAY_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
#: waitress's limits (`make_server`): worker threads, open connections, an idle connection's seconds, the header
#: and body sizes it reads
SERVER_LIMITS = {
    "threads": 4,
    "connection_limit": 32,
    "channel_timeout": 30,
    "cleanup_interval": 10,
    "max_request_header_size": 32 * 1024,
    "max_request_body_size": MAX_UPLOAD + MAX_FORM_OVERHEAD,
}


class Refused(ValueError):
    """A request the table refuses (an illegal action, bad settings): its message goes back with `status`."""

    status = 400


class SettingsError(Refused):
    """Command-line or page settings refused by the parser (the message is the parser's one line)."""


class OtherGame(Refused):
    """An action sent for another game than the one on the table (a stale page, a second tab): a 409."""

    status = 409


def derived_seed(key: int, *path: int | str) -> int:
    """A seed in [0, 2**64) from `key` and `path` by BLAKE2b: a `--seed` session's later deals and agents, each
    telling nothing of the others (unlike key + 1) to anyone who does not know `key`."""
    text = "/".join(str(part) for part in (key, *path)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8, person=b"uno-web seeds").digest(), "big")


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
        parents=[terminal_screen.build_parser()],
        add_help=False,
        raising=raising,
    )
    for action in parser._actions:  # uno-play's flags, said for the page
        if action.dest == "seed":
            action.help = (
                "the first deal's seed; later games and the agents follow from it (a reproducible session: whoever "
                "knows it can compute every deal); none: each game seeded from the secrets module (the page shows a "
                "game's seed once it is over) (default: none)"
            )
        elif action.dest in TERMINAL_ONLY:
            action.help = argparse.SUPPRESS
    parser.add_argument(
        "--port", type=port_number, default=DEFAULT_PORT, metavar="INT",
        help=f"the port on 127.0.0.1, 0 to 65535; 0 picks a free one (default: {DEFAULT_PORT})",
    )  # fmt: skip
    parser.add_argument(
        "--pace", type=pace_seconds, default=DEFAULT_PACE, metavar="SECONDS",
        help=f"how long the page shows each agent's turn, 0 to {MAX_PACE:g} seconds; 0 shows them at once (the page "
        f"can change it) (default: {DEFAULT_PACE:g})",
    )  # fmt: skip
    return parser


def parse_args(argv: list[str] | None = None, raising: bool = False) -> argparse.Namespace:
    """The settings of `uno-web argv` as `uno-play` checks them (`rule_options` checked against the variant and
    players, the seat, the number of opponents); a refusal exits 2 with one line, or raises `SettingsError`."""
    parser = build_parser(raising)
    return _checked(parser, argv)


def _checked(parser: WebParser, argv: list[str] | None) -> argparse.Namespace:
    args = terminal_screen.parse_args(argv, parser)
    for dest, why in TERMINAL_ONLY.items():
        if getattr(args, dest, None) not in (None, False):
            parser.error(why)
    return args


def page_agents() -> list[str]:
    """The agents the page may seat, as examples: the baselines, the shipped agents (`ppo:VARIANT`, `best:VARIANT`)
    and the search agents (with a budget up to `PAGE_MAX_ITERATIONS` iterations or `PAGE_MAX_MILLISECONDS` ms)."""
    shipped = [f"{kind}:{variant}" for kind in SHIPPED_KINDS for variant in shipped_variants(kind)]
    searches = [name for name in kinds("search") if name != "openspiel-ismcts" or _installed("pyspiel")]
    return [*agent_names(), *shipped, *(f"{name}:200" for name in searches)]


#: what the page seats, as its refusals say it
PAGE_SEATS = (
    f"the page seats {', '.join(agent_names())}, a shipped agent ({', '.join(f'{k}:VARIANT' for k in SHIPPED_KINDS)})"
    f" or a search ({', '.join(kinds('search'))}) with a budget up to {PAGE_MAX_ITERATIONS} iterations or "
    f"{PAGE_MAX_MILLISECONDS}ms and no prior file; files are named on the command line"
)


def check_page_agent(name: str, allowed: tuple[str, ...] = ()) -> None:
    """Refuse (`SettingsError`) an agent the page may not seat. The page seats what the agent catalogue reads
    (`uno_env.agents.registry.parse_agent`) and loads no file: a baseline, a shipped agent (`ppo:VARIANT`,
    `best:VARIANT`: plain data, as uno-arena loads them), a search agent whose budget is at most
    `PAGE_MAX_ITERATIONS` iterations or `PAGE_MAX_MILLISECONDS` ms and that names no prior file, or a name given on
    the command line (`allowed`: files, `--trust` ones included)."""
    if name in allowed:
        return
    try:  # the catalogue's reading, a search's budget under the page's lower caps
        parsed = parse_agent(name, most_iterations=PAGE_MAX_ITERATIONS, most_milliseconds=PAGE_MAX_MILLISECONDS)
    except ValueError as error:
        if is_agent_name(name):
            raise SettingsError(f"{error} (the page's cap; more on the command line)") from None
        if name.partition(":")[0] in KINDS:
            raise SettingsError(str(error)) from None
        raise SettingsError(f"unknown agent {name[:80]!r}; {PAGE_SEATS}") from None
    if parsed.loads_file or parsed.needs_trust or parsed.family not in ("baseline", "policy", "search"):
        raise SettingsError(f"unknown agent {name[:80]!r} on the page, which loads no file: {PAGE_SEATS}")


def difficulty_agent(level: str, variant: str, players: int) -> str:
    """The agent that difficulty `level` seats in a game of `variant` with `players`; a `SettingsError` when it
    cannot play that game (the hard level needs an agent shipped for the variant and player count)."""
    if level not in DIFFICULTIES:
        raise SettingsError(f"difficulty must be {', '.join(DIFFICULTIES)}, got {short(level)}")
    agent = DIFFICULTIES[level].format(variant=variant)
    why = can_play(agent, variant, players)
    if why is not None:
        raise SettingsError(f"{level} cannot be chosen: {why}; choose another difficulty or player count")
    return agent


def difficulty_levels(variant: str, players: int, opponents: list[str]) -> list[dict[str, Any]]:
    """The difficulty levels for a game of `variant` with `players`: each one's ``level``, ``agent``,
    ``available`` (and ``why`` not), and ``chosen`` (whether `opponents` is that level's agent at every seat)."""
    levels = []
    for level in DIFFICULTIES:
        agent, why = DIFFICULTIES[level].format(variant=variant), None
        try:
            difficulty_agent(level, variant, players)
        except SettingsError as error:
            why = str(error)
        levels.append({"level": level, "agent": agent, "available": why is None, "why": why,
                       "chosen": bool(opponents) and set(opponents) == {agent}})  # fmt: skip
    return levels


def page_settings(
    current: argparse.Namespace, sent: dict[str, Any], allowed: tuple[str, ...] = ()
) -> argparse.Namespace:
    """New settings from the page's "new game" form: `variant`, `players`, `seat`, `episode`, `options` (a list of
    NAME=VALUE) and `opponents` (agents `check_page_agent` lets the page seat, or those in `allowed`, the command
    line's: the page never names a file to load) or `difficulty` (a level of `DIFFICULTIES`, whose agent sits at
    every opponent seat); anything not sent stays as it is. Counts and lengths are checked first, in one pass
    (`MAX_OPTIONS`, `MAX_OPPONENTS`, `MAX_SETTING_TEXT`: argparse takes time quadratic in its arguments), then the
    command line's own parser checks the values; a refusal raises `SettingsError`."""
    if not isinstance(sent, dict):
        raise SettingsError("send the settings as a JSON object")
    unknown = set(sent) - {"variant", "players", "seat", "episode", "options", "opponents", "difficulty"}
    if unknown:
        names = ", ".join(sorted(str(name)[:40] for name in unknown)[:10])
        raise SettingsError(f"unknown settings {names}; the page may set variant, players, seat, episode, options "
                            "and opponents or difficulty")  # fmt: skip
    if "difficulty" in sent and "opponents" in sent:
        raise SettingsError("send opponents or a difficulty, not both")

    def text(key: str, value: str) -> str:
        if len(value) > MAX_SETTING_TEXT:
            raise SettingsError(f"{key}: a setting is at most {MAX_SETTING_TEXT} characters, got {len(value)}")
        return value

    def scalar(key: str, value: Any) -> str:
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise SettingsError(f"{key} must be a string or an int, got {type(value).__name__}")
        if isinstance(value, int) and not -(10**9) < value < 10**9:
            raise SettingsError(f"{key} must be a small int, got one of {len(str(abs(value)))} digits")
        return text(key, str(value))

    def texts(key: str, value: Any, most: int) -> list[str]:
        if isinstance(value, str):  # words (the body is at most MAX_API_BODY bytes: one linear split)
            value = value.split()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise SettingsError(f"{key} must be a list of strings")
        if len(value) > most:
            raise SettingsError(f"{key}: at most {most}, got {len(value)}")
        return [text(key, v).strip() for v in value if v.strip()]

    variant = scalar("variant", sent.get("variant", current.variant))
    players = scalar("players", sent.get("players", current.players))
    seat = scalar("seat", sent.get("seat", current.seat))
    episode = scalar("episode", sent.get("episode", current.episode))
    options = texts("options", sent["options"], MAX_OPTIONS) if "options" in sent else list(current.options)
    opponents = texts("opponents", sent["opponents"], MAX_OPPONENTS) if "opponents" in sent else list(current.opponents)
    level = scalar("difficulty", sent["difficulty"]) if "difficulty" in sent else None
    if level is not None:
        if level not in DIFFICULTIES:
            raise SettingsError(f"difficulty must be {', '.join(DIFFICULTIES)}, got {short(level)}")
        opponents = [agent_names()[0]]  # a stand-in: the level's agent follows from the checked variant and players
    if "opponents" in sent:
        for name in opponents:
            check_page_agent(name, allowed)
    if not opponents:
        raise SettingsError("name at least one opponent")
    argv = [f"--variant={variant}", f"--players={players}", f"--seat={seat}", f"--episode={episode}"]
    argv += [f"--option={option}" for option in options]
    argv += ["--opponents", *opponents]  # plain names (checked above or given on the command line)
    args = parse_args(argv, raising=True)
    if level is not None:
        args.opponents = [difficulty_agent(level, args.variant, args.players)]
    args.seed, args.trust, args.port, args.pace = current.seed, current.trust, current.port, current.pace
    return args


# ---------------------------------------------------------------------------------------- the table
def line_parts(line: list[str]) -> list[str | dict[str, str]]:
    """A line of narration as JSON for the page: text as strings, and {"card": code}, {"colour": name},
    {"strong": text} or {"alarm": text} for the parts a screen draws (a card as a small picture)."""
    parts: list[str | dict[str, str]] = []
    for part in line:
        kind = next((key for key, cls in PART_KINDS if isinstance(part, cls)), None)
        parts.append({kind: str(part)} if kind else str(part))
    return parts


PART_KINDS = (("card", Card), ("colour", Colour), ("strong", Strong), ("alarm", Alarm))


class WebTable:
    """One table: a person at `settings.seat`, agents at the others, one game at a time (thread-safe).

    Each game is a `uno_env.play.session.TableSession`, as in `uno-play`: the same seating, agents' turns, action
    labels and narration (its events, as plain lines); `state()` is everything the person's page may see.

    Since the person's last decision the table keeps what the page shows it step by step: `since` (the narration of
    each step, as parts with the cards to draw), `frames` (after each decision: its seat, the number of decisions
    so far, the person's `table_view` then, the card on the pile and who played it, how many `since` entries it
    has, whether a round ended), and at a round's end `reveal` (every hand as the round scored it, face up)."""

    def __init__(self, settings: argparse.Namespace):
        self.lock = threading.RLock()
        self.settings = settings
        self.command_line_agents = tuple(settings.opponents)  # the page may seat these again (and the baselines)
        self.session_seed = settings.seed  # --seed: every game's seeds follow from it; None: each from secrets
        self.number = 0  # games started
        self.new_game()

    # ------------------------------------------------------------------ games
    def seeds(self, number: int, seats: list[int]) -> tuple[int, dict[int, int]]:
        """Game `number`'s deal seed and its agents' seeds (by seat). Without --seed all are fresh from `secrets`
        (`SEED_BITS` each), so a revealed deal seed tells nothing of another game or of the agents; with --seed S
        the first deal is S (as `uno-play --seed S`) and the rest are `derived_seed(S, ...)`."""
        key = self.session_seed
        if key is None:
            return secrets.randbits(SEED_BITS), {seat: secrets.randbits(SEED_BITS) for seat in seats}
        deal = key if number == 1 else derived_seed(key, "deal", number)
        return deal, {seat: derived_seed(key, "agent", number, seat) for seat in seats}

    def new_game(self, seed: int | None = None, deal: dict | None = None, settings: argparse.Namespace | None = None):
        """Start the next game (its seeds from `seeds`; `seed`: this deal seed instead), a dealt scenario `deal`,
        or one with new `settings`; agents play up to the person's first decision. Bad settings or agents raise
        `Refused` and leave the table as it was."""
        with self.lock:
            settings = settings or self.settings
            others = [s for s in range(settings.players) if s != settings.seat]
            deal_seed, agent_seeds = self.seeds(self.number + 1, others)
            seed = deal_seed if seed is None else int(seed)
            try:
                session = TableSession.deal(settings.variant, settings.players, settings.seat, settings.opponents,
                                            seed=seed, agent_seeds=agent_seeds, episode=settings.episode,
                                            options=settings.rule_options, deal=deal, max_steps=MAX_STEPS,
                                            trust=settings.trust)  # fmt: skip
            except USER_ERRORS as error:
                raise Refused(str(error) or type(error).__name__) from error
            self.settings, self.seed, self.session, self.game = settings, seed, session, session.game
            self.human = settings.seat
            self.dealt = deal
            self.log: list[str] = []
            self.played: dict[str, Any] | None = None  # the card on the pile and its player (None: turned up)
            self.stalled: dict[str, Any] | None = None  # the agent whose model failed, waited on (`resume`)
            self.round = 1
            self.number += 1
            self._new_window()
            self._tell(session.opening())
            self._frame(None)
            self._play_agents()

    def _new_window(self) -> None:
        """Start what the page shows since the person's decision: no steps yet, no revealed hands."""
        self.since: list[dict[str, Any]] = []
        self.frames: list[dict[str, Any]] = []
        self.reveal: dict[str, Any] | None = None

    def _play_agents(self) -> None:
        """The agents' turns up to the person's next decision, each kept as a frame. When an agent's model fails
        (an OSError, such as the chat adapter's ChatError: a server down, slow or refusing), its turn changes
        nothing and the table waits on it (`stalled`, said at the table in one line) until the person resumes."""
        while self.session.agent_due:
            seat = self.game.seat
            try:
                events = self.session.agent_step()
            except OSError as error:
                self._stall(seat, error)
                return
            self._tell(events)
            self._frame(seat)

    def _stall(self, seat: int, error: OSError) -> None:
        """Wait on `seat`, whose model failed with `error`: said in one line in `stalled`, the log and `since`."""
        reason = " ".join(str(error).split()) or type(error).__name__
        reason = reason if len(reason) <= MAX_STALL_REASON else reason[: MAX_STALL_REASON - 3] + "..."
        message = f"{self.session.who(seat)} could not decide: {reason}"
        self.stalled = {"seat": seat, "message": message, "choices": list(RESUME_CHOICES)}
        self.log.append(message)
        self.since.append({"seat": seat, "kind": "stalled", "parts": line_parts([Alarm(message)])})
        self._trim()

    def check_game(self, game: Any, sent: str, what: str) -> None:
        """Refuse a game number that is not an int (`sent`: the JSON the request should be), and `OtherGame` when
        `what` (the request) is for another game than the table's."""
        if isinstance(game, bool) or not isinstance(game, int):
            raise Refused(f"send {sent} with the number of the game, got {short(game)}")
        if game != self.number:
            raise OtherGame(f"{what} is for game {short(game)}, but the table plays game {self.number}: reload the "
                            "page")  # fmt: skip

    def resume(self, how: Any, game: Any) -> None:
        """Go on after an agent's model failed, in game number `game`: ask it again (`how` "retry") or let it play
        its fallback move (`how` "fallback", counted by a text agent as any other), then the agents' turns up to
        the person's next decision. `Refused` when no agent is waited on or `how` is neither, `OtherGame` for
        another game."""
        with self.lock:
            if how not in RESUME_CHOICES:
                raise Refused(f'send {{"how": "retry" or "fallback", "game": NUMBER}}, got how={short(how)}')
            self.check_game(game, '{"how": ..., "game": NUMBER}', "that")
            if self.stalled is None:
                raise Refused("no agent is waiting to be resumed: the game goes on")
            seat, self.stalled = self.stalled["seat"], None
            self.frames[:-1] = []  # the page has shown the steps before: it goes on from the table as it is
            if how == "fallback":
                self._tell(self.session.agent_fallback())
                self._frame(seat)
            self._play_agents()

    def _frame(self, seat: int | None) -> None:
        """Keep the table after `seat`'s decision (None: the deal) for the page to show in turn. A step that added
        nothing to `since` (another seat keeping the card it drew) replaces the frame of the same seat before it."""
        frame = {"seat": seat, "decision": len(self.session.actions), "view": self.session.view(),
                 "played": self.played, "since": len(self.since), "reveal": self.reveal is not None}  # fmt: skip
        if self.frames and self.frames[-1]["seat"] == seat and self.frames[-1]["since"] == frame["since"]:
            self.frames[-1] = frame
        else:
            self.frames.append(frame)
        del self.frames[:-MAX_FRAMES]

    @property
    def problem(self) -> str | None:
        """Why the game stopped (an agent's illegal action), or None."""
        return self.session.problem

    def _tell(self, events: list[dict[str, Any]]) -> None:
        """Add the narration of `events` to the log, as plain lines (the last `LOG_LINES` kept), and to `since`,
        as parts; follow the card on the pile and the hands revealed at a round's end."""
        for event in events:
            kind = event["kind"]
            if kind == "play":
                self.played = {"seat": event["seat"], "card": event["card"]}
            elif kind == "round":
                self.played, self.round = None, event["round"]
            elif kind == "round_end":
                self.reveal = {"round": self.round, "winner": event["seat"], "gains": event["gains"],
                               "scores": event["scores"], "seats": event["hands"]}  # fmt: skip
            for item in self.session.narration(event):
                if isinstance(item, ScoreTable):
                    self.log.extend(line.rstrip() for line in item.text_lines())
                    self.since.append({"seat": None, "kind": kind, "scores": {"title": item.title, "rows": item.rows}})
                elif plain(item).strip():
                    self.log.append(plain(item).rstrip())
                    self.since.append({"seat": event.get("seat"), "kind": kind, "parts": line_parts(item)})
        self._trim()

    def _trim(self) -> None:
        """Keep the last `LOG_LINES` lines of the log and `MAX_SINCE` entries of `since` (the frames counting)."""
        del self.log[:-LOG_LINES]
        dropped = max(0, len(self.since) - MAX_SINCE)
        if dropped:
            del self.since[:dropped]
            for frame in self.frames:
                frame["since"] = max(0, frame["since"] - dropped)

    def act(self, action: Any, game: Any) -> None:
        """The person's action id in game number `game`: refused (`Refused`) unless it is the person's decision and
        the id is legal, and (`OtherGame`) when `game` is not the game on the table."""
        with self.lock:
            if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
                raise Refused(f'send {{"action": ID, "game": NUMBER}} with an action id from 0 to '
                              f"{A.NUM_ACTIONS - 1}, got {short(action)}")  # fmt: skip
            action = int(action)
            if not 0 <= action < A.NUM_ACTIONS:
                raise Refused(f"an action id is from 0 to {A.NUM_ACTIONS - 1}, got {short(action)}")
            self.check_game(game, '{"action": ID, "game": NUMBER}', "that action")
            if self.stalled is not None:
                raise Refused(f"{self.stalled['message']}; ask it again or let it play its fallback move first")
            try:
                events = self.session.act(action)  # checked against the legal mask
            except ActionRefused as error:
                raise Refused(str(error)) from None
            self._new_window()
            self._tell(events)
            self._frame(self.human)
            self._play_agents()

    # ------------------------------------------------------------------ what the page sees
    def state(self) -> dict[str, Any]:
        """What the person's page gets: the seat's `table_view`, the legal actions (id, name, label) when the
        decision is the seat's, the seats' names, the narration, and when over the result and the seed."""
        with self.lock:
            session, game, seat = self.session, self.game, self.human
            view = session.view()
            actions, prompt = [], None
            if session.deciding:
                known = session.knowledge()  # the labels read only what the seat sees
                prompt = session.prompt()
                actions = [{"id": a, "name": game.action_names[a], "label": plain(session.label(a, view, known))}
                           for a in session.legal()]  # fmt: skip
            settings = self.settings
            over = view["done"]
            return {
                "view": view,
                "actions": actions,
                "prompt": prompt,
                "colors": list(game.rules.colors),  # the preset's colour names, slot order (card letters)
                "names": [session.seat_name(s) for s in range(game.num_players)],
                "log": list(self.log),
                "since": list(self.since),
                "frames": list(self.frames),
                "played": self.played,
                "reveal": self.reveal,
                "forehead": {"wrong_guesses": session.knowledge()["wrong_guesses"]},
                "hand_notes": self.hand_notes(view, actions),
                "pace": settings.pace,
                "difficulties": difficulty_levels(settings.variant, settings.players, list(settings.opponents)),
                "result": self.result() if over else None,
                "problem": self.problem,
                "stalled": self.stalled,
                "game": {
                    "number": self.number,
                    "variant": settings.variant,
                    "players": settings.players,
                    "seat": seat,
                    "episode": settings.episode,
                    "target_score": game.rules.target_score if settings.episode == "match" else None,
                    "options": list(settings.options),
                    "opponents": list(settings.opponents),
                    # it tells every hidden card of this game: at its end; a string, exact beyond JavaScript's 2^53
                    "seed": str(self.seed) if over else None,
                },
                "agents": page_agents(),
                "variants": list(VARIANTS),
                "record": over and records_available(),
                "replay": replay_available(),
            }

    def hand_notes(self, view: dict[str, Any], actions: list[dict[str, Any]]) -> dict[str, str]:
        """Why each card of the person's hand that it may not play now cannot be played (`TableSession.
        unplayable_reason`), by card code: what the page says when such a card is clicked."""
        playable = {action["name"][5:] for action in actions if action["name"].startswith("play ")}
        own = view["seats"][self.human]["hand"] or []
        return {code: self.session.unplayable_reason(code) for code in dict.fromkeys(own) if code not in playable}

    def result(self) -> str:
        game = self.game
        if game.truncated:
            return "Game over: cut off at the step limit."
        match = self.settings.episode == "match"
        winners = game.winners
        if self.human in winners:
            return "Game over: you win the match!" if match else "Game over: you win!"
        names = ", ".join(self.session.who(w) for w in winners)
        return f"Game over: {names} {'wins' if len(winners) == 1 else 'win'}{' the match' if match else ''}."

    def record(self) -> dict[str, Any]:
        """The finished game as a record (`uno_env.records`); refused before the end (it holds every card)."""
        with self.lock:
            if not self.game.done:
                raise Refused("a record holds every card: it can be saved once the game is over")
            if not records_available():
                raise Refused("saving records needs uno_env.records, which this installation lacks")
            from uno_env.records import check_record

            return check_record(self.session.record(self.seed, self.dealt, human="you", source="uno-web"))


def short(value: Any, most: int = 60) -> str:
    """`value` as a short one-line repr for an error message (a request may send anything, of any size)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**most:
        return f"an int of {len(str(abs(value)))} digits" if abs(value) < 10**4000 else "a huge int"
    text = repr(value) if isinstance(value, (str, int, float, bool, type(None))) else type(value).__name__
    return text if len(text) <= most else text[: most - 3] + "..."


def _installed(*modules: str) -> bool:
    return all(importlib.util.find_spec(name) is not None for name in modules)


def records_available() -> bool:
    """Whether `uno_env.records` (saving a finished game as a record file) is installed."""
    return _installed("uno_env.records")


def replay_available() -> bool:
    """Whether `uno_env.records` and `uno_env.replay` (showing a record file) are installed."""
    return _installed("uno_env.records", "uno_env.replay")


# ---------------------------------------------------------------------------------------- the app
TOKEN_SLOT = '<meta name="uno-token" content="">'  # in play.html: where the page gets its token
TABLE_SCRIPT = '<script src="/uno-static/table.js"></script>'  # in play.html: the card faces go just before it
API_ROUTES = "GET /api/state, POST /api/act, POST /api/resume, POST /api/new, GET /api/record"


class Forbidden(Refused):
    """A state-changing request without the page's token, or from another site: a 403."""

    status = 403


class TooLarge(Refused):
    """An uploaded file over `MAX_UPLOAD`: a 413."""

    status = 413


def cross_site(headers: Any, host: str) -> str | None:
    """Why a POST with these headers comes from another site (None: it does not). A browser names the page that
    sent a request in Origin and Sec-Fetch-Site; a request with neither (curl, a test) is judged by its token."""
    origin = headers.get("Origin")
    if origin is not None and origin != f"http://{host}":
        return f"a request from another site ({short(origin)}); uno-web takes changes from its own page only"
    site = headers.get("Sec-Fetch-Site")
    if site is not None and site not in ("same-origin", "none"):
        return f"a {short(site)} request; uno-web takes changes from its own page only"
    return None


def page_token(app: Any) -> str:
    """The token `app`'s page sends with every change (`TOKEN_HEADER`, or the upload form's field token)."""
    return app.extensions["uno_token"]


def create_app(settings: argparse.Namespace | None = None) -> Any:
    """The Flask app of one table with `settings` (`parse_args`; default: `uno-web`'s defaults, seed 0). Its page
    carries a token drawn from `secrets` when the app is made (`page_token`): a POST without it is refused."""
    from flask import Flask

    settings = settings or parse_args(["--seed", "0"])
    table = WebTable(settings)
    token = secrets.token_urlsafe(32)
    page = play_page(token)
    app = Flask(__name__, static_folder=str(STATIC), static_url_path="/static")
    app.config["MAX_CONTENT_LENGTH"] = MAX_UPLOAD + MAX_FORM_OVERHEAD  # the largest body; /api/*: MAX_API_BODY
    app.config["MAX_FORM_PARTS"] = 8  # the upload form has two (MAX_FORM_MEMORY_SIZE: Flask's 500 kB)
    app.extensions["uno_table"] = table
    app.extensions["uno_token"] = token
    add_gate(app)
    add_error_answers(app)
    add_page_routes(app, page)
    add_api_routes(app, table)
    add_replay_routes(app)
    return app


def play_page(token: str) -> str:
    """play/static/play.html with `token` in its slot and the card faces before the table's script."""
    page = (STATIC / "play.html").read_text(encoding="utf-8")
    for slot in (TOKEN_SLOT, TABLE_SCRIPT):
        if page.count(slot) != 1:
            raise RuntimeError(f"play/static/play.html must hold {slot} once")
    page = page.replace(TOKEN_SLOT, f'<meta name="uno-token" content="{token}">')
    return page.replace(TABLE_SCRIPT, f"{faces_element()}\n{TABLE_SCRIPT}")


def same_token(sent: str | None) -> bool:
    """Whether `sent` is the token of the app serving the request (compared in constant time)."""
    from flask import current_app

    token = page_token(current_app)
    return isinstance(sent, str) and hmac.compare_digest(sent.encode("utf-8", "replace"), token.encode())


def error_answer(message: str, status: int) -> Any:
    """An error as JSON {"error": one line}; on /replay, the upload form saying it."""
    from flask import Response, current_app, jsonify, request

    message = " ".join(message.split()) or "refused"
    if request.path == "/replay":
        return Response(upload_page(page_token(current_app), message), status=status, mimetype="text/html")
    return jsonify({"error": message}), status


def fields_of(body: Any, keys: tuple[str, ...], refusal: str) -> dict[str, Any]:
    """A request's JSON object when it has every one of `keys`, else `Refused(refusal)` (what to send, in one line)."""
    if not isinstance(body, dict) or any(key not in body for key in keys):
        raise Refused(refusal)
    return body


def json_body() -> Any:
    """The request's JSON body (None when there is none): at most MAX_API_BODY bytes (else a 413), sent as
    application/json, parsed by `json` (never evaluated); anything else is refused with a 400."""
    from flask import request

    data = request.get_data(cache=False)
    if not data:
        return None
    if request.mimetype != "application/json":
        raise Refused("send JSON, with Content-Type: application/json")
    try:
        return json.loads(data)
    except RecursionError:
        raise Refused("the JSON is nested too deep") from None
    except ValueError as error:  # bad JSON, not UTF-8, an int of over 4,300 digits
        raise Refused(f"not JSON: {str(error)[:200]}") from None


def add_gate(app: Any) -> None:
    """Every request's checks (the Host, the body's cap; a POST's Origin and token) and every answer's headers."""
    from flask import request

    @app.before_request
    def guard():
        host = request.host.rsplit(":", 1)[0] if not request.host.startswith("[") else request.host
        if host not in ALLOWED_HOSTS:
            return error_answer(f"uno-web answers requests for {' or '.join(ALLOWED_HOSTS)} only", 400)
        if request.path != "/replay":
            request.max_content_length = MAX_API_BODY
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return None
        why = cross_site(request.headers, request.host)
        if why:
            return error_answer(why, 403)
        if request.path != "/replay" and not same_token(request.headers.get(TOKEN_HEADER)):
            return error_answer(f"send the page's token in the {TOKEN_HEADER} header (reload the page)", 403)
        return None

    @app.after_request
    def headers(response):
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers.setdefault("Content-Security-Policy", PAGE_POLICY)
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Referrer-Policy"] = "same-origin"  # no-referrer would make a form's Origin "null"
        response.headers["Cross-Origin-Opener-Policy"] = "same-origin"
        response.headers["Cross-Origin-Resource-Policy"] = "same-origin"
        return response


def add_error_answers(app: Any) -> None:
    """Errors on /api/* as JSON in one line, on /replay as the upload form saying it: a `Refused` with its status,
    Flask's own 404, 405 and 413, and a bug's 500."""
    from flask import request
    from werkzeug.exceptions import HTTPException, InternalServerError

    @app.errorhandler(Refused)
    def refused(error: Refused):
        return error_answer(str(error), error.status)

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException):
        if error.code is None or error.code < 400 or not (request.path.startswith("/api/") or
                                                          request.path == "/replay"):  # fmt: skip
            return error
        path = short(request.path)
        if error.code == 404:
            message = f"no route {path}; the API is {API_ROUTES}"
        elif error.code == 405:
            allowed = ", ".join(method for method in error.valid_methods or [] if method != "OPTIONS")
            message = f"{short(request.method)} is not allowed on {path}; use {allowed}"
        elif error.code == 413:
            message = f"the request body is over {request.max_content_length} bytes"
        else:
            message = f"{error.name}: {error.description}"
        return error_answer(message, error.code)

    @app.errorhandler(InternalServerError)
    def internal_error(error: InternalServerError):  # a bug: logged by Flask, said in one line
        if not request.path.startswith("/api/"):
            return error
        cause = error.original_exception
        return error_answer(f"the server failed ({type(cause).__name__ if cause else 'internal error'})", 500)


def add_page_routes(app: Any, page: str) -> None:
    """The page (`page`, with its token), its icon and the shared card drawing (play/static is Flask's)."""
    from flask import Response

    @app.get("/")
    def index():
        return Response(page, mimetype="text/html")

    @app.get("/favicon.ico")
    def favicon():
        return Response(status=204)

    @app.get("/uno-static/<name>")
    def uno_static(name: str):  # the shared card drawing (uno_env/static): these two files only
        if name not in UNO_STATIC_FILES:
            return error_answer(f"no such file; this route serves {', '.join(UNO_STATIC_FILES)}", 404)
        text = (resources.files("uno_env") / "static" / name).read_text(encoding="utf-8")
        return Response(text, mimetype=UNO_STATIC_FILES[name])


def add_api_routes(app: Any, table: WebTable) -> None:
    """The table's routes (`API_ROUTES`): its state, the person's action, resuming a waiting agent, a new game,
    the finished game's record."""
    from flask import Response, jsonify

    @app.get("/api/state")
    def state():
        return jsonify(table.state())

    @app.post("/api/act")
    def act():
        body = fields_of(json_body(), ("action", "game"), f'send JSON {{"action": ID, "game": NUMBER}}: an action id '
                         f"from 0 to {A.NUM_ACTIONS - 1} and the number of the game it is for")  # fmt: skip
        table.act(body["action"], body["game"])
        return jsonify(table.state())

    @app.post("/api/resume")
    def resume():
        body = fields_of(json_body(), ("how", "game"), 'send JSON {"how": "retry" or "fallback", "game": NUMBER}: ask '
                         "the waiting agent again, or let it play its fallback move")  # fmt: skip
        table.resume(body["how"], body["game"])
        return jsonify(table.state())

    @app.post("/api/new")
    def new():
        body = json_body()
        if body is not None and not isinstance(body, dict):
            raise Refused("send the settings as a JSON object (or nothing: the next game)")
        settings = page_settings(table.settings, body, table.command_line_agents) if body else None
        table.new_game(settings=settings)
        return jsonify(table.state())

    @app.get("/api/record")
    def record():
        data = table.record()
        s = table.settings
        name = f"uno-{s.variant}-{s.players}p-seed{data['seed']}.json"
        from uno_env.records import dumps_record

        return Response(dumps_record(data), mimetype="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})  # fmt: skip


def add_replay_routes(app: Any) -> None:
    """The upload form (`GET /replay`) and an uploaded record's replay page (`POST /replay`, with the form's
    token, at most `MAX_UPLOAD` bytes, under `REPLAY_POLICY`)."""
    from flask import Response, request

    @app.get("/replay")
    def replay_form():
        return Response(upload_page(page_token(app)), mimetype="text/html")

    @app.post("/replay")
    def replay_upload():
        if not same_token(request.form.get("token")):
            raise Forbidden("this form is not the table's (reload it from the table): a record is opened from the "
                            "form uno-web serves")  # fmt: skip
        upload = request.files.get("record")
        if upload is None or not upload.filename:
            raise Refused("Choose a record file to open.")
        data = upload.read(MAX_UPLOAD + 1)
        if len(data) > MAX_UPLOAD:
            raise TooLarge(f"the file is over {MAX_UPLOAD // 2**20} MiB, more than a record of the longest game")
        response = Response(replay_page(data), mimetype="text/html")
        response.headers["Content-Security-Policy"] = REPLAY_POLICY
        return response


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
        record = records.loads_record(text)
    except (ValueError, TypeError, KeyError) as error:
        raise Refused(f"not a valid record: {error}") from error
    views = len(record["actions"]) * (record["num_players"] + 1)  # the page holds each step as every seat saw it
    if views > MAX_REPLAY_VIEWS:
        most = MAX_REPLAY_VIEWS // (record["num_players"] + 1)
        raise Refused(f"this record has {len(record['actions']):,} decisions; the page replays at most {most:,} at a "
                      f"table of {record['num_players']} (uno-replay writes the page of any record)")  # fmt: skip
    try:
        return replay.replay_html(record, back_link="/", back_label="back to the table")
    except (ValueError, TypeError, KeyError) as error:
        raise Refused(f"not a valid record: {error}") from error


def upload_page(token: str, message: str | None = None) -> str:
    """The form to upload a record file (with the page's `token`), saying `message` (a refusal) if any."""
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
<input type="hidden" name="token" value="{escape(token)}">
<input type="file" name="record" id="record" accept=".json,application/json">
<button type="submit" id="open">Open</button>
</form>
<p><a href="/">Back to the table</a></p>
</main></body></html>
"""


# ---------------------------------------------------------------------------------------- serving
class Server:
    """`app` served by waitress on 127.0.0.1 (`SERVER_LIMITS`: a few threads, a connection limit, idle connections
    closed, header and body sizes capped). `server_port` is the bound port; `serve_forever()` serves until
    `shutdown()` (from another thread) or Ctrl-C; `server_close()` closes the socket and every connection."""

    def __init__(self, app: Any, port: int = 0, **limits: Any):
        from waitress.server import create_server

        self._server = create_server(app, host=HOST, port=port, ident="uno-web", expose_tracebacks=False,
                                     asyncore_use_poll=True, **{**SERVER_LIMITS, **limits})  # fmt: skip
        self.server_port = int(self._server.effective_port)
        self.adjustments = self._server.adj
        self._stop = threading.Event()
        self._stopped = threading.Event()

    def serve_forever(self) -> None:
        from waitress import wasyncore

        self._stopped.clear()
        try:
            while not self._stop.is_set() and self._server._map:
                wasyncore.loop(timeout=self.adjustments.asyncore_loop_timeout, map=self._server._map,
                               use_poll=True, count=1)  # fmt: skip
        finally:
            self._stopped.set()

    def shutdown(self) -> None:
        """Stop `serve_forever` (called from another thread) and wait for it."""
        self._stop.set()
        self._server.pull_trigger()
        self._stopped.wait(timeout=5)

    def server_close(self) -> None:
        from waitress import wasyncore

        self._server.task_dispatcher.shutdown()
        wasyncore.close_all(self._server._map)


def make_server(app: Any, port: int = 0, **limits: Any) -> Server:
    """A production WSGI server (waitress, `Server`) for `app` on 127.0.0.1:`port` (0: a free one;
    `server.server_port` says which); `limits` override `SERVER_LIMITS` (waitress's settings)."""
    return Server(app, port, **limits)


def main(argv: list[str] | None = None) -> int:
    """The `uno-web` command: serve one table on 127.0.0.1 until Ctrl-C."""
    parser = build_parser()
    args = _checked(parser, argv)
    try:  # one line naming the extra, the same check as the other commands' (uno_env.extras)
        require_extra("uno-web", "flask", "waitress")
    except MissingExtraError as error:
        parser.error(str(error))
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
