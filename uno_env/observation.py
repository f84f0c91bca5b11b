"""Observations: what one seat may know, as a flat int8 vector, encoded by compiled code for a batch.

Seats are relative to the observer: row 0 is the observer, row 1 its left (seat + 1), and so on; no
absolute seat or dealer index appears, so the same situation looks the same from every seat. N is the
number of players. Totals (hand sizes, pile size, pending draw, scores) are clipped to 127.

| field                | shape    | level     | meaning                                                    |
|----------------------|----------|-----------|------------------------------------------------------------|
| `hand`               | (59,)    | minimal   | own hand: copies of each card kind                          |
| `top_card`           | (59,)    | minimal   | the top of the discard pile, one-hot                        |
| `color`              | (4,)     | minimal   | the active colour, one-hot (all zero before it is chosen)  |
| `phase`              | (10,)    | minimal   | the phase, one-hot (another seat's `drawn` shows as `play`) |
| `deciding`           | (N,)     | minimal   | whose decision it is, one-hot by relative seat             |
| `direction`          | (1,)     | minimal   | +1 (to the left) or -1                                     |
| `pending_draw`       | (1,)     | minimal   | the sum of a pending Draw Two stack                        |
| `drawn_card`         | (59,)    | minimal   | the card the observer just drew, in its `drawn` phase      |
| `draw_pile_size`     | (1,)     | minimal   | cards in the draw pile                                     |
| `hand_sizes`         | (N,)     | minimal   | cards in each seat's hand                                  |
| `forehead_counts`    | (N,)     | minimal   | Narwhal forehead cards of each seat                        |
| `foreheads`          | (N, 59)  | minimal   | the forehead cards of each seat; row 0 (own) only at `seer` |
| `emoji_face`         | (N,)     | minimal   | 1 for a seat that owes the emoji-face check                |
| `scores`             | (N,)     | minimal   | match score (or penalty tally) in percent of the target    |
| `discard_pile`       | (59,)    | knowledge | the discard pile: the cards played since the last reshuffle |
| `wrong_guesses`      | (4, 4)   | knowledge | colours guessed wrong for own forehead cards, oldest 4     |
| `known_cards`        | (N, 59)  | knowledge | cards the observer knows each seat holds, not played since |
| `last_action`        | (N, 77)  | knowledge | each seat's last public action this round, one-hot         |
| `w4_previous_color`  | (4,)     | knowledge | the colour active before the last Wild Draw Four, one-hot  |
| `hands`              | (N, 59)  | seer      | every seat's hand                                          |
| `draw_pile`          | (59,)    | seer      | the cards in the draw pile                                 |

`known_cards` come from an Urrrhhh the observer gave, a Swap it took part in, or a challenge it made.

Levels: `minimal` is what the seat sees now; `knowledge` (the default) adds what a careful player at
that seat remembers; `seer` shows everything (own forehead cards included), for debugging and upper
bounds only. `observation_layout(level, N)` gives each field's slice and shape.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import actions as A
from . import cards as C
from . import engine as E

LEVELS = ("minimal", "knowledge", "seer")
WRONG_GUESS_SLOTS = 4

# (name, shape with "N" for the number of players, first level that has it), in vector order.
FIELDS = (
    ("hand", (C.NUM_KINDS,), 0),
    ("top_card", (C.NUM_KINDS,), 0),
    ("color", (C.NUM_COLORS,), 0),
    ("phase", (len(A.PHASE_NAMES),), 0),
    ("deciding", ("N",), 0),
    ("direction", (1,), 0),
    ("pending_draw", (1,), 0),
    ("drawn_card", (C.NUM_KINDS,), 0),
    ("draw_pile_size", (1,), 0),
    ("hand_sizes", ("N",), 0),
    ("forehead_counts", ("N",), 0),
    ("foreheads", ("N", C.NUM_KINDS), 0),
    ("emoji_face", ("N",), 0),
    ("scores", ("N",), 0),
    ("discard_pile", (C.NUM_KINDS,), 1),
    ("wrong_guesses", (WRONG_GUESS_SLOTS, C.NUM_COLORS), 1),
    ("known_cards", ("N", C.NUM_KINDS), 1),
    ("last_action", ("N", A.NUM_ACTIONS), 1),
    ("w4_previous_color", (C.NUM_COLORS,), 1),
    ("hands", ("N", C.NUM_KINDS), 2),
    ("draw_pile", (C.NUM_KINDS,), 2),
)
FIELD_NAMES = tuple(name for name, _, _ in FIELDS)
(
    F_HAND,
    F_TOP,
    F_COLOR,
    F_PHASE,
    F_DECIDING,
    F_DIRECTION,
    F_PENDING,
    F_DRAWN,
    F_PILE_SIZE,
    F_HAND_SIZES,
    F_FH_COUNTS,
    F_FOREHEADS,
    F_FACE,
    F_SCORES,
    F_DISCARD,
    F_WRONG,
    F_KNOWN,
    F_LAST,
    F_W4_PREV,
    F_HANDS,
    F_DRAW_PILE,
) = range(len(FIELDS))


def level_index(level: str) -> int:
    if level not in LEVELS:
        raise ValueError(f"observation level must be one of {', '.join(LEVELS)}, got {level!r}")
    return LEVELS.index(level)


def observation_layout(level: str, num_players: int) -> dict[str, tuple[slice, tuple[int, ...]]]:
    """Field name -> (slice of the observation vector, shape) for a level and player count."""
    depth = level_index(level)
    layout = {}
    at = 0
    for name, shape, first_level in FIELDS:
        if first_level > depth:
            continue
        dims = tuple(num_players if d == "N" else d for d in shape)
        size = int(np.prod(dims))
        layout[name] = (slice(at, at + size), dims)
        at += size
    return layout


def field_offsets(level: str, num_players: int) -> np.ndarray:
    """Start of every field in the vector (-1 for fields absent at this level), for the encoder."""
    layout = observation_layout(level, num_players)
    return np.array([layout[n][0].start if n in layout else -1 for n in FIELD_NAMES], np.int64)


def observation_size(level: str, num_players: int) -> int:
    return max(s.stop for s, _ in observation_layout(level, num_players).values())


def unflatten(observation: np.ndarray, level: str, num_players: int) -> dict[str, np.ndarray]:
    """Split an observation vector into its named fields (views), for reading in notebooks."""
    return {
        name: observation[..., sl].reshape(observation.shape[:-1] + shape)
        for name, (sl, shape) in observation_layout(level, num_players).items()
    }


class ObservationSpec:
    """One observation level for one player count: what the encoder needs and what users read."""

    def __init__(self, level: str, num_players: int):
        self.level = level
        self.index = level_index(level)
        self.num_players = num_players
        self.layout = observation_layout(level, num_players)
        self.offsets = field_offsets(level, num_players)
        self.size = observation_size(level, num_players)

    def unflatten(self, observations: np.ndarray) -> dict[str, np.ndarray]:
        return unflatten(observations, self.level, self.num_players)


@njit(cache=True)
def _clip(x):
    return min(x, 127)


@njit(cache=True)
def _encode(st, c, observer, level, off, out):
    """Write seat `observer`'s observation of game `st` into `out` (see the table above).

    Per-kind counts need no clipping: a deck holds at most 100 copies of a kind (`rules`).
    """
    out[:] = 0
    n = c.num_players
    seer = level >= 2
    out[off[F_HAND] : off[F_HAND] + E.NK] = st.hand[observer]
    if st.discard_len > 0:
        out[off[F_TOP] + st.discard[st.discard_len - 1]] = 1
    if st.color >= 0:
        out[off[F_COLOR] + st.color] = 1
    phase = st.phase
    if phase == E.DRAWN and st.seat != observer and not seer:
        phase = E.PLAY  # whether a drawn card is playable is the drawer's secret
    out[off[F_PHASE] + phase] = 1
    out[off[F_DECIDING] + (st.seat - observer) % n] = 1
    out[off[F_DIRECTION]] = st.direction
    out[off[F_PENDING]] = _clip(st.pending_draw)
    if st.phase == E.DRAWN and (st.seat == observer or seer):
        out[off[F_DRAWN] + st.drawn_kind] = 1
    out[off[F_PILE_SIZE]] = _clip(st.draw_len)
    for seat in range(n):
        rel = (seat - observer) % n
        out[off[F_HAND_SIZES] + rel] = _clip(E._hand_count(st, seat))
        out[off[F_FACE] + rel] = st.face[seat]
        out[off[F_SCORES] + rel] = _clip(np.int64(st.scores[seat]) * 100 // c.target_score)
    for i in range(st.fh_len):
        rel = (st.fh_seat[i] - observer) % n
        out[off[F_FH_COUNTS] + rel] += 1
        if rel != 0 or seer:
            out[off[F_FOREHEADS] + rel * E.NK + st.fh_card[i]] += 1
    if level < 1:
        return
    for i in range(st.discard_len):
        out[off[F_DISCARD] + st.discard[i]] += 1
    slot = 0
    for i in range(st.fh_len):
        if st.fh_seat[i] == observer and slot < WRONG_GUESS_SLOTS:
            for color in range(C.NUM_COLORS):
                out[off[F_WRONG] + slot * C.NUM_COLORS + color] = (st.fh_wrong[i] >> color) & 1
            slot += 1
    for seat in range(n):
        rel = (seat - observer) % n
        if rel != 0:
            start = off[F_KNOWN] + rel * E.NK
            out[start : start + E.NK] = st.known[observer, seat]
        if st.last_action[seat] >= 0:
            out[off[F_LAST] + rel * A.NUM_ACTIONS + st.last_action[seat]] = 1
    if st.w4_prev_color >= 0:
        out[off[F_W4_PREV] + st.w4_prev_color] = 1
    if level < 2:
        return
    for seat in range(n):
        start = off[F_HANDS] + ((seat - observer) % n) * E.NK
        out[start : start + E.NK] = st.hand[seat]
    for i in range(st.draw_len):
        out[off[F_DRAW_PILE] + st.draw_pile[i]] += 1


@njit(cache=True)
def encode_batch(s, cfg, observers, level, off, out):
    """out[g] = the observation of seat observers[g] in game g."""
    c = cfg[0]
    for g in range(s.shape[0]):
        _encode(s[g], c, observers[g], level, off, out[g])


@njit(cache=True)
def observe_one(s, cfg, g, observer, level, off, out, mask):
    """Seat `observer`'s observation of game g into `out`, and its legal actions into `mask` (all zero
    unless it is deciding). Returns the deciding seat (or -1 once the episode is over)."""
    st = s[g]
    c = cfg[0]
    _encode(st, c, observer, level, off, out)
    if st.done:
        mask[:] = 0
        return -1
    if st.seat == observer:
        E._fill_mask(st, c, mask)
    else:
        mask[:] = 0
    return st.seat
