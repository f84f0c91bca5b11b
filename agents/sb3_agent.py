"""A Stable-Baselines3 MaskablePPO model as an agent (`uno-arena --agents sb3:runs/sb3_ppo/model.zip --trust`).

`uno_env.train.sb3_ppo` saves `model.zip` with `model.json` (variant, players, observation level and layout digest)
beside it: a model of another observation layout is refused before it is unpickled.

SB3 loads a model zip by unpickling parts of it, which can run code from the file, so a saved model loads only
with `trust=True` (`--trust` on the commands): only for files you made or trust.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .trust import read_metadata_file, untrusted

if TYPE_CHECKING:  # sb3-contrib (the train extra) is imported when a model is loaded: this module imports without it
    from sb3_contrib import MaskablePPO

#: what loading a model zip without trust would risk, as the refusal says it
SB3_KIND = "an SB3 model zip"


def check_model_file(path: str | Path, trust: bool) -> None:
    """Refuse (ValueError) a model zip that is not there, or any without `trust` (loading it runs its pickles)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no SB3 model at {path} (a model .zip from uno_env.train.sb3_ppo)")
    if not trust:
        raise untrusted(SB3_KIND, path)


def load_model(path: str | Path, *, trust: bool = False, **kwargs) -> MaskablePPO:
    """`MaskablePPO.load(path, **kwargs)`, only with `trust=True` (unpickling can run code from the file)."""
    check_model_file(path, trust)
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(Path(path), **kwargs)


def read_metadata(path: str | Path) -> dict:
    """The `.json` beside a model zip (observation level, player count, layout digest), read by the one metadata
    reader (`uno_env.agents.trust.check_metadata`): a clear error when it is not ours or the model was trained on
    another observation layout."""
    path = Path(path)
    meta_path = path.with_suffix(".json")
    if not path.is_file() or not meta_path.is_file():
        raise ValueError(f"no SB3 model at {path} (a model .zip with its .json, from uno_env.train.sb3_ppo)")
    return read_metadata_file(meta_path, str(meta_path), "an SB3 model's metadata (uno_env.train.sb3_ppo's)",
                              ("observation", "num_players"))


class SB3Agent:
    """A MaskablePPO model as an agent of the agent protocol (deterministic: the most likely legal action).

    `model` is a saved model's path (with its `.json` beside it; loaded only with `trust=True`, since loading runs
    pickles from the file) or a live model (then give `observation`).
    """

    def __init__(self, model: str | Path | MaskablePPO, observation: str | None = None, num_players: int | None = None,
                 *, trust: bool = False):  # fmt: skip
        if isinstance(model, (str, Path)):
            meta = read_metadata(model)
            observation, num_players = meta["observation"], meta["num_players"]
            model = load_model(model, trust=trust, device="cpu")
        self.model, self.observation, self.num_players = model, observation or "knowledge", num_players

    def bind(self, spec, rules=None) -> None:
        size = self.model.observation_space.shape[0]
        if spec.size != size:
            raise ValueError(
                f"this SB3 model reads observations of size {size} ({self.num_players} players, {self.observation}); "
                f"this game's are {spec.size} ({spec.num_players} players)"
            )

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        actions, _ = self.model.predict(observations, action_masks=action_masks.astype(bool), deterministic=True)
        return np.asarray(actions, dtype=np.int64)
