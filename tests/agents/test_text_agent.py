"""Text agents (`uno_env.agents.TextAgent`): a stub language model that sometimes answers garbage plays whole games
legally wherever agents are seated, asking again and falling back as documented, and its transcript goes into the
game records, where it replays."""

from __future__ import annotations

import re
import zlib

import numpy as np
import pytest

from uno_env import Game
from uno_env.agents import CounterAgent, TextAgent, make_agent
from uno_env.agents.registry import is_agent_name
from uno_env.agents.text_agent import MAX_STORED_REPLY, stored_reply, usage_line
from uno_env.arena.tournament import play_games, run_tournament
from uno_env.game import replay_steps
from uno_env.records import load_record
from uno_env.testing import check_agent, deal
from uno_env.text import PROMPT_FORMAT, prompt


class StubModel:
    """A deterministic model: from a hash of the prompt it answers a move's number (after some prose), the move in
    words, a number outside the list or garbage; it counts the prompts it was asked."""

    name = "stub"

    def __init__(self, garbage_every: int = 4):
        self.garbage_every = garbage_every
        self.asked = 0

    def __call__(self, text: str) -> str:
        self.asked += 1
        moves = re.findall(r"^(\d+)\. ([^:]+):", text, re.MULTILINE)
        h = zlib.crc32(text.encode())
        kind = h % self.garbage_every
        if kind == 0:
            return "Hmm. I like turtles."  # names no move: asked again (the retry prompt hashes otherwise)
        if kind == 1:
            return f"MOVE: {len(moves) + 1 + h % 3}"  # a number outside the list
        number, name = moves[(h >> 8) % len(moves)]
        return f"Let me think.\nMOVE: {number}" if h & 1 else f"I will {name}."


def play(agent, variant="classic", players=2, games=6, **options):
    """A text agent against counters, every seat rotated."""
    agents = {"text": agent, "counter": CounterAgent(seed=1)}
    lineup = ["text"] + ["counter"] * (players - 1)
    return play_games(agents, lineup, variant, games=games, seed=3, **options)


@pytest.mark.parametrize(("variant", "players"), [("classic", 2), ("unocorns", 3), ("monster_high", 4),
                                                  ("emoji", 2), ("swap", 3)])  # fmt: skip
def test_a_text_agent_plays_whole_games_legally_through_a_stub_model(variant, players):
    agent = TextAgent(StubModel(), keep_transcript=True)
    results = play(agent, variant, players, games=players * 2, uno_call="explicit")
    assert len(results) == players * 2 and all(r.length > 0 for r in results)  # every action checked legal
    stats = agent.stats()
    assert stats["decisions"] > 0 and stats["retried"] > 0 and stats["fallbacks"] > 0
    assert stats["decisions"] == len(agent.transcript)
    assert agent.model.asked == stats["asked"] + stats["retried"] and stats["asked"] < stats["decisions"]
    for details in agent.transcript:
        text = details["text"]
        assert text["format"] == PROMPT_FORMAT and len(text["attempts"]) <= agent.retries + 1
        if not text["attempts"]:  # one legal move: played unasked
            assert len(re.findall(r"^\d+\. ", text["prompt"], re.MULTILINE)) == 1 and not text["fallback"]
        else:
            assert text["fallback"] == (text["attempts"][-1]["move"] is None)


def test_a_reply_that_names_no_move_is_asked_again_with_why_and_then_falls_back_to_the_first_move():
    prompts = []

    def stubborn(text: str) -> str:
        prompts.append(text)
        return "I would rather not say."

    game = deal("classic", [["R5", "R7", "B2"], ["G1", "G2"]], top="R1")
    agent = TextAgent(stubborn, retries=2)
    assert agent.decide(game) == game.action_id("play R5")  # the first move of the list: the lowest legal id
    assert len(prompts) == 3 and prompts[0] == prompt(game, 0)
    assert prompts[1].startswith(prompts[0]) and "not accepted: it names no legal move" in prompts[1]
    assert 'It ended: "I would rather not say."' in prompts[1]
    details = agent.last_details[0]["text"]
    assert details["fallback"] and details["action"] == game.action_id("play R5") and len(details["attempts"]) == 3
    assert agent.stats() == {"decisions": 1, "asked": 1, "fallbacks": 1, "retried": 2,
                             "prompt_chars": sum(map(len, prompts)),
                             "reply_chars": 3 * len("I would rather not say.")}  # fmt: skip
    quiet = TextAgent(lambda text: "", retries=0)
    assert quiet.decide(game) == game.action_id("play R5") and quiet.last_details[0]["text"]["attempts"] == [
        {"reply": "", "move": None, "error": "the reply is empty"}
    ]


def test_a_good_second_reply_is_played():
    replies = iter(["MOVE: 9", "MOVE: 2"])
    game = deal("classic", [["R5", "R7", "B2"], ["G1", "G2"]], top="R1")
    agent = TextAgent(lambda text: next(replies))
    assert agent.decide(game) == game.action_id("play R7") and agent.fallbacks == 0 and agent.retried == 1
    attempts = agent.last_details[0]["text"]["attempts"]
    assert attempts[0]["move"] is None and "there is no move 9" in attempts[0]["error"]
    assert attempts[1] == {"reply": "MOVE: 2", "move": game.action_id("play R7"), "error": None}


def test_after_a_model_error_the_fallback_can_be_played_unasked_and_is_counted():
    def down(text: str) -> str:
        raise ConnectionError("the server is down")

    game = deal("classic", [["R7", "R5", "B2"], ["G1", "G2"]], top="R1")
    agent = TextAgent(down)
    with pytest.raises(ConnectionError):
        agent.decide(game)
    assert agent.play_fallback(game) == game.action_id("play R5")  # the first move of the list: the lowest id
    assert agent.last_details[0]["text"] == {"format": PROMPT_FORMAT, "prompt": prompt(game, 0), "attempts": [],
                                             "action": game.action_id("play R5"), "fallback": True}  # fmt: skip
    assert agent.stats() == {"decisions": 1, "asked": 0, "fallbacks": 1, "retried": 0, "prompt_chars": 0,
                             "reply_chars": 0}  # fmt: skip
    with pytest.raises(ValueError, match="seat 1 does not decide now"):
        agent.play_fallback(game, seat=1)


def test_the_agent_refuses_bad_settings_and_bad_models():
    with pytest.raises(TypeError, match="model must be a callable"):
        TextAgent("gpt")
    with pytest.raises(ValueError, match="retries must be an int from 0 to 10"):
        TextAgent(StubModel(), retries=-1)
    with pytest.raises(ValueError, match="concurrency must be an int from 1 to 256"):
        TextAgent(StubModel(), concurrency=0)
    game = Game("classic", 2, seed=1)
    with pytest.raises(TypeError, match="the model must reply with a str, got int"):
        TextAgent(lambda text: 3).decide(game)

    def broken(text: str) -> str:
        raise ConnectionError("the server is down")

    with pytest.raises(ConnectionError, match="the server is down"):  # a model's error is no reply: it stops the game
        TextAgent(broken).decide(game)
    with pytest.raises(TypeError, match="cannot act from observations alone"):
        TextAgent(StubModel()).act(np.zeros((1, 10), np.int8), np.ones((1, 77), np.int8))


def test_a_long_reply_is_kept_in_part():
    reply = "x" * 50_000 + "MOVE: 1"
    kept = stored_reply(reply)
    assert len(kept) < MAX_STORED_REPLY + 100 and kept.endswith("MOVE: 1") and "characters left out" in kept
    assert stored_reply("MOVE: 1") == "MOVE: 1"


def test_asking_games_at_once_gives_the_same_games():
    one = TextAgent(StubModel(), keep_transcript=True)
    many = TextAgent(StubModel(), concurrency=4, keep_transcript=True)
    assert play(one, "unocorns", 3, games=9) == play(many, "unocorns", 3, games=9)
    assert one.transcript == many.transcript


@pytest.mark.parametrize(("variant", "players"), [("unocorns", 3), ("monster_high", 2), ("swap", 2)])
def test_a_text_agent_passes_the_conformance_kit(variant, players):
    """Legal, deterministic, independent of batch size, and blind: the kit also compares its prompts in worlds
    redealt where its seats cannot see."""
    report = check_agent(lambda seed: TextAgent(StubModel()), variant, players, games=4, decisions=60,
                         uno_call="explicit")  # fmt: skip
    assert report["redealt"] > 0


def test_the_tournament_seats_agent_objects_and_saves_their_transcripts(tmp_path):
    agent = TextAgent(StubModel(garbage_every=3))
    result = run_tournament([agent, "counter"], "classic", 2, games=6, seed=2, progress=False,
                            save_games=tmp_path, save_games_count=2)  # fmt: skip
    assert result.settings["agents"] == ["stub", "counter"]
    assert {summary.name for summary in result.summaries} == {"stub", "counter"}
    stats = result.settings["text_agents"]["stub"]
    assert stats == agent.stats() and stats["decisions"] > 0
    assert len(result.saved_games) == 2
    for path in result.saved_games:
        record = load_record(path)  # checked, and replayed by the runner before it was saved
        assert record["agents"] in (["stub", "counter"], ["counter", "stub"])
        text_seat = record["agents"].index("stub")
        game = None
        for index, game in enumerate(replay_steps(record)):  # the transcript replays: each prompt is the game's
            if index == len(record["actions"]):
                break
            details = record["details"][index]
            if game.seat != text_seat:
                assert details is None
                continue
            assert details["text"]["prompt"] == prompt(game, text_seat)
            assert details["text"]["action"] == record["actions"][index]
        assert game is not None and game.done


def test_the_tournament_labels_objects_apart_and_refuses_non_agents():
    first, second = TextAgent(StubModel()), TextAgent(StubModel())
    result = run_tournament([first, second, first], "classic", 2, games=2, progress=False)
    assert result.settings["agents"] == ["stub", "stub#2", "stub"]
    assert set(result.settings["text_agents"]) == {"stub", "stub#2"}
    with pytest.raises(ValueError, match="neither an agent name nor an agent"):
        run_tournament([object(), "counter"], games=2, progress=False)
    with pytest.raises(ValueError, match="agents given as objects play in this process"):
        run_tournament([first, "counter"], games=2, progress=False, ray_workers=2)


def test_a_text_agent_sits_at_a_table_with_a_person_and_in_the_vector_env():
    from uno_env.play.session import TableSession
    from uno_env.vector import UnoVectorEnv

    model = StubModel()
    session = TableSession.deal("unocorns", 3, 0, [TextAgent(model)], seed=5)
    assert session.opponents[1][0] == "stub"
    for _ in range(20):
        session.play_agents()
        if session.game.done:
            break
        assert session.problem is None and session.deciding
        session.act(session.legal()[0])
    assert model.asked > 0
    opponent = TextAgent(StubModel())
    env = UnoVectorEnv("classic", 2, num_envs=4, learner_seats=[0], opponents=opponent)
    _, masks = env.reset(seed=1)
    for _ in range(10):
        _, masks, *_ = env.step(np.array([np.flatnonzero(m)[0] for m in masks]))
    assert opponent.decisions > 0


def test_llm_is_a_registry_name_read_from_the_environment(monkeypatch):
    assert is_agent_name("llm") and is_agent_name("llm:qwen2.5-7b")
    for variable in ("UNO_LLM_BASE_URL", "UNO_LLM_MODEL", "UNO_LLM_API_KEY", "UNO_LLM_CONCURRENCY"):
        monkeypatch.delenv(variable, raising=False)
    with pytest.raises(ValueError, match="set UNO_LLM_BASE_URL"):
        make_agent("llm")
    monkeypatch.setenv("UNO_LLM_BASE_URL", "http://localhost:9/v1")
    with pytest.raises(ValueError, match="set UNO_LLM_MODEL"):
        make_agent("llm")
    agent = make_agent("llm:tiny", seed=7)
    assert isinstance(agent, TextAgent) and agent.name == "llm:tiny" and agent.model.seed == 7
    assert agent.model.url == "http://localhost:9/v1/chat/completions"
    monkeypatch.setenv("UNO_LLM_CONCURRENCY", "many")
    with pytest.raises(ValueError, match="UNO_LLM_CONCURRENCY must be an int"):
        make_agent("llm:tiny")


def test_a_single_legal_move_is_played_unasked_unless_asked_for():
    game = deal("classic", [["B2", "G3"], ["G1", "G2"]], top="R1")  # nothing to play: draw is the only move
    asked = []
    agent = TextAgent(lambda text: asked.append(text) or "MOVE: 1")
    assert agent.decide(game) == game.action_id("draw") and not asked
    assert agent.last_details[0]["text"]["attempts"] == [] and agent.stats()["asked"] == 0
    forced = TextAgent(lambda text: asked.append(text) or "MOVE: 1", ask_forced=True)
    assert forced.decide(game) == game.action_id("draw") and len(asked) == 1 and forced.stats()["asked"] == 1


class CountingModel:
    """A chat model that counts tokens as a server's usage does (here: words), like `OpenAIChat`."""

    name = "llm:tiny"

    def __init__(self):
        self.prompt_tokens = self.completion_tokens = 0

    def __call__(self, text: str) -> str:
        self.prompt_tokens += len(text.split())
        self.completion_tokens += 2
        return "MOVE: 1"


def test_stats_and_the_summary_report_the_tokens_the_server_counted():
    model = CountingModel()
    model.prompt_tokens, model.completion_tokens = 1000, 10  # counted before the agent was seated: not its own
    game = deal("classic", [["R5", "R7", "B2"], ["G1", "G2"]], top="R1")
    agent = TextAgent(model)
    agent.decide(game)
    stats = agent.stats()
    assert stats["prompt_tokens"] == len(prompt(game, 0).split()) and stats["completion_tokens"] == 2
    assert stats["prompt_tokens"] != stats["prompt_chars"]
    line = usage_line(agent.name, stats)
    assert line == (f"text agent llm:tiny: 1 decisions, 0 fallbacks (no legal move named; 0 retries), "
                    f"{stats['prompt_tokens']:,} prompt and 2 completion tokens (the server's count)")  # fmt: skip
    plain = TextAgent(lambda text: "MOVE: 1")  # a model that reports no usage: characters, said as such
    plain.decide(game)
    assert "prompt_tokens" not in plain.stats() and usage_line("text", plain.stats()).endswith(
        "prompt characters (the model reports no token usage)")
