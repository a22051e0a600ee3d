"""Strength of the solving search agent against its time budget per move (issue 25, point 2).

For each variant and each budget (seconds per move), the search agent with
``SearchBudget(method="solve", seconds=B, nodes=N)`` (hindsight optimisation, see
:func:`fortythieves_agents.players.search.solve_scores`) plays the first test deals (the deals of
``fortythieves evaluate``, with its no-cycling rule): ``--deals`` of them, or the count
given with the budget (``--budgets 0.01,0.1,1:10,10:2``: 10 deals at 1 s, 2 at 10 s, since
a 10 s budget costs about an hour per deal of Number Ten on one core). Greedy plays
``--deals`` of them too. Each point records the wins (with a Wilson 95% interval), the wins
among the deals the solver proved winnable (``results/solver/<variant>.jsonl``), the mean
foundation cards, and the cost: wall and CPU seconds per move played (``time.perf_counter``
/ ``time.process_time`` of this process, so on one core) with the machine's load (1-minute
average) at the start of each deal. The budget is turned into a node count at a fixed rate
(:data:`fortythieves_agents.players.search.NODES_PER_SECOND`), so the games do not depend on the
machine; the seconds really spent do, and are what the curve's second panel shows.

Each deal is played alone as deal ``i`` of the list (the agent's choices equal those of
the whole list at once) and kept in the JSON (``--json``, rewritten after every deal,
atomically): a run cut at any time continues with the next deal, and a point asked for more
deals later is extended, not replayed. The points are filled cheapest first (greedy, then
the budgets in the order given, every variant at each). ``--png`` draws the curve from the
JSON (``--plot-only`` draws without playing). ``python -m fortythieves_agents.reports``
draws the saved curve (``results/search/budget_curve/curve.png``) and writes its points as a
table into ``docs/solver.md`` (:func:`fortythieves_agents.reports.solver.budget_curve_table`),
so the table is generated, never typed.

Usage (issue 25's curve: Number Ten and Forty Thieves at 0.01 to 10 s)::

    python -m benchmarks.search_budget_curve --variants NumberTen,FortyThieves \\
        --deals 100 --budgets 0.01,0.1,1:10,10:2 \\
        --json results/search/budget_curve/curve.json \\
        --png results/search/budget_curve/curve.png

A quick check that it runs: ``--deals 2 --budgets 0.001,0.01 --json /tmp/c.json
--png /tmp/c.png``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import numpy as np
from fortythieves_agents.envs import env_id_for
from fortythieves_agents.evaluation.evaluate import (
    EpisodeResult,
    ceiling_summary,
    play_deals,
    wilson_interval,
)
from fortythieves_agents.evaluation.solve import test_deal_verdicts
from fortythieves_agents.players.baselines import make_baseline
from fortythieves_agents.players.search import (
    DEFAULT_NODES,
    NODES_PER_SECOND,
    SearchAgent,
    SearchBudget,
)
from fortythieves_agents.reports.solver import plot_budget_curve
from fortythieves_agents.seeds import seeds_for_test

from fortythieves_env import RULES_VERSION
from fortythieves_env.solver import SOLVER_VERSION

EPISODE_FIELDS = [f.name for f in fields(EpisodeResult)]


def summarise(results: list[EpisodeResult], verdicts: dict[int, str] | None) -> dict[str, Any]:
    """Wins, their interval, the wins among the solver-proved wins, the mean cards."""
    n = len(results)
    wins = sum(r.won for r in results)
    lo, hi = wilson_interval(wins, n)
    out: dict[str, Any] = {
        "deals": n,
        "wins": wins,
        "win_rate": wins / n,
        "win_rate_ci95": [lo, hi],
        "mean_foundation_cards": float(np.mean([r.foundation_cards for r in results])),
        "moves": int(sum(r.length for r in results)),
    }
    if verdicts is not None:  # seed -> verdict
        ceiling = ceiling_summary(results, verdicts)
        out["solver_proved_won"] = ceiling["proved_won"]
        out["wins_among_proved"] = ceiling["wins_among_proved"]
        out["share_of_proved"] = ceiling["share_of_proved"] if ceiling["proved_won"] else None
    return out


def play_deal(variant: str, budget: SearchBudget | None, index: int, seed: int) -> dict[str, Any]:
    """Play test deal ``index`` alone with the search agent of ``budget`` (None: greedy),
    as deal ``index`` of a longer list (``play_deals(first_game=index)``: the agent's
    choices are those of the whole list played at once); its result and its cost."""
    agent = make_baseline("greedy") if budget is None else SearchAgent(seed, budget)
    deal = int(seeds_for_test(index + 1)[index])
    load = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    (result,) = play_deals(agent, env_id_for(variant), [deal], first_game=index)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {**asdict(result), "seconds": wall, "cpu_seconds": cpu, "load": load}


def key(point: dict[str, Any]) -> tuple[Any, ...]:
    """What makes two points the same measurement (their deals are the first test deals,
    as many as were played)."""
    return (point["variant"], point["agent"], point["budget_seconds"],
            point["nodes_per_sample"], point["seed"])  # fmt: skip


def parse_budgets(text: str, deals: int) -> list[tuple[float, int]]:
    """``"0.01,0.1,1:20,10:2"`` -> ``[(0.01, deals), (0.1, deals), (1.0, 20), (10.0, 2)]``:
    seconds per move, each with its own number of deals after a colon (default ``deals``).

    Raises:
        ValueError: an entry is not ``SECONDS`` or ``SECONDS:DEALS`` with positive numbers.
    """
    out = []
    for item in text.split(","):
        seconds, _, count = item.partition(":")
        try:
            b, n = float(seconds), int(count) if count else deals
        except ValueError:
            b, n = 0.0, 0
        if not (b > 0 and n > 0):
            raise ValueError(
                f"--budgets: {item!r} is not SECONDS or SECONDS:DEALS (positive numbers)"
            )
        out.append((b, n))
    return out


def search_budgets(args: argparse.Namespace) -> list[tuple[SearchBudget, int]]:
    """The search budget of each ``--budgets`` entry with its number of deals, all checked
    before any deal is played (a budget the search refuses, such as more seconds than
    :data:`fortythieves_agents.players.search.MAX_SECONDS`, or a bad ``--nodes``, would stop the run
    only after the cheaper points).

    Raises:
        ValueError: a bad entry or a budget the search refuses (the message starts
            ``--budgets:``).
    """
    out = []
    for seconds, deals in parse_budgets(args.budgets, args.deals):
        try:
            out.append((SearchBudget(method="solve", seconds=seconds, nodes=args.nodes), deals))
        except ValueError as exc:
            raise ValueError(f"--budgets: {seconds:g} s with --nodes {args.nodes}: {exc}") from None
    return out


MEASURE = {
    "nodes_per_second": NODES_PER_SECOND,
    "solver_version": SOLVER_VERSION,
    "rules_version": RULES_VERSION,
}
"""What the games of a saved JSON were played with, beside each point's key: the rate that
turns a budget into nodes, the solver's version and the rules. A JSON that records another
value is not extended (a JSON written before ``solver_version`` and ``rules_version`` were
recorded is taken as of the current ones)."""


def summarise_point(point: dict[str, Any], solver_results: str | None) -> None:
    """Recompute a point's summary and cost from its per-deal ``games`` (in place)."""
    games = point["games"]
    results = [EpisodeResult(**{f: g[f] for f in EPISODE_FIELDS}) for g in games]
    verdicts = test_deal_verdicts(point["variant"], len(games), solver_results)
    point.update(summarise(results, verdicts))
    moves = max(1, point["moves"])
    wall = sum(g["seconds"] for g in games)
    cpu = sum(g["cpu_seconds"] for g in games)
    loads = [g["load"] for g in games]
    point.update(
        {
            "seconds": wall,
            "cpu_seconds": cpu,
            "seconds_per_move": wall / moves,
            "cpu_seconds_per_move": cpu / moves,
            "load_min": min(loads),
            "load_max": max(loads),
        }
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Play every missing deal of every point, saving the JSON after each deal; return the
    report. Points are filled in order of cost (greedy, then the budgets as given), each up
    to its number of deals; a point already holding more deals keeps them."""
    budgets = search_budgets(args)
    report: dict[str, Any] = {"points": []}
    if args.json and args.json.is_file():
        report = json.loads(args.json.read_text())
        for field, value in MEASURE.items():
            if report.get(field, value) != value:
                raise ValueError(
                    f"{args.json}: its games were played with {field} {report[field]}, not "
                    f"{value}: they cannot be extended here (use another --json)"
                )
    points = {key(p): p for p in report["points"]}
    report.update(MEASURE)
    report["cpus"] = os.cpu_count()
    todo: list[tuple[str, SearchBudget | None, int]] = [("greedy", None, args.deals)]
    todo += [("search", b, n) for b, n in budgets]
    for agent, budget, deals in todo:  # the cheap points of every variant first
        seconds = None if budget is None else budget.seconds
        for variant in args.variants.split(","):
            nodes = args.nodes if agent == "search" else None
            point = {"variant": variant, "agent": agent, "budget_seconds": seconds,
                     "nodes_per_sample": nodes, "seed": args.seed, "games": []}  # fmt: skip
            point = points.setdefault(key(point), point)
            if point not in report["points"]:
                report["points"].append(point)
            for index in range(len(point["games"]), deals):
                point["games"].append(play_deal(variant, budget, index, args.seed))
                summarise_point(point, args.solver_results)
                if args.json:
                    args.json.parent.mkdir(parents=True, exist_ok=True)
                    tmp = args.json.with_suffix(".part")
                    tmp.write_text(json.dumps(report, indent=1) + "\n")
                    tmp.replace(args.json)  # a cut run never leaves half a file
            if not point["games"]:
                continue
            proved = f"{point.get('wins_among_proved', '-')}/{point.get('solver_proved_won', '-')}"
            print(
                f"{variant} {agent} {seconds}: {point['wins']}/{point['deals']} won, proved "
                f"{proved}, {point['mean_foundation_cards']:.1f} cards, "
                f"{point['seconds_per_move']:.4f} s/move "
                f"(load {point['load_min']:.2f}-{point['load_max']:.2f})",
                flush=True,
            )
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default="NumberTen,FortyThieves")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument(
        "--budgets",
        default="0.01,0.1,1,10",
        help="seconds per move, each as SECONDS or SECONDS:DEALS (its own number of deals)",
    )
    parser.add_argument("--nodes", type=int, default=DEFAULT_NODES, help="nodes per sample")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--solver-results", default=None, help="default: the shipped file")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--png", type=Path)
    parser.add_argument("--plot-only", action="store_true")
    args = parser.parse_args()
    if args.plot_only:
        if not (args.json and args.png):
            parser.error("--plot-only needs --json and --png")
        report = json.loads(args.json.read_text())
    else:
        try:
            search_budgets(args)
        except ValueError as exc:
            parser.error(str(exc))
        report = run(args)
    if args.png:
        plot_budget_curve(report, args.png)
        print(f"curve drawn to {args.png}")


if __name__ == "__main__":
    main()
