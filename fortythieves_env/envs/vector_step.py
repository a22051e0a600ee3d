"""The compiled batch step of :class:`~fortythieves_env.envs.vector.FortyThievesVectorEnv`:
N games stepped by one call (:func:`_step_batch`), each by the single environment's episode
step (:func:`~fortythieves_env.rules.episode.episode_step` over :func:`..rules.core.step`), and the
layout of the arrays it reads and writes (the ``F_*``, ``C_*`` and ``P_*`` rows and entries).

Apart from the class so that each module stays readable (issue 38); the family's vector
environment (:mod:`.family_vector`) builds :func:`_step_game` into its own batch step.
"""

from __future__ import annotations

import numpy as np

from ..rules.cards import N_CARDS
from ..rules.core import H_DECODE, H_FD, H_NACT
from ..rules.core import step as _fast_step
from ..rules.engine import COLUMN_TO_COLUMN
from ..rules.episode import episode_step
from ..rules.jit import kernel

# rows of the flags array (bool, shape (6, N))
F_TERM, F_TRUNC, F_ILLEGAL, F_SUCCESS, F_AUTORESET, F_DEAL = range(6)
# rows of the counts array (int64, shape (4, N))
C_FCARDS, C_NLEGAL, C_ELAPSED, C_IDLE = range(4)
# entries of the integer parameters (int64, shape (4,))
P_RAISE, P_SAME_STEP, P_MAX_STEPS, P_MAX_IDLE = range(4)
# entries of the float parameters (float64, shape (3,))
P_REWARD_PER_CARD, P_WIN_BONUS, P_PENALTY = range(3)

_INT64_MAX = np.iinfo(np.int64).max

_INFO_KEYS = ("action_mask", "foundation_cards", "is_success", "illegal_action")


@kernel(inline="always")
def _step_game(
    st: np.ndarray,
    tb: np.ndarray,
    obs: np.ndarray,
    mask: np.ndarray,
    a: int,
    i: int,
    rewards: np.ndarray,
    flags: np.ndarray,
    counts: np.ndarray,
    fparams: np.ndarray,
    iparams: np.ndarray,
    max_steps: int,
) -> int:
    """Step game ``i`` once with action ``a`` (checked by the caller): its move step
    (:func:`..rules.core.step`), then the episode step of every environment
    (:func:`..rules.episode.episode_step`) on the game's counts, then the batch's flags and
    autoreset. The one step of a game of a batch, for :func:`_step_batch` and the family's
    batch (:mod:`fortythieves_env.envs.family_vector`).

    ``st``, ``tb``, ``obs`` and ``mask`` are game i's state array, table array,
    observation row and mask row; ``max_steps`` its step limit (``TimeLimit``'s). A game
    flagged ``F_AUTORESET`` (next-step mode: it ended on the previous step) ignores its
    action, gets reward 0 and all-False flags and is flagged ``F_DEAL``; in same-step mode
    a game that ends now is flagged ``F_DEAL``. The caller deals the ``F_DEAL`` games.

    Returns:
        1 if game i is flagged ``F_DEAL`` now, else 0.
    """
    if flags[F_AUTORESET, i]:  # next-step mode: this step starts game i's new deal
        flags[F_AUTORESET, i] = False
        flags[F_DEAL, i] = True
        flags[F_TERM, i] = False
        flags[F_TRUNC, i] = False
        flags[F_ILLEGAL, i] = False
        rewards[i] = 0.0
        return 1
    d = tb[H_DECODE] + 4 * a
    kind = tb[d]
    fd_index = tb[H_FD] + tb[d + 1] if kind == COLUMN_TO_COLUMN else -1
    fd_before = st[fd_index] if fd_index >= 0 else 0
    packed = _fast_step(st, tb, obs, mask, a)
    reward, terminated, truncated, n_legal, fcards, idle, elapsed = episode_step(
        packed,
        kind,
        fd_before,
        st[fd_index] if fd_index >= 0 else 0,
        counts[C_NLEGAL, i],
        counts[C_FCARDS, i],
        counts[C_IDLE, i],
        counts[C_ELAPSED, i],
        fparams[P_REWARD_PER_CARD],
        fparams[P_WIN_BONUS],
        fparams[P_PENALTY],
        iparams[P_MAX_IDLE],
        max_steps,
    )
    counts[C_NLEGAL, i] = n_legal
    counts[C_FCARDS, i] = fcards
    counts[C_IDLE, i] = idle
    counts[C_ELAPSED, i] = elapsed
    rewards[i] = reward
    flags[F_TERM, i] = terminated
    flags[F_TRUNC, i] = truncated
    flags[F_ILLEGAL, i] = packed < 0
    flags[F_SUCCESS, i] = fcards == N_CARDS
    if terminated or truncated:
        if iparams[P_SAME_STEP] != 0:
            flags[F_DEAL, i] = True
            return 1
        flags[F_AUTORESET, i] = True
    return 0


@kernel(inline="always")
def _check_actions(
    n_games: int,
    actions: np.ndarray,
    masks: np.ndarray,
    flags: np.ndarray,
    n_act: int,
    raise_illegal: bool,
) -> int:
    """Check the action of every game of the batch that is not being reset (``F_AUTORESET``
    games ignore theirs): in ``range(n_act)``, and legal in its ``masks`` row when
    ``raise_illegal``. For :func:`_step_batch` and the family's batch, before any game moves.

    Returns:
        0 when every action is valid; else, for the first game i that fails, ``-1 - i`` if
        its action is out of range, ``-1 - n_games - i`` if it is illegal.
    """
    for i in range(n_games):
        if flags[F_AUTORESET, i]:
            continue
        a = actions[i]
        if a < 0 or a >= n_act:
            return -1 - i
        if raise_illegal and masks[i, a] == 0:
            return -1 - n_games - i
    return 0


@kernel  # its cache follows core.py and episode.py too (fortythieves_env.rules.jit)
def _step_batch(
    states: np.ndarray,
    tb: np.ndarray,
    obs: np.ndarray,
    masks: np.ndarray,
    actions: np.ndarray,
    rewards: np.ndarray,
    flags: np.ndarray,
    counts: np.ndarray,
    fparams: np.ndarray,
    iparams: np.ndarray,
) -> int:
    """Step every game of the batch once (the body of :meth:`FortyThievesVectorEnv.step`).

    Nothing changes unless every action is valid: first every action of a game that is
    not being reset is checked (:func:`_check_actions`: in range; legal too when
    ``iparams[P_RAISE]``), then each game is stepped by :func:`_step_game`. The caller deals
    the ``F_DEAL`` games.

    Returns:
        The number of games flagged ``F_DEAL`` (>= 0); ``-1 - i`` if game i's action is out
        of range; ``-1 - N - i`` if it is illegal and illegal actions raise.
    """
    n_games = states.shape[0]
    checked = _check_actions(n_games, actions, masks, flags, tb[H_NACT], iparams[P_RAISE] != 0)
    if checked < 0:
        return checked
    max_steps = iparams[P_MAX_STEPS]
    n_deal = 0
    for i in range(n_games):
        n_deal += _step_game(
            states[i],
            tb,
            obs[i],
            masks[i],
            actions[i],
            i,
            rewards,
            flags,
            counts,
            fparams,
            iparams,
            max_steps,
        )
    return n_deal


@kernel
def _pick_legal(masks: np.ndarray, n_legal: np.ndarray, u: np.ndarray, out: np.ndarray) -> None:
    """``out[i]`` = the ``int(u[i] * n_legal[i])``-th legal action of game i (0 if none)."""
    for i in range(masks.shape[0]):
        k = int(u[i] * n_legal[i])
        a = 0
        if n_legal[i] > 0:
            row = masks[i]
            for j in range(row.shape[0]):
                if row[j]:
                    if k == 0:
                        a = j
                        break
                    k -= 1
        out[i] = a
