"""Reference agents: ``random`` and ``greedy``.

Every agent here, and the trained-model agent of :mod:`agents.evaluation`, follows the
:class:`Agent` protocol: ``reset(env)`` at the start of each episode, then ``act(obs, env)``
returning a legal action index. ``env`` is the (possibly wrapped) Gymnasium env; agents read
the legal-action mask from ``env.unwrapped.action_masks()`` (``int8``, shape ``(n,)``).

``random``
    Uniform over the legal actions, from a ``numpy`` generator seeded once per agent
    (``seed``), so an evaluation is reproducible.

``greedy``
    A one-step heuristic over the legal moves. It reads only what a player knows,
    ``env.unwrapped.player_view()`` (:class:`fortythieves_env.view.PlayerView`: face-up
    cards, face-down and stock *counts*), decodes actions with the variant's action codec
    and judges builds with the engine's build table (``rules.build_table``). Each legal move
    gets a score and the highest wins; ties go to the lowest action index, so the agent is
    deterministic. Scores, highest first:

    ====  =====================================================================================
    100   a card to a foundation (+5 if it comes from a column and turns up a face-down card)
     80   a tableau move that turns up a face-down card
     70   a tableau move that empties its column, onto a non-empty column
     60   the waste top onto a non-empty column
     40   a tableau build onto a non-empty column that frees the card underneath (the moved
          card(s) did not already sit on a card they build on)
     25   a King from the waste into an empty column
     10   ``draw``
      8   ``redeal``
      5   any other card from the waste into an empty column
      3   part of a column into an empty column (the card under it is not a build for it)
     -1   *pointless* moves: a tableau build that moves cards already built on the card
          beneath, and moving a whole column into an empty column. Taken only when nothing
          else is legal (the game is then stuck and runs to the step limit).
    ====  =====================================================================================
"""

from __future__ import annotations

from typing import Protocol

import gymnasium as gym
import numpy as np

from fortythieves_env.actions import (
    COLUMN_TO_FOUNDATION,
    DRAW,
    REDEAL,
    WASTE_TO_COLUMN,
    WASTE_TO_FOUNDATION,
)
from fortythieves_env.cards import RANK
from fortythieves_env.engine import Rules
from fortythieves_env.view import PlayerView

__all__ = ["BASELINES", "Agent", "GreedyAgent", "RandomAgent", "make_baseline", "move_score"]

_KING = 12  # RANK of a King


class Agent(Protocol):
    """What the evaluation loop needs from an agent."""

    name: str

    def reset(self, env: gym.Env) -> None:
        """Called after each ``env.reset``."""

    def act(self, obs: np.ndarray, env: gym.Env) -> int:
        """A legal action index for observation ``obs`` (``uint8``, shape ``(obs_size,)``)."""
        ...


def legal_actions(env: gym.Env) -> np.ndarray:
    """Indices of the legal actions (``int64``, ascending).

    Raises:
        RuntimeError: the mask is empty (the env should have ended the episode).
    """
    mask = np.asarray(env.unwrapped.action_masks())  # type: ignore[attr-defined]
    legal = np.flatnonzero(mask)
    if legal.size == 0:
        raise RuntimeError("no legal action in a running episode (empty action mask)")
    return legal


class RandomAgent:
    """Uniformly random legal actions, reproducible through ``seed``."""

    def __init__(self, seed: int = 0) -> None:
        self.name = "random"
        self._rng = np.random.default_rng(seed)

    def reset(self, env: gym.Env) -> None:
        """Nothing to reset: the generator runs on over episodes."""

    def act(self, obs: np.ndarray, env: gym.Env) -> int:
        """A uniformly drawn legal action."""
        return int(self._rng.choice(legal_actions(env)))


def move_score(action: int, view: PlayerView, rules: Rules) -> float:
    """The greedy score of ``action`` in the position a player sees as ``view``.

    Args:
        action: an action index of ``rules``' variant (legal or not: only scored).
        view: the player's view of the position (:func:`fortythieves_env.view.player_view`).
        rules: the variant's rules: its action codec and build table.

    Raises:
        ValueError: ``action`` is not an action index of the variant.
    """
    kind, src, dst, n = rules.decode(action)
    if kind == DRAW:
        return 10.0
    if kind == REDEAL:
        return 8.0
    if kind == WASTE_TO_FOUNDATION:
        return 100.0
    tableau = view.tableau  # face-up cards only
    if kind == WASTE_TO_COLUMN:
        if tableau[dst]:
            return 60.0
        return 25.0 if view.waste and RANK[view.waste[-1]] == _KING else 5.0
    column = tableau[src]
    start = len(column) - n  # index (among the face-up cards) of the first moved card
    reveals = start == 0 and view.face_down[src] > 0
    empties = start == 0 and view.face_down[src] == 0
    if kind == COLUMN_TO_FOUNDATION:
        return 105.0 if reveals else 100.0
    dst_empty = not tableau[dst]
    if reveals:
        return 80.0
    if empties:
        return -1.0 if dst_empty else 70.0
    if rules.build_table[column[start - 1]][column[start]]:  # already built on its card
        return -1.0
    return 3.0 if dst_empty else 40.0


class GreedyAgent:
    """The documented one-step heuristic of this module (deterministic).

    It reads ``env.unwrapped.player_view()`` and ``env.unwrapped.rules`` only, never the
    full position (so never a face-down card or the stock's order).
    """

    def __init__(self, seed: int = 0) -> None:
        self.name = "greedy"

    def reset(self, env: gym.Env) -> None:
        """Nothing to reset."""

    def act(self, obs: np.ndarray, env: gym.Env) -> int:
        """The legal action with the highest :func:`move_score`, lowest index on ties."""
        base = env.unwrapped
        legal = legal_actions(env)
        view = base.player_view()  # type: ignore[attr-defined]
        rules = base.rules  # type: ignore[attr-defined]
        best, best_score = int(legal[0]), -np.inf
        for action in legal.tolist():
            score = move_score(action, view, rules)
            if score > best_score:
                best, best_score = action, score
        return best


BASELINES: dict[str, type[RandomAgent] | type[GreedyAgent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
}
"""Baseline agents by name."""


def make_baseline(name: str, seed: int = 0) -> RandomAgent | GreedyAgent:
    """A fresh baseline agent.

    Raises:
        ValueError: unknown name (the message lists the known ones).
    """
    try:
        cls = BASELINES[name]
    except KeyError:
        raise ValueError(f"unknown baseline {name!r}; known: {', '.join(BASELINES)}") from None
    return cls(seed)
