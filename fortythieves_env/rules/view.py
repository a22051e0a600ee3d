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

Agents that must not cheat (the greedy baseline of :mod:`fortythieves_agents.players.baselines`)
read only a :class:`PlayerView`. Two positions that differ only in where their unseen cards lie have
equal views.

:func:`view_from_observation` rebuilds the view from an observation (and the stock's order
the player remembers); :func:`determinize` places the unseen cards to make a full position
the player could be in (what a search agent samples, :mod:`fortythieves_agents.players.search`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .engine import Rules, rules_for
from .observation import OBSERVATION_VERSIONS, ObservationLayout
from .state import GameState
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


def view_from_observation(
    variant: str | VariantSpec | Rules, obs: np.ndarray, stock: Sequence[int] | None = None
) -> PlayerView:
    """The :class:`PlayerView` an observation shows, plus the stock's order if known.

    An observation (:mod:`.observation`) holds every face-up card, the waste, the
    foundations and the face-down and stock *counts*: the view's fields. The stock's order
    after a redeal is in an observation of version 1 (its known-stock slots), and is read
    from there; a version-0 observation does not hold it, and the player knows it only by
    remembering the waste they turned over: ``stock`` passes that memory in. So
    ``view_from_observation(v, obs(state), known)`` equals ``player_view(v, state)`` when
    ``known`` is ``state.stock`` after a redeal and None before one (or for version 1).

    Args:
        variant: a variant id, :class:`VariantSpec` or :class:`Rules`.
        obs: one observation (``uint8``, shape ``(layout.size,)``) of any observation
            version (told apart by its length).
        stock: the stock's order, bottom to top, as the player remembers it; only after a
            redeal (``redeals_left < spec.redeals``). None: not known, and the stock's
            cards count as unseen (a player who did not watch the redeal).

    Raises:
        ValueError: ``obs`` has the wrong shape for the variant, or shows a card code
            outside 0..52 or more than two copies of a card (with ``stock``); ``stock`` is
            given before any redeal or its length differs from the stock count.
    """
    spec = variant.spec if isinstance(variant, Rules) else rules_for(get_variant(variant)).spec
    row = np.asarray(obs)
    sizes = sorted({ObservationLayout.for_variant(spec, v).size for v in OBSERVATION_VERSIONS})
    if row.ndim != 1 or row.shape[0] not in sizes:
        raise ValueError(
            f"view_from_observation({spec.id}): need an observation of shape "
            f"{' or '.join(f'({n},)' for n in sizes)}, got {row.shape}"
        )
    layout = ObservationLayout.for_size(spec, row.shape[0])
    values = row.astype(np.int64).tolist()
    cards = values[: layout.n_card_slots]
    if min(cards) < 0 or max(cards) > 52:
        raise ValueError(f"view_from_observation({spec.id}): a card code outside 0..52")
    v = layout.column_slots
    tableau = tuple(
        tuple(c for c in cards[i * v : (i + 1) * v] if c) for i in range(layout.n_columns)
    )
    waste = tuple(c for c in values[layout.waste] if c)
    foundations = tuple(values[layout.foundations])
    face_down = tuple(values[layout.face_down])
    stock_size = values[layout.stock]
    redeals_left = values[layout.redeals_left]
    if layout.stock_slots and stock is None and redeals_left < spec.redeals:
        # version 1 shows the known stock, the next card dealt first
        stock = tuple(reversed([c for c in values[layout.known_stock] if c]))
    if stock is not None:
        if redeals_left >= spec.redeals:
            raise ValueError(
                f"view_from_observation({spec.id}): a stock order was given, but no redeal "
                "has happened (a player cannot know it)"
            )
        if len(stock) != stock_size:
            raise ValueError(
                f"view_from_observation({spec.id}): the stock order has {len(stock)} cards, "
                f"the observation {stock_size}"
            )
    seen = Counter(card for col in tableau for card in col)
    seen.update(waste)
    for k, height in enumerate(foundations):
        seen.update(range((k // 2) * 13 + 1, (k // 2) * 13 + 1 + height))
    if stock is not None:
        seen.update(stock)
    extra = sorted(code for code, n in seen.items() if n > 2)
    if extra:
        raise ValueError(
            f"view_from_observation({spec.id}): more than two copies of card code(s) {extra}"
        )
    return PlayerView(
        variant=spec.id,
        tableau=tableau,
        face_down=face_down,
        waste=waste,
        foundations=foundations,
        stock_size=stock_size,
        stock=None if stock is None else tuple(int(c) for c in stock),
        redeals_left=redeals_left,
        unseen=tuple(sorted((_TWO_DECKS - seen).elements())),
    )


def determinize(view: PlayerView, cards: Sequence[int]) -> GameState:
    """A full position the player could be in: ``view`` with its unseen cards placed.

    ``cards`` (a permutation of ``view.unseen``) fill the hidden places in this order:
    the face-down cards of column 0 bottom to top, then column 1's, ..., then, when the
    view does not know the stock's order, the stock bottom to top. A uniformly random
    permutation gives a uniform draw from the player's belief, which is exact: the deal
    is uniform, the game deterministic and the player's moves depend on the view alone,
    so every placement of the unseen cards consistent with what was seen is equally
    likely (``docs/solver_design.md`` section 5.1).

    Raises:
        ValueError: ``cards`` is not a permutation of ``view.unseen``, or the view's
            counts do not add up (face-down and unknown stock slots != unseen cards).
    """
    if sorted(cards) != list(view.unseen):
        raise ValueError("determinize: cards must be a permutation of view.unseen")
    hidden = sum(view.face_down) + (view.stock_size if view.stock is None else 0)
    if hidden != len(view.unseen):
        raise ValueError(
            f"determinize: the view hides {hidden} places but has {len(view.unseen)} unseen cards"
        )
    fill = [int(c) for c in cards]
    tableau, k = [], 0
    for col, fd in zip(view.tableau, view.face_down, strict=True):
        tableau.append(fill[k : k + fd] + list(col))
        k += fd
    stock = fill[k:] if view.stock is None else list(view.stock)
    return GameState(
        tableau=tableau,
        face_down=list(view.face_down),
        stock=stock,
        waste=list(view.waste),
        foundations=list(view.foundations),
        redeals_left=view.redeals_left,
        foundation_cards=sum(view.foundations),
    )


def encode_view(layout: ObservationLayout, view: PlayerView) -> np.ndarray:
    """The observation (``layout``'s) of a position a player sees as ``view`` (``uint8``,
    ``(layout.size,)``, a new array): the reference of what the observation holds, written
    from the player's view alone. Equal to what :meth:`ObservationLayout.write` writes for
    the position.

    Raises:
        ValueError: ``view`` does not fit this layout (more cards than slots).
    """
    out = np.zeros(layout.size, dtype=np.uint8)
    for i, col in enumerate(view.tableau):
        if len(col) > layout.column_slots:
            raise ValueError(f"column {i} shows {len(col)} cards, more than its slots")
        out[i * layout.column_slots : i * layout.column_slots + len(col)] = col
    out[layout.waste.start : layout.waste.start + len(view.waste)] = view.waste
    if layout.stock_slots and view.stock is not None:
        start = layout.known_stock.start
        out[start : start + len(view.stock)] = view.stock[::-1]
    out[layout.foundations] = view.foundations
    out[layout.face_down] = view.face_down
    out[layout.stock] = view.stock_size
    out[layout.redeals_left] = view.redeals_left
    return out
