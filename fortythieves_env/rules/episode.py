"""The episode step: what one move means for the episode, stated once for every environment.

A *move step* plays one action in one game and returns ``-1`` when the action is refused
(nothing moves), else the packed result ``(n_legal << 8) | (foundation_cards << 1) |
cards``: ``cards`` (0 or 1) just put on a foundation, the new total ``foundation_cards``
(0..104) and the number of legal actions now. The move steps are the rules core's
(:func:`.core.step`, the environment's two backends of :mod:`..envs.backends`, the family's
:func:`..envs._family_fast.step`).

:func:`episode_step` is the rest of the step: the reward, ``terminated``, ``truncated``
(no progress for too long, or the step limit) and the counts carried to the next step.
Its first half, :func:`step_outcome`, is the one place the packed result is decoded. All
four environments call it: :class:`~fortythieves_env.FortyThievesEnv` and
:class:`~fortythieves_env.envs.family_env.FamilyEnv` in Python (through
:meth:`EpisodeMixin._end_step`; ``FortyThievesEnv`` calls :func:`step_outcome` alone when
it counts nothing, its hot path),
:class:`~fortythieves_env.FortyThievesVectorEnv` and
:class:`~fortythieves_env.envs.family_vector.FamilyVectorEnv` compiled into their batch
kernels (``vector._step_game``, one game of a batch).

It states the episode's three rules, this package's and not the rule book's (they were
the functions ``move_reward``, ``game_over`` and ``made_progress`` of
:mod:`fortythieves_env.envs.env` before version 0.5, still importable there with a
``DeprecationWarning``):

* the reward: ``reward_per_card`` for the card a legal move puts on a foundation, plus
  ``win_bonus`` when that makes 104; ``-illegal_action_penalty`` for a refused action;
* the end (``terminated``): won (104 foundation cards) or lost (no legal move left;
  RULES.md, common rule 9);
* progress, for ``max_steps_without_progress``: a legal move makes progress if it deals
  from the stock or redeals, puts a card on a foundation, or turns up a face-down card
  (the face-down count under the column it moves from changes). Moves between columns
  that turn nothing up, moves onto the tableau from the waste, and refused actions do not.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba.extending import register_jitable

from .actions import COLUMN_TO_COLUMN, DRAW, REDEAL, Move
from .cards import N_CARDS

__all__ = ["NOT_COUNTED", "EpisodeMixin", "episode_step", "step_outcome"]


@register_jitable
def step_outcome(
    packed: int,
    n_legal: int,
    foundation_cards: int,
    reward_per_card: float,
    win_bonus: float,
    illegal_action_penalty: float,
) -> tuple[float, bool, int, int]:
    """The first half of :func:`episode_step`: the move step's packed result decoded (the
    one place it is), the reward and ``terminated``; no truncation. What a step is for an
    environment that counts nothing (``FortyThievesEnv`` without
    ``max_steps_without_progress``: its step limit is the ``TimeLimit`` wrapper's).

    Args:
        packed: the move step's return: -1 (refused: nothing moved), else
            ``(n_legal << 8) | (foundation_cards << 1) | cards``.
        n_legal, foundation_cards: the position's legal actions and foundation cards
            before the step.
        reward_per_card, win_bonus, illegal_action_penalty: the rewards.

    Returns:
        ``(reward, terminated, n_legal, foundation_cards)`` after the step: ``float``,
        ``bool`` and two ``int``. A refused action earns ``-illegal_action_penalty``,
        terminates only a game with no legal move and leaves the counts as they were.
    """
    if packed < 0:  # refused: nothing moved
        return -illegal_action_penalty, n_legal == 0, n_legal, foundation_cards
    n_legal = packed >> 8
    foundation_cards = (packed >> 1) & 127
    reward = (packed & 1) * reward_per_card
    if foundation_cards == N_CARDS:
        reward += win_bonus
    return reward, foundation_cards == N_CARDS or n_legal == 0, n_legal, foundation_cards


@register_jitable
def episode_step(
    packed: int,
    kind: int,
    face_down_before: int,
    face_down_after: int,
    n_legal: int,
    foundation_cards: int,
    idle: int,
    elapsed: int,
    reward_per_card: float,
    win_bonus: float,
    illegal_action_penalty: float,
    max_idle: int,
    max_steps: int,
) -> tuple[float, bool, bool, int, int, int, int]:
    """The episode's side of one step, after its move step: the one statement of the
    step's reward, end and truncation (module docstring), for every environment: its
    :func:`step_outcome`, then the no-progress count and the step limit. Plain Python when
    called from Python, compiled into the caller when called from a kernel.

    Args:
        packed: the move step's return: -1 (refused: nothing moved), else
            ``(n_legal << 8) | (foundation_cards << 1) | cards``.
        kind: the action's kind (:mod:`fortythieves_env.rules.actions`); read only when
            ``max_idle > 0``.
        face_down_before, face_down_after: the face-down count under the action's source
            column before and after the move step, for a column-to-column move (else any
            two equal values); read only when ``max_idle > 0``.
        n_legal, foundation_cards: the position's legal actions and foundation cards
            before the step.
        idle: steps in a row without progress before this one (0 when ``max_idle`` is 0).
        elapsed: steps of the episode before this one (``TimeLimit``'s count: every step,
            refused ones too).
        reward_per_card, win_bonus, illegal_action_penalty: the rewards.
        max_idle: ``max_steps_without_progress``, 0 for none.
        max_steps: the step limit, 0 for none (a ``TimeLimit`` wrapper's own count).

    Returns:
        ``(reward, terminated, truncated, n_legal, foundation_cards, idle, elapsed)``
        after the step: ``float``, ``bool``, ``bool`` and the four counts (``int``). A
        refused action terminates only a game with no legal move and leaves ``n_legal``
        and ``foundation_cards`` as they were. ``truncated``: ``max_idle`` steps in a row
        without progress on a step that does not terminate, or the ``max_steps``-th step
        (then even on a step that terminates, as Gymnasium's ``TimeLimit``).
    """
    reward, terminated, n_legal, foundation_cards = step_outcome(
        packed, n_legal, foundation_cards, reward_per_card, win_bonus, illegal_action_penalty
    )
    truncated = False
    if max_idle > 0:
        progress = packed >= 0 and (
            kind in (DRAW, REDEAL) or (packed & 1) > 0 or face_down_after != face_down_before
        )
        idle = 0 if progress else idle + 1
        truncated = idle >= max_idle and not terminated
    elapsed += 1
    if max_steps > 0 and elapsed >= max_steps:
        truncated = True
    return reward, terminated, truncated, n_legal, foundation_cards, idle, elapsed


NOT_COUNTED = (0, -1, 0)
"""What :meth:`EpisodeMixin._end_step` is given as ``before`` when progress is not counted
(no ``max_steps_without_progress``): nothing read."""


class EpisodeMixin:
    """The episode of a single environment (:class:`~fortythieves_env.FortyThievesEnv`,
    :class:`~fortythieves_env.envs.family_env.FamilyEnv`) around its move step: the counts and
    :meth:`_end_step`, which is :func:`episode_step` on them.

    The environment sets ``reward_per_card``, ``win_bonus``, ``illegal_action_penalty``,
    ``max_steps_without_progress`` (``None`` or a positive ``int``), its buffers ``_obs``
    (the observation, ``uint8``) and ``_mask`` (``int8``), ``_moves`` (its actions'
    :class:`~fortythieves_env.rules.actions.Move` s, indexed by action) and ``_fd_start`` (the
    observation index of column 0's face-down count); and the counts on every load of a
    position: ``_n_legal``, ``_fcards``, ``_idle`` and ``_elapsed`` (``_max_steps``, the
    step limit, is 0, none, unless the environment counts its steps itself).
    """

    reward_per_card: float
    win_bonus: float
    illegal_action_penalty: float
    max_steps_without_progress: int | None
    _obs: np.ndarray
    _mask: np.ndarray
    _moves: tuple[Move, ...]
    _fd_start: int
    _n_legal: int
    _fcards: int
    _idle: int
    _elapsed: int = 0
    _max_steps: int = 0

    def _before_move(self, action: int) -> tuple[int, int, int]:
        """What the progress rule reads before ``action``'s move, when progress is counted
        (the caller asks only then: else ``before`` is :data:`NOT_COUNTED`): its kind, the
        observation index of its source column's face-down count (-1 unless it moves
        between columns) and that count."""
        kind, src, _, _ = self._moves[action]
        if kind != COLUMN_TO_COLUMN:
            return kind, -1, 0
        fd_index = self._fd_start + src
        return kind, fd_index, int(self._obs[fd_index])

    def _end_step(
        self, packed: int, before: tuple[int, int, int]
    ) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The step's return after the move step returned ``packed`` (``before``: what
        :meth:`_before_move` read): :func:`episode_step` on the counts, which it updates;
        ``info`` as :meth:`_info`."""
        kind, fd_index, fd_before = before
        obs = self._obs
        reward, terminated, truncated, self._n_legal, fcards, self._idle, self._elapsed = (
            episode_step(
                packed,
                kind,
                fd_before,
                int(obs[fd_index]) if fd_index >= 0 else 0,
                self._n_legal,
                self._fcards,
                self._idle,
                self._elapsed,
                self.reward_per_card,
                self.win_bonus,
                self.illegal_action_penalty,
                self.max_steps_without_progress or 0,
                self._max_steps,
            )
        )
        self._fcards = fcards
        info = {  # _info's, written out: the hot path
            "action_mask": self._mask.copy(),
            "foundation_cards": fcards,
            "is_success": fcards == N_CARDS,
            "illegal_action": packed < 0,
        }
        return obs.copy(), reward, terminated, truncated, info

    def _info(self, illegal: bool) -> dict[str, Any]:
        """The step's (and reset's) ``info``: a copy of the mask, the foundation cards,
        whether the game is won, whether the action was refused."""
        fcards = self._fcards
        return {
            "action_mask": self._mask.copy(),
            "foundation_cards": fcards,
            "is_success": fcards == N_CARDS,
            "illegal_action": illegal,
        }
