"""How much of the hidden hands play reveals: the shipped belief models against counting, on held-out games.

    python benchmarks/belief_quality.py                          # every preset, 2 and 4 players
    python benchmarks/belief_quality.py --variants classic --players 4 --num-envs 1024

For each preset and player count, `--num-envs` games are played by `counter` in every seat from deal seeds that no
training used (from 2^41 up). At every decision the deciding seat's `belief` observation is read by the shipped
model (`load_belief(variant, num_players=N)`) and by counting (`counting_belief`), and both are scored against
the true hands (`score_beliefs`): bits per hidden card (the negative log2-likelihood of each hidden card's true
kind) and the squared error of the expected copies. The gain is counting's bits less the model's.
"""

from __future__ import annotations

import argparse
import time

from uno_env import PRESETS
from uno_env.agents.belief import counting_belief, load_belief, score_beliefs
from uno_env.train.belief import collect, predict_in_chunks

#: deal seeds of the benchmark: above the training data's and the training script's held-out games
BENCHMARK_SEED = 1 << 41


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", nargs="+", default=list(PRESETS))
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--num-envs", type=int, default=512, help="games played at once")
    parser.add_argument("--decisions", type=int, default=200, help="decisions per game slot")
    args = parser.parse_args()
    print("| preset | players | decisions | hidden cards | counting, bits/card | model, bits/card | gain, bits/card "
          "| counting, sq. error | model, sq. error |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    started = time.perf_counter()
    for players in args.players:
        for variant in args.variants:
            model = load_belief(variant, num_players=players)
            obs, hands = collect(variant, players, args.num_envs, args.decisions, BENCHMARK_SEED)
            counted = score_beliefs(counting_belief(obs, "belief", players), obs, hands, "belief", players)
            learned = score_beliefs(predict_in_chunks(model, obs), obs, hands, "belief", players)
            gain = counted["bits_per_card"] - learned["bits_per_card"]
            print(f"| {variant} | {players} | {len(obs):,} | {counted['hidden_cards']:,.0f} | "
                  f"{counted['bits_per_card']:.3f} | {learned['bits_per_card']:.3f} | **{gain:.3f}** | "
                  f"{counted['squared_error']:.4f} | {learned['squared_error']:.4f} |", flush=True)  # fmt: skip
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
