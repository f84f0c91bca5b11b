"""`greedy`: the strongest simple strategy of the UNO strategy literature, as a rule-based baseline."""

from __future__ import annotations

import numpy as np

from uno_env import actions as A
from uno_env import cards as C

from .naive import BaselineAgent

NCK = C.NUM_COLORED_KINDS
RPC = C.RANKS_PER_COLOR
KIND_COLOR = np.arange(NCK) // RPC  # colour slot of each coloured kind
KIND_RANK = np.arange(NCK) % RPC
IS_NUMBER = KIND_RANK < C.SKIP_RANK
COLORS = slice(A.COLOR_BASE, A.COLOR_BASE + C.NUM_COLORS)

# Score tiers of the card plays (only the order matters): a first-choice special card, the coloured cards and
# the Narwhal (ordered by points), the plain wild cards kept for last, then `draw` (0).
FIRST = 1e12
CARDS = 1e3
W4_LAST, WILD_LAST, CUSTOM_LAST, SWAP_LAST = 30.0, 20.0, 19.0, 18.0
ILLEGAL_W4 = -1.0  # below draw / pass: never play Wild Draw Four illegally


def color_counts(hand: np.ndarray) -> np.ndarray:
    """(B, 59) hands -> (B, 4) coloured cards held per colour slot."""
    return hand[:, :NCK].reshape(len(hand), C.NUM_COLORS, RPC).sum(axis=2)


def color_sums(per_kind: np.ndarray) -> np.ndarray:
    """(B, 59) values per kind -> (B, 4) sums over each colour's 13 kinds."""
    return per_kind[:, :NCK].reshape(len(per_kind), C.NUM_COLORS, RPC).sum(axis=2)


class GreedyAgent(BaselineAgent):
    """The textbook strategy: shed the cards that cost most, keep the wild cards as the way out.

    - play: the playable card with the most points (`rules.card_points`; ties: the card whose colour it
      holds most of), so numbers 9..0 come after Skip/Reverse/Draw Two. Creeperific "Urrrhhh" and the
      Wild Emoji go first (they shed more than one card); a Wild Swap goes first when another hand is smaller
      than its own would be, else it is kept like a plain wild. The Narwhal counts by its points. The plain
      wild cards (Wild Draw Four, then Wild, Wild Customizable, an unused Wild Swap) are played only when
      nothing else plays, and Wild Draw Four only legally (no card of the active colour in hand). It draws
      only when nothing (legal) plays; facing a Draw Two stack it stacks when it can.
    - drawn: plays a playable drawn card (not an illegal Wild Draw Four).
    - colour: the colour it holds most of (ties at random).
    - challenge: accepts a Wild Draw Four (it keeps no memory of the colour before it).
    - Narwhal guess: among the colours not already guessed wrong, the one with most cards it has not seen
      (the deck less its hand, the top card and the foreheads it sees).
    - Urrrhhh: gives away the colour it holds most of (ties: the one worth most points).
    - Swap: with the player holding the fewest cards, if fewer than its own; else does not swap.
    - Emoji: the number card with most points, then the highest number, then of the colour it holds most of.
    - UNO: always calls.

    It reads the `minimal` observation; `seed` breaks ties reproducibly.
    """

    observation = "minimal"
    name = "greedy"

    # ------------------------------------------------------------------ dispatch
    def scores(self, f: dict[str, np.ndarray], action_masks: np.ndarray) -> np.ndarray:
        out = np.zeros(action_masks.shape)
        phase = f["phase"]
        for p in np.unique(phase):
            rows = np.flatnonzero(phase == p)
            sub = f if rows.size == phase.size else _Rows(f, rows)
            out[rows] = self.phase_scores(int(p), sub)
        return out

    def phase_scores(self, phase: int, f: dict[str, np.ndarray]) -> np.ndarray:
        s = np.zeros((len(f["hand"]), A.NUM_ACTIONS))
        if phase in (A.PHASE_PLAY, A.PHASE_DRAWN):
            s[:, : C.NUM_KINDS] = self.card_scores(f)  # draw / pass stay at 0
        elif phase == A.PHASE_COLOR:
            s[:, COLORS] = self.color_scores(f)
        elif phase == A.PHASE_CHALLENGE:
            s[:, A.CHALLENGE] = self.challenge_scores(f)
            s[:, A.ACCEPT] = 0.5
        elif phase == A.PHASE_GUESS:
            s[:, COLORS] = self.guess_scores(f)
        elif phase == A.PHASE_GIVE:
            s[:, COLORS] = self.give_scores(f)
        elif phase == A.PHASE_SWAP:
            s[:, A.SWAP_BASE + 1 : A.SWAP_BASE + 10] = self.swap_scores(f)
            s[:, A.PASS] = 0.5 - f["hand_sizes"][:, 0]
        elif phase == A.PHASE_EMOJI:
            s[:, :NCK] = self.emoji_scores(f)
        elif phase == A.PHASE_UNO:
            s[:, A.UNO] = 1.0
        return s

    # ------------------------------------------------------------------ counting
    def unseen(self, f: dict[str, np.ndarray]) -> np.ndarray:
        """(B, 59) copies of each kind the agent has not seen: the deck less its hand, the top card and the
        foreheads it sees."""
        seen = f["hand"] + f["top_card"] + f["foreheads"].sum(axis=1)
        return np.maximum(self._counts[None, :] - seen, 0)

    # ------------------------------------------------------------------ decisions
    def card_scores(self, f: dict[str, np.ndarray]) -> np.ndarray:
        """(B, 59) preference of each card play (the engine's mask says which are legal); draw is 0."""
        hand = f["hand"]
        b = len(hand)
        hc = color_counts(hand)
        pts = self._points
        s = np.zeros((b, C.NUM_KINDS))
        s[:, :NCK] = CARDS + 100.0 * pts[None, :NCK] + hc[:, KIND_COLOR]
        s[:, C.NARWHAL] = CARDS + 100.0 * pts[C.NARWHAL]
        s[:, C.URRRHHH] = FIRST + 2.0
        s[:, C.EMOJI] = FIRST + 1.0
        own_after = f["hand_sizes"][:, 0] - 1
        s[:, C.SWAP] = np.where(self.smallest_other_hand(f) < own_after, FIRST + 3.0, SWAP_LAST)
        s[:, C.CUSTOMIZABLE] = CUSTOM_LAST
        s[:, C.WILD] = WILD_LAST
        s[:, C.WILD_DRAW_FOUR] = np.where(self.w4_legal(f, hc), W4_LAST, ILLEGAL_W4)
        return s

    @staticmethod
    def w4_legal(f: dict[str, np.ndarray], hc: np.ndarray) -> np.ndarray:
        """Whether a Wild Draw Four is legal: no card of the active colour in hand."""
        active = f["active"]
        held = hc[np.arange(len(hc)), np.maximum(active, 0)]
        return (active < 0) | (held == 0)

    @staticmethod
    def smallest_other_hand(f: dict[str, np.ndarray]) -> np.ndarray:
        return f["hand_sizes"][:, 1:].min(axis=1)

    def color_scores(self, f: dict[str, np.ndarray]) -> np.ndarray:
        return color_counts(f["hand"]).astype(np.float64)

    def challenge_scores(self, f: dict[str, np.ndarray]) -> np.ndarray:
        """Preference of `challenge`, against 0.5 for `accept`."""
        return np.zeros(len(f["hand"]))

    def guess_scores(self, f: dict[str, np.ndarray]) -> np.ndarray:
        return color_sums(self.unseen(f)).astype(np.float64)

    def give_scores(self, f: dict[str, np.ndarray]) -> np.ndarray:
        hand = f["hand"]
        value = color_sums(hand * self._points[None, :])
        return 1e6 * color_counts(hand) + value

    def swap_scores(self, f: dict[str, np.ndarray]) -> np.ndarray:
        """(B, 9): `swap +k` for k = 1..9 (the engine's mask leaves out seats beyond the player count);
        `pass` scores 0.5 - own hand size."""
        sizes = f["hand_sizes"]
        s = np.full((len(sizes), 9), -1e9)
        s[:, : sizes.shape[1] - 1] = -sizes[:, 1:]
        return s

    def emoji_scores(self, f: dict[str, np.ndarray]) -> np.ndarray:
        hc = color_counts(f["hand"])
        return 1e6 * self._points[None, :NCK] + 1e3 * KIND_RANK[None, :] + hc[:, KIND_COLOR]


class _Rows(dict):
    """The fields of `fields` restricted to `rows`, each sliced only when first read."""

    def __init__(self, fields: dict, rows: np.ndarray):
        super().__init__()
        self._fields, self._rows = fields, rows

    def __missing__(self, key):
        value = self._fields[key]
        if isinstance(value, np.ndarray):
            value = value[self._rows]
        self[key] = value
        return value
