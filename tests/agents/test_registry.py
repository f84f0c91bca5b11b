"""The agent catalogue (`uno_env.agents.registry`): one grammar of agent names that uno-arena, uno-play, uno-web and
uno-bench all read; a user's class under --trust in every command; the shipped files and their digests; best:VARIANT;
what the catalogue says a name loads, and whether it can play a game."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest
from rich.console import Console

from uno_env import VARIANTS
from uno_env.agents import NaiveAgent, registry, shipped
from uno_env.agents.policy import PolicyAgent
from uno_env.agents.registry import (
    BEST,
    KINDS,
    SHIPPED,
    can_play,
    make_agent,
    parse_agent,
    shipped_files,
)
from uno_env.arena import bench
from uno_env.arena import tournament as arena
from uno_env.play import terminal, web

#: a class named as a user names their own (module:Class): imported only under --trust
USER_CLASS = "uno_env.agents.naive:NaiveAgent"
#: names every command seats (the user's class with --trust), without a file of one's own
SEATED = ["counter", "ppo:classic", "best:classic", "ismcts:2", "ismcts:2:search:wide", "seer:3:ucb", "ismcts-belief:2",
          "ismcts:2:voids", "seer:2:next", USER_CLASS]  # fmt: skip
#: names no command reads, with the one line every command refuses them with
REFUSED = {
    "wizard": "unknown agent 'wizard'; the agents are random, naive, greedy, counter, ppo:VARIANT|FILE.pt",
    "counter:7": "counter takes no argument",
    "ppo:": "ppo: give what to seat after the colon",
    "best:nowhere": "best:VARIANT takes a variant with a shipped agent",
    "ismcts:0": "ismcts: a search's budget is 1 to 100,000 iterations",
    "ismcts:bogus": "ismcts: after the name come a budget",
    "ismcts-belief:prior=x.pt": "got 'prior=x.pt'",
    "seer:voids": "'voids' (ismcts), 'next' or 'nextK' (seer)",
    "ismcts:next": "got 'next'",
}


def uno_arena(name: str, tmp_path: Path) -> None:
    arena.main(["--agents", name, "random", "--games", "2", "--no-progress", "--trust", "--out", str(tmp_path / "a")])


def uno_play(name: str, tmp_path: Path) -> None:
    def no_input() -> str:
        raise EOFError

    terminal.main(["--opponents", name, "--trust", "--seed", "3"], input_fn=no_input,
                  console=Console(file=io.StringIO()))  # fmt: skip


def uno_web(name: str, tmp_path: Path) -> None:
    settings = web.parse_args(["--opponents", name, "--trust", "--seed", "3"], raising=True)
    web.create_app(settings)  # what `uno-web` serves: the table, its agents seated


def uno_bench(name: str, tmp_path: Path) -> None:
    bench.main(["run", name, "--suite", "uno-bench-smoke", "--tables", "classic-2p", "--games-scale", "0.01",
                "--trust", "--no-progress", "--out", str(tmp_path / "b")])  # fmt: skip


COMMANDS = {"uno-arena": uno_arena, "uno-play": uno_play, "uno-web": uno_web, "uno-bench": uno_bench}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", SEATED)
def test_every_command_seats_the_same_names(command, name, tmp_path, capsys):
    try:
        COMMANDS[command](name, tmp_path)
    except SystemExit as stop:
        assert stop.code in (0, None), capsys.readouterr().err


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_refuses_the_same_names_in_the_same_line(command, tmp_path, capsys):
    for name, says in REFUSED.items():
        with pytest.raises((SystemExit, web.SettingsError)) as refusal:
            COMMANDS[command](name, tmp_path)
        error = str(refusal.value) if refusal.type is web.SettingsError else capsys.readouterr().err
        assert says in error and error.count("\n") <= 1, (name, error)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_users_class_needs_trust_in_every_command(command, tmp_path, capsys):
    run = {"uno-arena": lambda: arena.main(["--agents", USER_CLASS, "random", "--games", "2", "--no-progress",
                                            "--out", str(tmp_path)]),
           "uno-play": lambda: terminal.main(["--opponents", USER_CLASS], input_fn=lambda: "q",
                                             console=Console(file=io.StringIO())),
           "uno-web": lambda: web.create_app(web.parse_args(["--opponents", USER_CLASS], raising=True)),
           "uno-bench": lambda: bench.main(["run", USER_CLASS, "--suite", "uno-bench-smoke", "--out", str(tmp_path)])}
    with pytest.raises((SystemExit, web.Refused)) as refusal:
        run[command]()
    error = str(refusal.value) if refusal.type is web.Refused else capsys.readouterr().err
    assert "names a class of your own (module:Class)" in error and "--trust" in error, error


def test_uno_arena_seats_a_users_class_under_trust(tmp_path, capsys):
    arena.main(["--agents", USER_CLASS, "counter", "--games", "4", "--no-progress", "--trust", "--out", str(tmp_path)])
    assert USER_CLASS in capsys.readouterr().out
    assert isinstance(make_agent(USER_CLASS, seed=3, trust=True), NaiveAgent)


def test_the_catalogue_says_what_a_name_loads():
    assert parse_agent("ismcts:100:prior=runs/a.pt").file == "runs/a.pt"  # a search's prior is a file it loads
    assert parse_agent("ismcts:100:prior=runs/a.pt").budget == {"iterations": 100}
    assert parse_agent("seer:20ms").budget == {"milliseconds": 20} and not parse_agent("seer:20ms").loads_file
    assert parse_agent("ppo:classic").shipped == "classic" and not parse_agent("ppo:classic").loads_file
    assert parse_agent("ppo:runs/policy.pt").loads_file and not parse_agent("ppo:runs/policy.pt").needs_trust
    for name in ("sb3:model.zip", "rllib:checkpoint", USER_CLASS):
        assert parse_agent(name).needs_trust, name
    assert parse_agent(USER_CLASS).kind == "class" and parse_agent("llm:qwen").family == "text"
    assert parse_agent("ismcts:5000", most_iterations=10_000).budget == {"iterations": 5000}
    with pytest.raises(ValueError, match="1 to 1,000 iterations"):
        parse_agent("ismcts:5000", most_iterations=1000)


def test_the_page_seats_no_file_and_no_class():
    for name in ("counter", "ppo:unocorns", "best:swap", "ismcts:20", "seer:5ms"):
        web.check_page_agent(name)
    for name in ("ismcts:100:prior=policy.pt", "seer:prior=/etc/passwd", "ppo:policy.pt", "sb3:m.zip", USER_CLASS,
                 "llm"):
        with pytest.raises(web.SettingsError, match="the page seats"):
            web.check_page_agent(name)
    web.check_page_agent("ismcts:100:prior=policy.pt", allowed=("ismcts:100:prior=policy.pt",))  # the command line's
    assert {"best:classic", "ppo:classic", "ismcts:200"} <= set(web.page_agents())


def test_can_play_answers_from_the_catalogue():
    assert can_play("counter", "swap", 7) is None and can_play("ppo:classic", "swap", 4) is None
    assert can_play("ppo:classic", "classic", 3) == ("ppo:classic is shipped for 2 and 4 players; this game has 3 "
                                                     "players")  # fmt: skip
    assert "best:emoji is shipped for 2 and 4 players" in can_play("best:emoji", "emoji", 5)
    assert "belief model shipped for the game: none for swap with 3 players" in can_play("ismcts-belief", "swap", 3)
    assert can_play("seer:10", "classic", 2, level="knowledge") == ("seer:10 reads the seer observation; this game "
                                                                    "allows up to knowledge")  # fmt: skip
    assert can_play("seer:10", "classic", 2) is None and can_play("counter", "classic", 2, level="minimal")
    assert can_play("ppo:runs/policy.pt", "classic", 3) is None  # a file says what it plays when it is loaded


def test_best_seats_the_file_its_table_names_for_the_games_players():
    import torch

    assert set(BEST) == {(variant, n) for variant in VARIANTS for n in (2, 4)}
    best_networks = shipped_files("best")
    assert ("classic", 2) in best_networks
    for (variant, players), name in BEST.items():
        assert SHIPPED[name].players == players and SHIPPED[name].kind in ("policy", "best"), name  # a network
        # a game's best network where one is shipped, else its PPO policy
        expected = best_networks.get((variant, players), shipped_files("policy")[(variant, players)])
        assert SHIPPED[name] == expected, name
    classic = make_agent("best:classic").for_players(2)
    assert classic.name == "best:classic" and classic.network.num_players == 2
    assert make_agent("ppo:classic").for_players(2).info["trained"] != classic.info["trained"]  # ppo: keeps its file
    agent = make_agent("best:monster_high")
    assert agent.name == "best:monster_high" and agent.observation == "knowledge"
    for players in (2, 4):  # resolved by the table's player count
        best, ppo = agent.for_players(players), PolicyAgent.shipped("monster_high", players)
        assert best.name == "best:monster_high" and ppo.name == "ppo:monster_high"
        assert best.network.num_players == players
        weights = zip(best.network.state_dict().values(), ppo.network.state_dict().values(), strict=True)
        assert all(torch.equal(a, b) for a, b in weights)


def test_every_shipped_file_is_listed_with_its_digest_and_level():
    import torch

    on_disk = {f"{folder}/{path.name}" for folder in shipped.FOLDERS.values()
               for path in (shipped.AGENTS_DIR / folder).glob("*.pt")}  # fmt: skip
    assert on_disk == set(SHIPPED), "a shipped file is a row of agents/shipped.json (uno_env.agents.shipped.SHIPPED)"
    for name, file in SHIPPED.items():
        assert hashlib.sha256(file.path.read_bytes()).hexdigest() == file.sha256, name
        data = torch.load(file.path, weights_only=True)
        assert (data["variant"], data["num_players"], data["observation"]) == (file.variant, file.players,
                                                                               file.observation), name
    assert set(shipped_files("policy")) == set(shipped_files("belief")) == {(v, n) for v in VARIANTS for n in (2, 4)}


def test_a_new_kind_is_one_row():
    """Every kind the catalogue reads is a row of KINDS; its help names it; a loader for each."""
    for prefix, kind in KINDS.items():
        assert prefix in registry.AGENT_HELP and callable(kind.load), prefix
        assert kind.argument in ("none", "optional", "required") and kind.family in (
            "baseline", "policy", "model", "search", "text"), prefix
