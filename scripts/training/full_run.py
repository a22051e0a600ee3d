"""Full training runs of the shipped configs, continued across sessions, and their results.

``scripts/training/run_variant.sh VARIANT [--set KEY=VALUE ...]`` and
``scripts/training/run_ablation.sh VARIANT SETTING [--set KEY=VALUE ...]`` call this script
(``python scripts/training/full_run.py variant|ablation ...``). It runs from the checkout's
root, with the checkout's code (``python -m fortythieves_agents.cli``, the ``fortythieves`` command
of
this checkout), and does one of these, again until the run is complete:

- no run yet: ``train configs/<variant>.yaml [--set ...] --run-dir RUN``;
- a run that stopped (Ctrl-C, SIGTERM, a killed session: ``run.json`` status ``interrupted``
  or still ``running``), or a completed one whose steps are below the config's
  ``train.total_timesteps`` (a raised budget): the same ``train`` command with
  ``--resume`` of the model with the most steps in the run folder
  (``models/checkpoints/*.zip``, ``models/interrupted_model.zip``, ``models/final_model.zip``;
  the steps are read from the zip);
- trained but without a final evaluation of this run (it was interrupted or killed, or
  ``final_evaluation.json`` is older than ``run.json`` or has another number of deals): the
  ``evaluate`` command that plays the same evaluation
  (:func:`fortythieves_agents.training.train.final_evaluation_command`);
- complete: copy what a reader needs into the results folder (:data:`COPIED`, and
  ``best_model.zip`` when it is smaller than :data:`MODEL_SIZE_LIMIT`: a ``player`` model is
  about 2.05 MB (1.96 MiB), a ``card_slots`` one about 10 MB).

``eval.final_episodes=500`` is added to the ``--set`` arguments unless the resolved config
already says 500. Every command is printed before it runs and recorded, with its start, wall
time and exit code, in ``RUN/sessions.jsonl`` (copied with the results): the wall time of a run
is the sum over its sessions, teacher games, cloning and final evaluation included. A
session killed without a chance to write (SIGKILL) is not counted.

Folders (relative to the checkout): a variant trains into ``runs/full/<Variant>`` and its
results go to ``results/training/<Variant>/``; an ablation setting trains into
``runs/ablation/<Variant>/<setting>`` and goes to
``results/training/ablation/<Variant>/<setting>/``. The settings are named in
``results/training/ablation/settings.yaml`` (``settings``: name -> list of ``KEY=VALUE``
overrides, applied after the config file and before the command line's ``--set``).

The training command runs in its own process group: Ctrl-C or SIGTERM to this script is passed
on to it once (it saves ``models/interrupted_model.zip``), and this script then exits 130
without copying; run it again to continue.

Exit codes: 0 complete and copied; 2 a bad argument, config or run folder (one line on stderr);
otherwise the exit code of the command that failed (130: interrupted).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from fortythieves_agents.config import Config, ConfigError, YAMLProblem, load_config, load_yaml
from fortythieves_agents.paths import portable_command

from fortythieves_env import RULES_VERSION, VARIANTS
from fortythieves_env.rules.variants import recorded_rules_version

ROOT = Path(__file__).resolve().parents[2]

FINAL_EPISODES = 500
"""Test deals of the final evaluation of every reported run."""
MODEL_SIZE_LIMIT = 2 * 1024 * 1024
"""``best_model.zip`` is copied with the results when it has fewer bytes than this (2 MiB)."""
COPIED = (
    "config.yaml",
    "command.txt",
    "run.json",
    "final_evaluation.json",
    "eval/evaluations.npz",
    "eval/foundation_cards.npz",
    "learning_curves.png",
    "sessions.jsonl",
)
"""Files copied from a complete run folder into its results folder (a missing ``eval/*.npz``
or ``learning_curves.png`` is skipped with a note; the first four are required)."""
REQUIRED = COPIED[:4]
SESSIONS = "sessions.jsonl"
SETTINGS = Path("results/training/ablation/settings.yaml")
"""The ablation settings, relative to the checkout."""
MAX_STEPS = 4
"""Commands one invocation runs at most (train or resume, evaluate: 2 are enough)."""


class RunError(Exception):
    """A bad argument, settings file or run folder: the message names it."""


@dataclass(frozen=True)
class Job:
    """One run: the shipped config, the overrides, the run folder and the results folder.

    Paths are relative to the checkout (the commands run from it, so ``command.txt`` shows
    ``configs/<variant>.yaml`` and ``runs/...``).
    """

    variant: str
    config: Path
    overrides: tuple[str, ...]
    run_dir: Path
    results_dir: Path


def variant_id(name: str) -> str:
    """The registered variant id for ``name``, any letter case (``littleforty`` ->
    ``LittleForty``).

    Raises:
        RunError: not a registered variant (the message lists them).
    """
    for variant in VARIANTS:
        if variant.lower() == name.lower():
            return variant
    raise RunError(f"unknown variant {name!r}; choose one of {', '.join(VARIANTS)}")


def read_settings(path: Path = SETTINGS) -> dict[str, list[str]]:
    """The ablation settings of ``path``: its ``settings`` mapping, name -> overrides.

    Raises:
        RunError: the file is missing or not YAML (read as configs are:
            :func:`fortythieves_agents.config.load_yaml`, so a setting named twice is refused,
            not lost), or ``settings`` is not a mapping of names to lists of ``KEY=VALUE`` strings.
    """
    try:
        data = load_yaml((ROOT / path).read_text(encoding="utf-8"))
    except (OSError, YAMLProblem) as exc:
        raise RunError(f"{path}: cannot read the ablation settings: {exc}") from None
    settings = data.get("settings") if isinstance(data, dict) else None
    if not isinstance(settings, dict) or not settings:
        raise RunError(f"{path}: needs a 'settings' mapping: name -> list of KEY=VALUE")
    out: dict[str, list[str]] = {}
    for name, overrides in settings.items():
        if not isinstance(overrides, list) or not all(
            isinstance(o, str) and "=" in o for o in overrides
        ):
            raise RunError(f"{path}: setting {name!r} must be a list of KEY=VALUE strings")
        out[str(name)] = overrides
    return out


def variant_job(name: str, extra: Sequence[str] = ()) -> Job:
    """The full run of ``name``'s shipped config with the ``extra`` ``--set`` overrides."""
    variant = variant_id(name)
    return Job(
        variant,
        Path("configs") / f"{variant.lower()}.yaml",
        tuple(extra),
        Path("runs") / "full" / variant,
        Path("results") / "training" / variant,
    )


def ablation_job(
    name: str, setting: str, extra: Sequence[str] = (), settings_path: Path = SETTINGS
) -> Job:
    """The run of ``name``'s shipped config with the overrides of ablation ``setting``, then
    the ``extra`` ones.

    Raises:
        RunError: an unknown variant or setting (the message lists the settings).
    """
    variant = variant_id(name)
    settings = read_settings(settings_path)
    if setting not in settings:
        raise RunError(
            f"unknown ablation setting {setting!r}; {settings_path} has {', '.join(settings)}"
        )
    return Job(
        variant,
        Path("configs") / f"{variant.lower()}.yaml",
        (*settings[setting], *extra),
        Path("runs") / "ablation" / variant / setting,
        Path("results") / "training" / "ablation" / variant / setting,
    )


def resolve(job: Job) -> tuple[Job, Config]:
    """``job`` with ``eval.final_episodes=500`` added unless its config already says 500,
    and the resolved config.

    Raises:
        RunError: the config or an override is refused
            (:func:`fortythieves_agents.config.load_config`'s message).
    """
    try:
        config = load_config(ROOT / job.config, job.overrides)
        if config.eval.final_episodes != FINAL_EPISODES:
            job = Job(
                job.variant,
                job.config,
                (*job.overrides, f"eval.final_episodes={FINAL_EPISODES}"),
                job.run_dir,
                job.results_dir,
            )
            config = load_config(ROOT / job.config, job.overrides)
    except ConfigError as exc:
        raise RunError(str(exc)) from None
    if config.env.variant != job.variant:
        raise RunError(f"{job.config}: env.variant is {config.env.variant!r}, not {job.variant!r}")
    return job, config


def model_steps(path: Path) -> int | None:
    """The training steps saved in an SB3 model zip (``num_timesteps`` of its ``data``
    entry); None when the file is not a readable model (e.g. cut short by a kill)."""
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
        return int(data["num_timesteps"])
    except (OSError, KeyError, ValueError, TypeError, zipfile.BadZipFile):
        return None


def newest_model(run: Path) -> tuple[Path, int] | None:
    """The model of ``run`` with the most training steps (ties: the last written) among
    ``models/checkpoints/*.zip``, ``models/interrupted_model.zip`` and
    ``models/final_model.zip``, with its steps; None when there is none."""
    models = run / "models"
    candidates = [*sorted((models / "checkpoints").glob("*.zip"))]
    candidates += [models / "interrupted_model.zip", models / "final_model.zip"]
    best: tuple[int, int, Path] | None = None
    for path in candidates:
        if not path.is_file():
            continue
        steps = model_steps(path)
        if steps is None:
            print(f"note: {path} is not a readable model; skipped", file=sys.stderr)
            continue
        key = (steps, path.stat().st_mtime_ns, path)
        if best is None or key[:2] > best[:2]:
            best = key
    return None if best is None else (best[2], best[0])


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunError(f"{path}: cannot read it: {exc}") from None
    if not isinstance(data, dict):
        raise RunError(f"{path}: not a JSON object")
    return data


def evaluation_is_fresh(run: Path, episodes: int) -> bool:
    """``run/final_evaluation.json`` exists, is not older than ``run.json`` (a resumed
    training rewrites ``run.json``; the evaluation follows it), played ``episodes`` deals and
    was made under today's rules (``RULES_VERSION``; a report without one is rules version 1):
    else the evaluation is made again."""
    report, meta = run / "final_evaluation.json", run / "run.json"
    if not report.is_file() or report.stat().st_mtime_ns < meta.stat().st_mtime_ns:
        return False
    try:
        data = json.loads(report.read_text(encoding="utf-8"))
        rules = recorded_rules_version(data.get("rules_version"))
        return data.get("episodes") == episodes and rules == RULES_VERSION
    except (OSError, ValueError, AttributeError):
        return False


def python_command() -> list[str]:
    """How this script starts the checkout's CLI: ``python -m fortythieves_agents.cli`` (``python``
    when that name finds this interpreter, else its full path)."""
    found = shutil.which("python")
    same = found is not None and os.path.realpath(found) == os.path.realpath(sys.executable)
    return ["python" if same else sys.executable, "-m", "fortythieves_agents.cli.main"]


def next_command(job: Job, config: Config) -> tuple[str, list[str] | None]:
    """What the run folder needs next: ``("train" | "resume" | "evaluate", command)``, or
    ``("done", None)`` when the run is complete (see the module docstring).

    Raises:
        RunError: ``run.json`` is damaged, or the run stopped before its first checkpoint
            (nothing to resume: the message says to move the folder away).
    """
    run = ROOT / job.run_dir
    train = [*python_command(), "train", str(job.config)]
    train += [arg for item in job.overrides for arg in ("--set", item)]
    train += ["--run-dir", str(job.run_dir)]
    if not (run / "run.json").is_file():
        return "train", train
    meta = _read_json(run / "run.json")
    total = config.train.total_timesteps
    done = meta.get("status") == "completed" and int(meta.get("timesteps", 0)) >= total
    if not done:
        newest = newest_model(run)
        if newest is None:
            raise RunError(
                f"{job.run_dir}: the run stopped before its first checkpoint (status "
                f"{meta.get('status')!r}) and cannot be resumed; move the folder away and "
                "run this again to start over"
            )
        path, steps = newest
        if steps < total:
            return "resume", [*train, "--resume", str(path.relative_to(ROOT))]
    if config.eval.final_episodes > 0 and not evaluation_is_fresh(run, config.eval.final_episodes):
        from fortythieves_agents.training.train import final_evaluation_command

        best = run / "models" / "best_model.zip"
        model = best if best.is_file() else (run / "models" / "final_model.zip")
        if not model.is_file():
            newest = newest_model(run)
            if newest is None:
                raise RunError(f"{job.run_dir}: trained, but no model to evaluate in models/")
            model = newest[0]
        command = final_evaluation_command(config, model.relative_to(ROOT), job.run_dir)
        return "evaluate", [*python_command(), *command[1:]]
    return "done", None


def run_command(command: list[str], run: Path) -> int:
    """Run ``command`` from the checkout in its own process group and append it to
    ``run/sessions.jsonl`` with its start, wall time, exit code and the steps after it (the
    command as printed: its absolute paths relative to the checkout, see
    :func:`fortythieves_agents.paths.portable_command`).

    Each SIGINT or SIGTERM this script receives is passed on to the command once, and a
    SIGHUP (its terminal closed) as SIGTERM: the training saves its model and stops. Being
    in its own group, the command gets no second copy of a signal sent to this script's group.
    """
    shown = shlex.join(portable_command(command, ROOT))  # it runs from the checkout
    print("$ " + shown, flush=True)
    started = datetime.now().isoformat(timespec="seconds")
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=ROOT, start_new_session=True)

    def forward(signum: int, _frame: Any) -> None:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM if signum == signal.SIGHUP else signum)

    passed_on = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {s: signal.signal(s, forward) for s in passed_on}
    try:
        code = proc.wait()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    seconds = time.perf_counter() - start
    steps = None
    with contextlib.suppress(OSError, ValueError, RunError):
        steps = _read_json(run / "run.json").get("timesteps")
    record = {
        "command": shown,
        "started": started,
        "wall_seconds": round(seconds, 1),
        "exit_code": code,
        "timesteps_after": steps,
    }
    run.mkdir(parents=True, exist_ok=True)
    with (run / SESSIONS).open("a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")
    return code


def collect(job: Job) -> list[Path]:
    """Copy the complete run's files (:data:`COPIED`, and ``best_model.zip`` under
    :data:`MODEL_SIZE_LIMIT`) into ``job.results_dir``; return the copies.

    Files of :data:`COPIED` and ``best_model.zip`` left there by an earlier copy are removed
    first, so the folder holds one run; other files in it are kept.

    Raises:
        RunError: a required file (:data:`REQUIRED`) is missing.
    """
    run, dest = ROOT / job.run_dir, ROOT / job.results_dir
    missing = [name for name in REQUIRED if not (run / name).is_file()]
    if missing:
        raise RunError(f"{job.run_dir}: not a complete run, {', '.join(missing)} missing")
    dest.mkdir(parents=True, exist_ok=True)
    for name in (*COPIED, "best_model.zip"):
        (dest / name).unlink(missing_ok=True)
    copies = []
    for name in COPIED:
        if not (run / name).is_file():
            print(f"note: {job.run_dir / name} does not exist; not copied", file=sys.stderr)
            continue
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        copies.append(Path(shutil.copy2(run / name, dest / name)))
    best = run / "models" / "best_model.zip"
    if best.is_file():
        size = best.stat().st_size
        if size < MODEL_SIZE_LIMIT:
            copies.append(Path(shutil.copy2(best, dest / "best_model.zip")))
        else:
            print(
                f"note: {job.run_dir / 'models/best_model.zip'} has {size:,} bytes "
                f"(limit {MODEL_SIZE_LIMIT:,}); not copied"
            )
    return copies


def complete(job: Job, collect_only: bool = False) -> int:
    """Run what ``job`` still needs (:func:`next_command`), then :func:`collect` it.

    Returns:
        0 when the run is complete and copied, else the exit code of the failed command.

    Raises:
        RunError: see :func:`resolve`, :func:`next_command` and :func:`collect`; also with
            ``collect_only`` when the run is not complete.
    """
    job, config = resolve(job)
    run = ROOT / job.run_dir
    for _ in range(MAX_STEPS):
        step, command = next_command(job, config)
        if step == "done":
            break
        if collect_only:
            raise RunError(f"{job.run_dir}: the run is not complete (next step: {step})")
        assert command is not None
        print(f"{job.variant}: {step} ({job.run_dir})", flush=True)
        code = run_command(command, run)
        if code != 0:
            print(
                f"{job.variant}: the command stopped with exit code {code}; nothing copied. "
                "Run this again to continue.",
                file=sys.stderr,
            )
            return code
    else:
        raise RunError(f"{job.run_dir}: still not complete after {MAX_STEPS} commands")
    copies = collect(job)
    print(f"{job.variant}: {len(copies)} files copied to {job.results_dir}")
    print("docs tables: python -m fortythieves_agents.reports")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="full_run.py", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    sub = parser.add_subparsers(dest="kind", required=True)
    for kind in ("variant", "ablation"):
        p = sub.add_parser(kind, help=f"a {kind} run")
        p.add_argument("variant", metavar="VARIANT", help="a variant id, any letter case")
        if kind == "ablation":
            p.add_argument("setting", metavar="SETTING", help=f"a setting of {SETTINGS}")
        p.add_argument(
            "--set",
            dest="overrides",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="a config override after the shipped config (repeatable)",
        )
        p.add_argument(
            "--collect-only",
            action="store_true",
            help="run nothing: copy a complete run's results (refused if it is not complete)",
        )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.kind == "variant":
            job = variant_job(args.variant, args.overrides)
        else:
            job = ablation_job(args.variant, args.setting, args.overrides)
            if resolve(job)[1] == resolve(variant_job(args.variant, args.overrides))[1]:
                print(
                    f"note: setting {args.setting!r} gives {job.config} itself (the shipped "
                    "config's run); it is run all the same"
                )
        return complete(job, args.collect_only)
    except RunError as exc:
        print(f"full_run.py: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
