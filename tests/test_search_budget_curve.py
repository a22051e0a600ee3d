"""benchmarks/search_budget_curve.py (issue 25's curve): budgets with their own deal
counts, and a run cut after any deal that continues to the same games as one that was not
cut (each deal is kept in the JSON as it ends)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from fortythieves_agents.reports.solver import budget_curve_table

import benchmarks.search_budget_curve as curve

GAME_FIELDS = ("seed", "won", "foundation_cards", "length", "truncated", "stuck")


def args_for(path: Path, budgets: str, deals: int) -> argparse.Namespace:
    return argparse.Namespace(
        variants="LittleForty", deals=deals, budgets=budgets, nodes=200, seed=3,
        solver_results=None, json=path,
    )  # fmt: skip


def test_budgets_take_their_own_deal_counts_and_refuse_bad_entries() -> None:
    assert curve.parse_budgets("0.01,0.1,1:20,10:2", 100) == [
        (0.01, 100), (0.1, 100), (1.0, 20), (10.0, 2)
    ]  # fmt: skip
    for bad in ("0", "x", "1:0", "1:-2", "-1", "1:y", ""):
        with pytest.raises(ValueError, match="SECONDS or SECONDS:DEALS"):
            curve.parse_budgets(bad, 10)


def games_of(report: dict) -> dict[tuple, list[tuple]]:
    return {
        (p["agent"], p["budget_seconds"]): [tuple(g[f] for f in GAME_FIELDS) for g in p["games"]]
        for p in report["points"]
    }


def test_a_cut_run_continues_to_the_games_of_an_uncut_one(tmp_path: Path) -> None:
    whole = curve.run(args_for(tmp_path / "whole.json", "0.0005:3", 3))
    assert [len(p["games"]) for p in whole["points"]] == [3, 3]  # greedy, then the search
    # the same, cut after the first search deal (a smaller count), then asked for all 3
    cut_path = tmp_path / "cut.json"
    curve.run(args_for(cut_path, "0.0005:1", 3))
    saved = json.loads(cut_path.read_text())
    assert [len(p["games"]) for p in saved["points"]] == [3, 1]
    resumed = curve.run(args_for(cut_path, "0.0005:3", 3))
    assert games_of(resumed) == games_of(whole)
    search = resumed["points"][1]
    assert search["deals"] == 3 and search["wins"] == sum(g[1] for g in games_of(whole)[
        ("search", 0.0005)])  # fmt: skip
    # the saved file is the report (rewritten after every deal), no leftover part file
    assert games_of(json.loads(cut_path.read_text())) == games_of(whole)
    assert not cut_path.with_suffix(".part").exists()


def test_a_budget_the_search_refuses_is_refused_before_any_deal(tmp_path: Path) -> None:
    """A budget over the search's limit (or a bad node cap) stops the run before the cheap
    points are played, not after them."""
    path = tmp_path / "c.json"
    for budgets, nodes in (("0.0005,5000", 200), ("inf", 200), ("0.0005", 0)):
        args = args_for(path, budgets, 1)
        args.nodes = nodes
        with pytest.raises(ValueError, match="--budgets"):
            curve.run(args)
        assert not path.exists()


def test_a_json_of_another_node_rate_or_solver_is_not_extended(tmp_path: Path) -> None:
    """Its points' games were played at other node counts (or by another search): extending
    them would mix two measurements in one point."""
    path = tmp_path / "c.json"
    curve.run(args_for(path, "0.0005:1", 1))
    report = json.loads(path.read_text())
    assert report["nodes_per_second"] == curve.NODES_PER_SECOND
    assert report["solver_version"] == curve.SOLVER_VERSION
    for field, other in (
        ("nodes_per_second", curve.NODES_PER_SECOND * 2),
        ("solver_version", curve.SOLVER_VERSION - 1),
        ("rules_version", curve.RULES_VERSION + 1),
    ):
        path.write_text(json.dumps({**report, field: other}))
        with pytest.raises(ValueError, match=f"{field} {other}, not {report[field]}"):
            curve.run(args_for(path, "0.0005:2", 2))
    legacy = {k: v for k, v in report.items() if k not in ("solver_version", "rules_version")}
    path.write_text(json.dumps(legacy))  # written before they were recorded: extended
    assert [len(p["games"]) for p in curve.run(args_for(path, "0.0005:2", 2))["points"]] == [2, 2]


def test_the_docs_table_reads_each_point_of_the_saved_curve() -> None:
    """docs/solver.md's budget-curve table renders the saved curve JSON (never typed; that
    the page holds it: ``tests/agents/reports/test_generated.py``): a point's figures are
    read from it."""
    root = Path(__file__).resolve().parents[1]
    report = json.loads((root / "results/search/budget_curve/curve.json").read_text())
    table = budget_curve_table(report)
    tenth = next(
        p for p in report["points"]
        if p["variant"] == "NumberTen" and p["budget_seconds"] == 0.1
    )  # fmt: skip
    line = next(x for x in table.splitlines() if x.startswith("| NumberTen | search 0.1 s |"))
    assert f"| {tenth['deals']} | " in line
    assert f"{tenth['wins_among_proved']} / {tenth['solver_proved_won']}" in line
