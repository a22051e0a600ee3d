"""``fortythieves train``: a training run from a config
(:func:`fortythieves_agents.training.train.train`), or its continuation with ``--resume``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...config import ConfigError, load_config
from ...paths import check_readable_file, check_writable_dir
from ...run_folder import RunFolder
from ..options import EXIT_INTERRUPTED, _checked, _console


def _check_resume(path: str, what: str) -> None:
    """``--resume``: a readable model zip, or a run folder holding one
    (:func:`fortythieves_agents.training.train.resume_checkpoint`) or unfinished expert
    iterations."""
    from ...run_folder import ExpertFolder
    from ...training.train import resume_checkpoint

    if Path(path).is_dir() and ExpertFolder(RunFolder(Path(path)).expert).unfinished():
        return
    check_readable_file(resume_checkpoint(path), what, zip_archive=True)


def _add_train_parser(sub: Any) -> None:
    """``fortythieves train``."""
    tr = sub.add_parser("train", help="train MaskablePPO from a config file")
    tr.add_argument(
        "config",
        help="a YAML config file (configs/streets.yaml) or a shipped config's name (streets)",
    )
    tr.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY.SUB=VALUE",
        help="override a config value (YAML syntax), e.g. --set train.total_timesteps=1e6",
    )
    tr.add_argument(
        "--run-dir",
        type=_checked(check_writable_dir),
        help="run folder (default runs/<variant>-<timestamp>, or the checkpoint's run folder "
        "with --resume)",
    )
    tr.add_argument(
        "--resume",
        metavar="CHECKPOINT_OR_RUN",
        type=_checked(_check_resume),
        help="continue training from a model zip, or from a run folder (the model its last "
        "start saved, else its checkpoint of the most steps; a run stopped during its expert "
        "iterations continues them)",
    )


def _more_expert_iterations(folder: Any, config: Any) -> bool:
    """Whether ``train ... --resume RUN`` asks a run whose expert iterations all finished
    (``folder``: its :class:`~fortythieves_agents.run_folder.ExpertFolder`) for more of
    them (``expert.iterations`` above their number): it then continues with the next one,
    and PPO and the final evaluation run again after the last."""
    if not folder.state.is_file():
        return False
    state = folder.read_state()
    return bool(state.get("complete")) and config.expert.iterations > len(
        state.get("iterations", [])
    )


def _train(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from ...family.config import FamilyConfig, config_model
    from ...run_folder import ExpertFolder
    from ...training.train import resume_checkpoint, train

    config = load_config(args.config, args.overrides, model=config_model)
    if isinstance(config, FamilyConfig):  # a family config (configs/family.yaml)
        from .family import train_family_command

        return train_family_command(args, argv, config)
    resume_dir = Path(args.resume) if args.resume is not None else None
    folder = ExpertFolder(RunFolder(resume_dir).expert) if resume_dir is not None else None
    more = folder is not None and _more_expert_iterations(folder, config)
    if folder is not None and resume_dir is not None and (more or folder.unfinished()):
        if args.run_dir is not None and Path(args.run_dir).resolve() != resume_dir.resolve():
            ended = "finished" if more else "stopped during"
            raise ConfigError(
                f"argument --run-dir: {args.resume} {ended} its expert iterations, "
                f"which continue in that folder; drop --run-dir or give {args.resume}"
            )
        if more:  # checked before the state is reopened: a refused command writes nothing
            from ...training.expert import refuse_other_settings

            state = folder.read_state()
            refuse_other_settings(resume_dir, state, config)
            done = len(state["iterations"])
            print(
                f"--resume {args.resume}: its {done} expert iteration(s) finished; "
                f"{config.expert.iterations - done} more, then PPO again",
                flush=True,
            )
            folder.write_state({**state, "complete": False})
        print(f"--resume {args.resume}: continuing its expert iterations", flush=True)
        result = train(
            config,
            run_dir=args.run_dir or resume_dir,
            argv=["fortythieves", *argv],
            console=_console(),
            continue_expert=True,
        )
        return 0 if result.status == "completed" else EXIT_INTERRUPTED
    resume = None
    if args.resume is not None:
        resume = resume_checkpoint(args.resume, note=lambda line: print(line, flush=True))
    if resume is not None and Path(args.resume).is_dir():
        print(f"--resume {args.resume}: continuing from {resume}", flush=True)
    result = train(
        config,
        run_dir=args.run_dir,
        resume=resume,
        argv=["fortythieves", *argv],
        console=_console(),
    )
    return 0 if result.status == "completed" else EXIT_INTERRUPTED
