"""Fill in a new suite's deal digests (`uno_env.arena.bench.deal_digest`): what a suite's author runs once, before
the suite is published and its hash pinned in `uno_env.arena.bench.PUBLISHED`.

    python benchmarks/bench_suite_digests.py arena/suites/uno-bench-v2.json     # writes the digests into the file
    python benchmarks/bench_suite_digests.py arena/suites/uno-bench-v1.json --check

`--check` only compares the file's digests with the engine's deals and the shipped policies (exit 1 when they
differ) and prints the hash.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

from uno_env import cli
from uno_env.arena.bench import PUBLISHED, SuiteError, load_suite, suite_digests, suite_hash, suite_policy_digests
from uno_env.records import write_atomic


def main(argv: list[str] | None = None) -> int:
    parser = cli.ArgumentParser(prog="bench_suite_digests.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", type=Path, help="a suite JSON file")
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    try:
        suite = load_suite(args.suite)  # checked whole (uno_env.arena.bench.parse_suite)
    except SuiteError as error:
        parser.error(str(error))
    document = copy.deepcopy(suite.document)
    digests, policies = suite_digests(suite), suite_policy_digests(suite)
    if args.check:
        same = digests == document["deal_digests"] and policies == document["policy_digests"]
        print(f"{suite.name}: digests {'match' if same else 'DIFFER from'} the engine's deals and the shipped "
              f"policies; sha256 {suite.sha256}")
        return 0 if same else 1
    if document["name"] in PUBLISHED:
        parser.error(f"{document['name']} is published: it never changes (make a new version)")
    document["deal_digests"], document["policy_digests"] = digests, policies
    write_atomic(args.suite, json.dumps(document, indent=2) + "\n")
    print(f"{suite.name}: digests written; sha256 {suite_hash(document)} (pin it in PUBLISHED when publishing)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
