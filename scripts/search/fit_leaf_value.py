"""Fit the search agent's learned leaf value for a variant (issue 40, point 3).

The value of a sampled child whose capped solve (``--nodes``, the agent's 1,000) ran out
is, by default, ``cards / 208`` (:func:`fortythieves_agents.players.search_scores.solve_scores`).
This script fits :mod:`fortythieves_agents.players.search_leaf`'s model, the prediction of
what a solve with :data:`~fortythieves_agents.players.search_leaf.DEEP_NODES` nodes says of
the same child (1 won, 0 lost, ``cards / 208`` unknown), on positions of *training* deals
(seeds ``--first-deal`` onwards, below the validation and test ranges):

1. Positions: the greedy player's games, a random legal move instead with probability
   ``--explore`` (so that the positions are not only greedy's), every ``--every``-th move
   among the first ``--moves``.
2. For each: ``--samples`` samples of the unseen cards (the agent's belief), and on each up
   to ``--children`` of the solver's candidate moves (random, distinct): the child solved
   with ``--nodes`` nodes; a child it leaves unknown (the only ones the model values) is
   solved again with the deep cap: a row (its features, the capped solve's cards, the deep
   verdict).
3. Fit: logistic regression on the soft labels (Newton's method, L2 ``--l2``) on the deals
   of 4 in 5; the fifth deal of every five is held out and scored against the default's
   value: mean squared error and cross-entropy to the deep label, and, for pairs of
   children of one sample whose deep labels differ, how often each value orders them as
   the deep solve does (what a move choice needs).

Writes ``results/search/leaf/<variant>.json`` (settings, the figures, the weights, every
row) and the variant's entry of ``agents/players/leaf_values.json`` (weights, figures,
command), and appends the command to ``results/search/leaf/command.txt``::

    python scripts/search/fit_leaf_value.py Indian
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
from fortythieves_agents.paths import portable_command, portable_path
from fortythieves_agents.players.baselines import GreedyAgent
from fortythieves_agents.players.search_leaf import (
    DEEP_NODES,
    FEATURES,
    N_FEATURES,
    UNKNOWN_WEIGHT,
    leaf_features,
)
from fortythieves_agents.seeds import VALIDATION_START

import fortythieves_env  # noqa: F401  (registers the ids)
from fortythieves_env import env_id, get_variant
from fortythieves_env.rules.cards import N_CARDS
from fortythieves_env.rules.core import H_NACT, apply, tables_for
from fortythieves_env.rules.view import determinize, player_view
from fortythieves_env.solver import SolverContext, build_code, pruned_moves

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "agents" / "players" / "leaf_values.json"


def _label(status: str, cards: int) -> float:
    return 1.0 if status == "won" else 0.0 if status == "lost" else cards * UNKNOWN_WEIGHT


def gather(args: argparse.Namespace) -> list[dict]:
    """The rows of step 1-2 (module docstring)."""
    spec = get_variant(args.variant)
    tables = tables_for(spec)
    tb = tables.table
    legal = np.empty(int(tb[H_NACT]), dtype=np.int32)
    out = np.empty_like(legal)
    order = np.empty_like(legal)
    build = build_code(spec)
    context = SolverContext(spec)
    env = gym.make(env_id(args.variant))
    agent = GreedyAgent()
    feats = np.empty(N_FEATURES, dtype=np.float64)
    rows: list[dict] = []
    for d in range(args.deals):
        seed = args.first_deal + d
        if seed >= VALIDATION_START:
            raise SystemExit(f"error: deal {seed} is not a training deal (< {VALIDATION_START})")
        rng = np.random.default_rng([seed, 7])
        obs, info = env.reset(seed=seed)
        t = 0
        done = False
        while not done and t < min(args.moves, spec.max_episode_steps - 1):
            if t % args.every == 0:
                view = player_view(spec, env.unwrapped.state)
                limit = min(context.step_limit, spec.max_episode_steps - t - 1)
                for k in range(args.samples):
                    cards = rng.permutation(np.asarray(view.unseen, dtype=np.int64)).tolist()
                    sample = tables.pack(determinize(view, cards))
                    count = pruned_moves(sample, tb, build, legal, out, order)
                    if count < 2:
                        continue
                    picks = rng.choice(count, size=min(args.children, count), replace=False)
                    for j in sorted(picks.tolist()):
                        child = sample.copy()
                        apply(child, tb, np.int64(out[j]))
                        shallow = context.run(child, args.nodes, limit)
                        if shallow.status != "unknown":
                            continue
                        deep = context.run(child, DEEP_NODES, limit)
                        leaf_features(child, tb, feats)
                        feats[-1] = shallow.cards / N_CARDS
                        rows.append(
                            {
                                "deal": seed,
                                "move": t,
                                "sample": k,
                                "child": int(out[j]),
                                "features": [round(float(x), 6) for x in feats],
                                "shallow_cards": shallow.cards,
                                "deep": [deep.status, deep.cards, deep.nodes],
                                "label": _label(deep.status, deep.cards),
                            }
                        )
            mask = info["action_mask"]
            if rng.random() < args.explore:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                action = int(agent.act(obs, env))
            obs, _, term, trunc, info = env.step(action)
            done = term or trunc
            t += 1
        print(f"deal {seed}: {len(rows)} rows so far", flush=True)
    return rows


def fit(x: np.ndarray, y: np.ndarray, l2: float, iterations: int = 50) -> np.ndarray:
    """Logistic regression on soft labels ``y`` in [0, 1] by Newton's method; the bias
    (column 0) is not penalised. Returns the weights (``float64``, ``(N_FEATURES,)``)."""
    w = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) / len(y) + penalty * w
        hess = (x * (p * (1 - p))[:, None]).T @ x / len(y) + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w


def _scores(pred: np.ndarray, y: np.ndarray, groups: list[tuple]) -> dict | None:
    """How well ``pred`` matches the deep labels ``y`` (module docstring, step 3); None
    with no row."""
    if not len(y):
        return None
    eps = 1e-6
    p = np.clip(pred, eps, 1 - eps)
    agree = total = 0
    by: dict[tuple, list[int]] = {}
    for i, g in enumerate(groups):
        by.setdefault(g, []).append(i)
    for members in by.values():
        for a in range(len(members)):
            for b in range(a + 1, len(members)):
                i, j = members[a], members[b]
                if y[i] == y[j]:
                    continue
                total += 1
                if (pred[i] - pred[j]) * (y[i] - y[j]) > 0:
                    agree += 1
                elif pred[i] == pred[j]:
                    agree += 0.5  # type: ignore[assignment]
    return {
        "mse": round(float(np.mean((pred - y) ** 2)), 6),
        "cross_entropy": round(float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))), 6),
        "pairs": total,
        "pairs_ordered_as_deep": round(agree / total, 4) if total else None,
    }


def _dump(report: dict) -> str:
    """``report`` as JSON: indented, but one line per row."""
    head = json.dumps({k: v for k, v in report.items() if k != "rows"}, indent=1)
    rows = ",\n".join("  " + json.dumps(r) for r in report["rows"])
    return head[:-2] + ',\n "rows": [\n' + rows + "\n ]\n}\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("variant")
    ap.add_argument("--deals", type=int, default=60)
    ap.add_argument("--first-deal", type=int, default=500_000_000)
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--moves", type=int, default=400)
    ap.add_argument("--samples", type=int, default=2)
    ap.add_argument("--children", type=int, default=3)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--explore", type=float, default=0.2)
    ap.add_argument("--l2", type=float, default=1e-3)
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "search" / "leaf")
    ap.add_argument("--shipped", type=Path, default=SHIPPED, help="the models' file written")
    args = ap.parse_args(argv)
    get_variant(args.variant)  # a clear error before any work
    command = shlex.join(
        [
            "python",
            "scripts/search/fit_leaf_value.py",
            *portable_command(sys.argv[1:] if argv is None else argv, ROOT),
        ]
    )
    t0, c0 = time.perf_counter(), time.process_time()
    rows = gather(args)
    held = np.array([(r["deal"] - args.first_deal) % 5 == 4 for r in rows], dtype=bool)
    if held.all():
        raise SystemExit("error: no position left the capped solve unknown: nothing to fit")
    x = np.array([r["features"] for r in rows], dtype=np.float64)
    y = np.array([r["label"] for r in rows], dtype=np.float64)
    w = fit(x[~held], y[~held], args.l2)
    groups = [(r["deal"], r["move"], r["sample"]) for r in rows]
    test = np.flatnonzero(held)
    learned = 1.0 / (1.0 + np.exp(-(x[test] @ w)))
    default = np.array([rows[i]["shallow_cards"] * UNKNOWN_WEIGHT for i in test.tolist()])
    tgroups = [groups[i] for i in test.tolist()]
    figures = {
        "rows": len(rows),
        "fit_rows": int((~held).sum()),
        "held_out_rows": int(held.sum()),
        "deep_won": sum(r["deep"][0] == "won" for r in rows),
        "deep_lost": sum(r["deep"][0] == "lost" for r in rows),
        "deep_unknown": sum(r["deep"][0] == "unknown" for r in rows),
        "held_out_learned": _scores(learned, y[test], tgroups),
        "held_out_default": _scores(default, y[test], tgroups),
        "wall_seconds": round(time.perf_counter() - t0, 1),
        "cpu_seconds": round(time.process_time() - c0, 1),
        "load_average": [round(v, 2) for v in __import__("os").getloadavg()],
    }
    weights = {name: round(float(v), 6) for name, v in zip(FEATURES, w, strict=True)}
    args.out.mkdir(parents=True, exist_ok=True)
    settings = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    settings["out"] = portable_path(args.out, ROOT)
    settings["shipped"] = portable_path(args.shipped, ROOT)
    settings["deep_nodes"] = DEEP_NODES
    report = {
        "variant": args.variant,
        "settings": settings,
        "figures": figures,
        "weights": weights,
        "rows": rows,
    }
    (args.out / f"{args.variant}.json").write_text(_dump(report))
    with open(args.out / "command.txt", "a") as f:
        f.write(command + "\n")
    shipped = json.loads(args.shipped.read_text())
    shipped["variants"][args.variant] = {
        "weights": [weights[name] for name in FEATURES],
        "features": list(FEATURES),
        "deep_nodes": DEEP_NODES,
        "nodes": args.nodes,
        "figures": {k: figures[k] for k in ("rows", "held_out_learned", "held_out_default")},
        "command": command,
    }
    args.shipped.write_text(json.dumps(shipped, indent=1, sort_keys=True) + "\n")
    print(json.dumps(figures, indent=1))
    print(json.dumps(weights))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
