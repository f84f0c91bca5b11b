"""uno-env works with the oldest pettingzoo it supports (1.24, which has no env registry; AgileRL pins below 1.27):
`scripts/setup.sh` installs pettingzoo 1.24.3 beside the venv's own, and a fresh interpreter runs PettingZoo's
api_test on it."""

import subprocess
import sys
from pathlib import Path

OLD_PETTINGZOO = Path(__file__).resolve().parents[1] / ".venv" / "compat" / "pettingzoo-1.24"

CHECK = """
import pettingzoo, uno_env
from pettingzoo.test import api_test
assert pettingzoo.__version__ == "1.24.3", pettingzoo.__version__
assert not hasattr(pettingzoo, "register")
for variant, players in (("classic", 2), ("unocorns", 4)):
    api_test(uno_env.env(variant=variant, num_players=players), num_cycles=100)
from uno_env import uno_v0
uno_v0.env().reset(seed=1)
print("pettingzoo", pettingzoo.__version__, "ok")
"""


def test_works_with_pettingzoo_1_24():
    assert OLD_PETTINGZOO.is_dir(), f"{OLD_PETTINGZOO} is missing: run scripts/setup.sh"
    result = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", CHECK],
        env={"PYTHONPATH": str(OLD_PETTINGZOO), "PATH": "/usr/bin:/bin", "SDL_VIDEODRIVER": "dummy"},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert "pettingzoo 1.24.3 ok" in result.stdout


def test_registers_with_pettingzoo_where_it_has_a_registry():
    import pettingzoo

    env = pettingzoo.make("aec", "uno_env/uno_v0", variant="swap", num_players=3)  # the setup's pettingzoo: 1.27+
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == "uno_v0"
