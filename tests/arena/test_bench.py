"""uno-bench: the published suite is pinned, the deal bank is the engine's, results are reproducible and true to the
games, user classes need trust, refusals are reported, the leaderboard ranks and escapes, the command's errors."""

import json
import re

import numpy as np
import pytest

from uno_env.arena import bench
from uno_env.arena.bench import (
    PUBLISHED,
    SuiteError,
    leaderboard,
    load_suite,
    main,
    parse_suite,
    read_results,
    run_suite,
    write_results,
)
from uno_env.arena.ratings import deal_interval
from uno_env.arena.tournament import play_games

#: uno-bench-v1 as published: pinned here too, so that an edit of the suite or of PUBLISHED fails a test
V1_SHA256 = "e6c97087b9e5842617d8a3dcde508bcaab17b362d0b3f80034be670215fcd95e"


class FirstLegal:
    """A user's agent class (module:Class): the lowest legal action."""

    observation = "minimal"

    def __init__(self, seed=None):
        self.seed = seed

    def act(self, observations, action_masks):
        return action_masks.argmax(axis=1)


@pytest.fixture(scope="module")
def smoke():
    return load_suite("uno-bench-smoke")


@pytest.fixture(scope="module")
def greedy_results(smoke):
    return run_suite("greedy", smoke)


def test_v1_is_published_with_its_pinned_hash():
    suite = load_suite("uno-bench-v1")
    assert PUBLISHED["uno-bench-v1"] == suite.sha256 == V1_SHA256
    assert {t.variant for t in suite.tables} == {"classic", "unocorns", "monster_high", "emoji", "swap"}
    assert {t.players for t in suite.tables} == {2, 4}


def test_an_edited_published_suite_is_refused():
    document = json.loads((bench.SUITES_DIR / "uno-bench-v1.json").read_text())
    document["opponents"][0]["deals"]["round"] += 1
    with pytest.raises(SuiteError, match="never changes"):
        parse_suite(document)
    document["name"] = "my-bench"  # the same change under a new name is a new suite
    assert parse_suite(document).name == "my-bench"


def test_the_deal_banks_are_the_engines_deals(smoke):
    bench.check_digests(load_suite("uno-bench-v1"))
    bench.check_digests(smoke)
    table = smoke.tables[0]
    first = dict(smoke.first_seeds)["round"]
    assert bench.deal_digest(table, "round", first, 4) != bench.deal_digest(table, "round", first + 1, 4)
    changed = dict(smoke.document, deal_digests={table.id: {"round": "0" * 64}})
    with pytest.raises(SuiteError, match="no longer deals"):
        bench.check_digests(parse_suite(changed))


def test_the_reference_policies_are_pinned_by_digest():
    """`ppo:{preset}` names whatever the package ships: v1 pins every table's shipped policy, and a suite whose pin
    differs from the shipped file is refused in one line before any game."""
    v1 = load_suite("uno-bench-v1")
    assert set(v1.policies) == set(v1.table_ids) and v1.policies == bench.suite_policy_digests(v1)
    bench.check_policies(v1)
    document = dict(v1.document, name="my-bench", policy_digests={**v1.policies, "classic-2p": "0" * 64})
    with pytest.raises(SuiteError, match="not the one my-bench was published with"):
        run_suite("counter", parse_suite(document), tables=["classic-2p"], games_scale=0.01)
    bench.check_policies(parse_suite(document), ["classic-4p"])  # only the tables a run plays are checked
    with pytest.raises(SuiteError, match="policy_digests maps table ids"):
        parse_suite(dict(document, policy_digests={"classic-2p": "not a digest"}))


def test_resaved_policies_keep_their_pins_and_a_pinned_policy_of_another_layout_is_refused(monkeypatch):
    """A shipped policy saved again with the same weights (its layout digest added) keeps the digest suites pin; a
    pinned policy trained on another observation layout refuses the run before any game, in one line."""
    from uno_env import observation as O
    from uno_env.agents.registry import shipped_files

    v1 = load_suite("uno-bench-v1")
    pinned = {f.pinned_sha256 for f in shipped_files("policy").values()}
    assert set(v1.policies.values()) <= pinned  # the catalogue keeps each resaved policy's first digest
    assert bench.suite_policy_digests(v1) == v1.policies
    added = O.Field("new_count", ("N",), 1, 1, "a field this version has and the shipped policies do not")
    monkeypatch.setattr(O, "FIELDS", (*O.FIELDS, added))
    with pytest.raises(SuiteError, match=r"^uno-bench-v1's policy at classic-2p \(classic-2p.pt\): trained on the "
                                         "knowledge observation layout .* first field that differs is new_count"):
        bench.check_policies(v1, ["classic-2p"])


def test_registry_prefixes_are_never_a_users_class():
    assert bench.is_user_class("mypackage.agents:MyAgent")
    for name in ("ppo:classic", "ismcts:100", "llm:gpt4", "sb3:model"):
        assert not bench.is_user_class(name), name


def test_a_bad_suite_file_gets_one_line(tmp_path):
    path = tmp_path / "suite.json"
    path.write_text("{not json")
    with pytest.raises(SuiteError, match="not a suite JSON file"):
        load_suite(path)
    path.write_text(json.dumps({"format": "uno-bench-suite"}))
    with pytest.raises(SuiteError, match="exactly the keys"):
        load_suite(path)
    with pytest.raises(SuiteError, match="no suite"):
        load_suite("uno-bench-v0")


def test_results_are_true_to_the_games(smoke, greedy_results):
    cells = greedy_results["cells"]
    assert [c["table"] + "/" + c["opponent"] + "/" + c["episode"] for c in cells] == [c.key for c in smoke.cells()]
    for cell in cells:
        players = smoke.table(cell["table"]).players
        per_deal = cell["per_deal"]
        assert cell["status"] == "played" and cell["games"] == cell["deals"] * players
        first = dict(smoke.first_seeds)[cell["episode"]]
        assert per_deal["seeds"] == list(range(first, first + cell["deals"]))
        assert cell["win_rate"] == pytest.approx(sum(per_deal["wins"]) / cell["games"])
        assert cell["low"] <= cell["win_rate"] <= cell["high"] and cell["fair_share"] == 1 / players
    against_random = [c for c in cells if c["opponent"] == "random"]
    assert all(c["win_rate"] > c["fair_share"] for c in against_random)


def test_a_cell_reports_what_the_arena_would(smoke):
    cell = smoke.cells()[0]
    job = bench.CellJob("counter", False, cell, 11, 12)
    report = bench.play_cell(job)
    agents = {"candidate": bench.build_agent("counter", cell.table, 11), "opponent": bench.build_agent(
        cell.opponent, cell.table, 12)}  # fmt: skip
    records = play_games(agents, ["candidate", "opponent"], cell.table.rules, games=cell.deals * 2,
                               seed=cell.first_seed, episode=cell.episode)  # fmt: skip
    _, low, high = deal_interval(records, ["candidate"])
    assert (report["low"], report["high"]) == (low[0], high[0])
    wins = sum(1 / len(r.winners) for r in records for s in r.winners if r.lineup[s] == "candidate")
    assert report["win_rate"] == wins / len(records)


def test_the_same_suite_gives_the_same_results_with_workers(smoke, greedy_results):
    again = run_suite("greedy", smoke, workers=2)

    def played(document):
        return [{k: v for k, v in c.items() if k != "seconds"} for c in document["cells"]]

    assert played(again) == played(greedy_results)


def test_a_smaller_scale_plays_the_first_deals(smoke, greedy_results):
    small = run_suite("greedy", smoke, games_scale=0.5)
    for full, part in zip(greedy_results["cells"], small["cells"], strict=True):
        assert part["deals"] == max(2, full["deals"] // 2)
        assert part["per_deal"]["seeds"] == full["per_deal"]["seeds"][: part["deals"]]
        if full["opponent"] == "counter":  # both deterministic: the same games on the same deals
            assert part["per_deal"]["wins"] == full["per_deal"]["wins"][: part["deals"]]
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        run_suite("greedy", smoke, games_scale=1.5)


def test_a_users_class_loads_only_with_trust(smoke, capsys):
    name = f"{__name__}:FirstLegal"
    with pytest.raises(ValueError, match="--trust"):
        run_suite(name, smoke)
    results = run_suite(name, smoke, trust=True, tables=["classic-2p"])
    assert {c["status"] for c in results["cells"]} == {"played"}
    with pytest.raises(SystemExit) as exit_info:
        main(["run", name, "--suite", "uno-bench-smoke", "--no-progress"])
    assert exit_info.value.code == 2 and "--trust" in capsys.readouterr().err
    with pytest.raises(ValueError, match="not an agent class"):
        bench.build_agent(f"{__name__}:V1_SHA256", smoke.tables[0], 0, trust=True)


def test_a_table_the_candidate_cannot_play_is_reported_refused(smoke):
    results = run_suite("ppo:agents/policies/classic-2p.pt", smoke, tables=["classic-4p"])
    assert {c["status"] for c in results["cells"]} == {"refused"}
    assert all("2 players" in c["error"] for c in results["cells"])
    bench.check_results(results, smoke)  # a refused cell is a valid cell of a results file


def test_results_files_round_trip_and_are_checked(tmp_path, greedy_results):
    path = write_results(tmp_path / "greedy.json", greedy_results)
    assert read_results(path) == json.loads(json.dumps(greedy_results))
    path.write_text(json.dumps(dict(greedy_results, format_version=99)))
    with pytest.raises(ValueError, match="version 99"):
        read_results(path)
    path.write_text("[]")
    with pytest.raises(ValueError, match="not a uno-bench results file"):
        read_results(path)


def test_the_leaderboard_ranks_by_rating_and_escapes(smoke, greedy_results):
    documents = [run_suite(name, smoke) for name in ("random", "counter")] + [greedy_results]
    board = leaderboard(documents, smoke, bootstrap=50)
    assert board.agents[-1] == "random"
    rating, low, high = board.ratings["round"]["counter"]
    assert low <= rating <= high and rating > board.ratings["round"]["random"][0]
    markdown, page = board.markdown(), board.html()
    assert "| rank | agent |" in markdown and "classic-4p" in markdown
    assert page.startswith("<!DOCTYPE html>") and "<table>" in page
    odd = dict(greedy_results, agent="<b>x</b>")
    assert "&lt;b&gt;x&lt;/b&gt;" in leaderboard([odd], smoke, bootstrap=0).html()
    other = dict(greedy_results, suite={"name": "uno-bench-v1", "sha256": "0" * 64})
    with pytest.raises(ValueError, match="different suites"):
        leaderboard([greedy_results, other], smoke)


def test_the_command_writes_results_and_the_leaderboard(tmp_path, capsys):
    out = tmp_path / "bench"
    assert main(["run", "random", "counter", "--suite", "uno-bench-smoke", "--out", str(out), "--no-progress"]) == 0
    assert {p.name for p in out.iterdir()} == {"random.json", "counter.json", "leaderboard.md", "leaderboard.html"}
    assert "leaderboard of 2 agents" in capsys.readouterr().out
    assert main(["leaderboard", str(out / "counter.json"), "--out", str(tmp_path / "one")]) == 0
    assert (tmp_path / "one" / "leaderboard.html").exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run", "greedy", "--games-scale", "2"], "in (0, 1]"),
        (["run", "greedy", "--suite", "nope"], "no suite 'nope'"),
        (["run", "greedy", "--suite", "uno-bench-smoke", "--tables", "swap-9p"], "no table 'swap-9p'"),
        (["run", "nobody", "--suite", "uno-bench-smoke"], "unknown agent 'nobody'"),
        (["compare", "greedy", "counter", "--suite", "uno-bench-smoke", "--alpha", "2"], "alpha"),
        # worker and deal counts are bounded
        (["run", "greedy", "--suite", "uno-bench-smoke", "--workers", "1" + "0" * 30], "from 1 to 1024"),
        (["run", "greedy", "--suite", "uno-bench-smoke", "--workers", "0"], "from 1 to 1024"),
        (["compare", "greedy", "counter", "--suite", "uno-bench-smoke", "--max-deals", "1" + "0" * 30],
         "from 2 to 1000000"),
        (["compare", "greedy", "counter", "--suite", "uno-bench-smoke", "--block", "1" + "0" * 12], "from 2 to 20000"),
    ],
)  # fmt: skip
def test_bad_input_gets_one_line_and_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and message in err and err.count("\n") == 1


def test_compare_stops_when_one_agent_is_clearly_better(smoke):
    result = bench.compare("counter", "random", smoke, table="classic-2p", opponent="counter")
    assert result.decision == "A better" and result.deals <= smoke.compare["max_deals"]
    assert result.low > 0
    result = bench.compare("random", "counter", smoke, opponent="greedy")
    assert result.decision == "B better"


def test_compare_finds_no_difference_between_an_agent_and_itself(smoke):
    result = bench.compare("counter", "counter", smoke, opponent="greedy")
    assert result.decision == "no difference" and result.mean == 0.0


def test_draw_luck_replays_every_game_and_attributes_every_draw(smoke):
    cell = bench.Cell(smoke.tables[1], 1, "greedy", 0, "round", 31_000_000, 30)
    report = bench.play_cell(bench.CellJob("counter", False, cell, 1, 2, luck=True))
    luck = report["draw_luck"]
    assert luck["unattributed_cards"] == 0 and luck["plain_mean"] == pytest.approx(report["win_rate"])
    per_deal = np.array(luck["per_deal"])
    assert per_deal.shape == (30, 2 * len(bench.LUCK_FEATURES)) and np.abs(per_deal).sum() > 0
    assert luck["low"] < luck["mean"] < luck["high"]


# ------------------------------------------------------------------------------------------ read at a glance


def test_compare_ends_with_one_sentence_and_the_trail_only_when_verbose(capsys):
    argv = ["compare", "counter", "random", "--suite", "uno-bench-smoke", "--table", "classic-2p"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1 and "LLR" not in lines[0], lines
    assert lines[0].startswith("counter is better than random against counter at classic-2p, by ")
    assert lines[0].endswith(" s).") and "points of win rate (95% interval" in lines[0]
    assert main([*argv, "--verbose"]) == 0
    trail = capsys.readouterr().out.strip().splitlines()
    assert any("LLR up" in line for line in trail[:-2]) and "fixed-size test" in trail[-1]
    assert trail[-2].split(" after ")[0] == lines[0].split(" after ")[0]  # the same verdict


def test_the_verdict_names_each_decision(smoke):
    from uno_env.arena.bench_stats import SequentialResult, SequentialTest

    table, test = smoke.tables[0], SequentialTest()

    def said(decision, mean, low, high):
        result = SequentialResult(decision, 300, mean, low, high, 0.3, 0.0, 0.0, -2.9, 2.9)
        return bench.verdict(result, "A1", "B1", table, "counter", test, 12.3)

    assert said("B better", -0.05, -0.08, -0.02) == (
        "B1 is better than A1 against counter at classic-2p, by 5.0 points of win rate (95% interval 2.0 to 8.0), "
        "after 300 deals (1,200 games, 12 s)."
    )
    assert said("no difference", 0.004, -0.01, 0.018).startswith("A1 and B1 do not differ by 3 points")
    assert said("undecided", 0.01, -0.01, 0.03).startswith("Undecided: A1 - B1 = +1.0 points")


def test_every_argument_of_every_subcommand_has_help():
    parser = bench.build_parser()
    commands = next(a for a in parser._actions if a.dest == "command")
    missing = [f"{name} {action.metavar or action.dest}" for name, sub in commands.choices.items()
               for action in sub._actions if action.dest != "help" and not action.help]  # fmt: skip
    assert not missing, f"arguments without help: {missing}"


def test_the_html_leaderboard_is_one_styled_page_with_a_rating_chart(smoke, greedy_results):
    """Candidates ranked, the suite's reference opponents marked unranked (in the table and the chart, even above
    rank 1), the ratings drawn with their intervals, the cell tables folded under their headings."""
    board = leaderboard([greedy_results], smoke, bootstrap=20)
    page = board.html()
    assert "<style>" in page and "<script" not in page and page.count("<table>") == 1 + page.count("<details>")
    svg = re.search(r"<svg [^>]*>.*?</svg>", page, re.S).group(0)
    circles = re.findall(r'<circle cx="([\d.]+)"', svg)
    lines = re.findall(r'<line x1="([\d.]+)" x2="([\d.]+)" y1="([\d.]+)" y2="\3"', svg)  # the intervals
    rated = board.chart_entries()
    assert len(circles) == len(lines) == len(rated) >= 2
    for (x, (lo, hi, _)), entry in zip(zip(circles, lines, strict=True), rated, strict=True):
        assert float(lo) <= float(x) <= float(hi), entry
    references = [name for name, *_, ranked in rated if not ranked]
    assert references and set(references) <= {o.name for o in smoke.opponents}
    for name in references:
        assert f"{name} (unranked)" in svg
        assert re.search(rf'<tr class="reference"><td>unranked</td><td>{re.escape(name)}</td>', page)
    ranked_rows = re.findall(r"<tr><td>(\d+)</td><td>([^<]+)</td>", page)
    assert ranked_rows == [("1", "greedy")]
    markdown = board.markdown()
    assert "| 1 | greedy |" in markdown and all(f"| unranked | {name} |" in markdown for name in references)


def test_a_reference_above_rank_1_is_visibly_not_ranked(smoke):
    """random as the only candidate: every reference outrates it, and none of them takes rank 1."""
    board = leaderboard([run_suite("random", smoke)], smoke, bootstrap=0)
    rows = re.findall(r"^\| (\w+) \| (\w+) \|", board.markdown(), re.M)[1:]
    assert rows[-1] == ("1", "random") and all(rank == "unranked" for rank, _ in rows[:-1]), rows
