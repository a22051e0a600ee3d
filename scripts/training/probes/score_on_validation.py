"""Score models (and greedy) on the first N validation deals, under the no-cycling rule.

    python scripts/training/probes/score_on_validation.py ENV_ID N MODEL.zip ... [--json OUT]

Validation deals (fortythieves_agents.seeds.seeds_for_validation), never the test deals: this is for
choosing a recipe. Each model plays its most likely move (deterministic), as in training's
validation and the final evaluation; with ``--stochastic`` also a second time sampling its
moves (seeded), reported as ``MODEL.zip (stochastic)``. Prints and optionally saves mean
foundation cards with their standard error, win rate and stuck rate.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch
from fortythieves_agents.evaluation.evaluate import (
    ModelAgent,
    load_model_agent,
    play_deals,
    summarize,
)
from fortythieves_agents.players.baselines import make_baseline
from fortythieves_agents.seeds import seeds_for_validation

from fortythieves_env.envs.registration import id_version


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("env_id")
    parser.add_argument("episodes", type=int)
    parser.add_argument("models", nargs="*", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--stochastic", action="store_true", help="also sample each model's moves")
    args = parser.parse_args()
    torch.set_num_threads(1)
    variant = args.env_id.removeprefix("FortyThieves/").rpartition("-v")[0]
    version = id_version(args.env_id)

    seeds = seeds_for_validation(args.episodes)
    agents = {"greedy": make_baseline("greedy")}
    for path in args.models:
        # the package's loader: it refuses a model of another variant or id version by name
        agent, _ = load_model_agent(path, variant, True, 0, version)
        agents[str(path)] = agent
        if args.stochastic:
            agents[f"{path} (stochastic)"] = ModelAgent(agent.model, "ppo", False, 0)
    report = {}
    for name, agent in agents.items():
        summary = summarize(play_deals(agent, args.env_id, seeds))
        report[name] = {
            "mean_foundation_cards": round(summary["mean_foundation_cards"], 2),
            "sem_foundation_cards": round(summary["sem_foundation_cards"], 2),
            "win_rate": summary["win_rate"],
            "stuck_rate": summary["stuck_rate"],
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
