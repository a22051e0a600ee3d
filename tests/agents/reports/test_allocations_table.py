"""The generated table of the search's settings compared on the same deals (``docs/solver.md``,
block ``allocations-table``; :func:`fortythieves_agents.reports.allocations.allocations_table`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fortythieves_agents.reports.allocations import BEFORE_DEAD_END, allocations_table
from fortythieves_agents.seeds import TEST_START


def play(won: bool, moves: int, cpu: float) -> dict[str, Any]:
    return {"won": won, "foundation_cards": 104 if won else 40, "moves": moves, "stuck": False,
            "nodes": 1000, "solves": 10, "cpu_seconds": cpu, "wall_seconds": cpu}  # fmt: skip


def comparison(
    variant: str, deals: int, plays: dict[str, list[tuple[bool, int, float]]], key: bool = True
) -> dict[str, Any]:
    """A ``deals.json`` of ``compare_allocations.py``: ``plays`` by setting, one per deal played
    (``key``: with the ``allocations`` setting, which the script's first form did not write)."""
    names = list(plays)
    settings = {"variant": variant, "deals": deals, "seconds_per_move": 0.1,
                "nodes_per_sample": 1000, "seed": 0}  # fmt: skip
    if key:
        settings["allocations"] = names
    n = len(plays[names[0]])
    rows = [
        {"deal": i, "seed": TEST_START + i, **{name: play(*plays[name][i]) for name in names}}
        for i in range(n)
    ]
    return {"settings": settings, "summary": {"made up": True}, "rows": rows}


def save(folder: Path, data: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "deals.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_each_setting_is_counted_from_the_rows_against_the_first(tmp_path: Path) -> None:
    assert allocations_table(tmp_path) == "No comparisons of the search's settings saved."
    # with the rule, Limited: halving wins deals 0, 1; ucb-irreversible wins 1, 2, 3
    limited = {
        "halving": [(True, 100, 1.0), (True, 200, 2.0), (False, 100, 1.0), (False, 100, 1.0)],
        "ucb-irreversible": [(False, 300, 3.0), (True, 300, 3.0), (True, 300, 6.0),
                             (True, 300, 3.0)],
    }  # fmt: skip
    save(tmp_path / "Limited-4-s0.1-halving_ucb-irreversible", comparison("Limited", 4, limited))
    # before the rule, Indian, the script's first form (halving against ucb), 3 of 5 deals
    # played; a second comparison of three settings on the same deals
    indian = {"halving": [(True, 10, 0.5), (False, 20, 0.5), (True, 30, 0.5)],
              "ucb": [(True, 20, 1.0), (True, 20, 1.0), (True, 20, 1.0)]}  # fmt: skip
    before = tmp_path / BEFORE_DEAD_END
    save(before / "Indian-5-s0.1", comparison("Indian", 5, indian, key=False))
    three = {**indian, "halving-learned": [(False, 60, 0.6)] * 3}
    save(before / "Indian-5-s0.1-halving_ucb_halving-learned", comparison("Indian", 5, three))
    lines = allocations_table(tmp_path).splitlines()
    assert lines[0].startswith("| variant | dead-end rule | s per move | test deals | setting")
    assert lines[2:] == [
        # 3 / 2 wins; only ucb-irreversible: deals 2, 3; only halving: deal 0 (p = 1.0);
        # moves 1200 / 4 and 500 / 4; CPU 15 s / 1200 moves and 5 s / 500 moves
        "| Limited | with | 0.1 | 4 | ucb-irreversible / halving | 3 / 2 | 2 / 1 (p = 1) "
        "| 300 / 125 | 0.0125 / 0.0100 |",
        "| Indian | before | 0.1 | 3 of 5 | ucb / halving | 3 / 2 | 1 / 0 (p = 1) "
        "| 20 / 20 | 0.0500 / 0.0250 |",
        "| Indian | before | 0.1 | 3 of 5 | ucb / halving | 3 / 2 | 1 / 0 (p = 1) "
        "| 20 / 20 | 0.0500 / 0.0250 |",
        "| Indian | before | 0.1 | 3 of 5 | halving-learned / halving | 0 / 2 | 0 / 2 (p = 0.5) "
        "| 60 / 20 | 0.0100 / 0.0250 |",
    ]


def _set(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda d: d["settings"].__setitem__(key, value)


def _row(i: int, key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda d: d["rows"][i].__setitem__(key, value)


def _play(i: int, key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda d: d["rows"][i]["ucb"].__setitem__(key, value)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("rows"), r"not a comparison \(a dict with settings and rows\)"),
        (lambda d: d.__setitem__("settings", []), "not a comparison"),
        (_set("variant", "Klondike"), r"variant 'Klondike' is none of FortyThieves, "),
        (_set("variant", ["Indian"]), r"variant \['Indian'\] is none of FortyThieves, "),
        (_set("variant", "Limited"), "its folder is not named Limited-3-s0.1 "),
        (_set("deals", 4), "its folder is not named Indian-4-s0.1 "),
        (_set("deals", "3"), "its folder is not named Indian-3-s0.1 "),
        (_set("seconds_per_move", 0.2), "its folder is not named Indian-3-s0.2 "),
        (
            _set("allocations", ["halving", "halving-learned"]),
            "its folder is not named Indian-3-s0.1-halving_halving-learned ",
        ),
        (_set("seconds_per_move", 0), "seconds_per_move 0 is no finite positive number"),
        (_set("seconds_per_move", True), "seconds_per_move True is no finite positive number"),
        (_set("seconds_per_move", float("inf")), "seconds_per_move inf is no finite positive"),
        (_set("allocations", ["ucb", "ucb"]), r"allocations \['ucb', 'ucb'\]: two or more dis"),
        (_set("allocations", ["halving", "ucb", "ucb"]), "two or more distinct setting names"),
        (_set("allocations", None), "allocations None: two or more distinct setting names"),
        (_set("allocations", 5), "allocations 5: two or more"),
        (_set("allocations", [["halving"], ["ucb"]]), "two or more distinct setting names"),
        (_set("allocations", ["halving", "u|cb"]), "two or more distinct setting names"),
        (lambda d: d.__setitem__("rows", []), "0 rows of 3 deals"),
        (lambda d: d["rows"].append(dict(d["rows"][2], deal=3)), "4 rows of 3 deals"),
        (lambda d: d["rows"].reverse(), r"row 0 is not deal 0 with seed 2000000000"),
        (_row(1, "seed", TEST_START), r"row 1 is not deal 1 with seed 2000000001"),
        (lambda d: d["rows"].__setitem__(2, None), "row 2 is not deal 2"),
        (lambda d: d["rows"][1].pop("ucb"), r"deal 1 has no play of ucb \(won, moves"),
        (_play(0, "won", 1), "deal 0 has no play of ucb"),
        (_play(0, "moves", 0), "deal 0 has no play of ucb"),
        (_play(0, "moves", 10**400), "deal 0 has no play of ucb"),
        (_play(2, "moves", 2.5), "deal 2 has no play of ucb"),
        (_play(2, "cpu_seconds", "1"), "deal 2 has no play of ucb"),
        (_play(2, "cpu_seconds", -0.5), "deal 2 has no play of ucb"),
        (_play(2, "cpu_seconds", float("inf")), "deal 2 has no play of ucb"),
    ],
)
def test_a_damaged_comparison_is_refused_in_one_line_naming_its_file(
    tmp_path: Path, change: Callable[[dict[str, Any]], None], message: str
) -> None:
    data = comparison("Indian", 3, {"halving": [(True, 10, 0.5)] * 3, "ucb": [(True, 9, 0.5)] * 3})
    change(data)
    folder = tmp_path / "Indian-3-s0.1"
    folder.mkdir()
    path = folder / "deals.json"
    path.write_text(json.dumps(data, allow_nan=True), encoding="utf-8")
    with pytest.raises(ValueError, match=message) as caught:
        allocations_table(tmp_path)
    assert f"{path.parent.name}/deals.json: " in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("write", "message"),
    [
        (lambda p: p.write_text("{not json", encoding="utf-8"), "JSONDecodeError"),
        (lambda p: p.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8"), "Recursion"),
        (lambda p: p.mkdir(), "IsADirectoryError"),
        (lambda p: p.symlink_to(p.parent / "gone.json"), "FileNotFoundError"),
        (lambda p: p.symlink_to(p), "OSError"),
    ],
)
def test_an_unreadable_comparison_is_refused_naming_its_file(
    tmp_path: Path, write: Callable[[Path], None], message: str
) -> None:
    folder = tmp_path / BEFORE_DEAD_END / "Maria-2-s0.1"
    folder.mkdir(parents=True)
    write(folder / "deals.json")
    with pytest.raises(ValueError, match=rf"Maria-2-s0.1/deals.json: cannot read it \({message}"):
        allocations_table(tmp_path)


def test_comparisons_of_one_variant_are_ordered_by_their_deals(tmp_path: Path) -> None:
    plays = {"halving": [(True, 10, 0.5)] * 20, "ucb": [(False, 10, 0.5)] * 20}
    save(tmp_path / "Indian-100-s0.1", comparison("Indian", 100, plays))
    save(tmp_path / "Indian-20-s0.1", comparison("Indian", 20, plays))
    lines = allocations_table(tmp_path).splitlines()[2:]
    assert [line.split(" | ")[3] for line in lines] == ["20", "20 of 100"]
