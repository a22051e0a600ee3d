"""The compiled kernels on the packed state (:mod:`fortythieves_env.core`) without an
observation: ``legal_actions``, ``apply``, the copy, ``position_hash`` and
``canonical_hash``; the engine (:class:`Rules`) is the reference."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import fortythieves_env.envs.backends as backends_module
from fortythieves_env import VARIANTS, GameState, VariantSpec
from fortythieves_env.rules.engine import rules_for

pytestmark = pytest.mark.skipif(not backends_module._HAVE_NUMBA, reason="numba is not installed")

if backends_module._HAVE_NUMBA:
    from fortythieves_env.rules import core

WIDE = VariantSpec(
    "Wide", "Wide Forty", n_columns=12, face_down=1, face_up=3,
    build="other_suit", sequence_moves=True, deal_count=2, redeals=1,
)  # fmt: skip
SPECS: list[str | VariantSpec] = [*VARIANTS, WIDE]


def spec_of(variant: str | VariantSpec) -> VariantSpec:
    return variant if isinstance(variant, VariantSpec) else VARIANTS[variant]


def key(state: GameState) -> tuple[Any, ...]:
    """Everything a :class:`GameState` holds, hashable."""
    return (
        tuple(map(tuple, state.tableau)),
        tuple(state.face_down),
        tuple(state.stock),
        tuple(state.waste),
        tuple(state.foundations),
        state.redeals_left,
        state.foundation_cards,
    )


def canonical_key(state: GameState) -> tuple[Any, ...]:
    """:func:`key` with the columns (and their face-down counts) sorted."""
    columns = sorted(zip(map(tuple, state.tableau), state.face_down, strict=True))
    return (tuple(columns), *key(state)[2:])


def random_play(variant: str | VariantSpec, seed: int, games: int, steps: int) -> list[GameState]:
    """Positions of random legal play by the engine (deal, then up to ``steps`` moves)."""
    rules = rules_for(spec_of(variant))
    rng = np.random.default_rng(seed)
    seen = []
    for _ in range(games):
        state = rules.deal(rng)
        seen.append(state.copy())
        for _ in range(steps):
            legal = rules.legal_actions(state)
            if not legal:
                break
            rules.apply(state, legal[int(rng.integers(len(legal)))])
            seen.append(state.copy())
    return seen


# ---------------------------------------------------------------------- legal_actions, apply
@pytest.mark.parametrize("variant", SPECS, ids=lambda v: getattr(v, "id", v))
def test_legal_actions_and_apply_match_the_engine(variant: str | VariantSpec) -> None:
    """Random masked play: the compiled legal set is the engine's (ascending, each once),
    ``apply`` leaves the engine's position and returns its card count, at every move."""
    spec = spec_of(variant)
    rules, tables = rules_for(spec), core.tables_for(spec)
    tb = tables.table
    rng = np.random.default_rng(7)
    out = np.full(rules.n_actions, -5, dtype=np.int64)
    out32 = np.zeros(rules.n_actions + 3, dtype=np.int32)  # a longer int32 buffer works too
    obs = np.zeros(2048, dtype=np.uint8)
    mask = np.zeros(rules.n_actions, dtype=np.int8)
    moves = foundation_moves = 0
    for _ in range(4):
        state = rules.deal(rng)
        st = tables.pack(state)
        for _ in range(250):
            expected = sorted(rules.legal_actions(state))
            count = core.legal_actions(st, tb, out)
            assert out[:count].tolist() == expected  # the same set, ascending, no repeats
            assert core.legal_actions(st, tb, out32) == count
            assert out32[:count].tolist() == expected
            assert core.refresh(st, tb, obs, mask) == count  # the mask: same generator
            assert np.flatnonzero(mask).tolist() == expected
            if not count:
                break
            action = int(out[int(rng.integers(count))])
            cards = core.apply(st, tb, action)
            assert cards == rules.apply(state, action)
            assert tables.unpack(st) == state
            assert np.array_equal(st, tables.pack(state))  # freed slots are 0 again
            moves += 1
            foundation_moves += cards
    assert moves > 300 and foundation_moves > 0


def test_the_kernels_refuse_what_would_write_out_of_bounds() -> None:
    spec = VARIANTS["NumberTen"]
    rules, tables = rules_for(spec), core.tables_for(spec)
    st = tables.pack(rules.deal(np.random.default_rng(0)))
    before = st.copy()
    with pytest.raises(ValueError, match="out is shorter than n_actions"):
        core.legal_actions(st, tables.table, np.zeros(rules.n_actions - 1, dtype=np.int64))
    for action in (-1, rules.n_actions):
        with pytest.raises(ValueError, match=r"action is outside range\(n_actions\)"):
            core.apply(st, tables.table, action)
    assert np.array_equal(st, before)


def test_a_copy_is_independent() -> None:
    """A state array is a plain ``int16`` row: ``st.copy()`` (or row assignment into a
    batch) is the copy; playing one never changes the other."""
    spec = VARIANTS["FortyThieves"]
    rules, tables = rules_for(spec), core.tables_for(spec)
    state = rules.deal(np.random.default_rng(3))
    st = tables.pack(state)
    batch = np.zeros((2, tables.state_size), dtype=np.int16)
    batch[1] = st
    copy = st.copy()
    out = np.zeros(rules.n_actions, dtype=np.int64)
    assert core.legal_actions(st, tables.table, out) > 0
    core.apply(copy, tables.table, int(out[0]))
    core.apply(batch[1], tables.table, int(out[0]))
    assert tables.unpack(st) == state
    assert np.array_equal(batch[1], copy) and not np.array_equal(copy, st)
    assert not batch[0].any()


# ---------------------------------------------------------------------- hashes
def hashes(variant: str | VariantSpec, state: GameState) -> tuple[int, int]:
    tables = core.tables_for(spec_of(variant))
    st = tables.pack(state)
    return int(core.position_hash(st, tables.table)), int(core.canonical_hash(st, tables.table))


@pytest.mark.parametrize("variant", ["FortyThieves", "NumberTen", "LittleForty", "Lucas"])
def test_hashes_are_equal_exactly_for_equal_positions(variant: str) -> None:
    """Over random play (alternate-colour and sequence play revisits positions): equal
    positions have equal hashes, different positions different ones; the canonical hash
    likewise for positions up to the column order."""
    states = random_play(variant, seed=11, games=3, steps=400)
    by_hash: dict[int, tuple] = {}
    by_canonical: dict[int, tuple] = {}
    for state in states:
        exact, canonical = hashes(variant, state)
        assert by_hash.setdefault(exact, key(state)) == key(state)
        assert by_canonical.setdefault(canonical, canonical_key(state)) == canonical_key(state)
    distinct = {key(s) for s in states}
    assert len(by_hash) == len(distinct)
    assert len(by_canonical) == len({canonical_key(s) for s in states})
    assert len(distinct) < len(states)  # some positions were reached twice


@pytest.mark.parametrize("variant", ["FortyThieves", "Maria", "NumberTen", "LittleForty"])
def test_different_move_orders_reach_the_same_hash(variant: str) -> None:
    """Two moves played in either order: when the engine reaches the same position both
    ways, the compiled ``apply`` does too and the hashes agree."""
    spec = VARIANTS[variant]
    rules, tables = rules_for(spec), core.tables_for(spec)
    tb = tables.table
    found = 0
    for state in random_play(variant, seed=5, games=3, steps=150)[::2]:
        legal = rules.legal_actions(state)
        for a in legal:
            for b in legal:
                if a >= b:
                    continue
                one, two = tables.pack(state), tables.pack(state)
                core.apply(one, tb, a)
                core.apply(two, tb, b)
                if not (
                    rules.is_legal(tables.unpack(one), b) and rules.is_legal(tables.unpack(two), a)
                ):
                    continue
                core.apply(one, tb, b)
                core.apply(two, tb, a)
                if tables.unpack(one) != tables.unpack(two):
                    continue  # e.g. two cards of a kind onto one pile: different positions
                assert np.array_equal(one, two)
                assert core.position_hash(one, tb) == core.position_hash(two, tb)
                assert core.canonical_hash(one, tb) == core.canonical_hash(two, tb)
                found += 1
    assert found >= 10, found


def test_a_changed_position_changes_the_hash() -> None:
    """A few small changes, each to one part the hash covers."""
    spec = VARIANTS["LittleForty"]  # face-down cards (none here: 0), redeals, draw 3
    base = rules_for(spec).deal(np.random.default_rng(4))
    base.face_down[0] = 2  # make the column's bottom two cards face down (still a position)
    changes = {
        "stock order": lambda s: s.stock.__setitem__(slice(-2, None), s.stock[-1:-3:-1]),
        "a card from the stock to the waste": lambda s: s.waste.append(s.stock.pop()),
        "the top cards of two columns": lambda s: (
            s.tableau[0].append(s.tableau[1].pop()),
            s.tableau[1].append(s.tableau[0].pop(-2)),
        ),
        "a face-down count": lambda s: s.face_down.__setitem__(0, 1),
        "the redeals left": lambda s: setattr(s, "redeals_left", s.redeals_left - 1),
        "a foundation height": lambda s: s.foundations.__setitem__(0, 1),
        "a column's order": lambda s: s.tableau[2].reverse(),
    }
    exact0, canonical0 = hashes(spec, base)
    for name, change in changes.items():
        state = base.copy()
        change(state)
        assert state != base, name
        exact, canonical = hashes(spec, state)
        assert exact != exact0, name
        assert canonical != canonical0, name


@pytest.mark.parametrize("variant", ["FortyThieves", "RankAndFile", "Lucas"])
def test_the_canonical_hash_ignores_the_column_order(variant: str) -> None:
    rng = np.random.default_rng(2)
    c = VARIANTS[variant].n_columns
    for state in random_play(variant, seed=3, games=1, steps=300)[::15]:
        exact, canonical = hashes(variant, state)
        order = rng.permutation(c).tolist()
        swapped = state.copy()
        swapped.tableau = [state.tableau[i][:] for i in order]
        swapped.face_down = [state.face_down[i] for i in order]
        assert hashes(variant, swapped)[1] == canonical
        assert (hashes(variant, swapped)[0] == exact) == (swapped == state)
        # two equal columns do not cancel out (a sum, not XOR)
        doubled = state.copy()
        doubled.tableau[1] = doubled.tableau[0][:]
        doubled.face_down[1] = doubled.face_down[0]
        if state.tableau[0]:
            emptied = state.copy()
            emptied.tableau[0], emptied.tableau[1] = [], []
            emptied.face_down[0] = emptied.face_down[1] = 0
            assert hashes(variant, doubled)[1] != hashes(variant, emptied)[1]


def test_a_whole_column_into_an_empty_one_keeps_the_canonical_hash() -> None:
    """The move the engine allows that only reorders the columns (engine.py's decisions)."""
    spec = VARIANTS["FortyThieves"]
    rules, tables = rules_for(spec), core.tables_for(spec)
    state = rules.deal(np.random.default_rng(0))
    # column 0 keeps its top card, column 1 is empty (the other cards go to the waste: the
    # stock's 64 slots are full)
    state.waste.extend(state.tableau[0][:-1] + state.tableau[1])
    state.tableau[0], state.tableau[1] = state.tableau[0][-1:], []
    st = tables.pack(state)
    exact, canonical = core.position_hash(st, tables.table), core.canonical_hash(st, tables.table)
    core.apply(st, tables.table, rules.move_to_action("t0>t1"))
    assert tables.unpack(st).tableau[:2] == [[], state.tableau[0]]
    assert core.canonical_hash(st, tables.table) == canonical
    assert core.position_hash(st, tables.table) != exact


def test_the_hashes_do_not_read_unused_slots() -> None:
    spec = VARIANTS["Maria"]
    tables = core.tables_for(spec)
    state = rules_for(spec).deal(np.random.default_rng(1))
    st = tables.pack(state)
    exact, canonical = core.position_hash(st, tables.table), core.canonical_hash(st, tables.table)
    dirty = st.copy()
    dirty[tables.slots - 1] = 7  # beyond column 0's cards
    dirty[tables.waste0 + 5] = 9  # beyond the (empty) waste
    assert core.position_hash(dirty, tables.table) == exact
    assert core.canonical_hash(dirty, tables.table) == canonical


def test_one_compiled_specialization_for_every_variant() -> None:
    for variant in SPECS:
        spec = spec_of(variant)
        rules, tables = rules_for(spec), core.tables_for(spec)
        st = tables.pack(rules.deal(np.random.default_rng(0)))
        out = np.zeros(rules.n_actions, dtype=np.int64)
        n = core.legal_actions(st, tables.table, out)
        core.apply(st, tables.table, int(out[n - 1]))
        core.position_hash(st, tables.table)
        core.canonical_hash(st, tables.table)
    for kernel in (core.apply, core.position_hash, core.canonical_hash):
        assert len(kernel.signatures) == 1, kernel
