"""The results tables, made from committed files, so that no page types a figure by hand.

`benchmarks/results/shipped_policies.json` records what each shipped policy won against the baselines (its rows
name the policy files by digest; a test checks that every shipped policy has its row). The README and
docs/results.md hold the tables between markers (and docs/benchmark.md the uno-bench-v1 leaderboard, copied from
`benchmarks/results/uno-bench-v1/leaderboard.md` as `uno-bench leaderboard` wrote it),

    <!-- results:NAME -->
    ...
    <!-- /results -->

which this script fills in; `docs/hooks.py` fills them in again on every docs build, and a test checks that the
committed README and pages hold what this script makes:

    python scripts/results_tables.py            # rewrite the blocks of README.md and the docs' pages
    python scripts/results_tables.py --check    # exit 1, naming the files whose blocks are stale
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "shipped_policies.json"
FORMAT = "uno-env-shipped-results-1"
#: the files whose blocks this script writes (the docs build fills in every page's)
DOCUMENTS = [ROOT / "README.md", ROOT / "docs" / "results.md", ROOT / "docs" / "benchmark.md"]
#: the uno-bench-v1 leaderboard of every shipped agent, as `uno-bench leaderboard` wrote it
LEADERBOARD = ROOT / "benchmarks" / "results" / "uno-bench-v1" / "leaderboard.md"
BASELINES = ("counter", "greedy", "random")
DEFAULT_HIDDEN = [128, 128]  # the trainer's default width, not named in the tables
BLOCK = re.compile(r"^(<!-- results:([a-z0-9-]+) -->[ \t]*\n)(.*?)(^<!-- /results -->[ \t]*$)", re.M | re.S)


class ResultsError(ValueError):
    """A results file that cannot make the tables: the message is one line naming the file and the field."""


# ------------------------------------------------------------------------------------------------ the data


def load(path: Path = RESULTS) -> dict:
    """The results file, checked: every policy row has its game, digest, training and the three baselines' figures
    (percent, low <= rate <= high)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ResultsError(f"{path}: not a readable JSON file ({error})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ResultsError(f"{path}: format must be {FORMAT!r}")
    if not isinstance(data.get("games"), int) or data["games"] < 1:
        raise ResultsError(f"{path}: games must be a whole number of games, at least 1")
    policies = data.get("policies")
    if not isinstance(policies, list) or not policies:
        raise ResultsError(f"{path}: policies must be a list of rows, one per shipped policy")
    best = data.get("best", [])
    if not isinstance(best, list):
        raise ResultsError(f"{path}: best must be a list of rows, one per network shipped for best:VARIANT")
    for section, listed in (("policies", policies), ("best", best)):
        for i, row in enumerate(listed):
            _check_row(row, f"{path}: {section}[{i}]")
    for i, row in enumerate(best):
        paired = row.get("paired")
        where = f"{path}: best[{i}].paired"
        if not isinstance(paired, dict) or not isinstance(paired.get("peer"), str):
            raise ResultsError(f"{where} must name its peer (the game's PPO policy) and hold the paired figures")
        for key in ("win_rate", "peer_win_rate"):
            _check_figure(paired.get(key), f"{where}.{key}")
        difference = paired.get("difference")
        if not (isinstance(difference, list) and len(difference) == 3 and min(difference) == difference[1]
                and max(difference) == difference[2]):  # fmt: skip
            raise ResultsError(f"{where}.difference must be [points, low, high] with low <= points <= high")
    return data


def _check_row(row, where: str) -> None:
    for key, kind in (("variant", str), ("players", int), ("sha256", str), ("hidden", list),
                      ("decisions", int), ("minutes", int), ("note", str), ("against", dict)):  # fmt: skip
        if not isinstance(row.get(key) if isinstance(row, dict) else None, kind):
            raise ResultsError(f"{where}.{key} must be a {kind.__name__}")
    for name in BASELINES:
        _check_figure(row["against"].get(name), f"{where}.against.{name}")
    if "long_run" in row:
        _check_figure(row["long_run"].get("against", {}).get("counter"), f"{where}.long_run.against.counter")


def _check_figure(figure, where: str) -> None:
    ok = isinstance(figure, list) and len(figure) == 3 and all(isinstance(x, (int, float)) for x in figure)
    if not ok or not 0 <= figure[1] <= figure[0] <= figure[2] <= 100:
        raise ResultsError(f"{where} must be [rate, low, high] in percent with low <= rate <= high, got {figure!r}")


def rows(data: dict, players: int) -> list[dict]:
    return [row for row in data["policies"] if row["players"] == players]


def figure(value: list[float], percent_bounds: bool = False) -> str:
    """58.4% [57.7, 59.1] (or [57.7%, 59.1%] in prose)."""
    unit = "%" if percent_bounds else ""
    return f"{value[0]:.1f}% [{value[1]:.1f}{unit}, {value[2]:.1f}{unit}]"


def fair(players: int) -> float:
    return 100 / players


# ------------------------------------------------------------------------------------------------ the blocks


def readme_block(data: dict) -> str:
    """The README's table: each preset against `counter` with 2 and with 4 players, the long runs' verdict, and the
    networks shipped for `best:`."""
    minutes = sorted({row["minutes"] for row in data["policies"]})
    lines = [
        f"The shipped policies (native PPO, one {'-'.join(map(str, minutes))}-minute run each on a 2-core machine, "
        f"kickstarted from `counter`) against `counter`, the strongest baseline, over {data['games']:,} paired games; "
        "the fair share is 50% with 2 players and 25% with 4:",
        "",
        "| preset | 2 players | 4 players |",
        "|---|---|---|",
    ]
    by_game = {(row["variant"], row["players"]): row for row in data["policies"]}
    for variant in dict.fromkeys(row["variant"] for row in data["policies"]):
        cells = [figure(by_game[variant, p]["against"]["counter"]) if (variant, p) in by_game else "–" for p in (2, 4)]
        lines.append(f"| {variant} | {cells[0]} | {cells[1]} |")
    lines += ["", " ".join(filter(None, [long_run_sentence(data, short=True), best_short_sentence(data)]))]
    return "\n".join(lines)


def results_table(data: dict) -> str:
    """docs/results.md's table: every policy against every baseline, with its width and training."""
    lines = [
        "| preset | players | minutes | decisions | " + " | ".join(f"vs {b}" for b in BASELINES) + " |",
        "|---" * (4 + len(BASELINES)) + "|",
    ]
    for row in sorted(data["policies"], key=lambda r: r["players"]):
        notes = [f"{row['hidden'][0]}x{row['hidden'][1]}"] if row["hidden"] != DEFAULT_HIDDEN else []
        notes += [row["note"]] if row["note"] else []
        name = row["variant"] + (f" ({', '.join(notes)})" if notes else "")
        figures = " | ".join(figure(row["against"][b]) for b in BASELINES)
        lines.append(f"| {name} | {row['players']} | {row['minutes']} | {row['decisions'] / 1e6:.1f}M | {figures} |")
    return "\n".join(lines)


def long_run_sentence(data: dict, short: bool = False) -> str:
    """What the 4-player policies' long runs against three `counter`s say about their fair share."""
    runs = [row for row in rows(data, 4) if "long_run" in row]
    if not runs:
        return ""
    games = max(row["long_run"]["games"] for row in runs)
    above = [row for row in runs if row["long_run"]["against"]["counter"][1] > fair(4)]
    who = "every 4-player policy is" if len(above) == len(runs) else (
        ", ".join(row["variant"] for row in above) + (" is" if len(above) == 1 else " are") if above else "no policy is"
    )  # fmt: skip
    if short:
        first = runs[0]
        return (f"Over {games:,} games {who} above its fair share ({first['variant']} "
                f"{figure(first['long_run']['against']['counter'])}).")  # fmt: skip
    seeds = sorted({row["long_run"].get("seed") for row in runs if row["long_run"].get("seed") is not None})
    listed = [f"{row['variant']} {figure(row['long_run']['against']['counter'], True)}" for row in runs]
    return (f"Over {games:,} games against three `counter`s" + (f" (`--seed {seeds[0]}`)" if len(seeds) == 1 else "")
            + f", {who} above its fair share: " + ", ".join(listed[:-1]) + f" and {listed[-1]}.")  # fmt: skip


def four_player_sentence(data: dict) -> str:
    """Which 4-player policies clear their fair share over the short runs, and which do not."""
    clear = [row for row in rows(data, 4) if row["against"]["counter"][1] > fair(4)]
    unclear = [row for row in rows(data, 4) if row["against"]["counter"][1] <= fair(4)]
    if not unclear:
        return f"Over {data['games']:,} games every 4-player policy clears its fair share."
    named = " and ".join(row["variant"] for row in clear)
    rates = " and ".join(f"{row['against']['counter'][0]:.1f}%" for row in clear)
    unnamed = [f"{row['variant']} ({figure(row['against']['counter'], True)})" for row in unclear]
    if not clear:
        return f"Over {data['games']:,} games no 4-player policy clears its fair share: " + ", ".join(unnamed) + "."
    verb = "policy clears its" if len(clear) == 1 else "policies clear their"
    rest = ", ".join(unnamed[:-1]) + (" and " if len(unnamed) > 1 else "") + unnamed[-1]
    return (f"Over {data['games']:,} games the {named} {verb} fair share ({rates}); {rest} "
            f"{'does' if len(unnamed) == 1 else 'do'} not.")


def two_player_sentence(data: dict) -> str:
    """The 2-player policies against the project's aim: at least 55% against `counter`, its interval above 50%."""
    two = rows(data, 2)
    meet = [row for row in two if row["against"]["counter"][0] >= 55 and row["against"]["counter"][1] > fair(2)]
    best = max(two, key=lambda row: row["against"]["counter"][0])
    who = "Every 2-player policy meets" if len(meet) == len(two) else f"{len(meet)} of the {len(two)} policies meet"
    return (f"{who} the project's aim against `counter`, the strongest baseline: at least 55% of the games, with "
            f"its interval above 50%. The most is {best['variant']}'s {figure(best['against']['counter'], True)}.")


def best_sentence(data: dict) -> str:
    """What `best:VARIANT` seats: the networks shipped for it, each with its figures and its paired gain over the game's
    PPO policy; every other game's PPO policy."""
    sentences = []
    for row in data.get("best", []):
        paired, against = row["paired"], row["against"]
        name = f"`best:{row['variant']}` with {row['players']} players"
        sentences.append(
            f"{name} seats a network stronger than the game's PPO policy: {row['note']}. Over {data['games']:,} games "
            f"it wins {figure(against['counter'], True)} against `counter`, {figure(against['greedy'], True)} against "
            f"`greedy` and {figure(against['random'], True)} against `random`; on the same {paired['deals']:,} deals "
            f"(`--seed {paired['seed']}`, every deal from both seats) {figure(paired['win_rate'], True)} against "
            f"`counter` where `{paired['peer']}` wins {figure(paired['peer_win_rate'], True)}, "
            f"{paired['difference'][0]:+.1f} points [{paired['difference'][1]:+.1f}, {paired['difference'][2]:+.1f}] "
            "by deal.")  # fmt: skip
    sentences.append("Every other game's `best:` seats its PPO policy." if sentences else
                     "Every game's `best:` seats its PPO policy.")  # fmt: skip
    return " ".join(sentences)


def best_short_sentence(data: dict) -> str:
    """The README's line on `best:VARIANT`: each network shipped for it, against `counter` and against its peer."""
    lines = []
    for row in data.get("best", []):
        gain, low, high = row["paired"]["difference"]
        lines.append(f"`best:{row['variant']}` ({row['players']} players, the PPO policy trained {row['minutes']} "
                     f"minutes more): {figure(row['against']['counter'])} against `counter`, {gain:+.1f} points "
                     f"[{low:+.1f}, {high:+.1f}] over `{row['paired']['peer']}` on the same deals.")  # fmt: skip
    return " ".join(lines)


def leaderboard_block(data: dict) -> str:
    """docs/benchmark.md's leaderboard: `LEADERBOARD` from its ranking on (its title and introduction are the
    page's own), each table's heading one level down, under the page's section."""
    try:
        text = LEADERBOARD.read_text(encoding="utf-8")
    except OSError as error:
        raise ResultsError(f"{LEADERBOARD}: not readable ({error})") from None
    start = text.find("\n| rank |")
    if start < 0:
        raise ResultsError(f"{LEADERBOARD}: no ranking table (a line starting '| rank |')")
    return re.sub(r"^## ", "### ", text[start + 1 :], flags=re.M)


#: marker name -> the function that makes its block from the results file
BLOCKS = {
    "readme": readme_block,
    "table": results_table,
    "long-run": long_run_sentence,
    "four-players": four_player_sentence,
    "two-players": two_player_sentence,
    "best": best_sentence,
    "leaderboard": leaderboard_block,
}


def block(name: str, data: dict) -> str:
    if name not in BLOCKS:
        raise ResultsError(f"unknown results block <!-- results:{name} -->; the blocks are {', '.join(BLOCKS)}")
    return BLOCKS[name](data).strip()


def render(text: str, data: dict) -> str:
    """`text` with every results block filled in from `data`."""
    return BLOCK.sub(lambda m: f"{m.group(1)}{block(m.group(2), data)}\n{m.group(4)}", text)


def filled(text: str, data: dict) -> str:
    """`text` with every results block filled in from `data` and the markers taken out: what a page shows."""
    return BLOCK.sub(lambda m: block(m.group(2), data) + "\n", text)


def stale(data: dict, documents: list[Path] = DOCUMENTS) -> list[Path]:
    """The documents whose committed blocks are not what `data` makes."""
    return [path for path in documents if render(path.read_text(encoding="utf-8"), data) != path.read_text("utf-8")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=RESULTS, help="the results file (default: %(default)s)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a block is stale")
    args = parser.parse_args(argv)
    try:
        data = load(args.results)
        old = stale(data)
    except ResultsError as error:
        parser.error(str(error))
    for path in old:
        if args.check:
            print(f"{path.relative_to(ROOT)}: its results blocks are stale: run python scripts/results_tables.py")
        else:
            path.write_text(render(path.read_text(encoding="utf-8"), data), encoding="utf-8")
            print(f"{path.relative_to(ROOT)}: results blocks rewritten")
    return 1 if args.check and old else 0


if __name__ == "__main__":
    sys.exit(main())
