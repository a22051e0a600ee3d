"""The rules' public API: positions, legal moves and their effects, with no Gymnasium in sight.

Everything here follows ``RULES.md``. A position lives in a mutable
:class:`GameState` (:mod:`.state`) of plain Python lists; :class:`Rules` holds one variant's
fixed tables (made from the spec in :mod:`.tables`: the action codec, and the rule table of
:func:`.rule_table.accepts_table`, what a column top or an empty column takes) and the
functions over a state: :meth:`Rules.deal`, :meth:`Rules.legal_actions`,
:meth:`Rules.apply`, :meth:`Rules.play`, :meth:`Rules.why_illegal`. The legal moves and a
move's effect are decided by the compiled rules core (:mod:`.core`), the one statement of
the move rules that the environments, the solver and the agents use; :class:`Rules` packs a
state for it (a few microseconds a call) and words the reasons of illegal moves.

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

Decisions where the rule book is silent (each has a test in ``tests/env/test_rules.py``):

* A sequence move ``ti>tjxN`` carries the top ``N`` cards of column i; its first (bottom,
  highest-ranked) card must go onto column j's top by the build rule, or column j is empty.
  The rule book's "lowest-ranked (first) card" is read as this first, lowest-placed card.
  Any ``N`` from 1 to the length of the sequence at the column's end is a move of its own.
* ``redeal`` is legal only when the stock is empty, a redeal is left, and the waste has cards:
  turning over an empty waste would only spend a redeal.
* Moving a whole column into an empty column is legal (the rule book allows it: an empty
  column takes any card or sequence; in a Kings-only custom variant, one whose first card is
  a King) even though it changes nothing of substance; the environment's step limit ends
  such loops.
* Two foundation piles of one suit are interchangeable: a card goes onto the first pile of
  its suit that takes it, and a position lists pile 2*s and 2*s+1 for suit s (C, D, H, S).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
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
)
from .cards import CARD_NAMES, N_CARDS, RANK
from .checks import is_int
from .rule_table import EMPTY_COLUMN_RULES
from .state import GameState
from .tables import FastTables, tables_for
from .variants import VariantSpec, get_variant

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


class IllegalMoveError(ValueError):
    """A move that the rules do not allow in the current position."""


class InvalidPositionError(ValueError):
    """A position that no game of this variant can reach (or that is malformed)."""


class Rules:
    """The rules of one variant: deal, legal moves, effects, and the action codec.

    Args:
        variant: a variant id from :data:`~fortythieves_env.VARIANTS` or a :class:`VariantSpec`.

    Attributes:
        spec: the variant.
        codec: the variant's :class:`~fortythieves_env.rules.actions.ActionCodec` (action layout
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
        # the codec and the rule table are the variant's tables' (:mod:`.tables`, the one
        # place a spec becomes its tables), which the compiled core reads too
        self._tables: FastTables = tables_for(spec)
        self.codec: ActionCodec = self._tables.codec
        self.n_columns = spec.n_columns
        self.max_move = spec.max_move
        self.n_actions = self.codec.n_actions
        self.build_table = accepts = self._tables.build_table
        self._accepts = accepts  # the same table (its name before issue 38)
        self._decode = self.codec.table  # unchecked decode, for callers that checked the index
        self._core: tuple[Any, Any] | None = None  # (the core module, FastTables), on first use

    def _compiled(self) -> tuple[Any, FastTables]:
        """The compiled core (:mod:`.core`) and this variant's tables, the core loaded on
        first use (it imports numba, about 0.4 s)."""
        core = self._core
        if core is None:
            from . import core as rules_core

            core = self._core = (rules_core, self._tables)
        return core

    def __reduce__(self) -> tuple[Callable[[VariantSpec], Rules], tuple[VariantSpec]]:
        # The tables follow from the spec: pickle (and deepcopy) only the spec, and share
        # one Rules per variant on the way back.
        return (rules_for, (self.spec,))

    # ------------------------------------------------------------------ encoding
    def decode(self, action: int) -> Move:
        """Return the :class:`~fortythieves_env.rules.actions.Move` ``(kind, source, destination,
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
        """Length of the sequence at the end of ``column`` (face-up cards only); 0 if empty.

        Computed by the compiled core (:func:`.core.sequence_length`).

        Raises:
            ValueError: ``column`` is not in ``range(n_columns)``, or a column holds more
                cards than a reachable position can.
        """
        if not is_int(column) or not 0 <= column < self.n_columns:
            raise ValueError(f"column must be an integer 0..{self.n_columns - 1}, got {column!r}")
        fast, tables = self._compiled()
        return int(fast.sequence_length(tables.pack(state), tables.table, int(column)))

    def legal_actions(self, state: GameState) -> list[int]:
        """Return every legal action in ``state``, ascending, no duplicates.

        Empty exactly when the game is over (won, or lost with no move left). Decided by the
        compiled core's move generator (:func:`.core.legal_actions`), the one statement of
        the move rules that the environments, the solver and the agents all use; this method
        packs ``state`` into a state array for it (a few microseconds).

        Raises:
            ValueError: a column holds more cards than a reachable position can.
        """
        fast, tables = self._compiled()
        out = np.empty(self.n_actions, dtype=np.int64)
        n = fast.legal_actions(tables.pack(state), tables.table, out)
        return out[:n].tolist()

    def is_won(self, state: GameState) -> bool:
        """True when all 104 cards are on the foundations."""
        return state.foundation_cards == N_CARDS

    def apply(self, state: GameState, action: int) -> int:
        """Play ``action`` in ``state`` (in place) **without checking that it is legal**.

        Use :meth:`play` for a checked move. Returns the number of cards that reached a
        foundation (0 or 1). A face-down card left on top of a column turns face up. An
        illegal move is not refused: it leaves a position no game reaches (for example a
        card from an empty waste), without an error.

        Raises:
            ValueError: ``action`` is not an integer in ``range(n_actions)`` (the index is
                checked, the move's legality is not).
        """
        if type(action) is not int or not 0 <= action < self.n_actions:
            action = self.codec.check(action)
        return self._apply(state, action)

    def _apply(self, state: GameState, action: int) -> int:
        """:meth:`apply` for an action index already checked: the compiled core's move
        (:func:`.core.apply`) on the packed ``state``, written back into it in place."""
        fast, tables = self._compiled()
        st = tables.pack(state)
        cards = int(fast.apply(st, tables.table, action))
        tables.unpack_into(st, state)
        return cards

    def _apply_and_list(self, state: GameState, action: int) -> tuple[int, list[int]]:
        """:meth:`_apply`, then :meth:`legal_actions` of the new position, packing the state
        once (the Python backend's step): the cards put up (0 or 1) and the legal actions."""
        fast, tables = self._compiled()
        st = tables.pack(state)
        cards = int(fast.apply(st, tables.table, action))
        tables.unpack_into(st, state)
        out = np.empty(self.n_actions, dtype=np.int64)
        n = fast.legal_actions(st, tables.table, out)
        return cards, out[:n].tolist()

    def is_legal(self, state: GameState, action: int) -> bool:
        """True if ``action`` is legal in ``state`` (the core's move generator decides).

        Raises:
            ValueError: ``action`` is not an integer in ``range(n_actions)``.
        """
        return self.codec.check(action) in self.legal_actions(state)

    def why_illegal(self, state: GameState, action: int) -> str:
        """Return why ``action`` is illegal in ``state``, or ``""`` if it is legal.

        The core's move generator decides (``""`` exactly for the actions of
        :meth:`legal_actions`); this method only words the reason of an illegal one (the
        environments' ``"raise"`` mode and :meth:`play` use it). Once the game is over every
        action is illegal and the reason says so first: ``"the game is over (won)"``, or
        ``"the game is over (lost: no legal move left); ..."`` followed by the action's own
        reason.

        Raises:
            ValueError: ``action`` is not an integer in ``range(n_actions)``.
        """
        kind, src, dst, n = self.codec.decode(action)
        if state.foundation_cards == N_CARDS:
            return "the game is over (won)"
        legal = self.legal_actions(state)
        if action in legal:
            return ""
        reason = self._reason(state, kind, src, dst, n)
        if not legal:
            return f"the game is over (lost: no legal move left); {reason}"
        return reason

    def _reason(self, state: GameState, kind: int, src: int, dst: int, n: int) -> str:
        """Words why a move the core found illegal is illegal (it decides nothing: the
        test of :meth:`why_illegal` checks that it names a reason for every illegal move)."""
        if kind == DRAW:
            return "the stock is empty"
        if kind == REDEAL:
            if self.spec.redeals == 0:
                return f"{self.spec.name} has no redeals"
            if state.stock:
                return "the stock is not empty yet"
            return "no redeals are left" if not state.redeals_left else "the waste is empty"
        if kind in (WASTE_TO_FOUNDATION, WASTE_TO_COLUMN):
            if not state.waste:
                return "the waste is empty"
            card = state.waste[-1]
        else:
            col = state.tableau[src]
            if not col:
                return f"column t{src} is empty"
            length = self.sequence_length(state, src)
            if n > length:
                return f"column t{src} ends in a sequence of {length} card(s), not {n}"
            card = col[-n]
        name = CARD_NAMES[card]
        if kind in (WASTE_TO_FOUNDATION, COLUMN_TO_FOUNDATION):
            return f"no foundation takes {name}"
        if not state.tableau[dst]:
            words = EMPTY_COLUMN_RULES[self.spec.empty_column].words
            return f"an empty column takes {words} here, not {name}"
        top = CARD_NAMES[state.tableau[dst][-1]]
        build = self.spec.build.value.replace("_", " ")
        return f"{name} does not go onto {top} (build: {build}, one rank lower)"

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
        :func:`fortythieves_env.rules.positions.to_position`."""
        from .positions import to_position

        return to_position(self, state)

    def from_position(self, position: Mapping[str, Any]) -> GameState:
        """Build a state from a rule-book position after checking it; see
        :func:`fortythieves_env.rules.positions.from_position` (every condition checked).

        Raises:
            InvalidPositionError: what is wrong with the position.
        """
        from .positions import from_position

        return from_position(self, position)


@functools.lru_cache(maxsize=512)
def rules_for(spec: VariantSpec) -> Rules:
    """The shared :class:`Rules` of ``spec`` (its tables are read-only once built). The
    last 512 variants are kept (see :func:`~fortythieves_env.rules.actions.codec_for`)."""
    return Rules(spec)
