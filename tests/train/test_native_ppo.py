"""The trainers with tiny budgets (train, checkpoint, resume, evaluate), trained agents, the shipped policies."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
import torch

from uno_env import PRESETS
from uno_env import observation as O
from uno_env.agents.policy import PolicyAgent, PolicyNetwork, load_policy_file, sample_actions, shipped_policies
from uno_env.agents.registry import make_agent
from uno_env.arena.tournament import main as arena_main
from uno_env.arena.tournament import play_games, run_tournament
from uno_env.vector import UnoVectorEnv

TINY_NATIVE = [
    "--num-envs", "64", "--rollout-steps", "8", "--minibatch-size", "256", "--epochs", "1", "--hidden", "32",
    "--eval-games", "20", "--eval-every", "2", "--checkpoint-every", "2", "--snapshot-every", "1",
    "--league", "greedy:1", "self:1", "--no-progress",
]  # fmt: skip


def learner_wins(records, name):
    return sum(1 for r in records for seat in r.winners if r.lineup[seat] == name)


@pytest.fixture(scope="module")
def native_run(tmp_path_factory):
    from uno_env.train import native_ppo

    out = tmp_path_factory.mktemp("native")
    config = native_ppo.parse_args([*TINY_NATIVE, "--total-steps", "2048", "--out", str(out)])
    summary = native_ppo.train(config)
    return out, summary


def test_native_ppo_trains_checkpoints_and_evaluates(native_run):
    out, summary = native_run
    assert summary["steps"] == 2048 and summary["updates"] == 4  # 64 games x 8 decisions per update
    assert summary["rollout_steps_per_second"] > summary["steps_per_second"] > 0  # collecting is part of training
    assert summary["device"] == ("cuda" if torch.cuda.is_available() else "cpu")  # auto: a GPU when there is one
    rate, low, high = summary["evaluation"]["counter"]
    assert 0.0 <= low <= rate <= high <= 1.0
    assert all((out / name).is_file() for name in ("checkpoint.pt", "policy.pt", "learning_curve.png"))
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    logged = EventAccumulator(str(out / "tensorboard")).Reload().Tags()["scalars"]
    assert {"speed/steps_per_second", "speed/rollout_steps_per_second", "eval/win_rate_vs_counter",
            "eval/win_rate_vs_counter_low", "eval/win_rate_vs_counter_high", "loss/learning_rate"} <= set(logged)
    data = load_policy_file(out / "policy.pt")
    assert data["variant"] == "classic" and data["num_players"] == 2 and data["hidden"] == [32]
    assert data["trained"]["steps"] == 2048


def test_native_ppo_overlaps_collection_with_the_update(tmp_path):
    """`--overlap`: the next rollout is collected in a thread during the update, acted by a copy of the network one
    update behind; the run trains as many updates as without it, learns, and its rollout outlives no update."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from uno_env.train import native_ppo

    config = native_ppo.parse_args([
        *TINY_NATIVE, "--overlap", "--imitate", "counter", "--imitate-steps", "1024", "--total-steps", "3072",
        "--out", str(tmp_path),
    ])  # fmt: skip
    summary = native_ppo.train(config)
    assert summary["steps"] == 3072 and summary["updates"] == 6
    logged = EventAccumulator(str(tmp_path / "tensorboard")).Reload()
    assert len(logged.Scalars("loss/imitation_loss")) == 2 and len(logged.Scalars("loss/policy_loss")) == 4
    assert len(logged.Scalars("episodes/league_win_rate")) >= 5  # read at every join, not only after the last
    state = torch.load(tmp_path / "checkpoint.pt", weights_only=True)
    assert len(state["snapshots"]) >= 6  # the first, one per update (snapshot_every 1), the imitation's end
    assert load_policy_file(tmp_path / "policy.pt")["trained"]["steps"] == 3072


def test_native_ppo_resumes_where_it_stopped(native_run, tmp_path):
    from uno_env.train import native_ppo

    out, _ = native_run
    before = torch.load(out / "checkpoint.pt", weights_only=True)  # data: tensors and plain values
    config = native_ppo.Config(resume=out / "checkpoint.pt", total_steps=4096, out=tmp_path, progress=False)
    summary = native_ppo.train(config)
    assert summary["updates"] == before["update"] + 4 and summary["steps"] == 4096
    after = torch.load(tmp_path / "checkpoint.pt", weights_only=True)
    assert tuple(after["config"]["hidden"]) == (32,)  # the checkpoint's settings, not the defaults
    assert not torch.equal(after["network"]["policy_head.weight"], before["network"]["policy_head.weight"])
    commands = load_policy_file(tmp_path / "policy.pt")["trained"]["commands"]
    assert len(commands) == 2 and commands == [*before["commands"], commands[-1]]  # the first command and the resume


def test_native_ppo_with_a_seer_critic_trains_and_resumes(tmp_path):
    """The privileged critic is a network of its own that reads seer rows; the policy file holds only the policy."""
    from uno_env.train import native_ppo

    config = native_ppo.parse_args([
        *TINY_NATIVE, "--critic", "seer", "--imitate", "counter", "--imitate-steps", "512", "--total-steps", "1024",
        "--out", str(tmp_path / "a"),
    ])  # fmt: skip
    assert native_ppo.train(config)["steps"] == 1024
    state = torch.load(tmp_path / "a" / "checkpoint.pt", weights_only=True)
    seer_size = O.observation_size("seer", 2)
    assert state["critic"]["trunk.0.weight"].shape == (32, seer_size)
    assert state["network"]["trunk.0.weight"].shape == (32, O.observation_size("knowledge", 2))
    assert load_policy_file(tmp_path / "a" / "policy.pt")["observation_size"] == O.observation_size("knowledge", 2)
    summary = native_ppo.train(native_ppo.Config(resume=tmp_path / "a" / "checkpoint.pt", total_steps=2048,
                                                 out=tmp_path / "b", progress=False))  # fmt: skip
    assert summary["steps"] == 2048
    after = torch.load(tmp_path / "b" / "checkpoint.pt", weights_only=True)
    assert not torch.equal(after["critic"]["value_head.weight"], state["critic"]["value_head.weight"])


def test_native_ppo_reads_the_belief_level_and_learns_the_hands_with_an_auxiliary_head(tmp_path):
    """`--observation belief` and `--hand-loss`: the head learns from the engine's hands (its loss falls), lives in
    the checkpoint for resuming, and leaves the policy file a plain belief-level policy that plays."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from uno_env.train import native_ppo

    config = native_ppo.parse_args([
        *TINY_NATIVE, "--observation", "belief", "--hand-loss", "1", "--learning-rate", "0.01", "--total-steps",
        "4096", "--checkpoint-every", "1", "--out", str(tmp_path / "a"),
    ])  # fmt: skip
    assert native_ppo.train(config)["steps"] == 4096
    state = torch.load(tmp_path / "a" / "checkpoint.pt", weights_only=True)
    assert state["hand_head"]["linear.weight"].shape == (59, 32)  # one other seat x 59 kinds, from the trunk
    data = load_policy_file(tmp_path / "a" / "policy.pt")
    assert data["observation"] == "belief" and not any("hand" in key for key in data["state_dict"])
    logged = EventAccumulator(str(tmp_path / "a" / "tensorboard")).Reload().Scalars("loss/hand_loss")
    assert logged[-1].value < logged[0].value
    agent = PolicyAgent(tmp_path / "a" / "policy.pt")
    records = play_games({"p": agent, "greedy": make_agent("greedy")}, ["p", "greedy"], games=20, seed=1)
    assert len(records) == 20
    summary = native_ppo.train(native_ppo.Config(resume=tmp_path / "a" / "checkpoint.pt", total_steps=5120,
                                                 out=tmp_path / "b", progress=False))  # fmt: skip
    assert summary["steps"] == 5120
    plain = native_ppo.parse_args([*TINY_NATIVE, "--total-steps", "512", "--out", str(tmp_path / "p")])
    native_ppo.train(plain)
    assert torch.load(tmp_path / "p" / "checkpoint.pt", weights_only=True)["hand_head"] is None
    state["hand_head"] = None  # settings with a hand loss, but no head: refused before anything trains
    torch.save(state, tmp_path / "broken.pt")
    with pytest.raises(ValueError, match="holds no hand head"):
        native_ppo.train(native_ppo.Config(resume=tmp_path / "broken.pt", total_steps=8192, out=tmp_path / "q",
                                           progress=False))  # fmt: skip


def test_native_ppo_trains_a_seer_policy_and_distils_it_into_an_honest_one_with_oracle_guiding(tmp_path):
    """`--observation seer` trains a privileged policy; `--teacher` distils it (the KL term falls as the learner
    follows it) while `--oracle` feeds the hands, dropped out to nothing by the end: the policy file is a plain
    knowledge-level policy, the oracle layer lives in the checkpoint only, and a resume keeps both aids."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from uno_env.train import native_ppo

    native_ppo.train(native_ppo.parse_args([
        *TINY_NATIVE, "--observation", "seer", "--total-steps", "1024", "--out", str(tmp_path / "seer"),
    ]))  # fmt: skip
    teacher = load_policy_file(tmp_path / "seer" / "policy.pt")
    assert teacher["observation"] == "seer" and teacher["observation_size"] == O.observation_size("seer", 2)
    config = native_ppo.parse_args([
        *TINY_NATIVE, "--teacher", str(tmp_path / "seer" / "policy.pt"), "--teacher-weight", "5", "--oracle", "0.5",
        "--total-steps", "4096", "--learning-rate", "0.01", "--checkpoint-every", "1", "--out", str(tmp_path / "a"),
    ])  # fmt: skip
    assert native_ppo.train(config)["steps"] == 4096
    state = torch.load(tmp_path / "a" / "checkpoint.pt", weights_only=True)
    assert state["oracle"]["linear.weight"].shape == (32, 59)  # the other seat's 59 kinds into the first layer
    data = load_policy_file(tmp_path / "a" / "policy.pt")
    assert data["observation"] == "knowledge" and not any("oracle" in key for key in data["state_dict"])
    logged = EventAccumulator(str(tmp_path / "a" / "tensorboard")).Reload()
    keep = [event.value for event in logged.Scalars("loss/oracle_keep")]
    assert keep[0] == pytest.approx(1.0, abs=0.2) and keep == sorted(keep, reverse=True)
    assert logged.Scalars("loss/teacher_loss")[0].value > 0
    summary = native_ppo.train(native_ppo.Config(resume=tmp_path / "a" / "checkpoint.pt", total_steps=5120,
                                                 out=tmp_path / "b", progress=False))  # fmt: skip
    assert summary["steps"] == 5120
    with pytest.raises(ValueError, match="policy for 4 players"):
        native_ppo.Config(players=4, teacher=str(tmp_path / "seer" / "policy.pt")).validate()
    (tmp_path / "code.pt").write_bytes(b"not a policy")
    with pytest.raises(ValueError, match="is not a uno-env policy file"):
        native_ppo.Config(teacher=str(tmp_path / "code.pt")).validate()


def test_a_teacher_of_other_rules_is_refused_in_one_line_naming_what_differs():
    from uno_env.train import native_ppo

    classic = str(shipped_policies()[("classic", 2)])
    native_ppo.Config(teacher=classic).validate()  # the same rules: taken
    with pytest.raises(ValueError, match=r"was trained on classic rules, this run is on unocorns$"):
        native_ppo.Config(variant="unocorns", teacher=classic).validate()
    with pytest.raises(ValueError, match=r"classic rules, this run is on classic; the rule options that differ: "
                                         r"stack_draw_two, target_score$"):
        native_ppo.Config(options=("stack_draw_two=true", "target_score=200"), teacher=classic).validate()


def test_a_run_starts_from_a_policy_files_network_and_skips_the_imitation(tmp_path, capsys):
    from uno_env.train import native_ppo

    shipped = shipped_policies()[("classic", 2)]
    start = PolicyNetwork.from_file_dict(load_policy_file(shipped)).state_dict()
    argv = [*TINY_NATIVE, "--hidden", "64", "64", "--imitate", "counter", "--learning-rate", "1e-9", "--total-steps",
            "512", "--init-policy", str(shipped), "--out", str(tmp_path / "tuned")]  # fmt: skip
    summary = native_ppo.train(native_ppo.parse_args(argv))
    assert summary["steps"] == 512
    tuned = PolicyNetwork.from_file_dict(load_policy_file(tmp_path / "tuned" / "policy.pt")).state_dict()
    # one PPO update at a negligible rate: the shipped weights (an imitation phase would have moved them)
    assert all(torch.allclose(tuned[key], start[key], atol=1e-4) for key in start)
    with pytest.raises(SystemExit):
        native_ppo.parse_args([*TINY_NATIVE, "--init-policy", str(shipped)])
    error = capsys.readouterr().err
    assert "is not the network this run trains: hidden (64, 64) (the run: (32,))" in error and error.count("\n") == 1
    with pytest.raises(ValueError, match=r"players 2 \(the run: 4\)"):
        native_ppo.Config(players=4, hidden=(64, 64), init_policy=shipped).validate()
    (tmp_path / "code.pt").write_bytes(b"not a policy")
    with pytest.raises(ValueError, match="is not a uno-env policy file"):
        native_ppo.Config(init_policy=tmp_path / "code.pt").validate()


def test_uno_train_prints_its_settings_when_it_starts(capsys, tmp_path):
    from uno_env.train import native_ppo

    native_ppo.main([*TINY_NATIVE, "--overlap", "--total-steps", "512", "--eval-every", "0", "--out", str(tmp_path)])
    first, second = capsys.readouterr().out.splitlines()[:2]
    assert first.startswith("uno-train settings: --league greedy:1 self:1 --total-steps 512 --num-envs 64")
    assert "--overlap" in first and "--rollout-steps 8" in first and first.endswith("--no-progress")
    assert second.startswith("  defaults kept: variant=classic") and "imitate-steps=3000000" in second


def test_native_ppo_refuses_bad_settings(capsys, tmp_path):
    from uno_env.train import native_ppo

    for argv, says in [
        (["--variant", "nope"], "the variants are classic"),
        (["--league", "wizard:1"], "unknown agent 'wizard'"),
        (["--league", "counter:x"], "NAME:SHARE"),
        (["--critic", "oracle"], "choose from 'own', 'seer'"),
    ]:
        with pytest.raises(SystemExit) as stop:
            native_ppo.main([*argv, "--out", str(tmp_path)])
        assert stop.value.code == 2 and says in capsys.readouterr().err


#: fixed-seed runs of the tiny settings on the CPU and the sha256 of their weights (`weights_digest`): the same run
#: gives the same numbers, so a change here is a change of the trainer's arithmetic, its random draws or their
#: order, never a side effect of moving code. Pinned with torch's CPU build of PINNED_TORCH.
PINNED_TORCH = "2.13.0"
PINNED_RUNS = {
    "plain": ([], "5596cc8e9547740af23ef0f7e53150bb20592655e014ee3212ec8840b585a811"),
    "aids": (["--critic", "seer", "--hand-loss", "1", "--oracle", "0.5", "--imitate", "counter", "--imitate-steps",
              "1024"], "f3027acf9528e5f2bae04fb3cc835d70818eb1c1fa6d842bfc27885a268991a0"),
}  # fmt: skip


def weights_digest(state: dict) -> str:
    """sha256 of a checkpoint's weights: each module's state dict, its tensors in order with their names."""
    digest = hashlib.sha256()
    for key in ("network", "critic", "hand_head", "oracle"):
        for name, tensor in (state[key] or {}).items():
            digest.update(f"{key}.{name}".encode())
            digest.update(tensor.contiguous().numpy().tobytes())
    return digest.hexdigest()


@pytest.mark.parametrize("name", PINNED_RUNS)
def test_a_fixed_seed_run_trains_the_same_weights(name, tmp_path):
    """Four updates (two of imitation with the aids), evaluations and snapshots included, give bit-identical weights.
    The minutes are so many that the clock-driven schedules (learning rate, oracle, teacher) stay at their start."""
    if torch.__version__.split("+")[0] != PINNED_TORCH:
        pytest.skip(f"the digests are pinned with torch {PINNED_TORCH}; another version may round differently")
    from uno_env.train import native_ppo

    flags, expected = PINNED_RUNS[name]
    native_ppo.train(native_ppo.parse_args([*TINY_NATIVE, *flags, "--total-steps", "2048", "--minutes", "1e18",
                                            "--device", "cpu", "--out", str(tmp_path)]))  # fmt: skip
    assert weights_digest(torch.load(tmp_path / "checkpoint.pt", weights_only=True)) == expected


def test_gae_matches_a_hand_computation():
    from uno_env.train.native_ppo import gae

    rewards = torch.tensor([[0.0], [0.0], [1.0]])
    values = torch.tensor([[0.5], [0.25], [0.75]])
    dones = torch.tensor([[0.0], [0.0], [1.0]])
    advantages = gae(rewards, values, dones, torch.tensor([9.0]), gamma=0.5, lam=0.5)
    delta = [0 + 0.5 * 0.25 - 0.5, 0 + 0.5 * 0.75 - 0.25, 1.0 - 0.75]  # the last step ends: no bootstrap
    expected = [delta[0] + 0.25 * (delta[1] + 0.25 * delta[2]), delta[1] + 0.25 * delta[2], delta[2]]
    assert advantages[:, 0].tolist() == pytest.approx(expected)


def test_policy_file_plays_legally_through_the_arena(native_run):
    out, _ = native_run
    agent = make_agent(f"ppo:{out / 'policy.pt'}")
    records = play_games({"ppo": agent, "random": make_agent("random", seed=1)}, ["ppo", "random"], games=40)
    assert len(records) == 40  # an illegal action would raise


def test_policy_agent_refuses_another_game(native_run):
    out, _ = native_run
    agent = PolicyAgent(out / "policy.pt")
    with pytest.raises(ValueError, match="trained for 2 players"):
        agent.bind(O.ObservationSpec("knowledge", 3))
    with pytest.raises(ValueError, match="no policy file"):
        PolicyAgent(out / "missing.pt")


def test_policy_agent_masks_illegal_actions():
    network = PolicyNetwork("minimal", 2, (8,))
    with torch.no_grad():
        network.policy_head.bias[:] = 0
        network.policy_head.bias[60] = 100.0  # it wants to pass, which is illegal below
    agent = PolicyAgent(network)
    venv = UnoVectorEnv("classic", 2, 32, observation="minimal", learner_seats="all")
    obs, masks = venv.reset(seed=3)
    actions = agent.act(obs, masks)
    assert masks[np.arange(32), actions].all()
    sampler = PolicyAgent(network, sample=True, seed=0)
    assert masks[np.arange(32), sampler.act(obs, masks)].all()


def test_sampled_actions_follow_the_masked_softmax():
    logits = torch.tensor([[np.log(0.5), np.log(0.3), np.log(0.2), 5.0]]).repeat(100_000, 1)
    logits[:, 3] = -1e9  # masked: never drawn
    generator = torch.Generator().manual_seed(1)
    counts = torch.bincount(sample_actions(logits, generator), minlength=4).numpy() / 100_000
    assert counts[3] == 0
    assert np.allclose(counts[:3], [0.5, 0.3, 0.2], atol=0.006)  # 4 standard errors of 100,000 draws


def test_sb3_ppo_trains_saves_resumes_and_loads_as_an_agent(tmp_path):
    from uno_env.train import sb3_ppo

    tiny = ["--num-envs", "16", "--n-steps", "16", "--minibatch-size", "64", "--n-epochs", "1", "--eval-games", "20",
            "--eval-every", "256", "--checkpoint-every", "256", "--switch-every", "128", "--no-progress"]  # fmt: skip
    assert sb3_ppo.main([*tiny, "--timesteps", "512", "--out", str(tmp_path)]) == 0
    meta = json.loads((tmp_path / "model.json").read_text())
    assert meta["num_players"] == 2 and meta["timesteps"] == 512
    assert list((tmp_path / "checkpoints").glob("model_*_steps.zip"))
    agent = make_agent(f"sb3:{tmp_path / 'model.zip'}", trust=True)  # the model this test made
    records = play_games({"sb3": agent, "greedy": make_agent("greedy")}, ["sb3", "greedy"], games=20)
    assert len(records) == 20
    resumed = tmp_path / "resumed"
    config = sb3_ppo.parse_args([*tiny, "--timesteps", "256", "--out", str(resumed),
                                 "--resume", str(tmp_path / "model.zip"), "--trust"])  # fmt: skip
    assert sb3_ppo.train(config)["timesteps"] == 512 + 256


def test_trained_agent_names_are_checked():
    with pytest.raises(ValueError, match="no policy file"):
        make_agent("ppo:nowhere/policy.pt")
    with pytest.raises(ValueError, match="no SB3 model"):
        make_agent("sb3:nowhere.zip")
    with pytest.raises(ValueError, match="ppo:VARIANT"):
        make_agent("tabular:x")


def test_uno_arena_refuses_an_unknown_shipped_policy(capsys):
    with pytest.raises(SystemExit) as exit_info:
        arena_main(["--agents", "ppo:no_such_preset", "random", "--games", "2", "--no-progress"])
    assert exit_info.value.code == 2
    assert "no shipped policy for 'no_such_preset'" in capsys.readouterr().err


SHIPPED = [(variant, players) for variant in PRESETS for players in (2, 4)]


def test_a_policy_is_shipped_for_every_preset_with_2_and_4_players():
    assert set(shipped_policies()) == set(SHIPPED)


@pytest.mark.parametrize("variant,players", SHIPPED)
def test_shipped_policies_beat_random(variant, players):
    ppo = "ppo:" + variant  # the shipped policy for the game's player count
    result = run_tournament([ppo, "random"], variant, players, games=300, lineup=[ppo] + ["random"] * (players - 1),
                            progress=False)  # fmt: skip
    summary = next(s for s in result.summaries if s.name == ppo)
    assert summary.win_rate_low > summary.fair_share, summary


def test_ship_writes_a_half_precision_copy_that_plays_the_same(native_run, tmp_path):
    from uno_env.train.ship import ship

    out, _ = native_run
    shipped = ship(out / "policy.pt", tmp_path)
    assert shipped.name == "classic-2p.pt"
    assert load_policy_file(shipped)["state_dict"]["policy_head.weight"].dtype == torch.float16
    venv = UnoVectorEnv("classic", 2, 64, learner_seats="all")
    obs, masks = venv.reset(seed=5)
    same = PolicyAgent(shipped).act(obs, masks) == PolicyAgent(out / "policy.pt").act(obs, masks)
    assert same.mean() > 0.9  # float16 weights may flip a near tie, no more
    from uno_env.train.ship import main

    assert main(["--best"]) == 2 and main([]) == 2  # usage: [--best] PATH/policy.pt
    assert main(["--best", str(tmp_path / "missing.pt")]) == 2  # no policy file: refused, nothing written


@pytest.mark.parametrize(("imitated", "level"), [("greedy", "minimal"), ("counter", "belief")])
def test_imitation_learns_the_teachers_actions(imitated, level, tmp_path):
    """The imitated baseline reads its own level (counter: knowledge) while the network learns from its own."""
    from uno_env.train import native_ppo

    config = native_ppo.parse_args([
        *TINY_NATIVE, "--imitate", imitated, "--observation", level, "--imitate-steps", "40960",
        "--total-steps", "40960", "--minibatch-size", "512", "--eval-every", "0", "--out", str(tmp_path),
    ])  # fmt: skip
    native_ppo.train(config)
    learner = PolicyAgent(tmp_path / "policy.pt")
    untrained = PolicyAgent(PolicyNetwork(level, 2, (32,)))
    teacher = make_agent(imitated, seed=3)
    venv = UnoVectorEnv("classic", 2, 512, learner_seats="all", observation=level)
    obs, masks = venv.reset(seed=11)
    for agent in (teacher, learner, untrained):
        agent.bind(O.ObservationSpec(agent.observation, 2), venv.rules)
    choices = masks.sum(1) > 1  # decisions with a choice
    wanted = teacher.act(venv.observe(teacher.observation), masks)[choices]
    learned = (learner.act(obs, masks)[choices] == wanted).mean()
    chance = (untrained.act(obs, masks)[choices] == wanted).mean()
    assert learned > chance + 0.2, (learned, chance)


def test_a_hint_needs_the_advisers_observation_level(tmp_path):
    from uno_env.train import native_ppo

    with pytest.raises(ValueError, match="--hint counter needs --observation knowledge"):
        native_ppo.Config(hint="counter", observation="minimal", out=tmp_path).validate()
    native_ppo.Config(imitate="counter", observation="belief", out=tmp_path).validate()  # imitation reads its own


@pytest.mark.parametrize("trainer", ["native_ppo", "sb3_ppo"])
def test_the_trainers_name_the_devices_they_can_use(trainer, tmp_path, monkeypatch):
    import importlib

    config = importlib.import_module(f"uno_env.train.{trainer}").Config
    with pytest.raises(ValueError, match="device must be auto, cpu, cuda or cuda:N.*'gpu'"):
        config(device="gpu", out=tmp_path).validate()
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match="--device cuda:1 needs a CUDA GPU"):
        config(device="cuda:1", out=tmp_path).validate()
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    with pytest.raises(ValueError, match="cuda:3: torch sees 1 GPU.*cuda:0 to cuda:0"):
        config(device="cuda:3", out=tmp_path).validate()
    config(device="cuda:0", out=tmp_path).validate()
    config(device="cpu", out=tmp_path).validate()


def copying_network(hint: str, level: str, players: int) -> PolicyNetwork:
    """A network with an adviser whose weights copy the adviser's hint: hint entry k -> hidden k -> logit k."""
    network = PolicyNetwork(level, players, (77,), hint=hint)
    size = network.observation_size
    with torch.no_grad():
        for module in (network.trunk[0], network.policy_head):
            module.weight.zero_()
            module.bias.zero_()
        network.trunk[0].weight[:, size:] = torch.eye(77)
        network.policy_head.weight[:] = 10 * torch.eye(77)
    return network


def test_a_hinted_policy_reads_its_advisers_choice():
    agent = PolicyAgent(copying_network("greedy", "minimal", 3), seed=9)  # its adviser: greedy seeded 9
    venv = UnoVectorEnv("classic", 3, 256, observation="minimal", learner_seats="all")
    obs, masks = venv.reset(seed=4)
    with pytest.raises(RuntimeError, match="bind"):
        agent.act(obs, masks)
    with pytest.raises(ValueError, match="adviser 'counter' reads 'knowledge'"):
        PolicyAgent(PolicyNetwork("minimal", 3, (8,), hint="counter"))
    agent.bind(venv.spec, venv.rules)
    adviser = make_agent("greedy", seed=9)
    adviser.bind(venv.spec, venv.rules)
    for _ in range(20):
        choices = agent.act(obs, masks)
        assert np.array_equal(choices, adviser.act(obs, masks))  # the same ties broken the same way
        obs, masks, *_ = venv.step(choices)


def test_native_ppo_with_a_hint_records_it_and_resumes(tmp_path):
    from uno_env.train import native_ppo

    config = native_ppo.parse_args([
        *TINY_NATIVE, "--hint", "counter", "--imitate", "counter", "--imitate-steps", "512", "--total-steps", "1024",
        "--players", "3", "--out", str(tmp_path / "a"),
    ])  # fmt: skip
    assert native_ppo.train(config)["steps"] == 1024
    data = load_policy_file(tmp_path / "a" / "policy.pt")
    size = O.observation_size("knowledge", 3)
    assert data["hint"] == "counter" and data["observation_size"] == size
    assert data["state_dict"]["trunk.0.weight"].shape == (32, size + 77)
    summary = native_ppo.train(native_ppo.Config(resume=tmp_path / "a" / "checkpoint.pt", total_steps=2048,
                                                 out=tmp_path / "b", progress=False))  # fmt: skip
    assert summary["steps"] == 2048 and load_policy_file(tmp_path / "b" / "policy.pt")["hint"] == "counter"
    agent = make_agent(f"ppo:{tmp_path / 'b' / 'policy.pt'}")
    records = play_games({"ppo": agent, "counter": make_agent("counter", seed=1)}, ["ppo", "counter", "counter"],
                         games=30)  # fmt: skip
    assert len(records) == 30  # an illegal action would raise


def run_train_speed(*args):
    import runpy
    import sys
    from pathlib import Path
    from unittest import mock

    script = Path(__file__).parents[2] / "benchmarks" / "train_speed.py"
    with mock.patch.object(sys, "argv", [str(script), *args]):
        runpy.run_path(str(script), run_name="__main__")


def test_train_speed_benchmark_compares_both_trainers_and_names_their_devices(capsys):
    run_train_speed("--repeats", "1", "--native-steps", str(2048 * 32), "--sb3-steps", str(256 * 64),
                    "--native-device", "cpu", "--sb3-device", "cpu")  # fmt: skip
    report = capsys.readouterr().out
    assert "native PPO on cpu, SB3 MaskablePPO on cpu, medians of 1 repeats" in report
    assert report.count("native / SB3 = ") == 2  # training, and collection alone


def test_train_speed_benchmark_refuses_an_unknown_device(capsys):
    with pytest.raises(SystemExit) as exit_info:
        run_train_speed("--native-device", "tpu")
    assert exit_info.value.code == 2
    assert "device must be auto, cpu, cuda or cuda:N" in capsys.readouterr().err
