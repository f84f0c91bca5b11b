"""RLlib PPO: one shared policy for every seat (self-play), with action masking, on one machine or a Ray cluster.

    uno-train-rllib --variant classic --players 2 --iterations 50 --out runs/rllib
    uno-train-rllib --address auto --env-runners 32 --num-gpus 1 ...   # on a Ray cluster
    uno-arena --agents rllib:runs/rllib random greedy --trust          # benchmark the policy

(`python -m uno_env.train.rllib_ppo` and `python train/rllib_ppo.py` are the same command.)

Every seat of the PettingZoo AEC env (`uno_env.raw_env`, the env behind "uno_env/uno_v0") is played by
the same RLModule, RLlib's PPO module with action masking (`ActionMaskingTorchRLModule`), so every
decision of every game is a training sample. The env reaches RLlib through RLlib's own `PettingZooEnv`
wrapper, with the project's small adapter `UnoRLlibEnv` over it for two gaps: RLlib's masking module reads
the dict keys `observations` (a float vector) and `action_mask`, where the env gives `observation` (int8)
and `action_mask`; and the wrapper's `render` passes PettingZoo's env an argument it refuses.

Nothing here depends on where Ray runs: `--address` is handed to `ray.init` (none: a local Ray on this
machine; `auto`: the cluster this machine belongs to), and `--env-runners`, `--num-cpus` (local Ray
only), `--num-gpus` and `--learners` size the job. Each iteration prints its sampled steps, episodes,
episode length, losses and throughput; every `--checkpoint-every` iterations and at the end the
algorithm is saved to `--out` with `uno_env.json`, which lets `uno_env.agents.rllib_agent.RLlibAgent`
(and `uno-arena --agents rllib:DIR --trust`: RLlib unpickles its checkpoints, so loading one can run code
from it) load its policy. With `--eval-games` the final policy plays that many games against `random`
through the tournament runner.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any

import gymnasium as gym
import numpy as np

import uno_env  # noqa: F401  (before RLlib imports torch: numba's passive OpenMP waits, see uno_env/__init__.py)
from uno_env import cli
from uno_env import observation as O
from uno_env.aec import raw_env
from uno_env.agents.rllib_agent import METADATA_FILE, rllib_observation, rllib_observation_space
from uno_env.extras import missing_extra_base, require_extra
from uno_env.records import write_atomic
from uno_env.train import run_trainer

try:  # the rllib extra: without it the module still imports, so `uno-train-rllib --help` works and a run names it
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
except ModuleNotFoundError as error:
    PettingZooEnv = missing_extra_base(error)  # main() and train() say which extra to install

#: what training needs: Ray with RLlib (the rllib extra) and torch (the train extra)
TRAIN_MODULES = ("ray", "torch")

ENV_NAME = "uno_env_rllib"
POLICY_ID = "shared"


@dataclass
class Args:
    """RLlib PPO self-play on UNO: every field is a flag of uno-train-rllib (`foo_bar` as --foo-bar, `options` as
    --option)."""

    variant: str = "classic"
    """the variant (which preset of rules)"""
    players: int = 2
    """the number of players, 2 to 10 (one shared policy plays every seat)"""
    options: tuple[str, ...] = ()
    """rule options as NAME=VALUE (`uno_env.rules.OPTION_NAMES`), one per --option, e.g. --option stack_draw_two=true
    --option uno_call=explicit"""
    observation: str = "knowledge"
    """the observation level the policy reads: minimal, knowledge or seer"""
    episode: str = "round"
    """an episode (a game) is one round, or a whole match to the target score"""
    max_steps: Annotated[int, cli.positive_int] = 10_000
    """decisions before an episode is truncated (early self-play can draw for thousands of turns)"""
    iterations: Annotated[int, cli.positive_int] = 20
    """training iterations (each samples `train_batch_size` steps and runs PPO's epochs on them)"""
    train_batch_size: Annotated[int, cli.positive_int] = 4000
    """env steps (decisions) sampled per iteration, over all env runners"""
    minibatch_size: Annotated[int, cli.positive_int] = 256
    """SGD minibatch size"""
    epochs: Annotated[int, cli.positive_int] = 4
    """PPO epochs over each iteration's batch"""
    lr: Annotated[float, cli.positive_float] = 3e-4
    """learning rate"""
    entropy_coeff: Annotated[float, cli.nonnegative_float] = 0.01
    """entropy bonus"""
    hidden: Annotated[tuple[int, ...], cli.positive_int] = (256, 256)
    """hidden layer widths of the policy and value networks"""
    env_runners: Annotated[int, cli.nonnegative_int] = 1
    """remote EnvRunner actors that sample games (0: sample in the main process)"""
    envs_per_env_runner: Annotated[int, cli.positive_int] = 32
    """games each EnvRunner steps side by side"""
    learners: Annotated[int, cli.nonnegative_int] = 0
    """remote Learner actors (0: learn in the main process; >1 for several GPUs)"""
    num_gpus: Annotated[float, cli.nonnegative_float] = 0.0
    """GPUs per learner (the main process's learner when learners=0)"""
    num_cpus: Annotated[int | None, cli.positive_int] = None
    """CPUs for a local Ray (ray.init(num_cpus=...)); ignored with --address (the cluster says)"""
    address: str | None = None
    """the Ray cluster for ray.init(address=...): none starts a local Ray, "auto" joins this node's cluster"""
    out: Annotated[Path, cli.Flag(aliases=("--checkpoint-dir",))] = Path("runs/rllib")
    """the folder the checkpoint (RLlib's files and uno_env.json) is written to"""
    checkpoint_every: Annotated[int, cli.positive_int] = 10
    """save every this many iterations (and always at the end)"""
    eval_games: Annotated[int, cli.nonnegative_int] = 0
    """after training, play this many games of the policy against `random` and print the result"""
    seed: int = 0
    """seeds RLlib (networks, sampling) and the games"""

    @property
    def rule_options(self) -> dict[str, Any]:
        return cli.rule_options(self.options)


class UnoRLlibEnv(PettingZooEnv):
    """RLlib's PettingZooEnv over `raw_env(**config)`, with observations as RLlib's masking module reads them."""

    def __init__(self, config: dict | None = None):
        super().__init__(raw_env(**dict(config or {})))
        space = rllib_observation_space(self.env.spec.size)
        self.observation_spaces = dict.fromkeys(self.observation_spaces, space)
        self.observation_space = gym.spaces.Dict(self.observation_spaces)

    @staticmethod
    def _convert(observations: dict) -> dict:
        return {a: rllib_observation(o["observation"], o["action_mask"]) for a, o in observations.items()}

    def reset(self, *, seed=None, options=None):
        observations, infos = super().reset(seed=seed, options=options)
        return self._convert(observations), infos

    def step(self, action):
        observations, *rest = super().step(action)
        return (self._convert(observations), *rest)

    def render(self):
        return self.env.render()  # PettingZoo's render takes no mode argument


def env_config(args: Args) -> dict[str, Any]:
    """The keyword arguments of `raw_env` for these arguments."""
    return {
        "variant": args.variant, "num_players": args.players, "observation": args.observation,
        "episode": args.episode, "max_steps": args.max_steps, **args.rule_options,
    }  # fmt: skip


def build_config(args: Args):
    """The PPOConfig: multi-agent with one policy, `POLICY_ID`, mapped to every seat."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    register_env(ENV_NAME, UnoRLlibEnv)
    model = {"fcnet_hiddens": list(args.hidden), "head_fcnet_hiddens": [], "vf_share_layers": False}
    return (
        PPOConfig()
        # RLlib's env check steps an action sampled without the mask, which the engine rightly refuses
        .environment(ENV_NAME, env_config=env_config(args), disable_env_checking=True)
        .framework("torch")
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=args.envs_per_env_runner)
        .learners(num_learners=args.learners, num_gpus_per_learner=args.num_gpus)
        .multi_agent(policies={POLICY_ID}, policy_mapping_fn=lambda agent_id, episode, **kwargs: POLICY_ID)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={POLICY_ID: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model)}
            )
        )
        .training(
            train_batch_size_per_learner=args.train_batch_size // max(1, args.learners),
            minibatch_size=args.minibatch_size,
            num_epochs=args.epochs,
            lr=args.lr,
            entropy_coeff=args.entropy_coeff,
        )
        .debugging(seed=args.seed)
    )


def save_checkpoint(algo, args: Args, iteration: int, steps: int) -> Path:
    """Save the algorithm and `uno_env.json` (what `RLlibAgent` needs to know) to `args.out`."""
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_LEARNER_GROUP, COMPONENT_RL_MODULE

    path = Path(args.out).resolve()
    algo.save_to_path(str(path))
    metadata = {
        "format": "uno-env-rllib-1",
        "variant": args.variant,
        "num_players": args.players,
        "observation": args.observation,
        "observation_size": O.ObservationSpec(args.observation, args.players).size,
        **O.layout_stamp(args.observation, args.players),
        "rule_options": args.rule_options,
        "episode": args.episode,
        "module_path": f"{COMPONENT_LEARNER_GROUP}/{COMPONENT_LEARNER}/{COMPONENT_RL_MODULE}/{POLICY_ID}",
        "trained": {"iterations": iteration, "env_steps": steps, "args": {**asdict(args), "out": str(args.out)}},
    }
    write_atomic(path / METADATA_FILE, json.dumps(metadata, indent=2))
    return path


def _metric(results: dict, *keys: str, default=np.nan):
    for key in keys:
        results = results.get(key, {}) if isinstance(results, dict) else {}
    return results if isinstance(results, (int, float)) else default


def train(args: Args) -> dict[str, Any]:
    """Train per `args` (see the module docstring); returns the last iteration's figures and the checkpoint."""
    require_extra("training", *TRAIN_MODULES)
    import ray

    if args.iterations < 1:
        raise ValueError(f"iterations must be at least 1, got {args.iterations}")
    raw_env(**env_config(args))  # bad variants, player counts or options fail here, with the engine's message
    if not ray.is_initialized():
        if args.address is None:
            ray.init(num_cpus=args.num_cpus, include_dashboard=False)
        else:
            ray.init(address=args.address)
    algo = build_config(args).build_algo()
    summary: dict[str, Any] = {}
    try:
        start = time.perf_counter()
        for iteration in range(1, args.iterations + 1):
            results = algo.train()
            steps = int(_metric(results, "env_runners", "num_env_steps_sampled_lifetime", default=0))
            summary = {
                "iteration": iteration,
                "env_steps": steps,
                "episodes": int(_metric(results, "env_runners", "num_episodes_lifetime", default=0)),
                "episode_length": _metric(results, "env_runners", "episode_len_mean"),
                "policy_loss": _metric(results, "learners", POLICY_ID, "policy_loss"),
                "vf_loss": _metric(results, "learners", POLICY_ID, "vf_loss"),
                "entropy": _metric(results, "learners", POLICY_ID, "entropy"),
                "steps_per_second": steps / (time.perf_counter() - start),
            }
            print(
                f"iter {iteration:4d}  steps {steps:9d}  episodes {summary['episodes']:7d}  "
                f"length {summary['episode_length']:6.1f}  policy loss {summary['policy_loss']:+.4f}  "
                f"vf loss {summary['vf_loss']:.4f}  entropy {summary['entropy']:.3f}  "
                f"{summary['steps_per_second']:,.0f} steps/s",
                flush=True,
            )
            if iteration % args.checkpoint_every == 0 or iteration == args.iterations:
                summary["checkpoint"] = str(save_checkpoint(algo, args, iteration, steps))
                print(f"checkpoint: {summary['checkpoint']}", flush=True)
    finally:
        algo.stop()
    if args.eval_games > 0:
        summary["eval"] = evaluate(summary["checkpoint"], args)
    return summary


def evaluate(checkpoint: str, args: Args) -> dict[str, Any]:
    """The policy (sampled, as trained) against `random` through the tournament runner (paired seeds, rotated seats)."""
    from uno_env.arena.tournament import run_tournament

    result = run_tournament(
        [f"rllib:{checkpoint}", "random"], args.variant, args.players, games=args.eval_games, seed=args.seed,
        episode=args.episode, progress=False, trust=True, **args.rule_options,  # trust: the checkpoint this run wrote
    )  # fmt: skip
    print(result.table(), flush=True)
    return {s.name: s.win_rate for s in result.summaries}


def build_parser():
    """The `uno-train-rllib` command line: a flag for every `Args` field (`uno_env.cli`'s convention)."""
    return cli.parser_from_dataclass(Args, prog="uno-train-rllib", description=__doc__.split("\n\n")[0])


def parse_args(argv: list[str] | None = None) -> Args:
    """The `Args` of `uno-train-rllib argv`; a bad value exits 2 with one line."""
    return build_parser().parse_config(argv)


def main(argv: list[str] | None = None) -> int:
    return run_trainer(build_parser(), argv, TRAIN_MODULES, train)


if __name__ == "__main__":
    sys.exit(main())
