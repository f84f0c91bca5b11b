"""Two agents compared on the same deals: the paired difference of their win rates with a 95% interval by deal.

    python benchmarks/skill.py --players 4 --agent ppo:a.pt --deals 10000 --seed 20261126 --json a.jsonl
    python benchmarks/skill.py --players 4 --agent ppo:b.pt --deals 10000 --seed 20261126 --json b.jsonl
    python benchmarks/paired.py a.jsonl b.jsonl          # the last line of each; or FILE:N for the N-th line (from 0)

Each result line of `skill.py --json` holds the agent's wins per deal (`deal_wins`, every deal played once per seat
against the same opponents). The difference is taken deal by deal over the deals both played, so the luck of the
cards cancels; the interval is the normal one over those per-deal differences.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

Z95 = 1.959963984540054


def load_result(spec: str) -> dict:
    """One result line of a skill.py --json file: FILE (its last line) or FILE:N (line N, from 0)."""
    path, colon, index = spec.rpartition(":")
    path, line = (path, int(index)) if colon and index.lstrip("-").isdigit() else (spec, -1)
    with open(path) as f:
        lines = [json.loads(text) for text in f if text.strip()]
    if not lines:
        raise ValueError(f"{path} holds no result lines")
    result = lines[line]
    if "deal_wins" not in result:
        raise ValueError(f"{spec} has no deal_wins (written by an older skill.py)")
    return result


def paired_difference(first: dict, second: dict) -> tuple[float, float, float, int]:
    """(difference, low, high, deals): first's win rate minus second's over the deals both played."""
    if (first["players"], first["variant"], first["opponent"]) != (second["players"], second["variant"],
                                                                   second["opponent"]):  # fmt: skip
        raise ValueError("the two results were not played at the same table (variant, players, opponent)")
    common = sorted(set(first["deal_wins"]) & set(second["deal_wins"]), key=int)
    if len(common) < 2:
        raise ValueError("the two results share fewer than 2 deals: play them with the same --seed and --deals")
    per_deal = np.array([first["deal_wins"][d] - second["deal_wins"][d] for d in common]) / first["players"]
    mean, error = per_deal.mean(), per_deal.std(ddof=1) / np.sqrt(len(common))
    return float(mean), float(mean - Z95 * error), float(mean + Z95 * error), len(common)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="paired.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("first", help="a skill.py --json file (its last line), or FILE:N")
    parser.add_argument("others", nargs="+", help="results to compare the first with, each the same way")
    args = parser.parse_args(argv)
    try:
        first = load_result(args.first)
        for spec in args.others:
            other = load_result(spec)
            difference, low, high, deals = paired_difference(first, other)
            print(f"{first['agent']} ({first['win_rate']:.2%}) - {other['agent']} ({other['win_rate']:.2%}): "
                  f"{difference:+.2%} [{low:+.2%}, {high:+.2%}] over {deals} paired deals")  # fmt: skip
    except (OSError, ValueError, KeyError, IndexError) as error:
        parser.error(str(error))
    return 0


if __name__ == "__main__":
    sys.exit(main())
