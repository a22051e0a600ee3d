"""Winnability of a variant: the clairvoyant solver on the test deals, one saved line per deal.

``fortythieves solve VARIANT --deals N --nodes K`` runs :func:`fortythieves_env.solver.solve`
on the first ``N`` test deals of :func:`fortythieves_agents.seeds.seeds_for_test` (``2_000_000_000
+ i``, the deals ``evaluate`` plays), dealt as ``gymnasium.make(env_id(variant)).reset(seed=s)``
and read with ``env.unwrapped.get_state()``, with the default step limit (the variant's
``max_episode_steps``) and every pruning rule. The solver sees every card (clairvoyant), so
the figures say what the deals allow, not what a player can do.

**Per-deal results** are appended to a JSON Lines file, one record per deal, as each deal
finishes; its format, keys and re-runs, and how the verdicts are read from it are
:mod:`fortythieves_agents.evaluation.solver_results`.

**Report** (:func:`summarize`): won, proved lost and unknown counts and shares of the ``N``
deals, each with a 95% Wilson interval, the unknowns by what stopped them, and the share of
winnable deals, which lies between the won share and the won-plus-unknown share (its
``winnable_ci95`` is the lower Wilson bound of the first and the upper of the second).
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fortythieves_env.rules.variants import recorded_rules_version

from ..paths import portable_path
from ..seeds import TEST_START, seeds_for_test
from .evaluate import wilson_interval
from .solver_results import AGENT_WINS as AGENT_WINS
from .solver_results import RESULTS_DIR as RESULTS_DIR
from .solver_results import STATUSES as STATUSES
from .solver_results import USER_RESULTS_DIR as USER_RESULTS_DIR
from .solver_results import Key, _is_done, _key, _mend_last_line
from .solver_results import SolverResultsError as SolverResultsError
from .solver_results import default_results_path as default_results_path
from .solver_results import foreign_rules as foreign_rules
from .solver_results import foreign_rules_note as foreign_rules_note
from .solver_results import latest_records as latest_records
from .solver_results import read_records as read_records
from .solver_results import shipped_results_path as shipped_results_path
from .solver_results import solver_verdicts as solver_verdicts
from .solver_results import test_deal_verdicts as test_deal_verdicts

# ``from .x import y as y``: names that lived here before the module was split, still
# importable from here; documented where they live now, so not in __all__
__all__ = [
    "SolveRun",
    "agent_win_records",
    "markdown_table",
    "render_table",
    "run_deals",
    "solve_deal",
    "summarize",
    "warm_up",
]

_NO_RESULTS = "_No solver results saved yet._"

MapUnordered = Callable[
    [Callable[[tuple[str, int, int, float | None]], dict[str, Any]], list[Any]],
    Iterator[dict[str, Any]],
]
"""The ``map_unordered`` argument of :func:`run_deals`."""


# ---------------------------------------------------------------------- solving one deal
_ENVS: dict[str, Any] = {}


WARM_UP_NODES = 64
"""The node budget of :func:`warm_up`'s searches: fewer than the moves of any won game (96 in
Lucas, whose Aces start on the foundations), so no search of it ends early with a win."""


def warm_up(variant: str) -> None:
    """Compile every kernel a solve of ``variant`` runs, or load it from numba's cache: the
    solver on the first test deal with :data:`WARM_UP_NODES` nodes, its passes in their
    order, then its search alone (so each pass runs whatever share of the budget the
    earlier ones take). The results are thrown away.

    :func:`solve_deal` calls it once per process before its first timed deal, so a deal's
    ``seconds`` never hold a compilation (they held the search's, 40 s on a first run); the
    ``solve`` command calls it first and times it apart (the first run after an install
    compiles for up to a minute or two). A solver that adds a pass should warm it here, or
    better offer its own warm-up that this calls.

    Raises:
        ValueError: unknown variant.
    """
    from fortythieves_env.solver import solve

    env = _env(variant)
    env.reset(seed=TEST_START)
    state = env.unwrapped.get_state()
    solve(state, variant, nodes=WARM_UP_NODES)
    solve(state, variant, nodes=WARM_UP_NODES, rollouts=False)


def _env(variant: str) -> Any:
    """The environment ``solve_deal`` deals with in this process (one per variant)."""
    import gymnasium as gym

    from fortythieves_env import env_id

    env = _ENVS.get(variant)
    if env is None:
        env = _ENVS[variant] = gym.make(env_id(variant))
    return env


_WARM: set[str] = set()
"""The variants :func:`solve_deal` has warmed up in this process."""


def solve_deal(
    variant: str,
    seed: int,
    nodes: int,
    seconds: float | None,
    rules: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Solve one deal; returns its record (the keys in
    :mod:`~fortythieves_agents.evaluation.solver_results`' docstring).

    ``rules``: the solver's pruning rules (default :data:`fortythieves_env.solver.RULES`;
    ``ALL_RULES`` adds rule D, dead positions); the record's ``rules`` names them.

    The deal is ``gymnasium.make(env_id(variant)).reset(seed=seed)`` (one environment per
    variant is kept per process). The first deal of a variant in a process runs
    :func:`warm_up` first, so that compiling (or loading) the solver's kernels is neither
    timed nor counted against the seconds cap. Runs in the pool's workers.

    Raises:
        ValueError: unknown variant, ``nodes`` < 1 or ``seconds`` <= 0 (from ``solve``).
    """
    from fortythieves_env import RULES_VERSION
    from fortythieves_env.solver import RULES, SOLVER_VERSION, solve

    if variant not in _WARM:
        warm_up(variant)
        _WARM.add(variant)
    env = _env(variant)
    env.reset(seed=seed)
    result = solve(
        env.unwrapped.get_state(),
        variant,
        nodes=nodes,
        seconds=seconds,
        rules=RULES if rules is None else tuple(rules),
    )
    return {
        "variant": variant,
        "seed": seed,
        "nodes_budget": nodes,
        "seconds_cap": seconds,
        "solver_version": SOLVER_VERSION,
        "rules_version": RULES_VERSION,
        "step_limit": result.step_limit,
        "rules": "".join(result.rules),
        "status": result.status,
        "stopped_by": result.stopped_by,
        "found_by": result.found_by,
        "nodes": result.nodes,
        "seconds": round(result.seconds, 6),
        "moves": len(result.moves),
        "line": " ".join(result.moves),
        "proof": result.proof,
    }


def _solve_task(task: tuple[str, int, int, float | None]) -> dict[str, Any]:
    return solve_deal(*task)


def _worker_init() -> None:
    """Workers leave Ctrl-C to the parent (which terminates them) and die on SIGTERM."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


# ---------------------------------------------------------------------- running deals
@dataclass(frozen=True)
class SolveRun:
    """What :func:`run_deals` did: the requested deals' records (seed order) and how many
    of them this call solved (the others were in the file already)."""

    records: list[dict[str, Any]]
    solved: int


def run_deals(
    variant: str,
    deals: int,
    nodes: int,
    seconds: float | None = None,
    *,
    workers: int = 1,
    results_path: str | Path | None = None,
    progress: bool = False,
    on_saved: Callable[[int], None] | None = None,
    map_unordered: MapUnordered | None = None,
    before_first: Callable[[], object] | None = None,
) -> SolveRun:
    """Solve the first ``deals`` test deals not yet in the results file, appending each
    result as it finishes (a deal is in the file when it has a record of this budget,
    solver version and rules version: :mod:`~fortythieves_agents.evaluation.solver_results`,
    Keys and re-runs).

    Args:
        variant: a built-in variant id.
        deals: how many test deals (seeds ``2_000_000_000 + i``, ``i < deals``).
        nodes: the node budget per deal.
        seconds: the wall-clock cap per deal (None: none).
        workers: processes (1: in this process; more: a ``multiprocessing`` pool, one deal
            per task); the records do not depend on it (except ``seconds``, and a result
            cut by the cap).
        results_path: the JSONL file (default :func:`default_results_path`); its folder
            is created.
        progress: a tqdm bar on stderr over the deals (done ones counted at the start).
        on_saved: called with the number of deals saved by this call after each one.
        map_unordered: runs the deals instead of this process or its pool, called as
            ``map_unordered(solve_one, tasks)`` and yielding each task's record as it ends
            (e.g. :func:`fortythieves_agents.evaluation.distributed.ray_map_unordered` for ``solve
            --ray``; ``workers`` is then only reported). A generator is closed on an interrupt.
        before_first: called once before the first deal is solved (not when every deal is
            in the file already): the ``solve`` command warms the solver up there
            (:func:`warm_up`).

    Returns:
        A :class:`SolveRun`.

    Raises:
        SolverResultsError: the results file cannot be read or is not a results file.
        OSError: it cannot be written.
        ValueError: ``deals``, ``nodes``, ``seconds`` or ``workers`` out of range, or an
            unknown variant.
        KeyboardInterrupt: passed on (the workers are terminated first); every deal
            finished before it is saved.
    """
    import multiprocessing

    from tqdm import tqdm

    from fortythieves_env import RULES_VERSION, env_id
    from fortythieves_env.solver import SOLVER_VERSION

    env_id(variant)  # ValueError for an unknown variant, before any work
    if deals < 1 or nodes < 1 or workers < 1:
        raise ValueError(f"need deals, nodes, workers >= 1, got {deals}, {nodes}, {workers}")
    if seconds is not None and not seconds > 0:
        raise ValueError(f"seconds must be positive or None, got {seconds}")
    path = Path(results_path) if results_path is not None else default_results_path(variant)
    records, ends_cleanly = read_records(path)
    latest = latest_records(records)
    seeds = seeds_for_test(deals)
    key = (nodes, SOLVER_VERSION, RULES_VERSION)
    todo = [s for s in seeds if not _is_done(latest.get((variant, s, *key)), seconds)]
    path.parent.mkdir(parents=True, exist_ok=True)
    tasks = [(variant, s, nodes, seconds) for s in todo]
    counts: Counter[str] = Counter()
    saved = 0
    pool = None
    results: Iterator[dict[str, Any]] | None = None
    if not ends_cleanly:
        _mend_last_line(path)
    if tasks and before_first is not None:
        before_first()
    with open(path, "a", encoding="utf-8") as out:
        try:
            if map_unordered is not None:
                results = map_unordered(_solve_task, tasks)
            elif workers > 1 and len(tasks) > 1:
                pool = multiprocessing.Pool(min(workers, len(tasks)), initializer=_worker_init)
                results = pool.imap_unordered(_solve_task, tasks)
            else:
                results = map(_solve_task, tasks)
            with tqdm(
                total=deals,
                initial=deals - len(tasks),
                unit="deal",
                desc=f"{variant} solve",
                disable=not progress,
                file=sys.stderr,
                leave=False,
                dynamic_ncols=True,
            ) as bar:
                for record in results:
                    out.write(json.dumps(record) + "\n")
                    out.flush()
                    latest[_key(record)] = record
                    saved += 1
                    counts[record["status"]] += 1
                    bar.set_postfix(counts, refresh=False)
                    bar.update()
                    if on_saved is not None:
                        on_saved(saved)
        except BaseException:
            close = getattr(results, "close", None)
            if close is not None:  # a generator: stop its tasks
                close()
            if pool is not None:
                pool.terminate()
                pool.join()
            raise
        if pool is not None:
            pool.close()
            pool.join()
    return SolveRun([latest[(variant, s, *key)] for s in seeds], saved)


# ---------------------------------------------------------------------- reports
def _share(count: int, n: int) -> dict[str, Any]:
    lo, hi = wilson_interval(count, n)
    return {"count": count, "share": count / n if n else 0.0, "ci95": [lo, hi]}


def summarize(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Aggregate records of one variant and budget (see the module docstring).

    Returns:
        ``deals``; ``won``, ``lost``, ``unknown`` (each ``count``, ``share``, ``ci95``);
        ``unknown_stopped_by`` (``nodes`` / ``seconds`` counts); ``winnable_ci95`` (the
        winnable share lies in it at 95%); ``mean_nodes``, ``mean_seconds``,
        ``max_seconds``, ``mean_moves_won`` (0.0 when nothing was won).
    """
    n = len(records)
    counts = Counter(r["status"] for r in records)
    stopped = Counter(r["stopped_by"] for r in records if r["status"] == "unknown")
    won_moves = [r["moves"] for r in records if r["status"] == "won"]
    out: dict[str, Any] = {"deals": n}
    for status in STATUSES:
        out[status] = _share(counts[status], n)
    out["unknown_stopped_by"] = {"nodes": stopped["nodes"], "seconds": stopped["seconds"]}
    out["winnable_ci95"] = [
        wilson_interval(counts["won"], n)[0],
        wilson_interval(counts["won"] + counts["unknown"], n)[1],
    ]
    out["mean_nodes"] = sum(r["nodes"] for r in records) / n if n else 0.0
    out["mean_seconds"] = math.fsum(r["seconds"] for r in records) / n if n else 0.0
    out["max_seconds"] = max((r["seconds"] for r in records), default=0.0)
    out["mean_moves_won"] = sum(won_moves) / len(won_moves) if won_moves else 0.0
    return out


def make_report(
    run: SolveRun,
    variant: str,
    nodes: int,
    seconds: float | None,
    results_path: str | Path,
    workers: int,
) -> dict[str, Any]:
    """The JSON-ready report of a finished :func:`run_deals` call."""
    from fortythieves_env import RULES_VERSION, env_id
    from fortythieves_env.solver import SOLVER_VERSION

    deals = len(run.records)
    first = run.records[0] if run.records else {}
    return {
        "variant": variant,
        "env_id": env_id(variant),
        "deals": deals,
        "seeds": {"first": TEST_START, "count": deals, "rule": "2_000_000_000 + i"},
        "nodes_budget": nodes,
        "seconds_cap": seconds,
        "solver_version": SOLVER_VERSION,
        "rules_version": RULES_VERSION,
        "step_limit": first.get("step_limit"),
        "rules": first.get("rules"),
        "clairvoyant": True,
        "results_file": portable_path(results_path),
        "solved_now": run.solved,
        "workers": workers,
        **summarize(run.records),
    }


def render_table(report: dict[str, Any]) -> Any:
    """A ``rich.table.Table`` of a :func:`make_report` report: one row per answer, then the
    winnable range; mean nodes and seconds in the caption."""
    from rich.table import Table

    cap = report["seconds_cap"]
    table = Table(
        title=f"{report['variant']}: solver (sees every card), {report['deals']} test deals "
        f"(seeds {TEST_START}..{TEST_START + report['deals'] - 1}), "
        f"{report['nodes_budget']:,} nodes per deal"
        + (f", {cap:g} s cap" if cap is not None else ""),
        caption=f"mean {report['mean_nodes']:,.0f} nodes, {report['mean_seconds']:.2f} s "
        f"(max {report['max_seconds']:.2f} s) per deal; "
        + (
            f"won lines {report['mean_moves_won']:.0f} moves on average"
            if report["won"]["count"]
            else "no deal won"
        ),
    )
    table.add_column("answer")
    table.add_column("deals", justify="right")
    table.add_column("share [95% CI]", justify="right")
    stopped = report["unknown_stopped_by"]
    names = {
        "won": "won",
        "lost": "proved lost",
        "unknown": f"unknown (nodes ran out: {stopped['nodes']}, seconds: {stopped['seconds']})",
    }
    for status in STATUSES:
        s = report[status]
        lo, hi = s["ci95"]
        table.add_row(
            names[status],
            str(s["count"]),
            f"{100 * s['share']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]",
        )
    lo, hi = report["winnable_ci95"]
    table.add_row(
        "winnable, 95% bounds (won's low .. won + unknown's high)",
        "",
        f"{100 * lo:.1f}% .. {100 * hi:.1f}%",
    )
    return table


def markdown_table(paths: Iterable[str | Path]) -> str:
    """The README's winnability table from saved results files (generated, never typed).

    One row per variant, solver version and node budget found (test deals only, the last
    line of each key, records of the current rules only:
    :data:`~fortythieves_env.RULES_VERSION`; agents' won games, :data:`AGENT_WINS`, are not
    the solver's and are left out), built-in variants in their registry order, then
    versions and budgets in increasing order; ``decided`` is won plus proved lost.

    Raises:
        SolverResultsError: a file is not a results file.
    """
    from fortythieves_env import RULES_VERSION, VARIANTS

    latest: dict[Key, dict[str, Any]] = {}
    for path in sorted(Path(p) for p in paths):
        latest.update(latest_records(read_records(path)[0]))
    groups: dict[tuple[str, int, int], list[dict[str, Any]]] = {}
    for (variant, seed, budget, version, rules), record in latest.items():
        if seed >= TEST_START and rules == RULES_VERSION and version != AGENT_WINS:
            groups.setdefault((variant, version, budget), []).append(record)
    if not groups:
        return _NO_RESULTS
    order = {name: i for i, name in enumerate(VARIANTS)}
    lines = [
        "| variant | solver | deals | node budget | seconds cap | won [95% CI] "
        "| proved lost [95% CI] | unknown [95% CI] | decided | winnable | mean nodes | mean s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def pct(s: dict[str, Any]) -> str:
        lo, hi = s["ci95"]
        return f"{100 * s['share']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"

    for variant, version, budget in sorted(groups, key=lambda k: (order.get(k[0], len(order)), k)):
        records = sorted(groups[variant, version, budget], key=lambda r: r["seed"])
        s = summarize(records)
        caps = sorted({r["seconds_cap"] for r in records}, key=lambda c: (c is None, c or 0))
        lo, hi = s["winnable_ci95"]
        decided = s["won"]["share"] + s["lost"]["share"]
        lines.append(
            f"| {variant} | v{version} | {s['deals']} | {budget:,} "
            f"| {', '.join('none' if c is None else f'{c:g} s' for c in caps)} "
            f"| {pct(s['won'])} | {pct(s['lost'])} | {pct(s['unknown'])} "
            f"| {100 * decided:.1f}% | {100 * lo:.1f}%..{100 * hi:.1f}% "
            f"| {s['mean_nodes']:,.0f} | {s['mean_seconds']:.2f} |"
        )
    return "\n".join(lines)


def agent_win_records(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """Solver records of the games agents won (issue 39, point 2: a won game is a proof):
    every saved game record (:mod:`fortythieves_env.records`) is read and **replayed**
    (:func:`~fortythieves_env.records.verify`); each won game of a test deal dealt from a seed
    becomes a ``won`` record with its moves as the line, ``found_by`` ``"agent:NAME"`` and
    ``solver_version`` :data:`AGENT_WINS` (0), ``nodes_budget``, ``nodes``, ``seconds`` 0.
    Appended to a variant's results file, it counts in the labels (:func:`solver_verdicts`:
    won > lost > unknown) but not in the solver's own rows of :func:`markdown_table`. Games
    not won are skipped.

    Returns:
        The records, in the order of ``paths`` (one per won game; a deal won twice gives two).

    Raises:
        SolverResultsError: a record cannot be read, does not replay, was made under other
            rules, or is of a won game not dealt from a test seed (one line naming the file).
    """
    from fortythieves_env import RULES_VERSION
    from fortythieves_env.records.record import RecordError, load_record, verify

    out = []
    for path in paths:
        try:
            record = load_record(path)
            outcome = verify(record)
        except RecordError as exc:
            raise SolverResultsError(f"{path}: not a game that replays: {exc}") from None
        if not outcome["won"]:
            continue
        kind, seed = record.source.get("kind"), record.source.get("value")
        if kind != "seed" or not isinstance(seed, int) or seed < TEST_START:
            raise SolverResultsError(f"{path}: a won game, but not of a test deal's seed")
        out.append(
            {
                "variant": record.variant.id,
                "seed": seed,
                "nodes_budget": 0,
                "seconds_cap": None,
                "solver_version": AGENT_WINS,
                "rules_version": RULES_VERSION,
                "step_limit": record.step_limit,
                "rules": "",
                "status": "won",
                "stopped_by": "",
                "found_by": f"agent:{record.agent['name']}",
                "nodes": 0,
                "seconds": 0.0,
                "moves": len(record.moves),
                "line": " ".join(record.moves),
                "proof": None,
            }
        )
    return out


def verdict_changes(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """How the verdicts on each deal moved between solver versions (issue 24's check: a
    verdict may only go from unknown to won or lost), among the records of the current rules
    (:data:`~fortythieves_env.RULES_VERSION`; other rules may well decide a deal otherwise).

    For every ``(variant, seed)`` with records of more than one version: ``contradictions``
    lists the deals with both a ``won`` and a ``lost`` record (must stay empty: a won line
    replays, a lost proof is exhaustive; the step limit is the variant's in every shipped
    record); ``decided_then_unknown`` the deals an older version decided and the newest
    left unknown at its budget (allowed: :func:`solver_verdicts` keeps the older verdict);
    ``newly_decided`` the deals only the newest version decided.

    Returns:
        A dict of those three lists of ``[variant, seed]`` pairs and ``compared`` (int).
    """
    from fortythieves_env import RULES_VERSION

    by_deal: dict[tuple[str, int], dict[int, set[str]]] = {}
    for r in records:
        if recorded_rules_version(r.get("rules_version")) != RULES_VERSION:
            continue
        by_deal.setdefault((r["variant"], r["seed"]), {}).setdefault(
            r["solver_version"], set()
        ).add(r["status"])
    out: dict[str, Any] = {
        "compared": 0,
        "contradictions": [],
        "decided_then_unknown": [],
        "newly_decided": [],
    }
    for deal, versions in sorted(by_deal.items()):
        every = set().union(*versions.values())
        if {"won", "lost"} <= every:
            out["contradictions"].append(list(deal))
        if len(versions) < 2:
            continue
        out["compared"] += 1
        newest = versions[max(versions)] - {"unknown"}
        older = set().union(*(v for k, v in versions.items() if k != max(versions))) - {"unknown"}
        if older and not newest:
            out["decided_then_unknown"].append(list(deal))
        if newest and not older:
            out["newly_decided"].append(list(deal))
    return out


def default_workers() -> int:
    """All cores: ``os.cpu_count()`` (1 if unknown)."""
    return os.cpu_count() or 1
