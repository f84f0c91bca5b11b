"""uno-play: a person plays UNO in the terminal against agents.

    uno-play                                              # you against `greedy`, classic, 2 players
    uno-play --variant unocorns --players 4 --opponents counter greedy naive --seat 2 --seed 7
    uno-play --episode match --option target_score=200 --option uno_call=explicit
    uno-play --save my-game.json                          # then replay or view it with uno_env.replay

Every rule comes from the engine (`uno_env.Game`): the legal actions of the current phase are listed as a
numbered menu (pick a number or type an action: `play R7`, `R7`, `draw`, `blue`, ...), and a colour, a
challenge, a Narwhal guess, a Swap, an Emoji card or the UNO call is simply the decision of its phase.
The table shows what your seat sees (your own forehead cards as ??, the others' forehead cards, everyone's
card counts, and the cards you know others hold); the other players' moves are narrated from what the
table shows (a drawn card is never named, nor whether it could have been played). Cards are shown in their
colours by `rich`, as plain text when the output is not a terminal. Opponents are agents by name
(`uno_env.agents.registry.make_agent`), fed their own observations. `q` or Ctrl-D quits. `--save PATH` writes
the game as a game record (`uno_env.records`) when it ends or you quit: `uno_env.replay` replays and shows it.

The game itself (seating, the agents' turns, the person's checked action, the record, what happened as events made
from the seat's `table_view`) is `uno_env.play.session.TableSession`, which uno-web runs too; this module draws it
with rich and reads the person's input.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from uno_env import Game, cli
from uno_env import actions as A
from uno_env import cards as C
from uno_env import faces as F
from uno_env.agents.registry import AGENT_HELP, parse_agent
from uno_env.agents.trust import USER_ERRORS, add_trust
from uno_env.records import save_record

from .session import PHASE_PROMPTS, Alarm, Card, Colour, ScoreTable, Strong, TableSession

HIDDEN = "??"
QUIT_WORDS = ("q", "quit", "exit")
HELP_WORDS = ("?", "h", "help")
__all__ = ["PHASE_PROMPTS", "Quit", "TerminalGame", "build_parser", "main", "parse_args"]


class Quit(Exception):
    """The person asked to stop (q, end of input, Ctrl-C)."""


class TerminalGame:
    """One game (a round or a match) between a person at `human_seat` and agents at the other seats, in the
    terminal: a thin client of `uno_env.play.session.TableSession`, which plays the agents, applies the person's
    choice and tells what the seat saw; this class draws its views and events with rich and reads the input.

    `opponents` maps every other seat to (name, agent). `input_fn()` returns the person's next line;
    everything is printed on `console`. `run()` plays to the end and returns the exit code."""

    def __init__(
        self,
        game: Game,
        human_seat: int,
        opponents: dict[int, tuple[str, Any]],
        console: Console,
        input_fn: Callable[[], str] = input,
        *,
        session: TableSession | None = None,
    ):
        # the session of this game (`session`, when made already) binds the agents to the game
        self.session = session if session is not None else TableSession(game, human_seat, opponents)
        self.game = game
        self.human = human_seat
        self.opponents = opponents
        self.console = console
        self.input_fn = input_fn
        self.colors = game.rules.colors
        self.names = game.action_names

    @property
    def actions(self) -> list[int]:
        """Every action applied, in order: the game's record."""
        return self.session.actions

    # ------------------------------------------------------------------ drawing
    def who(self, seat: int, capital: bool = True) -> str:
        return self.session.who(seat, capital)

    def card(self, code: str) -> Text:
        """A card code in its colour's terminal style (`uno_env.faces`)."""
        return Text(code, style=F.color_face(C.parse_card(code, self.colors), self.colors).style)

    def cards(self, codes: list[str]) -> Text:
        return Text(" ").join(self.card(code) for code in codes) if codes else Text("-")

    def colour(self, name: str | None) -> Text:
        return Text(name, style=F.COLOR_FACES[name].style) if name else Text("(to choose)")

    def text(self, parts: list[str]) -> Text:
        """A line of the session's narration, styled: cards and colours in their colours."""
        styled = []
        for part in parts:
            if isinstance(part, Card):
                styled.append(self.card(part))
            elif isinstance(part, Colour):
                styled.append(self.colour(part))
            elif isinstance(part, Strong):
                styled.append(Text(part, style="bold"))
            elif isinstance(part, Alarm):
                styled.append(Text(part, style="bold red"))
            else:
                styled.append(part)
        return Text.assemble(*styled)

    def say(self, *parts: str | Text) -> None:
        self.console.print(Text.assemble(*parts))

    def tell(self, events: list[dict[str, Any]]) -> None:
        """Print the narration of events: lines and score tables."""
        for event in events:
            for item in self.session.narration(event):
                if isinstance(item, ScoreTable):
                    self.show_scores(item)
                else:
                    self.console.print(self.text(item))

    def show_scores(self, scores: ScoreTable) -> None:
        table = Table(title=scores.title, title_justify="left", box=None, pad_edge=False)
        table.add_column("player")
        table.add_column("score", justify="right")
        for name, score in scores.rows:
            table.add_row(name, str(score))
        self.console.print(table)

    def show_table(self) -> None:
        """The table as the person's seat sees it (`TableSession.view` and `knowledge`)."""
        view, known = self.session.view(), self.session.knowledge()
        n = view["players"]
        title = f"{view['variant']}, {n} players"
        if self.game.batch.episode == "match":
            title += f", round {view['round']}, match to {self.game.rules.target_score}"
        self.console.print(Rule(title))
        arrow = "left (seat + 1)" if view["direction"] == 1 else "right (seat - 1)"
        line = Text.assemble("top ", self.card(view["top"]), "  colour ", self.colour(view["color"]),
                             f"  direction {arrow}  draw pile {view['pile']}")  # fmt: skip
        if view["pending_draw"]:
            line.append(f"  pending Draw Two stack: {view['pending_draw']}", style="bold")
        self.console.print(line)
        table = Table(box=None, show_header=True, pad_edge=False)
        for column in ("", "player", "cards", "forehead", "score", ""):
            table.add_column(column)
        for seat in view["seats"]:
            s = seat["seat"]
            foreheads = seat["foreheads"]
            if seat["you"]:
                forehead = Text(" ".join([HIDDEN] * len(foreheads)), style="dim")
            else:
                forehead = self.cards(foreheads) if foreheads else Text("")
            notes = ["owes the emoji face"] if known["owes_emoji"][s] else []
            row_notes = Text("; ".join(notes))
            if known["known"][s]:
                row_notes.append(("; " if notes else "") + "you know it holds ")
                row_notes.append_text(self.cards(known["known"][s]))
            table.add_row(">" if seat["deciding"] else "", self.session.seat_name(s), str(seat["count"]), forehead,
                          str(seat["score"]), row_notes)  # fmt: skip
        self.console.print(table)
        self.console.print(Text.assemble("Your hand: ", self.cards(view["seats"][self.human]["hand"])))

    # ------------------------------------------------------------------ the person's decisions
    def label(self, action: int) -> Text:
        """The menu text of a legal action of the person's decision."""
        return self.text(self.session.label(action))

    def ask(self, prompt: str | Text) -> str:
        self.console.print(prompt, end="")
        try:
            return self.input_fn()
        except (EOFError, KeyboardInterrupt) as stop:
            self.console.print()
            raise Quit from stop

    def menu(self, legal: list[int]) -> None:
        view, known = self.session.view(), self.session.knowledge()
        for i, action in enumerate(legal, 1):
            self.say(f"  {i:>2}  ", self.text(self.session.label(action, view, known)))

    def human_turn(self, show: bool) -> int:
        """Show what the person needs, list the legal actions and read a choice until one is legal."""
        phase = self.session.phase()
        legal = self.session.legal()
        if show:
            self.show_table()
        self.say(Text(self.session.prompt(), style="bold"))
        if self.session.knowledge()["owes_emoji"][self.human] and phase == A.PHASE_PLAY:
            self.say("You owe the emoji face: keep it until your next turn.")
        self.menu(legal)
        while True:
            text = self.ask(f"Your choice [1-{len(legal)}, or an action; ? for the table, q to quit]: ").strip()
            if text.lower() in QUIT_WORDS:
                raise Quit
            if text.lower() in HELP_WORDS:
                self.show_table()
                self.menu(legal)
                continue
            action, problem = self.parse_choice(text, legal)
            if problem is None:
                return action
            self.say(Text(problem, style="bold red"))

    def parse_choice(self, text: str, legal: list[int]) -> tuple[int, str | None]:
        """A menu number, an action name, a bare card code or a bare colour name -> (action, problem)."""
        if not text:
            return -1, f"Type a number from 1 to {len(legal)}, or an action such as {self.names[legal[0]]!r}."
        if text.isdigit():
            number = int(text)
            if 1 <= number <= len(legal):
                return legal[number - 1], None
            return -1, f"{number} is not on the list: choose from 1 to {len(legal)}."
        for candidate in (text, f"play {text}", f"color {text}", f"swap {text}"):
            try:
                action = A.action_id(candidate, self.colors)
            except ValueError:
                continue
            if action in legal:
                return action, None
            return -1, f"{self.names[action]!r} is not legal now; choose one of the list."
        return -1, f"{text!r} is neither a number on the list nor an action; choose from 1 to {len(legal)}."

    def agent_turn(self) -> list[dict[str, Any]]:
        """The deciding agent's move; when its model fails (a `ChatError`, any OSError) the game waits on the
        person: ask it again, play its counted fallback move, or quit. Nothing changes until one is chosen."""
        while True:
            try:
                return self.session.agent_step()
            except OSError as error:
                who = self.session.who(self.game.seat)
                self.say(Text(f"{who} could not decide: {error}", style="bold red"))
            while True:
                text = self.ask("r to ask it again, f to let it play its fallback move, q to quit: ").strip().lower()
                if text in QUIT_WORDS:
                    raise Quit
                if text in ("f", "fallback"):
                    return self.session.agent_fallback()
                if text in ("r", "retry"):
                    break

    # ------------------------------------------------------------------ the loop
    def run(self) -> int:
        """Play to the end (or until the person quits): 0, or 1 when an agent chose an illegal action."""
        session = self.session
        try:
            self.tell(session.opening())
            shown_for = None  # the decision (steps taken) the table was last shown at
            while not self.game.done:
                if session.deciding:
                    steps = len(session.actions)
                    action = self.human_turn(show=shown_for != steps - 1 or self.game.phase == "play")
                    shown_for = steps
                    self.tell(session.act(action))
                else:
                    self.tell(self.agent_turn())
                if session.problem is not None:
                    return 1
            return 0
        except Quit:
            self.say("Bye.")
            return 0

    def record(self, seed: int, deal: dict | None = None, human: str = "human") -> dict[str, Any]:
        """The game so far as a game record (`uno_env.records`): `seed` and `deal` are the ones the game was
        dealt with; the person's seat is named `human`, the others by their agents."""
        return self.session.record(seed, deal, human=human, source="uno-play")


def build_parser() -> cli.ArgumentParser:
    """The `uno-play` command line (`uno_env.cli`'s convention)."""
    parser = cli.ArgumentParser(
        prog="uno-play",
        description="Play UNO in the terminal against agents.",
        epilog="During the game: type a menu number or an action (play R7, R7, draw, blue, ...); ? shows the "
        "table, q quits.",
    )
    cli.add_variant(parser)
    cli.add_players(parser)
    parser.add_argument(
        "--opponents", nargs="+", default=["greedy"], metavar="NAME",
        help=f"one agent name for every opponent, or one per opponent seat in seat order: {AGENT_HELP} (default: "
        "greedy)",
    )  # fmt: skip
    parser.add_argument(
        "--seat", type=cli.nonnegative_int, default=0, metavar="INT", help="your seat, 0 to players - 1 (default: 0)"
    )
    cli.add_seed(parser, None, help="the deal's seed; none: a random one, printed")
    cli.add_episode(parser)
    cli.add_option(parser)
    add_trust(parser)
    parser.add_argument(
        "--save", type=Path, metavar="PATH",
        help="write the game to this file as a game record (JSON) when it ends or you quit, to replay or view it "
        "with uno_env.replay (default: none)",
    )  # fmt: skip
    return parser


def parse_args(argv: list[str] | None = None, parser: cli.ArgumentParser | None = None) -> argparse.Namespace:
    """The settings of `uno-play argv`, with `rule_options` (a dict) checked against the variant and players."""
    parser = parser or build_parser()
    args = parser.parse_args(argv)
    args.rule_options = cli.checked_rule_options(parser, args.variant, args.options, args.players)
    if args.seat >= args.players:
        parser.error(f"--seat must be from 0 to {args.players - 1}, got {args.seat}")
    others = args.players - 1
    if args.save is not None and (args.save.is_dir() or not args.save.parent.is_dir()):
        parser.error(f"--save must be a file in an existing folder, got {str(args.save)!r}")
    for name in args.opponents:
        try:
            parse_agent(name)  # the catalogue's one-line refusal, before any agent is loaded
        except ValueError as error:
            parser.error(str(error))
    if len(args.opponents) not in (1, others):
        parser.error(
            f"--opponents takes one agent name for all {others} opponents or one per opponent seat "
            f"({', '.join(str(s) for s in range(args.players) if s != args.seat)}), got {len(args.opponents)}"
        )
    return args


def main(
    argv: list[str] | None = None,
    *,
    input_fn: Callable[[], str] = input,
    console: Console | None = None,
) -> int:
    """The `uno-play` command; `input_fn` (one line per call) and `console` let tests drive it."""
    parser = build_parser()
    args = parse_args(argv, parser)
    seed = args.seed if args.seed is not None else secrets.randbits(64)  # fresh entropy: the deal is unguessable
    console = console or Console(highlight=False)
    try:  # a bad setting, a bad agent file, a refused one, or an agent for another game: one line, exit 2
        session = TableSession.deal(args.variant, args.players, args.seat, args.opponents, seed=seed,
                                    episode=args.episode, options=args.rule_options, trust=args.trust)  # fmt: skip
    except USER_ERRORS as error:
        parser.error(str(error) or type(error).__name__)
    terminal = TerminalGame(session.game, args.seat, session.opponents, console, input_fn, session=session)
    options = ", ".join(f"{k}={v!r}" for k, v in args.rule_options.items())
    console.print(
        f"UNO {args.variant}, {args.players} players, a {args.episode}"
        + (f", {options}" if options else "")
        + f"; you are player {args.seat}."
    )
    code = terminal.run()
    # the seed tells every hand and the agents' draws: shown only once the game is over
    console.print(f"The game's seed was {seed} (play it again with --seed {seed}).")
    if args.save is not None:
        try:
            path = save_record(terminal.record(seed), args.save)
        except OSError as error:
            parser.error(f"cannot save the game to {str(args.save)!r}: {error.strerror or error}")
        console.print(f"The game is saved in {path} ({len(terminal.actions)} decisions; uno_env.replay shows it).")
    return code


if __name__ == "__main__":
    sys.exit(main())
