"""The notebooks' figures and tables (`uno_env.arena.plots`): markdown tables that say what they hold, and figures
whose titles name the variant, players, games and seed and whose panels draw the numbers they are given."""

from __future__ import annotations

import numpy as np
import pytest

from uno_env.arena.plots import (
    forehead_guesses_figure,
    head_to_head_table,
    markdown_table,
    percent,
    shipped_policies_figure,
    summary_table,
    variant_comparison_figure,
)
from uno_env.arena.ratings import COLUMNS, GameResult, head_to_head, summarize


def test_markdown_table_escapes_cells_and_aligns_columns():
    text = markdown_table(["agent", "win rate"], [["a|b", "55.0%"], ["c\nd", 0.125]])
    assert text.splitlines() == [
        "| agent | win rate |",
        "| :--- | ---: |",
        "| a\\|b | 55.0% |",
        "| c d | 0.125 |",
    ]
    with pytest.raises(ValueError, match="row 0 has 1 cells for 2 columns"):
        markdown_table(["a", "b"], [["x"]])
    with pytest.raises(ValueError, match="align must be one letter"):
        markdown_table(["a", "b"], [], align="lx")
    assert percent(0.55) == "55.0%" and percent(0.55, 0.543, 0.557) == "55.0% [54.3%, 55.7%]"


def games() -> list[GameResult]:
    rng = np.random.default_rng(0)
    return [GameResult(seed, ("a", "b") if seed % 2 else ("b", "a"), (int(rng.integers(2)),), (5, 0), 30)
            for seed in range(40)]  # fmt: skip


def test_tournament_tables_hold_the_summaries_and_the_pairs():
    results = games()
    summaries = summarize(results, bootstrap=10)
    table = summary_table(summaries).splitlines()
    assert table[0] == "| " + " | ".join(COLUMNS) + " |" and len(table) == 2 + len(summaries)
    assert table[2].startswith(f"| {summaries[0].name} | {summaries[0].games} |")
    (pair,) = head_to_head(results, ["a", "b"])
    rows = head_to_head_table([pair]).splitlines()
    assert rows[2] == f"| a | b | 40 | {percent(pair.win_rate, pair.low, pair.high)} | 50.0% |"


def test_the_shipped_policies_figure_names_games_and_seed():
    rows = [("classic, 2p", "counter", 0.56, 0.54, 0.58, 0.5), ("classic, 2p", "greedy", 0.6, 0.58, 0.62, 0.5),
            ("swap, 4p", "counter", 0.3, 0.28, 0.32, 0.25), ("swap, 4p", "greedy", 0.33, 0.31, 0.35, 0.25)]  # fmt: skip
    (ax,) = shipped_policies_figure(rows, games=4000, seed=1).axes
    assert ax.get_title() == "Shipped policies, each variant and player count: 4,000 games a point, seed 1"
    assert [label.get_text() for label in ax.get_xticklabels()] == ["classic, 2p", "swap, 4p"]
    drawn = sorted(float(y) for line in ax.get_lines() for y in line.get_ydata() if line.get_marker() == "o")
    assert drawn == sorted(row[2] for row in rows)


def test_the_variant_figures_draw_their_numbers_under_the_title_given():
    rng = np.random.default_rng(1)
    results = {label: {"length": rng.integers(30, 80, 50), "points": rng.integers(50, 150, 50).astype(float),
                       "random length": length}
               for label, length in (("classic", 900.0), ("emoji", 500.0))}  # fmt: skip
    figure = variant_comparison_figure(results, ["classic", "emoji"], title="UNO, 4 players, 50 games, seed 0")
    assert figure._suptitle.get_text() == "UNO, 4 players, 50 games, seed 0"
    assert [bar.get_height() for bar in figure.axes[2].patches] == [900.0, 500.0]

    guesses = 400
    attempt = rng.integers(1, 4, guesses)
    right = {name: rng.random(guesses) < p for name, p in (("counter", 0.45), ("greedy", 0.4), ("random", 0.4))}
    kinds = list(rng.choice(["red", "blue", "green", "yellow", "wild"], guesses))
    deck = {"red": 25, "blue": 25, "green": 25, "yellow": 25, "wild": 12}
    figure = forehead_guesses_figure(right, attempt, rng.integers(0, 60, guesses), kinds, deck,
                                     title="UNO unocorns, 4 players, 8 games, seed 0")  # fmt: skip
    assert figure._suptitle.get_text() == "UNO unocorns, 4 players, 8 games, seed 0"
    shares = [bar.get_height() for bar in figure.axes[0].patches][:5]
    assert shares == pytest.approx([25 / 112] * 4 + [12 / 112])
    overall = [bar.get_height() for bar in figure.axes[1].patches][::4]  # each guesser's first bar: every guess
    assert overall == pytest.approx([right[name].mean() for name in right])
    assert [text.get_text() for text in figure.axes[2].get_legend().get_texts()] == ["random", "counter", "greedy"]
