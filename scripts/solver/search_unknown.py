"""Does the solver find every deal a player finds? (issue 39, required goal)

The search agent (sees only the player's view; its default budget, 0.1 s per move) plays the
first N test deals of a variant that the solver's records do not show won (unknown or lost),
each as ``evaluate search --episodes N`` would play it (the same deal index seeds its samples).
Each game is saved as a record in ``OUT/<Variant>/search/`` as it ends (a re-run skips the deals
whose record is there); the won ones then go to the labels with
``scripts/solver/add_agent_wins.py`` (a won game is a proof). Deals the solver won need no
game: a deal the search wins there is already in the labels.

    python scripts/solver/search_unknown.py Streets Maria FortyThieves --deals 200 \\
        --out runs/search-unknown
"""

from __future__ import annotations

import argparse
from pathlib import Path

from fortythieves_agents.evaluation.evaluate import play_deals, save_record
from fortythieves_agents.evaluation.solve import solver_verdicts
from fortythieves_agents.players.search import SearchAgent
from fortythieves_agents.seeds import TEST_START, seeds_for_test

from fortythieves_env import env_id


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path("runs/search-unknown"))
    args = parser.parse_args(argv)
    for variant in args.variants:
        seeds = seeds_for_test(args.deals)
        verdicts = solver_verdicts(Path("results/solver") / f"{variant}.jsonl", variant, seeds)
        if verdicts is None:
            raise SystemExit(f"search_unknown: no solver record of some {variant} deal")
        todo = [s for s in seeds if verdicts[s] != "won"]
        folder = args.out / variant
        agent = SearchAgent(seed=0)
        won = played = 0
        for seed in todo:
            path = folder / agent.name / f"{variant}-{seed}.json"
            if path.exists():
                continue
            traces: list = []
            (result,) = play_deals(
                agent, env_id(variant), [seed], traces=traces, first_game=seed - TEST_START
            )
            save_record(folder, agent, env_id(variant), result, traces[0])
            played += 1
            won += result.won
            print(f"{variant} deal {seed - TEST_START}: {'won' if result.won else 'not won'}")
        print(f"{variant}: {len(todo)} deals not won by the solver, {played} played now, {won} won")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
