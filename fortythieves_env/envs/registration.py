"""Registration of every variant with Gymnasium: one loop over :data:`VARIANTS`.

Versions
--------
An id's ``-vN`` is its observation version (:mod:`..rules.observation`). Every variant has a
``-v0`` id. Version 1 adds the stock's order once a redeal has shown it, so it changes only
the variants with redeals: they alone get a ``-v1`` id (``FortyThieves/LittleForty-v1``,
and a custom variant with redeals). ``-v0`` stays registered for saved models and results.
The unversioned names (:func:`env_id` without a version, the configs, the README) mean a
variant's newest id: ``-v1`` for Little Forty, ``-v0`` for the eight others.

The whole family through one shared encoding is :data:`FAMILY_ENV_ID`,
``FortyThieves/Family-v0`` (:func:`register_family`; :mod:`fortythieves_env.envs.family`).

Ids in other processes
----------------------
Gymnasium's registry lives in each process. A worker started by ``fork`` inherits it; one
started by ``spawn`` or ``forkserver`` (the start method of SB3's ``SubprocVecEnv`` on Linux,
and ``multiprocessing``'s default there from Python 3.14) begins with only Gymnasium's own
ids, and Gymnasium 1.x no longer loads plugin entry points, so ``FortyThieves/...`` ids are
known there only once something imports this package. The forms that work in such workers:

- ``gymnasium.make("fortythieves_env:FortyThieves/Streets-v0")``: the prefix makes Gymnasium
  import the package, which registers the built-in ids (not custom ones).
- The id that :func:`register_variant` returned (a :class:`VariantId`): unpickled in the
  worker, it imports the package and registers its spec there, so
  ``lambda: gymnasium.make(id_)`` works. A string typed again (``"FortyThieves/Wide-v0"``)
  carries no spec.
- :class:`EnvFactory`: a picklable ``gymnasium.make`` that carries the ``EnvSpec``.
- ``gymnasium.make_vec(id, vectorization_mode="async")``: Gymnasium sends the ``EnvSpec``.

A plain id string (``lambda: gymnasium.make("FortyThieves/Streets-v0")``) works only where
the main script imports the package (and registers custom variants) at its top level, which
``spawn`` and ``forkserver`` re-run in each worker.

The passive checker
-------------------
Every id is registered with ``disable_env_checker=True``: ``gymnasium.make`` leaves out
Gymnasium's ``PassiveEnvChecker`` (``<TimeLimit<OrderEnforcing<FortyThievesEnv>>>``). That
wrapper marks its first reset as checked before the call returns, and keeps no result when
it raises, so after a refused first reset (``reset(options={"state": bad})``, rightly
refused) every later step played its move and then raised ``TypeError: cannot unpack
non-iterable NoneType`` (Gymnasium 1.x): the environment was broken for good, against the
promise that a refused reset changes nothing. What it checks the tests check: the spaces
and the first reset's and step's results (``gymnasium.utils.env_checker.check_env`` in
``tests/env/test_env_api.py``) and that no two calls share an array (the test of this).
``gymnasium.make(id, disable_env_checker=False)`` puts it back, bug included: then make the
first reset one that succeeds.
"""

from __future__ import annotations

import importlib
from typing import Any

import gymnasium as gym
from gymnasium.envs.registration import EnvSpec, register, registry

from ..rules.observation import LATEST_VERSION, latest_version
from ..rules.variants import CUSTOM_VARIANTS, VARIANTS, VariantSpec, get_variant

NAMESPACE = "FortyThieves"
VERSION = LATEST_VERSION
"""The newest id version (``-v1``); a variant's own newest is :func:`latest_version`."""
MODULE_PREFIX = "fortythieves_env:"
"""Prefix of an id that makes ``gymnasium.make`` import this package first."""
VECTOR_ENTRY_POINT = "fortythieves_env.envs.vector:FortyThievesVectorEnv"
"""Every id's ``vector_entry_point``: ``gymnasium.make_vec`` builds the batched env by default."""
FAMILY_ENV_ID = f"{NAMESPACE}/Family-v0"
"""The id of the whole family through the shared encoding
(:class:`~fortythieves_env.envs.family_env.FamilyEnv`; :func:`register_family`)."""


def versions(variant: str | VariantSpec) -> tuple[int, ...]:
    """The id versions registered for a variant: ``(0, 1)`` with redeals, else ``(0,)``.

    An id's version is its observation version (:mod:`..rules.observation`): only the variants
    whose observation changed in version 1 (those with redeals) get a ``-v1`` id.

    Raises:
        ValueError: unknown variant id.
    """
    return tuple(range(latest_version(get_variant(variant)) + 1))


def env_id(variant: str | VariantSpec, version: int | None = None) -> str:
    """The registered id of a variant, e.g. ``env_id("Maria") == "FortyThieves/Maria-v0"``.

    Args:
        variant: a variant id or spec.
        version: the id version; None (default) is the variant's newest
            (``"FortyThieves/LittleForty-v1"``, ``"FortyThieves/Maria-v0"``).

    Raises:
        ValueError: unknown variant id, or a version the variant has no id for.
    """
    spec = get_variant(variant)
    known = versions(spec)
    if version is None:
        version = known[-1]
    elif version not in known:
        raise ValueError(
            f"{spec.id} has no id version {version!r}; its ids: "
            + ", ".join(f"{NAMESPACE}/{spec.id}-v{v}" for v in known)
        )
    return f"{NAMESPACE}/{spec.id}-v{version}"


def id_version(id_: str) -> int:
    """The version of a registered ``FortyThieves/<variant>-vN`` id (the ``N``).

    Raises:
        ValueError: not an id of this form.
    """
    _, _, tail = id_.rpartition("-v")
    if not id_.startswith(f"{NAMESPACE}/") or not tail.isdigit():
        raise ValueError(f"not a {NAMESPACE}/<variant>-vN id: {id_!r}")
    return int(tail)


def check_id_version(spec: EnvSpec, observation_version: int) -> None:
    """Refuse an environment whose observation version contradicts the id it was made from.

    A registered id passes its own version as ``observation_version`` (``-v0`` ids 0,
    ``-v1`` ids 1). ``gymnasium.make("FortyThieves/LittleForty-v0", observation_version=1)``
    would give version 1's observation under the ``-v0`` id, which names the observation
    (in saved models and results), so an override that contradicts the id is refused; one
    that agrees, and ids of other packages, pass. The registry's entry for the id says
    what it passes; an id not in this process's registry is read as ``-vN``.

    Raises:
        ValueError: the version contradicts the id; the message names the id to use.
    """
    registered = registry.get(spec.id)
    if registered is not None:
        expected = registered.kwargs.get("observation_version")
    else:
        try:
            expected = id_version(spec.id)
        except ValueError:
            expected = None
    if expected is None or expected == observation_version:
        return
    wanted = f"{spec.id.rpartition('-v')[0]}-v{observation_version}"
    use = (
        f"make {wanted!r} instead"
        if wanted in registry
        else f"{wanted!r} is not registered (a variant without redeals has one observation "
        f"and only its -v0 id), so leave observation_version out"
    )
    raise ValueError(
        f"{spec.id} is observation version {expected}, but observation_version="
        f"{observation_version} was passed: the id names the observation, so it cannot be "
        f"overridden; {use}"
    )


class CheckedSpec:
    """The ``spec`` attribute of both environment classes (``gymnasium.make`` sets it).

    A plain attribute, except that setting a spec runs :func:`check_id_version` with the
    environment's ``observation_version``: that is how ``gymnasium.make`` and
    ``gymnasium.make_vec`` refuse an ``observation_version`` that contradicts the id.
    """

    def __get__(self, obj: Any, objtype: type | None = None) -> EnvSpec | None:
        return None if obj is None else obj.__dict__.get("_spec")

    def __set__(self, obj: Any, spec: EnvSpec | None) -> None:
        if spec is not None:
            check_id_version(spec, obj.observation_version)
        obj.__dict__["_spec"] = spec


class VariantId(str):
    """The id :func:`register_variant` returns: a ``str`` that takes its spec along when pickled.

    Equal to (and usable wherever) the plain id ``"FortyThieves/<spec.id>-vN"``. Unpickling
    it, in any process, imports ``fortythieves_env`` and registers :attr:`spec` there, so a
    factory such as ``lambda: gymnasium.make(id_)`` works in ``spawn`` and ``forkserver``
    workers (SB3's ``SubprocVecEnv``, Gymnasium's ``AsyncVectorEnv``). ``str(id_)`` is the
    plain string (for serialisers that want exactly ``str``, such as ``yaml.safe_dump``).

    Attributes:
        spec: the registered :class:`VariantSpec`.
        version: the id's version (default: the spec's newest).
    """

    spec: VariantSpec
    version: int

    def __new__(cls, spec: VariantSpec, version: int | None = None) -> VariantId:
        id_ = env_id(spec, version)
        self = super().__new__(cls, id_)
        self.spec = spec
        self.version = id_version(id_)
        return self

    def __reduce__(self) -> tuple[Any, tuple[VariantSpec, int]]:
        return _registered_id, (self.spec, self.version)


def _registered_id(spec: VariantSpec, version: int) -> VariantId:
    """Register ``spec`` (:func:`register_variant`) and return its id of ``version``."""
    register_variant(spec)
    return VariantId(spec, version)


def _register(spec: VariantSpec, variant: str | VariantSpec) -> list[str]:
    """Register every version of ``spec`` not yet registered; return all its ids."""
    ids = []
    for version in versions(spec):
        id_ = env_id(spec, version)
        if id_ not in registry:
            register(
                id=id_,
                entry_point="fortythieves_env.envs.env:FortyThievesEnv",
                vector_entry_point=VECTOR_ENTRY_POINT,
                kwargs={"variant": variant, "observation_version": version},
                max_episode_steps=spec.max_episode_steps,
                disable_env_checker=True,  # see "The passive checker" in the module docstring
            )
        ids.append(id_)
    return ids


def register_variant(spec: VariantSpec) -> VariantId:
    """Register a custom variant as ``FortyThieves/<spec.id>-v0`` (and, if it has redeals,
    ``-v1``, as Little Forty) and return its newest id.

    A custom variant gets the ids a built-in one with the same fields would: ``-v0`` always,
    ``-v1`` (the observation with the known stock order) when it has redeals; the returned
    id is the newest, ``VariantId(spec, 0)`` the other. The registration carries
    ``spec.max_episode_steps`` as the ``TimeLimit``, so ``gymnasium.make(id)`` truncates
    where the spec says. (Passing ``variant=spec`` to ``gymnasium.make`` of another id keeps
    that id's step limit.) Registering the same spec twice is allowed. The returned
    :class:`VariantId` registers the spec again wherever it is unpickled, so it works in
    sub-process workers; see the module docstring.

    Raises:
        ValueError: the id is taken by a different variant (the nine built-in ids included).
        TypeError: ``spec`` is not a :class:`VariantSpec`.
    """
    if not isinstance(spec, VariantSpec):
        raise TypeError(f"register_variant takes a VariantSpec, got {type(spec).__name__}")
    for version in versions(spec):
        id_ = env_id(spec, version)
        if id_ in registry:
            taken = registry[id_].kwargs.get("variant")
            if taken != spec and not (taken == spec.id and VARIANTS.get(spec.id) == spec):
                raise ValueError(f"{id_} is already registered for a different variant")
    _register(spec, spec)
    CUSTOM_VARIANTS[spec.id] = spec  # FortyThievesEnv(spec.id) finds it too
    return VariantId(spec)


def register_all() -> list[str]:
    """Register every built-in variant (idempotent); return the ids, each variant's
    ``-v0`` and then its ``-v1`` if it has one, in :data:`VARIANTS` order."""
    ids = []
    for spec in VARIANTS.values():
        ids += _register(spec, spec.id)
    return ids


def register_family() -> str:
    """Register :data:`FAMILY_ENV_ID` (idempotent) and return it.

    Its entry point is :class:`~fortythieves_env.envs.family_env.FamilyEnv` and its
    ``vector_entry_point`` :class:`~fortythieves_env.envs.family_vector.FamilyVectorEnv`. It has
    no ``TimeLimit`` (``max_episode_steps=None``): the environment truncates each episode at
    its rule set's own limit, which changes with the rule set.
    """
    if FAMILY_ENV_ID not in registry:
        register(
            id=FAMILY_ENV_ID,
            entry_point="fortythieves_env.envs.family_env:FamilyEnv",
            vector_entry_point="fortythieves_env.envs.family_vector:FamilyVectorEnv",
            max_episode_steps=None,
            disable_env_checker=True,  # see "The passive checker" in the module docstring
        )
    return FAMILY_ENV_ID


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
