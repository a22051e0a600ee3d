"""The digest of the rules as this package states them, kept in
:data:`~fortythieves_env.rules.variants.RULES_DIGEST` beside
:data:`~fortythieves_env.rules.variants.RULES_VERSION`.

``tests/env/test_rules_version.py`` compares :func:`rules_digest` with ``RULES_DIGEST``: a change
of the rules that forgets to bump the version fails there, with ``rules changed: bump
RULES_VERSION and update RULES_DIGEST``. ``python -m fortythieves_env.rules.digest`` prints
the current digest.

What is hashed:

* the source of every definition in :data:`RULE_SOURCES` (functions, methods, classes and
  module-level assignments), read from the package's files and parsed, without comments,
  docstrings or formatting (:func:`_canonical`: the same text under Python 3.10 to 3.13), so
  that a reworded comment or a reformatting changes nothing and any change of code does;
* the signatures (argument names and defaults: the rewards) of :data:`RULE_SIGNATURES`;
* the tables as data: every built-in variant's rule fields (all but ``name`` and
  ``pysol_id``), and each build rule's table ``accepts[top][card]``.

Why not numba's cache stamp (:func:`.jit.source_digest`): it hashes whole files, comments and
docstrings included, and every module they import (the observation, positions, the cache
code itself), so it changes with edits that leave the rules alone; and it covers
``variants.py``, where the digest itself is written.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
from pathlib import Path

__all__ = ["RULE_SIGNATURES", "RULE_SOURCES", "rules_digest"]

_PACKAGE = Path(__file__).resolve().parent.parent

_FILES: dict[str, tuple[str, ...]] = {
    **{
        m: (f"rules/{m}.py",)
        for m in ("cards", "variants", "engine", "rule_table", "actions", "tables", "core")
    },
    "episode": ("rules/episode.py",),
    "backends": ("envs/backends.py",),
    "env": ("envs/env.py",),
    "vector": ("envs/vector.py", "envs/vector_step.py"),
    "family": ("envs/family.py",),
    "family_env": ("envs/family_env.py",),
    "_family_fast": ("envs/_family_fast.py",),
    "family_vector": ("envs/family_vector.py",),
}
"""The files (relative to the package) that hold each module name of :data:`RULE_SOURCES`.
The names are the modules' until the package was laid out by role (issue 38): they are
part of the hashed text, so the digest did not change with the move."""

RULE_SOURCES: tuple[str, ...] = (
    # the cards and the build rule's table
    "cards:RANK",
    "cards:SUIT",
    "cards:RED",
    "variants:Build",
    "variants:VariantSpec.cards_per_column",
    "variants:VariantSpec.tableau_cards",
    "variants:VariantSpec.stock_size",
    "variants:VariantSpec.max_move",
    "cards:N_CARDS",
    "rule_table:KING",
    "variants:EmptyColumn",
    "rule_table:EmptyColumnRule",
    "rule_table:EMPTY_COLUMN_RULES",
    "rule_table:accepts_table",
    # the action encoding and the move notation
    "actions:DRAW",
    "actions:_NUM",
    "actions:_MOVE_RE",
    "actions:_index",
    "actions:ActionCodec",
    # the deal, and the public API over the compiled core
    "engine:Rules.__init__",
    "engine:Rules.deal",
    "engine:Rules.sequence_length",
    "engine:Rules.legal_actions",
    "engine:Rules.is_won",
    "engine:Rules.apply",
    "engine:Rules._apply",
    "engine:Rules._apply_and_list",
    "engine:Rules.is_legal",
    "engine:Rules.why_illegal",
    "engine:Rules.play",
    # the compiled core: the one statement of the move rules
    "tables:_rule_table",
    "tables:FastTables.__init__",
    "core:_top",
    "core:_pile_for",
    "core:_fits_foundation",
    "core:_sequence_length",
    "core:sequence_length",
    "tables:_TAKEN_SPLIT",
    "core:_card_bit",
    "core:_taken",
    "core:_fitting_cards",
    "core:_put",
    "core:_LOW_BIT",
    "core:_low_bit",
    "core:_bit_of",
    "core:_targets",
    "core:_moves",
    "core:_legal_into",
    "core:_legal_mask",
    "core:legal_actions",
    "core:_apply",
    "core:apply",
    "core:step",
    # the episode: reward, end, truncation
    "backends:PythonBackend.step",
    "episode:step_outcome",
    "episode:episode_step",
    "episode:EpisodeMixin._before_move",
    "episode:EpisodeMixin._end_step",
    "env:FortyThievesEnv.step",
    "vector:_step_game",
    "vector:_check_actions",
    "vector:_step_batch",
    # the family through one encoding (fortythieves_env.envs.family): the shared action codec,
    # a rule set's step limit, and how a shared action is played and its mask kept
    "family:_ENVELOPE",
    "family:rule_set",
    "family_env:FamilyEnv.step",
    "_family_fast:mark_shared",
    "_family_fast:step",
    "family_vector:_step_family_batch",
)
"""``"module:qualified.name"`` of each definition of the rules (the module names of
:data:`_FILES`, which says where each one's definitions are). A new rule function, or one that
moves, belongs here."""

RULE_SIGNATURES: tuple[str, ...] = (
    "env:FortyThievesEnv.__init__",
    "vector:FortyThievesVectorEnv.__init__",
)
"""Definitions whose arguments and defaults (the reward settings) only are hashed."""

_NOT_RULES = frozenset({"name", "pysol_id"})
"""The fields of a :class:`~fortythieves_env.VariantSpec` that are not rules."""


def rules_digest() -> str:
    """The digest (64 hex digits) of the rules' sources and tables (module docstring).

    Raises:
        LookupError: an entry of :data:`RULE_SOURCES` or :data:`RULE_SIGNATURES` names no
            definition (it was renamed or moved: update the entry).
        OSError: a source file cannot be read.
    """
    from .rule_table import accepts_table
    from .variants import VARIANTS, Build, EmptyColumn

    h = hashlib.sha256()
    for entry in RULE_SOURCES:
        h.update(f"{entry}\0{_canonical(_definition(entry))}\0".encode())
    for entry in RULE_SIGNATURES:
        node = _definition(entry)
        assert isinstance(node, ast.FunctionDef)
        h.update(f"{entry}\0{_canonical(node.args)}\0".encode())
    variants = {
        spec.id: {
            f.name: getattr(spec, f.name)
            for f in dataclasses.fields(spec)
            if f.name not in _NOT_RULES
        }
        for spec in VARIANTS.values()
    }
    builds = {b.value: [[int(x) for x in row] for row in accepts_table(b)] for b in Build}
    builds.update(
        {
            f"{b.value}/{e.value}": [[int(x) for x in row] for row in accepts_table(b, e)]
            for b in Build
            for e in EmptyColumn
            if e is not EmptyColumn.ANY
        }
    )
    tables = json.dumps({"variants": variants, "builds": builds}, sort_keys=True, default=str)
    h.update(tables.encode())
    return h.hexdigest()


def _definition(entry: str) -> ast.AST:
    """The parsed definition ``entry`` names, its docstrings removed.

    Raises:
        LookupError: no such definition.
        OSError: the module's file cannot be read.
    """
    module, _, qualname = entry.partition(":")
    first, *_ = qualname.split(".")
    for file in _FILES.get(module, (f"{module}.py",)):
        path = _PACKAGE / file
        body: list[ast.stmt] = ast.parse(path.read_text(encoding="utf-8"), str(path)).body
        if any(first in _names(n) for n in body):
            break
    node: ast.stmt | None = None
    for name in qualname.split("."):
        node = next((n for n in body if name in _names(n)), None)
        if node is None:
            raise LookupError(f"{entry}: no definition {name!r} in {path.name}")
        body = node.body if isinstance(node, ast.ClassDef) else []
    assert node is not None
    return _without_docstrings(node)


def _names(node: ast.stmt) -> list[str]:
    """The names a module- or class-level statement defines."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign):
        targets = [node.target]
    names = []
    for target in targets:
        items = target.elts if isinstance(target, ast.Tuple) else [target]
        names += [t.id for t in items if isinstance(t, ast.Name)]
    return names


class _StripDocstrings(ast.NodeTransformer):
    """Removes every statement that is a string alone (a function's, a class's or an
    attribute's docstring: a statement that does nothing)."""

    def visit_Expr(self, node: ast.Expr) -> ast.Expr | None:
        value = node.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return None
        return node


def _without_docstrings(node: ast.stmt) -> ast.stmt:
    """``node`` (changed in place) without its docstrings; a body left empty gets ``pass``."""
    node = _StripDocstrings().visit(node)
    for sub in ast.walk(node):
        if getattr(sub, "body", None) == []:
            sub.body = [ast.Pass()]  # type: ignore[attr-defined]
    return node


def _canonical(node: object) -> str:
    """The parsed code ``node`` as text that is the same under every Python version
    (``ast.dump`` and ``ast.unparse`` change with it): each node's type and its fields in
    order, leaving out those that are None or empty (so a field a later Python adds, such as
    ``type_params``, changes nothing) and the ``kind`` of a constant (``u"..."``)."""
    if isinstance(node, ast.AST):
        parts = [
            f"{name}={_canonical(value)}"
            for name, value in ast.iter_fields(node)
            if value is not None and value != [] and name != "kind"
        ]
        return f"{type(node).__name__}({', '.join(parts)})"
    if isinstance(node, list):
        return f"[{', '.join(_canonical(item) for item in node)}]"
    return repr(node)


if __name__ == "__main__":
    print(rules_digest())
