"""Training aids: what training reads and play never does, each behind one interface (`Aid`) so that the learner's
forward pass, losses and rollouts call the run's `Aids` rather than branching on each.

- `SeerCritic` (`--critic seer`): the value function is a network of its own reading `seer` rows (every hand).
- `HandHead` (`--hand-loss W`): a head on the policy trunk predicts the other seats' hands, labelled by the engine.
- `OracleInput` (`--oracle F`): the other seats' hands join the first hidden layer, dropped out to nothing over the
  fraction F of the run (Suphx's oracle guiding).
- `Teacher` (`--teacher FILE`): the KL divergence from a policy file's action distribution to the learner's joins
  the loss, its weight falling to 0 over the run (perfect-information distillation with a `seer` teacher).

An aid reads a row per learner decision from the league (`rows`), kept in the rollout beside the observation; it
may add a term to the policy's first hidden layer (`extra`), stand in for the policy's values (`values`), add a loss
(`loss`) and log how it is scheduled (`scalars`). The ones that learn are trained with the policy and kept in the
checkpoint under their `key`; none is in the policy file.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from uno_env import cards as C
from uno_env.extras import missing_extra_base

try:  # the train extra: without it the module still imports, so that `uno-train --help` works
    import torch

    from uno_env.agents.policy import PolicyNetwork, load_policy_file

    Module = torch.nn.Module
except ModuleNotFoundError as error:
    Module = PolicyNetwork = missing_extra_base(error)


class Aid(Module):
    """One training aid (see the module docstring). `key` names it in the rollout and the checkpoint, `loss_name` its
    logged loss; `learns`: its parameters are trained beside the policy's and checkpointed; `acts`: its rows feed
    the forward pass, so a rollout reads them for its last values too, and an acting copy of the learner copies it."""

    key = ""
    loss_name = ""
    learns = True
    acts = False

    def width(self) -> int:
        """Entries of the row it reads per decision (int8)."""
        raise NotImplementedError

    def rows(self, league, fraction: float, rng: np.random.Generator) -> np.ndarray:
        """Its rows for the learner's current decisions; `fraction`: of the run's budget spent."""
        raise NotImplementedError

    def extra(self, rows: torch.Tensor) -> torch.Tensor | None:
        """A term of the policy's first hidden layer, or None."""
        return None

    def values(self, rows: torch.Tensor, masks: torch.Tensor) -> torch.Tensor | None:
        """Values in place of the policy network's, or None."""
        return None

    def loss(self, features, logits, masks, rows, fraction: float | None) -> torch.Tensor | None:
        """Its weighted loss from the policy trunk's `features` and `logits`, or None; `fraction` is None while the
        learner imitates a baseline."""
        return None

    def scalars(self, fraction: float) -> dict[str, float]:
        """What it logs about its schedule, by name."""
        return {}


class SeerCritic(Aid, PolicyNetwork):
    """A privileged critic: a network of the policy's widths that reads every hand (`seer` rows); its values stand
    in for the policy's, lowering the variance of the advantages. Its policy head goes unused."""

    key = "critic"
    acts = True

    def __init__(self, players: int, hidden: tuple[int, ...]):
        super().__init__("seer", players, hidden)

    def width(self) -> int:
        return self.input_size

    def rows(self, league, fraction, rng):
        return league.seer_rows()

    def values(self, rows, masks):
        return self(rows, masks)[1]


class HandHead(Aid):
    """Every other seat's hand (copies per kind) read from the policy trunk's features, so that the trunk learns what
    the observation says about the hidden cards; its squared error, times `weight`, joins the loss."""

    key = "hand_head"
    loss_name = "hand_loss"

    def __init__(self, width: int, players: int, weight: float):
        super().__init__()
        self.linear = torch.nn.Linear(width, (players - 1) * C.NUM_KINDS)
        self.weight = weight

    def width(self) -> int:
        return self.linear.out_features

    def rows(self, league, fraction, rng):
        return league.hand_labels()

    def loss(self, features, logits, masks, rows, fraction):
        return self.weight * torch.nn.functional.mse_loss(self.linear(features), rows.float())


class OracleInput(Aid):
    """The other seats' hands, each entry kept with a probability falling linearly from 1 to 0 over the fraction
    `until` of the run, as a term of the policy's first hidden layer; then the policy reads its observation alone."""

    key = "oracle"
    acts = True

    def __init__(self, width: int, players: int, until: float):
        super().__init__()
        self.linear = torch.nn.Linear((players - 1) * C.NUM_KINDS, width, bias=False)
        self.until = until

    def width(self) -> int:
        return self.linear.in_features

    def keep(self, fraction: float) -> float:
        """The probability that an entry is kept, `fraction` into the run."""
        return max(0.0, 1.0 - fraction / self.until)

    def rows(self, league, fraction, rng):
        return self.drop(league.hand_labels(), self.keep(fraction), rng)

    def extra(self, rows):
        return self.linear(rows.float() * 0.5)

    def scalars(self, fraction):
        return {"oracle_keep": self.keep(fraction)}

    @staticmethod
    def drop(hands: np.ndarray, keep: float, rng: np.random.Generator) -> np.ndarray:
        """`hands` with each entry kept with probability `keep`, else 0."""
        return hands * (rng.random(hands.shape) < keep) if keep < 1 else hands


class Teacher(Aid):
    """A policy file's network, frozen, read at the learner's decisions at its own level: `weight` times the KL
    divergence from its action distribution to the learner's joins the loss, the weight falling to 0 over the run.
    It never plays, and it rests while the learner imitates a baseline."""

    key = "teacher"
    loss_name = "teacher_loss"
    learns = False

    def __init__(self, path: str, weight: float):
        super().__init__()
        self.network = PolicyNetwork.from_file_dict(load_policy_file(path), path)
        self.weight = weight

    def width(self) -> int:
        return self.network.input_size

    def rows(self, league, fraction, rng):
        return league.observations(self.network.level)

    def loss(self, features, logits, masks, rows, fraction):
        weight = 0.0 if fraction is None else self.weight * (1.0 - fraction)
        if weight <= 0:
            return None
        with torch.no_grad():
            target = torch.log_softmax(self.network(rows, masks)[0], -1)
        learner = torch.log_softmax(logits, -1)
        return weight * (target.exp() * (target - learner)).masked_fill(~masks, 0.0).sum(-1).mean()


#: the aids that learn, by checkpoint key: a checkpoint holds each one's weights, or None
LEARNING = ("critic", "hand_head", "oracle")


class Aids:
    """The run's aids, in a fixed order: the order their parameters join the optimizer and their losses the sum."""

    def __init__(self, aids: list[Aid] | tuple[Aid, ...] = ()):
        self.aids = list(aids)

    @classmethod
    def build(cls, config: Any, device) -> Aids:
        """The aids `config` asks for, on `device` (built in this order: each draws its initial weights)."""
        return cls([aid.to(device) for aid in (
            SeerCritic(config.players, config.hidden) if config.critic == "seer" else None,
            HandHead(config.hidden[-1], config.players, config.hand_loss) if config.hand_loss else None,
            OracleInput(config.hidden[0], config.players, config.oracle) if config.oracle else None,
            Teacher(config.teacher, config.teacher_weight) if config.teacher else None,
        ) if aid is not None])  # fmt: skip

    def __iter__(self):
        return iter(self.aids)

    def parameters(self) -> list[torch.nn.Parameter]:
        """The parameters they train (a teacher's stay frozen)."""
        return [p for aid in self.aids if aid.learns for p in aid.parameters()]

    def checkpointed(self) -> dict[str, Aid | None]:
        """The learning aids by checkpoint key, None for those this run has not."""
        present = {aid.key: aid for aid in self.aids if aid.learns}
        return {key: present.get(key) for key in LEARNING}

    def widths(self) -> dict[str, int]:
        return {aid.key: aid.width() for aid in self.aids}

    def rows(self, league, fraction: float, rng: np.random.Generator, acting: bool = False) -> dict[str, np.ndarray]:
        """Each aid's rows for the learner's current decisions (`acting`: only those the forward pass reads)."""
        return {aid.key: aid.rows(league, fraction, rng) for aid in self.aids if aid.acts or not acting}

    def forward(self, network, obs, masks, rows: dict[str, torch.Tensor]):
        """The policy network's masked logits, values and trunk features, with the aids' first-layer terms and
        values in place of its own."""
        extra = None
        for aid in self.aids:
            term = aid.extra(rows.get(aid.key))
            if term is not None:
                extra = term if extra is None else extra + term
        logits, values, features = network.forward_with_features(obs, masks, extra)
        for aid in self.aids:
            own = aid.values(rows.get(aid.key), masks)
            values = values if own is None else own
        return logits, values, features

    def losses(self, features, logits, masks, rows, fraction: float | None) -> dict[str, torch.Tensor]:
        """Each aid's loss by name (`hand_loss`, `teacher_loss`), for those that have one now."""
        found = {aid.loss_name: aid.loss(features, logits, masks, rows.get(aid.key), fraction)
                 for aid in self.aids if aid.loss_name}  # fmt: skip
        return {name: loss for name, loss in found.items() if loss is not None}

    def scalars(self, fraction: float) -> dict[str, float]:
        return {name: value for aid in self.aids for name, value in aid.scalars(fraction).items()}

    def train(self, mode: bool = True) -> None:
        """Training or evaluation mode for the aids that learn (a teacher stays in evaluation mode)."""
        for aid in self.aids:
            if aid.learns:
                aid.train(mode)

    def acting_copy(self) -> Aids:
        """Aids for an acting copy of the learner (`--overlap`): copies of those that act, the others shared."""
        return Aids([copy.deepcopy(aid) if aid.acts else aid for aid in self.aids])

    def load_from(self, other: Aids) -> None:
        """The acting copies take the weights of `other`'s aids."""
        for mine, theirs in zip(self.aids, other.aids, strict=True):
            if mine is not theirs:
                mine.load_state_dict(theirs.state_dict())
