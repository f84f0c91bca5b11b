"""The tests are laid out like the code, by one rule: the tests of module `uno_env.<room>.<module>` (repository
folder `<room>/<module>.py`, or `uno_env/<module>.py` for the engine and its faces) are in
`tests/<room>/test_<module>.py`, with `_<topic>` after the module's name when it has several files
(`tests/uno_env/test_game_rules_core.py`); the tests of a benchmark's code are in `tests/benchmarks/`; checks that
cut across the code (layers, docs, notebooks, packaging, determinism, fuzzing, sweeps) are in `tests/checks/`."""

import os

# PettingZoo's test utilities import pygame; keep it headless.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
# The tests compile every kernel on a fresh clone, and compiling is most of their time: LLVM's level 1 optimises
# enough for tests and compiles faster. Its code goes to a cache of its own, so that the benchmarks and training
# never load it from the modules' __pycache__ folders (set either variable to choose otherwise).
os.environ.setdefault("NUMBA_OPT", "1")
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(os.path.dirname(os.path.dirname(__file__)), ".pytest_cache",
                                                      "numba"))  # fmt: skip

# uno_env sets OMP_WAIT_POLICY=PASSIVE on import; that only takes effect if it comes before torch.
import uno_env  # noqa: E402, F401

# isort: split
import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402

import pytest  # noqa: E402

BROWSER = next((shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome") if shutil.which(name)),
               None)  # fmt: skip


def scripted_input(*entries, then=None):
    """An input function for uno-play: `entries` one by one, then `then` forever (or end of input)."""
    queue = list(entries)

    def read():
        if queue:
            return queue.pop(0)
        if then is None:
            raise EOFError
        return then

    return read


def headless_dom(address: str) -> subprocess.CompletedProcess:
    """Headless Chromium's run of the page at `address` with `--dump-dom` (its stdout: the page's DOM once its scripts
    ran); without Chromium, the test fails saying how to install it."""
    assert BROWSER, "headless Chromium is missing: run scripts/setup.sh (it installs the Debian package chromium)"
    return subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", address],
                          capture_output=True, text=True, timeout=120)  # fmt: skip


@pytest.fixture(scope="session")
def rllib_checkpoint(tmp_path_factory):
    """A checkpoint as `RLlibAgent` reads it: an untrained RLModule of the class uno-train-rllib trains, with its
    `uno_env.json` (tests/train/test_rllib_ppo.py trains a real one); for tests of the agent's code, not its weights."""
    import gymnasium as gym
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from uno_env import observation as O
    from uno_env.agents.rllib_agent import METADATA_FILE, rllib_observation_space

    size = O.ObservationSpec("minimal", 2).size
    model = {"fcnet_hiddens": [16], "head_fcnet_hiddens": [], "vf_share_layers": False}
    spec = RLModuleSpec(module_class=ActionMaskingTorchRLModule, observation_space=rllib_observation_space(size),
                        action_space=gym.spaces.Discrete(77), model_config=model)  # fmt: skip
    checkpoint = tmp_path_factory.mktemp("rllib")
    spec.build().save_to_path(str(checkpoint / "module"))
    metadata = {"variant": "classic", "num_players": 2, "observation": "minimal", "observation_size": size,
                "module_path": "module"}  # fmt: skip
    (checkpoint / METADATA_FILE).write_text(json.dumps(metadata))
    return checkpoint


@pytest.fixture
def image_save_fails_half_written(monkeypatch):
    """Call it to make Pillow's save write part of a file and then fail as a full disk does (atomic-save tests)."""
    from PIL import Image

    def half_then_fail(self, target, *args, **kwargs):
        with open(target, "wb") as file:
            file.write(b"GIF89a")
        raise OSError(28, "No space left on device")

    return lambda: monkeypatch.setattr(Image.Image, "save", half_then_fail)
