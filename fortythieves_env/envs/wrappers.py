"""The observation and the action mask as one ``Dict`` observation, for other RL libraries.

Many libraries read the legal-action mask from the observation rather than from
``info["action_mask"]`` or ``action_masks()``, under their own key:

| library | observation key | mask key |
|---|---|---|
| RLlib (its action-masking examples) | ``observations`` | ``action_mask`` |
| Tianshou | ``obs`` | ``mask`` |
| TorchRL (``ActionMask`` transform) | ``observation`` | ``action_mask`` |

:class:`DictObservation` (one environment) and :class:`DictObservationVector` (the batched
:class:`~fortythieves_env.FortyThievesVectorEnv`) give ``{obs_key: observation, mask_key:
mask}`` with both keys configurable (default RLlib's). The observation is unchanged
(``uint8``, ``(size,)``); the mask is ``Box(0, 1, (n,), int8)``, 1 where the action is
legal, the same array as ``info["action_mask"]``. ``info`` and ``action_masks()`` stay as
they were. No torch here.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv, VectorWrapper
from gymnasium.vector.utils import batch_space

__all__ = ["DictObservation", "DictObservationVector", "dict_space"]


def dict_space(
    observation_space: spaces.Box, n_actions: int, obs_key: str, mask_key: str
) -> spaces.Dict:
    """``Dict({obs_key: observation_space, mask_key: Box(0, 1, (n_actions,), int8)})``.

    Raises:
        ValueError: the two keys are equal or not non-empty strings.
    """
    for name, key in (("obs_key", obs_key), ("mask_key", mask_key)):
        if not isinstance(key, str) or not key:
            raise ValueError(f"{name} must be a non-empty string, got {key!r}")
    if obs_key == mask_key:
        raise ValueError(f"obs_key and mask_key must differ, both are {obs_key!r}")
    mask = spaces.Box(0, 1, shape=(n_actions,), dtype=np.int8)
    return spaces.Dict({obs_key: observation_space, mask_key: mask})


class DictObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """One environment's observation as ``{obs_key: obs, mask_key: action_mask}``.

    Args:
        env: a ``FortyThieves/*`` environment (wrapped or not), whose unwrapped env has
            ``action_masks()`` and a ``Discrete`` action space.
        obs_key: the observation's key (default ``"observations"``, RLlib's).
        mask_key: the mask's key (default ``"action_mask"``).

    Observation space: ``Dict`` of the env's ``Box(0, high, (size,), uint8)`` and
    ``Box(0, 1, (n,), int8)``. The mask is a new array each step.

    The keys are recorded in ``spec.additional_wrappers`` (``RecordConstructorArgs``, as
    Gymnasium's own wrappers), so ``gymnasium.make(env.spec)`` builds the wrapped env again.

    Raises:
        ValueError: bad keys (see :func:`dict_space`).
        TypeError: the env has no ``action_masks()`` or its action space is not ``Discrete``.
    """

    def __init__(
        self, env: gym.Env, obs_key: str = "observations", mask_key: str = "action_mask"
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, obs_key=obs_key, mask_key=mask_key)
        gym.ObservationWrapper.__init__(self, env)
        if not callable(getattr(env.unwrapped, "action_masks", None)):
            raise TypeError(f"{env} has no action_masks(): not a FortyThieves environment")
        if not isinstance(env.action_space, spaces.Discrete):
            raise TypeError(f"the action space must be Discrete, got {env.action_space}")
        self.obs_key, self.mask_key = obs_key, mask_key
        self.observation_space = dict_space(
            env.observation_space,  # type: ignore[arg-type]
            int(env.action_space.n),
            obs_key,
            mask_key,
        )

    def observation(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """``{obs_key: observation, mask_key: the current mask}`` (``int8``, ``(n,)``)."""
        return {self.obs_key: observation, self.mask_key: self.env.unwrapped.action_masks()}  # type: ignore[attr-defined]


class DictObservationVector(VectorWrapper, gym.utils.RecordConstructorArgs):
    """The batched env's observations as ``{obs_key: obs (N, size), mask_key: masks (N, n)}``.

    The masks (``int8``, a new array each call) belong to the returned observations in both
    autoreset modes: after ``step`` they are ``info["action_mask"]``; after ``reset``
    ``action_masks()`` of the env (a partial ``reset_mask`` reset leaves the other games'
    rows of ``info["action_mask"]`` zero, their masks are still the current ones here).
    In same-step mode ``info["final_obs"]`` stays the flat observation of the ended games.
    Like Gymnasium's vector wrappers it records its keys (``RecordConstructorArgs``).

    Args:
        env: a :class:`~fortythieves_env.FortyThievesVectorEnv` (or a wrapper of one).
        obs_key, mask_key: as in :class:`DictObservation`.

    Raises:
        ValueError: bad keys (see :func:`dict_space`).
        TypeError: the single action space is not ``Discrete``.
    """

    def __init__(
        self, env: VectorEnv, obs_key: str = "observations", mask_key: str = "action_mask"
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, obs_key=obs_key, mask_key=mask_key)
        VectorWrapper.__init__(self, env)
        if not isinstance(env.single_action_space, spaces.Discrete):
            raise TypeError(
                f"the single action space must be Discrete, got {env.single_action_space}"
            )
        self.obs_key, self.mask_key = obs_key, mask_key
        self.single_observation_space = dict_space(
            env.single_observation_space,  # type: ignore[arg-type]
            int(env.single_action_space.n),
            obs_key,
            mask_key,
        )
        self.observation_space = batch_space(self.single_observation_space, env.num_envs)

    def reset(
        self, *, seed: Any = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """``reset`` of the env, the observation as a dict."""
        obs, info = self.env.reset(seed=seed, options=options)
        masks = self.env.unwrapped.action_masks()  # type: ignore[attr-defined]
        return {self.obs_key: obs, self.mask_key: masks}, info

    def step(
        self, actions: Any
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """``step`` of the env, the observation as a dict."""
        obs, rewards, terminated, truncated, info = self.env.step(actions)
        obs_dict = {self.obs_key: obs, self.mask_key: info["action_mask"]}
        return obs_dict, rewards, terminated, truncated, info
