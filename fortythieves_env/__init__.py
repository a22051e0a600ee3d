"""Gymnasium environments for the Forty Thieves family of patience games.

``import fortythieves_env`` registers ``FortyThieves/<id>-v0`` for every id in
:data:`VARIANTS`, and ``FortyThieves/Family-v0`` (:data:`FAMILY_ENV_ID`: every game of the
family through one shared encoding, :mod:`fortythieves_env.family`).
``gymnasium.make("fortythieves_env:FortyThieves/Maria-v0")`` works without the import (in a
``spawn`` or ``forkserver`` worker too). For custom variants in such workers, see
:mod:`fortythieves_env.registration`: the id :func:`register_variant` returns, or
:class:`EnvFactory`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import card_code, card_name
from .engine import IllegalMoveError, InvalidPositionError, Rules
from .env import FortyThievesEnv
from .observation import ObservationLayout
from .registration import (
    FAMILY_ENV_ID,
    EnvFactory,
    VariantId,
    env_id,
    register_all,
    register_family,
    register_variant,
)
from .state import GameState
from .variants import RULES_VERSION, VARIANTS, Build, EmptyColumn, VariantSpec, get_variant

if TYPE_CHECKING:
    from .vector import FortyThievesVectorEnv

ENV_IDS: list[str] = register_all()
"""Every registered environment id of a variant, in :data:`VARIANTS` order."""
register_family()  # FAMILY_ENV_ID: the whole family through the shared encoding

__all__ = [
    "ENV_IDS",
    "FAMILY_ENV_ID",
    "RULES_VERSION",
    "VARIANTS",
    "Build",
    "EmptyColumn",
    "EnvFactory",
    "FortyThievesEnv",
    "FortyThievesVectorEnv",
    "GameState",
    "IllegalMoveError",
    "InvalidPositionError",
    "ObservationLayout",
    "Rules",
    "VariantId",
    "VariantSpec",
    "card_code",
    "card_name",
    "env_id",
    "get_variant",
    "register_variant",
]
__version__ = "0.4.0"


def __getattr__(name: str) -> object:
    """``FortyThievesVectorEnv`` is imported on first use (it imports numba, ~0.4 s), and
    so is ``_fast``, the rules core's name until issue 38 (deprecated: :mod:`.core`)."""
    if name == "FortyThievesVectorEnv":
        from .vector import FortyThievesVectorEnv

        return FortyThievesVectorEnv
    if name == "_fast":
        import importlib

        return importlib.import_module("._fast", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
