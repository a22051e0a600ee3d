"""MaskablePPO training steps/s of the two networks (issue 9.1), side by side.

For each variant and network (``card_slots``, ``player``) with everything else as shipped
(batched env, the no-cycling rule in training, no teacher: the cloning is a one-off cost,
timed in each run's ``run.json``), one fresh process trains ``--steps`` steps
(``learn`` of ``benchmarks/train_throughput.py``, unprofiled); rounds rotate the order, and
the figure is the median over ``--rounds``.

Usage::

    python -m benchmarks.network_speed --json results/benchmarks/network_speed.json
    python -m benchmarks.network_speed --table results/benchmarks/network_speed.json
"""

from __future__ import annotations

import argparse
import os
import statistics
from pathlib import Path
from typing import Any

from fortythieves_agents.reports.speed import network_speed_table

from benchmarks.bench_report import add_report_options, print_table, save_report
from benchmarks.train_speedup import measure

ROOT = Path(__file__).resolve().parent.parent
NETWORKS = ("card_slots", "player")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", nargs="+", default=["Streets", "NumberTen"])
    parser.add_argument("--steps", type=int, default=8192)
    parser.add_argument("--rounds", type=int, default=3)
    add_report_options(parser)
    args = parser.parse_args(argv)
    if args.table:
        print_table(args.table, network_speed_table)
        return
    import gymnasium as gym

    import fortythieves_env

    load_before = os.getloadavg()[0]
    runs = [(v, n) for v in args.variants for n in NETWORKS]
    rates: dict[tuple[str, str], list[float]] = {r: [] for r in runs}
    for k in range(args.rounds):
        for variant, network in runs[k % len(runs) :] + runs[: k % len(runs)]:
            overrides = (f"policy.network={network}", "train.teacher=null")
            rate = measure(ROOT, f"{variant.lower()}.yaml", args.steps, overrides)
            rates[(variant, network)].append(rate)
            print(f"round {k + 1}: {variant} {network} {rate:,.0f} steps/s", flush=True)
    rows = []
    for variant in args.variants:
        n = gym.make(fortythieves_env.env_id(variant)).action_space.n
        row: dict[str, Any] = {"variant": variant, "actions": int(n)}
        for network in NETWORKS:
            row[network] = statistics.median(rates[(variant, network)])
            row[f"{network}_rates"] = rates[(variant, network)]
        rows.append(row)
    report = {
        "steps": args.steps,
        "rounds": args.rounds,
        "rows": rows,
        "load_average_before": load_before,
    }
    print(network_speed_table(report))
    if args.json_path:
        save_report(args.json_path, "network_speed.py", argv, report)


if __name__ == "__main__":
    main()
