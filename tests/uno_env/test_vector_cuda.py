"""`UnoVectorEnv(device="cuda")`: the engine's kernels on the GPU, checked against the CPU engine step for step.

The device code runs here under numba's CUDA simulator (in a subprocess: the simulator is chosen when numba is first
imported), with the JIT off so that the simulated threads call the engine's functions as Python; on a machine with a
GPU, `benchmarks/engine_gpu.py` runs the same comparison compiled."""

import dis
import os
import subprocess
import sys
import types

import numpy as np
import pytest

from uno_env.agents import CounterAgent
from uno_env.vector import UnoVectorEnv

pytestmark = pytest.mark.cudasim

SIMULATED = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "NUMBA_DISABLE_JIT": "1", "PYTHONWARNINGS": "ignore"}


def simulated(code: str) -> str:
    """Run `code` under the simulator; its stdout."""
    done = subprocess.run([sys.executable, "-c", code], env=SIMULATED, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_device_steps_as_the_cpu_engine_for_every_variant_and_opponent():
    """Observations, masks, rewards and episode ends equal at every step: the engine alone at 2, 4 and 10 players
    (every seat a learner, against the ordinary CPU env), and counter's device rule against the same source on the
    CPU, and a policy network's forward passes (the kernel hands its turns back to the host) against the ordinary CPU
    env with the same network. The first runs long enough that games end and restart (one lasts about 40 decisions)."""
    out = simulated(
        "from uno_env.testing import compare_with_cpu\n"
        "from uno_env.agents import CounterAgent\n"
        "print(compare_with_cpu('classic', 2, 3, 45, seed=3))\n"
        "print(compare_with_cpu('swap', 4, 2, 10, seed=4, stack_draw_two=True))\n"
        "print(compare_with_cpu('unocorns', 10, 1, 8, seed=5))\n"
        "print(compare_with_cpu('monster_high', 4, 2, 10, seed=6, opponents=CounterAgent(0), learner_seats=[1]))\n"
        "import torch\n"
        "from uno_env.agents.policy import PolicyAgent, PolicyNetwork\n"
        "torch.manual_seed(0)\n"
        "network = PolicyAgent(PolicyNetwork('knowledge', 2, hidden=(16,)))\n"
        "print(compare_with_cpu('classic', 2, 2, 20, seed=2, opponents=network, learner_seats=[0]))\n"
    )
    assert out.split() == ["None"] * 5, out


def test_the_comparison_sees_a_difference():
    """The check can fail: a device env whose opponents' stream is seeded otherwise than the CPU mirror's."""
    out = simulated(
        "import numpy as np\n"
        "from uno_env.testing import compare_with_cpu\n"
        "from uno_env.agents import RandomAgent\n"
        "from uno_env import vector_cuda\n"
        "vector_cuda.CudaVectorEnv.opponent_streams = staticmethod(lambda seeds: seeds + np.uint64(1))\n"
        "print(compare_with_cpu('classic', 2, 2, 8, seed=1, opponents=RandomAgent(0), learner_seats=[0]))\n"
    )
    assert "differ in games" in out, out


def test_a_leagues_groups_share_one_kernel_and_play_as_with_their_own():
    """`share_kernel`: groups against counter (two, with parameters far apart), greedy and random play the same
    steps with one kernel between them as with a kernel each (a game each, 10 steps)."""
    out = simulated(
        "from uno_env.agents import CounterAgent, GreedyAgent, RandomAgent\n"
        "from uno_env.testing import compare_shared_kernel\n"
        "bold = CounterAgent(2, threat=7, save_wilds=0, save_pile=0, challenge_threshold=0.0)\n"
        "print(compare_shared_kernel([CounterAgent(0), GreedyAgent(1), bold, RandomAgent(3)]))\n"
    )
    assert out.split() == ["None"], out


def test_an_illegal_action_is_refused_and_changes_nothing():
    out = simulated(
        "import numpy as np\n"
        "from uno_env.vector import UnoVectorEnv\n"
        "from uno_env.game import IllegalActionError\n"
        "env = UnoVectorEnv('classic', 2, 3, device='cuda')\n"
        "obs, masks = env.reset(seed=0)\n"
        "masks = masks.copy_to_host()\n"
        "before = env.state()\n"
        "actions = masks.argmax(1)\n"
        "actions[1] = np.flatnonzero(masks[1] == 0)[0]\n"
        "try:\n"
        "    env.step(actions)\n"
        "except IllegalActionError as error:\n"
        "    print('refused:', error)\n"
        "print(all(np.array_equal(env.state()[name], before[name]) for name in before.dtype.names))\n"
    )
    assert "refused: learner: 1 of 3 actions are not legal" in out and out.strip().endswith("True"), out


def test_without_a_gpu_the_device_is_refused_in_one_line():
    from numba import cuda

    if cuda.is_available():  # a machine with a GPU has nothing to refuse
        return
    with pytest.raises(RuntimeError, match="needs a CUDA GPU"):
        UnoVectorEnv("classic", 2, 4, device="cuda")
    with pytest.raises(ValueError, match="device must be 'cpu' or 'cuda'"):
        UnoVectorEnv("classic", 2, 4, device="tpu")


def test_opponents_without_a_device_rule_are_refused():
    from uno_env.vector_cuda import device_rule

    with pytest.raises(ValueError, match="device_rule"):
        device_rule(object(), np.array([0]), 2)
    rule = device_rule(CounterAgent(0), np.array([0]), 2)
    assert rule.observation == "knowledge" and len(rule.params) == 7


def test_no_device_function_calls_with_star_args():
    """numba cannot inline a call compiled with *args, which CPython makes of any call of more than 30 arguments
    (CALL_FUNCTION_EX): the step kernel with one ran under the simulator's Python but did not compile for the GPU."""
    from uno_env import engine, observation, seats, vector_cuda
    from uno_env.agents import counter, greedy, naive

    def codes(code):
        yield code
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                yield from codes(const)

    checked, found = 0, []
    for module in (engine, observation, seats, vector_cuda, counter, greedy, naive):
        for name, obj in vars(module).items():
            function = getattr(obj, "py_func", None) or (obj if name in ("cpu_steps", "step_kernel") else None)
            if getattr(function, "__module__", None) != module.__name__:
                continue
            checked += 1
            found += [f"{module.__name__}.{code.co_name}" for code in codes(function.__code__)
                      if any(op.opname == "CALL_FUNCTION_EX" for op in dis.get_instructions(code))]  # fmt: skip
    assert checked > 50 and not found, found
    assert any(op.opname == "CALL_FUNCTION_EX" for op in dis.get_instructions(compile(
        "f(" + ", ".join(["x"] * 31) + ")", "<a call of 31 arguments>", "eval")))  # fmt: skip
