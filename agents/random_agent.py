"""`random`: a uniformly random legal action."""

from __future__ import annotations

from uno_env.actions import RandomPlay


class RandomAgent(RandomPlay):
    """Uniform over the legal actions; reproducible for a seed (the engine's `RandomPlay`, by its registry name)."""
