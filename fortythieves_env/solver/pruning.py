"""The solver's pruning rules and move order, on the packed state arrays of :mod:`..rules.core`.

Shared by the solver's passes (:mod:`.rollout`, :mod:`.beam`, :mod:`.search`) and the search agents
(:func:`pruned_moves` reads only what a player sees). Each rule is *safe*: if some line wins
within ``k`` steps, one that obeys the rule wins within ``k`` steps too (the argument is in
each function's docstring; ``docs/solver_design.md`` sections 2 and 4 in full):

* ``F`` (:func:`_safe_foundation`): a foundation move that cannot hurt is played at once,
  as the only child.
* ``W`` (:func:`_children`): never move a whole column into an empty column.
* ``E`` (:func:`_children`): of the moves that differ only in which empty column they
  fill, keep the one into the first empty column.
"""

from __future__ import annotations

import numpy as np

from ..rules.actions import (
    COLUMN_TO_COLUMN,
    COLUMN_TO_FOUNDATION,
    DRAW,
    REDEAL,
    WASTE_TO_COLUMN,
    WASTE_TO_FOUNDATION,
)
from ..rules.core import (
    H_ACCEPTS,
    H_C,
    H_DECODE,
    H_FD,
    H_FOUND,
    H_LEN,
    H_SCAL,
    H_V,
    H_WASTE,
    S_NWASTE,
    S_REDEALS,
    _bit_of,
    _fitting_cards,
    _legal_into,
)
from ..rules.jit import kernel
from ..rules.variants import Build, VariantSpec

__all__ = ["ALL_RULES", "RULES", "build_code", "pruned_moves", "rule_flags"]

RULES: tuple[str, ...] = ("F", "W", "E")
"""The pruning rules :func:`~.api.solve` uses unless told otherwise, by name."""
ALL_RULES: tuple[str, ...] = (*RULES, "D")
"""Every rule by name: :data:`RULES` and ``D`` (dead positions, :mod:`.dead`: the
depth-first search settles a position the relaxation shows lost without entering it; not a
default, it costs more time than it saves on most deals)."""

_BUILD_CODE = {Build.SAME_SUIT: 0, Build.ALTERNATE_COLOUR: 1, Build.OTHER_SUIT: 2}
_USE_F, _USE_W, _USE_E, _USE_D = 1, 2, 4, 8


def rule_flags(rules: object, caller: str) -> tuple[tuple[str, ...], int]:
    """The pruning rules used (in :data:`RULES` order) and their bit flags.

    Raises:
        ValueError: a rule not in :data:`RULES`, or a string instead of a sequence; the
            message starts with ``caller``.
    """
    if isinstance(rules, str) or not hasattr(rules, "__iter__"):
        raise ValueError(
            f"{caller}: unknown pruning rules {rules!r}; choose from {list(ALL_RULES)}"
        )
    given = list(rules)  # type: ignore[call-overload]
    if [r for r in given if r not in ALL_RULES]:
        raise ValueError(
            f"{caller}: unknown pruning rules {rules!r}; choose from {list(ALL_RULES)}"
        )
    used = tuple(r for r in ALL_RULES if r in given)
    bits = (_USE_F, _USE_W, _USE_E, _USE_D)
    flags = sum(bit for name, bit in zip(ALL_RULES, bits, strict=True) if name in used)
    return used, flags


# ---------------------------------------------------------------------- pruning rules
@kernel(inline="always")
def _lowest(st: np.ndarray, f0: int, suit: int) -> int:
    """The lower of the two foundation piles of ``suit``."""
    return min(st[f0 + 2 * suit], st[f0 + 2 * suit + 1])


@kernel(_nrt=False)  # no reference counts (allocates nothing): see fortythieves_env.rules.jit
def _safe_foundation(st: np.ndarray, tb: np.ndarray, card: int, build: int) -> bool:
    """Rule F: may ``card``, which fits a foundation pile, be played up at once as the
    only move tried here?

    With ``s``, ``r`` the card's suit and rank (Ace = 1) and a pile of ``s`` at ``r - 1``:

    * every build rule needs the *other* pile of ``s`` at ``r - 1`` or higher (the card
      goes onto the lower pile of its suit);
    * same suit: nothing more (F1);
    * alternate colour: both piles of each suit of the other colour at ``r - 2`` or
      higher, and both piles of the other suit of the card's colour at ``r - 3`` or higher
      (F2, which contains F1);
    * any suit but its own: all 6 piles of the other three suits at ``r - 2`` or higher
      (F2, which contains F1).

    Aces always qualify; so do the 2s of Lucas. The caller applies F to the waste top only
    when no redeal is left (playing a waste card early changes how the later passes
    through the stock group the cards, which the argument below does not cover).

    Why it is safe (two decks; ``docs/solver_design.md`` section 2.1 in full): let a line
    L win from position P and let P' be P with the card ``c`` up.

    * Lemma R: if both piles of suit t are at ``q - 1`` or higher and a copy of (t, q) is
      off, then one pile of t is exactly ``q - 1`` (the piles of t at ``q`` or higher
      number the copies of (t, q) up, at most one), and stays so: that copy can go up
      whenever it is a top.
    * F1: every card that could be put onto ``c`` (its *hosts*, rank ``r - 1``) has both
      copies up, so in L nothing is ever put on ``c``. Delete from L every move of ``c``
      (a sequence move carrying ``c`` on top moves one card fewer). Each kept move stays
      legal: a top card taken away only exposes the card below earlier; a foundation move
      of the twin of ``c`` still finds a pile at ``r - 1`` because the other pile of ``s``
      was at ``r - 1`` or higher. ``c`` has at least one move in L, so the new line is no
      longer.
    * F2: the hosts of ``c`` not yet up are ready to go up for good (Lemma R: their piles
      are at ``r - 2`` or higher), and so is every card that could lie on such a host
      (rank ``r - 2``, piles at ``r - 3`` or higher), while the cards that could lie on
      those are all up. Replace each move of L that puts cards onto ``c`` (or onto a card
      already sent up) by sending those at most two cards up, top first, and delete their
      later moves: each card still costs one move, so the line is no longer.

    The argument never uses what an empty column takes: a line without ``c`` (or without
    the cards sent up) leaves a column empty only where the line's column held just those
    cards, which no move of the line goes onto; so F is safe with Kings-only empty columns
    (:class:`~fortythieves_env.rules.variants.EmptyColumn`) too, and W and E are (the positions
    they merge differ only in the column order). ``tests/env/test_solver.py`` checks all three
    against the exhaustive search on two Kings-only variants.

    Not safe beyond this: without the other pile's condition (the twin stranded on the
    waste above both copies of the card below), or with only ``r - 2`` on the other pile
    in a same-suit game; the design note gives one counterexample each.
    """
    f0 = tb[H_FOUND]
    s = (card - 1) // 13
    r = (card - 1) % 13 + 1
    if _lowest(st, f0, s) < r - 1:
        return False
    if build == 0:  # same suit
        return True
    if build == 1:  # alternate colour: C, S black (0, 3); D, H red (1, 2)
        red = s == 1 or s == 2
        o1, o2 = (0, 3) if red else (1, 2)  # the other colour
        mate = 3 - s  # the other suit of the same colour: C <-> S, D <-> H
        return (
            _lowest(st, f0, o1) >= r - 2
            and _lowest(st, f0, o2) >= r - 2
            and _lowest(st, f0, mate) >= r - 3
        )
    for t in range(4):  # noqa: SIM110  (any suit but its own; a plain loop for numba)
        if t != s and _lowest(st, f0, t) < r - 2:
            return False
    return True


# ---------------------------------------------------------------------- move order
@kernel(inline="always")
def _score(
    st: np.ndarray, tb: np.ndarray, kind: int, src: int, dst: int, n: int, fits: np.uint64
) -> int:
    """The move-ordering score of a legal move (higher is tried first), given decoded: its
    ``kind``, source and target columns and cards (the decode table's four entries), with
    ``fits`` the cards that fit a foundation (:func:`~..rules.core._fitting_cards`).

    A cheap reading of ``docs/solver_design.md`` section 3.1, as integers:
    foundation moves (``1000 - rank``: low cards first); a column move that empties its
    column (850) or turns up a face-down card (800); one that uncovers a card that fits a
    foundation (700); waste onto a column (600); other builds (``500 + cards``, longest
    sequence first); ``draw`` (300); ``redeal`` (250); moves into an empty column
    (``150 + cards``; 250 if it turns up a face-down card); a *lateral* move, whose cards
    already lay on a card that takes them, last (100). Ties keep the ascending action
    order. Ordering changes how fast a line is found, never a verdict.
    """
    if kind == DRAW:
        return 300
    if kind == REDEAL:
        return 250
    v = tb[H_V]
    len0 = tb[H_LEN]
    if kind == WASTE_TO_FOUNDATION:
        card = st[tb[H_WASTE] + st[tb[H_SCAL] + S_NWASTE] - 1]
        return 1000 - ((card - 1) % 13 + 1)
    if kind == COLUMN_TO_FOUNDATION:
        card = st[src * v + st[len0 + src] - 1]
        return 1000 - ((card - 1) % 13 + 1)
    if kind == WASTE_TO_COLUMN:
        return 200 if st[len0 + dst] == 0 else 600
    rest = st[len0 + src] - n
    fd = st[tb[H_FD] + src]
    if st[len0 + dst] == 0:
        return 250 if (fd > 0 and rest == fd) else 150 + n
    if rest == 0:
        return 850
    if fd > 0 and rest == fd:
        return 800
    below = st[src * v + rest - 1]
    if tb[tb[H_ACCEPTS] + below * 53 + st[src * v + rest]]:
        return 100
    if _bit_of(fits, below):
        return 700
    return 500 + n


@kernel(_nrt=False)  # no reference counts (allocates nothing): see fortythieves_env.rules.jit
def _children(
    st: np.ndarray,
    tb: np.ndarray,
    flags: int,
    build: int,
    legal: np.ndarray,
    out: np.ndarray,
    scores: np.ndarray,
) -> int:
    """The moves the search tries from ``st``, best first, into ``out``; returns how many.

    Rule F (``flags & 1``): if a foundation move passes :func:`_safe_foundation` (a column
    top, or the waste top when no redeal is left), it is the only child.

    Rule W (``flags & 2``): a move that carries a whole column (no face-down card under
    it) into an empty column is dropped. *Safe*: the new position is the old one with two
    columns swapped, the same game one step later; a line that makes the move can leave
    it out and is one step shorter.

    Rule E (``flags & 4``): a move into an empty column is kept only into the first empty
    column. *Safe*: moves that differ only in the empty column they fill lead to positions
    that differ only in the column order, which win in the same number of steps.

    ``legal`` and ``scores`` are work arrays of ``n_actions`` integers (the legal moves;
    the move generator's work, then the scores).
    """
    count = _legal_into(st, tb, legal, scores)
    c = tb[H_C]
    v = tb[H_V]
    len0 = tb[H_LEN]
    dec = tb[H_DECODE]
    if flags & 1:
        no_redeal = st[tb[H_SCAL] + S_REDEALS] == 0
        for k in range(count):
            a = legal[k]
            if a >= 3 + 2 * c:  # ascending: the foundation moves (2, 3 + c + i) are first
                break
            kind = tb[dec + 4 * a]
            if kind == COLUMN_TO_FOUNDATION:
                src = tb[dec + 4 * a + 1]
                card = st[src * v + st[len0 + src] - 1]
            elif kind == WASTE_TO_FOUNDATION and no_redeal:
                card = st[tb[H_WASTE] + st[tb[H_SCAL] + S_NWASTE] - 1]
            else:
                continue
            if _safe_foundation(st, tb, card, build):
                out[0] = a
                return 1
    first_empty = -1
    for j in range(c):
        if st[len0 + j] == 0:
            first_empty = j
            break
    fits = _fitting_cards(st, tb)
    m = 0
    for k in range(count):
        a = legal[k]
        o = dec + 4 * a
        kind = tb[o]
        src = tb[o + 1]
        dst = tb[o + 2]
        n = tb[o + 3]
        if (kind == COLUMN_TO_COLUMN or kind == WASTE_TO_COLUMN) and st[len0 + dst] == 0:  # noqa: SIM109
            if (flags & 4) and dst != first_empty:
                continue
            if (flags & 2) and kind == COLUMN_TO_COLUMN and n == st[len0 + src]:
                continue
        sc = _score(st, tb, kind, src, dst, n, fits)
        # insertion sort, descending by score, stable
        q = m
        while q > 0 and scores[q - 1] < sc:
            out[q] = out[q - 1]
            scores[q] = scores[q - 1]
            q -= 1
        out[q] = a
        scores[q] = sc
        m += 1
    return m


def build_code(spec: VariantSpec) -> int:
    """The ``build`` argument of :func:`pruned_moves` for ``spec`` (0 same suit, 1
    alternate colour, 2 any suit but its own)."""
    return _BUILD_CODE[spec.build]


@kernel
def pruned_moves(
    st: np.ndarray,
    tb: np.ndarray,
    build: int,
    legal: np.ndarray,
    out: np.ndarray,
    scores: np.ndarray,
) -> int:
    """The moves the solver tries from ``st`` under rules F, W and E (:func:`_children`),
    best first by :func:`_score`, into ``out``; returns how many.

    One move and a foundation move: rule F found it safe (or it was the only one left).
    Everything read is what a player sees: the legal moves, the column tops and lengths,
    face-up cards, face-down counts and the foundations; never a face-down card or the
    stock. So a search agent may call it on a position whose hidden cards were sampled.

    Args:
        st: state array (``int16``), read only.
        tb: table array (``int32``).
        build: :func:`build_code` of the variant.
        legal, out, scores: ``int32`` work arrays of length ``n_actions``.
    """
    return _children(st, tb, _USE_F | _USE_W | _USE_E, build, legal, out, scores)
