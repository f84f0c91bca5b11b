"""The same algorithm written twice: our IS-MCTS and OpenSpiel's, asked the same decisions at the same budget.

    python benchmarks/ismcts_crosscheck.py --positions 40 --iterations 20

Positions come from games of `counter` against itself (2-player classic), at decisions with more than one legal
action. Our `ismcts` is set as OpenSpiel's ISMCTSBot works: every seat searched (`others="search"`), UCB1 at the
root, no progressive widening, uniformly random rollouts. Each agent answers every position twice, with two
seeds. Prints how often each agrees with itself across seeds (the noise floor of a search at that budget) and
how often the two agree with each other: two faithful implementations agree with each other about as often as
each agrees with itself. Also the milliseconds per decision of each.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from uno_env import GameBatch
from uno_env import observation as O
from uno_env.agents.counter import CounterAgent
from uno_env.agents.ismcts import ISMCTSAgent
from uno_env.agents.openspiel_agent import OpenSpielISMCTSAgent


def positions(count: int, seed: int) -> list[GameBatch]:
    """`count` single-game batches at decisions of counter-vs-counter games with more than one legal action."""
    spec = O.ObservationSpec("knowledge", 2)
    rng = np.random.default_rng(seed)
    found, batch = [], GameBatch("classic", 2, 1)
    counter = CounterAgent(seed)
    counter.bind(spec, batch.rules)
    batch.reset(seed)
    while len(found) < count:
        if batch.done[0]:
            batch.reset(int(rng.integers(2**62)))
        obs, mask = observe(batch, spec)
        if mask[0].sum() > 1 and rng.random() < 0.2:
            found.append(batch.copy())
        batch.step_game(0, int(counter.act(obs, mask)[0]))
    return found


def observe(batch: GameBatch, spec: O.ObservationSpec) -> tuple[np.ndarray, np.ndarray]:
    obs, mask = batch.observe(0, int(batch.seat[0]), spec.level)
    return obs[None], mask[None]


def answers(agent, boards: list[GameBatch]) -> tuple[list[int], float]:
    """The agent's action at every position, and its mean milliseconds per decision."""
    spec = O.ObservationSpec("knowledge", 2)
    agent.bind(spec, boards[0].rules)
    chosen, start = [], time.perf_counter()
    for board in boards:
        obs, mask = observe(board, spec)
        chosen.append(
            int(agent.act_in_games(board.state_array, board.config_array, np.zeros(1, np.int64), obs, mask)[0])
        )
    return chosen, 1000 * (time.perf_counter() - start) / len(boards)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    boards = positions(args.positions, args.seed)
    ours = [ISMCTSAgent(s, iterations=args.iterations, rollout="random", others="search", root="ucb", widening=0)
            for s in (1, 2)]  # fmt: skip
    theirs = [OpenSpielISMCTSAgent(seed=s, iterations=args.iterations) for s in (1, 2)]
    (a1, ms_ours), (a2, _) = answers(ours[0], boards), answers(ours[1], boards)
    (b1, ms_theirs), (b2, _) = answers(theirs[0], boards), answers(theirs[1], boards)

    def agree(x, y):
        return np.mean(np.array(x) == np.array(y))

    cross = np.mean([agree(a1, b1), agree(a1, b2), agree(a2, b1), agree(a2, b2)])
    print(f"{len(boards)} positions, {args.iterations} iterations: ours agrees with itself (two seeds) "
          f"{agree(a1, a2):.0%}, OpenSpiel's with itself {agree(b1, b2):.0%}, ours with OpenSpiel's {cross:.0%} "
          f"(the four pairings); {ms_ours:.1f} ms a decision for ours, {ms_theirs:.0f} ms for OpenSpiel's")  # fmt: skip


if __name__ == "__main__":
    main()
