"""The rule table: which card may go onto a column top, or into an empty column.

One table per build rule and empty-column rule, ``table[top][card]`` over card codes (top 0 is
an empty column). It is the one statement of RULES.md's common rules 4 and 5 (and of the
build rule of the variant table, which also decides what a sequence is): the compiled rules
core (:mod:`.core`) reads it as the table array's ``accepts`` block, and
:attr:`fortythieves_env.Rules.build_table` is it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from .cards import RANK, RED, SUIT
from .variants import Build, EmptyColumn

__all__ = ["EMPTY_COLUMN_RULES", "KING", "EmptyColumnRule", "accepts_table"]

KING = 12
"""The ``RANK`` of a King (Ace 0)."""


class EmptyColumnRule(NamedTuple):
    """One member of :class:`~fortythieves_env.rules.variants.EmptyColumn`, stated."""

    takes: Callable[[int], bool]
    """``takes(card)``: may ``card`` (a code 1..52; for a sequence, its first card) go into
    an empty column?"""
    words: str
    """What an empty column takes, in words: the reason a refused move into an empty column
    gives (``"an empty column takes only a King here, not QC"``)."""


EMPTY_COLUMN_RULES: dict[EmptyColumn, EmptyColumnRule] = {
    EmptyColumn.ANY: EmptyColumnRule(lambda card: True, "any card"),
    EmptyColumn.KINGS: EmptyColumnRule(lambda card: RANK[card] == KING, "only a King"),
}
"""Each empty-column rule (RULES.md, common rule 5, and the custom variants' other rules):
what it lets into an empty column, and its words. Every member of ``EmptyColumn`` has an
entry (:func:`accepts_table` refuses one without); ``tests/env/test_rule_space.py`` plays
every member against the oracle."""


def accepts_table(build: Build, empty_column: EmptyColumn = EmptyColumn.ANY) -> list[list[bool]]:
    """``table[top][card]``: may ``card`` go onto column top ``top`` (0 = empty column)?

    The rule table of the build rule (RULES.md, common rule 4 and the variant table) and of
    what an empty column takes (common rule 5: any card; or another member of
    :class:`~fortythieves_env.rules.variants.EmptyColumn`, as :data:`EMPTY_COLUMN_RULES` states
    it). Every move rule reads it; it is the one place these rules are stated.

    Raises:
        ValueError: ``empty_column`` has no entry in :data:`EMPTY_COLUMN_RULES`.
    """
    rule = EMPTY_COLUMN_RULES.get(empty_column)
    if rule is None:
        raise ValueError(f"the rule table states no empty-column rule {empty_column.value!r}")
    table = [[card != 0 and rule.takes(card) for card in range(53)]]
    for top in range(1, 53):
        row = [False] * 53
        for card in range(1, 53):
            if RANK[top] != RANK[card] + 1:
                continue
            if build is Build.SAME_SUIT:
                row[card] = SUIT[top] == SUIT[card]
            elif build is Build.ALTERNATE_COLOUR:
                row[card] = RED[top] != RED[card]
            else:
                row[card] = SUIT[top] != SUIT[card]
        table.append(row)
    return table
