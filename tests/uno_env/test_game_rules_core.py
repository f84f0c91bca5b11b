"""Scripted scenarios for the core rules of docs/rules.md: seats and direction, the first card, playability,
drawing, reshuffling, Wild Draw Four and its challenge, going out and scoring, hand size, illegal actions.

Each test deals a scenario (`uno_env.testing.deal`), plays it and asserts the exact outcome.
"""

from __future__ import annotations

from collections import Counter

import pytest

from uno_env import Game, IllegalActionError
from uno_env.testing import act, deal, legal

CLASSIC_DECK = 108


def expect(g, **fields):
    """Assert the given describe() fields exactly (hands compared as multisets), and the invariants."""
    d = g.describe()
    got = {k: d[k] for k in fields}
    if "hands" in fields:
        got["hands"] = [sorted(h) for h in d["hands"]]
        fields["hands"] = [sorted(h) for h in fields["hands"]]
    assert got == fields
    g.check()


def small_deck(*codes):
    """card_counts for a deck holding exactly `codes` (classic kinds)."""
    counts = {rank: 0 for rank in ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "+2")}
    counts.update({"W": 0, "W+4": 0})
    for code, n in Counter(codes).items():
        counts[code] = n
    return counts


def points(*codes):
    """Default classic points of cards: numbers face value, Skip/Reverse/Draw Two 20, wilds 50."""
    total = 0
    for code in codes:
        if code.startswith("W"):
            total += 50
        elif code[1:].isdigit():
            total += int(code[1:])
        else:
            total += 20
    return total


# ---------------------------------------------------------------------------------- seats and direction


def test_play_passes_to_the_left():
    hands = [["R1", "B9"], ["R2", "B9"], ["R3", "B8"], ["R4", "B7"]]
    g = deal("classic", hands, "R5", dealer=3)
    expect(g, seat=0, phase="play", direction=1)
    for seat, card in ((0, "R1"), (1, "R2"), (2, "R3"), (3, "R4")):
        assert g.seat == seat
        g.step(f"play {card}")
    expect(
        g,
        seat=0,
        phase="play",
        direction=1,
        top="R4",
        color="red",
        hands=[["B9"], ["B9"], ["B8"], ["B7"]],
        pile=CLASSIC_DECK - 8 - 1,
        discard=5,
    )


def test_reverse_flips_direction_with_more_than_two_players():
    hands = [["R3", "B1"], ["RR", "B2"], ["RR", "B3"], ["R7", "B4"]]
    g = deal("classic", hands, "R5", dealer=0)
    g.step("play RR")  # seat 1
    expect(g, seat=0, direction=-1, phase="play")
    g.step("play R3")  # seat 0 -> seat 3
    expect(g, seat=3, direction=-1)
    g.step("play R7")  # seat 3 -> seat 2
    expect(g, seat=2, direction=-1)
    g.step("play RR")  # seat 2 flips back -> seat 3
    expect(g, seat=3, direction=1, phase="play", top="RR", hands=[["B1"], ["B2"], ["B3"], ["B4"]])


def test_two_player_reverse_acts_as_skip_by_default():
    g = deal("classic", [["G1", "Y2"], ["RR", "R3", "B3"]], "R5", dealer=0)
    assert g.rules.two_player_reverse_is_skip is True
    g.step("play RR")
    expect(g, seat=1, phase="play", direction=-1, top="RR", hands=[["G1", "Y2"], ["R3", "B3"]])
    g.step("play R3")
    expect(g, seat=0, phase="play", direction=-1, top="R3")


def test_two_player_reverse_without_skip_option():
    hands = [["G1", "Y2"], ["RR", "R3", "B3"]]
    g = deal("classic", hands, "R5", deck=["B7"], dealer=0, two_player_reverse_is_skip=False)
    g.step("play RR")
    expect(g, seat=0, phase="play", direction=-1, top="RR", hands=[["G1", "Y2"], ["R3", "B3"]])
    g.step("draw")  # B7: not playable on a red Reverse, the turn ends
    expect(g, seat=1, phase="play", direction=-1, hands=[["G1", "Y2", "B7"], ["R3", "B3"]])


def test_skip_card_skips_next_player():
    hands = [["R3", "B1"], ["RS", "B2"], ["R7", "B3"]]
    g = deal("classic", hands, "R5", dealer=0)
    g.step("play RS")
    expect(g, seat=0, phase="play", direction=1, top="RS", hands=[["R3", "B1"], ["B2"], ["R7", "B3"]])


def test_draw_two_card_next_player_draws_two_and_is_skipped():
    hands = [["R3", "B1"], ["R+2", "B2"], ["R7", "B3"]]
    g = deal("classic", hands, "R5", deck=["G6", "Y8", "G9"], dealer=0)
    g.step("play R+2")
    expect(
        g,
        seat=0,
        phase="play",
        top="R+2",
        pending_draw=0,
        hands=[["R3", "B1"], ["B2"], ["R7", "B3", "G6", "Y8"]],
        pile=CLASSIC_DECK - 6 - 1 - 2,
    )


# ------------------------------------------------------------------------------------------ first card

FOUR_HANDS = [["G1", "Y2"], ["B3", "Y4"], ["G5", "B6"], ["Y7", "G8"]]


def test_first_card_number():
    g = deal("classic", FOUR_HANDS, "R5", dealer=2)
    expect(
        g,
        seat=3,
        phase="play",
        top="R5",
        color="red",
        direction=1,
        hands=FOUR_HANDS,
        pile=CLASSIC_DECK - 8 - 1,
        discard=1,
        pending_draw=0,
    )


def test_first_card_skip_skips_first_player():
    g = deal("classic", FOUR_HANDS, "BS", dealer=1)
    expect(g, seat=3, phase="play", top="BS", color="blue", direction=1, hands=FOUR_HANDS, pile=CLASSIC_DECK - 9)


def test_first_card_reverse_dealer_plays_first():
    hands = [["G1", "Y2"], ["Y3", "B4"], ["G5", "B6"], ["Y7", "G8"]]
    g = deal("classic", hands, "YR", dealer=1)
    expect(g, seat=1, phase="play", top="YR", color="yellow", direction=-1, hands=hands, pile=CLASSIC_DECK - 9)
    g.step("play Y3")
    expect(g, seat=0, phase="play", direction=-1, top="Y3")


def test_first_card_draw_two_first_player_draws_and_is_skipped():
    hands = [["G1", "Y2"], ["Y3", "B4"], ["R9", "Y1"]]
    g = deal("classic", hands, "R+2", deck=["B3", "G4", "Y9"], dealer=0)
    expect(
        g,
        seat=2,
        phase="play",
        top="R+2",
        color="red",
        direction=1,
        hands=[["G1", "Y2"], ["Y3", "B4", "B3", "G4"], ["R9", "Y1"]],
        pile=CLASSIC_DECK - 6 - 1 - 2,
        pending_draw=0,
    )
    assert sorted(legal(g)) == ["draw", "play R9"]


def test_first_card_draw_two_cannot_be_stacked_on():
    hands = [["G1", "Y2"], ["B+2", "G+2", "B4"], ["R9", "Y1"]]
    g = deal("classic", hands, "R+2", deck=["B3", "G4", "Y9"], dealer=0, stack_draw_two=True)
    expect(
        g,
        seat=2,
        phase="play",
        top="R+2",
        hands=[["G1", "Y2"], ["B+2", "G+2", "B4", "B3", "G4"], ["R9", "Y1"]],
        pile=CLASSIC_DECK - 7 - 1 - 2,
        pending_draw=0,
    )
    assert sorted(legal(g)) == ["draw", "play R9"]
    g.step("play R9")
    expect(g, seat=0, phase="play", pending_draw=0, hands=[["G1", "Y2"], ["B+2", "G+2", "B4", "B3", "G4"], ["Y1"]])


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_first_card_wild_draw_four_goes_back_below_placed_cards(seed):
    hands = [["Y1"], ["Y2"], ["Y3"]]
    deck = ["R5", "B3", "G7"]
    g = deal("classic", hands, "W+4", deck=deck, dealer=0, seed=seed, card_counts={"W+4": 1})
    assert g.rules.deck_size == 105
    expect(
        g,
        seat=1,
        phase="play",
        top=deck[0],
        color="red",
        direction=1,
        hands=hands,
        pile=105 - 3 - 1,  # every card but the hands and the new top, the Wild Draw Four included
        discard=1,
    )
    st = g.batch.state[0]
    pile = [g.batch.codes[int(k)] for k in st.draw_pile[: st.draw_len]]  # bottom first
    assert pile[-1] == "B3" and pile[-2] == "G7"  # the rest of the placed cards, still on top, in order
    assert pile.count("W+4") == 1
    assert pile.index("W+4") < len(pile) - 2
    # drawing shows it: the next cards drawn are the placed ones
    g.step("draw")  # seat 1 draws B3 (not playable on R5): turn ends
    expect(g, seat=2, hands=[["Y1"], ["Y2", "B3"], ["Y3"]])


WILD_FIRST_CARDS = [
    ("classic", "W"),
    ("unocorns", "WN"),
    ("monster_high", "WU"),
    ("emoji", "WE"),
    ("emoji", "WC"),
    ("swap", "WS"),
]


@pytest.mark.parametrize(("preset", "wild"), WILD_FIRST_CARDS)
def test_first_card_other_wild_first_player_chooses_colour_then_plays(preset, wild):
    slot0 = "P" if preset in ("unocorns", "monster_high") else "R"
    colors = ["pink" if slot0 == "P" else "red", "blue", "green", "yellow"]
    hands = [["G1", "Y2"], ["B4", f"{slot0}4", "G9"], ["Y3", f"{slot0}7"]]
    g = deal(preset, hands, wild, dealer=0)
    expect(
        g,
        seat=1,
        phase="color",
        top=wild,
        color=None,
        direction=1,
        hands=hands,
        foreheads=[[], [], []],
        discard=1,
        pile=g.rules.deck_size - 7 - 1,
    )
    assert sorted(legal(g)) == sorted(f"color {c}" for c in colors)
    g.step("color blue")
    expect(g, seat=1, phase="play", top=wild, color="blue", hands=hands, foreheads=[[], [], []])
    assert sorted(legal(g)) == ["draw", "play B4"]
    g.step("play B4")
    expect(g, seat=2, phase="play", top="B4", color="blue")


# ------------------------------------------------------------------------------------------ playability


def test_playable_by_colour_number_and_wild():
    hand = ["R9", "B5", "G7", "Y1", "BS", "W", "W+4", "G+2"]
    g = deal("classic", [["G1"], hand], "R5", dealer=0)
    expect(g, seat=1, phase="play")
    assert sorted(legal(g)) == ["draw", "play B5", "play R9", "play W", "play W+4"]


@pytest.mark.parametrize(
    ("top", "match"),
    [("RS", "play BS"), ("RR", "play GR"), ("R+2", "play Y+2")],
)
def test_playable_by_symbol(top, match):
    # With two players and dealer 0, each of these first cards leaves seat 0 to play on it.
    hand = ["BS", "GR", "Y+2", "B5", "G1"]
    g = deal("classic", [hand, ["Y9"]], top, dealer=0)
    expect(g, seat=0, phase="play", top=top, color="red")
    assert sorted(legal(g)) == sorted(["draw", match])


def test_after_a_wild_only_the_chosen_colour_matches():
    hands = [["G1"], ["W", "Y3"], ["R5", "R7", "B2", "G5", "YS", "W", "W+4"]]
    g = deal("classic", hands, "R5", dealer=0)
    act(g, "play W", "color blue")
    expect(g, seat=2, phase="play", top="W", color="blue")
    assert sorted(legal(g)) == ["draw", "play B2", "play W", "play W+4"]


# ---------------------------------------------------------------------------------------------- drawing


def test_voluntary_draw_of_playable_card_then_keep_it():
    g = deal("classic", [["G1", "Y2"], ["R9", "B2"]], "R5", deck=["G5", "Y8"], dealer=0)
    assert sorted(legal(g)) == ["draw", "play R9"]
    g.step("draw")  # even with R9 playable
    expect(g, seat=1, phase="drawn", hands=[["G1", "Y2"], ["R9", "B2", "G5"]], pile=CLASSIC_DECK - 4 - 1 - 1)
    assert sorted(legal(g)) == ["pass", "play G5"]
    before = g.describe()
    for action in ("play R9", "draw"):  # only the drawn card may be played; no second draw
        with pytest.raises(IllegalActionError):
            g.step(action)
    assert g.describe() == before
    g.step("pass")
    expect(
        g,
        seat=0,
        phase="play",
        top="R5",
        color="red",
        hands=[["G1", "Y2"], ["R9", "B2", "G5"]],
        pile=CLASSIC_DECK - 6,
        discard=1,
    )


def test_voluntary_draw_of_playable_card_then_play_it():
    g = deal("classic", [["G1", "Y2"], ["R9", "B2"]], "R5", deck=["G5", "Y8"], dealer=0)
    act(g, "draw", "play G5")
    expect(
        g,
        seat=0,
        phase="play",
        top="G5",
        color="green",
        hands=[["G1", "Y2"], ["R9", "B2"]],
        pile=CLASSIC_DECK - 6,
        discard=2,
    )


def test_drawn_card_not_playable_ends_turn():
    g = deal("classic", [["G1", "Y2"], ["R9", "Y2"]], "R5", deck=["B7", "Y8"], dealer=0)
    g.step("draw")
    expect(
        g,
        seat=0,
        phase="play",
        top="R5",
        color="red",
        hands=[["G1", "Y2"], ["R9", "Y2", "B7"]],
        pile=CLASSIC_DECK - 6,
    )


# ------------------------------------------------------------------------------------------- reshuffle


def test_reshuffle_discard_pile_but_top_into_draw_pile():
    cards = ["R5", "G7", "R3", "B9", "Y2", "Y3"]
    g = deal(
        "classic",
        [["Y2", "Y3"], ["R3", "B9"]],
        "R5",
        deck=["G7"],
        dealer=0,
        hand_size=1,
        card_counts=small_deck(*cards),
    )
    expect(g, seat=1, pile=1, discard=1)
    g.step("play R3")
    expect(g, seat=0, pile=1, discard=2, top="R3")
    g.step("draw")  # seat 0 draws G7, the last card: not playable, turn ends
    expect(g, seat=1, phase="play", pile=0, discard=2, hands=[["Y2", "Y3", "G7"], ["B9"]])
    g.step("draw")  # empty draw pile: the discard pile but R3 (that is, R5) becomes the draw pile
    expect(g, seat=1, phase="drawn", pile=0, discard=1, top="R3", color="red", hands=[["Y2", "Y3", "G7"], ["B9", "R5"]])
    assert sorted(legal(g)) == ["pass", "play R5"]


def test_reshuffle_several_cards_keeps_top():
    cards = ["R5", "R3", "R4", "R6", "B9", "G7", "Y2", "Y3", "G1"]
    hands = [["R4", "Y2", "Y3"], ["R3", "R6", "B9", "G1"]]
    g = deal("classic", hands, "R5", deck=["G7"], dealer=0, hand_size=1, card_counts=small_deck(*cards))
    act(g, "play R3", "play R4", "play R6")
    expect(g, seat=0, pile=1, discard=4, top="R6")
    g.step("draw")  # G7: not playable on R6
    expect(g, seat=1, phase="play", pile=0, hands=[["Y2", "Y3", "G7"], ["B9", "G1"]])
    g.step("draw")  # new draw pile: R5, R3, R4 (shuffled); one of them is drawn, all playable on red
    d = g.describe()
    assert (d["pile"], d["discard"], d["top"], d["phase"], d["seat"]) == (2, 1, "R6", "drawn", 1)
    drawn = sorted(set(d["hands"][1]) - {"B9", "G1"})
    assert len(d["hands"][1]) == 3 and len(drawn) == 1 and drawn[0] in ("R3", "R4", "R5")
    g.check()


def test_both_piles_empty_draw_gets_nothing_and_play_goes_on():
    cards = ["R5", "R3", "B9", "Y2", "Y3"]
    g = deal("classic", [["Y2", "Y3"], ["R3", "B9"]], "R5", dealer=0, hand_size=1, card_counts=small_deck(*cards))
    expect(g, seat=1, pile=0, discard=1)
    g.step("draw")  # the discard pile is only its top: nothing to draw
    expect(g, seat=0, phase="play", pile=0, discard=1, top="R5", hands=[["Y2", "Y3"], ["R3", "B9"]])
    g.step("draw")
    expect(g, seat=1, phase="play", pile=0, discard=1, hands=[["Y2", "Y3"], ["R3", "B9"]])


def test_draw_two_with_almost_empty_piles_draws_what_there_is():
    cards = ["R5", "R+2", "B9", "Y2", "Y3"]
    g = deal("classic", [["Y2", "Y3"], ["R+2", "B9"]], "R5", dealer=0, hand_size=1, card_counts=small_deck(*cards))
    g.step("play R+2")  # seat 0 must draw 2: R5 (the reshuffled discard pile), then nothing; and is skipped
    expect(g, seat=1, phase="play", pile=0, discard=1, top="R+2", hands=[["Y2", "Y3", "R5"], ["B9"]])


# ------------------------------------------------------------------------------------- Wild Draw Four


def test_wild_draw_four_legal_only_without_active_colour_when_challenges_off():
    # number matches (B5), symbol matches and wild cards do not count
    g = deal("classic", [["G1"], ["W+4", "B5", "W", "GS"]], "R5", dealer=0, challenge_wild_draw_four=False)
    assert sorted(legal(g)) == ["draw", "play B5", "play W", "play W+4"]
    g = deal("classic", [["G1"], ["W+4", "R9", "B5"]], "R5", dealer=0, challenge_wild_draw_four=False)
    assert sorted(legal(g)) == ["draw", "play B5", "play R9"]
    before = g.describe()
    with pytest.raises(IllegalActionError):
        g.step("play W+4")
    assert g.describe() == before


def test_wild_draw_four_may_be_played_illegally_with_challenges():
    g = deal("classic", [["G1"], ["W+4", "R9", "B5"]], "R5", dealer=0)
    assert sorted(legal(g)) == ["draw", "play B5", "play R9", "play W+4"]


def test_drawn_wild_draw_four_not_playable_when_illegal_and_challenges_off():
    g = deal("classic", [["G1"], ["R9", "B5"]], "R5", deck=["W+4"], dealer=0, challenge_wild_draw_four=False)
    g.step("draw")
    expect(g, seat=0, phase="play", hands=[["G1"], ["R9", "B5", "W+4"]])


W4_DECK = ["B1", "B2", "B3", "B4", "G1", "G2", "G3", "G4"]


def test_wild_draw_four_accepted():
    hands = [["R1"], ["W+4", "R9", "Y7"], ["G5", "Y5"]]
    g = deal("classic", hands, "R5", deck=W4_DECK, dealer=0)
    act(g, "play W+4", "color green")
    expect(g, seat=2, phase="challenge", top="W+4", color="green")
    assert sorted(legal(g)) == ["accept", "challenge"]
    g.step("accept")
    expect(
        g,
        seat=0,
        phase="play",
        top="W+4",
        color="green",
        hands=[["R1"], ["R9", "Y7"], ["G5", "Y5", "B1", "B2", "B3", "B4"]],
        pile=CLASSIC_DECK - 6 - 1 - 4,
    )


def test_wild_draw_four_challenged_guilty():
    hands = [["R1"], ["W+4", "R9", "Y7"], ["G5", "Y5"]]
    g = deal("classic", hands, "R5", deck=W4_DECK, dealer=0)
    act(g, "play W+4", "color green", "challenge")
    expect(
        g,
        seat=2,
        phase="play",
        top="W+4",
        color="green",
        hands=[["R1"], ["R9", "Y7", "B1", "B2", "B3", "B4"], ["G5", "Y5"]],
        pile=CLASSIC_DECK - 6 - 1 - 4,
    )
    assert sorted(legal(g)) == ["draw", "play G5"]
    g.step("play G5")
    expect(g, seat=0, phase="play", top="G5")


def test_wild_draw_four_challenged_innocent():
    # B5 matches the number, W and GS are no red card: innocent
    hands = [["R1"], ["W+4", "B5", "W", "GS"], ["G5", "Y5"]]
    g = deal("classic", hands, "R5", deck=W4_DECK, dealer=0)
    act(g, "play W+4", "color yellow", "challenge")
    expect(
        g,
        seat=0,
        phase="play",
        top="W+4",
        color="yellow",
        hands=[["R1"], ["B5", "W", "GS"], ["G5", "Y5", "B1", "B2", "B3", "B4", "G1", "G2"]],
        pile=CLASSIC_DECK - 7 - 1 - 6,
    )


def test_wild_draw_four_without_challenges_next_draws_four_and_is_skipped():
    hands = [["R1"], ["W+4", "B9", "Y7"], ["G5", "Y5"]]
    g = deal("classic", hands, "R5", deck=W4_DECK, dealer=0, challenge_wild_draw_four=False)
    act(g, "play W+4", "color blue")
    expect(
        g,
        seat=0,
        phase="play",
        top="W+4",
        color="blue",
        hands=[["R1"], ["B9", "Y7"], ["G5", "Y5", "B1", "B2", "B3", "B4"]],
        pile=CLASSIC_DECK - 6 - 1 - 4,
    )


# ------------------------------------------------------------------------------------------- going out


def test_going_out_wins_and_scores_the_others_cards():
    hands = [["R1", "YS", "W"], ["R3"], ["G4", "B+2", "Y9"]]
    g = deal("classic", hands, "R5", dealer=0, scores=[10, 20, 30])
    g.step("play R3")
    assert points("R1", "YS", "W", "G4", "B+2", "Y9") == 1 + 20 + 50 + 4 + 20 + 9
    expect(
        g,
        done=True,
        phase="over",
        winners=[1],
        scores=[10, 20 + 104, 30],
        top="R3",
        hands=[["R1", "YS", "W"], [], ["G4", "B+2", "Y9"]],
    )
    assert g.done and g.winners == [1] and g.legal_actions() == []


def test_going_out_on_draw_two_next_player_still_draws():
    hands = [["R1", "YS"], ["R+2"], ["G4", "W"]]
    g = deal("classic", hands, "R5", deck=["Y7", "B+2", "G9"], dealer=0)
    g.step("play R+2")
    # seat 2 draws Y7, B+2 before points: 1 + 20 + 4 + 50 + 7 + 20 = 102
    expect(
        g,
        done=True,
        phase="over",
        winners=[1],
        scores=[0, 102, 0],
        top="R+2",
        hands=[["R1", "YS"], [], ["G4", "W", "Y7", "B+2"]],
        pile=CLASSIC_DECK - 5 - 1 - 2,
    )


def test_going_out_on_wild_draw_four_next_player_still_draws():
    # first card Reverse: dealer 1 plays first and the next player is seat 0
    hands = [["G4", "W"], ["W+4"], ["R1", "YS"]]
    g = deal("classic", hands, "RR", deck=["R9", "B0", "GS", "W", "Y3"], dealer=1)
    expect(g, seat=1, direction=-1, phase="play")
    g.step("play W+4")
    # seat 0: 4 + 50 + 9 + 0 + 20 + 50 = 133; seat 2: 1 + 20 = 21
    expect(
        g,
        done=True,
        phase="over",
        winners=[1],
        scores=[0, 154, 0],
        top="W+4",
        hands=[["G4", "W", "R9", "B0", "GS", "W"], [], ["R1", "YS"]],
        pile=CLASSIC_DECK - 5 - 1 - 4,
    )


# ------------------------------------------------------------------------------------------- hand size


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_hand_size_option(seed):
    g = Game("classic", 3, seed=seed, hand_size=5)
    d = g.describe()
    first = (d["dealer"] + 1) % 3
    extra = 2 if d["top"].endswith("+2") else 0  # a first Draw Two: the first player drew 2
    sizes = [5, 5, 5]
    sizes[first] += extra
    assert [len(h) for h in d["hands"]] == sizes
    assert d["pile"] == CLASSIC_DECK - 15 - 1 - extra
    assert d["discard"] == 1
    g.check()


# ------------------------------------------------------------------------------------- illegal actions


def _to_phase(phase):
    """A game whose deciding seat is in `phase`."""
    hands = [["R1"], ["W+4", "B9", "Y7", "W"], ["G5", "Y5"]]
    g = deal("classic", hands, "R5", deck=["R2", "G2", "B3", "B4", "G1", "G3"], dealer=0)
    script = {
        "play": [],
        "color": ["play W"],
        "challenge": ["play W+4", "color green"],
        "drawn": ["draw"],
    }
    if phase == "over":
        g = deal("classic", [["G1"], ["R3"]], "R5", dealer=0)
        act(g, "play R3")
    else:
        act(g, *script[phase])
    assert g.phase == phase
    return g


@pytest.mark.parametrize(
    ("phase", "action"),
    [
        ("play", "play G5"),  # not in hand
        ("play", "play Y7"),  # in hand, not playable
        ("play", "pass"),
        ("play", "challenge"),
        ("color", "play B9"),
        ("color", "draw"),
        ("challenge", "draw"),
        ("challenge", "color red"),
        ("drawn", "draw"),
        ("drawn", "play B9"),
        ("over", "draw"),
    ],
)
def test_illegal_action_is_refused_and_changes_nothing(phase, action):
    g = _to_phase(phase)
    before = g.describe()
    with pytest.raises(IllegalActionError) as err:
        g.step(action)
    message = str(err.value)
    assert f"'{action}'" in message
    assert f"'{phase}'" in message
    assert g.describe() == before
    g.check()
