"""Dead positions: a relaxation that shows a position lost without searching it (rule ``D``
of the depth-first search; issue 39, point 3; ``docs/solver_design.md`` 24.3.5, "frozen
stacks").

:func:`_dead` computes, over the physical cards of a position (each card of a column, of
the waste and of the stock, at its state-array index), the least fixpoint of these facts:

* a column card is *accessible* when every card above it is *movable*; with sequence moves
  also when the cards above it, up to the lowest card from which every card is movable,
  lie on it as a sequence (built by the build rule) in the position, so that it can leave
  as the base of that sequence. A waste card is accessible when every waste card above it
  is movable, every waste card when a redeal is left (the waste becomes the stock). A stock
  card is always accessible (it can be dealt whenever wanted).
* a card *could go up* when it is accessible and a foundation pile of its suit is exactly
  at its rank - 1 now, or an off copy of the card of rank - 1 of its suit could go up.
* a card code *could be a top* when an accessible column card has it, or an accessible card
  with it could move onto the tableau;
* *an empty column could exist* when a column is empty, or every card of some column is
  movable;
* a card is *movable* when it is accessible and it could go up, or some card code that takes
  it by the build rule could be a top, or an empty column could exist and takes it (the
  empty-column rule).

If some card off the foundations could never go up, the position is **dead**: no line wins
from it, at any length.

Why it is sound (every step of any real line is derivable, by induction over the line):
take a line from the position and the first move of each physical card in it. When a card
first moves, every card above it in its pile has moved before (in a column, a card above it
that has not moved yet moves with it in a sequence move, and then lies on it as a sequence
of the position, since none of them moved before; the waste is a stack; the stock is dealt
from the top, so a stock card is taken from the waste top it is dealt to, or from the column
it was put on), so by induction they are movable and the card is accessible. Its destination
was a foundation pile at its rank - 1 (at that height now, or raised there by a copy of the
card below it, which went up earlier: by induction it could go up), a column top (an original
column card whose cards above all moved, hence accessible; or a card put onto the tableau
earlier, which could then move onto the tableau) taking it by the build rule, or an empty
column (empty now, or emptied: every card of it moved, so each is movable) that takes it. So
each moved card is movable and each card sent up could go up, in the fixpoint. A winning line
sends every off card up; so if some off card could never go up, no line wins. Cards that move
again later are never asked about again: the fixpoint treats a card that could once move as
able to move again (that is the relaxation; it only makes more cards movable).

When an empty column exists and takes every card (every variant of RULES.md), every card is
movable and goes up in the fixpoint: the test is skipped at once (:func:`_dead` says False).

The tests (``tests/env/test_dead.py``) check against the breadth-first reference on small end
positions of every build rule, both empty-column rules, sequence moves and redeals that a
position the test calls dead has no winning line, and count that it fires.
"""

from __future__ import annotations

import numpy as np

from ..rules.core import (
    H_ACCEPTS,
    H_C,
    H_FOUND,
    H_LEN,
    H_M,
    H_SCAL,
    H_STOCK,
    H_V,
    H_WASTE,
    S_NSTOCK,
    S_NWASTE,
    S_REDEALS,
)
from ..rules.jit import kernel

__all__ = ["dead", "dead_workspace"]

_MOV, _UP, _TAB = 1, 2, 4
"""Bits of a physical card's entry in the workspace: movable; could go up; could move onto
the tableau."""
_DONE = _UP | _TAB


def dead_workspace(state_size: int) -> np.ndarray:
    """The work array :func:`_dead` needs for states of ``state_size`` entries (``int8``,
    shape ``(state_size + 106,)``: one entry per state index, then the card codes' "could be a
    top" and "a copy could go up" flags, 53 each)."""
    return np.zeros(state_size + 106, dtype=np.int8)


@kernel(inline="always")
def _goes_up(st: np.ndarray, f0: int, upc: int, wk: np.ndarray, card: int) -> bool:
    """Could ``card`` go up, if accessible: a pile of its suit at its rank - 1 now, or an
    off copy of its rank - 1 could go up (``wk[upc + code]``)."""
    s = (card - 1) // 13
    r = (card - 1) % 13  # rank - 1 (Ace 0)
    if st[f0 + 2 * s] == r or st[f0 + 2 * s + 1] == r:
        return True
    return r > 0 and wk[upc + card - 1] != 0


@kernel(inline="always")
def _to_tableau(tb: np.ndarray, topc: int, wk: np.ndarray, card: int, empty: bool) -> bool:
    """Could ``card`` move onto the tableau: a code that takes it could be a top
    (``wk[topc + code]``), or an empty column could exist and takes it."""
    acc = tb[H_ACCEPTS]
    if empty and tb[acc + card] != 0:
        return True
    r = (card - 1) % 13
    if r == 12:  # a King: only an empty column takes it
        return False
    for s in range(4):
        h = 13 * s + r + 2  # the card of rank + 1 in suit s
        if wk[topc + h] != 0 and tb[acc + h * 53 + card] != 0:
            return True
    return False


@kernel(inline="always")
def _update(
    st: np.ndarray,
    tb: np.ndarray,
    f0: int,
    topc: int,
    upc: int,
    wk: np.ndarray,
    idx: int,
    empty: bool,
) -> int:
    """Derive what the accessible card at state index ``idx`` could do: 0 nothing new, 1 new
    facts, 3 new facts among them that it could go up."""
    card = st[idx]
    f = wk[idx]
    new = 0
    if (f & _UP) == 0 and _goes_up(st, f0, upc, wk, card):
        f |= _UP | _MOV
        wk[upc + card] = 1
        new = 2
    if (f & _TAB) == 0 and _to_tableau(tb, topc, wk, card, empty):
        f |= _TAB | _MOV
        wk[topc + card] = 1
    if f != wk[idx]:
        wk[idx] = f
        return new | 1
    return 0


@kernel
def _dead(st: np.ndarray, tb: np.ndarray, wk: np.ndarray) -> bool:
    """Is the position ``st`` dead by the relaxation of the module docstring (no line wins
    from it at all)? ``wk`` is a work array of :func:`dead_workspace` (overwritten). A
    ``True`` is a proof; ``False`` says nothing."""
    c = tb[H_C]
    v = tb[H_V]
    len0 = tb[H_LEN]
    s0 = tb[H_STOCK]
    w0 = tb[H_WASTE]
    f0 = tb[H_FOUND]
    scal = tb[H_SCAL]
    acc = tb[H_ACCEPTS]
    seq = tb[H_M] > 1
    n = scal + 4
    topc = n
    upc = n + 53
    empty = False
    for i in range(c):
        if st[len0 + i] == 0:
            empty = True
    if empty:  # an empty column that takes every card: every card goes up in the fixpoint
        every = True
        for card in range(1, 53):
            if tb[acc + card] == 0:
                every = False
        if every:
            return False
    for k in range(n + 106):
        wk[k] = 0
    ns = st[scal + S_NSTOCK]
    nw = st[scal + S_NWASTE]
    waste_free = st[scal + S_REDEALS] > 0
    off = ns + nw  # cards off the foundations, and how many of them could go up so far
    for i in range(c):
        off += st[len0 + i]
    ups = 0
    changed = True
    while changed and ups < off:  # all could go up: not dead, stop early
        changed = False
        for i in range(c):
            length = st[len0 + i]
            base = i * v
            jm = length  # the lowest index from which every card is movable
            while jm > 0 and (wk[base + jm - 1] & _MOV) != 0:
                jm -= 1
            if length > 0 and jm == 0 and not empty:
                empty = True
                changed = True
            run = True  # with sequence moves: cards k+1 .. jm-1 lie on k as a sequence
            clear = True  # every card above k is movable (as known now, top down)
            for k in range(length - 1, -1, -1):
                idx = base + k
                if k < jm - 1:
                    run = run and tb[acc + st[idx] * 53 + st[idx + 1]] != 0
                if clear or (seq and run):
                    card = st[idx]
                    if wk[topc + card] == 0:
                        wk[topc + card] = 1
                        changed = True
                    if (wk[idx] & _DONE) != _DONE:
                        new = _update(st, tb, f0, topc, upc, wk, idx, empty)
                        if new:
                            changed = True
                            ups += new >> 1
                clear = clear and (wk[idx] & _MOV) != 0
        above = True
        for k in range(nw - 1, -1, -1):
            idx = w0 + k
            if (above or waste_free) and (wk[idx] & _DONE) != _DONE:
                new = _update(st, tb, f0, topc, upc, wk, idx, empty)
                if new:
                    changed = True
                    ups += new >> 1
            above = above and (wk[idx] & _MOV) != 0
        for k in range(ns):
            if (wk[s0 + k] & _DONE) == _DONE:
                continue
            new = _update(st, tb, f0, topc, upc, wk, s0 + k, empty)
            if new:
                changed = True
                ups += new >> 1
    if ups >= off:
        return False
    for i in range(c):
        for k in range(st[len0 + i]):
            if (wk[i * v + k] & _UP) == 0:
                return True
    for k in range(nw):
        if (wk[w0 + k] & _UP) == 0:
            return True
    for k in range(ns):  # noqa: SIM110  (a plain loop for numba)
        if (wk[s0 + k] & _UP) == 0:
            return True
    return False


def dead(st: np.ndarray, tb: np.ndarray) -> bool:
    """Is the position of state array ``st`` (a variant's table array ``tb``) dead: no line
    wins from it at all, shown by the relaxation of :mod:`.dead` without a search? ``False``
    says nothing (most positions, and every position with an empty column that takes every
    card). Allocates its work array; the solver's search keeps one."""
    return bool(_dead(st, tb, dead_workspace(int(tb[H_SCAL]) + 4)))
