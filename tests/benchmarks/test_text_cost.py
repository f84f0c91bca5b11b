"""benchmarks/text_cost.py: the tokens a text agent's games ask of a language model."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from text_cost import main, measure  # noqa: E402


def test_the_cost_counts_every_prompt_of_the_text_seat():
    row = measure("unocorns", 3, 6, 1, lambda text: len(text) / 4)
    assert row["games"] == 6 and row["fallbacks"] == 0  # 'MOVE: 1' always names a move
    assert 0 < row["asked_per_game"] <= row["decisions_per_game"]
    assert row["prompt_tokens_per_game"] == pytest.approx(row["prompt_tokens_per_asked"] * row["asked_per_game"])
    assert 300 < row["prompt_tokens_per_asked"] < 3000  # a prompt is hundreds of tokens, not a novel


def test_the_command_prints_a_table_and_appends_json(tmp_path, capsys):
    out = tmp_path / "cost.jsonl"
    assert main(["--settings", "classic:2", "swap:2", "--games", "2", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| classic | 2 | 2 |" in printed and "| swap | 2 | 2 |" in printed
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["variant"] for row in rows] == ["classic", "swap"]
    assert rows[0]["tokenizer"] in ("characters / 4", "tiktoken cl100k_base")
