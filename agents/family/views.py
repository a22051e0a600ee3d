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

from typing import Any

import numpy as np

from fortythieves_env.envs.family import FAMILY_CODEC, rule_set_map
from fortythieves_env.envs.family_env import family_tables
from fortythieves_env.rules.variants import VariantSpec

from ..cycles import SeenViews

__all__ = ["FamilySeenViews"]


class FamilySeenViews(SeenViews):
    """The views seen in each game slot's episode, for games of any rule sets
    (module docstring); the methods of :class:`~fortythieves_agents.cycles.SeenViews`, on the
    shared actions, with each slot's own table array and action map.

    Args:
        env: the family's vector environment (its ``rule_sets``: each slot's rule set,
            read when a slot's episode starts; its ``states``: the packed positions).
        slots: game slots.
        steps: the expected episode length (as :class:`~fortythieves_agents.cycles.SeenViews`).
    """

    def __init__(self, env: Any, slots: int, steps: int) -> None:
        self.env = env
        self._sets(slots, steps)
        self._tbs = np.zeros((slots, 0), dtype=np.int32)
        self._tbs.flags.writeable = False
        self._which = np.arange(slots, dtype=np.int64)  # slot b plays with row b
        self._own = np.full((slots, FAMILY_CODEC.n_actions), -1, dtype=np.int64)
        self._bound: list[VariantSpec | None] = [None] * slots
        self._scratch = np.zeros(0, dtype=np.int16)

    def _bind(self, states: np.ndarray, slots: np.ndarray) -> None:
        """Give each of ``slots`` its rule set's table array and action map (when it
        changed), and size the scratch position to ``states``' rows."""
        rule_sets = self.env.rule_sets
        self._tbs.flags.writeable = True
        for b in slots.tolist():
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
