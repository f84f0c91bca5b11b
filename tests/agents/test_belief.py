"""Hand beliefs (`uno_env.agents.belief`): the shipped models load as data, predict what the API promises, read
only what the seat sees, and beat counting on games they never saw; files that are not belief files are refused."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from uno_env import VARIANTS
from uno_env import observation as O
from uno_env.agents.belief import (
    BeliefModel,
    BeliefNetwork,
    counting_belief,
    load_belief,
    score_beliefs,
    shipped_beliefs,
)
from uno_env.train.belief import collect

HELD_OUT = 1 << 42  # deals no model was trained or benchmarked on


@pytest.fixture(scope="module")
def games_4p():
    return collect("classic", 4, 64, 40, HELD_OUT)


def test_a_model_for_every_preset_with_2_and_4_players_is_shipped():
    assert set(shipped_beliefs()) == {(variant, n) for variant in VARIANTS for n in (2, 4)}


def test_predict_gives_expected_copies_per_relative_seat(games_4p):
    obs, hands = games_4p
    model = load_belief("classic", num_players=4)
    assert model.observation == "belief" and model.num_players == 4
    expected = model.predict(obs)
    assert expected.shape == (len(obs), 4, 59) and expected.dtype == np.float32
    assert np.array_equal(expected[:, 0], hands[:, 0])  # the own hand, exact
    assert np.allclose(expected.sum(-1), hands.sum(-1), atol=1e-3)  # every seat's card count
    assert (expected >= 0).all()
    counted = counting_belief(obs, "belief", 4)
    assert np.array_equal(counted[:, 0], hands[:, 0]) and np.allclose(counted.sum(-1), hands.sum(-1), atol=1e-3)
    assert not np.allclose(expected, counted, atol=1e-3)  # it reads more than the counts


@pytest.mark.parametrize("players", [2, 4])
def test_the_shipped_classic_model_beats_counting_on_held_out_games(players):
    obs, hands = collect("classic", players, 64, 60, HELD_OUT + players)
    model = load_belief("classic", num_players=players)
    learned = score_beliefs(model.predict(obs), obs, hands, "belief", players)
    counted = score_beliefs(counting_belief(obs, "belief", players), obs, hands, "belief", players)
    assert learned["bits_per_card"] < counted["bits_per_card"] - 0.05, (learned, counted)


def test_scoring_ranks_the_truth_first_and_counting_above_nonsense(games_4p):
    obs, hands = games_4p
    truth = score_beliefs(hands.astype(np.float32), obs, hands, "belief", 4)
    counted = score_beliefs(counting_belief(obs, "belief", 4), obs, hands, "belief", 4)
    assert truth["squared_error"] == 0  # a per-card model of the true hands still pays each hand's own entropy
    uniform_hands = np.ones_like(hands, dtype=np.float32) * hands.sum(-1, keepdims=True) / 59
    wrong = score_beliefs(uniform_hands, obs, hands, "belief", 4)
    assert truth["bits_per_card"] < counted["bits_per_card"] < wrong["bits_per_card"]


def test_the_model_reads_only_the_seats_view():
    """Two games a seat cannot tell apart give it the same belief (the observation is the only input)."""
    from uno_env.testing import deal_env

    model = load_belief("classic", num_players=2)
    views = []
    for hand_1 in (["G2", "B7", "Y9"], ["G2", "B8", "Y1"]):
        env = deal_env("classic", [["R5", "G3"], hand_1], "R1", ["Y4"], dealer=1, observation="belief")
        views.append(env.observe("player_0")["observation"])
    assert np.array_equal(views[0], views[1])
    assert np.array_equal(model.predict(np.stack(views))[0], model.predict(np.stack(views))[1])


def test_a_tiny_model_learns_below_counting_on_its_own_data():
    from uno_env.train.belief import cross_entropy, targets

    obs, hands = collect("classic", 2, 32, 30, 7)
    network = BeliefNetwork("belief", 2, (32,))
    unseen, hidden = targets(obs, hands, 2)
    x = torch.from_numpy(obs)
    with torch.no_grad():
        start = float(cross_entropy(network, x, unseen, hidden))  # zero head: exactly counting
    optimizer = torch.optim.Adam(network.parameters(), lr=3e-3)
    for _ in range(150):
        loss = cross_entropy(network, x, unseen, hidden)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    counted = score_beliefs(counting_belief(obs, "belief", 2), obs, hands, "belief", 2)
    assert abs(start / np.log(2) - counted["bits_per_card"]) < 1e-3  # the loss is the score, in nats
    assert float(loss.detach()) < start - 0.05


@pytest.mark.parametrize(
    "content, says",
    [(b"plain text", "not a uno-env belief file"), (None, "no belief file")],
)
def test_a_file_that_is_not_a_belief_file_is_one_line(tmp_path, content, says):
    path = tmp_path / "notes.pt"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ValueError, match=says) as error:
        load_belief(path)
    assert "\n" not in str(error.value)


def test_a_policy_file_is_not_a_belief_file(tmp_path):
    from uno_env.agents.policy import SHIPPED_DIR as POLICIES

    with pytest.raises(ValueError, match="not a uno-env belief file"):
        load_belief(POLICIES / "classic-2p.pt")


def test_unknown_shipped_models_and_wrong_observations_are_refused():
    with pytest.raises(ValueError, match="no shipped belief model"):
        load_belief("classic", num_players=3)
    model = load_belief("classic", num_players=2)
    with pytest.raises(ValueError, match="int8 observations at level 'belief'"):
        model.predict(np.zeros((1, 10), np.int8))
    assert isinstance(model, BeliefModel)


def test_every_shipped_model_carries_this_versions_layout():
    for (_, players), path in shipped_beliefs().items():
        data = torch.load(path, map_location="cpu", weights_only=True)
        assert data[O.DIGEST_KEY] == O.layout_digest("belief", players), path
        assert data[O.FIELDS_KEY] == O.layout_description("belief", players), path


def test_a_model_of_another_layout_is_refused_naming_the_first_field_that_differs(tmp_path):
    data = BeliefNetwork("belief", 2, (8,)).to_file_dict("classic")
    assert data[O.DIGEST_KEY] == O.layout_digest("belief", 2)
    fields = data[O.FIELDS_KEY].replace("took:2", "took:3")
    data.update({O.DIGEST_KEY: O.layout_digest("belief", 2, fields), O.FIELDS_KEY: fields})
    path = tmp_path / "belief.pt"
    torch.save(data, path)
    with pytest.raises(ValueError, match="trained on the belief observation layout .* first field that differs is took "
                                         r"\(of shape 3 in the file, 2 in this version\)") as error:  # fmt: skip
        load_belief(path)
    assert "\n" not in str(error.value)
