"""The Forty Thieves family as one rule space: its bounds, the shared encoding, the rule
sets sampled per episode, and the held-out split.

A *rule set* is a :class:`~fortythieves_env.VariantSpec`: the points on which the games of
the family differ (columns, cards dealt face down and face up, build rule, single cards or
sequences, what an empty column takes, cards per ``draw``, redeals, Aces on the foundations
at the start). Two specs with the same rule fields (:func:`rule_key`) are the same game
whatever their ``id``, ``name``, ``pysol_id`` and ``max_episode_steps``.

The bounds
----------
:data:`FAMILY_BOUNDS` is the part of the rule space that the shared encoding covers and
that the training distribution draws from. It holds the nine variants of ``RULES.md`` and
every held-out game of :data:`HELD_OUT_GAMES`:

=====================  ====================================================================
field                  values
=====================  ====================================================================
``n_columns``          7 .. 13
``face_down``          0 .. 3
``face_up``            1 .. 5
``build``              same suit, alternate colour, any other suit
``sequence_moves``     False, True
``empty_column``       any card, Kings only
``deal_count``         1 .. 3
``redeals``            0 .. 3
``aces_on_foundations`` False, True
=====================  ====================================================================

So a column is dealt at most 8 cards and holds at most 20 (8 + a run of 12 built on top),
the stock holds at most 97 cards (104 minus 7 columns of 1), and the shared action space is
that of 13 columns with sequence moves: 2057 actions. :func:`rule_set` builds the canonical
spec of a point of the bounds; a combination whose cards do not fit (more cards dealt than
the 104, or 96 with the Aces out; a ``deal_count`` or ``redeals`` without a stock) is
refused by :class:`~fortythieves_env.VariantSpec` itself, so it is no rule set.

The split
---------
*Held out* (:data:`HELD_OUT`, :func:`split_of`): the nine variants of ``RULES.md`` and the
named games of PySolFC's Forty Thieves list that a spec can express
(:data:`HELD_OUT_GAMES`, each with its source), and the other published reading of two of
them (:data:`OTHER_READINGS`). *Training*: every other rule set of the bounds. The
sampler (:class:`RuleSetSampler`) never draws a held-out rule set; evaluate on them
zero-shot (``variant=`` of :class:`~fortythieves_env.envs.family_env.FamilyEnv`).

The distribution
----------------
:class:`RuleSetSampler` draws, from a NumPy generator, each field independently and
uniformly over its bound (in the order of the table above), and draws again while the rule
set cannot be dealt or is held out. Conditioning a uniform product on a subset gives the
uniform distribution on that subset: each training rule set of the bounds is equally likely
(:attr:`RuleSetSampler.support_size` of them: 39,891 for :data:`FAMILY_BOUNDS`). The draw is
a function of the generator's state, so a seed fixes the sequence of rule sets.

The shared encoding
-------------------
One observation layout (:data:`FAMILY_LAYOUT`) and one action codec (:data:`FAMILY_CODEC`)
serve every rule set of the bounds; :func:`rule_set_map` says where one rule set's own
observation entries and actions sit in them (the environments translate, the rules stay in
the per-variant compiled core). See :class:`FamilyLayout` for the index table.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ..rules.actions import ActionCodec
from ..rules.cards import N_CARDS
from ..rules.observation import LATEST_VERSION, ObservationLayout
from ..rules.tables import tables_for
from ..rules.variants import (
    CUSTOM_VARIANTS,
    VARIANTS,
    Build,
    EmptyColumn,
    VariantSpec,
)

__all__ = [
    "FAMILY_BOUNDS",
    "FAMILY_CODEC",
    "FAMILY_LAYOUT",
    "HELD_OUT",
    "HELD_OUT_GAMES",
    "OTHER_READINGS",
    "RULE_FIELDS",
    "TRAINING",
    "FamilyBounds",
    "FamilyLayout",
    "RuleSetMap",
    "RuleSetSampler",
    "get_rule_set",
    "is_held_out",
    "rule_key",
    "rule_set",
    "rule_set_id",
    "rule_set_map",
    "split_of",
]

RULE_FIELDS: tuple[str, ...] = (
    "n_columns",
    "face_down",
    "face_up",
    "build",
    "sequence_moves",
    "empty_column",
    "deal_count",
    "redeals",
    "aces_on_foundations",
)
"""The rule fields of a :class:`~fortythieves_env.VariantSpec`, in the sampler's order:
every field but ``id``, ``name``, ``pysol_id`` and ``max_episode_steps``."""

RuleKey = tuple[int, int, int, Build, bool, EmptyColumn, int, int, bool]
"""A rule set's fields in :data:`RULE_FIELDS` order (:func:`rule_key`)."""


def rule_key(spec: VariantSpec) -> RuleKey:
    """The rule fields of ``spec`` (:data:`RULE_FIELDS` order): equal for the same game."""
    return tuple(getattr(spec, name) for name in RULE_FIELDS)  # type: ignore[return-value]


# ---------------------------------------------------------------------- bounds
def _span(name: str, value: object) -> tuple[int, int]:
    if (
        not isinstance(value, tuple)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        or value[0] > value[1]
    ):
        raise ValueError(
            f"FamilyBounds.{name} must be a (low, high) pair of integers, got {value!r}"
        )
    return value  # type: ignore[return-value]


@dataclass(frozen=True)
class FamilyBounds:
    """A box of the rule space: each field's allowed values.

    Attributes:
        n_columns, face_down, face_up, deal_count, redeals: ``(low, high)``, both included.
        builds: the build rules (:class:`~fortythieves_env.Build`), in draw order.
        sequence_moves: the allowed ``sequence_moves`` values, in draw order.
        empty_columns: the empty-column rules (:class:`~fortythieves_env.EmptyColumn`).
        aces_on_foundations: the allowed ``aces_on_foundations`` values.

    Raises:
        ValueError: a span that is not ``(low, high)`` with ``low <= high``, or an empty
            choice; the message names the field.
    """

    n_columns: tuple[int, int] = (7, 13)
    face_down: tuple[int, int] = (0, 3)
    face_up: tuple[int, int] = (1, 5)
    builds: tuple[Build, ...] = (Build.SAME_SUIT, Build.ALTERNATE_COLOUR, Build.OTHER_SUIT)
    sequence_moves: tuple[bool, ...] = (False, True)
    empty_columns: tuple[EmptyColumn, ...] = (EmptyColumn.ANY, EmptyColumn.KINGS)
    deal_count: tuple[int, int] = (1, 3)
    redeals: tuple[int, int] = (0, 3)
    aces_on_foundations: tuple[bool, ...] = (False, True)

    def __post_init__(self) -> None:
        for name in ("n_columns", "face_down", "face_up", "deal_count", "redeals"):
            _span(name, getattr(self, name))
        object.__setattr__(self, "builds", tuple(Build(b) for b in self.builds))
        object.__setattr__(self, "empty_columns", tuple(EmptyColumn(e) for e in self.empty_columns))
        for name in ("builds", "sequence_moves", "empty_columns", "aces_on_foundations"):
            values = getattr(self, name)
            if not values or len(set(values)) != len(values):
                raise ValueError(f"FamilyBounds.{name} must list distinct values, got {values!r}")
        for name in ("sequence_moves", "aces_on_foundations"):
            if not all(isinstance(v, bool) for v in getattr(self, name)):
                raise ValueError(
                    f"FamilyBounds.{name} must hold True/False, got {getattr(self, name)!r}"
                )

    def choices(self) -> dict[str, tuple[Any, ...]]:
        """Each rule field's values, in :data:`RULE_FIELDS` order (the sampler's draw order)."""
        return {
            "n_columns": tuple(range(self.n_columns[0], self.n_columns[1] + 1)),
            "face_down": tuple(range(self.face_down[0], self.face_down[1] + 1)),
            "face_up": tuple(range(self.face_up[0], self.face_up[1] + 1)),
            "build": self.builds,
            "sequence_moves": self.sequence_moves,
            "empty_column": self.empty_columns,
            "deal_count": tuple(range(self.deal_count[0], self.deal_count[1] + 1)),
            "redeals": tuple(range(self.redeals[0], self.redeals[1] + 1)),
            "aces_on_foundations": self.aces_on_foundations,
        }

    def not_inside(self, other: FamilyBounds) -> str:
        """``""`` if this box is inside ``other``, else the first field that is not, as
        ``"n_columns 6..13 is not inside 7..13"``."""
        mine, theirs = self.choices(), other.choices()
        for name, values in mine.items():
            if not set(values) <= set(theirs[name]):
                return f"{name} {_show(values)} is not inside {_show(theirs[name])}"
        return ""

    def outside(self, spec: VariantSpec) -> str:
        """``""`` if ``spec``'s rule fields are inside the box, else the first field that is
        not, as ``"n_columns 14 is not in 7..13"``."""
        for name, values in self.choices().items():
            value = getattr(spec, name)
            if value not in values:
                return f"{name} {_show((value,))} is not in {_show(values)}"
        return ""

    def check(self, spec: VariantSpec) -> VariantSpec:
        """``spec`` if it is inside the box.

        Raises:
            ValueError: it is not; the message names the spec, the field and the bound.
        """
        why = self.outside(spec)
        if why:
            raise ValueError(f"rule set {spec.id!r} is outside the family's bounds: {why}")
        return spec

    def combinations(self) -> Iterator[RuleKey]:
        """Every combination of the fields' values (dealable or not), in draw order."""
        return itertools.product(*self.choices().values())  # type: ignore[return-value]

    def as_dict(self) -> dict[str, Any]:
        """The box as JSON-friendly data (to record with a run): ``[low, high]`` for the
        counts, the list of values for the other fields."""
        out: dict[str, Any] = {}
        for name, values in self.choices().items():
            plain = [v.value if isinstance(v, Build | EmptyColumn) else v for v in values]
            spans = ("n_columns", "face_down", "face_up", "deal_count", "redeals")
            out[name] = [plain[0], plain[-1]] if name in spans else plain
        return out


def _show(values: Sequence[Any]) -> str:
    """``7..13`` for a run of integers, else the values joined by ``, ``."""
    plain = [v.value if isinstance(v, Build | EmptyColumn) else v for v in values]
    ints = all(isinstance(v, int) and not isinstance(v, bool) for v in plain)
    if ints and len(plain) > 1 and plain == list(range(plain[0], plain[-1] + 1)):
        return f"{plain[0]}..{plain[-1]}"
    return ", ".join(str(v) for v in plain)


FAMILY_BOUNDS = FamilyBounds()
"""The family's bounds (module docstring): the shared encoding covers exactly this box."""

MAX_COLUMNS = FAMILY_BOUNDS.n_columns[1]
"""Columns of the shared encoding (13)."""
MAX_DEALT = FAMILY_BOUNDS.face_down[1] + FAMILY_BOUNDS.face_up[1]
"""The most cards dealt to a column in the bounds (8)."""
COLUMN_SLOTS = MAX_DEALT + 12
"""Card slots per column of the shared observation (20): a column's ``max_visible`` at 8 dealt."""
STOCK_SLOTS = N_CARDS - FAMILY_BOUNDS.n_columns[0] * 1
"""Waste (and known-stock) slots of the shared observation (97): the largest stock in the
bounds, 7 columns of one card."""


# ---------------------------------------------------------------------- rule sets
_BUILD_CODES = {Build.SAME_SUIT: "SS", Build.ALTERNATE_COLOUR: "AC", Build.OTHER_SUIT: "OS"}
_BUILD_WORDS = {
    Build.SAME_SUIT: "same suit",
    Build.ALTERNATE_COLOUR: "alternate colour",
    Build.OTHER_SUIT: "any other suit",
}
_ID_RE = re.compile(
    r"R(\d+)c(\d+)d(\d+)u_(SS|AC|OS)_(one|seq)_(any|kings)_deal(\d+)_redeal(\d+)(_aces)?"
)


def rule_set_id(spec: VariantSpec) -> str:
    """The canonical id of ``spec``'s rule set, e.g. ``"R10c0d4u_SS_one_any_deal1_redeal0"``
    (Forty Thieves' rules): columns, cards down and up, build (``SS`` same suit, ``AC``
    alternate colour, ``OS`` any other suit), ``one`` card or ``seq`` sequences, what an
    empty column takes, cards per draw, redeals, and ``_aces`` when the Aces start on the
    foundations. :func:`get_rule_set` reads it back."""
    return (
        f"R{spec.n_columns}c{spec.face_down}d{spec.face_up}u_{_BUILD_CODES[spec.build]}_"
        f"{'seq' if spec.sequence_moves else 'one'}_{spec.empty_column.value}_"
        f"deal{spec.deal_count}_redeal{spec.redeals}"
        + ("_aces" if spec.aces_on_foundations else "")
    )


def rule_set(
    n_columns: int,
    face_down: int,
    face_up: int,
    build: Build | str,
    sequence_moves: bool,
    empty_column: EmptyColumn | str = EmptyColumn.ANY,
    deal_count: int = 1,
    redeals: int = 0,
    aces_on_foundations: bool = False,
) -> VariantSpec:
    """The canonical spec of a rule set: its id is :func:`rule_set_id`, its name says the
    rules in words, and its step limit is 1000, or 1500 with redeals (the nine variants'
    limits: Little Forty, the one with redeals, has 1500).

    Equal rule sets give equal specs, so the per-variant caches (tables, codecs) hold one
    entry per rule set.

    Raises:
        ValueError: the fields cannot be dealt or are not valid (as
            :class:`~fortythieves_env.VariantSpec` says, one line naming the field).
    """
    spec = VariantSpec(
        "R",
        "",
        n_columns,
        face_down,
        face_up,
        build,  # type: ignore[arg-type]
        sequence_moves,
        deal_count=deal_count,
        redeals=redeals,
        aces_on_foundations=aces_on_foundations,
        empty_column=empty_column,  # type: ignore[arg-type]
    )
    name = (
        f"{spec.n_columns} columns of {spec.face_down} down + {spec.face_up} up, "
        f"{_BUILD_WORDS[spec.build]}, {'sequences' if spec.sequence_moves else 'one card'}, "
        f"{'Kings' if spec.empty_column is EmptyColumn.KINGS else 'any card'} in an empty "
        f"column, deal {spec.deal_count}, {spec.redeals} redeal{'' if spec.redeals == 1 else 's'}"
        + (", Aces out" if spec.aces_on_foundations else "")
    )
    return dataclasses.replace(
        spec,
        id=rule_set_id(spec),
        name=name,
        max_episode_steps=1500 if spec.redeals else 1000,
    )


def _canonical(spec: VariantSpec) -> VariantSpec:
    """:func:`rule_set` of ``spec``'s rule fields."""
    return rule_set(*rule_key(spec))


# ---------------------------------------------------------------------- held-out games
_S, _A, _O = Build.SAME_SUIT, Build.ALTERNATE_COLOUR, Build.OTHER_SUIT

HELD_OUT_GAMES: dict[str, VariantSpec] = {
    spec.id: spec
    for spec in (
        # PySolFC game 80, "Busy Aces": "Like Forty Thieves, but with 12 piles and one card in
        # each pile" (PySolFC's rules page html-src/rules/busyaces.html; no redeal).
        VariantSpec("BusyAces", "Busy Aces", 12, 0, 1, _S, False, pysol_id=80),
        # PySolFC game 79, "Waning Moon": "Like Forty Thieves, but with 13 piles"
        # (html-src/rules/waningmoon.html; no redeal).
        VariantSpec("WaningMoon", "Waning Moon", 13, 0, 4, _S, False, pysol_id=79),
        # PySolFC game 462, "Josephine": "Like Forty Thieves, but sequences of cards may be
        # moved together" (html-src/rules/josephine.html; no redeal).
        VariantSpec("Josephine", "Josephine", 10, 0, 4, _S, True, pysol_id=462),
        # PySolFC game 295, "Napoleon's Square": "Like Forty Thieves, but with twelve piles,
        # and sequences of cards may be moved together" (html-src/rules/napoleonssquare.html).
        # That page says "1 redeal"; PySolFC plays it with none (one pass, game info 0
        # redeals): this is PySolFC's game, and OTHER_READINGS holds the page's.
        VariantSpec("NapoleonsSquare", "Napoleon's Square", 12, 0, 4, _S, True, pysol_id=295),
        # PySolFC game 23, "Forty and Eight": "Like Forty Thieves, but with eight piles and
        # one redeal" (html-src/rules/fortyandeight.html).
        VariantSpec(
            "FortyAndEight",
            "Forty and Eight",
            8,
            0,
            4,
            _S,
            False,
            redeals=1,
            max_episode_steps=1500,
            pysol_id=23,
        ),
        # PySolFC game 310, "Emperor": "Like Forty Thieves, but the piles build down by
        # alternate color and only the top card of each pile is face-up" (3 down + 1 up;
        # html-src/rules/emperor.html; Rank and File with one card at a time).
        VariantSpec("Emperor", "Emperor", 10, 3, 1, _A, False, pysol_id=310),
        # PySolFC game 74, "Midshipman": "Like Forty Thieves, but the 9 piles build down by
        # any suit but own. Much like Indian" (html-src/rules/midshipman.html); PySolFC deals
        # it 2 down + 2 up.
        VariantSpec("Midshipman", "Midshipman", 9, 2, 2, _O, False, pysol_id=74),
        # PySolFC game 683, "Famous Fifty": "Like Forty Thieves, but with five cards in each
        # pile" (html-src/rules/famousfifty.html; no redeal).
        VariantSpec("FamousFifty", "Famous Fifty", 10, 0, 5, _S, False, pysol_id=683),
        # PySolFC game 588, "Roosevelt": "Like Forty Thieves, but with seven tableau piles of
        # four cards each, and the piles build down by alternate color"
        # (html-src/rules/roosevelt.html; no redeal).
        VariantSpec("Roosevelt", "Roosevelt", 7, 0, 4, _A, False, pysol_id=588),
        # PySolFC game 529, "San Juan Hill": "Like Forty Thieves, but the aces are dealt to the
        # foundations at the start of the game" (html-src/rules/sanjuanhill.html).
        VariantSpec(
            "SanJuanHill",
            "San Juan Hill",
            10,
            0,
            4,
            _S,
            False,
            aces_on_foundations=True,
            pysol_id=529,
        ),
    )
}
"""The named games of PySolFC's Forty Thieves list (``pysollib/games/fortythieves.py`` and
its rules pages, ``html-src/rules/<name>.html`` in the PySolFC repository) that a
:class:`~fortythieves_env.VariantSpec` can express, as this project plays them (the rule
book's common rules: the waste starts empty, foundation cards stay). Each entry's source is
quoted beside it. Left out, because a spec cannot say them: games of one, three or four
decks; tableaux built regardless of suit (Napoleon's Exile, the Rails); foundations that are
not Ace up in suit (Deuces, Red and Black); empty columns filled from the waste or stock
(Courtyard, Corona, Triple Line); reserves, or cards dealt onto the foundations during the
deal (Carre Napoleon, Octave, Squadron); face-down cards between face-up ones
(Interchange and its kin)."""

OTHER_READINGS: tuple[VariantSpec, ...] = (
    dataclasses.replace(
        HELD_OUT_GAMES["NapoleonsSquare"],
        id="NapoleonsSquareOneRedeal",
        name="Napoleon's Square (its rules page: 1 redeal)",
        redeals=1,
        max_episode_steps=1500,
    ),
    # PySolFC's Lucas (game 125): 13 columns of 4, no Aces out, sequences move (RULES.md,
    # "Where PySolFC plays differently").
    VariantSpec("LucasPySolFC", "Lucas (as PySolFC plays it)", 13, 0, 4, _S, True, pysol_id=125),
)
"""Other published readings of held-out games, held out too so that no reading of a named
game is trained on: Napoleon's Square with the redeal its rules page names, and Lucas as
PySolFC plays it."""

HELD_OUT: dict[str, VariantSpec] = {**VARIANTS, **HELD_OUT_GAMES}
"""The held-out named games: the nine variants of ``RULES.md`` and :data:`HELD_OUT_GAMES`,
by id (the training distribution never draws them, nor :data:`OTHER_READINGS`)."""

_HELD_OUT_KEYS: frozenset[RuleKey] = frozenset(
    rule_key(spec) for spec in (*HELD_OUT.values(), *OTHER_READINGS)
)


def is_held_out(spec: VariantSpec) -> bool:
    """Whether ``spec``'s rules are those of a held-out game (:data:`HELD_OUT` or
    :data:`OTHER_READINGS`), whatever its id or name."""
    return rule_key(spec) in _HELD_OUT_KEYS


def split_of(spec: VariantSpec) -> Literal["train", "held_out", "outside"]:
    """Which part of the family ``spec``'s rules belong to: ``"held_out"`` (a named game),
    ``"train"`` (a rule set the sampler may draw from :data:`FAMILY_BOUNDS`), or
    ``"outside"`` (not in the bounds)."""
    if is_held_out(spec):
        return "held_out"
    return "outside" if FAMILY_BOUNDS.outside(spec) else "train"


def get_rule_set(value: str | VariantSpec) -> VariantSpec:
    """The spec that ``value`` names: a spec itself; a variant id (the nine, or one
    registered with :func:`~fortythieves_env.register_variant`); a held-out game's id
    (:data:`HELD_OUT_GAMES`, :data:`OTHER_READINGS`); or a rule-set id
    (:func:`rule_set_id`, read back into :func:`rule_set`).

    Raises:
        ValueError: none of these; the message lists the named ids and shows a rule-set id.
            Also (from :func:`rule_set`) a rule-set id whose cards cannot be dealt.
        TypeError: ``value`` is neither a string nor a spec.
    """
    if isinstance(value, VariantSpec):
        return value
    if not isinstance(value, str):
        raise TypeError(f"a rule set is a VariantSpec or an id string, got {type(value).__name__}")
    named = {**HELD_OUT, **{s.id: s for s in OTHER_READINGS}, **CUSTOM_VARIANTS}
    if value in named:
        return named[value]
    match = _ID_RE.fullmatch(value)
    if match is None:
        raise ValueError(
            f"unknown rule set {value!r}: give a VariantSpec, one of the ids "
            f"{', '.join(named)}, or a rule-set id such as 'R10c0d4u_SS_one_any_deal1_redeal0'"
        )
    c, fd, fu, build, moves, empty, deal, redeals, aces = match.groups()
    return rule_set(
        int(c),
        int(fd),
        int(fu),
        {code: b for b, code in _BUILD_CODES.items()}[build],
        moves == "seq",
        empty,
        int(deal),
        int(redeals),
        aces is not None,
    )


# ---------------------------------------------------------------------- the sampler
_MAX_DRAWS_BEFORE_CHECK = 1000


@dataclass(frozen=True)
class RuleSetSampler:
    """The training distribution: rule sets drawn uniformly from a box of the rule space,
    never a held-out one (module docstring, "The distribution").

    Attributes:
        bounds: the box (default :data:`FAMILY_BOUNDS`).

    Raises:
        TypeError: ``bounds`` is not a :class:`FamilyBounds`.
        ValueError: ``bounds`` is not inside :data:`FAMILY_BOUNDS` (the shared encoding
            covers no more); the message names the field.
    """

    bounds: FamilyBounds = FAMILY_BOUNDS

    def __post_init__(self) -> None:
        if not isinstance(self.bounds, FamilyBounds):
            raise TypeError(f"bounds must be a FamilyBounds, got {type(self.bounds).__name__}")
        why = self.bounds.not_inside(FAMILY_BOUNDS)
        if why:
            raise ValueError(
                f"the sampler's bounds must be inside the family's bounds (the shared "
                f"encoding covers no more): {why}"
            )

    def sample(self, rng: np.random.Generator) -> VariantSpec:
        """Draw one rule set (its canonical :func:`rule_set` spec).

        Each field is drawn with ``rng.integers`` over its values, in :data:`RULE_FIELDS`
        order; a rule set that cannot be dealt or is held out is drawn again.

        Raises:
            TypeError: ``rng`` is not a ``numpy.random.Generator``.
            ValueError: the box holds no rule set to draw (every one is held out or
                cannot be dealt).
        """
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        choices = list(self.bounds.choices().values())
        for draws in itertools.count(1):
            key = [values[int(rng.integers(len(values)))] for values in choices]
            spec = self._accept(tuple(key))  # type: ignore[arg-type]
            if spec is not None:
                return spec
            if draws == _MAX_DRAWS_BEFORE_CHECK and not self.support_size:
                raise ValueError(
                    f"the bounds {self.bounds.as_dict()} hold no rule set to train on: every "
                    "one is held out or cannot be dealt"
                )
        raise AssertionError("unreachable")  # pragma: no cover

    def accepts(self, spec: VariantSpec) -> bool:
        """Whether the sampler can draw ``spec``'s rule set (in the box, dealable, not held
        out)."""
        return not self.bounds.outside(spec) and not is_held_out(spec)

    def support(self) -> list[VariantSpec]:
        """Every rule set the sampler draws, each equally likely (canonical specs, in the
        box's order). Builds each one: about a second for :data:`FAMILY_BOUNDS`."""
        out = []
        for key in self.bounds.combinations():
            spec = self._accept(key)
            if spec is not None:
                out.append(spec)
        return out

    @functools.cached_property
    def support_size(self) -> int:
        """How many rule sets the sampler draws from (:meth:`support`'s length)."""
        return sum(1 for key in self.bounds.combinations() if self._accept(key) is not None)

    def _accept(self, key: RuleKey) -> VariantSpec | None:
        """The canonical spec of ``key``, or None if it cannot be dealt or is held out."""
        if key in _HELD_OUT_KEYS:
            return None
        try:
            return rule_set(*key)
        except ValueError:  # VariantSpec refuses it: the cards cannot be dealt
            return None


TRAINING = RuleSetSampler()
"""The training distribution over :data:`FAMILY_BOUNDS`."""


# ---------------------------------------------------------------------- the shared encoding
_ENVELOPE = VariantSpec(
    "Family",
    "the family's shared encoding",
    MAX_COLUMNS,
    0,
    1,
    Build.SAME_SUIT,
    True,
)
"""A spec with the shared action layout (13 columns, sequence moves); nothing else counts."""

FAMILY_CODEC: ActionCodec = tables_for(_ENVELOPE).codec
"""The shared action codec: the action layout of :mod:`fortythieves_env.rules.actions` for 13
columns and sequence moves (``n = 3 + 2*13 + 13*12*13 = 2057``), with the same move
notation. A rule set's move ``ti>tjxN`` is the shared action of the same move; the
actions a rule set lacks (columns it does not have, ``xN`` without sequence moves) are
never legal in it."""

N_RULE_FEATURES = 11 + MAX_COLUMNS
"""Entries of the rule-set part of the shared observation (24)."""


@dataclass(frozen=True)
class FamilyLayout:
    """The shared observation: one ``uint8`` vector for every rule set of the bounds.

    Index table (``C = 13`` columns, ``V = 20`` slots per column, ``W = 97`` waste and
    known-stock slots, ``P = 477`` = :attr:`cards` ``.size``, ``R`` the rule set):

    ===================  ========  =========================================================
    indices              values    meaning
    ===================  ========  =========================================================
    ``0 .. P-1``         as the    the position, laid out as a variant's observation
                         variant   (:mod:`fortythieves_env.rules.observation`, version 1) of 13
                                   columns with ``V`` and ``W`` slots: column i's face-up
                                   cards at ``i*V``, the waste at ``C*V``, the known stock
                                   at ``C*V+W``, 8 foundation heights at ``C*V+2W``, 13
                                   face-down counts, the stock count, the redeals left.
                                   Columns, slots and waste slots that ``R`` does not have
                                   are 0 (card codes 0, counts 0).
    ``P``                7..13     ``R.n_columns``
    ``P+1``              0..3      ``R.face_down`` (dealt per column)
    ``P+2``              1..5      ``R.face_up`` (dealt per column)
    ``P+3 .. P+5``       0/1       ``R.build``: same suit, alternate colour, any other suit
                                   (one-hot)
    ``P+6``              0/1       ``R.sequence_moves``
    ``P+7``              0/1       ``R.empty_column`` is Kings only
    ``P+8``              1..3      ``R.deal_count``
    ``P+9``              0..3      ``R.redeals`` (the rule; the redeals left are in the
                                   position part)
    ``P+10``             0/1       ``R.aces_on_foundations``
    ``P+11 .. P+23``     0/1       column i exists (``i < R.n_columns``), one per column
    ===================  ========  =========================================================

    Size ``P + 24 = 501``. The first :attr:`cards` ``.n_card_slots`` entries are card codes
    (0..52), as in a variant's observation, so a network can one-hot them.

    Attributes:
        cards: the position part, an :class:`~fortythieves_env.ObservationLayout` of 13
            columns (its slices name the parts).
    """

    cards: ObservationLayout

    @property
    def rules(self) -> slice:
        """The rule-set part (:data:`N_RULE_FEATURES` entries)."""
        return slice(self.cards.size, self.cards.size + N_RULE_FEATURES)

    @property
    def columns_present(self) -> slice:
        """One entry per column: 1 if the rule set has it."""
        return slice(self.cards.size + 11, self.cards.size + N_RULE_FEATURES)

    @property
    def size(self) -> int:
        """Length of the shared observation (501)."""
        return self.cards.size + N_RULE_FEATURES

    def high(self) -> np.ndarray:
        """Upper bound of every entry (``uint8``, shape ``(size,)``), for the ``Box``: 52
        for card codes, 13 for foundation heights, and the bounds' largest counts."""
        cards = self.cards
        high = np.full(self.size, 1, dtype=np.uint8)
        high[: cards.n_card_slots] = 52
        high[cards.foundations] = 13
        high[cards.face_down] = FAMILY_BOUNDS.face_down[1]
        high[cards.stock] = STOCK_SLOTS
        high[cards.redeals_left] = FAMILY_BOUNDS.redeals[1]
        start = cards.size
        high[start] = FAMILY_BOUNDS.n_columns[1]
        high[start + 1] = FAMILY_BOUNDS.face_down[1]
        high[start + 2] = FAMILY_BOUNDS.face_up[1]
        high[start + 8] = FAMILY_BOUNDS.deal_count[1]
        high[start + 9] = FAMILY_BOUNDS.redeals[1]
        return high

    def rule_features(self, spec: VariantSpec) -> np.ndarray:
        """The rule-set part for ``spec`` (``uint8``, shape ``(24,)``, a new array)."""
        out = np.zeros(N_RULE_FEATURES, dtype=np.uint8)
        out[0] = spec.n_columns
        out[1] = spec.face_down
        out[2] = spec.face_up
        out[3 + list(Build).index(spec.build)] = 1
        out[6] = spec.sequence_moves
        out[7] = spec.empty_column is EmptyColumn.KINGS
        out[8] = spec.deal_count
        out[9] = spec.redeals
        out[10] = spec.aces_on_foundations
        out[11 : 11 + spec.n_columns] = 1
        return out


FAMILY_LAYOUT = FamilyLayout(
    ObservationLayout(
        n_columns=MAX_COLUMNS,
        column_slots=COLUMN_SLOTS,
        waste_slots=STOCK_SLOTS,
        stock_slots=STOCK_SLOTS,
        redeals=FAMILY_BOUNDS.redeals[1],
    )
)
"""The shared observation layout (:class:`FamilyLayout`)."""


@dataclass(frozen=True, eq=False)
class RuleSetMap:
    """Where one rule set's own observation and actions sit in the shared encoding.

    Built by :func:`rule_set_map` from the rule set's tables (its observation layout of
    version 1 and action codec: :func:`~fortythieves_env.rules.tables.tables_for`), the shared
    :data:`FAMILY_LAYOUT` and :data:`FAMILY_CODEC`: every entry of the rule set's
    observation, and every one of its actions, has one place in the shared ones; the shared
    entries and actions without a source are 0 (absent columns, unused slots, actions the
    rule set lacks).

    The environments do not copy observations through it: the compiled core writes the
    shared observation itself (its table array is built for :data:`FAMILY_LAYOUT`, see
    :class:`fortythieves_env.rules.tables.FastTables`), and the mask is mapped by
    :func:`fortythieves_env.envs._family_fast.mark_shared` through :attr:`to_shared`.
    :meth:`to_shared_obs` and :meth:`to_shared_mask` translate a rule set's own observation
    and mask (those of its :class:`~fortythieves_env.FortyThievesEnv`).

    Attributes:
        spec: the rule set.
        layout: its own observation layout (version 1).
        to_shared: ``int64 (n,)``: the shared action of each of its ``n`` actions
            (increasing: the action order is kept).
        from_shared: ``int64 (2057,)``: its action of each shared action, -1 where it has
            none.
        obs_index: ``int64 (layout.size,)``: the shared index of each entry of its own
            observation.
        features: ``uint8 (24,)``: the rule-set part of the shared observation.
    """

    spec: VariantSpec
    layout: ObservationLayout
    to_shared: np.ndarray
    from_shared: np.ndarray
    obs_index: np.ndarray
    features: np.ndarray

    def to_shared_obs(self, obs: np.ndarray) -> np.ndarray:
        """The shared observation (``uint8 (501,)``, new) of the rule set's own ``obs``
        (``uint8 (layout.size,)``)."""
        out = np.zeros(FAMILY_LAYOUT.size, dtype=np.uint8)
        out[self.obs_index] = obs
        out[FAMILY_LAYOUT.rules] = self.features
        return out

    def to_shared_mask(self, mask: np.ndarray) -> np.ndarray:
        """The shared mask (``int8 (2057,)``, new) of the rule set's own ``mask``
        (``(n,)``)."""
        out = np.zeros(FAMILY_CODEC.n_actions, dtype=np.int8)
        out[self.to_shared] = mask
        return out


@functools.lru_cache(maxsize=512)
def rule_set_map(spec: VariantSpec) -> RuleSetMap:
    """The :class:`RuleSetMap` of ``spec`` (shared, read-only; the last 512 are kept).

    Raises:
        ValueError: ``spec`` is outside :data:`FAMILY_BOUNDS` (the message names the field).
    """
    FAMILY_BOUNDS.check(spec)
    tables = tables_for(spec, LATEST_VERSION)  # its own observation layout and codec
    layout, codec = tables.layout, tables.codec
    shared = FAMILY_LAYOUT.cards
    obs_index = np.full(layout.size, -1, dtype=np.int64)
    parts = [(layout.column(i), shared.column(i)) for i in range(spec.n_columns)]
    parts += [
        (layout.waste, shared.waste),
        (layout.known_stock, shared.known_stock),
        (layout.foundations, shared.foundations),
        (layout.face_down, shared.face_down),
        (slice(layout.stock, layout.stock + 2), slice(shared.stock, shared.stock + 2)),
    ]
    for own, to in parts:  # each part fits: its bounds are the family's at most
        obs_index[own] = np.arange(to.start, to.start + own.stop - own.start)
    assert (obs_index >= 0).all()  # every entry has its place
    to_shared = np.array([FAMILY_CODEC.encode(*move) for move in codec.table], dtype=np.int64)
    from_shared = np.full(FAMILY_CODEC.n_actions, -1, dtype=np.int64)
    from_shared[to_shared] = np.arange(codec.n_actions)
    features = FAMILY_LAYOUT.rule_features(spec)
    for array in (to_shared, from_shared, obs_index, features):
        array.flags.writeable = False
    return RuleSetMap(spec, layout, to_shared, from_shared, obs_index, features)
