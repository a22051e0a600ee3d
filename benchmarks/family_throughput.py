"""Environment speed through the family's shared encoding, side by side with the per-variant ids.

For each named variant, in the same round and alternating which goes first:

* ``single``: random masked play through ``gymnasium.make``, the per-variant id
  (``FortyThieves/<id>-v0``, its ``TimeLimit`` included) against ``FortyThieves/Family-v0``
  with ``variant=<id>``: ``env.step`` plus a uniform pick among the legal actions of
  ``info["action_mask"]`` (113 to 1193 entries against the shared 2057), resets counted
  in the time (``benchmarks/env_throughput.py``'s loop);
* ``N=256``: the batched envs, ``FortyThievesVectorEnv`` against ``FamilyVectorEnv``,
  ``step`` (copies, the default) plus ``sample_legal``; ``views``: the same with
  ``copy=False``.

``ratio`` is the family's rate over the per-variant rate (the goal: at least 0.8, i.e. a
step through the shared encoding costs at most 25% more). The last rows play the training
distribution (a rule set drawn per episode): its first episodes build each new rule set's
tables (a few ms each), which the figure includes.

Each figure is the median of ``--repeats`` rounds; the load average before and after is
printed and saved, since the figures move with the machine's load. Usage::

    python -m benchmarks.family_throughput
    python -m benchmarks.family_throughput --steps 20000 --variants FortyThieves NumberTen
    python -m benchmarks.family_throughput --json results/benchmarks/family_throughput.json
    python -m benchmarks.family_throughput --table results/benchmarks/family_throughput.json
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

import gymnasium as gym
import numpy as np
from fortythieves_agents.reports.speed import family_throughput_table

import fortythieves_env
from benchmarks.bench_report import add_report_options, print_table, save_report
from fortythieves_env.envs.family_vector import FamilyVectorEnv
from fortythieves_env.envs.vector import FortyThievesVectorEnv

N = 256
GOAL = 0.8
"""The family's rate over the per-variant rate wanted (within 25% in time per step)."""


def single_rate(env: gym.Env, steps: int, seed: int) -> float:
    """Steps per second of ``steps`` random masked steps of a made ``env``."""
    _, info = env.reset(seed=seed + 1)  # warm-up: loads (or compiles) the kernels
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    uniforms = np.random.default_rng(seed).random(steps).tolist()
    _, info = env.reset(seed=seed)
    start = time.perf_counter()
    for u in uniforms:
        legal = np.flatnonzero(info["action_mask"].view(np.bool_))
        _, _, terminated, truncated, info = env.step(int(legal[int(u * len(legal))]))
        if terminated or truncated:
            _, info = env.reset()
    return steps / (time.perf_counter() - start)


def vector_rate(envs: Any, steps: int, seed: int) -> float:
    """Game steps per second of ``steps // N`` batched steps with a uniform legal pick."""
    envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(5):  # warm-up
        envs.step(envs.sample_legal(rng))
    calls = max(steps // envs.num_envs, 1)
    start = time.perf_counter()
    for _ in range(calls):
        envs.step(envs.sample_legal(rng))
    return calls * envs.num_envs / (time.perf_counter() - start)


def pair(variant: str, kind: str, steps: int, seed: int, family_first: bool) -> tuple[float, float]:
    """(per-variant rate, family rate) of one measurement ``kind``, in the order given."""

    def own() -> float:
        if kind == "single":
            return single_rate(gym.make(fortythieves_env.env_id(variant)), steps, seed)
        envs = FortyThievesVectorEnv(variant, N, copy=kind == "vector")
        return vector_rate(envs, steps, seed)

    def family() -> float:
        if kind == "single":
            env = gym.make(fortythieves_env.FAMILY_ENV_ID, variant=variant)
            return single_rate(env, steps, seed)
        return vector_rate(FamilyVectorEnv(variant, N, copy=kind == "vector"), steps, seed)

    if family_first:
        f = family()
        return own(), f
    o = own()
    return o, family()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--variants",
        nargs="+",
        default=list(fortythieves_env.VARIANTS),
        choices=list(fortythieves_env.VARIANTS),
        metavar="VARIANT",
    )
    parser.add_argument("--steps", type=int, default=20_000, help="steps per run (20,000)")
    parser.add_argument("--repeats", type=int, default=5, help="rounds per figure (the median)")
    parser.add_argument("--seed", type=int, default=0)
    add_report_options(parser)
    args = parser.parse_args(argv)
    if args.table:
        print_table(args.table, family_throughput_table)
        return
    load_before = os.getloadavg()[0]
    print(
        f"steps/s, median of {args.repeats} rounds of {args.steps:,} steps; load average "
        f"{load_before:.2f} on {os.cpu_count()} cores; ratio = family / own id (goal >= {GOAL})"
    )
    header = f"{'variant':<14}" + "".join(
        f"{k + ' own':>14}{'family':>11}{'ratio':>7}" for k in ("single", f"N={N}", "views")
    )
    print(header)
    rows = []
    kinds = ("single", "vector", "views")
    for variant in args.variants:
        runs: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in kinds}
        for r in range(args.repeats):
            for kind in kinds:
                own, fam = pair(variant, kind, args.steps, args.seed, family_first=r % 2 == 1)
                runs[kind][0].append(own)
                runs[kind][1].append(fam)
        row: dict[str, Any] = {"variant": variant}
        line = f"{variant:<14}"
        for kind in kinds:
            own, fam = (statistics.median(x) for x in runs[kind])
            row[kind] = {
                "own": own,
                "family": fam,
                "own_runs": runs[kind][0],
                "family_runs": runs[kind][1],
            }
            row[kind]["ratio"] = fam / own
            line += f"{own:>14,.0f}{fam:>11,.0f}{fam / own:>7.2f}"
        rows.append(row)
        print(line)
    sampled = {
        "single": statistics.median(
            single_rate(gym.make(fortythieves_env.FAMILY_ENV_ID), args.steps, args.seed + r)
            for r in range(args.repeats)
        ),
        "vector": statistics.median(
            vector_rate(FamilyVectorEnv(None, N), args.steps, args.seed + r)
            for r in range(args.repeats)
        ),
    }
    print(
        f"training rule sets (drawn per episode): single {sampled['single']:,.0f}, "
        f"N={N} {sampled['vector']:,.0f} steps/s"
    )
    ratios = [row[k]["ratio"] for row in rows for k in ("single", "vector")]
    print(
        f"ratio, single and N={N} with copies: min {min(ratios):.2f}, median "
        f"{statistics.median(ratios):.2f} (goal >= {GOAL}); load average after "
        f"{os.getloadavg()[0]:.2f}"
    )
    if args.json_path:
        figures = {
            "steps": args.steps,
            "repeats": args.repeats,
            "num_envs": N,
            "cpu_count": os.cpu_count(),
            "load_average_before": load_before,
            "goal_ratio": GOAL,
            "rows": rows,
            "sampled": sampled,
        }
        save_report(args.json_path, "family_throughput.py", argv, figures)


if __name__ == "__main__":
    main()
