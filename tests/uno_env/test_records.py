"""Game records and replays: records round-trip through JSON and replay decision for decision; corrupt records are
refused with clear errors before anything is built; uno-arena --save-games and uno-play --save write records that
replay to the games' results; the HTML replay embeds every step's views and no card a seat may not see."""

from __future__ import annotations

import copy
import dataclasses
import html
import io
import json
import random
import re
import subprocess

import pytest
from conftest import headless_dom, scripted_input
from rich.console import Console

from uno_env import PRESETS, Game, make_rules
from uno_env import cards as C
from uno_env import game as game_module
from uno_env.arena.tournament import ChunkGames, ChunkPlayer, run_tournament, save_sample_games, tournament_chunks
from uno_env.arena.tournament import main as arena_main
from uno_env.play.terminal import main as play_main
from uno_env.records import (
    RecordError,
    check_record,
    dumps_record,
    load_record,
    loads_record,
    make_record,
    record_rules,
    result_of,
    save_record,
)
from uno_env.render import table_view
from uno_env.replay import Replay, replay, replay_data, replay_html, replay_steps, static_asset, view_frames

DATA = re.compile(r'<script type="application/json" id="uno-replay-data">(.*?)</script>', re.S)


def snapshot(game: Game) -> tuple[dict, bytes]:
    """What must be equal after every decision: the description, and the whole engine state."""
    return game.describe(), game.batch.state_array.tobytes()


def play(game: Game, seed: int, limit: int | None = None) -> tuple[list[int], list[tuple[dict, bytes]]]:
    """Random play that prefers playing a card (short games); the actions and the snapshot after each."""
    rng = random.Random(seed)
    actions, snapshots = [], [snapshot(game)]
    while not game.done and (limit is None or len(actions) < limit):
        legal = game.legal_action_ids()
        cards = [a for a in legal if a < C.NUM_KINDS]
        action = rng.choice(cards if cards and rng.random() < 0.9 else legal)
        game.step(action)
        actions.append(action)
        snapshots.append(snapshot(game))
    return actions, snapshots


def record_of(game: Game, actions, seed, deal=None, episode="round", max_steps=10_000, **kwargs) -> dict:
    return make_record(
        game.rules, game.num_players, actions, seed=seed, deal=deal, episode=episode, max_steps=max_steps,
        result=result_of(game), **kwargs,
    )  # fmt: skip


def assert_replays(record: dict, snapshots) -> None:
    """The record survives JSON and replays to the same state after every decision."""
    again = loads_record(dumps_record(record))
    assert again == record and json.loads(json.dumps(record)) == record
    replayed = [snapshot(game) for game in replay_steps(again)]
    assert len(replayed) == len(snapshots)
    for i, (got, want) in enumerate(zip(replayed, snapshots, strict=True)):
        assert got[0] == want[0], f"describe() differs after decision {i}"
        assert got[1] == want[1], f"the engine state differs after decision {i}"
    assert result_of(replay(again)) == record["result"]


# ------------------------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_round_trips_and_replays_decision_for_decision(preset, players):
    seed = 11 * players + PRESETS.index(preset)
    game = Game(preset, players, seed=seed)
    actions, snapshots = play(game, seed)
    assert game.done
    record = record_of(game, actions, seed, agents=[f"bot{s}" for s in range(players)])
    assert record["variant"] == preset and record["actions"] == actions
    assert record_rules(record) == game.rules
    assert_replays(record, snapshots)


@pytest.mark.parametrize(
    "preset, players, options, episode",
    [
        ("classic", 3, {"uno_call": "explicit", "uno_catch_rate": 0.5}, "round"),
        ("classic", 2, {"stack_draw_two": True, "card_counts": {"+2": 4}}, "round"),
        ("swap", 4, {"stack_draw_two": False, "uno_penalty": 1, "hand_size": 5}, "round"),
        ("emoji", 2, {"emoji_face_fail_rate": 0.5, "card_points": {"WE": 75, "5": 9}}, "round"),
        ("unocorns", 3, {"narwhal_includes_player": False, "target_score": 250}, "match"),
        ("classic", 2, {"scoring": "penalty", "target_score": 60, "two_player_reverse_is_skip": False}, "match"),
    ],
)
def test_options_and_matches_round_trip_exactly(preset, players, options, episode):
    game = Game(preset, players, seed=5, episode=episode, **options)
    actions, snapshots = play(game, 5)
    record = record_of(game, actions, 5, episode=episode)
    rebuilt = make_rules(record["variant"], **record["options"])
    assert rebuilt == game.rules == make_rules(preset, **options)
    assert set(record["options"]) == set(game.rules.options())
    assert len(record["options"]["card_counts"]) == C.NUM_KINDS  # full dicts, whatever the preset's defaults
    if episode == "match":
        assert game.describe()["rounds"] >= 2
    assert_replays(record, snapshots)


def test_a_dealt_scenario_a_cut_off_game_and_a_game_in_progress_replay():
    deal = {"dealer": 1, "hands": [["R5", "R6", "B7", "W"], ["G2", "R9", "W+4"]], "top": "R1", "deck": ["Y4", "G5"],
            "foreheads": [[], []], "scores": [10, 20]}  # fmt: skip
    game = Game("classic", 2, seed=3, deal=deal, episode="match", target_score=100)
    actions, snapshots = play(game, 3)
    record = record_of(game, actions, 3, deal=deal, episode="match")
    assert record["deal"] == deal
    assert_replays(record, snapshots)

    cut = Game("unocorns", 3, seed=8, max_steps=25)
    actions, snapshots = play(cut, 8)
    record = record_of(cut, actions, 8, max_steps=25)
    assert record["result"]["truncated"] and record["result"]["winners"] == []
    assert_replays(record, snapshots)

    going = Game("monster_high", 4, seed=2)
    actions, snapshots = play(going, 2, limit=12)
    record = record_of(going, actions, 2)
    assert record["result"]["done"] is False
    assert_replays(record, snapshots)
    no_result = make_record("monster_high", 4, actions, seed=2)
    assert no_result["result"] is None and replay(no_result).describe() == going.describe()


def test_details_meta_and_numpy_values_become_plain_json(tmp_path):
    import numpy as np

    game = Game("classic", 2, seed=1)
    actions, _ = play(game, 1, limit=6)
    details = [{"probabilities": {"draw": np.float32(0.25)}, "value": np.array([1.5, 2.0])}] + [None] * 5
    record = make_record(game.rules, 2, np.array(actions), seed=np.uint64(1), details=details, meta={"n": np.int64(3)})
    assert record["details"][0] == {"probabilities": {"draw": 0.25}, "value": [1.5, 2.0]}
    assert type(record["seed"]) is int and all(type(a) is int for a in record["actions"])
    path = save_record(record, tmp_path / "game.json")
    text = path.read_text(encoding="utf-8")
    assert text.startswith('{\n  "format": "uno-env-record",\n  "version": 1,') and load_record(path) == record
    with pytest.raises(RecordError, match="finite"):
        make_record(game.rules, 2, actions, seed=1, details=[{"p": float("nan")}] + [None] * 5)
    with pytest.raises(RecordError, match="colours"):
        make_record(dataclasses.replace(game.rules, colors=C.PINK_COLORS), 2, actions, seed=1)


# -------------------------------------------------------------------------------------- corrupt records


@pytest.fixture(scope="module")
def good() -> dict:
    game = Game("classic", 2, seed=4)
    actions, _ = play(game, 4)
    return make_record(game.rules, 2, actions, seed=4, agents=["a", "b"], result=result_of(game))


def changed(record: dict, path: tuple, value=None, delete: bool = False) -> dict:
    record = copy.deepcopy(record)
    target = record
    for key in path[:-1]:
        target = target[key]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return record


CORRUPT = [
    (("format",), "uno-env-save", "record['format'] must be 'uno-env-record'"),
    (("version",), 2, "unsupported record version 2: this uno-env reads version 1"),
    (("version",), "1", "unsupported record version '1'"),
    (("extra",), 1, "unknown record key(s) 'extra'"),
    (("variant",), "dos", "record['variant'] must be one of classic"),
    (("options", "house_rule"), True, "unknown option(s) 'house_rule'; the options are two_player_reverse_is_skip"),
    (("options", "hand_size"), "7", "hand_size must be an int from 1 to 50, got '7'"),
    (("options", "card_counts"), [1, 2], "record['options']['card_counts'] must be a dict of card code -> int"),
    (("options", "card_counts", "R5"), 1.5, "card_counts['R5'] must be an int from 0 to 100"),
    (("options", "card_counts", "Q9"), 1, "malformed card code 'Q9'"),
    (("options",), "classic", "record['options'] must be a dict"),
    (("num_players",), True, "record['num_players'] must be an int from 2 to 10, got True"),
    (("num_players",), 11, "record['num_players'] must be an int from 2 to 10, got 11"),
    (("episode",), "tournament", "record['episode'] must be 'round' or 'match'"),
    (("max_steps",), 0, "record['max_steps'] must be an int from 1 to"),
    (("seed",), -1, "record['seed'] must be an int from 0 to 2**64 - 1, got -1"),
    (("seed",), 2**64, "record['seed'] must be an int from 0 to 2**64 - 1"),
    (("seed",), 1.0, "record['seed'] must be an int from 0 to 2**64 - 1, got 1.0 (float)"),
    (("actions",), "0 1 2", "record['actions'] must be a list of action ids, got str"),
    (("actions", 0), 77, "record['actions'][0] must be an action id, an int from 0 to 76, got 77"),
    (("actions", 1), "__import__('os').system('echo pwned')", "record['actions'][1] must be an action id"),
    (("actions", 0), False, "record['actions'][0] must be an action id"),
    (("agents",), ["only one"], "record['agents'] must be null or a list of 2 names"),
    (("details",), [{}], "record['details'] must be null or a list of one dict (or null) per action"),
    (("deal",), {"dealer": 0, "hands": [["R5"], ["X9"]]}, "record['deal']['hands'][1][0]: malformed card code 'X9'"),
    (("deal",), {"dealer": 5, "hands": [["R5"], ["B5"]]}, "record['deal']['dealer'] must be a seat from 0 to 1"),
    (("deal",), {"dealer": 0, "hands": [["R5"], ["B5"]], "cheat": 1}, "record['deal'] has unknown key(s) cheat"),
    (("result", "winners"), [2], "record['result']['winners'] must be a sorted list of distinct seats 0 to 1"),
    (("result", "done"), 1, "record['result']['done'] must be true or false"),
    (("result", "bonus"), 1, "record['result'] must have exactly the keys scores, winners, done, truncated"),
    (("meta",), [1], "record['meta'] must be null or a dict"),
]


@pytest.mark.parametrize("path, value, message", CORRUPT, ids=[message[:40] for _, _, message in CORRUPT])
def test_corrupt_records_are_refused_before_any_game_is_built(good, path, value, message, monkeypatch):
    bad = changed(good, path, value)

    def never(*args, **kwargs):
        raise AssertionError("a game was built from a record that should have been refused")

    monkeypatch.setattr(game_module.GameBatch, "__init__", never)
    attempts = (check_record, replay, lambda r: list(replay_steps(r)), Replay, lambda r: loads_record(json.dumps(r)))
    for attempt in attempts:
        with pytest.raises(RecordError) as error:
            attempt(bad)
        assert message in str(error.value)


def test_missing_fields_and_non_records_are_refused(good, tmp_path):
    with pytest.raises(RecordError, match=r"the record lacks 'actions' \(use null where a field is empty\)"):
        check_record(changed(good, ("actions",), delete=True))
    with pytest.raises(RecordError, match="a game record must be a dict"):
        check_record([good])
    pickled = tmp_path / "game.pkl"
    pickled.write_bytes(b"\x80\x04\x95cos\nsystem\n.")  # a pickle: never unpickled, refused as not JSON
    with pytest.raises(RecordError, match="not a game record: not"):
        load_record(pickled)
    nan = tmp_path / "nan.json"
    nan.write_text(dumps_record(good).replace('"details": null', '"details": NaN'))
    with pytest.raises(RecordError, match="only finite numbers"):
        load_record(nan)
    with pytest.raises(RecordError, match="nested too deeply"):
        loads_record("[" * 100_000 + "]" * 100_000)
    latin = tmp_path / "latin.json"
    latin.write_bytes(dumps_record(good).replace('"a"', '"\u00e9"').encode("latin-1"))
    with pytest.raises(RecordError, match="not UTF-8 text"):
        load_record(latin)


def test_an_illegal_action_or_another_result_is_named(good):
    first_legal = Game("classic", 2, seed=4).legal_action_ids()
    illegal = next(a for a in range(77) if a not in first_legal)
    with pytest.raises(RecordError, match=r"record\['actions'\]\[0\] \('.*'\) is not legal at decision 0 .*legal: "):
        replay(changed(good, ("actions", 0), illegal))
    with pytest.raises(RecordError, match=r"comes after the end of the episode"):
        replay(changed(good, ("actions",), good["actions"] + [59]))
    scores = list(good["result"]["scores"])
    scores[0] += 1
    with pytest.raises(RecordError, match=r"replay to another result: scores \[.*\] \(the record says \[.*\]\)"):
        replay(changed(good, ("result", "scores"), scores))
    with pytest.raises(RecordError, match=r"done False \(the record says True\)"):
        replay(changed(good, ("actions",), good["actions"][:-1]))
    with pytest.raises(RecordError, match="the record's game cannot be dealt: the deal places 5 copies of R5"):
        replay(changed(good, ("deal",), {"dealer": 0, "hands": [["R5"] * 5, ["B5"]]}))



def test_game_from_record_is_the_replay_and_refuses_what_it_refuses(good):
    """`Game.from_record` and `uno_env.replay.replay` are one implementation: the same game, the same refusals."""
    assert snapshot(Game.from_record(good)) == snapshot(replay(good))
    first_legal = Game("classic", 2, seed=4).legal_action_ids()
    illegal = next(a for a in range(77) if a not in first_legal)
    for bad in (changed(good, ("actions", 0), illegal), changed(good, ("deal",), {"dealer": 0, "hands": [[], []]})):
        with pytest.raises(RecordError) as by_replay:
            replay(bad)
        with pytest.raises(RecordError) as by_game:
            Game.from_record(bad)
        assert str(by_game.value) == str(by_replay.value)


def test_a_record_is_checked_against_the_games_own_limits_not_a_copy():
    """The episode kinds, the deal's keys and the step and seed limits are defined once (`uno_env.validate`) and
    the game, the records and the command line use those very objects."""
    from uno_env import cli, records, validate

    for name in ("EPISODES", "DEAL_KEYS", "MAX_STEPS_LIMIT", "SEED_LIMIT"):
        assert getattr(records, name) is getattr(validate, name), name
    for name in ("EPISODES", "DEAL_KEYS", "MAX_STEPS_LIMIT"):
        assert getattr(game_module, name) is getattr(validate, name), name
    assert cli.EPISODES is validate.EPISODES


# ---------------------------------------------------------------------------------------- the commands


def test_arena_saves_sample_games_that_replay_to_the_tournaments_results(tmp_path):
    result = run_tournament(
        ["random", "greedy", "counter"], "classic", 2, games=24, seed=9, batch_size=4, progress=False,
        save_games=tmp_path, save_games_count=3,
    )  # fmt: skip
    assert len(result.saved_games) == 9  # 3 lineups, 3 games each
    recorded = {(r.seed, r.lineup): r for r in result.records}
    for path in result.saved_games:
        record = load_record(path)
        game = recorded[(record["seed"], tuple(record["agents"]))]
        assert record["result"] == {"scores": list(game.points), "winners": list(game.winners), "done": True,
                                    "truncated": False}  # fmt: skip
        assert len(record["actions"]) == game.length
        assert result_of(replay(record)) == record["result"]
    names = sorted(path.name for path in result.saved_games)
    assert names[:3] == ["lineup0-random-greedy-game0.json", "lineup0-random-greedy-game1.json",
                         "lineup0-random-greedy-game2.json"]  # fmt: skip


def test_a_sample_game_that_does_not_replay_is_refused(tmp_path):
    rules = make_rules("classic")
    chunks = tournament_chunks([["random", "greedy"]], 6, 0, 8192, samples=2)
    played = ChunkPlayer(rules, ("random", "greedy"), seed=0, batch_size=4)(chunks[0])
    other_agents = ChunkPlayer(rules, ("random", "greedy"), seed=1, batch_size=4)(chunks[0])
    assert sorted(played.samples) == [0, 1] and played.samples != other_agents.samples
    save_sample_games(tmp_path, chunks, [played], rules, 2, seed=0)  # its own actions replay to its results
    mixed = ChunkGames(played.results, other_agents.samples)  # the results of one play, the actions of another
    with pytest.raises(RecordError, match="sample game 0 of lineup random greedy .* (took|does not replay)"):
        save_sample_games(tmp_path, chunks, [mixed], rules, 2, seed=0)


def test_uno_arena_save_games_flag(tmp_path, capsys):
    argv = ["--agents", "random", "naive", "--games", "4", "--seed", "2", "--no-progress", "--out",
            str(tmp_path / "out"), "--save-games", str(tmp_path / "games"), "--save-games-count", "2",
            "--option", "stack_draw_two=true"]  # fmt: skip
    assert arena_main(argv) == 0
    assert "2 sample games in" in capsys.readouterr().out
    files = sorted((tmp_path / "games").glob("*.json"))
    assert [f.name for f in files] == ["lineup0-random-naive-game0.json", "lineup0-random-naive-game1.json"]
    record = load_record(files[1])
    assert record["agents"] == ["naive", "random"] and record["options"]["stack_draw_two"] is True
    replay(record)
    with pytest.raises(SystemExit) as exit_info:
        arena_main(["--agents", "random", "--save-games-count", "0"])
    assert exit_info.value.code == 2


def test_uno_play_save_writes_a_replayable_record(tmp_path):
    console = Console(file=io.StringIO(), width=200)
    path = tmp_path / "mine.json"
    argv = ["--variant", "unocorns", "--players", "3", "--seat", "1", "--opponents", "greedy", "counter", "--seed", "6",
            "--option", "uno_call=explicit", "--save", str(path)]  # fmt: skip
    assert play_main(argv, input_fn=scripted_input(then="1"), console=console) == 0
    assert f"The game is saved in {path}" in console.file.getvalue()
    record = load_record(path)
    assert record["agents"] == ["greedy", "human", "counter"] and record["seed"] == 6
    assert record["meta"] == {"source": "uno-play", "human_seat": 1} and record["result"]["done"]
    assert replay(record).describe()["winners"] == record["result"]["winners"]

    quit_path = tmp_path / "quit.json"  # quitting saves the game so far
    play_main(["--seed", "1", "--save", str(quit_path)], input_fn=scripted_input("1", "1", "q"), console=console)
    partial = load_record(quit_path)
    assert partial["result"]["done"] is False and len(partial["actions"]) >= 2
    replay(partial)


def test_uno_play_save_into_a_missing_folder_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        play_main(["--save", str(tmp_path / "nowhere" / "game.json")], input_fn=scripted_input("q"))
    assert exit_info.value.code == 2
    assert "--save must be a file in an existing folder" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------- replays


@pytest.fixture(scope="module")
def narwhal_record() -> dict:
    """A 3-player Unocorns game with Narwhal forehead cards (hidden from their own seat)."""
    game = Game("unocorns", 3, seed=21, card_counts={"WN": 10})
    actions, _ = play(game, 21, limit=90)
    hostile = "</script><script>alert('x')</script>"
    details = [{"probabilities": {"draw": 1.0}} if i % 2 else None for i in range(len(actions))]
    return record_of(game, actions, 21, agents=["greedy", hostile, "counter"], details=details)


def embedded(page: str) -> dict:
    (text,) = DATA.findall(page)
    return json.loads(text)


def test_the_html_replay_embeds_every_step_and_hides_what_each_seat_cannot_see(narwhal_record, tmp_path):
    record = narwhal_record
    page = replay_html(record)
    data = embedded(page)
    assert [v["key"] for v in data["viewers"]] == ["all", "0", "1", "2"]
    spectator = view_frames(data, "all")
    assert len(spectator) == len(record["actions"]) + 1
    assert [step["action"] for step, _ in spectator[1:]] == [
        Game("unocorns", 3).action_names[a] for a in record["actions"]
    ]
    games = [(game.describe(), table_view(game, None), [table_view(game, seat) for seat in range(3)])
             for game in map(Game.copy, replay_steps(record))]  # fmt: skip
    saw_foreheads = False
    for (_, view), (d, expected, _) in zip(spectator, games, strict=True):
        assert view["seats"][0]["hand"] == d["hands"][0]
        del expected["variant"], expected["players"]
        assert view == expected
    for seat in range(3):
        frames = view_frames(data, str(seat))
        moments = [index for index in range(len(games)) if index not in data["views"][str(seat)]["skipped"]]
        assert len(frames) == len(moments)
        for (step, view), index in zip(frames, moments, strict=True):
            d, _, seat_views = games[index]
            expected = seat_views[seat]  # the views are table_view's, as they are
            del expected["variant"], expected["players"]
            assert view == expected and view["viewer"] == seat
            for other in view["seats"]:
                if other["seat"] != seat:
                    assert other["hand"] is None and other["foreheads"] == d["foreheads"][other["seat"]]
                else:
                    assert other["hand"] == d["hands"][seat]
                    assert other["foreheads"] == [None] * len(d["foreheads"][seat])
                    saw_foreheads |= bool(d["foreheads"][seat])
            if step.get("by") not in (None, seat):
                assert "details" not in step  # another seat's details are its own
    assert saw_foreheads, "the game should have put forehead cards on someone"
    assert data["seats"][1]["agent"] == "</script><script>alert('x')</script>"  # intact, as data
    assert "</script><script>alert" not in page  # and never as markup


def test_the_replay_page_is_self_contained_and_shows_in_a_notebook(narwhal_record, tmp_path):
    viewer = Replay(narwhal_record)
    page = viewer.html()
    assert len(viewer) == len(narwhal_record["actions"])
    for outside in ("<script src", "<link", "@import", "http://", "https://", "url("):
        assert outside not in page.lower()
    assert static_asset("table.js") in page and static_asset("table.css") in page
    assert "UnoTable.mountReplay" in page and "Content-Security-Policy" in page
    path = viewer.save_html(tmp_path / "game.html")
    assert path.read_text(encoding="utf-8") == page
    frame = viewer._repr_html_()
    match = re.fullmatch(r'<iframe srcdoc="([^"]*)" sandbox="allow-scripts" title="[^"]*" style="[^"]*"></iframe>',
                         frame)  # fmt: skip
    assert match and html.unescape(match.group(1)) == page
    spectator_only = replay_data(narwhal_record, viewers=[None])
    assert list(spectator_only["views"]) == ["all"] and "skipped" not in spectator_only["views"]["all"]
    with pytest.raises(ValueError, match="viewers must be seats from 0 to 2"):
        replay_data(narwhal_record, viewers=[3])


def test_the_viewer_script_parses():
    run = subprocess.run(["node", "--check", "-"], input=static_asset("table.js"), capture_output=True, text=True,
                         timeout=60)  # fmt: skip
    assert run.returncode == 0, run.stderr


def test_the_page_runs_in_a_browser_and_opens_at_the_step_and_view_of_its_address(narwhal_record, tmp_path):
    path = Replay(narwhal_record).save_html(tmp_path / "game.html")
    run = headless_dom(f"{path.as_uri()}#step=5&view=1")
    dom = DATA.sub("", run.stdout)
    last = len(replay_data(narwhal_record)["views"]["1"]["steps"]) - 1  # seat 1's own moments
    assert f"decision 5 / {last}" in dom, run.stderr[-2000:]
    assert dom.count('class="uno-seat uno-you') == 1 and 'class="uno-card uno-card-' in dom
    assert "Decision 5: Player " in dom
