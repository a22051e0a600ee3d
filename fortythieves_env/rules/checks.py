"""Checks of arguments shared by the package: the one statement of what an integer is.

An integer argument is anything ``operator.index`` accepts (``int``, NumPy integers, any
``numbers.Integral``) except ``bool`` and ``numpy.bool_``: ``True`` is not a count. A JSON
file read by the package nests at most :data:`MAX_JSON_NESTING` levels (:func:`json_depth`).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np

INT64_MAX = 2**63 - 1
"""The largest ``int64``: the bound of counts handed to compiled code."""

MAX_JSON_NESTING = 32
"""The deepest nesting of arrays and objects a JSON file the package reads may have (a game
record reaches 4: ``start.tableau[i][j]``). Python's ``json`` parses recursively: a file
nested 2,000 levels deep raised ``RecursionError``."""

_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_JSON_BRACKET = re.compile(r"[\[\]{}]")


def is_int(value: object) -> bool:
    """Whether ``value`` is an integer (``operator.index`` takes it) and not a ``bool``."""
    if isinstance(value, bool | np.bool_):
        return False
    try:
        operator.index(value)  # type: ignore[call-overload]
    except TypeError:
        return False
    return True


def checked_int(
    name: str, value: object, low: int, high: int | None = None, *, or_none: bool = False
) -> int:
    """``value`` as an ``int`` if it is an integer (:func:`is_int`) in ``low..high``.

    Args:
        name: the argument's name, for the message.
        value: the value to check.
        low: the smallest value allowed.
        high: the largest value allowed (None: no upper bound).
        or_none: the argument may also be None (the caller handles that case first); the
            message says so.

    Raises:
        ValueError: ``value`` is not an integer or out of range; the message names ``name``,
            the range and the value.
    """
    if low == 1 and high is None:
        allowed = "a positive integer"
    elif high is None:
        allowed = f"an integer >= {low}"
    else:
        allowed = f"an integer {low}..{high}"
    if or_none:
        allowed = "None or " + allowed
    if not is_int(value):
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    n = operator.index(value)  # type: ignore[call-overload]
    if n < low or (high is not None and n > high):
        raise ValueError(f"{name} must be {allowed}, got {n}")
    return n


def checked_options(options: object, allowed: Collection[str]) -> dict[str, Any]:
    """A ``reset`` call's ``options`` as a new dict (``{}`` for None), keys checked.

    Raises:
        TypeError: ``options`` is not None or a dict (a mapping).
        ValueError: a key not in ``allowed``; the message lists the options.
    """
    names = " and ".join(repr(k) for k in allowed)
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(
            f"reset options must be None or a dict with the keys {names}, "
            f"got {type(options).__name__} {options!r}"
        )
    unknown = [k for k in options if k not in allowed]
    if unknown:
        raise ValueError(
            f"unknown reset options {sorted(map(str, unknown))}; the options are {names}"
        )
    return dict(options)


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON ``text`` (0 for a scalar, 1 for
    ``[]``), counted without parsing: brackets inside strings are skipped. Text that is not
    JSON gets a number all the same (``json`` then says what is wrong with it)."""
    depth = deepest = 0
    for bracket in _JSON_BRACKET.findall(_JSON_STRING.sub('""', text)):
        if bracket in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest
