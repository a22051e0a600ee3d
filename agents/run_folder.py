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
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["MODEL_NAMES", "RUN_FILES", "RUN_FOLDERS", "RunFolder"]

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
