"""Reports that describe themselves: `uno-arena --name ALIAS=AGENT` labels an agent in the table, the JSON and CSV and
the plot; labels are checked (unique, among the agents); a text agent seated as `llm` goes by its model's name and
its summary line gives the tokens the chat server counted; every tournament plot's title names the variant, players,
games and seed; the head-to-head cells show the games behind them."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

from uno_env.agents import TextAgent
from uno_env.arena import tournament
from uno_env.arena.ratings import (
    GameResult,
    pairwise_games,
    pairwise_win_matrix,
    plot,
    plot_title,
    relabel,
    summarize,
)
from uno_env.arena.tournament import check_labels, main, run_tournament


@pytest.fixture()
def figures(monkeypatch):
    """The matplotlib figures the tournament's `plot` draws, as it returns them."""
    drawn = []

    def keep(*args, **kwargs):
        drawn.append(plot(*args, **kwargs))
        return drawn[-1]

    monkeypatch.setattr(tournament, "plot", keep)
    return drawn


def test_name_labels_an_agent_in_the_table_the_files_and_the_plot(tmp_path, capsys, figures):
    argv = ["--agents", "greedy", "naive", "--games", "40", "--seed", "3", "--no-progress", "--out", str(tmp_path)]
    assert main([*argv, "--name", "g=greedy"]) == 0
    out = capsys.readouterr().out
    rows = [line.split()[0] for line in out.splitlines()[1:5] if line and line.split()[0] in ("g", "greedy", "naive")]
    assert rows and "g" in rows and "greedy" not in rows
    assert "g against naive" in out or "naive against g" in out
    report = json.loads((tmp_path / "tournament.json").read_text())
    assert {agent["name"] for agent in report["agents"]} == {"g", "naive"}
    assert report["meta"]["labels"] == {"g": "greedy"} and report["meta"]["agents"] == ["greedy", "naive"]
    assert report["pairwise"]["names"] and set(report["pairwise"]["names"]) == {"g", "naive"}
    assert report["pairwise"]["games"] == [[40, 40], [40, 40]]
    with open(tmp_path / "tournament.csv", newline="") as file:
        assert {row["name"] for row in csv.DictReader(file)} == {"g", "naive"}
    (figure,) = figures
    assert figure._suptitle.get_text() == "UNO classic, 2 players, 40 games, seed 3"
    ticks = [label.get_text() for label in figure.axes[0].get_yticklabels()]
    assert sorted(tick.split("\n")[0] for tick in ticks) == ["g", "naive"]
    cells = [text.get_text() for text in figure.axes[1].texts if text.get_text() != "–"]  # the heatmap
    assert len(cells) == 2 and all(text.endswith("\nn=40") for text in cells)  # both off-diagonal cells

    # The label changes the names only: the same games, the same numbers.
    assert main(argv) == 0
    plain = json.loads((tmp_path / "tournament.json").read_text())
    rename = {"g": "greedy"}
    assert [dict(a, name=rename.get(a["name"], a["name"])) for a in report["agents"]] == plain["agents"]


def test_a_label_stands_for_its_agent_in_the_lineup(tmp_path, capsys):
    argv = ["--agents", "greedy", "naive", "--players", "3", "--lineup", "g", "naive", "naive", "--name", "g=greedy",
            "--games", "12", "--no-progress", "--out", str(tmp_path)]  # fmt: skip
    assert main(argv) == 0
    assert "lineups: g naive naive" in capsys.readouterr().out


@pytest.mark.parametrize(
    "names, message",
    [
        (["g"], "--name takes ALIAS=AGENT"),
        (["=greedy"], "--name takes ALIAS=AGENT"),
        (["x=random"], "the label 'x' is for 'random', which is not among the agents (greedy, naive)"),
        (["x=greedy", "x=naive"], "labels must be unique: 'greedy' and 'naive' would both show as 'x'"),
        (["naive=greedy"], "labels must be unique: 'greedy' and 'naive' would both show as 'naive'"),
        (["a=greedy", "b=greedy"], "--name gives 'greedy' two labels, 'a' and 'b'"),
        (["a b=greedy"], "a label is 1 to 40 letters, digits or _ . : + -, got 'a b'"),
        ([f"{'x' * 41}=greedy"], "a label is 1 to 40 letters"),
    ],
)
def test_bad_names_exit_2_in_one_line(names, message, tmp_path, capsys):
    argv = ["--agents", "greedy", "naive", "--games", "4", "--no-progress", "--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, *(part for name in names for part in ("--name", name))])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "out").exists()  # refused before any game


def test_run_tournament_takes_labels_and_checks_them():
    result = run_tournament(["greedy", "naive"], games=8, progress=False, labels={"naive": "n"})
    assert result.names and set(result.names) == {"greedy", "n"}
    assert {name for r in result.records for name in r.lineup} == {"greedy", "n"}
    assert result.settings["labels"] == {"n": "naive"}
    assert result.games.tolist() == [[8, 8], [8, 8]]
    with pytest.raises(ValueError, match="labels must be unique"):
        check_labels({"naive": "greedy"}, ["greedy", "naive"])


class CountingChat:
    """A chat model as `OpenAIChat` is one: named `llm:MODEL`, counting the tokens a server's usage reports (here
    words and 2 a reply); it always answers the first move."""

    def __init__(self, model: str):
        self.name = f"llm:{model}"
        self.prompt_tokens = self.completion_tokens = 0

    def __call__(self, text: str) -> str:
        self.prompt_tokens += len(text.split())
        self.completion_tokens += 2
        return "MOVE: 1"


@pytest.fixture()
def llm_seats(monkeypatch):
    """`llm` and `llm:MODEL` seat text agents on `CountingChat` (the model the environment names is `tiny`); every
    one made is kept."""
    made = []
    make_agent = tournament.make_agent

    def make(name, seed=None, trust=False):
        if not name.startswith("llm"):
            return make_agent(name, seed=seed, trust=trust)
        made.append(TextAgent(CountingChat(name.partition(":")[2] or "tiny")))
        return made[-1]

    monkeypatch.setattr(tournament, "make_agent", make)
    return made


def test_a_text_agent_goes_by_its_models_name_and_reports_the_servers_tokens(llm_seats, tmp_path, capsys):
    argv = ["--agents", "llm", "counter", "--games", "4", "--no-progress", "--out", str(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "lineups: llm:tiny counter" in out
    assert {line.split()[0] for line in out.splitlines() if line.startswith(("llm", "counter"))} == {"llm:tiny",
                                                                                                    "counter"}
    report = json.loads((tmp_path / "tournament.json").read_text())
    assert {agent["name"] for agent in report["agents"]} == {"llm:tiny", "counter"}
    assert report["meta"]["labels"] == {"llm:tiny": "llm"} and report["meta"]["agents"] == ["llm", "counter"]
    stats = report["meta"]["text_agents"]["llm:tiny"]
    chats = [agent.model for agent in llm_seats]  # the agents of every chunk: their tokens add up
    assert stats["prompt_tokens"] == sum(chat.prompt_tokens for chat in chats) > 0
    assert stats["completion_tokens"] == 2 * stats["asked"] > 0 and stats["prompt_tokens"] != stats["prompt_chars"]
    assert (f"text agent llm:tiny: {stats['decisions']:,} decisions, 0 fallbacks (no legal move named; 0 retries), "
            f"{stats['prompt_tokens']:,} prompt and {stats['completion_tokens']:,} completion tokens (the server's "
            "count)") in out.splitlines()  # fmt: skip
    assert "prompt characters" not in out


def test_a_label_or_a_name_taken_keeps_a_text_agent_from_its_models_name(llm_seats):
    labelled = run_tournament(["llm", "counter"], games=2, progress=False, labels={"llm": "mine"})
    assert set(labelled.names) == {"mine", "counter"} and set(labelled.settings["text_agents"]) == {"mine"}
    both = run_tournament(["llm", "llm:tiny"], games=2, progress=False)  # llm:tiny is taken: llm stays llm
    assert set(both.names) == {"llm", "llm:tiny"} and set(both.settings["text_agents"]) == {"llm", "llm:tiny"}
    assert both.settings["labels"] == {}


# ------------------------------------------------------------------------------------------ ratings' reports


def results() -> list[GameResult]:
    return [
        GameResult(1, ("a", "b", "c"), (0,), (10, 0, 0), 30),
        GameResult(2, ("b", "c", "a"), (1,), (0, 7, 0), 31),
        GameResult(3, ("a", "b"), (1,), (0, 5), 20),
        GameResult(4, ("c", "c", "b"), (), (0, 0, 0), 99),
    ]


def test_pairwise_games_counts_the_games_both_played():
    games = results()
    names, met = pairwise_games(games)
    assert names == ["a", "b", "c"]
    for i, x in enumerate(names):
        for j, y in enumerate(names):
            assert met[i, j] == sum(1 for r in games if x in r.lineup and y in r.lineup)
    _, matrix = pairwise_win_matrix(games, names)
    assert np.isnan(matrix[0, 1]) == (met[0, 1] == 0)


def test_relabel_renames_and_refuses_shared_labels():
    games = relabel(results(), {"a": "alpha"})
    assert games[0].lineup == ("alpha", "b", "c") and games[0].winners == (0,) and games[2].points == (0, 5)
    with pytest.raises(ValueError, match="'a' and 'b' would both be labelled 'x'"):
        relabel(results(), {"a": "x", "b": "x"})
    with pytest.raises(ValueError, match="would both be labelled 'b'"):
        relabel(results(), {"a": "b"})


def test_plot_titles_name_variant_players_games_and_seed(tmp_path):
    settings = {"variant": "unocorns", "num_players": 4, "games": 20_000, "seed": 7}
    assert plot_title(settings) == "UNO unocorns, 4 players, 20,000 games, seed 7"
    more = dict(settings, episode="match", rule_options={"stack_draw_two": True, "hand_size": 5})
    assert plot_title(more) == ("UNO unocorns, 4 players, 20,000 games, seed 7, matches "
                                "(stack_draw_two=true, hand_size=5)")  # fmt: skip
    with pytest.raises(ValueError, match="missing \\['seed'\\]"):
        plot_title({"variant": "classic", "num_players": 2, "games": 10})
    games = results()
    summaries = summarize(games, bootstrap=10)
    names, matrix = pairwise_win_matrix(games, [s.name for s in summaries])
    _, met = pairwise_games(games, names)
    figure = plot(tmp_path / "t.png", summaries, names, matrix, "and a note", settings=settings, games=met)
    assert figure._suptitle.get_text() == "UNO unocorns, 4 players, 20,000 games, seed 7\nand a note"
    cells = [text.get_text() for text in figure.axes[1].texts]  # the heatmap's cells, row by row
    for i in range(len(names)):
        for j in range(len(names)):
            cell = cells[i * len(names) + j]
            if i == j:
                assert cell == "–"
            else:
                value = "–" if math.isnan(matrix[i, j]) else f"{matrix[i, j]:.2f}"
                assert cell == f"{value}\nn={met[i, j]:,}"
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
