#!/usr/bin/env bash
# Search teaches the network, at four players: the first generation of expert iteration, measured.
#
#   bash benchmarks/expert_iteration.sh            # 100,000 labelled states, every core of this machine (~40 min on 2)
#   STATES=20000 bash benchmarks/expert_iteration.sh
#
# 1. Labels: seer:100 (the search that sees every hand) in one seat against three counters, every searched decision
#    with its move, its paired comparison and the round's outcome, at the knowledge, belief and seer levels.
# 2. Networks fitted to the search's moves at the seer level (can a network hold the seer's play at all?): alone, with
#    counter's move as an input (it learns only where to leave it), and with the paired comparison as soft targets.
# 3. Each network in one seat against three counters on deals no label came from (DEALS deals, each in every seat),
#    appended to benchmarks/results/expert_iteration_4p.jsonl; docs/expert-iteration.md reads those lines.
set -euo pipefail
cd "$(dirname "$0")/.."
STATES=${STATES:-100000}
DEALS=${DEALS:-2500}
WORKERS=${WORKERS:-$(nproc)}
OUT=${OUT:-runs/expert_iteration}
RESULTS=${RESULTS:-benchmarks/results/expert_iteration_4p.jsonl}
PY=${PY:-.venv/bin/python}
export OMP_WAIT_POLICY=PASSIVE
mkdir -p "$OUT"

"$PY" -m uno_env.train.search_labels --expert seer:100 --players 4 --states "$STATES" --workers "$WORKERS" \
  --seed 1000 --levels knowledge belief seer --out "$OUT/labels.npz"

fit() {  # NAME, then the learner's flags
  local name=$1
  shift
  "$PY" -m uno_env.train.expert_iteration --labels "$OUT/labels.npz" --batch-size 512 --out "$OUT/$name" "$@"
  "$PY" benchmarks/skill.py --players 4 --agent "ppo:$OUT/$name/policy.pt" --opponent counter --deals "$DEALS" \
    --seed 20261128 --workers "$WORKERS" --json "$RESULTS"
}
fit seer-last --observation seer --epochs 15 --keep last
fit seer-hint-last --observation seer --hint counter --epochs 12 --keep last
fit seer-hint-adv20-last --observation seer --hint counter --target advantage --sharpness 20 --epochs 8 --keep last
fit seer --observation seer --epochs 8
fit seer-hint-adv5 --observation seer --hint counter --target advantage --sharpness 5 --epochs 8
# The same learner on a quarter and a half of the labels (whole deals drawn at random): how strength grows with data.
fit seer-25000 --observation seer --epochs 8 --max-states 25000
fit seer-50000 --observation seer --epochs 8 --max-states 50000
# The peer on the same deals: the shipped 4-player PPO policy.
"$PY" benchmarks/skill.py --players 4 --agent ppo:classic --opponent counter --deals "$DEALS" --seed 20261128 \
  --workers "$WORKERS" --json "$RESULTS"
