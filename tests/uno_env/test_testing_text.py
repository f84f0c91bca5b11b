"""The conformance kit's blindness check for text agents (`uno_env.testing.check_agent` (d)): a text agent's
prompts are compared in worlds redealt where its seats cannot see, so a prompt that leaks a hidden card fails even
when the model's answers would not show it."""

from __future__ import annotations

import pytest

import uno_env.text
from uno_env.agents import TextAgent
from uno_env.testing import check_agent


def first_move(text: str) -> str:
    return "MOVE: 1"  # the same answer whatever the prompt says: only the prompts can tell a leak


def test_an_honest_text_agent_passes():
    report = check_agent(lambda seed: TextAgent(first_move), "unocorns", 3, games=4, decisions=40)
    assert report["redealt"] > report["decisions"] / 2


def test_a_prompt_that_leaks_a_hidden_hand_fails(monkeypatch):
    honest = uno_env.text.prompt

    def leaky(game, seat, g=0):
        batch = getattr(game, "batch", game)
        other = (seat + 1) % batch.num_players
        return honest(game, seat, g) + f"\n(psst: player_{other} holds {batch.describe(g)['hands'][other]})"

    monkeypatch.setattr(uno_env.text, "prompt", leaky)
    with pytest.raises(AssertionError, match=r"\(d\) not blind to hidden information: .* its prompt changed in a "
                                             r"world redealt where it cannot see: .\(psst: player_"):  # fmt: skip
        check_agent(lambda seed: TextAgent(first_move), "classic", 2, games=4, decisions=10)
