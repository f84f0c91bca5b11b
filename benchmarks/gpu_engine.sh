#!/usr/bin/env bash
# One run on a lent GPU machine (16 cores): the engine on the GPU (benchmarks/engine_gpu.py: equivalence with the
# CPU engine, the engine's, collection's and the native PPO's steps a second) on cores 12-15, and beside it the CPU
# measurements that want many cores: benchmarks/ppo_signal.sh on cores 0-11 (five 5-minute runs) and, when
# present, benchmarks/dmc_vs_ppo.sh. Then ppo:classic against counter on the GPU (benchmarks/skill.py --engine cuda:
# games a second on $SKILL_DEALS deals, default 100,000, at 2 and 4 players) and the same 200 deals on both engines,
# compared deal for deal (into engine_gpu.log). Logs and results go to $OUT (default /tmp/gpu-out), at most 8 files.
#   bash benchmarks/gpu_engine.sh        # from the repository's root, on the GPU machine
# uno-train --engine cuda's time to skill and --collectors on many cores: benchmarks/gpu_train.sh.
# The machine has no network: the wheels uno_env needs beyond its image (gymnasium, pettingzoo) come in .whl/
# (benchmarks/gpu_install.sh installs them).
set -uo pipefail
cd "$(dirname "$0")/.."
source benchmarks/gpu_install.sh
MINUTES=${MINUTES:-5} OUT=/tmp/ppo_signal taskset -c 0-11 bash benchmarks/ppo_signal.sh >"$OUT/ppo_signal.log" 2>&1 &
signal=$!
if [ -f benchmarks/dmc_vs_ppo.sh ] && [ -z "${NO_DMC:-}" ]; then
  MINUTES=${MINUTES:-5} CORES=14-15 OUT=/tmp/dmc bash benchmarks/dmc_vs_ppo.sh >"$OUT/dmc_vs_ppo.log" 2>&1 &
fi
NUMBA_NUM_THREADS=2 timeout 420 taskset -c 12-13 $PY benchmarks/engine_gpu.py --out "$OUT" 2>&1 | grep -v Warning |
  tee "$OUT/engine_gpu.log"
for players in 2 4; do  # a policy network against counter's device rule, every game on the GPU
  NUMBA_NUM_THREADS=2 timeout 300 taskset -c 12-13 $PY benchmarks/skill.py --players $players --agent ppo:classic \
    --opponent counter --deals "${SKILL_DEALS:-100000}" --engine cuda 2>&1 | grep -v Warning |
    tee -a "$OUT/engine_gpu.log"
done
NUMBA_NUM_THREADS=2 timeout 300 taskset -c 12-13 $PY -c '
from uno_env.arena.device import deal_wins
for players in (2, 4):
    cpu, cuda = (deal_wins("ppo:classic", "counter", "classic", players, deals=200, seed=30_000, engine=engine)
                 for engine in ("cpu", "cuda"))
    differ = (cpu != cuda).nonzero()[0].tolist()
    print(f"{players} players, 200 deals on both engines:", f"differ in deals {differ}" if differ else "identical")
' 2>&1 | grep -v Warning | tee -a "$OUT/engine_gpu.log"
wait $signal
wait
cp /tmp/ppo_signal/ppo_signal.jsonl /tmp/dmc/dmc_vs_ppo.jsonl "$OUT"/ 2>/dev/null
tar -cf "$OUT/runs.tar" -C /tmp ppo_signal/runs dmc 2>/dev/null  # the policies and their logs: one file back
tail -3 "$OUT/ppo_signal.log"
true
