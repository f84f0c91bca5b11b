#!/usr/bin/env bash
# Create .venv (once) and install the project with its test tools and the RLlib extra, pinned by constraints.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
pip_install() { .venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt "$@"; }
pip_install torch  # first: the pinned CPU build, before anything that depends on torch
pip_install -e ".[test,rllib]"  # rllib: Ray and RLlib, whose tests run in the normal suite
