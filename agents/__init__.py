"""Agents: anything that picks actions for a batch of decisions.

The agent protocol (`uno_env.seats.Agent`, re-exported here): an agent has an `observation` attribute naming the
observation level it reads ("minimal", "knowledge" or "seer") and a method
``act(observations, action_masks) -> actions`` taking int8 arrays of shape (B, L) and (B, 77) and
returning B legal action ids. It sees nothing but its observations. An agent may also have
``bind(spec, rules)``: environments call it first with the observation layout and the rule set. Search agents
add ``act_in_games`` (`uno_env.seats.agent_actions`); `uno_env.seats.SeatLoop` plays agents' turns, batched.
`TextAgent(model)` seats a language model (any callable prompt -> reply) through `uno_env.text`.
"""

from .base import Agent, bind
from .counter import CounterAgent
from .greedy import GreedyAgent
from .naive import NaiveAgent
from .random_agent import RandomAgent
from .registry import agent_names, make_agent
from .text_agent import TextAgent

__all__ = [
    "Agent", "CounterAgent", "GreedyAgent", "NaiveAgent", "RandomAgent", "TextAgent", "agent_names", "bind",
    "make_agent",
]  # fmt: skip
