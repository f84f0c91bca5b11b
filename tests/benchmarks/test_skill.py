"""benchmarks/skill.py --engine cpu: a policy network against a device rule on the vector env."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # the benchmark, imported as a module
import skill  # noqa: E402

from uno_env.arena.device import deal_wins  # noqa: E402


def test_the_vector_engine_writes_the_wins_of_each_deal(tmp_path, capsys):
    out = tmp_path / "skill.jsonl"
    argv = ["--agent", "ppo:classic", "--opponent", "random", "--deals", "6", "--seed", "40", "--engine", "cpu"]
    assert skill.main([*argv, "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    wins = deal_wins("ppo:classic", "random", "classic", 2, deals=6, seed=40)
    assert result["deal_wins"] == {str(40 + d): float(w) for d, w in enumerate(wins)}
    assert result["games"] == 12 and result["win_rate"] == wins.sum() / 12 and result["engine"] == "cpu"
    assert "games/s" in capsys.readouterr().out


def test_an_agent_without_a_network_is_refused(capsys):
    assert skill.main(["--agent", "ismcts:10", "--deals", "2", "--engine", "cpu"]) == 2
    assert "the agent must be a policy network" in capsys.readouterr().err
