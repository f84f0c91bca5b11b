"""The Python face of the engine: `GameBatch` (many games stepped in one compiled call) and `Game` (one).

Both are views of the compiled engine in `engine.py`; neither implements a rule. `GameBatch` works in
action ids and numpy arrays; `Game` adds action names and card codes for scenarios, tests and notebooks.

A dealt scenario (``deal=``) is a dict:

| key         | value                                                                  |
|-------------|------------------------------------------------------------------------|
| `dealer`    | the dealer's seat                                                      |
| `hands`     | one list of card codes per seat                                        |
| `top`       | the first discard card, its first-card effect applies (optional: else turned from `deck`) |
| `deck`      | the top of the draw pile, in order, top first (optional)               |
| `foreheads` | optional: one list of forehead card codes per seat, oldest first       |
| `scores`    | optional: the match scores (or penalty tallies) to start from          |

Cards of the deck not placed go below the placed ones in seeded random order.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from . import actions as A
from . import cards as C
from . import engine as E
from . import observation as O
from . import validate as V
from .rules import OPTIONS, RuleSet, make_rules
from .validate import DEAL_KEYS, EPISODES, MAX_STEPS_LIMIT, IllegalActionError

DEFAULT_MAX_STEPS = 10_000
MAX_DEAL_SCORE = 1_000_000_000  # a dealt match score (the engine adds round points to it in an int32)
NO_ACTION = -1  # in GameBatch.step: leave this game as it is

INVARIANT_MESSAGES = {
    E.BAD_CARD_COUNT: "the cards in draw pile, discard pile, hands and foreheads do not match the deck",
    E.NEGATIVE_COUNT: "a negative count",
    E.BAD_SEAT: "a seat outside the game",
    E.BAD_PHASE: "an unknown phase, or `done` disagrees with the phase",
    E.NO_LEGAL_ACTION: "the deciding seat has no legal action",
    E.BAD_PILE: "a pile of impossible size",
    E.BAD_COLOR: "no active colour while playing",
    E.SCORE_DECREASED: "a score went down",
    E.PHANTOM_KNOWLEDGE: "a seat 'knows' of cards another seat does not hold",
}

RESAMPLE_MESSAGES = {
    E.RESAMPLE_OVER: "the episode is over",
    E.RESAMPLE_UNFIT: "no shuffle fitted the seat's forehead cards to the colours it guessed wrong",
    E.RESAMPLE_VOIDS_UNMET: "no redeal kept every seat clear of the coloured cards it showed it lacked",
}


def make_config(rules: RuleSet, num_players: int, episode: str = "round", max_steps: int = DEFAULT_MAX_STEPS):
    """The engine's config record for a rule set, player count and episode kind.

    Whatever was done to the rule set since it was made, it is checked again here, with what only a game can
    check: a ValueError refuses a rule set the engine cannot play (see `check_dealer_draw`)."""
    if not isinstance(rules, RuleSet):
        raise V.WrongTypeError(f"rules must be a RuleSet (see make_rules), got {type(rules).__name__}")
    rules.check_playable(num_players)
    check_dealer_draw(rules)
    if not isinstance(episode, str) or episode not in EPISODES:
        raise ValueError(f"episode must be one of {', '.join(map(repr, EPISODES))}, got {episode!r}")
    max_steps = V.positive_int(max_steps, "max_steps", MAX_STEPS_LIMIT)
    config = np.zeros(1, E.CONFIG_DTYPE)
    for option in OPTIONS:  # one config field per rule option, of the same name
        config[0][option.name] = option.engine_value(getattr(rules, option.name))
    config[0]["num_players"] = int(num_players)
    config[0]["deck_size"] = rules.deck_size
    config[0]["match"] = episode == "match"
    config[0]["max_steps"] = max_steps
    return config.view(np.recarray)


def check_dealer_draw(rules: RuleSet) -> None:
    """Refuse a deck whose cards all count the same in the draw for the deal (`engine.dealer_draw_value`):
    players tied there draw again, so that draw would never end."""
    values = sorted({int(E.dealer_draw_value(kind)) for kind, count in enumerate(rules.card_counts) if count})
    if len(values) < 2:
        raise ValueError(
            f"card_counts make a deck whose cards all count {values[0] if values else 0} in the draw for the deal "
            "(a number counts its rank, an action or wild card 0), so players tied there would draw again forever: "
            "the deck needs cards of at least two different values (two different numbers, or a number from 1 to 9 "
            "and any other card)"
        )


def _resolve_rules(rules: RuleSet | str | None, options: dict[str, Any]) -> RuleSet:
    if isinstance(rules, RuleSet):
        if options:
            raise ValueError("pass rule options either inside the RuleSet or as keywords with a variant name, not both")
        return rules
    return make_rules(rules or "classic", **options)


class GameBatch:
    """`batch_size` games of one rule set and player count, stepped together by the compiled engine.

    Arrays (one entry per game): `phase`, `seat` (whose decision), `done`, `truncated`, `scores`,
    `winners`; `legal_masks()` gives the (batch, NUM_ACTIONS) legal-action mask. `state` is the full
    engine state (see `engine.STATE_DTYPE`).
    """

    def __init__(
        self,
        rules: RuleSet | str | None = "classic",
        num_players: int = 2,
        batch_size: int = 1,
        *,
        episode: str = "round",
        max_steps: int = DEFAULT_MAX_STEPS,
        **options: Any,
    ):
        batch_size = V.positive_int(batch_size, "batch_size")
        self.rules = _resolve_rules(rules, options)
        self.config = make_config(self.rules, num_players, episode, max_steps)
        self.num_players = int(num_players)
        self.episode = episode
        self.batch_size = batch_size
        self.state = np.zeros(batch_size, E.STATE_DTYPE).view(np.recarray)
        self.masks = np.zeros((batch_size, A.NUM_ACTIONS), np.uint8)
        self.action_names = A.action_names(self.rules.colors)
        self.codes = self.rules.codes
        self._all = np.ones(batch_size, np.bool_)
        self.episode_seeds = np.zeros(batch_size, np.uint64)  # the seed each game's episode started from
        self.status = np.zeros(E.STATUS_SIZE, np.int64)  # written by step_game
        self._observation_specs: dict[str, O.ObservationSpec] = {}  # the levels observe() was asked for
        self._bind_views()

    def _bind_views(self) -> None:
        """(Re)make the views of `state` and `config`, so that they share its memory (after a copy or unpickling)."""
        # Plain-ndarray views for the compiled entry points (numba reads them faster than recarrays).
        self.state_array = self.state.view(np.ndarray)
        self.config_array = self.config.view(np.ndarray)
        self._discard_len = self.state_array["discard_len"]  # field views: a game never reset has no discard
        self._done = self.state_array["done"]

    def __getstate__(self) -> dict[str, Any]:
        """Pickling and deep copies keep `state` and `config` once; `__setstate__` makes their views again."""
        state = self.__dict__.copy()
        for view in ("state_array", "config_array", "_discard_len", "_done"):
            state.pop(view, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_observation_specs", {})  # a batch pickled before observe() existed
        self._bind_views()

    # ------------------------------------------------------------------ episodes
    def reset(self, seeds: int | Sequence[int] | np.ndarray = 0) -> None:
        """New episodes in every game: game g gets seeds[g] (an int seed gives seed + g, modulo 2**64)."""
        self.episode_seeds[:] = V.seeds(seeds, self.batch_size)
        E.reset_games(self.state_array, self.config_array, self.episode_seeds, self._all)

    def reset_where(self, which: np.ndarray, seeds: int | Sequence[int] | np.ndarray) -> None:
        """New episodes only in the games g with which[g] (a bool array), from seeds[g]."""
        which = V.game_mask(which, self.batch_size)
        seeds = V.seeds(seeds, self.batch_size)
        self.episode_seeds[which] = seeds[which]
        E.reset_games(self.state_array, self.config_array, seeds, which)

    def reset_game(self, g: int, seed: int = 0, deal: dict | None = None) -> None:
        """A new episode in game g: a shuffled deal from `seed`, or the dealt scenario `deal`. A refused deal
        changes nothing."""
        g = V.index(g, self.batch_size)
        seed = V.seed(seed)
        if deal is None:
            which = np.zeros(self.batch_size, np.bool_)
            which[g] = True
            seeds = np.zeros(self.batch_size, np.uint64)
            seeds[g] = np.uint64(seed)
            self.episode_seeds[g] = np.uint64(seed)
            E.reset_games(self.state_array, self.config_array, seeds, which)
            return
        args = self._parse_deal(deal)
        self.episode_seeds[g] = np.uint64(seed)
        E.setup_dealt(self.state_array, self.config_array, g, np.uint64(seed), *args)

    def _require_reset(self, games: np.ndarray | None = None) -> None:
        """Refuse to play games never reset (their state is all zeros: no cards dealt)."""
        never = (self._discard_len == 0) & (self._done == 0)
        if games is not None:
            never = never[games]
        if never.any():
            first = int(np.flatnonzero(never)[0])
            g = int(games[first]) if games is not None else first
            raise V.NotResetError(
                f"game {g} was never reset: call reset(), reset_where() or reset_game() before playing it"
            )

    def _parse_deal(self, deal: dict):
        if not isinstance(deal, dict):
            raise ValueError(f"deal must be a dict with keys {', '.join(DEAL_KEYS)}, got {type(deal).__name__}")
        unknown = sorted(set(deal) - set(DEAL_KEYS))
        if unknown:
            raise ValueError(f"unknown deal key(s) {', '.join(unknown)}; the keys are {', '.join(DEAL_KEYS)}")
        for key in ("dealer", "hands"):
            if key not in deal:
                raise ValueError(f"a deal needs '{key}'; the keys are {', '.join(DEAL_KEYS)}")
        n = self.num_players
        dealer = V.integral(deal["dealer"])
        if dealer is None or not 0 <= dealer < n:
            raise ValueError(f"deal['dealer'] must be a seat from 0 to {n - 1}, got {deal['dealer']!r}")
        colors = self.rules.colors
        used: Counter[int] = Counter()

        def parse_per_seat(key: str) -> list[list[int]]:
            value = deal.get(key, [[] for _ in range(n)])
            if not isinstance(value, (list, tuple)) or len(value) != n:
                raise ValueError(f"deal['{key}'] must be a list of {n} lists of card codes (one per seat)")
            per_seat = []
            for seat_cards in value:
                if not isinstance(seat_cards, (list, tuple)):
                    raise ValueError(f"deal['{key}'] must be a list of {n} lists of card codes (one per seat)")
                per_seat.append([C.parse_card(code, colors) for code in seat_cards])
            return per_seat

        hands = parse_per_seat("hands")
        foreheads = parse_per_seat("foreheads")
        deck_codes = deal.get("deck", [])
        if not isinstance(deck_codes, (list, tuple)):
            raise ValueError("deal['deck'] must be a list of card codes, top first")
        deck = [C.parse_card(code, colors) for code in deck_codes]
        top_first = ([C.parse_card(deal["top"], colors)] if deal.get("top") is not None else []) + deck
        hand_array = np.zeros((E.MAX_PLAYERS, C.NUM_KINDS), np.int8)
        for seat, kinds in enumerate(hands):
            for kind in kinds:
                hand_array[seat, kind] += 1
                used[kind] += 1
        fh_cards, fh_seats = [], []
        for seat, kinds in enumerate(foreheads):
            for kind in kinds:
                fh_cards.append(kind)
                fh_seats.append(seat)
                used[kind] += 1
        used.update(top_first)
        for kind, count in sorted(used.items()):
            if count > self.rules.card_counts[kind]:
                raise ValueError(
                    f"the deal places {count} copies of {self.codes[kind]}, but this rule set's deck holds "
                    f"{self.rules.card_counts[kind]}"
                )
        empty = [seat for seat in range(n) if not hands[seat] and not foreheads[seat]]
        if empty:
            raise ValueError(
                f"deal['hands'] gives seat {empty[0]} no card: every seat must hold at least one card (in its hand, "
                "or on its forehead)"
            )
        rest = [k for k in range(C.NUM_KINDS) for _ in range(self.rules.card_counts[k] - used[k])]
        playable_first = [k for k in top_first + rest if k != C.WILD_DRAW_FOUR]
        if not playable_first:
            raise ValueError("the deal leaves no card other than Wild Draw Four to turn as the first card")
        scores = deal.get("scores", [0] * n)
        if (
            not isinstance(scores, (list, tuple))
            or len(scores) != n
            or not all(V.integral(x) is not None and 0 <= V.integral(x) <= MAX_DEAL_SCORE for x in scores)
        ):
            raise ValueError(f"deal['scores'] must be a list of {n} ints from 0 to {MAX_DEAL_SCORE:_}")
        scores = [int(x) for x in scores]
        return (
            dealer,
            hand_array,
            np.array(fh_cards, np.uint8),
            np.array(fh_seats, np.int8),
            np.array(top_first, np.uint8),
            np.array(rest, np.uint8),
            np.array(scores, np.int32),
        )

    # ------------------------------------------------------------------ stepping
    def legal_masks(self) -> np.ndarray:
        """The legal-action mask of every game's deciding seat (all zeros for a finished game)."""
        E.fill_masks(self.state_array, self.config_array, self.masks)
        return self.masks

    def step(self, actions: Sequence[int] | np.ndarray) -> None:
        """Apply one action id per game (NO_ACTION leaves a game as it is).

        If any action is illegal, an IllegalActionError names it, its game and phase, and no game changes.
        """
        actions = V.action_batch(actions, self.batch_size, noop=True)
        active = actions != NO_ACTION
        self._require_reset(np.flatnonzero(active))
        if active.all():
            bad = E.first_illegal(self.state_array, self.config_array, actions)
            if bad >= 0:
                raise IllegalActionError(self.illegal_message(bad, int(actions[bad])))
            E.apply_actions(self.state_array, self.config_array, actions)
            return
        index = np.flatnonzero(active)
        sub = self.state_array[index]
        bad = E.first_illegal(sub, self.config_array, actions[index])
        if bad >= 0:
            raise IllegalActionError(self.illegal_message(int(index[bad]), int(actions[index[bad]])))
        E.apply_actions(sub, self.config_array, actions[index])
        self.state_array[index] = sub

    def step_game(self, g: int, action: int) -> np.ndarray:
        """Apply one action id to game g alone (the fast path for one game at a time).

        Returns the game's status afterwards (`engine.STATUS_*`: seat, done, truncated, rounds, ...).
        """
        g = V.index(g, self.batch_size)
        action = V.action_id(action)
        if self._discard_len[g] == 0 and not self._done[g]:
            self._require_reset(np.array([g]))
        if not E.step_one(self.state_array, self.config_array, g, action, self.status):
            raise IllegalActionError(self.illegal_message(g, action))
        return self.status

    def illegal_message(self, g: int, action: int) -> str:
        """Why `action` is refused in game g, in one line: the action, the game, its phase and seat, and the
        legal actions there (what every face's IllegalActionError says)."""
        name = self.action_names[action] if 0 <= action < A.NUM_ACTIONS else f"id {action}"
        phase = A.PHASE_NAMES[self.state.phase[g]]
        mask = np.zeros((1, A.NUM_ACTIONS), np.uint8)
        E.fill_masks(self.state_array[g : g + 1], self.config_array, mask)
        legal = ", ".join(self.action_names[a] for a in np.flatnonzero(mask[0])) or "none (the episode is over)"
        where = f" in game {g}" if self.batch_size > 1 else ""
        return f"illegal action {name!r}{where} in phase {phase!r} (seat {self.state.seat[g]}); legal: {legal}"

    _illegal_message = illegal_message  # the old private name, kept for one release

    def play_random(self, steps: int, agent_seed: int | np.ndarray = 0, validate: bool = False) -> int:
        """Every game takes `steps` uniformly random legal actions inside compiled code; finished games
        start their next episode (seeded from their last one). `agent_seed` seeds the random choices
        (an int gives game g the seed agent_seed + g). Returns the episodes finished. With `validate`,
        the invariants are checked after every step and a failure raises AssertionError.
        """
        steps = V.positive_int(steps, "steps", MAX_STEPS_LIMIT)
        agent_rng = V.seeds(agent_seed, self.batch_size, "agent_seed")
        if not isinstance(validate, (bool, np.bool_)):
            raise V.WrongTypeError(f"validate must be True or False, got {validate!r}")
        self._require_reset()
        errors = np.zeros(self.batch_size, np.int64)
        finished = E.random_play(
            self.state_array, self.config_array, steps, self.episode_seeds, agent_rng, validate, errors
        )
        bad = np.flatnonzero(errors)
        if bad.size:
            self._raise_invariant(int(bad[0]), int(errors[bad[0]]))
        return int(finished)

    # ------------------------------------------------------------------ reading
    @property
    def phase(self) -> np.ndarray:
        return self.state.phase

    @property
    def seat(self) -> np.ndarray:
        return self.state.seat

    @property
    def done(self) -> np.ndarray:
        return self.state.done

    @property
    def truncated(self) -> np.ndarray:
        return self.state.truncated

    @property
    def scores(self) -> np.ndarray:
        return self.state.scores[:, : self.num_players]

    @property
    def winners(self) -> np.ndarray:
        return self.state.winners[:, : self.num_players]

    def observe(self, g: int, seat: int, level: str = "knowledge") -> tuple[np.ndarray, np.ndarray]:
        """Seat `seat`'s observation of game g at `level` ("minimal", "knowledge" or "seer") and its legal-action
        mask, as new int8 arrays (the mask is all zeros unless the seat decides): the encoder's answer for one
        seat, deciding or not."""
        g = V.index(g, self.batch_size)
        seat = V.index(seat, self.num_players, "seat")
        spec = self._observation_specs.get(level)
        if spec is None:
            spec = self._observation_specs[level] = O.ObservationSpec(level, self.num_players)  # refuses a bad level
        observation = np.empty(spec.size, np.int8)
        mask = np.empty(A.NUM_ACTIONS, np.int8)
        O.observe_one(self.state_array, self.config_array, g, seat, spec.index, spec.offsets, observation, mask)
        return observation, mask

    def check(self, g: int) -> None:
        """Raise AssertionError if game g breaks an invariant (every card in exactly one place, ...)."""
        g = V.index(g, self.batch_size)
        code = E.check_one(self.state_array, self.config_array, g)
        if code != E.OK:
            self._raise_invariant(g, code)

    def _raise_invariant(self, g: int, code: int) -> None:
        raise AssertionError(f"game {g}: {INVARIANT_MESSAGES[code]}: {self.describe(g)}")

    def copy(self) -> GameBatch:
        """An independent copy of every game (states and seeds): for search, stepping it leaves this batch as it
        was. Rules and config are shared; they never change."""
        other = copy.copy(self)
        other.state = self.state.view(np.uint8).copy().view(self.state.dtype)  # bytes: 10x a structured copy
        other._bind_views()
        other.masks, other.status = self.masks.copy(), self.status.copy()
        other.episode_seeds = self.episode_seeds.copy()
        return other

    def resample_hidden(self, g: int, seed: int, *, voids: bool = False) -> None:
        """Redeal, in game g, every card its deciding seat cannot see (the draw pile, the others' cards it does
        not know, its own forehead cards), for search over the deals that seat cannot tell apart; the seat's
        observation stays the same. See `engine.resample_hidden`; with `voids`, no other seat is dealt a coloured
        card it showed it lacked (`engine.resample_hidden_voids`). A ValueError says why it cannot (the episode
        is over) and leaves the game as it was."""
        g = V.index(g, self.batch_size)
        seed = V.seed(seed)
        self._require_reset(np.array([g]))
        redeal = E.resample_hidden_voids if voids else E.resample_hidden
        code = redeal(self.state_array, self.config_array, g, np.uint64(seed))
        if code != E.RESAMPLED:
            raise ValueError(f"cannot resample the hidden cards of game {g}: {RESAMPLE_MESSAGES[code]}")

    def describe(self, g: int) -> dict[str, Any]:
        """Game g as plain Python values; equal games give equal descriptions. `rounds` counts the finished
        rounds of the episode; `round_winner` (-1 before the first) and `round_points` describe the last."""
        st = self.state[V.index(g, self.batch_size)]
        n = self.num_players
        hands = [[self.codes[k] for k in range(C.NUM_KINDS) for _ in range(int(st.hand[p, k]))] for p in range(n)]
        foreheads: list[list[str]] = [[] for _ in range(n)]
        for i in range(int(st.fh_len)):
            foreheads[int(st.fh_seat[i])].append(self.codes[int(st.fh_card[i])])
        color = int(st.color)
        return {
            "hands": hands,
            "foreheads": foreheads,
            "top": self.codes[int(st.discard[st.discard_len - 1])] if st.discard_len else None,
            "color": self.rules.colors[color] if color >= 0 else None,
            "direction": int(st.direction),
            "seat": int(st.seat),
            "phase": A.PHASE_NAMES[st.phase] if 0 <= st.phase < len(A.PHASE_NAMES) else f"unknown {st.phase}",
            "pile": int(st.draw_len),
            "scores": [int(x) for x in st.scores[:n]],
            "rounds": int(st.rounds),
            "round_winner": int(st.round_winner),
            "round_points": int(st.round_points),
            "dealer": int(st.dealer),
            "discard": int(st.discard_len),
            "pending_draw": int(st.pending_draw),
            "winners": [p for p in range(n) if st.winners[p]],
            "done": bool(st.done),
            "truncated": bool(st.truncated),
        }


class Game:
    """One game, by action names and card codes: ``Game("unocorns", 4, seed=1).step("play P5")``."""

    def __init__(
        self,
        rules: RuleSet | str | None = "classic",
        num_players: int = 2,
        *,
        seed: int = 0,
        deal: dict | None = None,
        episode: str = "round",
        max_steps: int = DEFAULT_MAX_STEPS,
        **options: Any,
    ):
        self.batch = GameBatch(rules, num_players, 1, episode=episode, max_steps=max_steps, **options)
        self.rules = self.batch.rules
        self.num_players = self.batch.num_players
        self.action_names = self.batch.action_names
        self.reset(seed, deal)

    def reset(self, seed: int = 0, deal: dict | None = None) -> None:
        """A new episode: a shuffled deal from `seed`, or the dealt scenario `deal` (a refused one changes nothing)."""
        self.batch.reset_game(0, seed, deal)
        # What a record of this episode needs (`to_record`): the seed, the deal and every action applied since.
        self.seed, self.deal = int(seed), copy.deepcopy(deal)
        self.actions_taken: list[int] = []
        self._replayable = True

    def action_id(self, action: str | int) -> int:
        """The id of an action given by name or id; a ValueError (or WrongTypeError) says what is allowed."""
        if isinstance(action, str):
            return A.action_id(action, self.rules.colors)
        if V.integral(action) is None:
            raise V.WrongTypeError(
                f"action must be an action name such as 'play {self.batch.codes[5]}' or an action id from 0 to "
                f"{A.NUM_ACTIONS - 1}, got {action!r} ({type(action).__name__})"
            )
        return V.action_id(action)

    def step(self, action: str | int) -> None:
        """Apply one action (name or id); an illegal one raises IllegalActionError and changes nothing."""
        action = self.action_id(action)
        self.batch.step_game(0, action)
        self.actions_taken.append(action)

    def legal_action_ids(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.batch.legal_masks()[0])]

    def legal_actions(self) -> list[str]:
        return [self.action_names[a] for a in self.legal_action_ids()]

    def describe(self) -> dict[str, Any]:
        return self.batch.describe(0)

    def copy(self) -> Game:
        """An independent copy of this game (for search: try actions on the copy)."""
        other = copy.copy(self)
        other.batch = self.batch.copy()
        other.actions_taken = list(self.actions_taken)
        return other

    def resample_hidden(self, seed: int, *, voids: bool = False) -> None:
        """Redeal every card the deciding seat cannot see (see `GameBatch.resample_hidden`): on a copy, a
        world that seat cannot tell from this one, e.g. ``world = game.copy(); world.resample_hidden(7)``."""
        self.batch.resample_hidden(0, seed, voids=voids)
        self._replayable = False  # the hidden cards no longer follow from the seed and the actions

    def check(self) -> None:
        self.batch.check(0)

    def to_record(self, *, agents: list[str] | None = None, details: list | None = None, meta=None) -> dict:
        """This episode as a game record (`uno_env.records`: versioned JSON) that `Game.from_record` replays exactly.
        `agents`: a name per seat; `details`: a dict per decision (e.g. a policy's probabilities)."""
        from .records import make_record, result_of

        if not self._replayable:
            raise ValueError("this game's hidden cards were redealt (resample_hidden): no record replays it")
        return make_record(
            self.rules, self.num_players, self.actions_taken, seed=self.seed, deal=self.deal,
            episode=self.batch.episode, max_steps=int(self.batch.config["max_steps"][0]),
            agents=agents, details=details, result=result_of(self), meta=meta,
        )  # fmt: skip

    @classmethod
    def from_record(cls, record: dict) -> Game:
        """The game a record describes, replayed to its end (every field, action and the result checked): the
        last game of `replay_steps` (`uno_env.replay.replay` is this)."""
        steps = replay_steps(record, cls)
        game = next(steps)  # as dealt; every step yields this same game, stepped in place
        for _ in steps:
            pass
        return game

    def picture(self, viewer: int | None = None) -> np.ndarray:
        """The table as seat `viewer` sees it (None: a spectator who sees every card), (640, 960, 3) uint8 RGB."""
        from .picture import picture

        return picture(self.batch, viewer)

    @property
    def phase(self) -> str:
        return A.PHASE_NAMES[int(self.batch.phase[0])]

    @property
    def seat(self) -> int:
        return int(self.batch.seat[0])

    @property
    def done(self) -> bool:
        return bool(self.batch.done[0])

    @property
    def truncated(self) -> bool:
        return bool(self.batch.truncated[0])

    @property
    def scores(self) -> list[int]:
        return [int(x) for x in self.batch.scores[0]]

    @property
    def winners(self) -> list[int]:
        return [int(p) for p in np.flatnonzero(self.batch.winners[0])]

    def hand(self, seat: int) -> list[str]:
        return self.describe()["hands"][V.index(seat, self.num_players, "seat")]


def replay_steps(record: dict, game_class: type[Game] = Game) -> Iterator[Game]:
    """A game record's game (`uno_env.records`) as dealt, then after each of its decisions: one `Game`, stepped in
    place (copy it to keep a state). A RecordError says what is wrong with the record: a field, an action not legal
    at its point (named with its index), a result other than the record's (raised once the last action is applied).
    The one place a record becomes a game: `Game.from_record` and `uno_env.replay` take its steps."""
    from .records import RecordError, game_settings, play_record

    settings = game_settings(record)
    try:
        game = game_class(**settings)
    except ValueError as error:
        raise RecordError(f"the record's game cannot be dealt: {error}") from None
    yield from play_record(game, record)
