# What the scripts for a lent GPU machine share (sourced by gpu_measure.sh and gpu_hidden_hands.sh, after they set
# `here`, their folder): $OUT (default /tmp/gpu-out, made), $DEVICE (default cuda), $PY (default python3), the
# environment every run wants, /tmp as the working folder, `stamp` (a timed heading in the log) and `warm_up` (one
# short native PPO run that compiles the kernels; its arguments go first, e.g. --players 4).
OUT="${OUT:-/tmp/gpu-out}"
DEVICE="${DEVICE:-cuda}"
PY="${PY:-python3}"
mkdir -p "$OUT"
export OMP_WAIT_POLICY=PASSIVE PYTHONUNBUFFERED=1
cd /tmp  # not the repository: its uno_env/ folder would shadow the installed package
stamp() { echo "== $(date +%T) $*"; }
warm_up() {
  stamp warm-up: compile the kernels once
  $PY -m uno_env.train.native_ppo "$@" --total-steps 8192 --num-envs 256 --rollout-steps 32 --minibatch-size 2048 \
    --eval-games 20 --out /tmp/warm --no-progress --device "$DEVICE"
}
