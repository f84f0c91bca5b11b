"""The PettingZoo AEC env (`uno_env.aec`): scenarios through the AEC API, rewards, errors, wrappers, the
registry, pickling and rendering.

Scenarios deal exact hands with `reset(options={"deal": ...})` and step by action ids taken from action
names. Unless a test says otherwise the dealer is the last seat, so `player_0` decides first.
"""

from __future__ import annotations

import math
import pickle
import re
from collections import Counter

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import uno_env
from uno_env import IllegalActionError, uno_v0
from uno_env.testing import act, assert_turn, deal_env, discard_pile

ALL_PINK = ["color pink", "color blue", "color green", "color yellow"]
ALL_RED = ["color red", "color blue", "color green", "color yellow"]
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


# ------------------------------------------------------------------------------------------ helpers


def hands(env):
    return [Counter(h) for h in env.unwrapped.describe()["hands"]]


def drain(env, game_over=True):
    """Step every terminated/truncated agent out with None; returns what `last()` gave each agent.
    When the game itself is over (not ended by a wrapper), every mask is empty."""
    seen = {}
    while env.agents:
        agent = env.agent_selection
        obs, reward, termination, truncation, info = env.last()
        assert termination or truncation
        assert info == {}
        if game_over:
            assert not obs["action_mask"].any()
        seen[agent] = (reward, termination, truncation)
        env.step(None)
    return seen


def play_random(env, rng, limit=5000):
    """Legal random actions until the episode ends; returns the rewards of every step (dicts)."""
    history = []
    for _ in range(limit):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return history
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        history.append(dict(env.rewards))
    raise AssertionError("the episode did not end")


# ------------------------------------------------------------------------ multi-decision turns


def test_wild_then_colour_is_one_turn_of_the_same_agent():
    env = deal_env("classic", [["W", "R1", "B2"], ["G1", "G2"], ["Y1", "Y2"]], "R5")
    assert_turn(env, "player_0", "play", ["play R1", "play W", "draw"])
    act(env, "play W")
    assert_turn(env, "player_0", "color", ALL_RED)
    assert env.unwrapped.describe()["top"] == "W"
    act(env, "color green")
    assert_turn(env, "player_1", "play", ["play G1", "play G2", "draw"])
    d = env.unwrapped.describe()
    assert (d["top"], d["color"], d["hands"][0]) == ("W", "green", ["R1", "B2"])


def test_drawn_playable_card_keeps_the_same_agent():
    env = deal_env("classic", [["B2", "G3"], ["Y1", "Y2"]], "R5", deck=["R9", "B8"])
    assert_turn(env, "player_0", "play", ["draw"])
    act(env, "draw")
    assert_turn(env, "player_0", "drawn", ["play R9", "pass"])
    act(env, "pass")
    assert_turn(env, "player_1", "play", ["draw"])
    assert env.unwrapped.describe()["hands"][0] == ["R9", "B2", "G3"]


# ------------------------------------------------------------------------------ Wild Narwhal Rule

NARWHAL_HANDS = [["WN", "P1", "B2"], ["G1", "G2"], ["Y1", "Y2"], ["B3", "B4"]]


def test_narwhal_right_guess_keeps_the_turn_and_puts_the_card_under_the_discard_pile():
    env = deal_env("unocorns", NARWHAL_HANDS, "P5", deck=["B7", "G3", "Y9", "P8"])
    assert_turn(env, "player_0", "play", ["play P1", "play WN", "draw"])
    act(env, "play WN")
    assert_turn(env, "player_0", "color", ALL_PINK)
    assert env.unwrapped.describe()["foreheads"] == [["P8"], ["B7"], ["G3"], ["Y9"]]
    act(env, "color green")
    assert_turn(env, "player_1", "guess", ALL_PINK)
    assert discard_pile(env) == ["P5", "WN"]
    act(env, "color blue")  # B7: right
    assert_turn(env, "player_1", "play", ["play G1", "play G2", "draw"])
    d = env.unwrapped.describe()
    assert d["foreheads"] == [["P8"], [], ["G3"], ["Y9"]]
    assert (d["top"], d["color"], d["discard"]) == ("WN", "green", 3)
    assert discard_pile(env) == ["B7", "P5", "WN"]
    assert d["hands"][1] == ["G1", "G2"]
    act(env, "play G1")
    assert_turn(env, "player_2", "guess", ALL_PINK)


def test_narwhal_wrong_guesses_end_the_turn_and_are_left_out_of_the_mask():
    env = deal_env("unocorns", [["WN", "P1", "B2"], ["G1", "G2", "G3"]], "P5", deck=["B7", "P8", "Y3"])
    act(env, "play WN", "color green")
    assert env.unwrapped.describe()["foreheads"] == [["P8"], ["B7"]]
    assert_turn(env, "player_1", "guess", ALL_PINK)
    act(env, "color pink")  # B7: wrong, the turn ends
    assert_turn(env, "player_0", "guess", ALL_PINK)
    assert env.unwrapped.describe()["hands"][1] == ["G1", "G2", "G3"]
    act(env, "color blue")  # P8: wrong
    assert_turn(env, "player_1", "guess", ["color blue", "color green", "color yellow"])
    act(env, "color green")  # wrong again
    assert_turn(env, "player_0", "guess", ["color pink", "color green", "color yellow"])
    act(env, "color pink")  # right
    assert_turn(env, "player_0", "play", ["draw"])
    act(env, "draw")  # Y3 is not playable on green: the turn ends
    d = env.unwrapped.describe()
    assert d["foreheads"] == [[], ["B7"]]
    assert d["hands"][0] == ["P1", "B2", "Y3"]
    assert_turn(env, "player_1", "guess", ["color blue", "color yellow"])
    act(env, "color blue")
    assert_turn(env, "player_1", "play", ["play G1", "play G2", "play G3", "draw"])


def test_wild_forehead_card_is_matched_by_any_guess():
    env = deal_env("unocorns", [["P1", "P2"], ["G4", "G5"]], "P5", foreheads=[[], ["W"]])
    assert_turn(env, "player_0", "play", ["play P1", "play P2", "draw"])
    act(env, "play P1")
    assert_turn(env, "player_1", "guess", ALL_PINK)
    act(env, "color yellow")
    assert_turn(env, "player_1", "play", ["draw"])
    d = env.unwrapped.describe()
    assert (d["foreheads"], d["top"], d["color"]) == ([[], []], "P1", "pink")
    assert discard_pile(env) == ["W", "P5", "P1"]


def test_dealt_foreheads_are_guessed_oldest_first_in_one_turn_and_the_last_right_guess_wins():
    env = deal_env(
        "unocorns",
        [["P1", "P2", "Y3"], [], ["Y1", "Y2"]],
        "P5",
        foreheads=[[], ["B7", "W"], []],
        wrapped=True,
    )
    act(env, "play P1")
    assert_turn(env, "player_1", "guess", ALL_PINK)
    act(env, "color green")  # B7: wrong
    assert_turn(env, "player_2", "play", ["play Y1", "draw"])
    assert env.unwrapped.describe()["foreheads"] == [[], ["B7", "W"], []]
    act(env, "play Y1")
    assert_turn(env, "player_0", "play", ["play Y3", "draw"])
    act(env, "play Y3")
    assert_turn(env, "player_1", "guess", ["color pink", "color blue", "color yellow"])
    act(env, "color blue")  # B7: right; the W is next, in the same turn
    assert_turn(env, "player_1", "guess", ALL_PINK)
    assert env.unwrapped.describe()["foreheads"] == [[], ["W"], []]
    assert all(r == 0 for r in env.rewards.values())
    act(env, "color pink")  # W: right; hand and forehead are empty, the round is won
    d = env.unwrapped.describe()
    assert (d["done"], d["winners"], d["phase"]) == (True, [1], "over")
    assert d["scores"] == [0, 2 + 2, 0]  # P2 and Y2
    assert env.rewards == {"player_0": -0.5, "player_1": 1.0, "player_2": -0.5}
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert drain(env) == {
        "player_1": (1.0, True, False),
        "player_0": (-0.5, True, False),
        "player_2": (-0.5, True, False),
    }


def test_second_narwhal_adds_a_forehead_card_guessed_after_the_older_one():
    env = deal_env("unocorns", [["WN", "WN", "P1"], ["G1", "G2", "G3"]], "P5", deck=["B7", "P8", "Y2", "G9"])
    act(env, "play WN", "color yellow")
    act(env, "color pink")  # player_1, B7: wrong
    assert_turn(env, "player_0", "guess", ALL_PINK)
    act(env, "color pink")  # player_0, P8: right
    assert_turn(env, "player_0", "play", ["play WN", "draw"])
    act(env, "play WN")
    assert env.unwrapped.describe()["foreheads"] == [["G9"], ["B7", "Y2"]]
    act(env, "color blue")
    assert_turn(env, "player_1", "guess", ["color blue", "color green", "color yellow"])
    act(env, "color blue")  # B7: right
    assert_turn(env, "player_1", "guess", ALL_PINK)
    act(env, "color yellow")  # Y2: right
    assert_turn(env, "player_1", "play", ["draw"])
    assert env.unwrapped.describe()["foreheads"] == [["G9"], []]
    assert discard_pile(env) == ["Y2", "B7", "P8", "P5", "WN", "WN"]


def test_narwhal_cards_go_along_the_direction_of_play():
    # Dealer 0 turns a Reverse: the direction is -1 and the dealer plays first.
    env = deal_env("unocorns", [["WN", "P1"], ["G1"], ["Y1"]], "PR", dealer=0, deck=["B7", "G3", "Y9"])
    act(env, "play WN")
    assert env.unwrapped.describe()["foreheads"] == [["Y9"], ["G3"], ["B7"]]
    act(env, "color blue")
    assert_turn(env, "player_2", "guess", ALL_PINK)


def test_narwhal_without_the_player():
    env = deal_env(
        "unocorns", [["WN", "P1"], ["G1"], ["Y1"]], "P5", deck=["B7", "G3", "Y9"], narwhal_includes_player=False
    )
    act(env, "play WN")
    assert env.unwrapped.describe()["foreheads"] == [[], ["B7"], ["G3"]]


def test_a_skipped_player_does_not_guess():
    env = deal_env("unocorns", [["PS", "P1"], ["G1"], ["Y1"]], "P5", foreheads=[[], ["B7"], []])
    act(env, "play PS")
    assert_turn(env, "player_2", "play", ["draw"])
    assert env.unwrapped.describe()["foreheads"] == [[], ["B7"], []]


@pytest.mark.parametrize("right", [True, False])
def test_facing_a_draw_two_stack_the_guess_comes_first(right):
    env = deal_env(
        "unocorns",
        [["B+2", "P1"], ["G+2", "G1"], ["Y1"]],
        "B5",
        foreheads=[[], ["P7"], []],
        deck=["Y5", "Y6"],
        stack_draw_two=True,
    )
    act(env, "play B+2")
    assert_turn(env, "player_1", "guess", ALL_PINK)
    assert env.unwrapped.describe()["pending_draw"] == 2
    if right:
        act(env, "color pink")
        assert_turn(env, "player_1", "play", ["play G+2", "draw"])
        act(env, "draw")  # takes the whole stack and ends the turn
    else:
        act(env, "color green")  # wrong: the turn ends and the stack is taken
    assert_turn(env, "player_2", "play", ["draw"])
    d = env.unwrapped.describe()
    assert Counter(d["hands"][1]) == Counter(["G+2", "G1", "Y5", "Y6"])
    assert d["pending_draw"] == 0
    assert d["foreheads"][1] == ([] if right else ["P7"])


def test_accepting_a_wild_draw_four_comes_before_the_guess_and_ends_the_turn():
    env = deal_env("unocorns", [["W+4", "B1"], ["G1"], ["Y1"]], "P5", foreheads=[[], ["B7"], []])
    act(env, "play W+4", "color blue")
    assert_turn(env, "player_1", "challenge", ["challenge", "accept"])
    act(env, "accept")
    assert_turn(env, "player_2", "play", ["draw"])
    d = env.unwrapped.describe()
    assert len(d["hands"][1]) == 5 and d["foreheads"][1] == ["B7"]


# ---------------------------------------------------------------------------- Creeperific "Urrrhhh"


def test_urrrhhh_gives_the_colour_away_to_the_left_whatever_the_direction():
    hands0 = [["WU", "B1", "B2", "B3", "G5", "Y7"], ["G1", "G2"], ["Y1", "Y2"]]
    # The dealer is seat 0; a first Reverse flips the direction and the dealer plays first.
    env = deal_env("monster_high", hands0, "PR", dealer=0)
    assert env.unwrapped.describe()["direction"] == -1
    assert_turn(env, "player_0", "play", ["play WU", "draw"])
    before = hands(env)
    act(env, "play WU")
    assert_turn(env, "player_0", "give", ["color blue", "color green", "color yellow"])
    act(env, "color blue")
    assert_turn(env, "player_0", "color", ALL_PINK)
    after = hands(env)
    assert after[0] == Counter(["G5", "Y7"])
    got1, got2 = after[1] - before[1], after[2] - before[2]
    assert (sum(got1.values()), sum(got2.values())) == (2, 1)  # seat 1, seat 2, seat 1
    assert got1 + got2 == Counter(["B1", "B2", "B3"])
    # The giver knows which card went to whom (knowledge observation, relative rows).
    layout = env.unwrapped.unflatten(env.observe("player_0")["observation"])
    codes = env.unwrapped.rules.codes
    for rel, got in ((1, got1), (2, got2)):
        known = Counter({codes[k]: int(v) for k, v in enumerate(layout["known_cards"][rel]) if v})
        assert known == got
    act(env, "color green")
    assert_turn(env, "player_2", "play", ["draw"])
    d = env.unwrapped.describe()
    assert (d["top"], d["color"], d["direction"]) == ("WU", "green", -1)


def test_urrrhhh_deals_round_and_round_skipping_the_giver():
    env = deal_env("monster_high", [["WU", "G1", "G2", "G3", "G4", "G5", "P9"], ["B1"], ["B2"], ["B3"]], "P5")
    before = hands(env)
    act(env, "play WU", "color green")
    after = hands(env)
    assert after[0] == Counter(["P9"])
    assert [sum((after[s] - before[s]).values()) for s in (1, 2, 3)] == [2, 2, 1]
    assert_turn(env, "player_0", "color", ALL_PINK)


def test_urrrhhh_with_no_coloured_card_goes_straight_to_the_colour():
    env = deal_env("monster_high", [["WU", "W"], ["G1"]], "P5")
    act(env, "play WU")
    assert_turn(env, "player_0", "color", ALL_PINK)
    assert env.unwrapped.describe()["hands"] == [["W"], ["G1"]]


def test_urrrhhh_giving_away_the_last_cards_wins_at_once():
    env = deal_env("monster_high", [["WU", "B1", "B2"], ["G1", "G7"]], "B5", wrapped=True)
    act(env, "play WU")
    assert_turn(env, "player_0", "give", ["color blue"])
    act(env, "color blue")
    d = env.unwrapped.describe()
    assert (d["done"], d["winners"], d["phase"], d["color"]) == (True, [0], "over", "blue")
    assert Counter(d["hands"][1]) == Counter(["G1", "G7", "B1", "B2"])
    assert d["scores"] == [1 + 7 + 1 + 2, 0]
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert drain(env) == {"player_0": (1.0, True, False), "player_1": (-1.0, True, False)}


# ------------------------------------------------------------------------------------ Wild Emoji


def test_wild_emoji_lays_a_number_card_on_top_whose_colour_becomes_active():
    env = deal_env("emoji", [["WE", "B5", "BS", "Y2"], ["G1", "B7"], ["Y1"]], "R3")
    assert_turn(env, "player_0", "play", ["play WE", "draw"])
    act(env, "play WE")
    assert_turn(env, "player_0", "emoji", ["play B5", "play Y2"])
    act(env, "play B5")
    assert_turn(env, "player_1", "play", ["play B7", "draw"])
    d = env.unwrapped.describe()
    assert (d["top"], d["color"], d["hands"][0]) == ("B5", "blue", ["BS", "Y2"])
    assert discard_pile(env) == ["R3", "WE", "B5"]
    obs = env.unwrapped.unflatten(env.observe("player_0")["observation"])
    assert obs["emoji_face"].tolist() == [0, 1, 0]


def test_wild_emoji_needs_a_number_card():
    env = deal_env("emoji", [["WE", "BS"], ["G1"]], "R3")
    assert_turn(env, "player_0", "play", ["draw"])


def emoji_faces_always_fail(first_hand: list[str]):
    """Two players, `first_hand` against B1 B2 B3 on R3; every emoji face fails, and the deck is G1 to G4."""
    return deal_env("emoji", [first_hand, ["B1", "B2", "B3"]], "R3", deck=["G1", "G2", "G3", "G4"],
                    emoji_face_fail_rate=1.0)  # fmt: skip


def test_emoji_face_failed_draws_four_when_the_following_turn_starts():
    env = emoji_faces_always_fail(["WE", "B5", "B6", "B7"])
    act(env, "play WE", "play B5")
    assert_turn(env, "player_1", "play")
    assert hands(env)[1] == Counter(["B1", "B2", "B3"])
    act(env, "play B1", "play B6")
    assert_turn(env, "player_1", "play", ["play B2", "play B3", "draw"])
    assert hands(env)[1] == Counter(["B2", "B3", "G1", "G2", "G3", "G4"])


def test_emoji_face_is_checked_even_when_the_following_turn_is_skipped():
    env = emoji_faces_always_fail(["WE", "B5", "BS", "B7"])
    act(env, "play WE", "play B5", "play B1", "play BS")
    assert_turn(env, "player_0", "play", ["play B7", "draw"])
    assert hands(env)[1] == Counter(["B2", "B3", "G1", "G2", "G3", "G4"])


# ------------------------------------------------------------------------------------- Wild Swap


def test_wild_swap_exchanges_hands_but_not_foreheads():
    env = deal_env(
        "swap",
        [["WS", "B1", "B2"], ["G1", "G2", "G3", "G4"], ["Y1"]],
        "R5",
        foreheads=[[], ["R7"], ["B9"]],
    )
    act(env, "play WS")
    assert_turn(env, "player_0", "swap", ["pass", "swap +1", "swap +2"])
    act(env, "swap +2")
    assert_turn(env, "player_0", "color", ALL_RED)
    d = env.unwrapped.describe()
    assert d["hands"] == [["Y1"], ["G1", "G2", "G3", "G4"], ["B1", "B2"]]
    assert d["foreheads"] == [[], ["R7"], ["B9"]]
    # Both players know both hands (knowledge observation; rows are relative seats).
    codes = env.unwrapped.rules.codes

    def known(agent, rel):
        obs = env.unwrapped.unflatten(env.observe(agent)["observation"])
        return Counter({codes[k]: int(v) for k, v in enumerate(obs["known_cards"][rel]) if v})

    assert known("player_0", 2) == Counter(["B1", "B2"])
    assert known("player_2", 1) == Counter(["Y1"])
    assert known("player_1", 1) == Counter() and known("player_1", 2) == Counter()
    act(env, "color blue")
    assert_turn(env, "player_1", "guess", ALL_RED)


def test_wild_swap_pass_keeps_the_hands():
    env = deal_env("swap", [["WS", "B1"], ["G1", "G2"]], "R5")
    act(env, "play WS")
    assert_turn(env, "player_0", "swap", ["pass", "swap +1"])
    act(env, "pass")
    assert_turn(env, "player_0", "color", ALL_RED)
    assert env.unwrapped.describe()["hands"] == [["B1"], ["G1", "G2"]]


# --------------------------------------------------------------------------- Wild Draw Four challenge

W4_DECK = ["Y5", "Y6", "Y7", "Y8", "G5", "G6", "G7", "G8"]


def test_wild_draw_four_challenged_and_guilty():
    env = deal_env("classic", [["W+4", "R1", "B2"], ["G1", "B8"], ["Y1"]], "R5", deck=W4_DECK)
    act(env, "play W+4")
    assert_turn(env, "player_0", "color", ALL_RED)
    act(env, "color blue")
    assert_turn(env, "player_1", "challenge", ["challenge", "accept"])
    act(env, "challenge")
    # Guilty: the player of the Wild Draw Four draws 4; the challenger plays its turn as normal.
    assert_turn(env, "player_1", "play", ["play B8", "draw"])
    d = env.unwrapped.describe()
    assert Counter(d["hands"][0]) == Counter(["R1", "B2", "Y5", "Y6", "Y7", "Y8"])
    assert Counter(d["hands"][1]) == Counter(["G1", "B8"])
    assert (d["top"], d["color"]) == ("W+4", "blue")
    # The challenger was shown the hand as it was before the penalty draw.
    obs = env.unwrapped.unflatten(env.observe("player_1")["observation"])
    codes = env.unwrapped.rules.codes
    shown = Counter({codes[k]: int(v) for k, v in enumerate(obs["known_cards"][2]) if v})  # seat 0 = rel 2
    assert shown == Counter(["R1", "B2"])


@pytest.mark.parametrize(
    ("hand", "answer", "drawn"),
    [
        # A matching number (B5 on R5) is not the active colour: the play was legal, the challenger draws six.
        pytest.param(["B5", "G2"], "challenge", ["Y5", "Y6", "Y7", "Y8", "G5", "G6"], id="challenged_and_innocent"),
        pytest.param(["R1", "B2"], "accept", ["Y5", "Y6", "Y7", "Y8"], id="accepted"),
    ],
)
def test_wild_draw_four_accepted_or_challenged_in_vain_the_next_player_draws_and_is_skipped(hand, answer, drawn):
    env = deal_env("classic", [["W+4", *hand], ["G1", "B8"], ["Y1"]], "R5", deck=W4_DECK)
    act(env, "play W+4", "color yellow", answer)
    assert_turn(env, "player_2", "play", ["play Y1", "draw"])
    d = env.unwrapped.describe()
    assert Counter(d["hands"][0]) == Counter(hand)
    assert Counter(d["hands"][1]) == Counter(["G1", "B8", *drawn])


@pytest.mark.parametrize("variant, card", [("unocorns", "WN"), ("monster_high", "WU"), ("swap", "WS")])
def test_a_last_special_wild_has_no_effect(variant, card):
    env = deal_env(variant, [[card], ["B1", "G2"]], "B5", reward="points")
    act(env, f"play {card}")
    d = env.unwrapped.describe()
    assert (d["done"], d["winners"], d["phase"]) == (True, [0], "over")
    assert d["hands"] == [[], ["B1", "G2"]] and d["foreheads"] == [[], []]
    assert env.rewards == {"player_0": 3 / 500, "player_1": -3 / 500}


def test_emoji_with_the_last_number_card_goes_out():
    env = deal_env("emoji", [["WE", "B5"], ["G1"]], "R3", wrapped=True)
    act(env, "play WE", "play B5")
    d = env.unwrapped.describe()
    assert (d["done"], d["winners"], d["top"]) == (True, [0], "B5")
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_a_forehead_card_scores_like_a_hand_card():
    env = deal_env("unocorns", [["P5"], ["B1"]], "P3", foreheads=[[], ["Y9"]], reward="points")
    act(env, "play P5")
    d = env.unwrapped.describe()
    assert (d["done"], d["winners"], d["scores"]) == (True, [0], [10, 0])  # B1 + the forehead Y9
    assert env.rewards == {"player_0": 10 / 500, "player_1": -10 / 500}


def test_illegal_wild_draw_four_is_not_offered_without_challenges():
    env = deal_env("classic", [["W+4", "R1"], ["G1"]], "R5", challenge_wild_draw_four=False)
    assert_turn(env, "player_0", "play", ["play R1", "draw"])
    env = deal_env("classic", [["W+4", "B1"], ["G1"]], "R1", deck=W4_DECK, challenge_wild_draw_four=False)
    assert_turn(env, "player_0", "play", ["play B1", "play W+4", "draw"])
    act(env, "play W+4", "color blue")
    assert_turn(env, "player_0", "play", ["play B1", "draw"])
    assert Counter(env.unwrapped.describe()["hands"][1]) == Counter(["G1", "Y5", "Y6", "Y7", "Y8"])


def test_guilty_challenge_lets_the_challenger_guess_first():
    env = deal_env("unocorns", [["W+4", "P1", "B2"], ["G1"], ["Y1"]], "P5", foreheads=[[], ["Y9"], []], deck=W4_DECK)
    act(env, "play W+4", "color blue", "challenge")
    assert_turn(env, "player_1", "guess", ALL_PINK)


# --------------------------------------------------------------------- first cards, UNO, going out


def test_first_card_wild_lets_the_first_player_choose_then_play():
    env = deal_env("classic", [["B1", "G2"], ["Y1"]], "W")
    assert_turn(env, "player_0", "color", ALL_RED)
    assert env.unwrapped.describe()["color"] is None
    act(env, "color blue")
    assert_turn(env, "player_0", "play", ["play B1", "draw"])


def test_first_card_wild_draw_four_is_replaced_by_the_next_card():
    env = deal_env("classic", [["B1", "G2"], ["Y1"]], "W+4", deck=["G5"])
    assert_turn(env, "player_0", "play", ["play G2", "draw"])
    d = env.unwrapped.describe()
    assert (d["top"], d["color"], d["discard"]) == ("G5", "green", 1)


@pytest.mark.parametrize("top, first, drawn", [("RS", "player_2", 0), ("R+2", "player_2", 2), ("RR", "player_0", 0)])
def test_first_card_effects_choose_the_first_agent(top, first, drawn):
    env = deal_env("classic", [["B1"], ["G1"], ["Y1"]], top, dealer=0)
    assert env.agent_selection == first
    assert len(env.unwrapped.describe()["hands"][1]) == 1 + drawn


def test_two_player_reverse_acts_as_a_skip():
    env = deal_env("classic", [["RR", "R1", "B4"], ["G1"]], "R5")
    act(env, "play RR")
    assert_turn(env, "player_0", "play", ["play R1", "draw"])
    assert env.unwrapped.describe()["direction"] == -1


def test_explicit_uno_call_is_a_decision_of_the_same_agent():
    env = deal_env("classic", [["R5", "W", "B1"], ["G1", "G2"]], "R3", deck=["Y1", "Y2", "Y3"], uno_call="explicit")
    act(env, "play R5")
    assert_turn(env, "player_1", "play", ["draw"])
    act(env, "draw")  # Y1: not playable
    act(env, "play W")
    assert_turn(env, "player_0", "color", ALL_RED)
    act(env, "color yellow")
    assert_turn(env, "player_0", "uno", ["pass", "uno"])
    act(env, "pass")  # not called, caught: draws 2
    assert_turn(env, "player_1", "play", ["play Y1", "draw"])
    assert Counter(env.unwrapped.describe()["hands"][0]) == Counter(["B1", "Y2", "Y3"])


def test_last_card_wild_draw_four_makes_the_next_player_draw_before_scoring():
    env = deal_env("classic", [["W+4"], ["B1"]], "R5", deck=["G1", "G2", "G3", "G4"], reward="points")
    act(env, "play W+4")  # no colour choice, no challenge: the round is over
    d = env.unwrapped.describe()
    assert (d["done"], d["winners"], d["phase"]) == (True, [0], "over")
    assert Counter(d["hands"][1]) == Counter(["B1", "G1", "G2", "G3", "G4"])
    assert d["scores"] == [11, 0]
    assert env.rewards == {"player_0": 11 / 500, "player_1": -11 / 500}


# ---------------------------------------------------------------------------------------- rewards


@pytest.mark.parametrize("n", [2, 3, 4])
def test_round_win_rewards_are_plus_one_and_minus_one_over_n_minus_one(n):
    others = [["B7", "GS"], ["Y9"], ["G2", "G3"]]
    env = deal_env("classic", [["R5", "R6"], *others[: n - 1]], "R3", wrapped=True)
    act(env, "play R5")
    assert env.rewards == dict.fromkeys(env.possible_agents, 0.0)
    assert not any(env.terminations.values())
    # The next players draw (no card of theirs is playable) until player_0 plays its last card.
    for agent in env.possible_agents[1:]:
        assert_turn(env, agent, "play", ["draw"])
        env.step(env.unwrapped.action_id("draw"))
        if env.unwrapped.describe()["phase"] == "drawn":
            act(env, "pass")
    assert_turn(env, "player_0", "play", ["play R6", "draw"])
    act(env, "play R6")
    expected = {a: (1.0 if a == "player_0" else -1.0 / (n - 1)) for a in env.possible_agents}
    assert env.rewards == expected
    assert env._cumulative_rewards == expected
    assert math.fsum(env.rewards.values()) == pytest.approx(0.0, abs=1e-12)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.agent_selection == "player_0"
    assert env.unwrapped.describe()["winners"] == [0]
    seen = drain(env)
    assert list(seen) == env.possible_agents
    assert {a: r for a, (r, _, _) in seen.items()} == expected
    assert env.agents == []


def test_match_rewards_come_only_at_the_end_of_the_match():
    env = deal_env("classic", [["R5"], ["B3"], ["Y1"]], "R3", wrapped=True, episode="match", target_score=10)
    act(env, "play R5")  # round 1: player_0 wins 4 points, the match goes on
    d = env.unwrapped.describe()
    assert d["scores"] == [4, 0, 0]
    assert (d["done"], d["winners"]) == (False, [])
    assert env.unwrapped.game.state[0].rounds == 1
    assert d["dealer"] == 0  # the deal passes to the left
    assert all(len(h) == 7 for h in d["hands"])
    assert env.rewards == dict.fromkeys(env.possible_agents, 0.0)
    assert not any(env.terminations.values()) and not any(env.truncations.values())
    assert env.agent_selection == f"player_{d['seat']}"
    history = play_random(env, np.random.default_rng(3))
    assert all(all(r == 0.0 for r in step.values()) for step in history[:-1])
    d = env.unwrapped.describe()
    assert d["done"] and not d["truncated"] and len(d["winners"]) == 1
    winner = d["winners"][0]
    assert d["scores"][winner] >= 10 and max(d["scores"]) == d["scores"][winner]
    expected = {a: (1.0 if a == f"player_{winner}" else -0.5) for a in env.possible_agents}
    assert history[-1] == expected
    assert {a: r for a, (r, _, _) in drain(env).items()} == expected


def test_match_dealt_scores_can_end_the_match_in_the_first_round():
    env = deal_env("classic", [["R5"], ["B3"]], "R3", scores=[497, 499], episode="match")
    act(env, "play R5")
    d = env.unwrapped.describe()
    assert (d["done"], d["winners"], d["scores"]) == (True, [0], [500, 499])
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_points_rewards_at_every_round_end_of_a_match():
    hands0 = [["R5"], ["B7", "GS"], ["Y9"]]  # player_0 wins 7 + 20 + 9 = 36 points
    env = deal_env("classic", hands0, "R3", wrapped=True, episode="match", reward="points", target_score=100)
    act(env, "play R5")
    d = env.unwrapped.describe()
    assert (d["scores"], d["done"]) == ([36, 0, 0], False)
    value = 36 / 100
    expected = {"player_0": value, "player_1": -value / 2, "player_2": -value / 2}
    assert env.rewards == expected
    assert math.fsum(env.rewards.values()) == pytest.approx(0.0, abs=1e-12)
    assert not any(env.terminations.values())
    # Each agent sees its round reward in last() when its turn comes.
    agent = env.agent_selection
    assert env.last()[1] == expected[agent]
    # The rest of the match: rewards only at round ends, each round's winner its points / target.
    state = env.unwrapped.game.state[0]
    rng = np.random.default_rng(11)
    for _ in range(20000):
        if env.terminations[env.agent_selection]:
            break
        rounds_before, scores_before = int(state.rounds), np.array(env.unwrapped.describe()["scores"])
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        if int(state.rounds) == rounds_before:
            assert all(r == 0.0 for r in env.rewards.values())
            continue
        gained = np.array(env.unwrapped.describe()["scores"]) - scores_before
        winner = int(np.flatnonzero(gained)[0]) if gained.any() else int(state.round_winner)
        value = int(gained.sum()) / 100
        assert env.rewards == {a: (value if i == winner else -value / 2) for i, a in enumerate(env.possible_agents)}
    d = env.unwrapped.describe()
    assert d["done"] and all(env.terminations.values()) and max(d["scores"]) >= 100


def test_points_rewards_in_a_round_episode():
    env = deal_env("emoji", [["R5"], ["B7", "GS"]], "R3", reward="points")  # emoji numbers: 5 points each
    act(env, "play R5")
    assert env.unwrapped.describe()["scores"] == [25, 0]
    assert env.rewards == {"player_0": 25 / 500, "player_1": -25 / 500}
    assert all(env.terminations.values())


def test_penalty_scoring_tied_winners_share_plus_one():
    hands0 = [["R5"], ["BS", "BR", "B+2"], ["G0"], ["Y1"]]
    env = deal_env(
        "classic", hands0, "R3", scores=[0, 10, 0, 0], wrapped=True, episode="match", scoring="penalty", target_score=50
    )
    act(env, "play R5")
    d = env.unwrapped.describe()
    assert (d["scores"], d["winners"], d["done"]) == ([0, 70, 0, 1], [0, 2], True)
    expected = {"player_0": 0.5, "player_1": -0.5, "player_2": 0.5, "player_3": -0.5}
    assert env.rewards == expected
    assert {a: r for a, (r, _, _) in drain(env).items()} == expected


def test_penalty_scoring_everyone_tied_gets_zero():
    env = deal_env(
        "classic", [["R5"], ["G0"]], "R3", scores=[50, 50], episode="match", scoring="penalty", target_score=50
    )
    act(env, "play R5")
    d = env.unwrapped.describe()
    assert (d["scores"], d["winners"], d["done"]) == ([50, 50], [0, 1], True)
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}


def test_step_limit_truncates_with_zero_reward():
    env = deal_env("classic", [["R5", "R6", "R7"], ["B1", "B2"]], "R3", wrapped=True, max_steps=2)
    act(env, "play R5", "draw")
    d = env.unwrapped.describe()
    assert (d["done"], d["truncated"], d["phase"], d["winners"]) == (True, True, "over", [])
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    text = env.unwrapped.render()
    assert text is None
    seen = drain(env)
    assert {a: v for a, v in seen.items()} == {"player_0": (0.0, False, True), "player_1": (0.0, False, True)}


def test_reset_clears_the_episode():
    env = deal_env("classic", [["R5"], ["B3"]], "R3", wrapped=True)
    act(env, "play R5")
    drain(env)
    env.reset(seed=4)
    assert env.agents == env.possible_agents
    assert env.rewards == env._cumulative_rewards == dict.fromkeys(env.possible_agents, 0.0)
    assert not any(env.terminations.values()) and not any(env.truncations.values())
    assert env.infos == {a: {} for a in env.possible_agents}
    d = env.unwrapped.describe()
    assert not d["done"] and env.agent_selection == f"player_{d['seat']}"


# ----------------------------------------------------------------------------------- errors


def test_raw_env_refuses_an_illegal_action_and_changes_nothing():
    env = deal_env("unocorns", [["P1", "B2"], ["G1"]], "P5")
    before = env.unwrapped.describe()
    obs_before = env.observe("player_0")
    with pytest.raises(IllegalActionError, match=r"'play B2'.*phase 'play'"):
        env.step(env.action_id("play B2"))
    assert env.describe() == before
    assert env.agent_selection == "player_0"
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    obs_after = env.observe("player_0")
    assert np.array_equal(obs_before["observation"], obs_after["observation"])
    assert np.array_equal(obs_before["action_mask"], obs_after["action_mask"])
    with pytest.raises(IllegalActionError, match=r"'color pink'.*phase 'play'"):
        env.step(env.action_id("color pink"))
    act(env, "draw")
    # In another phase: a card during the colour choice.
    env2 = deal_env("unocorns", [["W", "P1"], ["G1"]], "P5")
    act(env2, "play W")
    before = env2.describe()
    with pytest.raises(IllegalActionError, match=r"'play P1'.*phase 'color'"):
        env2.step(env2.action_id("play P1"))
    assert env2.describe() == before
    with pytest.raises(IllegalActionError, match="77"):
        env2.step(77)
    assert env2.describe() == before
    assert issubclass(uno_env.IllegalActionError, ValueError)


def test_env_terminates_the_game_with_minus_one_for_an_illegal_move(caplog):
    env = deal_env("classic", [["R1"], ["B2", "G2"], ["Y3"]], "R5", dealer=0, wrapped=True)
    assert env.agent_selection == "player_1"
    env.step(env.unwrapped.action_id("play G2"))
    assert "Illegal move" in caplog.text
    assert all(env.terminations.values())
    assert env.unwrapped.describe()["hands"][1] == ["B2", "G2"]  # the move was not made
    seen = drain(env, game_over=False)
    assert {a: r for a, (r, _, _) in seen.items()} == {"player_0": 0.0, "player_1": -1.0, "player_2": 0.0}


def test_env_asserts_out_of_bounds_actions():
    env = uno_env.env()
    env.reset(seed=0)
    with pytest.raises(AssertionError, match="action space"):
        env.step(77)
    with pytest.raises(AssertionError, match="action space"):
        env.step(-1)


def test_env_refuses_step_before_reset():
    env = uno_env.env()
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)
    with pytest.raises(AttributeError, match="reset"):
        _ = env.agent_selection


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"variant": "uno_flip"}, ["uno_flip", "classic", "unocorns", "monster_high", "emoji", "swap"]),
        ({"no_such_rule": True}, ["no_such_rule", "stack_draw_two", "uno_call", "target_score"]),
        ({"observation": "omniscient"}, ["omniscient", "minimal", "knowledge", "seer"]),
        ({"reward": "score"}, ["score", "win", "points"]),
        ({"render_mode": "rgb"}, ["rgb", "human", "ansi", "rgb_array"]),
        ({"num_players": 1}, ["num_players", "2", "10"]),
        ({"num_players": 11}, ["num_players", "2", "10"]),
        ({"episode": "season"}, ["season", "round", "match"]),
        ({"max_steps": 0}, ["max_steps"]),
        ({"stack_draw_two": "yes"}, ["stack_draw_two", "True", "False"]),
    ],
)
@pytest.mark.parametrize("maker", [uno_env.raw_env, uno_env.env])
def test_bad_arguments_raise_value_error_naming_what_is_allowed(maker, kwargs, words):
    with pytest.raises(ValueError) as info:
        maker(**kwargs)
    for word in words:
        assert word in str(info.value)


def test_bad_deal_raises_value_error():
    env = uno_env.raw_env(variant="classic", num_players=2)
    with pytest.raises(ValueError, match="foo"):
        env.reset(seed=0, options={"deal": {"dealer": 0, "hands": [[], []], "foo": 1}})
    with pytest.raises(ValueError, match="WN"):
        env.reset(seed=0, options={"deal": {"dealer": 0, "hands": [["WN"], []]}})


# ------------------------------------------------------------------------- registry and pickling


def test_registry_and_import_paths():
    # uno_v0.env, as PettingZoo's registry (1.27 on: tests/checks/test_compat.py) makes it; pettingzoo 1.24 has no make
    env = uno_v0.env(variant="monster_high", num_players=3, episode="match")
    assert env.metadata["name"] == "uno_v0"
    assert isinstance(env.unwrapped, uno_env.raw_env)
    assert (env.unwrapped.rules.preset, env.unwrapped.num_players) == ("monster_high", 3)
    assert env.unwrapped.game.episode == "match"
    env.reset(seed=1)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    for make in (uno_v0.env, uno_v0.raw_env):
        e = make(variant="swap", num_players=4)
        assert e.metadata["name"] == "uno_v0" and e.unwrapped.rules.preset == "swap"
    assert uno_v0.env is uno_env.env and uno_v0.raw_env is uno_env.raw_env


def test_spaces():
    env = uno_env.env(variant="unocorns", num_players=4, observation="minimal")
    env.reset(seed=2)
    for agent in env.possible_agents:
        assert env.action_space(agent) == uno_env.raw_env(num_players=4).action_space(agent)
        assert env.action_space(agent).n == 77
        obs = env.observe(agent)
        assert env.observation_space(agent).contains(obs)
        assert obs["observation"].dtype == np.int8 and obs["action_mask"].dtype == np.int8
    size = max(s.stop for s, _ in env.unwrapped.observation_layout.values())
    assert env.observation_space("player_0")["observation"].shape == (size,)
    assert len(env.unwrapped.action_names) == 77
    assert env.unwrapped.action_names[env.unwrapped.action_id("play P5")] == "play P5"


@pytest.mark.parametrize("wrapped", [False, True])
def test_pickled_env_works_with_the_same_arguments(wrapped):
    make = uno_env.env if wrapped else uno_env.raw_env
    kwargs = dict(
        variant="unocorns",
        num_players=3,
        render_mode="ansi",
        observation="seer",
        episode="match",
        max_steps=321,
        reward="points",
        target_score=200,
        stack_draw_two=True,
    )
    env = make(**kwargs)
    env.reset(seed=9)
    copy = pickle.loads(pickle.dumps(env))
    a, b = env.unwrapped, copy.unwrapped
    assert type(a) is type(b)
    assert a.rules == b.rules
    assert (b.num_players, b.render_mode, b.observation_level, b.reward_kind) == (3, "ansi", "seer", "points")
    assert b.game.episode == "match" and int(b.game.config[0].max_steps) == 321
    assert b.rules.target_score == 200 and b.rules.stack_draw_two and b.rules.preset == "unocorns"
    assert type(copy) is type(env)
    copy.reset(seed=9)
    env.reset(seed=9)
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(60):
        assert env.unwrapped.describe() == copy.unwrapped.describe()
        assert env.agent_selection == copy.agent_selection
        obs_a, obs_b = env.observe(env.agent_selection), copy.observe(copy.agent_selection)
        assert np.array_equal(obs_a["observation"], obs_b["observation"])
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        mask = obs_a["action_mask"]
        assert np.array_equal(mask, obs_b["action_mask"])
        env.step(int(rng_a.choice(np.flatnonzero(mask))))
        copy.step(int(rng_b.choice(np.flatnonzero(mask))))
    assert copy.render() == env.render()


def test_pettingzoo_api_and_seed_tests():
    api_test(uno_env.env(variant="unocorns", num_players=3), num_cycles=300)
    seed_test(lambda **kw: uno_env.env(variant="monster_high", num_players=4, **kw), num_cycles=100)


def test_same_seed_same_episode():
    def run(seed):
        env = uno_env.env(variant="swap", num_players=3)
        env.reset(seed=seed)
        play_random(env, np.random.default_rng(0))
        return env.unwrapped.describe(), dict(env.rewards)

    assert run(123) == run(123)


# -------------------------------------------------------------------------------------- rendering


def test_ansi_render_shows_own_hand_and_hides_only_own_forehead():
    env = deal_env(
        "unocorns",
        [["P1", "B2"], ["G7", "G8"], ["Y1"]],
        "P5",
        foreheads=[["G3"], ["Y4"], ["B9"]],
        render_mode="ansi",
    )
    text = env.render()
    assert isinstance(text, str) and "\x1b[" not in text
    lines = text.splitlines()
    me = next(line for line in lines if "player_0" in line)
    assert "(you)" in me and "P1 B2" in me and "forehead ??" in me
    p1 = next(line for line in lines if "player_1" in line)
    assert "2 cards" in p1 and "forehead Y4" in p1 and "G7" not in p1
    p2 = next(line for line in lines if "player_2" in line)
    assert "forehead B9" in p2
    assert "G3" not in text and "G7" not in text and "G8" not in text
    assert "your decision (guess): color pink, color blue, color green, color yellow" in text
    act(env, "color green")  # right: player_0 plays on
    act(env, "play P1")
    text = env.render()  # now player_1 decides and sees player_0's hand as a count
    assert "player_1 (you)" in text and "G7 G8" in text and "forehead ??" in text
    assert "P1" not in text.split("\n", 2)[2] and "B2" not in text
    assert "Y4" not in text and "B9" in text


def test_human_render_prints_and_returns_none(capsys):
    env = deal_env(
        "unocorns",
        [["P1", "B2"], ["G7", "G8"], ["Y1"]],
        "P5",
        foreheads=[["G3"], ["Y4"], []],
        render_mode="human",
    )
    printed = capsys.readouterr().out  # reset renders too
    assert "player_0 (you)" in ANSI_ESCAPE.sub("", printed)
    assert env.render() is None
    out = capsys.readouterr().out
    plain = ANSI_ESCAPE.sub("", out)
    assert "\x1b[" in out
    assert "P1 B2" in plain and "forehead ??" in plain and "forehead Y4" in plain and "G3" not in plain
    act(env, "color green")
    assert "player_0 (you)" in ANSI_ESCAPE.sub("", capsys.readouterr().out)  # step renders too


@pytest.mark.parametrize("max_steps, last_line", [(10_000, "over: winners player_0"), (1, "over: truncated")])
def test_ansi_render_of_a_finished_game(max_steps, last_line):
    # With one step allowed, the winning move is still a win; a move that does not end the round truncates.
    env = deal_env(
        "classic", [["R5"] if max_steps > 1 else ["R5", "R6"], ["B3"]], "R3", render_mode="ansi", max_steps=max_steps
    )
    act(env, "play R5")
    text = env.render()
    assert text.splitlines()[-1] == last_line
    assert "| round 1 |" in text.splitlines()[0]  # the round just played, not one that never starts
    assert not any(line.startswith(">") for line in text.splitlines())


def test_no_render_mode_renders_nothing():
    env = uno_env.raw_env()
    env.reset(seed=0)
    assert env.render() is None


def test_infos_are_empty():
    env = deal_env("unocorns", [["WN", "P1", "B2"], ["G1", "G2"]], "P5", wrapped=True)
    assert env.infos == {"player_0": {}, "player_1": {}}
    act(env, "play WN", "color green")
    assert env.infos == {"player_0": {}, "player_1": {}}
    assert env.last()[4] == {}
