"""The results tooling: the full-run runner (``scripts/training/full_run.py``) and the docs'
results tables (:mod:`fortythieves_agents.reports.training`)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from fortythieves_agents.reports import training as results_table
from helpers import CONFIGS, ROOT

from configs import PLAIN, with_set
from fortythieves_env import VARIANTS


def _module(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


full_run = _module("full_run", ROOT / "scripts" / "training" / "full_run.py")


# ---------------------------------------------------------------------------- synthetic runs
def summary(cards: float, half: float, wins: int, ci: tuple[float, float]) -> dict[str, Any]:
    return {
        "episodes": 500,
        "wins": wins,
        "win_rate": wins / 500,
        "win_rate_ci95": list(ci),
        "mean_foundation_cards": cards,
        "foundation_cards_ci95": [cards - half, cards + half],
    }


def write_run(
    folder: Path,
    ppo: dict[str, Any],
    greedy: dict[str, Any],
    steps: int = 2_000_896,
    sessions: tuple[float, ...] = (),
    config: dict[str, Any] | None = None,
    png: bool = False,
    ppo_name: str = "ppo",
) -> None:
    folder.mkdir(parents=True)
    report = {
        "variant": folder.name,
        "no_cycling": True,
        "episodes": 500,
        "results": {
            ppo_name: ppo,
            "random": summary(10.0, 0.5, 0, (0.0, 0.0076)),
            "greedy": greedy,
        },
    }
    (folder / "final_evaluation.json").write_text(json.dumps(report))
    meta = {"status": "completed", "start_timesteps": 0, "timesteps": steps, "train_seconds": 1800}
    (folder / "run.json").write_text(json.dumps(meta))
    default = {"policy": {"network": "player"}, "train": {"teacher": None, "shaping": None}}
    (folder / "config.yaml").write_text(yaml.safe_dump(config or default, sort_keys=False))
    if sessions:
        lines = [json.dumps({"command": "x", "wall_seconds": s}) for s in sessions]
        (folder / "sessions.jsonl").write_text("\n".join(lines) + "\n")
    if png:
        (folder / "learning_curves.png").write_bytes(b"png")


@pytest.fixture
def results(tmp_path: Path) -> Path:
    """LittleForty: PPO above greedy (disjoint), with a teacher and shaping, two sessions;
    Streets: the intervals overlap (sampled PPO, no sessions); NumberTen: PPO below."""
    out = tmp_path / "training"
    write_run(
        out / "LittleForty",
        summary(80.0, 1.0, 250, (0.456, 0.544)),
        summary(70.0, 2.0, 200, (0.357, 0.444)),
        sessions=(3000.0, 900.4),
        config={
            "policy": {"network": "player"},
            "train": {
                "teacher": "greedy",
                "shaping": {"face_down": 1.0, "empty_columns": 2.0, "built_runs": 0.0},
            },
        },
        png=True,
    )
    write_run(
        out / "Streets",
        summary(22.0, 1.0, 0, (0.0, 0.0076)),
        summary(21.8, 0.6, 0, (0.0, 0.0076)),
        ppo_name="ppo-sampled",
    )
    write_run(
        out / "NumberTen",
        summary(30.0, 1.0, 5, (0.004, 0.023)),
        summary(41.1, 2.2, 60, (0.094, 0.151)),
        sessions=(2400.0,),
    )
    return out


def rows_of(table: str) -> dict[str, list[str]]:
    rows = [line.split("|")[1:-1] for line in table.splitlines() if line.startswith("| ")]
    return {(r[0].strip() + "/" + r[1].strip()): [c.strip() for c in r] for r in rows[1:]}


# ------------------------------------------------------------------------------ main table
def test_results_table_rows(results: Path) -> None:
    table = results_table.results_table(results, link_base=results.parent)
    lines = table.splitlines()
    assert lines[0] == "| " + " | ".join(results_table.HEADER) + " |"
    assert len(results_table.HEADER) == 14
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in lines[2 : 2 + len(VARIANTS)]]
    assert [r[0] for r in rows] == list(VARIANTS)  # every variant, in the registry's order
    by_name = {r[0]: r for r in rows}
    assert by_name["LittleForty"] == [
        "LittleForty",
        "500",
        "80.0 [79.0, 81.0]",
        "70.0 [68.0, 72.0]",
        "10.0 [9.5, 10.5]",
        "50.0% [45.6, 54.4]",
        "40.0% [35.7, 44.4]",
        "0.0% [0.0, 0.8]",
        "yes",
        "2,000,896",
        "1 h 05 min",  # 3900.4 s over two sessions
        "player",
        "greedy",
        "face_down 1, empty_columns 2",
    ]
    streets = by_name["Streets"]
    assert streets[2] == "22.0 [21.0, 23.0] sampled"
    assert streets[8] == "no (overlap)"
    assert streets[10] == "30 min (training only)"  # no sessions: run.json's training time
    assert streets[11:] == ["player", "none", "none"]
    assert by_name["NumberTen"][8] == "no (below)"
    assert by_name["NumberTen"][10] == "40 min"
    for variant in set(VARIANTS) - {"LittleForty", "Streets", "NumberTen"}:
        assert by_name[variant] == [variant, "not trained yet", *[""] * 12]
    # a link to each learning-curve figure that exists, relative to the link base
    assert lines[-1] == (
        "Learning curves (validation, against training steps): "
        "[LittleForty](training/LittleForty/learning_curves.png)"
    )


def test_results_table_with_nothing_trained(tmp_path: Path) -> None:
    table = results_table.results_table(tmp_path, link_base=tmp_path)
    lines = table.splitlines()
    assert len(lines) == 2 + len(VARIANTS)  # no link line
    assert all("| not trained yet |" in line for line in lines[2:])


def test_beats_cell_needs_disjoint_intervals() -> None:
    greedy = summary(20.0, 1.0, 0, (0.0, 0.01))  # [19, 21]
    assert results_table.beats_cell(summary(22.5, 1.0, 0, (0, 0)), greedy) == "yes"
    # touching intervals are not disjoint
    assert results_table.beats_cell(summary(22.0, 1.0, 0, (0, 0)), greedy) == "no (overlap)"
    assert results_table.beats_cell(summary(17.5, 1.0, 0, (0, 0)), greedy) == "no (below)"
    assert results_table.beats_cell(summary(22.5, 1.0, 0, (0, 0)), None) == "-"


def test_damaged_results_are_named(results: Path) -> None:
    (results / "Streets" / "run.json").write_text("{not json")
    with pytest.raises(results_table.ResultsError, match=r"Streets/run\.json"):
        results_table.results_table(results)
    (results / "Streets" / "run.json").write_text("{}")
    (results / "NumberTen" / "final_evaluation.json").write_text('{"episodes": 500}')
    with pytest.raises(results_table.ResultsError, match="no 'results'"):
        results_table.results_table(results)


# -------------------------------------------------------------------------- ablation table
def test_ablation_table(results: Path, tmp_path: Path) -> None:
    settings = tmp_path / "settings.yaml"
    settings.write_text(
        "variants: [NumberTen]\n"
        "settings:\n  old-network: [policy.network=card_slots]\n  no-teacher: [train.teacher=null]\n"
    )
    write_run(  # a LittleForty setting: its variant gets rows though not listed
        results / "ablation" / "LittleForty" / "no-teacher",
        summary(75.0, 1.0, 220, (0.4, 0.48)),
        summary(70.0, 2.0, 200, (0.357, 0.444)),
        sessions=(600.0,),
        config={"policy": {"network": "card_slots"}, "train": {"teacher": None}},
    )
    table = results_table.ablation_table(results, settings, link_base=tmp_path)
    rows = rows_of(table)
    assert list(rows) == [
        "LittleForty/shipped config",
        "LittleForty/old-network",
        "LittleForty/no-teacher",
        "NumberTen/shipped config",
        "NumberTen/old-network",
        "NumberTen/no-teacher",
    ]
    assert rows["LittleForty/shipped config"][2:5] == [
        "player",
        "greedy",
        "face_down 1, empty_columns 2",
    ]
    assert rows["LittleForty/shipped config"][9] == "yes"
    assert rows["LittleForty/no-teacher"] == [
        "LittleForty",
        "no-teacher",
        "card_slots",
        "none",
        "none",
        "75.0 [74.0, 76.0]",
        "70.0 [68.0, 72.0]",
        "44.0% [40.0, 48.0]",
        "40.0% [35.7, 44.4]",
        "yes",
        "2,000,896",
        "10 min",
    ]
    assert rows["NumberTen/shipped config"][9] == "no (below)"
    assert rows["NumberTen/old-network"][2:] == ["not trained yet", *[""] * 9]
    assert table.splitlines()[-1] == (
        "Settings ([settings.yaml](settings.yaml)): old-network: `policy.network=card_slots`; "
        "no-teacher: `train.teacher=null`."
    )
    settings.write_text("variants: [Nope]\nsettings: {a: []}\n")
    with pytest.raises(results_table.ResultsError, match="'variants'"):
        results_table.ablation_table(results, settings)


# ------------------------------------------------------------------- the docs and README
def test_links_in_docs_pages_are_relative_to_the_site_root() -> None:
    """A docs page links to the saved runs as the site serves them (at their repository
    paths from the docs root: ``scripts/mkdocs_hooks.py``); a README links from its folder."""
    rt = results_table
    assert rt.link_base(ROOT / "docs" / "results.md", ROOT) == ROOT
    assert rt.link_base(ROOT / "docs" / "variants" / "Streets.md", ROOT) == ROOT / "variants"
    assert rt.link_base(ROOT / "README.md", ROOT) == ROOT


def test_quick_start_figures_give_a_range_over_the_runs(tmp_path: Path) -> None:
    rt = results_table

    def run(capability: str, ppo: float, wins: int) -> dict[str, object]:
        return {
            "torch_cpu_capability": capability,
            "episodes": 500,
            "results": {
                "ppo": {"mean_foundation_cards": ppo, "wins": wins},
                "greedy": {"mean_foundation_cards": 57.7, "wins": 100},
                "random": {"mean_foundation_cards": 34.44, "wins": 15},
            },
        }

    report = {
        "cpu": "AMD EPYC",
        "runs": [run("AVX512", 75.06, 233), run("AVX512", 75.06, 233), run("AVX2", 73.5, 220)],
        "identical_on_one_cpu": True,
    }
    path = tmp_path / "lucas.json"
    path.write_text(json.dumps(report))
    assert rt.quick_start_figures(path, tmp_path) == (
        "PPO 73.5-75.1 foundation cards and 44.0-46.6% wins, greedy 57.7 foundation cards and "
        "20.0% wins, random 34.4 foundation cards and 3.0% wins on the 500 test deals (3 runs "
        "on one AMD EPYC CPU with torch's kernels for AVX2, AVX512: runs with the same "
        "kernels were identical, other kernels, as on another CPU, give the range; "
        "`lucas.json`)."
    )
    del report["runs"][0]["episodes"]
    path.write_text(json.dumps(report))
    with pytest.raises(rt.ResultsError, match=r"lucas\.json: not a reproducibility report"):
        rt.quick_start_figures(path, tmp_path)


def test_reproducibility_table_rows(tmp_path: Path) -> None:
    rt = results_table

    def run(kernels: str, capability: str, ppo: float, wins: int) -> dict[str, object]:
        return {
            "kernels": kernels,
            "torch_cpu_capability": capability,
            "results": {
                "ppo": {"mean_foundation_cards": ppo, "wins": wins},
                "greedy": {"mean_foundation_cards": 57.7, "wins": 100},
            },
        }

    report = {
        "variant_config": "configs/lucas.yaml",
        "steps": 100000,
        "cpu": "AMD EPYC",
        "packages": {"torch": "2.13.0+cpu"},
        "runs": [run("native", "AVX512", 75.06, 233), run("avx2", "AVX2", 73.5, 220)],
        "range": {"ppo": [73.5, 75.06], "greedy": [57.7, 57.7]},
        "identical_on_one_cpu": True,
    }
    (tmp_path / "lucas.json").write_text(json.dumps(report))
    # issue 37 point 12: what every row shared (config, steps, CPU, torch, identical) made
    # the table too wide for the page; it stands above it now, one column per run
    assert rt.reproducibility_table(tmp_path).splitlines() == [
        "`configs/lucas.yaml`, 100,000 steps, on one AMD EPYC CPU with torch 2.13.0+cpu; runs "
        "on the CPU's own kernels identical: yes. Mean foundation cards (wins) of each run:",
        "",
        "| agent | run 1: own AVX512 | run 2: AVX2 | range |",
        "|---|---|---|---|",
        "| ppo | 75.06 (233) | 73.50 (220) | 73.50-75.06 |",
        "| greedy | 57.70 (100) | 57.70 (100) | 57.70-57.70 |",
    ]
    del report["runs"][1]["torch_cpu_capability"]
    (tmp_path / "lucas.json").write_text(json.dumps(report))
    with pytest.raises(rt.ResultsError, match=r"lucas\.json: not a reproducibility report"):
        rt.reproducibility_table(tmp_path)


# -------------------------------------------------------------------------------- runner
@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout root for the runner: the configs and ablation settings, nothing else."""
    shutil.copytree(CONFIGS, tmp_path / "configs")
    (tmp_path / full_run.SETTINGS).parent.mkdir(parents=True)
    shutil.copy(ROOT / full_run.SETTINGS, tmp_path / full_run.SETTINGS)
    monkeypatch.setattr(full_run, "ROOT", tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the commands run this checkout's code
    return tmp_path


def fake_model(path: Path, steps: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps({"num_timesteps": steps}))


def test_variant_and_setting_names(checkout: Path) -> None:
    job = full_run.variant_job("littleforty")
    assert job.variant == "LittleForty" and job.config == Path("configs/littleforty.yaml")
    assert job.run_dir == Path("runs/full/LittleForty")
    assert job.results_dir == Path("results/training/LittleForty")
    with pytest.raises(full_run.RunError, match="unknown variant 'Nope'; choose one of Forty"):
        full_run.variant_job("Nope")
    job = full_run.ablation_job("Streets", "old-network", ["seed=1"])
    assert job.overrides == ("policy.network=card_slots", "seed=1")  # the setting's, then ours
    assert job.run_dir == Path("runs/ablation/Streets/old-network")
    assert job.results_dir == Path("results/training/ablation/Streets/old-network")
    with pytest.raises(full_run.RunError, match=r"unknown ablation setting 'x'.*old-network"):
        full_run.ablation_job("Streets", "x")
    (checkout / full_run.SETTINGS).write_text("settings: {a: policy.network=player}\n")
    with pytest.raises(full_run.RunError, match="setting 'a' must be a list"):
        full_run.ablation_job("Streets", "a")


def test_final_episodes_500_is_added_unless_the_config_says_so(checkout: Path) -> None:
    # the shipped configs say 500: nothing is added
    job, config = full_run.resolve(full_run.variant_job("Streets", ["seed=3"]))
    assert job.overrides == ("seed=3",)
    assert config.eval.final_episodes == 500 and config.seed == 3
    # a config that says otherwise gets 500 added after its own settings
    job, config = full_run.resolve(full_run.variant_job("Streets", ["eval.final_episodes=100"]))
    assert job.overrides == ("eval.final_episodes=100", "eval.final_episodes=500")
    assert config.eval.final_episodes == 500
    with pytest.raises(full_run.RunError, match="--set nope=1"):
        full_run.resolve(full_run.variant_job("Streets", ["nope=1"]))


def test_next_command_follows_the_run_folder(checkout: Path) -> None:
    job, config = full_run.resolve(full_run.variant_job("Streets"))
    python = full_run.python_command()
    train = [*python, "train", "configs/streets.yaml", "--run-dir", "runs/full/Streets"]
    assert full_run.next_command(job, config) == ("train", train)
    run = checkout / job.run_dir
    total = config.train.total_timesteps
    # a killed session (status still running): the model with the most steps
    run.mkdir(parents=True)
    (run / "run.json").write_text(json.dumps({"status": "running"}))
    with pytest.raises(full_run.RunError, match=r"before its first checkpoint.*move the folder"):
        full_run.next_command(job, config)
    fake_model(run / "models" / "checkpoints" / "ckpt_50000_steps.zip", 50_000)
    fake_model(run / "models" / "checkpoints" / "ckpt_100000_steps.zip", 9)  # name is no guide
    fake_model(run / "models" / "interrupted_model.zip", 60_000)
    (run / "models" / "checkpoints" / "ckpt_9_steps.zip").write_bytes(b"cut short")
    step, command = full_run.next_command(job, config)
    assert (step, command) == (
        "resume",
        [*train, "--resume", "runs/full/Streets/models/interrupted_model.zip"],
    )
    # completed below the budget (raised since): resume from the final model
    assert total > 60_000
    fake_model(run / "models" / "final_model.zip", total - 1)
    (run / "run.json").write_text(json.dumps({"status": "completed", "timesteps": total - 1}))
    assert full_run.next_command(job, config)[1] == [
        *train,
        "--resume",
        "runs/full/Streets/models/final_model.zip",
    ]
    # trained, final evaluation missing: evaluate the best model as train would
    (run / "run.json").write_text(json.dumps({"status": "completed", "timesteps": total}))
    fake_model(run / "models" / "best_model.zip", 50_000)
    evaluate = [*python, "evaluate", "runs/full/Streets/models/best_model.zip"]
    evaluate += ["--episodes", "500", "--seed", "0", "--baselines", "random", "greedy"]
    evaluate += ["--per-episode"]
    evaluate += ["--json", "runs/full/Streets/final_evaluation.json"]
    assert full_run.next_command(job, config) == ("evaluate", evaluate)
    # an evaluation of another deal count, then an older one than run.json, then a fresh one
    (run / "final_evaluation.json").write_text(json.dumps({"episodes": 100}))
    assert full_run.next_command(job, config)[0] == "evaluate"
    (run / "final_evaluation.json").write_text(json.dumps({"episodes": 500}))
    time.sleep(0.01)
    (run / "run.json").write_text(json.dumps({"status": "completed", "timesteps": total}))
    assert full_run.next_command(job, config)[0] == "evaluate"
    time.sleep(0.01)
    (run / "final_evaluation.json").write_text(json.dumps({"episodes": 500}))
    assert full_run.next_command(job, config) == ("done", None)


def test_collect_copies_what_a_reader_needs(
    checkout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    job = full_run.variant_job("Streets")
    run, dest = checkout / job.run_dir, checkout / job.results_dir
    run.mkdir(parents=True)
    with pytest.raises(full_run.RunError, match=r"not a complete run, config\.yaml, command\.txt"):
        full_run.collect(job)
    for name in (*full_run.COPIED, "models/best_model.zip", "models/final_model.zip"):
        (run / name).parent.mkdir(parents=True, exist_ok=True)
        (run / name).write_text(name)
    (run / "learning_curves.png").unlink()  # optional: noted, not copied
    dest.mkdir(parents=True)
    (dest / "learning_curves.png").write_text("an earlier run's")
    (dest / "notes.md").write_text("kept")
    copies = full_run.collect(job)
    assert "learning_curves.png does not exist" in capsys.readouterr().err
    names = sorted(p.relative_to(dest).as_posix() for p in copies)
    expected = set(full_run.COPIED) - {"learning_curves.png"} | {"best_model.zip"}
    assert names == sorted(expected)
    assert (dest / "eval/foundation_cards.npz").read_text() == "eval/foundation_cards.npz"
    assert not (dest / "learning_curves.png").exists()  # the stale copy is gone
    assert (dest / "notes.md").read_text() == "kept"
    assert not (dest / "final_model.zip").exists()
    # a model as large as the limit stays out
    monkeypatch.setattr(full_run, "MODEL_SIZE_LIMIT", len("models/best_model.zip"))
    full_run.collect(job)
    assert "not copied" in capsys.readouterr().out
    assert not (dest / "best_model.zip").exists()


def test_runner_trains_resumes_and_collects(
    checkout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tiny run through the runner, then the same with a raised budget: it resumes from the
    final model, evaluates, and copies; every command is printed and in sessions.jsonl."""
    monkeypatch.setattr(full_run, "FINAL_EPISODES", 2)
    tiny = [
        "train.n_envs=2",
        "ppo.n_steps=32",
        "ppo.batch_size=64",
        "ppo.n_epochs=1",
        "policy.network=player",
        "train.teacher=null",  # the shipped greedy teacher would clone 200 games first
        "train.checkpoint_freq=64",
        "eval.eval_freq=64",
        "eval.n_eval_episodes=1",
        "train.progress_bar=false",
        "train.tensorboard=false",
        "env.max_episode_steps=60",
    ]
    args = ["variant", "LittleForty", *with_set(tiny)]
    assert full_run.main([*args, "--set", "train.total_timesteps=64"]) == 0
    assert full_run.main([*args, "--set", "train.total_timesteps=128"]) == 0
    out = capsys.readouterr().out
    run, dest = checkout / "runs/full/LittleForty", checkout / "results/training/LittleForty"
    sessions = [json.loads(line) for line in (dest / "sessions.jsonl").read_text().splitlines()]
    assert [s["exit_code"] for s in sessions] == [0, 0]
    assert [s["timesteps_after"] for s in sessions] == [64, 128]
    assert all(f"$ {s['command']}\n" in out for s in sessions)
    assert "--resume runs/full/LittleForty/models/final_model.zip" in sessions[1]["command"]
    assert sessions[1]["command"].endswith(
        "--set eval.final_episodes=2 --run-dir runs/full/LittleForty "
        "--resume runs/full/LittleForty/models/final_model.zip"
    )
    commands = (dest / "command.txt").read_text().splitlines()
    assert len(commands) == 2 and commands[0].startswith(
        "fortythieves train configs/littleforty.yaml"
    )
    report = json.loads((dest / "final_evaluation.json").read_text())
    assert report["episodes"] == 2 and set(report["results"]) == {"ppo", "random", "greedy"}
    assert json.loads((dest / "run.json").read_text())["timesteps"] == 128
    assert (dest / "eval" / "foundation_cards.npz").is_file()
    best = run / "models" / "best_model.zip"
    assert (dest / "best_model.zip").read_bytes() == best.read_bytes()  # a player model: small
    assert best.stat().st_size < full_run.MODEL_SIZE_LIMIT
    # nothing left to do: a third call only copies again
    assert full_run.main([*args, "--set", "train.total_timesteps=128"]) == 0
    assert len((run / "sessions.jsonl").read_text().splitlines()) == 2


def test_sigterm_to_the_runner_stops_the_training_which_saves_its_model(tmp_path: Path) -> None:
    """SIGTERM to the runner alone reaches the training (its own process group) once: the
    model is saved as interrupted_model.zip, the runner exits 130 and copies nothing."""
    root = tmp_path / "checkout"
    shutil.copytree(CONFIGS, root / "configs")
    script = root / "scripts" / "training" / "full_run.py"
    script.parent.mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "training" / "full_run.py", script)
    overrides = [
        *PLAIN,  # no teacher: the greedy teacher's cloning took ~40 s before the training
        "train.n_envs=2",
        "ppo.n_steps=32",
        "ppo.batch_size=64",
        "train.total_timesteps=1e7",
    ]
    overrides += ["eval.eval_freq=0", "train.progress_bar=false", "train.tensorboard=false"]
    proc = subprocess.Popen(
        [
            sys.executable,
            str(script),
            "variant",
            "Streets",
            *with_set(overrides),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    for line in proc.stdout:  # wait until it trains
        if line.startswith("training Streets"):
            break
    time.sleep(2)
    proc.terminate()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    run = root / "runs" / "full" / "Streets"
    assert json.loads((run / "run.json").read_text())["status"] == "interrupted"
    assert (run / "models" / "interrupted_model.zip").is_file()
    assert "resume with" in out and "nothing copied. Run this again to continue" in err
    assert not (root / "results" / "training" / "Streets").exists()
    session = json.loads((run / "sessions.jsonl").read_text())
    assert session["exit_code"] == 130


def test_a_report_made_under_other_rules_is_refused(results: Path) -> None:
    """A final evaluation recording another rules version is not shown as today's: the
    error names the file and both versions."""
    from fortythieves_env import RULES_VERSION

    path = results / "Streets" / "final_evaluation.json"
    report = json.loads(path.read_text())
    assert "rules_version" not in report  # made before it was recorded: version 1
    results_table.results_table(results)
    report["rules_version"] = RULES_VERSION + 1
    path.write_text(json.dumps(report))
    message = rf"Streets/final_evaluation\.json: made under rules version {RULES_VERSION + 1}"
    with pytest.raises(results_table.ResultsError, match=message):
        results_table.results_table(results)
    report["rules_version"] = "one"
    path.write_text(json.dumps(report))
    with pytest.raises(results_table.ResultsError, match="positive integer"):
        results_table.results_table(results)


def test_a_final_evaluation_of_other_rules_is_not_fresh(tmp_path: Path) -> None:
    """Issue 37, point 13: ``full_run.evaluation_is_fresh`` takes a final evaluation only if
    it was made under today's rules (a report without ``rules_version`` is version 1), as
    well as newer than ``run.json`` and on the asked number of deals."""
    import time

    from fortythieves_env import RULES_VERSION

    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text("{}")
    time.sleep(0.01)
    report = run / "final_evaluation.json"
    report.write_text(json.dumps({"episodes": 500, "rules_version": RULES_VERSION}))
    assert full_run.evaluation_is_fresh(run, 500)
    assert not full_run.evaluation_is_fresh(run, 200)
    report.write_text(json.dumps({"episodes": 500, "rules_version": RULES_VERSION + 1}))
    assert not full_run.evaluation_is_fresh(run, 500)
    report.write_text(json.dumps({"episodes": 500}))
    assert full_run.evaluation_is_fresh(run, 500) == (RULES_VERSION == 1)
