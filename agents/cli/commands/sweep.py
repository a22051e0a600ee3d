"""``fortythieves sweep``: settings x seeds as Ray Tune trials
(:mod:`fortythieves_agents.training.sweep`)."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from ...config import ConfigError
from ...paths import check_writable_dir
from ..options import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    WORKERS_MAX,
    _address,
    _checked,
    _console,
    _int_in,
)


def _add_sweep_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """The ``sweep`` subcommand (:mod:`fortythieves_agents.training.sweep`)."""
    sw = sub.add_parser(
        "sweep",
        help="train settings x seeds as Ray Tune trials; a table over seeds and the best config",
    )
    sw.add_argument("config", metavar="CONFIG", nargs="?", help="YAML config (not with --resume)")
    sw.add_argument(
        "--seeds",
        metavar="K",
        type=_int_in(1, 1000),
        help="seeds per setting: the config's seed, seed + 1, ... (required without --resume)",
    )
    sw.add_argument(
        "--grid",
        action="append",
        default=[],
        metavar="KEY.SUB=[V1, V2]",
        help="a config key and its values as a YAML list, e.g. --grid 'ppo.n_epochs=[4, 8]'; "
        "several --grid make the product",
    )
    sw.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY.SUB=VALUE",
        help="override a config value for every trial (YAML syntax)",
    )
    sw.add_argument(
        "--runs-root",
        metavar="DIR",
        type=_checked(check_writable_dir),
        help="where the sweep folder goes (default runs; shared storage on a cluster)",
    )
    sw.add_argument(
        "--cpus-per-trial",
        metavar="N",
        type=_int_in(1, WORKERS_MAX),
        help="Ray CPUs of each trial, also its train.torch_threads (default 1)",
    )
    sw.add_argument(
        "--address",
        type=_address,
        help="the Ray cluster (default: RAY_ADDRESS, else a local Ray on this machine)",
    )
    sw.add_argument(
        "--resume",
        metavar="SWEEP_DIR",
        help="continue a sweep cut short (its unfinished and failed trials)",
    )


def _sweep(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from ...evaluation.distributed import (
        RAY_MISSING,
        cluster_cpus,
        ray_session,
    )

    try:
        import ray.tune  # noqa: F401
    except ImportError:
        raise ConfigError(RAY_MISSING) from None
    from ...training.sweep import (
        plan_sweep,
        read_request,
        render_summary,
        resume_sweep,
        run_sweep,
    )

    command = ["fortythieves", *argv]
    if args.resume is not None:
        given = [
            name
            for name, value in (
                ("CONFIG", args.config),
                ("--seeds", args.seeds),
                ("--grid", args.grid or None),
                ("--set", args.overrides or None),
                ("--runs-root", args.runs_root),
                ("--cpus-per-trial", args.cpus_per_trial),
            )
            if value is not None
        ]
        if given:
            raise ConfigError(
                f"argument --resume: {', '.join(given)} cannot change a sweep; its folder "
                "records them"
            )
        sweep_dir = Path(args.resume).resolve()
        request = read_request(sweep_dir)
        with ray_session(args.address):
            summary = resume_sweep(sweep_dir, command)
    else:
        if args.config is None:
            raise ConfigError("the following arguments are required: CONFIG (or --resume)")
        if args.seeds is None:
            raise ConfigError("the following arguments are required: --seeds")
        from ...run_folder import default_run_dir

        cpus = args.cpus_per_trial or 1
        plan = plan_sweep(args.config, args.overrides, args.grid, args.seeds, cpus)
        root = Path(args.runs_root or "runs").resolve()
        sweep_dir = default_run_dir(f"sweep-{plan.variant}", root)
        with ray_session(args.address) as where:
            if where == "local" and cpus > cluster_cpus():
                raise ConfigError(
                    f"argument --cpus-per-trial: {cpus} CPUs per trial, but the local Ray "
                    f"has {cluster_cpus()}"
                )
            summary = run_sweep(plan, sweep_dir, command)
        request = read_request(sweep_dir)
    console = _console()
    console.print(render_summary(summary, [key for key, _ in request["grid"]]))
    console.print(f"sweep folder: {sweep_dir} (summary.json; run folders in runs/)")
    if summary["best"] is not None:
        console.print(
            f"best setting written as a config: {sweep_dir / 'best_config.yaml'} "
            f"(fortythieves train {sweep_dir / 'best_config.yaml'})"
        )
        return 0
    failed = [t for t in summary["trials"] if t["status"] == "failed"]
    for trial in failed:
        print(
            f"fortythieves sweep: trial {trial['name']} failed: {trial['error']}", file=sys.stderr
        )
    unfinished = summary["total"] - summary["finished"]
    print(
        f"fortythieves sweep: {unfinished} of {summary['total']} trial(s) not finished; "
        f"continue with: fortythieves sweep --resume {shlex.quote(str(sweep_dir))}",
        file=sys.stderr,
    )
    return EXIT_FAILED if failed else EXIT_INTERRUPTED
