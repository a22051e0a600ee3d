"""A run's record in its folder (:mod:`fortythieves_agents.run_folder` names the files):
``config.yaml`` and ``command.txt`` as a run starts, ``run.json`` (status, steps, timings, each
phase's figures) as it starts, ends or fails, and the line of each phase's time."""

from __future__ import annotations

import contextlib
import json
import shlex
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from fortythieves_env import RULES_VERSION

from ..config import Config, ConfigError, dump_config
from ..paths import portable_command, portable_path
from ..run_folder import RUN_FOLDERS, RunFolder, atomic_write

__all__: list[str] = []  # helpers of train.py only


def _write_json(path: Path, data: dict[str, Any]) -> None:
    atomic_write(path, (json.dumps(data, indent=2) + "\n").encode())


def _record_start(
    run: Path, config: Config, argv: list[str], resume: Path | None, start_steps: int
) -> str | None:
    """Write ``config.yaml`` and append to ``command.txt``; on a resume whose config differs
    from the folder's ``config.yaml``, keep that one as ``config.until-<steps>.yaml``.

    Returns:
        The name of the kept earlier config, if any.

    Raises:
        ConfigError: a file or folder cannot be written (named).
    """
    kept = None
    target = run
    try:
        for name in ("", *RUN_FOLDERS):
            target = run / name
            target.mkdir(parents=True, exist_ok=True)
        text = dump_config(config)
        target = RunFolder(run).config
        if resume is not None and target.is_file():
            try:
                before = target.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                before = None
            if before != text:
                keep = RunFolder(run).config_until(start_steps)
                n = 2
                while keep.exists():
                    keep = RunFolder(run).config_until(start_steps, n)
                    n += 1
                target.replace(keep)
                kept = keep.name
        target.write_text(text, encoding="utf-8")
        target = RunFolder(run).command
        with target.open("a", encoding="utf-8") as out:  # one line per (re)start
            out.write(shlex.join(portable_command(argv)) + "\n")
    except OSError as exc:
        raise ConfigError(
            f"--run-dir {run}: cannot write {target}: {exc.strerror or exc}"
        ) from None
    return kept


def _run_meta(
    config: Config,
    model: Any,
    resume: Path | None,
    start_steps: int,
    end_steps: int,
    teacher_meta: dict[str, Any] | None,
) -> dict[str, Any]:
    """``run.json`` as training starts (status ``running``)."""
    meta = {
        "variant": config.env.variant,
        "env_id": model.env.get_attr("spec", indices=[0])[0].id,
        "rules_version": RULES_VERSION,
        "status": "running",
        "resumed_from": portable_path(resume) if resume is not None else None,
        "started": datetime.now().isoformat(timespec="seconds"),
        "start_timesteps": start_steps,
        "planned_timesteps": end_steps,
    }
    if teacher_meta is not None:
        meta["teacher"] = teacher_meta
    return meta


def _note_cloning_validation(meta: dict[str, Any], validation: Any) -> None:
    """``run.json``'s ``teacher.validation_after_cloning``: the validation at step 0 of a run
    that started from behaviour cloning (when it ran)."""
    evaluation = validation
    if evaluation.evaluations_timesteps[0] == 0:
        cards = evaluation.evaluations_foundation_cards[0]
        meta["teacher"]["validation_after_cloning"] = {
            "episodes": len(cards),
            "mean_foundation_cards": round(float(np.mean(cards)), 3),
            "win_rate": round(float(np.mean(evaluation.evaluations_successes[0])), 4)
            if evaluation.evaluations_successes
            else None,
        }


def _record_end(
    folder: RunFolder,
    meta: dict[str, Any],
    model: Any,
    start_steps: int,
    status: str,
    seconds: float,
    model_path: Path,
    validation: Any,
) -> None:
    """Write the end of training into run.json (``meta``, updated in place)."""
    steps = int(model.num_timesteps - start_steps)
    meta.update(
        status=status,
        finished=datetime.now().isoformat(timespec="seconds"),
        timesteps=int(model.num_timesteps),
        train_seconds=round(seconds, 2),
        steps_per_second=round(steps / seconds, 1) if seconds > 0 else None,
        model=str(model_path.relative_to(folder.path)),
    )
    if validation is not None:
        meta["validation_seconds"] = round(validation.seconds, 2)
    _write_json(folder.run_json, meta)


def _mark_failed(run: Path, meta: dict[str, Any], key: str, exc: BaseException) -> None:
    """Record a crash in ``run.json``: ``meta[key] = "failed"``, the error and the time."""
    meta[key] = "failed"
    meta["error"] = f"{type(exc).__name__}: {exc}"
    meta["finished"] = datetime.now().isoformat(timespec="seconds")
    with contextlib.suppress(OSError):
        _write_json(RunFolder(run).run_json, meta)


def _phase_times(meta: dict[str, Any]) -> str:
    """One line with the time of each phase of this start of the run, from ``run.json``."""
    parts = []
    teacher = meta.get("teacher") or {}
    if "collect_seconds" in teacher and meta.get("resumed_from") is None:
        parts.append(f"teacher games {teacher['collect_seconds']:.0f} s")
        cloning = teacher.get("behaviour_cloning") or {}
        if "seconds" in cloning:
            parts.append(f"behaviour cloning {cloning['seconds']:.0f} s")
    expert = meta.get("expert") or {}
    if "seconds_this_start" in expert:
        parts.append(f"expert iterations {expert['seconds_this_start']:.0f} s")
    ppo = f"PPO {meta['train_seconds']:.0f} s"
    if meta.get("steps_per_second"):
        ppo += f" at {meta['steps_per_second']:.0f} steps/s"
    if "validation_seconds" in meta:
        ppo += f" (validations {meta['validation_seconds']:.0f} s, with the end's)"
    parts.append(ppo)
    if "final_evaluation_seconds" in meta:
        parts.append(f"final evaluation {meta['final_evaluation_seconds']:.0f} s")
    return "time: " + ", ".join(parts)


def _earlier_meta(run: Path, key: str) -> dict[str, Any] | None:
    """The ``key`` entry (``teacher``, ``expert``) of the run folder's ``run.json``, if any
    (kept on a resume)."""
    try:
        data = json.loads(RunFolder(run).run_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else None
