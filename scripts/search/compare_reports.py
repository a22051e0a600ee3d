"""Two evaluation reports of one agent, deal by deal: the same deals, two versions or settings.

Reads two ``fortythieves evaluate --per-episode --json`` reports (``NEW`` and ``OLD``) of
the same variant (the same id and no-cycling rule), takes the rows of ``--agent`` (default
``search``) on the deals both played, and writes (``--json``) or prints the wins of each,
the deals only one of them won with the two-sided exact sign test on those
(:func:`fortythieves_agents.evaluation.results.sign_test`), the games that ended stuck (the
no-cycling rule) and the mean foundation cards of each, and the seconds per move each report
timed. The per-deal rows (seed, won and stuck of each) are kept::

    python scripts/search/compare_reports.py results/search/Limited-200-s0.1.json \\
        results/search/before_dead_end/Limited-200-s0.1.json \\
        --json results/search/dead_end/Limited-200-s0.1-vs-before.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from fortythieves_agents.evaluation.results import sign_test
from fortythieves_agents.paths import portable_path


def _rows(path: Path, agent: str) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """The report and its ``agent``'s per-deal rows by seed; exits with a one-line message
    when the report has no such rows."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SystemExit(f"{path}: not a readable JSON report ({exc})") from None
    if not isinstance(report, dict) or not isinstance(report.get("results"), dict):
        raise SystemExit(f"{path}: not an evaluation report (no 'results' object)")
    result = report["results"].get(agent)
    if result is None:
        raise SystemExit(f"{path}: no agent {agent!r} (has: {sorted(report.get('results', {}))})")
    if "per_episode" not in result:
        raise SystemExit(f"{path}: no per-deal rows (made without --per-episode)")
    return report, {int(r["seed"]): r for r in result["per_episode"]}


def compare(new: Path, old: Path, agent: str = "search") -> dict[str, Any]:
    """The comparison of the module docstring, as a JSON-ready dict."""
    new_report, a = _rows(new, agent)
    old_report, b = _rows(old, agent)
    for key in ("variant", "env_id", "no_cycling"):
        if new_report.get(key) != old_report.get(key):
            raise SystemExit(
                f"the reports differ in {key}: {new_report.get(key)!r} and {old_report.get(key)!r}"
            )
    seeds = sorted(set(a) & set(b))
    if not seeds:
        raise SystemExit(f"{new} and {old} share no deal")
    only_new = sum(a[s]["won"] and not b[s]["won"] for s in seeds)
    only_old = sum(b[s]["won"] and not a[s]["won"] for s in seeds)

    def side(report: dict[str, Any], rows: dict[int, dict[str, Any]], path: Path) -> dict:
        timing = report.get("timing", {}).get(agent, {})
        return {
            "report": portable_path(path),
            "settings": report["results"][agent].get("settings"),
            "wins": sum(bool(rows[s]["won"]) for s in seeds),
            "stuck": sum(bool(rows[s].get("stuck")) for s in seeds),
            "mean_foundation_cards": round(
                sum(rows[s]["foundation_cards"] for s in seeds) / len(seeds), 2
            ),
            "seconds_per_move": timing.get("seconds_per_move"),
        }

    return {
        "variant": new_report["variant"],
        "agent": agent,
        "deals": len(seeds),
        "new": side(new_report, a, new),
        "old": side(old_report, b, old),
        "only_new_wins": only_new,
        "only_old_wins": only_old,
        "sign_test_p": float(f"{sign_test(only_new, only_old):.3g}"),
        "rows": [
            {
                "seed": s,
                "new_won": bool(a[s]["won"]),
                "old_won": bool(b[s]["won"]),
                "new_stuck": bool(a[s].get("stuck")),
                "old_stuck": bool(b[s].get("stuck")),
            }
            for s in seeds
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("new", type=Path, help="a report with per-deal rows")
    parser.add_argument("old", type=Path, help="the report to compare it with")
    parser.add_argument("--agent", default="search", help="the agent's name in both reports")
    parser.add_argument("--json", type=Path, help="write the comparison here")
    args = parser.parse_args(argv)
    for path in (args.new, args.old):
        if not path.is_file():
            parser.error(f"{path}: no such report")
    out = compare(args.new, args.old, args.agent)
    summary = {k: v for k, v in out.items() if k != "rows"}
    print(json.dumps(summary, indent=1))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
