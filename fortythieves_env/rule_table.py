"""The rule table: which card may go onto a column top, or into an empty column.

One table per build rule and empty-column rule, ``table[top][card]`` over card codes (top 0 is
an empty column). It is the one statement of RULES.md's common rules 4 and 5 (and of the
build rule of the variant table, which also decides what a sequence is): the compiled rules
core (:mod:`._fast`) reads it as the table array's ``accepts`` block, and
:attr:`fortythieves_env.Rules.build_table` is it.
"""

from __future__ import annotations

from .cards import RANK, RED, SUIT
from .variants import Build, EmptyColumn

__all__ = ["KING", "accepts_table"]

KING = 12
"""The ``RANK`` of a King (Ace 0)."""


def accepts_table(build: Build, empty_column: EmptyColumn = EmptyColumn.ANY) -> list[list[bool]]:
    """``table[top][card]``: may ``card`` go onto column top ``top`` (0 = empty column)?

    The rule table of the build rule (RULES.md, common rule 4 and the variant table) and of
    what an empty column takes (common rule 5: any card; or Kings only, a custom variant's
    :class:`~fortythieves_env.variants.EmptyColumn`). Every move rule reads it; it is the one
    place these rules are stated.
    """
    kings_only = empty_column is EmptyColumn.KINGS
    table = [[card != 0 and (not kings_only or RANK[card] == KING) for card in range(53)]]
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
