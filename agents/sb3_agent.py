"""A Stable-Baselines3 MaskablePPO model as an agent (`uno-arena --agents sb3:runs/sb3_ppo/model.zip`).

`uno_env.train.sb3_ppo` saves `model.zip` with `model.json` (variant, players, observation level) beside it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from sb3_contrib import MaskablePPO


class SB3Agent:
    """A MaskablePPO model as an agent of the agent protocol (deterministic: the most likely legal action).

    `model` is a saved model's path (with its `.json` beside it) or a live model (then give `observation`).
    """

    def __init__(self, model: str | Path | MaskablePPO, observation: str | None = None, num_players: int | None = None):
        if isinstance(model, (str, Path)):
            path = Path(model)
            meta_path = path.with_suffix(".json")
            if not path.is_file() or not meta_path.is_file():
                raise ValueError(f"no SB3 model at {path} (a model .zip with its .json, from uno_env.train.sb3_ppo)")
            meta = json.loads(meta_path.read_text())
            observation, num_players = meta["observation"], meta["num_players"]
            model = MaskablePPO.load(path, device="cpu")
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
