"""The cost of a text agent in tokens: how many prompts a game asks of a language model, and how long they are.

    python benchmarks/text_cost.py --games 200
    python benchmarks/text_cost.py --settings classic:2 classic:4 --episode match --games 40
    python benchmarks/text_cost.py --settings classic:2 unocorns:3 --games 400 --json cost.jsonl

A `TextAgent` plays one seat against `counter` in the others (every seat in turn: the arena's rotations), through a
stub model that counts what it is asked and answers ``MOVE: 1`` (the first move of the list: the lowest card it
can play, else a draw), a quick player whose games are about as long as the baselines'. Tokens are characters / 4
(no tokenizer is needed; `tiktoken`'s cl100k_base is used when it is installed, and the table says which). Per
variant and player count it prints, per game: the text seat's decisions, those it asked the model about (a
decision with one legal move is played unasked), the prompt tokens, and the mean prompt tokens of one asked
decision. A reply's tokens are the model's own: multiply the asked decisions by a reply's length (a bare
``MOVE: 3`` is about 4 tokens; a model that reasons first writes hundreds). The figures in docs/text-agents.md
come from the first two commands (`--episode match`: a whole match to 500 points is a game).
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from uno_env import cli
from uno_env.agents import CounterAgent, TextAgent
from uno_env.arena.tournament import play_games

DEFAULT_SETTINGS = ("classic:2", "classic:4", "unocorns:3", "monster_high:4", "emoji:2", "swap:2")


def token_counter():
    """(name, count(text) -> tokens): tiktoken's cl100k_base when installed, else characters / 4."""
    try:
        import tiktoken
    except ImportError:
        return "characters / 4", lambda text: len(text) / 4
    encoding = tiktoken.get_encoding("cl100k_base")
    return "tiktoken cl100k_base", lambda text: len(encoding.encode(text))


class CountingModel:
    """Answers 'MOVE: 1' and adds up the tokens of every prompt."""

    name = "stub"

    def __init__(self, count):
        self.count = count
        self.tokens = 0.0
        self.prompts = 0

    def __call__(self, prompt: str) -> str:
        self.tokens += self.count(prompt)
        self.prompts += 1
        return "MOVE: 1"


def measure(variant: str, players: int, games: int, seed: int, count, episode: str = "round") -> dict:
    model = CountingModel(count)
    agent = TextAgent(model)
    lineup = ["text"] + ["counter"] * (players - 1)
    start = time.perf_counter()
    results = play_games({"text": agent, "counter": CounterAgent(seed=seed + 1)}, lineup, variant, games=games,
                         seed=seed, batch_size=256, episode=episode)  # fmt: skip
    seconds = time.perf_counter() - start
    played = len(results)
    stats = agent.stats()
    return {
        "variant": variant, "players": players, "episode": episode, "games": played,
        "decisions_per_game": stats["decisions"] / played,
        "asked_per_game": stats["asked"] / played, "prompt_tokens_per_game": model.tokens / played,
        "prompt_tokens_per_asked": model.tokens / max(model.prompts, 1), "fallbacks": stats["fallbacks"],
        "text_wins": float(np.mean([any(r.lineup[w] == "text" for w in r.winners) for r in results])),
        "seconds": seconds,
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = cli.ArgumentParser(prog="text_cost.py", description="The cost of a text agent in tokens per game.")
    parser.add_argument("--settings", nargs="+", default=list(DEFAULT_SETTINGS), metavar="VARIANT:PLAYERS",
                        help=f"the games to measure (default: {' '.join(DEFAULT_SETTINGS)})")  # fmt: skip
    parser.add_argument("--games", type=cli.positive_int, default=200, metavar="INT",
                        help="games per setting, rounded up to whole seat rotations (default: 200)")  # fmt: skip
    cli.add_episode(parser)
    cli.add_seed(parser, help="the first deal's seed")
    parser.add_argument("--json", metavar="FILE", help="append each setting's result to FILE as one JSON line")
    args = parser.parse_args(argv)
    settings = []
    for text in args.settings:
        variant, _, players = text.partition(":")
        if not players.isdigit():
            parser.error(f"a setting is VARIANT:PLAYERS, e.g. classic:2, got {text!r}")
        settings.append((variant, int(players)))
    tokenizer, count = token_counter()
    print(f"tokens: {tokenizer}; one text seat against counter, {args.games} games (a {args.episode} each) per "
          f"setting, seed {args.seed}")
    print("| variant | players | games | decisions / game | asked / game | prompt tokens / game "
          "| prompt tokens / asked decision |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for variant, players in settings:
        row = measure(variant, players, args.games, args.seed, count, args.episode)
        row["tokenizer"] = tokenizer
        print(f"| {variant} | {players} | {row['games']} | {row['decisions_per_game']:.1f} | "
              f"{row['asked_per_game']:.1f} | {row['prompt_tokens_per_game']:,.0f} | "
              f"{row['prompt_tokens_per_asked']:,.0f} |", flush=True)  # fmt: skip
        if args.json:
            with open(args.json, "a", encoding="utf-8") as file:
                file.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
