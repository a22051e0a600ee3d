"""The tables of the measurement scripts' saved reports (``benchmarks/``), for the docs.

Each ``benchmarks/<script>.py`` measures and saves a JSON report (``--json``: its figures,
the command, the date, the machine's load); the functions here render a saved report as the
docs show it, and the scripts' ``--table JSON`` prints the same. Each takes the report's
dict and reads nothing else:

dict and reads nothing else. The saved reports (under ``results/``) and the blocks
(:mod:`.targets`):

* :func:`env_throughput_table`: ``benchmarks/env_throughput.json``, block
  ``env-throughput`` of ``docs/performance.md``;
* :func:`vector_throughput_table`: ``benchmarks/vector_throughput.json``,
  ``vector-throughput`` (the same page);
* :func:`pilot_table`: ``training/vec_env_pilot/summary.json`` and ``smaller.json``
  (``benchmarks/compare_runs.py``), ``pilot-table`` and ``pilot2-table`` (the same page);
* :func:`train_speedup_table`, :func:`evaluate_speedup_table` and
  :func:`train_under_load_table`: ``benchmarks/<script>.json``, ``train-speedup``,
  ``evaluate-speedup`` and ``train-under-load`` (the same page);
* :func:`network_speed_table`: ``benchmarks/network_speed.json``, ``network-speed-table``
  of ``docs/results.md``;
* :func:`family_throughput_table`: ``benchmarks/family_throughput.json``, ``family-speed`` of
  ``docs/family.md``;
* :func:`ray_speedup_table`: ``benchmarks/ray_speedup.json``, ``ray-speedup`` of
  ``docs/ray.md``.

The solver's speed is :func:`.solver.solver_speed_table`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

RAY_NOT_MEASURED = "_Not measured yet: it needs an idle machine._"
"""The ray-speedup block while ``results/benchmarks/ray_speedup.json`` is not saved."""


def env_throughput_table(report: dict[str, Any]) -> str:
    """The README's table of a saved report (``--json``), OpenSpiel first."""
    reference = report.get("openspiel")
    lines = ["| | steps/s | x OpenSpiel |", "|---|---|---|"]
    if reference:
        lines.append(f"| OpenSpiel Klondike | {reference:,.0f} | 1.00 |")
    for row in report["rows"]:
        ratio = f"{row['steps_per_second'] / reference:.2f}" if reference else ""
        lines.append(f"| {row['variant']} | {row['steps_per_second']:,.0f} | {ratio} |")
    return "\n".join(lines)


def vector_throughput_table(report: dict[str, Any]) -> str:
    """The table of a saved report (``--json``): steps/s of the single env and of the
    batch at each size measured (the sizes are the report's own), the views, bytes per game."""
    sizes = [int(n) for n in report["rows"][0]["vector"]] if report["rows"] else []
    columns = ["single env", *(f"N={n}" for n in sizes), f"N={sizes[-1]}, views", "bytes/game"]
    lines = ["| variant | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for row in report["rows"]:
        rates = [row["single"], *(row["vector"][str(n)] for n in sizes), row["views"]]
        lines.append(
            f"| {row['variant']} | "
            + " | ".join(f"{r:,.0f}" for r in rates)
            + f" | {row['bytes_per_game']:,.0f} |"
        )
    return "\n".join(lines)


def family_throughput_table(report: dict[str, Any]) -> str:
    """The docs' table of a saved report (``--json``)."""
    lines = [
        "| variant | single: own id | Family-v0 | ratio | N=256: own | family | ratio "
        "| N=256 views: own | family | ratio |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in report["rows"]:
        cells = []
        for kind in ("single", "vector", "views"):
            own, fam = row[kind]["own"], row[kind]["family"]
            cells += [f"{own:,.0f}", f"{fam:,.0f}", f"{fam / own:.2f}"]
        lines.append(f"| {row['variant']} | " + " | ".join(cells) + " |")
    sampled = report.get("sampled")
    if sampled:
        lines.append(
            f"| training rule sets | | {sampled['single']:,.0f} | | | {sampled['vector']:,.0f} "
            "| | | | |"
        )
    return "\n".join(lines)


def train_under_load_table(report: dict[str, Any]) -> str:
    """The README's table of a saved report (``--json``): median steps/s per pair, worst case."""
    busy = sorted({row["busy"] for row in report["steps_per_second"]})
    threads = sorted({row["torch_threads"] for row in report["steps_per_second"]})
    median = {(r["torch_threads"], r["busy"]): r["median"] for r in report["steps_per_second"]}
    lines = [
        "| `train.torch_threads` | " + " | ".join(f"{b} busy" for b in busy) + " | worst |",
        "|---" * (len(busy) + 2) + "|",
    ]
    for t in threads:
        row = [median[t, b] for b in busy]
        name = f"{t} (torch's default)" if t == 0 else str(t)
        lines.append(
            f"| {name} | " + " | ".join(f"{x:,.0f}" for x in row) + f" | {min(row):,.0f} |"
        )
    return "\n".join(lines)


def train_speedup_table(report: dict[str, Any]) -> str:
    """The README table of a saved report."""
    lines = [
        "| code | config defaults | steps/s (median) | this checkout is |",
        "|---|---|---|---|",
        f"| {report['old_label']} | {report['old_settings']} | {report['old_rate']:,.0f} | "
        f"{report['ratio']:.2f}x faster |",
        f"| {report['old_label']} | the same, torch threads 1 | "
        f"{report['old_one_thread_rate']:,.0f} | {report['ratio_one_thread']:.2f}x faster |",
        f"| this checkout | {report['new_settings']} | {report['new_rate']:,.0f} | |",
    ]
    shares = report["profile"]
    lines += [
        "",
        "| where the time goes (this checkout, cProfile) | share |",
        "|---|---|",
        *(f"| {name.replace('_', ' ')} | {share:.0%} |" for name, share in shares.items()),
    ]
    return "\n".join(lines)


def evaluate_speedup_table(report: dict[str, Any]) -> str:
    """The README table of a saved report."""
    return "\n".join(
        [
            "| code | seconds (median) | than the old |",
            "|---|---|---|",
            f"| {report['old_label']} | {report['old_seconds']:.1f} | |",
            f"| this checkout, `--allow-cycles` | {report['new_cycles_seconds']:.1f} | "
            f"{report['ratio_cycles']:.1f}x faster |",
            f"| this checkout | {report['new_seconds']:.1f} | {report['ratio']:.1f}x faster |",
        ]
    )


def network_speed_table(report: dict[str, Any]) -> str:
    """The README table: one row per variant, steps/s of each network and their ratio."""
    lines = [
        "| variant | actions | `card_slots` steps/s | `player` steps/s | player / card_slots |",
        "|---|---|---|---|---|",
    ]
    for row in report["rows"]:
        cs, pl = row["card_slots"], row["player"]
        lines.append(
            f"| {row['variant']} | {row['actions']:,} | {cs:,.0f} | {pl:,.0f} | {pl / cs:.2f} |"
        )
    return "\n".join(lines)


def pilot_table(report: dict[str, Any]) -> str:
    """The README table of a saved comparison (see the module docstring)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in report["runs"]:
        setting = ", ".join(f"{k}={v}" for k, v in row["config"].items() if k != "seed")
        groups.setdefault(setting, []).append(row)
    steps = report["runs"][0]["timesteps"]
    head = " | ".join(f"{t // 1000}k" for t in steps)
    lines = [
        f"| setting | seeds | validation foundation cards at {head} | steps/s |",
        "|---|---|" + "---|" * len(steps) + "---|",
    ]
    for setting, rows in groups.items():
        cards = np.mean([r["mean_foundation_cards"] for r in rows], axis=0)
        speed = float(np.mean([r["steps_per_second"] for r in rows]))
        seeds = ", ".join(str(r["config"].get("seed")) for r in rows)
        cells = " | ".join(f"{c:.2f}" for c in cards)
        lines.append(f"| {setting} | {seeds} | {cells} | {speed:,.0f} |")
    return "\n".join(lines)


def ray_speedup_table(report: dict[str, Any]) -> str:
    """The README table: one row per command, seconds without Ray and per worker count,
    and the speed-up of 2 workers over 1."""
    seconds = report["seconds"]
    counts = [k for k in seconds["evaluate"] if k != "local"]
    agent = report.get("agent", "greedy")
    samples = report.get("search_samples")
    extra = f" --search-samples {samples}" if samples else ""
    jobs = {
        "evaluate": f"`evaluate {agent} --variant {report['variant']} "
        f"--episodes {report['episodes']}{extra} --ray`",
        "solve": f"`solve {report['variant']} --deals {report['deals']} "
        f"--nodes {report['nodes']} --ray`",
    }
    head = ["command", "no Ray (s)", *(f"{c} worker{'s' * (c != '1')} (s)" for c in counts)]
    lines = ["| " + " | ".join([*head, "speed-up 2 over 1"]) + " |"]
    lines.append("|" + "---|" * (len(head) + 1))
    for job, name in jobs.items():
        row = seconds[job]
        speedup = f"{row['1'] / row['2']:.2f}x" if "1" in row and "2" in row else ""
        cells = [f"{row[k]:.2f}" for k in ("local", *counts)]
        lines.append("| " + " | ".join([name, *cells, speedup]) + " |")
    return "\n".join(lines)
