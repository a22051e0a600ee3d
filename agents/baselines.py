"""Reference agents: ``random`` and ``greedy``.

Every agent here, and the trained-model agent of :mod:`agents.evaluation`, follows the
:class:`Agent` protocol: ``reset(env)`` at the start of each episode, then ``act(obs, env)``
returning a legal action index. ``env`` is the (possibly wrapped) Gymnasium env; agents read
the legal-action mask from ``env.unwrapped.action_masks()`` (``int8``, shape ``(n,)``).

``random``
    Uniform over the legal actions, from a ``numpy`` generator seeded once per agent
    (``seed``), so an evaluation is reproducible.

``greedy``
    A one-step heuristic over the legal moves, reading the position with
    ``env.unwrapped.get_state()`` and only what a player sees (face-down *counts*, never
    face-down cards). Each legal move gets a score and the highest wins; ties go to the lowest
    action index, so the agent is deterministic. Scores, highest first:

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

import re
from typing import Any, Protocol

import gymnasium as gym
import numpy as np

__all__ = ["BASELINES", "Agent", "GreedyAgent", "RandomAgent", "make_baseline", "move_score"]

_RANKS = "A23456789TJQK"
_RED = frozenset("DH")
_MOVE = re.compile(r"^(w|t(\d+))>(f|t(\d+))(?:x(\d+))?$")


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


def _rank(card: str) -> int:
    return _RANKS.index(card[0])


def _builds(card: str, onto: str, build: str) -> bool:
    """True if ``card`` may go onto ``onto`` under build rule ``build`` (a ``Build`` value)."""
    if _rank(onto) != _rank(card) + 1:
        return False
    if build == "same_suit":
        return card[1] == onto[1]
    if build == "alternate_colour":
        return (card[1] in _RED) != (onto[1] in _RED)
    return card[1] != onto[1]  # other_suit


def move_score(move: str, state: dict[str, Any], build: str) -> float:
    """The greedy score of ``move`` (notation of RULES.md) in position ``state``.

    Args:
        move: ``draw``, ``redeal``, ``w>f``, ``w>t3``, ``t2>f``, ``t3>t7`` or ``t2>t0x3``.
        state: the position dict of ``env.unwrapped.get_state()``.
        build: the variant's build rule value (``same_suit``, ``alternate_colour``,
            ``other_suit``).

    Raises:
        ValueError: ``move`` is not in the move notation.
    """
    if move == "draw":
        return 10.0
    if move == "redeal":
        return 8.0
    match = _MOVE.match(move)
    if match is None:
        raise ValueError(f"not a move: {move!r}")
    src_col = int(match.group(2)) if match.group(2) is not None else None
    to_foundation = match.group(3) == "f"
    dst_col = int(match.group(4)) if match.group(4) is not None else None
    count = int(match.group(5) or 1)
    tableau: list[list[str]] = state["tableau"]
    face_down: list[int] = state["face_down"]

    if src_col is None:  # from the waste
        if to_foundation:
            return 100.0
        assert dst_col is not None
        if tableau[dst_col]:
            return 60.0
        return 25.0 if state["waste"] and state["waste"][-1][0] == "K" else 5.0

    column = tableau[src_col]
    start = len(column) - count  # index of the first moved card
    reveals = start > 0 and start - 1 < face_down[src_col]
    empties = start == 0
    if to_foundation:
        return 105.0 if reveals else 100.0
    assert dst_col is not None
    dst_empty = not tableau[dst_col]
    if reveals:
        return 80.0
    if empties:
        return -1.0 if dst_empty else 70.0
    beneath_is_build = _builds(column[start], column[start - 1], build)
    if beneath_is_build:
        return -1.0
    return 3.0 if dst_empty else 40.0


class GreedyAgent:
    """The documented one-step heuristic of this module (deterministic)."""

    def __init__(self, seed: int = 0) -> None:
        self.name = "greedy"

    def reset(self, env: gym.Env) -> None:
        """Nothing to reset."""

    def act(self, obs: np.ndarray, env: gym.Env) -> int:
        """The legal action with the highest :func:`move_score`, lowest index on ties."""
        base = env.unwrapped
        legal = legal_actions(env)
        state = base.get_state()  # type: ignore[attr-defined]
        build = str(getattr(base.variant.build, "value", base.variant.build))  # type: ignore[attr-defined]
        best, best_score = int(legal[0]), -np.inf
        for action in legal:
            score = move_score(base.action_to_move(int(action)), state, build)  # type: ignore[attr-defined]
            if score > best_score:
                best, best_score = int(action), score
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
