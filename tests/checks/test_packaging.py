"""What `pip install .` puts in site-packages: one namespace, `uno_env`, with `uno_env.agents` and `uno_env.train`
(from the repository's agents/ and train/ folders) and the shipped policies; a user's own `agents/` and `train.py`
neither shadow ours nor are shadowed by them."""

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    (path,) = out.glob("uno_env-*.whl")
    return path


@pytest.fixture
def site(wheel, tmp_path) -> Path:
    """A folder with the wheel installed in it (`pip install --target`)."""
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    return site


def python_in(site: Path, code: str, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    """`python -c code` run in `cwd` with the installed wheel (`site`) as its only path beside the standard library."""
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=timeout)  # fmt: skip


def test_the_wheel_installs_only_the_uno_env_namespace(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"uno_env"}
    assert "uno_env/arena/tournament.py" in names and "uno_env/train/native_ppo.py" in names
    assert "uno_env/agents/policies/classic-2p.pt" in names
    assert "uno_env/static/table.js" in names and "uno_env/play/static/play.html" in names
    assert "uno_env/arena/suites/uno-bench-v1.json" in names  # the published suite is package data
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    scripts = zipfile.ZipFile(wheel).read(entry_points).decode()
    for script in ("uno-arena", "uno-bench", "uno-play", "uno-replay", "uno-web", "uno-train", "uno-train-dmc",
                   "uno-train-sb3", "uno-train-rllib"):
        assert f"{script} = uno_env." in scripts


def test_a_users_own_agents_and_train_modules_live_beside_ours(site, tmp_path):
    project = tmp_path / "project"
    (project / "agents").mkdir(parents=True)
    (project / "agents" / "__init__.py").write_text("MINE = 'agents'\n")
    (project / "train.py").write_text("MINE = 'train'\n")
    check = (
        "import agents, train, uno_env.agents, uno_env.train\n"
        "from uno_env.vector import UnoVectorEnv\n"
        "from uno_env.agents import make_agent\n"
        f"assert uno_env.agents.__file__.startswith({str(site)!r}), uno_env.agents.__file__\n"
        "assert (agents.MINE, train.MINE) == ('agents', 'train')\n"
        "assert make_agent('counter').act is not None\n"
        "print('ok')\n"
    )
    result = python_in(site, check, project)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-2000:]
    elsewhere = python_in(site, "import agents", tmp_path, timeout=60)
    assert "No module named 'agents'" in elsewhere.stderr


def test_old_paths_answer_in_an_installed_wheel(site, tmp_path):
    """The deprecated module paths (`uno_env.deprecated`) work from a wheel; the one whose new home is a file of the
    repository (not installed) is one line naming it."""
    check = (
        "import warnings\n"
        "warnings.simplefilter('ignore', DeprecationWarning)\n"
        "import uno_env.agents.arena, uno_env.agents.ratings, uno_env.replay_cli, uno_env.arena.tournament\n"
        "from uno_env.actions import RandomPlay\n"
        "from uno_env.seats import RandomPlay as new\n"
        "assert uno_env.agents.arena is uno_env.arena.tournament and RandomPlay is new\n"
        "assert uno_env.replay_cli.__file__.endswith('uno_env/play/replay_cli.py'), uno_env.replay_cli.__file__\n"
        "try:\n"
        "    import uno_env.agents.search\n"
        "except ModuleNotFoundError as error:\n"
        "    print(error)\n"
    )
    result = python_in(site, check, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().startswith("uno_env.agents.search moved to benchmarks/search_gauge.py")


# the distribution that installs each module `uno_env.extras` names
DISTRIBUTION_OF_MODULE = {
    "torch": "torch", "tensorboard": "tensorboard", "stable_baselines3": "stable-baselines3",
    "sb3_contrib": "sb3-contrib", "ray": "ray", "pyspiel": "open_spiel", "open_spiel": "open_spiel",
    "flask": "flask", "waitress": "waitress",
}  # fmt: skip


def test_the_extra_each_error_names_installs_the_missing_module(wheel):
    """`MissingExtraError` tells a user `pip install "uno-env[EXTRA]"`: the wheel's EXTRA must install the module."""
    from uno_env.extras import EXTRA_OF_MODULE

    archive = zipfile.ZipFile(wheel)
    metadata = archive.read(next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    installs: dict[str, set[str]] = {}
    for requirement in re.findall(r"^Requires-Dist: (.+)$", metadata, flags=re.MULTILINE):
        extra = re.search(r"""extra == ["']([\w-]+)["']""", requirement)
        if extra:
            installs.setdefault(extra.group(1), set()).add(re.split(r"[\[<>=!~ ;(]", requirement)[0].lower())
    assert set(EXTRA_OF_MODULE) == set(DISTRIBUTION_OF_MODULE)
    for module, extra in EXTRA_OF_MODULE.items():
        assert DISTRIBUTION_OF_MODULE[module] in installs.get(extra, set()), (module, extra, installs.get(extra))
