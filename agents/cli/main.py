"""The ``fortythieves`` command.

Usage::

    fortythieves train CONFIG [--set KEY.SUB=VALUE ...] [--run-dir DIR]
                       [--resume CHECKPOINT_OR_RUN]
    fortythieves evaluate RUN_OR_MODEL [--episodes N] [--variant V] [--json PATH] [--per-episode]
                          [--baselines [random] [greedy] [search]] [--stochastic] [--seed S]
                          [--search-samples K] [--search-allocation {uniform,halving}]
                          [--search-horizon H] [--search-method {rollouts,solve}]
                          [--search-budget SECONDS] [--search-nodes N]
                          [--no-progress] [--save-games DIR] [--solver-results FILE]
                          [--allow-cycles] [--env-version N] [--ray] [--address ADDRESS]
                          [--variant-spec FILE]
    fortythieves plot RUN [RUN ...] [--out PNG]
    fortythieves replay FILE [--all] [--delay S] [--moves N] [--gif OUT] [--html OUT]
                        [--variant-spec FILE]
    fortythieves solve VARIANT --deals N --nodes K [--budget SECONDS] [--workers W]
                       [--results JSONL] [--json PATH] [--no-progress] [--ray]
                       [--address ADDRESS] [--variant-spec FILE]
    fortythieves play VARIANT [--seed N] [--pysol-deal N] [--max-steps N]
                      [--max-steps-without-progress K] [--hint-model RUN_OR_ZIP]
                      [--hint {greedy,search}] [--save FILE] [--variant-spec FILE]
    fortythieves sweep CONFIG --seeds K [--grid 'KEY.SUB=[V1, V2]' ...] [--set KEY.SUB=VALUE ...]
                       [--runs-root DIR] [--cpus-per-trial N] [--address ADDRESS]
    fortythieves sweep --resume SWEEP_DIR [--address ADDRESS]
    fortythieves family evaluate RUN_OR_MODEL [--episodes N] [--outside M] [--games ID ...]
                                 [--json PATH] (:mod:`fortythieves_agents.cli.family`)

``RUN_OR_MODEL`` is a run folder (its best model, else its final or interrupted model), a
model ``.zip``, or ``random`` / ``greedy`` / ``search`` (then ``--variant`` is required). A
model, or ``search``, is played beside the ``random`` and ``greedy`` baselines on the same
deals unless ``--baselines`` says otherwise; ``random`` or ``greedy`` plays alone unless
``--baselines`` names agents to play beside it. ``search`` is the sampling search agent of
:mod:`fortythieves_agents.players.search`; ``--search-samples``, ``--search-allocation`` and
``--search-horizon``
set its per-move budget; ``--search-method solve`` solves each sampled position with the
solver (hindsight optimisation, ``--search-nodes`` nodes per sample), and
``--search-budget SECONDS`` gives it a time budget per move instead of a sample count
(both imply ``solve``; the budget is turned into samples at a fixed node rate, so the
moves do not depend on the machine, and is recorded in the report's ``settings``).
``solve`` runs the clairvoyant solver on the same test deals (see
:mod:`fortythieves_agents.evaluation.solve`) and
appends each deal's result to ``--results JSONL`` (default ``runs/solver/<variant>.jsonl``:
the shipped ``results/solver/<variant>.jsonl`` is written only when named).
``--ray`` plays (or solves) the deals as Ray tasks, on a local Ray
or the cluster of ``--address`` / ``RAY_ADDRESS``, with the same report (see
:mod:`fortythieves_agents.evaluation.distributed`); ``sweep`` trains settings and seeds as Ray Tune
trials (see :mod:`fortythieves_agents.training.sweep`). ``play`` lets a person play one deal at a
prompt (see :mod:`fortythieves_agents.cli.play`). ``evaluate`` reads the solver's per-deal results
(``--solver-results FILE``, default ``results/solver/<variant>.jsonl``) and reports, for every
agent, its wins among the deals the solver proved winnable ("wins / solver-proved wins"),
only when the file has a record of every deal played: a default file that does not is
skipped with one line on stderr; a FILE given explicitly is refused (exit 2, before any
game is played).

``--variant-spec FILE`` (``play``, ``solve``, ``evaluate``, ``replay``) registers a custom
variant from a YAML file of ``VariantSpec`` fields (or a training config's
``env.custom_variant``) before the arguments are read, so its id works as ``VARIANT`` or
``--variant`` (:func:`fortythieves_agents.config.load_variant_spec`).

Errors: every bad argument, configuration, file or model is refused before any training or
evaluation starts, with one line on stderr naming the argument (or file) and no traceback,
e.g. ``fortythieves evaluate: error: argument --seed: must be an integer in 0..4294967295,
got '-1'`` (argparse's usage line is left out: ``--help`` shows it). A configuration with
several problems gets one line per problem.

Exit codes: 0 success; 1 a sweep with failed trials (``sweep --resume`` runs them again); 2 a
usage, configuration, file or model error; 130 interrupted by
Ctrl-C or SIGTERM: training saves its model first, and an interrupted evaluation (``evaluate``
or the final evaluation of ``train``) prints the command that re-runs it, and an interrupted
``solve`` the command that continues it (the deals already solved are kept), an interrupted
``sweep`` the ``sweep --resume`` command.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import os
import shlex
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from ..config import ConfigError, load_config
from ..paths import check_readable_file, check_writable_dir, check_writable_file
from ..process import stop_signals_interrupt
from ..run_folder import MODEL_NAMES, RunFolder

__all__ = ["build_parser", "main", "resolve_model_path"]

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
SEED_MAX = 2**32 - 1
"""Largest seed (numpy's legacy global seeding, which SB3 uses, takes 32 bits)."""
EPISODES_MAX = 1_000_000_000
"""Most test deals (the size of the test seed range, see :mod:`fortythieves_agents.seeds`)."""
NODES_MAX = 10**15
"""Largest node budget of ``solve``."""
WORKERS_MAX = 1024
"""Most worker processes of ``solve`` (and CPUs per sweep trial)."""
EXIT_FAILED = 1
SEARCH_SAMPLES_MAX = 100_000
"""Most samples per move of the ``search`` agent."""
SEARCH_HORIZON_MAX = 1_000_000
"""Longest rollout of the ``search`` agent."""
DEFAULT_SAMPLES = 16
"""``fortythieves_agents.players.search.DEFAULT_SAMPLES``, restated so ``--help`` imports no numba
(a test checks that they agree)."""
ALLOCATIONS = ("uniform", "halving")
"""``fortythieves_agents.players.search.ALLOCATIONS``, restated for the same reason."""
METHODS = ("rollouts", "solve")
"""``fortythieves_agents.players.search.METHODS``, restated for the same reason."""
DEFAULT_NODES = 1_000
"""``fortythieves_agents.players.search.DEFAULT_NODES``, restated for the same reason."""
DEFAULT_SECONDS = 0.1
"""``fortythieves_agents.players.search.DEFAULT_SECONDS`` (the shipped budget per move), restated
likewise."""
SEARCH_NODES_MAX = 10**9
"""``fortythieves_agents.players.search.MAX_NODES_PER_SAMPLE``, restated for the same reason."""
SEARCH_SECONDS_MAX = 3600.0
"""``fortythieves_agents.players.search.MAX_SECONDS``, restated for the same reason."""
DEFAULT_PRIOR_TOP = 3
"""Candidates the search examines per move with ``--search-prior`` (network + search)."""


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line, ``<prog>: error: <message>``, exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {' '.join(message.split())}\n")


def _int_in(low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type=``: an integer in ``low..high`` (``1e3`` and ``1_000`` accepted)."""

    def parse(text: str) -> int:
        value: int | None
        try:
            value = int(text.replace("_", ""))
        except ValueError:
            try:
                number = float(text)
            except ValueError:
                number = float("nan")
            value = int(number) if number.is_integer() else None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be an integer in {low}..{high}, got {text!r}")
        return value

    parse.__name__ = "integer"
    return parse


def _variant(text: str) -> str:
    """An argparse ``type=``: a registered variant id (imports no torch)."""
    import fortythieves_env

    try:
        fortythieves_env.env_id(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


VARIANT_SPEC_HELP = (
    "a custom variant: a YAML file of VariantSpec fields (or a training config with "
    "env.custom_variant), registered before the other arguments are read, so that its id "
    "works as a variant (repeatable)"
)


def _add_variant_spec(parser: argparse.ArgumentParser) -> None:
    """``--variant-spec FILE`` (read by :func:`_register_variant_specs` before parsing)."""
    parser.add_argument(
        "--variant-spec", metavar="FILE", action="append", default=[], help=VARIANT_SPEC_HELP
    )


def _register_variant_specs(argv: Sequence[str]) -> None:
    """Register the custom variant of every ``--variant-spec FILE`` in ``argv`` (before the
    parser checks variant ids).

    Raises:
        ConfigError: ``argument --variant-spec: FILE: ...`` (the file's problem, one line),
            or its id is already registered as another variant.
    """
    import fortythieves_env

    from ..config import load_variant_spec

    pre = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    pre.add_argument("--variant-spec", action="append", default=[])
    files = pre.parse_known_args(list(argv))[0].variant_spec
    for file in files:
        try:
            fortythieves_env.register_variant(load_variant_spec(file))
        except (ConfigError, ValueError) as exc:
            text = str(exc)
            if not text.startswith(file):
                text = f"{file}: {text}"
            raise ConfigError(f"argument --variant-spec: {text}") from None


def _seconds(text: str) -> float:
    """An argparse ``type=``: a finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0, got {text!r}")
    return value


def _search_seconds(text: str) -> float:
    """An argparse ``type=``: seconds per move of the search, a number in (0, 3600]."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= SEARCH_SECONDS_MAX:
        raise argparse.ArgumentTypeError(
            f"must be a number of seconds in (0, {SEARCH_SECONDS_MAX:g}], got {text!r}"
        )
    return value


def _prior_weight(text: str) -> float:
    """An argparse ``type=``: the weight of the search's guide, a number in [0, 100]."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"must be a number in [0, 100], got {text!r}")
    return value


def _checked(check: Callable[[str, str], None]) -> Callable[[str], str]:
    """An argparse ``type=`` running a :mod:`fortythieves_agents.paths` check (the path is not
    named twice)."""

    def parse(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError("empty path")
        try:
            check(text, "")
        except ConfigError as exc:
            raise argparse.ArgumentTypeError(str(exc).strip()) from None
        return text

    return parse


def _check_resume(path: str, what: str) -> None:
    """``--resume``: a readable model zip, or a run folder holding one
    (:func:`fortythieves_agents.training.train.resume_checkpoint`) or unfinished expert
    iterations."""
    from ..run_folder import ExpertFolder, RunFolder
    from ..training.train import resume_checkpoint

    if Path(path).is_dir() and ExpertFolder(RunFolder(Path(path)).expert).unfinished():
        return
    check_readable_file(resume_checkpoint(path), what, zip_archive=True)


def _check_png(path: str, what: str) -> None:
    """:func:`check_writable_file`, and the name must end in ``.png`` (the plot is a PNG)."""
    if Path(path).suffix.lower() != ".png":
        raise ConfigError(f"{what} {path}: must end in .png (the plot is written as a PNG)")
    check_writable_file(path, what)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``fortythieves`` command (one-line errors, exit 2)."""
    parser = _Parser(
        prog="fortythieves",
        description="Train and evaluate agents on the Forty Thieves patience environments.",
    )
    from fortythieves_env import __version__

    parser.add_argument("--version", action="version", version=f"fortythieves {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    _add_train_parser(sub)
    _add_evaluate_parser(sub)
    _add_plot_parser(sub)
    _add_replay_parser(sub)
    _add_play_parser(sub)
    _add_solve_parser(sub)
    _add_sweep_parser(sub)
    _add_leaderboard_parser(sub)
    from .family import add_family_parser  # fortythieves family (docs/family.md)

    add_family_parser(sub, _int_in, _checked(check_writable_file))
    return parser


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


def _add_evaluate_parser(sub: Any) -> None:
    """``fortythieves evaluate``."""
    ev = sub.add_parser("evaluate", help="evaluate a run, a model or a baseline on the test deals")
    _add_variant_spec(ev)
    ev.add_argument(
        "agent", metavar="RUN_OR_MODEL", help="run folder, model .zip, random, greedy or search"
    )
    ev.add_argument(
        "--episodes",
        type=_int_in(1, EPISODES_MAX),
        default=100,
        help="test deals to play (default 100)",
    )
    ev.add_argument(
        "--variant", type=_variant, help="variant id (required for random/greedy/search)"
    )
    ev.add_argument(
        "--baselines",
        nargs="*",
        default=None,
        choices=["random", "greedy", "search"],
        help="baselines to play on the same deals (default: random greedy beside a model or "
        "search, none beside random or greedy; give none to skip)",
    )
    ev.add_argument(
        "--json",
        dest="json_path",
        metavar="PATH",
        type=_checked(check_writable_file),
        help="also write the report here",
    )
    ev.add_argument("--per-episode", action="store_true", help="include per-deal rows in the JSON")
    ev.add_argument(
        "--stochastic",
        action="store_true",
        help="a model samples its actions (seeded) instead of taking the most likely one",
    )
    ev.add_argument(
        "--seed",
        type=_int_in(0, SEED_MAX),
        default=0,
        help="seed of the random baseline and of --stochastic (default 0)",
    )
    ev.add_argument(
        "--solver-results",
        metavar="FILE",
        help="the solver's per-deal results (JSONL of `fortythieves solve`; default "
        "results/solver/<variant>.jsonl): report each agent's wins among the deals the "
        "solver proved winnable (the file must cover every deal played)",
    )
    _add_search_arguments(ev)
    ev.add_argument(
        "--save-games",
        metavar="DIR",
        type=_checked(check_writable_dir),
        help="write one game record (JSON) per agent and deal to "
        "DIR/<agent>/<variant>-<seed>.json, as each game ends",
    )
    ev.add_argument(
        "--resume",
        action="store_true",
        help="with --save-games DIR: read the deals whose records an interrupted run of the "
        "same command wrote there instead of playing them again (each record replayed and "
        "checked); the report is the one an uninterrupted run writes",
    )
    ev.add_argument(
        "--allow-cycles",
        action="store_true",
        help="switch off the agents' no-cycling rule (by default each agent takes its best "
        "move to a view not yet seen in the episode, and an episode with none ends as stuck)",
    )
    ev.add_argument(
        "--env-version",
        type=_int_in(0, 1),
        help="the id version to play, FortyThieves/<variant>-vN (default: the variant's "
        "newest; LittleForty-v0 for models made before observation version 1)",
    )
    ev.add_argument(
        "--no-progress",
        dest="progress",
        action="store_false",
        help="no progress bar (it is shown on stderr only when stderr is a terminal)",
    )
    _add_ray_arguments(ev, "play the deals as Ray tasks, one per CPU of the Ray cluster")


def _add_search_arguments(ev: Any) -> None:
    """``evaluate``'s options of the search agent (its budget per move)."""
    ev.add_argument(
        "--search-samples",
        metavar="K",
        type=_int_in(1, SEARCH_SAMPLES_MAX),
        default=None,
        help=f"search: positions sampled per move; alone it plays the cheaper rollouts "
        f"setting ({DEFAULT_SAMPLES} with --search-method rollouts; the default is "
        f"--search-budget {DEFAULT_SECONDS})",
    )
    ev.add_argument(
        "--search-allocation",
        choices=ALLOCATIONS,
        default=None,
        help="search: how a move's rollouts or solves are spread over its candidates: uniform "
        "(samples each; the rollouts' default) or halving (sequential halving: the same "
        "number, most on the best candidates; the solving setting's default)",
    )
    ev.add_argument(
        "--search-horizon",
        metavar="H",
        type=_int_in(1, SEARCH_HORIZON_MAX),
        default=None,
        help="search: most moves of one rollout (default: the variant's step limit)",
    )
    ev.add_argument(
        "--search-method",
        choices=METHODS,
        default=None,
        help="search: value a candidate by solving each sampled position with the solver "
        "(solve: hindsight optimisation, the default) or by greedy rollouts (rollouts: "
        "cheaper, weaker)",
    )
    ev.add_argument(
        "--search-budget",
        metavar="SECONDS",
        type=_search_seconds,
        default=None,
        help=f"search: seconds per move (implies --search-method solve; default "
        f"{DEFAULT_SECONDS}; turned into samples at a fixed rate of nodes per second, so the "
        "moves do not depend on the machine); not with --search-samples",
    )
    ev.add_argument(
        "--search-nodes",
        metavar="N",
        type=_int_in(1, SEARCH_NODES_MAX),
        default=None,
        help=f"search: node cap of one sample's solve (implies --search-method solve; default "
        f"{DEFAULT_NODES})",
    )
    ev.add_argument(
        "--search-prior",
        metavar="RUN_OR_MODEL",
        default=None,
        help="search: guide it with this trained network (network + search, named "
        "search+network): each move only the network's --search-prior-top best candidates "
        "are searched, each with the budget's samples for that many",
    )
    ev.add_argument(
        "--search-prior-top",
        metavar="K",
        type=_int_in(1, 1000),
        default=None,
        help=f"search: candidates searched per move with --search-prior (default "
        f"{DEFAULT_PRIOR_TOP}; all with --search-prior-weight)",
    )
    ev.add_argument(
        "--search-prior-weight",
        metavar="W",
        type=_prior_weight,
        default=None,
        help="search: with --search-prior, add W x (the network's log-probability minus its "
        "best) to each candidate's value in the search's cuts and final order, so the network "
        "spreads the samples instead of pruning candidates (the solving setting; default: "
        "prune to --search-prior-top)",
    )


def _add_leaderboard_parser(sub: Any) -> None:
    """``fortythieves leaderboard``."""
    lb = sub.add_parser(
        "leaderboard",
        help="the benchmark's leaderboard rows of evaluation reports (evaluate --json)",
    )
    lb.add_argument(
        "reports",
        metavar="REPORT",
        nargs="+",
        help="evaluation reports (JSON of fortythieves evaluate --json; --per-episode gives "
        "the normalized score against the protocol's solver labels); each is checked field by "
        "field, a refused one is named on stderr and the others still rank (exit code 2)",
    )


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


def _add_solve_parser(sub: Any) -> None:
    """``fortythieves solve``."""
    so = sub.add_parser(
        "solve",
        help="winnability: the clairvoyant solver on the test deals (won / proved lost / unknown)",
    )
    so.add_argument("variant", metavar="VARIANT", type=_variant, help="variant id")
    _add_variant_spec(so)
    so.add_argument(
        "--deals",
        type=_int_in(1, EPISODES_MAX),
        required=True,
        help="test deals to solve (the first N, as evaluate plays them)",
    )
    so.add_argument(
        "--nodes",
        type=_int_in(1, NODES_MAX),
        required=True,
        help="node budget per deal (the deterministic figure of record)",
    )
    so.add_argument(
        "--budget",
        metavar="SECONDS",
        type=_seconds,
        help="wall-clock cap per deal (default none; a deal cut by it is unknown and is "
        "solved again by a re-run with a larger cap)",
    )
    so.add_argument(
        "--workers",
        type=_int_in(1, WORKERS_MAX),
        default=None,
        help="processes (default: all cores)",
    )
    so.add_argument(
        "--results",
        metavar="JSONL",
        type=_checked(check_writable_file),
        help="per-deal results file, appended to (default runs/solver/VARIANT.jsonl; the "
        "shipped results/solver/VARIANT.jsonl is written only when named here)",
    )
    so.add_argument(
        "--json",
        dest="json_path",
        metavar="PATH",
        type=_checked(check_writable_file),
        help="also write the report here",
    )
    so.add_argument(
        "--no-progress",
        dest="progress",
        action="store_false",
        help="no progress bar (it is shown on stderr only when stderr is a terminal)",
    )
    _add_ray_arguments(
        so, "solve the deals as Ray tasks (--workers at once, default: the cluster's CPUs)"
    )


def _address(text: str) -> str:
    """An argparse ``type=``: a Ray address (not empty)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("empty address")
    return text


def _add_ray_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    """``--ray`` and ``--address`` (see :mod:`fortythieves_agents.evaluation.distributed`)."""
    parser.add_argument("--ray", action="store_true", help=what)
    parser.add_argument(
        "--address",
        type=_address,
        help="the Ray cluster to use with --ray (default: RAY_ADDRESS, else a local Ray)",
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


def _add_replay_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """The ``replay`` subcommand (game records, :mod:`fortythieves_env.records`)."""
    rp = sub.add_parser(
        "replay",
        help="check a game record and show it move by move (text, --gif, --html)",
    )
    rp.add_argument(
        "file",
        metavar="FILE",
        help="a game record, written by evaluate --save-games or play --save",
    )
    _add_variant_spec(rp)
    rp.add_argument("--all", action="store_true", help="print every position at once (no waiting)")
    rp.add_argument(
        "--delay",
        type=float,
        metavar="S",
        help="show the next position after S seconds (default: on each Enter key)",
    )
    rp.add_argument(
        "--moves",
        type=_int_in(0, 10**9),
        metavar="N",
        help="show only the first N moves (the whole record is still checked)",
    )
    rp.add_argument(
        "--gif",
        metavar="OUT",
        type=_checked(check_writable_file),
        help="write an animated GIF of the table (4 positions/s) instead of the text",
    )
    rp.add_argument(
        "--html",
        metavar="OUT",
        type=_checked(check_writable_file),
        help="write a self-contained HTML page that steps through the game",
    )


def _add_play_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """The ``play`` subcommand (:mod:`fortythieves_agents.cli.play`)."""
    from fortythieves_env.pysol import MAX_DEAL

    pl = sub.add_parser("play", help="play a deal yourself in the terminal")
    pl.add_argument("variant", metavar="VARIANT", type=_variant, help="variant id")
    _add_variant_spec(pl)
    deal = pl.add_mutually_exclusive_group()
    deal.add_argument(
        "--seed",
        metavar="N",
        type=_int_in(0, SEED_MAX),
        help="the deal reset(seed=N) (default: a random seed, shown in the header)",
    )
    deal.add_argument(
        "--pysol-deal",
        metavar="N",
        type=_int_in(1, MAX_DEAL),
        help="PySolFC's game number N (needs the pysol extra; not Lucas)",
    )
    pl.add_argument(
        "--max-steps",
        metavar="N",
        type=_int_in(1, EPISODES_MAX),
        help="step limit (default: the variant's, 1000; 1500 for Little Forty)",
    )
    pl.add_argument(
        "--max-steps-without-progress",
        metavar="K",
        type=_int_in(1, EPISODES_MAX),
        help="end the game after K moves in a row without progress (default: never)",
    )
    pl.add_argument(
        "--hint",
        choices=("greedy", "search"),
        default=None,
        help="who gives hints: greedy (the default) or search (the search agent solving "
        "sampled deals, about half a second per hint); not with --hint-model",
    )
    pl.add_argument(
        "--hint-model",
        metavar="RUN_OR_ZIP",
        help="hints from this trained model (run folder or .zip) instead of greedy",
    )
    pl.add_argument(
        "--save",
        metavar="FILE",
        type=_checked(check_writable_file),
        help="write a game record (fortythieves replay FILE) when the game ends, or one "
        "marked unfinished when you stop first",
    )


def resolve_model_path(target: Path) -> Path:
    """The model zip a run folder or path stands for.

    Raises:
        ConfigError: nothing usable at ``target``.
    """
    if target.is_file():
        return target
    if target.is_dir():
        for folder in (RunFolder(target).models, target):
            for name in MODEL_NAMES:
                if (folder / name).is_file():
                    return folder / name
        raise ConfigError(f"{target}: no model found (looked for {', '.join(MODEL_NAMES)})")
    if target.exists():  # a FIFO, a device, a socket
        from fortythieves_env._files import file_kind

        kind = file_kind(target.stat().st_mode)
        raise ConfigError(f"{target}: {kind}, not a run folder or a model file")
    raise ConfigError(f"{target}: no such run folder or model file")


PIPED_WIDTH = 160
"""Characters per line of the commands' output when it is not a terminal and ``COLUMNS`` does
not say (rich would cut its tables to 80 columns)."""

MIN_WIDTH = 40
"""A ``COLUMNS`` below this (or not a number) is ignored: rich prints nothing at 0 and empty
table cells at a few columns."""


def _console(**kwargs: Any) -> Any:
    """The ``rich`` console the commands print with (``soft_wrap``): ``COLUMNS`` wide when it
    is a number of at least :data:`MIN_WIDTH`, else the terminal's width, or
    :data:`PIPED_WIDTH` when the output is not a terminal."""
    from rich.console import Console

    raw = os.environ.get("COLUMNS", "").strip()
    width = int(raw) if raw.isdecimal() and raw.isascii() else 0
    if width < MIN_WIDTH:
        try:
            width = os.get_terminal_size(sys.stdout.fileno()).columns
        except (OSError, ValueError, AttributeError):  # not a terminal (or no fileno)
            width = PIPED_WIDTH
        width = width if width >= MIN_WIDTH and sys.stdout.isatty() else PIPED_WIDTH
    return Console(width=width, soft_wrap=True, **kwargs)


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
    from ..family.config import FamilyConfig, config_model
    from ..run_folder import ExpertFolder, RunFolder
    from ..training.train import resume_checkpoint, train

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
            from ..training.expert import refuse_other_settings

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


def _write_report(path: Path, report: dict[str, object]) -> None:
    """Write the JSON report (its folder created if missing).

    Raises:
        ConfigError: the file cannot be written (the report then goes to stdout, so the
            evaluation is not lost).
    """
    text = json.dumps(report, indent=2) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        sys.stdout.write(text)
        raise ConfigError(
            f"argument --json: {path}: cannot write the report ({exc.strerror or exc}); "
            "it was printed to stdout instead"
        ) from None


@contextlib.contextmanager
def _maybe_ray(args: argparse.Namespace) -> Iterator[Any]:
    """With ``--ray``: a Ray session for the block, yielding ``evaluate``'s ``play`` (deals
    split across one task per cluster CPU); else None. ``--address`` needs ``--ray``."""
    if not args.ray:
        if args.address is not None:
            raise ConfigError("argument --address: only with --ray")
        yield None
        return
    from ..evaluation.distributed import (
        cluster_cpus,
        ray_play_deals,
        ray_session,
    )

    with ray_session(args.address, quiet=True):  # Ray's messages would precede the table
        yield functools.partial(ray_play_deals, workers=cluster_cpus())


@dataclass(frozen=True)
class _GuidedBudget:
    """The search's budget and its guide (``--search-prior``) together."""

    budget: Any
    prior: Any
    top: int
    weight: float = 0.0


def _make_agent(make: Callable[..., Any], name: str, seed: int, budget: Any) -> Any:
    """``make(name, seed)``, with the search budget (and guide) for ``search`` only."""
    if name != "search":
        return make(name, seed)
    if isinstance(budget, _GuidedBudget):
        from ..players.search import SearchAgent

        return SearchAgent(
            seed,
            budget.budget,
            prior=budget.prior,
            prior_top=budget.top,
            prior_weight=budget.weight,
        )
    return make(name, seed, budget)


def _search_prior(args: argparse.Namespace, variant: str) -> tuple[Any, int, float]:
    """The network of ``--search-prior`` (a deterministic ModelAgent) for ``variant``, the
    candidates searched and the prior's weight."""
    from ..evaluation.evaluate import load_model_agent
    from ..networks.model_zip import ModelMismatchError

    try:
        path = resolve_model_path(Path(args.search_prior))
    except ConfigError as exc:
        raise ConfigError(f"argument --search-prior: {exc}") from None
    try:
        network, _ = load_model_agent(path, variant, deterministic=True, seed=args.seed)
    except (ConfigError, ModelMismatchError) as exc:
        raise ConfigError(f"argument --search-prior: {exc}") from None
    weight = args.search_prior_weight or 0.0
    top = args.search_prior_top or (0 if weight > 0.0 else DEFAULT_PRIOR_TOP)
    return network, top, weight


def _search_budget(args: argparse.Namespace) -> Any:
    """The :class:`fortythieves_agents.players.search.SearchBudget` of ``evaluate``'s search
    options.

    Raises:
        ConfigError: ``--search-budget`` with ``--search-samples``, or ``--search-budget``
            or ``--search-nodes`` with ``--search-method rollouts``.
    """
    from ..players.search import SearchBudget

    method = args.search_method
    solving = [
        name
        for name, value in (
            ("--search-budget", args.search_budget),
            ("--search-nodes", args.search_nodes),
        )
        if value is not None
    ]
    if method == "rollouts" and solving:
        raise ConfigError(
            f"argument {solving[0]}: only with --search-method solve (rollouts take "
            "--search-samples, --search-allocation and --search-horizon)"
        )
    if args.search_budget is not None and args.search_samples is not None:
        raise ConfigError(
            "argument --search-budget: not with --search-samples (the budget sets the samples)"
        )
    if method is None:  # the solving setting unless samples alone ask for rollouts
        method = "rollouts" if args.search_samples is not None and not solving else "solve"
    seconds = args.search_budget
    if method == "solve" and seconds is None and args.search_samples is None:
        seconds = DEFAULT_SECONDS  # the shipped default budget
    return SearchBudget(
        samples=args.search_samples or DEFAULT_SAMPLES,
        horizon=args.search_horizon,
        allocation=args.search_allocation,
        method=method,
        nodes=args.search_nodes or DEFAULT_NODES,
        seconds=seconds,
    )


def _checked_search_options(args: argparse.Namespace) -> Any:
    """The search's budget (:func:`_search_budget`) when ``evaluate`` plays the search agent
    (as ``RUN_OR_MODEL`` or among ``args.baselines``), else None.

    Raises:
        ConfigError: a search option without the search agent, or ``--search-prior-top`` /
            ``--search-prior-weight`` without ``--search-prior``.
    """
    options = (
        args.search_samples,
        args.search_horizon,
        args.search_allocation,
        args.search_method,
        args.search_budget,
        args.search_nodes,
        args.search_prior,
        args.search_prior_top,
        args.search_prior_weight,
    )
    budget = None
    if args.agent == "search" or "search" in args.baselines:
        budget = _search_budget(args)
    elif options != (None,) * len(options):
        raise ConfigError(
            "--search-samples, --search-allocation, --search-horizon, --search-method, "
            "--search-budget, --search-nodes, --search-prior, --search-prior-top and "
            "--search-prior-weight are options of the search agent, which this evaluation "
            "does not play"
        )
    for given, flag in ((args.search_prior_top, "top"), (args.search_prior_weight, "weight")):
        if given is not None and args.search_prior is None:
            raise ConfigError(f"argument --search-prior-{flag}: only with --search-prior MODEL")
    return budget


def _evaluate(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from fortythieves_env.records import RecordError

    from ..evaluation.evaluate import (
        evaluate_agents,
        load_model_agent,
        render_table,
    )
    from ..players.baselines import AGENT_NAMES, make_baseline

    if args.resume and not args.save_games:
        raise ConfigError(
            "--resume needs --save-games DIR: the folder of the interrupted run's game records"
        )
    # beside a model or the search agent the baselines default to random and greedy; random
    # or greedy plays alone unless --baselines names some
    if args.baselines is None:
        alone = args.agent in ("random", "greedy")
        args.baselines = [] if alone else ["random", "greedy"]
    budget = _checked_search_options(args)
    if args.agent in AGENT_NAMES:
        if args.variant is None:
            raise ConfigError(
                f"--variant is required when RUN_OR_MODEL is a baseline ({args.agent})"
            )
        if args.search_prior is not None:
            budget = _GuidedBudget(budget, *_search_prior(args, args.variant))
        agent = _make_agent(make_baseline, args.agent, args.seed, budget)
        variant = args.variant
        model_path = None
    else:
        try:
            model_path = resolve_model_path(Path(args.agent))
        except ConfigError as exc:
            raise ConfigError(f"argument RUN_OR_MODEL: {exc}") from None
        from ..family.agents import is_family_model, load_family_agent

        load = load_family_agent if is_family_model(model_path) else load_model_agent
        agent, variant = load(  # a family network plays through the shared encoding
            model_path,
            args.variant,
            deterministic=not args.stochastic,
            seed=args.seed,
            env_version=args.env_version,
        )
    if args.search_prior is not None and not isinstance(budget, _GuidedBudget):
        budget = _GuidedBudget(budget, *_search_prior(args, variant))  # the search baseline's
    agents = [agent]
    agents += [  # on the same deals
        _make_agent(make_baseline, name, args.seed, budget)
        for name in dict.fromkeys(args.baselines)
        if name != args.agent
    ]
    solver = _solver_verdicts(args.solver_results, variant, args.episodes)
    progress = args.progress and sys.stderr.isatty()
    try:
        with stop_signals_interrupt(), _maybe_ray(args) as play:
            report = evaluate_agents(
                agents,
                variant,
                args.episodes,
                per_episode=args.per_episode,
                progress=progress,
                save_games=args.save_games,
                resume=args.resume,
                play=play,
                solver=solver,
                allow_cycles=args.allow_cycles,
                env_version=args.env_version,
                timing=True,
                on_note=_resume_note,
            )
    except RecordError as exc:  # --resume and a record that is not this run's
        raise ConfigError(f"--resume: {exc}") from None
    except KeyboardInterrupt:
        if args.save_games:
            again = [*argv] if args.resume else [*argv, "--resume"]
            print(
                f"fortythieves evaluate: interrupted, no report written; the games that ended "
                f"are saved in {args.save_games}; continue with: "
                + shlex.join(["fortythieves", *again]),
                file=sys.stderr,
            )
        else:
            print(
                "fortythieves evaluate: interrupted, nothing written; re-run with: "
                + shlex.join(["fortythieves", *argv]),
                file=sys.stderr,
            )
        return EXIT_INTERRUPTED
    if model_path is not None:
        report["model"] = str(model_path)
    console = _console()
    if model_path is not None:
        console.print(f"model: {model_path}")
    console.print(render_table(report))
    if args.json_path:
        _write_report(Path(args.json_path), report)
        console.print(f"report written to {args.json_path}")
    if args.save_games:
        console.print(f"game records written to {args.save_games}/<agent>/")
    return 0


def _resume_note(note: str) -> None:
    """``evaluate --resume``: one line on stderr per agent with saved records played again."""
    print(f"fortythieves evaluate: --resume: {note}", file=sys.stderr)


def _solver_verdicts(given: str | None, variant: str, episodes: int) -> dict[int, str] | None:
    """:func:`fortythieves_agents.evaluation.solve.test_deal_verdicts`, an explicitly given file's
    fault as a :class:`ConfigError` naming ``--solver-results``."""
    from ..evaluation.solve import SolverResultsError, test_deal_verdicts

    try:
        return test_deal_verdicts(variant, episodes, given)
    except SolverResultsError as exc:
        raise ConfigError(f"argument --solver-results: {exc}") from None


def _warm_up_solver(variant: str) -> None:
    """Compile (or load) the solver's kernels before the deals
    (:func:`fortythieves_agents.evaluation.solve.warm_up`), saying so on stderr only when
    numba actually compiles, and then how long it took: that time is not in the per-deal
    times."""
    from ..evaluation.solve import warm_up
    from ..process import compile_notice

    def say() -> None:
        print(
            "fortythieves solve: compiling the solver's kernels (the first run after an "
            "install or an update; up to a minute or two, cached for later runs)",
            file=sys.stderr,
            flush=True,
        )

    with compile_notice(say) as watch:
        warm_up(variant)
    if watch.compiled:
        print(
            f"fortythieves solve: compiled in {watch.seconds:.0f} s "
            "(not counted in the per-deal times)",
            file=sys.stderr,
            flush=True,
        )


def _solve(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from ..evaluation.solve import (
        SolverResultsError,
        default_results_path,
        default_workers,
        foreign_rules_note,
        make_report,
        read_records,
        render_table,
        run_deals,
        shipped_results_path,
    )

    try:
        import fortythieves_env.solver  # noqa: F401  (needs numba)
    except ImportError as exc:
        raise ConfigError(f"the solver needs numba ({exc}); pip install numba") from None
    path = Path(args.results) if args.results else default_results_path(args.variant)
    check_writable_file(path, "argument --results:")
    try:
        records = read_records(path)[0]  # a damaged file is refused before any work
    except SolverResultsError as exc:
        raise ConfigError(f"argument --results: {exc}") from None
    from ..seeds import seeds_for_test

    note = foreign_rules_note(path, records, args.variant, seeds_for_test(args.deals), args.nodes)
    if note:  # records of other rules do not count as done
        print(f"fortythieves solve: {note}", file=sys.stderr)
    if args.address is not None and not args.ray:
        raise ConfigError("argument --address: only with --ray")
    workers = args.workers if args.workers is not None else default_workers()
    progress = args.progress and sys.stderr.isatty()
    saved = 0

    def count(n: int) -> None:
        nonlocal saved
        saved = n

    try:
        with stop_signals_interrupt(), contextlib.ExitStack() as stack:
            map_unordered = None
            if args.ray:
                from ..evaluation.distributed import (
                    cluster_cpus,
                    ray_map_unordered,
                    ray_session,
                )

                stack.enter_context(ray_session(args.address, quiet=True))
                workers = args.workers if args.workers is not None else cluster_cpus()
                map_unordered = functools.partial(ray_map_unordered, in_flight=workers)
            run = run_deals(
                args.variant,
                args.deals,
                args.nodes,
                args.budget,
                workers=workers,
                results_path=path,
                progress=progress,
                on_saved=count,
                map_unordered=map_unordered,
                before_first=functools.partial(_warm_up_solver, args.variant),
            )
    except KeyboardInterrupt:
        print(
            f"fortythieves solve: interrupted; {saved} deal(s) solved in this run are saved in "
            f"{path}; continue with: " + shlex.join(["fortythieves", *argv]),
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    except OSError as exc:
        raise ConfigError(f"argument --results: {path}: cannot write ({exc})") from None
    report = make_report(run, args.variant, args.nodes, args.budget, path, workers)
    console = _console()
    console.print(render_table(report))
    console.print(
        f"per-deal results: {path} ({run.solved} solved now, "
        f"{report['deals'] - run.solved} already there)"
    )
    if path.resolve() != shipped_results_path(args.variant).resolve():
        console.print(
            f"evaluate reads {shipped_results_path(args.variant)} for its solver column; "
            f"give it these with --solver-results {path}"
        )
    if args.json_path:
        _write_report(Path(args.json_path), report)
        console.print(f"report written to {args.json_path}")
    return 0


def _sweep(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from ..evaluation.distributed import (
        RAY_MISSING,
        cluster_cpus,
        ray_session,
    )

    try:
        import ray.tune  # noqa: F401
    except ImportError:
        raise ConfigError(RAY_MISSING) from None
    from ..training.sweep import (
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
        from ..training.train import default_run_dir

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


def _leaderboard(args: argparse.Namespace) -> int:
    """Print the leaderboard of the given reports (Markdown, ranked as ``docs/protocol.md``
    ranks): scored against ``results/solver/`` under the working folder when it is there,
    else against the labels shipped with the package, never against a report's own
    ``solver_ceiling``. Each report is checked field by field first
    (:mod:`fortythieves_agents.evaluation.report_schema`): a refused one gets one line on
    stderr naming the file and the field, the others still rank, and the exit code is
    :data:`EXIT_USAGE`."""
    from ..evaluation.leaderboard import ReportError, leaderboard_table, rows_of

    solver_dir = Path("results") / "solver"
    refused: list[ReportError] = []
    rows = rows_of(args.reports, solver_dir if solver_dir.is_dir() else None, refused=refused)
    if rows or not refused:
        print(leaderboard_table(rows))
    for exc in refused:
        print(f"fortythieves leaderboard: error: {exc}", file=sys.stderr)
    return EXIT_USAGE if refused else 0


def _plot(args: argparse.Namespace) -> int:
    from ..training.plot import PlotError, plot_runs

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


def _replay(args: argparse.Namespace) -> int:
    """Check the record (refused: one-line error), then show or write it."""
    import time

    from fortythieves_env.records import (
        RecordError,
        boards,
        describe,
        load_record,
        verify,
        write_gif,
        write_html,
    )

    if args.delay is not None and not args.delay >= 0:
        raise ConfigError(f"argument --delay: must be a number of seconds >= 0, got {args.delay}")
    try:
        record = load_record(args.file)
        verify(record)
        if args.gif or args.html:
            for path, write in ((args.gif, write_gif), (args.html, write_html)):
                if path:
                    shown = write(record, path, moves=args.moves)
                    print(f"{shown} positions written to {path}")
            print(describe(record))
            return 0
        interactive = not args.all and args.delay is None and sys.stdin.isatty()
        n = len(record.moves)
        for k, (move, text) in enumerate(boards(record, "ansi", args.moves)):
            print("start" if move is None else f"move {k}/{n}: {move}")
            print(text)
            if k == min(n, n if args.moves is None else args.moves):
                break
            if interactive:
                if input("[Enter: next move, q: quit] ").strip().lower() == "q":
                    return 0
            elif args.delay:
                time.sleep(args.delay)
    except RecordError as exc:
        message = str(exc)  # every refusal names the record's file
        if not message.startswith(str(args.file)):
            message = f"{args.file}: {message}"
        raise ConfigError(message) from None
    except OSError as exc:
        raise ConfigError(f"cannot write: {exc}") from None
    print(describe(record))
    return 0


def _play(args: argparse.Namespace) -> int:
    """Set the game up (every refusal before the first prompt), then play it."""
    from fortythieves_env.observation import LATEST_VERSION
    from fortythieves_env.registration import env_id, id_version, versions

    from ..evaluation.evaluate import load_model_agent
    from ..networks.model_zip import model_env_id
    from ..players.baselines import GreedyAgent
    from .play import Game, HintAgent, run, stopped

    hinter: HintAgent = GreedyAgent()
    version = LATEST_VERSION
    if args.hint is not None and args.hint_model is not None:
        raise ConfigError("argument --hint: not with --hint-model")
    if args.hint == "search":
        from ..players.search import SearchHint

        hinter = SearchHint()
    if args.hint_model is not None:
        try:
            model_path = resolve_model_path(Path(args.hint_model))
        except ConfigError as exc:
            raise ConfigError(f"argument --hint-model: {exc}") from None
        # a model made for an older id of this variant (LittleForty-v0) reads that version
        made_for = model_env_id(model_path)
        env_version = None
        if (
            made_for is not None
            and made_for.rpartition("-v")[0] == (env_id(args.variant).rpartition("-v")[0])
        ):
            with contextlib.suppress(ValueError):
                if id_version(made_for) in versions(args.variant):
                    env_version = version = id_version(made_for)
        hinter, _ = load_model_agent(model_path, args.variant, env_version=env_version)
    try:
        game = Game(
            args.variant,
            seed=args.seed,
            pysol_deal=args.pysol_deal,
            max_steps=args.max_steps,
            max_steps_without_progress=args.max_steps_without_progress,
            observation_version=version,
        )
    except (ValueError, ImportError) as exc:  # PySolFC's deals: Lucas, no pysol-cards
        where = "argument --pysol-deal: " if args.pysol_deal is not None else ""
        raise ConfigError(f"{where}{exc}") from None
    console = _console(highlight=False)
    interactive = sys.stdin.isatty()
    if interactive:
        with contextlib.suppress(ImportError):  # not on every platform
            import readline  # noqa: F401  (line editing and history for input())

    def read(prompt: str) -> str | None:
        try:
            return console.input(prompt)
        except EOFError:
            return None

    try:
        return run(game, console, read, hinter, save=args.save, echo=not interactive)
    except KeyboardInterrupt:
        if game.end is None:  # the moves played, and the unfinished record with --save
            console.print("\ninterrupted", markup=False)
            stopped(game, console, args.save)
        return EXIT_INTERRUPTED


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit code (also used by the console script).

    Every error is printed as one ``fortythieves[ <command>]: error: ...`` line on stderr and
    returned as 2 (``--help`` returns 0); nothing raises ``SystemExit``.
    """
    from ..networks.model_zip import ModelMismatchError

    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    if command in ("play", "solve", "evaluate", "replay"):
        try:
            _register_variant_specs(argv)
        except ConfigError as exc:
            print(f"fortythieves {command}: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # a usage error (already printed) or --help
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    prog = f"fortythieves {args.command}"
    try:
        if args.command == "train":
            return _train(args, argv)
        if args.command == "plot":
            return _plot(args)
        if args.command == "replay":
            return _replay(args)
        if args.command == "solve":
            return _solve(args, argv)
        if args.command == "play":
            return _play(args)
        if args.command == "sweep":
            return _sweep(args, argv)
        if args.command == "leaderboard":
            return _leaderboard(args)
        if args.command == "family":
            from .family import family_command

            return family_command(args, argv)
        return _evaluate(args, argv)
    except (ConfigError, ModelMismatchError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
