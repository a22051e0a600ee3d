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
variant has no redeals.

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
import numbers
import operator
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .cards import CARD_NAMES, RANK, RED, SUIT, card_code, card_name
from .variants import Build, VariantSpec, get_variant

DRAW, REDEAL, WASTE_TO_FOUNDATION, WASTE_TO_COLUMN, COLUMN_TO_FOUNDATION, COLUMN_TO_COLUMN = range(
    6
)
"""Kinds of move, the first field of :meth:`Rules.decode`."""

N_CARDS = 104
POSITION_KEYS = ("variant", "tableau", "face_down", "stock", "waste", "foundations", "redeals_left")


def _is_int(x: object) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool | np.bool_)


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


_NUM = r"(0|[1-9][0-9]*)"
_MOVE_RE = re.compile(
    rf"(?:(draw)|(redeal)|(?:w|t{_NUM})>(?:(f)|t{_NUM})(?:x([2-9]|[1-9][0-9]+))?)", re.ASCII
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
    """The rules of one variant: move encoding, deal, legal moves, effects, positions.

    Args:
        variant: a variant id from :data:`~fortythieves_env.VARIANTS` or a :class:`VariantSpec`.

    Raises:
        ValueError: unknown variant id.
    """

    def __init__(self, variant: str | VariantSpec) -> None:
        spec = get_variant(variant)
        self.spec = spec
        self.n_columns = c = spec.n_columns
        self.max_move = m = spec.max_move
        self.n_actions = 3 + 2 * c + c * (c - 1) * m
        self._accepts = accepts = _accepts_table(spec.build)
        # _fits_under[top]: the cards that may go onto column top ``top`` (1 to 3 of them).
        self._fits_under = [[]] + [
            [card for card in range(1, 53) if accepts[top][card]] for top in range(1, 53)
        ]
        decode: list[tuple[int, int, int, int]] = [(DRAW, -1, -1, 0), (REDEAL, -1, -1, 0)]
        decode.append((WASTE_TO_FOUNDATION, -1, -1, 1))
        decode.extend((WASTE_TO_COLUMN, -1, j, 1) for j in range(c))
        decode.extend((COLUMN_TO_FOUNDATION, i, -1, 1) for i in range(c))
        for i in range(c):
            for j in range(c):
                if j != i:
                    decode.extend((COLUMN_TO_COLUMN, i, j, n) for n in range(1, m + 1))
        assert len(decode) == self.n_actions
        self._decode = decode

    def __reduce__(self) -> tuple[Callable[[VariantSpec], Rules], tuple[VariantSpec]]:
        # The tables follow from the spec: pickle (and deepcopy) only the spec, and share
        # one Rules per variant on the way back.
        return (rules_for, (self.spec,))

    # ------------------------------------------------------------------ encoding
    def decode(self, action: int) -> tuple[int, int, int, int]:
        """Return ``(kind, source column, destination column, cards)`` of an action.

        Columns are -1 where they do not apply. Raises ``IndexError`` out of range.
        """
        return self._decode[action]

    def action_to_move(self, action: int) -> str:
        """Return the rule book's move notation for ``action``, e.g. ``"t2>t0x3"``.

        Raises:
            ValueError: ``action`` is not in ``range(n_actions)``.
        """
        if isinstance(action, bool | np.bool_) or not isinstance(action, numbers.Integral):
            raise ValueError(f"an action is an integer, got {action!r}")
        if not 0 <= action < self.n_actions:
            raise ValueError(f"action {action} is outside 0..{self.n_actions - 1}")
        kind, src, dst, n = self._decode[action]
        if kind == DRAW:
            return "draw"
        if kind == REDEAL:
            return "redeal"
        left = "w" if kind in (WASTE_TO_FOUNDATION, WASTE_TO_COLUMN) else f"t{src}"
        right = "f" if kind in (WASTE_TO_FOUNDATION, COLUMN_TO_FOUNDATION) else f"t{dst}"
        return f"{left}>{right}" + (f"x{n}" if n > 1 else "")

    def move_to_action(self, move: str) -> int:
        """Return the action for a move in the rule book's notation (``"draw"``, ``"w>f"``,
        ``"t3>t7"``, ``"t2>t0x3"``). Each action has exactly one spelling: no ``x1``, no
        leading zeros, no spaces.

        Raises:
            ValueError: ``move`` is not well formed, or names a column or card count this
                variant does not have. Whether the move is legal now is a separate question
                (see :meth:`legal_actions`).
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
            return 0
        if redeal:
            return 1
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
            return 2 if found else 3 + int(dst)
        i = int(src)
        if found:
            return 3 + c + i
        j = int(dst)
        if i == j:
            raise ValueError(f"move {move!r}: a column cannot move onto itself")
        return 3 + 2 * c + (i * (c - 1) + (j if j < i else j - 1)) * self.max_move + n - 1

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
        c = self.n_columns
        m = self.max_move
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
            append(0)
        elif state.redeals_left and state.waste:
            append(1)
        if state.waste:
            w = state.waste[-1]
            s2, r = 2 * SUIT[w], RANK[w]
            if found[s2] == r or found[s2 + 1] == r:
                append(2)
            for j in dest_for.get(w, ()):
                append(3 + j)
            for j in empty:
                append(3 + j)
        to_found = 3 + c
        stride = (c - 1) * m
        accepts = self._accepts
        for i in range(c):
            t = tops[i]
            if not t:
                continue
            s2, r = 2 * SUIT[t], RANK[t]
            if found[s2] == r or found[s2 + 1] == r:
                append(to_found + i)
            base = 3 + 2 * c + i * stride
            # A column's own top never takes a card of its own sequence, so j != i below.
            if m == 1:
                for j in dest_for.get(t, ()):
                    append(base + j - (j > i))
                for j in empty:
                    append(base + j - (j > i))
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
                        append(base + (j - (j > i)) * m + n - 1)
            for j in empty:
                off = base + (j - (j > i)) * m
                acts.extend(range(off, off + length))
        return acts

    def is_won(self, state: GameState) -> bool:
        """True when all 104 cards are on the foundations."""
        return state.foundation_cards == N_CARDS

    def apply(self, state: GameState, action: int) -> int:
        """Play ``action`` in ``state`` (in place) **without checking that it is legal**.

        Use :meth:`play` for a checked move. Returns the number of cards that reached a
        foundation (0 or 1). A face-down card left on top of a column turns face up.
        """
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
        """True if ``action`` (in range) is legal in ``state``."""
        return not self.why_illegal(state, action)

    def why_illegal(self, state: GameState, action: int) -> str:
        """Return why ``action`` is illegal in ``state``, or ``""`` if it is legal."""
        kind, src, dst, n = self._decode[action]
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
        if isinstance(move, str):
            action = self.move_to_action(move)
        elif isinstance(move, bool):
            raise ValueError(f"a move is a string or an integer action, got {move!r}")
        else:
            try:
                action = operator.index(move)
            except TypeError:
                raise ValueError(f"a move is a string or an integer action, got {move!r}") from None
        if not 0 <= action < self.n_actions:
            raise ValueError(f"action {action} is outside 0..{self.n_actions - 1}")
        reason = self.why_illegal(state, action)
        if reason:
            raise IllegalMoveError(f"illegal move {self.action_to_move(action)!r}: {reason}")
        return self.apply(state, action)

    # ------------------------------------------------------------------ positions
    def to_position(self, state: GameState) -> dict[str, Any]:
        """Return ``state`` in the rule book's public position format (a JSON-friendly dict)."""
        return {
            "variant": self.spec.id,
            "tableau": [[CARD_NAMES[c] for c in col] for col in state.tableau],
            "face_down": list(state.face_down),
            "stock": [CARD_NAMES[c] for c in state.stock],
            "waste": [CARD_NAMES[c] for c in state.waste],
            "foundations": [
                [CARD_NAMES[(k // 2) * 13 + r + 1] for r in range(h)]
                for k, h in enumerate(state.foundations)
            ],
            "redeals_left": state.redeals_left,
        }

    def from_position(self, position: Mapping[str, Any]) -> GameState:
        """Build a state from a position in the rule book's format, after checking it.

        Foundation piles may be listed in any order; each must be one suit from the Ace up.

        Raises:
            InvalidPositionError: what is wrong, e.g. a missing or unknown key, a variant
                mismatch, a wrong number of columns or cards, an unknown card, a card more
                than twice, a face-down count too big, a column longer than the observation
                holds, a foundation pile out of order, too many redeals left.
        """
        spec = self.spec
        c = self.n_columns

        def fail(msg: str) -> InvalidPositionError:
            return InvalidPositionError(f"invalid {spec.id} position: {msg}")

        if not isinstance(position, Mapping):
            raise fail(
                f"expected a dict with keys {list(POSITION_KEYS)}, got {type(position).__name__}"
            )
        missing = [k for k in POSITION_KEYS if k not in position]
        unknown = [k for k in position if k not in POSITION_KEYS]
        if missing or unknown:
            raise fail(
                "; ".join(
                    part
                    for part in (
                        f"missing keys {missing}" if missing else "",
                        f"unknown keys {unknown}" if unknown else "",
                    )
                    if part
                )
                + f" (a position has the keys {list(POSITION_KEYS)})"
            )
        if not isinstance(position["variant"], str) or position["variant"] != spec.id:
            raise fail(
                f"the position is for variant {position['variant']!r}, this game is {spec.id!r}"
            )

        def cards(value: Any, where: str) -> list[int]:
            if isinstance(value, str) or not isinstance(value, Sequence):
                raise fail(f"{where} must be a list of cards, got {value!r}")
            out = []
            for k, name in enumerate(value):
                try:
                    out.append(card_code(name))
                except ValueError as err:
                    raise fail(f"{where}[{k}]: {err}") from None
            return out

        tab = position["tableau"]
        if isinstance(tab, str) or not isinstance(tab, Sequence) or len(tab) != c:
            raise fail(f"tableau must be a list of {c} columns")
        tableau = [cards(col, f"tableau[{i}]") for i, col in enumerate(tab)]
        fds = position["face_down"]
        if (
            isinstance(fds, str)
            or not isinstance(fds, Sequence)
            or len(fds) != c
            or not all(_is_int(x) for x in fds)
        ):
            raise fail(f"face_down must be a list of {c} integers, got {fds!r}")
        fds = [int(x) for x in fds]
        stock = cards(position["stock"], "stock")
        waste = cards(position["waste"], "waste")
        piles = position["foundations"]
        if isinstance(piles, str) or not isinstance(piles, Sequence) or len(piles) != 8:
            raise fail("foundations must be a list of 8 piles")
        heights: list[list[int]] = [[] for _ in range(4)]
        outside: list[int] = [x for col in tableau for x in col] + stock + waste
        all_cards = outside[:]
        for k, pile in enumerate(piles):
            pile_cards = cards(pile, f"foundations[{k}]")
            if not pile_cards:
                continue
            suit = SUIT[pile_cards[0]]
            for r, code in enumerate(pile_cards):
                if SUIT[code] != suit or RANK[code] != r:
                    raise fail(
                        f"foundations[{k}] must run from the Ace up in one suit, but card {r} "
                        f"is {CARD_NAMES[code]}"
                    )
            heights[suit].append(len(pile_cards))
            all_cards.extend(pile_cards)
        counts = Counter(all_cards)
        over = sorted(code for code, n in counts.items() if n > 2)
        if over:
            raise fail(
                "every card is in the game exactly twice, but "
                + ", ".join(f"{card_name(x)} appears {counts[x]} times" for x in over)
            )
        if len(all_cards) != N_CARDS:
            lacking = [card_name(x) for x in range(1, 53) for _ in range(2 - counts.get(x, 0))]
            raise fail(
                f"the position has {len(all_cards)} cards, not {N_CARDS}; missing: "
                + ", ".join(lacking)
            )
        # Whole-position counts first, then each column and pile.
        for i, (col, fd) in enumerate(zip(tableau, fds, strict=False)):
            if fd < 0 or fd > spec.face_down:
                raise fail(
                    f"face_down[{i}] is {fd}; {spec.name} deals {spec.face_down} face-down "
                    "card(s) per column"
                )
            if col and fd >= len(col):
                raise fail(
                    f"face_down[{i}] is {fd} but column {i} has {len(col)} card(s): its top "
                    "card is always face up"
                )
            if not col and fd:
                raise fail(f"face_down[{i}] is {fd} but column {i} is empty")
            # Cards only ever join a column by the build rule, onto its top; so a reachable
            # column is at most ``cards_per_column`` dealt cards whose last one starts a
            # built run (or, once emptied, a run alone). This also bounds the face-up cards
            # by ``max_visible``, the slots the observation has for a column.
            run = 1
            while run < len(col) and self._accepts[col[-run - 1]][col[-run]]:
                run += 1
            if col and len(col) - run > spec.cards_per_column - 1:
                raise fail(
                    f"column {i} cannot be reached: it has {len(col)} cards but only the last "
                    f"{run} are built down by the {spec.build.value.replace('_', ' ')} rule; "
                    f"a column holds at most the {spec.cards_per_column} dealt to it with a "
                    "run built on the last of them"
                )
        if len(stock) + len(waste) > spec.stock_size:
            raise fail(
                f"stock and waste hold {len(stock) + len(waste)} cards; {spec.name} has only "
                f"{spec.stock_size} cards outside the tableau"
            )
        if spec.aces_on_foundations:
            loose = sorted({card_name(x) for x in outside if RANK[x] == 0})
            if loose:
                raise fail(
                    f"{spec.name} starts with the 8 Aces on the foundations, but "
                    + ", ".join(loose)
                    + " is not on a foundation"
                )
        redeals = position["redeals_left"]
        if not _is_int(redeals) or not 0 <= redeals <= spec.redeals:
            raise fail(f"redeals_left must be an integer 0..{spec.redeals}, got {redeals!r}")
        foundations = []
        for hs in heights:
            hs = [*sorted(hs, reverse=True), 0, 0]
            foundations.extend(hs[:2])
        return GameState(
            tableau=tableau,
            face_down=list(fds),
            stock=stock,
            waste=waste,
            foundations=foundations,
            redeals_left=int(redeals),
            foundation_cards=sum(foundations),
        )


@functools.cache
def rules_for(spec: VariantSpec) -> Rules:
    """The one shared :class:`Rules` of ``spec`` (its tables are read-only once built)."""
    return Rules(spec)
