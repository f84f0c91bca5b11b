"""Engine pieces below the game flow: the dealer draw, the action layout, card codes."""

import numpy as np
import pytest

from uno_env import NUM_ACTIONS, Game, GameBatch, action_id, action_names, engine, parse_card
from uno_env.cards import PINK_COLORS, RED_COLORS


def _dealer_from(cards, num_players):
    """The dealer chosen when the players draw `cards` in this order (top of the pile first)."""
    batch = GameBatch("classic", num_players, 1)
    st = batch.state[0]
    kinds = [parse_card(code, RED_COLORS) for code in cards]
    st.draw_len = len(kinds)
    st.draw_pile[: len(kinds)] = kinds[::-1]
    return engine.dealer_from_draws(st, batch.config[0])


def test_highest_number_deals():
    assert _dealer_from(["R3", "B8", "G5"], 3) == 1


def test_action_and_wild_cards_count_zero():
    assert _dealer_from(["RS", "W+4", "G1", "B+2"], 4) == 2


def test_tied_players_draw_again_among_themselves():
    # seats 0 and 2 tie on 9; they draw again (seat 0 then seat 2): 4 against 6
    assert _dealer_from(["R9", "B2", "G9", "Y4", "R6"], 3) == 2


def test_tie_among_zeros_draws_again():
    # everyone draws an action or wild card (all zero): all draw again; seat 1 wins with 1
    assert _dealer_from(["RS", "W", "GR", "Y0", "B1", "R0"], 3) == 1


def test_random_deals_seat_the_first_player_left_of_a_varying_dealer():
    dealers = set()
    for seed in range(60):
        d = Game("classic", 4, seed=seed).describe()
        dealer, top = d["dealer"], d["top"]
        dealers.add(dealer)
        first = (dealer + 1) % 4
        sizes = [len(h) for h in d["hands"]]
        if top[1:].isdigit():
            assert d["seat"] == first and sizes == [7, 7, 7, 7]
        elif top.endswith("+2"):
            assert d["seat"] == (dealer + 2) % 4 and sizes[first] == 9
        elif top.endswith("S"):
            assert d["seat"] == (dealer + 2) % 4
        elif top.endswith("R"):
            assert d["seat"] == dealer and d["direction"] == -1
        else:
            assert d["seat"] == first and d["phase"] == "color"
    assert dealers == {0, 1, 2, 3}


def test_action_layout_is_the_documented_table():
    names = action_names(RED_COLORS)
    assert NUM_ACTIONS == 77 and len(names) == 77
    assert names[0] == "play R0" and names[12] == "play R+2" and names[51] == "play Y+2"
    assert names[52:59] == ["play W", "play W+4", "play WN", "play WU", "play WE", "play WC", "play WS"]
    assert names[59:61] == ["draw", "pass"]
    assert names[61:65] == ["color red", "color blue", "color green", "color yellow"]
    assert names[65:67] == ["challenge", "accept"]
    assert names[67] == "swap +1" and names[75] == "swap +9" and names[76] == "uno"
    assert action_names(PINK_COLORS)[61] == "color pink" and action_names(PINK_COLORS)[10] == "play PS"
    for i, name in enumerate(names):
        assert action_id(name, RED_COLORS) == i


def test_action_id_forgives_case_and_refuses_unknown_names():
    assert action_id("Play r5", RED_COLORS) == 5
    assert action_id("COLOR  Green", RED_COLORS) == 63
    with pytest.raises(ValueError, match="swap \\+k"):
        action_id("swap +10", RED_COLORS)
    with pytest.raises(ValueError, match="R/B/G/Y"):
        action_id("play P5", RED_COLORS)


def test_action_ids_out_of_range_are_refused():
    game = Game("classic", 2, seed=1)
    with pytest.raises(ValueError, match="from 0 to 76"):
        game.step(77)


def test_masks_are_zero_for_finished_games_and_stepping_them_is_refused():
    batch = GameBatch("classic", 2, 2, max_steps=1)
    batch.reset(seeds=3)
    actions = np.array([np.flatnonzero(m)[0] for m in batch.legal_masks()])
    batch.step(actions)
    assert batch.done.all() and batch.truncated.all()
    assert batch.legal_masks().sum() == 0
    with pytest.raises(ValueError, match="episode is over"):
        batch.step(actions)


@pytest.mark.parametrize(
    "corrupt, message",
    [
        (lambda st: st.hand.__setitem__((0, 5), st.hand[0, 5] + 1), "do not match the deck"),
        (lambda st: st.hand.__setitem__((1, 7), -1), "negative count"),
        (lambda st: setattr(st, "seat", 4), "seat outside"),
        (lambda st: setattr(st, "phase", 12), "unknown phase"),
        (lambda st: setattr(st, "color", -1), "no active colour"),
        (lambda st: st.known.__setitem__((0, 1, 30), 1), "knows"),
    ],
)
def test_validator_catches_a_broken_state(corrupt, message):
    game = Game("classic", 3, deal={"dealer": 2, "hands": [["R1", "B2"], ["G3"], ["Y4"]], "top": "R5"})
    game.check()
    corrupt(game.batch.state[0])
    with pytest.raises(AssertionError, match=message):
        game.check()


def test_copies_are_independent_games():
    """`Game.copy()` / `GameBatch.copy()`: a search can try actions on a copy and leave the game as it was."""
    game = Game("unocorns", 3, seed=4, max_steps=300)  # the trial below ends by then, won or cut short
    for _ in range(5):
        game.step(game.legal_action_ids()[0])
    before = game.describe()
    trial = game.copy()
    assert trial.describe() == before
    while not trial.done:
        trial.step(trial.legal_action_ids()[-1])
    trial.check()
    assert game.describe() == before and not game.done
    game.check()
    batch = GameBatch("classic", 2, 8)
    batch.reset(3)
    copied = batch.copy()
    copied.play_random(50)
    assert [batch.describe(g) for g in range(8)] != [copied.describe(g) for g in range(8)]
    fresh = GameBatch("classic", 2, 8)
    fresh.reset(3)
    assert [batch.describe(g) for g in range(8)] == [fresh.describe(g) for g in range(8)]
    assert (batch.episode_seeds == fresh.episode_seeds).all() and (copied.episode_seeds != fresh.episode_seeds).any()

