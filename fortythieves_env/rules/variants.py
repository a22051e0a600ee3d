"""The nine variants as data: one :class:`VariantSpec` each.

Every number comes from the variant table of ``RULES.md``. A custom variant is
a new ``VariantSpec``: pass it as ``variant=`` to :class:`~fortythieves_env.FortyThievesEnv`,
or register it with :func:`fortythieves_env.register_variant` to get its own id (and its own
step limit) for ``gymnasium.make``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .cards import N_CARDS


class Build(str, Enum):
    """Which card may go onto a column top: one rank lower and ..."""

    SAME_SUIT = "same_suit"
    """... of the same suit (10H only onto JH)."""
    ALTERNATE_COLOUR = "alternate_colour"
    """... of the other colour (10H onto JC or JS)."""
    OTHER_SUIT = "other_suit"
    """... of any suit but its own (10H onto JC, JD or JS)."""


class EmptyColumn(str, Enum):
    """Which card (or sequence, by its first card) may go into an empty column."""

    ANY = "any"
    """Any card: the rule of every variant of ``RULES.md`` (common rule 5)."""
    KINGS = "kings"
    """Only a King, or a sequence whose first card is a King (as in several relatives of
    Forty Thieves that PySolFC plays): for custom variants."""


MAX_ID_LENGTH = 40
"""The longest variant id (:attr:`VariantSpec.id`), in characters. Ids name saved files
(``evaluate --save-games``: ``<agent>/<id>-<seed>.json``; ``solve``: ``<id>.jsonl``): at
most 4 bytes a character in UTF-8, such a name stays far below the 255 bytes most file
systems allow (a 300-character id failed with ``File name too long`` after its games were
played)."""


@dataclass(frozen=True)
class VariantSpec:
    """The points on which Forty Thieves variants differ.

    Attributes:
        id: short identifier (a Python identifier of at most :data:`MAX_ID_LENGTH`
            characters), used in the environment id ``FortyThieves/<id>-v0``, in positions
            and in the names of saved files.
        name: the game's usual name.
        n_columns: number of tableau columns.
        face_down: cards dealt face down at the bottom of each column.
        face_up: cards dealt face up on top of them.
        build: the tableau build rule, also the rule that decides what a sequence is.
        empty_column: what an empty column takes (:class:`EmptyColumn`): ``"any"`` card (every
            variant of ``RULES.md``, the default) or ``"kings"`` only.
        sequence_moves: if True any sequence at the end of a column moves as a unit
            (``tI>tJxN``); if False one card moves at a time.
        deal_count: cards dealt from the stock onto the waste per ``draw`` (3 in Little Forty).
        redeals: how many times the waste may be turned over into the stock.
        aces_on_foundations: the 8 Aces start on the foundations and are not dealt (Lucas).
        max_episode_steps: the step limit registered with ``gymnasium.make`` (truncation).
        pysol_id: the game's number in PySolFC, for reference only.

    Raises:
        ValueError: the id is not an identifier of at most :data:`MAX_ID_LENGTH`
            characters, the fields do not describe a playable game (too many cards dealt,
            non-positive counts, an unknown build rule), or a ``deal_count`` other than 1
            or ``redeals`` other than 0 when the tableau takes every card (no stock: they
            could never apply). One line naming the field, its allowed values and the value.
    """

    id: str
    name: str
    n_columns: int
    face_down: int
    face_up: int
    build: Build
    sequence_moves: bool
    deal_count: int = 1
    redeals: int = 0
    aces_on_foundations: bool = False
    max_episode_steps: int = 1000
    pysol_id: int | None = None
    empty_column: EmptyColumn = EmptyColumn.ANY

    def __post_init__(self) -> None:
        for name, kind in (("id", str), ("name", str)):
            if not isinstance(getattr(self, name), kind):
                raise ValueError(
                    f"VariantSpec.{name} must be a string, got {getattr(self, name)!r}"
                )
        for name in (
            "n_columns",
            "face_down",
            "face_up",
            "deal_count",
            "redeals",
            "max_episode_steps",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"variant {self.id}: {name} must be an integer, got {value!r}")
        for name in ("sequence_moves", "aces_on_foundations"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(
                    f"variant {self.id}: {name} must be True or False, got {getattr(self, name)!r}"
                )
        if self.pysol_id is not None and not isinstance(self.pysol_id, int):
            raise ValueError(f"variant {self.id}: pysol_id must be an integer or None")
        try:
            object.__setattr__(self, "build", Build(self.build))
        except ValueError:
            raise ValueError(
                f"variant {self.id}: unknown build rule {self.build!r}; choose from "
                + ", ".join(b.value for b in Build)
            ) from None
        try:
            object.__setattr__(self, "empty_column", EmptyColumn(self.empty_column))
        except ValueError:
            raise ValueError(
                f"variant {self.id}: unknown empty_column rule {self.empty_column!r}; choose "
                "from " + ", ".join(e.value for e in EmptyColumn)
            ) from None
        if not self.id.isidentifier():
            raise ValueError(f"variant id must be an identifier, got {self.id[:60]!r}")
        if len(self.id) > MAX_ID_LENGTH:
            raise ValueError(
                f"variant id must be at most {MAX_ID_LENGTH} characters (it names saved "
                f"files), got {len(self.id)}: {self.id[:MAX_ID_LENGTH]!r}..."
            )
        for name, low in (
            ("n_columns", 1),
            ("face_down", 0),
            ("face_up", 1),
            ("deal_count", 1),
            ("redeals", 0),
            ("max_episode_steps", 1),
        ):
            if getattr(self, name) < low:
                raise ValueError(
                    f"variant {self.id}: need {name} >= {low}, got {getattr(self, name)}"
                )
        if self.stock_size < 0:
            raise ValueError(
                f"variant {self.id}: the tableau takes {self.tableau_cards} cards but only "
                f"{N_CARDS - 8 * self.aces_on_foundations} are dealt"
            )
        if self.stock_size == 0:
            for name, only in (("deal_count", 1), ("redeals", 0)):
                if getattr(self, name) != only:
                    raise ValueError(
                        f"variant {self.id}: {name} must be {only} without a stock (the "
                        f"tableau takes all {self.tableau_cards} cards), got {getattr(self, name)}"
                    )

    @property
    def cards_per_column(self) -> int:
        """Cards dealt to each column (face down + face up)."""
        return self.face_down + self.face_up

    @property
    def tableau_cards(self) -> int:
        """Cards dealt to the tableau."""
        return self.n_columns * self.cards_per_column

    @property
    def stock_size(self) -> int:
        """Cards in the stock after the deal; also the most the waste can ever hold."""
        return N_CARDS - 8 * self.aces_on_foundations - self.tableau_cards

    @property
    def max_visible(self) -> int:
        """Most face-up cards a column can ever hold.

        The dealt cards plus a built run down to an Ace (at most 12 more), or, in a column
        that was emptied, a run from King to Ace (13).
        """
        return max(self.cards_per_column + 12, 13)

    @property
    def max_move(self) -> int:
        """Most cards one tableau move can carry: 13 (King to Ace) with sequences, else 1."""
        return 13 if self.sequence_moves else 1


_S, _A, _O = Build.SAME_SUIT, Build.ALTERNATE_COLOUR, Build.OTHER_SUIT

VARIANTS: dict[str, VariantSpec] = {
    spec.id: spec
    for spec in (
        VariantSpec("FortyThieves", "Forty Thieves", 10, 0, 4, _S, False, pysol_id=13),
        VariantSpec("Indian", "Indian", 10, 1, 2, _O, False, pysol_id=69),
        VariantSpec("Limited", "Limited", 12, 0, 3, _S, False, pysol_id=228),
        VariantSpec(
            "LittleForty",
            "Little Forty",
            10,
            0,
            4,
            _O,
            True,
            deal_count=3,
            redeals=3,
            max_episode_steps=1500,
            pysol_id=115,
        ),
        VariantSpec("Lucas", "Lucas", 13, 0, 3, _S, False, aces_on_foundations=True, pysol_id=125),
        VariantSpec("Maria", "Maria", 9, 0, 4, _A, False, pysol_id=73),
        VariantSpec("NumberTen", "Number Ten", 10, 2, 2, _A, True, pysol_id=70),
        VariantSpec("RankAndFile", "Rank and File", 10, 3, 1, _A, True, pysol_id=71),
        VariantSpec("Streets", "Streets", 10, 0, 4, _A, False, pysol_id=76),
    )
}
"""The nine variants of ``RULES.md``, keyed by id."""


RULES_VERSION = 1
"""The version of the rules this package plays, recorded in everything made by playing
them: solver records, model zips, game records and evaluation reports.

**Bump it** (by one) with any change of a rule kernel or of the rule table that can change
a legal move, its effect, the reward, or when an episode ends: the move generators and
moves (:mod:`.engine`, :mod:`.core`), the build rule's table, the action encoding
(:mod:`.actions`), the deal, the reward and the episode end (:mod:`.episode`, the
environments' steps), the rule fields of a variant in :data:`VARIANTS` (every field but ``name`` and
``pysol_id``). Then ``evaluate`` refuses a model made under the old rules, ignores solver
records made under them for the solver's ceiling (with a warning naming both versions),
``solve`` solves such deals again, and ``replay`` refuses such game records.

**The check.** ``tests/env/test_rules_version.py`` computes :func:`.digest.rules_digest`
(the rule sources, without comments and docstrings, and the rule tables, listed in
:mod:`.digest`) and compares it with :data:`RULES_DIGEST`; when they differ it fails
with ``rules changed: bump RULES_VERSION and update RULES_DIGEST``. A change that leaves
every game as it was (a refactor, a faster kernel, a new variant: the old ones keep their
rules) updates :data:`RULES_DIGEST` only. A new rule function belongs in
:data:`.digest.RULE_SOURCES`.

Files written before the version was recorded (no ``rules_version``) were made under
version 1 (:func:`recorded_rules_version`).
"""

RULES_DIGEST = "9859f3bc34ca24a6ee50d0f8c1afa972b8a80d10ac93eb9ea740232d9e2585ce"
"""The :func:`.digest.rules_digest` of the rules of :data:`RULES_VERSION` (see
there): the test that compares them makes a change of the rules without a new version hard
to miss."""


def recorded_rules_version(value: object) -> int:
    """The rules version a saved file records: its ``rules_version`` field's ``value``, or
    1 when the field is missing (``value`` None): every file written before the version was
    recorded (the solver records, models and game records shipped until then) was made under
    rules version 1.

    Raises:
        ValueError: ``value`` is neither None nor a positive integer (the message names it).
    """
    if value is None:
        return 1
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"rules_version must be a positive integer, got {value!r}")
    return value


def rules_version_mismatch(*versions: int) -> str:
    """``""`` if every one of ``versions`` is :data:`RULES_VERSION`, else the reason a file
    made under the others is refused or ignored, naming them and the current version:
    ``"made under rules version 2, not the current rules version 1"`` (callers put the
    file's name first)."""
    other = sorted({v for v in versions if v != RULES_VERSION})
    if not other:
        return ""
    return (
        f"made under rules version {', '.join(map(str, other))}, not the current rules "
        f"version {RULES_VERSION}"
    )


CUSTOM_VARIANTS: dict[str, VariantSpec] = {}
"""Variants added with :func:`fortythieves_env.register_variant`, keyed by id."""


def get_variant(variant: str | VariantSpec) -> VariantSpec:
    """Return the spec for a variant id (built in or registered) or the spec itself.

    Raises:
        ValueError: ``variant`` is not a known id; the message lists the known ids.
        TypeError: ``variant`` is neither a string nor a :class:`VariantSpec`.
    """
    if isinstance(variant, VariantSpec):
        return variant
    if not isinstance(variant, str):
        raise TypeError(
            f"variant must be a variant id or a VariantSpec, got {type(variant).__name__}"
        )
    spec = VARIANTS.get(variant) or CUSTOM_VARIANTS.get(variant)
    if spec is None:
        known = ", ".join([*VARIANTS, *CUSTOM_VARIANTS])
        raise ValueError(f"unknown variant {variant!r}; known variants: {known}")
    return spec
