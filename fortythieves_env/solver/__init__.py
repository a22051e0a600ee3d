"""A clairvoyant solver: search for a winning line from a position with every card known.

**Clairvoyant.** The solver reads the whole position, face-down cards and the stock's
order included, which a player cannot see. Its verdict says what the *deal* allows, not
what a player who sees only :func:`~fortythieves_env.rules.view.player_view` can achieve.

:func:`solve` answers with a :class:`SolveResult`:

* ``"won"``: ``moves`` is a winning line in the rule book's move notation, every move
  counted (forced ones too), no longer than the step limit; :func:`solve` replays it with
  :meth:`Rules.play` before answering, so a ``won`` line is always legal and wins.
* ``"lost"``: the search space is exhausted: **no line wins within the step limit** from
  this position (the remaining steps of the episode; by default the variant's
  ``max_episode_steps``). The argument is in :func:`.search._search`'s docstring.
* ``"unknown"``: the node budget (or the seconds cap, or a caller's stop) ran out first.

Three passes (compiled with numba, on the packed state arrays of :mod:`..core`), one node
budget: every position entered counts one node, in every pass.

1. **Rollouts** (:func:`.rollout._nested`, at most 1/8 of the budget; half with
   ``beam=False``): a one-level nested greedy rollout search that sees every card. From the
   current position of its line it tries every child (:func:`.pruning._children`, same rules
   and order), plays a greedy rollout from each (:func:`.rollout._rollout`: always the first
   child that repeats no position of the line or of the rollout) and keeps the best sequence so
   far (most foundation cards at its end; the first on ties); it then plays the first move of
   that sequence and goes on (the best sequence is kept, so the line's outcome never gets
   worse). A rollout that wins ends the pass with the line plus the rollout: a real winning
   line (replayed like any other). The pass ends without a win when its line cannot go on; it
   **never proves ``lost``**. On Number Ten and Rank and File it finds most of the wins (at
   10**6 nodes, 15/20 and 12/20 test deals against 6/20 and 3/20 for the search alone).
2. **Beam** (:class:`.beam.Beam`, up to 5/8 of the budget in all; version 4): iteratively
   widened beam searches ordered by progress (foundation cards, cards turned up, empty
   columns, the waste's length, ...), for the wins in spaces the depth-first search does
   not finish. It never proves ``lost`` either.
3. **Search** (:func:`.search._search`, the rest of the budget): depth-first with an explicit
   stack and a transposition table (the *closed set*) keyed by the position up to the
   column order (two 64-bit Zobrist keys, updated by each move: :func:`..rules.keys._child_keys`).
   An entry keeps the largest number of remaining steps with which its position was
   searched, or **"no line wins at all"** when the position's whole search never met the
   step limit (Tarjan's lowlinks settle the positions of a cycle together: see
   :func:`.search._search`); a position is searched again only with more steps left, and never
   once it is settled "at all". Children are tried in a fixed order by a cheap score
   (:func:`.pruning._score`), each child's key probed before the child is made. Only this pass
   proves ``lost`` (its stack empties: the search was exhaustive); the result then says
   what the proof needed (:attr:`SolveResult.proof`).

Every pass is deterministic: the node budget is the figure of record (equal inputs, equal
answer, line and node count), ``seconds`` only a cap.

Pruning rules (each proven safe for two decks in its function's docstring; "safe" means:
if some line wins within ``k`` steps, one that obeys the rule wins within ``k`` steps too):

* ``F`` (:func:`.pruning._safe_foundation`): a foundation move that cannot hurt is played at once,
  as the only child.
* ``W`` (:func:`.pruning._children`): never move a whole column into an empty column.
* ``E`` (:func:`.pruning._children`): of the moves that differ only in which empty column they
  fill, keep the one into the first empty column.
* ``D`` (:mod:`.dead`, not a default: ``rules=ALL_RULES``): a position that a relaxation
  shows dead (some card off the foundations could never go up) is settled "no line wins at
  all" without being entered. Sound by its own argument (:mod:`.dead`), not by the safety
  above; it shortens proofs of loss, at about 4x the time of a node where it does not.

The proofs follow ``docs/solver_design.md`` (sections 2 and 4); the tests check every rule
against a search without it, and both against a plain breadth-first search, on small end
positions of every build rule.

The package by role:

* :mod:`.api`: :func:`solve`, :class:`SolveResult`, the limits (:data:`MAX_NODES`,
  :data:`MAX_STEP_LIMIT`), :data:`SOLVER_VERSION`, and how the passes share the budget;
* :mod:`.rollout`: pass 1, the compiled nested rollouts;
* :mod:`.search`: pass 3, the compiled depth-first search and one run of it (``_Search``);
* :mod:`.workspace`: the arrays each compiled pass runs on, one named tuple per pass,
  allocated there only (by :func:`.solve`, the beam and :class:`SolverContext`);
* :mod:`.context`: :class:`SolverContext`, many small solves on arrays allocated once;
* :mod:`.pruning`: the pruning rules and the children's order;
* :mod:`.beam`: pass 2, the beam searches;
* beside it, in the rules package, :mod:`fortythieves_env.rules.keys` (the closed set's
  Zobrist keys).

``from fortythieves_env.solver import X`` works for every name the single module
``solver.py`` offered until the split (issue 38), the private ones the tests and
benchmarks read included.
"""

from __future__ import annotations

from ..rules.keys import _child_keys as _child_keys
from ..rules.keys import _full_keys as _full_keys
from ..rules.keys import key_tables_for as key_tables_for
from .api import MAX_NODES, MAX_STEP_LIMIT, SOLVER_VERSION, SolveResult, Status, solve
from .context import ArraySolve, SolverContext
from .pruning import ALL_RULES, RULES, build_code, pruned_moves
from .pruning import _children as _children
from .rollout import _nested as _nested
from .search import FINAL as FINAL
from .search import INF as INF
from .search import LOST as LOST
from .search import MAX_TABLE_BITS
from .search import RUNNING as RUNNING
from .search import WON as WON
from .search import _Search as _Search
from .search import _search as _search

__all__ = [
    "ALL_RULES",
    "MAX_NODES",
    "MAX_STEP_LIMIT",
    "MAX_TABLE_BITS",
    "RULES",
    "SOLVER_VERSION",
    "ArraySolve",
    "SolveResult",
    "SolverContext",
    "Status",
    "build_code",
    "pruned_moves",
    "solve",
]
