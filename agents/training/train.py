"""MaskablePPO training runs.

A run folder (default ``runs/<variant>-<YYYYmmdd-HHMMSS>``) holds the resolved config, the
command line, ``run.json``, the models (final, best on the validation deals, interrupted,
the teacher's clone, checkpoints), the validations, the learning curves, TensorBoard's logs
and the final evaluation: :mod:`fortythieves_agents.run_folder` lays it out and names every
path. The work is in modules of its own under ``fortythieves_agents.training``: ``callbacks``
(the callbacks of ``model.learn``), ``model`` (the ``MaskablePPO`` of a config), ``resume``
(starting from saved models), ``run_record`` (``run.json`` and the files a start writes) and
``phases`` (the teacher, the expert iterations, the final evaluation); :func:`train` puts
them in order.

With ``train.teacher`` (:mod:`fortythieves_agents.training.teacher`) a new run first plays the
teacher's games and
clones them, before anything is written to the run folder (Ctrl-C then leaves the folder as it
was); ``run.json`` gets a ``teacher`` entry (the games, the cloning's loss and agreement with
the teacher on held-out games before and after, its time, and ``validation_after_cloning``:
the validation result at step 0, also the first point of ``eval/*.npz`` and of the learning
curves). ``--resume`` never clones again (the checkpoint holds the cloned weights); it replays
teacher games only when the imitation term is still on at the checkpoint's step.

Every saved model carries the attribute ``fortythieves_variant`` (the variant id), so that
evaluation can refuse a model trained for another variant, ``fortythieves_rules_version``
(:data:`fortythieves_env.RULES_VERSION`), so that evaluation and ``--resume`` refuse a model
trained under other rules, and ``fortythieves_variant_spec`` (a custom variant's spec, else
None), so that evaluation can play it (``fortythieves_agents.envs``). ``run.json`` records the
``rules_version`` too.

TensorBoard scalars beyond SB3's own: ``episodes/win_rate``, ``episodes/mean_foundation_cards``
and ``episodes/mean_length`` over the last 100 training episodes (from ``Monitor``'s
``info["episode"]``), and ``eval/*`` from the periodic validation.
"""

from __future__ import annotations

import contextlib
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import CallbackList

from ..config import Config, ConfigError
from ..envs import make_training_vec_env, tag_model
from ..process import compile_notice, stop_signals_interrupt, torch_threads
from ..run_folder import TENSORBOARD_RUN, ExpertFolder, RunFolder, RunWriteError, save_model
from ..run_folder import check_run_folder as check_run_folder
from ..run_folder import default_run_dir as default_run_dir
from ..run_folder import run_folder_of as run_folder_of
from .callbacks import EpisodeStatsCallback as EpisodeStatsCallback
from .callbacks import StepProgressCallback as StepProgressCallback
from .callbacks import TotalStepCheckpoint as TotalStepCheckpoint
from .callbacks import ValidationCallback as ValidationCallback
from .callbacks import _callbacks
from .model import build_model as build_model
from .model import policy_differences as policy_differences
from .model import policy_for as policy_for
from .phases import (
    _expert_phase,
    _final_evaluation,
    _record_imitation_schedule,
    _teacher_phase,
)
from .phases import final_evaluation_command as final_evaluation_command
from .plot import write_learning_curves
from .resume import (
    _check_model_zip,
    _load_checkpoint,
    _load_start_model,
    _trim_resumed_tensorboard,
    _write_failure,
)
from .resume import resume_checkpoint as resume_checkpoint
from .resume import saved_timesteps as saved_timesteps
from .resume import trim_tensorboard as trim_tensorboard
from .resume import unreadable_model as unreadable_model
from .run_record import (
    _earlier_meta,
    _mark_failed,
    _note_cloning_validation,
    _phase_times,
    _record_end,
    _record_start,
    _run_meta,
    _write_json,
)

# ``from .x import y as y``: names that lived here before the module was split, still
# importable from here; documented where they live now, so not in __all__
__all__ = [
    "COMPILE_NOTICE",
    "TrainResult",
    "train",
]

COMPILE_NOTICE = (
    "compiling the game's kernels (the first run after an install or an update: a minute or "
    "two, more on a busy machine; numba caches them for later runs)"
)
"""What :func:`train` prints when numba starts compiling (only then:
:func:`fortythieves_agents.process.compile_notice`); the first run after an install was
otherwise silent for minutes after the teacher's first line."""


@dataclass
class TrainResult:
    """What :func:`train` produced.

    ``status``: ``"completed"``; ``"interrupted"`` (Ctrl-C or SIGTERM during training, the
    model saved as ``interrupted_model.zip``; during the teacher's games or the behaviour
    cloning, nothing saved and ``model_path`` None); or ``"evaluation_interrupted"`` (training
    completed and saved, the final evaluation stopped; ``evaluation`` is None).
    """

    run_dir: Path
    status: str
    model_path: Path | None
    timesteps: int
    seconds: float
    evaluation: dict[str, Any] | None


def train(
    config: Config,
    run_dir: str | Path | None = None,
    resume: str | Path | None = None,
    argv: list[str] | None = None,
    console: Any = None,
    continue_expert: bool = False,
) -> TrainResult:
    """Train MaskablePPO as ``config`` says, then run the final evaluation.

    Everything is checked before anything is written or trained: the checkpoint (loaded
    in full), the run folder and every file train writes there (:func:`check_run_folder`).
    A refused call leaves the disk untouched.

    Training runs whole rollouts (SB3 always finishes one): the steps to run are rounded up
    to a multiple of ``ppo.n_steps * train.n_envs`` (a message says so, and ``run.json``
    records ``planned_timesteps``); the progress bar (``train.progress_bar``, on stderr, only
    when it is a terminal) shows that true total.

    Process state: the SIGINT and SIGTERM handlers (which raise ``KeyboardInterrupt`` during
    the call) and torch's thread count (``train.torch_threads``) are put back when the call
    returns or raises. SB3 seeds the process-wide generators (``random``, numpy's global one,
    torch's) with ``config.seed`` when it builds or loads the model; that is not undone.
    When numba starts compiling the kernels (the first run after an install), the console
    says so once (:data:`COMPILE_NOTICE`); with the progress bar on, the teacher's games and
    the behaviour cloning show bars too.

    Args:
        config: the resolved configuration.
        run_dir: the run folder; default: the checkpoint's run folder when resuming (see
            :func:`run_folder_of`), else :func:`default_run_dir`. Created if missing. A
            folder that already holds a run is refused unless resuming.
        resume: a checkpoint zip to continue from. ``train.total_timesteps`` is then the total
            including the checkpoint's steps. ``ppo.*``, ``seed``, ``env.*``, ``train.*`` and
            ``eval.*`` of ``config`` apply from the checkpoint on (see
            :func:`_load_checkpoint`); a different network (``policy.*``) is refused. In the
            checkpoint's own run folder, a changed config replaces ``config.yaml`` and the
            earlier one is kept as ``config.until-<checkpoint steps>.yaml``.
        argv: the command line to record (default ``sys.argv``).
        console: a ``rich.console.Console`` for messages (default: a new one).
        continue_expert: ``run_dir`` holds a run stopped during its expert iterations
            (:mod:`fortythieves_agents.training.expert`; ``train --resume RUN``): continue them (no
            teacher games again), then PPO as in a new run. ``resume`` must be None.

    Returns:
        A :class:`TrainResult`. On Ctrl-C (or SIGTERM) during training the model is saved as
        ``interrupted_model.zip``, ``status`` is ``"interrupted"`` and no final evaluation is
        run. On Ctrl-C during the final evaluation the trained model stays saved, the
        command that re-runs the evaluation is printed and ``status`` is
        ``"evaluation_interrupted"``.

    Raises:
        ConfigError: the checkpoint is missing, damaged, trained for another variant, made
            for another id version (``LittleForty-v0``: another observation) or with
            another network, or has already reached ``train.total_timesteps``; the run
            folder or a file in it cannot be written; ``run_dir`` holds another run and this
            is not a resume. Raised before anything is written. Also, during the run, when a
            file of the run folder cannot be written (a full disk): every model and file is
            written through a ``.part`` file renamed into place
            (:func:`fortythieves_agents.run_folder.save_model`), so the failed write leaves
            nothing behind; ``run.json`` is marked ``failed`` if it can be, and the one-line
            message names the folder, the file, the models kept and the ``--resume``
            command.
    """
    from rich.console import Console

    console = console or Console(soft_wrap=True)
    variant = config.env.variant
    if resume is not None:
        resume = Path(resume)
        _check_model_zip(resume, "--resume", config, resuming=True)

    if run_dir is None and resume is not None:
        run_dir = run_folder_of(resume)  # resume where the checkpoint was written
    run = Path(run_dir) if run_dir is not None else default_run_dir(variant)
    check_run_folder(run)
    if continue_expert:
        expert_folder = ExpertFolder(RunFolder(run).expert)
        if resume is not None or not expert_folder.unfinished():
            raise ConfigError(f"--resume {run}: no unfinished expert iterations there")
        if config.expert.iterations == 0:
            raise ConfigError(
                f"--resume {run}: the run stopped during its expert iterations, but the "
                "config has expert.iterations: 0; resume with the config that started it"
            )
        from .expert import refuse_other_settings

        refuse_other_settings(run, expert_folder.read_state(), config)
    elif resume is None and (RunFolder(run).run_json.is_file() or RunFolder(run).expert.is_dir()):
        raise ConfigError(
            f"--run-dir {run}: a run is already there; choose another folder, or continue it "
            "with --resume <checkpoint>"
        )
    if resume is None and not continue_expert and config.expert.start_model is not None:
        _check_model_zip(config.expert.start_model, "expert.start_model", config, resuming=False)
    argv = list(argv if argv is not None else sys.argv)

    def compiling() -> None:
        console.print(COMPILE_NOTICE, markup=False, highlight=False)
        sys.stdout.flush()

    with (
        torch_threads(config.train.torch_threads),
        stop_signals_interrupt(),
        compile_notice(compiling),
    ):
        try:
            return _train(config, run, resume, argv, console, continue_expert)
        except RunWriteError as exc:  # a full disk: one line, what was kept, how to go on
            raise ConfigError(_write_failure(run, exc)) from None


def _after_training(
    config: Config,
    run: Path,
    model: Any,
    model_path: Path,
    meta: dict[str, Any],
    status: str,
    seconds: float,
    end_validated: bool,
    console: Any,
    progress: bool,
) -> TrainResult:
    """:func:`_train` once the model is saved and ``run.json`` written: what the console
    says, and the final evaluation unless the run or the end's validation was interrupted."""
    if status == "interrupted":
        console.print(
            f"[yellow]interrupted[/yellow] after {model.num_timesteps} steps; model saved to "
            f"{model_path}\nresume with: fortythieves train {RunFolder(run).config} "
            f"--resume {model_path} --run-dir {run}"
        )
        return TrainResult(run, status, model_path, int(model.num_timesteps), seconds, None)

    steps = int(model.num_timesteps) - int(meta["start_timesteps"])
    console.print(
        f"trained {steps} steps in {seconds:.0f} s ({steps / max(seconds, 1e-9):.0f} steps/s); "
        f"model: {model_path}"
    )
    if not end_validated:
        console.print(
            f"[yellow]the final model's validation was interrupted[/yellow]: "
            f"{RunFolder(run).best_model} has not been compared with it; no final "
            "evaluation. "
            f"Evaluate either with: fortythieves evaluate {model_path} "
            f"--episodes {config.eval.final_episodes}"
        )
        return TrainResult(
            run, "evaluation_interrupted", model_path, int(model.num_timesteps), seconds, None
        )
    report = None
    if config.eval.final_episodes > 0:
        try:
            report = _final_evaluation(config, run, model_path, meta, console, progress)
        except Exception as exc:
            _mark_failed(run, meta, "final_evaluation", exc)
            raise
        if report is None:
            return TrainResult(
                run, "evaluation_interrupted", model_path, int(model.num_timesteps), seconds, None
            )
    console.print(_phase_times(meta), markup=False, highlight=False)
    return TrainResult(run, status, model_path, int(model.num_timesteps), seconds, report)


def _validate_end(validation: Any, status: str, cloned: bool, meta: dict[str, Any]) -> bool:
    """Validate the last rollout's update (a completed run), before the final evaluation
    picks a model, and note the cloned start's validation in ``meta``; False when Ctrl-C
    stopped that validation."""
    validated = True
    if status == "completed" and validation is not None:
        try:
            validation.validate_end()
        except KeyboardInterrupt:
            validated = False
    if cloned and validation is not None and validation.evaluations_timesteps:
        _note_cloning_validation(meta, validation)
    return validated


def _train(
    config: Config,
    run: Path,
    resume: Path | None,
    argv: list[str],
    console: Any,
    continue_expert: bool = False,
) -> TrainResult:
    """:func:`train` once the arguments are checked (handlers and threads already set)."""
    variant = config.env.variant
    progress = config.train.progress_bar and sys.stderr.isatty()
    folder = RunFolder(run)
    tb = str(folder.tensorboard) if config.train.tensorboard else None
    env = make_training_vec_env(config)
    meta: dict[str, Any] | None = None  # run.json once the run folder is written
    try:
        if resume is not None:
            model = _load_checkpoint(resume, config, env, tb)
            tag_model(model, config.env)
        else:
            model = build_model(config, env, tb)
            if config.expert.start_model is not None and not continue_expert:
                _load_start_model(model, config.expert.start_model)
        start_steps = int(model.num_timesteps)
        remaining = config.train.total_timesteps - start_steps
        if remaining <= 0:
            raise ConfigError(
                f"--resume {resume}: the checkpoint has {start_steps} steps, "
                f"train.total_timesteps is {config.train.total_timesteps}: nothing to do"
            )
        _record_imitation_schedule(config, model, resume is not None, console)
        rollout = config.ppo.n_steps * config.train.n_envs
        to_run = -(-remaining // rollout) * rollout  # SB3 always finishes a rollout
        end_steps = start_steps + to_run

        started = _teacher_phase(config, model, run, resume, start_steps, continue_expert, console)
        if started is None:
            return TrainResult(run, "interrupted", None, start_steps, 0.0, None)
        teacher_meta, teacher_games = started
        cloned = resume is None and teacher_meta is not None

        # accepted: from here on the run folder is written
        kept = _record_start(run, config, argv, resume, start_steps)
        if kept is not None:
            console.print(f"the run's earlier config.yaml is kept as {run / kept}")
        if cloned and not continue_expert:
            tag_model(model, config.env)
            save_model(model, folder.teacher_model)
        expert_meta = None
        if config.expert.iterations > 0 and resume is None:
            expert_meta = _expert_phase(config, model, run, console, teacher_meta)
            if expert_meta is None:
                return TrainResult(run, "interrupted", None, start_steps, 0.0, None)
        if resume is not None and tb is not None:
            _trim_resumed_tensorboard(tb, start_steps, console)
        bar = StepProgressCallback(start_steps, end_steps) if progress else None

        def echo(line: str) -> None:
            with bar.paused() if bar is not None else contextlib.nullcontext():
                console.print(line, markup=False, highlight=False)
                sys.stdout.flush()

        callbacks, validation, imitation, warmup = _callbacks(
            config, run, resume, start_steps, cloned, teacher_games, bar, echo, console
        )

        meta = _run_meta(config, model, resume, start_steps, end_steps, teacher_meta)
        if expert_meta is None and resume is not None:
            expert_meta = _earlier_meta(run, "expert")  # kept on a PPO resume
        if expert_meta is not None:
            meta["expert"] = expert_meta
        _write_json(folder.run_json, meta)
        start = time.perf_counter()
        status = "completed"
        if to_run != remaining:
            console.print(
                f"train.total_timesteps {config.train.total_timesteps} rounded up to {end_steps}"
                f": training runs whole rollouts of ppo.n_steps * train.n_envs = {rollout} steps"
            )
        try:  # Ctrl-C (or SIGTERM) from here on saves the model
            console.print(f"[bold]training[/bold] {variant} for {to_run} steps -> {run}")
            sys.stdout.flush()
            model.learn(
                total_timesteps=to_run,
                callback=CallbackList(callbacks),
                log_interval=config.train.log_interval,
                tb_log_name=TENSORBOARD_RUN,
                reset_num_timesteps=resume is None,
            )
            model_path = folder.final_model
        except KeyboardInterrupt:
            status = "interrupted"
            model_path = folder.interrupted_model
        finally:
            if bar is not None:
                bar.close()
            if imitation is not None:
                imitation.remove()  # Ctrl-C skips SB3's training end
            if warmup is not None:
                warmup.release()
        seconds = time.perf_counter() - start
        end_validated = _validate_end(validation, status, cloned, meta)
        tag_model(model, config.env)
        save_model(model, model_path)
    except Exception as exc:
        if meta is not None:  # a crash: run.json must not stay "running"
            _mark_failed(run, meta, "status", exc)
        raise
    finally:
        # subprocess workers may already have stopped on Ctrl-C
        with contextlib.suppress(OSError, EOFError):
            env.close()
    _record_end(folder, meta, model, start_steps, status, seconds, model_path, validation)
    if not end_validated:
        meta["end_validation"] = "interrupted"
        _write_json(folder.run_json, meta)
    write_learning_curves(run, console)
    return _after_training(
        config, run, model, model_path, meta, status, seconds, end_validated, console, progress
    )
