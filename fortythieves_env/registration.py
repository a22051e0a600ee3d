"""Registration of every variant with Gymnasium: one loop over :data:`VARIANTS`."""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from .variants import VARIANTS, VariantSpec, get_variant

NAMESPACE = "FortyThieves"
VERSION = 0


def env_id(variant: str | VariantSpec) -> str:
    """The registered id of a variant, e.g. ``env_id("Maria") == "FortyThieves/Maria-v0"``.

    Raises:
        ValueError: unknown variant id.
    """
    return f"{NAMESPACE}/{get_variant(variant).id}-v{VERSION}"


def register_all() -> list[str]:
    """Register every variant (idempotent); return the ids."""
    ids = []
    for spec in VARIANTS.values():
        id_ = env_id(spec)
        if id_ not in registry:
            register(
                id=id_,
                entry_point="fortythieves_env.env:FortyThievesEnv",
                kwargs={"variant": spec.id},
                max_episode_steps=spec.max_episode_steps,
            )
        ids.append(id_)
    return ids
