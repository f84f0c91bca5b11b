"""`uno-train --engine cuda`: the native PPO with every game on the GPU (`UnoVectorEnv(device="cuda")`), run here
under numba's CUDA simulator in a subprocess (see tests/uno_env/test_vector_cuda.py), and its one-line refusals."""

import os
import subprocess
import sys

import pytest
import torch

from uno_env.train.native_ppo import load_checkpoint, parse_args

pytestmark = pytest.mark.cudasim

RUN = """
import sys
import uno_env.train.native_ppo as N
N.log_evaluation = lambda *args, **kwargs: {"counter": (0.5, 0.0, 1.0)}  # the CPU arena's evaluation needs the JIT
sys.exit(N.main(["--engine", "cuda", "--num-envs", "8", "--rollout-steps", "4", "--minibatch-size", "16",
                 "--total-steps", "96", "--eval-every", "100", "--league", "counter:1", "self:1", "--imitate",
                 "counter", "--imitate-steps", "32", "--device", "cpu", "--out", sys.argv[1], "--no-progress",
                 "--hidden", "16"]))
"""


def test_a_run_on_the_device_engine_imitates_then_trains_against_counter_and_itself(tmp_path):
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "NUMBA_DISABLE_JIT": "1", "PYTHONWARNINGS": "ignore"}
    done = subprocess.run([sys.executable, "-c", RUN, str(tmp_path)], env=env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "trained 96 steps in 3 updates" in done.stdout
    state = load_checkpoint(tmp_path / "checkpoint.pt")
    assert state["steps"] == 96 and state["config"]["engine"] == "cuda"
    weights = torch.load(tmp_path / "policy.pt", weights_only=True)["state_dict"]
    assert all(torch.isfinite(value).all() for value in weights.values())


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--hand-loss", "0.5"], "no training aids or hints"),
        (["--critic", "seer"], "drop --critic seer"),
        (["--observation", "minimal", "--imitate", "counter"], "must read the policy's own observation level"),
        (["--league", "ismcts:10:1"], "has no device rule"),
    ],
)
def test_what_the_device_engine_cannot_play_is_refused_in_one_line(flags, message, capsys):
    with pytest.raises(SystemExit):
        parse_args(["--engine", "cuda", *flags])
    error = capsys.readouterr().err.strip()
    assert message in error and "--engine cuda" in error and len(error.splitlines()) == 1, error
