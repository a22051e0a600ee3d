"""``fortythieves play``: the game's setup from the arguments; the game itself is
:mod:`fortythieves_agents.cli.play`."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from ...config import ConfigError
from ...paths import check_writable_file
from ..options import (
    EPISODES_MAX,
    EXIT_INTERRUPTED,
    SEED_MAX,
    _add_variant_spec,
    _checked,
    _console,
    _int_in,
    _variant,
    resolve_model_path,
)


def _add_play_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """The ``play`` subcommand (:mod:`fortythieves_agents.cli.play`)."""
    from fortythieves_env.rules.pysol import MAX_DEAL

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


def _play(args: argparse.Namespace) -> int:
    """Set the game up (every refusal before the first prompt), then play it."""
    from fortythieves_env.envs.registration import env_id, id_version, versions
    from fortythieves_env.rules.observation import LATEST_VERSION

    from ...evaluation.evaluate import load_model_agent
    from ...networks.model_zip import model_env_id
    from ...players.baselines import GreedyAgent
    from ..play import Game, HintAgent, run, stopped

    hinter: HintAgent = GreedyAgent()
    version = LATEST_VERSION
    if args.hint is not None and args.hint_model is not None:
        raise ConfigError("argument --hint: not with --hint-model")
    if args.hint == "search":
        from ...players.search import SearchHint

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
