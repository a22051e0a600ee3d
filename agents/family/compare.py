"""Fine-tuning against training from scratch, at equal steps (issue 41, point 4).

Two runs of the family config on one variant (``family.rule_set``: the shared encoding with
that rule set every episode, the same validation deals as the variant's own runs):

- **fine-tuned**: ``family.start_model`` = a family network, no teacher;
- **from scratch**: the same network and settings from its start (the shipped recipe's:
  behaviour cloning of greedy, then PPO; or random weights with ``train.teacher: null``).

:func:`compare_runs` reads their learning curves (``eval/evaluations.npz`` and
``eval/foundation_cards.npz``: validation win rate and foundation cards against steps) and
their final evaluations (``final_evaluation.json``: the test deals), and sets them beside the
shipped PPO run of the variant (``results/training/<Variant>/``: its test win rate is the
target, its steps the budget). The issue's goal: the fine-tuned run reaches the shipped PPO
win rate in at most half the shipped run's steps, judged on the model the test evaluation
plays (``best_model.zip``, of step ``best_step``): a run's last rollout can pass its planned
steps by up to one rollout (``n_steps x n_envs``), so a run planned at exactly half the
budget ends a little above it. Where the shipped run wins no test deal the goal does not
apply (``goal_met`` None: any network "reaches" 0%). ``reached_at`` is the first validation
at which a run's validation win rate is at least the target (validation deals, noisier than
the 500 test deals); ``final`` is the test-deal result of the run's best model on the
validation deals (``best_model.zip``), the model its final evaluation plays.

``scripts/family/finetune_compare.py`` trains both runs and writes the comparison
(``comparison.json``, ``comparison.md`` and ``curves.png``) under ``results/family/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ..paths import portable_path
from ..reports.family import comparison_table, first_reaching
from ..run_folder import RunFolder

__all__ = ["compare_runs", "comparison_table", "learning_curve", "plot_curves", "shipped_run"]


def learning_curve(run: Path) -> dict[str, list[Any]]:
    """A run's validations: ``steps``, ``win_rate``, ``mean_foundation_cards``, ``deals``,
    and ``best_step`` (the step of ``best_model.zip``, which the final evaluation plays).

    Raises:
        FileNotFoundError: the run has no ``eval/evaluations.npz``.
    """
    with np.load(RunFolder(run).evaluations) as sb3:
        steps = sb3["timesteps"].astype(int).tolist()
        wins = sb3["successes"].mean(axis=1).tolist() if "successes" in sb3.files else []
        deals = int(sb3["results"].shape[1])
        returns = sb3["results"].mean(axis=1)
    cards: list[float] = []
    path = RunFolder(run).foundation_cards
    if path.is_file():
        with np.load(path) as ours:
            cards = ours["foundation_cards"].mean(axis=1).tolist()
    return {
        "steps": steps,
        "win_rate": [round(w, 4) for w in wins],
        "mean_foundation_cards": [round(c, 3) for c in cards],
        "deals": [deals] * len(steps),
        # the validation whose mean return first reached the highest: best_model.zip's
        # step, the model the final evaluation plays
        "best_step": int(steps[int(np.argmax(returns))]) if steps else None,
    }


def _final(run: Path, agent: str = "ppo") -> dict[str, Any] | None:
    """The run's final evaluation of ``agent`` (wins, win rate, cards, deals), or None."""
    path = RunFolder(run).final_evaluation
    if not path.is_file():
        return None
    report = json.loads(path.read_text(encoding="utf-8"))
    s = report["results"].get(agent)
    if s is None:
        return None
    out = {
        "deals": report["episodes"],
        "wins": s["wins"],
        "win_rate": s["win_rate"],
        "win_rate_ci95": s["win_rate_ci95"],
        "mean_foundation_cards": round(s["mean_foundation_cards"], 3),
    }
    if "solver_ceiling" in s:
        out["share_of_proved"] = round(s["solver_ceiling"]["share_of_proved"], 4)
    greedy = report["results"].get("greedy")
    if greedy is not None:
        out["greedy_win_rate"] = greedy["win_rate"]
    return out


def _steps(run: Path) -> int | None:
    try:
        meta = json.loads(RunFolder(run).run_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    steps = meta.get("timesteps")
    return steps if isinstance(steps, int) else None


def shipped_run(results: Path, variant: str) -> dict[str, Any]:
    """The shipped PPO run of ``variant`` (``results/training/<variant>``): its test win
    rate (the target), its steps and its validation curve."""
    run = results / "training" / variant
    final = _final(run)
    if final is None:
        raise FileNotFoundError(f"{run}/final_evaluation.json: no shipped PPO evaluation")
    return {
        "run": portable_path(run),
        "timesteps": _steps(run),
        "final": final,
        "curve": learning_curve(run),
    }


def compare_runs(
    variant: str, finetuned: Path, scratch: Path | None, results: Path
) -> dict[str, Any]:
    """The comparison (module docstring) as JSON-ready data."""
    shipped = shipped_run(results, variant)
    target = shipped["final"]["win_rate"]
    budget = shipped["timesteps"]
    half = budget // 2 if isinstance(budget, int) else None
    runs: dict[str, Any] = {}
    for name, run in (("finetuned", finetuned), ("scratch", scratch)):
        if run is None:
            continue
        curve = learning_curve(run)
        final = _final(run)
        steps = _steps(run)
        runs[name] = {
            "run": portable_path(run),
            "timesteps": steps,
            "curve": curve,
            "final": final,
            "reached_at": first_reaching(curve, target),
            "final_reaches_target": None if final is None else bool(final["win_rate"] >= target),
        }
    ft = runs.get("finetuned", {})
    goal = None
    if ft.get("final") is not None and half is not None and target > 0:
        # the model the test deals were played by, not the run's last step (module docstring)
        played = ft["curve"]["best_step"]
        goal = bool(ft["final_reaches_target"] and played is not None and played <= half)
    return {
        "variant": variant,
        "target": {
            "what": "the shipped PPO run's win rate on its test deals",
            "win_rate": target,
            "deals": shipped["final"]["deals"],
            "shipped_timesteps": budget,
            "half_budget": half,
        },
        "shipped": shipped,
        "runs": runs,
        "goal_met": goal,
    }


def plot_curves(data: dict[str, Any], path: Path) -> None:
    """The validation win rates against steps of the runs and the shipped run, with the
    target (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    curves = [("shipped PPO", data["shipped"]["curve"])]
    curves += [(name, run["curve"]) for name, run in data["runs"].items()]
    for name, curve in curves:
        ax.plot(curve["steps"], [100 * w for w in curve["win_rate"]], marker="o", label=name)
    ax.axhline(100 * data["target"]["win_rate"], color="grey", linestyle="--", label="target")
    if data["target"]["half_budget"]:
        ax.axvline(data["target"]["half_budget"], color="grey", linestyle=":", label="half")
    ax.set_xlabel("PPO steps")
    ax.set_ylabel("validation win rate (%)")
    ax.set_title(f"{data['variant']}: fine-tuned from the family network vs from scratch")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
