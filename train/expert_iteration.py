"""Expert iteration's learner: a policy-value network trained on what a search found (`uno_env.train.search_labels`).

    python -m uno_env.train.search_labels --expert seer:100 --players 4 --states 100000 --out labels.npz
    python -m uno_env.train.expert_iteration --labels labels.npz --observation knowledge --out runs/exit

The network is the native PPO's `PolicyNetwork` (the same policy files, `ppo:FILE.pt` seats it), trained by
supervised learning: the policy head by cross-entropy to the search's move (`--target action`), or to the softmax
over the legal actions of `--sharpness` times each one's mean win advantage over the rollout policy's move
(`--target advantage`: the search's paired comparison, softened); the value head to whether the seat won the round
(`--value-weight`). The weights kept are those of the epoch with the lowest held-out policy loss (`--keep best`).
`--hint counter` gives the network the rollout policy's move as input, so that it learns only where the search
plays otherwise (residual learning; the agent runs `counter` at play time).

The observation level is the learner's choice and the labels' (they hold each level they were made with): a
`seer` network sees every hand (a measure of what a network can hold, never a fair player); a `knowledge` or
`belief` network learns from a search that saw more than it does, which is training with hidden information
(the teacher) while acting on what the seat sees. One deal's states stay together on one side of the held-out
split (`--holdout`), since the states of a round are not independent.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from uno_env import cli
from uno_env import observation as O
from uno_env.agents.base import bind
from uno_env.agents.policy import PolicyNetwork, add_hints
from uno_env.agents.registry import make_agent
from uno_env.records import write_atomic
from uno_env.rules import make_rules

from .search_labels import load_labels

TARGETS = ("action", "advantage")
KEEPS = ("best", "last")


@dataclass
class FitSettings:
    """How a network is fitted to search labels (each a flag of `python -m uno_env.train.expert_iteration`)."""

    observation: str = "knowledge"
    hidden: tuple[int, ...] = (512, 512)
    hint: str = ""
    target: str = "action"
    sharpness: float = 20.0
    value_weight: float = 0.5
    epochs: int = 20
    batch_size: int = 1024
    learning_rate: float = 1e-3
    weight_decay: float = 1e-5
    holdout: float = 0.1
    keep: str = "best"
    seed: int = 0


def policy_targets(arrays: dict[str, np.ndarray], target: str, sharpness: float) -> np.ndarray:
    """(N, 77) float32 target distributions: the search's move one-hot (`action`), or softmax over the legal
    actions of `sharpness` times each one's mean win advantage over the rollout policy's move (`advantage`)."""
    n = len(arrays["actions"])
    if target == "action":
        out = np.zeros((n, arrays["masks"].shape[1]), np.float32)
        out[np.arange(n), arrays["actions"]] = 1.0
        return out
    scores = np.where(arrays["masks"] > 0, sharpness * arrays["advantage"].astype(np.float32), -np.inf)
    scores -= scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    return (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)


def network_rows(arrays: dict[str, np.ndarray], settings: dict[str, Any], level: str, hint: str) -> np.ndarray:
    """The rows the network reads: the labels' observations at `level`, with the adviser's move appended when the
    network has one (`add_hints`, as the agent does at play time)."""
    key = f"obs_{level}"
    if key not in arrays:
        held = ", ".join(name[4:] for name in arrays if name.startswith("obs_"))
        raise ValueError(f"the labels hold no {level!r} observations (they hold {held}); make them with --levels")
    rows = arrays[key]
    if not hint:
        return rows
    adviser = make_agent(hint, seed=0)
    rules = make_rules(settings["variant"], **cli.rule_options(settings.get("options", ())))
    bind(adviser, O.ObservationSpec(level, settings["players"]), rules)
    return np.concatenate([add_hints(rows[i : i + 8192], arrays["masks"][i : i + 8192], adviser)
                           for i in range(0, len(rows), 8192)])  # fmt: skip


def split_by_deal(deals: np.ndarray, holdout: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Row indices (train, held out): each deal's rows on one side."""
    unique = np.unique(deals)
    held = np.random.default_rng(seed).choice(unique, size=int(round(holdout * len(unique))), replace=False)
    is_held = np.isin(deals, held)
    return np.flatnonzero(~is_held), np.flatnonzero(is_held)


def deal_subset(arrays: dict[str, np.ndarray], states: int, seed: int) -> dict[str, np.ndarray]:
    """About `states` of the labels, whole deals drawn at random (`seed`): the same learner on less data, to see
    how its strength grows with the labels."""
    deals = np.unique(arrays["deal"])
    share = min(1.0, states / len(arrays["deal"]))
    chosen = np.random.default_rng(seed).permutation(deals)[: int(len(deals) * share)]
    rows = np.flatnonzero(np.isin(arrays["deal"], chosen))
    return {name: array[rows] for name, array in arrays.items()}


def fit(arrays: dict[str, np.ndarray], settings: dict[str, Any], config: FitSettings, *, device: str = "cpu",
        log=print) -> tuple[PolicyNetwork, dict[str, float]]:  # fmt: skip
    """A `PolicyNetwork` fitted to the labels (see the module docstring), as of the epoch with the lowest held-out
    policy loss (`keep="best"`, else the last epoch), and that epoch's held-out metrics: `agreement` (how often its
    move is the search's), `deviation_recall` (of the states where the search left the rollout policy's move, how
    often the network does the same), `false_deviation`, the losses and `epoch`."""
    if config.target not in TARGETS or config.keep not in KEEPS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)} and keep one of {', '.join(KEEPS)}, got "
                         f"{config.target!r} and {config.keep!r}")
    torch.manual_seed(config.seed)
    rows = torch.from_numpy(network_rows(arrays, settings, config.observation, config.hint))
    masks = torch.from_numpy(arrays["masks"]).bool()
    targets = torch.from_numpy(policy_targets(arrays, config.target, config.sharpness))
    outcome = torch.from_numpy(arrays["outcome"].astype(np.float32))
    train_rows, held_rows = split_by_deal(arrays["deal"], config.holdout, config.seed)
    network = PolicyNetwork(config.observation, settings["players"], config.hidden, config.hint).to(device)
    optimizer = torch.optim.AdamW(network.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay)
    steps = config.epochs * max(1, len(train_rows) // config.batch_size)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, config.learning_rate, total_steps=steps)
    generator = torch.Generator().manual_seed(config.seed)
    metrics: dict[str, float] = {}
    best: tuple[float, dict[str, torch.Tensor], dict[str, float]] | None = None  # (held-out loss, weights, metrics)
    for epoch in range(config.epochs):
        network.train()
        order = torch.from_numpy(train_rows)[torch.randperm(len(train_rows), generator=generator)]
        for start in range(0, len(order) - config.batch_size + 1, config.batch_size):
            batch = order[start : start + config.batch_size]
            logits, values = network(rows[batch].to(device), masks[batch].to(device))
            policy_loss = -(targets[batch].to(device) * torch.log_softmax(logits, -1)).sum(-1).mean()
            value_loss = F.mse_loss(values, outcome[batch].to(device))
            optimizer.zero_grad()
            (policy_loss + config.value_weight * value_loss).backward()
            optimizer.step()
            schedule.step()
        metrics = evaluate_fit(network, rows, masks, targets, outcome, arrays, held_rows, device)
        log(f"epoch {epoch + 1}/{config.epochs}: " + ", ".join(f"{k} {v:.4f}" for k, v in metrics.items()))
        if config.keep == "best" and len(held_rows) and (best is None or metrics["policy_loss"] < best[0]):
            weights = {k: v.detach().clone() for k, v in network.state_dict().items()}
            best = metrics["policy_loss"], weights, {**metrics, "epoch": epoch + 1}
    if best is not None:  # the epoch that did best on the held-out deals: later ones learn the training deals by heart
        network.load_state_dict(best[1])
        metrics = best[2]
    return network.eval(), metrics


@torch.no_grad()
def evaluate_fit(network, rows, masks, targets, outcome, arrays, held, device) -> dict[str, float]:
    """Held-out agreement with the search, recall of its deviations from the rollout policy, and the losses."""
    network.eval()
    index = torch.from_numpy(held)
    logits, values = network(rows[index].to(device), masks[index].to(device))
    chosen = logits.argmax(-1).cpu().numpy()
    actions, preferred = arrays["actions"][held], arrays["preferred"][held]
    deviated = actions != preferred
    return {
        "policy_loss": float(-(targets[index].to(device) * torch.log_softmax(logits, -1)).sum(-1).mean()),
        "value_loss": float(F.mse_loss(values, outcome[index].to(device))),
        "agreement": float(np.mean(chosen == actions)),
        "deviation_recall": float(np.mean(chosen[deviated] == actions[deviated])) if deviated.any() else float("nan"),
        "false_deviation": float(np.mean(chosen[~deviated] != preferred[~deviated])),
    }


def save_policy(network: PolicyNetwork, settings: dict[str, Any], config: FitSettings, metrics: dict[str, float],
                path: Path, seconds: float, source: str) -> Path:  # fmt: skip
    """The network as a policy file (`ppo:FILE.pt` seats it), saying how it was made."""
    options = cli.rule_options(settings.get("options", ()))
    data = network.to_file_dict(settings["variant"], options, learner="expert_iteration", labels=source,
                                expert=settings["expert"], states=int(settings.get("states", 0)),
                                minutes=round(seconds / 60, 2), commands=[" ".join(sys.argv)],
                                fit={k: v for k, v in vars(config).items() if k != "hidden"},
                                metrics=metrics)  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomic(path, lambda temporary: torch.save(data, temporary))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m uno_env.train.expert_iteration",
                                     description=__doc__.split("\n")[0])  # fmt: skip
    parser.add_argument("--labels", type=Path, required=True, help="a labels file (uno_env.train.search_labels)")
    cli.add_observation(parser, default="knowledge", levels=O.LEVELS)
    parser.add_argument("--hidden", type=cli.int_in_range(1, 8192), nargs="+", default=[512, 512])
    parser.add_argument("--hint", default="", help="an adviser whose move the network reads (e.g. counter)")
    parser.add_argument("--target", choices=TARGETS, default="action")
    parser.add_argument("--sharpness", type=cli.positive_float, default=20.0)
    parser.add_argument("--value-weight", type=cli.nonnegative_float, default=0.5)
    parser.add_argument("--epochs", type=cli.int_in_range(1, 10_000), default=20)
    parser.add_argument("--batch-size", type=cli.int_in_range(1, 1 << 20), default=1024)
    parser.add_argument("--learning-rate", type=cli.positive_float, default=1e-3)
    parser.add_argument("--holdout", type=cli.fraction, default=0.1)
    parser.add_argument("--max-states", type=cli.positive_int, default=None,
                        help="fit on about this many states, whole deals drawn at random (default: all)")
    parser.add_argument("--keep", choices=KEEPS, default="best",
                        help="the weights kept: the epoch with the lowest held-out policy loss, or the last "
                        "(default best)")  # fmt: skip
    cli.add_seed(parser)
    cli.add_device(parser, default="cpu")
    cli.add_out(parser, "runs/expert_iteration")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    config = FitSettings(observation=args.observation, hidden=tuple(args.hidden), hint=args.hint, target=args.target,
                         sharpness=args.sharpness, value_weight=args.value_weight, epochs=args.epochs,
                         batch_size=args.batch_size, learning_rate=args.learning_rate, holdout=args.holdout,
                         keep=args.keep, seed=args.seed)  # fmt: skip
    started = time.perf_counter()
    try:
        arrays, settings = load_labels(args.labels)
        if args.max_states:
            arrays = deal_subset(arrays, args.max_states, args.seed)
        settings["states"] = len(arrays["actions"])
        network, metrics = fit(arrays, settings, config, device=args.device)
    except ValueError as error:
        parser.error(str(error))
    path = save_policy(network, settings, config, metrics, args.out / "policy.pt", time.perf_counter() - started,
                       str(args.labels))  # fmt: skip
    print(f"{path}: {json.dumps(metrics)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
