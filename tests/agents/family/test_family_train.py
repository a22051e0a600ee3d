"""`fortythieves train family` (fortythieves_agents.family.train and .config): the config's
one-line errors, a run on the training distribution with its zero-shot report, a fine-tuning
run that starts exactly from the family network, and a resumed run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from fortythieves_agents.cli.main import main
from fortythieves_agents.config import ConfigError, load_config
from fortythieves_agents.family.agents import is_family_model, load_family_model, trained_on
from fortythieves_agents.family.config import FamilyConfig, load_family_config
from fortythieves_agents.family.train import (
    _load_start_model,
    build_family_model,
    make_family_vec_env,
    played_model_record,
    train_family,
)
from fortythieves_agents.family.zero_shot import zero_shot_table

import fortythieves_env

FAST = [
    "train.total_timesteps=128",
    "train.n_envs=2",
    "ppo.n_steps=32",
    "ppo.batch_size=32",
    "ppo.n_epochs=1",
    "train.tensorboard=false",
    "train.progress_bar=false",
    "train.checkpoint_freq=64",
    "policy.player.card_dim=4",
    "policy.player.column_dim=8",
    "policy.player.state_dim=8",
    "policy.player.scorer_arch=[8]",
    "policy.player.value_arch=[8]",
    "teacher.games=4",
    "teacher.epochs=1",
    "eval.eval_freq=64",
    "eval.n_eval_episodes=3",
    "eval.final_episodes=3",
    "family.zero_shot.episodes=2",
    "family.zero_shot.outside=2",
    "family.zero_shot.games=[Indian, SanJuanHill]",
]


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("family.rule_set=Nope", "family.rule_set: unknown rule set 'Nope': a held-out game"),
        ("family.rule_set=R14c0d4u_SS_one_any_deal1_redeal0", "n_columns 14 is not in 7..13"),
        ("family.bounds={n_columns: [5, 9]}", "n_columns 5..9 is not inside 7..13"),
        ("family.bounds={colour: [red]}", "unknown bounds field(s) colour"),
        ("family.start_model=x.zip", "family.start_model replaces the teacher's clone"),
        ("policy.network=card_slots", "a family run trains the player network"),
        ("train.teacher=search", "a family run clones greedy or nothing"),
        ("train.shaping={face_down: 1}", "train.shaping: not with a family run"),
        ("policy.player.unseen_inputs=true", "the family's network has no such inputs"),
        ("family.zero_shot.games=[Klondike]", "not a held-out game: Klondike"),
        ("family.colour=1", "family.colour: unknown key (allowed here: rule_set, bounds"),
        ("env.variant=Streets", "env.variant: Input should be 'Family'"),
    ],
)
def test_config_errors_are_one_line(override: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_family_config("family", [override])
    text = str(caught.value)
    assert message in text
    assert "\n" not in text


def test_the_shipped_config_is_a_family_config() -> None:
    config = load_family_config("family")
    assert isinstance(config, FamilyConfig)
    assert config.family.rule_set is None and config.sampler() is None
    assert len(config.family.zero_shot.games) == 19
    tune = load_family_config(
        "family",
        ["family.rule_set=NumberTen", "family.start_model=m.zip", "train.teacher=null"],
    )
    assert tune.rule_set_spec() == fortythieves_env.VARIANTS["NumberTen"]
    assert tune.run_name() == "family-NumberTen"
    assert type(load_family_config("streets")).__name__ == "Config"
    # read as a variant's config, a family config names its keys as unknown
    with pytest.raises(ConfigError, match=r"family: unknown key"):
        load_config("family")


@pytest.fixture(scope="module")
def family_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny family run on the training distribution (greedy's clone, 128 PPO steps,
    zero-shot on two held-out games)."""
    run = tmp_path_factory.mktemp("family") / "run"
    config = load_family_config("family", FAST)
    result = train_family(config, run_dir=run, argv=["fortythieves", "train", "family"])
    assert result.status == "completed"
    return run


def test_a_run_on_the_training_distribution(family_run: Path) -> None:
    run = family_run
    meta = json.loads((run / "run.json").read_text())
    assert meta["variant"] == "Family" and meta["status"] == "completed"
    assert meta["timesteps"] == 128 and meta["family"]["rule_set"] is None
    assert meta["teacher"]["name"] == "greedy" and meta["teacher"]["games"] == 4
    for name in ("best_model.zip", "final_model.zip", "teacher_model.zip"):
        assert is_family_model(run / "models" / name), name
    assert (run / "models" / "checkpoints" / "ckpt_64_steps.zip").is_file()
    assert trained_on(run / "models" / "final_model.zip")["timesteps"] == 128
    with np.load(run / "eval" / "evaluations.npz") as npz:
        assert npz["timesteps"].tolist() == [0, 64, 128]
        assert npz["results"].shape == (3, 3)
    report = json.loads((run / "zero_shot.json").read_text())
    assert report["kind"] == "family_zero_shot" and list(report["games"]) == [
        "Indian",
        "SanJuanHill",
    ]
    indian = report["games"]["Indian"]
    assert indian["test"]["episodes"] == 2 and "solver_ceiling" in indian["test"]["results"]["ppo"]
    assert len(indian["test"]["results"]["greedy"]["per_episode"]) == 2
    assert indian["outside"]["seeds"]["first"] == 3_000_000_000
    assert report["games"]["SanJuanHill"]["outside"] is None  # a PySolFC game: test deals only
    assert report["beats_greedy"]["named_variants"] == 1
    # the steps of the model played (the best on the validation deals), not the run's
    best = run / "models" / "best_model.zip"
    assert report["model"] == "models/best_model.zip"
    steps = trained_on(best)["timesteps"]
    assert report["trained_on"]["timesteps"] == steps
    table = zero_shot_table(report)
    assert "| SanJuanHill (PySolFC) | 2 |" in table and f"Trained on {steps:,} steps" in table


def test_a_zero_shot_report_gives_the_steps_of_the_model_it_played(family_run: Path) -> None:
    """The full run's report said "trained on 5,001,152 steps" of the model of step
    2,500,000 (the best on the validation deals): the steps are the played zip's."""
    meta = json.loads((family_run / "run.json").read_text())
    teacher = family_run / "models" / "teacher_model.zip"  # greedy's clone: before any PPO step
    record = played_model_record(meta, teacher)
    assert meta["timesteps"] == 128 and record["timesteps"] == 0
    assert {k: v for k, v in record.items() if k != "timesteps"} == meta["family"]
    final = played_model_record(meta, family_run / "models" / "final_model.zip")
    assert final["timesteps"] == 128


def test_the_zero_shot_command_gives_the_runs_report(family_run: Path, tmp_path: Path) -> None:
    """`fortythieves family evaluate RUN` plays the games the run's final evaluation played,
    with the same results (same deals, same network)."""
    out = tmp_path / "zs.json"
    code = main(
        [
            "family",
            "evaluate",
            str(family_run),
            "--episodes",
            "2",
            "--outside",
            "2",
            "--games",
            "Indian",
            "SanJuanHill",
            "--json",
            str(out),
            "--no-progress",
        ]
    )
    assert code == 0
    mine, runs = (
        json.loads(out.read_text()),
        json.loads((family_run / "zero_shot.json").read_text()),
    )
    for game in ("Indian", "SanJuanHill"):
        for key in ("test", "outside"):
            assert mine["games"][game][key] == runs["games"][game][key], (game, key)


def test_fine_tuning_starts_from_the_family_network(family_run: Path, tmp_path: Path) -> None:
    """A fine-tuning run (the family encoding, NumberTen fixed, the family network as its
    start) has, before any update, the family network's move distribution on the same
    observation; its run ends with NumberTen's final evaluation on its own id."""
    start = family_run / "models" / "final_model.zip"
    overrides = [
        *FAST,
        "family.rule_set=NumberTen",
        f"family.start_model={start}",
        "train.teacher=null",
    ]
    config = load_family_config("family", overrides)
    env = make_family_vec_env(config)
    model = build_family_model(config, env, None)
    _load_start_model(model, str(start))
    family = load_family_model(start)
    obs = env.reset()
    masks = env.action_masks()
    x = torch.as_tensor(obs)
    with torch.no_grad():
        tuned = model.policy.get_distribution(x, masks).distribution.probs
        original = family.policy.get_distribution(x, masks).distribution.probs
    assert torch.equal(tuned, original)
    env.close()

    run = tmp_path / "tune"
    result = train_family(config, run_dir=run, argv=["fortythieves"])
    assert result.status == "completed"
    meta = json.loads((run / "run.json").read_text())
    assert meta["family"]["rule_set"] == "NumberTen" and "teacher" not in meta
    report = json.loads((run / "final_evaluation.json").read_text())
    assert report["variant"] == "NumberTen" and report["episodes"] == 3
    assert set(report["results"]) == {"ppo", "random", "greedy"}
    with np.load(run / "eval" / "evaluations.npz") as npz:
        assert npz["timesteps"][0] == 0  # the start network validated at step 0


def test_a_family_run_resumes(family_run: Path, tmp_path: Path) -> None:
    config = load_family_config(
        "family", [*FAST, "train.total_timesteps=192", "train.teacher=null"]
    )
    ckpt = family_run / "models" / "checkpoints" / "ckpt_64_steps.zip"
    run = tmp_path / "resumed"
    result = train_family(config, run_dir=run, resume=ckpt, argv=["fortythieves"])
    assert result.status == "completed" and result.timesteps == 192
    with pytest.raises(ConfigError, match=r"family\.rule_set is None in the checkpoint"):
        other = load_family_config(
            "family", [*FAST, "family.rule_set=Indian", "train.teacher=null"]
        )
        train_family(other, run_dir=tmp_path / "other", resume=ckpt)
    # the network's sizes are checked, the player network's own unseen_inputs is not one
    wider = load_family_config(
        "family",
        [*FAST, "train.total_timesteps=192", "train.teacher=null", "policy.player.state_dim=7"],
    )
    with pytest.raises(
        ConfigError,
        match=r"network cannot change when resuming: "
        r"policy\.player\.state_dim is 8 in the checkpoint, 7 in the config$",
    ):
        train_family(wider, run_dir=tmp_path / "wider", resume=ckpt)


def test_start_models_that_are_not_family_models_are_refused(tmp_path: Path) -> None:
    shipped = Path(__file__).resolve().parents[3] / "results/training/Streets/best_model.zip"
    config = load_family_config(
        "family", [*FAST, f"family.start_model={shipped}", "train.teacher=null"]
    )
    with pytest.raises(ConfigError, match="not a family model"):
        train_family(config, run_dir=tmp_path / "x")
    assert not (tmp_path / "x" / "run.json").exists()


def test_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "family", "--set", "family.rule_set=Klondike"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fortythieves train: error: invalid configuration:")
    assert len(err.splitlines()) == 1
    assert main(["family", "evaluate", str(tmp_path / "none.zip")]) == 2
