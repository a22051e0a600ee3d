"""Validation learning curves and speed of training runs, side by side, as JSON.

For each run folder: the mean validation foundation cards at each evaluation
(``eval/foundation_cards.npz``, written by ``train``), the steps per second and wall time
from ``run.json``, and the resolved ``config.yaml`` keys that differ between the runs.
Used to decide a default by a learning rule (e.g. issue 8: "validation foundation cards at
200k and 500k steps within a stated tolerance over 2 seeds").

Usage::

    python -m benchmarks.compare_runs RUN [RUN ...] [--json OUT]
    python -m benchmarks.compare_runs --table results/training/vec_env_pilot/summary.json

``--table`` prints the README table of a saved comparison: one row per setting (the runs
that differ only in ``seed``), the validation foundation cards at each evaluation averaged
over its seeds, and the mean steps/s.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from fortythieves_agents.reports.speed import pilot_table


def _flatten(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            out.update(_flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def summarize(run: Path) -> dict[str, Any]:
    """One run's curve (timesteps, mean and standard error of foundation cards) and speed."""
    curve = np.load(run / "eval" / "foundation_cards.npz")
    cards = curve["foundation_cards"].astype(float)
    meta = json.loads((run / "run.json").read_text(encoding="utf-8"))
    return {
        "run": run.name,
        "timesteps": curve["timesteps"].tolist(),
        "mean_foundation_cards": cards.mean(axis=1).round(3).tolist(),
        "sem_foundation_cards": (cards.std(axis=1, ddof=1) / np.sqrt(cards.shape[1]))
        .round(3)
        .tolist(),
        "validation_deals": int(cards.shape[1]),
        "steps_per_second": meta.get("steps_per_second"),
        "train_seconds": meta.get("train_seconds"),
        "status": meta.get("status"),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="*", type=Path)
    parser.add_argument("--json", dest="json_path", type=Path)
    parser.add_argument("--table", type=Path, help="print the README table of a saved comparison")
    args = parser.parse_args(argv)
    if args.table:
        print(pilot_table(json.loads(args.table.read_text(encoding="utf-8"))))
        return
    if not args.runs:
        parser.error("give run folders (or --table JSON)")
    configs = {
        run.name: _flatten(yaml.safe_load((run / "config.yaml").read_text(encoding="utf-8")))
        for run in args.runs
    }
    keys = sorted(set().union(*configs.values()))
    differ = [k for k in keys if len({json.dumps(c.get(k)) for c in configs.values()}) > 1]
    rows = [summarize(run) for run in args.runs]
    for row in rows:
        row["config"] = {k: configs[row["run"]].get(k) for k in differ}
        curve = ", ".join(
            f"{t // 1000}k: {m:.2f}"
            for t, m in zip(row["timesteps"], row["mean_foundation_cards"], strict=True)
        )
        print(f"{row['run']}: {row['steps_per_second']} steps/s; validation cards {curve}")
    if args.json_path:
        args.json_path.parent.mkdir(parents=True, exist_ok=True)
        args.json_path.write_text(
            json.dumps({"differing_keys": differ, "runs": rows}, indent=2) + "\n", encoding="utf-8"
        )
        print(f"written to {args.json_path}")


if __name__ == "__main__":
    main()
