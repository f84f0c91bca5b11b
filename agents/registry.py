"""The agent catalogue: every agent name the commands take, read in one place, and the files the package ships.

uno-arena (`--agents`), uno-play and uno-web (`--opponents`), uno-bench (`run`, `compare`), the trainers' leagues
and the tests all read a name with `parse_agent` and seat it with `make_agent`. The names (`KINDS`, one row a kind):

| name | agent |
|---|---|
| `random`, `naive`, `greedy`, `counter` | a baseline (`uno_env.agents.baselines.BASELINES`) |
| `ppo:VARIANT` | the PPO policy shipped for the variant, for the game's player count |
| `ppo:FILE.pt` | a policy file written by uno-train (plain data) |
| `best:VARIANT` | the strongest fast agent shipped for the variant (a network, no search), for the game's players |
| `dmc:FILE.pt` | a Q-network file written by uno-train-dmc (plain data): its greedy Q-policy |
| `sb3:MODEL.zip`, `rllib:CHECKPOINT_DIR` | an SB3 model or an RLlib checkpoint: unpickled, so only with `--trust` |
| `ismcts`, `ismcts-belief`, `seer`, `openspiel-ismcts`, each `:SETTING...` | a search (settings: `search_settings`) |
| `llm`, `llm:MODEL` | a language model behind an OpenAI-compatible chat server (`UNO_LLM_*`) |
| `module:Class` | your own agent class: importing its module runs its code, so only with `--trust` |

A parsed name (`AgentName`) says its kind, argument, budget, the file it loads (none for a baseline, a search
without `prior=FILE.pt` or a shipped file) and whether it needs trust; `can_play` says, from the catalogue alone,
whether it can play a game of a variant, player count and observation level. A refused name is one line (a
ValueError) saying what is allowed.

Torch, SB3, Ray and OpenSpiel are imported only by those who seat agents that need them: without the extra,
`make_agent` raises `uno_env.extras.MissingExtraError`, whose one line names the extra to install. Files are data:
a policy file is loaded with `torch.load(weights_only=True)`, so nothing in it runs; SB3 zips and RLlib checkpoints
can only be unpickled (which can run code from the file) and load only with `trust=True` (`--trust`), else
`UntrustedFileError` (`uno_env.agents.trust`); a `module:Class` is imported only with `trust=True`.

`SHIPPED` lists every file shipped in the package with its sha256 (a test checks them); `BEST` maps each variant
and player count to the file `best:VARIANT` seats. Both are data, in `uno_env.agents.shipped` (re-exported here),
which the loaders of policies and belief models read without the catalogue.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uno_env.extras import needs_extra, require_extra
from uno_env.observation import LEVELS

from .base import MAX_SEARCH_ITERATIONS, MAX_SEARCH_MILLISECONDS
from .baselines import BASELINES
from .shipped import (
    BEST,
    SHIPPED,
    SHIPPED_KINDS,
    ShippedFile,
    check_shipped,
    missing_players,
    shipped_files,
    shipped_for,
    shipped_variants,
)

__all__ = [
    "AGENT_HELP", "BEST", "CLASS_SYNTAX", "KINDS", "MAX_NAME", "SHIPPED", "SHIPPED_KINDS", "AgentName", "Kind",
    "ShippedFile", "agent_level", "agent_names", "can_play", "is_agent_name", "kinds", "load_class", "make_agent",
    "missing_players", "own_name", "parse_agent", "search_budget", "search_settings", "shipped_files",
    "shipped_for", "shipped_variants",
]  # fmt: skip

#: the most characters of an agent's name
MAX_NAME = 256

# ------------------------------------------------------------------------------------------------ parsed names


@dataclass(frozen=True)
class AgentName:
    """An agent's name as the catalogue reads it (`parse_agent`): nothing is loaded or imported yet."""

    text: str  # the name as given
    kind: str  # its row of `KINDS` (`ppo`, `counter`, `ismcts`, ...), or "class" for module:Class
    argument: str = ""  # what follows the first colon
    budget: Mapping[str, int] = field(default_factory=dict)  # a search's: {"iterations": N} or {"milliseconds": N}
    settings: Mapping[str, Any] = field(default_factory=dict)  # a search's keyword arguments (`search_settings`)
    file: str = ""  # the file it loads (a policy, a model, a search's prior); "" for none
    shipped: str = ""  # the variant whose shipped file it seats (`ppo:VARIANT`, `best:VARIANT`)
    needs_trust: bool = False  # loading it unpickles a file or imports a module (`--trust`)

    @property
    def loads_file(self) -> bool:
        """Whether seating it reads a file the name gives (shipped files are the package's)."""
        return bool(self.file)

    @property
    def family(self) -> str:
        """"class" for module:Class, else its row's family (`Kind.family`)."""
        return "class" if self.kind == "class" else KINDS[self.kind].family


@dataclass(frozen=True)
class Kind:
    """A row of the catalogue: one kind of agent name, how it is written, read and loaded."""

    family: str  # "baseline", "policy" (plain data), "model" (unpickled), "search" or "text"
    syntax: str  # how the name is written, for help and refusals
    load: Callable[[AgentName, int | None, bool], Any]  # (the parsed name, seed, trust) -> the agent
    read: Callable[[str, str, Mapping[str, int]], dict[str, Any]] | None = None  # (kind, argument, caps) -> fields
    argument: str = "none"  # "none", "optional" or "required": whether the name takes :ARGUMENT
    level: str | None = None  # the observation level it reads, where the name alone says it


def _baseline(name: AgentName, seed: int | None, trust: bool):
    return BASELINES[name.kind](seed=seed)


# --- trained agents


def _read_shipped_or_file(kind: str, argument: str, caps: Mapping[str, int]) -> dict[str, Any]:
    """`ppo:VARIANT` (a variant with a shipped policy) or `ppo:FILE` (any other argument that is not a bare word,
    or a bare word naming an existing file)."""
    if shipped_for(kind, argument):
        return {"shipped": argument}
    if re.fullmatch(r"\w+", argument) and not Path(argument).exists():
        check_shipped(kind, argument)
    return {"file": argument}


def _read_shipped(kind: str, argument: str, caps: Mapping[str, int]) -> dict[str, Any]:
    """`best:VARIANT`: a variant `BEST` names a file for."""
    check_shipped(kind, argument)
    return {"shipped": argument}


def _read_file(kind: str, argument: str, caps: Mapping[str, int]) -> dict[str, Any]:
    return {"file": argument, "needs_trust": True}


def _policy(name: AgentName, seed: int | None, trust: bool):
    from .policy import PolicyAgent, ShippedPolicy

    # a policy file is plain data (weights_only): it never needs trust
    if name.file:
        return PolicyAgent(name.file, name=name.text, seed=seed)
    return ShippedPolicy(name.shipped, kind=name.kind, seed=seed)


def _read_dmc(kind: str, argument: str, caps: Mapping[str, int]) -> dict[str, Any]:
    return {"file": argument}


def _dmc(name: AgentName, seed: int | None, trust: bool):
    from .dmc_agent import DMCAgent  # a DMC policy file is plain data (weights_only): it never needs trust

    return DMCAgent(name.file, name=name.text, seed=seed)


def _sb3(name: AgentName, seed: int | None, trust: bool):
    require_extra(name.text, "sb3_contrib")  # said before the file is looked at or refused without trust
    from .sb3_agent import SB3Agent

    return SB3Agent(name.file, trust=trust)


def _rllib(name: AgentName, seed: int | None, trust: bool):
    require_extra(name.text, "ray", "torch")
    from .rllib_agent import RLlibAgent

    return RLlibAgent(name.file, seed=seed, trust=trust)


# --- searches

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


def search_settings(name: str, argument: str, caps: Mapping[str, int] | None = None) -> dict[str, Any]:
    """NAME[:BUDGET][:ROLLOUT][:OTHERS][:ROOT][:wide][:prior=FILE.pt] as `AgentName` fields, in any order: BUDGET is
    ITERATIONS or MILLISECONDSms (`search_budget`), ROLLOUT counter or random, OTHERS model or search, ROOT paired or
    ucb, `wide` for no progressive widening (`uno_env.agents.ismcts`), prior=FILE.pt a policy whose move the paired
    root keeps unless another wins clearly more (ismcts and seer), powerX the belief's odds to the power X
    (ismcts-belief), `voids` for worlds where no seat holds a coloured card it showed it lacked (ismcts), `next`
    for a bound that sees only the next seat's hand, `nextK` the next K seats' (seer); left out: the agent's
    defaults. A ValueError says what may follow the name."""
    from .ismcts import OTHERS, ROLLOUTS, ROOTS

    budget = search_budget(name, argument, **(caps or {}))
    settings: dict[str, Any] = dict(budget)
    prior = ""
    for part in argument.split(":") if argument else []:
        if _BUDGET.fullmatch(part):
            continue
        if part in ROLLOUTS:
            settings["rollout"] = part
        elif part in OTHERS:
            settings["others"] = part
        elif part in ROOTS:
            settings["root"] = part
        elif part == "voids" and name == "ismcts":
            settings["worlds"] = "voids"  # no other seat is dealt a coloured card it showed it lacked
        elif re.fullmatch(r"next[2-9]?", part) and name == "seer":
            settings["worlds"] = "next-seen"  # a bound that sees only the next seat's hand (nextK: the next K)
            settings["seen_hands"] = int(part[4:] or 1)
        elif part == "wide":
            settings["widening"] = 0.0  # every action from a node's first visit, as textbook IS-MCTS
        elif part.startswith("prior=") and len(part) > 6 and name in ("ismcts", "seer"):
            prior = part[6:]  # the root's default move: loaded with the agent
        elif name == "ismcts-belief" and part.startswith("power") and _is_number(part[5:]):
            settings["belief_power"] = float(part[5:])  # the worlds' odds to this power (ismcts-belief:100:power0.2)
        else:
            raise ValueError(
                f"{name}: after the name come a budget, a number of iterations (ismcts:500) or of "
                f"milliseconds (ismcts:20ms) in ASCII digits, a rollout ({', '.join(ROLLOUTS)}), how the other seats "
                f"are played ({', '.join(OTHERS)}), how the root's actions are compared ({', '.join(ROOTS)}), "
                f"'wide', 'voids' (ismcts), 'next' or 'nextK' (seer) and prior=FILE.pt (a policy whose move the root "
                f"keeps unless another wins clearly more); "
                f"got {part[:40]!r}"
            )
    return {"budget": budget, "settings": settings, "file": prior}


def _read_openspiel(kind: str, argument: str, caps: Mapping[str, int]) -> dict[str, Any]:
    budget = search_budget(kind, argument, **caps)
    if argument and "iterations" not in budget or ":" in argument:
        raise ValueError(f"openspiel-ismcts: the budget is a number of iterations (openspiel-ismcts:100), from 1 to "
                         f"{caps.get('most_iterations', MAX_SEARCH_ITERATIONS):,}, got {argument[:40]!r}")
    return {"budget": budget, "settings": budget}


def _is_number(text: str) -> bool:
    try:
        return float(text) >= 0
    except ValueError:
        return False


def _search(name: AgentName, seed: int | None, trust: bool):
    from .ismcts import ISMCTSAgent

    settings = dict(name.settings)
    if name.file:
        from .policy import PolicyAgent  # a policy file is plain data: it never needs trust

        settings["prior"] = PolicyAgent(name.file, name=f"ppo:{name.file}")
    kind = {"ismcts-belief": {"belief": True}, "seer": {"seer": True}}.get(name.kind, {})
    if settings.get("worlds") == "next-seen":
        kind = {}  # seer:N:next sees one hand, through its redeal, not every hand
    return ISMCTSAgent(seed, **kind, **settings)


def _openspiel_ismcts(name: AgentName, seed: int | None, trust: bool):
    from .openspiel_agent import OpenSpielISMCTSAgent

    return OpenSpielISMCTSAgent(seed=seed, **name.settings)


# --- a language model


def _llm(name: AgentName, seed: int | None, trust: bool):
    """A language model behind an OpenAI-compatible chat API (`UNO_LLM_*`; llm:MODEL names the model), as a
    `TextAgent` asking `UNO_LLM_CONCURRENCY` games at once (default 1)."""
    from .openai_chat import OpenAIChat
    from .text_agent import TextAgent

    concurrency = os.environ.get("UNO_LLM_CONCURRENCY", "1")
    if not concurrency.isdigit() or not 1 <= int(concurrency) <= 256:
        raise ValueError(f"UNO_LLM_CONCURRENCY must be an int from 1 to 256, got {concurrency[:20]!r}")
    chat = OpenAIChat.from_env(**({"model": name.argument} if name.argument else {}), seed=seed)
    return TextAgent(chat, concurrency=int(concurrency))


# --- a user's class

_USER_CLASS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*")
CLASS_SYNTAX = "module:Class (your own agent class, with --trust)"


def load_class(name: AgentName, seed: int | None, trust: bool):
    """A user's agent class `module:Class`, made with `seed=` when it takes one. Only with `trust`: importing the
    module runs its code (the current folder is searched first, as `python -m` would)."""
    from uno_env.seats import is_agent

    if not trust:
        raise ValueError(f"{name.text!r} names a class of your own (module:Class): importing it runs its module's "
                         f"code, so it loads only with --trust (trust=True); the catalogue's agents are {AGENT_HELP}")
    module_name, _, class_name = name.text.partition(":")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"cannot load the agent class {name.text!r}: {error}") from None
    if not inspect.isclass(cls):
        raise ValueError(f"{name.text!r} is not an agent class (module:Class names a class)")
    agent = cls(seed=seed) if "seed" in inspect.signature(cls).parameters else cls()
    if not is_agent(agent):
        raise ValueError(f"{name.text!r} is not an agent: it needs an `observation` level and an `act` method "
                         "(uno_env.seats.Agent)")  # fmt: skip
    return agent


# ------------------------------------------------------------------------------------------------ the catalogue

_SEARCH_SETTINGS = "[:ITERATIONS|:MSms][:counter|random][:model|search][:paired|ucb][:wide]"

#: every kind of agent name: a new kind of agent is a row here (a new baseline, a row of `BASELINES`)
KINDS: dict[str, Kind] = {
    **{name: Kind("baseline", name, _baseline, level=cls.observation) for name, cls in BASELINES.items()},
    "ppo": Kind("policy", "ppo:VARIANT|FILE.pt (the PPO policy shipped for a variant, or a policy file)", _policy,
                _read_shipped_or_file, "required"),
    "best": Kind("policy", "best:VARIANT (the strongest fast agent shipped for a variant: a network, no search)",
                 _policy, _read_shipped, "required"),
    "dmc": Kind("policy", "dmc:FILE.pt (a Q-network file written by uno-train-dmc)", _dmc, _read_dmc, "required"),
    "sb3": Kind("model", "sb3:MODEL.zip (with --trust)", _sb3, _read_file, "required"),
    "rllib": Kind("model", "rllib:CHECKPOINT_DIR (with --trust)", _rllib, _read_file, "required"),
    "ismcts": Kind("search", f"ismcts{_SEARCH_SETTINGS}[:prior=FILE.pt]", _search, search_settings, "optional",
                   "knowledge"),
    "ismcts-belief": Kind("search", "ismcts-belief[:...][:powerX] (worlds weighed by the shipped belief model)",
                          _search, search_settings, "optional", "belief"),
    "seer": Kind("search", "seer[:...] (sees every hand)", _search, search_settings, "optional", "seer"),
    "openspiel-ismcts": Kind("search", "openspiel-ismcts[:ITERATIONS]", _openspiel_ismcts, _read_openspiel,
                             "optional", "knowledge"),
    "llm": Kind("text", "llm[:MODEL] (a language model behind an OpenAI-compatible chat API: UNO_LLM_BASE_URL, "
                "UNO_LLM_MODEL)", _llm, None, "optional", "minimal"),
}  # fmt: skip


def agent_names() -> list[str]:
    """The baselines' names (every other agent name has a prefix, `KINDS`)."""
    return list(BASELINES)


def kinds(family: str) -> list[str]:
    """The kinds (`KINDS`) of a family: "baseline", "policy", "model", "search" or "text"."""
    return [name for name, kind in KINDS.items() if kind.family == family]


#: every name the catalogue reads, as the commands' help and refusals say it
AGENT_HELP = ", ".join([", ".join(agent_names())] + [k.syntax for k in KINDS.values() if k.family != "baseline"]
                       + [CLASS_SYNTAX])  # fmt: skip


def parse_agent(
    name: str, *, most_iterations: int = MAX_SEARCH_ITERATIONS, most_milliseconds: int = MAX_SEARCH_MILLISECONDS
) -> AgentName:
    """Read an agent's name (see the module docstring) without loading or importing anything: its kind, argument,
    budget (at most the caps: uno-web passes its lower ones), the file it loads and whether it needs trust. A
    ValueError of one line says what is wrong and what is allowed."""
    if not isinstance(name, str):
        raise TypeError(f"an agent name is a string, got {name!r}")
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise ValueError(f"an agent is named by 1 to {MAX_NAME} printable characters, got {name[:80]!r}")
    prefix, colon, argument = name.partition(":")
    kind = KINDS.get(prefix)
    if kind is None:
        if _USER_CLASS.fullmatch(name):
            return AgentName(name, "class", argument, needs_trust=True)
        raise ValueError(f"unknown agent {name[:80]!r}; the agents are {AGENT_HELP}")
    if kind.argument == "none" and colon:
        raise ValueError(f"{prefix} takes no argument, got {name[:80]!r}")
    if kind.argument == "required" and not argument:
        raise ValueError(f"{prefix}: give what to seat after the colon: {kind.syntax}")
    caps = {"most_iterations": most_iterations, "most_milliseconds": most_milliseconds}
    fields = kind.read(prefix, argument, caps) if kind.read is not None else {}
    return AgentName(name, prefix, argument, **fields)


def is_agent_name(name: str) -> bool:
    """Whether `parse_agent` reads `name` (its files are looked at only when it is seated)."""
    try:
        parse_agent(name)
    except (TypeError, ValueError):
        return False
    return True


def agent_level(name: str | AgentName) -> str | None:
    """The observation level the agent reads, where the catalogue knows it without loading anything (None for
    files and classes, which say it when they are loaded)."""
    parsed = parse_agent(name) if isinstance(name, str) else name
    if parsed.shipped:
        return next(iter(shipped_for(parsed.kind, parsed.shipped).values())).observation
    if parsed.kind == "class" or parsed.file and parsed.family != "search":
        return None
    return KINDS[parsed.kind].level


def can_play(name: str | AgentName, variant: str, players: int, level: str = "seer") -> str | None:
    """Why the agent `name` cannot play a game of `variant` with `players` whose agents may read observations up to
    `level` (`uno_env.observation.LEVELS`, in order; "knowledge" refuses an agent that sees every hand), in one line;
    None when it can, as far as the catalogue knows: a file or a class says what it plays when it is loaded."""
    parsed = parse_agent(name) if isinstance(name, str) else name
    if level not in LEVELS:
        raise ValueError(f"level is one of {', '.join(LEVELS)}, got {level!r}")
    reads = agent_level(parsed)
    if reads is not None and LEVELS.index(reads) > LEVELS.index(level):
        return f"{parsed.text} reads the {reads} observation; this game allows up to {level}"
    if parsed.shipped:
        return missing_players(parsed.kind, parsed.shipped, players)
    if parsed.kind == "ismcts-belief" and (variant, players) not in shipped_files("belief"):
        shipped = sorted(n for v, n in shipped_files("belief") if v == variant)
        return (f"{parsed.text} weighs its worlds by the belief model shipped for the game: none for {variant} with "
                f"{players} players (shipped for {shipped})")  # fmt: skip
    return None


def make_agent(name: str | AgentName, seed: int | None = None, trust: bool = False) -> Any:
    """The agent `name` (see the module docstring), seeded. `trust=True` lets `sb3:` and `rllib:` files load, by
    unpickling them (which can run code from the file), and `module:Class` be imported (which runs the module's
    code): only for files and code you made or trust. Without it they raise `UntrustedFileError` or ValueError;
    `ppo:` files never need it."""
    parsed = parse_agent(name) if isinstance(name, str) else name
    load = load_class if parsed.kind == "class" else KINDS[parsed.kind].load
    with needs_extra(parsed.text):  # ppo: needs torch, sb3: Stable-Baselines3, ...: a missing extra in one line
        return load(parsed, seed, bool(trust))


def own_name(name: str, agent: Any) -> str:
    """The name an agent made from `name` goes by at a table and in results: its own when it says more than the
    name it was made from (`llm` seats the model the environment names, `llm:MODEL`), else `name`."""
    own = getattr(agent, "name", None)
    return own if isinstance(own, str) and own.startswith(f"{name}:") else name
