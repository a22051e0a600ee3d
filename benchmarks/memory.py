"""Memory of one environment and of one position, per variant and backend.

- ``env``: bytes allocated (``tracemalloc``) by making an environment (after a first one of
  the same variant, so shared tables and compiled kernels are not counted), resetting it and
  playing 50 random masked steps.
- ``pickled env``: ``len(pickle.dumps(env))``.
- ``position``: the rule book's position dict as JSON, and pickled; the engine's
  ``GameState`` pickled.

Usage::

    python -m benchmarks.memory
    python -m benchmarks.memory --backend python --variants NumberTen
"""

from __future__ import annotations

import argparse
import json
import pickle
import tracemalloc

import numpy as np

import fortythieves_env
from fortythieves_env import FortyThievesEnv


def play(env: FortyThievesEnv, steps: int = 50) -> None:
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if term or trunc:
            break


def measure(variant: str, backend: str) -> dict[str, int]:
    play(FortyThievesEnv(variant, backend=backend))  # warm: shared tables, kernels
    tracemalloc.start()
    env = FortyThievesEnv(variant, backend=backend)
    play(env)
    env_bytes, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    position = env.get_state()
    return {
        "env": env_bytes,
        "pickled env": len(pickle.dumps(env)),
        "position JSON": len(json.dumps(position)),
        "position pickled": len(pickle.dumps(position)),
        "GameState pickled": len(pickle.dumps(env.state)),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", nargs="+", default=list(fortythieves_env.VARIANTS))
    parser.add_argument("--backend", default="auto", choices=["auto", "numba", "python"])
    args = parser.parse_args(argv)
    rows = {v: measure(v, args.backend) for v in args.variants}
    keys = list(next(iter(rows.values())))
    print(f"bytes, backend={args.backend}")
    print(f"{'variant':<14}" + "".join(f"{k:>20}" for k in keys))
    for variant, row in rows.items():
        print(f"{variant:<14}" + "".join(f"{row[k]:>20,}" for k in keys))


if __name__ == "__main__":
    main()
