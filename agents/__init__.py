"""Agents: anything that picks actions for a batch of decisions.

The agent protocol (`uno_env.agents.base.Agent`): an agent has an `observation` attribute naming the observation
level it reads ("minimal", "knowledge" or "seer") and a method
``act(observations, action_masks) -> actions`` taking int8 arrays of shape (B, L) and (B, 77) and
returning B legal action ids. It sees nothing but its observations. An agent may also have
``bind(spec, rules)``: environments call it first with the observation layout and the rule set.
"""

from .base import Agent, bind
from .counter import CounterAgent
from .greedy import GreedyAgent
from .naive import NaiveAgent
from .random_agent import RandomAgent
from .registry import agent_names, make_agent

__all__ = ["Agent", "CounterAgent", "GreedyAgent", "NaiveAgent", "RandomAgent", "agent_names", "bind", "make_agent"]
