"""Disjoint deal-seed ranges, so that no agent is tested on a deal it trained on.

``env.reset(seed=s)`` deals the same cards for the same ``s`` in every process, so a deal
*is* its seed. Seeds are split into four disjoint ranges:

============  ==============================  =============================================
use           seeds                           who uses them
============  ==============================  =============================================
training      ``0 .. 999_999_999``            every training reset draws one at random
                                              (:class:`TrainingDeals`, seeded by the run seed
                                              and the env's index)
validation    ``1_000_000_000 + i``           periodic evaluation during training (choosing
                                              the best model): the first ``n_eval_episodes``
                                              seeds, the same ones at every evaluation
test          ``2_000_000_000 + i``           the final evaluation and ``fortythieves
                                              evaluate``: the first N seeds, the same list
                                              for every agent (PPO, random, greedy); a
                                              confirmatory run may start later
                                              (``--first-deal``)
outside       ``3_000_000_000 + i``           a shipped network's one evaluation on deals
                                              no agent trained, was picked or was reported
                                              on (``scripts/expert/outside.py``, the family
                                              network's ``--outside``)
============  ==============================  =============================================

The test list never depends on the agent, the run seed or the machine: every agent evaluated
with ``--episodes N`` plays exactly the same N deals.
"""

from __future__ import annotations

import operator
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np

__all__ = [
    "OUTSIDE_START",
    "TEST_START",
    "TRAIN_RANGE",
    "VALIDATION_START",
    "TrainingDeals",
    "is_training_seed",
    "seeds_for_test",
    "seeds_for_validation",
    "seeds_outside",
]

TRAIN_RANGE: tuple[int, int] = (0, 1_000_000_000)
"""Half-open range ``[low, high)`` of training deal seeds."""
VALIDATION_START = 1_000_000_000
"""Validation seed ``i`` is ``VALIDATION_START + i``."""
TEST_START = 2_000_000_000
"""Test seed ``i`` is ``TEST_START + i``."""
OUTSIDE_START = 3_000_000_000
"""Deal ``i`` outside every seed range is ``OUTSIDE_START + i``: above the training,
validation and test ranges, so no agent trained, was picked or was reported on it."""
_BLOCK = 1_000_000_000


def _block_seeds(start: int, what: str, n: int, first: int) -> list[int]:
    """``n`` seeds of the block from ``start`` (validation or test deals, named ``what``)
    from its deal ``first``, checked (see :func:`seeds_for_test`)."""
    first = operator.index(first)  # 1.5 or 2.0 would give seeds that are no deal's
    if not 0 <= n <= _BLOCK:
        raise ValueError(f"number of {what} seeds must be in 0..{_BLOCK}, got {n}")
    if not 0 <= first <= _BLOCK - n:
        raise ValueError(f"first {what} deal must be in 0..{_BLOCK - n} for {n} deals, got {first}")
    return [start + first + i for i in range(n)]


def seeds_for_validation(n: int, first: int = 0) -> list[int]:
    """``n`` validation deal seeds from validation deal ``first`` (the default: the first
    ``n``; a later ``first``: deals a pick on the first ones never saw).

    Raises:
        TypeError: ``first`` is not an integer.
        ValueError: ``n`` or ``first`` is negative, or ``first + n`` is past the range
            (10**9).
    """
    return _block_seeds(VALIDATION_START, "validation", n, first)


def seeds_for_test(n: int, first: int = 0) -> list[int]:
    """``n`` test deal seeds from test deal ``first``: ``[2_000_000_000 + first, ...]``.

    ``first=0`` (the default) gives the first ``n``, the protocol's list; a later ``first``
    gives deals no earlier evaluation of the first ones played (a confirmatory run on
    fresh test deals, ``fortythieves evaluate --first-deal``).

    Raises:
        TypeError: ``first`` is not an integer.
        ValueError: ``n`` or ``first`` is negative, or ``first + n`` is past the range
            (10**9).
    """
    return _block_seeds(TEST_START, "test", n, first)


def seeds_outside(n: int) -> list[int]:
    """The first ``n`` deal seeds outside every range (:data:`OUTSIDE_START` + i).

    Raises:
        ValueError: ``n`` negative or over 10**9.
    """
    return _block_seeds(OUTSIDE_START, "outside", n, 0)


def is_training_seed(seed: int) -> bool:
    """True if ``seed`` is in the training range."""
    return TRAIN_RANGE[0] <= seed < TRAIN_RANGE[1]


class TrainingDeals(gym.Wrapper):
    """Reset every episode with a fresh deal seed drawn from the training range.

    The draws come from a ``numpy`` generator seeded with ``(seed, rank)``, so runs are
    reproducible and parallel envs deal different games. A ``seed`` passed to ``reset`` (as
    SB3's ``VecEnv.seed`` does) re-seeds that generator instead of choosing the deal, so
    the deal always stays in the training range. ``info["deal_seed"]`` gives the deal.
    """

    def __init__(self, env: gym.Env, seed: int = 0, rank: int = 0) -> None:
        super().__init__(env)
        self._rank = rank
        self._rng = np.random.default_rng((seed, rank))
        self.last_deal_seed: int | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        if seed is not None:
            self._rng = np.random.default_rng((seed, self._rank))
        deal = int(self._rng.integers(*TRAIN_RANGE))
        self.last_deal_seed = deal
        obs, info = self.env.reset(seed=deal, options=options)
        info["deal_seed"] = deal
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        return self.env.step(action)
