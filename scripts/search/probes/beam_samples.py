"""Does the beam pay in the search agent's solves? (issue 40, point 1)

The search agent solves sampled positions (the unseen cards re-dealt: ``determinize``) with
:class:`~fortythieves_env.solver.SolverContext`, version 3's two passes (rollouts on half the
budget, then the depth-first search). :func:`~fortythieves_env.solver.solve` has had a third
pass since version 4, the beam search, between them. This probe asks, at the agent's node
caps (1,000 to 10,000), how many sampled positions each finds won and at what CPU cost.

Positions: the greedy player's games on the first ``--deals`` test deals of each variant;
every ``--every``-th move's player view among the first ``--moves`` (greedy games that
stall loop until the step limit: their later positions repeat), ``--samples`` samples
each (seeded). Each sample is
solved by ``solve(state, nodes=N, beam=False)`` (what the context runs) and ``beam=True``
(solve's default since version 4), N in ``--nodes``::

    python scripts/search/probes/beam_samples.py Indian Limited NumberTen RankAndFile \
        FortyThieves Streets Maria --deals 10

Writes ``results/search/probes/beam_samples/<variant>.json`` (settings, per-sample rows, a
summary per budget) and appends the command to ``command.txt`` there.
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
from fortythieves_agents.seeds import TEST_START as TEST_SEED_START

import fortythieves_env  # noqa: F401  (registers the ids)
from fortythieves_env import env_id, get_variant
from fortythieves_env.rules.view import determinize, player_view
from fortythieves_env.solver import solve

ROOT = Path(__file__).resolve().parents[3]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--deals", type=int, default=10)
    ap.add_argument("--every", type=int, default=15)
    ap.add_argument("--moves", type=int, default=300, help="positions from the first MOVES moves")
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--nodes", type=int, nargs="+", default=[1000, 3000, 10000])
    ap.add_argument("--out", type=Path, default=ROOT / "results/search/probes/beam_samples")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "command.txt", "a") as f:
        script = ["python", "scripts/search/probes/beam_samples.py"]
        f.write(shlex.join([*script, *portable_command(sys.argv[1:], ROOT)]) + "\n")
    for name in args.variants:
        spec = get_variant(name)
        env = gym.make(env_id(name))
        agent = GreedyAgent()
        rows = []
        for deal in range(args.deals):
            seed = TEST_SEED_START + deal
            obs, _ = env.reset(seed=seed)
            rng = np.random.default_rng(seed)
            t = 0
            done = False
            while not done and t < min(args.moves, spec.max_episode_steps):
                if t % args.every == 0:
                    view = player_view(spec, env.unwrapped.state)
                    for k in range(args.samples):
                        cards = rng.permutation(np.asarray(view.unseen)).tolist()
                        state = determinize(view, cards)
                        row = {"deal": seed, "move": t, "sample": k}
                        for n in args.nodes:
                            for beam in (False, True):
                                c0 = time.process_time()
                                r = solve(
                                    state,
                                    spec,
                                    nodes=n,
                                    step_limit=spec.max_episode_steps - t,
                                    beam=beam,
                                )
                                row[f"{'beam' if beam else 'v3'}_{n}"] = [
                                    r.status,
                                    r.nodes,
                                    round(time.process_time() - c0, 5),
                                ]
                        rows.append(row)
                action = agent.act(obs, env)
                obs, _, term, trunc, _ = env.step(action)
                done = term or trunc
                t += 1
        summary = {}
        for n in args.nodes:
            for kind in ("v3", "beam"):
                key = f"{kind}_{n}"
                summary[key] = {
                    "won": sum(r[key][0] == "won" for r in rows),
                    "lost": sum(r[key][0] == "lost" for r in rows),
                    "cpu_seconds": round(sum(r[key][2] for r in rows), 3),
                    "nodes": sum(r[key][1] for r in rows),
                }
        both = {
            f"only_beam_{n}": sum(
                r[f"beam_{n}"][0] == "won" and r[f"v3_{n}"][0] != "won" for r in rows
            )
            for n in args.nodes
        }
        both |= {
            f"only_v3_{n}": sum(
                r[f"v3_{n}"][0] == "won" and r[f"beam_{n}"][0] != "won" for r in rows
            )
            for n in args.nodes
        }
        out = {
            "variant": name,
            "settings": vars(args) | {"out": portable_path(args.out, ROOT)},
            "samples": len(rows),
            "summary": summary | both,
            "rows": rows,
        }
        (args.out / f"{name}.json").write_text(json.dumps(out, indent=1))
        print(name, len(rows), json.dumps(summary | both))


if __name__ == "__main__":
    main()
