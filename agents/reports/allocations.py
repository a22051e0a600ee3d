"""The table of the search's settings compared on the same deals (``docs/solver.md``, block
``allocations-table``), rendered from the saved per-deal rows of
``scripts/search/compare_allocations.py``.

Each comparison is a folder ``<Variant>-<deals>-s<seconds>[-<setting>_<setting>...]`` holding
``deals.json``: its ``settings`` (variant, deals, seconds per move, the settings compared,
``allocations``; a file written before that key compared ``halving`` and ``ucb``) and one
row per deal played, in deal order (``deal``, ``seed``, and per setting ``won``, ``moves``,
``cpu_seconds``). The folders in ``results/search/allocations`` were played by the search as
it is (the dead-end rule of column moves on); those in its :data:`BEFORE_DEAD_END` subfolder
before that rule. Every figure is counted from the rows, never read from the file's summary.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from fortythieves_env import VARIANTS

from ..evaluation.report_schema import display_path
from ..seeds import TEST_START
from .solver import won_only_cell

BEFORE_DEAD_END = "before_dead_end"
"""The subfolder of ``results/search/allocations`` with the comparisons played before the
dead-end rule (as ``results/search/before_dead_end`` for the reports)."""
OLD_DEFAULT = ("halving", "ucb")
"""The settings a ``deals.json`` without ``allocations`` compared (the script's first form)."""
NAME = re.compile(r"[a-z][a-z0-9-]*")
"""A setting's name as ``compare_allocations.py`` spells them (``halving``, ``ucb``,
``ucb-irreversible``, ``halving-learned``): safe in a Markdown cell."""
MAX_MOVES = 1_000_000
"""The most moves a game of a comparison may have (far above every variant's step limit)."""
HEADER = (
    "| variant | dead-end rule | s per move | test deals | setting / against | wins | won only "
    "by one (sign test p) | moves per game | CPU s per move |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


def _fault(path: Path, what: str) -> ValueError:
    return ValueError(f"{display_path(path)}: {what}")


def _comparison(path: Path) -> tuple[dict[str, Any], tuple[str, ...], list[dict[str, Any]]]:
    """The settings, the names compared and the rows of the ``deals.json`` at ``path``, each
    field checked.

    Raises:
        ValueError: one line naming the file: unreadable, not a comparison, a variant not
            registered, a budget per move that is no finite positive number, settings that
            are not two or more distinct names (:data:`NAME`), a folder not named as the
            script names it (``<Variant>-<deals>-s<seconds>``, then ``-`` and the settings
            joined by ``_`` unless they are :data:`OLD_DEFAULT`), no rows or more than its
            deals, a row out of deal order or with another seed than the deal's test seed, or
            a setting's play without a boolean ``won``, a count of ``moves`` in
            1..:data:`MAX_MOVES` or a finite, non-negative ``cpu_seconds``.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise _fault(path, f"cannot read it ({type(exc).__name__}: {exc})") from None
    settings = data.get("settings") if isinstance(data, dict) else None
    rows = data.get("rows") if isinstance(data, dict) else None
    if not isinstance(settings, dict) or not isinstance(rows, list):
        raise _fault(path, "not a comparison (a dict with settings and rows)")
    variant, deals = settings.get("variant"), settings.get("deals")
    seconds = settings.get("seconds_per_move")
    names = settings.get("allocations", list(OLD_DEFAULT))
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise _fault(path, f"variant {variant!r} is none of {', '.join(VARIANTS)}")
    if type(seconds) not in (int, float) or not 0 < seconds < math.inf:
        raise _fault(path, f"seconds_per_move {seconds!r} is no finite positive number")
    if (
        not isinstance(names, list)
        or len(names) < 2
        or not all(isinstance(n, str) and NAME.fullmatch(n) for n in names)
        or len(set(names)) < len(names)
    ):
        raise _fault(path, f"allocations {names!r}: two or more distinct setting names")
    names = tuple(names)
    suffix = "" if names == OLD_DEFAULT else "-" + "_".join(names)
    expected = f"{variant}-{deals}-s{seconds:g}{suffix}"
    if type(deals) is not int or path.parent.name != expected:
        raise _fault(path, f"its folder is not named {expected} (the script's name of it)")
    if not 1 <= len(rows) <= deals:
        raise _fault(path, f"{len(rows)} rows of {deals} deals")
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or row.get("deal") != i or row.get("seed") != TEST_START + i:
            raise _fault(path, f"row {i} is not deal {i} with seed {TEST_START + i}")
        for name in names:
            play = row.get(name)
            if not (
                isinstance(play, dict)
                and type(play.get("won")) is bool
                and type(play.get("moves")) is int
                and type(play.get("cpu_seconds")) in (int, float)
                and 1 <= play["moves"] <= MAX_MOVES
                and 0 <= play["cpu_seconds"] < math.inf
            ):
                raise _fault(path, f"deal {i} has no play of {name} (won, moves, cpu_seconds)")
    return settings, names, rows


def comparison_rows(path: Path, rule: str) -> list[tuple[tuple[int, int, str, int], str]]:
    """The table's rows of the ``deals.json`` at ``path`` (``rule``: its dead-end rule
    column), one per setting after the first, against the first, each with its sort key (the
    registry's order of variants, then the deals, the folder and the setting's place): both
    settings' wins, the deals only one won with the two-sided sign test
    (:func:`.solver.won_only_cell`), mean moves per game and CPU seconds per move.

    Raises:
        ValueError: as :func:`_comparison`.
    """
    settings, names, rows = _comparison(path)
    played = len(rows)
    deals = f"{played}" if played == settings["deals"] else f"{played} of {settings['deals']}"

    def column(name: str, key: str) -> list[Any]:
        return [row[name][key] for row in rows]

    def per_move(name: str) -> float:  # every game has a move (checked)
        return sum(column(name, "cpu_seconds")) / sum(column(name, "moves"))

    first = names[0]
    key = (list(VARIANTS).index(settings["variant"]), settings["deals"], path.parent.name)
    out = []
    for index, name in enumerate(names[1:]):
        out.append(
            (
                (*key, index),
                f"| {settings['variant']} | {rule} | {settings['seconds_per_move']:g} | {deals} "
                f"| {name} / {first} | {sum(column(name, 'won'))} / {sum(column(first, 'won'))} "
                f"| {won_only_cell(column(name, 'won'), column(first, 'won'))} "
                f"| {sum(column(name, 'moves')) / played:.0f} / "
                f"{sum(column(first, 'moves')) / played:.0f} "
                f"| {per_move(name):.4f} / {per_move(first):.4f} |",
            )
        )  # fmt: skip
    return out


def allocations_table(allocations_dir: Path) -> str:
    """Every comparison in ``allocations_dir`` (a checkout's ``results/search/allocations``:
    with the dead-end rule) and in its :data:`BEFORE_DEAD_END` subfolder, one row per setting
    against the comparison's first (:func:`comparison_rows`), those with the rule first;
    none: a one-line note.

    Raises:
        ValueError: as :func:`_comparison`.
    """
    rows = []
    for folder, rule in ((allocations_dir, "with"), (allocations_dir / BEFORE_DEAD_END, "before")):
        found = []
        # a broken link named deals.json is read (and refused), not skipped as glob would
        for path in sorted(p / "deals.json" for p in folder.glob("*") if p.is_dir()):
            if path.exists() or path.is_symlink():
                found.extend(comparison_rows(path, rule))
        rows.extend(row for _, row in sorted(found))
    if not rows:
        return "No comparisons of the search's settings saved."
    return "\n".join([HEADER, *rows])
