"""The layout of a training run's folder, in one place (``fortythieves train`` writes it;
``evaluate``, ``plot``, ``sweep`` and ``train --resume`` read it)::

    RUN/
      config.yaml              the resolved config (train RUN/config.yaml repeats the run)
      command.txt              the command line that started each part of the run
      run.json                 status, steps, timings, the model to evaluate
      final_evaluation.json    the final evaluation's report (fortythieves evaluate --json)
      learning_curves.png      the validations' curves (plots extra)
      models/                  best_model.zip, final_model.zip, interrupted_model.zip,
                               teacher_model.zip, checkpoints/ckpt_<steps>_steps.zip
      eval/                    evaluations.npz, foundation_cards.npz (the validations)
      tensorboard/             TensorBoard event files
      expert/                  expert iterations (ExpertFolder; fortythieves_agents.training.expert)
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

__all__ = [
    "MODEL_NAMES",
    "RUN_FILES",
    "RUN_FOLDERS",
    "ExpertFolder",
    "RunFolder",
    "RunWriteError",
    "atomic_write",
    "save_model",
]

RUN_FOLDERS = ("models", "models/checkpoints", "eval", "tensorboard")
"""Folders ``train`` makes in a run folder."""
RUN_FILES = (
    "config.yaml",
    "command.txt",
    "run.json",
    "final_evaluation.json",
    "models/best_model.zip",
    "models/final_model.zip",
    "models/interrupted_model.zip",
    "models/teacher_model.zip",
    "eval/evaluations.npz",
    "eval/foundation_cards.npz",
    "learning_curves.png",
)
"""Files ``train`` writes in a run folder (besides checkpoints and TensorBoard logs)."""
MODEL_NAMES = ("best_model.zip", "final_model.zip", "interrupted_model.zip")
"""The models a run folder may hold, in the order ``evaluate RUN`` prefers them."""


@dataclass(frozen=True)
class RunFolder:
    """The paths of one run folder (nothing is read or made here)."""

    path: Path

    @property
    def config(self) -> Path:
        return self.path / "config.yaml"

    @property
    def run_json(self) -> Path:
        return self.path / "run.json"

    @property
    def final_evaluation(self) -> Path:
        return self.path / "final_evaluation.json"

    @property
    def learning_curves(self) -> Path:
        return self.path / "learning_curves.png"

    @property
    def models(self) -> Path:
        return self.path / "models"

    @property
    def best_model(self) -> Path:
        return self.models / "best_model.zip"

    @property
    def final_model(self) -> Path:
        return self.models / "final_model.zip"

    @property
    def interrupted_model(self) -> Path:
        return self.models / "interrupted_model.zip"

    @property
    def teacher_model(self) -> Path:
        return self.models / "teacher_model.zip"

    @property
    def checkpoints(self) -> Path:
        return self.models / "checkpoints"

    def checkpoint_paths(self) -> list[Path]:
        """The checkpoints saved so far (``ckpt_<steps>_steps.zip``), by name."""
        return sorted(self.checkpoints.glob("ckpt_*_steps.zip"))

    @property
    def eval(self) -> Path:
        return self.path / "eval"

    @property
    def evaluations(self) -> Path:
        return self.eval / "evaluations.npz"

    @property
    def foundation_cards(self) -> Path:
        return self.eval / "foundation_cards.npz"

    @property
    def tensorboard(self) -> Path:
        return self.path / "tensorboard"

    @property
    def expert(self) -> Path:
        return self.path / "expert"


class RunWriteError(OSError):
    """A file of a run folder could not be written (a full disk, a quota, a folder made
    read-only): :func:`atomic_write` and :func:`save_model` removed what they had written, and
    the file at the path, if any, is the one written before. ``filename`` is the path,
    ``strerror`` the reason (``No space left on device``)."""

    def __str__(self) -> str:
        return f"cannot write {self.filename}: {self.strerror}"


def _write_through_part(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """``write`` into ``<path>.part`` (same folder), synced, then renamed to ``path``; on any
    failure the ``.part`` file is removed and ``path`` left as it was.

    Raises:
        RunWriteError: an ``OSError`` on the way (the file, its folder, the disk).
    """
    part = path.with_name(path.name + ".part")
    try:
        with open(part, "wb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())  # a full disk may only tell when the data is flushed
        os.replace(part, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            part.unlink()
        if isinstance(exc, OSError):
            raise RunWriteError(exc.errno, exc.strerror or str(exc), str(path)) from exc
        raise


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a ``.part`` file renamed into place: a reader
    (or a resumed run) never sees half a file, and a failed write leaves no ``.part`` file.

    Raises:
        RunWriteError: the file could not be written (``path`` is as it was).
    """
    _write_through_part(path, lambda file: file.write(data))


def save_model(model: Any, path: Path) -> None:
    """Save an SB3 model (``model.save``) to ``path`` as :func:`atomic_write` writes: through
    ``<path>.part``, synced and renamed, so that a full disk leaves no half-written zip for
    ``--resume`` or ``evaluate`` to pick, and the model saved there before stays.

    Raises:
        RunWriteError: the model could not be written (``path`` is as it was).
    """
    _write_through_part(path, model.save)


@dataclass(frozen=True)
class ExpertFolder:
    """The paths of a run's expert iterations (``RUN/expert``; the layout is in
    :mod:`fortythieves_agents.training.expert`'s docstring)."""

    path: Path

    @property
    def state(self) -> Path:
        return self.path / "state.json"

    @property
    def model(self) -> Path:
        return self.path / "model.zip"

    def iteration(self, i: int) -> Path:
        return self.path / f"iter-{i:03d}"

    def start_model(self, i: int) -> Path:
        return self.iteration(i) / "start.zip"

    def iteration_model(self, i: int) -> Path:
        return self.iteration(i) / "model.zip"

    def game(self, i: int, g: int) -> Path:
        return self.iteration(i) / f"game-{g:05d}.npz"

    def read_state(self) -> dict[str, Any]:
        """``state.json`` (``{"iterations": [...], "complete": bool}``; empty if missing)."""
        try:
            data = json.loads(self.state.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {"iterations": [], "complete": False}
        return data if isinstance(data, dict) else {"iterations": [], "complete": False}

    def write_state(self, state: dict[str, Any]) -> None:
        atomic_write(self.state, (json.dumps(state, indent=2) + "\n").encode())

    def unfinished(self) -> bool:
        """True if expert iterations were started here and not all finished."""
        return self.state.is_file() and not self.read_state().get("complete", False)
