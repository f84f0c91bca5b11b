"""`counter`: the greedy strategy plus card counting and reading the next player, from the `knowledge` level."""

from __future__ import annotations

import numpy as np

from uno_env import actions as A
from uno_env import cards as C

from .greedy import FIRST, IS_NUMBER, KIND_COLOR, KIND_RANK, NCK, RPC, GreedyAgent, color_counts, color_sums

MAX_CARDS = 1024  # beyond any deck (at most 256 cards)
_LOG_FACT = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, MAX_CARDS + 1)))])  # log k!

# FOLLOWS_CARD[j, k]: a card of kind j can follow a coloured card of kind k (same colour or rank, or a wild);
# FOLLOWS_COLOR[j, c]: a card of kind j can follow a wild whose chosen colour is c.
_COLOR_OF = np.concatenate([KIND_COLOR, np.full(C.NUM_KINDS - NCK, -1)])
_RANK_OF = np.concatenate([KIND_RANK, np.full(C.NUM_KINDS - NCK, -1)])
_WILD = _COLOR_OF < 0
FOLLOWS_CARD = (
    _WILD[:, None] | (_COLOR_OF[:, None] == KIND_COLOR[None, :]) | (_RANK_OF[:, None] == KIND_RANK[None, :])
).astype(np.float64)
FOLLOWS_COLOR = (_WILD[:, None] | (_COLOR_OF[:, None] == np.arange(C.NUM_COLORS)[None, :])).astype(np.float64)

# Card-play tiers on top of greedy's (only the order matters; greedy: FIRST 1e12 > coloured cards ~1e3..1e6 >
# plain wilds 18..30 > draw 0).
STRIKE = 1e10  # an attack on a next player about to go out
STRIKE_ORDER = np.where(KIND_RANK == C.DRAW_TWO_RANK, 2.0, 1.0)  # Draw Two before Skip / Reverse
STRIKE_W4, STRIKE_NARWHAL = 3.0, 0.5
HELD = 500.0  # a held action card: after every number card, before the plain wild cards
KEPT_URRRHHH, KEPT_NARWHAL = 17.0, 16.0  # a kept weapon: among the plain wild cards, after the Wild
LAST_RESORT_TOP = 100.0  # wild cards scored under this (and over 0) are played only when nothing else plays
SAVED = -0.5  # a saved wild: after draw / pass


def none_drawn(pool: np.ndarray, good: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """The chance that `draws` cards dealt at random from `pool` cards, `good` of them good, hold no good one:
    C(pool - good, draws) / C(pool, draws) (arrays of whole numbers, broadcast together)."""
    pool, good, draws = (
        np.clip(np.rint(x).astype(np.int64), 0, MAX_CARDS) for x in np.broadcast_arrays(pool, good, draws)
    )
    good = np.minimum(good, pool)
    bad = pool - good
    possible = draws <= bad
    log_p = _LOG_FACT[bad] + _LOG_FACT[pool - np.minimum(draws, pool)]
    log_p -= _LOG_FACT[np.maximum(bad - draws, 0)] + _LOG_FACT[pool]
    return np.where(possible, np.exp(np.minimum(log_p, 0.0)), 0.0)


class CounterAgent(GreedyAgent):
    """`greedy`, plus card counting and reading the next player (the `knowledge` observation).

    Counting: the unseen cards are the deck less its hand, the discard pile (the cards played since the last
    reshuffle), the foreheads it sees and the cards it knows others hold (from an Urrrhhh it gave, a Swap,
    a challenge). An opponent's unknown cards are taken as dealt at random from them.

    Reading the next player (along the direction of play): a colour it just chose (its last action, when it
    has no forehead card: else it may be a wrong guess) or that it holds as far as the agent knows is a
    colour it has; with two players, its draw as last action (while
    that colour is still active) says it lacks the active colour and the rank of the top card. It is
    "close" to going out with at most `threat` cards (hand and forehead).

    - play: greedy's order (most points first, plain wild cards last), changed where the next player matters:
      * a number card gains the chance that the next player cannot follow it (same colour, same number or a
        wild, counted as above), worth `stuck_points` card points at certainty;
      * when the next player is close, attacks go first: a legal Wild Draw Four, then Draw Two, then
        Skip/Reverse, then a Narwhal (its forehead card must be guessed before it can go out);
      * weapons are kept for that moment: Creeperific "Urrrhhh" is played at once only when the next player
        is close or it empties the hand (else it waits among the plain wild cards); the Narwhal likewise;
      * wild cards are saved: while it holds at least `save_wilds` - 1 cards that are not wild (hand and
        forehead), at least `save_pile` cards are left to draw (draw pile, and discard pile to reshuffle) and
        the next player is not close, it draws rather than play a wild card of the last-resort tier (and keeps
        such a card drawn). Only the cards that are not wild count, else a hand of wild cards would never
        be played;
      * `hold` (default "auto": with three or more players): Skip, Reverse and Draw Two wait, after every
        number card, until the next player is close. With two players holding them measured clearly worse
        (there they are extra turns), so "auto" plays them at once there.
    - colour: the colour it holds most of; ties: one the next player seems to lack (if it can follow) rather
      than one it has, then the one with fewest unseen cards.
    - challenge: the chance that the previous player held a card of the colour active before its Wild Draw
      Four (hypergeometric over the part of its hand the agent does not know), with a prior `bluff_prior`
      that a player bluffs at all, gives the chance the play was illegal; it challenges above
      `challenge_threshold`, and always when it knows the player held that colour.
    - Narwhal guess: among the colours not already guessed wrong, the one with most unseen cards.

    Everything else as `greedy`. `seed` breaks ties reproducibly.
    """

    observation = "knowledge"
    name = "counter"

    def __init__(
        self,
        seed: int | None = None,
        *,
        threat: int = 2,
        hold: bool | str = "auto",
        stuck_points: float = 30.0,
        bluff_prior: float = 0.1,
        challenge_threshold: float = 0.5,
        save_wilds: int = 5,
        save_pile: int = 10,
    ):
        if hold not in (True, False, "auto"):
            raise ValueError(f"hold must be True, False or 'auto', got {hold!r}")
        super().__init__(seed)
        self.threat = threat
        self.hold = hold
        self.stuck_points = stuck_points
        self.bluff_prior = bluff_prior
        self.challenge_threshold = challenge_threshold
        self.save_wilds = save_wilds
        self.save_pile = save_pile

    # ------------------------------------------------------------------ counting
    def unseen(self, f: dict[str, np.ndarray]) -> np.ndarray:
        seen = f["hand"] + f["discard_pile"] + f["foreheads"].sum(axis=1) + f["known_cards"].sum(axis=1)
        return np.maximum(self._counts[None, :] - seen, 0)

    @staticmethod
    def neighbours(f: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """The relative rows of the next and of the previous player along the direction of play."""
        n = f["num_players"]
        forward = f["direction"] >= 0
        return np.where(forward, 1, n - 1), np.where(forward, n - 1, 1)

    def read_next(self, f: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """What the agent can tell of the next player: `has` / `lack` (B, 4) colours it seems to hold / to lack
        (0 or 1), `lack_rank` (B,) a rank it lacks (-1: none known), `close` (B,) whether it is close to going
        out, `known` (B, 59) the cards it is known to hold, `hand` (B,) its hand size."""
        b = len(f["hand"])
        rows = np.arange(b)
        nxt, _ = self.neighbours(f)
        last = f["last_action"]
        last_id = np.where(last.any(axis=2), last.argmax(axis=2), -1)
        theirs = last_id[rows, nxt]
        known = f["known_cards"][rows, nxt]
        # a colour as last action: its choice after a wild, unless it may be a wrong Narwhal guess
        chose = (theirs[:, None] == A.COLOR_BASE + np.arange(C.NUM_COLORS)[None, :]) & (
            f["forehead_counts"][rows, nxt] == 0
        )[:, None]
        has = chose | (color_counts(known) > 0)
        lack = np.zeros((b, C.NUM_COLORS), bool)
        lack_rank = np.full(b, -1)
        if f["num_players"] == 2:
            # Its draw is fresh unless the agent played an attack since (a skip with two players).
            mine = last_id[:, 0]
            attacked = (mine >= 0) & (mine < NCK) & (mine % RPC >= C.SKIP_RANK)
            fresh = (theirs == A.DRAW) & ~attacked & (f["active"] >= 0)
            lack[rows[fresh], f["active"][fresh]] = True
            top = f["top_card"].argmax(axis=1)
            lack_rank = np.where(fresh & f["top_card"].any(axis=1) & (top < NCK), top % RPC, -1)
        return {
            "has": has.astype(np.float64),
            "lack": lack.astype(np.float64),
            "lack_rank": lack_rank,
            "close": f["cards"][rows, nxt] <= self.threat,
            "known": known.astype(np.float64),
            "hand": f["hand_sizes"][rows, nxt],
        }

    def stuck_chances(self, f: dict[str, np.ndarray], nxt: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(B, 52), (B, 4): the chance that the next player cannot follow a coloured card of each kind / a wild
        of each chosen colour: its unknown cards dealt at random from the unseen cards it can hold."""
        b = len(f["hand"])
        excluded = np.zeros((b, C.NUM_KINDS), bool)
        excluded[:, :NCK] = (nxt["lack"][:, KIND_COLOR] > 0) | (KIND_RANK[None, :] == nxt["lack_rank"][:, None])
        avail = np.where(excluded, 0.0, self.unseen(f).astype(np.float64))
        pool = avail.sum(axis=1)[:, None]
        unknown = np.maximum(nxt["hand"] - nxt["known"].sum(axis=1), 0)[:, None]
        p_card = none_drawn(pool, avail @ FOLLOWS_CARD, unknown)
        p_color = none_drawn(pool, avail @ FOLLOWS_COLOR, unknown)
        p_card[(nxt["has"][:, KIND_COLOR] > 0) | (nxt["known"] @ FOLLOWS_CARD > 0)] = 0.0
        p_color[(nxt["has"] > 0) | (nxt["known"] @ FOLLOWS_COLOR > 0)] = 0.0
        return p_card, p_color

    # ------------------------------------------------------------------ decisions
    def card_scores(self, f: dict[str, np.ndarray]) -> np.ndarray:
        s = super().card_scores(f)
        hc = color_counts(f["hand"])
        nxt = self.read_next(f)
        close = nxt["close"]
        if self.stuck_points:
            p_card, _ = self.stuck_chances(f, nxt)
            s[:, :NCK] += 100.0 * self.stuck_points * p_card * IS_NUMBER[None, :]
        attack = ~IS_NUMBER
        hold = self.hold if self.hold != "auto" else f["num_players"] >= 3
        waiting = HELD + hc[:, KIND_COLOR] if hold else s[:, :NCK]
        striking = np.broadcast_to(STRIKE + STRIKE_ORDER[None, :], waiting.shape)
        s[:, :NCK][:, attack] = np.where(close[:, None], striking, waiting)[:, attack]
        s[:, C.WILD_DRAW_FOUR] = np.where(close & self.w4_legal(f, hc), STRIKE + STRIKE_W4, s[:, C.WILD_DRAW_FOUR])
        empties = hc.max(axis=1) + 1 >= f["cards"][:, 0]  # giving its biggest colour away leaves nothing
        s[:, C.URRRHHH] = np.where(close | empties, FIRST + 2.0, KEPT_URRRHHH)
        s[:, C.NARWHAL] = np.where(close, STRIKE + STRIKE_NARWHAL, KEPT_NARWHAL)
        if self.save_wilds:  # a wild in the last-resort tier waits; it draws instead (or keeps a drawn wild)
            can_draw = f["draw_pile_size"][:, 0] + np.maximum(f["discard_pile"].sum(axis=1) - 1, 0)
            others = hc.sum(axis=1) + f["forehead_counts"][:, 0] + 1  # a wild and every card not wild
            save = (~close & (others >= self.save_wilds) & (can_draw >= self.save_pile))[:, None]
            wilds = s[:, NCK:]
            last_resort = (wilds > 0) & (wilds < LAST_RESORT_TOP)
            s[:, NCK:] = np.where(save & last_resort, SAVED, wilds)
        return s

    def color_scores(self, f: dict[str, np.ndarray]) -> np.ndarray:
        hc = color_counts(f["hand"]).astype(np.float64)
        nxt = self.read_next(f)
        weight = np.where(nxt["close"], 0.45, 0.15)[:, None]  # under 1 in all: only breaks ties of hc
        lack = nxt["lack"] * ((hc > 0) | nxt["close"][:, None])  # a lacked colour it cannot follow: only to block
        unseen = color_sums(self.unseen(f))
        return hc + weight * (lack - nxt["has"]) - 0.004 * np.minimum(unseen, 25)

    def guilt(self, f: dict[str, np.ndarray]) -> np.ndarray:
        """(B,) the chance that the Wild Draw Four just played was illegal (1 where known)."""
        b = len(f["hand"])
        rows = np.arange(b)
        _, prv = self.neighbours(f)
        w4_prev = f["w4_previous_color"]
        prev_color = np.where(w4_prev.any(axis=1), w4_prev.argmax(axis=1), -1)
        color = np.maximum(prev_color, 0)
        known = f["known_cards"][rows, prv]
        known_held = color_counts(known)[rows, color] > 0
        unseen = self.unseen(f)
        pool = unseen.sum(axis=1).astype(np.float64)
        of_color = color_sums(unseen)[rows, color].astype(np.float64)
        unknown = np.maximum(f["hand_sizes"][rows, prv] - known.sum(axis=1), 0)
        p_none = none_drawn(pool, of_color, unknown)  # an honest player's hand, at random, lacks the colour
        p_held = self.bluff_prior * (1.0 - p_none)
        guilt = p_held / np.maximum(p_held + p_none, 1e-12)
        guilt = np.where(known_held, 1.0, guilt)
        return np.where(prev_color < 0, 0.0, guilt)

    def challenge_scores(self, f: dict[str, np.ndarray]) -> np.ndarray:
        return np.where(self.guilt(f) > self.challenge_threshold, 1.0, 0.0)
