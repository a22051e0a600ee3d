"""Fine-tuned against from scratch (fortythieves_agents.family.compare): the curves, the target
(the shipped PPO run's test win rate) and the goal read from run folders."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from fortythieves_agents.family.compare import compare_runs, comparison_table, learning_curve
from helpers import ROOT


def fake_run(folder: Path, steps: list[int], wins: list[list[bool]], test_wins: int) -> Path:
    """A run folder with validations (``wins`` per validation) and a 100-deal final
    evaluation with ``test_wins`` wins."""
    (folder / "eval").mkdir(parents=True)
    successes = np.array(wins, dtype=bool)
    np.savez(
        folder / "eval" / "evaluations.npz",
        timesteps=np.array(steps),
        results=successes.astype(float),
        ep_lengths=np.ones_like(successes, dtype=int),
        successes=successes,
    )
    np.savez(
        folder / "eval" / "foundation_cards.npz",
        timesteps=np.array(steps),
        foundation_cards=np.where(successes, 104, 40),
    )
    (folder / "run.json").write_text(json.dumps({"timesteps": steps[-1]}))
    summary = {
        "wins": test_wins,
        "win_rate": test_wins / 100,
        "win_rate_ci95": [0.0, 1.0],
        "mean_foundation_cards": 50.0,
    }
    report = {"episodes": 100, "results": {"ppo": summary, "greedy": {**summary, "win_rate": 0.2}}}
    (folder / "final_evaluation.json").write_text(json.dumps(report))
    return folder


def test_the_comparison_reads_the_runs_and_the_shipped_target(tmp_path: Path) -> None:
    shipped = json.loads((ROOT / "results/training/NumberTen/final_evaluation.json").read_text())
    target = shipped["results"]["ppo"]["win_rate"]  # 0.264 on 500 deals
    tuned = fake_run(
        tmp_path / "tuned",
        [0, 100_000, 200_000],
        [[False] * 4, [True, False, False, False], [True, True, False, False]],
        30,
    )
    scratch = fake_run(
        tmp_path / "scratch",
        [0, 100_000, 200_000],
        [[False] * 4, [False] * 4, [True] + [False] * 3],
        10,
    )
    data = compare_runs("NumberTen", tuned, scratch, ROOT / "results")
    assert data["target"]["win_rate"] == target
    assert data["target"]["half_budget"] == data["target"]["shipped_timesteps"] // 2
    assert data["runs"]["finetuned"]["reached_at"] == 200_000  # 25% < 26.4% <= 50%
    assert data["runs"]["finetuned"]["final_reaches_target"] is True
    assert data["runs"]["scratch"]["reached_at"] is None
    assert data["runs"]["scratch"]["final_reaches_target"] is False
    assert data["goal_met"] is True  # 30% at 200,000 steps, half the shipped run is 300,032
    curve = learning_curve(tuned)
    assert curve["win_rate"] == [0.0, 0.25, 0.5] and curve["mean_foundation_cards"][2] == 72.0
    table = comparison_table(data)
    assert "| finetuned | 200,000 | 30.0% (100 deals, step 200,000) |" in table
    assert curve["best_step"] == 200_000
    assert "Goal (fine-tuned reaches the target in at most half the steps): met." in table


def test_the_goal_is_judged_on_the_step_of_the_model_the_test_deals_played(
    tmp_path: Path,
) -> None:
    """A run planned at half the shipped steps ends up to one rollout above them (300,032
    planned, 301,056 run on Number Ten): its best model, of a step within the half, meets
    the goal; a best model past the half does not."""
    one = fake_run(tmp_path / "one", [0], [[False]], 0)
    half = compare_runs("NumberTen", one, None, ROOT / "results")["target"]["half_budget"]
    assert half == 300_032
    wins_then_not = [[True] * 4, [False] * 4]
    within = fake_run(tmp_path / "within", [300_000, 301_056], wins_then_not, 30)
    data = compare_runs("NumberTen", within, None, ROOT / "results")
    assert data["runs"]["finetuned"]["timesteps"] == 301_056
    assert data["runs"]["finetuned"]["curve"]["best_step"] == 300_000
    assert data["goal_met"] is True
    past = fake_run(tmp_path / "past", [300_000, 301_056], wins_then_not[::-1], 30)
    assert compare_runs("NumberTen", past, None, ROOT / "results")["goal_met"] is False


def test_the_family_page_shows_each_saved_comparison_and_its_outside_figure(
    tmp_path: Path,
) -> None:
    """docs/family.md's fine-tuning block: each results/family/finetune/<V>/comparison.json
    as its table, with the fine-tuned network's one evaluation outside every range when its
    outside.json is saved."""
    from fortythieves_agents.reports.family import finetune_tables, finetuned_reports

    results = tmp_path / "results"
    folder = results / "family" / "finetune" / "NumberTen"
    tuned = fake_run(folder / "finetuned", [0, 100_000], [[True, False], [True, True]], 30)
    data = compare_runs("NumberTen", tuned, None, ROOT / "results")
    folder.joinpath("comparison.json").write_text(json.dumps(data))
    assert finetuned_reports(results) == [folder / "comparison.json"]
    text = finetune_tables(finetuned_reports(results), tmp_path)
    assert text.startswith("`results/family/finetune/NumberTen/comparison.json`:\n\n**NumberTen**")
    assert comparison_table(data) in text and "outside every range" not in text

    def summary(wins: int, cards: float) -> dict[str, float]:
        return {"win_rate": wins / 500, "mean_foundation_cards": cards}

    seeds = {"first": 3_000_000_000, "count": 500, "rule": "3_000_000_000 + i"}
    entry = {
        "test": {"episodes": 500, "results": {"ppo": summary(305, 78.32)}},
        "outside": {
            "episodes": 500,
            "seeds": seeds,
            "results": {"ppo": summary(313, 79.4), "greedy": summary(100, 46.8)},
        },
    }
    outside = {"kind": "family_zero_shot", "games": {"NumberTen": entry}}
    (tuned / "outside.json").write_text(json.dumps(outside))
    text = finetune_tables(finetuned_reports(results), tmp_path)
    assert text.endswith(
        "Once on 500 deals outside every range (`outside.json`, seeds from 3,000,000,000): "
        "fine-tuned 62.6% (79.4), greedy 20.0% (46.8); on its 500 test deals there 61.0% (78.3)."
    )
    assert finetune_tables([], tmp_path) == "_No fine-tuning comparison saved yet._"
    # damaged files are named in one line (before: AttributeError or a bare KeyError)
    (tuned / "outside.json").write_text(json.dumps({**outside, "games": {"NumberTen": {
        **entry, "outside": None}}}))  # fmt: skip
    with pytest.raises(ValueError, match=r"outside\.json: not a family evaluation of NumberTen"):
        finetune_tables(finetuned_reports(results), tmp_path)
    for damaged in ({**data, "runs": []}, {}, [1]):
        folder.joinpath("comparison.json").write_text(json.dumps(damaged))
        with pytest.raises(ValueError, match=r"comparison\.json: not a fine-tuning comparison"):
            finetune_tables(finetuned_reports(results), tmp_path)


def test_the_script_compares_the_runs_it_finds_and_names_a_missing_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """scripts/family/finetune_compare.py --compare-only: a run folder without validations
    is refused in one line naming it (before: a traceback from numpy); --no-scratch compares
    the fine-tuned run alone."""
    from helpers import load_script

    script = load_script(ROOT / "scripts/family/finetune_compare.py", "finetune_compare")
    runs = tmp_path / "runs"
    fake_run(runs / "finetuned", [0, 100_000], [[True, False], [True, True]], 30)
    argv = ["NumberTen", "--compare-only", "--runs", str(runs), "--out", str(tmp_path / "out")]
    assert script.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"finetune_compare.py: error: {runs / 'scratch'}: no run from scratch with validations "
        "there; train it (or --no-scratch)"
    )
    (runs / "finetuned" / "models").mkdir()
    (runs / "finetuned" / "models" / "best_model.zip").write_bytes(b"zip")
    assert script.main([*argv, "--no-scratch"]) == 0
    assert (tmp_path / "out" / "finetuned" / "best_model.zip").read_bytes() == b"zip"
    data = json.loads((tmp_path / "out" / "comparison.json").read_text())
    assert list(data["runs"]) == ["finetuned"] and data["runs"]["finetuned"]["final"]["wins"] == 30


def test_no_goal_where_the_shipped_run_wins_nothing_and_a_killed_run_still_renders(
    tmp_path: Path,
) -> None:
    """Maria's shipped PPO run wins no test deal: any network 'reaches' 0%, so the goal does
    not apply (before: 'met' for a network with 0 wins). A run killed before its run.json
    got its steps renders '-' there (before: a format error)."""
    tuned = fake_run(tmp_path / "tuned", [0, 50_016], [[False] * 4, [False] * 4], 0)
    data = compare_runs("Maria", tuned, None, ROOT / "results")
    assert data["target"]["win_rate"] == 0.0 and data["goal_met"] is None
    table = comparison_table(data)
    assert table.endswith("Goal: does not apply (the shipped PPO run wins no test deal).")
    (tuned / "run.json").write_text("{}")
    killed = compare_runs("Maria", tuned, None, ROOT / "results")
    assert killed["runs"]["finetuned"]["timesteps"] is None
    assert "| finetuned | - | 0.0% (100 deals, step 0) |" in comparison_table(killed)
