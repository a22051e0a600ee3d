"""Small solves per second: :func:`~fortythieves_env.solver.solve` against a reused
:class:`~fortythieves_env.solver.SolverContext` (issue 25, point 1).

The search agent of :mod:`fortythieves_agents.players.search` solves hundreds of sampled positions
per move with a small node cap. This script takes positions a player meets (greedy play of the first
test deals, every ``--every`` moves), samples their hidden cards (the agent's
:func:`~fortythieves_env.rules.view.determinize`), and solves each sample with both, alternating
(solve, context, solve, context, ...), at each node cap of ``--nodes``. It checks that both
give the same status and node count, and prints solves per CPU-second (``time.process_time``
of this process) and nodes per CPU-second, with the machine's load (1-minute average of
``os.getloadavg``) before and after: the machine may be shared.

Usage::

    python -m benchmarks.solver_context_speed --variants NumberTen,FortyThieves \\
        --nodes 1000,10000 --samples 40 [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
from fortythieves_agents.evaluation.evaluate import GameTrace, play_deals
from fortythieves_agents.players.baselines import make_baseline
from fortythieves_agents.seeds import seeds_for_test

from fortythieves_env import VARIANTS, FortyThievesEnv
from fortythieves_env.rules.core import tables_for
from fortythieves_env.rules.view import determinize
from fortythieves_env.solver import SolverContext, solve


def sampled_states(variant: str, deals: int, every: int, per: int, seed: int) -> list[np.ndarray]:
    """Packed samples (``int16`` state arrays) of the positions greedy meets on the first
    ``deals`` test deals, every ``every`` moves, ``per`` samples each."""
    spec = VARIANTS[variant]
    tables = tables_for(spec)
    rng = np.random.default_rng(seed)
    out = []
    seeds = [int(s) for s in seeds_for_test(deals)]
    traces: list[GameTrace] = []
    play_deals(make_baseline("greedy"), f"FortyThieves/{variant}-v0", seeds, traces=traces)
    for trace in traces:
        env = FortyThievesEnv(variant)
        env.reset(options={"state": trace.start})
        for k, action in enumerate(trace.actions.tolist()):
            if k % every == 0:
                view = env.player_view()
                for _ in range(per):
                    cards = rng.permutation(np.array(view.unseen, dtype=np.int64)).tolist()
                    out.append(tables.pack(determinize(view, cards)))
            env.step(int(action))
    return out


def measure(variant: str, states: list[np.ndarray], nodes: int) -> dict[str, Any]:
    """Solve every state with both, alternating; CPU seconds and nodes of each."""
    spec = VARIANTS[variant]
    tables = tables_for(spec)
    context = SolverContext(spec)
    unpacked = [tables.unpack(st) for st in states]
    solve(unpacked[0], spec, nodes=nodes)  # compile / warm up both
    context.run(states[0], nodes)
    cpu = {"solve": 0.0, "context": 0.0}
    total = {"solve": 0, "context": 0}
    statuses: dict[str, int] = {}
    for st, state in zip(states, unpacked, strict=True):
        t = time.process_time()
        a = solve(state, spec, nodes=nodes)
        cpu["solve"] += time.process_time() - t
        t = time.process_time()
        b = context.run(st, nodes)
        cpu["context"] += time.process_time() - t
        if (a.status, a.nodes) != (b.status, b.nodes):
            raise AssertionError(
                f"{variant}: solve {a.status}/{a.nodes}, context {b.status}/{b.nodes}"
            )
        total["solve"] += a.nodes
        total["context"] += b.nodes
        statuses[a.status] = statuses.get(a.status, 0) + 1
    n = len(states)
    return {
        "variant": variant,
        "node_cap": nodes,
        "solves": n,
        "statuses": statuses,
        **{f"{k}_solves_per_cpu_s": n / cpu[k] for k in cpu},
        **{f"{k}_nodes_per_cpu_s": total[k] / cpu[k] for k in cpu},
        "speedup": cpu["solve"] / cpu["context"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default="NumberTen,FortyThieves")
    parser.add_argument("--nodes", default="1000,10000", help="node caps, comma-separated")
    parser.add_argument("--deals", type=int, default=2)
    parser.add_argument("--every", type=int, default=40, help="moves between two positions")
    parser.add_argument("--samples", type=int, default=10, help="samples per position")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    rows = []
    for variant in args.variants.split(","):
        states = sampled_states(variant, args.deals, args.every, args.samples, args.seed)
        for nodes in (int(n) for n in args.nodes.split(",")):
            row = measure(variant, states, nodes)
            rows.append(row)
            print(
                f"{variant:13s} cap {nodes:>7,}: {row['solves']} solves {row['statuses']}; "
                f"solve {row['solve_solves_per_cpu_s']:8.1f}/s, context "
                f"{row['context_solves_per_cpu_s']:8.1f}/s (x{row['speedup']:.2f}); nodes/s "
                f"{row['solve_nodes_per_cpu_s']:,.0f} / {row['context_nodes_per_cpu_s']:,.0f}",
                flush=True,
            )
    load_after = os.getloadavg()[0]
    cpus = os.cpu_count()
    print(f"load (1-min average): {load_before:.2f} before, {load_after:.2f} after, {cpus} CPUs")
    if args.json:
        report = {"load_before": load_before, "load_after": load_after, "rows": rows}
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
