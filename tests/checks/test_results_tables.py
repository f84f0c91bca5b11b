"""The shipped policies' figures come from one file (benchmarks/results/shipped_policies.json): every shipped policy
has its row there, the README and docs/results.md hold exactly what scripts/results_tables.py makes from it, a
changed file changes the tables at the next docs build, and no page speaks of how the project was made."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_script(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


tables = load_script("results_tables", ROOT / "scripts" / "results_tables.py")


def changed_copy(tmp_path: Path, change) -> Path:
    """A copy of the results file in tmp_path, with `change(data)` applied."""
    data = json.loads(tables.RESULTS.read_text())
    change(data)
    path = tmp_path / "shipped_policies.json"
    path.write_text(json.dumps(data))
    return path


def classic_2p(data: dict) -> dict:
    return next(row for row in data["policies"] if (row["variant"], row["players"]) == ("classic", 2))


def test_every_shipped_policy_has_its_figures():
    """A policy shipped (or shipped again, with another digest) without its row of figures fails here."""
    from uno_env.agents.shipped import shipped_files

    data = tables.load()
    rows = {(row["variant"], row["players"]): row for row in data["policies"]}
    assert len(rows) == len(data["policies"]), "two rows of figures for one game"
    shipped = shipped_files("policy")
    unmatched = set(rows) ^ set(shipped)
    assert not unmatched, f"figures without a policy, or policies without figures: {unmatched}"
    stale = [f"{v}-{p}p" for (v, p), f in shipped.items() if rows[v, p]["sha256"] != f.pinned_sha256]
    assert not stale, f"the figures of {stale} are of another file: measure the shipped policy and record it"


def test_every_best_network_has_its_figures_and_its_training():
    """A network shipped for best:VARIANT has its row (the shipped file's digest), and its training columns are what
    the file says; a row without a file fails too."""
    torch = pytest.importorskip("torch")
    from uno_env.agents.shipped import shipped_files

    rows = {(row["variant"], row["players"]): row for row in tables.load()["best"]}
    shipped = shipped_files("best")
    assert set(rows) == set(shipped), "figures without a best network, or a best network without figures"
    for game, row in rows.items():
        assert row["sha256"] == shipped[game].pinned_sha256, game
        saved = torch.load(shipped[game].path, weights_only=True, map_location="cpu")
        assert (row["hidden"], row["decisions"]) == (list(saved["hidden"]), saved["trained"]["steps"]), game
        assert row["minutes"] == round(saved["trained"]["minutes"]) and row["paired"]["difference"][1] > 0, game


def test_the_training_columns_are_the_policy_files():
    """Width and decisions in the table are what each policy file says it was trained with."""
    torch = pytest.importorskip("torch")
    from uno_env.agents.shipped import shipped_files

    shipped = shipped_files("policy")
    for row in tables.load()["policies"]:
        saved = torch.load(shipped[row["variant"], row["players"]].path, weights_only=True, map_location="cpu")
        assert (row["hidden"], row["decisions"]) == (list(saved["hidden"]), saved["trained"]["steps"]), row["variant"]
        assert row["minutes"] == round(saved["trained"]["minutes"])


def test_the_committed_tables_are_what_the_file_makes():
    assert tables.stale(tables.load()) == [], "run python scripts/results_tables.py"
    readme = (ROOT / "README.md").read_text()
    data = tables.load()
    two, four = (tables.figure(r["against"]["counter"]) for p in (2, 4) for r in tables.rows(data, p)
                 if r["variant"] == "classic")  # fmt: skip
    assert f"| classic | {two} | {four} |" in readme  # the shipped policies' figures, from their file
    for path in tables.DOCUMENTS:
        assert re.search(r"^<!-- results:[a-z-]+ -->$", path.read_text(), re.M), f"{path.name} has no results block"


def test_a_changed_results_file_changes_the_tables(tmp_path, capsys):
    """Change a copy of the file: the README block, the docs build's page and the --check verdict follow."""
    path = changed_copy(tmp_path, lambda data: classic_2p(data)["against"].update(counter=[61.2, 60.5, 61.9]))
    data = tables.load(path)
    readme = (ROOT / "README.md").read_text()
    made = tables.render(readme, data)
    assert made != readme and "| classic | 61.2% [60.5, 61.9] | 25.5% [24.9, 26.2] |" in made
    assert tables.stale(data) == [ROOT / "README.md", ROOT / "docs" / "results.md"]  # not the leaderboard's page
    hooks = load_script("uno_env_docs_hooks_results", ROOT / "docs" / "hooks.py")
    page = hooks.fill_results((ROOT / "docs" / "results.md").read_text(), path)
    assert "| classic (64x64, the fast recipe) | 2 | 30 | 90.6M | 61.2% [60.5, 61.9] |" in page
    assert "<!-- results:" not in page and "<!-- /results -->" not in page
    assert tables.main(["--results", str(path), "--check"]) == 1
    assert "README.md: its results blocks are stale" in capsys.readouterr().out


def test_the_benchmark_page_holds_the_leaderboard_file_and_follows_it(tmp_path, monkeypatch):
    """docs/benchmark.md's leaderboard is uno-bench's leaderboard.md from its ranking on; a changed rating in that
    file changes the page's block, and the docs build's page."""
    page = (ROOT / "docs" / "benchmark.md").read_text()
    leaderboard = tables.LEADERBOARD.read_text()
    first, changed = "| 1 | ppo:{preset} | 1139 [1135, 1144] |", "| 1 | ppo:{preset} | 1150 [1140, 1160] |"
    assert first in leaderboard and first in page
    assert tables.leaderboard_block({}).count("\n### ") == leaderboard.count("\n## ") == 20  # every table, one down
    copy = tmp_path / "leaderboard.md"
    copy.write_text(leaderboard.replace(first, changed))
    monkeypatch.setattr(tables, "LEADERBOARD", copy)
    assert tables.stale(tables.load()) == [ROOT / "docs" / "benchmark.md"]
    assert changed in tables.render(page, tables.load())
    hooks = load_script("uno_env_docs_hooks_leaderboard", ROOT / "docs" / "hooks.py")
    monkeypatch.setattr(hooks.results_module(), "LEADERBOARD", copy)
    built = hooks.fill_results(page)
    assert changed in built and first not in built and "<!-- results:" not in built
    copy.write_text("# uno-bench-v1 leaderboard\n\nno table\n")
    with pytest.raises(tables.ResultsError, match="no ranking table"):
        tables.leaderboard_block({})


def test_the_sentences_follow_the_figures(tmp_path):
    """The verdicts in prose are made from the figures: a policy whose interval falls to its fair share is named
    among those that do not clear it."""
    assert "every 4-player policy is above its fair share" in tables.long_run_sentence(tables.load())

    def swap_below(data):
        row = next(r for r in data["policies"] if (r["variant"], r["players"]) == ("swap", 4))
        row["long_run"]["against"]["counter"] = [24.9, 24.7, 25.1]
        row["against"]["counter"] = [24.0, 23.4, 24.6]

    data = tables.load(changed_copy(tmp_path, swap_below))
    sentence = tables.long_run_sentence(data)
    assert "every" not in sentence
    assert sentence.split(":")[0].endswith("classic, unocorns, monster_high, emoji are above its fair share")
    assert "swap (24.0% [23.4%, 24.6%])" in tables.four_player_sentence(data)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda data: data.update(format="other"), "format must be 'uno-env-shipped-results-1'"),
        (lambda data: classic_2p(data)["against"].pop("greedy"), r"policies\[0\]\.against\.greedy must be"),
        (lambda data: classic_2p(data)["against"].update(counter=[58.4, 59.0, 58.0]), "low <= rate <= high"),
        (lambda data: classic_2p(data).update(players="2"), r"policies\[0\]\.players must be a int"),
    ],
)
def test_a_broken_results_file_is_refused_in_one_line(tmp_path, change, message):
    path = changed_copy(tmp_path, change)
    with pytest.raises(tables.ResultsError, match=message) as error:
        tables.load(path)
    assert "\n" not in str(error.value)


# "this round" on its own is the game's (a hand); these speak of the project's work
PROCESS = re.compile(
    r"\b(replaced|shipped|added|measured|trained) (in|until) this round\b|\bhelpers?\s+edited\b|\bthis session\b"
    r"|\bthe session's\b",
    re.I,
)


@pytest.mark.parametrize("path", [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))], ids=lambda p: p.name)
def test_pages_speak_of_the_project_not_of_how_it_was_made(path):
    """In UNO a round is a hand: "this round" on a page means the game's, never a step of the project's work."""
    found = [m.group(0) for m in PROCESS.finditer(path.read_text())]
    assert not found, f"{path.name}: {found}"
