"""Learning curves of expert iteration (issue 26, point 3), from runs' ``expert/state.json``.

For each run folder given (``fortythieves train`` with ``expert.iterations > 0``), against
the iteration (-1: the network before the first, ``state.json``'s ``start_validation``): the
network alone's win rate on the validation deals (``expert.validation_games``,
with a Wilson 95% band), its mean foundation cards, and the fit's agreement with the search on
the held-out labelled games (its most likely move is a most likely move of the target). A run
still in progress is drawn up to its last finished iteration. The figures are also written as
JSON (``--json``), so tables read them, never a person typing them.

Usage::

    python -m benchmarks.expert_curves runs/a runs/b --png results/expert/curves.png \\
        --json results/expert/curves.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from fortythieves_agents.paths import portable_path
from fortythieves_agents.run_folder import ExpertFolder, RunFolder


def curves(run: Path) -> dict[str, Any]:
    """One run's per-iteration figures (``iteration``, ``beta``, ``labels``, validation
    ``win_rate``/``win_rate_ci95``/``mean_foundation_cards``, held-out ``agreement``,
    ``labels_per_second``, ``label_seconds``, ``fit_seconds``).

    Raises:
        SystemExit: the folder has no expert iterations (one line naming it).
    """
    folder = ExpertFolder(RunFolder(run).expert)
    if not folder.state.is_file():
        raise SystemExit(f"expert_curves.py: {run}: no expert/state.json (not an expert run)")
    rows = []
    state = folder.read_state()
    start = state.get("start_validation")
    if start:  # the network before the first iteration, drawn at iteration -1
        rows.append(
            {
                "iteration": -1,
                "beta": None,
                "labels": 0,
                "search_won": None,
                "win_rate": start["win_rate"],
                "win_rate_ci95": start["win_rate_ci95"],
                "mean_foundation_cards": start["mean_foundation_cards"],
                "validation_games": start["episodes"],
                "agreement": None,
                "labels_per_second": None,
                "label_seconds": None,
                "fit_seconds": None,
            }
        )
    for entry in state["iterations"]:
        validation = entry.get("validation") or {}
        rows.append(
            {
                "iteration": entry["iteration"],
                "beta": entry["beta"],
                "labels": entry["labels"],
                "search_won": entry["search_won"],
                "win_rate": validation.get("win_rate"),
                "win_rate_ci95": validation.get("win_rate_ci95"),
                "mean_foundation_cards": validation.get("mean_foundation_cards"),
                "validation_games": validation.get("episodes"),
                "agreement": entry["fit"]["after"]["accuracy"],
                "labels_per_second": entry["labels_per_second"],
                "label_seconds": entry["label_seconds"],
                "fit_seconds": entry["fit_seconds"],
            }
        )
    return {"run": portable_path(run), "iterations": rows}


def draw(runs: list[dict[str, Any]], png: Path) -> None:
    """Three panels (win rate, foundation cards, agreement) against the iteration."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    for run in runs:
        rows = [r for r in run["iterations"] if r["win_rate"] is not None]
        x = [r["iteration"] for r in rows]
        label = Path(run["run"]).name
        axes[0].plot(x, [100 * r["win_rate"] for r in rows], marker="o", label=label)
        axes[0].fill_between(
            x,
            [100 * r["win_rate_ci95"][0] for r in rows],
            [100 * r["win_rate_ci95"][1] for r in rows],
            alpha=0.15,
        )
        axes[1].plot(x, [r["mean_foundation_cards"] for r in rows], marker="o", label=label)
        fitted = [r for r in run["iterations"] if r["agreement"] is not None]
        axes[2].plot(
            [r["iteration"] for r in fitted],
            [100 * r["agreement"] for r in fitted],
            marker="o",
            label=label,
        )
    titles = (
        "network alone: validation wins (%)",
        "network alone: mean foundation cards",
        "agreement with the search, held out (%)",
    )
    for ax, title in zip(axes, titles, strict=True):
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("expert iteration (-1: the network before the first)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders with expert iterations")
    parser.add_argument("--png", type=Path, help="write the curves here")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    data = [curves(run) for run in args.runs]
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"runs": data}, indent=2) + "\n", encoding="utf-8")
    if args.png:
        draw(data, args.png)
    for run in data:
        for r in run["iterations"]:
            wins = "-" if r["win_rate"] is None else f"{100 * r['win_rate']:.1f}%"
            if r["iteration"] < 0:
                print(f"{Path(run['run']).name} before the first iteration: validation wins {wins}")
                continue
            print(
                f"{Path(run['run']).name} iteration {r['iteration']}: beta {r['beta']:.2f}, "
                f"{r['labels']} labels ({r['labels_per_second']} per s), validation wins "
                f"{wins}, agreement {100 * r['agreement']:.1f}%"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
