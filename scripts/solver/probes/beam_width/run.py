"""Probe (issue 39): does a wider beam find the wins the solver misses on the undecided deals?

``solve`` at ``--nodes`` with the beam's widening capped at ``2**--bits`` positions (the
solver's cap is ``2**14``; the cap is patched in this process only), on the first ``--deals``
undecided test deals of each variant (by ``results/solver/<Variant>.jsonl``). One JSON line
per deal on stdout: status, found_by, nodes, CPU seconds.

    python scripts/solver/probes/beam_width/run.py Maria FortyThieves --deals 4 --bits 18 \\
        --nodes 300000000
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium as gym
from fortythieves_agents.evaluation.solve import solver_verdicts
from fortythieves_agents.seeds import seeds_for_test

import fortythieves_env.solver.beam as beam
from fortythieves_env import env_id
from fortythieves_env.solver import solve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+")
    parser.add_argument("--deals", type=int, default=4)
    parser.add_argument("--bits", type=int, default=18)
    parser.add_argument("--nodes", type=int, default=300_000_000)
    args = parser.parse_args()
    beam.MAX_WIDTH = 1 << args.bits
    for variant in args.variants:
        seeds = seeds_for_test(200)
        verdicts = solver_verdicts(Path("results/solver") / f"{variant}.jsonl", variant, seeds)
        assert verdicts is not None
        todo = [s for s in seeds if verdicts[s] == "unknown"][: args.deals]
        env = gym.make(env_id(variant))
        for seed in todo:
            env.reset(seed=seed)
            began = time.process_time()
            result = solve(env.unwrapped.get_state(), variant, nodes=args.nodes)
            row = {
                "variant": variant, "seed": seed, "bits": args.bits, "nodes_budget": args.nodes,
                "status": result.status, "found_by": result.found_by, "nodes": result.nodes,
                "cpu_seconds": round(time.process_time() - began, 2),
            }  # fmt: skip
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
