"""The README's and the docs' generated tables, pages and pictures are what ``python -m
fortythieves_agents.reports`` writes from the checkout's ``results/`` (one test per target,
named by its page and block), every generated block of a page is in that command's list, and
the command names what is stale, rewrites only that, and refuses a page without its markers."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from fortythieves_agents.reports.__main__ import main
from fortythieves_agents.reports.markers import between, markers, replace_between
from fortythieves_agents.reports.targets import (
    COMMAND,
    PICTURE_TOLERANCE,
    Block,
    Picture,
    check,
    targets,
)
from helpers import ROOT
from PIL import Image

TARGETS = targets()


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.label)
def test_each_generated_target_is_current(target: Block | Picture) -> None:
    """After new results: run the command from the checkout's root and commit what it wrote."""
    if isinstance(target, Picture) and target.needs:
        pytest.importorskip(target.needs)
    (outcome,) = check(ROOT, [target])
    assert outcome.status == "current", f"{outcome.line()}\nto regenerate it: {COMMAND}"


def test_every_marked_block_of_the_pages_is_a_target() -> None:
    """A block marked in README.md or a docs page but missing from the list would never be
    written nor checked; each target's markers are in its page once."""
    blocks = {(t.path, t.name) for t in TARGETS if isinstance(t, Block)}
    marked = set()
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for name in re.findall(r"^<!-- ([\w-]+):start -->$", text, flags=re.M):
            marked.add((path.relative_to(ROOT).as_posix(), name))
    assert marked == blocks
    labels = [t.label for t in TARGETS]
    assert len(labels) == len(set(labels))


def test_a_block_is_written_between_its_markers_and_read_back() -> None:
    start, end = markers("x-table")
    assert (start, end) == ("<!-- x-table:start -->", "<!-- x-table:end -->")
    page = f"a\n{start}\nold\n{end}\nb\n"
    for table in ("| t |\n|---|", "", "two\n\nparagraphs"):
        written = replace_between(page, table, start, end)
        assert written == f"a\n{start}\n{table}\n{end}\nb\n"
        assert between(written, start, end) == table
    for bad in ("no markers", f"{end}\n{start}\n", f"{start}\n{end}\n{start}\n{end}\n"):
        with pytest.raises(ValueError, match="x-table:start"):
            replace_between(bad, "t", start, end)
        with pytest.raises(ValueError, match="x-table:start"):
            between(bad, start, end)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A checkout's pages (copies: written by the tests) over this checkout's results
    (linked: read only; the tests write no picture under results/)."""
    root = tmp_path / "checkout"
    root.mkdir()
    shutil.copy(ROOT / "README.md", root / "README.md")
    shutil.copytree(ROOT / "docs", root / "docs")
    (root / "results").symlink_to(ROOT / "results", target_is_directory=True)
    return root


def test_the_command_names_each_stale_block_and_rewrites_only_it(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    solver = checkout / "docs" / "solver.md"
    assert main(["--root", str(checkout), "--only", "docs/solver.md"]) == 0
    current = solver.read_text(encoding="utf-8")
    start, end = markers("winnability-table")
    solver.write_text(replace_between(current, "old", start, end), encoding="utf-8")
    capsys.readouterr()
    assert main(["--root", str(checkout), "--check", "--only", "docs/solver.md"]) == 1
    out, err = capsys.readouterr()
    assert "stale: docs/solver.md [winnability-table]: differs from what results/solver" in err
    assert err.count("stale:") == 1 and f"to regenerate them: {COMMAND}" in err
    blocks = sum(t.path == "docs/solver.md" for t in TARGETS)
    assert f"{blocks} generated blocks, pages and pictures: {blocks - 1} current, 1 stale" in out
    assert main(["--root", str(checkout), "--only", "winnability-table"]) == 0
    assert "written: docs/solver.md [winnability-table]" in capsys.readouterr().out
    assert solver.read_text(encoding="utf-8") == current
    # a page without a block's markers: named, nothing written, exit code 2
    solver.write_text(current.replace(f"{start}\n", ""), encoding="utf-8")
    assert main(["--root", str(checkout), "--only", "winnability-table"]) == 2
    err = capsys.readouterr().err
    assert "failed: docs/solver.md [winnability-table]: docs/solver.md: " in err
    assert "winnability-table:start" in err


def test_the_command_refuses_what_it_does_not_know(
    tmp_path: Path, checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--root", str(tmp_path)])  # no README.md and results/: not a checkout
    assert exit_.value.code == 2 and "not a checkout" in capsys.readouterr().err
    assert main(["--root", str(checkout), "--only", "no-such-table"]) == 2
    assert "no generated block, page or picture named no-such-table" in capsys.readouterr().err
    assert main(["--root", str(checkout), "--print", "no-such-table"]) == 2
    assert main(["--root", str(checkout), "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == len(TARGETS)
    assert "docs/solver.md [winnability-table]: from results/solver/*.jsonl" in listed


def test_print_shows_one_block_as_rendered_now(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--root", str(checkout), "--print", "search-table"]) == 0
    (block,) = [t for t in TARGETS if isinstance(t, Block) and t.name == "search-table"]
    assert capsys.readouterr().out == block.make(checkout) + "\n"


def test_a_picture_is_current_within_the_tolerance_and_rewritten_beyond_it(
    checkout: Path,
) -> None:
    """Glyph edges move by a few pixels between Pillow builds; a drawing that changed moves
    more. A current picture is left as it is, byte for byte."""
    (picture,) = [t for t in TARGETS if t.path == "docs/table.png"]
    path = checkout / "docs" / "table.png"
    pixels = np.asarray(Image.open(path).convert("RGB")).copy()
    fresh = np.asarray(Image.open(io.BytesIO(picture.make(checkout))).convert("RGB"))
    base = int((pixels != fresh).any(axis=2).sum())  # this machine's drawing against the saved
    assert base <= PICTURE_TOLERANCE // 2 and not (pixels[0] != fresh[0]).any()
    pixels[0, : PICTURE_TOLERANCE - base] ^= 0xFF  # the tolerance's worth of pixels changed
    Image.fromarray(pixels).save(path)
    saved = path.read_bytes()
    (outcome,) = check(checkout, [picture])
    assert outcome.status == "current"
    assert main(["--root", str(checkout), "--only", "docs/table.png"]) == 0
    assert path.read_bytes() == saved  # left alone
    pixels[1, :1] ^= 0xFF  # one more
    Image.fromarray(pixels).save(path)
    (outcome,) = check(checkout, [picture])
    assert outcome.status == "stale"
    assert main(["--root", str(checkout), "--only", "docs/table.png"]) == 0
    assert path.read_bytes() == picture.make(checkout)
