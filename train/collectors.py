"""Collection: the games a learner plays to fill its rollouts, in this process or across worker processes.

`Collector` plays the league's games in this process: `rollout_steps` decisions of every game, the learner's seat
acted by the network (or by the imitated baseline), with the aids' rows beside them. `ProcessCollectors`
(`--collectors N`) splits the games into N shards, each played by a `Collector` of its own in a worker process on a
core of its own, writing its columns of rollouts in shared memory; the acting weights reach the workers through
shared memory too, and the league's snapshots when they change. The learner reads the whole rollout when the last
shard is done, and with `--overlap` updates on it while the workers fill the next.

A shard is a league of its own (`shard_collector`): its games, its opponents and its random streams are seeded by
the run's seed and the shard's number, so a run with N collectors is reproducible for that N (not equal to a run
with another N: the games are dealt to other leagues).
"""

from __future__ import annotations

import copy
import dataclasses
import time
import traceback
from typing import Any

import numpy as np

from uno_env.agents.registry import make_agent
from uno_env.train.aids import Aids
from uno_env.train.batch import Rollout
from uno_env.train.config import Config
from uno_env.train.league import League

try:  # the train extra (see uno_env.train.native_ppo)
    import torch
    import torch.multiprocessing as multiprocessing

    from uno_env.agents.policy import PolicyNetwork, sample_actions
except ModuleNotFoundError:
    pass

#: the imitated baseline's seed, counted from the run's (a fixed offset: runs from before it was named replay)
IMITATED_SEED_OFFSET = 77
#: a shard's seeds, counted from the run's: shard k plays with seed + k * SHARD_SEED_STRIDE (shard 0 with the run's)
SHARD_SEED_STRIDE = 1_000_003
#: seconds a worker may take to start (import, compile or load its kernels, deal its games) before the run stops
WORKER_START_SECONDS = 600


class Collector:
    """Plays the league's games and fills rollouts: `rollout_steps` decisions of every game, the learner's seat acted
    by the network it is given (or by the imitated baseline), with the aids' rows beside them. It keeps the games'
    current observations between rollouts, so that rollouts follow on, and can run in a thread of its own
    (`--overlap`): the compiled engine and torch release the GIL."""

    def __init__(self, config: Config, league: League, aids: Aids, imitated: Any, device, rng, seed: int):
        self.config, self.league, self.aids, self.imitated, self.device, self.rng = (
            config, league, aids, imitated, device, rng)  # fmt: skip
        self.obs_np, self.masks_np = league.reset(seed=seed)
        self.episode_wins, self.episode_count = 0, 0

    def new_rollout(self, network: PolicyNetwork) -> Rollout:
        """Empty rollout buffers on the training device."""
        return Rollout.empty(self.config.rollout_steps, self.config.num_envs, network.input_size,
                             self.masks_np.shape[1], self.aids.widths(), self.device,
                             imitated=bool(self.config.imitate_weight))  # fmt: skip

    def tensor(self, array, dtype=None) -> torch.Tensor:
        """A host array, or a tensor already on the GPU (`--engine cuda`), as a tensor on the training device."""
        return (array if torch.is_tensor(array) else torch.from_numpy(array)).to(self.device, dtype)

    def rows(self, aids: Aids, fraction: float, acting: bool = False) -> dict[str, torch.Tensor]:
        return {key: self.tensor(row) for key, row in aids.rows(self.league, fraction, self.rng, acting).items()}

    def imitated_actions(self) -> torch.Tensor:
        """The imitated baseline's actions in the learner's current states (read at its own observation level)."""
        level = self.imitated.observation
        seen = self.obs_np if level == self.config.observation else self.league.observations(level)
        if torch.is_tensor(seen):  # --engine cuda: the baseline decides on the host (its rows copied down)
            seen, masks = seen.cpu().numpy(), self.masks_np.cpu().numpy()
            return self.tensor(self.imitated.act(seen, masks))
        return self.tensor(self.imitated.act(seen, self.masks_np))

    def collect(self, rollout: Rollout, network, aids: Aids, imitating: bool, fraction: float,
                kickstart: bool = False) -> dict[str, Any]:  # fmt: skip
        """Fill `rollout` acted by `network` with `aids` (the learner's, or acting copies of them), `fraction` into the
        run, with the imitated baseline's actions beside the network's if `kickstart`; returns how it was collected
        (seconds, imitating, fraction, kickstart)."""
        started = time.perf_counter()
        league = self.league
        network.eval()
        aids.train(False)
        for t in range(self.config.rollout_steps):
            obs = self.tensor(league.network_input(self.obs_np, self.masks_np))
            masks = self.tensor(self.masks_np).bool()
            rows = self.rows(aids, fraction)
            with torch.inference_mode():
                logits, values, _ = aids.forward(network, obs, masks, rows)
                actions = sample_actions(logits)
                if imitating:  # the imitated baseline plays the learner's seat; the network learns its actions
                    actions = self.imitated_actions()
                elif kickstart:  # the network plays; the baseline's choice is kept for --imitate-weight's loss
                    rollout.imitated[t] = self.imitated_actions()
                logp = torch.log_softmax(logits, -1).gather(1, actions[:, None]).squeeze(1)
            rollout.obs[t], rollout.masks[t] = obs, masks
            for key, row in rows.items():
                rollout.aids[key][t] = row
            rollout.actions[t], rollout.logp[t], rollout.values[t] = actions, logp, values
            self.obs_np, self.masks_np, rewards, dones, winners = league.step(actions if league.on_device else
                                                                              actions.cpu().numpy())  # fmt: skip
            rollout.rewards[t] = self.tensor(rewards, torch.float32)
            rollout.dones[t] = self.tensor(dones, torch.float32)
            ended = winners > -2
            self.episode_count += ended.sum()  # summed where they are: a GPU's are read once, at the next update
            self.episode_wins += (winners[ended] == 0).sum()
        with torch.inference_mode():  # the value after the last decision, for GAE's bootstrap
            rows = self.rows(aids, fraction, acting=True)
            obs = self.tensor(league.network_input(self.obs_np, self.masks_np))
            _, rollout.last_values[:], _ = aids.forward(network, obs, self.tensor(self.masks_np).bool(), rows)
        return {"seconds": time.perf_counter() - started, "imitating": imitating, "fraction": fraction,
                "kickstart": kickstart and not imitating}  # fmt: skip

    def take_episodes(self) -> tuple[int, int]:
        """The learner's wins and the games ended since the last call."""
        counts = int(self.episode_wins), int(self.episode_count)
        self.episode_wins, self.episode_count = 0, 0
        return counts

    def league_win_rate(self) -> float | None:
        """The learner's win rate over the games ended since the last call (None if none ended)."""
        wins, count = self.take_episodes()
        return wins / count if count else None

    def start(self) -> None:
        """Nothing to start in this process (the interface of `ProcessCollectors`)."""

    def close(self) -> None:
        """Nothing to release in this process."""


def shard_bounds(games: int, shards: int) -> list[tuple[int, int]]:
    """The columns [start, stop) of each of `shards` equal shards of `games` games."""
    size = games // shards
    return [(k * size, (k + 1) * size) for k in range(shards)]


def shard_collector(config: Config, shard: int, games: int, network: PolicyNetwork, aids: Aids,
                    reset_seed: int) -> Collector:  # fmt: skip
    """Shard `shard`'s collector on the CPU: a league of `games` games seeded by the run's seed and the shard, its
    own imitated baseline, its games dealt from `reset_seed` plus the shard's stride."""
    offset = shard * SHARD_SEED_STRIDE
    shard_config = dataclasses.replace(config, num_envs=games, seed=config.seed + offset)
    rng = np.random.default_rng([config.seed, shard])
    league = League(shard_config, network, rng, "cpu")
    imitated = (league.bind(make_agent(config.imitate, seed=shard_config.seed + IMITATED_SEED_OFFSET))
                if config.imitate else None)  # fmt: skip
    return Collector(shard_config, league, aids, imitated, torch.device("cpu"), rng, reset_seed + offset)


def shared_actor(network: PolicyNetwork, aids: Aids) -> tuple[PolicyNetwork, Aids]:
    """CPU copies of the network and of every aid in shared memory: the weights the workers act with."""
    return copy.deepcopy(network).cpu().share_memory(), Aids([copy.deepcopy(aid).cpu().share_memory() for aid in aids])


def load_actor(actor: tuple[PolicyNetwork, Aids], network: PolicyNetwork, aids: Aids) -> None:
    """The shared copies take the weights of `network` and `aids` (in place: the workers see them)."""
    actor[0].load_state_dict(network.state_dict())
    actor[1].load_from(aids)


def worker(config: Config, shard: int, bounds: tuple[int, int], reset_seed: int, actor, rollouts, connection) -> None:
    """A worker process: builds its shard's collector, then fills its columns of the rollout it is told, until told
    None; answers each rollout with (seconds, wins, games ended), or ("error", the traceback)."""
    try:
        torch.set_num_threads(1)  # one core a worker: the shards scale by processes, not threads
        torch.manual_seed(config.seed + shard * SHARD_SEED_STRIDE)
        start, stop = bounds
        collector = shard_collector(config, shard, stop - start, actor[0], actor[1], reset_seed)
        views = [rollout.columns(start, stop) for rollout in rollouts]
        connection.send("ready")
        while (message := connection.recv()) is not None:
            index, imitating, fraction, kickstart, snapshots = message
            if snapshots is not None:
                collector.league.use_snapshots(snapshots)
            collected = collector.collect(views[index], *actor, imitating, fraction, kickstart)
            connection.send((collected["seconds"], *collector.take_episodes()))
    except Exception:  # noqa: BLE001 - the learner raises it with the worker's traceback
        connection.send(("error", traceback.format_exc()))


class ProcessCollectors:
    """`--collectors N`: the games split into N shards, each collected by a worker process into its columns of
    rollouts in shared memory (see the module docstring). The same interface as `Collector`; `close` stops the
    workers."""

    def __init__(self, config: Config, league: League, network: PolicyNetwork, aids: Aids, seed: int):
        self.config, self.league, self.seed = config, league, seed
        self.actor = shared_actor(network, aids)
        self.widths, self.mask_width = aids.widths(), league.groups[0][1].masks.shape[1]
        self.rollouts: list[Rollout] = []  # in shared memory, on the CPU
        self.connections: list = []
        self.processes: list = []
        self.snapshots_sent = -1  # the league's snapshot count the workers last took
        self.episode_wins, self.episode_count = 0, 0

    def new_rollout(self, network: PolicyNetwork) -> Rollout:
        """Empty rollout buffers in shared memory (before the first rollout: the workers map them when they start)."""
        if self.processes:
            raise RuntimeError("the collectors' rollouts are made before the first rollout")
        rollout = Rollout.empty(self.config.rollout_steps, self.config.num_envs, network.input_size, self.mask_width,
                                self.widths, "cpu", imitated=bool(self.config.imitate_weight))  # fmt: skip
        rollout.apply(torch.Tensor.share_memory_)  # in place: the workers map these buffers
        self.rollouts.append(rollout)
        return rollout

    def start(self) -> None:
        """Start a worker per shard and wait until each has dealt its games (a RuntimeError if one cannot)."""
        if self.processes:
            return
        context = multiprocessing.get_context("spawn")  # no fork: numba's and torch's threads do not survive one
        for shard, bounds in enumerate(shard_bounds(self.config.num_envs, self.config.collectors)):
            mine, theirs = context.Pipe()
            process = context.Process(
                target=worker,
                name=f"collector-{shard}",
                daemon=True,
                args=(self.config, shard, bounds, self.seed, self.actor, self.rollouts, theirs),
            )
            process.start()
            theirs.close()
            self.connections.append(mine)
            self.processes.append(process)
        for shard in range(len(self.processes)):
            self.answer(shard, WORKER_START_SECONDS)

    def answer(self, shard: int, timeout: float | None = None):
        """Shard `shard`'s next message; a RuntimeError naming the shard if it failed, died or went silent."""
        connection = self.connections[shard]
        if timeout is not None and not connection.poll(timeout):
            self.close()
            raise RuntimeError(f"collector {shard} did not start within {timeout} s")
        try:
            message = connection.recv()
        except (EOFError, ConnectionResetError):
            process = self.processes[shard]
            process.join(timeout=5)
            self.close()
            raise RuntimeError(f"collector {shard} stopped (exit code {process.exitcode})") from None
        if isinstance(message, tuple) and message[0] == "error":
            self.close()
            raise RuntimeError(f"collector {shard} failed:\n{message[1]}")
        return message

    def collect(self, rollout: Rollout, network, aids: Aids, imitating: bool, fraction: float,
                kickstart: bool = False) -> dict[str, Any]:  # fmt: skip
        """`Collector.collect` across the workers: they act with `network` and `aids`'s weights as they are now."""
        self.start()
        started = time.perf_counter()
        load_actor(self.actor, network, aids)
        snapshots = None
        if self.league.snapshot_count != self.snapshots_sent:  # the pool changed: each worker redraws its `self`s
            snapshots, self.snapshots_sent = self.league.snapshots, self.league.snapshot_count
        index = next(i for i, candidate in enumerate(self.rollouts) if candidate is rollout)
        for shard, connection in enumerate(self.connections):
            try:
                connection.send((index, imitating, fraction, kickstart, snapshots))
            except (BrokenPipeError, ConnectionResetError):
                self.answer(shard)  # raises, naming the shard and how it ended
        for shard in range(len(self.connections)):
            _, wins, count = self.answer(shard)
            self.episode_wins += wins
            self.episode_count += count
        return {"seconds": time.perf_counter() - started, "imitating": imitating, "fraction": fraction,
                "kickstart": kickstart and not imitating}  # fmt: skip

    take_episodes = Collector.take_episodes
    league_win_rate = Collector.league_win_rate

    def close(self) -> None:
        """Tell the workers to stop, and wait for them (briefly: they are daemons)."""
        for connection in self.connections:
            try:
                connection.send(None)
            except (BrokenPipeError, OSError):
                pass
        for process in self.processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
        self.connections, self.processes = [], []
