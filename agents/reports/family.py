"""Tables of the family's zero-shot reports (:mod:`fortythieves_agents.family.zero_shot`):
the report's own table and the "held-out rules" section of the leaderboard
(``docs/protocol.md``, ``docs/family.md``; ``python -m fortythieves_agents.reports``); and of
the fine-tuning comparisons (:mod:`fortythieves_agents.family.compare` makes them; their
table is here, below the family package, so that the reports can render saved ones).

Pure functions of the saved JSON: they read no model and play no game.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..evaluation.evaluate import ceiling_cell

__all__ = [
    "beats",
    "comparison_table",
    "finetune_tables",
    "finetuned_reports",
    "first_reaching",
    "held_out_leaderboard",
    "held_out_reports",
    "zero_shot_table",
    "zero_shot_tables",
]


def beats(report: dict[str, Any], agent: str = "ppo", other: str = "greedy") -> bool | None:
    """Whether ``agent`` beats ``other`` in a report: more wins, or as many and more mean
    foundation cards; None when either is missing."""
    results = report.get("results", {})
    if agent not in results or other not in results:
        return None
    a, b = results[agent], results[other]
    if a["wins"] != b["wins"]:
        return bool(a["wins"] > b["wins"])
    return bool(a["mean_foundation_cards"] > b["mean_foundation_cards"])


def _shown(path: Path, root: Path | None) -> str:
    """How a table names a saved file: relative to the checkout's ``root`` when under it,
    else as given."""
    if root is not None and Path(path).resolve().is_relative_to(root.resolve()):
        return str(Path(path).resolve().relative_to(root.resolve()))
    return str(path)


def _cell(summary: dict[str, Any] | None) -> str:
    if summary is None:
        return "-"
    return f"{100 * summary['win_rate']:.1f}% ({summary['mean_foundation_cards']:.1f})"


def _proved(summary: dict[str, Any] | None) -> str:
    if summary is None or "solver_ceiling" not in summary:
        return "-"
    return ceiling_cell(summary["solver_ceiling"])


def zero_shot_table(report: dict[str, Any], agent: str = "ppo") -> str:
    """The report as Markdown: one row per held-out game, the family network beside greedy
    on the test deals (wins, mean foundation cards in parentheses, wins among the
    solver-proved wins) and on the deals outside every range, and whether it beats greedy
    on each."""
    lines = [
        "| game | test deals | family network | wins / solver-proved | greedy | beats greedy "
        "| outside deals | family network | greedy | beats greedy |",
        "|---" * 10 + "|",
    ]
    mark = {True: "yes", False: "no", None: "-"}
    for game, entry in report["games"].items():
        test, outside = entry.get("test"), entry.get("outside")
        tr = test["results"] if test else {}
        orr = outside["results"] if outside else {}
        label = game if entry.get("split") == "variant" else f"{game} (PySolFC)"
        lines.append(
            f"| {label} | {test['episodes'] if test else 0} | {_cell(tr.get(agent))} "
            f"| {_proved(tr.get(agent))} | {_cell(tr.get('greedy'))} "
            f"| {mark[beats(test) if test else None]} "
            f"| {outside['episodes'] if outside else '-'} | {_cell(orr.get(agent))} "
            f"| {_cell(orr.get('greedy'))} | {mark[beats(outside) if outside else None]} |"
        )
    b = report["beats_greedy"]
    trained = report.get("trained_on", {})
    note = (
        f"Beats greedy on {b['named_beaten_on_test']} of {b['named_variants']} named variants "
        f"on the test deals, {b['named_beaten_outside']} outside every range, "
        f"{b['named_beaten_on_both']} on both (the goal: 6 of 9)."
    )
    steps = trained.get("timesteps")
    if isinstance(steps, int):
        on = trained.get("rule_set") or "the training distribution"
        note += f" Trained on {steps:,} steps of {on}."
    lines += ["", note]
    return "\n".join(lines)


def held_out_leaderboard(paths: Sequence[Path], root: Path | None = None) -> str:
    """The leaderboard's "held-out rules" section: one row per zero-shot report and held-out
    game (the family network's wins and cards on the test deals beside greedy's, the
    solver-proved share for the nine, the model's steps and the report's file)."""
    rows = []
    for path in paths:
        report = json.loads(Path(path).read_text(encoding="utf-8"))
        if report.get("kind") != "family_zero_shot":
            continue
        steps = report.get("trained_on", {}).get("timesteps")
        source = _shown(path, root)
        for game, entry in report["games"].items():
            test = entry.get("test")
            if not test:
                continue
            r = test["results"]
            label = game if entry.get("split") == "variant" else f"{game} (PySolFC)"
            rows.append(
                f"| {label} | family network ({steps:,} steps) | {test['episodes']} "
                f"| {_cell(r.get('ppo'))} | {_proved(r.get('ppo'))} | {_cell(r.get('greedy'))} "
                f"| `{source}` |"
                if isinstance(steps, int)
                else f"| {label} | family network | {test['episodes']} | {_cell(r.get('ppo'))} "
                f"| {_proved(r.get('ppo'))} | {_cell(r.get('greedy'))} | `{source}` |"
            )
    if not rows:
        return "_No zero-shot report saved yet._"
    head = [
        "| held-out game | agent | test deals | wins (cards) | wins / solver-proved wins "
        "| greedy: wins (cards) | report |",
        "|---" * 7 + "|",
    ]
    return "\n".join([*head, *rows])


def zero_shot_tables(paths: Sequence[Path], root: Path | None = None) -> str:
    """Each saved zero-shot report's :func:`zero_shot_table` under a line naming its file
    (the family page's block)."""
    parts = []
    for path in paths:
        report = json.loads(Path(path).read_text(encoding="utf-8"))
        if report.get("kind") != "family_zero_shot":
            continue
        name = _shown(path, root)
        parts.append(f"`{name}`:\n\n{zero_shot_table(report)}")
    return "\n\n".join(parts) if parts else "_No zero-shot report saved yet._"


def held_out_reports(results: Path) -> list[Path]:
    """The saved zero-shot reports under ``results/family`` (``**/zero_shot.json``), in
    path order."""
    return sorted((results / "family").glob("**/zero_shot.json"))


def finetuned_reports(results: Path) -> list[Path]:
    """The saved fine-tuning comparisons under ``results/family/finetune``
    (``<Variant>/comparison.json``: :mod:`fortythieves_agents.family.compare`), in path order."""
    return sorted((results / "family" / "finetune").glob("*/comparison.json"))


def finetune_tables(paths: Sequence[Path], root: Path | None = None) -> str:
    """Each saved fine-tuning comparison's table
    (:func:`comparison_table`) under a line naming its
    file (the family page's block).

    Raises:
        ValueError: a comparison or its ``outside.json`` is not what the scripts write (the
            message names the file).
    """
    parts = []
    for path in paths:
        name = _shown(path, root)
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            text = f"`{name}`:\n\n{comparison_table(data)}"
            variant = data["variant"]
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
            raise ValueError(f"{name}: not a fine-tuning comparison ({exc!r})") from None
        outside = Path(path).parent / "finetuned" / "outside.json"
        if outside.is_file():
            try:
                text += "\n\n" + _outside_line(outside, variant)
            except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
                raise ValueError(
                    f"{outside}: not a family evaluation of {variant} with deals outside "
                    f"every range ({exc!r})"
                ) from None
        parts.append(text)
    return "\n\n".join(parts) if parts else "_No fine-tuning comparison saved yet._"


def _outside_line(path: Path, variant: str) -> str:
    """The fine-tuned network's one evaluation on deals outside every range (its
    ``outside.json``: ``fortythieves family evaluate ... --games VARIANT --outside N``)."""
    report = json.loads(path.read_text(encoding="utf-8"))
    if report.get("kind") != "family_zero_shot":
        raise ValueError("no 'kind': 'family_zero_shot'")
    entry = report["games"][variant]
    outside, test = entry["outside"], entry["test"]
    if not outside:
        raise ValueError("no deals outside every range (made with --outside 0)")
    o, t = outside["results"], test["results"]
    return (
        f"Once on {outside['episodes']} deals outside every range (`{path.name}`, seeds from "
        f"{outside['seeds']['first']:,}): fine-tuned {_cell(o.get('ppo'))}, greedy "
        f"{_cell(o.get('greedy'))}; on its {test['episodes']} test deals there "
        f"{_cell(t.get('ppo'))}."
    )


# ---------------------------------------------- fine-tuning comparisons (family.compare)
def first_reaching(curve: dict[str, list[Any]], target: float) -> int | None:
    """The first validation step whose win rate is at least ``target``; None if none."""
    for steps, rate in zip(curve["steps"], curve["win_rate"], strict=True):
        if rate >= target:
            return int(steps)
    return None


def _step(x: int | None) -> str:
    return "-" if x is None else f"{x:,}"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def comparison_table(data: dict[str, Any]) -> str:
    """Markdown: each run's steps, test result and validation curve."""
    t = data["target"]
    lines = [
        f"**{data['variant']}**: target {_pct(t['win_rate'])} (the shipped PPO run on "
        f"{t['deals']} test deals, {_step(t['shipped_timesteps'])} steps; half: "
        f"{_step(t['half_budget'])}).",
        "",
        "| run | steps | test wins (the model of step) | test cards | greedy (same deals) "
        "| first validation at or above the target | validation win rate by step |",
        "|---|---|---|---|---|---|---|",
    ]
    shipped = data["shipped"]
    rows = [("shipped PPO (per-variant encoding)", shipped)] + [
        (name, run) for name, run in data["runs"].items()
    ]
    for name, run in rows:
        final = run.get("final") or {}
        curve = run["curve"]
        points = ", ".join(
            f"{s:,}: {_pct(w)}" for s, w in zip(curve["steps"], curve["win_rate"], strict=True)
        )
        reached = run.get("reached_at", first_reaching(curve, t["win_rate"]))
        lines.append(
            f"| {name} | {_step(run.get('timesteps'))} | "
            f"{_pct(final.get('win_rate'))} ({final.get('deals', '-')} deals, step "
            f"{_step(curve.get('best_step'))}) | "
            f"{final.get('mean_foundation_cards', '-')} | {_pct(final.get('greedy_win_rate'))} | "
            f"{'-' if reached is None else f'{reached:,}'} | {points} |"
        )
    if data["goal_met"] is not None:
        lines += [
            "",
            f"Goal (fine-tuned reaches the target in at most half the steps): "
            f"{'met' if data['goal_met'] else 'not met'}.",
        ]
    elif not t["win_rate"] and data["runs"].get("finetuned", {}).get("final") is not None:
        lines += ["", "Goal: does not apply (the shipped PPO run wins no test deal)."]
    return "\n".join(lines)
