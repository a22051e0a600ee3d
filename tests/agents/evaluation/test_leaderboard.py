"""benchmarks/leaderboard.py refuses reports it cannot rank beside the others: made under
other rules, with a per-deal row count other than its deal count, or with rows it cannot
read (one ``ReportError`` naming the file, never a traceback)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT

from fortythieves_env import RULES_VERSION
from tests.benchmark_modules import benchmark_module

board = benchmark_module("leaderboard")
PPO = ROOT / "results" / "search" / "ppo" / "Lucas-200.json"


def saved(tmp_path: Path, report: dict[str, Any]) -> Path:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    return path


def ppo_report() -> dict[str, Any]:
    report = json.loads(PPO.read_text(encoding="utf-8"))
    assert len(report["results"]["ppo"]["per_episode"]) == report["episodes"] == 200
    return report


def test_the_saved_report_is_read(tmp_path: Path) -> None:
    (row,) = board.rows_of([saved(tmp_path, ppo_report())])
    assert row.deals == 200 and row.ceiling is not None
    report = {**ppo_report(), "rules_version": RULES_VERSION}
    assert board.rows_of([saved(tmp_path, report)])


def test_a_report_of_other_rules_is_refused_naming_both_versions(tmp_path: Path) -> None:
    path = saved(tmp_path, {**ppo_report(), "rules_version": RULES_VERSION + 1})
    with pytest.raises(
        board.ReportError,
        match=rf"r\.json: made under rules version {RULES_VERSION + 1}, not the current "
        rf"rules version {RULES_VERSION}",
    ):
        board.rows_of([path])
    for bad in ("banana", 0, True, 1.0):
        path = saved(tmp_path, {**ppo_report(), "rules_version": bad})
        with pytest.raises(board.ReportError, match="rules_version must be a positive integer"):
            board.rows_of([path])


def test_a_boolean_deal_count_is_refused(tmp_path: Path) -> None:
    with pytest.raises(board.ReportError, match=r"r\.json: not an evaluation report"):
        board.rows_of([saved(tmp_path, {**ppo_report(), "episodes": True})])


def test_per_deal_rows_must_cover_the_deals_and_be_readable(tmp_path: Path) -> None:
    report = ppo_report()
    report["results"]["ppo"]["per_episode"] = report["results"]["ppo"]["per_episode"][:50]
    with pytest.raises(board.ReportError, match="ppo has 50 per-deal rows for 200 deals"):
        board.rows_of([saved(tmp_path, report)])
    report = ppo_report()
    report["results"]["ppo"]["per_episode"][0]["extra"] = 1
    with pytest.raises(board.ReportError, match=r"r\.json: not an evaluation report"):
        board.rows_of([saved(tmp_path, report)])
    assert board.main(["--reports", str(tmp_path / "r.json")]) == 2


def test_search_table_names_a_cut_ppo_report(tmp_path: Path) -> None:
    """A PPO report cut mid-write is refused naming the file (it gave only the JSON
    parser's position)."""
    search_table = benchmark_module("search_table")
    search = ROOT / "results" / "search" / "Lucas-200.json"
    (tmp_path / "Lucas-200.json").write_text(search.read_text(encoding="utf-8"))
    (tmp_path / "ppo").mkdir()
    (tmp_path / "ppo" / "Lucas-200.json").write_text(PPO.read_text(encoding="utf-8")[:500])
    with pytest.raises(ValueError, match=r"ppo/Lucas-200\.json: not a PPO report"):
        search_table.table_for(tmp_path)
