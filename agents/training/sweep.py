"""Seed and hyperparameter sweeps on Ray Tune: ``fortythieves sweep``.

``fortythieves sweep CONFIG --seeds K [--grid 'key=[v1, v2]' ...]`` trains every setting of
the grid (the product of the ``--grid`` lists, in the order given; one setting without
``--grid``) with ``K`` seeds, ``seed``, ``seed + 1``, ..., ``seed + K - 1`` (``seed`` from the
config: ``--seeds 1`` trains what ``fortythieves train CONFIG`` trains). Each trial is one
ordinary training run (:func:`fortythieves_agents.training.train.train`) run as a Ray Tune trial
with ``--cpus-per-trial`` CPUs (also its ``train.torch_threads``) and no progress bar.

**Score.** A trial's score is its best validation mean foundation cards: the highest, over
the periodic validations of the run (``eval/foundation_cards.npz``, the validation deals,
never the test deals), of the mean foundation cards of the validation episodes. The sweep
therefore needs ``eval.eval_freq`` between 1 and ``train.total_timesteps``. A setting's
figure is the mean of its seeds' scores with a 95% Student t interval over the seeds
(``mean +- t(0.975, K-1) * s / sqrt(K)``, clipped to [0, 104]; none for one seed). The best
setting is the one of highest mean (the first in grid order on a tie), chosen only when
every trial has finished.

**The sweep folder** (``<runs-root>/sweep-<variant>-<YYYYmmdd-HHMMSS>``; every path in it is
absolute, since Tune runs each trial in a working folder of its own)::

    sweep.json          the request: config file, --set, --grid, seeds, CPUs per trial,
                        the settings and the trials (name, setting, seed, run folder,
                        resolved config)
    runs/<trial>/       one ordinary run folder per trial (``setting<i>-seed<s>``), which
                        evaluate, plot and train --resume accept
    logs/<trial>.log    what training printed
    cut/<trial>-<k>/    a trial folder cut before its first checkpoint, kept aside when the
                        trial starts again (nothing is deleted)
    tune/               Ray Tune's experiment state (``Tuner.restore``)
    summary.json        every trial's score, each setting's mean and interval, the best one
    best_config.yaml    the best setting as a config (seed: the first seed), which
                        ``fortythieves train`` accepts

**Resume.** ``fortythieves sweep --resume SWEEP_DIR`` restores the Tune experiment: finished
trials are kept, unfinished and failed ones start again, and a trial whose run folder has a
checkpoint continues from its latest one (``train --resume``), in the same run folder.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import shlex
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fortythieves_env.rules.cards import N_CARDS

from ..config import Config, ConfigError, YAMLProblem, dump_config, load_config, load_yaml
from ..run_folder import RunFolder

__all__ = [
    "SweepPlan",
    "best_config",
    "latest_checkpoint",
    "parse_grid",
    "plan_sweep",
    "render_summary",
    "resume_sweep",
    "run_sweep",
    "run_trial",
    "summarize_sweep",
    "t_quantile",
    "train_or_continue",
    "trial_score",
]

SWEEP_FILE = "sweep.json"
SUMMARY_FILE = "summary.json"
BEST_CONFIG = "best_config.yaml"
SEEDS_MAX = 1000
"""Most seeds per setting."""


# ---------------------------------------------------------------------- statistics
def _t_cdf(x: float, df: int) -> float:
    """Student t CDF for an integer ``df`` >= 1 (Abramowitz & Stegun 26.7.3, 26.7.4)."""
    theta = math.atan(x / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    s = math.sin(theta)
    if df % 2 == 1:
        total, term = 0.0, 1.0
        if df > 1:
            total = 1.0
            for k in range(3, df - 1, 2):  # (2/3) c^2, (2*4)/(3*5) c^4, ...
                term *= (k - 1) / k * c2
                total += term
        a = 2 / math.pi * (theta + (s * math.cos(theta) * total if df > 1 else 0.0))
    else:
        total, term = 1.0, 1.0
        for k in range(2, df - 1, 2):  # (1/2) c^2, (1*3)/(2*4) c^4, ...
            term *= (k - 1) / k * c2
            total += term
        a = s * total
    return 0.5 + a / 2


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (``p`` in [0.5, 1)),
    by bisection on the exact CDF (to 1e-10).

    Raises:
        ValueError: ``p`` outside [0.5, 1) or ``df`` < 1.
    """
    if not 0.5 <= p < 1 or df < 1:
        raise ValueError(f"need 0.5 <= p < 1 and df >= 1, got p={p}, df={df}")
    lo, hi = 0.0, 1.0
    while _t_cdf(hi, df) < p:
        hi *= 2
    while hi - lo > 1e-10 * max(1.0, hi):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _t_cdf(mid, df) < p else (lo, mid)
    return (lo + hi) / 2


def _mean_interval(scores: Sequence[float]) -> tuple[float | None, list[float] | None]:
    """Mean and 95% t interval (clipped to [0, 104]; None for fewer than two scores)."""
    n = len(scores)
    if n == 0:
        return None, None
    mean = math.fsum(scores) / n
    if n < 2:
        return mean, None
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in scores) / (n - 1))
    half = t_quantile(0.975, n - 1) * sd / math.sqrt(n)
    return mean, [max(0.0, mean - half), min(float(N_CARDS), mean + half)]


# ---------------------------------------------------------------------- the plan
def parse_grid(texts: Sequence[str]) -> list[tuple[str, list[Any]]]:
    """Parse ``--grid key.sub=[v1, v2]`` arguments into ``(key, values)`` pairs, in order.

    The values are a YAML list read as a config file is (``1e-3`` is a number).

    Raises:
        ConfigError: no ``=``, an empty key part, a value that is not a non-empty YAML list,
            a repeated value, a key given twice, a key inside another one (``ppo`` and
            ``ppo.gamma``: one would overwrite the other), or the key ``seed`` (seeds come
            from ``--seeds``). The message starts with ``--grid`` and the argument.
    """
    out: list[tuple[str, list[Any]]] = []
    for text in texts:
        key, sep, raw = text.partition("=")
        key = key.strip()
        where = f"--grid {text}"
        if not sep or not all(key.split(".")):
            raise ConfigError(f"{where}: expected KEY.SUB=[V1, V2, ...], e.g. ppo.n_epochs=[4, 8]")
        try:
            values = load_yaml(raw)
        except YAMLProblem as exc:
            raise ConfigError(f"{where}: the values are not valid YAML ({exc.problem})") from None
        if not isinstance(values, list) or not values:
            raise ConfigError(f"{where}: expected a non-empty YAML list of values, e.g. [1, 2]")
        seen = [json.dumps(v, sort_keys=True) for v in values]
        repeated = sorted({v for v in seen if seen.count(v) > 1})
        if repeated:
            raise ConfigError(f"{where}: value {repeated[0]} is given twice")
        if key == "seed":
            raise ConfigError(f"{where}: the trials' seeds come from --seeds, not --grid")
        for k, _ in out:
            if key == k:
                raise ConfigError(f"{where}: {key} is already swept by an earlier --grid")
            if key.startswith(k + ".") or k.startswith(key + "."):
                raise ConfigError(
                    f"{where}: {key} overlaps {k}, swept by an earlier --grid (one would "
                    f"overwrite the other)"
                )
        out.append((key, values))
    return out


@dataclass(frozen=True)
class SweepPlan:
    """A checked sweep: ``settings[i]`` maps each grid key to its value in setting ``i``;
    ``trials`` are dicts (``name``, ``setting``, ``seed``, ``config``: the trial's resolved
    config as JSON data), setting-major."""

    config_path: str
    overrides: list[str]
    grid: list[tuple[str, list[Any]]]
    seeds: list[int]
    cpus_per_trial: int
    variant: str
    settings: list[dict[str, Any]]
    trials: list[dict[str, Any]]
    base_config: dict[str, Any]


def plan_sweep(
    config_path: str | Path,
    overrides: Sequence[str],
    grid_texts: Sequence[str],
    seeds: int,
    cpus_per_trial: int = 1,
) -> SweepPlan:
    """Check every trial's configuration before anything runs.

    Each trial's config is ``config_path`` + ``overrides`` (``--set``) + its setting's grid
    values + ``seed`` + ``train.torch_threads = cpus_per_trial`` + ``train.progress_bar =
    false``, validated as ``train`` validates a config (an error names the ``--grid``
    argument that set the key).

    Raises:
        ConfigError: a bad config, override or grid argument; ``seeds`` outside
            1..:data:`SEEDS_MAX`; ``cpus_per_trial`` < 1; or a setting with ``eval.eval_freq``
            0 or larger than ``train.total_timesteps`` (no validation, so no score); two
            settings that give the same config (``ppo.gamma=[1, 1.0]``).
    """
    if not 1 <= seeds <= SEEDS_MAX:
        raise ConfigError(f"argument --seeds: must be in 1..{SEEDS_MAX}, got {seeds}")
    if cpus_per_trial < 1:
        raise ConfigError(f"argument --cpus-per-trial: must be >= 1, got {cpus_per_trial}")
    grid = parse_grid(grid_texts)
    path = Path(config_path).resolve()
    base = load_config(path, overrides)
    seed_list = [base.seed + j for j in range(seeds)]
    if seed_list[-1] > 2**32 - 1:
        raise ConfigError(f"argument --seeds: seed {base.seed} + {seeds - 1} is past 2**32 - 1")
    texts = dict(zip([k for k, _ in grid], grid_texts, strict=True))
    settings = [
        dict(zip([k for k, _ in grid], values, strict=True))
        for values in itertools.product(*(v for _, v in grid))
    ]
    trials: list[dict[str, Any]] = []
    resolved_settings: list[dict[str, Any]] = []
    for index, setting in enumerate(settings):
        fixed = [(f"--grid {texts[k]}", k, v) for k, v in setting.items()]
        fixed += [
            ("--cpus-per-trial", "train.torch_threads", cpus_per_trial),
            ("fortythieves sweep", "train.progress_bar", False),
        ]
        config = load_config(path, overrides, fixed)
        if not 0 < config.eval.eval_freq <= config.train.total_timesteps:
            raise ConfigError(
                f"setting {_describe(setting)}: eval.eval_freq is {config.eval.eval_freq}; a "
                f"sweep scores each trial by its validations, so it must be in "
                f"1..train.total_timesteps ({config.train.total_timesteps})"
            )
        resolved = config.model_dump(mode="json")
        if resolved in resolved_settings:
            other = resolved_settings.index(resolved)
            raise ConfigError(
                f"settings {_describe(settings[other])} and {_describe(setting)} give the "
                f"same config (e.g. 1 and 1.0 for a number); each setting must differ"
            )
        resolved_settings.append(resolved)
        for seed in seed_list:
            config.seed = seed
            trials.append(
                {
                    "name": f"setting{index}-seed{seed}",
                    "setting": index,
                    "seed": seed,
                    "config": config.model_dump(mode="json"),
                }
            )
    return SweepPlan(
        str(path),
        list(overrides),
        grid,
        seed_list,
        cpus_per_trial,
        base.env.variant,
        settings,
        trials,
        base.model_dump(mode="json"),
    )


def _describe(setting: dict[str, Any]) -> str:
    return ", ".join(f"{k}={json.dumps(v)}" for k, v in setting.items()) or "(the config)"


# ---------------------------------------------------------------------- one trial
def latest_checkpoint(run: Path) -> tuple[Path, int] | None:
    """The saved model of ``run`` with the most steps that training can continue from
    (``models/interrupted_model.zip`` or ``models/checkpoints/ckpt_<steps>_steps.zip``),
    with its steps (the zip's ``num_timesteps``); None if there is none or none is
    readable."""
    candidates = [RunFolder(run).interrupted_model]
    candidates += RunFolder(run).checkpoint_paths()
    best: tuple[Path, int] | None = None
    for path in candidates:
        try:
            with zipfile.ZipFile(path) as archive:
                steps = int(json.loads(archive.read("data").decode("utf-8"))["num_timesteps"])
        except (OSError, KeyError, ValueError, TypeError, zipfile.BadZipFile):
            continue
        if best is None or steps > best[1]:
            best = (path, steps)
    return best


def _read_status(run: Path) -> str | None:
    try:
        meta = json.loads(RunFolder(run).run_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    status = meta.get("status") if isinstance(meta, dict) else None
    return status if isinstance(status, str) else None


def train_or_continue(config: Config, run: Path, cut: Path, console: Any = None) -> str:
    """Bring trial folder ``run`` to the end of its training; return the training status.

    A run whose ``run.json`` says ``completed`` is left as it is. Otherwise training
    continues from :func:`latest_checkpoint` (as ``fortythieves train RUN/config.yaml
    --resume CKPT --run-dir RUN`` would) when it has fewer steps than
    ``train.total_timesteps``; else a folder holding anything is moved to
    ``cut/<run name>-<k>`` and training starts afresh in ``run`` (same config and seed,
    hence the same training).

    Returns:
        ``"completed"``, ``"interrupted"`` or ``"evaluation_interrupted"`` (see
        :class:`fortythieves_agents.training.train.TrainResult`).

    Raises:
        ConfigError: as :func:`fortythieves_agents.training.train.train` raises it.
    """
    from .train import train

    if _read_status(run) == "completed":
        return "completed"
    command = ["fortythieves", "train", str(RunFolder(run).config)]
    found = latest_checkpoint(run)
    if found is not None and found[1] < config.train.total_timesteps:
        checkpoint = found[0]
        argv = [*command, "--resume", str(checkpoint), "--run-dir", str(run)]
        return train(config, run, checkpoint, argv, console).status
    if run.exists() and any(run.iterdir()):
        cut.mkdir(parents=True, exist_ok=True)
        k = 1
        while (cut / f"{run.name}-{k}").exists():
            k += 1
        run.rename(cut / f"{run.name}-{k}")
    return train(config, run, None, [*command, "--run-dir", str(run)], console).status


def trial_score(run: Path) -> dict[str, Any]:
    """The score of a finished trial from ``run/eval/foundation_cards.npz``.

    Returns:
        ``score`` (float: the best validation mean foundation cards), ``best_timesteps``
        (int: the steps of that validation) and ``validations`` (int: how many ran).

    Raises:
        RuntimeError: the file is missing or holds no validation.
    """
    import numpy as np

    path = RunFolder(run).foundation_cards
    try:
        with np.load(path) as data:
            timesteps, cards = data["timesteps"], data["foundation_cards"]
    except (OSError, KeyError, ValueError) as exc:
        raise RuntimeError(f"{path}: no validation results ({exc})") from None
    if cards.ndim != 2 or cards.shape[0] == 0 or cards.shape[1] == 0:
        raise RuntimeError(f"{path}: no validation results")
    means = cards.mean(axis=1)
    best = int(np.argmax(means))
    return {
        "score": float(means[best]),
        "best_timesteps": int(timesteps[best]),
        "validations": int(cards.shape[0]),
    }


def run_trial(
    params: dict[str, Any],
    trials: dict[str, dict[str, Any]],
    working_folder: str | None = None,
) -> None:
    """The Tune trainable: one trial's training (:func:`train_or_continue`), then
    ``tune.report`` of its :func:`trial_score`.

    ``params`` (Tune's config) holds the trial's ``name`` only; ``trials[name]`` (given
    through ``tune.with_parameters``) holds ``config`` (JSON data), ``run_dir``, ``cut_dir``
    and ``log`` (absolute paths). What training prints is appended to ``log``.

    Tune starts each trial in its own trial folder; the trial goes back to
    ``working_folder`` (the folder ``fortythieves sweep`` ran in) when that folder exists on
    the worker, so relative paths mean what they mean to ``fortythieves train`` there: the
    final evaluation finds ``results/solver/<variant>.jsonl``. On a worker without that
    folder (another machine) the trial stays where Tune put it.

    Raises:
        RuntimeError: training stopped before its end (Tune marks the trial failed, and
            ``sweep --resume`` starts it again).
    """
    from ray import tune
    from rich.console import Console

    if working_folder is not None and Path(working_folder).is_dir():
        os.chdir(working_folder)
    trial = trials[params["name"]]
    config = Config.model_validate(trial["config"])
    log = Path(trial["log"])
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a", encoding="utf-8") as out:
        console = Console(file=out, soft_wrap=True, no_color=True)
        status = train_or_continue(config, Path(trial["run_dir"]), Path(trial["cut_dir"]), console)
    if status != "completed":
        raise RuntimeError(f"trial {trial['name']}: training {status}; see {log}")
    tune.report(trial_score(Path(trial["run_dir"])))


def _trial_name(trial: Any) -> str:
    return str(trial.config["name"])


# ---------------------------------------------------------------------- the sweep
def _trainable(request: dict[str, Any]) -> Any:
    from ray import tune

    trials = {t["name"]: t for t in request["trials"]}
    trainable = tune.with_parameters(run_trial, trials=trials, working_folder=os.getcwd())
    return tune.with_resources(trainable, {"cpu": int(request["cpus_per_trial"])})


def _tune_configs(sweep_dir: Path, verbose: int) -> tuple[Any, Any]:
    from ray import tune

    tune_config = tune.TuneConfig(
        num_samples=1, trial_name_creator=_trial_name, trial_dirname_creator=_trial_name
    )
    run_config = tune.RunConfig(
        name="tune",
        storage_path=str(sweep_dir),
        failure_config=tune.FailureConfig(max_failures=0),
        verbose=verbose,
    )
    return tune_config, run_config


def _trial_params(trial: dict[str, Any], sweep_dir: Path) -> dict[str, Any]:
    name = trial["name"]
    return {
        **trial,
        "run_dir": str(sweep_dir / "runs" / name),
        "cut_dir": str(sweep_dir / "cut"),
        "log": str(sweep_dir / "logs" / f"{name}.log"),
    }


def run_sweep(
    plan: SweepPlan,
    sweep_dir: str | Path,
    argv: Sequence[str] = (),
    verbose: int = 1,
) -> dict[str, Any]:
    """Run every trial of ``plan`` on the connected Ray
    (:func:`fortythieves_agents.evaluation.distributed.connect`
    first), then write ``summary.json`` and, when every trial finished,
    ``best_config.yaml``.

    Args:
        plan: from :func:`plan_sweep`.
        sweep_dir: the sweep folder (made absolute; created; must not hold a sweep).
        argv: the command line to record in ``sweep.json``.
        verbose: Tune's console verbosity (0 silent, 1 trial status).

    Returns:
        The :func:`summarize_sweep` summary (also in ``summary.json``).

    Raises:
        ConfigError: ``sweep_dir`` holds a sweep already, or cannot be written.
    """
    from ray import tune

    sweep_dir = Path(sweep_dir).resolve()
    if (sweep_dir / SWEEP_FILE).exists():
        raise ConfigError(
            f"{sweep_dir}: a sweep is already there; continue it with "
            f"fortythieves sweep --resume {sweep_dir}"
        )
    request = {
        "config": plan.config_path,
        "overrides": plan.overrides,
        "grid": [[k, v] for k, v in plan.grid],
        "seeds": plan.seeds,
        "cpus_per_trial": plan.cpus_per_trial,
        "variant": plan.variant,
        "base_config": plan.base_config,
        "settings": plan.settings,
        "trials": [_trial_params(t, sweep_dir) for t in plan.trials],
        "commands": [shlex.join(argv)] if argv else [],
    }
    try:
        sweep_dir.mkdir(parents=True, exist_ok=True)
        (sweep_dir / SWEEP_FILE).write_text(json.dumps(request, indent=2) + "\n", "utf-8")
    except OSError as exc:
        raise ConfigError(f"{sweep_dir}: cannot write the sweep folder ({exc})") from None
    tune_config, run_config = _tune_configs(sweep_dir, verbose)
    tuner = tune.Tuner(
        _trainable(request),
        param_space={"name": tune.grid_search([t["name"] for t in plan.trials])},
        tune_config=tune_config,
        run_config=run_config,
    )
    return _finish(sweep_dir, request, tuner.fit())


def read_request(sweep_dir: str | Path) -> dict[str, Any]:
    """The ``sweep.json`` of a sweep folder.

    Raises:
        ConfigError: not a sweep folder (no readable ``sweep.json`` or Tune state).
    """
    sweep_dir = Path(sweep_dir)
    try:
        request = json.loads((sweep_dir / SWEEP_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"argument --resume: {sweep_dir}: not a sweep folder (cannot read {SWEEP_FILE}: "
            f"{getattr(exc, 'strerror', None) or exc})"
        ) from None
    if not isinstance(request, dict) or not isinstance(request.get("trials"), list):
        raise ConfigError(f"argument --resume: {sweep_dir / SWEEP_FILE}: not a sweep request")
    return request


def resume_sweep(
    sweep_dir: str | Path, argv: Sequence[str] = (), verbose: int = 1
) -> dict[str, Any]:
    """Continue a sweep cut short (:func:`fortythieves_agents.evaluation.distributed.connect`
    first): finished trials are kept, unfinished and failed ones run (from their run folder's latest
    checkpoint, see :func:`train_or_continue`); then as :func:`run_sweep`.

    Raises:
        ConfigError: ``sweep_dir`` is not a sweep folder.
    """
    from ray import tune

    sweep_dir = Path(sweep_dir).resolve()
    request = read_request(sweep_dir)
    experiment = sweep_dir / "tune"
    if not tune.Tuner.can_restore(str(experiment)):
        raise ConfigError(f"argument --resume: {sweep_dir}: no Ray Tune state in {experiment}")
    if argv:
        request["commands"] = [*request.get("commands", []), shlex.join(argv)]
        (sweep_dir / SWEEP_FILE).write_text(json.dumps(request, indent=2) + "\n", "utf-8")
    tuner = tune.Tuner.restore(
        str(experiment),
        trainable=_trainable(request),
        resume_unfinished=True,
        restart_errored=True,
    )
    return _finish(sweep_dir, request, tuner.fit())


def _finish(sweep_dir: Path, request: dict[str, Any], grid: Any) -> dict[str, Any]:
    """Summarize from the run folders, note Tune's errors, write the files."""
    errors: dict[str, str] = {}
    for result in grid:
        if result.error is not None:
            name = str(result.config.get("name", "?"))
            errors[name] = " ".join(str(result.error).split())[:500]
    summary = summarize_sweep(request, errors)
    (sweep_dir / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n", "utf-8")
    best = summary["best"]
    if best is not None:
        (sweep_dir / BEST_CONFIG).write_text(
            dump_config(best_config(request, best["setting"])), "utf-8"
        )
    return summary


def best_config(request: dict[str, Any], setting: int) -> Config:
    """The config of setting ``setting``: the sweep's base config (file and ``--set``, as
    resolved when the sweep started, its own ``seed``, ``train.torch_threads`` and
    ``train.progress_bar``) with the setting's grid values. A grid key inside a section
    that is null in the base config (``train.shaping.face_down`` without ``train.shaping``)
    sets that key in a new section, as the trials' configs were built."""
    import copy

    data = copy.deepcopy(request["base_config"])
    for key, value in request["settings"][setting].items():
        *parents, last = key.split(".")
        node = data
        for part in parents:
            if not isinstance(node.get(part), dict):  # a section that is null (train.shaping)
                node[part] = {}
            node = node[part]
        node[last] = value
    return Config.model_validate(data)


def summarize_sweep(
    request: dict[str, Any], errors: dict[str, str] | None = None
) -> dict[str, Any]:
    """Every trial's state and score (read from its run folder), and per setting the mean
    and 95% interval over its finished seeds (see the module docstring).

    Returns:
        ``trials`` (``name``, ``setting``, ``seed``, ``run_dir``, ``status``: ``finished``,
        ``failed`` or ``unfinished``, ``score``, ``best_timesteps``, ``error``),
        ``settings`` (``setting``, ``values``, ``seeds``, ``finished``, ``scores``, ``mean``,
        ``ci95``), ``finished`` / ``total`` trial counts, and ``best`` (``setting``,
        ``values``, ``mean``, ``ci95``, ``config``: the file name) or None.
    """
    errors = errors or {}
    trials = []
    for trial in request["trials"]:
        run = Path(trial["run_dir"])
        row: dict[str, Any] = {
            **{k: trial[k] for k in ("name", "setting", "seed", "run_dir")},
            "status": "unfinished",
            "score": None,
            "best_timesteps": None,
            "error": errors.get(trial["name"]),
        }
        if _read_status(run) == "completed" and trial["name"] not in errors:
            try:
                score = trial_score(run)
            except RuntimeError as exc:
                row["error"] = str(exc)
            else:
                row.update(status="finished", **{k: score[k] for k in ("score", "best_timesteps")})
        if row["status"] != "finished" and row["error"] is not None:
            row["status"] = "failed"
        trials.append(row)
    settings = []
    for index, values in enumerate(request["settings"]):
        rows = [t for t in trials if t["setting"] == index]
        scores = [t["score"] for t in rows if t["status"] == "finished"]
        mean, ci = _mean_interval(scores)
        settings.append(
            {
                "setting": index,
                "values": values,
                "seeds": len(rows),
                "finished": len(scores),
                "scores": scores,
                "mean": mean,
                "ci95": ci,
            }
        )
    finished = sum(t["status"] == "finished" for t in trials)
    best = None
    if finished == len(trials) and settings:
        top = max(settings, key=lambda s: (s["mean"], -s["setting"]))
        best = {k: top[k] for k in ("setting", "values", "mean", "ci95")}
        best["config"] = BEST_CONFIG
    return {
        "score": "best validation mean foundation cards",
        "finished": finished,
        "total": len(trials),
        "trials": trials,
        "settings": settings,
        "best": best,
    }


def render_summary(summary: dict[str, Any], grid_keys: Sequence[str]) -> Any:
    """A ``rich.table.Table``: one row per setting (its grid values, seeds finished, mean
    score and 95% interval), the best one marked."""
    from rich.table import Table

    table = Table(
        title=f"sweep: best validation mean foundation cards over seeds "
        f"({summary['finished']}/{summary['total']} trials finished)"
    )
    table.add_column("setting", justify="right")
    for key in grid_keys:
        table.add_column(key)
    table.add_column("seeds", justify="right")
    table.add_column("mean", justify="right")
    table.add_column("95% interval", justify="right")
    best = summary["best"]["setting"] if summary["best"] else None
    for s in summary["settings"]:
        ci = s["ci95"]
        table.add_row(
            f"{s['setting']}{' (best)' if s['setting'] == best else ''}",
            *(json.dumps(s["values"][k]) for k in grid_keys),
            f"{s['finished']}/{s['seeds']}",
            "" if s["mean"] is None else f"{s['mean']:.2f}",
            "" if ci is None else f"[{ci[0]:.2f}, {ci[1]:.2f}]",
        )
    return table
