#!/usr/bin/env bash
# One run on a lent GPU machine (16 cores, under 9 minutes): the native PPO's two measurements that need one.
# - Time to skill with every game on the GPU: `uno-train --engine cuda`, one seed, 2 minutes, a snapshot every 15 s,
#   evaluated against counter after it (benchmarks/time_to_skill.py), on cores 12-15. Each process first compiles
#   one step kernel for its league's opponents (a minute or so) before the clock starts.
# - Collection across worker processes: `--collectors` 1, 2, 4, 8 and 11 in turn on cores 0-11, the learner on the
#   GPU, 8,192 games (benchmarks/train_speed.py --native-collectors), at the same time.
# Logs go to $OUT (default /tmp/gpu-out): time_to_skill_engine_cuda.log and .json, train_speed_collectors_h200.log.
#   bash benchmarks/gpu_train.sh        # from the repository's root, on the GPU machine
# The machine has no network: the wheels uno_env needs beyond its image (gymnasium, pettingzoo) come in .whl/
# (benchmarks/gpu_install.sh installs them).
set -uo pipefail
cd "$(dirname "$0")/.."
source benchmarks/gpu_install.sh
timeout 480 taskset -c 0-11 $PY benchmarks/train_speed.py --no-sb3 --native-device cuda --repeats 1 \
  --native-num-envs 8192 --native-minibatch-size 32768 --native-overlap --native-steps 3145728 \
  --native-collectors 1 2 4 8 11 2>&1 | grep -v Warning >"$OUT/train_speed_collectors_h200.log" &
NUMBA_NUM_THREADS=2 timeout 500 taskset -c 12-15 $PY benchmarks/time_to_skill.py --device cuda --minutes 2 \
  --seeds 0 --eval-workers 4 --eval-games 2000 --final-games 8000 --snapshot-seconds 15 --out /tmp/tts-engine \
  -- --engine cuda --num-envs 8192 --minibatch-size 32768 >"$OUT/time_to_skill_engine_cuda.log" 2>&1
cp /tmp/tts-engine/native-classic-2p/time_to_skill.json "$OUT/time_to_skill_engine_cuda.json" 2>/dev/null
for log in /tmp/tts-engine/native-classic-2p/seed*/train.log; do  # the trainer's own lines, even after a timeout
  { echo "== $log"; grep -v Warning "$log" | tail -20; } >>"$OUT/time_to_skill_engine_cuda.log" 2>&1
done
wait
tail -4 "$OUT/train_speed_collectors_h200.log" "$OUT/time_to_skill_engine_cuda.log"
true
