"""Every generated block, page and picture of the README and the documentation, and what
makes each: the one list that ``python -m fortythieves_agents.reports`` writes and
``tests/agents/reports/test_generated.py`` checks.

Three kinds of target, each a path relative to the checkout's root:

* :class:`Block`: the text between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->`` in a
  page (:mod:`.markers`); the rest of the page is written by hand.
* :class:`Page`: a whole generated file (the variant pages, the protocol labels the
  package ships).
* :class:`Picture`: a PNG. It counts as current when its pixels are those of a fresh
  drawing but for at most :data:`PICTURE_TOLERANCE` (glyph edges move by a few pixels
  between Pillow and matplotlib builds; any change of what is drawn moves more), and it is
  written only when it is not, so the command leaves a picture's bytes alone otherwise.

Nothing here reads a checkout until given its root: :func:`check` and :func:`regenerate`
take it. Not covered: the learning curves under ``results/training/`` (drawn by
``fortythieves plot`` from a run folder, which ``results/`` does not keep).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from fortythieves_env import VARIANTS

from . import expert, expert_ablation, family, pages, speed, summary, training
from .allocations import allocations_table
from .markers import between, markers, read_json, replace_between
from .solver import (
    budget_curve_png,
    budget_curve_table,
    budget_pair_table,
    dead_end_table,
    search_table,
    seen_moves_table,
    solver_budget_curve_table,
    solver_speed_table,
    winnability_table,
)

COMMAND = "python -m fortythieves_agents.reports"
"""The one command that writes every target (run from the checkout's root)."""
PICTURE_TOLERANCE = 40
"""Most pixels a picture may differ by from a fresh drawing and still be current (the
golden-image tolerance of ``tests/env/test_render.py``: 10 of 503,808 pixels differ between
Pillow 11.3 and 13.0; one card's rank changed moves over 100)."""
RENDER_ERRORS = (
    OSError,
    ValueError,
    KeyError,
    TypeError,
    IndexError,
    AttributeError,
    ZeroDivisionError,
)
"""What a renderer raises on a missing or damaged results file (its message names it)."""


@dataclass(frozen=True)
class Block:
    """Block ``name`` of the page at ``path``, rendered by ``render(root, page)`` (``page``:
    the page's full path, for links relative to it) from ``source``."""

    path: str
    name: str
    source: str
    render: Callable[[Path, Path], str] = field(repr=False)

    @property
    def label(self) -> str:
        """How messages name the target: ``docs/solver.md [winnability-table]``."""
        return f"{self.path} [{self.name}]"

    def make(self, root: Path) -> str:
        """The block's text as ``source`` gives it."""
        return self.render(root, root / self.path)

    def current(self, root: Path, made: str) -> bool:
        """The page holds ``made`` between the block's markers.

        Raises:
            ValueError: the page lacks the markers (named).
        """
        text = (root / self.path).read_text(encoding="utf-8")
        try:
            return between(text, *markers(self.name)) == made
        except ValueError as exc:
            raise ValueError(f"{self.path}: {exc}") from None

    def write(self, root: Path, made: str) -> None:
        """Write ``made`` between the block's markers (the rest of the page unchanged)."""
        path = root / self.path
        text = path.read_text(encoding="utf-8")
        try:
            new = replace_between(text, made, *markers(self.name))
        except ValueError as exc:
            raise ValueError(f"{self.path}: {exc}") from None
        path.write_text(new, encoding="utf-8")


@dataclass(frozen=True)
class Page:
    """The whole file at ``path``, rendered by ``render(root)`` from ``source``."""

    path: str
    source: str
    render: Callable[[Path], str] = field(repr=False)

    @property
    def label(self) -> str:
        """How messages name the target: its path."""
        return self.path

    def make(self, root: Path) -> str:
        """The file's text as ``source`` gives it."""
        return self.render(root)

    def current(self, root: Path, made: str) -> bool:
        """The file exists and holds ``made``."""
        path = root / self.path
        return path.is_file() and path.read_text(encoding="utf-8") == made

    def write(self, root: Path, made: str) -> None:
        """Write ``made`` as the file."""
        path = root / self.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(made, encoding="utf-8")


@dataclass(frozen=True)
class Picture:
    """The PNG at ``path``, drawn by ``draw(root)`` (its bytes) from ``source``; ``needs``:
    a module the drawing imports that an install may lack (the target is then skipped)."""

    path: str
    source: str
    draw: Callable[[Path], bytes] = field(repr=False)
    needs: str | None = None

    @property
    def label(self) -> str:
        """How messages name the target: its path."""
        return self.path

    def make(self, root: Path) -> bytes:
        """The picture's PNG bytes as ``source`` gives it."""
        return self.draw(root)

    def current(self, root: Path, made: bytes) -> bool:
        """The saved picture has ``made``'s size and differs from it in at most
        :data:`PICTURE_TOLERANCE` pixels."""
        import numpy as np
        from PIL import Image

        path = root / self.path
        if not path.is_file():
            return False
        with Image.open(path) as saved, Image.open(io.BytesIO(made)) as fresh:
            old, new = np.asarray(saved.convert("RGB")), np.asarray(fresh.convert("RGB"))
        if old.shape != new.shape:
            return False
        return int((old != new).any(axis=2).sum()) <= PICTURE_TOLERANCE

    def write(self, root: Path, made: bytes) -> None:
        """Write ``made`` as the picture."""
        path = root / self.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(made)


Target = Block | Page | Picture


def _json(root: Path, path: str) -> Any:
    """The JSON at ``root / path``.

    Raises:
        FileNotFoundError: it is not saved. ValueError: it is not JSON (named).
    """
    data = read_json(root / path)
    if data is None:
        raise FileNotFoundError(f"{path}: not saved")
    return data


def _saved(page: str, name: str, report: str, table: Callable[[Any], str]) -> Block:
    """Block ``name`` of ``page``: ``table`` of the saved JSON report ``report``."""
    return Block(page, name, report, lambda root, _: table(_json(root, report)))


def _ray_speedup(root: Path, _: Path) -> str:
    path = "results/benchmarks/ray_speedup.json"
    if not (root / path).is_file():
        return speed.RAY_NOT_MEASURED
    return speed.ray_speedup_table(_json(root, path))


def _table_png(root: Path) -> bytes:
    """``docs/table.png``: what ``python -m fortythieves_env.envs.render docs/table.png --variant
    NumberTen --seed 11 --moves 60`` draws (the README's picture)."""
    from PIL import Image

    from fortythieves_env.envs.render import table_picture

    out = io.BytesIO()
    Image.fromarray(table_picture("NumberTen", 11, 60)).save(out, format="PNG", optimize=True)
    return out.getvalue()


def _labels_json(root: Path) -> str:
    labels = summary.protocol_labels(root / "results" / "solver")
    return json.dumps(labels, indent=1) + "\n"


SUMMARY_SOURCE = (
    "results/training, results/search, results/expert, results/family/finetune, results/solver"
)
LEADERBOARD_SOURCE = (
    "results/training/<Variant>/final_evaluation.json, "
    "results/family/finetune/<Variant>/finetuned/final_evaluation.json, results/search, "
    "results/leaderboard, results/solver"
)
TRAINING = "results/training"


def _summary(root: Path, _: Path) -> str:
    return summary.summary_table(root / "results")


HELD_OUT_SOURCE = "results/family/**/zero_shot.json"


def _zero_shot(root: Path, _: Path) -> str:
    """Every saved zero-shot report's table (the family's page)."""
    return family.zero_shot_tables(family.held_out_reports(root / "results"), root)


FINETUNE_SOURCE = "results/family/finetune/*/comparison.json"


def _finetune(root: Path, _: Path) -> str:
    """Every saved fine-tuning comparison's table (the family's page)."""
    return family.finetune_tables(family.finetuned_reports(root / "results"), root)


def _held_out(root: Path, _: Path) -> str:
    """The leaderboard's "held-out rules" section (the family's zero-shot reports)."""
    return family.held_out_leaderboard(family.held_out_reports(root / "results"), root)


BLOCKS: tuple[Block, ...] = (
    Block("README.md", "summary-table", SUMMARY_SOURCE, _summary),
    Block("docs/index.md", "summary-table", SUMMARY_SOURCE, _summary),
    Block(
        "docs/protocol.md",
        "solver-labels",
        "results/solver/*.jsonl",
        lambda root, _: summary.labels_table(root / "results" / "solver"),
    ),
    Block(
        "docs/protocol.md",
        "leaderboard",
        LEADERBOARD_SOURCE,
        lambda root, _: summary.leaderboard(root),
    ),
    Block("docs/protocol.md", "held-out-rules", HELD_OUT_SOURCE, _held_out),
    Block("docs/family.md", "zero-shot-tables", HELD_OUT_SOURCE, _zero_shot),
    Block("docs/family.md", "finetune-tables", FINETUNE_SOURCE, _finetune),
    Block(
        "docs/getting-started.md",
        "quick-start-figures",
        f"{TRAINING}/{training.QUICK_START_CHECK.as_posix()}",
        lambda root, _: training.quick_start_figures(
            root / TRAINING / training.QUICK_START_CHECK, root
        ),
    ),
    Block(
        "docs/results.md",
        "results-table",
        f"{TRAINING}/<Variant>/",
        lambda root, page: training.results_table(root / TRAINING, training.link_base(page, root)),
    ),
    Block(
        "docs/results.md",
        "reproducibility-table",
        f"{TRAINING}/{training.REPRODUCIBILITY.as_posix()}/*.json",
        lambda root, _: training.reproducibility_table(root / TRAINING / training.REPRODUCIBILITY),
    ),
    _saved(
        "docs/results.md",
        "network-speed-table",
        "results/benchmarks/network_speed.json",
        speed.network_speed_table,
    ),
    Block(
        "docs/results.md",
        "ablation-table",
        f"{TRAINING}/ablation/",
        lambda root, page: training.ablation_table(
            root / TRAINING, link_base=training.link_base(page, root)
        ),
    ),
    Block(
        "docs/solver.md",
        "solver-budget-curve",
        "results/solver/budget_curve/*.jsonl, results/solver/*.jsonl",
        lambda root, _: solver_budget_curve_table(root / "results" / "solver"),
    ),
    Block(
        "docs/solver.md",
        "winnability-table",
        "results/solver/*.jsonl",
        lambda root, _: winnability_table(root / "results" / "solver"),
    ),
    Block(
        "docs/solver.md",
        "search-table",
        "results/search/*.json, results/search/ppo/",
        lambda root, _: search_table(root / "results" / "search"),
    ),
    Block(
        "docs/solver.md",
        "search-budget-pairs",
        "results/search/*-s1.json, results/search/*-200-s0.1.json, results/solver/*.jsonl",
        lambda root, _: budget_pair_table(root / "results" / "search", root / "results" / "solver"),
    ),
    Block(
        "docs/solver.md",
        "search-budget-pairs-before",
        "results/search/before_dead_end/*.json, results/solver/*.jsonl",
        lambda root, _: budget_pair_table(
            root / "results" / "search" / "before_dead_end", root / "results" / "solver"
        ),
    ),
    Block(
        "docs/solver.md",
        "dead-end-table",
        "results/search/before_dead_end/*.json, results/search/*.json",
        lambda root, _: dead_end_table(root / "results" / "search"),
    ),
    Block(
        "docs/solver.md",
        "seen-moves-table",
        "results/search/dead_end/seen_moves/*.json, results/search/*.json",
        lambda root, _: seen_moves_table(root / "results" / "search"),
    ),
    Block(
        "docs/solver.md",
        "allocations-table",
        "results/search/allocations/**/deals.json",
        lambda root, _: allocations_table(root / "results" / "search" / "allocations"),
    ),
    _saved(
        "docs/solver.md",
        "budget-curve",
        "results/search/budget_curve/curve.json",
        budget_curve_table,
    ),
    _saved(
        "docs/solver_design.md",
        "solver-speed",
        "results/benchmarks/solver_speed.json",
        solver_speed_table,
    ),
    Block(
        "docs/training.md",
        "expert-table",
        "results/expert, results/training, results/search",
        lambda root, _: expert.table_for(root / "results"),
    ),
    Block(
        "docs/training.md",
        "expert-goal",
        "results/expert/goal, results/family/finetune, results/search, results/solver",
        lambda root, _: expert.goal_table_for(root / "results"),
    ),
    Block(
        "docs/training.md",
        "expert-budget",
        "results/expert/pilots, results/expert/ablation",
        lambda root, _: expert.budget_table_for(root / "results"),
    ),
    Block(
        "docs/training.md",
        "expert-ablation",
        "results/expert",
        lambda root, _: expert_ablation.table_for(root / "results"),
    ),
    Block("docs/ray.md", "ray-speedup", "results/benchmarks/ray_speedup.json", _ray_speedup),
    _saved(
        "docs/family.md",
        "family-speed",
        "results/benchmarks/family_throughput.json",
        speed.family_throughput_table,
    ),
    _saved(
        "docs/performance.md",
        "env-throughput",
        "results/benchmarks/env_throughput.json",
        speed.env_throughput_table,
    ),
    _saved(
        "docs/performance.md",
        "vector-throughput",
        "results/benchmarks/vector_throughput.json",
        speed.vector_throughput_table,
    ),
    _saved(
        "docs/performance.md",
        "pilot-table",
        f"{TRAINING}/vec_env_pilot/summary.json",
        speed.pilot_table,
    ),
    _saved(
        "docs/performance.md",
        "pilot2-table",
        f"{TRAINING}/vec_env_pilot/smaller.json",
        speed.pilot_table,
    ),
    _saved(
        "docs/performance.md",
        "train-speedup",
        "results/benchmarks/train_speedup.json",
        speed.train_speedup_table,
    ),
    _saved(
        "docs/performance.md",
        "evaluate-speedup",
        "results/benchmarks/evaluate_speedup.json",
        speed.evaluate_speedup_table,
    ),
    _saved(
        "docs/performance.md",
        "train-under-load",
        "results/benchmarks/train_under_load.json",
        speed.train_under_load_table,
    ),
)
"""Every generated block, page by page, in the order of the page."""


def blocks() -> list[Block]:
    """:data:`BLOCKS`."""
    return list(BLOCKS)


def _variant_page(variant: str) -> Page:
    return Page(
        f"{pages.PAGES.as_posix()}/{variant}.md",
        "RULES.md, the registry, results/solver, the saved reports",
        lambda root: pages.page(variant, root),
    )


def _variant_picture(variant: str) -> Picture:
    return Picture(
        f"{pages.PAGES.as_posix()}/{variant}.png",
        "the registry (its first test deal)",
        lambda root: pages.picture_png(variant),
    )


def targets() -> list[Target]:
    """Every target: the blocks (:func:`blocks`), the variant pages and the labels file, the
    pictures."""
    out: list[Target] = [*blocks()]
    out += [_variant_page(v) for v in VARIANTS]
    out.append(Page("agents/evaluation/protocol_labels.json", "results/solver", _labels_json))
    out.append(
        Picture("docs/table.png", "the registry (Number Ten, seed 11, 60 moves)", _table_png)
    )
    out += [_variant_picture(v) for v in VARIANTS]
    out.append(
        Picture(
            "results/search/budget_curve/curve.png",
            "results/search/budget_curve/curve.json",
            lambda root: budget_curve_png(_json(root, "results/search/budget_curve/curve.json")),
            needs="matplotlib",
        )
    )
    return out


def select(chosen: Sequence[str], among: Iterable[Target] | None = None) -> list[Target]:
    """The targets named in ``chosen`` (a block's name, or a path: every target in that
    file); all of them when ``chosen`` is empty.

    Raises:
        ValueError: a name that is no target's.
    """
    every = targets() if among is None else list(among)
    if not chosen:
        return every
    unknown = [c for c in chosen if not any(c in (t.path, getattr(t, "name", None)) for t in every)]
    if unknown:
        raise ValueError(f"no generated block, page or picture named {', '.join(unknown)}")
    return [t for t in every if t.path in chosen or getattr(t, "name", None) in chosen]


@dataclass(frozen=True)
class Outcome:
    """What :func:`regenerate` or :func:`check` found for one target: ``status`` is
    ``current``, ``written`` (regenerate), ``stale`` (check), ``skipped`` (``detail`` says
    why) or ``failed`` (``detail``: the error, naming the file at fault)."""

    target: Target
    status: str
    detail: str = ""

    def line(self) -> str:
        """One line for the terminal: the target, what happened, why."""
        extra = f": {self.detail}" if self.detail else ""
        return f"{self.status}: {self.target.label}{extra}"


def _first_difference(target: Target, root: Path, made: str | bytes) -> str:
    """`` (line N: saved ..., now ...)``: where a stale text first differs from its render
    (empty for a picture or a missing file)."""
    if isinstance(target, Picture) or not isinstance(made, str):
        return ""
    try:
        text = (root / target.path).read_text(encoding="utf-8")
        saved = between(text, *markers(target.name)) if isinstance(target, Block) else text
    except (OSError, ValueError):
        return ""
    old, new = saved.splitlines(), made.splitlines()
    for number, (a, b) in enumerate(zip([*old, ""], [*new, ""], strict=False), 1):
        if a != b:
            return f" (line {number}: saved {a[:80]!r}, now {b[:80]!r})"
    return ""


def _one(target: Target, root: Path, write: bool) -> Outcome:
    if isinstance(target, Picture) and target.needs and find_spec(target.needs) is None:
        return Outcome(target, "skipped", f"{target.needs} is not installed")
    try:
        made = target.make(root)
        if target.current(root, made):  # type: ignore[arg-type]
            return Outcome(target, "current")
        if not write:
            where = _first_difference(target, root, made)
            return Outcome(target, "stale", f"differs from what {target.source} gives{where}")
        target.write(root, made)  # type: ignore[arg-type]
    except RENDER_ERRORS as exc:
        return Outcome(target, "failed", str(exc))
    return Outcome(target, "written", f"from {target.source}")


def check(root: Path, chosen: Iterable[Target] | None = None) -> list[Outcome]:
    """Each target of ``chosen`` (default: all) in the checkout at ``root`` against what its
    sources give now, writing nothing."""
    return [_one(t, root, write=False) for t in (targets() if chosen is None else chosen)]


def regenerate(root: Path, chosen: Iterable[Target] | None = None) -> list[Outcome]:
    """Write each target of ``chosen`` (default: all) in the checkout at ``root`` that is not
    current; the others are left as they are."""
    return [_one(t, root, write=True) for t in (targets() if chosen is None else chosen)]
