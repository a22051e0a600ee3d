"""Speed-up of ``evaluate --ray`` and ``solve --ray`` with 2 Ray workers over 1.

For each worker count in ``--workers`` (default 1 2) a fresh local Ray of that many CPUs is
started (``ray.init(num_cpus=W)``), warmed up (every worker imports the package and loads
the compiled kernels once), then timed, median of ``--repeats``:

- ``evaluate``: the ``--agent`` (default ``search`` with ``--search-samples`` 2: enough work
  per deal for the split to matter; ``greedy`` plays 2000 deals in under a second, less than
  Ray's own overhead) on the first ``--episodes`` test deals of ``--variant``
  (:func:`fortythieves_agents.evaluation.evaluate.evaluate_agents` with ``play=ray_play_deals``, as
  ``fortythieves evaluate search --variant V --episodes N --search-samples K --ray``);
- ``solve``: the solver on the first ``--deals`` test deals at ``--nodes`` nodes each
  (:func:`fortythieves_agents.evaluation.solve.run_deals` with ``ray_map_unordered``, as
  ``fortythieves solve V
  --deals N --nodes K --ray``), into a fresh results file each time.

The same work without Ray (one process, ``--workers 1`` for solve) is timed too, as the
reference. Every Ray report is checked equal to the local one (timing fields aside). The
figures are wall-clock seconds; the speed-up is ``seconds(1 worker) / seconds(2 workers)``.
Run it on an idle machine.

Usage::

    python -m benchmarks.ray_speedup --json results/benchmarks/ray_speedup.json
    python -m benchmarks.ray_speedup --table results/benchmarks/ray_speedup.json

``python -m fortythieves_agents.reports`` writes the table of the saved report into
``docs/ray.md`` (:func:`fortythieves_agents.reports.speed.ray_speedup_table`).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fortythieves_agents.reports.speed import ray_speedup_table

from benchmarks.bench_report import add_report_options, print_table, save_report

TIMING = {"seconds", "mean_seconds", "max_seconds", "results_file", "workers"}


def _evaluate(variant: str, episodes: int, agent: str, samples: int, play: Any) -> dict[str, Any]:
    from fortythieves_agents.evaluation.evaluate import evaluate_agents
    from fortythieves_agents.players.baselines import make_baseline
    from fortythieves_agents.players.search import SearchBudget

    made = make_baseline(agent, 0, SearchBudget(samples=samples) if agent == "search" else None)
    return evaluate_agents([made], variant, episodes, play=play)


def _solve(variant: str, deals: int, nodes: int, map_unordered: Any) -> list[dict[str, Any]]:
    from fortythieves_agents.evaluation.solve import run_deals

    with tempfile.TemporaryDirectory() as folder:
        run = run_deals(
            variant,
            deals,
            nodes,
            results_path=Path(folder) / "r.jsonl",
            map_unordered=map_unordered,
        )
    return [{k: v for k, v in r.items() if k not in TIMING} for r in run.records]


def _median_seconds(job: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = job()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Seconds per job: without Ray, then on a local Ray of each worker count."""
    import ray
    from fortythieves_agents.evaluation.distributed import ray_map_unordered, ray_play_deals

    evaluate = functools.partial(
        _evaluate, args.variant, args.episodes, args.agent, args.search_samples
    )
    solve = functools.partial(_solve, args.variant, args.deals, args.nodes)
    evaluate(None)  # compile (or load) the kernels in this process
    solve(None)
    seconds: dict[str, dict[str, float]] = {"evaluate": {}, "solve": {}}
    seconds["evaluate"]["local"], reference = _median_seconds(lambda: evaluate(None), args.repeats)
    seconds["solve"]["local"], records = _median_seconds(lambda: solve(None), args.repeats)
    for workers in args.workers:
        ray.init(num_cpus=workers, include_dashboard=False, logging_level="WARNING")
        try:
            play = functools.partial(ray_play_deals, workers=workers)
            mapper = functools.partial(ray_map_unordered, in_flight=workers)
            # warm-up: every worker loads once
            _evaluate(args.variant, 2 * workers, args.agent, args.search_samples, play)
            _solve(args.variant, 2 * workers, 10, mapper)
            key = str(workers)
            seconds["evaluate"][key], report = _median_seconds(lambda: evaluate(play), args.repeats)  # noqa: B023
            seconds["solve"][key], on_ray = _median_seconds(lambda: solve(mapper), args.repeats)  # noqa: B023
        finally:
            ray.shutdown()
        if report != reference or on_ray != records:
            raise SystemExit(f"ray_speedup: {workers} worker(s) gave another report")
    return {
        "variant": args.variant,
        "episodes": args.episodes,
        "agent": args.agent,
        "search_samples": args.search_samples if args.agent == "search" else None,
        "deals": args.deals,
        "nodes": args.nodes,
        "repeats": args.repeats,
        "seconds": seconds,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="Streets")
    parser.add_argument("--episodes", type=int, default=16, help="evaluate: test deals")
    parser.add_argument("--agent", default="search", choices=["random", "greedy", "search"])
    parser.add_argument("--search-samples", type=int, default=2, help="evaluate: search budget")
    parser.add_argument("--deals", type=int, default=40, help="solve: test deals")
    parser.add_argument("--nodes", type=int, default=200_000, help="solve: nodes per deal")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=3)
    add_report_options(parser)
    args = parser.parse_args(argv)
    if args.table:
        print_table(args.table, ray_speedup_table)
        return 0
    report = measure(args)
    print(ray_speedup_table(report))
    if args.json_path:
        save_report(args.json_path, "ray_speedup.py", argv, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
