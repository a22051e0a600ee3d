"""A fingerprint of the rules' behaviour, to show a refactor of the rules core changes no game
(issue 27, point 4). Run it on two checkouts and compare the printed digests:

    PYTHONPATH=OLD_CHECKOUT python scripts/refactor/rules_core_fingerprint.py
    PYTHONPATH=NEW_CHECKOUT python scripts/refactor/rules_core_fingerprint.py

It uses only ``fortythieves_env``'s public API (present in both). Per variant:

* ``games``: the first ``--deals`` deals played through ``gymnasium.make`` (TimeLimit
  included) by the greedy rule (``backend="numba"``) and by a seeded random player
  (``backend="python"``): every observation, mask, reward, terminated, truncated and info;
* ``reasons``: ``Rules.why_illegal`` of every action in every 100th position of those games;
* ``solver``: ``solve`` of the first 10 deals at 20,000 nodes: status, nodes, moves.

Prints one sha256 per part and variant, then one over everything.
"""

from __future__ import annotations

import argparse
import hashlib
import json

import gymnasium as gym
import numpy as np

import fortythieves_env
from fortythieves_env import VARIANTS, env_id

try:  # the rules core's public name (an older checkout has only the private one)
    from fortythieves_env.rules.core import H_NACT, tables_for
except ImportError:
    from fortythieves_env._fast import H_NACT, tables_for
from fortythieves_env.rules.greedy import greedy_pick
from fortythieves_env.solver import solve


def play(variant: str, deals: int, greedy: bool, h: hashlib._Hash, r: hashlib._Hash) -> int:
    env = gym.make(env_id(variant), backend="numba" if greedy else "python")
    base = env.unwrapped
    rules = base.rules
    tables = tables_for(VARIANTS[variant])
    legal = np.empty(int(tables.table[H_NACT]), dtype=np.int64)
    rng = np.random.default_rng(1)
    steps = 0
    for seed in range(deals):
        obs, info = env.reset(seed=seed)
        h.update(obs.tobytes() + info["action_mask"].tobytes())
        done = False
        while not done:
            mask = info["action_mask"]
            acts = np.flatnonzero(mask)
            if greedy:
                st = tables.pack(base.state)
                legal[: acts.size] = acts
                a = int(greedy_pick(st, tables.table, legal, acts.size, np.empty(0)))
            else:
                a = int(acts[int(rng.integers(acts.size))])
            if steps % 100 == 0:
                state = base.state
                reasons = [rules.why_illegal(state, b) for b in range(rules.n_actions)]
                r.update(json.dumps(reasons).encode())
            obs, reward, terminated, truncated, info = env.step(a)
            h.update(obs.tobytes() + info["action_mask"].tobytes())
            h.update(
                repr((a, float(reward), terminated, truncated, info["foundation_cards"])).encode()
            )
            h.update(repr((info["is_success"], info["illegal_action"])).encode())
            done = terminated or truncated
            steps += 1
    env.close()
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--solved", type=int, default=10)
    args = parser.parse_args()
    print(f"fortythieves_env from {fortythieves_env.__file__}")
    total = hashlib.sha256()
    for variant in VARIANTS:
        games, reasons, solver = hashlib.sha256(), hashlib.sha256(), hashlib.sha256()
        steps = play(variant, args.deals, True, games, reasons)
        steps += play(variant, args.deals, False, games, reasons)
        env = gym.make(env_id(variant))
        for seed in range(args.solved):
            env.reset(seed=seed)
            result = solve(env.unwrapped.get_state(), nodes=20_000)
            solver.update(repr((result.status, result.nodes, result.moves)).encode())
        env.close()
        parts = [games.hexdigest(), reasons.hexdigest(), solver.hexdigest()]
        for part in parts:
            total.update(part.encode())
        print(
            f"{variant:13s} steps {steps:7d}  games {parts[0][:16]}  reasons {parts[1][:16]}  "
            f"solver {parts[2][:16]}"
        )
    print(f"all {total.hexdigest()}")


if __name__ == "__main__":
    main()
