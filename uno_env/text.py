"""The text face of a seat's decision, for language models: the prompt it is asked and the parser of its reply.

`prompt(game, seat)` is what the deciding seat of a `Game` (or of a one-game `GameBatch`) is asked: the rules
in brief for the game's variant, options and episode (`rules_brief`), the table as the seat sees it and the
legal moves as a numbered list, each with its meaning in words. Everything in it comes from what the seat
may see, decided in one place: `uno_env.render.table_view(game, seat)` (the table) and the seat's own
observation (`GameBatch.observe`: the card it just drew, the cards it knows others hold, the colour before a
Wild Draw Four, who owes the emoji face, the last public moves of the round); never from `describe()`. So
the prompt of a seat is the same in every deal that seat cannot tell apart (tested like the observations).

`parse(reply, game, seat)` reads a reply: the action id of the legal move it names, or None. A reply names a
move by its number in the list or in words ("play R5", "red 5", "draw", "keep it", "blue", "challenge",
"swap with player_2"), anywhere in surrounding prose. Read in this order:

1. a marker, the last ``MOVE: <number or words>`` (or ``answer:``/``choice:``) of the reply: what follows it;
2. a reply that is, or starts with, a number: that number (``2``, ``**2**``, ``2. play R5``);
3. the moves named in words anywhere in the reply: the move, if exactly one is named (the longest phrase
   wins where phrases overlap: "wild draw four" is not "wild" and "draw"; a rank alone, "skip", names every
   legal Skip).

A number outside the list, words naming no legal move or several, an empty reply: None, and
`read_reply` says why in one line (what `uno_env.agents.TextAgent` tells the model when it asks again). Only
the last `MAX_REPLY_PARSED` characters of a longer reply are read, in time linear in their length (no
pattern backtracks over a run of whitespace, whatever a model sends).

`PROMPT_FORMAT` names this prompt and parser; it changes whenever their text or reading changes, so that a
result obtained through them can say which it was (text agents write it into each decision's details).
"""

from __future__ import annotations

import re
import textwrap
from functools import lru_cache
from typing import Any

import numpy as np

from . import actions as A
from . import cards as C
from . import faces as F
from . import observation as O
from .render import table_view
from .rules import RuleSet

__all__ = ["PROMPT_FORMAT", "Move", "legal_moves", "parse", "prompt", "read_reply", "rules_brief"]

#: the name and version of the prompt and the parser (written into each decision's details by text agents)
PROMPT_FORMAT = "uno-env-text-1"
#: a reply longer than this is read from its last this many characters (where a reply's conclusion is)
MAX_REPLY_PARSED = 20_000
#: the observation level the prompt reads the seat's memory from (the `belief` level adds the recent moves)
MEMORY_LEVEL = "belief"
#: the longest line of a prompt: longer lines are wrapped at spaces (a list item's next lines indented)
PROMPT_WIDTH = 96

_WILD_SHORT = {C.NARWHAL: "narwhal", C.URRRHHH: "urrrhhh", C.EMOJI: "emoji", C.CUSTOMIZABLE: "customizable"}


# ------------------------------------------------------------------------------------------------ words


def card_words(code: str, colors: tuple[str, ...]) -> str:
    """A card code in words (`uno_env.faces`): R5 -> "red 5", BS -> "blue Skip", W+4 -> "Wild Draw Four"."""
    kind = C.parse_card(code, colors)
    name = F.face(kind).name
    return name if kind >= C.NUM_COLORED_KINDS else f"{colors[kind // C.RANKS_PER_COLOR]} {name}"


def _cards(codes: list[str]) -> str:
    return " ".join(codes) if codes else "none"


def rules_brief(rules: RuleSet, num_players: int, episode: str = "round") -> list[str]:
    """The rules of a game in brief, as lines: what the prompt says of the variant, its options, the cards in
    its deck and the episode (a round, or a match to the target score)."""
    colors, n = rules.colors, num_players
    counts = rules.card_counts
    letters = ", ".join(f"{C.color_letter(c)} {c}" for c in colors)
    wilds = ", ".join(f"{F.face(k).code} ({F.face(k).name})" for k in range(C.NUM_COLORED_KINDS, C.NUM_KINDS)
                      if counts[k])  # fmt: skip
    actions = ", ".join(f"{face.code} ({face.name})" for face in F.RANK_FACES[C.SKIP_RANK :])
    forehead = bool(counts[C.NARWHAL])
    lines = [
        f"UNO, variant {rules.variant}, {n} players: seats player_0 to player_{n - 1}; 'left' is the next seat up "
        "(player_0's left is player_1), and play starts going left.",
        "Goal: be the first to have no cards left" + (" (in hand and on your forehead)" if forehead else "") + ".",
        f"Card codes: a colour letter ({letters}) and a rank: 0-9, {actions}"
        + (f"; wild cards: {wilds}." if wilds else "."),
        "Your turn: play one card that matches the active colour, or the top card's number or symbol, or a wild "
        "card; or draw one card (allowed even when you could play). A drawn card you can play may be played at "
        "once, or kept; then the turn ends.",
        "Skip: the next player loses their turn. Reverse: the direction flips"
        + (
            " (with 2 players it also skips the other player)." if n == 2 and rules.two_player_reverse_is_skip else "."
        )  # fmt: skip
        + " Draw Two: the next player draws 2 and loses their turn.",
    ]
    if rules.stack_draw_two:
        lines.append("Draw Two stacking: facing a Draw Two you may play a Draw Two of any colour on it, passing the "
                     "sum on; whoever does not stack takes the whole sum and loses the turn.")  # fmt: skip
    if counts[C.WILD] or counts[C.CUSTOMIZABLE]:
        lines.append("Wild" + (" (and Wild Customizable)" if counts[C.CUSTOMIZABLE] else "")
                     + ": you name the active colour.")  # fmt: skip
    if counts[C.WILD_DRAW_FOUR]:
        line = "Wild Draw Four: you name the colour; the next player draws 4 and loses their turn."
        if rules.challenge_wild_draw_four:
            line += (" It is legal only when you hold no card of the active colour, but may be played anyway: the "
                     "next player may accept (draw 4, lose the turn) or challenge. A challenge shows the hand: if "
                     "the player held a card of the colour active before it, that player draws 4 instead and the "
                     "challenger plays on; if not, the challenger draws 6 and loses the turn.")  # fmt: skip
        else:
            line += " It may be played only when you hold no card of the active colour."
        lines.append(line)
    if forehead:
        lines.append(
            "Wild Narwhal Rule: every player in turn draws a card onto their forehead"
            + (", its player too (last)" if rules.narwhal_includes_player else "")
            + ": all others see it, its owner does not. At the start of your turn you guess the colour of your "
            "oldest forehead card (a wild one matches any guess): right, it is discarded and you go on; wrong, "
            "your turn ends. Then you name the colour."
        )
    if counts[C.URRRHHH]:
        lines.append('Creeperific "Urrrhhh": you give away every card of one colour you hold, one at a time to '
                     "the players on your left, round and round; then you name the colour.")  # fmt: skip
    if counts[C.EMOJI]:
        face = (f" (a chance of {rules.emoji_face_fail_rate:.0%} to fail and draw 4)"
                if rules.emoji_face_fail_rate else "")  # fmt: skip
        lines.append("Wild Emoji: played together with a number card from your hand, which sets the colour; the "
                     f"next player must keep the emoji face until their next turn{face}.")  # fmt: skip
    if counts[C.SWAP]:
        lines.append("Wild Swap: you may swap your whole hand with another player's, or keep it; then you name the "
                     "colour.")  # fmt: skip
    if rules.uno_call == "explicit":
        lines.append(f"UNO: when your cards drop to one you decide whether to call UNO; not calling is caught with "
                     f"a chance of {rules.uno_catch_rate:.0%} and costs {rules.uno_penalty} cards.")  # fmt: skip
    else:
        lines.append("UNO is called for you when your cards drop to one.")
    if episode == "match":
        if rules.scoring == "penalty":
            lines.append(f"A match of rounds: each round adds the points left in your own hand to your tally; when "
                         f"a tally reaches {rules.target_score}, the lowest tally wins.")  # fmt: skip
        else:
            lines.append(f"A match of rounds: a round's winner scores the points of the cards left to the others; "
                         f"the first to {rules.target_score} points wins.")  # fmt: skip
        lines.append(f"Card points: {_points(rules)}.")
    else:
        lines.append("The game is one round: the first player with no cards left wins.")
    return lines


def _points(rules: RuleSet) -> str:
    """The points of the deck's cards in words, grouped: "a number card its number, Skip, Reverse and Draw Two 20,
    W, W+4 50"."""
    counts, points, codes = rules.card_counts, rules.card_points, rules.codes
    numbers = [k for k in range(C.NUM_COLORED_KINDS) if counts[k] and C.is_number_kind(k)]
    parts = []
    if numbers and all(points[k] == k % C.RANKS_PER_COLOR for k in numbers):
        parts.append("a number card its number")
        rest = [k for k in range(C.NUM_KINDS) if counts[k] and k not in numbers]
    else:
        rest = [k for k in range(C.NUM_KINDS) if counts[k]]
    actions = [k for k in rest if k < C.NUM_COLORED_KINDS and not C.is_number_kind(k)]
    if actions and len({points[k] for k in actions}) == 1 and len(actions) == 3 * C.NUM_COLORS:
        parts.append(f"Skip, Reverse and Draw Two {points[actions[0]]}")
        rest = [k for k in rest if k not in actions]
    by_value: dict[int, list[str]] = {}
    for k in rest:
        by_value.setdefault(points[k], []).append(codes[k])
    parts += [f"{' '.join(group)} {value}" for value, group in by_value.items()]
    return ", ".join(parts)


# ------------------------------------------------------------------------------------------------ moves


class Move:
    """A legal move of the deciding seat: its action id, action name, meaning in words, and the phrases that
    name it in a reply (lower case)."""

    __slots__ = ("action", "name", "words", "phrases")

    def __init__(self, action: int, name: str, words: str, phrases: list[str]):
        self.action, self.name, self.words, self.phrases = action, name, words, phrases

    def __repr__(self) -> str:
        return f"Move({self.action}, {self.name!r}, {self.words!r})"


def _batch(game):
    return getattr(game, "batch", game)  # a Game holds its one-game batch


@lru_cache(maxsize=16)
def _memory_spec(num_players: int) -> O.ObservationSpec:
    return O.ObservationSpec(MEMORY_LEVEL, num_players)


def _memory(game, seat: int, g: int) -> dict[str, Any]:
    """What the seat remembers, read from its own observation at `MEMORY_LEVEL` (never from hidden state)."""
    batch = _batch(game)
    n, colors = batch.num_players, batch.rules.colors
    observation, _ = batch.observe(g, seat, MEMORY_LEVEL)
    f = _memory_spec(n).unflatten(observation)
    codes = batch.rules.codes
    known = {}
    for rel in range(1, n):
        counts = f["known_cards"][rel]
        if counts.any():
            known[(seat + rel) % n] = [codes[k] for k in range(C.NUM_KINDS) for _ in range(int(counts[k]))]
    recent = []
    for i in range(f["recent_actions"].shape[0] - 1, -1, -1):  # oldest first
        if f["recent_actions"][i].any():
            actor = (seat + int(f["recent_seats"][i].argmax())) % n
            recent.append((actor, batch.action_names[int(f["recent_actions"][i].argmax())]))
    drawn = f["drawn_card"]
    before = f["w4_previous_color"]
    return {
        "drawn": codes[int(drawn.argmax())] if drawn.any() else None,
        "known": known,
        "w4_previous_color": colors[int(before.argmax())] if before.any() else None,
        "owes_emoji": [(seat + rel) % n for rel in range(n) if f["emoji_face"][rel]],
        "recent": recent,
    }


def _card_phrases(code: str, colors: tuple[str, ...]) -> list[str]:
    kind = C.parse_card(code, colors)
    lower = code.lower()
    phrases = [lower, f"play {lower}", card_words(code, colors).lower()]
    if kind < C.NUM_COLORED_KINDS:
        slot, rank = divmod(kind, C.RANKS_PER_COLOR)
        phrases.append(f"{colors[slot]} {C.RANK_CODES[rank].lower()}")  # "red +2", "red s"
        if rank == C.DRAW_TWO_RANK:
            phrases += [f"{colors[slot]} draw 2", "draw two", "draw 2", "+2"]  # "draw two": any legal Draw Two
        elif rank >= C.SKIP_RANK:
            phrases.append(F.face(kind).name.lower())  # "skip": any legal Skip
    elif kind in _WILD_SHORT:
        phrases.append(_WILD_SHORT[kind])
    elif kind == C.WILD_DRAW_FOUR:
        phrases += ["wild draw 4", "wild +4", "draw four", "+4"]
    return phrases


def legal_moves(game, seat: int, g: int = 0, view: dict[str, Any] | None = None, memory=None) -> list[Move]:
    """The legal moves of `seat`, the deciding seat of game `g` of a `Game` or `GameBatch`, in action-id order
    (the numbered list of the prompt); a ValueError unless `seat` decides there now."""
    view = view if view is not None else _seat_view(game, seat, g)
    batch = _batch(game)
    colors, n = batch.rules.colors, batch.num_players
    phase = view["phase"]
    hand = view["seats"][seat]["hand"]
    moves = []
    for name in view["legal"]:
        action = batch.action_names.index(name)
        phrases = [name.lower()]
        if action < C.NUM_KINDS:
            code = name.split()[1]
            words = card_words(code, colors)
            phrases = _card_phrases(code, colors)
            if phase == "drawn":
                words = f"play the card you just drew, {words}"
                phrases += ["play it", "play the drawn card", "play the card i drew"]
            elif phase == "emoji":
                words = f"put {words} on the Wild Emoji (it sets the colour)"
                phrases.append(f"put {code.lower()}")
            else:
                words = f"play {words}"
        elif action == A.DRAW:
            pending = view["pending_draw"]
            words = f"take the {pending} cards of the Draw Two stack" if pending else "draw a card"
            phrases += ["draw a card", "take the stack", "take the cards"]
        elif action == A.PASS:
            words, extra = {
                "drawn": ("keep the card you drew (your turn ends)", ["keep", "keep it", "keep the card"]),
                "swap": ("keep your hand (no swap)", ["keep", "keep my hand", "no swap", "don't swap", "do not swap"]),
                "uno": ("don't call UNO", ["don't call uno", "do not call uno", "no uno", "not call uno"]),
            }.get(phase, ("pass", []))
            phrases += extra
        elif A.COLOR_BASE <= action < A.COLOR_BASE + C.NUM_COLORS:
            color = colors[action - A.COLOR_BASE]
            phrases += [color, f"colour {color}", f"guess {color}", f"give {color}", f"give away {color}"]
            if phase == "guess":
                words = f"guess {color} for your oldest forehead card"
            elif phase == "give":
                held = sum(1 for code in hand if C.parse_card(code, colors) // C.RANKS_PER_COLOR ==
                           action - A.COLOR_BASE and C.parse_card(code, colors) < C.NUM_COLORED_KINDS)  # fmt: skip
                words = f"give away all your {color} cards ({held})"
            else:
                words = f"make {color} the active colour"
        elif action == A.CHALLENGE:
            memory = memory or _memory(game, seat, g)
            before = memory["w4_previous_color"]
            words = "challenge the Wild Draw Four" + (f" (the colour before it was {before})" if before else "")
            phrases += ["challenge it"]
        elif action == A.ACCEPT:
            words = "accept: draw 4 and lose your turn"
            phrases += ["accept it"]
        elif A.SWAP_BASE < action < A.UNO:
            target = (seat + action - A.SWAP_BASE) % n
            words = f"swap hands with player_{target} ({view['seats'][target]['count']} cards)"
            phrases += [f"player_{target}", f"player {target}", f"swap with player_{target}",
                        f"swap with player {target}", f"+{action - A.SWAP_BASE}"]  # fmt: skip
        elif action == A.UNO:
            words = "call UNO"
            phrases += ["call uno"]
        else:
            words = name
        moves.append(Move(action, name, words, list(dict.fromkeys(phrases))))
    return moves


def _seat_view(game, seat: int, g: int) -> dict[str, Any]:
    """The table as `seat` sees it, refusing a seat that does not decide game `g` now."""
    batch = _batch(game)
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < batch.num_players:
        raise ValueError(f"seat must be a seat from 0 to {batch.num_players - 1}, got {seat!r}")
    view = table_view(game, int(seat), g)
    if view["done"]:
        raise ValueError("the game is over: no seat decides")
    if view["deciding"] != seat:
        raise ValueError(f"seat {seat} does not decide now: player_{view['deciding']} does")
    return view


# ------------------------------------------------------------------------------------------------ the prompt

PHASE_QUESTIONS = {
    "play": "Your turn: play a card or draw.",
    "color": "Name the active colour for the wild card you played.",
    "drawn": "You drew a card you can play: play it now, or keep it.",
    "challenge": "A Wild Draw Four was played on you: challenge it or accept it.",
    "guess": "Guess the colour of your oldest forehead card.",
    "give": 'Creeperific "Urrrhhh": choose the colour you give away.',
    "swap": "Wild Swap: swap hands with another player, or keep yours.",
    "emoji": "Wild Emoji: choose the number card that goes on it.",
    "uno": "You are down to one card: call UNO or not.",
}


def prompt(game, seat: int, g: int = 0) -> str:
    """The prompt for `seat`'s decision in a `Game` (or game `g` of a `GameBatch`): the rules in brief, the table
    as the seat sees it and the legal moves as a numbered list (see the module docstring). A ValueError unless
    `seat` decides now."""
    view = _seat_view(game, seat, g)
    batch = _batch(game)
    colors, n = batch.rules.colors, batch.num_players
    memory = _memory(game, seat, g)
    moves = legal_moves(game, seat, g, view, memory)
    direction = "left (seat numbers go up)" if view["direction"] == 1 else "right (seat numbers go down)"
    lines = ["You are playing UNO. Rules in brief:"]
    lines += [f"- {line}" for line in rules_brief(batch.rules, n, batch.episode)]
    lines += ["", f"The table, as you (player_{seat}) see it:"]
    round_line = f"Round {view['round']}" + (f", dealt by player_{view['dealer']}" if n > 2 else "")
    lines.append(f"- {round_line}; play goes {direction}; the draw pile holds {view['pile']} cards.")
    top = view["top"]
    color = view["color"] or "not named yet"
    if view["phase"] == "color" and view["color"]:
        color += " (until you name the new one)"
    lines.append(
        f"- Top of the discard pile: {top} ({card_words(top, colors)}); active colour: {color}."
        + (f" A Draw Two stack of {view['pending_draw']} cards is pending." if view["pending_draw"] else "")
    )
    score_word = "tally" if batch.rules.scoring == "penalty" else "score"
    show_scores = batch.episode == "match" or any(s["score"] for s in view["seats"])
    for s in view["seats"]:
        who = f"player_{s['seat']}" + (" (you)" if s["you"] else "")
        if s["you"]:
            text = f"your hand ({s['count']} cards): {_cards(s['hand'])}"
        else:
            text = f"{s['count']} cards in hand"
            if s["seat"] in memory["known"]:
                text += f" (you know it holds {_cards(memory['known'][s['seat']])})"
        if s["foreheads"]:
            shown = ["??" if code is None else code for code in s["foreheads"]]
            mine = " (yours are hidden from you)" if s["you"] else ""
            text += f"; forehead cards{mine}: {' '.join(shown)}"
        if show_scores:
            text += f"; {score_word} {s['score']}"
        if s["seat"] in memory["owes_emoji"]:
            text += "; owes the emoji face"
        lines.append(f"- {who}: {text}")
    if memory["recent"]:
        lines.append(
            "- Recent moves this round, oldest first: "
            + "; ".join(f"player_{actor} {action}" for actor, action in memory["recent"])
            + "."
        )
    if memory["drawn"] is not None and view["phase"] == "drawn":
        lines.append(f"- You just drew {memory['drawn']} ({card_words(memory['drawn'], colors)}).")
    lines += ["", PHASE_QUESTIONS.get(view["phase"], "Your decision."), "Your legal moves:"]
    lines += [f"{i}. {move.name}: {move.words}" for i, move in enumerate(moves, 1)]
    ending = f"Choose one move. Think first if you like, then end with a line 'MOVE: <number>' (1 to {len(moves)})."
    lines += ["", ending]
    return "\n".join(_wrapped(line) for line in lines)


def _wrapped(line: str) -> str:
    """A line of the prompt wrapped to `PROMPT_WIDTH` at spaces, the next lines of a list item indented."""
    if len(line) <= PROMPT_WIDTH:
        return line
    indent = "  " if line.startswith("- ") else "   " if re.match(r"\d+\. ", line) else ""
    return textwrap.fill(line, PROMPT_WIDTH, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False)  # fmt: skip


# ------------------------------------------------------------------------------------------------ the parser

# No two adjacent runs that can match the same characters (as `\s*(?:...)?\s*` could): each reads in linear time,
# never backtracking quadratically over a long run of whitespace.
_MARKER = re.compile(r"\b(?:move|answer|choice)(?:\s*(?:number|no\.?|is))?\s*[:=]", re.IGNORECASE)
_REST_NUMBER = re.compile(r"^[\s*_`#(\[]*(?P<n>\d+)(?![\w+])")  # after a marker: "3", "**3**", "3 (play R5)"
_LEADING_NUMBER = re.compile(r"^[\s*_`#(\[]*(?P<n>\d+)[*_`)\]]*\s*(?:[.:)\-]|\n|$)")  # "2", "2. play R5", "**2**"
_SEPARATORS = re.compile(r"[\s_\-]+")


def _normal(text: str) -> str:
    """Lower case, straight quotes, 'colour' as 'color' and one space for runs of spaces, '_' and '-'."""
    text = text.lower().replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')
    return _SEPARATORS.sub(" ", text.replace("colour", "color"))


def _number(text: str, moves: list[Move]) -> tuple[int | None, str]:
    k = int(text) if len(text) <= 6 else 0
    if 1 <= k <= len(moves):
        return moves[k - 1].action, ""
    return None, f"there is no move {text[:12]}: the moves are numbered 1 to {len(moves)}"


def _named(text: str, moves: list[Move]) -> tuple[int | None, str]:
    """The one move named in words in `text` (longest phrases first where they overlap), or None and why."""
    owners: dict[str, list[int]] = {}
    for i, move in enumerate(moves):
        for phrase in move.phrases:
            owners.setdefault(_normal(phrase), []).append(i)  # "skip" names every legal Skip
    phrases = sorted(owners, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w+])(?:" + "|".join(re.escape(p) for p in phrases) + r")(?![\w+])")
    found = list(dict.fromkeys(i for m in pattern.finditer(_normal(text)) for i in owners[m.group(0)]))
    if len(found) == 1:
        return moves[found[0]].action, ""
    if not found:
        return None, "it names no legal move (give its number)"
    named = ", ".join(repr(moves[i].name) for i in found[:6])
    return None, f"it names several moves ({named}): name one"


def read_reply(reply: str, moves: list[Move]) -> tuple[int | None, str]:
    """The action id a reply names among `moves` (see the module docstring), and "" ; or None and why, in one
    line."""
    if not isinstance(reply, str):
        raise TypeError(f"a reply is a str, got {type(reply).__name__}")
    text = reply[-MAX_REPLY_PARSED:].strip()
    if not text:
        return None, "the reply is empty"
    markers = list(_MARKER.finditer(text))
    if markers:
        after = text[markers[-1].end() :].strip()
        rest = after.split("\n", 1)[0]  # the marker's line, or the next one when the marker ends its line
        number = _REST_NUMBER.match(rest)
        if number:
            return _number(number.group("n"), moves)
        if rest.strip():
            return _named(rest, moves)
    number = _LEADING_NUMBER.match(text)
    if number:
        return _number(number.group("n"), moves)
    return _named(text, moves)


def parse(reply: str, game, seat: int, g: int = 0) -> int | None:
    """The action id of the legal move `reply` names for `seat`'s decision in a `Game` (or game `g` of a
    `GameBatch`), or None when it names none (see the module docstring; `read_reply` says why). A ValueError
    unless `seat` decides now; a TypeError for a reply that is not a str."""
    return read_reply(reply, legal_moves(game, seat, g))[0]
