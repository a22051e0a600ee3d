"""A second, independent statement of the move rules, for the tests only: the oracle.

The package states each rule once, in its compiled core (:mod:`fortythieves_env._fast`,
which :class:`~fortythieves_env.Rules` calls). This module restates legal-move generation
and a move's effect on plain Python lists, written from ``RULES.md`` without the core's
code, so that ``tests/env/test_rules_oracle.py`` can compare the two on many games: a change of
the core that changes a legal move or its effect shows up there as a disagreement. (Until
issue 27 this list-based code was the package's Python engine; it now lives here and nowhere
else.)

It restates the greedy rule's scores too (:func:`greedy_move_score`, over a
:class:`~fortythieves_env.view.PlayerView`; the numbers come from the package's table).

The move functions read the variant's rule fields directly: the build rule (common rules 4-5),
what an empty column takes (``VariantSpec.empty_column``), sequence moves, the draw, the
redeals.
"""

from __future__ import annotations

from fortythieves_env import EmptyColumn, GameState, Rules, VariantSpec
from fortythieves_env import greedy as g
from fortythieves_env.actions import (
    COLUMN_TO_COLUMN,
    COLUMN_TO_FOUNDATION,
    DRAW,
    REDEAL,
    WASTE_TO_COLUMN,
    WASTE_TO_FOUNDATION,
    codec_for,
)
from fortythieves_env.view import PlayerView

__all__ = ["apply", "builds_on", "greedy_move_score", "legal_actions", "sequence_length"]


def _suit(card: int) -> int:
    return (card - 1) // 13  # C, D, H, S


def _rank(card: int) -> int:
    return (card - 1) % 13  # Ace 0 .. King 12


def builds_on(spec: VariantSpec, card: int, top: int) -> bool:
    """May ``card`` go onto column top ``top`` (0: an empty column)?"""
    if top == 0:
        return spec.empty_column is EmptyColumn.ANY or _rank(card) == 12
    if _rank(top) != _rank(card) + 1:
        return False
    build = spec.build.value
    if build == "same_suit":
        return _suit(top) == _suit(card)
    if build == "alternate_colour":
        return (_suit(top) in (1, 2)) != (_suit(card) in (1, 2))  # D, H red
    return _suit(top) != _suit(card)


def sequence_length(spec: VariantSpec, state: GameState, column: int) -> int:
    """Cards in the sequence at the end of ``column`` (face-up cards only), 0 if empty."""
    col = state.tableau[column]
    if not col:
        return 0
    k = len(col) - 1
    while k > state.face_down[column] and builds_on(spec, col[k], col[k - 1]):
        k -= 1
    return len(col) - k


def _fits_foundation(state: GameState, card: int) -> bool:
    s2, r = 2 * _suit(card), _rank(card)
    return state.foundations[s2] == r or state.foundations[s2 + 1] == r


def legal_actions(spec: VariantSpec, state: GameState) -> list[int]:
    """Every legal action of ``state``, ascending."""
    codec = codec_for(spec)
    acts: list[int] = []
    c = spec.n_columns
    if state.stock:
        acts.append(codec.encode(DRAW))
    elif state.redeals_left and state.waste:
        acts.append(codec.encode(REDEAL))
    tops = [col[-1] if col else 0 for col in state.tableau]
    if state.waste:
        w = state.waste[-1]
        if _fits_foundation(state, w):
            acts.append(codec.encode(WASTE_TO_FOUNDATION))
        acts += [
            codec.encode(WASTE_TO_COLUMN, destination=j)
            for j in range(c)
            if builds_on(spec, w, tops[j])
        ]
    for i in range(c):
        if tops[i] and _fits_foundation(state, tops[i]):
            acts.append(codec.encode(COLUMN_TO_FOUNDATION, source=i))
    for i in range(c):
        col = state.tableau[i]
        if not col:
            continue
        longest = sequence_length(spec, state, i) if spec.sequence_moves else 1
        for j in range(c):
            if j == i:
                continue
            for n in range(1, longest + 1):
                if builds_on(spec, col[-n], tops[j]):
                    acts.append(codec.encode(COLUMN_TO_COLUMN, i, j, n))
    return sorted(acts)


def apply(spec: VariantSpec, state: GameState, action: int) -> int:
    """Play a legal ``action`` in ``state`` in place; return the cards put up (0 or 1)."""
    kind, src, dst, n = codec_for(spec).decode(action)
    if kind == DRAW:
        for _ in range(min(spec.deal_count, len(state.stock))):
            state.waste.append(state.stock.pop())
        return 0
    if kind == REDEAL:
        state.stock[:] = state.waste[::-1]
        state.waste.clear()
        state.redeals_left -= 1
        return 0
    if kind in (WASTE_TO_COLUMN, WASTE_TO_FOUNDATION):
        card = state.waste.pop()
        if kind == WASTE_TO_COLUMN:
            state.tableau[dst].append(card)
            return 0
    else:
        col = state.tableau[src]
        moved = col[len(col) - n :]
        del col[len(col) - n :]
        if state.face_down[src] and len(col) == state.face_down[src]:
            state.face_down[src] -= 1  # the face-down card left on top turns face up
        if kind == COLUMN_TO_COLUMN:
            state.tableau[dst].extend(moved)
            return 0
        (card,) = moved
    pile = 2 * _suit(card)
    if state.foundations[pile] != _rank(card):
        pile += 1  # the first pile of the suit that takes it
    state.foundations[pile] += 1
    state.foundation_cards += 1
    return 1


def greedy_move_score(action: int, view: PlayerView, rules: Rules) -> float:
    """The greedy rule's score (the table of :mod:`fortythieves_env.greedy`) of ``action``
    in the position a player sees as ``view``, restated over the view's lists."""
    kind, src, dst, n = rules.decode(action)
    if kind == DRAW:
        return g.S_DRAW
    if kind == REDEAL:
        return g.S_REDEAL
    if kind == WASTE_TO_FOUNDATION:
        return g.S_TO_FOUNDATION
    tableau = view.tableau  # face-up cards only
    if kind == WASTE_TO_COLUMN:
        if tableau[dst]:
            return g.S_WASTE_ONTO_CARD
        king = view.waste and _rank(view.waste[-1]) == 12
        return g.S_KING_TO_EMPTY if king else g.S_WASTE_TO_EMPTY
    column = tableau[src]
    start = len(column) - n  # index (among the face-up cards) of the first moved card
    reveals = start == 0 and view.face_down[src] > 0
    empties = start == 0 and view.face_down[src] == 0
    if kind == COLUMN_TO_FOUNDATION:
        return g.S_TO_FOUNDATION_REVEALS if reveals else g.S_TO_FOUNDATION
    dst_empty = not tableau[dst]
    if reveals:
        return g.S_REVEALS
    if empties:
        return g.S_POINTLESS if dst_empty else g.S_EMPTIES_ONTO_CARD
    if builds_on(rules.spec, column[start], column[start - 1]):  # already built on its card
        return g.S_POINTLESS
    return g.S_PART_TO_EMPTY if dst_empty else g.S_BUILD_FREES
