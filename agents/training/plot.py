"""Learning curves of training runs: ``fortythieves plot RUN [RUN ...]``.

One PNG with two panels, every run one line in each, against training steps:

* validation win rate (the share of the periodic validation episodes won, from
  ``eval/evaluations.npz``'s ``successes``);
* validation foundation cards (the mean over the validation episodes, from
  ``eval/foundation_cards.npz``, with a band of +-1 standard error). A run that recorded no
  foundation cards (trained before they were recorded) is drawn with its validation
  **return** instead (``results`` of ``evaluations.npz``), and the panel and the returned
  notes say so.

Needs matplotlib, the ``plots`` extra (``pip install 'fortythieves[plots]'``, or
``pip install -e ".[plots]"`` in a checkout; the message says which:
:func:`fortythieves_agents.config.install_hint`); the Agg backend is used, so no display is
needed.
"""

from __future__ import annotations

import importlib.util
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..config import install_hint
from ..run_folder import RunFolder

__all__ = ["PlotError", "RunCurves", "load_curves", "plot_runs", "write_learning_curves"]


class PlotError(Exception):
    """A run cannot be plotted (no validation results, a damaged file, no matplotlib)."""


@dataclass(frozen=True)
class RunCurves:
    """One run's validation curves.

    Attributes:
        name: the run folder's name (the legend label).
        timesteps: ``int64 (n,)`` training steps of each validation.
        win_rate: ``float64 (n,)`` share of validation episodes won, or None when the run
            recorded no successes.
        score: ``float64 (n, episodes)``: foundation cards per episode, or the return when
            ``score_is_return``.
        score_is_return: True when the run recorded no foundation cards.
    """

    name: str
    timesteps: np.ndarray
    win_rate: np.ndarray | None
    score: np.ndarray
    score_is_return: bool


def _load_npz(path: Path) -> dict[str, np.ndarray]:
    try:
        with np.load(path) as data:
            return {key: np.asarray(data[key]) for key in data.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as err:
        raise PlotError(f"{path}: cannot read it ({' '.join(str(err).split())})") from None


def load_curves(run: str | Path) -> RunCurves:
    """Read a run folder's validation results.

    Raises:
        PlotError: ``run`` is not a folder, has no ``eval/evaluations.npz`` (a run trained
            with ``eval.eval_freq: 0`` or stopped before its first validation), or a file is
            damaged or inconsistent; the message names the file.
    """
    run = Path(run)
    if not run.is_dir():
        raise PlotError(f"{run}: not a run folder")
    path = RunFolder(run).evaluations
    if not path.is_file():
        raise PlotError(
            f"{run}: no validation results ({path} is missing: trained with "
            "eval.eval_freq 0, or stopped before its first validation)"
        )
    data = _load_npz(path)
    if "timesteps" not in data or "results" not in data:
        raise PlotError(f"{path}: not SB3 evaluation results (no timesteps or results)")
    timesteps = data["timesteps"].astype(np.int64).reshape(-1)
    n = len(timesteps)
    if n == 0:
        raise PlotError(f"{path}: no validation recorded yet")
    results = data["results"].astype(np.float64).reshape(n, -1)
    win_rate = None
    if "successes" in data and data["successes"].size:
        win_rate = data["successes"].astype(np.float64).reshape(n, -1).mean(axis=1)
    cards_path = RunFolder(run).foundation_cards
    if cards_path.is_file():
        cards = _load_npz(cards_path)
        if "foundation_cards" not in cards or "timesteps" not in cards:
            raise PlotError(f"{cards_path}: no foundation_cards or timesteps in it")
        if not np.array_equal(cards["timesteps"].reshape(-1), timesteps):
            raise PlotError(f"{cards_path}: its timesteps differ from {path}'s")
        score = cards["foundation_cards"].astype(np.float64).reshape(n, -1)
        return RunCurves(run.name, timesteps, win_rate, score, False)
    return RunCurves(run.name, timesteps, win_rate, results, True)


def plot_runs(runs: list[str | Path], out: str | Path) -> list[str]:
    """Draw the learning curves of ``runs`` into the PNG ``out``.

    Returns:
        Notes for the user: one per run plotted with its return (no foundation cards
        recorded) or without a win rate.

    Raises:
        PlotError: a run cannot be read (see :func:`load_curves`), or matplotlib is not
            installed (the message says how to install it).
    """
    curves = [load_curves(run) for run in runs]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotError(
            f"plots need matplotlib: {install_hint('plots')} (or pip install matplotlib)"
        ) from None
    notes = []
    fig, (ax_win, ax_score) = plt.subplots(1, 2, figsize=(11, 4.2), constrained_layout=True)
    any_return = any(c.score_is_return for c in curves)
    any_cards = any(not c.score_is_return for c in curves)
    for curve in curves:
        steps = curve.timesteps
        if curve.win_rate is not None:
            ax_win.plot(steps, 100 * curve.win_rate, marker="o", ms=3, label=curve.name)
        else:
            ax_win.plot([], [], label=curve.name)  # keep the colours in step
            notes.append(f"{curve.name}: no validation successes recorded: no win rate")
        mean = curve.score.mean(axis=1)
        sem = curve.score.std(axis=1) / np.sqrt(max(curve.score.shape[1], 1))
        label = curve.name
        if curve.score_is_return:
            label += " (return)"
            notes.append(
                f"{curve.name}: no foundation cards recorded (eval/foundation_cards.npz): "
                "plotted the validation return instead"
            )
        (line,) = ax_score.plot(steps, mean, marker="o", ms=3, label=label)
        ax_score.fill_between(steps, mean - sem, mean + sem, color=line.get_color(), alpha=0.2)
    ax_win.set(xlabel="training steps", ylabel="validation win rate (%)", ylim=(-2, 102))
    ax_win.set_title("Validation win rate")
    if any_return and any_cards:
        ylabel, title = "foundation cards, or return (see legend)", "Validation foundation cards"
    elif any_return:
        ylabel, title = "validation return", "Validation return (no foundation cards recorded)"
    else:
        ylabel, title = "foundation cards (of 104)", "Validation foundation cards"
    ax_score.set(xlabel="training steps", ylabel=ylabel)
    ax_score.set_title(title)
    for ax in (ax_win, ax_score):
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    try:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, dpi=100, format="png")
    except OSError as err:
        raise PlotError(f"{out}: cannot write the plot ({err.strerror or err})") from None
    finally:
        plt.close(fig)
    return notes


def write_learning_curves(run: Path, console: Any) -> None:
    """Write ``run/learning_curves.png`` at the end of a training (a single variant's or the
    family's), or print why not: no matplotlib (the ``plots`` extra; the message says how to
    install it and to draw them later with ``fortythieves plot RUN``), or a
    :class:`PlotError` (no validation ran: ``eval.eval_freq`` 0 or a short run).

    Args:
        run: the run folder.
        console: the rich console the training prints to.
    """
    if importlib.util.find_spec("matplotlib") is None:
        console.print(
            f"no learning_curves.png: plots need matplotlib ({install_hint('plots')}); "
            f"later: fortythieves plot {run}",
            markup=False,
        )
        return
    try:
        plot_runs([run], RunFolder(run).learning_curves)
    except PlotError as exc:
        console.print(f"no learning_curves.png: {exc}", markup=False)
        return
    console.print(f"learning curves: {RunFolder(run).learning_curves}")
