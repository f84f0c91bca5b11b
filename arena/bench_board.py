"""uno-bench's leaderboard: Bradley-Terry ratings of the candidates and the suite's opponents per episode kind, with
bootstrap intervals that resample each cell's deals, and every cell's win rate, as Markdown and HTML in which every
name shows as text (`visible`, `markdown_text`).
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from uno_env.records import write_atomic
from uno_env.validate import EPISODES

from .bench_results import check_results, results_suite
from .bench_suites import MAX_AGENTS, MAX_BOOTSTRAP, Suite, is_int, load_suite, short_repr, suite_names, visible
from .ratings import _to_rating, bradley_terry

# ------------------------------------------------------------------------------------------------ leaderboard


@dataclass
class Leaderboard:
    """Ratings and the cells' results of several candidates on one suite (`leaderboard`)."""

    suite: Suite
    agents: list[str]  # the candidates, best first by their hand rating
    ratings: dict[str, dict[str, tuple[float, float, float]]]  # episode -> name -> (rating, low, high)
    cells: dict[str, dict[str, dict]]  # candidate -> cell key -> cell report
    runs: dict[str, dict]  # candidate -> its document's settings (scale, seconds, version)

    def blocks(self, shown=str) -> list[tuple]:
        """The page as blocks: ("h1"|"h2"|"p", text) and ("table", header, rows), for `markdown` and `html`; every
        text that came from a file (names, the suite's description and tables) passes through `shown`."""
        suite = self.suite
        out: list[tuple] = [("h1", f"{shown(suite.name)} leaderboard")]
        out.append(("p", f"{shown(suite.description)} Suite sha256 {suite.sha256[:16]}…; ratings are Bradley-Terry "
                         "(mean 1000, +120 is 2:1 odds) with 95% intervals by deal; win rates are the candidate's "
                         "share of the games, ties shared, with 95% intervals by deal."))  # fmt: skip
        header = ["rank", "agent", "rating, hands [95%]", "rating, matches [95%]", "hands vs counter / fair",
                  "games", "scale", "minutes"]  # fmt: skip
        out.append(("chart", self.chart_entries(shown)))
        rows, kinds, ranks = [], [], {name: rank for rank, name in enumerate(self.agents, 1)}
        for name in self.order():
            hands, matches = (_rating_text(self.ratings.get(e, {}).get(name)) for e in ("round", "match"))
            if name not in ranks:  # a reference opponent: rated from the candidates' games against it, not run
                rows.append([UNRANKED, shown(name), hands, matches, "–", "–", "–", "–"])
                kinds.append("reference")
                continue
            run = self.runs[name]
            games = sum(c.get("games", 0) for c in self.cells[name].values())
            rows.append([str(ranks[name]), shown(name), hands, matches, self._against(name, "counter"),
                         f"{games:,}", f"{run['games_scale']:g}", f"{run['seconds'] / 60:.1f}"])  # fmt: skip
            kinds.append("")
        out.append(("table", header, rows, kinds))
        out.append(("p", "Hands vs counter / fair: the candidate's win rate against counter in the other seats over "
                         "its fair share, averaged over the tables it played (1.00 is as good as counter)."))
        if "reference" in kinds:
            out.append(("p", f"{UNRANKED.capitalize()}: a reference opponent of the suite that was not run as a "
                             "candidate; its ratings come from the candidates' games against it, and it takes no "
                             "rank."))  # fmt: skip
        for table in suite.tables:
            for episode, title in (("round", "hands"), ("match", "500-point matches")):
                opponents = [o.name for o in suite.opponents if (not o.tables or table.id in o.tables)
                             and dict(o.deals).get(episode)]  # fmt: skip
                keys = [f"{table.id}/{o}/{episode}" for o in opponents]
                if not any(k in self.cells[a] for a in self.agents for k in keys):
                    continue
                options = ", ".join(f"{k}={v}" for k, v in table.options)
                out.append(("h2", shown(f"{table.id}: {table.variant}{f' ({options})' if options else ''}, "
                                        f"{table.players} players, {title}")))  # fmt: skip
                others = "the other seat" if table.players == 2 else f"the other {table.players - 1} seats"
                out.append(("p", f"The candidate's win rate [95% by deal] against the opponent in {others}; fair "
                                 f"share {1 / table.players:.1%}."))  # fmt: skip
                rows = [[shown(name)] + [_cell_text(self.cells[name].get(k)) for k in keys] for name in self.agents]
                out.append(("table", ["agent"] + [f"vs {shown(o)}" for o in opponents], rows))
        return out

    def order(self) -> list[str]:
        """Every rated agent, candidates and reference opponents, best hand rating first."""
        references = [n for e in self.ratings.values() for n in e if n not in self.agents]
        names = self.agents + list(dict.fromkeys(references))
        hands = self.ratings.get("round", {})
        return sorted(names, key=lambda n: -hands[n][0] if n in hands else math.inf)

    def chart_entries(self, shown=str) -> list[tuple[str, float, float, float, bool]]:
        """(name, hand rating, low, high, ranked) of every agent with a hand rating, best first: the chart."""
        hands = self.ratings.get("round", {})
        return [(shown(n), *hands[n], n in self.agents) for n in self.order() if n in hands]

    def _against(self, name: str, opponent: str) -> str:
        """The mean over tables of `name`'s hand win rate against `opponent` over its fair share."""
        ratios = [c["win_rate"] / c["fair_share"] for c in self.cells[name].values()
                  if c["opponent"] == opponent and c["episode"] == "round" and c["status"] == "played"]  # fmt: skip
        return f"{np.mean(ratios):.2f}" if ratios else "–"

    def markdown(self) -> str:
        """The page in Markdown; names and the suite's texts escaped (`markdown_text`), so that they show as text
        in a Markdown renderer (mkdocs, GitHub) and in a terminal."""
        lines = []
        for block in self.blocks(markdown_text):
            if block[0] == "chart":
                continue  # the HTML page draws it; the table holds the same ratings
            if block[0] == "table":
                header, rows = block[1], block[2]
                lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
                lines += ["| " + " | ".join(row) + " |" for row in rows]
                lines.append("")
            else:
                lines += [("# " if block[0] == "h1" else "## " if block[0] == "h2" else "") + block[1], ""]
        return "\n".join(lines)

    def html(self) -> str:
        """The page as one styled HTML file: the ratings as a chart with their intervals, the ranking, and each
        table's cells in a section that opens on a click. Every text is escaped, and control characters in names
        shown (`visible`); no script."""
        body, in_section = [], False
        for block in self.blocks(visible):
            kind = block[0]
            if kind == "h2":
                body.append(("</details>" if in_section else "") + f"<details><summary>{html.escape(block[1])}"
                            "</summary>")  # fmt: skip
                in_section = True
            elif kind == "chart":
                body.append(rating_chart(block[1]))
            elif kind == "table":
                body.append(_html_table(*block[1:]))
            else:
                body.append(f"<{kind}>{html.escape(block[1])}</{kind}>")
        if in_section:
            body.append("</details>")
        title = html.escape(f"{visible(self.suite.name)} leaderboard")
        return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
                f"content=\"width=device-width, initial-scale=1\"><title>{title}</title><style>{PAGE_STYLE}</style>"
                "</head><body>\n" + "\n".join(body) + "\n</body></html>\n")  # fmt: skip


#: the rank column of a reference opponent that was not run as a candidate
UNRANKED = "unranked"

PAGE_STYLE = (
    "body{font:15px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1f2328;background:#f6f8fa;margin:0;"
    "padding:2em 1em}body>*{max-width:960px;margin-left:auto;margin-right:auto}h1{font-size:1.7em;margin-top:0}"
    "p{color:#454c55}table{border-collapse:collapse;margin:1em auto;width:100%;background:#fff;"
    "box-shadow:0 1px 3px #0002;border-radius:6px;overflow:hidden}th{background:#24292f;color:#fff;"
    "font-weight:600}td,th{padding:.45em .8em;text-align:right;white-space:nowrap}tbody tr:nth-child(even)"
    "{background:#f3f5f7}td:nth-child(-n+2),th:nth-child(-n+2){text-align:left}tr.reference{color:#6e7781;"
    "font-style:italic}tr.reference td:first-child{font-size:.85em;letter-spacing:.03em}"
    "details{background:#fff;border-radius:6px;box-shadow:0 1px 3px #0002;margin:.6em auto;padding:.2em 1em}"
    "summary{cursor:pointer;font-weight:600;padding:.5em 0}details table{box-shadow:none}"
    ".chart{background:#fff;border-radius:6px;box-shadow:0 1px 3px #0002;padding:.5em;margin:1em auto}"
    ".chart svg{width:100%;height:auto}"
)  # fmt: skip


def _html_table(header: list[str], rows: list[list[str]], kinds: list[str] | None = None) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    kinds = kinds or [""] * len(rows)
    cells = "".join(
        ("<tr class=\"reference\">" if kind else "<tr>") + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
        for row, kind in zip(rows, kinds, strict=True)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{cells}</tbody></table>"


def rating_chart(entries: Sequence[tuple[str, float, float, float, bool]], width: int = 760) -> str:
    """An inline SVG of hand ratings: a dot per agent on its 95% interval, best at the top; a reference opponent
    (not ranked) drawn hollow and grey and labelled unranked. Names are escaped."""
    if not entries:
        return ""
    left, right, row, top = 230, 30, 26, 52
    low = min(e[2] for e in entries)
    high = max(e[3] for e in entries)
    step = next(s for s in (10, 25, 50, 100, 200, 250, 500, 1000) if (high - low) / s <= 8)
    low, high = math.floor(low / step) * step, math.ceil(high / step) * step
    high = high if high > low else low + step

    def x(value: float) -> float:
        return left + (value - low) / (high - low) * (width - left - right)

    height = top + row * len(entries) + 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
             'aria-label="hand ratings with 95% intervals" font-family="system-ui,sans-serif" font-size="13">',
             f'<text x="{left}" y="14" fill="#454c55">hand rating (Bradley-Terry, mean 1000) with its 95% interval'
             "</text>"]  # fmt: skip
    for tick in range(int(low), int(high) + 1, step):
        parts.append(f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{top - 8}" y2="{height - 6}" stroke="#d0d7de"/>'
                     f'<text x="{x(tick):.1f}" y="{top - 12}" text-anchor="middle" fill="#6e7781">{tick}</text>')
    for i, (name, rating, lo, hi, ranked) in enumerate(entries):
        y = top + row * i + row / 2
        colour = "#0969da" if ranked else "#8c959f"
        label = html.escape(name if ranked else f"{name} ({UNRANKED})")
        fill = colour if ranked else "#fff"
        parts.append(f'<g class="{"ranked" if ranked else "unranked"}"><text x="{left - 10}" y="{y + 4:.1f}" '
                     f'text-anchor="end" fill="{"#1f2328" if ranked else "#6e7781"}">{label}</text>'
                     f'<line x1="{x(lo):.1f}" x2="{x(hi):.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="{colour}" '
                     f'stroke-width="3" stroke-linecap="round"/><circle cx="{x(rating):.1f}" cy="{y:.1f}" r="5" '
                     f'fill="{fill}" stroke="{colour}" stroke-width="2"/></g>')  # fmt: skip
    parts.append("</svg>")
    return '<figure class="chart">' + "".join(parts) + "</figure>"


def markdown_text(text: str) -> str:
    """`text` for a Markdown page (mkdocs, GitHub), shown as it is: non-printable characters escaped (`visible`),
    the characters Markdown reads as markup (`\\`, backtick, `*`, `_`, `{`, `}`, `[`, `]`, `|`) escaped by a
    backslash, and `<`, `>`, `&` and `~` written as HTML entities: no raw HTML, entity, link, emphasis, code,
    attribute list or cell break comes from a name."""
    return _MARKUP.sub(lambda m: _ENTITIES.get(m.group(), "\\" + m.group()), visible(text))


_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;", "~": "&#126;"}
_MARKUP = re.compile(r"[\\`*_{}\[\]|~<>&]")


def _rating_text(value) -> str:
    return "–" if value is None else f"{value[0]:.0f} [{value[1]:.0f}, {value[2]:.0f}]"


def _cell_text(cell: dict | None) -> str:
    if cell is None:
        return "–"
    if cell["status"] != "played":
        return "refused"
    return f"{cell['win_rate']:.1%} [{cell['low'] * 100:.1f}, {cell['high'] * 100:.1f}]"


def leaderboard(documents: Sequence[dict], suite: Suite | None = None, *, bootstrap: int | None = None,
                seed: int = 0) -> Leaderboard:  # fmt: skip
    """The leaderboard of results documents of one suite (one per candidate; a later one of the same candidate
    replaces an earlier one): per episode kind, Bradley-Terry ratings fitted to every cell's comparisons between
    candidate and opponent (the same name is the same agent, as candidate or opponent), with percentile
    bootstrap intervals that resample each cell's deals (the deal is the unit); and every cell's win rate. Every
    document is checked against the suite (`check_results`) before anything is computed; the suite is the shipped
    one the documents name unless `suite` is given."""
    if not documents:
        raise ValueError("a leaderboard needs at least one results file")
    names = {results_suite(d, f"results document {i + 1}") for i, d in enumerate(documents)}
    if len(names) != 1:
        raise ValueError("the results are of different suites (or suite versions): "
                         + ", ".join(sorted(f"{n} ({sha[:12]})" for n, sha in names)))  # fmt: skip
    name, sha = names.pop()
    if suite is None:
        if name not in suite_names():
            raise ValueError(f"the results were made with the suite {name!r}, which uno-env does not ship: give "
                             "that suite")  # fmt: skip
        suite = load_suite(name)
    if suite.sha256 != sha:
        raise ValueError(f"the results were made with another {name} than this one (hash {sha[:12]})")
    for i, document in enumerate(documents):
        check_results(document, suite, f"results document {i + 1} ({short_repr(document.get('agent'))})")
    prior = float(suite.ratings.get("prior", 1.0))
    bootstrap = suite.ratings.get("bootstrap", 200) if bootstrap is None else bootstrap
    if not is_int(bootstrap, 0, MAX_BOOTSTRAP):
        raise ValueError(f"bootstrap is a whole number of replicates from 0 to {MAX_BOOTSTRAP:,}, got "
                         f"{short_repr(bootstrap)}")  # fmt: skip
    by_agent = {d["agent"]: d for d in documents}
    opponents = {o.name for o in suite.opponents}
    if len(set(by_agent) | opponents) > MAX_AGENTS:
        raise ValueError(f"a leaderboard rates at most {MAX_AGENTS} agents, candidates and the suite's opponents "
                         f"together; these results name {len(set(by_agent) | opponents)}")  # fmt: skip
    cells = {a: {f"{c['table']}/{c['opponent']}/{c['episode']}": c for c in d["cells"]} for a, d in by_agent.items()}
    ratings = {}
    for episode in EPISODES:
        ratings[episode] = _fit(by_agent, episode, prior, bootstrap, seed)
    order = sorted(by_agent, key=lambda a: -ratings["round"].get(a, (-math.inf,))[0])
    runs = {a: {k: d.get(k) for k in ("games_scale", "seconds", "uno_env_version", "created", "workers")}
            for a, d in by_agent.items()}  # fmt: skip
    return Leaderboard(suite, order, ratings, cells, runs)


#: the most numbers the bootstrap holds at once, per block of replicates (draws, and the matrices it fits): its
#: memory is bounded by this, whatever the deals and the agents
BOOTSTRAP_BLOCK = 2**18


def _fit(by_agent: dict, episode: str, prior: float, bootstrap: int, seed: int) -> dict:
    """name -> (rating, low, high) from the comparisons of every played cell of `episode`. A bootstrap replicate
    resamples each cell's deals with replacement; deals with the same comparisons are one pattern, and a replicate
    draws the count of each (a multinomial; deals are drawn one by one where most deals differ), a block of
    replicates at a time (`BOOTSTRAP_BLOCK`)."""
    played = [(agent, c) for agent, d in by_agent.items() for c in d["cells"]
              if c["episode"] == episode and c["status"] == "played" and c["opponent"] != agent]  # fmt: skip
    if not played:
        return {}
    names = list(dict.fromkeys([a for a, _ in played] + [c["opponent"] for _, c in played]))
    index = {n: i for i, n in enumerate(names)}
    k = len(names)
    patterns = []  # per cell: candidate, opponent, per-deal comparisons (D, 2), the distinct ones (P, 2), shares
    point = np.zeros((k, k))
    for agent, cell in played:
        per_deal = np.asarray(cell["per_deal"]["comparisons"], float).reshape(-1, 2)
        a, o = index[agent], index[cell["opponent"]]
        total = per_deal.sum(axis=0)
        point[a, o] += total[0]
        point[o, a] += total[1]
        rows, counts = np.unique(per_deal, axis=0, return_counts=True)
        patterns.append((a, o, per_deal, rows, counts / counts.sum()))
    rating = _to_rating(bradley_terry(point, prior))
    if not bootstrap:
        return {n: (float(rating[i]),) * 3 for n, i in index.items()}
    rng = np.random.default_rng(seed)
    boot = np.empty((bootstrap, k))
    block = max(1, min(bootstrap, BOOTSTRAP_BLOCK // (k * k)))
    for start in range(0, bootstrap, block):
        size = min(block, bootstrap - start)
        wins = np.zeros((size, k, k))
        for a, o, per_deal, rows, shares in patterns:
            deals, few = len(per_deal), 8 * len(rows) <= len(per_deal)  # few patterns: count them, else pick deals
            step = max(1, BOOTSTRAP_BLOCK // (len(rows) if few else deals))
            for first in range(0, size, step):
                m = min(step, size - first)
                if few:
                    drawn = rng.multinomial(deals, shares, size=m) @ rows  # (replicates, 2)
                else:
                    drawn = per_deal[rng.integers(0, deals, (m, deals))].sum(axis=1)
                wins[first : first + m, a, o] += drawn[:, 0]
                wins[first : first + m, o, a] += drawn[:, 1]
        boot[start : start + size] = _to_rating(bradley_terry(wins, prior))
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    return {n: (float(rating[i]), float(low[i]), float(high[i])) for n, i in index.items()}


def write_leaderboard(folder: str | Path, board: Leaderboard) -> tuple[Path, Path]:
    """leaderboard.md and leaderboard.html in `folder`."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    return (write_atomic(folder / "leaderboard.md", board.markdown()),
            write_atomic(folder / "leaderboard.html", board.html()))  # fmt: skip
