"""The observation: one flat ``uint8`` vector per variant, laid out by :class:`ObservationLayout`.

Index table, for ``C`` columns, ``V`` = :attr:`VariantSpec.max_visible` slots per column,
``W`` = :attr:`VariantSpec.stock_size` waste slots and ``K`` known-stock slots (``K = W`` in
observation version 1 of a variant with redeals, else ``K = 0``; ``N = C*V + W + K``):

=====================  ============  ===============================================================
indices                values        meaning
=====================  ============  ===============================================================
``i*V .. i*V+V-1``      0..52        column i's face-up cards, bottom to top, then 0s (card codes)
``C*V .. C*V+W-1``      0..52        the waste, bottom to top, then 0s (card codes)
``C*V+W .. N-1``        0..52        the stock once its order is known, the next card dealt first,
                                     then 0s; all 0 while the order is unknown (card codes)
``N .. N+7``            0..13        foundation pile heights, two per suit C, D, H, S, higher first
``N+8 .. N+7+C``        0..face_down  face-down cards under each column (a count only)
``N+8+C``               0..stock     cards in the stock (a count)
``N+9+C``               0..redeals   redeals left (always 0 without redeals)
=====================  ============  ===============================================================

Card codes are ``suit*13 + rank + 1`` (see :mod:`fortythieves_env.rules.cards`); 0 is an empty slot.
The first :attr:`ObservationLayout.n_card_slots` (``N``) entries are card codes, the rest
counts, so a network can one-hot the first part. The space's upper bound is at least 1 for
every count, so entries that stay 0 in a variant (face-down counts in Forty Thieves) keep a
valid range. Size: ``N + 10 + C``, 244 for Forty Thieves.

Versions (the ``-vN`` of the registered ids, the ``observation_version`` argument):

- **0**: the face-up cards, the waste and counts; the stock is a count only.
- **1** (:data:`LATEST_VERSION`): everything a player has seen and still knows, the
  :class:`~fortythieves_env.rules.view.PlayerView` minus its ``unseen`` multiset (which follows
  from the rest): version 0 plus the stock's order once a redeal has happened
  (``redeals_left < redeals``: every stock card then passed over the waste face up, in an
  order the player saw; RULES.md, Little Forty). Before the first redeal the stock slots
  are 0. Only a variant with redeals has the slots (``K = W``); without redeals the stock
  is never known and version 1 is version 0, entry for entry.

Nothing hidden is encoded: face-down cards appear only as counts, and so does the stock
while its order is unknown. :func:`fortythieves_env.rules.view.encode_view` writes the
observation from a :class:`~.view.PlayerView` alone (the tests check that every
backend's observation equals it).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from .checks import is_int
from .state import GameState
from .variants import VariantSpec

OBSERVATION_VERSIONS: tuple[int, ...] = (0, 1)
"""The observation versions (see the module docstring)."""

LATEST_VERSION = 1
"""The newest observation version: what ``FortyThievesEnv`` builds by default."""


def check_version(version: object) -> int:
    """``version`` if it is an observation version (an ``int`` in :data:`OBSERVATION_VERSIONS`).

    Raises:
        ValueError: otherwise, naming the value and the versions.
    """
    number = operator.index(version) if is_int(version) else -1  # type: ignore[call-overload]
    if number not in OBSERVATION_VERSIONS:
        raise ValueError(
            f"observation_version must be one of {', '.join(map(str, OBSERVATION_VERSIONS))}, "
            f"got {version!r}"
        )
    return number


def latest_version(spec: VariantSpec) -> int:
    """The newest observation version that differs for ``spec``: 1 with redeals, else 0
    (without redeals version 1 is version 0, so the variant keeps only its ``-v0`` id)."""
    return LATEST_VERSION if spec.redeals > 0 else 0


@dataclass(frozen=True)
class ObservationLayout:
    """Where each part of the position sits in the observation vector of one variant.

    Attributes:
        n_columns, column_slots, waste_slots: ``C``, ``V`` and ``W`` of the index table.
        stock_slots: ``K``, the known-stock slots (0: the stock is a count only).
        redeals: the variant's redeals (the stock is known once fewer are left).
    """

    n_columns: int
    column_slots: int
    waste_slots: int
    stock_slots: int = 0
    redeals: int = 0

    @classmethod
    def for_variant(cls, spec: VariantSpec, version: int = LATEST_VERSION) -> ObservationLayout:
        """The layout of ``spec``'s observation in observation version ``version``.

        Raises:
            ValueError: ``version`` is not an observation version.
        """
        known = spec.stock_size if check_version(version) >= 1 and spec.redeals > 0 else 0
        return cls(spec.n_columns, spec.max_visible, spec.stock_size, known, spec.redeals)

    @classmethod
    def for_size(cls, spec: VariantSpec, size: int) -> ObservationLayout:
        """The layout of ``spec``'s observations of length ``size`` (whatever their version),
        for readers that get only the observation (the greedy baseline, the policies).

        Raises:
            ValueError: no version of ``spec``'s observation has ``size`` entries.
        """
        layouts = [cls.for_variant(spec, v) for v in OBSERVATION_VERSIONS]
        for layout in layouts:
            if layout.size == size:
                return layout
        sizes = sorted({layout.size for layout in layouts})
        raise ValueError(
            f"{spec.id} observations have {' or '.join(map(str, sizes))} entries, got {size}"
        )

    @property
    def tableau(self) -> slice:
        """Card codes of all columns, ``column_slots`` per column."""
        return slice(0, self.n_columns * self.column_slots)

    def column(self, i: int) -> slice:
        """Card codes of column ``i``."""
        return slice(i * self.column_slots, (i + 1) * self.column_slots)

    @property
    def waste(self) -> slice:
        """Card codes of the waste, bottom to top."""
        start = self.n_columns * self.column_slots
        return slice(start, start + self.waste_slots)

    @property
    def known_stock(self) -> slice:
        """Card codes of the stock once known, the next card dealt first (empty if ``K = 0``)."""
        start = self.n_columns * self.column_slots + self.waste_slots
        return slice(start, start + self.stock_slots)

    @property
    def n_card_slots(self) -> int:
        """How many leading entries are card codes (0..52)."""
        return self.n_columns * self.column_slots + self.waste_slots + self.stock_slots

    @property
    def foundations(self) -> slice:
        """8 foundation pile heights."""
        return slice(self.n_card_slots, self.n_card_slots + 8)

    @property
    def face_down(self) -> slice:
        """Face-down counts, one per column."""
        start = self.n_card_slots + 8
        return slice(start, start + self.n_columns)

    @property
    def stock(self) -> int:
        """Index of the stock size."""
        return self.n_card_slots + 8 + self.n_columns

    @property
    def redeals_left(self) -> int:
        """Index of the number of redeals left."""
        return self.stock + 1

    @property
    def counts(self) -> slice:
        """Everything after the card codes."""
        return slice(self.n_card_slots, self.size)

    @property
    def size(self) -> int:
        """Length of the observation vector."""
        return self.redeals_left + 1

    def high(self, spec: VariantSpec) -> np.ndarray:
        """Upper bound of every entry (``uint8``, shape ``(size,)``), for the ``Box`` space."""
        high = np.full(self.size, 52, dtype=np.uint8)
        high[self.foundations] = 13
        # At least 1 everywhere: a variant without face-down cards or redeals keeps the
        # entry (always 0) so the layout formula is the same for every variant.
        high[self.face_down] = max(spec.face_down, 1)
        high[self.stock] = max(spec.stock_size, 1)
        high[self.redeals_left] = max(spec.redeals, 1)
        return high

    # ------------------------------------------------------------------ writing
    def write(self, state: GameState, out: np.ndarray) -> None:
        """Write the whole observation of ``state`` into ``out`` (``uint8``, shape ``(size,)``)."""
        for i in range(self.n_columns):
            self.write_column(state, i, out)
        self.write_waste(state, out)
        self.write_stock(state, out)
        self.write_counts(state, out)

    def write_stock(self, state: GameState, out: np.ndarray) -> None:
        """Rewrite the known-stock slots (nothing when there are none): the stock, the next
        card dealt first, once a redeal has happened; else 0s."""
        k = self.stock_slots
        if not k:
            return
        start = self.known_stock.start
        out[start : start + k] = 0
        stock = state.stock
        if stock and state.redeals_left < self.redeals:
            out[start : start + len(stock)] = stock[::-1]

    def write_column(self, state: GameState, i: int, out: np.ndarray) -> None:
        """Rewrite column ``i``'s card codes and face-down count."""
        col = state.tableau[i]
        fd = state.face_down[i]
        start = i * self.column_slots
        k = len(col) - fd
        out[start : start + self.column_slots] = 0
        if k:
            out[start : start + k] = col[fd:] if fd else col
        out[self.n_card_slots + 8 + i] = fd

    def write_waste(self, state: GameState, out: np.ndarray) -> None:
        """Rewrite the waste's card codes, the stock size and the redeals left."""
        start = self.n_columns * self.column_slots
        waste = state.waste
        out[start : start + self.waste_slots] = 0
        if waste:
            out[start : start + len(waste)] = waste
        out[self.stock] = len(state.stock)
        out[self.stock + 1] = state.redeals_left

    def write_counts(self, state: GameState, out: np.ndarray) -> None:
        """Rewrite foundations, face-down counts, stock size and redeals left."""
        start = self.n_card_slots
        out[start : start + 8] = state.foundations
        out[start + 8 : start + 8 + self.n_columns] = state.face_down
        out[self.stock] = len(state.stock)
        out[self.stock + 1] = state.redeals_left
