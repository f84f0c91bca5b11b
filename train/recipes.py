"""Named recipes: settings of `uno-train` that go together, kept as data so that every command, script and page
that trains one names it rather than repeating its flags.

    uno-train --recipe main --variant classic --players 2 --minutes 5 --out runs/quickstart

A recipe replaces the defaults of the settings it names; the flags given with it override it, wherever they
stand on the command line. The recipes hold training settings only, never the game (variant, players, options)
or the budget, so one recipe serves every game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Recipe:
    """`Config` field values over the defaults, and what the recipe is for."""

    settings: Mapping[str, Any]
    about: str


RECIPES: dict[str, Recipe] = {
    "main": Recipe(
        {"imitate": "counter", "overlap": True, "hidden": (64, 64), "num_envs": 512, "minibatch_size": 2048},
        "the fast recipe: kickstarted from `counter`, a 64x64 network on 512 games, the next rollout collected "
        "while the update runs. The main job (`scripts/run.sh`), `benchmarks/time_to_skill.py`'s default, and the "
        "shipped classic 2-player policy (30 minutes)",
    ),
    "plain": Recipe(
        {"imitate": "counter"},
        "kickstarted from `counter` with the default network and batch (128x128, 2,048 games): the earlier main "
        "recipe, and the shipped unocorns, emoji and swap 2-player policies",
    ),
    "wide": Recipe(
        {"imitate": "counter", "hidden": (256, 256)},
        "kickstarted from `counter`, a 256x256 network: the shipped 4-player policies, and monster_high's "
        "2-player one (with `--threads 2`)",
    ),
}


def shown(value: Any) -> str:
    """A setting's value as the command line spells it: a tuple's items one after another."""
    return " ".join(map(str, value)) if isinstance(value, tuple) else str(value)


def flag(name: str, value: Any) -> str:
    """A setting as uno-train's flag: `--foo-bar VALUE` (a tuple's items after it), a bool as --x or --no-x."""
    name = name.replace("_", "-")
    return (f"--{name}" if value else f"--no-{name}") if isinstance(value, bool) else f"--{name} {shown(value)}"


def recipe_flags(name: str) -> list[str]:
    """The command-line words of a recipe's settings (`--imitate counter --overlap ...`)."""
    return [word for key, value in RECIPES[name].settings.items() for word in flag(key, value).split()]


def expand_recipes(argv: Sequence[str]) -> list[str]:
    """`argv` with each `--recipe NAME` of a known recipe taken out and its flags put first, so that every flag
    given overrides them (argparse keeps a flag's last value). An unknown name stays for the parser to refuse."""
    argv, recipes, rest, i = list(argv), [], [], 0
    while i < len(argv):
        word = argv[i]
        name = argv[i + 1] if word == "--recipe" and i + 1 < len(argv) else word.partition("=")[2]
        if (word == "--recipe" or word.startswith("--recipe=")) and name in RECIPES:
            recipes += recipe_flags(name)
            i += 2 if word == "--recipe" else 1
            continue
        rest.append(word)
        i += 1
    return [*recipes, *rest]


def recipes_markdown() -> str:
    """The recipes as a markdown table, for the docs (`<!-- table:recipes -->`)."""
    rows = [f"| `{name}` | `{' '.join(recipe_flags(name))}` | {recipe.about} |" for name, recipe in RECIPES.items()]
    return "\n".join(["| recipe | its flags | what it is for |", "|---|---|---|", *rows])
