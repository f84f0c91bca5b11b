"""A rollout and the batch a learner trains on, as dataclasses of tensors: each field says what it holds.

`Rollout` holds the buffers that one collection fills, (T, B, ...) for T decisions of each of B games; `Batch` is
the same decisions flattened into rows, with their advantages and returns, which the updates read in shuffled
minibatches. The aids' rows (`uno_env.train.aids`) ride along in `aids`, by the aid's key.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field

try:  # the train extra (see uno_env.train.native_ppo)
    import torch
except ModuleNotFoundError:  # pragma: no cover - names in annotations only
    torch = None


@dataclass
class Batch:
    """Rows of learner decisions: what it saw, was allowed and did, and what that was worth."""

    obs: torch.Tensor
    """(N, L) int8: the observation rows as the network reads them (with an adviser's hints, if it has one)."""
    masks: torch.Tensor
    """(N, 77) bool: the legal actions."""
    actions: torch.Tensor
    """(N,) long: the actions taken."""
    logp: torch.Tensor
    """(N,) float: their log-probabilities under the policy that acted."""
    advantages: torch.Tensor
    """(N,) float: GAE advantages."""
    returns: torch.Tensor
    """(N,) float: the value targets (advantages plus the values)."""
    aids: dict[str, torch.Tensor] = field(default_factory=dict)
    """(N, width) int8 rows of each aid, by its key."""
    imitated: torch.Tensor | None = None
    """(N,) long: the imitated baseline's actions in these states (`--imitate-weight`), or None."""

    def __len__(self) -> int:
        return self.actions.shape[0]

    def select(self, index: torch.Tensor) -> Batch:
        """The rows at `index`, gathered with `index_select` (advanced indexing of int8 rows is ~8x slower on CPU)."""
        rows = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "aids"}
        return Batch(**{name: None if value is None else value.index_select(0, index) for name, value in rows.items()},
                     aids={key: value.index_select(0, index) for key, value in self.aids.items()})  # fmt: skip

    def minibatches(self, size: int) -> Iterator[Batch]:
        """One shuffled pass in minibatches of `size` rows (a remainder smaller than that is left out)."""
        order = torch.randperm(len(self), device=self.actions.device)
        for start in range(0, len(self) - size + 1, size):
            yield self.select(order[start : start + size])


@dataclass
class Rollout:
    """One rollout's buffers on the training device: T decisions of each of B games."""

    obs: torch.Tensor
    """(T, B, L) int8: the observation rows the network read."""
    masks: torch.Tensor
    """(T, B, 77) bool: the legal actions."""
    actions: torch.Tensor
    """(T, B) long: the actions taken."""
    logp: torch.Tensor
    """(T, B) float: their log-probabilities."""
    values: torch.Tensor
    """(T, B) float: the critic's values."""
    rewards: torch.Tensor
    """(T, B) float: the learner's rewards."""
    dones: torch.Tensor
    """(T, B) float: 1 where the game ended after the decision."""
    last_values: torch.Tensor
    """(B,) float: the values after the last decision, for GAE's bootstrap."""
    aids: dict[str, torch.Tensor] = field(default_factory=dict)
    """(T, B, width) int8 rows of each aid, by its key."""
    imitated: torch.Tensor | None = None
    """(T, B) long: the imitated baseline's actions in the learner's states (`--imitate-weight`), or None."""

    @classmethod
    def empty(cls, steps: int, games: int, obs_width: int, mask_width: int, aid_widths: dict[str, int], device,
              imitated: bool = False):  # fmt: skip
        """Zeroed buffers for `steps` decisions of `games` games (with a buffer for the imitated baseline's
        actions if `imitated`)."""

        def zeros(*shape, dtype=torch.float32):
            return torch.zeros((steps, games, *shape), dtype=dtype, device=device)

        return cls(
            obs=zeros(obs_width, dtype=torch.int8), masks=zeros(mask_width, dtype=torch.bool),
            actions=zeros(dtype=torch.long), logp=zeros(), values=zeros(), rewards=zeros(), dones=zeros(),
            last_values=torch.zeros(games, device=device),
            aids={key: zeros(width, dtype=torch.int8) for key, width in aid_widths.items()},
            imitated=zeros(dtype=torch.long) if imitated else None,
        )  # fmt: skip

    def apply(self, function) -> Rollout:
        """A rollout of `function` applied to each of its buffers (an absent one stays absent)."""
        buffers = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "aids"}
        return Rollout(**{name: None if value is None else function(value) for name, value in buffers.items()},
                       aids={key: function(value) for key, value in self.aids.items()})  # fmt: skip

    def to(self, device) -> Rollout:
        """The same buffers on `device` (the collectors' shared CPU rollout, copied to a GPU learner)."""
        return self.apply(lambda buffer: buffer.to(device))

    def columns(self, start: int, stop: int) -> Rollout:
        """Views of the games [start, stop): what a collector's shard writes there goes into the whole."""
        return self.apply(lambda buffer: buffer[start:stop] if buffer.dim() == 1 else buffer[:, start:stop])

    def batch(self, advantages: torch.Tensor) -> Batch:
        """The rollout's decisions as rows, with their `advantages` (T, B) and returns."""
        n = self.actions.numel()
        return Batch(
            obs=self.obs.reshape(n, -1), masks=self.masks.reshape(n, -1), actions=self.actions.reshape(-1),
            logp=self.logp.reshape(-1), advantages=advantages.reshape(-1),
            returns=(advantages + self.values).reshape(-1),
            aids={key: value.reshape(n, -1) for key, value in self.aids.items()},
            imitated=None if self.imitated is None else self.imitated.reshape(-1),
        )  # fmt: skip
