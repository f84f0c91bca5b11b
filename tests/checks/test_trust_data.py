"""Data from outside is data (issue 26): OpenSpiel state texts and records are read as JSON, checked field by field
and refused with one line; a state text of another game is refused; saves leave the old file whole when they fail;
a seat's replay view shows only what it saw live; the replay page stays small; the viewer survives prototype names.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import re

import numpy as np
import pyspiel
import pytest
from conftest import headless_dom
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uno_env import PRESETS, Game, make_rules, records
from uno_env import engine as E
from uno_env import openspiel as U
from uno_env import picture as P
from uno_env.render import table_view
from uno_env.replay import Replay, replay_data, replay_html, view_frames


def load(**params):
    return pyspiel.load_game(U.GAME_NAME, params)


def played(game, seed: int, steps: int):
    """A state of `game` after up to `steps` random legal actions."""
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def one_line_value_error(call) -> str:
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert message and "\n" not in message, message
    return message


class _Touch:
    """Unpickled, it creates a file: what a crafted state text could make any command do."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return open, (self.path, "w")


# ------------------------------------------------------------------------------------- OpenSpiel state text


def test_a_crafted_state_text_runs_nothing(tmp_path):
    game = load(players=2)
    marker = tmp_path / "ran"
    payload = base64.b64encode(pickle.dumps({"_core": _Touch(marker)})).decode()
    crafted = f"history=\nmove_number=0\n__dict__={payload}"
    assert "not a python_uno state text" in one_line_value_error(lambda: game.deserialize_state(crafted))
    pair = f"{U._META}\n[Game]\n{game}\n[GameRNGState]\n0\n[State]\n{crafted}"
    one_line_value_error(lambda: U.deserialize_game_and_state(pair))
    assert not marker.exists()


@pytest.mark.parametrize("variant", PRESETS)
def test_state_texts_are_json_data_and_go_on_exactly(variant):
    game = load(variant=variant, players=3, rng_seed=4)
    for steps in (0, 9, 40, 200):
        state = played(game, steps, steps)
        text = state.serialize()
        data = json.loads(text)  # data only: JSON, the engine's fields as integer lists
        assert data["format"] == "python_uno-state" and data["game"]["variant"] == variant
        assert "pickle" not in text and "__dict__" not in text
        copy = game.deserialize_state(text)
        assert copy.game_batch().state_array.tobytes() == state.game_batch().state_array.tobytes()
        assert copy.history() == state.history() and copy.move_number() == state.move_number()
        assert copy.serialize() == text
        for player in range(3):
            assert copy.information_state_string(player) == state.information_state_string(player)
        for other in (state, copy):  # the generator was copied too: the same choices go the same way
            rng = np.random.default_rng(steps)
            for _ in range(30):
                if other.is_terminal():
                    break
                other.apply_action(int(rng.choice(other.legal_actions())))
        assert copy.serialize() == state.serialize()


def test_resampled_and_engine_made_states_round_trip():
    game = load(variant="unocorns", players=4)
    state = played(game, 3, 25)
    for other in (state.resampled(7), game.new_state_from_engine(state.game_batch().state_array)):
        again = game.deserialize_state(other.serialize())
        assert again.serialize() == other.serialize()
        assert again.information_state_string(other.current_player()) == other.information_state_string(
            other.current_player()
        )


def test_a_state_of_another_game_is_refused():
    text = played(load(variant="unocorns", players=4), 1, 10).serialize()
    message = one_line_value_error(lambda: load(players=2).deserialize_state(text))
    assert "another game" in message and "players=4" in message and "variant='unocorns'" in message
    other_rules = load(variant="unocorns", players=4, hand_size=5)
    assert "hand_size=7" in one_line_value_error(lambda: other_rules.deserialize_state(text))
    assert load(variant="unocorns", players=4, rng_seed=9).deserialize_state(text).serialize() == text  # deals only


def _mutations(text: str):
    data = json.loads(text)

    def changed(path, value):
        copy = json.loads(text)
        target = copy
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return json.dumps(copy)

    yield "", "not a python_uno state text"
    yield text[: len(text) // 2], "not a python_uno state text"
    yield "[" * 100_000 + "]" * 100_000, "not a python_uno state text"
    yield text.replace('"redeals":0', '"redeals":' + "9" * 5000), "not a python_uno state text"
    yield changed(["version"], 2), "version must be 1"
    yield changed(["engine", "seat"], 7), "engine.seat must hold ints from 0 to 2"
    yield changed(["engine", "draw_len"], 30_000), "engine.draw_len must hold ints from 0 to 256"
    yield changed(["engine", "draw_pile", 0], 200), "engine.draw_pile must hold ints from 0 to 58"
    yield changed(["engine", "hand"], [[0] * 59] * 3), "engine.hand must be a list of 10"
    yield changed(["engine", "rng"], 2**64), "engine.rng must hold ints"
    yield changed(["engine", "direction"], 0), "engine.direction"
    yield changed(["engine", "phase"], True), "engine.phase must be an int"
    hand = [row[:] for row in data["engine"]["hand"]]
    hand[0][5] += 1
    yield changed(["engine", "hand"], hand), "do not match the deck"
    yield changed(["history"], [[0, 5]] * 100_000), "'history' must be a list of at most"
    yield changed(["history"], [[9, 5]]), "history[0] must be [player 0 to 2"
    yield changed(["recall"], ["00"] * 3), "'recall' must be 3 strings of 32 hex digits"
    yield changed(["game", "variant"], "\ud800"), "another game"
    del data["engine"]["known"]
    yield json.dumps(data), "'engine' must hold exactly the fields"


def test_malformed_truncated_and_mutated_state_texts_get_one_line():
    game = load(players=3)
    text = played(game, 2, 12).serialize()
    for bad, match in _mutations(text):
        assert match in one_line_value_error(lambda bad=bad: game.deserialize_state(bad))


_STATE_TEXT = played(load(variant="unocorns", players=3), 5, 30).serialize()
_FIELDS = E.STATE_DTYPE.names


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(_FIELDS), index=st.integers(0, 10**6), value=st.integers(-(2**70), 2**70))
def test_any_engine_field_mutation_is_refused_or_plays_on(field, index, value):
    # Never a crash (the compiled engine reads indexes unchecked): a mutated text is refused with one line, or it
    # is an engine state that passes every check and plays on.
    data = json.loads(_STATE_TEXT)
    flat = np.array(data["engine"][field], dtype=object).reshape(-1)
    flat[index % flat.size] = value
    data["engine"][field] = flat.reshape(np.shape(data["engine"][field])).tolist() if flat.size > 1 else value
    game = load(variant="unocorns", players=3)
    try:
        state = game.deserialize_state(json.dumps(data))
    except ValueError as error:
        assert "\n" not in str(error)
        return
    for _ in range(20):
        if state.is_terminal():
            break
        state.apply_action(state.legal_actions()[0])
        state.game_batch().check(0)


def test_game_and_state_texts_parse_their_game_line_as_data():
    game = load(players=3, rng_seed=2)
    state = played(game, 0, 5)
    text = U.serialize_game_and_state(game, state)
    other_game, other = U.deserialize_game_and_state(text)
    assert other.serialize() == state.serialize() and str(other_game) == str(game)
    for old, new, match in [
        ("players=3", "players=3,players=4", "not one of its parameters"),
        ("players=3", "players=python_uno(players=2)", "players must be an int"),
        ("hand_size=7", "hand_size=99999999999", "hand_size must be an int"),
        (f"\n[GameRNGState]\n{game._next_seed}\n", "\n[GameRNGState]\n" + "9" * 5000 + "\n", "a seed from 0 to"),
    ]:
        assert old in text
        bad = text.replace(old, new)
        assert match in one_line_value_error(lambda bad=bad: U.deserialize_game_and_state(bad))


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"max_steps": 2**31}, "max_steps must be an int from 1 to 2147483647"),
        ({"hand_size": 2**40}, "hand_size must be an int from"),
        ({"rng_seed": 2**63}, "rng_seed must be an int from 0 to 2147483647"),
        ({"uno_catch_rate": float("nan")}, "uno_catch_rate must be a finite float"),
        ({"colour": "red"}, "unknown parameter"),
    ],
)
def test_out_of_range_game_parameters_get_one_line(params, match):
    assert match in one_line_value_error(lambda: U.load_game(params))
    if "max_steps" in params:
        assert match in one_line_value_error(lambda: U.make_game(make_rules("classic"), 2, max_steps=2**31))


# ----------------------------------------------------------------------------------------------------- records


@pytest.fixture(scope="module")
def record() -> dict:
    game = Game("classic", 2, seed=3)
    for _ in range(6):
        game.step(game.legal_action_ids()[0])
    return game.to_record(agents=["a", "b"])


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda text: text.replace('"agents": ["a", "b"]', '"agents": ["\\ud800", "b"]'), r"record\['agents'\]\[0\]"),
        (lambda text: text.replace("\n}", ',\n  "meta": {"x\\udfff": 1}\n}'), r"a key of record\['meta'\]"),
        (
            lambda text: text.replace('"seed": 3', '"seed": ' + "9" * 5000),
            r"record\['seed'\] must be an int .* 5000 digits",
        ),
        (
            lambda text: text.replace('"details": null', '"details": null, "meta": ' + "[" * 1000 + "]" * 1000),
            "nested too deeply",
        ),
    ],
)
def test_hostile_json_in_a_record_is_refused_naming_the_field(record, edit, match):
    text = edit(records.dumps_record(record))
    with pytest.raises(records.RecordError, match=match) as info:
        records.loads_record(text)
    assert "\n" not in str(info.value)


def test_a_record_longer_than_any_game_is_refused(record):
    long = {**record, "max_steps": 10**9, "actions": [0] * (records.MAX_RECORD_ACTIONS + 1), "result": None}
    with pytest.raises(records.RecordError, match=r"record\['actions'\] holds 100001 actions; a record holds at most"):
        records.check_record(long)


# ---------------------------------------------------------------------------------------------- safe saves


def test_a_failed_save_leaves_the_old_file_whole(record, tmp_path, monkeypatch):
    path = tmp_path / "game.json"
    records.save_record(record, path)
    old = path.read_bytes()
    monkeypatch.setattr(records, "dumps_record", lambda record: "{\ud800}")  # text no file can hold
    with pytest.raises(UnicodeEncodeError):
        records.save_record(record, path)
    assert path.read_bytes() == old
    page = tmp_path / "game.html"
    viewer = Replay(record)
    viewer.save_html(page)
    old_page = page.read_bytes()
    monkeypatch.setattr(Replay, "html", lambda self, **link: "<html>\ud800")
    with pytest.raises(UnicodeEncodeError):
        viewer.save_html(page)
    assert page.read_bytes() == old_page
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.html", "game.json"]  # no temporary file left


def test_a_failed_animation_leaves_the_old_file_whole(tmp_path, image_save_fails_half_written):
    path = tmp_path / "game.gif"
    frames = [np.zeros((8, 8, 3), np.uint8), np.full((8, 8, 3), 255, np.uint8)]
    P.save_animation(frames, path)
    old = path.read_bytes()

    image_save_fails_half_written()
    with pytest.raises(OSError, match="No space left"):
        P.save_animation(frames, path)
    assert path.read_bytes() == old and [p.name for p in tmp_path.iterdir()] == ["game.gif"]


def test_write_atomic_keeps_the_files_mode_and_writes_through_a_link(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("old")
    os.chmod(path, 0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(path)
    records.write_atomic(link, "new")
    assert path.read_text() == "new" and link.is_symlink() and (path.stat().st_mode & 0o777) == 0o640


# ------------------------------------------------------------------------------------------------ replays


def _world(drawn: str) -> dict:
    """Seat 0 plays R5; seat 1 (no red, no 5) draws `drawn`, keeping it if it is playable; seat 0 plays R6."""
    deal = {"dealer": 1, "hands": [["R5", "R6", "R7", "B3"], ["B2", "G3", "Y4"]], "top": "R1", "deck": [drawn]}
    game = Game("classic", 2, seed=5, deal=deal)
    game.step("play R5")
    game.step("draw")
    if game.phase == "drawn":
        game.step("pass")
    game.step("play R6")
    return game.to_record()


def test_a_seats_replay_never_changes_with_what_it_cannot_see():
    kept, unplayable = _world("R9"), _world("G9")  # seat 1 keeps a playable card / draws one it cannot play
    assert len(kept["actions"]) == len(unplayable["actions"]) + 1
    assert replay_data(kept, viewers=[0]) == replay_data(unplayable, viewers=[0])
    steps = [step for step, _ in view_frames(replay_data(kept, viewers=[0]), "0")]
    assert [step.get("action") for step in steps] == [None, "play R5", "draw", "play R6"]
    # the spectator and seat 1 itself see the decision on the drawn card
    assert [step.get("action") for step, _ in view_frames(replay_data(kept, viewers=[1]), "1")][2:4] == ["draw", "pass"]
    assert "seed" not in replay_data(kept, viewers=[0])["title"]  # the seed tells every card of a shuffled deal
    assert "seed 5" in replay_data(kept)["title"]


def test_table_view_shows_another_seats_drawn_phase_as_play():
    game = Game("classic", 2, seed=5, deal={"dealer": 1, "hands": [["R5", "R6"], ["B2", "G3"]], "top": "R1",
                                            "deck": ["R9"]})  # fmt: skip
    game.step("play R5")
    game.step("draw")
    assert game.phase == "drawn"
    assert table_view(game, 1)["phase"] == "drawn" and table_view(game, None)["phase"] == "drawn"
    assert table_view(game, 0)["phase"] == "play"


def test_the_replay_page_grows_with_the_record_and_stays_small():
    sizes = []
    for max_steps in (300, 1200):
        game = Game("unocorns", 4, seed=8, max_steps=max_steps)
        rng = np.random.default_rng(8)
        while not game.done:
            game.step(int(rng.choice(game.legal_action_ids())))
        record = game.to_record()
        page = len(replay_html(record).encode())
        sizes.append(page / len(record["actions"]))
        assert page < 150 * len(records.dumps_record(record).encode())  # the page of 2,966 decisions was 48 MB
    assert max(sizes) < 1_000 and max(sizes) < 2 * min(sizes)  # bytes per decision: linear


@pytest.mark.parametrize("view", ["constructor", "__proto__"])
def test_the_viewer_ignores_prototype_names_in_its_address(record, tmp_path, view):
    path = Replay(record).save_html(tmp_path / "game.html")
    run = headless_dom(f"{path.as_uri()}#step=2&view={view}")
    assert f"decision 2 / {len(record['actions'])}" in run.stdout, run.stderr[-2000:]
    assert "Decision 2: Player " in run.stdout
    assert len(re.findall(r'class="uno-seat(?: [^"]*)?"', run.stdout)) == 2  # the table is drawn (the first view)
