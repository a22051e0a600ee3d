"""The ``"ucb"`` allocation of the search agent's solving setting (issue 40, point 2): a UCB1
bandit over a move's candidates, after the published Klondike player lonelybot (its method
notes, section 8; ideas only), at the same number of solves per move as sequential halving.

**Arms** (``SearchBudget.arms``). ``"moves"`` (the default): the candidates, the legal
moves pruned by the solver's rules F, W and E (:func:`fortythieves_env.solver.pruned_moves`),
with the agent's no-return rule applied to the scores afterwards, exactly as for
``"halving"``. ``"irreversible"``: lonelybot's arms, the first *irreversible* moves reachable
through reversible play (a draw, a card turned face up, a card sent to a foundation, a waste
card played), each with its path of reversible column moves from the position
(:mod:`~fortythieves_agents.players.search_arms`: the definition, the bounded closure on the
template of the view, at most :data:`~fortythieves_agents.players.search_arms.MAX_ARMS` arms
and never more than the pulls); a pull plays the path and the move on a fresh sample and
solves the rest, and the agent plays the chosen arm's *first* move
(:func:`~fortythieves_agents.players.search_scores._arm_solve_scores`). The next move is
decided again from the view it leads to, with fresh samples (no plan is kept: the path's
next moves are most often chosen again, and a card seen meanwhile is taken into account);
the paths never go through a view met before in the game, so that reversible play cannot
cycle and every decision's closure shrinks until an irreversible move is played. With fewer
than two such arms (nothing reversible to explore and one irreversible move, or a guide's
candidates allowing fewer) the candidates are the arms.

**A pull** is one solve: a fresh sample of the hidden cards (drawn from the agent's seeded
generator, so the choice stays a function of the player's view), the candidate (or the
arm's path and move) played on it, the child solved with the node cap of the move; its
reward is the value
:func:`~fortythieves_agents.players.search_scores.solve_scores` gives a sample: 1 won, 0
lost, ``cards / 208`` (below 1/2) when the cap ran out, so that the two allocations differ
in how they spend the solves and in nothing else.

**The bandit** (:func:`ucb_allocate`), on ``P`` pulls (:func:`ucb_pulls`: the solves sequential
halving makes for the same candidates and samples, so the two compare at equal nodes):

1. *First round*: every arm gets ``m0 = max(1, min(batch, P // n))`` pulls, on ``m0``
   samples shared by all of them (common random numbers, as halving's rounds).
2. *Then*, while pulls are left and the leader (the most-played arm) has fewer than
   ``plays``: the arm with the largest index ``mean_j + bonus_j + sqrt(C ln N / n_j)``
   (``N`` the pulls so far, ``n_j`` the arm's; the earlier arm on ties) gets a batch of
   ``min(batch, pulls left)`` pulls on fresh samples. ``C = 2`` is Auer, Cesa-Bianchi and
   Fischer's UCB1 (2002).

The candidates are then ranked by mean reward (plus ``bonus``), ties among the best broken
by the non-clairvoyant greedy rollouts on the first round's samples, then by the solver's
move order: the same tie-break and the same score scale as halving
(:func:`~fortythieves_agents.players.search_scores.solve_scores`).

Unlike halving, the number of solves is not fixed before the move (the bandit may stop at
``plays``), but it is a deterministic function of the rewards, so the choice still depends
only on the view, the seed and the deal.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["UcbTrace", "ucb_allocate", "ucb_index", "ucb_pulls"]


@dataclass(frozen=True)
class UcbTrace:
    """What :func:`ucb_allocate` did.

    Attributes:
        totals: ``float64``, shape ``(n,)``: each arm's summed rewards.
        plays: ``int64``, shape ``(n,)``: each arm's pulls.
        first: pulls per arm in the first round (shared samples).
        batches: the later batches in order, as ``(arm, pulls)``.
    """

    totals: np.ndarray
    plays: np.ndarray
    first: int
    batches: tuple[tuple[int, int], ...]

    @property
    def means(self) -> np.ndarray:
        """``float64``, shape ``(n,)``: each arm's mean reward (0 where never pulled)."""
        return self.totals / np.maximum(self.plays, 1)


def ucb_pulls(per_round: list[int], candidates: int) -> int:
    """The pulls (solves) of a move for ``allocation="ucb"``: the solves sequential halving
    makes with the schedule ``per_round`` (samples per candidate in each round,
    :func:`~fortythieves_agents.players.search_scores.halving_schedule`) over ``candidates``
    candidates, ``sum_r per_round[r] * n_r`` with ``n_0 = candidates`` and
    ``n_{r+1} = ceil(n_r / 2)`` (a one-round schedule ``[k]``: ``k x candidates``).

    Raises:
        ValueError: ``candidates`` < 1 or a round of fewer than 1 sample.
    """
    if candidates < 1 or not per_round or min(per_round) < 1:
        raise ValueError(
            f"ucb_pulls: need >= 1 candidate and rounds of >= 1 sample, got {candidates} "
            f"and {per_round}"
        )
    total, left = 0, candidates
    for m in per_round:
        total += m * left
        left = (left + 1) // 2
    return total


def ucb_index(
    totals: np.ndarray, plays: np.ndarray, c: float, bonus: np.ndarray | None = None
) -> np.ndarray:
    """The UCB1 index of every arm, ``mean_j + bonus_j + sqrt(c ln N / n_j)``.

    Args:
        totals: ``float64``, shape ``(n,)``: summed rewards.
        plays: ``int64``, shape ``(n,)``: pulls, each >= 1.
        c: the exploration constant (>= 0).
        bonus: ``float64``, shape ``(n,)``, added to the means; None: none.

    Returns:
        ``float64``, shape ``(n,)``.

    Raises:
        ValueError: an arm with no pull.
    """
    plays = np.asarray(plays)
    if plays.size == 0 or plays.min() < 1:
        raise ValueError("ucb_index: every arm needs at least one pull")
    index = np.asarray(totals, dtype=np.float64) / plays
    if bonus is not None:
        index = index + bonus
    return index + np.sqrt(c * math.log(int(plays.sum())) / plays)


def ucb_allocate(
    arms: int,
    pulls: int,
    pull: Callable[[list[int], int], np.ndarray],
    c: float,
    batch: int,
    plays: int,
    bonus: np.ndarray | None = None,
) -> UcbTrace:
    """Spend at most ``pulls`` pulls over ``arms`` arms by the UCB1 bandit of the module
    docstring.

    Args:
        arms: the number of arms (>= 1).
        pulls: the most pulls in all (>= ``arms``: every arm is pulled at least once).
        pull: ``pull(chosen, m)`` pulls each arm of ``chosen`` (indices, in order) ``m``
            times on the same ``m`` fresh samples and returns the rewards, ``float64`` in
            ``[0, 1]``, shape ``(len(chosen), m)``. Called first with every arm, then with
            one arm per batch.
        c: the exploration constant (>= 0).
        batch: pulls per batch (>= 1).
        plays: stop when the most-played arm has at least this many pulls (>= 1).
        bonus: ``float64``, shape ``(arms,)``: added to the means in the index; None: none.

    Returns:
        A :class:`UcbTrace`.

    Raises:
        ValueError: ``arms``, ``batch`` or ``plays`` below 1, ``pulls`` below ``arms``, or
            ``pull`` returned an array of another shape.
    """
    if arms < 1 or batch < 1 or plays < 1 or pulls < arms:
        raise ValueError(
            f"ucb_allocate: need arms, batch, plays >= 1 and pulls >= arms, got arms={arms}, "
            f"pulls={pulls}, batch={batch}, plays={plays}"
        )
    totals = np.zeros(arms, dtype=np.float64)
    counts = np.zeros(arms, dtype=np.int64)

    def run(chosen: list[int], m: int) -> None:
        rewards = np.asarray(pull(chosen, m), dtype=np.float64)
        if rewards.shape != (len(chosen), m):
            raise ValueError(
                f"ucb_allocate: pull returned shape {rewards.shape}, not {(len(chosen), m)}"
            )
        totals[chosen] += rewards.sum(axis=1)
        counts[chosen] += m

    first = max(1, min(batch, pulls // arms))
    run(list(range(arms)), first)
    spent = first * arms
    batches: list[tuple[int, int]] = []
    while spent < pulls and counts.max() < plays:
        j = int(np.argmax(ucb_index(totals, counts, c, bonus)))  # the earlier on ties
        m = min(batch, pulls - spent)
        run([j], m)
        spent += m
        batches.append((j, m))
    return UcbTrace(totals, counts, first, tuple(batches))
