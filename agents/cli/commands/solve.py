"""``fortythieves solve``: the clairvoyant solver on the test deals
(:func:`fortythieves_agents.evaluation.solve.run_deals`)."""

from __future__ import annotations

import argparse
import contextlib
import functools
import math
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...config import ConfigError
from ...paths import check_writable_file
from ...process import stop_signals_interrupt
from ..options import (
    EPISODES_MAX,
    EXIT_INTERRUPTED,
    WORKERS_MAX,
    _add_ray_arguments,
    _add_variant_spec,
    _checked,
    _console,
    _int_in,
    _variant,
    _write_report,
)

NODES_MAX = 10**15
"""Largest node budget of ``solve``."""


def _seconds(text: str) -> float:
    """An argparse ``type=``: a finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0, got {text!r}")
    return value


def _add_solve_parser(sub: Any) -> None:
    """``fortythieves solve``."""
    so = sub.add_parser(
        "solve",
        help="winnability: the clairvoyant solver on the test deals (won / proved lost / unknown)",
    )
    so.add_argument("variant", metavar="VARIANT", type=_variant, help="variant id")
    _add_variant_spec(so)
    so.add_argument(
        "--deals",
        type=_int_in(1, EPISODES_MAX),
        required=True,
        help="test deals to solve (the first N, as evaluate plays them)",
    )
    so.add_argument(
        "--nodes",
        type=_int_in(1, NODES_MAX),
        required=True,
        help="node budget per deal (the deterministic figure of record)",
    )
    so.add_argument(
        "--budget",
        metavar="SECONDS",
        type=_seconds,
        help="wall-clock cap per deal (default none; a deal cut by it is unknown and is "
        "solved again by a re-run with a larger cap)",
    )
    so.add_argument(
        "--workers",
        type=_int_in(1, WORKERS_MAX),
        default=None,
        help="processes (default: all cores)",
    )
    so.add_argument(
        "--results",
        metavar="JSONL",
        type=_checked(check_writable_file),
        help="per-deal results file, appended to (default runs/solver/VARIANT.jsonl; the "
        "shipped results/solver/VARIANT.jsonl is written only when named here)",
    )
    so.add_argument(
        "--json",
        dest="json_path",
        metavar="PATH",
        type=_checked(check_writable_file),
        help="also write the report here",
    )
    so.add_argument(
        "--no-progress",
        dest="progress",
        action="store_false",
        help="no progress bar (it is shown on stderr only when stderr is a terminal)",
    )
    _add_ray_arguments(
        so, "solve the deals as Ray tasks (--workers at once, default: the cluster's CPUs)"
    )


def _warm_up_solver(variant: str) -> None:
    """Compile (or load) the solver's kernels before the deals
    (:func:`fortythieves_agents.evaluation.solve.warm_up`), saying so on stderr only when
    numba actually compiles, and then how long it took: that time is not in the per-deal
    times."""
    from ...evaluation.solve import warm_up
    from ...process import compile_notice

    def say() -> None:
        print(
            "fortythieves solve: compiling the solver's kernels (the first run after an "
            "install or an update; up to a minute or two, cached for later runs)",
            file=sys.stderr,
            flush=True,
        )

    with compile_notice(say) as watch:
        warm_up(variant)
    if watch.compiled:
        print(
            f"fortythieves solve: compiled in {watch.seconds:.0f} s "
            "(not counted in the per-deal times)",
            file=sys.stderr,
            flush=True,
        )


def _solve(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from ...evaluation.solve import (
        SolverResultsError,
        default_results_path,
        default_workers,
        foreign_rules_note,
        make_report,
        read_records,
        render_table,
        run_deals,
        shipped_results_path,
    )

    try:
        import fortythieves_env.solver  # noqa: F401  (needs numba)
    except ImportError as exc:
        raise ConfigError(f"the solver needs numba ({exc}); pip install numba") from None
    path = Path(args.results) if args.results else default_results_path(args.variant)
    check_writable_file(path, "argument --results:")
    try:
        records = read_records(path)[0]  # a damaged file is refused before any work
    except SolverResultsError as exc:
        raise ConfigError(f"argument --results: {exc}") from None
    from ...seeds import seeds_for_test

    note = foreign_rules_note(path, records, args.variant, seeds_for_test(args.deals), args.nodes)
    if note:  # records of other rules do not count as done
        print(f"fortythieves solve: {note}", file=sys.stderr)
    if args.address is not None and not args.ray:
        raise ConfigError("argument --address: only with --ray")
    workers = args.workers if args.workers is not None else default_workers()
    progress = args.progress and sys.stderr.isatty()
    saved = 0

    def count(n: int) -> None:
        nonlocal saved
        saved = n

    try:
        with stop_signals_interrupt(), contextlib.ExitStack() as stack:
            map_unordered = None
            if args.ray:
                from ...evaluation.distributed import (
                    cluster_cpus,
                    ray_map_unordered,
                    ray_session,
                )

                stack.enter_context(ray_session(args.address, quiet=True))
                workers = args.workers if args.workers is not None else cluster_cpus()
                map_unordered = functools.partial(ray_map_unordered, in_flight=workers)
            run = run_deals(
                args.variant,
                args.deals,
                args.nodes,
                args.budget,
                workers=workers,
                results_path=path,
                progress=progress,
                on_saved=count,
                map_unordered=map_unordered,
                before_first=functools.partial(_warm_up_solver, args.variant),
            )
    except KeyboardInterrupt:
        print(
            f"fortythieves solve: interrupted; {saved} deal(s) solved in this run are saved in "
            f"{path}; continue with: " + shlex.join(["fortythieves", *argv]),
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    except OSError as exc:
        raise ConfigError(f"argument --results: {path}: cannot write ({exc})") from None
    report = make_report(run, args.variant, args.nodes, args.budget, path, workers)
    console = _console()
    console.print(render_table(report))
    console.print(
        f"per-deal results: {path} ({run.solved} solved now, "
        f"{report['deals'] - run.solved} already there)"
    )
    if path.resolve() != shipped_results_path(args.variant).resolve():
        console.print(
            f"evaluate reads {shipped_results_path(args.variant)} for its solver column; "
            f"give it these with --solver-results {path}"
        )
    if args.json_path:
        _write_report(Path(args.json_path), report)
        console.print(f"report written to {args.json_path}")
    return 0
