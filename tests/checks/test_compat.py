"""uno-env beside other libraries. It works with the oldest pettingzoo it supports (1.24, which has no env registry;
AgileRL pins below 1.27): `scripts/setup.sh` installs pettingzoo 1.24.3 beside the venv's own, and fresh
interpreters run PettingZoo's api_test and the project's PettingZoo test files on it. The single-agent env is
registered with gymnasium, so `gymnasium.make`, `gymnasium.make_vec`, SB3's `make_vec_env` and the env checkers
reach it by id."""

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import uno_env
from uno_env.wrappers import UnoSingleAgentEnv

ROOT = Path(__file__).resolve().parents[2]
OLD_PETTINGZOO = ROOT / ".venv" / "compat" / "pettingzoo-1.24"
OLD_ENV = {"PYTHONPATH": str(OLD_PETTINGZOO), "PATH": "/usr/bin:/bin", "SDL_VIDEODRIVER": "dummy",
           **{name: os.environ[name] for name in ("NUMBA_OPT", "NUMBA_CACHE_DIR") if name in os.environ}}  # fmt: skip
# (the tests' compiled kernels: see tests/conftest.py)

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
        [sys.executable, "-W", "ignore", "-c", CHECK], env=OLD_ENV, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "pettingzoo 1.24.3 ok" in result.stdout


def test_the_pettingzoo_test_files_pass_on_pettingzoo_1_24():
    """tests/uno_env/test_aec.py whole, and tests/uno_env/test_aec_pettingzoo_api.py for two variants (the others
    differ only in their rules, not in what they ask of pettingzoo), in the interpreter of the test above (where
    `pettingzoo.make` does not exist): none of them may lean on what only newer pettingzoo has."""
    assert OLD_PETTINGZOO.is_dir(), f"{OLD_PETTINGZOO} is missing: run scripts/setup.sh"
    files = [str(ROOT / "tests" / "uno_env" / name) for name in ("test_aec_pettingzoo_api.py", "test_aec.py")]
    two_variants = "not test_aec_pettingzoo_api or classic or unocorns"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-k", two_variants, *files],
        env=OLD_ENV, cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:]
    counts = re.search(r"(\d+) passed, (\d+) deselected", result.stdout)
    assert counts and int(counts[1]) > 100 and int(counts[2]) > 50, result.stdout[-500:]
    assert " failed" not in result.stdout


def test_registers_with_pettingzoo_where_it_has_a_registry():
    import pettingzoo

    env = pettingzoo.make("aec", "uno_env/uno_v0", variant="swap", num_players=3)  # the setup's pettingzoo: 1.27+
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == "uno_v0"


# ------------------------------------------------------------------------------------------ gymnasium by id
@pytest.fixture
def strict_warnings():
    """Every warning an error: the registered env must make none of them."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def test_the_single_agent_env_is_made_by_its_gymnasium_id(strict_warnings):
    assert uno_env.SINGLE_AGENT_ENV_ID == "uno_env/UnoSingleAgent-v0"
    env = gymnasium.make("uno_env/UnoSingleAgent-v0", variant="unocorns", num_players=3, learner_seat=1)
    assert isinstance(env.unwrapped, UnoSingleAgentEnv) and env.unwrapped.learner_seat == 1
    assert env.unwrapped.venv.rules.preset == "unocorns" and env.unwrapped.venv.num_players == 3
    observation, info = env.reset(seed=4)
    assert env.observation_space.contains(observation)
    for _ in range(200):  # the passive checker that gymnasium.make adds watches every step
        observation, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if terminated or truncated:
            observation, info = env.reset()
    default = gymnasium.make("uno_env/UnoSingleAgent-v0")
    assert (default.unwrapped.venv.rules.preset, default.unwrapped.venv.num_players) == ("classic", 2)
    vector = gymnasium.make_vec("uno_env/UnoSingleAgent-v0", num_envs=3, vectorization_mode="sync", variant="swap")
    swap = UnoSingleAgentEnv("swap", 2)
    assert vector.reset(seed=0)[0].shape == (3, *swap.observation_space.shape)


@pytest.mark.parametrize("render_mode", [None, "ansi", "rgb_array"])
def test_the_registered_env_passes_gymnasiums_env_checker(strict_warnings, render_mode):
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("uno_env/UnoSingleAgent-v0", variant="swap", num_players=3, render_mode=render_mode)
    check_env(env.unwrapped)  # its own checks, rendering included
    env.reset(seed=0)
    frame = env.render()
    if render_mode == "rgb_array":
        assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    elif render_mode == "ansi":
        assert frame.startswith("UNO swap, 3 players")
    else:
        assert frame is None
    with pytest.raises(ValueError, match="render_mode must be None, 'ansi' or 'rgb_array', got 'human'"):
        UnoSingleAgentEnv(render_mode="human")


def test_sb3_builds_and_trains_on_the_registered_env_by_id(strict_warnings):
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_checker import check_env as sb3_check_env
    from stable_baselines3.common.env_util import make_vec_env

    # make_vec_env asks for render_mode="rgb_array" first: the env has it, so nothing falls back or warns
    vec_env = make_vec_env("uno_env/UnoSingleAgent-v0", n_envs=2, seed=0, env_kwargs={"variant": "swap"})
    assert vec_env.reset().shape == (2, vec_env.observation_space.shape[0])
    masks = get_action_masks(vec_env)  # through gymnasium's wrappers and SB3's Monitor
    assert masks.shape == (2, 77) and masks.any(axis=1).all()
    model = MaskablePPO("MlpPolicy", vec_env, n_steps=16, batch_size=32, n_epochs=1, seed=0, device="cpu")
    assert model.learn(32).num_timesteps == 32
    sb3_check_env(gymnasium.make("uno_env/UnoSingleAgent-v0").unwrapped, warn=True)
