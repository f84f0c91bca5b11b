"""RLlib checkpoints' metadata (`uno_env.agents.rllib_agent.read_metadata`): a checkpoint of another observation
layout is refused in one line naming the level and the first field that differs, before RLlib loads anything."""

from __future__ import annotations

import json

import pytest

from uno_env import observation as O
from uno_env.agents.rllib_agent import METADATA_FILE, RLlibAgent, read_metadata


def checkpoint(tmp_path, stamp: dict | None = None):
    """A checkpoint folder's metadata as train/rllib_ppo.py writes it, with `stamp` for its layout's (no RLlib files:
    none is read here)."""
    meta = {"format": "uno-env-rllib-1", "variant": "classic", "num_players": 4, "observation": "knowledge",
            "observation_size": O.observation_size("knowledge", 4),
            "module_path": "learner_group/learner/rl_module/shared"}  # fmt: skip
    (tmp_path / METADATA_FILE).write_text(json.dumps({**meta, **(stamp or {})}))
    return tmp_path


def test_this_versions_layout_is_read(tmp_path):
    folder = checkpoint(tmp_path, O.layout_stamp("knowledge", 4))
    assert read_metadata(folder)[O.DIGEST_KEY] == O.layout_digest("knowledge", 4)
    older = checkpoint(tmp_path)  # written before checkpoints carried a digest: checked by its size when bound
    assert O.DIGEST_KEY not in read_metadata(older)


def test_a_checkpoint_of_another_layout_is_refused(tmp_path):
    fields = O.layout_description("knowledge", 4).replace("known_cards:4x59", "known_cards:4x60")
    folder = checkpoint(tmp_path, {O.DIGEST_KEY: O.layout_digest("knowledge", 4, fields), O.FIELDS_KEY: fields})
    says = (r"uno_env.json': trained on the knowledge observation layout .* \(4 players\); this version's is "
            rf"{O.layout_digest('knowledge', 4)}: the first field that differs is known_cards \(of shape 4x60 in the "
            "file, 4x59 in this version\\)")  # fmt: skip
    for load in (lambda: read_metadata(folder), lambda: RLlibAgent(folder, trust=True)):
        with pytest.raises(ValueError, match=says) as error:
            load()
        assert "\n" not in str(error.value)
