"""``fortythieves train family``: PPO on the family's shared encoding.

A family run (:class:`~fortythieves_agents.family.config.FamilyConfig`, e.g.
``configs/family.yaml``) trains the family network
(:class:`~fortythieves_agents.networks.family_policy.FamilyPlayerPolicy`) with MaskablePPO on
a :class:`~fortythieves_agents.family.envs.FamilyBatchedVecEnv`:

- ``family.rule_set: null``: each training episode draws a rule set from the training
  distribution (:data:`fortythieves_env.envs.family.TRAINING`, or ``family.bounds``' box), never
  a held-out game; the deal seed (``0 .. 999_999_999``, drawn per game as in a variant's
  run) fixes both the rule set and the deal. The run ends with the **zero-shot**
  evaluation on every held-out game (:mod:`fortythieves_agents.family.zero_shot`,
  ``zero_shot.json``).
- ``family.rule_set: <id>``: every episode plays that rule set through the shared
  encoding; with ``family.start_model`` (a family model) it **fine-tunes** that network, and
  without one it trains the same network from its start (behaviour cloning of
  ``train.teacher``, else random weights). The run ends with the rule set's final
  evaluation on its own id (``final_evaluation.json``, as a variant's run: the family
  network through the shared encoding beside the baselines, the solver column for the nine
  variants).

The run folder is a variant run's (:mod:`fortythieves_agents.run_folder`: ``config.yaml``,
``command.txt``, ``run.json``, ``models/``, ``eval/``, ``tensorboard/``,
``learning_curves.png``), plus ``zero_shot.json``. Validation (``eval.eval_freq``,
``eval.n_eval_episodes``) plays the validation deals (``1_000_000_000 + i``) through
``Family-v0``: on the training distribution (each seed draws its rule set, so the deals are
training rule sets, never a held-out one) or on the fixed rule set (then the deals are the
variant's own validation deals, those of its own id). Every saved model records
``fortythieves_variant: Family`` and what it was trained on
(:func:`~fortythieves_agents.family.agents.tag_family_model`).

``--resume CHECKPOINT_OR_RUN`` continues a family run from a checkpoint (the network and
``family.*`` cannot change); behaviour cloning is not repeated.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
import time
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from fortythieves_env import RULES_VERSION, VARIANTS
from fortythieves_env.envs.registration import FAMILY_ENV_ID

from ..config import ConfigError, dump_config
from ..networks.model_zip import ModelMismatchError, check_model_rules, load_maskable_ppo
from ..paths import check_readable_file, portable_command, portable_path
from ..process import compile_notice, stop_signals_interrupt, torch_threads
from ..run_folder import RUN_FOLDERS, RunFolder, atomic_write, save_model
from ..seeds import TRAIN_RANGE
from ..training.phases import clone_teacher_games
from ..training.plot import write_learning_curves
from ..training.train import (
    COMPILE_NOTICE,
    EpisodeStatsCallback,
    StepProgressCallback,
    TotalStepCheckpoint,
    TrainResult,
    ValidationCallback,
    check_run_folder,
    default_run_dir,
    run_folder_of,
)
from .agents import FamilyGreedyAgent, is_family_model, tag_family_model, trained_on
from .config import FamilyConfig
from .envs import FamilyBatchedVecEnv, play_family_deals

__all__ = [
    "ZERO_SHOT_FILE",
    "build_family_model",
    "family_record",
    "make_family_vec_env",
    "played_model_record",
    "train_family",
]

ZERO_SHOT_FILE = "zero_shot.json"
"""The zero-shot report of a run on the training distribution, in its run folder."""


def family_record(config: FamilyConfig, timesteps: int | None = None) -> dict[str, Any]:
    """What a family model was trained on (saved with it, and in ``run.json``): the box the
    rule sets were drawn from, the fixed rule set (fine-tuning) or None, the training deal
    seeds, the rules version, and the steps."""
    record: dict[str, Any] = {
        "bounds": config.bounds_dict(),
        "rule_set": config.family.rule_set,
        "training_seeds": [TRAIN_RANGE[0], TRAIN_RANGE[1] - 1],
        "rules_version": RULES_VERSION,
        "start_model": (
            portable_path(config.family.start_model)
            if config.family.start_model is not None
            else None
        ),
    }
    if timesteps is not None:
        record["timesteps"] = int(timesteps)
    return record


def make_family_vec_env(
    config: FamilyConfig,
    n_envs: int | None = None,
    seed: int | None = None,
    no_cycling: bool | None = None,
) -> FamilyBatchedVecEnv:
    """The training env of ``config`` (:class:`FamilyBatchedVecEnv`): ``train.n_envs`` games
    (or ``n_envs``), the run seed's deal draws (or ``seed``), ``train.no_cycling`` (or
    ``no_cycling``)."""
    return FamilyBatchedVecEnv(
        config.env.make_kwargs(),
        config.train.n_envs if n_envs is None else n_envs,
        config.seed if seed is None else seed,
        rule_set=config.rule_set_spec(),
        sampler=config.sampler(),
        gamma=config.ppo.gamma,
        no_cycling=config.train.no_cycling if no_cycling is None else no_cycling,
        stall_ends_game=config.train.stall_ends_game,
    )


def build_family_model(config: FamilyConfig, env: Any, tensorboard_log: str | None) -> Any:
    """A fresh ``MaskablePPO`` of the family network (``policy.player`` sizes,
    ``policy.activation``) on ``env``; seeds the process-wide generators as SB3 does."""
    from sb3_contrib import MaskablePPO

    from ..networks.family_policy import FamilyPlayerPolicy, family_policy_kwargs

    model = MaskablePPO(
        FamilyPlayerPolicy,
        env,
        **config.ppo.model_dump(),
        policy_kwargs=family_policy_kwargs(
            config.policy.player.model_dump(), config.policy.activation
        ),
        tensorboard_log=tensorboard_log,
        seed=config.seed,
        device=config.train.device,
        verbose=0,
    )
    tag_family_model(model, family_record(config))
    return model


def _check_family_zip(path: str | Path, what: str) -> None:
    """Refuse a zip a family run cannot start from: missing or unreadable, not a family
    model, or made under other rules (one line naming ``what`` and the path).

    Raises:
        ConfigError: as said.
    """
    check_readable_file(Path(path), what, zip_archive=True)
    if not is_family_model(path):
        raise ConfigError(
            f"{what} {path}: not a family model (a family run starts from a network trained "
            "with `fortythieves train family`, which records variant Family)"
        )
    try:
        check_model_rules(path)
    except ModelMismatchError as exc:
        raise ConfigError(f"{what} {exc}") from None


def _load_start_model(model: Any, path: str) -> None:
    """The weights of the family model at ``path`` (SB3's ``set_parameters``, weights only).

    Raises:
        ConfigError: they do not fit this config's network (``policy.player`` sizes).
    """
    try:
        model.set_parameters(path, exact_match=True)
    except Exception as exc:  # torch, zip and shape errors alike
        cause = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        raise ConfigError(
            f"family.start_model {path}: its network is not this config's (policy.player "
            f"sizes; {cause})"
        ) from None


def _load_checkpoint(path: Path, config: FamilyConfig, env: Any, tb: str | None) -> Any:
    """A family checkpoint to continue with ``config``'s PPO settings.

    Raises:
        ConfigError: it does not load, or its network or ``family.*`` differ from the config's.
    """
    from ..networks.model_zip import model_data

    saved = model_data(path).get("fortythieves_family") or {}
    for key in ("rule_set", "bounds"):
        now = family_record(config)[key]
        if saved.get(key) != now:
            raise ConfigError(
                f"--resume {path}: family.{key} is {saved.get(key)!r} in the checkpoint, "
                f"{now!r} in the config: a resumed run plays the same rule sets"
            )
    try:
        model = load_maskable_ppo(
            path,
            env=env,
            device=config.train.device,
            tensorboard_log=tb,
            seed=config.seed,
            **config.ppo.model_dump(),
        )
    except ModelMismatchError as exc:
        raise ConfigError(f"--resume {exc}") from None
    from ..networks.family_policy import family_player_sizes

    kwargs = model.policy_kwargs
    differ = [
        f"policy.player.{key} is {kwargs.get(key)} in the checkpoint, {value} in the config"
        for key, value in family_player_sizes(config.policy.player.model_dump()).items()
        if (list(kwargs[key]) if isinstance(kwargs.get(key), tuple | list) else kwargs.get(key))
        != value
    ]
    if differ:
        raise ConfigError(
            f"--resume {path}: the network cannot change when resuming: " + "; ".join(differ)
        )
    return model


def _clone_teacher(config: FamilyConfig, model: Any, console: Any) -> dict[str, Any]:
    """Greedy's games on the run's rule sets (teacher deal stream, never PPO's), then
    behaviour cloning (:mod:`fortythieves_agents.training.teacher`); ``run.json``'s
    ``teacher`` entry."""
    from ..training.teacher import collect_teacher_games

    tc = config.teacher
    progress = config.train.progress_bar and sys.stderr.isatty()
    console.print(f"[bold]teacher[/bold] greedy: playing {tc.games} games on training deals")
    sys.stdout.flush()

    def make_env(n: int, seed: int) -> FamilyBatchedVecEnv:
        return make_family_vec_env(config, n, seed, no_cycling=tc.no_cycling)

    games = collect_teacher_games(
        config, FamilyGreedyAgent(), tc.games, progress=progress, make_env=make_env
    )
    return clone_teacher_games(
        model, games, "greedy", tc, config.ppo.max_grad_norm, config.seed, console, progress
    )


def _write_json(path: Path, data: dict[str, Any]) -> None:
    atomic_write(path, (json.dumps(data, indent=2) + "\n").encode())


def _record_start(run: Path, config: FamilyConfig, argv: list[str]) -> None:
    """The run folder's folders, ``config.yaml`` and a ``command.txt`` line.

    Raises:
        ConfigError: a file or folder cannot be written (named).
    """
    target = run
    try:
        for name in ("", *RUN_FOLDERS):
            target = run / name
            target.mkdir(parents=True, exist_ok=True)
        target = RunFolder(run).config
        target.write_text(dump_config(config), encoding="utf-8")
        target = RunFolder(run).command
        with target.open("a", encoding="utf-8") as out:
            out.write(shlex.join(portable_command(argv)) + "\n")
    except OSError as exc:
        raise ConfigError(
            f"--run-dir {run}: cannot write {target}: {exc.strerror or exc}"
        ) from None


def train_family(
    config: FamilyConfig,
    run_dir: str | Path | None = None,
    resume: str | Path | None = None,
    argv: list[str] | None = None,
    console: Any = None,
) -> TrainResult:
    """Train the family network as ``config`` says, then evaluate it (module docstring).

    Everything is checked before anything is written: the start model or checkpoint (a
    family model, these rules), the run folder. Ctrl-C (or SIGTERM) during PPO saves
    ``interrupted_model.zip``; during the final evaluation, the trained model stays saved.

    Args:
        config: the resolved family configuration.
        run_dir: the run folder (default ``runs/family-<timestamp>`` or
            ``runs/family-<rule set>-<timestamp>``; with ``resume``, the checkpoint's).
        resume: a family checkpoint zip to continue from (``train.total_timesteps`` counts
            its steps).
        argv: the command line to record (default ``sys.argv``).
        console: a ``rich`` console (default: a new one).

    Returns:
        A :class:`~fortythieves_agents.training.train.TrainResult` (its ``evaluation``: the
        zero-shot report, or the rule set's final evaluation).

    Raises:
        ConfigError: a bad start model or checkpoint, a run folder that cannot be written
            or already holds a run (unless resuming), or a checkpoint at
            ``train.total_timesteps`` already.
    """
    from rich.console import Console

    console = console or Console(soft_wrap=True)
    resume_path = Path(resume) if resume is not None else None
    if resume_path is not None:
        _check_family_zip(resume_path, "--resume")
    if run_dir is None and resume_path is not None:
        run_dir = run_folder_of(resume_path)
    run = Path(run_dir) if run_dir is not None else default_run_dir(config.run_name())
    check_run_folder(run)
    if resume_path is None and RunFolder(run).run_json.is_file():
        raise ConfigError(
            f"--run-dir {run}: a run is already there; choose another folder, or continue it "
            "with --resume <checkpoint>"
        )
    if resume_path is None and config.family.start_model is not None:
        _check_family_zip(config.family.start_model, "family.start_model")
    argv = list(argv if argv is not None else sys.argv)

    def compiling() -> None:
        console.print(COMPILE_NOTICE, markup=False, highlight=False)
        sys.stdout.flush()

    with (
        torch_threads(config.train.torch_threads),
        stop_signals_interrupt(),
        compile_notice(compiling),
    ):
        return _train(config, run, resume_path, argv, console)


def _start_model(config: FamilyConfig, env: Any, resume: Path | None, tb: str | None) -> Any:
    """The model PPO starts from: the checkpoint, else a new network (with the start
    model's weights when ``family.start_model`` is given), tagged as a family model."""
    if resume is not None:
        model = _load_checkpoint(resume, config, env, tb)
    else:
        model = build_family_model(config, env, tb)
        if config.family.start_model is not None:
            _load_start_model(model, config.family.start_model)
    tag_family_model(model, family_record(config))
    return model


def _train(
    config: FamilyConfig, run: Path, resume: Path | None, argv: list[str], console: Any
) -> TrainResult:
    """:func:`train_family` once the arguments are checked."""
    folder = RunFolder(run)
    progress = config.train.progress_bar and sys.stderr.isatty()
    tb = str(folder.tensorboard) if config.train.tensorboard else None
    env = make_family_vec_env(config)
    try:
        model = _start_model(config, env, resume, tb)
        start_steps = int(model.num_timesteps)
        remaining = config.train.total_timesteps - start_steps
        if remaining <= 0:
            raise ConfigError(
                f"--resume {resume}: the checkpoint has {start_steps} steps, "
                f"train.total_timesteps is {config.train.total_timesteps}: nothing to do"
            )
        rollout = config.ppo.n_steps * config.train.n_envs
        to_run = -(-remaining // rollout) * rollout
        teacher_meta = None
        if resume is None and config.train.teacher is not None:
            try:
                teacher_meta = _clone_teacher(config, model, console)
            except KeyboardInterrupt:
                console.print(
                    f"[yellow]interrupted[/yellow] before PPO; nothing was written to {run}"
                )
                return TrainResult(run, "interrupted", None, start_steps, 0.0, None)
        _record_start(run, config, argv)
        if teacher_meta is not None:
            save_model(model, folder.teacher_model)
        meta: dict[str, Any] = {
            "variant": "Family",
            "env_id": FAMILY_ENV_ID,
            "family": family_record(config),
            "rules_version": RULES_VERSION,
            "status": "running",
            "resumed_from": portable_path(resume) if resume is not None else None,
            "started": datetime.now().isoformat(timespec="seconds"),
            "start_timesteps": start_steps,
            "planned_timesteps": start_steps + to_run,
        }
        if teacher_meta is not None:
            meta["teacher"] = teacher_meta
        _write_json(folder.run_json, meta)
        status, model_path, seconds = _learn(
            config, model, run, resume, to_run, meta, teacher_meta is not None, console
        )
    finally:
        with contextlib.suppress(OSError, EOFError):
            env.close()
    write_learning_curves(run, console)
    return _after_training(config, run, model, model_path, meta, status, seconds, console, progress)


def _learn(
    config: FamilyConfig,
    model: Any,
    run: Path,
    resume: Path | None,
    to_run: int,
    meta: dict[str, Any],
    cloned: bool,
    console: Any,
) -> tuple[str, Path, float]:
    """PPO for ``to_run`` steps, the end's validation, the model saved and ``run.json``
    written: ``(status, model path, seconds)``."""
    from stable_baselines3.common.callbacks import CallbackList

    folder = RunFolder(run)
    start_steps = int(model.num_timesteps)
    progress = config.train.progress_bar and sys.stderr.isatty()
    callbacks, validation, bar = _callbacks(
        config, run, resume, start_steps, cloned, progress, console
    )
    status = "completed"
    began = time.perf_counter()
    console.print(
        f"[bold]training[/bold] the family network on "
        f"{config.family.rule_set or 'the training distribution'} for {to_run} steps -> {run}"
    )
    sys.stdout.flush()
    try:
        model.learn(
            total_timesteps=to_run,
            callback=CallbackList(callbacks),
            log_interval=config.train.log_interval,
            tb_log_name="ppo",
            reset_num_timesteps=resume is None,
        )
        model_path = folder.final_model
    except KeyboardInterrupt:
        status = "interrupted"
        model_path = folder.interrupted_model
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - began
    if status == "completed" and validation is not None:
        try:
            validation.validate_end()
        except KeyboardInterrupt:
            status = "interrupted"
    tag_family_model(model, family_record(config, int(model.num_timesteps)))
    save_model(model, model_path)
    steps = int(model.num_timesteps) - start_steps
    meta.update(
        status=status,
        finished=datetime.now().isoformat(timespec="seconds"),
        timesteps=int(model.num_timesteps),
        train_seconds=round(seconds, 2),
        steps_per_second=round(steps / seconds, 1) if seconds > 0 else None,
        model=str(model_path.relative_to(run)),
    )
    if validation is not None:
        meta["validation_seconds"] = round(validation.seconds, 2)
    _write_json(folder.run_json, meta)
    return status, model_path, seconds


def played_model_record(meta: dict[str, Any], model: Path) -> dict[str, Any]:
    """What a zero-shot report says its network was trained on: the run's ``family`` record
    (``run.json``) with the steps of ``model``, the zip played (the best on the validation
    deals, often well before the run's last step), not the run's steps; ``timesteps`` None
    when the zip does not say (the report's table then names no steps)."""
    return {**meta["family"], "timesteps": trained_on(model).get("timesteps")}


def _after_training(
    config: FamilyConfig,
    run: Path,
    model: Any,
    model_path: Path,
    meta: dict[str, Any],
    status: str,
    seconds: float,
    console: Any,
    progress: bool,
) -> TrainResult:
    """What the console says once the model is saved, and the final evaluation."""
    steps_now = int(model.num_timesteps)
    if status != "completed":
        console.print(
            f"[yellow]interrupted[/yellow] after {steps_now} steps; model saved to "
            f"{model_path}\nresume with: fortythieves train {RunFolder(run).config} --resume "
            f"{model_path} --run-dir {run}"
        )
        return TrainResult(run, status, model_path, steps_now, seconds, None)
    steps = steps_now - int(meta["start_timesteps"])
    console.print(
        f"trained {steps} steps in {seconds:.0f} s ({steps / max(seconds, 1e-9):.0f} steps/s); "
        f"model: {model_path}"
    )
    try:
        report = _final_evaluation(config, run, model_path, meta, console, progress)
    except KeyboardInterrupt:
        console.print(
            f"[yellow]final evaluation interrupted[/yellow]; the trained model is kept in "
            f"{model_path}; evaluate it with: "
            + shlex.join(final_command(config, _chosen(run, model_path), run))
        )
        return TrainResult(run, "evaluation_interrupted", model_path, steps_now, seconds, None)
    return TrainResult(run, status, model_path, steps_now, seconds, report)


def _callbacks(
    config: FamilyConfig,
    run: Path,
    resume: Path | None,
    start_steps: int,
    cloned: bool,
    progress: bool,
    console: Any,
) -> tuple[list[Any], ValidationCallback | None, StepProgressCallback | None]:
    """Episode statistics, the validation through ``Family-v0`` (restored on a resume),
    checkpoints and the progress bar."""
    folder = RunFolder(run)
    callbacks: list[Any] = [EpisodeStatsCallback()]
    bar = None
    if progress:
        rollout = config.ppo.n_steps * config.train.n_envs
        remaining = config.train.total_timesteps - start_steps
        bar = StepProgressCallback(start_steps, start_steps + -(-remaining // rollout) * rollout)

    def echo(line: str) -> None:
        with bar.paused() if bar is not None else contextlib.nullcontext():
            console.print(line, markup=False, highlight=False)
            sys.stdout.flush()

    validation = None
    if config.eval.eval_freq > 0:
        validation = ValidationCallback(
            FAMILY_ENV_ID,
            n_eval_episodes=config.eval.n_eval_episodes,
            eval_freq=config.eval.eval_freq,
            best_model_save_path=folder.models,
            folder=folder.eval,
            deterministic=config.eval.deterministic,
            seed=config.seed,
            evaluate_at_start=cloned or (config.family.start_model is not None and not resume),
            echo=echo,
        )
        validation.play = partial(
            _validation_deals, rule_set=config.rule_set_spec(), sampler=config.sampler()
        )
        if resume is not None:
            validation.restore_history(start_steps)
        callbacks.append(validation)
    if config.train.checkpoint_freq > 0:
        callbacks.append(
            TotalStepCheckpoint(config.train.checkpoint_freq, str(folder.checkpoints), "ckpt")
        )
    if bar is not None:
        callbacks.append(bar)
    return callbacks, validation, bar


def _validation_deals(agent: Any, seeds: list[int], rule_set: Any, sampler: Any) -> list[Any]:
    """The validation deals through ``Family-v0`` (module docstring)."""
    return play_family_deals(agent, seeds, rule_set=rule_set, sampler=sampler)


def _chosen(run: Path, model_path: Path) -> Path:
    """The model the final evaluation plays: the best on the validation deals, else the
    final one."""
    best = RunFolder(run).best_model
    return best if best.is_file() else model_path


def final_command(config: FamilyConfig, model: Path, run: Path) -> list[str]:
    """The command that plays the same final evaluation again."""
    if config.family.rule_set is None:
        zs = config.family.zero_shot
        return [
            "fortythieves",
            "family",
            "evaluate",
            str(model),
            "--episodes",
            str(zs.episodes),
            "--outside",
            str(zs.outside),
            "--json",
            str(run / ZERO_SHOT_FILE),
        ]
    return [
        "fortythieves",
        "evaluate",
        str(model),
        "--variant",
        _variant_id(config),
        "--episodes",
        str(config.eval.final_episodes),
        "--per-episode",
        "--json",
        str(RunFolder(run).final_evaluation),
    ]


def _variant_id(config: FamilyConfig) -> str:
    """The registered id a fixed rule set is evaluated on (registered as a custom variant
    when it is not one of the nine)."""
    from fortythieves_env import register_variant

    spec = config.rule_set_spec()
    if spec.id not in VARIANTS:
        register_variant(spec)
    return str(spec.id)


def _final_evaluation(
    config: FamilyConfig,
    run: Path,
    model_path: Path,
    meta: dict[str, Any],
    console: Any,
    progress: bool,
) -> dict[str, Any] | None:
    """The zero-shot report (training distribution) or the rule set's final evaluation;
    None when its deal count is 0."""
    from .zero_shot import evaluate_held_out, zero_shot_report, zero_shot_table

    chosen = _chosen(run, model_path)
    began = time.perf_counter()
    if config.family.rule_set is None:
        zs = config.family.zero_shot
        if not zs.episodes:
            return None
        console.print(
            f"[bold]zero-shot evaluation[/bold] of {chosen} on {len(zs.games)} held-out games: "
            f"{zs.episodes} test deals each, {zs.outside} outside every range (the nine)"
        )
        games = evaluate_held_out(
            chosen,
            zs.games,
            zs.episodes,
            zs.outside,
            config.eval.baselines,
            config.seed,
            config.eval.deterministic,
            progress,
            echo=lambda line: console.print(line, markup=False, highlight=False),
        )
        report = zero_shot_report(
            chosen, games, played_model_record(meta, chosen), zs.episodes, zs.outside
        )
        report["model"] = str(chosen.relative_to(run))
        meta["final_evaluation_seconds"] = round(time.perf_counter() - began, 2)
        _write_json(RunFolder(run).run_json, meta)
        _write_json(run / ZERO_SHOT_FILE, report)
        console.print(zero_shot_table(report), markup=False, highlight=False)
        return report
    if not config.eval.final_episodes:
        return None
    from ..evaluation.evaluate import baseline_agents, evaluate_agents, render_table
    from ..evaluation.solve import test_deal_verdicts
    from .agents import load_family_agent

    variant = _variant_id(config)
    agent, _ = load_family_agent(chosen, variant, config.eval.deterministic, config.seed)
    solver = (
        test_deal_verdicts(variant, config.eval.final_episodes, command="train")
        if variant in VARIANTS
        else None
    )
    report = evaluate_agents(
        [agent, *baseline_agents(config.eval.baselines, config.seed)],
        variant,
        config.eval.final_episodes,
        per_episode=True,
        progress=progress,
        solver=solver,
    )
    report["model"] = str(chosen.relative_to(run))
    meta["final_evaluation_seconds"] = round(time.perf_counter() - began, 2)
    _write_json(RunFolder(run).run_json, meta)
    _write_json(RunFolder(run).final_evaluation, report)
    console.print(render_table(report))
    return report
