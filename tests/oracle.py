"""A second, independent statement of the move rules, for the tests only: the oracle.

The package states each rule once, in its compiled core (:mod:`fortythieves_env.core`,
which :class:`~fortythieves_env.Rules` calls). This module restates legal-move generation
and a move's effect on plain Python lists, written from ``RULES.md`` without the core's
code, so that ``tests/env/test_rules_oracle.py`` can compare the two on many games: a change of
the core that changes a legal move or its effect shows up there as a disagreement. (Until
issue 27 this list-based code was the package's Python engine; it now lives here and nowhere
else.)

It restates the greedy rule's scores too (:func:`greedy_move_score`, over a
:class:`~fortythieves_env.rules.view.PlayerView`; the numbers come from the package's table).

The move functions read the variant's rule fields directly: the build rule (common rules 4-5),
what an empty column takes (``VariantSpec.empty_column``), sequence moves, the draw, the
redeals. Each member of the rule enums (:class:`~fortythieves_env.Build`,
:class:`~fortythieves_env.EmptyColumn`) is stated here by its own branch, and a member the
oracle does not state is a ``NotImplementedError``, never a silent fallback: a rule added to
the package and not here fails ``tests/env/test_rule_space.py``. :func:`why_illegal` restates
the reason the package gives for each refused move, per rule.
"""

from __future__ import annotations

from fortythieves_env import GameState, Rules, VariantSpec
from fortythieves_env.rules import greedy as g
from fortythieves_env.rules.actions import (
    COLUMN_TO_COLUMN,
    COLUMN_TO_FOUNDATION,
    DRAW,
    REDEAL,
    WASTE_TO_COLUMN,
    WASTE_TO_FOUNDATION,
    codec_for,
)
from fortythieves_env.rules.view import PlayerView

__all__ = [
    "apply",
    "builds_on",
    "card_name",
    "empty_column_takes",
    "greedy_move_score",
    "legal_actions",
    "sequence_length",
    "why_illegal",
]


def _suit(card: int) -> int:
    return (card - 1) // 13  # C, D, H, S


def _rank(card: int) -> int:
    return (card - 1) % 13  # Ace 0 .. King 12


def card_name(card: int) -> str:
    """``"QC"``: rank then suit (RULES.md's card names)."""
    return "A23456789TJQK"[_rank(card)] + "CDHS"[_suit(card)]


def empty_column_takes(spec: VariantSpec, card: int) -> bool:
    """May ``card`` (a sequence's first card) go into an empty column? RULES.md's common rule
    5 (``"any"``), or a custom variant's other rule, each stated here by its own branch.

    Raises:
        NotImplementedError: the oracle does not state ``spec.empty_column``.
    """
    rule = spec.empty_column.value
    if rule == "any":
        return True
    if rule == "kings":
        return _rank(card) == 12
    raise NotImplementedError(f"the oracle states no empty-column rule {rule!r}")


def _empty_column_words(spec: VariantSpec) -> str:
    """What an empty column takes, as a refused move into one says it."""
    rule = spec.empty_column.value
    if rule == "any":
        return "any card"
    if rule == "kings":
        return "only a King"
    raise NotImplementedError(f"the oracle states no empty-column rule {rule!r}")


def builds_on(spec: VariantSpec, card: int, top: int) -> bool:
    """May ``card`` go onto column top ``top`` (0: an empty column)?

    Raises:
        NotImplementedError: the oracle does not state ``spec.build`` or ``spec.empty_column``.
    """
    if top == 0:
        return empty_column_takes(spec, card)
    if _rank(top) != _rank(card) + 1:
        return False
    build = spec.build.value
    if build == "same_suit":
        return _suit(top) == _suit(card)
    if build == "alternate_colour":
        return (_suit(top) in (1, 2)) != (_suit(card) in (1, 2))  # D, H red
    if build == "other_suit":
        return _suit(top) != _suit(card)
    raise NotImplementedError(f"the oracle states no build rule {build!r}")


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


def why_illegal(
    spec: VariantSpec, state: GameState, action: int, legal: list[int] | None = None
) -> str:
    """Why ``action`` is illegal in ``state`` (``""`` if it is legal), in the words
    :meth:`fortythieves_env.Rules.why_illegal` uses, restated rule by rule. ``legal``: the
    oracle's :func:`legal_actions` of ``state``, if the caller has them."""
    if legal is None:
        legal = legal_actions(spec, state)
    if state.foundation_cards == 104:
        return "the game is over (won)"
    if action in legal:
        return ""
    reason = _reason(spec, state, action)
    return reason if legal else f"the game is over (lost: no legal move left); {reason}"


def _reason(spec: VariantSpec, state: GameState, action: int) -> str:
    """The reason an illegal ``action`` gives (:func:`why_illegal`)."""
    kind, src, dst, n = codec_for(spec).decode(action)
    if kind == DRAW:
        return "the stock is empty"
    if kind == REDEAL:
        if spec.redeals == 0:
            return f"{spec.name} has no redeals"
        if state.stock:
            return "the stock is not empty yet"
        return "no redeals are left" if not state.redeals_left else "the waste is empty"
    if kind in (WASTE_TO_FOUNDATION, WASTE_TO_COLUMN):
        if not state.waste:
            return "the waste is empty"
        card = state.waste[-1]
    else:
        column = state.tableau[src]
        if not column:
            return f"column t{src} is empty"
        length = sequence_length(spec, state, src) if spec.sequence_moves else 1
        if n > length:
            return f"column t{src} ends in a sequence of {length} card(s), not {n}"
        card = column[-n]
    if kind in (WASTE_TO_FOUNDATION, COLUMN_TO_FOUNDATION):
        return f"no foundation takes {card_name(card)}"
    if not state.tableau[dst]:
        return f"an empty column takes {_empty_column_words(spec)} here, not {card_name(card)}"
    top = state.tableau[dst][-1]
    build = {
        "same_suit": "same suit",
        "alternate_colour": "alternate colour",
        "other_suit": "other suit",
    }[spec.build.value]
    return f"{card_name(card)} does not go onto {card_name(top)} (build: {build}, one rank lower)"


def greedy_move_score(action: int, view: PlayerView, rules: Rules) -> float:
    """The greedy rule's score (the table of :mod:`fortythieves_env.rules.greedy`) of ``action``
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
