"""The dead-end rule's scripts (issue 40): ``scripts/search/reuse_games.py`` (the saved games
the rule leaves as they were), ``find_blunders.py`` (how lost games ended) and
``compare_reports.py`` (two reports deal by deal), on saved games of the search before the
rule; and their one-line refusals of bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from helpers import ROOT, load_script

SCRIPTS = ROOT / "scripts" / "search"
RECORDS = ROOT / "results" / "search" / "records"
STUCK = RECORDS / "Limited-100-s1" / "search" / "Limited-2000000000.json"
"""Lost at 1 s by the search before the rule: its last move (``t0>t7``) went into a dead end
(the solver wins the final position by moving back first)."""
WON = RECORDS / "Limited-100-s1" / "search" / "Limited-2000000004.json"
WON_INDIAN = RECORDS / "Indian-100-s1" / "search" / "Indian-2000000004.json"
"""Another variant's game of the same deal seed."""


def _script(name: str) -> ModuleType:
    return load_script(SCRIPTS / f"{name}.py", name)


def _folder(path: Path, records: list[Path]) -> Path:
    path.mkdir(parents=True)
    for record in records:
        shutil.copy(record, path / record.name)
    return path


def test_reuse_keeps_the_games_the_rule_leaves_and_lists_the_others(tmp_path: Path) -> None:
    """The won games (of two variants, one deal seed) are copied; the stuck game is to be
    played again from its last move, the one into the dead end; the check on the copies
    (games the rule plays move for move as saved) passes, each matched by variant and seed."""
    script = _script("reuse_games")
    record = script.load_record(STUCK)
    assert script.first_changed_move(record) == len(record.moves) - 1
    assert record.moves[-1] == "t0>t7"
    assert script.first_changed_move(script.load_record(WON)) is None
    old = _folder(tmp_path / "old", [STUCK, WON, WON_INDIAN])
    out = tmp_path / "new" / "search"
    assert script.main([str(old), str(out), "--check", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted([WON.name, WON_INDIAN.name])
    report = json.loads((tmp_path / "new" / "reuse.json").read_text())
    assert report["to_replay"] == ["Limited-2000000000"]
    assert (report["check"]["games"], report["check"]["as_argued"]) == (2, 2)


def test_reuse_refuses_bad_folders_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _script("reuse_games")
    old = _folder(tmp_path / "old", [WON])
    for out, message in (
        (tmp_path / "new" / "games", "must be a --save-games folder's search part"),
        (old / "search", "inside the folder of the old records"),
    ):
        with pytest.raises(SystemExit):
            script.main([str(old), str(out)])
        assert message in capsys.readouterr().err
        assert not out.exists()
    (old / "report.json").write_text("{}")
    with pytest.raises(SystemExit):
        script.main([str(old), str(tmp_path / "new" / "search")])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "report.json: not a game record" in err


def test_find_blunders_tells_how_the_lost_games_ended(tmp_path: Path) -> None:
    """Without bisection: the stuck game's dead end was entered by its last move, and its
    final position is won for the solver; the won game is not a row."""
    script = _script("find_blunders")
    folder = _folder(tmp_path / "games" / "search", [STUCK, WON])
    out = tmp_path / "out"
    argv = [str(folder), "--no-bisect", "--nodes", "200000", "--out", str(out), "--name", "t"]
    assert script.main(argv) == 0
    report = json.loads((out / "t.json").read_text())
    (row,) = report["rows"]
    assert (row["seed"], row["ended"], row["end"]) == (2000000000, "stuck", "won")
    assert (row["dead_end_moves"], row["dead_end_entered_by"]) == (0, "t0>t7")
    assert report["summary"]["ended"] == {"stuck": 1}
    assert report["records"] == 2
    assert "find_blunders.py" in (out / "command.txt").read_text()


def _report(rows: list[tuple[int, bool, bool]], **fields: Any) -> dict[str, Any]:
    per_episode = [
        {"seed": s, "won": w, "stuck": st, "foundation_cards": 104 if w else 50}
        for s, w, st in rows
    ]
    return {
        "variant": "Limited",
        "env_id": "FortyThieves/Limited-v0",
        "no_cycling": True,
        "results": {"search": {"per_episode": per_episode}},
        "timing": {"search": {"seconds_per_move": 0.05}},
        **fields,
    }


def test_compare_reports_counts_the_deals_one_alone_won(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = _script("compare_reports")
    new, old = tmp_path / "new.json", tmp_path / "old.json"
    new.write_text(json.dumps(_report([(1, True, False), (2, True, False), (3, False, True)])))
    old.write_text(json.dumps(_report([(1, False, True), (2, True, False), (4, True, False)])))
    out = script.compare(new, old)
    assert out["deals"] == 2  # seeds 1 and 2
    assert (out["new"]["wins"], out["old"]["wins"]) == (2, 1)
    assert (out["only_new_wins"], out["only_old_wins"]) == (1, 0)
    assert out["sign_test_p"] == 1.0
    assert (out["new"]["stuck"], out["old"]["stuck"]) == (0, 1)
    assert out["new"]["mean_foundation_cards"] == 104.0
    old.write_text(json.dumps(_report([(1, False, True)], no_cycling=False)))
    with pytest.raises(SystemExit, match="differ in no_cycling"):
        script.compare(new, old)
    old.write_text("[]")
    with pytest.raises(SystemExit, match="not an evaluation report"):
        script.compare(new, old)
