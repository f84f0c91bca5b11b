"""Files are data: what loads without trust, what needs it, how a saved model's metadata is read, and the errors a
user's files and settings can cause.

A policy file (`ppo:`) and a native checkpoint are loaded with `torch.load(weights_only=True)`: tensors and plain
values only, so nothing in them runs. SB3 model zips (`sb3:`) and RLlib checkpoints (`rllib:`) can only be loaded
by unpickling, which can run code from the file: they load only with `trust=True` (`--trust` on the commands),
else `UntrustedFileError`. A user's agent class (`module:Class`) is imported only with `trust=True` too.

Every saved model records what it was trained on (a policy or belief file in its dict, an SB3 model in the .json
beside it, an RLlib checkpoint in its uno_env.json); `check_metadata` reads all of them, field by field
(`METADATA_FIELDS`), and refuses one trained on another observation layout before any of it is loaded.
"""

from __future__ import annotations

import argparse
import json
import pickle
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from uno_env import observation as O
from uno_env.extras import MissingExtraError
from uno_env.rules import MAX_PLAYERS, MIN_PLAYERS


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
    "load sb3: model zips and rllib: checkpoints, which are unpickled and so can run code from the file, and "
    "module:Class agents, whose module's code runs when it is imported: only for files and code you made or trust "
    "(ppo: policy files are plain data and never need it)"
)

def add_trust(parser: argparse.ArgumentParser) -> argparse.Action:
    """The commands' `--trust` flag (`TRUST_HELP`)."""
    return parser.add_argument("--trust", action="store_true", help=TRUST_HELP)


#: what loading an agent's file or a checkpoint can raise on bad input (a missing, unreadable, corrupt or refused
#: file, a bad setting, an agent whose extra is not installed): what the commands turn into their one-line error
#: (exit 2) instead of a traceback
USER_ERRORS = (ValueError, OSError, EOFError, pickle.UnpicklingError, zipfile.BadZipFile, MissingExtraError)


#: what a saved model's metadata may hold in each field it records: field -> the check of its value
METADATA_FIELDS: dict[str, Callable[[Any], bool]] = {
    "variant": lambda v: isinstance(v, str),
    "observation": lambda v: v in O.LEVELS,
    "num_players": lambda v: type(v) is int and MIN_PLAYERS <= v <= MAX_PLAYERS,
    "observation_size": lambda v: type(v) is int and v >= 1,
    "hidden": lambda v: isinstance(v, (list, tuple)) and bool(v) and all(type(w) is int and w >= 1 for w in v),
    "rule_options": lambda v: isinstance(v, dict),
    "trained": lambda v: isinstance(v, dict),
    "module_path": lambda v: isinstance(v, str),
}


def check_metadata(data: Any, source: str, what: str, fields: Sequence[str],
                   more: Mapping[str, Callable[[Any], bool]] | None = None) -> dict:  # fmt: skip
    """Refuse (ValueError, one line naming `source`) a saved model's metadata that is not `what`: not a dict, a field
    of `fields` that is not what `METADATA_FIELDS` (or `more`) allows, or a model trained on another observation
    layout than this version's (`uno_env.observation.check_layout`, naming the first field that differs)."""
    if not isinstance(data, dict):
        raise ValueError(f"{source} is not {what}")
    checks = {**METADATA_FIELDS, **(more or {})}
    wrong = [name for name in fields if not checks[name](data.get(name))]
    if wrong:
        raise ValueError(f"{source} is not {what}: bad {', '.join(wrong)}")
    O.check_layout(source, data)
    return data


def read_metadata_file(path: Path, source: str, what: str, fields: Sequence[str]) -> dict:
    """The JSON metadata file of a saved model at `path` (an SB3 model's .json, an RLlib checkpoint's uno_env.json),
    checked by `check_metadata`."""
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as error:  # a JSONDecodeError is a ValueError
        raise ValueError(f"{source} is not {what}: not a JSON file ({type(error).__name__})") from None
    return check_metadata(data, source, what, fields)
