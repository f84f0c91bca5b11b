"""A plain install (`pip install uno-env`, no extras): the console scripts run in a fresh interpreter whose imports of
torch, Stable-Baselines3, sb3-contrib, TensorBoard, Ray, OpenSpiel and Flask fail as they do where those are not
installed (a `sys.meta_path` finder, put in by a sitecustomize). Every command's --help works; what needs an extra
says which in one line on stderr and exits 2; the baselines and the gymnasium env work."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
MISSING = tuple("torch tensorboard stable_baselines3 sb3_contrib ray pyspiel open_spiel flask waitress".split())

SITECUSTOMIZE = f"""
import sys


class PlainInstall:
    \"\"\"Imports of the extras' modules fail as where they are not installed.\"\"\"

    missing = {MISSING!r}

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in self.missing:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, PlainInstall())
"""


@pytest.fixture(scope="module")
def plain_env(tmp_path_factory) -> dict[str, str]:
    """The environment of a plain install's interpreter (its sitecustomize blocks the extras)."""
    folder = tmp_path_factory.mktemp("plain")
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return {**os.environ, "PYTHONPATH": str(folder)}


def run(plain_env, *command: str, cwd: Path | None = None, stdin: str = "") -> subprocess.CompletedProcess:
    script = BIN / command[0]
    return subprocess.run([str(script), *command[1:]], env=plain_env, cwd=cwd, input=stdin, capture_output=True,
                          text=True, timeout=300)  # fmt: skip


def one_line(result: subprocess.CompletedProcess, extra: str) -> str:
    """The single stderr line of a command refused for a missing extra, checked: exit 2, the extra named."""
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert result.stderr.count("\n") == 1 and result.stderr.endswith("\n"), result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    assert f'pip install "uno-env[{extra}]"' in result.stderr, result.stderr
    return result.stderr


def test_the_extras_are_missing_in_the_plain_interpreter(plain_env):
    check = (
        "import importlib\n"
        f"for module in {MISSING!r}:\n"
        "    try:\n"
        "        importlib.import_module(module)\n"
        "    except ModuleNotFoundError:\n"
        "        continue\n"
        "    raise SystemExit(module + ' imported')\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", check], env=plain_env, capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "ok", result.stderr[-2000:]


@pytest.mark.parametrize("command", ["uno-train", "uno-train-dmc", "uno-train-sb3", "uno-train-rllib", "uno-arena",
                                     "uno-play", "uno-replay", "uno-bench"])
def test_every_command_shows_its_help_without_extras(plain_env, command):
    result = run(plain_env, command, "--help")
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith(f"usage: {command} ")


@pytest.mark.parametrize(
    "command, extra",
    [("uno-train", "train"), ("uno-train-dmc", "train"), ("uno-train-sb3", "train"), ("uno-train-rllib", "rllib")],
)
def test_a_trainer_run_names_its_extra_in_one_line(plain_env, tmp_path, command, extra):
    err = one_line(run(plain_env, command, "--out", str(tmp_path / "out")), extra)
    assert err.startswith(f"{command}: error: training needs ")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "agent, extra",
    [("ppo:classic", "train"), ("sb3:model.zip", "train"), ("rllib:checkpoint", "rllib"),
     ("openspiel-ismcts", "openspiel"), ("openspiel-ismcts:10", "openspiel")],
)  # fmt: skip
def test_an_agent_whose_extra_is_missing_is_named_in_one_line(plain_env, tmp_path, agent, extra):
    arena = run(plain_env, "uno-arena", "--agents", agent, "random", "--games", "2", "--no-progress",
                "--out", str(tmp_path / "out"))  # fmt: skip
    assert one_line(arena, extra).startswith(f"uno-arena: error: {agent} needs ")
    play = run(plain_env, "uno-play", "--opponents", agent, stdin="q\n")
    assert one_line(play, extra).startswith(f"uno-play: error: {agent} needs ")


def test_uno_web_names_the_web_extra_in_one_line(plain_env):
    assert run(plain_env, "uno-web", "--help").returncode == 0
    one_line(run(plain_env, "uno-web", "--port", "0"), "web")


def test_the_baselines_play_and_the_gymnasium_env_works(plain_env, tmp_path):
    arena = run(plain_env, "uno-arena", "--agents", "counter", "random", "--games", "4", "--no-progress",
                "--out", str(tmp_path / "out"))  # fmt: skip
    assert arena.returncode == 0, arena.stderr[-2000:]
    assert (tmp_path / "out" / "tournament.json").is_file()
    check = (
        "import sys, gymnasium, uno_env\n"
        "from uno_env.wrappers import UnoSingleAgentEnv\n"
        "env = gymnasium.make('uno_env/UnoSingleAgent-v0', variant='swap', num_players=3)\n"
        "obs, info = env.reset(seed=0)\n"
        "obs, reward, terminated, truncated, info = env.step(int(info['action_mask'].argmax()))\n"
        "assert isinstance(env.unwrapped, UnoSingleAgentEnv)\n"
        "assert not {'torch', 'stable_baselines3', 'sb3_contrib'} & set(sys.modules)\n"
        "from uno_env.wrappers import UnoSB3VecEnv\n"
        "try:\n"
        "    UnoSB3VecEnv('classic', 2, 4)\n"
        "except ModuleNotFoundError as error:\n"
        "    print(error)\n"
    )
    result = subprocess.run([sys.executable, "-c", check], env=plain_env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    says = 'UnoSB3VecEnv needs stable_baselines3, from the train extra: pip install "uno-env[train]"'
    assert result.stdout.strip() == says
