"""The docs home page and the README open with what a user needs: every command of [project.scripts] in their
command tables, every installed namespace in the home page's, the first call's compile time stated, and the API page
opening with the environment cards, whose numbers are the code's."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "docs" / "index.md"


def project_scripts() -> list[str]:
    table = re.search(r"^\[project\.scripts\]\n(.*?)(?=^\[|\Z)", (ROOT / "pyproject.toml").read_text(), re.M | re.S)
    return re.findall(r'^([\w-]+)\s*=', table.group(1), re.M)


def first_column(path: Path, header: str) -> list[str]:
    """The first cells of the markdown table whose header row starts with `| header |`."""
    text = path.read_text()
    start = text.index(f"| {header} |")
    rows = re.match(r"((?:\|[^\n]*\n)+)", text[start:]).group(1).splitlines()[2:]
    return [re.match(r"\| `([^`]+)`", row).group(1) for row in rows]


def test_every_command_is_listed():
    scripts = project_scripts()
    assert len(scripts) >= 8
    for path in (INDEX, ROOT / "README.md"):
        listed = first_column(path, "command")
        assert sorted(listed) == sorted(scripts), f"{path.name}: {sorted(set(scripts) ^ set(listed))}"


def test_every_namespace_is_listed():
    installed = ["uno_env"] + [f"uno_env.{name}" for name in re.findall(
        r"uno_env\.(\w+)", re.search(r"^# One installed namespace:.*?\n\n", (ROOT / "pyproject.toml").read_text(),
                                     re.M | re.S).group(0))]  # fmt: skip
    assert {"uno_env.agents", "uno_env.arena", "uno_env.play", "uno_env.train"} <= set(installed)
    assert sorted(first_column(INDEX, "import")) == sorted(dict.fromkeys(installed))


def test_the_first_call_compile_time_is_stated():
    for path in (INDEX, ROOT / "docs" / "api.md"):
        assert re.search(r"compiles it with numba: \d+-\d+ s the first time", path.read_text()), path.name


def load_cards():
    spec = importlib.util.spec_from_file_location("env_cards", ROOT / "scripts" / "env_cards.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_api_page_opens_with_the_environment_cards():
    import uno_env
    from uno_env.observation import LEVELS, MAX_PLAYERS, MIN_PLAYERS

    page = (ROOT / "docs" / "api.md").read_text()
    assert page.index("<!-- table:environments -->") < page.index("\n## ", page.index("## At a glance") + 1)
    cards = load_cards().cards_markdown()
    for face in ("uno_v0", "UnoSingleAgentEnv", "UnoSB3VecEnv", "UnoVectorEnv"):
        assert f"`{face}`**" in cards, face
    assert cards.count("| import | `from uno_env") == 4 and cards.count("| mask |") == 4
    assert "`Discrete(77)`" in cards
    rows = {re.match(r"\| `(\w+)`", line).group(1): line for line in cards.splitlines() if re.match(r"\| `\w+`", line)}
    assert list(rows) == list(LEVELS)
    for level in LEVELS:  # each length is the one the env's observation space has
        lengths = [int(x.replace(",", "")) for x in rows[level].split("|")[2:-1]]
        assert len(lengths) == MAX_PLAYERS - MIN_PLAYERS + 1
        for players in (2, 4):
            env = uno_env.env(num_players=players, observation=level)
            shape = env.observation_space("player_0")["observation"].shape
            assert lengths[players - MIN_PLAYERS] == int(np.prod(shape)), (level, players)
