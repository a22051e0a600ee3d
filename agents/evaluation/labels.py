"""The protocol's solver labels shipped with the package: the solver's verdict on each of the
first :data:`PROTOCOL_DEALS` test deals of every variant (``won``, ``lost`` or ``unknown``:
every saved record of the deal counts, won > lost > unknown), made under
:data:`~fortythieves_env.RULES_VERSION`, with the solver versions and node budgets that
decided them. Written from the checkout's ``results/solver/<Variant>.jsonl`` by
``python -m fortythieves_agents.reports``
(:func:`fortythieves_agents.reports.summary.protocol_labels`; a test checks they agree), so
that a wheel installed anywhere scores an agent as a clone does (``evaluate``'s solver column,
``fortythieves leaderboard``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from fortythieves_env import RULES_VERSION

from ..seeds import TEST_START

__all__ = [
    "LABELS_FILE",
    "PROTOCOL_DEALS",
    "labels_from_verdicts",
    "protocol_labels",
    "protocol_verdicts",
]

PROTOCOL_DEALS = 200
"""The protocol's deal set: the first 200 test deals, every one labelled at the solver's
largest budget run on all variants."""

LABELS_FILE = Path(__file__).resolve().parent / "protocol_labels.json"
"""The protocol's solver labels (module docstring): ``{"rules_version", "deals",
"first_seed", "variants": {variant: {"labels": "wlu..." (one letter per deal, in deal
order), "solvers": [[rules_version, solver_version, nodes_budget, records], ...]}}}``."""

_LETTER = {"won": "w", "lost": "l", "unknown": "u"}


@cache
def protocol_labels() -> dict[str, Any]:
    """The shipped protocol labels (:data:`LABELS_FILE`), as read from JSON.

    Raises:
        OSError: the file is missing from the installation.
    """
    return json.loads(LABELS_FILE.read_text(encoding="utf-8"))


def protocol_verdicts(variant: str, seeds: Sequence[int]) -> dict[int, str] | None:
    """The shipped labels of ``seeds`` (``seed -> "won" | "lost" | "unknown"``), or None
    when the variant has none or a seed is not among the protocol's deals, or the labels
    were made under other rules than :data:`~fortythieves_env.RULES_VERSION`."""
    labels = protocol_labels()
    entry = labels["variants"].get(variant)
    if entry is None or labels["rules_version"] != RULES_VERSION:
        return None
    first, letters = labels["first_seed"], entry["labels"]
    status = {v: k for k, v in _LETTER.items()}
    out = {}
    for seed in seeds:
        i = seed - first
        if not 0 <= i < len(letters):
            return None
        out[seed] = status[letters[i]]
    return out


def labels_from_verdicts(
    verdicts: dict[str, dict[int, str]], solvers: dict[str, list[list[int]]]
) -> dict[str, Any]:
    """:data:`LABELS_FILE`'s content from each variant's verdicts on the protocol's deals
    (``seed -> status``) and the solver versions that made them."""
    return {
        "rules_version": RULES_VERSION,
        "deals": PROTOCOL_DEALS,
        "first_seed": TEST_START,
        "variants": {
            variant: {
                "labels": "".join(_LETTER[status] for _, status in sorted(by_seed.items())),
                "solvers": solvers[variant],
            }
            for variant, by_seed in verdicts.items()
        },
    }
