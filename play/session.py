"""One table session under both screens: a person at one seat, agents at the others (`uno-play`, `uno-web`).

`TableSession` seats the agents (by name or as objects), plays their turns one checked decision at a time through
`uno_env.seats.SeatLoop.decide`, applies the person's action after checking it against the legal mask, keeps the
game's record (`uno_env.records`) and reports what happened as plain events (dicts, below). What the person's seat
may see is decided in `uno_env`, never here: the table is `uno_env.render.table_view(game, seat)` and what a careful
player at that seat remembers (the cards it knows others hold, who owes the emoji face, the colour before a Wild
Draw Four, the discard pile) is its own `knowledge` observation (`GameBatch.observe`). The events are made from
those before and after each decision, the public action and the step's public status; never from `describe()`.
The screens only draw: `narration(event)` gives both the same words, as lines of parts a screen may style (`Card`,
`Colour`, `Strong`, `Alarm` are str) and score tables (`ScoreTable`).

Events (``kind`` and its keys; ``seat`` is who acted):

- ``round``: ``round`` (1 for the first), ``dealer``, ``top`` (the first card)
- ``play``: ``card``, ``how`` ("hand", "drawn": the card just drawn, "emoji": put on a Wild Emoji)
- ``keep`` (the person keeps the card it drew; another seat's keep is its secret), ``keep_hand`` (a Swap
  declined), ``no_uno``, ``uno``, ``challenge``, ``accept``, ``color`` and ``give`` (``color``: a colour name)
- ``guess``: ``color``, ``right``, ``card`` (the forehead card when the person may see it, else None)
- ``swap``: ``target``; then ``hand``: ``cards`` (the person's hand, when it took part)
- ``reshuffle``; ``draw``: ``count``, ``cards`` (named for the person only), ``given`` (an Urrrhhh gift);
  ``forehead``: ``cards`` (None for each of the person's own); ``direction``: ``direction`` (+1 left, -1 right)
- ``round_end``: ``seat`` (the round's winner), ``gains`` and ``scores`` (per seat), ``hands`` (per seat, the cards
  laid down face up for the scoring: ``seat``, ``hand`` and ``foreheads`` as codes, the ``points`` they count);
  ``game_over``: ``truncated``, ``winners``, ``scores``; ``illegal``: an agent's refused answer, ``message``
  (the game stops: `problem`)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from uno_env import Game, IllegalActionError
from uno_env import actions as A
from uno_env import cards as C
from uno_env import engine as E
from uno_env import observation as O
from uno_env.agents.registry import can_play, make_agent, own_name
from uno_env.game import DEFAULT_MAX_STEPS, GameBatch
from uno_env.records import make_record, result_of
from uno_env.render import table_view
from uno_env.seats import SeatLoop

#: what the person is asked in each phase
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
KNOWLEDGE = "knowledge"  # the person's observation level: what a careful player at the seat remembers


class Card(str):
    """A card code in a line of narration (a screen may draw it in its colour)."""


class Colour(str):
    """A colour name in a line of narration."""


class Strong(str):
    """Words a screen may emphasise."""


class Alarm(str):
    """A line saying something went wrong."""


Line = list[str]  # parts; joined they are the plain text


@dataclass(frozen=True)
class ScoreTable:
    """A table of scores in the narration: its title and a (seat name, score) row per seat."""

    title: str
    rows: list[tuple[str, int]]

    def text_lines(self) -> list[str]:
        """The table as plain lines: the title, a header, the rows (names left, scores right, two spaces apart)."""
        width = max(len("player"), *(len(name) for name, _ in self.rows))
        digits = max(len("score"), *(len(str(score)) for _, score in self.rows))
        header = f"{'player':<{width}}  {'score':>{digits}}"
        return [self.title, header, *(f"{name:<{width}}  {score:>{digits}}" for name, score in self.rows)]


class ActionRefused(ValueError):
    """The person's action is not one the table takes now (not its decision, not legal, the game over)."""


class TableSession:
    """One game (a round or a match) between a person at `seat` and agents at the other seats.

    `opponents` maps every other seat to (name, agent). `act(action)` applies the person's decision,
    `play_agents()` the agents' turns up to the person's next one, `agent_fallback()` the deciding agent's fallback
    move without asking it (after its model failed); each returns the events of what the person's seat saw.
    `view()` and `knowledge()` are what the seat sees now; `record()` the game so far."""

    def __init__(self, game: Game, seat: int, opponents: dict[int, tuple[str, Any]]):
        n = game.num_players
        if set(opponents) != set(range(n)) - {seat}:
            raise ValueError(f"opponents must name an agent for every seat but {seat} (seats 0..{n - 1})")
        self.game = game
        self.seat = seat
        self.opponents = dict(sorted(opponents.items()))
        self.colors = game.rules.colors
        self.names = game.action_names
        self.knowledge_spec = O.ObservationSpec(KNOWLEDGE, n)
        seats = list(self.opponents)
        self._agent_index = {s: i for i, s in enumerate(seats)}
        self.loop = SeatLoop(game.batch, [self.opponents[s][1] for s in seats], [self.who(s) for s in seats])
        self._one = np.zeros(1, np.int64)
        self.actions: list[int] = []  # every action applied, in order: the game's record
        self.problem: str | None = None  # an agent's illegal answer stops the game
        self._rounds = int(game.batch.state_array["rounds"][0])
        self._cache: dict[str, tuple[bytes, dict[str, Any]]] = {}

    @classmethod
    def deal(
        cls,
        variant: str = "classic",
        players: int = 2,
        seat: int = 0,
        opponents: Sequence[Any] = ("greedy",),
        *,
        seed: int,
        agent_seeds: dict[int, int] | None = None,
        episode: str = "round",
        options: dict[str, Any] | None = None,
        deal: dict | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        trust: bool = False,
    ) -> TableSession:
        """A session from the settings: the game dealt from `seed` (or the scenario `deal`); `opponents` one
        agent (a name or an agent object) for every opponent seat or one per opponent seat in seat order; an
        agent by name is made with `agent_seeds[seat]` (default: uno-play's `seed + seat`). A bad setting raises
        ValueError, a refused agent file what `uno_env.agents.trust.USER_ERRORS` lists."""
        game = Game(variant, players, seed=seed, deal=deal, episode=episode, max_steps=max_steps, **(options or {}))
        others = [s for s in range(players) if s != seat]
        chosen = list(opponents) * len(others) if len(opponents) == 1 else list(opponents)
        if len(chosen) != len(others):
            raise ValueError(f"name one opponent for all {len(others)} opponent seats or one per seat")
        seated = {}
        for s, agent in zip(others, chosen, strict=True):
            if isinstance(agent, str):
                why = can_play(agent, variant, players)  # the catalogue's answer, before the agent is loaded
                if why is not None:
                    raise ValueError(why)
                agent_seed = agent_seeds[s] if agent_seeds is not None else seed + s
                made = make_agent(agent, seed=agent_seed, trust=trust)
                seated[s] = (own_name(agent, made), made)
            else:
                seated[s] = (getattr(agent, "name", type(agent).__name__), agent)
        return cls(game, seat, seated)

    # ------------------------------------------------------------------ what the seat sees
    def _cached(self, what: str, make) -> dict[str, Any]:
        """`make()` once per state of the game (a screen asks for the same view several times a decision)."""
        key = self.game.batch.state_array[0].tobytes()
        cached = self._cache.get(what)
        if cached is None or cached[0] != key:
            cached = self._cache[what] = (key, make())
        return cached[1]

    def view(self) -> dict[str, Any]:
        """The person's seat's `table_view` (shared until the game changes: read it, do not modify it)."""
        return self._cached("view", lambda: table_view(self.game, self.seat))

    def knowledge(self) -> dict[str, Any]:
        """What the person's seat remembers, from its `knowledge` observation: ``known`` (per seat, the cards it
        knows that seat holds; none for its own), ``owes_emoji`` (per seat), ``w4_previous_color`` (the colour
        before the last Wild Draw Four, or None), ``discard`` (the discard pile's card codes) and ``wrong_guesses``
        (for each of the seat's own forehead cards, in the view's order, the colours it guessed wrong for it: what
        it knows the card is not; the observation keeps the oldest `O.WRONG_GUESS_SLOTS`)."""
        return self._cached("knowledge", self._knowledge)

    def _knowledge(self) -> dict[str, Any]:
        n = self.game.num_players
        obs, _ = self.game.batch.observe(0, self.seat, KNOWLEDGE)
        f = self.knowledge_spec.unflatten(obs)
        known = [[] for _ in range(n)]
        owes = [False] * n
        for rel in range(n):
            seat = (self.seat + rel) % n
            owes[seat] = bool(f["emoji_face"][rel])
            if rel:
                known[seat] = self.codes(f["known_cards"][rel])
        before = f["w4_previous_color"]
        own = min(int(f["forehead_counts"][0]), O.WRONG_GUESS_SLOTS)
        wrong = [[self.colors[c] for c in np.flatnonzero(f["wrong_guesses"][slot])] for slot in range(own)]
        return {
            "known": known,
            "owes_emoji": owes,
            "w4_previous_color": self.colors[int(before.argmax())] if before.any() else None,
            "discard": self.codes(f["discard_pile"]),
            "wrong_guesses": wrong,
        }

    def codes(self, counts: np.ndarray) -> list[str]:
        return [C.kind_code(k, self.colors) for k in range(C.NUM_KINDS) for _ in range(int(counts[k]))]

    @property
    def deciding(self) -> bool:
        """Whether the game waits on the person."""
        return not self.game.done and self.problem is None and self.game.seat == self.seat

    def phase(self) -> int:
        """The phase of the person's decision (the seat sees its own phase as it is)."""
        return A.PHASE_NAMES.index(self.view()["phase"])

    def legal(self) -> list[int]:
        """The person's legal action ids now (none when it is not its decision)."""
        return self.game.legal_action_ids() if self.deciding else []

    # ------------------------------------------------------------------ names and words
    def who(self, seat: int, capital: bool = True) -> str:
        if seat == self.seat:
            return "You" if capital else "you"
        return f"{'P' if capital else 'p'}layer {seat} ({self.opponents[seat][0]})"

    def seat_name(self, seat: int) -> str:
        """A seat's name in the tables: "You (player 0)", "Player 1 (greedy)"."""
        return f"You (player {seat})" if seat == self.seat else self.who(seat)

    def slot(self, code: str) -> int:
        """The colour slot of a card code, -1 for a wild card."""
        kind = C.parse_card(code, self.colors)
        return kind // C.RANKS_PER_COLOR if kind < C.NUM_COLORED_KINDS else -1

    def prompt(self) -> str:
        return PHASE_PROMPTS.get(self.phase(), "Your decision.")

    def unplayable_reason(self, code: str) -> str:
        """Why the person cannot play the card `code` from its hand now, in a short line for a screen to say when
        the card is chosen anyway. Whether a card is playable is the engine's legal mask alone; this only says
        why, in the terms the seat sees (the top card, the colour, a waiting draw, the phase)."""
        view = self.view()
        if view["done"]:
            return "The game is over."
        if not self.deciding:
            return f"Wait: it is {self.who(view['deciding'], False)}'s turn." if self.problem is None else self.problem
        phase = self.phase()
        if phase == A.PHASE_DRAWN:
            return "Only the card you just drew may be played now; or keep it."
        if phase == A.PHASE_EMOJI:
            return f"{code} cannot go on the Wild Emoji."
        if phase != A.PHASE_PLAY:
            return f"Not now. {self.prompt()}"
        if view["pending_draw"]:
            return f"{view['pending_draw']} cards wait to be drawn: stack a card the rules allow on them, or draw."
        if self.slot(code) < 0:
            return f"{code} cannot be played now."
        return f"{code} matches neither the colour ({view['color']}) nor the top card ({view['top']})."

    def label(self, action: int, view: dict[str, Any] | None = None, known: dict[str, Any] | None = None) -> Line:
        """What a legal action of the person's decision does, as parts."""
        view = view or self.view()
        phase = A.PHASE_NAMES.index(view["phase"])
        name = self.names[action]
        if action < C.NUM_KINDS:
            code = Card(name.split()[1])
            if phase == A.PHASE_DRAWN:
                return ["play ", code, " (the card you drew)"]
            if phase == A.PHASE_EMOJI:
                return ["put ", code, " on the Wild Emoji"]
            return ["play ", code]
        if action == A.DRAW:
            pending = view["pending_draw"]
            return [f"take the {pending} cards of the Draw Two stack" if pending else "draw a card"]
        if action == A.PASS:
            return [{A.PHASE_DRAWN: "keep it", A.PHASE_SWAP: "keep your hand",
                     A.PHASE_UNO: "don't call UNO"}.get(phase, "pass")]  # fmt: skip
        if A.COLOR_BASE <= action < A.COLOR_BASE + C.NUM_COLORS:
            color = Colour(self.colors[action - A.COLOR_BASE])
            if phase == A.PHASE_GUESS:
                return ["guess ", color]
            if phase == A.PHASE_GIVE:
                own = view["seats"][self.seat]["hand"]
                held = sum(self.slot(code) == action - A.COLOR_BASE for code in own)
                return ["give away your ", color, f" cards ({held})"]
            return [color]
        if action == A.CHALLENGE:
            before = (known or self.knowledge())["w4_previous_color"]
            hint = f" (it came on {before})" if before else ""
            return [f"challenge: it was played holding the colour before it{hint}"]
        if action == A.ACCEPT:
            return ["accept: draw 4 and lose your turn"]
        if A.SWAP_BASE < action < A.UNO:
            target = (self.seat + action - A.SWAP_BASE) % self.game.num_players
            return [f"swap hands with {self.who(target, False)}, {view['seats'][target]['count']} cards"]
        if action == A.UNO:
            return ["call UNO!"]
        return [name]

    # ------------------------------------------------------------------ decisions
    def opening(self) -> list[dict[str, Any]]:
        """The event of the round being dealt (said when the session starts)."""
        return [self._round_event(self.view())]

    def act(self, action: int) -> list[dict[str, Any]]:
        """Apply the person's action id; refused (ActionRefused, nothing changed) unless it is the person's
        decision and the id is legal now."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise ActionRefused(f"an action is an id from 0 to {A.NUM_ACTIONS - 1}, got {action!r}")
        action = int(action)
        if not 0 <= action < A.NUM_ACTIONS:
            raise ActionRefused(f"an action id is from 0 to {A.NUM_ACTIONS - 1}, got {action}")
        if self.game.done:
            raise ActionRefused("the game is over: start a new game")
        if self.problem is not None:
            raise ActionRefused(self.problem)
        if self.game.seat != self.seat:
            raise ActionRefused(f"it is not your decision but player {self.game.seat}'s")
        legal = self.game.legal_action_ids()
        if action not in legal:
            names = ", ".join(self.names[a] for a in legal)
            refused = f"{self.names[action]!r} (id {action}) is not legal now"
            raise ActionRefused(f"{refused}; the legal actions are: {names}")
        return self._apply(self.seat, action)

    def agent_step(self) -> list[dict[str, Any]]:
        """One agent's decision (the seat that decides now), checked by the seat loop and applied."""
        seat = self.game.seat
        try:
            action = int(self.loop.decide(self._agent_index[seat], self._one)[0])
        except (IllegalActionError, TypeError, ValueError) as error:
            message = str(error).removeprefix(f"{self.who(seat)}: ")
            self.problem = f"{self.who(seat)} chose an illegal action; the game stopped"
            return [{"kind": "illegal", "seat": seat, "message": message}]
        return self._apply(seat, action)

    def agent_fallback(self) -> list[dict[str, Any]]:
        """Play the deciding agent's fallback move without asking it (its model failed and the person chose to go
        on): its own counted fallback where it has one (`TextAgent.play_fallback`), else the legal action with the
        lowest id. ActionRefused when no agent decides now."""
        if not self.agent_due:
            raise ActionRefused("no agent decides now")
        seat = self.game.seat
        fallback = getattr(self.opponents[seat][1], "play_fallback", None)
        action = int(fallback(self.game, seat)) if callable(fallback) else min(self.game.legal_action_ids())
        if action not in self.game.legal_action_ids():
            self.problem = f"{self.who(seat)} chose an illegal action; the game stopped"
            return [{"kind": "illegal", "seat": seat, "message": f"its fallback {action} is not legal"}]
        return self._apply(seat, action)

    @property
    def agent_due(self) -> bool:
        """Whether an agent decides now (the game goes on, no agent failed, and it is not the person's decision)."""
        return not self.game.done and self.problem is None and self.game.seat != self.seat

    def play_agents(self) -> list[dict[str, Any]]:
        """The agents' turns until the person decides, the game ends or an agent fails."""
        events = []
        while self.agent_due:
            events += self.agent_step()
        return events

    def _apply(self, seat: int, action: int) -> list[dict[str, Any]]:
        before, known_before = self.view(), self.knowledge()
        phase = A.PHASE_NAMES.index(self.game.phase)  # the actor's; its action shows it (a drawn card played)
        # a match deals the next round in the step that ends one: keep the state to see the hands it scored
        state_before = self.game.batch.state_array.copy() if self.game.batch.episode == "match" else None
        status = self.game.batch.step_game(0, action).copy()
        self.actions.append(action)
        after = self.view()
        rounds, self._rounds = self._rounds, int(status[E.STATUS_ROUNDS])
        new_round = self._rounds > rounds
        events = self._action_events(seat, action, phase, before, after, known_before, new_round)
        if new_round:
            gains = [b["score"] - a["score"] for a, b in zip(before["seats"], after["seats"], strict=True)]
            events.append({"kind": "round_end", "seat": int(status[E.STATUS_ROUND_WINNER]), "gains": gains,
                           "scores": [s["score"] for s in after["seats"]],
                           "hands": self._scored_hands(state_before, action)})  # fmt: skip
            if not after["done"]:
                events.append(self._round_event(after))
        if after["done"]:
            events.append({"kind": "game_over", "truncated": after["truncated"], "winners": list(after["winners"]),
                           "scores": [s["score"] for s in after["seats"]]})  # fmt: skip
        return events

    def _scored_hands(self, state_before: np.ndarray | None, action: int) -> list[dict[str, Any]]:
        """Every seat's cards as the round that just ended scored them, laid down face up (the rules show them to
        the table for the scoring): a spectator's `table_view` of the round's end, each seat with the ``points``
        its hand and forehead cards count. When the game is over that end is the game as it is; a match has already
        dealt the next round, so the same action is replayed on a copy of the state before it that ends there
        (the engine plays it: its config differs only in dealing no next round)."""
        game = self.game
        if game.done or state_before is None:
            view = table_view(game, None)
        else:
            ended = GameBatch(game.rules, game.num_players, 1, episode="round",
                              max_steps=int(game.batch.config["max_steps"][0]))  # fmt: skip
            ended.state_array[:] = state_before
            ended.episode_seeds[:] = game.batch.episode_seeds
            ended.step_game(0, action)
            view = table_view(ended, None)
        points = game.rules.card_points_by_code()
        return [{"seat": seat["seat"], "hand": list(seat["hand"]), "foreheads": list(seat["foreheads"]),
                 "points": sum(points[code] for code in [*seat["hand"], *seat["foreheads"]])}
                for seat in view["seats"]]  # fmt: skip

    def _round_event(self, view: dict[str, Any]) -> dict[str, Any]:
        return {"kind": "round", "round": view["round"], "dealer": view["dealer"], "top": view["top"]}

    def _action_events(self, seat, action, phase, before, after, known_before, new_round) -> list[dict[str, Any]]:
        """What the table saw of one decision: the action (never a drawn card's identity) and its visible effects."""
        event: dict[str, Any] | None = {"seat": seat}
        you = seat == self.seat
        if action < C.NUM_KINDS:
            how = {A.PHASE_EMOJI: "emoji", A.PHASE_DRAWN: "drawn"}.get(phase, "hand")
            event.update(kind="play", card=self.names[action].split()[1], how=how)
        elif action == A.PASS and phase == A.PHASE_DRAWN:
            event = {"seat": seat, "kind": "keep"} if you else None  # another seat's keep is its secret
        elif action == A.PASS and phase in (A.PHASE_SWAP, A.PHASE_UNO):
            event.update(kind="keep_hand" if phase == A.PHASE_SWAP else "no_uno")
        elif A.COLOR_BASE <= action < A.COLOR_BASE + C.NUM_COLORS:
            color = self.colors[action - A.COLOR_BASE]
            if phase == A.PHASE_GUESS:
                event.update(self._guess(seat, before, after, known_before, new_round), kind="guess", color=color)
            else:
                event.update(kind="give" if phase == A.PHASE_GIVE else "color", color=color)
        elif action in (A.CHALLENGE, A.ACCEPT):
            event.update(kind="challenge" if action == A.CHALLENGE else "accept")
        elif A.SWAP_BASE < action < A.UNO:
            target = (seat + action - A.SWAP_BASE) % self.game.num_players
            events = [{"kind": "swap", "seat": seat, "target": target}]
            if self.seat in (seat, target):
                events.append({"kind": "hand", "cards": list(after["seats"][self.seat]["hand"])})
            return events
        elif action == A.UNO:
            event.update(kind="uno")
        else:
            event = None  # a draw, or a pass: its effects tell it
        events = [{"kind": event.pop("kind"), **event}] if event is not None else []
        if not new_round or after["done"]:  # not across a new deal
            events += self._changes(phase, before, after)
        return events

    def _guess(self, seat, before, after, known_before, new_round) -> dict[str, Any]:
        old = before["seats"][seat]["foreheads"]
        right = new_round or len(after["seats"][seat]["foreheads"]) < len(old)
        card = old[0]  # another seat's forehead card: the person sees it
        if seat == self.seat:
            card = None
            if right and not (new_round and not after["done"]):  # under the discard pile, face up (not redealt)
                shown = Counter(self.knowledge()["discard"]) - Counter(known_before["discard"])
                card = next(iter(shown), None)
        return {"right": right, "card": card}

    def _changes(self, phase: int, before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
        """Card counts, forehead cards, direction and draw pile as the person's seat sees them change."""
        events = []
        if after["pile"] > before["pile"]:
            events.append({"kind": "reshuffle"})
        for seat, (old, new) in enumerate(zip(before["seats"], after["seats"], strict=True)):
            if phase == A.PHASE_SWAP:
                break
            gained = new["count"] - old["count"]
            if gained > 0:
                cards = []
                if seat == self.seat:
                    drawn = Counter(new["hand"]) - Counter(old["hand"])
                    cards = sorted(drawn.elements(), key=lambda code: C.parse_card(code, self.colors))
                events.append({"kind": "draw", "seat": seat, "count": gained, "cards": cards,
                               "given": phase == A.PHASE_GIVE})  # fmt: skip
            if len(new["foreheads"]) > len(old["foreheads"]):
                events.append({"kind": "forehead", "seat": seat, "cards": new["foreheads"][len(old["foreheads"]) :]})
        if after["direction"] != before["direction"]:
            events.append({"kind": "direction", "direction": after["direction"]})
        return events

    # ------------------------------------------------------------------ the narration
    def narration(self, event: dict[str, Any]) -> list[Line | ScoreTable]:
        """The narration of an event, the same on every screen, in order: lines of parts and score tables."""
        lines: list[Line | ScoreTable] = list(self.lines(event))
        table = self.scores(event)
        if table is not None:
            match = self.game.batch.episode == "match"
            final = event["kind"] == "game_over" and match and not event["truncated"]
            lines = [table, *lines] if final else [*lines, table]
        return lines

    def lines(self, event: dict[str, Any]) -> list[Line]:
        """The lines of an event's narration, as parts (without its score table)."""
        kind = event["kind"]
        seat = event.get("seat")
        you = seat == self.seat
        who = self.who(seat) if seat is not None else ""

        def verb(mine: str, its: str) -> str:
            return mine if you else its

        if kind == "round":
            dealer = event["dealer"]
            deals = f"{self.who(dealer)} deal" + ("" if dealer == self.seat else "s")
            return [[Strong(f"Round {event['round']}: "), deals, "; the first card is ", Card(event["top"]), "."]]
        if kind == "play":
            card = Card(event["card"])
            if event["how"] == "emoji":
                return [[who, verb(" put ", " puts "), card, " on the Wild Emoji"]]
            if event["how"] == "drawn":
                return [[who, verb(" play ", " plays "), "the drawn card ", card]]
            return [[who, verb(" play ", " plays "), card]]
        if kind == "keep":
            return [["You keep it"]]
        if kind == "keep_hand":
            return [[who, verb(" keep your hand", " keeps its hand")]]
        if kind == "no_uno":
            return [[who, verb(" don't call UNO", " does not call UNO")]]
        if kind == "guess":
            line = [who, verb(" guess ", " guesses "), Colour(event["color"]), " for ", verb("your", "its"),
                    " forehead card"]  # fmt: skip
            if not you:
                line += [" ", Card(event["card"])]
            if not event["right"]:
                return [line + [": wrong, the turn ends"]]
            reveal = [", it was ", Card(event["card"])] if you and event["card"] else []
            return [line + [": right", *reveal, "; it goes under the discard pile"]]
        if kind == "give":
            return [[who, verb(" give away ", " gives away "), "every ", Colour(event["color"]), " card"]]
        if kind == "color":
            return [[who, verb(" name ", " names "), Colour(event["color"])]]
        if kind in ("challenge", "accept"):
            return [[who, f" {kind}" if you else f" {kind}s", " the Wild Draw Four"]]
        if kind == "swap":
            return [[who, verb(" swap", " swaps"), f" hands with {self.who(event['target'], False)}"]]
        if kind == "hand":
            return [["Your hand is now ", *self.card_parts(event["cards"])]]
        if kind == "uno":
            return [[who, verb(" call", " calls"), Strong(" UNO!")]]
        if kind == "reshuffle":
            return [["The discard pile is shuffled into a new draw pile."]]
        if kind == "draw":
            action = "receive" if event["given"] else "draw"
            if you:
                return [[f"You {action} ", *self.card_parts(event["cards"])]]
            count = event["count"]
            return [[who, f" {action}s " + ("a card" if count == 1 else f"{count} cards")]]
        if kind == "forehead":
            shown = [" ".join(["??"] * len(event["cards"]))] if you else self.card_parts(event["cards"])
            return [[who, verb(" get", " gets"), " a forehead card: ", *shown]]
        if kind == "direction":
            return [["Play now goes to the ", "left" if event["direction"] == 1 else "right", "."]]
        if kind == "round_end":
            winner, gains = event["seat"], event["gains"]
            if self.game.rules.scoring == "penalty":
                detail = ", ".join(f"{self.who(s, False)} +{g}" for s, g in enumerate(gains))
                return [[Strong(f"{self.who(winner)} {'go' if winner == self.seat else 'goes'} out!"),
                         f" Points left in the hands, added to each tally: {detail}."]]  # fmt: skip
            mine = winner == self.seat
            return [[Strong(f"{self.who(winner)} {'win' if mine else 'wins'} the round"),
                     f" and {'score' if mine else 'scores'} {gains[winner]} points."]]  # fmt: skip
        if kind == "game_over":
            if event["truncated"]:
                return [[Strong("The game was cut off: it reached its step limit.")]]
            return [[Strong(self.outcome(event["winners"]))]]
        if kind == "illegal":
            return [[Alarm(f"{who} chose an illegal action: {event['message']}")]]
        raise ValueError(f"no narration for an event of kind {kind!r}")

    def card_parts(self, codes: list[str]) -> Line:
        """Card codes separated by spaces, "-" for none."""
        if not codes:
            return ["-"]
        parts: Line = []
        for i, code in enumerate(codes):
            parts += [" ", Card(code)] if i else [Card(code)]
        return parts

    def outcome(self, winners: list[int]) -> str:
        """Who won the game, said to the person."""
        match = self.game.batch.episode == "match"
        if self.seat in winners:
            return "You win the match!" if match else "You win!"
        text = ", ".join(self.who(w) for w in winners) + (" wins" if len(winners) == 1 else " win")
        return text + (" the match." if match else ".")

    def scores(self, event: dict[str, Any]) -> ScoreTable | None:
        """The score table an event shows, if any."""
        match = self.game.batch.episode == "match"
        if event["kind"] == "round_end":
            title = "Scores" if match else "Round scores"
        elif event["kind"] == "game_over" and (event["truncated"] or match):
            title = "Scores" if event["truncated"] else "Final scores"
        else:
            return None
        return ScoreTable(title, [(self.seat_name(s), score) for s, score in enumerate(event["scores"])])

    # ------------------------------------------------------------------ the record
    def record(self, seed: int, deal: dict | None = None, human: str = "human", source: str = "uno-play") -> dict:
        """The game so far as a game record (`uno_env.records`): `seed` and `deal` are the ones it was dealt
        with; the person's seat is named `human`, the others by their agents."""
        game = self.game
        agents = [human if s == self.seat else self.opponents[s][0] for s in range(game.num_players)]
        return make_record(
            game.rules, game.num_players, self.actions, seed=seed, deal=deal, episode=game.batch.episode,
            max_steps=int(game.batch.config["max_steps"][0]), agents=agents, result=result_of(game),
            meta={"source": source, "human_seat": self.seat},
        )  # fmt: skip


def plain(line: Line) -> str:
    """A line of narration as plain text."""
    return "".join(line)
