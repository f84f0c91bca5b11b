"""uno-train's named recipes (`uno_env.train.recipes`): settings as data, applied by `--recipe NAME` with the flags
given overriding them, and named (never repeated) by the main job and the time-to-skill benchmark."""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
from pathlib import Path

import pytest

from uno_env.train.config import Config, checked_settings, parse_args
from uno_env.train.recipes import RECIPES, expand_recipes, recipe_flags, recipes_markdown

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", RECIPES)
def test_a_recipe_is_settings_the_command_line_accepts(name):
    settings = dict(RECIPES[name].settings)
    assert checked_settings(settings, f"recipe {name}") == settings  # field names, types, ranges and choices
    assert parse_args(["--recipe", name]) == Config(**settings)
    assert parse_args(recipe_flags(name)) == Config(**settings)  # its flags say the same


def test_the_flags_given_with_a_recipe_override_it_wherever_they_stand():
    after = parse_args(["--recipe", "main", "--hidden", "32", "--no-overlap"])
    before = parse_args(["--hidden", "32", "--no-overlap", "--recipe=main"])
    assert after == before == dataclasses.replace(Config(**RECIPES["main"].settings), hidden=(32,), overlap=False)
    assert expand_recipes(["--seed", "3", "--recipe", "plain"]) == ["--imitate", "counter", "--seed", "3"]


def test_an_unknown_recipe_is_one_line(capsys):
    with pytest.raises(SystemExit) as stop:
        parse_args(["--recipe", "fastest"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and "invalid choice: 'fastest'" in err


def test_the_docs_table_and_the_scripts_name_the_recipes():
    table = recipes_markdown().splitlines()
    assert len(table) == 2 + len(RECIPES) and table[2].startswith("| `main` | `--imitate counter --overlap")
    assert "<!-- table:recipes -->" in (ROOT / "docs" / "training.md").read_text()  # the docs build fills it in
    assert "uno-train --recipe main " in (ROOT / "scripts" / "run.sh").read_text()
    spec = importlib.util.spec_from_file_location("time_to_skill", ROOT / "benchmarks" / "time_to_skill.py")
    benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmark)
    args = argparse.Namespace(trainer="native", variant="classic", players=2, minutes=5.0, snapshot_seconds=20.0,
                              device="cpu", recipe="main", trainer_args=["--seed", "1"])  # fmt: skip
    command = benchmark.train_command(args, 0, Path("out"))
    assert command[command.index("--recipe") + 1] == "main" and command[-2:] == ["--seed", "1"]
