"""Score models (and greedy) on the first N validation deals, under the no-cycling rule.

    python results/training/probes/score_on_validation.py ENV_ID N MODEL.zip ... [--json OUT]

Validation deals (agents.seeds.seeds_for_validation), never the test deals: this is for
choosing a recipe. Each model plays its most likely move (deterministic), as in training's
validation and the final evaluation; with ``--stochastic`` also a second time sampling its
moves (seeded), reported as ``MODEL.zip (stochastic)``. Prints and optionally saves mean
foundation cards with their standard error, win rate and stuck rate.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch

from agents.baselines import make_baseline
from agents.evaluation import ModelAgent, play_deals
from agents.seeds import seeds_for_validation


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("env_id")
    parser.add_argument("episodes", type=int)
    parser.add_argument("models", nargs="*", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--stochastic", action="store_true", help="also sample each model's moves")
    args = parser.parse_args()
    torch.set_num_threads(1)
    from sb3_contrib import MaskablePPO

    seeds = seeds_for_validation(args.episodes)
    agents = {"greedy": make_baseline("greedy")}
    for path in args.models:
        model = MaskablePPO.load(path, device="cpu")
        agents[str(path)] = ModelAgent(model, "ppo", True, 0)
        if args.stochastic:
            agents[f"{path} (stochastic)"] = ModelAgent(model, "ppo", False, 0)
    report = {}
    for name, agent in agents.items():
        results = play_deals(agent, args.env_id, seeds)
        cards = np.array([r.foundation_cards for r in results], dtype=float)
        report[name] = {
            "mean_foundation_cards": round(float(cards.mean()), 2),
            "sem_foundation_cards": round(float(cards.std(ddof=1) / np.sqrt(len(cards))), 2),
            "win_rate": float(np.mean([r.won for r in results])),
            "stuck_rate": float(np.mean([r.stuck for r in results])),
        }
        print(name, report[name], flush=True)
    if args.json:
        args.json.write_text(
            json.dumps({"env_id": args.env_id, "validation_deals": args.episodes,
                        "agents": report}, indent=2) + "\n",
            encoding="utf-8",
        )  # fmt: skip


if __name__ == "__main__":
    main()
