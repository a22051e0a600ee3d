"""Win finding in huge spaces: a beam search ordered by progress (solver version 4's pass).

The depth-first search of :mod:`.solver` finishes small spaces (and then proves ``lost``),
but in the two-deck games with one pass through the stock (Forty Thieves, Streets, Maria) it
meets 10**7 positions and more without reaching the end of the space, while the line it
follows wanders. Published solvers for such spaces find wins with searches ordered by
progress (KDE's ``patsolve`` for Forty and Eight: best-first with move priorities; Spider
solvers "eager to create empty columns"; ``docs/solver_design.md``, section 25). This pass
is the simplest of those that keeps memory bounded: a **beam search**.

* Level ``d`` holds at most ``width`` positions reached in ``d`` moves. Every child of every
  position of the level (the solver's children: rules F, W and E of :mod:`.pruning`) is
  made, scored by :func:`progress` and keyed by
  :func:`~fortythieves_env._fast.canonical_hash`; the ``width`` best children whose key was
  not kept before (at any level: a position reached again later is never better) form level
  ``d + 1``. Ties keep the parent's order and then the solver's move order, so the search is
  deterministic: the node budget is the figure of record, as in :mod:`.solver`.
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

Memory: two levels of ``width`` state arrays, the candidates of one level (``width *``
:data:`CANDIDATES_PER_POSITION` records of 24 bytes), each level's parent and move
(``step_limit * width`` ``int32`` pairs: 128 MiB at the largest width and 1000 steps) and a
key table of at most ``2**25`` ``uint64`` (256 MiB), touched only as it fills.
"""

from __future__ import annotations

import numpy as np

from ._fast import (
    H_ACCEPTS,
    H_C,
    H_FD,
    H_LEN,
    H_NACT,
    H_SCAL,
    H_V,
    S_FCARDS,
    S_NWASTE,
    apply,
    canonical_hash,
)
from ._jit import kernel
from .pruning import _children

__all__ = ["MAX_WIDTH", "PROGRESS_WEIGHTS", "Beam", "progress"]

MAX_WIDTH = 1 << 14
"""The widest beam (16,384 positions per level)."""

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

# ctl: one beam search's resumable state (int64)
B_DEPTH, B_N, B_WHICH, B_NODES, B_STATUS, B_WON, B_WIDTH, B_LIMIT, B_KEYS, B_DROPPED = range(10)
N_BCTL = 10
# B_STATUS values
RUNNING, WON, DONE = 0, 1, 2


@kernel
def progress(st: np.ndarray, tb: np.ndarray) -> int:
    """How far a position is on its way to a win, as an integer (higher is better): the
    order of a level's positions in the beam search.

    ``10 * foundation cards - 3 * face-down cards + 5 * min(empty columns, 4)
    - 2 * breaks - blocked - 8 * waste cards``, where a *break* is a face-up card in a column
    that does not follow the build rule on the card below it (face up or down), and a
    card is *blocked* when a lower card of its suit lies under it in its column (that card
    must go up first, so this one must move away; face-down cards count as what they are:
    the solver sees them). The weights are :data:`PROGRESS_WEIGHTS`.

    Args:
        st: state array (``int16``), read only.
        tb: table array (``int32``).
    """
    c = tb[H_C]
    v = tb[H_V]
    len0 = tb[H_LEN]
    fd0 = tb[H_FD]
    acc = tb[H_ACCEPTS]
    scal = tb[H_SCAL]
    down = 0
    empty = 0
    breaks = 0
    blocked = 0
    low = np.empty(4, dtype=np.int64)
    for i in range(c):
        n = st[len0 + i]
        fd = st[fd0 + i]
        down += fd
        if n == 0:
            empty += 1
            continue
        low[:] = 99
        for j in range(n):
            card = st[i * v + j]
            s = (card - 1) // 13
            r = (card - 1) % 13 + 1
            if j > 0 and j >= fd and tb[acc + st[i * v + j - 1] * 53 + card] == 0:
                breaks += 1
            if low[s] < r:
                blocked += 1
            elif r < low[s]:
                low[s] = r
    return (
        _W_UP * st[scal + S_FCARDS]
        - _W_DOWN * down
        + _W_EMPTY * min(empty, 4)
        - _W_BREAK * breaks
        - _W_BLOCKED * blocked
        - _W_WASTE * st[scal + S_NWASTE]
    )


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


@kernel
def _beam_run(
    ctl: np.ndarray,
    tb: np.ndarray,
    flags: int,
    build: int,
    beams: np.ndarray,
    par: np.ndarray,
    act: np.ndarray,
    keys: np.ndarray,
    c_par: np.ndarray,
    c_act: np.ndarray,
    c_sc: np.ndarray,
    c_h: np.ndarray,
    tmp: np.ndarray,
    legal: np.ndarray,
    kids: np.ndarray,
    scores: np.ndarray,
    quota: int,
    hard: int,
) -> int:
    """Run one beam search (module docstring) from level ``ctl[B_DEPTH]`` until it wins
    (``WON``: ``ctl[B_DEPTH]`` is the winning level, ``ctl[B_WON]`` the winning child's
    parent in it and ``act[level, width]`` its move... see :meth:`Beam.line`), ends
    (``DONE``: no new child, the step limit, or ``hard`` nodes spent) or has spent
    ``quota`` nodes at the end of a level (``RUNNING``: call again)."""
    width = ctl[B_WIDTH]
    scal = tb[H_SCAL]
    cap = c_par.shape[0]
    while True:
        d = ctl[B_DEPTH]
        if d >= ctl[B_LIMIT]:
            ctl[B_STATUS] = DONE
            return DONE
        cur = beams[ctl[B_WHICH]]
        nxt = beams[1 - ctl[B_WHICH]]
        m = 0
        for i in range(ctl[B_N]):
            k = _children(cur[i], tb, flags, build, legal, kids, scores)
            for q in range(k):
                tmp[:] = cur[i]
                apply(tmp, tb, np.int64(kids[q]))
                ctl[B_NODES] += 1
                if tmp[scal + S_FCARDS] == 104:
                    ctl[B_WON] = i
                    par[d, width] = i
                    act[d, width] = kids[q]
                    ctl[B_STATUS] = WON
                    return WON
                if m < cap:
                    c_par[m] = i
                    c_act[m] = kids[q]
                    c_sc[m] = np.int64(progress(tmp, tb)) * 4096 - min(q, 4095)
                    c_h[m] = canonical_hash(tmp, tb) | np.uint64(1)
                    m += 1
                else:
                    ctl[B_DROPPED] = 1
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
            nxt[nn] = cur[c_par[j]]
            apply(nxt[nn], tb, np.int64(c_act[j]))
            par[d, nn] = c_par[j]
            act[d, nn] = c_act[j]
            nn += 1
        if nn == 0:
            ctl[B_STATUS] = DONE
            return DONE
        ctl[B_WHICH] = 1 - ctl[B_WHICH]
        ctl[B_N] = nn
        ctl[B_DEPTH] = d + 1
        if ctl[B_NODES] >= quota:
            return RUNNING


class Beam:
    """Iteratively widened beam searches from one position (module docstring), resumable
    chunk by chunk under one node budget.

    Args:
        tables: the variant's :class:`~fortythieves_env._fast.FastTables`.
        root: the position's state array (``int16``; copied).
        limit: the step limit (the longest line it may return), ``>= 1``.
        flags, build: the pruning rules' flags and the build code (:mod:`.pruning`).
        nodes_before: nodes already spent by earlier passes (the count goes on from there).
    """

    def __init__(
        self,
        tables: object,
        root: np.ndarray,
        limit: int,
        flags: int,
        build: int,
        nodes_before: int = 0,
    ) -> None:
        self.tb = tables.table  # type: ignore[attr-defined]
        self.root = root.copy()
        self.limit = limit
        self.flags = flags
        self.build = build
        n_act = int(self.tb[H_NACT])
        self.legal = np.zeros(n_act, dtype=np.int32)
        self.kids = np.zeros(n_act, dtype=np.int32)
        self.scores = np.zeros(n_act, dtype=np.int32)
        self.tmp = self.root.copy()
        self.nodes = nodes_before
        self.width = 0
        self.status = DONE
        self.widths: list[int] = []
        self._start(1)

    def _start(self, width: int) -> None:
        self.width = width
        self.widths.append(width)
        size = self.root.shape[0]
        self.beams = np.zeros((2, width, size), dtype=np.int16)
        self.beams[0, 0] = self.root
        self.par = np.zeros((self.limit, width + 1), dtype=np.int32)
        self.act = np.zeros((self.limit, width + 1), dtype=np.int32)
        cap = width * CANDIDATES_PER_POSITION
        self.c_par = np.zeros(cap, dtype=np.int32)
        self.c_act = np.zeros(cap, dtype=np.int32)
        self.c_sc = np.zeros(cap, dtype=np.int64)
        self.c_h = np.zeros(cap, dtype=np.uint64)
        bits = min(MAX_KEY_BITS, max(12, (2 * width * self.limit).bit_length()))
        self.keys = np.zeros(1 << bits, dtype=np.uint64)
        self.ctl = np.zeros(N_BCTL, dtype=np.int64)
        self.ctl[B_N] = 1
        self.ctl[B_WIDTH] = width
        self.ctl[B_LIMIT] = self.limit
        self.ctl[B_NODES] = self.nodes
        _keep(self.keys, self.ctl, canonical_hash(self.root, self.tb) | np.uint64(1))
        self.status = RUNNING

    def run(self, quota: int, hard: int) -> int:
        """Search on until a win (``WON``), the end of every width (``DONE``: widening has
        nothing left to try) or ``quota`` nodes (``RUNNING``: call again); ``hard`` is the
        pass's whole budget (a search is cut there, mid-level)."""
        while True:
            status = _beam_run(
                self.ctl, self.tb, self.flags, self.build, self.beams, self.par, self.act,
                self.keys, self.c_par, self.c_act, self.c_sc, self.c_h, self.tmp, self.legal,
                self.kids, self.scores, quota, hard,
            )  # fmt: skip
            self.nodes = int(self.ctl[B_NODES])
            if status == WON:
                self.status = WON
                return WON
            if status == RUNNING:
                return RUNNING
            # this width is done: widen, unless nothing was dropped or the budget is spent
            if self.nodes >= hard or not self.ctl[B_DROPPED] or self.width >= MAX_WIDTH:
                self.status = DONE
                return DONE
            self._start(self.width * 2)
            if self.nodes >= quota:
                return RUNNING

    def line(self) -> list[int]:
        """The winning line (action indices) after :meth:`run` returned ``WON``."""
        d = int(self.ctl[B_DEPTH])
        moves = [int(self.act[d, self.width])]
        i = int(self.ctl[B_WON])
        for t in range(d - 1, -1, -1):
            moves.append(int(self.act[t, i]))
            i = int(self.par[t, i])
        return moves[::-1]
