"""The import structure of one package: which of its modules import which, on what floor
each module sits, and the import cycles; printed as text (or JSON) and drawn as a PNG.
Run from the repository root::

    python scripts/refactor/import_graph.py fortythieves_env
    python scripts/refactor/import_graph.py fortythieves_env --at b36c434 --png before.png
    python scripts/refactor/import_graph.py agents --name fortythieves_agents --depth 1

The package's Python files are read with :mod:`ast` (nothing is imported), from the working
tree or, with ``--at COMMIT``, from a git commit (``git ls-tree`` and ``git show``: no
checkout). A module is named by its dotted path inside the package (``rules.engine``); a
package's ``__init__.py`` is the package itself (``rules``; the top one is the package's
name). Every ``import`` and ``from ... import`` counts, at module level, in a class body or
inside a function (an arrow whose every import is inside a function is *lazy*, drawn dashed),
relative imports resolved against the module's package, the ones under ``if
TYPE_CHECKING:`` too (they run for a type checker only: ``--runtime`` leaves them out). An import
names the deepest module of the package it reaches (``from .rules import engine`` ->
``rules.engine``; ``from .rules import Rules`` -> ``rules``); imports of other packages and
imports made by name at run time (:func:`importlib.import_module`) are not arrows.

The figures:

- *modules* and *arrows* (one per importing module and imported module, self-imports aside);
- *floors*: the modules of one import cycle (a strongly connected component) count as one;
  a module that imports nothing of the package is on floor 0, any other one floor above the
  highest module it imports, so that every arrow between floors points down;
- *arrows up or sideways*: the arrows that do not point down, which are exactly the arrows
  inside a cycle (both ends on one floor);
- *cycles*: the strongly connected components of more than one module, named by their
  modules.

``--depth 1`` draws each subpackage as one module (``rules``: every module under
``rules/``); the package's top-level modules stay themselves. ``--name`` is the package's
import name when it differs from the folder's (``agents/`` installs as
``fortythieves_agents``); a subpackage's folder with its dotted name
(``fortythieves_env/rules --name fortythieves_env.rules``) gives that subpackage alone.
The PNG (matplotlib, the ``plots`` extra) puts floor 0 at the bottom, the modules as boxes
coloured by subpackage, the arrows of a cycle in red.
"""

from __future__ import annotations

import argparse
import ast
import io
import itertools
import json
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Module = tuple[str, ...]
"""A module's path inside the package: ``("rules", "engine")``; the package itself is ``()``."""


@dataclass(frozen=True)
class Graph:
    """The import arrows between the modules of one package."""

    name: str
    """The package's import name (``fortythieves_env``)."""
    modules: tuple[Module, ...]
    arrows: Mapping[tuple[Module, Module], bool]
    """``(importer, imported) -> lazy``: lazy when every such import is inside a function."""
    packages: frozenset[Module] = frozenset()
    """The modules that are subpackages (a folder with an ``__init__.py``)."""
    size: Mapping[Module, int] = field(default_factory=dict)
    """How many files each module stands for (more than one with ``depth``)."""

    def label(self, module: Module) -> str:
        """The module's dotted name inside the package; the package's own name for ``()``."""
        return ".".join(module) if module else self.name


# -- reading the files ------------------------------------------------------------------------


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], check=True, capture_output=True, text=True, encoding="utf-8"
    ).stdout


def read_sources(folder: str, commit: str | None = None) -> dict[str, str]:
    """The text of every ``.py`` file under ``folder``, by its path relative to ``folder``
    (``rules/engine.py``): from the working tree, or from ``commit`` if given."""
    root = Path(folder)
    if commit is None:
        return {
            path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(root.rglob("*.py"))
        }
    prefix = root.as_posix().rstrip("/") + "/"
    listed = _git("ls-tree", "-r", "--name-only", commit, "--", prefix).splitlines()
    return {
        path[len(prefix) :]: _git("show", f"{commit}:./{path}")
        for path in sorted(listed)
        if path.endswith(".py") and path.startswith(prefix)
    }


def module_of(path: str) -> Module:
    """``rules/engine.py`` -> ``("rules", "engine")``; ``rules/__init__.py`` -> ``("rules",)``."""
    parts = tuple(path[: -len(".py")].split("/"))
    return parts[:-1] if parts[-1] == "__init__" else parts


# -- the imports of one module ----------------------------------------------------------------


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(
    node: ast.AST, runtime: bool, lazy: bool = False
) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement under ``node`` with whether it is inside a function; the
    bodies of ``if TYPE_CHECKING:`` skipped if ``runtime``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, lazy
        elif isinstance(child, ast.If) and _is_type_checking(child) and runtime:
            for other in child.orelse:
                yield from _import_nodes(other, runtime, lazy)
        else:
            inner = lazy or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            yield from _import_nodes(child, runtime, inner)


def imported_names(
    source: str, package: tuple[str, ...], runtime: bool = False
) -> Iterator[tuple[tuple[str, ...], bool]]:
    """The absolute dotted names a module's imports reach, each with whether the import is
    inside a function. ``package`` is the absolute name of the package the module stands in
    (for a package's ``__init__``, the package itself): relative imports resolve against it.
    ``from a import b`` gives ``a.b`` (``b`` may be a module or a name in ``a``); ``runtime``
    leaves out the imports under ``if TYPE_CHECKING:``."""
    for node, lazy in _import_nodes(ast.parse(source), runtime):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield tuple(alias.name.split(".")), lazy
            continue
        if node.level:
            if node.level - 1 > len(package):
                continue  # beyond the top package: not this package's import
            base = package[: len(package) - node.level + 1]
        else:
            base = ()
        target = base + (tuple(node.module.split(".")) if node.module else ())
        for alias in node.names:
            yield (target if alias.name == "*" else (*target, alias.name)), lazy


def _deepest(name: tuple[str, ...], top: tuple[str, ...], modules: set[Module]) -> Module | None:
    """The deepest module of the package (top ``top``) that importing ``name`` reaches;
    None for a name outside the package."""
    if name[: len(top)] != top:
        return None
    inside = name[len(top) :]
    for end in range(len(inside), -1, -1):
        if inside[:end] in modules:
            return inside[:end]
    return None


def build_graph(
    sources: Mapping[str, str], name: str, depth: int = 0, runtime: bool = False
) -> Graph:
    """The graph of the package ``name`` whose files are ``sources`` (relative paths ->
    text). ``depth`` > 0 merges the modules below that many levels into their subpackage;
    ``runtime`` leaves out the imports under ``if TYPE_CHECKING:``."""
    top = tuple(name.split("."))
    paths = {module_of(path): path for path in sources}
    modules = set(paths)
    arrows: dict[tuple[Module, Module], bool] = {}
    for module, path in paths.items():
        is_package = path.endswith("__init__.py")
        package = top + (module if is_package else module[:-1])
        for imported, lazy in imported_names(sources[path], package, runtime):
            target = _deepest(imported, top, modules)
            if target is None:
                continue
            pair = (_group(module, depth), _group(target, depth))
            if pair[0] != pair[1]:
                arrows[pair] = arrows.get(pair, True) and lazy
    size: dict[Module, int] = {}
    for module in modules:
        size[_group(module, depth)] = size.get(_group(module, depth), 0) + 1
    packages = {_group(m, depth) for m, path in paths.items() if path.endswith("__init__.py")}
    return Graph(
        name,
        tuple(sorted(size)),
        dict(sorted(arrows.items())),
        frozenset(packages - {()}),
        dict(sorted(size.items())),
    )


def _group(module: Module, depth: int) -> Module:
    return module[:depth] if depth else module


# -- figures ------------------------------------------------------------------------------------


def strong_components(graph: Graph) -> list[list[Module]]:
    """The strongly connected components (Tarjan), each component after every component
    it imports (a reverse topological order)."""
    successors: dict[Module, list[Module]] = {module: [] for module in graph.modules}
    for source, target in graph.arrows:
        successors[source].append(target)
    index: dict[Module, int] = {}
    low: dict[Module, int] = {}
    stack: list[Module] = []
    on_stack: set[Module] = set()
    found: list[list[Module]] = []

    def visit(module: Module) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in successors[module]:
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component: list[Module] = []
            while not component or component[-1] != module:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph.modules) + 100))
    try:
        for module in graph.modules:
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)
    return found


def floors(graph: Graph) -> dict[Module, int]:
    """Each module's floor: 0 if it imports no module of the package (outside its own
    cycle), else one above the highest module it imports; a cycle's modules share one."""
    floor: dict[Module, int] = {}
    for component in strong_components(graph):  # imported components come first
        members = set(component)
        below = [
            floor[target]
            for (source, target) in graph.arrows
            if source in members and target not in members
        ]
        for module in component:
            floor[module] = 1 + max(below) if below else 0
    return floor


def figures(graph: Graph) -> dict[str, Any]:
    """The graph's figures, by label: modules, arrows (lazy ones counted too), floors (each
    floor's modules), the arrows up or sideways and the cycles."""
    floor = floors(graph)
    cycles = [c for c in strong_components(graph) if len(c) > 1]
    up = [(s, t) for (s, t) in graph.arrows if floor[t] >= floor[s]]
    by_floor: dict[int, list[str]] = {}
    for module in graph.modules:
        by_floor.setdefault(floor[module], []).append(graph.label(module))
    merged = {graph.label(m): n for m, n in graph.size.items() if n > 1}
    return {
        "package": graph.name,
        "modules": len(graph.modules),
        "arrows": len(graph.arrows),
        "lazy_arrows": sum(graph.arrows.values()),
        "floors": len(by_floor),
        "arrows_up_or_sideways": len(up),
        "cycles": sorted(" <-> ".join(graph.label(m) for m in c) for c in cycles),
        "floor_of": {graph.label(m): floor[m] for m in graph.modules},
        **({"files_of": merged} if merged else {}),
        "by_floor": {str(f): sorted(names) for f, names in sorted(by_floor.items())},
        "arrow_list": [
            {
                "from": graph.label(s),
                "to": graph.label(t),
                "lazy": lazy,
                "up_or_sideways": floor[t] >= floor[s],
            }
            for (s, t), lazy in graph.arrows.items()
        ],
    }


def _cycles(found: Mapping[str, Any]) -> str:
    count = len(found["cycles"])
    return f"{count} cycle{'' if count == 1 else 's'}"


def summary(found: Mapping[str, Any]) -> str:
    """The figures as the text this script prints."""
    lines = [
        f"{found['package']}: {found['modules']} modules, {found['arrows']} arrows "
        f"({found['lazy_arrows']} only inside functions), {found['floors']} floors, "
        f"{found['arrows_up_or_sideways']} arrows up or sideways, {_cycles(found)}",
    ]
    lines += [f"  cycle: {cycle}" for cycle in found["cycles"]]
    for arrow in found["arrow_list"]:
        if arrow["up_or_sideways"]:
            where = "inside a function" if arrow["lazy"] else "at module level"
            lines.append(f"  sideways: {arrow['from']} -> {arrow['to']} ({where})")
    for floor, names in reversed(found["by_floor"].items()):
        lines.append(f"  floor {floor}: {', '.join(names)}")
    return "\n".join(lines)


# -- drawing ------------------------------------------------------------------------------------


def _order_floors(graph: Graph, floor: Mapping[Module, int]) -> list[list[Module]]:
    """Each floor's modules, left to right: by subpackage, then a few barycentre sweeps
    (each module towards the mean place of its neighbours) to shorten the arrows."""
    rows: list[list[Module]] = [[] for _ in range(max(floor.values(), default=0) + 1)]
    for module in sorted(graph.modules, key=lambda m: (m[:1] if len(m) > 1 else (), m)):
        rows[floor[module]].append(module)
    neighbours: dict[Module, list[Module]] = {module: [] for module in graph.modules}
    for source, target in graph.arrows:
        neighbours[source].append(target)
        neighbours[target].append(source)
    for _ in range(6):
        place = {m: i / max(len(row), 1) for row in rows for i, m in enumerate(row)}
        for row in rows:
            own = {m: place[m] for m in row}
            row.sort(
                key=lambda m: (
                    sum(place[n] for n in neighbours[m]) / len(neighbours[m])
                    if neighbours[m]
                    else own[m]
                )
            )
    return rows


STAGGER = 16.0
"""Inches: a floor whose boxes side by side would be wider than this (and than the picture's
other floors) is drawn in two staggered lines, every other box raised."""


def _row_width(sizes: list[float], gap: float) -> float:
    """The width one floor's boxes need: side by side, or staggered if wider than
    :data:`STAGGER`."""
    natural = sum(sizes) + gap * (len(sizes) - 1)
    if natural <= STAGGER or len(sizes) < 3:
        return natural
    return sizes[0] / 2 + sum(_steps(sizes, gap)) + sizes[-1] / 2


def _steps(sizes: list[float], gap: float) -> list[float]:
    """Staggered, the distance between neighbouring boxes' centres: a box and the next but
    one (on the same line) are then at least ``gap`` apart."""
    return [max(a, b) / 2 + gap / 2 for a, b in itertools.pairwise(sizes)]


def _row_places(sizes: list[float], gap: float, width: float) -> list[tuple[float, int]]:
    """The centres of one floor's boxes (inches from the left) and whether each is raised:
    side by side and spread over ``width`` if they fit, else staggered and centred."""
    natural = sum(sizes) + gap * (len(sizes) - 1)
    places: list[tuple[float, int]] = []
    if natural <= width or len(sizes) < 3:
        spare = max(width - natural, 0.0) / (len(sizes) + 1)
        x = spare
        for size in sizes:
            places.append((x + size / 2, 0))
            x += size + gap + spare
        return places
    x = (width - _row_width(sizes, gap)) / 2 + sizes[0] / 2
    places.append((x, 0))
    for i, step in enumerate(_steps(sizes, gap), start=1):
        x += step
        places.append((x, i % 2))
    return places


def draw(graph: Graph, out: Path, title: str) -> None:
    """The PNG: floor 0 at the bottom, modules as boxes coloured by subpackage, arrows from
    importer to imported (dashed: only inside functions; red: inside a cycle)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from PIL import Image

    def group(module: Module) -> str:
        return module[0] if module and (len(module) > 1 or module in graph.packages) else ""

    def label(module: Module) -> str:
        files = graph.size.get(module, 1)
        return f"{graph.label(module)} ({files} files)" if files > 1 else graph.label(module)

    floor = floors(graph)
    rows = _order_floors(graph, floor)
    char, gap, rise, top = 0.075, 0.35, 1.25, 1.1  # inches: a character, a gap, a floor, title
    widths = {m: (len(label(m)) + 2) * char for m in graph.modules}
    needed = [_row_width([widths[m] for m in row], gap) for row in rows]
    width = max([*needed, 10.0, len(title) * char * 1.1]) + 0.8
    height = rise * len(rows) + top + 0.2
    fig = plt.figure(figsize=(width, height), dpi=100)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.axis("off")

    groups = sorted({group(m) for m in graph.modules})
    pastel = [plt.get_cmap("Set3")(i) for i in range(12) if i != 3]  # light, no red: cycles'
    colour = {g: pastel[i % len(pastel)] for i, g in enumerate(groups)}
    boxes: dict[Module, Any] = {}  # the labels (matplotlib Text), by module
    for level, row in enumerate(rows):
        y = 0.2 + rise * level + rise / 2
        ax.text(0.1, y, f"{level}", fontsize=9, color="grey", va="center")
        places = _row_places([widths[m] for m in row], gap, width - 0.8)
        for module, (x, raised) in zip(row, places, strict=True):
            boxes[module] = ax.text(
                0.4 + x,
                y + 0.35 * raised,
                label(module),
                ha="center",
                va="center",
                fontsize=8,
                family="DejaVu Sans Mono",
                zorder=3,
                bbox={"boxstyle": "round,pad=0.3", "fc": colour[group(module)], "ec": "k"},
            )
    for (source, target), lazy in graph.arrows.items():
        in_cycle = floor[target] >= floor[source]  # both ends in one cycle, on one floor
        ax.annotate(
            "",
            xy=boxes[target].get_position(),
            xytext=boxes[source].get_position(),
            zorder=4 if in_cycle else 1,
            arrowprops={
                "arrowstyle": "-|>",
                "color": "red" if in_cycle else "grey",
                "alpha": 1.0 if in_cycle else 0.45,
                "lw": 1.4 if in_cycle else 0.7,
                "linestyle": "--" if lazy else "-",
                "patchA": boxes[source].get_bbox_patch(),
                "patchB": boxes[target].get_bbox_patch(),
                "connectionstyle": f"arc3,rad={0.35 if in_cycle else 0.0}",
                "shrinkA": 1,
                "shrinkB": 1,
            },
        )
    ax.text(0.1, height - 0.25, title, fontsize=10, va="center")
    ax.text(
        0.1,
        height - 0.5,
        "floor 0 at the bottom; an arrow goes from the importing module to the imported one; "
        "red: inside an import cycle; dashed: imported only inside functions",
        fontsize=8,
        va="center",
    )
    x = 0.1
    for name in groups:
        text = name or "(top level)"
        ax.text(
            x + 0.05,
            height - 0.8,
            text,
            fontsize=8,
            va="center",
            family="DejaVu Sans Mono",
            bbox={"boxstyle": "round,pad=0.3", "fc": colour[name], "ec": "k"},
        )
        x += (len(text) + 3) * char
    fig.canvas.draw()  # places the boxes, where the arrows then stop
    picture = io.BytesIO()
    fig.savefig(picture, dpi=100)
    plt.close(fig)
    # 128 colours are plenty for boxes, text and grey arrows: a third of the file's size
    Image.open(picture).convert("RGB").quantize(colors=128).save(out, optimize=True)


# -- the command ----------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """Print the figures of the package the command line names; write the JSON and the PNG
    it asks for."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", help="the package's folder, from the repository root")
    parser.add_argument("--name", help="its import name (default: the folder, dotted)")
    parser.add_argument("--at", metavar="COMMIT", help="read the files of this git commit")
    parser.add_argument("--depth", type=int, default=0, help="1: a subpackage is one module")
    parser.add_argument("--runtime", action="store_true", help="skip `if TYPE_CHECKING:`")
    parser.add_argument("--png", type=Path, metavar="OUT", help="draw the graph here")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the figures here")
    args = parser.parse_args(argv)
    name = args.name or Path(args.folder).as_posix().strip("/").replace("/", ".")
    sources = read_sources(args.folder, args.at)
    if not sources:
        parser.error(f"no Python files under {args.folder}" + (f" at {args.at}" if args.at else ""))
    graph = build_graph(sources, name, args.depth, args.runtime)
    found = figures(graph)
    at = _git("rev-parse", "--short", args.at).strip() if args.at else None
    found = {"commit": at, "depth": args.depth, "runtime": args.runtime, **found}
    print(summary(found))
    if args.json:
        args.json.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    if args.png:
        where = f" at {at}" if at else ""
        title = (
            f"{name}{where}{' by subpackage' if args.depth else ''}"
            f"{' (run-time imports only)' if args.runtime else ''}: {found['modules']} modules, "
            f"{found['arrows']} arrows, {found['floors']} floors, {_cycles(found)}"
        )
        draw(graph, args.png, title)
    return 0


if __name__ == "__main__":
    sys.exit(main())
