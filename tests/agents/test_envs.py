"""The vectorised training environments hand masks to MaskablePPO without extra round trips."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from fortythieves_agents.envs import VecMasksFromInfo
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.vec_env import (
    DummyVecEnv,
    SubprocVecEnv,
    VecEnv,
    VecMonitor,
    VecNormalize,
)

import fortythieves_env


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


# ------------------------------------------------- VecMasksFromInfo under other VecEnv wrappers


def _inside(stack: str, venv: VecEnv) -> VecEnv:
    """The wrappers of ``stack`` beneath VecMasksFromInfo."""
    if "monitor" in stack:
        venv = VecMonitor(venv)
    if "normalize" in stack:
        venv = VecNormalize(venv)
    return venv


def _outside(stack: str, venv: VecEnv) -> VecEnv:
    """The wrappers of ``stack`` around VecMasksFromInfo."""
    if "outside" in stack:
        venv = VecMonitor(VecNormalize(venv))
    return venv


def _check_masks_through_episodes(outer: VecEnv, base: VecEnv, n_steps: int) -> None:
    """Masks MaskablePPO sees through ``outer`` equal the envs' own, across automatic resets."""
    assert is_masking_supported(outer)
    outer.reset()
    rng = np.random.default_rng(1)
    dones_seen = 0
    for _ in range(n_steps):
        seen = get_action_masks(outer)  # what MaskablePPO asks each step
        own = np.stack(base.env_method("action_masks"))  # the environments' own masks
        np.testing.assert_array_equal(seen, own)
        actions = [int(rng.choice(np.flatnonzero(m))) for m in seen]
        _, _, dones, _ = outer.step(np.array(actions))
        dones_seen += int(dones.sum())
    assert dones_seen >= base.num_envs  # every env went through an automatic reset
    np.testing.assert_array_equal(
        get_action_masks(outer), np.stack(base.env_method("action_masks"))
    )


@pytest.mark.parametrize("stack", ["monitor", "normalize", "monitor+normalize", "outside"])
def test_masks_under_any_sb3_wrapper_stack(stack: str) -> None:
    base = DummyVecEnv([_factory("Streets") for _ in range(2)])
    outer = _outside(stack, VecMasksFromInfo(_inside(stack, base)))
    try:
        _check_masks_through_episodes(outer, base, n_steps=70)  # 30-step episodes
    finally:
        outer.close()


def test_masks_under_wrapper_stack_with_subprocess_workers() -> None:
    base = SubprocVecEnv([_factory("NumberTen") for _ in range(2)])
    stack = "monitor+normalize+outside"
    outer = _outside(stack, VecMasksFromInfo(_inside(stack, base)))
    try:
        _check_masks_through_episodes(outer, base, n_steps=65)
    finally:
        outer.close()


def test_masks_from_info_issue_example() -> None:
    """The case of issue 7: VecMonitor over DummyVecEnv raised KeyError 'action_mask'."""
    base = DummyVecEnv([lambda: gym.make("FortyThieves/Streets-v0")])
    venv = VecMasksFromInfo(VecMonitor(base))
    venv.reset()
    np.testing.assert_array_equal(
        venv.env_method("action_masks")[0], base.env_method("action_masks")[0]
    )
    assert venv.env_method("action_masks")[0].sum() > 0


class _DropMask(gym.Wrapper):
    """An environment that sends no ``info["action_mask"]`` (after ``after`` steps)."""

    def __init__(self, env: gym.Env, after: int) -> None:
        super().__init__(env)
        self.after, self.steps = after, 0

    def _drop(self, info: dict) -> dict:
        return {k: v for k, v in info.items() if k != "action_mask" or self.steps < self.after}

    def reset(self, **kwargs: object) -> tuple:
        obs, info = self.env.reset(**kwargs)
        return obs, self._drop(info)

    def step(self, action: int) -> tuple:
        self.steps += 1
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, self._drop(info)


def test_environment_without_mask_in_info_is_a_clear_error() -> None:
    at_reset = VecMasksFromInfo(DummyVecEnv([lambda: _DropMask(_factory("Streets")(), 0)]))
    with pytest.raises(
        ValueError,
        match=r"environment 0 sent no info\['action_mask'\] at reset \(its info keys: "
        r"\[.*'foundation_cards'.*\]\)",
    ):
        at_reset.reset()
    later = VecMasksFromInfo(DummyVecEnv([lambda: _DropMask(_factory("Streets")(), 1)]))
    later.reset()
    with pytest.raises(ValueError, match=r"environment 0 sent no info\['action_mask'\] at step"):
        later.step(np.array([0]))


def test_non_discrete_action_space_refused_at_construction() -> None:
    with pytest.raises(TypeError, match="needs a Discrete action space, got Box"):
        VecMasksFromInfo(DummyVecEnv([lambda: gym.make("Pendulum-v1")]))
