"""uno-bench at its edges: suites and results files are checked whole when they are read (types, ranges, finite
numbers, counts a cell allows, only the suite's cells, bounded sizes), before anything is played or computed, with one
line that names the file and the field; names show as text on the leaderboard's pages and in the terminal; the
bootstrap's memory does not grow with the deals."""

import copy
import html
import json
import re
import tracemalloc

import markdown
import numpy as np
import pytest

from uno_env.arena import bench, bench_results, bench_run, bench_suites
from uno_env.arena.bench import SuiteError, leaderboard, load_suite, main, parse_suite, read_results, write_results

SMOKE_FILE = bench.SUITES_DIR / "uno-bench-smoke.json"
BAD_VALUES = [None, True, "x", -1, 2**70, 1e308, [], {}, [[[]]]]


@pytest.fixture(scope="module")
def smoke():
    return load_suite("uno-bench-smoke")


@pytest.fixture(scope="module")
def greedy(smoke):
    return bench.run_suite("greedy", smoke)


@pytest.fixture(scope="module")
def counter(smoke):
    return bench.run_suite("counter", smoke)


def _smoke_document():
    return json.loads(SMOKE_FILE.read_text())


def _paths(value, path=()):
    """Every place in a JSON document (a list's first two items only), as key paths."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value[:2]):
            yield from _paths(item, (*path, i))


def _replaced(document, path, value):
    out = copy.deepcopy(document)
    if not path:
        return value
    target = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return out


def _one_line(message, *parts):
    assert "\n" not in message and all(part in message for part in parts), message


# ------------------------------------------------------------------------------------------------ results files


@pytest.mark.parametrize("constant", ["Infinity", "-Infinity", "NaN", "1e999"])
def test_a_results_file_with_a_non_finite_number_is_refused_at_load(tmp_path, greedy, constant):
    marked = _replaced(greedy, ("cells", 1, "per_deal", "comparisons", 0, 0), 12345.678)
    path = write_results(tmp_path / "greedy.json", marked)
    path.write_text(path.read_text().replace("12345.678", constant))
    with pytest.raises(ValueError) as error:
        read_results(path)
    _one_line(str(error.value), str(path))


@pytest.mark.parametrize(
    "field, value, message",
    [
        (("per_deal", "comparisons", 0, 0), -1.0, "per_deal.comparisons[0][0]"),
        (("per_deal", "comparisons", 1, 1), 1e9, "per_deal.comparisons[1][1]"),
        (("per_deal", "wins", 0), -2.0, "per_deal.wins[0]"),
        (("per_deal", "wins", 0), 3.0, "per_deal.wins[0]"),
        (("per_deal", "seeds", 0), 5, "per_deal.seeds"),
        (("per_deal", "points", 0), "12", "per_deal.points[0]"),
        (("games",), -8, "games"),
        (("deals",), 10**12, "deals"),
        (("win_rate",), 1.5, "win_rate"),
        (("undecided",), -1, "undecided"),
        (("first_seed",), 0, "first_seed"),
        (("status",), "won", "status"),
        (("mean_length",), -3.0, "mean_length"),
    ],
)
def test_counts_and_rates_out_of_their_range_are_refused(smoke, greedy, field, value, message):
    document = _replaced(greedy, ("cells", 0, *field), value)
    with pytest.raises(ValueError) as error:
        bench.check_results(document, smoke, "greedy.json")
    _one_line(str(error.value), "greedy.json: cells[0]", message)
    with pytest.raises(ValueError):  # the leaderboard checks before it computes
        leaderboard([document], smoke, bootstrap=0)


def test_cells_the_suite_does_not_have_are_refused(smoke, greedy):
    """A cell for a table or an opponent the suite lacks would move every rating yet show in no table."""
    for key, value in (("table", "ghost-2p"), ("opponent", "nobody"), ("episode", "season")):
        cells = greedy["cells"][:-1] + [dict(greedy["cells"][0], **{key: value})]
        with pytest.raises(ValueError, match=r"cells\[5\] is the cell .* the suite has no such cell"):
            bench.check_results(dict(greedy, cells=cells), smoke)
    twice = dict(greedy, cells=greedy["cells"][:-1] + [greedy["cells"][0]])
    with pytest.raises(ValueError, match=r"cells\[5\] is the cell 'classic-2p/random/round' a second time"):
        leaderboard([twice], smoke)
    with pytest.raises(ValueError, match="cells is a list of at most the 6 cells"):
        bench.check_results(dict(greedy, cells=greedy["cells"] + [greedy["cells"][0]]), smoke)
    with pytest.raises(ValueError, match="tables lists distinct tables"):
        bench.check_results(dict(greedy, tables=["classic-2p", "ghost-2p"]), smoke)


def test_the_deals_of_a_cell_are_those_its_scale_plays(smoke):
    half = bench.run_suite("greedy", smoke, games_scale=0.5, tables=["classic-2p"])
    bench.check_results(half, smoke)
    with pytest.raises(ValueError, match=r"random/round\) deals is 4, the deals of this cell at games_scale 1"):
        bench.check_results(dict(half, games_scale=1.0), smoke)


def test_malformed_results_get_one_line_never_a_traceback(smoke, greedy, counter):
    """Every field of a results document replaced by values of every kind: the check refuses it with a ValueError
    (one line) or accepts it, and then the leaderboard is made: never a KeyError, TypeError or RecursionError."""
    tried = refused = 0
    for path in _paths(greedy):
        for value in BAD_VALUES:
            document = _replaced(greedy, path, value)
            tried += 1
            try:
                board = leaderboard([document, counter], smoke, bootstrap=2)
            except ValueError as error:
                refused += 1
                assert "\n" not in str(error)
                continue
            board.markdown(), board.html()
    assert tried > 500 and refused > 0.95 * tried


def test_a_damaged_results_file_is_refused_in_one_line(tmp_path, greedy, monkeypatch):
    path = tmp_path / "greedy.json"
    for text, message in [
        ("[" * 100_000, "nested too deeply"),
        ('{"format": "uno-bench-results", "format": "x"}', "the key 'format' twice"),
        ("\xff\xfe", "not a uno-bench results file"),
        ("{}", "format 'uno-bench-results'"),
    ]:
        path.write_bytes(text.encode("latin-1"))
        with pytest.raises(ValueError) as error:
            read_results(path)
        _one_line(str(error.value), str(path), message)
    with pytest.raises(ValueError, match="not a file"):
        read_results(tmp_path)
    write_results(path, greedy)
    monkeypatch.setattr(bench_results, "MAX_RESULTS_BYTES", 1000)
    with pytest.raises(ValueError, match="larger than"):
        read_results(path)


def test_results_of_a_suite_uno_env_does_not_ship_need_that_suite(tmp_path, smoke, greedy):
    document = json.loads(json.dumps(smoke.document))
    document["name"] = "my-bench"
    suite_path = tmp_path / "my-bench.json"
    suite_path.write_text(json.dumps(document))
    mine = load_suite(suite_path)
    results = bench.run_suite("greedy", mine, tables=["classic-2p"])
    (tmp_path / "out").mkdir()
    path = write_results(tmp_path / "out" / "greedy.json", results)
    with pytest.raises(ValueError, match="does not ship"):
        read_results(path)
    assert read_results(path, mine) == json.loads(json.dumps(results))
    with pytest.raises(ValueError, match="not with the uno-bench-smoke given"):
        read_results(path, smoke)
    assert main(["leaderboard", str(path), "--suite", str(suite_path), "--out", str(tmp_path / "board")]) == 0


def test_the_leaderboard_command_checks_every_file_before_computing(tmp_path, greedy, capsys):
    good = write_results(tmp_path / "greedy.json", greedy)
    bad = write_results(tmp_path / "bad.json", _replaced(greedy, ("cells", 2, "per_deal", "comparisons", 0, 1), -5))
    out = tmp_path / "board"
    with pytest.raises(SystemExit) as exit_info:
        main(["leaderboard", str(good), str(bad), "--out", str(out)])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.count("\n") == 1 and "Traceback" not in err
    _one_line(err.strip(), str(bad), "cells[2]", "per_deal.comparisons[0][1]")
    assert not out.exists()


def test_a_run_checks_the_existing_results_before_any_game(tmp_path, greedy, capsys, monkeypatch):
    out = tmp_path / "bench"
    out.mkdir()
    write_results(out / "counter.json", _replaced(greedy, ("cells", 0, "per_deal", "wins", 1), -1.0))
    played = []
    monkeypatch.setattr(bench, "run_suite", lambda *args, **kwargs: played.append(args))
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "random", "--suite", "uno-bench-smoke", "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.count("\n") == 1 and str(out / "counter.json") in err
    assert played == [] and sorted(p.name for p in out.iterdir()) == ["counter.json"]


def test_draw_luck_on_too_few_deals_is_refused_before_any_game(tmp_path, capsys):
    out = tmp_path / "bench"
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "greedy", "--suite", "uno-bench-smoke", "--draw-luck", "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and "--draw-luck needs at least 9 deals a cell" in err and not out.exists()


# ------------------------------------------------------------------------------------------------ suites


@pytest.mark.parametrize(
    "field, value, message",
    [
        (("opponents", 0, "deals", "round"), 10**12, "whole numbers from 0 to 20,000"),
        (("opponents", 0, "deals", "round"), -1, "whole numbers from 0 to 20,000"),
        (("opponents", 0, "deals", "round"), True, "whole numbers from 0 to 20,000"),
        (("opponents", 0, "tables"), "classic-2p", "tables lists distinct tables of the suite"),
        (("opponents", 1, "name"), "random", "opponent names are distinct"),
        (("opponents", 1, "name"), "x" * 1000, "a text of 1 to 256 characters"),
        (("ratings", "bootstrap"), 10**9, "replicates from 0 to 10,000"),
        (("ratings", "prior"), 0, "prior is a number of virtual games above 0"),
        (("compare", "max_deals"), 10**12, "max_deals is a whole number of deals from min_deals (20) to 1,000,000"),
        (("compare", "block"), 10**12, "block is a whole number of deals from 2 to 20,000"),
        (("compare", "first_seeds", "round"), -1, "compare.first_seeds"),
        (("tables", 0, "players"), True, "num_players must be an int"),
        (("tables", 0, "id"), ["classic-2p"], "tables[0].id is lowercase letters"),
        (("tables", 0, "options"), {"hand_size": [7]}, "options maps rule options to values"),
        (("deal_bank", "season"), 5, "deal_bank names a first seed"),
        (("agent_seed",), -1, "agent_seed is a whole number from 0 to 2**64 - 1"),
        (("description",), {"text": "x"}, "description is a text"),
        (("report", "per_deal"), [[[]]], "report maps names to texts"),
        (("deal_digests", "classic-2p", "round"), 7, "deal_digests maps table ids to a sha256 digest"),
        (("opponents",), [], "opponents is a list of 1 to 100"),
    ],
)
def test_a_suite_is_checked_whole_with_its_counts_bounded(field, value, message):
    document = _replaced(_smoke_document(), field, value)
    document["name"] = "my-bench"
    with pytest.raises(SuiteError) as error:
        parse_suite(document, "my.json")
    _one_line(str(error.value), "my.json: ", message)


def test_a_suite_asks_for_a_bounded_number_of_deals_in_all():
    document = _smoke_document()
    document["name"] = "my-bench"
    for opponent in document["opponents"]:
        opponent["deals"] = {"round": 20_000, "match": 20_000}
    with pytest.raises(SuiteError, match="ask for 160,000 deals in all; a suite asks for at most 100,000"):
        parse_suite(document)
    for opponent in document["opponents"]:
        opponent["deals"] = {}
    with pytest.raises(SuiteError, match="has no cell"):
        parse_suite(document)


def test_malformed_suites_get_one_line_never_a_traceback():
    document = _smoke_document()
    document["name"] = "my-bench"
    tried = refused = 0
    for path in _paths(document):
        for value in BAD_VALUES:
            tried += 1
            try:
                suite = parse_suite(_replaced(document, path, value))
            except SuiteError as error:
                refused += 1
                assert "\n" not in str(error)
                continue
            suite.cells()
    assert tried > 500 and refused > 0.8 * tried


def test_a_damaged_suite_file_is_refused_in_one_line(tmp_path):
    path = tmp_path / "suite.json"
    for text, message in [
        (SMOKE_FILE.read_text().replace('"alpha": 0.05', '"alpha": NaN'), "NaN"),
        ('{"report": ' + "[" * 100_000, "nested too deeply"),
        ("x" * (bench.MAX_SUITE_BYTES + 1), "larger than 1 MiB"),
    ]:
        path.write_text(text)
        with pytest.raises(SuiteError) as error:
            load_suite(path)
        _one_line(str(error.value), str(path), message)


# ------------------------------------------------------------------------------------------------ the command


def test_run_suite_bounds_its_workers(smoke):
    for workers in (0, 10**30, 2.0, True):
        with pytest.raises(ValueError, match="workers is a whole number from 1 to 1024"):
            bench.run_suite("greedy", smoke, workers=workers)


# ------------------------------------------------------------------------------------------------ names


HOSTILE = "<script>alert(1)</script> |`x`| *y* _z_ [l](javascript:alert(1)) ~~{preset}~~\n\x1b[31mred\x1b[0m &amp;"


def test_names_show_as_text_on_the_pages_and_in_the_terminal(tmp_path, greedy, counter, capsys):
    odd = dict(greedy, agent=HOSTILE)
    page = leaderboard([odd, counter], bootstrap=0)
    text = page.markdown()
    assert "\x1b" not in text and "<script" not in text and "\n\x1b" not in text
    header = None
    for line in text.splitlines():  # every row of a table has its header's cells, whatever the names hold
        cells = len(re.findall(r"(?<!\\)\|", line)) if line.startswith("|") else None
        header = header if cells and header else cells
        assert cells == header
    rendered = markdown.markdown(text, extensions=["tables", "attr_list"])
    assert "<script" not in rendered and "onclick" not in rendered and "href" not in rendered
    assert "<code>" not in rendered and "<em>" not in rendered and "<strong>" not in rendered
    shown = bench.visible(HOSTILE)  # what a reader sees: the name, its control characters escaped
    assert shown.startswith("<script>alert(1)</script> |`x`|") and shown.endswith("~~\\n\\x1b[31mred\\x1b[0m &amp;")
    assert f"<td>{shown}</td>" in html.unescape(rendered)
    page_html = page.html()
    assert "\x1b" not in page_html and "<script" not in page_html and f"<td>{html.escape(shown)}</td>" in page_html
    odd_path = write_results(tmp_path / "odd.json", odd)
    assert main(["leaderboard", str(odd_path), "--out", str(tmp_path / "board")]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and bench.markdown_text(HOSTILE) in out  # the Markdown, as leaderboard.md holds it


def test_visible_escapes_what_a_terminal_would_interpret():
    assert bench.visible("a\x1b[2Jb\n\r\t\x7f\u202e\ud800 é ✓") == "a\\x1b[2Jb\\n\\r\\t\\x7f\\u202e\\ud800 é ✓"
    assert bench.markdown_text("a|b<c>&d\\e~") == "a\\|b&lt;c&gt;&amp;d\\\\e&#126;"


# ------------------------------------------------------------------------------------------------ memory


def test_the_bootstrap_memory_does_not_grow_with_the_deals():
    """A results file of 20,000 deals in one cell, every deal's comparisons distinct (the worst case for the
    bootstrap): the leaderboard with 200 replicates stays under 16 MiB of peak memory (resampling the deals all at
    once took 5 KB a deal: about 100 MiB here)."""
    document = _smoke_document()
    document.update(name="big-bench", deal_digests={})
    document["tables"] = document["tables"][:1]
    document["opponents"] = [{"name": "random", "deals": {"round": 20_000}}]
    suite = parse_suite(document)
    (cell,) = suite.cells()
    rng = np.random.default_rng(0)
    wins = rng.integers(0, 3, cell.deals).astype(float)
    comparisons = np.stack([wins, 2 - wins], axis=1) * rng.uniform(0.999, 1, (cell.deals, 2))
    results = {
        "format": bench.RESULTS_FORMAT, "format_version": bench.RESULTS_VERSION,
        "suite": {"name": suite.name, "sha256": suite.sha256}, "agent": "big", "games_scale": 1.0,
        "tables": suite.table_ids, "uno_env_version": "0", "created": "2026-01-01T00:00:00+00:00", "seconds": 1.0,
        "workers": 1, "draw_luck": False,
        "cells": [{**bench_run._cell_head(cell), "status": "played", "games": cell.deals * 2,
                   "win_rate": float(wins.sum() / cell.deals / 2), "low": 0.0, "high": 1.0, "fair_share": 0.5,
                   "mean_points": 10.0, "undecided": 0, "mean_length": 50.0, "seconds": 1.0,
                   "per_deal": {"seeds": list(range(cell.first_seed, cell.first_seed + cell.deals)),
                                "wins": wins.tolist(), "points": wins.tolist(), "comparisons": comparisons.tolist()}}],
    }  # fmt: skip
    tracemalloc.start()
    try:
        board = leaderboard([results], suite, bootstrap=200)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, f"peak {peak / 2**20:.1f} MiB"
    rating, low, high = board.ratings["round"]["big"]
    assert low < rating < high and high - low < 30


def test_deals_are_dealt_and_replayed_a_batch_at_a_time(smoke, monkeypatch):
    """`deal_digest` and `draw_luck` work in batches of DEAL_BATCH games: the same digests and luck as in one."""
    cell = bench.Cell(smoke.tables[1], 1, "greedy", 0, "round", 31_000_000, 10)
    report = bench.play_cell(bench.CellJob("counter", False, cell, 1, 2, luck=True))
    table = smoke.tables[0]
    digest = bench.deal_digest(table, "round", 5, 7)
    monkeypatch.setattr(bench_suites, "DEAL_BATCH", 3)  # where the deals are dealt
    monkeypatch.setattr(bench_run, "DEAL_BATCH", 3)  # where the games are replayed
    bench.check_digests(smoke)
    assert bench.deal_digest(table, "round", 5, 7) == digest
    again = bench.play_cell(bench.CellJob("counter", False, cell, 1, 2, luck=True))
    assert again["draw_luck"]["per_deal"] == report["draw_luck"]["per_deal"]
