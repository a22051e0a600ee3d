"""Network + search against the search alone, deal by deal (issue 26: "network plus search
at play time beats the search alone at equal seconds per move").

Reads an ``evaluate --per-episode`` report of the guided search (``search+network``) and the
search alone's games at the same budget on the same deals from the budget curve
(``results/search/budget_curve/curve.json``), and prints (or writes with ``--json``) the wins of
each on the common deals, the deals only one of them won, and the seconds per move.

    python benchmarks/prior_vs_search.py results/search/prior/NumberTen-50-s0.1-ppo-top3.json \\
        --json results/search/prior/NumberTen-50-s0.1-ppo-top3-vs-search.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

CURVE = Path(__file__).resolve().parents[1] / "results" / "search" / "budget_curve" / "curve.json"


def compare(report_path: Path, curve_path: Path = CURVE) -> dict[str, object]:
    """The comparison (see the module docstring).

    Raises:
        SystemExit: the report has no ``search+network`` per-episode rows, or the curve no
            point of the search alone at the report's budget covering its deals.
    """
    report = json.loads(report_path.read_text(encoding="utf-8"))
    guided = report["results"].get("search+network", {})
    rows = guided.get("per_episode")
    if not rows:
        raise SystemExit(f"{report_path}: no search+network per-episode rows (--per-episode)")
    budget = guided["settings"]["budget_seconds_per_move"]
    curve = json.loads(curve_path.read_text(encoding="utf-8"))
    points = [
        p
        for p in curve["points"]
        if p["variant"] == report["variant"]
        and p["agent"] == "search"
        and p["budget_seconds"] == budget
    ]
    alone = {g["seed"]: g for p in points for g in p["games"]}
    missing = [r["seed"] for r in rows if r["seed"] not in alone]
    if missing:
        raise SystemExit(
            f"{curve_path}: the search alone at {budget} s has no game of deals {missing}"
        )
    both = [(r, alone[r["seed"]]) for r in rows]
    seconds = sum(g["seconds"] for _, g in both)
    moves = sum(g["length"] for _, g in both)
    return {
        "variant": report["variant"],
        "budget_seconds_per_move": budget,
        "prior": guided["settings"].get("prior"),
        "prior_top": guided["settings"].get("prior_top"),
        "prior_weight": guided["settings"].get("prior_weight", 0.0),
        "deals": len(both),
        "search_plus_network_wins": sum(r["won"] for r, _ in both),
        "search_alone_wins": sum(g["won"] for _, g in both),
        "only_search_plus_network": [r["seed"] for r, g in both if r["won"] and not g["won"]],
        "only_search_alone": [r["seed"] for r, g in both if g["won"] and not r["won"]],
        "search_plus_network_seconds_per_move": report["timing"]["search+network"][
            "seconds_per_move"
        ],
        "search_alone_seconds_per_move": round(seconds / max(moves, 1), 6),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("--curve", type=Path, default=CURVE)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    out = compare(args.report, args.curve)
    text = json.dumps(out, indent=2) + "\n"
    if args.json:
        args.json.write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
