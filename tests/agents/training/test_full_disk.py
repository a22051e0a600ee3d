"""A full disk during training (issue 37, point 3): a checkpoint cut short by ``ENOSPC``
gave a 65-line traceback and left a half-written ``ckpt_<N>_steps.zip``, which ``train
--resume RUN`` then picked and refused.

Now every model and file of a run folder is written to ``<name>.part`` and renamed into
place (``fortythieves_agents.run_folder.save_model``): the failed write leaves nothing, the
error is one line naming the folder and what was kept, and ``--resume RUN`` skips a model it
cannot read (a half-written one left by an older version) with a note.
"""

from __future__ import annotations

import errno
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
import stable_baselines3.common.base_class as base_class
from fortythieves_agents.cli.main import main
from fortythieves_agents.run_folder import RunWriteError, atomic_write, save_model
from helpers import STREETS, one_error_line

from configs import TINY, with_set

OVERRIDES = [
    *TINY,
    "train.total_timesteps=256",
    "train.checkpoint_freq=64",
]
"""A run of 4 rollouts of 64 steps, a checkpoint after each."""


def _disk_full_from(monkeypatch: pytest.MonkeyPatch, steps: int) -> None:
    """From the checkpoint of ``steps`` on, saving a model writes 100 bytes of its zip and
    then fails as a full disk does, leaving what it wrote."""
    save = base_class.save_to_zip_file

    def full_disk(save_path: Any, *args: Any, **kwargs: Any) -> None:
        name = Path(getattr(save_path, "name", save_path)).name
        number = name.removeprefix("ckpt_").split("_", 1)[0]
        if not (number.isdigit() and int(number) >= steps):
            return save(save_path, *args, **kwargs)
        if isinstance(save_path, str | Path):
            with open(save_path, "wb") as file:
                file.write(b"PK\x03\x04" + bytes(96))
        else:
            save_path.write(b"PK\x03\x04" + bytes(96))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(base_class, "save_to_zip_file", full_disk)


def test_a_full_disk_at_a_checkpoint_is_one_line_and_the_run_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    _disk_full_from(monkeypatch, 192)
    assert main(["train", str(STREETS), "--run-dir", str(run), *with_set(OVERRIDES)]) == 2
    line = one_error_line(capsys, command="train")
    assert line == (
        f"fortythieves train: error: --run-dir {run}: cannot write "
        "models/checkpoints/ckpt_192_steps.zip (No space left on device); the half-written "
        "file was removed; kept: models/checkpoints/ckpt_128_steps.zip (the newest "
        f"checkpoint); free space, then continue with: fortythieves train {run}/config.yaml "
        f"--resume {run}"
    )
    checkpoints = run / "models" / "checkpoints"
    assert sorted(p.name for p in checkpoints.iterdir()) == [
        "ckpt_128_steps.zip",
        "ckpt_64_steps.zip",
    ]
    meta = json.loads((run / "run.json").read_text(encoding="utf-8"))
    assert meta["status"] == "failed" and "No space left on device" in meta["error"]

    # a half-written checkpoint left by an older version is skipped, with a note
    (checkpoints / "ckpt_192_steps.zip").write_bytes(b"PK\x03\x04" + bytes(96))
    monkeypatch.undo()  # space freed
    argv = ["train", str(run / "config.yaml"), "--resume", str(run)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert (
        f"--resume {run}: skipped models/checkpoints/ckpt_192_steps.zip (not a model zip file "
        "(File is not a zip file))" in out
    )
    assert f"--resume {run}: continuing from {checkpoints / 'ckpt_128_steps.zip'}" in out
    meta = json.loads((run / "run.json").read_text(encoding="utf-8"))
    assert meta["status"] == "completed" and meta["start_timesteps"] == 128
    assert meta["timesteps"] == 256
    assert zipfile.ZipFile(run / "models" / "final_model.zip").testzip() is None
    assert not list(run.rglob("*.part"))


def test_a_failed_write_leaves_the_earlier_file_and_no_part(tmp_path: Path) -> None:
    """``save_model`` and ``atomic_write``: a write that fails leaves the file written
    before (if any) and no ``.part`` file; the error names the file."""

    class FullDisk:
        def save(self, file: Any) -> None:
            file.write(b"half")
            raise OSError(errno.ENOSPC, "No space left on device")

    path = tmp_path / "best_model.zip"
    path.write_bytes(b"the earlier model")
    with pytest.raises(RunWriteError) as caught:
        save_model(FullDisk(), path)
    assert str(caught.value) == f"cannot write {path}: No space left on device"
    assert caught.value.errno == errno.ENOSPC
    assert path.read_bytes() == b"the earlier model"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best_model.zip"]
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "state.json.part").mkdir()  # the .part file cannot be made
    with pytest.raises(RunWriteError, match=r"state\.json: Is a directory"):
        atomic_write(tmp_path / "sub" / "state.json", b"{}")
    assert not (tmp_path / "sub" / "state.json").exists()
