"""Many small solves of one variant on arrays allocated once: :class:`SolverContext` (the
search agent's solver) and its answer, :class:`ArraySolve`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..rules.checks import checked_int
from ..rules.core import (
    H_C,
    H_NACT,
    H_SCAL,
    S_FCARDS,
    tables_for,
)
from ..rules.keys import key_tables_for
from ..rules.variants import VariantSpec
from .api import MAX_NODES, MAX_STEP_LIMIT, Status
from .dead import dead_workspace
from .pruning import (
    _BUILD_CODE,
    RULES,
    rule_flags,
)
from .rollout import _SEEN_BITS, N_BEST_SCORE, N_DEPTH, N_NODES, N_NST, _nested
from .search import (
    _CHUNK,
    C_BUILD,
    C_FLAGS,
    C_LIMIT,
    C_NODES,
    LOST,
    N_CTL,
    RUNNING,
    WON,
    _enter_root,
    _Search,
    table_bits,
)


# ---------------------------------------------------------------------- many small solves
@dataclass(frozen=True)
class ArraySolve:
    """What :meth:`SolverContext.run` found (the fields :func:`.solve` would report).

    Attributes:
        status: ``"won"``, ``"lost"`` or ``"unknown"`` (the node cap ran out), as
            :attr:`.SolveResult.status`.
        nodes: positions entered (equal to :func:`.solve`'s count for the same input).
        cards: the most foundation cards at the end of a line the search met: 104 when
            won; else the rollout pass's best line's end (the position's own count if the
            pass did not run). A cheap value of an unfinished search (0..104).
        actions: for ``won``, the winning line as action indices (``int``); else empty.
        found_by: ``"rollouts"``, ``"search"`` (for ``won``) or ``""``.
    """

    status: Status
    nodes: int
    cards: int
    actions: tuple[int, ...]
    found_by: str


class SolverContext:
    """The solver's arrays, allocated once, for many small solves of one variant.

    :func:`.solve` allocates its stack (``step_limit x n_actions`` ``int32`` children, some
    5 MB in the variants with 1193 actions), its closed set and the rollout pass's tables
    at every call, and checks, packs and replays the position in Python. A caller that
    solves hundreds of sampled positions per move (the search agent,
    :mod:`fortythieves_agents.players.search`)
    builds one context and calls :meth:`run` on packed state arrays. :meth:`run` runs the
    same compiled passes with the same node counting, on arrays of the same sizes (the
    closed set is the first ``2**bits`` records of a kept array, ``bits`` as in
    :func:`.solve`, zeroed before each search; the rollout pass's tables zeroed before each
    pass; every other array is written before it is read), so its status, node count and
    line equal :func:`.solve`'s for the same position, node budget, step limit and rules
    (``tests/env/test_solver_context.py``). What it skips: the position's checks (a state
    array must come from a position of the variant, e.g. :meth:`..rules.tables.FastTables.pack` or a
    sample of :func:`~fortythieves_env.rules.view.determinize`), the seconds cap and the replay
    of a won line (:func:`.solve` replays every line; a context's lines come from the same
    kernels).

    Not thread-safe: one context per thread.

    Args:
        spec: the variant.
        step_limit: the largest step limit :meth:`run` will be given (default the variant's
            ``max_episode_steps``); an integer ``0..MAX_STEP_LIMIT``.
        rules: the pruning rules (a subset of :data:`RULES`, default all).

    Raises:
        ValueError: ``step_limit`` out of range or an unknown rule name.
    """

    def __init__(
        self,
        spec: VariantSpec,
        step_limit: int | None = None,
        rules: tuple[str, ...] | list[str] = RULES,
    ) -> None:
        self.rules, self.flags = rule_flags(rules, "SolverContext")
        self.spec = spec
        limit = spec.max_episode_steps if step_limit is None else step_limit
        self.step_limit = checked_int("SolverContext: step_limit", limit, 0, MAX_STEP_LIMIT)
        self.tables = tables_for(spec)
        tb = self.tables.table
        self.tb = tb
        self.build = _BUILD_CODE[spec.build]
        n_act, c, size = int(tb[H_NACT]), int(tb[H_C]), self.tables.state_size
        self._fcards = int(tb[H_SCAL]) + S_FCARDS
        depth = self.step_limit + 1
        # pass 1 (solve's names)
        self.legal = np.zeros(n_act, dtype=np.int32)
        self.scores = np.zeros(n_act, dtype=np.int32)
        self.nst = np.zeros(N_NST, dtype=np.int64)
        self.line_buf = np.zeros(depth, dtype=np.int32)
        self.best = np.zeros(depth, dtype=np.int32)
        self.rbuf = np.zeros(depth, dtype=np.int32)
        self.cur = np.zeros(size, dtype=np.int16)
        self.tmp = np.zeros(size, dtype=np.int16)
        self.tmp2 = np.zeros(size, dtype=np.int16)
        self.main_kids = np.zeros(n_act, dtype=np.int32)
        self.kids = np.zeros(n_act, dtype=np.int32)
        self.seen = tuple(
            np.zeros(1 << _SEEN_BITS, dtype=dtype)
            for dtype in (np.uint64, np.int64, np.uint64, np.int64)
        )
        # pass 2 (_Search's names)
        self.ctl = np.zeros(N_CTL, dtype=np.int64)
        self.states = np.zeros((depth + 1, size), dtype=np.int16)
        self.acts = np.zeros((depth, n_act), dtype=np.int32)
        self.nact = np.zeros(depth, dtype=np.int32)
        self.nxt = np.zeros(depth, dtype=np.int32)
        self.low = np.zeros(depth + 1, dtype=np.int64)
        self.cut = np.zeros(depth + 1, dtype=np.int8)
        self.slotof = np.zeros(depth + 1, dtype=np.int64)
        self.pbase = np.zeros(depth + 1, dtype=np.int64)
        self.fid = np.zeros(depth + 1, dtype=np.int64)
        self.raw = np.zeros((depth + 1, c, 2), dtype=np.uint64)
        self.keys = np.zeros((depth + 1, 2), dtype=np.uint64)
        self.rec = np.zeros((1 << 10, 4), dtype=np.uint64)
        self.piece = np.zeros(1 << 12, dtype=np.int64)
        self.slegal = np.zeros(n_act, dtype=np.int32)
        self.sscores = np.zeros(n_act, dtype=np.int32)
        self.kbuf = np.zeros(6, dtype=np.uint64)
        self.dwk = dead_workspace(size)  # rule D's work array (unused: the context's rules)
        self.z = key_tables_for(self.tables)

    def run(self, st: np.ndarray, nodes: int, step_limit: int | None = None) -> ArraySolve:
        """Solve the position of state array ``st`` as :func:`.solve` would (both passes,
        no seconds cap), reusing the context's arrays.

        Args:
            st: a state array of the variant (``int16``, shape ``(state_size,)``); read
                only. It must be a position of the variant (not checked).
            nodes: the node budget, an integer ``1..MAX_NODES``.
            step_limit: the most moves a winning line may have (default the context's
                ``step_limit``), an integer from 0 to the context's ``step_limit``.

        Returns:
            An :class:`ArraySolve`.

        Raises:
            ValueError: ``st`` is not an ``int16`` array of the variant's state size, or
                ``nodes`` or ``step_limit`` is out of range.
        """
        nodes = checked_int("SolverContext.run: nodes", nodes, 1, MAX_NODES)
        limit = self.step_limit if step_limit is None else step_limit
        limit = checked_int("SolverContext.run: step_limit", limit, 0, self.step_limit)
        if st.dtype != np.int16 or st.shape != self.cur.shape:
            raise ValueError(
                f"SolverContext.run({self.spec.id}): need an int16 state array of shape "
                f"{self.cur.shape}, got {st.dtype} {st.shape}"
            )
        tb = self.tb
        depth = limit + 1
        status = RUNNING
        used_nodes = 0
        actions: tuple[int, ...] = ()
        found_by = ""
        cards = int(st[self._fcards])
        if cards == 104:
            return ArraySolve("won", 1, 104, (), "")
        if limit == 0:
            return ArraySolve("lost", 1, cards, (), "")
        # pass 1: as solve's
        quota_1 = max(1, nodes // 2)
        nst = self.nst
        nst[:] = 0
        cur, tmp, tmp2 = self.cur, self.tmp, self.tmp2
        cur[:] = st
        tmp[:] = st
        tmp2[:] = st
        for table in self.seen:
            table.fill(0)
        line = self.line_buf[:depth]
        best = self.best[:depth]
        rbuf = self.rbuf[:depth]
        while True:
            chunk = min(quota_1, int(nst[N_NODES]) + _CHUNK)
            status = _nested(
                nst, tb, cur, limit, self.flags, self.build, chunk, quota_1, line, best,
                rbuf, tmp, tmp2, self.legal, self.main_kids, self.kids, self.scores,
                *self.seen,
            )  # fmt: skip
            if status != RUNNING or nst[N_NODES] >= quota_1:
                break
        used_nodes = int(nst[N_NODES])
        if status == WON:
            n = int(nst[N_DEPTH])
            return ArraySolve("won", used_nodes, 104, tuple(line[:n].tolist()), "rollouts")
        cards = max(cards, int(nst[N_BEST_SCORE]))
        if used_nodes >= nodes:  # as solve's: the rollouts spent it all, no node for pass 2
            return ArraySolve("unknown", used_nodes, cards, (), "")
        # pass 2: as _Search's, on the kept arrays
        search = self._search(st, limit, nodes, used_nodes)
        while True:
            status = search.run(min(nodes, (search.nodes // _CHUNK + 1) * _CHUNK))
            if status != RUNNING or search.nodes >= nodes:
                break
        self.piece = search.piece  # grown, perhaps: kept
        used_nodes = search.nodes
        verdict: Status = "unknown"
        if status == WON:
            verdict, found_by, cards = "won", "search", 104
            actions = tuple(search.line())
        elif status == LOST:
            verdict = "lost"
        return ArraySolve(verdict, used_nodes, cards, actions, found_by)

    def _search(self, root: np.ndarray, limit: int, nodes: int, nodes_before: int) -> _Search:
        """A :class:`_Search` on the context's arrays, as ``_Search(...)`` would make it."""
        depth = limit + 1
        bits = table_bits(nodes)
        if self.rec.shape[0] < 1 << bits:
            self.rec = np.zeros((1 << bits, 4), dtype=np.uint64)
        rec = self.rec[: 1 << bits]
        rec.fill(0)
        s = object.__new__(_Search)
        s.tb = self.tb
        s.max_bits = bits  # the context's closed set has its full size: it never grows
        s.ctl = self.ctl
        s.ctl[:] = 0  # C_GROW_AT 0: never
        s.ctl[C_LIMIT], s.ctl[C_FLAGS], s.ctl[C_BUILD] = limit, self.flags, self.build
        s.states = self.states[: depth + 1]
        s.states[0] = root
        s.acts = self.acts[:depth]
        s.nact = self.nact[:depth]
        s.nxt = self.nxt[:depth]
        s.low = self.low[: depth + 1]
        s.cut = self.cut[: depth + 1]
        s.slotof = self.slotof[: depth + 1]
        s.pbase = self.pbase[: depth + 1]
        s.fid = self.fid[: depth + 1]
        s.raw = self.raw[: depth + 1]
        s.keys = self.keys[: depth + 1]
        s.rec = rec
        s.piece = self.piece
        s.legal = self.slegal
        s.scores = self.sscores
        s.kbuf = self.kbuf
        s.dwk = self.dwk
        s.z = self.z
        _enter_root(
            s.ctl, s.tb, s.states, s.acts, s.nact, s.nxt, s.low, s.cut, s.slotof, s.pbase,
            s.fid, s.raw, s.keys, s.rec, s.legal, s.scores, *s.z,
        )  # fmt: skip
        s.ctl[C_NODES] += nodes_before
        return s
