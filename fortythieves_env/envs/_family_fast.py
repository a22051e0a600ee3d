"""Compiled pieces of the family's shared encoding (:mod:`.family`).

A rule set's game is stepped by the per-variant compiled core (:mod:`.core`) on its own
table array, built for the family's observation layout
(``tables_for(spec, LATEST_VERSION, FAMILY_LAYOUT.cards)``): the core writes the shared
observation itself. What is left is the action mask, which the core writes in the rule
set's own action layout: :func:`mark_shared` carries it into the shared one. The rules
are all :mod:`.core`'s; these kernels only move mask bits.

The rule set's own mask buffer must be ``int8``, C-contiguous, with a length that is a
multiple of 8 (:func:`own_mask_size`): it is read 8 entries at a time.
"""

from __future__ import annotations

import numpy as np

from ..rules import core
from ..rules.jit import kernel


def own_mask_size(n_actions: int) -> int:
    """The length of a rule set's own mask buffer: ``n_actions`` rounded up to 8."""
    return -(-n_actions // 8) * 8


@kernel(inline="always")
def mark_shared(
    own: np.ndarray, shared: np.ndarray, to_shared: np.ndarray, n_legal: int, value: int
) -> None:
    """Set ``shared[to_shared[k]] = value`` for each legal action ``k`` of the rule set's
    ``own`` mask, which has ``n_legal`` of them (``to_shared``: its action -> shared
    action). ``own`` is read 8 entries at a time (see the module docstring), up to its last
    legal action, so a step costs a few word reads and the legal actions, whatever the
    shared mask's size."""
    words = own.view(np.uint64)
    left = n_legal
    w = 0
    while left > 0:
        if words[w] != 0:
            for k in range(8 * w, 8 * w + 8):
                if own[k] != 0:
                    shared[to_shared[k]] = value
                    left -= 1
        w += 1


@kernel
def refresh(
    st: np.ndarray,
    tb: np.ndarray,
    obs: np.ndarray,
    own_mask: np.ndarray,
    mask: np.ndarray,
    to_shared: np.ndarray,
) -> int:
    """:func:`.core.refresh` (the shared observation ``obs``, the own mask ``own_mask``)
    and the shared ``mask`` (cleared, then the legal actions marked); returns the number of
    legal actions."""
    n_legal = core.refresh(st, tb, obs, own_mask)
    mask[:] = 0
    mark_shared(own_mask, mask, to_shared, n_legal, 1)
    return n_legal


@kernel
def step(
    st: np.ndarray,
    tb: np.ndarray,
    obs: np.ndarray,
    own_mask: np.ndarray,
    mask: np.ndarray,
    to_shared: np.ndarray,
    n_legal: int,
    action: int,
) -> int:
    """:func:`.core.step` of the rule set's own ``action`` (its return value: -1 if
    illegal, and nothing changes; else the packed result), with the shared ``mask``
    following the own one: the ``n_legal`` legal actions before the move unmarked, those
    after it marked."""
    if own_mask[action] == 0:
        return -1
    mark_shared(own_mask, mask, to_shared, n_legal, 0)
    packed = core.step(st, tb, obs, own_mask, action)
    mark_shared(own_mask, mask, to_shared, packed >> 8, 1)
    return packed
