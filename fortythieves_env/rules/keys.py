"""The solver's position keys: two 64-bit Zobrist keys of a position up to the column order,
made from scratch (:func:`_full_keys`) or from the parent's by the move (:func:`_child_keys`),
and a child made with its keys (:func:`_make_child`).

Used by the depth-first search's closed set (:mod:`..solver.search`) and the beam search's key table
(:mod:`..solver.beam`).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from .actions import (
    COLUMN_TO_COLUMN,
    COLUMN_TO_FOUNDATION,
    DRAW,
    REDEAL,
    WASTE_TO_COLUMN,
    WASTE_TO_FOUNDATION,
)
from .core import (
    H_C,
    H_DEAL,
    H_DECODE,
    H_FD,
    H_FOUND,
    H_LEN,
    H_REDEALS,
    H_SCAL,
    H_STOCK,
    H_V,
    H_WASTE,
    S_NSTOCK,
    S_NWASTE,
    S_REDEALS,
    _apply,
    _pile_for,
)
from .jit import kernel

__all__ = ["key_tables_for"]

_K2_M1 = np.uint64(0xBF58476D1CE4E5B9)
_K2_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)


# ---------------------------------------------------------------------- keys
_KEY_SEED = 0x5EED_F0_27
"""The seed of the Zobrist tables (fixed: equal inputs, equal keys, equal searches)."""


@cache
def _key_tables(slots: int, stock_slots: int, redeals: int) -> tuple[np.ndarray, ...]:
    """Random ``uint64`` tables of the closed set's two keys (:func:`_full_keys`) for one
    state layout, drawn from a fixed seed (the same in every run): ``zc[k, slot, card]``
    (a card at a slot of a column), ``zd[k, count]`` (a column's face-down count),
    ``zs[k, slot, card]`` (stock), ``zw[k, slot, card]`` (waste), ``zf[k, pile, height]``
    and ``zr[k, redeals left]``, for key ``k`` in 0, 1."""
    rng = np.random.default_rng(_KEY_SEED)

    def draw(*shape: int) -> np.ndarray:
        out = rng.integers(0, 2**64, size=shape, dtype=np.uint64)
        out.flags.writeable = False
        return out

    return (
        draw(2, slots, 105),
        draw(2, slots + 1),
        draw(2, stock_slots, 105),
        draw(2, stock_slots, 105),
        draw(2, 8, 14),
        draw(2, redeals + 2),
    )


def key_tables_for(tables: Any) -> tuple[np.ndarray, ...]:
    """The key tables of a :class:`~.core.FastTables` layout (shared, read-only)."""
    return _key_tables(tables.slots, tables.stock_slots, int(tables.table[H_REDEALS]))


@kernel(inline="always")
def _fin(h: np.uint64) -> np.uint64:
    """splitmix64's finaliser: the column terms are summed only after it (a plain sum of
    the card terms could not tell which column a card lies in)."""
    h ^= h >> _S30
    h *= _K2_M1
    h ^= h >> _S27
    h *= _K2_M2
    h ^= h >> _S31
    return h


@kernel
def _full_keys(
    st: np.ndarray,
    tb: np.ndarray,
    zc: np.ndarray,
    zd: np.ndarray,
    zs: np.ndarray,
    zw: np.ndarray,
    zf: np.ndarray,
    zr: np.ndarray,
    raw: np.ndarray,
    key: np.ndarray,
) -> None:
    """The closed set's two 64-bit keys of ``st`` into ``key[0:2]``, from scratch, and each
    column's raw term into ``raw[i, k]`` (what :func:`_child_keys` updates).

    Key ``k`` = sum over columns of ``fin(raw[i, k])`` + the stock, waste, foundation and
    redeal terms (sums of table entries, modulo 2**64), where ``raw[i, k]`` = sum over the
    column's cards of ``zc[k, slot, card]`` + ``zd[k, face-down count]``. So the key is a
    function of the position **up to the column order** (a sum does not see the order
    of its terms, and two equal columns count twice), and a move changes only the terms
    of what it touches. Two keys from independent tables make a 128-bit key.
    """
    v = tb[H_V]
    len0 = tb[H_LEN]
    fd0 = tb[H_FD]
    scal = tb[H_SCAL]
    for k in range(2):
        total = np.uint64(0)
        for i in range(tb[H_C]):
            h = zd[k, st[fd0 + i]]
            for j in range(st[len0 + i]):
                h += zc[k, j, st[i * v + j]]
            raw[i, k] = h
            total += _fin(h)
        for j in range(st[scal + S_NSTOCK]):
            total += zs[k, j, st[tb[H_STOCK] + j]]
        for j in range(st[scal + S_NWASTE]):
            total += zw[k, j, st[tb[H_WASTE] + j]]
        for p in range(8):
            total += zf[k, p, st[tb[H_FOUND] + p]]
        total += zr[k, st[scal + S_REDEALS]]
        key[k] = total


@kernel(inline="always")
def _child_keys(
    st: np.ndarray,
    tb: np.ndarray,
    action: int,
    zc: np.ndarray,
    zd: np.ndarray,
    zs: np.ndarray,
    zw: np.ndarray,
    zf: np.ndarray,
    raw: np.ndarray,
    key: np.ndarray,
    out: np.ndarray,
) -> None:
    """The keys of the position after ``action`` (not ``REDEAL``) from ``st``, its column
    terms ``raw`` and keys ``key``, without making the position: ``out[0:2]`` the keys,
    ``out[2:4]`` / ``out[4:6]`` the new raw terms of the move's source / target column
    (when it has one). A move touches at most two columns, one end of the waste, one
    stock slot per card drawn and one foundation pile: a few table reads instead of
    hashing all 104 cards (solver version 2 spent 64% of a node on its two keys)."""
    v = tb[H_V]
    d = tb[H_DECODE] + 4 * action
    kind = tb[d]
    src = tb[d + 1]
    dst = tb[d + 2]
    n = tb[d + 3]
    len0 = tb[H_LEN]
    fd0 = tb[H_FD]
    scal = tb[H_SCAL]
    nw = st[scal + S_NWASTE]
    for k in range(2):
        total = key[k]
        card = 0
        if kind == DRAW:
            ns = st[scal + S_NSTOCK]
            w = nw
            for _ in range(min(tb[H_DEAL], ns)):
                ns -= 1
                c = st[tb[H_STOCK] + ns]
                total += zw[k, w, c] - zs[k, ns, c]
                w += 1
        elif kind == WASTE_TO_COLUMN or kind == WASTE_TO_FOUNDATION:  # noqa: SIM109
            card = st[tb[H_WASTE] + nw - 1]
            total -= zw[k, nw - 1, card]
        else:  # COLUMN_TO_COLUMN or COLUMN_TO_FOUNDATION: the source column
            ns = st[len0 + src]
            h = raw[src, k]
            for j in range(ns - n, ns):
                h -= zc[k, j, st[src * v + j]]
            fd = st[fd0 + src]
            if fd > 0 and ns - n == fd:  # the face-down card left on top turns face up
                h += zd[k, fd - 1] - zd[k, fd]
            total += _fin(h) - _fin(raw[src, k])
            out[2 + k] = h
            card = st[src * v + ns - 1]
        if kind == COLUMN_TO_COLUMN or kind == WASTE_TO_COLUMN:  # noqa: SIM109
            nd = st[len0 + dst]
            h = raw[dst, k]
            if kind == WASTE_TO_COLUMN:
                h += zc[k, nd, card]
            else:
                ns = st[len0 + src]
                for j in range(n):
                    h += zc[k, nd + j, st[src * v + ns - n + j]]
            total += _fin(h) - _fin(raw[dst, k])
            out[4 + k] = h
        elif kind == WASTE_TO_FOUNDATION or kind == COLUMN_TO_FOUNDATION:  # noqa: SIM109
            p = _pile_for(st, tb, card)
            h0 = st[tb[H_FOUND] + p]
            total += zf[k, p, h0 + 1] - zf[k, p, h0]
        out[k] = total


@kernel(inline="always")
def _copy(dst: np.ndarray, src: np.ndarray) -> None:
    """``dst[:] = src`` for two 1-d arrays of one length, as a plain loop (numba's slice
    assignment checks the two for overlap first, and copies a state array about half as
    fast)."""
    for q in range(src.shape[0]):
        dst[q] = src[q]


@kernel(inline="always")
def _make_child(
    tb: np.ndarray,
    st: np.ndarray,
    action: int,
    raw: np.ndarray,
    child: np.ndarray,
    child_raw: np.ndarray,
    child_key: np.ndarray,
    kbuf: np.ndarray,
    zc: np.ndarray,
    zd: np.ndarray,
    zs: np.ndarray,
    zw: np.ndarray,
    zf: np.ndarray,
    zr: np.ndarray,
) -> None:
    """Make the position after ``action`` from ``st`` into ``child`` with its column terms
    ``child_raw`` and keys ``child_key``: a redeal's from scratch (:func:`_full_keys`), any
    other move's from the parent's terms ``raw`` and ``kbuf``, which must hold
    :func:`_child_keys` of this move (the depth-first search made them to probe the child
    before making it; the beam makes them here). The one place both searches make a child."""
    _copy(child, st)
    _apply(child, tb, action)
    d = tb[H_DECODE] + 4 * action
    kind = tb[d]
    if kind == REDEAL:
        _full_keys(child, tb, zc, zd, zs, zw, zf, zr, child_raw, child_key)
        return
    for i in range(raw.shape[0]):
        child_raw[i, 0] = raw[i, 0]
        child_raw[i, 1] = raw[i, 1]
    if kind == COLUMN_TO_COLUMN or kind == COLUMN_TO_FOUNDATION:  # noqa: SIM109
        child_raw[tb[d + 1], 0] = kbuf[2]
        child_raw[tb[d + 1], 1] = kbuf[3]
    if kind == COLUMN_TO_COLUMN or kind == WASTE_TO_COLUMN:  # noqa: SIM109
        child_raw[tb[d + 2], 0] = kbuf[4]
        child_raw[tb[d + 2], 1] = kbuf[5]
    child_key[0] = kbuf[0]
    child_key[1] = kbuf[1]
