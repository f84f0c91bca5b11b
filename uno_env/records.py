"""Game records: a game as plain JSON data (its rules, seed or dealt scenario and every action id in order), so
that it can be saved, shared, replayed decision by decision and shown (`uno_env.replay`).

A record is a dict that `json.dumps` as it is:

| key           | value                                                                                       |
|---------------|---------------------------------------------------------------------------------------------|
| `format`      | `"uno-env-record"`                                                                          |
| `version`     | `1`                                                                                         |
| `variant`     | the variant: which preset of rules (`uno_env.VARIANTS`)                                     |
| `options`     | rule options by name (`uno_env.rules.OPTIONS`): see below                                    |
| `num_players` | 2 to 10                                                                                     |
| `episode`     | `"round"` or `"match"`                                                                      |
| `max_steps`   | the decisions before the game is cut off (truncated)                                        |
| `seed`        | the episode's seed, 0 to 2**64 - 1 (with a `deal`, it shuffles the cards the deal leaves)   |
| `deal`        | the dealt scenario (`uno_env.game`'s `deal=`), or null for a shuffled deal                 |
| `actions`     | every decision's action id (0 to 76, `uno_env.actions`), in order                          |
| `agents`      | one name per seat (who played it), or null                                                  |
| `details`     | one dict (or null) per decision, e.g. `{"probabilities": {"play R5": 0.7, ...}}`, or null  |
| `result`      | `{"scores", "winners", "done", "truncated"}` after the last action, or null; checked on replay |
| `meta`        | optional: free-form information about where the record came from (a dict)                 |

A text agent's decision (`uno_env.agents.TextAgent`) has the details `{"text": {"format", "prompt", "attempts",
"action", "fallback"}}`: the prompt format (`uno_env.text.PROMPT_FORMAT`), the prompt it was asked, each reply with the
move read from it (an action id, or null) and why it was refused (or null), the action played and whether it was the
fallback. Such a transcript replays with the game (`uno_env.replay` shows a decision's details to its own seat).
Details obey the limits of every field: JSON data, nested at most `MAX_DEPTH` levels (a text agent keeps at most
8,000 characters of a reply, `uno_env.agents.text_agent.MAX_STORED_REPLY`).

`make_record` writes every rule option, `card_counts` and `card_points` as full `{card code: n}` dicts of all 59
kinds, so that a record replays the same whatever the variants' defaults become; an option a record leaves out
takes the variant's default.

A record is data from a file: `load_record` reads it with `json` only (never eval or pickle) and `check_record`
checks every field before anything is built from it; a `RecordError` (a ValueError) says what is wrong.
`play_record(game, record)` steps a game made from the record (`Game(**game_settings(record))`) through its
actions, refusing an action that is not legal at its point and a result that differs;
`Game.from_record(record)` (`uno_env.replay.replay`) does both and returns the `Game`.

The limits a record is checked against are the game's own, defined once in `uno_env.validate` (the episode
kinds, the deal's keys, the step and seed limits) and imported, never restated. This module imports nothing from
`uno_env.game` (the `Game` face builds its records with it).
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from . import actions as A
from . import cards as C
from .rules import MAX_PLAYERS, MIN_PLAYERS, OPTION_BY_NAME, OPTION_NAMES, OPTIONS, VARIANTS, RuleSet, make_rules
from .validate import DEAL_KEYS, EPISODES, MAX_STEPS_LIMIT, SEED_LIMIT

FORMAT = "uno-env-record"
VERSION = 1
#: the most actions a record holds: random play's longest games (128 of each variant, 2 and 10 players) took 7,672
#: decisions for a round and 26,410 for a 2-player match to 500; a game cut off at the default max_steps takes
#: 10,000. A record of 100,000 actions is about 600 KB of JSON.
MAX_RECORD_ACTIONS = 100_000
MAX_DEPTH = 32  # how deeply `details` and `meta` may nest lists and dicts
RESULT_KEYS = ("scores", "winners", "done", "truncated")
#: the keys of a record, in the order `make_record` writes them (`meta` is optional)
KEYS = (
    "format", "version", "variant", "options", "num_players", "episode", "max_steps", "seed", "deal", "actions",
    "agents", "details", "result", "meta",
)  # fmt: skip
REQUIRED_KEYS = KEYS[:-1]


JSON_DATA = "JSON data (dicts, lists, strings, numbers, true/false, null)"


class RecordError(ValueError):
    """A record that is not a valid game record, or that does not replay (an illegal action, another result)."""


# ------------------------------------------------------------------------------------------------ plain data


def _kind(value: Any) -> str:
    if isinstance(value, _LongNumber):
        return f"more than Python's {_digit_limit()}"
    return "null" if value is None else type(value).__name__


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _LongNumber:
    """A JSON number of more digits than Python reads as an int (`sys.get_int_max_str_digits`): kept as its length
    so that the check of its field refuses it by name."""

    def __init__(self, digits: int):
        self.digits = digits

    def __repr__(self) -> str:
        return f"a number of {self.digits} digits"


def _parse_int(text: str) -> int | _LongNumber:
    limit = sys.get_int_max_str_digits()
    return _LongNumber(len(text)) if limit and len(text.lstrip("-")) > limit else int(text)


def _check_text(value: str, where: str) -> str:
    """Refuse a string that is not Unicode text (a lone surrogate such as "\\ud800": valid JSON, but no UTF-8
    file can hold it)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise RecordError(
            f"{where} must be Unicode text, got a lone surrogate {value[error.start]!r} at character {error.start}"
        ) from None
    return value


def _plain(value: Any, where: str, depth: int = 0) -> Any:
    """`value` as JSON data (dicts with string keys, lists, strings, ints, finite floats, bools, None); numpy
    scalars and arrays and tuples are converted; anything else is refused."""
    if depth > MAX_DEPTH:
        raise RecordError(f"{where} is nested too deeply (at most {MAX_DEPTH} levels)")
    if isinstance(value, str):
        return _check_text(value, where)
    if value is None or isinstance(value, bool):
        return value
    if _is_int(value):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise RecordError(f"{where} must hold finite numbers, got {value!r}")
        return float(value)
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise RecordError(f"{where} must have string keys, got {key!r}")
            _check_text(key, f"a key of {where}")
            out[key] = _plain(item, f"{where}[{key!r}]", depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(item, f"{where}[{i}]", depth + 1) for i, item in enumerate(value)]
    tolist = getattr(value, "tolist", None)  # numpy scalars and arrays
    if tolist is not None and type(value).__module__ == "numpy":
        return _plain(tolist(), where, depth)
    raise RecordError(f"{where} must be {JSON_DATA}, got {_kind(value)}")


def _check_json(value: Any, where: str, depth: int = 0) -> None:
    """Refuse anything in `value` that is not JSON data as `json.loads` makes it."""
    if depth > MAX_DEPTH:
        raise RecordError(f"{where} is nested too deeply (at most {MAX_DEPTH} levels)")
    if isinstance(value, str):
        _check_text(value, where)
        return
    if value is None or isinstance(value, bool) or _is_int(value):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise RecordError(f"{where} must hold finite numbers, got {value!r}")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise RecordError(f"{where} must have string keys, got {key!r}")
            _check_text(key, f"a key of {where}")
            _check_json(item, f"{where}[{key!r}]", depth + 1)
        return
    if isinstance(value, list):
        for i, item in enumerate(value):
            _check_json(item, f"{where}[{i}]", depth + 1)
        return
    if isinstance(value, _LongNumber):
        raise RecordError(f"{where} must be {JSON_DATA}, got {value!r} ({_kind(value)})")
    raise RecordError(f"{where} must be {JSON_DATA}, got {_kind(value)}")


def _digit_limit() -> str:
    return f"{sys.get_int_max_str_digits()} digits"


# --------------------------------------------------------------------------------------------- making one


def option_values(rules: RuleSet) -> dict[str, Any]:
    """Every rule option of `rules` as a record writes it: `card_counts`/`card_points` as {code: n} of all kinds."""
    values = {}
    for option in OPTIONS:
        value = getattr(rules, option.name)
        if option.kind == "cards":
            value = {code: int(n) for code, n in zip(rules.codes, value, strict=True)}
        elif option.kind == "rate":
            value = float(value)
        elif option.kind == "int":
            value = int(value)
        elif option.kind == "bool":
            value = bool(value)
        values[option.name] = value
    return values


def make_record(
    rules: RuleSet | str,
    num_players: int,
    actions: Sequence[int],
    *,
    seed: int,
    deal: dict | None = None,
    episode: str = "round",
    max_steps: int = 10_000,
    agents: Sequence[str] | None = None,
    details: Sequence[dict | None] | None = None,
    result: dict | None = None,
    meta: dict | None = None,
) -> dict[str, Any]:
    """The record of a game: `rules` (a RuleSet, or a variant name for its defaults), the player count, the
    action ids applied since the deal in order, the episode's `seed` and `deal` (None: a shuffled deal), the
    episode kind and step limit, optionally the agents' names per seat, one details dict per decision, the
    `result` after the last action (`result_of(game)`; replay checks it) and `meta` (free-form). The record is
    checked (`check_record`) before it is returned; a RecordError says what is wrong."""
    if isinstance(rules, str):
        if rules not in VARIANTS:
            raise RecordError(f"unknown variant {rules!r}; the variants are {', '.join(VARIANTS)}")
        rules = make_rules(rules)
    if not isinstance(rules, RuleSet):
        raise RecordError(f"rules must be a RuleSet or a variant name, got {_kind(rules)}")
    options = option_values(rules)
    try:
        same = make_rules(rules.variant, **options) == rules
    except ValueError:  # card codes in colours the variant does not have
        same = False
    if not same:
        raise RecordError(
            f"this rule set is not one make_rules({rules.variant!r}, ...) makes (its colours are {rules.colors}), "
            "so a record cannot hold it"
        )
    record = {
        "format": FORMAT,
        "version": VERSION,
        "variant": rules.variant,
        "options": options,
        "num_players": _plain(num_players, "num_players"),
        "episode": episode,
        "max_steps": _plain(max_steps, "max_steps"),
        "seed": _plain(seed, "seed"),
        "deal": _plain(deal, "deal"),
        "actions": _plain(list(actions) if not isinstance(actions, (str, dict)) else actions, "actions"),
        "agents": _plain(list(agents) if agents is not None and not isinstance(agents, str) else agents, "agents"),
        "details": _plain(details, "details"),
        "result": _plain(result, "result"),
    }
    if meta is not None:
        record["meta"] = _plain(meta, "meta")
    return check_record(record)


def result_of(game: Any) -> dict[str, Any]:
    """The `result` field of a record for a game (a `Game`, or anything with its `describe()`): scores, winners,
    done and truncated after the last action."""
    d = game.describe()
    return {
        "scores": [int(x) for x in d["scores"]],
        "winners": [int(x) for x in d["winners"]],
        "done": bool(d["done"]),
        "truncated": bool(d["truncated"]),
    }


# ---------------------------------------------------------------------------------------------- checking


def _int_field(record: dict, key: str, low: int, high: int, allowed: str) -> int:
    value = record[key]
    if not _is_int(value):
        raise RecordError(f"record[{key!r}] must be {allowed}, got {value!r} ({_kind(value)})")
    if not low <= value <= high:
        raise RecordError(f"record[{key!r}] must be {allowed}, got {value}")
    return value


def _card_list(value: Any, where: str, colors: tuple[str, ...]) -> None:
    if not isinstance(value, list):
        raise RecordError(f"{where} must be a list of card codes, got {_kind(value)}")
    for i, code in enumerate(value):
        _card(code, f"{where}[{i}]", colors)


def _card(code: Any, where: str, colors: tuple[str, ...]) -> None:
    if not isinstance(code, str):
        raise RecordError(f"{where} must be a card code (a string), got {code!r} ({_kind(code)})")
    try:
        C.parse_card(code, colors)
    except ValueError as error:
        raise RecordError(f"{where}: {error}") from None


def _check_deal(deal: Any, n: int, colors: tuple[str, ...]) -> None:
    """The shape and types of a dealt scenario; the game checks the rest (enough cards, ...) when it deals it."""
    if not isinstance(deal, dict):
        raise RecordError(f"record['deal'] must be null or a dict with keys {', '.join(DEAL_KEYS)}, got {_kind(deal)}")
    unknown = sorted(set(deal) - set(DEAL_KEYS))
    if unknown:
        raise RecordError(
            f"record['deal'] has unknown key(s) {', '.join(unknown)}; the keys are {', '.join(DEAL_KEYS)}"
        )
    for key in ("dealer", "hands"):
        if key not in deal:
            raise RecordError(f"record['deal'] needs '{key}'")
    if not _is_int(deal["dealer"]) or not 0 <= deal["dealer"] < n:
        raise RecordError(f"record['deal']['dealer'] must be a seat from 0 to {n - 1}, got {deal['dealer']!r}")
    for key in ("hands", "foreheads"):
        if key in deal:
            seats = deal[key]
            if not isinstance(seats, list) or len(seats) != n:
                raise RecordError(f"record['deal'][{key!r}] must be a list of {n} lists of card codes (one per seat)")
            for seat, cards in enumerate(seats):
                _card_list(cards, f"record['deal'][{key!r}][{seat}]", colors)
    if deal.get("top") is not None:
        _card(deal["top"], "record['deal']['top']", colors)
    if "deck" in deal:
        _card_list(deal["deck"], "record['deal']['deck']", colors)
    if "scores" in deal:
        scores = deal["scores"]
        if not isinstance(scores, list) or len(scores) != n or not all(_is_int(x) and x >= 0 for x in scores):
            raise RecordError(f"record['deal']['scores'] must be a list of {n} ints >= 0")


def _check_result(result: Any, n: int) -> None:
    if not isinstance(result, dict):
        raise RecordError(
            f"record['result'] must be null or a dict with keys {', '.join(RESULT_KEYS)}, got {_kind(result)}"
        )
    if set(result) != set(RESULT_KEYS):
        raise RecordError(
            f"record['result'] must have exactly the keys {', '.join(RESULT_KEYS)}, got {', '.join(sorted(result))}"
        )
    scores, winners = result["scores"], result["winners"]
    if not isinstance(scores, list) or len(scores) != n or not all(_is_int(x) for x in scores):
        raise RecordError(f"record['result']['scores'] must be a list of {n} ints (one per seat), got {scores!r}")
    if (
        not isinstance(winners, list)
        or not all(_is_int(w) and 0 <= w < n for w in winners)
        or winners != sorted(set(winners))
    ):
        raise RecordError(
            f"record['result']['winners'] must be a sorted list of distinct seats 0 to {n - 1}, got {winners!r}"
        )
    for key in ("done", "truncated"):
        if not isinstance(result[key], bool):
            raise RecordError(f"record['result'][{key!r}] must be true or false, got {result[key]!r}")


def check_record(record: Any) -> dict[str, Any]:
    """Refuse anything that is not a valid record (see the module docstring) with a RecordError that says what
    and where; return the record. It checks the form, types and ranges of every field and the rules (as
    `make_rules` does); whether each action is legal at its point is checked by replaying (`play_record`)."""
    if not isinstance(record, dict):
        raise RecordError(f"a game record must be a dict (a JSON object), got {_kind(record)}")
    if record.get("format") != FORMAT:
        raise RecordError(f"not a game record: record['format'] must be {FORMAT!r}, got {record.get('format')!r}")
    version = record.get("version")
    if not _is_int(version) or version != VERSION:
        raise RecordError(f"unsupported record version {version!r}: this uno-env reads version {VERSION}")
    unknown = sorted(set(record) - set(KEYS))
    if unknown:
        raise RecordError(f"unknown record key(s) {', '.join(map(repr, unknown))}; the keys are {', '.join(KEYS)}")
    missing = [key for key in REQUIRED_KEYS if key not in record]
    if missing:
        raise RecordError(f"the record lacks {', '.join(map(repr, missing))} (use null where a field is empty)")
    variant = record["variant"]
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise RecordError(f"record['variant'] must be one of {', '.join(VARIANTS)}, got {variant!r}")
    n = _int_field(record, "num_players", MIN_PLAYERS, MAX_PLAYERS, f"an int from {MIN_PLAYERS} to {MAX_PLAYERS}")
    if not isinstance(record["episode"], str) or record["episode"] not in EPISODES:
        raise RecordError(f"record['episode'] must be 'round' or 'match', got {record['episode']!r}")
    max_steps = _int_field(record, "max_steps", 1, MAX_STEPS_LIMIT, f"an int from 1 to {MAX_STEPS_LIMIT}")
    _int_field(record, "seed", 0, SEED_LIMIT - 1, "an int from 0 to 2**64 - 1")
    rules = record_rules(record, checked=True)
    colors = rules.colors
    if record["deal"] is not None:
        _check_deal(record["deal"], n, colors)
    actions = record["actions"]
    if not isinstance(actions, list):
        raise RecordError(f"record['actions'] must be a list of action ids, got {_kind(actions)}")
    if len(actions) > max_steps:
        raise RecordError(f"record['actions'] holds {len(actions)} actions, more than max_steps ({max_steps}) allows")
    if len(actions) > MAX_RECORD_ACTIONS:
        raise RecordError(
            f"record['actions'] holds {len(actions)} actions; a record holds at most {MAX_RECORD_ACTIONS:,} "
            "(the longest games of random play take about 26,000)"
        )
    for i, action in enumerate(actions):
        if not _is_int(action) or not 0 <= action < A.NUM_ACTIONS:
            raise RecordError(
                f"record['actions'][{i}] must be an action id, an int from 0 to {A.NUM_ACTIONS - 1}, got {action!r}"
            )
    agents = record["agents"]
    if agents is not None and (
        not isinstance(agents, list) or len(agents) != n or not all(isinstance(name, str) for name in agents)
    ):
        raise RecordError(f"record['agents'] must be null or a list of {n} names (one per seat), got {agents!r}")
    for seat, name in enumerate(agents or []):
        _check_text(name, f"record['agents'][{seat}]")
    details = record["details"]
    if details is not None:
        if not isinstance(details, list) or len(details) != len(actions):
            raise RecordError(
                f"record['details'] must be null or a list of one dict (or null) per action ({len(actions)}), "
                f"got {_kind(details)}" + (f" of {len(details)}" if isinstance(details, list) else "")
            )
        for i, item in enumerate(details):
            if item is not None and not isinstance(item, dict):
                raise RecordError(f"record['details'][{i}] must be a dict or null, got {_kind(item)}")
            _check_json(item, f"record['details'][{i}]")
    if record["result"] is not None:
        _check_result(record["result"], n)
    meta = record.get("meta")
    if meta is not None:
        if not isinstance(meta, dict):
            raise RecordError(f"record['meta'] must be null or a dict, got {_kind(meta)}")
        _check_json(meta, "record['meta']")
    return record


def record_rules(record: dict, *, checked: bool = False) -> RuleSet:
    """The rule set of a record (its variant and options, as `make_rules` takes them)."""
    if not checked:
        check_record(record)
        return record_rules(record, checked=True)
    options = record["options"]
    if not isinstance(options, dict):
        raise RecordError(f"record['options'] must be a dict of rule option name -> value, got {_kind(options)}")
    unknown = sorted(name for name in options if name not in OPTION_BY_NAME)
    if unknown:
        raise RecordError(
            f"record['options'] has unknown option(s) {', '.join(map(repr, unknown))}; the options are "
            f"{', '.join(OPTION_NAMES)}"
        )
    for name, value in options.items():
        if OPTION_BY_NAME[name].kind == "cards":
            if not isinstance(value, dict):
                raise RecordError(f"record['options'][{name!r}] must be a dict of card code -> int, got {_kind(value)}")
        else:
            _check_json(value, f"record['options'][{name!r}]")
    try:
        rules = make_rules(record["variant"], **options)
        rules.check_players(record["num_players"])
    except (ValueError, TypeError) as error:
        raise RecordError(f"record['options']: {error}") from None
    return rules


def game_settings(record: dict) -> dict[str, Any]:
    """The keyword arguments of `Game(**settings)` that deal a record's game (the record checked first)."""
    check_record(record)
    return {
        "rules": record_rules(record, checked=True),
        "num_players": record["num_players"],
        "seed": record["seed"],
        "deal": record["deal"],
        "episode": record["episode"],
        "max_steps": record["max_steps"],
    }


# --------------------------------------------------------------------------------------------- replaying


def play_record(game: Any, record: dict) -> Iterator[Any]:
    """Step `game`, freshly made from the record (``Game(**game_settings(record))``), through the record's actions:
    yields the game as dealt, then after each decision (the same object each time: copy it to keep a state).
    An action that is not legal at its point raises a RecordError naming it, its place and the legal ones; at the
    end, a result that differs from the record's raises one too."""
    check_record(record)
    names = game.action_names
    yield game
    for i, action in enumerate(record["actions"]):
        legal = game.legal_action_ids()
        if action not in legal:
            d = game.describe()
            if d["done"]:
                raise RecordError(
                    f"record['actions'][{i}] ({names[action]!r}) comes after the end of the episode "
                    f"(it ended after {i} decisions): the record is corrupt"
                )
            raise RecordError(
                f"record['actions'][{i}] ({names[action]!r}) is not legal at decision {i} (seat {d['seat']}, "
                f"phase {d['phase']!r}; legal: {', '.join(names[a] for a in legal)}): the record is corrupt or "
                "was made with other rules"
            )
        game.step(action)
        yield game
    expected = record["result"]
    if expected is not None:
        got = result_of(game)
        if got != expected:
            differ = ", ".join(f"{key} {got[key]!r} (the record says {expected[key]!r})" for key in RESULT_KEYS
                               if got[key] != expected[key])  # fmt: skip
            raise RecordError(f"the record's actions replay to another result: {differ}")


# ------------------------------------------------------------------------------------------------- files


def dumps_record(record: dict) -> str:
    """A record as JSON text: one top-level field a line (the actions on one line)."""
    check_record(record)
    fields = [
        f"  {json.dumps(key)}: {json.dumps(record[key], ensure_ascii=False, allow_nan=False)}"
        for key in KEYS
        if key in record
    ]
    return "{\n" + ",\n".join(fields) + "\n}\n"


def _refuse_constant(name: str) -> Any:
    raise RecordError(f"a record holds no {name}: only finite numbers")


def loads_record(text: str) -> dict[str, Any]:
    """A record from JSON text, checked (`check_record`)."""
    if not isinstance(text, str):
        raise RecordError(f"a record's text must be a str, got {_kind(text)}")
    try:
        record = json.loads(text, parse_constant=_refuse_constant, parse_int=_parse_int)
    except json.JSONDecodeError as error:
        raise RecordError(f"not a game record: not JSON ({error})") from None
    except RecursionError:
        raise RecordError("not a game record: JSON nested too deeply (a record nests at most 32 levels)") from None
    return check_record(record)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_NEW_FILE_MODE = 0o666 & ~_umask()  # what open(path, "w") would give a new file


def write_atomic(path: str | Path, data: str | bytes | Callable[[str], Any]) -> Path:
    """Write a file whole or not at all: `data` (text, written as UTF-8; bytes; or a function that writes the file
    at the path it is given) goes to a temporary file in the same folder, which then replaces `path` in one rename
    (`os.replace`). A failed write (an error, a full disk) leaves the old file as it was and no temporary file.
    Every uno_env writer of a file a user names uses it (records, replay pages, animations).

    A path that is not a regular file is never replaced: a FIFO or a character device (`/dev/null`, a terminal,
    or a link to one) is written in place; a folder, a block device or a socket is refused with an OSError whose
    one-line `strerror` says what is allowed."""
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data  # a str that is not text fails here
    try:
        kind = os.stat(path).st_mode  # through every link
    except FileNotFoundError:
        kind = None
    except OSError as error:  # a loop of links, a name too long ...
        raise OSError(error.errno, f"cannot save there: {error.strerror}", str(path)) from None
    if kind is not None and not stat.S_ISREG(kind):
        _write_special(path, kind, payload)
        return path
    target = path.resolve() if path.is_symlink() else path  # write through a link, keeping it
    mode = kind & 0o7777 if kind is not None else _NEW_FILE_MODE
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=f".tmp{target.suffix}")
    try:
        if isinstance(payload, (bytes, bytearray, memoryview)):
            with os.fdopen(handle, "wb") as file:
                file.write(payload)
                file.flush()
                os.fsync(file.fileno())
        else:
            os.close(handle)
            payload(temporary)
        os.chmod(temporary, mode)
        os.replace(temporary, target)  # special files: a regular file or none (the others went to _write_special)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
    return path


def _write_special(path: Path, kind: int, payload: bytes | bytearray | memoryview | Callable[[str], Any]) -> None:
    """Write into a FIFO or a character device in place (a rename would replace it with a regular file); refuse
    anything else that is not a regular file."""
    if stat.S_ISDIR(kind):
        raise IsADirectoryError(errno.EISDIR, "is a folder: name a file to save to", str(path))
    if not (stat.S_ISFIFO(kind) or stat.S_ISCHR(kind)):
        raise OSError(errno.EINVAL, "is neither a regular file, a FIFO nor a character device: name a file to save "
                                    "to", str(path))  # fmt: skip
    try:  # a FIFO with no reader would block for ever: refuse it at once instead
        handle = os.open(path, os.O_WRONLY | (os.O_NONBLOCK if stat.S_ISFIFO(kind) else 0))
    except OSError as error:
        if error.errno == errno.ENXIO:
            raise OSError(errno.ENXIO, "is a FIFO that no program is reading: start its reader first",
                          str(path)) from None  # fmt: skip
        raise
    os.set_blocking(handle, True)
    with os.fdopen(handle, "wb") as file:
        if not isinstance(payload, (bytes, bytearray, memoryview)):  # a writer that needs a path: a file first
            with tempfile.TemporaryDirectory() as folder:
                written = Path(folder) / f"file{path.suffix}"
                payload(str(written))
                payload = written.read_bytes()
        file.write(payload)


def save_record(record: dict, path: str | Path) -> Path:
    """Write a record (checked first) as a JSON file (UTF-8; `write_atomic`: a failed save leaves the old file
    whole); returns its path."""
    return write_atomic(path, dumps_record(record))


def load_record(path: str | Path) -> dict[str, Any]:
    """Read a record file written by `save_record` (JSON, UTF-8; never unpickled or evaluated) and check it."""
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RecordError(f"{str(path)!r} is not a game record: not UTF-8 text ({error.reason})") from None
    try:
        return loads_record(text)
    except RecordError as error:
        raise RecordError(f"{str(path)!r}: {error}") from None
