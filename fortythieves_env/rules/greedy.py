"""The greedy rule: a one-step heuristic over the legal moves, stated once.

One score table, one reader: :func:`greedy_score` (compiled, over a packed state array of
:mod:`.core`); :func:`move_score` reads a :class:`~fortythieves_env.rules.view.PlayerView`
through it (``tests/oracle.py`` restates the rule apart, for the tests). Every user of the
rule calls it: the ``greedy`` baseline of :mod:`fortythieves_agents.players.baselines` (its
observations are read into a state array by :func:`~.core.observed_state`), the search
agent's rollouts (:func:`rollout`, on sampled positions), and anyone else who needs a cheap
player that sees only what a player sees.

Only what a player sees is read: the face-up cards of each column, the face-down *counts*,
the waste top. Each legal move gets a score and the highest wins; ties go to the lowest
action index, so the rule is deterministic. Scores, highest first:

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
      else is legal (the game is then stuck: it runs to the step limit, or, under
      the evaluation's no-cycling rule, ends as stuck).
====  =====================================================================================

The solver's rollout pass (:mod:`..solver.rollout`) is *not* this rule: it follows the solver's own
move order (:func:`..solver.pruning._children`) and sees every card.
"""

from __future__ import annotations

import numpy as np

from .actions import (
    COLUMN_TO_COLUMN,
    COLUMN_TO_FOUNDATION,
    DRAW,
    REDEAL,
    WASTE_TO_COLUMN,
    WASTE_TO_FOUNDATION,
)
from .core import (
    H_ACCEPTS,
    H_DECODE,
    H_FD,
    H_LEN,
    H_SCAL,
    H_V,
    H_WASTE,
    S_FCARDS,
    S_NWASTE,
    FastTables,
    apply,
    legal_actions,
    tables_for,
)
from .engine import Rules
from .jit import kernel
from .state import GameState
from .view import PlayerView

__all__ = [
    "S_BUILD_FREES",
    "S_DRAW",
    "S_EMPTIES_ONTO_CARD",
    "S_KING_TO_EMPTY",
    "S_PART_TO_EMPTY",
    "S_POINTLESS",
    "S_REDEAL",
    "S_REVEALS",
    "S_TO_FOUNDATION",
    "S_TO_FOUNDATION_REVEALS",
    "S_WASTE_ONTO_CARD",
    "S_WASTE_TO_EMPTY",
    "greedy_pick",
    "greedy_score",
    "move_score",
    "rollout",
    "view_state",
]

_KING = 12  # RANK of a King

# The score table of the module docstring: the one place its numbers live (read by
# :func:`greedy_score`; the test oracle imports them).
S_TO_FOUNDATION = 100.0
S_TO_FOUNDATION_REVEALS = 105.0
S_REVEALS = 80.0
S_EMPTIES_ONTO_CARD = 70.0
S_WASTE_ONTO_CARD = 60.0
S_BUILD_FREES = 40.0
S_KING_TO_EMPTY = 25.0
S_DRAW = 10.0
S_REDEAL = 8.0
S_WASTE_TO_EMPTY = 5.0
S_PART_TO_EMPTY = 3.0
S_POINTLESS = -1.0


def view_state(view: PlayerView, tables: FastTables) -> np.ndarray:
    """The state array of what a player sees: ``view``'s face-up cards, counts, waste and
    foundations (and the stock when its order is known), every hidden card 0 (as
    :func:`~.core.observed_state` reads an observation).

    Returns:
        ``int16``, shape ``(tables.state_size,)``, a new array.
    """
    state = GameState(
        tableau=[[0] * fd + list(up) for fd, up in zip(view.face_down, view.tableau, strict=True)],
        face_down=list(view.face_down),
        stock=list(view.stock) if view.stock is not None else [0] * view.stock_size,
        waste=list(view.waste),
        foundations=list(view.foundations),
        redeals_left=view.redeals_left,
        foundation_cards=view.foundation_cards,
    )
    return tables.pack(state)


def move_score(action: int, view: PlayerView, rules: Rules) -> float:
    """The greedy score of ``action`` in the position a player sees as ``view``: the
    compiled :func:`greedy_score` on :func:`view_state` (one statement of the rule).

    Args:
        action: an action index of ``rules``' variant (legal or not: only scored).
        view: the player's view of the position (:func:`fortythieves_env.rules.view.player_view`).
        rules: the variant's rules.

    Raises:
        ValueError: ``action`` is not an action index of the variant.
    """
    action = rules.codec.check(action)
    tables = tables_for(rules.spec)
    return float(greedy_score(view_state(view, tables), tables.table, action))


@kernel(inline="always")
def greedy_score(st: np.ndarray, tb: np.ndarray, action: int) -> float:
    """The greedy score (the module's table) of ``action`` (an action index) in state
    array ``st`` (``int16``; ``tb`` its variant's table array): the rule's one statement.

    Reads only what a player sees: column lengths, face-down counts, the face-up cards at
    the source column's cut, the waste top; never a face-down card or the stock, so a
    state array whose hidden cards are unknown (0, :func:`~.core.observed_state`) or
    sampled gives the same score. Returns ``float64``.
    """
    d = tb[H_DECODE] + 4 * action
    kind = tb[d]
    src = tb[d + 1]
    dst = tb[d + 2]
    n = tb[d + 3]
    len0 = tb[H_LEN]
    if kind == DRAW:
        return S_DRAW
    if kind == REDEAL:
        return S_REDEAL
    if kind == WASTE_TO_FOUNDATION:
        return S_TO_FOUNDATION
    if kind == WASTE_TO_COLUMN:
        if st[len0 + dst] > 0:
            return S_WASTE_ONTO_CARD
        nw = st[tb[H_SCAL] + S_NWASTE]
        king = nw > 0 and (st[tb[H_WASTE] + nw - 1] - 1) % 13 == _KING
        return S_KING_TO_EMPTY if king else S_WASTE_TO_EMPTY
    fd = st[tb[H_FD] + src]
    start = st[len0 + src] - fd - n  # among the face-up cards
    if kind == COLUMN_TO_FOUNDATION:
        return S_TO_FOUNDATION_REVEALS if (start == 0 and fd > 0) else S_TO_FOUNDATION
    if start == 0 and fd > 0:
        return S_REVEALS
    if start == 0:
        return S_POINTLESS if st[len0 + dst] == 0 else S_EMPTIES_ONTO_CARD
    first = src * tb[H_V] + fd + start
    if tb[tb[H_ACCEPTS] + st[first - 1] * 53 + st[first]]:
        return S_POINTLESS
    return S_PART_TO_EMPTY if st[len0 + dst] == 0 else S_BUILD_FREES


@kernel
def greedy_pick(
    st: np.ndarray, tb: np.ndarray, legal: np.ndarray, count: int, scores: np.ndarray
) -> int:
    """The greedy choice among the legal actions ``legal[:count]`` (ascending) of state
    array ``st``: the highest :func:`greedy_score`, the lowest index on ties; -1 if
    ``count`` is 0.

    Args:
        st: state array (``int16``), read only.
        tb: its variant's table array (``int32``).
        legal: ``int64`` action indices, ascending (:func:`~.core.legal_actions`).
        count: how many of ``legal`` are legal.
        scores: ``float64``; if not empty (shape ``(n_actions,)``), each legal action's
            score is written to it (other entries are left as they are).
    """
    write = scores.shape[0] > 0
    best = -1
    best_score = -np.inf
    for k in range(count):
        a = legal[k]
        score = greedy_score(st, tb, a)
        if write:
            scores[a] = score
        if score > best_score:
            best = a
            best_score = score
    return best


@kernel
def rollout(
    st: np.ndarray, tb: np.ndarray, legal: np.ndarray, horizon: int, stall: int
) -> tuple[int, int]:
    """Play the greedy rule in state array ``st`` (in place) until the game is won or no
    move is legal, or ``horizon`` moves, or ``stall`` tableau-only moves in a row (column
    to column, turning up no card: only such moves can repeat a position, so greedy is
    then going round in a loop); return the foundation cards reached (104: won) and the
    moves played.

    Args:
        st: state array (``int16``), changed in place.
        tb: its variant's table array (``int32``).
        legal: ``int64`` work array of length ``n_actions``.
        horizon: most moves (>= 0).
        stall: tableau-only moves in a row that end the rollout (>= 1).
    """
    scal = tb[H_SCAL]
    fd0 = tb[H_FD]
    dec = tb[H_DECODE]
    none = np.empty(0, dtype=np.float64)
    idle = 0
    played = 0
    for _ in range(horizon):
        if idle >= stall:
            break
        count = legal_actions(st, tb, legal)
        if count == 0:
            break
        a = greedy_pick(st, tb, legal, count, none)
        if tb[dec + 4 * a] == COLUMN_TO_COLUMN:
            src = tb[dec + 4 * a + 1]
            before = st[fd0 + src]
            apply(st, tb, np.int64(a))
            idle = idle + 1 if st[fd0 + src] == before else 0
        else:  # a card to a foundation, off the waste, or a draw or redeal: never repeats
            apply(st, tb, np.int64(a))
            idle = 0
        played += 1
    return st[scal + S_FCARDS], played
