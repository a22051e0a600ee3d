"""Gymnasium environments for the Forty Thieves family of patience games.

``import fortythieves_env`` registers ``FortyThieves/<id>-v0`` for every id in
:data:`VARIANTS`, and ``FortyThieves/Family-v0`` (:data:`FAMILY_ENV_ID`: every game of the
family through one shared encoding, :mod:`fortythieves_env.envs.family`).
``gymnasium.make("fortythieves_env:FortyThieves/Maria-v0")`` works without the import (in a
``spawn`` or ``forkserver`` worker too). For custom variants in such workers, see
:mod:`fortythieves_env.envs.registration`: the id :func:`register_variant` returns, or
:class:`EnvFactory`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import _moved
from .envs.env import FortyThievesEnv
from .envs.registration import (
    FAMILY_ENV_ID,
    EnvFactory,
    VariantId,
    env_id,
    register_all,
    register_family,
    register_variant,
)
from .rules.cards import card_code, card_name
from .rules.engine import IllegalMoveError, InvalidPositionError, Rules
from .rules.observation import ObservationLayout
from .rules.state import GameState
from .rules.variants import RULES_VERSION, VARIANTS, Build, EmptyColumn, VariantSpec, get_variant

_moved.install()  # the old module paths (fortythieves_env.engine, ...), deprecated

if TYPE_CHECKING:
    from .envs.vector import FortyThievesVectorEnv

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
    """``FortyThievesVectorEnv`` is imported on first use (it imports numba, ~0.4 s), and so
    are the subpackages, :mod:`.core` and the old module names (deprecated:
    :mod:`._moved`), as attributes of the package."""
    if name == "FortyThievesVectorEnv":
        from .envs.vector import FortyThievesVectorEnv

        return FortyThievesVectorEnv
    if name in _moved.MOVED or name in ("core", "envs", "records", "rules", "solver"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
