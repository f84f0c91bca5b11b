"""Native PPO: a readable single-file PPO in PyTorch on the batched vector env, with a league of opponents.

    python -m uno_env.train.native_ppo --variant classic --players 2 --minutes 30 --out runs/classic
    python -m uno_env.train.native_ppo --resume runs/classic/checkpoint.pt --minutes 10   # go on where it stopped
    tensorboard --logdir runs/

The learner plays one seat in every game of `UnoVectorEnv`s; the other seats are played by a league:
each group of games has one opponent, either a baseline (`counter`, `greedy`, ...) or `self`, a frozen
snapshot of the learner drawn from its past (the latest with probability 1/2, else any) and redrawn every
`snapshot_every` updates. Each update collects `rollout_steps` decisions from every game, computes GAE
advantages and runs `epochs` passes of clipped PPO over minibatches, with masked logits (illegal
actions have probability 0, `uno_env.agents.policy.PolicyNetwork`). It uses a GPU when there is one.

With `--imitate counter` the run starts by kickstarting: for `imitate_steps` decisions the learner's seat
is played by that baseline and the network learns its actions (cross-entropy) and the value of its play;
PPO then improves on it.

Every `eval_every` updates the greedy policy plays `eval_games` paired games against each `eval_against`
baseline through the tournament runner; win rates with 95% intervals go to TensorBoard and the console.
The run writes `policy.pt` (the policy file, an agent for `uno-arena --agents ppo:PATH`), `checkpoint.pt`
(everything needed to resume), `learning_curve.png` (the evaluations) and TensorBoard logs (losses,
entropy, the league win rate, evaluations, steps per second) to `out`.

Both files are data, never code: `torch.save` of dicts of tensors and plain values (the settings, the
network's and the optimizer's state dicts, the league's snapshots, the evaluation history), read back with
`torch.load(weights_only=True)`, so a crafted file is refused before anything in it runs; `--resume` checks
every setting of the checkpoint as the command line checks it (`load_checkpoint`).
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from tqdm import tqdm

from uno_env import VARIANTS, make_rules
from uno_env import cards as C
from uno_env import observation as O
from uno_env.agents.base import bind
from uno_env.agents.baselines import BASELINES
from uno_env.agents.registry import make_agent
from uno_env.agents.trust import USER_ERRORS
from uno_env.arena.tournament import win_rate_against
from uno_env.cli import (
    Flag,
    fraction,
    nonnegative_float,
    nonnegative_int,
    parser_from_dataclass,
    positive_float,
    positive_int,
    rule_options,
)
from uno_env.extras import missing_extra_base, require_extra
from uno_env.records import write_atomic
from uno_env.rules import OPTIONS
from uno_env.train import check_device
from uno_env.vector import UnoVectorEnv

try:  # the train extra: without it the module still imports, so `uno-train --help` works and a run names the extra
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from uno_env.agents.policy import (
        PolicyAgent,
        PolicyNetwork,
        add_hints,
        load_plain_data,
        load_policy_file,
        sample_actions,
    )

    Module = torch.nn.Module
except ModuleNotFoundError as error:
    Module = missing_extra_base(error)  # main() and train() say which extra to install

#: what training needs of the train extra
TRAIN_MODULES = ("torch", "tensorboard")


@dataclass
class Config:
    """Native PPO training: every field is a flag of uno-train (`foo_bar` as --foo-bar, `options` as --option)."""

    variant: str = "classic"
    """The variant (which preset of rules) to train on."""
    players: int = 2
    """Players at the table; the learner takes one seat, the league the others."""
    options: tuple[str, ...] = ()
    """Rule options over the variant's defaults as NAME=VALUE (`uno_env.rules.OPTION_NAMES`), e.g.
    stack_draw_two=true: one per --option, repeated for more."""
    observation: Annotated[str, Flag(choices=O.LEVELS)] = "knowledge"
    """The observation level the policy reads (minimal, knowledge, or belief: knowledge plus what the round's public
    history says about the hidden hands). `seer` (every hand) trains a privileged policy: not an honest player, but
    a measure of what seeing the hands is worth to a learned policy, and a teacher for `teacher`."""
    league: tuple[str, ...] = ("counter:4", "greedy:1", "self:3")
    """Opponents as NAME:SHARE (the share of games each plays, after the last colon): agent names (baselines,
    `ppo:classic`, searches as `ismcts:100:1`), and `self` for past snapshots."""
    imitate: str = ""
    """A baseline (by name) to imitate first (kickstarting): the learner's seat is played by it (reading its own
    observation level), and the network learns its actions (cross-entropy) and the value of its play, for
    `imitate_steps` decisions; then PPO."""
    imitate_steps: Annotated[int, nonnegative_int] = 3_000_000
    """Decisions of imitation (counted in the budget)."""
    hint: str = ""
    """An adviser: a baseline (by name) whose chosen action the network also reads (one-hot, after the observation), so
    that it can copy it exactly and learn only where to play otherwise (residual policy learning). The
    policy file records it and its agent runs the adviser at play time too."""
    minutes: Annotated[float, positive_float] = 30.0
    """Wall-clock budget of this run (training stops at whichever of minutes and total_steps comes first)."""
    total_steps: Annotated[int, positive_int] = 10**12
    """Budget in learner decisions (of the whole run, resumes included): at least one update, num_envs *
    rollout_steps."""
    num_envs: Annotated[int, positive_int] = 2048
    """Games stepped together."""
    rollout_steps: Annotated[int, positive_int] = 32
    """Decisions collected from every game per update."""
    epochs: Annotated[int, positive_int] = 2
    """Passes over each rollout."""
    minibatch_size: Annotated[int, positive_int] = 8192
    """Samples per gradient step."""
    learning_rate: Annotated[float, positive_float] = 2e-3
    """Adam's step size, annealed linearly to 10% over the budget. 2e-3 learned about 3x faster than 5e-4 in
    classic 2-player runs (52% against counter after 17M decisions, where 5e-4 needed 47M)."""
    gamma: Annotated[float, fraction] = 0.995
    """Discount per decision."""
    gae_lambda: Annotated[float, fraction] = 0.95
    """GAE's lambda."""
    clip: Annotated[float, positive_float] = 0.2
    """PPO's ratio clip."""
    entropy_coef: Annotated[float, nonnegative_float] = 0.01
    """Weight of the entropy bonus."""
    value_coef: Annotated[float, nonnegative_float] = 0.5
    """Weight of the value loss."""
    max_grad_norm: Annotated[float, positive_float] = 0.5
    """Gradient norm clip."""
    hidden: Annotated[tuple[int, ...], positive_int] = (128, 128)
    """Widths of the MLP trunk's layers. 256 256 costs about 1.4x per decision; in 30-minute monster_high runs
    on one core it won 55.4% against counter where 128 128 levelled off at 54.1%."""
    critic: Annotated[str, Flag(choices=("own", "seer"))] = "own"
    """The value function: `own` (the policy network's value head, reading the policy's observation) or `seer`
    (a separate network of the same widths that reads `seer` observations, every hand: a privileged critic,
    used in training only, whose sharper values lower the variance of the advantages)."""
    hand_loss: Annotated[float, nonnegative_float] = 0.0
    """Weight of an auxiliary loss (0: none): a head on the policy network's trunk predicts every other seat's hand
    (copies of each card kind), labelled by the engine, in training only; the policy file keeps no trace of it."""
    oracle: Annotated[float, fraction] = 0.0
    """Oracle guiding (Suphx), 0: none. For this fraction of the run the policy also reads every other seat's hand
    (from the engine, through a layer of its own into the first hidden layer), each entry kept with a probability
    that falls linearly from 1 to 0; then it plays on its own observation alone. Training only: the policy file
    keeps no trace of it."""
    teacher: str = ""
    """A policy file to distil (perfect-information distillation when it reads `seer` observations): the loss gains
    `teacher_weight` times the KL divergence from the teacher's action distribution to the learner's, the weight
    falling linearly to 0 over the run. Training only: the teacher never plays the learner's seat."""
    teacher_weight: Annotated[float, nonnegative_float] = 1.0
    """The teacher loss's weight at the start of the run."""
    snapshot_every: Annotated[int, positive_int] = 10
    """Updates between league snapshots of the learner (and redraws of the `self` opponents)."""
    league_size: Annotated[int, positive_int] = 20
    """Past snapshots kept."""
    eval_every: Annotated[int, nonnegative_int] = 50
    """Updates between evaluations (0: only at the end)."""
    eval_games: Annotated[int, positive_int] = 2000
    """Paired games per evaluation opponent."""
    eval_against: tuple[str, ...] = ("counter",)
    """Baselines the evaluation plays (or ppo: policies)."""
    checkpoint_every: Annotated[int, positive_int] = 50
    """Updates between checkpoints."""
    snapshot_seconds: Annotated[float, nonnegative_float] = 0.0
    """Seconds of training between policy snapshots written to out/snapshots/ (0: none), each named by the seconds
    since training began: `benchmarks/time_to_skill.py` evaluates them afterwards, so a curve costs the run nothing."""
    seed: int = 0
    """Seeds the games, the network and the sampling."""
    device: str = "auto"
    """auto (cuda when there is one), cpu, cuda or cuda:N."""
    threads: Annotated[int, nonnegative_int] = 1
    """torch CPU threads (0: torch's default). One suits runs side by side or a busy machine (torch's second
    thread waits on the env's compiled kernels and on other processes); a run alone on a quiet 2-core machine
    made about 1.3x the decisions per second with 2."""
    out: Path = Path("runs/native_ppo")
    """Folder for policy.pt, checkpoint.pt and the TensorBoard logs."""
    resume: Path | None = None
    """A checkpoint.pt to go on from (its settings are kept; the budget flags of this command apply)."""
    overlap: bool = False
    """Collect the next rollout in a thread while the update runs (the engine on one core, torch on the other). That
    rollout is acted by the weights from before the update (one update behind; PPO's ratio corrects for it)."""
    progress: bool = True
    """Show a progress bar."""

    @property
    def rule_options(self) -> dict[str, Any]:
        return rule_options(self.options)

    @property
    def league_shares(self) -> dict[str, float]:
        shares = {}
        for entry in self.league:
            name, colon, share = entry.rpartition(":")
            try:
                shares[name if colon else share] = float(share) if colon else 1.0
            except ValueError:
                raise ValueError(
                    f"league entries are NAME:SHARE, the share after the last colon (counter:4, ismcts:100:1), "
                    f"got {entry!r}"
                ) from None
        return shares

    def validate(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown variant {self.variant!r}; the variants are {', '.join(VARIANTS)}")
        if self.observation not in O.LEVELS:
            raise ValueError(f"observation must be one of {', '.join(O.LEVELS)}, got {self.observation!r}")
        make_rules(self.variant, **self.rule_options).check_players(self.players)  # the engine's message
        if not self.league or any(share <= 0 for share in self.league_shares.values()):
            raise ValueError(f"league needs opponents with positive shares, got {self.league!r}")
        for flag, name in (("imitate", self.imitate), ("hint", self.hint)):
            if name and name not in BASELINES:
                raise ValueError(f"--{flag} takes a baseline: {', '.join(BASELINES)}; got {name!r}")
        level = make_agent(self.hint).observation if self.hint else self.observation  # the hint joins the policy's rows
        if level != self.observation:
            raise ValueError(f"{self.hint!r} reads {level!r} observations; --hint {self.hint} needs --observation "
                             f"{level}")  # fmt: skip
        for name in self.league_shares:
            if name != "self":
                make_agent(name)  # a clear error for an unknown agent
        if not self.eval_against:
            raise ValueError("eval_against needs at least one baseline")
        for name in self.eval_against:
            make_agent(name)  # refused now, not after training (sb3: and rllib: files are not loaded: no trust here)
        if self.teacher:
            data = load_policy_file(self.teacher)  # data only; a ValueError names what is wrong
            if data["num_players"] != self.players or data.get("hint"):
                raise ValueError(f"--teacher {self.teacher} must be a policy for {self.players} players without an "
                                 f"adviser (hint); it is for {data['num_players']}")  # fmt: skip
            try:
                taught = make_rules(data.get("variant"), **dict(data.get("rule_options") or {}))
            except (TypeError, ValueError) as error:
                raise ValueError(f"--teacher {self.teacher}: its rules are not valid ({error})") from None
            rules = make_rules(self.variant, **self.rule_options)
            differ = [option.name for option in OPTIONS if getattr(taught, option.name) != getattr(rules, option.name)]
            if taught.variant != rules.variant or differ:
                raise ValueError(f"--teacher {self.teacher} was trained on {taught.variant} rules, this run is on "
                                 f"{rules.variant}" + ("" if taught.variant != rules.variant else
                                                      f"; the rule options that differ: {', '.join(differ)}"))
        if self.critic not in ("own", "seer"):
            raise ValueError(f"critic must be own or seer, got {self.critic!r}")
        if not self.hidden or min(self.hidden) < 1:
            raise ValueError(f"hidden needs at least one layer width >= 1, got {self.hidden!r}")
        if self.num_envs < len(self.league):
            raise ValueError(f"num_envs ({self.num_envs}) must give every league opponent a game")
        if self.num_envs * self.rollout_steps < self.minibatch_size:
            raise ValueError("minibatch_size must be at most num_envs * rollout_steps")
        if self.resume is None and self.total_steps < self.num_envs * self.rollout_steps:  # resume: see `train`
            raise ValueError(f"total_steps {self.total_steps} trains nothing: one update takes num_envs * "
                             f"rollout_steps = {self.num_envs * self.rollout_steps} decisions")  # fmt: skip
        check_device(self.device)


#: a checkpoint.pt's `format`, and its keys (checkpoints from before the format was named have none)
CHECKPOINT_FORMAT = "uno-env-checkpoint-1"
CHECKPOINT_TYPES: dict[str, type | tuple[type, ...]] = {
    "config": dict, "network": dict, "critic": (dict, type(None)), "optimizer": dict, "update": int, "steps": int,
    "minutes": (int, float), "snapshots": list, "history": list, "hand_head": (dict, type(None)),
    "oracle": (dict, type(None)),
}  # fmt: skip


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """A checkpoint.pt's dict, loaded as data (`weights_only=True`: nothing in the file runs) and checked: its
    format, the type of every entry, and its settings as the command line checks them (`checkpoint_config`). A
    ValueError says what is wrong. The tensors are checked against the network in `train`."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no checkpoint at {path}" + (" (a folder)" if path.is_dir() else ""))
    what = "a uno-train checkpoint (checkpoint.pt, written by uno_env.train.native_ppo)"
    state = load_plain_data(path, what)
    if not isinstance(state, dict) or state.get("format", CHECKPOINT_FORMAT) != CHECKPOINT_FORMAT:
        raise ValueError(f"{path} is not {what}")
    wrong = [key for key, kind in CHECKPOINT_TYPES.items() if not isinstance(state.get(key), kind)
             or isinstance(state.get(key), bool)]  # fmt: skip
    history = state.get("history") if isinstance(state.get("history"), list) else []
    if any(not isinstance(entry, (list, tuple)) or len(entry) != 5 or not isinstance(entry[1], str)
           or not all(isinstance(x, (int, float)) for x in (entry[0], *entry[2:])) for entry in history):  # fmt: skip
        wrong.append("history")
    wrong += [key for key in ("update", "steps", "minutes") if key not in wrong and state[key] < 0]
    commands = state.get("commands", [])
    if not isinstance(commands, list) or not all(isinstance(c, str) for c in commands):
        wrong.append("commands")
    if wrong:
        raise ValueError(f"{path} is not {what}: bad {', '.join(dict.fromkeys(wrong))}")
    state["config"] = checkpoint_config(state["config"], str(path))
    return state


def checkpoint_config(values: dict[str, Any], source: str) -> dict[str, Any]:
    """A checkpoint's settings (`Config` fields but `out` and `resume`, this command's own), each checked as
    `uno-train` checks its flag: the type of the field's default, the flag's converter (ranges) and choices. A
    ValueError names the setting."""
    actions = {action.dest: action for action in build_parser()._actions}
    fields = {field.name: field for field in dataclasses.fields(Config) if field.init}
    unknown = sorted(map(str, set(values) - set(fields)))
    if unknown:
        raise ValueError(f"{source}: unknown settings {', '.join(unknown)}")
    return {
        name: _checked_setting(name, value, fields[name].default, actions.get(name), source)
        for name, value in values.items()
        if name not in ("out", "resume")
    }


def _checked_setting(name: str, value: Any, default: Any, action: argparse.Action | None, source: str) -> Any:
    problem = f"{source}: setting {name} = {value!r}"
    if isinstance(default, tuple):
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"{problem} is not a list")
        value = tuple(value)
    for item in value if isinstance(default, tuple) else (value,):
        kind = type(default[0]) if isinstance(default, tuple) and default else type(default)
        kind = str if kind is tuple else kind  # an empty tuple's items: rule options, texts
        if not (type(item) is kind or kind is float and type(item) is int):
            raise ValueError(f"{problem} is not a {kind.__name__}")
        if action is not None and action.type not in (None, str, Path):
            try:
                action.type(str(item))
            except (argparse.ArgumentTypeError, ValueError) as error:
                raise ValueError(f"{problem}: {error}") from None
        if action is not None and action.choices is not None and item not in action.choices:
            raise ValueError(f"{problem} is not one of {', '.join(map(str, action.choices))}")
    return value


class League:
    """Groups of games, each against one opponent; `self` opponents are frozen snapshots of the learner, acting
    on the learner's device (a GPU's, when it trains on one)."""

    def __init__(self, config: Config, network: PolicyNetwork, rng: np.random.Generator, device: str = "cpu"):
        self.config, self.rng = config, rng
        league = config.league_shares
        names = list(league)
        shares = np.array([league[n] for n in names], float)
        sizes = np.maximum(1, np.floor(shares / shares.sum() * config.num_envs)).astype(int)
        sizes[np.argmax(sizes)] += config.num_envs - sizes.sum()
        self.snapshots: list[dict[str, torch.Tensor]] = []
        self.groups: list[tuple[str, UnoVectorEnv, Any]] = []
        self._seer_rows: np.ndarray | None = None  # the current decisions seen whole, once per step (`seer_rows`)
        for i, (name, size) in enumerate(zip(names, sizes, strict=True)):
            if name == "self":
                opponent = PolicyAgent(copy.deepcopy(network), sample=True, seed=config.seed + i, device=device)
            else:
                opponent = make_agent(name, seed=config.seed + 1000 + i)
            venv = UnoVectorEnv(
                config.variant, config.players, int(size), learner_seats=[0], opponents=opponent,
                observation=config.observation, **config.rule_options,
            )  # fmt: skip
            self.groups.append((name, venv, opponent))
        self.adviser = make_agent(config.hint, seed=config.seed + 2000) if config.hint else None
        if self.adviser is not None:
            bind(self.adviser, self.groups[0][1].spec, self.groups[0][1].rules)
        self.add_snapshot(network)

    def network_input(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The learner's observations as its network reads them: with the adviser's hints, if it has one."""
        return obs if self.adviser is None else add_hints(obs, masks, self.adviser)

    def add_snapshot(self, network: PolicyNetwork) -> None:
        """Keep the learner's weights in the pool and redraw every `self` opponent from it."""
        self.snapshots.append({k: v.detach().cpu().clone() for k, v in network.state_dict().items()})
        self.snapshots = self.snapshots[-self.config.league_size :]
        for name, _, opponent in self.groups:
            if name == "self":
                latest = self.rng.random() < 0.5
                pick = len(self.snapshots) - 1 if latest else int(self.rng.integers(len(self.snapshots)))
                opponent.network.load_state_dict(self.snapshots[pick])

    def reset(self, seed: int) -> tuple[np.ndarray, np.ndarray]:
        self._seer_rows = None
        parts = [venv.reset(seed + 10**7 * i) for i, (_, venv, _) in enumerate(self.groups)]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    def hand_labels(self) -> np.ndarray | None:
        """The other seats' hands at the learner's decisions, (B, (N - 1) * kinds) int8 in relative order, for the
        auxiliary head and the oracle input (from the engine, training only); None without either."""
        if not (self.config.hand_loss or self.config.oracle):
            return None
        where, _ = O.observation_layout("seer", self.config.players)["hands"]
        return self.seer_rows()[:, where][:, C.NUM_KINDS :]

    def observations(self, level: str) -> np.ndarray:
        """The learner's current decisions at another agent's level, for a teacher or an imitated baseline (`seer`:
        the rows encoded once per step)."""
        if level == "seer":
            return self.seer_rows()
        return np.concatenate([venv.observe(level) for _, venv, _ in self.groups])

    def critic_observations(self) -> np.ndarray | None:
        """The learner's decisions seen whole (`seer`), for a privileged critic; None with the own critic."""
        return None if self.config.critic == "own" else self.seer_rows()

    def seer_rows(self) -> np.ndarray:
        """The learner's current decisions at the `seer` level, encoded once per step for the critic and the hands."""
        if self._seer_rows is None:
            self._seer_rows = np.concatenate([venv.observe("seer") for _, venv, _ in self.groups])
        return self._seer_rows

    def step(self, actions: np.ndarray):
        """Step every group; returns obs, masks, learner rewards, done, winners (-1: none) of ended games."""
        self._seer_rows = None
        obs, masks, rewards, done, won = [], [], [], [], []
        at = 0
        for _, venv, _ in self.groups:
            o, m, r, terminated, truncated, info = venv.step(actions[at : at + venv.num_envs])
            at += venv.num_envs
            obs.append(o)
            masks.append(m)
            rewards.append(r[:, 0])
            ended = terminated | truncated
            done.append(ended)
            won.append(np.where(ended, info["episode"]["winner"], -2))
        return tuple(np.concatenate(x) for x in (obs, masks, rewards, done, won))


def evaluate(network: PolicyNetwork, config: Config, seed: int) -> dict[str, tuple[float, float, float]]:
    """Win rate and 95% interval of the greedy policy against each `eval_against` baseline (paired games)."""
    learner = PolicyAgent(copy.deepcopy(network).cpu().eval(), name="learner")
    return {
        name: win_rate_against(learner, name, config.variant, config.players, games=config.eval_games, seed=seed,
                               baseline_seed=seed, **config.rule_options)  # fmt: skip
        for name in config.eval_against
    }


def forward(network, critic, obs, masks, critic_obs, aids: Aids | None = None, oracle_hands=None):
    """Masked logits from the policy network, values from the critic (the same network with the own critic), and
    the policy trunk's features (for the auxiliary hand head). With an oracle input, the dropped-out hands
    (`oracle_hands`) join the first hidden layer."""
    extra = None if aids is None or aids.oracle is None else aids.oracle(oracle_hands)
    logits, values, features = network.forward_with_features(obs, masks, extra)
    if critic is not network:
        _, values = critic(critic_obs, masks)
    return logits, values, features


class HandHead(Module):
    """Training only: every other seat's hand (copies per kind) read from the policy trunk's features, so that the
    trunk learns what the observation says about the hidden cards. Labels come from the engine (`seer`)."""

    def __init__(self, width: int, num_players: int):
        super().__init__()
        self.linear = torch.nn.Linear(width, (num_players - 1) * C.NUM_KINDS)

    def loss(self, features: torch.Tensor, hands: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.mse_loss(self.linear(features), hands.float())


class OracleInput(Module):
    """Training only (oracle guiding): the other seats' hands, some entries dropped, as a term of the policy's first
    hidden layer. Once every entry is dropped the network reads its own observation alone."""

    def __init__(self, width: int, num_players: int):
        super().__init__()
        self.linear = torch.nn.Linear((num_players - 1) * C.NUM_KINDS, width, bias=False)

    def forward(self, hands: torch.Tensor) -> torch.Tensor:
        return self.linear(hands.float() * 0.5)

    @staticmethod
    def drop(hands: np.ndarray, keep: float, rng: np.random.Generator) -> np.ndarray:
        """`hands` with each entry kept with probability `keep`, else 0."""
        return hands * (rng.random(hands.shape) < keep) if keep < 1 else hands


@dataclass
class Aids:
    """What training reads and play never does: the hand head, the oracle input and the teacher (each optional)."""

    head: HandHead | None = None
    oracle: OracleInput | None = None
    teacher: PolicyNetwork | None = None

    def parameters(self) -> list[torch.nn.Parameter]:
        """The trained parameters among them (the teacher is frozen)."""
        return [p for module in (self.head, self.oracle) if module is not None for p in module.parameters()]

    def losses(self, features, logits, mb: dict[str, torch.Tensor], config: Config, teacher_weight: float):
        """The hand head's loss (times `hand_loss`) and the teacher's KL divergence to the learner (times
        `teacher_weight`), zeros for the aids this run does not have."""
        hand = features.new_zeros(()) if self.head is None else config.hand_loss * self.head.loss(features, mb["hands"])
        distil = features.new_zeros(())
        if self.teacher is not None and teacher_weight > 0:
            with torch.no_grad():
                target = torch.log_softmax(self.teacher(mb["teacher_obs"], mb["masks"])[0], -1)
            learner = torch.log_softmax(logits, -1)
            distil = teacher_weight * (target.exp() * (target - learner)).masked_fill(~mb["masks"], 0.0).sum(-1).mean()
        return hand, distil


def minibatches(batch: dict[str, torch.Tensor], size: int):
    """One shuffled pass over `batch` in minibatches of `size` rows (a remainder smaller than that is left out).

    Rows are gathered with `index_select`: advanced indexing of the int8 observations is ~8x slower on CPU."""
    n = batch["actions"].shape[0]
    order = torch.randperm(n, device=batch["actions"].device)
    for start in range(0, n - size + 1, size):
        idx = order[start : start + size]
        yield {key: value.index_select(0, idx) for key, value in batch.items()}


def ppo_update(network, critic, optimizer, batch: dict[str, torch.Tensor], config: Config,
               aids: Aids | None = None, teacher_weight: float = 0.0) -> dict[str, float]:  # fmt: skip
    """`epochs` passes of clipped PPO over shuffled minibatches; returns the mean losses.

    The losses are summed as tensors and read once at the end: `.item()` on a GPU waits for its queue."""
    aids = aids or Aids()
    stats = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "clip_fraction": 0.0,
             "hand_loss": 0.0, "teacher_loss": 0.0}  # fmt: skip
    steps = 0
    for _ in range(config.epochs):
        for mb in minibatches(batch, config.minibatch_size):
            logits, values, features = forward(network, critic, mb["obs"], mb["masks"], mb["critic_obs"], aids,
                                               mb["oracle"])  # fmt: skip
            log_probs = torch.log_softmax(logits, -1)
            new_logp = log_probs.gather(1, mb["actions"][:, None]).squeeze(1)
            # softmax, not log_probs.exp(): on CPU, exp of the masked entries' -1e9 takes ~15x longer
            probs = torch.softmax(logits, -1)
            entropy = -(probs * log_probs).masked_fill(~mb["masks"], 0.0).sum(-1).mean()
            advantages = mb["advantages"]
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
            log_ratio = new_logp - mb["logp"]
            ratio = log_ratio.exp()
            policy_loss = torch.max(-advantages * ratio, -advantages * ratio.clamp(1 - config.clip, 1 + config.clip))
            policy_loss = policy_loss.mean()
            value_loss = 0.5 * (values - mb["returns"]).pow(2).mean()
            hand_loss, teacher_loss = aids.losses(features, logits, mb, config, teacher_weight)
            loss = (policy_loss + config.value_coef * value_loss - config.entropy_coef * entropy + hand_loss
                    + teacher_loss)  # fmt: skip
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(parameters(network, critic, aids), config.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                stats["hand_loss"] += hand_loss
                stats["teacher_loss"] += teacher_loss
                stats["policy_loss"] += policy_loss
                stats["value_loss"] += value_loss
                stats["entropy"] += entropy
                stats["approx_kl"] += ((ratio - 1) - log_ratio).mean()
                stats["clip_fraction"] += ((ratio - 1).abs() > config.clip).float().mean()
            steps += 1
    return {k: float(v) / max(steps, 1) for k, v in stats.items()}


def imitation_update(network, critic, optimizer, batch: dict[str, torch.Tensor], config: Config,
                     aids: Aids | None = None, teacher_weight: float = 0.0) -> dict[str, float]:  # fmt: skip
    """One pass of cross-entropy on the imitated baseline's actions plus the value loss, over shuffled minibatches."""
    aids = aids or Aids()
    stats = {"imitation_loss": 0.0, "imitation_accuracy": 0.0, "value_loss": 0.0, "hand_loss": 0.0}
    steps = 0
    for mb in minibatches(batch, config.minibatch_size):
        logits, values, features = forward(network, critic, mb["obs"], mb["masks"], mb["critic_obs"], aids,
                                           mb["oracle"])  # fmt: skip
        imitation_loss = torch.nn.functional.cross_entropy(logits, mb["actions"])
        value_loss = 0.5 * (values - mb["returns"]).pow(2).mean()
        hand_loss, _ = aids.losses(features, logits, mb, config, 0.0)
        optimizer.zero_grad(set_to_none=True)
        (imitation_loss + config.value_coef * value_loss + hand_loss).backward()
        torch.nn.utils.clip_grad_norm_(parameters(network, critic, aids), config.max_grad_norm)
        optimizer.step()
        with torch.no_grad():  # summed as tensors, read once (see ppo_update)
            stats["hand_loss"] += hand_loss
            stats["imitation_loss"] += imitation_loss
            stats["imitation_accuracy"] += (logits.argmax(-1) == mb["actions"]).float().mean()
            stats["value_loss"] += value_loss
        steps += 1
    return {k: float(v) / max(steps, 1) for k, v in stats.items()}


def parameters(network, critic, aids: Aids | None = None) -> list[torch.nn.Parameter]:
    """The trained parameters: the policy network's, the critic's when it is a network of its own, and the
    training aids' (hand head, oracle input)."""
    return (list(network.parameters()) + (list(critic.parameters()) if critic is not network else [])
            + (aids.parameters() if aids is not None else []))  # fmt: skip


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


def train(config: Config) -> dict[str, Any]:
    """Train per `config` (see the module docstring); returns a summary with the final evaluation."""
    require_extra("training", *TRAIN_MODULES)
    state = None
    if config.resume is not None:
        state = load_checkpoint(config.resume)
        budget = {k: getattr(config, k) for k in ("minutes", "total_steps", "out", "progress", "device", "threads")}
        config = dataclasses.replace(Config(**state["config"]), resume=config.resume, **budget)
        if config.total_steps < state["steps"] + config.num_envs * config.rollout_steps:
            raise ValueError(f"total_steps {config.total_steps} trains nothing: the checkpoint has trained "
                             f"{state['steps']} decisions, and one update takes num_envs * rollout_steps = "
                             f"{config.num_envs * config.rollout_steps}")  # fmt: skip
    config.validate()
    device = torch.device("cuda" if config.device == "auto" and torch.cuda.is_available() else
                          ("cpu" if config.device == "auto" else config.device))  # fmt: skip
    if config.threads:
        torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    network = PolicyNetwork(config.observation, config.players, config.hidden, config.hint).to(device)
    critic = network if config.critic == "own" else PolicyNetwork("seer", config.players, config.hidden).to(device)
    aids = Aids(
        head=HandHead(config.hidden[-1], config.players).to(device) if config.hand_loss else None,
        oracle=OracleInput(config.hidden[0], config.players).to(device) if config.oracle else None,
        teacher=PolicyNetwork.from_file_dict(load_policy_file(config.teacher), config.teacher).to(device)
        if config.teacher else None,
    )  # fmt: skip
    optimizer = torch.optim.Adam(parameters(network, critic, aids), lr=config.learning_rate, eps=1e-5)
    update, steps_done, minutes_done = 0, 0, 0.0
    if state is not None:
        check_weights(network, state["network"], "the network")
        network.load_state_dict(state["network"])
        if critic is not network:
            check_weights(critic, state["critic"], "the critic")
            critic.load_state_dict(state["critic"])
        for module, key, what in ((aids.head, "hand_head", "a hand loss"), (aids.oracle, "oracle", "an oracle")):
            if module is not None:
                if state.get(key) is None:
                    raise ValueError(f"the checkpoint's settings have {what} but it holds no {key.replace('_', ' ')}")
                check_weights(module, state[key], f"the {key.replace('_', ' ')}")
                module.load_state_dict(state[key])
        check_optimizer_state(state["optimizer"], parameters(network, critic, aids))
        optimizer.load_state_dict(state["optimizer"])  # a ValueError if its groups do not fit
        update, steps_done, minutes_done = state["update"], state["steps"], state["minutes"]
        rng = np.random.default_rng([config.seed, update])
    league = League(config, network, rng, str(device))
    if state is not None:
        for snapshot in state["snapshots"]:
            check_weights(network, snapshot, "a league snapshot")
        league.snapshots = state["snapshots"]
        league.add_snapshot(network)

    imitated = None
    if config.imitate:
        imitated = make_agent(config.imitate, seed=config.seed + 77)
        bind(imitated, O.ObservationSpec(imitated.observation, config.players), league.groups[0][1].rules)

    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    writer = SummaryWriter(out / "tensorboard")
    collector = Collector(config, league, aids, imitated, device, rng, config.seed * 10**9 + update * config.num_envs)
    buffers = [collector.new_buffers(network) for _ in range(2 if config.overlap else 1)]
    # with --overlap the rollouts are acted by a copy of the network (and of its critic and oracle input), synced
    # after each rollout, so that the update can change the network while the next rollout is being collected
    if config.overlap:
        acting = copy.deepcopy(network)
        actor = (acting, acting if critic is network else copy.deepcopy(critic), copy.deepcopy(aids.oracle))
    else:
        actor = (network, critic, aids.oracle)
    pool = ThreadPoolExecutor(1, thread_name_prefix="collector") if config.overlap else None
    pending = None
    steps_per_update = config.num_envs * config.rollout_steps
    budget_steps = min(config.total_steps, steps_done + int(1e15))
    started = time.perf_counter()
    deadline = started + config.minutes * 60
    bar = tqdm(total=int(config.minutes * 60), unit="s", disable=not config.progress, desc="native PPO")
    next_snapshot = config.snapshot_seconds
    train_seconds, steps_at_start = 0.0, steps_done  # rollouts and updates, without evaluations and saving
    collect_seconds = 0.0  # rollouts alone
    evaluation: dict[str, tuple[float, float, float]] = {}
    history: list[tuple[int, str, float, float, float]] = state["history"] if state is not None else []
    # every command of the run, the first one and each resume, so that its policy file says how to remake it
    command = "python -m uno_env.train.native_ppo " + " ".join(sys.argv[1:])
    commands = [*(state.get("commands", []) if state is not None else []), command]

    def save(path: Path) -> None:  # tensors and plain values only: `load_checkpoint` reads it with weights_only=True
        write_atomic(path, lambda temporary: torch.save({
            "format": CHECKPOINT_FORMAT,
            "config": {**dataclasses.asdict(config), "out": str(config.out), "resume": None},
            "network": network.state_dict(), "critic": critic.state_dict() if critic is not network else None,
            "hand_head": aids.head.state_dict() if aids.head is not None else None,
            "oracle": aids.oracle.state_dict() if aids.oracle is not None else None,
            "optimizer": optimizer.state_dict(), "update": update,
            "steps": steps_done, "minutes": minutes_done + (time.perf_counter() - started) / 60,
            "snapshots": league.snapshots, "history": history, "commands": commands,
        }, temporary))  # fmt: skip
        policy = network.to_file_dict(
            config.variant, config.rule_options, steps=steps_done, updates=update,
            minutes=round(minutes_done + (time.perf_counter() - started) / 60, 2),
            commands=commands,
        )  # fmt: skip
        write_atomic(out / "policy.pt", lambda temporary: torch.save(policy, temporary))

    def schedule(ahead: int = 0) -> tuple[float, bool, float, float]:
        """(fraction of the budget spent, imitating, oracle keep probability, teacher weight), as of now, for the
        rollout that the update `ahead` updates from now will read."""
        fraction = min(1.0, (time.perf_counter() - started) / (config.minutes * 60))
        imitating = imitated is not None and steps_done + ahead * steps_per_update < config.imitate_steps
        oracle_keep = max(0.0, 1.0 - fraction / config.oracle) if config.oracle else 0.0
        return fraction, imitating, oracle_keep, config.teacher_weight * (1.0 - fraction)

    def sync_actor() -> None:
        """The acting copies (with --overlap) take the learner's current weights."""
        actor[0].load_state_dict(network.state_dict())
        if critic is not network:
            actor[1].load_state_dict(critic.state_dict())
        if aids.oracle is not None:
            actor[2].load_state_dict(aids.oracle.state_dict())

    snapshot_due = False
    while time.perf_counter() < deadline and steps_done + steps_per_update <= budget_steps:
        iteration_started = time.perf_counter()
        fraction, imitating, oracle_keep, teacher_weight = schedule()
        for group in optimizer.param_groups:
            group["lr"] = config.learning_rate * (1.0 - 0.9 * fraction)
        if pending is None:
            rollout = collector.collect(buffers[0], *actor, imitating, oracle_keep)
        else:  # collected while the last update ran, by the weights before it
            rollout = pending.result()
            buffers.reverse()
        win_rate = collector.league_win_rate()  # read while no rollout runs
        if snapshot_due:  # no rollout is running now: the `self` opponents can change
            league.add_snapshot(network)
            snapshot_due = False
        if config.overlap:
            sync_actor()
            if steps_done + 2 * steps_per_update <= budget_steps:
                _, imitating_next, keep_next, _ = schedule(ahead=1)
                pending = pool.submit(collector.collect, buffers[1], *actor, imitating_next, keep_next)
            else:
                pending = None
        current = buffers[0]
        update_started = time.perf_counter()
        advantages = gae(current["rewards"], current["values"], current["dones"], current["last_values"],
                         config.gamma, config.gae_lambda)  # fmt: skip
        batch = {key: value.reshape(steps_per_update, -1) for key, value in current.items()
                 if key not in ("actions", "logp", "values", "rewards", "dones", "last_values")}  # fmt: skip
        batch.update(actions=current["actions"].reshape(-1), logp=current["logp"].reshape(-1),
                     advantages=advantages.reshape(-1), returns=(advantages + current["values"]).reshape(-1))
        network.train()
        critic.train()
        stats = (imitation_update if rollout["imitating"] else ppo_update)(
            network, critic, optimizer, batch, config, aids, teacher_weight)  # fmt: skip
        update += 1
        steps_done += steps_per_update
        update_seconds = time.perf_counter() - update_started
        iteration_seconds = time.perf_counter() - iteration_started
        train_seconds += iteration_seconds
        collect_seconds += rollout["seconds"]

        writer.add_scalar("speed/rollout_steps_per_second", steps_per_update / rollout["seconds"], steps_done)
        writer.add_scalar("speed/steps_per_second", steps_per_update / iteration_seconds, steps_done)
        writer.add_scalar("speed/update_seconds", update_seconds, steps_done)
        for key, value in stats.items():
            writer.add_scalar(f"loss/{key}", value, steps_done)
        writer.add_scalar("loss/learning_rate", optimizer.param_groups[0]["lr"], steps_done)
        if aids.oracle is not None:
            writer.add_scalar("loss/oracle_keep", rollout["oracle_keep"], steps_done)
        if win_rate is not None:
            writer.add_scalar("episodes/league_win_rate", win_rate, steps_done)
        if update % config.snapshot_every == 0 or (rollout["imitating"] and steps_done >= config.imitate_steps):
            if pending is None:
                league.add_snapshot(network)
            else:  # the next rollout plays the `self` opponents now: change them when it is read
                snapshot_due = True
        if config.eval_every and update % config.eval_every == 0:
            evaluation = log_evaluation(network, config, writer, steps_done, update, bar, history)
        if update % config.checkpoint_every == 0:
            save(out / "checkpoint.pt")
        if config.snapshot_seconds and time.perf_counter() - started >= next_snapshot:
            save_snapshot(network, config, out, time.perf_counter() - started, steps_done, update)
            next_snapshot += config.snapshot_seconds * (1 + (time.perf_counter() - started - next_snapshot)
                                                        // config.snapshot_seconds)  # fmt: skip
        bar.n = min(bar.total, int(time.perf_counter() - started))
        bar.set_postfix(steps=steps_done, sps=int(steps_per_update / iteration_seconds))
    if pending is not None:  # a rollout that no update will read: let it finish, then leave
        pending.result()
    if pool is not None:
        pool.shutdown()
    if snapshot_due:
        league.add_snapshot(network)
    bar.close()
    if config.snapshot_seconds:  # the last policy, at the end of training
        save_snapshot(network, config, out, time.perf_counter() - started, steps_done, update)
    if not (config.eval_every and update % config.eval_every == 0 and evaluation):
        evaluation = log_evaluation(network, config, writer, steps_done, update, None, history)
    save(out / "checkpoint.pt")
    writer.close()
    return {
        "updates": update, "steps": steps_done, "evaluation": evaluation, "out": str(out), "device": str(device),
        "steps_per_second": (steps_done - steps_at_start) / max(train_seconds, 1e-9),
        "rollout_steps_per_second": (steps_done - steps_at_start) / max(collect_seconds, 1e-9),
    }  # fmt: skip


class Collector:
    """Plays the league's games and fills rollout buffers: `rollout_steps` decisions of every game, the learner's seat
    acted by the network it is given (or by the imitated baseline), with what the aids need beside them. It keeps
    the games' current observations between rollouts, so that rollouts follow on, and can run in a thread of its
    own (`--overlap`): the compiled engine and torch release the GIL."""

    def __init__(self, config: Config, league: League, aids: Aids, imitated: Any, device, rng, seed: int):
        self.config, self.league, self.aids, self.imitated, self.device, self.rng = (
            config, league, aids, imitated, device, rng)  # fmt: skip
        self.obs_np, self.masks_np = league.reset(seed=seed)
        self.episode_wins, self.episode_count = 0, 0

    def new_buffers(self, network: PolicyNetwork) -> dict[str, torch.Tensor]:
        """Empty rollout buffers, (T, B, ...) on the training device."""
        t_len, b, hands = self.config.rollout_steps, self.config.num_envs, (self.config.players - 1) * C.NUM_KINDS
        critic_obs = self.league.critic_observations()

        def zeros(*shape, dtype=torch.float32):
            return torch.zeros((t_len, b, *shape), dtype=dtype, device=self.device)

        return {
            "obs": zeros(network.input_size, dtype=torch.int8),
            "masks": zeros(self.masks_np.shape[1], dtype=torch.bool),
            "hands": zeros(hands if self.aids.head is not None else 0, dtype=torch.int8),
            "oracle": zeros(hands if self.aids.oracle is not None else 0, dtype=torch.int8),
            "teacher_obs": zeros(0 if self.aids.teacher is None else self.aids.teacher.input_size, dtype=torch.int8),
            "critic_obs": zeros(0 if critic_obs is None else critic_obs.shape[1], dtype=torch.int8),
            "actions": zeros(dtype=torch.long), "logp": zeros(), "values": zeros(), "rewards": zeros(),
            "dones": zeros(), "last_values": torch.zeros(b, device=self.device),
        }  # fmt: skip

    def tensor(self, array: np.ndarray, dtype=None) -> torch.Tensor:
        return torch.from_numpy(array).to(self.device, dtype)

    def collect(self, buffers, network, critic, oracle, imitating: bool, oracle_keep: float) -> dict[str, Any]:
        """Fill `buffers` with one rollout acted by `network` (and valued by `critic`; `oracle`: the oracle input of
        this network, or None); returns how it was collected (seconds, imitating, oracle_keep)."""
        started = time.perf_counter()
        league, aids = self.league, Aids(oracle=oracle)
        network.eval()
        critic.eval()
        for t in range(self.config.rollout_steps):
            obs = self.tensor(league.network_input(self.obs_np, self.masks_np))
            masks = self.tensor(self.masks_np).bool()
            critic_obs = league.critic_observations()
            critic_obs = None if critic_obs is None else self.tensor(critic_obs)
            hands_np = league.hand_labels()
            if self.aids.head is not None:
                buffers["hands"][t] = self.tensor(hands_np)
            if oracle is not None:
                buffers["oracle"][t] = self.tensor(OracleInput.drop(hands_np, oracle_keep, self.rng))
            if self.aids.teacher is not None:
                buffers["teacher_obs"][t] = self.tensor(league.observations(self.aids.teacher.level))
            with torch.inference_mode():
                logits, values, _ = forward(network, critic, obs, masks, critic_obs, aids, buffers["oracle"][t])
                actions = sample_actions(logits)
                if imitating:  # the imitated baseline plays the learner's seat; the network learns its actions
                    level = self.imitated.observation
                    rows = self.obs_np if level == self.config.observation else league.observations(level)
                    actions = self.tensor(self.imitated.act(rows, self.masks_np))
                logp = torch.log_softmax(logits, -1).gather(1, actions[:, None]).squeeze(1)
            buffers["obs"][t], buffers["masks"][t] = obs, masks
            if critic_obs is not None:
                buffers["critic_obs"][t] = critic_obs
            buffers["actions"][t], buffers["logp"][t], buffers["values"][t] = actions, logp, values
            self.obs_np, self.masks_np, rewards, dones, winners = league.step(actions.cpu().numpy())
            buffers["rewards"][t] = self.tensor(rewards, torch.float32)
            buffers["dones"][t] = self.tensor(dones, torch.float32)
            ended = winners > -2
            self.episode_count += int(ended.sum())
            self.episode_wins += int((winners[ended] == 0).sum())
        with torch.inference_mode():  # the value after the last decision, for GAE's bootstrap
            critic_obs = league.critic_observations()
            hands = None if oracle is None else self.tensor(OracleInput.drop(league.hand_labels(), oracle_keep,
                                                                             self.rng))  # fmt: skip
            _, buffers["last_values"][:], _ = forward(
                network, critic, self.tensor(league.network_input(self.obs_np, self.masks_np)),
                self.tensor(self.masks_np).bool(), None if critic_obs is None else self.tensor(critic_obs), aids, hands,
            )  # fmt: skip
        return {"seconds": time.perf_counter() - started, "imitating": imitating, "oracle_keep": oracle_keep}

    def league_win_rate(self) -> float | None:
        """The learner's win rate over the games ended since the last call (None if none ended)."""
        rate = self.episode_wins / self.episode_count if self.episode_count else None
        self.episode_wins, self.episode_count = 0, 0
        return rate


def save_snapshot(network: PolicyNetwork, config: Config, out: Path, seconds: float, steps: int, update: int) -> Path:
    """The learner's policy file at `seconds` of training, as out/snapshots/policy-SECONDSs.pt."""
    path = out / "snapshots" / f"policy-{seconds:08.2f}s.pt"
    path.parent.mkdir(exist_ok=True)
    policy = network.to_file_dict(config.variant, config.rule_options, steps=steps, updates=update,
                                  seconds=round(seconds, 2))  # fmt: skip
    write_atomic(path, lambda temporary: torch.save(policy, temporary))
    return path


def check_weights(module: torch.nn.Module, weights: Any, what: str) -> None:
    """Refuse (ValueError) a checkpoint's state dict that does not fit `module` (names and shapes of its tensors)."""
    expected = {k: tuple(v.shape) for k, v in module.state_dict().items()}
    found = {k: tuple(v.shape) for k, v in weights.items() if isinstance(v, torch.Tensor)} \
        if isinstance(weights, dict) else None  # fmt: skip
    if found != expected or len(found) != len(weights):
        raise ValueError(f"the checkpoint's weights of {what} do not fit the network its settings describe")


def check_optimizer_state(state: Any, params: list[torch.nn.Parameter]) -> None:
    """Refuse (ValueError) an optimizer state dict whose moments do not fit the parameters."""
    entries = state.get("state") if isinstance(state, dict) else None
    fits = isinstance(entries, dict) and isinstance(state.get("param_groups"), list) and all(
        type(index) is int and 0 <= index < len(params) and isinstance(entry, dict)
        and all(key == "step" or not isinstance(v, torch.Tensor) or v.shape == params[index].shape
                for key, v in entry.items())
        for index, entry in entries.items()
    )  # fmt: skip
    if not fits:
        raise ValueError("the checkpoint's optimizer state does not fit the network its settings describe")


def plot_learning_curve(history: list[tuple[int, str, float, float, float]], path: Path) -> None:
    """Evaluation win rates (with their 95% intervals) against training steps, one line per baseline."""
    from matplotlib.figure import Figure  # no pyplot: no backend switch (inline plots in notebooks survive)

    figure = Figure(figsize=(7, 4))
    axes = figure.subplots()
    for name in dict.fromkeys(entry[1] for entry in history):
        rows = np.array([(s, r, lo, hi) for s, n, r, lo, hi in history if n == name])
        axes.plot(rows[:, 0], rows[:, 1], marker="o", label=f"vs {name}")
        axes.fill_between(rows[:, 0], rows[:, 2], rows[:, 3], alpha=0.25)
    axes.axhline(1 / 2, color="grey", linestyle=":", linewidth=1)
    axes.set(xlabel="learner decisions", ylabel="win rate (95% interval)", title="native PPO: evaluation")
    axes.legend()
    figure.tight_layout()
    write_atomic(path, lambda temporary: figure.savefig(temporary, dpi=100, format="png"))


def log_evaluation(network, config: Config, writer, steps: int, update: int, bar, history: list) -> dict:
    results = evaluate(network, config, seed=10**6 + update)
    history += [(int(steps), str(name), *map(float, values)) for name, values in results.items()]  # plain values
    plot_learning_curve(history, Path(config.out) / "learning_curve.png")
    for name, (rate, low, high) in results.items():
        writer.add_scalar(f"eval/win_rate_vs_{name}", rate, steps)
        writer.add_scalar(f"eval/win_rate_vs_{name}_low", low, steps)
        writer.add_scalar(f"eval/win_rate_vs_{name}_high", high, steps)
    line = ", ".join(f"vs {n} {r:.3f} [{lo:.3f}, {hi:.3f}]" for n, (r, lo, hi) in results.items())
    (bar.write if bar is not None else print)(f"update {update}, {steps} steps: {line}")
    return results


def describe(config: Config) -> str:
    """The run's settings, as `uno-train` prints them when it starts: every flag with its value, changed ones first."""
    defaults = Config()
    values = {f.name: getattr(config, f.name) for f in dataclasses.fields(Config)}

    def shown(value: Any) -> str:
        return " ".join(map(str, value)) if isinstance(value, tuple) else str(value)

    def flag(name: str, value: Any) -> str:
        name = name.replace("_", "-")
        return (f"--{name}" if value else f"--no-{name}") if isinstance(value, bool) else f"--{name} {shown(value)}"

    changed = [flag(k, v) for k, v in values.items() if v != getattr(defaults, k)]
    kept = [f"{k.replace('_', '-')}={shown(v)}" for k, v in values.items() if v == getattr(defaults, k)]
    return f"uno-train settings: {' '.join(changed) or '(all defaults)'}\n  defaults kept: {', '.join(kept)}"


def build_parser():
    """The `uno-train` command line: a flag for every `Config` field (`uno_env.cli`'s convention)."""
    return parser_from_dataclass(Config, prog="uno-train", description=__doc__.split("\n\n")[0])


def parse_args(argv: list[str] | None = None) -> Config:
    """The `Config` of `uno-train argv`; a bad value exits 2 with one line."""
    return build_parser().parse_config(argv)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        config = parser.parse_config(argv)  # --help works without the train extra
        require_extra("training", *TRAIN_MODULES)  # else one line naming the extra, exit 2
        print(describe(config), flush=True)
        summary = train(config)
    except USER_ERRORS as error:  # a bad or refused checkpoint, settings the games refuse, an unwritable --out
        parser.error(str(error) or type(error).__name__)
    print(f"trained {summary['steps']} steps in {summary['updates']} updates; policy in {summary['out']}/policy.pt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
