"""The tournament runner: paired seeds, rotated seats, determinism, records true to the games, the CLI."""

import json

import numpy as np
import pytest

from uno_env import Game
from uno_env.agents import RandomAgent
from uno_env.arena.tournament import _lineups, main, play_games, run_tournament


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
        (["--agents", "greedy", "wizard"], "unknown agent(s) wizard; the agents are random, naive, greedy, counter"),
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
