"""Policy files and the observation layout: every file records the layout it was trained on, a file of another
layout is refused in one line naming the level and the first field that differs, every shipped policy carries this
version's layout, and the network's input scale is the `scale` column of the observation table."""

from __future__ import annotations

import pytest
import torch

from uno_env import observation as O
from uno_env.agents.policy import (
    FIELD_SCALES,
    PolicyAgent,
    PolicyNetwork,
    input_scale,
    load_policy_file,
    shipped_policies,
)
from uno_env.agents.registry import make_agent


def policy_file(tmp_path, **changes) -> str:
    """A tiny knowledge-level 2-player policy file, with `changes` to its dict."""
    path = tmp_path / "policy.pt"
    torch.save({**PolicyNetwork("knowledge", 2, (8,)).to_file_dict("classic"), **changes}, path)
    return str(path)


def other_layout(level: str, players: int, fields: list[str]) -> dict:
    """The stamp of a layout with these fields, as the version that had it wrote it."""
    description = " ".join(fields)
    return {O.DIGEST_KEY: O.layout_digest(level, players, description), O.FIELDS_KEY: description}


def test_a_policy_file_records_the_layout_it_was_trained_on(tmp_path):
    data = load_policy_file(policy_file(tmp_path))
    assert data[O.DIGEST_KEY] == O.layout_digest("knowledge", 2)
    assert data[O.FIELDS_KEY] == O.layout_description("knowledge", 2)


def test_a_policy_of_another_layout_is_refused_in_one_line_naming_the_level_and_the_field(tmp_path):
    fields = O.layout_description("knowledge", 2).split()
    fields.insert(fields.index("discard_pile:59"), "old_field:4")  # a field this version no longer has
    path = policy_file(tmp_path, **other_layout("knowledge", 2, fields))
    says = (f"{path}: trained on the knowledge observation layout {other_layout('knowledge', 2, fields)[O.DIGEST_KEY]}"
            f" (2 players); this version's is {O.layout_digest('knowledge', 2)}: the first field that differs is "
            "old_field (not in this version, which has discard_pile there); retrain it")  # fmt: skip
    for load in (lambda: PolicyAgent(path), lambda: make_agent(f"ppo:{path}")):
        with pytest.raises(ValueError) as error:
            load()
        assert str(error.value).startswith(says) and "\n" not in str(error.value)


def test_a_policy_file_whose_digest_was_altered_is_refused(tmp_path):
    path = policy_file(tmp_path, **{O.DIGEST_KEY: "0123456789abcdef"})
    with pytest.raises(ValueError, match="observation_digest 0123456789abcdef is not the digest of its observation_f"):
        PolicyAgent(path)


def test_a_policy_file_without_a_digest_is_checked_by_its_size(tmp_path):
    """Files written before files carried a digest load; a game of another observation size refuses them."""
    data = PolicyNetwork("knowledge", 2, (8,)).to_file_dict("classic")
    for key in (O.DIGEST_KEY, O.FIELDS_KEY):
        del data[key]
    agent = PolicyAgent(data)
    agent.bind(O.ObservationSpec("knowledge", 2))
    with pytest.raises(ValueError, match=r"knowledge observations of size 673; this game has 2 players \(observation "
                                         r"size 1612\)"):  # fmt: skip
        agent.bind(O.ObservationSpec("belief", 2))


def test_every_shipped_policy_carries_this_versions_layout():
    shipped = shipped_policies()
    assert len(shipped) == 10
    for (_, players), path in shipped.items():
        data = load_policy_file(path)
        level = data["observation"]
        assert data[O.DIGEST_KEY] == O.layout_digest(level, players), path
        assert data[O.FIELDS_KEY] == O.layout_description(level, players), path
        PolicyAgent(path).bind(O.ObservationSpec(level, players))


def test_the_input_scale_is_the_scale_column_of_the_observation_table(monkeypatch):
    layout = O.observation_layout("belief", 3)
    scale = input_scale("belief", 3)
    assert scale.numel() == O.observation_size("belief", 3)
    for field in O.FIELDS:
        if field.name in layout:
            assert torch.all(scale[layout[field.name][0]] == field.scale), field.name
    assert FIELD_SCALES == {f.name: f.scale for f in O.FIELDS if f.scale != 1}
    assert FIELD_SCALES["hand_sizes"] == 1 / 8 and "hand" not in FIELD_SCALES
    rows = tuple(f._replace(scale=0.5) if f.name == "hand" else f for f in O.FIELDS)
    monkeypatch.setattr(O, "FIELDS", rows)  # a changed column changes the scale, and nothing else does
    changed = input_scale("belief", 3)
    hand = layout["hand"][0]
    assert torch.all(changed[hand] == 0.5)
    changed[hand] = 1.0
    assert torch.equal(changed, scale)
    assert torch.all(PolicyNetwork("belief", 3, (8,)).scale[hand] == 0.5)
