"""The ``fortythieves`` command.

Usage::

    fortythieves train CONFIG [--set KEY.SUB=VALUE ...] [--run-dir DIR]
                       [--resume CHECKPOINT_OR_RUN]
    fortythieves evaluate RUN_OR_MODEL [--episodes N] [--variant V] [--json PATH] [--per-episode]
                          [--first-deal I] [--baselines [random] [greedy] [search]]
                          [--stochastic] [--seed S] [--search-samples K]
                          [--search-allocation {uniform,halving,ucb}]
                          [--search-arms {moves,irreversible}] [--search-leaf {cards,learned}]
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
                                 [--json PATH] (:mod:`fortythieves_agents.cli.commands.family`)

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
import sys
from collections.abc import Sequence

from ..config import ConfigError
from ..players.search_budget import ALLOCATIONS as ALLOCATIONS
from ..players.search_budget import DEFAULT_SAMPLES as DEFAULT_SAMPLES
from ..players.search_budget import DEFAULT_SECONDS as DEFAULT_SECONDS
from .commands.evaluate import _add_evaluate_parser, _evaluate
from .commands.evaluate import _search_budget as _search_budget
from .commands.leaderboard import _add_leaderboard_parser, _leaderboard
from .commands.play import _add_play_parser, _play
from .commands.plot import _add_plot_parser, _plot
from .commands.replay import _add_replay_parser, _replay
from .commands.solve import _add_solve_parser, _solve
from .commands.sweep import _add_sweep_parser, _sweep
from .commands.train import _add_train_parser, _train
from .options import (
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    _Parser,
    _register_variant_specs,
    resolve_model_path,
)
from .options import PIPED_WIDTH as PIPED_WIDTH
from .options import _console as _console

# re-exported as ``X as X`` (ALLOCATIONS, DEFAULT_SAMPLES, DEFAULT_SECONDS, _search_budget,
# PIPED_WIDTH, _console): read from here before each command had a module of its own
__all__ = ["build_parser", "main", "resolve_model_path"]


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
    from ..paths import check_writable_file
    from .commands.family import add_family_parser  # fortythieves family (docs/family.md)
    from .options import _checked, _int_in

    add_family_parser(sub, _int_in, _checked(check_writable_file))
    return parser


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
            from .commands.family import family_command

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
