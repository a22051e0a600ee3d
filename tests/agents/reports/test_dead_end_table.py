"""The generated table of the search with the dead-end rule against the search before it
(``docs/solver.md``, block ``dead-end-table``; :func:`fortythieves_agents.reports.solver.dead_end_table`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fortythieves_agents.evaluation.results import EpisodeResult, summarize
from fortythieves_agents.reports.solver import (
    BEFORE_DEAD_END,
    SEEN_MOVES,
    dead_end_table,
    seen_moves_table,
)
from fortythieves_agents.seeds import TEST_START

from fortythieves_env import RULES_VERSION

SEEDS = list(range(TEST_START, TEST_START + 6))


def report(
    won: list[bool],
    stuck: list[bool],
    variant: str = "Limited",
    seconds: float = 0.1,
    rows: bool = True,
) -> dict[str, Any]:
    """A search report of the first six test deals (rows per deal unless ``rows`` is False)."""
    results = [
        EpisodeResult(s, bool(w), 104 if w else 50, 200, 114.0 if w else 50.0, False, bool(t))
        for s, w, t in zip(SEEDS, won, stuck, strict=True)
    ]
    settings = {"method": "solve", "samples": 16, "allocation": "halving",
                "nodes_per_sample": 1000, "budget_seconds_per_move": seconds}  # fmt: skip
    search = {**summarize(results), "settings": settings}
    if rows:
        search["per_episode"] = [vars(r) for r in results]
    return {
        "variant": variant, "rules_version": RULES_VERSION, "no_cycling": True,
        "episodes": len(results), "seeds": {"first": TEST_START, "count": len(results),
        "rule": "2_000_000_000 + i"}, "results": {"search": search},
    }  # fmt: skip


def save(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_the_rule_is_compared_deal_by_deal_with_the_report_it_replaced(tmp_path: Path) -> None:
    before = tmp_path / BEFORE_DEAD_END
    assert dead_end_table(tmp_path) == "No search evaluations before the dead-end rule saved."
    # with the rule: deals 0, 1, 3, 4 won; before: 0, 2; stuck 1 with, 3 before
    save(tmp_path / "Limited-6-s0.1.json", report([1, 1, 0, 1, 1, 0], [0, 0, 1, 0, 0, 0]))
    save(before / "Limited-6-s0.1.json", report([1, 0, 1, 0, 0, 0], [0, 1, 0, 1, 1, 0]))
    # Indian comes first (the registry's order), a report before without rows: no sign test
    save(tmp_path / "Indian-6-s1.json", report([1] * 6, [0] * 6, "Indian", 1.0))
    # ... and from before the rules version was recorded (version 1)
    old = report([1, 0, 0, 0, 0, 0], [0, 1, 1, 0, 0, 0], "Indian", 1.0, rows=False)
    del old["rules_version"]
    save(before / "Indian-6-s1.json", old)
    lines = dead_end_table(tmp_path).splitlines()
    assert lines[0].startswith("| variant | s per move | test deals | search wins, with the rule")
    assert lines[2:] == [
        "| Indian | 1 | 6 | 6 | 1 | - (no rows per deal before) | 0 / 2 |",
        # only with the rule: deals 1, 3, 4; only before: deal 2 (sign test on 3 and 1)
        "| Limited | 0.1 | 6 | 4 | 2 | 3 / 1 (p = 0.62) | 1 / 3 |",
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda r: r.update(variant="Streets"),
            r"a report of Streets, not of the variant its name",
        ),
        (lambda r: r.update(no_cycling=False), r"no_cycling False, but .* has True"),
        (lambda r: r["seeds"].update(first=TEST_START + 1), r"not among the report's 6 test deals"),
        (
            lambda r: r["results"]["search"]["settings"].update(nodes_per_sample=50),
            r"the search's settings .*'nodes_per_sample': 50.* differ from",
        ),
        (lambda r: r["results"].update(greedy=r["results"].pop("search")), r"no search agent"),
    ],
)
def test_reports_that_do_not_pair_are_refused_naming_the_file(
    tmp_path: Path, change: Any, message: str
) -> None:
    save(tmp_path / "Limited-6-s0.1.json", report([1] * 6, [0] * 6))
    old = report([0] * 6, [1] * 6)
    change(old)
    save(tmp_path / BEFORE_DEAD_END / "Limited-6-s0.1.json", old)
    with pytest.raises(ValueError, match=rf"before_dead_end/Limited-6-s0\.1\.json: .*{message}"):
        dead_end_table(tmp_path)


def test_a_report_before_with_none_after_it_or_a_damaged_one_is_refused(tmp_path: Path) -> None:
    save(tmp_path / BEFORE_DEAD_END / "Limited-6-s0.1.json", report([0] * 6, [1] * 6))
    with pytest.raises(ValueError, match=r"Limited-6-s0\.1\.json: no .*Limited-6-s0\.1\.json "):
        dead_end_table(tmp_path)
    (tmp_path / "Limited-6-s0.1.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match=r"^.*Limited-6-s0\.1\.json: "):
        dead_end_table(tmp_path)


def test_order_missing_counts_and_which_report_lacks_rows(tmp_path: Path) -> None:
    """Rows in order of budget as numbers (2 s before 10 s); a count a report lacks (``stuck``
    before the no-cycling rule, the budget of the rollouts setting) shows as ``-``; the
    missing rows are named on the side that lacks them."""
    before = tmp_path / BEFORE_DEAD_END
    for seconds in (10.0, 2.0):
        name = f"Limited-6-s{seconds:g}.json"
        save(tmp_path / name, report([1] * 6, [0] * 6, seconds=seconds, rows=seconds == 10.0))
        save(before / name, report([0] * 6, [1] * 6, seconds=seconds))
    old = report([0] * 6, [0] * 6, "Indian")
    del old["results"]["search"]["stuck"], old["results"]["search"]["stuck_rate"]
    new = report([1] * 6, [0] * 6, "Indian")
    for r in (old, new):
        del r["results"]["search"]["settings"]["budget_seconds_per_move"]
    save(tmp_path / "Indian-6.json", new)
    save(before / "Indian-6.json", old)
    assert dead_end_table(tmp_path).splitlines()[2:] == [
        "| Indian | - | 6 | 6 | 0 | 6 / 0 (p = 0.031) | 0 / - |",
        "| Limited | 2 | 6 | 6 | 0 | - (no rows per deal with the rule) | 0 / 6 |",
        "| Limited | 10 | 6 | 6 | 0 | 6 / 0 (p = 0.031) | 0 / 6 |",
    ]


def test_a_report_paired_with_itself_or_misnamed_is_refused(tmp_path: Path) -> None:
    after = tmp_path / "Limited-6-s0.1.json"
    save(after, report([1] * 6, [0] * 6))
    (tmp_path / BEFORE_DEAD_END).mkdir()
    (tmp_path / BEFORE_DEAD_END / after.name).symlink_to(after)
    with pytest.raises(ValueError, match=r"Limited-6-s0\.1\.json: the same file as "):
        dead_end_table(tmp_path)
    (tmp_path / BEFORE_DEAD_END / after.name).unlink()
    save(tmp_path / BEFORE_DEAD_END / "Indian-6-s0.1.json", report([0] * 6, [1] * 6))
    save(tmp_path / "Indian-6-s0.1.json", report([1] * 6, [0] * 6))
    with pytest.raises(ValueError, match=r"Indian-6-s0\.1\.json: a report of Limited, not of"):
        dead_end_table(tmp_path)


def test_the_seen_moves_experiment_is_compared_with_the_search_of_the_same_name(
    tmp_path: Path,
) -> None:
    """Each report in ``dead_end/seen_moves`` beside the search's report of its name: the
    experiment's wins first, the deals only one won with the sign test, the games stuck."""
    assert seen_moves_table(tmp_path) == (
        "No runs of the search with every seen move's dead ends saved."
    )
    # the experiment: deals 0, 1, 2 won, 1 stuck; the search: 0, 1 won, 3 stuck
    save(
        tmp_path / SEEN_MOVES / "Maria-6-s0.1.json",
        report([1, 1, 1, 0, 0, 0], [0, 0, 0, 1, 0, 0], "Maria"),
    )
    with pytest.raises(
        ValueError, match=r"seen_moves/Maria-6-s0\.1\.json: no .*Maria-6-s0\.1\.json "
    ):
        seen_moves_table(tmp_path)
    save(tmp_path / "Maria-6-s0.1.json", report([1, 1, 0, 0, 0, 0], [0, 0, 1, 1, 1, 0], "Maria"))
    lines = seen_moves_table(tmp_path).splitlines()
    assert lines[0].startswith(
        "| variant | s per move | test deals | search wins, every seen move |"
    )
    assert lines[2:] == ["| Maria | 0.1 | 6 | 3 | 2 | 1 / 0 (p = 1) | 1 / 3 |"]
    # the pair must be the same evaluation but for the rule: another node cap is refused
    other = report([1, 1, 0, 0, 0, 0], [0, 0, 1, 1, 1, 0], "Maria")
    other["results"]["search"]["settings"]["nodes_per_sample"] = 50
    save(tmp_path / "Maria-6-s0.1.json", other)
    with pytest.raises(
        ValueError, match=r"seen_moves/Maria-6-s0\.1\.json: the search's settings .* differ"
    ):
        seen_moves_table(tmp_path)
    # a report without rows per deal is named by this table's words
    save(tmp_path / "Maria-6-s0.1.json", report([1, 1, 0, 0, 0, 0], [0] * 6, "Maria", rows=False))
    assert seen_moves_table(tmp_path).splitlines()[2] == (
        "| Maria | 0.1 | 6 | 3 | 2 | - (no rows per deal with column moves only) | 1 / 0 |"
    )
