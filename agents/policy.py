"""Trained policies as agents: the network the native PPO trains, its file format, and the shipped policies.

```python
from uno_env.agents.policy import PolicyAgent

agent = PolicyAgent.shipped("classic")        # the policy shipped for the variant (any shipped player count)
agent = PolicyAgent("runs/classic/policy.pt")  # a policy file written by `python -m uno_env.train.native_ppo`
```

`uno-arena --agents ppo:classic counter` seats the shipped policy; `ppo:PATH` seats a policy file, and
`sb3:PATH` a MaskablePPO model saved by `python -m uno_env.train.sb3_ppo` (with `--trust`: it is unpickled).

**The network** (`PolicyNetwork`): the int8 observation times a fixed per-entry scale (each field's `scale` in
`uno_env.observation.FIELDS`: counts that can grow past a handful, such as hand sizes and the draw pile, are scaled
down), an MLP trunk (ReLU), a policy head of 77 logits and a value head. Illegal actions get a logit of -1e9, so
they have probability 0.

**An adviser** (optional, `hint`): a baseline whose chosen action the network also reads, as 77 one-hot
entries after the observation (`add_hints`). The network can then copy it exactly and learn only where to
play otherwise (residual policy learning); the agent runs the adviser at play time too.

**A policy file** is `torch.save` of a plain dict (loadable with `weights_only=True`): `format`, `variant`,
`num_players`, `observation` (level), `observation_size`, `observation_digest` and `observation_fields` (the
layout it was trained on, `uno_env.observation.layout_stamp`: a file of another layout is refused when it is loaded,
naming the first field that differs; a file written before files carried a digest is checked by its size when it is
seated), `hidden` (layer widths), `hint` (the adviser's name, "" for none), `rule_options`, `state_dict` and
`trained` (how it was made: steps, minutes, and `commands`, the training command and each resume's). It is data,
never code: it is loaded with `weights_only=True` (tensors and plain values only; a file holding anything else is
refused before any of it runs), and none of its fields names another file to load (the adviser is one of the
baselines by name).
"""

from __future__ import annotations

import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from uno_env import actions as A
from uno_env import observation as O

from .base import bind
from .baselines import BASELINES
from .shipped import check_shipped, missing_players, shipped_files, shipped_for
from .trust import check_metadata

POLICY_FORMAT = "uno-env-policy-1"
#: what a policy file is, as the errors about a file that is not one say it
POLICY_FILE = "a uno-env policy file (a .pt file written by uno-train)"
SHIPPED_DIR = Path(__file__).parent / "policies"
ILLEGAL_LOGIT = -1e9

#: field name -> the scale of its entries in a network's input, where it is not 1 (the `scale` column of FIELDS)
FIELD_SCALES = {f.name: f.scale for f in O.FIELDS if f.scale != 1}


def input_scale(level: str, num_players: int) -> torch.Tensor:
    """The per-entry scale of an observation vector: each field's `scale` (a column of `uno_env.observation.FIELDS`)
    over its entries in the level's layout."""
    layout = O.observation_layout(level, num_players)
    scale = torch.ones(O.observation_size(level, num_players))
    for f in O.FIELDS:
        if f.name in layout:
            scale[layout[f.name][0]] = f.scale
    return scale


class PolicyNetwork(nn.Module):
    """Masked policy logits and a state value from an observation vector (see the module docstring)."""

    def __init__(self, level: str, num_players: int, hidden: tuple[int, ...] = (256, 256), hint: str = ""):
        super().__init__()
        self.level, self.num_players, self.hidden, self.hint = level, num_players, tuple(hidden), hint
        scale = input_scale(level, num_players)
        self.register_buffer("scale", torch.cat([scale, torch.ones(A.NUM_ACTIONS if hint else 0)]))
        layers: list[nn.Module] = []
        width = self.input_size
        for size in hidden:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        self.trunk = nn.Sequential(*layers)
        self.policy_head = nn.Linear(width, A.NUM_ACTIONS)
        self.value_head = nn.Linear(width, 1)
        nn.init.orthogonal_(self.policy_head.weight, gain=0.01)
        nn.init.zeros_(self.policy_head.bias)

    @property
    def input_size(self) -> int:
        """Entries of a row the network reads: the observation, then the adviser's 77 if it has one."""
        return self.scale.numel()

    @property
    def observation_size(self) -> int:
        """The game's observation size (without the adviser's entries)."""
        return self.input_size - (A.NUM_ACTIONS if self.hint else 0)

    def forward(self, observations: torch.Tensor, masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """observations (B, L) int8/float (with `hint`: `add_hints`' output), masks (B, 77) bool -> masked
        logits (B, 77), values (B,)."""
        logits, values, _ = self.forward_with_features(observations, masks)
        return logits, values

    def forward_with_features(self, observations: torch.Tensor, masks: torch.Tensor, extra: torch.Tensor | None = None):
        """`forward`'s logits and values, and the trunk's output they are read from (for training's auxiliary
        heads). `extra` (B, hidden[0]), if given, is added to the first layer's output before its activation
        (training's oracle input)."""
        first = self.trunk[0]  # the scale folded into the first layer's weights: cheaper than scaling inputs
        hidden = nn.functional.linear(observations.float(), first.weight * self.scale, first.bias)
        features = self.trunk[1:](hidden if extra is None else hidden + extra)
        logits = self.policy_head(features).masked_fill(~masks, ILLEGAL_LOGIT)
        return logits, self.value_head(features).squeeze(-1), features

    def to_file_dict(self, variant: str, rule_options: dict | None = None, **trained: Any) -> dict[str, Any]:
        """This network as a policy file's dict (see the module docstring)."""
        return {
            "format": POLICY_FORMAT,
            "variant": variant,
            "num_players": self.num_players,
            "observation": self.level,
            "observation_size": self.observation_size,
            **O.layout_stamp(self.level, self.num_players),
            "hidden": list(self.hidden),
            "hint": self.hint,
            "rule_options": dict(rule_options or {}),
            "state_dict": {k: v.detach().cpu().clone() for k, v in self.state_dict().items()},
            "trained": trained,
        }

    @classmethod
    def from_file_dict(cls, data: dict[str, Any], source: str = "the policy") -> PolicyNetwork:
        """The network of a policy file's dict, checked by `check_policy_dict` (a ValueError names what is wrong)."""
        check_policy_dict(data, source)
        shape = data["observation"], data["num_players"], tuple(data["hidden"]), data.get("hint") or ""
        with torch.device("meta"):  # the layout alone, no memory: the file's tensors must fit it before it is built
            expected = {k: tuple(v.shape) for k, v in cls(*shape).state_dict().items()}
        found = {k: tuple(v.shape) for k, v in data["state_dict"].items()}
        if found != expected:
            wrong = sorted(k for k in expected.keys() | found.keys() if expected.get(k) != found.get(k))
            raise ValueError(f"{source}'s weights do not fit the network it describes ({', '.join(wrong[:3])})")
        network = cls(*shape)
        network.load_state_dict({k: v.float() for k, v in data["state_dict"].items()})
        return network.eval()


def check_policy_dict(data: Any, source: str = "the policy") -> None:
    """Refuse (ValueError) a dict that is not a policy file's: the format, every field the network is built from
    (read as every saved model's metadata is, `uno_env.agents.trust.check_metadata`, the observation layout
    included), and an adviser (`hint`) that is one of the baselines by name (a policy file never names a file to
    load)."""
    if not isinstance(data, dict) or data.get("format") != POLICY_FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"{source} is not a uno-env policy file (format {found!r}, expected {POLICY_FORMAT!r}; "
                         "written by uno_env.train.native_ppo)")  # fmt: skip
    check_metadata(data, source, "a valid uno-env policy file", POLICY_FIELDS, POLICY_CHECKS)
    hint = data.get("hint") or ""
    if hint and hint not in BASELINES:
        raise ValueError(f"{source}: a policy's adviser (hint) is one of the baselines {', '.join(BASELINES)}, "
                         f"got {hint!r}")  # fmt: skip


#: the fields of a policy file's dict the network is built from, and the checks of those that are a policy's own
POLICY_FIELDS = ("observation", "num_players", "hidden", "hint", "state_dict")
POLICY_CHECKS = {"hint": lambda v: v is None or isinstance(v, str), "state_dict": lambda v: is_weights(v)}


def is_weights(state: Any) -> bool:
    """Whether `state` is a state dict: str keys, tensor values."""
    return isinstance(state, dict) and all(isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items())


def load_plain_data(path: str | Path, what: str) -> Any:
    """`torch.load(path, weights_only=True)`: tensors and plain values only, so nothing in the file runs. A file
    holding anything else (an object whose unpickling could run code), or not a torch file at all, is refused
    with a ValueError naming `what` it should have been."""
    path = Path(path)
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as error:  # weights_only refused it (or its pickle is garbage)
        raise ValueError(f"{path} is not {what}: it is not plain data (tensors and plain values only), so it is not "
                         f"loaded (torch: {_torch_reason(error)})") from None  # fmt: skip
    except (EOFError, RuntimeError, OSError, zipfile.BadZipFile) as error:  # empty, truncated, not a torch file
        raise ValueError(f"{path} is not {what}: torch cannot read it ({type(error).__name__}"
                         f"{': ' + _torch_reason(error) if str(error) else ''})") from None  # fmt: skip
    except Exception as error:  # what else torch's weights-only reader trips on: a text file gives KeyError, IndexError
        raise ValueError(f"{path} is not {what}: torch cannot read it (not a file torch.save writes; "
                         f"{type(error).__name__})") from None  # fmt: skip


def _torch_reason(error: BaseException) -> str:
    """The line of a torch.load error that says what is wrong (not its advice to load the file unsafely)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    advice = ("Weights only load failed", "Please file an issue", "Check the documentation")
    useful = [line for line in lines if not line.startswith(advice)]
    return (useful or lines or [type(error).__name__])[0]


def load_policy_file(path: str | Path) -> dict[str, Any]:
    """A policy file's dict (see the module docstring); a clear error (ValueError) if it is missing or not one.

    Loaded with `weights_only=True` and checked by `check_policy_dict`: no code in the file runs, and no field of
    it names another file to load."""
    return load_checked_file(path, "policy file", POLICY_FILE, check_policy_dict)


def load_checked_file(path: str | Path, what: str, kind: Any, check: Any) -> dict[str, Any]:
    """A file of tensors and plain values (`load_plain_data` as `kind`), checked by `check(data, source)`; a
    ValueError naming `what` when there is no such file."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no {what} at {path}" + (" (a folder)" if path.is_dir() else ""))
    data = load_plain_data(path, kind)
    check(data, str(path))
    return data


def shipped_policies() -> dict[tuple[str, int], Path]:
    """(variant, players) -> the PPO policy file shipped for that game (the catalogue's list,
    `uno_env.agents.shipped.SHIPPED`)."""
    return {game: f.path for game, f in shipped_files("policy").items()}


def add_hints(observations: np.ndarray, masks: np.ndarray, adviser: Any) -> np.ndarray:
    """The observations with the bound `adviser`'s chosen action appended to each row, one-hot (77 int8)."""
    advice = adviser.act(observations, masks)
    hints = np.zeros((observations.shape[0], A.NUM_ACTIONS), np.int8)
    hints[np.arange(observations.shape[0]), advice] = 1
    return np.concatenate([observations, hints], axis=1)


def sample_actions(logits: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """One action per row of masked logits, drawn from their softmax by Gumbel-max (3x faster than multinomial)."""
    uniform = torch.rand(logits.shape, generator=generator, device=logits.device).clamp_(1e-20, 1.0)
    return (logits - torch.log(-torch.log(uniform))).argmax(-1)


class PolicyAgent:
    """A trained `PolicyNetwork` as an agent of the agent protocol: the most likely legal action, or a sample.

    `policy` is a policy file's path, its dict, or a network. `sample=True` draws actions from the policy
    (seeded by `seed`) instead of taking the most likely one. `bind` refuses a game the network was not
    trained for (another player count or observation size). A network with a `hint` seats its adviser too.
    """

    def __init__(self, policy: str | Path | dict | PolicyNetwork, *, sample: bool = False, seed: int | None = None,
                 device: str = "cpu", name: str | None = None):  # fmt: skip
        if isinstance(policy, PolicyNetwork):
            self.network, self.info = policy, {}
        else:
            data = policy if isinstance(policy, dict) else load_policy_file(policy)
            self.network = PolicyNetwork.from_file_dict(data, "the policy" if isinstance(policy, dict) else str(policy))
            self.info = {k: v for k, v in data.items() if k != "state_dict"}
        self.network = self.network.to(device).eval()
        self.device = torch.device(device)
        self.observation = self.network.level
        self.sample = sample
        self.generator = torch.Generator(device=self.device)
        self.generator.manual_seed(0 if seed is None else int(seed))
        self.name = name or str(policy if not isinstance(policy, (dict, PolicyNetwork)) else "policy")
        self.adviser, self.adviser_bound = None, False
        if self.network.hint:
            if self.network.hint not in BASELINES:
                raise ValueError(f"a policy's adviser (hint) is one of the baselines {', '.join(BASELINES)}, "
                                 f"got {self.network.hint!r}")  # fmt: skip
            self.adviser = BASELINES[self.network.hint](seed=0 if seed is None else seed)  # reproducible ties
            if O.LEVELS.index(self.adviser.observation) > O.LEVELS.index(self.observation):  # levels nest
                raise ValueError(f"the adviser {self.network.hint!r} reads {self.adviser.observation!r} observations, "
                                 f"more than the network's {self.observation!r}")  # fmt: skip

    @classmethod
    def shipped(cls, variant: str, num_players: int | None = None, **options: Any) -> PolicyAgent | ShippedPolicy:
        """The PPO policy shipped for a variant (`ppo:VARIANT`): for `num_players`, or chosen by `bind` from the game's
        player count."""
        agent = ShippedPolicy(variant, **options)
        return agent if num_players is None else agent.for_players(num_players)

    def bind(self, spec: O.ObservationSpec, rules: Any = None) -> None:
        if spec.num_players != self.network.num_players or spec.size != self.network.observation_size:
            raise ValueError(
                f"policy {self.name} was trained for {self.network.num_players} players with {self.observation} "
                f"observations of size {self.network.observation_size}; this game has {spec.num_players} players "
                f"(observation size {spec.size})"
            )
        if self.adviser is not None:
            bind(self.adviser, spec, rules)
            self.adviser_bound = True

    @torch.inference_mode()
    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        if self.adviser is not None:
            if not self.adviser_bound:
                raise RuntimeError(f"bind(spec, rules) first: the adviser {self.network.hint!r} needs the game")
            observations = add_hints(observations, action_masks, self.adviser)
        obs = torch.from_numpy(np.ascontiguousarray(observations))
        masks = torch.from_numpy(np.ascontiguousarray(action_masks))
        return self.choose(obs, masks).cpu().numpy().astype(np.int64)

    def choose(self, observations: torch.Tensor, action_masks: torch.Tensor) -> torch.Tensor:
        """The actions of rows as the network reads them: sampled, or the most likely legal ones."""
        logits, _ = self.network(observations.to(self.device), action_masks.to(self.device).bool())
        return sample_actions(logits, self.generator) if self.sample else logits.argmax(-1)

    @torch.inference_mode()
    def act_on_device(self, observations: torch.Tensor, action_masks: torch.Tensor) -> torch.Tensor:
        """`act` for rows already in tensors (the device env's network opponents, `uno_env.vector_cuda`): the actions
        as a tensor on the network's device, nothing through the host."""
        if self.adviser is not None:
            raise ValueError(f"policy {self.name} reads an adviser's hints ({self.network.hint}), computed on the "
                             "CPU: it cannot play on the device")  # fmt: skip
        return self.choose(observations, action_masks)


class ShippedPolicy:
    """A shipped policy whose player count is not known yet (`ppo:VARIANT`, or `best:VARIANT` with `kind="best"`):
    `bind` seats the file shipped for the game's players (`uno_env.agents.shipped`, the catalogue's list)."""

    def __init__(self, variant: str, *, kind: str = "ppo", **options: Any):
        check_shipped(kind, variant)  # a ValueError names the variants shipped
        self.name = f"{kind}:{variant}"
        self.kind, self.variant, self.options, self.agent = kind, variant, options, None
        self.files = shipped_for(kind, variant)
        self.observation = next(iter(self.files.values())).observation  # the catalogue's: no file loaded yet

    def for_players(self, players: int) -> PolicyAgent:
        """The policy for a game of `players`; a ValueError says for which player counts there is one."""
        why = missing_players(self.kind, self.variant, players)
        if why is not None:
            raise ValueError(why)
        return PolicyAgent(self.files[players].path, name=self.name, **self.options)

    def bind(self, spec: O.ObservationSpec, rules: Any = None) -> None:
        self.agent = self.for_players(spec.num_players)
        self.agent.bind(spec, rules)

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        if self.agent is None:
            raise RuntimeError("bind(spec, rules) first: the player count picks the shipped policy")
        return self.agent.act(observations, action_masks)
