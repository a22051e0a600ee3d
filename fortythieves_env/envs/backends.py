"""The backends behind :class:`~fortythieves_env.FortyThievesEnv`: where the position lives
and what steps it.

A backend holds one game's position, its observation buffer and its action mask, and plays
checked action indices. :class:`FortyThievesEnv` talks to it only through the
:class:`Backend` protocol, so the environment has no code of its own for either backend.
Two implementations play identical games:

* :class:`NumbaBackend` (``"numba"``): the position is one packed state array of
  :mod:`..rules.core`, stepped by one compiled call (:func:`..rules.core.step`) that applies
  the move, rewrites the parts of the observation it touched and recomputes the mask.
* :class:`PythonBackend` (``"python"``): the position is a :class:`GameState` stepped by
  :meth:`Rules.apply` and :meth:`Rules.legal_actions` (the same compiled rules core, on
  the packed position) and written by :class:`ObservationLayout` (the observation written
  in Python, which the tests compare with the compiled writer).

:func:`make_backend` turns the environment's ``backend=`` argument into one of them.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable
from typing import Any, Literal, Protocol

import numpy as np

from ..rules.actions import COLUMN_TO_COLUMN, DRAW, REDEAL, WASTE_TO_COLUMN, WASTE_TO_FOUNDATION
from ..rules.engine import rules_for
from ..rules.observation import LATEST_VERSION, check_version
from ..rules.state import GameState
from ..rules.tables import FastTables, tables_for
from ..rules.variants import VariantSpec

__all__ = [
    "BACKENDS",
    "Backend",
    "NumbaBackend",
    "PythonBackend",
    "make_backend",
    "resolve_backend",
]

BackendName = Literal["numba", "python"]

BACKENDS: tuple[str, ...] = ("auto", "numba", "python")
"""The values of the ``backend=`` argument."""

_HAVE_NUMBA = importlib.util.find_spec("numba") is not None
_AUTO_BACKEND: BackendName = "numba" if _HAVE_NUMBA else "python"
"""What ``backend="auto"`` means in this process (the tests switch it to run both)."""


class Backend(Protocol):
    """One game's position, observation and mask, and the move that changes them.

    Attributes:
        name: ``"numba"`` or ``"python"``.
        obs: the observation buffer (``uint8``, shape ``(layout.size,)``), rewritten in
            place by :meth:`load` and :attr:`step`; all 0 without a game.
        mask: the action mask buffer (``int8``, shape ``(n_actions,)``), 1 exactly where
            the action is legal; all 0 without a game (so every action is refused).
        has_game: a position is loaded.
        step: ``step(action) -> code`` plays ``action`` (an ``int`` in
            ``range(n_actions)``, unchecked) if :attr:`mask` marks it legal, updating the
            position, :attr:`obs` and :attr:`mask`. Returns -1 for an illegal action
            (nothing changes; also without a game), else
            ``(n_legal << 8) | (foundation_cards << 1) | cards``: ``cards`` (0 or 1) just
            put on a foundation, the new ``foundation_cards`` (0..104), and the number of
            legal actions now. A plain attribute (a bound method or a ``partial``), so the
            environment calls it without a layer of its own.
    """

    name: BackendName
    obs: np.ndarray
    mask: np.ndarray
    has_game: bool
    step: Callable[[int], int]

    def load(self, state: GameState | None) -> int:
        """Take ``state`` as the position (checked already, not shared with anyone: the
        backend may keep it) and rewrite :attr:`obs` and :attr:`mask` from it; ``None``
        clears the game. Returns the number of legal actions (0 for ``None``)."""
        ...

    def position(self) -> GameState | None:
        """The position, to read only (it may be the live object); ``None`` without a game."""
        ...

    def snapshot(self) -> GameState | None:
        """A new, independent copy of the position; ``None`` without a game."""
        ...

    def legal_actions(self) -> list[int]:
        """The legal actions, ascending (empty without a game or when it is over)."""
        ...


def resolve_backend(backend: str) -> BackendName:
    """Return the backend that ``backend`` names here (``"auto"``: numba when it is
    importable, else python).

    Raises:
        ValueError: ``backend`` is not ``"auto"``, ``"numba"`` or ``"python"``, or it is
            ``"numba"`` and numba is not installed.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be 'auto', 'numba' or 'python', got {backend!r}")
    if backend == "auto":
        return _AUTO_BACKEND
    if backend == "numba" and not _HAVE_NUMBA:
        raise ValueError("backend='numba' needs numba (pip install numba)")
    return backend  # type: ignore[return-value]


def make_backend(
    backend: str, spec: VariantSpec, observation_version: int = LATEST_VERSION
) -> Backend:
    """A new backend for one game of ``spec``, without a position yet.

    Args:
        backend: ``"auto"``, ``"numba"`` or ``"python"`` (see :func:`resolve_backend`).
        spec: the variant.
        observation_version: the observation written (:mod:`..rules.observation`).

    Raises:
        ValueError: as :func:`resolve_backend`; an unknown observation version.
    """
    name = resolve_backend(backend)
    check_version(observation_version)
    cls = NumbaBackend if name == "numba" else PythonBackend
    return cls(spec, observation_version)


class PythonBackend:
    """The position as a :class:`GameState`, moved by the rules core through :class:`Rules`,
    its observation written in Python.

    Args:
        spec: the variant.
        observation_version: the observation written (:mod:`..rules.observation`).
    """

    name: BackendName = "python"

    def __init__(self, spec: VariantSpec, observation_version: int = LATEST_VERSION) -> None:
        self.rules = rules_for(spec)
        self.layout = tables_for(spec, observation_version).layout
        self.obs = np.zeros(self.layout.size, dtype=np.uint8)
        self.mask = np.zeros(self.rules.n_actions, dtype=np.int8)
        self.has_game = False
        self._state: GameState | None = None
        self._legal: list[int] = []

    def load(self, state: GameState | None) -> int:
        """See :meth:`Backend.load`."""
        self._state = state
        self.has_game = state is not None
        if state is None:
            self.obs.fill(0)
            self.mask.fill(0)
            self._legal = []
            return 0
        self.layout.write(state, self.obs)
        self._update_mask(state)
        return len(self._legal)

    def step(self, action: int) -> int:
        """See :attr:`Backend.step`."""
        if not self.mask[action]:
            return -1
        state = self._state
        assert state is not None  # a legal action: there is a game
        rules = self.rules
        kind, src, dst, _ = rules._decode[action]
        cards, legal = rules._apply_and_list(state, action)
        layout, obs = self.layout, self.obs
        if kind == COLUMN_TO_COLUMN:
            layout.write_column(state, src, obs)
            layout.write_column(state, dst, obs)
        elif kind in (DRAW, REDEAL):
            layout.write_waste(state, obs)
            layout.write_stock(state, obs)
        elif kind == WASTE_TO_COLUMN:
            layout.write_waste(state, obs)
            layout.write_column(state, dst, obs)
        else:
            if kind == WASTE_TO_FOUNDATION:
                layout.write_waste(state, obs)
            else:
                layout.write_column(state, src, obs)
            start = layout.n_card_slots
            obs[start : start + 8] = state.foundations
        self._set_mask(legal)
        return (len(self._legal) << 8) | (state.foundation_cards << 1) | cards

    def position(self) -> GameState | None:
        """See :meth:`Backend.position` (the live object)."""
        return self._state

    def snapshot(self) -> GameState | None:
        """See :meth:`Backend.snapshot`."""
        return None if self._state is None else self._state.copy()

    def legal_actions(self) -> list[int]:
        """See :meth:`Backend.legal_actions`."""
        return sorted(self._legal)

    def _update_mask(self, state: GameState) -> None:
        self._set_mask(self.rules.legal_actions(state))

    def _set_mask(self, legal: list[int]) -> None:
        mask = self.mask
        mask.fill(0)
        if legal:
            mask[legal] = 1
        self._legal = legal


class NumbaBackend:
    """The compiled backend: a packed state array of :mod:`..rules.core` and its kernels.

    The state array, the observation and the mask are allocated once; loading a position
    packs it into the same state array, so :attr:`step` is one compiled call with its
    buffers bound in advance. :mod:`..rules.core` (and numba, about 0.4 s to import) is loaded
    with the first instance.

    Args:
        spec: the variant.
        observation_version: the observation written (:mod:`..rules.observation`).

    Attributes:
        tables: the variant's shared, read-only :class:`~fortythieves_env.rules.tables.FastTables`.
        st: the state array (``int16``, shape ``(tables.state_size,)``); all 0 without a
            game.
    """

    name: BackendName = "numba"

    def __init__(self, spec: VariantSpec, observation_version: int = LATEST_VERSION) -> None:
        from ..rules import core

        self._core = core
        self.tables: FastTables = tables_for(spec, observation_version)
        self.obs = np.zeros(self.tables.layout.size, dtype=np.uint8)
        self.mask = np.zeros(self.tables.codec.n_actions, dtype=np.int8)
        self.st = np.zeros(self.tables.state_size, dtype=np.int16)
        self._actions = np.zeros(self.mask.size, dtype=np.int64)  # legal_actions' buffer
        self.has_game = False
        # ``step(action)`` is ``core.step(st, table, obs, mask, action)``: one compiled
        # call; an all-0 mask (no game) refuses every action.
        self.step: Callable[[int], Any] = functools.partial(
            core.step, self.st, self.tables.table, self.obs, self.mask
        )

    def load(self, state: GameState | None) -> int:
        """See :meth:`Backend.load` (the state is packed; the backend keeps no reference)."""
        self.has_game = state is not None
        if state is None:
            self.st.fill(0)
            self.obs.fill(0)
            self.mask.fill(0)
            return 0
        self.st[:] = self.tables.pack(state)
        return int(self._core.refresh(self.st, self.tables.table, self.obs, self.mask))

    def position(self) -> GameState | None:
        """See :meth:`Backend.position` (unpacked: a new object)."""
        return self.tables.unpack(self.st) if self.has_game else None

    snapshot = position  # unpacking already makes an independent copy

    def legal_actions(self) -> list[int]:
        """See :meth:`Backend.legal_actions` (:func:`..rules.core.legal_actions`)."""
        if not self.has_game:
            return []
        n = self._core.legal_actions(self.st, self.tables.table, self._actions)
        return self._actions[:n].tolist()
