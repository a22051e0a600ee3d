"""The agents' no-cycling rule (:mod:`fortythieves_agents.cycles`) for a batch whose games
play different rule sets through the family's shared encoding.

:class:`~fortythieves_agents.cycles.SeenViews` keys each view with one variant's tables and
plays a move by that variant's own action index. Here every game slot has its own rule set:
its table array (:func:`fortythieves_env.envs.family_env.family_tables`, the one the family's
environments step it with) and its map from the shared actions to its own
(:attr:`fortythieves_env.envs.family.RuleSetMap.from_shared`). A slot's table and map are bound
when its episode starts (:meth:`FamilySeenViews.start`, from the environment's
``rule_sets``). Scores and masks are the shared ones (``(B, 2057)``); the successor of a
shared move is computed by the rule set's own action with the rules' ``apply``, then
hashed on the player's view (:func:`fortythieves_env.core.view_hash`), as in
:mod:`fortythieves_agents.cycles`. The moves are tried in the same order (score
descending, lowest shared action first), and the shared actions of a rule set are in the
order of its own (``to_shared`` is increasing), so a game played here makes the choices it
makes on the variant's own id.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from fortythieves_env.envs.family import FAMILY_CODEC, rule_set_map
from fortythieves_env.envs.family_env import family_tables
from fortythieves_env.rules import core
from fortythieves_env.rules.core import view_hash
from fortythieves_env.rules.jit import kernel
from fortythieves_env.rules.variants import VariantSpec

from ..cycles import SeenViews, _key, _rehash, _slot_of

__all__ = ["FamilySeenViews"]


@kernel
def _start(
    states: np.ndarray, tbs: np.ndarray, slots: np.ndarray, table: np.ndarray, counts: np.ndarray
) -> None:
    """Empty the sets of ``slots`` and put each game's current view in."""
    for b in slots:
        row = table[b]
        row[:] = 0
        h = _key(view_hash(states[b], tbs[b]))
        row[_slot_of(row, h)] = h
        counts[b] = 1


@kernel
def _choose(
    states: np.ndarray,
    tbs: np.ndarray,
    own: np.ndarray,
    rows: np.ndarray,
    scores: np.ndarray,
    masks: np.ndarray,
    table: np.ndarray,
    counts: np.ndarray,
    scratch: np.ndarray,
    out: np.ndarray,
) -> None:
    """:func:`fortythieves_agents.cycles._choose` with game ``b``'s own tables ``tbs[b]``
    and shared-to-own action map ``own[b]``."""
    n = scores.shape[1]
    for r in range(rows.shape[0]):
        b = rows[r]
        row = table[b]
        tb = tbs[b]
        out[r] = -1
        prev_s = np.inf
        prev_a = -1
        while True:
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
            core.apply(scratch, tb, np.int64(own[b, best]))
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
    own: np.ndarray,
    rows: np.ndarray,
    masks: np.ndarray,
    table: np.ndarray,
    scratch: np.ndarray,
    out: np.ndarray,
) -> None:
    """:func:`fortythieves_agents.cycles._fresh` with each game's own tables and map."""
    for r in range(rows.shape[0]):
        b = rows[r]
        row = table[b]
        tb = tbs[b]
        k = 0
        for a in range(masks.shape[1]):
            if masks[r, a] == 0:
                continue
            scratch[:] = states[b]
            core.apply(scratch, tb, np.int64(own[b, a]))
            h = _key(view_hash(scratch, tb))
            if row[_slot_of(row, h)] == h:
                masks[r, a] = 0  # back to a view seen in this episode
            else:
                k += 1
        out[r] = k


@kernel
def _add(
    states: np.ndarray, tbs: np.ndarray, slots: np.ndarray, table: np.ndarray, counts: np.ndarray
) -> None:
    """Put each game's current view in its set (if not there yet)."""
    for b in slots:
        row = table[b]
        h = _key(view_hash(states[b], tbs[b]))
        i = _slot_of(row, h)
        if row[i] == 0:
            row[i] = h
            counts[b] += 1


class FamilySeenViews:
    """The views seen in each game slot's episode, for games of any rule sets
    (module docstring); the methods of :class:`~fortythieves_agents.cycles.SeenViews`, on the
    shared actions.

    Args:
        env: the family's vector environment (its ``rule_sets``: each slot's rule set,
            read when a slot's episode starts; its ``states``: the packed positions).
        slots: game slots.
        steps: the expected episode length (as :class:`~fortythieves_agents.cycles.SeenViews`).
    """

    def __init__(self, env: Any, slots: int, steps: int) -> None:
        self.env = env
        cap = 16
        while cap < 2 * (min(steps, SeenViews.INITIAL_VIEWS) + 2):
            cap *= 2
        self.table = np.zeros((slots, cap), dtype=np.uint64)
        self.counts = np.zeros(slots, dtype=np.int64)
        self._tbs = np.zeros((slots, 0), dtype=np.int32)
        self._own = np.full((slots, FAMILY_CODEC.n_actions), -1, dtype=np.int64)
        self._bound: list[VariantSpec | None] = [None] * slots
        self._scratch = np.zeros(0, dtype=np.int16)
        self._out = np.zeros(slots, dtype=np.int64)

    def _bind(self, states: np.ndarray, slots: Sequence[int]) -> None:
        """Give each of ``slots`` its rule set's table array and action map (when it
        changed), and size the scratch position to ``states``' rows."""
        rule_sets = self.env.rule_sets
        self._tbs.flags.writeable = True
        for b in slots:
            spec = rule_sets[b]
            if spec is None or spec == self._bound[b]:
                continue
            table = family_tables(spec).table
            if table.size > self._tbs.shape[1]:
                wider = np.zeros((self._tbs.shape[0], table.size), dtype=np.int32)
                wider[:, : self._tbs.shape[1]] = self._tbs
                self._tbs = wider
            self._tbs[b] = 0
            self._tbs[b, : table.size] = table
            self._own[b] = rule_set_map(spec).from_shared
            self._bound[b] = spec
        # read-only, as every variant's own table array: one compiled specialization of the
        # core kernels (tests/env/test_kernels.py)
        self._tbs.flags.writeable = False
        if self._scratch.size != states.shape[1]:
            self._scratch = np.zeros(states.shape[1], dtype=np.int16)

    def start(self, states: np.ndarray, slots: np.ndarray) -> None:
        """New episodes in ``slots``: their rule sets bound, their sets holding only their
        start views."""
        slots = np.asarray(slots, dtype=np.int64)
        self._bind(states, slots.tolist())
        _start(states, self._tbs, slots, self.table, self.counts)

    def choose(
        self, states: np.ndarray, rows: np.ndarray, scores: np.ndarray, masks: np.ndarray
    ) -> np.ndarray:
        """Each game's best-ranked legal shared move to a view not seen in its episode (-1:
        none), as :meth:`fortythieves_agents.cycles.SeenViews.choose`."""
        rows = np.asarray(rows, dtype=np.int64)
        if int(self.counts[rows].max(initial=0)) * 2 + 2 >= self.table.shape[1]:
            self._grow()
        out = self._out[: rows.size]
        _choose(
            states,
            self._tbs,
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
        """Put the current views of ``slots`` in their sets: the games moved."""
        slots = np.asarray(slots, dtype=np.int64)
        if int(self.counts[slots].max(initial=0)) * 2 + 2 >= self.table.shape[1]:
            self._grow()
        _add(states, self._tbs, slots, self.table, self.counts)

    def fresh(self, states: np.ndarray, rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Clear, in place, every legal shared move whose successor view was seen in its
        game's episode (:meth:`fortythieves_agents.cycles.SeenViews.fresh`); the moves left
        per row."""
        out = self._out[: masks.shape[0]]
        _fresh(
            states,
            self._tbs,
            self._own,
            np.asarray(rows, dtype=np.int64),
            masks,
            self.table,
            self._scratch,
            out,
        )
        return out

    def _grow(self) -> None:
        bigger = np.zeros((self.table.shape[0], 2 * self.table.shape[1]), dtype=np.uint64)
        _rehash(self.table, bigger)
        self.table = bigger
