"""One table per contract: the option, action, phase and observation tables in the code are the ones the rule
sets, the engine, the encoder and the documentation use."""

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

import uno_env
from uno_env import actions as A
from uno_env import engine as E
from uno_env import observation as O
from uno_env import rules as R
from uno_env.game import make_config

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_every_option_is_a_rule_set_field_and_an_engine_field_of_the_same_name():
    rule_fields = [f.name for f in dataclasses.fields(R.RuleSet)]
    assert rule_fields == ["variant", "colors", *R.OPTION_NAMES]
    assert set(R.OPTION_NAMES) <= set(E.CONFIG_DTYPE.names)


@pytest.mark.parametrize("preset", R.PRESETS)
def test_the_engine_config_holds_each_option_as_the_rule_set_has_it(preset):
    options = {"uno_call": "explicit", "scoring": "penalty", "challenge_wild_draw_four": False, "hand_size": 5}
    rules = R.make_rules(preset, **options)
    config = make_config(rules, 3)[0]
    for option in R.OPTIONS:
        value = getattr(rules, option.name)
        expected = option.choices.index(value) if option.kind == "choice" else value
        assert np.array_equal(np.asarray(config[option.name]), np.asarray(expected)), option.name


@pytest.mark.parametrize("preset", R.PRESETS)
def test_each_preset_starts_from_the_table_defaults(preset):
    rules = R.make_rules(preset)
    for option in R.OPTIONS:
        assert getattr(rules, option.name) == option.default_for(preset), option.name
    assert R.make_rules("swap").stack_draw_two is True and R.make_rules("classic").stack_draw_two is False


@pytest.mark.parametrize("option", R.OPTIONS, ids=lambda option: option.name)
def test_each_option_refuses_a_bad_value_with_the_allowed_values_in_words(option):
    bad = {"bool": "yes", "int": option.high + 1, "rate": 1.5, "choice": "nope", "cards": [1, 2]}[option.kind]
    with pytest.raises(ValueError, match=re.escape(option.name)):
        R.make_rules("classic", **{option.name: bad})


def test_a_rule_set_is_validated_however_it_is_built():
    rules = R.make_rules("classic")
    with pytest.raises(ValueError, match="hand_size must be an int from 1 to 50"):
        dataclasses.replace(rules, hand_size=0)
    with pytest.raises(ValueError, match="uno_call must be 'auto' or 'explicit'"):
        R.RuleSet(uno_call="sometimes")
    with pytest.raises(ValueError, match="at most 256"):
        dataclasses.replace(rules, card_counts=(5,) * 59)


def test_phases_and_limits_are_defined_once():
    assert (E.PLAY, E.COLOR, E.DRAWN, E.CHALLENGE_PHASE, E.OVER) == (
        A.PHASE_PLAY, A.PHASE_COLOR, A.PHASE_DRAWN, A.PHASE_CHALLENGE, A.PHASE_OVER)  # fmt: skip
    assert A.PHASE_NAMES == tuple(name for name, _ in A.PHASES)
    assert (E.MAX_PLAYERS, E.MAX_DECK) == (R.MAX_PLAYERS, R.MAX_DECK_SIZE)
    assert E.STATE_DTYPE["hand"].shape == (R.MAX_PLAYERS, uno_env.NUM_KINDS)
    assert E.STATE_DTYPE["draw_pile"].shape == (R.MAX_DECK_SIZE,)


def test_the_action_table_covers_every_id_once_and_names_them_as_the_game_does():
    ids = [i for _, first, last, _ in A.ACTIONS for i in range(first, last + 1)]
    assert ids == list(range(A.NUM_ACTIONS))
    names = A.action_names(uno_env.make_rules("classic").colors)
    for name, first, last, _ in A.ACTIONS:
        stem = name.split(" <")[0].split(" +")[0]
        assert all(names[i].startswith(stem) for i in range(first, last + 1)), name


def test_the_observation_table_is_the_encoders_layout():
    layout = O.observation_layout("seer", 4)
    assert list(layout) == [f.name for f in O.FIELDS]
    for f in O.FIELDS:
        assert layout[f.name][1] == tuple(4 if d == "N" else d for d in f.shape)


@pytest.mark.parametrize(
    ("module", "table"),
    [(R, R.options_markdown), (A, A.actions_markdown), (O, O.fields_markdown)],
    ids=["options", "actions", "observation"],
)
def test_the_documented_tables_are_made_from_the_code(module, table):
    markdown = table()
    assert markdown in module.__doc__
    rows = [line for line in markdown.splitlines() if line.startswith("| `") or line[:3].strip("| ").isdigit()]
    assert len(rows) >= 10
    names = {"options": R.OPTION_NAMES, "actions": [a[0] for a in A.ACTIONS], "observation": O.FIELD_NAMES}
    key = {R: "options", A: "actions", O: "observation"}[module]
    for name in names[key]:
        assert f"`{name}`" in markdown
    pages = [path for path in DOCS.glob("*.md") if f"<!-- table:{key} -->" in path.read_text()]
    assert pages, f"no docs page shows the generated {key} table"
