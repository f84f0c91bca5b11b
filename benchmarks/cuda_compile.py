"""How long the GPU engine's step kernel takes to compile, and how large it is, for each opponent's device rule.

    python benchmarks/cuda_compile.py                     # on a machine with a CUDA GPU: for its architecture
    python benchmarks/cuda_compile.py --cc 9.0            # without a GPU (numba-cuda and NVVM installed: below)
    python benchmarks/cuda_compile.py --cc 9.0 --shared   # one kernel for all four, as a league compiles it

`UnoVectorEnv(device="cuda")` compiles its step kernel (the engine's step, the opponents' rule, the observation
encoder: `vector_cuda.step_game_until_learner`) once a process for each opponent rule (one for a league's groups:
`vector_cuda.share_kernel`), before its first step. This script compiles it to PTX with numba-cuda
(`cuda.compile_ptx`) for random, naive, greedy and counter in turn, in one process as a league of them did (the
engine's device functions are typed once, NVVM compiles each kernel whole), and prints the seconds and the PTX's
size; with `--shared`, the one kernel that serves them all instead (`vector_cuda.share_kernel`, as `uno-train
--engine cuda`'s league compiles it). The driver's translation of the PTX to the card's code at the first launch is
not in it. Without a GPU it needs numba-cuda with the CUDA compiler libraries (`pip install "numba-cuda[cu12]"`, or
the wheels `numba-cuda nvidia-cuda-nvcc-cu12 nvidia-cuda-nvrtc-cu12`) and `--cc`, the compute capability to compile
for: numba-cuda asks the current device for it when it compiles a device function, and here `--cc` answers.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import typeof, types

from uno_env import actions as A
from uno_env import engine as E
from uno_env import observation as O
from uno_env.game import GameBatch
from uno_env.seats import RESULT_DTYPE, shared_rules
from uno_env.vector_cuda import EPISODE_FIELDS

RULES = ("random", "naive", "greedy", "counter")


def step_kernel_types(variant: str, num_players: int, num_games: int, rule, observation: str = "knowledge") -> tuple:
    """numba's types of the step kernel's arguments (`CudaVectorEnv.step_arguments`) for `num_games` games against
    opponents deciding by `rule` (a `DeviceRule`), built from host arrays of the same layouts."""
    game = GameBatch(variant, num_players, num_games)
    spec, opponent_spec = O.ObservationSpec(observation, num_players), O.ObservationSpec(rule.observation, num_players)
    b, n = num_games, num_players

    def array(shape, dtype):
        return typeof(np.zeros(shape, dtype))

    i8, i64, f8, u64 = np.int8, np.int64, np.float64, np.uint64
    return (typeof(game.state_array), typeof(game.config_array), types.int64, array(b, i64), array(E.MAX_PLAYERS, i8),
            types.int64, types.int64, typeof(spec.offsets), types.boolean, types.int64, typeof(opponent_spec.offsets),
            typeof(np.asarray(rule.points, f8)), typeof(np.asarray(rule.counts, f8)), typeof(rule.params),
            array(b, u64), array((b, opponent_spec.size), i8), array((b, A.NUM_ACTIONS), i8), array(b, i8),
            array((b, n), f8), array(b, RESULT_DTYPE), array((b, len(EPISODE_FIELDS)), i64), array(b, u64),
            array((b, spec.size), i8), array(b, i64), array((b, spec.size), i8), array((b, A.NUM_ACTIONS), i8),
            array(b, i64))  # fmt: skip


def device_rule(name: str, variant: str, num_players: int):
    """The named baseline's `DeviceRule`, bound to the game's rules."""
    from uno_env.agents import make_agent

    agent = make_agent(name, seed=0)
    if hasattr(agent, "bind"):
        agent.bind(O.ObservationSpec(agent.observation, num_players), GameBatch(variant, num_players, 1).rules)
    return agent.device_rule()


def answer_compute_capability(cc: tuple[int, int]) -> None:
    """Make numba-cuda compile device functions for `cc` without asking a GPU (there is none)."""
    import numba.cuda.dispatcher as dispatcher

    class Device:
        compute_capability = cc

    dispatcher.get_current_device = lambda: Device()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="classic", help="the rule set (default classic)")
    parser.add_argument("--players", type=int, default=2, help="players at each table (default 2)")
    parser.add_argument("--rules", nargs="+", default=list(RULES), choices=RULES,
                        help="the opponents' device rules, compiled in this order (default all four)")  # fmt: skip
    parser.add_argument("--shared", action="store_true", help="compile one kernel for all the rules instead")
    parser.add_argument("--cc", help="the compute capability to compile for, as 9.0 (default: the GPU's; needed "
                        "without one)")  # fmt: skip
    args = parser.parse_args()
    from numba import cuda

    if args.cc:
        cc = tuple(int(part) for part in args.cc.split("."))
        answer_compute_capability(cc)
    else:
        cc = cuda.get_current_device().compute_capability
    print(f"step kernel, {args.variant}, {args.players} players, compute capability {cc[0]}.{cc[1]}", flush=True)
    rules = [device_rule(name, args.variant, args.players) for name in args.rules]
    if args.shared:
        compile_step(f"one kernel against {', '.join(args.rules)}", shared_rules(rules)[0], args.variant, args.players,
                     cc)  # fmt: skip
        return
    for name, rule in zip(args.rules, rules, strict=True):
        compile_step(f"against {name}", rule, args.variant, args.players, cc)


def compile_step(label: str, rule, variant: str, players: int, cc: tuple[int, int]) -> None:
    """Compile the step kernel against `rule` to PTX and print the seconds and its size."""
    from numba import cuda

    from uno_env.vector_cuda import step_kernel

    kernel = step_kernel(rule.decide)
    start = time.perf_counter()
    ptx, _ = cuda.compile_ptx(kernel.py_func, step_kernel_types(variant, players, 8, rule), cc=cc)
    print(f"  {label}: {time.perf_counter() - start:.1f} s, {len(ptx) / 1e6:.2f} MB of PTX", flush=True)


if __name__ == "__main__":
    main()
