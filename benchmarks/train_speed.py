"""Training speed: the native PPO's environment steps per second against SB3 MaskablePPO's, in the same run.

    python benchmarks/train_speed.py                   # classic, 2 players, greedy opponents, 5 repeats
    python benchmarks/train_speed.py --native-threads 2  # the native trainer with two torch threads
    python benchmarks/train_speed.py --native-device cuda --sb3-device cpu  # on a machine with a GPU

Both train against the same opponent (`greedy`) on the same variant, each with its own script's defaults
(native: 2048 games x 32 decisions per update, 2 epochs, a 128x128 network; SB3: 256 games x 64, 4 epochs,
its default 64x64 networks). A step is one learner decision; the rate counts rollouts and updates together
(SB3's `time/fps`), without start-up and evaluation. Repeats take turns; medians are reported, and the
median of each repeat's native / SB3 ratio (its two runs are back to back, so a busy spell of a shared
machine moves both). Beside it, each trainer's collection rate: the steps over the time of its rollouts
alone (acting, the env and the opponents), where the updates' arithmetic does not count. Each trainer runs
on the device its flag names (default `auto`: each library's own choice, CUDA when there is a GPU), and the
report says which.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path


def native_rate(args, out: Path, collectors: int = 1) -> tuple[float, float, str]:
    """(training, collection) steps per second of the native trainer with `collectors` worker processes (1: none),
    and its device."""
    from uno_env.train import native_ppo

    config = native_ppo.Config(
        variant=args.variant, players=args.players, league=(f"{args.opponent}:1",), total_steps=args.native_steps,
        eval_every=0, eval_games=2, checkpoint_every=10**9, out=out, progress=False, device=args.native_device,
        **({} if args.native_threads is None else {"threads": args.native_threads}),
        **{key: value for key, value in (("num_envs", args.native_num_envs), ("hidden", args.native_hidden),
                                         ("minibatch_size", args.native_minibatch_size),
                                         ("epochs", args.native_epochs)) if value is not None},
        overlap=args.native_overlap, collectors=collectors,
    )  # fmt: skip
    summary = native_ppo.train(config)
    return summary["steps_per_second"], summary["rollout_steps_per_second"], summary["device"]


def learner_rate(args) -> tuple[float, str]:
    """(steps per second, device) of the native trainer's arithmetic alone: a rollout's forward passes and action
    draws, then the update (GAE and the PPO epochs), on observation rows that no game made. It is the ceiling of
    training with an engine that costs nothing (a GPU-resident one): the collection's round trips are left out."""
    import numpy as np
    import torch

    from uno_env import observation as O
    from uno_env.agents.policy import PolicyNetwork, sample_actions
    from uno_env.train import native_ppo
    from uno_env.train.batch import Batch

    config = native_ppo.Config(
        players=args.players, **{key: value for key, value in (
            ("num_envs", args.native_num_envs), ("hidden", args.native_hidden),
            ("minibatch_size", args.native_minibatch_size), ("epochs", args.native_epochs)) if value is not None},
    )  # fmt: skip
    device = torch.device("cuda" if args.native_device == "auto" and torch.cuda.is_available() else
                          ("cpu" if args.native_device == "auto" else args.native_device))  # fmt: skip
    if args.native_threads:
        torch.set_num_threads(args.native_threads)
    network = PolicyNetwork("knowledge", args.players, config.hidden).to(device)
    optimizer = torch.optim.Adam(network.parameters(), lr=config.learning_rate, eps=1e-5)
    t_len, b = config.rollout_steps, config.num_envs
    rng = np.random.default_rng(0)
    obs = torch.from_numpy(rng.integers(0, 3, (t_len, b, O.observation_size("knowledge", args.players)), np.int8))
    masks = torch.from_numpy(rng.random((t_len, b, 77)) < 0.1)
    masks[..., 0] = True
    obs, masks = obs.to(device), masks.to(device)
    rewards, dones = torch.zeros((t_len, b), device=device), torch.zeros((t_len, b), device=device)

    def one_update() -> None:
        actions, logp, values = [], [], []
        with torch.inference_mode():
            for t in range(t_len):
                logits, value = network(obs[t], masks[t])
                action = sample_actions(logits)
                actions.append(action)
                logp.append(torch.log_softmax(logits, -1).gather(1, action[:, None]).squeeze(1))
                values.append(value)
            values = torch.stack(values)
            advantages = native_ppo.gae(rewards, values, dones, values[-1], config.gamma, config.gae_lambda)
        batch = Batch(obs=obs.reshape(t_len * b, -1), masks=masks.reshape(t_len * b, -1),
                      actions=torch.stack(actions).reshape(-1), logp=torch.stack(logp).reshape(-1),
                      advantages=advantages.reshape(-1), returns=(advantages + values).reshape(-1))  # fmt: skip
        native_ppo.ppo_update(network, optimizer, batch, config)

    one_update()  # warm-up
    updates = max(1, args.native_steps // (t_len * b))
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(updates):
        one_update()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return updates * t_len * b / (time.perf_counter() - start), str(device)


def sb3_rate(args, out: Path) -> tuple[float, float, str]:
    """(training, collection) steps per second of MaskablePPO (collection timed by a callback around rollouts),
    and its device."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from uno_env.agents.registry import make_agent
    from uno_env.train.sb3_ppo import Config
    from uno_env.wrappers import UnoSB3VecEnv

    class RolloutTimer(BaseCallback):
        def __init__(self):
            super().__init__()
            self.seconds, self.started = 0.0, 0.0

        def _on_rollout_start(self) -> None:
            self.started = time.perf_counter()

        def _on_rollout_end(self) -> None:
            self.seconds += time.perf_counter() - self.started

        def _on_step(self) -> bool:
            return True

    c = Config()
    env = UnoSB3VecEnv(args.variant, args.players, c.num_envs, seed=0, opponents=make_agent(args.opponent, seed=0))
    model = MaskablePPO("MlpPolicy", env, n_steps=c.n_steps, batch_size=c.minibatch_size, n_epochs=c.n_epochs,
                        gamma=c.gamma, seed=0, verbose=0, device=args.sb3_device)  # fmt: skip
    model.learn(c.num_envs * c.n_steps)  # warm-up
    timer = RolloutTimer()
    start = time.perf_counter()
    model.learn(args.sb3_steps, reset_num_timesteps=False, callback=timer)
    return args.sb3_steps / (time.perf_counter() - start), args.sb3_steps / timer.seconds, str(model.device)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponent", default="greedy")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--native-steps", type=int, default=2048 * 32 * 8)
    parser.add_argument("--sb3-steps", type=int, default=256 * 64 * 4)
    parser.add_argument("--native-threads", type=int, default=None, help="torch threads (default: the trainer's)")
    parser.add_argument("--native-device", default="auto", help="the native trainer's --device (auto, cpu, cuda[:N])")
    parser.add_argument("--sb3-device", default="auto", help="MaskablePPO's device (auto, cpu, cuda[:N])")
    parser.add_argument("--native-num-envs", type=int, default=None, help="games stepped together")
    parser.add_argument("--native-hidden", type=int, nargs="+", default=None, help="the native network's layer widths")
    parser.add_argument("--native-minibatch-size", type=int, default=None, help="the native trainer's minibatch size")
    parser.add_argument("--native-epochs", type=int, default=None, help="the native trainer's passes per rollout")
    parser.add_argument("--native-overlap", action="store_true", help="the native trainer's --overlap")
    parser.add_argument("--native-collectors", type=int, nargs="+", default=[1],
                        help="the native trainer's --collectors; several: each in turn in every repeat, with the "
                             "native trainer alone, and the speed-up of each over the first")  # fmt: skip
    parser.add_argument("--no-sb3", action="store_true", help="time the native trainer alone")
    parser.add_argument("--learner-only", action="store_true",
                        help="time the native trainer's arithmetic alone, on rows no game made (the ceiling of an "
                             "engine that costs nothing)")  # fmt: skip
    args = parser.parse_args()
    from uno_env.train import check_device

    for device in (args.native_device, args.sb3_device):
        try:
            check_device(device)  # a clear error before any run, and no silent fallback to the CPU
        except ValueError as error:
            parser.error(str(error))
    if args.learner_only:
        rates = [learner_rate(args) for _ in range(args.repeats)]
        print(f"native PPO arithmetic alone on {rates[0][1]}: {statistics.median(r[0] for r in rates):,.0f} steps/s "
              f"(median of {args.repeats}; {', '.join(f'{r[0]:,.0f}' for r in rates)})")  # fmt: skip
        return
    if len(args.native_collectors) > 1:
        collectors_scaling(args)
        return
    native, sb3 = [], []  # (training rate, collection rate, device) per repeat
    with tempfile.TemporaryDirectory() as tmp:
        for repeat in range(args.repeats):
            native.append(native_rate(args, Path(tmp) / f"native{repeat}", args.native_collectors[0]))
            if args.no_sb3:
                print(f"repeat {repeat}: native {native[-1][0]:,.0f} steps/s (collecting {native[-1][1]:,.0f}) on "
                      f"{native[-1][2]}")  # fmt: skip
                continue
            sb3.append(sb3_rate(args, Path(tmp) / f"sb3{repeat}"))
            print(f"repeat {repeat}: native {native[-1][0]:,.0f} steps/s (collecting {native[-1][1]:,.0f}), "
                  f"SB3 MaskablePPO {sb3[-1][0]:,.0f} steps/s (collecting {sb3[-1][1]:,.0f})")  # fmt: skip
    if args.no_sb3:
        return
    print(f"{args.variant}, {args.players} players, vs {args.opponent}, native PPO on {native[0][2]}, "
          f"SB3 MaskablePPO on {sb3[0][2]}, medians of {args.repeats} repeats:")  # fmt: skip
    for column, what in ((0, "training (rollouts and updates)"), (1, "collection (rollouts alone)")):
        n, s = statistics.median(r[column] for r in native), statistics.median(r[column] for r in sb3)
        # each repeat's two runs are back to back: their ratio is steadier than the medians' on a shared machine
        ratio = statistics.median(a[column] / b[column] for a, b in zip(native, sb3, strict=True))
        print(f"  {what}: native PPO {n:,.0f} env steps/s, SB3 MaskablePPO {s:,.0f}; native / SB3 = {n / s:.1f}x "
              f"(median of the repeats' ratios {ratio:.1f}x)")  # fmt: skip


def collectors_scaling(args) -> None:
    """The native trainer with each `--native-collectors` count in turn in every repeat: medians, and each count's
    speed-up over the first (the median of the repeats' ratios: a repeat's runs are back to back)."""
    counts = args.native_collectors
    rates: dict[int, list[tuple[float, float, str]]] = {count: [] for count in counts}
    with tempfile.TemporaryDirectory() as tmp:
        for repeat in range(args.repeats):
            for count in counts:
                rates[count].append(native_rate(args, Path(tmp) / f"native{repeat}-{count}", count))
                train_rate, collect_rate, device = rates[count][-1]
                print(f"repeat {repeat}, {count} collector(s): {train_rate:,.0f} steps/s (collecting "
                      f"{collect_rate:,.0f}) on {device}", flush=True)  # fmt: skip
    print(f"{args.variant}, {args.players} players, vs {args.opponent}, native PPO, medians of {args.repeats} repeats:")
    first = rates[counts[0]]
    for count in counts:
        mine = rates[count]
        train_rate, collect_rate = (statistics.median(r[column] for r in mine) for column in (0, 1))
        speedup = [statistics.median(a[column] / b[column] for a, b in zip(mine, first, strict=True))
                   for column in (0, 1)]  # fmt: skip
        print(f"  {count} collector(s): training {train_rate:,.0f} steps/s ({speedup[0]:.2f}x), collection "
              f"{collect_rate:,.0f} ({speedup[1]:.2f}x)")  # fmt: skip


if __name__ == "__main__":
    main()
