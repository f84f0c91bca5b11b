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
# The oldest pettingzoo uno-env supports (AgileRL pins one below 1.27), beside the venv's own, for tests/test_compat.py.
if [ ! -d .venv/compat/pettingzoo-1.24 ]; then
  pip_install --no-deps --target .venv/compat/pettingzoo-1.24 pettingzoo==1.24.3
fi
