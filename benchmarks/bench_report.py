"""What every benchmark script shares: ``--json`` / ``--table`` and the saved report.

A saved report holds the script's figures plus how they were made (the exact command,
the date, the load average after the run), so that the README's tables can be rendered
from it (``--table``) instead of typed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any


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
    ``command`` (``python benchmarks/<script> ARGS``; ``argv`` or the process's own)."""
    report = {
        **figures,
        "load_average_after": os.getloadavg()[0],
        "date": datetime.now().isoformat(timespec="seconds"),
        "command": " ".join(["python", f"benchmarks/{script}", *(argv or sys.argv[1:])]),
    }
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"written to {out}")


def read_json(path: Path) -> Any:
    """The JSON at ``path``, or None when it is not saved.

    Raises:
        ValueError: the file is not JSON (named).
    """
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from None


def replace_between(readme: str, table: str, start: str, end: str) -> str:
    """``readme`` with the text between the marker lines ``start`` and ``end`` replaced by
    ``table`` (how generated tables are written into the README).

    Raises:
        ValueError: the markers are missing or not once each, in order.
    """
    pattern = re.compile(re.escape(start) + r"\n.*?" + re.escape(end), flags=re.S)
    if readme.count(start) != 1 or readme.count(end) != 1 or not pattern.search(readme):
        raise ValueError(f"the README needs one {start!r} line and, after it, one {end!r} line")
    return pattern.sub(lambda _: f"{start}\n{table}\n{end}", readme)


def write_between(path: str | Path, table: str, start: str, end: str) -> None:
    """Write ``table`` into the file at ``path`` between its marker lines ``start`` and
    ``end`` (:func:`replace_between`) and say so on stdout.

    Raises:
        OSError: the file cannot be read or written.
        ValueError: the markers are missing or not once each, in order.
    """
    path = Path(path)
    path.write_text(
        replace_between(path.read_text(encoding="utf-8"), table, start, end), encoding="utf-8"
    )
    print(f"table written to {path}")


def short_commit(checkout: str | Path) -> str:
    """The short hash of ``checkout``'s HEAD (empty if it is not a git checkout)."""
    done = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip()
