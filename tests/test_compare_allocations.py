"""scripts/search/compare_allocations.py (issue 40, point 2): the settings it compares and
its summary, each setting against the first."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "search" / "compare_allocations.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("compare_allocations", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_settings_are_halving_ucb_and_ucb_over_lonelybots_arms() -> None:
    script = _script()
    args = argparse.Namespace(seconds=0.1, nodes=1000, ucb_c=2.0, ucb_batch=10, ucb_plays=3000)
    budgets = {name: script.budget_for(name, args) for name in script.ALLOCATIONS}
    assert budgets["halving"].allocation == "halving"
    assert (budgets["ucb"].allocation, budgets["ucb"].arms) == ("ucb", "moves")
    irreversible = budgets["ucb-irreversible"]
    assert (irreversible.allocation, irreversible.arms) == ("ucb", "irreversible")
    assert {(b.method, b.seconds, b.nodes) for b in budgets.values()} == {("solve", 0.1, 1000)}


def test_the_summary_tests_each_setting_against_the_first() -> None:
    script = _script()
    play = {"won": False, "foundation_cards": 50, "moves": 10, "nodes": 100, "solves": 5,
            "cpu_seconds": 1.0, "wall_seconds": 1.0}  # fmt: skip
    rows = [
        {"halving": {**play, "won": True}, "ucb": play, "ucb-irreversible": {**play, "won": True}},
        {"halving": play, "ucb": play, "ucb-irreversible": {**play, "won": True}},
    ]
    names = ("halving", "ucb", "ucb-irreversible")
    summary = script.summarize(rows, names)
    assert [summary[n]["wins"] for n in names] == [1, 0, 2]
    assert summary["ucb vs halving"] == {
        "ucb_only_wins": 0, "halving_only_wins": 1, "sign_test_p": 1.0
    }  # fmt: skip
    assert summary["ucb-irreversible vs halving"]["ucb-irreversible_only_wins"] == 1
    with pytest.raises(SystemExit):
        script.main(["LittleForty", "--allocations", "ucb", "ucb"])  # one setting
