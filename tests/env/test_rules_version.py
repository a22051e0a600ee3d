"""The rules version (issue 27, point 2): :data:`fortythieves_env.RULES_VERSION` and the
digest of the rules that makes a change of the rules without a new version hard to miss.

The readers that refuse or ignore files of other rules are tested beside them
(``agents/evaluation/test_solve.py``, ``agents/networks/test_model_zip.py``, ``env/test_records.py``,
``agents/cli/test_cli.py``).
"""

from __future__ import annotations

import ast
import dataclasses
import shutil
from pathlib import Path

import pytest

import fortythieves_env
from fortythieves_env.rules import digest as _rules_digest
from fortythieves_env.rules import variants
from fortythieves_env.rules.digest import RULE_SIGNATURES, RULE_SOURCES, rules_digest
from fortythieves_env.rules.variants import (
    RULES_DIGEST,
    RULES_VERSION,
    VARIANTS,
    Build,
    recorded_rules_version,
    rules_version_mismatch,
)

NOT_RULES = {
    "engine": {
        "IllegalMoveError",
        "InvalidPositionError",
        "Rules.__reduce__",
        "Rules._compiled",  # loads the core
        "Rules._reason",  # words a reason; the core decides (tests/env/test_rules_oracle.py)
        "Rules.decode",  # the codec's (hashed)
        "Rules.action_to_move",
        "Rules.move_to_action",
        "Rules.to_position",  # the position format, not the rules
        "Rules.from_position",
        "rules_for",
    },
    "tables": {
        "FastTables.pack",  # the state array's layout
        "FastTables.hidden_indices",
        "FastTables.unpack",
        "FastTables.unpack_into",
        "tables_for",
        "table_size",  # the table array's length
        "_tables",
    },
    "episode": {"EpisodeMixin._info"},  # the counts as info (the step's own is hashed)
    "core": {
        "_write_column",  # the observation (versioned on its own)
        "_write_waste",
        "_write_stock",
        "_write_foundations",
        "refresh",
        "observed_state",
        "_mix",  # position hashes
        "_finish",
        "_column_hash",
        "_rest_hash",
        "position_hash",
        "canonical_hash",
        "view_hash",
    },
    "state": {"GameState", "GameState.copy"},
    "rule_table": set(),
}
"""The functions, methods and classes of the rule modules that are not rules; every other
one must be in :data:`RULE_SOURCES` (or inside a class listed there)."""


def test_rules_version_is_exported_and_an_int() -> None:
    assert fortythieves_env.RULES_VERSION is RULES_VERSION
    assert type(RULES_VERSION) is int and RULES_VERSION >= 1
    assert "RULES_VERSION" in fortythieves_env.__all__


def test_rules_digest_matches_the_version() -> None:
    """The check itself: the rules as stated now are the rules of ``RULES_VERSION``."""
    digest = rules_digest()
    if digest != RULES_DIGEST:
        pytest.fail(
            "rules changed: bump RULES_VERSION and update RULES_DIGEST "
            f"(fortythieves_env/rules/variants.py) to {digest!r}; a change that plays every game "
            "as before updates RULES_DIGEST only (see RULES_VERSION's docstring)",
            pytrace=False,
        )


def test_every_definition_of_the_rule_modules_is_classified() -> None:
    """A new function in ``engine.py``, ``core.py``, ``tables.py`` or ``episode.py`` is either
    a rule (listed in
    ``RULE_SOURCES``, so the digest covers it) or named in ``NOT_RULES`` here."""
    listed = {entry.partition(":")[::2] for entry in RULE_SOURCES}
    for module, not_rules in NOT_RULES.items():
        tree = ast.parse((Path(variants.__file__).parent / f"{module}.py").read_text("utf-8"))
        names = []
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.append(node.name)
            if isinstance(node, ast.ClassDef) and (module, node.name) not in listed:
                names += [
                    f"{node.name}.{sub.name}"
                    for sub in node.body
                    if isinstance(sub, ast.FunctionDef)
                ]
        unclassified = [
            n
            for n in names
            if (module, n) not in listed
            and n not in not_rules
            and not any(x.startswith(n + ".") for m, x in listed if m == module)
        ]
        assert not unclassified, (
            f"{module}.py: classify {unclassified}: a rule goes in "
            "fortythieves_env.rules.digest.RULE_SOURCES, anything else in NOT_RULES here"
        )
        stale = [n for n in not_rules if n not in names]
        assert not stale, f"{module}.py no longer defines {stale}: drop them from NOT_RULES"


def test_every_entry_names_a_definition() -> None:
    for entry in (*RULE_SOURCES, *RULE_SIGNATURES):
        assert _rules_digest._definition(entry) is not None
    with pytest.raises(LookupError, match=r"no definition 'nowhere' in engine\.py"):
        _rules_digest._definition("engine:Rules.nowhere")


@pytest.fixture
def package_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The package's sources copied, and the digest reading them there."""
    copy = tmp_path / "fortythieves_env"
    source = Path(fortythieves_env.__file__).parent
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("*.pyc"))
    monkeypatch.setattr(_rules_digest, "_PACKAGE", copy)
    return copy


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), "utf-8")


def test_an_edit_of_a_rule_changes_the_digest(package_copy: Path) -> None:
    """The issue's example: only the empty-column entry of the rule table changed (an empty
    column takes Kings only, here for every variant); the digest sees it."""
    before = rules_digest()
    _edit(
        package_copy / "rules/rule_table.py",
        'EmptyColumnRule(lambda card: True, "any card")',
        'EmptyColumnRule(lambda card: RANK[card] == KING, "any card")',
    )
    assert rules_digest() != before


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        (
            "rules/core.py",
            "return p if st[tb[H_FOUND] + p] ==",
            "return p if st[tb[H_FOUND] + p] >=",
        ),
        ("rules/episode.py", "reward += win_bonus", "reward += 2 * win_bonus"),
        ("envs/env.py", "win_bonus: float = 10.0,", "win_bonus: float = 20.0,"),
        (
            "rules/episode.py",
            "foundation_cards == N_CARDS or n_legal == 0, n_legal",
            "n_legal == 0, n_legal",
        ),
        ("rules/episode.py", "(packed & 1) > 0 or face_down_after", "face_down_after"),
        ("envs/vector_step.py", "flags[F_TERM, i] = terminated", "flags[F_TERM, i] = truncated"),
        ("rules/tables.py", "header[H_M] = c, v, spec.max_move", "header[H_M] = c, v, 1"),
        (
            "rules/actions.py",
            "COLUMN_TO_COLUMN = range(\n    6\n)",
            "COLUMN_TO_COLUMN = range(\n    1, 7\n)",
        ),
    ],
)
def test_edits_of_the_kernels_and_the_episode_change_the_digest(
    package_copy: Path, module: str, old: str, new: str
) -> None:
    before = rules_digest()
    _edit(package_copy / module, old, new)
    assert rules_digest() != before


def test_comments_docstrings_and_formatting_leave_the_digest(package_copy: Path) -> None:
    before = rules_digest()
    _edit(
        package_copy / "rules/engine.py",
        '"""Length of the sequence at the end of ``column`` (face-up cards only); 0 if empty.',
        '"""Reworded: the cards of the sequence at the column\'s end; 0 for none.',
    )
    _edit(
        package_copy / "rules/core.py",
        "    c = tb[H_C]\n    v = tb[H_V]\n",
        "    c = (\n        tb[H_C]  # columns\n    )\n    v = tb[ H_V ]\n",
    )
    assert rules_digest() == before


def test_a_variants_rule_fields_change_the_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    before = rules_digest()
    maria = VARIANTS["Maria"]
    monkeypatch.setitem(VARIANTS, "Maria", dataclasses.replace(maria, name="Maria (renamed)"))
    assert rules_digest() == before  # the name is not a rule
    monkeypatch.setitem(VARIANTS, "Maria", dataclasses.replace(maria, build=Build.SAME_SUIT))
    assert rules_digest() != before  # issue 27's example: Maria building in suit


def test_a_missing_rules_version_is_version_1() -> None:
    assert recorded_rules_version(None) == 1
    assert recorded_rules_version(2) == 2
    for bad in ("1", 0, True, 1.0):
        with pytest.raises(ValueError, match="rules_version must be a positive integer"):
            recorded_rules_version(bad)


def test_a_mismatch_names_both_versions() -> None:
    assert rules_version_mismatch(RULES_VERSION) == ""
    other = RULES_VERSION + 1
    assert rules_version_mismatch(RULES_VERSION, other) == (
        f"made under rules version {other}, not the current rules version {RULES_VERSION}"
    )
