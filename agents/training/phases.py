"""The phases of a training run around PPO: the teacher's games and behaviour cloning
(:mod:`fortythieves_agents.training.teacher`), the expert iterations
(:mod:`fortythieves_agents.training.expert`) and the final evaluation on the test deals."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path
from typing import Any

from ..config import Config
from ..envs import register_config_variant, tag_model
from ..run_folder import ExpertFolder, RunFolder, save_model
from .run_record import _earlier_meta, _write_json

__all__ = [
    "final_evaluation_command",
]


def _teacher_phase(
    config: Config,
    model: Any,
    run: Path,
    resume: Path | None,
    start_steps: int,
    continue_expert: bool,
    console: Any,
) -> tuple[dict[str, Any] | None, Any] | None:
    """The teacher's figures and imitation games before PPO (behaviour cloning on a fresh
    run; on a continued expert run, read back); ``None`` when Ctrl-C stops it, having
    written nothing to the run folder."""
    try:  # nothing is written before this ends: Ctrl-C here leaves the folder as it was
        if continue_expert:  # the teacher's cloning is in the expert iterations' start
            teacher_meta = ExpertFolder(RunFolder(run).expert).read_state().get("teacher")
            return teacher_meta, _imitation_games(config, start_steps, console)
        return _start_from_teacher(config, model, resume, start_steps, run, console)
    except KeyboardInterrupt:
        console.print(
            f"[yellow]interrupted[/yellow] before PPO (teacher games or behaviour "
            f"cloning); nothing was written to {run}"
        )
        return None


def _expert_phase(
    config: Config,
    model: Any,
    run: Path,
    console: Any,
    teacher_meta: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """Run (or continue) the expert iterations (:mod:`fortythieves_agents.training.expert`) on
    ``model``; None if interrupted (everything made so far is kept in ``RUN/expert``).

    Returns:
        The ``expert`` entry of ``run.json``: per iteration the labels, labels per second,
        fit and validation figures (``expert/state.json``), and the seconds of this start.
    """
    from .expert import run_expert_iterations

    def save(m: Any, path: Path) -> None:
        tag_model(m, config.env)
        save_model(m, path)

    ec = config.expert
    console.print(
        f"[bold]expert iteration[/bold]: {ec.iterations} iteration(s) of {ec.games} games "
        f"labelled by the search at {ec.search_seconds} s per move -> {RunFolder(run).expert}"
    )
    sys.stdout.flush()
    began = time.perf_counter()
    try:
        state = run_expert_iterations(
            config,
            model,
            run,
            register_config_variant(config.env),
            echo=lambda line: console.print(line, markup=False, highlight=False),
            save_model=save,
            extra_state={"teacher": teacher_meta},
        )
    except KeyboardInterrupt:
        console.print(
            f"[yellow]interrupted[/yellow] during the expert iterations; what they made is "
            f"kept in {RunFolder(run).expert}\ncontinue with: fortythieves train "
            f"{RunFolder(run).config} --resume {run}"
        )
        return None
    return {**state, "seconds_this_start": round(time.perf_counter() - began, 2)}


def _start_from_teacher(
    config: Config, model: Any, resume: Path | None, start_steps: int, run: Path, console: Any
) -> tuple[dict[str, Any] | None, Any]:
    """Play the teacher's games and clone them (a new run), as
    :mod:`fortythieves_agents.training.teacher` says.

    Returns:
        ``(meta, games)``: the ``teacher`` entry of ``run.json`` (None without a teacher) and
        the :class:`~fortythieves_agents.training.teacher.TeacherGames` the imitation term replays
        (None when the term is off, or has decayed to 0 at a resumed checkpoint's step).
    """
    name = config.train.teacher
    if name is None:
        return None, None
    from .teacher import collect_teacher_games, make_teacher

    tc = config.teacher
    if resume is not None:  # never clone again: the checkpoint holds the cloned weights
        return _earlier_meta(run, "teacher"), _imitation_games(config, start_steps, console)
    console.print(f"[bold]teacher[/bold] {name}: playing {tc.games} games on training deals")
    sys.stdout.flush()
    progress = config.train.progress_bar and sys.stderr.isatty()
    teacher = make_teacher(name, config.seed, tc.search_samples)
    games = collect_teacher_games(config, teacher, tc.games, progress=progress)
    imitating = _imitating(config, start_steps)
    meta = clone_teacher_games(
        model, games, name, tc, config.ppo.max_grad_norm, config.seed, console, progress
    )
    return meta, games if imitating else None


def clone_teacher_games(
    model: Any,
    games: Any,
    name: str,
    teacher: Any,
    max_grad_norm: float,
    seed: int,
    console: Any,
    progress: bool,
) -> dict[str, Any]:
    """Print the teacher games' summary, clone them into ``model``
    (:func:`~fortythieves_agents.training.teacher.clone_teacher`) and print the agreement
    before and after: the start of a single variant's run and of the family's.

    Args:
        model: the ``MaskablePPO`` to clone into.
        games: the teacher's :class:`~fortythieves_agents.training.teacher.TeacherGames`.
        name: the teacher's name (``greedy``, ``search``; printed and saved).
        teacher: the config's ``teacher`` section.
        max_grad_norm: ``ppo.max_grad_norm``.
        seed: the run's seed.
        console: the rich console the training prints to.
        progress: tqdm bars on stderr.

    Returns:
        ``run.json``'s ``teacher`` entry: the name, the games' summary and the cloning's
        figures (``behaviour_cloning``).
    """
    from .teacher import clone_teacher

    summary = games.summary()
    console.print(
        f"teacher games: {summary['samples']} moves, {summary['mean_foundation_cards']:.1f} "
        f"foundation cards on average, {100 * summary['win_rate']:.1f}% won "
        f"({summary['collect_seconds']:.0f} s); behaviour cloning, {teacher.epochs} epochs"
    )
    sys.stdout.flush()
    clone = clone_teacher(model, games, teacher, max_grad_norm, seed, progress=progress)
    before, after = clone["before"], clone["after"]
    console.print(
        f"behaviour cloning ({clone['seconds']:.0f} s): agreement with {name} on "
        f"{clone['held_out_games']} held-out games {100 * before['accuracy']:.1f}% -> "
        f"{100 * after['accuracy']:.1f}%, cross-entropy {before['loss']:.3f} -> "
        f"{after['loss']:.3f}"
    )
    return {"name": name, **summary, "behaviour_cloning": clone}


def _imitating(config: Config, start_steps: int) -> bool:
    """The imitation term's weight is still above 0 at step ``start_steps``."""
    coef, end = imitation_schedule(config)
    return coef > 0 and start_steps < end


IMITATION_ATTR = "fortythieves_imitation_schedule"
"""The model attribute recording the imitation term's schedule of the run that saved it:
``[teacher.imitation_coef, the step its weight reaches 0]`` (``[0, 0]``: off)."""


def imitation_schedule(config: Config) -> list[float]:
    """``[coef, end]``: the imitation term's weight ``coef * max(0, 1 - t / end)`` in a run of
    ``config`` (``[0.0, 0.0]`` when the term is off)."""
    tc = config.teacher
    if config.train.teacher is None or tc.imitation_coef <= 0:
        return [0.0, 0.0]
    return [float(tc.imitation_coef), tc.imitation_fraction * config.train.total_timesteps]


def imitation_schedule_change(
    config: Config,
    start_steps: int,
    planned: int | None,
    earlier: list[float] | None = None,
    rollout: int = 1,
) -> str | None:
    """A one-line warning when a resumed checkpoint's imitation term weighs otherwise, from
    ``start_steps`` on, than in the run that saved it, else None.

    The term's weight ``teacher.imitation_coef * max(0, 1 - t / (imitation_fraction *
    train.total_timesteps))`` is scheduled on the total, so continuing a checkpoint to
    another ``train.total_timesteps`` moves it: a larger total brings back a term that had
    fallen to 0, or keeps it on for longer (and slows PPO several times). ``earlier`` is the
    checkpoint's own schedule (:data:`IMITATION_ATTR`), when it records one; else it is taken
    to be this config's fraction and coefficient on ``planned``, the total the checkpoint's
    run planned (SB3's ``_total_timesteps``, rounded up to whole rollouts of ``rollout``
    steps: a total that rounds up to it is the same schedule); neither known: None.
    """
    tc = config.teacher
    coef, end = imitation_schedule(config)
    total = config.train.total_timesteps
    if coef <= 0:
        return None
    if isinstance(earlier, list | tuple) and len(earlier) == 2:
        coef0, end0 = float(earlier[0]), float(earlier[1])
    elif planned is None or planned <= 0 or planned - rollout < total <= planned:
        return None
    else:
        coef0, end0 = coef, tc.imitation_fraction * planned

    def weight(c: float, e: float) -> float:
        return c * max(0.0, 1.0 - start_steps / e) if c > 0 and e > 0 else 0.0

    off_from_here = (coef0 <= 0 or start_steps >= end0) and start_steps >= end
    if off_from_here or (coef0 == coef and abs(end0 - end) < 1.0):  # within a step: the same
        return None
    keep = end0 / total
    hint = (
        f"--set teacher.imitation_fraction={keep:.10g} keeps the checkpoint's schedule, "
        if coef0 == coef and 0 < keep <= 1
        else ""
    )
    return (
        f"the imitation term (teacher.imitation_coef {coef:g}) falls to 0 at step {end:.0f} "
        f"(teacher.imitation_fraction {tc.imitation_fraction:g} of train.total_timesteps "
        f"{total}), in the checkpoint's run at step {end0:.0f} (coef {coef0:g}): weight "
        f"{weight(coef0, end0):.3g} at step {start_steps} there, {weight(coef, end):.3g} "
        f"here; {hint}--set teacher.imitation_coef=0 turns it off"
    )


def _record_imitation_schedule(config: Config, model: Any, resumed: bool, console: Any) -> None:
    """Record this run's imitation schedule on ``model`` (:data:`IMITATION_ATTR`, saved with
    every model it writes); before that, for a ``resumed`` checkpoint, print
    :func:`imitation_schedule_change`'s warning, if any (resumed at its ``num_timesteps``; its
    schedule is its :data:`IMITATION_ATTR`, else taken from SB3's saved ``_total_timesteps``)."""
    if resumed:
        planned = getattr(model, "_total_timesteps", None)
        earlier = getattr(model, IMITATION_ATTR, None)
        rollout = config.ppo.n_steps * config.train.n_envs
        start = int(model.num_timesteps)
        change = imitation_schedule_change(config, start, planned, earlier, rollout)
        if change is not None:
            console.print(f"[yellow]warning[/yellow]: {change}", highlight=False)
    setattr(model, IMITATION_ATTR, imitation_schedule(config))


def _imitation_games(config: Config, start_steps: int, console: Any) -> Any:
    """On a resumed or continued run (no cloning again): the teacher's games again, for
    the imitation term while its weight is above 0 (the same games: they depend on the
    config only); else None."""
    if not _imitating(config, start_steps):
        return None
    from .teacher import collect_teacher_games, make_teacher

    tc = config.teacher
    assert config.train.teacher is not None
    console.print(
        f"[bold]teacher[/bold] {config.train.teacher}: playing {tc.games} games on training "
        "deals (no behaviour cloning: the games feed the imitation term)"
    )
    sys.stdout.flush()
    teacher = make_teacher(config.train.teacher, config.seed, tc.search_samples)
    progress = config.train.progress_bar and sys.stderr.isatty()
    return collect_teacher_games(config, teacher, tc.games, progress=progress)


def final_evaluation_command(config: Config, model: Path, run: Path) -> list[str]:
    """The ``fortythieves evaluate`` command that plays the same final evaluation as
    :func:`~.train.train` (same model, deals, seed, sampling and baselines; same JSON file)."""
    command = ["fortythieves", "evaluate", str(model)]
    command += ["--episodes", str(config.eval.final_episodes), "--seed", str(config.seed)]
    if not config.eval.deterministic:
        command.append("--stochastic")
    command += ["--baselines", *config.eval.baselines, "--per-episode"]
    return [*command, "--json", str(RunFolder(run).final_evaluation)]


def _final_evaluation(
    config: Config,
    run: Path,
    model_path: Path,
    meta: dict[str, Any],
    console: Any,
    progress: bool,
) -> dict[str, Any] | None:
    """Play the final evaluation, write ``final_evaluation.json`` (with one row per deal
    for each agent, ``per_episode``); None if interrupted.

    ``run.json`` gets ``final_evaluation_seconds`` and is written *before*
    ``final_evaluation.json``, so the evaluation is never older than the run's record
    (``scripts/training/full_run.py`` re-runs an evaluation older than ``run.json``)."""
    began = time.perf_counter()
    from ..evaluation.evaluate import (
        baseline_agents,
        evaluate_agents,
        load_model_agent,
        render_table,
    )
    from ..evaluation.solve import test_deal_verdicts

    best = RunFolder(run).best_model
    chosen = best if best.is_file() else model_path
    try:
        # loaded as `fortythieves evaluate` loads it (weights and plain metadata)
        ppo_agent, _ = load_model_agent(
            chosen, config.env.variant, config.eval.deterministic, config.seed
        )
        agents = [ppo_agent, *baseline_agents(config.eval.baselines, config.seed)]
        # the solver's verdicts, when results/solver/<variant>.jsonl covers the test deals:
        # the table then shows each agent's wins among the deals proved winnable, as
        # `fortythieves evaluate` does
        solver = test_deal_verdicts(config.env.variant, config.eval.final_episodes, command="train")
        report = evaluate_agents(
            agents,
            config.env.variant,
            config.eval.final_episodes,
            per_episode=True,  # every evaluation report keeps its per-deal rows
            progress=progress,
            solver=solver,
        )
    except KeyboardInterrupt:
        meta["final_evaluation"] = "interrupted"
        _write_json(RunFolder(run).run_json, meta)
        command = shlex.join(final_evaluation_command(config, chosen, run))
        console.print(
            f"[yellow]final evaluation interrupted[/yellow]; the trained model is kept in "
            f"{model_path}; re-run the evaluation with: {command}"
        )
        return None
    report["model"] = str(chosen.relative_to(run))
    meta["final_evaluation_seconds"] = round(time.perf_counter() - began, 2)
    _write_json(RunFolder(run).run_json, meta)
    _write_json(RunFolder(run).final_evaluation, report)
    console.print(render_table(report))
    console.print(f"PPO model evaluated: {chosen}")
    return report
