"""Steps per second of random masked play, for every variant, through the public Gymnasium API.

Each step is what a training loop pays: ``env.step`` (through ``gymnasium.make``'s wrappers)
returning the observation and ``info["action_mask"]``, plus a uniform pick among the legal
actions; episodes are reset when they end (resets are counted in the time, not as steps).

With ``--compare-openspiel`` it also drives OpenSpiel's C++ Klondike
(``pyspiel.load_game("solitaire")``) the same way: at each decision step
``legal_actions_mask()`` becomes a numpy array, the observation tensor is written into a
numpy array, and a uniform legal action is applied; chance nodes (cards turned up) are
played but not counted as steps. The observation goes through OpenSpiel's own fast path
(``open_spiel.python.observation.make_observation(game).set_from(state, 0)``, about 2 us)
rather than ``np.asarray(state.observation_tensor())`` (about 140 us here), so the
reference is OpenSpiel at its best. It
prints each variant's ratio to OpenSpiel's rate. Needs the optional extra:
``pip install -e ".[openspiel]"``.

Usage::

    python -m benchmarks.env_throughput                 # all variants, 20,000 steps each
    python -m benchmarks.env_throughput --steps 100000 --variants FortyThieves Streets
    python -m benchmarks.env_throughput --compare-openspiel
    python -m benchmarks.env_throughput --compare-openspiel --backend python
    taskset -c 0 python -m benchmarks.env_throughput --compare-openspiel --steps 100000 \
        --repeats 5 --json results/benchmarks/env_throughput.json
    python -m benchmarks.env_throughput --table results/benchmarks/env_throughput.json

``--backend`` picks the environment's backend (``auto``, the default, is numba when it is
installed); the compiled code is warmed up (one short episode) before timing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import gymnasium as gym
import numpy as np
from fortythieves_agents.reports.speed import env_throughput_table

import fortythieves_env
from benchmarks.bench_report import add_report_options, print_table, save_report


def measure(variant: str, steps: int, seed: int, backend: str = "auto") -> tuple[float, int]:
    """Return (steps per second, episodes finished) for ``steps`` random masked steps."""
    env = gym.make(fortythieves_env.env_id(variant), backend=backend)
    _, info = env.reset(seed=seed + 1)  # warm-up: loads (or compiles) the numba kernels
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    uniforms = np.random.default_rng(seed).random(steps).tolist()
    _, info = env.reset(seed=seed)
    episodes = 0
    start = time.perf_counter()
    for u in uniforms:
        legal = np.flatnonzero(info["action_mask"].view(np.bool_))  # 0/1 int8: same indices
        _, _, terminated, truncated, info = env.step(int(legal[int(u * len(legal))]))
        if terminated or truncated:
            episodes += 1
            _, info = env.reset()
    elapsed = time.perf_counter() - start
    return steps / elapsed, episodes


def measure_openspiel(steps: int, seed: int) -> float:
    """Decision steps per second of OpenSpiel's Klondike driven like :func:`measure`."""
    import pyspiel  # optional extra
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game("solitaire")
    observation = make_observation(game)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    done = 0
    start = time.perf_counter()
    while done < steps:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
        else:
            mask = np.fromiter(state.legal_actions_mask(), dtype=np.int8)
            observation.set_from(state, 0)
            legal = np.flatnonzero(mask.view(np.bool_))
            state.apply_action(int(legal[int(rng.random() * len(legal))]))
            done += 1
    return steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--variants",
        nargs="+",
        default=list(fortythieves_env.VARIANTS),
        choices=list(fortythieves_env.VARIANTS),
        metavar="VARIANT",
    )
    parser.add_argument("--steps", type=int, default=20_000, help="steps per variant")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--backend",
        choices=["auto", "numba", "python"],
        default="auto",
        help="the environment's backend (default: auto, numba when installed)",
    )
    parser.add_argument(
        "--compare-openspiel",
        action="store_true",
        help="also measure OpenSpiel's Klondike and print the ratios",
    )
    parser.add_argument(
        "--repeats", type=int, default=1, help="rounds (each figure is the median; default 1)"
    )
    add_report_options(parser)
    args = parser.parse_args(argv)
    if args.table:
        print_table(args.table, env_throughput_table)
        return
    load_before = os.getloadavg()[0]
    backend = fortythieves_env.FortyThievesEnv(backend=args.backend).backend
    references: list[float] = []
    rates: dict[str, list[float]] = {v: [] for v in args.variants}
    episodes: dict[str, int] = {}
    for _ in range(args.repeats):  # rounds: OpenSpiel and every variant, side by side
        if args.compare_openspiel:
            references.append(measure_openspiel(args.steps, args.seed))
        for variant in args.variants:
            rate, episodes[variant] = measure(variant, args.steps, args.seed, args.backend)
            rates[variant].append(rate)
    reference = statistics.median(references) if references else None
    if reference:
        print(f"OpenSpiel solitaire (Klondike): {reference:,.0f} decision steps/s\n")
    print(f"backend: {backend}; median of {args.repeats} round(s) of {args.steps:,} steps")
    header = f"{'variant':<14}{'steps/s':>10}{'us/step':>10}{'episodes':>10}"
    print(header + (f"{'x OpenSpiel':>13}" if reference else ""))
    rows = []
    for variant in args.variants:
        rate = statistics.median(rates[variant])
        rows.append({"variant": variant, "steps_per_second": rate, "runs": rates[variant]})
        line = f"{variant:<14}{rate:>10,.0f}{1e6 / rate:>10.1f}{episodes[variant]:>10}"
        print(line + (f"{rate / reference:>13.2f}" if reference else ""))
    if args.json_path:
        figures = {
            "backend": backend,
            "steps": args.steps,
            "repeats": args.repeats,
            "cores": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
            "load_average_before": load_before,
            "openspiel": reference,
            "openspiel_runs": references,
            "rows": rows,
        }
        save_report(args.json_path, "env_throughput.py", argv, figures)


if __name__ == "__main__":
    main()
