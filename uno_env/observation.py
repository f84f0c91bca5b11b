"""Observations: what one seat may know, as a flat int8 vector, encoded by compiled code for a batch.

Seats are relative to the observer: row 0 is the observer, row 1 its left (seat + 1), and so on; no
absolute seat or dealer index appears, so the same situation looks the same from every seat. N is the
number of players. Totals (hand sizes, pile size, pending draw, scores) are clipped to 127.

The fields are one table in code, `FIELDS` (name, shape, first level, input scale, meaning), appended to this
docstring as markdown (`fields_markdown()`).

`known_cards` come from an Urrrhhh the observer gave, a Swap it took part in, or a challenge it made.

Levels: `minimal` is what the seat sees now; `knowledge` (the default) adds what a careful player at
that seat remembers; `belief` adds what follows from the public history of the round about the hidden hands
(what each seat showed it lacked when it drew, the colours it named, what it drew, the last public actions, and
the exact counting prior); `seer` shows everything (own forehead cards included), for debugging, privileged
training signals and upper bounds only. `observation_layout(level, N)` gives each field's slice and shape.
The `belief` fields come last in the vector (after the `seer` fields at that level), so every older level's
layout is unchanged. `counting_belief` turns a `belief` observation into each seat's expected copies of each kind.

The layout is a versioned contract: `layout_digest(level, N)` hashes the fields of a level's vector (names, shapes,
order), and every file a network was trained into records it with the fields beside it (`layout_stamp`), so that
`check_layout` refuses a file of another layout in one line naming the first field that differs. A new field goes at
the end of `FIELDS`; a field whose meaning changes gets a new name.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from . import actions as A
from . import cards as C
from . import engine as E
from .rules import MAX_PLAYERS, MIN_PLAYERS

LEVELS = ("minimal", "knowledge", "belief", "seer")
WRONG_GUESS_SLOTS = 4
#: the counting prior's unit: sixteenths of a card
PRIOR_SCALE = 16


class Field(NamedTuple):
    """One row of the observation table."""

    name: str
    shape: tuple  # entries, with "N" for the number of players
    level: int  # the first level that has it (an index of LEVELS)
    scale: float  # what a network multiplies the field's entries by (counts that grow past a few are brought near 1)
    meaning: str


# The observation table, in vector order. The encoder, `observation_layout`, the layout digest, the networks' input
# scale (`uno_env.agents.policy.input_scale`) and the documented table (`fields_markdown`) are made from it. A new
# field goes at the end, whatever its level (docs/api.md, "The layout as a contract").
FIELDS = (
    Field("hand", (C.NUM_KINDS,), 0, 1, "own hand: copies of each card kind"),
    Field("top_card", (C.NUM_KINDS,), 0, 1, "the top of the discard pile, one-hot"),
    Field("color", (C.NUM_COLORS,), 0, 1, "the active colour, one-hot (all zero before it is chosen)"),
    Field("phase", (len(A.PHASE_NAMES),), 0, 1, "the phase, one-hot (another seat's `drawn` shows as `play`)"),
    Field("deciding", ("N",), 0, 1, "whose decision it is, one-hot by relative seat"),
    Field("direction", (1,), 0, 1, "+1 (to the left) or -1"),
    Field("pending_draw", (1,), 0, 1 / 4, "the sum of a pending Draw Two stack"),
    Field("drawn_card", (C.NUM_KINDS,), 0, 1, "the card the observer just drew, in its `drawn` phase"),
    Field("draw_pile_size", (1,), 0, 1 / 32, "cards in the draw pile"),
    Field("hand_sizes", ("N",), 0, 1 / 8, "cards in each seat's hand"),
    Field("forehead_counts", ("N",), 0, 1, "Narwhal forehead cards of each seat"),
    Field("foreheads", ("N", C.NUM_KINDS), 0, 1, "the forehead cards of each seat; row 0 (own) only at `seer`"),
    Field("emoji_face", ("N",), 0, 1, "1 for a seat that owes the emoji-face check"),
    Field("scores", ("N",), 0, 1 / 100, "match score (or penalty tally) in percent of the target"),
    Field("discard_pile", (C.NUM_KINDS,), 1, 1, "the discard pile: the cards played since the last reshuffle"),
    Field("wrong_guesses", (WRONG_GUESS_SLOTS, C.NUM_COLORS), 1, 1,
          "colours guessed wrong for own forehead cards, oldest 4"),
    Field("known_cards", ("N", C.NUM_KINDS), 1, 1, "cards the observer knows each seat holds, not played since"),
    Field("last_action", ("N", A.NUM_ACTIONS), 1, 1, "each seat's last public action this round, one-hot"),
    Field("w4_previous_color", (C.NUM_COLORS,), 1, 1, "the colour active before the last Wild Draw Four, one-hot"),
    Field("hands", ("N", C.NUM_KINDS), 3, 1, "every seat's hand"),
    Field("draw_pile", (C.NUM_KINDS,), 3, 1, "the cards in the draw pile"),
    Field("void_age", ("N", C.NUM_KINDS), 2, 1 / 16, "cards each seat has taken since it last drew instead of playing "
          "while the kind was playable by colour, rank or as a wild (0: it showed it held none then; -1: not this "
          "round)"),
    Field("named_colors", ("N", C.NUM_COLORS), 2, 1 / 2, "wilds with which each seat named each colour this round"),
    Field("took", ("N",), 2, 1 / 16,
          "cards each seat has taken this round (drawn, penalties included, or given by an Urrrhhh)"),
    Field("draw_ended", ("N",), 2, 1, "1 for a seat whose last turn ended with a draw and no play (a kept card or one "
          "it could not play: nobody else can tell which)"),
    Field("recent_actions", (E.RECENT, A.NUM_ACTIONS), 2, 1,
          "the last public actions of the round, newest first, one-hot"),
    Field("recent_seats", (E.RECENT, "N"), 2, 1, "who took each of `recent_actions`, one-hot by relative seat"),
    Field("unseen", (C.NUM_KINDS,), 2, 1 / 4, "copies of each kind the observer cannot place: the deck less its hand, "
          "the discard pile, the forehead cards it sees and the cards it knows others hold"),
    Field("counting_prior", ("N", C.NUM_KINDS), 2, 1 / 16, "each seat's expected copies of each kind from counting "
          "alone (the known cards, then the rest spread over the unseen copies), in sixteenths of a card; row 0 the "
          "own hand"),
)
FIELD_NAMES = tuple(f.name for f in FIELDS)
#: field name -> its id (its row in FIELDS): the encoder and the compiled readers index `field_offsets` by it
FIELD_ID = {name: i for i, name in enumerate(FIELD_NAMES)}
F_HAND = FIELD_ID["hand"]
F_TOP = FIELD_ID["top_card"]
F_COLOR = FIELD_ID["color"]
F_PHASE = FIELD_ID["phase"]
F_DECIDING = FIELD_ID["deciding"]
F_DIRECTION = FIELD_ID["direction"]
F_PENDING = FIELD_ID["pending_draw"]
F_DRAWN = FIELD_ID["drawn_card"]
F_PILE_SIZE = FIELD_ID["draw_pile_size"]
F_HAND_SIZES = FIELD_ID["hand_sizes"]
F_FH_COUNTS = FIELD_ID["forehead_counts"]
F_FOREHEADS = FIELD_ID["foreheads"]
F_FACE = FIELD_ID["emoji_face"]
F_SCORES = FIELD_ID["scores"]
F_DISCARD = FIELD_ID["discard_pile"]
F_WRONG = FIELD_ID["wrong_guesses"]
F_KNOWN = FIELD_ID["known_cards"]
F_LAST = FIELD_ID["last_action"]
F_W4_PREV = FIELD_ID["w4_previous_color"]
F_HANDS = FIELD_ID["hands"]
F_DRAW_PILE = FIELD_ID["draw_pile"]
F_VOID_AGE = FIELD_ID["void_age"]
F_NAMED = FIELD_ID["named_colors"]
F_TOOK = FIELD_ID["took"]
F_DRAW_ENDED = FIELD_ID["draw_ended"]
F_RECENT_ACTIONS = FIELD_ID["recent_actions"]
F_RECENT_SEATS = FIELD_ID["recent_seats"]
F_UNSEEN = FIELD_ID["unseen"]
F_PRIOR = FIELD_ID["counting_prior"]


def fields_markdown() -> str:
    """The observation table as markdown: field, shape, first level, meaning (N: the number of players)."""
    rows = ["| field | shape | level | meaning |", "|---|---|---|---|"]
    for name, shape, first_level, _, meaning in FIELDS:
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
    for name, shape, first_level, _, _ in FIELDS:
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


# The layout as a versioned contract: every file whose network reads observations (a policy, a belief model, the
# metadata of an SB3 model or an RLlib checkpoint) records the digest of the layout it was trained on, and the
# layout's fields beside it, so that a loader refuses a file of another layout and names the first field that differs.

#: the keys of such a file that hold the digest and the fields (`layout_stamp`)
DIGEST_KEY, FIELDS_KEY = "observation_digest", "observation_fields"
_ENTRY = r"[a-z][a-z0-9_]{0,63}:[0-9]{1,6}(x[0-9]{1,6}){0,3}"  # a field and its shape: `foreheads:4x59`
_DESCRIPTION = re.compile(rf"{_ENTRY}( {_ENTRY}){{0,255}}")


def layout_description(level: str, num_players: int) -> str:
    """The layout's fields in vector order as `name:shape`, e.g. 'hand:59 top_card:59 ... foreheads:4x59 ...'."""
    layout = observation_layout(level, num_players)
    return " ".join(f"{name}:{'x'.join(str(d) for d in shape)}" for name, (_, shape) in layout.items())


def layout_digest(level: str, num_players: int, description: str | None = None) -> str:
    """16 hex digits of the sha256 of the level, the player count and the fields (`layout_description`, or the given
    `description`): two layouts with one digest have the same fields, in the same order, of the same shapes."""
    description = layout_description(level, num_players) if description is None else description
    return hashlib.sha256(f"{level}|{num_players}|{description}".encode()).hexdigest()[:16]


def layout_stamp(level: str, num_players: int) -> dict[str, str]:
    """What a file written for this layout records: {DIGEST_KEY: its digest, FIELDS_KEY: its fields}."""
    return {DIGEST_KEY: layout_digest(level, num_players), FIELDS_KEY: layout_description(level, num_players)}


def first_difference(found: str, expected: str) -> tuple[str, str] | None:
    """(the first field that differs, how) between two layout descriptions; None when they are the same."""
    old = [tuple(entry.split(":")) for entry in found.split()]
    new = [tuple(entry.split(":")) for entry in expected.split()]
    old_names, new_names = {name for name, _ in old}, {name for name, _ in new}
    for i in range(max(len(old), len(new))):
        a, b = old[i] if i < len(old) else None, new[i] if i < len(new) else None
        if a == b:
            continue
        if a is None:
            return b[0], "new in this version, after the file's last field"
        if b is None:
            return a[0], "the file's, after this version's last field"
        if a[0] == b[0]:
            return a[0], f"of shape {a[1]} in the file, {b[1]} in this version"
        if b[0] not in old_names:
            return b[0], f"new in this version, where the file has {a[0]}"
        if a[0] not in new_names:
            return a[0], f"not in this version, which has {b[0]} there"
        return b[0], f"the file has {a[0]} there: the fields are in another order"
    return None


def check_layout(source: str, data: Mapping[str, Any]) -> None:
    """Refuse (ValueError, one line) a file trained on another observation layout than this version's `observation`
    level for its `num_players`, naming the level and the first field that differs. A file without a digest (written
    before files carried one) passes: its loader checks the observation size, as it always did."""
    if DIGEST_KEY not in data:
        return
    level, players, found, fields = (data.get(k) for k in ("observation", "num_players", DIGEST_KEY, FIELDS_KEY))
    if level not in LEVELS or type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"{source}: a file with an {DIGEST_KEY} says its observation level (one of "
                         f"{', '.join(LEVELS)}) and its num_players ({MIN_PLAYERS} to {MAX_PLAYERS})")  # fmt: skip
    if not (isinstance(found, str) and re.fullmatch(r"[0-9a-f]{16}", found) and isinstance(fields, str)
            and _DESCRIPTION.fullmatch(fields)):  # fmt: skip
        raise ValueError(f"{source}: {DIGEST_KEY} is 16 hex digits and {FIELDS_KEY} the layout's fields as "
                         "'name:shape name:shape ...' (uno_env.observation.layout_stamp)")  # fmt: skip
    if layout_digest(level, players, fields) != found:
        raise ValueError(f"{source}: its {DIGEST_KEY} {found} is not the digest of its {FIELDS_KEY}: the file was "
                         "altered; use the file as it was written")  # fmt: skip
    expected = layout_digest(level, players)
    if found == expected:
        return
    name, how = first_difference(fields, layout_description(level, players)) or ("none", "")
    raise ValueError(f"{source}: trained on the {level} observation layout {found} ({players} players); this "
                     f"version's is {expected}: the first field that differs is {name} ({how}); retrain it with this "
                     "version, or use it with the version that wrote it")  # fmt: skip


# The readers of an observation row, for compiled agents (the rule-based baselines, the search rollouts): they read
# the int8 row in place through the field offsets (`ObservationSpec.offsets`), as the encoder below wrote it.


@njit(cache=True, nogil=True, inline="always")
def field(obs, off, index, size):
    """The observation field `index` (an `F_*` id) of `size` entries, as a view (inlined: device code returns no
    view)."""
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
def copy_into(out, start, values):
    """out[start : start + len(values)] = values, as a loop (an array assigned to a slice needs numba's runtime,
    which device code has not)."""
    for i in range(values.shape[0]):
        out[start + i] = values[i]


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
    copy_into(out, off[F_HAND], st.hand[observer])
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
            copy_into(out, start, st.known[observer, seat])
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
        copy_into(out, start, st.hand[seat])
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
        copy_into(out, off[F_NAMED] + rel * C.NUM_COLORS, st.named[seat])
        out[off[F_TOOK] + rel] = _clip(st.took[seat])
        out[off[F_DRAW_ENDED] + rel] = st.draw_ended[seat]
    for i in range(min(st.recent_count, E.RECENT)):  # newest first
        at = (st.recent_count - 1 - i) % E.RECENT
        out[off[F_RECENT_ACTIONS] + i * A.NUM_ACTIONS + st.recent_action[at]] = 1
        out[off[F_RECENT_SEATS] + i * n + (st.recent_seat[at] - observer) % n] = 1
    unseen = out[off[F_UNSEEN] : off[F_UNSEEN] + E.NK]  # counted in place (at most 100 a kind: fits int8)
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
        total += np.int64(unseen[k])
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
