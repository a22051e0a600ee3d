"""Steps per second of random masked play, for every variant, through the public Gymnasium API.

Each step is what a training loop pays: ``env.step`` (through ``gymnasium.make``'s wrappers)
returning the observation and ``info["action_mask"]``, plus a uniform pick among the legal
actions; episodes are reset when they end (resets are counted in the time, not as steps).

Usage::

    python benchmarks/env_throughput.py                 # all variants, 20,000 steps each
    python benchmarks/env_throughput.py --steps 100000 --variants FortyThieves Streets
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import fortythieves_env


def measure(variant: str, steps: int, seed: int) -> tuple[float, int]:
    """Return (steps per second, episodes finished) for ``steps`` random masked steps."""
    env = gym.make(fortythieves_env.env_id(variant))
    uniforms = np.random.default_rng(seed).random(steps).tolist()
    _, info = env.reset(seed=seed)
    episodes = 0
    start = time.perf_counter()
    for u in uniforms:
        legal = np.flatnonzero(info["action_mask"])
        _, _, terminated, truncated, info = env.step(int(legal[int(u * len(legal))]))
        if terminated or truncated:
            episodes += 1
            _, info = env.reset()
    elapsed = time.perf_counter() - start
    return steps / elapsed, episodes


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--variants",
        nargs="+",
        default=list(fortythieves_env.VARIANTS),
        choices=list(fortythieves_env.VARIANTS),
        metavar="VARIANT",
    )
    parser.add_argument("--steps", type=int, default=20_000, help="steps per variant")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"{'variant':<14}{'steps/s':>10}{'us/step':>10}{'episodes':>10}")
    for variant in args.variants:
        rate, episodes = measure(variant, args.steps, args.seed)
        print(f"{variant:<14}{rate:>10,.0f}{1e6 / rate:>10.1f}{episodes:>10}")


if __name__ == "__main__":
    main()
