"""The solver's public API: :func:`solve` and its :class:`SolveResult`, the limits it takes,
and how it runs its three passes (:mod:`.rollout`, the beam of :mod:`.beam`,
:mod:`.search`) on one node budget.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ..rules.cards import N_CARDS
from ..rules.checks import INT64_MAX, checked_int
from ..rules.core import tables_for
from ..rules.engine import InvalidPositionError, rules_for
from ..rules.state import GameState
from ..rules.variants import VariantSpec, get_variant
from .beam import DONE as BEAM_DONE
from .beam import WON as BEAM_WON
from .beam import Beam
from .pruning import (
    _BUILD_CODE,
    RULES,
    rule_flags,
)
from .rollout import _rollout_pass
from .search import _CHUNK, LOST, RUNNING, WON, _Search
from .workspace import rollout_workspace

Status = Literal["won", "lost", "unknown"]

SOLVER_VERSION = 5
"""The version of the search's results (2: the rollout pass before the search; 3: the
closed set settles positions "at all" with lowlinks, Zobrist keys updated by the move,
a table sized from the budget up to ``2**26`` records; 4: a beam search ordered by progress
(:mod:`.beam`) between the rollout pass, now at most 1/8 of the budget, and the
depth-first search, which keeps at least 3/8; 5: the beam widens up to 2**16 positions
instead of 2**14, :data:`.beam.MAX_WIDTH`): bumped
whenever a change could give another verdict, line or node count for the same input (move
order, pruning rules, table size, node counting).
Saved results (``fortythieves solve``) are keyed by it, so results of an older search are
never mixed with newer ones."""

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
        rules: the pruning rules used (names from :data:`~.pruning.ALL_RULES`).
        stopped_by: for ``unknown``, what ran out: ``"nodes"``, ``"seconds"`` or
            ``"stop"`` (the ``should_stop`` callback); else ``""``.
        found_by: for ``won``, the pass that found the line: ``"rollouts"``,
            ``"beam"`` or ``"search"``; else ``""``.
        proof: for ``lost``, what the proof needed, checkable by a search without
            pruning on small positions (``tests/env/test_solver.py``): ``positions`` stored
            in the closed set, ``re_searched`` (entered again with more steps left),
            ``not_stored`` (the table was full: each counted as cut), ``deepest`` (the
            longest line the search entered), ``no_win_at_all`` (True: the step limit
            never bit, so no line wins at any length) and ``dead`` (positions rule ``D``
            settled without entering them, :mod:`.dead`; 0 without it); with :attr:`rules` and
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
    out_of_time: Callable[[], str],
) -> tuple[int, int, list[int], str, str]:
    """:func:`solve`'s passes 1 and 2 (rollouts, at most 1/8 of ``nodes``, half without the
    beam; then the beam, up to 5/8 in all): ``(status, nodes used, winning actions,
    stopped_by, found_by)``, status ``WON`` or ``RUNNING`` (nothing proved)."""
    share = nodes // 8 if beam else nodes // 2
    status, used, actions, stopped_by = _rollout_pass(
        rollout_workspace(tables, step_limit), root, step_limit, flags, build, max(1, share),
        out_of_time,
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
    """:func:`solve`'s third pass: ``search`` run in chunks of :data:`_CHUNK` nodes until
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
            :func:`~fortythieves_env.rules.positions.from_position`) or a :class:`GameState`
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
        rules: which pruning rules to use (a subset of :data:`~.pruning.ALL_RULES`: ``"F"``,
            ``"W"``, ``"E"``, and ``"D"``, dead positions, not a default); fewer rules give the
            same verdicts, more slowly (for tests).
        should_stop: called between chunks of nodes; returning True stops the search
            (``unknown``, ``stopped_by="stop"``).
        rollouts: run the win-finding passes first (the rollout pass, then the beam
            search: module docstring); False: the depth-first search only (for tests; the
            verdicts ``won``/``lost`` never differ where both finish, only how soon a win
            is found).
        beam: with ``rollouts``, run the beam search (:mod:`.beam`) between the rollout
            pass and the depth-first search (version 4); False: version 3's two passes,
            with the rollout pass's share of the budget as then (half), which
            :class:`~.context.SolverContext` runs.
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
    root = tables.pack(state)
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
    if state.foundation_cards == N_CARDS:
        status, used_nodes = WON, 1
    elif step_limit == 0:
        status, used_nodes = LOST, 1  # not won, and no move may be made
    if status == RUNNING and rollouts:  # passes 1 and 2: rollouts, then the beam
        status, used_nodes, actions, stopped_by, found_by = _win_finding(
            tables, root, step_limit, flags, build, nodes, beam, out_of_time
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
        "dead": 0,
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
