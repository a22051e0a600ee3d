"""Import a script of ``benchmarks/`` as a module, by name.

The scripts import one another as top-level modules (``import bench_report``), so the folder
goes on ``sys.path`` for the import only. One helper for every test that checks a README
table against the script that renders it.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

from helpers import ROOT

BENCHMARKS = ROOT / "benchmarks"


def benchmark_module(name: str) -> ModuleType:
    """``benchmarks/<name>.py``, imported (once per process, as ``import`` does)."""
    path = str(BENCHMARKS)
    sys.path.insert(0, path)
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(path)
