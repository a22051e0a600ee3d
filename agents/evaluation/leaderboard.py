"""The benchmark's leaderboard from saved evaluation reports (``fortythieves leaderboard
REPORT ...``; ``docs/protocol.md``).

A report is the JSON that ``fortythieves evaluate --json`` writes
(:func:`fortythieves_agents.evaluation.evaluate.evaluate_agents`). One row per variant, agent and
number of deals: wins with a 95% Wilson interval, the normalized score (wins among the deals
the clairvoyant solver proved winnable: against a checkout's ``results/solver`` records, else
the labels the package ships, :mod:`fortythieves_agents.evaluation.labels`), mean foundation cards
and the report's file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fortythieves_env import VARIANTS

from ..seeds import TEST_START
from .evaluate import (
    EpisodeResult,
    ceiling_cell,
    ceiling_summary,
)
from .labels import PROTOCOL_DEALS, protocol_verdicts
from .report_schema import ReportError, load_report

__all__ = [
    "ReportError",
    "Row",
    "agent_label",
    "cards_cell",
    "leaderboard_table",
    "read_report",
    "rows_of",
    "solver_ceiling_of",
    "wins_cell",
]


@dataclass(frozen=True)
class Row:
    """One agent's results in one report."""

    variant: str
    agent: str
    deals: int
    summary: dict[str, Any]
    ceiling: dict[str, Any] | None
    source: str


def read_report(
    path: Path,
    *,
    variant: str | None = None,
    episodes: int | None = None,
    agent: str | None = None,
    later_deals: bool = False,
) -> dict[str, Any]:
    """An evaluation report, every field checked
    (:func:`~fortythieves_agents.evaluation.report_schema.load_report`: the schema, one
    per-deal row per deal of the protocol, the summaries recomputed from the rows, a known
    variant, the current rules, a size cap) and, where given, for being ``variant``'s, on
    ``episodes`` deals, with agent ``agent`` among its results. Its deals must be the
    protocol's first test deals unless ``later_deals`` (a confirmatory run's report, from
    ``evaluate --first-deal``: read for a deal-by-deal comparison, never ranked).

    Raises:
        ReportError: one line naming the file and the field at fault (see
            :func:`~fortythieves_agents.evaluation.report_schema.load_report`); or the report
            is another variant's, on another number of deals, from a later test deal than
            the first (without ``later_deals``), or without ``agent`` (each named).
    """
    report = load_report(path)
    saved, deals = report["variant"], report["episodes"]
    if variant is not None and saved != variant:
        raise ReportError(f"{path}: a report of {saved}, not of {variant}")
    if episodes is not None and deals != episodes:
        raise ReportError(f"{path}: a report of {deals} deals where {episodes} are expected")
    first = report["seeds"]["first"]
    if first != TEST_START and not later_deals:
        raise ReportError(
            f"{path}: plays test deals {first - TEST_START}..{first - TEST_START + deals - 1}; "
            "the leaderboard and the tables read reports on the first test deals only "
            "(evaluate without --first-deal)"
        )
    if agent is not None and agent not in report["results"]:
        raise ReportError(f"{path}: no {agent!r} agent (agents: {', '.join(report['results'])})")
    return report


def agent_label(name: str, summary: dict[str, Any], path: Path, saved: bool = False) -> str:
    """How a row names its agent: the search agent with its budget, the shipped PPO runs as
    such (a ``final_evaluation.json`` or a file under ``ppo/`` among the checkout's ``saved``
    reports), a run fine-tuned from the family network as such (a
    ``finetuned/final_evaluation.json`` of :mod:`fortythieves_agents.family.compare`'s layout
    among the ``saved`` reports), any other agent by the name in its report: a user's file of
    one of those names keeps its own name (``ppo``), as its run is none of the shipped ones."""
    settings = summary.get("settings", {})
    if name == "search":
        if settings.get("method") == "solve":
            seconds = settings.get("budget_seconds_per_move")
            budget = f"{seconds:g} s" if seconds is not None else f"{settings.get('samples')}"
            leaf = ", learned leaf" if settings.get("leaf") == "learned" else ""
            return f"search (solve {budget} per move{leaf})"
        samples = settings.get("samples", 16)
        allocation = settings.get("allocation", "uniform")
        extra = "" if allocation == "uniform" else f", {allocation}"
        return f"search ({samples} samples{extra})"
    finetuned = path.name == "final_evaluation.json" and path.parent.name == "finetuned"
    if name == "ppo" and saved and finetuned:
        return "PPO fine-tuned from the family network"
    shipped = path.name == "final_evaluation.json" or path.parent.name == "ppo"
    if name == "ppo" and saved and shipped:
        return "PPO (shipped config)"
    return name


def solver_ceiling_of(
    variant: str, summary: dict[str, Any], solver_dir: Path | None, own: bool = False
) -> dict[str, Any] | None:
    """An agent's ``solver_ceiling`` from its per-deal rows: against the records of
    ``solver_dir`` (a checkout's ``results/solver``) when it has the variant's file, else
    against the shipped labels; without rows or without labels of its deals, the report's
    own ``solver_ceiling`` if ``own`` (a report the checkout saved), else None: anyone can
    write a ``solver_ceiling``."""
    from .solve import solver_verdicts

    rows = summary.get("per_episode")
    if rows:
        results = [EpisodeResult(**row) for row in rows]
        seeds = [r.seed for r in results]
        path = None if solver_dir is None else solver_dir / f"{variant}.jsonl"
        if path is not None and path.is_file():
            verdicts = solver_verdicts(path, variant, seeds)
        else:
            verdicts = protocol_verdicts(variant, seeds)
        if verdicts is not None:
            return ceiling_summary(results, verdicts)
    return summary.get("solver_ceiling") if own else None


def rows_of(
    paths: Iterable[Path],
    solver_dir: Path | None = None,
    root: Path | None = None,
    refused: list[ReportError] | None = None,
    saved: Collection[Path] = (),
) -> list[Row]:
    """Every agent of every report, in the leaderboard's order: variants in the registry's
    order, then the protocol's deal count first, then more deals before fewer, then wins
    among solver-proved wins, wins and foundation cards, best first. An agent that two
    reports show on the same deals keeps its first row (the one with a normalized score if
    only one has it): among the ``saved`` reports, or among the rows of one other file; a
    report that is not one of the ``saved`` never hides a saved row, nor is hidden by one,
    however its agent is named. A report's file is named relative to ``root`` when under it,
    else by its name (by its path as given where two such files share a name).

    Args:
        paths: the reports (:func:`read_report` checks each).
        solver_dir: a checkout's ``results/solver`` (None: the shipped labels only).
        root: report files under it are named relative to it.
        refused: if given, a report that fails :func:`read_report` is left out and its
            :class:`ReportError` appended here, so the others still rank; if None, the
            first one is raised.
        saved: the checkout's own saved reports
            (:func:`fortythieves_agents.reports.summary.default_reports`), written by
            this project's runs against its solver records: where one has no per-deal rows,
            its own ``solver_ceiling`` is shown; a saved file passed by another path (a
            symlink) is the saved file. Any other report's is never read (the normalized
            score is then ``-`` without per-deal rows).

    Raises:
        ReportError: a file is not an evaluation report the leaderboard can rank (only
            when ``refused`` is None).
    """
    paths = [Path(p) for p in paths]
    resolved = {p: p.resolve() for p in paths}  # each path resolved once
    outside = [p for p, real in resolved.items() if root is None or not real.is_relative_to(root)]
    names = Counter(p.name for p in outside)  # the files named by their names alone
    found: dict[tuple[str, str, int, str | None], Row] = {}
    own = {Path(p).resolve(): Path(p) for p in saved}
    for path in paths:
        real = resolved[path]
        try:
            report = read_report(path)
        except ReportError as exc:
            if refused is None:
                raise
            refused.append(exc)
            continue
        source = path.name if names[path.name] == 1 else str(path)  # two of one name: apart
        if root is not None and real.is_relative_to(root):
            source = str(real.relative_to(root))
        ours = real in own
        named = own.get(real, path)  # a saved file by any path: its saved name
        for name, summary in report["results"].items():
            variant = report["variant"]
            row = Row(
                variant=variant,
                agent=agent_label(name, summary, named, ours),
                deals=report["episodes"],
                summary=summary,
                ceiling=solver_ceiling_of(variant, summary, solver_dir, ours),
                source=source,
            )
            key = (row.variant, row.agent, row.deals, None if ours else str(real))
            if key not in found or (found[key].ceiling is None and row.ceiling is not None):
                found[key] = row
    order = {name: i for i, name in enumerate(VARIANTS)}

    def rank(row: Row) -> tuple[Any, ...]:
        share = row.ceiling["share_of_proved"] if row.ceiling else -1.0
        return (
            order.get(row.variant, len(order)),
            row.variant,
            row.deals != PROTOCOL_DEALS,
            -row.deals,
            -share,
            -row.summary["win_rate"],
            -row.summary["mean_foundation_cards"],
            row.agent,
        )

    return sorted(found.values(), key=rank)


def cards_cell(summary: dict[str, Any] | None) -> str:
    """``mean [lo, hi]`` foundation cards with one decimal; ``-`` without a summary."""
    if summary is None:
        return "-"
    lo, hi = summary["foundation_cards_ci95"]
    return f"{summary['mean_foundation_cards']:.1f} [{lo:.1f}, {hi:.1f}]"


def wins_cell(summary: dict[str, Any] | None) -> str:
    """``rate% [lo, hi]`` win rate in percent with one decimal; ``-`` without a summary."""
    if summary is None:
        return "-"
    lo, hi = summary["win_rate_ci95"]
    return f"{100 * summary['win_rate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def leaderboard_table(rows: Sequence[Row], variant_column: bool = True) -> str:
    """The leaderboard in Markdown, one line per :class:`Row` (without the variant column
    for a page of one variant)."""
    if not rows:
        return "_No evaluation reports saved yet._"
    head = "| variant " if variant_column else ""
    lines = [
        f"{head}| agent | test deals | wins [95% CI] | wins / solver-proved wins "
        "| foundation cards [95% CI] | report |",
        "|---" * (7 if variant_column else 6) + "|",
    ]
    for row in rows:
        proved = "-" if row.ceiling is None else ceiling_cell(row.ceiling)
        first = f"| {row.variant} " if variant_column else ""
        lines.append(
            f"{first}| {row.agent} | {row.deals} | {wins_cell(row.summary)} "
            f"| {proved} | {cards_cell(row.summary)} | `{row.source}` |"
        )
    return "\n".join(lines)
