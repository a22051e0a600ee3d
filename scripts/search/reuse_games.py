"""Keep the search's saved games that the dead-end rule does not change; replay only the others.

The search agent is deterministic: its move in a position depends on the deal, its seed, the
view and the views met before (``fortythieves_agents.players.search``, "Randomness"). The
dead-end rule (:func:`fortythieves_agents.players.search_arms.is_dead_end`) changes its
scores in one way only: a column-to-column move that turns up no card and leads into a dead
end is lowered below every other move. Lowering moves other than the one played leaves the
one played first among the moves into new views (its score is unchanged, no other rose), so
the game goes on as saved; so does it where the move played went into a dead end but every
other legal move is lowered too (by either rule: the moves into new views keep their order).
A game saved by the search before the rule is therefore the very game the search with the
rule plays, up to the first move it played into a dead end while some other move was
lowered by neither rule, where the rule makes it choose another; a game with no such move
(every won game: a dead end is lost) is played again move for move.

For a folder of game records of the search before the rule (``--save-games DIR``'s
``DIR/search``), this script finds in each game that first changed move, copies the
games with none into ``OUT`` (a new ``--save-games`` folder's ``search`` part) and lists the
others: ``fortythieves evaluate search ... --save-games OUT_PARENT --resume`` then plays only
those, with the rule, and its report is the one a run from scratch would write (same
settings). ``--check NEW`` verifies the argument on games the search with the rule played
from scratch (``NEW``: their records): each equals the saved game move for move where that
had no changed move, and up to the first one (and not at it) where it had.

Writes ``OUT/../reuse.json`` (every old game: seed, moves, the first changed move or None,
copied or not; with ``--check`` the check's rows) and prints the counts::

    python scripts/search/reuse_games.py results/search/records/Limited-100-s1/search \\
        runs/dead-end/Limited-100-s1/search
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
from fortythieves_agents.paths import portable_path
from fortythieves_agents.players.search_scores import _demote_repeats, view_digest

from fortythieves_env import FortyThievesEnv
from fortythieves_env.records.record import GameRecord, RecordError, load_record
from fortythieves_env.rules.core import tables_for, view_hash
from fortythieves_env.rules.positions import from_position
from fortythieves_env.rules.view import player_view


def first_changed_move(record: GameRecord) -> int | None:
    """The index of the first move of ``record`` that the rule changes, as the search sees
    it: a move the search's own demotion (``_demote_repeats`` of
    :mod:`fortythieves_agents.players.search_scores`, given the views met then, the current
    one included) lowers while some other legal move is not lowered; None when there is
    none. (The move played never went back into a view met, so it is lowered only as a
    move into a dead end; where every legal move is lowered, the moves into new views keep
    their order and the one played stays first among them.)"""
    spec = record.variant
    tables = tables_for(spec)
    env = FortyThievesEnv(spec)
    env.reset(options={"state": record.start})
    seen: set[tuple[int, int]] = set()
    views: set[int] = set()
    for k, move in enumerate(record.moves):
        state = from_position(spec, env.get_state())
        view = player_view(spec, state)
        seen.add(view_digest(view))
        views.add(int(view_hash(tables.pack(state), tables.table)))
        mask = env.action_masks()
        scores = np.where(mask, 0.0, -np.inf)
        _demote_repeats(spec, view, scores, seen, 1.0, views)
        action = env.move_to_action(move)
        if scores[action] < 0 and np.any(scores == 0.0):
            return k
        env.step(action)
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="game records of the search before the rule")
    parser.add_argument("out", type=Path, help="where the unchanged games go (a new folder)")
    parser.add_argument("--check", type=Path, help="records of the search with the rule")
    args = parser.parse_args(argv)
    files = sorted(args.old.glob("*.json"))
    if not files:
        parser.error(f"{args.old}: no game records (*.json) there")
    if args.out.name != "search":
        parser.error(f"{args.out}: must be a --save-games folder's search part (.../search)")
    if args.out.exists() and any(args.out.iterdir()):
        parser.error(f"{args.out}: exists and is not empty")
    if args.out.resolve().is_relative_to(args.old.resolve()):
        parser.error(f"{args.out}: inside the folder of the old records")
    olds = {}
    for path in files:
        try:
            record = load_record(path)
        except (RecordError, OSError, ValueError) as exc:
            parser.error(f"{path}: not a game record ({exc})")
        if record.agent.get("name") != "search":
            parser.error(f"{path}: a game of {record.agent.get('name')!r}, not of the search")
        olds[path] = record
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    for path, record in olds.items():
        k = first_changed_move(record)
        if k is None:
            shutil.copy2(path, args.out / path.name)
        rows.append(
            {
                "variant": record.variant.id,
                "seed": record.source["value"],
                "won": bool(record.outcome["won"]),
                "stuck": bool(record.outcome["stuck"]),
                "moves": len(record.moves),
                "first_changed_move": k,
                "copied": k is None,
            }
        )
    report: dict[str, Any] = {
        "old": portable_path(args.old),
        "games": len(rows),
        "copied": sum(r["copied"] for r in rows),
        "to_replay": [f"{r['variant']}-{r['seed']}" for r in rows if not r["copied"]],
        "rows": rows,
    }
    if args.check:
        by_deal = {(r["variant"], r["seed"]): r for r in rows}
        old_by_deal = {(r.variant.id, r.source["value"]): r for r in olds.values()}
        checked = []
        for path in sorted(args.check.glob("*.json")):
            new = load_record(path)
            deal = (new.variant.id, new.source["value"])
            if deal not in old_by_deal:
                continue
            old, k = old_by_deal[deal], by_deal[deal]["first_changed_move"]
            if k is None:
                same = new.moves == old.moves
            else:
                same = new.moves[:k] == old.moves[:k] and (
                    len(new.moves) <= k or new.moves[k] != old.moves[k]
                )
            checked.append(
                {"variant": deal[0], "seed": deal[1], "first_changed_move": k, "as_argued": same}
            )
        report["check"] = {
            "folder": portable_path(args.check),
            "games": len(checked),
            "as_argued": sum(c["as_argued"] for c in checked),
            "rows": checked,
        }
    out = args.out.parent / "reuse.json"
    out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"{report['copied']} of {report['games']} games copied to {args.out}; "
          f"{len(report['to_replay'])} to play again: {report['to_replay']}")  # fmt: skip
    if args.check:
        c = report["check"]
        print(f"check: {c['as_argued']} of {c['games']} new games as argued")
    print(f"wrote {out}")
    return 0 if not args.check or report["check"]["as_argued"] == report["check"]["games"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
