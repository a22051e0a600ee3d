"""Probe of the ``search`` agent against ``greedy`` on the first test deals (issue 10, point 3).

Plays each deal one at a time with the search agent, with the no-cycling rule of the
learning issue (issue 9, point 5): the agent's best move whose next view is new; when every
legal move leads back to a view already met (every score below 0, see
:mod:`fortythieves_agents.players.search`), the game is over and counts as lost ("stuck").
``greedy`` plays the same deals through :func:`fortythieves_agents.evaluation.evaluate.play_deals`.
Seconds per move are wall-clock
seconds of the search's :meth:`~fortythieves_agents.players.search.SearchAgent.action_scores` per
move played (one process, one core; the machine may be shared: see ``load`` in the output).

Usage::

    python -m benchmarks.search_probe --variants NumberTen RankAndFile --deals 20 \\
        --samples 16 --json results/search/probes/probe.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
from fortythieves_agents.evaluation.evaluate import play_deals
from fortythieves_agents.paths import portable_command
from fortythieves_agents.players.baselines import make_baseline
from fortythieves_agents.players.search import ALLOCATIONS, SearchAgent, SearchBudget
from fortythieves_agents.seeds import seeds_for_test

from fortythieves_env import FortyThievesEnv


def play_search(
    agent: SearchAgent, variant: str, seeds: list[int], max_seconds: float
) -> list[dict[str, Any]]:
    """Play each deal with ``agent`` and the no-cycling rule; one row per deal. No new
    deal starts after ``max_seconds`` (wall clock)."""
    rows: list[dict[str, Any]] = []
    env = FortyThievesEnv(variant)
    limit = env.variant.max_episode_steps
    begin = time.perf_counter()
    for i, seed in enumerate(seeds):
        if time.perf_counter() - begin > max_seconds:
            break
        obs, _ = env.reset(seed=seed)
        game = np.array([i], dtype=np.int64)
        agent.start_games(env.variant, game)
        seconds, steps, stuck, won, cards = 0.0, 0, False, False, 0
        while steps < limit:
            mask = env.action_masks()
            if not mask.any():
                break
            start = time.perf_counter()
            scores = agent.action_scores(obs[None], mask[None], game)[0]
            seconds += time.perf_counter() - start
            action = int(np.argmax(scores))
            if scores[action] < 0:  # every move repeats a view: stuck
                stuck = True
                break
            obs, _, terminated, _, info = env.step(action)
            steps += 1
            cards = int(info["foundation_cards"])
            if terminated:
                won = bool(info["is_success"])
                break
        agent.end_games(game)
        rows.append(
            {"seed": seed, "won": won, "cards": cards, "steps": steps, "stuck": stuck,
             "seconds": round(seconds, 3)}
        )  # fmt: skip
        print(f"  {variant} deal {i}: {rows[-1]}", file=sys.stderr, flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", nargs="+", required=True)
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--allocation", choices=ALLOCATIONS, default="uniform")
    parser.add_argument("--horizon", type=int, default=None)
    parser.add_argument("--stall", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--max-seconds", type=float, default=540.0, help="per variant: no new deal after this"
    )
    parser.add_argument("--json", type=Path, required=True)
    args = parser.parse_args(argv)
    budget = SearchBudget(
        samples=args.samples, horizon=args.horizon, stall=args.stall, allocation=args.allocation
    )
    seeds = [int(s) for s in seeds_for_test(args.deals)]
    report: dict[str, Any] = {
        "command": "python " + " ".join(portable_command(sys.argv)),
        "budget": asdict(budget),
        "deals_asked": args.deals,
        "max_seconds_per_variant": args.max_seconds,
        "load_at_start": os.getloadavg()[0],
        "variants": {},
    }
    for variant in args.variants:
        rows = play_search(SearchAgent(args.seed, budget), variant, seeds, args.max_seconds)
        played = seeds[: len(rows)]
        greedy = play_deals(make_baseline("greedy"), f"FortyThieves/{variant}-v0", played)
        steps = sum(r["steps"] for r in rows)
        seconds = sum(r["seconds"] for r in rows)
        report["variants"][variant] = {
            "deals": len(rows),
            "greedy": {
                "wins": sum(r.won for r in greedy),
                "mean_cards": float(np.mean([r.foundation_cards for r in greedy])),
            },
            "search": {
                "wins": sum(r["won"] for r in rows),
                "mean_cards": float(np.mean([r["cards"] for r in rows])),
                "stuck": sum(r["stuck"] for r in rows),
                "moves": steps,
                "seconds": round(seconds, 1),
                "seconds_per_move": round(seconds / max(steps, 1), 4),
            },
            "per_deal": {"greedy_won": [r.won for r in greedy], "search": rows},
        }
        print(json.dumps({variant: {k: v for k, v in report["variants"][variant].items()
                                    if k != "per_deal"}}), flush=True)  # fmt: skip
        report["load_at_end"] = os.getloadavg()[0]
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
