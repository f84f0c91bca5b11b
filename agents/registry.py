"""The agent registry: every agent `uno-arena`, `uno-play`, the trainers' leagues and the tests can seat, by name.

Baselines by name (`random`, `naive`, `greedy`, `counter`); trained agents as PREFIX:ARGUMENT (`ppo:classic`,
`ppo:FILE.pt`, `sb3:MODEL.zip`, `rllib:CHECKPOINT_DIR`), loaded on demand so that torch, SB3 and Ray are
imported only by those who seat them.

Files are data: a policy file (`ppo:`) is loaded with `torch.load(weights_only=True)`, tensors and plain values
only, so nothing in it runs. SB3 model zips and RLlib checkpoints can only be loaded by unpickling, which can
run code from the file: they load only with `trust=True` (`--trust` on the commands), else `UntrustedFileError`
(`uno_env.agents.trust`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .baselines import BASELINES


def _ppo(argument: str, seed: int | None, trust: bool):
    from .policy import PolicyAgent

    # a policy file is plain data (weights_only): it never needs trust
    if argument.endswith(".pt") or Path(argument).exists():
        return PolicyAgent(argument, name=f"ppo:{argument}", seed=seed)
    return PolicyAgent.shipped(argument, seed=seed)


def _sb3(argument: str, seed: int | None, trust: bool):
    from .sb3_agent import SB3Agent

    return SB3Agent(argument, trust=trust)


def _rllib(argument: str, seed: int | None, trust: bool):
    from .rllib_agent import RLlibAgent

    return RLlibAgent(argument, seed=seed, trust=trust)


# Trained agents by PREFIX:ARGUMENT: loader(argument, seed, trust) -> agent.
TRAINED_PREFIXES = {"ppo": _ppo, "sb3": _sb3, "rllib": _rllib}
TRAINED_HELP = "ppo:PRESET (a shipped policy), ppo:FILE.pt, sb3:MODEL.zip, rllib:CHECKPOINT_DIR"


def agent_names() -> list[str]:
    """The baseline names `make_agent` knows (trained agents are PREFIX:ARGUMENT, see `TRAINED_PREFIXES`)."""
    return list(BASELINES)


def is_agent_name(name: str) -> bool:
    """A baseline's name or a PREFIX:ARGUMENT name with a known prefix (the argument is checked on loading)."""
    return name in BASELINES or name.partition(":")[0] in TRAINED_PREFIXES and ":" in name


def make_agent(name: str, seed: int | None = None, trust: bool = False) -> Any:
    """An agent by name, seeded: a baseline, or a trained agent as PREFIX:ARGUMENT (`TRAINED_PREFIXES`).

    `trust=True` lets `sb3:` and `rllib:` files load, by unpickling them (which can run code from the file): only
    for files you made or trust. Without it they raise `UntrustedFileError`; `ppo:` files never need it."""
    if not isinstance(name, str):
        raise TypeError(f"an agent name is a string, got {name!r}")
    prefix, colon, argument = name.partition(":")
    if colon and prefix in TRAINED_PREFIXES:
        return TRAINED_PREFIXES[prefix](argument, seed, bool(trust))
    if name not in BASELINES:
        raise ValueError(f"unknown agent {name!r}; the agents are {', '.join(BASELINES)}, or {TRAINED_HELP}")
    return BASELINES[name](seed=seed)
