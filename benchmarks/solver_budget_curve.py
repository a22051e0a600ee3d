"""The solver's budget curve (issue 39, point 1): deals won against the node budget, solver
version 4 beside version 3's passes, on the first 200 test deals of the hard variants.

Reads ``results/solver/budget_curve/<Variant>.jsonl`` (``scripts/solver/budget_curve.py``: 10**4,
10**5 and 10**6 nodes, ``v3`` = ``solve(..., beam=False)``, ``v4`` = ``solve``) and, for the
2 * 10**7 point, the main records ``results/solver/<Variant>.jsonl`` (solver versions 3 and 4 at
20,000,000 nodes). With ``--doc FILE`` it writes the table between
``<!-- solver-budget-curve:start -->`` and ``<!-- solver-budget-curve:end -->``
(``docs/solver.md``).

    python benchmarks/solver_budget_curve.py --doc docs/solver.md
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

START = "<!-- solver-budget-curve:start -->"
END = "<!-- solver-budget-curve:end -->"
VARIANTS = ("FortyThieves", "Streets", "Maria")
DEALS = 200
FIRST = 2_000_000_000


def _rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def table(root: Path = Path("results/solver")) -> str:
    """The Markdown table: one row per variant and budget; won (and proved lost) among the
    deals both versions solved (all 200 once the runs are done), and the mean CPU (curve)
    or wall (main run) seconds per deal."""
    lines = [
        "| variant | node budget | deals | v3 won | v3 lost | v4 won | v4 lost "
        "| v4 won by the beam | s per deal, v3 | v4 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for variant in VARIANTS:
        cells: dict[tuple[int, str], list[dict]] = defaultdict(list)
        for r in _rows(root / "budget_curve" / f"{variant}.jsonl"):
            if FIRST <= r["seed"] < FIRST + DEALS:
                cells[r["nodes_budget"], r["passes"]].append(r)
        for r in _rows(root / f"{variant}.jsonl"):
            main_run = r["nodes_budget"] == 20_000_000 and r["solver_version"] in (3, 4)
            if main_run and FIRST <= r["seed"] < FIRST + DEALS:
                cells[20_000_000, f"v{r['solver_version']}"].append(r)
        for budget in sorted({b for b, _ in cells}):
            v3, v4 = cells.get((budget, "v3"), []), cells.get((budget, "v4"), [])
            if v3 and v4:  # the deals both solved, side by side
                common = {r["seed"] for r in v3} & {r["seed"] for r in v4}
                v3 = [r for r in v3 if r["seed"] in common]
                v4 = [r for r in v4 if r["seed"] in common]
            deals = len({r["seed"] for r in v3 + v4})

            def count(rs: list[dict], status: str) -> str:
                return str(sum(r["status"] == status for r in rs)) if rs else "-"

            def secs(rs: list[dict]) -> str:
                if not rs:
                    return "-"
                key = "cpu_seconds" if "cpu_seconds" in rs[0] else "seconds"
                return f"{sum(r[key] for r in rs) / len(rs):.2f}"

            beam = sum(r["status"] == "won" and r["found_by"] == "beam" for r in v4)
            lines.append(
                f"| {variant} | {budget:,} | {deals} | {count(v3, 'won')} | {count(v3, 'lost')} "
                f"| {count(v4, 'won')} | {count(v4, 'lost')} | {beam if v4 else '-'} "
                f"| {secs(v3)} | {secs(v4)} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--doc", type=Path, help="write the table into this file")
    args = parser.parse_args(argv)
    text = table()
    if args.doc is None:
        print(text)
        return 0
    doc = args.doc.read_text(encoding="utf-8")
    head, _, rest = doc.partition(START + "\n")
    _, _, tail = rest.partition(END)
    if not rest or (not tail and END not in rest):
        raise SystemExit(f"{args.doc}: no {START} ... {END} block")
    args.doc.write_text(f"{head}{START}\n{text}\n{END}{tail}", encoding="utf-8")
    print(f"table written to {args.doc}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
