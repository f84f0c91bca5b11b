"""Train a hand-belief model by supervised learning on games the engine labels for free.

    python -m uno_env.train.belief --variant classic --players 4 --out runs/belief/classic-4p.pt
    python -m uno_env.train.belief --variant classic --players 4 --ship        # into the shipped models

Games are played by the baselines (`--agents`, each game by one of them in every seat; `counter` by default, the
opponents the honest agents are measured against). At every decision the deciding seat's observation at the
`belief` level is a sample, and its label is every seat's true hand (the `seer` observation's `hands`, in the
same relative order). The network (`uno_env.agents.belief.BeliefNetwork`) minimises the cross-entropy of the
other seats' hidden cards; the report compares it with counting (`uno_env.agents.belief.counting_belief`) on
held-out games dealt from seeds training never uses, in bits per hidden card and squared error.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

from uno_env import cli
from uno_env.agents.belief import (
    SHIPPED_DIR,
    BeliefModel,
    BeliefNetwork,
    CountingParts,
    counting_belief,
    probabilities_from_logits,
    score_beliefs,
)
from uno_env.agents.registry import make_agent
from uno_env.observation import observation_layout
from uno_env.records import write_atomic
from uno_env.seats import bind
from uno_env.vector import UnoVectorEnv

#: held-out games are dealt from seeds at or above this: training's seeds stay below it
HELD_OUT_SEED = 1 << 40


def collect(variant: str, players: int, num_envs: int, decisions: int, seed: int,
            agents: tuple[str, ...] = ("counter",), level: str = "belief") -> tuple[np.ndarray, np.ndarray]:
    """(observations (S, L) int8 at `level`, hands (S, N, K) int8 in the same relative order): the deciding seat of
    each of `num_envs` games at every step, for `decisions` steps of play by `agents` (one per game, every seat)."""
    env = UnoVectorEnv(variant, players, num_envs, learner_seats="all", observation="knowledge")
    players_of = [make_agent(name, seed=seed + i) for i, name in enumerate(agents)]
    for agent in players_of:
        bind(agent, env.spec, env.rules)
    group = np.arange(num_envs) % len(players_of)
    hands_slice, hands_shape = observation_layout("seer", players)["hands"]
    observations, hands = [], []
    obs, masks = env.reset(seed=seed)
    for _ in range(decisions):
        observations.append(env.observe(level))
        hands.append(env.observe("seer")[:, hands_slice].reshape(num_envs, *hands_shape))
        actions = np.empty(num_envs, np.int64)
        for i, agent in enumerate(players_of):
            rows = group == i
            actions[rows] = agent.act(obs[rows], masks[rows])
        obs, masks, *_ = env.step(actions)
    return np.concatenate(observations), np.concatenate(hands)


def targets(observations: np.ndarray, hands: np.ndarray, num_players: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(unseen copies (S, K), the other seats' true hidden cards (S, N - 1, K)) as int8 tensors: what the loss reads."""
    parts = CountingParts(observations, "belief", num_players)
    hidden = np.maximum(hands[:, 1:].astype(np.int16) - parts.known[:, 1:].astype(np.int16), 0).astype(np.int8)
    return torch.from_numpy(parts.unseen.astype(np.int8)), torch.from_numpy(hidden)


def cross_entropy(network: BeliefNetwork, observations: torch.Tensor, unseen: torch.Tensor,
                  true_hidden: torch.Tensor) -> torch.Tensor:  # fmt: skip
    """Mean negative log-likelihood (nats) per hidden card of the other seats' true hidden cards."""
    p = probabilities_from_logits(network(observations), unseen)
    true_hidden = true_hidden.float()
    return -(true_hidden * torch.log(p.clamp_min(1e-12))).sum() / true_hidden.sum().clamp_min(1.0)


def train(args: argparse.Namespace) -> tuple[dict, dict]:
    """Collect, train, score on held-out games; returns (belief file dict, scores)."""
    torch.manual_seed(args.seed)
    started = time.perf_counter()
    train_obs, train_hands = collect(args.variant, args.players, args.num_envs, args.decisions, args.seed, args.agents)
    test_obs, test_hands = collect(args.variant, args.players, args.num_envs // 4, args.decisions,
                                   HELD_OUT_SEED + args.seed, args.agents)  # fmt: skip
    collected = time.perf_counter() - started
    network = BeliefNetwork("belief", args.players, tuple(args.hidden))
    optimizer = torch.optim.Adam(network.parameters(), lr=args.learning_rate)
    x = torch.from_numpy(train_obs)
    unseen, hidden = targets(train_obs, train_hands, args.players)
    del train_hands
    deadline = time.perf_counter() + args.minutes * 60
    steps = 0
    for _ in range(args.epochs):
        order = torch.randperm(len(x))
        for start in range(0, len(x) - args.minibatch_size + 1, args.minibatch_size):
            rows = order[start : start + args.minibatch_size]
            loss = cross_entropy(network, x.index_select(0, rows), unseen.index_select(0, rows),
                                 hidden.index_select(0, rows))  # fmt: skip
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            steps += 1
            if time.perf_counter() > deadline:
                break
        if time.perf_counter() > deadline:
            break
    model = BeliefModel(network, args.variant)
    scores = {
        "model": score_beliefs(predict_in_chunks(model, test_obs), test_obs, test_hands, "belief", args.players),
        "counting": score_beliefs(counting_belief(test_obs, "belief", args.players), test_obs, test_hands, "belief",
                                  args.players),  # fmt: skip
        "train_samples": len(x), "test_samples": len(test_obs), "gradient_steps": steps,
        "collect_seconds": round(collected, 1), "seconds": round(time.perf_counter() - started, 1),
    }  # fmt: skip
    command = "python -m uno_env.train.belief " + " ".join(sys.argv[1:])
    return network.to_file_dict(args.variant, {}, command=command, scores=scores), scores


def predict_in_chunks(model: BeliefModel, observations: np.ndarray, size: int = 65536) -> np.ndarray:
    return np.concatenate([model.predict(observations[i : i + size]) for i in range(0, len(observations), size)])


def build_parser() -> cli.ArgumentParser:
    """The command line, in `uno_env.cli`'s convention (one-line errors, exit 2)."""
    parser = cli.ArgumentParser(prog="python -m uno_env.train.belief", description=__doc__.split("\n\n")[0])
    cli.add_variant(parser)
    cli.add_players(parser, 4)
    parser.add_argument("--agents", nargs="+", default=["counter"], help="baselines that play the games")
    cli.add_num_envs(parser, 2048, "games played at once for the training data")
    parser.add_argument("--decisions", type=cli.positive_int, default=200,
                        help="decisions per game slot (finished games start again)")  # fmt: skip
    parser.add_argument("--hidden", type=cli.positive_int, nargs="+", default=[256, 256], help="layer widths")
    parser.add_argument("--epochs", type=cli.positive_int, default=8)
    parser.add_argument("--minibatch-size", type=cli.positive_int, default=2048)
    parser.add_argument("--learning-rate", type=cli.positive_float, default=1e-3)
    parser.add_argument("--minutes", type=cli.positive_float, default=10.0, help="training time limit")
    cli.add_seed(parser)
    parser.add_argument("--out", type=Path, default=None, help="the belief file to write")
    parser.add_argument("--ship", action="store_true", help="write it into the shipped models (float16)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    for name in args.agents:
        try:
            make_agent(name)
        except ValueError as error:
            parser.error(str(error))
    torch.set_num_threads(1)
    data, scores = train(args)
    for name in ("counting", "model"):
        s = scores[name]
        print(f"{name:>8}: {s['bits_per_card']:.4f} bits per hidden card, squared error {s['squared_error']:.5f} "
              f"({s['hidden_cards']:.0f} hidden cards in {scores['test_samples']} held-out decisions)")  # fmt: skip
    gain = scores["counting"]["bits_per_card"] - scores["model"]["bits_per_card"]
    print(f"the model is {gain:.4f} bits per hidden card below counting ({scores['seconds']} s in all)")
    targets = [args.out] if args.out else []
    if args.ship:
        targets.append(SHIPPED_DIR / f"{args.variant}-{args.players}p.pt")
        data["state_dict"] = {k: v.half() if v.is_floating_point() else v for k, v in data["state_dict"].items()}
    for path in targets:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, lambda temporary: torch.save(data, temporary))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
