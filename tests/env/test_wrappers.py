"""The observation and the mask as one Dict observation (issue 11, point 6)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import fortythieves_env
from fortythieves_env import FortyThievesEnv
from fortythieves_env.envs.wrappers import DictObservation, DictObservationVector

KEYS = {  # library: (observation key, mask key) it reads
    "rllib": ("observations", "action_mask"),
    "tianshou": ("obs", "mask"),
    "torchrl": ("observation", "action_mask"),
}


def test_check_env_passes() -> None:
    check_env(DictObservation(FortyThievesEnv("NumberTen")), skip_render_check=True)


def test_check_env_passes_through_gym_make() -> None:
    check_env(DictObservation(gym.make("FortyThieves/Maria-v0")), skip_render_check=True)


def test_gym_make_of_the_spec_recreates_the_wrapper() -> None:
    """The keys travel in ``spec.additional_wrappers``: ``gym.make(env.spec)`` builds the
    same wrapped env, and its games are the same."""
    env = DictObservation(gym.make("FortyThieves/Maria-v0"), obs_key="obs", mask_key="mask")
    (wrapper_spec,) = env.spec.additional_wrappers
    assert wrapper_spec.kwargs == {"obs_key": "obs", "mask_key": "mask"}
    again = gym.make(env.spec)
    assert isinstance(again, DictObservation)
    assert (again.obs_key, again.mask_key) == ("obs", "mask")
    assert again.observation_space == env.observation_space
    assert again.spec == env.spec
    (a, _), (b, _) = env.reset(seed=3), again.reset(seed=3)
    assert np.array_equal(a["obs"], b["obs"]) and np.array_equal(a["mask"], b["mask"])


def test_vector_wrapper_records_its_keys() -> None:
    envs = DictObservationVector(
        fortythieves_env.FortyThievesVectorEnv("Maria", num_envs=2), "obs", "mask"
    )
    assert isinstance(envs, gym.utils.RecordConstructorArgs)
    assert envs._saved_kwargs == {"obs_key": "obs", "mask_key": "mask"}


@pytest.mark.parametrize("library", list(KEYS))
def test_single_env_keys_shapes_and_mask(library: str) -> None:
    obs_key, mask_key = KEYS[library]
    env = DictObservation(gym.make("FortyThieves/Maria-v0"), obs_key, mask_key)
    n = env.action_space.n
    assert env.observation_space[mask_key] == gym.spaces.Box(0, 1, (n,), np.int8)
    assert env.observation_space[obs_key] == env.env.observation_space
    obs, info = env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(200):
        assert set(obs) == {obs_key, mask_key} and obs in env.observation_space
        assert obs[mask_key].dtype == np.int8 and obs[mask_key].shape == (n,)
        assert np.array_equal(obs[mask_key], info["action_mask"])
        a = int(rng.choice(np.flatnonzero(obs[mask_key])))
        obs, _, terminated, truncated, info = env.step(a)
        if terminated or truncated:
            obs, info = env.reset()


def test_bad_keys_are_refused() -> None:
    with pytest.raises(ValueError, match="must differ"):
        DictObservation(FortyThievesEnv("Maria"), "x", "x")
    with pytest.raises(ValueError, match="non-empty string"):
        DictObservation(FortyThievesEnv("Maria"), "", "mask")
    with pytest.raises(TypeError, match="action_masks"):
        DictObservation(gym.make("CartPole-v1"))


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_vector_env_masks_follow_the_observations(mode: str) -> None:
    obs_key, mask_key = KEYS["tianshou"]
    base = fortythieves_env.FortyThievesVectorEnv(
        "Streets", num_envs=4, autoreset_mode=mode, max_episode_steps=40
    )
    envs = DictObservationVector(base, obs_key, mask_key)
    n = envs.single_action_space.n
    assert envs.single_observation_space[mask_key] == gym.spaces.Box(0, 1, (n,), np.int8)
    obs, _ = envs.reset(seed=3)
    single = [FortyThievesEnv("Streets") for _ in range(4)]
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(100):
        assert obs in envs.observation_space
        assert obs[mask_key].shape == (4, n) and obs[mask_key].dtype == np.int8
        assert np.array_equal(obs[mask_key], base.action_masks())
        for i, env in enumerate(single):  # each row's mask is its own position's
            env.reset(options={"state": base.get_state(i)})
            assert np.array_equal(obs[mask_key][i], env.action_masks())
            assert np.array_equal(obs[obs_key][i], env._obs)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs[mask_key]])
        obs, _, terminated, truncated, _ = envs.step(actions)
        ended += int((terminated | truncated).sum())
    assert ended >= 8  # autoresets were crossed


def test_vector_partial_reset_keeps_every_mask() -> None:
    envs = DictObservationVector(fortythieves_env.FortyThievesVectorEnv("Maria", num_envs=3))
    obs, _ = envs.reset(seed=0)
    obs, _ = envs.reset(
        seed=[None, 9, None], options={"reset_mask": np.array([False, True, False])}
    )
    assert obs["action_mask"].sum(axis=1).min() > 0  # no row left zero


# ------------------------------------------------------------ examples (library installed)
def test_rllib_example() -> None:
    pytest.importorskip("ray.rllib", reason="RLlib (ray[rllib]) is not installed")
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.tune.registry import register_env

    register_env("maria-dict", lambda cfg: DictObservation(gym.make("FortyThieves/Maria-v0")))
    config = PPOConfig().environment("maria-dict")
    env = DictObservation(gym.make("FortyThieves/Maria-v0"))
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"observations", "action_mask"} and config.env == "maria-dict"


def test_tianshou_example() -> None:
    pytest.importorskip("tianshou", reason="Tianshou is not installed")
    from tianshou.env import DummyVectorEnv

    envs = DummyVectorEnv(
        [lambda: DictObservation(gym.make("FortyThieves/Maria-v0"), "obs", "mask")] * 2
    )
    obs, _ = envs.reset(seed=0)
    assert obs[0]["mask"].shape == (93,) and obs[0]["obs"].shape == (231,)


def test_torchrl_example() -> None:
    pytest.importorskip("torchrl", reason="TorchRL is not installed")
    from torchrl.envs import GymWrapper, TransformedEnv
    from torchrl.envs.transforms import ActionMask

    base = DictObservation(gym.make("FortyThieves/Maria-v0"), "observation", "action_mask")
    env = TransformedEnv(GymWrapper(base, categorical_action_encoding=True), ActionMask())
    td = env.reset()
    assert td["action_mask"].shape[-1] == 93
    td = env.rand_step(td)  # ActionMask makes the random action a legal one
    assert "next" in td
