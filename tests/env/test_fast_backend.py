"""The numba backend plays exactly the games of the Python backend.

Two environments, ``backend="python"`` and ``backend="numba"``, are stepped side by side
with the same actions (legal and illegal ones) and must agree on everything at every step:
observation, reward, termination, info (mask included), ``get_state()`` and ``state``.
Both make their moves with the one compiled rules core (the Python backend through
:class:`Rules`), so this compares the rest: the observation writers, the state packing, the
episode logic; ``tests/env/test_rules_oracle.py`` checks the moves against an independent oracle.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from positions import position, shuffle_hidden

import fortythieves_env.envs.backends as backends_module
from fortythieves_env import (
    VARIANTS,
    FortyThievesEnv,
    IllegalMoveError,
    InvalidPositionError,
    VariantSpec,
)

pytestmark = pytest.mark.skipif(not backends_module._HAVE_NUMBA, reason="numba is not installed")

WIDE = VariantSpec(
    "Wide", "Wide Forty", n_columns=12, face_down=1, face_up=3,
    build="other_suit", sequence_moves=True, deal_count=2, redeals=1,
)  # fmt: skip
"""A custom variant unlike any registered one (12 columns, draw 2, one redeal)."""

SPECS: list[str | VariantSpec] = [*VARIANTS, WIDE]


def pair(variant: str | VariantSpec, **kwargs: Any) -> tuple[FortyThievesEnv, FortyThievesEnv]:
    return (
        FortyThievesEnv(variant, backend="python", **kwargs),
        FortyThievesEnv(variant, backend="numba", **kwargs),
    )


def assert_same_info(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a.keys() == b.keys()
    np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
    assert a["action_mask"].dtype == b["action_mask"].dtype == np.int8
    for key in a.keys() - {"action_mask"}:
        assert a[key] == b[key] and type(a[key]) is type(b[key]), key


def assert_same_env(py: FortyThievesEnv, nb: FortyThievesEnv) -> None:
    assert nb.get_state() == py.get_state()
    assert nb.state == py.state
    np.testing.assert_array_equal(nb._obs, py._obs)
    np.testing.assert_array_equal(nb.action_masks(), py.action_masks())
    assert nb.legal_moves() == py.legal_moves()
    fresh = np.zeros_like(nb._obs)
    nb.layout.write(nb.state, fresh)  # the compiled incremental writes match a full write
    np.testing.assert_array_equal(nb._obs, fresh)


def assert_same_reset(a: tuple, b: tuple) -> None:
    np.testing.assert_array_equal(a[0], b[0])
    assert a[0].dtype == b[0].dtype
    assert_same_info(a[1], b[1])


def assert_same_step(a: tuple, b: tuple) -> None:
    np.testing.assert_array_equal(a[0], b[0])
    assert a[0].dtype == b[0].dtype
    assert a[1] == b[1] and type(a[1]) is type(b[1])  # reward
    assert a[2:4] == b[2:4]  # terminated, truncated
    assert all(type(x) is bool for x in (*a[2:4], *b[2:4]))
    assert_same_info(a[4], b[4])


def play_side_by_side(
    py: FortyThievesEnv,
    nb: FortyThievesEnv,
    rng: np.random.Generator,
    steps: int,
    illegal_rate: float,
) -> None:
    n = py.action_space.n
    after_end = 0
    for _ in range(steps):
        legal = np.flatnonzero(py.action_masks())
        if len(legal) and rng.random() >= illegal_rate:
            action = int(rng.choice(legal))
        else:
            action = int(rng.integers(n))  # most likely illegal
        result = py.step(action), nb.step(action)
        assert_same_step(*result)
        assert_same_env(py, nb)
        if result[0][2]:  # terminated: a few more (illegal) steps, then stop
            after_end += 1
            if after_end > 2:
                return


@pytest.mark.parametrize("variant", SPECS, ids=lambda v: getattr(v, "id", v))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    pick_seed=st.integers(0, 2**32 - 1),
    steps=st.integers(1, 400),
    illegal_rate=st.sampled_from([0.0, 0.05, 0.3]),
    restart=st.sampled_from(["deal", "mid-game", "hidden-shuffled"]),
)
def test_random_play_is_identical_on_both_backends(
    variant: str | VariantSpec,
    seed: int,
    pick_seed: int,
    steps: int,
    illegal_rate: float,
    restart: str,
) -> None:
    py, nb = pair(variant)
    assert_same_reset(py.reset(seed=seed), nb.reset(seed=seed))  # same seed, same deal
    assert_same_env(py, nb)
    rng = np.random.default_rng(pick_seed)
    if restart != "deal":
        # play on a third (python) env, then load its position into both
        other = FortyThievesEnv(variant, backend="python")
        other.reset(seed=seed + 1)
        for _ in range(int(rng.integers(0, 200))):
            legal = np.flatnonzero(other.action_masks())
            if not len(legal) or other.step(int(rng.choice(legal)))[2]:
                break
        pos = other.get_state()
        if restart == "hidden-shuffled":  # trade face-down cards and stock around
            shuffle_hidden(pos, rng, variant)
        try:
            expected = py.reset(options={"state": pos})
        except InvalidPositionError:  # that game was over: both refuse it
            with pytest.raises(InvalidPositionError):
                nb.reset(options={"state": pos})
            return
        assert_same_reset(expected, nb.reset(options={"state": pos}))
        assert nb.get_state() == pos
        assert_same_env(py, nb)
    play_side_by_side(py, nb, rng, steps, illegal_rate)


KINGS = [["KC"], ["KC"], ["KD"], ["KD"], ["KH"], ["KH"], ["KS"], ["KS"]]
RUN = ["KH", "QS", "JH", "TS", "9H", "8S", "7H", "6S", "5H", "4S", "3H", "2S", "AH"]
ALL_BUT_KS = [[r + s for r in "A23456789TJQK"] for s in "CCDDHHS"] + [
    [r + "S" for r in "A23456789TJQ"]
]
POSITIONS = [
    position("Streets", [["5C", "9D", "7D", *RUN], ["KD"]]),  # a full 16-card column
    position("NumberTen", [["5C", "9D", "7D", *RUN], []], face_down=[2] + [0] * 9),
    position("RankAndFile", [["KC", "QH", "JS", "TH"], ["JC"], [], ["JD"]]),
    position("RankAndFile", [["4D", "9S", "2C", "TH"], ["JS"]], face_down=[3] + [0] * 9),
    position("NumberTen", [["8D", "7S", "6D"], ["9C"]], face_down=[1] + [0] * 9),
    position("LittleForty", KINGS, stock=["8H", "9H", "TH", "JH", "QH"], redeals_left=3),
    position("LittleForty", [["TD", "9H"], ["JC"], ["JD"]], redeals_left=1),
    position("LittleForty", KINGS, stock=[], waste=["QH", "JH"], redeals_left=1),
    position("FortyThieves", [["3C"], ["2C"], ["2H"], ["AH"]]),
    position("FortyThieves", [["KS"]], stock=[], foundations=ALL_BUT_KS),  # a win in one
    position("Lucas", [["2C"], ["3C"], ["KD", "QD"]]),
    position("Indian", [["5H", "6C"], ["AS"], ["7D"]], face_down=[1] + [0] * 9),
    position("Maria", [["TH"], ["JH"], ["JS"], ["JC"], ["JD"]], waste=["9C", "TS"]),
]


@pytest.mark.parametrize("pos", POSITIONS, ids=lambda p: p["variant"])
def test_every_move_from_hand_built_positions(pos: dict) -> None:
    """From each position, every action (legal or not), then a random continuation."""
    py, nb = pair(pos["variant"])
    assert_same_reset(py.reset(options={"state": pos}), nb.reset(options={"state": pos}))
    for action in range(py.action_space.n):
        legal = bool(py.action_masks()[action])
        assert_same_step(py.step(action), nb.step(action))
        if legal:  # compare the new positions, then go back
            assert_same_env(py, nb)
            assert_same_reset(py.reset(options={"state": pos}), nb.reset(options={"state": pos}))
    assert_same_env(py, nb)
    play_side_by_side(py, nb, np.random.default_rng(0), 100, 0.1)


def test_illegal_action_raise_gives_the_same_message() -> None:
    py, nb = pair("NumberTen", illegal_action="raise")
    py.reset(seed=5)
    nb.reset(seed=5)
    for action in (1, 2, py.move_to_action("t0>t1x3")):
        with pytest.raises(IllegalMoveError) as a:
            py.step(action)
        with pytest.raises(IllegalMoveError) as b:
            nb.step(action)
        assert str(a.value) == str(b.value)
    assert_same_env(py, nb)


@pytest.mark.parametrize("variant", ["FortyThieves", "LittleForty", "RankAndFile"])
def test_pickle_deepcopy_and_state_assignment(variant: str) -> None:
    py, nb = pair(variant)
    py.reset(seed=8)
    nb.reset(seed=8)
    play_side_by_side(py, nb, np.random.default_rng(1), 50, 0.0)
    data = pickle.dumps(nb)
    assert nb._backend.tables.table.tobytes() not in data  # shared tables are not pickled
    for clone in (pickle.loads(data), copy.deepcopy(nb)):
        assert clone.backend == "numba" and clone._backend.tables is nb._backend.tables
        assert_same_env(py, clone)
        py2 = copy.deepcopy(py)
        play_side_by_side(py2, clone, np.random.default_rng(2), 30, 0.1)
        assert_same_reset(py2.reset(), clone.reset())  # the generator was copied too
    # a state assigned to ``env.state`` is loaded: observation and mask follow
    other = FortyThievesEnv(variant, backend="numba")
    other.reset(seed=99)
    other.state = py.state
    assert_same_env(py, other)
    snapshot = other.state
    snapshot.tableau[0].clear()  # a snapshot: the game does not change
    assert other.get_state() == py.get_state()


def test_backend_argument() -> None:
    assert FortyThievesEnv("Maria").backend == "numba"  # auto: numba is installed
    assert FortyThievesEnv("Maria", backend="python").backend == "python"
    with pytest.raises(ValueError, match="backend must be 'auto', 'numba' or 'python'"):
        FortyThievesEnv("Maria", backend="cuda")  # type: ignore[arg-type]
    env = FortyThievesEnv("Maria", backend="numba")
    assert env.state is None
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    with pytest.raises(RuntimeError, match="reset"):
        env.get_state()
    assert env.board_text() == "(no game: call reset())"


def test_render_is_the_same() -> None:
    py, nb = pair("RankAndFile", render_mode="ansi")
    py.reset(seed=3)
    nb.reset(seed=3)
    play_side_by_side(py, nb, np.random.default_rng(3), 40, 0.0)
    assert py.render() == nb.render()


def test_one_compiled_specialization_for_every_variant() -> None:
    """The environments of every variant call the core's step and refresh with one set of
    argument types: after the first variant's game no other variant's adds a compiled
    specialization. (Other kernels that call them from compiled code, such as the family's,
    add their own, once, whichever test ran them first.)"""
    from fortythieves_env.rules import core

    counts = []
    for variant in SPECS:
        env = FortyThievesEnv(variant, backend="numba")
        _, info = env.reset(seed=0)
        env.step(int(np.flatnonzero(info["action_mask"])[0]))
        counts.append((len(core.step.signatures), len(core.refresh.signatures)))
    assert len(set(counts)) == 1, counts
    step_types = {sig[:2] for sig in core.step.signatures}  # state and table arrays
    assert len(step_types) <= 2 and counts[0][0] >= 1
