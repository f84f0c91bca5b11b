#!/usr/bin/env bash
# Set everything up, then run the main job: a tournament of the baseline agents, printing the table and
# writing tournament.json/.csv/.png to arena-results/. Extra arguments go to uno-arena
# (e.g. --variant unocorns --players 4 --games 40000).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/uno-arena --agents random naive greedy counter --variant classic --players 2 --games 20000 "$@"
