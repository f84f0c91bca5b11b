"""Scenario tests: deck composition, preset defaults, the UNO call, scoring, matches, mixed decks,
the step limit and bad input (docs/rules.md: "Decks (presets)", "Going out, UNO and scoring",
"What the engine adds").

Every scenario is dealt: seat 0 plays first unless said otherwise (the dealer is the last seat), `top` is
the first discard card and `deck` the top of the draw pile, top first.
"""

from __future__ import annotations

import numpy as np
import pytest

from uno_env import OPTION_NAMES, PRESETS, Game, GameBatch, IllegalActionError, action_id, make_rules
from uno_env.testing import act, deal, scenario

RANKS = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "+2")
PINK = ("pink", "blue", "green", "yellow")
RED = ("red", "blue", "green", "yellow")
PRESET_COLORS = {"classic": RED, "unocorns": PINK, "monster_high": PINK, "emoji": RED, "swap": RED}
PRESET_WILDS = {
    "classic": {"W": 4, "W+4": 4},
    "unocorns": {"W": 4, "W+4": 4, "WN": 4},
    "monster_high": {"W": 4, "W+4": 4, "WU": 4},
    "emoji": {"W": 4, "W+4": 4, "WE": 2, "WC": 2},
    "swap": {"W": 4, "W+4": 4, "WS": 2, "WC": 2},
}
PRESET_TOTALS = {"classic": 108, "unocorns": 112, "monster_high": 112, "emoji": 112, "swap": 112}
WILD_CODES = ("W", "W+4", "WN", "WU", "WE", "WC", "WS")


# ----------------------------------------------------------------------------------------- helpers


def letters(preset: str) -> list[str]:
    return [name[0].upper() for name in PRESET_COLORS[preset]]


def expected_counts(preset: str) -> dict[str, int]:
    counts = {f"{c}{r}": (1 if r == "0" else 2) for c in letters(preset) for r in RANKS}
    counts.update(PRESET_WILDS[preset])
    return counts


def expected_points(preset: str) -> dict[str, int]:
    points = {}
    for c in letters(preset):
        for r in RANKS:
            if r.isdigit():
                points[f"{c}{r}"] = 5 if preset == "emoji" else int(r)
            else:
                points[f"{c}{r}"] = 20
    for w in WILD_CODES:
        points[w] = 40 if preset == "swap" and w in ("WC", "WS") else 50
    return points


def total_cards(g: Game) -> int:
    d = g.describe()
    return sum(len(h) for h in d["hands"]) + sum(len(f) for f in d["foreheads"]) + d["pile"] + d["discard"]


def assert_round_won(g: Game, winner: int, scores: list[int], winners: list[int] | None = None) -> None:
    d = g.describe()
    assert d["done"] is True
    assert d["truncated"] is False
    assert d["phase"] == "over"
    assert d["scores"] == scores
    assert d["winners"] == ([winner] if winners is None else winners)
    assert g.legal_actions() == []


# ------------------------------------------------------------------------------ decks and presets


def test_presets_are_the_five_of_the_rules():
    assert set(PRESETS) == {"classic", "unocorns", "monster_high", "emoji", "swap"}


@pytest.mark.parametrize("preset", ["classic", "unocorns", "monster_high", "emoji", "swap"])
def test_preset_deck_composition(preset):
    rules = make_rules(preset)
    assert rules.card_counts_by_code() == expected_counts(preset)
    assert rules.deck_size == PRESET_TOTALS[preset]
    assert sum(rules.card_counts) == PRESET_TOTALS[preset]
    # 25 cards per colour, 100 coloured cards
    for c in letters(preset):
        assert (
            sum(n for code, n in rules.card_counts_by_code().items() if code.startswith(c) and code[1:] in RANKS) == 25
        )


@pytest.mark.parametrize("preset", ["classic", "unocorns", "monster_high", "emoji", "swap"])
def test_shuffled_game_holds_the_whole_deck(preset):
    for seed in (0, 1, 2):
        g = Game(preset, 4, seed=seed)
        g.check()
        assert total_cards(g) == PRESET_TOTALS[preset]


@pytest.mark.parametrize("preset", ["classic", "unocorns", "monster_high", "emoji", "swap"])
def test_preset_colour_names(preset):
    rules = make_rules(preset)
    assert tuple(rules.colors) == PRESET_COLORS[preset]
    g = Game(preset, 2, seed=0)
    names = g.action_names
    for color in PRESET_COLORS[preset]:
        assert f"color {color}" in names
    slot0 = letters(preset)[0]
    assert f"play {slot0}5" in names
    other = "R" if slot0 == "P" else "P"
    assert f"play {other}5" not in names


def test_pink_preset_cards_use_p_and_reject_r():
    g = deal("unocorns", [["P5", "B6"], ["G7", "Y8"]], top="P1")
    d = g.describe()
    assert d["color"] == "pink"
    assert d["top"] == "P1"
    assert g.legal_actions() == ["play P5", "draw"]
    act(g, "play P5")
    assert g.describe()["top"] == "P5"
    with pytest.raises(ValueError, match="malformed card code 'R5'"):
        deal("monster_high", [["R5"], ["B6"]], top="P1")


@pytest.mark.parametrize("preset", ["classic", "unocorns", "monster_high", "emoji", "swap"])
def test_preset_default_options(preset):
    rules = make_rules(preset)
    assert rules.two_player_reverse_is_skip is True
    assert rules.hand_size == 7
    assert rules.stack_draw_two is (preset == "swap")
    assert rules.challenge_wild_draw_four is True
    assert rules.narwhal_includes_player is True
    assert rules.emoji_face_fail_rate == 0.0
    assert rules.uno_call == "auto"
    assert rules.uno_catch_rate == 1.0
    assert rules.uno_penalty == (4 if preset == "swap" else 2)
    assert rules.target_score == 500
    assert rules.scoring == "winner_takes"


@pytest.mark.parametrize("preset", ["classic", "unocorns", "monster_high", "emoji", "swap"])
def test_preset_default_points(preset):
    assert make_rules(preset).card_points_by_code() == expected_points(preset)


def test_option_names_cover_every_rules_option():
    expected = {
        "two_player_reverse_is_skip",
        "card_counts",
        "card_points",
        "hand_size",
        "stack_draw_two",
        "challenge_wild_draw_four",
        "narwhal_includes_player",
        "emoji_face_fail_rate",
        "uno_call",
        "uno_catch_rate",
        "uno_penalty",
        "target_score",
        "scoring",
    }
    assert set(OPTION_NAMES) == expected


def test_swap_preset_defaults_can_be_overridden():
    rules = make_rules("swap", stack_draw_two=False, uno_penalty=2)
    assert rules.stack_draw_two is False
    assert rules.uno_penalty == 2
    assert rules.card_points_by_code()["WS"] == 40


def test_swap_preset_stacks_draw_two_by_default():
    g = deal("swap", [["R+2", "R5", "R6"], ["B+2", "R7", "G3"]], "R1")
    act(g, "play R+2")
    d = g.describe()
    assert (d["seat"], d["phase"], d["pending_draw"]) == (1, "play", 2)
    assert g.legal_actions() == ["play B+2", "draw"]


def test_classic_does_not_stack_draw_two():
    g = deal("classic", [["R+2", "R5", "R6"], ["B+2", "R7", "G3"]], "R1", deck=["Y1", "Y2"])
    act(g, "play R+2")
    d = g.describe()
    assert (d["seat"], d["phase"], d["pending_draw"]) == (0, "play", 0)
    assert d["hands"][1] == ["R7", "B+2", "G3", "Y1", "Y2"]


# ---------------------------------------------------------------------------------------- UNO call


def test_uno_call_auto_never_asks():
    g = deal("classic", [["R5", "R6"], ["B7", "R8"]], "R1", deck=["G2", "G3"])
    assert make_rules("classic").uno_call == "auto"
    act(g, "play R5")
    d = g.describe()
    assert (d["seat"], d["phase"]) == (1, "play")
    assert d["hands"][0] == ["R6"]
    assert "uno" not in g.legal_actions()
    act(g, "play R8")
    assert (g.seat, g.phase) == (0, "play")
    act(g, "play R6")
    assert_round_won(g, 0, [7, 0])


def test_uno_explicit_call_has_no_penalty():
    g = deal("classic", [["R5", "R6"], ["B7", "B8"]], "R1", deck=["G2", "G3"], uno_call="explicit")
    act(g, "play R5")
    d = g.describe()
    assert (d["seat"], d["phase"]) == (0, "uno")
    assert g.legal_actions() == ["pass", "uno"]
    act(g, "uno")
    d = g.describe()
    assert (d["seat"], d["phase"]) == (1, "play")
    assert d["hands"][0] == ["R6"]
    assert d["pile"] == 108 - 4 - 1


def test_uno_explicit_pass_is_caught_and_draws_two():
    g = deal("classic", [["R5", "R6"], ["B7", "B8"]], "R1", deck=["G2", "G3", "G4"], uno_call="explicit")
    act(g, "play R5", "pass")
    d = g.describe()
    assert (d["seat"], d["phase"]) == (1, "play")
    assert d["hands"][0] == ["R6", "G2", "G3"]
    assert d["hands"][1] == ["B7", "B8"]


def test_uno_explicit_penalty_four():
    deck = ["G2", "G3", "G4", "G5", "G6"]
    g = deal("classic", [["R5", "R6"], ["B7", "B8"]], "R1", deck=deck, uno_call="explicit", uno_penalty=4)
    act(g, "play R5", "pass")
    assert g.hand(0) == ["R6", "G2", "G3", "G4", "G5"]
    assert (g.seat, g.phase) == (1, "play")


def test_uno_explicit_swap_preset_penalty_is_four():
    deck = ["G2", "G3", "G4", "G5", "G6"]
    g = deal("swap", [["R5", "R6"], ["B7", "B8"]], "R1", deck=deck, uno_call="explicit")
    act(g, "play R5", "pass")
    assert g.hand(0) == ["R6", "G2", "G3", "G4", "G5"]


def test_uno_explicit_catch_rate_zero_never_draws():
    g = deal("classic", [["R5", "R6"], ["B7", "B8"]], "R1", deck=["G2", "G3"], uno_call="explicit", uno_catch_rate=0.0)
    act(g, "play R5", "pass")
    d = g.describe()
    assert d["hands"][0] == ["R6"]
    assert (d["seat"], d["phase"]) == (1, "play")
    assert d["pile"] == 108 - 4 - 1


def test_uno_explicit_after_wild_colour_choice():
    g = deal("classic", [["W", "R6"], ["B7", "B8"]], "R1", deck=["G2", "G3"], uno_call="explicit")
    act(g, "play W")
    assert g.phase == "color"
    act(g, "color blue")
    d = g.describe()
    assert (d["seat"], d["phase"], d["color"]) == (0, "uno", "blue")
    act(g, "uno")
    d = g.describe()
    assert (d["seat"], d["phase"], d["color"]) == (1, "play", "blue")
    assert d["hands"][0] == ["R6"]


def test_uno_explicit_after_wild_draw_four_comes_before_the_challenge():
    g = deal("classic", [["W+4", "B6"], ["B7", "B8"]], "R1", deck=["G2", "G3", "G4", "G5"], uno_call="explicit")
    act(g, "play W+4", "color green")
    assert (g.seat, g.phase) == (0, "uno")
    act(g, "pass")
    d = g.describe()
    assert d["hands"][0] == ["B6", "G2", "G3"]
    assert (d["seat"], d["phase"]) == (1, "challenge")


def test_uno_explicit_skip_then_the_player_plays_again():
    # Two players: a Skip by seat 0 brings the turn back to seat 0, after the UNO decision.
    g = deal("classic", [["RS", "R6"], ["B7", "B8"]], "R1", deck=["G2", "G3"], uno_call="explicit")
    act(g, "play RS")
    assert (g.seat, g.phase) == (0, "uno")
    act(g, "pass")
    d = g.describe()
    assert (d["seat"], d["phase"]) == (0, "play")
    assert d["hands"] == [["R6", "G2", "G3"], ["B7", "B8"]]


def test_uno_explicit_after_playing_the_drawn_card():
    # One card at the turn start, draw a playable one (two cards) and play it: down to one.
    g = deal("classic", [["B5"], ["B7", "B8"]], "R1", deck=["R7", "G2", "G3"], uno_call="explicit")
    act(g, "draw")
    assert g.phase == "drawn"
    act(g, "play R7")
    assert (g.seat, g.phase) == (0, "uno")
    act(g, "pass")
    assert g.hand(0) == ["B5", "G2", "G3"]


def test_uno_explicit_not_offered_without_a_drop_to_one():
    g = deal("classic", [["R5", "R6", "R7"], ["B7", "R8", "B9"]], "R1", deck=["G2", "G9"], uno_call="explicit")
    act(g, "play R5")  # three -> two
    assert (g.seat, g.phase) == (1, "play")
    act(g, "play R8")
    act(g, "draw")  # seat 0: two -> three, G2 not playable on R8
    assert (g.seat, g.phase) == (1, "play")
    assert g.hand(0) == ["R6", "R7", "G2"]


def test_uno_explicit_not_offered_after_drawing_from_one_card():
    g = deal("classic", [["B5"], ["B7", "B8"]], "R1", deck=["G2", "G3"], uno_call="explicit")
    act(g, "draw")  # one -> two, G2 not playable on R1
    d = g.describe()
    assert (d["seat"], d["phase"]) == (1, "play")
    assert d["hands"][0] == ["B5", "G2"]


def test_uno_explicit_not_offered_when_going_out():
    g = deal("classic", [["R5"], ["B7", "B8"]], "R1", uno_call="explicit")
    act(g, "play R5")
    assert_round_won(g, 0, [15, 0])


def test_uno_explicit_narwhal_forehead_counts_as_a_card():
    # Playing the Narwhal from two cards leaves one hand card plus one forehead card: two cards, no UNO.
    g = deal("unocorns", [["WN", "P6"], ["B7", "B8"]], top="P1", deck=["G2", "G3"], uno_call="explicit")
    act(g, "play WN", "color blue")
    d = g.describe()
    assert d["foreheads"] == [["G3"], ["G2"]]
    assert (d["seat"], d["phase"]) == (1, "guess")


def test_uno_explicit_correct_guess_then_play_down_to_one():
    # Seat 0: two hand cards and one forehead card (three). Guessing right and playing leaves one.
    g = deal(
        "unocorns",
        [["P5", "P6"], ["B7", "B8"]],
        top="P1",
        deck=["G2", "G3"],
        foreheads=[["B3"], []],
        uno_call="explicit",
    )
    assert (g.seat, g.phase) == (0, "guess")
    act(g, "color blue")
    assert (g.seat, g.phase) == (0, "play")
    act(g, "play P5")
    assert (g.seat, g.phase) == (0, "uno")
    act(g, "pass")
    assert g.hand(0) == ["P6", "G2", "G3"]


def test_uno_explicit_after_guessing_down_to_one_and_a_wrong_guess():
    # No hand card, two forehead cards: a right guess leaves one card, a wrong one ends the turn -> UNO.
    g = deal(
        "unocorns",
        [[], ["B7", "B8"]],
        top="P1",
        deck=["G2", "G3"],
        foreheads=[["B3", "Y4"], []],
        uno_call="explicit",
    )
    act(g, "color blue")
    assert (g.seat, g.phase) == (0, "guess")
    act(g, "color green")
    assert (g.seat, g.phase) == (0, "uno")
    act(g, "pass")
    d = g.describe()
    assert d["hands"][0] == ["G2", "G3"]
    assert d["foreheads"][0] == ["Y4"]
    assert (d["seat"], d["phase"]) == (1, "play")


def test_uno_explicit_after_urrrhhh_give_and_colour():
    g = deal("monster_high", [["WU", "P5", "B6"], ["G7", "G8"]], top="P1", deck=["Y2", "Y3"], uno_call="explicit")
    act(g, "play WU")
    assert g.legal_actions() == ["color pink", "color blue"]
    act(g, "color pink")
    assert g.phase == "color"
    act(g, "color green")
    assert (g.seat, g.phase) == (0, "uno")
    act(g, "pass")
    d = g.describe()
    assert d["hands"] == [["B6", "Y2", "Y3"], ["P5", "G7", "G8"]]
    assert (d["seat"], d["phase"], d["color"]) == (1, "play", "green")


def test_uno_explicit_after_emoji_number_card():
    g = deal("emoji", [["WE", "R5", "B6"], ["G7", "G8"]], "R1", deck=["Y2", "Y3"], uno_call="explicit")
    act(g, "play WE")
    assert g.phase == "emoji"
    act(g, "play R5")
    assert (g.seat, g.phase, g.describe()["color"]) == (0, "uno", "red")
    act(g, "uno")
    d = g.describe()
    assert d["hands"][0] == ["B6"]
    assert (d["seat"], d["phase"]) == (1, "play")


def test_uno_explicit_after_swapping_into_one_card():
    g = deal("swap", [["WS", "R5", "R6"], ["B7"]], "R1", deck=["Y2", "Y3", "Y4", "Y5"], uno_call="explicit")
    act(g, "play WS", "swap +1", "color blue")
    assert (g.seat, g.phase) == (0, "uno")
    act(g, "pass")
    d = g.describe()
    assert d["hands"] == [["B7", "Y2", "Y3", "Y4", "Y5"], ["R5", "R6"]]
    assert (d["seat"], d["phase"]) == (1, "play")


# ----------------------------------------------------------------------------------------- scoring


def test_scoring_winner_takes_points_of_other_hands():
    hands = [["R5"], ["B7", "GS", "YR", "R+2"], ["W", "W+4", "B0", "Y9"]]
    g = deal("classic", hands, "R1")
    act(g, "play R5")
    # 7 + 20 + 20 + 20 = 67 and 50 + 50 + 0 + 9 = 109
    assert_round_won(g, 0, [176, 0, 0])


@pytest.mark.parametrize(
    "preset, top, loser_hand, points",
    [
        ("classic", "R1", ["B9", "B0", "W", "W+4"], 9 + 0 + 50 + 50),
        ("unocorns", "P1", ["P9", "WN", "BS"], 9 + 50 + 20),
        ("monster_high", "P1", ["P9", "WU", "BR"], 9 + 50 + 20),
        ("emoji", "R1", ["B9", "B0", "Y3", "WE", "WC", "G+2"], 5 + 5 + 5 + 50 + 50 + 20),
        ("swap", "R1", ["B9", "WC", "WS", "W"], 9 + 40 + 40 + 50),
    ],
)
def test_scoring_points_per_preset(preset, top, loser_hand, points):
    slot0 = letters(preset)[0]
    g = deal(preset, [[f"{slot0}5"], loser_hand], top=top)
    act(g, f"play {slot0}5")
    assert_round_won(g, 0, [points, 0])


def test_scoring_wild_customizable_and_swap_are_50_outside_swap_preset():
    g = deal("classic", [["R5"], ["WC", "WS"]], "R1", card_counts={"WC": 2, "WS": 2})
    act(g, "play R5")
    assert_round_won(g, 0, [100, 0])


def test_scoring_card_points_override():
    points = {"W": 10, "5": 1, "BS": 7, "W+4": 0}
    g = deal("classic", [["R6"], ["W", "B5", "G5", "BS", "GS", "W+4", "Y9"]], "R1", card_points=points)
    assert make_rules("classic", card_points=points).card_points_by_code()["Y5"] == 1
    act(g, "play R6")
    assert_round_won(g, 0, [10 + 1 + 1 + 7 + 20 + 0 + 9, 0])


def test_scoring_forehead_cards_count():
    g = deal(
        "unocorns",
        [["P5"], ["P3"], ["B2"]],
        top="P1",
        foreheads=[[], ["WN", "B+2"], ["G7"]],
    )
    act(g, "play P5")
    # seat 1: 3 + 50 + 20, seat 2: 2 + 7
    assert_round_won(g, 0, [82, 0, 0])


def test_scoring_going_out_by_guessing_the_last_forehead_card():
    g = deal("unocorns", [[], ["P3", "B4"]], top="P1", foreheads=[["G7"], ["Y2"]])
    assert (g.seat, g.phase) == (0, "guess")
    act(g, "color green")
    assert_round_won(g, 0, [3 + 4 + 2, 0])


def test_scoring_last_draw_two_cards_are_drawn_before_counting():
    g = deal("classic", [["R+2"], ["G1"]], "R1", deck=["B9", "WC"], card_counts={"WC": 1})
    act(g, "play R+2")
    assert g.hand(1) == ["B9", "G1", "WC"]
    assert_round_won(g, 0, [1 + 9 + 50, 0])


def test_scoring_last_wild_draw_four_cards_are_drawn_without_challenge():
    g = deal("classic", [["W+4"], ["R2"], ["G1"]], "R1", deck=["B9", "B8", "Y7", "RS"])
    act(g, "play W+4")
    assert g.hand(1) == ["R2", "RS", "B8", "B9", "Y7"]
    assert g.hand(2) == ["G1"]
    assert_round_won(g, 0, [2 + 20 + 8 + 9 + 7 + 1, 0, 0])


def test_scoring_adds_to_dealt_scores_in_a_round():
    g = deal("classic", [["R5"], ["B7"], ["B8"]], "R1", scores=[10, 20, 30])
    act(g, "play R5")
    assert_round_won(g, 0, [25, 20, 30])


# ----------------------------------------------------------------------------------- penalty scoring


def test_penalty_scoring_round_each_adds_own_cards():
    hands = [["R5"], ["B7", "GS"], ["W", "B0", "Y9"]]
    g = deal("classic", hands, "R1", scores=[10, 20, 30], scoring="penalty")
    act(g, "play R5")
    assert_round_won(g, 0, [10, 20 + 27, 30 + 59])


def test_penalty_scoring_counts_forehead_cards():
    g = deal(
        "unocorns",
        [["P5"], ["B7"], ["G1"]],
        top="P1",
        foreheads=[[], ["WN"], ["YS", "G3"]],
        scores=[5, 0, 0],
        scoring="penalty",
    )
    act(g, "play P5")
    assert_round_won(g, 0, [5, 57, 24])


def test_penalty_match_lowest_tally_wins_not_the_round_winner():
    # Seat 1 passes the target; seat 2 (who did not go out) has the lowest tally.
    hands = [["R5"], ["W", "B9"], ["B0"]]
    g = deal("classic", hands, "R1", scores=[90, 50, 40], scoring="penalty", target_score=100, episode="match")
    act(g, "play R5")
    assert_round_won(g, 0, [90, 109, 40], winners=[2])


def test_penalty_match_tied_lowest_share_the_win():
    hands = [["R5"], ["W", "B9"], ["B0"], ["Y1"]]
    g = deal("classic", hands, "R1", scores=[40, 50, 40, 39], scoring="penalty", target_score=100, episode="match")
    act(g, "play R5")
    assert_round_won(g, 0, [40, 109, 40, 40], winners=[0, 2, 3])


def test_penalty_match_exactly_reaching_the_target_ends_it():
    g = deal("classic", [["R5"], ["B9"]], "R1", scores=[0, 91], scoring="penalty", target_score=100, episode="match")
    act(g, "play R5")
    assert_round_won(g, 0, [0, 100], winners=[0])


def test_penalty_match_below_target_deals_the_next_round():
    g = deal(
        "classic",
        [["R5"], ["B9"], ["G4"]],
        "R1",
        scores=[0, 80, 10],
        scoring="penalty",
        episode="match",
        target_score=100,
        dealer=2,
    )
    act(g, "play R5")
    d = g.describe()
    assert d["done"] is False
    assert d["scores"] == [0, 89, 14]
    assert d["winners"] == []
    assert d["dealer"] == 0
    assert [len(h) for h in d["hands"]] == [7, 7, 7]
    assert d["phase"] != "over"


# --------------------------------------------------------------------------------------- matches


def test_match_reaching_target_ends_with_the_winner():
    g = deal("classic", [["R5"], ["B7", "B3"]], "R1", scores=[90, 60], target_score=100, episode="match")
    act(g, "play R5")
    assert_round_won(g, 0, [100, 60])


def test_match_below_target_deals_next_round_to_the_left():
    g = deal("classic", [["R5"], ["B7", "B3"], ["Y2"]], "R1", scores=[0, 30, 0], episode="match", dealer=2)
    assert g.describe()["dealer"] == 2
    act(g, "play R5")
    d = g.describe()
    assert d["done"] is False
    assert d["truncated"] is False
    assert d["winners"] == []
    assert d["scores"] == [12, 30, 0]
    assert (d["rounds"], d["round_winner"], d["round_points"]) == (1, 0, 12)  # B7 + B3 + Y2
    assert d["dealer"] == 0
    assert [len(h) for h in d["hands"]] == [7, 7, 7]
    assert d["foreheads"] == [[], [], []]
    assert d["discard"] == 1
    assert d["pending_draw"] == 0
    assert total_cards(g) == 108
    assert d["pile"] == 108 - 21 - 1


def test_match_round_episode_ends_after_one_round():
    g = deal("classic", [["R5"], ["B7", "B3"]], "R1", scores=[0, 0], target_score=500)
    act(g, "play R5")
    assert_round_won(g, 0, [10, 0])


def _first_choice(g: Game) -> str:
    """A fixed policy: the first legal play, else the first legal action."""
    legal = g.legal_actions()
    plays = [a for a in legal if a.startswith("play")]
    return plays[0] if plays else legal[0]


def test_match_plays_on_until_target_with_rotating_dealer_and_carried_scores():
    n, target = 3, 150
    g = deal("classic", [["R5"], ["B7", "B3"], ["Y2"]], "R1", episode="match", target_score=target, dealer=2)
    act(g, "play R5")
    rounds = lambda: g.describe()["rounds"]  # noqa: E731
    assert rounds() == 1
    dealers = [2, g.describe()["dealer"]]
    last_scores = g.scores
    assert last_scores == [12, 0, 0]
    for _ in range(20_000):
        if g.done:
            break
        before = rounds()
        g.step(_first_choice(g))
        d = g.describe()
        if rounds() != before:
            # a round ended: only its winner gained, and scores carry over
            winner = d["round_winner"]
            assert all(d["scores"][p] == last_scores[p] for p in range(n) if p != winner)
            assert d["scores"][winner] == last_scores[winner] + d["round_points"]
            if not d["done"]:
                dealers.append(d["dealer"])
                assert [len(h) for h in d["hands"]] == [7, 7, 7]
            last_scores = d["scores"]
        else:
            assert d["scores"] == last_scores
    g.check()
    assert g.done and not g.truncated
    assert rounds() >= 2
    assert all(b == (a + 1) % n for a, b in zip(dealers[:-1], dealers[1:], strict=True))
    winners = g.winners
    assert len(winners) == 1
    assert g.scores[winners[0]] >= target
    assert [p for p in range(n) if g.scores[p] >= target] == winners


def test_match_target_score_option_default_and_validation():
    assert make_rules("classic").target_score == 500
    assert make_rules("classic", target_score=1).target_score == 1
    g = deal("classic", [["R5"], ["B1"]], "R1", target_score=1, episode="match")
    act(g, "play R5")
    assert_round_won(g, 0, [1, 0])


# -------------------------------------------------------------------------------- mixed rule sets


def mixed(preset: str, card: str, count: int, deck_size: int):
    """`preset`'s rules with `count` of another preset's `card`, checked: its deck holds them beside its own cards,
    `deck_size` in all."""
    rules = make_rules(preset, card_counts={card: count})
    expected = expected_counts(preset)
    expected[card] = count
    assert rules.card_counts_by_code() == expected
    assert rules.deck_size == deck_size
    return rules


def test_mixed_classic_with_narwhal():
    rules = mixed("classic", "WN", 4, 112)
    assert rules.colors == RED
    g = deal("classic", [["WN", "R6", "R7"], ["B7", "B8"]], "R1", deck=["G2", "G3"], card_counts={"WN": 4})
    assert total_cards(g) == 112
    act(g, "play WN")
    d = g.describe()
    assert d["foreheads"] == [["G3"], ["G2"]]
    assert d["phase"] == "color"


def test_mixed_monster_high_with_swap():
    rules = mixed("monster_high", "WS", 2, 114)
    assert rules.card_points_by_code()["WS"] == 50
    g = deal("monster_high", [["WS", "P6"], ["B7", "B8", "G1"]], top="P1", card_counts={"WS": 2})
    assert total_cards(g) == 114
    act(g, "play WS")
    assert g.phase == "swap"
    assert g.legal_actions() == ["pass", "swap +1"]
    act(g, "swap +1", "color green")
    assert g.describe()["hands"] == [["B7", "B8", "G1"], ["P6"]]


def test_card_counts_remove_and_bare_rank():
    rules = make_rules("classic", card_counts={"W+4": 0, "5": 0, "B0": 3})
    counts = rules.card_counts_by_code()
    assert "W+4" not in counts
    assert all(f"{c}5" not in counts for c in "RBGY")
    assert counts["B0"] == 3
    assert rules.deck_size == 108 - 4 - 8 + 2
    g = Game(rules, 3, seed=5)
    g.check()
    assert total_cards(g) == rules.deck_size


def test_deal_over_placing_a_card_names_it():
    with pytest.raises(ValueError, match=r"2 copies of R0.*holds 1"):
        deal("classic", [["R0"], ["R0"]], "R1")
    with pytest.raises(ValueError, match=r"copies of WN.*holds 0"):
        deal("classic", [["WN"], ["B1"]], "R1")
    with pytest.raises(ValueError, match=r"5 copies of W\b.*holds 4"):
        deal("classic", [["W", "W"], ["W"]], top="W", deck=["W"])
    with pytest.raises(ValueError, match=r"copies of G5.*holds 0"):
        deal("classic", [["R6"], ["B1"]], "R1", deck=["G5"], card_counts={"5": 0})
    with pytest.raises(ValueError, match=r"5 copies of WN.*holds 4"):
        deal("classic", [["WN", "WN"], ["WN"]], top="R1", deck=["WN", "WN"], card_counts={"WN": 4})
    with pytest.raises(ValueError, match=r"5 copies of WN.*holds 4"):
        deal("unocorns", [["WN", "WN"], ["WN"]], top="P1", foreheads=[["WN"], ["WN"]])


# ------------------------------------------------------------------------------------- step limit


def test_max_steps_truncates():
    g = deal("classic", [["R5", "R6", "R7"], ["R2", "R3", "R4"]], "R1", max_steps=3)
    act(g, "play R5", "play R2")
    assert not g.done and not g.truncated
    before_hands = g.describe()["hands"]
    act(g, "play R6")
    d = g.describe()
    assert d["truncated"] is True
    assert d["done"] is True
    assert d["winners"] == []
    assert d["phase"] == "over"
    assert d["scores"] == [0, 0]
    assert d["hands"] == [["R7"], before_hands[1]]
    assert g.legal_actions() == []
    with pytest.raises(IllegalActionError):
        g.step("play R3")


def test_max_steps_counts_colour_choices():
    g = deal("classic", [["W", "R6", "R7"], ["R2", "R3", "R4"]], "R1", max_steps=2)
    act(g, "play W", "color blue")
    assert g.truncated and g.done and g.winners == []


def test_going_out_on_the_last_allowed_step_is_not_truncated():
    g = deal("classic", [["R5", "R6"], ["R2", "R3"]], "R1", max_steps=3)
    act(g, "play R5", "play R2", "play R6")
    assert_round_won(g, 0, [3, 0])


def test_max_steps_must_be_positive():
    with pytest.raises(ValueError, match="max_steps must be a positive int"):
        Game("classic", 2, max_steps=0)


# -------------------------------------------------------------------------------------- bad input


def test_unknown_preset():
    with pytest.raises(ValueError, match="unknown variant 'uno_flip'") as err:
        make_rules("uno_flip")
    for p in PRESETS:
        assert p in str(err.value)
    with pytest.raises(ValueError, match="unknown variant"):
        Game("uno_flip", 2)


def test_unknown_option():
    with pytest.raises(ValueError, match="unknown option") as err:
        Game("classic", 2, jump_in=True)
    assert "jump_in" in str(err.value)
    assert "uno_call" in str(err.value) and "target_score" in str(err.value)


@pytest.mark.parametrize(
    "option, value, words",
    [
        ("hand_size", 0, ["hand_size", "from 1 to 50", "0"]),
        ("emoji_face_fail_rate", 1.5, ["emoji_face_fail_rate", "0.0 to 1.0", "1.5"]),
        ("uno_catch_rate", -0.1, ["uno_catch_rate", "0.0 to 1.0"]),
        ("uno_call", "maybe", ["uno_call", "'auto'", "'explicit'", "'maybe'"]),
        ("scoring", "x", ["scoring", "'winner_takes'", "'penalty'", "'x'"]),
        ("target_score", 0, ["target_score", "from 1 to"]),
        ("uno_penalty", -1, ["uno_penalty", "from 0 to 50"]),
        ("stack_draw_two", "yes", ["stack_draw_two", "True or False"]),
        ("card_counts", {"R5": -1}, ["card_counts", "R5", "from 0 to", "-1"]),
        ("card_points", {"W": -5}, ["card_points", "W", "from 0 to", "-5"]),
        ("card_counts", {"X5": 1}, ["malformed card code 'X5'", "R/B/G/Y"]),
    ],
)
def test_option_out_of_range(option, value, words):
    with pytest.raises(ValueError) as err:
        make_rules("classic", **{option: value})
    for w in words:
        assert w in str(err.value)
    with pytest.raises(ValueError):
        Game("classic", 2, **{option: value})


@pytest.mark.parametrize("n", [1, 11, 0])
def test_num_players_out_of_range(n):
    with pytest.raises(ValueError, match=f"num_players must be an int from 2 to 10, got {n}"):
        Game("classic", n)


def test_num_players_bounds_are_accepted():
    assert Game("classic", 2, seed=0).num_players == 2
    g = Game("classic", 10, seed=0)
    g.check()
    assert [len(h) for h in g.describe()["hands"]] == [7] * 10


@pytest.mark.parametrize(
    "preset, code, allowed",
    [
        ("classic", "X5", "R/B/G/Y"),
        ("classic", "R10", "R/B/G/Y"),
        ("classic", "P5", "R/B/G/Y"),
        ("unocorns", "R5", "P/B/G/Y"),
        ("classic", "W+2", "R/B/G/Y"),
    ],
)
def test_malformed_card_codes(preset, code, allowed):
    slot0 = letters(preset)[0]
    with pytest.raises(ValueError) as err:
        deal(preset, [[code], [f"{slot0}5"]], top=f"{slot0}1")
    msg = str(err.value)
    assert f"malformed card code {code!r}" in msg
    assert allowed in msg
    assert "W+4" in msg and "+2" in msg


def refused(g: Game, action: str, match: str | None = None, error: type[ValueError] = IllegalActionError) -> str:
    """`g.step(action)` raises `error` (its message matching `match`) and changes nothing; returns the message."""
    before = g.describe()
    with pytest.raises(error, match=match) as err:
        g.step(action)
    assert g.describe() == before
    return str(err.value)


def test_malformed_card_code_in_play_action():
    g = deal("classic", [["R5"], ["B6"]], "R1")
    refused(g, "play R10", "malformed card code 'R10'", ValueError)


def test_illegal_action_names_action_and_phase_and_changes_nothing():
    g = deal("classic", [["R5", "B6"], ["B7", "B8"]], "R1")
    msg = refused(g, "play B6")
    assert "'play B6'" in msg and "'play'" in msg
    msg = refused(g, "color blue")
    assert "'color blue'" in msg and "phase 'play'" in msg
    refused(g, "uno", "'uno'.*'play'")
    refused(g, "play R9", "'play R9'")  # a card not held


def test_illegal_action_in_uno_phase():
    g = deal("classic", [["R5", "R6"], ["B7", "B8"]], "R1", uno_call="explicit")
    act(g, "play R5")
    msg = refused(g, "play R6")
    assert "'play R6'" in msg and "'uno'" in msg
    refused(g, "draw", "'draw'.*'uno'")


def test_illegal_action_after_the_round_is_over():
    g = deal("classic", [["R5"], ["B7"]], "R1")
    act(g, "play R5")
    refused(g, "draw", "'draw'.*'over'")


def assert_same_state(a: np.ndarray, b: np.ndarray) -> None:
    """Every field of two batch states is equal (padding bytes aside)."""
    for name in a.dtype.names:
        assert np.array_equal(a[name], b[name]), name


def _batch_with_deals(n_games: int) -> GameBatch:
    b = GameBatch("classic", 2, n_games)
    for i in range(n_games):
        b.reset_game(i, seed=i, deal=scenario([["R5", "R6", "B2"], ["B7", "R8", "G3"]], "R1"))
    return b


def test_batch_step_with_one_illegal_action_changes_no_game():
    b = _batch_with_deals(3)
    colors = b.rules.colors
    before = [b.describe(i) for i in range(3)]
    state_before = b.state.copy()
    actions = np.array([action_id("play R5", colors), action_id("play B2", colors), action_id("play R6", colors)])
    with pytest.raises(IllegalActionError) as err:
        b.step(actions)
    msg = str(err.value)
    assert "'play B2'" in msg and "game 1" in msg and "'play'" in msg
    assert [b.describe(i) for i in range(3)] == before
    assert_same_state(b.state, state_before)
    # and the same actions with the illegal one fixed go through
    actions[1] = action_id("play R6", colors)
    b.step(actions)
    assert [b.describe(i)["hands"][0] for i in range(3)] == [["R6", "B2"], ["R5", "B2"], ["R5", "B2"]]


def test_batch_step_with_skipped_games_and_one_illegal_action_changes_no_game():
    b = _batch_with_deals(4)
    colors = b.rules.colors
    state_before = b.state.copy()
    actions = np.array([-1, action_id("play R5", colors), -1, action_id("color red", colors)])
    with pytest.raises(IllegalActionError, match="'color red' in game 3 in phase 'play'"):
        b.step(actions)
    assert_same_state(b.state, state_before)


def test_batch_step_with_an_unknown_action_id_changes_no_game():
    b = _batch_with_deals(2)
    state_before = b.state.copy()
    with pytest.raises(IllegalActionError, match="'id 99' in game 1"):
        b.step(np.array([action_id("play R5", b.rules.colors), 99]))
    assert_same_state(b.state, state_before)
