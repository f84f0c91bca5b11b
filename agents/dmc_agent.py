"""Q-networks trained by Deep Monte-Carlo (`uno-train-dmc`, `uno_env.train.dmc`) as agents: `dmc:FILE.pt`.

```python
from uno_env.agents.dmc_agent import DMCAgent

agent = DMCAgent("runs/dmc/policy.pt")   # the greedy Q-policy of a file written by uno-train-dmc
```

**The network** (`QNetwork`) scores a state and an action together, as DouZero does: Q(s, a) is an MLP over the
observation (each entry times its field's scale, as `PolicyNetwork` reads it) followed by the action's features
(`action_features`: the action id one-hot, then the card it plays or the colour it names: colour, rank, wild). The
first layer is linear, so its output splits into a state part (once per state) and an action part (once per
action id); `q_values` adds them for every legal action of every state and scores all of those pairs in one batched
pass. The agent plays the legal action of highest Q.

It is a `PolicyNetwork` in what it offers the training room (masked scores per action and a value, a policy file's
dict), so the league's `self` snapshots, the evaluation and the snapshots treat it as they treat the PPO's network:
its scores are the Q-values over `BOLTZMANN_TEMPERATURE` (a sampled snapshot plays close to greedily), its value the
best legal Q.

**A DMC policy file** is `torch.save` of a plain dict, loaded with `weights_only=True` (nothing in it runs):
`format` (`DMC_FORMAT`), `variant`, `num_players`, `observation`, `observation_size`, the layout stamp
(`uno_env.observation.layout_stamp`), `hidden`, `action_encoding` (`ACTION_ENCODING`), `rule_options`, `state_dict`
and `trained` (steps, minutes, the commands).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from uno_env import actions as A
from uno_env import cards as C
from uno_env import observation as O

from .policy import ILLEGAL_LOGIT, PolicyAgent, PolicyNetwork, input_scale, is_weights, load_checked_file
from .trust import check_metadata

DMC_FORMAT = "uno-env-dmc-policy-1"
#: what a DMC policy file is, as the errors about a file that is not one say it
DMC_FILE = "a uno-env DMC policy file (a .pt file written by uno-train-dmc)"
#: the action encoding a file was trained with: the id one-hot, then colour, rank and wild of its card or colour
ACTION_ENCODING = "id-color-rank-wild-1"
#: the Q-values are divided by this to make the scores a sampled snapshot draws from (softmax): nearly greedy
BOLTZMANN_TEMPERATURE = 0.05


def action_features() -> np.ndarray:
    """(actions, features) float32: each action id one-hot, then the colour (4) and rank (13) of the coloured card
    it plays, 1 if it plays a wild card, and the colour a `color` action names."""
    ids = A.NUM_ACTIONS
    colour_at, rank_at = ids, ids + C.NUM_COLORS
    wild_at = rank_at + C.RANKS_PER_COLOR
    features = np.zeros((ids, wild_at + 1), np.float32)
    features[np.arange(ids), np.arange(ids)] = 1.0
    for kind in range(C.NUM_KINDS):
        if kind < C.NUM_COLORED_KINDS:
            features[kind, colour_at + kind // C.RANKS_PER_COLOR] = 1.0
            features[kind, rank_at + kind % C.RANKS_PER_COLOR] = 1.0
        else:
            features[kind, wild_at] = 1.0
    for colour in range(C.NUM_COLORS):
        features[A.COLOR_BASE + colour, colour_at + colour] = 1.0
    return features


class QNetwork(PolicyNetwork):
    """Q(s, a) for every legal action of a batch of states (see the module docstring)."""

    def __init__(self, level: str, num_players: int, hidden: tuple[int, ...] = (128, 128)):
        nn.Module.__init__(self)  # a layout of its own: PolicyNetwork's layers are not built
        self.level, self.num_players, self.hidden, self.hint = level, num_players, tuple(hidden), ""
        self.register_buffer("scale", input_scale(level, num_players), persistent=False)
        self.register_buffer("actions", torch.from_numpy(action_features()), persistent=False)
        self.first = nn.Linear(self.observation_size + self.actions.shape[1], self.hidden[0])
        layers: list[nn.Module] = [nn.ReLU()]
        for width, size in zip(self.hidden, self.hidden[1:], strict=False):
            layers += [nn.Linear(width, size), nn.ReLU()]
        self.rest = nn.Sequential(*layers)
        self.head = nn.Linear(self.hidden[-1], 1)

    def _state_part(self, observations: torch.Tensor) -> torch.Tensor:
        """The first layer's output from the observation alone, with its bias: (B, hidden[0])."""
        weight = self.first.weight[:, : self.observation_size] * self.scale
        return nn.functional.linear(observations.float(), weight, self.first.bias)

    def _action_part(self) -> torch.Tensor:
        """The first layer's output from each action's features alone: (actions, hidden[0])."""
        return self.actions @ self.first.weight[:, self.observation_size :].T

    def _score(self, first: torch.Tensor) -> torch.Tensor:
        return self.head(self.rest(first)).squeeze(-1)

    def q_taken(self, observations: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """Q of each state (B, L) and the action taken in it (B,): (B,), what training regresses."""
        return self._score(self._state_part(observations) + self._action_part().index_select(0, actions))

    def q_values(self, observations: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        """Q of every legal action of each state (B, L), masks (B, actions) bool -> (B, actions), illegal ones
        `ILLEGAL_LOGIT`: only the legal (state, action) pairs are scored, all in one pass."""
        rows, ids = masks.nonzero(as_tuple=True)
        first = self._state_part(observations).index_select(0, rows) + self._action_part().index_select(0, ids)
        q = torch.full(masks.shape, ILLEGAL_LOGIT, device=first.device, dtype=first.dtype)
        q[rows, ids] = self._score(first)
        return q

    def forward(self, observations: torch.Tensor, masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Scores (the legal Q-values over `BOLTZMANN_TEMPERATURE`, illegal ones `ILLEGAL_LOGIT`) and the best legal
        Q of each state, as a policy network's masked logits and values."""
        q = self.q_values(observations, masks.bool())
        legal = masks.bool()
        return torch.where(legal, q / BOLTZMANN_TEMPERATURE, q), q.max(-1).values

    def forward_with_features(self, observations: torch.Tensor, masks: torch.Tensor, extra: Any = None):
        raise NotImplementedError("a Q-network has no trunk features for training aids")

    def to_file_dict(self, variant: str, rule_options: dict | None = None, **trained: Any) -> dict[str, Any]:
        """This network as a DMC policy file's dict (see the module docstring)."""
        return {
            "format": DMC_FORMAT, "variant": variant, "num_players": self.num_players, "observation": self.level,
            "observation_size": self.observation_size, **O.layout_stamp(self.level, self.num_players),
            "hidden": list(self.hidden), "action_encoding": ACTION_ENCODING, "rule_options": dict(rule_options or {}),
            "state_dict": {k: v.detach().cpu().clone() for k, v in self.state_dict().items()}, "trained": trained,
        }  # fmt: skip

    @classmethod
    def from_file_dict(cls, data: dict[str, Any], source: str = "the policy") -> QNetwork:
        """The network of a DMC policy file's dict, checked first (a ValueError names what is wrong)."""
        check_dmc_dict(data, source)
        network = cls(data["observation"], data["num_players"], tuple(data["hidden"]))
        expected = {k: tuple(v.shape) for k, v in network.state_dict().items()}
        found = {k: tuple(v.shape) for k, v in data["state_dict"].items()}
        if found != expected:
            wrong = sorted(k for k in expected.keys() | found.keys() if expected.get(k) != found.get(k))
            raise ValueError(f"{source}'s weights do not fit the network it describes ({', '.join(wrong[:3])})")
        network.load_state_dict({k: v.float() for k, v in data["state_dict"].items()})
        return network.eval()


#: the fields of a DMC policy file the network is built from, and the checks of those that are its own
DMC_FIELDS = ("observation", "num_players", "hidden", "state_dict", "action_encoding")
DMC_CHECKS = {"state_dict": is_weights, "action_encoding": lambda v: v == ACTION_ENCODING}


def check_dmc_dict(data: Any, source: str = "the policy") -> None:
    """Refuse (ValueError) a dict that is not a DMC policy file's: the format, the fields the network is built from,
    the observation layout and the action encoding."""
    if not isinstance(data, dict) or data.get("format") != DMC_FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"{source} is not a uno-env DMC policy file (format {found!r}, expected {DMC_FORMAT!r}; "
                         "written by uno-train-dmc; a PPO policy file is seated as ppo:FILE.pt)")  # fmt: skip
    check_metadata(data, source, "a valid uno-env DMC policy file", DMC_FIELDS, DMC_CHECKS)


def load_dmc_file(path: str | Path) -> dict[str, Any]:
    """A DMC policy file's dict, loaded as data (`weights_only=True`) and checked; a ValueError if it is not one."""
    return load_checked_file(path, "DMC policy file", DMC_FILE, check_dmc_dict)


class DMCAgent(PolicyAgent):
    """A `QNetwork` as an agent: the legal action of highest Q (or, with `sample=True`, a draw from the softmax of
    the Q-values over `BOLTZMANN_TEMPERATURE`). `policy` is a DMC policy file's path, its dict, or a network."""

    def __init__(self, policy: str | Path | dict | QNetwork, *, sample: bool = False, seed: int | None = None,
                 device: str = "cpu", name: str | None = None):  # fmt: skip
        info: dict[str, Any] = {}
        if isinstance(policy, QNetwork):
            network = policy
        else:
            data = policy if isinstance(policy, dict) else load_dmc_file(policy)
            network = QNetwork.from_file_dict(data, "the policy" if isinstance(policy, dict) else str(policy))
            info = {k: v for k, v in data.items() if k != "state_dict"}
        label = name or (str(policy) if isinstance(policy, (str, Path)) else "dmc policy")
        super().__init__(network, sample=sample, seed=seed, device=device, name=label)
        self.info = info
