"""Win finding in huge spaces: a beam search ordered by progress (solver version 4's pass).

The depth-first search of :mod:`.search` finishes small spaces (and then proves ``lost``),
but in the two-deck games with one pass through the stock (Forty Thieves, Streets, Maria) it
meets 10**7 positions and more without reaching the end of the space, while the line it
follows wanders. Published solvers for such spaces find wins with searches ordered by
progress (KDE's ``patsolve`` for Forty and Eight: best-first with move priorities; Spider
solvers "eager to create empty columns"; ``docs/solver_design.md``, section 25). This pass
is the simplest of those that keeps memory bounded: a **beam search**.

* Level ``d`` holds at most ``width`` positions reached in ``d`` moves. Every child of every
  position of the level (the solver's children: rules F, W and E of :mod:`.pruning`) is
  scored by :func:`progress` and keyed by the first of the solver's two Zobrist keys
  (:mod:`..rules.keys`), both from the parent and the move, without making the child; the ``width``
  best children whose key was not kept before (at any level: a position reached again later
  is never better) form level ``d + 1``. Ties keep the parent's order and then the solver's
  move order, so the search is deterministic: the node budget is the figure of record, as in
  :mod:`.search`.
* A child with all 104 cards up ends the search: its line (read back through each level's
  parent and move) is a winning line of ``d + 1`` moves, at most the step limit.
* **Iterative widening** (:class:`Beam`): widths 1, 2, 4, ... up to :data:`MAX_WIDTH`, each
  a new search, until one wins or the budget is spent. A narrow beam finds the easy wins for
  a few thousand nodes; the budget doubles with the width, so the whole costs at most about
  twice its last search. A search whose levels never had more children than ``width``
  (nothing was dropped) would be the same at any larger width: widening stops there.

The pass **never proves anything**: it drops positions (the beam, and keys of 64 bits that
could collide), so ending without a win says nothing about the deal. Every line it returns is
replayed by the rules engine (:func:`~fortythieves_env.solver.solve`) before it is reported.

Memory (the arrays of a :class:`~.workspace.BeamWorkspace`, made anew for each width): two
levels of ``width`` state arrays, the candidates of one level (``width *``
:data:`CANDIDATES_PER_POSITION` records of 24 bytes), each level's parent and move
(``step_limit * width`` ``int32`` pairs: 512 MiB at the largest width and 1000 steps; the
candidates 96 MiB) and a key table of at most ``2**25`` ``uint64`` (256 MiB), touched only
as it fills: about 1 GiB at the largest width, reached only by budgets of 10**8 nodes and
more.
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
    H_DEAL,
    H_DECODE,
    H_FD,
    H_LEN,
    H_SCAL,
    H_V,
    H_WASTE,
    S_FCARDS,
    S_NSTOCK,
    S_NWASTE,
    FastTables,
    apply,
)
from ..rules.jit import kernel
from ..rules.keys import _child_keys, _full_keys, _make_child
from .pruning import _children
from .workspace import N_BCTL, BeamWorkspace, beam_workspace

__all__ = ["MAX_WIDTH", "PROGRESS_WEIGHTS", "Beam", "progress"]

MAX_WIDTH = 1 << 16
"""The widest beam (65,536 positions per level; 16,384 before solver version 5). A search at
width ``w`` costs about ``w`` times the line's length times the children kept per position, so
the widths past 2**14 are reached only by budgets of about 10**8 nodes and more; there they
find wins the depth-first search does not (Maria's test deal 31: won at 117,888,991 nodes by
a beam wider than 2**14; version 4, whose beam stops at 2**14, had not won it after
250,806,272 nodes;
``results/solver/probes/beam_width/``)."""

CANDIDATES_PER_POSITION = 64
"""Children kept per position of a level, on average, before the level's best are chosen
(the candidate buffer holds ``width * 64``; a level with more children drops the last
ones made, which only narrows the search)."""

MAX_KEY_BITS = 25
"""The key table has at most ``2**25`` slots; when 3/4 full no more keys are kept (a
position met again is then searched again: the beam only repeats work)."""

PROGRESS_WEIGHTS = (10, 3, 5, 2, 1, 8)
"""The weights of :func:`progress`: foundation cards, face-down cards, empty columns (at
most 4 counted), breaks, blocked cards, waste cards. Chosen on 20 deals of the training
range (seeds ``500_000_000 + i``) of Forty Thieves, Streets and Maria among a few settings
(``results/solver/beam_tuning.json``), never on the test deals."""
_W_UP, _W_DOWN, _W_EMPTY, _W_BREAK, _W_BLOCKED, _W_WASTE = PROGRESS_WEIGHTS

# ctl: one beam search's resumable state (int64, BeamWorkspace.ctl)
(
    B_DEPTH, B_N, B_WHICH, B_NODES, B_STATUS, B_WON, B_WIDTH, B_LIMIT, B_KEYS, B_DROPPED,
) = range(N_BCTL)  # fmt: skip
# B_STATUS values
RUNNING, WON, DONE = 0, 1, 2


@kernel(inline="always")
def _column_terms(
    st: np.ndarray, tb: np.ndarray, i: int, n: int, fd: int, extra: int, n_extra: int
) -> int:
    """A column's own part of :func:`progress`: ``-3 * face-down - 2 * breaks - blocked``
    (weights :data:`PROGRESS_WEIGHTS`) of the column made of column ``i``'s first ``n``
    cards, ``fd`` of them face down, with ``n_extra`` more cards on top read from
    ``st[extra:]`` (a move's cards, so a child's column is scored without making it)."""
    v = tb[H_V]
    acc = tb[H_ACCEPTS]
    breaks = 0
    blocked = 0
    low0 = low1 = low2 = low3 = 99
    prev = 0
    for j in range(n + n_extra):
        card = st[i * v + j] if j < n else st[extra + j - n]
        s = (card - 1) // 13
        r = (card - 1) % 13 + 1
        if j > 0 and j >= fd and tb[acc + prev * 53 + card] == 0:
            breaks += 1
        low = low0 if s == 0 else low1 if s == 1 else low2 if s == 2 else low3
        if low < r:
            blocked += 1
        elif r < low:
            if s == 0:
                low0 = r
            elif s == 1:
                low1 = r
            elif s == 2:
                low2 = r
            else:
                low3 = r
        prev = card
    return -_W_DOWN * fd - _W_BREAK * breaks - _W_BLOCKED * blocked


@kernel(inline="always")
def _total(up: int, waste: int, empty: int, columns: int) -> int:
    """:func:`progress` from its parts (``columns``: the sum of :func:`_column_terms`)."""
    return _W_UP * up - _W_WASTE * waste + _W_EMPTY * min(empty, 4) + columns


@kernel
def progress(st: np.ndarray, tb: np.ndarray) -> int:
    """How far a position is on its way to a win, as an integer (higher is better): the
    order of a level's positions in the beam search.

    ``10 * foundation cards - 3 * face-down cards + 5 * min(empty columns, 4)
    - 2 * breaks - blocked - 8 * waste cards``, where a *break* is a face-up card in a column
    that does not follow the build rule on the card below it (face up or down), and a
    card is *blocked* when a lower card of its suit lies under it in its column (that card
    must go up first, so this one must move away; face-down cards count as what they are:
    the solver sees them). The weights are :data:`PROGRESS_WEIGHTS`. The beam computes a
    child's value from its parent's by the move (:func:`_child_progress`), equal to this.

    Args:
        st: state array (``int16``), read only.
        tb: table array (``int32``).
    """
    len0 = tb[H_LEN]
    fd0 = tb[H_FD]
    scal = tb[H_SCAL]
    empty = 0
    columns = 0
    for i in range(tb[H_C]):
        n = st[len0 + i]
        if n == 0:
            empty += 1
        else:
            columns += _column_terms(st, tb, i, n, st[fd0 + i], 0, 0)
    return _total(st[scal + S_FCARDS], st[scal + S_NWASTE], empty, columns)


@kernel
def _fill_terms(st: np.ndarray, tb: np.ndarray, terms: np.ndarray) -> None:
    """Each column's :func:`_column_terms` into ``terms[:C]``, their sum into ``terms[C]``
    and the empty columns into ``terms[C + 1]`` (what :func:`_child_progress` reads)."""
    c = tb[H_C]
    len0 = tb[H_LEN]
    fd0 = tb[H_FD]
    terms[c] = 0
    terms[c + 1] = 0
    for i in range(c):
        n = st[len0 + i]
        terms[i] = _column_terms(st, tb, i, n, st[fd0 + i], 0, 0) if n > 0 else 0
        terms[c] += terms[i]
        if n == 0:
            terms[c + 1] += 1


@kernel(inline="always")
def _move_terms(
    st: np.ndarray, tb: np.ndarray, parent: np.ndarray, out: np.ndarray, action: int
) -> None:
    """:func:`_fill_terms` of ``st``, the position made by ``action`` from the position
    whose terms are ``parent``: the parent's, with the move's source and target columns
    made again."""
    c = tb[H_C]
    len0 = tb[H_LEN]
    fd0 = tb[H_FD]
    d = tb[H_DECODE] + 4 * action
    kind = tb[d]
    out[:] = parent
    for k in range(2):
        if k == 0 and (kind == COLUMN_TO_COLUMN or kind == COLUMN_TO_FOUNDATION):  # noqa: SIM109
            i = tb[d + 1]
        elif k == 1 and (kind == COLUMN_TO_COLUMN or kind == WASTE_TO_COLUMN):  # noqa: SIM109
            i = tb[d + 2]
        else:
            continue
        n = st[len0 + i]
        new = _column_terms(st, tb, i, n, st[fd0 + i], 0, 0) if n > 0 else 0
        out[c] += new - out[i]
        out[i] = new
    empty = 0
    for i in range(c):
        if st[len0 + i] == 0:
            empty += 1
    out[c + 1] = empty


@kernel(inline="always")
def _child_progress(st: np.ndarray, tb: np.ndarray, action: int, terms: np.ndarray) -> int:
    """:func:`progress` of the position after ``action`` (not ``REDEAL``) from ``st`` and
    its :func:`_fill_terms`, without making the position: a move changes the foundation
    and waste counts and at most two columns, whose terms are made again."""
    c = tb[H_C]
    v = tb[H_V]
    len0 = tb[H_LEN]
    fd0 = tb[H_FD]
    scal = tb[H_SCAL]
    d = tb[H_DECODE] + 4 * action
    kind = tb[d]
    src = tb[d + 1]
    dst = tb[d + 2]
    n = tb[d + 3]
    up = st[scal + S_FCARDS]
    waste = st[scal + S_NWASTE]
    columns = terms[c]
    empty = terms[c + 1]
    if kind == DRAW:
        waste += min(tb[H_DEAL], st[scal + S_NSTOCK])
    elif kind == WASTE_TO_FOUNDATION:
        up += 1
        waste -= 1
    elif kind == WASTE_TO_COLUMN:
        waste -= 1
        nd = st[len0 + dst]
        if nd == 0:
            empty -= 1
        columns += (
            _column_terms(st, tb, dst, nd, st[fd0 + dst], tb[H_WASTE] + waste, 1) - terms[dst]
        )
    else:  # a column's top card(s): to a foundation or onto another column
        ns = st[len0 + src]
        left = ns - n
        fd = st[fd0 + src]
        if fd > 0 and left == fd:  # the face-down card left on top turns face up
            fd -= 1
        new = 0
        if left == 0:
            empty += 1
        else:
            new = _column_terms(st, tb, src, left, fd, 0, 0)
        columns += new - terms[src]
        if kind == COLUMN_TO_FOUNDATION:
            up += 1
        else:
            nd = st[len0 + dst]
            if nd == 0:
                empty -= 1
            columns += _column_terms(st, tb, dst, nd, st[fd0 + dst], src * v + left, n) - terms[dst]
    return _total(up, waste, empty, columns)


@kernel(inline="always")
def _keep(keys: np.ndarray, ctl: np.ndarray, h: np.uint64) -> bool:
    """Add ``h`` to the key table; False if it was there. A full table (3/4) keeps no
    more keys and answers True (the position is searched again, never lost)."""
    mask = np.uint64(keys.shape[0] - 1)
    slot = h & mask
    while keys[slot] != np.uint64(0):
        if keys[slot] == h:
            return False
        slot = (slot + np.uint64(1)) & mask
    if ctl[B_KEYS] * 4 >= keys.shape[0] * 3:
        return True
    keys[slot] = h
    ctl[B_KEYS] += 1
    return True


@kernel(inline="always")
def _make_kept(ws: BeamWorkspace, w: int, p: int, action: int, nn: int) -> None:
    """Make a kept child: the position after ``action`` from ``ws.beams[w, p]`` into
    ``ws.beams[1 - w, nn]``, with its column key terms and keys
    (:func:`~fortythieves_env.rules.keys._make_child`, as the depth-first search makes them)
    and :func:`progress` terms (by the move), from the parent's."""
    tb, kbuf = ws.tb, ws.kbuf
    st, raw, key, terms = ws.beams[w, p], ws.raws[w, p], ws.bkeys[w, p], ws.terms[w, p]
    child, child_raw = ws.beams[1 - w, nn], ws.raws[1 - w, nn]
    child_key, child_terms = ws.bkeys[1 - w, nn], ws.terms[1 - w, nn]
    kind = tb[tb[H_DECODE] + 4 * action]
    if kind != REDEAL:
        _child_keys(st, tb, action, ws.zc, ws.zd, ws.zs, ws.zw, ws.zf, raw, key, kbuf)
    _make_child(
        tb, st, action, raw, child, child_raw, child_key, kbuf,
        ws.zc, ws.zd, ws.zs, ws.zw, ws.zf, ws.zr,
    )  # fmt: skip
    if kind == REDEAL or kind == DRAW:  # noqa: SIM109  (no column changed)
        child_terms[:] = terms
    else:
        _move_terms(child, tb, terms, child_terms, action)


@kernel
def _beam_run(ws: BeamWorkspace, flags: int, build: int, quota: int, hard: int, total: int) -> int:
    """Run one beam search (module docstring) on the arrays of ``ws`` (a
    :class:`~.workspace.BeamWorkspace`, below by their field names) from level
    ``ctl[B_DEPTH]`` until it wins (``WON``: ``ctl[B_DEPTH]`` is the level of the winning
    child's parent, ``ctl[B_WON]`` its index there, the winning move in
    ``act[level, width]``: :meth:`Beam.line`), ends (``DONE``: no new child, the step
    limit, ``hard`` nodes spent after a position's children, or ``total`` before a child)
    or has spent ``quota`` nodes at the end of a level (``RUNNING``: call again).

    A child is scored (:func:`_child_progress`) and keyed (the first of the solver's two
    Zobrist keys, :func:`~fortythieves_env.rules.keys._child_keys`) from its parent and the move;
    only the children kept for the next level are made (``REDEAL``'s are made to be
    scored). Each child counts one node, made or not."""
    ctl, tb, beams, raws, bkeys, terms = ws.ctl, ws.tb, ws.beams, ws.raws, ws.bkeys, ws.terms
    par, act, keys, legal, kids, scores = ws.par, ws.act, ws.keys, ws.legal, ws.kids, ws.scores
    c_par, c_act, c_sc, c_h, kbuf = ws.c_par, ws.c_act, ws.c_sc, ws.c_h, ws.kbuf
    zc, zd, zs, zw, zf, zr = ws.zc, ws.zd, ws.zs, ws.zw, ws.zf, ws.zr
    width = ctl[B_WIDTH]
    scal = tb[H_SCAL]
    dec = tb[H_DECODE]
    cap = c_par.shape[0]
    while True:
        d = ctl[B_DEPTH]
        if d >= ctl[B_LIMIT]:
            ctl[B_STATUS] = DONE
            return DONE
        w = ctl[B_WHICH]
        cur = beams[w]
        m = 0
        for i in range(ctl[B_N]):
            st = cur[i]
            k = _children(st, tb, flags, build, legal, kids, scores)
            for q in range(k):
                if ctl[B_NODES] >= total:  # the solve's whole budget: never one node more
                    ctl[B_STATUS] = DONE
                    return DONE
                a = kids[q]
                kind = tb[dec + 4 * a]
                ctl[B_NODES] += 1
                up_move = kind == WASTE_TO_FOUNDATION
                up_move |= kind == COLUMN_TO_FOUNDATION
                if up_move and st[scal + S_FCARDS] == 103:
                    ctl[B_WON] = i
                    act[d, width] = a
                    ctl[B_STATUS] = WON
                    return WON
                if m >= cap:
                    ctl[B_DROPPED] = 1
                    continue
                if kind == REDEAL:
                    tmp = beams[1 - w, width]  # a spare row
                    tmp[:] = st
                    apply(tmp, tb, np.int64(a))
                    sc = progress(tmp, tb)
                    _full_keys(tmp, tb, zc, zd, zs, zw, zf, zr, raws[1 - w, width], kbuf)
                else:
                    sc = _child_progress(st, tb, a, terms[w, i])
                    _child_keys(st, tb, a, zc, zd, zs, zw, zf, raws[w, i], bkeys[w, i], kbuf)
                c_par[m] = i
                c_act[m] = a
                c_sc[m] = np.int64(sc) * 4096 - min(q, 4095)
                c_h[m] = kbuf[0] | np.uint64(1)
                m += 1
            if ctl[B_NODES] >= hard:
                ctl[B_STATUS] = DONE
                return DONE
        order = np.argsort(-c_sc[:m], kind="mergesort")
        nn = 0
        for t in range(m):
            j = order[t]
            if not _keep(keys, ctl, c_h[j]):
                continue
            if nn == width:
                ctl[B_DROPPED] = 1
                break
            p = c_par[j]
            a = c_act[j]
            _make_kept(ws, w, p, a, nn)
            par[d, nn] = p
            act[d, nn] = a
            nn += 1
        if nn == 0:
            ctl[B_STATUS] = DONE
            return DONE
        ctl[B_WHICH] = 1 - w
        ctl[B_N] = nn
        ctl[B_DEPTH] = d + 1
        if ctl[B_NODES] >= quota:
            return RUNNING


class Beam:
    """Iteratively widened beam searches from one position (module docstring), resumable
    chunk by chunk under one node budget.

    Args:
        tables: the variant's :class:`~fortythieves_env.core.FastTables`.
        root: the position's state array (``int16``; copied).
        limit: the step limit (the longest line it may return), ``>= 1``.
        flags, build: the pruning rules' flags and the build code (:mod:`.pruning`).
        nodes_before: nodes already spent by earlier passes (the count goes on from there).
    """

    def __init__(
        self,
        tables: FastTables,
        root: np.ndarray,
        limit: int,
        flags: int,
        build: int,
        nodes_before: int = 0,
    ) -> None:
        self.tables = tables
        self.root = root.copy()
        self.limit = limit
        self.flags = flags
        self.build = build
        self.nodes = nodes_before
        self.width = 0
        self.status = DONE
        self.widths: list[int] = []
        self._start(1)

    @property
    def ctl(self) -> np.ndarray:
        """The control array of the search of the current width (``ws.ctl``)."""
        return self.ws.ctl

    def _start(self, width: int) -> None:
        """A new search of ``width``, on a new :class:`~.workspace.BeamWorkspace` (``ws``)
        with the root in level 0."""
        self.width = width
        self.widths.append(width)
        bits = min(MAX_KEY_BITS, max(12, (2 * width * self.limit).bit_length()))
        ws = self.ws = beam_workspace(
            self.tables, self.limit, width, width * CANDIDATES_PER_POSITION, bits
        )
        tb = ws.tb
        ws.beams[0, 0] = self.root
        _full_keys(self.root, tb, ws.zc, ws.zd, ws.zs, ws.zw, ws.zf, ws.zr, ws.raws[0, 0],
                   ws.bkeys[0, 0])  # fmt: skip
        _fill_terms(self.root, tb, ws.terms[0, 0])
        ws.ctl[B_N] = 1
        ws.ctl[B_WIDTH] = width
        ws.ctl[B_LIMIT] = self.limit
        ws.ctl[B_NODES] = self.nodes
        _keep(ws.keys, ws.ctl, ws.bkeys[0, 0, 0] | np.uint64(1))
        self.status = RUNNING

    def run(self, quota: int, hard: int, total: int | None = None) -> int:
        """Search on until a win (``WON``), the end of every width (``DONE``: widening has
        nothing left to try) or ``quota`` nodes (``RUNNING``: call again); ``hard`` is the
        pass's whole budget (a search is cut there, after a position's children: it may pass
        ``hard`` by fewer than one position's children), ``total`` (default ``hard``) a cap
        never passed (a search is cut there before a child)."""
        total = hard if total is None else total
        while True:
            status = _beam_run(self.ws, self.flags, self.build, quota, hard, total)
            self.nodes = int(self.ws.ctl[B_NODES])
            if status == WON:
                self.status = WON
                return WON
            if status == RUNNING:
                return RUNNING
            # this width is done: widen, unless nothing was dropped or the budget is spent
            spent = self.nodes >= min(hard, total)
            if spent or not self.ws.ctl[B_DROPPED] or self.width >= MAX_WIDTH:
                self.status = DONE
                return DONE
            self._start(self.width * 2)
            if self.nodes >= quota:
                return RUNNING

    def line(self) -> list[int]:
        """The winning line (action indices) after :meth:`run` returned ``WON``."""
        act, par = self.ws.act, self.ws.par
        d = int(self.ws.ctl[B_DEPTH])
        moves = [int(act[d, self.width])]
        i = int(self.ws.ctl[B_WON])
        for t in range(d - 1, -1, -1):
            moves.append(int(act[t, i]))
            i = int(par[t, i])
        return moves[::-1]
