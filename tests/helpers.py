"""Helpers shared by the test modules: the checkout's paths and the command-line runners.

pytest puts this folder and the checkout's root on the import path (``pythonpath`` in
``pyproject.toml``), so a test module imports them as ``from helpers import ROOT`` (and the
measurement scripts as ``benchmarks.<name>``). The config overrides the tests share are in ``configs.py``,
hand-built positions in ``positions.py``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import io
import os
import subprocess
import sys
import threading
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from fortythieves_env import VARIANTS

ROOT = Path(__file__).resolve().parents[1]
"""The checkout: ``configs/``, ``docs/``, ``results/``, ``scripts/``, ``benchmarks/``."""

CONFIGS = ROOT / "configs"
"""The shipped training configs."""

STREETS = CONFIGS / "streets.yaml"
"""The shipped Streets config, the one the training tests start from."""

KINGS_FORTY = dataclasses.replace(
    VARIANTS["FortyThieves"],
    id="KingsForty",
    name="Kings Forty",
    empty_column="kings",
    pysol_id=None,
)
"""Forty Thieves with empty columns for Kings only (one card at a time)."""

KINGS_TEN = dataclasses.replace(
    VARIANTS["NumberTen"], id="KingsTen", name="Kings Ten", empty_column="kings", pysol_id=None
)
"""Number Ten with empty columns for Kings only (sequences move, face-down cards)."""

KINGS_ONLY = (KINGS_FORTY, KINGS_TEN)


def run_cli(
    *args: str,
    cwd: Path = ROOT,
    env: dict[str, str] | None = None,
    input: str | None = None,
    timeout: float = 240,
) -> subprocess.CompletedProcess[str]:
    """``python -m fortythieves_agents.cli *args`` in a subprocess, its output captured as
    text. ``env`` is the whole environment; by default this process's, unbuffered
    (``PYTHONUNBUFFERED=1``); ``input`` is its standard input."""
    return subprocess.run(
        [sys.executable, "-m", "fortythieves_agents.cli.main", *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONUNBUFFERED": "1"} if env is None else env,
    )


def play_cli(
    argv: list[str],
    lines: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> tuple[int, str, str]:
    """Run ``fortythieves play ...`` in-process with ``lines`` as standard input; its exit
    code, stdout and stderr."""
    from fortythieves_agents.cli.main import main

    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    code = main(["play", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def rewrite_zip(source: Path, target: Path, change: Callable[[str, bytes], bytes]) -> Path:
    """``source`` copied to ``target`` with each member's bytes replaced by
    ``change(name, content)`` (the archive itself stays valid); returns ``target``."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for item in old.infolist():
            new.writestr(item, change(item.filename, old.read(item)))
    return target


def one_error_line(
    capsys: pytest.CaptureFixture[str], *names: str, command: str | None = None
) -> str:
    """The single stderr line of a refused command (``fortythieves ...: error: ...``, no
    traceback); it names every one of ``names``. With ``command`` the line starts
    ``fortythieves <command>: error: ``."""
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(
        "fortythieves" if command is None else f"fortythieves {command}: error: "
    ), err
    assert ": error: " in lines[0], err
    assert "Traceback" not in err, err
    for name in names:
        assert name in lines[0], (name, lines[0])
    return lines[0]


@contextlib.contextmanager
def fifo(path: Path) -> Iterator[Path]:
    """A FIFO (named pipe) at ``path`` whose readers never wait long: while the block runs,
    a thread opens it for writing whenever a reader has it open, and closes it at once, so
    a reader sees an empty file. Code that reads a FIFO instead of refusing it then fails
    on the empty content (its message does not name the FIFO) instead of hanging."""
    os.mkfifo(path)
    stop = threading.Event()

    def unblock() -> None:
        while not stop.wait(0.05):
            with contextlib.suppress(OSError):  # ENXIO until a reader has it open
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))

    thread = threading.Thread(target=unblock, daemon=True)
    thread.start()
    try:
        yield path
    finally:
        stop.set()
        thread.join()


def load_script(path: Path, name: str) -> ModuleType:
    """The script at ``path`` (not a package module) loaded as module ``name``, for its
    functions; not entered in ``sys.modules``."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
