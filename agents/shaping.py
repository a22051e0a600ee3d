"""Potential-based reward shaping for training, which leaves the game's goal unchanged.

:class:`PotentialShaping` adds to each reward

    F_t = gamma * Phi(s_{t+1}) - Phi(s_t),    with Phi(s_{t+1}) = 0 when the step ends the
                                                episode (terminated or truncated),

where ``gamma`` is the discount PPO uses (``ppo.gamma``) and the potential of a position is

    Phi(s) = face_down * (face-down cards turned up so far)
           + empty_columns * (columns with no card)
           + built_runs * (cards lying on a card by the build rule in the run at a column's end)

read from the observation (the ``face_down`` and column slices of
:class:`fortythieves_env.rules.observation.ObservationLayout`; the build rule from
:class:`fortythieves_env.rules.engine.Rules`). "Turned up so far" counts from the deal
(``spec.face_down`` per column). A run of ``r`` built cards at a column's end counts ``r - 1``
(its first card lies on a dealt card or on nothing), so the term does not pay for a mere
non-empty column and does not fight the empty-column term.

Over an episode of ``T`` steps the shaping terms telescope:
``sum_t gamma^t F_t = gamma^T Phi(s_T) - Phi(s_0) = -Phi(s_0)``, a constant of the deal, so
(Ng, Harada and Russell, 1999) the optimal policy of the discounted game is unchanged; only
how fast credit reaches the moves that turn up cards, empty columns and build runs changes.

Decision where the issue is silent: the potential is 0 at a *truncated* step too (the
issue's "Phi = 0 at the end"), so the terms telescope over every episode, the one cut by the
step limit or the no-progress limit included. SB3 bootstraps a truncated episode with the
value of its last observation, which the shaped critic learns as roughly ``V - Phi``; a
truncated episode therefore also loses about ``gamma * Phi(s_T)``, a push away from ending
an episode by the limits with potential unspent.

Training only: ``train.shaping`` in a config wraps the training environments (outside
``Monitor``, so the logged episode returns stay the game's own). Validation and the final
evaluation play the unshaped game and report foundation cards and wins.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np

__all__ = ["Potential", "PotentialShaping"]


class Potential:
    """``Phi`` of one variant's observations (see the module docstring).

    Args:
        env: the (possibly wrapped) ``FortyThievesEnv`` whose observations will be read; its
            ``unwrapped.layout``, ``unwrapped.rules`` and ``unwrapped.variant`` are used.
        face_down, empty_columns, built_runs: the weights.

    Raises:
        ValueError: a weight is not a finite number.
    """

    def __init__(
        self,
        env: gym.Env,
        face_down: float = 0.0,
        empty_columns: float = 0.0,
        built_runs: float = 0.0,
    ) -> None:
        for name, value in (
            ("face_down", face_down),
            ("empty_columns", empty_columns),
            ("built_runs", built_runs),
        ):
            if not np.isfinite(value):
                raise ValueError(f"shaping weight {name} must be a finite number, got {value!r}")
        base: Any = env.unwrapped
        layout, spec = base.layout, base.variant
        self.weights = (float(face_down), float(empty_columns), float(built_runs))
        c, v = layout.n_columns, layout.column_slots
        self._columns = np.stack(
            [np.arange(layout.column(i).start, layout.column(i).stop) for i in range(c)]
        )  # (C, V) indices into the observation
        self._face_down = layout.face_down
        self._dealt_face_down = spec.face_down * c
        accepts = np.array(base.rules.build_table, dtype=bool)
        accepts[0] = False  # nothing lies "on" an empty slot
        self._builds_on = accepts.ravel()  # [under * 53 + card]
        self._past_top = np.arange(v - 1)  # pair k: card k+1 on card k

    def parts(self, obs: np.ndarray) -> tuple[int, int, int]:
        """``(face-down cards turned up, empty columns, cards in built runs)`` of ``obs``."""
        cards = obs[self._columns].astype(np.intp)  # (C, V), bottom to top, then 0s
        face_down = obs[self._face_down]
        length = np.count_nonzero(cards, axis=1)  # face-up cards per column
        turned_up = self._dealt_face_down - int(face_down.sum())
        empty = int(np.count_nonzero((length == 0) & (face_down == 0)))
        on = self._builds_on[cards[:, :-1] * 53 + cards[:, 1:]]  # (C, V-1)
        # pairs at or past the top count as built, so the run from the top down is a prefix
        on |= self._past_top >= (length - 1)[:, None]
        trailing = np.cumprod(on[:, ::-1], axis=1).sum(axis=1) - (on.shape[1] - length + 1)
        runs = int(np.maximum(trailing, 0).sum())
        return turned_up, empty, runs

    def __call__(self, obs: np.ndarray) -> float:
        """``Phi(obs)``."""
        a, b, c = self.parts(obs)
        w1, w2, w3 = self.weights
        return w1 * a + w2 * b + w3 * c


class PotentialShaping(gym.Wrapper):
    """Add ``gamma * Phi(s') - Phi(s)`` to every reward, with ``Phi = 0`` at the episode's end.

    ``info["shaping"]`` holds the term added at each step (float). Everything else (the
    observation, ``terminated``, ``truncated``, the other ``info`` keys, ``action_masks``)
    passes through.

    Args:
        env: a ``FortyThieves`` environment, possibly wrapped (``TimeLimit`` inside, so that
            truncation reaches this wrapper).
        gamma: the discount of the learner (``ppo.gamma``), in (0, 1].
        face_down, empty_columns, built_runs: the weights of :class:`Potential`.

    Raises:
        ValueError: ``gamma`` outside (0, 1] or a weight not finite.
    """

    def __init__(
        self,
        env: gym.Env,
        gamma: float,
        face_down: float = 0.0,
        empty_columns: float = 0.0,
        built_runs: float = 0.0,
    ) -> None:
        if not 0.0 < gamma <= 1.0:
            raise ValueError(f"gamma must be in (0, 1], got {gamma!r}")
        super().__init__(env)
        self.gamma = float(gamma)
        self.potential = Potential(env, face_down, empty_columns, built_runs)
        self._phi = 0.0

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        self._phi = self.potential(obs)
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        phi = 0.0 if terminated or truncated else self.potential(obs)
        shaping = self.gamma * phi - self._phi
        self._phi = phi
        info["shaping"] = shaping
        return obs, float(reward) + shaping, terminated, truncated, info
