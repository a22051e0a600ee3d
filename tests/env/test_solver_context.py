"""The solver's reusable context (issue 25, point 1): many small solves on kept arrays give
exactly :func:`~fortythieves_env.solver.solve`'s status, node count and line."""

from __future__ import annotations

import contextlib
from collections import Counter
from typing import Any

import pytest
from positions import position, random_walk

from fortythieves_env import VARIANTS
from fortythieves_env.rules.core import tables_for
from fortythieves_env.rules.engine import InvalidPositionError, rules_for
from fortythieves_env.solver import SolverContext, solve

# foundations at 5 everywhere, the rest in the stock (tests/agents/players/test_search.py)
LOW = [[r + s for r in "A2345"] for s in "CDHS" for _ in range(2)]


def _positions(variant: str) -> list[dict[str, Any]]:
    """Deal starts and random play of ``variant``, and two small end positions."""
    out = [
        env.get_state()
        for k, (env, _obs) in enumerate(random_walk(variant, 2, 90, 4))
        if k % 30 == 0
    ]
    ends = [
        position(variant, [["9C", "8H"], ["9S"], ["TD"]], foundations=LOW),
        position(variant, [["KC"], ["QD"], ["KH"]], stock=None),
    ]
    for pos in ends:
        with contextlib.suppress(InvalidPositionError):  # Lucas deals its Aces up
            rules_for(VARIANTS[variant]).from_position(pos)
            out.append(pos)
    return out


@pytest.mark.parametrize("variant", ["NumberTen", "Indian", "LittleForty", "Lucas", "FortyThieves"])
def test_the_context_solves_as_solve_does(variant: str) -> None:
    """One context for every position, budget and step limit in turn (so each run starts
    from arrays a previous, larger or smaller, run left behind)."""
    spec = VARIANTS[variant]
    rules = rules_for(spec)
    tables = tables_for(spec)
    context = SolverContext(spec)
    statuses: Counter[str] = Counter()
    for k, pos in enumerate(_positions(variant)):
        state = rules.from_position(pos)
        for nodes, limit in ((1_000, None), (20_000, 300), (3_000, 40), (5, None), (1, None)):
            expected = solve(pos, nodes=nodes, step_limit=limit, beam=False)
            got = context.run(tables.pack(state), nodes, limit)
            where = f"position {k}, {nodes} nodes, limit {limit}"
            assert got.status == expected.status, where
            assert got.nodes == expected.nodes, where
            assert tuple(rules.codec.to_move(a) for a in got.actions) == expected.moves, where
            assert got.found_by == expected.found_by, where
            assert (got.cards == 104) == (got.status == "won"), where
            statuses[got.status] += 1
    assert statuses["won"] and statuses["unknown"], statuses


def test_solve_and_the_context_compile_each_pass_once() -> None:
    """The passes on new workspaces (:func:`solve`'s; a closed set that doubles) and on a
    context's kept ones (the first records of its closed set) get workspaces of one numba
    type: each kernel has one specialization (issue 38; a read-only array where a writable
    one was, or another layout, would compile it again)."""
    from fortythieves_env.solver import beam, build_code, rollout, search
    from fortythieves_env.solver.pruning import rule_flags

    spec = VARIANTS["NumberTen"]
    tables = tables_for(spec)
    pos = _positions("NumberTen")[0]
    st = tables.pack(rules_for(spec).from_position(pos))
    _, flags = rule_flags(("F", "W", "E"), "test")
    grown = search._Search(tables, st, 1000, flags, build_code(spec), 10**6, 0)
    grown.run(100_000)
    assert grown.rec.shape[0] > 1 << search.FIRST_TABLE_BITS  # _rehash ran
    beam.Beam(tables, st, 1000, flags, build_code(spec)).run(5_000, 5_000)
    solve(pos, nodes=2_000)
    context = SolverContext(spec)
    for nodes in (1_000, 20_000):
        context.run(st, nodes)
    kernels = [search._enter_root, search._search, search._rehash, rollout._nested, beam._beam_run]
    assert [len(k.signatures) for k in kernels] == [1] * len(kernels)
