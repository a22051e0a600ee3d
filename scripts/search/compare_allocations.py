"""Sequential halving against the UCB1 bandit at equal nodes per move (issue 40, point 2).

Plays the first ``--deals`` test deals of a variant with the search agent's solving setting
once per setting of ``--allocations`` (default ``halving ucb``): ``halving``
(``allocation="halving"``), ``ucb`` (``allocation="ucb"``, the candidate moves as arms) and
``ucb-irreversible`` (``allocation="ucb", arms="irreversible"``: lonelybot's arms, the first
irreversible moves reachable through reversible play,
:mod:`fortythieves_agents.players.search_arms`) and ``halving-learned`` (``halving`` with
``leaf="learned"``: the learned value for the samples the solver leaves unknown, issue 40,
point 3, :mod:`fortythieves_agents.players.search_leaf`), with the same seed, seconds (turned into
nodes at the fixed rate) and node cap per sample, so that every move has the same budget of
solves under all (:func:`fortythieves_agents.players.search_ucb.ucb_pulls`)::

    python scripts/search/compare_allocations.py Indian --deals 100
    python scripts/search/compare_allocations.py Indian --deals 100 \
        --allocations halving ucb-irreversible

Each deal is played by :func:`~fortythieves_agents.evaluation.evaluate.play_deals` as
``evaluate`` plays it (game index = deal index, the no-cycling rule on). The solver's work is
metered by wrapping the variant's solver context (the nodes each solve really entered, which
a solve that ends early keeps below its cap) and the time by ``time.process_time`` (CPU) and
``time.perf_counter`` (wall).

Written to ``--out`` (default ``results/search/allocations/<variant>-<deals>-s<seconds>``,
followed by ``-<setting>_<setting>...`` for settings other than the default pair):
``deals.json`` (the settings, one row per deal and setting, and the summary: wins of each,
for each other setting against the first the two-sided exact sign test on the deals only one
of the two won, foundation cards, nodes, solves and seconds per move) after every deal, so a
stopped run continues where it stopped (the settings must match), and ``command.txt`` (one
line per start).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
ALLOCATIONS = ("halving", "ucb", "ucb-irreversible", "halving-learned")
"""The settings ``--allocations`` takes (:func:`budget_for`)."""
DEFAULT_ALLOCATIONS = ("halving", "ucb")


class _Meter:
    """A solver context that counts the solves and the nodes they entered."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.step_limit = inner.step_limit
        self.nodes = 0
        self.solves = 0

    def run(self, st: np.ndarray, nodes: int, step_limit: int | None = None) -> Any:
        solved = self.inner.run(st, nodes, step_limit)
        self.nodes += solved.nodes
        self.solves += 1
        return solved


_PLAY_KEYS = ("won", "foundation_cards", "moves", "stuck", "nodes", "solves", "cpu_seconds")
"""What :func:`_play` records of a deal (a row reused by ``--reuse`` must have them all)."""


def _play(variant: str, deal: int, seed: int, budget: Any, agent_seed: int) -> dict[str, Any]:
    """One deal with one budget: the result, the solver's work and the time."""
    from fortythieves_agents.evaluation.evaluate import play_deals
    from fortythieves_agents.players import search_scores
    from fortythieves_agents.players.search import SearchAgent

    from fortythieves_env import env_id, get_variant

    var = search_scores._variant(get_variant(variant))
    inner = var.context()
    meter = _Meter(inner)
    var._context = meter  # metered for this deal only
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        agent = SearchAgent(agent_seed, budget)
        (result,) = play_deals(agent, env_id(variant), [seed], first_game=deal)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        var._context = inner
    return {
        "won": bool(result.won),
        "foundation_cards": int(result.foundation_cards),
        "moves": int(result.length),
        "stuck": bool(result.stuck),
        "nodes": meter.nodes,
        "solves": meter.solves,
        "cpu_seconds": round(cpu, 3),
        "wall_seconds": round(wall, 3),
    }


def budget_for(name: str, args: argparse.Namespace) -> Any:
    """The :class:`~fortythieves_agents.players.search.SearchBudget` of setting ``name`` (one
    of :data:`ALLOCATIONS`) at ``args``' seconds, nodes and bandit constants."""
    from fortythieves_agents.players.search import SearchBudget

    common = {"method": "solve", "seconds": args.seconds, "nodes": args.nodes}
    if name.startswith("halving"):
        leaf = "learned" if name == "halving-learned" else "cards"
        return SearchBudget(**common, allocation="halving", leaf=leaf)
    return SearchBudget(
        **common,
        allocation="ucb",
        ucb_c=args.ucb_c,
        ucb_batch=args.ucb_batch,
        ucb_plays=args.ucb_plays,
        arms="irreversible" if name == "ucb-irreversible" else "moves",
    )


def summarize(
    rows: list[dict[str, Any]], names: tuple[str, ...] = DEFAULT_ALLOCATIONS
) -> dict[str, Any]:
    """Wins of each setting of ``names``, the sign test of each against the first and the
    work per move over ``rows``."""
    from fortythieves_agents.evaluation.results import sign_test

    out: dict[str, Any] = {"deals": len(rows)}
    for name in names:
        played = [r[name] for r in rows]
        moves = max(1, sum(p["moves"] for p in played))
        out[name] = {
            "wins": sum(p["won"] for p in played),
            "mean_foundation_cards": round(
                sum(p["foundation_cards"] for p in played) / max(1, len(played)), 2
            ),
            "nodes_per_move": round(sum(p["nodes"] for p in played) / moves, 1),
            "solves_per_move": round(sum(p["solves"] for p in played) / moves, 2),
            "cpu_seconds_per_move": round(sum(p["cpu_seconds"] for p in played) / moves, 4),
            "wall_seconds_per_move": round(sum(p["wall_seconds"] for p in played) / moves, 4),
        }
    first = names[0]
    for name in names[1:]:
        only = sum(r[name]["won"] and not r[first]["won"] for r in rows)
        only_first = sum(r[first]["won"] and not r[name]["won"] for r in rows)
        out[f"{name} vs {first}"] = {
            f"{name}_only_wins": only,
            f"{first}_only_wins": only_first,
            "sign_test_p": round(sign_test(only, only_first), 4),
        }
    return out


def _reused(
    args: argparse.Namespace,
    settings: dict[str, Any],
    names: tuple[str, ...],
    seeds: Any,
    budgets: dict[str, Any],
    parser: argparse.ArgumentParser,
) -> dict[int, dict[str, Any]]:
    """The rows of ``--reuse``'s file for the settings of ``names`` it holds, by deal; its
    first ``--verify`` deals of each are played again and must give the same game (won,
    foundation cards, moves), else the command stops with an error."""
    try:
        other = json.loads(args.reuse.read_text())
    except (OSError, ValueError) as exc:
        parser.error(f"argument --reuse: cannot read {args.reuse}: {exc}")
    theirs = other.get("settings") if isinstance(other, dict) else None
    theirs = theirs if isinstance(theirs, dict) else {}
    for key in ("variant", "seconds_per_move", "nodes_per_sample", "seed"):
        if theirs.get(key) != settings[key]:
            parser.error(
                f"argument --reuse: {key} is {theirs.get(key)!r} there, {settings[key]!r} here"
            )
    found: dict[int, dict[str, Any]] = {}
    saved_rows = other.get("rows")
    for r in saved_rows if isinstance(saved_rows, list) else [None]:
        deal = r.get("deal") if isinstance(r, dict) else None
        ok = isinstance(deal, int) and 0 <= deal < len(seeds) and r.get("seed") == int(seeds[deal])
        played = {n: r[n] for n in names if n in r} if ok else {}
        if not ok or not all(
            isinstance(p, dict) and set(_PLAY_KEYS) <= set(p) for p in played.values()
        ):
            shown = repr(r)[:120]
            parser.error(
                f"argument --reuse: {args.reuse} holds a row that is no saved deal: {shown}"
            )
        found[deal] = played
    kept = {n for r in found.values() for n in r}
    for name in sorted(kept):
        for deal in range(min(args.verify, args.deals)):
            if name not in found.get(deal, {}):
                continue
            again = _play(args.variant, deal, int(seeds[deal]), budgets[name], args.seed)
            saved = found[deal][name]
            same = all(again[k] == saved[k] for k in ("won", "foundation_cards", "moves"))
            if not same:
                parser.error(
                    f"argument --reuse: deal {deal} with {name} plays differently today "
                    f"({again['foundation_cards']} cards in {again['moves']} moves, saved "
                    f"{saved['foundation_cards']} in {saved['moves']}): play it again"
                )
            print(f"--reuse: deal {deal} with {name} replayed: the same game", flush=True)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variant", help="a registered variant, e.g. Indian")
    parser.add_argument("--deals", type=int, default=100, help="the first N test deals")
    parser.add_argument("--seconds", type=float, default=0.1, help="budget per move")
    parser.add_argument("--nodes", type=int, default=1_000, help="node cap per solve")
    parser.add_argument("--seed", type=int, default=0, help="the agent's seed")
    parser.add_argument("--ucb-c", type=float, default=2.0)
    parser.add_argument("--ucb-batch", type=int, default=10)
    parser.add_argument("--ucb-plays", type=int, default=3_000)
    parser.add_argument(
        "--allocations",
        nargs="+",
        choices=ALLOCATIONS,
        default=list(DEFAULT_ALLOCATIONS),
        help="the settings compared, the first against each other (default: halving ucb)",
    )
    parser.add_argument(
        "--reuse",
        type=Path,
        help="a deals.json of an earlier run (same variant, seconds, nodes, seed): its rows "
        "of the settings it has are taken instead of playing them again, after replaying "
        "the first --verify deals of each and finding them equal",
    )
    parser.add_argument("--verify", type=int, default=2, help="deals replayed with --reuse")
    parser.add_argument("--out", type=Path, help="default results/search/allocations/...")
    args = parser.parse_args(argv)
    names = tuple(dict.fromkeys(args.allocations))
    if len(names) < 2:
        parser.error("argument --allocations: at least two different settings")

    from fortythieves_agents.paths import portable_command
    from fortythieves_agents.seeds import seeds_for_test

    from fortythieves_env import VARIANTS

    if args.variant not in VARIANTS:
        parser.error(f"argument variant: one of {', '.join(VARIANTS)}, got {args.variant!r}")
    try:
        budgets = {name: budget_for(name, args) for name in names}
        seeds = seeds_for_test(args.deals)
    except ValueError as exc:
        parser.error(str(exc))
    suffix = "" if names == DEFAULT_ALLOCATIONS else "-" + "_".join(names)
    out = args.out or ROOT / "results" / "search" / "allocations" / (
        f"{args.variant}-{args.deals}-s{args.seconds:g}{suffix}"
    )
    out.mkdir(parents=True, exist_ok=True)
    settings = {
        "variant": args.variant,
        "deals": args.deals,
        "seconds_per_move": args.seconds,
        "nodes_per_sample": args.nodes,
        "seed": args.seed,
        "ucb": {"c": args.ucb_c, "batch": args.ucb_batch, "plays": args.ucb_plays},
        "allocations": list(names),
    }
    reused = _reused(args, settings, names, seeds, budgets, parser) if args.reuse else {}
    if args.reuse:
        settings["reused"] = {
            "file": portable_command([str(args.reuse)], ROOT)[0],
            "settings": sorted({n for r in reused.values() for n in r}),
            "verified_deals": args.verify,
        }
    path = out / "deals.json"
    rows: list[dict[str, Any]] = []
    if path.is_file():
        saved = json.loads(path.read_text())
        # a file written before --allocations existed compared the default pair
        saved["settings"].setdefault("allocations", list(DEFAULT_ALLOCATIONS))
        if saved["settings"] != settings:
            parser.error(f"{path} holds other settings: {saved['settings']}")
        rows = saved["rows"]
    command = shlex.join(
        ["python", "scripts/search/compare_allocations.py", *portable_command(sys.argv[1:], ROOT)]
    )
    with (out / "command.txt").open("a") as f:
        f.write(command + "\n")
    for deal in range(len(rows), args.deals):
        row: dict[str, Any] = {"deal": deal, "seed": int(seeds[deal])}
        for name in names:
            if name in reused.get(deal, {}):
                row[name] = reused[deal][name]
            else:
                row[name] = _play(args.variant, deal, int(seeds[deal]), budgets[name], args.seed)
        rows.append(row)
        summary = summarize(rows, names)
        path.write_text(
            json.dumps({"settings": settings, "summary": summary, "rows": rows}, indent=1)
        )
        played = ", ".join(
            f"{name} {'won' if row[name]['won'] else row[name]['foundation_cards']} "
            f"({row[name]['moves']} moves, {row[name]['cpu_seconds']:.1f} s)"
            for name in names
        )
        wins = " / ".join(str(summary[name]["wins"]) for name in names)
        print(f"deal {deal}: {played}; wins {wins}", flush=True)
    summary = summarize(rows, names)
    # the settings and the summary as this version writes them (a finished file read again)
    path.write_text(json.dumps({"settings": settings, "summary": summary, "rows": rows}, indent=1))
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
