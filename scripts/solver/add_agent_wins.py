"""Add the games agents won to the solver's results (issue 39, point 2: a won game is a proof).

Every game record under the given files or folders (``evaluate --save-games DIR``, ``play
--save FILE``) is replayed; each won game of a test deal is appended to
``<results-dir>/<Variant>.jsonl`` as a ``won`` record found by ``agent:NAME`` (solver version 0:
:func:`fortythieves_agents.evaluation.solve.agent_win_records`), unless the file already has
a ``won`` record of that deal under the current rules (the solver's or an agent's: one proof
is enough, and another would change no label). The labels then count it (won > lost >
unknown); the winnability table keeps the solver's own rows apart.

    python scripts/solver/add_agent_wins.py runs/search-eval/Streets-200
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fortythieves_agents.evaluation.solve import (
    SolverResultsError,
    agent_win_records,
    read_records,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="+", type=Path, help="game records or folders of them")
    parser.add_argument("--results-dir", type=Path, default=Path("results/solver"))
    args = parser.parse_args(argv)
    files = sorted(
        f for g in args.games for f in ([g] if g.is_file() else sorted(g.rglob("*.json")))
    )
    try:
        records = agent_win_records(files)
    except SolverResultsError as exc:
        print(f"add_agent_wins: {exc}", file=sys.stderr)
        return 2
    added = 0
    for record in records:
        path = args.results_dir / f"{record['variant']}.jsonl"
        have = read_records(path)[0] if path.exists() else []
        if any(
            r["variant"] == record["variant"]
            and r["seed"] == record["seed"]
            and r["status"] == "won"
            and r["rules_version"] == record["rules_version"]
            for r in have
        ):
            continue
        with path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")
        added += 1
    print(f"{len(files)} games read, {len(records)} won, {added} added")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
