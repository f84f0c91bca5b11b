#!/usr/bin/env bash
# Set everything up, then run the main job: train a policy with the native PPO for a few minutes
# (TRAIN_MINUTES, default 5; learning curve in runs/quickstart/), then benchmark it against the baseline
# agents, printing the table and writing tournament.json/.csv/.png to arena-results/.
# Extra arguments go to uno-arena (e.g. --games 40000).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# the main recipe (uno_env.train.recipes, docs/time-to-skill.md): kickstart from counter, a 64x64 network on 512
# games, the next rollout collected while the update runs
.venv/bin/uno-train --recipe main --variant classic --players 2 --minutes "${TRAIN_MINUTES:-5}" --eval-every 300 \
  --out runs/quickstart
.venv/bin/uno-arena --agents ppo:runs/quickstart/policy.pt counter greedy naive random --variant classic \
  --players 2 --games 20000 --name trained=ppo:runs/quickstart/policy.pt "$@"
