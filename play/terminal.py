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
"""

from __future__ import annotations

import argparse
import secrets
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from uno_env import Game, IllegalActionError, cli
from uno_env import actions as A
from uno_env import cards as C
from uno_env import engine as E
from uno_env import observation as O
from uno_env.agents.base import bind
from uno_env.agents.registry import TRAINED_HELP, agent_names, make_agent
from uno_env.agents.trust import TRUST_HELP, USER_ERRORS
from uno_env.records import make_record, result_of, save_record
from uno_env.vector import agent_actions

COLOR_STYLES = {"red": "bold red", "pink": "bold magenta", "blue": "bold blue", "green": "bold green",
                "yellow": "bold yellow"}  # fmt: skip
WILD_STYLE = "bold reverse"
HIDDEN = "??"
QUIT_WORDS = ("q", "quit", "exit")
HELP_WORDS = ("?", "h", "help")
PHASE_PROMPTS = {
    A.PHASE_PLAY: "Your turn: play a card or draw.",
    A.PHASE_COLOR: "Choose the colour.",
    A.PHASE_DRAWN: "Play the card you drew, or keep it?",
    A.PHASE_CHALLENGE: "A Wild Draw Four on you: challenge it or accept it?",
    A.PHASE_GUESS: "Guess the colour of your forehead card (a right guess gets rid of it and you go on).",
    A.PHASE_GIVE: 'Creeperific "Urrrhhh": which colour do you give away, all of it?',
    A.PHASE_SWAP: "Wild Swap: swap hands with someone, or keep yours?",
    A.PHASE_EMOJI: "Wild Emoji: which number card goes on it?",
    A.PHASE_UNO: "You are down to one card!",
}


class Quit(Exception):
    """The person asked to stop (q, end of input, Ctrl-C)."""


class TerminalGame:
    """One game (a round or a match) between a person at `human_seat` and agents at the other seats.

    `opponents` maps every other seat to (name, agent). `input_fn()` returns the person's next line;
    everything is printed on `console`. `run()` plays to the end and returns the exit code.
    """

    def __init__(
        self,
        game: Game,
        human_seat: int,
        opponents: dict[int, tuple[str, Any]],
        console: Console,
        input_fn: Callable[[], str] = input,
    ):
        n = game.num_players
        if set(opponents) != set(range(n)) - {human_seat}:
            raise ValueError(f"opponents must name an agent for every seat but {human_seat} (seats 0..{n - 1})")
        self.game = game
        self.human = human_seat
        self.opponents = opponents
        self.console = console
        self.input_fn = input_fn
        self.colors = game.rules.colors
        self.names = game.action_names
        self.human_spec = O.ObservationSpec("knowledge", n)
        self.specs = {}
        for _, agent in opponents.values():
            level = agent.observation
            if level not in self.specs:
                self.specs[level] = O.ObservationSpec(level, n)
            bind(agent, self.specs[level], game.rules)
        self._mask = np.zeros(A.NUM_ACTIONS, np.int8)
        self.actions: list[int] = []  # every action applied, in order: the game's record

    # ------------------------------------------------------------------ names and cards
    def who(self, seat: int, capital: bool = True) -> str:
        if seat == self.human:
            return "You" if capital else "you"
        return f"{'P' if capital else 'p'}layer {seat} ({self.opponents[seat][0]})"

    def slot(self, code: str) -> int:
        """The colour slot of a card code, -1 for a wild card."""
        kind = C.parse_card(code, self.colors)
        return kind // C.RANKS_PER_COLOR if kind < C.NUM_COLORED_KINDS else -1

    def card(self, code: str) -> Text:
        slot = self.slot(code)
        return Text(code, style=COLOR_STYLES[self.colors[slot]] if slot >= 0 else WILD_STYLE)

    def cards(self, codes: list[str]) -> Text:
        return Text(" ").join(self.card(code) for code in codes) if codes else Text("-")

    def colour(self, name: str | None) -> Text:
        return Text(name, style=COLOR_STYLES[name]) if name else Text("(to choose)")

    def say(self, *parts: str | Text) -> None:
        self.console.print(Text.assemble(*parts))

    # ------------------------------------------------------------------ what the person sees
    def observe(self, seat: int, spec: O.ObservationSpec) -> tuple[np.ndarray, np.ndarray]:
        """Seat `seat`'s observation of the game and its legal-action mask (the engine's encoder)."""
        return self.game.batch.observe(0, seat, spec.level)

    def human_fields(self) -> dict[str, np.ndarray]:
        obs, _ = self.observe(self.human, self.human_spec)
        return self.human_spec.unflatten(obs)

    def abs_seat(self, relative: int) -> int:
        return (self.human + relative) % self.game.num_players

    def show_table(self) -> None:
        d = self.game.describe()
        f = self.human_fields()
        n = self.game.num_players
        title = f"{self.game.rules.preset}, {n} players"
        if self.game.batch.episode == "match":
            title += f", round {d['rounds'] + 1}, match to {self.game.rules.target_score}"
        self.console.print(Rule(title))
        arrow = "left (seat + 1)" if d["direction"] == 1 else "right (seat - 1)"
        line = Text.assemble("top ", self.card(d["top"]), "  colour ", self.colour(d["color"]),
                             f"  direction {arrow}  draw pile {d['pile']}")  # fmt: skip
        if d["pending_draw"]:
            line.append(f"  pending Draw Two stack: {d['pending_draw']}", style="bold")
        self.console.print(line)
        table = Table(box=None, show_header=True, pad_edge=False)
        for column in ("", "player", "cards", "forehead", "score", ""):
            table.add_column(column)
        for seat in range(n):
            foreheads = d["foreheads"][seat]
            if seat == self.human:
                forehead = Text(" ".join([HIDDEN] * len(foreheads)), style="dim")
            else:
                forehead = self.cards(foreheads) if foreheads else Text("")
            notes = []
            rel = (seat - self.human) % n
            if f["emoji_face"][rel]:
                notes.append("owes the emoji face")
            known = self.kinds_to_codes(f["known_cards"][rel]) if rel else []
            row_notes = Text("; ".join(notes))
            if known:
                row_notes.append(("; " if notes else "") + "you know it holds ")
                row_notes.append_text(self.cards(known))
            table.add_row(
                ">" if seat == d["seat"] and not d["done"] else "",
                self.who(seat) if seat != self.human else f"You (player {seat})",
                str(len(d["hands"][seat])),
                forehead,
                str(d["scores"][seat]),
                row_notes,
            )
        self.console.print(table)
        self.console.print(Text.assemble("Your hand: ", self.cards(d["hands"][self.human])))

    def kinds_to_codes(self, counts: np.ndarray) -> list[str]:
        return [C.kind_code(k, self.colors) for k in range(C.NUM_KINDS) for _ in range(int(counts[k]))]

    # ------------------------------------------------------------------ the person's decisions
    def label(self, action: int, phase: int, d: dict[str, Any], f: dict[str, np.ndarray]) -> Text:
        """The menu text of a legal action in its phase."""
        name = self.names[action]
        if action < C.NUM_KINDS:
            code = name.split()[1]
            if phase == A.PHASE_DRAWN:
                return Text.assemble("play ", self.card(code), " (the card you drew)")
            if phase == A.PHASE_EMOJI:
                return Text.assemble("put ", self.card(code), " on the Wild Emoji")
            return Text.assemble("play ", self.card(code))
        if action == A.DRAW:
            pending = d["pending_draw"]
            return Text(f"take the {pending} cards of the Draw Two stack" if pending else "draw a card")
        if action == A.PASS:
            return Text({A.PHASE_DRAWN: "keep it", A.PHASE_SWAP: "keep your hand",
                         A.PHASE_UNO: "don't call UNO"}.get(phase, "pass"))  # fmt: skip
        if A.COLOR_BASE <= action < A.COLOR_BASE + C.NUM_COLORS:
            color = self.colors[action - A.COLOR_BASE]
            if phase == A.PHASE_GUESS:
                return Text.assemble("guess ", self.colour(color))
            if phase == A.PHASE_GIVE:
                held = sum(self.slot(code) == action - A.COLOR_BASE for code in d["hands"][self.human])
                return Text.assemble("give away your ", self.colour(color), f" cards ({held})")
            return self.colour(color)
        if action == A.CHALLENGE:
            before = f["w4_previous_color"]
            hint = f" (it came on {self.colors[int(before.argmax())]})" if before.any() else ""
            return Text(f"challenge: it was played holding the colour before it{hint}")
        if action == A.ACCEPT:
            return Text("accept: draw 4 and lose your turn")
        if A.SWAP_BASE < action < A.UNO:
            target = (self.human + action - A.SWAP_BASE) % self.game.num_players
            return Text(f"swap hands with {self.who(target, False)}, {len(d['hands'][target])} cards")
        if action == A.UNO:
            return Text("call UNO!")
        return Text(name)

    def ask(self, prompt: str | Text) -> str:
        self.console.print(prompt, end="")
        try:
            return self.input_fn()
        except (EOFError, KeyboardInterrupt) as stop:
            self.console.print()
            raise Quit from stop

    def human_turn(self, show: bool) -> int:
        """Show what the person needs, list the legal actions and read a choice until one is legal."""
        d = self.game.describe()
        f = self.human_fields()
        phase = A.PHASE_NAMES.index(d["phase"])
        legal = self.game.legal_action_ids()
        if show:
            self.show_table()
        self.say(Text(PHASE_PROMPTS.get(phase, "Your decision."), style="bold"))
        if f["emoji_face"][0] and phase == A.PHASE_PLAY:
            self.say("You owe the emoji face: keep it until your next turn.")
        for i, action in enumerate(legal, 1):
            self.say(f"  {i:>2}  ", self.label(action, phase, d, f))
        while True:
            text = self.ask(f"Your choice [1-{len(legal)}, or an action; ? for the table, q to quit]: ").strip()
            if text.lower() in QUIT_WORDS:
                raise Quit
            if text.lower() in HELP_WORDS:
                self.show_table()
                for i, action in enumerate(legal, 1):
                    self.say(f"  {i:>2}  ", self.label(action, phase, d, f))
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

    # ------------------------------------------------------------------ the agents' decisions
    def agent_turn(self, seat: int) -> int:
        name, agent = self.opponents[seat]
        obs, mask = self.observe(seat, self.specs[agent.observation])
        batch = self.game.batch
        game = np.zeros(1, np.int64)
        chosen = agent_actions(agent, batch.state_array, batch.config_array, game, obs[None], mask[None])
        return int(np.asarray(chosen).reshape(-1)[0])

    # ------------------------------------------------------------------ narration
    def narrate(self, seat: int, action: int, phase: int, before: dict[str, Any], after: dict[str, Any]) -> None:
        """Tell what the table saw: the action (never a drawn card's identity) and its visible effects."""
        who = self.who(seat)
        name = self.names[action]
        you = seat == self.human
        if action < C.NUM_KINDS:
            code = name.split()[1]
            if phase == A.PHASE_EMOJI:
                self.say(who, " put " if you else " puts ", self.card(code), " on the Wild Emoji")
            elif phase == A.PHASE_DRAWN:
                self.say(who, " play " if you else " plays ", "the drawn card ", self.card(code))
            else:
                self.say(who, " play " if you else " plays ", self.card(code))
        elif action == A.PASS and phase == A.PHASE_DRAWN and you:  # another seat's keep is its secret
            self.say("You keep it")
        elif action == A.PASS and phase == A.PHASE_SWAP:
            self.say(who, " keep your hand" if you else " keeps its hand")
        elif action == A.PASS and phase == A.PHASE_UNO:
            self.say(who, " don't call UNO" if you else " does not call UNO")
        elif A.COLOR_BASE <= action < A.COLOR_BASE + C.NUM_COLORS:
            color = self.colour(self.colors[action - A.COLOR_BASE])
            if phase == A.PHASE_GUESS:
                self.narrate_guess(seat, color, before, after)
            elif phase == A.PHASE_GIVE:
                self.say(who, " give away " if you else " gives away ", "every ", color, " card")
            else:
                self.say(who, " name " if you else " names ", color)
        elif action in (A.CHALLENGE, A.ACCEPT):
            verb = "challenge" if action == A.CHALLENGE else "accept"
            self.say(who, f" {verb}" if you else f" {verb}s", " the Wild Draw Four")
        elif A.SWAP_BASE < action < A.UNO:
            target = (seat + action - A.SWAP_BASE) % self.game.num_players
            self.say(who, " swap" if you else " swaps", f" hands with {self.who(target, False)}")
            if self.human in (seat, target):
                self.say("Your hand is now ", self.cards(after["hands"][self.human]))
            return
        elif action == A.UNO:
            self.say(who, " call" if you else " calls", Text(" UNO!", style="bold"))
        if after["rounds"] == before["rounds"] or self.game.done:  # not across a new deal
            self.narrate_changes(phase, before, after)

    def narrate_guess(self, seat: int, color: Text, before: dict[str, Any], after: dict[str, Any]) -> None:
        old = before["foreheads"][seat]
        right = after["rounds"] != before["rounds"] or len(after["foreheads"][seat]) < len(old)
        you = seat == self.human
        subject = Text.assemble(self.who(seat), " guess " if you else " guesses ", color, " for ",
                                "your" if you else "its", " forehead card")  # fmt: skip
        if not you:
            subject.append_text(Text.assemble(" ", self.card(old[0])))
        if right:
            reveal = Text.assemble(", it was ", self.card(old[0])) if you else Text("")
            self.say(subject, ": right", reveal, "; it goes under the discard pile")
        else:
            self.say(subject, ": wrong, the turn ends")

    def narrate_changes(self, phase: int, before: dict[str, Any], after: dict[str, Any]) -> None:
        """Card counts, forehead cards, direction and draw pile as everyone sees them change."""
        n = self.game.num_players
        received = phase == A.PHASE_GIVE
        if after["pile"] > before["pile"]:
            self.say("The discard pile is shuffled into a new draw pile.")
        for seat in range(n):
            if phase == A.PHASE_SWAP:
                break
            gained = len(after["hands"][seat]) - len(before["hands"][seat])
            if gained > 0:
                verb = "receive" if received else "draw"
                if seat == self.human:
                    new = Counter(after["hands"][seat]) - Counter(before["hands"][seat])
                    self.say(f"You {verb} ", self.cards(sorted(new.elements(), key=self.sort_key)))
                else:
                    self.say(self.who(seat), f" {verb}s " + ("a card" if gained == 1 else f"{gained} cards"))
            new_fh = after["foreheads"][seat][len(before["foreheads"][seat]) :]
            if len(after["foreheads"][seat]) > len(before["foreheads"][seat]):
                shown = Text(" ".join([HIDDEN] * len(new_fh))) if seat == self.human else self.cards(new_fh)
                self.say(self.who(seat), " get" if seat == self.human else " gets", " a forehead card: ", shown)
        if after["direction"] != before["direction"]:
            self.say("Play now goes to the ", "left" if after["direction"] == 1 else "right", ".")

    def sort_key(self, code: str) -> int:
        return C.parse_card(code, self.colors)

    # ------------------------------------------------------------------ rounds and the end
    def announce_round(self) -> None:
        d = self.game.describe()
        self.say(Text(f"Round {d['rounds'] + 1}: ", style="bold"), f"{self.who(d['dealer'])} deal",
                 "" if d["dealer"] == self.human else "s", "; the first card is ", self.card(d["top"]),
                 ".")  # fmt: skip

    def end_of_round(self, status: np.ndarray, before: dict[str, Any], after: dict[str, Any]) -> None:
        winner = int(status[E.STATUS_ROUND_WINNER])
        gains = [a - b for a, b in zip(after["scores"], before["scores"], strict=True)]
        if self.game.rules.scoring == "penalty":
            detail = ", ".join(f"{self.who(s, False)} +{g}" for s, g in enumerate(gains))
            self.say(Text(f"{self.who(winner)} {'go' if winner == self.human else 'goes'} out!", style="bold"),
                     f" Points left in the hands, added to each tally: {detail}.")  # fmt: skip
        else:
            self.say(Text(f"{self.who(winner)} {'win' if winner == self.human else 'wins'} the round", style="bold"),
                     f" and {'score' if winner == self.human else 'scores'} {gains[winner]} points.")  # fmt: skip
        self.show_scores(after["scores"], "Scores" if self.game.batch.episode == "match" else "Round scores")

    def show_scores(self, scores: list[int], title: str) -> None:
        table = Table(title=title, title_justify="left", box=None, pad_edge=False)
        table.add_column("player")
        table.add_column("score", justify="right")
        for seat, score in enumerate(scores):
            table.add_row(self.who(seat) if seat != self.human else f"You (player {seat})", str(score))
        self.console.print(table)

    def game_over(self) -> None:
        d = self.game.describe()
        if d["truncated"]:
            self.say(Text("The game was cut off: it reached its step limit.", style="bold"))
            self.show_scores(d["scores"], "Scores")
            return
        winners = d["winners"]
        match = self.game.batch.episode == "match"
        if match:
            self.show_scores(d["scores"], "Final scores")
        if self.human in winners:
            text = "You win the match!" if match else "You win!"
        else:
            text = ", ".join(self.who(w) for w in winners) + (" wins" if len(winners) == 1 else " win")
            text += " the match." if match else "."
        self.say(Text(text, style="bold"))

    # ------------------------------------------------------------------ the loop
    def run(self) -> int:
        try:
            self.announce_round()
            shown_for = None  # the state (steps taken) the table was last shown at
            steps = 0
            while not self.game.done:
                seat = self.game.seat
                if seat == self.human:
                    action = self.human_turn(show=shown_for != steps - 1 or self.game.phase == "play")
                    shown_for = steps
                else:
                    action = self.agent_turn(seat)
                if not self.apply(seat, action):
                    return 1
                steps += 1
            self.game_over()
            return 0
        except Quit:
            self.say("Bye.")
            return 0

    def record(self, seed: int, deal: dict | None = None, human: str = "human") -> dict[str, Any]:
        """The game so far as a game record (`uno_env.records`): `seed` and `deal` are the ones the game was
        dealt with; the person's seat is named `human`, the others by their agents."""
        game = self.game
        agents = [human if seat == self.human else self.opponents[seat][0] for seat in range(game.num_players)]
        return make_record(
            game.rules, game.num_players, self.actions, seed=seed, deal=deal, episode=game.batch.episode,
            max_steps=int(game.batch.config["max_steps"][0]), agents=agents, result=result_of(game),
            meta={"source": "uno-play", "human_seat": self.human},
        )  # fmt: skip

    def apply(self, seat: int, action: int) -> bool:
        """Step the engine by one decision and tell what happened; False if an agent chose an illegal action."""
        before = self.game.describe()
        phase = A.PHASE_NAMES.index(before["phase"])
        try:
            status = self.game.batch.step_game(0, action).copy()
        except IllegalActionError as error:
            self.say(Text(f"{self.who(seat)} chose an illegal action: {error}", style="bold red"))
            return False
        self.actions.append(int(action))
        after = self.game.describe()
        self.narrate(seat, action, phase, before, after)
        if after["rounds"] > before["rounds"]:
            self.end_of_round(status, before, after)
            if not self.game.done:
                self.announce_round()
        return True


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
        help=f"one agent name for every opponent, or one per opponent seat in seat order: "
        f"{', '.join(agent_names())}, or {TRAINED_HELP} (default: greedy)",
    )  # fmt: skip
    parser.add_argument(
        "--seat", type=cli.nonnegative_int, default=0, metavar="INT", help="your seat, 0 to players - 1 (default: 0)"
    )
    cli.add_seed(parser, None, help="the deal's seed; none: a random one, printed")
    parser.add_argument(
        "--episode", default="round", choices=["round", "match"],
        help="one round, or a whole match to the target score (default: round)",
    )  # fmt: skip
    cli.add_option(parser)
    parser.add_argument("--trust", action="store_true", help=TRUST_HELP)
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
    try:
        game = Game(args.variant, args.players, seed=seed, episode=args.episode, **args.rule_options)
    except ValueError as error:
        parser.error(str(error))
    others = [s for s in range(args.players) if s != args.seat]
    names = args.opponents * len(others) if len(args.opponents) == 1 else args.opponents
    console = console or Console(highlight=False)
    try:  # a bad agent file, a refused one, or an agent for another game: one line, exit 2
        opponents = {seat: (name, make_agent(name, seed=seed + seat, trust=args.trust))
                     for seat, name in zip(others, names, strict=True)}  # fmt: skip
        terminal = TerminalGame(game, args.seat, opponents, console, input_fn)  # binds the agents to the game
    except USER_ERRORS as error:
        parser.error(str(error) or type(error).__name__)
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
