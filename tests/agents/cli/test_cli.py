"""The command line's refusals: every bad argument, file or model is one stderr line naming
it, exit code 2, before any work; evaluation progress and Ctrl-C.

Everything runs in-process through ``fortythieves_agents.cli.main.main`` (fast); no test here trains.
"""

from __future__ import annotations

import json
import shlex
import sys
import zipfile
from pathlib import Path

import fortythieves_agents.cli.commands.evaluate as evaluate_command
import fortythieves_agents.evaluation.evaluate as evaluation
import pytest
from fortythieves_agents.cli.main import main
from fortythieves_agents.config import load_config
from fortythieves_agents.envs import make_training_vec_env
from fortythieves_agents.training.train import build_model
from helpers import STREETS as STREETS_YAML
from helpers import one_error_line, rewrite_zip

from configs import PLAIN

STREETS = str(STREETS_YAML)  # an argv item
SMALL = [*PLAIN, "train.n_envs=1", "ppo.n_steps=16", "ppo.batch_size=16", "policy.features_dim=16"]


@pytest.fixture
def paths(tmp_path: Path) -> dict[str, str]:
    """A regular file, a folder, and paths that need one to be the other."""
    file = tmp_path / "a_file.txt"
    file.write_text("x", encoding="utf-8")
    folder = tmp_path / "a_folder"
    folder.mkdir()
    return {
        "file": str(file),
        "folder": str(folder),
        "under_file": str(file / "sub" / "x.json"),
        "missing": str(tmp_path / "missing.zip"),
    }


@pytest.fixture(scope="module")
def model_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An untrained Streets model saved like a trained one (no training: fast)."""
    config = load_config(STREETS, SMALL)
    env = make_training_vec_env(config)
    model = build_model(config, env, None)
    path = tmp_path_factory.mktemp("model") / "model.zip"
    model.save(path)
    env.close()
    return path


# ------------------------------------------------------------------ every option, bad values

TRAIN_BAD = [
    (["train"], ["config"]),
    (["train", STREETS, "--set"], ["--set"]),
    (["train", STREETS, "--set", "ppo.gamma"], ["--set ppo.gamma", "KEY.SUB=VALUE"]),
    (["train", STREETS, "--set", "ppo.gamma=2"], ["--set ppo.gamma=2", "ppo.gamma"]),
    (["train", STREETS, "--set", "ppo.gamma=["], ["--set ppo.gamma=[", "not valid YAML"]),
    (["train", STREETS, "--set", "seed=-1"], ["--set seed=-1", "seed"]),
    (["train", STREETS, "--set", "ppo.nope=1"], ["--set ppo.nope=1", "unknown key"]),
    (["train", STREETS, "--set", "env.variant=Klondike"], ["env.variant", "Klondike"]),
    (["train", STREETS, "--run-dir", "{file}"], ["argument --run-dir", "{file}"]),
    (["train", STREETS, "--run-dir", "{under_file}"], ["argument --run-dir", "{file}"]),
    (["train", STREETS, "--run-dir", ""], ["argument --run-dir"]),
    (["train", STREETS, "--resume", "{missing}"], ["argument --resume", "{missing}"]),
    (["train", STREETS, "--resume", "{folder}"], ["argument --resume", "{folder}"]),
    (["train", STREETS, "--resume", "{file}"], ["argument --resume", "{file}"]),
    (["train", "{missing}"], ["{missing}", "not found"]),
    (["train", "{folder}"], ["{folder}", "folder"]),
    (["train", STREETS, "--bogus"], ["--bogus"]),
]

EVALUATE_BAD = [
    (["evaluate", "random", "--variant", "Maria", "--seed", "-1"], ["argument --seed", "-1"]),
    (["evaluate", "random", "--variant", "Maria", "--seed", "x"], ["argument --seed"]),
    (["evaluate", "random", "--variant", "Maria", "--seed", "4294967296"], ["argument --seed"]),
    (["evaluate", "random", "--variant", "Maria", "--seed", "1.5"], ["argument --seed"]),
    (["evaluate", "random", "--variant", "Maria", "--episodes", "0"], ["argument --episodes"]),
    (["evaluate", "random", "--variant", "Maria", "--episodes", "-3"], ["argument --episodes"]),
    (["evaluate", "random", "--variant", "Maria", "--episodes", "lots"], ["argument --episodes"]),
    (["evaluate", "random", "--variant", "Maria", "--episodes", "2e9"], ["argument --episodes"]),
    (["evaluate", "random", "--variant", "Klondike"], ["argument --variant", "Klondike"]),
    (["evaluate", "random"], ["--variant is required"]),
    (["evaluate", "{model}", "--baselines", "best"], ["argument --baselines", "best"]),
    (["evaluate", "random", "--variant", "Maria", "--json", "{folder}"], ["argument --json"]),
    (["evaluate", "random", "--variant", "Maria", "--json", "{under_file}"], ["--json", "{file}"]),
    (["evaluate", "random", "--variant", "Maria", "--stochastic=yes"], ["--stochastic"]),
    (["evaluate", "random", "--variant", "Maria", "--per-episode=1"], ["--per-episode"]),
    (["evaluate", "random", "--variant", "Maria", "--no-progress=1"], ["--no-progress"]),
    (["evaluate", "{missing}"], ["RUN_OR_MODEL", "{missing}"]),
    (["evaluate", "{folder}"], ["RUN_OR_MODEL", "{folder}", "no model found"]),
    (["evaluate", "{file}"], ["{file}", "not a saved SB3 model"]),
    (["evaluate"], ["RUN_OR_MODEL"]),
    ([], ["command"]),
    (["fit"], ["fit"]),
]


@pytest.mark.parametrize(
    ("argv", "names"),
    TRAIN_BAD + EVALUATE_BAD,
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_bad_value_is_one_line_naming_it_and_exit_2(
    argv: list[str],
    names: list[str],
    paths: dict[str, str],
    model_zip: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def no_work(*args: object, **kwargs: object) -> None:
        raise AssertionError("work started before the arguments were checked")

    monkeypatch.setattr(evaluation, "evaluate_agents", no_work)
    monkeypatch.setattr("fortythieves_agents.training.train.make_training_vec_env", no_work)
    values = {**paths, "model": str(model_zip)}
    argv = [arg.format(**values) for arg in argv]
    assert main(argv) == 2
    one_error_line(capsys, *(name.format(**values) for name in names))


def test_seed_error_reads_as_promised(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "random", "--variant", "Maria", "--seed", "-1"]) == 2
    assert one_error_line(capsys) == (
        "fortythieves evaluate: error: argument --seed: must be an integer in 0..4294967295, "
        "got '-1'"
    )


def test_good_numbers_in_yaml_like_forms_are_accepted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import fortythieves_agents.players.baselines as baselines

    seen: dict[str, object] = {}
    real_make = baselines.make_baseline

    def make(name: str, seed: int = 0) -> object:
        seen["seed"] = seed
        return real_make(name, seed)

    def record(agents: list[object], variant: str, episodes: int, **kwargs: object) -> None:
        seen.update(variant=variant, episodes=episodes)
        raise KeyboardInterrupt

    monkeypatch.setattr(baselines, "make_baseline", make)
    monkeypatch.setattr(evaluation, "evaluate_agents", record)
    argv = ["evaluate", "random", "--variant", "Maria", "--episodes", "1e3", "--seed", "1_000"]
    assert main(argv) == 130
    assert seen == {"seed": 1000, "variant": "Maria", "episodes": 1000}


# ------------------------------------------------------------------ files read and written


def _damage_member(src: Path, dst: Path, member: str, data: bytes) -> None:
    """Copy a zip replacing one member's bytes (the zip itself stays valid)."""
    rewrite_zip(src, dst, lambda name, content: data if name == member else content)


def test_damaged_policy_inside_intact_zip(
    model_zip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad_policy.zip"
    _damage_member(model_zip, bad, "policy.pth", b"not a torch file")
    assert main(["evaluate", str(bad), "--episodes", "1"]) == 2
    # evaluate reads weights only (fortythieves_agents.networks.model_zip): the line names the damaged member
    one_error_line(capsys, str(bad), "policy.pth is not plain weights")
    run = tmp_path / "run"
    assert main(["train", STREETS, "--resume", str(bad), "--run-dir", str(run)]) == 2
    one_error_line(capsys, "--resume", str(bad), "cannot load the model")
    assert not run.exists()  # nothing written


def test_missing_member_and_corrupt_bytes(
    model_zip: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    no_data = tmp_path / "no_data.zip"
    with zipfile.ZipFile(model_zip) as zin, zipfile.ZipFile(no_data, "w") as zout:
        for item in zin.infolist():
            if item.filename != "policy.pth":
                zout.writestr(item, zin.read(item.filename))
    assert main(["evaluate", str(no_data), "--episodes", "1"]) == 2
    one_error_line(capsys, str(no_data))

    flipped = tmp_path / "flipped.zip"
    raw = bytearray(model_zip.read_bytes())
    middle = len(raw) // 2
    raw[middle : middle + 64] = bytes(64)  # damages a member: its CRC no longer matches
    flipped.write_bytes(bytes(raw))
    for argv in (
        ["evaluate", str(flipped), "--episodes", "1"],
        ["train", STREETS, "--resume", str(flipped), "--run-dir", str(tmp_path / "r")],
    ):
        assert main(argv) == 2
        one_error_line(capsys, str(flipped))
    assert not (tmp_path / "r").exists()


def test_config_files_that_cannot_be_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"env:\n  variant: Stre\xe9ts\n")
    assert main(["train", str(latin)]) == 2
    one_error_line(capsys, str(latin), "UTF-8")

    (tmp_path / "base_folder.yaml").mkdir()
    top = tmp_path / "top.yaml"
    top.write_text("base: base_folder.yaml\n", encoding="utf-8")
    assert main(["train", str(top)]) == 2
    one_error_line(capsys, "base_folder.yaml", "folder", str(top))

    under = tmp_path / "top.yaml" / "x.yaml"
    assert main(["train", str(under)]) == 2
    one_error_line(capsys, str(under))

    broken = tmp_path / "broken.yaml"
    broken.write_text("env: [unclosed\nseed: 1\n", encoding="utf-8")
    assert main(["train", str(broken)]) == 2
    one_error_line(capsys, str(broken), "invalid YAML")


@pytest.mark.parametrize(
    "make_bad",
    ["run_is_file", "config_is_folder", "models_is_file", "final_model_is_folder"],
)
def test_run_dir_that_cannot_be_filled_is_refused_before_writing(
    make_bad: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def no_work(*args: object, **kwargs: object) -> None:
        raise AssertionError("training started before the run folder was checked")

    monkeypatch.setattr("fortythieves_agents.training.train.make_training_vec_env", no_work)
    run = tmp_path / "run"
    bad = {
        "run_is_file": run,
        "config_is_folder": run / "config.yaml",
        "models_is_file": run / "models",
        "final_model_is_folder": run / "models" / "final_model.zip",
    }[make_bad]
    if make_bad.endswith("is_file"):
        bad.parent.mkdir(parents=True, exist_ok=True)
        bad.write_text("x", encoding="utf-8")
    else:
        bad.mkdir(parents=True)
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    assert main(["train", STREETS, "--run-dir", str(run)]) == 2
    one_error_line(capsys, "--run-dir", str(bad))
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


def test_json_that_cannot_be_written_after_evaluating_goes_to_stdout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file became unwritable while the evaluation ran: the report is not lost."""
    blocker = tmp_path / "blocker"
    blocker.write_text("x", encoding="utf-8")
    target = blocker / "report.json"
    monkeypatch.setattr(evaluate_command, "check_writable_file", lambda path, what: None)
    argv = ["evaluate", "greedy", "--variant", "Streets", "--episodes", "1", "--json", str(target)]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert len(err.strip().splitlines()) == 1 and "argument --json" in err and str(target) in err
    report = json.loads(out[out.index("{\n") :])
    assert report["results"]["greedy"]["episodes"] == 1


# ------------------------------------------------------------------ progress and Ctrl-C


def test_evaluate_shows_progress_on_a_terminal_only(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["evaluate", "random", "--variant", "Streets", "--episodes", "3"]
    assert main(argv) == 0
    assert capsys.readouterr().err == ""  # not a terminal: no bar
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "Streets random" in err and "/3 [" in err and "deal/s" in err  # count, time left
    assert main([*argv, "--no-progress"]) == 0
    assert capsys.readouterr().err == ""


def test_ctrl_c_during_evaluate_prints_the_command_that_reruns_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    played = []

    def play(agent: object, env_id: str, seeds: list[int], *args: object, **kw: object) -> object:
        def interrupt_after_one(k: int) -> None:  # Ctrl-C once the first deal has ended
            played.append(k)
            raise KeyboardInterrupt

        return real_play(agent, env_id, seeds, None, interrupt_after_one)

    real_play = evaluation.play_deals
    monkeypatch.setattr(evaluation, "play_deals", play)
    out_json = tmp_path / "my report.json"
    argv = ["evaluate", "random", "--variant", "Streets", "--episodes", "5"]
    argv += ["--seed", "3", "--json", str(out_json)]
    assert main(argv) == 130
    line = one_error_line_interrupt(capsys)
    command = line.split("re-run with: ", 1)[1]
    assert shlex.split(command) == ["fortythieves", *argv]
    assert not out_json.exists() and played
    monkeypatch.setattr(evaluation, "play_deals", real_play)
    assert main(shlex.split(command)[1:]) == 0  # the printed command works
    assert json.loads(out_json.read_text())["episodes"] == 5


def test_sigterm_during_evaluate_is_an_interruption_too(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A scheduler's SIGTERM (or SIGINT that a background shell left ignored) stops the
    evaluation with the re-run line; the handlers are put back afterwards."""
    import signal

    real_play = evaluation.play_deals

    def play(agent: object, env_id: str, seeds: list[int], *args: object, **kw: object) -> object:
        signal.raise_signal(signal.SIGTERM)
        return real_play(agent, env_id, seeds, *args, **kw)

    def caller_handler(signum: int, frame: object) -> None:  # never lethal to pytest
        received.append(signum)

    received: list[int] = []
    monkeypatch.setattr(evaluation, "play_deals", play)
    before = signal.signal(signal.SIGTERM, caller_handler)
    try:
        argv = ["evaluate", "greedy", "--variant", "Streets", "--episodes", "2"]
        assert main(argv) == 130
        assert one_error_line_interrupt(capsys).endswith(
            "re-run with: " + shlex.join(["fortythieves", *argv])
        )
        assert received == []  # the evaluation's own handler took it
        assert signal.getsignal(signal.SIGTERM) is caller_handler
    finally:
        signal.signal(signal.SIGTERM, before)


def one_error_line_interrupt(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "interrupted" in lines[0] and "Traceback" not in err, err
    return lines[0]


def test_checks_create_nothing(tmp_path: Path) -> None:
    from fortythieves_agents.paths import check_writable_dir, check_writable_file

    check_writable_dir(tmp_path / "a" / "b", "--run-dir")
    check_writable_file(tmp_path / "c" / "d.json", "--json")
    assert list(tmp_path.iterdir()) == []


def test_a_model_loaded_to_act_has_no_optimizer_and_acts_as_the_full_load(
    model_zip: Path,
) -> None:
    """Evaluation loads a model without building its optimizer (which would import
    torch._dynamo, as slow as torch itself); the policy's logits are the same."""
    import subprocess
    import sys

    import gymnasium as gym
    import numpy as np
    import torch
    from fortythieves_agents.evaluation.evaluate import load_model_agent
    from fortythieves_agents.networks.model_zip import load_maskable_ppo

    agent, variant = load_model_agent(model_zip)
    full = load_maskable_ppo(model_zip, device="cpu")
    assert variant == "Streets"
    assert not isinstance(agent.model.policy.optimizer, torch.optim.Optimizer)
    env = gym.make("FortyThieves/Streets-v0")
    obs, info = env.reset(seed=5)
    masks = torch.as_tensor(info["action_mask"][None])
    with torch.no_grad():
        fast = agent.logits(obs[None], masks)
        agent_full = type(agent)(full, "ppo", True, 0)
        slow = agent_full.logits(obs[None], masks)
    np.testing.assert_array_equal(np.asarray(fast), np.asarray(slow))
    code = (
        "import sys; from fortythieves_agents.evaluation.evaluate import load_model_agent; "
        f"load_model_agent({str(model_zip)!r}); print('torch._dynamo' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split()[-1] == "False"


def test_piped_output_is_wide_enough_for_the_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """Piped (not a terminal) rich would cut tables to 80 columns ("foundat..."): the commands'
    console is PIPED_WIDTH wide then, unless COLUMNS says otherwise."""
    from fortythieves_agents.cli.main import PIPED_WIDTH, _console

    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    monkeypatch.delenv("COLUMNS", raising=False)
    assert _console().width == PIPED_WIDTH == 160
    monkeypatch.setenv("COLUMNS", "100")
    assert _console().width == 100
    # a COLUMNS that is not a usable width is ignored (at 0 rich printed nothing at all)
    for bad in ("0", "-5", "abc", "", "5"):
        monkeypatch.setenv("COLUMNS", bad)
        assert _console().width == PIPED_WIDTH, bad


def test_python_m_runs_the_command() -> None:
    """``python -m fortythieves_agents.cli`` is the ``fortythieves`` command."""
    import subprocess

    from fortythieves_env import __version__

    done = subprocess.run(
        [sys.executable, "-m", "fortythieves_agents.cli", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout.strip()) == (0, f"fortythieves {__version__}")
