"""uno-bench's results files (`RESULTS_FORMAT`, documented in docs/benchmark.md): written whole or not at all, and
read back checked whole against the suite they were made with, every field's type and range, before anything is
computed from them; a refusal is one line naming the file and the field.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from uno_env.records import write_atomic

from .bench_run import LUCK_FEATURES
from .bench_suites import (
    MAX_RESULTS_BYTES,
    MAX_TEXT,
    MAX_WORKERS,
    RESULTS_FORMAT,
    RESULTS_VERSION,
    ROLES,
    Cell,
    Suite,
    check_agent_name,
    is_digest,
    is_int,
    is_number,
    is_text,
    load_suite,
    read_json,
    short_repr,
    suite_names,
)


class ResultsError(ValueError):
    """A results file that is not a valid results file of its suite."""


# ------------------------------------------------------------------------------------------------ results files

_RESULTS_KEYS = {"format", "format_version", "suite", "agent", "games_scale", "tables", "uno_env_version", "created",
                 "seconds", "workers", "draw_luck", "cells"}  # fmt: skip
_HEAD_KEYS = {"table", "opponent", "episode", "first_seed", "deals", "status"}
_PLAYED_KEYS = _HEAD_KEYS | {"games", "win_rate", "low", "high", "fair_share", "mean_points", "undecided",
                             "mean_length", "per_deal", "seconds"}  # fmt: skip
_LUCK_KEYS = {"mean", "low", "high", "plain_mean", "plain_low", "plain_high", "narrower", "coefficients",
              "covariate_t", "features", "unattributed_cards", "per_deal"}  # fmt: skip
_PER_DEAL_KEYS = {"seeds", "wins", "points", "comparisons"}


def results_path(folder: str | Path, agent: str) -> Path:
    """Where `uno-bench run` writes an agent's results in `folder`."""
    return Path(folder) / (re.sub(r"[^A-Za-z0-9_.+-]+", "_", agent).strip("_") + ".json")


def write_results(path: str | Path, results: dict) -> Path:
    """Write a results document as strict JSON, whole or not at all."""
    return write_atomic(path, json.dumps(results, indent=1, allow_nan=False) + "\n")


def read_results(path: str | Path, suite: Suite | None = None) -> dict:
    """A results document from a file `write_results` wrote, checked whole against its suite (`check_results`):
    `suite`, or else the shipped suite the file names. A ResultsError of one line names the file and the field."""
    document = read_json(Path(path), "uno-bench results file", MAX_RESULTS_BYTES, ResultsError)
    name, _ = results_suite(document, str(path))
    if suite is None:
        if name not in suite_names():
            raise ResultsError(f"{path}: made with the suite {name!r}, which uno-env does not ship: give that suite "
                               "(--suite FILE)")  # fmt: skip
        suite = load_suite(name)
    return check_results(document, suite, str(path))


def results_suite(document: Any, source: str = "the results") -> tuple[str, str]:
    """(name, sha256) of the suite a results document was made with; its format and version checked."""
    if not isinstance(document, dict) or document.get("format") != RESULTS_FORMAT:
        raise ResultsError(f"{source} is not a uno-bench results file (format {RESULTS_FORMAT!r})")
    version = document.get("format_version")
    if not is_int(version, RESULTS_VERSION, RESULTS_VERSION):
        raise ResultsError(f"{source} is results format version {short_repr(version)}; this uno-bench reads version "
                           f"{RESULTS_VERSION}")  # fmt: skip
    suite = document.get("suite")
    if not (isinstance(suite, dict) and set(suite) == {"name", "sha256"} and isinstance(suite["name"], str)
            and re.fullmatch(r"[a-z0-9][a-z0-9.-]{0,63}", suite["name"]) and is_digest(suite["sha256"])):
        raise ResultsError(f"{source}: suite holds exactly the suite's name and its sha256")
    return suite["name"], suite["sha256"]


class _Bad(Exception):
    """A field of a results document that is not what it may be: where it is, and what it may hold."""


def check_results(document: Any, suite: Suite, source: str = "the results") -> dict:
    """Check a results document whole against the suite it was made with, before anything is computed from it:
    every field's type and range, finite numbers, counts that a cell's deals and players allow, one cell at most
    per table, opponent and episode of the suite, each on the deals its scale plays. A ResultsError of one line
    names `source` and the field."""
    name, sha = results_suite(document, source)
    if sha != suite.sha256:
        raise ResultsError(f"{source}: made with the suite {name} of sha256 {sha[:12]}, not with the {suite.name} "
                           f"given ({suite.sha256[:12]}): results compare only on the same suite")  # fmt: skip
    try:
        _check_document(document, suite)
    except _Bad as bad:
        where, what = bad.args
        raise ResultsError(f"{source}: {where} {what}") from None
    return document


def _check_document(document: dict, suite: Suite) -> None:
    if set(document) != _RESULTS_KEYS:
        raise _Bad("the document", f"has exactly the keys {', '.join(sorted(_RESULTS_KEYS))}")
    try:
        check_agent_name(document["agent"])
    except ValueError as error:
        raise _Bad("agent:", str(error)) from None
    scale, tables = document["games_scale"], document["tables"]
    if not (is_number(scale, 0, 1) and scale > 0):
        raise _Bad("games_scale", f"is a number in (0, 1], a share of the suite's deals, got {short_repr(scale)}")
    if not (isinstance(tables, list) and tables and all(isinstance(t, str) for t in tables)
            and len(set(tables)) == len(tables) and set(tables) <= set(suite.table_ids)):
        raise _Bad("tables", f"lists distinct tables of {suite.name} ({', '.join(suite.table_ids)})")
    for key in ("uno_env_version", "created"):
        if not is_text(document[key], 64):
            raise _Bad(key, "is a text of at most 64 characters")
    if not is_number(document["seconds"], 0):
        raise _Bad("seconds", "is a number >= 0")
    if not is_int(document["workers"], 1, MAX_WORKERS):
        raise _Bad("workers", f"is a whole number from 1 to {MAX_WORKERS}")
    if not isinstance(document["draw_luck"], bool):
        raise _Bad("draw_luck", "is true or false")
    cells = document["cells"]
    expected = {cell.key: cell for cell in suite.cells(scale, tables)}
    if not isinstance(cells, list) or len(cells) > len(expected):
        raise _Bad("cells", f"is a list of at most the {len(expected)} cells of {suite.name} at these tables")
    seen: set[str] = set()
    for i, cell in enumerate(cells):
        _check_cell(cell, f"cells[{i}]", expected, seen, scale, document["draw_luck"])


def _check_cell(cell: Any, where: str, expected: dict[str, Cell], seen: set[str], scale: float, luck: bool) -> None:
    if not (isinstance(cell, dict) and _HEAD_KEYS <= set(cell)
            and all(isinstance(cell[k], str) for k in ("table", "opponent", "episode"))):
        raise _Bad(where, f"is an object with {', '.join(sorted(_HEAD_KEYS))} (table, opponent, episode as texts)")
    key = f"{cell['table']}/{cell['opponent']}/{cell['episode']}"
    if key not in expected:
        raise _Bad(where, f"is the cell {short_repr(key)}: the suite has no such cell at the results' tables")
    if key in seen:
        raise _Bad(where, f"is the cell {key!r} a second time")
    seen.add(key)
    spec = expected[key]
    where = f"{where} ({key})"
    if not is_int(cell["first_seed"], spec.first_seed, spec.first_seed):
        raise _Bad(f"{where} first_seed", f"is {spec.first_seed}, the suite's first deal")
    if not is_int(cell["deals"], spec.deals, spec.deals):
        raise _Bad(f"{where} deals", f"is {spec.deals}, the deals of this cell at games_scale {scale:g}")
    if cell["status"] == "refused":
        if set(cell) != _HEAD_KEYS | {"error"} or not is_text(cell["error"]):
            raise _Bad(where, f"refused holds {', '.join(sorted(_HEAD_KEYS))} and an error text "
                              f"(at most {MAX_TEXT:,} characters)")  # fmt: skip
        return
    if cell["status"] != "played":
        raise _Bad(f"{where} status", "is 'played' or 'refused'")
    keys = _PLAYED_KEYS | ({"draw_luck"} if luck else set())
    if set(cell) != keys:
        raise _Bad(where, f"played has exactly the keys {', '.join(sorted(keys))}")
    players, deals = spec.table.players, spec.deals
    games = deals * players
    if not is_int(cell["games"], games, games):
        raise _Bad(f"{where} games", f"is {games}, its deals times its players")
    for key in ("win_rate", "low", "high"):
        if not is_number(cell[key], 0, 1):
            raise _Bad(f"{where} {key}", "is a number from 0 to 1")
    if not cell["low"] <= cell["win_rate"] <= cell["high"]:
        raise _Bad(where, "has low <= win_rate <= high")
    if not (is_number(cell["fair_share"]) and math.isclose(cell["fair_share"], 1 / players)):
        raise _Bad(f"{where} fair_share", f"is 1 / {players}")
    if not is_int(cell["undecided"], 0, games):
        raise _Bad(f"{where} undecided", f"is a whole number of games from 0 to {games}")
    if not is_number(cell["mean_points"]):
        raise _Bad(f"{where} mean_points", "is a finite number")
    for key in ("mean_length", "seconds"):
        if not is_number(cell[key], 0):
            raise _Bad(f"{where} {key}", "is a number >= 0")
    per_deal = cell["per_deal"]
    if not (isinstance(per_deal, dict) and set(per_deal) == _PER_DEAL_KEYS):
        raise _Bad(f"{where} per_deal", f"has exactly the keys {', '.join(sorted(_PER_DEAL_KEYS))}")
    seeds = per_deal["seeds"]
    if not (isinstance(seeds, list) and all(type(seed) is int for seed in seeds)
            and seeds == list(range(spec.first_seed, spec.first_seed + deals))):
        raise _Bad(f"{where} per_deal.seeds", f"are the seeds of the cell's {deals} deals, {spec.first_seed} on")
    wins = _numbers(per_deal["wins"], f"{where} per_deal.wins", deals, 0, players)
    _numbers(per_deal["points"], f"{where} per_deal.points", deals)
    _numbers(per_deal["comparisons"], f"{where} per_deal.comparisons", deals, 0, players * (players - 1), width=2)
    if not math.isclose(float(wins.sum()) / games, cell["win_rate"], rel_tol=1e-9, abs_tol=1e-12):
        raise _Bad(f"{where} win_rate", "is the deals' wins over the games")
    if luck:
        _check_luck(cell["draw_luck"], f"{where} draw_luck", deals)


def _check_luck(luck: Any, where: str, deals: int) -> None:
    features = [f"{side} {f}" for side in ROLES for f in LUCK_FEATURES]
    if not (isinstance(luck, dict) and set(luck) == _LUCK_KEYS):
        raise _Bad(where, f"has exactly the keys {', '.join(sorted(_LUCK_KEYS))}")
    for key in _LUCK_KEYS - {"coefficients", "covariate_t", "features", "unattributed_cards", "per_deal"}:
        if not is_number(luck[key]):
            raise _Bad(f"{where}.{key}", "is a finite number")
    for key in ("coefficients", "covariate_t"):
        _numbers(luck[key], f"{where}.{key}", len(features))
    if luck["features"] != features:
        raise _Bad(f"{where}.features", f"are {', '.join(features)}")
    if not is_int(luck["unattributed_cards"], 0, 2**53):
        raise _Bad(f"{where}.unattributed_cards", "is a whole number >= 0")
    _numbers(luck["per_deal"], f"{where}.per_deal", deals, width=len(features))


def _numbers(values: Any, where: str, count: int, low: float = -math.inf, high: float = math.inf, *,
             width: int | None = None) -> np.ndarray:  # fmt: skip
    """`values` as an array: a list of `count` finite numbers (or of `count` lists of `width`) from `low` to `high`;
    else _Bad naming the first that is not."""
    what = f"a number from {low:g} to {high:g}" if math.isfinite(low) or math.isfinite(high) else "a finite number"
    if not isinstance(values, list) or len(values) != count:
        raise _Bad(where, f"is a list of {count} {f'lists of {width}' if width else 'items'}, each {what}")
    flat = values
    if width is not None:
        flat = []
        for i, row in enumerate(values):
            if not isinstance(row, list) or len(row) != width:
                raise _Bad(f"{where}[{i}]", f"is a list of {width} items, each {what}")
            flat.extend(row)
    try:
        array = np.array(flat, dtype=float) if set(map(type, flat)) <= {int, float} else None  # no bool, no text
    except OverflowError:  # an int beyond a float's range
        array = None
    bad = [i for i, v in enumerate(flat) if type(v) not in (int, float) or abs(v) > 2**63] if array is None else (
        np.flatnonzero(~np.isfinite(array) | (array < low) | (array > high)).tolist())  # fmt: skip
    if bad:
        raise _Bad(f"{where}[{_index(bad[0], width)}]", f"is {short_repr(flat[bad[0]])}; it must be {what}")
    return array.reshape(count, width) if width else array


def _index(i: int, width: int | None) -> str:
    return str(i) if width is None else f"{i // width}][{i % width}"
