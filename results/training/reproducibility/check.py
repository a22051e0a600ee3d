"""Issue 9.6: train the quick start twice with the same seed and compare the figures.

    python results/training/reproducibility/check.py [--steps 100000] [--variant streets]

Runs ``fortythieves train configs/<variant>.yaml --set train.total_timesteps=STEPS`` twice,
side by side (one torch thread each, the shipped default), into
``runs/reproducibility/run0`` and ``run1`` (removed first), then writes
``results/training/reproducibility/<variant>.json``: both runs' final evaluations (500 test
deals) and the differences. The goal is the same figure to within 0.5 cards; on one torch
thread the runs are bit-identical (tests/test_agents_reproducible.py), so the difference
should be 0.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[3]


def _commit() -> str:
    """The checkout's commit, ``+dirty`` when files differ from it."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()  # fmt: skip
    return head.stdout.strip() + ("+dirty" if dirty else "")


def _versions() -> dict[str, str]:
    """The versions of the libraries the figures depend on."""
    from importlib.metadata import version

    names = ["numpy", "numba", "gymnasium", "stable_baselines3", "sb3_contrib"]
    return {name: version(name) for name in names}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--variant", default="streets", help="a config name in configs/")
    args = parser.parse_args()
    runs = [ROOT / "runs" / "reproducibility" / f"run{i}" for i in range(2)]
    commands = []
    procs = []
    started = time.time()
    for run in runs:
        shutil.rmtree(run, ignore_errors=True)
        command = [
            sys.executable, "-m", "agents.cli", "train", f"configs/{args.variant}.yaml",
            "--set", f"train.total_timesteps={args.steps}", "--set", "train.progress_bar=false",
            "--run-dir", str(run.relative_to(ROOT)),
        ]  # fmt: skip
        commands.append(command[1:])
        procs.append(subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL))
    codes = [proc.wait() for proc in procs]
    if any(codes):
        print(f"training failed: exit codes {codes}", file=sys.stderr)
        return 1
    reports = [json.loads((run / "final_evaluation.json").read_text()) for run in runs]
    evaluations = [report["results"] for report in reports]
    figures = {}
    for agent in evaluations[0]:
        pair = [e[agent] for e in evaluations]
        figures[agent] = {
            "mean_foundation_cards": [p["mean_foundation_cards"] for p in pair],
            "wins": [p["wins"] for p in pair],
            "difference_cards": abs(
                pair[0]["mean_foundation_cards"] - pair[1]["mean_foundation_cards"]
            ),
        }
    report = {
        "variant_config": f"configs/{args.variant}.yaml",
        "steps": args.steps,
        "commands": ["python " + " ".join(c) for c in commands],
        "commit": _commit(),
        "torch": torch.__version__,
        "packages": _versions(),
        "python": platform.python_version(),
        "wall_seconds": round(time.time() - started, 1),
        "episodes": reports[0]["episodes"],  # the config's eval.final_episodes
        "results": figures,
        "within_half_a_card": all(f["difference_cards"] <= 0.5 for f in figures.values()),
    }
    out = ROOT / "results" / "training" / "reproducibility" / f"{args.variant}.json"
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report["results"], indent=2))
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
