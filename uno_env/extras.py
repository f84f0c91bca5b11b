"""Optional extras: which extra of `pip install "uno-env[EXTRA]"` provides which module, and the one-line error when
one is missing.

A plain install (`pip install uno-env`) has the engine, the PettingZoo and Gymnasium envs, the baselines, the search
agents, uno-arena and uno-play, and every command's `--help`. What needs an extra (a trained agent, a trainer, the
OpenSpiel game, the web table) raises `MissingExtraError`, whose message is one line naming the extra to install;
the commands print it and exit 2. This module is the one place that knows which extra provides which module.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager

#: the extra (pyproject.toml's optional-dependencies) that installs each optional top-level module
EXTRA_OF_MODULE = {
    "torch": "train",
    "tensorboard": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "ray": "rllib",
    "pyspiel": "openspiel",
    "open_spiel": "openspiel",
    "flask": "web",
    "waitress": "web",
}


class MissingExtraError(ModuleNotFoundError):
    """`what` needs a module of an extra that is not installed; the message says which extra to install."""

    def __init__(self, what: str, module: str):
        self.extra = EXTRA_OF_MODULE[module]
        super().__init__(
            f'{what} needs {module}, from the {self.extra} extra: pip install "uno-env[{self.extra}]"', name=module
        )


def missing_extra_module(error: ModuleNotFoundError) -> str | None:
    """The top-level module of an extra that `error` says is missing, or None when it is a module of no extra."""
    top = (error.name or "").partition(".")[0]
    return top if top in EXTRA_OF_MODULE else None


@contextmanager
def needs_extra(what: str) -> Iterator[None]:
    """Turn a ModuleNotFoundError for a module of an extra, raised in the block, into a `MissingExtraError` for
    `what` (e.g. "ppo:classic"); any other error passes unchanged."""
    try:
        yield
    except MissingExtraError:
        raise
    except ModuleNotFoundError as error:
        module = missing_extra_module(error)
        if module is None:
            raise
        raise MissingExtraError(what, module) from None


def require_extra(what: str, *modules: str) -> None:
    """Import `modules` (each a module of an extra, in `EXTRA_OF_MODULE`); the first missing one raises
    `MissingExtraError` for `what`. Importing, not just looking the module up, also catches a half-installed one."""
    with needs_extra(what):
        for module in modules:
            importlib.import_module(module)


def allow_missing_extra(error: ModuleNotFoundError) -> str:
    """For a module that still imports without an extra (so that its command's --help works): re-raise `error`
    unless the module it misses belongs to an extra; return that module."""
    module = missing_extra_module(error)
    if module is None:
        raise error
    return module


def missing_extra_base(error: ModuleNotFoundError) -> type:
    """A stand-in for a base class from an extra that is not installed (`error` is re-raised otherwise): a class
    derived from it can still be defined, and making one raises `MissingExtraError` naming the class and the extra."""
    module = allow_missing_extra(error)

    class MissingExtraBase:
        def __new__(cls, *args, **kwargs):
            raise MissingExtraError(cls.__name__, module)

    return MissingExtraBase
