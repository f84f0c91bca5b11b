#!/usr/bin/env bash
# Create .venv (once) and install the project with its test tools and the RLlib extra, pinned by constraints.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
pip_install() { .venv/bin/python -m pip install -q --disable-pip-version-check -c constraints.txt "$@"; }
pip_install torch  # first: the pinned CPU build, before anything that depends on torch
pip_install -e ".[test,rllib,openspiel]"  # rllib, openspiel: their tests run in the normal suite
# The oldest pettingzoo uno-env supports (AgileRL pins one below 1.27), beside the venv's own, for tests/checks/test_compat.py.
if [ ! -d .venv/compat/pettingzoo-1.24 ]; then
  pip_install --no-deps --target .venv/compat/pettingzoo-1.24 pettingzoo==1.24.3
fi
# Headless Chromium and its driver for the browser tests (tests/play/test_web.py), from Debian: only when missing.
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
  :
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
else
  echo "setup.sh: chromium and chromedriver are missing and cannot be installed here (needs root and apt-get):" \
    "install the packages chromium and chromium-driver for tests/play/test_web.py" >&2
fi
