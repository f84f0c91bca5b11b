"""Ship a trained policy with the package: `python -m uno_env.train.ship runs/classic-2p/policy.pt`.

Writes `agents/policies/<variant>-<players>p.pt` (weights in float16, to keep the package small), which
`PolicyAgent.shipped(variant)` and the agent name `ppo:<variant>` load; with `--best`, `agents/best/...`, a network
stronger than the game's PPO policy that only `best:<variant>` seats (the PPO policy, which benchmark suites pin,
stays). The policy file's `trained` record (steps, minutes, the training commands) goes with it. Then list the file
with its digest in `agents/shipped.json`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

from uno_env.agents.policy import SHIPPED_DIR, load_policy_file
from uno_env.agents.shipped import AGENTS_DIR, FOLDERS
from uno_env.records import write_atomic


def ship(source: str | Path, directory: Path = SHIPPED_DIR) -> Path:
    """Copy a policy file into the shipped policies, its weights in float16; returns the new path."""
    data = load_policy_file(source)
    data["state_dict"] = {k: v.half() if v.is_floating_point() else v for k, v in data["state_dict"].items()}
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / f"{data['variant']}-{data['num_players']}p.pt"
    write_atomic(target, lambda temporary: torch.save(data, temporary))
    return target


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    best = args[:1] == ["--best"]
    args = args[1:] if best else args
    if len(args) != 1:
        print("usage: python -m uno_env.train.ship [--best] PATH/policy.pt", file=sys.stderr)
        return 2
    try:
        print(f"shipped {ship(args[0], AGENTS_DIR / FOLDERS['best'] if best else SHIPPED_DIR)}")
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
