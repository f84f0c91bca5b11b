"""Native PPO: a readable PPO in PyTorch on the batched vector env, with a league of opponents.

    python -m uno_env.train.native_ppo --variant classic --players 2 --minutes 30 --out runs/classic
    python -m uno_env.train.native_ppo --recipe main --minutes 5 --out runs/quickstart   # a named recipe
    python -m uno_env.train.native_ppo --resume runs/classic/checkpoint.pt --minutes 10   # go on where it stopped
    tensorboard --logdir runs/

The learner plays one seat in every game of a `League` of opponents (baselines, other agents, and frozen snapshots
of itself, redrawn every `snapshot_every` updates). Each update collects `rollout_steps` decisions from every game
(`Collector`), computes GAE advantages (`gae`) and runs `epochs` passes of clipped PPO over minibatches
(`ppo_update`), with masked logits (illegal actions have probability 0, `uno_env.agents.policy.PolicyNetwork`).
It uses a GPU when there is one.

With `--imitate counter` the run starts by kickstarting: for `imitate_steps` decisions the learner's seat
is played by that baseline and the network learns its actions (cross-entropy) and the value of its play
(`imitation_update`); PPO then improves on it. With `--imitate-weight` the baseline goes on deciding in the
learner's states and the PPO loss keeps a cross-entropy toward its choices, its weight fading to 0
(`kickstart_weight`); `--entropy-floor` raises the entropy bonus while the policy's entropy is below it
(`next_entropy_boost`); `--paired-deals` has the league deal every deal to every seat (`League`).

The training aids (a seer critic, a hand head, an oracle input, a teacher: `uno_env.train.aids`) enter through
the run's `Aids`: the forward pass, the losses and the rollouts call them without knowing which there are.

Every `eval_every` updates the greedy policy plays `eval_games` paired games against each `eval_against`
baseline (`uno_env.train.league`). The run writes `policy.pt` (the policy file, an agent for `uno-arena --agents
ppo:PATH`), `checkpoint.pt` (everything needed to resume: `uno_env.train.checkpoint`), `learning_curve.png` and
TensorBoard logs (losses, entropy, the league win rate, evaluations, steps per second) to `out`. The settings are
`Config` (`uno_env.train.config`), a flag each; named recipes of them are in `uno_env.train.recipes`.
"""

from __future__ import annotations

import copy
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from uno_env.agents.registry import make_agent
from uno_env.extras import require_extra
from uno_env.train import run_trainer
from uno_env.train.aids import Aids, HandHead, OracleInput, SeerCritic, Teacher
from uno_env.train.batch import Batch, Rollout
from uno_env.train.checkpoint import (
    CHECKPOINT_FORMAT,
    load_checkpoint,
    prepared,
    restore,
    save_checkpoint,
    save_policy,
    save_snapshot,
    training_device,
)
from uno_env.train.collectors import IMITATED_SEED_OFFSET, Collector, ProcessCollectors
from uno_env.train.config import Config, build_parser, describe, parse_args
from uno_env.train.league import League, evaluate, log_evaluation
from uno_env.train.recipes import expand_recipes

try:  # the train extra: without it the module still imports, so `uno-train --help` works and a run names the extra
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from uno_env.agents.policy import PolicyNetwork, load_policy_file
except ModuleNotFoundError:
    pass  # main() and train() say which extra to install

#: what training needs of the train extra
TRAIN_MODULES = ("torch", "tensorboard")
#: --entropy-floor: the entropy coefficient rises to at most this many times --entropy-coef
ENTROPY_BOOST_MAX = 32.0

__all__ = [  # the names other code reads from here (the settings, the files and the league live in their rooms)
    "CHECKPOINT_FORMAT", "TRAIN_MODULES", "Aids", "Batch", "Collector", "Config", "HandHead", "League",
    "OracleInput", "Rollout", "SeerCritic", "Teacher", "build_parser", "describe", "evaluate", "gae",
    "imitation_update", "kickstart_weight", "load_checkpoint", "main", "next_entropy_boost", "parameters",
    "parse_args", "ppo_update", "train",
]  # fmt: skip


def gae(rewards, values, dones, last_values, gamma: float, lam: float) -> torch.Tensor:
    """Generalized advantage estimates over a (T, B) rollout; dones[t] ends the episode after step t."""
    advantages = torch.zeros_like(rewards)
    running = torch.zeros_like(last_values)
    for t in reversed(range(rewards.shape[0])):
        next_values = last_values if t == rewards.shape[0] - 1 else values[t + 1]
        not_done = 1.0 - dones[t]
        delta = rewards[t] + gamma * next_values * not_done - values[t]
        running = delta + gamma * lam * not_done * running
        advantages[t] = running
    return advantages


def kickstart_weight(config: Config, steps: int) -> float:
    """`--imitate-weight` after `steps` decisions: 0 while the baseline plays (imitation), then falling linearly from
    `imitate_weight` to 0 over `imitate_decay_steps` decisions of PPO."""
    if not config.imitate_weight or steps < config.imitate_steps:
        return 0.0
    return config.imitate_weight * max(0.0, 1.0 - (steps - config.imitate_steps) / config.imitate_decay_steps)


def next_entropy_boost(boost: float, entropy: float, floor: float) -> float:
    """`--entropy-floor`: the entropy coefficient's multiplier after an update whose mean entropy was `entropy`:
    doubled below the floor (up to `ENTROPY_BOOST_MAX`), halved back toward 1 above it; always 1 without a floor."""
    if not floor:
        return 1.0
    return min(ENTROPY_BOOST_MAX, boost * 2.0) if entropy < floor else max(1.0, boost / 2.0)


def parameters(network, aids: Aids | None = None) -> list[torch.nn.Parameter]:
    """The trained parameters: the policy network's, then the aids' (a seer critic, a hand head, an oracle input)."""
    return list(network.parameters()) + (aids.parameters() if aids is not None else [])


def gradient_step(optimizer, trained, config: Config, loss, losses: dict, stats: dict, logged: dict) -> None:
    """One step on `loss` plus the aids' `losses`, its gradient clipped to `max_grad_norm` over the `trained`
    parameters; then adds `logged` (the values to report) and `losses` to `stats`, summed as tensors and read once
    at the end: `.item()` on a GPU waits for its queue."""
    for term in losses.values():
        loss = loss + term
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(trained, config.max_grad_norm)
    optimizer.step()
    with torch.no_grad():
        for name, value in {**logged, **losses}.items():
            stats[name] = stats.get(name, 0.0) + value


def ppo_update(network, optimizer, batch: Batch, config: Config, aids: Aids | None = None, fraction: float = 0.0,
               kickstart: float = 0.0, entropy_coef: float | None = None) -> dict[str, float]:  # fmt: skip
    """`epochs` passes of clipped PPO over shuffled minibatches, with the aids' losses (`fraction`: of the run's
    budget spent, for their schedules), plus `kickstart` times the cross-entropy toward the imitated baseline's
    actions (`batch.imitated`) when it is above 0; `entropy_coef` in place of the config's (an entropy floor's);
    returns the mean losses.

    The losses are summed as tensors and read once at the end: `.item()` on a GPU waits for its queue."""
    aids = aids or Aids()
    trained = parameters(network, aids)
    stats: dict[str, Any] = dict.fromkeys(("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction"), 0.0)
    entropy_coef = config.entropy_coef if entropy_coef is None else entropy_coef
    kickstart = kickstart if batch.imitated is not None else 0.0
    steps = 0
    for _ in range(config.epochs):
        for mb in batch.minibatches(config.minibatch_size):
            logits, values, features = aids.forward(network, mb.obs, mb.masks, mb.aids)
            log_probs = torch.log_softmax(logits, -1)
            new_logp = log_probs.gather(1, mb.actions[:, None]).squeeze(1)
            # softmax, not log_probs.exp(): on CPU, exp of the masked entries' -1e9 takes ~15x longer
            probs = torch.softmax(logits, -1)
            entropy = -(probs * log_probs).masked_fill(~mb.masks, 0.0).sum(-1).mean()
            advantages = (mb.advantages - mb.advantages.mean()) / (mb.advantages.std() + 1e-8)
            log_ratio = new_logp - mb.logp
            ratio = log_ratio.exp()
            policy_loss = torch.max(-advantages * ratio, -advantages * ratio.clamp(1 - config.clip, 1 + config.clip))
            policy_loss = policy_loss.mean()
            value_loss = 0.5 * (values - mb.returns).pow(2).mean()
            losses = aids.losses(features, logits, mb.masks, mb.aids, fraction)
            loss = policy_loss + config.value_coef * value_loss - entropy_coef * entropy
            with torch.no_grad():
                logged = {
                    "policy_loss": policy_loss, "value_loss": value_loss, "entropy": entropy,
                    "approx_kl": ((ratio - 1) - log_ratio).mean(),
                    "clip_fraction": ((ratio - 1).abs() > config.clip).float().mean(),
                }  # fmt: skip
            if kickstart:  # --imitate-weight: toward the baseline's action in the learner's own states
                kickstart_loss = torch.nn.functional.cross_entropy(logits, mb.imitated)
                loss = loss + kickstart * kickstart_loss
                logged["kickstart_loss"] = kickstart_loss.detach()
            gradient_step(optimizer, trained, config, loss, losses, stats, logged)
            steps += 1
    return {k: float(v) / max(steps, 1) for k, v in stats.items()}


def imitation_update(network, optimizer, batch: Batch, config: Config, aids: Aids | None = None) -> dict[str, float]:
    """One pass of cross-entropy on the imitated baseline's actions plus the value loss and the aids' losses (a
    teacher rests), over shuffled minibatches; returns the mean losses."""
    aids = aids or Aids()
    trained = parameters(network, aids)
    stats: dict[str, Any] = dict.fromkeys(("imitation_loss", "imitation_accuracy", "value_loss"), 0.0)
    steps = 0
    for mb in batch.minibatches(config.minibatch_size):
        logits, values, features = aids.forward(network, mb.obs, mb.masks, mb.aids)
        imitation_loss = torch.nn.functional.cross_entropy(logits, mb.actions)
        value_loss = 0.5 * (values - mb.returns).pow(2).mean()
        losses = aids.losses(features, logits, mb.masks, mb.aids, None)
        loss = imitation_loss + config.value_coef * value_loss
        with torch.no_grad():
            accuracy = (logits.argmax(-1) == mb.actions).float().mean()
        logged = {"imitation_loss": imitation_loss, "value_loss": value_loss, "imitation_accuracy": accuracy}
        gradient_step(optimizer, trained, config, loss, losses, stats, logged)
        steps += 1
    return {k: float(v) / max(steps, 1) for k, v in stats.items()}


def train(config: Config) -> dict[str, Any]:
    """Train per `config` (see the module docstring); returns a summary with the final evaluation."""
    require_extra("training", *TRAIN_MODULES)
    config, state = prepared(config)
    run = Run(config, state)
    try:
        run.collector.start()  # --collectors: the workers start (and deal their games) before the clock does
        return run.loop()
    finally:
        run.collector.close()  # --collectors: the worker processes


class Run:
    """One run of `train`: the learner, its aids and optimizer, the league and its collector, and how far it got."""

    def __init__(self, config: Config, state: dict[str, Any] | None):
        self.config = config
        self.device = device = training_device(config.device)
        if config.threads:
            torch.set_num_threads(config.threads)
        torch.manual_seed(config.seed)
        rng = np.random.default_rng(config.seed)
        self.network = PolicyNetwork(config.observation, config.players, config.hidden, config.hint).to(device)
        self.aids = Aids.build(config, device)
        self.optimizer = torch.optim.Adam(parameters(self.network, self.aids), lr=config.learning_rate, eps=1e-5)
        self.update, self.steps, self.minutes_before = 0, 0, 0.0
        if state is None and config.init_policy is not None:  # fine-tuning: the file's weights, checked in validate
            start = PolicyNetwork.from_file_dict(load_policy_file(config.init_policy), str(config.init_policy))
            self.network.load_state_dict(start.state_dict())
        if state is not None:
            restore(state, self.modules(), self.optimizer)
            self.update, self.steps, self.minutes_before = state["update"], state["steps"], state["minutes"]
            rng = np.random.default_rng([config.seed, self.update])
        self.league = League(config, self.network, rng, str(device))
        if state is not None:
            self.league.restore(state["snapshots"], self.network)
        imitated = (self.league.bind(make_agent(config.imitate, seed=config.seed + IMITATED_SEED_OFFSET))
                    if config.imitate else None)
        self.out = Path(config.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.writer = SummaryWriter(self.out / "tensorboard")
        reset_seed = config.seed * 10**9 + self.update * config.num_envs
        if config.collectors > 1:  # the games in worker processes, a shard each, filling shared rollouts
            self.collector = ProcessCollectors(config, self.league, self.network, self.aids, reset_seed)
        else:
            self.collector = Collector(config, self.league, self.aids, imitated, device, rng, reset_seed)
        self.rollouts = [self.collector.new_rollout(self.network) for _ in range(2 if config.overlap else 1)]
        # with --overlap the rollouts are acted by a copy of the network (and of the aids that act), synced after
        # each rollout, so that the update can change the network while the next rollout is being collected
        if config.overlap:
            self.actor = (copy.deepcopy(self.network), self.aids.acting_copy())
        else:
            self.actor = (self.network, self.aids)
        self.imitating_until = config.imitate_steps if imitated is not None and config.init_policy is None else 0
        self.entropy_boost = 1.0  # --entropy-floor's multiplier of the entropy coefficient (`next_entropy_boost`)
        self.steps_per_update = config.num_envs * config.rollout_steps
        self.history: list[tuple[int, str, float, float, float]] = state["history"] if state is not None else []
        # every command of the run, the first one and each resume, so that its policy file says how to remake it
        command = "python -m uno_env.train.native_ppo " + " ".join(expand_recipes(sys.argv[1:]))
        self.commands = [*(state.get("commands", []) if state is not None else []), command]
        self.started, self.next_snapshot = 0.0, config.snapshot_seconds  # set when the loop starts
        self.evaluation: dict[str, tuple[float, float, float]] = {}

    def modules(self) -> dict[str, torch.nn.Module | None]:
        """What the checkpoint keeps of the learner, by key: the network and the aids that learn."""
        return {"network": self.network, **self.aids.checkpointed()}

    def fraction(self) -> float:
        """The fraction of the budget spent, by the clock: the learning rate and the aids' schedules follow it."""
        return min(1.0, (time.perf_counter() - self.started) / (self.config.minutes * 60))

    def imitating(self, ahead: int = 0) -> bool:
        """Whether the rollout that the update `ahead` updates from now reads is played by the imitated baseline."""
        return self.steps + ahead * self.steps_per_update < self.imitating_until

    def kickstarting(self, ahead: int = 0) -> bool:
        """Whether that rollout needs the imitated baseline's actions beside the network's (`--imitate-weight`)."""
        return kickstart_weight(self.config, self.steps + ahead * self.steps_per_update) > 0

    def loop(self) -> dict[str, Any]:
        """Collect and update until the budget is spent (collecting the next rollout during each update with
        --overlap), with the snapshots, evaluations and checkpoints on their schedules; returns the summary."""
        config, network, league, collector = self.config, self.network, self.league, self.collector
        pool = ThreadPoolExecutor(1, thread_name_prefix="collector") if config.overlap else None
        pending, snapshot_due = None, False
        steps_per_update = self.steps_per_update
        budget_steps = min(config.total_steps, self.steps + int(1e15))
        self.started = started = time.perf_counter()
        deadline = started + config.minutes * 60
        bar = tqdm(total=int(config.minutes * 60), unit="s", disable=not config.progress, desc="native PPO")
        train_seconds, steps_at_start = 0.0, self.steps  # rollouts and updates, without evaluations and saving
        collect_seconds = 0.0  # rollouts alone
        while time.perf_counter() < deadline and self.steps + steps_per_update <= budget_steps:
            iteration_started = time.perf_counter()
            fraction, imitating = self.fraction(), self.imitating()
            for group in self.optimizer.param_groups:
                group["lr"] = config.learning_rate * (1.0 - 0.9 * fraction)
            if pending is None:
                rollout = collector.collect(self.rollouts[0], *self.actor, imitating, fraction, self.kickstarting())
            else:  # collected while the last update ran, by the weights before it
                rollout = pending.result()
                self.rollouts.reverse()
            win_rate = collector.league_win_rate()  # read while no rollout runs
            if snapshot_due:  # no rollout is running now: the `self` opponents can change
                league.add_snapshot(network)
                snapshot_due = False
            if config.overlap:
                self.sync_actor()
                pending = None
                if self.steps + 2 * steps_per_update <= budget_steps:
                    ahead = self.imitating(ahead=1), self.fraction(), self.kickstarting(ahead=1)
                    pending = pool.submit(collector.collect, self.rollouts[1], *self.actor, *ahead)
            update_started = time.perf_counter()
            stats = self.learn(self.rollouts[0], rollout, fraction)
            self.update += 1
            self.steps += steps_per_update
            update_seconds = time.perf_counter() - update_started
            iteration_seconds = time.perf_counter() - iteration_started
            train_seconds += iteration_seconds
            collect_seconds += rollout["seconds"]
            self.log(rollout, stats, win_rate, iteration_seconds, update_seconds)
            imitated_enough = rollout["imitating"] and self.steps >= config.imitate_steps
            if self.update % config.snapshot_every == 0 or imitated_enough:
                if pending is None:
                    league.add_snapshot(network)
                else:  # the next rollout plays the `self` opponents now: change them when it is read
                    snapshot_due = True
            self.on_schedule(bar)
            bar.n = min(bar.total, int(time.perf_counter() - started))
            bar.set_postfix(steps=self.steps, sps=int(steps_per_update / iteration_seconds))
        if pending is not None:  # a rollout that no update will read: let it finish, then leave
            pending.result()
        if pool is not None:
            pool.shutdown()
        if snapshot_due:
            league.add_snapshot(network)
        bar.close()
        self.finish()
        return {
            "updates": self.update, "steps": self.steps, "evaluation": self.evaluation, "out": str(self.out),
            "device": str(self.device), "steps_per_second": (self.steps - steps_at_start) / max(train_seconds, 1e-9),
            "rollout_steps_per_second": (self.steps - steps_at_start) / max(collect_seconds, 1e-9),
        }  # fmt: skip

    def sync_actor(self) -> None:
        """The acting copies (with --overlap) take the learner's current weights."""
        self.actor[0].load_state_dict(self.network.state_dict())
        self.actor[1].load_from(self.aids)

    def learn(self, rollout: Rollout, collected: dict[str, Any], fraction: float) -> dict[str, float]:
        """GAE over `rollout`, then one update: imitation while the learner imitated (`collected` says), else PPO,
        with the kickstart loss's weight and the entropy floor's coefficient."""
        config = self.config
        if rollout.actions.device != self.device:  # --collectors: the shared rollout on the CPU, the learner on a GPU
            rollout = rollout.to(self.device)
        advantages = gae(rollout.rewards, rollout.values, rollout.dones, rollout.last_values, config.gamma,
                         config.gae_lambda)  # fmt: skip
        batch = rollout.batch(advantages)
        self.network.train()
        self.aids.train()
        if collected["imitating"]:
            return imitation_update(self.network, self.optimizer, batch, config, self.aids)
        kickstart = kickstart_weight(config, self.steps) if collected["kickstart"] else 0.0
        entropy_coef = config.entropy_coef * self.entropy_boost
        stats = ppo_update(self.network, self.optimizer, batch, config, self.aids, fraction, kickstart, entropy_coef)
        self.entropy_boost = next_entropy_boost(self.entropy_boost, stats["entropy"], config.entropy_floor)
        return {**stats, "entropy_coef": entropy_coef, "kickstart_weight": kickstart}

    def log(self, rollout: dict[str, Any], stats: dict[str, float], win_rate: float | None, iteration_seconds: float,
            update_seconds: float) -> None:  # fmt: skip
        """An update's speed, losses, learning rate, the aids' schedules and the league win rate, to TensorBoard."""
        writer, steps, steps_per_update = self.writer, self.steps, self.steps_per_update
        writer.add_scalar("speed/rollout_steps_per_second", steps_per_update / rollout["seconds"], steps)
        writer.add_scalar("speed/steps_per_second", steps_per_update / iteration_seconds, steps)
        writer.add_scalar("speed/update_seconds", update_seconds, steps)
        for key, value in stats.items():
            writer.add_scalar(f"loss/{key}", value, steps)
        writer.add_scalar("loss/learning_rate", self.optimizer.param_groups[0]["lr"], steps)
        for key, value in self.aids.scalars(rollout["fraction"]).items():
            writer.add_scalar(f"loss/{key}", value, steps)
        if win_rate is not None:
            writer.add_scalar("episodes/league_win_rate", win_rate, steps)

    def on_schedule(self, bar) -> None:
        """After an update: the evaluation, the checkpoint and the timed policy snapshot, when they are due."""
        config = self.config
        if config.eval_every and self.update % config.eval_every == 0:
            self.evaluation = log_evaluation(self.network, config, self.writer, self.steps, self.update, bar,
                                             self.history)  # fmt: skip
        if self.update % config.checkpoint_every == 0:
            self.save()
        if config.snapshot_seconds and time.perf_counter() - self.started >= self.next_snapshot:
            seconds = time.perf_counter() - self.started
            save_snapshot(self.network, config, self.out, seconds, self.steps, self.update)
            late = time.perf_counter() - self.started - self.next_snapshot
            self.next_snapshot += config.snapshot_seconds * (1 + late // config.snapshot_seconds)

    def finish(self) -> None:
        """The last policy snapshot, the final evaluation (unless the last update made it) and the files."""
        config = self.config
        if config.snapshot_seconds:  # the last policy, at the end of training
            save_snapshot(self.network, config, self.out, time.perf_counter() - self.started, self.steps, self.update)
        if not (config.eval_every and self.update % config.eval_every == 0 and self.evaluation):
            self.evaluation = log_evaluation(self.network, config, self.writer, self.steps, self.update, None,
                                             self.history)  # fmt: skip
        self.save()
        self.writer.close()

    def save(self) -> None:
        """checkpoint.pt and policy.pt: tensors and plain values only (`load_checkpoint` reads with weights_only)."""
        config, out = self.config, self.out
        save_checkpoint(out / "checkpoint.pt", config, self.modules(), self.optimizer, update=self.update,
                        steps=self.steps, minutes=self.minutes_before + (time.perf_counter() - self.started) / 60,
                        snapshots=self.league.snapshots, history=self.history, commands=self.commands)  # fmt: skip
        save_policy(out / "policy.pt", self.network, config, steps=self.steps, updates=self.update,
                    minutes=round(self.minutes_before + (time.perf_counter() - self.started) / 60, 2),
                    commands=self.commands)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    return run_trainer(build_parser(), argv, TRAIN_MODULES, train, announce=describe,
                       report=lambda summary: f"trained {summary['steps']} steps in {summary['updates']} updates; "
                                              f"policy in {summary['out']}/policy.pt")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
