"""The one ``njit`` of the project: :func:`kernel`, numba's on-disk cache made safe.

Every compiled function of :mod:`fortythieves_env` and :mod:`fortythieves_agents` is decorated with
:func:`kernel` (``@kernel`` or ``@kernel(inline="always")``) instead of
``numba.njit(cache=True)``. The compiled code is numba's, unchanged: the same dispatcher,
the same options, the same machine code. What differs is the cache, which numba gets wrong
in two ways:

* **Stale code** (numba issue #1833). numba checks only the source file of the function it
  caches. A kernel compiled with another module's kernels built in (``greedy.rollout`` calls
  ``core.legal_actions``) was loaded unchanged after an edit of that other module alone,
  with the old rules. :func:`kernel` adds to the cache's source stamp a digest of every
  project module the kernel's module imports, directly or through the modules it imports
  (:func:`source_digest`): a change to any of them recompiles the kernel. The index file
  keeps one stamp, so the stale entries are replaced, not piled up.
* **No cache folder** (numba issue #4908). With neither the package's ``__pycache__`` nor
  numba's user cache folder (``~/.cache/numba``) writable (a system install, a container run
  as another user) and no ``NUMBA_CACHE_DIR``, ``njit(cache=True)`` raises ``RuntimeError:
  cannot cache function ...: no locator available`` where the function is defined.
  :func:`kernel` compiles it uncached instead, and warns once per process
  (:class:`NoCacheWarning`, one line) that ``NUMBA_CACHE_DIR`` would cache it.

**Reference counts off** (``@kernel(_nrt=False)``, numba's option for its runtime, NRT).
numba counts the references to each array with atomic operations, and its pass that removes
the needless ones gives up in code with many branches (numba issue #2350): in the solver's
depth-first search (``solver/search.py``'s ``_search``) and its children
(``pruning._children``) they took a fifth of the time (a CPU profile of the compiled code,
issue 39). A kernel that allocates nothing (no new array, no slice assignment that may copy)
needs none: ``_nrt=False`` compiles it without them, and numba refuses to compile an
allocation there ("NRT required but not enabled"), so the option cannot hide a leak. Its
callers and callees may count references as usual.

Under numba's debugging switch ``NUMBA_DISABLE_JIT=1`` the kernels run as Python, with the
same results (a test plays the same games both ways): NumPy's overflow warnings are off in
them, as compiled integer arithmetic wraps silently (the hashes wrap on purpose).

What a module "imports" is read from its source: every ``import`` and ``from ... import``
line (at any indentation; ``TYPE_CHECKING`` blocks too), restricted to the
``fortythieves_env`` package and the kernel's own top-level package. A value reached
otherwise (``importlib``, a module patched from outside) is not covered.
"""

from __future__ import annotations

import hashlib
import re
import warnings
from collections.abc import Callable, Iterator
from functools import cache, wraps
from pathlib import Path
from typing import Any, overload

import numpy as np
from numba import njit
from numba.core.caching import FunctionCache, IndexDataCacheFile
from numba.core.dispatcher import Dispatcher

__all__ = ["NoCacheWarning", "kernel", "source_digest", "source_files"]


class NoCacheWarning(RuntimeWarning):
    """numba has no writable cache folder: compiled kernels are compiled in each process."""


_PACKAGE = "fortythieves_env"
_PACKAGE_DIR = Path(__file__).resolve().parent.parent
"""The ``fortythieves_env`` package's folder."""

_IMPORT = re.compile(
    rb"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]*(\([^)]*\)|(?:[^\n]*\\\n)*[^\n]*)"
    rb"|import[ \t]+((?:[^\n]*\\\n)*[^\n]*))",
    re.MULTILINE,
)
"""An ``import a.b as c, d`` line (group 3: what follows ``import``) or a ``from X import
names`` line (group 1: ``X``, group 2: the names, parenthesised or with ``\\`` lines)."""

_warned = False


@overload
def kernel(func: Callable[..., Any], /) -> Any: ...


@overload
def kernel(*, inline: str = ..., **options: Any) -> Callable[[Callable[..., Any]], Any]: ...


def kernel(func: Callable[..., Any] | None = None, /, **options: Any) -> Any:
    """``numba.njit(cache=True, **options)`` with a cache that follows every module the
    function's module imports, and that falls back to no cache (module docstring).

    Use as ``@kernel`` or ``@kernel(inline="always")``; ``options`` are ``njit``'s.

    Returns:
        numba's ``CPUDispatcher`` of ``func`` (under ``NUMBA_DISABLE_JIT=1``, ``func`` run by
        Python with NumPy's overflow warnings off, as compiled integers wrap silently), or a
        decorator when called with options only.

    Warns:
        NoCacheWarning: once per process, the first time a function cannot be cached
            (no writable cache folder, or a source file of its digest cannot be read); it
            is then compiled in each process.
    """
    if func is None:
        return lambda f: kernel(f, **options)
    dispatcher = njit(**options)(func)
    if not isinstance(dispatcher, Dispatcher):  # NUMBA_DISABLE_JIT: the Python function
        return _interpreted(func)
    try:
        dispatcher._cache = _KernelCache(dispatcher.py_func, source_digest(func))
    except (RuntimeError, OSError) as exc:  # numba: "no locator available"; unreadable source
        _warn_uncached(func, exc)
    return dispatcher


class _KernelCache(FunctionCache):
    """numba's :class:`FunctionCache` whose source stamp (numba's stamp of the function's
    own file) also holds ``digest``: an index written under another digest reads as stale,
    exactly as one written for another version of the function's own file."""

    def __init__(self, py_func: Callable[..., Any], digest: str) -> None:
        super().__init__(py_func)  # RuntimeError when no cache folder is writable
        self._cache_file = IndexDataCacheFile(
            cache_path=self._cache_path,
            filename_base=self._impl.filename_base,
            source_stamp=(self._impl.locator.get_source_stamp(), digest),
        )


def _interpreted(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` run by Python (``NUMBA_DISABLE_JIT=1``) as the compiled kernel runs: with
    NumPy's overflow warnings off, since compiled integer arithmetic wraps silently (the
    position hashes and random draws wrap on purpose, ``uint64`` modulo ``2**64``)."""

    @wraps(func)
    def run(*args: Any, **kwargs: Any) -> Any:
        with np.errstate(over="ignore"):
            return func(*args, **kwargs)

    return run


def _warn_uncached(func: Callable[..., Any], exc: BaseException) -> None:
    global _warned
    if _warned:
        return
    _warned = True
    # line 0: the warning is one line (no source line under it), located at the module
    warnings.warn_explicit(
        f"{_PACKAGE}: numba cannot cache compiled kernels here ({exc}): they are compiled "
        "in each process (up to a minute); set NUMBA_CACHE_DIR to a writable folder to "
        "cache them",
        NoCacheWarning,
        func.__code__.co_filename,
        0,
    )


def source_digest(func: Callable[..., Any]) -> str:
    """The digest (64 hex digits) of the source of every file in :func:`source_files` of
    ``func``'s module: what the cache of a kernel defined there is keyed by.

    Independent of where the package lies (files are named relative to their root).

    Raises:
        OSError: a source file cannot be read.
    """
    return _digest(func.__module__, func.__code__.co_filename)


def source_files(func: Callable[..., Any]) -> list[Path]:
    """The source files a kernel defined with ``func``'s module may compile code or
    constants of: its module's file and every file of the project (``fortythieves_env``
    and the module's own top-level package) that it imports, directly or through them;
    sorted by module name.

    Raises:
        OSError: a source file cannot be read.
    """
    return [path for _, path in _closure(func.__module__, func.__code__.co_filename)]


@cache
def _digest(module: str, filename: str) -> str:
    h = hashlib.sha256()
    for name, path in _closure(module, filename):
        h.update(name.encode() + b"\0" + _source(path) + b"\0")
    return h.hexdigest()


@cache
def _closure(module: str, filename: str) -> tuple[tuple[str, Path], ...]:
    """``(module name, file)`` of the module and of every project module it imports,
    transitively, sorted by name."""
    path = Path(filename).resolve()
    roots = {_PACKAGE: _PACKAGE_DIR}  # top-level package -> its folder (whatever its name:
    parts = module.split(".")  # the agents/ folder installs as fortythieves_agents)
    up = len(parts) - 1 if path.name == "__init__.py" else len(parts) - 2
    if module != "__main__" and parts[0] not in roots and up >= 0:
        roots[parts[0]] = path.parents[up]
    found = {module: path}
    todo = [(module, path)]
    while todo:
        name, file = todo.pop()
        for dep, dep_file in _imports(name, file, roots):
            if dep not in found:
                found[dep] = dep_file
                todo.append((dep, dep_file))
    return tuple(sorted(found.items()))


def _imports(module: str, path: Path, roots: dict[str, Path]) -> Iterator[tuple[str, Path]]:
    """The project modules (name, file) that the source of ``module`` (at ``path``) imports."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for m in _IMPORT.finditer(_source(path)):
        if m.group(3) is not None:  # import a.b.c [as d], e
            for item in _names(m.group(3)):
                yield from _found(item, roots)
            continue
        target = m.group(1).decode()
        level = len(target) - len(target.lstrip("."))
        if level:
            base = package[: len(package) - level + 1] if level <= len(package) else []
            target = ".".join([*base, target[level:]] if target[level:] else base)
        names = _names(m.group(2))
        submodules = [hit for n in names for hit in _found(f"{target}.{n}", roots)]
        yield from submodules
        if len(submodules) < len(names) or not names:  # a name defined in ``target`` itself
            yield from _found(target, roots)


def _names(text: bytes) -> list[str]:
    """The imported names of ``a as b, c`` (parentheses, ``\\`` lines and comments allowed)."""
    lines = text.decode(errors="replace").replace("\\\n", " ").strip("() \t").splitlines()
    items = ",".join(line.split("#", 1)[0] for line in lines).split(",")
    words = [item.split()[0] for item in items if item.split()]
    return [w for w in words if all(p.isidentifier() for p in w.split("."))]


def _found(name: str, roots: dict[str, Path]) -> list[tuple[str, Path]]:
    """``[(name, file)]`` if ``name`` is a module of a project root, else ``[]``."""
    parts = name.split(".")
    root = roots.get(parts[0])
    if root is None or not all(p.isidentifier() for p in parts):
        return []
    base = root.joinpath(*parts[1:])
    candidates = [base / "__init__.py"]
    if len(parts) > 1:
        candidates.insert(0, base.parent / f"{parts[-1]}.py")
    for file in candidates:
        if file.is_file():
            return [(name, file)]
    return []


@cache
def _source(path: Path) -> bytes:
    return path.read_bytes()
