"""Prototype: beam search win finder (not committed)."""

from __future__ import annotations

import numpy as np
from numba import njit

from fortythieves_env.rules.core import (
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
    tables_for,
)
from fortythieves_env.solver.pruning import _children, build_code


@njit(cache=True)
def evaluate(st, tb, w):
    c = tb[H_C]
    v = tb[H_V]
    len0 = tb[H_LEN]
    fd0 = tb[H_FD]
    acc = tb[H_ACCEPTS]
    scal = tb[H_SCAL]
    f = st[scal + S_FCARDS]
    down = 0
    empty = 0
    breaks = 0
    blocked = 0
    for i in range(c):
        n = st[len0 + i]
        fd = st[fd0 + i]
        down += fd
        if n == 0:
            empty += 1
            continue
        m0 = 99
        m1 = 99
        m2 = 99
        m3 = 99
        for j in range(n):
            card = st[i * v + j]
            s = (card - 1) // 13
            r = (card - 1) % 13 + 1
            if j > 0 and j >= fd and tb[acc + st[i * v + j - 1] * 53 + card] == 0:
                breaks += 1
            mn = m0
            if s == 1:
                mn = m1
            elif s == 2:
                mn = m2
            elif s == 3:
                mn = m3
            if mn < r:
                blocked += 1
            if s == 0:
                m0 = min(m0, r)
            elif s == 1:
                m1 = min(m1, r)
            elif s == 2:
                m2 = min(m2, r)
            else:
                m3 = min(m3, r)
    nw = st[scal + S_NWASTE]
    return (
        w[0] * f - w[1] * down + w[2] * min(empty, 4) - w[3] * breaks - w[4] * blocked - w[5] * nw
    )


@njit(cache=True)
def _seen_insert(tab, h):
    mask = np.uint64(tab.shape[0] - 1)
    slot = h & mask
    while tab[slot] != 0:
        if tab[slot] == h:
            return False
        slot = (slot + np.uint64(1)) & mask
    tab[slot] = h
    return True


@njit(cache=True)
def beam(root, tb, flags, build, width, limit, nodes_cap, w, seen, par, act):
    """Returns (won depth or -1, nodes, index of won entry)."""
    n_act = tb[H_NACT]
    ss = root.shape[0]
    cur = np.empty((width, ss), dtype=np.int16)
    nxt = np.empty((width, ss), dtype=np.int16)
    cur[0] = root
    ncur = 1
    legal = np.empty(n_act, dtype=np.int32)
    kids = np.empty(n_act, dtype=np.int32)
    scores = np.empty(n_act, dtype=np.int32)
    cap = width * 64
    c_par = np.empty(cap, dtype=np.int32)
    c_act = np.empty(cap, dtype=np.int32)
    c_sc = np.empty(cap, dtype=np.int64)
    c_h = np.empty(cap, dtype=np.uint64)
    tmp = root.copy()
    nodes = 1
    scal = tb[H_SCAL]
    _seen_insert(seen, canonical_hash(root, tb) | np.uint64(1))
    for d in range(limit):
        m = 0
        for i in range(ncur):
            k = _children(cur[i], tb, flags, build, legal, kids, scores)
            for q in range(k):
                tmp[:] = cur[i]
                apply(tmp, tb, np.int64(kids[q]))
                nodes += 1
                if tmp[scal + S_FCARDS] == 104:
                    par[d, 0] = i
                    act[d, 0] = kids[q]
                    return d, nodes, 0
                if m >= cap:
                    continue
                c_par[m] = i
                c_act[m] = kids[q]
                c_sc[m] = evaluate(tmp, tb, w) * 4096 - (q if q < 4095 else 4095)
                c_h[m] = canonical_hash(tmp, tb) | np.uint64(1)
                m += 1
            if nodes >= nodes_cap:
                return -1, nodes, -1
        if m == 0:
            return -1, nodes, -1
        order = np.argsort(-c_sc[:m], kind="mergesort")
        nn = 0
        for t in range(m):
            j = order[t]
            if not _seen_insert(seen, c_h[j]):
                continue
            nxt[nn] = cur[c_par[j]]
            apply(nxt[nn], tb, np.int64(c_act[j]))
            par[d, nn] = c_par[j]
            act[d, nn] = c_act[j]
            nn += 1
            if nn == width:
                break
        if nn == 0:
            return -1, nodes, -1
        cur, nxt = nxt, cur
        ncur = nn
    return -1, nodes, -1


def run_beam(spec, state, width, nodes_cap, w, limit=1000):
    tables = tables_for(spec)
    tb = tables.table
    root = tables.pack(state)
    bits = max(16, int(np.ceil(np.log2(max(4 * nodes_cap, 1)))))
    bits = min(bits, 27)
    seen = np.zeros(1 << bits, dtype=np.uint64)
    par = np.zeros((limit, width), dtype=np.int32)
    act = np.zeros((limit, width), dtype=np.int32)
    d, nodes, idx = beam(
        root,
        tb,
        7,
        build_code(spec),
        width,
        limit,
        nodes_cap,
        np.asarray(w, dtype=np.int64),
        seen,
        par,
        act,
    )
    if d < 0:
        return None, nodes
    line = []
    i = idx
    for t in range(d, -1, -1):
        line.append(int(act[t, i]))
        i = int(par[t, i])
    return line[::-1], nodes


def iterated(spec, state, nodes_cap, w, start=1):
    used = 0
    width = start
    while used < nodes_cap:
        line, n = run_beam(spec, state, width, nodes_cap - used, w)
        used += n
        if line is not None:
            return line, used, width
        width *= 2
    return None, used, width
