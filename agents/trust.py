"""Files are data: what loads without trust, what needs it, and the errors a user's files and settings can cause.

A policy file (`ppo:`) and a native checkpoint are loaded with `torch.load(weights_only=True)`: tensors and plain
values only, so nothing in them runs. SB3 model zips (`sb3:`) and RLlib checkpoints (`rllib:`) can only be loaded
by unpickling, which can run code from the file: they load only with `trust=True` (`--trust` on the commands),
else `UntrustedFileError`.
"""

from __future__ import annotations

import pickle
import zipfile
from pathlib import Path

from uno_env.extras import MissingExtraError


class UntrustedFileError(ValueError):
    """A file that can only be loaded by unpickling it (which can run code from the file), refused without trust."""


def untrusted(kind: str, path: str | Path) -> UntrustedFileError:
    """The error for loading a `kind` (e.g. "an SB3 model zip") from `path` without trust, saying why."""
    return UntrustedFileError(
        f"refusing to load {str(path)!r}: {kind} is loaded by unpickling, which can run code from the file: "
        "pass trust=True / --trust only for files you made or trust"
    )


#: the help of the commands' --trust flag
TRUST_HELP = (
    "load sb3: model zips and rllib: checkpoints, which are unpickled and so can run code from the file: only for "
    "files you made or trust (ppo: policy files are plain data and never need it)"
)

#: what loading an agent's file or a checkpoint can raise on bad input (a missing, unreadable, corrupt or refused
#: file, a bad setting, an agent whose extra is not installed): what the commands turn into their one-line error
#: (exit 2) instead of a traceback
USER_ERRORS = (ValueError, OSError, EOFError, pickle.UnpicklingError, zipfile.BadZipFile, MissingExtraError)
