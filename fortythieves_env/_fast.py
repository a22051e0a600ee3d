"""Deprecated: the compiled rules core is :mod:`fortythieves_env.core` (issue 38).

``import fortythieves_env._fast`` (and ``from fortythieves_env._fast import X``, the private
names too) keeps working for one release, with a :class:`DeprecationWarning`; every name is
the core's own object, so kernels, tables and state arrays are shared.
"""

from __future__ import annotations

import warnings
from typing import Any

from . import core as _core

warnings.warn(
    "fortythieves_env._fast is deprecated and will be removed in the next release: "
    "import fortythieves_env.core",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> Any:
    """Every name of :mod:`fortythieves_env.core`."""
    return getattr(_core, name)
