"""Training throughput against ``train.torch_threads`` and competing CPU load, in one run.

The machine this package is trained on is often shared. torch's default thread pool (one
thread per core) collapses when other processes want the same cores: its threads wait on
each other while the scheduler runs someone else. This script measures MaskablePPO's
training steps per second for every pair of

- ``train.torch_threads`` in ``--threads`` (default 0 1 2; 0 is torch's default), and
- ``busy`` competing processes in ``--busy`` (default 0 1 2), each a pure-Python loop that
  keeps one core busy for as long as the measurement runs,

each measured in a fresh process (``python -m benchmarks.train_throughput --no-profile``), in
``--repeats`` rounds whose order is rotated, and reports the median per pair and each
thread setting's worst case. The default ``train.torch_threads`` should be the setting
with the best worst case.

Usage::

    python -m benchmarks.train_under_load                      # configs/streets.yaml
    python -m benchmarks.train_under_load --json results/benchmarks/train_under_load.json
    python -m benchmarks.train_under_load --table results/benchmarks/train_under_load.json
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from fortythieves_agents.reports.speed import train_under_load_table

from benchmarks.bench_report import add_report_options, print_table, save_report

ROOT = Path(__file__).resolve().parent.parent
_RATE = re.compile(r": ([\d,]+) training steps/s")
# a competitor: one busy core until the measurement ends, its parent dies, or an hour passes
_SPIN = (
    "import os, time\nparent = os.getppid()\nend = time.time() + 3600\n"
    "while time.time() < end and os.getppid() == parent:\n    pass\n"
)


def measure(config: str, steps: int, threads: int, busy: int) -> float:
    """Training steps/s of one fresh process with ``busy`` spinning competitors."""
    spinners = [subprocess.Popen([sys.executable, "-c", _SPIN]) for _ in range(busy)]
    try:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "benchmarks.train_throughput",
                config,
                "--steps",
                str(steps),
                "--no-profile",
                "--set",
                f"train.torch_threads={threads}",
            ],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        ).stdout
    finally:
        for p in spinners:
            p.kill()
            p.wait()
    match = _RATE.search(out)
    if match is None:
        raise RuntimeError(f"no rate in the output of train_throughput.py:\n{out}")
    return float(match.group(1).replace(",", ""))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config", nargs="?", default=str(ROOT / "configs" / "streets.yaml"))
    parser.add_argument("--steps", type=int, default=4096, help="training steps per measurement")
    parser.add_argument("--threads", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--busy", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--repeats", type=int, default=3)
    add_report_options(parser)
    args = parser.parse_args(argv)
    if args.table:
        print_table(args.table, train_under_load_table)
        return

    pairs = [(t, b) for b in args.busy for t in args.threads]
    rates: dict[tuple[int, int], list[float]] = {pair: [] for pair in pairs}
    load_before = os.getloadavg()
    start = time.time()
    for r in range(args.repeats):
        order = pairs[r % len(pairs) :] + pairs[: r % len(pairs)]
        for threads, busy in order:
            rate = measure(args.config, args.steps, threads, busy)
            rates[threads, busy].append(rate)
            print(f"round {r + 1}: torch_threads={threads} busy={busy}: {rate:,.0f} steps/s")
    median = {pair: statistics.median(v) for pair, v in rates.items()}

    print(f"\n{Path(args.config).name}, {args.steps} steps, median of {args.repeats}, steps/s")
    print("| torch_threads | " + " | ".join(f"{b} busy" for b in args.busy) + " | worst |")
    print("|---" * (len(args.busy) + 2) + "|")
    worst = {}
    for t in args.threads:
        row = [median[t, b] for b in args.busy]
        worst[t] = min(row)
        print(f"| {t} | " + " | ".join(f"{x:,.0f}" for x in row) + f" | {worst[t]:,.0f} |")
    best = max(worst, key=lambda t: worst[t])
    print(f"best worst case: torch_threads={best}")
    print(f"load average before: {load_before[0]:.2f}; took {time.time() - start:.0f} s")
    if args.json_path:
        figures = {
            "config": Path(args.config).name,
            "steps": args.steps,
            "repeats": args.repeats,
            "cpus": os.cpu_count(),
            "load_average_before": load_before[0],
            "steps_per_second": [
                {"torch_threads": t, "busy": b, "median": median[t, b], "runs": rates[t, b]}
                for t, b in pairs
            ],
            "worst_case": {str(t): worst[t] for t in args.threads},
            "best_torch_threads": best,
        }
        save_report(args.json_path, "train_under_load.py", argv, figures)


if __name__ == "__main__":
    main()
