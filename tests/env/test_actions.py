"""The action codec: one formula for the action index, and every index checked."""

from __future__ import annotations

import numpy as np
import pytest

from fortythieves_env import VARIANTS, FortyThievesEnv, Rules
from fortythieves_env.rules import core as fast
from fortythieves_env.rules.actions import (
    COLUMN_TO_COLUMN,
    COLUMN_TO_FOUNDATION,
    DRAW,
    REDEAL,
    WASTE_TO_COLUMN,
    WASTE_TO_FOUNDATION,
    Move,
    codec_for,
)


def _bad_indices(n: int) -> list[tuple[object, str]]:
    out_of_range = rf"action {{}} is outside 0\.\.{n - 1}"
    return [
        (-1, out_of_range.format(-1)),
        (-n, out_of_range.format(-n)),
        (n, out_of_range.format(n)),
        (np.int64(-1), out_of_range.format(-1)),
        (True, "an action is an integer, got True"),
        (np.bool_(False), "an action is an integer, got "),
        (1.0, "an action is an integer, got 1.0"),
        (b"0", "an action is an integer, got b'0'"),
        (None, "an action is an integer, got None"),
    ]


@pytest.mark.parametrize("variant", ["Streets", "NumberTen"])
def test_every_method_taking_an_action_refuses_a_bad_index(variant: str) -> None:
    """Issue 7.6: ``decode(-1)``, ``is_legal(state, -1)`` and ``why_illegal(state, -1)``
    answered for the last action; every index is now checked, with the range named."""
    rules = Rules(variant)
    state = rules.deal(np.random.default_rng(0))
    before = rules.to_position(state)
    n = rules.n_actions
    for bad, message in _bad_indices(n):
        for call in (
            lambda a: rules.decode(a),
            lambda a: rules.is_legal(state, a),
            lambda a: rules.why_illegal(state, a),
            lambda a: rules.apply(state, a),
            lambda a: rules.play(state, a),
            lambda a: rules.action_to_move(a),
            lambda a: rules.codec.decode(a),
        ):
            with pytest.raises(ValueError, match=message):
                call(bad)
    assert rules.to_position(state) == before  # nothing was played
    # in range, NumPy integers are fine
    assert rules.decode(np.int64(n - 1)) == rules.decode(n - 1)
    assert rules.is_legal(state, np.int32(0)) is True  # draw on a fresh deal


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_encode_is_the_documented_formula_and_decode_its_inverse(variant: str) -> None:
    spec = VARIANTS[variant]
    codec = codec_for(spec)
    c, m = spec.n_columns, spec.max_move
    assert codec.n_actions == 3 + 2 * c + c * (c - 1) * m
    assert codec.encode(DRAW) == 0 and codec.encode(REDEAL) == 1
    assert codec.encode(WASTE_TO_FOUNDATION) == 2
    for j in range(c):
        assert codec.encode(WASTE_TO_COLUMN, destination=j) == 3 + j == codec.waste_to_column[j]
    for i in range(c):
        assert codec.encode(COLUMN_TO_FOUNDATION, source=i) == 3 + c + i
        for j in range(c):
            if j == i:
                assert codec.column_to_column[i][j] == -1
                continue
            for n in range(1, m + 1):
                a = 3 + 2 * c + (i * (c - 1) + (j if j < i else j - 1)) * m + (n - 1)
                assert codec.encode(COLUMN_TO_COLUMN, i, j, n) == a
                assert codec.column_to_column[i][j] + n - 1 == a
    for a in range(codec.n_actions):
        move = codec.decode(a)
        assert isinstance(move, Move)
        assert codec.encode(*move) == a
        assert codec.from_move(codec.to_move(a)) == a


def test_encode_refuses_moves_that_have_no_action() -> None:
    codec = codec_for(VARIANTS["Streets"])
    for fields in [(COLUMN_TO_COLUMN, 2, 2, 1), (COLUMN_TO_COLUMN, 0, 1, 2), (WASTE_TO_COLUMN, -1, 10, 1), (9, -1, -1, 1)]:  # fmt: skip
        with pytest.raises(ValueError, match="no action of Streets is Move"):
            codec.encode(*fields)


@pytest.mark.parametrize("variant", ["FortyThieves", "LittleForty", "Lucas"])
def test_the_compiled_kernels_take_the_codecs_decode_table(variant: str) -> None:
    spec = VARIANTS[variant]
    tables = fast.tables_for(spec)
    start = int(tables.table[fast.H_DECODE])
    n = codec_for(spec).n_actions  # the decode table: 4 entries per action (the taken part follows)
    decode = tables.table[start : start + 4 * n].reshape(-1, 4)
    assert decode.tolist() == [list(move) for move in codec_for(spec).table]


def test_the_env_step_still_names_the_action_space() -> None:
    env = FortyThievesEnv("Streets")
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"action -1 is outside the action space Discrete\(113\)"):
        env.step(-1)
    with pytest.raises(ValueError, match=r"action -1 is outside 0\.\.112"):
        env.action_to_move(-1)
