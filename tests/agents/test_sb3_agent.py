"""SB3 models' metadata (`uno_env.agents.sb3_agent.read_metadata`): it records the observation layout the model was
trained on, and a model of another layout is refused in one line before anything of it is unpickled."""

from __future__ import annotations

import json

import pytest

from uno_env import observation as O
from uno_env.agents.sb3_agent import SB3Agent, read_metadata


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """An untrained MaskablePPO model saved by uno-train-sb3's `save_model`."""
    from sb3_contrib import MaskablePPO

    from uno_env.train.sb3_ppo import Config, save_model
    from uno_env.wrappers import UnoSB3VecEnv

    venv = UnoSB3VecEnv("classic", num_players=2, num_envs=4, seed=0, observation="minimal")
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=16, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})  # fmt: skip
    path = tmp_path_factory.mktemp("sb3") / "model.zip"
    save_model(model, Config(players=2, observation="minimal"), path)
    return path


def test_the_metadata_records_the_layout(saved):
    meta = read_metadata(saved)
    assert meta["observation"] == "minimal" and meta["num_players"] == 2
    assert meta[O.DIGEST_KEY] == O.layout_digest("minimal", 2)
    assert meta[O.FIELDS_KEY] == O.layout_description("minimal", 2)


def test_a_model_of_another_layout_is_refused_before_it_is_loaded(saved, tmp_path):
    meta = read_metadata(saved)
    fields = meta[O.FIELDS_KEY].replace(" scores:2", "")
    meta.update({O.DIGEST_KEY: O.layout_digest("minimal", 2, fields), O.FIELDS_KEY: fields})
    path = tmp_path / "model.zip"
    path.write_bytes(b"not a zip: the layout is refused before the model is read")
    path.with_suffix(".json").write_text(json.dumps(meta))
    says = r"model.json: trained on the minimal observation layout .* first field that differs is scores \(new"
    for load in (lambda: read_metadata(path), lambda: SB3Agent(path, trust=True)):
        with pytest.raises(ValueError, match=says) as error:
            load()
        assert "\n" not in str(error.value)
    from uno_env.train.sb3_ppo import Config

    with pytest.raises(ValueError, match=says):  # nor does training go on from it
        Config(players=2, observation="minimal", resume=path, trust=True).validate()


def test_metadata_without_a_digest_is_read(saved, tmp_path):
    meta = {k: v for k, v in read_metadata(saved).items() if k not in (O.DIGEST_KEY, O.FIELDS_KEY)}
    path = tmp_path / "model.zip"
    path.write_bytes(saved.read_bytes())
    path.with_suffix(".json").write_text(json.dumps(meta))
    assert read_metadata(path)["observation"] == "minimal"
