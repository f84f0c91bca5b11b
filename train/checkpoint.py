"""The files a run writes: `checkpoint.pt` (everything needed to go on where it stopped), `policy.pt` (the policy
file, an agent for `uno-arena --agents ppo:PATH`) and timed snapshots of the policy.

Both files are data, never code: `torch.save` of dicts of tensors and plain values (the settings, the modules' and
the optimizer's state dicts, the league's snapshots, the evaluation history), read back with
`torch.load(weights_only=True)`, so a crafted file is refused before anything in it runs. `load_checkpoint` checks
the format, the type of every entry and every setting as the command line checks it; `restore` checks every
tensor against the modules it fills. Saving and restoring take the modules and the optimizer they are given, so
every learner writes the same format.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from uno_env.records import write_atomic
from uno_env.train.config import checked_settings

try:  # the train extra (see uno_env.train.native_ppo)
    import torch

    from uno_env.agents.policy import load_plain_data
except ModuleNotFoundError:
    torch = None

#: a checkpoint.pt's `format`, and its keys (checkpoints from before the format was named have none)
CHECKPOINT_FORMAT = "uno-env-checkpoint-1"
CHECKPOINT_TYPES: dict[str, type | tuple[type, ...]] = {
    "config": dict, "network": dict, "critic": (dict, type(None)), "optimizer": dict, "update": int, "steps": int,
    "minutes": (int, float), "snapshots": list, "history": list, "hand_head": (dict, type(None)),
    "oracle": (dict, type(None)),
}  # fmt: skip
#: the settings a resumed run takes from its command rather than from its checkpoint
BUDGET = ("minutes", "total_steps", "out", "progress", "device", "threads")


def load_checkpoint(path: str | Path, config_class: type | None = None) -> dict[str, Any]:
    """A checkpoint.pt's dict, loaded as data (`weights_only=True`: nothing in the file runs) and checked: its
    format, the type of every entry, and its settings as the command line checks them (`checked_settings`, of
    `config_class`: the learner's settings, uno-train's `Config` by default). A ValueError says what is wrong. The
    tensors are checked against the modules by `restore`."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no checkpoint at {path}" + (" (a folder)" if path.is_dir() else ""))
    what = "a uno-train checkpoint (checkpoint.pt, written by uno_env.train)"
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
    state["config"] = checked_settings(state["config"], str(path), *([config_class] if config_class else []))
    return state


def resumed(config: Any) -> tuple[Any, dict[str, Any] | None]:
    """The settings of `config.resume`'s checkpoint with this command's budget (`BUDGET`), and the checkpoint (None
    and `config` itself when there is nothing to resume)."""
    if config.resume is None:
        return config, None
    state = load_checkpoint(config.resume, type(config))
    budget = {key: getattr(config, key) for key in BUDGET}
    return dataclasses.replace(type(config)(**state["config"]), resume=config.resume, **budget), state


def prepared(config: Any) -> tuple[Any, dict[str, Any] | None]:
    """A learner's settings ready to train: resumed from their checkpoint, if any (`resumed`), with a budget left
    for at least one update, and validated; and the checkpoint's state (None for a new run)."""
    config, state = resumed(config)
    if state is not None and config.total_steps < state["steps"] + config.num_envs * config.rollout_steps:
        raise ValueError(f"total_steps {config.total_steps} trains nothing: the checkpoint has trained "
                         f"{state['steps']} decisions, and one update takes num_envs * rollout_steps = "
                         f"{config.num_envs * config.rollout_steps}")  # fmt: skip
    config.validate()
    return config, state


def training_device(setting: str):
    """The torch device of a `--device` setting: `auto` is the GPU when torch sees one, else the CPU."""
    import torch

    if setting == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(setting)


def save_checkpoint(path: Path, config: Any, modules: dict[str, Any], optimizer, **progress: Any) -> None:
    """checkpoint.pt: the format, the settings, each module's state dict by key (None for a module the run has not),
    the optimizer's, and `progress` (plain values and tensors: update, steps, minutes, snapshots, history, ...)."""
    state = {
        "format": CHECKPOINT_FORMAT, "config": {**dataclasses.asdict(config), "out": str(config.out), "resume": None},
        **{key: None if module is None else module.state_dict() for key, module in modules.items()},
        "optimizer": optimizer.state_dict(), **progress,
    }  # fmt: skip
    write_atomic(path, lambda temporary: torch.save(state, temporary))


def restore(state: dict[str, Any], modules: dict[str, Any], optimizer) -> None:
    """Fill `modules` (by key; None: a module the run has not) and `optimizer` from a loaded checkpoint, each state
    dict checked first: a ValueError if the checkpoint lacks one or one does not fit."""
    for key, module in modules.items():
        if module is None:
            continue
        name = key.replace("_", " ")
        if state.get(key) is None:
            raise ValueError(f"the checkpoint holds no {name}, which its settings call for")
        check_weights(module, state[key], f"the {name}")
        module.load_state_dict(state[key])
    check_optimizer_state(state["optimizer"], [p for group in optimizer.param_groups for p in group["params"]])
    optimizer.load_state_dict(state["optimizer"])  # a ValueError if its groups do not fit


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


def save_policy(path: Path, network, config: Any, **trained: Any) -> None:
    """The policy file of `network` (its weights and what it plays: variant, rules, observation level), with
    `trained` (steps, minutes, the commands) as its record."""
    policy = network.to_file_dict(config.variant, config.rule_options, **trained)
    write_atomic(path, lambda temporary: torch.save(policy, temporary))


def save_snapshot(network, config: Any, out: Path, seconds: float, steps: int, update: int) -> Path:
    """The learner's policy file at `seconds` of training, as out/snapshots/policy-SECONDSs.pt (for
    `benchmarks/time_to_skill.py`)."""
    path = out / "snapshots" / f"policy-{seconds:08.2f}s.pt"
    path.parent.mkdir(exist_ok=True)
    save_policy(path, network, config, steps=steps, updates=update, seconds=round(seconds, 2))
    return path
