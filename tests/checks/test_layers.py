"""The package's layers import downward only, read from the source: the engine and its faces (`uno_env`, layer 0),
then the players (`uno_env.agents`, 1), then the runner and the screens (`uno_env.arena`, `uno_env.play`, 2, which
do not import each other), then training (`uno_env.train`, 3). Inside `uno_env` the same holds for its rooms
(`CORE`): the contract tables, the engine, what a state means, the game, what is built on it, the faces, and the
commands' vocabulary last; no command lives in `uno_env`. No module imports a bare `agents`, `arena`, `play` or
`train`; no import cycles (imports inside functions count too). The old paths that answer for one release
(`uno_env/deprecated.py`'s tables) are the only imports allowed to point up."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Repository folder -> installed package (pyproject.toml's package-dir).
PACKAGES = {"uno_env": "uno_env", "agents": "uno_env.agents", "arena": "uno_env.arena", "play": "uno_env.play",
            "train": "uno_env.train"}  # fmt: skip
#: each installed package's layer: a module imports only from its own layer or below
LAYERS = {"uno_env.agents": 1, "uno_env.arena": 2, "uno_env.play": 2, "uno_env.train": 3}
#: the rooms of `uno_env`, bottom first: a module imports only from its own room or below (docs/architecture.md)
CORE = (
    ("the contract tables and plain checks", ("cards", "faces", "actions", "rules", "validate", "rewards",
                                              "extras", "deprecated")),
    ("the compiled engine", ("engine",)),
    ("what a state means to an agent, a person, a file", ("observation", "render", "records", "picture")),
    ("the Python face of the engine", ("game",)),
    ("built on the game", ("seats", "replay", "text", "openspiel", "vector_cuda")),
    ("the faces", ("aec", "vector", "wrappers", "uno_v0", "testing", "__init__")),
    ("the commands' vocabulary, for the rooms above", ("cli",)),
)  # fmt: skip
CORE_ROOM = {("uno_env" if name == "__init__" else f"uno_env.{name}"): room
             for room, (_, names) in enumerate(CORE) for name in names}  # fmt: skip


def _modules() -> dict[str, Path]:
    modules = {}
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).glob("*.py")):
            modules[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return modules


MODULES = _modules()


def _table(name: str) -> dict:
    """A literal table of uno_env/deprecated.py, read from its source."""
    tree = ast.parse((ROOT / "uno_env" / "deprecated.py").read_text())
    return next(ast.literal_eval(node.value) for node in tree.body
                if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == name)  # fmt: skip


#: the old paths of moved modules (an alias module each) and moved names (its old module's __getattr__)
MOVED_MODULES = _table("MOVED_MODULES")
MOVED_NAMES = _table("MOVED_NAMES")
#: the imports that point up, allowed because they are listed there: alias module -> new module, and old module ->
#: the new module of a moved name (imported when the name is asked for)
DEPRECATED = {(old, new) for old, new in MOVED_MODULES.items() if not new.endswith(".py")} | {
    (old, new) for (old, _), new in MOVED_NAMES.items()}  # fmt: skip


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


GRAPH = {module: _imports(module, path) | {new for old, new in DEPRECATED if old == module}
         for module, path in MODULES.items()}  # fmt: skip


def _core_violations(module: str, imports: set[str], rooms: dict[str, int] = CORE_ROOM) -> list[str]:
    """What is wrong with `module` of `uno_env` importing `imports`: it has no room, or one import is from above."""
    if module not in rooms:
        return [f"{module} has no room in CORE: put it in the lowest room whose modules it may import"]
    return [f"{module} (room {rooms[module]}, {CORE[rooms[module]][0]}) imports {name} from above"
            for name in sorted(imports) if name in rooms and rooms[name] > rooms[module]
            and (module, name) not in DEPRECATED]  # fmt: skip


def _command_violations(scripts: dict[str, str]) -> list[str]:
    """Console scripts whose `main` lives in `uno_env` itself: a command belongs to the room above that runs it."""
    return [f"{script} runs {target}: a command lives in arena/, play/ or train/, not in uno_env"
            for script, target in sorted(scripts.items()) if _layer(target.split(":")[0]) < 2]  # fmt: skip


def _scripts() -> dict[str, str]:
    """pyproject.toml's [project.scripts]: command -> "module:function"."""
    table = re.search(r"^\[project\.scripts\]\n(.*?)(?=^\[|\Z)", (ROOT / "pyproject.toml").read_text(), re.M | re.S)
    return dict(re.findall(r'^([\w-]+)\s*=\s*"([^"]+)"', table.group(1), re.M))


def test_the_three_folders_are_read():
    assert {"uno_env.engine", "uno_env.agents.registry", "uno_env.arena.tournament", "uno_env.play.web",
            "uno_env.train.native_ppo"} <= set(MODULES)  # fmt: skip


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_downward(module):
    for name in GRAPH[module]:
        bare = name.split(".")[0]
        assert bare == "uno_env" or bare not in PACKAGES, f"{module} imports the bare name {name!r}"
        if name.startswith("uno_env") and (module, name) not in DEPRECATED:
            assert _layer(name) <= _layer(module), f"{module} (layer {_layer(module)}) imports {name} from above"
            same_layer = _layer(name) == _layer(module) and _package(name) != _package(module)
            assert not same_layer, f"{module} imports {name}: rooms of one layer do not import each other"


CORE_MODULES = sorted(m for m in MODULES if _package(m) == "uno_env" and m not in MOVED_MODULES)


def test_every_core_module_has_one_room():
    listed = [name for _, names in CORE for name in names]
    assert len(listed) == len(set(listed)), "a module is in two rooms of CORE"
    missing, stale = set(CORE_MODULES) - set(CORE_ROOM), set(CORE_ROOM) - set(CORE_MODULES)
    assert not missing, f"modules of uno_env without a room in CORE: {sorted(missing)}"
    assert not stale, f"CORE lists modules that uno_env does not have: {sorted(stale)}"


@pytest.mark.parametrize("module", CORE_MODULES)
def test_the_core_imports_downward(module):
    assert not _core_violations(module, GRAPH[module])


def test_no_command_lives_in_the_core():
    assert not _command_violations(_scripts())
    assert all(_layer(name) >= 2 for name in MODULES if "uno_env.cli" in GRAPH[name] and name != "uno_env.cli")


def test_old_paths_are_only_aliases():
    """Each old module path of uno_env/deprecated.py is a module that does nothing but answer for its new one, and
    every module that answers for another, or has a moved name, is listed there."""
    for module, path in MODULES.items():
        body = ast.parse(path.read_text()).body
        source = path.read_text()
        if module in MOVED_MODULES:
            assert len(body) == 3 and ast.get_docstring(ast.Module(body, [])), module
            assert ast.unparse(body[1]) == "from uno_env.deprecated import alias_module", module
            assert ast.unparse(body[2]) == "alias_module(__spec__.name, run=__name__ == '__main__')", module
        else:
            assert "alias_module" not in source or module == "uno_env.deprecated", module
        if "moved_name" in source and module != "uno_env.deprecated":
            assert any(old == module for old, _ in MOVED_NAMES), f"{module} answers for moved names it does not list"
    assert all(old in MODULES for old in MOVED_MODULES), "an alias module is missing"


def test_the_checker_sees_an_upward_import_inside_the_core():
    assert _core_violations("uno_env.engine", {"uno_env.cards", "uno_env.game"}) == [
        "uno_env.engine (room 1, the compiled engine) imports uno_env.game from above"
    ]
    assert not _core_violations("uno_env.game", {"uno_env.engine", "uno_env.records"})
    assert not _core_violations("uno_env.actions", {"uno_env.cards", "uno_env.seats"})  # RandomPlay's old home
    assert _core_violations("uno_env.cards", {"uno_env.seats"})  # listed for actions only


def test_the_checker_sees_a_command_in_the_core():
    """uno-replay's command lived in uno_env (uno_env/replay_cli.py): it had no room, imported the commands'
    vocabulary from a lower room, and was a console script of the core."""
    old_imports = {"uno_env.cli", "uno_env.records", "uno_env.replay"}
    assert "has no room" in _core_violations("uno_env.replay_cli", old_imports)[0]
    given_a_room = {**CORE_ROOM, "uno_env.replay_cli": CORE_ROOM["uno_env.replay"]}  # say, the room of replays
    assert _core_violations("uno_env.replay_cli", old_imports, given_a_room) == [
        "uno_env.replay_cli (room 4, built on the game) imports uno_env.cli from above"
    ]
    assert _command_violations({"uno-replay": "uno_env.replay_cli:main", "uno-play": "uno_env.play.terminal:main"})
    assert not _command_violations({"uno-replay": "uno_env.play.replay_cli:main"})


def test_no_import_cycles():
    """A deprecated path's import is not an edge: an alias module is imported by nothing, and a moved name's module
    only when the name is asked for."""
    edges = {
        m: {n for n in names if n in MODULES and n != m and (m, n) not in DEPRECATED} for m, names in GRAPH.items()
    }
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
