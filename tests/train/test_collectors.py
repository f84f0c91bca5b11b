"""Collection across worker processes (`--collectors N`): each shard's columns of the shared rollout are what the
shard's collector writes in this process, the learner trains on them, and a worker that dies stops the run with a
line that names it rather than hanging it."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
import torch

from uno_env.agents.policy import PolicyNetwork
from uno_env.train import native_ppo
from uno_env.train.aids import Aids
from uno_env.train.batch import Rollout
from uno_env.train.collectors import SHARD_SEED_STRIDE, ProcessCollectors, shard_bounds, shard_collector
from uno_env.train.league import League

SMALL = [
    "--num-envs", "24", "--rollout-steps", "6", "--minibatch-size", "48", "--epochs", "1", "--hidden", "16",
    "--league", "greedy:1", "self:1", "--imitate", "counter", "--imitate-weight", "0.5", "--no-progress",
]  # fmt: skip


def fields(rollout) -> dict[str, torch.Tensor]:
    named = {f.name: getattr(rollout, f.name) for f in dataclasses.fields(rollout) if f.name != "aids"}
    return {**named, **{f"aid {key}": value for key, value in rollout.aids.items()}}


def test_each_worker_fills_its_columns_as_its_shard_would_here(tmp_path):
    config = native_ppo.parse_args([*SMALL, "--collectors", "2", "--rollout-steps", "40", "--out", str(tmp_path)])
    network = PolicyNetwork(config.observation, config.players, config.hidden)
    aids = Aids.build(config, "cpu")
    league = League(config, network, np.random.default_rng(0))
    collectors = ProcessCollectors(config, league, network, aids, reset_seed := 5)
    try:
        shared = collectors.new_rollout(network)
        collectors.collect(shared, network, aids, imitating=False, fraction=0.25, kickstart=True)
        wins, games = collectors.take_episodes()
        here = Rollout.empty(config.rollout_steps, config.num_envs, network.input_size, shared.masks.shape[2], {},
                             "cpu", imitated=True)  # filled below by the same shards in this process
        here_games = 0
        for shard, (start, stop) in enumerate(shard_bounds(config.num_envs, config.collectors)):
            torch.manual_seed(config.seed + shard * SHARD_SEED_STRIDE)
            collector = shard_collector(config, shard, stop - start, network, aids, reset_seed)
            collector.league.use_snapshots(league.snapshots)
            collector.collect(here.columns(start, stop), network, aids, False, 0.25, True)
            here_games += collector.take_episodes()[1]
        assert games == here_games > 0 and 0 <= wins <= games
        for name, value in fields(shared).items():
            assert torch.equal(value, fields(here)[name]), f"{name} differs"
        assert (shared.imitated >= 0).all() and shared.masks.any(-1).all()  # every column written
        assert not torch.equal(shared.obs[:, :12], shared.obs[:, 12:])  # the shards deal other games

        collectors.processes[1].kill()
        collectors.processes[1].join()
        with pytest.raises(RuntimeError, match=r"collector 1 stopped \(exit code -9\)"):
            collectors.collect(shared, network, aids, imitating=False, fraction=0.5)
        assert not collectors.processes  # the others were told to stop
    finally:
        collectors.close()


def test_a_run_with_two_collectors_imitates_overlaps_and_trains(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    config = native_ppo.parse_args([*SMALL, "--collectors", "2", "--overlap", "--imitate-steps", "144",
                                    "--total-steps", "720", "--snapshot-every", "1", "--eval-games", "10",
                                    "--eval-every", "0", "--out", str(tmp_path)])  # fmt: skip
    summary = native_ppo.train(config)
    assert summary["steps"] == 720 and summary["updates"] == 5
    logged = EventAccumulator(str(tmp_path / "tensorboard")).Reload()
    assert len(logged.Scalars("loss/imitation_loss")) == 1 and len(logged.Scalars("loss/policy_loss")) == 4
    assert len(logged.Scalars("episodes/league_win_rate")) >= 4
    assert len(torch.load(tmp_path / "checkpoint.pt", weights_only=True)["snapshots"]) >= 5


@pytest.mark.parametrize(("flags", "message"), [
    (["--collectors", "5"], r"--collectors 5 needs num_envs a multiple of 5 and at least 10 .*got 24"),
    (["--collectors", "24"], r"at least 48 \(a game for every league opponent in each shard\), got 24"),
    (["--collectors", "2", "--paired-deals", "--num-envs", "18"], r"a multiple of 4 and at least 8"),
    (["--collectors", "2", "--engine", "cuda"], r"--collectors splits the CPU engine's games.*--engine cpu"),
])  # fmt: skip
def test_collectors_that_cannot_split_the_games_are_refused_in_one_line(flags, message, capsys):
    with pytest.raises(SystemExit):
        native_ppo.parse_args([*SMALL, *flags])
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and re.search(message, error), error
