"""The compiled core against the oracle, and the empty-column rule as a change of the rules.

The package states the move rules once, in the compiled core that :class:`Rules`, both
environment backends, the vector environment, the solver and the agents call.
``tests/oracle.py`` restates them on plain lists from ``RULES.md``; here the two must agree
on every legal move and every effect, over random games of every variant, a wide custom one,
and two custom variants whose empty columns take only Kings (the change exercise of issue 27:
adding that rule touched the rule table and nothing else of the rules). The same comparison
over every member of every rule field is ``tests/env/test_rule_space.py``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import oracle
import pytest
from helpers import KINGS_FORTY, KINGS_ONLY, KINGS_TEN
from positions import position

from fortythieves_env import (
    VARIANTS,
    EmptyColumn,
    FortyThievesEnv,
    GameState,
    IllegalMoveError,
    VariantSpec,
)
from fortythieves_env.rules.engine import rules_for

WIDE = VariantSpec(
    "WideOracle", "Wide Forty", n_columns=12, face_down=1, face_up=3,
    build="other_suit", sequence_moves=True, deal_count=2, redeals=1,
)  # fmt: skip
"""A custom variant unlike any registered one (12 columns, draw 2, one redeal)."""


def random_game(
    spec: VariantSpec, rng: np.random.Generator, steps: int
) -> list[tuple[GameState, list[int], int]]:
    """A game of random legal moves (by the oracle), checking the core at every step:
    the positions, each position's legal actions (equal for both) and the move played."""
    rules = rules_for(spec)
    state = rules.deal(rng)
    twin = state.copy()
    seen = []
    for _ in range(steps):
        legal = oracle.legal_actions(spec, twin)
        assert rules.legal_actions(state) == legal, rules.to_position(state)
        if not legal:
            break
        action = legal[int(rng.integers(len(legal)))]
        seen.append((state.copy(), legal, action))
        assert rules.apply(state, action) == oracle.apply(spec, twin, action)
        assert state == twin
    return seen


@pytest.mark.parametrize("spec", [*VARIANTS.values(), WIDE], ids=lambda s: s.id)
def test_the_core_plays_the_oracles_games(spec: VariantSpec) -> None:
    """30 random games of up to 400 moves: the same legal actions in every position and
    the same position after every move, the sequence lengths alike."""
    rng = np.random.default_rng(sum(map(ord, spec.id)))
    rules = rules_for(spec)
    moves = 0
    for _ in range(30):
        game = random_game(spec, rng, 400)
        moves += len(game)
        for state, _, _ in game[::25]:
            for column in range(spec.n_columns):
                expected = oracle.sequence_length(spec, state, column)
                assert rules.sequence_length(state, column) == expected
    assert moves > 30 * 50


@pytest.mark.parametrize("spec", KINGS_ONLY, ids=lambda s: s.id)
def test_kings_only_both_backends_and_the_oracle_agree_on_100_games(spec: VariantSpec) -> None:
    """The change exercise: a Kings-only variant, 100 games of random legal moves, played
    by the oracle, the core through :class:`Rules`, and both environment backends side by
    side: the same legal moves, effects, observations and masks at every move. Moves into
    an empty column occur and carry Kings only."""
    rng = np.random.default_rng(5)
    rules = rules_for(spec)
    py, nb = FortyThievesEnv(spec, backend="python"), FortyThievesEnv(spec, backend="numba")
    into_empty = 0
    for game in range(100):
        obs_py, info_py = py.reset(seed=game)
        obs_nb, info_nb = nb.reset(seed=game)
        twin = rules.from_position(py.get_state())
        for _ in range(300):
            np.testing.assert_array_equal(obs_py, obs_nb)
            np.testing.assert_array_equal(info_py["action_mask"], info_nb["action_mask"])
            legal = oracle.legal_actions(spec, twin)
            assert np.flatnonzero(info_py["action_mask"]).tolist() == legal
            if not legal:
                break
            action = legal[int(rng.integers(len(legal)))]
            _, src, dst, n = rules.decode(action)
            if dst >= 0 and not twin.tableau[dst]:
                moved = twin.tableau[src][-n] if src >= 0 else twin.waste[-1]
                assert moved % 13 == 0  # a King (codes 13, 26, 39, 52)
                into_empty += 1
            oracle.apply(spec, twin, action)
            obs_py, r_py, term_py, trunc_py, info_py = py.step(action)
            obs_nb, r_nb, term_nb, trunc_nb, info_nb = nb.step(action)
            assert (r_py, term_py, trunc_py) == (r_nb, term_nb, trunc_nb)
            assert py.get_state() == nb.get_state() == rules.to_position(twin)
            if term_py or trunc_py:
                break
    assert into_empty > 20


def test_kings_only_empty_columns_in_a_hand_built_position() -> None:
    """Kings Ten: an empty column t9 takes the waste's King, a sequence whose first card is
    a King, not the waste's Queen or a sequence starting below a King; ``why_illegal`` says
    so. Number Ten itself (any card) takes them all."""
    pos = position(
        "NumberTen",
        [
            ["KS", "QH", "JC"],
            ["9D", "QD", "JS"],
            ["5C"],
            ["5D"],
            ["5H"],
            ["5S"],
            ["6C"],
            ["6D"],
            ["6H"],
        ],
        face_down=[0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
        waste=["QC"],
    )
    for spec, any_card in ((VARIANTS["NumberTen"], True), (KINGS_TEN, False)):
        rules = rules_for(spec)
        state = rules.from_position({**pos, "variant": spec.id})
        legal = set(rules.legal_actions(state))
        whole_king_run = rules.move_to_action("t0>t9x3")
        assert whole_king_run in legal  # KS-QH-JC: its first card is a King
        moved = {"w>t9": "QC", "t0>t9x2": "QH", "t0>t9": "JC", "t1>t9x2": "QD", "t1>t9": "JS"}
        for move, move_card in moved.items():
            action = rules.move_to_action(move)
            assert (action in legal) is any_card, (spec.id, move)
            reason = rules.why_illegal(state, action)
            if any_card:
                assert reason == ""
            else:
                assert reason == f"an empty column takes only a King here, not {move_card}", reason
                with pytest.raises(IllegalMoveError, match="only a King"):
                    rules.play(state.copy(), move)


@pytest.mark.parametrize("spec", [VARIANTS["NumberTen"], VARIANTS["Maria"], KINGS_FORTY])
def test_why_illegal_is_empty_exactly_for_the_cores_legal_moves(spec: VariantSpec) -> None:
    """In positions of random games, every action: ``why_illegal`` is ``""`` exactly for
    the legal ones and names a reason for each other; ``is_legal`` agrees."""
    rules = rules_for(spec)
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(3):
        for state, legal, _ in random_game(spec, rng, 300)[::20]:
            for action in range(rules.n_actions):
                reason = rules.why_illegal(state, action)
                assert (reason == "") is (action in legal) is rules.is_legal(state, action)
                checked += 1
    assert checked > 1000


def test_an_unknown_empty_column_rule_is_refused_in_one_line() -> None:
    with pytest.raises(
        ValueError, match=r"unknown empty_column rule 'queens'; choose from any, kings"
    ):
        dataclasses.replace(KINGS_FORTY, empty_column="queens")
    assert KINGS_FORTY.empty_column is EmptyColumn.KINGS
    assert VARIANTS["FortyThieves"].empty_column is EmptyColumn.ANY


@pytest.mark.parametrize(
    ("columns", "stock", "message"),
    [
        ([[53]] + [[]] * 9, [], "card codes must be 0..52"),
        ([[-1]] + [[]] * 9, [], "card codes must be 0..52"),
        ([[32000]] + [[20]] * 9, [], "card codes must be 0..52"),
        ([[5]] * 9, [], "the state has 9 columns, the variant 10"),
        ([[1]] + [[]] * 9, [2] * 65, "the stock and the waste hold at most 64 cards each"),
    ],
)
def test_a_state_that_does_not_fit_the_core_is_refused(
    columns: list[list[int]], stock: list[int], message: str
) -> None:
    """Hand-made states reach the compiled core only through a checked packing: a bad card
    code or a state of another shape is a ``ValueError``, never a read outside its tables."""
    rules = rules_for(VARIANTS["FortyThieves"])
    state = GameState([list(c) for c in columns], [0] * len(columns), stock, [], [0] * 8, 0, 0)
    for call in (
        rules.legal_actions,
        lambda s: rules.apply(s, 0),
        lambda s: rules.why_illegal(s, 2),
    ):
        with pytest.raises(ValueError, match=message):
            call(state)
    with pytest.raises(ValueError, match=r"column must be an integer 0\.\.9, got 2\.0"):
        rules.sequence_length(rules.deal(np.random.default_rng(0)), 2.0)  # type: ignore[arg-type]
