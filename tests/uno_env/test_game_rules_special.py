"""Scripted scenarios for the special wild cards and Draw Two stacking (docs/rules.md, "The special wild cards").

Each test deals exact hands, a first card and the top of the draw pile, plays a few actions and checks the
exact outcome. The first player is seat 0 unless a test says otherwise (the dealer is the last seat).
"""

from __future__ import annotations

from collections import Counter

import pytest

from uno_env import IllegalActionError
from uno_env.testing import act, assert_turn, deal, discard_pile

ALL_PINK = ["color pink", "color blue", "color green", "color yellow"]
ALL_RED = ["color red", "color blue", "color green", "color yellow"]


def assert_hand(g, seat, cards):
    assert Counter(g.hand(seat)) == Counter(cards), f"seat {seat}: {g.hand(seat)} != {sorted(cards)}"


# ------------------------------------------------------------------------------- Wild Narwhal Rule

NARWHAL_HANDS = [["WN", "P1", "B2"], ["G1", "G2"], ["Y1", "Y2"], ["B3", "B4"]]
NARWHAL_DECK = ["B7", "G3", "Y9", "P8", "G6"]


def test_narwhal_hands_out_from_next_player_with_player_last():
    g = deal("unocorns", NARWHAL_HANDS, "P5", NARWHAL_DECK)
    pile = g.describe()["pile"]
    act(g, "play WN")
    d = g.describe()
    assert d["foreheads"] == [["P8"], ["B7"], ["G3"], ["Y9"]]
    assert d["pile"] == pile - 4
    assert_turn(g, 0, "color")
    assert g.legal_actions() == ALL_PINK
    act(g, "color green")
    d = g.describe()
    assert (d["top"], d["color"]) == ("WN", "green")
    assert_turn(g, 1, "guess")
    assert g.legal_actions() == ALL_PINK


def test_narwhal_without_player_leaves_the_player_out():
    g = deal("unocorns", NARWHAL_HANDS, "P5", NARWHAL_DECK, narwhal_includes_player=False)
    pile = g.describe()["pile"]
    act(g, "play WN")
    d = g.describe()
    assert d["foreheads"] == [[], ["B7"], ["G3"], ["Y9"]]
    assert d["pile"] == pile - 3
    act(g, "color green", "color blue")  # seat 1 guesses B7 right
    assert_turn(g, 1, "play")
    act(g, "draw")  # the card the player of the Narwhal did not take is still on top: P8, not playable
    assert_hand(g, 1, ["G1", "G2", "P8"])
    assert_turn(g, 2, "guess")


def test_narwhal_follows_reversed_direction():
    # A first-card Reverse: direction -1 and the dealer (seat 0) plays first.
    g = deal("unocorns", NARWHAL_HANDS, "PR", NARWHAL_DECK, dealer=0)
    assert_turn(g, 0, "play")
    assert g.describe()["direction"] == -1
    act(g, "play WN")
    assert g.describe()["foreheads"] == [["P8"], ["Y9"], ["G3"], ["B7"]]
    act(g, "color yellow")
    assert_turn(g, 3, "guess")


def test_narwhal_second_narwhal_adds_a_newer_forehead_card():
    hands = [["WN", "P1"], ["G1", "G2"], ["Y1", "Y2"]]
    g = deal("unocorns", hands, "P5", ["G3", "Y9", "P8"], foreheads=[[], ["B7"], []])
    act(g, "play WN")
    assert g.describe()["foreheads"] == [["P8"], ["B7", "G3"], ["Y9"]]
    act(g, "color blue", "color blue")  # the oldest (B7) first
    assert g.describe()["foreheads"] == [["P8"], ["G3"], ["Y9"]]
    assert_turn(g, 1, "guess")
    act(g, "color green")
    assert_turn(g, 1, "play")
    assert discard_pile(g)[:2] == ["G3", "B7"]


def test_narwhal_right_guess_goes_to_bottom_of_discard_then_normal_play():
    hands = [["G4", "Y1", "B9"], ["P2", "P3"], ["Y4", "Y5"]]
    g = deal("unocorns", hands, "G5", foreheads=[["B7"], [], []])
    assert_turn(g, 0, "guess")
    assert g.legal_actions() == ALL_PINK
    act(g, "color blue")
    d = g.describe()
    assert d["foreheads"] == [[], [], []]
    assert (d["top"], d["color"], d["discard"]) == ("G5", "green", 2)
    assert discard_pile(g) == ["B7", "G5"]
    assert_turn(g, 0, "play")
    assert g.legal_actions() == ["play G4", "draw"]
    act(g, "play G4")
    assert_turn(g, 1, "play")


def test_narwhal_wrong_guess_ends_turn_and_wrong_colours_are_excluded():
    hands = [["G4", "Y1"], ["G2", "P3", "Y8"]]
    g = deal("unocorns", hands, "G5", ["P9", "P6"], foreheads=[["B7"], []])
    act(g, "color green")  # wrong: the turn ends
    assert_turn(g, 1, "play")
    assert g.describe()["foreheads"] == [["B7"], []]
    assert_hand(g, 0, ["G4", "Y1"])
    act(g, "play G2")
    assert_turn(g, 0, "guess")
    assert g.legal_actions() == ["color pink", "color blue", "color yellow"]
    with pytest.raises(IllegalActionError):
        g.step("color green")
    act(g, "color yellow")  # wrong again
    assert_turn(g, 1, "play")
    act(g, "draw")  # P9, not playable on G2
    assert_turn(g, 0, "guess")
    assert g.legal_actions() == ["color pink", "color blue"]
    act(g, "color blue")
    assert_turn(g, 0, "play")
    assert discard_pile(g) == ["B7", "G5", "G2"]
    assert g.legal_actions() == ["play G4", "draw"]


def test_narwhal_wild_forehead_card_matches_any_guess():
    hands = [["G4", "Y1"], ["P2", "P3"]]
    g = deal("unocorns", hands, "G5", foreheads=[["W"], []])
    act(g, "color yellow")
    d = g.describe()
    assert d["foreheads"] == [[], []]
    assert (d["top"], d["color"]) == ("G5", "green")
    assert discard_pile(g) == ["W", "G5"]
    assert_turn(g, 0, "play")


def test_narwhal_two_forehead_cards_guessed_oldest_first_in_one_turn():
    hands = [["G4", "Y1"], ["P2", "P3"]]
    g = deal("unocorns", hands, "G5", foreheads=[["B7", "Y2"], []])
    act(g, "color blue")
    assert g.describe()["foreheads"] == [["Y2"], []]
    assert_turn(g, 0, "guess")
    assert g.legal_actions() == ALL_PINK
    act(g, "color yellow")
    assert g.describe()["foreheads"] == [[], []]
    assert_turn(g, 0, "play")
    assert discard_pile(g) == ["Y2", "B7", "G5"]


def test_narwhal_guess_targets_oldest_card_and_memory_is_per_card():
    hands = [["G4", "Y1"], ["G2", "P3"]]
    g = deal("unocorns", hands, "G5", foreheads=[["B7", "Y2"], []])
    act(g, "color yellow")  # right for Y2, but B7 is guessed first: wrong
    assert_turn(g, 1, "play")
    assert g.describe()["foreheads"] == [["B7", "Y2"], []]
    act(g, "play G2")
    assert g.legal_actions() == ["color pink", "color blue", "color green"]
    act(g, "color blue")
    assert g.legal_actions() == ALL_PINK  # yellow was wrong for B7, not for Y2
    act(g, "color yellow")
    assert_turn(g, 0, "play")


def test_narwhal_empty_hand_with_forehead_is_not_out_and_last_right_guess_wins():
    hands = [[], ["P3", "B+2"], ["Y9"]]
    foreheads = [["B7", "Y2"], ["W"], ["GS"]]
    g = deal("unocorns", hands, "G6", foreheads=foreheads)
    assert not g.done
    assert_turn(g, 0, "guess")
    act(g, "color blue")
    assert not g.done
    assert_turn(g, 0, "guess")
    act(g, "color yellow")
    assert g.done and g.phase == "over"
    assert g.winners == [0]
    assert g.scores == [3 + 20 + 50 + 9 + 20, 0, 0]


def test_narwhal_forehead_cards_score_like_hand_cards():
    hands = [["G4"], ["P3", "B+2"], ["Y9"]]
    foreheads = [[], ["W"], ["GS"]]
    g = deal("unocorns", hands, "G6", foreheads=foreheads)
    act(g, "play G4")
    assert g.done and g.winners == [0]
    assert g.scores == [3 + 20 + 50 + 9 + 20, 0, 0]


def test_narwhal_wrong_guess_with_empty_hand_keeps_player_in():
    hands = [[], ["G2", "P3"], ["Y9", "G8"]]
    g = deal("unocorns", hands, "G6", foreheads=[["B7"], [], []])
    act(g, "color green")
    assert not g.done and g.winners == []
    assert_turn(g, 1, "play")


def test_narwhal_skipped_player_does_not_guess():
    hands = [["GS", "G1"], ["Y1", "Y2"], ["G2", "G3"]]
    g = deal("unocorns", hands, "G5", foreheads=[[], ["B7"], []])
    act(g, "play GS")
    assert_turn(g, 2, "play")
    assert g.describe()["foreheads"] == [[], ["B7"], []]
    assert_hand(g, 1, ["Y1", "Y2"])


def test_narwhal_draw_two_takes_turn_including_guess():
    hands = [["G+2", "G1"], ["Y1", "Y2"], ["G2", "G3"]]
    g = deal("unocorns", hands, "G5", ["P9", "P6"], foreheads=[[], ["B7"], []])
    act(g, "play G+2")
    assert_turn(g, 2, "play")
    assert g.describe()["foreheads"] == [[], ["B7"], []]
    assert_hand(g, 1, ["Y1", "Y2", "P9", "P6"])


W4_HANDS_INNOCENT = [["W+4", "Y1"], ["Y2", "Y3"], ["G2", "G3"]]
W4_DECK = ["P9", "P6", "P7", "P8", "B9", "B8"]


def test_narwhal_wild_draw_four_accept_comes_before_guess():
    g = deal("unocorns", W4_HANDS_INNOCENT, "G5", W4_DECK, foreheads=[[], ["B7"], []])
    act(g, "play W+4", "color blue")
    assert_turn(g, 1, "challenge")
    assert g.legal_actions() == ["challenge", "accept"]
    act(g, "accept")
    assert_turn(g, 2, "play")
    assert g.describe()["foreheads"] == [[], ["B7"], []]
    assert_hand(g, 1, ["Y2", "Y3", "P9", "P6", "P7", "P8"])


def test_narwhal_wild_draw_four_lost_challenge_ends_turn_without_guess():
    g = deal("unocorns", W4_HANDS_INNOCENT, "G5", W4_DECK, foreheads=[[], ["B7"], []])
    act(g, "play W+4", "color blue", "challenge")
    assert_turn(g, 2, "play")
    assert g.describe()["foreheads"] == [[], ["B7"], []]
    assert_hand(g, 1, ["Y2", "Y3"] + W4_DECK)


def test_narwhal_wild_draw_four_won_challenge_then_guess():
    hands = [["W+4", "G1", "Y1"], ["Y2", "Y3"], ["G2", "G3"]]  # seat 0 holds green: guilty
    g = deal("unocorns", hands, "G5", W4_DECK, foreheads=[[], ["B7"], []])
    act(g, "play W+4", "color blue", "challenge")
    assert_hand(g, 0, ["G1", "Y1", "P9", "P6", "P7", "P8"])
    assert_turn(g, 1, "guess")
    act(g, "color blue")
    assert_turn(g, 1, "play")


STACK_FH_HANDS = [["G+2", "G1"], ["Y+2", "Y1"], ["B+2", "B1"]]
STACK_FH_DECK = ["Y9", "Y8", "Y7", "Y6"]


def test_narwhal_facing_stack_wrong_guess_takes_whole_sum():
    g = deal("unocorns", STACK_FH_HANDS, "G5", STACK_FH_DECK, foreheads=[[], [], ["P4"]], stack_draw_two=True)
    act(g, "play G+2")
    assert_turn(g, 1, "play")
    assert g.legal_actions() == ["play Y+2", "draw"]
    act(g, "play Y+2")
    assert_turn(g, 2, "guess")
    assert g.describe()["pending_draw"] == 4
    act(g, "color blue")  # wrong
    assert_turn(g, 0, "play")
    d = g.describe()
    assert d["pending_draw"] == 0
    assert d["foreheads"] == [[], [], ["P4"]]
    assert_hand(g, 2, ["B+2", "B1"] + STACK_FH_DECK)


def test_narwhal_facing_stack_right_guess_then_may_stack():
    g = deal("unocorns", STACK_FH_HANDS, "G5", STACK_FH_DECK, foreheads=[[], [], ["P4"]], stack_draw_two=True)
    act(g, "play G+2", "play Y+2", "color pink")
    assert_turn(g, 2, "play")
    assert g.describe()["pending_draw"] == 4
    assert g.legal_actions() == ["play B+2", "draw"]
    act(g, "play B+2")
    assert_turn(g, 0, "play")
    assert g.describe()["pending_draw"] == 6
    assert g.legal_actions() == ["draw"]


# --------------------------------------------------------------------------- Creeperific "Urrrhhh"


def received(before, g, seat):
    """The cards `seat` holds now that it did not hold in `before` (a list of codes)."""
    return Counter(g.hand(seat)) - Counter(before)


def test_urrrhhh_gives_colour_round_from_left():
    blue = ["B1", "B5", "BS", "B+2", "B9"]
    hands = [["WU", "G3", "P7"] + blue, ["Y1"], ["Y2"], ["Y3"]]
    g = deal("monster_high", hands, "P5")
    act(g, "play WU")
    assert_turn(g, 0, "give")
    assert g.legal_actions() == ["color pink", "color blue", "color green"]
    act(g, "color blue")
    assert_turn(g, 0, "color")
    assert_hand(g, 0, ["G3", "P7"])
    gifts = [received(hands[s], g, s) for s in (1, 2, 3)]
    assert [sum(c.values()) for c in gifts] == [2, 2, 1]
    assert gifts[0] + gifts[1] + gifts[2] == Counter(blue)
    for s in (1, 2, 3):
        assert Counter(hands[s]) <= Counter(g.hand(s))
    act(g, "color yellow")
    assert_turn(g, 1, "play")
    assert (g.describe()["top"], g.describe()["color"]) == ("WU", "yellow")


def test_urrrhhh_order_is_seeded():
    hands = [["WU", "B1", "B5", "BS", "B+2", "B9"], ["Y1"], ["Y2"], ["Y3"]]
    outcomes = []
    for _ in range(2):
        g = deal("monster_high", hands, "P5", seed=7)
        act(g, "play WU", "color blue")
        outcomes.append(g.describe())
    assert outcomes[0] == outcomes[1]


def test_urrrhhh_left_is_seat_plus_one_when_direction_reversed():
    green = ["G1", "G2", "G3", "G4"]
    hands = [["WU", "B1"] + green, ["Y1"], ["Y2"], ["Y3"]]
    g = deal("monster_high", hands, "PR", dealer=0)  # first-card Reverse: seat 0 first, direction -1
    assert_turn(g, 0, "play")
    assert g.describe()["direction"] == -1
    act(g, "play WU", "color green")
    gifts = [received(hands[s], g, s) for s in (1, 2, 3)]
    assert [sum(c.values()) for c in gifts] == [2, 1, 1]
    assert gifts[0] + gifts[1] + gifts[2] == Counter(green)
    assert_hand(g, 0, ["B1"])
    act(g, "color blue")
    assert_turn(g, 3, "play")


def test_urrrhhh_giving_away_last_cards_goes_out_without_colour_choice():
    hands = [["WU", "B1", "B5"], ["Y1", "P2"], ["Y3"]]
    g = deal("monster_high", hands, "P5")
    act(g, "play WU", "color blue")
    assert g.done and g.phase == "over"
    assert g.winners == [0]
    assert g.hand(0) == []
    assert g.scores == [1 + 5 + 1 + 2 + 3, 0, 0]


def test_urrrhhh_without_coloured_card_goes_straight_to_colour():
    hands = [["WU", "W", "W+4"], ["Y1"], ["Y2"]]
    g = deal("monster_high", hands, "P5")
    act(g, "play WU")
    assert_turn(g, 0, "color")
    assert g.legal_actions() == ALL_PINK
    act(g, "color green")
    assert_hand(g, 0, ["W", "W+4"])
    assert_hand(g, 1, ["Y1"])
    assert_turn(g, 1, "play")


# ------------------------------------------------------------------------------------ Wild Emoji


def test_emoji_not_playable_without_number_card():
    g = deal("emoji", [["WE", "RS", "W", "Y+2"], ["B1", "B2"]], "R5")
    assert g.legal_actions() == ["play RS", "play W", "draw"]
    with pytest.raises(IllegalActionError):
        g.step("play WE")


def test_emoji_plays_with_a_number_card_which_sets_the_colour():
    g = deal("emoji", [["WE", "B3", "G7", "GS", "W", "Y+2"], ["B1", "B2"]], "R5")
    assert g.legal_actions() == ["play W", "play WE", "draw"]
    act(g, "play WE")
    assert_turn(g, 0, "emoji")
    assert g.legal_actions() == ["play B3", "play G7"]
    act(g, "play G7")
    d = g.describe()
    assert (d["top"], d["color"], d["discard"]) == ("G7", "green", 3)
    assert discard_pile(g) == ["R5", "WE", "G7"]
    assert_hand(g, 0, ["B3", "GS", "W", "Y+2"])
    assert_turn(g, 1, "play")


EMOJI_DECK = ["R1", "R2", "R3", "R4"]


def test_emoji_face_fail_rate_zero_nobody_draws():
    hands = [["WE", "G7", "G1", "G2"], ["G3", "G4", "G5"]]
    g = deal("emoji", hands, "R5", EMOJI_DECK, emoji_face_fail_rate=0.0)
    pile = g.describe()["pile"]
    act(g, "play WE", "play G7", "play G3", "play G1")
    assert_turn(g, 1, "play")
    assert_hand(g, 1, ["G4", "G5"])
    assert g.describe()["pile"] == pile


def test_emoji_face_fail_rate_one_draws_four_at_following_turn():
    hands = [["WE", "G7", "G1", "G2", "Y5"], ["G3", "G4", "G5"], ["G6", "G8", "G9"]]
    g = deal("emoji", hands, "R5", EMOJI_DECK, emoji_face_fail_rate=1.0)
    act(g, "play WE", "play G7")
    assert_turn(g, 1, "play")
    assert_hand(g, 1, ["G3", "G4", "G5"])  # not on the immediate turn
    act(g, "play G3", "play G6", "play G1")
    assert_turn(g, 1, "play")
    assert_hand(g, 1, ["G4", "G5"] + EMOJI_DECK)
    act(g, "play G4", "play G8", "play G2")
    assert_turn(g, 1, "play")
    assert_hand(g, 1, ["G5"] + EMOJI_DECK)  # only once


def test_emoji_face_penalty_applies_when_following_turn_is_skipped():
    hands = [["WE", "G7", "GS", "G2", "Y5"], ["G3", "G4", "G5"], ["G6", "G8", "G9"]]
    g = deal("emoji", hands, "R5", EMOJI_DECK, emoji_face_fail_rate=1.0)
    act(g, "play WE", "play G7", "play G3", "play G6")
    assert_hand(g, 1, ["G4", "G5"])
    act(g, "play GS")
    assert_turn(g, 2, "play")
    assert_hand(g, 1, ["G4", "G5"] + EMOJI_DECK)
    act(g, "play G8", "play G2")
    assert_turn(g, 1, "play")
    assert_hand(g, 1, ["G4", "G5"] + EMOJI_DECK)


# ------------------------------------------------------------------------------ Wild Customizable


@pytest.mark.parametrize("preset", ["emoji", "swap"])
def test_customizable_plays_as_plain_wild(preset):
    g = deal(preset, [["WC", "B1"], ["Y1", "Y2"]], "R5")
    assert g.legal_actions() == ["play WC", "draw"]
    act(g, "play WC")
    assert_turn(g, 0, "color")
    assert g.legal_actions() == ALL_RED
    act(g, "color yellow")
    d = g.describe()
    assert (d["top"], d["color"]) == ("WC", "yellow")
    assert d["hands"] == [["B1"], ["Y1", "Y2"]]
    assert_turn(g, 1, "play")


# ------------------------------------------------------------------------------------- Wild Swap

SWAP_HANDS = [["WS", "R1", "R2"], ["B1"], ["G1", "G2", "G3", "G4", "WN"], ["Y1", "Y2"]]


def test_swap_exchanges_whole_hands_then_colour():
    g = deal("swap", SWAP_HANDS, "R5", card_counts={"WN": 4})
    act(g, "play WS")
    assert_turn(g, 0, "swap")
    assert g.legal_actions() == ["pass", "swap +1", "swap +2", "swap +3"]
    act(g, "swap +2")
    assert_hand(g, 0, SWAP_HANDS[2])
    assert_hand(g, 2, ["R1", "R2"])
    assert_hand(g, 1, SWAP_HANDS[1])
    assert_hand(g, 3, SWAP_HANDS[3])
    assert_turn(g, 0, "color")
    act(g, "color green")
    assert_turn(g, 1, "play")
    assert (g.describe()["top"], g.describe()["color"]) == ("WS", "green")


def test_swap_pass_keeps_hands():
    g = deal("swap", SWAP_HANDS, "R5", card_counts={"WN": 4})
    act(g, "play WS", "pass")
    assert_turn(g, 0, "color")
    assert_hand(g, 0, ["R1", "R2"])
    assert_hand(g, 2, SWAP_HANDS[2])


def test_swap_leaves_forehead_cards_in_place():
    foreheads = [[], ["Y4"], ["B7"], []]
    g = deal("swap", SWAP_HANDS, "R5", card_counts={"WN": 4}, foreheads=foreheads)
    act(g, "play WS", "swap +2")
    assert g.describe()["foreheads"] == foreheads
    assert_hand(g, 0, SWAP_HANDS[2])
    assert_hand(g, 2, ["R1", "R2"])
    act(g, "color blue")
    assert_turn(g, 1, "guess")


# ---------------------------------------------------------------------------- Draw Two stacking

STACK_HANDS = [["G+2", "G1"], ["R+2", "B+2", "G4", "W", "W+4"], ["B5", "W+4", "Y1"]]
STACK_DECK = ["Y9", "Y8", "Y7", "Y6"]


def test_stack_passes_sum_and_drawer_takes_all():
    g = deal("classic", STACK_HANDS, "G5", STACK_DECK, stack_draw_two=True)
    act(g, "play G+2")
    assert_turn(g, 1, "play")
    assert g.describe()["pending_draw"] == 2
    assert g.legal_actions() == ["play R+2", "play B+2", "draw"]
    for illegal in ("play G4", "play W", "play W+4"):
        with pytest.raises(IllegalActionError):
            g.step(illegal)
    act(g, "play B+2")
    assert_turn(g, 2, "play")
    assert g.describe()["pending_draw"] == 4
    assert g.legal_actions() == ["draw"]  # no matching colour, no Wild Draw Four onto a stack
    for illegal in ("play B5", "play W+4"):
        with pytest.raises(IllegalActionError):
            g.step(illegal)
    act(g, "draw")
    assert_hand(g, 2, ["B5", "W+4", "Y1"] + STACK_DECK)
    d = g.describe()
    assert (d["pending_draw"], d["top"], d["color"]) == (0, "B+2", "blue")
    assert_turn(g, 0, "play")


def test_stack_draw_instead_of_stacking_takes_sum_and_loses_turn():
    g = deal("classic", STACK_HANDS, "G5", STACK_DECK, stack_draw_two=True)
    act(g, "play G+2", "draw")
    assert_hand(g, 1, STACK_HANDS[1] + ["Y9", "Y8"])
    assert g.describe()["pending_draw"] == 0
    assert_turn(g, 2, "play")


def test_stack_is_on_by_default_in_swap_preset():
    hands = [["G+2", "G1"], ["Y+2", "G4"], ["B5", "Y1"]]
    g = deal("swap", hands, "G5", STACK_DECK)
    act(g, "play G+2")
    assert_turn(g, 1, "play")
    assert g.describe()["pending_draw"] == 2
    assert g.legal_actions() == ["play Y+2", "draw"]


def test_first_card_draw_two_cannot_be_stacked_on():
    hands = [["R+2", "G1"], ["B+2", "G4", "B5"], ["Y1", "Y2"]]
    g = deal("classic", hands, "G+2", ["Y9", "Y8"], stack_draw_two=True)
    assert_hand(g, 0, ["R+2", "G1", "Y9", "Y8"])
    assert_turn(g, 1, "play")
    assert g.describe()["pending_draw"] == 0
    assert g.legal_actions() == ["play B+2", "play G4", "draw"]


def test_without_stacking_next_player_draws_two_and_is_skipped():
    hands = [["G+2", "G1"], ["R+2", "B5"], ["Y1", "G9"]]
    g = deal("classic", hands, "G5", ["Y9", "Y8"])
    act(g, "play G+2")
    assert_hand(g, 1, ["R+2", "B5", "Y9", "Y8"])
    assert g.describe()["pending_draw"] == 0
    assert_turn(g, 2, "play")
