"""The notebooks' figures and tables: matplotlib Figures (made without pyplot, so no backend is switched and inline
plots survive) whose titles name the variant, the players, the games and the seed, and results as markdown tables.

    from IPython.display import Markdown, display
    from uno_env.arena.plots import markdown_table, shipped_policies_figure

    display(Markdown(markdown_table(["agent", "win rate"], [["counter", "55.0%"]])))
    display(shipped_policies_figure(rows, games=4000, seed=1))

The tournament plot itself is `uno_env.arena.ratings.plot` (`uno-arena --out`); `plot_title` there words a
tournament's settings; a trainer's learning curve is `uno_env.train.league.learning_curve_figure`. The figures here
take plain numbers (lists, arrays, dicts), never a game or an agent.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .ratings import wilson_interval


def _figure(width: float, height: float, columns: int = 1):
    from matplotlib.figure import Figure  # no pyplot: no global state

    figure = Figure(figsize=(width, height), layout="constrained")
    axes = figure.subplots(1, columns, squeeze=False)[0]
    return figure, axes


# ------------------------------------------------------------------------------------------------ tables


def _cell(value: Any) -> str:
    text = f"{value:,.4g}" if isinstance(value, float) and not float(value).is_integer() else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], align: str | None = None) -> str:
    """A markdown table (GitHub's pipes): `columns` the header, `rows` the cells (str() of each, `|` escaped);
    `align` one letter a column, l(eft) or r(ight) (default: the first column left, the rest right)."""
    align = align or "l" + "r" * (len(columns) - 1)
    if len(align) != len(columns) or set(align) - {"l", "r"}:
        raise ValueError(f"align must be one letter l or r per column ({len(columns)}), got {align!r}")
    for number, row in enumerate(rows):
        if len(row) != len(columns):
            raise ValueError(f"row {number} has {len(row)} cells for {len(columns)} columns")
    rule = ["---:" if a == "r" else ":---" for a in align]
    lines = [columns, rule, *[[_cell(value) for value in row] for row in rows]]
    return "\n".join("| " + " | ".join(str(cell) for cell in line) + " |" for line in lines)


def percent(rate: float, low: float | None = None, high: float | None = None) -> str:
    """"55.0%", or with an interval "55.0% [54.3%, 55.7%]"."""
    if low is None or high is None:
        return f"{rate:.1%}"
    return f"{rate:.1%} [{low:.1%}, {high:.1%}]"


# ------------------------------------------------------------------------------------------------ policies


def shipped_policies_figure(rows: Sequence[Sequence[Any]], *, games: int, seed: int):
    """Each shipped policy's win rate against each baseline with its 95% interval and its fair share (dashed):
    `rows` of (label such as "classic, 2p", baseline, win rate, low, high, fair share)."""
    labels = list(dict.fromkeys(row[0] for row in rows))
    baselines = list(dict.fromkeys(row[1] for row in rows))
    figure, (ax,) = _figure(max(6.0, 1.4 * len(labels)), 4.2)
    width = 0.24
    for k, baseline in enumerate(baselines):
        mine = [row for row in rows if row[1] == baseline]
        x = np.array([labels.index(row[0]) for row in mine]) + (k - (len(baselines) - 1) / 2) * width
        rate = np.array([row[2] for row in mine])
        err = np.array([[row[2] - row[3] for row in mine], [row[4] - row[2] for row in mine]])
        ax.errorbar(x, rate, yerr=err, fmt="o", capsize=4, label=f"vs {baseline}")
    fair = {row[0]: row[5] for row in rows}
    ax.hlines([fair[label] for label in labels], np.arange(len(labels)) - 0.3, np.arange(len(labels)) + 0.3,
              colors="k", linestyles="--", lw=1, label="fair share")  # fmt: skip
    ax.set_xticks(np.arange(len(labels)), labels, rotation=20, ha="right")
    ax.set(ylabel="win rate of the policy (95% Wilson)",
           title=f"Shipped policies, each variant and player count: {games:,} games a point, seed {seed}")  # fmt: skip
    ax.grid(axis="y", alpha=0.3)
    ax.legend()
    return figure


# ------------------------------------------------------------------------------------------------ variants


def _mean_and_half(values: np.ndarray) -> tuple[float, float]:
    """The mean and its normal 95% half-width (NaN for no values)."""
    values = np.asarray(values, float)
    if not len(values):
        return math.nan, math.nan
    return float(values.mean()), float(1.96 * values.std() / np.sqrt(len(values)))


def variant_comparison_figure(results: Mapping[str, Mapping[str, Any]], labels: Sequence[str], *, title: str):
    """Three panels per configuration of the variants notebook: game length under greedy play (quartiles), the
    winner's points (mean, 95%), and the mean length under random play; `results[label]` holds "length",
    "points" (arrays) and "random length"."""
    figure, axes = _figure(15, 4.8, 3)
    x = np.arange(len(labels))
    axes[0].boxplot([results[k]["length"] for k in labels], positions=x, showfliers=False, widths=0.6)
    axes[0].set(ylabel="decisions per game", title="game length, greedy play (quartiles)")
    means, halves = zip(*(_mean_and_half(results[k]["points"]) for k in labels), strict=True)
    axes[1].errorbar(x, means, yerr=halves, fmt="o", capsize=3)
    axes[1].set(ylabel="points", title="winner's points, greedy play (mean, 95%)")
    axes[2].bar(x, [results[k]["random length"] for k in labels], width=0.6, color="tab:gray")
    axes[2].set(ylabel="decisions per game", title="game length, random play (mean)")
    for ax in axes:
        ax.grid(axis="y", alpha=0.3)
        ax.set_xticks(x, labels, rotation=35, ha="right")
    figure.suptitle(title)
    return figure


def forehead_guesses_figure(
    right: Mapping[str, np.ndarray],
    attempt: np.ndarray,
    seen: np.ndarray,
    kinds: Sequence[str],
    deck: Mapping[str, float],
    *,
    baseline: str = "random",
    title: str,
):
    """The forehead-card guesses of the variants notebook, three panels: what the forehead cards were (each at its
    first guess; `kinds` per guess, its colour or "wild") against the deck's shares (`deck`); the right guesses of
    each guesser (`right[name]`: one flag per guess) overall and by attempt (`attempt`: 1 for a card's first
    guess), with 95% Wilson intervals; and each guesser's gain over `baseline` on the same guesses by the cards in
    the discard pile (`seen`), in five bins of about equal counts."""
    figure, axes = _figure(15, 3.8, 3)
    labels = list(deck)
    x = np.arange(len(labels))
    first = [kind for kind, k in zip(kinds, attempt, strict=True) if k == 1]
    observed = [first.count(label) / max(len(first), 1) for label in labels]
    total = sum(deck.values()) or 1
    shares = [deck[label] / total for label in labels]
    axes[0].bar(x - 0.2, shares, 0.4, label="deck", color="tab:gray")
    axes[0].bar(x + 0.2, observed, 0.4, label="forehead cards")
    axes[0].set(xticks=x, xticklabels=labels, ylabel="share", title="What the forehead cards were",
                ylim=(0, 1.4 * max(shares + observed)))  # room for the legend above the bars
    axes[0].legend(ncol=2)

    names = list(right)
    groups = [("all", np.ones_like(attempt, bool))] + [(f"guess {k}", attempt == k) for k in (1, 2, 3)]
    width = 0.8 / len(names)
    for i, name in enumerate(names):
        rates, errs = [], [[], []]
        for _, which in groups:
            flags = right[name][which]
            rate = flags.mean() if len(flags) else np.nan
            low, high = wilson_interval(flags.sum(), len(flags)) if len(flags) else (np.nan, np.nan)
            rates.append(rate)
            errs[0].append(rate - low)
            errs[1].append(high - rate)
        axes[1].bar(np.arange(len(groups)) + (i - (len(names) - 1) / 2) * width, rates, width, yerr=errs, capsize=3,
                    label=name)  # fmt: skip
    axes[1].set(xticks=np.arange(len(groups)), xticklabels=[g for g, _ in groups], ylabel="right guesses",
                title="Right guesses (95% Wilson intervals)", ylim=(0, 1))  # fmt: skip
    axes[1].legend()

    edges = np.unique(np.quantile(seen, np.linspace(0, 1, 6)))  # five bins of about equal counts
    which_bin = np.clip(np.digitize(seen, edges[1:-1]), 0, len(edges) - 2)
    bins = [which_bin == b for b in range(len(edges) - 1)]
    centers = [seen[b].mean() for b in bins]
    for name in names:
        if name == baseline:
            continue
        gain = right[name].astype(float) - right[baseline]  # paired: the same guesses
        axes[2].errorbar(centers, [gain[b].mean() for b in bins], yerr=[1.96 * gain[b].std() / np.sqrt(b.sum())
                         for b in bins], fmt="o-", capsize=3, label=name)  # fmt: skip
    axes[2].axhline(0, color="tab:green", lw=1, label=baseline)
    axes[2].set(xlabel="cards in the discard pile (cards seen played)", ylabel=f"right guesses, minus {baseline}'s",
                title="Gain over chance, by cards played (95%)")  # fmt: skip
    axes[2].legend()
    figure.suptitle(title)
    return figure


# ------------------------------------------------------------------------------------------------ tournaments


def summary_table(summaries: Sequence[Any]) -> str:
    """A tournament's table (`ratings.format_table`'s columns, best rating first) as markdown."""
    from .ratings import COLUMNS, _cells

    return markdown_table(COLUMNS, [_cells(summary) for summary in summaries])


def head_to_head_table(pairs: Sequence[Any]) -> str:
    """`ratings.head_to_head` pairs as markdown: the first agent's win rate against the other, with its 95%
    interval by deal, the games and the fair share."""
    rows = [[p.agent, p.opponent, f"{p.games:,}", percent(p.win_rate, p.low, p.high), f"{p.fair:.1%}"] for p in pairs]
    return markdown_table(["agent", "against", "games", "win rate [95% by deal]", "fair share"], rows, align="llrrr")
