"""Every way a position gets into an environment loads all of it, on both backends (issue 7.2).

The ways in: ``reset(options={"state": ...})``, the ``state`` setter, pickling and
``copy.deepcopy``. After each, the observation, the mask and the no-progress count belong
to the new position, and the environment shares nothing with where the position came from.
"""

from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest
from positions import position

from fortythieves_env import FortyThievesEnv, InvalidPositionError

pytestmark = pytest.mark.usefixtures("backend")  # every test on both backends

SHUTTLE = position("Streets", [["9H"], ["TC"], ["TS"], ["KD"]])
"""9H can go back and forth between TC and TS forever: no move here is progress."""


def assert_same_game(a: FortyThievesEnv, b: FortyThievesEnv) -> None:
    assert a.get_state() == b.get_state()
    np.testing.assert_array_equal(a._obs, b._obs)
    np.testing.assert_array_equal(a.action_masks(), b.action_masks())
    assert a.legal_moves() == b.legal_moves()
    assert a._idle == b._idle


def shuttle(env: FortyThievesEnv | gym.Env) -> tuple[bool, bool]:
    """Move 9H to the other ten; return (terminated, truncated)."""
    base = env.unwrapped
    move = next(m for m in base.legal_moves() if m in ("t1>t2", "t2>t1", "t0>t1"))
    _, _, terminated, truncated, info = env.step(base.move_to_action(move))
    assert not info["illegal_action"]
    return terminated, truncated


def test_state_assignment_loads_observation_and_mask_of_the_new_position() -> None:
    a, b = FortyThievesEnv("Streets"), FortyThievesEnv("Streets")
    a.reset(seed=1)
    b.reset(seed=2)
    old_mask = a.action_masks()
    a.state = b.state
    assert_same_game(a, b)
    # a move legal in the old game but not in the new one is refused, not played
    stale = int(np.flatnonzero((old_mask == 1) & (b.action_masks() == 0))[0])
    before = a.get_state()
    _, reward, _, _, info = a.step(stale)
    assert info["illegal_action"] is True and reward == -0.1
    assert a.get_state() == before


def test_the_two_environments_share_nothing_after_assignment() -> None:
    a, b = FortyThievesEnv("Streets"), FortyThievesEnv("Streets")
    a.reset(seed=1)
    b.reset(seed=2)
    a.state = b.state
    b_before = b.get_state()
    a.step(a.move_to_action("draw"))
    assert b.get_state() == b_before
    assert a.get_state() != b_before


def test_the_state_getter_returns_an_independent_snapshot() -> None:
    env = FortyThievesEnv("Streets")
    env.reset(seed=1)
    before = env.get_state()
    snapshot = env.state
    snapshot.tableau[0].clear()
    snapshot.stock.pop()
    snapshot.foundations[0] = 13
    assert env.get_state() == before
    assert env.state is not env.state and env.state == env.state


@pytest.mark.parametrize("way", ["setter", "reset"])
def test_loading_restarts_the_no_progress_count(way: str) -> None:
    env = FortyThievesEnv("Streets", max_steps_without_progress=3)
    env.reset(options={"state": SHUTTLE})
    source = FortyThievesEnv("Streets")
    source.reset(options={"state": SHUTTLE})
    assert shuttle(env) == (False, False)
    assert shuttle(env) == (False, False)  # two steps without progress
    if way == "setter":
        env.state = source.state
    else:
        env.reset(options={"state": SHUTTLE})
    assert env._idle == 0
    assert shuttle(env) == (False, False)
    assert shuttle(env) == (False, False)
    assert shuttle(env) == (False, True)  # three in a row since the load


def test_the_setter_checks_the_position_and_refuses_without_changing_anything() -> None:
    env = FortyThievesEnv("NumberTen")
    env.reset(seed=0)
    before = env.get_state()
    mask = env.action_masks()
    bad = env.state
    bad.face_down = [0] * 10  # face-up cards that are not one run: unreachable
    with pytest.raises(InvalidPositionError, match="column 0 cannot be reached"):
        env.state = bad
    bad = env.state
    # a stock card on column 0's top, which it does not build on: 5 cards, only 1 in a run
    card = next(x for x in bad.stock if not env.rules.build_table[bad.tableau[0][-1]][x])
    bad.stock.remove(card)
    bad.tableau[0].append(card)
    with pytest.raises(InvalidPositionError, match="column 0 cannot be reached"):
        env.state = bad
    with pytest.raises(InvalidPositionError, match="expected a GameState, got dict"):
        env.state = before  # type: ignore[assignment]
    assert env.get_state() == before
    np.testing.assert_array_equal(env.action_masks(), mask)


def test_the_setter_takes_a_finished_game_and_none() -> None:
    won = FortyThievesEnv("FortyThieves")
    kings = [[r + s for r in "A23456789TJQK"] for s in "CCDDHHS"] + [[r + "S" for r in "A23456789TJQ"]]  # fmt: skip
    won.reset(options={"state": position("FortyThieves", [["KS"]], stock=[], foundations=kings)})
    won.step(won.move_to_action("t0>f"))
    env = FortyThievesEnv("FortyThieves")
    env.reset(seed=0)
    env.state = won.state
    assert env.action_masks().sum() == 0
    _, _, terminated, _, info = env.step(0)
    assert terminated is True and info["is_success"] is True
    env.state = None
    assert env.state is None
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


@pytest.mark.parametrize("clone", ["pickle", "deepcopy"])
def test_a_copied_env_is_an_exact_independent_clone(clone: str) -> None:
    env = FortyThievesEnv("Streets", max_steps_without_progress=4)
    env.reset(options={"state": SHUTTLE})
    shuttle(env)
    shuttle(env)
    other = pickle.loads(pickle.dumps(env)) if clone == "pickle" else copy.deepcopy(env)
    assert other.backend == env.backend
    assert_same_game(env, other)
    assert other._idle == 2
    # stepping the copy leaves the original as it was, and the other way round
    before = env.get_state()
    other.step(other.move_to_action("draw"))
    assert env.get_state() == before
    # from the same position, both truncate on the same step (the count went on)
    other = pickle.loads(pickle.dumps(env)) if clone == "pickle" else copy.deepcopy(env)
    assert shuttle(env) == shuttle(other) == (False, False)
    assert shuttle(env) == shuttle(other) == (False, True)


def test_time_limit_restarts_only_on_reset() -> None:
    """Documented: the setter loads a position, but TimeLimit's step count goes on."""
    env = gym.make("FortyThieves/Streets-v0", max_episode_steps=5)
    source = FortyThievesEnv("Streets")
    source.reset(options={"state": SHUTTLE})
    env.reset(options={"state": SHUTTLE})
    for _ in range(4):
        assert shuttle(env) == (False, False)
    env.unwrapped.state = source.state
    assert shuttle(env) == (False, True)  # the fifth step since reset
    env.reset(options={"state": SHUTTLE})
    for _ in range(4):
        assert shuttle(env) == (False, False)
