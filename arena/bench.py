"""uno-bench: versioned evaluation suites, their results files, a leaderboard, and a sequential A/B test.

    uno-bench run counter ppo:{preset} --out bench/          # every table and opponent of uno-bench-v1
    uno-bench run greedy --suite uno-bench-smoke --out smoke/   # the tiny suite the tests use
    uno-bench run mypackage.agents:MyAgent --trust --games-scale 0.1 --out bench/
    uno-bench leaderboard bench/*.json --out bench/
    uno-bench compare ppo:{preset} counter --table classic-2p --opponent counter
    uno-bench suites

A *suite* (`Suite`, a JSON file in `uno_env/arena/suites/`) fixes everything a result depends on: the tables (a
preset, its options and a player count), the bank of deals (the engine's deal from each seed of a range, with a
digest of the deals so that an engine that deals differently is caught), the seating (the candidate in one seat, an
opponent in every other, each deal played once with the candidate in each seat: every rotation), the reference
opponents with the deals each is played on, hands (`episode="round"`) and 500-point matches (`episode="match"`),
the agents' seeds, and what is reported. A published suite never changes: its hash is pinned in `PUBLISHED`, and a
suite file that no longer hashes to it is refused; a change is a new version (uno-bench-v2).

`run_suite` plays one candidate through a suite with `play_games` (`uno_env.arena.tournament`), one *cell* (table,
opponent, episode) at a time, or spread over processes (`workers`; the same results either way). A candidate is
any name `make_agent` builds (`{preset}` in it stands for each table's preset: `ppo:{preset}` seats each table's
shipped policy), or a user's class `module:Class`, imported only with `trust=True` (`--trust`: importing runs the
module's code). A table the candidate refuses (a policy trained for other games) is reported as refused.

The results file (`RESULTS_FORMAT`, version `RESULTS_VERSION`, documented in docs/benchmark.md) holds per cell the
win rate of the candidate with its 95% interval by deal (`uno_env.arena.ratings.deal_interval`), its fair share,
its mean points, and per deal its wins and its Bradley-Terry comparisons with the opponent, so that two results
files compare deal by deal and a leaderboard refits the ratings with intervals by deal (`leaderboard`).
`compare` runs the sequential test of `uno_env.arena.bench_stats` on paired deals of one table.

Suites and results files are data from anyone: each is checked whole when it is read (`parse_suite`,
`check_results`), every field's type and range, before anything is played or computed, and refused in one line that
names the file and the field; what a suite may ask for is bounded (`MAX_DEALS`, `MAX_SUITE_DEALS`, ...). Names are
shown as text on the leaderboard's pages and in the terminal (`markdown_text`, `visible`).
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import math
import multiprocessing
import re
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from uno_env import GameBatch, __version__, cli, make_rules
from uno_env.agents.registry import can_play, make_agent, parse_agent, shipped_files
from uno_env.agents.trust import USER_ERRORS
from uno_env.game import DEFAULT_MAX_STEPS, NO_ACTION
from uno_env.records import write_atomic
from uno_env.validate import EPISODES, SEED_LIMIT

from .bench_stats import MAX_COMPARE_DEALS, MAX_DEALS, SequentialResult, SequentialTest, control_variate, decide
from .ratings import _game_pairs, _to_rating, bradley_terry, deal_interval
from .tournament import play_games

SUITES_DIR = Path(__file__).with_name("suites")
SUITE_FORMAT, SUITE_FORMAT_VERSION = "uno-bench-suite", 1
RESULTS_FORMAT, RESULTS_VERSION = "uno-bench-results", 1
#: published suites: name -> sha256 of the suite's canonical JSON (`suite_hash`). Never edit a published suite:
#: a change is a new version with its own name.
PUBLISHED: dict[str, str] = {
    "uno-bench-v1": "e6c97087b9e5842617d8a3dcde508bcaab17b362d0b3f80034be670215fcd95e",
}
DEFAULT_SUITE = "uno-bench-v1"
PLACEHOLDER = "{preset}"
ROLES = ("candidate", "opponent")  # the names the two agents of a cell carry in its games
COMPARE_OPPONENT = 2**20  # the opponent index that seeds `compare`'s agents (no suite has that many opponents)

# What a suite, a results file and a leaderboard may hold: each bound is checked where the file is read, before
# anything is played or computed, and named in the error. A cell's deals are bounded by `MAX_DEALS` (20,000).
MAX_SUITE_DEALS = 100_000  # the deals of all the cells of a suite together (uno-bench-v1: 8,850)
MAX_TABLES = MAX_OPPONENTS = 100
MAX_FIRST_SEED = 2**63 - 1  # a bank's first seed: its deals' seeds stay below 2**64
MAX_BOOTSTRAP = 10_000  # bootstrap replicates of the ratings
MAX_PRIOR = 1e6  # the ratings' prior, in virtual games
MAX_WORKERS = 1024  # processes of `uno-bench run --workers`
MAX_NAME = 256  # characters of an agent's name
MAX_TEXT = 10_000  # characters of a text field (a suite's description, a refused cell's error)
MAX_AGENTS = 256  # agents on one leaderboard, candidates and reference opponents together
MAX_SUITE_BYTES = 2**20
MAX_RESULTS_BYTES = 64 * 2**20  # a results file of MAX_SUITE_DEALS deals with --draw-luck is under 40 MiB
_TABLE_ID = r"[a-z0-9][a-z0-9_.-]{0,63}"
DEAL_BATCH = 4096  # games dealt or replayed at once by `deal_digest` and `draw_luck` (about 9 KB each)


class SuiteError(ValueError):
    """A suite file that is not a valid suite, or a published suite that was changed."""


class ResultsError(ValueError):
    """A results file that is not a valid results file of its suite."""


# ------------------------------------------------------------------------------------------------ suites


@dataclass(frozen=True)
class Table:
    """A table of a suite: an id, a preset with rule options, and the player count."""

    id: str
    preset: str
    players: int
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def rules(self):
        return make_rules(self.preset, **dict(self.options))


@dataclass(frozen=True)
class Opponent:
    """A reference opponent (a registry name; `{preset}` is each table's preset), the tables it sits at (all when
    empty) and the deals of each episode kind it is played on (the first deals of the bank)."""

    name: str
    tables: tuple[str, ...]
    deals: tuple[tuple[str, int], ...]  # (episode, deals)


@dataclass(frozen=True)
class Cell:
    """One table, one opponent, one episode kind: the candidate in one seat, the opponent in the others, on the
    deals first_seed .. first_seed + deals - 1, each under every rotation."""

    table: Table
    table_index: int
    opponent: str  # as the suite names it
    opponent_index: int
    episode: str
    first_seed: int
    deals: int

    @property
    def key(self) -> str:
        return f"{self.table.id}/{self.opponent}/{self.episode}"


@dataclass(frozen=True)
class Suite:
    """An evaluation suite (see the module docstring), as read from its JSON file by `load_suite`."""

    name: str
    description: str
    tables: tuple[Table, ...]
    opponents: tuple[Opponent, ...]
    first_seeds: tuple[tuple[str, int], ...]  # (episode, the bank's first seed)
    agent_seed: int
    compare: dict = field(hash=False)
    ratings: dict = field(hash=False)
    digests: dict = field(hash=False)  # table id -> episode -> sha256 of the bank's deals
    policies: dict = field(default_factory=dict, hash=False)  # table id -> sha256 of the shipped policy it seats
    sha256: str = ""
    document: dict = field(default_factory=dict, hash=False, repr=False)

    def table(self, table_id: str) -> Table:
        for table in self.tables:
            if table.id == table_id:
                return table
        raise ValueError(f"{self.name} has no table {table_id!r}; its tables are {', '.join(self.table_ids)}")

    @property
    def table_ids(self) -> list[str]:
        return [table.id for table in self.tables]

    def bank_size(self, table_id: str, episode: str) -> int:
        """The deals of the bank of `episode` at a table: the most any opponent is played on."""
        return max((dict(o.deals).get(episode, 0) for o in self.opponents if not o.tables or table_id in o.tables),
                   default=0)  # fmt: skip

    def cells(self, games_scale: float = 1.0, tables: Sequence[str] | None = None) -> list[Cell]:
        """Every cell of the suite (only `tables`, if given), each on its first ceil(deals * games_scale) deals
        (at least 2, the fewest an interval by deal takes)."""
        check_scale(games_scale)
        wanted = self.table_ids if tables is None else [self.table(t).id for t in tables]
        seeds = dict(self.first_seeds)
        out = []
        for t, table in enumerate(self.tables):
            if table.id not in wanted:
                continue
            for o, opponent in enumerate(self.opponents):
                if opponent.tables and table.id not in opponent.tables:
                    continue
                for episode, deals in opponent.deals:
                    if deals:
                        scaled = max(2, math.ceil(deals * games_scale - 1e-9))
                        out.append(Cell(table, t, opponent.name, o, episode, seeds[episode], min(deals, scaled)))
        return out


def check_scale(games_scale: float) -> None:
    if not (isinstance(games_scale, (int, float)) and 0 < games_scale <= 1):
        raise ValueError(f"the games scale is a number in (0, 1], a share of the suite's deals; got {games_scale!r}")


def suite_names() -> list[str]:
    """The suites shipped in the package, by name."""
    return sorted(path.stem for path in SUITES_DIR.glob("*.json"))


def suite_hash(document: dict) -> str:
    """sha256 of a suite's canonical JSON (sorted keys, no spaces): what `PUBLISHED` pins."""
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def load_suite(name_or_path: str | Path) -> Suite:
    """A suite by its name (a file in the package's suites/) or from a JSON file; a published suite must hash to
    its pinned value. A suite is data: nothing in it is run or imported."""
    text = str(name_or_path)
    path = SUITES_DIR / f"{text}.json" if text in suite_names() else Path(text)
    if not path.is_file():
        raise SuiteError(f"no suite {text!r}: give a suite's name ({', '.join(suite_names())}) or a suite JSON file")
    return parse_suite(_read_json(path, "suite JSON file", MAX_SUITE_BYTES, SuiteError), source=str(path))


def _read_json(path: Path, what: str, limit: int, error_class: type[ValueError]) -> Any:
    """The JSON document in a file of at most `limit` bytes, read strictly: no NaN or Infinity, no key twice in an
    object, no nesting deeper than Python's stack. Anything else is one line of `error_class` naming the file."""
    try:
        if not path.is_file():
            raise error_class(f"{path} is not a {what}: not a file")
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as error:
        raise error_class(f"{path}: cannot read it ({error.strerror or error})") from None
    if len(data) > limit:
        size = f"{limit // 2**20} MiB" if limit >= 2**20 else f"{limit} bytes"
        raise error_class(f"{path} is not a {what}: larger than {size}")
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_refuse_constant, object_pairs_hook=_refuse_twice)
    except RecursionError:
        raise error_class(f"{path} is not a {what}: JSON nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as error:  # JSONDecodeError, a constant, a key twice, a huge int
        raise error_class(f"{path} is not a {what} ({' '.join(str(error).split())})") from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"it holds {name}: JSON numbers are finite")


def _refuse_twice(pairs: list[tuple[str, Any]]) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ValueError(f"it holds the key {twice!r} twice in one object")
    return out


def _is_int(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _is_number(value: Any, low: float = -math.inf, high: float = math.inf) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and low <= value <= high)  # fmt: skip


def _is_text(value: Any, limit: int = MAX_TEXT) -> bool:
    """A str of at most `limit` characters that a UTF-8 file can hold (no lone surrogate)."""
    if not isinstance(value, str) or len(value) > limit:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _is_digest(value: Any) -> bool:
    return isinstance(value, str) and re.fullmatch(r"[0-9a-f]{64}", value) is not None


_SUITE_KEYS = {"format", "format_version", "name", "description", "tables", "deal_bank", "seating", "rotations",
               "opponents", "agent_seed", "report", "ratings", "compare", "deal_digests", "policy_digests"}  # fmt: skip
_RATINGS_KEYS = {"model", "prior", "bootstrap", "interval", "scale"}
_COMPARE_KEYS = {"alpha", "beta", "delta", "min_deals", "block", "max_deals", "first_seeds"}


def parse_suite(document: Any, source: str = "the suite") -> Suite:
    """A `Suite` from its JSON document, checked whole, field by field, before anything is played: a SuiteError of
    one line names the field and what it may hold."""

    def need(condition: bool, what: str) -> None:
        if not condition:
            raise SuiteError(f"{source}: {what}")

    need(isinstance(document, dict), "a suite is a JSON object")
    need(set(document) == _SUITE_KEYS, f"a suite has exactly the keys {', '.join(sorted(_SUITE_KEYS))}")
    need(document["format"] == SUITE_FORMAT and _is_int(document["format_version"], SUITE_FORMAT_VERSION,
                                                         SUITE_FORMAT_VERSION),
         f"format must be {SUITE_FORMAT!r} version {SUITE_FORMAT_VERSION}")  # fmt: skip
    name = document["name"]
    need(isinstance(name, str) and re.fullmatch(r"[a-z0-9][a-z0-9.-]{0,63}", name) is not None,
         "name is lowercase letters, digits, dots and dashes (at most 64)")  # fmt: skip
    for key in ("description", "seating", "rotations"):
        need(_is_text(document[key]), f"{key} is a text of at most {MAX_TEXT:,} characters")
    tables = []
    entries = document["tables"]
    need(isinstance(entries, list) and 1 <= len(entries) <= MAX_TABLES, f"tables is a list of 1 to {MAX_TABLES}")
    for i, entry in enumerate(entries):
        need(isinstance(entry, dict) and set(entry) == {"id", "preset", "players", "options"},
             f"tables[{i}] has exactly id, preset, players and options")  # fmt: skip
        table_id, options = entry["id"], entry["options"]
        need(isinstance(table_id, str) and re.fullmatch(_TABLE_ID, table_id) is not None,
             f"tables[{i}].id is lowercase letters, digits, '_', '.' and '-' (at most 64)")  # fmt: skip
        need(isinstance(entry["preset"], str), f"table {table_id!r}: preset is a preset's name")
        need(isinstance(options, dict) and all(isinstance(v, (bool, int, float, str)) for v in options.values()),
             f"table {table_id!r}: options maps rule options to values")  # fmt: skip
        table = Table(table_id, entry["preset"], entry["players"], tuple(sorted(options.items())))
        try:
            table.rules.check_players(table.players)
        except (ValueError, TypeError) as error:
            raise SuiteError(f"{source}: table {table_id!r}: {' '.join(str(error).split())}") from None
        tables.append(table)
    ids = [t.id for t in tables]
    need(len(set(ids)) == len(ids), "table ids are distinct")
    bank = document["deal_bank"]
    need(isinstance(bank, dict) and set(bank) == set(EPISODES), f"deal_bank names a first seed for {EPISODES}")
    first_seeds = tuple((e, bank[e]) for e in EPISODES)
    need(all(_is_int(s, 0, MAX_FIRST_SEED) for _, s in first_seeds),
         f"the first seeds of deal_bank are whole numbers from 0 to {MAX_FIRST_SEED}")  # fmt: skip
    opponents = []
    entries = document["opponents"]
    need(isinstance(entries, list) and 1 <= len(entries) <= MAX_OPPONENTS,
         f"opponents is a list of 1 to {MAX_OPPONENTS}")  # fmt: skip
    for i, entry in enumerate(entries):
        need(isinstance(entry, dict) and set(entry) <= {"name", "tables", "deals"} and "name" in entry
             and "deals" in entry, f"opponents[{i}] has a name, deals per episode and optionally tables")  # fmt: skip
        try:
            check_agent_name(entry["name"])
        except ValueError as error:
            raise SuiteError(f"{source}: opponents[{i}].name: {error}") from None
        deals, only = entry["deals"], entry.get("tables", [])
        need(isinstance(deals, dict) and set(deals) <= set(EPISODES)
             and all(_is_int(d, 0, MAX_DEALS) for d in deals.values()),
             f"opponent {entry['name']!r}: deals maps round and match to whole numbers from 0 to {MAX_DEALS:,}")
        need(isinstance(only, list) and all(isinstance(t, str) for t in only) and len(set(only)) == len(only)
             and set(only) <= set(ids), f"opponent {entry['name']!r}: tables lists distinct tables of the suite")
        opponents.append(Opponent(entry["name"], tuple(only), tuple((e, deals.get(e, 0)) for e in EPISODES)))
    names = [o.name for o in opponents]
    need(len(set(names)) == len(names), "opponent names are distinct")
    need(_is_int(document["agent_seed"], 0, SEED_LIMIT - 1), "agent_seed is a whole number from 0 to 2**64 - 1")
    report = document["report"]
    need(isinstance(report, dict) and all(_is_text(v) for v in report.values()), "report maps names to texts")
    ratings = document["ratings"]
    need(isinstance(ratings, dict) and set(ratings) <= _RATINGS_KEYS,
         f"ratings has only the keys {', '.join(sorted(_RATINGS_KEYS))}")  # fmt: skip
    need(ratings.get("model", "bradley-terry") == "bradley-terry", "ratings.model is 'bradley-terry'")
    need(_is_int(ratings.get("bootstrap", 0), 0, MAX_BOOTSTRAP),
         f"ratings.bootstrap is a whole number of replicates from 0 to {MAX_BOOTSTRAP:,}")  # fmt: skip
    need(_is_number(ratings.get("prior", 1.0), 0, MAX_PRIOR) and ratings.get("prior", 1.0) > 0,
         f"ratings.prior is a number of virtual games above 0 and at most {MAX_PRIOR:g}")  # fmt: skip
    need(all(_is_text(ratings.get(k, "")) for k in ("interval", "scale")), "ratings.interval and scale are texts")
    compare = document["compare"]
    need(isinstance(compare, dict) and set(compare) == _COMPARE_KEYS,
         f"compare has exactly the keys {', '.join(sorted(_COMPARE_KEYS))}")  # fmt: skip
    try:
        test = SequentialTest(**_test_settings(compare))  # checks them
    except (ValueError, TypeError) as error:
        raise SuiteError(f"{source}: compare: {error}") from None
    starts = compare["first_seeds"]
    need(isinstance(starts, dict) and set(starts) == set(EPISODES)
         and all(_is_int(s, 0, MAX_FIRST_SEED) for s in starts.values()),
         f"compare.first_seeds gives the first seed of the compare bank for round and match, from 0 to "
         f"{MAX_FIRST_SEED}")  # fmt: skip
    need(_is_int(compare["max_deals"], test.min_deals, MAX_COMPARE_DEALS),
         f"compare.max_deals is a whole number of deals from min_deals ({test.min_deals}) to "
         f"{MAX_COMPARE_DEALS:,}")  # fmt: skip
    digests = document["deal_digests"]
    need(isinstance(digests, dict) and set(digests) <= set(ids)
         and all(isinstance(v, dict) and set(v) <= set(EPISODES) and all(_is_digest(d) for d in v.values())
                 for v in digests.values()), "deal_digests maps table ids to a sha256 digest per episode")
    policies = document["policy_digests"]
    need(isinstance(policies, dict) and set(policies) <= set(ids) and all(_is_digest(v) for v in policies.values()),
         "policy_digests maps table ids to the sha256 of the shipped policy seated there")  # fmt: skip
    sha = suite_hash(document)
    if name in PUBLISHED and PUBLISHED[name] != sha:
        raise SuiteError(f"{source} is not the published {name} (its hash is {sha[:12]}, the published one "
                         f"{PUBLISHED[name][:12]}): a published suite never changes; give a changed one a new name")
    suite = Suite(name, document["description"], tuple(tables), tuple(opponents), first_seeds,
                  document["agent_seed"], dict(compare), dict(ratings), dict(digests), dict(policies), sha,
                  document)  # fmt: skip
    cells = suite.cells()
    total = sum(cell.deals for cell in cells)
    need(cells != [], "the suite has no cell: give an opponent deals at a table")
    need(total <= MAX_SUITE_DEALS, f"the cells ask for {total:,} deals in all; a suite asks for at most "
                                   f"{MAX_SUITE_DEALS:,} (each deal is played once per seat)")  # fmt: skip
    return suite


def _test_settings(compare: dict) -> dict:
    return {k: compare[k] for k in ("alpha", "beta", "delta", "min_deals", "block") if k in compare}


# ------------------------------------------------------------------------------------------------ deal bank


def deal_digest(table: Table, episode: str, first_seed: int, deals: int) -> str:
    """sha256 of the first `deals` deals of the bank at `table`: each seat's hand, the draw pile in order, the
    discard pile, the forehead cards, the dealer, the first seat, direction and colour, as the engine deals them
    from seeds first_seed, first_seed + 1, ... An engine that deals differently gives another digest."""
    digest = hashlib.sha256()
    n = table.players
    for start in range(0, max(deals, 0), DEAL_BATCH):  # a batch at a time: memory bounded however many deals
        size = min(DEAL_BATCH, deals - start)
        batch = GameBatch(table.rules, n, size, episode=episode)
        batch.reset(np.arange(first_seed + start, first_seed + start + size, dtype=np.uint64))
        s = batch.state_array
        for g in range(size):
            st = s[g]
            for part in (st["hand"][:n], st["draw_pile"][: st["draw_len"]], st["discard"][: st["discard_len"]],
                         st["fh_card"][: st["fh_len"]], st["fh_seat"][: st["fh_len"]],
                         np.array([st["dealer"], st["seat"], st["direction"], st["color"], st["phase"]], np.int64)):
                digest.update(np.ascontiguousarray(part).tobytes())
    return digest.hexdigest()


def suite_digests(suite: Suite) -> dict[str, dict[str, str]]:
    """The digest of every table's banks (`deal_digest`), as the suite's `deal_digests` records them."""
    seeds = dict(suite.first_seeds)
    return {table.id: {e: deal_digest(table, e, seeds[e], suite.bank_size(table.id, e)) for e in EPISODES
                       if suite.bank_size(table.id, e)} for table in suite.tables}  # fmt: skip


def check_digests(suite: Suite, tables: Sequence[str] | None = None) -> None:
    """Refuse to run a suite whose deals the engine no longer deals (results would not be comparable)."""
    seeds = dict(suite.first_seeds)
    for table in suite.tables:
        if tables is not None and table.id not in tables:
            continue
        for episode, expected in suite.digests.get(table.id, {}).items():
            found = deal_digest(table, episode, seeds[episode], suite.bank_size(table.id, episode))
            if found != expected:
                raise SuiteError(f"the engine no longer deals {suite.name}'s {episode} bank at {table.id} as it did "
                                 "when the suite was published: results would not compare; a new engine needs a "
                                 "new suite version")  # fmt: skip


def shipped_policy_digest(table: Table) -> str | None:
    """sha256 of the policy shipped for the table's variant and player count, as first shipped (the catalogue's
    `ShippedFile.pinned_sha256`, where the file is the one the catalogue lists); None when there is none."""
    shipped = shipped_files("policy").get((table.preset, table.players))
    if shipped is None or not shipped.path.is_file():  # a plain install ships the policies but cannot run them
        return None
    digest = hashlib.sha256(shipped.path.read_bytes()).hexdigest()
    return shipped.pinned_sha256 if digest == shipped.sha256 else digest


def suite_policy_digests(suite: Suite) -> dict[str, str]:
    """The digest of the shipped policy at every table where a reference opponent seats one (`ppo:{preset}`)."""
    seated = [o for o in suite.opponents if o.name.startswith("ppo:")]
    found = {}
    for table in suite.tables:
        if any(not o.tables or table.id in o.tables for o in seated):
            digest = shipped_policy_digest(table)
            if digest is not None:
                found[table.id] = digest
    return found


def check_policies(suite: Suite, tables: Sequence[str] | None = None) -> None:
    """Refuse to run a suite whose reference policies are not the ones it was published with: `ppo:{preset}` names
    whatever policy the package ships, so the suite pins each by digest (results would not compare). A pinned file
    fixes the observation layout it was trained on (the file records its digest), and that layout must be this
    version's: otherwise the run is refused before any game, naming the first field that differs."""
    for table in suite.tables:
        expected = suite.policies.get(table.id)
        if expected is None or (tables is not None and table.id not in tables):
            continue
        found = shipped_policy_digest(table)
        if found != expected:
            raise SuiteError(f"the policy shipped for {table.id} is not the one {suite.name} was published with "
                             f"(sha256 {str(found)[:12]}, expected {expected[:12]}): results would not compare; new "
                             "reference policies need a new suite version")  # fmt: skip
        check_policy_layout(suite, table)


def check_policy_layout(suite: Suite, table: Table) -> None:
    """Refuse (SuiteError, one line) a pinned policy trained on another observation layout than this version's."""
    from uno_env.agents.policy import POLICY_FILE, load_plain_data
    from uno_env.observation import check_layout

    path = shipped_files("policy")[(table.preset, table.players)].path
    try:
        check_layout(f"{suite.name}'s policy at {table.id} ({path.name})", load_plain_data(path, POLICY_FILE))
    except ValueError as error:
        raise SuiteError(str(error)) from None


# ------------------------------------------------------------------------------------------------ agents

def is_user_class(name: str) -> bool:
    """`module:Class` where `module` is no catalogue kind: a user's agent class (imported only with trust)."""
    try:
        return parse_agent(name).kind == "class"
    except ValueError:
        return False


def check_agent_name(name: Any) -> None:
    """A candidate or opponent name: a text of 1 to `MAX_NAME` characters; `{preset}` is the only placeholder it
    may hold."""
    if not _is_text(name, MAX_NAME) or not name:
        raise ValueError(f"an agent is named by a text of 1 to {MAX_NAME} characters, got {_shown(name)}")
    if re.search(r"[{}]", name.replace(PLACEHOLDER, "")):
        raise ValueError(f"{_shown(name)}: the only placeholder an agent's name may hold is {PLACEHOLDER}")


def _shown(value: Any, limit: int = 80) -> str:
    """`value` for an error message: its repr (control characters escaped), cut to `limit` characters."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**20:
        return f"a whole number of {value.bit_length()} bits"
    text = repr(value) if isinstance(value, (str, int, float, bool, type(None))) else f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def build_agent(name: str, table: Table, seed: int, trust: bool = False) -> Any:
    """The agent `name` for a table (`{preset}` filled in), seeded, as every command seats it
    (`uno_env.agents.registry.make_agent`: with `trust`, a user's class `module:Class` too)."""
    check_agent_name(name)
    return make_agent(name.replace(PLACEHOLDER, table.preset), seed=seed, trust=trust)


def check_seat(name: str, table: Table) -> None:
    """Refuse (ValueError) an agent the catalogue says cannot play at `table` (`uno_env.agents.registry.can_play`)."""
    why = can_play(name.replace(PLACEHOLDER, table.preset), table.preset, table.players)
    if why is not None:
        raise ValueError(why)


def agent_seed(base: int, cell: Cell, role: int) -> int:
    """The seed of a cell's candidate (role 0) or opponent (role 1): from the suite's agent seed and the cell,
    never the candidate's name, so every candidate meets the same opponent seeds."""
    episode = EPISODES.index(cell.episode)
    words = [base % 2**64, cell.table_index, cell.opponent_index, episode, role]
    return int(np.random.SeedSequence(words).generate_state(1, np.uint64)[0] >> np.uint64(1))


# ------------------------------------------------------------------------------------------------ playing


@dataclass(frozen=True)
class CellJob:
    """What a worker needs to play a cell (picklable)."""

    candidate: str
    trust: bool
    cell: Cell
    candidate_seed: int
    opponent_seed: int
    batch_size: int = 1024
    luck: bool = False  # also trace the games and report the draw-luck control variate (`draw_luck`)


def play_cell(job: CellJob) -> dict:
    """Play one cell; its report (`cell_report`), or a refusal when the candidate or opponent cannot sit at the
    table."""
    cell = job.cell
    start = time.perf_counter()
    try:
        for name in (job.candidate, cell.opponent):
            check_seat(name, cell.table)
        agents = {
            "candidate": build_agent(job.candidate, cell.table, job.candidate_seed, job.trust),
            "opponent": build_agent(cell.opponent, cell.table, job.opponent_seed, False),
        }
        lineup = ["candidate"] + ["opponent"] * (cell.table.players - 1)
        games = cell.deals * cell.table.players
        traces = {game: [] for game in range(games)} if job.luck else None
        records = play_games(agents, lineup, cell.table.rules, games=games, seed=cell.first_seed,
                             batch_size=job.batch_size, episode=cell.episode, trace=traces)  # fmt: skip
    except USER_ERRORS as error:
        message = visible(" ".join(str(error).split()))[:MAX_TEXT]  # one line of text, as a results file holds it
        return {**_cell_head(cell), "status": "refused", "error": message}
    report = {**_cell_head(cell), **cell_report(records, cell.table.players)}
    if job.luck:
        report["draw_luck"] = luck_report(cell, records, [traces[game] for game in range(games)])
    return {**report, "seconds": time.perf_counter() - start}


def luck_report(cell: Cell, records, traces) -> dict:
    """The draw-luck control variate of a cell (`draw_luck`, `control_variate`): the candidate's win rate
    adjusted, with its interval by deal, beside the plain one; the covariates per deal (the candidate's luck,
    then the other seats', feature by feature, summed over the deal's games); the cards left out."""
    seats = [r.lineup.index("candidate") for r in records]
    luck, unattributed = draw_luck(cell.table, cell.episode, [r.seed for r in records], traces, seats)
    seeds = sorted({r.seed for r in records})
    row = {seed: i for i, seed in enumerate(seeds)}
    per_deal = np.zeros((len(seeds), luck.shape[1] * luck.shape[2]))
    wins = np.zeros(len(seeds))
    for r, game_luck in zip(records, luck, strict=True):
        per_deal[row[r.seed]] += game_luck.ravel()
        if r.lineup.index("candidate") in r.winners:
            wins[row[r.seed]] += 1 / len(r.winners)
    estimate = control_variate(wins / cell.table.players, per_deal)
    return {**estimate, "features": [f"{side} {f}" for side in ROLES for f in LUCK_FEATURES],
            "unattributed_cards": unattributed, "per_deal": per_deal.tolist()}  # fmt: skip


def _cell_head(cell: Cell) -> dict:
    return {"table": cell.table.id, "opponent": cell.opponent, "episode": cell.episode,
            "first_seed": cell.first_seed, "deals": cell.deals}  # fmt: skip


def cell_report(records, players: int) -> dict:
    """What a cell reports: games, the candidate's win rate (ties shared) with its 95% interval by deal, fair
    share, mean points, games without a winner, mean decisions per game; per deal (in seed order) its wins, its
    points and its Bradley-Terry comparisons with the opponent [candidate over opponent, opponent over it]."""
    seeds = sorted({r.seed for r in records})
    row = {seed: i for i, seed in enumerate(seeds)}
    wins, points = np.zeros(len(seeds)), np.zeros(len(seeds))
    comparisons = np.zeros((len(seeds), 2))
    index = {name: i for i, name in enumerate(ROLES)}
    undecided = length = 0
    for r in records:
        d = row[r.seed]
        seat = r.lineup.index("candidate")
        points[d] += r.points[seat]
        if seat in r.winners:
            wins[d] += 1 / len(r.winners)
        undecided += not r.winners
        length += r.length
        for (a, _), w in _game_pairs(r.lineup, r.winners, index).items():
            comparisons[d, 0 if a == 0 else 1] += w
    _, low, high = deal_interval(records, ["candidate"])
    games = len(records)
    return {
        "status": "played", "games": games, "win_rate": float(wins.sum() / games), "low": float(low[0]),
        "high": float(high[0]), "fair_share": 1 / players, "mean_points": float(points.sum() / games),
        "undecided": int(undecided), "mean_length": length / games,
        "per_deal": {"seeds": seeds, "wins": wins.tolist(), "points": points.tolist(),
                     "comparisons": comparisons.tolist()},
    }  # fmt: skip


def check_run(suite: Suite, games_scale: float = 1.0, tables: Sequence[str] | None = None, workers: int = 1,
              draw_luck: bool = False) -> list[Cell]:  # fmt: skip
    """The cells a run of `suite` plays, once its settings are checked (a ValueError of one line says what is
    allowed): before any game, so that no run stops half-way on a setting."""
    check_scale(games_scale)
    if not _is_int(workers, 1, MAX_WORKERS):
        raise ValueError(f"workers is a whole number from 1 to {MAX_WORKERS}, got {_shown(workers)}")
    cells = suite.cells(games_scale, tables)
    if not cells:
        raise ValueError(f"{suite.name} has no cell at the tables {', '.join(map(str, tables or ()))}")
    few = [cell for cell in cells if cell.deals < LUCK_MIN_DEALS]
    if draw_luck and few:
        raise ValueError(f"--draw-luck needs at least {LUCK_MIN_DEALS} deals a cell (its control variate has "
                         f"{LUCK_MIN_DEALS - 3} covariates); {few[0].key} plays {few[0].deals}: use a larger "
                         "--games-scale or suite")  # fmt: skip
    return cells


def _worker_setup() -> None:
    """One core per worker process: numba and torch single-threaded."""
    import numba

    numba.set_num_threads(1)
    try:
        import torch
    except ImportError:  # a plain install: no policies to run
        return
    torch.set_num_threads(1)


def run_suite(
    candidate: str,
    suite: Suite | str = DEFAULT_SUITE,
    *,
    games_scale: float = 1.0,
    tables: Sequence[str] | None = None,
    trust: bool = False,
    workers: int = 1,
    batch_size: int = 1024,
    draw_luck: bool = False,
    progress: bool = False,
) -> dict:
    """Play `candidate` through every cell of `suite` (only `tables`, if given; each cell on its first
    ceil(deals * games_scale) deals) and return the results document (`RESULTS_FORMAT`). The candidate is built
    once first, so a bad name fails before any game. `workers` > 1 plays the cells in that many processes.
    `draw_luck` adds to every cell the win rate adjusted by the draw-luck control variate (`luck_report`), beside
    the plain one, which it leaves as it is."""
    suite = load_suite(suite) if isinstance(suite, str) else suite
    check_agent_name(candidate)
    cells = check_run(suite, games_scale, tables, workers, draw_luck)
    check_digests(suite, [c.table.id for c in cells])
    check_policies(suite, [c.table.id for c in cells])
    build_agent(candidate, cells[0].table, 0, trust)  # a bad name or file fails here, before any game
    jobs = [CellJob(candidate, trust, c, agent_seed(suite.agent_seed, c, 0), agent_seed(suite.agent_seed, c, 1),
                    batch_size, draw_luck) for c in cells]  # fmt: skip
    from tqdm import tqdm

    start = time.perf_counter()
    bar = tqdm(total=len(jobs), unit="cell", disable=not progress, leave=False, desc=candidate)
    if workers == 1:
        reports = []
        for job in jobs:
            reports.append(play_cell(job))
            bar.update()
    else:
        # spawned, not forked: a fork of a process whose numba or torch threads have run can hang
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                 initializer=_worker_setup) as pool:  # fmt: skip
            futures = [pool.submit(play_cell, job) for job in jobs]
            for future in futures:
                future.add_done_callback(lambda _: bar.update())
            reports = [future.result() for future in futures]
    bar.close()
    return {
        "format": RESULTS_FORMAT, "format_version": RESULTS_VERSION,
        "suite": {"name": suite.name, "sha256": suite.sha256}, "agent": candidate,
        "games_scale": games_scale, "tables": [c for c in suite.table_ids if tables is None or c in tables],
        "uno_env_version": __version__, "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "seconds": time.perf_counter() - start, "workers": workers, "draw_luck": draw_luck, "cells": reports,
    }  # fmt: skip


# ------------------------------------------------------------------------------------------------ draw luck

#: what a drawn card is worth, feature by feature (`draw_luck`): a wild card, a coloured action card, a card that
#: matches the active colour or the top card's rank when it is drawn (or is wild)
LUCK_FEATURES = ("wild", "action", "playable")
#: the fewest deals a cell needs for `--draw-luck`'s control variate (`control_variate`: its covariates, and 3)
LUCK_MIN_DEALS = len(ROLES) * len(LUCK_FEATURES) + 3


def _card_features(kinds: np.ndarray, color: int, top: int) -> np.ndarray:
    """(cards, features) of the card kinds `kinds` drawn onto a discard pile topped by `top` in colour `color`.
    Any function of the card and of what was known before it was drawn would do: only how well it predicts the
    outcome changes, never the mean of the luck (zero)."""
    colored = kinds < 52
    rank = kinds % 13
    playable = ~colored | (colored & ((kinds // 13 == color) | ((top < 52) & (rank == top % 13))))
    return np.stack([~colored, colored & (rank >= 10), playable], axis=1).astype(float)


def draw_luck(table: Table, episode: str, seeds: Sequence[int], traces: Sequence[Sequence[int]],
              seats: Sequence[int], max_steps: int = DEFAULT_MAX_STEPS) -> tuple[np.ndarray, int]:  # fmt: skip
    """The draw luck of each game, replayed from its seed and actions: for every card a seat takes from the draw
    pile, each feature (`LUCK_FEATURES`) of the card less its mean over the pile the card came from, summed for
    the seat `seats[g]` (the candidate's) and for the other seats. Given everything but the order of the pile
    (which no seat sees) the top card is any of the pile's cards alike, so each term has mean zero whatever the
    agents do: a control variate (`uno_env.arena.bench_stats.control_variate`). Returns ((games, 2, features),
    the cards it could not attribute: drawn in a step that also reshuffled, or not to exactly one hand; in a
    match, the new deal of each round is no draw)."""
    games = len(seeds)
    luck = np.zeros((games, 2, len(LUCK_FEATURES)))
    unattributed = 0
    for start in range(0, games, DEAL_BATCH):  # a batch at a time: memory bounded however many games
        part = slice(start, min(start + DEAL_BATCH, games))
        unattributed += _replay_luck(table, episode, seeds[part], traces[part], seats[part], max_steps, luck[part])
    return luck, unattributed


def _replay_luck(table: Table, episode: str, seeds: Sequence[int], traces: Sequence[Sequence[int]],
                 seats: Sequence[int], max_steps: int, luck: np.ndarray) -> int:  # fmt: skip
    """`draw_luck` of a batch of games, added into `luck`; the cards it could not attribute."""
    games, n = len(seeds), table.players
    batch = GameBatch(table.rules, n, games, episode=episode, max_steps=max_steps)
    batch.reset(np.asarray(seeds, dtype=np.uint64))
    s = batch.state_array
    lengths = np.array([len(t) for t in traces])
    padded = np.full((games, int(lengths.max(initial=0))), NO_ACTION, np.int64)
    for g, trace in enumerate(traces):
        padded[g, : len(trace)] = trace
    unattributed = 0
    for step in range(padded.shape[1]):
        hands, piles, lengths_before = s["hand"][:, :n].astype(np.int64), s["draw_pile"].copy(), s["draw_len"].copy()
        rounds, colors = s["rounds"].copy(), s["color"].copy()
        tops = s["discard"][np.arange(games), np.maximum(s["discard_len"] - 1, 0)].astype(np.int64)
        batch.step(padded[:, step])
        lengths_after = s["draw_len"]
        for g in np.flatnonzero((lengths_after != lengths_before) & (s["rounds"] == rounds)).tolist():
            before, after = int(lengths_before[g]), int(lengths_after[g])
            gained = np.clip(s["hand"][g, :n].astype(np.int64) - hands[g], 0, None).sum(axis=1)
            taken = before - after
            if after > before or not np.array_equal(piles[g, :after], s["draw_pile"][g, :after]) or (
                    np.count_nonzero(gained) != 1 or gained.sum() != taken):  # fmt: skip
                unattributed += max(taken, 0)
                continue
            pile = _card_features(piles[g, :before].astype(np.int64), int(colors[g]), int(tops[g]))
            drawn = pile[after:before]
            side = 0 if int(np.argmax(gained)) == seats[g] else 1
            luck[g, side] += drawn.sum(axis=0) - taken * pile.mean(axis=0)
    if not np.all(s["done"][:games] | s["truncated"][:games]):
        raise RuntimeError("a replayed game did not end: its actions are not the game's")
    return unattributed


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
    document = _read_json(Path(path), "uno-bench results file", MAX_RESULTS_BYTES, ResultsError)
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
    if not _is_int(version, RESULTS_VERSION, RESULTS_VERSION):
        raise ResultsError(f"{source} is results format version {_shown(version)}; this uno-bench reads version "
                           f"{RESULTS_VERSION}")  # fmt: skip
    suite = document.get("suite")
    if not (isinstance(suite, dict) and set(suite) == {"name", "sha256"} and isinstance(suite["name"], str)
            and re.fullmatch(r"[a-z0-9][a-z0-9.-]{0,63}", suite["name"]) and _is_digest(suite["sha256"])):
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
    if not (_is_number(scale, 0, 1) and scale > 0):
        raise _Bad("games_scale", f"is a number in (0, 1], a share of the suite's deals, got {_shown(scale)}")
    if not (isinstance(tables, list) and tables and all(isinstance(t, str) for t in tables)
            and len(set(tables)) == len(tables) and set(tables) <= set(suite.table_ids)):
        raise _Bad("tables", f"lists distinct tables of {suite.name} ({', '.join(suite.table_ids)})")
    for key in ("uno_env_version", "created"):
        if not _is_text(document[key], 64):
            raise _Bad(key, "is a text of at most 64 characters")
    if not _is_number(document["seconds"], 0):
        raise _Bad("seconds", "is a number >= 0")
    if not _is_int(document["workers"], 1, MAX_WORKERS):
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
        raise _Bad(where, f"is the cell {_shown(key)}: the suite has no such cell at the results' tables")
    if key in seen:
        raise _Bad(where, f"is the cell {key!r} a second time")
    seen.add(key)
    spec = expected[key]
    where = f"{where} ({key})"
    if not _is_int(cell["first_seed"], spec.first_seed, spec.first_seed):
        raise _Bad(f"{where} first_seed", f"is {spec.first_seed}, the suite's first deal")
    if not _is_int(cell["deals"], spec.deals, spec.deals):
        raise _Bad(f"{where} deals", f"is {spec.deals}, the deals of this cell at games_scale {scale:g}")
    if cell["status"] == "refused":
        if set(cell) != _HEAD_KEYS | {"error"} or not _is_text(cell["error"]):
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
    if not _is_int(cell["games"], games, games):
        raise _Bad(f"{where} games", f"is {games}, its deals times its players")
    for key in ("win_rate", "low", "high"):
        if not _is_number(cell[key], 0, 1):
            raise _Bad(f"{where} {key}", "is a number from 0 to 1")
    if not cell["low"] <= cell["win_rate"] <= cell["high"]:
        raise _Bad(where, "has low <= win_rate <= high")
    if not (_is_number(cell["fair_share"]) and math.isclose(cell["fair_share"], 1 / players)):
        raise _Bad(f"{where} fair_share", f"is 1 / {players}")
    if not _is_int(cell["undecided"], 0, games):
        raise _Bad(f"{where} undecided", f"is a whole number of games from 0 to {games}")
    if not _is_number(cell["mean_points"]):
        raise _Bad(f"{where} mean_points", "is a finite number")
    for key in ("mean_length", "seconds"):
        if not _is_number(cell[key], 0):
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
        if not _is_number(luck[key]):
            raise _Bad(f"{where}.{key}", "is a finite number")
    for key in ("coefficients", "covariate_t"):
        _numbers(luck[key], f"{where}.{key}", len(features))
    if luck["features"] != features:
        raise _Bad(f"{where}.features", f"are {', '.join(features)}")
    if not _is_int(luck["unattributed_cards"], 0, 2**53):
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
        raise _Bad(f"{where}[{_index(bad[0], width)}]", f"is {_shown(flat[bad[0]])}; it must be {what}")
    return array.reshape(count, width) if width else array


def _index(i: int, width: int | None) -> str:
    return str(i) if width is None else f"{i // width}][{i % width}"


# ------------------------------------------------------------------------------------------------ leaderboard


@dataclass
class Leaderboard:
    """Ratings and the cells' results of several candidates on one suite (`leaderboard`)."""

    suite: Suite
    agents: list[str]  # the candidates, best first by their hand rating
    ratings: dict[str, dict[str, tuple[float, float, float]]]  # episode -> name -> (rating, low, high)
    cells: dict[str, dict[str, dict]]  # candidate -> cell key -> cell report
    runs: dict[str, dict]  # candidate -> its document's settings (scale, seconds, version)

    def blocks(self, shown=str) -> list[tuple]:
        """The page as blocks: ("h1"|"h2"|"p", text) and ("table", header, rows), for `markdown` and `html`; every
        text that came from a file (names, the suite's description and tables) passes through `shown`."""
        suite = self.suite
        out: list[tuple] = [("h1", f"{shown(suite.name)} leaderboard")]
        out.append(("p", f"{shown(suite.description)} Suite sha256 {suite.sha256[:16]}…; ratings are Bradley-Terry "
                         "(mean 1000, +120 is 2:1 odds) with 95% intervals by deal; win rates are the candidate's "
                         "share of the games, ties shared, with 95% intervals by deal."))  # fmt: skip
        header = ["rank", "agent", "rating, hands [95%]", "rating, matches [95%]", "hands vs counter / fair",
                  "games", "scale", "minutes"]  # fmt: skip
        rows = []
        for rank, name in enumerate(self.agents, 1):
            run = self.runs[name]
            games = sum(c.get("games", 0) for c in self.cells[name].values())
            rows.append([str(rank), shown(name), _rating_text(self.ratings.get("round", {}).get(name)),
                         _rating_text(self.ratings.get("match", {}).get(name)), self._against(name, "counter"),
                         f"{games:,}", f"{run['games_scale']:g}", f"{run['seconds'] / 60:.1f}"])  # fmt: skip
        out.append(("table", header, rows))
        out.append(("p", "Hands vs counter / fair: the candidate's win rate against counter in the other seats over "
                         "its fair share, averaged over the tables it played (1.00 is as good as counter)."))
        references = [n for e in self.ratings.values() for n in e if n not in self.agents]
        if references:
            listed = [f"{shown(n)} {_rating_text(self.ratings.get('round', {}).get(n))}"
                      for n in dict.fromkeys(references)]  # fmt: skip
            out.append(("p", "Reference opponents not run as candidates (hand ratings): " + "; ".join(listed) + "."))
        for table in suite.tables:
            for episode, title in (("round", "hands"), ("match", "500-point matches")):
                opponents = [o.name for o in suite.opponents if (not o.tables or table.id in o.tables)
                             and dict(o.deals).get(episode)]  # fmt: skip
                keys = [f"{table.id}/{o}/{episode}" for o in opponents]
                if not any(k in self.cells[a] for a in self.agents for k in keys):
                    continue
                options = ", ".join(f"{k}={v}" for k, v in table.options)
                out.append(("h2", shown(f"{table.id}: {table.preset}{f' ({options})' if options else ''}, "
                                        f"{table.players} players, {title}")))  # fmt: skip
                others = "the other seat" if table.players == 2 else f"the other {table.players - 1} seats"
                out.append(("p", f"The candidate's win rate [95% by deal] against the opponent in {others}; fair "
                                 f"share {1 / table.players:.1%}."))  # fmt: skip
                rows = [[shown(name)] + [_cell_text(self.cells[name].get(k)) for k in keys] for name in self.agents]
                out.append(("table", ["agent"] + [f"vs {shown(o)}" for o in opponents], rows))
        return out

    def _against(self, name: str, opponent: str) -> str:
        """The mean over tables of `name`'s hand win rate against `opponent` over its fair share."""
        ratios = [c["win_rate"] / c["fair_share"] for c in self.cells[name].values()
                  if c["opponent"] == opponent and c["episode"] == "round" and c["status"] == "played"]  # fmt: skip
        return f"{np.mean(ratios):.2f}" if ratios else "–"

    def markdown(self) -> str:
        """The page in Markdown; names and the suite's texts escaped (`markdown_text`), so that they show as text
        in a Markdown renderer (mkdocs, GitHub) and in a terminal."""
        lines = []
        for block in self.blocks(markdown_text):
            if block[0] == "table":
                _, header, rows = block
                lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
                lines += ["| " + " | ".join(row) + " |" for row in rows]
                lines.append("")
            else:
                lines += [("# " if block[0] == "h1" else "## " if block[0] == "h2" else "") + block[1], ""]
        return "\n".join(lines)

    def html(self) -> str:
        """The page as one HTML file; every text escaped, and control characters in names shown (`visible`)."""
        body = []
        for block in self.blocks(visible):
            if block[0] == "table":
                _, header, rows = block
                head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
                cells = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
                body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{cells}</tbody></table>")
            else:
                body.append(f"<{block[0]}>{html.escape(block[1])}</{block[0]}>")
        style = ("body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em}table{border-collapse:"
                 "collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:right}"
                 "td:first-child,th:first-child{text-align:left}")  # fmt: skip
        title = html.escape(f"{visible(self.suite.name)} leaderboard")
        return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>"
                f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")  # fmt: skip


def visible(text: str) -> str:
    """`text` with every character that is not printable (control characters such as ESC, which starts a
    terminal's escape sequences, newlines, bidirectional overrides, lone surrogates) written as its escape
    (\\x1b, \\n, \\u202e): shown, never interpreted."""
    return "".join(c if c.isprintable() else _ESCAPES.get(c) or _escape(c) for c in text)


def _escape(c: str) -> str:
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def markdown_text(text: str) -> str:
    """`text` for a Markdown page (mkdocs, GitHub), shown as it is: non-printable characters escaped (`visible`),
    the characters Markdown reads as markup (`\\`, backtick, `*`, `_`, `{`, `}`, `[`, `]`, `|`) escaped by a
    backslash, and `<`, `>`, `&` and `~` written as HTML entities: no raw HTML, entity, link, emphasis, code,
    attribute list or cell break comes from a name."""
    return _MARKUP.sub(lambda m: _ENTITIES.get(m.group(), "\\" + m.group()), visible(text))


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;", "~": "&#126;"}
_MARKUP = re.compile(r"[\\`*_{}\[\]|~<>&]")


def _rating_text(value) -> str:
    return "–" if value is None else f"{value[0]:.0f} [{value[1]:.0f}, {value[2]:.0f}]"


def _cell_text(cell: dict | None) -> str:
    if cell is None:
        return "–"
    if cell["status"] != "played":
        return "refused"
    return f"{cell['win_rate']:.1%} [{cell['low'] * 100:.1f}, {cell['high'] * 100:.1f}]"


def leaderboard(documents: Sequence[dict], suite: Suite | None = None, *, bootstrap: int | None = None,
                seed: int = 0) -> Leaderboard:  # fmt: skip
    """The leaderboard of results documents of one suite (one per candidate; a later one of the same candidate
    replaces an earlier one): per episode kind, Bradley-Terry ratings fitted to every cell's comparisons between
    candidate and opponent (the same name is the same agent, as candidate or opponent), with percentile
    bootstrap intervals that resample each cell's deals (the deal is the unit); and every cell's win rate. Every
    document is checked against the suite (`check_results`) before anything is computed; the suite is the shipped
    one the documents name unless `suite` is given."""
    if not documents:
        raise ValueError("a leaderboard needs at least one results file")
    names = {results_suite(d, f"results document {i + 1}") for i, d in enumerate(documents)}
    if len(names) != 1:
        raise ValueError("the results are of different suites (or suite versions): "
                         + ", ".join(sorted(f"{n} ({sha[:12]})" for n, sha in names)))  # fmt: skip
    name, sha = names.pop()
    if suite is None:
        if name not in suite_names():
            raise ValueError(f"the results were made with the suite {name!r}, which uno-env does not ship: give "
                             "that suite")  # fmt: skip
        suite = load_suite(name)
    if suite.sha256 != sha:
        raise ValueError(f"the results were made with another {name} than this one (hash {sha[:12]})")
    for i, document in enumerate(documents):
        check_results(document, suite, f"results document {i + 1} ({_shown(document.get('agent'))})")
    prior = float(suite.ratings.get("prior", 1.0))
    bootstrap = suite.ratings.get("bootstrap", 200) if bootstrap is None else bootstrap
    if not _is_int(bootstrap, 0, MAX_BOOTSTRAP):
        raise ValueError(f"bootstrap is a whole number of replicates from 0 to {MAX_BOOTSTRAP:,}, got "
                         f"{_shown(bootstrap)}")  # fmt: skip
    by_agent = {d["agent"]: d for d in documents}
    opponents = {o.name for o in suite.opponents}
    if len(set(by_agent) | opponents) > MAX_AGENTS:
        raise ValueError(f"a leaderboard rates at most {MAX_AGENTS} agents, candidates and the suite's opponents "
                         f"together; these results name {len(set(by_agent) | opponents)}")  # fmt: skip
    cells = {a: {f"{c['table']}/{c['opponent']}/{c['episode']}": c for c in d["cells"]} for a, d in by_agent.items()}
    ratings = {}
    for episode in EPISODES:
        ratings[episode] = _fit(by_agent, episode, prior, bootstrap, seed)
    order = sorted(by_agent, key=lambda a: -ratings["round"].get(a, (-math.inf,))[0])
    runs = {a: {k: d.get(k) for k in ("games_scale", "seconds", "uno_env_version", "created", "workers")}
            for a, d in by_agent.items()}  # fmt: skip
    return Leaderboard(suite, order, ratings, cells, runs)


#: the most numbers the bootstrap holds at once, per block of replicates (draws, and the matrices it fits): its
#: memory is bounded by this, whatever the deals and the agents
BOOTSTRAP_BLOCK = 2**18


def _fit(by_agent: dict, episode: str, prior: float, bootstrap: int, seed: int) -> dict:
    """name -> (rating, low, high) from the comparisons of every played cell of `episode`. A bootstrap replicate
    resamples each cell's deals with replacement; deals with the same comparisons are one pattern, and a replicate
    draws the count of each (a multinomial; deals are drawn one by one where most deals differ), a block of
    replicates at a time (`BOOTSTRAP_BLOCK`)."""
    played = [(agent, c) for agent, d in by_agent.items() for c in d["cells"]
              if c["episode"] == episode and c["status"] == "played" and c["opponent"] != agent]  # fmt: skip
    if not played:
        return {}
    names = list(dict.fromkeys([a for a, _ in played] + [c["opponent"] for _, c in played]))
    index = {n: i for i, n in enumerate(names)}
    k = len(names)
    patterns = []  # per cell: candidate, opponent, per-deal comparisons (D, 2), the distinct ones (P, 2), shares
    point = np.zeros((k, k))
    for agent, cell in played:
        per_deal = np.asarray(cell["per_deal"]["comparisons"], float).reshape(-1, 2)
        a, o = index[agent], index[cell["opponent"]]
        total = per_deal.sum(axis=0)
        point[a, o] += total[0]
        point[o, a] += total[1]
        rows, counts = np.unique(per_deal, axis=0, return_counts=True)
        patterns.append((a, o, per_deal, rows, counts / counts.sum()))
    rating = _to_rating(bradley_terry(point, prior))
    if not bootstrap:
        return {n: (float(rating[i]),) * 3 for n, i in index.items()}
    rng = np.random.default_rng(seed)
    boot = np.empty((bootstrap, k))
    block = max(1, min(bootstrap, BOOTSTRAP_BLOCK // (k * k)))
    for start in range(0, bootstrap, block):
        size = min(block, bootstrap - start)
        wins = np.zeros((size, k, k))
        for a, o, per_deal, rows, shares in patterns:
            deals, few = len(per_deal), 8 * len(rows) <= len(per_deal)  # few patterns: count them, else pick deals
            step = max(1, BOOTSTRAP_BLOCK // (len(rows) if few else deals))
            for first in range(0, size, step):
                m = min(step, size - first)
                if few:
                    drawn = rng.multinomial(deals, shares, size=m) @ rows  # (replicates, 2)
                else:
                    drawn = per_deal[rng.integers(0, deals, (m, deals))].sum(axis=1)
                wins[first : first + m, a, o] += drawn[:, 0]
                wins[first : first + m, o, a] += drawn[:, 1]
        boot[start : start + size] = _to_rating(bradley_terry(wins, prior))
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    return {n: (float(rating[i]), float(low[i]), float(high[i])) for n, i in index.items()}


def write_leaderboard(folder: str | Path, board: Leaderboard) -> tuple[Path, Path]:
    """leaderboard.md and leaderboard.html in `folder`."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    return (write_atomic(folder / "leaderboard.md", board.markdown()),
            write_atomic(folder / "leaderboard.html", board.html()))  # fmt: skip


# ------------------------------------------------------------------------------------------------ compare


def compare(
    first: str,
    second: str,
    suite: Suite | str = DEFAULT_SUITE,
    *,
    table: str | None = None,
    opponent: str = "counter",
    episode: str = "round",
    test: SequentialTest | None = None,
    max_deals: int | None = None,
    trust: bool = False,
    batch_size: int = 1024,
    progress=None,
) -> SequentialResult:
    """Is `first` better than `second`? Both play the same deals of the suite's compare bank at `table` (the
    suite's first table by default), each deal once with the agent in every seat against `opponent` in the
    others, block by block, until the sequential test (`uno_env.arena.bench_stats`; the suite's settings unless
    `test` is given) ends or `max_deals` are spent. `progress(result)` is called after each block."""
    suite = load_suite(suite) if isinstance(suite, str) else suite
    if episode not in EPISODES:
        raise ValueError(f"episode is one of {', '.join(EPISODES)}, got {episode!r}")
    test = test or SequentialTest(**_test_settings(suite.compare))
    max_deals = int(suite.compare.get("max_deals", 20_000)) if max_deals is None else max_deals
    if not _is_int(max_deals, test.min_deals, MAX_COMPARE_DEALS):
        raise ValueError(f"max_deals is a whole number from the test's min_deals ({test.min_deals}) to "
                         f"{MAX_COMPARE_DEALS:,}, got {_shown(max_deals)}")  # fmt: skip
    for name in (first, second, opponent):
        check_agent_name(name)
    where = suite.table(table) if table is not None else suite.tables[0]
    first_seed = int(suite.compare["first_seeds"][episode])
    cell = Cell(where, suite.tables.index(where), opponent, COMPARE_OPPONENT, episode, first_seed, max_deals)
    agents = {}
    for role, name in enumerate((first, second)):
        agents[role] = {"candidate": build_agent(name, where, agent_seed(suite.agent_seed, cell, role), trust),
                        "opponent": build_agent(opponent, where, agent_seed(suite.agent_seed, cell, 2), False)}
    lineup = ["candidate"] + ["opponent"] * (where.players - 1)
    differences: list[float] = []
    result = decide([], test)
    while len(differences) < max_deals:
        size = min(test.block if differences else max(test.min_deals, test.block), max_deals - len(differences))
        seed = first_seed + len(differences)
        wins = []
        for role in (0, 1):
            records = play_games(agents[role], lineup, where.rules, games=size * where.players, seed=seed,
                                 batch_size=batch_size, episode=episode)  # fmt: skip
            wins.append(np.asarray(cell_report(records, where.players)["per_deal"]["wins"]))
        differences.extend(((wins[0] - wins[1]) / where.players).tolist())
        result = decide(differences, test, final=len(differences) >= max_deals)
        if progress is not None:
            progress(result)
        if result.decision != "undecided":
            break
    return result


# ------------------------------------------------------------------------------------------------ the command


def build_parser() -> cli.ArgumentParser:
    parser = cli.ArgumentParser(prog="uno-bench", description="Versioned evaluation suites of UNO agents: run a "
                                "suite, make its leaderboard, or test whether one agent is better than another.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=cli.ArgumentParser)
    run = commands.add_parser("run", help="play agents through a suite; write their results and the leaderboard")
    run.add_argument("agents", nargs="+", metavar="AGENT",
                     help="registry names (counter, ppo:{preset}: each table's shipped policy, ismcts:100, ...) or "
                          "your own class as module:Class (with --trust)")  # fmt: skip
    _suite_flag(run)
    run.add_argument("--games-scale", type=_scale, default=1.0, metavar="X",
                     help="play this share of each cell's deals, its first ones (default: 1, the whole suite)")
    run.add_argument("--tables", nargs="+", metavar="ID", help="only these tables (default: all)")
    cli.add_out(run, "bench-results", help="folder for AGENT.json results, leaderboard.md and leaderboard.html")
    run.add_argument("--workers", type=WORKERS, default=1, metavar="INT",
                     help=f"processes playing cells at once, one core each, 1 to {MAX_WORKERS} (default: 1)")
    run.add_argument("--draw-luck", action="store_true",
                     help="also report each cell's win rate adjusted by the draw-luck control variate (replays every "
                          "game: slower; see docs/benchmark.md)")  # fmt: skip
    run.add_argument("--trust", action="store_true",
                     help="allow module:Class agents (importing runs the module's code) and sb3:/rllib: files")
    run.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True,
                     help="a progress bar (default: %(default)s)")  # fmt: skip
    board = commands.add_parser("leaderboard", help="the leaderboard of results files (markdown and HTML)")
    board.add_argument("results", nargs="+", type=Path, metavar="FILE", help="results files of one suite")
    board.add_argument("--suite", metavar="NAME|FILE",
                       help="the suite they were made with (default: the shipped suite the files name)")
    cli.add_out(board, "bench-results", help="folder for leaderboard.md and leaderboard.html")
    comp = commands.add_parser("compare", help="a sequential test: is agent A better than agent B?")
    comp.add_argument("first", metavar="A")
    comp.add_argument("second", metavar="B")
    _suite_flag(comp)
    comp.add_argument("--table", metavar="ID", help="the suite's table to play at (default: its first)")
    comp.add_argument("--opponent", default="counter", help="the agent in the other seats (default: counter)")
    cli.add_episode(comp)
    comp.add_argument("--alpha", type=cli.positive_float, metavar="P",
                      help="chance of declaring a difference between equal agents, both ways (default: the suite's)")
    comp.add_argument("--beta", type=cli.positive_float, metavar="P",
                      help="chance of missing a difference of delta (default: the suite's)")
    comp.add_argument("--delta", type=cli.positive_float, metavar="D",
                      help="the smallest difference of win rates that matters (default: the suite's)")
    comp.add_argument("--block", type=cli.int_in_range(2, MAX_DEALS), metavar="DEALS",
                      help=f"deals per look, 2 to {MAX_DEALS:,} (default: the suite's)")
    comp.add_argument("--max-deals", type=cli.int_in_range(2, MAX_COMPARE_DEALS), metavar="DEALS",
                      help=f"stop undecided after this many deals, 2 to {MAX_COMPARE_DEALS:,} (default: the suite's)")
    comp.add_argument("--trust", action="store_true", help="allow module:Class agents and sb3:/rllib: files")
    comp.add_argument("--json", type=Path, metavar="FILE", help="also write the result as JSON")
    commands.add_parser("suites", help="list the suites shipped with uno-env")
    parser.epilog = "commands:\n" + "\n".join(
        "  " + sub.format_usage().strip().removeprefix("usage: ") for sub in commands.choices.values())
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


WORKERS = cli.int_in_range(1, MAX_WORKERS)  # --workers: processes, each one core


def _suite_flag(parser) -> None:
    parser.add_argument("--suite", default=DEFAULT_SUITE, metavar="NAME|FILE",
                        help=f"a suite's name or a suite JSON file (default: {DEFAULT_SUITE})")  # fmt: skip


def _scale(text: str) -> float:
    value = cli.positive_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1], a share of the suite's deals, got {text!r}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "suites":
            for name in suite_names():
                suite = load_suite(name)
                cells = suite.cells()
                games = sum(c.deals * c.table.players for c in cells)
                state = "published" if name in PUBLISHED else "not published"
                print(f"{name} ({state}, sha256 {suite.sha256[:16]}): {len(suite.tables)} tables, "
                      f"{len(suite.opponents)} opponents, {len(cells)} cells, {games:,} games per candidate")
            return 0
        if args.command == "leaderboard":
            suite = load_suite(args.suite) if args.suite else None
            documents = []
            for path in args.results:  # every file checked whole before anything is computed
                documents.append(read_results(path, suite))
                suite = suite or load_suite(documents[0]["suite"]["name"])
            board = leaderboard(documents, suite)
            paths = write_leaderboard(args.out, board)
            print(board.markdown().split("\n## ")[0])
            print(f"leaderboard in {visible(str(paths[0].resolve()))} and {visible(paths[1].name)}")
            return 0
        if args.command == "run":
            return _run(args, parser)
        return _compare(args)
    except (SuiteError, *USER_ERRORS) as error:
        parser.error(str(error) or type(error).__name__)


def _run(args, parser) -> int:
    suite = load_suite(args.suite)
    if args.tables:
        for table in args.tables:
            suite.table(table)
    for agent in args.agents:
        check_agent_name(agent)
        parse_agent(agent.replace(PLACEHOLDER, suite.tables[0].preset))  # the catalogue's one-line refusal
        if is_user_class(agent) and not args.trust:
            parser.error(f"{agent!r} names a class of your own (module:Class): importing it runs its module's code, "
                         "so it loads only with --trust")  # fmt: skip
    check_run(suite, args.games_scale, args.tables, args.workers, args.draw_luck)
    documents = _suite_results(args.out, suite, skip={results_path(args.out, agent) for agent in args.agents})
    args.out.mkdir(parents=True, exist_ok=True)
    for agent in args.agents:
        results = run_suite(agent, suite, games_scale=args.games_scale, tables=args.tables, trust=args.trust,
                            workers=args.workers, draw_luck=args.draw_luck, progress=args.progress)  # fmt: skip
        path = write_results(results_path(args.out, agent), results)
        documents[path] = results
        refused = sum(c["status"] != "played" for c in results["cells"])
        print(f"{visible(agent)}: {len(results['cells'])} cells ({refused} refused) in {results['seconds']:.0f} s "
              f"-> {visible(str(path))}")  # fmt: skip
    board = leaderboard([documents[path] for path in sorted(documents)], suite)
    paths = write_leaderboard(args.out, board)
    print(board.markdown().split("\n## ")[0])
    print(f"leaderboard of {len(board.agents)} agents in {visible(str(paths[0].resolve()))} and {paths[1].name}")
    return 0


def _suite_results(folder: Path, suite: Suite, skip: set[Path]) -> dict[Path, dict]:
    """The results files of `suite` in `folder` (but those in `skip`, which a run replaces), each checked whole
    (`check_results`): a damaged one is refused, naming it, before any game. JSON files that are no uno-bench
    results, and results of other suites, are left alone."""
    found = {}
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        if path in skip:
            continue
        document = _read_json(path, "uno-bench results file", MAX_RESULTS_BYTES, ResultsError)
        if not isinstance(document, dict) or document.get("format") != RESULTS_FORMAT:
            continue
        if results_suite(document, str(path))[1] == suite.sha256:
            found[path] = check_results(document, suite, str(path))
    return found


def _compare(args) -> int:
    suite = load_suite(args.suite)
    settings = _test_settings(suite.compare)
    for key in ("alpha", "beta", "delta", "block"):
        if getattr(args, key) is not None:
            settings[key] = getattr(args, key)
    test = SequentialTest(**settings)

    def report(result: SequentialResult) -> None:
        print(f"  {result.deals:>6} deals: A - B = {result.mean:+.2%} [{result.low:+.2%}, {result.high:+.2%}], "
              f"LLR up {result.llr_up:+.2f} down {result.llr_down:+.2f} (bounds {result.lower_bound:.2f}, "
              f"{result.upper_bound:.2f})", flush=True)  # fmt: skip

    start = time.perf_counter()
    result = compare(args.first, args.second, suite, table=args.table, opponent=args.opponent, episode=args.episode,
                     test=test, max_deals=args.max_deals, trust=args.trust, progress=report)  # fmt: skip
    seconds = time.perf_counter() - start
    where = suite.table(args.table) if args.table else suite.tables[0]
    fixed = test.fixed_deals(result.sd) if result.sd > 0 else None
    print(f"{result.decision}: A = {visible(args.first)}, B = {visible(args.second)}, at {where.id} against "
          f"{visible(args.opponent)}; "
          f"{result.deals} deals ({result.deals * where.players * 2:,} games) in {seconds:.0f} s; a fixed-size test "
          f"at the same error rates (alpha {test.alpha:g}, beta {test.beta:g}, delta {test.delta:g}) needs "
          f"{fixed if fixed else '?'} deals")  # fmt: skip
    if args.json is not None:
        write_atomic(args.json, json.dumps({"first": args.first, "second": args.second, "table": where.id,
                                            "opponent": args.opponent, "episode": args.episode,
                                            "test": settings, "seconds": seconds, "fixed_deals": fixed,
                                            **result.as_dict()}, indent=1) + "\n")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
