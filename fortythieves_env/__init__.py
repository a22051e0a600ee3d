"""Gymnasium environments for the Forty Thieves family of patience games.

``import fortythieves_env`` registers ``FortyThieves/<id>-v0`` for every id in
:data:`VARIANTS`; ``gymnasium.make("fortythieves_env:FortyThieves/Maria-v0")`` works without
the import (in a ``spawn`` or ``forkserver`` worker too). For custom variants in such workers,
see :mod:`fortythieves_env.registration`: the id :func:`register_variant` returns, or
:class:`EnvFactory`.
"""

from __future__ import annotations

from .cards import card_code, card_name
from .engine import GameState, IllegalMoveError, InvalidPositionError, Rules
from .env import FortyThievesEnv
from .observation import ObservationLayout
from .registration import EnvFactory, VariantId, env_id, register_all, register_variant
from .variants import VARIANTS, Build, VariantSpec, get_variant

ENV_IDS: list[str] = register_all()
"""Every registered environment id, in :data:`VARIANTS` order."""

__all__ = [
    "ENV_IDS",
    "VARIANTS",
    "Build",
    "EnvFactory",
    "FortyThievesEnv",
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
__version__ = "0.1.0"
