"""Greedy's Rank and File teacher games: their foundation cards, and how often greedy's best
score is shared by several moves (ties it breaks by the lowest action index).

    python results/training/probes/greedy_ties.py [--set-style overrides, e.g.
        teacher.no_cycling=true env.max_steps_without_progress=null]
"""
import sys, numpy as np
from agents.config import load_config
from agents.teacher import collect_teacher_games, make_teacher
from fortythieves_env.variants import get_variant
sets = sys.argv[1:]
cfg = load_config("configs/rankandfile.yaml", sets)
t = make_teacher("greedy", 0)
d = collect_teacher_games(cfg, t, 200)
print(sets, d.summary())
spec = get_variant("RankAndFile")
t.start_games(spec, np.arange(1))
ties = 0; n = 0; sizes = []
for k in range(0, len(d), 4096):
    rows = np.arange(k, min(k + 4096, len(d)))
    masks = d.mask_rows(rows).astype(np.int8)
    sc = t.action_scores(d.obs[rows], masks, np.zeros(len(rows), np.int64))
    best = sc.max(axis=1, keepdims=True)
    nb = (sc == best).sum(axis=1)
    sizes.append(nb)
sizes = np.concatenate(sizes)
print("rows", len(sizes), "tied share", (sizes > 1).mean(), "mean tied set", sizes.mean(), "expected acc if random among ties", (1 / sizes).mean())
