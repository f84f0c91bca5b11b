"""The text face (`uno_env.text`): the prompt says the rules, the table as the seat sees it and the legal moves in
order; the parser reads numbers, markers and moves in words and refuses what names no legal move; and a seat's
prompt never changes with what it cannot see (like the observation leak tests)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from uno_env import Game, GameBatch, make_rules
from uno_env import cards as C
from uno_env.testing import deal
from uno_env.text import PROMPT_FORMAT, legal_moves, parse, prompt, read_reply, rules_brief


def moves_list(text: str) -> list[str]:
    """The numbered lines of a prompt, as '<name>' strings in order."""
    return [line.split(". ", 1)[1].split(":", 1)[0] for line in text.splitlines() if line[:1].isdigit()]


# ------------------------------------------------------------------------------------------ the prompt


def test_the_prompt_shows_the_seat_its_hand_the_table_and_the_legal_moves_numbered():
    game = deal("classic", [["R5", "R7", "B2", "W"], ["G1", "G2", "Y3"]], top="R1")
    text = prompt(game, 0)
    assert "player_0 (you): your hand (4 cards): R5 R7 B2 W" in text
    assert "player_1: 3 cards in hand" in text and "G1" not in text and "Y3" not in text
    assert "Top of the discard pile: R1 (red 1); active colour: red." in text
    assert moves_list(text) == game.legal_actions() == ["play R5", "play R7", "play W", "draw"]
    assert "1. play R5: play red 5" in text and "4. draw: draw a card" in text
    assert text.endswith("\n\nChoose one move. Think first if you like, then end with a line 'MOVE: <number>' "
                         "(1 to 4).")
    assert "The game is one round" in text and "UNO is called for you" in text


def test_the_rules_in_brief_follow_the_variant_options_and_episode():
    brief = "\n".join(rules_brief(make_rules("swap"), 2, "match"))
    assert "Wild Swap" in brief and "stacking" in brief and "Wild Customizable" in brief
    assert "first to 500 points" in brief and "WC WS 40" in brief  # swap's own card points
    assert "also skips the other player" in brief
    classic = "\n".join(rules_brief(make_rules("classic", challenge_wild_draw_four=False, uno_call="explicit"), 3))
    assert "may be played only when you hold no card of the active colour" in classic and "challenge" not in classic
    assert "call UNO or not" in classic or "decide whether to call UNO" in classic
    assert "Narwhal" not in classic and "also skips" not in classic
    mixed = "\n".join(rules_brief(make_rules("classic", card_counts={"WN": 4}), 2))  # a Narwhal in a classic deck
    assert "Wild Narwhal Rule" in mixed and "forehead" in mixed
    penalty = "\n".join(rules_brief(make_rules("classic", scoring="penalty", target_score=100), 2, "match"))
    assert "lowest tally wins" in penalty and "reaches 100" in penalty


def test_each_phase_words_its_moves():
    drawn = deal("classic", [["R5", "B2"], ["G1", "G2"]], top="Y1", deck=["Y7"])
    drawn.step("draw")
    text = prompt(drawn, 0)
    assert "You just drew Y7 (yellow 7)." in text
    assert "play Y7: play the card you just drew, yellow 7" in text and "pass: keep the card you drew" in text
    color = deal("classic", [["W", "B2"], ["G1", "G2"]], top="R1")
    color.step("play W")
    assert "color blue: make blue the active colour" in prompt(color, 0)
    challenged = deal("classic", [["W+4", "R2", "B2"], ["G1", "G2", "G3"]], top="R1")
    challenged.step("play W+4")
    challenged.step("color blue")
    text = prompt(challenged, 1)
    assert "challenge: challenge the Wild Draw Four (the colour before it was red)" in text
    assert "accept: accept: draw 4 and lose your turn" in text
    assert "Recent moves this round, oldest first: player_0 play W+4; player_0 color blue." in text


def test_a_match_prompt_shows_scores_and_the_seat_may_only_be_the_deciding_one():
    game = Game("classic", 3, seed=4, episode="match")
    text = prompt(game, game.seat)
    assert "score 0" in text and "first to 500 points" in text
    other = (game.seat + 1) % 3
    with pytest.raises(ValueError, match=f"seat {other} does not decide now: player_{game.seat} does"):
        prompt(game, other)
    with pytest.raises(ValueError, match="seat must be a seat from 0 to 2"):
        prompt(game, 3)
    over = deal("classic", [["R5"], ["G1", "G2"]], top="R1")
    over.step("play R5")
    with pytest.raises(ValueError, match="the game is over"):
        prompt(over, 0)


def test_a_forehead_card_is_shown_to_the_others_and_hidden_from_its_owner():
    game = deal("classic", [["R5", "B2"], ["G1", "G2"], ["Y1", "Y2"]], top="R1", foreheads=[["B7"], ["G9"], []])
    text = prompt(game, 0)
    assert "forehead cards (yours are hidden from you): ??" in text and "B7" not in text
    assert "player_1: 2 cards in hand; forehead cards: G9" in text


def test_a_prompt_works_on_a_game_of_a_batch():
    batch = GameBatch("emoji", 4, 3)
    batch.reset(11)
    for g in range(3):
        text = prompt(batch, int(batch.seat[g]), g)
        assert len(moves_list(text)) == int(batch.legal_masks()[g].sum())


# ------------------------------------------------------------------------------------------ the parser


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("2", "play R7"),
        ("**3**", "play W"),
        ("3.", "play W"),
        ("2. play R7", "play R7"),
        ("I hold two reds. Playing the wild now wastes it.\nMOVE: 1", "play R5"),
        ("Final answer: 4", "draw"),
        ("MOVE:\n2", "play R7"),
        ("**MOVE:** 4 (draw)", "draw"),
        ("move = 1", "play R5"),
        ("I will play R7.", "play R7"),
        ("play red 5", "play R5"),
        ("The wild card, of course: play W", "play W"),
        ("I'll just draw a card.", "draw"),
        ("MOVE: play r5", "play R5"),
        ("I could play R5 or R7... MOVE: 2", "play R7"),  # the marker settles it
    ],
)
def test_parse_reads_numbers_markers_and_moves_in_words(reply, expected):
    game = deal("classic", [["R5", "R7", "B2", "W"], ["G1", "G2", "Y3"]], top="R1")
    assert parse(reply, game, 0) == game.action_id(expected)


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("", "the reply is empty"),
        ("   ", "the reply is empty"),
        ("MOVE: 5", "there is no move 5: the moves are numbered 1 to 4"),
        ("0", "there is no move 0"),
        ("MOVE: 99999999999999999999", "there is no move"),
        ("I like turtles", "it names no legal move"),
        ("play B2", "it names no legal move"),  # in the hand, but not legal on R1
        ("play R5 or R7", "it names several moves ('play R5', 'play R7')"),
        ("MOVE: <number>", "it names no legal move"),
    ],
)
def test_parse_refuses_what_names_no_legal_move_and_says_why(reply, why):
    game = deal("classic", [["R5", "R7", "B2", "W"], ["G1", "G2", "Y3"]], top="R1")
    assert parse(reply, game, 0) is None
    action, reason = read_reply(reply, legal_moves(game, 0))
    assert action is None and why in reason and "\n" not in reason


def test_the_longest_phrase_wins_and_phase_words_are_understood():
    game = deal("classic", [["W+4", "W", "B2"], ["G1", "G2"]], top="R1")
    assert parse("wild draw four", game, 0) == C.WILD_DRAW_FOUR  # not "wild" and "draw"
    assert parse("Wild", game, 0) == C.WILD
    drawn = deal("classic", [["R5", "B2"], ["G1", "G2"]], top="Y1", deck=["Y7"])
    drawn.step("draw")
    assert parse("I'll keep it", drawn, 0) == drawn.action_id("pass")
    assert parse("Play it!", drawn, 0) == drawn.action_id("play Y7")
    color = deal("classic", [["W", "B2"], ["G1", "G2"]], top="R1")
    color.step("play W")
    assert parse("Blue, since I hold B2.", color, 0) == color.action_id("color blue")  # B2 is no move here
    assert parse("I choose blue", color, 0) == color.action_id("color blue")
    assert parse("colour GREEN", color, 0) == color.action_id("color green")


def test_a_rank_alone_names_the_legal_card_of_that_rank_unless_there_are_several():
    game = deal("classic", [["R+2", "RS", "GS", "R3", "G+2"], ["G1", "G2"]], top="R1")
    assert parse("I play the draw two", game, 0) == game.action_id("play R+2")  # not "draw": the longest wins
    assert parse("+2", game, 0) == game.action_id("play R+2")
    assert parse("skip", game, 0) == game.action_id("play RS")  # GS is not legal on R1
    assert parse("I will not draw; I play the Draw Two", game, 0) is None  # both named: no guessing at negation
    skips = deal("classic", [["RS", "GS", "B3"], ["G1", "G2"]], top="YS", dealer=0)  # seat 1 is skipped
    assert parse("the red skip", skips, 0) == skips.action_id("play RS")
    action, why = read_reply("skip", legal_moves(skips, 0))
    assert action is None and why == "it names several moves ('play RS', 'play GS'): name one"


def test_a_huge_reply_is_read_from_its_end_quickly():
    game = deal("classic", [["R5", "R7", "B2", "W"], ["G1", "G2", "Y3"]], top="R1")
    reply = "play R5 " * 1_000_000 + "\nMOVE: 2"  # 8 MB
    assert parse(reply, game, 0) == game.action_id("play R7")
    with pytest.raises(TypeError, match="a reply is a str"):
        parse(b"2", game, 0)


MB = 1_000_000
#: replies of about a megabyte shaped to make a backtracking parser slow (it reads the last 20,000 characters)
ADVERSARIAL = {
    "spaces": " " * MB,
    "marker-spaces": "x " * (MB // 2) + "MOVE" + " " * 19_990 + ".",  # a marker word, then whitespace to the end
    "marker-newlines": "x " * (MB // 2) + "answer" + "\n" * 19_990 + "?",
    "markers-spaced": ("move" + " " * 5_000) * 200,  # many marker words, each before a long run
    "markers-mixed": ("choice\t\n " * 2_000 + "x") * 40,
    "move-words": "move " * 200_000,  # partial matches everywhere
    "markers": "MOVE: " * 170_000,
    "digits": "1" * MB,
    "stars-digits": "*" * (MB // 2) + "1" * (MB // 2) + ")",
    "digit-spaces": "1" + " " * MB + "x",
    "phrase-starts": "play r" * 170_000,
    "phrases": "wild draw " * 100_000,
    "separators": " _-" * 340_000 + "play R5",
}


@pytest.mark.parametrize("reply", ADVERSARIAL.values(), ids=ADVERSARIAL.keys())
def test_an_adversarial_reply_of_a_megabyte_is_read_in_linear_time(reply):
    game = deal("classic", [["R5", "R7", "B2", "W", "W+4", "RS", "R+2"], ["G1", "G2", "Y3"]], top="R1")
    moves = legal_moves(game, 0)
    start = time.perf_counter()
    action, why = read_reply(reply, moves)
    assert time.perf_counter() - start < 0.5  # a quadratic reading of 20,000 characters takes seconds
    assert (action is None) != (why == "") and action in {None, *game.legal_action_ids()}


def test_the_format_has_a_name():
    assert PROMPT_FORMAT.startswith("uno-env-text-")


# ------------------------------------------------------------------------------------------ blindness


@pytest.mark.parametrize(
    ("variant", "players", "options"),
    [("classic", 2, {}), ("unocorns", 3, {}), ("monster_high", 4, {}), ("emoji", 3, {}), ("swap", 2, {}),
     ("classic", 3, {"uno_call": "explicit", "stack_draw_two": True})],
)  # fmt: skip
def test_a_seats_prompt_never_changes_with_what_it_cannot_see(variant, players, options):
    """Redeal everything the deciding seat cannot see (other hands, the draw pile, its own forehead cards): the
    prompt stays the same, character for character; and the redeals did change hidden cards."""
    changed = compared = 0
    batch = GameBatch(variant, players, 8, episode="match", **options)
    batch.reset(101)
    rng = np.random.default_rng(1)
    for _ in range(50):
        masks = batch.legal_masks()
        for g in range(batch.batch_size):
            if batch.done[g]:
                continue
            seat = int(batch.seat[g])
            world = batch.copy()
            world.resample_hidden(g, int(rng.integers(2**62)))
            assert prompt(world, seat, g) == prompt(batch, seat, g), f"game {g}: a redeal changed the prompt"
            changed += not np.array_equal(world.state.hand[g], batch.state.hand[g])
            compared += 1
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else -1 for m in masks])
        batch.step(actions)
    assert changed > compared / 2  # the worlds compared really differed


def test_the_prompt_the_docs_show_is_the_one_the_code_gives():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "text-agents.md").read_text()
    shown = page.split("<!-- prompt:start -->\n```text\n", 1)[1].split("```\n<!-- prompt:end -->", 1)[0]
    game = Game("classic", 3, seed=2)
    for _ in range(3):
        game.step(game.legal_action_ids()[0])
    assert shown == prompt(game, game.seat) + "\n"


def test_any_reply_gives_a_legal_move_or_none():
    """Fuzzed replies (any text, and text around numbers and move names) never fail and never name an illegal move."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    game = deal("classic", [["R5", "R7", "B2", "W", "W+4", "RS"], ["G1", "G2", "Y3"]], top="R1")
    legal = set(game.legal_action_ids())
    words = st.sampled_from(["MOVE:", "move", "answer:", "2", "9", "**", "play", "R5", "red", "wild", "draw", "four",
                             "skip", "\n", " ", ".", "keep", "+2", "w+4", "B2", "0", "-1", "#"])  # fmt: skip
    replies = st.text() | st.lists(words, max_size=12).map(" ".join)

    @settings(max_examples=400, deadline=None)
    @given(replies)
    def check(reply):
        action = parse(reply, game, 0)
        assert action is None or action in legal

    check()
