"""PySolFC's deals: game number N of a variant laid out as PySolFC deals it.

``env.reset(options={"pysol_deal": N})`` starts game number ``N`` (1 <= N < 10**20) as
PySolFC deals it, so a player can compare with PySolFC card for card. The shuffle is the
``pysol-cards`` package's (BSD licence, ``pip install -e ".[pysol]"`` in the checkout), which
reproduces PySolFC's shuffle of two decks; the layout follows ``RULES.md`` (last section):

* the 104 shuffled cards are dealt from the end of the list (its last card comes out first),
  row by row across the columns from left to right, the face-down rows first;
* PySolFC then turns one card onto the waste. **Here that card stays on top of the stock**
  (the rule book starts with an empty waste), so the first ``draw`` deals it and the game
  goes on exactly as PySolFC's from there;
* the rest is the stock.

Game numbers below 32000 use PySolFC's FreeCell-compatible generator and the others a
Mersenne Twister. ``pysol-cards``'s ``shuffle`` counts 32000 itself as small; PySolFC counts
it as large, so game 32000 is shuffled here with ``pysol-cards``'s Mersenne Twister directly.

Which variants: those whose deal PySolFC shares (:data:`PYSOL_GAMES`): every built-in
variant except Lucas. PySolFC's Lucas (game 125) deals 13 columns of 4 from all 104 cards;
ours takes the 8 Aces out and deals 13 columns of 3, so no game number gives our Lucas deal.
Custom variants have no PySolFC game. PySolFC also plays Little Forty by other rules
(RULES.md, last section): the deal is the same, the game after it is not.
"""

from __future__ import annotations

import operator
from typing import Any

from .cards import RANKS
from .variants import VARIANTS, VariantSpec, get_variant

PYSOL_GAMES: dict[str, int] = {
    variant_id: VARIANTS[variant_id].pysol_id  # type: ignore[misc]
    for variant_id in (
        "FortyThieves",
        "Indian",
        "Limited",
        "LittleForty",
        "Maria",
        "NumberTen",
        "RankAndFile",
        "Streets",
    )
}
"""The variants whose deal PySolFC shares: our id -> PySolFC's game id."""

REFUSED: dict[str, str] = {
    "Lucas": (
        "PySolFC's Lucas (game 125) deals 13 columns of 4 cards from all 104 cards, while "
        "this package's Lucas (RULES.md) takes the 8 Aces out and deals 13 columns of 3: "
        "no PySolFC game number gives this deal"
    ),
}
"""Built-in variants refused, with the reason."""

MAX_DEAL = 10**20 - 1
"""The largest game number PySolFC deals (20 digits)."""

_SMALL_LIMIT = 32000
"""PySolFC shuffles game numbers below this with its FreeCell-compatible generator."""


def pysol_shuffle(n: int) -> list[str]:
    """The 104 cards of PySolFC's game number ``n``, in its shuffled order.

    Returns:
        Card names (``"TH"``), a new list in ``pysol-cards``'s order: PySolFC deals the
        **last** card first.

    Raises:
        ValueError: ``n`` is not an integer in ``1..MAX_DEAL``.
        ImportError: ``pysol-cards`` is not installed (the message says how to install it).
    """
    n = _check_number(n)
    try:
        from pysol_cards.cards import createCards
        from pysol_cards.random import MTRandom, shuffle
        from pysol_cards.random_base import RandomBase
    except ImportError as err:  # pragma: no cover - depends on the installed extras
        raise ImportError(
            "PySolFC deals need the pysol-cards package: pip install -e '.[pysol]' in the "
            "fortythieves checkout (or pip install pysol-cards)"
        ) from err
    cards = createCards(2)
    if n == _SMALL_LIMIT:  # pysol-cards counts 32000 as small, PySolFC as large
        cards = MTRandom(n).shuffle(cards)
    else:
        cards = shuffle(cards, n, RandomBase.DEALS_PYSOLFC)
    # pysol-cards' Card: rank 1..13, suit letter from suit_s() (its suits are ordered CSHD)
    return [RANKS[card.rank - 1] + card.suit_s() for card in cards]


def pysol_position(variant: str | VariantSpec, n: int) -> dict[str, Any]:
    """The position at the start of PySolFC's game number ``n`` of ``variant``.

    Args:
        variant: a variant id or spec; one of :data:`PYSOL_GAMES` (a custom spec equal to
            the built-in one counts as it).
        n: PySolFC's game number, ``1..MAX_DEAL``.

    Returns:
        A position in the rule book's format (``reset(options={"state": ...})`` takes it):
        the tableau dealt as PySolFC deals it, the waste empty and the card PySolFC turns
        onto the waste on top of the stock (see the module docstring).

    Raises:
        ValueError: the variant's deal is not PySolFC's (Lucas: the reason is given; custom
            variants), or ``n`` is out of range or not an integer.
        ImportError: ``pysol-cards`` is not installed.
    """
    spec = get_variant(variant)
    if spec.id in REFUSED:
        raise ValueError(f"no PySolFC deal for {spec.name} ({spec.id}): {REFUSED[spec.id]}")
    if spec.id not in PYSOL_GAMES or spec != VARIANTS[spec.id]:
        raise ValueError(
            f"no PySolFC deal for variant {spec.id!r}: PySolFC deals are laid out for "
            + ", ".join(PYSOL_GAMES)
        )
    return _deal(spec, pysol_shuffle(n))


def _deal(spec: VariantSpec, cards: list[str]) -> dict[str, Any]:
    """Lay out ``cards`` (PySolFC's order: the last card comes out first) for ``spec``."""
    out = cards[::-1]  # the order the cards come out
    columns = spec.n_columns
    tableau: list[list[str]] = [[] for _ in range(columns)]
    for k in range(spec.tableau_cards):
        tableau[k % columns].append(out[k])  # row by row, left to right
    return {
        "variant": spec.id,
        "tableau": tableau,
        "face_down": [spec.face_down] * columns,
        # bottom to top: the card PySolFC turns onto the waste is the last, dealt next
        "stock": cards[: len(cards) - spec.tableau_cards],
        "waste": [],
        "foundations": [[] for _ in range(8)],
        "redeals_left": spec.redeals,
    }


def _check_number(n: object) -> int:
    """Return ``n`` as an int in ``1..MAX_DEAL`` or raise ``ValueError`` naming the problem."""
    if isinstance(n, bool):
        raise ValueError(f"pysol_deal must be an integer game number, got {n!r}")
    try:
        value = operator.index(n)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(f"pysol_deal must be an integer game number, got {n!r}") from None
    if not 1 <= value <= MAX_DEAL:
        raise ValueError(f"pysol_deal must be a game number in 1..{MAX_DEAL}, got {value}")
    return value
