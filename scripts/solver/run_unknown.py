"""Solve again, with a larger budget, the deals the solver's records leave undecided (issue 39:
the goal's 60 s per deal on one core is about 10**8 nodes).

For each variant, the first N test deals whose records (``results/solver/<Variant>.jsonl``) are
neither won nor lost are solved at ``--nodes`` (``solve_deal``: the same record as ``fortythieves
solve`` writes, appended to the same file and flushed per deal); a deal with a record at this
budget and solver version is skipped, so a run continues where it stopped.

    python scripts/solver/run_unknown.py Streets FortyThieves Maria --nodes 100000000 --budget 120

``--rules FWED`` adds the solver's rule D (dead positions, :mod:`fortythieves_env.solver.dead`);
a deal is skipped when it has a record at this budget, solver version and rules.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from fortythieves_agents.evaluation.solve import read_records, solve_deal, solver_verdicts
from fortythieves_agents.seeds import seeds_for_test

from fortythieves_env.solver import ALL_RULES, RULES, SOLVER_VERSION


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--nodes", type=int, default=100_000_000)
    parser.add_argument("--budget", type=float, default=120.0, help="wall seconds cap (guard)")
    parser.add_argument(
        "--rules", default="".join(RULES), help="pruning rules, letters of " + "".join(ALL_RULES)
    )
    args = parser.parse_args(argv)
    if not args.rules or set(args.rules) - set(ALL_RULES):
        parser.error(f"--rules: letters of {''.join(ALL_RULES)}, got {args.rules!r}")
    rules = tuple(r for r in ALL_RULES if r in args.rules)
    for variant in args.variants:
        path = Path("results/solver") / f"{variant}.jsonl"
        seeds = seeds_for_test(args.deals)
        verdicts = solver_verdicts(path, variant, seeds)
        if verdicts is None:
            raise SystemExit(f"run_unknown: no record of some {variant} deal in {path}")
        done = {  # a deal cut by a smaller seconds cap is solved again (as `solve` does)
            r["seed"]
            for r in read_records(path)[0]
            if r["nodes_budget"] == args.nodes
            and r["solver_version"] == SOLVER_VERSION
            and r["rules"] == "".join(rules)
            and not (r["stopped_by"] == "seconds" and (r["seconds_cap"] or 0) < args.budget)
        }
        todo = [s for s in seeds if verdicts[s] == "unknown" and s not in done]
        print(
            f"{variant}: {len(todo)} undecided deals to solve at {args.nodes:,} nodes", flush=True
        )
        for seed in todo:
            record = solve_deal(variant, seed, args.nodes, args.budget, rules)
            with path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(record) + "\n")
            print(f"{variant} {seed}: {record['status']} {record['found_by']} "
                  f"{record['nodes']:,} nodes {record['seconds']:.1f} s", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
