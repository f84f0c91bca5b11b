"""The command-line convention (`uno_env.cli`) in the six commands that share it: one vocabulary, documented flags,
hidden older spellings, and one line on stderr with exit status 2 for a bad value. The parsers are driven directly
(nothing trains or plays); one subprocess runs an installed console script."""

from __future__ import annotations

import importlib
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import pytest

from uno_env import make_rules
from uno_env.cli import Flag, parser_from_dataclass, positive_int

SHARED = ("--variant", "--players", "--option", "--observation", "--seed", "--out", "--device")


@dataclass(frozen=True)
class Command:
    prog: str
    module: str
    flags: tuple[str, ...]  # the shared flags it has


COMMANDS = [
    Command("uno-arena", "uno_env.arena.tournament", ("--variant", "--players", "--option", "--seed", "--out")),
    Command("uno-play", "uno_env.play.terminal", ("--variant", "--players", "--option", "--seed")),
    Command("uno-train", "uno_env.train.native_ppo", SHARED),
    Command("uno-train-dmc", "uno_env.train.dmc", SHARED),
    Command("uno-train-sb3", "uno_env.train.sb3_ppo", SHARED),
    Command("uno-train-rllib", "uno_env.train.rllib_ppo", SHARED[:-1]),
]
BY_PROG = {command.prog: command for command in COMMANDS}


def module_of(command: Command):
    return importlib.import_module(command.module)


def refusal(parse, argv: list[str], capsys) -> str:
    """The stderr of a parse that must exit 2 with exactly one line."""
    with pytest.raises(SystemExit) as stop:
        parse(argv)
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.endswith("\n") and captured.err.count("\n") == 1, captured.err
    return captured.err


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.prog)
def test_help_documents_the_shared_flags_the_command_has_and_hides_older_spellings(command, capsys):
    with pytest.raises(SystemExit) as stop:
        module_of(command).main(["--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: {command.prog} ")
    shown = {flag for flag in SHARED if f"{flag} " in text or f"{flag}\n" in text}
    assert shown == set(command.flags)
    assert "--options" not in text and "--checkpoint-dir" not in text


BAD_VALUES = [
    (["--players", "11"], "argument --players: must be an int from 2 to 10, got '11'"),
    (["--variant", "nope"], "argument --variant: unknown variant 'nope'; the variants are classic, unocorns,"),
    (["--option", "nope=1"], "argument --option: unknown rule option 'nope'; the options are two_player_reverse"),
    (["--option", "hand_size=x"], "hand_size must be an int from 1 to 50, got 'x'"),
    (["--option", "stack_draw_two"], "rule options are NAME=VALUE (e.g. stack_draw_two=true), got 'stack_draw_two'"),
    (["--seed", "-1"], "argument --seed: must be an int >= 0, got '-1'"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.prog)
@pytest.mark.parametrize("argv, says", BAD_VALUES, ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_a_bad_shared_value_is_one_line_naming_what_is_allowed(command, argv, says, capsys):
    err = refusal(module_of(command).parse_args, argv, capsys)
    assert err.startswith(f"{command.prog}: error: ") and err.endswith(f" (see {command.prog} --help)\n")
    assert says in err


@pytest.mark.parametrize(
    "prog, argv, says",
    [
        ("uno-arena", ["--games", "0"], "argument --games: must be an int >= 1, got '0'"),
        ("uno-arena", ["--agents", "wizard"], "unknown agent 'wizard'; the agents are random, naive, greedy, counter"),
        ("uno-play", ["--players", "3", "--seat", "3"], "--seat must be from 0 to 2, got 3"),
        ("uno-train", ["--minutes", "0"], "argument --minutes: must be a number > 0, got '0'"),
        ("uno-train", ["--total-steps", "0"], "argument --total-steps: must be an int >= 1, got '0'"),
        ("uno-train", ["--total-steps", "100"], "total_steps 100 trains nothing: one update takes num_envs * rollout"),
        ("uno-train", ["--num-envs", "x"], "argument --num-envs: must be an int >= 1, got 'x'"),
        ("uno-train", ["--hidden", "64", "0"], "argument --hidden: must be an int >= 1, got '0'"),
        ("uno-train", ["--gamma", "1.5"], "argument --gamma: must be a number from 0 to 1, got '1.5'"),
        ("uno-train", ["--observation", "all"], "argument --observation: invalid choice: 'all'"),
        ("uno-train", ["--device", "gpu"], "argument --device: must be auto (cuda when there is one), cpu, cuda or"),
        ("uno-train", ["--league", "counter:x"], "league entries are NAME:SHARE"),
        ("uno-train-dmc", ["--epsilon", "1.5"], "argument --epsilon: must be a number from 0 to 1, got '1.5'"),
        ("uno-train-sb3", ["--timesteps", "0"], "argument --timesteps: must be an int >= 1, got '0'"),
        ("uno-train-rllib", ["--iterations", "0"], "argument --iterations: must be an int >= 1, got '0'"),
        ("uno-train-rllib", ["--episode", "forever"], "argument --episode: invalid choice: 'forever'"),
        ("uno-arena", ["--option", "hand_size=7", "uno_penalty=3"], "give each rule option its own --option"),
    ],
)
def test_a_bad_value_of_a_commands_own_flag_is_one_line(prog, argv, says, capsys):
    err = refusal(module_of(BY_PROG[prog]).parse_args, argv, capsys)
    assert err.startswith(f"{prog}: error: ") and says in err


@pytest.mark.parametrize("prog", ["uno-arena", "uno-play", "uno-train-sb3"])
def test_the_commands_that_load_pickled_models_say_what_trust_means(prog, capsys):
    with pytest.raises(SystemExit):
        module_of(BY_PROG[prog]).main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--trust" in text and "can run code from the file" in text


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.prog)
def test_the_same_option_text_gives_the_same_rules_in_every_command(command):
    texts = ["stack_draw_two=true", "hand_size=5", "uno_call=explicit", "card_counts={'WN': 4}", "uno_catch_rate=0.5"]
    argv = ["--variant", "unocorns", "--players", "3"] + [arg for text in texts for arg in ("--option", text)]
    settings = module_of(command).parse_args(argv)
    expected = make_rules(
        "unocorns", stack_draw_two=True, hand_size=5, uno_call="explicit", card_counts={"WN": 4}, uno_catch_rate=0.5
    )
    assert expected != make_rules("unocorns")
    assert make_rules(settings.variant, **settings.rule_options) == expected
    assert settings.players == 3


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.prog)
def test_the_older_options_spelling_takes_several_at_once(command):
    parse = module_of(command).parse_args
    older = parse(["--options", "hand_size=5", "uno_penalty=3", "--option", "target_score=200"])
    assert older.rule_options == {"hand_size": 5, "uno_penalty": 3, "target_score": 200}
    assert older.rule_options == parse(
        ["--option", "hand_size=5", "--option", "uno_penalty=3", "--option", "target_score=200"]
    ).rule_options


def test_the_rllib_checkpoint_dir_is_a_hidden_alias_of_out(tmp_path):
    parse = module_of(BY_PROG["uno-train-rllib"]).parse_args
    assert parse(["--checkpoint-dir", str(tmp_path)]).out == tmp_path
    assert parse(["--out", str(tmp_path)]).out == tmp_path
    assert parse([]).out == Path("runs/rllib")


#: the commands that have the shared `--num-envs` (games stepped together) and `--episode` (`uno_env.cli`)
NUM_ENVS = {"uno-arena", "uno-train", "uno-train-dmc", "uno-train-sb3"}
EPISODE = {"uno-arena", "uno-play", "uno-train-rllib"}


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.prog)
def test_games_at_once_and_the_episode_are_one_shared_flag_each(command, capsys):
    with pytest.raises(SystemExit):
        module_of(command).main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ("--num-envs INT" in text) == (command.prog in NUM_ENVS)
    assert ("--episode {round,match}" in text) == (command.prog in EPISODE)
    if command.prog in EPISODE:
        assert "one round, or a whole match to the target score (default: round)" in text
        assert module_of(command).parse_args(["--episode", "match"]).episode == "match"
        err = refusal(module_of(command).parse_args, ["--episode", "forever"], capsys)
        assert "argument --episode: invalid choice: 'forever' (choose from" in err
    assert "--batch-size" not in text  # a minibatch is --minibatch-size; games at once --num-envs


def test_older_spellings_of_games_at_once_and_the_minibatch_are_hidden_aliases():
    arena = module_of(BY_PROG["uno-arena"]).parse_args
    assert arena(["--batch-size", "16"]).num_envs == 16 == arena(["--num-envs", "16"]).num_envs
    assert arena([]).num_envs == 2048
    sb3 = module_of(BY_PROG["uno-train-sb3"]).parse_args
    assert sb3(["--batch-size", "64"]).minibatch_size == 64 == sb3(["--minibatch-size", "64"]).minibatch_size
    assert sb3([]).minibatch_size == 4096 and sb3(["--num-envs", "8"]).num_envs == 8


def test_the_tyro_era_spellings_still_parse(tmp_path):
    native = module_of(BY_PROG["uno-train"]).parse_args([
        "--eval-every", "20", "--no-progress", "--league", "counter:4", "greedy:1", "--hidden", "64", "64",
        "--imitate", "counter", "--imitate-steps", "5", "--resume", str(tmp_path / "c.pt"), "--eval-against",
        "counter", "greedy", "--total-steps", "100", "--learning-rate", "1e-3", "--threads", "0",
    ])  # fmt: skip
    assert (native.eval_every, native.progress, native.league, native.hidden) == (20, False, ("counter:4", "greedy:1"),
                                                                                   (64, 64))  # fmt: skip
    assert (native.imitate, native.imitate_steps, native.resume) == ("counter", 5, tmp_path / "c.pt")
    assert (native.eval_against, native.total_steps, native.learning_rate, native.threads) == (
        ("counter", "greedy"), 100, 1e-3, 0,
    )  # fmt: skip
    sb3 = module_of(BY_PROG["uno-train-sb3"]).parse_args(["--net-arch", "32", "32", "--n-steps", "8", "--progress"])
    assert (sb3.net_arch, sb3.n_steps, sb3.progress, sb3.resume) == ((32, 32), 8, True, None)
    rllib = module_of(BY_PROG["uno-train-rllib"]).parse_args(
        ["--num-cpus", "2", "--address", "auto", "--lr", "0.001", "--envs-per-env-runner", "4", "--num-gpus", "0.5"]
    )
    assert (rllib.num_cpus, rllib.address, rllib.lr, rllib.envs_per_env_runner, rllib.num_gpus) == (
        2, "auto", 0.001, 4, 0.5,
    )  # fmt: skip
    arena = module_of(BY_PROG["uno-arena"]).parse_args(["--no-progress", "--agents", "random", "greedy"])
    assert (arena.progress, arena.agents) == (False, ["random", "greedy"])


@dataclass
class Toy:
    """A toy's settings."""

    widths: Annotated[tuple[int, ...], positive_int] = (8, 8)
    """Layer widths, 100% of them."""
    tags: tuple[str, ...] = ()
    """Tags."""
    fast: bool = False
    """Go fast."""
    start: Path | None = None
    """Where to start."""
    mode: Annotated[str, Flag(choices=("a", "b"), aliases=("--old-mode",))] = "a"
    """The mode."""
    rate: float = 0.5


def test_parser_from_dataclass_turns_fields_into_documented_flags(capsys):
    parser = parser_from_dataclass(Toy, prog="toy")
    assert parser.parse_config([]) == Toy()
    argv = ["--widths", "4", "--tags", "--fast", "--start", "s.pt", "--old-mode", "b", "--rate", "3"]
    toy = parser.parse_config(argv)
    assert toy == Toy(widths=(4,), tags=(), fast=True, start=Path("s.pt"), mode="b", rate=3.0)
    assert parser.parse_config(["--tags", "x", "y", "--no-fast"]) == Toy(tags=("x", "y"))
    text = parser.format_help()
    assert "Layer widths, 100% of them. (default: 8 8)" in text and "Where to start. (default: none)" in text
    assert "--fast, --no-fast" in text and "Go fast. (default: False)" in text and "--old-mode" not in text
    assert "--rate FLOAT" in text and "A toy's settings." in text
    assert "argument --rate: must be a number, got 'fast'" in refusal(parser.parse_config, ["--rate", "fast"], capsys)
    assert "argument --widths: expected at least one argument" in refusal(parser.parse_config, ["--widths"], capsys)


def test_the_installed_console_script_runs():
    script = Path(sys.executable).parent / "uno-arena"
    done = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: uno-arena") and "--option NAME=VALUE" in done.stdout


# ------------------------------------------------------------------------------------ a file that is not a policy
@pytest.fixture
def not_policies(tmp_path) -> list[Path]:
    """Files a user might give as `ppo:FILE` by mistake: notes, a system file, JSON, a zip that torch cannot read."""
    (tmp_path / "notes.txt").write_text("my notes on the run\n")
    (tmp_path / "policy.json").write_text('{"format": "uno-env-policy-1"}')
    (tmp_path / "fake.pt").write_bytes(b"PK\x03\x04 not really a zip")
    return [tmp_path / "notes.txt", Path("/etc/passwd"), tmp_path / "policy.json", tmp_path / "fake.pt"]


@pytest.mark.parametrize("prog", ["uno-arena", "uno-play"])
def test_a_file_that_is_not_a_policy_is_one_line_naming_what_was_expected(prog, not_policies, tmp_path, capsys):
    rest = ["random", "--no-progress", "--out", str(tmp_path)] if prog == "uno-arena" else []
    for path in not_policies:
        argv = ["--agents" if prog == "uno-arena" else "--opponents", f"ppo:{path}", *rest]
        err = refusal(module_of(BY_PROG[prog]).main, argv, capsys)
        assert err.startswith(f"{prog}: error: {path} is not a uno-env policy file (a .pt file written by uno-train): ")
        assert "Traceback" not in err
