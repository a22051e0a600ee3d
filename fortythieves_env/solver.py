"""A clairvoyant solver: search for a winning line from a position with every card known.

**Clairvoyant.** The solver reads the whole position, face-down cards and the stock's
order included, which a player cannot see. Its verdict says what the *deal* allows, not
what a player who sees only :func:`~fortythieves_env.view.player_view` can achieve.

:func:`solve` answers with a :class:`SolveResult`:

* ``"won"``: ``moves`` is a winning line in the rule book's move notation, every move
  counted (forced ones too), no longer than the step limit; :func:`solve` replays it with
  :meth:`Rules.play` before answering, so a ``won`` line is always legal and wins.
* ``"lost"``: the search space is exhausted: **no line wins within the step limit** from
  this position (the remaining steps of the episode; by default the variant's
  ``max_episode_steps``). The argument is in :func:`_search`'s docstring.
* ``"unknown"``: the node budget (or the seconds cap, or a caller's stop) ran out first.

Three passes (compiled with numba, on the packed state arrays of :mod:`._fast`), one node
budget: every position entered counts one node, in every pass.

1. **Rollouts** (:func:`_nested`, at most 1/8 of the budget; half with ``beam=False``): a one-
   level nested greedy rollout search that sees every card. From the current position of its
   line it tries every child (:func:`_children`, same rules and order), plays a greedy rollout
   from each (:func:`_rollout`: always the first child that repeats no position of the line or
   of the rollout) and keeps the best sequence so far (most foundation cards at its end; the
   first on ties); it then plays the first move of that sequence and goes on (the best sequence
   is kept, so the line's outcome never gets worse). A rollout that wins ends the pass with the
   line plus the rollout: a real winning line (replayed like any other). The pass ends without a
   win when its line cannot go on; it **never proves ``lost``**. On Number Ten and Rank and File
   it finds most of the wins (at 10**6 nodes, 15/20 and 12/20 test deals against 6/20 and 3/20
   for the search alone).
2. **Beam** (:class:`.beam.Beam`, up to 5/8 of the budget in all; version 4): iteratively
   widened beam searches ordered by progress (foundation cards, cards turned up, empty
   columns, the waste's length, ...), for the wins in spaces the depth-first search does
   not finish. It never proves ``lost`` either.
3. **Search** (:func:`_search`, the rest of the budget): depth-first with an explicit
   stack and a transposition table (the *closed set*) keyed by the position up to the
   column order (two 64-bit Zobrist keys, updated by each move: :func:`_child_keys`).
   An entry keeps the largest number of remaining steps with which its position was
   searched, or **"no line wins at all"** when the position's whole search never met the
   step limit (Tarjan's lowlinks settle the positions of a cycle together: see
   :func:`_search`); a position is searched again only with more steps left, and never
   once it is settled "at all". Children are tried in a fixed order by a cheap score
   (:func:`_score`), each child's key probed before the child is made. Only this pass
   proves ``lost`` (its stack empties: the search was exhaustive); the result then says
   what the proof needed (:attr:`SolveResult.proof`).

Every pass is deterministic: the node budget is the figure of record (equal inputs, equal
answer, line and node count), ``seconds`` only a cap.

Pruning rules (each proven safe for two decks in its function's docstring; "safe" means:
if some line wins within ``k`` steps, one that obeys the rule wins within ``k`` steps too):

* ``F`` (:func:`_safe_foundation`): a foundation move that cannot hurt is played at once,
  as the only child.
* ``W`` (:func:`_children`): never move a whole column into an empty column.
* ``E`` (:func:`_children`): of the moves that differ only in which empty column they
  fill, keep the one into the first empty column.

The proofs follow ``docs/solver_design.md`` (sections 2 and 4); the tests check every rule
against a search without it, and both against a plain breadth-first search, on small end
positions of every build rule.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ._checks import INT64_MAX, checked_int
from ._fast import (
    H_C,
    H_DECODE,
    H_NACT,
    H_SCAL,
    S_FCARDS,
    _apply,
    apply,
    canonical_hash,
    tables_for,
)
from ._jit import kernel
from .actions import (
    COLUMN_TO_COLUMN,
    COLUMN_TO_FOUNDATION,
    REDEAL,
    WASTE_TO_COLUMN,
    WASTE_TO_FOUNDATION,
)
from .beam import DONE as BEAM_DONE
from .beam import WON as BEAM_WON
from .beam import Beam
from .engine import InvalidPositionError, rules_for
from .keys import _child_keys, _full_keys, key_tables_for
from .pruning import (
    _BUILD_CODE,
    RULES,
    _children,
    build_code,
    pruned_moves,
    rule_flags,
)
from .state import GameState
from .variants import VariantSpec, get_variant

__all__ = [
    "RULES",
    "SOLVER_VERSION",
    "ArraySolve",
    "SolveResult",
    "SolverContext",
    "build_code",
    "pruned_moves",
    "solve",
]

Status = Literal["won", "lost", "unknown"]

SOLVER_VERSION = 4
"""The version of the search's results (2: the rollout pass before the search; 3: the
closed set settles positions "at all" with lowlinks, Zobrist keys updated by the move,
a table sized from the budget up to ``2**26`` records; 4: a beam search ordered by progress
(:mod:`.beam`) between the rollout pass, now at most 1/8 of the budget, and the
depth-first search, which keeps at least 3/8): bumped
whenever a change could give another verdict, line or node count for the same input (move
order, pruning rules, table size, node counting).
Saved results (``fortythieves solve``) are keyed by it, so results of an older search are
never mixed with newer ones."""

MAX_TABLE_BITS = 26
"""The closed set has at most ``2**26`` records of 32 bytes (2 GiB, touched only as it
fills), sized from the node budget (``2**21``, 64 MiB, at 2,000,000 nodes); when it is 3/4
full no more positions are stored (the search stays correct: a position not stored counts
as *cut*, so nothing above it can be settled "at all", and it is searched again when met
again)."""
_CHUNK = 1 << 16
"""Nodes per compiled call between two looks at the clock."""
MAX_STEP_LIMIT = 100_000
"""The largest ``step_limit`` :func:`solve` takes. The search keeps a stack entry per step
(about ``4 * n_actions + 660`` bytes: some 540 MB at this limit in the variants with 1193
actions, 110 MB in Forty Thieves); the episodes' own limits are 1000 and 1500 steps."""
MAX_NODES = INT64_MAX
"""The largest node budget :func:`solve` takes (the compiled search counts in ``int64``)."""


@dataclass(frozen=True)
class SolveResult:
    """What :func:`solve` found.

    Attributes:
        status: ``"won"``, ``"lost"`` (no line wins within ``step_limit``) or
            ``"unknown"`` (a budget ran out first).
        moves: for ``won``, the winning line in the rule book's notation (``"w>f"``,
            ``"t2>t0x3"``, ...), at most ``step_limit`` moves; empty otherwise.
        nodes: positions the search entered (the deterministic measure of work).
        seconds: wall-clock time of the search (float, seconds).
        variant: the variant's id.
        step_limit: the most moves a winning line could have.
        rules: the pruning rules used (names from :data:`RULES`).
        stopped_by: for ``unknown``, what ran out: ``"nodes"``, ``"seconds"`` or
            ``"stop"`` (the ``should_stop`` callback); else ``""``.
        found_by: for ``won``, the pass that found the line: ``"rollouts"``,
            ``"beam"`` or ``"search"``; else ``""``.
        proof: for ``lost``, what the proof needed, checkable by a search without
            pruning on small positions (``tests/env/test_solver.py``): ``positions`` stored
            in the closed set, ``re_searched`` (entered again with more steps left),
            ``not_stored`` (the table was full: each counted as cut), ``deepest`` (the
            longest line the search entered) and ``no_win_at_all`` (True: the step limit
            never bit, so no line wins at any length); with :attr:`rules` and
            :attr:`nodes` that is the whole proof. None otherwise.
    """

    status: Status
    moves: tuple[str, ...]
    nodes: int
    seconds: float
    variant: str
    step_limit: int
    rules: tuple[str, ...]
    stopped_by: str = ""
    found_by: str = ""
    proof: dict[str, int | bool] | None = None
    clairvoyant: bool = field(default=True, repr=False)
    """Always True: the solver saw every card (face-down ones and the stock's order)."""


# ---------------------------------------------------------------------- the search
# ctl: the search's resumable state (int64)
(
    C_DEPTH, C_NODES, C_STATUS, C_USED, C_LIMIT, C_FLAGS, C_BUILD, C_PIECE, C_FRAMES,
    C_INF, C_RESEARCH, C_DROPPED, C_MAXDEPTH, C_ROOT_INF,
) = range(14)  # fmt: skip
N_CTL = 14
# C_STATUS values
RUNNING, WON, LOST, GROW = 0, 1, 2, 3
# table records: rec[slot] = (key 0, key 1, meta, frame id); meta = bound | state << 32 | low << 40
FREE, ON_STACK, FINAL, PROVISIONAL = 0, 1, 2, 3
INF = (1 << 31) - 1
"""A record's bound meaning "no line wins from here at all" (not only within a limit)."""
_B32 = np.uint64(0xFFFFFFFF)
_SH32 = np.uint64(32)
_SH40 = np.uint64(40)
_B8 = np.uint64(0xFF)


@kernel(inline="always")
def _meta(bound: int, state: int, low: int) -> np.uint64:
    return np.uint64(bound) | (np.uint64(state) << _SH32) | (np.uint64(low) << _SH40)


@kernel(inline="always")
def _bound(meta: np.uint64) -> int:
    return np.int64(meta & _B32)


@kernel(inline="always")
def _state(meta: np.uint64) -> int:
    return np.int64((meta >> _SH32) & _B8)


@kernel(inline="always")
def _low(meta: np.uint64) -> int:
    return np.int64(meta >> _SH40)


@kernel
def _enter_root(
    ctl: np.ndarray,
    tb: np.ndarray,
    states: np.ndarray,
    acts: np.ndarray,
    nact: np.ndarray,
    nxt: np.ndarray,
    low: np.ndarray,
    cut: np.ndarray,
    slotof: np.ndarray,
    pbase: np.ndarray,
    fid: np.ndarray,
    raw: np.ndarray,
    keys: np.ndarray,
    rec: np.ndarray,
    legal: np.ndarray,
    scores: np.ndarray,
    zc: np.ndarray,
    zd: np.ndarray,
    zs: np.ndarray,
    zw: np.ndarray,
    zf: np.ndarray,
    zr: np.ndarray,
) -> None:
    """Frame 0 of :func:`_search`: the root's keys, record and children (one node)."""
    _full_keys(states[0], tb, zc, zd, zs, zw, zf, zr, raw[0], keys[0])
    k1 = keys[0, 0]
    k2 = keys[0, 1]
    if k1 == np.uint64(0) and k2 == np.uint64(0):
        k2 = np.uint64(1)
    slot = np.int64(k1 & np.uint64(rec.shape[0] - 1))
    rec[slot, 0] = k1
    rec[slot, 1] = k2
    rec[slot, 2] = _meta(ctl[C_LIMIT], ON_STACK, 0)
    ctl[C_USED] = 1
    ctl[C_NODES] = 1
    ctl[C_FRAMES] = 1
    low[0] = 0
    cut[0] = 0
    slotof[0] = slot
    pbase[0] = 0
    fid[0] = 1
    nact[0] = _children(states[0], tb, ctl[C_FLAGS], ctl[C_BUILD], legal, acts[0], scores)
    nxt[0] = 0


@kernel
def _search(
    ctl: np.ndarray,
    tb: np.ndarray,
    states: np.ndarray,
    acts: np.ndarray,
    nact: np.ndarray,
    nxt: np.ndarray,
    low: np.ndarray,
    cut: np.ndarray,
    slotof: np.ndarray,
    pbase: np.ndarray,
    fid: np.ndarray,
    raw: np.ndarray,
    keys: np.ndarray,
    rec: np.ndarray,
    piece: np.ndarray,
    legal: np.ndarray,
    scores: np.ndarray,
    kbuf: np.ndarray,
    zc: np.ndarray,
    zd: np.ndarray,
    zs: np.ndarray,
    zw: np.ndarray,
    zf: np.ndarray,
    zr: np.ndarray,
    node_quota: int,
) -> int:
    """Run the depth-first search until it ends or ``ctl[C_NODES]`` reaches ``node_quota``;
    returns ``ctl[C_STATUS]`` (``RUNNING`` if paused, ``GROW`` if ``piece`` is full: call
    again, with a larger ``piece`` for ``GROW``, to go on).

    The stack: frame ``d`` holds position ``states[d]`` (reached by ``d`` moves), its keys
    ``keys[d]`` and column terms ``raw[d]``, its children ``acts[d, :nact[d]]`` best first
    and the next one to try ``nxt[d]``; the line so far is ``acts[k, nxt[k] - 1]`` for
    ``k < d``. Each child's keys are made from the parent's and the move; the child is
    probed in the closed set (``rec``: open addressing, 128-bit keys, ``(0, 0)`` free) and
    made only if it is searched. Every child probed counts one node.

    A record holds the steps left ``b`` the position was last entered with (or ``INF``)
    and a state: on the stack (at depth ``low``), *provisional* (its search finished but
    skipped a position on the stack, at depth ``low`` in frame ``rec[slot, 3]``: it belongs
    to the piece of that frame) or final. Each frame keeps ``low[d]`` (the least stack
    depth its subtree skipped: Tarjan's lowlink) and ``cut[d]`` (somewhere in its subtree a
    position was not searched for lack of steps, was skipped on a finite entry, or could
    not be stored). A frame that finishes with ``low[d] < d`` is provisional (its record is
    put on the ``piece`` list); one with ``low[d] == d`` is the root of its piece and
    settles the piece's records: ``INF`` if not cut, else final with the steps each was
    entered with.

    A child is skipped when its record is ``INF``; on the stack (``low`` lowered: a
    cycle); final with ``b >=`` the child's steps left (the frame is cut); provisional with
    ``b >=`` the steps left (the frame joins that piece if the frame the record names is
    still on the stack, else is cut). Otherwise it is searched (again).

    Why ``LOST`` (the stack emptied) means no line wins within the limit: the finite
    records mean what solver version 2's meant and its argument holds for them (a record
    of ``b`` is written only by a search with ``b`` steps left that finished, a skip
    needs a record of at least the steps left, and a skip of a position on the stack is
    covered because that search finishes before the answer). For ``INF``: take, over the
    final table, a lying ``INF`` record whose position has the shortest winning line, of
    ``k`` moves. Its piece's root finished uncut, so in that search every child of every
    position of the piece was searched with steps left (and settled with the piece or
    earlier), or skipped on an ``INF`` record or on a position of the same piece. By the
    safety of rules F, W and E (a line that wins implies one that obeys them) some child
    starts a winning line of ``k - 1`` moves and holds a lying ``INF`` record: a shorter
    one, a contradiction. So the root's record, ``INF`` or the step limit, is true.
    ``docs/solver_design.md`` (24.3.1) gives the argument in full.

    Collisions: two different positions share a 128-bit key with probability about
    ``n**2 / 2**129`` for ``n`` stored positions (below ``1e-23`` for ``2**26``); a
    collision could only turn a win into a wrong ``lost``, never make a ``won`` line wrong
    (lines are replayed).
    """
    limit = ctl[C_LIMIT]
    flags = ctl[C_FLAGS]
    build = ctl[C_BUILD]
    scal = tb[H_SCAL]
    dec = tb[H_DECODE]
    mask = np.uint64(rec.shape[0] - 1)
    cap = (rec.shape[0] * 3) // 4
    zero = np.uint64(0)
    d = ctl[C_DEPTH]
    while True:
        if nxt[d] < nact[d]:
            if ctl[C_NODES] >= node_quota:
                ctl[C_DEPTH] = d
                return RUNNING
            a = acts[d, nxt[d]]
            nxt[d] += 1
            ctl[C_NODES] += 1
            kind = tb[dec + 4 * a]
            st = states[d]
            up = kind in (WASTE_TO_FOUNDATION, COLUMN_TO_FOUNDATION)
            if up and st[scal + S_FCARDS] == 103:  # the child is won
                states[d + 1, :] = st
                _apply(states[d + 1], tb, a)
                ctl[C_DEPTH] = d + 1
                ctl[C_STATUS] = WON
                return WON
            left = limit - d - 1
            if left <= 0:  # the limit bites: no entry may say "at all" above it
                cut[d] = 1
                continue
            made = kind == REDEAL
            if made:
                states[d + 1, :] = st
                _apply(states[d + 1], tb, a)
                _full_keys(states[d + 1], tb, zc, zd, zs, zw, zf, zr, raw[d + 1], keys[d + 1])
                k1 = keys[d + 1, 0]
                k2 = keys[d + 1, 1]
            else:
                _child_keys(st, tb, a, zc, zd, zs, zw, zf, raw[d], keys[d], kbuf)
                k1 = kbuf[0]
                k2 = kbuf[1]
            if k1 == zero and k2 == zero:
                k2 = np.uint64(1)
            slot = np.int64(k1 & mask)
            child_slot = -1
            skip = False
            while True:
                if rec[slot, 0] == k1 and rec[slot, 1] == k2:
                    meta = rec[slot, 2]
                    bound = _bound(meta)
                    state = _state(meta)
                    if bound == INF:
                        skip = True
                    elif state == ON_STACK:  # an ancestor: a cycle
                        skip = True
                        x = _low(meta)
                        if x < low[d]:
                            low[d] = x
                    elif bound >= left:
                        skip = True
                        x = _low(meta)
                        if state == PROVISIONAL and x <= d and fid[x] == np.int64(rec[slot, 3]):
                            if x < low[d]:
                                low[d] = x
                        else:
                            cut[d] = 1
                    else:  # searched with fewer steps left: again, with more
                        ctl[C_RESEARCH] += 1
                        rec[slot, 2] = _meta(left, ON_STACK, d + 1)
                        child_slot = slot
                    break
                if rec[slot, 0] == zero and rec[slot, 1] == zero:
                    if ctl[C_USED] < cap:
                        rec[slot, 0] = k1
                        rec[slot, 1] = k2
                        rec[slot, 2] = _meta(left, ON_STACK, d + 1)
                        ctl[C_USED] += 1
                        child_slot = slot
                    else:
                        ctl[C_DROPPED] += 1
                    break
                slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
            if skip:
                continue
            e = d + 1
            if not made:
                states[e, :] = st
                _apply(states[e], tb, a)
                raw[e] = raw[d]
                if kind == COLUMN_TO_COLUMN or kind == COLUMN_TO_FOUNDATION:  # noqa: SIM109
                    src = tb[dec + 4 * a + 1]
                    raw[e, src, 0] = kbuf[2]
                    raw[e, src, 1] = kbuf[3]
                if kind == COLUMN_TO_COLUMN or kind == WASTE_TO_COLUMN:  # noqa: SIM109
                    dst = tb[dec + 4 * a + 2]
                    raw[e, dst, 0] = kbuf[4]
                    raw[e, dst, 1] = kbuf[5]
                keys[e, 0] = kbuf[0]
                keys[e, 1] = kbuf[1]
            d = e
            if d > ctl[C_MAXDEPTH]:
                ctl[C_MAXDEPTH] = d
            low[d] = d
            cut[d] = 1 if child_slot < 0 else 0
            slotof[d] = child_slot
            pbase[d] = ctl[C_PIECE]
            ctl[C_FRAMES] += 1
            fid[d] = ctl[C_FRAMES]
            nact[d] = _children(states[d], tb, flags, build, legal, acts[d], scores)
            nxt[d] = 0
        else:  # frame d is finished
            sl = slotof[d]
            if low[d] < d:  # it depends on an ancestor still searching: provisional
                if sl >= 0:
                    n = ctl[C_PIECE]
                    if n >= piece.shape[0]:
                        ctl[C_DEPTH] = d
                        return GROW
                    rec[sl, 2] = _meta(_bound(rec[sl, 2]), PROVISIONAL, low[d])
                    rec[sl, 3] = np.uint64(fid[low[d]])
                    piece[n] = sl
                    ctl[C_PIECE] = n + 1
            else:  # the root of its piece: settle every entry of the piece
                inf = cut[d] == 0
                if sl >= 0:
                    b = INF if inf else _bound(rec[sl, 2])
                    rec[sl, 2] = _meta(b, FINAL, 0)
                for q in range(pbase[d], ctl[C_PIECE]):
                    s2 = piece[q]
                    b = INF if inf else _bound(rec[s2, 2])
                    rec[s2, 2] = _meta(b, FINAL, 0)
                if inf:
                    ctl[C_INF] += 1 + ctl[C_PIECE] - pbase[d]
                ctl[C_PIECE] = pbase[d]
            if d == 0:
                ctl[C_DEPTH] = 0
                ctl[C_ROOT_INF] = 1 if cut[0] == 0 else 0
                ctl[C_STATUS] = LOST
                return LOST
            if cut[d] == 1:
                cut[d - 1] = 1
            if low[d] < low[d - 1]:
                low[d - 1] = low[d]
            d -= 1


# ---------------------------------------------------------------------- the rollout pass
# nst: the rollout pass's resumable state (int64)
N_DEPTH, N_OFF, N_BEST_LEN, N_BEST_SCORE, N_STATUS, N_NODES, N_STAMP = range(7)
N_NST = 7
DONE = 2
"""``_nested``'s answer when the pass ended without a win (no proof of anything)."""
_SEEN_BITS = 12  # 4096 slots: more than twice the longest line (1500 moves)


@kernel(inline="always")
def _seen(keys: np.ndarray, stamps: np.ndarray, stamp: int, h: np.uint64) -> bool:
    """Is ``h`` in the table under ``stamp`` (a slot with another stamp counts as free)?"""
    mask = np.uint64(keys.shape[0] - 1)
    slot = h & mask
    while stamps[slot] == stamp:
        if keys[slot] == h:
            return True
        slot = (slot + np.uint64(1)) & mask
    return False


@kernel(inline="always")
def _remember(keys: np.ndarray, stamps: np.ndarray, stamp: int, h: np.uint64) -> None:
    mask = np.uint64(keys.shape[0] - 1)
    slot = h & mask
    while stamps[slot] == stamp:
        if keys[slot] == h:
            return
        slot = (slot + np.uint64(1)) & mask
    keys[slot] = h
    stamps[slot] = stamp


@kernel
def _rollout(
    nst: np.ndarray,
    st: np.ndarray,
    tb: np.ndarray,
    steps: int,
    flags: int,
    build: int,
    legal: np.ndarray,
    kids: np.ndarray,
    scores: np.ndarray,
    tmp: np.ndarray,
    main_keys: np.ndarray,
    main_stamps: np.ndarray,
    keys: np.ndarray,
    stamps: np.ndarray,
    stamp: int,
    buf: np.ndarray,
    hard: int,
) -> int:
    """A greedy rollout from ``st`` (changed in place): at most ``steps`` moves, each the
    first of :func:`_children`'s order that leads to a position not met before on the main
    line (``main_keys``) or in this rollout (``keys`` under ``stamp``); stops at a win or
    when every child repeats a position. The moves go to ``buf``; returns how many. Each
    position entered counts one node in ``nst[N_NODES]``."""
    scal = tb[H_SCAL]
    _remember(keys, stamps, stamp, canonical_hash(st, tb))
    n = 0
    while n < steps and st[scal + S_FCARDS] < 104 and nst[N_NODES] < hard:
        count = _children(st, tb, flags, build, legal, kids, scores)
        chosen = -1
        for k in range(count):
            tmp[:] = st
            apply(tmp, tb, np.int64(kids[k]))
            nst[N_NODES] += 1
            h = canonical_hash(tmp, tb)
            if _seen(main_keys, main_stamps, 1, h) or _seen(keys, stamps, stamp, h):
                continue
            chosen = k
            _remember(keys, stamps, stamp, h)
            break
        if chosen < 0:
            break
        st[:] = tmp
        buf[n] = kids[chosen]
        n += 1
    return n


@kernel
def _nested(
    nst: np.ndarray,
    tb: np.ndarray,
    cur: np.ndarray,
    limit: int,
    flags: int,
    build: int,
    node_quota: int,
    hard: int,
    line: np.ndarray,
    best: np.ndarray,
    rbuf: np.ndarray,
    tmp: np.ndarray,
    tmp2: np.ndarray,
    legal: np.ndarray,
    main_kids: np.ndarray,
    kids: np.ndarray,
    scores: np.ndarray,
    main_keys: np.ndarray,
    main_stamps: np.ndarray,
    keys: np.ndarray,
    stamps: np.ndarray,
) -> int:
    """The rollout pass (module docstring, pass 1) from ``cur`` (changed in place: the end
    of the line so far, ``line[:nst[N_DEPTH]]``), at most ``limit`` moves.

    Returns ``WON`` (the line wins), ``DONE`` (ended without a win: the line cannot go on,
    or ``hard`` nodes are spent) or ``RUNNING`` (paused at a move boundary once
    ``node_quota`` nodes are spent: call again to go on). The best sequence from the
    current position is ``best[nst[N_OFF]:nst[N_BEST_LEN]]`` with ``nst[N_BEST_SCORE]``
    foundation cards at its end. Deterministic: no random choice, ties keep the first child.
    """
    scal = tb[H_SCAL]
    while True:
        d = nst[N_DEPTH]
        if d == 0 and nst[N_STAMP] == 0:  # the root: entered, remembered
            nst[N_NODES] += 1
            _remember(main_keys, main_stamps, 1, canonical_hash(cur, tb))
            nst[N_STAMP] = 2
            nst[N_BEST_SCORE] = -1
        if cur[scal + S_FCARDS] == 104:
            nst[N_STATUS] = WON
            return WON
        left = limit - d
        if left <= 0:
            nst[N_STATUS] = DONE
            return DONE
        if nst[N_NODES] >= node_quota:
            return RUNNING
        count = _children(cur, tb, flags, build, legal, main_kids, scores)
        off = nst[N_OFF]
        following = nst[N_BEST_LEN] > off
        if not (count == 1 and following and best[off] == main_kids[0]):
            for k in range(count):
                if nst[N_NODES] >= hard:
                    break
                tmp[:] = cur
                apply(tmp, tb, np.int64(main_kids[k]))
                nst[N_NODES] += 1
                h = canonical_hash(tmp, tb)
                if _seen(main_keys, main_stamps, 1, h):
                    continue
                nst[N_STAMP] += 1
                n = _rollout(
                    nst,
                    tmp,
                    tb,
                    left - 1,
                    flags,
                    build,
                    legal,
                    kids,
                    scores,
                    tmp2,
                    main_keys,
                    main_stamps,
                    keys,
                    stamps,
                    nst[N_STAMP],
                    rbuf,
                    hard,
                )
                sc = tmp[scal + S_FCARDS]
                if sc > nst[N_BEST_SCORE] or sc == 104:
                    best[0] = main_kids[k]
                    best[1 : n + 1] = rbuf[:n]
                    nst[N_BEST_LEN] = n + 1
                    nst[N_OFF] = 0
                    nst[N_BEST_SCORE] = sc
                    if sc == 104:
                        break
            off = nst[N_OFF]
            if nst[N_BEST_SCORE] < 104 and nst[N_NODES] >= hard:
                nst[N_STATUS] = DONE
                return DONE
            if nst[N_BEST_LEN] <= off:
                nst[N_STATUS] = DONE
                return DONE
        if nst[N_BEST_SCORE] == 104:
            # the best line wins: play it out
            for k in range(off, nst[N_BEST_LEN]):
                line[nst[N_DEPTH]] = best[k]
                apply(cur, tb, np.int64(best[k]))
                nst[N_DEPTH] += 1
            nst[N_OFF] = nst[N_BEST_LEN]
            nst[N_STATUS] = WON
            return WON
        a = best[off]
        nst[N_OFF] = off + 1
        apply(cur, tb, np.int64(a))
        nst[N_NODES] += 1
        _remember(main_keys, main_stamps, 1, canonical_hash(cur, tb))
        line[d] = a
        nst[N_DEPTH] = d + 1


# ---------------------------------------------------------------------- public API
def _resolve(
    position_or_state: Mapping[str, Any] | GameState, variant: str | VariantSpec | None
) -> tuple[VariantSpec, GameState]:
    """The variant and a checked, independent :class:`GameState` of the input."""
    if isinstance(position_or_state, GameState):
        if variant is None:
            raise ValueError("solve: a GameState needs variant= (an id or a VariantSpec)")
        spec = get_variant(variant)
        rules = rules_for(spec)
        try:
            position = rules.to_position(position_or_state)
        except (TypeError, IndexError) as err:
            raise InvalidPositionError(f"solve: not a {spec.id} GameState: {err}") from None
        return spec, rules.from_position(position)
    if isinstance(position_or_state, Mapping):
        if variant is None:
            name = position_or_state.get("variant")
            if not isinstance(name, str):
                raise InvalidPositionError(
                    f"solve: the position has no variant id (got {name!r}); pass variant="
                )
            spec = get_variant(name)
        else:
            spec = get_variant(variant)
        return spec, rules_for(spec).from_position(position_or_state)
    raise TypeError(
        "solve: expected a rule-book position (a dict) or a GameState, got "
        f"{type(position_or_state).__name__}"
    )


def _rollout_pass(
    tb: np.ndarray,
    root: np.ndarray,
    depth: int,
    step_limit: int,
    flags: int,
    build: int,
    quota: int,
    legal: np.ndarray,
    scores: np.ndarray,
    out_of_time: Callable[[], str],
) -> tuple[int, int, list[int], str]:
    """:func:`solve`'s first pass, nested greedy rollouts from ``root`` for at most
    ``quota`` nodes (checking ``out_of_time`` between chunks): ``(status, nodes used,
    winning actions, stopped_by)``, status ``WON`` or ``RUNNING`` (nothing proved)."""
    stopped_by = ""
    cur = root.copy()
    nst = np.zeros(N_NST, dtype=np.int64)
    line = np.zeros(depth, dtype=np.int32)
    best = np.zeros(depth, dtype=np.int32)
    rbuf = np.zeros(depth, dtype=np.int32)
    tmp, tmp2 = cur.copy(), cur.copy()
    main_kids = np.zeros(legal.size, dtype=np.int32)
    kids = np.zeros(legal.size, dtype=np.int32)
    seen = (
        np.zeros(1 << _SEEN_BITS, dtype=np.uint64),
        np.zeros(1 << _SEEN_BITS, dtype=np.int64),
        np.zeros(1 << _SEEN_BITS, dtype=np.uint64),
        np.zeros(1 << _SEEN_BITS, dtype=np.int64),
    )
    while True:
        chunk = min(quota, int(nst[N_NODES]) + _CHUNK)
        status = _nested(
            nst, tb, cur, step_limit, flags, build, chunk, quota, line, best, rbuf,
            tmp, tmp2, legal, main_kids, kids, scores, *seen,
        )  # fmt: skip
        if status != RUNNING or nst[N_NODES] >= quota:
            break
        stopped_by = out_of_time()
        if stopped_by:
            break
    if status != WON:
        return RUNNING, int(nst[N_NODES]), [], stopped_by
    return WON, int(nst[N_NODES]), [int(a) for a in line[: int(nst[N_DEPTH])]], stopped_by


def _beam_pass(
    tables: Any,
    root: np.ndarray,
    step_limit: int,
    flags: int,
    build: int,
    nodes_before: int,
    quota: int,
    nodes: int,
    out_of_time: Callable[[], str],
) -> tuple[int, int, list[int], str]:
    """:func:`solve`'s second pass, the beam search of :mod:`.beam` from ``root`` until
    ``quota`` nodes have been spent in all (checking ``out_of_time`` between chunks; it may
    pass ``quota`` by less than one position's children, never ``nodes``, the whole
    budget): ``(status, nodes used in all, winning actions, stopped_by)``, status ``WON`` or
    ``RUNNING`` (nothing proved)."""
    if nodes_before >= quota:
        return RUNNING, nodes_before, [], ""
    search = Beam(tables, root, step_limit, flags, build, nodes_before)
    while True:
        status = search.run(min(quota, (search.nodes // _CHUNK + 1) * _CHUNK), quota, nodes)
        if status == BEAM_WON:
            return WON, search.nodes, search.line(), ""
        if status == BEAM_DONE or search.nodes >= quota:
            return RUNNING, search.nodes, [], ""
        stopped_by = out_of_time()
        if stopped_by:
            return RUNNING, search.nodes, [], stopped_by


def _win_finding(
    tables: Any,
    root: np.ndarray,
    step_limit: int,
    flags: int,
    build: int,
    nodes: int,
    beam: bool,
    legal: np.ndarray,
    scores: np.ndarray,
    out_of_time: Callable[[], str],
) -> tuple[int, int, list[int], str, str]:
    """:func:`solve`'s passes 1 and 2 (rollouts, at most 1/8 of ``nodes``, half without the
    beam; then the beam, up to 5/8 in all): ``(status, nodes used, winning actions,
    stopped_by, found_by)``, status ``WON`` or ``RUNNING`` (nothing proved)."""
    share = nodes // 8 if beam else nodes // 2
    status, used, actions, stopped_by = _rollout_pass(
        tables.table, root, step_limit + 1, step_limit, flags, build, max(1, share), legal,
        scores, out_of_time,
    )  # fmt: skip
    if status == WON:
        return status, used, actions, stopped_by, "rollouts"
    if beam and not stopped_by and used < nodes:
        status, used, actions, stopped_by = _beam_pass(
            tables, root, step_limit, flags, build, used, max(1, nodes * 5 // 8), nodes,
            out_of_time,
        )  # fmt: skip
        if status == WON:
            return status, used, actions, stopped_by, "beam"
    return status, used, actions, stopped_by, ""


def _search_pass(search: _Search, nodes: int, out_of_time: Callable[[], str]) -> tuple[int, str]:
    """:func:`solve`'s second pass: ``search`` run in chunks of :data:`_CHUNK` nodes until
    it ends, reaches ``nodes`` or ``out_of_time`` says stop: ``(status, stopped_by)``."""
    while True:
        status = search.run(min(nodes, (search.nodes // _CHUNK + 1) * _CHUNK))
        if status != RUNNING:
            return status, ""
        if search.nodes >= nodes:
            return status, "nodes"
        stopped_by = out_of_time()
        if stopped_by:
            return status, stopped_by


def solve(
    position_or_state: Mapping[str, Any] | GameState,
    variant: str | VariantSpec | None = None,
    *,
    nodes: int = 1_000_000,
    seconds: float | None = None,
    step_limit: int | None = None,
    rules: tuple[str, ...] | list[str] = RULES,
    should_stop: Callable[[], bool] | None = None,
    rollouts: bool = True,
    beam: bool = True,
) -> SolveResult:
    """Search for a winning line from a position, **seeing every card** (clairvoyant:
    face-down cards and the stock's order are read; see the module docstring).

    Args:
        position_or_state: a rule-book position (dict, checked by
            :func:`~fortythieves_env.positions.from_position`) or a :class:`GameState`
            (checked the same way; not changed).
        variant: an id or a :class:`VariantSpec`; default the position's ``"variant"``.
            Required with a :class:`GameState`.
        nodes: the node budget (positions entered), the deterministic measure of work;
            equal inputs give equal results up to this budget. An integer (NumPy integers
            too) from 1 to :data:`MAX_NODES` (``2**63 - 1``).
        seconds: an optional wall-clock cap (checked every 65536 nodes): a result cut by
            it is ``unknown`` with ``stopped_by="seconds"`` and depends on the machine.
        step_limit: the most moves a winning line may have, every move counted (the
            episode's remaining steps); default the variant's ``max_episode_steps``
            (1000; 1500 for Little Forty). ``lost`` means no line within this many moves
            wins. An integer (NumPy integers too) from 0 to :data:`MAX_STEP_LIMIT`
            (100_000): the search holds a stack entry per step.
        rules: which pruning rules to use (a subset of :data:`RULES`: ``"F"``, ``"W"``,
            ``"E"``); fewer rules give the same verdicts, more slowly (for tests).
        should_stop: called between chunks of nodes; returning True stops the search
            (``unknown``, ``stopped_by="stop"``).
        rollouts: run the win-finding passes first (the rollout pass, then the beam
            search: module docstring); False: the depth-first search only (for tests; the
            verdicts ``won``/``lost`` never differ where both finish, only how soon a win
            is found).
        beam: with ``rollouts``, run the beam search (:mod:`.beam`) between the rollout
            pass and the depth-first search (version 4); False: version 3's two passes,
            with the rollout pass's share of the budget as then (half), which
            :class:`SolverContext` runs.
    Returns:
        A :class:`SolveResult`.

    Raises:
        InvalidPositionError: the position is not a reachable position of the variant.
        ValueError: unknown variant; a GameState without ``variant``; ``nodes`` not an
            integer in ``1..MAX_NODES``; ``seconds`` not positive; ``step_limit`` not an
            integer in ``0..MAX_STEP_LIMIT``; an unknown rule name.
        TypeError: the input is neither a position nor a :class:`GameState`.
    """
    nodes = checked_int("solve: nodes", nodes, 1, MAX_NODES)
    if seconds is not None and (
        isinstance(seconds, bool) or not isinstance(seconds, int | float) or not seconds > 0
    ):
        raise ValueError(f"solve: seconds must be a positive number or None, got {seconds!r}")
    used, flags = rule_flags(rules, "solve")
    spec, state = _resolve(position_or_state, variant)
    if step_limit is None:
        step_limit = spec.max_episode_steps
    step_limit = checked_int("solve: step_limit", step_limit, 0, MAX_STEP_LIMIT)

    start = time.perf_counter()
    tables = tables_for(spec)
    tb = tables.table
    n_act = int(tb[H_NACT])
    root = tables.pack(state)
    legal = np.zeros(n_act, dtype=np.int32)
    scores = np.zeros(n_act, dtype=np.int32)
    build = _BUILD_CODE[spec.build]
    stopped_by = found_by = ""

    def out_of_time() -> str:
        if seconds is not None and time.perf_counter() - start >= seconds:
            return "seconds"
        if should_stop is not None and should_stop():
            return "stop"
        return ""

    status = RUNNING
    used_nodes = 0
    actions: list[int] = []
    search: _Search | None = None
    if state.foundation_cards == 104:
        status, used_nodes = WON, 1
    elif step_limit == 0:
        status, used_nodes = LOST, 1  # not won, and no move may be made
    if status == RUNNING and rollouts:  # passes 1 and 2: rollouts, then the beam
        status, used_nodes, actions, stopped_by, found_by = _win_finding(
            tables, root, step_limit, flags, build, nodes, beam, legal, scores, out_of_time
        )
    if status == RUNNING and not stopped_by and used_nodes >= nodes:
        stopped_by = "nodes"  # the first passes spent it all (nodes=1): none for the search
    if status == RUNNING and not stopped_by:  # pass 3: the search, the rest of the budget
        search = _Search(tables, root, step_limit, flags, build, nodes, used_nodes)
        status, stopped_by = _search_pass(search, nodes, out_of_time)
        used_nodes = search.nodes
        if status == WON:
            found_by = "search"
            actions = search.line()

    return _result(
        status, actions, search, state, spec, step_limit, used_nodes,
        time.perf_counter() - start, used, stopped_by, found_by,
    )  # fmt: skip


def _result(
    status: int,
    actions: list[int],
    search: _Search | None,
    state: GameState,
    spec: VariantSpec,
    step_limit: int,
    nodes: int,
    seconds: float,
    rules: tuple[str, ...],
    stopped_by: str,
    found_by: str,
) -> SolveResult:
    """:func:`solve`'s :class:`SolveResult` from its passes' outcome (``status`` ``WON``,
    ``LOST`` or still ``RUNNING``: unknown); a won line is replayed by the rules first."""
    moves: tuple[str, ...] = ()
    verdict: Status = "unknown"
    if status == WON:
        verdict = "won"
        codec = rules_for(spec).codec
        moves = tuple(codec.to_move(a) for a in actions)
        _check_line(spec, state, moves, step_limit)
    elif status == LOST:
        verdict = "lost"
    return SolveResult(
        status=verdict,
        moves=moves,
        nodes=nodes,
        seconds=seconds,
        variant=spec.id,
        step_limit=step_limit,
        rules=rules,
        stopped_by=stopped_by,
        found_by=found_by,
        proof=_proof(search, state, spec) if status == LOST else None,
    )


def _proof(search: _Search | None, state: GameState, spec: VariantSpec) -> dict[str, int | bool]:
    """:attr:`SolveResult.proof` of a ``lost`` verdict: the search's, or for a step limit of
    0 (no search: not won and no move may be made) the empty proof, whose ``no_win_at_all``
    says whether the position has no legal move either."""
    if search is not None:
        return search.proof()
    stuck = not rules_for(spec).legal_actions(state)
    return {
        "positions": 0,
        "re_searched": 0,
        "not_stored": 0,
        "deepest": 0,
        "no_win_at_all": stuck,
    }


class _Search:
    """The arrays of one run of :func:`_search` (pass 2), resumable chunk by chunk."""

    def __init__(
        self,
        tables: Any,
        root: np.ndarray,
        limit: int,
        flags: int,
        build: int,
        nodes: int,
        nodes_before: int,
    ) -> None:
        tb = tables.table
        n_act, c = int(tb[H_NACT]), int(tb[H_C])
        depth = limit + 1
        self.tb = tb
        self.ctl = np.zeros(N_CTL, dtype=np.int64)
        self.ctl[C_LIMIT], self.ctl[C_FLAGS], self.ctl[C_BUILD] = limit, flags, build
        self.states = np.zeros((depth + 1, tables.state_size), dtype=np.int16)
        self.states[0] = root
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
        bits = min(MAX_TABLE_BITS, max(10, int(nodes).bit_length()))
        self.rec = np.zeros((1 << bits, 4), dtype=np.uint64)
        self.piece = np.zeros(1 << 12, dtype=np.int64)
        self.legal = np.zeros(n_act, dtype=np.int32)
        self.scores = np.zeros(n_act, dtype=np.int32)
        self.kbuf = np.zeros(6, dtype=np.uint64)
        self.z = key_tables_for(tables)
        _enter_root(
            self.ctl, tb, self.states, self.acts, self.nact, self.nxt, self.low, self.cut,
            self.slotof, self.pbase, self.fid, self.raw, self.keys, self.rec, self.legal,
            self.scores, *self.z,
        )  # fmt: skip
        self.ctl[C_NODES] += nodes_before

    @property
    def nodes(self) -> int:
        return int(self.ctl[C_NODES])

    def run(self, quota: int) -> int:
        while True:
            status = _search(
                self.ctl, self.tb, self.states, self.acts, self.nact, self.nxt, self.low,
                self.cut, self.slotof, self.pbase, self.fid, self.raw, self.keys, self.rec,
                self.piece, self.legal, self.scores, self.kbuf, *self.z, quota,
            )  # fmt: skip
            if status != GROW:
                return int(status)
            self.piece = np.concatenate([self.piece, np.zeros_like(self.piece)])

    def line(self) -> list[int]:
        return [int(self.acts[k, self.nxt[k] - 1]) for k in range(int(self.ctl[C_DEPTH]))]

    def proof(self) -> dict[str, int | bool]:
        """What a ``lost`` verdict's search needed (see :attr:`SolveResult.proof`)."""
        return {
            "positions": int(self.ctl[C_USED]),
            "re_searched": int(self.ctl[C_RESEARCH]),
            "not_stored": int(self.ctl[C_DROPPED]),
            "deepest": int(self.ctl[C_MAXDEPTH]),
            "no_win_at_all": bool(self.ctl[C_ROOT_INF]),
        }


def _check_line(spec: VariantSpec, state: GameState, moves: tuple[str, ...], limit: int) -> None:
    """Replay a line found by the search with the rules engine; it must win within the
    limit (a failure is a bug in the solver, never the caller's fault)."""
    rules = rules_for(spec)
    replay = state.copy()
    for move in moves:
        rules.play(replay, move)
    if not rules.is_won(replay) or len(moves) > limit:
        raise RuntimeError(
            f"solver bug: the line found ({len(moves)} moves) does not win within {limit} moves"
        )


# ---------------------------------------------------------------------- many small solves
@dataclass(frozen=True)
class ArraySolve:
    """What :meth:`SolverContext.run` found (the fields :func:`solve` would report).

    Attributes:
        status: ``"won"``, ``"lost"`` or ``"unknown"`` (the node cap ran out), as
            :attr:`SolveResult.status`.
        nodes: positions entered (equal to :func:`solve`'s count for the same input).
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

    :func:`solve` allocates its stack (``step_limit x n_actions`` ``int32`` children, some
    5 MB in the variants with 1193 actions), its closed set and the rollout pass's tables
    at every call, and checks, packs and replays the position in Python. A caller that
    solves hundreds of sampled positions per move (the search agent,
    :mod:`fortythieves_agents.players.search`)
    builds one context and calls :meth:`run` on packed state arrays. :meth:`run` runs the
    same compiled passes with the same node counting, on arrays of the same sizes (the
    closed set is the first ``2**bits`` records of a kept array, ``bits`` as in
    :func:`solve`, zeroed before each search; the rollout pass's tables zeroed before each
    pass; every other array is written before it is read), so its status, node count and
    line equal :func:`solve`'s for the same position, node budget, step limit and rules
    (``tests/env/test_solver_context.py``). What it skips: the position's checks (a state
    array must come from a position of the variant, e.g. :meth:`FastTables.pack` or a
    sample of :func:`~fortythieves_env.view.determinize`), the seconds cap and the replay
    of a won line (:func:`solve` replays every line; a context's lines come from the same
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
        self.z = key_tables_for(self.tables)

    def run(self, st: np.ndarray, nodes: int, step_limit: int | None = None) -> ArraySolve:
        """Solve the position of state array ``st`` as :func:`solve` would (both passes,
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
        bits = min(MAX_TABLE_BITS, max(10, int(nodes).bit_length()))
        if self.rec.shape[0] < 1 << bits:
            self.rec = np.zeros((1 << bits, 4), dtype=np.uint64)
        rec = self.rec[: 1 << bits]
        rec.fill(0)
        s = object.__new__(_Search)
        s.tb = self.tb
        s.ctl = self.ctl
        s.ctl[:] = 0
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
        s.z = self.z
        _enter_root(
            s.ctl, s.tb, s.states, s.acts, s.nact, s.nxt, s.low, s.cut, s.slotof, s.pbase,
            s.fid, s.raw, s.keys, s.rec, s.legal, s.scores, *s.z,
        )  # fmt: skip
        s.ctl[C_NODES] += nodes_before
        return s
