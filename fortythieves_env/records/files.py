"""The one way the package opens a file a user named, for reading: configs, variant specs,
game records, model zips, solver results.

:func:`open_user_file` refuses anything but a regular file, and a file over a size bound
where one is given, before a byte is read, with an :class:`UserFileError` (an ``OSError``:
callers that report an unreadable file report this too) whose ``strerror`` says what the
path is, e.g. ``a FIFO (named pipe), not a regular file``. Opening a FIFO for reading waits
for a writer (``train`` hung on a FIFO given as ``expert.start_model``), and reading a
character device such as ``/dev/zero`` never ends; the file is opened without blocking and
checked on its open descriptor, so nothing swapped in after the check is read either.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

__all__ = ["UserFileError", "file_kind", "open_user_file", "read_user_bytes", "read_user_text"]


class UserFileError(OSError):
    """A file named to be read is not a regular file, or is larger than allowed.

    ``strerror`` is the reason (``a folder, not a regular file``; ``12,345 bytes, over the
    limit of 1,024``), ``filename`` the path; ``str()`` is ``"<path>: <reason>"``.
    """

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def file_kind(mode: int) -> str:
    """What a ``st_mode`` is, in words: ``a regular file``, ``a folder``, ``a FIFO (named
    pipe)``, ``a character device``, ``a block device``, ``a socket``, else ``not a file``."""
    for test, kind in (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "not a file"


def _check(path: str | Path, status: os.stat_result, max_bytes: int | None) -> None:
    if not stat.S_ISREG(status.st_mode):
        code = errno.EISDIR if stat.S_ISDIR(status.st_mode) else errno.EINVAL
        kind = file_kind(status.st_mode)
        raise UserFileError(code, f"{kind}, not a regular file", str(path))
    if max_bytes is not None and status.st_size > max_bytes:
        raise UserFileError(
            errno.EFBIG,
            f"{status.st_size:,} bytes, over the limit of {max_bytes:,}",
            str(path),
        )


def open_user_file(path: str | Path, max_bytes: int | None = None) -> BinaryIO:
    """Open ``path`` for reading (binary) if it is a regular file of at most ``max_bytes``.

    The path is checked (``stat``, following links) before it is opened, and the open file
    again (``fstat``); it is opened with ``O_NONBLOCK``, so a FIFO put in its place between
    the two is refused, not waited on.

    Args:
        path: the file a user named.
        max_bytes: the largest size accepted (None: any).

    Returns:
        The open file (the caller closes it: ``with open_user_file(p) as f``).

    Raises:
        UserFileError: ``path`` is a folder, a FIFO, a device or a socket, or is larger
            than ``max_bytes``.
        OSError: it is missing or cannot be read (``FileNotFoundError``,
            ``PermissionError``, ...).
    """
    _check(path, os.stat(path), max_bytes)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        _check(path, os.fstat(fd), max_bytes)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_user_bytes(path: str | Path, max_bytes: int | None = None) -> bytes:
    """The bytes of ``path`` (:func:`open_user_file`'s checks; a file that grows past
    ``max_bytes`` while it is read is refused too).

    Raises:
        UserFileError, OSError: as :func:`open_user_file`.
    """
    with open_user_file(path, max_bytes) as file:
        data = file.read() if max_bytes is None else file.read(max_bytes + 1)
    if max_bytes is not None and len(data) > max_bytes:
        raise UserFileError(errno.EFBIG, f"over the limit of {max_bytes:,} bytes", str(path))
    return data


def read_user_text(path: str | Path, max_bytes: int | None = None) -> str:
    """The text of ``path``, decoded as UTF-8 (:func:`read_user_bytes`' checks).

    Raises:
        UserFileError, OSError: as :func:`open_user_file`.
        UnicodeDecodeError: the file is not UTF-8 text.
    """
    return read_user_bytes(path, max_bytes).decode("utf-8")
