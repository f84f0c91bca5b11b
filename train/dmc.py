"""Deep Monte-Carlo: a Q-network with the action as an input, regressed on whole-episode returns (DouZero's learner).

    python -m uno_env.train.dmc --variant classic --players 2 --minutes 30 --out runs/dmc
    python -m uno_env.train.dmc --resume runs/dmc/checkpoint.pt --minutes 10   # go on where it stopped
    uno-arena --agents dmc:runs/dmc/policy.pt counter                        # seat the result

The learner plays one seat in every game of the same `League` as the native PPO (baselines, any agent by name, and
`self`, frozen snapshots of the learner). Every decision it takes is epsilon-greedy on Q(s, a)
(`uno_env.agents.dmc_agent.QNetwork`, which scores every legal action of every game in one batched pass): with
probability `epsilon` a uniformly random legal action, else the action of highest Q. For its first
`imitate_steps` decisions a baseline (`counter`) plays the learner's seat instead, with random departures
(`imitate_epsilon`), so that Q starts from the values of a sound policy (a kickstart, as uno-train's main recipe
has). Each decision waits in
`Episodes` until its game ends; its target is then the learner's return from it to the end, undiscounted (with
the `win` reward: the game's final reward, +1 for a win). Each update collects `rollout_steps` decisions of every
game and regresses Q(s, a) of the decisions whose games ended on those returns (mean squared error), `epochs`
passes over shuffled minibatches. No bootstrapping, no critic: Monte-Carlo returns, as DouZero's actors feed its
learner, with the vector env's thousands of games as the many actors.

The run writes the same files as the PPO's (`uno_env.train.checkpoint`): `checkpoint.pt` (resume), `policy.pt`
(a DMC policy file, an agent for `uno-arena --agents dmc:PATH`), timed snapshots with `--snapshot-seconds`,
`learning_curve.png` and TensorBoard logs. The settings are `DMCConfig`, a flag each.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from tqdm import tqdm

from uno_env import VARIANTS, make_rules
from uno_env import actions as A
from uno_env import observation as O
from uno_env.agents.baselines import BASELINES
from uno_env.agents.registry import make_agent
from uno_env.cli import (
    Flag,
    fraction,
    nonnegative_float,
    nonnegative_int,
    parser_from_dataclass,
    positive_float,
    positive_int,
)
from uno_env.extras import require_extra
from uno_env.records import write_atomic
from uno_env.train import check_device, run_trainer
from uno_env.train.checkpoint import (
    prepared,
    restore,
    save_checkpoint,
    save_policy,
    save_snapshot,
    training_device,
)
from uno_env.train.collectors import IMITATED_SEED_OFFSET
from uno_env.train.config import Config, describe
from uno_env.train.league import League, evaluate, learning_curve_figure

try:  # the train extra: without it the module still imports, so `uno-train-dmc --help` works
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from uno_env.agents.dmc_agent import QNetwork
except ModuleNotFoundError:
    pass  # main() and train() say which extra to install

#: what training needs of the train extra
TRAIN_MODULES = ("torch", "tensorboard")
#: the first line of `uno-train-dmc --help`
DESCRIPTION = "Deep Monte-Carlo: Q(s, a) with the action as an input, regressed on whole-episode returns."


@dataclass
class DMCConfig:
    """Deep Monte-Carlo training: every field is a flag of uno-train-dmc (`foo_bar` as --foo-bar)."""

    variant: str = "classic"
    """The variant (which preset of rules) to train on."""
    players: int = 2
    """Players at the table; the learner takes one seat, the league the others."""
    options: tuple[str, ...] = ()
    """Rule options over the variant's defaults as NAME=VALUE (`uno_env.rules.OPTION_NAMES`): one per --option."""
    observation: Annotated[str, Flag(choices=O.LEVELS)] = "knowledge"
    """The observation level the Q-network reads (minimal, knowledge, belief; seer sees every hand: a measure, not
    an honest player)."""
    league: tuple[str, ...] = ("counter:4", "greedy:1", "self:3")
    """Opponents as NAME:SHARE (the share of games each plays), as uno-train's: agent names, and `self` for past
    snapshots of the learner (which sample from the softmax of their Q-values over a small temperature)."""
    epsilon: Annotated[float, fraction] = 0.01
    """The probability that a learner decision is a uniformly random legal action (exploration), as DouZero's."""
    imitate: str = "counter"
    """A baseline (by name; "" for none) that plays the learner's seat for the first `imitate_steps` decisions, each
    decision replaced by a random legal action with probability `imitate_epsilon`: Q learns the value of its
    moves and of departures from them, so the greedy Q-policy starts as one step of policy improvement over it.
    From a fresh network, epsilon-greedy play draws almost everywhere and loses every game to the league, and
    returns that are all -1 teach Q nothing (the same kickstart as uno-train's main recipe)."""
    imitate_steps: Annotated[int, nonnegative_int] = 2_000_000
    """Decisions played by the imitated baseline (counted in the budget)."""
    imitate_epsilon: Annotated[float, fraction] = 0.2
    """The probability of a random legal action in place of the imitated baseline's."""
    minutes: Annotated[float, positive_float] = 30.0
    """Wall-clock budget of this run (training stops at whichever of minutes and total_steps comes first)."""
    total_steps: Annotated[int, positive_int] = 10**12
    """Budget in learner decisions (of the whole run, resumes included)."""
    num_envs: Annotated[int, positive_int] = 512
    """Games stepped together: the actors."""
    rollout_steps: Annotated[int, positive_int] = 32
    """Decisions collected from every game per update."""
    epochs: Annotated[int, positive_int] = 1
    """Passes over each update's finished decisions."""
    minibatch_size: Annotated[int, positive_int] = 2048
    """Decisions per gradient step."""
    learning_rate: Annotated[float, positive_float] = 1e-3
    """Adam's step size."""
    max_grad_norm: Annotated[float, positive_float] = 1.0
    """Gradient norm clip."""
    hidden: Annotated[tuple[int, ...], positive_int] = (128, 128)
    """Widths of the MLP's layers (the first reads the observation and the action's features)."""
    snapshot_every: Annotated[int, positive_int] = 10
    """Updates between league snapshots of the learner (and redraws of the `self` opponents)."""
    league_size: Annotated[int, positive_int] = 20
    """Past snapshots kept."""
    eval_every: Annotated[int, nonnegative_int] = 50
    """Updates between evaluations of the greedy Q-policy (0: only at the end)."""
    eval_games: Annotated[int, positive_int] = 2000
    """Paired games per evaluation opponent."""
    eval_against: tuple[str, ...] = ("counter",)
    """Agents the evaluation plays."""
    checkpoint_every: Annotated[int, positive_int] = 50
    """Updates between checkpoints."""
    snapshot_seconds: Annotated[float, nonnegative_float] = 0.0
    """Seconds of training between policy snapshots written to out/snapshots/ (0: none)."""
    seed: int = 0
    """Seeds the games, the network and the exploration."""
    device: str = "auto"
    """auto (cuda when there is one), cpu, cuda or cuda:N."""
    threads: Annotated[int, nonnegative_int] = 1
    """torch CPU threads (0: torch's default)."""
    out: Path = Path("runs/dmc")
    """Folder for policy.pt, checkpoint.pt and the TensorBoard logs."""
    resume: Path | None = None
    """A checkpoint.pt of uno-train-dmc to go on from (its settings are kept; the budget flags of this command
    apply)."""
    progress: bool = True
    """Show a progress bar."""

    rule_options = Config.rule_options  # the same readings of --option and --league as uno-train's
    league_shares = Config.league_shares
    hint = ""  # the league's adviser: a Q-network reads none

    def validate(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown variant {self.variant!r}; the variants are {', '.join(VARIANTS)}")
        if self.observation not in O.LEVELS:
            raise ValueError(f"observation must be one of {', '.join(O.LEVELS)}, got {self.observation!r}")
        make_rules(self.variant, **self.rule_options).check_players(self.players)  # the engine's message
        if not self.league or any(share <= 0 for share in self.league_shares.values()):
            raise ValueError(f"league needs opponents with positive shares, got {self.league!r}")
        for name in [n for n in self.league_shares if n != "self"] + list(self.eval_against):
            make_agent(name)  # a clear error for an unknown agent, now rather than after training
        if not self.eval_against:
            raise ValueError("eval_against needs at least one agent")
        if self.imitate and self.imitate not in BASELINES:
            raise ValueError(f"--imitate takes a baseline: {', '.join(BASELINES)}; got {self.imitate!r}")
        if not self.hidden:
            raise ValueError("hidden needs at least one layer width")
        if self.num_envs < len(self.league):
            raise ValueError(f"num_envs ({self.num_envs}) must give every league opponent a game")
        if self.resume is None and self.total_steps < self.num_envs * self.rollout_steps:
            raise ValueError(f"total_steps {self.total_steps} trains nothing: one update takes num_envs * "
                             f"rollout_steps = {self.num_envs * self.rollout_steps} decisions")  # fmt: skip
        check_device(self.device)


def returns_to_go(episodes: np.ndarray, rewards: np.ndarray) -> np.ndarray:
    """Each decision's undiscounted return: the sum of its episode's rewards from it on. `episodes` (N,) names each
    decision's episode, `rewards` (N,) the reward it earned; within an episode the rows are in time order."""
    order = np.argsort(episodes, kind="stable")
    ids, earned = episodes[order], rewards[order]
    running = np.cumsum(earned)
    last = np.r_[np.flatnonzero(np.diff(ids)), len(ids) - 1]  # each episode's last row, in sorted order
    group_last = np.repeat(last, np.diff(np.r_[-1, last]))
    out = np.empty(len(ids))
    out[order] = running[group_last] - (running - earned)
    return out


class Episodes:
    """The learner's decisions in games still being played, until each game's end gives them their returns."""

    def __init__(self, num_envs: int):
        self.current = np.arange(num_envs)  # each game's episode id
        self.next_id = num_envs
        self.rows: dict[str, list[np.ndarray]] = {key: [] for key in ("obs", "actions", "games", "episodes",
                                                                      "rewards")}  # fmt: skip
        self.ended: list[np.ndarray] = []

    def add(self, obs: np.ndarray, actions: np.ndarray, rewards: np.ndarray, dones: np.ndarray) -> None:
        """One decision of every game: what it saw, did, and earned by its next decision; `dones`: games that
        ended after it (their next decisions belong to new episodes)."""
        games = np.arange(len(actions))
        for key, value in zip(self.rows, (obs, actions, games, self.current.copy(), rewards), strict=True):
            self.rows[key].append(np.asarray(value))
        ended = np.flatnonzero(dones)
        self.ended.append(self.current[ended])
        self.current[ended] = self.next_id + np.arange(len(ended))
        self.next_id += len(ended)

    def harvest(self) -> dict[str, np.ndarray]:
        """The decisions whose games have ended, with their `returns`, as arrays (obs, actions, games, returns);
        the others keep waiting."""
        rows = {key: np.concatenate(parts) for key, parts in self.rows.items()}
        done = np.isin(rows["episodes"], np.concatenate(self.ended))
        waiting = ~done
        self.rows = {key: [value[waiting]] for key, value in rows.items()}
        self.ended = []
        returns = returns_to_go(rows["episodes"][done], rows["rewards"][done])
        return {"obs": rows["obs"][done], "actions": rows["actions"][done], "games": rows["games"][done],
                "returns": returns}  # fmt: skip


def train(config: DMCConfig) -> dict[str, Any]:
    """Train per `config` (see the module docstring); returns a summary with the final evaluation."""
    require_extra("training", *TRAIN_MODULES)
    config, state = prepared(config)
    return DMCRun(config, state).loop()


class DMCRun:
    """One run of `train`: the Q-network, its optimizer, the league, the waiting decisions, and how far it got."""

    def __init__(self, config: DMCConfig, state: dict[str, Any] | None):
        self.config = config
        self.device = training_device(config.device)
        if config.threads:
            torch.set_num_threads(config.threads)
        torch.manual_seed(config.seed)
        self.network = QNetwork(config.observation, config.players, config.hidden).to(self.device)
        self.optimizer = torch.optim.Adam(self.network.parameters(), lr=config.learning_rate)
        self.update, self.steps, self.minutes_before = 0, 0, 0.0
        self.history: list = state["history"] if state is not None else []
        self.rng = np.random.default_rng(config.seed)
        if state is not None:
            restore(state, self.modules(), self.optimizer)
            self.update, self.steps, self.minutes_before = state["update"], state["steps"], state["minutes"]
            self.rng = np.random.default_rng([config.seed, self.update])
        self.league = League(config, self.network, self.rng, str(self.device))
        if state is not None:
            self.league.restore(state["snapshots"], self.network)
        self.imitated = (self.league.bind(make_agent(config.imitate, seed=config.seed + IMITATED_SEED_OFFSET))
                         if config.imitate else None)  # fmt: skip
        self.obs, self.masks = self.league.reset(seed=config.seed * 10**9 + self.update * config.num_envs)
        self.episodes = Episodes(config.num_envs)
        self.out = Path(config.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.writer = SummaryWriter(self.out / "tensorboard")
        command = "python -m uno_env.train.dmc " + " ".join(sys.argv[1:])
        self.commands = [*(state.get("commands", []) if state is not None else []), command]
        self.started, self.next_snapshot = 0.0, config.snapshot_seconds
        self.evaluation: dict[str, tuple[float, float, float]] = {}
        self.wins, self.games = 0, 0

    def modules(self) -> dict[str, Any]:
        """What the checkpoint keeps, by key: the Q-network (the PPO's critic and aids: none)."""
        return {"network": self.network, "critic": None, "hand_head": None, "oracle": None}

    def imitating(self) -> bool:
        """Whether the imitated baseline plays the learner's seat now."""
        return self.imitated is not None and self.steps < self.config.imitate_steps

    def act(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The learner's actions: the imitated baseline's while it imitates, else the legal action of highest Q; each
        replaced by a random legal action with probability `imitate_epsilon` or `epsilon`."""
        config = self.config
        if self.imitating():
            level = self.imitated.observation
            chosen = self.imitated.act(obs if level == config.observation else self.league.observations(level), masks)
            epsilon = config.imitate_epsilon
        else:
            with torch.inference_mode():
                q = self.network.q_values(torch.from_numpy(obs).to(self.device),
                                          torch.from_numpy(masks).to(self.device).bool())  # fmt: skip
            chosen, epsilon = q.argmax(-1).cpu().numpy(), config.epsilon
        explore = self.rng.random(len(chosen)) < epsilon
        if not explore.any():
            return chosen
        return np.where(explore, A.random_legal_actions(masks, self.rng), chosen)

    def collect(self) -> dict[str, np.ndarray]:
        """`rollout_steps` decisions of every game; returns the decisions whose games ended, with their returns."""
        self.network.eval()
        for _ in range(self.config.rollout_steps):
            actions = self.act(self.obs, self.masks)
            seen = self.obs
            self.obs, self.masks, rewards, dones, winners = self.league.step(actions)
            self.episodes.add(seen, actions, rewards, dones)
            ended = winners > -2
            self.games += int(ended.sum())
            self.wins += int((winners[ended] == 0).sum())
        return self.episodes.harvest()

    def learn(self, decisions: dict[str, np.ndarray]) -> dict[str, float]:
        """`epochs` passes of mean squared error between Q(s, a) and the return, over shuffled minibatches."""
        n = len(decisions["returns"])
        if n == 0:
            return {}
        obs = torch.from_numpy(decisions["obs"]).to(self.device)
        actions = torch.from_numpy(decisions["actions"]).to(self.device)
        returns = torch.from_numpy(decisions["returns"]).to(self.device, torch.float32)
        self.network.train()
        total, count = torch.zeros((), device=self.device), 0
        for _ in range(self.config.epochs):
            order = torch.randperm(n, device=self.device)
            for start in range(0, n, self.config.minibatch_size):
                index = order[start : start + self.config.minibatch_size]
                q = self.network.q_taken(obs.index_select(0, index), actions.index_select(0, index))
                loss = (q - returns.index_select(0, index)).pow(2).mean()
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.network.parameters(), self.config.max_grad_norm)
                self.optimizer.step()
                total, count = total + loss.detach(), count + 1
        return {"q_loss": float(total) / count, "mean_return": float(returns.mean()), "decisions": n}

    def loop(self) -> dict[str, Any]:
        """Collect and learn until the budget is spent, with snapshots, evaluations and checkpoints on their
        schedules; returns the summary."""
        config = self.config
        per_update = config.num_envs * config.rollout_steps
        self.started = started = time.perf_counter()
        deadline, steps_at_start = started + config.minutes * 60, self.steps
        bar = tqdm(total=int(config.minutes * 60), unit="s", disable=not config.progress, desc="DMC")
        while time.perf_counter() < deadline and self.steps + per_update <= config.total_steps:
            iteration_started = time.perf_counter()
            stats = self.learn(self.collect())
            self.update += 1
            self.steps += per_update
            seconds = time.perf_counter() - iteration_started
            logged = {**stats, "steps_per_second": per_update / seconds, "imitating": float(self.imitating())}
            for key, value in logged.items():
                self.writer.add_scalar(f"dmc/{key}", value, self.steps)
            if self.games:
                self.writer.add_scalar("episodes/league_win_rate", self.wins / self.games, self.steps)
                self.wins, self.games = 0, 0
            if self.update % config.snapshot_every == 0:
                self.league.add_snapshot(self.network)
            self.on_schedule(bar)
            bar.n = min(bar.total, int(time.perf_counter() - started))
            bar.set_postfix(steps=self.steps, sps=int(per_update / seconds))
        bar.close()
        train_seconds = time.perf_counter() - started
        self.finish()
        return {"updates": self.update, "steps": self.steps, "evaluation": self.evaluation, "out": str(self.out),
                "device": str(self.device),
                "steps_per_second": (self.steps - steps_at_start) / max(train_seconds, 1e-9)}  # fmt: skip

    def on_schedule(self, bar) -> None:
        """After an update: the evaluation, the checkpoint and the timed policy snapshot, when they are due."""
        config = self.config
        if config.eval_every and self.update % config.eval_every == 0:
            self.evaluate(bar)
        if self.update % config.checkpoint_every == 0:
            self.save()
        if config.snapshot_seconds and time.perf_counter() - self.started >= self.next_snapshot:
            seconds = time.perf_counter() - self.started
            save_snapshot(self.network, config, self.out, seconds, self.steps, self.update)
            late = seconds - self.next_snapshot
            self.next_snapshot += config.snapshot_seconds * (1 + late // config.snapshot_seconds)

    def evaluate(self, bar) -> None:
        """The greedy Q-policy against each `eval_against` agent (paired deals from 10^6 + update): TensorBoard, the
        console and out/learning_curve.png."""
        config = self.config
        self.evaluation = evaluate(self.network, config, seed=10**6 + self.update)
        self.history += [(int(self.steps), str(name), *map(float, values)) for name, values in self.evaluation.items()]
        figure = learning_curve_figure(self.history, variant=config.variant, players=config.players,
                                       eval_games=config.eval_games, seed="seed 10^6 + update",
                                       learner="Deep Monte-Carlo")  # fmt: skip
        write_atomic(self.out / "learning_curve.png",
                     lambda temporary: figure.savefig(temporary, dpi=100, format="png"))  # fmt: skip
        for name, (rate, low, high) in self.evaluation.items():
            for suffix, value in (("", rate), ("_low", low), ("_high", high)):
                self.writer.add_scalar(f"eval/win_rate_vs_{name}{suffix}", value, self.steps)
        line = ", ".join(f"vs {n} {r:.3f} [{lo:.3f}, {hi:.3f}]" for n, (r, lo, hi) in self.evaluation.items())
        (bar.write if bar is not None else print)(f"update {self.update}, {self.steps} steps: {line}")

    def finish(self) -> None:
        """The last policy snapshot, the final evaluation (unless the last update made it) and the files."""
        config = self.config
        if config.snapshot_seconds:
            save_snapshot(self.network, config, self.out, time.perf_counter() - self.started, self.steps, self.update)
        if not (config.eval_every and self.update % config.eval_every == 0 and self.evaluation):
            self.evaluate(None)
        self.save()
        self.writer.close()

    def save(self) -> None:
        """checkpoint.pt and policy.pt, in the training room's formats (`uno_env.train.checkpoint`)."""
        minutes = self.minutes_before + (time.perf_counter() - self.started) / 60
        save_checkpoint(self.out / "checkpoint.pt", self.config, self.modules(), self.optimizer, update=self.update,
                        steps=self.steps, minutes=minutes, snapshots=self.league.snapshots, history=self.history,
                        commands=self.commands)  # fmt: skip
        save_policy(self.out / "policy.pt", self.network, self.config, steps=self.steps, updates=self.update,
                    minutes=round(minutes, 2), commands=self.commands)  # fmt: skip


def build_parser():
    """uno-train-dmc's command line: a flag for every field of `DMCConfig`."""
    return parser_from_dataclass(DMCConfig, prog="uno-train-dmc", description=DESCRIPTION)


def parse_args(argv: list[str] | None = None) -> DMCConfig:
    """The `DMCConfig` of `uno-train-dmc argv`; a bad value exits 2 with one line."""
    return build_parser().parse_config(argv)


def announce(config: DMCConfig) -> str:
    return describe(config).replace("uno-train settings", "uno-train-dmc settings", 1)


def main(argv: list[str] | None = None) -> int:
    return run_trainer(build_parser(), argv, TRAIN_MODULES, train, announce=announce,
                       report=lambda summary: f"trained {summary['steps']} steps in {summary['updates']} updates; "
                                              f"policy in {summary['out']}/policy.pt (dmc:PATH)")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
