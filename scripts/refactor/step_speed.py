"""Fixed work for timing two checkouts' environment steps side by side (issue 38, point 2):
one process per run, so that a timer of whole processes (``/usr/bin/time -v``) can compare

    PYTHONPATH=OLD_CHECKOUT python scripts/refactor/step_speed.py MODE VARIANT STEPS [LOG]
    PYTHONPATH=NEW_CHECKOUT python scripts/refactor/step_speed.py MODE VARIANT STEPS [LOG]

run in turn. MODE: ``single`` (``gymnasium.make`` of the variant's id), ``idle`` (the same
with ``max_steps_without_progress=50``), ``python`` (``backend="python"``), ``fsingle``
(``Family-v0`` with ``variant=``), ``vector`` and ``fvector`` (``FortyThievesVectorEnv`` and
``FamilyVectorEnv`` of 256 games). Single envs: a warm-up step, then STEPS steps of seeded
random legal play (``env.step`` and a uniform pick from ``info["action_mask"]``, resets
when an episode ends); batched envs: 5 warm-up steps, then STEPS // 256 calls of ``step``
with ``sample_legal``. Prints (and appends to LOG) the loop's steps per CPU-second.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import gymnasium as gym
import numpy as np

import fortythieves_env
from fortythieves_env import FortyThievesVectorEnv, env_id
from fortythieves_env.envs.family_vector import FamilyVectorEnv


def single(env: gym.Env, steps: int) -> float:
    """Steps per CPU-second of ``steps`` random legal steps."""
    _, info = env.reset(seed=1)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    uniforms = np.random.default_rng(0).random(steps).tolist()
    _, info = env.reset(seed=0)
    start = time.process_time()
    for u in uniforms:
        legal = np.flatnonzero(info["action_mask"].view(np.bool_))
        _, _, terminated, truncated, info = env.step(int(legal[int(u * len(legal))]))
        if terminated or truncated:
            _, info = env.reset()
    return steps / (time.process_time() - start)


def batched(envs: Any, steps: int) -> float:
    """Game steps per CPU-second of ``steps // N`` batched steps."""
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(5):
        envs.step(envs.sample_legal(rng))
    calls = steps // envs.num_envs
    start = time.process_time()
    for _ in range(calls):
        envs.step(envs.sample_legal(rng))
    return calls * envs.num_envs / (time.process_time() - start)


def main() -> None:
    mode, variant, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    makers = {
        "single": lambda: single(gym.make(env_id(variant)), steps),
        "idle": lambda: single(gym.make(env_id(variant), max_steps_without_progress=50), steps),
        "python": lambda: single(gym.make(env_id(variant), backend="python"), steps),
        "fsingle": lambda: single(gym.make(fortythieves_env.FAMILY_ENV_ID, variant=variant), steps),
        "vector": lambda: batched(FortyThievesVectorEnv(variant, 256), steps),
        "fvector": lambda: batched(FamilyVectorEnv(variant, 256), steps),
    }
    rate = makers[mode]()
    if len(sys.argv) > 4:
        with open(sys.argv[4], "a", encoding="utf-8") as log:
            log.write(f"{mode} {variant} {rate:.0f}\n")
    print(f"{mode} {variant} {rate:.0f} steps per CPU-second")


if __name__ == "__main__":
    main()
