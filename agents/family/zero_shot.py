"""Zero-shot evaluation of a family network on every held-out game (``docs/family.md``,
"How to report results"; ``docs/protocol.md``, "Held-out rules").

For each held-out game (:data:`fortythieves_env.envs.family.HELD_OUT`: the nine variants, then the
named PySolFC games) the family network (through the shared encoding:
:class:`~fortythieves_agents.family.agents.FamilyModelAgent`) and the baselines play:

- the **test deals** (``2_000_000_000 + i``, the protocol's), on the game's own id, by
  :func:`fortythieves_agents.evaluation.evaluate.evaluate_agents`: the usual report, with
  the solver column (wins among the solver-proved wins) for the nine variants and per-deal
  rows;
- for the nine variants, the **deals outside every seed range** (``3_000_000_000 + i``, no
  training, validation or test deal: :data:`OUTSIDE_START`), the same report but for its
  seeds (no solver labels there).

The network *beats greedy* on a deal set when it wins more of its deals, or as many and
puts more cards on the foundations on average (:func:`beats`); the issue's goal counts the
named variants where it beats greedy on both deal sets.

The report (``zero_shot.json``, :func:`zero_shot_report`) keeps every per-game report whole
(their ``per_episode`` rows included) under ``games.<id>.test`` and ``games.<id>.outside``,
with what the network was trained on (``trained_on``: the sampler's bounds, the training
deal seeds, the rules version, the steps); :func:`zero_shot_table` renders it, and
:func:`held_out_leaderboard` the leaderboard's "held-out rules" section from every saved one.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from fortythieves_env import VARIANTS

from ..evaluation.evaluate import (
    baseline_agents,
    evaluate_agents,
    file_digest,
    play_deals,
    summarize,
)
from ..paths import portable_path
from ..reports.family import beats, held_out_leaderboard, zero_shot_table
from ..seeds import OUTSIDE_START, seeds_outside

__all__ = [
    "OUTSIDE_START",
    "beats",
    "evaluate_held_out",
    "held_out_leaderboard",
    "outside_report",
    "seeds_outside",
    "zero_shot_report",
    "zero_shot_table",
]


def register_held_out(game: str) -> str:
    """The registered variant id of held-out game ``game`` (a PySolFC game is registered as
    a custom variant, ``FortyThieves/<id>-v0``, the first time)."""
    from fortythieves_env import register_variant
    from fortythieves_env.envs.family import HELD_OUT

    if game not in VARIANTS:
        register_variant(HELD_OUT[game])
    return game


def outside_report(
    agents: Sequence[Any], variant: str, episodes: int, per_episode: bool = True
) -> dict[str, Any]:
    """Every agent on the first ``episodes`` deals outside every range of ``variant`` (its
    own id, the no-cycling rule): a report in :func:`evaluate_agents`' shape, its ``seeds``
    those deals'."""
    from fortythieves_env import RULES_VERSION

    from ..envs import env_id_for
    from ..evaluation.evaluate import single_torch_thread

    env_id = env_id_for(variant)
    seeds = seeds_outside(episodes)
    out: dict[str, Any] = {
        "variant": variant,
        "env_id": env_id,
        "rules_version": RULES_VERSION,
        "no_cycling": True,
        "episodes": episodes,
        "seeds": {"first": OUTSIDE_START, "count": episodes, "rule": "3_000_000_000 + i"},
        "results": {},
    }
    for agent in agents:
        with single_torch_thread():
            results = play_deals(agent, env_id, seeds)
        summary = summarize(results)
        if per_episode:
            summary["per_episode"] = [asdict(r) for r in results]
        out["results"][agent.name] = summary
    return out


def evaluate_held_out(
    model_path: str | Path,
    games: Sequence[str],
    episodes: int,
    outside: int,
    baselines: Sequence[str] = ("random", "greedy"),
    seed: int = 0,
    deterministic: bool = True,
    progress: bool = False,
    echo: Callable[[str], object] | None = None,
) -> dict[str, dict[str, Any]]:
    """Play the family model at ``model_path`` and the baselines on each held-out game:
    ``{game: {"test": report, "outside": report | None}}`` (module docstring). The solver's
    labels are read for the nine variants
    (:func:`fortythieves_agents.evaluation.solver_results.test_deal_verdicts`:
    ``results/solver`` in a checkout, else the shipped labels).

    Raises:
        ModelMismatchError: the zip is not a family model that loads
            (:func:`~fortythieves_agents.family.agents.load_family_agent`).
    """
    from ..evaluation.solve import test_deal_verdicts
    from .agents import load_family_agent

    out: dict[str, dict[str, Any]] = {}
    for game in games:
        began = time.perf_counter()
        variant = register_held_out(game)
        agent, _ = load_family_agent(model_path, variant, deterministic, seed)
        agents = [agent, *baseline_agents(baselines, seed)]
        entry: dict[str, Any] = {"split": "variant" if game in VARIANTS else "pysolfc"}
        if episodes:
            verdicts = (
                test_deal_verdicts(variant, episodes, command="family")
                if game in VARIANTS
                else None
            )
            entry["test"] = evaluate_agents(
                agents, variant, episodes, per_episode=True, progress=progress, solver=verdicts
            )
        entry["outside"] = (
            outside_report(agents, variant, outside) if outside and game in VARIANTS else None
        )
        entry["seconds"] = round(time.perf_counter() - began, 2)
        out[game] = entry
        if echo is not None:
            echo(_game_line(game, entry))
    return out


def _game_line(game: str, entry: dict[str, Any]) -> str:
    """One console line per game evaluated."""
    parts = [f"{game}:"]
    for key in ("test", "outside"):
        report = entry.get(key)
        if not report:
            continue
        r = report["results"]
        cells = ", ".join(
            f"{name} {s['wins']}/{s['episodes']} won, {s['mean_foundation_cards']:.1f} cards"
            for name, s in r.items()
        )
        parts.append(f"{key} [{cells}]")
    return " ".join(parts) + f" ({entry['seconds']:.0f} s)"


def zero_shot_report(
    model_path: str | Path,
    games: dict[str, dict[str, Any]],
    trained_on: dict[str, Any],
    episodes: int,
    outside: int,
) -> dict[str, Any]:
    """The saved report (module docstring) of :func:`evaluate_held_out`'s ``games``."""
    from fortythieves_env import RULES_VERSION

    named = [g for g in games if g in VARIANTS]
    verdicts = {
        g: {key: beats(e[key]) if e.get(key) else None for key in ("test", "outside")}
        for g, e in games.items()
    }
    both = [g for g in named if verdicts[g]["test"] and verdicts[g]["outside"] is not False]
    return {
        "kind": "family_zero_shot",
        "model": portable_path(model_path),
        "model_digest": file_digest(model_path),
        "rules_version": RULES_VERSION,
        "trained_on": trained_on,
        "episodes": episodes,
        "outside": {"first": OUTSIDE_START, "count": outside, "rule": "3_000_000_000 + i"},
        "beats_greedy": {
            "rule": "more wins, or as many and more mean foundation cards",
            "by_game": verdicts,
            "named_variants": len(named),
            "named_beaten_on_test": sum(bool(verdicts[g]["test"]) for g in named),
            "named_beaten_outside": sum(bool(verdicts[g]["outside"]) for g in named),
            "named_beaten_on_both": len(both),
        },
        "games": games,
    }


def print_report(report: dict[str, Any], out: Any = None) -> None:
    """Print :func:`zero_shot_table` (stdout by default)."""
    print(zero_shot_table(report), file=out or sys.stdout)
