"""The agents' no-cycling rule: take the best move that leads to a view not yet seen.

A rule of the agents in evaluation (:mod:`fortythieves_agents.evaluation.evaluate`), not of the
environment (the rule book allows any legal move); with ``train.no_cycling: true`` the training
games follow it too (:class:`fortythieves_agents.envs.BatchedVecEnv`: the moves back to a view seen
are masked, and a game left with none ends as stuck), so PPO learns the game it is evaluated on.

In each episode the evaluation keeps the set of the player's views seen so far (the start
included), keyed by :func:`fortythieves_env.core.view_hash`: what a player sees and knows,
so two positions that differ only in their unseen cards count as the same view. Each step
the agent ranks the legal moves
(:meth:`fortythieves_agents.players.baselines.BatchAgent.action_scores`, highest first, lowest
action index on equal scores) and plays the first whose successor view is new; when every legal move
leads back to a view already seen the episode ends as *stuck*.

The successor of a move is computed on a scratch copy of the packed position with the
rules' own ``apply`` kernel, then hashed on the player's view, so no hidden card decides
anything: a move that turns up a face-down card or deals from the stock always leads to a
new view (the face-down count or the stock only ever shrinks between redeals, and the
redeals left only shrink), whatever the hidden card is.

:class:`SeenViews` holds one open-addressing hash set per game slot (``uint64`` rows, 0 =
empty, at most half full; a row is doubled when it fills up), and :meth:`SeenViews.choose`
is one compiled call for a batch of games.
"""

from __future__ import annotations

import numpy as np

from fortythieves_env.rules import core
from fortythieves_env.rules.core import FastTables, view_hash
from fortythieves_env.rules.jit import kernel

__all__ = ["SeenViews"]


@kernel(inline="always")
def _slot_of(row: np.ndarray, h: np.uint64) -> int:
    """Index of ``h`` in the open-addressing row, or of the empty slot where it would go."""
    mask = np.uint64(row.shape[0] - 1)
    i = h & mask
    while row[i] != 0 and row[i] != h:
        i = (i + np.uint64(1)) & mask
    return np.int64(i)


@kernel(inline="always")
def _key(h: np.uint64) -> np.uint64:
    """0 marks an empty slot: a hash of 0 (chance 2**-64) is stored as 1."""
    return h if h != 0 else np.uint64(1)


@kernel
def _start(
    states: np.ndarray,
    tbs: np.ndarray,
    which: np.ndarray,
    slots: np.ndarray,
    table: np.ndarray,
    counts: np.ndarray,
) -> None:
    """Empty the sets of ``slots`` and put each game's current view in."""
    for b in slots:
        row = table[b]
        row[:] = 0
        h = _key(view_hash(states[b], tbs[which[b]]))
        row[_slot_of(row, h)] = h
        counts[b] = 1


@kernel
def _rehash(old: np.ndarray, new: np.ndarray) -> None:
    """Copy every key of the rows of ``old`` into the (empty, larger) rows of ``new``."""
    for b in range(old.shape[0]):
        for x in old[b]:
            if x != 0:
                new[b, _slot_of(new[b], x)] = x


@kernel
def _choose(
    states: np.ndarray,
    tbs: np.ndarray,
    which: np.ndarray,
    own: np.ndarray,
    rows: np.ndarray,
    scores: np.ndarray,
    masks: np.ndarray,
    table: np.ndarray,
    counts: np.ndarray,
    scratch: np.ndarray,
    out: np.ndarray,
) -> None:
    """For row r (game ``b = rows[r]``, its rule set ``k = which[b]``): ``out[r]`` = the best
    legal move, by ``scores[r]`` (descending; the lowest index on ties, NaN last), whose next
    view is not in the game's set, which it joins; -1 if every legal move leads back to a
    view seen. Move ``a`` is the rule set's own action ``own[k, a]``, played with its table
    array ``tbs[k]``."""
    n = scores.shape[1]
    for r in range(rows.shape[0]):
        b = rows[r]
        row = table[b]
        tb = tbs[which[b]]
        acts = own[which[b]]
        out[r] = -1
        prev_s = np.inf
        prev_a = -1
        while True:
            # the next legal move in the order (score descending, index ascending)
            best = -1
            best_s = -np.inf
            for a in range(n):
                if masks[r, a] == 0:
                    continue
                s = scores[r, a]
                if s != s:  # NaN ranks last
                    s = -np.inf
                if s > prev_s or (s == prev_s and a <= prev_a):
                    continue  # already tried
                if best < 0 or s > best_s:
                    best = a
                    best_s = s
            if best < 0:
                break  # every legal move leads back to a view seen: stuck
            scratch[:] = states[b]
            core.apply(scratch, tb, acts[best])
            h = _key(view_hash(scratch, tb))
            i = _slot_of(row, h)
            if row[i] == 0:
                row[i] = h
                counts[b] += 1
                out[r] = best
                break
            prev_s = best_s
            prev_a = best


@kernel
def _fresh(
    states: np.ndarray,
    tbs: np.ndarray,
    which: np.ndarray,
    own: np.ndarray,
    rows: np.ndarray,
    masks: np.ndarray,
    table: np.ndarray,
    scratch: np.ndarray,
    out: np.ndarray,
) -> None:
    """For row r (game ``rows[r]``; ``which`` and ``own`` as in :func:`_choose`): clear
    ``masks[r, a]`` for each legal move back to a view in the game's set; ``out[r]`` = the
    legal moves left."""
    for r in range(rows.shape[0]):
        b = rows[r]
        row = table[b]
        tb = tbs[which[b]]
        acts = own[which[b]]
        k = 0
        for a in range(masks.shape[1]):
            if masks[r, a] == 0:
                continue
            scratch[:] = states[b]
            core.apply(scratch, tb, acts[a])
            h = _key(view_hash(scratch, tb))
            if row[_slot_of(row, h)] == h:
                masks[r, a] = 0  # back to a view seen in this episode
            else:
                k += 1
        out[r] = k


@kernel
def _add(
    states: np.ndarray,
    tbs: np.ndarray,
    which: np.ndarray,
    slots: np.ndarray,
    table: np.ndarray,
    counts: np.ndarray,
) -> None:
    """Put each game's current view in its set (if not there yet)."""
    for b in slots:
        row = table[b]
        h = _key(view_hash(states[b], tbs[which[b]]))
        i = _slot_of(row, h)
        if row[i] == 0:
            row[i] = h
            counts[b] += 1


class SeenViews:
    """The views seen in the current episode of each game slot, and the rule's choice.

    Args:
        tables: the variant's :class:`~fortythieves_env.core.FastTables` (any observation
            version: the view hash reads only the position).
        slots: game slots (rows of the ``states`` arrays passed in).
        steps: the expected episode length (the step limit): each set starts with room for
            ``min(steps, INITIAL_VIEWS)`` views and doubles as it fills, so the memory follows
            the views seen, not the limit (a limit of 10**9 once allocated 64 GiB up front).

    The kernels play each slot's moves with its rule set's table array and action map
    (``_tbs``, ``_which``, ``_own``): here one rule set for all and its own actions;
    :class:`fortythieves_agents.family.views.FamilySeenViews` binds one per slot.
    """

    INITIAL_VIEWS = 4096
    """The most views a set has room for before it first grows (16,384 ``uint64`` slots, at
    most half full: 128 KiB a game slot)."""

    def __init__(self, tables: FastTables, slots: int, steps: int) -> None:
        self.tables = tables
        self._sets(slots, steps)
        # read-only, as the table array itself: one compiled specialization of the core kernels
        self._tbs = tables.table[None, :]
        self._which = np.zeros(slots, dtype=np.int64)
        self._own = np.arange(tables.codec.n_actions, dtype=np.int64)[None, :]
        self._scratch = np.zeros(tables.state_size, dtype=np.int16)

    def _sets(self, slots: int, steps: int) -> None:
        """Empty sets for ``slots`` game slots sized for ``steps`` views (class docstring)."""
        cap = 16
        while cap < 2 * (min(steps, self.INITIAL_VIEWS) + 2):
            cap *= 2
        self.table = np.zeros((slots, cap), dtype=np.uint64)
        self.counts = np.zeros(slots, dtype=np.int64)
        self._out = np.zeros(slots, dtype=np.int64)

    def _bind(self, states: np.ndarray, slots: np.ndarray) -> None:
        """Give the slots whose episodes start their rule sets (here nothing to do)."""

    def start(self, states: np.ndarray, slots: np.ndarray) -> None:
        """New episodes in ``slots`` (``int64``): their sets hold only their start views.

        Args:
            states: ``int16``, shape ``(slots, state_size)``: the packed positions.
            slots: the slots whose episodes start.
        """
        slots = np.asarray(slots, dtype=np.int64)
        self._bind(states, slots)
        _start(states, self._tbs, self._which, slots, self.table, self.counts)

    def choose(
        self, states: np.ndarray, rows: np.ndarray, scores: np.ndarray, masks: np.ndarray
    ) -> np.ndarray:
        """Each game's best-ranked legal move to a view not seen in its episode (-1: none).

        The chosen move's successor view is added to the game's set (the caller plays it).

        Args:
            states: ``int16``, shape ``(slots, state_size)``: the packed positions.
            rows: ``int64``, shape ``(B,)``: the slots to choose for.
            scores: ``float64``, shape ``(B, n)``: the agent's ranking, higher first, equal
                scores in action order (``-inf`` and ``NaN`` rank last).
            masks: ``int8``, shape ``(B, n)``: the legal moves (only these are played).

        Returns:
            ``int64``, shape ``(B,)``, a view of a buffer reused by the next call: the move,
            or -1 where every legal move leads back to a view seen (or there is none).

        Raises:
            ValueError: ``masks`` has more actions than the rule sets' (a family
                environment's shared actions on a single variant's sets).
        """
        self._check_width(masks)
        rows = np.asarray(rows, dtype=np.int64)
        if int(self.counts[rows].max(initial=0)) * 2 + 2 >= self.table.shape[1]:
            self._grow()
        out = self._out[: rows.size]
        _choose(
            states,
            self._tbs,
            self._which,
            self._own,
            rows,
            np.ascontiguousarray(scores, dtype=np.float64),
            np.ascontiguousarray(masks, dtype=np.int8),
            self.table,
            self.counts,
            self._scratch,
            out,
        )
        return out

    def add(self, states: np.ndarray, slots: np.ndarray) -> None:
        """Put the current views of ``slots`` (``int64``) in their sets: the games moved.

        Args:
            states: ``int16``, shape ``(slots, state_size)``: the packed positions.
            slots: the slots whose games made a move.
        """
        slots = np.asarray(slots, dtype=np.int64)
        if int(self.counts[slots].max(initial=0)) * 2 + 2 >= self.table.shape[1]:
            self._grow()
        _add(states, self._tbs, self._which, slots, self.table, self.counts)

    def fresh(self, states: np.ndarray, rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Clear, in place, every legal move whose successor view was seen in its game's
        episode: the rule's choice among the legal moves, for an agent that samples
        (training, :class:`fortythieves_agents.envs.BatchedVecEnv`).

        Args:
            states: ``int16``, shape ``(slots, state_size)``: the packed positions.
            rows: ``int64``, shape ``(B,)``: the slots of the rows of ``masks``.
            masks: ``int8``, shape ``(B, n)``, C-contiguous: the legal moves, in place.

        Returns:
            ``int64``, shape ``(B,)``, a view of a buffer reused by the next call: the moves
            left per row (0 where there were legal moves: stuck).

        Raises:
            ValueError: as :meth:`choose`.
        """
        self._check_width(masks)
        out = self._out[: masks.shape[0]]
        _fresh(
            states,
            self._tbs,
            self._which,
            self._own,
            np.asarray(rows, dtype=np.int64),
            masks,
            self.table,
            self._scratch,
            out,
        )
        return out

    def _check_width(self, masks: np.ndarray) -> None:
        """Refuse masks wider than the action map (the kernels index it unchecked)."""
        if masks.shape[1] > self._own.shape[1]:
            raise ValueError(
                f"no-cycling rule: the masks have {masks.shape[1]} actions, the rule set's map "
                f"{self._own.shape[1]}: a family environment's shared actions need "
                "fortythieves_agents.family.views.FamilySeenViews"
            )

    def _grow(self) -> None:
        bigger = np.zeros((self.table.shape[0], 2 * self.table.shape[1]), dtype=np.uint64)
        _rehash(self.table, bigger)
        self.table = bigger
