"""Compiled rules (numba) on a packed state: the environment's ``backend="numba"``
(:class:`~fortythieves_env.envs.backends.NumbaBackend`), the batched vector environment
(:mod:`..envs.vector`), and solvers and search agents.

**The rules core.** The move rules are stated here once: what a column top or a foundation
takes (the rule table of :func:`.rule_table.accepts_table`, read by :func:`_fits_foundation`,
:func:`_sequence_length` and :func:`_moves`), the legal moves (:func:`_moves`) and a move's
effect (:func:`_apply`). :class:`~fortythieves_env.Rules` (the public API: notation,
reasons, positions), both environment backends, the vector environment, the solver, the
greedy rule, the search agents and the no-cycling rule all call these kernels; the list-based
restatement in ``tests/oracle.py`` exists only to test them. A position is
one packed ``int16`` array (the *state array*) and a variant's fixed data is one ``int32``
array (the *table array*). Every variant uses the same argument types, so numba compiles
each kernel once (and caches it on disk: :func:`.jit.kernel`).

Kernels (``st`` a state array, ``tb`` its variant's ``FastTables.table``):

* :func:`legal_actions` ``(st, tb, out) -> count``: the legal actions, ascending, into a
  preallocated integer array; no observation, no mask.
* :func:`apply` ``(st, tb, action) -> cards``: play an action in place (legality not
  checked, as :meth:`Rules.apply`); returns the cards put on a foundation (0 or 1).
* The copy: a state array is a plain contiguous NumPy ``int16`` row, so ``st.copy()``, or
  ``batch[i] = st`` into a ``(N, state_size)`` batch, is a complete, independent copy
  (``state_size * 2`` bytes, 640 for Forty Thieves); no kernel is needed.
* :func:`position_hash` ``(st, tb) -> uint64``: equal for equal positions;
  :func:`canonical_hash`: equal also for positions that differ only in the column order;
  :func:`view_hash`: equal for positions a player cannot tell apart (equal player views).
* :func:`observed_state` ``(obs, tb, st)``: an observation read back into a state array,
  the cards it does not show as 0 (for kernels that read only what a player sees, such as
  the greedy rule of :mod:`.greedy`).
* :func:`refresh` and :func:`step`: the environment's calls, which also write the
  observation and the mask. They are built from the same pieces: one move generator
  (``_moves``, behind :func:`legal_actions` and the mask) and one move (``_apply``, behind
  :func:`apply`), so the compiled code states each rule once.

The state array (one position) and the table array (one variant's fixed data: sizes,
offsets, the rule table, the action decode table, the rule table by column for
:func:`_taken`) are laid out, and made from a
:class:`VariantSpec`, in :mod:`.tables` (:class:`~fortythieves_env.rules.tables.FastTables`,
importable from here too); the kernels read the table array's header by its ``H_*`` names.
"""

from __future__ import annotations

import numpy as np

from .actions import (
    COLUMN_TO_COLUMN,
    COLUMN_TO_FOUNDATION,
    DRAW,
    REDEAL,
    WASTE_TO_COLUMN,
    WASTE_TO_FOUNDATION,
)
from .jit import kernel

# The table array's header and the state array's scalars (:mod:`.tables`, where a spec
# becomes its tables); FastTables, tables_for and N_HEADER are importable from here too.
from .tables import (
    _TAKEN_SPLIT,
    H_ACCEPTS,
    H_C,
    H_DEAL,
    H_DECODE,
    H_FD,
    H_FOUND,
    H_LEN,
    H_M,
    H_NACT,
    H_OBS_FD,
    H_OBS_FOUND,
    H_OBS_KNOWN,
    H_OBS_STOCK,
    H_OBS_WASTE,
    H_REDEALS,
    H_S,
    H_SCAL,
    H_STOCK,
    H_TAKEN,
    H_V,
    H_WASTE,
    S_FCARDS,
    S_NSTOCK,
    S_NWASTE,
    S_REDEALS,
)
from .tables import N_HEADER as N_HEADER
from .tables import N_TAKEN as N_TAKEN
from .tables import FastTables as FastTables
from .tables import table_size as table_size
from .tables import tables_for as tables_for


# ---------------------------------------------------------------------- kernels
@kernel(inline="always")
def _write_column(st: np.ndarray, tb: np.ndarray, obs: np.ndarray, i: int) -> None:
    v = tb[H_V]
    n = st[tb[H_LEN] + i]
    fd = st[tb[H_FD] + i]
    base = i * v
    k = 0
    for k in range(n - fd):
        obs[base + k] = st[base + fd + k]
    for k in range(max(n - fd, 0), v):
        obs[base + k] = 0
    obs[tb[H_OBS_FD] + i] = fd


@kernel(inline="always")
def _write_waste(st: np.ndarray, tb: np.ndarray, obs: np.ndarray) -> None:
    scal = tb[H_SCAL]
    nw = st[scal + S_NWASTE]
    w0 = tb[H_WASTE]
    o = tb[H_OBS_WASTE]
    for k in range(nw):
        obs[o + k] = st[w0 + k]
    for k in range(nw, tb[H_S]):
        obs[o + k] = 0
    obs[tb[H_OBS_STOCK]] = st[scal + S_NSTOCK]
    obs[tb[H_OBS_STOCK] + 1] = st[scal + S_REDEALS]


@kernel(inline="always")
def _write_stock(st: np.ndarray, tb: np.ndarray, obs: np.ndarray) -> None:
    """The known-stock slots (if the observation has them): the stock, next card first,
    once a redeal has happened, else 0s."""
    o = tb[H_OBS_KNOWN]
    if o < 0:
        return
    scal = tb[H_SCAL]
    ns = st[scal + S_NSTOCK] if st[scal + S_REDEALS] < tb[H_REDEALS] else 0
    top = tb[H_STOCK] + st[scal + S_NSTOCK] - 1
    for k in range(ns):
        obs[o + k] = st[top - k]
    for k in range(ns, tb[H_S]):
        obs[o + k] = 0


@kernel(inline="always")
def _write_foundations(st: np.ndarray, tb: np.ndarray, obs: np.ndarray) -> None:
    f0 = tb[H_FOUND]
    o = tb[H_OBS_FOUND]
    for k in range(8):
        obs[o + k] = st[f0 + k]


@kernel(inline="always")
def _top(st: np.ndarray, len0: int, v: int, j: int) -> int:
    """Column j's top card, 0 if it is empty."""
    n = st[len0 + j]
    return st[j * v + n - 1] if n > 0 else 0


@kernel(inline="always")
def _pile_for(st: np.ndarray, tb: np.ndarray, card: int) -> int:
    """The foundation pile (0..7) ``card`` goes onto: the first pile of its suit if that
    pile's height is the card's rank, else the second (RULES.md, common rule 3: the two
    piles of a suit are interchangeable; piles ``2*s`` and ``2*s+1`` hold suit ``s``)."""
    p = 2 * ((card - 1) // 13)
    return p if st[tb[H_FOUND] + p] == (card - 1) % 13 else p + 1


@kernel(inline="always")
def _fits_foundation(st: np.ndarray, tb: np.ndarray, card: int) -> bool:
    """May ``card`` go onto a foundation? The one statement of the foundation rule (RULES.md,
    common rule 3: up by one rank in suit from the Ace)."""
    return st[tb[H_FOUND] + _pile_for(st, tb, card)] == (card - 1) % 13


_ONE = np.uint64(1)
_SPLIT = np.uint64(_TAKEN_SPLIT)


@kernel(inline="always")
def _card_bit(card: int) -> np.uint64:
    """``card`` (0..52) as a one-element set of cards (bit ``card`` of a ``uint64``)."""
    return _ONE << np.uint64(card)


@kernel(inline="always")
def _taken(tb: np.ndarray, card: int) -> np.uint64:
    """The cards (a set, bit ``h``) that take ``card`` when on top of a column: column
    ``card`` of the build rule's table (``accepts[h * 53 + card]`` for ``h`` in 1..52; an
    empty column is row 0 of the table, not in the set). A filter only: the move generator
    asks the table itself which column takes a card once the set says one may."""
    o = tb[H_TAKEN] + 2 * card
    return np.uint64(tb[o]) | (np.uint64(tb[o + 1]) << _SPLIT)


@kernel(inline="always")
def _fitting_cards(st: np.ndarray, tb: np.ndarray) -> np.uint64:
    """The cards that fit a foundation pile now, as a set (bit ``card``): the rule of
    :func:`_fits_foundation` read the other way (for each pile of suit ``s`` at height
    ``h < 13``, the card of suit ``s`` and rank ``h + 1``), for the move generator, which
    asks it of every column top at once."""
    f0 = tb[H_FOUND]
    fits = np.uint64(0)
    for p in range(8):
        h = st[f0 + p]
        if h < 13:
            fits |= _card_bit(13 * (p // 2) + h + 1)
    return fits


@kernel(inline="always")
def _sequence_length(st: np.ndarray, tb: np.ndarray, i: int) -> int:
    """Cards in the sequence at the end of column ``i`` (face-up cards only; 0 if empty):
    each card goes onto the one beneath it by the build rule's table. The one statement of
    "the sequence at a column's end" (RULES.md, "Sequences" under the variant table)."""
    v = tb[H_V]
    n = st[tb[H_LEN] + i]
    if n == 0:
        return 0
    acc = tb[H_ACCEPTS]
    top_card = i * v + n - 1
    low = i * v + st[tb[H_FD] + i]
    k = top_card
    while k > low and tb[acc + st[k - 1] * 53 + st[k]]:
        k -= 1
    return top_card + 1 - k


@kernel
def sequence_length(st: np.ndarray, tb: np.ndarray, column: int) -> int:
    """Cards in the sequence at the end of ``column`` of state array ``st`` (face-up cards
    only, each going onto the card beneath it by the build rule); 0 for an empty column.

    Raises:
        ValueError: ``column`` is not in ``range(n_columns)``.
    """
    if column < 0 or column >= tb[H_C]:
        raise ValueError("sequence_length: column is outside range(n_columns)")
    return _sequence_length(st, tb, column)


_LOW_BIT = np.array(
    [
        *(0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8),
        *(31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9),
    ],
    dtype=np.int64,
)
"""de Bruijn's table of :func:`_low_bit`."""


@kernel(inline="always")
def _low_bit(x: int) -> int:
    """The index of the lowest set bit of ``x`` (``0 < x < 2**32``): de Bruijn's multiply."""
    return _LOW_BIT[(((x & -x) * 0x077CB531) & 0xFFFFFFFF) >> 27]


@kernel(inline="always")
def _bit_of(cards: np.uint64, card: int) -> int:
    """1 if ``card`` is in the set ``cards``, else 0."""
    return np.int64((cards >> np.uint64(card)) & _ONE)


@kernel(inline="always")
def _targets(
    tb: np.ndarray, top: np.ndarray, c: int, tops: np.uint64, empty: int, card: int
) -> int:
    """The columns (bit ``j``) whose top, by the build rule's table read by column
    (:func:`_taken`), takes ``card``, and the empty columns if an empty column takes it
    (row 0 of the table); ``top`` holds each column's top card, ``tops`` their set."""
    hosts = tops & _taken(tb, card)
    found = empty if tb[tb[H_ACCEPTS] + card] else 0
    if hosts != np.uint64(0):
        for j in range(c):
            found |= _bit_of(hosts, top[j]) << j
    return found


@kernel(inline="always")
def _put(mask: np.ndarray, out: np.ndarray, to_mask: bool, count: int, action: int) -> int:
    """Record one legal ``action`` (:func:`_moves`); returns the new count."""
    if to_mask:
        mask[action] = 1
    else:
        out[count] = action
    return count + 1


@kernel(inline="always")
def _moves(
    st: np.ndarray,
    tb: np.ndarray,
    mask: np.ndarray,
    out: np.ndarray,
    to_mask: bool,
    top: np.ndarray,
) -> int:
    """The move generator: every legal action of ``st`` once, in ascending order (as the
    set of :meth:`Rules.legal_actions`). The one place the compiled code decides legality.

    With ``to_mask`` it sets ``mask[a] = 1`` for each (the caller zeroes ``mask`` first)
    and leaves ``out`` alone; else it writes ``out[0 .. count-1]``. Returns the count.
    ``top`` is a work array of at least ``C`` integers (overwritten: column ``j``'s top
    card, 0 if empty).

    A column move is legal when the build rule's table takes the card on the target's top
    (row 0 for an empty column). Asked of every pair of columns, that is ``C * (C - 1)``
    table reads, while a position has a few moves; so the generator first takes the set of
    column tops and asks, per card to move, which tops take it (:func:`_taken`, the table
    read by column, against that set) and whether an empty column does, as a set of target
    columns; the table itself is read once per move found. Foundation moves test the tops
    against the set of cards that fit (:func:`_fitting_cards`).
    """
    c = tb[H_C]
    v = tb[H_V]
    m = tb[H_M]
    acc = tb[H_ACCEPTS]
    len0 = tb[H_LEN]
    scal = tb[H_SCAL]
    zero = np.uint64(0)
    tops = zero  # the cards on top of a column, as a set
    empty = 0  # the empty columns (bit j)
    for j in range(c):
        n = st[len0 + j]
        if n == 0:
            empty |= 1 << j
            top[j] = 0
        else:
            t = st[j * v + n - 1]
            top[j] = t
            tops |= _card_bit(t)
    fits = _fitting_cards(st, tb)
    count = 0
    n_stock = st[scal + S_NSTOCK]
    n_waste = st[scal + S_NWASTE]
    a = -1
    if n_stock > 0:
        a = 0  # draw
    elif st[scal + S_REDEALS] > 0 and n_waste > 0:
        a = 1  # redeal
    if a >= 0:
        count = _put(mask, out, to_mask, count, a)
    if n_waste > 0:
        w = st[tb[H_WASTE] + n_waste - 1]
        if fits & _card_bit(w) != zero:  # w>f
            count = _put(mask, out, to_mask, count, 2)
        targets = _targets(tb, top, c, tops, empty, w)
        while targets:  # w>tj
            j = _low_bit(targets)
            targets &= targets - 1
            if tb[acc + top[j] * 53 + w]:
                count = _put(mask, out, to_mask, count, 3 + j)
    if tops & fits != zero:
        up = 0  # the columns whose top fits a foundation
        for i in range(c):
            up |= _bit_of(fits, top[i]) << i
        up &= ~empty
        while up:  # ti>f
            i = _low_bit(up)
            up &= up - 1
            count = _put(mask, out, to_mask, count, 3 + c + i)
    stride = (c - 1) * m
    for i in range(c):  # ti>tjxN, ascending in (i, j, N)
        if top[i] == 0:
            continue
        top_card = i * v + st[len0 + i] - 1  # index of column i's top card in ``st``
        length = 1 if m == 1 else _sequence_length(st, tb, i)
        targets = 0  # the columns that take some card of the sequence
        for q in range(length):
            targets |= _targets(tb, top, c, tops, empty, st[top_card - q])
        targets &= ~(1 << i)
        base = 3 + 2 * c + i * stride
        while targets:
            j = _low_bit(targets)
            targets &= targets - 1
            row = acc + top[j] * 53
            first = base + (j - (j > i)) * m - 1
            for q in range(1, length + 1):
                if tb[row + st[top_card - q + 1]]:
                    count = _put(mask, out, to_mask, count, first + q)
    return count


@kernel
def _legal_mask(st: np.ndarray, tb: np.ndarray, mask: np.ndarray) -> int:
    """Write the legal-action mask of ``st`` (``int8``, 1 where legal); return how many."""
    mask[:] = 0
    return _moves(st, tb, mask, mask, True, np.empty(tb[H_C], dtype=np.int64))


@kernel
def legal_actions(st: np.ndarray, tb: np.ndarray, out: np.ndarray) -> int:
    """Write the legal actions of state array ``st`` into ``out``; no observation, no mask.

    Args:
        st: state array (``int16``), read only.
        tb: table array (``int32``).
        out: integer array (``int32`` or ``int64``; numba compiles once per dtype) of
            length at least ``n_actions``, preallocated by the caller and reused.

    Returns:
        ``count``: ``out[:count]`` holds every legal action once, in ascending order (the
        set :meth:`Rules.legal_actions` returns, and the 1s of the mask of :func:`refresh`);
        ``out[count:]`` is left as it was. 0 exactly when the game is over.

    Raises:
        ValueError: ``out`` is shorter than ``n_actions``.
    """
    if out.shape[0] < tb[H_NACT]:
        raise ValueError("legal_actions: out is shorter than n_actions")
    return _moves(st, tb, out, out, False, np.empty(tb[H_C], dtype=np.int64))


@kernel(inline="always")
def _legal_into(st: np.ndarray, tb: np.ndarray, out: np.ndarray, top: np.ndarray) -> int:
    """:func:`legal_actions` with the caller's work array ``top`` (at least ``C`` integers,
    overwritten) instead of a new one: for the solver's inner loops."""
    return _moves(st, tb, out, out, False, top)


@kernel(inline="always")
def _apply(st: np.ndarray, tb: np.ndarray, action: int) -> int:
    """Play ``action`` in ``st`` (unchecked); return the cards put on a foundation (0 or 1).

    The one place the compiled code moves cards (as :meth:`Rules.apply`).
    """
    v = tb[H_V]
    d = tb[H_DECODE] + 4 * action
    kind = tb[d]
    src = tb[d + 1]
    dst = tb[d + 2]
    n = tb[d + 3]
    len0 = tb[H_LEN]
    fd0 = tb[H_FD]
    scal = tb[H_SCAL]
    if kind == COLUMN_TO_COLUMN:
        ns = st[len0 + src]
        nd = st[len0 + dst]
        for k in range(n):
            st[dst * v + nd + k] = st[src * v + ns - n + k]
            st[src * v + ns - n + k] = 0
        ns -= n
        st[len0 + src] = ns
        st[len0 + dst] = nd + n
        fd = st[fd0 + src]
        if fd > 0 and ns == fd:  # the face-down card left on top turns face up
            st[fd0 + src] = fd - 1
        return 0
    if kind <= REDEAL:  # DRAW (0) or REDEAL (1)
        s0 = tb[H_STOCK]
        w0 = tb[H_WASTE]
        ns = st[scal + S_NSTOCK]
        nw = st[scal + S_NWASTE]
        if kind == DRAW:
            for _ in range(min(tb[H_DEAL], ns)):
                ns -= 1
                st[w0 + nw] = st[s0 + ns]
                st[s0 + ns] = 0
                nw += 1
        else:
            for k in range(nw):
                st[s0 + k] = st[w0 + nw - 1 - k]
                st[w0 + nw - 1 - k] = 0
            ns = nw
            nw = 0
            st[scal + S_REDEALS] -= 1
        st[scal + S_NSTOCK] = ns
        st[scal + S_NWASTE] = nw
        return 0
    if kind == WASTE_TO_COLUMN:
        nw = st[scal + S_NWASTE] - 1
        nd = st[len0 + dst]
        st[dst * v + nd] = st[tb[H_WASTE] + nw]
        st[tb[H_WASTE] + nw] = 0
        st[len0 + dst] = nd + 1
        st[scal + S_NWASTE] = nw
        return 0
    if kind == WASTE_TO_FOUNDATION:
        nw = st[scal + S_NWASTE] - 1
        card = st[tb[H_WASTE] + nw]
        st[tb[H_WASTE] + nw] = 0
        st[scal + S_NWASTE] = nw
    else:  # COLUMN_TO_FOUNDATION
        ns = st[len0 + src] - 1
        card = st[src * v + ns]
        st[src * v + ns] = 0
        st[len0 + src] = ns
        fd = st[fd0 + src]
        if fd > 0 and ns == fd:
            st[fd0 + src] = fd - 1
    st[tb[H_FOUND] + _pile_for(st, tb, card)] += 1
    st[scal + S_FCARDS] += 1
    return 1


@kernel
def apply(st: np.ndarray, tb: np.ndarray, action: int) -> int:
    """Play ``action`` in state array ``st`` (in place) **without checking that it is
    legal** (as :meth:`Rules.apply`); no observation, no mask.

    Args:
        st: state array (``int16``), updated in place.
        tb: table array (``int32``).
        action: an action index; take it from :func:`legal_actions` (an illegal move
            leaves a position no game reaches).

    Returns:
        The number of cards put on a foundation (0 or 1).

    Raises:
        ValueError: ``action`` is not in ``range(n_actions)``.
    """
    if action < 0 or action >= tb[H_NACT]:
        raise ValueError("apply: action is outside range(n_actions)")
    return _apply(st, tb, action)


@kernel
def refresh(st: np.ndarray, tb: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> int:
    """Write the whole observation and the mask of state array ``st``.

    Args:
        st: state array (``int16``), read only.
        tb: table array (``int32``).
        obs: observation buffer (``uint8``, shape ``(layout.size,)``), overwritten.
        mask: mask buffer (``int8``, shape ``(n_actions,)``), overwritten.

    Returns:
        The number of legal actions.
    """
    for i in range(tb[H_C]):
        _write_column(st, tb, obs, i)
    _write_waste(st, tb, obs)
    _write_stock(st, tb, obs)
    _write_foundations(st, tb, obs)
    return _legal_mask(st, tb, mask)


@kernel
def observed_state(obs: np.ndarray, tb: np.ndarray, st: np.ndarray) -> None:
    """The state array a player reads in observation ``obs``: :func:`refresh`'s
    observation read back, with every card the observation does not show (face-down
    cards, the stock while its order is unknown) written as 0.

    Everything else is the position's: column cards, lengths and face-down counts, the
    waste, the stock when its order is known (observation version 1 after a redeal), its
    count, the redeals left, the foundations and the cards on them. So a kernel that reads
    only what a player sees (:func:`~.greedy.greedy_score`) gives on it what it gives on
    the position.

    Args:
        obs: an observation (``uint8``, shape ``(layout.size,)``) of the observation
            version ``tb`` was built for (:func:`tables_for`).
        tb: table array (``int32``).
        st: state array buffer (``int16``, shape ``(state_size,)``), overwritten. A column
            holding more than ``V`` cards (face-down and face-up; no reachable position
            does) is cut to ``V``.
    """
    v = tb[H_V]
    len0 = tb[H_LEN]
    for i in range(tb[H_C]):
        base = i * v
        fd = np.int64(obs[tb[H_OBS_FD] + i])
        up = 0
        while up < v and obs[base + up] != 0:
            up += 1
        fd = min(fd, v)
        n = min(fd + up, v)
        st[base : base + fd] = 0
        st[base + fd : base + n] = obs[base : base + n - fd]
        st[base + n : base + v] = 0
        st[len0 + i] = n
        st[tb[H_FD] + i] = fd
    scal = tb[H_SCAL]
    s = tb[H_S]
    o = tb[H_OBS_WASTE]
    nw = 0
    while nw < s and obs[o + nw] != 0:
        nw += 1
    w0 = tb[H_WASTE]
    st[w0 : w0 + nw] = obs[o : o + nw]
    st[w0 + nw : w0 + s] = 0
    ns = np.int64(obs[tb[H_OBS_STOCK]])
    known = tb[H_OBS_KNOWN]
    s0 = tb[H_STOCK]
    st[s0 : s0 + s] = 0
    if known >= 0:
        for k in range(ns):  # bottom to top; the observation shows the next card first
            st[s0 + k] = obs[known + ns - 1 - k]
    f0 = tb[H_FOUND]
    on = 0
    for k in range(8):
        st[f0 + k] = obs[tb[H_OBS_FOUND] + k]
        on += obs[tb[H_OBS_FOUND] + k]
    st[scal + S_NSTOCK] = ns
    st[scal + S_NWASTE] = nw
    st[scal + S_REDEALS] = obs[tb[H_OBS_STOCK] + 1]
    st[scal + S_FCARDS] = on


@kernel
def step(st: np.ndarray, tb: np.ndarray, obs: np.ndarray, mask: np.ndarray, action: int) -> int:
    """Play ``action`` in ``st`` (as :meth:`Rules.apply`) if ``mask`` marks it legal, then
    update ``obs`` and rewrite ``mask``; do nothing if it is illegal.

    Built from the pieces above: :func:`apply`'s move, the observation writes of the parts
    the move touched, and :func:`legal_actions`'s generator writing the mask.

    Args: as :func:`refresh`, with ``st`` updated in place, ``mask`` the mask of ``st``
    before the move, and ``action`` in ``range(n_actions)`` (unchecked).

    Returns:
        -1 for an illegal action, else ``(n_legal << 8) | (foundation_cards << 1) | cards``:
        ``cards`` (0 or 1) reached a foundation, ``foundation_cards`` is the new total
        (0..104), ``n_legal`` the number of legal actions now.
    """
    if mask[action] == 0:
        return -1
    cards = _apply(st, tb, action)
    d = tb[H_DECODE] + 4 * action
    kind = tb[d]
    if kind == COLUMN_TO_COLUMN:
        _write_column(st, tb, obs, tb[d + 1])
        _write_column(st, tb, obs, tb[d + 2])
    elif kind <= REDEAL:  # DRAW (0) or REDEAL (1)
        _write_waste(st, tb, obs)
        _write_stock(st, tb, obs)
    elif kind == WASTE_TO_COLUMN:
        _write_waste(st, tb, obs)
        _write_column(st, tb, obs, tb[d + 2])
    else:
        if kind == WASTE_TO_FOUNDATION:
            _write_waste(st, tb, obs)
        else:  # COLUMN_TO_FOUNDATION
            _write_column(st, tb, obs, tb[d + 1])
        _write_foundations(st, tb, obs)
    n_legal = _legal_mask(st, tb, mask)
    # int64: run as Python (NUMBA_DISABLE_JIT), the int16 read would make the sum int16
    return (n_legal << 8) | (np.int64(st[tb[H_SCAL] + S_FCARDS]) << 1) | cards


# ---------------------------------------------------------------------- position hashes
_FNV_PRIME = np.uint64(0x100000001B3)
_FNV_BASIS = np.uint64(0xCBF29CE484222325)
_COLUMN_BASIS = np.uint64(0x9E3779B97F4A7C15)
_F1 = np.uint64(0xFF51AFD7ED558CCD)
_F2 = np.uint64(0xC4CEB9FE1A85EC53)
_S33 = np.uint64(33)


@kernel(inline="always")
def _mix(h: np.uint64, x: np.uint64) -> np.uint64:
    """Fold ``x`` into ``h`` (one FNV-1a step on a whole value; order matters)."""
    return (h ^ x) * _FNV_PRIME


@kernel(inline="always")
def _finish(h: np.uint64) -> np.uint64:
    """MurmurHash3's 64-bit finaliser: every input bit moves every output bit."""
    h ^= h >> _S33
    h *= _F1
    h ^= h >> _S33
    h *= _F2
    h ^= h >> _S33
    return h


@kernel(inline="always")
def _column_hash(st: np.ndarray, tb: np.ndarray, i: int) -> np.uint64:
    """Hash of column i alone: its cards bottom to top and its face-down count."""
    v = tb[H_V]
    n = st[tb[H_LEN] + i]
    h = _mix(_COLUMN_BASIS, np.uint64(n))
    h = _mix(h, np.uint64(st[tb[H_FD] + i]))
    for k in range(i * v, i * v + n):
        h = _mix(h, np.uint64(st[k]))
    return _finish(h)


@kernel(inline="always")
def _rest_hash(st: np.ndarray, tb: np.ndarray, h: np.uint64) -> np.uint64:
    """Fold everything but the tableau into ``h``: the stock and the waste (counts and
    cards, in order), the 8 foundation heights and the redeals left; then finish."""
    scal = tb[H_SCAL]
    ns = st[scal + S_NSTOCK]
    nw = st[scal + S_NWASTE]
    h = _mix(h, np.uint64(ns))
    for k in range(tb[H_STOCK], tb[H_STOCK] + ns):
        h = _mix(h, np.uint64(st[k]))
    h = _mix(h, np.uint64(nw))
    for k in range(tb[H_WASTE], tb[H_WASTE] + nw):
        h = _mix(h, np.uint64(st[k]))
    for k in range(tb[H_FOUND], tb[H_FOUND] + 8):
        h = _mix(h, np.uint64(st[k]))
    h = _mix(h, np.uint64(st[scal + S_REDEALS]))
    return _finish(h)


@kernel
def position_hash(st: np.ndarray, tb: np.ndarray) -> np.uint64:
    """A 64-bit key of the position in state array ``st`` (``uint64``).

    It covers the whole position, hidden cards included: each column's cards in order and
    its face-down count, column by column; the stock and the waste in order; the
    foundation heights; the redeals left (the foundation card count follows from the
    heights). Equal positions (equal :class:`GameState`) always give equal hashes; two
    different positions, among them two whose columns are the same but in another order,
    collide only by chance (about 2**-64 per pair). Unused slots are not read.
    """
    h = _FNV_BASIS
    for i in range(tb[H_C]):
        h = _mix(h, _column_hash(st, tb, i))
    return _rest_hash(st, tb, h)


@kernel
def canonical_hash(st: np.ndarray, tb: np.ndarray) -> np.uint64:
    """:func:`position_hash` with the column order ignored (``uint64``): a solver's key.

    The rules treat every column alike, so positions whose columns (each with its
    face-down count) are the same multiset, in any order, are the same game; they all get
    the same canonical hash. The column hashes are summed (modulo 2**64), which does not
    depend on their order and, unlike XOR, does not cancel two equal columns. Otherwise as
    :func:`position_hash`: positions that differ by more than a column permutation collide
    only by chance.
    """
    total = np.uint64(0)
    for i in range(tb[H_C]):
        total += _column_hash(st, tb, i)
    return _rest_hash(st, tb, _mix(_FNV_BASIS, total))


@kernel
def view_hash(st: np.ndarray, tb: np.ndarray) -> np.uint64:
    """A 64-bit key of what a player sees of the position in ``st`` (``uint64``): the
    :class:`~fortythieves_env.rules.view.PlayerView`, not the position.

    It covers each column's face-up cards in order and its face-down count (never the
    face-down cards), column by column; the waste in order; the stock's size, and its order
    only once a redeal has happened (``redeals_left < redeals``, as
    :func:`~fortythieves_env.rules.view.player_view`); the foundation heights; the redeals left.
    Positions with equal player views get equal hashes; different views collide only by
    chance (about 2**-64 per pair). The agents' no-cycling rule of
    :mod:`fortythieves_agents.evaluation.evaluate` keys the views seen in an episode with it.
    """
    v = tb[H_V]
    len0 = tb[H_LEN]
    fd0 = tb[H_FD]
    h = _FNV_BASIS
    for i in range(tb[H_C]):
        n = st[len0 + i]
        fd = st[fd0 + i]
        c = _mix(_COLUMN_BASIS, np.uint64(n - fd))
        c = _mix(c, np.uint64(fd))
        for k in range(i * v + fd, i * v + n):
            c = _mix(c, np.uint64(st[k]))
        h = _mix(h, _finish(c))
    scal = tb[H_SCAL]
    ns = st[scal + S_NSTOCK]
    nw = st[scal + S_NWASTE]
    h = _mix(h, np.uint64(ns))
    if st[scal + S_REDEALS] < tb[H_REDEALS]:  # the stock's order is known
        for k in range(tb[H_STOCK], tb[H_STOCK] + ns):
            h = _mix(h, np.uint64(st[k]))
    h = _mix(h, np.uint64(nw))
    for k in range(tb[H_WASTE], tb[H_WASTE] + nw):
        h = _mix(h, np.uint64(st[k]))
    for k in range(tb[H_FOUND], tb[H_FOUND] + 8):
        h = _mix(h, np.uint64(st[k]))
    h = _mix(h, np.uint64(st[scal + S_REDEALS]))
    return _finish(h)


assert DRAW == 0 and REDEAL == 1 and COLUMN_TO_FOUNDATION == 4  # the branches of ``step``
