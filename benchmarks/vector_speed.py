"""Vector env throughput and MaskablePPO training speed, against RLCard's UNO in the same run.

    pip install -e ".[bench]"                # RLCard, for the comparison
    python benchmarks/vector_speed.py        # unocorns, 4 players, 4096 games, self-play

A step is one decision in one game. Random legal actions are drawn in numpy from the returned masks
(float noise times the mask, argmax: uniform over the legal actions), and observations and masks are
written every step. Reports medians of `--repeats` timed runs, taking turns with RLCard within every
repeat. Then MaskablePPO ("MlpPolicy", n_steps=64,
batch_size=4096, n_epochs=4: SB3's default batch of 64 would time its optimizer, not the env) trains on
`UnoSB3VecEnv` (classic, 2 players, random opponent) and its environment steps per second are reported.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from reference import interleaved_medians, rlcard_available, rlcard_rate

from uno_env.vector import UnoVectorEnv


def vector_rate(env: UnoVectorEnv, steps: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    _, masks = env.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(steps):
        noise = rng.random(masks.shape, dtype=np.float32)
        noise *= masks
        _, masks, *_ = env.step(noise.argmax(axis=1))
    return steps * env.num_envs / (time.perf_counter() - start)


def maskable_ppo_rate(num_envs: int, timesteps: int) -> float:
    from sb3_contrib import MaskablePPO

    from uno_env.agents import RandomAgent
    from uno_env.wrappers import UnoSB3VecEnv

    env = UnoSB3VecEnv("classic", 2, num_envs, opponents=RandomAgent(0), seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=4096, n_epochs=4, seed=0, verbose=0)
    model.learn(num_envs * 64)  # warm-up: compiles, fills the first rollout
    start = time.perf_counter()
    model.learn(timesteps)
    return timesteps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="unocorns")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=60, help="vector steps per timed run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--ppo-envs", type=int, default=256)
    parser.add_argument("--ppo-timesteps", type=int, default=65_536)
    args = parser.parse_args()
    warnings.simplefilter("ignore")

    measures = {}
    if rlcard_available():
        measures["RLCard"] = lambda seed: rlcard_rate(20_000, seed)
    sizes = {}
    for level in ("knowledge", "minimal"):
        env = UnoVectorEnv(args.variant, args.players, args.num_envs, observation=level)
        sizes[level] = env.observation_size
        measures[level] = lambda seed, env=env: vector_rate(env, args.steps, seed)
    rates = interleaved_medians(measures, args.repeats)
    reference = rates.pop("RLCard", None)
    if reference:
        print(f"RLCard UNO env.step (2 players): {reference:>12,.0f} steps/s")
    for level, rate in rates.items():
        ratio = f" ({rate / reference:.0f}x RLCard)" if reference else ""
        print(
            f"UnoVectorEnv {args.variant}, {args.players} players, {args.num_envs} games, {level} observations "
            f"({sizes[level]} bytes): {rate:,.0f} steps/s{ratio}"
        )
    ppo = maskable_ppo_rate(args.ppo_envs, args.ppo_timesteps)
    print(f"MaskablePPO on UnoSB3VecEnv (classic, 2 players, {args.ppo_envs} envs): {ppo:,.0f} env steps/s")


if __name__ == "__main__":
    main()
