"""Solver probe: ``probe.py VARIANTS DEALS NODES [SECONDS]`` solves the first DEALS test
deals of each variant (comma-separated) in one process and prints one line per variant:
per-deal answers (w/l/u), which pass found each win (r: rollouts, s: search), counts."""

from __future__ import annotations

import sys
import time

import gymnasium as gym

from fortythieves_env import env_id
from fortythieves_env.solver import solve

variants = sys.argv[1].split(",")
deals, nodes = int(sys.argv[2]), int(sys.argv[3])
cap = float(sys.argv[4]) if len(sys.argv) > 4 else None
for variant in variants:
    env = gym.make(env_id(variant))
    env.reset(seed=0)
    solve(env.unwrapped.get_state(), variant, nodes=1)  # compile first
    start = time.perf_counter()
    answers, finders, slowest = [], [], 0.0
    for i in range(deals):
        env.reset(seed=2_000_000_000 + i)
        r = solve(env.unwrapped.get_state(), variant, nodes=nodes, seconds=cap)
        answers.append(r.status[0])
        finders.append(r.found_by[:1] or "-")
        slowest = max(slowest, r.seconds)
    took = time.perf_counter() - start
    counts = " ".join(f"{s} {answers.count(s[0])}" for s in ("won", "lost", "unknown"))
    print(
        variant, "".join(answers), "".join(finders), counts,
        f"{took:.1f}s (max {slowest:.1f}s per deal)", flush=True,
    )  # fmt: skip
