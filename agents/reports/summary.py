"""The leaderboard of a checkout's saved reports, the test deals' solver labels and the
README's summary table (generated, never typed).

A report is the JSON that ``fortythieves evaluate --json`` writes (and ``train`` saves as
``final_evaluation.json``; :func:`fortythieves_agents.evaluation.evaluate.evaluate_agents`
returns the same dict). A checkout's saved reports (:func:`default_reports`): the shipped runs'
final evaluations (``results/training/<Variant>/``), the fine-tuned family networks' final
evaluations (``results/family/finetune/<Variant>/finetuned/``), the search agent's reports
(``results/search/*.json`` and ``results/search/ppo/*.json``) and the reports in
``results/leaderboard/*.json`` (yours: see ``docs/protocol.md``).

The leaderboard itself (rows, ranking, cells, the checks of a report) is
:mod:`fortythieves_agents.evaluation.leaderboard`, which ``fortythieves leaderboard REPORT``
prints; this module adds what only a checkout has: its saved reports, scored against its
solver records (``results/solver/<Variant>.jsonl``), where a saved report without per-deal
rows shows its own ``solver_ceiling`` (:func:`checkout_rows`).

``python -m fortythieves_agents.reports`` writes the blocks ``leaderboard`` and
``solver-labels`` (``docs/protocol.md``) and ``summary-table`` (``README.md``,
``docs/index.md``), and the labels the package ships (:func:`protocol_labels`,
:data:`fortythieves_agents.evaluation.labels.LABELS_FILE`); ``--print leaderboard --reports
FILE ...`` prints the leaderboard with more reports beside the saved ones.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from fortythieves_env import VARIANTS

from ..evaluation.labels import PROTOCOL_DEALS, labels_from_verdicts
from ..evaluation.leaderboard import ReportError, Row, leaderboard_table, read_report, rows_of
from ..evaluation.solve import read_records, solver_verdicts
from ..players.search import DEFAULT_NODES, DEFAULT_SECONDS
from ..seeds import seeds_for_test
from .expert import expert_stage, finetuned_evaluation

SAVED_FOLDERS = ("search", "search/ppo", "leaderboard")
"""The folders of ``results/`` whose ``*.json`` reports the leaderboard reads, after the
shipped runs' final evaluations."""


def default_reports(root: Path) -> list[Path]:
    """The saved reports of the checkout at ``root`` that the leaderboard reads (see the
    module docstring)."""
    training = root / "results" / "training"
    paths = [
        training / v / "final_evaluation.json"
        for v in VARIANTS
        if (training / v / "final_evaluation.json").is_file()
    ]
    paths += [
        finetuned_evaluation(root / "results", v)
        for v in VARIANTS
        if finetuned_evaluation(root / "results", v).is_file()
    ]
    for folder in SAVED_FOLDERS:
        paths += sorted((root / "results" / folder).glob("*.json"))
    return paths


def checkout_rows(
    root: Path, paths: Iterable[Path], refused: list[ReportError] | None = None
) -> list[Row]:
    """:func:`fortythieves_agents.evaluation.leaderboard.rows_of` of ``paths`` as the checkout
    at ``root`` ranks them: against its solver records (``results/solver``), report files
    named relative to ``root``, and its saved reports (:func:`default_reports`) without
    per-deal rows showing their own ``solver_ceiling``; any other report is scored from its
    rows only.

    Raises:
        ReportError: a report is refused (only when ``refused`` is None; else it is
            appended there and the others still rank).
    """
    solver_dir = root / "results" / "solver"
    return rows_of(paths, solver_dir, root, refused, saved=default_reports(root))


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


def protocol_labels(solver_dir: Path) -> dict[str, Any]:
    """The shipped protocol labels (:data:`fortythieves_agents.evaluation.labels.LABELS_FILE`) as
    the solver records in ``solver_dir`` (a checkout's ``results/solver``) give them.

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


def labels_table(solver_dir: Path, deal_counts: Sequence[int] = (200, 1000)) -> str:
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
    :data:`fortythieves_agents.players.search.DEFAULT_SECONDS` per move, the default node
    cap (:data:`~fortythieves_agents.players.search.DEFAULT_NODES`), sequential halving and
    the default leaf value (``cards``: reports with no ``leaf`` key)."""
    return (
        settings.get("method") == "solve"
        and settings.get("leaf", "cards") == "cards"
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


def _network_results(path: Path, variant: str) -> dict[str, Any]:
    """A shipped network's results from its 500-deal report at ``path`` (an expert network's
    ``network-500.json``, a fine-tuned run's ``final_evaluation.json``; ``{}`` when none is
    shipped).

    Raises:
        ReportError: not an evaluation report of ``variant``'s network on 500 deals.
    """
    if not path.is_file():
        return {}
    return read_report(path, variant=variant, episodes=500, agent="ppo")["results"]


def summary_table(results: Path) -> str:
    """The README's one results table, from a checkout's ``results`` folder: per variant,
    the wins (and mean foundation cards) of random, greedy and the shipped PPO run (its
    final evaluation), of the later network (the latest network stage shipped after the PPO
    run, its ``network-500.json``: :func:`.expert.expert_stage`, a stage other than the first
    expert iteration named in brackets; ``-`` where none is shipped), of
    the family network fine-tuned on the variant (:func:`finetuned_evaluation`), of
    the search agent (its default budget), and the solver's ceiling on the protocol's deals
    (the share proved winnable .. that plus the undecided share). A caption line says the
    deals of each, and each column's header its usual number of deals (issue 37: the
    columns are not all on the same deals)."""
    training_dir, search_dir, solver_dir = (results / x for x in ("training", "search", "solver"))
    lines: list[str] = []
    deals: dict[str, Counter[int]] = {k: Counter() for k in ("ppo", "search")}
    for variant in VARIANTS:
        path = training_dir / variant / "final_evaluation.json"
        final = read_report(path)["results"] if path.is_file() else {}
        if path.is_file():
            deals["ppo"][read_report(path)["episodes"]] += 1
        search = _search_report(variant, search_dir)
        if search is not None:
            deals["search"][search["episodes"]] += 1
        stage = expert_stage(variant, results)
        expert = {} if stage is None else _network_results(stage[0] / "network-500.json", variant)
        expert_cell = _short(expert.get("ppo"))
        if stage is not None and stage[0].name != variant.lower():
            expert_cell += f" [{stage[1]}]"
        tuned = _network_results(finetuned_evaluation(results, variant), variant)
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
            f"| {_short(final.get('ppo'))} | {expert_cell} "
            f"| {_short(tuned.get('ppo'))} | {search_cell} "
            f"| {ceiling} |"
        )

    def usual(counter: Counter[int]) -> str:
        return f"{counter.most_common(1)[0][0]:,}" if counter else "no"

    ppo, searched = usual(deals["ppo"]), usual(deals["search"])
    header = [
        f"| variant | random ({ppo} deals) | greedy ({ppo}) | PPO ({ppo}) "
        f"| later network (500) | family, fine-tuned (500) | search ({searched}) "
        f"| solver ceiling ({PROTOCOL_DEALS}) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    caption = (
        f"Wins on the test deals, mean foundation cards (of 104) in parentheses. Random, greedy "
        f"and PPO: the shipped runs' final evaluations ({usual(deals['ppo'])} deals); later "
        "network: the latest network stage shipped after the PPO run, alone: the network the "
        "search taught (expert iteration) or a stage named in brackets (PPO on top of it, or "
        "the PPO run trained on), each shipped only where it won more validation deals (500 "
        "deals; `-`: none shipped, see docs/training.md); family, "
        "fine-tuned: the network trained on the family's "
        "sampled rule sets, then by PPO on the variant alone (500 deals; docs/family.md); "
        "search: "
        f"the search agent at its default budget, solving sampled deals at {DEFAULT_SECONDS:g} s "
        f"per move ({usual(deals['search'])} deals, else as marked); solver ceiling: the "
        f"share of the first {PROTOCOL_DEALS} deals the clairvoyant solver proved winnable .. "
        "that plus the share it left undecided."
    )
    return "\n".join([*header, *lines, "", caption])


def leaderboard(root: Path) -> str:
    """The leaderboard of the checkout's saved reports (``docs/protocol.md``)."""
    return leaderboard_table(checkout_rows(root, default_reports(root)))
