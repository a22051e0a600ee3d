"""Compiled fast path (numba) for :class:`~fortythieves_env.FortyThievesEnv`, ``backend="numba"``.

The rules are those of :mod:`.engine`, which stays the reference: same action encoding,
same observation, same mask, same rewards. Only the representation differs. A position is
one packed ``int16`` array (the *state array*) and a variant's fixed data is one ``int32``
array (the *table array*); one compiled call per step applies the action, updates the
observation buffer and recomputes the action mask. Every variant uses the same argument
types, so numba compiles each kernel once (and caches it on disk, ``cache=True``).

State array (``int16``, shape ``(state_size,)``), for ``C`` columns, ``V`` =
:attr:`VariantSpec.max_visible` slots per column and ``S`` = :attr:`VariantSpec.stock_size`:

=========================  =================================================================
indices                    meaning
=========================  =================================================================
``0 .. C*V-1``             column i's cards (face down ones included), bottom to top, at
                           ``i*V ..``; unused slots hold 0. A reachable column never holds
                           more than ``V`` cards (see :mod:`.positions`, condition 6).
``len0 .. len0+C-1``       cards in each column (``len0 = C*V``)
``fd0 .. fd0+C-1``         face-down cards at the bottom of each column (``fd0 = len0 + C``)
``stock0 .. stock0+S-1``   the stock, bottom to top (``stock0 = fd0 + C``)
``waste0 .. waste0+S-1``   the waste, bottom to top (``waste0 = stock0 + S``)
``found0 .. found0+7``     the 8 foundation heights (``found0 = waste0 + S``)
``found0+8 .. found0+11``  cards in the stock, cards in the waste, redeals left,
                           cards on the foundations
=========================  =================================================================

Table array (``int32``): a header of :data:`N_HEADER` constants (named ``H_*`` below: sizes
and the offsets above, plus where the observation's parts start), then the build rule's
``accepts[top * 53 + card]`` (0/1, 53*53 entries; top 0 is an empty column), then the action
decode table of :class:`~fortythieves_env.actions.ActionCodec`, 4 entries per action: kind,
source column, destination column, cards.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numba import njit

from .actions import (
    COLUMN_TO_COLUMN,
    COLUMN_TO_FOUNDATION,
    DRAW,
    REDEAL,
    WASTE_TO_COLUMN,
    WASTE_TO_FOUNDATION,
    codec_for,
)
from .engine import GameState, rules_for
from .observation import ObservationLayout
from .variants import VariantSpec

# ---------------------------------------------------------------------- table header
(
    H_C,  # columns
    H_V,  # card slots per column (state and observation)
    H_M,  # max_move: 13 with sequence moves, else 1
    H_NACT,  # number of actions
    H_DEAL,  # cards per draw
    H_S,  # stock / waste slots
    H_LEN,  # state offsets ...
    H_FD,
    H_STOCK,
    H_WASTE,
    H_FOUND,
    H_SCAL,
    H_OBS_WASTE,  # observation offsets ...
    H_OBS_FOUND,
    H_OBS_FD,
    H_OBS_STOCK,
    H_ACCEPTS,  # table offsets ...
    H_DECODE,
) = range(18)
N_HEADER = 18
"""Entries in the table array's header."""

# scalars after the foundations in the state array
S_NSTOCK, S_NWASTE, S_REDEALS, S_FCARDS = range(4)


class FastTables:
    """One variant's table array and the state array's offsets, for packing and unpacking.

    Attributes:
        table: ``int32`` array (header, accepts table, decode table); read by the kernels.
        state_size: length of a state array.
    """

    def __init__(self, spec: VariantSpec) -> None:
        rules = rules_for(spec)
        layout = ObservationLayout.for_variant(spec)
        c, v, s = spec.n_columns, spec.max_visible, spec.stock_size
        self.n_columns, self.slots, self.stock_slots = c, v, s
        self.len0 = c * v
        self.fd0 = self.len0 + c
        self.stock0 = self.fd0 + c
        self.waste0 = self.stock0 + s
        self.found0 = self.waste0 + s
        self.scal0 = self.found0 + 8
        self.state_size = self.scal0 + 4
        accepts = np.array(rules.build_table, dtype=np.int32).reshape(-1)
        # the codec's decode table; the kernels' index arithmetic follows the same formula
        # (:mod:`.actions`), and the backend tests compare every mask with the engine's
        decode = np.array(codec_for(spec).table, dtype=np.int32).reshape(-1)
        header = [0] * N_HEADER
        header[H_C], header[H_V], header[H_M] = c, v, spec.max_move
        header[H_NACT], header[H_DEAL], header[H_S] = rules.n_actions, spec.deal_count, s
        header[H_LEN], header[H_FD], header[H_STOCK] = self.len0, self.fd0, self.stock0
        header[H_WASTE], header[H_FOUND], header[H_SCAL] = self.waste0, self.found0, self.scal0
        header[H_OBS_WASTE] = layout.waste.start
        header[H_OBS_FOUND] = layout.foundations.start
        header[H_OBS_FD] = layout.face_down.start
        header[H_OBS_STOCK] = layout.stock
        header[H_ACCEPTS] = N_HEADER
        header[H_DECODE] = N_HEADER + accepts.size
        self.table = np.concatenate([np.array(header, dtype=np.int32), accepts, decode])
        self.table.flags.writeable = False

    def pack(self, state: GameState) -> np.ndarray:
        """Return ``state`` as a new state array (``int16``, shape ``(state_size,)``)."""
        st = np.zeros(self.state_size, dtype=np.int16)
        v = self.slots
        for i, col in enumerate(state.tableau):
            if len(col) > v:
                raise ValueError(f"column {i} holds {len(col)} cards, more than the {v} slots")
            st[i * v : i * v + len(col)] = col
        st[self.len0 : self.len0 + self.n_columns] = [len(col) for col in state.tableau]
        st[self.fd0 : self.fd0 + self.n_columns] = state.face_down
        st[self.stock0 : self.stock0 + len(state.stock)] = state.stock
        st[self.waste0 : self.waste0 + len(state.waste)] = state.waste
        st[self.found0 : self.found0 + 8] = state.foundations
        st[self.scal0 : self.scal0 + 4] = (
            len(state.stock),
            len(state.waste),
            state.redeals_left,
            state.foundation_cards,
        )
        return st

    def unpack(self, st: np.ndarray) -> GameState:
        """Return the :class:`GameState` of a state array (a new, independent object)."""
        v, c = self.slots, self.n_columns
        lengths = st[self.len0 : self.len0 + c].tolist()
        n_stock, n_waste, redeals, fcards = st[self.scal0 : self.scal0 + 4].tolist()
        return GameState(
            tableau=[st[i * v : i * v + n].tolist() for i, n in enumerate(lengths)],
            face_down=st[self.fd0 : self.fd0 + c].tolist(),
            stock=st[self.stock0 : self.stock0 + n_stock].tolist(),
            waste=st[self.waste0 : self.waste0 + n_waste].tolist(),
            foundations=st[self.found0 : self.found0 + 8].tolist(),
            redeals_left=redeals,
            foundation_cards=fcards,
        )


@cache
def tables_for(spec: VariantSpec) -> FastTables:
    """The (shared, read-only) :class:`FastTables` of ``spec``."""
    return FastTables(spec)


# ---------------------------------------------------------------------- kernels
@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def _write_foundations(st: np.ndarray, tb: np.ndarray, obs: np.ndarray) -> None:
    f0 = tb[H_FOUND]
    o = tb[H_OBS_FOUND]
    for k in range(8):
        obs[o + k] = st[f0 + k]


@njit(cache=True, inline="always")
def _top(st: np.ndarray, len0: int, v: int, j: int) -> int:
    """Column j's top card, 0 if it is empty."""
    n = st[len0 + j]
    return st[j * v + n - 1] if n > 0 else 0


@njit(cache=True)
def _legal_mask(st: np.ndarray, tb: np.ndarray, mask: np.ndarray) -> int:
    """Write the legal-action mask (as :meth:`Rules.legal_actions`); return how many."""
    c = tb[H_C]
    v = tb[H_V]
    m = tb[H_M]
    acc = tb[H_ACCEPTS]
    len0 = tb[H_LEN]
    fd0 = tb[H_FD]
    f0 = tb[H_FOUND]
    scal = tb[H_SCAL]
    mask[:] = 0
    count = 0
    n_stock = st[scal + S_NSTOCK]
    n_waste = st[scal + S_NWASTE]
    if n_stock > 0:
        mask[0] = 1
        count += 1
    elif st[scal + S_REDEALS] > 0 and n_waste > 0:
        mask[1] = 1
        count += 1
    if n_waste > 0:
        w = st[tb[H_WASTE] + n_waste - 1]
        s2 = 2 * ((w - 1) // 13)
        r = (w - 1) % 13
        if st[f0 + s2] == r or st[f0 + s2 + 1] == r:
            mask[2] = 1
            count += 1
        for j in range(c):
            if tb[acc + _top(st, len0, v, j) * 53 + w]:
                mask[3 + j] = 1
                count += 1
    stride = (c - 1) * m
    for i in range(c):
        t = _top(st, len0, v, i)
        if t == 0:
            continue
        s2 = 2 * ((t - 1) // 13)
        r = (t - 1) % 13
        if st[f0 + s2] == r or st[f0 + s2 + 1] == r:
            mask[3 + c + i] = 1
            count += 1
        base = 3 + 2 * c + i * stride
        n = st[len0 + i]
        length = 1
        if m > 1:
            low = i * v + st[fd0 + i]
            k = i * v + n - 1
            while k > low and tb[acc + st[k - 1] * 53 + st[k]]:
                k -= 1
            length = i * v + n - k
        for q in range(1, length + 1):
            card = st[i * v + n - q]
            for j in range(c):
                if j != i and tb[acc + _top(st, len0, v, j) * 53 + card]:
                    mask[base + (j - (j > i)) * m + q - 1] = 1
                    count += 1
    return count


@njit(cache=True)
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
    _write_foundations(st, tb, obs)
    return _legal_mask(st, tb, mask)


@njit(cache=True)
def step(st: np.ndarray, tb: np.ndarray, obs: np.ndarray, mask: np.ndarray, action: int) -> int:
    """Play ``action`` in ``st`` (as :meth:`Rules.apply`) if ``mask`` marks it legal, then
    update ``obs`` and rewrite ``mask``; do nothing if it is illegal.

    Args: as :func:`refresh`, with ``st`` updated in place, ``mask`` the mask of ``st``
    before the move, and ``action`` in ``range(n_actions)`` (unchecked).

    Returns:
        -1 for an illegal action, else ``(n_legal << 8) | (foundation_cards << 1) | cards``:
        ``cards`` (0 or 1) reached a foundation, ``foundation_cards`` is the new total
        (0..104), ``n_legal`` the number of legal actions now.
    """
    if mask[action] == 0:
        return -1
    v = tb[H_V]
    d = tb[H_DECODE] + 4 * action
    kind = tb[d]
    src = tb[d + 1]
    dst = tb[d + 2]
    n = tb[d + 3]
    len0 = tb[H_LEN]
    fd0 = tb[H_FD]
    scal = tb[H_SCAL]
    cards = 0
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
        if fd > 0 and ns == fd:
            st[fd0 + src] = fd - 1
        _write_column(st, tb, obs, src)
        _write_column(st, tb, obs, dst)
    elif kind <= REDEAL:  # DRAW (0) or REDEAL (1)
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
        _write_waste(st, tb, obs)
    elif kind == WASTE_TO_COLUMN:
        nw = st[scal + S_NWASTE] - 1
        nd = st[len0 + dst]
        st[dst * v + nd] = st[tb[H_WASTE] + nw]
        st[tb[H_WASTE] + nw] = 0
        st[len0 + dst] = nd + 1
        st[scal + S_NWASTE] = nw
        _write_waste(st, tb, obs)
        _write_column(st, tb, obs, dst)
    else:
        if kind == WASTE_TO_FOUNDATION:
            nw = st[scal + S_NWASTE] - 1
            card = st[tb[H_WASTE] + nw]
            st[tb[H_WASTE] + nw] = 0
            st[scal + S_NWASTE] = nw
            _write_waste(st, tb, obs)
        else:  # COLUMN_TO_FOUNDATION
            ns = st[len0 + src] - 1
            card = st[src * v + ns]
            st[src * v + ns] = 0
            st[len0 + src] = ns
            fd = st[fd0 + src]
            if fd > 0 and ns == fd:
                st[fd0 + src] = fd - 1
            _write_column(st, tb, obs, src)
        f = tb[H_FOUND] + 2 * ((card - 1) // 13)
        if st[f] == (card - 1) % 13:
            st[f] += 1
        else:
            st[f + 1] += 1
        st[scal + S_FCARDS] += 1
        cards = 1
        _write_foundations(st, tb, obs)
    n_legal = _legal_mask(st, tb, mask)
    return (n_legal << 8) | (st[scal + S_FCARDS] << 1) | cards


assert DRAW == 0 and REDEAL == 1 and COLUMN_TO_FOUNDATION == 4  # the branches of ``step``
