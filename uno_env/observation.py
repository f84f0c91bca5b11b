"""Observations: what one seat may know, as a flat int8 vector, encoded by compiled code for a batch.

Seats are relative to the observer: row 0 is the observer, row 1 its left (seat + 1), and so on; no
absolute seat or dealer index appears, so the same situation looks the same from every seat. N is the
number of players. Totals (hand sizes, pile size, pending draw, scores) are clipped to 127.

The fields are one table in code, `FIELDS` (name, shape, first level, meaning), appended to this docstring
as markdown (`fields_markdown()`).

`known_cards` come from an Urrrhhh the observer gave, a Swap it took part in, or a challenge it made.

Levels: `minimal` is what the seat sees now; `knowledge` (the default) adds what a careful player at
that seat remembers; `belief` adds what follows from the public history of the round about the hidden hands
(what each seat showed it lacked when it drew, the colours it named, what it drew, the last public actions, and
the exact counting prior); `seer` shows everything (own forehead cards included), for debugging, privileged
training signals and upper bounds only. `observation_layout(level, N)` gives each field's slice and shape.
The `belief` fields come last in the vector (after the `seer` fields at that level), so every older level's
layout is unchanged. `counting_belief` turns a `belief` observation into each seat's expected copies of each kind.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import actions as A
from . import cards as C
from . import engine as E

LEVELS = ("minimal", "knowledge", "belief", "seer")
WRONG_GUESS_SLOTS = 4
#: the counting prior's unit: sixteenths of a card
PRIOR_SCALE = 16

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
    ("hands", ("N", C.NUM_KINDS), 3, "every seat's hand"),
    ("draw_pile", (C.NUM_KINDS,), 3, "the cards in the draw pile"),
    ("void_age", ("N", C.NUM_KINDS), 2, "cards each seat has taken since it last drew instead of playing while the "
     "kind was playable by colour, rank or as a wild (0: it showed it held none then; -1: not this round)"),
    ("named_colors", ("N", C.NUM_COLORS), 2, "wilds with which each seat named each colour this round"),
    ("took", ("N",), 2, "cards each seat has taken this round (drawn, penalties included, or given by an Urrrhhh)"),
    ("draw_ended", ("N",), 2, "1 for a seat whose last turn ended with a draw and no play (a kept card or one it "
     "could not play: nobody else can tell which)"),
    ("recent_actions", (E.RECENT, A.NUM_ACTIONS), 2, "the last public actions of the round, newest first, one-hot"),
    ("recent_seats", (E.RECENT, "N"), 2, "who took each of `recent_actions`, one-hot by relative seat"),
    ("unseen", (C.NUM_KINDS,), 2, "copies of each kind the observer cannot place: the deck less its hand, the "
     "discard pile, the forehead cards it sees and the cards it knows others hold"),
    ("counting_prior", ("N", C.NUM_KINDS), 2, "each seat's expected copies of each kind from counting alone (the "
     "known cards, then the rest spread over the unseen copies), in sixteenths of a card; row 0 the own hand"),
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
    F_VOID_AGE,
    F_NAMED,
    F_TOOK,
    F_DRAW_ENDED,
    F_RECENT_ACTIONS,
    F_RECENT_SEATS,
    F_UNSEEN,
    F_PRIOR,
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


# The readers of an observation row, for compiled agents (the rule-based baselines, the search rollouts): they read
# the int8 row in place through the field offsets (`ObservationSpec.offsets`), as the encoder below wrote it.


@njit(cache=True, nogil=True)
def field(obs, off, index, size):
    """The observation field `index` (an `F_*` id) of `size` entries, as a view."""
    start = off[index]
    return obs[start : start + size]


@njit(cache=True, nogil=True)
def argmax_first(values):
    """The index of the largest value (the first on ties), as numpy's argmax."""
    best = 0
    for i in range(values.shape[0]):
        if values[i] > values[best]:
            best = i
    return best


@njit(cache=True, nogil=True)
def one_hot_index(values):
    """The index of the one in a one-hot field, -1 when it is all zero."""
    for i in range(values.shape[0]):
        if values[i] != 0:
            return i
    return -1


@njit(cache=True, nogil=True)
def phase_of(obs, off):
    """The phase id of an observation row (another seat's `drawn` shows as `play`)."""
    return argmax_first(field(obs, off, F_PHASE, len(A.PHASE_NAMES)))


class CountingParts:
    """What counting needs from a batch of observations at a belief-bearing level: the own hand, the other seats'
    hand sizes and the copies the observer knows each holds, and the unseen copies of each kind."""

    def __init__(self, observations: np.ndarray, level: str, num_players: int):
        fields = unflatten(np.asarray(observations), level, num_players)
        if "unseen" not in fields:
            raise ValueError(f"counting needs the `unseen` field: observations at 'belief' or 'seer', not {level!r}")
        self.hand = fields["hand"].astype(np.float32)  # (B, K)
        self.known = fields["known_cards"].astype(np.float32)  # (B, N, K); row 0 empty
        self.unseen = fields["unseen"].astype(np.float32)  # (B, K)
        sizes = fields["hand_sizes"].astype(np.float32)  # (B, N)
        self.hidden = np.maximum(sizes - self.known.sum(-1), 0.0)  # (B, N): each seat's cards the observer cannot place
        self.hidden[:, 0] = 0.0

    def expected(self, probabilities: np.ndarray) -> np.ndarray:
        """(B, N, K) expected copies from (B, N - 1, K) probabilities of each hidden card's kind."""
        out = self.known.copy()
        out[:, 0] = self.hand
        out[:, 1:] += self.hidden[:, 1:, None] * probabilities
        return out

    def counting_probabilities(self) -> np.ndarray:
        """Each hidden card equally likely to be any unseen copy: p(kind) = unseen copies / all unseen copies."""
        total = self.unseen.sum(-1, keepdims=True)
        p = np.divide(self.unseen, total, out=np.zeros_like(self.unseen), where=total > 0)
        return np.repeat(p[:, None, :], self.known.shape[1] - 1, axis=1)


def counting_belief(observations: np.ndarray, level: str, num_players: int) -> np.ndarray:
    """(B, N, NUM_KINDS) float32: each relative seat's expected copies of each card kind from counting alone (the
    cards the observer knows a seat holds, then its other cards spread over the unseen copies, every one equally
    likely), from (B, L) observations at a level with the `unseen` field (`belief` or `seer`). Row 0, the
    observer's own hand, is exact. The exact form of the `counting_prior` field, and the baseline a belief model
    (`uno_env.agents.belief`) must beat."""
    parts = CountingParts(observations, level, num_players)
    return parts.expected(parts.counting_probabilities()).astype(np.float32)


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


@njit(cache=True, nogil=True)
def _clip(x):
    return min(x, 127)


@njit(cache=True, nogil=True)
def encode(st, c, observer, level, off, out):
    """Write seat `observer`'s observation of game `st` into `out` (see the table above).

    Per-kind counts need no clipping: a deck holds at most 100 copies of a kind (`rules`).
    """
    out[:] = 0
    n = c.num_players
    seer = level >= 3
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
    encode_belief(st, c, observer, off, out)
    if level < 3:
        return
    for seat in range(n):
        start = off[F_HANDS] + ((seat - observer) % n) * E.NK
        out[start : start + E.NK] = st.hand[seat]
    for i in range(st.draw_len):
        out[off[F_DRAW_PILE] + st.draw_pile[i]] += 1


@njit(cache=True, nogil=True)
def encode_belief(st, c, observer, off, out):
    """The `belief` fields: what the public history of the round says about the hidden hands."""
    n = c.num_players
    for seat in range(n):
        rel = (seat - observer) % n
        start = off[F_VOID_AGE] + rel * E.NK
        for k in range(E.NK):
            at = st.void_at[seat, k]
            out[start + k] = -1 if at == E.NO_VOID else _clip(np.int64(st.took[seat]) - at)
        out[off[F_NAMED] + rel * C.NUM_COLORS : off[F_NAMED] + (rel + 1) * C.NUM_COLORS] = st.named[seat]
        out[off[F_TOOK] + rel] = _clip(st.took[seat])
        out[off[F_DRAW_ENDED] + rel] = st.draw_ended[seat]
    for i in range(min(st.recent_count, E.RECENT)):  # newest first
        at = (st.recent_count - 1 - i) % E.RECENT
        out[off[F_RECENT_ACTIONS] + i * A.NUM_ACTIONS + st.recent_action[at]] = 1
        out[off[F_RECENT_SEATS] + i * n + (st.recent_seat[at] - observer) % n] = 1
    unseen = np.zeros(E.NK, np.int64)
    for k in range(E.NK):
        unseen[k] = c.card_counts[k] - st.hand[observer, k]
    for i in range(st.discard_len):
        unseen[st.discard[i]] -= 1
    for i in range(st.fh_len):
        if st.fh_seat[i] != observer:
            unseen[st.fh_card[i]] -= 1
    for seat in range(n):
        if seat != observer:
            for k in range(E.NK):
                unseen[k] -= st.known[observer, seat, k]
    total = 0
    for k in range(E.NK):
        out[off[F_UNSEEN] + k] = unseen[k]
        total += unseen[k]
    for seat in range(n):
        rel = (seat - observer) % n
        start = off[F_PRIOR] + rel * E.NK
        if rel == 0:
            for k in range(E.NK):
                out[start + k] = _clip(PRIOR_SCALE * st.hand[seat, k])
            continue
        hidden = E.hand_count(st, seat)
        for k in range(E.NK):
            hidden -= st.known[observer, seat, k]
        for k in range(E.NK):
            share = hidden * unseen[k] / total if total > 0 else 0.0
            out[start + k] = _clip(int(round(PRIOR_SCALE * (st.known[observer, seat, k] + share))))


@njit(cache=True, nogil=True)
def encode_batch(s, cfg, observers, level, off, out):
    """out[g] = the observation of seat observers[g] in game g."""
    c = cfg[0]
    for g in range(s.shape[0]):
        encode(s[g], c, observers[g], level, off, out[g])


@njit(cache=True, nogil=True)
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
