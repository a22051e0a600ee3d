"""The family's commands (``docs/family.md``)::

    fortythieves train family [--set KEY.SUB=VALUE ...] [--run-dir DIR] [--resume CHECKPOINT_OR_RUN]
    fortythieves family evaluate RUN_OR_MODEL [--episodes N] [--outside M] [--games ID ...]
                                 [--baselines [random] [greedy]] [--seed S] [--stochastic]
                                 [--json PATH] [--no-progress]

``train`` runs a family config (one with a ``family:`` section,
:mod:`fortythieves_agents.family.config`; ``fortythieves train family`` is the shipped
``configs/family.yaml``) with
:func:`fortythieves_agents.family.train.train_family`. ``family evaluate`` plays a family
network zero-shot on the held-out games (:mod:`fortythieves_agents.family.zero_shot`): the
test deals of each, and the deals outside every seed range of the nine variants, beside the
baselines. One family network on one named variant is ``fortythieves evaluate MODEL
--variant V``, as any model.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["add_family_parser", "family_command", "train_family_command"]


def add_family_parser(sub: Any, int_in: Any, writable_file: Any) -> None:
    """``fortythieves family`` and its ``evaluate`` (argument types from the main parser:
    ``int_in(low, high)``, ``writable_file``)."""
    from ...family.config import held_out_ids

    fam = sub.add_parser("family", help="the family of rule sets: zero-shot evaluation")
    cmds = fam.add_subparsers(dest="family_command", required=True)
    ev = cmds.add_parser("evaluate", help="play a family network zero-shot on every held-out game")
    ev.add_argument("agent", metavar="RUN_OR_MODEL", help="a family run folder or model .zip")
    ev.add_argument(
        "--episodes",
        type=int_in(0, 10**9),
        default=500,
        help="test deals per held-out game (default 500)",
    )
    ev.add_argument(
        "--outside",
        type=int_in(0, 10**9),
        default=200,
        help="deals outside every seed range (3_000_000_000 + i) per named variant "
        "(default 200; 0: none)",
    )
    ev.add_argument(
        "--games",
        nargs="+",
        choices=held_out_ids(),
        metavar="GAME",
        help="the held-out games to play (default: all, the nine variants then PySolFC's)",
    )
    ev.add_argument(
        "--baselines",
        nargs="*",
        default=["random", "greedy"],
        choices=["random", "greedy"],
        help="baselines on the same deals (default random greedy)",
    )
    ev.add_argument("--seed", type=int_in(0, 2**32 - 1), default=0, help="default 0")
    ev.add_argument("--stochastic", action="store_true", help="the network samples its moves")
    ev.add_argument(
        "--json", dest="json_path", metavar="PATH", type=writable_file, help="write the report"
    )
    ev.add_argument("--no-progress", dest="progress", action="store_false", help="no bar")


def family_command(args: argparse.Namespace, argv: Sequence[str]) -> int:
    """Run ``fortythieves family ...``; the exit code."""
    from ...config import ConfigError
    from ...family.zero_shot import evaluate_held_out, zero_shot_report, zero_shot_table
    from ...process import stop_signals_interrupt
    from ..options import EXIT_INTERRUPTED, resolve_model_path

    try:
        model = resolve_model_path(Path(args.agent))
    except ConfigError as exc:
        raise ConfigError(f"argument RUN_OR_MODEL: {exc}") from None
    from ...family.agents import load_family_model, trained_on

    load_family_model(model)  # refused here, before any game, if it is not one
    games = args.games or _all_games()
    try:
        with stop_signals_interrupt():
            played = evaluate_held_out(
                model,
                games,
                args.episodes,
                args.outside,
                args.baselines,
                args.seed,
                not args.stochastic,
                args.progress and sys.stderr.isatty(),
                echo=lambda line: print(line, flush=True),
            )
    except KeyboardInterrupt:
        print("fortythieves family evaluate: interrupted, nothing written", file=sys.stderr)
        return EXIT_INTERRUPTED
    report = zero_shot_report(model, played, trained_on(model), args.episodes, args.outside)
    print(zero_shot_table(report))
    if args.json_path:
        path = Path(args.json_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        print(f"report written to {path}")
    del argv
    return 0


def _all_games() -> list[str]:
    from ...family.config import held_out_ids

    return held_out_ids()


def train_family_command(args: argparse.Namespace, argv: Sequence[str], config: Any) -> int:
    """``fortythieves train`` of a family config."""
    from ...family.train import train_family
    from ...training.train import resume_checkpoint
    from ..options import EXIT_INTERRUPTED, _console

    resume = None
    if args.resume is not None:
        resume = resume_checkpoint(args.resume, note=lambda line: print(line, flush=True))
        if Path(args.resume).is_dir():
            print(f"--resume {args.resume}: continuing from {resume}", flush=True)
    result = train_family(
        config,
        run_dir=args.run_dir,
        resume=resume,
        argv=["fortythieves", *argv],
        console=_console(),
    )
    return 0 if result.status == "completed" else EXIT_INTERRUPTED
