"""Greedy's Rank and File teacher games: their foundation cards, and how often greedy's best
score is shared by several moves (ties it breaks by the lowest action index).

    python scripts/training/probes/greedy_ties.py [KEY.SUB=VALUE ...]

e.g. ``teacher.no_cycling=true`` or ``env.max_steps_without_progress=null`` (config overrides
of ``configs/rankandfile.yaml``). Prints the teacher games' summary, the share of moves whose
best score is tied, the mean size of the tied set, and the agreement a clone that breaks the
ties at random would reach.
"""

from __future__ import annotations

import sys

import numpy as np
from fortythieves_agents.config import load_config
from fortythieves_agents.training.teacher import collect_teacher_games, make_teacher

from fortythieves_env.rules.variants import get_variant


def main(overrides: list[str]) -> None:
    config = load_config("configs/rankandfile.yaml", overrides)
    teacher = make_teacher("greedy", 0)
    data = collect_teacher_games(config, teacher, 200)
    print(overrides, data.summary())
    teacher.start_games(get_variant("RankAndFile"), np.arange(1))
    sizes = []
    for k in range(0, len(data), 4096):
        rows = np.arange(k, min(k + 4096, len(data)))
        masks = data.mask_rows(rows).astype(np.int8)
        scores = teacher.action_scores(data.obs[rows], masks, np.zeros(rows.size, np.int64))
        sizes.append((scores == scores.max(axis=1, keepdims=True)).sum(axis=1))
    tied = np.concatenate(sizes)
    print(
        f"moves {tied.size}, tied share {(tied > 1).mean():.4f}, mean tied set "
        f"{tied.mean():.2f}, agreement if ties broken at random {(1 / tied).mean():.4f}"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
