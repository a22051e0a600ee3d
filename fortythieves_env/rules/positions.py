"""Positions in the rule book's public format: writing them, reading and checking them.

A position is the JSON-friendly dict of ``RULES.md`` ("Position and move notation") with
the keys :data:`POSITION_KEYS`. :func:`to_position` writes a :class:`GameState` as one;
:func:`from_position` reads one back after checking that a game of the variant can reach
it, and raises :class:`InvalidPositionError` naming what is wrong otherwise.

Conditions checked by :func:`from_position`, in this order
-------------------------------------------------------------
1. The position is a mapping with exactly the keys :data:`POSITION_KEYS`.
2. ``variant`` is this variant's id.
3. ``tableau`` is a list of ``C`` columns, ``stock`` and ``waste`` lists, ``foundations``
   a list of 8 piles, each a list of card names (``"TH"``); ``face_down`` is a list of
   ``C`` integers.
4. Each foundation pile runs from the Ace up in one suit.
5. Every card is in the game exactly twice: no card three or more times, 104 cards in all.
6. For each column ``i``, with ``d`` = cards the variant deals face down per column:

   a. ``0 <= face_down[i] <= d``;
   b. the top card of a non-empty column is face up (``face_down[i] < len(column)``), and
      an empty column has no face-down card;
   c. if ``face_down[i] < d`` (a face-down card was turned up, or the column was emptied):
      everything face up in the column is one run built down by the variant's build rule.
      A face-down card turns up only when it is the column top, and from then on cards
      join the column only by the build rule (an emptied column takes any card first, only
      a King in a Kings-only custom variant, then builds on it);
   d. otherwise (no dealt face-down card turned up yet): the cards above the dealt ones
      form one run, i.e. at most ``d + face_up - 1`` cards lie under the longest built
      run at the column's end. This also keeps every column within the observation's
      :attr:`VariantSpec.max_visible` slots.
7. Stock and waste together hold at most :attr:`VariantSpec.stock_size` cards.
8. In a variant that starts with the Aces on the foundations (Lucas), no Ace is elsewhere.
9. ``redeals_left`` is an integer from 0 to the variant's redeals.

Whether the game in a position is already over is not checked here (a finished game is a
position too); :meth:`FortyThievesEnv.reset` refuses one, because an episode starts with a
move to play.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .cards import CARD_NAMES, RANK, SUIT, card_code, card_name
from .checks import is_int
from .engine import N_CARDS, InvalidPositionError, Rules, rules_for
from .state import GameState
from .variants import VariantSpec, get_variant

POSITION_KEYS = ("variant", "tableau", "face_down", "stock", "waste", "foundations", "redeals_left")
"""The keys of a position, in the rule book's order."""


def _rules(variant: str | VariantSpec | Rules) -> Rules:
    return variant if isinstance(variant, Rules) else rules_for(get_variant(variant))


def to_position(variant: str | VariantSpec | Rules, state: GameState) -> dict[str, Any]:
    """Return ``state`` in the rule book's position format (a new JSON-friendly dict).

    Only what the format itself needs is checked here (:func:`from_position` checks the
    rest): card codes, face-down counts and the foundation heights.

    Raises:
        InvalidPositionError: ``state`` holds a card that is not a card code (an integer
            1..52), a face-down count that is not an integer, or foundations that are not
            8 pile heights, each an integer 0..13; the message names the entry
            (``tableau[2][5]``, ``face_down[1]``, ``foundations[7]``).
    """
    spec = _rules(variant).spec

    def fail(msg: str) -> InvalidPositionError:
        return InvalidPositionError(f"invalid {spec.id} position: {msg}")

    def names(codes: Sequence[int], where: str) -> list[str]:
        out = []
        for k, code in enumerate(codes):
            try:
                out.append(card_name(code))
            except (ValueError, TypeError) as err:
                raise fail(f"{where}[{k}]: {err}") from None
        return out

    face_down = []
    for i, count in enumerate(state.face_down):
        if not is_int(count):
            raise fail(f"face_down[{i}] must be an integer, got {count!r}")
        face_down.append(int(count))
    heights = state.foundations
    if len(heights) != 8:
        raise fail(f"foundations must be 8 pile heights, got {len(heights)}")
    for k, h in enumerate(heights):
        if not is_int(h) or not 0 <= h <= 13:
            raise fail(f"foundations[{k}] must be a pile height, an integer 0..13, got {h!r}")
    return {
        "variant": spec.id,
        "tableau": [names(col, f"tableau[{i}]") for i, col in enumerate(state.tableau)],
        "face_down": face_down,
        "stock": names(state.stock, "stock"),
        "waste": names(state.waste, "waste"),
        "foundations": [
            [CARD_NAMES[(k // 2) * 13 + r + 1] for r in range(int(h))]
            for k, h in enumerate(heights)
        ],
        "redeals_left": state.redeals_left,
    }


def _check_keys(
    position: Any, spec: VariantSpec, fail: Callable[[str], InvalidPositionError]
) -> None:
    """Conditions 1-2 of the module docstring (:func:`from_position`): a mapping with
    exactly the keys :data:`POSITION_KEYS`, for this variant.

    Raises:
        InvalidPositionError: the first condition broken (``fail(message)``).
    """
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
        raise fail(f"the position is for variant {position['variant']!r}, this game is {spec.id!r}")


def _check_columns(
    spec: VariantSpec,
    accepts: Any,
    tableau: list[list[int]],
    fds: list[int],
    fail: Callable[[str], InvalidPositionError],
) -> None:
    """Condition 6 of the module docstring for every column of :func:`from_position`:
    its face-down count, and that play can reach its face-up cards (``accepts``: the
    variant's build table).

    Raises:
        InvalidPositionError: the first column that breaks one (``fail(message)``).
    """
    build = spec.build.value.replace("_", " ")
    for i, (col, fd) in enumerate(zip(tableau, fds, strict=True)):
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
        if fd < spec.face_down:
            # Condition 6c: a turned-up card (or an emptied column) holds one built run.
            for k in range(fd + 1, len(col)):
                if not accepts[col[k - 1]][col[k]]:
                    raise fail(
                        f"column {i} cannot be reached: face_down[{i}] is {fd}, fewer than "
                        f"the {spec.face_down} dealt face down, so its face-up cards must be "
                        f"one run built down by the {build} rule (a face-down card turns up "
                        f"only as the column top), but {CARD_NAMES[col[k]]} does not build "
                        f"on {CARD_NAMES[col[k - 1]]}"
                    )
            continue
        # Condition 6d: the dealt cards that are left, then one run built on the last one.
        run = 1
        while run < len(col) and accepts[col[-run - 1]][col[-run]]:
            run += 1
        if col and len(col) - run > spec.cards_per_column - 1:
            raise fail(
                f"column {i} cannot be reached: it has {len(col)} cards but only the last "
                f"{run} are built down by the {build} rule; "
                f"a column holds at most the {spec.cards_per_column} dealt to it with a "
                "run built on the last of them"
            )


def from_position(variant: str | VariantSpec | Rules, position: Mapping[str, Any]) -> GameState:
    """Build a new :class:`GameState` from a rule-book position, after checking it.

    Foundation piles may be listed in any order; each must be one suit from the Ace up.
    Every condition checked is listed in the module docstring.

    Raises:
        InvalidPositionError: the first condition the position breaks, e.g. a missing or
            unknown key, a variant mismatch, a wrong number of columns or cards, an unknown
            card, a card more than twice, a face-down count too big, a column no game can
            build (named), a foundation pile out of order, too many redeals left.
    """
    rules = _rules(variant)
    spec = rules.spec
    c = spec.n_columns
    accepts = rules.build_table

    def fail(msg: str) -> InvalidPositionError:
        return InvalidPositionError(f"invalid {spec.id} position: {msg}")

    _check_keys(position, spec, fail)

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
        or not all(is_int(x) for x in fds)
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
    _check_columns(spec, accepts, tableau, fds, fail)
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
    if not is_int(redeals) or not 0 <= redeals <= spec.redeals:
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


def checked_copy(variant: str | VariantSpec | Rules, state: GameState) -> GameState:
    """Return an independent copy of ``state`` after checking it as :func:`from_position` does.

    Raises:
        InvalidPositionError: as :func:`from_position`; also when ``state`` is not a
            :class:`GameState`, or holds what :func:`to_position` refuses (a card that is
            not a card code, a foundation height that is not an integer 0..13, ...).
    """
    rules = _rules(variant)
    if not isinstance(state, GameState):
        raise InvalidPositionError(
            f"invalid {rules.spec.id} position: expected a GameState, got {type(state).__name__}"
        )
    return from_position(rules, to_position(rules, state))
