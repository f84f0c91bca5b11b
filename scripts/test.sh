#!/usr/bin/env bash
# Set everything up, then lint and run the whole test suite on two pytest-xdist workers (both cores of the CI
# machine; the numba kernels compile once per worker on a fresh clone). Extra arguments go to pytest (-n 0: one process).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/python -m pytest -n 2 --dist worksteal "$@"
