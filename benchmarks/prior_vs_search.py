"""Network + search against the search alone, deal by deal (issue 26: "network plus search
at play time beats the search alone at equal seconds per move").

Reads an ``evaluate --per-episode`` report of the guided search (``search+network``) and the
search alone's games at the same budget on the same deals from the budget curve
(``results/search/budget_curve/curve.json``), and prints (or writes with ``--json``) the wins of
each on the common deals, the deals only one of them won, and the seconds per move.

    python -m benchmarks.prior_vs_search results/search/prior/NumberTen-50-s0.1-ppo-top3.json \\
        --json results/search/prior/NumberTen-50-s0.1-ppo-top3-vs-search.json

For a variant the curve does not cover, ``--alone-games DIR`` reads the search alone's games
from the game records of ``scripts/search/run_eval.sh`` (``runs/search-eval/<V>-200-s0.1/search``),
or ``--alone-report FILE`` from its report's per-deal rows (``evaluate --per-episode``; a file
that can be committed, where the game records stay on the machine that played them).

The output gives the two-sided exact sign test's p-value over the deals only one of the two
won (``sign_test_p``: :func:`fortythieves_agents.evaluation.results.sign_test`).

``--pool A.json B.json ...`` pools pairings this script wrote on disjoint deal ranges (a
confirmatory run's on later test deals, ``evaluate --first-deal``, beside the first deals')
into one sign test over all their deals, the same network, setting and budget in each:

    python -m benchmarks.prior_vs_search --pool \\
        results/search/prior/RankAndFile-200-s0.1-finetuned-w0.02-vs-search.json \\
        results/search/confirm/RankAndFile-200from200-s0.1-finetuned-w0.02-vs-search.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from fortythieves_agents.evaluation.results import sign_test
from fortythieves_agents.seeds import TEST_START

CURVE = Path(__file__).resolve().parents[1] / "results" / "search" / "budget_curve" / "curve.json"


def alone_from_games(folder: Path, variant: str, budget: float) -> dict[int, dict[str, object]]:
    """The search alone's games by deal seed from a folder of game records
    (``evaluate --save-games DIR``'s ``DIR/search``), as ``{"won", "length", "seconds"}``
    (``seconds`` None: records do not time the moves).

    Raises:
        SystemExit: a record of another variant, agent or budget.
    """
    games: dict[int, dict[str, object]] = {}
    for path in sorted(folder.glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        settings = record["agent"].get("settings", {})
        if (
            record["variant"]["id"] != variant
            or record["agent"]["name"] != "search"
            or settings.get("budget_seconds_per_move") != budget
        ):
            raise SystemExit(f"{path}: not the search alone at {budget} s per move on {variant}")
        outcome = record["outcome"]
        games[record["source"]["value"]] = {
            "won": outcome["won"],
            "length": outcome["length"],
            "seconds": None,
        }
    return games


PRIOR_KEYS = ("prior", "prior_top", "prior_weight")
"""The guided search's settings that the search alone has not."""


def alone_from_report(
    path: Path, variant: str, budget: float, settings: dict[str, Any] | None = None
) -> tuple[dict[int, dict[str, object]], float | None]:
    """The search alone's games by deal seed from the per-deal rows of its evaluation report
    (``evaluate search --per-episode --json``), as :func:`alone_from_games` gives them, and
    its seconds per move over all the report's deals (None: the report has no timing).

    Raises:
        SystemExit: the report is refused by the leaderboard's checks (a report on later test
            deals, ``evaluate --first-deal``, is read here all the same), is of another variant,
            has no ``search`` agent at ``budget`` s per move, no per-deal rows, or another value
            of a key of the guided search's ``settings`` (but its name and the prior's keys).
    """
    from fortythieves_agents.evaluation.leaderboard import ReportError, read_report

    try:
        report = read_report(path, variant=variant, agent="search", later_deals=True)
    except ReportError as exc:
        raise SystemExit(str(exc)) from None
    search = report["results"]["search"]
    if search.get("settings", {}).get("budget_seconds_per_move") != budget:
        raise SystemExit(f"{path}: not the search alone at {budget} s per move on {variant}")
    own = search.get("settings", {})
    differ = sorted(
        k for k in (settings or {}) if k not in ("name", *PRIOR_KEYS) and own.get(k) != settings[k]
    )
    if differ:
        raise SystemExit(
            f"{path}: the search alone's settings differ from the guided one's: {differ}"
        )
    rows = search.get("per_episode")
    if not rows:
        raise SystemExit(f"{path}: no per-deal rows of the search (evaluate --per-episode)")
    games = {r["seed"]: {"won": r["won"], "length": r["length"], "seconds": None} for r in rows}
    timing = (report.get("timing") or {}).get("search")
    return games, None if timing is None else timing["seconds_per_move"]


def compare(
    report_path: Path,
    curve_path: Path = CURVE,
    alone_games: Path | None = None,
    alone_report: Path | None = None,
) -> dict[str, object]:
    """The comparison (see the module docstring); with ``alone_games`` the search alone's
    games are read from that folder of game records (:func:`alone_from_games`), with
    ``alone_report`` from that report's per-deal rows (:func:`alone_from_report`), instead of
    the curve.

    Raises:
        SystemExit: the report has no ``search+network`` per-episode rows, or the curve (or
            the folder) no game of the search alone at the report's budget on one of its deals.
    """
    try:
        report = json.loads(report_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SystemExit(f"{report_path}: not a readable report ({exc})") from None
    guided = report["results"].get("search+network", {})
    rows = guided.get("per_episode")
    if not rows:
        raise SystemExit(f"{report_path}: no search+network per-episode rows (--per-episode)")
    seeds = [r["seed"] for r in rows]
    if len(set(seeds)) != len(seeds):
        raise SystemExit(f"{report_path}: a deal has two search+network rows")
    budget = guided["settings"]["budget_seconds_per_move"]
    if alone_report is not None:
        games, seconds = alone_from_report(
            alone_report, report["variant"], budget, guided["settings"]
        )
        return _pairing(report, rows, games, alone_report, seconds)
    if alone_games is not None:
        return _pairing(
            report, rows, alone_from_games(alone_games, report["variant"], budget), alone_games
        )
    curve = json.loads(curve_path.read_text(encoding="utf-8"))
    points = [
        p
        for p in curve["points"]
        if p["variant"] == report["variant"]
        and p["agent"] == "search"
        and p["budget_seconds"] == budget
    ]
    alone = {g["seed"]: g for p in points for g in p["games"]}
    return _pairing(report, rows, alone, curve_path)


def _pairing(
    report: dict[str, Any],
    rows: list[dict[str, Any]],
    alone: dict[int, Any],
    source: Path,
    alone_seconds: float | None = None,
) -> dict[str, object]:
    """The comparison of the guided search's ``rows`` with the search alone's games by seed
    (read from ``source``; ``alone_seconds`` its seconds per move where the games are not
    timed one by one).

    Raises:
        SystemExit: a deal of ``rows`` has no game of the search alone.
    """
    guided = report["results"]["search+network"]
    budget = guided["settings"]["budget_seconds_per_move"]
    missing = [r["seed"] for r in rows if r["seed"] not in alone]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise SystemExit(
            f"{source}: the search alone at {budget} s has no game of {len(missing)} of the "
            f"guided search's {len(rows)} deals (seed {missing[0]}{more}; it has "
            f"{_span(list(alone))})"
        )
    both = [(r, alone[r["seed"]]) for r in rows]
    timed = all(g["seconds"] is not None for _, g in both)
    seconds = sum(g["seconds"] for _, g in both) if timed else None
    moves = sum(g["length"] for _, g in both)
    only_guided = [r["seed"] for r, g in both if r["won"] and not g["won"]]
    only_alone = [r["seed"] for r, g in both if g["won"] and not r["won"]]
    if seconds is not None:
        alone_seconds = round(seconds / max(moves, 1), 6)
    return {
        "variant": report["variant"],
        "budget_seconds_per_move": budget,
        "prior": guided["settings"].get("prior"),
        "prior_top": guided["settings"].get("prior_top"),
        "prior_weight": guided["settings"].get("prior_weight", 0.0),
        "deals": len(both),
        "first_seed": min(r["seed"] for r, _ in both),
        "search_plus_network_wins": sum(r["won"] for r, _ in both),
        "search_alone_wins": sum(g["won"] for _, g in both),
        "only_search_plus_network": only_guided,
        "only_search_alone": only_alone,
        "sign_test_p": round(sign_test(len(only_guided), len(only_alone)), 6),
        "search_plus_network_seconds_per_move": report["timing"]["search+network"][
            "seconds_per_move"
        ],
        "search_alone_seconds_per_move": alone_seconds,
    }


def _span(seeds: list[int]) -> str:
    """Deal seeds in a few words: ``200 deals, seeds 2000000200..2000000399``."""
    if not seeds:
        return "no deals"
    return f"{len(seeds)} deals, seeds {min(seeds)}..{max(seeds)}"


SAME_KEYS = ("variant", "budget_seconds_per_move", "prior", "prior_top", "prior_weight")
"""What the pairings pooled by :func:`pool` must share."""


def pool(paths: list[Path]) -> dict[str, object]:
    """One pairing over the deals of several (this script's ``--json`` files on disjoint
    ranges of test deals: ``first_seed``, else the first test deal, and ``deals``): their
    wins summed, their lists of deals only one won joined, the sign test over all of them.

    Raises:
        SystemExit: fewer than two files, a file unreadable or without the pairing keys,
            pairings of another variant, budget or prior (:data:`SAME_KEYS`), or two whose
            deal ranges overlap: one line naming the file.
    """
    if len(paths) < 2:
        raise SystemExit("--pool: give at least two pairing files")
    pairings = []
    for path in paths:
        try:
            pairing = json.loads(path.read_text(encoding="utf-8"))
            first = int(pairing.get("first_seed", TEST_START))
            span = range(first, first + int(pairing["deals"]))
            only = (pairing["only_search_plus_network"], pairing["only_search_alone"])
            wins = (pairing["search_plus_network_wins"], pairing["search_alone_wins"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise SystemExit(f"{path}: not a pairing of this script ({exc})") from None
        if not all(isinstance(s, int) and s in span for s in [*only[0], *only[1]]):
            raise SystemExit(f"{path}: a deal only one won is outside its deals")
        pairings.append((path, pairing, span, only, wins))
    head = pairings[0][1]
    for path, pairing, span, _, _ in pairings:
        differ = [k for k in SAME_KEYS if pairing.get(k) != head.get(k)]
        if differ:
            raise SystemExit(f"{path}: differs from {paths[0]} in {differ}")
        for other, _, span2, _, _ in pairings:
            if other != path and range(max(span[0], span2[0]), min(span[-1], span2[-1]) + 1):
                raise SystemExit(f"{path}: its deals overlap those of {other}")
    guided = [s for *_, only, _ in pairings for s in only[0]]
    alone = [s for *_, only, _ in pairings for s in only[1]]
    return {
        **{k: head.get(k) for k in SAME_KEYS},
        "pooled": [str(p) for p in paths],
        "deal_ranges": [[span[0], span[-1]] for _, _, span, _, _ in pairings],
        "deals": sum(len(span) for _, _, span, _, _ in pairings),
        "search_plus_network_wins": sum(wins[0] for *_, wins in pairings),
        "search_alone_wins": sum(wins[1] for *_, wins in pairings),
        "only_search_plus_network": guided,
        "only_search_alone": alone,
        "sign_test_p": round(sign_test(len(guided), len(alone)), 6),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", type=Path, nargs="?")
    parser.add_argument("--curve", type=Path, default=CURVE)
    parser.add_argument(
        "--alone-games",
        type=Path,
        help="the search alone's game records (evaluate --save-games DIR: DIR/search) "
        "instead of the curve",
    )
    parser.add_argument(
        "--alone-report",
        type=Path,
        help="the search alone's evaluation report with per-deal rows (evaluate search "
        "--per-episode --json FILE) instead of the curve",
    )
    parser.add_argument(
        "--pool",
        type=Path,
        nargs="+",
        metavar="PAIRING",
        help="pool pairing files of this script on disjoint deals into one sign test "
        "(instead of REPORT)",
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if args.alone_games is not None and args.alone_report is not None:
        parser.error("give --alone-games or --alone-report, not both")
    if (args.report is None) == (args.pool is None):
        parser.error("give REPORT or --pool PAIRING ..., one of the two")
    if args.pool is not None:
        out = pool(args.pool)
    else:
        out = compare(args.report, args.curve, args.alone_games, args.alone_report)
    text = json.dumps(out, indent=2) + "\n"
    if args.json:
        args.json.write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
