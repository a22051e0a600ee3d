"""``fortythieves leaderboard``: the benchmark's leaderboard rows of evaluation reports
(:mod:`fortythieves_agents.evaluation.leaderboard`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..options import EXIT_USAGE


def _add_leaderboard_parser(sub: Any) -> None:
    """``fortythieves leaderboard``."""
    lb = sub.add_parser(
        "leaderboard",
        help="the benchmark's leaderboard rows of evaluation reports (evaluate --json)",
    )
    lb.add_argument(
        "reports",
        metavar="REPORT",
        nargs="+",
        help="evaluation reports (JSON of fortythieves evaluate --json; --per-episode gives "
        "the normalized score against the protocol's solver labels); each is checked field by "
        "field, a refused one is named on stderr and the others still rank (exit code 2); "
        "each agent is named as its report names it (the saved rows beside yours: python -m "
        "fortythieves_agents.reports --print leaderboard --reports REPORT ...)",
    )


def _leaderboard(args: argparse.Namespace) -> int:
    """Print the leaderboard of the given reports (Markdown, ranked as ``docs/protocol.md``
    ranks): scored against ``results/solver/`` under the working folder when it is there,
    else against the labels shipped with the package, never against a report's own
    ``solver_ceiling``. Each report is checked field by field first
    (:mod:`fortythieves_agents.evaluation.report_schema`): a refused one gets one line on
    stderr naming the file and the field, the others still rank, and the exit code is
    :data:`EXIT_USAGE`. It ranks the given files only, each agent by the name in its report:
    it never calls a run shipped (a checkout's saved reports are ranked beside other reports
    by ``python -m fortythieves_agents.reports --print leaderboard --reports FILE ...``)."""
    from ...evaluation.leaderboard import ReportError, leaderboard_table, rows_of

    solver_dir = Path("results") / "solver"
    refused: list[ReportError] = []
    rows = rows_of(args.reports, solver_dir if solver_dir.is_dir() else None, refused=refused)
    if rows or not refused:
        print(leaderboard_table(rows))
    for exc in refused:
        print(f"fortythieves leaderboard: error: {exc}", file=sys.stderr)
    return EXIT_USAGE if refused else 0
