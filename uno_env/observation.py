"""Observations: what one seat may know, as a flat int8 vector, encoded by compiled code for a batch.

Seats are relative to the observer: row 0 is the observer, row 1 its left (seat + 1), and so on; no
absolute seat or dealer index appears, so the same situation looks the same from every seat. N is the
number of players. Totals (hand sizes, pile size, pending draw, scores) are clipped to 127.

The fields are one table in code, `FIELDS` (name, shape, first level, meaning), appended to this docstring
as markdown (`fields_markdown()`).

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

# The observation table, in vector order: (name, shape with "N" for the number of players, first level that
# has it, meaning). The encoder, `observation_layout` and the documented table (`fields_markdown`) are made from it.
FIELDS = (
    ("hand", (C.NUM_KINDS,), 0, "own hand: copies of each card kind"),
    ("top_card", (C.NUM_KINDS,), 0, "the top of the discard pile, one-hot"),
    ("color", (C.NUM_COLORS,), 0, "the active colour, one-hot (all zero before it is chosen)"),
    ("phase", (len(A.PHASE_NAMES),), 0, "the phase, one-hot (another seat's `drawn` shows as `play`)"),
    ("deciding", ("N",), 0, "whose decision it is, one-hot by relative seat"),
    ("direction", (1,), 0, "+1 (to the left) or -1"),
    ("pending_draw", (1,), 0, "the sum of a pending Draw Two stack"),
    ("drawn_card", (C.NUM_KINDS,), 0, "the card the observer just drew, in its `drawn` phase"),
    ("draw_pile_size", (1,), 0, "cards in the draw pile"),
    ("hand_sizes", ("N",), 0, "cards in each seat's hand"),
    ("forehead_counts", ("N",), 0, "Narwhal forehead cards of each seat"),
    ("foreheads", ("N", C.NUM_KINDS), 0, "the forehead cards of each seat; row 0 (own) only at `seer`"),
    ("emoji_face", ("N",), 0, "1 for a seat that owes the emoji-face check"),
    ("scores", ("N",), 0, "match score (or penalty tally) in percent of the target"),
    ("discard_pile", (C.NUM_KINDS,), 1, "the discard pile: the cards played since the last reshuffle"),
    ("wrong_guesses", (WRONG_GUESS_SLOTS, C.NUM_COLORS), 1, "colours guessed wrong for own forehead cards, oldest 4"),
    ("known_cards", ("N", C.NUM_KINDS), 1, "cards the observer knows each seat holds, not played since"),
    ("last_action", ("N", A.NUM_ACTIONS), 1, "each seat's last public action this round, one-hot"),
    ("w4_previous_color", (C.NUM_COLORS,), 1, "the colour active before the last Wild Draw Four, one-hot"),
    ("hands", ("N", C.NUM_KINDS), 2, "every seat's hand"),
    ("draw_pile", (C.NUM_KINDS,), 2, "the cards in the draw pile"),
)
FIELD_NAMES = tuple(row[0] for row in FIELDS)
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


def fields_markdown() -> str:
    """The observation table as markdown: field, shape, first level, meaning (N: the number of players)."""
    rows = ["| field | shape | level | meaning |", "|---|---|---|---|"]
    for name, shape, first_level, meaning in FIELDS:
        dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
        rows.append(f"| `{name}` | ({dims}) | {LEVELS[first_level]} | {meaning} |")
    return "\n".join(rows) + "\n"


if __doc__:  # None under python -OO
    __doc__ += "\n" + fields_markdown()


def level_index(level: str) -> int:
    if level not in LEVELS:
        raise ValueError(f"observation level must be one of {', '.join(LEVELS)}, got {level!r}")
    return LEVELS.index(level)


def observation_layout(level: str, num_players: int) -> dict[str, tuple[slice, tuple[int, ...]]]:
    """Field name -> (slice of the observation vector, shape) for a level and player count."""
    depth = level_index(level)
    layout = {}
    at = 0
    for name, shape, first_level, _ in FIELDS:
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
def encode(st, c, observer, level, off, out):
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
        out[off[F_HAND_SIZES] + rel] = _clip(E.hand_count(st, seat))
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
        encode(s[g], c, observers[g], level, off, out[g])


@njit(cache=True)
def observe_one(s, cfg, g, observer, level, off, out, mask):
    """Seat `observer`'s observation of game g into `out`, and its legal actions into `mask` (all zero
    unless it is deciding). Returns the deciding seat (or -1 once the episode is over)."""
    st = s[g]
    c = cfg[0]
    encode(st, c, observer, level, off, out)
    if st.done:
        mask[:] = 0
        return -1
    if st.seat == observer:
        E.fill_mask(st, c, mask)
    else:
        mask[:] = 0
    return st.seat
