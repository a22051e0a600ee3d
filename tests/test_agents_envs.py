"""The vectorised training environments hand masks to MaskablePPO without extra round trips."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

import fortythieves_env
from agents.envs import VecMasksFromInfo


def _factory(variant: str) -> object:
    def make() -> gym.Env:
        return gym.make(fortythieves_env.env_id(variant), max_episode_steps=30)

    return make


@pytest.mark.parametrize("vec_cls", [DummyVecEnv, SubprocVecEnv])
def test_masks_from_info_match_the_environments(vec_cls: type) -> None:
    venv = vec_cls([_factory("NumberTen") for _ in range(3)])
    wrapped = VecMasksFromInfo(venv)
    try:
        wrapped.reset()
        rng = np.random.default_rng(0)
        dones_seen = 0
        for _ in range(70):  # past the 30-step limit: automatic resets happen
            served = np.stack(wrapped.env_method("action_masks"))
            asked = np.stack(venv.env_method("action_masks"))  # the round trip we avoid
            np.testing.assert_array_equal(served, asked)
            assert served.dtype == np.int8 and served.shape == (3, 1193)
            actions = [int(rng.choice(np.flatnonzero(m))) for m in served]
            _, _, dones, _ = wrapped.step(np.array(actions))
            dones_seen += int(dones.sum())
        assert dones_seen >= 3
        served = np.stack(wrapped.env_method("action_masks"))
        one = wrapped.env_method("action_masks", indices=[1])
        assert len(one) == 1
        np.testing.assert_array_equal(one[0], served[1])
        assert wrapped.env_method("legal_moves", indices=0)[0]  # other methods go through
    finally:
        wrapped.close()


def test_no_action_masks_call_reaches_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    venv = DummyVecEnv([_factory("Streets") for _ in range(2)])
    wrapped = VecMasksFromInfo(venv)
    forwarded: list[str] = []
    original = venv.env_method

    def spy(name: str, *args: object, **kwargs: object) -> list:
        forwarded.append(name)
        return original(name, *args, **kwargs)

    monkeypatch.setattr(venv, "env_method", spy)
    wrapped.reset()
    for _ in range(10):
        masks = np.stack(wrapped.env_method("action_masks"))
        wrapped.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    assert forwarded == []
