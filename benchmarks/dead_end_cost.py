"""What the search's dead-end check costs per decision, side by side with the check before it.

Replays saved games of the search (a folder of game records) and, at every position, runs the
search's no-return demotion (``_demote_repeats`` of
:mod:`fortythieves_agents.players.search_scores`) on all legal moves twice, in turn: without
the views met (the no-return check alone, as before the dead-end rule) and with them (also
:func:`~fortythieves_agents.players.search_arms.is_dead_end`). Prints, per folder, the CPU
milliseconds per position of each (``time.process_time``), their difference and how many
moves the second lowers::

    python -m benchmarks.dead_end_cost results/search/records/Limited-100-s1/search --games 25
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from fortythieves_agents.players.search_scores import _demote_repeats, _variant, view_digest

from fortythieves_env import FortyThievesEnv
from fortythieves_env.records.record import load_record
from fortythieves_env.rules.core import view_hash
from fortythieves_env.rules.positions import from_position
from fortythieves_env.rules.view import player_view


def measure(folder: Path, games: int) -> dict[str, float]:
    """CPU seconds of both checks over the positions of the first ``games`` records."""
    spent = {"before": 0.0, "with": 0.0}
    positions = lowered = 0
    for path in sorted(folder.glob("*.json"))[:games]:
        record = load_record(path)
        spec = record.variant
        var = _variant(spec)
        env = FortyThievesEnv(spec)
        env.reset(options={"state": record.start})
        seen: set[tuple[int, int]] = set()
        views: set[int] = set()
        for move in record.moves:
            state = from_position(spec, env.get_state())
            view = player_view(spec, state)
            seen.add(view_digest(view))
            views.add(int(view_hash(var.tables.pack(state), var.tables.table)))
            mask = env.action_masks()
            for key, given in (("before", None), ("with", views)):
                scores = np.where(mask, 0.0, -np.inf)
                start = time.process_time()
                _demote_repeats(spec, view, scores, seen, 10.0, given)
                spent[key] += time.process_time() - start
                if given is not None:
                    lowered += int(np.sum(scores < 0) - np.sum(scores == -np.inf))
            positions += 1
            env.step(env.move_to_action(move))
    return {**spent, "positions": positions, "lowered": lowered}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", type=Path, nargs="+", help="folders of the search's records")
    parser.add_argument("--games", type=int, default=25, help="records per folder (the first)")
    args = parser.parse_args(argv)
    for folder in args.folders:
        if not any(folder.glob("*.json")):
            parser.error(f"{folder}: no game records (*.json) there")
    for folder in args.folders:
        m = measure(folder, args.games)
        n = max(m["positions"], 1)
        before, after = 1000 * m["before"] / n, 1000 * m["with"] / n
        print(f"{folder}: {m['positions']} positions; CPU ms per position: no-return check "
              f"{before:.3f}, with the dead-end check {after:.3f} (+{after - before:.3f}); "
              f"moves lowered with it: {m['lowered']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
