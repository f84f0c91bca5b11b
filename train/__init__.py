"""Training: the learners (native PPO; Stable-Baselines3 MaskablePPO and RLlib) and the rooms the native learners
share: `config` (settings and their command line), `recipes`, `league`, `checkpoint` (checkpoints and policy
files), `aids` (training aids) and `batch` (rollouts and batches).

Each needs an extra (`train`, and `rllib` for RLlib) to train, but not to show its `--help`: without it a run
says which extra to install in one line (`uno_env.extras`) and exits 2.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from uno_env.agents.trust import USER_ERRORS
from uno_env.extras import require_extra


def run_trainer(parser: Any, argv: Sequence[str] | None, modules: Sequence[str], train: Callable[[Any], Any], *,
                announce: Callable[[Any], str] | None = None, report: Callable[[Any], str] | None = None) -> int:
    """A trainer's command, the same for every learner: parse its settings (`--help` needs no extra), require the
    extra's `modules`, print `announce(config)`, train, print `report(summary)`. A user's error (a bad or refused
    file, settings the games refuse, an unwritable --out, a missing extra) is one line and exit 2."""
    try:
        config = parser.parse_config(argv)
        require_extra("training", *modules)
        if announce is not None:
            print(announce(config), flush=True)
        summary = train(config)
    except USER_ERRORS as error:
        parser.error(str(error) or type(error).__name__)
    if report is not None:
        print(report(summary))
    return 0


def check_device(device: str) -> None:
    """Refuse a torch device the trainers cannot use here, saying which they can (SB3 would fall back to the CPU
    without a word)."""
    if device not in ("auto", "cpu") and not re.fullmatch(r"cuda(:\d+)?", device):
        raise ValueError(f"device must be auto, cpu, cuda or cuda:N (one GPU of several), got {device!r}")
    if device.startswith("cuda"):
        require_extra(f"--device {device}", "torch")
        import torch  # here, not at the top: `rllib_ppo` imports uno_env before torch (uno_env/__init__.py)

        if not torch.cuda.is_available():
            raise ValueError(f"--device {device} needs a CUDA GPU and torch sees none here; use auto or cpu")
        count = torch.cuda.device_count()
        if int(device.partition(":")[2] or 0) >= count:
            raise ValueError(f"--device {device}: torch sees {count} GPU(s), cuda:0 to cuda:{count - 1}")
