"""The action codec: move kinds, the action index formula, and the rule book's move notation.

This module is the one place where the action layout is worked out. The rules engine
(:mod:`.engine`), the compiled kernels (:mod:`.core`, which take their decode table from
here) and the agents all read it from an :class:`ActionCodec`.

Action encoding
---------------
A variant with ``C`` columns and ``M`` = :attr:`VariantSpec.max_move` (13 with sequence
moves, else 1) has ``n = 3 + 2*C + C*(C-1)*M`` actions:

==========================================  =========================  ======================
action                                      move                       kind
==========================================  =========================  ======================
``0``                                       ``draw``                   :data:`DRAW`
``1``                                       ``redeal``                 :data:`REDEAL`
``2``                                       ``w>f``                    :data:`WASTE_TO_FOUNDATION`
``3 + j``                                   ``w>tj``                   :data:`WASTE_TO_COLUMN`
``3 + C + i``                               ``ti>f``                   :data:`COLUMN_TO_FOUNDATION`
``3 + 2*C + (i*(C-1) + j')*M + (N-1)``      ``ti>tj`` / ``ti>tjxN``    :data:`COLUMN_TO_COLUMN`
==========================================  =========================  ======================

where ``j' = j if j < i else j - 1`` (a column never moves onto itself) and ``N`` is the
number of cards moved (1..M). The formula is written once, in :func:`_index`;
:meth:`ActionCodec.encode` applies it and the decode table is its inverse.

An action index is an integer in ``range(n)`` (Python ``int`` or a NumPy integer, not
``bool``); anything else is refused with ``ValueError`` naming the index and the range.
"""

from __future__ import annotations

import functools
import numbers
import re
from typing import NamedTuple

import numpy as np

from .variants import VariantSpec

DRAW, REDEAL, WASTE_TO_FOUNDATION, WASTE_TO_COLUMN, COLUMN_TO_FOUNDATION, COLUMN_TO_COLUMN = range(
    6
)
"""Kinds of move, the first field of :class:`Move`."""

KIND_NAMES = (
    "draw",
    "redeal",
    "waste to foundation",
    "waste to column",
    "column to foundation",
    "column to column",
)
"""``KIND_NAMES[kind]``: a kind of move in words."""


class Move(NamedTuple):
    """One decoded action: what moves, from where, to where.

    Attributes:
        kind: one of :data:`DRAW` .. :data:`COLUMN_TO_COLUMN`.
        source: source column, -1 unless the kind moves from a column.
        destination: destination column, -1 unless the kind moves onto a column.
        cards: cards moved onto a foundation or a column (1..13); 0 for ``draw`` and
            ``redeal``.
    """

    kind: int
    source: int
    destination: int
    cards: int


_NUM = r"(0|[1-9][0-9]*)"
_MOVE_RE = re.compile(
    rf"(?:(draw)|(redeal)|(?:w|t{_NUM})>(?:(f)|t{_NUM})(?:x([2-9]|[1-9][0-9]+))?)", re.ASCII
)


def _index(c: int, m: int, kind: int, source: int, destination: int, cards: int) -> int:
    """The action formula (see the module docstring); arguments unchecked."""
    if kind <= WASTE_TO_FOUNDATION:
        return kind
    if kind == WASTE_TO_COLUMN:
        return 3 + destination
    if kind == COLUMN_TO_FOUNDATION:
        return 3 + c + source
    j = destination - (destination > source)
    return 3 + 2 * c + (source * (c - 1) + j) * m + cards - 1


class ActionCodec:
    """The action layout of one variant: encode, decode, notation.

    Use :func:`codec_for` to get the shared instance of a variant.

    Attributes:
        n_actions: number of actions, ``3 + 2*C + C*(C-1)*M``.
        table: the decode table, ``table[a]`` is the :class:`Move` of action ``a``
            (unchecked indexing for hot paths that have checked ``a`` already).
        waste_to_column: ``waste_to_column[j]`` is the action ``w>tj``.
        column_to_foundation: ``column_to_foundation[i]`` is the action ``ti>f``.
        column_to_column: ``column_to_column[i][j]`` is the action ``ti>tj`` (one card);
            ``ti>tjxN`` is that plus ``N - 1``; -1 where ``i == j``.
    """

    def __init__(self, spec: VariantSpec) -> None:
        self.spec = spec
        self.n_columns = c = spec.n_columns
        self.max_move = m = spec.max_move
        self.n_actions = n = 3 + 2 * c + c * (c - 1) * m
        moves = [Move(DRAW, -1, -1, 0), Move(REDEAL, -1, -1, 0)]
        moves.append(Move(WASTE_TO_FOUNDATION, -1, -1, 1))
        moves.extend(Move(WASTE_TO_COLUMN, -1, j, 1) for j in range(c))
        moves.extend(Move(COLUMN_TO_FOUNDATION, i, -1, 1) for i in range(c))
        moves.extend(
            Move(COLUMN_TO_COLUMN, i, j, k)
            for i in range(c)
            for j in range(c)
            if j != i
            for k in range(1, m + 1)
        )
        table: list[Move | None] = [None] * n
        for move in moves:
            table[_index(c, m, *move)] = move
        assert len(moves) == n and None not in table  # the formula is a bijection
        self.table: tuple[Move, ...] = tuple(table)  # type: ignore[arg-type]
        self.waste_to_column = tuple(_index(c, m, WASTE_TO_COLUMN, -1, j, 1) for j in range(c))
        self.column_to_foundation = tuple(
            _index(c, m, COLUMN_TO_FOUNDATION, i, -1, 1) for i in range(c)
        )
        self.column_to_column = tuple(
            tuple(-1 if j == i else _index(c, m, COLUMN_TO_COLUMN, i, j, 1) for j in range(c))
            for i in range(c)
        )

    def __reduce__(self) -> tuple[object, tuple[VariantSpec]]:
        return (codec_for, (self.spec,))

    def check(self, action: object) -> int:
        """Return ``action`` as an ``int`` if it is an action index of this variant.

        Raises:
            ValueError: ``action`` is not an integer (``bool`` is not one), or not in
                ``range(n_actions)``; the message names the index and the range.
        """
        if type(action) is not int:
            if isinstance(action, bool | np.bool_) or not isinstance(action, numbers.Integral):
                raise ValueError(f"an action is an integer, got {action!r}")
            action = int(action)
        if not 0 <= action < self.n_actions:
            raise ValueError(
                f"action {action} is outside 0..{self.n_actions - 1} "
                f"({self.spec.name} has {self.n_actions} actions)"
            )
        return action

    def encode(self, kind: int, source: int = -1, destination: int = -1, cards: int = 1) -> int:
        """Return the action of a move (the formula of the module docstring).

        Raises:
            ValueError: no action has these fields (unknown kind, a column out of range,
                a column onto itself, a card count outside 1..M).
        """
        move = Move(kind, source, destination, 0 if kind in (DRAW, REDEAL) else cards)
        c = self.n_columns
        if kind in (DRAW, REDEAL, WASTE_TO_FOUNDATION):
            a = kind
        elif kind == WASTE_TO_COLUMN and 0 <= destination < c:
            a = self.waste_to_column[destination]
        elif kind == COLUMN_TO_FOUNDATION and 0 <= source < c:
            a = self.column_to_foundation[source]
        elif (
            kind == COLUMN_TO_COLUMN
            and 0 <= source < c
            and 0 <= destination < c
            and source != destination
            and 1 <= cards <= self.max_move
        ):
            a = _index(c, self.max_move, kind, source, destination, cards)
        else:
            a = -1
        if a < 0 or self.table[a] != move:
            raise ValueError(f"no action of {self.spec.name} is {move}")
        return a

    def decode(self, action: int) -> Move:
        """Return the :class:`Move` of ``action``.

        Raises:
            ValueError: ``action`` is not an action index (see :meth:`check`).
        """
        return self.table[self.check(action)]

    def to_move(self, action: int) -> str:
        """Return the rule book's move notation for ``action``, e.g. ``"t2>t0x3"``.

        Raises:
            ValueError: ``action`` is not an action index (see :meth:`check`).
        """
        kind, src, dst, n = self.decode(action)
        if kind == DRAW:
            return "draw"
        if kind == REDEAL:
            return "redeal"
        left = "w" if kind in (WASTE_TO_FOUNDATION, WASTE_TO_COLUMN) else f"t{src}"
        right = "f" if kind in (WASTE_TO_FOUNDATION, COLUMN_TO_FOUNDATION) else f"t{dst}"
        return f"{left}>{right}" + (f"x{n}" if n > 1 else "")

    def from_move(self, move: str) -> int:
        """Return the action for a move in the rule book's notation (``"draw"``, ``"w>f"``,
        ``"t3>t7"``, ``"t2>t0x3"``). Each action has exactly one spelling: no ``x1``, no
        leading zeros, no spaces.

        Raises:
            ValueError: ``move`` is not well formed, or names a column or card count this
                variant does not have.
        """
        m = _MOVE_RE.fullmatch(move) if isinstance(move, str) else None
        if m is None:
            raise ValueError(
                f"{move!r} is not a move: write 'draw', 'redeal', or SRC>DST[xN] with SRC 'w' or "
                "'tK' and DST 'f' or 'tK', N >= 2 cards (one card has no xN), e.g. 'w>f', "
                "'t3>t7', 't2>t0x3'"
            )
        draw, redeal, src, found, dst, count = m.groups()
        if draw:
            return self.encode(DRAW)
        if redeal:
            return self.encode(REDEAL)
        c = self.n_columns
        for col in (src, dst):
            if col is not None and int(col) >= c:
                raise ValueError(
                    f"move {move!r}: column {col} does not exist (columns t0..t{c - 1})"
                )
        n = int(count) if count is not None else 1
        if count is not None and (src is None or found):
            raise ValueError(f"move {move!r}: a card count 'xN' is only for column-to-column moves")
        if not 1 <= n <= self.max_move:
            raise ValueError(
                f"move {move!r}: {self.spec.name} moves 1..{self.max_move} card(s) at a time"
            )
        if src is None:
            return (
                self.encode(WASTE_TO_FOUNDATION)
                if found
                else self.encode(WASTE_TO_COLUMN, destination=int(dst))
            )
        if found:
            return self.encode(COLUMN_TO_FOUNDATION, source=int(src))
        if src == dst:
            raise ValueError(f"move {move!r}: a column cannot move onto itself")
        return self.encode(COLUMN_TO_COLUMN, int(src), int(dst), n)


@functools.lru_cache(maxsize=512)
def codec_for(spec: VariantSpec) -> ActionCodec:
    """The shared :class:`ActionCodec` of ``spec`` (read-only). The last 512 variants are
    kept: the family's rule sets (:mod:`..envs.family`, about 40,000) would otherwise pile up."""
    return ActionCodec(spec)
