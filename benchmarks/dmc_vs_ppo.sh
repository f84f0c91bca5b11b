#!/usr/bin/env bash
# Deep Monte-Carlo against PPO on the same budget: classic, 2 players, MINUTES of training each (default 5), both at
# the same time, each pinned to two cores of its own; then both final policies against counter on the same fresh
# deals (DEALS deals from 2^40, each played once per seat: 20,000 games by default), with the paired difference.
#
#   bash benchmarks/dmc_vs_ppo.sh                       # 4 cores of a many-core machine (CORES, default 12-15)
#   CORES=0-3 MINUTES=10 OUT=/tmp/cmp bash benchmarks/dmc_vs_ppo.sh
#   SMOKE=1 bash benchmarks/dmc_vs_ppo.sh               # seconds: a check of the script, on any machine
#
# The DMC trainer runs `python -m uno_env.train.dmc` with its defaults (kickstarted from counter) and --threads 2;
# the PPO runs the main job's recipe (`--recipe main`, as scripts/run.sh: its rollouts overlap its updates, one core
# each). The evaluations run benchmarks/skill.py, each on its trainer's two cores (two workers). Writes
# $OUT/dmc_vs_ppo.jsonl: skill.py's line for the DMC policy, then the PPO's, then the paired difference (DMC minus
# PPO, by deal, with the decisions each trained on); the trainers' logs are in $OUT/dmc and $OUT/ppo. With
# MINUTES=5: five minutes of training, then the evaluations (20,000 games a policy on two cores), within 8 minutes.
# PY (default python3) must import uno_env (installed, or the repository on PYTHONPATH).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-python3}
OUT=${OUT:-runs/dmc_vs_ppo}
SEED=${SEED:-0}
EVAL_SEED=$((1 << 40))
if [[ -n "${SMOKE:-}" ]]; then
  MINUTES=${MINUTES:-0.05}
  DEALS=${DEALS:-50}
  CORES=${CORES:-0-$(($(nproc) - 1))}
else
  MINUTES=${MINUTES:-5}
  DEALS=${DEALS:-10000}
  CORES=${CORES:-12-15}
fi
export OMP_WAIT_POLICY=PASSIVE NUMBA_NUM_THREADS=2 OMP_NUM_THREADS=2

cores=()  # CORES as a list: "12-15" or "0,2,4,6"
IFS=, read -ra parts <<< "$CORES"
for part in "${parts[@]}"; do
  if [[ $part == *-* ]]; then cores+=($(seq "${part%-*}" "${part#*-}")); else cores+=("$part"); fi
done
(( ${#cores[@]} >= 1 )) || { echo "CORES must name cores, as 12-15 or 0,1,2,3; got '$CORES'" >&2; exit 2; }
if (( ${#cores[@]} < 4 )) && [[ -z "${SMOKE:-}" ]]; then
  echo "CORES must name 4 cores (two for each trainer), got '$CORES'" >&2
  exit 2
fi
n=${#cores[@]}  # with SMOKE on a smaller machine the two share the cores there are
DMC_CORES="${cores[0]},${cores[$((1 % n))]}"
PPO_CORES="${cores[$((2 % n))]},${cores[$((3 % n))]}"
mkdir -p "$OUT/dmc" "$OUT/ppo"
RESULTS="$OUT/dmc_vs_ppo.jsonl"
rm -f "$RESULTS" "$OUT/dmc.jsonl" "$OUT/ppo.jsonl"
COMMON=(--variant classic --players 2 --minutes "$MINUTES" --seed "$SEED" --eval-every 0 --eval-games 200
        --device cpu --no-progress)
started=$SECONDS

echo "training $MINUTES min each: DMC on cores $DMC_CORES, PPO (--recipe main) on cores $PPO_CORES"
taskset -c "$DMC_CORES" "$PY" -m uno_env.train.dmc "${COMMON[@]}" --threads 2 --out "$OUT/dmc" \
  > "$OUT/dmc/train.log" 2>&1 &
dmc_pid=$!
taskset -c "$PPO_CORES" "$PY" -m uno_env.train.native_ppo --recipe main "${COMMON[@]}" --out "$OUT/ppo" \
  > "$OUT/ppo/train.log" 2>&1 &
ppo_pid=$!
wait "$dmc_pid" || { echo "the DMC trainer failed; see $OUT/dmc/train.log" >&2; exit 1; }
wait "$ppo_pid" || { echo "the PPO trainer failed; see $OUT/ppo/train.log" >&2; exit 1; }
tail -n 1 "$OUT/dmc/train.log" "$OUT/ppo/train.log"
echo "trained in $((SECONDS - started)) s; evaluating on $DEALS deals from $EVAL_SEED, each in both seats"

evaluate() {  # CORES AGENT JSON
  taskset -c "$1" "$PY" benchmarks/skill.py --variant classic --players 2 --agent "$2" --opponent counter \
    --deals "$DEALS" --seed "$EVAL_SEED" --workers 2 --json "$3"
}
evaluate "$DMC_CORES" "dmc:$OUT/dmc/policy.pt" "$OUT/dmc.jsonl" &
dmc_pid=$!
evaluate "$PPO_CORES" "ppo:$OUT/ppo/policy.pt" "$OUT/ppo.jsonl" &
ppo_pid=$!
wait "$dmc_pid" || { echo "the DMC policy's evaluation failed" >&2; exit 1; }
wait "$ppo_pid" || { echo "the PPO policy's evaluation failed" >&2; exit 1; }
cat "$OUT/dmc.jsonl" "$OUT/ppo.jsonl" > "$RESULTS"
"$PY" - "$RESULTS" "$MINUTES" "$OUT" <<'EOF'
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, "benchmarks")
from paired import load_result, paired_difference

path, minutes, out = sys.argv[1], float(sys.argv[2]), Path(sys.argv[3])
dmc, ppo = load_result(f"{path}:0"), load_result(f"{path}:1")
difference, low, high, deals = paired_difference(dmc, ppo)
trained = {name: int(re.findall(r"^trained (\d+) steps", (out / name / "train.log").read_text(), re.M)[-1])
           for name in ("dmc", "ppo")}  # the decisions each learner trained on
line = {"comparison": "dmc - ppo", "minutes": minutes, "dmc": dmc["win_rate"], "ppo": ppo["win_rate"],
        "difference": difference, "interval": [low, high], "deals": deals, "decisions_trained": trained}
with open(path, "a") as f:
    f.write(json.dumps(line) + "\n")
print(f"DMC {dmc['win_rate']:.2%} - PPO {ppo['win_rate']:.2%} against counter: {difference:+.2%} "
      f"[{low:+.2%}, {high:+.2%}] over {deals} paired deals, {minutes:g} min of training each")
EOF
echo "wrote $RESULTS ($((SECONDS - started)) s in all)"
