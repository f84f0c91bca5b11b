"""PettingZoo conformance: api_test, seed_test and render_test on every preset x {2, 3, 4, 10} players x the
three observation levels, and random episodes over several seeds with the engine's validator each step."""

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import uno_env
from uno_env import uno_v0
from uno_env.observation import LEVELS

PLAYERS = [2, 3, 4, 10]


@pytest.fixture(autouse=True)
def _quiet_dict_observation_warnings():
    # api_test warns that a dict observation "probably should be" a Box: PettingZoo's classic envs do the same.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("variant", uno_env.PRESETS)
def test_api_and_seed(variant, players, level):
    api_test(uno_env.env(variant=variant, num_players=players, observation=level), num_cycles=60)
    seed_test(lambda: uno_env.env(variant=variant, num_players=players, observation=level), num_cycles=60)


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("variant", uno_env.PRESETS)
def test_render(variant, players, capsys):
    render_test(lambda render_mode=None: uno_env.env(variant=variant, num_players=players, render_mode=render_mode))
    assert "UNO " + variant in capsys.readouterr().out  # human mode printed the table


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("variant", uno_env.PRESETS)
def test_random_episodes_stay_valid_and_in_space(variant, level):
    env = uno_env.raw_env(variant=variant, num_players=4, observation=level, uno_call="explicit")
    space = env.observation_space("player_0")
    for seed in (1, 2, 3):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for steps, agent in enumerate(env.agent_iter()):
            observation, _, termination, truncation, info = env.last()
            assert space.contains(observation) and info == {}
            env.unwrapped.game.check(0)
            if termination or truncation:
                env.step(None)
                continue
            others = [a for a in env.agents if a != agent]
            assert all(not env.observe(a)["action_mask"].any() for a in others)
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(rng.choice(legal)))
            if steps > 400:
                break


def test_registry_module_and_metadata():
    # the module PettingZoo's registry (1.27 on: tests/checks/test_compat.py) makes envs with; 1.24 has no make
    made = uno_v0.env(variant="swap", num_players=3)
    assert made.unwrapped.metadata["name"] == "uno_v0"
    assert made.unwrapped.rules.preset == "swap" and made.unwrapped.num_players == 3
    assert uno_v0.env is uno_env.env and uno_v0.raw_env is uno_env.raw_env
