#!/usr/bin/env bash
# Reading the hidden hands, measured on a lent GPU machine (docs/belief.md): six 4-player classic runs of the native
# PPO trained at once on the one GPU for the same minutes (the shipped 4-player recipe, `--hidden 256 256 --imitate
# counter`, plus one aid each), then every policy against three `counter`s on the same fresh deals (skill.py, which
# benchmarks/paired.py compares deal by deal). First, while the GPU is idle, the ceiling of a GPU-resident engine for
# docs/time-to-skill.md: the native PPO's arithmetic alone (train_speed.py --learner-only). Logs and results go to
# $OUT (default /tmp/gpu-out).
#   bash benchmarks/gpu_hidden_hands.sh      # on the GPU machine, uno-env importable from python3 (TEACHER=FILE: a 7th run)
#   DEVICE=cpu MINUTES=0.1 DEALS=10 CEILING_ENVS=256 bash benchmarks/gpu_hidden_hands.sh   # a quick check on a CPU
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
MINUTES="${MINUTES:-5}"
DEALS="${DEALS:-10000}"
SEED="${SEED:-20261126}"
TEACHER="${TEACHER:+$(realpath "$TEACHER")}"  # a seer-level 4-player policy file to distil (optional)
# shellcheck source=benchmarks/gpu_common.sh
source "$here/gpu_common.sh"  # $OUT, $DEVICE, $PY, stamp, warm_up; the working folder is /tmp
recipe=(--variant classic --players 4 --hidden 256 256 --minutes "$MINUTES" --eval-every 0 --eval-games 2000
        --threads 1 --device "$DEVICE" --no-progress --seed 1)
declare -A runs=(
  [base]="--imitate counter"
  [belief]="--imitate counter --observation belief"
  [hand]="--imitate counter --hand-loss 1"
  [belief-hand]="--imitate counter --observation belief --hand-loss 1"
  [oracle]="--imitate counter --oracle 0.5"
  [seer]="--imitate counter --observation seer"
)
[ -n "$TEACHER" ] && runs[distil]="--imitate counter --teacher $TEACHER"
evaluated=("${!runs[@]}" shipped)
[ -n "$TEACHER" ] && evaluated+=(teacher)
{
  stamp start
  nvidia-smi --query-gpu=name,memory.total --format=csv 2>/dev/null; nproc
  $PY -c "import numba, torch; print('numba', numba.__version__, 'torch', torch.__version__)"
  for hidden in "128 128" "64 64"; do
    stamp "the arithmetic alone, 32,768 games, hidden $hidden"
    timeout 60 $PY "$here/train_speed.py" --learner-only --native-device "$DEVICE" --native-num-envs "${CEILING_ENVS:-32768}" \
      --native-minibatch-size "${CEILING_ENVS:-32768}" --native-hidden $hidden --native-steps $((${CEILING_ENVS:-32768} * 32 * 3)) --repeats 3
  done
  warm_up --players 4 --observation belief
  for name in "${!runs[@]}"; do
    stamp "train $name"
    # shellcheck disable=SC2086
    NUMBA_NUM_THREADS="${NUMBA_THREADS:-2}" $PY -m uno_env.train.native_ppo "${recipe[@]}" ${runs[$name]} --out "/tmp/hh/$name" \
      > "$OUT/train-$name.log" 2>&1 &
  done
  wait
  stamp trained
  for name in "${!runs[@]}"; do tail -2 "$OUT/train-$name.log"; cp "/tmp/hh/$name/policy.pt" "$OUT/$name.pt"; done
  [ -n "$TEACHER" ] && cp "$TEACHER" "$OUT/teacher.pt"
  for agent in "${evaluated[@]}"; do
    policy="ppo:$OUT/$agent.pt"; [ "$agent" = shipped ] && policy=ppo:classic
    timeout 200 $PY "$here/skill.py" --players 4 --agent "$policy" --opponent counter --deals "$DEALS" --seed "$SEED" \
      --workers "${EVAL_WORKERS:-2}" --json "$OUT/skill-$agent.jsonl" > "$OUT/skill-$agent.log" 2>&1 &
  done
  wait
  cat "$OUT"/skill-*.log
  $PY "$here/paired.py" "$OUT/skill-base.jsonl" "$OUT/skill-shipped.jsonl"
  for name in "${evaluated[@]}"; do
    [ "$name" = base ] || $PY "$here/paired.py" "$OUT/skill-$name.jsonl" "$OUT/skill-base.jsonl"
  done
  stamp end
} 2>&1 | tee "$OUT/hidden_hands.log"
