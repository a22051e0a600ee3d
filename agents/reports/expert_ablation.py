"""The expert-iteration ablation table (issue 26, point 3), rendered from the saved records.

Three questions, each on Number Ten and Indian; one Markdown row per setting:

* **targets**: soft (the softmax of the search's values), hard (the search's move) or improve
  (the network's own distribution times ``exp(value / temperature)``). Number Ten: the
  pilots' ``expert/state.json`` copies in ``results/expert/pilots/`` (one run per target from
  the greedy clone); Indian: the first iteration's labels refitted with each target
  (``results/expert/ablation/indian-targets.jsonl``, ``scripts/expert/refit_targets.py``, one
  row per fit seed).
* **labelled games**: DAgger's (the network plays, ``beta = 0.5 * 0.5**i`` of the moves the
  search's) against the teacher's own (``beta = 1``): the runs' state files.
* **PPO after**: the shipped expert network alone on the 500 test deals, against the same
  network after 200,704 more PPO steps (``results/expert/<variant>/network-500.json`` and
  ``results/expert/ablation/<variant>-ppo-after-500.json``), and after as many whose first
  50,000 train the critic alone (``train.critic_warmup``; ``...-ppo-after-warm-500.json``),
  and after up to 600,064 such steps, the model best on the validation deals every 100,000
  (``...-ppo-after-warm600k-500.json``; Number Ten's is shipped, ``results/expert/numberten-ppo/``).

Validation cells are wins of the network alone on 200 validation deals after each iteration
(``start``: before the first); a missing record is ``-``. ``python -m
fortythieves_agents.reports`` writes the table into ``docs/training.md`` (block
``expert-ablation``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..evaluation.leaderboard import read_report
from .markers import read_json

HEADER = (
    "| variant | question | setting | start | validation wins of 200 after iterations 0, 1, ... "
    "| test deals won of 500 |\n|---|---|---|---|---|---|"
)
RUNS: tuple[tuple[str, str, str, str], ...] = (
    ("NumberTen", "targets", "soft", "pilots/numberten-pilot1-state.json"),
    ("NumberTen", "targets", "hard", "pilots/numberten-pilot2-state.json"),
    ("NumberTen", "targets", "improve", "pilots/numberten-pilot3-state.json"),
    ("NumberTen", "labelled games", "DAgger", "pilots/numberten-pilot3x-state.json"),
    ("NumberTen", "labelled games", "teacher's own", "ablation/numberten-teacher-games-state.json"),
    ("Indian", "labelled games", "DAgger", "pilots/indian-ppo-state.json"),
    ("Indian", "labelled games", "teacher's own", "ablation/indian-teacher-games-state.json"),
)
"""(variant, question, setting, state file under results/expert) of the runs compared."""
NUMBER_TEN_START = "pilots/numberten-pilot3x-state.json"
"""The Number Ten pilots share one start, the greedy clone, validated in pilot 3x's state
(the first pilots' state files predate ``start_validation``)."""
REFITTED = "pilots/indian-ppo-state.json"
"""The run whose first iteration's labels indian-targets.jsonl refits (its start network)."""
TARGETS = {1.0: "hard", 0.0: "improve"}
"""refit_targets.py's move weight (without --soft-temperature) -> target name, for a run
labelled with improve targets."""


VALIDATION_DEALS = 200
"""The validation deals every compared run and refit played (the table's header says so)."""


def _wins(validation: dict[str, Any] | None) -> str:
    """A validation's wins, ``-`` without one.

    Raises:
        ValueError: it played another number of deals than :data:`VALIDATION_DEALS`.
    """
    if not validation:
        return "-"
    if validation["episodes"] != VALIDATION_DEALS:
        raise ValueError(f"a validation of {validation['episodes']} deals, not {VALIDATION_DEALS}")
    return str(validation["wins"])


def _run_row(variant: str, question: str, setting: str, state: dict[str, Any] | None,
             start: str) -> str:  # fmt: skip
    if state is None:
        return f"| {variant} | {question} | {setting} | - | - | - |"
    after = ", ".join(_wins(entry.get("validation")) for entry in state["iterations"])
    return f"| {variant} | {question} | {setting} | {start} | {after} | - |"


def _refit_rows(path: Path, start: str) -> list[str]:
    """Indian's targets: one row per target, the fit seeds' validation wins joined; ``start``:
    the refitted iteration's start network's validation wins."""
    if not path.is_file():
        return ["| Indian | targets | - | - | - | - |"]
    by_target: dict[str, list[str]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
            if row["validation_deals"] != VALIDATION_DEALS:
                raise ValueError(f"{row['validation_deals']} validation deals, not 200")
            row["soft_temperature"], row["move_weight"], row["win_rate"], row["seed"]
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}, line {number}: not a refit row ({exc!r})") from None
        if row["soft_temperature"] is not None and row["move_weight"] == 0.0:
            name = f"soft (temperature {row['soft_temperature']:g})"
        elif row["soft_temperature"] is None and row["move_weight"] in TARGETS:
            name = TARGETS[row["move_weight"]]
        else:
            continue  # a mixed target: not one of the three
        wins = round(row["win_rate"] * row["validation_deals"])
        by_target.setdefault(name, []).append(f"{wins} (fit seed {row['seed']})")
    order = sorted(by_target, key=lambda n: ("soft" not in n, n != "hard"))
    return [
        f"| Indian | targets | {name} | {start} | {'; '.join(by_target[name])} | - |"
        for name in order
    ]


def _ppo_after_rows(variant: str, results: Path) -> list[str]:
    rows = []
    for setting, path in (
        ("expert network alone", results / "expert" / variant.lower() / "network-500.json"),
        ("then 200,704 PPO steps", results / "expert" / "ablation" /
         f"{variant.lower()}-ppo-after-500.json"),
        ("then 200,704 PPO steps, the first 50,000 the critic's alone",
         results / "expert" / "ablation" / f"{variant.lower()}-ppo-after-warm-500.json"),
        ("then up to 600,064 PPO steps so, the best on validation",
         results / "expert" / "ablation" / f"{variant.lower()}-ppo-after-warm600k-500.json"),
    ):  # fmt: skip
        cell = "-"
        if path.is_file():
            report = read_report(path, variant=variant, episodes=500, agent="ppo")
            summary = report["results"]["ppo"]
            cell = f"{summary['wins']} ({summary['truncated']} truncated)"
        rows.append(f"| {variant} | PPO after | {setting} | - | - | {cell} |")
    return rows


def table_for(results: Path) -> str:
    """The Markdown table.

    Raises:
        ValueError: a record is not JSON or a report covers other deals than 500.
    """
    expert = results / "expert"
    starts = {"NumberTen": read_json(expert / NUMBER_TEN_START)}
    rows = []
    for variant, question, setting, name in RUNS:
        state = read_json(expert / name)
        start_state = starts.get(variant) or state
        try:
            start = "-" if start_state is None else _wins(start_state.get("start_validation"))
            rows.append(_run_row(variant, question, setting, state, start))
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{expert / name}: not a run state ({exc!r})") from None
        if (variant, question, setting) == ("NumberTen", "targets", "improve"):
            refitted = read_json(expert / REFITTED)
            start = "-" if refitted is None else _wins(refitted.get("start_validation"))
            rows += _refit_rows(expert / "ablation" / "indian-targets.jsonl", start)
    for variant in ("NumberTen", "Indian"):
        rows += _ppo_after_rows(variant, results)
    return "\n".join([HEADER, *rows])
