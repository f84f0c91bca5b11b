"""uno-play, driven through its input: whole games, bad entries, hidden forehead cards, narration, CLI errors."""

import io
import re

import numpy as np
import pytest
from conftest import scripted_input
from rich.console import Console

from uno_env import Game
from uno_env.agents import GreedyAgent, NaiveAgent
from uno_env.play.terminal import TerminalGame, main


def plain_console():
    return Console(file=io.StringIO(), width=200, highlight=False)


def output(console):
    return console.file.getvalue()


def score_table(text, title):
    """{player label: score} from the last table titled `title`."""
    block = text.rsplit(title, 1)[1].splitlines()[2:]
    scores = {}
    for row in block:
        match = re.match(r"^(You \(player \d+\)|Player \d+ \(\w+\))\s+(\d+)$", row.strip())
        if not match:
            break
        scores[match.group(1)] = int(match.group(2))
    return scores


def test_a_scripted_game_runs_to_its_end_and_prints_the_engines_scores():
    game = Game("classic", 3, seed=4)
    console = plain_console()
    opponents = {1: ("greedy", GreedyAgent(1)), 2: ("naive", NaiveAgent(2))}
    code = TerminalGame(game, 0, opponents, console, scripted_input(then="1")).run()
    text = output(console)
    assert code == 0 and game.done and not game.truncated
    assert "Traceback" not in text and "Bye" not in text and "\x1b[" not in text
    assert re.search(r"Player 1 \(greedy\) plays [RBGY]", text) and re.search(r"Player 2 \(naive\) plays", text)
    scores = score_table(text, "Round scores")
    assert list(scores.values()) == game.scores
    (winner,) = game.winners
    who = "You" if winner == 0 else f"Player {winner} \\(\\w+\\)"
    assert re.search(rf"{who} wins? the round and scores? {game.scores[winner]} points", text)


def test_a_match_announces_every_round_and_the_final_scores():
    console = plain_console()
    code = main(["--episode", "match", "--option", "target_score=120", "--seed", "3", "--opponents", "naive"],
                input_fn=scripted_input(then="1"), console=console)  # fmt: skip
    text = output(console)
    assert code == 0
    assert "Round 1:" in text and "Round 2:" in text
    assert text.count("Scores") >= 2 and "Final scores" in text
    final = score_table(text, "Final scores")
    assert max(final.values()) >= 120
    assert re.search(r"(You win the match!|Player 1 \(naive\) wins the match\.)", text)


def test_bad_entries_ask_again_until_a_legal_choice():
    deal = {"dealer": 1, "hands": [["R5", "B7"], ["G2", "G3"]], "top": "R1", "deck": ["Y4"]}
    game = Game("classic", 2, deal=deal)
    console = plain_console()
    entries = ["", "7", "0", "purple", "play B7", "B7", "?", "r5", "q"]
    code = TerminalGame(game, 0, {1: ("greedy", GreedyAgent(0))}, console, scripted_input(*entries)).run()
    text = output(console)
    assert code == 0 and text.rstrip().endswith("Bye.")
    assert "Type a number from 1 to 2" in text
    assert "7 is not on the list: choose from 1 to 2." in text and "0 is not on the list" in text
    assert "'purple' is neither a number on the list nor an action" in text
    assert text.count("'play B7' is not legal now") == 2  # by name and as a bare card code
    assert "You play R5" in text  # a bare card code, in any case
    assert text.count("Your hand: R5 B7") == 2  # ? shows the table again
    assert "Traceback" not in text


def test_a_game_cut_off_by_its_step_limit_says_so():
    game = Game("classic", 2, seed=1, max_steps=6)
    console = plain_console()
    assert TerminalGame(game, 0, {1: ("greedy", GreedyAgent(0))}, console, scripted_input(then="1")).run() == 0
    assert game.truncated and "The game was cut off: it reached its step limit." in output(console)


def test_penalty_scoring_adds_each_players_points_to_its_tally():
    console = plain_console()
    argv = ["--episode", "match", "--option", "scoring=penalty", "--option", "target_score=200", "--seed", "5"]
    assert main(argv, input_fn=scripted_input(then="1"), console=console) == 0
    text = output(console)
    rounds = len(re.findall(r"^Round \d+:", text, flags=re.M))
    assert rounds >= 2 and text.count("Points left in the hands, added to each tally") == rounds
    final = score_table(text, "Final scores")
    assert max(final.values()) >= 200
    (lowest,) = [who for who, score in final.items() if score == min(final.values())]
    assert re.search(rf"{'You win' if lowest.startswith('You') else re.escape(lowest) + ' wins'} the match", text)


@pytest.mark.parametrize("stop", [EOFError, KeyboardInterrupt])
def test_end_of_input_or_ctrl_c_exits_cleanly(stop):
    def read():
        raise stop

    console = plain_console()
    assert main(["--seed", "1"], input_fn=read, console=console) == 0
    lines = output(console).rstrip().splitlines()
    assert lines[-2:] == ["Bye.", "The game's seed was 1 (play it again with --seed 1)."]


def test_the_seed_is_fresh_entropy_and_shown_only_when_the_game_is_over(monkeypatch):
    import secrets

    drawn = []
    monkeypatch.setattr(secrets, "randbits", lambda bits: drawn.append(bits) or 2**64 - 5)
    console = plain_console()
    assert main([], input_fn=scripted_input("q"), console=console) == 0
    text = output(console)
    assert drawn == [64]
    before_the_end = text.split("Bye.")[0]
    assert str(2**64 - 5) not in before_the_end  # the seed tells every hand: never shown while the game is on
    assert text.rstrip().endswith(f"The game's seed was {2**64 - 5} (play it again with --seed {2**64 - 5}).")


def test_opponents_moves_are_narrated_without_naming_a_drawn_card():
    deal = {"dealer": 1, "hands": [["R5", "R6", "B7"], ["G2", "R9"]], "top": "R1", "deck": ["Y4"]}
    game = Game("classic", 2, deal=deal)
    console = plain_console()
    TerminalGame(game, 0, {1: ("greedy", GreedyAgent(0))}, console, scripted_input("play R5", "play R6", "q")).run()
    text = output(console)
    order = ["You play R5", "Player 1 (greedy) plays R9", "You play R6", "Player 1 (greedy) draws a card"]
    positions = [text.index(line) for line in order]
    assert positions == sorted(positions)
    assert "Y4" not in text  # the card it drew
    last_table = text.rsplit("classic, 2 players", 1)[1]
    assert re.search(r"Player 1 \(greedy\)\s+2\s", last_table)  # G2 and the drawn card, counted not named


def test_own_forehead_card_is_never_shown_while_on_the_forehead():
    # One Y9 in the deck, on your forehead; the others see theirs (G3).
    deal = {"dealer": 2, "hands": [["P5", "B7", "G1"], ["P3", "G2", "B2"], ["B1", "P8", "Y2"]], "top": "P1",
            "foreheads": [["Y9"], [], ["G3"]]}  # fmt: skip
    game = Game("unocorns", 3, deal=deal, card_counts={"Y9": 1})
    console = plain_console()
    opponents = {1: ("greedy", GreedyAgent(1)), 2: ("greedy", GreedyAgent(2))}
    TerminalGame(game, 0, opponents, console, scripted_input(then="1")).run()
    text = output(console)
    assert "Guess the colour of your forehead card" in text and "guess pink" in text
    assert re.search(r"You \(player 0\)\s+\d+\s+\?\?", text)  # shown as ??
    assert re.search(r"Player 2 \(greedy\)\s+\d+\s+G3", text)  # the others' forehead cards are visible
    reveal = text.index("You guess yellow for your forehead card: right, it was Y9")  # then it goes under the
    assert "Y9" not in text[:reveal]  # discard pile, seen by all
    assert "You guess pink for your forehead card: wrong" in text  # option 1 is pink, then blue, ...


def test_cards_are_coloured_on_a_terminal_and_plain_otherwise():
    colored = Console(file=io.StringIO(), width=200, force_terminal=True, color_system="standard")
    plain = plain_console()
    for console in (colored, plain):
        main(["--seed", "2"], input_fn=scripted_input("q"), console=console)
    assert "\x1b[" in output(colored) and "\x1b[" not in output(plain)
    assert re.sub(r"\x1b\[[0-9;]*m", "", output(colored)).split() == output(plain).split()


class RecordingAgent:
    """Takes the first legal action; records what it was told and what it saw."""

    observation = "knowledge"

    def __init__(self, illegal=None):
        self.bound, self.seen, self.illegal = None, [], illegal

    def bind(self, spec, rules):
        self.bound = (spec.level, spec.num_players, rules.preset)

    def act(self, observations, masks):
        self.seen.append((observations.shape, observations.dtype, masks.copy()))
        return np.array([self.illegal if self.illegal is not None else int(np.flatnonzero(masks[0])[0])])


def test_agents_get_their_own_observation_and_an_illegal_choice_is_reported():
    agent = RecordingAgent()
    game = Game("swap", 3, seed=5)
    TerminalGame(game, 1, {0: ("rec", agent), 2: ("naive", NaiveAgent(0))}, plain_console(), scripted_input("q")).run()
    assert agent.bound == ("knowledge", 3, "swap")
    from uno_env.observation import observation_size

    assert all(shape == (1, observation_size("knowledge", 3)) and dtype == np.int8 for shape, dtype, _ in agent.seen)
    assert all(mask.sum() >= 1 for _, _, mask in agent.seen)

    console = plain_console()
    game = Game("classic", 2, deal={"dealer": 0, "hands": [["R5"], ["G2"]], "top": "G1"})
    assert TerminalGame(game, 0, {1: ("bad", RecordingAgent(illegal=76))}, console, scripted_input()).run() == 1
    assert "Player 1 (bad) chose an illegal action" in output(console) and "'uno'" in output(console)


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--variant", "nope"], "the variants are classic, unocorns, monster_high, emoji, swap"),
        (["--opponents", "alphago"], "the agents are random, naive, greedy, counter"),
        (["--players", "11"], "--players: must be an int from 2 to 10"),
        (["--players", "3", "--seat", "3"], "--seat must be from 0 to 2"),
        (["--players", "4", "--opponents", "greedy", "naive"], "one per opponent seat (1, 2, 3), got 2"),
        (["--option", "nosuch=1"], "the options are"),
        (["--option", "stack_draw_two"], "rule options are NAME=VALUE"),
        (["--episode", "forever"], "choose from 'round', 'match'"),
    ],
)
def test_bad_arguments_exit_with_code_2_and_say_what_exists(argv, says, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv, input_fn=scripted_input(), console=plain_console())
    assert stop.value.code == 2
    assert says in capsys.readouterr().err


def test_when_an_agents_model_fails_the_person_retries_or_lets_it_play_its_fallback(monkeypatch):
    from uno_env.agents import TextAgent
    from uno_env.agents.openai_chat import ChatError
    from uno_env.play import session

    calls = []

    def chat(prompt: str) -> str:
        calls.append(prompt)
        if len(calls) == 1:
            raise ChatError("cannot reach the chat server http://127.0.0.1:9/v1/chat/completions: refused")
        raise ChatError("still down")

    agent = TextAgent(chat, name="llm")
    monkeypatch.setattr(session, "make_agent", lambda name, seed, trust: agent)
    console = plain_console()
    entries = ["draw", "x", "r", "f", "q"]  # you draw; the model fails; a bad entry; ask again; its fallback
    code = main(["--seed", "4", "--opponents", "llm"], input_fn=scripted_input(*entries, then="q"), console=console)
    text = output(console)
    assert code == 0 and "Traceback" not in text
    assert "Player 1 (llm) could not decide: cannot reach the chat server" in text
    assert "Player 1 (llm) could not decide: still down" in text and len(calls) == 2
    assert text.count("r to ask it again, f to let it play its fallback move, q to quit:") == 3
    assert agent.fallbacks == 1 and re.search(r"Player 1 \(llm\) (plays|draws|passes|chooses)", text)
