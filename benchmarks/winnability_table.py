"""The winnability table of the docs, rendered from the saved per-deal solver results.

Reads every ``*.jsonl`` in the results folder (``fortythieves solve`` writes
``results/solver/<variant>.jsonl``) and prints one Markdown row per variant and node budget
(:func:`fortythieves_agents.evaluation.solve.markdown_table`). With ``--readme FILE`` it writes the
table into that file (the docs' ``docs/solver.md``) between the lines ``<!-- winnability-table:start
-->`` and ``<!-- winnability-table:end -->``, so the table is generated, never typed.

Usage::

    python benchmarks/winnability_table.py
    python benchmarks/winnability_table.py --results-dir results/solver --readme docs/solver.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's agents
from bench_report import replace_between
from fortythieves_agents.evaluation.solve import RESULTS_DIR, markdown_table

START = "<!-- winnability-table:start -->"
END = "<!-- winnability-table:end -->"


def table_for(results_dir: str | Path) -> str:
    """The Markdown table of every results file in ``results_dir`` (none: a one-line note)."""
    return markdown_table(sorted(Path(results_dir).glob("*.jsonl")))


def replace_table(readme: str, table: str) -> str:
    """``readme`` with the text between the two marker lines replaced by ``table``.

    Raises:
        ValueError: the markers are missing or not once each, in order.
    """
    return replace_between(readme, table, START, END)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results-dir", default=str(RESULTS_DIR), help="the JSONL folder")
    parser.add_argument(
        "--readme", help="write the table into this file (docs/solver.md, between markers)"
    )
    args = parser.parse_args(argv)
    table = table_for(args.results_dir)
    if args.readme:
        path = Path(args.readme)
        try:
            path.write_text(replace_table(path.read_text(encoding="utf-8"), table), "utf-8")
        except (OSError, ValueError) as exc:
            print(f"winnability_table: error: {path}: {exc}", file=sys.stderr)
            return 2
        print(f"table written to {path}")
    else:
        print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
