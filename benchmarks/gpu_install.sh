# What gpu_engine.sh and gpu_train.sh share (sourced from the repository's root): $OUT (default /tmp/gpu-out, made),
# $PY (default python3), the environment every run wants, and uno_env installed with the wheels it needs beyond the
# machine's image (gymnasium, pettingzoo: the machine has no network, they come in .whl/); setup.log says what is
# installed and which card there is.
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
export OMP_WAIT_POLICY=PASSIVE PYTHONUNBUFFERED=1
PY=${PY:-python3}
{
  $PY -m pip install -q --no-index --no-deps .whl/*.whl
  $PY -m pip install -q --no-deps --no-build-isolation -e .
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  $PY -m pip list 2>/dev/null | grep -i -E "^(numba|numba-cuda|torch|numpy) "
} >"$OUT/setup.log" 2>&1
