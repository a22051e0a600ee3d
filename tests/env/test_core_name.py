"""The rules core under its public name (issue 38, point 1): :mod:`fortythieves_env.core`;
the old private module ``fortythieves_env._fast`` still imports for one release, with a
:class:`DeprecationWarning`, and hands out the core's own objects."""

from __future__ import annotations

import importlib
import sys

import pytest

import fortythieves_env
from fortythieves_env import core


def test_the_old_module_name_warns_and_is_the_core() -> None:
    sys.modules.pop("fortythieves_env._fast", None)
    with pytest.warns(DeprecationWarning, match=r"import fortythieves_env\.core"):
        legacy = importlib.import_module("fortythieves_env._fast")
    for name in ("step", "legal_actions", "_apply", "FastTables", "tables_for", "H_NACT"):
        assert getattr(legacy, name) is getattr(core, name), name
    from fortythieves_env._fast import _moves, canonical_hash  # the private names too

    assert (_moves, canonical_hash) == (core._moves, core.canonical_hash)
    with pytest.raises(AttributeError):
        legacy.no_such_name  # noqa: B018


def test_the_old_name_is_an_attribute_of_the_package_too() -> None:
    """``fortythieves_env._fast.X`` without importing ``_fast`` first (it used to be loaded
    by the package's own modules)."""
    sys.modules.pop("fortythieves_env._fast", None)
    vars(fortythieves_env).pop("_fast", None)
    with pytest.warns(DeprecationWarning):
        assert fortythieves_env._fast.tables_for is core.tables_for
