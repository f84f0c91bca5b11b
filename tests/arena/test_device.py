"""`uno_env.arena.device`: a network agent against a baseline's device rule on the vector env, deal by deal; the GPU
engine is checked against the CPU engine under numba's CUDA simulator (in a subprocess, tiny)."""

import os
import subprocess
import sys

import numpy as np
import pytest

from uno_env.agents.registry import make_agent
from uno_env.arena import device
from uno_env.arena.device import deal_wins, win_rate
from uno_env.arena.tournament import play_games

SIMULATED = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "NUMBA_DISABLE_JIT": "1", "PYTHONWARNINGS": "ignore"}


def test_the_wins_are_the_arenas_where_the_baseline_breaks_no_tie_otherwise():
    """The same deals and seats as the arena's rotations: the per-deal wins agree with `play_games` on nearly every
    deal (where they differ, greedy broke a tie from its own generator there, from the game's stream here)."""
    wins = deal_wins("ppo:classic", "greedy", "classic", 2, deals=40, seed=500)
    seated = {"agent": make_agent("ppo:classic"), "opponent": make_agent("greedy", seed=1)}
    records = play_games(seated, ["agent", "opponent"], "classic", games=80, seed=500)
    arena = np.zeros(40, np.int64)
    for record in records:
        arena[record.seed - 500] += sum(record.lineup[seat] == "agent" for seat in record.winners)
    assert wins.shape == (40,) and set(wins.tolist()) <= {0, 1, 2}
    assert (wins == arena).mean() >= 0.85, (wins, arena)


def test_a_deal_gives_the_same_wins_in_any_batch():
    whole = deal_wins("ppo:classic", "random", "classic", 2, deals=12, seed=3)
    assert np.array_equal(deal_wins("ppo:classic", "random", "classic", 2, deals=12, seed=3, batch_size=5), whole)
    assert np.array_equal(deal_wins("ppo:classic", "random", "classic", 2, deals=4, seed=11), whole[8:])
    assert whole.mean() > 1.2, whole  # a trained policy beats random play in most of its seat-games


def test_the_baseline_draws_from_each_games_own_stream(monkeypatch):
    """Its random choices come from the streams seeded from the deals: seeded otherwise, other games."""
    wins = deal_wins("ppo:classic", "random", "classic", 2, deals=30, seed=3)
    monkeypatch.setattr("uno_env.vector_cuda.opponent_streams", lambda seeds: seeds + np.uint64(1))
    assert not np.array_equal(deal_wins("ppo:classic", "random", "classic", 2, deals=30, seed=3), wins)


def test_the_win_rate_takes_the_deal_as_its_unit():
    rate, low, high = win_rate(np.array([2, 0, 1, 1]), 2)
    assert rate == 0.5 and 0.0 < low < 0.5 < high < 1.0
    assert win_rate(np.array([1, 1, 1, 1]), 2) == (0.5, 0.5, 0.5)  # every deal alike: no spread


@pytest.mark.parametrize(
    ("agent", "baseline", "engine", "message"),
    [
        ("ismcts:10", "counter", "cpu", "the agent must be a policy network: ppo:VARIANT, best:VARIANT or ppo:FILE.pt; "
                                        "got 'ismcts:10'"),
        ("ppo:classic", "ismcts:10", "cpu", "the baseline must be an agent with a device rule: random, naive, greedy "
                                            "or counter; got 'ismcts:10'"),
        ("ppo:classic", "ppo:classic", "cpu", "the baseline must be an agent with a device rule"),
        ("ppo:classic", "counter", "tpu", "engine must be one of cpu, cuda, got 'tpu'"),
    ],
)  # fmt: skip
def test_what_cannot_play_is_refused_in_one_line(agent, baseline, engine, message, monkeypatch):
    monkeypatch.setattr(device, "first_wins", lambda *args: pytest.fail("a game was played"))
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace(".", r"\.")) as refused:
        deal_wins(agent, baseline, "classic", 2, deals=2, engine=engine)
    assert "\n" not in str(refused.value)


def test_a_policy_for_other_players_is_refused():
    with pytest.raises(ValueError, match="trained for 2 players"):
        deal_wins(make_agent("ppo:classic").for_players(2), "counter", "classic", 4, deals=2)


@pytest.mark.cudasim
def test_the_gpu_engine_wins_the_same_deals_as_the_cpu_engine():
    """The shipped classic 2-player policy against counter, 4 deals: the same wins, deal for deal."""
    code = (
        "from uno_env.arena.device import deal_wins\n"
        "print(deal_wins('ppo:classic', 'counter', 'classic', 2, deals=4, seed=7, engine='cpu').tolist())\n"
        "print(deal_wins('ppo:classic', 'counter', 'classic', 2, deals=4, seed=7, engine='cuda').tolist())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=SIMULATED, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    cpu, cuda = done.stdout.split("\n")[:2]
    assert cpu == cuda and cpu.startswith("[") and cpu != "[0, 0, 0, 0]", done.stdout
