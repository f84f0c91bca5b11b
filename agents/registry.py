"""The agent registry: every agent `uno-arena`, `uno-play`, the trainers' leagues and the tests can seat, by name.

Baselines by name (`random`, `naive`, `greedy`, `counter`); trained agents as PREFIX:ARGUMENT (`ppo:classic`,
`ppo:FILE.pt`, `sb3:MODEL.zip`, `rllib:CHECKPOINT_DIR`), loaded on demand so that torch, SB3 and Ray are
imported only by those who seat them; search agents as NAME or NAME:BUDGET (`ismcts`, `ismcts:500`,
`ismcts:20ms`, `ismcts-belief:100`, `seer`, `openspiel-ismcts:100`), which read the game through `act_in_games`;
a language model as `llm` or `llm:MODEL` (`uno_env.agents.text_agent.TextAgent` over the OpenAI-compatible chat
server the environment names, `uno_env.agents.openai_chat`).

A plain install (no extras) seats the baselines and the compiled search agents; `ppo:` needs torch, `sb3:`
Stable-Baselines3 (the `train` extra), `rllib:` Ray (`rllib`) and `openspiel-ismcts` OpenSpiel (`openspiel`):
without it `make_agent` raises `uno_env.extras.MissingExtraError`, whose one line names the extra to install.

Files are data: a policy file (`ppo:`) is loaded with `torch.load(weights_only=True)`, tensors and plain values
only, so nothing in it runs. SB3 model zips and RLlib checkpoints can only be loaded by unpickling, which can
run code from the file: they load only with `trust=True` (`--trust` on the commands), else `UntrustedFileError`
(`uno_env.agents.trust`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from uno_env.extras import needs_extra, require_extra

from .base import MAX_SEARCH_ITERATIONS, MAX_SEARCH_MILLISECONDS
from .baselines import BASELINES


def _ppo(argument: str, seed: int | None, trust: bool):
    from .policy import PolicyAgent

    # a policy file is plain data (weights_only): it never needs trust
    if argument.endswith(".pt") or Path(argument).exists():
        return PolicyAgent(argument, name=f"ppo:{argument}", seed=seed)
    return PolicyAgent.shipped(argument, seed=seed)


def _sb3(argument: str, seed: int | None, trust: bool):
    require_extra(f"sb3:{argument}", "sb3_contrib")  # said before the file is looked at or refused without trust
    from .sb3_agent import SB3Agent

    return SB3Agent(argument, trust=trust)


def _rllib(argument: str, seed: int | None, trust: bool):
    require_extra(f"rllib:{argument}", "ray", "torch")
    from .rllib_agent import RLlibAgent

    return RLlibAgent(argument, seed=seed, trust=trust)


_BUDGET = re.compile(r"([0-9]+)(ms)?")  # ASCII digits only: int() reads any script's digits


def search_budget(
    name: str, argument: str, *, most_iterations: int = MAX_SEARCH_ITERATIONS,
    most_milliseconds: int = MAX_SEARCH_MILLISECONDS,
) -> dict[str, int]:  # fmt: skip
    """The budget in a search agent's ARGUMENT (`500`, `20ms`: `{"iterations": 500}`, `{"milliseconds": 20}`; `{}`
    for none), written in ASCII digits and at most the caps (uno-web passes its lower ones); a ValueError says the
    allowed range. Parts that are not a budget are left to the agent's other settings."""
    budget: dict[str, int] = {}
    for part in argument.split(":") if argument else []:
        match = _BUDGET.fullmatch(part)
        if match is None:
            continue
        key, most = ("milliseconds", most_milliseconds) if match[2] else ("iterations", most_iterations)
        if len(match[1]) > len(str(most)) or not 1 <= int(match[1]) <= most:
            raise ValueError(f"{name}: a search's budget is 1 to {most_iterations:,} iterations or 1 to "
                             f"{most_milliseconds:,}ms a decision, got {part[:40]!r}")  # fmt: skip
        budget[key] = int(match[1])
    return budget


def _search_settings(name: str, argument: str) -> dict[str, Any]:
    """NAME[:BUDGET][:ROLLOUT][:OTHERS][:ROOT] as keyword arguments, in any order: BUDGET is ITERATIONS or
    MILLISECONDSms (`search_budget`), ROLLOUT counter or random, OTHERS model or search, ROOT paired or ucb, and
    `wide` for no progressive widening (`uno_env.agents.ismcts`); left out: the agent's defaults."""
    from .ismcts import OTHERS, ROLLOUTS, ROOTS

    settings: dict[str, Any] = search_budget(name, argument)
    for part in argument.split(":") if argument else []:
        if _BUDGET.fullmatch(part):
            continue
        if part in ROLLOUTS:
            settings["rollout"] = part
        elif part in OTHERS:
            settings["others"] = part
        elif part in ROOTS:
            settings["root"] = part
        elif part == "wide":
            settings["widening"] = 0.0  # every action from a node's first visit, as textbook IS-MCTS
        elif part.startswith("prior=") and name in ("ismcts", "seer"):
            from .policy import PolicyAgent  # a policy file is plain data: it never needs trust

            settings["prior"] = PolicyAgent(part[6:], name=f"ppo:{part[6:]}")  # the root's default move
        elif name == "ismcts-belief" and part.startswith("power") and _is_number(part[5:]):
            settings["belief_power"] = float(part[5:])  # the worlds' odds to this power (ismcts-belief:100:power0.2)
        else:
            raise ValueError(
                f"{name}: after the name come a budget, a number of iterations (ismcts:500) or of "
                f"milliseconds (ismcts:20ms) in ASCII digits, a rollout ({', '.join(ROLLOUTS)}), how the other seats "
                f"are played ({', '.join(OTHERS)}), how the root's actions are compared ({', '.join(ROOTS)}), "
                f"'wide' and prior=FILE.pt (a policy whose move the root keeps unless another wins clearly more); "
                f"got {part[:40]!r}"
            )
    return settings


def _is_number(text: str) -> bool:
    try:
        return float(text) >= 0
    except ValueError:
        return False


def _ismcts(argument: str, seed: int | None, trust: bool):
    from .ismcts import ISMCTSAgent

    return ISMCTSAgent(seed, **_search_settings("ismcts", argument))


def _ismcts_belief(argument: str, seed: int | None, trust: bool):
    from .ismcts import ISMCTSAgent

    return ISMCTSAgent(seed, belief=True, **_search_settings("ismcts-belief", argument))


def _seer(argument: str, seed: int | None, trust: bool):
    from .ismcts import ISMCTSAgent

    return ISMCTSAgent(seed, seer=True, **_search_settings("seer", argument))


def _openspiel_ismcts(argument: str, seed: int | None, trust: bool):
    from .openspiel_agent import OpenSpielISMCTSAgent

    budget = search_budget("openspiel-ismcts", argument)
    if argument and "iterations" not in budget or ":" in argument:
        raise ValueError(f"openspiel-ismcts: the budget is a number of iterations (openspiel-ismcts:100), from 1 to "
                         f"{MAX_SEARCH_ITERATIONS:,}, got {argument[:40]!r}")  # fmt: skip
    return OpenSpielISMCTSAgent(seed=seed, **budget)


def _llm(argument: str, seed: int | None, trust: bool):
    """A language model behind an OpenAI-compatible chat API (`UNO_LLM_*`; llm:MODEL names the model), as a
    `TextAgent` asking `UNO_LLM_CONCURRENCY` games at once (default 1)."""
    import os

    from .openai_chat import OpenAIChat
    from .text_agent import TextAgent

    concurrency = os.environ.get("UNO_LLM_CONCURRENCY", "1")
    if not concurrency.isdigit() or not 1 <= int(concurrency) <= 256:
        raise ValueError(f"UNO_LLM_CONCURRENCY must be an int from 1 to 256, got {concurrency[:20]!r}")
    chat = OpenAIChat.from_env(**({"model": argument} if argument else {}), seed=seed)
    return TextAgent(chat, concurrency=int(concurrency))


# Text agents by NAME or NAME:ARGUMENT: loader(argument, seed, trust) -> agent.
TEXT_AGENTS = {"llm": _llm}
TEXT_HELP = "llm[:MODEL] (a language model behind an OpenAI-compatible chat API: UNO_LLM_BASE_URL, UNO_LLM_MODEL)"

# Search agents by NAME or NAME:BUDGET (iterations, or milliseconds as 20ms): loader(argument, seed, trust).
SEARCHES = {"ismcts": _ismcts, "ismcts-belief": _ismcts_belief, "seer": _seer, "openspiel-ismcts": _openspiel_ismcts}
SEARCH_HELP = (
    "ismcts[:ITERATIONS|:MSms][:counter|random][:model|search][:paired|ucb][:wide][:prior=FILE.pt], "
    "ismcts-belief[:...] (worlds "
    "weighed by the shipped belief model), seer[:...] (sees every hand), openspiel-ismcts[:ITERATIONS]"
)

# Trained agents by PREFIX:ARGUMENT: loader(argument, seed, trust) -> agent.
TRAINED_PREFIXES = {"ppo": _ppo, "sb3": _sb3, "rllib": _rllib}
TRAINED_HELP = (
    f"ppo:PRESET (a shipped policy), ppo:FILE.pt, sb3:MODEL.zip, rllib:CHECKPOINT_DIR, {SEARCH_HELP}, {TEXT_HELP}"
)


def agent_names() -> list[str]:
    """The baseline names `make_agent` knows (trained agents are PREFIX:ARGUMENT, see `TRAINED_PREFIXES`)."""
    return list(BASELINES)


def is_agent_name(name: str) -> bool:
    """A baseline's name or a PREFIX:ARGUMENT name with a known prefix (the argument is checked on loading)."""
    prefix, colon, _ = name.partition(":")
    return (name in BASELINES or prefix in SEARCHES or prefix in TEXT_AGENTS
            or (prefix in TRAINED_PREFIXES and bool(colon)))  # fmt: skip


def make_agent(name: str, seed: int | None = None, trust: bool = False) -> Any:
    """An agent by name, seeded: a baseline, or a trained agent as PREFIX:ARGUMENT (`TRAINED_PREFIXES`).

    `trust=True` lets `sb3:` and `rllib:` files load, by unpickling them (which can run code from the file): only
    for files you made or trust. Without it they raise `UntrustedFileError`; `ppo:` files never need it."""
    if not isinstance(name, str):
        raise TypeError(f"an agent name is a string, got {name!r}")
    prefix, colon, argument = name.partition(":")
    loader = TRAINED_PREFIXES.get(prefix) if colon else None
    loader = loader or SEARCHES.get(prefix) or TEXT_AGENTS.get(prefix)
    if loader is not None:
        with needs_extra(name):  # ppo: needs torch, sb3: Stable-Baselines3, ...: a missing extra is named in one line
            return loader(argument, seed, bool(trust))
    if name not in BASELINES:
        raise ValueError(f"unknown agent {name!r}; the agents are {', '.join(BASELINES)}, or {TRAINED_HELP}")
    return BASELINES[name](seed=seed)
