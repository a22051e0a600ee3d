"""Property tests: random masked play on every variant, checked against plain references."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from positions import ALL_CARDS, reference_legal_moves

from fortythieves_env import VARIANTS, FortyThievesEnv

TWO_DECKS = Counter({card: 2 for card in ALL_CARDS})

pytestmark = pytest.mark.usefixtures("backend")  # every test on both backends


def all_cards(pos: dict) -> Counter:
    piles = pos["tableau"] + pos["foundations"] + [pos["stock"], pos["waste"]]
    return Counter(card for pile in piles for card in pile)


@pytest.mark.parametrize("variant", list(VARIANTS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    pick_seed=st.integers(0, 2**32 - 1),
    steps=st.integers(1, 600),
)
def test_random_masked_play_keeps_every_invariant(
    variant: str, seed: int, pick_seed: int, steps: int
) -> None:
    env = FortyThievesEnv(variant)
    obs, info = env.reset(seed=seed)
    fresh = np.zeros_like(obs)
    rng = np.random.default_rng(pick_seed)
    for _ in range(steps):
        pos = env.get_state()
        # every card of the two decks is in the game exactly twice
        assert all_cards(pos) == TWO_DECKS
        assert info["foundation_cards"] == sum(map(len, pos["foundations"]))
        # the mask is exactly the reference's legal moves
        mask = info["action_mask"]
        legal = np.flatnonzero(mask)
        assert {env.action_to_move(int(a)) for a in legal} == reference_legal_moves(pos)
        np.testing.assert_array_equal(mask, env.action_masks())
        # the incrementally updated observation equals one written from scratch
        env.layout.write(env.state, fresh)
        np.testing.assert_array_equal(obs, fresh)
        assert env.observation_space.contains(obs)
        if not len(legal):
            break
        # every masked action is legal for the engine's own check
        assert all(env.rules.why_illegal(env.state, int(a)) == "" for a in legal)
        action = int(rng.choice(legal))
        before = info["foundation_cards"]
        obs, reward, terminated, truncated, info = env.step(action)
        assert info["illegal_action"] is False and truncated is False
        gained = info["foundation_cards"] - before
        assert gained in (0, 1)
        assert reward == gained + (10.0 if info["is_success"] else 0.0)
        assert terminated == (info["is_success"] or not info["action_mask"].any())
        if terminated:
            break
