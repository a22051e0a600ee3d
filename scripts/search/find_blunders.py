"""Where an agent loses deals the clairvoyant solver wins: the move that threw each away.

For every lost game record of a folder (``fortythieves evaluate ... --save-games DIR``):

- **how it ended**: ``stuck`` (the agents' no-return rule: every legal move back into a
  view met), ``no_move`` (no legal move), ``truncated`` (the step limit);
- **the solver's verdicts** (``--nodes`` per solve, clairvoyant: it reads the stock's order
  and the face-down cards, and it does not know the no-return rule) of the start and of
  the final position;
- **the dead end** of a game that ended stuck: the move after which every game under the
  no-return rule was lost (:func:`fortythieves_agents.players.search_arms.is_dead_end` on
  each position with the views met before it), and how many moves were played in it;
- **the blunder** where the start is won and the final position lost: the positions after
  each move are bisected for the last one still proved won and the first one proved lost.
  Winnability only falls along a game (a lost position's successors are lost), so the move
  between them threw the deal away. A midpoint the solver leaves unknown is passed over for
  the nearest decided position between the bounds (of the :data:`PROBES` nearest); where
  none is decided the row keeps the bracket. Each position is solved for a win within the
  moves the episode had left.

A stuck game whose final position the solver wins lost to the no-return rule alone: the
solver's win goes back into a view met first.

Writes ``results/search/blunders/<name>.json`` (settings, a summary and one row per lost
game) and appends the command to ``results/search/blunders/command.txt``::

    python scripts/search/find_blunders.py results/search/records/Limited-100-s1/search
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from fortythieves_agents.paths import portable_path
from fortythieves_agents.players.search_arms import is_dead_end

from fortythieves_env import FortyThievesEnv
from fortythieves_env.records.record import GameRecord, RecordError, load_record
from fortythieves_env.rules.core import tables_for, view_hash
from fortythieves_env.rules.positions import from_position
from fortythieves_env.solver import solve

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "results" / "search" / "blunders"
PROBES = 6
"""Positions tried around a midpoint of the bisection before it stops at a bracket of
unknown verdicts."""


def move_kind(move: str) -> str:
    """The move's kind from its notation: ``draw``, ``w>f``, ``w>t``, ``t>f`` or ``t>t``
    (``redeal`` and anything else as written)."""
    if ">" not in move:
        return move
    src, dst = move.split(">", 1)
    return f"{src[0]}>{dst[0]}"


def positions(record: GameRecord) -> list[dict[str, Any]]:
    """The rule-book positions at the start and after each move of ``record``."""
    env = FortyThievesEnv(record.variant)
    env.reset(options={"state": record.start})
    states = [env.get_state()]
    for move in record.moves:
        env.step(env.move_to_action(move))
        states.append(env.get_state())
    return states


def dead_end_moves(record: GameRecord, states: list[dict[str, Any]]) -> int:
    """How many moves a game that ended stuck played inside its dead end: the earliest
    position from which every game under the no-return rule is lost (given the views met
    before it) is ``len(states) - 1`` minus this."""
    tables = tables_for(record.variant)
    packed = [tables.pack(from_position(record.variant, s)) for s in states]
    hashes = [int(view_hash(p, tables.table)) for p in packed]
    k = len(packed) - 1
    while k > 0 and is_dead_end(tables, packed[k - 1], set(hashes[: k - 1])):
        k -= 1
    return len(packed) - 1 - k


def find_blunder(record: GameRecord, nodes: int, bisect: bool = True) -> dict[str, Any]:
    """One lost game's row (module docstring; without ``bisect``, no blunder is looked
    for: the start's and the end's verdicts and the dead end only)."""
    states = positions(record)
    limit = record.step_limit or record.variant.max_episode_steps
    verdicts: dict[int, str] = {}
    first_moves: dict[int, str] = {}
    solve_nodes = 0

    def verdict(k: int) -> str:
        nonlocal solve_nodes
        if k not in verdicts:
            result = solve(states[k], record.variant, nodes=nodes, step_limit=max(limit - k, 0))
            verdicts[k] = result.status
            solve_nodes += result.nodes
            if result.moves:
                first_moves[k] = result.moves[0]
        return verdicts[k]

    outcome = record.outcome
    ended = "stuck" if outcome["stuck"] else "truncated" if outcome["truncated"] else "no_move"
    row: dict[str, Any] = {"seed": record.source["value"], "moves": len(record.moves)}
    row["ended"] = ended
    row["start"] = verdict(0)
    last = len(states) - 1
    row["end"] = verdict(last)
    if ended == "stuck":
        row["dead_end_moves"] = inside = dead_end_moves(record, states)
        # None: the deal was a dead end from its start (no move entered it)
        row["dead_end_entered_by"] = record.moves[last - inside - 1] if inside < last else None
    if bisect and row["start"] == "won":
        lo, hi = 0, (last if row["end"] == "lost" else None)
        if hi is not None:
            while hi - lo > 1:
                mid = (lo + hi) // 2
                order = sorted(range(lo + 1, hi), key=lambda k: (abs(k - mid), k))
                order = order[:PROBES]
                decided = next((k for k in order if verdict(k) != "unknown"), None)
                if decided is None:
                    break
                if verdicts[decided] == "won":
                    lo = decided
                else:
                    hi = decided
            row["last_won"], row["first_lost"] = lo, hi
            row["bracket_unknown"] = hi - lo > 1
            if hi - lo == 1:
                move = record.moves[lo]
                before = states[lo]
                row["blunder"] = move
                row["kind"] = move_kind(move)
                row["stock_left"] = len(before["stock"])
                row["foundation_cards"] = sum(len(f) for f in before["foundations"])
                row["solver_move"] = first_moves.get(lo, "")
    row["solves"] = len(verdicts)
    row["unknown"] = sum(v == "unknown" for v in verdicts.values())
    row["nodes"] = solve_nodes
    return row


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts over the rows: how the games ended, the verdicts of their starts and ends
    (also of the stuck games' ends), the moves played in the dead ends, the blunders found
    by kind, the stock left and the move number at each."""
    blunders = [r for r in rows if "blunder" in r]
    stuck = [r for r in rows if r["ended"] == "stuck"]
    return {
        "lost_games": len(rows),
        "ended": dict(Counter(r["ended"] for r in rows)),
        "start": dict(Counter(r["start"] for r in rows)),
        "end": dict(Counter(r["end"] for r in rows)),
        "stuck_end": dict(Counter(r["end"] for r in stuck)),
        "stuck_dead_end_moves": sorted(r["dead_end_moves"] for r in stuck),
        "blunders_found": len(blunders),
        "bracket_unknown": sum(bool(r.get("bracket_unknown")) for r in rows),
        "by_kind": dict(Counter(r["kind"] for r in blunders)),
        "stock_left": sorted(r["stock_left"] for r in blunders),
        "move_number": sorted(r["last_won"] + 1 for r in blunders),
        "played_the_solver_move": sum(r["blunder"] == r["solver_move"] for r in blunders),
    }


def load_records(files: list[Path], parser: argparse.ArgumentParser) -> list[GameRecord]:
    """The game records of ``files``, all of one variant; a file that is not one, or of
    another variant, stops the script with a one-line message before any work."""
    records = []
    for path in files:
        try:
            records.append(load_record(path))
        except (RecordError, OSError, ValueError) as exc:
            parser.error(f"{path}: not a game record ({exc})")
    variants = sorted({r.variant.id for r in records})
    if len(variants) > 1:
        parser.error(f"the records are of several variants ({', '.join(variants)}): one per run")
    return records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a folder of game records (JSON)")
    parser.add_argument("--nodes", type=int, default=2_000_000, help="node cap of each solve")
    parser.add_argument("--name", help="the output's name (default: the folder's parent's)")
    parser.add_argument("--out", type=Path, default=OUT, help="the folder written to")
    parser.add_argument(
        "--no-bisect",
        action="store_true",
        help="only the verdicts of each lost game's start and end and its dead end",
    )
    args = parser.parse_args(argv)
    if args.nodes < 1:
        parser.error(f"--nodes must be a positive integer, got {args.nodes}")
    files = sorted(args.folder.glob("*.json"))
    if not files:
        parser.error(f"{args.folder}: no game records (*.json) there")
    records = load_records(files, parser)
    lost = [r for r in records if not r.outcome["won"]]
    name = args.name or args.folder.resolve().parent.name
    started = time.process_time()
    rows = []
    for k, record in enumerate(lost, 1):
        rows.append(find_blunder(record, args.nodes, not args.no_bisect))
        r = rows[-1]
        print(f"{k}/{len(lost)} seed {r['seed']}: {r['ended']}, start {r['start']}, "
              f"end {r['end']}, blunder {r.get('blunder', '-')} at move "
              f"{r.get('last_won', -1) + 1} ({r['solves']} solves)", flush=True)  # fmt: skip
    report = {
        "folder": portable_path(args.folder),
        "records": len(records),
        "nodes": args.nodes,
        "bisect": not args.no_bisect,
        "cpu_seconds": round(time.process_time() - started, 1),
        "summary": summary(rows),
        "rows": rows,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"{name}.json"
    out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    with open(args.out / "command.txt", "a", encoding="utf-8") as log:
        log.write(shlex.join(["python", "scripts/search/find_blunders.py", *sys.argv[1:]]) + "\n")
    print(json.dumps(report["summary"]))
    print(f"wrote {portable_path(out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
