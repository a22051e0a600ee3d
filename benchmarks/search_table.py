"""The search-agent table of the docs, rendered from the saved evaluation reports.

Reads every ``results/search/<Variant>-<deals>[-k<samples>[h]].json`` (written by
``fortythieves evaluate search --variant V --episodes N --json ...``, see
``scripts/search/run_eval.sh``) and prints one Markdown row per report, in the registry's
order: the deals, the search budget (samples per move; for the solving setting of issue 25,
``solve`` with its seconds per move or samples, and nodes per sample), the search agent's,
the shipped PPO model's (``results/search/ppo/``, ``scripts/search/run_ppo.sh``; ``-`` when
not saved), greedy's and random's wins with 95% Wilson intervals, the search agent's wins
among the deals the clairvoyant solver proved winnable (the ceiling, when the report has
it), mean foundation cards, and the seconds per move the search cost (when the report
timed it). With ``--readme`` it writes the table between ``<!-- search-table:start -->`` and
``<!-- search-table:end -->``, so the table is generated, never typed.

Usage::

    python benchmarks/search_table.py
    python benchmarks/search_table.py --results-dir results/search --readme docs/solver.md
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's packages
from bench_report import write_between
from fortythieves_agents.evaluation.evaluate import ceiling_cell
from fortythieves_agents.players.search import DEFAULT_SAMPLES
from results_table import wins_cell

from fortythieves_env import VARIANTS

START = "<!-- search-table:start -->"
END = "<!-- search-table:end -->"
RESULTS_DIR = Path(__file__).resolve().parents[1] / "results" / "search"
HEADER = (
    "| variant | test deals | samples per move | search wins [95% CI] | search wins / "
    "solver-proved wins | PPO wins [95% CI] | greedy wins [95% CI] | random wins [95% CI] | "
    "search cards | greedy cards | s per move |\n|---|---|---|---|---|---|---|---|---|---|---|"
)


def _cards(summary: dict[str, Any] | None) -> str:
    return "-" if summary is None else f"{summary['mean_foundation_cards']:.1f}"


def _budget(report: dict[str, Any]) -> tuple[int, bool, str]:
    """The search agent's samples per move, whether that is the default (a report that
    predates ``settings`` was made at :data:`fortythieves_agents.players.search.DEFAULT_SAMPLES`),
    and its allocation."""
    settings = report["results"]["search"].get("settings", {})
    samples = settings.get("samples")
    allocation = settings.get("allocation", "uniform")
    return (DEFAULT_SAMPLES, True, allocation) if samples is None else (samples, False, allocation)


def ppo_summary(results_dir: str | Path, variant: str, episodes: int) -> dict[str, Any] | None:
    """The shipped PPO model's results on the same deals: ``<results_dir>/ppo/<variant>-<N>.json``
    (``scripts/search/run_ppo.sh``), or None when it is not saved."""
    path = Path(results_dir) / "ppo" / f"{variant}-{episodes}.json"
    if not path.is_file():
        return None
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
        if report["episodes"] == episodes and report["variant"] == variant:
            return report["results"]["ppo"]
        cause = ""
    except (KeyError, TypeError, ValueError) as exc:  # ValueError: not JSON (cut mid-write)
        cause = f" ({exc!r})"
    raise ValueError(f"{path}: not a PPO report of {episodes} deals of {variant}{cause}")


def row(report: dict[str, Any], ppo: dict[str, Any] | None = None) -> str:
    """The table row of one saved report (``ppo``: the PPO model's results on its deals).

    Raises:
        KeyError: the report has no ``search`` agent.
    """
    results = report["results"]
    search = results["search"]
    ceiling = search.get("solver_ceiling")
    proved = "-" if ceiling is None else ceiling_cell(ceiling)
    count, default, allocation = _budget(report)
    samples = f"{count} (default)" if default else str(count)
    settings = search.get("settings", {})
    if settings.get("method") == "solve":  # the solving setting (issue 25): its budget
        nodes = settings.get("nodes_per_sample")
        seconds = settings.get("budget_seconds_per_move")
        samples = f"solve {seconds:g} s" if seconds is not None else f"solve {count}"
        samples += f" ({nodes:,} nodes)"
        if allocation != "halving":
            samples += f" ({allocation})"
    elif allocation != "uniform":
        samples += f" ({allocation})"
    timing = report.get("timing", {}).get("search")
    per_move = "-" if timing is None else f"{timing['seconds_per_move']:.3f}"
    return (
        f"| {report['variant']} | {report['episodes']} | {samples} | {wins_cell(search)} | "
        f"{proved} | {wins_cell(ppo)} | {wins_cell(results.get('greedy'))} | "
        f"{wins_cell(results.get('random'))} | "
        f"{_cards(search)} | {_cards(results.get('greedy'))} | {per_move} |"
    )


def table_for(results_dir: str | Path) -> str:
    """The Markdown table of every ``*.json`` report in ``results_dir``: one row each, in the
    registry's order of variants, then by deals, allocation (uniform first) and samples per
    move (none: a one-line note).

    Raises:
        ValueError: a file is not a search evaluation report (named with the cause).
    """
    order = {name: i for i, name in enumerate(VARIANTS)}
    reports = []
    for path in sorted(Path(results_dir).glob("*.json")):
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
            count, _, allocation = _budget(report)
            settings = report["results"]["search"].get("settings", {})
            key = (
                order.get(report["variant"], len(order)),
                report["episodes"],
                settings.get("method", "rollouts") == "solve",
                allocation != "uniform",
                settings.get("budget_seconds_per_move") or 0.0,
                count,
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}: not a search evaluation report ({exc!r})") from None
        ppo = ppo_summary(results_dir, report["variant"], report["episodes"])
        reports.append((key, row(report, ppo)))
    if not reports:
        return "No search evaluations saved yet."
    return "\n".join([HEADER, *(line for _, line in sorted(reports))])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results-dir", default=str(RESULTS_DIR), help="the reports' folder")
    parser.add_argument(
        "--readme", help="write the table into this file (docs/solver.md, between markers)"
    )
    args = parser.parse_args(argv)
    try:
        table = table_for(args.results_dir)
        if args.readme:
            write_between(args.readme, table, START, END)
        else:
            print(table)
    except (OSError, ValueError) as exc:
        print(f"search_table: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
