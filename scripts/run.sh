#!/usr/bin/env bash
# Set everything up, then run the main job: for now, the engine's throughput benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python benchmarks/engine_speed.py "$@"
