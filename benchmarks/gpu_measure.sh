#!/usr/bin/env bash
# The GPU measurements of time to skill, as one script for a lent GPU machine (docs/time-to-skill.md):
# training speed of the native PPO on CUDA (the engine on the machine's CPU cores) at several batch sizes, then
# time_to_skill.py with three seeds trained at once. Logs and results go to $OUT (default /tmp/gpu-out).
#   bash benchmarks/gpu_measure.sh            # on the GPU machine, uno-env importable from python3
#   DEVICE=cpu MINUTES=0.3 SMOKE=1 bash benchmarks/gpu_measure.sh   # a quick check of the script on a CPU
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
MINUTES="${MINUTES:-3}"
# shellcheck source=benchmarks/gpu_common.sh
source "$here/gpu_common.sh"  # $OUT, $DEVICE, $PY, stamp, warm_up; the working folder is /tmp
{
  stamp start
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>/dev/null
  nproc
  $PY -c "import numba, numpy, torch; print('numba', numba.__version__, 'numpy', numpy.__version__, 'torch',
torch.__version__, torch.cuda.get_device_name() if torch.cuda.is_available() else 'no cuda')"
  warm_up
} 2>&1 | tee "$OUT/info.log"
if [ -z "${SMOKE:-}" ]; then steps=(2048 8192 32768); else steps=(256); fi
{
  stamp train_speed with SB3 beside it
  timeout 150 $PY "$here/train_speed.py" --native-device "$DEVICE" --sb3-device "$DEVICE" --repeats 1 \
    ${SMOKE:+--native-steps 65536 --sb3-steps 16384}
  for envs in "${steps[@]}"; do
    for hidden in "128 128" "64 64"; do
      stamp "train_speed native, $envs games, hidden $hidden"
      minibatch=$((envs * 4 > 8192 ? envs * 4 : 8192))
      timeout 90 $PY "$here/train_speed.py" --native-device "$DEVICE" --repeats 1 --no-sb3 --native-num-envs "$envs" \
        --native-hidden $hidden --native-minibatch-size "$minibatch" --native-steps $((envs * 32 * ${UPDATES:-4}))
    done
  done
} 2>&1 | tee "$OUT/train_speed.log"
{
  stamp "time_to_skill native on $DEVICE, 3 seeds at once, $MINUTES min each"
  NUMBA_NUM_THREADS=5 timeout 420 $PY "$here/time_to_skill.py" --recipe plain --device "$DEVICE" --minutes "$MINUTES" --parallel 3 \
    --eval-workers "${EVAL_WORKERS:-14}" --snapshot-seconds "${SNAPSHOT_SECONDS:-15}" \
    --eval-games "${EVAL_GAMES:-4000}" --final-games "${FINAL_GAMES:-20000}" --out /tmp/tts
  cp /tmp/tts/native-classic-2p/time_to_skill.json "$OUT/time_to_skill_gpu.json"
  cp /tmp/tts/native-classic-2p/time_to_skill.png "$OUT/time_to_skill_gpu.png"
  tail -5 /tmp/tts/native-classic-2p/seed0/train.log
  stamp end
} 2>&1 | tee "$OUT/time_to_skill.log"
