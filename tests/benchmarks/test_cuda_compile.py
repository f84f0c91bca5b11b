"""benchmarks/cuda_compile.py: the types it compiles the step kernel for are those of a real launch's arguments."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.cudasim

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.parametrize(("players", "opponent", "observation"), [(2, "counter", "knowledge"), (4, "greedy", "seer")])
def test_the_kernel_types_are_those_of_the_envs_launch_arguments(players, opponent, observation):
    """Under numba's simulator (no GPU): each argument of `CudaVectorEnv.step_arguments`, as numba types it, equals
    the benchmark's type for it, so that the PTX it times is the kernel a launch compiles."""
    code = (
        f"import sys; sys.path.insert(0, {str(BENCHMARKS)!r})\n"
        "from numba import typeof\n"
        "from cuda_compile import device_rule, step_kernel_types\n"
        "from uno_env.vector_cuda import ACT, CudaVectorEnv, host\n"
        "from uno_env.agents import make_agent\n"
        f"env = CudaVectorEnv('classic', {players}, 8, opponents=make_agent({opponent!r}, seed=0), learner_seats=[0],\n"
        f"                    observation={observation!r})\n"
        "arguments = env.step_arguments(env._no_actions, ACT)\n"
        "launch = [typeof(a if isinstance(a, (int, bool, tuple)) else host(a)) for a in arguments]\n"
        f"rule = device_rule({opponent!r}, 'classic', {players})\n"
        f"expected = step_kernel_types('classic', {players}, 8, rule, {observation!r})\n"
        "print(len(launch), len(expected))\n"
        "for i, (a, b) in enumerate(zip(launch, expected)):\n"
        "    print(i, a == b, a, b)\n"
    )  # fmt: skip
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "NUMBA_DISABLE_JIT": "1", "PYTHONWARNINGS": "ignore"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "27 27", done.stdout
    assert all(" True " in line for line in lines[1:]), done.stdout
