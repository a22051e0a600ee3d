"""What every benchmark script shares: ``--json`` / ``--table`` and the saved report.

A saved report holds the script's figures plus how they were made (the exact command,
the date, the load average after the run), so that the docs' tables are rendered from it
(:mod:`fortythieves_agents.reports.speed`; ``--table`` prints one, ``python -m
fortythieves_agents.reports`` writes them all) instead of typed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from fortythieves_agents.paths import portable_command

ROOT = Path(__file__).resolve().parents[1]


def add_report_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--json PATH`` (write the figures there) and ``--table JSON`` (print the
    README table of a saved report and exit)."""
    parser.add_argument("--json", dest="json_path", help="also write the figures here")
    parser.add_argument(
        "--table", metavar="JSON", help="print the README table of a saved report and exit"
    )


def print_table(path: str, render: Callable[[dict[str, Any]], str]) -> None:
    """Print ``render`` of the report saved at ``path``."""
    print(render(json.loads(Path(path).read_text(encoding="utf-8"))))


def save_report(
    path: str, script: str, argv: Sequence[str] | None, figures: dict[str, Any]
) -> None:
    """Write ``figures`` to ``path`` as JSON with ``load_average_after``, ``date`` and the
    ``command`` (``python -m benchmarks.<script> ARGS``, ``script`` with or without ``.py``;
    ``argv`` or the process's own)."""
    report = {
        **figures,
        "load_average_after": os.getloadavg()[0],
        "date": datetime.now().isoformat(timespec="seconds"),
        "command": " ".join(
            [
                "python",
                "-m",
                f"benchmarks.{script.removesuffix('.py')}",
                *portable_command(argv or sys.argv[1:], ROOT),
            ]
        ),
    }
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"written to {out}")


def short_commit(checkout: str | Path) -> str:
    """The short hash of ``checkout``'s HEAD (empty if it is not a git checkout)."""
    done = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip()
