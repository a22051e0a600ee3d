"""MkDocs hooks of the documentation site (``mkdocs.yml``: ``hooks``).

The variant pages and the results page show the shipped runs' learning curves, which live
in ``results/training/<Variant>/learning_curves.png`` beside the run they belong to. This
hook adds them (and the ablation's settings file, which the ablation table links to, and the
search agent's budget curve) to the
site at the same paths (``results/training/...`` from the docs root), so the pages link to
the saved files instead of copies of them.

The docstrings cross-reference in Sphinx's roles (``:class:`~pkg.Name```), which Markdown
shows as they are; the API pages drop the role and, after ``~``, the module path, so
``:class:`~pkg.Name``` reads as ``Name`` in code.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
SAVED = (
    "results/training/*/learning_curves.png",
    "results/training/ablation/settings.yaml",
    "results/search/budget_curve/curve.png",
)
"""The saved files the site serves at their repository paths (globs from the root)."""
_ROLE = re.compile(
    r":(?:py:)?(?:data|mod|func|class|meth|attr|exc|obj|const|ref):<code>(~?)([^<]*)</code>"
)


def _plain(match: re.Match[str]) -> str:
    tilde, target = match.groups()
    return f"<code>{target.rsplit('.', 1)[-1] if tilde else target}</code>"


def on_files(files: Files, config: Any) -> Files:
    """Add the files of :data:`SAVED` to the site."""
    for path in sorted(p for pattern in SAVED for p in ROOT.glob(pattern)):
        uri = path.relative_to(ROOT).as_posix()
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    """Drop the Sphinx roles of the docstrings (``:class:`` before a code span)."""
    return _ROLE.sub(_plain, html)
