"""Where the network and the search part ways in one expert iteration's labels: for each
labelled position, the kind of the search's move and of the network's (``draw``, ``redeal``,
``waste>foundation``, ``waste>column``, ``column>foundation``, ``column>column``; the action
table of ``docs/environment.md``), counted over the positions where they differ; and how far
apart the search valued the two moves there (:func:`value_gaps`: a search that values both
the same chose by its tie-break, not by what it saw). JSON to ``--out``.

    python scripts/expert/disagreements.py RUN --iteration 0 --games 32 \\
        --out results/expert/pilots/<name>-disagreements.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from fortythieves_agents.config import load_config
from fortythieves_agents.paths import portable_path
from fortythieves_agents.run_folder import ExpertFolder

from fortythieves_env import VARIANTS
from fortythieves_env.rules.actions import KIND_NAMES, ActionCodec, codec_for


def move_kind(action: int, codec: ActionCodec) -> str:
    """The kind of move of action index ``action`` (the codec's, :data:`KIND_NAMES`, as
    ``waste>column``)."""
    return KIND_NAMES[codec.decode(action).kind].replace(" to ", ">")


GAP_STEPS = (0.02, 0.05, 0.1)
"""The value gaps counted below (values are shares of the samples won, 0..1)."""


def value_gaps(values: np.ndarray, search: np.ndarray, network: np.ndarray) -> dict[str, object]:
    """How far apart the search valued its move and the network's.

    Args:
        values: ``(N, A)`` the search's value of each candidate move (NaN: not valued), the
            labels' ``values``.
        search, network: ``(N,)`` int, the search's and the network's moves.

    Raises:
        ValueError: a move outside the values' columns.

    Returns:
        ``differ``: positions where the moves differ; ``unvalued``: of those, where either
        move has no value; ``equal``: both valued the same; ``below``: per step of
        :data:`GAP_STEPS`, the search's move valued less than that above the network's
        (``equal`` included); ``search_lower``: the search's move valued below the network's
        (the search demotes a move back to a view already seen, whatever its value).
        ``top_two``: over all positions with two or more valued moves, how many, how many
        have the two best equal, and per step how many are closer than it. The labels keep
        values as float16 (steps of at most 0.0005 between 0.5 and 1), so "equal" is equal
        to that precision.
    """
    values = np.asarray(values, dtype=np.float64)
    search, network = np.asarray(search, dtype=np.int64), np.asarray(network, dtype=np.int64)
    if ((search < 0) | (network < 0) | (np.maximum(search, network) >= values.shape[1])).any():
        raise ValueError(f"value_gaps: a move outside 0..{values.shape[1] - 1}")
    rows = np.arange(len(search))
    differ = search != network
    vs, vn = values[rows, search], values[rows, network]
    both = differ & ~np.isnan(vs) & ~np.isnan(vn)
    gap = (vs - vn)[both]
    many = (~np.isnan(values)).sum(axis=1) >= 2
    ranked = -np.sort(-np.where(np.isnan(values[many]), -np.inf, values[many]), axis=1)
    top = ranked[:, 0] - ranked[:, 1] if many.any() else np.empty(0)
    return {
        "differ": int(differ.sum()),
        "unvalued": int(differ.sum() - both.sum()),
        "equal": int((gap == 0).sum()),
        "below": {str(step): int((gap < step).sum()) for step in GAP_STEPS},
        "search_lower": int((gap < 0).sum()),
        "top_two": {
            "positions": int(many.sum()),
            "equal": int((top == 0).sum()),
            "below": {str(step): int((top < step).sum()) for step in GAP_STEPS},
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--iteration", type=int, default=0)
    parser.add_argument("--games", type=int, required=True, help="the iteration's games")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    config = load_config(args.run / "config.yaml", [])
    codec = codec_for(VARIANTS[config.env.variant])
    folder = ExpertFolder(args.run / "expert")
    search_kinds: Counter[str] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    positions = 0
    values, searched, played = [], [], []
    for g in range(args.games):
        with np.load(folder.game(args.iteration, g)) as game:
            values.append(game["values"].astype(np.float64))
            searched.append(game["search_moves"])
            played.append(game["network_moves"])
            for s, n in zip(game["search_moves"], game["network_moves"], strict=True):
                positions += 1
                kind = move_kind(int(s), codec)
                search_kinds[kind] += 1
                if s != n:
                    pairs[(kind, move_kind(int(n), codec))] += 1
    report = {
        "run": portable_path(args.run),
        "variant": config.env.variant,
        "iteration": args.iteration,
        "games": args.games,
        "positions": positions,
        "agree": positions - sum(pairs.values()),
        "search_moves": dict(search_kinds.most_common()),
        "differ": [
            {"search": s, "network": n, "positions": c} for (s, n), c in pairs.most_common()
        ],
        "value_gaps": value_gaps(
            np.concatenate(values) if values else np.empty((0, codec.n_actions)),
            np.concatenate(searched) if searched else np.empty(0, dtype=np.int64),
            np.concatenate(played) if played else np.empty(0, dtype=np.int64),
        ),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"{positions} positions, {report['agree']} agree; differ most: {report['differ'][:3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
