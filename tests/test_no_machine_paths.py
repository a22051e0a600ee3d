"""Nothing committed names the machine it was made on: no absolute path of its work folder
(a checkout, a run folder, a log there) and none of its local tools; saved records name
paths as :func:`fortythieves_agents.paths.portable_path` gives them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from fortythieves_agents.paths import portable_command, portable_path
from helpers import ROOT

# built from parts, so that this file does not match itself
MACHINE_FOLDER = re.compile(rb"(?<![\w.~/-])" + re.escape(b"/" + b"work" + b"/"))
"""An absolute path under the machine's work folder (not a relative path nor a URL with a
folder of that name: the first slash must not follow a path character)."""
LOCAL_TOOLS = [b"farm" + b"-" + name for name in (b"bench", b"studio")]
"""The machine's own tools, which the project does not ship: a figure says what was
measured and how, not with which local tool."""


def _tracked_files() -> list[str]:
    """The files ``git ls-files`` lists (skips when this is not a git checkout, e.g. an
    unpacked sdist or wheel: CI runs in a clone, so the test runs there)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed: cannot list the committed files")
    done = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=False
    )
    if done.returncode != 0 or not (ROOT / ".git").exists():
        pytest.skip(f"{ROOT} is not a git checkout: no committed files to check")
    return [name for name in done.stdout.decode("utf-8").split("\0") if name]


def test_committed_files_name_no_machine_path_nor_local_tool() -> None:
    found: list[str] = []
    for name in _tracked_files():
        path = ROOT / name
        if not path.is_file():  # deleted in the work tree, not yet committed
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:  # a binary file (png, zip, npz)
            continue
        if MACHINE_FOLDER.search(name.encode()):
            found.append(f"{name}: its name")
        for number, line in enumerate(data.splitlines(), 1):
            if MACHINE_FOLDER.search(line) or any(tool in line for tool in LOCAL_TOOLS):
                text = line.decode("utf-8", "replace").strip()
                found.append(f"{name}:{number}: {text[:120]}")
    assert not found, (
        f"{len(found)} committed lines name this machine's folders or tools (write paths "
        "relative to the checkout: fortythieves_agents.paths.portable_path):\n"
        + "\n".join(found[:40])
    )


def test_portable_path_relative_to_the_checkout_else_the_working_folder_else_the_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, work, elsewhere = tmp_path / "checkout", tmp_path / "work", tmp_path / "other"
    for folder in (root, work, elsewhere):
        folder.mkdir()
    monkeypatch.chdir(work)
    assert portable_path(root / "runs" / "a" / "model.zip", root) == "runs/a/model.zip"
    assert portable_path(root, root) == "."
    assert portable_path(work / "out" / "r.json", root) == "out/r.json"
    assert portable_path(elsewhere / "x" / "model.zip", root) == "model.zip"
    assert portable_path("runs/a/../b/model.zip", root) == "runs/a/../b/model.zip"  # as given
    assert portable_path(str(root / "c.yaml")) == "c.yaml"  # the package's checkout is not root
    # a path, or the checkout, spelled through a symbolic link: inside all the same
    link = tmp_path / "link"
    link.symlink_to(root, target_is_directory=True)
    assert portable_path(link / "m.zip", root) == "m.zip"
    assert portable_path(root / "m.zip", link) == "m.zip"
    for value in (root / "runs" / "m.zip", work / "o.json", elsewhere / "m.zip"):
        assert not Path(portable_path(value, root)).is_absolute()


def test_portable_command_rewrites_absolute_arguments_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "checkout"
    argv = [
        str(root / ".venv" / "bin" / "python"),
        "-m",
        "fortythieves_agents.cli.main",
        "train",
        "configs/streets.yaml",
        "--set",
        f"family.start_model={root / 'runs' / 'm.zip'}",
        f"--json={tmp_path / 'r.json'}",
        "--set",
        "train.shaping={a: 1}",
        "--run-dir",
        str(Path(os.sep, "elsewhere", "run-1")),
    ]
    assert portable_command(argv, root) == [
        ".venv/bin/python",
        "-m",
        "fortythieves_agents.cli.main",
        "train",
        "configs/streets.yaml",
        "--set",
        "family.start_model=runs/m.zip",
        "--json=r.json",
        "--set",
        "train.shaping={a: 1}",
        "--run-dir",
        "run-1",
    ]
