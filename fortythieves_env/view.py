"""What one player knows of a position: the visible cards, and counts of what is unseen.

A :class:`GameState` holds everything, the face-down cards and the stock's order included.
A player sees less. :func:`player_view` keeps exactly what a player at the table knows, who
remembers what they have seen (RULES.md: face-down cards and the stock are face down; the
waste and every face-up card are visible):

* every face-up card of the tableau, the waste and the foundations;
* how many cards are face down under each column, and how many are in the stock;
* the stock's order, but only once a redeal has happened (``redeals_left < spec.redeals``):
  a redeal turns the waste over unshuffled, so every card then in the stock passed over the
  waste face up, in an order the player saw (RULES.md, Little Forty). Before the first
  redeal the stock is unknown;
* the multiset of unseen cards: the two decks minus everything the player sees or knows.
  Which unseen card is where is not in the view.

Agents that must not cheat (the greedy baseline of :mod:`agents.baselines`) read only a
:class:`PlayerView`. Two positions that differ only in where their unseen cards lie have
equal views.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .engine import GameState, Rules, rules_for
from .variants import VariantSpec, get_variant

_TWO_DECKS = Counter({code: 2 for code in range(1, 53)})


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One player's knowledge of a position. Cards are codes 1..52 (:mod:`.cards`).

    Attributes:
        variant: the variant's id.
        tableau: ``tableau[i]`` is column i's face-up cards, bottom to top (the face-down
            cards under them are counted in ``face_down``, not shown).
        face_down: face-down cards under each column.
        waste: the waste, bottom to top (the last card is playable).
        foundations: the 8 pile heights (0..13); piles ``2*s`` and ``2*s+1`` are suit ``s``.
        stock_size: cards in the stock.
        stock: the stock's order (bottom to top, the last card is dealt next) when the player
            knows it, i.e. after a redeal; else ``None``.
        redeals_left: redeals still allowed.
        unseen: the cards the player has not seen, as a sorted tuple of codes (each code at
            most twice): the face-down cards, and the stock while its order is unknown.
    """

    variant: str
    tableau: tuple[tuple[int, ...], ...]
    face_down: tuple[int, ...]
    waste: tuple[int, ...]
    foundations: tuple[int, ...]
    stock_size: int
    stock: tuple[int, ...] | None
    redeals_left: int
    unseen: tuple[int, ...]

    @property
    def foundation_cards(self) -> int:
        """Cards on the foundations (0..104)."""
        return sum(self.foundations)


def player_view(variant: str | VariantSpec | Rules, state: GameState) -> PlayerView:
    """Return what a player knows of ``state`` in ``variant`` (see the module docstring).

    Args:
        variant: a variant id, :class:`VariantSpec` or :class:`Rules`.
        state: the position (not changed; the view shares nothing with it).
    """
    spec = variant.spec if isinstance(variant, Rules) else rules_for(get_variant(variant)).spec
    tableau = tuple(tuple(col[fd:]) for col, fd in zip(state.tableau, state.face_down, strict=True))
    stock_known = state.redeals_left < spec.redeals
    seen = Counter(card for col in tableau for card in col)
    seen.update(state.waste)
    for k, height in enumerate(state.foundations):
        seen.update(range((k // 2) * 13 + 1, (k // 2) * 13 + 1 + height))
    if stock_known:
        seen.update(state.stock)
    return PlayerView(
        variant=spec.id,
        tableau=tableau,
        face_down=tuple(state.face_down),
        waste=tuple(state.waste),
        foundations=tuple(state.foundations),
        stock_size=len(state.stock),
        stock=tuple(state.stock) if stock_known else None,
        redeals_left=state.redeals_left,
        unseen=tuple(sorted((_TWO_DECKS - seen).elements())),
    )
