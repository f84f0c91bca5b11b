"""RLlib and Ray: the env adapter, a tiny self-play PPO run whose checkpoint plays as an agent, and tournaments
spread over Ray workers giving the local runner's records seed for seed. One local Ray (2 CPUs) serves all."""

from __future__ import annotations

import json

import numpy as np
import pytest
import ray

from uno_env import observation as O
from uno_env.agents.registry import make_agent
from uno_env.agents.rllib_agent import METADATA_FILE, RLlibAgent
from uno_env.arena.tournament import main, run_tournament
from uno_env.train.rllib_ppo import Args, UnoRLlibEnv, train


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def trained(local_ray, tmp_path_factory):
    """Two PPO iterations on 2-player classic with one remote env runner; the summary and the checkpoint."""
    checkpoint = tmp_path_factory.mktemp("rllib") / "checkpoint"
    args = Args(
        players=2, observation="minimal", iterations=2, train_batch_size=256, minibatch_size=64, epochs=1,
        hidden=(32, 32), env_runners=1, out=checkpoint, checkpoint_every=1, eval_games=20, seed=3,
    )  # fmt: skip
    return train(args), checkpoint


def test_the_adapter_gives_rllib_masked_float_observations_and_the_games_rewards():
    env = UnoRLlibEnv({"variant": "classic", "num_players": 2, "observation": "minimal", "render_mode": "ansi"})
    observations, _ = env.reset(seed=11)
    rng = np.random.default_rng(0)
    returns = {"player_0": 0.0, "player_1": 0.0}
    for _ in range(10_000):
        (agent,) = observations  # one agent decides at a time
        obs = observations[agent]
        assert env.observation_space[agent].contains(obs)
        assert obs["observations"].dtype == np.float32 and obs["action_mask"].sum() >= 1
        legal = np.flatnonzero(obs["action_mask"])
        observations, rewards, terminated, truncated, _ = env.step({agent: int(rng.choice(legal))})
        for a, r in rewards.items():
            returns[a] += r
        if terminated["__all__"]:
            break
    assert sorted(returns.values()) == [-1.0, 1.0]  # zero-sum: the winner +1, the loser -1
    assert env.env.describe()["done"]
    winner = max(returns, key=returns.get)
    assert f"winners {winner}" in env.render()  # RLlib's own wrapper passes render() an argument PettingZoo refuses


def test_two_iterations_train_and_save_a_checkpoint(trained):
    summary, checkpoint = trained
    assert summary["iteration"] == 2 and summary["env_steps"] >= 2 * 256
    assert np.isfinite(summary["policy_loss"]) and np.isfinite(summary["vf_loss"])
    metadata = json.loads((checkpoint / METADATA_FILE).read_text())
    assert metadata["num_players"] == 2 and metadata["observation"] == "minimal"
    assert {k: metadata[k] for k in (O.DIGEST_KEY, O.FIELDS_KEY)} == O.layout_stamp("minimal", 2)
    assert (checkpoint / metadata["module_path"]).is_dir()
    # --eval-games played the policy against random through the tournament runner
    assert set(summary["eval"]) == {f"rllib:{checkpoint}", "random"}


def test_the_checkpoint_is_an_agent_that_picks_legal_actions(trained):
    _, checkpoint = trained
    spec = O.ObservationSpec("minimal", 2)
    rng = np.random.default_rng(1)
    observations = rng.integers(0, 3, (64, spec.size)).astype(np.int8)
    masks = (rng.random((64, 77)) < 0.1).astype(np.int8)
    masks[np.arange(64), rng.integers(0, 77, 64)] = 1
    masks[0] = 0
    masks[0, 42] = 1  # a single legal action
    for greedy in (True, False):
        agent = RLlibAgent(checkpoint, greedy=greedy, seed=0, trust=True)  # the checkpoint this test trained
        agent.bind(spec, None)
        actions = agent.act(observations, masks)
        assert actions.dtype == np.int64 and actions.shape == (64,)
        assert masks[np.arange(64), actions].all() and actions[0] == 42
    greedy_agent = RLlibAgent(checkpoint, greedy=True, trust=True)
    assert (greedy_agent.act(observations, masks) == greedy_agent.logits(observations, masks).argmax(axis=1)).all()
    # sampled (the default): reproducible for a seed, and distributed as the masked policy
    one = np.repeat(observations[1:2], 20_000, axis=0), np.repeat(masks[1:2], 20_000, axis=0)
    sampled = RLlibAgent(checkpoint, seed=5, trust=True).act(*one)
    assert (sampled == RLlibAgent(checkpoint, seed=5, trust=True).act(*one)).all()
    logits = greedy_agent.logits(one[0][:1], one[1][:1])[0]
    policy = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
    assert np.abs(np.bincount(sampled, minlength=77) / 20_000 - policy).max() < 0.02
    with pytest.raises(ValueError, match="trained on 2-player 'minimal' observations"):
        greedy_agent.bind(O.ObservationSpec("minimal", 3), None)


def test_a_checkpoint_plays_in_tournaments_here_and_on_ray_alike(trained, tmp_path, capsys):
    _, checkpoint = trained
    name = f"rllib:{checkpoint}"
    options = dict(games=20, seed=2, batch_size=8, chunk_games=10, progress=False, trust=True)  # two chunks
    local = run_tournament([name, "random"], **options)
    on_ray = run_tournament([name, "random"], ray_workers=1, **options)  # one worker: loading RLlib is the cost
    assert len(local.records) == 20 and all(name in record.lineup for record in local.records)
    assert local.records == on_ray.records
    code = main(["--agents", name, "greedy", "--games", "10", "--no-progress", "--out", str(tmp_path), "--trust"])
    assert code == 0 and "rllib:" in capsys.readouterr().out


def test_a_ray_tournament_gives_the_local_records_seed_for_seed(local_ray):
    # random and naive draw from their generators as the games are batched: the chunks fix that order
    options = dict(games=300, seed=9, batch_size=32, chunk_games=64, progress=False)
    local = run_tournament(["random", "naive", "greedy"], "classic", 3, **options)
    on_ray = run_tournament(["random", "naive", "greedy"], "classic", 3, ray_workers=2, **options)
    assert len(local.records) == 300 and local.records == on_ray.records
    assert local.table() == on_ray.table()
    rechunked = run_tournament(["random", "naive", "greedy"], "classic", 3, **{**options, "chunk_games": 96})
    assert rechunked.records != local.records  # so the equality above is no accident: chunks seed the agents


def test_bad_checkpoints_and_arguments_say_what_is_wrong(tmp_path, capsys):
    with pytest.raises(ValueError, match="no RLlib checkpoint folder"):
        make_agent(f"rllib:{tmp_path / 'missing'}")
    with pytest.raises(ValueError, match="not a checkpoint written by train/rllib_ppo.py"):
        make_agent(f"rllib:{tmp_path}")
    with pytest.raises(SystemExit):
        main(["--agents", f"rllib:{tmp_path}", "random", "--games", "4", "--no-progress", "--out", str(tmp_path)])
    assert "not a checkpoint" in capsys.readouterr().err
    with pytest.raises(ValueError, match="num_players must be an int from 2 to 10"):
        train(Args(players=11))
    with pytest.raises(ValueError, match="ray_workers must be at least 1"):
        run_tournament(["random"], games=4, ray_workers=-1, progress=False)
