"""The league a learner trains against, and how it is measured.

`League`: the learner plays one seat of every game; each group of games has one opponent, a baseline (`counter`,
`greedy`, ...), any agent by name, or `self`, a frozen snapshot of the learner drawn from its past (the latest with
probability 1/2, else any) and redrawn at each snapshot. With `paired_deals` each group is `players` sets of games,
the learner in a different seat in each, dealt the same seeds. It steps the groups together and reads the learner's
decisions at any observation level (the engine's hands for the training aids). `evaluate` plays the greedy policy
against each `eval_against` baseline on paired deals through the tournament runner; `log_evaluation` sends the
win rates to TensorBoard, the console and `learning_curve.png` (`learning_curve_figure`, the one drawing of a
learning curve, which the notebooks use too).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from uno_env import cards as C
from uno_env import observation as O
from uno_env.agents.base import bind
from uno_env.agents.registry import make_agent
from uno_env.arena.tournament import win_rate_against
from uno_env.records import write_atomic
from uno_env.train.checkpoint import check_weights
from uno_env.vector import UnoVectorEnv

try:  # the train extra (see uno_env.train.native_ppo)
    import torch

    from uno_env.agents.policy import PolicyAgent, PolicyNetwork, add_hints
except ModuleNotFoundError:
    torch = None


class League:
    """Groups of games, each against one opponent; `self` opponents are frozen snapshots of the learner, acting
    on the learner's device (a GPU's, when it trains on one)."""

    def __init__(self, config: Any, network: PolicyNetwork, rng: np.random.Generator, device: str = "cpu"):
        self.config, self.rng = config, rng
        league = config.league_shares
        names = list(league)
        shares = np.array([league[n] for n in names], float)
        # --paired-deals: each entry's games split into one set per learner seat, dealt the same seeds
        seats = range(config.players) if getattr(config, "paired_deals", False) else [0]
        sizes = np.maximum(1, np.floor(shares / shares.sum() * config.num_envs / len(seats))).astype(int)
        sizes[np.argmax(sizes)] += config.num_envs // len(seats) - sizes.sum()
        self.snapshots: list[dict[str, torch.Tensor]] = []
        self.snapshot_count = 0  # how many times the pool changed (`--collectors` sends it to the shards on a change)
        self.groups: list[tuple[str, UnoVectorEnv, Any]] = []
        self.learner_seats: list[int] = []  # the learner's seat in each group's games
        self.deals: list[int] = []  # each group's league entry: groups of one entry deal the same seeds
        self._seer_rows: np.ndarray | None = None  # the current decisions seen whole, once per step (`seer_rows`)
        # --engine cuda: the games on the GPU, their rows as torch tensors there (host arrays under numba's simulator)
        engine = getattr(config, "engine", "cpu")
        self.engine_options = {"device": "cuda", "check_actions": False} if engine == "cuda" else {}
        self.on_device = engine == "cuda" and torch is not None and torch.cuda.is_available()
        for i, (name, size) in enumerate(zip(names, sizes, strict=True)):
            for seat in seats:
                if name == "self":
                    opponent = PolicyAgent(copy.deepcopy(network), sample=True, seed=config.seed + i, device=device)
                else:
                    opponent = make_agent(name, seed=config.seed + 1000 + i)
                venv = UnoVectorEnv(
                    config.variant, config.players, int(size), learner_seats=[seat], opponents=opponent,
                    observation=config.observation, **self.engine_options, **config.rule_options,
                )  # fmt: skip
                self.groups.append((name, venv, opponent))
                self.learner_seats.append(seat)
                self.deals.append(i)
        if self.engine_options:  # one step kernel for every group's opponents: the GPU compiles it once
            from uno_env.vector_cuda import share_kernel  # only here: it loads numba's CUDA target

            share_kernel([venv for _, venv, _ in self.groups])
        self.adviser = make_agent(config.hint, seed=config.seed + 2000) if config.hint else None
        if self.adviser is not None:
            bind(self.adviser, self.groups[0][1].spec, self.groups[0][1].rules)
        self.add_snapshot(network)

    def network_input(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The learner's observations as its network reads them: with the adviser's hints, if it has one."""
        return obs if self.adviser is None else add_hints(obs, masks, self.adviser)

    def bind(self, agent: Any) -> Any:
        """`agent` bound to these games at its own observation level (an imitated baseline), returned."""
        bind(agent, O.ObservationSpec(agent.observation, self.config.players), self.groups[0][1].rules)
        return agent

    def restore(self, snapshots: list[dict[str, torch.Tensor]], network: PolicyNetwork) -> None:
        """Take a checkpoint's snapshots (each checked against `network`) and add the learner's weights to them."""
        for snapshot in snapshots:
            check_weights(network, snapshot, "a league snapshot")
        self.snapshots = snapshots
        self.add_snapshot(network)

    def add_snapshot(self, network: PolicyNetwork) -> None:
        """Keep the learner's weights in the pool and redraw every `self` opponent from it."""
        self.snapshots.append({k: v.detach().cpu().clone() for k, v in network.state_dict().items()})
        self.use_snapshots(self.snapshots[-self.config.league_size :])

    def use_snapshots(self, snapshots: list[dict[str, torch.Tensor]]) -> None:
        """Take `snapshots` as the pool (a collector's shard takes the learner's) and redraw every `self` opponent."""
        self.snapshots = snapshots
        self.snapshot_count += 1
        for name, _, opponent in self.groups:
            if name == "self":
                latest = self.rng.random() < 0.5
                pick = len(self.snapshots) - 1 if latest else int(self.rng.integers(len(self.snapshots)))
                opponent.network.load_state_dict(self.snapshots[pick])

    def reset(self, seed: int) -> tuple[np.ndarray, np.ndarray]:
        self._seer_rows = None
        parts = [self.rows(venv.reset(seed + 10**7 * i)) for i, (_, venv, _) in zip(self.deals, self.groups,
                                                                                      strict=True)]  # fmt: skip
        return self.concatenate([p[0] for p in parts]), self.concatenate([p[1] for p in parts])

    def rows(self, arrays: tuple) -> tuple:
        """A group's outputs as the league hands them on: as they are, or, from the device env without torch's CUDA
        (numba's simulator), on the host."""
        if not self.engine_options or self.on_device:
            return arrays
        from uno_env.vector_cuda import host  # only here: it loads numba's CUDA target

        return tuple(host(a) if not isinstance(a, dict) else a for a in arrays)

    def concatenate(self, parts: list):
        return torch.cat(parts) if self.on_device else np.concatenate(parts)

    def hand_labels(self) -> np.ndarray:
        """The other seats' hands at the learner's decisions, (B, (N - 1) * kinds) int8 in relative order, for the
        training aids (from the engine, training only)."""
        where, _ = O.observation_layout("seer", self.config.players)["hands"]
        return self.seer_rows()[:, where][:, C.NUM_KINDS :]

    def observations(self, level: str) -> np.ndarray:
        """The learner's current decisions at another agent's level, for a teacher or an imitated baseline (`seer`:
        the rows encoded once per step)."""
        if level == "seer":
            return self.seer_rows()
        return np.concatenate([venv.observe(level) for _, venv, _ in self.groups])

    def seer_rows(self) -> np.ndarray:
        """The learner's current decisions at the `seer` level (every hand), encoded once per step for the aids."""
        if self._seer_rows is None:
            self._seer_rows = np.concatenate([venv.observe("seer") for _, venv, _ in self.groups])
        return self._seer_rows

    def step(self, actions: np.ndarray):
        """Step every group; returns obs, masks, learner rewards, done, winners of ended games (seats counted from
        the learner's: 0 is a win; -1: none, -2: not ended)."""
        self._seer_rows = None
        obs, masks, rewards, done, won = [], [], [], [], []
        at = 0
        where = torch.where if self.on_device else np.where
        for seat, (_, venv, _) in zip(self.learner_seats, self.groups, strict=True):
            o, m, r, terminated, truncated, info = self.rows(venv.step(actions[at : at + venv.num_envs]))
            at += venv.num_envs
            obs.append(o)
            masks.append(m)
            rewards.append(r[:, seat])
            ended = terminated | truncated
            done.append(ended)
            winner = self.rows((info["episode"]["winner"],))[0]  # counted from the learner's seat: 0 is the learner
            won.append(where(ended, where(winner >= 0, (winner - seat) % venv.num_players, winner), -2))
        return tuple(self.concatenate(x) for x in (obs, masks, rewards, done, won))


def evaluate(network: PolicyNetwork, config: Any, seed: int) -> dict[str, tuple[float, float, float]]:
    """Win rate and 95% interval of the greedy policy against each `eval_against` baseline (paired games)."""
    learner = PolicyAgent(copy.deepcopy(network).cpu().eval(), name="learner")
    return {
        name: win_rate_against(learner, name, config.variant, config.players, games=config.eval_games, seed=seed,
                               baseline_seed=seed, **config.rule_options)  # fmt: skip
        for name in config.eval_against
    }


def learning_curve_figure(
    history: Sequence[Sequence[Any]],
    league: tuple[Sequence[float], Sequence[float]] | None = None,
    *,
    variant: str,
    players: int,
    eval_games: int,
    seed: str,
    learner: str = "Native PPO",
):
    """A learning curve: left, the evaluations (`history` rows of a checkpoint: steps, baseline, win rate, low, high),
    one line per baseline with its 95% interval, and the fair share (1/players); right, with `league` (steps,
    values), the learner's win rate in its training games. `seed` says which seeds the evaluations used."""
    from matplotlib.figure import Figure  # no pyplot: no backend switch (inline plots in notebooks survive)

    columns = 2 if league is not None else 1
    figure = Figure(figsize=(7 * columns, 4.2), layout="constrained")
    axes = figure.subplots(1, columns, squeeze=False)[0]
    for name in dict.fromkeys(row[1] for row in history):
        steps, rate, low, high = np.array([[row[0], *row[2:5]] for row in history if row[1] == name], float).T
        axes[0].plot(steps, rate, marker="o", label=f"vs {name}")
        axes[0].fill_between(steps, low, high, alpha=0.25)
    axes[0].axhline(1 / players, color="grey", ls=":", lw=1, label="fair share")
    axes[0].set(xlabel="learner decisions", ylabel="win rate (95% Wilson)",
                title=f"Evaluations: {eval_games:,} games each, {seed}")  # fmt: skip
    axes[0].legend()
    if league is not None:
        axes[1].plot(league[0], league[1], lw=1)
        axes[1].set(xlabel="learner decisions", ylabel="win rate",
                    title="Training games against the league (TensorBoard)")  # fmt: skip
    for ax in axes:
        ax.grid(alpha=0.3)
    figure.suptitle(f"{learner} learning UNO {variant}, {players} players")
    return figure


def log_evaluation(network, config: Any, writer, steps: int, update: int, bar, history: list) -> dict:
    """Evaluate (deal seeds from 10^6 + update), add the results to `history`, draw out/learning_curve.png, and log
    them to TensorBoard and the console (`bar`'s, when there is one)."""
    results = evaluate(network, config, seed=10**6 + update)
    history += [(int(steps), str(name), *map(float, values)) for name, values in results.items()]  # plain values
    figure = learning_curve_figure(history, variant=config.variant, players=config.players,
                                   eval_games=config.eval_games, seed="seed 10^6 + update")  # fmt: skip
    write_atomic(Path(config.out) / "learning_curve.png",
                 lambda temporary: figure.savefig(temporary, dpi=100, format="png"))  # fmt: skip
    for name, (rate, low, high) in results.items():
        writer.add_scalar(f"eval/win_rate_vs_{name}", rate, steps)
        writer.add_scalar(f"eval/win_rate_vs_{name}_low", low, steps)
        writer.add_scalar(f"eval/win_rate_vs_{name}_high", high, steps)
    line = ", ".join(f"vs {n} {r:.3f} [{lo:.3f}, {hi:.3f}]" for n, (r, lo, hi) in results.items())
    (bar.write if bar is not None else print)(f"update {update}, {steps} steps: {line}")
    return results
