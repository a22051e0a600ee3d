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

Two passes (compiled with numba, on the packed state arrays of :mod:`._fast`), one node
budget: every position entered counts one node, in both passes.

1. **Rollouts** (:func:`_nested`, at most half the budget): a one-level nested greedy
   rollout search that sees every card. From the current position of its line it tries
   every child (:func:`_children`, same rules and order), plays a greedy rollout from each
   (:func:`_rollout`: always the first child that repeats no position of the line or of
   the rollout) and keeps the best sequence so far (most foundation cards at its end; the
   first on ties); it then plays the first move of that sequence and goes on (the best
   sequence is kept, so the line's outcome never gets worse). A rollout that wins ends the
   pass with the line plus the rollout: a real winning line (replayed like any other).
   The pass ends without a win when its line cannot go on; it **never proves ``lost``**.
   On Number Ten and Rank and File it finds most of the wins (at 10**6 nodes, 15/20 and
   12/20 test deals against 6/20 and 3/20 for the search alone).
2. **Search** (:func:`_search`, the rest of the budget): depth-first with an explicit
   stack and a transposition table (the *closed set*) keyed by the position up to the
   column order; each entry keeps the largest number of remaining steps with which the
   position was searched, and a position is searched again only with more steps left.
   Children are tried in a fixed order by a cheap score (:func:`_score`). Only this pass
   proves ``lost`` (its stack empties: the search was exhaustive).

Both passes are deterministic: the node budget is the figure of record (equal inputs, equal
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
    H_ACCEPTS,
    H_C,
    H_DECODE,
    H_FD,
    H_FOUND,
    H_LEN,
    H_NACT,
    H_SCAL,
    H_STOCK,
    H_V,
    H_WASTE,
    S_FCARDS,
    S_NSTOCK,
    S_NWASTE,
    S_REDEALS,
    _mix,
    apply,
    canonical_hash,
    legal_actions,
    tables_for,
)
from ._jit import kernel
from .actions import (
    COLUMN_TO_COLUMN,
    COLUMN_TO_FOUNDATION,
    DRAW,
    REDEAL,
    WASTE_TO_COLUMN,
    WASTE_TO_FOUNDATION,
)
from .engine import GameState, InvalidPositionError, rules_for
from .variants import Build, VariantSpec, get_variant

__all__ = ["RULES", "SOLVER_VERSION", "SolveResult", "build_code", "pruned_moves", "solve"]

Status = Literal["won", "lost", "unknown"]

SOLVER_VERSION = 2
"""The version of the search's results (2: the rollout pass before the search): bumped
whenever a change could give another verdict, line or node count for the same input (move
order, pruning rules, table size, node counting).
Saved results (``fortythieves solve``) are keyed by it, so results of an older search are
never mixed with newer ones."""

RULES: tuple[str, ...] = ("F", "W", "E")
"""The pruning rules, by name; :func:`solve` uses all of them unless told otherwise."""

_BUILD_CODE = {Build.SAME_SUIT: 0, Build.ALTERNATE_COLOUR: 1, Build.OTHER_SUIT: 2}
_USE_F, _USE_W, _USE_E = 1, 2, 4

# ctl: the search's resumable state (int64)
C_DEPTH, C_NODES, C_FRESH, C_STATUS, C_TT_USED, C_LIMIT, C_FLAGS, C_BUILD = range(8)
N_CTL = 8
# C_STATUS values
RUNNING, WON, LOST = 0, 1, 2

_MAX_TABLE_BITS = 22
"""The transposition table holds at most ``2**22`` positions (80 MB); when it is 3/4 full
no more are stored (the search stays correct: positions are only searched again)."""
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
        found_by: for ``won``, the pass that found the line: ``"rollouts"`` or
            ``"search"``; else ``""``.
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
    clairvoyant: bool = field(default=True, repr=False)
    """Always True: the solver saw every card (face-down ones and the stock's order)."""


# ---------------------------------------------------------------------- pruning rules
@kernel(inline="always")
def _lowest(st: np.ndarray, f0: int, suit: int) -> int:
    """The lower of the two foundation piles of ``suit``."""
    return min(st[f0 + 2 * suit], st[f0 + 2 * suit + 1])


@kernel
def _safe_foundation(st: np.ndarray, tb: np.ndarray, card: int, build: int) -> bool:
    """Rule F: may ``card``, which fits a foundation pile, be played up at once as the
    only move tried here?

    With ``s``, ``r`` the card's suit and rank (Ace = 1) and a pile of ``s`` at ``r - 1``:

    * every build rule needs the *other* pile of ``s`` at ``r - 1`` or higher (the card
      goes onto the lower pile of its suit);
    * same suit: nothing more (F1);
    * alternate colour: both piles of each suit of the other colour at ``r - 2`` or
      higher, and both piles of the other suit of the card's colour at ``r - 3`` or higher
      (F2, which contains F1);
    * any suit but its own: all 6 piles of the other three suits at ``r - 2`` or higher
      (F2, which contains F1).

    Aces always qualify; so do the 2s of Lucas. The caller applies F to the waste top only
    when no redeal is left (playing a waste card early changes how the later passes
    through the stock group the cards, which the argument below does not cover).

    Why it is safe (two decks; ``docs/solver_design.md`` section 2.1 in full): let a line
    L win from position P and let P' be P with the card ``c`` up.

    * Lemma R: if both piles of suit t are at ``q - 1`` or higher and a copy of (t, q) is
      off, then one pile of t is exactly ``q - 1`` (the piles of t at ``q`` or higher
      number the copies of (t, q) up, at most one), and stays so: that copy can go up
      whenever it is a top.
    * F1: every card that could be put onto ``c`` (its *hosts*, rank ``r - 1``) has both
      copies up, so in L nothing is ever put on ``c``. Delete from L every move of ``c``
      (a sequence move carrying ``c`` on top moves one card fewer). Each kept move stays
      legal: a top card taken away only exposes the card below earlier; a foundation move
      of the twin of ``c`` still finds a pile at ``r - 1`` because the other pile of ``s``
      was at ``r - 1`` or higher. ``c`` has at least one move in L, so the new line is no
      longer.
    * F2: the hosts of ``c`` not yet up are ready to go up for good (Lemma R: their piles
      are at ``r - 2`` or higher), and so is every card that could lie on such a host
      (rank ``r - 2``, piles at ``r - 3`` or higher), while the cards that could lie on
      those are all up. Replace each move of L that puts cards onto ``c`` (or onto a card
      already sent up) by sending those at most two cards up, top first, and delete their
      later moves: each card still costs one move, so the line is no longer.

    Not safe beyond this: without the other pile's condition (the twin stranded on the
    waste above both copies of the card below), or with only ``r - 2`` on the other pile
    in a same-suit game; the design note gives one counterexample each.
    """
    f0 = tb[H_FOUND]
    s = (card - 1) // 13
    r = (card - 1) % 13 + 1
    if _lowest(st, f0, s) < r - 1:
        return False
    if build == 0:  # same suit
        return True
    if build == 1:  # alternate colour: C, S black (0, 3); D, H red (1, 2)
        red = s == 1 or s == 2
        o1, o2 = (0, 3) if red else (1, 2)  # the other colour
        mate = 3 - s  # the other suit of the same colour: C <-> S, D <-> H
        return (
            _lowest(st, f0, o1) >= r - 2
            and _lowest(st, f0, o2) >= r - 2
            and _lowest(st, f0, mate) >= r - 3
        )
    for t in range(4):  # noqa: SIM110  (any suit but its own; a plain loop for numba)
        if t != s and _lowest(st, f0, t) < r - 2:
            return False
    return True


# ---------------------------------------------------------------------- move order
@kernel(inline="always")
def _fits_foundation(st: np.ndarray, f0: int, card: int) -> bool:
    s2 = 2 * ((card - 1) // 13)
    r = (card - 1) % 13
    return st[f0 + s2] == r or st[f0 + s2 + 1] == r


@kernel
def _score(st: np.ndarray, tb: np.ndarray, action: int) -> int:
    """The move-ordering score of a legal ``action`` (higher is tried first).

    A cheap reading of ``docs/solver_design.md`` section 3.1, as integers:
    foundation moves (``1000 - rank``: low cards first); a column move that empties its
    column (850) or turns up a face-down card (800); one that uncovers a card that fits a
    foundation (700); waste onto a column (600); other builds (``500 + cards``, longest
    sequence first); ``draw`` (300); ``redeal`` (250); moves into an empty column
    (``150 + cards``; 250 if it turns up a face-down card); a *lateral* move, whose cards
    already lay on a card that takes them, last (100). Ties keep the ascending action
    order. Ordering changes how fast a line is found, never a verdict.
    """
    d = tb[H_DECODE] + 4 * action
    kind = tb[d]
    if kind == DRAW:
        return 300
    if kind == REDEAL:
        return 250
    f0 = tb[H_FOUND]
    v = tb[H_V]
    len0 = tb[H_LEN]
    if kind == WASTE_TO_FOUNDATION:
        card = st[tb[H_WASTE] + st[tb[H_SCAL] + S_NWASTE] - 1]
        return 1000 - ((card - 1) % 13 + 1)
    if kind == COLUMN_TO_FOUNDATION:
        src = tb[d + 1]
        card = st[src * v + st[len0 + src] - 1]
        return 1000 - ((card - 1) % 13 + 1)
    dst = tb[d + 2]
    if kind == WASTE_TO_COLUMN:
        return 200 if st[len0 + dst] == 0 else 600
    src = tb[d + 1]
    n = tb[d + 3]
    rest = st[len0 + src] - n
    fd = st[tb[H_FD] + src]
    if st[len0 + dst] == 0:
        return 250 if (fd > 0 and rest == fd) else 150 + n
    if rest == 0:
        return 850
    if fd > 0 and rest == fd:
        return 800
    below = st[src * v + rest - 1]
    if tb[tb[H_ACCEPTS] + below * 53 + st[src * v + rest]]:
        return 100
    if _fits_foundation(st, f0, below):
        return 700
    return 500 + n


@kernel
def _children(
    st: np.ndarray,
    tb: np.ndarray,
    flags: int,
    build: int,
    legal: np.ndarray,
    out: np.ndarray,
    scores: np.ndarray,
) -> int:
    """The moves the search tries from ``st``, best first, into ``out``; returns how many.

    Rule F (``flags & 1``): if a foundation move passes :func:`_safe_foundation` (a column
    top, or the waste top when no redeal is left), it is the only child.

    Rule W (``flags & 2``): a move that carries a whole column (no face-down card under
    it) into an empty column is dropped. *Safe*: the new position is the old one with two
    columns swapped, the same game one step later; a line that makes the move can leave
    it out and is one step shorter.

    Rule E (``flags & 4``): a move into an empty column is kept only into the first empty
    column. *Safe*: moves that differ only in the empty column they fill lead to positions
    that differ only in the column order, which win in the same number of steps.
    """
    count = legal_actions(st, tb, legal)
    c = tb[H_C]
    v = tb[H_V]
    len0 = tb[H_LEN]
    dec = tb[H_DECODE]
    if flags & 1:
        no_redeal = st[tb[H_SCAL] + S_REDEALS] == 0
        for k in range(count):
            a = legal[k]
            kind = tb[dec + 4 * a]
            if kind == COLUMN_TO_FOUNDATION:
                src = tb[dec + 4 * a + 1]
                card = st[src * v + st[len0 + src] - 1]
            elif kind == WASTE_TO_FOUNDATION and no_redeal:
                card = st[tb[H_WASTE] + st[tb[H_SCAL] + S_NWASTE] - 1]
            else:
                continue
            if _safe_foundation(st, tb, card, build):
                out[0] = a
                return 1
    first_empty = -1
    for j in range(c):
        if st[len0 + j] == 0:
            first_empty = j
            break
    m = 0
    for k in range(count):
        a = legal[k]
        kind = tb[dec + 4 * a]
        if kind == COLUMN_TO_COLUMN or kind == WASTE_TO_COLUMN:  # noqa: SIM109
            dst = tb[dec + 4 * a + 2]
            if st[len0 + dst] == 0:
                if (flags & 4) and dst != first_empty:
                    continue
                if (flags & 2) and kind == COLUMN_TO_COLUMN:
                    src = tb[dec + 4 * a + 1]
                    if tb[dec + 4 * a + 3] == st[len0 + src]:
                        continue
        sc = _score(st, tb, a)
        # insertion sort, descending by score, stable
        q = m
        while q > 0 and scores[q - 1] < sc:
            out[q] = out[q - 1]
            scores[q] = scores[q - 1]
            q -= 1
        out[q] = a
        scores[q] = sc
        m += 1
    return m


def build_code(spec: VariantSpec) -> int:
    """The ``build`` argument of :func:`pruned_moves` for ``spec`` (0 same suit, 1
    alternate colour, 2 any suit but its own)."""
    return _BUILD_CODE[spec.build]


@kernel
def pruned_moves(
    st: np.ndarray,
    tb: np.ndarray,
    build: int,
    legal: np.ndarray,
    out: np.ndarray,
    scores: np.ndarray,
) -> int:
    """The moves the solver tries from ``st`` under rules F, W and E (:func:`_children`),
    best first by :func:`_score`, into ``out``; returns how many.

    One move and a foundation move: rule F found it safe (or it was the only one left).
    Everything read is what a player sees: the legal moves, the column tops and lengths,
    face-up cards, face-down counts and the foundations; never a face-down card or the
    stock. So a search agent may call it on a position whose hidden cards were sampled.

    Args:
        st: state array (``int16``), read only.
        tb: table array (``int32``).
        build: :func:`build_code` of the variant.
        legal, out, scores: ``int32`` work arrays of length ``n_actions``.
    """
    return _children(st, tb, _USE_F | _USE_W | _USE_E, build, legal, out, scores)


# ---------------------------------------------------------------------- keys
_K2_BASIS = np.uint64(0x2545F4914F6CDD1D)
_K2_COLUMN = np.uint64(0xD6E8FEB86659FD93)
_K2_M1 = np.uint64(0xBF58476D1CE4E5B9)
_K2_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)


@kernel(inline="always")
def _splitmix(h: np.uint64) -> np.uint64:
    h ^= h >> _S30
    h *= _K2_M1
    h ^= h >> _S27
    h *= _K2_M2
    h ^= h >> _S31
    return h


@kernel
def _second_key(st: np.ndarray, tb: np.ndarray) -> np.uint64:
    """A second 64-bit key of the position up to the column order, independent of
    :func:`~._fast.canonical_hash` (other constants, other finaliser): together they make
    the closed set's 128-bit key (see :func:`_search` on collisions)."""
    v = tb[H_V]
    total = np.uint64(0)
    for i in range(tb[H_C]):
        n = st[tb[H_LEN] + i]
        h = _mix(_K2_COLUMN, np.uint64(n * 16 + st[tb[H_FD] + i]))
        for k in range(i * v, i * v + n):
            h = _splitmix(h + np.uint64(st[k]))
        total += _splitmix(h)
    h = _mix(_K2_BASIS, total)
    scal = tb[H_SCAL]
    ns = st[scal + S_NSTOCK]
    nw = st[scal + S_NWASTE]
    h = _splitmix(h + np.uint64(ns))
    for k in range(tb[H_STOCK], tb[H_STOCK] + ns):
        h = _splitmix(h + np.uint64(st[k]))
    h = _splitmix(h + np.uint64(nw + 1000))
    for k in range(tb[H_WASTE], tb[H_WASTE] + nw):
        h = _splitmix(h + np.uint64(st[k]))
    for k in range(tb[H_FOUND], tb[H_FOUND] + 8):
        h = _splitmix(h + np.uint64(st[k]))
    return _splitmix(h + np.uint64(st[scal + S_REDEALS]))


# ---------------------------------------------------------------------- the search
@kernel
def _search(
    ctl: np.ndarray,
    tb: np.ndarray,
    states: np.ndarray,
    acts: np.ndarray,
    nact: np.ndarray,
    nxt: np.ndarray,
    tt1: np.ndarray,
    tt2: np.ndarray,
    ttb: np.ndarray,
    legal: np.ndarray,
    scores: np.ndarray,
    node_quota: int,
) -> int:
    """Run the depth-first search until it ends or ``ctl[C_NODES]`` reaches ``node_quota``;
    returns ``ctl[C_STATUS]`` (``RUNNING`` if paused: call again to go on).

    The stack: frame ``d`` holds position ``states[d]`` (reached by ``d`` moves), its
    children ``acts[d, :nact[d]]`` best first and the next one to try ``nxt[d]``; the line
    so far is ``acts[k, nxt[k] - 1]`` for ``k < d``. The closed set is an open-addressing
    table of 128-bit keys (``tt1``, ``tt2``: :func:`~._fast.canonical_hash` and
    :func:`_second_key`; 0 marks a free slot) with ``ttb`` the most steps left with which
    the position was entered. A position entered with ``b`` steps left while the table
    holds ``b`` or more for it is not searched again.

    Why ``LOST`` (the stack emptied, no budget ran out) means no line wins within the
    limit: every entry was made by a search that then finished. Suppose some position
    ``p`` with entry ``b`` had a line winning within ``b`` steps, and take such ``p`` and
    line with the line's length ``k`` smallest. ``k > 0`` (a won position is never
    entered in the table: the search stops there). By the safety of F, W and E there is a
    line of at most ``k`` steps whose first move is among the children tried; its child
    ``q`` wins within ``k - 1 <= b - 1`` steps. When ``p`` was searched with ``b`` left,
    ``q`` was entered with ``b - 1`` left or skipped because its entry was already at least
    that; entries only grow. So ``q`` has an entry ``>= k - 1`` and wins within ``k - 1``
    steps: a shorter counterexample. Hence no entry lies, and the root's entry is the
    step limit. A child skipped because it is on the stack is covered too: its search
    finished before the answer. If the table is full, positions are simply not stored
    (searched again when met again): the argument holds for those stored.

    Collisions: two different positions share a 128-bit key with probability about
    ``n**2 / 2**129`` for ``n`` stored positions (below ``1e-25`` for the table's
    ``2**22``); a collision could only turn a win into a wrong ``lost``, never make a
    ``won`` line wrong (lines are replayed).
    """
    limit = ctl[C_LIMIT]
    flags = ctl[C_FLAGS]
    build = ctl[C_BUILD]
    scal = tb[H_SCAL]
    mask = np.uint64(tt1.shape[0] - 1)
    cap = (tt1.shape[0] * 3) // 4
    zero = np.uint64(0)
    d = ctl[C_DEPTH]
    fresh = ctl[C_FRESH] == 1
    while True:
        if fresh:
            if ctl[C_NODES] >= node_quota:
                ctl[C_DEPTH] = d
                ctl[C_FRESH] = 1
                return RUNNING
            ctl[C_NODES] += 1
            st = states[d]
            if st[scal + S_FCARDS] == 104:
                ctl[C_DEPTH] = d
                ctl[C_STATUS] = WON
                return WON
            left = limit - d
            skip = left <= 0
            if not skip:
                k1 = canonical_hash(st, tb)
                k2 = _second_key(st, tb)
                if k1 == zero and k2 == zero:
                    k2 = np.uint64(1)
                slot = k1 & mask
                while True:
                    if tt1[slot] == k1 and tt2[slot] == k2:
                        if ttb[slot] >= left:
                            skip = True
                        else:
                            ttb[slot] = left
                        break
                    if tt1[slot] == zero and tt2[slot] == zero:
                        if ctl[C_TT_USED] < cap:
                            tt1[slot] = k1
                            tt2[slot] = k2
                            ttb[slot] = left
                            ctl[C_TT_USED] += 1
                        break
                    slot = (slot + np.uint64(1)) & mask
            if skip:
                nact[d] = 0
            else:
                nact[d] = _children(st, tb, flags, build, legal, acts[d], scores)
            nxt[d] = 0
            fresh = False
        if nxt[d] < nact[d]:
            a = acts[d, nxt[d]]
            nxt[d] += 1
            states[d + 1, :] = states[d]
            apply(states[d + 1], tb, np.int64(a))  # int64: the one compiled signature
            d += 1
            fresh = True
        else:
            d -= 1
            if d < 0:
                ctl[C_DEPTH] = 0
                ctl[C_STATUS] = LOST
                return LOST


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
        rollouts: run the rollout pass first (module docstring); False: the depth-first
            search only (for tests; the verdicts ``won``/``lost`` never differ where both
            finish, only how soon a win is found).

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
    unknown_rules = [r for r in rules if r not in RULES]
    if unknown_rules or isinstance(rules, str):
        raise ValueError(f"solve: unknown pruning rules {rules!r}; choose from {list(RULES)}")
    spec, state = _resolve(position_or_state, variant)
    if step_limit is None:
        step_limit = spec.max_episode_steps
    step_limit = checked_int("solve: step_limit", step_limit, 0, MAX_STEP_LIMIT)
    used = tuple(r for r in RULES if r in rules)
    flags = sum(
        bit for name, bit in zip(RULES, (_USE_F, _USE_W, _USE_E), strict=True) if name in used
    )

    start = time.perf_counter()
    tables = tables_for(spec)
    tb = tables.table
    n_act = int(tb[H_NACT])
    depth = step_limit + 1
    states = np.zeros((depth, tables.state_size), dtype=np.int16)
    states[0] = tables.pack(state)
    acts = np.zeros((depth, n_act), dtype=np.int32)
    nact = np.zeros(depth, dtype=np.int32)
    nxt = np.zeros(depth, dtype=np.int32)
    bits = min(_MAX_TABLE_BITS, max(10, (2 * nodes).bit_length()))
    tt1 = np.zeros(1 << bits, dtype=np.uint64)
    tt2 = np.zeros(1 << bits, dtype=np.uint64)
    ttb = np.zeros(1 << bits, dtype=np.int32)
    legal = np.zeros(n_act, dtype=np.int32)
    scores = np.zeros(n_act, dtype=np.int32)
    ctl = np.zeros(N_CTL, dtype=np.int64)
    ctl[C_FRESH] = 1
    ctl[C_LIMIT] = step_limit
    ctl[C_FLAGS] = flags
    ctl[C_BUILD] = _BUILD_CODE[spec.build]

    stopped_by = ""
    found_by = ""

    def out_of_time() -> str:
        if seconds is not None and time.perf_counter() - start >= seconds:
            return "seconds"
        if should_stop is not None and should_stop():
            return "stop"
        return ""

    status = RUNNING
    line: np.ndarray | None = None
    if rollouts:  # pass 1: nested greedy rollouts, at most half the budget
        quota_1 = max(1, nodes // 2)
        cur = states[0].copy()
        nst = np.zeros(N_NST, dtype=np.int64)
        line = np.zeros(depth, dtype=np.int32)
        best = np.zeros(depth, dtype=np.int32)
        rbuf = np.zeros(depth, dtype=np.int32)
        tmp, tmp2 = cur.copy(), cur.copy()
        main_kids = np.zeros(n_act, dtype=np.int32)
        seen = (
            np.zeros(1 << _SEEN_BITS, dtype=np.uint64),
            np.zeros(1 << _SEEN_BITS, dtype=np.int64),
            np.zeros(1 << _SEEN_BITS, dtype=np.uint64),
            np.zeros(1 << _SEEN_BITS, dtype=np.int64),
        )
        while True:
            chunk = min(quota_1, int(nst[N_NODES]) + _CHUNK)
            status = _nested(
                nst, tb, cur, step_limit, flags, ctl[C_BUILD], chunk, quota_1, line, best, rbuf,
                tmp, tmp2, legal, main_kids, acts[0], scores, *seen,
            )  # fmt: skip
            if status != RUNNING or nst[N_NODES] >= quota_1:
                break
            stopped_by = out_of_time()
            if stopped_by:
                break
        ctl[C_NODES] = nst[N_NODES]
        if status == WON:
            found_by = "rollouts"
    if status != WON and not stopped_by:  # pass 2: depth-first search, the rest
        status = RUNNING
        while True:
            quota = min(nodes, int(ctl[C_NODES]) + _CHUNK)
            status = _search(ctl, tb, states, acts, nact, nxt, tt1, tt2, ttb, legal, scores, quota)
            if status != RUNNING:
                break
            if ctl[C_NODES] >= nodes:
                stopped_by = "nodes"
                break
            stopped_by = out_of_time()
            if stopped_by:
                break
        if status == WON:
            found_by = "search"

    moves: tuple[str, ...] = ()
    verdict: Status = "unknown"
    if status == WON:
        verdict = "won"
        codec = rules_for(spec).codec
        if found_by == "rollouts":
            assert line is not None
            actions = [int(a) for a in line[: int(nst[N_DEPTH])]]
        else:
            actions = [int(acts[k, nxt[k] - 1]) for k in range(int(ctl[C_DEPTH]))]
        moves = tuple(codec.to_move(a) for a in actions)
        _check_line(spec, state, moves, step_limit)
    elif status == LOST:
        verdict = "lost"
    return SolveResult(
        status=verdict,
        moves=moves,
        nodes=int(ctl[C_NODES]),
        seconds=time.perf_counter() - start,
        variant=spec.id,
        step_limit=step_limit,
        rules=used,
        stopped_by=stopped_by,
        found_by=found_by,
    )


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
