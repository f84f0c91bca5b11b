"""Hand beliefs: what each other seat probably holds, read from what the observing seat sees.

```python
from uno_env.agents.belief import load_belief

model = load_belief("classic", num_players=4)   # the model shipped for the variant and player count
model = load_belief("runs/belief/belief.pt")    # a file written by `python -m uno_env.train.belief`
expected = model.predict(observations)           # (B, L) int8 at model.observation -> (B, N, NUM_KINDS) float32
```

Row r of `predict`'s answer is relative seat r's expected copies of each card kind; row 0, the observer's own
hand, is exact. `uno_env.observation.counting_belief` gives the same array from counting alone (every unseen card
equally likely anywhere), the baseline a model must beat.

`counting_belief` and `CountingParts` are re-exported from `uno_env.observation`, where they live.

**The network** (`BeliefNetwork`): the observation times the policy network's per-entry scale, an MLP trunk and
one logit per (other seat, card kind). A seat's hidden cards (its hand less the cards the observer knows it
holds) are spread over the kinds with an unseen copy by the softmax of log(unseen copies) + the logits, so zero
logits are counting exactly and the network learns what play adds: expected copies = known copies + hidden cards
x probability. It is trained by
`uno_env.train.belief` on games the engine labels for free (the true hands), minimising the cross-entropy of
the true hidden cards: the log-likelihood that `score_beliefs` reports in bits per hidden card.

**A belief file** is `torch.save` of a plain dict, read with `weights_only=True` (tensors and plain values,
nothing that runs): `format`, `variant`, `num_players`, `observation`, `observation_size`, `observation_digest` and
`observation_fields` (the layout it was trained on, checked when it is loaded as a policy file's are), `hidden`,
`rule_options`, `state_dict` and `trained` (how it was made, and its held-out score).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from uno_env import cards as C
from uno_env import observation as O
from uno_env.observation import CountingParts, counting_belief

from .policy import input_scale, is_weights, load_plain_data
from .shipped import shipped_files
from .trust import check_metadata

__all__ = ["BeliefModel", "BeliefNetwork", "CountingParts", "counting_belief", "load_belief", "score_beliefs"]

BELIEF_FORMAT = "uno-env-belief-1"
#: what a belief file is, as the errors about a file that is not one say it
BELIEF_FILE = "a uno-env belief file (a .pt file written by python -m uno_env.train.belief)"
SHIPPED_DIR = Path(__file__).parent / "beliefs"
#: the smallest probability a model gives a possible kind: a true card never costs infinitely many bits
FLOOR = 1e-6


class BeliefNetwork(nn.Module):
    """Per (other seat, card kind) logits from an observation vector (see the module docstring)."""

    def __init__(self, level: str, num_players: int, hidden: tuple[int, ...] = (256, 256)):
        super().__init__()
        self.level, self.num_players, self.hidden = level, num_players, tuple(hidden)
        self.register_buffer("scale", input_scale(level, num_players))
        layers: list[nn.Module] = []
        width = self.scale.numel()
        for size in hidden:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        self.trunk = nn.Sequential(*layers)
        self.head = nn.Linear(width, (num_players - 1) * C.NUM_KINDS)
        nn.init.zeros_(self.head.weight)  # starts as counting (see `probabilities_from_logits`)
        nn.init.zeros_(self.head.bias)

    @property
    def observation_size(self) -> int:
        return self.scale.numel()

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        """observations (B, L) int8 or float -> logits (B, N - 1, NUM_KINDS) for relative seats 1 .. N - 1."""
        logits = self.head(self.trunk(observations.float() * self.scale))
        return logits.view(-1, self.num_players - 1, C.NUM_KINDS)

    def to_file_dict(self, variant: str, rule_options: dict | None = None, **trained: Any) -> dict[str, Any]:
        return {
            "format": BELIEF_FORMAT, "variant": variant, "num_players": self.num_players, "observation": self.level,
            "observation_size": self.observation_size, **O.layout_stamp(self.level, self.num_players),
            "hidden": list(self.hidden),
            "rule_options": dict(rule_options or {}),
            "state_dict": {k: v.detach().cpu().clone() for k, v in self.state_dict().items()}, "trained": trained,
        }  # fmt: skip


def probabilities_from_logits(logits: torch.Tensor, unseen: torch.Tensor) -> torch.Tensor:
    """Each hidden card's kind distribution from (B, N - 1, K) logits and the (B, K) unseen copies: the softmax of
    log(unseen copies) + logits over the kinds with an unseen copy, floored at `FLOOR`. Zero logits are counting
    exactly, so a network learns what play adds to it."""
    possible = (unseen > 0)[:, None, :]
    prior = torch.log(unseen.float().clamp_min(1.0))[:, None, :]
    p = torch.softmax((prior + logits).masked_fill(~possible, -1e9), dim=-1)
    p = torch.where(possible, p.clamp_min(FLOOR), torch.zeros_like(p))
    return p / p.sum(-1, keepdim=True).clamp_min(1e-12)


class BeliefModel:
    """A trained `BeliefNetwork` with the level it reads: `predict` gives expected copies per relative seat."""

    def __init__(self, network: BeliefNetwork, variant: str = "", name: str = "belief"):
        self.network = network.eval()
        self.variant, self.name = variant, name
        self.observation, self.num_players = network.level, network.num_players

    def probabilities(self, observations: np.ndarray) -> np.ndarray:
        """(B, N - 1, K): each hidden card's kind distribution for relative seats 1 .. N - 1."""
        return self._read(observations)[1]

    def predict(self, observations: np.ndarray) -> np.ndarray:
        """(B, L) int8 observations at `self.observation` -> (B, N, NUM_KINDS) float32 expected copies."""
        parts, probabilities = self._read(observations)
        return parts.expected(probabilities).astype(np.float32)

    def log_odds(self, observations: np.ndarray) -> np.ndarray:
        """(B, N - 1, K): log of the model's probability of each hidden card's kind over counting's (0 for kinds with
        no unseen copy): how much more likely the model finds each card than counting does."""
        parts, believed = self._read(observations)
        counted = parts.counting_probabilities()
        odds = np.zeros_like(believed)
        possible = counted > 0
        odds[possible] = np.log(believed[possible]) - np.log(counted[possible])
        return odds

    def _read(self, observations: np.ndarray) -> tuple[CountingParts, np.ndarray]:
        """The counting parts of checked observations, and the model's probabilities (B, N - 1, K)."""
        observations = self._checked(observations)
        parts = CountingParts(observations, self.observation, self.num_players)
        with torch.inference_mode():
            logits = self.network(torch.from_numpy(observations))
            return parts, probabilities_from_logits(logits, torch.from_numpy(parts.unseen)).numpy()

    def _checked(self, observations: np.ndarray) -> np.ndarray:
        observations = np.asarray(observations)
        size = O.observation_size(self.observation, self.num_players)
        if observations.ndim != 2 or observations.shape[1] != size or observations.dtype != np.int8:
            raise ValueError(f"{self.name} reads (B, {size}) int8 observations at level {self.observation!r} with "
                             f"{self.num_players} players, got {observations.dtype} {observations.shape}")  # fmt: skip
        return observations


def check_belief_dict(data: Any, source: str) -> None:
    """Refuse (ValueError, one line) a dict that is not a belief file's, read as every saved model's metadata is
    (`uno_env.agents.trust.check_metadata`, the observation layout included)."""
    if not isinstance(data, dict) or data.get("format") != BELIEF_FORMAT:
        raise ValueError(f"{source} is not {BELIEF_FILE}")
    check_metadata(data, source, BELIEF_FILE, BELIEF_FIELDS, {"state_dict": is_weights})
    if data["observation_size"] != O.observation_size(data["observation"], data["num_players"]):
        raise ValueError(f"{source} reads observations of size {data['observation_size']}, but this version's "
                         f"{data['observation']!r} observations with {data['num_players']} players have "
                         f"{O.observation_size(data['observation'], data['num_players'])}")  # fmt: skip


#: the fields a belief file's dict records
BELIEF_FIELDS = ("variant", "num_players", "observation", "observation_size", "hidden", "rule_options", "state_dict",
                 "trained")  # fmt: skip


def belief_from_file_dict(data: dict[str, Any], source: str) -> BeliefModel:
    check_belief_dict(data, source)
    with torch.device("meta"):  # the layout alone: the file's tensors must fit it before anything is built
        expected = {k: tuple(v.shape) for k, v in BeliefNetwork(
            data["observation"], data["num_players"], tuple(data["hidden"])).state_dict().items()}  # fmt: skip
    found = {k: tuple(v.shape) for k, v in data["state_dict"].items()}
    if found != expected:
        raise ValueError(f"{source}'s weights do not fit the network it describes")
    network = BeliefNetwork(data["observation"], data["num_players"], tuple(data["hidden"]))
    network.load_state_dict({k: v.float() for k, v in data["state_dict"].items()})
    return BeliefModel(network, data["variant"], name=f"belief:{source}")


def shipped_beliefs() -> dict[tuple[str, int], Path]:
    """(variant, players) -> the belief model shipped for that game (the catalogue's list,
    `uno_env.agents.shipped.SHIPPED`)."""
    return {game: f.path for game, f in shipped_files("belief").items()}


def load_belief(source: str | Path, num_players: int | None = None) -> BeliefModel:
    """A belief model: a variant's name with `num_players` (the shipped model), or a belief file's path (data only,
    as policy files: `torch.load(weights_only=True)`). A ValueError says in one line what is wrong."""
    shipped = shipped_beliefs()
    if num_players is not None:
        key = (str(source), num_players)
        if key not in shipped:
            choices = ", ".join(f"{v} with {n}" for v, n in sorted(shipped))
            raise ValueError(f"no shipped belief model for {source!r} with {num_players} players; shipped: {choices}")
        path = shipped[key]
    else:
        path = Path(source)
        if not path.is_file():
            raise ValueError(f"no belief file at {path} (give a variant's name with num_players for a shipped model)")
    return belief_from_file_dict(load_plain_data(path, BELIEF_FILE), str(path))


def score_beliefs(expected: np.ndarray, observations: np.ndarray, hands: np.ndarray, level: str,
                  num_players: int) -> dict[str, float]:  # fmt: skip
    """How well (B, N, K) expected copies match the true (B, N, K) hands (relative seats) of the observations:
    `squared_error`, the mean over the other seats' entries of (expected - true)^2 per kind; and `bits_per_card`,
    the negative log2-likelihood of each hidden card's true kind (the other seats' hands less the cards the
    observer knows of), per hidden card, with each hidden card's kind drawn from the distribution the expected
    copies imply (floored at `FLOOR`)."""
    parts = CountingParts(observations, level, num_players)
    hidden = parts.hidden[:, 1:]
    true_hidden = np.maximum(hands[:, 1:].astype(np.float64) - parts.known[:, 1:], 0.0)
    p = np.maximum(expected[:, 1:].astype(np.float64) - parts.known[:, 1:], 0.0)
    p = np.divide(p, hidden[..., None], out=np.zeros_like(p), where=hidden[..., None] > 0)
    p = np.where(parts.unseen[:, None, :] > 0, np.maximum(p, FLOOR), 0.0)
    p /= np.maximum(p.sum(-1, keepdims=True), 1e-12)
    cards = true_hidden.sum()
    bits = -(true_hidden * np.log2(np.where(true_hidden > 0, p, 1.0))).sum() / max(cards, 1.0)
    error = ((expected[:, 1:].astype(np.float64) - hands[:, 1:]) ** 2).mean()
    return {"bits_per_card": float(bits), "squared_error": float(error), "hidden_cards": float(cards)}
