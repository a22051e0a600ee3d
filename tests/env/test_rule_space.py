"""The oracle against the compiled core over the whole rule space (issue 38, point 3).

Gymnasium runs its environment checker over every registered spec; here the oracle
(``tests/oracle.py``, the rules restated from ``RULES.md``) is run against the compiled core
(through :class:`~fortythieves_env.Rules`) over custom variants that cover every member of
every rule field of :class:`~fortythieves_env.VariantSpec`: each enum (the build rule, what an
empty column takes) and each yes/no rule (sequence moves, the Aces on the foundations) in
every combination, found by looking at the dataclass, not listed by hand, with the counts
(columns, face-down and face-up cards, cards per draw, redeals) varied across them. A member
added to an enum is played here at once: stated in the core only, the oracle refuses it; in
the oracle only, the core does.

Random games compare the legal moves and the position move by move, and, in positions along
the way, the reason :meth:`~fortythieves_env.Rules.why_illegal` gives for every refused
action, which the oracle restates per rule.
"""

from __future__ import annotations

import dataclasses
import enum
import itertools
import typing
import zlib
from collections.abc import Sequence

import numpy as np
import oracle
import pytest

from fortythieves_env import VARIANTS, EmptyColumn, GameState, Rules, VariantSpec
from fortythieves_env.rules.actions import COLUMN_TO_FOUNDATION, WASTE_TO_FOUNDATION
from fortythieves_env.rules.engine import rules_for
from fortythieves_env.rules.rule_table import EMPTY_COLUMN_RULES

NOT_RULES = frozenset({"id", "name", "max_episode_steps", "pysol_id"})
"""The fields of a :class:`VariantSpec` that are not rules."""

SHAPES: tuple[tuple[int, int, int], ...] = (
    (10, 0, 4),
    (10, 1, 2),
    (12, 0, 3),
    (10, 3, 1),
    (13, 0, 3),
    (9, 2, 4),
    (8, 1, 3),
)
"""``(n_columns, face_down, face_up)`` taken in turn by the specs of :data:`RULE_SPACE`."""


def choice_fields() -> dict[str, list[object]]:
    """Every rule field of :class:`VariantSpec` with a finite set of values (an enum or a
    bool), and its values, read from the dataclass."""
    hints = typing.get_type_hints(VariantSpec)
    choices: dict[str, list[object]] = {}
    for field in dataclasses.fields(VariantSpec):
        kind = hints[field.name]
        if field.name in NOT_RULES:
            continue
        if isinstance(kind, type) and issubclass(kind, enum.Enum):
            choices[field.name] = list(kind)
        elif kind is bool:
            choices[field.name] = [False, True]
    return choices


def rule_space() -> list[VariantSpec]:
    """One custom variant per combination of the values of :func:`choice_fields`; the counts
    follow from the values (a hash of them picks one of :data:`SHAPES`, 1-3 cards a draw,
    0-3 redeals), so that a new member leaves the other variants as they were."""
    choices = choice_fields()
    specs = []
    for k, values in enumerate(itertools.product(*choices.values())):
        fields = dict(zip(choices, values, strict=True))
        label = "-".join(str(getattr(v, "value", f"{name}={v}")) for name, v in fields.items())
        h = zlib.crc32(label.encode())  # the counts follow the label: a new member moves none
        n_columns, face_down, face_up = SHAPES[h % len(SHAPES)]
        specs.append(
            VariantSpec(
                **{
                    "id": f"RuleSpace{k}",
                    "name": f"Rule space {label}",
                    "n_columns": n_columns,
                    "face_down": face_down,
                    "face_up": face_up,
                    "deal_count": 1 + (h >> 8) % 3,
                    "redeals": (h >> 16) % 4,
                    **fields,
                }  # type: ignore[arg-type]
            )
        )
    return specs


RULE_SPACE = rule_space()


def test_the_rule_space_covers_every_rule_value() -> None:
    """Every enum member and both values of every yes/no rule, in every combination; every
    count of a built-in variant's rule fields (and more) somewhere."""
    choices = choice_fields()
    assert {"build", "empty_column", "sequence_moves", "aces_on_foundations"} <= set(choices)
    assert len(RULE_SPACE) == np.prod([len(v) for v in choices.values()])
    for name, values in choices.items():
        assert {getattr(s, name) for s in RULE_SPACE} == set(values), name
    counts = {f.name for f in dataclasses.fields(VariantSpec)} - NOT_RULES - set(choices)
    assert counts == {"n_columns", "face_down", "face_up", "deal_count", "redeals"}
    for name in counts:
        used = {getattr(s, name) for s in VARIANTS.values()}
        assert used <= {getattr(s, name) for s in RULE_SPACE}, name


def test_every_empty_column_rule_is_stated_in_words() -> None:
    """The rule table and the oracle state every member of :class:`EmptyColumn`."""
    assert set(EMPTY_COLUMN_RULES) == set(EmptyColumn)
    for spec in RULE_SPACE:
        for card in range(1, 53):
            oracle.empty_column_takes(spec, card)  # no NotImplementedError


def _label(spec: VariantSpec) -> str:
    return spec.name.removeprefix("Rule space ")


def _pick(rules: Rules, state: GameState, legal: list[int], rng: np.random.Generator) -> int:
    """A random legal action; four times in five one of those that empty a column, fill
    an empty one or go to a foundation, when there are some (so that the empty-column rule
    is met early in every variant)."""
    keen = []
    for action in legal:
        kind, src, dst, n = rules.decode(action)
        if (
            kind in (WASTE_TO_FOUNDATION, COLUMN_TO_FOUNDATION)
            or (dst >= 0 and not state.tableau[dst])
            or (src >= 0 and len(state.tableau[src]) == n and not state.face_down[src])
        ):
            keen.append(action)
    pool = keen if keen and rng.random() < 0.8 else legal
    return pool[int(rng.integers(len(pool)))]


@pytest.mark.parametrize("spec", RULE_SPACE, ids=_label)
def test_the_core_plays_the_oracles_games_over_the_rule_space(spec: VariantSpec) -> None:
    """8 random games of up to 250 moves (:func:`_pick` over the oracle's legal moves): the
    same legal actions in every position, the same position and foundation count after every
    move, and the same ``why_illegal`` (the oracle words each refusal by its rule) for every
    move into the first empty column of a position (3,000 such moves); every 50th position, the same sequence lengths and the same
    ``why_illegal`` for every action. Moves into an empty column occur, and so do refusals
    of a rule other than "any card"."""
    rules = rules_for(spec)
    rng = np.random.default_rng(sum(map(ord, spec.name)))
    into: list[list[int]] = [[] for _ in range(spec.n_columns)]  # the actions into column j
    for action in range(rules.n_actions):
        if (dst := rules.decode(action).destination) >= 0:
            into[dst].append(action)
    moves = into_empty = reasons = into_checked = 0
    for _ in range(8):
        state = rules.deal(rng)
        twin = state.copy()
        for step in range(250):
            legal = oracle.legal_actions(spec, twin)
            assert rules.legal_actions(state) == legal, rules.to_position(state)
            empty = [j for j in range(spec.n_columns) if not twin.tableau[j]]
            if step % 50 == 0:
                for column in range(spec.n_columns):
                    expected = oracle.sequence_length(spec, twin, column)
                    assert rules.sequence_length(state, column) == expected
            checked: Sequence[int] = []
            if step % 50 == 0:
                checked = range(rules.n_actions)
            elif empty and into_checked < 3000:
                checked = into[empty[0]]
                into_checked += len(checked)
            for action in checked:
                expected = oracle.why_illegal(spec, twin, action, legal)
                assert rules.why_illegal(state, action) == expected, (
                    rules.action_to_move(action),
                    rules.to_position(state),
                )
                reasons += expected.startswith("an empty column")
            if not legal:
                break
            action = _pick(rules, twin, legal, rng)
            _, _, dst, _ = rules.decode(action)
            into_empty += dst >= 0 and not twin.tableau[dst]
            assert rules.apply(state, action) == oracle.apply(spec, twin, action)
            assert state == twin
            moves += 1
    assert moves > 8 * 40
    assert into_empty > 0
    if spec.empty_column is not EmptyColumn.ANY:
        assert reasons > 0  # a refusal of this rule was worded and compared
