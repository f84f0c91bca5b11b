"""uno-bench's suites: what a suite fixes (the tables, the bank of deals and its digests, the reference opponents and
the shipped policies they seat, pinned by digest), how a suite file is read and checked whole, and the checks every
uno-bench file's fields go through (`read_json`, `is_int`, `is_text`, ...).

A published suite never changes: its hash is pinned in `PUBLISHED`, and a suite file that no longer hashes to it is
refused; a change is a new version. In the published suite format a table names its variant under the key "preset",
and an agent's name may hold the placeholder `{preset}`, which stands for each table's variant (`ppo:{preset}`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from uno_env import GameBatch, make_rules
from uno_env.agents.registry import MAX_NAME, shipped_files
from uno_env.extras import require_extra
from uno_env.validate import EPISODES, SEED_LIMIT

from .bench_stats import MAX_COMPARE_DEALS, MAX_DEALS, SequentialTest

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

# What a suite, a results file and a leaderboard may hold: each bound is checked where the file is read, before
# anything is played or computed, and named in the error. A cell's deals are bounded by `MAX_DEALS` (20,000).
MAX_SUITE_DEALS = 100_000  # the deals of all the cells of a suite together (uno-bench-v1: 8,850)
MAX_TABLES = MAX_OPPONENTS = 100
MAX_FIRST_SEED = 2**63 - 1  # a bank's first seed: its deals' seeds stay below 2**64
MAX_BOOTSTRAP = 10_000  # bootstrap replicates of the ratings
MAX_PRIOR = 1e6  # the ratings' prior, in virtual games
MAX_WORKERS = 1024  # processes of `uno-bench run --workers`
MAX_TEXT = 10_000  # characters of a text field (a suite's description, a refused cell's error)
MAX_AGENTS = 256  # agents on one leaderboard, candidates and reference opponents together
MAX_SUITE_BYTES = 2**20
MAX_RESULTS_BYTES = 64 * 2**20  # a results file of MAX_SUITE_DEALS deals with --draw-luck is under 40 MiB
_TABLE_ID = r"[a-z0-9][a-z0-9_.-]{0,63}"
DEAL_BATCH = 4096  # games dealt or replayed at once by `deal_digest` and `draw_luck` (about 9 KB each)



class SuiteError(ValueError):
    """A suite file that is not a valid suite, or a published suite that was changed."""


# ------------------------------------------------------------------------------------------------ suites


@dataclass(frozen=True)
class Table:
    """A table of a suite: an id, a variant with rule options, and the player count."""

    id: str
    variant: str
    players: int
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def rules(self):
        return make_rules(self.variant, **dict(self.options))


@dataclass(frozen=True)
class Opponent:
    """A reference opponent (a catalogue name; `{preset}` is each table's variant), the tables it sits at (all when
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
    return parse_suite(read_json(path, "suite JSON file", MAX_SUITE_BYTES, SuiteError), source=str(path))


def read_json(path: Path, what: str, limit: int, error_class: type[ValueError]) -> Any:
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


def is_int(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def is_number(value: Any, low: float = -math.inf, high: float = math.inf) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and low <= value <= high)  # fmt: skip


def is_text(value: Any, limit: int = MAX_TEXT) -> bool:
    """A str of at most `limit` characters that a UTF-8 file can hold (no lone surrogate)."""
    if not isinstance(value, str) or len(value) > limit:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def is_digest(value: Any) -> bool:
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
    need(document["format"] == SUITE_FORMAT and is_int(document["format_version"], SUITE_FORMAT_VERSION,
                                                         SUITE_FORMAT_VERSION),
         f"format must be {SUITE_FORMAT!r} version {SUITE_FORMAT_VERSION}")  # fmt: skip
    name = document["name"]
    need(isinstance(name, str) and re.fullmatch(r"[a-z0-9][a-z0-9.-]{0,63}", name) is not None,
         "name is lowercase letters, digits, dots and dashes (at most 64)")  # fmt: skip
    for key in ("description", "seating", "rotations"):
        need(is_text(document[key]), f"{key} is a text of at most {MAX_TEXT:,} characters")
    tables = []
    entries = document["tables"]
    need(isinstance(entries, list) and 1 <= len(entries) <= MAX_TABLES, f"tables is a list of 1 to {MAX_TABLES}")
    for i, entry in enumerate(entries):
        need(isinstance(entry, dict) and set(entry) == {"id", "preset", "players", "options"},
             f"tables[{i}] has exactly id, preset, players and options")  # fmt: skip
        table_id, options = entry["id"], entry["options"]
        need(isinstance(table_id, str) and re.fullmatch(_TABLE_ID, table_id) is not None,
             f"tables[{i}].id is lowercase letters, digits, '_', '.' and '-' (at most 64)")  # fmt: skip
        need(isinstance(entry["preset"], str), f"table {table_id!r}: preset is a variant's name")
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
    need(all(is_int(s, 0, MAX_FIRST_SEED) for _, s in first_seeds),
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
             and all(is_int(d, 0, MAX_DEALS) for d in deals.values()),
             f"opponent {entry['name']!r}: deals maps round and match to whole numbers from 0 to {MAX_DEALS:,}")
        need(isinstance(only, list) and all(isinstance(t, str) for t in only) and len(set(only)) == len(only)
             and set(only) <= set(ids), f"opponent {entry['name']!r}: tables lists distinct tables of the suite")
        opponents.append(Opponent(entry["name"], tuple(only), tuple((e, deals.get(e, 0)) for e in EPISODES)))
    names = [o.name for o in opponents]
    need(len(set(names)) == len(names), "opponent names are distinct")
    need(is_int(document["agent_seed"], 0, SEED_LIMIT - 1), "agent_seed is a whole number from 0 to 2**64 - 1")
    report = document["report"]
    need(isinstance(report, dict) and all(is_text(v) for v in report.values()), "report maps names to texts")
    ratings = document["ratings"]
    need(isinstance(ratings, dict) and set(ratings) <= _RATINGS_KEYS,
         f"ratings has only the keys {', '.join(sorted(_RATINGS_KEYS))}")  # fmt: skip
    need(ratings.get("model", "bradley-terry") == "bradley-terry", "ratings.model is 'bradley-terry'")
    need(is_int(ratings.get("bootstrap", 0), 0, MAX_BOOTSTRAP),
         f"ratings.bootstrap is a whole number of replicates from 0 to {MAX_BOOTSTRAP:,}")  # fmt: skip
    need(is_number(ratings.get("prior", 1.0), 0, MAX_PRIOR) and ratings.get("prior", 1.0) > 0,
         f"ratings.prior is a number of virtual games above 0 and at most {MAX_PRIOR:g}")  # fmt: skip
    need(all(is_text(ratings.get(k, "")) for k in ("interval", "scale")), "ratings.interval and scale are texts")
    compare = document["compare"]
    need(isinstance(compare, dict) and set(compare) == _COMPARE_KEYS,
         f"compare has exactly the keys {', '.join(sorted(_COMPARE_KEYS))}")  # fmt: skip
    try:
        test = SequentialTest(**sequential_settings(compare))  # checks them
    except (ValueError, TypeError) as error:
        raise SuiteError(f"{source}: compare: {error}") from None
    starts = compare["first_seeds"]
    need(isinstance(starts, dict) and set(starts) == set(EPISODES)
         and all(is_int(s, 0, MAX_FIRST_SEED) for s in starts.values()),
         f"compare.first_seeds gives the first seed of the compare bank for round and match, from 0 to "
         f"{MAX_FIRST_SEED}")  # fmt: skip
    need(is_int(compare["max_deals"], test.min_deals, MAX_COMPARE_DEALS),
         f"compare.max_deals is a whole number of deals from min_deals ({test.min_deals}) to "
         f"{MAX_COMPARE_DEALS:,}")  # fmt: skip
    digests = document["deal_digests"]
    need(isinstance(digests, dict) and set(digests) <= set(ids)
         and all(isinstance(v, dict) and set(v) <= set(EPISODES) and all(is_digest(d) for d in v.values())
                 for v in digests.values()), "deal_digests maps table ids to a sha256 digest per episode")
    policies = document["policy_digests"]
    need(isinstance(policies, dict) and set(policies) <= set(ids) and all(is_digest(v) for v in policies.values()),
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


def sequential_settings(compare: dict) -> dict:
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
    shipped = shipped_files("policy").get((table.variant, table.players))
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
    """Refuse (SuiteError, one line) a pinned policy trained on another observation layout than this version's; a
    plain install, which cannot read a policy, is told in one line to install the extra that can."""
    path = shipped_files("policy")[(table.variant, table.players)].path
    require_extra(f"{suite.name}'s policy at {table.id}", "torch")
    from uno_env.agents.policy import POLICY_FILE, load_plain_data
    from uno_env.observation import check_layout

    try:
        check_layout(f"{suite.name}'s policy at {table.id} ({path.name})", load_plain_data(path, POLICY_FILE))
    except ValueError as error:
        raise SuiteError(str(error)) from None


# ------------------------------------------------------------------------------------------------ agent names


def check_agent_name(name: Any) -> None:
    """A candidate or opponent name: a text of 1 to `MAX_NAME` characters; `{preset}` is the only placeholder it
    may hold."""
    if not is_text(name, MAX_NAME) or not name:
        raise ValueError(f"an agent is named by a text of 1 to {MAX_NAME} characters, got {short_repr(name)}")
    if re.search(r"[{}]", name.replace(PLACEHOLDER, "")):
        raise ValueError(f"{short_repr(name)}: the only placeholder an agent's name may hold is {PLACEHOLDER}")


def short_repr(value: Any, limit: int = 80) -> str:
    """`value` for an error message: its repr (control characters escaped), cut to `limit` characters."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**20:
        return f"a whole number of {value.bit_length()} bits"
    text = repr(value) if isinstance(value, (str, int, float, bool, type(None))) else f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def visible(text: str) -> str:
    """`text` with every character that is not printable (control characters such as ESC, which starts a
    terminal's escape sequences, newlines, bidirectional overrides, lone surrogates) written as its escape
    (\\x1b, \\n, \\u202e): shown, never interpreted."""
    return "".join(c if c.isprintable() else _ESCAPES.get(c) or _escape(c) for c in text)


def _escape(c: str) -> str:
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
