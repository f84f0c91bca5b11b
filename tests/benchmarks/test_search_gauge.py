"""benchmarks/search_gauge.py: the determinized-rollout search that gauges the room above `counter`."""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # the gauge lives beside its benchmark
from search_gauge import run_block  # noqa: E402


def test_an_unreachable_threshold_plays_counter_exactly():
    wins, games, decisions, overrides = run_block("classic", 2, 5, 3, 4, math.inf)
    assert games == 6 and 0 <= wins <= games
    assert decisions > 0 and overrides == 0


def test_any_paired_edge_overrides_counter_and_games_still_end():
    wins, games, decisions, overrides = run_block("unocorns", 3, 5, 2, 6, 0.0)
    assert games == 6 and 0 <= wins <= games
    assert 0 < overrides < decisions
