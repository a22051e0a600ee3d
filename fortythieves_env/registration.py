"""Registration of every variant with Gymnasium: one loop over :data:`VARIANTS`.

Ids in other processes
----------------------
Gymnasium's registry lives in each process. A worker started by ``fork`` inherits it; one
started by ``spawn`` or ``forkserver`` (the start method of SB3's ``SubprocVecEnv`` on Linux,
and ``multiprocessing``'s default there from Python 3.14) begins with only Gymnasium's own
ids, and Gymnasium 1.x no longer loads plugin entry points, so ``FortyThieves/...`` ids are
known there only once something imports this package. The forms that work in such workers:

- ``gymnasium.make("fortythieves_env:FortyThieves/Streets-v0")``: the prefix makes Gymnasium
  import the package, which registers the nine built-in ids (not custom ones).
- The id that :func:`register_variant` returned (a :class:`VariantId`): unpickled in the
  worker, it imports the package and registers its spec there, so
  ``lambda: gymnasium.make(id_)`` works. A string typed again (``"FortyThieves/Wide-v0"``)
  carries no spec.
- :class:`EnvFactory`: a picklable ``gymnasium.make`` that carries the ``EnvSpec``.
- ``gymnasium.make_vec(id, vectorization_mode="async")``: Gymnasium sends the ``EnvSpec``.

A plain id string (``lambda: gymnasium.make("FortyThieves/Streets-v0")``) works only where
the main script imports the package (and registers custom variants) at its top level, which
``spawn`` and ``forkserver`` re-run in each worker.
"""

from __future__ import annotations

import importlib
from typing import Any

import gymnasium as gym
from gymnasium.envs.registration import EnvSpec, register, registry

from .variants import CUSTOM_VARIANTS, VARIANTS, VariantSpec, get_variant

NAMESPACE = "FortyThieves"
VERSION = 0
MODULE_PREFIX = "fortythieves_env:"
"""Prefix of an id that makes ``gymnasium.make`` import this package first."""
VECTOR_ENTRY_POINT = "fortythieves_env.vector:FortyThievesVectorEnv"
"""Every id's ``vector_entry_point``: ``gymnasium.make_vec`` builds the batched env by default."""


def env_id(variant: str | VariantSpec) -> str:
    """The registered id of a variant, e.g. ``env_id("Maria") == "FortyThieves/Maria-v0"``.

    Raises:
        ValueError: unknown variant id.
    """
    return f"{NAMESPACE}/{get_variant(variant).id}-v{VERSION}"


class VariantId(str):
    """The id :func:`register_variant` returns: a ``str`` that takes its spec along when pickled.

    Equal to (and usable wherever) the plain id ``"FortyThieves/<spec.id>-v0"``. Unpickling
    it, in any process, imports ``fortythieves_env`` and registers :attr:`spec` there, so a
    factory such as ``lambda: gymnasium.make(id_)`` works in ``spawn`` and ``forkserver``
    workers (SB3's ``SubprocVecEnv``, Gymnasium's ``AsyncVectorEnv``). ``str(id_)`` is the
    plain string (for serialisers that want exactly ``str``, such as ``yaml.safe_dump``).

    Attributes:
        spec: the registered :class:`VariantSpec`.
    """

    spec: VariantSpec

    def __new__(cls, spec: VariantSpec) -> VariantId:
        self = super().__new__(cls, env_id(spec))
        self.spec = spec
        return self

    def __reduce__(self) -> tuple[Any, tuple[VariantSpec]]:
        return register_variant, (self.spec,)


def register_variant(spec: VariantSpec) -> VariantId:
    """Register a custom variant as ``FortyThieves/<spec.id>-v0`` and return that id.

    The registration carries ``spec.max_episode_steps`` as the ``TimeLimit``, so
    ``gymnasium.make(id)`` truncates where the spec says. (Passing ``variant=spec`` to
    ``gymnasium.make`` of another id keeps that id's step limit.) Registering the same spec
    twice is allowed. The returned :class:`VariantId` registers the spec again wherever it
    is unpickled, so it works in sub-process workers; see the module docstring.

    Raises:
        ValueError: the id is taken by a different variant (the nine built-in ids included).
        TypeError: ``spec`` is not a :class:`VariantSpec`.
    """
    if not isinstance(spec, VariantSpec):
        raise TypeError(f"register_variant takes a VariantSpec, got {type(spec).__name__}")
    id_ = env_id(spec)
    if id_ in registry:
        taken = registry[id_].kwargs.get("variant")
        if taken != spec and not (taken == spec.id and VARIANTS.get(spec.id) == spec):
            raise ValueError(f"{id_} is already registered for a different variant")
        return VariantId(spec)
    register(
        id=id_,
        entry_point="fortythieves_env.env:FortyThievesEnv",
        vector_entry_point=VECTOR_ENTRY_POINT,
        kwargs={"variant": spec},
        max_episode_steps=spec.max_episode_steps,
    )
    CUSTOM_VARIANTS[spec.id] = spec  # FortyThievesEnv(spec.id) finds it too
    return VariantId(spec)


def register_all() -> list[str]:
    """Register every variant (idempotent); return the ids."""
    ids = []
    for spec in VARIANTS.values():
        id_ = env_id(spec)
        if id_ not in registry:
            register(
                id=id_,
                entry_point="fortythieves_env.env:FortyThievesEnv",
                vector_entry_point=VECTOR_ENTRY_POINT,
                kwargs={"variant": spec.id},
                max_episode_steps=spec.max_episode_steps,
            )
        ids.append(id_)
    return ids


class EnvFactory:
    """A picklable ``gymnasium.make`` of one environment: it carries the ``EnvSpec``.

    ``EnvFactory(id, **kwargs)()`` is ``gymnasium.make(id, **kwargs)``, but the spec is
    looked up once, here, and travels with the factory, so calling it needs no registry:
    it works in ``spawn`` and ``forkserver`` workers for built-in and custom ids alike::

        SubprocVecEnv([EnvFactory("FortyThieves/Wide-v0") for _ in range(4)])
        make_vec_env(EnvFactory(spec), n_envs=4, vec_env_cls=SubprocVecEnv)

    Args:
        env: a registered id (the ``fortythieves_env:`` prefix is accepted), a
            :class:`VariantSpec` (registered here with :func:`register_variant`), or a
            Gymnasium ``EnvSpec``.
        **kwargs: keyword arguments for ``gymnasium.make`` (``render_mode``,
            ``max_episode_steps``, environment keywords); a call's own keywords override them.

    Attributes:
        spec: the ``EnvSpec`` made each call.
        kwargs: the keywords given here.

    Raises:
        TypeError: ``env`` is none of those types.
        gymnasium.error.Error: unknown id (``NameNotFound`` and the like).
        ValueError: a :class:`VariantSpec` whose id is taken by a different variant.
    """

    def __init__(self, env: str | VariantSpec | EnvSpec, **kwargs: Any) -> None:
        if isinstance(env, VariantSpec):
            env = register_variant(env)
        if isinstance(env, str):
            module, _, name = env.rpartition(":")
            if module:
                importlib.import_module(module)
            env = gym.spec(name)
        if not isinstance(env, EnvSpec):
            raise TypeError(
                f"EnvFactory takes an env id, a VariantSpec or an EnvSpec, got {type(env).__name__}"
            )
        self.spec: EnvSpec = env
        self.kwargs: dict[str, Any] = kwargs

    def __call__(self, **kwargs: Any) -> gym.Env:
        """``gymnasium.make(self.spec, **self.kwargs, **kwargs)``."""
        return gym.make(self.spec, **{**self.kwargs, **kwargs})

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in self.kwargs.items())
        return f"EnvFactory({self.spec.id!r}{extra})"
