"""The benchmark's leaderboard, the test deals' solver labels and the README's results table,
rendered from saved evaluation reports (generated, never typed).

A report is the JSON that ``fortythieves evaluate --json`` writes (and ``train`` saves as
``final_evaluation.json``; :func:`fortythieves_agents.evaluation.evaluate.evaluate_agents` returns
the same dict). Read by default: the shipped runs' final evaluations
(``results/training/<Variant>/``), the search agent's reports (``results/search/*.json`` and
``results/search/ppo/*.json``) and the reports in ``results/leaderboard/*.json`` (yours: see
``docs/protocol.md``); ``--reports`` adds more.

Every report is checked field by field first
(:mod:`fortythieves_agents.evaluation.report_schema`); printing the leaderboard, a refused
report gets one line on stderr naming the file and the field, the others still rank, and the
exit code is 2; ``--write`` refuses to write while any report is refused.

One leaderboard row per variant, agent and number of deals (an agent's row from a second
report of the same deals is left out): wins with a 95% Wilson interval (wins per deal), the
normalized score (wins among the deals the clairvoyant solver proved winnable, from the
report's per-deal rows and ``results/solver/<Variant>.jsonl``; without rows, the
checkout's own saved reports show their ``solver_ceiling``, a report given with ``--reports``
none), mean foundation cards and the report's file.

Usage::

    python benchmarks/leaderboard.py                        # print the leaderboard
    python benchmarks/leaderboard.py --reports my-agent.json
    python benchmarks/leaderboard.py --write README.md docs/protocol.md docs/index.md

``--write`` replaces, in each file, the text between the markers it has:
``<!-- leaderboard:start -->``, ``<!-- solver-labels:start -->`` and
``<!-- summary-table:start -->`` (each with its ``:end`` line).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's packages
from bench_report import replace_between
from expert_table import expert_stage
from fortythieves_agents.cli.main import DEFAULT_NODES, DEFAULT_SECONDS
from fortythieves_agents.evaluation import leaderboard as board
from fortythieves_agents.evaluation.labels import LABELS_FILE, PROTOCOL_DEALS, labels_from_verdicts
from fortythieves_agents.evaluation.leaderboard import (
    ReportError,  # re-exported: the tests and callers catch it here
    Row,
    leaderboard_table,
    read_report,
)
from fortythieves_agents.evaluation.solve import read_records, solver_verdicts
from fortythieves_agents.seeds import seeds_for_test

from fortythieves_env import VARIANTS

ROOT = Path(__file__).resolve().parents[1]
TRAINING_DIR = ROOT / "results" / "training"
SEARCH_DIR = ROOT / "results" / "search"
EXPERT_DIR = ROOT / "results" / "expert"
LEADERBOARD_DIR = ROOT / "results" / "leaderboard"
SOLVER_DIR = ROOT / "results" / "solver"

MARKERS = {
    "leaderboard": ("<!-- leaderboard:start -->", "<!-- leaderboard:end -->"),
    "solver-labels": ("<!-- solver-labels:start -->", "<!-- solver-labels:end -->"),
    "summary-table": ("<!-- summary-table:start -->", "<!-- summary-table:end -->"),
}


def rows_of(
    paths: Iterable[Path],
    solver_dir: Path = SOLVER_DIR,
    root: Path = ROOT,
    refused: list[ReportError] | None = None,
) -> list[Row]:
    """:func:`fortythieves_agents.evaluation.leaderboard.rows_of` with this checkout's solver
    records and report paths relative to its root. The checkout's saved reports
    (:func:`default_reports`) without per-deal rows show their own ``solver_ceiling``; any
    other report is scored from its rows only.

    Raises:
        ReportError: a report is refused (only when ``refused`` is None; else it is
            appended there and the others still rank).
    """
    return board.rows_of(paths, solver_dir, root, refused, saved=default_reports(root))


def default_reports(root: Path = ROOT) -> list[Path]:
    """The saved reports the leaderboard reads by default (see the module docstring)."""
    paths = [
        root / "results" / "training" / v / "final_evaluation.json"
        for v in VARIANTS
        if (root / "results" / "training" / v / "final_evaluation.json").is_file()
    ]
    for folder in ("search", "search/ppo", "leaderboard"):
        paths += sorted((root / "results" / folder).glob("*.json"))
    return paths


def _labels(variant: str, deals: int, solver_dir: Path) -> dict[str, Any] | None:
    path = solver_dir / f"{variant}.jsonl"
    if not path.is_file():
        return None
    seeds = seeds_for_test(deals)
    verdicts = solver_verdicts(path, variant, seeds)
    if verdicts is None:
        return None
    wanted = set(seeds)
    used = Counter(
        (r.get("rules_version", 1), r["solver_version"], r["nodes_budget"])
        for r in read_records(path)[0]
        if r["variant"] == variant and r["seed"] in wanted
    )
    return {"counts": Counter(verdicts.values()), "used": used}


def protocol_labels(solver_dir: Path = SOLVER_DIR) -> dict[str, Any]:
    """The shipped protocol labels (:data:`fortythieves_agents.evaluation.labels.LABELS_FILE`) as
    this checkout's solver records give them.

    Raises:
        ValueError: a variant's records do not cover the protocol's deals.
    """
    verdicts, solvers = {}, {}
    for variant in VARIANTS:
        labels = _labels(variant, PROTOCOL_DEALS, solver_dir)
        if labels is None:
            raise ValueError(f"{solver_dir}/{variant}.jsonl does not cover the protocol's deals")
        seeds = seeds_for_test(PROTOCOL_DEALS)
        verdicts[variant] = solver_verdicts(solver_dir / f"{variant}.jsonl", variant, seeds)
        solvers[variant] = sorted([*key, n] for key, n in labels["used"].items())
    return labels_from_verdicts(verdicts, solvers)


def labels_table(solver_dir: Path = SOLVER_DIR, deal_counts: Sequence[int] = (200, 1000)) -> str:
    """The solver's label of the first N test deals of every variant (N in
    ``deal_counts``): a deal is ``won`` if any saved record won it, else ``lost`` if any
    proved it lost, else ``unknown`` (:func:`fortythieves_agents.evaluation.solve.solver_verdicts`);
    and the solver versions, rules versions and node budgets of the records read (deals per version
    and budget; a record written before the rules version was recorded counts as rules v1)."""
    lines = [
        "| variant | test deals | won | lost | unknown | rules | solver records read "
        "(version, node budget: deals) |",
        "|---|---|---|---|---|---|---|",
    ]
    for variant in VARIANTS:
        for deals in deal_counts:
            labels = _labels(variant, deals, solver_dir)
            if labels is None:
                continue
            counts, used = labels["counts"], labels["used"]
            rules = ", ".join(f"v{r}" for r in sorted({rules for rules, _, _ in used}))
            read = "; ".join(
                f"v{version}, {budget:,}: {n}" for (_, version, budget), n in sorted(used.items())
            )
            lines.append(
                f"| {variant} | {deals} | {counts['won']} | {counts['lost']} "
                f"| {counts['unknown']} | {rules} | {read} |"
            )
    return "\n".join(lines)


def _short(summary: dict[str, Any] | None) -> str:
    if summary is None:
        return "-"
    return f"{100 * summary['win_rate']:.1f}% ({summary['mean_foundation_cards']:.1f})"


def is_default_search(settings: dict[str, Any]) -> bool:
    """The search agent's settings are its shipped default: the solving setting at
    :data:`fortythieves_agents.cli.main.DEFAULT_SECONDS` per move, the default node cap."""
    return (
        settings.get("method") == "solve"
        and settings.get("budget_seconds_per_move") == DEFAULT_SECONDS
        and settings.get("nodes_per_sample") == DEFAULT_NODES
        and settings.get("allocation") == "halving"
    )


def _search_report(variant: str, search_dir: Path) -> dict[str, Any] | None:
    """The search agent's report for the README: at its default budget if there is one
    (:func:`is_default_search`), else at 16 samples of rollouts (the default before issue
    25); the one with the most deals; or None."""
    best: tuple[tuple[int, int], dict[str, Any]] | None = None
    for path in search_dir.glob(f"{variant}-*.json"):
        report = read_report(path)
        search = report["results"].get("search")
        if search is None:
            continue
        settings = search.get("settings", {})
        rollouts16 = settings.get("method", "rollouts") == "rollouts" and (
            settings.get("samples", 16),
            settings.get("allocation", "uniform"),
        ) == (16, "uniform")
        if not (is_default_search(settings) or rollouts16):
            continue
        rank = (int(is_default_search(settings)), report["episodes"])
        if best is None or rank > best[0]:
            best = (rank, report)
    return None if best is None else best[1]


def _expert_results(path: Path, variant: str) -> dict[str, Any]:
    """The shipped expert network's results (``{}`` when none is shipped).

    Raises:
        ReportError: not an evaluation report of ``variant``'s network on 500 deals.
    """
    if not path.is_file():
        return {}
    return read_report(path, variant=variant, episodes=500, agent="ppo")["results"]


def summary_table(
    training_dir: Path = TRAINING_DIR,
    search_dir: Path = SEARCH_DIR,
    solver_dir: Path = SOLVER_DIR,
    expert_dir: Path = EXPERT_DIR,
) -> str:
    """The README's one results table: per variant, the wins (and mean foundation cards)
    of random, greedy and the shipped PPO run (its final evaluation), of the shipped
    expert-iteration network (its latest shipped stage's ``network-500.json``:
    ``expert_table.expert_stage``; ``-`` where none is shipped), of the search agent (its
    default budget), and the solver's ceiling on the protocol's deals (the share proved
    winnable .. that plus the undecided share). A caption line says the deals of each."""
    lines = [
        "| variant | random | greedy | PPO | expert iteration | search | solver ceiling |",
        "|---|---|---|---|---|---|---|",
    ]
    deals: dict[str, Counter[int]] = {k: Counter() for k in ("ppo", "search")}
    for variant in VARIANTS:
        path = training_dir / variant / "final_evaluation.json"
        final = read_report(path)["results"] if path.is_file() else {}
        if path.is_file():
            deals["ppo"][read_report(path)["episodes"]] += 1
        search = _search_report(variant, search_dir)
        if search is not None:
            deals["search"][search["episodes"]] += 1
        stage = expert_stage(variant, expert_dir.parent)
        expert = {} if stage is None else _expert_results(stage[0] / "network-500.json", variant)
        labels = _labels(variant, PROTOCOL_DEALS, solver_dir)
        ceiling = "-"
        if labels is not None:
            counts = labels["counts"]
            won = 100 * counts["won"] / PROTOCOL_DEALS
            most = 100 * (counts["won"] + counts["unknown"]) / PROTOCOL_DEALS
            ceiling = f"{won:.1f}%..{most:.1f}%"
        search_cell = "-" if search is None else _short(search["results"].get("search"))
        marks = []
        if search is not None and search["episodes"] != PROTOCOL_DEALS:
            marks.append(f"{search['episodes']} deals")
        if search is not None and not is_default_search(
            search["results"]["search"].get("settings", {})
        ):
            marks.append("16 samples of rollouts")
        if marks:
            search_cell += f" [{', '.join(marks)}]"
        lines.append(
            f"| {variant} | {_short(final.get('random'))} | {_short(final.get('greedy'))} "
            f"| {_short(final.get('ppo'))} | {_short(expert.get('ppo'))} | {search_cell} "
            f"| {ceiling} |"
        )

    def usual(counter: Counter[int]) -> str:
        return f"{counter.most_common(1)[0][0]:,}" if counter else "no"

    caption = (
        f"Wins on the test deals, mean foundation cards (of 104) in parentheses. Random, greedy "
        f"and PPO: the shipped runs' final evaluations ({usual(deals['ppo'])} deals); expert "
        "iteration: the network alone that the search taught, then PPO where that helped (500 "
        "deals; `-`: none shipped, "
        "see docs/training.md); search: "
        f"the search agent at its default budget, solving sampled deals at {DEFAULT_SECONDS:g} s "
        f"per move ({usual(deals['search'])} deals, else as marked); solver ceiling: the "
        f"share of the first {PROTOCOL_DEALS} deals the clairvoyant solver proved winnable .. "
        "that plus the share it left undecided."
    )
    return "\n".join([*lines, "", caption])


def render(name: str, reports: Sequence[Path]) -> str:
    """The text between ``name``'s markers (a key of :data:`MARKERS`)."""
    if name == "leaderboard":
        return leaderboard_table(rows_of(reports))
    if name == "solver-labels":
        return labels_table()
    return summary_table()


def write(paths: Sequence[Path], reports: Sequence[Path]) -> None:
    """Replace the text between every pair of :data:`MARKERS` each file has.

    Raises:
        ValueError: a file has none of the markers.
    """
    for path in paths:
        text = path.read_text(encoding="utf-8")
        names = [name for name, (start, _) in MARKERS.items() if start in text]
        if not names:
            raise ValueError(f"{path}: none of the markers {[s for s, _ in MARKERS.values()]}")
        for name in names:
            start, end = MARKERS[name]
            text = replace_between(text, render(name, reports), start, end)
        path.write_text(text, encoding="utf-8")
        print(f"written: {path} ({', '.join(names)})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reports", nargs="+", default=[], help="more evaluation reports")
    parser.add_argument("--write", nargs="+", default=[], help="files to write the tables into")
    parser.add_argument("--summary", action="store_true", help="print the README's table")
    parser.add_argument("--labels", action="store_true", help="print the solver labels table")
    parser.add_argument(
        "--protocol-labels",
        action="store_true",
        help=f"write the labels the package ships ({LABELS_FILE.name}) from results/solver",
    )
    args = parser.parse_args(argv)
    reports = [*default_reports(), *map(Path, args.reports)]
    try:
        if args.protocol_labels:
            text = json.dumps(protocol_labels(), indent=1) + "\n"
            LABELS_FILE.write_text(text, encoding="utf-8")
            print(f"written: {LABELS_FILE}")
        elif args.write:
            write([Path(p) for p in args.write], reports)
        elif args.summary:
            print(summary_table())
        elif args.labels:
            print(labels_table())
        else:
            refused: list[ReportError] = []
            print(leaderboard_table(rows_of(reports, refused=refused)))
            for exc in refused:
                print(f"leaderboard: refused: {exc}", file=sys.stderr)
            return 2 if refused else 0
    except ValueError as exc:  # ReportError, SolverResultsError, missing markers
        print(f"leaderboard: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
