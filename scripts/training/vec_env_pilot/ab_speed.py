"""A/B: training steps/s of the shipped defaults against smaller candidates, side by side.

Run from the repository root: ``python -m scripts.training.vec_env_pilot.ab_speed 3`` (rounds);
writes ``results/training/vec_env_pilot/ab_speed.json``. "shipped" were the defaults before
0.4.0 (features 256, 16 x 128); the overrides are relative to the config files of the checkout.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

from benchmarks.train_speedup import measure

ROOT = Path(".").resolve()
CANDIDATES: dict[str, tuple[str, ...]] = {
    "shipped (f256, 16x128)": ("policy.features_dim=256", "train.n_envs=16", "ppo.n_steps=128"),
    "f128 (16x128)": ("policy.features_dim=128", "train.n_envs=16", "ppo.n_steps=128"),
    "f128-e32 (32x64)": ("policy.features_dim=128", "train.n_envs=32", "ppo.n_steps=64"),
}


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    rates: dict[str, list[float]] = {k: [] for k in CANDIDATES}
    load0 = os.getloadavg()[0]
    names = list(CANDIDATES)
    for r in range(rounds):
        for k in names[r % 3 :] + names[: r % 3]:  # rotate who goes first
            rates[k].append(measure(ROOT, "streets.yaml", 16384, CANDIDATES[k]))
            print(k, round(rates[k][-1]), flush=True)
    out: dict[str, object] = {
        k: {"rates": v, "median": statistics.median(v)} for k, v in rates.items()
    }
    out["load_average_before"] = load0
    out["load_average_after"] = os.getloadavg()[0]
    out["date"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    print(json.dumps(out, indent=1))
    path = Path("results/training/vec_env_pilot/ab_speed.json")
    path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
