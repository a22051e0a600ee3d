"""Deal-seed ranges are disjoint and the seed wrappers deal from the right one."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from fortythieves_agents.seeds import (
    OUTSIDE_START,
    TEST_START,
    TRAIN_RANGE,
    VALIDATION_START,
    TrainingDeals,
    is_training_seed,
    seeds_for_test,
    seeds_for_validation,
    seeds_outside,
)

import fortythieves_env

ENV_ID = fortythieves_env.env_id("Streets")


def test_ranges_are_disjoint() -> None:
    assert TRAIN_RANGE[1] <= VALIDATION_START
    validation = seeds_for_validation(1000)
    test = seeds_for_test(1000)
    assert validation[0] == VALIDATION_START
    assert test == [TEST_START + i for i in range(1000)]
    assert not set(validation) & set(test)
    assert not any(is_training_seed(s) for s in validation + test)
    outside = seeds_outside(1000)
    assert outside == [OUTSIDE_START + i for i in range(1000)]
    assert min(outside) > TEST_START + 10**9 - 1  # above the whole test block
    assert not any(is_training_seed(s) for s in outside)
    with pytest.raises(
        ValueError, match=r"number of outside seeds must be in 0\.\.1000000000, got -1"
    ):
        seeds_outside(-1)
    assert max(validation) < TEST_START


def test_seed_counts_are_checked() -> None:
    with pytest.raises(ValueError):
        seeds_for_test(-1)
    assert seeds_for_test(0) == []


def test_training_deals_reproducible_and_in_range() -> None:
    def deals(seed: int, rank: int) -> list[int]:
        env = TrainingDeals(gym.make(ENV_ID), seed=seed, rank=rank)
        out = []
        for _ in range(5):
            _, info = env.reset()
            out.append(info["deal_seed"])
        return out

    first = deals(0, 0)
    assert first == deals(0, 0)
    assert first != deals(0, 1)  # parallel envs deal different games
    assert first != deals(1, 0)
    assert all(is_training_seed(s) for s in first)
    assert len(set(first)) == 5


def test_training_deals_ignore_explicit_seed_as_deal() -> None:
    env = TrainingDeals(gym.make(ENV_ID), seed=0, rank=0)
    _, info = env.reset(seed=TEST_START)  # as VecEnv.seed would pass: re-seeds the draws
    assert is_training_seed(info["deal_seed"])
    obs_a, info_a = env.reset(seed=3)
    obs_b, info_b = env.reset(seed=3)
    assert info_a["deal_seed"] == info_b["deal_seed"]
    np.testing.assert_array_equal(obs_a, obs_b)


def test_validation_seeds_from_a_later_deal_stay_in_their_range() -> None:
    assert seeds_for_validation(3, first=5) == seeds_for_validation(8)[5:]
    assert seeds_for_validation(2, first=10**9 - 2)[-1] == TEST_START - 1
    with pytest.raises(ValueError, match=r"first validation deal must be in 0\.\.999999998"):
        seeds_for_validation(2, first=10**9 - 1)  # would reach the first test deal
    with pytest.raises(ValueError, match="got -1"):
        seeds_for_validation(2, first=-1)
    with pytest.raises(TypeError):
        seeds_for_validation(2, first=1.5)  # type: ignore[arg-type]
