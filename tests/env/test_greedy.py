"""The greedy rule (:mod:`fortythieves_env.rules.greedy`): the compiled kernel scores every legal
move as the Python reference does, and an observation read back into a state array
(:func:`fortythieves_env.core.observed_state`) is the position with its hidden cards 0."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import oracle
import pytest
from positions import position, random_walk

from fortythieves_env import VARIANTS, Rules
from fortythieves_env.rules import greedy as g
from fortythieves_env.rules.core import H_NACT, observed_state, tables_for
from fortythieves_env.rules.greedy import greedy_pick, greedy_score, move_score
from fortythieves_env.rules.view import player_view

ALL_VARIANTS = list(VARIANTS)

# Number Ten (alternate colour, sequences, 2 dealt face down); ## is a face-down card:
#   t0: ## 9H 8S    t1: TC    t2: 9D    t3: 6C    t4: ## ## 6H 5D    t5: 7H    t6: (empty)
#   t7: ## AH       t8: AC    t9: KH    waste: ... top as given; a stock to draw from
TABLEAU = [
    ["KC", "9H", "8S"], ["TC"], ["9D"], ["6C"], ["QD", "QH", "6H", "5D"], ["7H"], [],
    ["QS", "AH"], ["AC"], ["KH"],
]  # fmt: skip
FACE_DOWN = [1, 0, 0, 0, 2, 0, 0, 1, 0, 0]


def numberten(waste: list[str]) -> dict[str, Any]:
    return position("NumberTen", TABLEAU, face_down=FACE_DOWN, waste=waste)


REDEAL_POSITION = position(
    "LittleForty",
    [["KC"], ["KC"], ["KD"], ["KD"], ["KH"], ["KH"], ["KS"], ["KS"]],
    stock=[],
    waste=["QH", "JH"],
    redeals_left=1,
)

# Every row of the score table of fortythieves_env.rules.greedy, each on a position where it is legal.
SCORES = [
    (numberten(["AS"]), "w>f", 100.0),  # a card to a foundation: from the waste
    (numberten(["KD"]), "t8>f", 100.0),  # ... from a column, nothing turned up
    (numberten(["KD"]), "t7>f", 105.0),  # ... and turning up a face-down card
    (numberten(["KD"]), "t0>t1x2", 80.0),  # turns up the face-down card under 9H
    (numberten(["KD"]), "t3>t5", 70.0),  # 6C onto 7H empties its column
    (numberten(["8C"]), "w>t2", 60.0),  # the waste top onto a non-empty column
    (numberten(["KD"]), "t4>t3", 40.0),  # 5D onto 6C frees 6H (5D did not sit on a build)
    (numberten(["KD"]), "w>t6", 25.0),  # a King from the waste into an empty column
    (numberten(["KD"]), "draw", 10.0),
    (REDEAL_POSITION, "redeal", 8.0),
    (numberten(["8C"]), "w>t6", 5.0),  # any other waste card into an empty column
    (numberten(["KD"]), "t4>t6", 3.0),  # part of a column into an empty one, 5D not built on 6H
    (numberten(["KD"]), "t0>t2", -1.0),  # pointless: 8S already sits on 9H
    (numberten(["KD"]), "t5>t6", -1.0),  # pointless: a whole column into an empty column
]


@pytest.mark.parametrize(("pos", "move", "score"), SCORES, ids=[f"{m}={s}" for _, m, s in SCORES])
def test_every_score_of_the_table(pos: dict[str, Any], move: str, score: float) -> None:
    rules = Rules(pos["variant"])
    state = rules.from_position(pos)
    action = rules.move_to_action(move)
    assert rules.is_legal(state, action)
    assert move_score(action, player_view(rules, state), rules) == score
    assert oracle.greedy_move_score(action, player_view(rules, state), rules) == score
    tables = tables_for(rules.spec)
    assert greedy_score(tables.pack(state), tables.table, action) == score  # the compiled reader


def test_every_row_of_the_docstring_table_is_tested() -> None:
    table = g.__doc__.split("====  =====")[1]
    rows = {float(m) for m in re.findall(r"^ *(-?[0-9]+) {2,}", table, re.MULTILINE)}
    assert len(rows) == 11  # 100, 80, 70, 60, 40, 25, 10, 8, 5, 3, -1
    rows.add(105.0)  # written in the 100 row: "+5 if it comes from a column and turns up ..."
    assert rows == {score for _, _, score in SCORES}


def test_move_score_refuses_a_bad_action() -> None:
    rules = Rules("NumberTen")
    view = player_view(rules, rules.from_position(numberten(["KD"])))
    with pytest.raises(ValueError, match=r"action -1 is outside 0\.\.1192"):
        move_score(-1, view, rules)


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_the_compiled_score_of_every_legal_move_is_the_oracles(variant: str) -> None:
    spec = VARIANTS[variant]
    tables = tables_for(spec)
    tb = tables.table
    legal = np.empty(tb[H_NACT], dtype=np.int64)
    table_lines: set[float] = set()
    positions = 0
    for env, _obs in random_walk(variant, 3, 150, 4):
        st = tables.pack(env.rules.from_position(env.get_state()))
        view = env.player_view()
        actions = np.flatnonzero(env.action_masks())
        count = actions.size
        legal[:count] = actions
        scores = np.full(tb[H_NACT], np.nan)
        expected = {int(a): oracle.greedy_move_score(int(a), view, env.rules) for a in actions}
        assert {int(a): move_score(int(a), view, env.rules) for a in actions} == expected
        best = greedy_pick(st, tb, legal, count, scores)
        assert {int(a): scores[a] for a in actions} == expected
        assert {int(a): greedy_score(st, tb, int(a)) for a in actions} == expected
        assert np.isnan(np.delete(scores, actions)).all()  # only legal moves are written
        top = max(expected.values())
        assert best == min(a for a, s in expected.items() if s == top)  # lowest index on ties
        table_lines.update(expected.values())
        positions += 1
    assert positions > 200
    assert len(table_lines) >= 6


def test_greedy_pick_of_no_legal_move_is_minus_one() -> None:
    tables = tables_for(VARIANTS["Streets"])
    st = np.zeros(tables.state_size, dtype=np.int16)
    legal = np.zeros(int(tables.table[H_NACT]), dtype=np.int64)
    assert greedy_pick(st, tables.table, legal, 0, np.empty(0)) == -1


def test_the_score_table_orders_its_lines_as_documented() -> None:
    order = [
        g.S_TO_FOUNDATION_REVEALS, g.S_TO_FOUNDATION, g.S_REVEALS, g.S_EMPTIES_ONTO_CARD,
        g.S_WASTE_ONTO_CARD, g.S_BUILD_FREES, g.S_KING_TO_EMPTY, g.S_DRAW, g.S_REDEAL,
        g.S_WASTE_TO_EMPTY, g.S_PART_TO_EMPTY, g.S_POINTLESS,
    ]  # fmt: skip
    assert order == sorted(order, reverse=True) and len(set(order)) == len(order)


@pytest.mark.parametrize("version", [0, 1])
@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_an_observation_read_back_is_the_position_with_its_hidden_cards_zero(
    variant: str, version: int
) -> None:
    spec = VARIANTS[variant]
    tables = tables_for(spec, version)
    st = np.full(tables.state_size, -7, dtype=np.int16)  # every entry must be written
    known_stock = 0
    for env, obs in random_walk(variant, 2, 150, 9, version):
        state = env.rules.from_position(env.get_state())
        expected = tables.pack(state)
        view = env.player_view()
        # the observation shows the stock (next card first) only in version 1, after a redeal
        shown = version == 1 and view.stock is not None
        known_stock += shown and len(state.stock) > 0
        expected[tables.hidden_indices(view.face_down, 0 if shown else len(state.stock))] = 0
        observed_state(obs, tables.table, st)
        np.testing.assert_array_equal(st, expected)
    if variant == "LittleForty" and version == 1:
        assert known_stock > 10
