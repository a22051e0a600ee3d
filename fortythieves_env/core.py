"""The rules core under its public name: ``fortythieves_env.core`` *is*
:mod:`fortythieves_env.rules.core` (issue 38).

The compiled rules live in the rules package, beside the tables, the action encoding and
the observation they read (:mod:`fortythieves_env.rules`). This name stays public and is not
deprecated: ``import fortythieves_env.core`` and ``from fortythieves_env.core import X``
(private names too) give that module itself, the same object under both names, so its
kernels, tables and state arrays are shared and a name set on one is seen through the
other.
"""

from __future__ import annotations

import sys

from .rules import core as _core

sys.modules[__name__] = _core
