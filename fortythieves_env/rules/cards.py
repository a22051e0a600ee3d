"""Cards and their codes.

A card is stored as a small integer *code* from 1 to 52; 0 means "no card"
(an empty slot or an empty column)::

    code = suit * 13 + rank + 1

with ``suit`` 0..3 for ``C D H S`` (clubs, diamonds, hearts, spades) and ``rank``
0..12 for ``A 2 3 4 5 6 7 8 9 T J Q K`` (Ace low). So ``AC`` is 1, ``KC`` is 13,
``AD`` is 14 and ``KS`` is 52. The same code is used in the observation.
Diamonds and hearts are red, clubs and spades black (``RULES.md``, "Terms").
"""

from __future__ import annotations

from .checks import is_int

RANKS = "A23456789TJQK"
SUITS = "CDHS"
N_CODES = 53
"""Number of card codes including 0 (no card)."""
N_CARDS = 104
"""Cards in the game: two standard decks of 52 (``RULES.md``, "Terms"); a game is won when
all of them are on the foundations."""

#: ``RANK[code]`` is 0 (Ace) .. 12 (King); ``RANK[0]`` is -1.
RANK: tuple[int, ...] = (-1, *(c % 13 for c in range(52)))
#: ``SUIT[code]`` is 0..3 (C, D, H, S); ``SUIT[0]`` is -1.
SUIT: tuple[int, ...] = (-1, *(c // 13 for c in range(52)))
#: ``RED[code]`` is True for diamonds and hearts.
RED: tuple[bool, ...] = (False, *(c // 13 in (1, 2) for c in range(52)))

CARD_NAMES: tuple[str, ...] = ("--", *(RANKS[c % 13] + SUITS[c // 13] for c in range(52)))
_CODE_BY_NAME = {name: code for code, name in enumerate(CARD_NAMES) if code}


def card_code(name: str) -> int:
    """Return the code (1..52) of a card written like ``"TH"`` or ``"AS"``.

    Raises:
        ValueError: ``name`` is not a card (rank from ``A23456789TJQK`` then suit from ``CDHS``).
    """
    code = _CODE_BY_NAME.get(name) if isinstance(name, str) else None
    if code is None:
        raise ValueError(
            f"unknown card {name!r}: a card is a rank from {RANKS!r} followed by a suit "
            f"from {SUITS!r}, like 'TH' or 'AS'"
        )
    return code


def card_name(code: int) -> str:
    """Return the two-letter name of card ``code`` (1..52), e.g. ``card_name(1) == "AC"``.

    Raises:
        TypeError: ``code`` is not an integer (``bool`` and floats are not card codes).
        ValueError: ``code`` is an integer outside 1..52.
    """
    if not is_int(code):
        raise TypeError(f"a card code is an integer 1..52, got {code!r}")
    if not 1 <= code <= 52:
        raise ValueError(f"card code must be 1..52, got {code}")
    return CARD_NAMES[code]
