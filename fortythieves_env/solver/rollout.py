"""The solver's rollout pass (pass 1 of :func:`.solve`): one-level
nested greedy rollouts that see every card (:func:`_nested`, :func:`_rollout`, on the arrays
of a :class:`~.workspace.RolloutWorkspace`), and :func:`_rollout_pass`, which runs them in
chunks of nodes. It finds wins; it never proves ``lost``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..rules.cards import N_CARDS
from ..rules.core import (
    H_SCAL,
    S_FCARDS,
    apply,
    canonical_hash,
)
from ..rules.jit import kernel
from .pruning import (
    _children,
)
from .search import _CHUNK, RUNNING, WON
from .workspace import N_NST, RolloutWorkspace

# ---------------------------------------------------------------------- the rollout pass
# nst: the rollout pass's resumable state (int64, RolloutWorkspace.nst)
N_DEPTH, N_OFF, N_BEST_LEN, N_BEST_SCORE, N_STATUS, N_NODES, N_STAMP = range(N_NST)
DONE = 2
"""``_nested``'s answer when the pass ended without a win (no proof of anything)."""


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
    ws: RolloutWorkspace, steps: int, flags: int, build: int, stamp: int, hard: int
) -> int:
    """A greedy rollout from ``ws.tmp`` (changed in place): at most ``steps`` moves, each
    the first of :func:`.pruning._children`'s order that leads to a position not met before
    on the main line (``ws.main_keys``) or in this rollout (``ws.keys`` under ``stamp``);
    stops at a win or when every child repeats a position. The moves go to ``ws.rbuf``;
    returns how many. Each position entered counts one node in ``ws.nst[N_NODES]``."""
    nst, tb, st, tmp, buf = ws.nst, ws.tb, ws.tmp, ws.tmp2, ws.rbuf
    legal, kids, scores = ws.legal, ws.kids, ws.scores
    main_keys, main_stamps, keys, stamps = ws.main_keys, ws.main_stamps, ws.keys, ws.stamps
    scal = tb[H_SCAL]
    _remember(keys, stamps, stamp, canonical_hash(st, tb))
    n = 0
    while n < steps and st[scal + S_FCARDS] < N_CARDS and nst[N_NODES] < hard:
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
    ws: RolloutWorkspace, limit: int, flags: int, build: int, node_quota: int, hard: int
) -> int:
    """The rollout pass (module docstring, pass 1) on the arrays of ``ws`` (a
    :class:`~.workspace.RolloutWorkspace`, below by their field names) from ``cur``
    (changed in place: the end of the line so far, ``line[:nst[N_DEPTH]]``), at most
    ``limit`` moves.

    Returns ``WON`` (the line wins), ``DONE`` (ended without a win: the line cannot go on,
    or ``hard`` nodes are spent) or ``RUNNING`` (paused at a move boundary once
    ``node_quota`` nodes are spent: call again to go on). The best sequence from the
    current position is ``best[nst[N_OFF]:nst[N_BEST_LEN]]`` with ``nst[N_BEST_SCORE]``
    foundation cards at its end. Deterministic: no random choice, ties keep the first child.
    """
    nst, tb, cur, line, best, rbuf = ws.nst, ws.tb, ws.cur, ws.line, ws.best, ws.rbuf
    tmp, legal, main_kids, scores = ws.tmp, ws.legal, ws.main_kids, ws.scores
    main_keys, main_stamps = ws.main_keys, ws.main_stamps
    scal = tb[H_SCAL]
    while True:
        d = nst[N_DEPTH]
        if d == 0 and nst[N_STAMP] == 0:  # the root: entered, remembered
            nst[N_NODES] += 1
            _remember(main_keys, main_stamps, 1, canonical_hash(cur, tb))
            nst[N_STAMP] = 2
            nst[N_BEST_SCORE] = -1
        if cur[scal + S_FCARDS] == N_CARDS:
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
                n = _rollout(ws, left - 1, flags, build, nst[N_STAMP], hard)
                sc = tmp[scal + S_FCARDS]
                if sc > nst[N_BEST_SCORE] or sc == N_CARDS:
                    best[0] = main_kids[k]
                    best[1 : n + 1] = rbuf[:n]
                    nst[N_BEST_LEN] = n + 1
                    nst[N_OFF] = 0
                    nst[N_BEST_SCORE] = sc
                    if sc == N_CARDS:
                        break
            off = nst[N_OFF]
            if nst[N_BEST_SCORE] < N_CARDS and nst[N_NODES] >= hard:
                nst[N_STATUS] = DONE
                return DONE
            if nst[N_BEST_LEN] <= off:
                nst[N_STATUS] = DONE
                return DONE
        if nst[N_BEST_SCORE] == N_CARDS:
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


def _rollout_pass(
    ws: RolloutWorkspace,
    root: np.ndarray,
    step_limit: int,
    flags: int,
    build: int,
    quota: int,
    out_of_time: Callable[[], str],
) -> tuple[int, int, list[int], str]:
    """:func:`.solve`'s first pass, nested greedy rollouts from ``root`` for at most
    ``quota`` nodes (checking ``out_of_time`` between chunks), on the workspace ``ws`` (for
    a step limit of at least ``step_limit``; reset here: ``nst`` and the position tables
    zeroed, ``root`` copied to ``cur``, ``tmp`` and ``tmp2``; every other array is written
    before it is read): ``(status, nodes used, winning actions, stopped_by)``, status
    ``WON`` or ``RUNNING`` (nothing proved). ``ws.nst[N_BEST_SCORE]`` is then the best
    line's foundation cards."""
    stopped_by = ""
    nst = ws.nst
    nst.fill(0)
    ws.cur[:] = root
    ws.tmp[:] = root
    ws.tmp2[:] = root
    for table in (ws.main_keys, ws.main_stamps, ws.keys, ws.stamps):
        table.fill(0)
    while True:
        chunk = min(quota, int(nst[N_NODES]) + _CHUNK)
        status = _nested(ws, step_limit, flags, build, chunk, quota)
        if status != RUNNING or nst[N_NODES] >= quota:
            break
        stopped_by = out_of_time()
        if stopped_by:
            break
    if status != WON:
        return RUNNING, int(nst[N_NODES]), [], stopped_by
    return WON, int(nst[N_NODES]), [int(a) for a in ws.line[: int(nst[N_DEPTH])]], stopped_by
