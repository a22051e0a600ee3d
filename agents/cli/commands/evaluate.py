"""``fortythieves evaluate``: a run, a model or a baseline on the test deals
(:func:`fortythieves_agents.evaluation.evaluate.evaluate_agents`), with the search agent's
options."""

from __future__ import annotations

import argparse
import contextlib
import functools
import shlex
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...config import ConfigError
from ...paths import check_writable_dir, check_writable_file, portable_path
from ...players.search_budget import (
    ALLOCATIONS,
    ARMS,
    DEFAULT_NODES,
    DEFAULT_PRIOR_TOP,
    DEFAULT_SAMPLES,
    DEFAULT_SECONDS,
    LEAVES,
    MAX_NODES_PER_SAMPLE,
    MAX_SECONDS,
    METHODS,
)
from ...process import stop_signals_interrupt
from ..options import (
    EPISODES_MAX,
    EXIT_INTERRUPTED,
    SEED_MAX,
    _add_ray_arguments,
    _add_variant_spec,
    _checked,
    _console,
    _int_in,
    _variant,
    _write_report,
    resolve_model_path,
)

SEARCH_SAMPLES_MAX = 100_000
"""Most samples per move of the ``search`` agent."""


SEARCH_HORIZON_MAX = 1_000_000
"""Longest rollout of the ``search`` agent."""


def _search_seconds(text: str) -> float:
    """An argparse ``type=``: seconds per move of the search, a number in (0, 3600]."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"must be a number of seconds in (0, {MAX_SECONDS:g}], got {text!r}"
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
        "--first-deal",
        type=_int_in(0, EPISODES_MAX - 1),
        default=0,
        metavar="I",
        help="play the test deals from deal I (seed 2_000_000_000 + I; default 0: the first "
        "ones, the protocol's): a confirmatory run on deals no earlier evaluation played; "
        "the leaderboard ranks reports from deal 0 only",
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
        "(samples each; the rollouts' default), halving (sequential halving: the same "
        "number, most on the best candidates; the solving setting's default) or ucb (a UCB1 "
        "bandit, C=2, batches of 10, at most halving's solves; implies --search-method solve)",
    )
    ev.add_argument(
        "--search-arms",
        choices=ARMS,
        default=None,
        help="search: the arms of --search-allocation ucb: moves (the candidate moves, the "
        "default) or irreversible (lonelybot's: a path of reversible column moves and the "
        "irreversible move it leads to, the chosen arm's first move played; implies "
        "--search-allocation ucb)",
    )
    ev.add_argument(
        "--search-leaf",
        choices=LEAVES,
        default=None,
        help="search: the value of a sample whose solve runs out of nodes: cards (the best "
        "line's foundation cards / 208, the default) or learned (the variant's fitted "
        "prediction of a deeper solve; only variants with one, solving setting only)",
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
        type=_int_in(1, MAX_NODES_PER_SAMPLE),
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


@contextlib.contextmanager
def _maybe_ray(args: argparse.Namespace) -> Iterator[Any]:
    """With ``--ray``: a Ray session for the block, yielding ``evaluate``'s ``play`` (deals
    split across one task per cluster CPU); else None. ``--address`` needs ``--ray``."""
    if not args.ray:
        if args.address is not None:
            raise ConfigError("argument --address: only with --ray")
        yield None
        return
    from ...evaluation.distributed import (
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
        from ...players.search import SearchAgent

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
    from ...evaluation.evaluate import load_model_agent
    from ...family.agents import is_family_model, load_family_agent
    from ...networks.model_zip import ModelMismatchError

    try:
        path = resolve_model_path(Path(args.search_prior))
    except ConfigError as exc:
        raise ConfigError(f"argument --search-prior: {exc}") from None
    # a family network (trained on sampled rule sets, or fine-tuned on one) plays the
    # variant's own moves through the shared encoding, as it does alone
    load = load_family_agent if is_family_model(path) else load_model_agent
    try:
        network, _ = load(
            path, variant, deterministic=True, seed=args.seed, env_version=args.env_version
        )
    except (ConfigError, ModelMismatchError) as exc:
        raise ConfigError(f"argument --search-prior: {exc}") from None
    weight = args.search_prior_weight or 0.0
    top = args.search_prior_top or (0 if weight > 0.0 else DEFAULT_PRIOR_TOP)
    return network, top, weight


def _search_budget(args: argparse.Namespace) -> Any:
    """The :class:`fortythieves_agents.players.search.SearchBudget` of ``evaluate``'s search
    options.

    Raises:
        ConfigError: ``--search-budget`` with ``--search-samples``, or ``--search-budget``,
            ``--search-nodes``, ``--search-allocation ucb`` or ``--search-arms
            irreversible`` with ``--search-method rollouts``, or ``--search-arms
            irreversible`` with an allocation other than ucb.
    """
    from ...players.search import SearchBudget

    method = args.search_method
    solving = [
        name
        for name, value in (
            ("--search-budget", args.search_budget),
            ("--search-nodes", args.search_nodes),
        )
        if value is not None
    ]
    if args.search_leaf not in (None, "cards"):
        solving.append("--search-leaf")
    if method == "rollouts" and solving:
        raise ConfigError(
            f"argument {solving[0]}: only with --search-method solve (rollouts take "
            "--search-samples, --search-allocation and --search-horizon)"
        )
    if args.search_budget is not None and args.search_samples is not None:
        raise ConfigError(
            "argument --search-budget: not with --search-samples (the budget sets the samples)"
        )
    allocation = args.search_allocation
    arms = args.search_arms or "moves"
    if arms != "moves":
        if allocation not in (None, "ucb"):
            raise ConfigError(f"argument --search-arms: {arms} only with --search-allocation ucb")
        allocation = "ucb"
    if method is None:  # the solving setting unless samples alone ask for rollouts
        alone = args.search_samples is not None and not solving
        method = "rollouts" if alone and allocation != "ucb" else "solve"
    if method == "rollouts" and allocation == "ucb":
        flag = "--search-allocation" if args.search_allocation == "ucb" else "--search-arms"
        value = "ucb" if flag == "--search-allocation" else arms
        raise ConfigError(f"argument {flag}: {value} only with --search-method solve")
    seconds = args.search_budget
    if method == "solve" and seconds is None and args.search_samples is None:
        seconds = DEFAULT_SECONDS  # the shipped default budget
    return SearchBudget(
        samples=args.search_samples or DEFAULT_SAMPLES,
        horizon=args.search_horizon,
        allocation=allocation,
        method=method,
        nodes=args.search_nodes or DEFAULT_NODES,
        seconds=seconds,
        arms=arms,
        leaf=args.search_leaf or "cards",
    )


def _check_leaf(budget: Any, variant: str) -> None:
    """Refuse ``--search-leaf learned`` for a variant with no fitted leaf value, before any
    game (:func:`fortythieves_agents.players.search_leaf.leaf_model`)."""
    inner = budget.budget if isinstance(budget, _GuidedBudget) else budget
    if getattr(inner, "leaf", "cards") == "learned":
        from ...players.search_leaf import leaf_model

        try:
            leaf_model(variant)
        except ValueError as exc:
            raise ConfigError(f"argument --search-leaf: {exc}") from None


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
        args.search_arms,
        args.search_leaf,
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
            "--search-samples, --search-allocation, --search-arms, --search-leaf, "
            "--search-horizon, "
            "--search-method, --search-budget, --search-nodes, --search-prior, "
            "--search-prior-top and "
            "--search-prior-weight are options of the search agent, which this evaluation "
            "does not play"
        )
    for given, flag in ((args.search_prior_top, "top"), (args.search_prior_weight, "weight")):
        if given is not None and args.search_prior is None:
            raise ConfigError(f"argument --search-prior-{flag}: only with --search-prior MODEL")
    return budget


def _evaluate(args: argparse.Namespace, argv: Sequence[str]) -> int:
    from fortythieves_env.records.record import RecordError

    from ...evaluation.evaluate import (
        evaluate_agents,
        load_model_agent,
        render_table,
    )
    from ...players.baselines import AGENT_NAMES, make_baseline

    if args.resume and not args.save_games:
        raise ConfigError(
            "--resume needs --save-games DIR: the folder of the interrupted run's game records"
        )
    if args.first_deal + args.episodes > EPISODES_MAX:
        raise ConfigError(
            f"argument --first-deal: {args.first_deal} + {args.episodes} deals is past the "
            f"{EPISODES_MAX:_} test deals; --first-deal must be at most "
            f"{EPISODES_MAX - args.episodes}"
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
        from ...family.agents import is_family_model, load_family_agent

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
    _check_leaf(budget, variant)
    agents = [agent]
    agents += [  # on the same deals
        _make_agent(make_baseline, name, args.seed, budget)
        for name in dict.fromkeys(args.baselines)
        if name != args.agent
    ]
    solver = _solver_verdicts(args.solver_results, variant, args.episodes, args.first_deal)
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
                first_deal=args.first_deal,
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
        report["model"] = portable_path(model_path)
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


def _solver_verdicts(
    given: str | None, variant: str, episodes: int, first_deal: int = 0
) -> dict[int, str] | None:
    """:func:`fortythieves_agents.evaluation.solve.test_deal_verdicts`, an explicitly given file's
    fault as a :class:`ConfigError` naming ``--solver-results``."""
    from ...evaluation.solve import SolverResultsError, test_deal_verdicts

    try:
        return test_deal_verdicts(variant, episodes, given, first_deal=first_deal)
    except SolverResultsError as exc:
        raise ConfigError(f"argument --solver-results: {exc}") from None
