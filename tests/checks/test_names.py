"""One name per concept, read from the source: a module alias means one module everywhere (`R` is always
`uno_env.rules`), and each shared constant of the game's settings is defined in one module and imported elsewhere."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("uno_env", "agents", "arena", "play", "train", "benchmarks", "tests")
#: a module alias and the one module it stands for, wherever it is used
ALIASES = {"R": "rules", "A": "actions", "C": "cards", "E": "engine", "O": "observation", "V": "validate"}
#: constants of the game's settings and the one module that defines each
CONSTANTS = {"EPISODES": "uno_env/validate.py", "DEAL_KEYS": "uno_env/validate.py",
             "MAX_STEPS_LIMIT": "uno_env/validate.py", "SEED_LIMIT": "uno_env/validate.py",
             "VARIANTS": "uno_env/rules.py"}  # fmt: skip


def _sources() -> list[Path]:
    return [path for folder in FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))]


SOURCES = _sources()


def test_a_module_alias_stands_for_one_module_everywhere():
    wrong = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] in ("uno_env", ""):
                for alias in node.names:
                    if alias.asname in ALIASES and alias.name != ALIASES[alias.asname]:
                        wrong.append(f"{path.relative_to(ROOT)}: {alias.name} as {alias.asname}")
    assert not wrong, f"these imports give an alias another module's meaning: {wrong}"


@pytest.mark.parametrize("name", CONSTANTS)
def test_each_shared_constant_is_defined_once(name):
    defined = []
    for path in SOURCES:
        for node in ast.parse(path.read_text(), str(path)).body:  # module-level assignments
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            if any(isinstance(target, ast.Name) and target.id == name for target in targets):
                defined.append(str(path.relative_to(ROOT)))
    assert defined == [CONSTANTS[name]]
