"""Does a model shuttle cards in live positions? Rank and File, validation deals.

    python scripts/training/probes/shuttling.py N MODEL.zip ... [--json OUT]

Plays the first N validation deals (fortythieves_agents.seeds.seeds_for_validation) with greedy and
each model (its most likely move, under the no-cycling rule, as the final evaluation plays), then
replays every game that reached the step limit (truncated) and lets greedy play on from its
last position for up to 500 moves. A game in which greedy then puts cards on the
foundations was cut in a *live* position: the agent had kept making new positions (so the
no-cycling rule never stopped it) without progress. Prints, per agent, the mean foundation
cards, the truncated games, how many of them were live, and the cards greedy adds on average
over the truncated games.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch
from fortythieves_agents.evaluation.evaluate import load_model_agent, play_deals, summarize
from fortythieves_agents.players.baselines import make_baseline
from fortythieves_agents.seeds import seeds_for_validation

from fortythieves_env import FortyThievesEnv
from fortythieves_env.rules.variants import get_variant

VARIANT = "RankAndFile"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("episodes", type=int)
    parser.add_argument("models", nargs="*", type=Path)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    torch.set_num_threads(1)
    seeds = seeds_for_validation(args.episodes)
    greedy = make_baseline("greedy")
    agents = {"greedy": greedy}
    for path in args.models:
        agents[str(path)] = load_model_agent(path, VARIANT, True, 0, 0)[0]
    report = {}
    for name, agent in agents.items():
        traces: list = []
        results = play_deals(agent, f"FortyThieves/{VARIANT}-v0", seeds, traces=traces)
        gains = []
        for seed, result, trace in zip(seeds, results, traces, strict=True):
            if not result.truncated:
                continue
            env = FortyThievesEnv(VARIANT)
            obs, _ = env.reset(seed=seed)
            info: dict = {}
            for action in trace.actions:
                obs, _, _, _, info = env.step(int(action))
            before = info["foundation_cards"]
            greedy.start_games(get_variant(VARIANT), np.arange(1))
            for _ in range(500):
                mask = env.action_masks()[None].astype(np.int8)
                action = int(greedy.act_batch(obs[None], mask, np.zeros(1, np.int64))[0])
                obs, _, terminated, _, info = env.step(action)
                if terminated:
                    break
            gained = info["foundation_cards"] - before
            gains.append(gained)
        report[name] = {
            "mean_foundation_cards": round(summarize(results)["mean_foundation_cards"], 2),
            "truncated": len(gains),
            "truncated_live": int(sum(g > 0 for g in gains)),
            "greedy_adds_per_truncated_game": round(float(np.mean(gains)), 2) if gains else 0.0,
        }
        print(name, report[name], flush=True)
    if args.json:
        args.json.write_text(
            json.dumps(
                {"variant": VARIANT, "validation_deals": args.episodes, "agents": report}, indent=2
            )
            + "\n",
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
