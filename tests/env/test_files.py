"""The one helper that opens a file a user named (``fortythieves_env.records.files``): a regular
file within its size bound is read; anything else is refused before a byte is read, with
the reason in ``strerror`` (issue 37, point 5)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import fifo

from fortythieves_env.records.files import UserFileError, open_user_file, read_user_text


def test_a_regular_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_text("id: Mine\n", encoding="utf-8")
    assert read_user_text(path, max_bytes=9) == "id: Mine\n"
    with open_user_file(path) as file:
        assert file.read() == b"id: Mine\n"


def test_a_fifo_is_refused_not_read(tmp_path: Path) -> None:
    with fifo(tmp_path / "pipe") as path, pytest.raises(UserFileError) as caught:
        read_user_text(path)
    assert caught.value.strerror == "a FIFO (named pipe), not a regular file"
    assert str(caught.value) == f"{path}: a FIFO (named pipe), not a regular file"
    assert isinstance(caught.value, OSError)  # callers' OSError handlers report it too


def test_a_folder_and_a_device_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UserFileError, match="a folder, not a regular file"):
        open_user_file(tmp_path)
    if os.path.exists("/dev/zero"):  # reading it never ends
        with pytest.raises(UserFileError, match="a character device, not a regular file"):
            read_user_text("/dev/zero")


def test_a_file_over_the_bound_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b"x" * 1025)
    with pytest.raises(UserFileError) as caught:
        read_user_text(path, max_bytes=1024)
    assert caught.value.strerror == "1,025 bytes, over the limit of 1,024"


def test_a_missing_file_is_the_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_user_text(tmp_path / "missing.json")
