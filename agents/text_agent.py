"""Text agents: a language model (any callable from a prompt to a reply) in a seat, through `uno_env.text`.

``TextAgent(model)`` asks `model(prompt)` for each decision of its seat, with the prompt of `uno_env.text.prompt`
(the rules in brief, the table as the seat sees it, the legal moves numbered), and reads the reply with
`uno_env.text.read_reply`. A reply that names no legal move is answered by asking again, up to `retries` more
times (2 by default), with the prompt followed by the refused reply and why it was refused. When every attempt
fails it plays the **fallback**: the first move of the numbered list (the legal action with the lowest id), and
counts it (`fallbacks`). A decision with one legal move (a Draw Two stack with nothing to stack on it, no card
to play but a draw) is played without asking, unless `ask_forced`: its details hold the prompt and no attempts.
Model errors (an exception from `model`, such as the chat adapter's `ChatError`) are not replies: they propagate
to whoever seated the agent (a tournament stops with that one line; uno-web waits and offers to ask again, or to
let the agent play its fallback with `play_fallback`, counted like any other).

The agent reads the game through `act_in_games` (as the search agents do), so that `uno-arena`, `uno-play`,
`uno-web`, `UnoVectorEnv`, the tournament runner and the conformance kit all seat it: each game's state goes
into a one-game view whose only reader is `uno_env.text.prompt` (`uno_env.render.table_view` and the seat's own
observation), so the agent never reads what its seat cannot see; `prompts(...)` gives the prompts it would be
asked, which `uno_env.testing.check_agent` compares in redealt worlds.

Each decision leaves a transcript (`last_details`, one per game of the last call; with `keep_transcript=True`,
`transcript` for every decision, which grows with every game): ``{"text": {"format", "prompt", "attempts":
[{"reply", "move", "error"}], "action", "fallback"}}``, the form a game record's `details` take
(`uno_env.records`); the tournament runner writes it into the records of the games it saves. A stored reply
longer than `MAX_STORED_REPLY` characters keeps its first and last parts.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from uno_env import text as T
from uno_env.game import GameBatch

__all__ = ["DEFAULT_RETRIES", "MAX_STORED_REPLY", "TextAgent", "usage_line"]

#: the token counts a model may keep (`OpenAIChat` sums them from the usage of each chat reply)
TOKEN_COUNTS = ("prompt_tokens", "completion_tokens")

#: how many times a text agent asks again after a reply that names no legal move (then it falls back)
DEFAULT_RETRIES = 2
#: the most characters of a reply kept in a transcript (the first 2,000 and the last ones)
MAX_STORED_REPLY = 8_000
_HEAD = 2_000
#: the most characters of a refused reply quoted back to the model when it is asked again
MAX_QUOTED_REPLY = 300


def stored_reply(reply: str) -> str:
    """A reply as a transcript keeps it: whole up to `MAX_STORED_REPLY` characters, else its first 2,000 and its
    last characters around a note of what was left out."""
    if len(reply) <= MAX_STORED_REPLY:
        return reply
    tail = MAX_STORED_REPLY - _HEAD
    return f"{reply[:_HEAD]}\n[... {len(reply) - _HEAD - tail} characters left out ...]\n{reply[-tail:]}"


def retry_prompt(prompt: str, reply: str, error: str, count: int) -> str:
    """The prompt of a second attempt: the first prompt, the refused reply (its end) and why it was refused."""
    quoted = reply.strip()[-MAX_QUOTED_REPLY:] or "(nothing)"
    return (
        f'{prompt}\n\nYour previous reply was not accepted: {error}. It ended: "{quoted}"\n'
        f"Answer again, ending with a line 'MOVE: <number>' (1 to {count})."
    )


class TextAgent:
    """A seat played by `model`, a callable prompt (str) -> reply (str); see the module docstring.

    `retries`: the attempts after the first (0 to 10); `name`: its label in tournaments and records (default:
    the model's `name`, else "text"); `concurrency`: how many of a batch's games are asked at once, in threads
    (a local chat server answers several requests together; the model must be thread-safe, and a model whose
    reply depends only on its prompt plays the same games as one at a time);
    `keep_transcript`: keep every decision's details in `transcript` (off: a long tournament would fill memory;
    the runner saves its sample games' details from `last_details`); `ask_forced`: ask the model even when its
    seat has one legal move (by default that move is played unasked, and its details have no attempts)."""

    observation = "minimal"  # unused: the agent reads the game through `uno_env.text`

    def __init__(
        self,
        model: Callable[[str], str],
        *,
        retries: int = DEFAULT_RETRIES,
        name: str | None = None,
        concurrency: int = 1,
        keep_transcript: bool = False,
        ask_forced: bool = False,
    ):
        if not callable(model):
            raise TypeError(f"model must be a callable prompt (str) -> reply (str), got {type(model).__name__}")
        if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= 10:
            raise ValueError(f"retries must be an int from 0 to 10, got {retries!r}")
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or not 1 <= concurrency <= 256:
            raise ValueError(f"concurrency must be an int from 1 to 256, got {concurrency!r}")
        self.model = model
        self.retries = retries
        self.name = name if name is not None else str(getattr(model, "name", "text"))
        self.concurrency = concurrency
        self.keep_transcript = keep_transcript
        self.ask_forced = bool(ask_forced)
        self.rules = None
        self._views: dict[bytes, GameBatch] = {}
        self.decisions = 0  # decisions made
        self.asked = 0  # decisions the model was asked about (not those with one legal move)
        self.fallbacks = 0  # decisions where every attempt failed and the fallback was played
        self.retried = 0  # attempts after a first one
        self.prompt_chars = 0  # characters of every prompt sent (retries included)
        self.reply_chars = 0  # characters of every reply received
        self._tokens_before = self._server_tokens()  # the model's own count (a chat server's usage) when seated
        self.last_details: list[dict[str, Any]] = []
        self.transcript: list[dict[str, Any]] = []

    def __repr__(self) -> str:
        return f"TextAgent({self.name!r}, retries={self.retries})"

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_views"] = {}  # made again on demand
        return state

    # ------------------------------------------------------------------ the agent protocol
    def bind(self, spec, rules) -> None:
        """Learn the rules (the prompt's brief and the views of the games need them)."""
        self.rules = rules
        self._views.clear()

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        raise TypeError(
            f"{self.name} reads the table as its seat sees it and cannot act from observations alone: seat it "
            "through uno-arena, uno-play, uno-web, UnoVectorEnv or check_agent, which call act_in_games, or ask it "
            "for one decision of a Game with decide(game)"
        )

    def act_in_games(self, state, config, games, observations, action_masks) -> np.ndarray:
        """One action per game of `games` (engine state `state`, left unchanged; config `config`)."""
        views = [self._view(state, config, g) for g in np.asarray(games, np.int64)]
        if self.concurrency > 1 and len(views) > 1:
            with ThreadPoolExecutor(min(self.concurrency, len(views))) as pool:
                decided = list(pool.map(self._decide_view, views))
        else:
            decided = [self._decide_view(view) for view in views]
        self._note([details for _, details in decided])
        return np.array([action for action, _ in decided], np.int64)

    def prompts(self, state, config, games) -> list[str]:
        """The prompts the agent would be asked first for `games` of the engine state `state` (what the
        conformance kit compares between worlds its seats cannot tell apart)."""
        prompts = []
        for g in np.asarray(games, np.int64):
            view = self._view(state, config, g)
            prompts.append(T.prompt(view, int(view.state_array["seat"][0])))
        return prompts

    # ------------------------------------------------------------------ one decision
    def decide(self, game, seat: int | None = None) -> int:
        """The action id for `seat`'s decision (default: the deciding seat) in a `Game` (or a one-game
        `GameBatch`); its details are `last_details[0]`."""
        seat = int(getattr(game, "batch", game).state_array["seat"][0]) if seat is None else int(seat)
        action, details = self._decide(game, seat)
        self._note([details])
        return action

    def play_fallback(self, game, seat: int | None = None) -> int:
        """The fallback for `seat`'s decision (default: the deciding seat) in a `Game`, without asking the model:
        for a table whose model failed and a person chose to go on. Counted in `fallbacks`; its details (in
        `last_details[0]`) have no attempts."""
        seat = int(getattr(game, "batch", game).state_array["seat"][0]) if seat is None else int(seat)
        moves = T.legal_moves(game, seat)
        action = moves[0].action  # the first move of the list, as when every attempt failed
        details = {"text": {"format": T.PROMPT_FORMAT, "prompt": T.prompt(game, seat), "attempts": [],
                            "action": int(action), "fallback": True}}  # fmt: skip
        self._note([details])
        return int(action)

    def _view(self, state, config, g: int) -> GameBatch:
        """A one-game batch holding game `g` of `state`: what `uno_env.text.prompt` reads (table_view and the
        deciding seat's own observation), never anything else."""
        if self.rules is None:
            raise RuntimeError(f"{self.name} must be bound to a game first (bind(spec, rules))")
        key = config.tobytes()
        view = self._views.get(key)
        if view is None:
            c = config[0]
            episode = "match" if c["match"] else "round"
            view = GameBatch(self.rules, int(c["num_players"]), 1, episode=episode, max_steps=int(c["max_steps"]))
            view.config_array[:] = config[:1]
            self._views = {key: view}  # one config at a time
        else:
            view = view.copy()  # each game its own view (threads)
        view.state_array[0] = state[g]
        return view

    def _decide_view(self, view: GameBatch) -> tuple[int, dict[str, Any]]:
        return self._decide(view, int(view.state_array["seat"][0]))

    def _decide(self, game, seat: int) -> tuple[int, dict[str, Any]]:
        """Ask, read, ask again (`retries`), fall back: the action and the decision's details."""
        first = T.prompt(game, seat)
        moves = T.legal_moves(game, seat)
        attempts = []
        asked = first
        action = moves[0].action if len(moves) == 1 and not self.ask_forced else None
        for attempt in range(self.retries + 1 if action is None else 0):
            reply = self.model(asked)
            if not isinstance(reply, str):
                raise TypeError(f"{self.name}: the model must reply with a str, got {type(reply).__name__}")
            self.prompt_chars += len(asked)
            self.reply_chars += len(reply)
            self.retried += attempt > 0
            action, error = T.read_reply(reply, moves)
            attempts.append({"reply": stored_reply(reply), "move": action, "error": error or None})
            if action is not None:
                break
            asked = retry_prompt(first, reply, error, len(moves))
        fallback = action is None
        if fallback:
            action = moves[0].action  # the first move of the list: the legal action with the lowest id
        details = {"text": {"format": T.PROMPT_FORMAT, "prompt": first, "attempts": attempts, "action": int(action),
                            "fallback": fallback}}  # fmt: skip
        return int(action), details

    def _note(self, details: list[dict[str, Any]]) -> None:
        self.last_details = details
        self.decisions += len(details)
        self.asked += sum(bool(d["text"]["attempts"]) for d in details)
        self.fallbacks += sum(d["text"]["fallback"] for d in details)
        if self.keep_transcript:
            self.transcript.extend(details)

    def _server_tokens(self) -> dict[str, int] | None:
        """The model's own token counts (`prompt_tokens`, `completion_tokens`: the usage a chat server reported,
        as `OpenAIChat` sums it), or None when the model counts none."""
        counts = {key: getattr(self.model, key, None) for key in TOKEN_COUNTS}
        if all(isinstance(value, int) and not isinstance(value, bool) for value in counts.values()):
            return counts  # type: ignore[return-value]
        return None

    def stats(self) -> dict[str, int]:
        """What the agent has done so far: decisions, those it asked the model about, fallbacks, attempts after a
        first one, characters sent and received, and when its model counts them (a chat server's usage) the tokens
        the server counted since the agent was made: `prompt_tokens`, `completion_tokens`."""
        stats = {"decisions": self.decisions, "asked": self.asked, "fallbacks": self.fallbacks, "retried": self.retried,
                 "prompt_chars": self.prompt_chars, "reply_chars": self.reply_chars}  # fmt: skip
        now, before = self._server_tokens(), self._tokens_before
        if now is not None and before is not None:
            stats.update({key: now[key] - before[key] for key in TOKEN_COUNTS})
        return stats


def usage_line(label: str, stats: dict[str, int]) -> str:
    """A text agent's `stats()` in one line for a summary: its decisions and fallbacks, and its tokens as the chat
    server counted them (characters only when the model reports no usage)."""
    line = (f"text agent {label}: {stats['decisions']:,} decisions, {stats['fallbacks']:,} fallbacks (no legal move "
            f"named; {stats['retried']:,} retries), ")  # fmt: skip
    if "prompt_tokens" in stats:
        return line + (f"{stats['prompt_tokens']:,} prompt and {stats['completion_tokens']:,} completion tokens "
                       "(the server's count)")  # fmt: skip
    return line + f"{stats['prompt_chars']:,} prompt characters (the model reports no token usage)"
