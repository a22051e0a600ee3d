"""The solver's work arrays: one workspace per compiled pass, allocated here and only here.

Each pass runs on arrays allocated before it starts (the depth-first search allocates
nothing while it runs: it is compiled without reference counts, :mod:`..rules.jit`). The
arrays of a pass travel together as one :class:`typing.NamedTuple`, which a compiled
kernel takes as a single argument: numba types a named tuple of arrays field by field
(each field's dtype, dimensions, layout and read-only flag) and caches the kernel as for
separate arrays, so each factory below gives every workspace of its pass the same numba
type (one compiled specialization per kernel):

* :class:`RolloutWorkspace` (:func:`rollout_workspace`): the rollout pass,
  :func:`.rollout._nested`;
* :class:`BeamWorkspace` (:func:`beam_workspace`): one width of the beam search,
  :func:`.beam._beam_run`;
* :class:`SearchWorkspace` (:func:`search_workspace`): the depth-first search,
  :func:`.search._enter_root`, :func:`.search._search`, :func:`.search._rehash`.

:func:`.solve` builds the workspace of each pass it runs; :class:`.SolverContext` builds
the rollout pass's and the search's once and reuses them for every solve. A named tuple
is immutable: an array that is replaced (the closed set ``rec`` when it doubles or is
taken shorter, the piece list ``piece`` when it grows) is swapped in with ``_replace``,
which makes a new tuple of the same arrays but that one.

Each workspace also carries the variant's read-only tables (``tb``, its
:attr:`~fortythieves_env.rules.tables.FastTables.table`, and the Zobrist tables ``zc``,
``zd``, ``zs``, ``zw``, ``zf``, ``zr`` of :func:`~fortythieves_env.rules.keys.key_tables_for`):
shared, never copied. Below, ``n_actions`` is the variant's number of actions,
``state_size`` its state array's length, ``C`` its number of columns.

The lengths of the control arrays are here (:data:`N_CTL`, :data:`N_NST`,
:data:`N_BCTL`); their layouts are with their kernels, unpacked from ``range`` of these
lengths (so a layout and its length cannot disagree).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..rules.core import H_C, H_NACT, FastTables
from ..rules.keys import key_tables_for
from .dead import dead_workspace

__all__ = [
    "N_BCTL",
    "N_CTL",
    "N_NST",
    "BeamWorkspace",
    "RolloutWorkspace",
    "SearchWorkspace",
    "beam_workspace",
    "closed_set",
    "rollout_workspace",
    "search_workspace",
]

N_CTL = 16
"""Length of the depth-first search's control array (layout: :mod:`.search`, ``C_*``)."""
N_NST = 7
"""Length of the rollout pass's control array (layout: :mod:`.rollout`, ``N_*``)."""
N_BCTL = 10
"""Length of a beam search's control array (layout: :mod:`.beam`, ``B_*``)."""
SEEN_BITS = 12
"""The rollout pass's two position tables have ``2**12`` slots: more than twice the
longest line (1500 moves)."""
FIRST_PIECE = 1 << 12
"""The depth-first search's piece list starts with room for 4096 entries (it doubles
when full: :class:`.search._Search`)."""


class SearchWorkspace(NamedTuple):
    """The arrays of the depth-first search (:func:`.search._search`), for a step limit
    ``L`` (frame ``d`` for ``d <= L``; the deepest frame a search of a smaller limit uses
    is its own limit, so a workspace serves every limit up to ``L``)."""

    ctl: np.ndarray
    """``int64 (N_CTL,)``: the resumable state (:mod:`.search`'s ``C_*`` layout)."""
    tb: np.ndarray
    """``int32``, read only: the variant's table array."""
    states: np.ndarray
    """``int16 (L + 2, state_size)``: frame ``d``'s position (``states[0]``: the root)."""
    acts: np.ndarray
    """``int32 (L + 1, n_actions)``: frame ``d``'s children, best first."""
    nact: np.ndarray
    """``int32 (L + 1,)``: how many children frame ``d`` has."""
    nxt: np.ndarray
    """``int32 (L + 1,)``: frame ``d``'s next child to try."""
    low: np.ndarray
    """``int64 (L + 2,)``: frame ``d``'s lowlink (least stack depth its subtree skipped)."""
    cut: np.ndarray
    """``int8 (L + 2,)``: 1 if frame ``d``'s subtree was cut somewhere."""
    slotof: np.ndarray
    """``int64 (L + 2,)``: frame ``d``'s record in ``rec`` (-1: not stored)."""
    pbase: np.ndarray
    """``int64 (L + 2,)``: the piece list's length when frame ``d`` was entered."""
    fid: np.ndarray
    """``int64 (L + 2,)``: frame ``d``'s id (frames entered so far, when entered)."""
    raw: np.ndarray
    """``uint64 (L + 2, C, 2)``: frame ``d``'s column key terms (:mod:`..rules.keys`)."""
    keys: np.ndarray
    """``uint64 (L + 2, 2)``: frame ``d``'s two keys."""
    rec: np.ndarray
    """``uint64 (2**bits, 4)``: the closed set (:func:`closed_set`; replaced when doubled)."""
    piece: np.ndarray
    """``int64 (n,)``, ``n`` from :data:`FIRST_PIECE` on: the piece list (slots of
    provisional records; replaced by one twice as long when full)."""
    legal: np.ndarray
    """``int32 (n_actions,)``: scratch of :func:`.pruning._children`."""
    scores: np.ndarray
    """``int32 (n_actions,)``: scratch of :func:`.pruning._children`."""
    kbuf: np.ndarray
    """``uint64 (6,)``: a child's keys and column terms (:func:`..rules.keys._child_keys`)."""
    dwk: np.ndarray
    """``int8 (state_size + 106,)``: rule D's scratch (:func:`.dead.dead_workspace`)."""
    zc: np.ndarray
    """``uint64``, read only: the Zobrist tables (:func:`..rules.keys.key_tables_for`)."""
    zd: np.ndarray
    zs: np.ndarray
    zw: np.ndarray
    zf: np.ndarray
    zr: np.ndarray


class RolloutWorkspace(NamedTuple):
    """The arrays of the rollout pass (:func:`.rollout._nested`), for a step limit ``L``
    (it serves every limit up to ``L``)."""

    nst: np.ndarray
    """``int64 (N_NST,)``: the resumable state (:mod:`.rollout`'s ``N_*`` layout)."""
    tb: np.ndarray
    """``int32``, read only: the variant's table array."""
    cur: np.ndarray
    """``int16 (state_size,)``: the position at the end of the line so far."""
    line: np.ndarray
    """``int32 (L + 1,)``: the line so far."""
    best: np.ndarray
    """``int32 (L + 1,)``: the best sequence found from the line's end."""
    rbuf: np.ndarray
    """``int32 (L + 1,)``: the moves of one rollout."""
    tmp: np.ndarray
    """``int16 (state_size,)``: a child of ``cur``, then the rollout's position."""
    tmp2: np.ndarray
    """``int16 (state_size,)``: a child in a rollout."""
    legal: np.ndarray
    """``int32 (n_actions,)``: scratch of :func:`.pruning._children`."""
    main_kids: np.ndarray
    """``int32 (n_actions,)``: the children of ``cur``."""
    kids: np.ndarray
    """``int32 (n_actions,)``: the children of a rollout's position."""
    scores: np.ndarray
    """``int32 (n_actions,)``: scratch of :func:`.pruning._children`."""
    main_keys: np.ndarray
    """``uint64 (2**SEEN_BITS,)``: the hashes of the line's positions (stamp 1)."""
    main_stamps: np.ndarray
    """``int64 (2**SEEN_BITS,)``: ``main_keys``'s stamps (0: free)."""
    keys: np.ndarray
    """``uint64 (2**SEEN_BITS,)``: the hashes of the positions of the rollouts, each
    rollout under its own stamp (an older stamp reads as free)."""
    stamps: np.ndarray
    """``int64 (2**SEEN_BITS,)``: ``keys``'s stamps."""


class BeamWorkspace(NamedTuple):
    """The arrays of one beam search (:func:`.beam._beam_run`) of width ``W`` and step limit
    ``L``, with room for ``K`` candidates per level (``W * CANDIDATES_PER_POSITION``). Two
    levels alternate (index ``0`` or ``1``: ``ctl[B_WHICH]`` is the current one); row ``W``
    of a level is spare."""

    ctl: np.ndarray
    """``int64 (N_BCTL,)``: the resumable state (:mod:`.beam`'s ``B_*`` layout)."""
    tb: np.ndarray
    """``int32``, read only: the variant's table array."""
    beams: np.ndarray
    """``int16 (2, W + 1, state_size)``: the positions of the two levels."""
    raws: np.ndarray
    """``uint64 (2, W + 1, C, 2)``: their column key terms."""
    bkeys: np.ndarray
    """``uint64 (2, W + 1, 2)``: their two keys."""
    terms: np.ndarray
    """``int64 (2, W + 1, C + 2)``: their :func:`.beam._fill_terms`."""
    par: np.ndarray
    """``int32 (L, W + 1)``: each kept position's parent on the level before."""
    act: np.ndarray
    """``int32 (L, W + 1)``: the move that made it (``act[d, W]``: the winning move)."""
    keys: np.ndarray
    """``uint64 (2**bits,)``: the keys of the positions kept so far (0: free)."""
    c_par: np.ndarray
    """``int32 (K,)``: a candidate's parent."""
    c_act: np.ndarray
    """``int32 (K,)``: a candidate's move."""
    c_sc: np.ndarray
    """``int64 (K,)``: a candidate's score."""
    c_h: np.ndarray
    """``uint64 (K,)``: a candidate's key."""
    legal: np.ndarray
    """``int32 (n_actions,)``: scratch of :func:`.pruning._children`."""
    kids: np.ndarray
    """``int32 (n_actions,)``: a position's children."""
    scores: np.ndarray
    """``int32 (n_actions,)``: scratch of :func:`.pruning._children`."""
    kbuf: np.ndarray
    """``uint64 (6,)``: a child's keys and column terms."""
    zc: np.ndarray
    """``uint64``, read only: the Zobrist tables (:func:`..rules.keys.key_tables_for`)."""
    zd: np.ndarray
    zs: np.ndarray
    zw: np.ndarray
    zf: np.ndarray
    zr: np.ndarray


def closed_set(bits: int) -> np.ndarray:
    """An empty closed set of ``2**bits`` records: ``uint64 (2**bits, 4)``, zeros (a
    record: key 0, key 1, meta, frame id; ``(0, 0)`` keys: free)."""
    return np.zeros((1 << bits, 4), dtype=np.uint64)


def search_workspace(tables: FastTables, step_limit: int, bits: int) -> SearchWorkspace:
    """A :class:`SearchWorkspace` for step limits up to ``step_limit``, with a closed set of
    ``2**bits`` records; every array zeros (``ctl`` is set by :class:`.search._Search`)."""
    tb = tables.table
    n_act, c, size = int(tb[H_NACT]), int(tb[H_C]), tables.state_size
    depth = step_limit + 1
    return SearchWorkspace(
        ctl=np.zeros(N_CTL, dtype=np.int64),
        tb=tb,
        states=np.zeros((depth + 1, size), dtype=np.int16),
        acts=np.zeros((depth, n_act), dtype=np.int32),
        nact=np.zeros(depth, dtype=np.int32),
        nxt=np.zeros(depth, dtype=np.int32),
        low=np.zeros(depth + 1, dtype=np.int64),
        cut=np.zeros(depth + 1, dtype=np.int8),
        slotof=np.zeros(depth + 1, dtype=np.int64),
        pbase=np.zeros(depth + 1, dtype=np.int64),
        fid=np.zeros(depth + 1, dtype=np.int64),
        raw=np.zeros((depth + 1, c, 2), dtype=np.uint64),
        keys=np.zeros((depth + 1, 2), dtype=np.uint64),
        rec=closed_set(bits),
        piece=np.zeros(FIRST_PIECE, dtype=np.int64),
        legal=np.zeros(n_act, dtype=np.int32),
        scores=np.zeros(n_act, dtype=np.int32),
        kbuf=np.zeros(6, dtype=np.uint64),
        dwk=dead_workspace(size),
        **_zobrist(tables),
    )


def rollout_workspace(tables: FastTables, step_limit: int) -> RolloutWorkspace:
    """A :class:`RolloutWorkspace` for step limits up to ``step_limit``; every array zeros
    (:func:`.rollout._rollout_pass` sets what a pass reads first)."""
    tb = tables.table
    n_act, size = int(tb[H_NACT]), tables.state_size
    depth = step_limit + 1
    return RolloutWorkspace(
        nst=np.zeros(N_NST, dtype=np.int64),
        tb=tb,
        cur=np.zeros(size, dtype=np.int16),
        line=np.zeros(depth, dtype=np.int32),
        best=np.zeros(depth, dtype=np.int32),
        rbuf=np.zeros(depth, dtype=np.int32),
        tmp=np.zeros(size, dtype=np.int16),
        tmp2=np.zeros(size, dtype=np.int16),
        legal=np.zeros(n_act, dtype=np.int32),
        main_kids=np.zeros(n_act, dtype=np.int32),
        kids=np.zeros(n_act, dtype=np.int32),
        scores=np.zeros(n_act, dtype=np.int32),
        main_keys=np.zeros(1 << SEEN_BITS, dtype=np.uint64),
        main_stamps=np.zeros(1 << SEEN_BITS, dtype=np.int64),
        keys=np.zeros(1 << SEEN_BITS, dtype=np.uint64),
        stamps=np.zeros(1 << SEEN_BITS, dtype=np.int64),
    )


def beam_workspace(
    tables: FastTables, step_limit: int, width: int, candidates: int, key_bits: int
) -> BeamWorkspace:
    """A :class:`BeamWorkspace` of width ``width`` for step limit ``step_limit``, with room
    for ``candidates`` children per level and a key table of ``2**key_bits`` slots; every
    array zeros (:class:`.beam.Beam` puts the root in)."""
    tb = tables.table
    n_act, c, size = int(tb[H_NACT]), int(tb[H_C]), tables.state_size
    rows = width + 1
    return BeamWorkspace(
        ctl=np.zeros(N_BCTL, dtype=np.int64),
        tb=tb,
        beams=np.zeros((2, rows, size), dtype=np.int16),
        raws=np.zeros((2, rows, c, 2), dtype=np.uint64),
        bkeys=np.zeros((2, rows, 2), dtype=np.uint64),
        terms=np.zeros((2, rows, c + 2), dtype=np.int64),
        par=np.zeros((step_limit, rows), dtype=np.int32),
        act=np.zeros((step_limit, rows), dtype=np.int32),
        keys=np.zeros(1 << key_bits, dtype=np.uint64),
        c_par=np.zeros(candidates, dtype=np.int32),
        c_act=np.zeros(candidates, dtype=np.int32),
        c_sc=np.zeros(candidates, dtype=np.int64),
        c_h=np.zeros(candidates, dtype=np.uint64),
        legal=np.zeros(n_act, dtype=np.int32),
        kids=np.zeros(n_act, dtype=np.int32),
        scores=np.zeros(n_act, dtype=np.int32),
        kbuf=np.zeros(6, dtype=np.uint64),
        **_zobrist(tables),
    )


def _zobrist(tables: FastTables) -> dict[str, np.ndarray]:
    """The Zobrist tables as the workspaces' fields ``zc`` ... ``zr`` (shared, read only)."""
    return dict(zip(("zc", "zd", "zs", "zw", "zf", "zr"), key_tables_for(tables), strict=True))
