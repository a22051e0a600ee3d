"""Building the environments a run needs: training (vectorised), validation and test.

Wrapping order, inside out: ``gymnasium.make(FortyThieves/<variant>-v0, **kwargs)``
(with its ``TimeLimit``), then the deal-seed wrapper of :mod:`agents.seeds`, then SB3's
``Monitor`` recording the episode return, length, ``foundation_cards`` and ``is_success``
in ``info["episode"]``. ``action_masks`` is found through the wrappers by
``get_wrapper_attr``, as sb3_contrib does.

Sub-process workers: the factories handed to ``SubprocVecEnv`` are module-level objects that
carry the environment config (a custom variant's spec included) and register what they need
in the worker, so they work whatever the start method (``fork``, ``forkserver``, ``spawn``).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecEnvWrapper
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from .config import Config, ConfigError, EnvConfig
from .seeds import CyclingDeals, TrainingDeals, seeds_for_validation

if TYPE_CHECKING:
    from fortythieves_env import VariantSpec

__all__ = [
    "EPISODE_INFO_KEYS",
    "VARIANT_SPEC_ATTR",
    "VecMasksFromInfo",
    "env_id_for",
    "make_env",
    "make_training_vec_env",
    "make_validation_vec_env",
    "n_card_slots",
    "register_config_variant",
    "register_saved_variant",
    "tag_model",
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


VARIANT_ATTR = "fortythieves_variant"
"""Attribute of a saved model: the variant id it was trained for."""

VARIANT_SPEC_ATTR = "fortythieves_variant_spec"
"""Attribute of a saved model: a custom variant's ``VariantSpec`` fields (None if built in)."""


def register_config_variant(env_config: EnvConfig) -> str:
    """Register ``env.custom_variant`` (if any) in this process; return the env id.

    Raises:
        ConfigError: unknown variant, or the custom variant's id is registered in this
            process for a different spec.
    """
    spec = env_config.variant_spec()
    if spec is not None:
        _register(spec, "env.custom_variant")
    return env_id_for(env_config.variant)


def _register(spec: VariantSpec, where: str) -> None:
    import fortythieves_env

    try:
        fortythieves_env.register_variant(spec)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def tag_model(model: Any, env_config: EnvConfig) -> None:
    """Record the variant id and, for a custom variant, its spec on ``model`` before saving.

    Sets :data:`VARIANT_ATTR` and :data:`VARIANT_SPEC_ATTR` (a dict of plain values, saved in
    the zip's JSON ``data``); :func:`register_saved_variant` reads the spec back.
    """
    setattr(model, VARIANT_ATTR, env_config.variant)
    setattr(model, VARIANT_SPEC_ATTR, env_config.custom_variant)


def register_saved_variant(path: str | Path) -> None:
    """Register the custom variant a model zip records (:data:`VARIANT_SPEC_ATTR`), if any.

    A zip that is not a model, or records no spec, is left alone (the caller's own checks
    report it).

    Raises:
        ConfigError: the recorded spec is not a valid ``VariantSpec``, or its id is
            registered in this process for a different spec.
    """
    from fortythieves_env import VariantSpec

    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data").decode("utf-8"))
    except (OSError, KeyError, zipfile.BadZipFile, ValueError):
        return
    fields = data.get(VARIANT_SPEC_ATTR) if isinstance(data, dict) else None
    if not isinstance(fields, dict):
        return
    try:
        spec = VariantSpec(**fields)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: the recorded custom variant is invalid: {exc}") from None
    _register(spec, str(path))


def make_env(env_config: EnvConfig, render_mode: str | None = None) -> gym.Env:
    """``gymnasium.make`` the configured variant, without seed or monitor wrappers.

    A custom variant (``env.custom_variant``) is registered first, in this process.
    """
    return gym.make(
        register_config_variant(env_config), render_mode=render_mode, **env_config.make_kwargs()
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

    Any stack of SB3 wrappers works, beneath it (``VecMonitor``, ``VecNormalize``, ...) or
    around it: SB3 wrappers keep a ``reset_infos`` of their own that stays empty, so the
    reset infos are read from the innermost ``VecEnv`` (``venv.unwrapped``), the one whose
    environments reset.

    Raises:
        TypeError: the action space is not ``Discrete`` (at construction).
        ValueError: an environment's ``info`` (or, after an automatic reset, the innermost
            ``VecEnv``'s ``reset_infos``) has no ``"action_mask"``; the message names the
            environment and the keys it did send.
    """

    def __init__(self, venv: VecEnv) -> None:
        if not isinstance(venv.action_space, gym.spaces.Discrete):
            raise TypeError(
                "VecMasksFromInfo needs a Discrete action space, got "
                f"{venv.action_space}; use the VecEnv without it"
            )
        super().__init__(venv)
        self._base = venv.unwrapped  # the VecEnv that fills reset_infos
        self._masks = np.zeros((venv.num_envs, int(venv.action_space.n)), dtype=np.int8)

    def reset(self) -> Any:
        obs = self.venv.reset()
        for i, info in enumerate(self._base.reset_infos):
            self._masks[i] = self._mask_of(info, i, "reset")
        return obs

    def step_wait(self) -> VecEnvStepReturn:
        obs, rewards, dones, infos = self.venv.step_wait()
        reset_infos = self._base.reset_infos
        for i, (done, info) in enumerate(zip(dones, infos, strict=True)):
            # after an automatic reset the observation is the new deal's: so is its mask
            if done:
                self._masks[i] = self._mask_of(reset_infos[i], i, "automatic reset")
            else:
                self._masks[i] = self._mask_of(info, i, "step")
        return obs, rewards, dones, infos

    @staticmethod
    def _mask_of(info: dict[str, Any], i: int, when: str) -> np.ndarray:
        try:
            return info["action_mask"]
        except KeyError:
            raise ValueError(
                f"VecMasksFromInfo: environment {i} sent no info['action_mask'] at {when} "
                f"(its info keys: {sorted(info) or 'none'}). Wrap only environments that put "
                "their action mask in info, as FortyThievesEnv does, or drop this wrapper "
                "(MaskablePPO then calls each environment's action_masks())"
            ) from None

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


@dataclass(frozen=True)
class _TrainingFactory:
    """Picklable maker of one training env; registers a custom variant in the worker.

    With ``shaping`` (the weights of ``train.shaping``) the env is wrapped in
    :class:`agents.shaping.PotentialShaping` with discount ``gamma``, outside ``Monitor`` so
    the logged returns stay the game's own.
    """

    env_config: EnvConfig
    seed: int
    rank: int
    shaping: dict[str, float] | None = None
    gamma: float = 1.0

    def __call__(self) -> gym.Env:
        env = TrainingDeals(make_env(self.env_config), seed=self.seed, rank=self.rank)
        env = Monitor(env, info_keywords=EPISODE_INFO_KEYS)
        if self.shaping is not None:
            from .shaping import PotentialShaping

            env = PotentialShaping(env, self.gamma, **self.shaping)
        return env


def make_training_vec_env(config: Config, start_method: str | None = None) -> VecEnv:
    """``train.n_envs`` monitored envs dealing training-range seeds, as ``train.vec_env`` says.

    With ``train.shaping`` each is wrapped in :class:`agents.shaping.PotentialShaping` with
    ``ppo.gamma``. Wrapped in :class:`VecMasksFromInfo`, so masks cost no extra round trip to
    the workers.

    Args:
        config: the run configuration.
        start_method: ``multiprocessing`` start method of ``SubprocVecEnv`` workers; None
            keeps SB3's default (``forkserver`` where available, else ``spawn``). Every
            method works: the factories carry what the workers need.
    """
    register_config_variant(config.env)  # refuse a clash in this process, before workers start
    shaping = config.train.shaping.model_dump() if config.train.shaping is not None else None
    factories = [
        _TrainingFactory(config.env, config.seed, rank, shaping, config.ppo.gamma)
        for rank in range(config.train.n_envs)
    ]
    if config.train.vec_env == "subproc" and config.train.n_envs > 1:
        return VecMasksFromInfo(SubprocVecEnv(factories, start_method=start_method))
    return VecMasksFromInfo(DummyVecEnv(factories))


def make_validation_vec_env(config: Config) -> VecEnv:
    """One monitored env cycling over the first ``eval.n_eval_episodes`` validation seeds."""
    seeds = seeds_for_validation(config.eval.n_eval_episodes)

    def make() -> gym.Env:
        return Monitor(CyclingDeals(make_env(config.env), seeds), info_keywords=EPISODE_INFO_KEYS)

    return VecMasksFromInfo(DummyVecEnv([make]))
