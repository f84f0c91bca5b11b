"""Stable-Baselines3 MaskablePPO on the project's SB3 vector adapter, against baselines or its own snapshots.

    python -m uno_env.train.sb3_ppo --variant classic --timesteps 2000000 --opponents counter greedy --out runs/sb3
    python -m uno_env.train.sb3_ppo --resume runs/sb3/model.zip --timesteps 1000000        # go on where it stopped
    tensorboard --logdir runs/

The learner plays seat 0 of `num_envs` games of `uno_env.wrappers.UnoSB3VecEnv`; the other seats are
played by one of `opponents` (baseline names, or `self`: a frozen copy of the learner), drawn again every
`switch_every` timesteps (games in progress go on with the new opponent). sb3-contrib's MaskablePPO reads
the legal actions from the env's `action_masks()`. SB3 logs to TensorBoard (`time/fps` is its env steps
per second) and shows a progress bar; checkpoints go to `out/checkpoints/`; every `eval_every` timesteps
the deterministic policy plays `eval_games` paired games against each `eval_against` baseline through the
tournament runner (`eval/win_rate_vs_*` with 95% intervals). The final model is `out/model.zip`, with
`out/model.json` (variant, players, observation level and layout digest) beside it, so `uno-arena --agents
sb3:out/model.zip --trust` can seat it (`SB3Agent`).

SB3 loads a model zip by unpickling parts of it, which can run code from the file: `--resume` and `sb3:`
opponents load only with `--trust` (only for files you made or trust).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np

from uno_env import VARIANTS, cli
from uno_env.agents.registry import make_agent
from uno_env.agents.sb3_agent import SB3Agent, check_model_file, load_model, read_metadata
from uno_env.arena.tournament import win_rate_against
from uno_env.extras import missing_extra_base, require_extra
from uno_env.observation import layout_stamp
from uno_env.records import write_atomic
from uno_env.train import check_device, run_trainer
from uno_env.wrappers import UnoSB3VecEnv

try:  # the train extra: without it the module still imports, so `uno-train-sb3 --help` works and a run names the extra
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList, CheckpointCallback
except ModuleNotFoundError as error:
    BaseCallback = missing_extra_base(error)  # main() and train() say which extra to install

#: what training needs of the train extra
TRAIN_MODULES = ("torch", "tensorboard", "stable_baselines3", "sb3_contrib")


@dataclass
class Config:
    """MaskablePPO training: every field is a flag of uno-train-sb3 (`foo_bar` as --foo-bar, `options` as --option)."""

    variant: str = "classic"
    """The variant (which preset of rules) to train on."""
    players: int = 2
    """Players at the table; the learner takes seat 0."""
    options: tuple[str, ...] = ()
    """Rule options as NAME=VALUE (`uno_env.rules.OPTION_NAMES`), e.g. stack_draw_two=true: one per --option,
    repeated for more."""
    observation: str = "knowledge"
    """The observation level the policy reads."""
    opponents: tuple[str, ...] = ("counter", "greedy", "self")
    """Opponents drawn in turn: agent names (baselines, ppo:..., sb3:... with --trust), or `self` for a frozen copy
    of the learner."""
    switch_every: Annotated[int, cli.positive_int] = 65_536
    """Timesteps between opponent draws."""
    timesteps: Annotated[int, cli.positive_int] = 1_000_000
    """Learner decisions to train for."""
    num_envs: Annotated[int, cli.positive_int] = 256
    """Games stepped together."""
    n_steps: Annotated[int, cli.positive_int] = 64
    """Decisions per game per rollout (MaskablePPO's n_steps)."""
    minibatch_size: Annotated[int, cli.Flag(type=cli.positive_int, aliases=("--batch-size",))] = 4096
    """Samples per gradient step (MaskablePPO's batch_size)."""
    n_epochs: Annotated[int, cli.positive_int] = 4
    """Passes over each rollout."""
    learning_rate: Annotated[float, cli.positive_float] = 3e-4
    """Adam's step size."""
    gamma: Annotated[float, cli.fraction] = 0.995
    """Discount per decision."""
    net_arch: Annotated[tuple[int, ...], cli.positive_int] = (64, 64)
    """Widths of the policy and value MLPs (SB3's default)."""
    eval_every: Annotated[int, cli.nonnegative_int] = 500_000
    """Timesteps between evaluations (0: only at the end)."""
    eval_games: Annotated[int, cli.positive_int] = 2000
    """Paired games per evaluation opponent."""
    eval_against: tuple[str, ...] = ("counter",)
    """Baselines the evaluation plays."""
    checkpoint_every: Annotated[int, cli.positive_int] = 500_000
    """Timesteps between checkpoints."""
    minutes: Annotated[float, cli.nonnegative_float] = 0.0
    """Wall-clock budget of the run (0: none); training stops at whichever of minutes and timesteps comes first."""
    snapshot_seconds: Annotated[float, cli.nonnegative_float] = 0.0
    """Seconds of training between model snapshots in out/snapshots/ (0: none), each named by the seconds since
    training began (for `benchmarks/time_to_skill.py`)."""
    seed: int = 0
    """Seeds the games, the network and the opponents."""
    device: str = "auto"
    """auto (cuda when there is one), cpu, cuda or cuda:N."""
    out: Path = Path("runs/sb3_ppo")
    """Folder for model.zip, model.json, checkpoints/ and the TensorBoard logs."""
    resume: Path | None = None
    """A model .zip to go on from (needs --trust)."""
    progress: bool = True
    """Show SB3's progress bar."""
    trust: bool = False
    """Load SB3 model zips (--resume, sb3: opponents), which are unpickled and so can run code from the file: only
    for files you made or trust."""

    @property
    def rule_options(self) -> dict[str, Any]:
        return cli.rule_options(self.options)

    def validate(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown variant {self.variant!r}; the variants are {', '.join(VARIANTS)}")
        if not self.opponents:
            raise ValueError("give at least one opponent (a baseline name or self)")
        if not self.eval_against:
            raise ValueError("eval_against needs at least one agent")
        for name in dict.fromkeys([*self.opponents, *self.eval_against]):
            if name != "self":
                make_agent(name, trust=self.trust)  # a clear error for an unknown agent, or a file refused
        if self.resume is not None:
            check_model_file(self.resume, self.trust)  # refused now without --trust, not after the setup
            if self.resume.with_suffix(".json").is_file():
                read_metadata(self.resume)  # a model of another observation layout is refused in one line
        check_device(self.device)


class LeagueCallback(BaseCallback):
    """Draws the opponent every `switch_every` steps and evaluates every `eval_every` steps."""

    def __init__(self, config: Config, env: UnoSB3VecEnv):
        super().__init__()
        self.config, self.env = config, env
        self.rng = np.random.default_rng(config.seed)
        self.baselines = {name: make_agent(name, seed=config.seed + i, trust=config.trust)
                          for i, name in enumerate(config.opponents) if name != "self"}  # fmt: skip
        self.next_switch, self.next_eval = 0, config.eval_every or float("inf")
        self.results: dict[str, tuple[float, float, float]] = {}

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_switch:
            name = self.config.opponents[int(self.rng.integers(len(self.config.opponents)))]
            self.env.venv.set_opponents(self._frozen_self() if name == "self" else self.baselines[name])
            self.logger.record("league/opponent_is_self", float(name == "self"))
            self.next_switch += self.config.switch_every
        if self.num_timesteps >= self.next_eval:
            self.evaluate()
            self.next_eval += self.config.eval_every
        return True

    def _frozen_self(self) -> SB3Agent:
        path = Path(self.config.out) / "self_snapshot.zip"
        self.model.save(path)
        frozen = load_model(path, trust=True, device="cpu")  # the file this run just wrote
        return SB3Agent(frozen, self.config.observation, self.config.players)

    def evaluate(self) -> dict[str, tuple[float, float, float]]:
        config = self.config
        learner = SB3Agent(self.model, config.observation, config.players)
        for i, name in enumerate(config.eval_against):
            rate, low, high = win_rate_against(
                learner, name, config.variant, config.players, games=config.eval_games,
                seed=10**6 + self.num_timesteps, baseline_seed=config.seed + 100 + i, trust=config.trust,
                **config.rule_options,
            )  # fmt: skip
            self.results[name] = (rate, low, high)
            self.logger.record(f"eval/win_rate_vs_{name}", rate)
            self.logger.record(f"eval/win_rate_vs_{name}_low", low)
            self.logger.record(f"eval/win_rate_vs_{name}_high", high)
            print(f"{self.num_timesteps} steps: vs {name} {rate:.3f} [{low:.3f}, {high:.3f}]")
        return self.results


class ClockCallback(BaseCallback):
    """Stops training after `minutes` and saves a snapshot (model zip and its .json) every `snapshot_seconds`."""

    def __init__(self, config: Config):
        super().__init__()
        self.config = config
        self.started, self.next_snapshot = 0.0, config.snapshot_seconds

    def _on_training_start(self) -> None:
        self.started = time.perf_counter()

    def _on_step(self) -> bool:
        elapsed = time.perf_counter() - self.started
        if self.config.snapshot_seconds and elapsed >= self.next_snapshot:
            self.snapshot(elapsed)
            self.next_snapshot += self.config.snapshot_seconds * (1 + (elapsed - self.next_snapshot)
                                                                  // self.config.snapshot_seconds)  # fmt: skip
        return not self.config.minutes or elapsed < self.config.minutes * 60

    def _on_training_end(self) -> None:
        if self.config.snapshot_seconds:  # the last model, at the end of training
            self.snapshot(time.perf_counter() - self.started)

    def snapshot(self, elapsed: float) -> None:
        save_model(self.model, self.config, Path(self.config.out) / "snapshots" / f"model-{elapsed:08.2f}s.zip")


def save_model(model: MaskablePPO, config: Config, path: Path) -> None:
    """`model` as `path` (a zip) with `path`.json beside it (variant, players, observation level and layout): an
    `sb3:` agent."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, lambda temporary: model.save(temporary))
    write_atomic(path.with_suffix(".json"), json.dumps({
        "variant": config.variant, "num_players": config.players, "observation": config.observation,
        **layout_stamp(config.observation, config.players),
        "rule_options": config.rule_options, "timesteps": int(model.num_timesteps),
    }, indent=2))  # fmt: skip


def train(config: Config) -> dict[str, Any]:
    """Train per `config` (see the module docstring); returns a summary with the final evaluation."""
    require_extra("training", *TRAIN_MODULES)
    config.validate()
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    first = next(name for name in config.opponents if name != "self") if set(config.opponents) != {"self"} else None
    env = UnoSB3VecEnv(
        config.variant, config.players, config.num_envs, seed=config.seed, observation=config.observation,
        opponents=make_agent(first or "random", seed=config.seed, trust=config.trust), **config.rule_options,
    )  # fmt: skip
    if config.resume is not None:
        model = load_model(config.resume, trust=config.trust, env=env, device=config.device,
                           tensorboard_log=str(out / "tensorboard"))  # fmt: skip
    else:
        model = MaskablePPO(
            "MlpPolicy", env, n_steps=config.n_steps, batch_size=config.minibatch_size, n_epochs=config.n_epochs,
            learning_rate=config.learning_rate, gamma=config.gamma, seed=config.seed, device=config.device,
            policy_kwargs={"net_arch": list(config.net_arch)}, tensorboard_log=str(out / "tensorboard"), verbose=0,
        )  # fmt: skip
    league = LeagueCallback(config, env)
    checkpoints = CheckpointCallback(max(config.checkpoint_every // config.num_envs, 1), str(out / "checkpoints"),
                                     name_prefix="model")  # fmt: skip
    model.learn(config.timesteps, callback=CallbackList([league, checkpoints, ClockCallback(config)]),
                progress_bar=config.progress, reset_num_timesteps=config.resume is None)  # fmt: skip
    save_model(model, config, out / "model.zip")
    results = league.evaluate()
    return {"timesteps": int(model.num_timesteps), "evaluation": results, "out": str(out)}


def build_parser():
    """The `uno-train-sb3` command line: a flag for every `Config` field (`uno_env.cli`'s convention)."""
    return cli.parser_from_dataclass(Config, prog="uno-train-sb3", description=__doc__.split("\n\n")[0])


def parse_args(argv: list[str] | None = None) -> Config:
    """The `Config` of `uno-train-sb3 argv`; a bad value exits 2 with one line."""
    return build_parser().parse_config(argv)


def main(argv: list[str] | None = None) -> int:
    return run_trainer(build_parser(), argv, TRAIN_MODULES, train,
                       report=lambda summary: f"trained {summary['timesteps']} timesteps; model in "
                                              f"{summary['out']}/model.zip")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
