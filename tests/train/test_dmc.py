"""The Deep Monte-Carlo learner with tiny budgets: its action encoding, its Q-targets, a run, a resume, and its
policy file seated through the registry."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from uno_env import actions as A
from uno_env import cards as C
from uno_env.agents.dmc_agent import ACTION_ENCODING, DMC_FORMAT, DMCAgent, QNetwork, action_features
from uno_env.agents.registry import make_agent, parse_agent
from uno_env.arena.tournament import play_games
from uno_env.train import dmc
from uno_env.train.checkpoint import load_checkpoint
from uno_env.train.league import League

TINY = [
    "--num-envs", "64", "--rollout-steps", "8", "--minibatch-size", "256", "--hidden", "32", "--eval-games", "20",
    "--eval-every", "2", "--checkpoint-every", "2", "--snapshot-every", "1", "--league", "greedy:1", "self:1",
    "--imitate-steps", "1024", "--no-progress", "--device", "cpu",
]  # fmt: skip


@pytest.fixture(scope="module")
def dmc_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("dmc")
    summary = dmc.train(dmc.build_parser().parse_config([*TINY, "--total-steps", "2048", "--out", str(out)]))
    return out, summary


def test_the_action_encoding_names_the_card_or_colour_of_every_action():
    features = action_features()
    colour = A.NUM_ACTIONS
    wild = colour + C.NUM_COLORS + C.RANKS_PER_COLOR
    assert features.shape == (A.NUM_ACTIONS, wild + 1)
    assert (features[:, : A.NUM_ACTIONS] == np.eye(A.NUM_ACTIONS)).all()  # the id, one-hot
    blue_skip = C.RANKS_PER_COLOR + 10
    assert features[blue_skip, colour:].nonzero()[0].tolist() == [1, C.NUM_COLORS + 10]  # blue, Skip
    assert features[5, colour:].nonzero()[0].tolist() == [0, C.NUM_COLORS + 5]  # red 5
    assert features[C.NUM_COLORED_KINDS, colour:].nonzero()[0].tolist() == [wild - colour]  # a wild card: no colour
    assert features[A.COLOR_BASE + 2, colour:].nonzero()[0].tolist() == [2]  # the colour green named
    assert not features[A.DRAW, colour:].any() and not features[A.PASS, colour:].any()
    assert len({row.tobytes() for row in features}) == A.NUM_ACTIONS


def test_q_values_score_every_legal_action_in_one_pass_as_each_pair_alone():
    network = QNetwork("knowledge", 2, (16, 8))
    obs = torch.randint(0, 3, (5, network.observation_size), dtype=torch.int8)
    masks = torch.rand(5, A.NUM_ACTIONS) < 0.2
    masks[:, A.DRAW] = True
    q = network.q_values(obs, masks)
    rows, ids = masks.nonzero(as_tuple=True)
    assert torch.allclose(q[rows, ids], network.q_taken(obs[rows], ids), atol=1e-6)
    assert (q[~masks] < -1e8).all()
    scores, values = network(obs, masks)  # as a policy network: greedy on Q, the value the best legal Q
    assert (scores.argmax(-1) == q.argmax(-1)).all() and torch.allclose(values, q.max(-1).values)


def test_returns_to_go_sum_each_episodes_rewards_from_each_decision_on():
    episodes = np.array([4, 7, 4, 7, 4, 9])
    rewards = np.array([0.5, 0.0, 0.0, -1.0, 1.0, 2.0])
    assert dmc.returns_to_go(episodes, rewards).tolist() == [1.5, -1.0, 1.0, -1.0, 1.0, 2.0]


def test_every_decision_of_an_episode_gets_the_episodes_final_return():
    """Games played with random legal moves against `greedy`: each harvested decision's target is its game's final
    reward (the `win` reward comes at the end only), and decisions of unfinished games wait for the next harvest."""
    config = dmc.DMCConfig(num_envs=16, league=("greedy:1",))
    league = League(config, QNetwork("knowledge", 2, (8,)), np.random.default_rng(0))
    obs, masks = league.reset(seed=3)
    episodes, rng = dmc.Episodes(16), np.random.default_rng(1)
    played: list[list[tuple[bytes, int]]] = [[] for _ in range(16)]  # each game's decisions in its current episode
    expected: list[list[tuple[bytes, int, float]]] = [[] for _ in range(16)]  # finished episodes' decisions
    harvested: list[list[tuple[bytes, int, float]]] = [[] for _ in range(16)]
    for step in range(240):
        actions = A.random_legal_actions(masks, rng)
        for g in range(16):
            played[g].append((obs[g].tobytes(), int(actions[g])))
        next_obs, masks, rewards, dones, _ = league.step(actions)
        episodes.add(obs, actions, rewards, dones)
        for g in range(16):
            if dones[g]:
                expected[g] += [(seen, action, float(rewards[g])) for seen, action in played[g]]
                played[g] = []
            else:
                assert rewards[g] == 0.0
        obs = next_obs
        if step % 80 == 79:
            got = episodes.harvest()
            for row, action, game, target in zip(got["obs"], got["actions"], got["games"], got["returns"],
                                                 strict=True):  # fmt: skip
                harvested[game].append((row.tobytes(), int(action), float(target)))
    assert harvested == expected and sum(map(len, expected)) > 500
    assert {target for game in expected for _, _, target in game} == {-1.0, 1.0}
    assert len(np.concatenate(episodes.rows["actions"])) == sum(map(len, played))  # the unfinished wait


def test_a_short_run_writes_the_training_rooms_files(dmc_run):
    out, summary = dmc_run
    assert summary["steps"] == 2048 and summary["updates"] == 4  # 64 games x 8 decisions per update
    rate, low, high = summary["evaluation"]["counter"]
    assert 0.0 <= low <= rate <= high <= 1.0
    assert all((out / name).is_file() for name in ("checkpoint.pt", "policy.pt", "learning_curve.png"))
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    logged = EventAccumulator(str(out / "tensorboard")).Reload().Tags()["scalars"]
    assert {"dmc/q_loss", "dmc/steps_per_second", "dmc/imitating", "eval/win_rate_vs_counter"} <= set(logged)
    data = torch.load(out / "policy.pt", weights_only=True)
    assert (data["format"], data["action_encoding"], data["hidden"]) == (DMC_FORMAT, ACTION_ENCODING, [32])
    assert data["trained"]["steps"] == 2048 and data["trained"]["commands"][0].startswith("python -m uno_env.train.dmc")


def test_a_run_resumes_from_its_checkpoint(dmc_run, tmp_path):
    out, _ = dmc_run
    state = load_checkpoint(out / "checkpoint.pt", dmc.DMCConfig)
    assert state["config"]["imitate"] == "counter" and state["critic"] is None and len(state["snapshots"]) == 5
    with pytest.raises(ValueError, match="unknown settings"):
        load_checkpoint(out / "checkpoint.pt")  # uno-train's settings: not a PPO checkpoint
    resumed_out = tmp_path / "resumed"
    argv = ["--resume", str(out / "checkpoint.pt"), "--total-steps", "4096", "--out", str(resumed_out),
            "--no-progress", "--device", "cpu"]  # fmt: skip
    summary = dmc.train(dmc.build_parser().parse_config(argv))
    assert summary["steps"] == 4096 and summary["updates"] == 8
    data = torch.load(resumed_out / "policy.pt", weights_only=True)
    assert data["hidden"] == [32] and len(data["trained"]["commands"]) == 2
    assert len(load_checkpoint(resumed_out / "checkpoint.pt", dmc.DMCConfig)["history"]) == 4  # updates 2, 4, 6, 8


def test_the_policy_file_plays_through_the_registry(dmc_run):
    out, _ = dmc_run
    path = str(out / "policy.pt")
    assert parse_agent(f"dmc:{path}").file == path and not parse_agent(f"dmc:{path}").needs_trust
    agent = make_agent(f"dmc:{path}")
    assert isinstance(agent, DMCAgent) and agent.info["format"] == DMC_FORMAT
    records = play_games({"dmc": agent, "counter": make_agent("counter", seed=1)}, ["dmc", "counter"], "classic",
                         games=8, seed=11)  # fmt: skip
    assert len(records) == 8 and all(r.winners for r in records)
    again = play_games({"dmc": make_agent(f"dmc:{path}"), "counter": make_agent("counter", seed=1)},
                       ["dmc", "counter"], "classic", games=8, seed=11)  # fmt: skip
    assert [r.winners for r in again] == [r.winners for r in records]  # greedy: the same deals, the same games
    with pytest.raises(ValueError, match="not a uno-env policy file"):
        make_agent(f"ppo:{path}")
    with pytest.raises(ValueError, match="not a uno-env DMC policy file.*ppo:FILE.pt"):
        DMCAgent(QNetwork("knowledge", 2, (8,)).to_file_dict("classic") | {"format": "uno-env-policy-1"})


def test_the_command_shows_its_help_and_refuses_in_one_line(capsys):
    with pytest.raises(SystemExit) as stop:
        dmc.main(["--help"])
    assert stop.value.code == 0 and capsys.readouterr().out.startswith("usage: uno-train-dmc ")
    with pytest.raises(SystemExit) as stop:
        dmc.main(["--epsilon", "1.5"])
    error = capsys.readouterr().err
    assert stop.value.code == 2 and error.count("\n") == 1 and "--epsilon: must be a number from 0 to 1" in error


def test_bad_settings_are_refused_in_one_line():
    with pytest.raises(SystemExit):
        dmc.build_parser().parse_config(["--imitate", "ppo:classic"])
    with pytest.raises(ValueError, match="--imitate takes a baseline"):
        dmc.DMCConfig(imitate="ppo:classic").validate()
    with pytest.raises(ValueError, match="trains nothing"):
        dmc.DMCConfig(total_steps=10).validate()
