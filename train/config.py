"""uno-train's settings: the `Config` dataclass (a docstring under each field is its flag's help), their
validation, and the command line made from them (`uno_env.cli`'s convention), with `--recipe NAME`
(`uno_env.train.recipes`). A learner of its own keeps its settings in a dataclass of the same kind; the parser,
`describe` and `checked_settings` take it.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from uno_env import VARIANTS, make_rules
from uno_env import observation as O
from uno_env.agents.baselines import BASELINES
from uno_env.agents.registry import make_agent
from uno_env.cli import (
    ConfigParser,
    Flag,
    fraction,
    nonnegative_float,
    nonnegative_int,
    parser_from_dataclass,
    positive_float,
    positive_int,
    rule_options,
)
from uno_env.rules import OPTIONS
from uno_env.train import check_device
from uno_env.train.recipes import RECIPES, expand_recipes, flag, recipe_flags, shown

#: the first line of `uno-train --help`
DESCRIPTION = "Native PPO: a readable PPO in PyTorch on the batched vector env, with a league of opponents."


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
    imitate_weight: Annotated[float, nonnegative_float] = 0.0
    """Kickstarting that fades (0: none; needs --imitate): after the imitation, the PPO loss also carries this weight
    times the cross-entropy toward the imitated baseline's action on the learner's own states (the baseline decides
    on them during collection), the weight falling linearly to 0 over `imitate_decay_steps` decisions."""
    imitate_decay_steps: Annotated[int, positive_int] = 10_000_000
    """Decisions of PPO over which `imitate_weight` falls to 0."""
    entropy_floor: Annotated[float, nonnegative_float] = 0.0
    """An entropy floor in nats (0: none): after each update whose mean policy entropy is below it, the entropy
    coefficient doubles (up to 32 times `entropy_coef`); after one above it, it halves back
    toward `entropy_coef`."""
    paired_deals: bool = False
    """Every league group's games come in sets of `players`, one per learner seat, that deal the same seeds: each
    deal is played from every seat, so that deal luck cancels within a batch (num_envs: a multiple of players)."""
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
    engine: Annotated[str, Flag(choices=("cpu", "cuda"))] = "cpu"
    """Where the games run: cpu (the compiled engine on the CPU cores) or cuda (every game on the GPU,
    `UnoVectorEnv(device="cuda")`: the league's baselines by their device rules, `self` snapshots by forward passes;
    no training aids, hints or a teacher, and an imitated baseline reads the policy's own observation level)."""
    threads: Annotated[int, nonnegative_int] = 1
    """torch CPU threads (0: torch's default). One suits runs side by side or a busy machine (torch's second
    thread waits on the env's compiled kernels and on other processes); a run alone on a quiet 2-core machine
    made about 1.3x the decisions per second with 2."""
    out: Path = Path("runs/native_ppo")
    """Folder for policy.pt, checkpoint.pt and the TensorBoard logs."""
    resume: Path | None = None
    """A checkpoint.pt to go on from (its settings are kept; the budget flags of this command apply)."""
    init_policy: Path | None = None
    """A policy file whose network the run starts from (fine-tuning a shipped policy, or carrying one to other rules
    or another variant): the same players, observation level, layer widths and adviser as the run's. The optimizer
    starts afresh, and an --imitate baseline's imitation phase is skipped (the network already plays)."""
    overlap: bool = False
    """Collect the next rollout in a thread while the update runs (the engine on one core, torch on the other). That
    rollout is acted by the weights from before the update (one update behind; PPO's ratio corrects for it)."""
    collectors: Annotated[int, positive_int] = 1
    """Worker processes that collect the rollouts, the games split evenly among them, each on a core of its own and
    writing into shared memory (1: in this process). For machines with cores to spare (numba's and torch's threads
    do not scale a small batch's collection); with --overlap the update runs while they collect. CPU engine only."""
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
        for option, name in (("imitate", self.imitate), ("hint", self.hint)):
            if name and name not in BASELINES:
                raise ValueError(f"--{option} takes a baseline: {', '.join(BASELINES)}; got {name!r}")
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
            self._check_teacher()
        if self.init_policy is not None:
            self._check_init_policy()
        if self.imitate_weight and not self.imitate:
            raise ValueError("--imitate-weight needs --imitate BASELINE: the baseline whose actions it weighs")
        if self.paired_deals and (self.num_envs % self.players or self.num_envs < self.players * len(self.league)):
            raise ValueError(f"--paired-deals needs num_envs a multiple of players ({self.players}) and at least "
                             f"{self.players * len(self.league)} (players x league entries), got {self.num_envs}")
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
        self._check_collectors()
        if self.engine == "cuda":
            self._check_device_engine()

    def _check_collectors(self) -> None:
        """--collectors N: N equal shards, each a league of its own with a game for each opponent (and each seat)."""
        if self.collectors == 1:
            return
        if self.engine == "cuda":
            raise ValueError("--collectors splits the CPU engine's games among processes: use it with --engine cpu")
        seats = self.players if self.paired_deals else 1  # --paired-deals: a shard deals each deal to every seat
        if self.num_envs % (self.collectors * seats) or self.num_envs // self.collectors < len(self.league) * seats:
            raise ValueError(f"--collectors {self.collectors} needs num_envs a multiple of {self.collectors * seats} "
                             f"and at least {self.collectors * len(self.league) * seats} (a game for every league "
                             f"opponent in each shard), got {self.num_envs}")  # fmt: skip

    def _check_device_engine(self) -> None:
        """--engine cuda plays what runs on the GPU: refuse, in one line, what would need the CPU engine."""
        aids = [flag for flag, on in (("--critic seer", self.critic == "seer"), ("--hand-loss", self.hand_loss > 0),
                                      ("--oracle", bool(self.oracle)), ("--teacher", bool(self.teacher)),
                                      ("--hint", bool(self.hint))) if on]  # fmt: skip
        if aids:
            raise ValueError(f"--engine cuda has no training aids or hints (they read the CPU engine): drop "
                             f"{', '.join(aids)}, or use --engine cpu")  # fmt: skip
        if self.imitate and make_agent(self.imitate).observation != self.observation:
            level = make_agent(self.imitate).observation
            raise ValueError(f"--engine cuda: the imitated {self.imitate!r} must read the policy's own observation "
                             f"level ({self.observation}); it reads {level!r}")  # fmt: skip
        for name in self.league_shares:
            if name != "self" and not hasattr(make_agent(name), "device_rule"):
                raise ValueError(f"--engine cuda plays league opponents on the GPU: {name!r} has no device rule "
                                 "(random, naive, greedy, counter and self do)")  # fmt: skip

    def _check_init_policy(self) -> None:
        """The starting policy is a policy file (read as data) with the network this run trains (its shape)."""
        from uno_env.agents.policy import load_policy_file  # torch: the train extra, needed by a run, not by --help

        data = load_policy_file(self.init_policy)  # data only; a ValueError names what is wrong
        found = {"players": data["num_players"], "observation": data["observation"], "hidden": tuple(data["hidden"]),
                 "hint": data.get("hint") or ""}  # fmt: skip
        wanted = {"players": self.players, "observation": self.observation, "hidden": tuple(self.hidden),
                  "hint": self.hint}  # fmt: skip
        if found != wanted:
            differ = ", ".join(f"{k} {found[k]!r} (the run: {wanted[k]!r})" for k in wanted if found[k] != wanted[k])
            raise ValueError(f"--init-policy {self.init_policy} is not the network this run trains: {differ}")

    def _check_teacher(self) -> None:
        """The teacher is a policy file (read as data) for these players and these rules, without an adviser."""
        from uno_env.agents.policy import load_policy_file  # torch: the train extra, needed by a run, not by --help

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


def checked_settings(values: dict[str, Any], source: str, config_class: type = Config) -> dict[str, Any]:
    """Settings read from a file (a checkpoint's: `config_class` fields but `out` and `resume`, the command's own),
    each checked as the command line checks its flag: the type of the field's default, the flag's converter (ranges)
    and choices. A ValueError names the setting."""
    actions = {action.dest: action for action in build_parser(config_class)._actions}
    fields = {field.name: field for field in dataclasses.fields(config_class) if field.init}
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


def describe(config: Any) -> str:
    """The run's settings, as `uno-train` prints them when it starts: every flag with its value, changed ones first."""
    defaults = type(config)()
    values = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    changed = [flag(k, v) for k, v in values.items() if v != getattr(defaults, k)]
    kept = [f"{k.replace('_', '-')}={shown(v)}" for k, v in values.items() if v == getattr(defaults, k)]
    return f"uno-train settings: {' '.join(changed) or '(all defaults)'}\n  defaults kept: {', '.join(kept)}"


class TrainParser(ConfigParser):
    """uno-train's parser: `--recipe NAME` puts a recipe's settings first, so that every flag given overrides them."""

    def parse_known_args(self, args: Sequence[str] | None = None, namespace: Any = None):
        return super().parse_known_args(expand_recipes(sys.argv[1:] if args is None else args), namespace)


def build_parser(config_class: type = Config, prog: str = "uno-train", description: str = DESCRIPTION):
    """The command line of `config_class`: a flag for every field (`uno_env.cli`'s convention), and `--recipe`."""
    parser = parser_from_dataclass(config_class, prog=prog, description=description, parser_class=TrainParser)
    names = "; ".join(f"{name}: {' '.join(recipe_flags(name))}" for name in RECIPES)
    parser.add_argument("--recipe", choices=tuple(RECIPES), help=f"Named settings (uno_env.train.recipes) in place of "
                        f"the defaults; the flags given with it override them ({names})")  # fmt: skip
    return parser


def parse_args(argv: list[str] | None = None) -> Config:
    """The `Config` of `uno-train argv`; a bad value exits 2 with one line."""
    return build_parser().parse_config(argv)
