"""`random`: a uniformly random legal action."""

from __future__ import annotations

from uno_env.seats import RandomPlay


class RandomAgent(RandomPlay):
    """Uniform over the legal actions; reproducible for a seed (`uno_env.seats.RandomPlay`, by its registry name)."""
