#!/usr/bin/env bash
# The native PPO's learning-signal fixes, each measured against the main job's recipe on the same budget.
#
#   OUT=results/ppo_signal bash benchmarks/ppo_signal.sh             # 5 minutes a run, 20,000 games each
#   MINUTES=10 OUT=... bash benchmarks/ppo_signal.sh                   # another budget
#   SMOKE=1 OUT=/tmp/ppo_signal bash benchmarks/ppo_signal.sh          # a check of the script: seconds, 200 games
#
# Trains, at the same time, each pinned to two cores of its own (`taskset -c`, one numba and one torch thread per
# run as on a 2-core machine, the CPU even where a GPU is), the main job's run (`--recipe main`, classic, 2
# players, as scripts/run.sh trains it) and each fix alone: returns with lambda = 1 (`--gae-lambda 1.0`), a
# kickstart loss that fades (`--imitate-weight`), an entropy floor (`--entropy-floor`), paired deals
# (`--paired-deals`). Runs: (cores - 2) / 2, two cores kept free; the fixes' first seeds come first, then second
# seeds (the baseline's first). Then every final policy plays counter on the same fresh deals (seeds from 2^40,
# each deal from both seats: benchmarks/skill.py), all evaluations at once over every core. Writes one JSON line a
# run to $OUT/ppo_signal.jsonl (name, flags, seed, win rate, 95% interval by deal, decisions trained) and the
# logs to $OUT/logs/. Needs the train extra (torch, tensorboard, tqdm, matplotlib) and numba and numpy; PY names
# the Python (default python3) that imports uno_env (installed, or its folder on PYTHONPATH).
set -euo pipefail
OUT=${OUT:-runs/ppo_signal}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)  # taken from where the command runs, before moving to the repository's root
cd "$(dirname "$0")/.."
PY=${PY:-python3}
MINUTES=${MINUTES:-5}
SMOKE=${SMOKE:-0}
DEALS=10000  # each played from both seats: 20,000 games
QUICK=()  # in a smoke check: smaller evaluations during training, and PPO (with the fix) from the first update
if [[ "$SMOKE" == 1 ]]; then
  MINUTES=0.1
  DEALS=100
  QUICK=(--eval-games 100 --imitate-steps 0)
fi
mkdir -p "$OUT/logs" "$OUT/runs"
: >"$OUT/ppo_signal.jsonl"
CORES=$(nproc)
SLOTS=$(((CORES - 2) / 2))
((SLOTS >= 1)) || SLOTS=1
if [[ "$SMOKE" == 1 ]]; then SLOTS=5; fi  # every fix once, whatever the cores
DECAY=$(awk -v m="$MINUTES" 'BEGIN { printf "%d", m * 1000000 }')  # the kickstart fades over about half the run

# name|seed|flags: the fixes' first seeds, then second seeds
RUNS=(
  "baseline|0|"
  "lambda1|0|--gae-lambda 1.0"
  "kickstart|0|--imitate-weight 1.0 --imitate-decay-steps $DECAY"
  "entropy_floor|0|--entropy-floor 0.15"
  "paired_deals|0|--paired-deals"
  "baseline|1|"
  "kickstart|1|--imitate-weight 1.0 --imitate-decay-steps $DECAY"
  "paired_deals|1|--paired-deals"
  "entropy_floor|1|--entropy-floor 0.15"
  "lambda1|1|--gae-lambda 1.0"
)
RUNS=("${RUNS[@]:0:SLOTS}")

pin() {  # pin CORE_INDEX COMMAND...: run on two cores of its own (wrapping round on a small machine)
  local first=$((2 * $1 % CORES)) second=$(((2 * $1 + 1) % CORES))
  shift
  if command -v taskset >/dev/null; then taskset -c "$first,$second" "$@"; else "$@"; fi
}

echo "ppo_signal: ${#RUNS[@]} runs of $MINUTES minutes on $CORES cores, then $((2 * DEALS)) games each" >&2
started=$(date +%s)
pids=()
for i in "${!RUNS[@]}"; do
  IFS='|' read -r name seed flags <<<"${RUNS[$i]}"
  run="${name}_seed$seed"
  # shellcheck disable=SC2086  # the flags split into words
  NUMBA_NUM_THREADS=2 OMP_NUM_THREADS=1 pin "$i" "$PY" -m uno_env.train.native_ppo --recipe main --variant classic \
    --players 2 --minutes "$MINUTES" --eval-every 300 --device cpu --seed "$seed" --no-progress \
    --out "$OUT/runs/$run" ${QUICK[@]+"${QUICK[@]}"} $flags >"$OUT/logs/$run.train.log" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { echo "training ${RUNS[$i]} failed: see $OUT/logs/" >&2; failed=1; }
done
((failed == 0)) || exit 1
echo "ppo_signal: trained in $(($(date +%s) - started)) s; evaluating" >&2

WORKERS=$((CORES / ${#RUNS[@]}))
((WORKERS >= 1)) || WORKERS=1
pids=()
for i in "${!RUNS[@]}"; do
  IFS='|' read -r name seed flags <<<"${RUNS[$i]}"
  run="${name}_seed$seed"
  NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 "$PY" benchmarks/skill.py --variant classic --players 2 \
    --agent "ppo:$OUT/runs/$run/policy.pt" --opponent counter --deals "$DEALS" --seed $((1 << 40)) \
    --workers "$WORKERS" --json "$OUT/runs/$run/skill.jsonl" >"$OUT/logs/$run.eval.log" 2>&1 &
  pids+=($!)
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { echo "evaluating ${RUNS[$i]} failed: see $OUT/logs/" >&2; failed=1; }
done
((failed == 0)) || exit 1

"$PY" - "$OUT" "$MINUTES" "${RUNS[@]}" <<'PYTHON'
import json
import sys

from uno_env.agents.policy import load_policy_file

out, minutes, runs = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
with open(f"{out}/ppo_signal.jsonl", "a") as results:
    for line in runs:
        name, seed, flags = line.split("|")
        run = f"{name}_seed{seed}"
        with open(f"{out}/runs/{run}/skill.jsonl") as file:
            skill = json.loads(file.read().splitlines()[-1])
        trained = load_policy_file(f"{out}/runs/{run}/policy.pt")["trained"]
        low, high = skill["deal_interval"]
        row = {
            "run": run, "name": name, "seed": int(seed), "flags": flags, "recipe": "main", "variant": "classic",
            "players": 2, "minutes": minutes, "opponent": skill["opponent"], "win_rate": skill["win_rate"],
            "deal_interval": [low, high], "games": skill["games"], "eval_seed": 2**40, "steps": trained["steps"],
            "updates": trained.get("updates"), "per_deal_wins": f"runs/{run}/skill.jsonl",
        }
        results.write(json.dumps(row) + "\n")
        rate, games, steps = skill["win_rate"], skill["games"], trained["steps"]
        print(f"{run:22} {rate:.1%} [{low:.1%}, {high:.1%}] by deal, {games} games, {steps:,} decisions trained "
              f"({flags or 'the main recipe'})")
PYTHON
echo "ppo_signal: done in $(($(date +%s) - started)) s; $OUT/ppo_signal.jsonl" >&2
