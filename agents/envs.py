"""Building the environments a run needs: training (vectorised), validation and test.

Wrapping order, inside out: ``gymnasium.make(FortyThieves/<variant>-v0, **kwargs)``
(with its ``TimeLimit``), then the deal-seed wrapper of :mod:`agents.seeds`, then SB3's
``Monitor`` recording the episode return, length, ``foundation_cards`` and ``is_success``
in ``info["episode"]``. ``action_masks`` is found through the wrappers by
``get_wrapper_attr``, as sb3_contrib does.
"""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from .config import Config, ConfigError, EnvConfig
from .seeds import CyclingDeals, TrainingDeals, seeds_for_validation

__all__ = [
    "EPISODE_INFO_KEYS",
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


def _training_factory(env_config: EnvConfig, seed: int, rank: int) -> Callable[[], gym.Env]:
    def make() -> gym.Env:
        env = TrainingDeals(make_env(env_config), seed=seed, rank=rank)
        return Monitor(env, info_keywords=EPISODE_INFO_KEYS)

    return make


def make_training_vec_env(config: Config) -> VecEnv:
    """``train.n_envs`` monitored envs dealing training-range seeds, as ``train.vec_env`` says."""
    factories = [
        _training_factory(config.env, config.seed, rank) for rank in range(config.train.n_envs)
    ]
    if config.train.vec_env == "subproc" and config.train.n_envs > 1:
        return SubprocVecEnv(factories)
    return DummyVecEnv(factories)


def make_validation_vec_env(config: Config) -> VecEnv:
    """One monitored env cycling over the first ``eval.n_eval_episodes`` validation seeds."""
    seeds = seeds_for_validation(config.eval.n_eval_episodes)

    def make() -> gym.Env:
        return Monitor(CyclingDeals(make_env(config.env), seeds), info_keywords=EPISODE_INFO_KEYS)

    return DummyVecEnv([make])
