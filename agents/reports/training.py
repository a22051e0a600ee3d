"""The results tables of the documentation, rendered from the saved runs (never typed).

The main table has one row per registered variant (:data:`fortythieves_env.VARIANTS`, in its
order), read from ``results/training/<Variant>/`` (``scripts/training/run_variant.sh``
fills it): ``final_evaluation.json`` (PPO, greedy and random on the same test deals: mean
foundation cards with a 95% interval, win rate with a 95% Wilson interval), ``run.json``
(training steps), ``sessions.jsonl`` (wall time: the sum over the runner's sessions, final
evaluation included) and ``config.yaml`` (network, teacher, shaping). A variant without
``final_evaluation.json`` gets a row saying "not trained yet". "PPO > greedy" is "yes" when
PPO's foundation-card interval lies wholly above greedy's, "no (below)" when wholly below,
"no (overlap)" otherwise. Under the table, a link to each run's ``learning_curves.png``.

The ablation table has, for each variant of ``results/training/ablation/settings.yaml``
(``variants``) or with a folder in ``results/training/ablation/``, a row for the shipped
config (the main table's run) and one per setting
(``results/training/ablation/<Variant>/<setting>/``).

The reproducibility table (issue 9.6) reads ``results/training/reproducibility/*.json``
(``check.py`` there: the same config and seed trained twice side by side), and the README
quick start's expected figures come from its check, ``lucas.json``.

``python -m fortythieves_agents.reports`` writes them into ``docs/results.md`` and
``docs/getting-started.md`` (blocks ``results-table``, ``ablation-table``,
``reproducibility-table`` and ``quick-start-figures``; :mod:`.targets`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from fortythieves_env import VARIANTS
from fortythieves_env.rules.variants import recorded_rules_version, rules_version_mismatch

from ..evaluation.leaderboard import cards_cell, wins_cell

SETTINGS = Path("ablation") / "settings.yaml"
"""The ablation's settings, relative to the training results folder."""
REPRODUCIBILITY = Path("reproducibility")
"""``check.py`` there writes one JSON per config: two runs of the same seed side by side;
relative to the training results folder."""
QUICK_START_CHECK = REPRODUCIBILITY / "lucas.json"
"""The reproducibility check of the README's quick start (``configs/lucas.yaml``), relative
to the training results folder."""
NOT_TRAINED = "not trained yet"
SHIPPED = "shipped config"
"""The ablation table's name for the main table's run of a variant."""

HEADER = (
    "variant",
    "test deals",
    "PPO cards [95% CI]",
    "greedy cards [95% CI]",
    "random cards [95% CI]",
    "PPO wins [95% CI]",
    "greedy wins [95% CI]",
    "random wins [95% CI]",
    "PPO > greedy",
    "steps",
    "wall time",
    "network",
    "teacher",
    "shaping",
)
ABLATION_HEADER = (
    "variant",
    "setting",
    "network",
    "teacher",
    "shaping",
    "PPO cards [95% CI]",
    "greedy cards [95% CI]",
    "PPO wins [95% CI]",
    "greedy wins [95% CI]",
    "PPO > greedy",
    "steps",
    "wall time",
)
REPRO_HEADER = ("agent", "range")
"""The first and last columns of a reproducibility table; between them one column per run,
headed by the CPU kernels torch used (:func:`reproducibility_table`)."""


class ResultsError(ValueError):
    """A results file that cannot be read: the message names it."""


@dataclass(frozen=True)
class Run:
    """What the tables show of one saved run (a results folder)."""

    folder: Path
    report: dict[str, Any]
    meta: dict[str, Any]
    config: dict[str, Any]
    sessions: list[dict[str, Any]]


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ResultsError(f"{path}: cannot read it: {exc}") from None
    if not isinstance(data, dict):
        raise ResultsError(f"{path}: not a JSON object")
    return data


def load_run(folder: Path) -> Run | None:
    """The saved run in ``folder``; None when it has no ``final_evaluation.json``.

    Raises:
        ResultsError: ``final_evaluation.json`` has no ``results``; or one of its files
            (``run.json``, ``config.yaml``, ``sessions.jsonl``, each optional) is damaged.
    """
    if not (folder / "final_evaluation.json").is_file():
        return None
    report = _json(folder / "final_evaluation.json")
    if not isinstance(report.get("results"), dict):
        raise ResultsError(f"{folder / 'final_evaluation.json'}: no 'results' mapping")
    try:  # a report made under other rules is not shown as today's
        stale = rules_version_mismatch(recorded_rules_version(report.get("rules_version")))
    except ValueError as exc:
        raise ResultsError(f"{folder / 'final_evaluation.json'}: {exc}") from None
    if stale:
        raise ResultsError(f"{folder / 'final_evaluation.json'}: {stale}; evaluate it again")
    meta = _json(folder / "run.json") if (folder / "run.json").is_file() else {}
    config: dict[str, Any] = {}
    if (folder / "config.yaml").is_file():
        try:
            loaded = yaml.safe_load((folder / "config.yaml").read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise ResultsError(f"{folder / 'config.yaml'}: cannot read it: {exc}") from None
        config = loaded if isinstance(loaded, dict) else {}
    sessions = []
    if (folder / "sessions.jsonl").is_file():
        path = folder / "sessions.jsonl"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            try:
                sessions.append(json.loads(line))
            except ValueError:
                raise ResultsError(f"{path}: line {number} is not JSON") from None
    return Run(folder, report, meta, config, sessions)


def ppo_name(report: dict[str, Any]) -> str | None:
    """The PPO agent's name in a report (``ppo``, or ``ppo-sampled``), if any."""
    return next((name for name in report["results"] if name.startswith("ppo")), None)


def beats_cell(ppo: dict[str, Any] | None, greedy: dict[str, Any] | None) -> str:
    """``yes`` when PPO's foundation-card interval lies wholly above greedy's, ``no (below)``
    when wholly below, ``no (overlap)`` otherwise; ``-`` when one of them is missing."""
    if ppo is None or greedy is None:
        return "-"
    (plo, phi), (glo, ghi) = ppo["foundation_cards_ci95"], greedy["foundation_cards_ci95"]
    if plo > ghi:
        return "yes"
    if phi < glo:
        return "no (below)"
    return "no (overlap)"


def wall_time_cell(run: Run) -> str:
    """The run's wall time: the sum of its sessions' (``1 h 05 min``, ``41 min``); from
    ``run.json``'s training seconds, marked "training only", for a run the runner did not
    make (one session from step 0); else ``-``."""
    if run.sessions:
        seconds = sum(float(s.get("wall_seconds", 0.0)) for s in run.sessions)
        note = ""
    elif run.meta.get("start_timesteps") == 0 and "train_seconds" in run.meta:
        seconds, note = float(run.meta["train_seconds"]), " (training only)"
    else:
        return "-"
    minutes = round(seconds / 60)
    text = f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"
    return text + note


def setting_cells(config: dict[str, Any]) -> list[str]:
    """Network, teacher and shaping of a resolved config (``-`` for a missing key)."""
    policy = config.get("policy") or {}
    train = config.get("train") or {}
    network = str(policy.get("network", "-")) if policy else "-"
    if not train:
        return [network, "-", "-"]
    teacher = train.get("teacher") or "none"
    shaping = train.get("shaping")
    if isinstance(shaping, dict):
        terms = [f"{key} {value:g}" for key, value in shaping.items() if value]
        shaping_text = ", ".join(terms) or "none"
    else:
        shaping_text = "none"
    return [network, str(teacher), shaping_text]


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _header(names: tuple[str, ...]) -> list[str]:
    return [_row(list(names)), "|" + "---|" * len(names)]


def variant_cells(variant: str, run: Run) -> list[str]:
    """The main table's row of a saved run (:data:`HEADER`)."""
    results = run.report["results"]
    name = ppo_name(run.report)
    ppo = results.get(name) if name else None
    greedy, random = results.get("greedy"), results.get("random")
    label = variant
    if run.report.get("no_cycling") is False:
        label += " (cycles allowed)"
    ppo_cards = cards_cell(ppo) + (" sampled" if name == "ppo-sampled" else "")
    steps = run.meta.get("timesteps")
    return [
        label,
        str(run.report.get("episodes", "-")),
        ppo_cards,
        cards_cell(greedy),
        cards_cell(random),
        wins_cell(ppo),
        wins_cell(greedy),
        wins_cell(random),
        beats_cell(ppo, greedy),
        f"{steps:,}" if isinstance(steps, int) else "-",
        wall_time_cell(run),
        *setting_cells(run.config),
    ]


def _link(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path, base)).as_posix()


def results_table(results_dir: Path, link_base: Path | None = None) -> str:
    """The main results table (module docstring) and the learning-curve links under it.

    Args:
        results_dir: the folder of the ``<Variant>/`` results folders (a checkout's
            ``results/training``).
        link_base: links are relative to this folder (the page's: :func:`link_base`);
            default: the checkout's root, two folders above ``results_dir``.

    Raises:
        ResultsError: a results file is damaged (:func:`load_run`).
    """
    base = results_dir.parent.parent if link_base is None else link_base
    lines = _header(HEADER)
    curves = []
    for variant in VARIANTS:
        run = load_run(results_dir / variant)
        if run is None:
            lines.append(_row([variant, NOT_TRAINED, *[""] * (len(HEADER) - 2)]))
            continue
        lines.append(_row(variant_cells(variant, run)))
        png = results_dir / variant / "learning_curves.png"
        if png.is_file():
            curves.append(f"[{variant}]({_link(png, base)})")
    if curves:
        lines += ["", "Learning curves (validation, against training steps): " + ", ".join(curves)]
    return "\n".join(lines)


def read_settings(path: Path) -> tuple[list[str], dict[str, list[str]]]:
    """``(variants, settings)`` of the ablation settings file.

    Raises:
        ResultsError: the file cannot be read, ``settings`` is not a mapping of lists or
            ``variants`` (optional) not a list of registered variants.
    """
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ResultsError(f"{path}: cannot read it: {exc}") from None
    data = data if isinstance(data, dict) else {}
    settings, variants = data.get("settings"), data.get("variants") or []
    if not isinstance(settings, dict) or not all(isinstance(v, list) for v in settings.values()):
        raise ResultsError(f"{path}: 'settings' must map names to lists of KEY=VALUE")
    if not isinstance(variants, list) or not all(v in VARIANTS for v in variants):
        raise ResultsError(f"{path}: 'variants' must list variant ids of {', '.join(VARIANTS)}")
    return list(variants), {str(k): [str(o) for o in v] for k, v in settings.items()}


def ablation_table(
    results_dir: Path, settings_path: Path | None = None, link_base: Path | None = None
) -> str:
    """The ablation table (module docstring), with the settings' overrides under it.

    Args:
        results_dir: a checkout's ``results/training``.
        settings_path: the settings file; default: :data:`SETTINGS` under ``results_dir``.
        link_base: as for :func:`results_table`.

    Raises:
        ResultsError: a results file or the settings file is damaged.
    """
    settings_path = results_dir / SETTINGS if settings_path is None else settings_path
    link_base = results_dir.parent.parent if link_base is None else link_base
    variants, settings = read_settings(settings_path)
    folder = results_dir / "ablation"
    present = {p.name for p in folder.iterdir() if p.is_dir()} if folder.is_dir() else set()
    lines = _header(ABLATION_HEADER)
    for variant in [v for v in VARIANTS if v in variants or v in present]:
        for setting, where in [
            (SHIPPED, results_dir / variant),
            *[(s, folder / variant / s) for s in settings],
        ]:
            run = load_run(where)
            if run is None:
                cells = [variant, setting, NOT_TRAINED, *[""] * (len(ABLATION_HEADER) - 3)]
                lines.append(_row(cells))
                continue
            full = variant_cells(variant, run)
            lines.append(
                _row([variant, setting, *full[11:14], *full[2:4], *full[5:7], *full[8:11]])
            )
    described = "; ".join(
        f"{name}: " + (", ".join(f"`{o}`" for o in overrides) or "none")
        for name, overrides in settings.items()
    )
    where = _link(settings_path, link_base)
    return "\n".join([*lines, "", f"Settings ([{where}]({where})): {described}."])


def reproducibility_table(folder: Path) -> str:
    """The reproducibility tables: per saved check (``folder/*.json``, written by
    ``scripts/training/reproducibility/check.py``) a line naming the config, steps, CPU,
    torch and whether the runs on the CPU's own kernels gave identical figures, then a table
    of one row per agent: every run's mean foundation cards and wins on the same test deals,
    one column per run headed by the CPU kernels torch used (the CPU's own, or those of
    another instruction set), and their range. What every row shares stands above the
    table, so that it fits a page's width.

    Raises:
        ResultsError: a JSON file is damaged or lacks a key.
    """
    blocks = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        report = _json(path)
        try:
            runs = report["runs"]
            kernels = [
                f"run {k}: {'own ' if r['kernels'] == 'native' else ''}{r['torch_cpu_capability']}"
                for k, r in enumerate(runs, start=1)
            ]
            same = "yes" if report["identical_on_one_cpu"] else "no"
            lines = [
                f"`{report['variant_config']}`, {report['steps']:,} steps, on one "
                f"{report['cpu']} CPU with torch {report['packages']['torch']}; runs on the "
                f"CPU's own kernels identical: {same}. Mean foundation cards (wins) of each "
                "run:",
                "",
                *_header((REPRO_HEADER[0], *kernels, REPRO_HEADER[1])),
            ]
            for agent, (low, high) in report["range"].items():
                cells = [
                    f"{r['results'][agent]['mean_foundation_cards']:.2f} "
                    f"({r['results'][agent]['wins']})"
                    for r in runs
                ]
                lines.append(_row([agent, *cells, f"{low:.2f}-{high:.2f}"]))
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise ResultsError(f"{path}: not a reproducibility report ({exc!r})") from None
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def quick_start_figures(path: Path, root: Path) -> str:
    """The README quick start's expected figures, from its reproducibility check ``path``
    (:data:`QUICK_START_CHECK`): each agent's mean foundation cards and win rate over the
    runs (a range when they differ), and the CPUs and kernels they were measured with; the
    check named by its path from ``root`` (the checkout's).

    Raises:
        ResultsError: the file is damaged or lacks a key.
    """
    report = _json(path)
    try:
        runs = report["runs"]

        def span(values: list[float], digits: int, unit: str = "") -> str:
            low, high = f"{min(values):.{digits}f}", f"{max(values):.{digits}f}"
            return f"{low}{unit}" if low == high else f"{low}-{high}{unit}"

        def figures(agent: str) -> str:
            cards = [r["results"][agent]["mean_foundation_cards"] for r in runs]
            wins = [100 * r["results"][agent]["wins"] / r["episodes"] for r in runs]
            return f"{span(cards, 1)} foundation cards and {span(wins, 1, '%')} wins"

        kernels = sorted({r["torch_cpu_capability"] for r in runs})
        same = "identical" if report["identical_on_one_cpu"] else "NOT identical"
        return (
            f"PPO {figures('ppo')}, greedy {figures('greedy')}, random {figures('random')} "
            f"on the 500 test deals ({len(runs)} runs on one {report['cpu']} CPU with torch's "
            f"kernels for {', '.join(kernels)}: runs with the same kernels were {same}, "
            f"other kernels, as on another CPU, give the range; "
            f"`{path.relative_to(root).as_posix()}`)."
        )
    except (KeyError, TypeError, IndexError, ValueError, ZeroDivisionError) as exc:
        raise ResultsError(f"{path}: not a reproducibility report ({exc!r})") from None


def link_base(path: Path, root: Path) -> Path:
    """The folder that links in ``path`` (a page of the checkout at ``root``) are relative
    to, as its reader resolves them: the file's folder, except for a page of the
    documentation site (``docs/``), where the saved runs appear at their repository paths
    from the site's root (``scripts/mkdocs_hooks.py`` adds them), so a page ``docs/x.md``
    links as if it were at the repository's root."""
    path, root = path.resolve(), root.resolve()
    docs = root / "docs"
    if path.is_relative_to(docs):
        return root / path.parent.relative_to(docs)
    return path.parent
