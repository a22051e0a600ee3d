"""scripts/search/compare_allocations.py (issue 40, point 2): the settings it compares and
its summary, each setting against the first."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from types import ModuleType

import pytest
from helpers import load_script

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "search" / "compare_allocations.py"


def _script() -> ModuleType:
    return load_script(SCRIPT, "compare_allocations")


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


def test_the_learned_leaf_setting_is_halving_with_the_learned_value() -> None:
    script = _script()
    args = argparse.Namespace(seconds=0.1, nodes=1000, ucb_c=2.0, ucb_batch=10, ucb_plays=3000)
    learned = script.budget_for("halving-learned", args)
    assert (learned.allocation, learned.leaf) == ("halving", "learned")
    assert script.budget_for("halving", args).leaf == "cards"


def test_reuse_takes_the_saved_rows_after_replaying_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second comparison reuses the first one's halving rows (replayed and found equal),
    and refuses a file whose saved game differs from today's or whose settings differ."""
    script = _script()
    common = ["FortyThieves", "--deals", "1", "--seconds", "0.001", "--nodes", "20"]
    first, second = tmp_path / "first", tmp_path / "second"
    assert script.main([*common, "--allocations", "halving", "ucb", "--out", str(first)]) == 0
    saved = json.loads((first / "deals.json").read_text())
    argv = [*common, "--allocations", "halving", "ucb-irreversible", "--verify", "3"]
    reuse = ["--reuse", str(first / "deals.json")]
    assert script.main([*argv, *reuse, "--out", str(second)]) == 0
    out = capsys.readouterr().out
    assert "deal 0 with halving replayed: the same game" in out  # --verify 3: the one deal
    again = json.loads((second / "deals.json").read_text())
    assert [r["halving"] for r in again["rows"]] == [r["halving"] for r in saved["rows"]]
    assert again["settings"]["reused"]["settings"] == ["halving"]
    saved["rows"][0]["halving"]["moves"] += 1
    (tmp_path / "bad.json").write_text(json.dumps(saved))
    bad = ["--reuse", str(tmp_path / "bad.json"), "--out", str(tmp_path / "third")]
    with pytest.raises(SystemExit):
        script.main([*argv, *bad])
    assert "deal 0 with halving plays differently today" in capsys.readouterr().err
    saved["settings"]["nodes_per_sample"] = 1000
    (tmp_path / "other.json").write_text(json.dumps(saved))
    other = ["--reuse", str(tmp_path / "other.json"), "--out", str(tmp_path / "fourth")]
    with pytest.raises(SystemExit):
        script.main([*argv, *other])
    assert "nodes_per_sample is 1000 there, 20 here" in capsys.readouterr().err


@pytest.mark.parametrize(
    "rows",
    [
        "not a list",
        [None],
        [{"deal": "0", "seed": 2_000_000_000}],
        [{"deal": 0, "seed": 1, "halving": {}}],
        [{"deal": 5, "seed": 2_000_000_005}],
        [{"deal": 0, "seed": 2_000_000_000, "halving": {"won": True}}],
    ],
    ids=["rows-not-a-list", "row-not-a-dict", "deal-not-an-int", "wrong-seed", "deal-out-of-range", "play-missing-keys"],
)  # fmt: skip
def test_reuse_refuses_a_hostile_file_in_one_line(
    rows: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _script()
    settings = {"variant": "FortyThieves", "seconds_per_move": 0.001, "nodes_per_sample": 20,
                "seed": 0}  # fmt: skip
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps({"settings": settings, "rows": rows}))
    argv = ["FortyThieves", "--deals", "1", "--seconds", "0.001", "--nodes", "20"]
    argv += ["--reuse", str(hostile), "--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit):
        script.main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert "holds a row that is no saved deal" in err[-1], err
    assert not (tmp_path / "out" / "deals.json").exists()
