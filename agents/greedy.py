"""`greedy`: the strongest simple strategy of the UNO strategy literature, as a rule-based baseline."""

from __future__ import annotations

import numpy as np
from numba import njit

from uno_env import actions as A
from uno_env import cards as C
from uno_env import observation as O
from uno_env.engine import wild_draw_four_legal
from uno_env.observation import field, one_hot_index, phase_of  # noqa: F401  (phase_of re-exported: its old home)
from uno_env.seats import DeviceRule

from .rule_based import BaselineAgent, color_counts, decide_row, decide_rows, total  # noqa: F401  (re-exported: their old home)

NCK = C.NUM_COLORED_KINDS
NK = C.NUM_KINDS
NC = C.NUM_COLORS
RPC = C.RANKS_PER_COLOR

# Score tiers of the card plays (only the order matters): a first-choice special card, the coloured cards and
# the Narwhal (ordered by points), the plain wild cards kept for last, then `draw` (0).
FIRST = 1e12
CARDS = 1e3
W4_LAST, WILD_LAST, CUSTOM_LAST, SWAP_LAST = 30.0, 20.0, 19.0, 18.0
ILLEGAL_W4 = -1.0  # below draw / pass: never play Wild Draw Four illegally


# ---------------------------------------------------------------------- reading an observation row


@njit(cache=True, nogil=True)
def active_color(obs, off):
    """The active colour slot of an observation row, -1 before one is chosen."""
    return one_hot_index(field(obs, off, O.F_COLOR, NC))


@njit(cache=True, nogil=True)
def w4_legal(obs, off):
    """Whether the engine's Wild Draw Four rule allows the observer's Wild Draw Four now."""
    return wild_draw_four_legal(field(obs, off, O.F_HAND, NK), active_color(obs, off))


@njit(cache=True, nogil=True)
def subtract_rows(out, cards, first, rows):
    """out[k] -= the sum of cards[r * 59 + k] over the rows r = first .. rows - 1 (per-seat card fields)."""
    for r in range(first, rows):
        row = cards[r * NK : (r + 1) * NK]
        for k in range(NK):
            out[k] -= row[k]


@njit(cache=True, nogil=True)
def unseen_minimal(obs, off, n, counts, out):
    """out[k] = copies of kind k the agent has not seen: the deck less its hand, the top card and the
    foreheads it sees (of the other seats)."""
    hand, top = field(obs, off, O.F_HAND, NK), field(obs, off, O.F_TOP, NK)
    for k in range(NK):
        out[k] = counts[k] - hand[k] - top[k]
    subtract_rows(out, field(obs, off, O.F_FOREHEADS, n * NK), 1, n)
    for k in range(NK):
        out[k] = max(out[k], 0.0)


# ---------------------------------------------------------------------- greedy's phase scorers
# The scorers `decide_rows` takes: scorer(obs, mask, phase, off, n, points, counts, params, hc, scratch, s), with
# `hc` the own hand's coloured cards per colour. Greedy has no parameters (`params` is ()); its `scratch` is one
# (59,) array for the unseen cards. The scorers of the rare phases are inlined into the loop (as functions of their
# own they add compile time); the hot ones (play, and the other phases shared with counter) stay functions (inlined,
# each array argument costs speed).


@njit(cache=True, nogil=True)
def greedy_card_scores(obs, mask, phase, off, n, points, counts, params, hc, scratch, s):
    """Play and drawn: s[:59] = the preference of each card play (the engine's mask says which are legal); draw
    stays 0."""
    for k in range(NCK):
        s[k] = CARDS + 100.0 * points[k] + hc[k // RPC]
    s[C.NARWHAL] = CARDS + 100.0 * points[C.NARWHAL]
    s[C.URRRHHH] = FIRST + 2.0
    s[C.EMOJI] = FIRST + 1.0
    sizes = field(obs, off, O.F_HAND_SIZES, n)
    smallest_other = sizes[1]
    for rel in range(2, n):
        smallest_other = min(smallest_other, sizes[rel])
    s[C.SWAP] = FIRST + 3.0 if smallest_other < np.int64(sizes[0]) - 1 else SWAP_LAST
    s[C.CUSTOMIZABLE] = CUSTOM_LAST
    s[C.WILD] = WILD_LAST
    s[C.WILD_DRAW_FOUR] = W4_LAST if w4_legal(obs, off) else ILLEGAL_W4


@njit(cache=True, nogil=True, inline="always")
def greedy_color_scores(obs, mask, phase, off, n, points, counts, params, hc, scratch, s):
    """The colour it holds most of."""
    for c in range(NC):
        s[A.COLOR_BASE + c] = hc[c]


@njit(cache=True, nogil=True, inline="always")
def greedy_challenge_scores(obs, mask, phase, off, n, points, counts, params, hc, scratch, s):
    """Accept: it keeps no memory of the colour before the Wild Draw Four."""
    s[A.ACCEPT] = 0.5


@njit(cache=True, nogil=True, inline="always")
def add_unseen_by_color(unseen, s):
    """s[colour] += the unseen coloured cards of that colour (a Narwhal guess: the colour with most unseen cards)."""
    for k in range(NCK):
        s[A.COLOR_BASE + k // RPC] += unseen[k]


@njit(cache=True, nogil=True, inline="always")
def greedy_guess_scores(obs, mask, phase, off, n, points, counts, params, hc, scratch, s):
    """The colour with most cards not seen (`unseen_minimal`, into `scratch`)."""
    unseen_minimal(obs, off, n, counts, scratch)
    add_unseen_by_color(scratch, s)


@njit(cache=True, nogil=True)
def greedy_other_scores(obs, mask, phase, off, n, points, counts, params, hc, scratch, s):
    """The phases other than play / drawn / colour / challenge / guess: give, swap, emoji, uno."""
    if phase == A.PHASE_GIVE:  # the colour it holds most of, ties: the one worth most points
        hand = field(obs, off, O.F_HAND, NK)
        for c in range(NC):
            value = 0.0
            for k in range(c * RPC, (c + 1) * RPC):
                value += hand[k] * points[k]
            s[A.COLOR_BASE + c] = 1e6 * hc[c] + value
    elif phase == A.PHASE_SWAP:  # the smallest other hand, if smaller than its own
        sizes = field(obs, off, O.F_HAND_SIZES, n)
        for k in range(1, 10):
            s[A.SWAP_BASE + k] = -np.float64(sizes[k]) if k < n else -1e9
        s[A.PASS] = 0.5 - sizes[0]
    elif phase == A.PHASE_EMOJI:  # the number card with most points, the highest, of its biggest colour
        for k in range(NCK):
            s[k] = 1e6 * points[k] + 1e3 * (k % RPC) + hc[k // RPC]
    elif phase == A.PHASE_UNO:
        s[A.UNO] = 1.0


@njit(cache=True, nogil=True)
def greedy_decide(obs, masks, rng, off, n, points, counts, actions):
    """`GreedyAgent`'s choice for every row (see its docstring): the shared loop with greedy's phase scorers;
    ties broken with `rng`."""
    decide_rows(obs, masks, rng, off, n, points, counts, (), np.empty(NK), actions, greedy_card_scores,
                greedy_color_scores, greedy_challenge_scores, greedy_guess_scores, greedy_other_scores)  # fmt: skip


@njit(cache=True, nogil=True)
def greedy_decide_row(row, mask, rng, off, n, points, counts, params, work, scores, hand_colors):
    """Greedy's choice for one row with the work arrays given: its rule on the GPU (`uno_env.seats.DeviceRule`)."""
    return decide_row(row, mask, rng, off, n, points, counts, params, work[:NK], scores, hand_colors,
                      greedy_card_scores, greedy_color_scores, greedy_challenge_scores, greedy_guess_scores,
                      greedy_other_scores)  # fmt: skip


class GreedyAgent(BaselineAgent):
    """The textbook strategy: shed the cards that cost most, keep the wild cards as the way out.

    - play: the playable card with the most points (`rules.card_points`; ties: the card whose colour it
      holds most of), so numbers 9..0 come after Skip/Reverse/Draw Two. Creeperific "Urrrhhh" and the
      Wild Emoji go first (they shed more than one card); a Wild Swap goes first when another hand is smaller
      than its own would be, else it is kept like a plain wild. The Narwhal counts by its points. The plain
      wild cards (Wild Draw Four, then Wild, Wild Customizable, an unused Wild Swap) are played only when
      nothing else plays, and Wild Draw Four only legally (the engine's `wild_draw_four_legal` on its hand
      and the active colour). It draws only when nothing (legal) plays; facing a Draw Two stack it stacks
      when it can.
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

    def device_rule(self) -> DeviceRule:
        """Greedy's rule on the GPU, its ties broken by each game's own stream there."""
        return DeviceRule(greedy_decide_row, (np.int64(0),), self.observation, self._points, self._counts)

    def decide(self, spec, observations, action_masks, actions):
        greedy_decide(observations, action_masks, self.rng, spec.offsets, spec.num_players, self._points,
                      self._counts, actions)  # fmt: skip
