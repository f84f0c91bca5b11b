"""Checks at the boundary: every value a caller hands the public API is checked here, once, before any state
changes and before it can reach compiled code (which trusts its inputs: an index out of range there reads or
writes outside the arrays).

One helper per kind of value. Each returns the value as the engine takes it, or raises `WrongTypeError` (the
wrong kind of value) or a ValueError (the right kind, out of range) whose message says what is allowed:

| helper         | allows                                                                                     |
|----------------|--------------------------------------------------------------------------------------------|
| `seed`         | an int from 0 to 2**64 - 1 (an integral numpy scalar too); not a bool, float or string    |
| `seeds`        | one seed (game g then gets seed + g, modulo 2**64) or an integer array of shape (batch,) of seeds |
| `action_id`    | an int from 0 to 76 (`actions.NUM_ACTIONS` - 1); floats and strings are not action ids   |
| `action_batch` | an integer array of shape (batch,), each an action id, or -1 (leave that game alone) where allowed |
| `index`        | an int from 0 to size - 1: a game of a batch, a seat                                        |
| `positive_int` | an int from 1 (to an upper bound where the engine has one): batch sizes, step budgets        |
| `game_mask`    | a bool array of shape (batch,)                                                              |

An action id out of range raises `IllegalActionError` (a ValueError): no game has it among its legal actions.
Playing a game before its first reset raises `NotResetError` (an IllegalActionError: nothing is legal there yet).
Numpy integer scalars and 0-d integer arrays count as ints everywhere; bools never do.

The limits of a game's settings are defined here once, for the game, its records and the command line:
`SEED_LIMIT`, `EPISODES`, `MAX_STEPS_LIMIT` and `DEAL_KEYS` (the keys of a dealt scenario, `uno_env.game`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .actions import NUM_ACTIONS

SEED_LIMIT = 2**64  # seeds are uint64: from 0 to SEED_LIMIT - 1
EPISODES = ("round", "match")  # what an episode is: one round, or a match to the target score
MAX_STEPS_LIMIT = 2**31 - 1  # the engine counts decisions in an int32
DEAL_KEYS = ("dealer", "hands", "top", "deck", "foreheads", "scores")  # a dealt scenario's keys (`uno_env.game`)
ACTION_RANGE = f"from 0 to {NUM_ACTIONS - 1}"


class IllegalActionError(ValueError):
    """An action that is not legal now (or no action id at all); the game is left exactly as it was."""


class NotResetError(IllegalActionError):
    """A game or env played before its first reset: nothing is dealt, so no action is legal there yet."""


class WrongTypeError(TypeError, ValueError):
    """A value of the wrong kind (a float or string where an int is needed, ...). It is a TypeError, and a
    ValueError too, so that callers who catch the ValueError of any refused argument catch it as well."""


def _shown(value: Any) -> str:
    """`value` for an error message: its repr (cut short) and its type."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def integral(value: Any) -> int | None:
    """`value` as a Python int if it is an integer (int, numpy integer, 0-d integer array), else None.

    Bools are not integers here, nor are floats with an integral value."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu":
        return int(value)
    return None


def _int_in(value: Any, low: int, high: int | None, wrong: str, out: str, error: type[ValueError] = ValueError) -> int:
    """`value` (an integer, `integral`) as an int from `low` to `high` - 1 (no upper bound where `high` is None);
    refused with `WrongTypeError(f"{wrong}, got <value>")` when it is no integer, `error(f"{out}, got <number>")`
    when it is out of range."""
    number = integral(value)
    if number is None:
        raise WrongTypeError(f"{wrong}, got {_shown(value)}")
    if number < low or (high is not None and number >= high):
        raise error(f"{out}, got {number}")
    return number


# ----------------------------------------------------------------------------------------- seeds


def seed(value: Any, name: str = "seed") -> int:
    """A seed: an int from 0 to 2**64 - 1."""
    allowed = f"{name} must be an int from 0 to 2**64 - 1"
    return _int_in(value, 0, SEED_LIMIT, allowed, allowed)


def _is_array_like(value: Any) -> bool:
    return isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim > 0)


def seeds(value: Any, size: int, name: str = "seeds") -> np.ndarray:
    """uint64 seeds of a batch of `size` games: one seed s (game g gets s + g, modulo 2**64) or `size` seeds."""
    if not _is_array_like(value):
        first = seed(value, name)
        return np.uint64(first) + np.arange(size, dtype=np.uint64)  # uint64 arithmetic: wraps modulo 2**64
    allowed = f"{name} must be an int from 0 to 2**64 - 1 or an array of shape ({size},) of them"
    if isinstance(value, (list, tuple)):
        if len(value) != size:
            raise ValueError(f"{allowed}, got {len(value)} seeds")
        return np.array([seed(x, name) for x in value], dtype=np.uint64)
    if value.shape != (size,):
        raise ValueError(f"{allowed}, got shape {value.shape}")
    kind = value.dtype.kind
    if kind == "O":
        return np.array([seed(x, name) for x in value], dtype=np.uint64)
    if kind not in "iu":
        raise WrongTypeError(f"{allowed}, got an array of dtype {value.dtype}")
    if kind == "i" and size and value.min() < 0:
        raise ValueError(f"{allowed}, got {int(value.min())}")
    return value.astype(np.uint64)


# --------------------------------------------------------------------------------------- actions


def action_id(value: Any, name: str = "action") -> int:
    """An action id: an int from 0 to 76."""
    if type(value) is int and 0 <= value < NUM_ACTIONS:  # the common case, fast
        return value
    wrong, out = f"{name} must be an action id, an int {ACTION_RANGE}", f"{name} id must be an int {ACTION_RANGE}"
    return _int_in(value, 0, NUM_ACTIONS, wrong, out, IllegalActionError)


def action_batch(
    value: Any, size: int, *, noop: bool = False, who: str = "", games: np.ndarray | None = None
) -> np.ndarray:
    """int64 action ids of a batch of `size` games: each an action id, or -1 (leave the game alone) with `noop`.

    A refusal names who acts (`who`, a prefix such as "learner") and the game: `games[i]` for row i when given."""
    prefix = f"{who}: " if who else ""
    allowed = f"an integer array of shape ({size},) of action ids {ACTION_RANGE}" + (
        " or -1 (leave that game as it is)" if noop else ""
    )
    low = -1 if noop else 0
    if isinstance(value, np.ndarray) and value.ndim > 0 and value.dtype.kind in "iu":
        if value.shape != (size,):
            raise ValueError(f"{prefix}actions must have shape ({size},), got {value.shape}")
        if size and (value.min() < low or value.max() >= NUM_ACTIONS):
            row = int(np.flatnonzero((value < low) | (value >= NUM_ACTIONS))[0])
            raise IllegalActionError(_out_of_range(prefix, int(value[row]), row, games, noop))
        return value.astype(np.int64, copy=False)
    if isinstance(value, np.ndarray) and value.ndim > 0 and value.dtype.kind != "O":
        raise WrongTypeError(f"{prefix}actions must be {allowed}, got an array of dtype {value.dtype}")
    if not isinstance(value, (list, tuple, np.ndarray)):
        raise WrongTypeError(f"{prefix}actions must be {allowed}, got {_shown(value)}")
    ids = []
    for x in value.tolist() if isinstance(value, np.ndarray) else value:
        number = integral(x)
        if number is None:
            raise WrongTypeError(f"{prefix}actions must be {allowed}; got {_shown(x)} among them")
        ids.append(number)
    shape = value.shape if isinstance(value, np.ndarray) else (len(ids),)
    if shape != (size,):
        raise ValueError(f"{prefix}actions must have shape ({size},), got {shape}")
    for row, number in enumerate(ids):
        if not low <= number < NUM_ACTIONS:
            raise IllegalActionError(_out_of_range(prefix, number, row, games, noop))
    return np.array(ids, dtype=np.int64).reshape(size)


def _out_of_range(prefix: str, number: int, row: int, games: np.ndarray | None, noop: bool) -> str:
    game = int(games[row]) if games is not None else row
    also = ", or -1 to leave a game as it is" if noop else ""
    return f"{prefix}illegal action 'id {number}' in game {game} (action ids are {ACTION_RANGE}{also})"


# -------------------------------------------------------------------------------- indices, sizes


def index(value: Any, size: int, name: str = "game") -> int:
    """An index from 0 to size - 1 (a game of a batch, a seat); negative indices are refused, not wrapped."""
    if type(value) is int and 0 <= value < size:  # the common case, fast
        return value
    last = size - 1
    return _int_in(value, 0, size, f"{name} must be an int from 0 to {last}", f"{name} must be from 0 to {last}")


def positive_int(value: Any, name: str, high: int | None = None) -> int:
    """An int from 1 (to `high`, where given: the engine's counters have one)."""
    allowed = f"{name} must be " + ("a positive int" if high is None else f"a positive int (at most {high:_})")
    return _int_in(value, 1, None if high is None else high + 1, allowed, allowed)


def game_mask(value: Any, size: int, name: str = "which") -> np.ndarray:
    """A bool array of shape (size,): which games of a batch."""
    array = np.asarray(value) if isinstance(value, (list, tuple, np.ndarray)) else None
    if array is None or array.dtype.kind != "b":
        shown = f"an array of dtype {array.dtype}" if array is not None else _shown(value)
        raise WrongTypeError(f"{name} must be a bool array of shape ({size},), got {shown}")
    if array.shape != (size,):
        raise ValueError(f"{name} must be a bool array of shape ({size},), got shape {array.shape}")
    return array
