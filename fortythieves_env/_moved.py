"""The modules that moved when the package was laid out by role (issue 38, version 0.5),
and the deprecated names that keep the old import paths working for one release.

:data:`MOVED` maps each old module (``fortythieves_env.<old>``) to its new one. The old
modules have no file any more: :class:`_MovedFinder` (on :data:`sys.meta_path` once the
package is imported, which importing any of its modules does first) answers for them with a
small module whose attributes are the new module's own objects (``__getattr__`` forwards
every name, private ones included), after a :class:`DeprecationWarning` that names the new
path. So ``import fortythieves_env.engine``, ``from fortythieves_env.vector import
FortyThievesVectorEnv``, a Gymnasium spec saved with ``entry_point=
"fortythieves_env.env:FortyThievesEnv"`` and a pickle that names an old module all still
load, with the same classes.

``fortythieves_env.core`` did not move out of its name (it is the rules core's public name,
:mod:`fortythieves_env.core`), and ``fortythieves_env.records`` is now the records package,
which hands out the old module's names itself (:mod:`fortythieves_env.records`).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from typing import Any

_PACKAGE = __name__.rpartition(".")[0]

MOVED: dict[str, str] = {
    # the rules: a pure core, no gymnasium
    "actions": "rules.actions",
    "cards": "rules.cards",
    "engine": "rules.engine",
    "episode": "rules.episode",
    "greedy": "rules.greedy",
    "keys": "rules.keys",
    "observation": "rules.observation",
    "positions": "rules.positions",
    "pysol": "rules.pysol",
    "rule_table": "rules.rule_table",
    "state": "rules.state",
    "tables": "rules.tables",
    "variants": "rules.variants",
    "view": "rules.view",
    "_checks": "rules.checks",
    "_jit": "rules.jit",
    "_rules_digest": "rules.digest",
    "_fast": "core",  # the rules core's name until 0.4 (issue 38)
    # the Gymnasium environments
    "backends": "envs.backends",
    "env": "envs.env",
    "family": "envs.family",
    "family_env": "envs.family_env",
    "family_vector": "envs.family_vector",
    "_family_fast": "envs._family_fast",
    "registration": "envs.registration",
    "render": "envs.render",
    "vector": "envs.vector",
    "wrappers": "envs.wrappers",
    # the solver
    "beam": "solver.beam",
    "pruning": "solver.pruning",
    # records and user files
    "_files": "records.files",
}
"""Old module (relative to the package) -> new module (relative to the package)."""


def new_name(old: str) -> str:
    """The full name of the module that ``fortythieves_env.<old>`` became."""
    return f"{_PACKAGE}.{MOVED[old]}"


class _MovedLoader(importlib.abc.Loader):
    """Makes the deprecated module of an old path: a forwarder to the new module."""

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        old = spec.name.rpartition(".")[2]
        target = importlib.import_module(new_name(old))
        module = _Forwarder(spec.name, f"Deprecated: moved to :mod:`{target.__name__}`.")
        module.__dict__["_target"] = target
        module.__dict__["_new_name"] = new_name(old)
        if hasattr(target, "__all__"):
            module.__dict__["__all__"] = list(target.__all__)
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        warnings.warn(
            f"{module.__name__} is deprecated and will be removed in the next release: "
            f"import {module.__dict__['_new_name']}",
            DeprecationWarning,
            stacklevel=2,
        )


class _Forwarder(types.ModuleType):
    """A module whose every attribute is the new module's."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["_target"], name)

    def __dir__(self) -> list[str]:
        return sorted(set(dir(self.__dict__["_target"])))


class _MovedFinder(importlib.abc.MetaPathFinder):
    """Finds the old module paths of :data:`MOVED` (and nothing else)."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        package, _, old = fullname.rpartition(".")
        if package != _PACKAGE or old not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, _MovedLoader())


def install() -> None:
    """Puts the finder on :data:`sys.meta_path` (once)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
