"""``fortythieves plot``: the learning curves of runs to a PNG
(:mod:`fortythieves_agents.training.plot`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ...config import ConfigError
from ...paths import check_writable_file
from ...run_folder import RunFolder
from ..options import _checked


def _check_png(path: str, what: str) -> None:
    """:func:`check_writable_file`, and the name must end in ``.png`` (the plot is a PNG)."""
    if Path(path).suffix.lower() != ".png":
        raise ConfigError(f"{what} {path}: must end in .png (the plot is written as a PNG)")
    check_writable_file(path, what)


def _add_plot_parser(sub: Any) -> None:
    """``fortythieves plot``."""
    pl = sub.add_parser(
        "plot", help="learning curves (validation win rate and foundation cards) to a PNG"
    )
    pl.add_argument("runs", metavar="RUN", nargs="+", help="run folders, one line each")
    pl.add_argument(
        "--out",
        "-o",
        metavar="PNG",
        type=_checked(_check_png),
        help="the PNG to write (default: RUN/learning_curves.png for one run, "
        "learning_curves.png here for several)",
    )


def _plot(args: argparse.Namespace) -> int:
    from ...training.plot import PlotError, plot_runs

    if args.out is not None:
        out = Path(args.out)
    elif len(args.runs) == 1:
        out = RunFolder(Path(args.runs[0])).learning_curves
    else:
        out = Path("learning_curves.png")
    try:
        notes = plot_runs(args.runs, out)
    except PlotError as exc:
        raise ConfigError(str(exc)) from None
    for note in notes:
        print(f"note: {note}")
    print(f"learning curves written to {out}")
    return 0
