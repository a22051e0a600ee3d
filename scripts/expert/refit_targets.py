"""Refit one expert iteration's labels with other targets and fit settings (issue 26's
ablation, offline): the iteration's start network, its labelled games, a target mix and a
fit, then the network alone on validation deals. One JSON line per setting to ``--out``.

A setting is ``MOVE_WEIGHT,EPOCHS,LEARNING_RATE,SEED``: the target is ``(1 - w) * labelled +
w * one-hot(search's move)`` (``w = 1``: hard targets; ``0``: the targets as labelled, the
run's ``expert.targets``), then ``EPOCHS`` passes at ``LEARNING_RATE``; ``SEED`` shuffles and
seeds torch. ``--soft-temperature T`` replaces the labelled targets by the soft ones made
from the saved candidate values, ``softmax(value / T)`` over the valued legal moves (so a run
labelled with ``improve`` targets can be refitted with ``soft`` ones; a demoted return to a
seen view is not marked in the saved values, so it keeps its share here). ``--unseen-inputs``
refits the start network widened with the player network's unseen inputs (weighted 0 at the
start: ``policy.player.unseen_inputs``), to see whether they let it follow the search.

    python scripts/expert/refit_targets.py RUN --iteration 0 --games 32 \\
        --validation 200 --out results/expert/refit.jsonl 0,4,1e-3,0 1,16,1e-3,0
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

import numpy as np
import torch
from fortythieves_agents.config import load_config
from fortythieves_agents.envs import make_training_vec_env, register_config_variant
from fortythieves_agents.networks.model_zip import load_maskable_ppo
from fortythieves_agents.paths import portable_path
from fortythieves_agents.run_folder import ExpertFolder
from fortythieves_agents.training.expert import load_labels, targets_from_search, validate_network
from fortythieves_agents.training.model import build_model
from fortythieves_agents.training.teacher import clone_teacher


def _soft(values: np.ndarray, labelled: np.ndarray, temperature: float) -> np.ndarray:
    """The search's soft targets (:func:`targets_from_search`) remade from the saved values,
    per row over the valued moves (NaN: not valued); a row with no valued move keeps its
    labelled target. ``float32 (N, A)``."""
    out = labelled.astype(np.float32)
    for i, row in enumerate(values):
        valued = ~np.isnan(row)
        if valued.any():  # a valued move scores its value (>= 0), the others below
            scores = np.where(valued, row, -1.0)
            out[i] = targets_from_search(scores, row, valued, "soft", temperature)
    return out


def _setting(text: str) -> tuple[float, int, float, int]:
    """``MOVE_WEIGHT,EPOCHS,LEARNING_RATE,SEED`` parsed (argparse's type: a bad one is a
    one-line usage error before any fit)."""
    try:
        weight, epochs, rate, seed = text.split(",")
        out = (float(weight), int(epochs), float(rate), int(seed))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: not MOVE_WEIGHT,EPOCHS,LEARNING_RATE,SEED (e.g. 0,8,1e-3,0)"
        ) from None
    if not 0.0 <= out[0] <= 1.0 or out[1] < 1 or not out[2] > 0.0:
        raise argparse.ArgumentTypeError(
            f"{text!r}: MOVE_WEIGHT must be in [0, 1], EPOCHS >= 1 and LEARNING_RATE > 0"
        )
    return out


def _temperature(text: str) -> float:
    value = float(text) if text.strip() else float("nan")
    if not np.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a temperature must be a number > 0")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument(
        "settings", nargs="+", type=_setting, help="MOVE_WEIGHT,EPOCHS,LEARNING_RATE,SEED"
    )
    parser.add_argument("--iteration", type=int, default=0)
    parser.add_argument("--games", type=int, required=True, help="the iteration's games")
    parser.add_argument("--validation", type=int, default=200, help="validation deals")
    parser.add_argument("--out", type=Path, required=True, help="JSON lines appended here")
    parser.add_argument(
        "--soft-temperature",
        type=_temperature,
        help="refit soft targets made from the saved values at this temperature",
    )
    parser.add_argument(
        "--unseen-inputs",
        action="store_true",
        help="refit the start network widened with the unseen inputs (policy.player)",
    )
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    folder = ExpertFolder(args.run / "expert")
    base = load_config(args.run / "config.yaml", [])
    env_id = register_config_variant(base.env)
    missing = [g for g in range(args.games) if not folder.game(args.iteration, g).is_file()]
    if missing:
        first = folder.game(args.iteration, missing[0])
        parser.error(f"--games {args.games} --iteration {args.iteration}: {first} is not saved")
    games = [np.load(folder.game(args.iteration, g)) for g in range(args.games)]
    moves = np.concatenate([game["search_moves"] for game in games])
    values = np.concatenate([game["values"] for game in games]).astype(np.float64)
    wide = ["policy.player.unseen_inputs=true"] if args.unseen_inputs else []
    # the widened network's spaces: one vector env for every setting, closed at the end
    spaces = None
    if args.unseen_inputs:
        spaces = make_training_vec_env(load_config(args.run / "config.yaml", wide))
    try:
        for weight, epochs, rate, seed in args.settings:
            config = load_config(
                args.run / "config.yaml",
                [f"expert.epochs={epochs}", f"expert.learning_rate={rate}", *wide],
            )
            data = load_labels(folder, [args.iteration], args.games)
            soft = data.probs.astype(np.float32)
            if args.soft_temperature is not None:
                soft = _soft(values, soft, args.soft_temperature)
            hard = np.zeros_like(soft)
            hard[np.arange(moves.size), moves] = 1.0
            data.probs = ((1 - float(weight)) * soft + float(weight) * hard).astype(np.float16)
            model = load_maskable_ppo(folder.start_model(args.iteration), device="cpu")
            if spaces is not None:
                narrow = model.policy.state_dict()
                model = build_model(config, spaces, None)
                model.policy.load_without_unseen(narrow)
            torch.manual_seed(int(seed))
            fit = clone_teacher(model, data, config.expert, config.ppo.max_grad_norm, int(seed))
            result = validate_network(model, env_id, args.validation)
            row = {
                "run": portable_path(args.run),
                "iteration": args.iteration,
                "move_weight": float(weight),
                "epochs": int(epochs),
                "learning_rate": float(rate),
                "seed": int(seed),
                "soft_temperature": args.soft_temperature,
                "unseen_inputs": bool(args.unseen_inputs),
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
    finally:
        if spaces is not None:  # subprocess workers may already have stopped on Ctrl-C
            with contextlib.suppress(OSError, EOFError):
                spaces.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
