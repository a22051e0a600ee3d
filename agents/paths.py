"""Checks that the files a command reads or writes are usable, before any long work starts.

Each check only looks (``stat`` and ``os.access``; a file to be read is also opened and,
a zip, read): nothing is created or written, so a refused command leaves the disk as it
was. A problem raises
:class:`fortythieves_agents.config.ConfigError`
whose one-line message names the argument and the path, e.g.
``--json out/r.json/x.json: out/r.json is a file, not a folder``.

``os.access`` is what the permission checks use, so they do not refuse anything to root;
the type checks (a folder where a file is expected, a path under a regular file) always hold.

:func:`portable_path` and :func:`portable_command` are the form in which a path or a command
line goes into a saved record (``run.json``, ``command.txt``, a report, a benchmark's JSON):
never this machine's absolute path, which would mean nothing on another machine.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Sequence
from pathlib import Path

from .config import ConfigError, checkout_root

__all__ = [
    "check_readable_file",
    "check_writable_dir",
    "check_writable_file",
    "portable_command",
    "portable_path",
]


def portable_path(path: str | Path, root: str | Path | None = None) -> str:
    """``path`` as a saved record should name it: a relative path as given; an absolute one
    relative to the checkout when inside it, else relative to the current folder when inside
    that, else its file name alone (``/`` separators).

    Args:
        path: the path to record.
        root: the checkout (default :func:`fortythieves_agents.config.checkout_root`, the one
            this package runs from; None for an installed wheel: then only the current folder).
    """
    given = Path(path)
    if not given.is_absolute():
        return given.as_posix()
    absolute = Path(os.path.abspath(given))
    if root is None:
        root = checkout_root()
    for base in (root, Path.cwd()):
        if base is None:
            continue
        base = Path(os.path.abspath(base))
        for candidate, folder in ((absolute, base), (absolute.resolve(), base.resolve())):
            if candidate.is_relative_to(folder):
                return candidate.relative_to(folder).as_posix() or "."
    return absolute.name


def portable_command(argv: Sequence[str], root: str | Path | None = None) -> list[str]:
    """A command line to record: each argument that is an absolute path, or ends in one
    after ``=`` (``--json=/x/r.json``, ``--set family.start_model=/x/m.zip``), in its
    :func:`portable_path` form; the rest as given."""
    out = []
    for arg in argv:
        key, sep, value = arg.partition("=")
        if Path(arg).is_absolute():
            out.append(portable_path(arg, root))
        elif sep and value and Path(value).is_absolute():
            out.append(f"{key}={portable_path(value, root)}")
        else:
            out.append(arg)
    return out


def _nearest_existing(path: Path) -> Path:
    """``path`` or its closest ancestor that exists (``Path.exists`` is False under a file)."""
    current = path
    while not current.exists() and current.parent != current:
        current = current.parent
    return current


def check_writable_dir(path: str | Path, what: str) -> None:
    """Refuse unless ``path`` is a writable folder or could be created as one.

    Args:
        path: the folder.
        what: the argument to name in the message, e.g. ``"--run-dir"``.

    Raises:
        ConfigError: ``path`` is not a folder, lies under a regular file, or its nearest
            existing ancestor is not writable.
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{what} {path}: is a file, not a folder")
    existing = _nearest_existing(path)
    if not existing.is_dir():
        raise ConfigError(f"{what} {path}: {existing} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"{what} {path}: folder {existing} is not writable")


def check_writable_file(path: str | Path, what: str) -> None:
    """Refuse unless ``path`` is a writable regular file or could be created as one.

    Raises:
        ConfigError: ``path`` is a folder or another non-regular file, is not writable, or
            its folder could not be created (see :func:`check_writable_dir`).
    """
    path = Path(path)
    if path.exists():
        if path.is_dir():
            raise ConfigError(f"{what} {path}: is a folder, not a file")
        if not path.is_file():
            raise ConfigError(f"{what} {path}: is not a regular file")
        if not os.access(path, os.W_OK):
            raise ConfigError(f"{what} {path}: the file is not writable")
    existing = _nearest_existing(path.parent)
    if not existing.is_dir():
        raise ConfigError(f"{what} {path}: {existing} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"{what} {path}: folder {existing} is not writable")


def check_readable_file(
    path: str | Path, what: str, zip_archive: bool = False, max_bytes: int | None = None
) -> None:
    """Refuse unless ``path`` is a readable regular file (a readable zip archive if asked).

    The file is opened as every file a user names is
    (:func:`fortythieves_env.records.files.open_user_file`): a FIFO, a device or a socket is
    refused, not read (reading a FIFO waits for a writer).

    Args:
        path: the file.
        what: the argument to name in the message, e.g. ``"--resume"``.
        zip_archive: the file must be a zip archive whose members are undamaged.
        max_bytes: the largest size accepted (None: any).

    Raises:
        ConfigError: ``path`` is missing, a folder, not a regular file, over ``max_bytes``,
            unreadable, or (``zip_archive``) not a valid zip archive or one with a damaged
            member (CRC check of every member).
    """
    from fortythieves_env.records.files import open_user_file

    path = Path(path)
    if not path.exists():
        parent = _nearest_existing(path.parent)
        if parent.exists() and not parent.is_dir():
            raise ConfigError(f"{what} {path}: {parent} is a file, not a folder")
        raise ConfigError(f"{what} {path}: no such file")
    if path.is_dir():
        raise ConfigError(f"{what} {path}: is a folder, not a file")
    if not os.access(path, os.R_OK):
        raise ConfigError(f"{what} {path}: the file is not readable")
    try:
        with open_user_file(path, max_bytes) as file:
            if zip_archive:
                try:
                    with zipfile.ZipFile(file) as archive:
                        damaged = archive.testzip()
                except (OSError, zipfile.BadZipFile, ValueError, EOFError) as exc:
                    raise ConfigError(f"{what} {path}: not a model zip file ({exc})") from None
                if damaged is not None:
                    raise ConfigError(f"{what} {path}: damaged zip member {damaged!r}")
    except OSError as exc:
        raise ConfigError(f"{what} {path}: {exc.strerror or exc}") from None
