"""scripts/refactor/import_graph.py (issue 38, point 6): the figures of a package's import
graph (arrows, floors, cycles), on a tiny package written for the test."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "refactor" / "import_graph.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_graph", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # a dataclass looks its module up there
    spec.loader.exec_module(sys.modules[spec.name])
    return sys.modules[spec.name]


def _tiny_package(root: Path) -> Path:
    """``tiny``: ``a`` imports ``sub.b`` (relative) and ``sub.b`` imports ``c``, which
    imports ``a`` inside a function (the cycle ``a -> sub.b -> c -> a``); ``d`` imports
    ``a`` and, only for a type checker, ``sub``; ``sub/__init__.py`` imports nothing."""
    package = root / "tiny"
    (package / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "from .d import D\n",
        "a.py": "import os\n\nfrom .sub import b\n",
        "sub/__init__.py": "",
        "sub/b.py": "from .. import c\nfrom tiny.c import C\n",
        "c.py": "C = 1\n\n\ndef late():\n    from .a import b\n    return b\n",
        "d.py": (
            "from typing import TYPE_CHECKING\n\nfrom . import a\n\n"
            "if TYPE_CHECKING:\n    from .sub import b as _b\n\nD = a\n"
        ),
    }
    for path, text in files.items():
        (package / path).write_text(text, encoding="utf-8")
    return package


def test_arrows_floors_and_the_named_cycle(tmp_path: Path) -> None:
    script = _script()
    sources = script.read_sources(str(_tiny_package(tmp_path)))
    graph = script.build_graph(sources, "tiny")
    found = script.figures(graph)
    arrows = {(a["from"], a["to"]): a["lazy"] for a in found["arrow_list"]}
    assert arrows == {
        ("tiny", "d"): False,
        ("a", "sub.b"): False,
        ("sub.b", "c"): False,
        ("c", "a"): True,
        ("d", "a"): False,
        ("d", "sub.b"): False,
    }
    assert found["cycles"] == ["a <-> c <-> sub.b"]
    assert found["floor_of"] == {"tiny": 2, "a": 0, "c": 0, "d": 1, "sub": 0, "sub.b": 0}
    assert (found["modules"], found["arrows"], found["floors"]) == (6, 6, 3)
    assert (found["lazy_arrows"], found["arrows_up_or_sideways"]) == (1, 3)

    runtime = script.figures(script.build_graph(sources, "tiny", runtime=True))
    assert runtime["arrows"] == 5  # d -> sub.b only for a type checker
    by_subpackage = script.figures(script.build_graph(sources, "tiny", depth=1))
    assert {(a["from"], a["to"]) for a in by_subpackage["arrow_list"]} == {
        ("tiny", "d"),
        ("a", "sub"),
        ("sub", "c"),
        ("c", "a"),
        ("d", "a"),
        ("d", "sub"),
    }
    assert by_subpackage["files_of"] == {"sub": 2}
