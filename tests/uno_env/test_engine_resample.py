"""`resample_hidden`: redealing what the deciding seat cannot see, for search (determinization).

Scripted scenarios check what stays (the seat's own cards, cards it knows others hold, foreheads it sees)
and what a wrong forehead guess rules out; a sweep over every preset checks, at every decision of random
games, that the seat's observation is unchanged and every card is still in exactly one place; a frequency
test checks the redeal is uniform.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from uno_env import PRESETS, Game, GameBatch
from uno_env import actions as A
from uno_env import cards as C
from uno_env import engine as E
from uno_env import observation as O
from uno_env.agents.base import bind
from uno_env.agents.registry import make_agent
from uno_env.testing import act
from uno_env.testing import deal as new_game


def observation_of(batch: GameBatch, g: int, seat: int, level: str = "knowledge") -> np.ndarray:
    spec = O.ObservationSpec(level, batch.num_players)
    out = np.zeros(spec.size, np.int8)
    mask = np.zeros(A.NUM_ACTIONS, np.uint8)
    O.observe_one(batch.state_array, batch.config_array, g, seat, spec.index, spec.offsets, out, mask)
    return out


def redealt(game: Game, seed: int) -> Game:
    world = game.copy()
    world.resample_hidden(seed)
    world.check()
    return world


def test_cards_a_seat_saw_in_a_challenge_stay_and_the_rest_is_redealt():
    # Seat 0's Wild Draw Four is legal (no green); seat 1 challenges, sees seat 0's hand, draws six.
    g = new_game(
        "classic", [["W+4", "Y1", "B4"], ["Y2", "Y3"], ["B2", "G3"]], "G5", ["R1", "R2", "R3", "R4", "R5", "R6"]
    )
    act(g, "play W+4", "color blue", "challenge", "play B2", "play B4")
    assert (g.seat, g.phase) == (1, "play")
    hands = g.describe()["hands"]
    seat_two_hands = set()
    for seed in range(40):
        world = redealt(g, seed)
        d = world.describe()
        assert d["hands"][0] == ["Y1"]  # seat 1 saw it
        assert d["hands"][1] == hands[1]  # its own
        assert len(d["hands"][2]) == 1
        assert (d["pile"], d["top"], d["discard"], d["seat"], d["phase"]) == (
            g.describe()["pile"], "B4", 4, 1, "play",
        )  # fmt: skip
        seat_two_hands.add(d["hands"][2][0])
    assert len(seat_two_hands) > 5  # G3 was dealt among the unseen cards
    assert g.describe()["hands"] == hands  # the original is untouched


def test_what_others_knew_of_a_third_hand_is_forgotten_and_of_the_seats_own_hand_stays():
    g = new_game(
        "classic", [["W+4", "Y1", "B4"], ["Y2", "Y3"], ["B2", "G3"]], "G5", ["R1", "R2", "R3", "R4", "R5", "R6"]
    )
    act(g, "play W+4", "color blue", "challenge")  # seat 1 knows Y1 and B4 of seat 0; seat 2 did not see them
    assert g.seat == 2
    assert g.batch.state[0].known[1, 0].sum() == 2
    for seed in range(20):
        st = redealt(g, seed).batch.state[0]  # check(): no seat "knows" a card its holder lacks
        assert st.known[1, 0].sum() == 0
    act(g, "play B2", "play B4")  # seat 1 decides: what it knows of seat 0 is its own memory
    assert g.seat == 1
    for seed in range(20):
        st = redealt(g, seed).batch.state[0]
        assert st.known[1, 0].sum() == 1 and st.hand[0, st.known[1, 0].argmax()] == 1


def test_the_redeal_depends_only_on_what_the_seat_sees():
    # Two games the seat cannot tell apart (the real one and a redealt one) give the same world for a seed.
    for preset in PRESETS:
        batch = GameBatch(preset, 3, 1)
        batch.reset(7)
        rng = np.random.default_rng(1)
        for step in range(150):
            if batch.done[0]:
                batch.reset(step)
            twin = batch.copy()
            twin.resample_hidden(0, 10_000 + step)
            a, b = batch.copy(), twin.copy()
            a.resample_hidden(0, step)
            b.resample_hidden(0, step)
            for field in E.STATE_DTYPE.names:
                assert np.array_equal(a.state[field], b.state[field]), (preset, step, field)
            batch.step_game(0, int(rng.choice(np.flatnonzero(batch.legal_masks()[0]))))


def test_a_wrong_forehead_guess_rules_out_its_colour_and_the_wild_cards():
    g = new_game("unocorns", [["G4", "Y1"], ["G2", "P3", "Y8"]], "G5", ["P9", "P6"], foreheads=[["B7"], []])
    act(g, "color green", "play G2")  # a wrong guess; seat 0 guesses again
    assert (g.seat, g.phase) == (0, "guess")
    drawn = Counter()
    for seed in range(300):
        world = redealt(g, seed)
        d = world.describe()
        (card,) = d["foreheads"][0]
        assert card[0] not in "GW", card  # not green, not a wild card
        assert d["hands"][0] == g.hand(0)
        drawn[card[0]] += 1
    assert set(drawn) == {"P", "B", "Y"}


def test_foreheads_the_seat_sees_stay():
    g = new_game("unocorns", [["G4", "Y1"], ["G2", "P3", "Y8"]], "G5", ["P9", "P6"], foreheads=[["B7"], []])
    act(g, "color green")  # seat 1 plays, and sees seat 0's B7
    assert g.seat == 1
    for seed in range(20):
        assert redealt(g, seed).describe()["foreheads"] == [["B7"], []]


def test_a_waiting_challenge_is_judged_by_the_redealt_hand():
    # Seat 0 played a Wild Draw Four on green holding no green; seat 1, to challenge, cannot see that.
    g = new_game(
        "classic", [["W+4", "Y1", "B4"], ["Y2", "Y3"], ["B2", "G3"]], "G5", ["R1", "R2", "R3", "R4", "R5", "R6"]
    )
    act(g, "play W+4", "color blue")
    assert (g.seat, g.phase) == (1, "challenge")
    guilty = Counter()
    for seed in range(200):
        world = redealt(g, seed)
        held_green = any(card.startswith("G") for card in world.hand(0))
        act(world, "challenge")
        guilty[held_green] += 1
        # a guilty player draws four and seat 1 plays on; an innocent one makes seat 1 draw six and lose its turn
        assert len(world.hand(0)) == 2 + 4 * held_green
        assert len(world.hand(1)) == 2 + 6 * (not held_green)
    assert guilty[True] > 10 and guilty[False] > 100


def test_refused_after_the_episode_and_nothing_changes():
    g = new_game("classic", [["W+4", "Y1", "B4"], ["Y2", "Y3"], ["B2", "G3"]], "G5")
    over = new_game("classic", [["R1"], ["Y2", "Y3"]], "R5")
    act(over, "play R1")
    assert over.done
    before = over.batch.state.copy()
    with pytest.raises(ValueError, match="episode is over"):
        over.resample_hidden(1)
    assert over.batch.state.tobytes() == before.tobytes()
    for bad in (-1, 2**64, 1.5, True):
        with pytest.raises(ValueError, match="seed must be an int"):
            g.batch.resample_hidden(0, bad)
    with pytest.raises(ValueError, match="game must be from 0 to 0"):
        g.batch.resample_hidden(1, 0)


def test_the_draw_pile_alone_is_shuffled_for_a_seer():
    g = Game("classic", 3, seed=4)
    st = g.batch.state
    piles = set()
    for seed in range(10):
        world = g.copy()
        assert E.resample_draw_pile(world.batch.state_array, world.batch.config_array, 0, seed) == E.RESAMPLED
        world.check()
        assert world.describe()["hands"] == g.describe()["hands"]
        n = int(st.draw_len[0])
        assert sorted(world.batch.state.draw_pile[0][:n]) == sorted(st.draw_pile[0][:n])
        piles.add(world.batch.state.draw_pile[0][:n].tobytes())
    assert len(piles) == 10


def test_the_same_seed_gives_the_same_world():
    g = Game("classic", 3, seed=11)
    a, b, c = redealt(g, 5), redealt(g, 5), redealt(g, 6)
    assert a.describe() == b.describe()
    for field in E.STATE_DTYPE.names:
        assert np.array_equal(a.batch.state[field], b.batch.state[field]), field
    assert a.describe()["hands"] != c.describe()["hands"]


def test_the_redeal_is_uniform_over_the_unseen_cards():
    # At the first decision of a 2-player deal, each unseen card lies in the other hand with the chance
    # (cards in that hand) / (cards unseen).
    g = Game("classic", 2, seed=3)
    st = g.batch.state[0]
    seat, other = int(st.seat), 1 - int(st.seat)
    unseen = g.rules.card_counts - st.hand[seat] - np.bincount(st.discard[: st.discard_len], minlength=st.hand.shape[1])
    share = st.hand[other].sum() / unseen.sum()
    samples = 2000
    held = np.zeros(st.hand.shape[1])
    for seed in range(samples):
        world = g.copy()
        world.resample_hidden(seed)
        held += world.batch.state[0].hand[other]
    expected = unseen * share * samples
    sd = np.sqrt(unseen * share * (1 - share) * samples) + 1e-9
    z = np.abs(held - expected) / sd
    assert z.max() < 5, (z.max(), held, expected)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("players", [2, 4])
def test_the_seat_cannot_tell_the_redealt_world_from_the_real_one(preset, players):
    batch = GameBatch(preset, players, 1)
    batch.reset(100 + players)
    rng = np.random.default_rng(players)
    changed = checked = 0
    for step in range(400):
        if batch.done[0]:
            batch.reset(1000 + step)
        seat = int(batch.seat[0])
        world = batch.copy()
        world.resample_hidden(0, step)
        world.check(0)
        for level in ("minimal", "knowledge"):
            assert (observation_of(world, 0, seat, level) == observation_of(batch, 0, seat, level)).all()
        a, b = batch.describe(0), world.describe(0)
        assert [len(h) for h in a["hands"]] == [len(h) for h in b["hands"]]
        assert [f for p, f in enumerate(a["foreheads"]) if p != seat] == [
            f for p, f in enumerate(b["foreheads"]) if p != seat
        ]
        changed += a["hands"] != b["hands"]
        checked += 1
        legal = np.flatnonzero(batch.legal_masks()[0])
        batch.step_game(0, int(rng.choice(legal)))
    assert checked > 300
    assert changed > checked // 3


def lacked(card: str) -> bool:
    """Whether a card was playable on G7 and is coloured: what a seat that drew there showed it lacked."""
    return not card.startswith("W") and (card.startswith("G") or card.endswith("7"))


def test_a_seat_that_drew_is_redealt_no_more_cards_it_showed_it_lacked_than_it_took_since():
    # Seat 1 draws on G7 (no green, no 7 in hand), an R9 it cannot play: of its four cards now, at most one (the
    # drawn card) is a coloured green or 7, whatever the redeal; a uniform redeal often gives it two or more.
    g = new_game("classic", [["G7", "Y4", "B9"], ["R1", "Y2", "B3"], ["R5", "Y5", "B5", "G1"]], "G5", ["R9", "R2"])
    act(g, "play G7", "draw")
    assert (g.seat, g.phase) == (2, "play") and sorted(g.hand(1)) == ["B3", "R1", "R9", "Y2"]
    uniform = voids = 0
    for seed in range(300):
        world = g.copy()
        world.resample_hidden(seed, voids=True)
        world.check()
        assert sum(map(lacked, world.hand(1))) <= 1
        assert (observation_of(world.batch, 0, 2) == observation_of(g.batch, 0, 2)).all()
        voids += any(map(lacked, world.hand(1)))
        uniform += sum(map(lacked, redealt(g, seed).hand(1))) >= 2
    assert uniform > 30 and voids > 30  # the limit bites, and the drawn card may still be one of them


def test_void_redeals_keep_every_limit_in_counters_games_which_keep_them_too():
    # `counter` plays a coloured card whenever it can, so the real deal keeps every limit: the redeals must too.
    for preset in PRESETS:
        batch = GameBatch(preset, 4, 1)
        batch.reset(7)
        counter = make_agent("counter", seed=1)
        spec = O.ObservationSpec("knowledge", 4)
        bind(counter, spec, batch.rules)
        for step in range(300):
            if batch.done[0]:
                batch.reset(step)
            seat = int(batch.seat[0])
            assert passed_limits(batch.state[0], seat) == 0, (preset, step)
            if step % 3 == 0:
                world = batch.copy()
                world.resample_hidden(0, step, voids=True)
                world.check(0)
                assert passed_limits(world.state[0], seat) == 0, (preset, step)
                assert (observation_of(world, 0, seat) == observation_of(batch, 0, seat)).all()
            obs = observation_of(batch, 0, seat)[None]
            batch.step_game(0, int(counter.act(obs, batch.legal_masks()[:1])[0]))


def passed_limits(st, viewer: int) -> int:
    """How many of `engine.resample_hidden_voids`' limits the game passes, counted from their definition."""
    passed = 0
    for h in range(len(st.took)):
        if h == viewer:
            continue
        for t in {int(t) for t in st.void_at[h, : C.NUM_COLORED_KINDS] if t != E.NO_VOID}:
            kinds = [k for k in range(C.NUM_COLORED_KINDS) if E.NO_VOID != st.void_at[h, k] >= t]
            passed += int(st.hand[h, kinds].sum()) > max(0, int(st.took[h]) - t)
    return passed
