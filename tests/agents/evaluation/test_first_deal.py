"""``evaluate --first-deal I``: a confirmatory run on test deals no earlier evaluation played
(issue 40: a second sign test declared before its deals are seen). Deal ``I + i`` is the
agent's game ``I + i``, so the run gives exactly the rows a longer run from deal 0 gives on
those deals (stochastic agents included), it resumes like any other, its report says where
its deals start, and the leaderboard never ranks it beside the protocol's first deals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fortythieves_agents.cli.main import main
from fortythieves_agents.evaluation.evaluate import evaluate_agents
from fortythieves_agents.evaluation.leaderboard import read_report
from fortythieves_agents.evaluation.report_schema import ReportError, load_report
from fortythieves_agents.players.baselines import make_baseline
from fortythieves_agents.players.search import SearchBudget
from fortythieves_agents.reports import expert as expert_table
from fortythieves_agents.seeds import TEST_START, seeds_for_test
from helpers import ROOT

from benchmarks.prior_vs_search import alone_from_report

VARIANT = "LittleForty"
SOLVE = SearchBudget(method="solve", samples=2, nodes=60, horizon=40)


def _agents() -> list[Any]:
    return [make_baseline("search", 3, SOLVE), make_baseline("random", 5)]


def test_seeds_from_a_later_deal_and_their_bounds() -> None:
    assert seeds_for_test(3, 200) == [2_000_000_200, 2_000_000_201, 2_000_000_202]
    assert seeds_for_test(2) == seeds_for_test(2, 0) == [TEST_START, TEST_START + 1]
    assert seeds_for_test(1, 10**9 - 1) == [TEST_START + 10**9 - 1]
    with pytest.raises(ValueError, match=r"first test deal must be in 0\.\.999999998 for 2"):
        seeds_for_test(2, 10**9 - 1)
    with pytest.raises(ValueError, match="first test deal must be in"):
        seeds_for_test(2, -1)


def test_a_run_from_a_later_deal_gives_the_rows_of_a_longer_run_and_resumes(
    tmp_path: Path,
) -> None:
    whole = evaluate_agents(_agents(), VARIANT, 6, per_episode=True)
    later = evaluate_agents(
        _agents(), VARIANT, 3, per_episode=True, first_deal=3, save_games=tmp_path / "g"
    )
    assert later["seeds"]["first"] == TEST_START + 3 and later["seeds"]["count"] == 3
    for name in ("search", "random"):
        rows = later["results"][name]["per_episode"]
        assert [r["seed"] for r in rows] == seeds_for_test(3, 3)
        assert rows == whole["results"][name]["per_episode"][3:]
    records = sorted(p.name for p in (tmp_path / "g" / "search").iterdir())
    assert records == sorted(f"{VARIANT}-{s}.json" for s in seeds_for_test(3, 3))
    (tmp_path / "g" / "search" / records[1]).unlink()  # a hole: played again on resume
    resumed = evaluate_agents(
        _agents(),
        VARIANT,
        3,
        per_episode=True,
        first_deal=3,
        save_games=tmp_path / "g",
        resume=True,
        timing=True,
    )
    assert resumed["timing"]["search"]["resumed_deals"] == 2
    assert resumed["results"] == later["results"]


def _write(path: Path, report: dict[str, Any]) -> Path:
    path.write_text(json.dumps(report))
    return path


def test_the_report_of_later_deals_is_checked_read_for_pairing_but_never_ranked(
    tmp_path: Path,
) -> None:
    report = evaluate_agents(
        [make_baseline("search", 3, SOLVE)], VARIANT, 3, per_episode=True, first_deal=4
    )
    path = _write(tmp_path / "later.json", report)
    assert load_report(path)["seeds"]["first"] == TEST_START + 4
    with pytest.raises(
        ReportError, match=r"later\.json: plays test deals 4\.\.6; the leaderboard and the tables"
    ):
        read_report(path)
    assert read_report(path, later_deals=True)["episodes"] == 3
    games, _ = alone_from_report(path, VARIANT, None)  # the budget of SOLVE: nodes, no seconds
    assert sorted(games) == seeds_for_test(3, 4)
    bad = json.loads(path.read_text())
    bad["results"]["search"]["per_episode"][0]["seed"] = TEST_START + 1  # before the first
    with pytest.raises(ReportError, match=r"per_episode\[0\]\.seed: 2000000001 is not among"):
        load_report(_write(tmp_path / "bad.json", bad))
    past = json.loads(path.read_text())
    past["seeds"]["first"] = TEST_START + 10**9 - 2  # 3 deals from there leave the range
    with pytest.raises(ReportError, match=r"seeds\.first: .* is past the test range"):
        load_report(_write(tmp_path / "past.json", past))


def test_the_cli_plays_from_a_later_deal_and_refuses_one_past_the_range(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    args = ["evaluate", "random", "--variant", VARIANT, "--episodes", "2", "--first-deal", "7"]
    assert main([*args, "--per-episode", "--no-progress", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert [r["seed"] for r in report["results"]["random"]["per_episode"]] == [
        TEST_START + 7,
        TEST_START + 8,
    ]
    args = ["evaluate", "random", "--variant", VARIANT, "--episodes", "5"]
    assert main([*args, "--first-deal", str(10**9 - 3), "--json", str(tmp_path / "no.json")]) == 2
    assert not (tmp_path / "no.json").exists()
    err = capsys.readouterr().err
    assert "argument --first-deal: 999999997 + 5 deals is past" in err
    assert "--first-deal must be at most 999999995" in err


def _later_pairing(first: int) -> dict[str, Any]:
    """A pairing on 200 test deals from deal ``first``: 150 vs 140 wins, 15 and 5 deals won
    by one alone (sign test p = 0.041)."""
    low = TEST_START + first
    return {
        "deals": 200,
        "first_seed": low,
        "search_plus_network_wins": 150,
        "search_alone_wins": 140,
        "only_search_plus_network": [low + i for i in range(15)],
        "only_search_alone": [low + 20 + i for i in range(5)],
    }


def _confirm(results: Path, name: str, pairing: dict[str, Any]) -> None:
    folder = results / "search" / "confirm"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(pairing))


def test_the_expert_table_shows_a_confirmatory_pairing_after_the_first_deals_and_checks_it(
    tmp_path: Path,
) -> None:
    """A pairing on test deals 200..399 is shown after those on the first deals, its deals
    named; one whose first seed, deal count or lists disagree with its name is refused in
    one line naming the file."""

    results = tmp_path / "results"
    prior = results / "search" / "prior"
    prior.mkdir(parents=True)
    first = "Lucas-200-s0.1-ppo-w0.02-vs-search.json"
    (prior / first).write_text((ROOT / "results" / "search" / "prior" / first).read_text())
    name = "Lucas-200from200-s0.1-ppo-w0.02-vs-search.json"
    pairing = _later_pairing(200)
    _confirm(results, name, pairing)
    cell = expert_table.row("Lucas", results).split(" | ")[-1]
    assert cell.startswith("169 vs 177 of 200 (PPO, weight 0.02; sign test p = 0.23); ")
    assert cell.endswith(
        "150 vs 140 of 200 (PPO, weight 0.02; test deals 200..399; sign test p = 0.041) |"
    )
    for change, words in (
        ({"first_seed": TEST_START}, "do not start at test deal 200"),
        ({"deals": 100}, "not a pairing on 200 deals"),
        ({"only_search_alone": [TEST_START + i for i in range(5)]}, "not among test deals"),
    ):
        _confirm(results, name, {**pairing, **change})
        with pytest.raises(ValueError, match=rf"{name}: .*{words}"):
            expert_table.row("Lucas", results)


# Found by review: inputs that slipped through


@pytest.mark.parametrize("first", [1.5, 2.0])
def test_seeds_for_test_refuses_a_first_deal_that_is_not_an_int(first: Any) -> None:
    """``seeds_for_test(2, 1.5)`` returned the seeds 2000000001.5, 2000000002.5 (and
    ``evaluate_agents(first_deal=1.0)`` then failed deep in the deal table with "list indices
    must be integers"). Before the change a non-int ``n`` failed in
    ``range``; ``first`` should be refused the same way."""
    with pytest.raises((TypeError, ValueError)):
        seeds_for_test(2, first)


def test_seeds_for_test_gives_python_ints_for_a_numpy_first_deal() -> None:
    """A numpy integer ``first`` gave numpy seeds; ``evaluate_agents`` puts ``seeds[0]`` in
    the report's ``seeds.first``, which ``json.dumps`` then cannot write."""
    seeds = seeds_for_test(2, np.int64(3))
    assert seeds == [TEST_START + 3, TEST_START + 4]
    json.dumps({"first": seeds[0]})


def _confirm_only(tmp_path: Path, name: str, first: int) -> Path:
    results = tmp_path / "results"
    folder = results / "search" / "confirm"
    folder.mkdir(parents=True)
    (folder / name).write_text(json.dumps(_later_pairing(first)))
    return results


@pytest.mark.parametrize(
    "name",
    [
        "Lucas-200from-s0.1-ppo-w0.02-vs-search.json",  # no S after "from"
        "Lucas-200-s0.1-ppo-w0.02-vs-search.json",  # no from<S> at all, in confirm/
        "Lucas-200from0-s0.1-ppo-w0.02-vs-search.json",  # a "confirmatory" run on deal 0..
    ],
)
def test_the_expert_table_refuses_a_confirm_file_not_on_later_deals(
    tmp_path: Path, name: str
) -> None:
    """``search/confirm`` holds pairings on later deals (``<V>-<N>from<S>-...``); these
    names were shown as pairings on the first test deals, undistinguished from those of
    ``search/prior`` (and ``<N>from`` is not the documented pattern at all)."""
    results = _confirm_only(tmp_path, name, 0)
    with pytest.raises(ValueError, match=rf"{name}: "):
        expert_table.row("Lucas", results)


def test_the_expert_table_names_the_file_of_a_non_ascii_digit_first_deal(tmp_path: Path) -> None:
    """``str.isdigit`` accepts ``"²"``, which ``int`` then refuses: the error was
    ``invalid literal for int() with base 10: '²'``, naming no file."""
    name = "Lucas-200from\u00b2-s0.1-ppo-w0.02-vs-search.json"
    results = _confirm_only(tmp_path, name, 2)
    with pytest.raises(ValueError, match=r"vs-search\.json: not named"):
        expert_table.row("Lucas", results)


def test_the_expert_table_refuses_a_later_deals_pairing_among_the_first_deals(
    tmp_path: Path,
) -> None:
    """``search/prior`` holds the pairings on the first test deals: one named for later deals
    there would be shown among them."""
    results = _confirm_only(tmp_path, "Lucas-200from200-s0.1-ppo-w0.02-vs-search.json", 200)
    (results / "search" / "confirm").rename(results / "search" / "prior")
    with pytest.raises(ValueError, match=r"from200-s0\.1-ppo-w0\.02-vs-search\.json: pairings"):
        expert_table.row("Lucas", results)


def _pairing_file(path: Path, first: int, only: tuple[int, int], **change: object) -> Path:
    low = TEST_START + first
    pairing = {
        "variant": "RankAndFile",
        "budget_seconds_per_move": 0.1,
        "prior": "results/family/finetune/RankAndFile/finetuned/best_model.zip",
        "prior_top": None,
        "prior_weight": 0.02,
        "deals": 200,
        "search_plus_network_wins": 100 + only[0],
        "search_alone_wins": 100 + only[1],
        "only_search_plus_network": [low + i for i in range(only[0])],
        "only_search_alone": [low + 100 + i for i in range(only[1])],
        **({"first_seed": low} if first else {}),
        **change,
    }
    path.write_text(json.dumps(pairing))
    return path


def test_pooling_confirmatory_pairings_sums_them_and_refuses_what_does_not_pool(
    tmp_path: Path,
) -> None:
    """The declared secondary test (command.txt): the first 200 deals' pairing (no
    ``first_seed``: written before it existed) and deals 200..399's, one sign test."""
    from benchmarks.prior_vs_search import pool

    first = _pairing_file(tmp_path / "a.json", 0, (31, 18))
    later = _pairing_file(tmp_path / "b.json", 200, (15, 5))
    out = pool([first, later])
    assert out["deals"] == 400
    assert out["deal_ranges"] == [
        [TEST_START, TEST_START + 199],
        [TEST_START + 200, TEST_START + 399],
    ]
    assert (out["search_plus_network_wins"], out["search_alone_wins"]) == (246, 223)
    assert (len(out["only_search_plus_network"]), len(out["only_search_alone"])) == (46, 23)
    assert out["sign_test_p"] == pytest.approx(0.00762, abs=1e-5)
    with pytest.raises(SystemExit, match=r"a\.json: its deals overlap those of .*b\.json"):
        pool([first, _pairing_file(tmp_path / "b.json", 150, (1, 1))])
    with pytest.raises(SystemExit, match=r"c\.json: differs from .*a\.json in \['prior_weight'\]"):
        pool([first, _pairing_file(tmp_path / "c.json", 200, (1, 1), prior_weight=0.05)])
    bad = _pairing_file(tmp_path / "d.json", 200, (1, 1), only_search_alone=[TEST_START])
    with pytest.raises(SystemExit, match=r"d\.json: a deal only one won is outside its deals"):
        pool([first, bad])
    with pytest.raises(SystemExit, match="at least two"):
        pool([first])
