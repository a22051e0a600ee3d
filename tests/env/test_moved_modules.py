"""The old module paths of ``fortythieves_env`` (issue 38, point 1: the package by role) keep
working for one release, with a :class:`DeprecationWarning` that names the new path, and hand
out the new modules' own objects (:mod:`fortythieves_env._moved`). One test per family of
old paths (rules, environments, solver, records); the rest of the tests use the new paths."""

from __future__ import annotations

import importlib
import pickle
import sys
import warnings

import pytest
from gymnasium.envs.registration import load_env_creator

import fortythieves_env
from fortythieves_env import _moved
from fortythieves_env.rules import engine


def _fresh(old: str) -> None:
    sys.modules.pop(f"fortythieves_env.{old}", None)
    vars(fortythieves_env).pop(old, None)


@pytest.mark.parametrize(
    ("old", "name"),
    [
        ("engine", "Rules"),  # the rules
        ("_checks", "checked_int"),  # a private module of the rules, now public
        ("vector", "FortyThievesVectorEnv"),  # the environments
        ("pruning", "_children"),  # the solver (a private name)
        ("_files", "open_user_file"),  # records and user files
    ],
)
def test_an_old_module_path_warns_and_forwards(old: str, name: str) -> None:
    _fresh(old)
    new = _moved.new_name(old)
    with pytest.warns(DeprecationWarning, match=rf"fortythieves_env\.{old} is deprecated.*{new}"):
        legacy = importlib.import_module(f"fortythieves_env.{old}")
    assert getattr(legacy, name) is getattr(importlib.import_module(new), name)
    with pytest.raises(AttributeError):
        legacy.no_such_name  # noqa: B018
    _fresh(old)
    with pytest.warns(DeprecationWarning):  # an attribute of the package, unimported
        assert getattr(getattr(fortythieves_env, old), name) is getattr(legacy, name)


def test_every_old_path_names_a_module_with_its_names() -> None:
    for old, new in _moved.MOVED.items():
        _fresh(old)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            legacy = importlib.import_module(f"fortythieves_env.{old}")
        target = importlib.import_module(f"fortythieves_env.{new}")
        for name in getattr(target, "__all__", []):
            assert getattr(legacy, name) is getattr(target, name), (old, name)


def test_saved_entry_points_and_pickles_of_old_paths_load() -> None:
    """A Gymnasium spec saved with the old entry point, and a pickle that names a class by
    its old module, load the same class."""
    _fresh("env")
    with pytest.warns(DeprecationWarning):
        creator = load_env_creator("fortythieves_env.env:FortyThievesEnv")
    assert creator is fortythieves_env.FortyThievesEnv
    error = engine.IllegalMoveError("x")
    data = pickle.dumps(error, protocol=0).replace(
        b"fortythieves_env.rules.engine", b"fortythieves_env.engine"
    )
    _fresh("engine")
    with pytest.warns(DeprecationWarning):
        loaded = pickle.loads(data)
    assert type(loaded) is engine.IllegalMoveError


def test_core_and_records_are_public_names_without_a_warning() -> None:
    """``fortythieves_env.core`` is the rules core itself; ``fortythieves_env.records`` the
    records package, which hands out the old module's names."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        import fortythieves_env.core as core
        from fortythieves_env.records import GameRecord, load_record
        from fortythieves_env.records.record import GameRecord as new_record
        from fortythieves_env.records.record import load_record as new_load
        from fortythieves_env.rules import core as rules_core
    assert core is rules_core and fortythieves_env.core is rules_core
    assert (GameRecord, load_record) == (new_record, new_load)
