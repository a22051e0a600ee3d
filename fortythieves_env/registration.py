"""Registration of every variant with Gymnasium: one loop over :data:`VARIANTS`."""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from .variants import CUSTOM_VARIANTS, VARIANTS, VariantSpec, get_variant

NAMESPACE = "FortyThieves"
VERSION = 0
VECTOR_ENTRY_POINT = "fortythieves_env.vector:FortyThievesVectorEnv"
"""Every id's ``vector_entry_point``: ``gymnasium.make_vec`` builds the batched env by default."""


def env_id(variant: str | VariantSpec) -> str:
    """The registered id of a variant, e.g. ``env_id("Maria") == "FortyThieves/Maria-v0"``.

    Raises:
        ValueError: unknown variant id.
    """
    return f"{NAMESPACE}/{get_variant(variant).id}-v{VERSION}"


def register_variant(spec: VariantSpec) -> str:
    """Register a custom variant as ``FortyThieves/<spec.id>-v0`` and return that id.

    The registration carries ``spec.max_episode_steps`` as the ``TimeLimit``, so
    ``gymnasium.make(id)`` truncates where the spec says. (Passing ``variant=spec`` to
    ``gymnasium.make`` of another id keeps that id's step limit.) Registering the same spec
    twice is allowed.

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
        return id_
    register(
        id=id_,
        entry_point="fortythieves_env.env:FortyThievesEnv",
        vector_entry_point=VECTOR_ENTRY_POINT,
        kwargs={"variant": spec},
        max_episode_steps=spec.max_episode_steps,
    )
    CUSTOM_VARIANTS[spec.id] = spec  # FortyThievesEnv(spec.id) finds it too
    return id_


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
