"""`counter`: the greedy strategy plus card counting and reading the next player, from the `knowledge` level."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from uno_env import actions as A
from uno_env import cards as C
from uno_env import observation as O
from uno_env.observation import field, one_hot_index
from uno_env.seats import DeviceRule

from .greedy import (
    FIRST,
    NC,
    NCK,
    NK,
    RPC,
    GreedyAgent,
    active_color,
    add_unseen_by_color,
    greedy_card_scores,
    greedy_other_scores,
    subtract_rows,
    w4_legal,
)
from .rule_based import decide_row, decide_rows, total

MAX_CARDS = 1024  # beyond any deck (at most 256 cards)
LOG_FACT = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, MAX_CARDS + 1)))])  # log k!

# Card-play tiers on top of greedy's (only the order matters; greedy: FIRST 1e12 > coloured cards ~1e3..1e6 >
# plain wilds 18..30 > draw 0).
STRIKE = 1e10  # an attack on a next player about to go out
STRIKE_DRAW_TWO, STRIKE_SKIP = 2.0, 1.0  # Draw Two before Skip / Reverse
STRIKE_W4, STRIKE_NARWHAL = 3.0, 0.5
HELD = 500.0  # a held action card: after every number card, before the plain wild cards
KEPT_URRRHHH, KEPT_NARWHAL = 17.0, 16.0  # a kept weapon: among the plain wild cards, after the Wild
LAST_RESORT_TOP = 100.0  # wild cards scored under this (and over 0) are played only when nothing else plays
SAVED = -0.5  # a saved wild: after draw / pass
HOLD_AUTO = -1  # `hold="auto"` in the kernel: hold with three or more players


@njit(cache=True, nogil=True)
def _whole(x):
    return min(max(round(x), 0), MAX_CARDS)


@njit(cache=True, nogil=True)
def none_drawn(pool, good, draws):
    """The chance that `draws` cards dealt at random from `pool` cards, `good` of them good, hold no good one:
    C(pool - good, draws) / C(pool, draws) (whole numbers)."""
    pool, good, draws = _whole(pool), _whole(good), _whole(draws)
    bad = pool - min(good, pool)
    if draws > bad:
        return 0.0
    log_p = LOG_FACT[bad] + LOG_FACT[pool - min(draws, pool)]
    log_p -= LOG_FACT[max(bad - draws, 0)] + LOG_FACT[pool]
    return math.exp(min(log_p, 0.0))


# ---------------------------------------------------------------------- counting and reading the next player


@njit(cache=True, nogil=True)
def unseen_knowledge(obs, off, n, counts, out):
    """out[k] = copies of kind k the agent has not seen: the deck less its hand, the discard pile, the foreheads
    it sees and the cards it knows others hold."""
    hand, discard = field(obs, off, O.F_HAND, NK), field(obs, off, O.F_DISCARD, NK)
    for k in range(NK):
        out[k] = counts[k] - hand[k] - discard[k]
    subtract_rows(out, field(obs, off, O.F_FOREHEADS, n * NK), 1, n)
    subtract_rows(out, field(obs, off, O.F_KNOWN, n * NK), 0, n)
    for k in range(NK):
        out[k] = max(out[k], 0.0)


@njit(cache=True, nogil=True)
def neighbours(obs, off, n):
    """The relative rows of the next and of the previous player along the direction of play."""
    if obs[off[O.F_DIRECTION]] >= 0:
        return 1, n - 1
    return n - 1, 1


@njit(cache=True, nogil=True)
def last_action(obs, off, rel):
    """The last public action of relative seat `rel` this round, -1 if none."""
    start = off[O.F_LAST] + rel * A.NUM_ACTIONS
    return one_hot_index(obs[start : start + A.NUM_ACTIONS])


@njit(cache=True, nogil=True, inline="always")
def known_cards(obs, off, rel):
    """The cards the agent knows relative seat `rel` holds (59 counts)."""
    start = off[O.F_KNOWN] + rel * NK
    return obs[start : start + NK]


@njit(cache=True, nogil=True)
def read_next(obs, off, n, threat, has, lack):
    """What the agent can tell of the next player: `has` / `lack` (4,) colours it seems to hold / to lack (0 or
    1); returns its relative row, a rank it lacks (-1: none known), whether it is close to going out, and its
    hand size."""
    nxt, _ = neighbours(obs, off, n)
    theirs = last_action(obs, off, nxt)
    known = known_cards(obs, off, nxt)
    # a colour as last action: its choice after a wild, unless it may be a wrong Narwhal guess
    no_forehead = obs[off[O.F_FH_COUNTS] + nxt] == 0
    for c in range(NC):
        chose = theirs == A.COLOR_BASE + c and no_forehead
        has[c] = 1.0 if chose or total(known[c * RPC : (c + 1) * RPC]) > 0 else 0.0
        lack[c] = 0.0
    lack_rank = -1
    if n == 2:
        # Its draw is fresh unless the agent played an attack since (a skip with two players).
        mine = last_action(obs, off, 0)
        attacked = mine >= 0 and mine < NCK and mine % RPC >= C.SKIP_RANK
        active = active_color(obs, off)
        if theirs == A.DRAW and not attacked and active >= 0:
            lack[active] = 1.0
            top = one_hot_index(field(obs, off, O.F_TOP, NK))
            if 0 <= top < NCK:
                lack_rank = top % RPC
    hand = np.int64(obs[off[O.F_HAND_SIZES] + nxt])
    close = hand + np.int64(obs[off[O.F_FH_COUNTS] + nxt]) <= threat
    return nxt, lack_rank, close, hand


@njit(cache=True, nogil=True)
def add_stuck_chances(obs, off, mask, nxt, lack_rank, hand, has, lack, weight, work, s):
    """s[j] += weight * the chance that the next player cannot follow number card j (same colour, same rank
    or a wild): its unknown cards dealt at random from the unseen cards it can hold (`work[0]`, the other
    `work` arrays are scratch). Only legal cards."""
    unseen, avail, by_color, by_rank = work
    pool = wild = 0.0
    by_color[:] = 0.0
    by_rank[:] = 0.0
    for k in range(NK):
        excluded = k < NCK and (lack[k // RPC] > 0 or k % RPC == lack_rank)
        avail[k] = 0.0 if excluded else unseen[k]
        pool += avail[k]
        if k < NCK:
            by_color[k // RPC] += avail[k]
            by_rank[k % RPC] += avail[k]
        else:
            wild += avail[k]
    known = known_cards(obs, off, nxt)
    known_wild = total(known[NCK:])
    unknown = max(hand - total(known), 0)
    for j in range(NCK):
        rank = j % RPC
        if mask[j] == 0 or rank >= C.SKIP_RANK:
            continue
        color = j // RPC
        follows = known_wild + total(known[color * RPC : (color + 1) * RPC]) - np.int64(known[j])
        for c in range(NC):
            follows += np.int64(known[c * RPC + rank])
        if has[color] > 0 or follows > 0:
            continue  # it is known to follow
        good = wild + by_color[color] + by_rank[rank] - avail[j]
        s[j] += weight * none_drawn(pool, good, unknown)


# ---------------------------------------------------------------------- counter's phase scorers
# The scorers `decide_rows` takes, as greedy's (see there); `params` as `CounterAgent.kernel_params`; `scratch` =
# (has, lack, work): the colours the next player seems to hold and to lack, (4,) each, and `work` = (the unseen cards
# (59,), then the scratch of `add_stuck_chances`). A plain tuple: a class in a cached signature breaks numba's cache
# once it is renamed or removed. The scorers of the rare phases are inlined (as functions of their own they add
# compile time); the hot ones (play, colour) stay functions (inlined, each array argument costs speed).


@njit(cache=True, nogil=True)
def counter_card_scores(obs, mask, phase, off, n, points, counts, params, hc, scratch, s):
    """Play and drawn: s[:59] = greedy's card preferences, changed where the next player matters (see
    `CounterAgent`)."""
    threat, hold, stuck_points, _, _, save_wilds, save_pile = params
    has, lack, work = scratch
    # greedy's scorer, given greedy's own params and scratch types so that it is compiled once for both agents
    greedy_card_scores(obs, mask, phase, off, n, points, counts, (), hc, work[0], s)
    nxt, lack_rank, close, hand = read_next(obs, off, n, threat, has, lack)
    if stuck_points != 0.0:
        unseen_knowledge(obs, off, n, counts, work[0])
        add_stuck_chances(obs, off, mask, nxt, lack_rank, hand, has, lack, 100.0 * stuck_points, work, s)
    holding = hold == 1 or (hold == HOLD_AUTO and n >= 3)
    for j in range(NCK):
        rank = j % RPC
        if rank < C.SKIP_RANK:
            continue
        if close:
            s[j] = STRIKE + (STRIKE_DRAW_TWO if rank == C.DRAW_TWO_RANK else STRIKE_SKIP)
        elif holding:
            s[j] = HELD + hc[j // RPC]
    if close and w4_legal(obs, off):
        s[C.WILD_DRAW_FOUR] = STRIKE + STRIKE_W4
    own_forehead = np.int64(obs[off[O.F_FH_COUNTS]])
    empties = max(hc[0], hc[1], hc[2], hc[3]) + 1 >= obs[off[O.F_HAND_SIZES]] + own_forehead  # nothing left
    s[C.URRRHHH] = FIRST + 2.0 if close or empties else KEPT_URRRHHH
    s[C.NARWHAL] = STRIKE + STRIKE_NARWHAL if close else KEPT_NARWHAL
    if save_wilds != 0:  # a wild in the last-resort tier waits; it draws instead (or keeps a drawn wild)
        can_draw = np.int64(obs[off[O.F_PILE_SIZE]]) + max(total(field(obs, off, O.F_DISCARD, NK)) - 1, 0)
        others = hc[0] + hc[1] + hc[2] + hc[3] + own_forehead + 1  # a wild and every card not wild
        if not close and others >= save_wilds and can_draw >= save_pile:
            for k in range(NCK, NK):
                if 0.0 < s[k] < LAST_RESORT_TOP:
                    s[k] = SAVED


@njit(cache=True, nogil=True)
def counter_color_scores(obs, mask, phase, off, n, points, counts, params, hc, scratch, s):
    """The colour it holds most of; ties: one the next player seems to lack (if it can follow) rather than one
    it has, then the one with fewest unseen cards."""
    has, lack, work = scratch
    unseen = work[0]
    _, _, close, _ = read_next(obs, off, n, params[0], has, lack)
    unseen_knowledge(obs, off, n, counts, unseen)
    weight = 0.45 if close else 0.15  # under 1 in all: only breaks ties of hc
    for c in range(NC):
        blocking = lack[c] * (1.0 if hc[c] > 0 or close else 0.0)  # a lacked colour it cannot follow: to block
        unseen_of_color = 0.0
        for k in range(c * RPC, (c + 1) * RPC):
            unseen_of_color += unseen[k]
        s[A.COLOR_BASE + c] = hc[c] + weight * (blocking - has[c]) - 0.004 * min(unseen_of_color, 25.0)


@njit(cache=True, nogil=True)
def guilt(obs, off, n, counts, bluff_prior, unseen):
    """The chance that the Wild Draw Four just played was illegal (1 where known)."""
    prev_color = one_hot_index(field(obs, off, O.F_W4_PREV, NC))
    if prev_color < 0:
        return 0.0
    _, prv = neighbours(obs, off, n)
    known = known_cards(obs, off, prv)
    if total(known[prev_color * RPC : (prev_color + 1) * RPC]) > 0:
        return 1.0
    unseen_knowledge(obs, off, n, counts, unseen)
    pool = of_color = 0.0
    for k in range(NK):
        pool += unseen[k]
    for k in range(prev_color * RPC, (prev_color + 1) * RPC):
        of_color += unseen[k]
    unknown = max(np.int64(obs[off[O.F_HAND_SIZES] + prv]) - total(known), 0)
    p_none = none_drawn(pool, of_color, unknown)  # an honest player's hand, at random, lacks the colour
    p_held = bluff_prior * (1.0 - p_none)
    return p_held / max(p_held + p_none, 1e-12)


@njit(cache=True, nogil=True, inline="always")
def counter_challenge_scores(obs, mask, phase, off, n, points, counts, params, hc, scratch, s):
    """Challenge when the Wild Draw Four was more likely illegal than `challenge_threshold` (`guilt`), else
    accept."""
    unseen = scratch[2][0]
    s[A.CHALLENGE] = 1.0 if guilt(obs, off, n, counts, params[3], unseen) > params[4] else 0.0
    s[A.ACCEPT] = 0.5


@njit(cache=True, nogil=True, inline="always")
def counter_guess_scores(obs, mask, phase, off, n, points, counts, params, hc, scratch, s):
    """The colour with most unseen cards (`unseen_knowledge`)."""
    unseen = scratch[2][0]
    unseen_knowledge(obs, off, n, counts, unseen)
    add_unseen_by_color(unseen, s)


@njit(cache=True, nogil=True, inline="always")
def counter_other_scores(obs, mask, phase, off, n, points, counts, params, hc, scratch, s):
    """Give, swap, emoji, uno: as greedy (`greedy_other_scores`, with greedy's own types: compiled once)."""
    unseen = scratch[2][0]
    greedy_other_scores(obs, mask, phase, off, n, points, counts, (), hc, unseen, s)


#: float64s of counter's work arrays (`counter_scratch`)
COUNTER_WORK = 3 * NC + 2 * NK + RPC


@njit(cache=True, nogil=True, inline="always")
def counter_scratch(work):
    """Counter's work arrays as its scorers take them, laid out in one array of COUNTER_WORK float64s (inlined:
    device code returns no view)."""
    a, b, c, d = NC, 2 * NC, 2 * NC + NK, 2 * NC + 2 * NK
    return (work[:a], work[a:b], (work[b:c], work[c:d], work[d : d + NC], work[d + NC : d + NC + RPC]))


@njit(cache=True, nogil=True)
def counter_decide_row(row, mask, rng, off, n, points, counts, params, work, scores, hand_colors):
    """Counter's choice for one row with the work arrays given: its rule on the GPU (`uno_env.seats.DeviceRule`)."""
    return decide_row(row, mask, rng, off, n, points, counts, params, counter_scratch(work), scores, hand_colors,
                      counter_card_scores, counter_color_scores, counter_challenge_scores, counter_guess_scores,
                      counter_other_scores)  # fmt: skip


@njit(cache=True, nogil=True)
def counter_decide(obs, masks, rng, off, n, points, counts, params, actions):
    """`CounterAgent`'s choice for every row: the shared loop with counter's phase scorers (greedy's in the other
    phases), ties broken with `rng`; `params` = (threat, hold (1, 0 or HOLD_AUTO), stuck_points, bluff_prior,
    challenge_threshold, save_wilds, save_pile)."""
    scratch = counter_scratch(np.empty(COUNTER_WORK))
    decide_rows(obs, masks, rng, off, n, points, counts, params, scratch, actions, counter_card_scores,
                counter_color_scores, counter_challenge_scores, counter_guess_scores, counter_other_scores)  # fmt: skip


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

    def kernel_params(self) -> tuple:
        """The parameters as `counter_decide` takes them (for compiled code that plays `counter` itself)."""
        hold = HOLD_AUTO if self.hold == "auto" else int(self.hold)
        return (
            np.int64(self.threat), np.int64(hold), np.float64(self.stuck_points), np.float64(self.bluff_prior),
            np.float64(self.challenge_threshold), np.int64(self.save_wilds), np.int64(self.save_pile),
        )  # fmt: skip

    def device_rule(self) -> DeviceRule:
        """Counter's rule on the GPU, its ties broken by each game's own stream there."""
        return DeviceRule(counter_decide_row, self.kernel_params(), self.observation, self._points, self._counts)

    def decide(self, spec, observations, action_masks, actions):
        counter_decide(observations, action_masks, self.rng, spec.offsets, spec.num_players, self._points,
                       self._counts, self.kernel_params(), actions)  # fmt: skip
