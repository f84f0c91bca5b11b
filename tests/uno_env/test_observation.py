"""Observation tests for the AEC env (`uno_env.observation`, `uno_env.aec`).

Information sets: two games that differ only in what a seat cannot know must give that seat the same
observation, bit for bit, at every step (scripted and random-legal sequences), while a seat that can see
the difference gets a different one. Then the exact value of every field at each level in dealt scenarios,
and the layout of the vector. Seats in an observation are relative: row r is seat (observer + r) mod N.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import uno_env
from uno_env import observation as O
from uno_env import rules as R

LEVELS = ("minimal", "knowledge", "belief", "seer")
HIDDEN = ("minimal", "knowledge", "belief")  # the levels that must not show what the seat cannot see
PINK = R.make_rules("unocorns").colors
RED = R.make_rules("classic").colors
PHASES = uno_env.PHASE_NAMES
NK = uno_env.NUM_KINDS
NA = uno_env.NUM_ACTIONS


# ----------------------------------------------------------------------------------------- helpers


def kind(code: str, colors=RED) -> int:
    return uno_env.parse_card(code, colors)


def counts(codes, colors=RED) -> np.ndarray:
    """A count vector over the 59 card kinds."""
    v = np.zeros(NK, np.int64)
    for code in codes:
        v[kind(code, colors)] += 1
    return v


def one_hot(size: int, index: int) -> np.ndarray:
    v = np.zeros(size, np.int64)
    v[index] = 1
    return v


def phase_vec(name: str) -> np.ndarray:
    return one_hot(len(PHASES), PHASES.index(name))


class Table:
    """One game, played identically in three envs: one per observation level."""

    def __init__(self, variant: str, num_players: int, deal: dict, seed: int = 0, **options):
        self.variant = variant
        self.n = num_players
        self.envs = {}
        for level in LEVELS:
            env = uno_env.raw_env(variant=variant, num_players=num_players, observation=level, **options)
            env.reset(seed=seed, options={"deal": deal})
            self.envs[level] = env
        self.env = self.envs["knowledge"]
        self.colors = self.env.rules.colors

    def step(self, *actions) -> None:
        for action in actions:
            aid = self.env.action_id(action) if isinstance(action, str) else int(action)
            for env in self.envs.values():
                env.step(aid)

    @property
    def state(self):
        """The engine state of the game (read directly: `describe()` is slow in a long loop)."""
        return self.env.game.state

    @property
    def seat(self) -> int:
        return int(self.env.agent_selection.rsplit("_", 1)[1])

    @property
    def desc(self) -> dict:
        return self.env.describe()

    @property
    def phase(self) -> str:
        return PHASES[int(self.state.phase[0])]

    @property
    def done(self) -> bool:
        return bool(self.state.done[0])

    def obs(self, seat: int, level: str = "knowledge") -> np.ndarray:
        return self.envs[level].observe(f"player_{seat}")["observation"]

    def mask(self, seat: int) -> np.ndarray:
        return self.env.observe(f"player_{seat}")["action_mask"]

    def fields(self, seat: int, level: str = "knowledge") -> dict[str, np.ndarray]:
        env = self.envs[level]
        return env.unflatten(env.observe(f"player_{seat}")["observation"])

    def hand_vec(self, seat: int) -> np.ndarray:
        return self.state.hand[0, seat, :NK].astype(np.int64)

    def hand(self, seat: int) -> Counter:
        codes = self.env.rules.codes
        return Counter({codes[k]: int(c) for k, c in enumerate(self.hand_vec(seat)) if c})

    def foreheads(self, seat: int) -> list[int]:
        """The forehead cards of a seat, oldest first."""
        st = self.state
        n = int(st.fh_len[0])
        return [int(k) for k, s in zip(st.fh_card[0, :n], st.fh_seat[0, :n], strict=True) if s == seat]

    def discard(self) -> list[int]:
        """The discard pile, bottom first (the describe() dict has only its size)."""
        st = self.state
        return [int(k) for k in st.discard[0, : int(st.discard_len[0])]]

    def counts(self, codes) -> np.ndarray:
        return counts(codes, self.colors)

    def kind(self, code: str) -> int:
        return kind(code, self.colors)


def differing_fields(table: Table, a: np.ndarray, b: np.ndarray, level: str) -> list[str]:
    env = table.envs[level]
    fa, fb = env.unflatten(a), env.unflatten(b)
    return [name for name in fa if not np.array_equal(fa[name], fb[name])]


def assert_same_view(a: Table, b: Table, seat: int, levels=HIDDEN, where: str = "") -> None:
    for level in levels:
        oa, ob = a.obs(seat, level), b.obs(seat, level)
        assert np.array_equal(oa, ob), (
            f"seat {seat} at {level} tells the games apart {where}: fields {differing_fields(a, oa, ob, level)}"
        )
    assert np.array_equal(a.mask(seat), b.mask(seat)), f"seat {seat}'s action mask differs {where}"


def assert_views_differ(a: Table, b: Table, seat: int, level: str, where: str = "") -> None:
    assert not np.array_equal(a.obs(seat, level), b.obs(seat, level)), (
        f"seat {seat} at {level} should see the difference {where}"
    )


def rel(observer: int, seat: int, n: int) -> int:
    return (seat - observer) % n


def full_deck(variant: str, **options) -> list[str]:
    rules = R.make_rules(variant, **options)
    return [code for code, copies in rules.card_counts_by_code().items() for _ in range(copies)]


def random_deal(variant: str, n: int, rng: np.random.Generator, sizes, deck_len: int = 0, **options) -> dict:
    """A deal drawn from a shuffled deck: hands of the given sizes, a number card on top, `deck_len`
    placed cards; the dealer is the last seat so that seat 0 plays first."""
    cards = full_deck(variant, **options)
    rng.shuffle(cards)
    colors = R.make_rules(variant, **options).colors
    top_at = next(i for i, c in enumerate(cards) if uno_env.parse_card(c, colors) < 52 and c[1:].isdigit())
    top = cards.pop(top_at)
    hands = []
    for size in sizes:
        hands.append(cards[:size])
        cards = cards[size:]
    return {"dealer": n - 1, "hands": hands, "top": top, "deck": cards[:deck_len], "_rest": cards[deck_len:]}


def strip(deal: dict) -> dict:
    return {k: v for k, v in deal.items() if not k.startswith("_")}


# --------------------------------------------------------------------- random play of twin games


def _oldest_forehead(table: Table, seat: int) -> int | None:
    fh = table.foreheads(seat)
    return fh[0] if fh else None


def _guess_matches(kind_id: int, color: int) -> bool:
    return kind_id >= 52 or kind_id // 13 == color


def _visible(table: Table, observer: int) -> tuple:
    """What the observer has seen with its own eyes: its hand, the others' foreheads, the discard pile,
    and how many cards each seat holds (an Urrrhhh shows how many cards of a colour a seat had)."""
    others = tuple(tuple(table.foreheads(s)) for s in range(table.n) if s != observer)
    sizes = tuple(int(table.hand_vec(s).sum()) for s in range(table.n))
    return tuple(table.hand_vec(observer)), others, tuple(table.discard()), sizes


def _settle_drawn(a: Table, b: Table, observer: int) -> None:
    """A seat other than the observer that decides on a drawn card in one game only keeps it there:
    until it does, the observer sees it deciding (the turn has not moved on), but never the phase."""
    for one, other in ((a, b), (b, a)):
        if one.phase == "drawn" and other.phase != "drawn" and one.seat != observer:
            for level in HIDDEN:
                f = one.fields(observer, level)
                assert np.array_equal(f["phase"], phase_vec("play")), "another seat's drawn phase shows"
                assert not f["drawn_card"].any(), "another seat's drawn card shows"
            one.step("pass")


def twin_play(a: Table, b: Table, observer: int, rng: np.random.Generator, max_steps: int) -> tuple[int, int]:
    """Step a and b with the same random actions, legal in both, while the observer has seen the same
    things in both; after every step the observer's observations below `seer` must be identical.

    The observer's choices never reveal the secret on purpose: it guesses a colour only when the guess
    is right in both games or wrong in both, challenges only a hand that is the same in both games. The
    others accept every Wild Draw Four (a challenge by them would reveal a hand's difference). When a
    seat other than the observer is deciding on a drawn card in one game only, it keeps the card there.
    The sequence stops when the observer legitimately sees a difference (its own hand, another seat's
    forehead card, the discard pile, cards it gave away or was shown). Returns (steps compared, steps
    at which the seer level showed a hidden difference).
    """
    compared = hidden = 0
    for _ in range(max_steps):
        if a.done or b.done:
            assert a.done == b.done
            break
        seat = a.seat
        assert seat == b.seat
        ma, mb = a.mask(seat).astype(bool), b.mask(seat).astype(bool)
        legal = np.flatnonzero(ma & mb)
        phase = a.phase
        before = [t.state.hand[0, : t.n].copy() for t in (a, b)]
        if seat == observer:
            assert np.array_equal(ma, mb)
            if phase == "guess":
                ka, kb = _oldest_forehead(a, seat), _oldest_forehead(b, seat)
                legal = [x for x in legal if _guess_matches(ka, x - 61) == _guess_matches(kb, x - 61)]
            elif phase == "challenge":
                w4 = (seat - int(a.state.direction[0])) % a.n
                if not np.array_equal(a.hand_vec(w4), b.hand_vec(w4)):
                    break
                legal = [a.env.action_id("challenge")]
            elif phase == "play":
                no_draw = [x for x in legal if x != 59]
                legal = no_draw or legal
        elif phase == "challenge":
            legal = [a.env.action_id("accept")]
        if len(legal) == 0:
            break
        action = int(rng.choice(legal))
        a.step(action)
        b.step(action)
        _settle_drawn(a, b, observer)
        if _visible(a, observer) != _visible(b, observer):
            break
        if seat == observer and phase in ("give", "swap"):
            gained_a = a.state.hand[0, : a.n] - before[0]
            gained_b = b.state.hand[0, : b.n] - before[1]
            if not np.array_equal(gained_a, gained_b):
                break  # the observer saw different cards go to the others
        where = f"after {a.env.action_names[action]!r} by seat {seat}"
        if a.done or b.done:  # the round's points show what the others held: only scores may differ
            assert a.done == b.done
            for level in HIDDEN:
                fa, fb = a.fields(observer, level), b.fields(observer, level)
                assert [k for k in fa if k != "scores" and not np.array_equal(fa[k], fb[k])] == [], where
            compared += 1
            break
        assert_same_view(a, b, observer, where=where)
        compared += 1
        hidden += not np.array_equal(a.obs(observer, "seer"), b.obs(observer, "seer"))
    return compared, hidden


# ------------------------------------------------------------------ 1a: order of the draw pile

DRAW_ORDER_DEAL = {
    "dealer": 2,
    "hands": [
        ["R1", "R2", "R3", "R4", "B5", "W"],
        ["R5", "R6", "G7", "Y8", "B9"],
        ["R7", "R8", "G1", "Y2", "B3"],
    ],
    "top": "R9",
}


def test_draw_pile_order_is_hidden_scripted():
    """Seeds 3 and 4 order the unplaced pile differently; seats 1 and 2 draw from it. Seat 0, which never
    draws, sees the same thing at every step; the drawers see their own different cards."""
    a = Table("classic", 3, DRAW_ORDER_DEAL, seed=3)
    b = Table("classic", 3, DRAW_ORDER_DEAL, seed=4)
    assert_same_view(a, b, 0, levels=LEVELS, where="at the start")
    script = ["play R1", "draw", "draw", "play R2", "play R5", "draw", "play R3", "play R6", "draw", "play R4"]
    for i, action in enumerate(script):
        assert a.seat == b.seat
        drawer = a.seat
        a.step(action)
        b.step(action)
        for t in (a, b):  # a playable drawn card is kept: the same public action as an unplayable one
            if t.phase == "drawn":
                assert t.seat == drawer != 0
                f = t.fields(0)
                assert np.array_equal(f["phase"], phase_vec("play"))
                assert np.array_equal(f["deciding"], one_hot(3, drawer))
                t.step("pass")
        assert_same_view(a, b, 0, where=f"after step {i} {action!r}")
        last = a.fields(0)["last_action"]
        assert last[rel(0, drawer, 3), a.env.action_id(action)] == 1
    # The drawers' cards differ between the games, and they can see that; seat 0 at seer too.
    assert a.hand(1) != b.hand(1) and a.hand(2) != b.hand(2)
    assert_views_differ(a, b, 1, "minimal")
    assert_views_differ(a, b, 2, "minimal")
    assert_views_differ(a, b, 0, "seer")
    f = a.fields(0, "minimal")
    assert list(f["hand_sizes"]) == [2, 4, 8]
    assert f["draw_pile_size"][0] == 108 - 16 - 1 - 4


@pytest.mark.parametrize(
    ("variant", "n", "options"),
    [
        ("classic", 2, {}),
        ("classic", 3, {}),
        ("classic", 5, {"uno_call": "explicit"}),
        ("emoji", 3, {}),
        ("swap", 4, {}),
        ("unocorns", 3, {}),
        ("monster_high", 4, {}),
    ],
)
def test_draw_pile_order_is_hidden_random_play(variant, n, options):
    """Random legal play, the same in two games whose unplaced pile differs (seeds 2k+1 and 2k+2)."""
    total = hidden = 0
    for k in range(5):
        deal = strip(random_deal(variant, n, np.random.default_rng(100 + k), [14] + [7] * (n - 1), **options))
        a = Table(variant, n, deal, seed=2 * k + 1, **options)
        b = Table(variant, n, deal, seed=2 * k + 2, **options)
        assert_same_view(a, b, 0, where="at the start")
        c, h = twin_play(a, b, 0, np.random.default_rng(k), 150)
        total += c
        hidden += h
    assert total >= 20, f"only {total} steps compared: the test is too weak"
    assert hidden >= 10, "the hidden difference never showed at seer level: the test compares equal games"


# -------------------------------------------------------------------- 1b: one's own forehead card

FILLERS = ["B1", "B2", "B3", "B4", "G1", "G2", "G3", "G4", "P1", "P2", "P3", "P4", "Y1", "Y2", "Y3", "Y4"]


def forehead_deals() -> tuple[dict, dict]:
    """Seat 0 wears G5 (A) or Y7 (B); the other card lies under 16 placed cards of the draw pile."""
    base = {
        "dealer": 2,
        "hands": [["P5", "P6", "B7", "WN"], ["P7", "P8", "B8", "G8"], ["P9", "B9", "G9", "Y9"]],
        "top": "P0",
    }
    deal_a = dict(base, foreheads=[["G5"], [], ["B6"]], deck=[*FILLERS, "Y7"])
    deal_b = dict(base, foreheads=[["Y7"], [], ["B6"]], deck=[*FILLERS, "G5"])
    return deal_a, deal_b


def test_own_forehead_is_hidden_scripted():
    deal_a, deal_b = forehead_deals()
    a = Table("unocorns", 3, deal_a, seed=5)
    b = Table("unocorns", 3, deal_b, seed=5)
    assert a.desc["foreheads"][0] == ["G5"] and b.desc["foreheads"][0] == ["Y7"]

    def check(where):
        assert_same_view(a, b, 0, where=where)
        assert_views_differ(a, b, 0, "seer", where)
        for seat in (1, 2):  # they see seat 0's forehead, at every level
            for level in LEVELS:
                assert_views_differ(a, b, seat, level, where)

    check("at the start")
    f = a.fields(0, "minimal")
    assert np.array_equal(f["phase"], phase_vec("guess"))
    assert list(f["forehead_counts"]) == [1, 0, 1]
    assert not f["foreheads"][0].any()
    # pink and blue are wrong in both games; the turn ends after each wrong guess. Seat 2 guesses B6.
    script = ["color pink", "play P7", "color green", "color blue", "play P8", "color blue", "play P9"]
    for action in script:
        a.step(action)
        b.step(action)
        for t in (a, b):
            if t.phase == "drawn":
                t.step("pass")
        check(f"after {action!r}")
    assert a.seat == 0 and a.phase == "guess"
    assert np.array_equal(a.fields(0)["wrong_guesses"][0], [1, 1, 0, 0])
    assert np.array_equal(a.mask(0), b.mask(0))
    assert list(np.flatnonzero(a.mask(0))) == [a.env.action_id("color green"), a.env.action_id("color yellow")]
    # Seat 1 sees G5 / Y7 on seat 0's forehead (seat 0 is seat 1's row 2).
    assert np.array_equal(a.fields(1, "minimal")["foreheads"][2], a.counts(["G5"]))
    assert np.array_equal(b.fields(1, "minimal")["foreheads"][2], b.counts(["Y7"]))
    assert np.array_equal(a.fields(0, "seer")["foreheads"][0], a.counts(["G5"]))


@pytest.mark.parametrize("seed", range(8))
def test_own_forehead_is_hidden_scripted_deal_random_play(seed):
    deal_a, deal_b = forehead_deals()
    a = Table("unocorns", 3, deal_a, seed=seed)
    b = Table("unocorns", 3, deal_b, seed=seed)
    compared, hidden = twin_play(a, b, 0, np.random.default_rng(seed), 150)
    assert compared >= 3
    assert hidden == compared  # seer shows the own forehead card


@pytest.mark.parametrize("n", [2, 5])
def test_own_forehead_is_hidden_random_play(n):
    """Random deals: seat 0 wears card X (A) or Y (B) of another colour, the other one lies under 16 placed
    cards; seat 2 (or seat 1 with two players) wears a third card everyone else sees."""
    total = 0
    for k in range(6):
        rng = np.random.default_rng(300 + k)
        deal = random_deal("unocorns", n, rng, [9] + [7] * (n - 1), deck_len=16)
        rest = deal.pop("_rest")
        colored = [c for c in rest if uno_env.parse_card(c, PINK) < 52]
        x = colored[0]
        y = next(c for c in colored if c[0] != x[0])  # a guess can be wrong for both
        z = next(c for c in rest if c not in (x, y))
        other = min(2, n - 1)
        fh_a = [[x] if s == 0 else [z] if s == other else [] for s in range(n)]
        fh_b = [[y] if s == 0 else [z] if s == other else [] for s in range(n)]
        deal_a = dict(deal, foreheads=fh_a, deck=[*deal["deck"], y])
        deal_b = dict(deal, foreheads=fh_b, deck=[*deal["deck"], x])
        a = Table("unocorns", n, deal_a, seed=k)
        b = Table("unocorns", n, deal_b, seed=k)
        assert_same_view(a, b, 0, where="at the start")
        for seat in range(1, n):
            assert_views_differ(a, b, seat, "minimal")
        c, h = twin_play(a, b, 0, np.random.default_rng(k), 150)
        assert h == c
        total += c
    assert total >= 20


# ------------------------------------------------------------- 1c: an opponent's unseen hand

HANDS_DEAL = {
    "dealer": 2,
    "hands": [["R1", "R2", "B3", "G4", "W"], ["R3", "B4", "G5", "Y6"], ["R4", "R5", "B6", "G7", "Y8"]],
    "top": "R9",
    "deck": ["B1", "G1", "Y1", "B2", "G2", "Y2"],
}


def hands_deals() -> tuple[dict, dict]:
    deal_b = dict(HANDS_DEAL, hands=[*HANDS_DEAL["hands"][:2], ["R4", "R6", "B7", "G8", "Y9"]])
    return HANDS_DEAL, deal_b


def test_opponent_hand_is_hidden_scripted():
    deal_a, deal_b = hands_deals()
    a = Table("classic", 3, deal_a, seed=3)
    b = Table("classic", 3, deal_b, seed=3)
    script = ["play R1", "play R3", "play R4", "play R2", "draw", "draw", "play W", "color green"]
    for i, action in enumerate(["(start)", *script]):
        if i:
            a.step(action)
            b.step(action)
            for t in (a, b):
                if t.phase == "drawn":
                    t.step("pass")
        assert_same_view(a, b, 0, where=f"after {action!r}")
        assert_same_view(a, b, 1, where=f"after {action!r}")
        assert_views_differ(a, b, 0, "seer", f"after {action!r}")
        assert_views_differ(a, b, 2, "minimal", f"after {action!r}")
    assert a.fields(0)["hand_sizes"][2] == 5  # seat 2: played R4, drew one


def test_a_challenge_shows_the_hand_to_the_challenger_only():
    """Seat 2 holds W+4 with different other cards; both innocent. Seat 0 challenges: it now knows
    seat 2's hand (knowledge level differs), but what it sees now (minimal) is the same; seat 1 saw
    nothing of the hand."""
    deal_a = {
        "dealer": 1,
        "hands": [["R1", "B2", "G3"], ["R4", "B5", "G6"], ["W+4", "Y8", "G7"]],
        "top": "R9",
        "deck": ["B1", "G1", "Y1", "B3", "G3", "Y3"],
    }
    deal_b = dict(deal_a, hands=[*deal_a["hands"][:2], ["W+4", "Y9", "B8"]])
    a = Table("classic", 3, deal_a, seed=8)
    b = Table("classic", 3, deal_b, seed=8)
    assert a.seat == 2
    for action in ["play W+4", "color blue"]:
        a.step(action)
        b.step(action)
        for seat in (0, 1):
            assert_same_view(a, b, seat, where=f"after {action!r}")
    a.step("challenge")
    b.step("challenge")
    assert (a.seat, a.phase) == (1, "play")  # innocent: seat 0 drew 6 and lost its turn
    assert_same_view(a, b, 0, levels=("minimal",), where="after the challenge")
    assert_views_differ(a, b, 0, "knowledge", "after the challenge")
    assert np.array_equal(a.fields(0)["known_cards"][2], a.counts(["Y8", "G7"]))
    assert np.array_equal(b.fields(0)["known_cards"][2], b.counts(["Y9", "B8"]))
    assert_same_view(a, b, 1, where="after the challenge")
    assert list(a.fields(1)["hand_sizes"]) == [3, 2, 9]


def test_opponent_hand_is_hidden_random_play():
    total = hidden = 0
    for k in range(6):
        rng = np.random.default_rng(200 + k)
        deal_a = random_deal("monster_high", 3, rng, [12, 7, 7])
        rest = deal_a.pop("_rest")
        deal_b = dict(deal_a, hands=[*deal_a["hands"][:2], rest[:7]])
        a = Table("monster_high", 3, deal_a, seed=k)
        b = Table("monster_high", 3, deal_b, seed=k)
        assert_same_view(a, b, 0, where="at the start")
        c, h = twin_play(a, b, 0, np.random.default_rng(k), 150)
        total += c
        hidden += h
    assert total >= 40
    assert hidden >= 20


# ------------------------------------------------------------------ 1d: the drawn-card secret


def drawn_tables() -> tuple[Table, Table]:
    """Seat 1 draws B9, playable on B5 (A), or G8, not playable (B)."""
    base = {
        "dealer": 2,
        "hands": [["B5", "R1", "G2"], ["R3", "Y4", "Y6"], ["B7", "R7", "G3"]],
        "top": "B3",
    }
    a = Table("classic", 3, dict(base, deck=["B9", "Y9"]), seed=11)
    b = Table("classic", 3, dict(base, deck=["G8", "Y9"]), seed=11)
    return a, b


def test_drawn_phase_of_another_seat_shows_as_play():
    a, _ = drawn_tables()
    a.step("play B5", "draw")
    assert (a.seat, a.phase) == (1, "drawn")
    for seat in (0, 2):
        for level in HIDDEN:
            f = a.fields(seat, level)
            assert np.array_equal(f["phase"], phase_vec("play")), f"seat {seat} at {level} sees the drawn phase"
            assert np.array_equal(f["deciding"], one_hot(3, rel(seat, 1, 3)))
            assert not f["drawn_card"].any()
        assert not a.mask(seat).any()
        f = a.fields(seat, "seer")
        assert np.array_equal(f["phase"], phase_vec("drawn"))
        assert np.array_equal(f["drawn_card"], a.counts(["B9"]))
    own = a.fields(1, "minimal")
    assert np.array_equal(own["phase"], phase_vec("drawn"))
    assert np.array_equal(own["drawn_card"], a.counts(["B9"]))
    assert np.array_equal(own["hand"], a.counts(["R3", "Y4", "Y6", "B9"]))
    assert list(np.flatnonzero(a.mask(1))) == [a.kind("B9"), a.env.action_id("pass")]


def test_kept_playable_card_looks_like_an_unplayable_draw():
    a, b = drawn_tables()
    a.step("play B5", "draw")
    b.step("play B5", "draw")
    assert (a.seat, a.phase) == (1, "drawn")
    assert (b.seat, b.phase) == (2, "play")
    a.step("pass")
    assert (a.seat, a.phase) == (2, "play")
    for seat in (0, 2):
        assert_same_view(a, b, seat, where="after seat 1 drew")
        assert_views_differ(a, b, seat, "seer")
        f = a.fields(seat)
        assert np.array_equal(f["last_action"][rel(seat, 1, 3)], one_hot(NA, 59)), "seat 1's last action is draw"
    for action in ["play B7", "draw"]:  # seat 0 draws Y9, placed in both games
        a.step(action)
        b.step(action)
        for seat in (0, 2):
            assert_same_view(a, b, seat, where=f"after {action!r}")
    assert (a.seat, b.seat) == (1, 1)
    assert a.hand(1) == Counter(["R3", "Y4", "Y6", "B9"]) and b.hand(1) == Counter(["R3", "Y4", "Y6", "G8"])


# ------------------------------------------------------------------- 3: minimal-level fields

MINIMAL_DEAL = {
    "dealer": 2,
    "hands": [["P1", "P1", "B2", "PR", "G+2", "WN"], ["B3", "Y4", "G9", "P7"], ["Y5", "Y6", "B8"]],
    "top": "P5",
    "deck": ["P9", "Y3", "G4"],
    "foreheads": [[], ["Y7"], ["G5", "B3"]],
    "scores": [100, 250, 1000],
}


def test_minimal_fields_at_the_start():
    t = Table("unocorns", 3, MINIMAL_DEAL)
    pile = 112 - 13 - 3 - 1
    full = t.counts(full_deck("unocorns"))
    # Seat 0: deciding.
    f = t.fields(0, "minimal")
    assert set(f) == {
        "hand",
        "top_card",
        "color",
        "phase",
        "deciding",
        "direction",
        "pending_draw",
        "drawn_card",
        "draw_pile_size",
        "hand_sizes",
        "forehead_counts",
        "foreheads",
        "emoji_face",
        "scores",
    }
    assert np.array_equal(f["hand"], t.counts(["P1", "P1", "B2", "PR", "G+2", "WN"]))
    assert np.array_equal(f["top_card"], t.counts(["P5"]))
    assert list(f["color"]) == [1, 0, 0, 0]
    assert np.array_equal(f["phase"], phase_vec("play"))
    assert list(f["deciding"]) == [1, 0, 0]
    assert list(f["direction"]) == [1]
    assert list(f["pending_draw"]) == [0]
    assert not f["drawn_card"].any()
    assert list(f["draw_pile_size"]) == [pile]
    assert list(f["hand_sizes"]) == [6, 4, 3]
    assert list(f["forehead_counts"]) == [0, 1, 2]
    assert not f["foreheads"][0].any()
    assert np.array_equal(f["foreheads"][1], t.counts(["Y7"]))
    assert np.array_equal(f["foreheads"][2], t.counts(["G5", "B3"]))
    assert list(f["emoji_face"]) == [0, 0, 0]
    assert list(f["scores"]) == [20, 50, 127]  # 1000 / 500 = 200 %, clipped to 127
    # Seat 1: its own forehead row stays empty below seer.
    for level in HIDDEN:
        f = t.fields(1, level)
        assert np.array_equal(f["hand"], t.counts(["B3", "Y4", "G9", "P7"]))
        assert list(f["deciding"]) == [0, 0, 1]
        assert list(f["hand_sizes"]) == [4, 3, 6]
        assert list(f["forehead_counts"]) == [1, 2, 0]
        assert not f["foreheads"][0].any(), f"seat 1 sees its own forehead at {level}"
        assert np.array_equal(f["foreheads"][1], t.counts(["G5", "B3"]))
        assert not f["foreheads"][2].any()
        assert list(f["scores"]) == [50, 127, 20]
    f = t.fields(1, "seer")
    assert np.array_equal(f["foreheads"][0], t.counts(["Y7"]))
    assert list(f["forehead_counts"]) == [1, 2, 0]
    hands = [t.counts(h) for h in MINIMAL_DEAL["hands"]]
    for observer in range(3):
        f = t.fields(observer, "seer")
        for seat in range(3):
            assert np.array_equal(f["hands"][rel(observer, seat, 3)], hands[seat])
        assert f["draw_pile"].sum() == pile
        assert np.array_equal(f["draw_pile"] + sum(hands) + t.counts(["P5", "Y7", "G5", "B3"]), full)
    f = t.fields(2, "minimal")
    assert list(f["deciding"]) == [0, 1, 0]
    assert list(f["scores"]) == [127, 20, 50]
    assert list(f["hand_sizes"]) == [3, 6, 4]
    assert not f["foreheads"][0].any()
    assert np.array_equal(f["foreheads"][2], t.counts(["Y7"]))
    # The mask: seat 0 may play P1, PR, WN (not G+2: pink is active, the top is P5), or draw.
    assert list(np.flatnonzero(t.mask(0))) == [t.kind("P1"), t.kind("PR"), t.kind("WN"), 59]
    assert not t.mask(1).any() and not t.mask(2).any()


def test_minimal_fields_through_a_sequence():
    t = Table("unocorns", 3, MINIMAL_DEAL)
    pile = 112 - 13 - 3 - 1
    t.step("play PR")  # direction flips: seat 2 next, with two forehead cards to guess
    assert (t.seat, t.phase) == (2, "guess")
    f = t.fields(0, "minimal")
    assert list(f["direction"]) == [-1]
    assert list(f["deciding"]) == [0, 0, 1]
    assert np.array_equal(f["phase"], phase_vec("guess"))
    assert np.array_equal(f["top_card"], t.counts(["PR"]))
    assert list(f["hand_sizes"]) == [5, 4, 3]
    assert list(t.fields(2, "minimal")["deciding"]) == [1, 0, 0]
    assert list(t.fields(2, "minimal")["direction"]) == [-1]
    t.step("color green")  # right: G5 goes under the discard pile; B3 is guessed next
    assert (t.seat, t.phase) == (2, "guess")
    f = t.fields(0, "minimal")
    assert list(f["forehead_counts"]) == [0, 1, 1]
    assert np.array_equal(f["foreheads"][2], t.counts(["B3"]))
    assert np.array_equal(f["top_card"], t.counts(["PR"]))
    assert list(f["color"]) == [1, 0, 0, 0]
    t.step("color yellow")  # wrong: the turn ends; seat 1 (direction -1) guesses Y7
    assert (t.seat, t.phase) == (1, "guess")
    t.step("color yellow", "play P7")  # right, then seat 1 plays
    assert (t.seat, t.phase) == (0, "play")
    f = t.fields(0, "minimal")
    assert list(f["forehead_counts"]) == [0, 0, 1]
    assert not f["foreheads"][1].any()
    assert list(f["hand_sizes"]) == [5, 3, 3]
    assert list(f["draw_pile_size"]) == [pile]
    t.step("draw")  # P9: playable, seat 0 decides on it
    assert (t.seat, t.phase) == (0, "drawn")
    f = t.fields(0, "minimal")
    assert np.array_equal(f["phase"], phase_vec("drawn"))
    assert np.array_equal(f["drawn_card"], t.counts(["P9"]))
    assert np.array_equal(f["hand"], t.counts(["P1", "P1", "B2", "G+2", "WN", "P9"]))
    assert list(f["draw_pile_size"]) == [pile - 1]
    assert list(f["hand_sizes"]) == [6, 3, 3]
    for seat in (1, 2):
        g = t.fields(seat, "minimal")
        assert np.array_equal(g["phase"], phase_vec("play"))
        assert not g["drawn_card"].any()
        assert g["hand_sizes"][rel(seat, 0, 3)] == 6
    t.step("pass")
    assert not t.fields(0, "minimal")["drawn_card"].any()
    assert (t.seat, t.phase) == (2, "guess")


def test_color_is_zero_before_a_first_wild_colour():
    deal = {"dealer": 2, "hands": [["R1", "B2"], ["G3", "Y4"], ["R5", "B6"]], "top": "W"}
    t = Table("classic", 3, deal)
    assert (t.seat, t.phase) == (0, "color")
    for seat in range(3):
        f = t.fields(seat, "minimal")
        assert not f["color"].any()
        assert np.array_equal(f["top_card"], t.counts(["W"]))
        assert np.array_equal(f["phase"], phase_vec("color"))
    t.step("color green")
    assert (t.seat, t.phase) == (0, "play")
    for seat in range(3):
        assert list(t.fields(seat, "minimal")["color"]) == [0, 0, 1, 0]


def test_pending_draw_of_a_stack():
    deal = {
        "dealer": 2,
        "hands": [["R+2", "R3", "G4"], ["B+2", "Y5", "B6"], ["G1", "Y7", "Y8"]],
        "top": "R4",
        "deck": ["G5", "G6", "G7", "G8", "Y9"],
    }
    t = Table("swap", 3, deal)
    t.step("play R+2")
    assert (t.seat, t.phase) == (1, "play")
    for seat in range(3):
        assert list(t.fields(seat, "minimal")["pending_draw"]) == [2]
    assert list(np.flatnonzero(t.mask(1))) == [t.kind("B+2"), 59]
    t.step("play B+2")
    assert t.seat == 2
    for seat in range(3):
        assert list(t.fields(seat, "minimal")["pending_draw"]) == [4]
    assert list(np.flatnonzero(t.mask(2))) == [59]
    t.step("draw")  # takes the whole sum and loses the turn
    assert (t.seat, t.phase) == (0, "play")
    f = t.fields(0, "minimal")
    assert list(f["pending_draw"]) == [0]
    assert list(f["hand_sizes"]) == [2, 2, 7]
    assert np.array_equal(t.fields(2, "minimal")["hand"], t.counts(["G1", "Y7", "Y8", "G5", "G6", "G7", "G8"]))


def test_emoji_face():
    deal = {
        "dealer": 2,
        "hands": [["WE", "R5", "B7", "R8"], ["R1", "R2", "G3"], ["R6", "R9", "Y4"]],
        "top": "R3",
    }
    t = Table("emoji", 3, deal)
    t.step("play WE")
    assert (t.seat, t.phase) == (0, "emoji")
    assert list(np.flatnonzero(t.mask(0))) == sorted([t.kind("R5"), t.kind("B7"), t.kind("R8")])
    t.step("play R5")
    assert (t.seat, t.phase) == (1, "play")
    for seat in range(3):
        f = t.fields(seat, "minimal")
        assert list(f["emoji_face"]) == list(one_hot(3, rel(seat, 1, 3))), f"seat {seat}"
        assert np.array_equal(f["top_card"], t.counts(["R5"]))
        assert list(f["color"]) == [1, 0, 0, 0]
    t.step("play R1", "play R6")
    assert t.seat == 0
    assert list(t.fields(0, "minimal")["emoji_face"]) == [0, 1, 0]  # kept until seat 1's next turn
    t.step("play R8")
    assert t.seat == 1
    for seat in range(3):
        assert not t.fields(seat, "minimal")["emoji_face"].any()


def test_counts_are_clipped_to_127():
    deal = {"dealer": 2, "hands": [["R1", "B2"], ["G3", "Y4"], ["R5", "B6"]], "top": "R7"}
    t = Table("classic", 3, deal, card_counts={"W": 100})
    assert t.desc["pile"] == 204 - 6 - 1
    for level in LEVELS:
        assert list(t.fields(0, level)["draw_pile_size"]) == [127]


def test_a_new_round_of_a_match_starts_with_a_clean_memory():
    deal = {
        "dealer": 2,
        "hands": [["R1", "R2"], ["B3", "Y4"], ["G5", "Y6"]],
        "top": "R9",
        "deck": ["G8", "G7"],
        "scores": [100, 250, 0],
    }
    t = Table("classic", 3, deal, episode="match")
    t.step("play R1", "draw", "draw")  # G8 and G7: neither is playable on red
    f = t.fields(1)
    assert f["last_action"].sum() == 3
    assert np.array_equal(f["discard_pile"], t.counts(["R9", "R1"]))
    t.step("play R2")  # seat 0 goes out: 3 + 4 + 8 + 5 + 6 + 7 = 33 points; a new round is dealt
    assert not t.done and t.desc["scores"] == [133, 250, 0] and t.desc["dealer"] == 0
    top = t.discard()
    assert len(top) == 1
    for seat in range(3):
        f = t.fields(seat)
        assert list(f["scores"]) == list(np.roll([26, 50, 0], -seat)), f"seat {seat}"
        assert not f["last_action"].any()
        assert not f["known_cards"].any()
        assert not f["w4_previous_color"].any()
        assert np.array_equal(f["discard_pile"], one_hot(NK, top[0]))
        assert np.array_equal(f["hand"], t.hand_vec(seat))


# ------------------------------------------------------------------ 2: knowledge-level fields


def test_discard_pile_counts_and_forehead_cards():
    t = Table("unocorns", 3, MINIMAL_DEAL)
    f = t.fields(0)
    assert np.array_equal(f["discard_pile"], t.counts(["P5"]))
    t.step("play PR", "color green", "color yellow", "color yellow", "play P7")
    expected = t.counts(["P5", "PR", "G5", "Y7", "P7"])  # right guesses go under the pile
    for seat in range(3):
        assert np.array_equal(t.fields(seat)["discard_pile"], expected), f"seat {seat}"
    assert "discard_pile" not in t.fields(0, "minimal")


def test_discard_pile_after_a_reshuffle():
    """A draw pile of one card: the second draw reshuffles the discard pile but its top into the pile."""
    hands = [["R1", "R2", "B3"], ["G4", "G6"]]
    used = Counter(["R1", "R2", "B3", "G4", "G6", "R7", "Y8"])
    rest = full_deck("classic")
    for code, copies in used.items():
        for _ in range(copies):
            rest.remove(code)
    deal = {"dealer": 2, "hands": [*hands, rest], "top": "R7", "deck": ["Y8"]}
    t = Table("classic", 3, deal)
    assert t.fields(0)["draw_pile_size"][0] == 1
    t.step("play R1", "draw")  # seat 1 draws Y8: unplayable
    assert (t.seat, t.fields(0)["draw_pile_size"][0]) == (2, 0)
    t.step("play R5", "play R2")
    assert np.array_equal(t.fields(0)["discard_pile"], t.counts(["R7", "R1", "R5", "R2"]))
    t.step("draw")  # the pile is empty: R7, R1, R5 are shuffled into a new one, seat 1 draws one
    for seat in range(3):
        f = t.fields(seat)
        assert np.array_equal(f["discard_pile"], t.counts(["R2"])), f"seat {seat}"
        assert list(f["draw_pile_size"]) == [2]
        assert np.array_equal(f["top_card"], t.counts(["R2"]))


def test_wrong_guesses():
    deal = {
        "dealer": 2,
        "hands": [["P1", "P2", "P3"], ["P4", "P5", "P6"], ["P7", "P8", "P9"]],
        "top": "P0",
        "foreheads": [["G5", "Y7"], [], []],
    }
    t = Table("unocorns", 3, deal)
    assert not t.fields(0)["wrong_guesses"].any()
    t.step("color pink")  # wrong: the turn ends
    f = t.fields(0)
    assert np.array_equal(f["wrong_guesses"], [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    for seat in (1, 2):
        assert not t.fields(seat)["wrong_guesses"].any(), "wrong guesses are the guesser's own"
    t.step("play P4", "play P7")
    assert (t.seat, t.phase) == (0, "guess")
    assert list(np.flatnonzero(t.mask(0))) == [62, 63, 64]  # pink is left out
    t.step("color blue")
    assert np.array_equal(t.fields(0)["wrong_guesses"][:2], [[1, 1, 0, 0], [0, 0, 0, 0]])
    t.step("play P5", "play P8", "color green")  # right: G5 goes; Y7 is next, its own slot
    assert (t.seat, t.phase) == (0, "guess")
    assert not t.fields(0)["wrong_guesses"].any()
    t.step("color blue")
    assert np.array_equal(t.fields(0)["wrong_guesses"], [[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    assert list(t.fields(0)["forehead_counts"]) == [1, 0, 0]
    assert "wrong_guesses" not in t.fields(0, "minimal")


def test_wrong_guesses_stay_with_their_card():
    """A Narwhal adds a newer forehead card: the older one keeps its wrong colours in slot 0."""
    deal = {
        "dealer": 2,
        "hands": [["P1", "P2", "P3"], ["WN", "P5", "P6"], ["P7", "P8", "P9"]],
        "top": "P0",
        "foreheads": [["G5"], [], []],
        "deck": ["B1", "B2", "B3"],
    }
    t = Table("unocorns", 3, deal)
    t.step("color pink", "play WN")  # seat 0 wrong; the Narwhal: B1 to seat 2, B2 to seat 0, B3 to seat 1
    assert t.desc["foreheads"] == [["G5", "B2"], ["B3"], ["B1"]]
    t.step("color pink", "color yellow")  # seat 1's colour; seat 2 guesses B1 wrong
    assert (t.seat, t.phase) == (0, "guess")
    f = t.fields(0)
    assert list(f["forehead_counts"]) == [2, 1, 1]
    assert np.array_equal(f["wrong_guesses"], [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    assert np.array_equal(f["foreheads"][1], t.counts(["B3"]))
    assert np.array_equal(f["foreheads"][2], t.counts(["B1"]))
    assert not f["foreheads"][0].any()
    assert np.array_equal(t.fields(2)["wrong_guesses"][0], [0, 0, 0, 1])
    assert list(np.flatnonzero(t.mask(0))) == [62, 63, 64]
    t.step("color blue")
    assert np.array_equal(t.fields(0)["wrong_guesses"][:2], [[1, 1, 0, 0], [0, 0, 0, 0]])


@pytest.mark.parametrize("guilty", [True, False])
def test_known_cards_after_a_challenge(guilty):
    hand0 = ["W+4", "R3", "B5", "G6", "G7"] if guilty else ["W+4", "Y3", "B5", "G6", "G7"]
    deal = {
        "dealer": 2,
        "hands": [hand0, ["B2", "Y1", "Y2"], ["B8", "G1", "G2"]],
        "top": "R9",
        "deck": ["Y4", "Y5", "Y6", "Y7", "Y8", "Y9"],
    }
    t = Table("classic", 3, deal)
    t.step("play W+4", "color blue")
    assert (t.seat, t.phase) == (1, "challenge")
    for seat in range(3):
        f = t.fields(seat)
        assert not f["known_cards"].any()
        assert list(f["w4_previous_color"]) == [1, 0, 0, 0], "red was active before the Wild Draw Four"
        assert list(f["color"]) == [0, 1, 0, 0]
    t.step("challenge")
    shown = t.counts(hand0[1:])
    f = t.fields(1)
    assert np.array_equal(f["known_cards"][2], shown), "the challenger sees the hand before the penalty"
    assert not f["known_cards"][1].any()
    assert not t.fields(0)["known_cards"].any()
    assert not t.fields(2)["known_cards"].any(), "only the challenger sees the hand"
    assert "known_cards" not in t.fields(1, "minimal")
    if guilty:
        assert (t.seat, t.phase) == (1, "play")
        assert t.hand(0) == Counter(hand0[1:] + ["Y4", "Y5", "Y6", "Y7"])
        t.step("play B2", "play B8", "play B5")
        f = t.fields(1)
        assert np.array_equal(f["known_cards"][2], t.counts(["R3", "G6", "G7"])), "a played card is forgotten"
        assert np.array_equal(f["last_action"][2], one_hot(NA, t.kind("B5")))
    else:
        assert (t.seat, t.phase) == (2, "play")
        assert sum(t.hand(1).values()) == 9
        t.step("play B8", "play B5")
        assert np.array_equal(t.fields(1)["known_cards"][2], t.counts(["Y3", "G6", "G7"]))
    assert list(t.fields(2)["w4_previous_color"]) == [1, 0, 0, 0]


def test_known_cards_after_an_urrrhhh():
    deal = {
        "dealer": 2,
        "hands": [["W+4", "WU", "P3", "P4", "P8", "B5", "G6"], ["P2", "Y1", "Y2"], ["P6", "G1", "G2"]],
        "top": "P9",
        "deck": ["Y3", "Y4", "Y5", "Y6"],
    }
    t = Table("monster_high", 3, deal, seed=4)
    t.step("play W+4", "color pink", "challenge")  # guilty: seat 1 sees seat 0's hand
    assert np.array_equal(t.fields(1)["known_cards"][2], t.counts(["WU", "P3", "P4", "P8", "B5", "G6"]))
    t.step("play P2", "play P6", "play WU")
    assert (t.seat, t.phase) == (0, "give")
    before = [t.hand(s) for s in range(3)]
    t.step("color pink")
    assert (t.seat, t.phase) == (0, "color")
    got1, got2 = t.hand(1) - before[1], t.hand(2) - before[2]
    assert sum(got1.values()) == 2 and sum(got2.values()) == 1  # seat 1, seat 2, seat 1
    assert got1 + got2 == Counter(["P3", "P4", "P8"])
    f = t.fields(0)
    assert np.array_equal(f["known_cards"][1], t.counts(got1.elements())), "the giver knows what went to whom"
    assert np.array_equal(f["known_cards"][2], t.counts(got2.elements()))
    f = t.fields(1)
    assert np.array_equal(f["known_cards"][2], t.counts(["B5", "G6"])), "the pink cards seat 1 knew are gone"
    assert not f["known_cards"][1].any(), "seat 1 does not know what seat 2 got"
    assert not t.fields(2)["known_cards"].any()
    assert list(t.fields(2)["last_action"][1]) == list(one_hot(NA, t.env.action_id("color pink")))


def test_known_cards_after_a_swap():
    deal = {
        "dealer": 2,
        "hands": [["R1", "WS", "G3", "G4", "G9"], ["W+4", "R5", "B6", "Y7"], ["R8", "Y2", "B9"]],
        "top": "R2",
        "deck": ["G5", "G6", "G7", "G8"],
    }
    t = Table("swap", 3, deal)
    t.step("play R1", "play W+4", "color yellow", "challenge")  # guilty: seat 2 sees seat 1's R5 B6 Y7
    assert np.array_equal(t.fields(2)["known_cards"][2], t.counts(["R5", "B6", "Y7"]))
    t.step("play Y2", "play WS")
    assert (t.seat, t.phase) == (0, "swap")
    t.step("swap +1")
    assert t.hand(0) == Counter(["R5", "B6", "Y7", "G5", "G6", "G7", "G8"])
    assert t.hand(1) == Counter(["G3", "G4", "G9"])
    f = t.fields(0)
    assert np.array_equal(f["known_cards"][1], t.counts(["G3", "G4", "G9"]))
    assert not f["known_cards"][2].any()
    f = t.fields(1)
    assert np.array_equal(f["known_cards"][2], t.counts(["R5", "B6", "Y7", "G5", "G6", "G7", "G8"]))
    assert not f["known_cards"][1].any()
    f = t.fields(2)  # what seat 2 knew of seat 1's hand is now in seat 0's
    assert np.array_equal(f["known_cards"][1], t.counts(["R5", "B6", "Y7"]))
    assert not f["known_cards"][2].any()
    t.step("color green", "play G3")
    assert np.array_equal(t.fields(0)["known_cards"][1], t.counts(["G4", "G9"]))


def test_last_action_per_relative_seat():
    deal = {
        "dealer": 2,
        "hands": [["R1", "R2", "B3"], ["Y4", "G6", "B7"], ["W", "Y8", "B9"]],
        "top": "R7",
        "deck": ["R5", "G2"],
    }
    t = Table("classic", 3, deal)
    assert not t.fields(0)["last_action"].any()
    t.step("play R1", "draw")  # seat 1 draws R5: playable
    assert (t.seat, t.phase) == (1, "drawn")
    t.step("pass")  # kept: still "draw" for everyone, the drawer included
    t.step("play W", "color green")
    expected = {0: "play R1", 1: "draw", 2: "color green"}
    for observer in range(3):
        la = t.fields(observer)["last_action"]
        assert la.sum() == 3
        for seat, name in expected.items():
            row = la[rel(observer, seat, 3)]
            assert np.array_equal(row, one_hot(NA, t.env.action_id(name))), (observer, seat)
    t.step("draw")  # seat 0 draws G2: playable on green
    t.step("play G2")
    assert np.array_equal(t.fields(1)["last_action"][2], one_hot(NA, t.kind("G2")))
    assert "last_action" not in t.fields(0, "minimal")


def test_w4_previous_color_is_public_and_absent_below_knowledge():
    deal = {"dealer": 2, "hands": [["B1", "W+4"], ["B2", "Y3"], ["G4", "Y5"]], "top": "G9"}
    t = Table("classic", 3, deal)
    assert not t.fields(0)["w4_previous_color"].any()
    t.step("play W+4", "color yellow", "accept")
    for seat in range(3):
        assert list(t.fields(seat)["w4_previous_color"]) == [0, 0, 1, 0]
    assert "w4_previous_color" not in t.fields(0, "minimal")
    assert t.fields(0)["hand_sizes"][1] == 6


# ------------------------------------------------------------------------------ 4: the layout

DOCUMENTED = [  # (name, shape with "N", level), as in the table of uno_env.observation
    ("hand", (59,), "minimal"),
    ("top_card", (59,), "minimal"),
    ("color", (4,), "minimal"),
    ("phase", (10,), "minimal"),
    ("deciding", ("N",), "minimal"),
    ("direction", (1,), "minimal"),
    ("pending_draw", (1,), "minimal"),
    ("drawn_card", (59,), "minimal"),
    ("draw_pile_size", (1,), "minimal"),
    ("hand_sizes", ("N",), "minimal"),
    ("forehead_counts", ("N",), "minimal"),
    ("foreheads", ("N", 59), "minimal"),
    ("emoji_face", ("N",), "minimal"),
    ("scores", ("N",), "minimal"),
    ("discard_pile", (59,), "knowledge"),
    ("wrong_guesses", (4, 4), "knowledge"),
    ("known_cards", ("N", 59), "knowledge"),
    ("last_action", ("N", 77), "knowledge"),
    ("w4_previous_color", (4,), "knowledge"),
    ("hands", ("N", 59), "seer"),
    ("draw_pile", (59,), "seer"),
    ("void_age", ("N", 59), "belief"),
    ("named_colors", ("N", 4), "belief"),
    ("took", ("N",), "belief"),
    ("draw_ended", ("N",), "belief"),
    ("recent_actions", (8, 77), "belief"),
    ("recent_seats", (8, "N"), "belief"),
    ("unseen", (59,), "belief"),
    ("counting_prior", ("N", 59), "belief"),
]
EXPECTED_SIZE = {"minimal": (194, 64), "knowledge": (273, 200), "belief": (948, 332), "seer": (1007, 391)}  # a + b*N


@pytest.mark.parametrize("n", [2, 3, 10])
@pytest.mark.parametrize("level", LEVELS)
def test_layout(level, n):
    env = uno_env.raw_env(variant="classic", num_players=n, observation=level)
    layout = env.observation_layout
    depth = LEVELS.index(level)
    expected = [(name, shape) for name, shape, lv in DOCUMENTED if LEVELS.index(lv) <= depth]
    if level == "seer":  # the belief fields come last, after the seer's own: the older levels' layouts stay
        expected.sort(key=lambda field: [lv for name, _, lv in DOCUMENTED if name == field[0]][0] == "belief")
    assert [name for name, _ in expected] == list(layout)
    at = 0
    for name, shape in expected:
        sl, got = layout[name]
        dims = tuple(n if d == "N" else d for d in shape)
        assert got == dims, name
        assert (sl.start, sl.stop, sl.step) == (at, at + int(np.prod(dims)), None), name
        at = sl.stop
    size = EXPECTED_SIZE[level][0] + EXPECTED_SIZE[level][1] * n
    assert at == size
    assert uno_env.observation_layout(level, n) == layout
    env.reset(seed=n)
    for agent in env.possible_agents:
        space = env.observation_space(agent)
        assert space["observation"].shape == (size,)
        assert space["action_mask"].shape == (NA,)
        obs = env.observe(agent)
        assert obs["observation"].shape == (size,) and obs["observation"].dtype == np.int8
        assert obs["action_mask"].dtype == np.int8
        assert space.contains(obs)
        fields = env.unflatten(obs["observation"])
        for name, (_, shape) in layout.items():
            assert fields[name].shape == shape


@pytest.mark.parametrize(("variant", "n"), [("classic", 2), ("unocorns", 4), ("monster_high", 3), ("swap", 10)])
def test_action_mask_only_for_the_deciding_agent(variant, n):
    env = uno_env.raw_env(variant=variant, num_players=n, observation="seer")
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    for _ in range(300):
        if env.terminations[env.agent_selection]:
            for agent in env.possible_agents:
                assert not env.observe(agent)["action_mask"].any()
            env.reset(seed=int(rng.integers(1000)))
        deciding = env.agent_selection
        seat = env.possible_agents.index(deciding)
        for agent in env.possible_agents:
            obs = env.observe(agent)
            observer = env.possible_agents.index(agent)
            f = env.unflatten(obs["observation"])
            assert np.array_equal(f["deciding"], one_hot(n, rel(observer, seat, n)))
            if agent == deciding:
                assert obs["action_mask"].any()
                assert env.observation_space(agent).contains(obs)
            else:
                assert not obs["action_mask"].any(), f"{agent} has a mask while {deciding} decides"
        mask = env.observe(deciding)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


def test_wrapped_env_gives_the_same_observations():
    wrapped = uno_env.env(variant="unocorns", num_players=3, observation="knowledge")
    raw = uno_env.raw_env(variant="unocorns", num_players=3, observation="knowledge")
    wrapped.reset(seed=21, options={"deal": MINIMAL_DEAL})
    raw.reset(seed=21, options={"deal": MINIMAL_DEAL})
    rng = np.random.default_rng(21)
    for _ in range(60):
        obs, _, termination, truncation, _ = wrapped.last()
        if termination or truncation:
            break
        agent = wrapped.agent_selection
        assert agent == raw.agent_selection
        mine = raw.observe(agent)
        assert np.array_equal(obs["observation"], mine["observation"])
        assert np.array_equal(obs["action_mask"], mine["action_mask"])
        for other in raw.possible_agents:
            assert np.array_equal(wrapped.observe(other)["observation"], raw.observe(other)["observation"])
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        wrapped.step(action)
        raw.step(action)


# ------------------------------------------------------------------------------ 5: the belief level


def belief_table() -> Table:
    """Classic, 3 players, seat 0 first: it plays R5; seat 1 (no red, no 5, no wild) draws the unplayable Y4;
    seat 2 plays its Wild and names blue."""
    deal = {"dealer": 2, "hands": [["R5", "G3", "G4"], ["G2", "B7", "Y9"], ["W", "B1", "G8"]], "top": "R1",
            "deck": ["Y4", "G6", "B3"]}  # fmt: skip
    t = Table("classic", 3, deal)
    t.step("play R5")
    assert t.seat == 1
    t.step("draw")
    assert t.seat == 2 and t.hand(1)["Y4"] == 1
    t.step("play W", "color blue")
    return t


def test_belief_fields_read_what_play_revealed():
    t = belief_table()
    f = t.fields(0, "belief")
    playable = [t.kind(f"R{r}") for r in ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "+2")]
    playable += [t.kind(f"{c}5") for c in "BGY"] + [t.kind("W"), t.kind("W+4")]  # challenges on: W+4 is public
    expected_age = np.full(NK, -1)
    expected_age[playable] = 1  # it showed none of these, then took one card
    assert np.array_equal(f["void_age"][1], expected_age)
    assert (f["void_age"][0] == -1).all() and (f["void_age"][2] == -1).all()
    assert np.array_equal(f["named_colors"][2], one_hot(4, 1)) and f["named_colors"][:2].sum() == 0
    assert np.array_equal(f["took"], [0, 1, 0]) and np.array_equal(f["draw_ended"], [0, 1, 0])
    newest_first = [t.env.action_id(a) for a in ("color blue", "play W", "draw", "play R5")]
    assert [int(np.argmax(row)) for row in f["recent_actions"][:4]] == newest_first
    assert f["recent_actions"][4:].sum() == 0
    assert [int(np.argmax(row)) for row in f["recent_seats"][:4]] == [2, 2, 1, 0]


def test_unseen_and_the_counting_prior():
    t = belief_table()
    f = t.fields(0, "belief")
    deck = uno_env.make_rules("classic").card_counts_by_code()
    seen = t.counts(["G3", "G4", "R1", "R5", "W"])  # its hand, and the discard pile
    unseen = np.array([deck.get(code, 0) for code in t.env.rules.codes]) - seen
    assert np.array_equal(f["unseen"], unseen)
    hidden = {1: 4, 2: 2}
    for rel, size in hidden.items():
        prior = f["counting_prior"][rel] / 16
        assert np.allclose(prior, size * unseen / unseen.sum(), atol=1 / 32)
    assert np.array_equal(f["counting_prior"][0], 16 * t.hand_vec(0))
    exact = uno_env.observation.counting_belief(t.obs(0, "belief")[None], "belief", 3)[0]
    assert np.allclose(exact[0], t.hand_vec(0)) and np.allclose(exact.sum(-1), [2, 4, 2])
    assert np.allclose(exact[1], 4 * unseen / unseen.sum())


def test_counting_needs_the_belief_level():
    t = belief_table()
    with pytest.raises(ValueError, match="unseen"):
        uno_env.observation.counting_belief(t.obs(0, "knowledge")[None], "knowledge", 3)


def test_a_seats_belief_view_does_not_change_with_the_hands_it_cannot_see():
    a = belief_table()
    deal = {"dealer": 2, "hands": [["R5", "G3", "G4"], ["G2", "B8", "Y9"], ["W", "B2", "G8"]], "top": "R1",
            "deck": ["Y4", "G6", "B3"]}  # fmt: skip
    b = Table("classic", 3, deal)
    b.step("play R5", "draw", "play W", "color blue")
    assert_same_view(a, b, 0, levels=("belief",), where="after a draw and a wild")
    assert_views_differ(a, b, 0, "seer")


# ------------------------------------------------------------------------------ 6: the layout as a contract

def stamped(level: str, n: int, description: str) -> dict:
    """A file's fields for a layout described by `description` (its digest made from it, as a writer makes it)."""
    return {"observation": level, "num_players": n, O.DIGEST_KEY: O.layout_digest(level, n, description),
            O.FIELDS_KEY: description}  # fmt: skip


def refusal(data: dict) -> str:
    with pytest.raises(ValueError) as error:
        O.check_layout("old.pt", data)
    assert "\n" not in str(error.value)
    return str(error.value)


def reordered_module(tmp_path, edit):
    """uno_env/observation.py with `edit` applied to its source, loaded as another module of the package."""
    import importlib.util

    source = edit(Path(O.__file__).read_text())
    path = tmp_path / "observation_edited.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("uno_env._observation_edited", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("level", LEVELS)
def test_the_digest_is_made_from_the_layouts_fields(level, n):
    description = O.layout_description(level, n)
    layout = O.observation_layout(level, n)
    assert description.split() == [f"{name}:{'x'.join(map(str, shape))}" for name, (_, shape) in layout.items()]
    digest = O.layout_digest(level, n)
    assert len(digest) == 16 and int(digest, 16) >= 0
    assert O.layout_digest(level, n, description) == digest
    assert O.layout_stamp(level, n) == {O.DIGEST_KEY: digest, O.FIELDS_KEY: description}
    others = {O.layout_digest(lv, m) for lv in LEVELS for m in (2, 3, 4)} - {digest}
    assert len(others) == 11  # every level and player count has its own
    O.check_layout("new.pt", {"observation": level, "num_players": n, **O.layout_stamp(level, n)})


def test_a_file_without_a_digest_is_left_to_the_size_check():
    O.check_layout("old.pt", {"observation": "knowledge", "num_players": 2})


def test_a_file_of_another_layout_is_refused_naming_the_first_field_that_differs():
    now = O.layout_description("knowledge", 2).split()
    cases = [  # the file's fields -> the first field that differs, and how
        (now[:-1], "w4_previous_color (new in this version, after the file's last field)"),
        ([*now, "hint:77"], "hint (the file's, after this version's last field)"),
        ([e.replace("hand_sizes:2", "hand_sizes:3") for e in now], "hand_sizes (of shape 3 in the file, 2 in this"),
        ([e for e in now if not e.startswith("pending_draw:")], "pending_draw (new in this version, where the file "
                                                                 "has drawn_card)"),  # fmt: skip
        ([e.replace("scores:", "points:") for e in now], "scores (new in this version, where the file has points)"),
        ([now[0], "extra:2", *now[1:]], "extra (not in this version, which has top_card there)"),
        ([now[1], now[0], *now[2:]], "hand (the file has top_card there: the fields are in another order)"),
    ]
    for fields, says in cases:
        message = refusal(stamped("knowledge", 2, " ".join(fields)))
        assert message.startswith("old.pt: trained on the knowledge observation layout "), message
        assert f"this version's is {O.layout_digest('knowledge', 2)}: the first field that differs is {says}" in message


def test_an_altered_or_malformed_stamp_is_refused():
    good = {"observation": "belief", "num_players": 4, **O.layout_stamp("belief", 4)}
    assert "is not the digest of its observation_fields" in refusal({**good, O.DIGEST_KEY: "0" * 16})
    fields = good[O.FIELDS_KEY].replace("took:4", "took:5")
    assert "is not the digest of its observation_fields" in refusal({**good, O.FIELDS_KEY: fields})
    for bad in ({O.DIGEST_KEY: "xyz"}, {O.DIGEST_KEY: 7}, {O.FIELDS_KEY: "hand 59"}, {O.FIELDS_KEY: None}):
        assert "16 hex digits" in refusal({**good, **bad})
    assert "says its observation level" in refusal({**good, "num_players": 11})
    assert "says its observation level" in refusal({**good, "observation": "omniscient"})


def test_field_ids_come_from_names_and_the_order_makes_the_digest(tmp_path):
    """Two rows of the table swapped: every id still names its field, the offsets follow, the digest changes, and a
    file of the old order is refused naming the first field that moved."""

    def swap(source):
        lines = source.splitlines(keepends=True)
        hand = next(i for i, line in enumerate(lines) if line.startswith('    Field("hand",'))
        top = next(i for i, line in enumerate(lines) if line.startswith('    Field("top_card",'))
        lines[hand], lines[top] = lines[top], lines[hand]
        return "".join(lines)

    edited = reordered_module(tmp_path, swap)
    assert edited.FIELD_NAMES[:2] == ("top_card", "hand")
    ids = [key for key in vars(O) if key.startswith("F_")]
    assert len(ids) == len(O.FIELDS)
    for key in ids:
        assert edited.FIELD_NAMES[getattr(edited, key)] == O.FIELD_NAMES[getattr(O, key)], key
    assert (edited.F_HAND, edited.F_TOP) == (1, 0)
    offsets = edited.field_offsets("knowledge", 2)
    assert (offsets[edited.F_HAND], offsets[edited.F_TOP]) == (59, 0)  # the top card now comes first
    assert edited.observation_size("knowledge", 2) == O.observation_size("knowledge", 2)  # the size cannot tell
    assert edited.layout_digest("knowledge", 2) != O.layout_digest("knowledge", 2)
    with pytest.raises(ValueError, match="knowledge observation layout .* first field that differs is top_card"):
        edited.check_layout("old.pt", {"observation": "knowledge", "num_players": 2, **O.layout_stamp("knowledge", 2)})


def test_a_field_appended_to_the_table_moves_nothing_and_changes_its_level_and_those_above(tmp_path):
    """The ordering rule: a new field goes at the end, whatever its level; it changes the digest of its level and of
    every level above it (their files must be retrained), and no other."""
    row = '    Field("new_count", ("N",), 1, 1 / 8, "a field added at the knowledge level"),\n'

    def append(source):
        end = source.index("\n)\n", source.index("FIELDS = ("))
        return source[: end + 1] + row + source[end + 1 :]

    edited = reordered_module(tmp_path, append)
    assert edited.FIELD_NAMES[-1] == "new_count"
    for level in LEVELS:
        old, new = O.observation_layout(level, 4), edited.observation_layout(level, 4)
        assert {name: new[name] for name in old} == old  # every field keeps its place
        changed = edited.layout_digest(level, 4) != O.layout_digest(level, 4)
        assert changed == (LEVELS.index(level) >= 1) == ("new_count" in new), level
    with pytest.raises(ValueError, match="first field that differs is new_count .new in this version, after the"):
        edited.check_layout("old.pt", {"observation": "belief", "num_players": 4, **O.layout_stamp("belief", 4)})
