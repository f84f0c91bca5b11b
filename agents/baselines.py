"""The rule-based baselines by name, weakest first: what `make_agent` seats and a policy's adviser may be."""

from __future__ import annotations

from .counter import CounterAgent
from .greedy import GreedyAgent
from .naive import NaiveAgent
from .random_agent import RandomAgent

BASELINES = {"random": RandomAgent, "naive": NaiveAgent, "greedy": GreedyAgent, "counter": CounterAgent}
