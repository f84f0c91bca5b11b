"""Trust at the edges: files are data, and no command prints a traceback for a user's mistake.

A policy file and a native checkpoint are loaded with `weights_only=True`, so a crafted file whose pickle would
run code is refused before anything in it runs (the marker it would make never appears); a policy file's fields
never name another file to load. SB3 zips and RLlib checkpoints can only be loaded by unpickling them: they load
only with `trust=True` / `--trust`. Every user error of the five commands is one line on stderr and exit 2."""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import io
import json
import os
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import torch
from rich.console import Console

from uno_env.agents.policy import PolicyAgent, PolicyNetwork, load_policy_file
from uno_env.agents.registry import make_agent
from uno_env.agents.trust import UntrustedFileError
from uno_env.arena import tournament as arena
from uno_env.play import terminal as play
from uno_env.train import native_ppo

TINY_NATIVE = ["--num-envs", "64", "--rollout-steps", "8", "--minibatch-size", "256", "--epochs", "1", "--hidden", "32",
               "--eval-games", "8", "--league", "greedy:1", "self:1", "--no-progress"]  # fmt: skip
UNPICKLING = "is loaded by unpickling, which can run code from the file: pass trust=True / --trust"


class RunsCode:
    """An object whose unpickling makes the folder `marker`: what a crafted file would do to run code."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return os.mkdir, (self.marker,)


# ------------------------------------------------------------------------------------------------ files to load
@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    """Files a user might hand the commands: good ones, broken ones and crafted ones (nothing trained)."""
    folder = tmp_path_factory.mktemp("files")
    marker = folder / "code-ran"
    network = PolicyNetwork("knowledge", 2, (8,))
    paths = {name: folder / name for name in ("policy.pt", "hinted.pt", "crafted.pt", "empty.pt", "garbage.pt",
                                              "truncated.pt", "checkpoint.pt", "crafted-checkpoint.pt")}  # fmt: skip
    torch.save(network.to_file_dict("classic"), paths["policy.pt"])
    torch.save({**network.to_file_dict("classic"), "hint": "sb3:model.zip"}, paths["hinted.pt"])
    torch.save({**network.to_file_dict("classic"), "trained": RunsCode(marker)}, paths["crafted.pt"])
    paths["empty.pt"].write_bytes(b"")
    paths["garbage.pt"].write_bytes(bytes(range(256)) * 4)
    paths["truncated.pt"].write_bytes(paths["policy.pt"].read_bytes()[:300])
    torch.save(checkpoint_dict(), paths["checkpoint.pt"])
    torch.save({**checkpoint_dict(), "history": [RunsCode(marker)]}, paths["crafted-checkpoint.pt"])
    paths["folder"] = folder / "a-folder.pt"
    paths["folder"].mkdir()
    paths["missing"] = folder / "missing.pt"
    paths["marker"] = marker
    return paths


def checkpoint_dict(**changes) -> dict:
    """A checkpoint as uno-train writes it (tiny settings, untrained), with `changes`."""
    config = native_ppo.parse_args(TINY_NATIVE)
    network = PolicyNetwork(config.observation, config.players, config.hidden)
    optimizer = torch.optim.Adam(network.parameters())
    state = {
        "format": native_ppo.CHECKPOINT_FORMAT, "config": {**dataclasses.asdict(config), "out": "x", "resume": None},
        "network": network.state_dict(), "critic": None, "optimizer": optimizer.state_dict(), "update": 0,
        "steps": 0, "minutes": 0.0, "snapshots": [network.state_dict()], "history": [], "commands": ["uno-train"],
    }  # fmt: skip
    return {**state, **changes}


def test_the_crafted_files_would_run_code_if_unpickled(files, tmp_path):
    """The premise: loading them without weights_only runs their code (here it only makes a folder)."""
    marker = tmp_path / "ran"
    torch.save({"x": RunsCode(marker)}, tmp_path / "crafted.pt")
    torch.load(tmp_path / "crafted.pt", weights_only=False)
    assert marker.is_dir()


# ------------------------------------------------------------------------------------------- files are data
def test_a_crafted_policy_file_is_refused_before_any_of_it_runs(files, capsys):
    crafted = files["crafted.pt"]
    with pytest.raises(ValueError, match="not plain data"):
        load_policy_file(crafted)
    with pytest.raises(ValueError, match="not plain data"):
        PolicyAgent(crafted)
    with pytest.raises(ValueError, match="not plain data"):
        make_agent(f"ppo:{crafted}", trust=True)  # trust changes nothing for a policy file: it is always data
    err = refused(arena.main, ["--agents", f"ppo:{crafted}", "counter", "--games", "4", "--no-progress"], capsys)
    assert "not plain data" in err
    refused(play_main, ["--opponents", f"ppo:{crafted}"], capsys)
    assert not files["marker"].exists()


def test_a_crafted_checkpoint_is_refused_by_resume_before_any_of_it_runs(files, tmp_path, capsys):
    with pytest.raises(ValueError, match="not plain data"):
        native_ppo.load_checkpoint(files["crafted-checkpoint.pt"])
    err = refused(native_ppo.main, ["--resume", str(files["crafted-checkpoint.pt"]), "--out", str(tmp_path)], capsys)
    assert "is not a uno-train checkpoint" in err and "not plain data" in err
    assert not files["marker"].exists()
    assert not (tmp_path / "checkpoint.pt").exists()  # nothing trained, nothing half-written


def test_a_checkpoint_is_plain_data_and_every_setting_of_it_is_checked(files, tmp_path):
    state = torch.load(files["checkpoint.pt"], weights_only=True)  # what uno-train writes loads as data
    assert native_ppo.load_checkpoint(files["checkpoint.pt"])["config"]["hidden"] == (32,)
    assert state["format"] == native_ppo.CHECKPOINT_FORMAT
    for changes, says in [
        ({"config": {**state["config"], "wizard": 1}}, "unknown settings wizard"),
        ({"config": {**state["config"], "hidden": (0,)}}, "setting hidden = (0,): must be an int >= 1"),
        ({"config": {**state["config"], "num_envs": "64"}}, "setting num_envs = '64' is not a int"),
        ({"config": {**state["config"], "variant": "dos"}}, "unknown variant 'dos'"),
        ({"config": {**state["config"], "observation": "all"}}, "is not one of minimal, knowledge, belief, seer"),
        ({"steps": -1}, "bad steps"),
        ({"format": "something else"}, "is not a uno-train checkpoint"),
        ({"history": [(1, "counter", 0.5)]}, "bad history"),
    ]:
        torch.save({**state, **changes}, tmp_path / "changed.pt")
        with pytest.raises(ValueError, match=says.replace("(", r"\(").replace(")", r"\)")):
            native_ppo.load_checkpoint(tmp_path / "changed.pt")
    # weights that do not fit the settings: refused before the League is built, with one line
    torch.save({**state, "network": PolicyNetwork("knowledge", 2, (16,)).state_dict()}, tmp_path / "changed.pt")
    with pytest.raises(ValueError, match="weights of the network do not fit"):
        native_ppo.train(native_ppo.Config(resume=tmp_path / "changed.pt", out=tmp_path / "out", progress=False))


def test_a_policy_files_adviser_is_a_baseline_never_a_file(files, capsys):
    for load in (load_policy_file, PolicyAgent, lambda path: make_agent(f"ppo:{path}", trust=True)):
        with pytest.raises(ValueError, match="adviser \\(hint\\) is one of the baselines .* got 'sb3:model.zip'"):
            load(files["hinted.pt"])
    data = load_policy_file(files["policy.pt"])
    with pytest.raises(ValueError, match="one of the baselines"):
        PolicyAgent({**data, "hint": "rllib:/tmp/x"})
    assert PolicyAgent({**data, "hint": ""}).network.hint == ""
    refused(arena.main, ["--agents", f"ppo:{files['hinted.pt']}", "counter", "--games", "4", "--no-progress"], capsys)


def test_a_policy_file_that_does_not_describe_its_weights_is_refused(files):
    data = load_policy_file(files["policy.pt"])
    for changes, says in [
        ({"hidden": [10**6, 10**6]}, "weights do not fit"),  # refused before a network that size is built
        ({"num_players": 11}, "bad num_players"),
        ({"observation": "everything"}, "bad observation"),
        ({"state_dict": {"trunk.0.weight": [1, 2]}}, "bad state_dict"),
        ({"format": "uno-env-policy-0"}, "not a uno-env policy file"),
    ]:
        with pytest.raises(ValueError, match=says):
            PolicyAgent({**data, **changes})


# ---------------------------------------------------------------------------------------------- SB3 and RLlib
@pytest.fixture(scope="module")
def sb3_model(tmp_path_factory) -> Path:
    """An untrained MaskablePPO model saved as uno-train-sb3 saves one (model.zip and model.json)."""
    from sb3_contrib import MaskablePPO

    from uno_env.wrappers import UnoSB3VecEnv

    folder = tmp_path_factory.mktemp("sb3")
    venv = UnoSB3VecEnv("classic", num_players=2, num_envs=4, seed=0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=16, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})  # fmt: skip
    model.save(folder / "model.zip")
    (folder / "model.json").write_text(json.dumps({"variant": "classic", "num_players": 2, "observation": "knowledge"}))
    return folder / "model.zip"


def test_an_sb3_model_loads_only_with_trust(sb3_model):
    from uno_env.agents.sb3_agent import SB3Agent

    for load in (lambda: SB3Agent(sb3_model), lambda: make_agent(f"sb3:{sb3_model}")):
        with pytest.raises(UntrustedFileError, match=f"an SB3 model zip {UNPICKLING}"):
            load()
    assert issubclass(UntrustedFileError, ValueError)  # the commands' one-line error
    agent = make_agent(f"sb3:{sb3_model}", trust=True)
    assert isinstance(agent, SB3Agent) and len(arena.play_games({"sb3": agent, "greedy": make_agent("greedy")},
                                                                ["sb3", "greedy"], games=4)) == 4  # fmt: skip


def test_a_crafted_sb3_zip_runs_nothing_without_trust(sb3_model, tmp_path):
    """SB3 keeps some of a model's attributes as base64 cloudpickle in the zip's `data`: a crafted one runs
    code when the model is loaded, so without trust it is never loaded."""
    from uno_env.agents.sb3_agent import SB3Agent

    marker = tmp_path / "code-ran"
    crafted = tmp_path / "model.zip"
    with zipfile.ZipFile(sb3_model) as source, zipfile.ZipFile(crafted, "w") as target:
        for item in source.infolist():
            content = source.read(item.filename)
            if item.filename == "data":
                data = json.loads(content)
                data["policy_class"] = {":serialized:": base64.b64encode(pickle.dumps(RunsCode(marker))).decode()}
                content = json.dumps(data).encode()
            target.writestr(item, content)
    (tmp_path / "model.json").write_text(sb3_model.with_suffix(".json").read_text())
    with pytest.raises(UntrustedFileError):
        SB3Agent(crafted)
    assert not marker.exists()
    with contextlib.suppress(Exception):  # the premise: with trust, the file's code runs
        SB3Agent(crafted, trust=True)
    assert marker.is_dir()


def test_the_commands_load_sb3_models_only_with_trust(sb3_model, tmp_path, capsys):
    games = ["--games", "4", "--no-progress", "--out", str(tmp_path / "arena")]
    err = refused(arena.main, ["--agents", f"sb3:{sb3_model}", "counter", *games], capsys)
    assert UNPICKLING in err and "only for files you made or trust" in err
    assert arena.main(["--agents", f"sb3:{sb3_model}", "counter", *games, "--trust"]) == 0
    capsys.readouterr()
    assert UNPICKLING in refused(play_main, ["--opponents", f"sb3:{sb3_model}"], capsys)
    assert play_main(["--opponents", f"sb3:{sb3_model}", "--trust"]) == 0  # the game starts, then the player quits
    from uno_env.train import sb3_ppo

    out = ["--out", str(tmp_path / "sb3")]
    assert UNPICKLING in refused(sb3_ppo.main, ["--resume", str(sb3_model), *out], capsys)
    assert UNPICKLING in refused(sb3_ppo.main, ["--opponents", f"sb3:{sb3_model}", *out], capsys)
    assert UNPICKLING in refused(sb3_ppo.main, ["--eval-against", f"sb3:{sb3_model}", *out], capsys)
    config = sb3_ppo.parse_args(["--resume", str(sb3_model), "--opponents", f"sb3:{sb3_model}", "--trust", *out])
    assert config.trust and config.resume == sb3_model  # (tests/train/test_native_ppo.py resumes a run with --trust)
    assert not (tmp_path / "sb3").exists()


def test_an_rllib_checkpoint_loads_only_with_trust(rllib_checkpoint, tmp_path, capsys):
    from uno_env.agents.rllib_agent import METADATA_FILE, RLlibAgent

    for load in (lambda: RLlibAgent(rllib_checkpoint), lambda: make_agent(f"rllib:{rllib_checkpoint}")):
        with pytest.raises(UntrustedFileError, match=f"an RLlib checkpoint {UNPICKLING}"):
            load()
    agent = make_agent(f"rllib:{rllib_checkpoint}", seed=0, trust=True)
    assert isinstance(agent, RLlibAgent)
    games = ["--games", "4", "--no-progress", "--out", str(tmp_path)]
    assert UNPICKLING in refused(arena.main, ["--agents", f"rllib:{rllib_checkpoint}", "random", *games], capsys)
    assert arena.main(["--agents", f"rllib:{rllib_checkpoint}", "random", *games, "--trust"]) == 0
    capsys.readouterr()
    assert UNPICKLING in refused(play_main, ["--opponents", f"rllib:{rllib_checkpoint}"], capsys)
    # the metadata names a folder of the checkpoint, never one elsewhere
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    metadata = json.loads((rllib_checkpoint / METADATA_FILE).read_text())
    (elsewhere / METADATA_FILE).write_text(json.dumps({**metadata, "module_path": str(rllib_checkpoint / "module")}))
    with pytest.raises(ValueError, match="names a folder outside the checkpoint"):
        RLlibAgent(elsewhere, trust=True)


# ---------------------------------------------------------------------------------- one line, exit 2, always
def refused(main, argv: list[str], capsys) -> str:
    """The stderr of a command that must refuse `argv`: exit 2, exactly one line, no traceback."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    captured = capsys.readouterr()
    assert stop.value.code == 2, captured.err
    assert captured.err.count("\n") == 1 and captured.err.endswith(" --help)\n"), captured.err
    assert "Traceback" not in captured.err + captured.out
    return captured.err


def play_main(argv: list[str]) -> int:
    """uno-play with no person at the keyboard (end of input: the game stops at the first question)."""

    def no_input() -> str:
        raise EOFError

    return play.main(argv, input_fn=no_input, console=Console(file=io.StringIO(), highlight=False))


def test_uno_arena_refuses_bad_input_with_one_line(files, tmp_path, capsys):
    games = ["--games", "4", "--no-progress", "--out", str(tmp_path / "out")]
    for argv, says in [
        (["--seed", "-1"], "--seed: must be an int >= 0"),
        (["--games", "0"], "--games: must be an int >= 1"),
        (["--agents", f"ppo:{files['garbage.pt']}", "counter"], "not plain data"),
        (["--agents", f"ppo:{files['empty.pt']}", "counter"], "torch cannot read it (EOFError)"),
        (["--agents", f"ppo:{files['truncated.pt']}", "counter"], "torch cannot read it"),
        (["--agents", f"ppo:{files['missing']}", "counter"], "no policy file at"),
        (["--agents", f"ppo:{files['folder']}", "counter"], "(a folder)"),
        (["--agents", f"ppo:{files['checkpoint.pt']}", "counter"], "is not a uno-env policy file"),
        (["--agents", f"ppo:{files['policy.pt']}", "counter", "--players", "3"], "was trained for 2 players"),
        (["--agents", "ppo:classic", "counter", "--players", "3"],
         "ppo:classic is shipped for 2 and 4 players; this game has 3 players"),
        (["--agents", "ppo:nowhere", "counter"], "no shipped policy for 'nowhere'"),
        (["--agents", f"sb3:{tmp_path / 'model.zip'}", "counter"], "no SB3 model at"),
        (["--agents", "wizard"], "unknown agent 'wizard'"),
        (["--agents", "counter", "--lineup", "counter"], "the lineup names 1 seats but the game has 2 players"),
    ]:
        assert says in refused(arena.main, [*games, *argv], capsys), argv
    (tmp_path / "a-file").write_text("")
    refused(arena.main, ["--agents", "random", "--games", "2", "--no-progress", "--out", str(tmp_path / "a-file")],
            capsys)  # fmt: skip


def test_uno_play_refuses_bad_input_with_one_line(files, tmp_path, capsys):
    for argv, says in [
        (["--seed", "-1"], "--seed: must be an int >= 0"),
        (["--opponents", "wizard"], "unknown agent 'wizard'"),
        (["--opponents", "ppo:"], "ppo: give what to seat after the colon: ppo:VARIANT|FILE.pt"),
        (["--opponents", f"ppo:{files['garbage.pt']}"], "not plain data"),
        (["--opponents", f"ppo:{files['empty.pt']}"], "torch cannot read it"),
        (["--opponents", f"ppo:{files['folder']}"], "(a folder)"),
        (["--opponents", f"ppo:{files['policy.pt']}", "--players", "3"], "was trained for 2 players"),
        (["--opponents", "ppo:classic", "--players", "3"], "ppo:classic is shipped for 2 and 4 players"),
        (["--opponents", f"sb3:{tmp_path / 'model.zip'}"], "no SB3 model at"),
        (["--opponents", f"rllib:{tmp_path}"], "has no uno_env.json"),
    ]:
        assert says in refused(play_main, argv, capsys), argv


def test_uno_train_refuses_bad_input_and_budgets_that_cannot_train(files, tmp_path, capsys):
    out = ["--out", str(tmp_path / "out")]
    for argv, says in [
        (["--minutes", "0"], "--minutes: must be a number > 0"),
        (["--total-steps", "0"], "--total-steps: must be an int >= 1"),
        (["--total-steps", "100"], "total_steps 100 trains nothing: one update takes num_envs * rollout_steps = "),
        (["--resume", str(files["missing"])], "no checkpoint at"),
        (["--resume", str(files["folder"])], "(a folder)"),
        (["--resume", str(files["empty.pt"])], "torch cannot read it (EOFError)"),
        (["--resume", str(files["garbage.pt"])], "not plain data"),
        (["--resume", str(files["policy.pt"])], "is not a uno-train checkpoint"),
        (["--resume", str(files["checkpoint.pt"]), "--total-steps", "100"], "the checkpoint has trained 0 decisions"),
        (["--hint", "sb3:model.zip"], "--hint takes a baseline: random, naive, greedy, counter"),
        (["--imitate", "rllib:runs/rllib"], "--imitate takes a baseline"),
        (["--eval-against", "wizard"], "unknown agent 'wizard'"),
        (["--eval-against", f"ppo:{files['garbage.pt']}"], "not plain data"),
        (["--option", "hand_size=60"], "hand_size must be an int from 1 to 50"),
    ]:
        assert says in refused(native_ppo.main, [*TINY_NATIVE, *out, *argv], capsys), argv
    assert not (tmp_path / "out").exists()


def test_uno_train_sb3_and_rllib_refuse_bad_input_with_one_line(files, tmp_path, capsys):
    from uno_env.train import sb3_ppo

    out = ["--out", str(tmp_path / "out")]
    for argv, says in [
        (["--timesteps", "0"], "--timesteps: must be an int >= 1"),
        (["--resume", str(files["missing"])], "no SB3 model at"),
        (["--opponents", f"ppo:{files['garbage.pt']}"], "not plain data"),
        (["--opponents", "wizard"], "unknown agent 'wizard'"),
        (["--eval-against"], "--eval-against: expected at least one argument"),
    ]:
        assert says in refused(sb3_ppo.main, [*out, *argv], capsys), argv
    from uno_env.train import rllib_ppo

    for argv, says in [
        (["--iterations", "0"], "--iterations: must be an int >= 1"),
        (["--max-steps", "0"], "--max-steps: must be an int >= 1"),
    ]:
        assert says in refused(rllib_ppo.main, [*out, *argv], capsys), argv
    assert not (tmp_path / "out").exists()


def test_the_installed_command_prints_one_line_and_no_traceback(files):
    """As a person runs it: a corrupt policy file is one line on stderr, exit status 2."""
    run = subprocess.run(
        [sys.executable, "-m", "uno_env.arena", "--agents", f"ppo:{files['garbage.pt']}", "counter",
         "--games", "2", "--no-progress"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith("uno-arena: error: ") and run.stderr.count("\n") == 1, run.stderr
    assert not files["marker"].exists()
