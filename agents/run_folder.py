"""The layout of a training run's folder, in one place: every path of it is named here
(``fortythieves train`` writes it, :mod:`fortythieves_agents.training.train`; ``evaluate``,
``plot``, ``sweep`` and ``train --resume`` read it). A run folder (default
``runs/<variant>-<YYYYmmdd-HHMMSS>``, :func:`default_run_dir`) holds::

    config.yaml              the resolved configuration (defaults + variant file + --set);
                             train RUN/config.yaml repeats the run
    config.until-<N>.yaml    the earlier config, when a resume from step N changed it
    command.txt              the command line that started the run (one line per start)
    run.json                 variant, env id, status (running | completed | interrupted |
                             failed: a crash, with its error), steps (start, planned, done),
                             timing, the model to evaluate; final_evaluation: interrupted |
                             failed
    models/final_model.zip   the model at the end of training
    models/best_model.zip    the best model on the validation deals (ValidationCallback)
    models/interrupted_model.zip   saved on Ctrl-C instead of final_model.zip
    models/teacher_model.zip the model right after behaviour cloning (step 0; train.teacher)
    models/checkpoints/ckpt_<steps>_steps.zip   periodic checkpoints
    eval/evaluations.npz     the periodic validation results (SB3: returns, lengths, successes)
    eval/foundation_cards.npz   the validation episodes' foundation cards
    learning_curves.png      validation win rate and foundation cards against steps
                             (``fortythieves plot``; only with matplotlib installed)
    tensorboard/             TensorBoard logs (``tensorboard --logdir runs``), in ppo_<k>/
    final_evaluation.json    PPO vs baselines on the test deals (see
                             fortythieves_agents.evaluation.evaluate; fortythieves evaluate --json)
    expert/                  expert iterations (ExpertFolder; fortythieves_agents.training.expert)
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO

from .config import ConfigError
from .paths import check_writable_dir, check_writable_file

__all__ = [
    "BEST_MODEL",
    "CHECKPOINT_PREFIX",
    "EVALUATIONS",
    "FOUNDATION_CARDS",
    "MODEL_NAMES",
    "RUN_FILES",
    "RUN_FOLDERS",
    "TENSORBOARD_RUN",
    "ExpertFolder",
    "RunFolder",
    "RunWriteError",
    "atomic_write",
    "check_run_folder",
    "default_run_dir",
    "run_folder_of",
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
BEST_MODEL = "best_model.zip"
"""The best model on the validation deals, in ``models/`` (written by the validation)."""
EVALUATIONS = "evaluations.npz"
"""The validations in SB3's ``EvalCallback`` format, in ``eval/``."""
FOUNDATION_CARDS = "foundation_cards.npz"
"""The validation episodes' foundation cards (and stuck flags), in ``eval/``."""
CHECKPOINT_PREFIX = "ckpt"
"""The checkpoints' prefix: ``models/checkpoints/<prefix>_<steps>_steps.zip`` (SB3's
``CheckpointCallback`` naming)."""
TENSORBOARD_RUN = "ppo"
"""The TensorBoard log name of a run's PPO (``tensorboard/ppo_<k>``, SB3's ``tb_log_name``)."""


@dataclass(frozen=True)
class RunFolder:
    """The paths of one run folder (nothing is read or made here)."""

    path: Path

    @property
    def config(self) -> Path:
        return self.path / "config.yaml"

    def config_until(self, steps: int, n: int = 1) -> Path:
        """Where a resume from ``steps`` that changed the config keeps the earlier one:
        ``config.until-<steps>.yaml``, or ``config.until-<steps>-<n>.yaml`` for ``n`` > 1."""
        suffix = "" if n == 1 else f"-{n}"
        return self.path / f"config.until-{steps}{suffix}.yaml"

    @property
    def command(self) -> Path:
        return self.path / "command.txt"

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
        return self.models / BEST_MODEL

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
        return sorted(self.checkpoints.glob(f"{CHECKPOINT_PREFIX}_*_steps.zip"))

    def checkpoints_newest_first(self) -> list[tuple[int, Path]]:
        """``(steps, path)`` of the run's ``ckpt_<steps>_steps.zip`` files, most steps first."""
        found = []
        for path in self.checkpoint_paths():
            steps = path.name[len(f"{CHECKPOINT_PREFIX}_") : -len("_steps.zip")]
            if steps.isdigit():
                found.append((int(steps), path))
        return sorted(found, reverse=True)

    @property
    def eval(self) -> Path:
        return self.path / "eval"

    @property
    def evaluations(self) -> Path:
        return self.eval / EVALUATIONS

    @property
    def foundation_cards(self) -> Path:
        return self.eval / FOUNDATION_CARDS

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


def default_run_dir(variant: str, root: str | Path = "runs") -> Path:
    """``runs/<variant>-<YYYYmmdd-HHMMSS>`` (a ``-2``, ``-3`` suffix if it exists)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = Path(root) / f"{variant}-{stamp}"
    n = 2
    while path.exists():
        path = Path(root) / f"{variant}-{stamp}-{n}"
        n += 1
    return path


def run_folder_of(checkpoint: str | Path) -> Path | None:
    """The run folder a checkpoint belongs to (``<run>/models/x.zip`` or
    ``<run>/models/checkpoints/x.zip`` with a ``<run>/run.json``), or ``None``."""
    for parent in Path(checkpoint).resolve().parents[:3]:
        if RunFolder(parent).run_json.is_file() and RunFolder(parent).models.is_dir():
            return parent
    return None


def check_run_folder(run: Path) -> None:
    """Refuse a run folder :func:`~.training.train.train` could not fill, before anything is
    written.

    Raises:
        ConfigError: ``run`` or one of :data:`RUN_FOLDERS` is a file, one of
            :data:`RUN_FILES` is a folder or not writable, or the folder cannot be created.
            The message starts with ``--run-dir`` and names the path.
    """
    check_writable_dir(run, "--run-dir")
    for name in RUN_FOLDERS:
        if (run / name).exists() and not (run / name).is_dir():
            raise ConfigError(f"--run-dir {run}: {run / name} is a file, not a folder")
    for name in RUN_FILES:
        check_writable_file(run / name, "--run-dir")
