"""The Sphinx-role cross-references of the docstrings (``:mod:``, ``:func:``, ``:class:``,
``:data:``, ``:meth:``, ...) in ``fortythieves_env/`` and ``agents/`` whose target is no
object, each resolved from the module it stands in: after modules move (issue 38), a short
relative name can point at a sibling that is gone. Run from the repository root::

    python scripts/refactor/docstring_refs.py

Prints ``path:line: :role:`target``` for each that does not resolve and a count; exits 1 if
any. A target ``.x`` or ``..x.y`` is relative as an import is (``.`` is the module's
package); as in Sphinx, a name not found that way is also looked up in the module and in
the class the docstring belongs to, and a bare name also in the top-level package. ``~`` and
the ``title <target>`` form are read as Sphinx reads them. A target found only through a
deprecated old module path (``fortythieves_env.beam``, say) counts as not resolving. An
attribute of a class counts when the class has it, annotates it or sets ``self.name``.
Imports every module of both packages (``__main__`` modules aside), about 10 seconds.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"fortythieves_env": "fortythieves_env", "agents": "fortythieves_agents"}
ROLE = re.compile(r":(mod|func|class|data|meth|attr|exc|obj|const):`([^`]+)`")

warnings.simplefilter("ignore")


class Old(Exception):
    """A module path that only the deprecated forwarder of ``fortythieves_env._moved`` answers."""


def import_module(name: str) -> Any:
    """The module ``name``; :class:`Old` when it is a deprecated old path."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mod = importlib.import_module(name)
    if any("is deprecated" in str(w.message) for w in caught) or type(mod).__name__ == "_Forwarder":
        raise Old(name)
    return mod


def has_attr(obj: Any, name: str) -> tuple[bool, Any]:
    """Whether ``obj`` has ``name`` (for a class also: annotated, a field, or set as
    ``self.name``), and its value when it can be read."""
    if hasattr(obj, name):
        return True, getattr(obj, name)
    if isinstance(obj, type):
        for klass in obj.__mro__:
            if name in getattr(klass, "__annotations__", {}) or name in getattr(
                klass, "__slots__", ()
            ):
                return True, None
            if name in getattr(klass, "__dataclass_fields__", {}):
                return True, None
            if name in getattr(klass, "model_fields", {}):  # pydantic
                return True, None
            # instance attributes set in methods: self.name = ...
            try:
                src = Path(sys.modules[klass.__module__].__file__).read_text()
            except Exception:
                continue
            if re.search(rf"self\.{re.escape(name)}\s*(:[^=]+)?=", src):
                return True, None
    return False, None


def resolve_abs(dotted: str) -> bool:
    """Whether the absolute ``dotted`` name is an object (a builtin, a module or an attribute
    chain from the longest importable module); raises :class:`Old` for a deprecated path."""
    import builtins

    if hasattr(builtins, dotted):
        return True
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        modname = ".".join(parts[:i])
        try:
            obj = import_module(modname)
        except ImportError:
            continue
        for attr in parts[i:]:
            if obj is None:
                return True  # an annotated attribute: cannot look further
            ok, obj = has_attr(obj, attr)
            if not ok:
                return False
        return True
    return False


def target_of(text: str) -> str:
    """The target of a role's text: ``title <target>`` read, ``~``, ``!`` and ``()`` dropped."""
    m = re.search(r"<([^>]+)>\s*$", text)
    t = m.group(1) if m else text
    t = t.strip().lstrip("~!").rstrip("()")
    return t


def candidates(target: str, module: str, is_pkg: bool, klass: str | None) -> Iterator[str]:
    """The absolute names ``target`` may mean in ``module`` (inside class ``klass``)."""
    package = module if is_pkg else module.rpartition(".")[0]
    if target.startswith("."):
        dots = len(target) - len(target.lstrip("."))
        rest = target[dots:]
        if dots <= package.count(".") + 1:
            yield importlib.util.resolve_name(target, package)
        if dots == 1:  # Sphinx: the current module / class, then any suffix
            if klass:
                yield f"{module}.{klass}.{rest}"
            yield f"{module}.{rest}"
    else:
        yield target
        if klass:
            yield f"{module}.{klass}.{target}"
        yield f"{module}.{target}"
        # the top-level package hands out names too
        yield f"{module.split('.')[0]}.{target}"


def docstrings(tree: ast.AST) -> Iterator[tuple[str | None, str, int]]:
    """(class name or None, string, line) for every string statement."""

    def walk(node: ast.AST, klass: str | None) -> Iterator[tuple[str | None, str, int]]:
        for child in ast.iter_child_nodes(node):
            if (
                isinstance(child, ast.Expr)
                and isinstance(child.value, ast.Constant)
                and isinstance(child.value.value, str)
            ):
                yield klass, child.value.value, child.lineno
            if isinstance(child, ast.ClassDef):
                yield from walk(child, child.name if klass is None else f"{klass}.{child.name}")
            else:
                yield from walk(child, klass)

    yield from walk(tree, None)


def main() -> int:
    """Check every role of both packages; print those that do not resolve."""
    bad = []
    total = 0
    for folder, pkg in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            parts = [pkg, *rel.parts]
            is_pkg = parts[-1] == "__init__"
            if is_pkg:
                parts = parts[:-1]
            if parts[-1] == "__main__":
                continue
            module = ".".join(parts)
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for klass, text, line in docstrings(tree):
                for m in ROLE.finditer(text):
                    total += 1
                    role, raw = m.groups()
                    target = target_of(raw)
                    ok = False
                    old = False
                    for cand in candidates(target, module, is_pkg, klass):
                        try:
                            if resolve_abs(cand):
                                ok = True
                                break
                        except Old:
                            old = True
                    if not ok:
                        lineno = line + text[: m.start()].count("\n")
                        bad.append(
                            f"{path.relative_to(ROOT)}:{lineno}: :{role}:`{raw}`"
                            + (" (only an old, deprecated path)" if old else "")
                        )
    for b in bad:
        print(b)
    print(f"{len(bad)} of {total} role targets do not resolve")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
