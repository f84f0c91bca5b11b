"""Moved modules and names answer at their old paths for one release (`uno_env.deprecated`): each old path imports,
gives the same object as its new one, and warns once with a DeprecationWarning that names the new path. Each runs in
a fresh interpreter, so that the import (and its warning) really happens; the changelog lists every one."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from uno_env.deprecated import MOVED_MODULES, MOVED_NAMES, REMOVED_IN

ROOT = Path(__file__).resolve().parents[2]
NEEDS = {"uno_env.agents.web": "flask"}  # what the new module itself needs to import

CHECK_MODULE = """
import importlib, sys, warnings
old, new = sys.argv[1:3]
if new.endswith(".py"):  # a file of the repository, imported as its benchmark does
    sys.path.insert(0, "benchmarks")
    new = new.rpartition("/")[2][:-3]
target = importlib.import_module(new)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    exec(f"import {old}")
    exec(f"import {old}")
module = sys.modules[old]
assert module is target, (module, target)
parent, _, leaf = old.rpartition(".")
assert getattr(sys.modules[parent], leaf) is target
(warning,) = caught
assert warning.category is DeprecationWarning and warning.filename == "<string>", (warning, warning.filename)
print(warning.message)
"""

CHECK_NAME = """
import importlib, sys, warnings
old, name, new = sys.argv[1:4]
module = importlib.import_module(old)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    exec(f"from {old} import {name} as found")
assert found is getattr(importlib.import_module(new), name)
(warning,) = caught
assert warning.category is DeprecationWarning
print(warning.message)
"""


def run(code: str, *args: str) -> str:
    result = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True,
                            timeout=300)  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.strip()


@pytest.mark.parametrize("old", sorted(MOVED_MODULES))
def test_an_old_module_path_is_the_new_module_with_a_warning(old):
    if old in NEEDS and importlib.util.find_spec(NEEDS[old]) is None:
        pytest.skip(f"{MOVED_MODULES[old]} needs {NEEDS[old]}")
    message = run(CHECK_MODULE, old, MOVED_MODULES[old])
    assert f"{old} is deprecated" in message and MOVED_MODULES[old] in message and REMOVED_IN in message


@pytest.mark.parametrize("old, name", sorted(MOVED_NAMES))
def test_an_old_name_is_the_same_object_with_a_warning(old, name):
    new = MOVED_NAMES[old, name]
    message = run(CHECK_NAME, old, name, new)
    assert message.startswith(f"{old}.{name} is deprecated") and f"{new}.{name}" in message


def test_a_name_that_never_lived_there_is_still_an_attribute_error():
    import uno_env.actions as A

    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        A.nope  # noqa: B018
    assert not hasattr(A, "__wrapped__")


def test_the_warning_points_at_the_users_line_and_shows_by_default(tmp_path):
    """Python shows a DeprecationWarning by default when it points at __main__: a user's script sees it."""
    script = tmp_path / "old_script.py"
    script.write_text("from uno_env.agents.ratings import wilson_interval\nprint(wilson_interval(3, 4)[0] > 0)\n")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "True", result.stderr[-3000:]
    assert f"{script}:1: DeprecationWarning: uno_env.agents.ratings is deprecated" in result.stderr
    assert "use uno_env.arena.ratings" in result.stderr


def test_an_old_command_module_still_runs():
    """`python -m uno_env.replay_cli` (the old module of uno-replay) runs the command, with the warning."""
    result = subprocess.run([sys.executable, "-m", "uno_env.replay_cli", "--help"], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)  # fmt: skip
    assert result.returncode == 0 and result.stdout.startswith("usage: uno-replay "), result.stderr[-3000:]


def test_the_changelog_lists_every_old_path_and_when_it_goes():
    changelog = (ROOT / "CHANGELOG.md").read_text().split("\n## ")[1]  # the unreleased section
    for old in MOVED_MODULES:
        assert f"`{old}`" in changelog, old
    for old, name in MOVED_NAMES:
        assert f"`{old}.{name}`" in changelog, (old, name)
    assert f"removed in {REMOVED_IN}" in changelog
