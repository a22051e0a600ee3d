"""A fingerprint of the solver's answers (status, nodes, line, proof) on the first 4 test deals
of every variant at 300,000 nodes, to show a refactor of the solver changes nothing. Run it on
two checkouts and compare the digests:

    PYTHONPATH=CHECKOUT python scripts/refactor/solver_fingerprint.py
"""

from __future__ import annotations

import hashlib

import gymnasium as gym

from fortythieves_env import VARIANTS, env_id
from fortythieves_env.solver import solve

total = hashlib.sha256()
for v in VARIANTS:
    env = gym.make(env_id(v))
    h = hashlib.sha256()
    for seed in range(2000000000, 2000000004):
        env.reset(seed=seed)
        r = solve(env.unwrapped.get_state(), nodes=300_000)
        h.update(repr((r.status, r.nodes, r.moves, r.proof)).encode())
    print(v, h.hexdigest()[:16], flush=True)
    total.update(h.hexdigest().encode())
print("all", total.hexdigest())
