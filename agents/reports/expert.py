"""The expert-iteration results table (issue 26), rendered from the saved reports.

One Markdown row per variant, in the registry's order; each cell says how many test deals it
covers, because the agents cost very different amounts to play:

* **network alone** (expert iteration): the latest shipped stage's
  ``results/expert/<variant><stage>/network-500.json`` (``STAGES``: the network after expert
  iteration, after PPO on top, after expert iteration again, or the shipped PPO model trained
  on; a later stage, named in the cell, is shipped only where better on the validation
  deals), with its wins among the deals
  the clairvoyant solver proved won;
* **PPO**, **greedy**, **random**: the shipped model's final evaluation on the same 500 test
  deals, ``results/training/<Variant>/final_evaluation.json``;
* **search alone** at 0.1 s per move: ``results/search/<Variant>-200-s0.1.json`` (the first
  200 test deals);
* **network + search against the search alone** at 0.1 s per move (a network as the
  search's prior), one entry per saved setting, each with the search alone's wins on the
  same first N test deals:
  ``results/search/prior/<Variant>-<N>-s0.1-<network>-top3-vs-search.json`` (its 3 best
  candidates searched) and ``...-<network>-w<W>-vs-search.json`` (every candidate, its
  log-probability weighted ``W``); ``<network>``: ``expert``, ``expertppo``, ``ppo`` or
  ``finetuned`` (the family network fine-tuned on the variant);
  ``benchmarks/prior_vs_search.py``; with the two-sided sign test's p-value over the deals
  only one of the two won. A confirmatory pairing on later test deals (``evaluate
  --first-deal S``, declared before it was played),
  ``results/search/confirm/<Variant>-<N>from<S>-s0.1-<network>-<setting>-vs-search.json``,
  follows, its deals named (``test deals S..S+N-1``).

A second table gives the issue's goal figures: each variant's best shipped network alone
(``results/expert/goal/<Variant>-network-500.json``, made by ``scripts/expert/goal.sh``:
:func:`best_network`, the latest network stage shipped, else PPO's; one row per
deal) against the search alone on the first 200 test deals, the search's: its wins there as
a share of the search's (goal: at least 80% where the search wins at least 10% of deals);
and its wins among the solver-proved wins of all 500 (goal: at least 50% on Indian, Limited
and Number Ten), against the checkout's current solver records. A second row per variant
gives the same figures of the family network fine-tuned on it, where one is shipped
(:func:`finetuned_evaluation`).

A third table says where each expert run's time went (issue 26, point 2), from the saved
``state.json`` copies in ``results/expert/pilots/`` and ``results/expert/ablation/``: labels
made and their seconds (labels per second), the fits' seconds (labelled positions times
epochs per second: the training steps of the fit) and the validation's (recorded since
2026-12-05; ``-`` before), on the machine's 2 cores under the load its command says.

A missing report is ``-``. ``python -m fortythieves_agents.reports`` writes the tables
into ``docs/training.md`` (blocks ``expert-table``, ``expert-goal`` and ``expert-budget``), so
the tables are generated, never typed. Every function takes the checkout's ``results``
folder.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fortythieves_env import VARIANTS
from fortythieves_env.rules.variants import recorded_rules_version, rules_version_mismatch

from ..evaluation.evaluate import ceiling_cell
from ..evaluation.leaderboard import read_report, solver_ceiling_of, wins_cell
from ..evaluation.results import sign_test
from ..seeds import OUTSIDE_START, TEST_START, seeds_outside
from .markers import read_json

SEARCH_SHARE_GOAL = 0.8
"""The network alone's wins at least this share of the search alone's ..."""
SEARCH_WINS_FLOOR = 0.1
"""... on every variant where the search alone wins at least this share of deals."""
PROVED_SHARE_GOAL = 0.5
"""The network alone wins at least this share of the solver-proved wins ..."""
PROVED_GOAL_VARIANTS = ("Indian", "Limited", "NumberTen")
"""... on these variants (issue 26)."""
BUDGET_HEADER = (
    "| run | variant | iterations | labels | labelling, s (labels/s) | fit, s "
    "(positions x epochs / s) | validation, s | labelling share |\n"
    "|---|---|---|---|---|---|---|---|"
)
GOAL_HEADER = (
    "| variant | search alone, first 200 | best network | network alone, same 200 | "
    "network / search | goal: 80% of the search's wins | network / solver-proved, 500 | "
    "goal: 50% of the proved | same network, 500 deals outside every range (test deals) |"
    "\n|---|---|---|---|---|---|---|---|---|"
)
HEADER = (
    "| variant | network alone, 500 deals | network alone / solver-proved wins | PPO, 500 | "
    "greedy, 500 | random, 500 | search alone 0.1 s, first 200 | network + search against "
    "the search alone, 0.1 s, same deals |\n|---|---|---|---|---|---|---|---|"
)


def _report(path: Path, variant: str, episodes: int) -> dict[str, Any] | None:
    """The evaluation report at ``path`` (None when it is not saved), checked by the
    leaderboard's :func:`read_report` (keys, one row per deal where rows are saved, the
    rules) and for being ``variant``'s on ``episodes`` deals.

    Raises:
        ValueError: any of those checks fails (the message names the file).
    """
    return read_report(path, variant=variant, episodes=episodes) if path.is_file() else None


def _agent(report: dict[str, Any] | None, name: str) -> dict[str, Any] | None:
    """Agent ``name``'s summary in ``report`` (None without the report or the agent)."""
    return None if report is None else report["results"].get(name)


NETWORKS = {
    "expert": "expert",
    "expertppo": "expert + PPO",
    "ppo": "PPO",
    "finetuned": "family network fine-tuned",
}
"""The prior's name in a pairing file's name -> how the table names it."""


def _setting(name: str) -> str:
    """Which network guided the search and how, from a pairing file's name:
    ``...-expert-top3-vs-search.json`` -> ``expert, top 3`` (its 3 best candidates searched),
    ``...-ppo-w0.02-vs-search.json`` -> ``PPO, weight 0.02`` (every candidate, its
    log-probability weighted).

    Raises:
        ValueError: another network name or setting.
    """
    stem = name.removesuffix("-vs-search.json")
    network, _, tag = stem.split("-s0.1-", 1)[1].rpartition("-")
    if network not in NETWORKS:
        raise ValueError(f"{name}: not a network + search pairing of {sorted(NETWORKS)}")
    if tag.startswith("top"):
        return f"{NETWORKS[network]}, top {tag[3:]}"
    if tag.startswith("w"):
        return f"{NETWORKS[network]}, weight {tag[1:]}"
    raise ValueError(f"{name}: not a network + search setting (top<K> or w<WEIGHT>)")


def row(variant: str, results: Path) -> str:
    """The table row of ``variant`` from the reports under ``results``.

    Raises:
        ValueError: a report is not JSON or covers other deals than its column says.
    """
    stage = expert_stage(variant, results)
    expert = None if stage is None else _report(stage[0] / "network-500.json", variant, 500)
    final = _report(results / "training" / variant / "final_evaluation.json", variant, 500)
    search = _report(results / "search" / f"{variant}-200-s0.1.json", variant, 200)
    pairs = [_pairing(path, variant) for path in _pairing_files(variant, results)]
    network = _agent(expert, "ppo")
    ceiling = (  # against today's solver records, as the goal table counts
        None
        if network is None
        else solver_ceiling_of(
            variant, _with_rows(variant, expert, results), results / "solver", own=True
        )
    )
    later = "" if stage is None or stage[0].name == variant.lower() else f" ({stage[1]})"
    cells = [
        wins_cell(network) + later,
        "-" if ceiling is None else ceiling_cell(ceiling),
        wins_cell(_agent(final, "ppo")),
        wins_cell(_agent(final, "greedy")),
        wins_cell(_agent(final, "random")),
        wins_cell(_agent(search, "search")),
    ]
    cells.append(
        "; ".join(
            f"{p['search_plus_network_wins']} vs {p['search_alone_wins']} of {deals} ({setting}; "
            f"sign test p = {_p_value(p):.2g})"
            for (_, deals), setting, p in sorted(pairs, key=lambda x: x[0])
        )
        or "-"
    )
    return f"| {variant} | " + " | ".join(cells) + " |"


def _pairing_files(variant: str, results: Path) -> list[Path]:
    """``variant``'s network + search pairing files: on the first test deals
    (``search/prior``), then the confirmatory ones on later deals (``search/confirm``)."""
    pattern = f"{variant}-*-s0.1-*-vs-search.json"
    return [
        *sorted((results / "search" / "prior").glob(pattern)),
        *sorted((results / "search" / "confirm").glob(pattern)),
    ]


def _pairing(path: Path, variant: str) -> tuple[tuple[int, int], str, dict[str, Any]]:
    """A pairing file checked against its name (``<Variant>-<N>-...`` on the first ``N``
    test deals, ``<Variant>-<N>from<S>-...`` on test deals ``S..S+N-1``): the sort key
    (first deal, deals), the setting's words (the later deals named) and the pairing.

    Raises:
        ValueError: one line naming ``path``: a name, deal count, first deal or lists that
            do not hold.
    """
    head = path.name.removeprefix(f"{variant}-").split("-", 1)[0]
    named = re.fullmatch(r"([0-9]+)(?:from([0-9]+))?", head)
    if named is None:
        raise ValueError(f"{path}: not named <Variant>-<N>[from<S>]-s0.1-...-vs-search.json")
    deals, first = named[1], int(named[2] or 0)
    if (path.parent.name == "confirm") != (first > 0):
        raise ValueError(
            f"{path}: pairings on later test deals (<Variant>-<N>from<S>-..., S >= 1) are in "
            "search/confirm, those on the first deals (<Variant>-<N>-...) in search/prior"
        )
    pairing = read_json(path)
    if not isinstance(pairing, dict) or str(pairing.get("deals")) != deals:
        raise ValueError(f"{path}: not a pairing on {deals} deals")
    if pairing.get("first_seed", TEST_START) != TEST_START + first:
        raise ValueError(f"{path}: its deals do not start at test deal {first}")
    _check_lists(path, pairing, int(deals))
    low = TEST_START + first
    if any(not low <= seed < low + int(deals) for seed in _only_one(pairing)):
        raise ValueError(
            f"{path}: a deal only one won is not among test deals {first}..{first + int(deals) - 1}"
        )
    setting = _setting(path.name)
    if first:
        setting += f"; test deals {first}..{first + int(deals) - 1}"
    return (first, int(deals)), setting, pairing


def _only_one(pairing: dict[str, Any]) -> list[int]:
    """The seeds of the deals only one of the two won (lists checked by :func:`_check_lists`)."""
    return [*pairing["only_search_plus_network"], *pairing["only_search_alone"]]


def _check_lists(path: Path, pairing: dict[str, Any], deals: int) -> None:
    """Check a pairing file's counts and its lists of the deals only one of the two won:
    two win counts in ``0..deals``, two lists of distinct deal seeds (ints), no seed in
    both, at most ``deals`` in all, their lengths differing as the win counts do.

    Raises:
        ValueError: one line naming ``path`` and what is wrong.
    """
    wins = (pairing.get("search_plus_network_wins"), pairing.get("search_alone_wins"))
    if not all(type(w) is int and 0 <= w <= deals for w in wins):
        raise ValueError(f"{path}: win counts must be ints in 0..{deals}, got {wins}")
    guided, alone = pairing.get("only_search_plus_network"), pairing.get("only_search_alone")
    if not (isinstance(guided, list) and isinstance(alone, list)):
        raise ValueError(f"{path}: no lists of the deals only one of the two won")
    seeds = _only_one(pairing)
    if not all(type(s) is int and s >= 0 for s in seeds) or len(set(seeds)) != len(seeds):
        raise ValueError(f"{path}: the lists of deals only one won must be distinct deal seeds")
    a, b = len(guided), len(alone)
    if a + b > deals or a - b != wins[0] - wins[1]:
        raise ValueError(
            f"{path}: {a} and {b} deals won by one alone disagree with {wins[0]} vs {wins[1]} "
            f"wins of {deals}"
        )


def _p_value(pairing: dict[str, Any]) -> float:
    """The two-sided sign test's p-value of a pairing file, from its lists of the deals only
    one of the two won (never from a p-value the file may state)."""
    return sign_test(len(pairing["only_search_plus_network"]), len(pairing["only_search_alone"]))


def _with_rows(variant: str, expert: dict[str, Any] | None, results: Path) -> dict[str, Any]:
    """The expert network's summary in ``expert`` (its ``network-500.json``), or where that
    has no rows per deal, the goal table's report of the same network on the same deals
    (``expert/goal/<Variant>-network-500.json``: :func:`best_network` picks the same stage),
    whose rows let the proved wins be counted against today's solver records; used only
    where the two agree on the deals and the wins."""
    assert expert is not None
    network = expert["results"]["ppo"]
    if network.get("per_episode"):
        return network
    goal = _report(results / "expert" / "goal" / f"{variant}-network-500.json", variant, 500)
    same = _agent(goal, "ppo")
    if (
        goal is None
        or same is None
        or goal["seeds"] != expert["seeds"]
        or same["wins"] != network["wins"]
        or not same.get("per_episode")
    ):
        return network
    return same


STAGES: tuple[tuple[str, str], ...] = (
    ("-ppo-long", "PPO trained on"),
    ("-ppo-expert", "expert iteration, PPO, expert iteration"),
    ("-ppo", "expert iteration + PPO"),
    ("", "expert iteration"),
)
"""The shipped network stages after the shipped PPO run, latest first:
``results/expert/<variant><suffix>/`` holds a stage's ``model.zip`` and its
``network-500.json``; a later stage is shipped only where it wins more validation deals than
the network shipped before it (never picked on the test deals). ``-ppo-long``: the shipped PPO
model trained on with the same config, picked on 1,000 validation deals and confirmed on 2,000
validation deals no pick saw (``scripts/expert/validate.py --first``)."""


def expert_stage(variant: str, results: Path) -> tuple[Path, str] | None:
    """``variant``'s latest shipped network stage after its PPO run (expert iteration, or PPO
    trained on): its folder and how it was made (:data:`STAGES`), or None where none is
    shipped."""
    for suffix, kind in STAGES:
        folder = results / "expert" / f"{variant.lower()}{suffix}"
        if (folder / "model.zip").is_file():
            return folder, kind
    return None


def best_network(variant: str, results: Path) -> tuple[Path, str]:
    """``variant``'s best shipped network and how it was made: its latest network stage
    (:func:`expert_stage`), else the shipped PPO model
    (``training/<Variant>/best_model.zip``). ``scripts/expert/goal.sh`` picks the same."""
    stage = expert_stage(variant, results)
    if stage is not None:
        return stage[0] / "model.zip", stage[1]
    return results / "training" / variant / "best_model.zip", "PPO"


def _met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def _goal_cells(
    variant: str,
    path: Path,
    report: dict[str, Any],
    search: dict[str, Any],
    first: int,
    results: Path,
) -> list[str]:
    """The goal cells after the network's name: its wins on the search's first 200 deals, as
    a share of the search's, that goal, its wins among the solver-proved wins of the 500
    (from its rows and the checkout's solver records, ``results/solver``, so that every
    row counts against the same verdicts), that goal.

    Raises:
        ValueError: the report has no rows per deal, or not those of the 500 deals from
            ``first``.
    """
    network = _agent(report, "ppo")
    assert network is not None
    if "per_episode" not in network:
        raise ValueError(f"{path}: the network's report has no rows per deal (--per-episode)")
    if sorted(row["seed"] for row in network["per_episode"]) != list(range(first, first + 500)):
        raise ValueError(f"{path}: the rows per deal are not the 500 deals from seed {first}")
    same = sum(row["won"] for row in network["per_episode"] if row["seed"] < first + 200)
    cells = [f"{same}/200"]
    if search["wins"]:
        share = same / search["wins"]
        cells.append(f"{share:.0%}")
    else:
        share = None
        cells.append("-")
    if search["wins"] / 200 < SEARCH_WINS_FLOOR:
        cells.append("does not apply (search under 10%)")
    else:
        cells.append(_met(share is not None and share >= SEARCH_SHARE_GOAL))
    ceiling = solver_ceiling_of(variant, network, results / "solver", own=True)
    if ceiling is None or not ceiling["proved_won"]:  # no solver column: not measured
        cells += ["-", "does not apply" if variant not in PROVED_GOAL_VARIANTS else "-"]
    else:
        cells.append(  # one decimal: 237/477 is 49.7%, short of the 50% goal
            f"{ceiling['wins_among_proved']}/{ceiling['proved_won']} "
            f"({ceiling['share_of_proved']:.1%})"
        )
        if variant not in PROVED_GOAL_VARIANTS:
            cells.append("does not apply")
        else:
            cells.append(_met(ceiling["share_of_proved"] >= PROVED_SHARE_GOAL))
    return cells


FINETUNED_KIND = "family, fine-tuned"
"""How the goal table names the family network fine-tuned on the variant (issue 41)."""


def finetuned_evaluation(results: Path, variant: str) -> Path:
    """The final evaluation (500 test deals, one row per deal) of ``variant``'s network
    fine-tuned from the family network (``results/family/finetune/<Variant>/finetuned/``:
    :mod:`fortythieves_agents.family.compare`), in a checkout's ``results``; it may not
    exist."""
    return results / "family" / "finetune" / variant / "finetuned" / "final_evaluation.json"


def goal_row(variant: str, results: Path) -> str:
    """The goal table's rows of ``variant`` from the reports under ``results``: its best
    shipped network's (:func:`best_network`), and where one is shipped the family network
    fine-tuned on the variant's (its run's final evaluation,
    ``family/finetune/<Variant>/finetuned/final_evaluation.json``: 500 test deals, one row
    per deal), each against the same search. Both are shown, neither picked on these deals.

    Raises:
        ValueError: a report is not JSON, covers other deals than its column says, or has
            no rows per deal.
    """
    search_report = _report(results / "search" / f"{variant}-200-s0.1.json", variant, 200)
    search = _agent(search_report, "search")
    path = results / "expert" / "goal" / f"{variant}-network-500.json"
    report = _report(path, variant, 500)
    if search is None or _agent(report, "ppo") is None:
        return f"| {variant} | " + " | ".join(["-"] * 8) + " |"
    assert report is not None and search_report is not None
    first = search_report["seeds"]["first"]
    if report["seeds"]["first"] != first:
        raise ValueError(f"{path}: the network's deals do not start at the search's")
    model, kind = best_network(variant, results)
    _check_model(path, report, model)
    cells = _goal_cells(variant, path, report, search, first, results)
    outside = _outside(model.parent / "outside-500.json", variant, model)
    rows = [[f"{search['wins']}/200", kind, *cells, _outside_cell(outside, _network_of(report))]]
    tuned_path = finetuned_evaluation(results, variant)
    tuned = _report(tuned_path, variant, 500)
    if _agent(tuned, "ppo") is not None:
        assert tuned is not None
        if tuned["seeds"]["first"] != first:
            raise ValueError(f"{tuned_path}: the network's deals do not start at the search's")
        cells = _goal_cells(variant, tuned_path, tuned, search, first, results)
        outside = _family_outside(tuned_path.parent / "outside.json", variant)
        rows.append(
            [
                f"{search['wins']}/200",
                FINETUNED_KIND,
                *cells,
                _outside_cell(outside, _network_of(tuned)),
            ]
        )
    return "\n".join(f"| {variant} | " + " | ".join(cells) + " |" for cells in rows)


def _check_model(path: Path, report: dict[str, Any], model: Path) -> None:
    """Refuse the report at ``path`` unless it names ``model`` (its last three path parts).

    Raises:
        ValueError: it names another model (the message names the file).
    """
    if Path(str(report.get("model"))).parts[-3:] != model.parts[-3:]:
        raise ValueError(f"{path}: the report is of {report.get('model')}, not of {model}")


def _network_of(report: dict[str, Any]) -> dict[str, Any]:
    """The network's summary in an evaluation report (its ``ppo`` agent)."""
    network = _agent(report, "ppo")
    assert network is not None
    return network


OUTSIDE_DEALS = 500
"""Deals of a network's one evaluation outside every range (the goal table's last column)."""


def _outside_network(path: Path, report: Any, variant: str) -> dict[str, Any]:
    """The network's summary (its ``ppo`` agent) in ``report``, a report of ``variant`` on
    the first :data:`OUTSIDE_DEALS` deals outside every range with one row per deal, and its
    wins, deals and win rate those of its rows.

    Raises:
        ValueError: it is not (the message names the file).
    """
    if not isinstance(report, dict) or report.get("variant") != variant:
        raise ValueError(f"{path}: not a report of {variant}'s network on outside deals")
    try:
        mismatch = rules_version_mismatch(recorded_rules_version(report.get("rules_version")))
    except ValueError as exc:
        mismatch = str(exc)
    if mismatch:
        raise ValueError(f"{path}: {mismatch}")
    seeds = report.get("seeds")
    if not isinstance(seeds, dict) or seeds.get("first") != OUTSIDE_START:
        raise ValueError(f"{path}: its deals do not start at seed {OUTSIDE_START:_}")
    results = report.get("results")
    network = results.get("ppo") if isinstance(results, dict) else None
    if not isinstance(network, dict):
        raise ValueError(f"{path}: no network ('ppo') among its results")
    rows = network.get("per_episode")
    try:
        played = sorted(row["seed"] for row in rows)
        wins = sum(row["won"] is True for row in rows)
    except (KeyError, TypeError):
        raise ValueError(f"{path}: the network's rows per deal are missing or malformed") from None
    if played != seeds_outside(OUTSIDE_DEALS):
        raise ValueError(
            f"{path}: the rows per deal are not the first {OUTSIDE_DEALS} deals outside every range"
        )
    rate = network.get("win_rate")
    if (
        report.get("episodes") != OUTSIDE_DEALS
        or network.get("episodes") != OUTSIDE_DEALS
        or network.get("wins") != wins
        or not isinstance(rate, (int, float))
        or not math.isclose(rate, wins / OUTSIDE_DEALS, abs_tol=1e-9)
    ):
        raise ValueError(
            f"{path}: the network's episodes, wins or win rate are not its rows' "
            f"({wins} wins in {OUTSIDE_DEALS} deals)"
        )
    return network


def _outside(path: Path, variant: str, model: Path) -> dict[str, Any] | None:
    """The network's summary in its one evaluation on the deals outside every range
    (``scripts/expert/outside.py``, saved as ``outside-500.json`` beside the shipped stage's
    model ``model``), None where there is none.

    Raises:
        ValueError: the file is not such a report of ``variant``'s ``model``
            (:func:`_outside_network`).
    """
    if not path.is_file():
        return None
    report = read_json(path)
    network = _outside_network(path, report, variant)
    _check_model(path, report, model)
    return network


def _family_outside(path: Path, variant: str) -> dict[str, Any] | None:
    """The fine-tuned family network's summary on the deals outside every range (its
    ``outside.json``: ``fortythieves family evaluate ... --outside N``), None where there is
    none.

    Raises:
        ValueError: the file is not such a family evaluation of ``variant``, or was made
            without outside deals (``--outside 0``; the family page refuses it too).
    """
    if not path.is_file():
        return None
    report = read_json(path)
    try:
        if report["kind"] != "family_zero_shot":
            raise KeyError("kind")
        outside = report["games"][variant]["outside"]
    except (KeyError, TypeError):
        raise ValueError(f"{path}: not a family evaluation of {variant}") from None
    if not outside:
        raise ValueError(f"{path}: no deals outside every range (made with --outside 0)")
    return _outside_network(path, outside, variant)


def _outside_cell(outside: dict[str, Any] | None, test: dict[str, Any]) -> str:
    """``wins/deals (rate)`` outside every range with the test win rate beside it; ``-``
    where the network was not played there."""
    if outside is None:
        return "-"
    return (
        f"{outside['wins']}/{outside['episodes']} ({outside['win_rate']:.1%}; test "
        f"{test['win_rate']:.1%})"
    )


def _per_variant(header: str, row_of: Callable[[str, Path], str], results: Path) -> str:
    """``header`` and ``row_of(variant, results)`` for each variant of the registry.

    Raises:
        ValueError: a row could not be made (the message starts with the variant).
    """
    rows = []
    for variant in VARIANTS:
        try:
            rows.append(row_of(variant, results))
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{variant}: {exc}") from None
    return "\n".join([header, *rows])


def goal_table_for(results: Path) -> str:
    """The goal table, one row per variant of the registry.

    Raises:
        ValueError: as :func:`goal_row`, naming the variant.
    """
    return _per_variant(GOAL_HEADER, goal_row, results)


def budget_row(path: Path) -> str | None:
    """The budget table's row of the expert run whose ``state.json`` copy is at ``path``
    (None for a state without iterations).

    Raises:
        ValueError: the file is not JSON.
    """
    state = read_json(path)
    if not state or not state.get("iterations"):
        return None
    entries = state["iterations"]
    config = state.get("config") or {}
    variant = config.get("env.variant", "-")
    epochs = config.get("expert.epochs")
    labels = sum(e["labels"] for e in entries)
    label_s = sum(e["label_seconds"] for e in entries)
    fit_s = sum(e["fit_seconds"] for e in entries)
    fitted = sum(e["fit"]["train_samples"] for e in entries)
    fit_rate = "-" if epochs is None else f"{fitted * epochs / fit_s:,.0f}"
    timed = [e["validation_seconds"] for e in entries if "validation_seconds" in e]
    validation = f"{sum(timed):,.0f}" if len(timed) == len(entries) else "-"
    total = label_s + fit_s + (sum(timed) if validation != "-" else 0.0)
    share = f"{label_s / total:.0%}" + ("" if validation != "-" else " (of labels + fit)")
    name = path.name.removesuffix("-state.json")
    return (
        f"| {path.parent.name}/{name} | {variant} | {len(entries)} | {labels:,} "
        f"| {label_s:,.0f} ({labels / label_s:.1f}) | {fit_s:,.0f} ({fit_rate}) "
        f"| {validation} | {share} |"
    )


def budget_table_for(results: Path) -> str:
    """The budget table, one row per saved expert run state (pilots, then ablation runs).

    Raises:
        ValueError: as :func:`budget_row`, naming the file.
    """
    rows = []
    for folder in ("pilots", "ablation"):
        for path in sorted((results / "expert" / folder).glob("*-state.json")):
            try:
                row = budget_row(path)
            except (AttributeError, KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
                raise ValueError(f"{path}: {exc}") from None
            if row is not None:
                rows.append(row)
    return "\n".join([BUDGET_HEADER, *rows])


def table_for(results: Path) -> str:
    """The Markdown table, one row per variant of the registry.

    Raises:
        ValueError: as :func:`row`, naming the variant.
    """
    return _per_variant(HEADER, row, results)
