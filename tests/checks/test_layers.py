"""The package's layers import downward only, read from the source: the engine and its faces (`uno_env`, layer 0),
then the players (`uno_env.agents`, 1), then the runner and the screens (`uno_env.arena`, `uno_env.play`, 2, which
do not import each other), then training (`uno_env.train`, 3). No module imports a bare `agents`, `arena`, `play`
or `train`; no import cycles (imports inside functions count too)."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Repository folder -> installed package (pyproject.toml's package-dir).
PACKAGES = {"uno_env": "uno_env", "agents": "uno_env.agents", "arena": "uno_env.arena", "play": "uno_env.play",
            "train": "uno_env.train"}  # fmt: skip
#: each installed package's layer: a module imports only from its own layer or below
LAYERS = {"uno_env.agents": 1, "uno_env.arena": 2, "uno_env.play": 2, "uno_env.train": 3}


def _modules() -> dict[str, Path]:
    modules = {}
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).glob("*.py")):
            modules[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return modules


MODULES = _modules()


def _imports(module: str, path: Path) -> set[str]:
    """Every module `module` imports anywhere in its file, as absolute names."""
    is_package = path.stem == "__init__"
    package = module if is_package else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            name = (f"{base}.{node.module}" if node.module else base) if node.level else node.module
            submodules = {f"{name}.{alias.name}" for alias in node.names} & set(MODULES)
            found.update(submodules)
            if len(submodules) < len(node.names):  # names defined in `name` itself
                found.add(name)
    return found


def _package(module: str) -> str:
    return next((p for p in LAYERS if module == p or module.startswith(p + ".")), "uno_env")


def _layer(module: str) -> int:
    return LAYERS.get(_package(module), 0)


GRAPH = {module: _imports(module, path) for module, path in MODULES.items()}


def test_the_three_folders_are_read():
    assert {"uno_env.engine", "uno_env.agents.registry", "uno_env.arena.tournament", "uno_env.play.web",
            "uno_env.train.native_ppo"} <= set(MODULES)  # fmt: skip


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_downward(module):
    for name in GRAPH[module]:
        bare = name.split(".")[0]
        assert bare == "uno_env" or bare not in PACKAGES, f"{module} imports the bare name {name!r}"
        if name.startswith("uno_env"):
            assert _layer(name) <= _layer(module), f"{module} (layer {_layer(module)}) imports {name} from above"
            same_layer = _layer(name) == _layer(module) and _package(name) != _package(module)
            assert not same_layer, f"{module} imports {name}: rooms of one layer do not import each other"


def test_no_import_cycles():
    edges = {m: {n for n in names if n in MODULES and n != m} for m, names in GRAPH.items()}
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                cycle = trail[trail.index(nxt):] + [nxt] if nxt in trail else [node, nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [module])


def test_the_checker_sees_an_upward_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from uno_env.train import check_device\n")
    assert "uno_env.train" in _imports("uno_env.bad", bad)
