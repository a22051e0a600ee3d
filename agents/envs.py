"""Building the environments a run needs: training (vectorised), validation and test.

Wrapping order, inside out: ``gymnasium.make(FortyThieves/<variant>-v0, **kwargs)``
(with its ``TimeLimit``), then the deal-seed wrapper of :mod:`fortythieves_agents.seeds`, then SB3's
``Monitor`` recording the episode return, length, ``foundation_cards`` and ``is_success``
in ``info["episode"]``. ``action_masks`` is found through the wrappers by
``get_wrapper_attr``, as sb3_contrib does.

``train.vec_env: batched`` replaces all of that with :class:`BatchedVecEnv`, an SB3 ``VecEnv``
over one :class:`~fortythieves_env.FortyThievesVectorEnv` (every game stepped by one compiled
call) that gives the same observations, rewards, dones and infos for the same deals and
actions.

Sub-process workers: the factories handed to ``SubprocVecEnv`` are module-level objects that
carry the environment config (a custom variant's spec included) and register what they need
in the worker, so they work whatever the start method (``fork``, ``forkserver``, ``spawn``).
"""

from __future__ import annotations

import json
import time
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
from .seeds import TRAIN_RANGE, TrainingDeals

if TYPE_CHECKING:
    from fortythieves_env import VariantSpec

__all__ = [
    "ENV_ID_ATTR",
    "EPISODE_INFO_KEYS",
    "RULES_VERSION_ATTR",
    "VARIANT_SPEC_ATTR",
    "BatchedVecEnv",
    "VecMasksFromInfo",
    "env_id_for",
    "make_env",
    "make_training_vec_env",
    "n_card_slots",
    "register_config_variant",
    "register_saved_variant",
    "tag_model",
]

EPISODE_INFO_KEYS: tuple[str, ...] = ("foundation_cards", "is_success")
"""``info`` keys that ``Monitor`` copies into ``info["episode"]`` at each episode end."""


def env_id_for(variant: str, version: int | None = None) -> str:
    """The registered id of ``variant`` (imports ``fortythieves_env``, which registers them):
    its newest (``FortyThieves/LittleForty-v1``, ``FortyThieves/Streets-v0``) unless
    ``version`` names another.

    Raises:
        ConfigError: unknown variant (the message lists the known ones), or a version the
            variant has no id for.
    """
    import fortythieves_env

    try:
        return fortythieves_env.env_id(variant, version)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


VARIANT_ATTR = "fortythieves_variant"
"""Attribute of a saved model: the variant id it was trained for."""

VARIANT_SPEC_ATTR = "fortythieves_variant_spec"
"""Attribute of a saved model: a custom variant's ``VariantSpec`` fields (None if built in)."""

ENV_ID_ATTR = "fortythieves_env_id"
"""Attribute of a saved model: the env id it was made for (``FortyThieves/LittleForty-v1``).
A model saved before the attribute existed was made for its variant's ``-v0`` id."""

RULES_VERSION_ATTR = "fortythieves_rules_version"
"""Attribute of a saved model: the :data:`fortythieves_env.RULES_VERSION` it was trained
under. A model saved before the attribute existed was trained under rules version 1."""


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
    """Record the variant id, the env id, the rules version and, for a custom variant, its
    spec on ``model`` before saving.

    Sets :data:`VARIANT_ATTR`, :data:`ENV_ID_ATTR`, :data:`RULES_VERSION_ATTR` and
    :data:`VARIANT_SPEC_ATTR` (a dict of plain values), all saved as plain values in the
    zip's JSON ``data``; :func:`register_saved_variant` reads the spec back.
    """
    from fortythieves_env import RULES_VERSION

    setattr(model, VARIANT_ATTR, env_config.variant)
    setattr(model, RULES_VERSION_ATTR, RULES_VERSION)
    setattr(model, VARIANT_SPEC_ATTR, env_config.custom_variant)
    setattr(model, ENV_ID_ATTR, str(env_id_for(env_config.variant)))


def register_saved_variant(path: str | Path) -> None:
    """Register the custom variant a model zip records (:data:`VARIANT_SPEC_ATTR`), if any.

    A zip that is not a model, or records no spec, is left alone (the caller's own checks
    report it).

    Raises:
        ConfigError: the recorded spec is not a valid ``VariantSpec``, or its id is
            registered in this process for a different spec.
    """
    from fortythieves_env import VariantSpec
    from fortythieves_env.records.files import open_user_file

    try:
        with open_user_file(path) as file, zipfile.ZipFile(file) as archive:
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
    :class:`fortythieves_agents.shaping.PotentialShaping` with discount ``gamma``, outside
    ``Monitor`` so the logged returns stay the game's own.
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


class BatchedVecEnv(VecEnv):
    """SB3 ``VecEnv`` over one :class:`~fortythieves_env.FortyThievesVectorEnv` (``train.vec_env:
    batched``): the training envs of :func:`make_training_vec_env` as one batch.

    For the same deals and actions it returns what ``DummyVecEnv`` over ``n_envs``
    ``Monitor(TrainingDeals(gymnasium.make(id, **env.make_kwargs())))`` returns
    (``tests/agents/test_batched_vec_env.py`` compares them step by step):

    - deals: game ``i`` draws each deal seed from ``numpy.random.default_rng((seed, i))`` in
      the training range, as :class:`~fortythieves_agents.seeds.TrainingDeals` of rank ``i`` does;
      a seed given through :meth:`seed` (SB3's ``VecEnv.seed``, e.g. ``MaskablePPO(seed=s)``)
      re-seeds those generators with ``(s + i, i)`` at the next :meth:`reset`, as it does
      for ``DummyVecEnv``;
    - observations ``uint8 (N, size)``, rewards ``float32 (N,)``, dones ``bool (N,)``
      (terminated or truncated); a game that ends is dealt its next training deal at once
      (the vector env's same-step autoreset, seeded by ``set_autoreset_seeds`` with the
      deal seed drawn ahead), its last observation in
      ``infos[i]["terminal_observation"]``;
    - ``infos[i]``: ``action_mask``, ``foundation_cards``, ``is_success``,
      ``illegal_action`` of the step (of the last step for a game that ended),
      ``"TimeLimit.truncated"`` (truncated and not terminated; with ``stall_ends_game``
      (``train.stall_ends_game``) only a cut by the step limit, not one by the no-progress
      truncation, so SB3 bootstraps nothing after a stall), and at an episode end
      Monitor's ``"episode"``: ``r`` (return, rounded to 6 digits), ``l`` (length),
      ``t`` (seconds since this env was made), ``foundation_cards``, ``is_success``;
    - ``reset_infos[i]``: the info of game i's latest deal, with its ``deal_seed``.

    The no-progress truncation (``env.max_steps_without_progress``) and the step limit are
    the vector env's own, as in the single env. With ``shaping`` (the weights of
    ``train.shaping``) each game's reward gets
    :class:`fortythieves_agents.shaping.PotentialShaping`'s
    term with discount ``gamma`` and ``infos[i]["shaping"]`` holds it, as that wrapper does
    outside ``Monitor``: the returns in ``info["episode"]`` stay the game's own.

    MaskablePPO's ``env_method("action_masks")`` is answered from the vector env's mask
    array (one copy per step, each game's row a view of it); ``get_attr`` reads the vector
    env's attribute (``layout``, ``spec``, ...) for every game.

    Raises:
        ConfigError: unknown variant, or a custom variant clashing with a registered one.
    """

    def __init__(
        self,
        env_config: EnvConfig,
        n_envs: int,
        seed: int = 0,
        shaping: dict[str, float] | None = None,
        gamma: float = 1.0,
        no_cycling: bool = False,
        stall_ends_game: bool = False,
    ) -> None:
        env_id = register_config_variant(env_config)
        self.venv: Any = gym.make_vec(
            env_id,
            num_envs=n_envs,
            vectorization_mode="vector_entry_point",
            autoreset_mode="SameStep",
            copy=False,
            **env_config.make_kwargs(),
        )
        super().__init__(n_envs, self.venv.single_observation_space, self.venv.single_action_space)
        self._rngs = [np.random.default_rng((seed, i)) for i in range(n_envs)]
        self._next_deals: list[int | None] = [None] * n_envs  # each game's next deal seed
        self._actions = np.zeros(n_envs, dtype=np.int64)
        self._returns = np.zeros(n_envs, dtype=np.float64)
        self._lengths = np.zeros(n_envs, dtype=np.int64)
        self._t_start = time.time()
        self._potential: Any = None
        self._gamma = float(gamma)
        self._phi = np.zeros(n_envs, dtype=np.float64)  # Phi of each game's observation
        if shaping is not None:
            from .shaping import Potential

            if not 0.0 < gamma <= 1.0:
                raise ValueError(f"gamma must be in (0, 1], got {gamma!r}")
            self._potential = Potential(self.venv, **shaping)
        self._seen: Any = None
        self._masks = np.zeros((n_envs, self.venv.single_action_space.n), dtype=np.int8)
        if no_cycling:
            from .cycles import SeenViews

            base = self.venv.unwrapped
            self._seen = SeenViews(base.tables, n_envs, base.max_episode_steps or 1000)
        self._every = np.arange(n_envs, dtype=np.int64)
        # train.stall_ends_game: a no-progress cut (before the step limit) is not a
        # time-limit truncation, so SB3 bootstraps nothing after it
        self._stall_ends_game = bool(stall_ends_game)
        self._step_limit = int(self.venv.unwrapped.max_episode_steps or np.iinfo(np.int64).max)

    def _shape(
        self, obs: np.ndarray, rewards: np.ndarray, dones: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Rewards plus the shaping terms ``gamma * Phi(s') - Phi(s)`` (``Phi(s') = 0`` for a
        game that ended), and the terms; ``(rewards, None)`` without shaping. ``obs`` of a game
        that ended is its next deal's, whose potential starts the next episode."""
        if self._potential is None:
            return rewards, None
        phi = np.array([self._potential(o) for o in obs], dtype=np.float64)
        terms = self._gamma * np.where(dones, 0.0, phi) - self._phi
        self._phi = phi
        return rewards + terms, terms

    def _draw_next_deals(self, games: list[int]) -> None:
        """Draw the deal seed that each of ``games`` plays after its current deal, and hand
        them to the vector env's automatic resets (one draw per deal, in the order
        ``TrainingDeals`` draws them, so the deals are the same)."""
        for i in games:
            self._next_deals[i] = int(self._rngs[i].integers(*TRAIN_RANGE))
        self.venv.set_autoreset_seeds(self._next_deals)

    def _reset_info(self, i: int, deal: int | None, info: dict[str, Any]) -> dict[str, Any]:
        """Game ``i``'s reset info; its mask is the one the agent gets (``self._masks``:
        legal, and new under ``train.no_cycling``)."""
        return {
            "action_mask": self._masks[i].copy(),
            "foundation_cards": int(info["foundation_cards"][i]),
            "is_success": bool(info["is_success"][i]),
            "illegal_action": bool(info["illegal_action"][i]),
            "deal_seed": deal,
        }

    def reset(self) -> np.ndarray:
        """Deal every game its next training deal (see the class docstring)."""
        every = list(range(self.num_envs))
        for i, s in enumerate(self._seeds):
            if s is not None:
                self._rngs[i] = np.random.default_rng((s, i))
        deals = [int(self._rngs[i].integers(*TRAIN_RANGE)) for i in every]
        obs, info = self.venv.reset(seed=deals)
        if self._potential is not None:
            self._phi = np.array([self._potential(o) for o in obs], dtype=np.float64)
        self._masks[:] = info["action_mask"]
        if self._seen is not None:
            states = self.venv.unwrapped.states
            self._seen.start(states, self._every)
            self._seen.fresh(states, self._every, self._masks)  # only the start is seen
        self.reset_infos = [self._reset_info(i, deals[i], info) for i in every]
        self._draw_next_deals(every)
        self._returns[:] = 0.0
        self._lengths[:] = 0
        self._reset_seeds()
        self._reset_options()
        return obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions[:] = actions

    def step_wait(self) -> VecEnvStepReturn:
        obs, rewards, terminated, truncated, info = self.venv.step(self._actions)
        self._returns += rewards  # the game's own, as Monitor records them
        self._lengths += 1
        dones = terminated | truncated
        masks = self._masks
        masks[:] = info["action_mask"]
        fcards = info["foundation_cards"].tolist()
        success = info["is_success"].tolist()
        illegal = info["illegal_action"].tolist()
        cut = truncated & ~terminated
        if self._stall_ends_game:
            cut &= self._lengths >= self._step_limit  # the step limit's cut only
        time_limit = cut.tolist()
        ended_by_env = np.flatnonzero(dones).tolist()
        stuck: list[int] = []
        if self._seen is not None:
            obs, stuck, stuck_obs, reset_info = self._no_cycling(obs, dones, masks)
        rewards, terms = self._shape(obs, rewards, dones)  # dones: the stuck games' too
        infos: list[dict[str, Any]] = [
            {
                "action_mask": masks[i],
                "foundation_cards": fcards[i],
                "is_success": success[i],
                "illegal_action": illegal[i],
                "TimeLimit.truncated": time_limit[i],
            }
            for i in range(self.num_envs)
        ]
        if terms is not None:
            for i, term in enumerate(terms.tolist()):
                infos[i]["shaping"] = term
        if ended_by_env:
            final = info["final_info"]
            for i in ended_by_env:
                step_info = infos[i]
                step_info["foundation_cards"] = int(final["foundation_cards"][i])
                step_info["is_success"] = bool(final["is_success"][i])
                step_info["illegal_action"] = bool(final["illegal_action"][i])
                step_info["terminal_observation"] = info["final_obs"][i]
                # dealt _next_deals[i] (same-step autoreset): info is the deal's
                self.reset_infos[i] = self._reset_info(i, self._next_deals[i], info)
                step_info["action_mask"] = final["action_mask"][i].copy()
        for k, i in enumerate(stuck):  # ended by the no-cycling rule, then dealt anew
            infos[i]["terminal_observation"] = stuck_obs[k]
            infos[i]["stuck"] = True
            self.reset_infos[i] = self._reset_info(i, self._next_deals[i], reset_info)
        ended = ended_by_env + stuck
        if ended:
            for i in ended:
                step_info = infos[i]
                step_info["episode"] = {
                    "r": round(float(self._returns[i]), 6),
                    "l": int(self._lengths[i]),
                    "t": round(time.time() - self._t_start, 6),
                    "foundation_cards": step_info["foundation_cards"],
                    "is_success": step_info["is_success"],
                }
            self._returns[ended] = 0.0
            self._lengths[ended] = 0
            self._draw_next_deals(ended)
        return obs.copy(), rewards.astype(np.float32), dones, infos

    def _no_cycling(
        self, obs: np.ndarray, dones: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, list[int], np.ndarray, dict[str, Any]]:
        """The agents' no-cycling rule in training (``train.no_cycling``,
        :mod:`fortythieves_agents.cycles`).

        Each game's set of views seen gets its new view (a game that ended starts a new set
        with its next deal's); ``masks`` (the legal moves, in place) loses every move back to
        a view seen. A game left with legal moves but none of them new is *stuck*: its
        episode ends now (``dones`` is set in place) as a terminal step (no move remains under
        the rule, so no later reward and nothing to bootstrap: not ``TimeLimit.truncated``),
        with its observation as ``terminal_observation``, and it is dealt its next training
        deal at once (``reset_mask``), as a game that ends is.

        Returns:
            ``(obs, stuck, stuck_obs, reset_info)``: the observations after the resets, the
            stuck games, their last observations (one row each) and the resets' info.
        """
        states = self.venv.unwrapped.states
        every = self._every
        ended = np.flatnonzero(dones)
        if ended.size:
            self._seen.start(states, ended)
        self._seen.add(states, every[~dones])
        n_fresh = self._seen.fresh(states, every, masks)
        stuck_mask = (n_fresh == 0) & ~dones
        if not stuck_mask.any():
            return obs, [], obs[:0], {}
        rows = np.flatnonzero(stuck_mask)
        stuck_obs = obs[rows].copy()
        seeds: list[int | None] = [None] * self.num_envs
        for i in rows.tolist():
            seeds[i] = self._next_deals[i]
        obs, reset_info = self.venv.reset(seed=seeds, options={"reset_mask": stuck_mask})
        self._seen.start(states, rows)
        sub = np.ascontiguousarray(reset_info["action_mask"][rows])
        self._seen.fresh(states, rows, sub)  # a deal's start: only its own view is seen
        masks[rows] = sub
        dones |= stuck_mask
        return obs, rows.tolist(), stuck_obs, reset_info

    def close(self) -> None:
        self.venv.close()

    def action_masks(self) -> np.ndarray:
        """``int8 (N, n)``, a copy: each game's legal moves, and under ``no_cycling`` only
        those to a view not yet seen in the game (what the agent may choose from)."""
        return self._masks.copy()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(
            f"BatchedVecEnv: cannot set {attr_name!r} per game (the games share one vector env)"
        )

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        if method_name == "action_masks" and not method_args and not method_kwargs:
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        raise AttributeError(
            f"BatchedVecEnv: no per-game method {method_name!r} (only action_masks); use "
            "train.vec_env: dummy to call the single environments' methods"
        )

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        # Monitor's record (info["episode"]) is written here, so evaluate_policy may read it
        wrapped = wrapper_class is Monitor
        return [wrapped for _ in self._get_indices(indices)]


def make_training_vec_env(config: Config, start_method: str | None = None) -> VecEnv:
    """``train.n_envs`` monitored envs dealing training-range seeds, as ``train.vec_env`` says.

    ``dummy`` and ``subproc`` are wrapped in :class:`VecMasksFromInfo`, so masks cost no
    extra round trip to the workers; ``batched`` is one :class:`BatchedVecEnv`. With
    ``train.shaping`` every game's rewards are shaped by
    :class:`fortythieves_agents.shaping.PotentialShaping` with ``ppo.gamma``.

    Args:
        config: the run configuration.
        start_method: ``multiprocessing`` start method of ``SubprocVecEnv`` workers; None
            keeps SB3's default (``forkserver`` where available, else ``spawn``). Every
            method works: the factories carry what the workers need.
    """
    if config.train.vec_env == "batched":
        shaping = config.train.shaping.model_dump() if config.train.shaping is not None else None
        return BatchedVecEnv(
            config.env,
            config.train.n_envs,
            config.seed,
            shaping,
            config.ppo.gamma,
            no_cycling=config.train.no_cycling,
            stall_ends_game=config.train.stall_ends_game,
        )
    register_config_variant(config.env)  # refuse a clash in this process, before workers start
    shaping = config.train.shaping.model_dump() if config.train.shaping is not None else None
    factories = [
        _TrainingFactory(config.env, config.seed, rank, shaping, config.ppo.gamma)
        for rank in range(config.train.n_envs)
    ]
    if config.train.vec_env == "subproc" and config.train.n_envs > 1:
        return VecMasksFromInfo(SubprocVecEnv(factories, start_method=start_method))
    return VecMasksFromInfo(DummyVecEnv(factories))
