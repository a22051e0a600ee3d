"""The ``fortythieves`` command.

Usage::

    fortythieves train CONFIG [--set KEY.SUB=VALUE ...] [--run-dir DIR] [--resume CHECKPOINT]
    fortythieves evaluate RUN_OR_MODEL [--episodes N] [--variant V] [--json PATH] [--per-episode]
                          [--baselines [random] [greedy]]

``RUN_OR_MODEL`` is a run folder (its best model, else its final or interrupted model), a
model ``.zip``, or ``random`` / ``greedy`` (then ``--variant`` is required). A model is
played beside the ``random`` and ``greedy`` baselines on the same deals unless
``--baselines`` says otherwise.

Exit codes: 0 success; 2 a usage, configuration or model-mismatch error (one line on stderr,
no traceback); 130 training interrupted by Ctrl-C (the model is saved first).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .config import ConfigError, load_config

__all__ = ["build_parser", "main", "resolve_model_path"]

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
_MODEL_NAMES = ("best_model.zip", "final_model.zip", "interrupted_model.zip")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``fortythieves`` command."""
    parser = argparse.ArgumentParser(
        prog="fortythieves",
        description="Train and evaluate agents on the Forty Thieves patience environments.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    tr = sub.add_parser("train", help="train MaskablePPO from a config file")
    tr.add_argument("config", help="YAML config, e.g. configs/streets.yaml")
    tr.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY.SUB=VALUE",
        help="override a config value (YAML syntax), e.g. --set train.total_timesteps=1e6",
    )
    tr.add_argument("--run-dir", help="run folder (default runs/<variant>-<timestamp>)")
    tr.add_argument("--resume", metavar="CHECKPOINT", help="continue training from a model zip")

    ev = sub.add_parser("evaluate", help="evaluate a run, a model or a baseline on the test deals")
    ev.add_argument(
        "agent", metavar="RUN_OR_MODEL", help="run folder, model .zip, random or greedy"
    )
    ev.add_argument("--episodes", type=int, default=100, help="test deals to play (default 100)")
    ev.add_argument("--variant", help="variant id (required for random/greedy)")
    ev.add_argument(
        "--baselines",
        nargs="*",
        default=["random", "greedy"],
        choices=["random", "greedy"],
        help="baselines to play on the same deals beside a model (default: random greedy; "
        "give none to skip)",
    )
    ev.add_argument("--json", dest="json_path", metavar="PATH", help="also write the report here")
    ev.add_argument("--per-episode", action="store_true", help="include per-deal rows in the JSON")
    ev.add_argument(
        "--stochastic",
        action="store_true",
        help="a model samples its actions (seeded) instead of taking the most likely one",
    )
    ev.add_argument(
        "--seed", type=int, default=0, help="seed of the random baseline and of --stochastic"
    )
    return parser


def resolve_model_path(target: Path) -> Path:
    """The model zip a run folder or path stands for.

    Raises:
        ConfigError: nothing usable at ``target``.
    """
    if target.is_file():
        return target
    if target.is_dir():
        for folder in (target / "models", target):
            for name in _MODEL_NAMES:
                if (folder / name).is_file():
                    return folder / name
        raise ConfigError(f"{target}: no model found (looked for {', '.join(_MODEL_NAMES)})")
    raise ConfigError(f"{target}: no such run folder or model file")


def _train(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from .train import train

    config = load_config(args.config, args.overrides)
    result = train(
        config,
        run_dir=args.run_dir,
        resume=args.resume,
        argv=["fortythieves", *argv],
    )
    return EXIT_INTERRUPTED if result.status == "interrupted" else 0


def _evaluate(args: argparse.Namespace) -> int:
    from rich.console import Console

    from .baselines import BASELINES, make_baseline
    from .envs import env_id_for
    from .evaluation import evaluate_agents, load_model_agent, render_table

    if args.episodes < 1:
        raise ConfigError(f"--episodes must be at least 1, got {args.episodes}")
    if args.agent in BASELINES:
        if args.variant is None:
            raise ConfigError(f"evaluate {args.agent}: --variant is required for a baseline")
        env_id_for(args.variant)  # refuse an unknown variant early
        agent = make_baseline(args.agent, args.seed)
        variant = args.variant
        model_path = None
    else:
        model_path = resolve_model_path(Path(args.agent))
        agent, variant = load_model_agent(
            model_path, args.variant, deterministic=not args.stochastic, seed=args.seed
        )
    agents = [agent]
    if model_path is not None:  # the baselines play the same deals beside the model
        agents += [make_baseline(name, args.seed) for name in args.baselines]
    report = evaluate_agents(agents, variant, args.episodes, per_episode=args.per_episode)
    if model_path is not None:
        report["model"] = str(model_path)
    console = Console(soft_wrap=True)
    if model_path is not None:
        console.print(f"model: {model_path}")
    console.print(render_table(report))
    if args.json_path:
        path = Path(args.json_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        console.print(f"report written to {path}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit code (also used by the console script)."""
    from .evaluation import ModelMismatchError

    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    try:
        if args.command == "train":
            return _train(args, argv)
        return _evaluate(args)
    except (ConfigError, ModelMismatchError) as exc:
        print(f"fortythieves: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("fortythieves: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
