"""Many small solves of one variant on arrays allocated once: :class:`SolverContext` (the
search agent's solver) and its answer, :class:`ArraySolve`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..rules.cards import N_CARDS
from ..rules.checks import checked_int
from ..rules.core import H_SCAL, S_FCARDS, tables_for
from ..rules.variants import VariantSpec
from .api import MAX_NODES, MAX_STEP_LIMIT, Status, _search_pass
from .pruning import (
    _BUILD_CODE,
    RULES,
    rule_flags,
)
from .rollout import N_BEST_SCORE, _rollout_pass
from .search import LOST, WON, _Search, table_bits
from .workspace import closed_set, rollout_workspace, search_workspace


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
    (``tests/env/test_solver_context.py``). The arrays are the workspaces of
    :mod:`.workspace`, built once for the context's ``step_limit``, on which :meth:`run`
    runs the functions :func:`.solve` runs. What it skips: the position's checks (a state
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
        self.build = _BUILD_CODE[spec.build]
        self._fcards = int(self.tables.table[H_SCAL]) + S_FCARDS
        self._size = self.tables.state_size
        self.rollout = rollout_workspace(self.tables, self.step_limit)
        """Pass 1's arrays."""
        self.search = search_workspace(self.tables, self.step_limit, 10)
        """Pass 2's arrays; the closed set ``rec`` is replaced by a larger one when a budget
        needs it, and the piece list ``piece`` by a search's grown one (both kept)."""

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
        if st.dtype != np.int16 or st.shape != (self._size,):
            raise ValueError(
                f"SolverContext.run({self.spec.id}): need an int16 state array of shape "
                f"{(self._size,)}, got {st.dtype} {st.shape}"
            )
        actions: tuple[int, ...] = ()
        found_by = ""
        cards = int(st[self._fcards])
        if cards == N_CARDS:
            return ArraySolve("won", 1, N_CARDS, (), "")
        if limit == 0:
            return ArraySolve("lost", 1, cards, (), "")
        # pass 1: solve's, on the kept arrays
        status, used_nodes, line, _ = _rollout_pass(
            self.rollout, st, limit, self.flags, self.build, max(1, nodes // 2), _go_on
        )
        if status == WON:
            return ArraySolve("won", used_nodes, N_CARDS, tuple(line), "rollouts")
        cards = max(cards, int(self.rollout.nst[N_BEST_SCORE]))
        if used_nodes >= nodes:  # as solve's: the rollouts spent it all, no node for pass 2
            return ArraySolve("unknown", used_nodes, cards, (), "")
        # pass 2: solve's, on the kept arrays
        search = self._search(st, limit, nodes, used_nodes)
        status, _ = _search_pass(search, nodes, _go_on)
        self.search = self.search._replace(piece=search.ws.piece)  # grown, perhaps: kept
        used_nodes = search.nodes
        verdict: Status = "unknown"
        if status == WON:
            verdict, found_by, cards = "won", "search", N_CARDS
            actions = tuple(search.line())
        elif status == LOST:
            verdict = "lost"
        return ArraySolve(verdict, used_nodes, cards, actions, found_by)

    def _search(self, root: np.ndarray, limit: int, nodes: int, nodes_before: int) -> _Search:
        """A :class:`_Search` on the context's workspace, as ``_Search(...)`` would make it,
        with its closed set at its full size from the start (the first ``2**bits`` records
        of the kept ``rec``, zeroed; ``bits`` from the budget, as :func:`.solve` sizes it): it
        never grows."""
        bits = table_bits(nodes)
        if self.search.rec.shape[0] < 1 << bits:
            self.search = self.search._replace(rec=closed_set(bits))
        rec = self.search.rec[: 1 << bits]
        rec.fill(0)
        workspace = self.search._replace(rec=rec)
        return _Search(
            self.tables, root, limit, self.flags, self.build, nodes, nodes_before, workspace
        )


def _go_on() -> str:
    """A context's solves have no seconds cap and no stop: never out of time."""
    return ""
