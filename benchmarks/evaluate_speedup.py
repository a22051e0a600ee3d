"""``fortythieves evaluate`` of this checkout against an older one, side by side.

Each round times, wall clock, ``fortythieves evaluate MODEL --episodes N`` (the model beside
the ``random`` and ``greedy`` baselines, the command's defaults) as a user runs it: a fresh
process, imports and model loading included, with this checkout's code as shipped, with it
and ``--allow-cycles`` (games play on to the step limit as the old code's did), and with
``--old CHECKOUT``'s code (a git worktree of an earlier commit), rotating which goes first.
The figure of record is the ratio of the medians: both sides see the same machine load.
The model must load in both checkouts (a model saved by either works when the feature
extractor's parameters are the same).

Usage::

    git worktree add /tmp/old-0.1.0 3281a58
    python -m benchmarks.evaluate_speedup runs/x/models/best_model.zip --old /tmp/old-0.1.0 \\
        --json results/benchmarks/evaluate_speedup.json
    python -m benchmarks.evaluate_speedup --table results/benchmarks/evaluate_speedup.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from fortythieves_agents.paths import portable_path
from fortythieves_agents.reports.speed import evaluate_speedup_table

from benchmarks.bench_report import add_report_options, print_table, save_report, short_commit

ROOT = Path(__file__).resolve().parent.parent


def timed_evaluate(
    checkout: Path, model: Path, episodes: int, extra: tuple[str, ...] = ()
) -> tuple[float, dict[str, Any]]:
    """Wall-clock seconds of one ``evaluate`` in a fresh process with ``checkout``'s code,
    and its JSON report."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}  # ahead of the editable install
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        command = [
            sys.executable,
            "-m",
            "fortythieves_agents.cli.main",
            "evaluate",
            str(model),
            "--episodes",
            str(episodes),
            "--json",
            str(out),
            *extra,
        ]
        start = time.perf_counter()
        done = subprocess.run(command, cwd=tmp, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if done.returncode:
            raise RuntimeError(f"{' '.join(command)} in {checkout}:\n{done.stdout}\n{done.stderr}")
        return seconds, json.loads(out.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", nargs="?", type=Path, help="a MaskablePPO zip")
    parser.add_argument("--old", type=Path, help="a checkout of the commit to compare with")
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    add_report_options(parser)
    args = parser.parse_args(argv)
    if args.table:
        print_table(args.table, evaluate_speedup_table)
        return
    if args.model is None or args.old is None:
        parser.error("MODEL and --old CHECKOUT are required (or --table JSON)")
    old, model = args.old.resolve(), args.model.resolve()
    load_before = os.getloadavg()[0]
    # this checkout as shipped (the no-cycling rule on), with --allow-cycles (the old
    # checkout's way of playing: cycling games run to the step limit), and the old checkout
    sides: list[tuple[str, Path, tuple[str, ...]]] = [
        ("this", ROOT, ()),
        ("this_cycles", ROOT, ("--allow-cycles",)),
        ("old", old, ()),
    ]
    times: dict[str, list[float]] = {label: [] for label, _, _ in sides}
    reports: dict[str, dict[str, Any]] = {}
    for r in range(args.rounds):
        order = sides[r % len(sides) :] + sides[: r % len(sides)]  # rotate who goes first
        for label, checkout, extra in order:
            seconds, reports[label] = timed_evaluate(checkout, model, args.episodes, extra)
            times[label].append(seconds)
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.1f} s" for k, v in times.items()))
    old_commit = short_commit(old)
    report = {
        "model": portable_path(args.model, ROOT),
        "episodes": args.episodes,
        "rounds": args.rounds,
        "old_label": f"old ({old_commit})",
        "old_times": times["old"],
        "new_times": times["this"],
        "new_cycles_times": times["this_cycles"],
        "old_seconds": statistics.median(times["old"]),
        "new_seconds": statistics.median(times["this"]),
        "new_cycles_seconds": statistics.median(times["this_cycles"]),
        "ratio": statistics.median(times["old"]) / statistics.median(times["this"]),
        "ratio_cycles": statistics.median(times["old"]) / statistics.median(times["this_cycles"]),
        "load_average_before": load_before,
        "foundation_cards": {
            side: {name: a["mean_foundation_cards"] for name, a in reports[side]["results"].items()}
            for side in ("this", "this_cycles", "old")
        },
    }
    print(evaluate_speedup_table(report))
    if args.json_path:
        save_report(args.json_path, "evaluate_speedup.py", argv, report)


if __name__ == "__main__":
    main()
