"""Game records and the files a user hands in.

* :mod:`.record`: :class:`~.record.GameRecord`, saved games and their replay (the module
  that was ``fortythieves_env.records`` until 0.4: its names are importable from here too,
  ``from fortythieves_env.records import load_record``, loaded on first use);
* :mod:`.files`: reading a file a user names, with size limits and a clear error for what
  is not a regular file.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    """The names of :mod:`.record` (which imports the environment), on first use."""
    if name.startswith("__") or name in ("record", "files"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(".record", __name__), name)
