"""A network agent against a baseline on the vector env, every game of a batch at once: the engine on the CPU cores
(`UnoVectorEnv`) or every game on the GPU (`UnoVectorEnv(..., device="cuda")`), with the same results for the same
seeds.

```python
from uno_env.arena.device import deal_wins, win_rate

wins = deal_wins("ppo:classic", "counter", "classic", 2, deals=100_000, seed=30_000, engine="cuda")
rate, low, high = win_rate(wins, 2)         # wins per seat-game, with its 95% interval by deal
```

The agent is a policy network (`ppo:VARIANT`, `best:VARIANT`, `ppo:FILE.pt`: a `PolicyAgent`, deciding by its most
likely legal action), the baseline an agent with a device rule (`random`, `naive`, `greedy`, `counter`) in every
other seat. Every deal (seed, seed + 1, ...) is played once with the agent in each seat, as the arena's rotations
(`uno_env.arena.tournament.play_games`) play it: the same deals, one environment a seat. The baseline decides by its
device rule on both engines, its ties and random choices drawn from each game's own stream (`RulePlayer` on the
CPU), so the two engines play the same games and give the same wins, deal for deal.

On the GPU the network decides on the device (`PolicyAgent.act_on_device`), the actions are not checked (they come
from masked logits) and each game's first episode is counted there: nothing crosses to the host during play but one
flag every `CHECK_EVERY` steps (have all games ended once?) and the wins at the end.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from numba import njit

from uno_env import actions as A
from uno_env import observation as O
from uno_env import validate as V
from uno_env.cards import NUM_COLORS
from uno_env.game import DEFAULT_MAX_STEPS
from uno_env.rules import make_rules
from uno_env.seats import DEVICE_WORK_SIZE, DeviceRule
from uno_env.vector import UnoVectorEnv

from .ratings import wins_interval

#: the engines: the compiled engine on the CPU cores, or every game on the GPU (as `uno-train --engine`)
ENGINES = ("cpu", "cuda")
#: games a batch by default, per engine (a batch holds each game's state: about 8 KB a game)
BATCH_SIZE = {"cpu": 4096, "cuda": 131_072}
#: learner steps between two looks at whether every game of a batch has ended once
CHECK_EVERY = 16
#: what the agent may be, and the baseline, for the one-line refusals
AGENTS_ALLOWED = "a policy network: ppo:VARIANT, best:VARIANT or ppo:FILE.pt"
BASELINES_ALLOWED = "an agent with a device rule: random, naive, greedy or counter"


def deal_wins(agent: Any, baseline: Any, variant: str = "classic", num_players: int = 2, *, deals: int = 1000,
              seed: int = 0, engine: str = "cpu", batch_size: int | None = None, episode: str = "round",
              max_steps: int = DEFAULT_MAX_STEPS, **rule_options: Any) -> np.ndarray:  # fmt: skip
    """The agent's wins in each of `deals` deals (seeds seed, seed + 1, ...), over its `num_players` seats (an int
    array of shape (deals,), each from 0 to num_players). `agent` and `baseline` are names (`uno-arena`'s) or agents;
    the deals are played `batch_size` at a time (default `BATCH_SIZE[engine]`). A refused agent, baseline or engine
    raises ValueError, in one line, before any game is played."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    deals = V.positive_int(deals, "deals")
    batch_size = V.positive_int(BATCH_SIZE[engine] if batch_size is None else batch_size, "batch_size")
    seed = V.seed(seed, "seed")
    rules = make_rules(variant, **rule_options)
    rules.check_players(num_players)
    network = network_agent(agent, num_players, rules, engine)
    rule_agent = baseline_agent(baseline, num_players, rules)
    options = dict(episode=episode, max_steps=max_steps, **rule_options)
    wins = np.zeros(deals, np.int64)
    for start in range(0, deals, batch_size):
        size = min(batch_size, deals - start)
        for seat in range(num_players):
            wins[start : start + size] += first_wins(network, rule_agent, variant, num_players, size, seat,
                                                     seed + start, engine, options)  # fmt: skip
    return wins


def win_rate(wins: np.ndarray, num_players: int) -> tuple[float, float, float]:
    """(win rate, low, high): the agent's wins per seat-game over the deals of `deal_wins`, with the 95% interval
    that takes the deal as its unit (`uno_env.arena.ratings.deal_interval`'s)."""
    wins = np.asarray(wins, np.float64)
    low, high = wins_interval(wins, np.full(wins.shape, float(num_players)))
    return float(wins.sum() / (num_players * len(wins))), float(low), float(high)


def network_agent(agent: Any, num_players: int, rules: Any, engine: str) -> Any:
    """The agent as a bound `PolicyAgent` for this game (a name is made by the agent catalogue; a shipped policy
    seats its file for the player count), on the GPU for the GPU engine when torch has CUDA."""
    from uno_env.agents.registry import make_agent

    name = agent if isinstance(agent, str) else getattr(agent, "name", type(agent).__name__)
    made = make_agent(agent) if isinstance(agent, str) else agent
    if hasattr(made, "for_players"):  # a shipped policy: its file for this player count
        made = made.for_players(num_players)
    if not hasattr(made, "act_on_device"):
        raise ValueError(f"the agent must be {AGENTS_ALLOWED}; got {name!r}")
    if engine == "cuda" and getattr(made, "adviser", None) is not None:
        raise ValueError(f"the agent {name!r} reads an adviser's hints, computed on the CPU: use engine='cpu'")
    if engine == "cuda" and _torch_has_cuda() and made.device.type != "cuda":
        from uno_env.agents.policy import PolicyAgent

        made = PolicyAgent(copy.deepcopy(made.network), sample=made.sample, name=made.name, device="cuda")
    made.bind(O.ObservationSpec(made.observation, num_players), rules)
    return made


def baseline_agent(baseline: Any, num_players: int, rules: Any) -> Any:
    """The baseline as an agent bound to this game, with a device rule; refused in one line otherwise."""
    from uno_env.agents.registry import make_agent

    name = baseline if isinstance(baseline, str) else getattr(baseline, "name", type(baseline).__name__)
    made = make_agent(baseline, seed=0) if isinstance(baseline, str) else baseline
    if not hasattr(made, "device_rule"):
        raise ValueError(f"the baseline must be {BASELINES_ALLOWED}; got {name!r}")
    if hasattr(made, "bind"):
        made.bind(O.ObservationSpec(made.observation, num_players), rules)
    return made


def first_wins(network: Any, baseline: Any, variant: str, num_players: int, size: int, seat: int, seed: int,
               engine: str, options: dict[str, Any]) -> np.ndarray:  # fmt: skip
    """1 where the network, in `seat`, won the first episode of game g (seed + g), else 0: `size` games played
    until each has ended once (a game that ends goes on with its next episode, not counted)."""
    seeds = V.seeds(seed, size, "seed")
    on_device = engine == "cuda"
    opponents = baseline if on_device else RulePlayer(baseline.device_rule(), num_players, seeds)
    env = UnoVectorEnv(variant, num_players, size, learner_seats=[seat], opponents=opponents,
                       observation=network.observation, device=engine, **options,
                       **({"check_actions": False} if on_device else {}))  # fmt: skip
    obs, masks = env.reset(seed)
    counted, won = _zeros(env, size), _zeros(env, size)
    steps = 0
    while True:
        actions = _network_actions(network, obs, masks, on_device)
        obs, masks, _, _, _, info = env.step(actions)
        ended = info["_episode"]
        won |= ended & ~counted & (info["episode"]["winner"] == seat)
        counted |= ended
        steps += 1
        if steps % CHECK_EVERY == 0 and bool(counted.all()):
            break
    return _host(won).astype(np.int64)


def _network_actions(network: Any, obs: Any, masks: Any, on_device: bool) -> Any:
    """The network's actions for the learners' rows: forward passes on the rows where they are."""
    if not on_device:
        return network.act(obs, masks)
    if not hasattr(obs, "__torch_function__"):  # numba's CUDA simulator: its device arrays through the host
        import torch

        obs, masks = torch.from_numpy(obs.copy_to_host()), torch.from_numpy(masks.copy_to_host())
    return network.act_on_device(obs, masks.bool()).long()


def _zeros(env: Any, size: int) -> Any:
    """A bool array of `size` falses beside the env's episode flags (a tensor on the GPU, else numpy's)."""
    flags = getattr(env, "episodes", None)
    if flags is not None and hasattr(flags, "__torch_function__"):
        import torch

        return torch.zeros(size, dtype=torch.bool, device=flags.device)
    return np.zeros(size, np.bool_)


def _host(array: Any) -> np.ndarray:
    return array.cpu().numpy() if hasattr(array, "__torch_function__") else np.asarray(array)


def _torch_has_cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


class RulePlayer:
    """A baseline's device rule (`uno_env.seats.DeviceRule`) as an opponent of the CPU's `UnoVectorEnv`: each
    game's choices drawn from that game's own stream, seeded from its seed as the device env seeds it
    (`vector_cuda.opponent_streams`), so that it plays what the same rule plays on the GPU. It reads the games it
    decides in (`act_in_games`); the streams follow the games of one `reset` of `seeds`."""

    def __init__(self, rule: DeviceRule, num_players: int, seeds: np.ndarray):
        from uno_env.vector_cuda import opponent_streams

        self.rule, self.num_players = rule, np.int64(num_players)
        self.observation = rule.observation
        self.offsets = O.ObservationSpec(rule.observation, num_players).offsets
        self.streams = opponent_streams(np.asarray(seeds, np.uint64))
        self.points, self.counts = np.asarray(rule.points, np.float64), np.asarray(rule.counts, np.float64)
        self._decide = rows_decider(rule.decide)

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        raise RuntimeError("a RulePlayer decides only in the games it knows: UnoVectorEnv calls act_in_games")

    def act_in_games(self, state, config, games, observations, action_masks) -> np.ndarray:
        actions = np.empty(games.shape[0], np.int64)
        self._decide(observations, action_masks, games, self.streams, self.offsets, self.num_players, self.points,
                     self.counts, self.rule.params, actions)  # fmt: skip
        return actions


_DECIDERS: dict[Any, Any] = {}


def rows_decider(decide: Any) -> Any:
    """A compiled loop that calls the rule `decide` for each row, with the stream and the work arrays the device's
    step kernel gives it (compiled once a rule)."""
    if decide not in _DECIDERS:

        @njit(nogil=True)
        def decide_rows(obs, masks, games, streams, off, n, points, counts, params, actions):
            work = np.empty(DEVICE_WORK_SIZE)
            scores = np.empty(A.NUM_ACTIONS)
            hand_colors = np.empty(NUM_COLORS, np.int64)
            for i in range(games.shape[0]):
                g = games[i]
                actions[i] = decide(obs[i], masks[i], streams[g : g + 1], off, n, points, counts, params, work,
                                    scores, hand_colors)  # fmt: skip

        _DECIDERS[decide] = decide_rows
    return _DECIDERS[decide]
