"""The protocol's solver labels ship with the package (agents/protocol_labels.json), so that
an installed wheel scores an agent as a checkout does: ``evaluate``'s solver column and
``fortythieves leaderboard REPORT`` outside any checkout (issue 28)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fortythieves_agents.cli.main import main
from fortythieves_agents.evaluation import labels, solve
from fortythieves_agents.evaluation.solve import solver_verdicts
from fortythieves_agents.seeds import seeds_for_test
from helpers import ROOT

from fortythieves_env import RULES_VERSION, VARIANTS


def test_the_shipped_labels_are_what_the_solver_records_give() -> None:
    """Written from results/solver by ``python -m fortythieves_agents.reports`` (that the
    file is current: ``tests/agents/reports/test_generated.py``); the verdicts it gives are
    the records'."""
    shipped = json.loads(labels.LABELS_FILE.read_text(encoding="utf-8"))
    assert shipped["rules_version"] == RULES_VERSION and list(shipped["variants"]) == list(VARIANTS)
    seeds = seeds_for_test(labels.PROTOCOL_DEALS)
    for variant in VARIANTS:
        records = solver_verdicts(ROOT / "results" / "solver" / f"{variant}.jsonl", variant, seeds)
        assert labels.protocol_verdicts(variant, seeds) == records
    lucas = labels.protocol_verdicts("Lucas", seeds)
    assert lucas is not None and sum(v == "won" for v in lucas.values()) == 200


def test_outside_a_checkout_evaluate_reads_the_shipped_labels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no results/solver here
    assert solve.test_deal_verdicts("Streets", 10) == labels.protocol_verdicts(
        "Streets", seeds_for_test(10)
    )
    assert solve.test_deal_verdicts("Streets", labels.PROTOCOL_DEALS + 1) is None  # not labelled
    assert labels.protocol_verdicts("NoSuchVariant", [2_000_000_000]) is None


def test_leaderboard_command_ranks_reports_against_the_labels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["evaluate", "greedy", "--variant", "Lucas", "--episodes", "6", "--per-episode"]
    assert main([*argv, "--baselines", "random", "--json", "r.json", "--no-progress"]) == 0
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    capsys.readouterr()
    assert main(["leaderboard", "r.json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("| variant | agent | test deals | wins [95% CI] |")
    greedy = report["results"]["greedy"]
    wins = greedy["solver_ceiling"]["wins_among_proved"]
    assert greedy["solver_ceiling"]["proved_won"] == 6  # Lucas's first deals: all won
    row = next(line for line in lines if "| greedy |" in line)
    assert f"| {wins} / 6 (" in row and row.endswith("| `r.json` |")
    assert [line.split("|")[2].strip() for line in lines[2:]] == ["greedy", "random"]
    (tmp_path / "bad.json").write_text('{"variant": "Lucas"}', encoding="utf-8")
    assert main(["leaderboard", "bad.json"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fortythieves leaderboard: error: bad.json: not an evaluation report")
