"""The compiled rules engine: every rule of the game, once, over a batch of games.

State is one numpy record array of shape (batch,) with dtype `STATE_DTYPE`; the rule set is one record
of dtype `CONFIG_DTYPE`. Every function here is numba-compiled (`cache=True`) and works on a game
record `st` (a view into the batch) and the config `c`; `NUMBA_DISABLE_JIT=1` runs the same code as
Python. Each game carries its own random generator (`rng`, splitmix64), so a game depends only on its
seed and its actions.

Piles hold card kinds (see `cards`); the top of the draw pile and of the discard pile is the last used
entry. Forehead cards of all seats sit in one list (`fh_*`, oldest first) with their owner seat and the
bit mask of colours already guessed wrong for them.

The entry points used from Python take the state array `s` and the 1-element config array `cfg` (plain
ndarrays: numba reads them faster than records): `reset_games`, `setup_dealt`, `fill_masks`,
`first_illegal`, `apply_actions`, `step_one`, `resample_hidden` (for search), `check_one` and `random_play`
(the benchmark loop).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from . import actions as A
from . import cards as C
from . import rules as R

MAX_PLAYERS = R.MAX_PLAYERS
MAX_DECK = R.MAX_DECK_SIZE
#: public actions the state remembers for the `belief` observation's window
RECENT = 8
#: `void_at` of a kind a seat has not shown it lacks this round
NO_VOID = -32768

STATE_DTYPE = np.dtype(
    [
        ("rng", np.uint64),
        ("steps", np.int32),  # decisions taken in this episode
        ("round_points", np.int32),  # points won in the last finished round
        ("phase", np.int8),
        ("seat", np.int8),  # whose decision
        ("direction", np.int8),  # +1 (to the left) or -1
        ("color", np.int8),  # active colour slot, -1 before a first-card wild's colour is chosen
        ("dealer", np.int8),
        ("drawn_kind", np.int8),  # the card drawn, in the `drawn` phase
        ("effect", np.int8),  # what the current turn does to the next player when it ends
        ("color_then", np.int8),  # after the colour choice: end the turn, or begin it (first card)
        ("w4_player", np.int8),
        ("w4_prev_color", np.int8),
        ("w4_guilty", np.int8),
        ("uno_due", np.int8),  # the turn owner's cards dropped to one this turn
        ("done", np.int8),
        ("truncated", np.int8),
        ("round_winner", np.int8),
        ("effect_amount", np.int16),
        ("pending_draw", np.int16),  # the sum of a Draw Two stack
        ("draw_len", np.int16),
        ("discard_len", np.int16),
        ("fh_len", np.int16),
        ("rounds", np.int16),  # rounds finished in this episode
        ("draw_pile", np.uint8, (MAX_DECK,)),
        ("discard", np.uint8, (MAX_DECK,)),
        ("fh_card", np.uint8, (MAX_DECK,)),
        ("fh_seat", np.int8, (MAX_DECK,)),
        ("fh_wrong", np.uint8, (MAX_DECK,)),
        ("hand", np.int8, (MAX_PLAYERS, C.NUM_KINDS)),
        ("face", np.int8, (MAX_PLAYERS,)),  # owes the emoji face check at their next turn start
        ("last_action", np.int16, (MAX_PLAYERS,)),  # each seat's last public action this round, -1 none
        # known[o, h, k]: copies of kind k that seat o knows seat h holds (from an Urrrhhh it gave, a Swap,
        # a challenge), less those h has played since: what a careful player at seat o remembers.
        ("known", np.int8, (MAX_PLAYERS, MAX_PLAYERS, C.NUM_KINDS)),
        # What play reveals, for the `belief` observation (all public): took[h] the cards seat h has taken this
        # round (drawn, or given by an Urrrhhh); void_at[h, k] what took[h] was when h last drew instead of playing
        # while kind k was playable (NO_VOID: not this round), so took - void_at is the cards taken since;
        # named[h, c] the wilds with which h named colour c; draw_ended[h] whether h's last turn ended with a draw
        # and no play; recent_* the last RECENT public actions, a ring.
        ("void_at", np.int16, (MAX_PLAYERS, C.NUM_KINDS)),
        ("named", np.int8, (MAX_PLAYERS, C.NUM_COLORS)),
        ("took", np.int16, (MAX_PLAYERS,)),
        ("draw_ended", np.int8, (MAX_PLAYERS,)),
        ("recent_action", np.int16, (RECENT,)),
        ("recent_seat", np.int8, (RECENT,)),
        ("recent_count", np.int32),  # public actions this round; the newest is at (recent_count - 1) % RECENT
        ("scores", np.int32, (MAX_PLAYERS,)),
        ("winners", np.int8, (MAX_PLAYERS,)),
    ],
    align=True,
)

# The rule set as the compiled code reads it: one field per rule option, named as the option (a "choice"
# option holds the index of its value in the option's choices), then what the game adds.
CONFIG_DTYPE = np.dtype(
    [option.engine_dtype for option in R.OPTIONS]
    + [
        ("num_players", np.int8),
        ("match", np.int8),  # episode="match": rounds until target_score
        ("max_steps", np.int32),
        ("deck_size", np.int16),
    ],
    align=True,
)
UNO_EXPLICIT = R.UNO_CALLS.index("explicit")
PENALTY_SCORING = R.SCORINGS.index("penalty")

# What a turn does to the next player when it ends.
EFFECT_NONE, EFFECT_SKIP, EFFECT_DRAW, EFFECT_CHALLENGE, EFFECT_STACK, EFFECT_FACE = range(6)
# What follows the colour choice.
THEN_END_TURN, THEN_BEGIN_TURN = 0, 1

# The phases are defined in `actions`; short local names for the kernels.
PLAY, COLOR, DRAWN, CHALLENGE_PHASE = A.PHASE_PLAY, A.PHASE_COLOR, A.PHASE_DRAWN, A.PHASE_CHALLENGE
GUESS, GIVE, SWAP_PHASE, EMOJI_PHASE = A.PHASE_GUESS, A.PHASE_GIVE, A.PHASE_SWAP, A.PHASE_EMOJI
UNO_PHASE, OVER = A.PHASE_UNO, A.PHASE_OVER
NK = C.NUM_KINDS
NCK = C.NUM_COLORED_KINDS
RPC = C.RANKS_PER_COLOR
W4 = C.WILD_DRAW_FOUR

#: bits per seat of the packed draw values in `dealer_from_draws` (a value is a rank, 0-9)
DRAW_VALUE_BITS = 4
DRAW_VALUE_MASK = np.int64(15)

# Codes returned by `check_game` (0 = fine); `game.INVARIANT_MESSAGES` explains them.
OK = 0
BAD_CARD_COUNT = 1
NEGATIVE_COUNT = 2
BAD_SEAT = 3
BAD_PHASE = 4
NO_LEGAL_ACTION = 5
BAD_PILE = 6
BAD_COLOR = 7
SCORE_DECREASED = 8
PHANTOM_KNOWLEDGE = 9

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32), np.uint64(11)


# ----------------------------------------------------------------------------------------- random


@njit(cache=True, nogil=True)
def _splitmix(z):
    """splitmix64's output of the advanced state `z`."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True, nogil=True)
def _next_u64(st):
    z = st.rng + _GOLDEN
    st.rng = z
    return _splitmix(z)


@njit(cache=True, nogil=True)
def uniform_from_cell(cell):
    """A uniform float in [0, 1) from the splitmix64 state in cell[0] (advanced): a stream of its own, as a game's,
    for code that has no numpy Generator (an agent deciding on the GPU)."""
    z = cell[0] + _GOLDEN
    cell[0] = z
    return np.float64(_splitmix(z) >> _S11) * (1.0 / 9007199254740992.0)


def uniform(rng):
    """A uniform draw in [0, 1) from `rng`: a numpy Generator (an agent's own, on the CPU), or a one-element uint64
    array holding a splitmix64 state (`uniform_from_cell`: an agent deciding on the GPU, where there is none)."""
    if hasattr(rng, "random"):
        return rng.random()
    return uniform_from_cell(rng)


@overload(uniform)
def _uniform_compiled(rng):
    if isinstance(rng, types.Array):
        return lambda rng: uniform_from_cell(rng)
    return lambda rng: rng.random()


@njit(cache=True, nogil=True)
def _rand_below(st, n):
    """A uniform int in [0, n), n < 2**32."""
    return np.int64(((_next_u64(st) >> _S32) * np.uint64(n)) >> _S32)


@njit(cache=True, nogil=True)
def _rand_unit(st):
    """A uniform float in [0, 1)."""
    return np.float64(_next_u64(st) >> _S11) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True)
def _shuffle(st, arr, n):
    for i in range(n - 1, 0, -1):
        j = _rand_below(st, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


# ------------------------------------------------------------------------------------ card helpers


@njit(cache=True, nogil=True)
def _is_wild(kind):
    return kind >= NCK


@njit(cache=True, nogil=True)
def _guess_right(kind, color):
    """The Narwhal guess rule: naming `color` guesses a forehead card `kind` right if it is that colour or wild."""
    return kind >= NCK or kind // RPC == color


@njit(cache=True, nogil=True)
def _next_seat(st, c, seat):
    return (seat + st.direction) % c.num_players


@njit(cache=True, nogil=True)
def hand_count(st, seat):
    n = 0
    for k in range(NK):
        n += st.hand[seat, k]
    return n


@njit(cache=True, nogil=True)
def _forehead_count(st, seat):
    n = 0
    for i in range(st.fh_len):
        if st.fh_seat[i] == seat:
            n += 1
    return n


@njit(cache=True, nogil=True)
def _oldest_forehead(st, seat):
    for i in range(st.fh_len):
        if st.fh_seat[i] == seat:
            return i
    return -1


@njit(cache=True, nogil=True)
def _card_total(st, seat):
    return hand_count(st, seat) + _forehead_count(st, seat)


@njit(cache=True, nogil=True)
def _holds_color(st, seat, color):
    base = color * RPC
    for r in range(RPC):
        if st.hand[seat, base + r] > 0:
            return True
    return False


@njit(cache=True, nogil=True)
def wild_draw_four_legal(hand, color):
    """The Wild Draw Four rule: legal only for a hand (copies per kind) without a card of the active colour
    `color` (-1: none chosen yet). The engine judges challenges by it; agents call it with what they see."""
    if color < 0:
        return True
    base = color * RPC
    for r in range(RPC):
        if hand[base + r] > 0:
            return False
    return True


@njit(cache=True, nogil=True)
def _holds_number(st, seat):
    for color in range(C.NUM_COLORS):
        for r in range(C.SKIP_RANK):
            if st.hand[seat, color * RPC + r] > 0:
                return True
    return False


@njit(cache=True, nogil=True)
def _top(st):
    return st.discard[st.discard_len - 1]


@njit(cache=True, nogil=True)
def _playable(st, c, seat, kind):
    """Can `seat` play `kind` now (outside a Draw Two stack)?"""
    if kind >= NCK:
        if kind == C.EMOJI:
            return _holds_number(st, seat)
        if kind == W4 and c.challenge_wild_draw_four == 0:
            return wild_draw_four_legal(st.hand[seat], st.color)
        return True
    return _matches_top(st, kind)


@njit(cache=True, nogil=True)
def _matches_top(st, kind):
    """A coloured `kind` matches the active colour or the top card's rank."""
    if kind // RPC == st.color:
        return True
    top = _top(st)
    return top < NCK and top % RPC == kind % RPC


# ------------------------------------------------------------------------------------------ piles


@njit(cache=True, nogil=True)
def _reshuffle(st):
    """The discard pile but its top card becomes the new, shuffled draw pile."""
    n = st.discard_len - 1
    if n <= 0:
        return
    base = st.draw_len
    for i in range(n):
        st.draw_pile[base + i] = st.discard[i]
    st.discard[0] = st.discard[n]
    st.discard_len = 1
    st.draw_len = base + n
    _shuffle(st, st.draw_pile, st.draw_len)


@njit(cache=True, nogil=True)
def _pop_draw(st):
    """The top card of the draw pile (reshuffling when empty), or -1 when there is none."""
    if st.draw_len == 0:
        _reshuffle(st)
        if st.draw_len == 0:
            return -1
    st.draw_len -= 1
    return np.int64(st.draw_pile[st.draw_len])


@njit(cache=True, nogil=True)
def _draw_cards(st, seat, n):
    """`seat` draws up to n cards; returns the last card drawn, or -1 if none."""
    kind = -1
    for _ in range(n):
        kind = _pop_draw(st)
        if kind < 0:
            return -1
        st.hand[seat, kind] += 1
        _took_card(st, seat)
    return kind


@njit(cache=True, nogil=True)
def _took_card(st, seat):
    """`seat` took a card (public: everyone sees cards taken); its void records grow one card older."""
    if st.took[seat] < 32767:
        st.took[seat] += 1


@njit(cache=True, nogil=True)
def _publicly_playable(st, c, kind):
    """Whether everyone can tell that `kind` would be playable now: by colour or rank, or a wild whose play
    does not depend on the hand (an Emoji Wild needs a number card, a Wild Draw Four without a challenge needs
    no card of the colour: those are the holder's secret)."""
    if kind >= NCK:
        if kind == C.EMOJI:
            return False
        if kind == W4 and c.challenge_wild_draw_four == 0:
            return False
        return True
    return _matches_top(st, kind)


@njit(cache=True, nogil=True)
def _note_public(st, seat, action):
    """Remember a public action in the recent-actions ring."""
    at = st.recent_count % RECENT
    st.recent_action[at] = action
    st.recent_seat[at] = seat
    st.recent_count += 1


@njit(cache=True, nogil=True)
def _push_discard(st, kind):
    st.discard[st.discard_len] = kind
    st.discard_len += 1


@njit(cache=True, nogil=True)
def _remove_forehead(st, index):
    for i in range(index, st.fh_len - 1):
        st.fh_card[i] = st.fh_card[i + 1]
        st.fh_seat[i] = st.fh_seat[i + 1]
        st.fh_wrong[i] = st.fh_wrong[i + 1]
    st.fh_len -= 1


@njit(cache=True, nogil=True)
def _discard_at_bottom(st, kind):
    for i in range(st.discard_len, 0, -1):
        st.discard[i] = st.discard[i - 1]
    st.discard[0] = kind
    st.discard_len += 1


# ----------------------------------------------------------------------------- rounds and turns


@njit(cache=True, nogil=True)
def _clear_round(st):
    st.draw_len = 0
    st.discard_len = 0
    st.fh_len = 0
    st.hand[:, :] = 0
    st.face[:] = 0
    st.last_action[:] = -1
    st.known[:, :, :] = 0
    st.void_at[:, :] = NO_VOID
    st.named[:, :] = 0
    st.took[:] = 0
    st.draw_ended[:] = 0
    st.recent_action[:] = -1
    st.recent_seat[:] = -1
    st.recent_count = 0
    st.pending_draw = 0
    st.effect = EFFECT_NONE
    st.effect_amount = 0
    st.drawn_kind = -1
    st.uno_due = 0
    st.w4_player = -1
    st.w4_prev_color = -1
    st.w4_guilty = 0
    st.color_then = THEN_END_TURN
    st.direction = 1
    st.color = -1


@njit(cache=True, nogil=True)
def _fill_deck(st, c):
    n = 0
    for k in range(NK):
        for _ in range(c.card_counts[k]):
            st.draw_pile[n] = k
            n += 1
    st.draw_len = n
    _shuffle(st, st.draw_pile, n)


@njit(cache=True, nogil=True)
def _choose_dealer(st, c):
    """Shuffle the whole deck and let the players draw for the deal (the cards go back afterwards)."""
    _fill_deck(st, c)
    return dealer_from_draws(st, c)


@njit(cache=True, nogil=True)
def dealer_draw_value(kind):
    """What a card counts in the draw for the deal: a number its rank, an action or wild card 0."""
    return kind % RPC if (kind < NCK and kind % RPC < C.SKIP_RANK) else 0


@njit(cache=True, nogil=True)
def dealer_from_draws(st, c):
    """Players draw in seat order from the top of the draw pile; the highest `dealer_draw_value` deals;
    players tied for highest draw again among themselves (so a deck whose cards all count the same never
    ends the draw: `game.make_config` refuses it)."""
    nplayers = c.num_players
    contenders = (np.int64(1) << nplayers) - 1  # bit p: seat p still draws
    values = np.int64(0)  # DRAW_VALUE_BITS per seat: the value of its last draw (no scratch array: device code)
    pos = st.draw_len
    while True:
        best = -1
        for p in range(nplayers):
            if (contenders >> p) & 1:
                if pos == 0:
                    _shuffle(st, st.draw_pile, st.draw_len)
                    pos = st.draw_len
                pos -= 1
                value = np.int64(dealer_draw_value(st.draw_pile[pos]))
                shift = DRAW_VALUE_BITS * p
                values = (values & ~(DRAW_VALUE_MASK << shift)) | (value << shift)
                best = max(best, value)
        n_best = 0
        dealer = -1
        for p in range(nplayers):
            if (contenders >> p) & 1 and (values >> (DRAW_VALUE_BITS * p)) & DRAW_VALUE_MASK == best:
                n_best += 1
                dealer = p
            else:
                contenders &= ~(np.int64(1) << p)
        if n_best == 1:
            return dealer


@njit(cache=True, nogil=True)
def _begin_turn_body(st, c, seat):
    """The turn proper of `seat`: its Narwhal guesses first, then its play."""
    st.seat = seat
    st.uno_due = 0
    st.phase = GUESS if _oldest_forehead(st, seat) >= 0 else PLAY


@njit(cache=True, nogil=True)
def _turn_start_check(st, c, seat):
    """What happens as the turn reaches `seat`, even a turn that is then skipped: the emoji face."""
    if st.face[seat]:
        st.face[seat] = 0
        if c.emoji_face_fail_rate > 0.0 and _rand_unit(st) < c.emoji_face_fail_rate:
            _draw_cards(st, seat, 4)


@njit(cache=True, nogil=True)
def _start_turn(st, c, seat):
    _turn_start_check(st, c, seat)
    _begin_turn_body(st, c, seat)


@njit(cache=True, nogil=True)
def _skip_turn(st, c, seat, draw):
    """`seat` loses its turn (after drawing `draw` cards); the next seat plays."""
    _turn_start_check(st, c, seat)
    if draw > 0:
        _draw_cards(st, seat, draw)
    _start_turn(st, c, _next_seat(st, c, seat))


@njit(cache=True, nogil=True)
def _open_round(st, c, placed):
    """Turn the first card and apply its effect. `placed`: cards on top of the draw pile set by a deal."""
    first = (st.dealer + 1) % c.num_players
    while True:
        kind = _pop_draw(st)
        if placed > 0:
            placed -= 1
        if kind != W4:
            break
        # A Wild Draw Four goes back: below any placed cards, and the pile is reshuffled if none are.
        n = st.draw_len
        at = _rand_below(st, n - placed + 1)
        for i in range(n, at, -1):
            st.draw_pile[i] = st.draw_pile[i - 1]
        st.draw_pile[at] = kind
        st.draw_len = n + 1
        if placed == 0:
            _shuffle(st, st.draw_pile, st.draw_len)
    _push_discard(st, kind)
    if kind >= NCK:
        st.seat = first
        st.phase = COLOR
        st.color_then = THEN_BEGIN_TURN
        return
    st.color = kind // RPC
    rank = kind % RPC
    if rank == C.SKIP_RANK:
        _skip_turn(st, c, first, 0)
    elif rank == C.REVERSE_RANK:
        st.direction = -1
        _start_turn(st, c, st.dealer)
    elif rank == C.DRAW_TWO_RANK:
        _skip_turn(st, c, first, 2)
    else:
        _start_turn(st, c, first)


@njit(cache=True, nogil=True)
def _deal_round(st, c):
    """Shuffle the whole deck, deal from the dealer's left, turn the first card."""
    _clear_round(st)
    _fill_deck(st, c)
    nplayers = c.num_players
    for i in range(c.hand_size * nplayers):
        seat = (st.dealer + 1 + i) % nplayers
        st.draw_len -= 1
        st.hand[seat, st.draw_pile[st.draw_len]] += 1
    _open_round(st, c, 0)


@njit(cache=True, nogil=True)
def _end_episode(st):
    st.phase = OVER
    st.done = 1


@njit(cache=True, nogil=True)
def _held_points(st, c, seat):
    """The card points `seat` holds (hand and forehead) when a round ends."""
    held = 0
    for k in range(NK):
        held += np.int64(st.hand[seat, k]) * c.card_points[k]
    for i in range(st.fh_len):
        if st.fh_seat[i] == seat:
            held += c.card_points[st.fh_card[i]]
    return held


@njit(cache=True, nogil=True)
def _finish_round(st, c, winner):
    """`winner` went out: score the round; then end the episode or deal the next round of a match."""
    nplayers = c.num_players
    won = 0
    for p in range(nplayers):
        held = _held_points(st, c, p)
        if p != winner:
            won += held
        if c.scoring == PENALTY_SCORING:
            st.scores[p] += held
    if c.scoring != PENALTY_SCORING:
        st.scores[winner] += won
    st.round_winner = winner
    st.round_points = won
    st.rounds += 1
    st.seat = winner
    if not c.match:
        st.winners[winner] = 1
        _end_episode(st)
        return
    if c.scoring == PENALTY_SCORING:
        reached = False
        lowest = st.scores[0]
        for p in range(nplayers):
            reached = reached or st.scores[p] >= c.target_score
            lowest = min(lowest, st.scores[p])
        if reached:
            for p in range(nplayers):
                st.winners[p] = st.scores[p] == lowest
            _end_episode(st)
            return
    elif st.scores[winner] >= c.target_score:
        st.winners[winner] = 1
        _end_episode(st)
        return
    st.dealer = (st.dealer + 1) % nplayers
    _deal_round(st, c)


@njit(cache=True, nogil=True)
def _advance(st, c):
    """The turn of `st.seat` is over: apply its effect on the next player and start the next turn."""
    nxt = _next_seat(st, c, st.seat)
    effect = st.effect
    st.effect = EFFECT_NONE
    if effect == EFFECT_SKIP:
        _skip_turn(st, c, nxt, 0)
    elif effect == EFFECT_DRAW:
        _skip_turn(st, c, nxt, st.effect_amount)
    elif effect == EFFECT_CHALLENGE:
        _turn_start_check(st, c, nxt)
        st.seat = nxt
        st.phase = CHALLENGE_PHASE
    elif effect == EFFECT_FACE:
        _start_turn(st, c, nxt)
        st.face[nxt] = 1
    else:  # EFFECT_NONE, EFFECT_STACK (the stack waits in pending_draw)
        _start_turn(st, c, nxt)


@njit(cache=True, nogil=True)
def _end_turn(st, c):
    """The turn's last decision is made: the UNO call if due, then on to the next player."""
    if c.uno_call == UNO_EXPLICIT and st.uno_due and _card_total(st, st.seat) == 1:
        st.phase = UNO_PHASE
        return
    _advance(st, c)


@njit(cache=True, nogil=True)
def _note_drop(st, seat):
    """Cards left `seat` during its turn: remember if it is down to one (for the UNO call)."""
    if _card_total(st, seat) == 1:
        st.uno_due = 1


@njit(cache=True, nogil=True)
def _went_out(st, c, seat):
    """If `seat` holds no card (hand and forehead), it wins the round; returns whether it did."""
    if _card_total(st, seat) != 0:
        return False
    _finish_round(st, c, seat)
    return True


@njit(cache=True, nogil=True)
def _forget_played(st, c, holder, kind):
    """`holder` played a card of `kind`: whoever knew of such a card in its hand knows one fewer."""
    for o in range(c.num_players):
        if st.known[o, holder, kind] > 0:
            st.known[o, holder, kind] -= 1


@njit(cache=True, nogil=True)
def _play_card(st, c, seat, kind):
    """`seat` plays `kind` from its hand (already known to be legal)."""
    st.hand[seat, kind] -= 1
    _forget_played(st, c, seat, kind)
    if kind == W4:
        st.w4_player = seat
        st.w4_prev_color = st.color
        st.w4_guilty = not wild_draw_four_legal(st.hand[seat], st.color)
    _push_discard(st, kind)
    _note_drop(st, seat)
    if kind < NCK:
        st.color = kind // RPC
    if _card_total(st, seat) == 0:
        # Going out: a last Draw Two or Wild Draw Four still makes the next player draw.
        amount = 0
        if kind < NCK and kind % RPC == C.DRAW_TWO_RANK:
            amount = st.pending_draw + 2
        elif kind == W4:
            amount = 4
        st.pending_draw = 0
        if amount > 0:
            _draw_cards(st, _next_seat(st, c, seat), amount)
        _finish_round(st, c, seat)
        return
    st.effect = EFFECT_NONE
    st.color_then = THEN_END_TURN
    if kind < NCK:
        rank = kind % RPC
        if rank == C.SKIP_RANK:
            st.effect = EFFECT_SKIP
        elif rank == C.REVERSE_RANK:
            st.direction = -st.direction
            if c.num_players == 2 and c.two_player_reverse_is_skip:
                st.effect = EFFECT_SKIP
        elif rank == C.DRAW_TWO_RANK:
            if c.stack_draw_two:
                st.pending_draw += 2
                st.effect = EFFECT_STACK
            else:
                st.effect = EFFECT_DRAW
                st.effect_amount = 2
        _end_turn(st, c)
        return
    st.phase = COLOR
    if kind == W4:
        if c.challenge_wild_draw_four:
            st.effect = EFFECT_CHALLENGE
        else:
            st.effect = EFFECT_DRAW
            st.effect_amount = 4
    elif kind == C.NARWHAL:
        _hand_out_narwhal(st, c, seat)
    elif kind == C.URRRHHH:
        for color in range(C.NUM_COLORS):
            if _holds_color(st, seat, color):
                st.phase = GIVE
    elif kind == C.EMOJI:
        st.phase = EMOJI_PHASE
        st.effect = EFFECT_FACE
    elif kind == C.SWAP:
        st.phase = SWAP_PHASE


@njit(cache=True, nogil=True)
def _hand_out_narwhal(st, c, seat):
    """Every player, from the next along the direction of play, draws a forehead card (the player last)."""
    nplayers = c.num_players
    count = nplayers if c.narwhal_includes_player else nplayers - 1
    p = seat
    for _ in range(count):
        p = _next_seat(st, c, p)
        kind = _pop_draw(st)
        if kind < 0:
            return
        st.fh_card[st.fh_len] = kind
        st.fh_seat[st.fh_len] = p
        st.fh_wrong[st.fh_len] = 0
        st.fh_len += 1


@njit(cache=True, nogil=True)
def _give_away(st, c, seat, color):
    """Creeperific "Urrrhhh": every card of `color`, in random order, to seat+1, seat+2, ... round and round."""
    nplayers = c.num_players
    # The cards given lie in the free tail of the draw pile while they are shuffled: draw_len + n < the deck's
    # size, as the colour's cards are in the hand (no scratch array: this also runs as device code).
    given = st.draw_pile[st.draw_len :]
    n = 0
    base = color * RPC
    for r in range(RPC):
        for _ in range(st.hand[seat, base + r]):
            given[n] = base + r
            n += 1
        st.hand[seat, base + r] = 0
    _shuffle(st, given, n)
    for i in range(n):
        receiver = (seat + 1 + i % (nplayers - 1)) % nplayers
        st.hand[receiver, given[i]] += 1
        _took_card(st, receiver)
        st.known[seat, receiver, given[i]] += 1  # the giver knows which card went to whom
    for o in range(nplayers):
        for r in range(RPC):
            st.known[o, seat, base + r] = 0  # everyone saw the whole colour leave


@njit(cache=True, nogil=True)
def _swap_hands(st, c, a, b):
    """Wild Swap: a and b exchange hands. Both know both hands; what others knew moves with the hands."""
    for k in range(NK):
        t = st.hand[a, k]
        st.hand[a, k] = st.hand[b, k]
        st.hand[b, k] = t
        age_a = np.int64(st.took[a]) - st.void_at[a, k] if st.void_at[a, k] != NO_VOID else -1
        age_b = np.int64(st.took[b]) - st.void_at[b, k] if st.void_at[b, k] != NO_VOID else -1
        st.void_at[a, k] = np.int64(st.took[a]) - age_b if age_b >= 0 else NO_VOID
        st.void_at[b, k] = np.int64(st.took[b]) - age_a if age_a >= 0 else NO_VOID
        for o in range(c.num_players):
            if o != a and o != b:
                t = st.known[o, a, k]
                st.known[o, a, k] = st.known[o, b, k]
                st.known[o, b, k] = t
        st.known[a, b, k] = st.hand[b, k]
        st.known[b, a, k] = st.hand[a, k]


@njit(cache=True, nogil=True)
def _take_stack(st, c, seat):
    """`seat` takes the whole Draw Two stack and its turn ends."""
    _draw_cards(st, seat, st.pending_draw)
    st.pending_draw = 0
    st.effect = EFFECT_NONE
    _end_turn(st, c)


# ------------------------------------------------------------------------------------- decisions


@njit(cache=True, nogil=True)
def _apply(st, c, action):
    """Apply one legal action to one game."""
    seat = np.int64(st.seat)
    phase = st.phase
    if not (phase == DRAWN and action == A.PASS):
        # Public record of the seat's last action. Keeping a drawn card stays "draw": others cannot tell
        # a kept playable card from an unplayable one.
        st.last_action[seat] = action
        _note_public(st, seat, action)
    if phase == PLAY:
        if action == A.DRAW:
            if st.pending_draw > 0:
                _take_stack(st, c, seat)
                return
            for k in range(NK):  # it drew instead of playing: it showed it held none of these (or chose not to)
                if c.card_counts[k] > 0 and _publicly_playable(st, c, k):
                    st.void_at[seat, k] = st.took[seat]
            kind = _draw_cards(st, seat, 1)
            if kind >= 0 and _playable(st, c, seat, kind):
                st.phase = DRAWN
                st.drawn_kind = kind
                return
            st.draw_ended[seat] = 1
            st.effect = EFFECT_NONE
            _end_turn(st, c)
            return
        st.draw_ended[seat] = 0
        _play_card(st, c, seat, action)
    elif phase == DRAWN:
        st.drawn_kind = -1
        if action == A.PASS:
            st.draw_ended[seat] = 1
            st.effect = EFFECT_NONE
            _end_turn(st, c)
            return
        st.draw_ended[seat] = 0
        _play_card(st, c, seat, action)
    elif phase == COLOR:
        st.color = action - A.COLOR_BASE
        if st.named[seat, st.color] < 127:
            st.named[seat, st.color] += 1
        if st.color_then == THEN_BEGIN_TURN:
            st.color_then = THEN_END_TURN
            _begin_turn_body(st, c, seat)
        else:
            _end_turn(st, c)
    elif phase == CHALLENGE_PHASE:
        if action == A.ACCEPT:
            _skip_turn_drawn(st, c, seat, 4)
            return
        _show_hand(st, seat, st.w4_player)
        if st.w4_guilty:
            _draw_cards(st, st.w4_player, 4)
            _begin_turn_body(st, c, seat)
        else:
            _skip_turn_drawn(st, c, seat, 6)
    elif phase == GUESS:
        index = _oldest_forehead(st, seat)
        kind = st.fh_card[index]
        color = action - A.COLOR_BASE
        if _guess_right(kind, color):
            _remove_forehead(st, index)
            _discard_at_bottom(st, kind)
            _note_drop(st, seat)
            if _went_out(st, c, seat):
                return
            if _oldest_forehead(st, seat) < 0:
                st.phase = PLAY
        else:
            st.fh_wrong[index] |= np.uint8(1 << color)
            if st.pending_draw > 0:
                _take_stack(st, c, seat)
                return
            st.effect = EFFECT_NONE
            _end_turn(st, c)
    elif phase == GIVE:
        _give_away(st, c, seat, action - A.COLOR_BASE)
        _note_drop(st, seat)
        if not _went_out(st, c, seat):
            st.phase = COLOR
    elif phase == SWAP_PHASE:
        if action != A.PASS:
            other = (seat + action - A.SWAP_BASE) % c.num_players
            _swap_hands(st, c, seat, other)
            _note_drop(st, seat)
            if _went_out(st, c, seat) or _went_out(st, c, other):
                return
        st.phase = COLOR
    elif phase == EMOJI_PHASE:
        st.hand[seat, action] -= 1
        _forget_played(st, c, seat, action)
        _push_discard(st, action)
        st.color = action // RPC
        _note_drop(st, seat)
        if not _went_out(st, c, seat):
            _end_turn(st, c)
    elif phase == UNO_PHASE:
        st.uno_due = 0
        if action == A.PASS and c.uno_catch_rate > 0.0:
            if c.uno_catch_rate >= 1.0 or _rand_unit(st) < c.uno_catch_rate:
                _draw_cards(st, seat, c.uno_penalty)
        _advance(st, c)


@njit(cache=True, nogil=True)
def _show_hand(st, viewer, holder):
    """A challenge shows `holder`'s hand to `viewer`, who remembers it."""
    for k in range(NK):
        st.known[viewer, holder, k] = st.hand[holder, k]


@njit(cache=True, nogil=True)
def _skip_turn_drawn(st, c, seat, n):
    """After a Wild Draw Four answer: `seat` draws n and loses its turn (its turn start already ran)."""
    _draw_cards(st, seat, n)
    _start_turn(st, c, _next_seat(st, c, seat))


@njit(cache=True, nogil=True)
def step_game(st, c, action):
    _apply(st, c, action)
    st.steps += 1
    if not st.done and st.steps >= c.max_steps:
        st.truncated = 1
        _end_episode(st)


# ----------------------------------------------------------------------------------- legal masks


@njit(cache=True, nogil=True)
def fill_mask(st, c, m):
    """Write the legal actions of the deciding seat into `m` (length NUM_ACTIONS)."""
    m[:] = 0
    seat = st.seat
    phase = st.phase
    if phase == PLAY:
        if st.pending_draw > 0:
            for color in range(C.NUM_COLORS):
                kind = color * RPC + C.DRAW_TWO_RANK
                if st.hand[seat, kind] > 0:
                    m[kind] = 1
        else:
            for kind in range(NK):
                if st.hand[seat, kind] > 0 and _playable(st, c, seat, kind):
                    m[kind] = 1
        m[A.DRAW] = 1
    elif phase == DRAWN:
        m[st.drawn_kind] = 1
        m[A.PASS] = 1
    elif phase == COLOR:
        m[A.COLOR_BASE : A.COLOR_BASE + C.NUM_COLORS] = 1
    elif phase == CHALLENGE_PHASE:
        m[A.CHALLENGE] = 1
        m[A.ACCEPT] = 1
    elif phase == GUESS:
        wrong = st.fh_wrong[_oldest_forehead(st, seat)]
        for color in range(C.NUM_COLORS):
            if not (wrong >> color) & 1:
                m[A.COLOR_BASE + color] = 1
    elif phase == GIVE:
        for color in range(C.NUM_COLORS):
            if _holds_color(st, seat, color):
                m[A.COLOR_BASE + color] = 1
    elif phase == SWAP_PHASE:
        m[A.PASS] = 1
        for k in range(1, c.num_players):
            m[A.SWAP_BASE + k] = 1
    elif phase == EMOJI_PHASE:
        for color in range(C.NUM_COLORS):
            for r in range(C.SKIP_RANK):
                if st.hand[seat, color * RPC + r] > 0:
                    m[color * RPC + r] = 1
    elif phase == UNO_PHASE:
        m[A.UNO] = 1
        m[A.PASS] = 1


# ------------------------------------------------------------------------------- hidden cards

# What `resample_hidden` returns.
RESAMPLED, RESAMPLE_OVER, RESAMPLE_UNFIT, RESAMPLE_VOIDS_UNMET = range(4)
RESAMPLE_TRIES = 10_000  # shuffles tried for the seat's own forehead cards to fit its wrong guesses
VOID_TRIES = 2_000  # random partners tried for one card of the void repair
VOID_REDEALS = 50  # redeals tried before the void repair gives up
VOID_SWAPS = 4  # the void walk's swaps per hidden hand card


@njit(cache=True, nogil=True)
def _forehead_fits(kind, wrong):
    """Whether `kind` can be a forehead card whose colours in the bit mask `wrong` were guessed wrong."""
    for color in range(C.NUM_COLORS):
        if (wrong >> color) & 1 and _guess_right(kind, color):
            return False
    return True


@njit(cache=True, nogil=True)
def _resample_hidden(st, c, seed):
    """Redeal what the deciding seat cannot see (see `resample_hidden`); returns RESAMPLED or why not."""
    if st.done:
        return RESAMPLE_OVER
    viewer = st.seat
    nplayers = c.num_players
    pool = np.empty(MAX_DECK, np.uint8)
    size = 0
    for i in range(st.draw_len):
        pool[size] = st.draw_pile[i]
        size += 1
    for i in range(st.fh_len):
        if st.fh_seat[i] == viewer:
            pool[size] = st.fh_card[i]
            size += 1
    unknown = np.zeros(MAX_PLAYERS, np.int64)  # cards of each other hand the viewer does not know
    for h in range(nplayers):
        if h != viewer:
            for k in range(NK):
                u = st.hand[h, k] - st.known[viewer, h, k]
                for _ in range(u):
                    pool[size] = k
                    size += 1
                unknown[h] += u
    # In kind order, so that the redeal depends only on what the seat sees (not on where the cards really are).
    pool[:size] = np.sort(pool[:size])
    st.rng = np.uint64(seed)
    _next_u64(st)
    fits = False
    for _ in range(RESAMPLE_TRIES):
        _shuffle(st, pool, size)
        fits = True
        j = 0
        for i in range(st.fh_len):
            if st.fh_seat[i] == viewer:
                if not _forehead_fits(pool[j], st.fh_wrong[i]):
                    fits = False
                    break
                j += 1
        if fits:
            break
    if not fits:
        return RESAMPLE_UNFIT
    j = 0
    for i in range(st.fh_len):
        if st.fh_seat[i] == viewer:
            st.fh_card[i] = pool[j]
            j += 1
    for h in range(nplayers):
        if h != viewer:
            for k in range(NK):
                st.hand[h, k] = st.known[viewer, h, k]
            for _ in range(unknown[h]):
                st.hand[h, pool[j]] += 1
                j += 1
    st.draw_len = size - j
    for i in range(st.draw_len):
        st.draw_pile[i] = pool[j + i]
    # What another seat knows of a third hand is hidden from the seat: forgotten in the redealt world. What
    # it knows of the seat's own hand (which the seat saw it learn) stays.
    for o in range(nplayers):
        if o != viewer:
            for h in range(nplayers):
                if h != viewer:
                    st.known[o, h, :] = 0
    # Whether a waiting Wild Draw Four was legal follows from the redealt hand, by the rule itself.
    if st.phase == CHALLENGE_PHASE:
        st.w4_guilty = not wild_draw_four_legal(st.hand[st.w4_player], st.w4_prev_color)
    else:
        st.w4_guilty = 0  # stale from an earlier Wild Draw Four, and hidden
    return RESAMPLED


@njit(cache=True, nogil=True)
def _void_levels(st, c, viewer, levels, limit, count):
    """What the other seats' draws showed they lacked, as nested limits. Seat h drew instead of playing while
    coloured kind k was playable when it had taken void_at[h, k] cards this round, so every copy of k it holds
    now came among the cards it took since. For each such moment t (levels[h, j], count[h] of them), the copies
    it holds of the kinds it lacked at t or later number at most took[h] - t (limit[h, j]). Wild cards are left
    free: a player may keep a wild and draw."""
    for h in range(c.num_players):
        count[h] = 0
        if h == viewer:
            continue
        for k in range(NCK):
            t = st.void_at[h, k]
            if t == NO_VOID:
                continue
            seen = False
            for j in range(count[h]):
                seen = seen or levels[h, j] == t
            if not seen:
                levels[h, count[h]] = t
                limit[h, count[h]] = max(0, np.int64(st.took[h]) - t)
                count[h] += 1


@njit(cache=True, nogil=True)
def _lacked_since(st, h, kind, t):
    """Whether seat h showed it lacked coloured `kind` when it had taken t cards or later: a card of it counts in
    the limit of moment t (`_void_levels`)."""
    return kind < NCK and st.void_at[h, kind] != NO_VOID and st.void_at[h, kind] >= t


@njit(cache=True, nogil=True)
def _void_fits(st, h, levels, limit, count, usage, out_kind, in_kind):
    """Whether seat h may give a card of `out_kind` for one of `in_kind`: no limit it keeps is passed, and none it
    passes grows (a repair may go through worlds that pass a limit, never away from one)."""
    for j in range(count[h]):
        t = levels[h, j]
        delta = np.int64(_lacked_since(st, h, in_kind, t)) - np.int64(_lacked_since(st, h, out_kind, t))
        if delta > 0 and usage[h, j] + delta > limit[h, j]:
            return False
    return True


@njit(cache=True, nogil=True)
def _void_move(st, h, levels, count, usage, kind, sign):
    """Count one card of `kind` in (sign 1) or out of (sign -1) seat h's limits."""
    for j in range(count[h]):
        if _lacked_since(st, h, kind, levels[h, j]):
            usage[h, j] += sign


@njit(cache=True, nogil=True)
def _void_swap_fits(st, levels, limit, count, usage, owner, kind, u, v):
    """Whether the cards at hidden places u (a hand) and v (a hand or the draw pile) may trade places: two holders,
    two kinds, and `_void_fits` for each hand."""
    h, o, k, k2 = owner[u], owner[v], kind[u], kind[v]
    if o == h or k2 == k or not _void_fits(st, h, levels, limit, count, usage, k, k2):
        return False
    return o < 0 or _void_fits(st, o, levels, limit, count, usage, k2, k)


@njit(cache=True, nogil=True)
def _void_swap(st, levels, count, usage, owner, kind, u, v):
    """Swap the cards at hidden places u (a hand) and v (a hand or the draw pile)."""
    h, o, k, k2 = owner[u], owner[v], kind[u], kind[v]
    _void_move(st, h, levels, count, usage, k, -1)
    _void_move(st, h, levels, count, usage, k2, 1)
    if o >= 0:
        _void_move(st, o, levels, count, usage, k2, -1)
        _void_move(st, o, levels, count, usage, k, 1)
    kind[u] = k2
    kind[v] = k


@njit(cache=True, nogil=True)
def _respect_voids(st, c, viewer):
    """Move the cards of a redealt world (`_resample_hidden`) so that every other seat keeps `_void_levels`'
    limits: a repair (a card in a passed limit swapped with a random card the two holders may take), then
    VOID_SWAPS random swaps per hidden hand card that keep every limit (a Metropolis walk whose stationary law
    is uniform over the worlds that keep them). Returns RESAMPLED, or RESAMPLE_VOIDS_UNMET when the repair
    found no swap for a card."""
    nplayers = c.num_players
    levels = np.empty((MAX_PLAYERS, NCK), np.int64)
    limit = np.empty((MAX_PLAYERS, NCK), np.int64)
    count = np.zeros(MAX_PLAYERS, np.int64)
    _void_levels(st, c, viewer, levels, limit, count)
    usage = np.zeros((MAX_PLAYERS, NCK), np.int64)
    owner = np.empty(2 * MAX_DECK, np.int8)  # a hidden card's holder, -1 for the draw pile
    kind = np.empty(2 * MAX_DECK, np.uint8)
    held = 0
    for h in range(nplayers):
        if h != viewer:
            for k in range(NK):
                for _ in range(st.hand[h, k]):
                    _void_move(st, h, levels, count, usage, k, 1)
                for _ in range(st.hand[h, k] - st.known[viewer, h, k]):
                    owner[held] = h
                    kind[held] = k
                    held += 1
    total = held + st.draw_len
    for i in range(st.draw_len):
        owner[held + i] = -1
        kind[held + i] = st.draw_pile[i]
    for u in range(held):  # the repair: a card in a limit its holder passes goes
        h = owner[u]
        passed = False
        for j in range(count[h]):
            passed = passed or (usage[h, j] > limit[h, j] and _lacked_since(st, h, kind[u], levels[h, j]))
        if not passed:
            continue
        swapped = False
        for _ in range(VOID_TRIES):
            v = _rand_below(st, total)
            if _void_swap_fits(st, levels, limit, count, usage, owner, kind, u, v):
                _void_swap(st, levels, count, usage, owner, kind, u, v)
                swapped = True
                break
        if not swapped:
            return RESAMPLE_VOIDS_UNMET
    for h in range(nplayers):
        for j in range(count[h]):
            if usage[h, j] > limit[h, j]:
                return RESAMPLE_VOIDS_UNMET
    for _ in range(VOID_SWAPS * held):  # the walk
        u = _rand_below(st, held)
        v = _rand_below(st, total)
        if _void_swap_fits(st, levels, limit, count, usage, owner, kind, u, v):
            _void_swap(st, levels, count, usage, owner, kind, u, v)
    for h in range(nplayers):
        if h != viewer:
            st.hand[h, :NK] = st.known[viewer, h, :NK]
    for u in range(held):
        st.hand[owner[u], kind[u]] += 1
    for i in range(st.draw_len):
        st.draw_pile[i] = kind[held + i]
    if st.phase == CHALLENGE_PHASE:
        st.w4_guilty = not wild_draw_four_legal(st.hand[st.w4_player], st.w4_prev_color)
    return RESAMPLED


@njit(cache=True, nogil=True)
def _resample_draw_pile(st, seed):
    """Shuffle the draw pile and reseed the future chance events (see `resample_draw_pile`)."""
    if st.done:
        return RESAMPLE_OVER
    st.rng = np.uint64(seed)
    _next_u64(st)
    _shuffle(st, st.draw_pile, st.draw_len)
    return RESAMPLED


# --------------------------------------------------------------------------------- entry points


@njit(cache=True, nogil=True)
def _new_episode(st, seed):
    """Seed the game's generator and clear everything an episode accumulates."""
    st.rng = np.uint64(seed)
    _next_u64(st)
    st.steps = 0
    st.done = 0
    st.truncated = 0
    st.rounds = 0
    st.round_winner = -1
    st.round_points = 0
    st.scores[:] = 0
    st.winners[:] = 0


@njit(cache=True, nogil=True)
def reset_game(st, c, seed):
    _new_episode(st, seed)
    st.dealer = _choose_dealer(st, c)
    _deal_round(st, c)


@njit(cache=True, nogil=True)
def reset_games(s, cfg, seeds, which):
    """Start a new episode in every game g with which[g], from seeds[g]."""
    c = cfg[0]
    for g in range(s.shape[0]):
        if which[g]:
            reset_game(s[g], c, seeds[g])


@njit(cache=True, nogil=True)
def setup_dealt(s, cfg, g, seed, dealer, hands, fh_cards, fh_seats, top_first, rest, scores):
    """Start game g from a dealt scenario: `top_first` is the first card then the deck, top first;
    `rest` (the unplaced cards) goes below it in seeded random order."""
    c = cfg[0]
    st = s[g]
    _new_episode(st, seed)
    _clear_round(st)
    st.scores[: scores.shape[0]] = scores
    st.dealer = dealer
    st.hand[:, :] = hands
    for i in range(fh_cards.shape[0]):
        st.fh_card[i] = fh_cards[i]
        st.fh_seat[i] = fh_seats[i]
        st.fh_wrong[i] = 0
    st.fh_len = fh_cards.shape[0]
    n_rest = rest.shape[0]
    buffer = rest.copy()
    _shuffle(st, buffer, n_rest)
    for i in range(n_rest):
        st.draw_pile[i] = buffer[i]
    n_top = top_first.shape[0]
    for i in range(n_top):
        st.draw_pile[n_rest + n_top - 1 - i] = top_first[i]
    st.draw_len = n_rest + n_top
    _open_round(st, c, n_top)


@njit(cache=True, nogil=True)
def fill_masks(s, cfg, out):
    c = cfg[0]
    for g in range(s.shape[0]):
        fill_mask(s[g], c, out[g])


@njit(cache=True, nogil=True)
def is_legal(st, c, action, m):
    """Whether `action` is an action id that game st allows now; `m` (uint8, NUM_ACTIONS) is scratch space that
    receives the game's mask."""
    if action < 0 or action >= A.NUM_ACTIONS:
        return False
    fill_mask(st, c, m)
    return m[action] != 0


@njit(cache=True, nogil=True)
def first_illegal(s, cfg, actions):
    """The index of the first game whose action is illegal (or whose episode is over), else -1."""
    c = cfg[0]
    m = np.zeros(A.NUM_ACTIONS, np.uint8)
    for g in range(s.shape[0]):
        if not is_legal(s[g], c, actions[g], m):
            return g
    return -1


# What `step_one` reports in its `status` array.
STATUS_SEAT, STATUS_DONE, STATUS_TRUNCATED, STATUS_ROUNDS, STATUS_ROUND_WINNER, STATUS_ROUND_POINTS = range(6)
STATUS_SIZE = 6


@njit(cache=True, nogil=True)
def step_one(s, cfg, g, action, status):
    """Apply `action` to game g if it is legal; returns whether it was (an illegal one changes nothing).

    `status` (int64, STATUS_SIZE) receives the game's seat, done, truncated, rounds, round winner and
    round points afterwards, so a caller reads them without touching the record array from Python.
    """
    c = cfg[0]
    st = s[g]
    if not is_legal(st, c, action, np.zeros(A.NUM_ACTIONS, np.uint8)):
        return False
    step_game(st, c, action)
    status[STATUS_SEAT] = st.seat
    status[STATUS_DONE] = st.done
    status[STATUS_TRUNCATED] = st.truncated
    status[STATUS_ROUNDS] = st.rounds
    status[STATUS_ROUND_WINNER] = st.round_winner
    status[STATUS_ROUND_POINTS] = st.round_points
    return True


@njit(cache=True, nogil=True)
def resample_hidden(s, cfg, g, seed):
    """Redeal, in game g, every card its deciding seat cannot see, as chance might have dealt it: the draw
    pile (and its order), the other hands less the cards the seat knows they hold, and the seat's own
    forehead cards (never of a colour it guessed wrong); the future chance events are reseeded from `seed`.
    The seat's observation stays the same; what the other seats know of a hand is cut to what it now holds.

    What another seat knows of a third hand is hidden from the seat, so it is forgotten; while a Wild Draw Four
    waits for its challenge, whether it was legal is judged again from the redealt hand.

    For search over the deals the seat cannot tell apart (determinization). Uniform over those deals: what
    the others' choices hint at is not used. The redeal is a function of what the seat sees and `seed` only:
    two games the seat cannot tell apart give the same world. Refused (nothing changes) once the episode is
    over (RESAMPLE_OVER), or when no shuffle in RESAMPLE_TRIES fits the seat's forehead cards to its wrong
    guesses (RESAMPLE_UNFIT). Returns RESAMPLED or the reason."""
    c = cfg[0]
    backup = s[g : g + 1].copy()
    code = _resample_hidden(s[g], c, seed)
    if code != RESAMPLED:
        s[g : g + 1] = backup
    return code


@njit(cache=True, nogil=True)
def resample_hidden_voids(s, cfg, g, seed):
    """`resample_hidden`, then the redealt world moved so that no other seat holds a coloured card it showed it
    lacked: a seat that drew instead of playing held none of the coloured kinds that were playable, so it holds
    none now unless it took cards since (and no more copies than the cards it took). Wild cards are left free (a
    player may keep a wild and draw). Uniform over the deals that keep those limits (a Metropolis walk from a
    repaired redeal): the search's worlds if the others play every coloured card they can, as `counter` does.
    Refused as `resample_hidden` is, or RESAMPLE_VOIDS_UNMET when no swap met the limits (then nothing changes)."""
    c = cfg[0]
    backup = s[g : g + 1].copy()
    code = RESAMPLE_VOIDS_UNMET
    for attempt in range(VOID_REDEALS):  # a repair that found no swap starts again from another redeal
        code = _resample_hidden(s[g], c, np.uint64(seed) + np.uint64(attempt) * _GOLDEN)
        if code == RESAMPLED:
            code = _respect_voids(s[g], c, s[g].seat)
        if code != RESAMPLE_VOIDS_UNMET:
            break
    if code != RESAMPLED:
        s[g : g + 1] = backup
    return code


@njit(cache=True, nogil=True)
def resample_draw_pile(s, cfg, g, seed):
    """Shuffle game g's draw pile and reseed its future chance events from `seed`, leaving every hand as it
    is: what nobody at the table knows, for a search that sees every hand (a seer, for measuring bounds).
    Refused once the episode is over (RESAMPLE_OVER). Returns RESAMPLED or the reason."""
    return _resample_draw_pile(s[g], seed)


@njit(cache=True, nogil=True)
def apply_actions(s, cfg, actions):
    """Apply one action per game; every action must be legal (see `first_illegal`)."""
    c = cfg[0]
    for g in range(s.shape[0]):
        step_game(s[g], c, actions[g])


@njit(cache=True, nogil=True)
def check_one(s, cfg, g):
    """`check_game` for game g of a batch."""
    return check_game(s[g], cfg[0])


@njit(cache=True, nogil=True)
def check_game(st, c):
    """Invariants of one game: every card in exactly one place, valid counts, seat, phase and colour."""
    nplayers = c.num_players
    seen = np.zeros(NK, np.int64)
    if st.draw_len < 0 or st.discard_len < 0 or st.fh_len < 0:
        return BAD_PILE
    for i in range(st.draw_len):
        seen[st.draw_pile[i]] += 1
    for i in range(st.discard_len):
        seen[st.discard[i]] += 1
    for i in range(st.fh_len):
        if st.fh_seat[i] < 0 or st.fh_seat[i] >= nplayers:
            return BAD_SEAT
        seen[st.fh_card[i]] += 1
    for p in range(MAX_PLAYERS):
        for k in range(NK):
            if st.hand[p, k] < 0:
                return NEGATIVE_COUNT
            if p >= nplayers and st.hand[p, k] != 0:
                return BAD_SEAT
            seen[k] += st.hand[p, k]
    for k in range(NK):
        if seen[k] != c.card_counts[k]:
            return BAD_CARD_COUNT
    for o in range(nplayers):
        for h in range(nplayers):
            for k in range(NK):
                if st.known[o, h, k] > st.hand[h, k] or st.known[o, h, k] < 0:
                    return PHANTOM_KNOWLEDGE
    if st.phase < PLAY or st.phase > OVER:
        return BAD_PHASE
    if (st.phase == OVER) != (st.done == 1):
        return BAD_PHASE
    if st.seat < 0 or st.seat >= nplayers:
        return BAD_SEAT
    if st.phase != OVER:
        if st.discard_len < 1:
            return BAD_PILE
        if st.pending_draw < 0:
            return NEGATIVE_COUNT
        if st.color < 0 and not (st.phase == COLOR and st.color_then == THEN_BEGIN_TURN):
            return BAD_COLOR
        m = np.zeros(A.NUM_ACTIONS, np.uint8)
        fill_mask(st, c, m)
        if m.sum() == 0:
            return NO_LEGAL_ACTION
    return OK


@njit(cache=True, nogil=True)
def next_episode_seed(seed):
    """The seed of a game's next episode, from its last one alone (never from its batch position)."""
    return seed * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)


@njit(cache=True, nogil=True, parallel=True)
def random_play(s, cfg, steps, seeds, agent_rng, validate, errors):
    """Each game takes `steps` uniformly random legal actions; a finished game starts its next episode.

    Used by the benchmark and by the random-play sweeps. The choice uses `agent_rng[g]`, never the game's
    own generator; a new episode's seed is `next_episode_seed(seeds[g])`. With `validate`, `check_game`
    runs after every step and scores must never go down; game g stops at its first failure, with the
    code in errors[g]. Returns the number of episodes finished.
    """
    batch = s.shape[0]
    finished = np.zeros(batch, np.int64)
    for g in prange(batch):
        st = s[g]
        c = cfg[0]  # a record cannot enter a parallel loop as an argument; its array can
        m = np.zeros(A.NUM_ACTIONS, np.uint8)
        legal = np.zeros(A.NUM_ACTIONS, np.int64)
        last_scores = np.zeros(MAX_PLAYERS, np.int64)
        for _ in range(steps):
            if st.done:
                finished[g] += 1
                seeds[g] = next_episode_seed(seeds[g])
                reset_game(st, c, seeds[g])
                last_scores[:] = 0
            fill_mask(st, c, m)
            n = 0
            for a in range(A.NUM_ACTIONS):
                if m[a]:
                    legal[n] = a
                    n += 1
            agent_rng[g] = next_episode_seed(agent_rng[g])
            pick = np.int64(((agent_rng[g] >> _S32) * np.uint64(n)) >> _S32)
            step_game(st, c, legal[pick])
            if validate:
                code = check_game(st, c)
                for p in range(MAX_PLAYERS):
                    if st.scores[p] < last_scores[p] and code == OK:
                        code = SCORE_DECREASED
                    last_scores[p] = st.scores[p]
                if code != OK:
                    errors[g] = code
                    break
    return finished.sum()
