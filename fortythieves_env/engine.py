"""The rules engine: positions, legal moves and their effects, with no Gymnasium in sight.

Everything here follows ``RULES.md``. A position lives in a mutable
:class:`GameState` of plain Python lists (fast to step); :class:`Rules` holds one variant's
fixed tables and the functions over a state: :meth:`Rules.deal`,
:meth:`Rules.legal_actions`, :meth:`Rules.apply`, :meth:`Rules.play`.

Action encoding
---------------
One variant with ``C`` columns and ``M`` = :attr:`VariantSpec.max_move` (13 with sequence
moves, else 1) has ``n = 3 + 2*C + C*(C-1)*M`` actions:

==========================================  =========================  =============
action                                      move                       meaning
==========================================  =========================  =============
``0``                                       ``draw``                   deal from the stock
``1``                                       ``redeal``                 waste back to the stock
``2``                                       ``w>f``                    waste top to a foundation
``3 + j``                                   ``w>tj``                   waste top onto column j
``3 + C + i``                               ``ti>f``                   column i top to a foundation
``3 + 2*C + (i*(C-1) + j')*M + (N-1)``      ``ti>tj`` / ``ti>tjxN``    N cards, column i to j
==========================================  =========================  =============

where ``j' = j if j < i else j - 1`` (a column never moves onto itself). ``redeal`` exists in
every variant so the layout is the same formula everywhere; it is never legal where the
variant has no redeals. The formula, the decode table and the move notation are implemented
once, in :mod:`.actions` (:attr:`Rules.codec`). Every method here that takes an action index
refuses one outside ``range(n)`` (or not an integer) with ``ValueError`` naming the index
and the range.

Positions in the rule book's format are read and checked in :mod:`.positions`; what one
player sees of a position is :mod:`.view`.

Decisions where the rule book is silent (each has a test in ``tests/test_rules.py``):

* A sequence move ``ti>tjxN`` carries the top ``N`` cards of column i; its first (bottom,
  highest-ranked) card must go onto column j's top by the build rule, or column j is empty.
  The rule book's "lowest-ranked (first) card" is read as this first, lowest-placed card.
  Any ``N`` from 1 to the length of the sequence at the column's end is a move of its own.
* ``redeal`` is legal only when the stock is empty, a redeal is left, and the waste has cards:
  turning over an empty waste would only spend a redeal.
* Moving a whole column into an empty column is legal (the rule book allows it: an empty
  column takes any card or sequence) even though it changes nothing of substance; the
  environment's step limit ends such loops.
* Two foundation piles of one suit are interchangeable: a card goes onto the first pile of
  its suit that takes it, and a position lists pile 2*s and 2*s+1 for suit s (C, D, H, S).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .actions import (
    COLUMN_TO_COLUMN,
    COLUMN_TO_FOUNDATION,
    DRAW,
    REDEAL,
    WASTE_TO_COLUMN,
    WASTE_TO_FOUNDATION,
    ActionCodec,
    Move,
    codec_for,
)
from .cards import CARD_NAMES, RANK, RED, SUIT
from .variants import Build, VariantSpec, get_variant

__all__ = [
    "COLUMN_TO_COLUMN",
    "COLUMN_TO_FOUNDATION",
    "DRAW",
    "N_CARDS",
    "REDEAL",
    "WASTE_TO_COLUMN",
    "WASTE_TO_FOUNDATION",
    "GameState",
    "IllegalMoveError",
    "InvalidPositionError",
    "Rules",
    "rules_for",
]

N_CARDS = 104


class IllegalMoveError(ValueError):
    """A move that the rules do not allow in the current position."""


class InvalidPositionError(ValueError):
    """A position that no game of this variant can reach (or that is malformed)."""


@dataclass(slots=True)
class GameState:
    """One position, mutable. Cards are codes 1..52 (see :mod:`fortythieves_env.cards`).

    Attributes:
        tableau: ``tableau[i]`` is column i, bottom to top.
        face_down: how many cards at the bottom of each column are face down.
        stock: bottom to top; the last card is dealt next.
        waste: bottom to top; the last card is playable.
        foundations: 8 pile heights (0..13); piles ``2*s`` and ``2*s+1`` hold suit ``s``
            and are kept with ``foundations[2*s] >= foundations[2*s+1]``.
        redeals_left: redeals still allowed.
        foundation_cards: cards on the foundations (``sum(foundations)``), 0..104.
    """

    tableau: list[list[int]]
    face_down: list[int]
    stock: list[int]
    waste: list[int]
    foundations: list[int]
    redeals_left: int
    foundation_cards: int

    def copy(self) -> GameState:
        """Return an independent copy."""
        return GameState(
            [col[:] for col in self.tableau],
            self.face_down[:],
            self.stock[:],
            self.waste[:],
            self.foundations[:],
            self.redeals_left,
            self.foundation_cards,
        )


def _accepts_table(build: Build) -> list[list[bool]]:
    """``table[top][card]``: may ``card`` go onto column top ``top`` (0 = empty column)?"""
    table = [[card != 0 for card in range(53)]]
    for top in range(1, 53):
        row = [False] * 53
        for card in range(1, 53):
            if RANK[top] != RANK[card] + 1:
                continue
            if build is Build.SAME_SUIT:
                row[card] = SUIT[top] == SUIT[card]
            elif build is Build.ALTERNATE_COLOUR:
                row[card] = RED[top] != RED[card]
            else:
                row[card] = SUIT[top] != SUIT[card]
        table.append(row)
    return table


class Rules:
    """The rules of one variant: deal, legal moves, effects, and the action codec.

    Args:
        variant: a variant id from :data:`~fortythieves_env.VARIANTS` or a :class:`VariantSpec`.

    Attributes:
        spec: the variant.
        codec: the variant's :class:`~fortythieves_env.actions.ActionCodec` (action layout
            and move notation).
        n_actions: number of actions.
        build_table: ``build_table[top][card]`` (``top`` and ``card`` are card codes, ``top``
            0 for an empty column): may ``card`` go onto column top ``top`` by the variant's
            build rule (RULES.md, common rules 4 and 5)? Also what makes a sequence: each card
            of one goes onto the card beneath it. Read only.

    Raises:
        ValueError: unknown variant id.
    """

    def __init__(self, variant: str | VariantSpec) -> None:
        spec = get_variant(variant)
        self.spec = spec
        self.codec: ActionCodec = codec_for(spec)
        self.n_columns = spec.n_columns
        self.max_move = spec.max_move
        self.n_actions = self.codec.n_actions
        self.build_table = accepts = _accepts_table(spec.build)
        self._accepts = accepts  # the same table, for the hot paths below
        # _fits_under[top]: the cards that may go onto column top ``top`` (1 to 3 of them).
        self._fits_under = [[]] + [
            [card for card in range(1, 53) if accepts[top][card]] for top in range(1, 53)
        ]
        self._decode = self.codec.table  # unchecked decode, for callers that checked the index
        self._a_draw = self.codec.encode(DRAW)
        self._a_redeal = self.codec.encode(REDEAL)
        self._a_waste_to_foundation = self.codec.encode(WASTE_TO_FOUNDATION)

    def __reduce__(self) -> tuple[Callable[[VariantSpec], Rules], tuple[VariantSpec]]:
        # The tables follow from the spec: pickle (and deepcopy) only the spec, and share
        # one Rules per variant on the way back.
        return (rules_for, (self.spec,))

    # ------------------------------------------------------------------ encoding
    def decode(self, action: int) -> Move:
        """Return the :class:`~fortythieves_env.actions.Move` ``(kind, source, destination,
        cards)`` of an action; columns are -1 where they do not apply.

        Raises:
            ValueError: ``action`` is not an integer in ``range(n_actions)``.
        """
        return self.codec.decode(action)

    def action_to_move(self, action: int) -> str:
        """Return the rule book's move notation for ``action``, e.g. ``"t2>t0x3"``.

        Raises:
            ValueError: ``action`` is not an integer in ``range(n_actions)``.
        """
        return self.codec.to_move(action)

    def move_to_action(self, move: str) -> int:
        """Return the action for a move in the rule book's notation (``"draw"``, ``"w>f"``,
        ``"t3>t7"``, ``"t2>t0x3"``). Each action has exactly one spelling: no ``x1``, no
        leading zeros, no spaces.

        Raises:
            ValueError: ``move`` is not well formed, or names a column or card count this
                variant does not have. Whether the move is legal now is a separate question
                (see :meth:`legal_actions`).
        """
        return self.codec.from_move(move)

    # ------------------------------------------------------------------ play
    def deal(self, rng: np.random.Generator) -> GameState:
        """Shuffle with ``rng`` and deal a new game (RULES.md, common rule 1).

        The shuffled cards are dealt in order: row by row across the columns, face-down rows
        first, then the face-up rows; the card after the tableau is the first one ``draw``
        deals. In Lucas the 8 Aces start on the foundations and are not shuffled.
        """
        spec = self.spec
        first_rank = 1 if spec.aces_on_foundations else 0
        deck = [code for code in range(1, 53) if RANK[code] >= first_rank] * 2
        cards = [deck[k] for k in rng.permutation(len(deck)).tolist()]
        c = self.n_columns
        tableau: list[list[int]] = [[] for _ in range(c)]
        k = 0
        for _row in range(spec.cards_per_column):
            for col in tableau:
                col.append(cards[k])
                k += 1
        stock = cards[k:]
        stock.reverse()
        aces = 1 if spec.aces_on_foundations else 0
        return GameState(
            tableau=tableau,
            face_down=[spec.face_down] * c,
            stock=stock,
            waste=[],
            foundations=[aces] * 8,
            redeals_left=spec.redeals,
            foundation_cards=8 * aces,
        )

    def sequence_length(self, state: GameState, column: int) -> int:
        """Length of the sequence at the end of ``column`` (face-up cards only); 0 if empty."""
        col = state.tableau[column]
        k = len(col) - 1
        if k < 0:
            return 0
        low = state.face_down[column]
        accepts = self._accepts
        while k > low and accepts[col[k - 1]][col[k]]:
            k -= 1
        return len(col) - k

    def legal_actions(self, state: GameState) -> list[int]:
        """Return every legal action in ``state`` (unsorted, no duplicates).

        Empty exactly when the game is over (won, or lost with no move left).
        """
        acts: list[int] = []
        append = acts.append
        m = self.max_move
        codec = self.codec
        waste_to_column = codec.waste_to_column
        column_to_foundation = codec.column_to_foundation
        column_to_column = codec.column_to_column
        tableau = state.tableau
        found = state.foundations
        fits = self._fits_under
        # dest_for[card]: the columns whose top takes ``card``; empty: the empty columns.
        dest_for: dict[int, list[int]] = {}
        empty: list[int] = []
        tops: list[int] = []
        for j, col in enumerate(tableau):
            if col:
                t = col[-1]
                tops.append(t)
                for card in fits[t]:
                    js = dest_for.get(card)
                    if js is None:
                        dest_for[card] = [j]
                    else:
                        js.append(j)
            else:
                tops.append(0)
                empty.append(j)
        if state.stock:
            append(self._a_draw)
        elif state.redeals_left and state.waste:
            append(self._a_redeal)
        if state.waste:
            w = state.waste[-1]
            s2, r = 2 * SUIT[w], RANK[w]
            if found[s2] == r or found[s2 + 1] == r:
                append(self._a_waste_to_foundation)
            for j in dest_for.get(w, ()):
                append(waste_to_column[j])
            for j in empty:
                append(waste_to_column[j])
        accepts = self._accepts
        for i, t in enumerate(tops):
            if not t:
                continue
            s2, r = 2 * SUIT[t], RANK[t]
            if found[s2] == r or found[s2 + 1] == r:
                append(column_to_foundation[i])
            # ``to_column[j]`` is ``ti>tj``; ``ti>tjxN`` is ``to_column[j] + N - 1``.
            to_column = column_to_column[i]
            # A column's own top never takes a card of its own sequence, so j != i below.
            if m == 1:
                for j in dest_for.get(t, ()):
                    append(to_column[j])
                for j in empty:
                    append(to_column[j])
                continue
            col = tableau[i]
            k = len(col) - 1
            low = state.face_down[i]
            while k > low and accepts[col[k - 1]][col[k]]:
                k -= 1
            length = len(col) - k
            for n in range(1, length + 1):
                js = dest_for.get(col[-n])
                if js:
                    for j in js:
                        append(to_column[j] + n - 1)
            for j in empty:
                off = to_column[j]
                acts.extend(range(off, off + length))
        return acts

    def is_won(self, state: GameState) -> bool:
        """True when all 104 cards are on the foundations."""
        return state.foundation_cards == N_CARDS

    def apply(self, state: GameState, action: int) -> int:
        """Play ``action`` in ``state`` (in place) **without checking that it is legal**.

        Use :meth:`play` for a checked move. Returns the number of cards that reached a
        foundation (0 or 1). A face-down card left on top of a column turns face up.

        Raises:
            ValueError: ``action`` is not an integer in ``range(n_actions)`` (the index is
                checked, the move's legality is not).
        """
        if type(action) is not int or not 0 <= action < self.n_actions:
            action = self.codec.check(action)
        return self._apply(state, action)

    def _apply(self, state: GameState, action: int) -> int:
        """:meth:`apply` for an action index already checked (the environment's step)."""
        kind, src, dst, n = self._decode[action]
        if kind == COLUMN_TO_COLUMN:
            col = state.tableau[src]
            if n == 1:
                state.tableau[dst].append(col.pop())
            else:
                state.tableau[dst].extend(col[-n:])
                del col[-n:]
            fd = state.face_down[src]
            if fd and len(col) == fd:
                state.face_down[src] = fd - 1
            return 0
        if kind == DRAW:
            stock, waste = state.stock, state.waste
            for _ in range(min(self.spec.deal_count, len(stock))):
                waste.append(stock.pop())
            return 0
        if kind == REDEAL:
            state.stock[:] = state.waste[::-1]
            state.waste.clear()
            state.redeals_left -= 1
            return 0
        if kind == WASTE_TO_COLUMN:
            state.tableau[dst].append(state.waste.pop())
            return 0
        if kind == WASTE_TO_FOUNDATION:
            card = state.waste.pop()
        else:
            col = state.tableau[src]
            card = col.pop()
            fd = state.face_down[src]
            if fd and len(col) == fd:
                state.face_down[src] = fd - 1
        found = state.foundations
        s2 = 2 * SUIT[card]
        if found[s2] == RANK[card]:
            found[s2] += 1
        else:
            found[s2 + 1] += 1
        state.foundation_cards += 1
        return 1

    def is_legal(self, state: GameState, action: int) -> bool:
        """True if ``action`` is legal in ``state``.

        Raises:
            ValueError: ``action`` is not an integer in ``range(n_actions)``.
        """
        # the action's own rule decides (a finished game has no legal action either way);
        # why_illegal's wording of a finished game is for messages only
        return not self._why_illegal(state, *self.codec.decode(action))

    def why_illegal(self, state: GameState, action: int) -> str:
        """Return why ``action`` is illegal in ``state``, or ``""`` if it is legal.

        The one place that words an illegal move (the environments' ``"raise"`` mode and
        :meth:`play` use it). Once the game is over every action is illegal and the reason
        says so first: ``"the game is over (won)"``, or ``"the game is over (lost: no legal
        move left); ..."`` followed by the action's own reason.

        Raises:
            ValueError: ``action`` is not an integer in ``range(n_actions)``.
        """
        kind, src, dst, n = self.codec.decode(action)
        if state.foundation_cards == N_CARDS:
            return "the game is over (won)"
        reason = self._why_illegal(state, kind, src, dst, n)
        if reason and not self.legal_actions(state):  # only on the way to an error
            return f"the game is over (lost: no legal move left); {reason}"
        return reason

    def _why_illegal(self, state: GameState, kind: int, src: int, dst: int, n: int) -> str:
        """:meth:`why_illegal` of a decoded action in a game not over."""
        if kind == DRAW:
            return "" if state.stock else "the stock is empty"
        if kind == REDEAL:
            if self.spec.redeals == 0:
                return f"{self.spec.name} has no redeals"
            if state.stock:
                return "the stock is not empty yet"
            if not state.redeals_left:
                return "no redeals are left"
            return "" if state.waste else "the waste is empty"
        if kind in (WASTE_TO_FOUNDATION, WASTE_TO_COLUMN):
            if not state.waste:
                return "the waste is empty"
            card = state.waste[-1]
        else:
            col = state.tableau[src]
            if not col:
                return f"column t{src} is empty"
            if n > 1:
                length = self.sequence_length(state, src)
                if n > length:
                    return f"column t{src} ends in a sequence of {length} card(s), not {n}"
            card = col[-n]
        name = CARD_NAMES[card]
        if kind in (WASTE_TO_FOUNDATION, COLUMN_TO_FOUNDATION):
            s2, r = 2 * SUIT[card], RANK[card]
            found = state.foundations
            if found[s2] == r or found[s2 + 1] == r:
                return ""
            return f"no foundation takes {name}"
        top = state.tableau[dst][-1] if state.tableau[dst] else 0
        if self._accepts[top][card]:
            return ""
        return (
            f"{name} does not go onto {CARD_NAMES[top]} "
            f"(build: {self.spec.build.value.replace('_', ' ')}, one rank lower)"
        )

    def play(self, state: GameState, move: str | int) -> int:
        """Play a move (notation string or action) in ``state`` after checking it.

        Returns the number of cards that reached a foundation (0 or 1).

        Raises:
            IllegalMoveError: the move is not legal here; the message names the move and why.
            ValueError: the move is malformed or the action out of range.
        """
        action = self.move_to_action(move) if isinstance(move, str) else self.codec.check(move)
        reason = self.why_illegal(state, action)
        if reason:
            raise IllegalMoveError(f"illegal move {self.action_to_move(action)!r}: {reason}")
        return self._apply(state, action)

    # ------------------------------------------------------------------ positions
    def to_position(self, state: GameState) -> dict[str, Any]:
        """Return ``state`` in the rule book's position format; see
        :func:`fortythieves_env.positions.to_position`."""
        from .positions import to_position

        return to_position(self, state)

    def from_position(self, position: Mapping[str, Any]) -> GameState:
        """Build a state from a rule-book position after checking it; see
        :func:`fortythieves_env.positions.from_position` (every condition checked).

        Raises:
            InvalidPositionError: what is wrong with the position.
        """
        from .positions import from_position

        return from_position(self, position)


@functools.cache
def rules_for(spec: VariantSpec) -> Rules:
    """The one shared :class:`Rules` of ``spec`` (its tables are read-only once built)."""
    return Rules(spec)
