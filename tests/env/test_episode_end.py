"""``terminated`` and ``truncated`` on the same step (issue 7.9).

Decision (documented in ``FortyThievesEnv``'s Episode End and the environment page of the docs): Gymnasium's
``TimeLimit`` stays in charge of the step limit, so a game that ends by itself on the step
that reaches the limit returns both ``terminated=True`` and ``truncated=True``. The
environment's own no-progress truncation is never set on a terminating step.
"""

from __future__ import annotations

import gymnasium as gym
import pytest
from positions import position, reference_legal_moves

pytestmark = pytest.mark.usefixtures("backend")  # every test on both backends

ALL_BUT_KS = [[r + s for r in "A23456789TJQK"] for s in "CCDDHHS"] + [
    [r + "S" for r in "A23456789TJQ"]
]
WIN_IN_ONE = position("FortyThieves", [["KS"]], stock=[], foundations=ALL_BUT_KS)
"""One move (``t0>f``) from a win."""

HOME = [[r + s for r in "A23456789TJQK"] for s in "CCDDHH"] + [[], []]
LAST_MOVE = position(
    "FortyThieves",
    [
        ["AS", "2S", "4S"], ["AS", "5S"], ["2S", "KS"], ["3S", "KS"], ["3S", "JS"],
        ["4S", "JS"], ["5S", "6S", "9S"], ["6S", "8S", "9S"], ["8S", "TS", "7S"],
        ["TS", "QS", "QS", "7S"],
    ],
    stock=[],
    foundations=HOME,
)  # fmt: skip
"""One move (``t0>t1``, 4S onto 5S, no progress) from having no move at all."""


@pytest.mark.parametrize(("pos", "move"), [(WIN_IN_ONE, "t0>f"), (LAST_MOVE, "t0>t1")])
@pytest.mark.parametrize("limit", [1, 2])
def test_a_game_that_ends_at_the_step_limit_is_terminated_and_truncated(
    pos: dict, move: str, limit: int
) -> None:
    assert move in reference_legal_moves(pos)
    env = gym.make("FortyThieves/FortyThieves-v0", max_episode_steps=limit)
    env.reset(options={"state": pos})
    _, _, terminated, truncated, info = env.step(env.unwrapped.move_to_action(move))
    assert info["action_mask"].sum() == 0
    assert info["is_success"] is (move == "t0>f")
    assert terminated is True
    assert truncated is (limit == 1)  # TimeLimit's, on the step that reaches the limit


def test_no_progress_truncation_is_never_set_on_a_terminating_step() -> None:
    assert reference_legal_moves(LAST_MOVE) == {"t0>t1"}
    env = gym.make("FortyThieves/FortyThieves-v0", max_steps_without_progress=1)
    env.reset(options={"state": LAST_MOVE})
    _, _, terminated, truncated, _ = env.step(env.unwrapped.move_to_action("t0>t1"))
    assert (terminated, truncated) == (True, False)
    assert env.unwrapped._idle == 1  # the step made no progress: only the loss ended it
