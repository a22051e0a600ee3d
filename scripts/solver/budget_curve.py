"""Wins found against the node budget (issue 39, point 1): solver version 4 beside version 3's
passes (``solve(..., beam=False)``: the rollout pass with half the budget, then the depth-first
search, as version 3 ran them) on the first N test deals, at 10**4, 10**5 and 10**6 nodes.

The 2 * 10**7 point is the main run's (``scripts/solver/run_v4.sh`` and ``run_v3.sh``,
``results/solver/<Variant>.jsonl``). One JSON line per (variant, deal, budget, passes) in
``results/solver/budget_curve/<Variant>.jsonl``; a run continues where its file stops.

    python scripts/solver/budget_curve.py FortyThieves Streets Maria --deals 200
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium as gym

from fortythieves_env import RULES_VERSION, env_id
from fortythieves_env.solver import SOLVER_VERSION, solve

BUDGETS = (10_000, 100_000, 1_000_000)
OUT = Path("results/solver/budget_curve")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+")
    parser.add_argument("--deals", type=int, default=200)
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    for variant in args.variants:
        path = OUT / f"{variant}.jsonl"
        done = set()
        if path.exists():
            for line in path.read_text().splitlines():
                r = json.loads(line)
                done.add((r["seed"], r["nodes_budget"], r["passes"]))
        env = gym.make(env_id(variant))
        env.reset(seed=2_000_000_000)
        solve(env.unwrapped.get_state(), variant, nodes=1)  # compile first, untimed
        with path.open("a", encoding="utf-8") as out:
            for budget in BUDGETS:
                for passes in ("v3", "v4"):
                    for i in range(args.deals):
                        seed = 2_000_000_000 + i
                        if (seed, budget, passes) in done:
                            continue
                        env.reset(seed=seed)
                        start = time.process_time()
                        r = solve(
                            env.unwrapped.get_state(), variant, nodes=budget, beam=passes == "v4"
                        )
                        record = {
                            "variant": variant,
                            "seed": seed,
                            "nodes_budget": budget,
                            "passes": passes,
                            "solver_version": SOLVER_VERSION,
                            "rules_version": RULES_VERSION,
                            "status": r.status,
                            "found_by": r.found_by,
                            "nodes": r.nodes,
                            "cpu_seconds": round(time.process_time() - start, 4),
                            "moves": len(r.moves),
                        }
                        out.write(json.dumps(record) + "\n")
                        out.flush()


if __name__ == "__main__":
    main()
