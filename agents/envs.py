"""Building the environments a run needs: training (vectorised), validation and test.

Wrapping order, inside out: ``gymnasium.make(FortyThieves/<variant>-v0, **kwargs)``
(with its ``TimeLimit``), then the deal-seed wrapper of :mod:`agents.seeds`, then SB3's
``Monitor`` recording the episode return, length, ``foundation_cards`` and ``is_success``
in ``info["episode"]``. ``action_masks`` is found through the wrappers by
``get_wrapper_attr``, as sb3_contrib does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecEnvWrapper
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from .config import Config, ConfigError, EnvConfig
from .seeds import CyclingDeals, TrainingDeals, seeds_for_validation

__all__ = [
    "EPISODE_INFO_KEYS",
    "VecMasksFromInfo",
    "env_id_for",
    "make_env",
    "make_training_vec_env",
    "make_validation_vec_env",
    "n_card_slots",
]

EPISODE_INFO_KEYS: tuple[str, ...] = ("foundation_cards", "is_success")
"""``info`` keys that ``Monitor`` copies into ``info["episode"]`` at each episode end."""


def env_id_for(variant: str) -> str:
    """The registered id of ``variant`` (imports ``fortythieves_env``, which registers them).

    Raises:
        ConfigError: unknown variant (the message lists the known ones).
    """
    import fortythieves_env

    try:
        return fortythieves_env.env_id(variant)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def make_env(env_config: EnvConfig, render_mode: str | None = None) -> gym.Env:
    """``gymnasium.make`` the configured variant, without seed or monitor wrappers."""
    return gym.make(
        env_id_for(env_config.variant), render_mode=render_mode, **env_config.make_kwargs()
    )


def n_card_slots(env: gym.Env | VecEnv) -> int:
    """``layout.n_card_slots`` of a (possibly wrapped or vectorised) environment."""
    if isinstance(env, VecEnv):
        return int(env.get_attr("layout", indices=[0])[0].n_card_slots)
    return int(env.unwrapped.layout.n_card_slots)  # type: ignore[attr-defined]


class VecMasksFromInfo(VecEnvWrapper):
    """Answer ``action_masks`` from the masks the environments already sent back.

    ``MaskablePPO`` asks every environment for its mask before every step
    (``env_method("action_masks")``); with ``SubprocVecEnv`` that is a second round trip to
    each worker per step. Each step already returns the mask in ``info["action_mask"]`` (and,
    after an automatic reset, in ``reset_infos``), so this wrapper keeps the latest masks
    (``int8``, shape ``(n_envs, n_actions)``) and answers locally. Every other method call
    goes through to the wrapped ``VecEnv``.
    """

    def __init__(self, venv: VecEnv) -> None:
        super().__init__(venv)
        n = venv.action_space.n  # type: ignore[attr-defined]
        self._masks = np.zeros((venv.num_envs, n), dtype=np.int8)

    def reset(self) -> Any:
        obs = self.venv.reset()
        for i, info in enumerate(self.venv.reset_infos):
            self._masks[i] = info["action_mask"]
        return obs

    def step_wait(self) -> VecEnvStepReturn:
        obs, rewards, dones, infos = self.venv.step_wait()
        for i, (done, info) in enumerate(zip(dones, infos, strict=True)):
            # after an automatic reset the observation is the new deal's: so is its mask
            self._masks[i] = (self.venv.reset_infos[i] if done else info)["action_mask"]
        return obs, rewards, dones, infos

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        if method_name == "action_masks" and not method_args and not method_kwargs:
            return [self._masks[i].copy() for i in self._get_indices(indices)]
        return self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)

    def _get_indices(self, indices: VecEnvIndices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)


def _training_factory(
    env_config: EnvConfig, seed: int, rank: int, shaping: dict[str, float] | None, gamma: float
) -> Callable[[], gym.Env]:
    def make() -> gym.Env:
        env = TrainingDeals(make_env(env_config), seed=seed, rank=rank)
        env = Monitor(env, info_keywords=EPISODE_INFO_KEYS)
        if shaping is not None:  # outside Monitor: the logged returns stay the game's own
            from .shaping import PotentialShaping

            env = PotentialShaping(env, gamma, **shaping)
        return env

    return make


def make_training_vec_env(config: Config) -> VecEnv:
    """``train.n_envs`` monitored envs dealing training-range seeds, as ``train.vec_env`` says.

    With ``train.shaping`` each is wrapped in :class:`agents.shaping.PotentialShaping` with
    ``ppo.gamma``. Wrapped in :class:`VecMasksFromInfo`, so masks cost no extra round trip to
    the workers.
    """
    shaping = config.train.shaping.model_dump() if config.train.shaping is not None else None
    factories = [
        _training_factory(config.env, config.seed, rank, shaping, config.ppo.gamma)
        for rank in range(config.train.n_envs)
    ]
    if config.train.vec_env == "subproc" and config.train.n_envs > 1:
        return VecMasksFromInfo(SubprocVecEnv(factories))
    return VecMasksFromInfo(DummyVecEnv(factories))


def make_validation_vec_env(config: Config) -> VecEnv:
    """One monitored env cycling over the first ``eval.n_eval_episodes`` validation seeds."""
    seeds = seeds_for_validation(config.eval.n_eval_episodes)

    def make() -> gym.Env:
        return Monitor(CyclingDeals(make_env(config.env), seeds), info_keywords=EPISODE_INFO_KEYS)

    return VecMasksFromInfo(DummyVecEnv([make]))
