"""`benchmarks/search_headroom.py`: the determinized-rollout search that gauges the room above `counter`."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "search_headroom.py"


@pytest.fixture(scope="module")
def headroom():
    spec = importlib.util.spec_from_file_location("search_headroom", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_unreachable_threshold_plays_counter_exactly(headroom):
    wins, games, decisions, overrides = headroom.run_block("classic", 2, 5, 3, 4, math.inf)
    assert games == 6 and 0 <= wins <= games
    assert decisions > 0 and overrides == 0


def test_any_paired_edge_overrides_counter_and_games_still_end(headroom):
    wins, games, decisions, overrides = headroom.run_block("unocorns", 3, 5, 2, 6, 0.0)
    assert games == 6 and 0 <= wins <= games
    assert 0 < overrides < decisions
