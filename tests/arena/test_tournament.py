"""The tournament runner: paired seeds, rotated seats, determinism, records true to the games, the CLI."""

import json
import pickle

import numpy as np
import pytest

from uno_env import Game, make_rules
from uno_env.agents import RandomAgent
from uno_env.arena import tournament
from uno_env.arena.tournament import (
    ChunkPlayer,
    _lineups,
    chunk_agent_seed,
    main,
    play_games,
    run_tournament,
    tournament_chunks,
)


class FirstLegal:
    """Deterministic: the lowest legal action id (its choices do not depend on the batch)."""

    observation = "minimal"

    def act(self, observations, action_masks):
        return action_masks.argmax(axis=1)


class LastLegal:
    observation = "knowledge"

    def act(self, observations, action_masks):
        return 76 - action_masks[:, ::-1].argmax(axis=1)


def _play(agents, lineup, **kwargs):
    return play_games(agents, lineup, "classic", **kwargs)


def test_every_seed_is_played_under_every_rotation():
    records = _play({"a": FirstLegal(), "b": LastLegal()}, ["a", "b"], games=10, seed=100, batch_size=3)
    assert [r.seed for r in records] == [100, 100, 101, 101, 102, 102, 103, 103, 104, 104]
    assert [r.lineup for r in records] == [("a", "b"), ("b", "a")] * 5
    three = _play({"x": FirstLegal(), "y": LastLegal()}, ["x", "y", "y"], games=6, seed=0, batch_size=4)
    assert [r.lineup for r in three] == [("x", "y", "y"), ("y", "x", "y"), ("y", "y", "x")] * 2


def test_batch_size_does_not_change_the_games():
    agents = {"a": FirstLegal(), "b": LastLegal()}
    small = _play(agents, ["a", "b"], games=24, seed=7, batch_size=2)
    large = _play(agents, ["a", "b"], games=24, seed=7, batch_size=64)
    assert small == large


def test_records_match_the_games_played_one_at_a_time():
    records = _play({"a": FirstLegal(), "b": LastLegal()}, ["a", "b"], games=6, seed=40, batch_size=4)
    policies = {"a": FirstLegal(), "b": LastLegal()}
    for record in records:
        game = Game("classic", 2, seed=record.seed)
        steps = 0
        while not game.done:
            agent = policies[record.lineup[game.seat]]
            mask = game.batch.legal_masks().astype(np.int8)
            game.step(int(agent.act(None, mask)[0]))
            steps += 1
        assert record.winners == tuple(game.winners)
        assert record.points == tuple(game.scores)
        assert record.length == steps


def test_same_seed_same_tournament_and_another_seed_differs():
    first = run_tournament(["random", "naive"], games=40, seed=3, progress=False, batch_size=16)
    again = run_tournament(["random", "naive"], games=40, seed=3, progress=False, batch_size=16)
    other = run_tournament(["random", "naive"], games=40, seed=4, progress=False, batch_size=16)
    assert first.records == again.records
    assert first.records != other.records


def test_lineups_round_robin_and_fill():
    assert _lineups(["a", "b", "c"], 2, None) == [["a", "b"], ["a", "c"], ["b", "c"]]
    assert _lineups(["a", "b"], 4, None) == [["a", "b", "a", "b"]]
    assert _lineups(["a", "b"], 3, ["b", "a", "a"]) == [["b", "a", "a"]]
    with pytest.raises(ValueError, match="3 seats but the game has 2"):
        _lineups(["a", "b"], 2, ["a", "b", "a"])
    with pytest.raises(ValueError, match="not among the agents"):
        _lineups(["a", "b"], 2, ["a", "z"])


def test_an_agent_returning_an_illegal_action_is_named():
    class Cheater:
        observation = "minimal"

        def act(self, observations, action_masks):
            return np.full(len(action_masks), 59 + 17)  # 'uno' is never legal in a play phase

    from uno_env import IllegalActionError

    with pytest.raises(IllegalActionError, match="agent 'cheat'"):
        _play({"cheat": Cheater(), "r": RandomAgent(0)}, ["cheat", "r"], games=2)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--agents", "greedy", "wizard"], "unknown agent 'wizard'; the agents are random, naive, greedy, counter"),
        (["--agents", "random", "--variant", "dos"], "unknown variant 'dos'; the variants are classic"),
        (["--agents", "random", "--option", "nonsense=1"], "unknown rule option 'nonsense'; the options are"),
        (["--agents", "random", "--option", "hand_size=0"], "hand_size must be an int from 1 to 50"),
        (["--agents", "random", "--option", "stack_draw_two"], "rule options are NAME=VALUE"),
        (["--agents", "random", "--players", "11"], "--players: must be an int from 2 to 10"),
    ],
)
def test_bad_input_exits_2_and_says_what_exists(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--games", "4", "--no-progress", "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_cli_prints_the_table_and_writes_the_reports(capsys, tmp_path):
    code = main(
        ["--agents", "random", "naive", "--games", "60", "--seed", "1", "--no-progress", "--out", str(tmp_path)]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "classic, 2 players, 60 games" in out and "random" in out and "naive" in out
    report = json.loads((tmp_path / "tournament.json").read_text())
    assert report  # the summaries and settings
    assert (tmp_path / "tournament.csv").read_text().count("\n") >= 3
    assert (tmp_path / "tournament.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_rule_set_plays_the_games_of_its_variant_and_options():
    settings = dict(games=24, seed=5, progress=False, batch_size=8, chunk_games=8)
    by_name = run_tournament(["greedy", "naive"], "classic", 2, stack_draw_two=True, hand_size=5, **settings)
    by_rules = run_tournament(["greedy", "naive"], make_rules("classic", stack_draw_two=True, hand_size=5), 2,
                              **settings)  # fmt: skip
    assert by_rules.records == by_name.records
    assert by_rules.settings == by_name.settings  # the report names the options that differ from the variant's
    assert by_name.records != run_tournament(["greedy", "naive"], "classic", 2, **settings).records
    with pytest.raises(ValueError, match="either inside the RuleSet or as keywords"):
        run_tournament(["greedy"], make_rules("classic"), 2, hand_size=5, **settings)


def test_each_agent_is_built_once_per_chunk_and_each_chunk_played_once(monkeypatch, tmp_path):
    built, played = [], []
    real_make_agent, real_play_games = tournament.make_agent, tournament.play_games

    def counted_make_agent(name, seed=None, trust=False):
        built.append((name, seed))
        return real_make_agent(name, seed=seed, trust=trust)

    def counted_play_games(agents, lineup, variant, **kwargs):
        played.append(tuple(lineup))
        return real_play_games(agents, lineup, variant, **kwargs)

    monkeypatch.setattr(tournament, "make_agent", counted_make_agent)
    monkeypatch.setattr(tournament, "play_games", counted_play_games)
    # one lineup of 2 seats, 8 seeds cut into chunks of 3 seeds: 3 chunks; "random" and "counter" are never seated
    result = run_tournament(["random", "naive", "greedy", "counter"], "classic", 2, lineup=["naive", "greedy"],
                            games=16, seed=1, chunk_games=6, progress=False, batch_size=4,
                            save_games=tmp_path, save_games_count=2)  # fmt: skip
    assert played == [("naive", "greedy")] * 3  # the sample games are traced as the tournament plays them
    assert sorted(built) == sorted(
        [("random", None), ("counter", None)] + [(name, chunk_agent_seed(1, chunk, [1, 2][i])) for chunk in range(3)
                               for i, name in enumerate(["naive", "greedy"])]
    )  # fmt: skip
    assert len(result.records) == 16 and len(result.saved_games) == 2


def test_the_chunk_player_travels_and_plays_a_chunk_alike():
    """What a Ray worker gets: the pickled player plays a chunk's games and sample traces as this process does."""
    player = ChunkPlayer(make_rules("classic", stack_draw_two=True), ("random", "counter"), seed=3, batch_size=4)
    chunk = tournament_chunks([["counter", "random"]], 12, 3, 8, samples=3)[1]
    assert chunk.samples == 0 and tournament_chunks([["counter", "random"]], 12, 3, 8, samples=3)[0].samples == 3
    chunk = tournament_chunks([["counter", "random"]], 12, 3, 8, samples=3)[0]
    here, there = player(chunk), pickle.loads(pickle.dumps(player))(chunk)
    assert here == there and sorted(here.samples) == [0, 1, 2]
    assert [len(here.samples[job]) for job in range(3)] == [game.length for game in here.results[:3]]
