"""Search labels and the expert-iteration learner: labels are the expert's real decisions with what its search
found, the same in any number of processes, read back as data only; a network fitted to them is a policy file that
the registry seats."""

from __future__ import annotations

import json

import numpy as np
import pytest

from uno_env import actions as A
from uno_env import observation as O
from uno_env.agents.policy import load_policy_file
from uno_env.agents.registry import make_agent
from uno_env.arena.tournament import play_games
from uno_env.train import expert_iteration as X
from uno_env.train import search_labels as L

CHUNK = L.LabelChunk("seer:12", "counter", "classic", 2, (), ("knowledge", "seer"), games=8)


@pytest.fixture(scope="module")
def labels():
    return L.generate(CHUNK, 60, seed=3, chunk_states=30, progress=False)


def test_labels_are_the_experts_legal_decisions_with_its_paired_comparison(labels):
    n = len(labels["actions"])
    assert n == 60 and all(len(array) == n for array in labels.values())
    rows = np.arange(n)
    assert (labels["masks"][rows, labels["actions"]] == 1).all() and (labels["masks"].sum(1) > 1).all()
    assert (labels["masks"][rows, labels["preferred"]] == 1).all()
    assert labels["obs_knowledge"].shape == (n, O.observation_size("knowledge", 2))
    assert labels["obs_seer"].shape == (n, O.observation_size("seer", 2))
    assert set(np.unique(labels["outcome"])) <= {0, 1} and labels["worlds"].min() >= 1
    advantage = labels["advantage"].astype(np.float32)
    assert (advantage[labels["masks"] == 0] == 0).all() and (advantage[rows, labels["preferred"]] == 0).all()
    moved = labels["actions"] != labels["preferred"]
    assert (advantage[rows[moved], labels["actions"][moved]] > 0).all()  # it leaves counter only for a better move
    # Every state is the deciding seat's own view: the knowledge rows match a fresh game's encoding in shape and
    # the seer rows extend them (the same game, more seen).
    knowledge = O.observation_layout("knowledge", 2)
    seer = O.observation_layout("seer", 2)
    for name, (part, _) in knowledge.items():
        assert np.array_equal(labels["obs_knowledge"][:, part], labels["obs_seer"][:, seer[name][0]]), name


def test_no_two_chunks_share_a_deal(labels):
    first, second = (L.label_states(CHUNK, L.chunk_seed(3, index), 30) for index in (0, 1))
    assert not set(first["deal"].tolist()) & set(second["deal"].tolist())
    assert len(np.unique(labels["deal"])) >= 8  # every game of a chunk deals its own rounds


def test_labels_depend_only_on_the_seed_not_on_the_processes(labels):
    again = L.generate(CHUNK, 60, seed=3, chunk_states=30, workers=2, progress=False)
    assert labels.keys() == again.keys()
    for name in labels:
        assert np.array_equal(labels[name], again[name]), name


def test_a_labels_file_is_data_and_a_bad_one_is_refused_in_one_line(labels, tmp_path):
    path = L.save_labels(tmp_path / "labels.npz", labels, {"players": 2, "variant": "classic"})
    arrays, settings = L.load_labels(path)
    assert settings["format"] == L.LABELS_FORMAT and all(np.array_equal(arrays[k], labels[k]) for k in labels)
    older = O.layout_description("seer", 2).rsplit(" ", 1)[0]  # labels of a layout one field short
    stamp = {O.DIGEST_KEY: O.layout_digest("seer", 2, older), O.FIELDS_KEY: older}
    stamped = {"players": 2, "variant": "classic", "layouts": {"seer": stamp}}
    L.save_labels(tmp_path / "other.npz", labels, stamped)
    with pytest.raises(ValueError, match="seer observation layout .* the first field that differs"):
        L.load_labels(tmp_path / "other.npz")
    L.save_labels(tmp_path / "no-players.npz", labels, {"variant": "classic"})
    with pytest.raises(ValueError, match="settings.players must be an int from 2 to 10"):
        L.load_labels(tmp_path / "no-players.npz")
    broken = dict(labels, actions=np.full_like(labels["actions"], A.NUM_ACTIONS - 1))
    L.save_labels(tmp_path / "illegal.npz", broken, {"players": 2, "variant": "classic"})
    with pytest.raises(ValueError, match="every action must be legal in its mask"):
        L.load_labels(tmp_path / "illegal.npz")
    np.savez(tmp_path / "objects.npz", settings=np.array(json.dumps({"format": L.LABELS_FORMAT})),
             actions=np.array([object()], dtype=object))  # fmt: skip
    with pytest.raises(ValueError, match="is not a search labels file"):  # never unpickled
        L.load_labels(tmp_path / "objects.npz")


def test_advantage_targets_peak_where_the_search_found_most():
    masks = np.zeros((2, A.NUM_ACTIONS), np.int8)
    masks[:, [3, 7, 9]] = 1
    advantage = np.zeros((2, A.NUM_ACTIONS), np.float16)
    advantage[0, [7, 9]] = [0.2, -0.1]
    arrays = {"masks": masks, "advantage": advantage, "actions": np.array([7, 3])}
    soft = X.policy_targets(arrays, "advantage", sharpness=20.0)
    assert np.allclose(soft.sum(1), 1) and (soft[masks == 0] == 0).all()
    assert soft[0].argmax() == 7 and soft[0, 7] > 0.9 and np.allclose(soft[1, [3, 7, 9]], 1 / 3)
    hard = X.policy_targets(arrays, "action", sharpness=20.0)
    assert hard[0, 7] == 1 and hard[1, 3] == 1 and hard.sum() == 2


@pytest.mark.parametrize("level, hint", [("seer", ""), ("knowledge", "counter"), ("seer", "counter")])
def test_a_fitted_network_is_a_policy_file_the_registry_seats(labels, tmp_path, level, hint):
    path = L.save_labels(tmp_path / "labels.npz", labels, {**vars_of(CHUNK), "seed": 3})
    X.main(["--labels", str(path), "--observation", level, "--hidden", "32", "--epochs", "2", "--batch-size", "16",
            *(["--hint", hint] if hint else []), "--out", str(tmp_path / "net")])  # fmt: skip
    agent = make_agent(f"ppo:{tmp_path / 'net' / 'policy.pt'}", seed=0)
    assert agent.network.level == level and agent.network.hint == hint
    assert load_policy_file(tmp_path / "net" / "policy.pt")["trained"]["learner"] == "expert_iteration"
    records = play_games({"net": agent, "counter": make_agent("counter", seed=1)}, ["net", "counter"], "classic",
                         games=8, seed=5)  # fmt: skip
    assert len(records) == 8 and all(record.winners for record in records)


def vars_of(chunk: L.LabelChunk) -> dict:
    from dataclasses import asdict

    return asdict(chunk)


def test_the_learner_keeps_the_epoch_that_did_best_on_held_out_deals(labels):
    settings = {**vars_of(CHUNK), "seed": 3}
    lines: list[str] = []
    config = X.FitSettings(observation="seer", hidden=(32,), epochs=4, batch_size=8, learning_rate=0.05, holdout=0.3)
    network, metrics = X.fit(labels, settings, config, log=lines.append)
    losses = [float(line.split("policy_loss ")[1].split(",")[0]) for line in lines]
    assert len(losses) == 4 and metrics["epoch"] == 1 + losses.index(min(losses))
    assert metrics["policy_loss"] == pytest.approx(min(losses), abs=1e-4)
    last = X.fit(labels, settings, X.FitSettings(**{**vars(config), "keep": "last"}), log=lambda line: None)[1]
    assert "epoch" not in last and last["policy_loss"] == pytest.approx(losses[-1], abs=1e-4)  # the same run, its end


def test_a_subset_holds_whole_deals(labels):
    half = X.deal_subset(labels, 30, seed=1)
    assert 0 < len(half["actions"]) < len(labels["actions"]) and half.keys() == labels.keys()
    kept = set(half["deal"].tolist())
    assert sum(deal in kept for deal in labels["deal"].tolist()) == len(half["deal"])  # every row of a kept deal
