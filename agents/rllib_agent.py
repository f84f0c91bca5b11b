"""An RLlib-trained policy as an agent: `RLlibAgent(checkpoint, trust=True)`, or `uno-arena --agents rllib:DIR --trust`.

A checkpoint is the folder `python train/rllib_ppo.py` writes (`Algorithm.save_to_path`) with the file
`uno_env.json` beside RLlib's files: the variant, player count, observation level (with its layout digest) and rule
options the policy was trained on, and the id of the shared policy's RLModule; a checkpoint of another observation
layout is refused before anything of RLlib's is loaded. The agent loads only that RLModule (no Algorithm, no env
runners, no Ray cluster) and samples its action from the masked policy, with its
own seeded generator; `greedy=True` takes the legal action with the highest logit instead. Sampling is
the default because it is the policy PPO trained, and because an argmax policy can loop: in a measured
2-player classic run (20 iterations), the greedy policy kept drawing until the 10,000-decision limit in
29% of its games against `random`, the sampled one in none.

RLlib's action-masking module (`ray.rllib.examples.rl_modules.classes.action_masking_rlm`) reads a dict
observation with the keys `observations` (a float vector) and `action_mask`; `rllib_observation` turns
the project's `{"observation": int8, "action_mask": int8}` into that, the same way in training and here.

RLlib restores a module from a checkpoint by unpickling files in it, which can run code from the files, so a
checkpoint loads only with `trust=True` (`--trust` on the commands): only for checkpoints you made or trust.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from uno_env import actions as A
from uno_env import observation as O

from .trust import read_metadata_file, untrusted

#: the file beside RLlib's checkpoint that says which game the policy was trained on
METADATA_FILE = "uno_env.json"


def rllib_observation(observation: np.ndarray, action_mask: np.ndarray) -> dict[str, np.ndarray]:
    """The project's observation (int8 arrays) as RLlib's masking module reads it (float32 arrays)."""
    return {
        "observations": np.asarray(observation, dtype=np.float32),
        "action_mask": np.asarray(action_mask, dtype=np.float32),
    }


def rllib_observation_space(size: int):
    """The gymnasium space of `rllib_observation` for observation vectors of `size` entries."""
    from gymnasium import spaces

    return spaces.Dict(
        {
            "observations": spaces.Box(-1.0, 127.0, (size,), np.float32),
            "action_mask": spaces.Box(0.0, 1.0, (A.NUM_ACTIONS,), np.float32),
        }
    )


def read_metadata(checkpoint: str | Path) -> dict[str, Any]:
    """The `uno_env.json` of a checkpoint folder, read by the one metadata reader
    (`uno_env.agents.trust.check_metadata`): a clear error when it is not one of ours or its policy was trained on
    another observation layout."""
    path = Path(checkpoint)
    if not path.is_dir():
        raise ValueError(f"no RLlib checkpoint folder at {str(path)!r} (train one with train/rllib_ppo.py)")
    meta_path = path / METADATA_FILE
    if not meta_path.is_file():
        raise ValueError(f"{str(path)!r} has no {METADATA_FILE}: it is not a checkpoint written by train/rllib_ppo.py")
    return read_metadata_file(meta_path, repr(str(meta_path)), "an RLlib checkpoint's metadata (train/rllib_ppo.py's)",
                              ("observation", "num_players", "observation_size", "module_path"))


@functools.lru_cache(maxsize=8)
def _load_module(module_path: str):
    """The RLModule in a checkpoint's module folder, loaded once per process (agents are rebuilt per chunk)."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    module = RLModule.from_checkpoint(module_path)
    module.eval()
    return module


class RLlibAgent:
    """The shared policy of an RLlib checkpoint, masked: sampled with its own seed (default) or greedy.

    The checkpoint loads only with `trust=True`: RLlib unpickles its files, which can run code from them."""

    name = "rllib"

    def __init__(self, checkpoint: str | Path, *, greedy: bool = False, seed: int | None = None, trust: bool = False):
        self.checkpoint = Path(checkpoint).resolve()
        self.metadata = read_metadata(self.checkpoint)
        self.observation = self.metadata["observation"]
        self.observation_size = int(self.metadata["observation_size"])
        module_path = (self.checkpoint / self.metadata["module_path"]).resolve()
        if not module_path.is_relative_to(self.checkpoint):  # the metadata names a folder of this checkpoint only
            raise ValueError(f"{METADATA_FILE} of {str(self.checkpoint)!r} names a folder outside the checkpoint")
        if not module_path.is_dir():
            raise ValueError(f"the checkpoint {str(self.checkpoint)!r} lacks its policy folder {str(module_path)!r}")
        if not trust:
            raise untrusted("an RLlib checkpoint", self.checkpoint)
        self.module = _load_module(str(module_path))
        self.greedy = greedy
        self.rng = np.random.default_rng(seed)

    def bind(self, spec: O.ObservationSpec, rules) -> None:
        """Refuse a game whose observations are not the ones the policy was trained on."""
        if spec.size != self.observation_size:
            meta = self.metadata
            raise ValueError(
                f"the RLlib policy in {str(self.checkpoint)!r} was trained on {meta['num_players']}-player "
                f"'{meta['observation']}' observations ({self.observation_size} entries); this game's have "
                f"{spec.size} ({spec.num_players} players): play it with {meta['num_players']} players"
            )

    def logits(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The policy's logits (B, 77), illegal actions at -inf."""
        import torch

        batch = {k: torch.from_numpy(v) for k, v in rllib_observation(observations, action_masks).items()}
        with torch.no_grad():
            out = self.module.forward_inference({"obs": batch})
        logits = out["action_dist_inputs"].cpu().numpy().astype(np.float64)
        logits[np.asarray(action_masks) == 0] = -np.inf
        return logits

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        if len(observations) == 0:
            return np.zeros(0, np.int64)
        logits = self.logits(observations, action_masks)
        if not self.greedy:
            logits = logits + self.rng.gumbel(size=logits.shape)  # Gumbel-max: a sample from softmax(logits)
        return logits.argmax(axis=1).astype(np.int64)
