"""The old paths of moved modules and names, in one table, each answering for one release with a warning.

A script written against an older release keeps working for one more: importing an old module path gives the
module that lives at its new path (the same object), and an old name gives the same object from its new module,
each with one `DeprecationWarning` that names the new path. An alias module is three lines that call
`alias_module`; a moved name is looked up by its old module's `__getattr__` through `moved_name`. These are the
only imports that point up a layer, and `tests/checks/test_layers.py` allows exactly the ones listed here.
"""

from __future__ import annotations

import importlib
import importlib.util
import runpy
import sys
import warnings
from pathlib import Path
from types import ModuleType

#: the release in which every old path below stops working
REMOVED_IN = "0.5.0"

#: an old module path -> its new home: an installed module, or a file of the repository that is not installed
MOVED_MODULES = {
    "uno_env.agents.arena": "uno_env.arena.tournament",
    "uno_env.agents.ratings": "uno_env.arena.ratings",
    "uno_env.agents.ray_arena": "uno_env.arena.ray_workers",
    "uno_env.agents.play": "uno_env.play.terminal",
    "uno_env.agents.web": "uno_env.play.web",
    "uno_env.agents.search": "benchmarks/search_gauge.py",
    "uno_env.replay_cli": "uno_env.play.replay_cli",
}

#: (old module, name) -> the module that defines the name now
MOVED_NAMES = {
    ("uno_env.actions", "RandomPlay"): "uno_env.seats",
}

# the repository's root in a checkout or an editable install (uno_env/ is one of its folders)
_ROOT = Path(__file__).resolve().parents[1]


def _warn(old: str, new: str) -> None:
    # stacklevel 4: past this function, its caller here and the alias module's line (or the old module's
    # __getattr__) to the line that imported or used the old path; the warnings module skips the import machinery
    warnings.warn(f"{old} is deprecated and goes away in uno-env {REMOVED_IN}: use {new}", DeprecationWarning,
                  stacklevel=4)  # fmt: skip


def _repository_module(old: str, path: str) -> ModuleType:
    """The module in the repository file `path` (not installed), imported under its file's name."""
    file = _ROOT / path
    name = file.stem
    loaded = sys.modules.get(name)
    if loaded is not None and Path(getattr(loaded, "__file__", "") or "").resolve() == file:
        return loaded
    if not file.is_file():
        raise ModuleNotFoundError(f"{old} moved to {path} in the uno-env repository, which is not installed: run it "
                                  "from a checkout", name=old)  # fmt: skip
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def alias_module(old: str, run: bool = False) -> None:
    """Make the old module path `old` the module at its new path (an alias module's only call: `alias_module(
    __spec__.name, run=__name__ == "__main__")`); `run` runs the new module as `python -m` would."""
    new = MOVED_MODULES[old]
    _warn(old, f"{new} in the repository (not installed)" if new.endswith(".py") else new)
    if run:
        if new.endswith(".py"):
            runpy.run_path(str(_ROOT / new), run_name="__main__")
        else:
            runpy.run_module(new, run_name="__main__", alter_sys=True)
        return
    sys.modules[old] = _repository_module(old, new) if new.endswith(".py") else importlib.import_module(new)


def moved_name(module: str, name: str):
    """The object a moved name stands for, with the warning (for the old module's `__getattr__`); AttributeError
    when `name` never lived in `module`."""
    new = MOVED_NAMES.get((module, name))
    if new is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    _warn(f"{module}.{name}", f"{new}.{name}")
    return getattr(importlib.import_module(new), name)
