"""Steps per second of the batched vector env against the batch size N, beside the single env.

A vector step is what a rollout pays: ``envs.step(actions)`` (observations, rewards,
flags and ``info`` with the masks, returned as copies, the default) plus a vectorised
uniform pick among each game's legal actions (``envs.sample_legal``, one compiled call).
Games that end are reset by the env (next-step autoreset) inside the timed loop; the
steps counted are game steps: N per ``step`` call. ``N=256 views`` is the same with
``copy=False`` (read-only views instead of copies). ``single`` is the old path, measured in
the same run: one ``gymnasium.make`` env stepped from Python with the same uniform pick
(``benchmarks/env_throughput.py``'s loop). Each figure is the median of 5 runs.

``bytes/game`` is what one more game costs: the bytes allocated (``tracemalloc``) by making
a ``FortyThievesVectorEnv`` of 256 games, resetting it and playing 10 steps, divided by 256
(the variant's tables and the compiled kernels are shared and not counted); ``arrays`` is
the part in the batch arrays (state, observation, mask, rewards, flags, counters), the rest
is mostly each game's random generator.

The process pins itself to one core (``--cpu 0``, as ``taskset -c 0`` would) so the figures
are per core. Usage::

    python -m benchmarks.vector_throughput
    python -m benchmarks.vector_throughput --steps 20000 --variants FortyThieves NumberTen
    python -m benchmarks.vector_throughput --json results/benchmarks/vector_throughput.json
    python -m benchmarks.vector_throughput --table results/benchmarks/vector_throughput.json
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
from fortythieves_agents.reports.speed import vector_throughput_table

import fortythieves_env
from benchmarks.bench_report import add_report_options, print_table, save_report
from benchmarks.env_throughput import measure as measure_single
from fortythieves_env.envs.vector import FortyThievesVectorEnv

SIZES = (1, 64, 256)
GOALS = {False: 1_000_000, True: 300_000}
"""Steps/s wanted at N = 256, by ``sequence_moves``."""


def single_rate(variant: str, steps: int, seed: int) -> float:
    """Steps per second of the single env (``env_throughput.measure``)."""
    return measure_single(variant, steps, seed)[0]


def measure_vector(variant: str, n: int, steps: int, seed: int, copy: bool = True) -> float:
    """Game steps per second of ``steps // n`` batched steps with a uniform legal pick."""
    envs = FortyThievesVectorEnv(variant, n, copy=copy)
    envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(5):  # warm-up (the first call loads or compiles the kernels)
        envs.step(envs.sample_legal(rng))
    calls = max(steps // n, 1)
    start = time.perf_counter()
    for _ in range(calls):
        envs.step(envs.sample_legal(rng))
    return calls * n / (time.perf_counter() - start)


def bytes_per_game(variant: str, n: int = 256) -> tuple[float, float]:
    """(bytes allocated per game, bytes of the batch arrays per game), see the module doc."""
    FortyThievesVectorEnv(variant, 2).reset(seed=0)  # shared tables and kernels first
    tracemalloc.start()
    envs = FortyThievesVectorEnv(variant, n)
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(10):
        envs.step(envs.sample_legal(rng))
    allocated, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    arrays = sum(
        a.nbytes
        for a in (envs.states, envs._obs, envs._masks, envs._rewards, envs._flags, envs._counts)
    )
    return allocated / n, arrays / n


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--variants",
        nargs="+",
        default=list(fortythieves_env.VARIANTS),
        choices=list(fortythieves_env.VARIANTS),
        metavar="VARIANT",
    )
    parser.add_argument(
        "--steps", type=int, default=50_000, help="game steps per run (default 50,000)"
    )
    parser.add_argument("--repeats", type=int, default=5, help="runs per figure (the median)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--cpu", type=int, default=0, help="core to pin to (-1: do not pin); default 0"
    )
    add_report_options(parser)
    args = parser.parse_args(argv)
    if args.table:
        print_table(args.table, vector_throughput_table)
        return
    load_before = os.getloadavg()[0]
    rows = []
    if args.cpu >= 0 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"

    def median(run: Callable[..., float], *a: Any, **kw: Any) -> float:
        return statistics.median(run(*a, **kw) for _ in range(args.repeats))

    print(
        f"steps/s, median of {args.repeats} runs of {args.steps:,} game steps; cores {cores}; "
        "vector: step + sample_legal, copies unless 'views'"
    )
    columns = ["single", *(f"N={n}" for n in SIZES), f"N={SIZES[-1]} views"]
    print(
        f"{'variant':<14}"
        + "".join(f"{c:>13}" for c in columns)
        + f"{'goal at N=256':>18}{'bytes/game':>22}"
    )
    for variant in args.variants:
        spec = fortythieves_env.VARIANTS[variant]
        row = [median(single_rate, variant, args.steps, args.seed)]
        row += [median(measure_vector, variant, n, args.steps, args.seed) for n in SIZES]
        row.append(median(measure_vector, variant, SIZES[-1], args.steps, args.seed, copy=False))
        goal = GOALS[spec.sequence_moves]
        mark = "met" if row[-2] >= goal else "not met"
        allocated, arrays = bytes_per_game(variant)
        rows.append(
            {
                "variant": variant,
                "single": row[0],
                "vector": {str(n): r for n, r in zip(SIZES, row[1:-1], strict=True)},
                "views": row[-1],
                "goal_at_256": goal,
                "goal_met": row[-2] >= goal,
                "bytes_per_game": allocated,
                "array_bytes_per_game": arrays,
            }
        )
        print(
            f"{variant:<14}"
            + "".join(f"{r:>13,.0f}" for r in row)
            + f"{f'{goal:,} {mark}':>18}"
            + f"{f'{allocated:,.0f} ({arrays:,.0f} arrays)':>22}"
        )
    if args.json_path:
        figures = {
            "steps": args.steps,
            "repeats": args.repeats,
            "cores": cores,
            "load_average_before": load_before,
            "rows": rows,
        }
        save_report(args.json_path, "vector_throughput.py", argv, figures)


if __name__ == "__main__":
    main()
