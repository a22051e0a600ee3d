"""Where the network and the search part ways in one expert iteration's labels: for each
labelled position, the kind of the search's move and of the network's (``draw``, ``redeal``,
``waste>foundation``, ``waste>column``, ``column>foundation``, ``column>column``; the action
table of ``docs/environment.md``), counted over the positions where they differ. JSON to
``--out``.

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
    for g in range(args.games):
        with np.load(folder.game(args.iteration, g)) as game:
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
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"{positions} positions, {report['agree']} agree; differ most: {report['differ'][:3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
