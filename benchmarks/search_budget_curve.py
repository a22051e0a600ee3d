"""Strength of the solving search agent against its time budget per move (issue 25, point 2).

For each variant and each budget (seconds per move), the search agent with
``SearchBudget(method="solve", seconds=B, nodes=N)`` (hindsight optimisation, see
:func:`agents.search.solve_scores`) plays the first ``--deals`` test deals (the deals of
``fortythieves evaluate``, with its no-cycling rule); greedy plays them too, once per
variant. Each point records the wins (with a Wilson 95% interval), the wins among the
deals the solver proved winnable (``results/solver/<variant>.jsonl``, when it covers the
deals), the mean foundation cards, and the cost: wall and CPU seconds per move played
(``time.perf_counter`` / ``time.process_time`` of this process, so on one core) with the
machine's load (1-minute average) before and after. The budget is turned into a node
count at a fixed rate (:data:`agents.search.NODES_PER_SECOND`), so the games do not depend
on the machine; the seconds really spent do, and are what the curve's second panel shows.

The JSON (``--json``) is written after every point and read back at the start: points
already in it (same variant, budget, deals, nodes and seed) are not played again, so an
interrupted run continues where it stopped. ``--png`` draws the curve from the JSON
(``--plot-only`` draws without playing).

Usage (the issue's curve: 100 deals of Number Ten and Forty Thieves at 0.01 to 10 s)::

    python benchmarks/search_budget_curve.py --variants NumberTen,FortyThieves \\
        --deals 100 --budgets 0.01,0.1,1,10 \\
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
from pathlib import Path
from typing import Any

import numpy as np

from agents.baselines import make_baseline
from agents.evaluation import EpisodeResult, ceiling_summary, play_deals, wilson_interval
from agents.search import DEFAULT_NODES, NODES_PER_SECOND, SearchAgent, SearchBudget
from agents.seeds import seeds_for_test
from agents.solve import test_deal_verdicts


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


def play_point(
    variant: str, budget: SearchBudget | None, deals: int, seed: int
) -> tuple[list[EpisodeResult], dict[str, float]]:
    """Play the deals with the search agent of ``budget`` (None: greedy); the cost."""
    agent = make_baseline("greedy") if budget is None else SearchAgent(seed, budget)
    seeds = [int(s) for s in seeds_for_test(deals)]
    load = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    results = play_deals(agent, f"FortyThieves/{variant}-v0", seeds)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    moves = max(1, sum(r.length for r in results))
    cost = {
        "seconds": wall,
        "cpu_seconds": cpu,
        "seconds_per_move": wall / moves,
        "cpu_seconds_per_move": cpu / moves,
        "load_before": load,
        "load_after": os.getloadavg()[0],
    }
    return results, cost


def key(point: dict[str, Any]) -> tuple[Any, ...]:
    """What makes two points the same measurement."""
    return (point["variant"], point["agent"], point["budget_seconds"], point["deals"],
            point["nodes_per_sample"], point["seed"])  # fmt: skip


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Play every missing point, saving the JSON after each; return the report."""
    report: dict[str, Any] = {"points": []}
    if args.json and args.json.is_file():
        report = json.loads(args.json.read_text())
    done = {key(p) for p in report["points"]}
    report["nodes_per_second"] = NODES_PER_SECOND
    report["cpus"] = os.cpu_count()
    for variant in args.variants.split(","):
        verdicts = test_deal_verdicts(variant, args.deals, args.solver_results)
        todo: list[tuple[str, float | None]] = [("greedy", None)]
        todo += [("search", float(b)) for b in args.budgets.split(",")]
        for agent, seconds in todo:
            nodes = args.nodes if agent == "search" else None
            point = {"variant": variant, "agent": agent, "budget_seconds": seconds,
                     "deals": args.deals, "nodes_per_sample": nodes, "seed": args.seed}  # fmt: skip
            if key(point) in done:
                print(f"{variant} {agent} {seconds}: in the report, skipped", flush=True)
                continue
            budget = None
            if seconds is not None:
                budget = SearchBudget(method="solve", seconds=seconds, nodes=args.nodes)
            results, cost = play_point(variant, budget, args.deals, args.seed)
            point.update(summarise(results, verdicts))
            point.update(cost)
            report["points"].append(point)
            done.add(key(point))
            proved = f"{point.get('wins_among_proved', '-')}/{point.get('solver_proved_won', '-')}"
            print(
                f"{variant} {agent} {seconds}: {point['wins']}/{point['deals']} won, proved "
                f"{proved}, {point['mean_foundation_cards']:.1f} cards, "
                f"{cost['seconds_per_move']:.4f} s/move "
                f"(load {cost['load_before']:.2f}-{cost['load_after']:.2f})",
                flush=True,
            )
            if args.json:
                args.json.parent.mkdir(parents=True, exist_ok=True)
                args.json.write_text(json.dumps(report, indent=2) + "\n")
    return report


def plot(report: dict[str, Any], path: Path) -> None:
    """Two panels: wins (of all deals and of the solver-proved wins) against the budget,
    and the measured seconds per move against the budget; greedy as a dashed line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    variants = list(dict.fromkeys(p["variant"] for p in report["points"]))
    caps = sorted({p["nodes_per_sample"] for p in report["points"] if p["agent"] == "search"})
    lines = [(v, n) for v in variants for n in caps]
    fig, (ax, cost) = plt.subplots(1, 2, figsize=(11, 4.2))
    for k, (variant, cap) in enumerate(lines):
        colour = f"C{k}"
        points = sorted(
            (
                p
                for p in report["points"]
                if p["variant"] == variant
                and p["agent"] == "search"
                and p["nodes_per_sample"] == cap
            ),
            key=lambda p: p["budget_seconds"],
        )
        if len(caps) > 1:
            variant = f"{variant}, {cap:,} nodes"
        x = [p["budget_seconds"] for p in points]
        if points:
            ax.plot(x, [100 * p["win_rate"] for p in points], "o-", color=colour,
                    label=f"{variant}: wins (% of deals)")  # fmt: skip
            lo = [100 * p["win_rate_ci95"][0] for p in points]
            hi = [100 * p["win_rate_ci95"][1] for p in points]
            ax.fill_between(x, lo, hi, color=colour, alpha=0.12)
            shares = [p.get("share_of_proved") for p in points]
            if all(s is not None for s in shares):
                ax.plot(x, [100 * s for s in shares], "s:", color=colour,
                        label=f"{variant}: wins (% of solver-proved wins)")  # fmt: skip
            cost.plot(x, [p["seconds_per_move"] for p in points], "o-", color=colour, label=variant)
        for p in report["points"]:
            if p["variant"] == variant.split(",")[0] and p["agent"] == "greedy" and cap == caps[0]:
                ax.axhline(100 * p["win_rate"], color=colour, ls="--", lw=1,
                           label=f"{variant.split(',')[0]}: greedy")  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlabel("budget (seconds per move, at the fixed node rate)")
    ax.set_ylabel("%")
    ax.set_title("search agent (solving sampled deals): wins")
    ax.legend(fontsize=7)
    budgets = sorted({p["budget_seconds"] for p in report["points"] if p["agent"] == "search"})
    if budgets:
        cost.plot(budgets, budgets, "k:", lw=1, label="the budget itself")
    cost.set_xscale("log")
    cost.set_yscale("log")
    cost.set_xlabel("budget (seconds per move)")
    cost.set_ylabel("measured wall seconds per move (one core)")
    cost.set_title("what the budget cost on this machine")
    cost.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default="NumberTen,FortyThieves")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--budgets", default="0.01,0.1,1,10", help="seconds per move")
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
        report = run(args)
    if args.png:
        plot(report, args.png)
        print(f"curve drawn to {args.png}")


if __name__ == "__main__":
    main()
