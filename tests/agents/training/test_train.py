"""Training through the command line: run folder, final evaluation, refusal, Ctrl-C, resume.

Every run here is a few hundred steps with short episodes, so the module takes well under a
minute on two cores.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fortythieves_agents.cli.main import main
from fortythieves_agents.config import load_config
from fortythieves_agents.envs import make_training_vec_env
from fortythieves_agents.evaluation.evaluate import load_model_agent
from fortythieves_agents.networks.model_zip import (
    ModelMismatchError,
    model_rules_version,
    model_variant,
)
from fortythieves_agents.seeds import seeds_for_test
from fortythieves_agents.training.train import build_model, policy_differences
from helpers import CONFIGS, ROOT, STREETS, run_cli

from configs import PLAIN, with_set
from fortythieves_env import RULES_VERSION

SMALL = [
    *PLAIN,
    "train.n_envs=2",
    "ppo.n_steps=64",
    "ppo.batch_size=64",
    "ppo.n_epochs=1",
    "policy.features_dim=32",
    "policy.net_arch_pi=[32]",
    "policy.net_arch_vf=[32]",
    "train.progress_bar=false",
    "env.max_episode_steps=60",
]


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("runs") / "smoke"
    overrides = [
        *SMALL,
        "train.total_timesteps=256",
        "train.checkpoint_freq=128",
        "eval.eval_freq=128",
        "eval.n_eval_episodes=2",
        "eval.final_episodes=2",
    ]
    proc = run_cli("train", str(STREETS), "--run-dir", str(run), *with_set(overrides))
    assert proc.returncode == 0, proc.stderr
    assert "ppo" in proc.stdout and "greedy" in proc.stdout and "random" in proc.stdout
    return run


def test_run_folder_contents(smoke_run: Path) -> None:
    config = load_config(smoke_run / "config.yaml")  # the resolved config is complete
    assert config.env.variant == "Streets"
    assert config.train.total_timesteps == 256
    assert config.eval.final_episodes == 2
    command = (smoke_run / "command.txt").read_text()
    assert command.startswith("fortythieves train ")
    assert "train.total_timesteps=256" in command
    models = smoke_run / "models"
    for name in ("final_model.zip", "best_model.zip"):
        assert (models / name).is_file()
        assert model_variant(models / name) == "Streets"
        assert model_rules_version(models / name) == RULES_VERSION
    checkpoints = sorted((models / "checkpoints").glob("ckpt_*_steps.zip"))
    assert checkpoints and model_variant(checkpoints[0]) == "Streets"
    assert model_rules_version(checkpoints[0]) == RULES_VERSION
    meta = json.loads((smoke_run / "run.json").read_text())
    assert meta["status"] == "completed"
    assert meta["rules_version"] == RULES_VERSION
    assert meta["timesteps"] >= 256
    assert meta["steps_per_second"] > 0
    assert (smoke_run / "eval" / "evaluations.npz").is_file()


def test_validation_foundation_cards_are_recorded(smoke_run: Path) -> None:
    """eval/foundation_cards.npz has one row per validation, one entry per episode, and
    (Streets, 1 per card, no win, masked play) each equals the episode's return."""
    with np.load(smoke_run / "eval" / "evaluations.npz") as sb3:
        timesteps, returns, successes = sb3["timesteps"], sb3["results"], sb3["successes"]
    with np.load(smoke_run / "eval" / "foundation_cards.npz") as ours:
        assert ours["timesteps"].tolist() == timesteps.tolist() == [128, 256]
        cards = ours["foundation_cards"]
    assert cards.shape == (2, 2) and cards.dtype == np.int64
    assert not successes.any()
    assert cards.tolist() == returns.tolist()
    assert (cards > 0).all()


def test_validation_plays_the_final_evaluations_game_under_the_no_cycling_rule(
    tmp_path: Path,
) -> None:
    """Each validation plays the validation deals as ``evaluate`` plays test deals: the
    registered game (its step limit, not env.max_episode_steps or the no-progress rule of
    training), the no-cycling rule, the model's deterministic choice; best_model.zip is the
    model of the best mean return."""
    from fortythieves_agents.evaluation.evaluate import ModelAgent, play_deals
    from fortythieves_agents.networks.model_zip import load_maskable_ppo
    from fortythieves_agents.seeds import seeds_for_validation
    from fortythieves_agents.training.train import ValidationCallback
    from stable_baselines3.common.logger import configure

    config = load_config(STREETS, [*SMALL, "env.max_episode_steps=30"])
    env = make_training_vec_env(config)
    model = build_model(config, env, None)
    model.set_logger(configure(str(tmp_path / "log"), ["csv"]))
    callback = ValidationCallback(
        "FortyThieves/Streets-v0", 6, 1, tmp_path / "models", tmp_path / "eval", seed=3
    )
    callback.init_callback(model)
    first = callback.validate()
    env.close()
    seeds = seeds_for_validation(6)
    expected = play_deals(ModelAgent(model, seed=3), "FortyThieves/Streets-v0", seeds)
    cycling = play_deals(
        ModelAgent(model, seed=3), "FortyThieves/Streets-v0", seeds, allow_cycles=True
    )
    with np.load(tmp_path / "eval" / "foundation_cards.npz") as ours:
        assert ours["foundation_cards"].tolist() == [[r.foundation_cards for r in expected]]
        assert ours["stuck"].tolist() == [[r.stuck for r in expected]]
    with np.load(tmp_path / "eval" / "evaluations.npz") as sb3:
        assert sb3["results"].tolist() == [[r.ret for r in expected]]
        assert sb3["ep_lengths"].tolist() == [[r.length for r in expected]]
    assert first == pytest.approx(np.mean([r.ret for r in expected]))
    # the untrained argmax policy shuttles cards when allowed to: games run to Streets'
    # step limit (far beyond the 30 steps of training), while the rule ends them earlier
    assert any(r.truncated and r.length > 30 for r in cycling)
    assert not any(r.truncated for r in expected)
    assert [r.length for r in expected] != [r.length for r in cycling]
    best = load_maskable_ppo(tmp_path / "models" / "best_model.zip", device="cpu")
    again = play_deals(ModelAgent(best, seed=3), "FortyThieves/Streets-v0", seeds)
    assert [r.foundation_cards for r in again] == [r.foundation_cards for r in expected]


def test_train_writes_learning_curves_or_says_why_not(smoke_run: Path) -> None:
    png = smoke_run / "learning_curves.png"
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert not png.exists()
    else:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_no_matplotlib_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from fortythieves_agents import config as config_module
    from fortythieves_agents.training import plot as plot_module
    from rich.console import Console

    monkeypatch.setattr(plot_module.importlib.util, "find_spec", lambda name: None)
    plot_module.write_learning_curves(tmp_path, Console(width=400))
    out = capsys.readouterr().out
    assert "no learning_curves.png: plots need matplotlib" in out
    assert "pip install -e '.[plots]' in " in out  # in this checkout
    assert f"fortythieves plot {tmp_path}" in out
    assert not (tmp_path / "learning_curves.png").exists()
    # issue 37 point 10: from a wheel, the wheel's form (there is no checkout)
    monkeypatch.setattr(config_module, "checkout_root", lambda: None)
    plot_module.write_learning_curves(tmp_path, Console(width=400))
    out = capsys.readouterr().out
    assert "plots need matplotlib (pip install 'fortythieves[plots]'); later: " in out


def test_final_evaluation_json(smoke_run: Path) -> None:
    report = json.loads((smoke_run / "final_evaluation.json").read_text())
    assert report["variant"] == "Streets"
    assert report["episodes"] == 2
    assert set(report["results"]) == {"ppo", "random", "greedy"}
    for summary in report["results"].values():
        assert summary["episodes"] == 2
        lo, hi = summary["win_rate_ci95"]
        assert 0.0 <= lo <= summary["win_rate"] <= hi <= 1.0
        assert 0 <= summary["mean_foundation_cards"] <= 104
        rows = summary["per_episode"]  # every evaluation report keeps its per-deal rows
        assert [row["seed"] for row in rows] == seeds_for_test(2)
        assert sum(row["won"] for row in rows) == summary["wins"]


def test_final_evaluation_reports_wins_among_the_solver_proved_wins(smoke_run: Path) -> None:
    """results/solver/Streets.jsonl covers the test deals, so train's final evaluation
    carries the solver column as ``fortythieves evaluate`` does: the proved-won deals
    counted from that file, each agent's wins among them."""
    from fortythieves_agents.evaluation.solve import solver_verdicts
    from fortythieves_agents.seeds import seeds_for_test

    report = json.loads((smoke_run / "final_evaluation.json").read_text())
    verdicts = solver_verdicts(
        ROOT / "results" / "solver" / "Streets.jsonl", "Streets", seeds_for_test(2)
    )
    assert verdicts is not None
    proved = sum(v == "won" for v in verdicts.values())
    for summary in report["results"].values():
        ceiling = summary["solver_ceiling"]
        assert ceiling["proved_won"] == proved
        assert 0 <= ceiling["wins_among_proved"] <= min(proved, summary["wins"])
        assert ceiling["wins_among_proved"] + ceiling["wins_not_proved"] == summary["wins"]


def test_tensorboard_custom_scalars(smoke_run: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = sorted((smoke_run / "tensorboard").rglob("events.out.tfevents.*"))
    assert events
    acc = EventAccumulator(str(events[0].parent))
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    assert {"episodes/win_rate", "episodes/mean_foundation_cards", "episodes/mean_length"} <= tags
    assert "eval/mean_reward" in tags


def test_evaluate_run_folder(smoke_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "eval.json"
    assert main(["evaluate", str(smoke_run), "--episodes", "2", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["variant"] == "Streets"
    assert report["model"].endswith("best_model.zip")
    assert list(report["results"]) == ["ppo", "random", "greedy"]  # the same deals for all
    for result in report["results"].values():
        assert result["episodes"] == 2
    assert (
        main(["evaluate", str(smoke_run), "--episodes", "1", "--baselines", "--json", str(out)])
        == 0
    )
    assert list(json.loads(out.read_text())["results"]) == ["ppo"]


def test_evaluate_stochastic_is_reproducible(smoke_run: Path, tmp_path: Path) -> None:
    reports = []
    for name in ("a.json", "b.json"):
        args = ["evaluate", str(smoke_run), "--episodes", "1", "--stochastic", "--seed", "3"]
        args.append("--baselines")
        assert main([*args, "--json", str(tmp_path / name)]) == 0
        reports.append(json.loads((tmp_path / name).read_text())["results"])
    assert set(reports[0]) == {"ppo-sampled"}
    assert reports[0] == reports[1]


def test_wrong_variant_refused(smoke_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = smoke_run / "models" / "final_model.zip"
    assert main(["evaluate", str(model), "--variant", "Maria", "--episodes", "1"]) == 2
    err = capsys.readouterr().err
    assert "'Streets'" in err and "'Maria'" in err and "refusing" in err
    assert "Traceback" not in err


def test_resume_with_checkpoint_of_other_variant_refused(
    smoke_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = smoke_run / "models" / "final_model.zip"
    maria = CONFIGS / "maria.yaml"
    assert main(["train", str(maria), "--resume", str(model)]) == 2
    err = capsys.readouterr().err
    assert "a model of Streets, not of Maria (the config's env.variant)" in err


def test_resume_of_a_little_forty_v0_checkpoint_is_refused_by_its_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A checkpoint made before observation version 1 (LittleForty-v0) cannot continue on
    the -v1 training env: refused naming both ids, before anything is written (it was
    refused only by SB3's space check, its message a truncated Box). The same check refuses
    it as the expert iterations' start model (one helper serves both)."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    id_ = "FortyThieves/LittleForty-v0"
    venv = DummyVecEnv([lambda: gym.make(id_)])
    model = MaskablePPO("MlpPolicy", venv, policy_kwargs={"net_arch": [8]}, device="cpu")
    model.fortythieves_variant = "LittleForty"
    model.fortythieves_env_id = id_
    path = tmp_path / "v0.zip"
    model.save(path)
    venv.close()
    config = CONFIGS / "littleforty.yaml"
    run = tmp_path / "run"
    assert main(["train", str(config), "--resume", str(path), "--run-dir", str(run)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Box(" not in err
    assert "made for FortyThieves/LittleForty-v0, but training plays " in err
    assert "FortyThieves/LittleForty-v1" in err and "--env-version 0" in err
    assert not run.exists()
    start = ["--set", f"expert.start_model={path}", "--set", "train.teacher=null"]
    assert main(["train", str(config), "--run-dir", str(run), "--set", "expert.iterations=1",
                 *start]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("fortythieves train: error: expert.start_model ")
    assert "made for FortyThieves/LittleForty-v0, but training plays " in err
    assert not run.exists()


def test_space_mismatch_and_missing_variant(tmp_path: Path) -> None:
    config = load_config(STREETS, SMALL)
    env = make_training_vec_env(config)
    model = build_model(config, env, None)
    del model.fortythieves_variant
    path = tmp_path / "anonymous.zip"
    model.save(path)
    env.close()
    assert model_variant(path) is None
    with pytest.raises(ModelMismatchError, match="records no variant"):
        load_model_agent(path)
    with pytest.raises(ModelMismatchError, match="observation_space"):
        load_model_agent(path, "Maria")  # 9 columns: another observation size
    agent, variant = load_model_agent(path, "Streets")
    assert variant == "Streets" and agent.name == "ppo"


def test_subproc_vec_env_steps() -> None:
    config = load_config(STREETS, [*SMALL, "train.vec_env=subproc"])
    env = make_training_vec_env(config)
    try:
        assert type(env).__name__ == "VecMasksFromInfo"
        assert type(env.venv).__name__ == "SubprocVecEnv"
        env.reset()
        masks = np.stack(env.env_method("action_masks"))
        actions = np.array([int(np.flatnonzero(m)[0]) for m in masks])
        _, _, _, infos = env.step(actions)
        assert all("foundation_cards" in info for info in infos)
    finally:
        env.close()


def _start_long_training(run: Path, ignore_sigint: bool = False) -> subprocess.Popen[str]:
    """Start a long CLI training run; return once it is inside the block that saves on stop."""
    args = [
        sys.executable, "-m", "fortythieves_agents.cli.main", "train", str(STREETS), "--run-dir", str(run),
        *with_set([*SMALL, "train.total_timesteps=1e7", "eval.eval_freq=0"]),
    ]  # fmt: skip
    proc = subprocess.Popen(
        args,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        if ignore_sigint
        else None,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("training Streets"), line + (proc.stderr.read() if proc.stderr else "")
    return proc


def _stop(proc: subprocess.Popen[str], signum: int) -> tuple[str, str]:
    try:
        proc.send_signal(signum)
        return proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_sigterm_saves_model_even_with_sigint_ignored(tmp_path: Path) -> None:
    """A background job (SIGINT ignored, as a non-interactive shell leaves it) stopped by
    SIGTERM still saves its model."""
    run = tmp_path / "terminated"
    proc = _start_long_training(run, ignore_sigint=True)
    _, err = _stop(proc, signal.SIGTERM)
    assert proc.returncode == 130, err
    assert (run / "models" / "interrupted_model.zip").is_file()
    assert json.loads((run / "run.json").read_text())["status"] == "interrupted"


def test_ctrl_c_saves_model_then_resume(tmp_path: Path) -> None:
    run = tmp_path / "interrupted"
    proc = _start_long_training(run)
    out, err = _stop(proc, signal.SIGINT)
    assert proc.returncode == 130, err
    model = run / "models" / "interrupted_model.zip"
    assert model.is_file()
    assert "interrupted" in out
    assert f"--resume {model} --run-dir {run}" in out.replace("\n", "")
    assert model_variant(model) == "Streets"
    meta = json.loads((run / "run.json").read_text())
    assert meta["status"] == "interrupted"

    steps = meta["timesteps"]
    resumed = tmp_path / "resumed"
    proc2 = run_cli(
        "train", str(run / "config.yaml"), "--resume", str(model), "--run-dir", str(resumed),
        *with_set([f"train.total_timesteps={steps + 128}", "eval.final_episodes=0"]),
    )  # fmt: skip
    assert proc2.returncode == 0, proc2.stderr
    meta2 = json.loads((resumed / "run.json").read_text())
    assert meta2["status"] == "completed"
    assert meta2["start_timesteps"] == steps
    assert meta2["timesteps"] >= steps + 128
    # recorded without this machine's absolute path (here the file name: tmp_path is outside
    # the checkout, the working folder of the command)
    assert not Path(meta2["resumed_from"]).is_absolute()
    assert model.as_posix().endswith("/" + meta2["resumed_from"])
    assert (resumed / "models" / "final_model.zip").is_file()

    # without --run-dir a resume continues in the checkpoint's own run folder; --resume
    # RUN takes the model the run's last start saved; validations at multiples of
    # eval.eval_freq in total steps, and one at the end
    proc3 = run_cli(
        "train", str(run / "config.yaml"), "--resume", str(run),
        *with_set([f"train.total_timesteps={steps + 128}", "eval.final_episodes=0",
                   "eval.eval_freq=48", "eval.n_eval_episodes=1"]),
    )  # fmt: skip
    assert proc3.returncode == 0, proc3.stderr
    assert f"--resume {run}: continuing from {model}" in proc3.stdout
    meta3 = json.loads((run / "run.json").read_text())
    assert meta3["status"] == "completed" and meta3["start_timesteps"] == steps
    end = meta3["timesteps"]
    expected = [s for s in range(48, end + 1, 48) if s > steps]
    expected += [] if end % 48 == 0 else [end]
    with np.load(run / "eval" / "evaluations.npz") as sb3:
        assert sb3["timesteps"].tolist() == expected
    assert (run / "command.txt").read_text().count("\n") == 2  # the start and the resume

    # a folder holding a run is not trained over without --resume
    proc4 = run_cli("train", str(STREETS), "--run-dir", str(run), *with_set(SMALL))
    assert proc4.returncode == 2
    assert "a run is already there" in proc4.stderr


def test_model_agent_matches_sb3_predict(smoke_run: Path) -> None:
    import gymnasium as gym

    agent, variant = load_model_agent(smoke_run / "models" / "final_model.zip")
    env = gym.make(f"FortyThieves/{variant}-v0")
    obs, _ = env.reset(seed=7)
    for _ in range(30):
        mask = env.unwrapped.action_masks().astype(bool)
        expected, _ = agent.model.predict(obs, action_masks=mask, deterministic=True)
        action = agent.act(obs, env)
        assert action == int(expected)
        assert mask[action]
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break


WIDE = [
    "env.variant=Wide",
    "env.custom_variant={id: Wide, name: Wide Forty, n_columns: 12, face_down: 1, face_up: 3,"
    " build: alternate_colour, sequence_moves: true, redeals: 1, max_episode_steps: 40}",
]


def test_training_workers_build_a_custom_variant_whatever_the_start_method() -> None:
    """spawn workers never ran this process's registrations: the factories carry the spec."""
    config = load_config(STREETS, [*SMALL, *WIDE, "train.vec_env=subproc"])
    env = make_training_vec_env(config, start_method="spawn")
    try:
        assert type(env.venv).__name__ == "SubprocVecEnv"
        # a custom variant with redeals gets -v1 (the known stock), as Little Forty
        assert [s.id for s in env.get_attr("spec")] == ["FortyThieves/Wide-v1"] * 2
        assert env.action_space.n == 3 + 2 * 12 + 12 * 11 * 13
        env.reset()
        masks = np.stack(env.env_method("action_masks"))
        _, _, _, infos = env.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
        assert all("foundation_cards" in info for info in infos)
    finally:
        env.close()


def test_custom_variant_run_is_evaluated_from_its_folder(tmp_path: Path) -> None:
    run = tmp_path / "wide"
    overrides = [*SMALL, *WIDE, "train.total_timesteps=128", "train.checkpoint_freq=0",
                 "eval.eval_freq=0", "eval.final_episodes=1", "eval.baselines=[]"]  # fmt: skip
    proc = run_cli("train", str(STREETS), "--run-dir", str(run), *with_set(overrides))
    assert proc.returncode == 0, proc.stderr
    assert load_config(run / "config.yaml").env.custom_variant["n_columns"] == 12
    data = json.loads(zipfile.ZipFile(run / "models" / "final_model.zip").read("data"))
    assert data["fortythieves_variant"] == "Wide"
    assert data["fortythieves_env_id"] == "FortyThieves/Wide-v1"  # the env id is recorded
    assert data["fortythieves_variant_spec"]["n_columns"] == 12
    # a fresh process, which knows only the nine built-in variants, evaluates the run
    out = tmp_path / "eval.json"
    proc = run_cli("evaluate", str(run), "--episodes", "2", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(out.read_text())
    assert report["variant"] == "Wide" and report["env_id"] == "FortyThieves/Wide-v1"
    assert report["results"]["ppo"]["episodes"] == 2
    assert report["results"]["greedy"]["episodes"] == 2


# ------------------------------------------------------------------ resume: refuse or apply


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _copy_run(smoke_run: Path, tmp_path: Path) -> Path:
    import shutil

    return Path(shutil.copytree(smoke_run, tmp_path / "copy"))


def test_refused_resume_writes_nothing(
    smoke_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy_run(smoke_run, tmp_path)
    before = _files(run)
    model = run / "models" / "final_model.zip"
    config = str(run / "config.yaml")
    # the checkpoint has reached train.total_timesteps: nothing to do, in place or elsewhere
    assert main(["train", config, "--resume", str(model), "--set", "ppo.learning_rate=0.5"]) == 2
    assert "nothing to do" in capsys.readouterr().err
    new = tmp_path / "new"
    argv = ["train", config, "--resume", str(model), "--run-dir", str(new)]
    assert main(argv) == 2
    assert "nothing to do" in capsys.readouterr().err
    # the network cannot change: refused naming the keys
    grow = ["--set", "train.total_timesteps=1000", "--set", "policy.features_dim=64"]
    assert main([*argv, *grow, "--set", "policy.net_arch_vf=[16]"]) == 2
    err = capsys.readouterr().err
    assert "policy.features_dim is 32 in the checkpoint, 64 in the config" in err
    assert "policy.net_arch_vf is [32] in the checkpoint, [16] in the config" in err
    assert len(err.strip().splitlines()) == 1
    assert _files(run) == before
    assert not new.exists()


def _last_scalar(run: Path, tag: str) -> float:
    """The value of ``tag`` logged at the highest step, over all TensorBoard event files."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = []
    for file in (run / "tensorboard").rglob("events.out.tfevents.*"):
        acc = EventAccumulator(str(file))
        acc.Reload()
        if tag in acc.Tags()["scalars"]:
            events += acc.Scalars(tag)
    return max(events, key=lambda e: (e.step, e.wall_time)).value


def test_resume_applies_ppo_overrides(smoke_run: Path, tmp_path: Path) -> None:
    """learning_rate, clip_range (schedules), n_steps, n_epochs, gamma really change."""
    from sb3_contrib import MaskablePPO

    run = _copy_run(smoke_run, tmp_path)
    model = run / "models" / "final_model.zip"
    old_config = (run / "config.yaml").read_text()
    changes = [
        "train.total_timesteps=384",  # two rollouts: SB3 logs an update at the next one
        "ppo.learning_rate=0.00123",
        "ppo.clip_range=0.07",
        "ppo.n_steps=32",
        "ppo.batch_size=32",
        "ppo.n_epochs=2",
        "ppo.gamma=0.9",
        "eval.final_episodes=0",
        "eval.eval_freq=0",
    ]
    assert (
        main(["train", str(run / "config.yaml"), "--resume", str(model), *with_set(changes)]) == 0
    )
    # learning rate and clip range as used in the updates after the resume (SB3's own logs)
    assert _last_scalar(run, "train/learning_rate") == pytest.approx(0.00123)
    assert _last_scalar(run, "train/clip_range") == pytest.approx(0.07)
    final = MaskablePPO.load(run / "models" / "final_model.zip")
    assert final.num_timesteps == 384  # 256 + two rollouts of 2 x 32
    assert final.learning_rate == pytest.approx(0.00123)
    assert final.lr_schedule(1.0) == pytest.approx(0.00123)
    assert final.clip_range(1.0) == pytest.approx(0.07)
    assert final.policy.optimizer.param_groups[0]["lr"] == pytest.approx(0.00123)
    assert (final.n_steps, final.n_epochs, final.gamma) == (32, 2, 0.9)
    assert final.rollout_buffer.buffer_size == 32
    # the folder describes both parts: the config trained now, and the earlier one
    config = load_config(run / "config.yaml")
    assert config.ppo.learning_rate == pytest.approx(0.00123) and config.ppo.n_steps == 32
    assert (run / "config.until-256.yaml").read_text() == old_config


# ------------------------------------------------------------------ process state, totals


def _tiny(tmp_path: Path, *extra: str) -> tuple[object, Path]:
    config = load_config(
        STREETS,
        [*SMALL, "eval.eval_freq=0", "eval.final_episodes=0", "train.checkpoint_freq=0", *extra],
    )
    return config, tmp_path / "run"


def test_train_puts_back_signal_handlers_and_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch
    from fortythieves_agents.training.train import train
    from sb3_contrib import MaskablePPO

    def mine(signum: int, frame: object) -> None:
        pass

    threads = torch.get_num_threads()
    other = 1 if threads > 1 else 2
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        signal.signal(signal.SIGINT, mine)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        config, run = _tiny(tmp_path, "train.total_timesteps=128", f"train.torch_threads={other}")
        train(config, run_dir=run, argv=["test"])
        assert signal.getsignal(signal.SIGINT) is mine
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
        assert torch.get_num_threads() == threads

        inside = {}

        def failing_learn(self: object, *args: object, **kwargs: object) -> None:
            inside["threads"] = torch.get_num_threads()
            inside["sigint"] = signal.getsignal(signal.SIGINT)
            raise RuntimeError("boom")

        monkeypatch.setattr(MaskablePPO, "learn", failing_learn)
        with pytest.raises(RuntimeError, match="boom"):
            train(config, run_dir=tmp_path / "run2", argv=["test"])
        assert inside["threads"] == other and inside["sigint"] is not mine  # changed inside
        assert signal.getsignal(signal.SIGINT) is mine
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
        assert torch.get_num_threads() == threads
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def test_total_rounded_up_to_whole_rollouts_and_bar_shows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """200 steps with rollouts of 2 x 64 = 128: SB3 trains 256; the run says so up front."""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    run = tmp_path / "run"
    overrides = [*SMALL, "train.progress_bar=true", "train.total_timesteps=200"]
    overrides += ["eval.eval_freq=0", "eval.final_episodes=0", "train.checkpoint_freq=0"]
    assert main(["train", str(STREETS), "--run-dir", str(run), *with_set(overrides)]) == 0
    out, err = capsys.readouterr()
    assert "train.total_timesteps 200 rounded up to 256" in out
    assert "256/256" in err and "/200" not in err
    meta = json.loads((run / "run.json").read_text())
    assert meta["planned_timesteps"] == meta["timesteps"] == 256


def test_ctrl_c_in_final_evaluation_keeps_model_and_prints_rerun(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import fortythieves_agents.evaluation.evaluate as evaluation

    real = evaluation.evaluate_agents

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluation, "evaluate_agents", interrupted)
    run = tmp_path / "run"
    overrides = [*SMALL, "train.total_timesteps=128", "eval.eval_freq=0", "seed=5"]
    overrides += ["eval.final_episodes=2", "eval.baselines=[greedy]", "train.checkpoint_freq=0"]
    assert main(["train", str(STREETS), "--run-dir", str(run), *with_set(overrides)]) == 130
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "final evaluation interrupted" in line]
    assert len(lines) == 1
    command = shlex.split(lines[0].split("re-run the evaluation with: ", 1)[1])
    model = run / "models" / "final_model.zip"
    assert command == [
        "fortythieves", "evaluate", str(model), "--episodes", "2", "--seed", "5",
        "--baselines", "greedy", "--per-episode", "--json", str(run / "final_evaluation.json"),
    ]  # fmt: skip
    assert model.is_file()
    meta = json.loads((run / "run.json").read_text())
    assert meta["status"] == "completed" and meta["final_evaluation"] == "interrupted"
    monkeypatch.setattr(evaluation, "evaluate_agents", real)
    assert main(command[1:]) == 0
    report = json.loads((run / "final_evaluation.json").read_text())
    assert list(report["results"]) == ["ppo", "greedy"] and report["episodes"] == 2
    assert all(len(summary["per_episode"]) == 2 for summary in report["results"].values())


def test_resume_compares_either_network_by_key() -> None:
    """A checkpoint of one network refuses the other, and a changed size is named."""
    player = [*SMALL, "policy.network=player", "policy.player.column_dim=16"]
    config = load_config(STREETS, player)
    env = make_training_vec_env(config)
    try:
        saved = build_model(config, env, None).policy_kwargs
    finally:
        env.close()
    assert policy_differences(saved, config) == []
    assert policy_differences(
        saved, load_config(STREETS, [*player, "policy.player.column_dim=8"])
    ) == ["policy.player.column_dim is 16 in the checkpoint, 8 in the config"]
    assert policy_differences(saved, load_config(STREETS, SMALL)) == [
        "policy.network is player in the checkpoint, card_slots in the config"
    ]
    slots = load_config(STREETS, SMALL)
    env = make_training_vec_env(slots)
    try:
        saved = build_model(slots, env, None).policy_kwargs
    finally:
        env.close()
    assert policy_differences(saved, slots) == []
    assert policy_differences(saved, config) == [
        "policy.network is card_slots in the checkpoint, player in the config"
    ]


def _scalar_steps(folder: Path, tag: str) -> list[int]:
    """The steps of every ``tag`` scalar in the TensorBoard event files under ``folder``, in
    the order they were written (no de-duplication, unlike TensorBoard's own reader)."""
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    steps = []
    for path in sorted(folder.rglob("events.out.tfevents.*")):
        for event in EventFileLoader(str(path)).Load():
            if any(value.tag == tag for value in event.summary.value):
                steps.append(int(event.step))
    return steps


def test_a_resumed_run_validates_at_total_step_multiples_and_plays_the_best(
    tmp_path: Path,
) -> None:
    """Stopped at step 160 (a checkpoint; Ctrl-C saves the same kind of file), resumed to
    416: validations and checkpoints at multiples of their frequencies in *total* steps
    (SB3's callbacks count from 0 in each learn(): 256, 352 and ckpt 256, 352), one more
    validation at the run's end, TensorBoard without the abandoned branch's events, and the
    final evaluation plays best_model.zip, the model of the best validation this branch has."""

    def saved_timesteps(path: Path) -> int:
        with zipfile.ZipFile(path) as archive:
            return int(json.loads(archive.read("data"))["num_timesteps"])

    run = tmp_path / "run"
    first = [*SMALL, "train.total_timesteps=256", "train.checkpoint_freq=160"]
    first += ["eval.eval_freq=96", "eval.n_eval_episodes=2", "eval.final_episodes=0"]
    proc = run_cli("train", str(STREETS), "--run-dir", str(run), *with_set(first))
    assert proc.returncode == 0, proc.stderr
    with np.load(run / "eval" / "evaluations.npz") as sb3:
        assert sb3["timesteps"].tolist() == [96, 192, 256]  # 256: the end of the run
    assert "validation at step 96: " in proc.stdout and "validation at step 256: " in proc.stdout
    checkpoint = run / "models" / "checkpoints" / "ckpt_160_steps.zip"
    assert saved_timesteps(checkpoint) == 160
    best_before = saved_timesteps(run / "models" / "best_model.zip")

    again = ["train.total_timesteps=400", "train.checkpoint_freq=96", "eval.final_episodes=2"]
    proc = run_cli("train", str(run / "config.yaml"), "--resume", str(checkpoint), *with_set(again))
    assert proc.returncode == 0, proc.stderr
    with np.load(run / "eval" / "evaluations.npz") as sb3:
        timesteps, returns = sb3["timesteps"].tolist(), sb3["results"].mean(axis=1)
    assert timesteps == [96, 192, 288, 384, 416]  # kept 96; 416: the end (160 + 2 rollouts)
    for step in (192, 288, 384, 416):
        assert f"validation at step {step}: " in proc.stdout
    names = sorted(p.name for p in (run / "models" / "checkpoints").iterdir())
    assert names == sorted(f"ckpt_{s}_steps.zip" for s in (160, 192, 288, 384))
    assert _scalar_steps(run / "tensorboard", "eval/mean_reward") == timesteps

    # candidates: the kept validation at 96 only if best_model.zip was still its model
    candidates = [i for i, s in enumerate(timesteps) if s > 160 or best_before == 96]
    best = max(candidates, key=lambda i: (returns[i], -i))
    assert saved_timesteps(run / "models" / "best_model.zip") == timesteps[best]
    report = json.loads((run / "final_evaluation.json").read_text())
    assert report["model"] == "models/best_model.zip"
    meta = json.loads((run / "run.json").read_text())
    assert meta["validation_seconds"] > 0 and meta["final_evaluation_seconds"] > 0
    # the evaluation is not older than run.json (full_run.py would play it again)
    mtime = (run / "final_evaluation.json").stat().st_mtime_ns
    assert mtime >= (run / "run.json").stat().st_mtime_ns
    assert "time: PPO " in proc.stdout and "final evaluation" in proc.stdout


def test_resume_of_a_folder_without_a_model_names_what_it_looked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "models" / "checkpoints").mkdir(parents=True)
    (tmp_path / "models" / "checkpoints" / "ckpt_x_steps.zip").write_bytes(b"")
    assert main(["train", str(STREETS), "--resume", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith(
        f"--resume {tmp_path}: no model to continue from in this folder (looked for the model "
        "named in run.json and models/checkpoints/ckpt_<steps>_steps.zip); give a model zip"
    )
    assert sorted(p.name for p in tmp_path.rglob("*")) == [
        "checkpoints",
        "ckpt_x_steps.zip",
        "models",
    ]


def test_a_run_that_crashes_marks_run_json_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash inside training (here: learn() raising) leaves run.json "failed" with the
    error, not "running"; the crash itself still propagates."""
    from sb3_contrib import MaskablePPO

    def crash(self: object, **kwargs: object) -> None:
        raise RuntimeError("logits are NaN")

    monkeypatch.setattr(MaskablePPO, "learn", crash)
    run = tmp_path / "crashed"
    with pytest.raises(RuntimeError, match="logits are NaN"):
        main(["train", str(STREETS), "--run-dir", str(run), *with_set(SMALL)])
    meta = json.loads((run / "run.json").read_text())
    assert meta["status"] == "failed"
    assert meta["error"] == "RuntimeError: logits are NaN"
