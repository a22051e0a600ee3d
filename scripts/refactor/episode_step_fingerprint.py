"""A fingerprint of the episode step of all four environments, to show that a refactor of
the step (issue 38, point 2) changes no episode. Run it on two checkouts and compare:

    PYTHONPATH=OLD_CHECKOUT python scripts/refactor/episode_step_fingerprint.py
    PYTHONPATH=NEW_CHECKOUT python scripts/refactor/episode_step_fingerprint.py

It uses only ``fortythieves_env``'s public API (present in both). Each part plays seeded
games with mostly legal and some illegal actions (an illegal one every few steps), and
hashes every observation, mask, reward (its value and its Python type), terminated,
truncated and ``info`` entry:

* ``env``: ``FortyThievesEnv`` through ``gymnasium.make`` (``TimeLimit`` included), both
  backends, with and without ``max_steps_without_progress``; then ``illegal_action="raise"``
  (the message of every refused action);
* ``vector``: ``FortyThievesVectorEnv``, 6 games, both autoreset modes, a short step limit,
  with and without ``max_steps_without_progress`` (``final_obs`` and ``final_info`` too);
* ``family``: ``FamilyEnv`` on every variant and on the training distribution, shared
  actions the rule set lacks among the illegal ones;
* ``family_vector``: ``FamilyVectorEnv``, as ``vector``.

Prints one sha256 per part and variant, then one over everything.
"""

from __future__ import annotations

import argparse
import hashlib
from typing import Any

import gymnasium as gym
import numpy as np

import fortythieves_env
from fortythieves_env import VARIANTS, FortyThievesVectorEnv, env_id
from fortythieves_env.envs.family_env import FamilyEnv
from fortythieves_env.envs.family_vector import FamilyVectorEnv


def _update(h: Any, *values: Any) -> None:
    for v in values:
        if isinstance(v, np.ndarray):
            h.update(f"{v.dtype}{v.shape}".encode())
            h.update(v.tobytes() if v.dtype != object else repr(v.tolist()).encode())
        elif isinstance(v, dict):
            for key in sorted(v):
                h.update(key.encode())
                _update(h, v[key])
        else:
            h.update(f"{type(v).__name__}:{v!r}".encode())


def _pick(mask: np.ndarray, rng: np.random.Generator, step: int) -> int:
    """A legal action, or every 7th step any action (mostly illegal)."""
    if step % 7 == 3:
        return int(rng.integers(mask.size))
    legal = np.flatnonzero(mask)
    return int(legal[int(rng.integers(legal.size))]) if legal.size else 0


def single(make: Any, deals: int, steps: int, h: Any) -> int:
    """Play ``deals`` games of ``make()`` for at most ``steps`` steps each."""
    env = make()
    rng = np.random.default_rng(7)
    n = 0
    for seed in range(deals):
        obs, info = env.reset(seed=seed)
        _update(h, obs, info)
        for step in range(steps):
            a = _pick(info["action_mask"], rng, step)
            obs, reward, terminated, truncated, info = env.step(a)
            _update(h, a, obs, reward, terminated, truncated, info)
            if hasattr(env.unwrapped, "steps_without_progress"):
                _update(h, env.unwrapped.steps_without_progress)
            n += 1
            if terminated or truncated:
                break
    env.close()
    return n


def refusals(make: Any, h: Any) -> None:
    """``illegal_action="raise"``: the message of each refused action of one game."""
    env = make()
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    for step in range(150):
        a = _pick(info["action_mask"], rng, step)
        try:
            obs, reward, terminated, truncated, info = env.step(a)
        except fortythieves_env.IllegalMoveError as exc:
            _update(h, str(exc))
            continue
        _update(h, obs, reward, terminated, truncated)
        if terminated or truncated:
            break
    env.close()


def batched(envs: Any, steps: int, h: Any) -> int:
    """Play ``steps`` batched steps (``sample_legal``, with illegal actions mixed in)."""
    rng = np.random.default_rng(11)
    obs, info = envs.reset(seed=5)
    _update(h, obs, info)
    n = envs.num_envs
    for step in range(steps):
        actions = envs.sample_legal(rng)
        if step % 5 == 2:
            wild = rng.integers(envs.single_action_space.n, size=n)
            pick = rng.random(n) < 0.5
            actions[pick] = wild[pick]
        obs, rewards, terminated, truncated, info = envs.step(actions)
        _update(h, actions, obs, rewards, terminated, truncated, info)
    return steps * n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--steps", type=int, default=400, help="steps per game at most")
    args = parser.parse_args()
    print(f"fortythieves_env from {fortythieves_env.__file__}")
    total = hashlib.sha256()
    for variant in VARIANTS:
        parts = {name: hashlib.sha256() for name in ("env", "vector", "family", "family_vector")}
        count = 0
        for backend in ("numba", "python"):
            for idle in (None, 12):
                count += single(
                    lambda v=variant, b=backend, i=idle: gym.make(
                        env_id(v), backend=b, max_steps_without_progress=i
                    ),
                    args.deals,
                    args.steps,
                    parts["env"],
                )
        refusals(lambda v=variant: gym.make(env_id(v), illegal_action="raise"), parts["env"])
        for mode in ("NextStep", "SameStep"):
            for idle in (None, 12):
                envs = FortyThievesVectorEnv(
                    variant,
                    6,
                    autoreset_mode=mode,
                    max_episode_steps=90,
                    max_steps_without_progress=idle,
                    win_bonus=5.0,
                )
                count += batched(envs, args.steps // 2, parts["vector"])
                fam = FamilyVectorEnv(
                    variant,
                    6,
                    autoreset_mode=mode,
                    max_episode_steps=90,
                    max_steps_without_progress=idle,
                    illegal_action_penalty=0.25,
                )
                count += batched(fam, args.steps // 2, parts["family_vector"])
        for idle in (None, 12):
            count += single(
                lambda v=variant, i=idle: FamilyEnv(
                    v, max_steps_without_progress=i, max_episode_steps=150
                ),
                args.deals,
                args.steps,
                parts["family"],
            )
        refusals(lambda v=variant: FamilyEnv(v, illegal_action="raise"), parts["family"])
        digests = {name: h.hexdigest() for name, h in parts.items()}
        for d in digests.values():
            total.update(d.encode())
        print(
            f"{variant:13s} steps {count:7d}  "
            + "  ".join(f"{name} {d[:16]}" for name, d in digests.items())
        )
    sampled = hashlib.sha256()
    count = single(lambda: FamilyEnv(max_steps_without_progress=12), 12, args.steps, sampled)
    count += batched(FamilyVectorEnv(None, 8, max_episode_steps=120), args.steps, sampled)
    total.update(sampled.hexdigest().encode())
    print(f"{'training':13s} steps {count:7d}  sampled {sampled.hexdigest()[:16]}")
    print(f"all {total.hexdigest()}")


if __name__ == "__main__":
    main()
