"""The arms of the search's UCB1 bandit when they are lonelybot's (issue 40, point 2):
the first *irreversible* moves reachable through *reversible* play, ``SearchBudget(
method="solve", allocation="ucb", arms="irreversible")``.

**Reversible move** (:func:`is_reversible`; ``RULES.md``). A move is reversible when one
legal move of the position it leads to gives back the very position it was played in. In
this family only a column-to-column move can be: every other move changes something that
never comes back (a draw shrinks the stock, a redeal the redeals left, a waste move the
waste, which no move refills, a foundation move the foundations, from which no card comes
back; common rules 3, 6-8). A column-to-column move of the ``n`` cards at the end of column
``s`` onto column ``d`` (``tS>tD`` or ``tS>tDxN``) is reversible exactly when

1. it turns up no face-down card: column ``s`` keeps a face-up card under the moved ones, or
   had no face-down card at all (a card turned up stays up: the face-down count never comes
   back), and
2. the moved cards may legally go back: the card left on top of ``s`` takes the first
   (lowest, in a sequence the bottom) moved card by the variant's build rule, or ``s`` is
   left empty and an empty column takes that card (common rule 5: any card; a custom
   ``EmptyColumn.KINGS`` variant: a King only). The way back is then ``tD>tS`` with the same
   ``n``: the moved cards lie at the end of ``d`` in the order they had, so they are still a
   sequence the variant moves as one (sequence variants) or one card (the others).

Both conditions read only what the player sees (face-up cards, face-down counts, the rule
table), so a move is reversible on every sample of the hidden cards or on none. A column
move that fails them is irreversible, like every draw, redeal, waste move and foundation
move. ``tests/agents/players/test_search_arms.py`` checks this move by move against the
brute force (play the move, look for a legal move that restores the exact state) on random
positions of every variant.

**The reversible closure** (:func:`reversible_closure`) of a position: the positions reached
from it by reversible moves only, breadth-first, each once (keyed by the state array's
bytes), at most ``limit`` of them (:data:`MAX_CLOSURE`) with the shortest path of reversible
moves to each. Two of the solver's safe pruning rules thin it (:mod:`fortythieves_env.solver`,
``docs/solver_design.md``): a whole column is never moved into an empty column (rule W: the
same position with two columns swapped) and a move into an empty column goes into the first
one only (rule E). Views met before in the game (``avoid``, their
:func:`~fortythieves_env.rules.core.view_hash`) are left out, so that the agent's no-return
rule holds for every path. The closure is computed on the *template*: the player's view with
the unseen cards in one fixed order (sorted, :func:`~fortythieves_env.rules.view.determinize`
of ``view.unseen``), as lonelybot resets the hidden cards to a fixed order. Reversible play
reveals nothing, so the closure is the same on every sample of the hidden cards: the same
paths, positions whose views are equal (a test asserts it).

**Arms** (:func:`irreversible_arms`): for each closure position in breadth-first order, each
irreversible move among the solver's pruned moves there
(:func:`~fortythieves_env.solver.pruned_moves`: rules F, W and E, each safe), in the solver's
order, as the pair (path of reversible moves to the position, irreversible move); two pairs
that lead to the same position (e.g. a card sent up from where it lies or after a reversible
move elsewhere) are one arm, the first found (the shorter path). "Stop" is no arm: the game
must move. At most ``max_arms`` arms (:data:`MAX_ARMS`; the caller also keeps them below the
move's pulls, so that each gets one): the first in that order, so those of the position
itself and of the positions nearest to it. An arm is played by its path, then its
irreversible move; the agent plays its *first* move now (the first reversible move of the
path, or the irreversible move when the path is empty).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from fortythieves_env.rules.actions import COLUMN_TO_COLUMN
from fortythieves_env.rules.cards import N_CARDS
from fortythieves_env.rules.core import (
    H_ACCEPTS,
    H_C,
    H_DECODE,
    H_FD,
    H_LEN,
    H_NACT,
    H_SCAL,
    H_V,
    S_FCARDS,
    FastTables,
    apply,
    legal_actions,
    view_hash,
)
from fortythieves_env.rules.jit import kernel
from fortythieves_env.solver import pruned_moves

from .search_budget import ARMS as ARMS

__all__ = [
    "ARMS",
    "MAX_ARMS",
    "MAX_CLOSURE",
    "MAX_DEAD_END_LIMIT",
    "Arms",
    "irreversible_arms",
    "is_dead_end",
    "is_reversible",
    "reversible_closure",
]

MAX_CLOSURE = 256
"""The most positions of a reversible closure (:func:`reversible_closure`)."""
MAX_DEAD_END_LIMIT = 1_000_000
"""The largest ``limit`` of :func:`is_dead_end`, whose work array (``limit + 2`` state rows)
is allocated up front."""
MAX_ARMS = 64
"""The most arms of a move with ``arms="irreversible"`` (:func:`irreversible_arms`)."""


@kernel
def is_reversible(st: np.ndarray, tb: np.ndarray, action: int) -> bool:
    """Is legal ``action`` reversible in state array ``st`` (the module docstring's
    definition: a column-to-column move that turns up no card and whose cards the source
    column takes back)? Reads only what the player sees."""
    d = tb[H_DECODE] + 4 * action
    if tb[d] != COLUMN_TO_COLUMN:
        return False
    src = tb[d + 1]
    n = tb[d + 3]
    v = tb[H_V]
    rest = st[tb[H_LEN] + src] - n
    fd = st[tb[H_FD] + src]
    if fd > 0 and rest == fd:  # the face-down card left on top turns face up
        return False
    below = 0 if rest == 0 else st[src * v + rest - 1]  # row 0: an empty column
    return tb[tb[H_ACCEPTS] + below * 53 + st[src * v + rest]] != 0


@kernel
def _reversible_children(st: np.ndarray, tb: np.ndarray, legal: np.ndarray, out: np.ndarray) -> int:
    """The reversible legal moves of ``st`` into ``out`` (ascending), without a whole column
    moved into an empty column (rule W) or a move into an empty column but the first (rule
    E); returns how many. ``legal``: a work array of ``n_actions`` integers."""
    count = legal_actions(st, tb, legal)
    len0 = tb[H_LEN]
    first_empty = -1
    for j in range(tb[H_C]):
        if st[len0 + j] == 0:
            first_empty = j
            break
    m = 0
    for k in range(count):
        a = legal[k]
        if not is_reversible(st, tb, a):
            continue
        d = tb[H_DECODE] + 4 * a
        dst = tb[d + 2]
        if st[len0 + dst] == 0 and (dst != first_empty or tb[d + 3] == st[len0 + tb[d + 1]]):
            continue
        out[m] = a
        m += 1
    return m


def reversible_closure(
    tables: FastTables,
    st: np.ndarray,
    limit: int = MAX_CLOSURE,
    avoid: Collection[int] | None = None,
) -> list[tuple[np.ndarray, tuple[int, ...]]]:
    """The reversible closure of state array ``st`` (the module docstring): ``(state,
    path)`` pairs in breadth-first order, ``st`` itself first with the empty path, at most
    ``limit`` (>= 1) of them; a position whose :func:`~fortythieves_env.rules.core.view_hash`
    is in ``avoid`` is left out (and not entered)."""
    tb = tables.table
    n = int(tb[H_NACT])
    legal = np.empty(n, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    root = st.copy()
    met = {root.tobytes()}
    nodes: list[tuple[np.ndarray, tuple[int, ...]]] = [(root, ())]
    i = 0
    while i < len(nodes) and len(nodes) < limit:
        position, path = nodes[i]
        i += 1
        count = _reversible_children(position, tb, legal, out)
        for a in out[:count].tolist():
            child = position.copy()
            apply(child, tb, np.int64(a))
            key = child.tobytes()
            if key in met:
                continue
            met.add(key)
            if avoid and int(view_hash(child, tb)) in avoid:
                continue
            nodes.append((child, (*path, a)))
            if len(nodes) >= limit:
                break
    return nodes


def is_dead_end(
    tables: FastTables,
    st: np.ndarray,
    avoid: Collection[int],
    limit: int = MAX_CLOSURE,
) -> bool:
    """Is the position of state array ``st`` (a move's result) a dead end under the
    no-return rule: are all games from it lost, ending *stuck* (every legal move back into a
    view met) or with no legal move at all, whatever the player does?

    The positions reachable from ``st`` by reversible moves into views not in ``avoid``
    (the views met in the game, the one the move was played in included: their
    :func:`~fortythieves_env.rules.core.view_hash`) are searched, each once, every
    reversible move (no pruning: views that differ only in the columns' order are
    different views to the rule); if none of them has a legal irreversible move, every
    game from ``st`` ends with no legal move, or none but moves back into views met: True
    (a game is won only by a foundation move, which is irreversible); but a won position
    (every card on a foundation, no legal move left) is no dead end. An irreversible
    move leads to a view never met (the module docstring: it changes something that never
    comes back), so a position that has one is a way out: False. False too when the search
    meets more than ``limit`` positions (not shown to be a dead end; ``limit`` in
    1..:data:`MAX_DEAD_END_LIMIT`, else ValueError). Reads only what the
    player sees of ``st`` (reversible play reveals nothing), so the answer is the same on
    every sample of the hidden cards.

    The search agent's scores put a column move that turns up no card into a dead end after
    every other move, as a move back into a view met
    (``tests/agents/players/test_search_arms.py``)."""
    if not 1 <= limit <= MAX_DEAD_END_LIMIT:
        raise ValueError(f"is_dead_end: limit must be 1..{MAX_DEAD_END_LIMIT}, got {limit}")
    tb = tables.table
    if _way_out_here(st, tb):  # the common case, before the views are sorted
        return False
    keys = np.fromiter(avoid, dtype=np.uint64, count=len(avoid))
    keys.sort()
    stack = np.empty((limit + 2, st.shape[0]), dtype=st.dtype)
    return bool(_dead_end(st, tb, keys, limit, stack))


@kernel
def _way_out_here(st: np.ndarray, tb: np.ndarray) -> bool:
    """Has the position of ``st`` a legal irreversible move (or is it won)?"""
    if st[tb[H_SCAL] + S_FCARDS] == N_CARDS:
        return True
    legal = np.empty(tb[H_NACT], dtype=np.int64)
    for k in range(legal_actions(st, tb, legal)):  # noqa: SIM110  (a plain loop for numba)
        if not is_reversible(st, tb, legal[k]):
            return True
    return False


@kernel
def _dead_end(
    st: np.ndarray, tb: np.ndarray, avoid: np.ndarray, limit: int, stack: np.ndarray
) -> bool:
    """:func:`is_dead_end` compiled: ``avoid`` the views to avoid as a sorted ``uint64``
    array, ``stack`` a work array of ``limit + 2`` state rows. Depth first, the children of
    a position in the order of their actions. Called only where :func:`_way_out_here` found no
    way out (so ``st`` is not won)."""
    n = tb[H_NACT]
    legal = np.empty(n, dtype=np.int64)
    children = np.empty(n, dtype=np.int64)
    position = st.copy()
    met = {view_hash(st, tb)}
    stack[0, :] = st
    top = 1
    while top > 0:
        top -= 1
        position[:] = stack[top]
        count = legal_actions(position, tb, legal)
        m = 0
        for k in range(count):
            if not is_reversible(position, tb, legal[k]):
                return False
            children[m] = legal[k]
            m += 1
        for k in range(m):
            child = stack[top]
            child[:] = position
            apply(child, tb, children[k])
            key = view_hash(child, tb)
            if key in met:
                continue
            i = np.searchsorted(avoid, key)
            if i < avoid.shape[0] and avoid[i] == key:
                continue
            met.add(key)
            if len(met) > limit:
                return False
            top += 1
    return True


@dataclass(frozen=True)
class Arms:
    """The arms of one decision (:func:`irreversible_arms`).

    Attributes:
        paths: each arm's reversible moves, in order (empty: the arm is a move of the
            position itself).
        moves: each arm's irreversible move, played after its path.
        closure: the number of positions of the reversible closure searched.
    """

    paths: tuple[tuple[int, ...], ...]
    moves: tuple[int, ...]
    closure: int

    def __len__(self) -> int:
        return len(self.moves)

    @property
    def first(self) -> np.ndarray:
        """``int64``, shape ``(len(self),)``: the move each arm plays now (its path's first
        move, else its irreversible move)."""
        return np.array(
            [p[0] if p else m for p, m in zip(self.paths, self.moves, strict=True)],
            dtype=np.int64,
        )


def irreversible_arms(
    tables: FastTables,
    build: int,
    st: np.ndarray,
    max_arms: int = MAX_ARMS,
    limit: int = MAX_CLOSURE,
    avoid: Collection[int] | None = None,
    first_moves: Collection[int] | None = None,
) -> Arms:
    """lonelybot's arms of the position in state array ``st`` (the module docstring): for
    each position of :func:`reversible_closure` (``limit``, ``avoid``), each irreversible move
    of :func:`~fortythieves_env.solver.pruned_moves` there, deduplicated by the position it
    leads to; the first ``max_arms`` (>= 1). ``build``: :func:`~fortythieves_env.solver.build_code`
    of the variant. ``first_moves``: if given, only the arms whose first move is one of them
    (the candidates a guide lets the search try). Reads only what the player sees of ``st``
    (call it on the template)."""
    tb = tables.table
    n = int(tb[H_NACT])
    legal = np.empty(n, dtype=np.int32)
    out = np.empty(n, dtype=np.int32)
    order = np.empty(n, dtype=np.int32)
    closure = reversible_closure(tables, st, limit, avoid)
    paths: list[tuple[int, ...]] = []
    moves: list[int] = []
    led_to: set[bytes] = set()
    for position, path in closure:
        count = pruned_moves(position, tb, build, legal, out, order)
        for a in out[:count].tolist():
            if is_reversible(position, tb, a):
                continue
            if first_moves is not None and (path[0] if path else a) not in first_moves:
                continue
            after = position.copy()
            apply(after, tb, np.int64(a))
            key = after.tobytes()
            if key in led_to:
                continue
            led_to.add(key)
            paths.append(path)
            moves.append(int(a))
            if len(moves) >= max_arms:
                return Arms(tuple(paths), tuple(moves), len(closure))
    return Arms(tuple(paths), tuple(moves), len(closure))
