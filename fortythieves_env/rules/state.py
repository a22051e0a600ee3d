"""A position as plain Python lists: :class:`GameState`, the format of the public API.

The compiled rules core (:mod:`.core`) packs it into a state array and back; the rules'
API (:class:`~fortythieves_env.Rules`), positions in the rule book's format
(:mod:`.positions`) and the observation writer (:mod:`.observation`) read it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GameState"]


@dataclass(slots=True)
class GameState:
    """One position, mutable. Cards are codes 1..52 (see :mod:`fortythieves_env.rules.cards`).

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
