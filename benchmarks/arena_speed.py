"""Tournament runner throughput with the baselines, and each baseline's decisions per second.

    python benchmarks/arena_speed.py                      # classic, 4 players, two lineups, batch 2048
    python benchmarks/arena_speed.py --variant unocorns --games 16384 --lineups "counter counter greedy naive"

Games/s: full games (rounds) played by `uno_env.arena.tournament.play_games` (the runner behind `uno-arena`:
observations, agent calls, legality checks, engine steps, game records), seats rotated. Decisions/s: each agent's
`act` alone on batches of `--decision-batch` observations recorded from games of the variant (its own observation
level). Reports medians of `--repeats` timed runs, every measure timed in turn within each repeat (the machine is
shared: every figure sees the same noise), after one untimed warm-up round (numba compiles or loads its cache).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time

import numpy as np
from reference import interleaved_medians

from uno_env import observation as O
from uno_env.agents.base import bind
from uno_env.agents.registry import agent_names, make_agent
from uno_env.arena.tournament import play_games
from uno_env.cli import add_num_envs
from uno_env.rules import make_rules
from uno_env.vector import UnoVectorEnv

AGENTS = ("random", "naive", "greedy", "counter")


def games_rate(lineup: list[str], variant: str, games: int, batch: int, seed: int) -> float:
    agents = {name: make_agent(name, seed=i) for i, name in enumerate(dict.fromkeys(lineup))}
    start = time.perf_counter()
    records = play_games(agents, lineup, variant, games=games, seed=seed * games, batch_size=batch)
    return len(records) / (time.perf_counter() - start)


def recorded_decisions(variant: str, players: int, batch: int, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """(steps, batch, L) `knowledge` observations and (steps, batch, 77) masks of the deciding seats of games
    played by greedy and counter mixed with random actions (every phase shows up)."""
    env = UnoVectorEnv(variant, players, batch, learner_seats="all", observation="knowledge")
    drivers = [make_agent("greedy", 0), make_agent("counter", 1), make_agent("random", 2)]
    for agent in drivers:
        bind(agent, env.spec, env.rules)
    rng = np.random.default_rng(0)
    obs, masks = env.reset(seed=0)
    all_obs, all_masks = [], []
    for _ in range(steps):
        all_obs.append(obs.copy())
        all_masks.append(masks.copy())
        choices = [agent.act(obs, masks) for agent in drivers]
        obs, masks, *_ = env.step(np.choose(rng.integers(0, len(choices), batch), choices))
    return np.stack(all_obs), np.stack(all_masks)


def decisions_rate(name: str, spec, rules, obs: np.ndarray, masks: np.ndarray, seed: int) -> float:
    agent = make_agent(name, seed)
    bind(agent, spec, rules)
    start = time.perf_counter()
    for o, m in zip(obs, masks, strict=True):
        agent.act(o, m)
    return obs.shape[0] * obs.shape[1] / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument(
        "--lineups", nargs="+", default=["naive greedy counter greedy", "random naive greedy counter"],
        help="lineups to time, each one quoted string of agent names, one per seat",
    )  # fmt: skip
    parser.add_argument("--games", type=int, default=8192, help="games per timed run of a lineup")
    add_num_envs(parser, 2048, "games played at a time", aliases=("--batch-size",))
    parser.add_argument("--decision-batch", type=int, default=512, help="observations per `act` call")
    parser.add_argument("--decision-steps", type=int, default=100, help="recorded `act` calls per agent")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    lineups = [text.split() for text in args.lineups]
    for lineup in lineups:
        unknown = sorted(set(lineup) - set(agent_names()))
        if unknown or len(lineup) != args.players:
            parser.error(
                f"a lineup names {args.players} agents among {', '.join(agent_names())}; got {' '.join(lineup)!r}"
            )

    obs, masks = recorded_decisions(args.variant, args.players, args.decision_batch, args.decision_steps)
    rules = make_rules(args.variant)
    measures = {}
    for lineup in lineups:
        measures[" ".join(lineup)] = lambda seed, lineup=lineup: games_rate(
            lineup, args.variant, args.games, args.num_envs, seed
        )
    for name in AGENTS:
        spec = O.ObservationSpec(make_agent(name).observation, args.players)
        own = np.ascontiguousarray(obs[..., : spec.size])  # the agent's own level: a prefix of `knowledge`
        measures[name] = lambda seed, name=name, spec=spec, own=own: decisions_rate(name, spec, rules, own, masks, seed)
    rates = interleaved_medians(measures, args.repeats)

    print(f"command: python benchmarks/arena_speed.py {shlex.join(sys.argv[1:])}".rstrip())
    print(f"{args.variant}, {args.players} players, medians of {args.repeats} runs")
    for lineup in lineups:
        label = " ".join(lineup)
        print(f"  runner, {label:<32} {rates[label]:>12,.0f} games/s  (batch {args.num_envs})")
    for name in AGENTS:
        print(f"  agent {name:<34} {rates[name]:>12,.0f} decisions/s  (batch {args.decision_batch})")


if __name__ == "__main__":
    main()
