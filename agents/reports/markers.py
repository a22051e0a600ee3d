"""Generated blocks in a Markdown page: the text between two marker lines.

A page holds a generated block between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->``
(HTML comments: Markdown and the documentation site show neither), each on its own line and
once. :func:`replace_between` writes a block, :func:`between` reads it back; both refuse a
page whose markers are missing, doubled or out of order, naming the markers.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

__all__ = ["between", "markers", "read_json", "replace_between"]


def markers(name: str) -> tuple[str, str]:
    """The start and end lines of block ``name``: ``<!-- NAME:start -->``, ``<!-- NAME:end -->``."""
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def _pattern(text: str, start: str, end: str) -> re.Pattern[str]:
    """The block's pattern in ``text``.

    Raises:
        ValueError: the markers are missing or not once each, in order.
    """
    pattern = re.compile(re.escape(start) + r"\n.*?" + re.escape(end), flags=re.S)
    if text.count(start) != 1 or text.count(end) != 1 or not pattern.search(text):
        raise ValueError(f"the README needs one {start!r} line and, after it, one {end!r} line")
    return pattern


def replace_between(readme: str, table: str, start: str, end: str) -> str:
    """``readme`` with the text between the marker lines ``start`` and ``end`` replaced by
    ``table`` (how generated tables are written into the README and the docs).

    Raises:
        ValueError: the markers are missing or not once each, in order.
    """
    pattern = _pattern(readme, start, end)
    return pattern.sub(lambda _: f"{start}\n{table}\n{end}", readme)


def between(text: str, start: str, end: str) -> str:
    """The text between the marker lines ``start`` and ``end`` (what
    :func:`replace_between` wrote there).

    Raises:
        ValueError: the markers are missing or not once each, in order.
    """
    _pattern(text, start, end)
    inner = text.split(start, 1)[1].split(end, 1)[0]
    return inner.removeprefix("\n").removesuffix("\n")


def read_json(path: Path) -> Any:
    """The JSON at ``path``, or None when it is not saved.

    Raises:
        ValueError: the file is not JSON (named).
    """
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from None
