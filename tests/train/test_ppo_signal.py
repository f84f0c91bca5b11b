"""The native PPO's learning-signal flags: a kickstart weight that fades, an entropy floor, paired deals."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from uno_env import engine as E
from uno_env.train import native_ppo
from uno_env.train.league import League

TINY = [
    "--num-envs", "64", "--rollout-steps", "8", "--minibatch-size", "256", "--epochs", "1", "--hidden", "32",
    "--eval-games", "20", "--eval-every", "0", "--checkpoint-every", "100", "--snapshot-every", "1",
    "--league", "greedy:1", "self:1", "--no-progress",
]  # fmt: skip


def test_the_kickstart_weight_is_zero_while_imitating_then_falls_linearly_to_zero():
    config = native_ppo.Config(imitate="counter", imitate_steps=100, imitate_weight=2.0, imitate_decay_steps=1000)
    weights = [native_ppo.kickstart_weight(config, steps) for steps in (0, 99, 100, 350, 600, 1100, 5000)]
    assert weights == pytest.approx([0.0, 0.0, 2.0, 1.5, 1.0, 0.0, 0.0])
    assert native_ppo.kickstart_weight(native_ppo.Config(imitate="counter", imitate_steps=0), 0) == 0.0  # off


def test_the_entropy_boost_doubles_below_the_floor_up_to_its_cap_and_halves_back_above_it():
    boost, seen = 1.0, []
    for entropy in [0.1] * 7 + [0.9] * 7:
        boost = native_ppo.next_entropy_boost(boost, entropy, floor=0.5)
        seen.append(boost)
    assert seen == [2, 4, 8, 16, 32, 32, 32, 16, 8, 4, 2, 1, 1, 1]
    assert native_ppo.next_entropy_boost(8.0, 0.1, floor=0.0) == 1.0  # no floor: the coefficient as given


def test_bad_signal_settings_are_refused_in_one_line():
    with pytest.raises(ValueError, match="--imitate-weight needs --imitate"):
        native_ppo.Config(imitate_weight=1.0).validate()
    with pytest.raises(ValueError, match="multiple of players"):
        native_ppo.Config(players=4, num_envs=2046, minibatch_size=1024, paired_deals=True).validate()


def test_paired_deals_play_every_deal_from_every_seat_and_count_the_learners_wins():
    config = native_ppo.Config(players=3, num_envs=48, league=("greedy:1", "random:1"), paired_deals=True)
    network = native_ppo.PolicyNetwork(config.observation, config.players, (8,))
    league = League(config, network, np.random.default_rng(0))
    assert league.learner_seats == [0, 1, 2, 0, 1, 2] and league.deals == [0, 0, 0, 1, 1, 1]
    assert sum(venv.num_envs for _, venv, _ in league.groups) == 48
    obs, masks = league.reset(seed=5)
    venvs = [venv for _, venv, _ in league.groups]
    assert all(np.array_equal(venvs[0].seeds, venv.seeds) for venv in venvs[1:3])  # the same deals, three seats
    assert not np.array_equal(venvs[0].seeds, venvs[3].seeds)  # another league entry, other deals
    first = venvs[0].seeds.copy()
    rng, wins, ended_games = np.random.default_rng(1), 0, 0
    for _ in range(60):
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        obs, masks, rewards, dones, winners = league.step(actions)
        ended = winners > -2
        assert np.array_equal(ended, dones.astype(bool))
        assert (rewards[ended & (winners == 0)] > 0).all() and (rewards[ended & (winners > 0)] < 0).all()
        wins, ended_games = wins + int((winners == 0).sum()), ended_games + int(ended.sum())
    assert ended_games > 20 and 0 < wins < ended_games
    # every seat's copy of a game deals from one chain of seeds (the engine's next_episode_seed) from the same start
    for g in range(venvs[0].num_envs):
        chain = [int(first[g])]
        for _ in range(60):
            chain.append(int(E.next_episode_seed(np.uint64(chain[-1]))))
        assert all(int(venv.seeds[g]) in chain for venv in venvs[:3])
    assert any(venv.seeds[g] != first[g] for venv in venvs[:3] for g in range(venv.num_envs))  # deals went on


def test_a_run_with_every_signal_flag_fades_its_kickstart_and_raises_its_entropy_coefficient(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    config = native_ppo.parse_args([
        *TINY, "--imitate", "counter", "--imitate-steps", "512", "--imitate-weight", "2", "--imitate-decay-steps",
        "1024", "--entropy-floor", "10", "--paired-deals", "--total-steps", "2560", "--out", str(tmp_path),
    ])  # fmt: skip
    summary = native_ppo.train(config)
    assert summary["steps"] == 2560 and summary["updates"] == 5
    logged = EventAccumulator(str(tmp_path / "tensorboard")).Reload()
    assert len(logged.Scalars("loss/imitation_loss")) == 1  # 512 decisions of imitation: one update
    weights = [event.value for event in logged.Scalars("loss/kickstart_weight")]
    assert weights == pytest.approx([2.0, 1.0, 0.0, 0.0])  # at 512, 1024, 1536, 2048 decisions
    assert len(logged.Scalars("loss/kickstart_loss")) == 2  # only while the weight is above 0
    coefficients = [event.value for event in logged.Scalars("loss/entropy_coef")]
    assert coefficients == pytest.approx([0.01, 0.02, 0.04, 0.08])  # entropy is below 10 nats: doubled each update
    assert torch.load(tmp_path / "checkpoint.pt", weights_only=True)["steps"] == 2560
