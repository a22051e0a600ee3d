"""The observation: one flat ``uint8`` vector per variant, laid out by :class:`ObservationLayout`.

Index table, for ``C`` columns, ``V`` = :attr:`VariantSpec.max_visible` slots per column and
``W`` = :attr:`VariantSpec.stock_size` waste slots:

=====================  ============  ===============================================================
indices                values        meaning
=====================  ============  ===============================================================
``i*V .. i*V+V-1``      0..52        column i's face-up cards, bottom to top, then 0s (card codes)
``C*V .. C*V+W-1``      0..52        the waste, bottom to top, then 0s (card codes)
``C*V+W .. +7``         0..13        foundation pile heights, two per suit C, D, H, S, higher first
``C*V+W+8 .. +C-1``     0..face_down  face-down cards under each column (a count only)
``C*V+W+8+C``           0..stock     cards in the stock (a count only)
``C*V+W+9+C``           0..redeals   redeals left (always 0 without redeals)
=====================  ============  ===============================================================

Card codes are ``suit*13 + rank + 1`` (see :mod:`fortythieves_env.cards`); 0 is an empty slot.
The first :attr:`ObservationLayout.n_card_slots` entries are card codes, the rest counts,
so a network can one-hot the first part. The space's upper bound is at least 1 for every
count, so entries that stay 0 in a variant (face-down counts in Forty Thieves) keep a valid
range. Size: ``C*V + W + 10 + C``, 244 for Forty Thieves. Nothing hidden is encoded:
face-down cards and the stock appear only as counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .engine import GameState
from .variants import VariantSpec


@dataclass(frozen=True)
class ObservationLayout:
    """Where each part of the position sits in the observation vector of one variant."""

    n_columns: int
    column_slots: int
    waste_slots: int

    @classmethod
    def for_variant(cls, spec: VariantSpec) -> ObservationLayout:
        """The layout of ``spec``'s observation."""
        return cls(spec.n_columns, spec.max_visible, spec.stock_size)

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
    def n_card_slots(self) -> int:
        """How many leading entries are card codes (0..52)."""
        return self.n_columns * self.column_slots + self.waste_slots

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
        self.write_counts(state, out)

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
