"""Refit one expert iteration's labels with other targets and fit settings (issue 26's
ablation, offline): the iteration's start network, its labelled games, a target mix and a
fit, then the network alone on validation deals. One JSON line per setting to ``--out``.

A setting is ``MOVE_WEIGHT,EPOCHS,LEARNING_RATE,SEED``: the target is ``(1 - w) * soft +
w * one-hot(search's move)`` (``w = 1``: hard targets; ``0``: the values' softmax as
labelled), then ``EPOCHS`` passes at ``LEARNING_RATE``; ``SEED`` shuffles and seeds torch.

    python scripts/expert/refit_targets.py RUN --iteration 0 --games 32 \\
        --validation 200 --out results/expert/refit.jsonl 0,4,1e-3,0 1,16,1e-3,0
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import torch
from fortythieves_agents.config import load_config
from fortythieves_agents.envs import register_config_variant
from fortythieves_agents.networks.model_zip import load_maskable_ppo
from fortythieves_agents.run_folder import ExpertFolder
from fortythieves_agents.training.expert import load_labels, validate_network
from fortythieves_agents.training.teacher import clone_teacher


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("settings", nargs="+", help="MOVE_WEIGHT,EPOCHS,LEARNING_RATE,SEED")
    parser.add_argument("--iteration", type=int, default=0)
    parser.add_argument("--games", type=int, required=True, help="the iteration's games")
    parser.add_argument("--validation", type=int, default=200, help="validation deals")
    parser.add_argument("--out", type=Path, required=True, help="JSON lines appended here")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    folder = ExpertFolder(args.run / "expert")
    base = load_config(args.run / "config.yaml", [])
    env_id = register_config_variant(base.env)
    moves = np.concatenate(
        [np.load(folder.game(args.iteration, g))["search_moves"] for g in range(args.games)]
    )
    for setting in args.settings:
        weight, epochs, rate, seed = setting.split(",")
        config = load_config(
            args.run / "config.yaml", [f"expert.epochs={epochs}", f"expert.learning_rate={rate}"]
        )
        data = load_labels(folder, [args.iteration], args.games)
        soft = data.probs.astype(np.float32)
        hard = np.zeros_like(soft)
        hard[np.arange(moves.size), moves] = 1.0
        data.probs = ((1 - float(weight)) * soft + float(weight) * hard).astype(np.float16)
        model = load_maskable_ppo(folder.start_model(args.iteration), device="cpu")
        torch.manual_seed(int(seed))
        fit = clone_teacher(model, data, config.expert, config.ppo.max_grad_norm, int(seed))
        result = validate_network(model, env_id, args.validation)
        row = {
            "run": str(args.run),
            "iteration": args.iteration,
            "move_weight": float(weight),
            "epochs": int(epochs),
            "learning_rate": float(rate),
            "seed": int(seed),
            "labels": len(data),
            "held_out_agreement": fit["after"]["accuracy"],
            "train_agreement": fit["train_after"]["accuracy"],
            "validation_deals": args.validation,
            "win_rate": result["win_rate"],
            "mean_foundation_cards": result["mean_foundation_cards"],
            "stuck": result["stuck"],
            "truncated": result["truncated"],
        }
        print(json.dumps(row), flush=True)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("a", encoding="utf-8") as out:
            out.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
