"""The engine on the GPU (`UnoVectorEnv(device="cuda")`): its equivalence with the CPU engine on a real GPU, then its
speed alone, with opponents and a network, and the native PPO's training steps a second on it.

    python benchmarks/engine_gpu.py --out benchmarks/results          # on a machine with a CUDA GPU
    python benchmarks/engine_gpu.py --games 8192 32768 131072 --seconds 5 --sections engine

Sections (each timed after a warm-up, the medians of `--repeats`):
1. **equivalence**: `vector_cuda.compare_with_cpu` for every variant at 2, 4 and 10 players (the engine alone: every
   seat a learner), and with counter and greedy opponents (the device rule against the same source on the CPU);
   and a league's groups with one shared kernel against a kernel each (`testing.compare_shared_kernel`);
2. **engine alone**: every seat a learner, the `knowledge` observation and the mask of every game written each step,
   actions drawn on the GPU among the legal ones (torch), no check: environment steps a second;
3. **collection**: one learner seat against `counter` (classic, 2 players), the policy network (64x64) deciding on
   the GPU: decisions a second, as a trainer's rollouts;
4. **training**: the native PPO's own update (`uno_env.train.native_ppo.ppo_update`, its GAE) on rollouts of 32
   decisions a game collected as in 3: training steps a second.
It prints a log and writes it to `<out>/engine_gpu_<card>.log`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from uno_env import VARIANTS


def log(line: str, lines: list[str]) -> None:
    print(line, flush=True)
    lines.append(line)


def equivalence(lines: list[str], games: int, steps: int) -> bool:
    """Every variant at 2, 4 and 10 players, and two opponents' device rules, step for step against the CPU; then a
    league's groups with one kernel against a kernel each."""
    from uno_env.agents import CounterAgent, GreedyAgent, RandomAgent
    from uno_env.testing import compare_shared_kernel, compare_with_cpu

    fine = True
    cases = [(variant, players, None) for variant in VARIANTS for players in (2, 4, 10)]
    cases += [("classic", 4, CounterAgent(0)), ("unocorns", 2, GreedyAgent(0)), ("monster_high", 3, CounterAgent(1))]
    for variant, players, opponents in cases:
        start = time.perf_counter()
        seats = "all" if opponents is None else [0]
        difference = compare_with_cpu(variant, players, games, steps, seed=players, opponents=opponents,
                                      learner_seats=seats)  # fmt: skip
        who = "every seat a learner" if opponents is None else f"against {opponents.name}"
        verdict = "identical" if difference is None else f"DIFFERENT: {difference}"
        log(f"  {variant}, {players} players, {who}: {games} games x {steps} steps {verdict} "
            f"({time.perf_counter() - start:.1f} s)", lines)  # fmt: skip
        fine = fine and difference is None
    start = time.perf_counter()
    difference = compare_shared_kernel([CounterAgent(0), GreedyAgent(1), RandomAgent(2)], "classic", 2, games, steps)
    verdict = "identical" if difference is None else f"DIFFERENT: {difference}"
    log(f"  a league against counter, greedy and random, one kernel against a kernel each: {games} games x {steps} "
        f"steps {verdict} ({time.perf_counter() - start:.1f} s)", lines)  # fmt: skip
    return fine and difference is None


def timed(step, seconds: float, repeats: int) -> float:
    """The median over `repeats` of calls of `step` a second, each repeat running `seconds`."""
    import torch

    rates = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        start, calls = time.perf_counter(), 0
        while time.perf_counter() - start < seconds:
            step()
            calls += 1
            if calls % 16 == 0:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        rates.append(calls / (time.perf_counter() - start))
    return statistics.median(rates)


def engine_alone(lines: list[str], games: int, players: int, seconds: float, repeats: int) -> None:
    import torch

    from uno_env.vector import UnoVectorEnv

    env = UnoVectorEnv("classic", players, games, device="cuda", check_actions=False)
    obs, masks = env.reset(seed=0)
    noise = torch.empty(masks.shape, device="cuda")

    def step():
        noise.uniform_()
        actions = (noise * masks).argmax(1)
        env.step(actions)

    step()
    rate = timed(step, seconds, repeats) * games
    log(f"  engine alone, classic, {players} players, {games:,} games: {rate:,.0f} steps/s", lines)


def policy(players: int, hidden: tuple[int, ...]):
    import torch

    from uno_env.agents.policy import PolicyNetwork

    return PolicyNetwork("knowledge", players, hidden=hidden).to("cuda"), torch


def collection(lines: list[str], games: int, seconds: float, repeats: int) -> None:
    from uno_env.agents import CounterAgent
    from uno_env.vector import UnoVectorEnv

    network, torch = policy(2, (64, 64))
    env = UnoVectorEnv("classic", 2, games, learner_seats=[0], opponents=CounterAgent(0), device="cuda",
                       check_actions=False)  # fmt: skip
    obs, masks = env.reset(seed=0)

    @torch.no_grad()
    def step():
        logits, _ = network(obs, masks.bool())
        actions = torch.distributions.Categorical(logits=logits).sample()
        env.step(actions)

    step()
    rate = timed(step, seconds, repeats) * games
    log(f"  collection against counter, classic, 2 players, 64x64 network, {games:,} games: {rate:,.0f} decisions/s",
        lines)  # fmt: skip


def training(lines: list[str], games: int, updates: int, repeats: int) -> None:
    from uno_env.agents import CounterAgent
    from uno_env.train.batch import Rollout
    from uno_env.train.config import Config
    from uno_env.train.native_ppo import gae, ppo_update
    from uno_env.vector import UnoVectorEnv

    network, torch = policy(2, (64, 64))
    config = Config(num_envs=games, rollout_steps=32, minibatch_size=max(8192, games * 4), hidden=(64, 64))
    optimizer = torch.optim.Adam(network.parameters(), lr=config.learning_rate)
    env = UnoVectorEnv("classic", 2, games, learner_seats=[0], opponents=CounterAgent(0), device="cuda",
                       check_actions=False)  # fmt: skip
    obs, masks = env.reset(seed=0)

    def update():
        rollout = Rollout.empty(config.rollout_steps, games, network.input_size, masks.shape[1], {}, "cuda")
        with torch.no_grad():
            for t in range(config.rollout_steps):
                logits, values = network(obs, masks.bool())
                distribution = torch.distributions.Categorical(logits=logits)
                actions = distribution.sample()
                rollout.obs[t], rollout.masks[t], rollout.actions[t] = obs, masks.bool(), actions
                rollout.logp[t], rollout.values[t] = distribution.log_prob(actions), values
                _, _, rewards, terminated, truncated, _ = env.step(actions)
                rollout.rewards[t] = rewards[:, 0].float()
                rollout.dones[t] = (terminated | truncated).float()
            rollout.last_values = network(obs, masks.bool())[1]
            advantages = gae(rollout.rewards, rollout.values, rollout.dones, rollout.last_values, config.gamma,
                             config.gae_lambda)  # fmt: skip
        ppo_update(network, optimizer, rollout.batch(advantages), config)

    update()
    rates = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(updates):
            update()
        torch.cuda.synchronize()
        rates.append(updates * games * config.rollout_steps / (time.perf_counter() - start))
    log(f"  native PPO on the device engine, against counter, classic, 2 players, 64x64, {games:,} games, "
        f"32 decisions a rollout, 2 epochs: {statistics.median(rates):,.0f} training steps/s", lines)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[8192, 32768, 131072], help="batch sizes to time")
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds a timed repeat runs")
    parser.add_argument("--repeats", type=int, default=2, help="timed repeats (the median is reported)")
    parser.add_argument("--updates", type=int, default=2, help="PPO updates a training repeat")
    parser.add_argument("--check-games", type=int, default=128, help="games of each equivalence check")
    parser.add_argument("--check-steps", type=int, default=60, help="steps of each equivalence check")
    parser.add_argument("--sections", nargs="+", default=["equivalence", "engine", "collection", "training"],
                        choices=["equivalence", "engine", "collection", "training"], help="what to run")
    parser.add_argument("--out", type=Path, default=Path("."), help="folder for engine_gpu_<card>.log")
    args = parser.parse_args(argv)
    import numba
    import torch

    card = torch.cuda.get_device_name().split()[-1].lower() if torch.cuda.is_available() else "none"
    lines: list[str] = []
    log(f"{torch.cuda.get_device_name() if torch.cuda.is_available() else 'no GPU'}; torch {torch.__version__}, "
        f"numba {numba.__version__}, numpy {np.__version__}", lines)  # fmt: skip
    start = time.perf_counter()
    fine = True
    try:
        if "equivalence" in args.sections:
            log("equivalence with the CPU engine (the first case includes compiling the kernels)", lines)
            fine = equivalence(lines, args.check_games, args.check_steps)
        if "engine" in args.sections:
            log("engine alone (observations and masks written every step)", lines)
            for games in args.games:
                for players in (2, 4):
                    engine_alone(lines, games, players, args.seconds, args.repeats)
        if "collection" in args.sections:
            log("collection", lines)
            for games in args.games:
                collection(lines, games, args.seconds, args.repeats)
        if "training" in args.sections:
            log("training", lines)
            for games in args.games:
                training(lines, games, args.updates, args.repeats)
    finally:
        log(f"total {time.perf_counter() - start:.0f} s", lines)
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"engine_gpu_{card}.log").write_text("\n".join(lines) + "\n")
    return 0 if fine else 1


if __name__ == "__main__":
    sys.exit(main())
