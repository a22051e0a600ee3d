"""Past one machine: ``sweep`` on Ray Tune, ``evaluate --ray`` and ``solve --ray``.

The Ray tests share one local Ray of two CPUs (``ray.init(num_cpus=2,
include_dashboard=False)``); every training is a few hundred steps. The planning, statistics
and resume logic are tested without Ray.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fortythieves_agents.cli.main import main
from fortythieves_agents.config import ConfigError, load_config
from fortythieves_agents.evaluation.distributed import play_parts
from fortythieves_agents.evaluation.report_schema import check_report
from fortythieves_agents.evaluation.solve import solver_verdicts
from fortythieves_agents.paths import portable_path
from fortythieves_agents.process import stop_signals_interrupt
from fortythieves_agents.reports.speed import RAY_NOT_MEASURED, ray_speedup_table
from fortythieves_agents.seeds import seeds_for_test
from fortythieves_agents.training.sweep import (
    best_config,
    latest_checkpoint,
    parse_grid,
    plan_sweep,
    summarize_sweep,
    t_quantile,
    train_or_continue,
)
from helpers import ROOT, STREETS, one_error_line, run_cli

import configs
from configs import with_set

TINY = [
    *configs.TINY,
    "train.total_timesteps=128",
    "train.checkpoint_freq=64",
    "eval.eval_freq=64",
    "eval.n_eval_episodes=2",
    "eval.baselines=[]",
    # the default again: the tests see the sweep turn the progress bar off in its trials
    "train.progress_bar=true",
]
"""configs.TINY, twice as long, with a checkpoint and a validation at step 64 (a sweep
scores each trial by its validations)."""
NODES = 3000


# ---------------------------------------------------------------------- without Ray
@pytest.mark.parametrize(
    ("df", "table"),
    [(1, 12.706), (2, 4.303), (3, 3.182), (4, 2.776), (9, 2.262), (10, 2.228), (30, 2.042)],
)
def test_t_quantile_matches_the_printed_tables(df: int, table: float) -> None:
    """The 97.5% points of Student's t as printed in every statistics table (3 decimals)."""
    assert round(t_quantile(0.975, df), 3) == table


def test_t_quantile_approaches_the_normal_one() -> None:
    assert abs(t_quantile(0.975, 20000) - 1.959963984540054) < 2e-4
    assert t_quantile(0.5, 5) < 1e-9


def test_play_parts_cover_the_deals_in_order() -> None:
    for n, workers in [(1, 4), (7, 2), (10, 3), (9000, 1), (5, 5)]:
        parts = play_parts(n, workers)
        assert parts[0][0] == 0 and parts[-1][1] == n
        assert all(a < b for a, b in parts)
        assert all(p[1] == q[0] for p, q in itertools.pairwise(parts))
        assert len(parts) == max(min(n, workers), -(-n // 4096))
        sizes = [b - a for a, b in parts]
        assert max(sizes) - min(sizes) <= 1


def test_parts_played_apart_give_the_results_of_the_whole() -> None:
    """What each evaluate --ray task does: deals [a, b) played as deals a.. of the list
    (``first_game=a``) make the choices of the whole list played at once."""
    from fortythieves_agents.evaluation.evaluate import play_deals
    from fortythieves_agents.players.baselines import make_baseline

    seeds = seeds_for_test(7)
    whole = play_deals(make_baseline("random", 5), "FortyThieves/Streets-v0", seeds)
    parts = []
    for a, b in play_parts(7, 3):
        part = seeds[a:b]
        parts += play_deals(
            make_baseline("random", 5), "FortyThieves/Streets-v0", part, first_game=a
        )
    assert parts == whole
    assert len({r.foundation_cards for r in whole}) > 1
    shifted = play_deals(make_baseline("random", 5), "FortyThieves/Streets-v0", seeds[3:])
    assert shifted != whole[3:]  # without first_game the part would play other choices


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("ppo.n_epochs", ["--grid ppo.n_epochs", "KEY.SUB=[V1, V2, ...]"]),
        ("ppo..n_epochs=[1]", ["KEY.SUB"]),
        ("ppo.n_epochs=4", ["non-empty YAML list"]),
        ("ppo.n_epochs=[]", ["non-empty YAML list"]),
        ("ppo.n_epochs=[1, 1]", ["value 1 is given twice"]),
        ("ppo.n_epochs=[1", ["not valid YAML"]),
        ("seed=[1, 2]", ["--seeds"]),
    ],
)
def test_bad_grid_arguments_are_refused(text: str, words: list[str]) -> None:
    with pytest.raises(ConfigError) as err:
        parse_grid([text])
    for word in words:
        assert word in str(err.value)


def test_grid_values_are_read_as_config_yaml() -> None:
    grid = parse_grid(["ppo.learning_rate=[1e-3, 3e-4]", "policy.net_arch_pi=[[64, 64], [32]]"])
    assert grid == [
        ("ppo.learning_rate", [0.001, 0.0003]),
        ("policy.net_arch_pi", [[64, 64], [32]]),
    ]
    with pytest.raises(ConfigError, match="already swept"):
        parse_grid(["ppo.n_epochs=[1, 2]", "ppo.n_epochs=[3]"])


def test_grid_keys_inside_one_another_are_refused() -> None:
    # ppo=[{gamma: 0.7}] after ppo.gamma=[0.9, 0.8] overwrote gamma: two equal settings
    for texts in (
        ["ppo.gamma=[0.9, 0.8]", "ppo=[{gamma: 0.7}]"],
        ["ppo=[{gamma: 0.7}]", "ppo.gamma=[0.9, 0.8]"],
    ):
        with pytest.raises(ConfigError) as err:
            parse_grid(texts)
        assert str(err.value).startswith(f"--grid {texts[1]}: ")
        assert "overlaps" in str(err.value)
    assert [k for k, _ in parse_grid(["ppo.gamma=[0.9]", "ppo.gae_lambda=[0.9]"])] == [
        "ppo.gamma",
        "ppo.gae_lambda",
    ]


def test_plan_refuses_two_settings_with_the_same_config() -> None:
    with pytest.raises(ConfigError) as err:
        plan_sweep(STREETS, TINY, ["ppo.gamma=[1, 0.9, 1.0]"], seeds=1)
    assert "settings ppo.gamma=1 and ppo.gamma=1.0 give the same config" in str(err.value)


def test_plan_checks_every_setting_like_a_config() -> None:
    plan = plan_sweep(
        STREETS,
        [*TINY, "seed=7"],
        ["ppo.n_epochs=[1, 2]", "ppo.learning_rate=[1e-3, 3e-4]"],
        seeds=3,
        cpus_per_trial=2,
    )
    assert plan.seeds == [7, 8, 9]
    assert plan.settings == [
        {"ppo.n_epochs": 1, "ppo.learning_rate": 0.001},
        {"ppo.n_epochs": 1, "ppo.learning_rate": 0.0003},
        {"ppo.n_epochs": 2, "ppo.learning_rate": 0.001},
        {"ppo.n_epochs": 2, "ppo.learning_rate": 0.0003},
    ]
    assert len(plan.trials) == 12
    last = plan.trials[-1]
    assert last["name"] == "setting3-seed9" and last["setting"] == 3 and last["seed"] == 9
    assert last["config"]["ppo"]["n_epochs"] == 2
    assert last["config"]["ppo"]["learning_rate"] == 0.0003
    assert last["config"]["seed"] == 9
    assert last["config"]["train"]["torch_threads"] == 2  # --cpus-per-trial
    assert last["config"]["train"]["progress_bar"] is False
    assert plan.trials[0]["config"]["seed"] == 7


def test_plan_errors_name_the_grid_argument() -> None:
    with pytest.raises(ConfigError) as err:
        plan_sweep(STREETS, TINY, ["ppo.n_epochs=[1, 0]"], seeds=1)
    assert "--grid ppo.n_epochs=[1, 0]: ppo.n_epochs" in str(err.value)
    with pytest.raises(ConfigError) as err:
        plan_sweep(STREETS, TINY, ["ppo.no_such_key=[1]"], seeds=1)
    assert "--grid ppo.no_such_key=[1]: ppo.no_such_key: unknown key" in str(err.value)


def test_best_config_is_the_settings_trial_config_also_inside_a_null_section() -> None:
    plan = plan_sweep(
        STREETS, TINY, ["train.shaping.face_down=[0.1, 0.2]", "ppo.n_epochs=[1, 2]"], seeds=1
    )
    assert plan.base_config["train"]["shaping"] is None
    request = {"base_config": plan.base_config, "settings": plan.settings}
    for index, trial in enumerate(plan.trials):
        best = best_config(request, index).model_dump(mode="json")
        expected = trial["config"]
        assert best["train"]["shaping"] == expected["train"]["shaping"]
        assert (
            best["train"]["shaping"]["face_down"] == plan.settings[index]["train.shaping.face_down"]
        )
        assert best["ppo"] == expected["ppo"]
        assert best["train"]["torch_threads"] == plan.base_config["train"]["torch_threads"]


def test_plan_refuses_a_sweep_without_validation() -> None:
    with pytest.raises(ConfigError, match=r"eval\.eval_freq is 0"):
        plan_sweep(STREETS, [*TINY, "eval.eval_freq=0"], [], seeds=1)
    with pytest.raises(ConfigError, match=r"eval\.eval_freq is 1000"):
        plan_sweep(STREETS, TINY, ["eval.eval_freq=[64, 1000]"], seeds=1)
    with pytest.raises(ConfigError, match="--seeds"):
        plan_sweep(STREETS, TINY, [], seeds=0)


def _request(tmp_path: Path, scores: dict[str, list[float] | None]) -> dict[str, Any]:
    """A sweep request whose trial folders hold finished runs with the given validation
    foundation cards (one list of episodes per validation), or nothing (None)."""
    trials = []
    for index, (name, cards) in enumerate(scores.items()):
        run = tmp_path / name
        if cards is not None:
            (run / "eval").mkdir(parents=True)
            (run / "run.json").write_text(json.dumps({"status": "completed"}))
            np.savez(
                run / "eval" / "foundation_cards.npz",
                timesteps=np.array([64, 128], dtype=np.int64),
                foundation_cards=np.array(cards, dtype=np.int64),
            )
        trials.append({"name": name, "setting": index // 2, "seed": index % 2, "run_dir": str(run)})
    return {"trials": trials, "settings": [{"k": 1}, {"k": 2}]}


def test_summary_scores_the_best_validation_and_intervals_over_seeds(tmp_path: Path) -> None:
    request = _request(
        tmp_path,
        {
            "a0": [[10, 12], [20, 30]],  # best validation: mean 25 at step 128
            "a1": [[40, 20], [1, 1]],  # 30 at step 64
            "b0": [[5, 5], [6, 6]],
            "b1": [[7, 7], [8, 8]],
        },
    )
    summary = summarize_sweep(request)
    a0 = summary["trials"][0]
    assert (a0["status"], a0["score"], a0["best_timesteps"]) == ("finished", 25.0, 128)
    assert summary["trials"][1]["best_timesteps"] == 64
    first, second = summary["settings"]
    assert first["scores"] == [25.0, 30.0] and first["mean"] == 27.5
    half = t_quantile(0.975, 1) * np.std([25.0, 30.0], ddof=1) / np.sqrt(2)
    assert first["ci95"] == pytest.approx([max(0.0, 27.5 - half), 27.5 + half])
    assert second["mean"] == 7.0
    assert summary["best"]["setting"] == 0 and summary["best"]["values"] == {"k": 1}


def test_no_best_setting_until_every_trial_finished(tmp_path: Path) -> None:
    request = _request(tmp_path, {"a0": [[1, 1]], "a1": [[2, 2]], "b0": [[9, 9]], "b1": None})
    summary = summarize_sweep(request, {"b1": "RuntimeError: boom"})
    assert summary["finished"] == 3 and summary["best"] is None
    assert summary["trials"][3]["status"] == "failed"
    assert summary["trials"][3]["error"] == "RuntimeError: boom"
    assert summary["settings"][1]["finished"] == 1 and summary["settings"][1]["ci95"] is None


def test_a_cut_trial_continues_from_its_latest_checkpoint(tmp_path: Path) -> None:
    """A trial folder cut after a checkpoint is trained on from it (train --resume, same
    folder); one cut before any checkpoint is moved aside and trained afresh."""
    config = load_config(STREETS, [*TINY, "eval.final_episodes=0"])
    run, cut = tmp_path / "runs" / "t", tmp_path / "cut"
    assert train_or_continue(config, run, cut) == "completed"
    assert len((run / "command.txt").read_text().splitlines()) == 1
    assert train_or_continue(config, run, cut) == "completed"  # finished: left alone
    assert len((run / "command.txt").read_text().splitlines()) == 1

    # cut: as a killed trial leaves it (no final model, run.json still "running")
    (run / "models" / "final_model.zip").unlink()
    meta = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**meta, "status": "running"}))
    (run / "models" / "checkpoints" / "ckpt_128_steps.zip").unlink()
    with np.load(run / "eval" / "foundation_cards.npz") as data:
        before_cut = data["foundation_cards"][0]
    checkpoint, steps = latest_checkpoint(run)  # type: ignore[misc]
    assert checkpoint.name == "ckpt_64_steps.zip" and steps == 64
    assert train_or_continue(config, run, cut) == "completed"
    lines = (run / "command.txt").read_text().splitlines()
    # the record names no absolute path (fortythieves_agents.paths.portable_path)
    resumed = f"--resume {portable_path(checkpoint)} --run-dir {portable_path(run)}"
    assert len(lines) == 2 and resumed in lines[1] and str(tmp_path) not in lines[1]
    meta = json.loads((run / "run.json").read_text())
    assert meta["start_timesteps"] == 64 and meta["resumed_from"] == portable_path(checkpoint)
    assert not Path(meta["resumed_from"]).is_absolute()
    # the validation at step 64 (before the cut) is kept beside the new one at 128, so the
    # trial's score is its best over the whole run
    with np.load(run / "eval" / "foundation_cards.npz") as data:
        assert data["timesteps"].tolist() == [64, 128]
        assert before_cut.tolist() == data["foundation_cards"][0].tolist()
    with np.load(run / "eval" / "evaluations.npz") as data:
        assert data["timesteps"].tolist() == [64, 128]

    # cut before the first checkpoint: kept aside, trained again from the start
    shutil.rmtree(run / "models" / "checkpoints")
    (run / "models" / "final_model.zip").unlink()
    (run / "run.json").write_text(json.dumps({**meta, "status": "running"}))
    assert train_or_continue(config, run, cut) == "completed"
    assert (cut / "t-1" / "command.txt").read_text().count("\n") == 2
    assert len((run / "command.txt").read_text().splitlines()) == 1
    assert json.loads((run / "run.json").read_text())["start_timesteps"] == 0


def test_sweep_refusals_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", str(STREETS)]) == 2
    one_error_line(capsys, "--seeds", command="sweep")
    assert main(["sweep", "--seeds", "2"]) == 2
    one_error_line(capsys, "CONFIG", command="sweep")
    assert main(["sweep", "--resume", str(tmp_path), "--seeds", "2"]) == 2
    one_error_line(capsys, "--resume", "--seeds", command="sweep")
    assert main(["sweep", "--resume", str(tmp_path)]) == 2
    one_error_line(capsys, "not a sweep folder", command="sweep")
    assert main(["sweep", str(STREETS), "--seeds", "1", "--grid", "ppo.n_epochs=3"]) == 2
    one_error_line(capsys, "--grid ppo.n_epochs=3", command="sweep")
    assert main(["evaluate", "random", "--variant", "Streets", "--address", "x:1"]) == 2
    one_error_line(capsys, "--address", "--ray", command="evaluate")
    assert main(["solve", "Streets", "--deals", "1", "--nodes", "1", "--address", "x:1"]) == 2
    one_error_line(capsys, "--address", "--ray", command="solve")


def test_evaluate_and_solve_ask_for_a_quiet_ray(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``evaluate --ray`` and ``solve --ray`` open a quiet session (Ray's messages off the
    console), and a quiet :func:`connect` starts Ray with its logger at ERROR and the
    workers' output kept on the workers; ``sweep``'s connection is unchanged."""
    ray = pytest.importorskip("ray", reason="Ray has no wheel for this Python (the ray extra)")
    import logging
    from contextlib import contextmanager

    import fortythieves_agents.evaluation.distributed as distributed

    asked: list[bool] = []

    @contextmanager
    def session(address: str | None = None, quiet: bool = False) -> Iterator[str]:
        asked.append(quiet)
        raise ConfigError("stopped here")
        yield "local"  # pragma: no cover

    monkeypatch.setattr(distributed, "ray_session", session)
    assert main(["evaluate", "greedy", "--variant", "Streets", "--episodes", "1", "--ray"]) == 2
    assert main(["solve", "LittleForty", "--deals", "1", "--nodes", "1", "--ray"]) == 2
    assert asked == [True, True]
    assert capsys.readouterr().err.count("stopped here") == 2
    calls: list[dict[str, Any]] = []
    shipped_during_init: list[bool] = []

    def init(**kwargs: Any) -> None:
        calls.append(kwargs)
        if "runtime_env" in kwargs:  # the package copy exists while Ray uploads it
            folder = Path(kwargs["runtime_env"]["py_modules"][0])
            shipped_during_init.append((folder / "cli" / "main.py").is_file())

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", init)
    monkeypatch.setattr(distributed, "_reach", lambda target, where: None)  # no cluster here
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert distributed.connect(quiet=True) == "local"
    assert distributed.connect("x:1", quiet=True) == "x:1"
    assert distributed.connect() == "local"
    quiet = {"logging_level": logging.ERROR, "log_to_driver": False}
    sent = calls[1].pop("runtime_env")
    assert calls == [
        {"include_dashboard": False, **quiet},
        {"address": "x:1", **quiet},
        {"include_dashboard": False},
    ]
    shipped = Path(sent["py_modules"][0])
    assert shipped.name == "fortythieves_agents" and shipped_during_init == [True]
    assert sent == distributed.runtime_env(shipped)


def _closed_port() -> int:
    """A local TCP port nothing listens on (bound, then closed)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_ray_address_is_refused_at_once_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """issue 37 point 6: ``--address`` or ``RAY_ADDRESS`` where nothing answers took Ray
    minutes of retries (its connection messages repeated, past 150 s), and each try left a
    copy of the package in TMPDIR: now one line within seconds, naming the address and what
    to do, and no copy."""
    ray = pytest.importorskip("ray", reason="Ray has no wheel for this Python (the ray extra)")
    import tempfile

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    port = _closed_port()
    start = time.perf_counter()
    argv = ["evaluate", "greedy", "--variant", "LittleForty", "--episodes", "1", "--ray"]
    assert main([*argv, "--address", f"127.0.0.1:{port}"]) == 2
    line = one_error_line(capsys, f"--address 127.0.0.1:{port}", command="evaluate")
    assert "cannot reach" in line and "ray start --head" in line and "leave out --address" in line
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")
    assert main(argv) == 2
    line = one_error_line(capsys, f"RAY_ADDRESS=127.0.0.1:{port}", command="evaluate")
    assert "unset RAY_ADDRESS" in line
    assert time.perf_counter() - start < 30  # Ray's own retries: minutes
    assert list(tmp_path.iterdir()) == []


def test_connecting_to_a_cluster_removes_the_package_copy_and_bounds_ray(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The copy of ``agents/`` Ray uploads is removed once ``ray.init`` returns or fails;
    while it runs, Ray's attempts to reach the cluster are bounded (unless the user set
    them), and its SIGTERM handler does not outlive it."""
    ray = pytest.importorskip("ray", reason="Ray has no wheel for this Python (the ray extra)")
    import socket
    import tempfile

    import fortythieves_agents.evaluation.distributed as distributed

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.delenv(distributed.GCS_ATTEMPTS_VARIABLE, raising=False)
    seen: list[tuple[str | None, bool]] = []

    def init(**kwargs: Any) -> None:
        folder = Path(kwargs["runtime_env"]["py_modules"][0])
        seen.append((os.environ.get(distributed.GCS_ATTEMPTS_VARIABLE), folder.is_dir()))
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(signum))  # as Ray does
        if len(seen) == 1:
            raise ConnectionError("Failed to connect to Ray cluster")

    monkeypatch.setattr(ray, "init", init)
    before = signal.getsignal(signal.SIGTERM)
    try:
        with socket.socket() as server:  # an address that answers
            server.bind(("127.0.0.1", 0))
            server.listen()
            address = f"127.0.0.1:{server.getsockname()[1]}"
            with stop_signals_interrupt():
                ours = signal.getsignal(signal.SIGTERM)
                with pytest.raises(ConfigError, match=f"--address {address}: cannot connect"):
                    distributed.connect(address)
                assert signal.getsignal(signal.SIGTERM) is ours  # not Ray's sys.exit(15)
                assert distributed.connect(address) == address
                assert signal.getsignal(signal.SIGTERM) is ours

                def stopped(**kwargs: Any) -> None:  # SIGTERM while Ray's handler is set
                    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(signum))
                    sys.exit(signal.SIGTERM)

                monkeypatch.setattr(ray, "init", stopped)
                with pytest.raises(KeyboardInterrupt):  # as without Ray
                    distributed.connect(address)
                assert signal.getsignal(signal.SIGTERM) is ours
    finally:
        signal.signal(signal.SIGTERM, before)
    assert seen == [(str(distributed.GCS_ATTEMPTS), True)] * 2
    assert distributed.GCS_ATTEMPTS_VARIABLE not in os.environ
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("address", "parsed"),
    [
        ("10.0.0.1:6379", ("10.0.0.1", 6379)),
        ("ray://head:10001", ("head", 10001)),
        ("[::1]:6379", ("::1", 6379)),
        ("auto", None),
        ("local", None),
        ("anyscale://cluster", None),
    ],
)
def test_ray_addresses_are_read_as_ray_reads_them(
    address: str, parsed: tuple[str, int] | None
) -> None:
    from fortythieves_agents.evaluation.distributed import _host_port

    assert _host_port(address) == parsed


def test_a_ray_address_without_a_port_is_refused() -> None:
    from fortythieves_agents.evaluation.distributed import _reach

    for bad in ("head", "head:", "head:99999", ":6379"):
        with pytest.raises(ConfigError, match=r"--address .*: not a Ray address HOST:PORT"):
            _reach(bad, f"--address {bad}")


def test_a_long_tmpdir_is_one_line_naming_ray_tmpdir(tmp_path: Path) -> None:
    """issue 37 point 6: Ray's socket paths (``TMPDIR/ray/session_.../sockets/...``) must fit
    in 107 bytes; a longer TMPDIR gave a 36-line traceback."""
    pytest.importorskip("ray", reason="Ray has no wheel for this Python (the ray extra)")
    long = tmp_path / ("t" * 60)
    long.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS", "RAY_TMPDIR")}
    argv = ["evaluate", "greedy", "--variant", "LittleForty", "--episodes", "1", "--ray"]
    done = run_cli(*argv, cwd=tmp_path, env={**env, "TMPDIR": str(long), "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"fortythieves evaluate: error: TMPDIR={long} is too long for Ray")
    assert "107 bytes" in line and "RAY_TMPDIR=/tmp" in line


def test_sigterm_during_evaluate_on_ray_is_an_interrupt(tmp_path: Path) -> None:
    """issue 37 point 6: ``ray.init`` replaced the command's SIGTERM handler (exit 15, or
    Ray's crash dump and exit 134); now SIGTERM stops ``evaluate --ray`` as it stops
    ``evaluate``: exit 130 and one line saying how to re-run it. Sent once the Ray workers
    are playing (their log files exist)."""
    pytest.importorskip("ray", reason="Ray has no wheel for this Python (the ray extra)")
    import subprocess
    import sys
    import tempfile

    ray_tmp = Path(tempfile.mkdtemp(prefix="ft-", dir="/tmp"))  # short: Ray's socket paths
    try:
        env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
        env.update(RAY_TMPDIR=str(ray_tmp), PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
        argv = ["evaluate", "random", "--variant", "Streets", "--episodes", "200000", "--ray"]
        process = subprocess.Popen(
            [sys.executable, "-m", "fortythieves_agents.cli.main", *argv, "--no-progress"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 300
            while not list(ray_tmp.glob("ray/session_*/logs/worker-*.out")):
                assert process.poll() is None, process.communicate()
                assert time.monotonic() < deadline, "Ray's workers did not start"
                time.sleep(0.5)
            time.sleep(2)
            process.send_signal(signal.SIGTERM)
            out, err = process.communicate(timeout=120)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
        assert process.returncode == 130, err
        assert err.splitlines() == [
            "fortythieves evaluate: interrupted, nothing written; re-run with: fortythieves "
            + " ".join(argv)
            + " --no-progress"
        ]
        assert out == ""
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)


def test_evaluate_on_a_new_local_ray_prints_only_its_table(tmp_path: Path) -> None:
    """Ray's token-authentication warning and INFO lines ("Started a local Ray instance")
    came on stderr before ``evaluate --ray``'s table: with a Ray the command starts itself
    (a subprocess, no RAY_ADDRESS) stderr is empty and stdout is the table."""
    pytest.importorskip("ray", reason="Ray has no wheel for this Python (the ray extra)")
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["COLUMNS"] = "200"  # a wide table whatever the worker's terminal (one header line)
    argv = ["evaluate", "greedy", "--variant", "LittleForty", "--episodes", "2", "--ray"]
    done = run_cli(
        *argv, "--no-progress", cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)}, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0] == "FortyThieves/LittleForty-v1: 2 test deals (seeds 2000000000..2000000001)"
    assert [line[0] for line in lines[1:]] == ["┏", "┃", "┡", "│", "└"]
    assert lines[4].startswith("│ greedy │")


# ---------------------------------------------------------------------- on a local Ray
@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    ray = pytest.importorskip("ray", reason="Ray has no wheel for this Python (the ray extra)")
    pytest.importorskip("ray.tune", reason="Ray Tune is not installed (the ray extra)")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield ray
    ray.shutdown()


def test_sweep_trains_every_trial_and_writes_the_best_config(
    local_ray: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # from the checkout, whose results/solver/Streets.jsonl covers the test deals
    monkeypatch.chdir(ROOT)
    argv = ["sweep", str(STREETS), "--seeds", "2", *with_set(TINY), "--runs-root", str(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    (sweep,) = tmp_path.glob("sweep-Streets-*")
    assert "best_config.yaml" in out and str(sweep) in out
    summary = json.loads((sweep / "summary.json").read_text())
    assert summary["finished"] == summary["total"] == 2
    verdicts = solver_verdicts(
        ROOT / "results" / "solver" / "Streets.jsonl", "Streets", seeds_for_test(1)
    )
    assert verdicts is not None
    proved = sum(v == "won" for v in verdicts.values())
    scores = []
    for trial, seed in zip(summary["trials"], [0, 1], strict=True):
        run = Path(trial["run_dir"])
        assert run.is_absolute() and run.parent == sweep / "runs"
        assert trial["seed"] == seed and trial["status"] == "finished"
        config = load_config(run / "config.yaml")
        assert config.seed == seed and config.train.torch_threads == 1
        assert not config.train.progress_bar
        with np.load(run / "eval" / "foundation_cards.npz") as data:
            assert trial["score"] == pytest.approx(data["foundation_cards"].mean(axis=1).max())
        scores.append(trial["score"])
        # the trial ran in the sweep's working folder, not in Tune's trial folder: its final
        # evaluation found the solver's verdicts there, as `fortythieves train` does
        (ppo,) = json.loads((run / "final_evaluation.json").read_text())["results"].values()
        assert ppo["solver_ceiling"]["proved_won"] == proved
    (setting,) = summary["settings"]
    assert setting["mean"] == pytest.approx(np.mean(scores))
    assert summary["best"]["setting"] == 0
    best = load_config(sweep / "best_config.yaml")  # train accepts it
    assert best == load_config(STREETS, TINY)

    # a trial's run folder is an ordinary one: evaluate, plot and train --resume take it
    run = Path(summary["trials"][0]["run_dir"])
    evaluate = ["evaluate", str(run), "--episodes", "3", "--per-episode", "--stochastic"]
    assert main([*evaluate, "--json", str(tmp_path / "local.json")]) == 0
    # the trained model (sampling: per-deal generators) and both baselines, on Ray too
    assert main([*evaluate, "--ray", "--json", str(tmp_path / "ray.json")]) == 0
    local = json.loads((tmp_path / "local.json").read_text())
    assert list(local["results"]) == ["ppo-sampled", "random", "greedy"]
    on_ray = json.loads((tmp_path / "ray.json").read_text())
    # the same report, but for the wall time (the moves it was spent on are the same)
    local_timing, ray_timing = local.pop("timing"), on_ray.pop("timing")
    assert {a: t["moves"] for a, t in ray_timing.items()} == {
        a: t["moves"] for a, t in local_timing.items()
    }
    assert on_ray == local
    assert main(["plot", str(run), "--out", str(tmp_path / "curves.png")]) == 0
    checkpoint = run / "models" / "checkpoints" / "ckpt_128_steps.zip"
    resume = ["train", str(run / "config.yaml"), "--resume", str(checkpoint)]
    resume += with_set(["train.total_timesteps=192", "eval.final_episodes=0"])
    assert main(resume) == 0
    assert json.loads((run / "run.json").read_text())["timesteps"] == 192


def test_a_cut_sweep_resumes_its_unfinished_trials(
    local_ray: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Trials one at a time (2 CPUs each); the sweep is stopped as Ctrl-C would (Tune's
    handler, through SIGUSR1) once the first trial has finished; --resume trains the rest
    and leaves the finished trial alone."""
    argv = ["sweep", str(STREETS), "--seeds", "1", "--grid", "ppo.n_epochs=[1, 2]"]
    argv += [*with_set(TINY), "--runs-root", str(tmp_path), "--cpus-per-trial", "2"]
    stop = threading.Event()

    def cut_after_first_trial() -> None:
        while not stop.is_set():
            for meta in tmp_path.glob("sweep-*/runs/*/run.json"):
                if json.loads(meta.read_text() or "{}").get("status") == "completed":
                    os.kill(os.getpid(), signal.SIGUSR1)
                    return
            time.sleep(0.2)

    watcher = threading.Thread(target=cut_after_first_trial, daemon=True)
    watcher.start()
    try:
        assert main(argv) == 130
    finally:
        stop.set()
        watcher.join()
    err = capsys.readouterr().err
    (sweep,) = tmp_path.glob("sweep-Streets-*")
    assert f"continue with: fortythieves sweep --resume {sweep}" in err
    summary = json.loads((sweep / "summary.json").read_text())
    assert summary["finished"] == 1 and summary["best"] is None
    assert not (sweep / "best_config.yaml").exists()
    done = next(t for t in summary["trials"] if t["status"] == "finished")

    assert main(["sweep", "--resume", str(sweep)]) == 0
    summary = json.loads((sweep / "summary.json").read_text())
    assert summary["finished"] == summary["total"] == 2
    assert [s["values"] for s in summary["settings"]] == [
        {"ppo.n_epochs": 1},
        {"ppo.n_epochs": 2},
    ]
    again = next(t for t in summary["trials"] if t["name"] == done["name"])
    assert again["score"] == done["score"]  # not trained again
    assert (Path(done["run_dir"]) / "command.txt").read_text().count("\n") == 1
    best = summary["best"]["setting"]
    assert load_config(sweep / "best_config.yaml").ppo.n_epochs == best + 1
    request = json.loads((sweep / "sweep.json").read_text())
    assert request["commands"][-1] == f"fortythieves sweep --resume {sweep}"


def test_evaluate_on_ray_gives_the_local_report(
    local_ray: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The random baseline (per-deal generators) on 5 deals split across 2 tasks: the same
    report, per-deal rows included."""
    base = ["evaluate", "random", "--variant", "Streets", "--episodes", "5", "--per-episode"]
    base += ["--seed", "3"]
    assert main([*base, "--json", str(tmp_path / "local.json")]) == 0
    assert main([*base, "--ray", "--json", str(tmp_path / "ray.json")]) == 0
    local = json.loads((tmp_path / "local.json").read_text())
    on_ray = json.loads((tmp_path / "ray.json").read_text())
    # the wall time differs by nature; the moves it was spent on do not
    local_timing, ray_timing = local.pop("timing"), on_ray.pop("timing")
    assert ray_timing["random"]["moves"] == local_timing["random"]["moves"] > 0
    # per move: the workers' own time (two at once), not the driver's wall time over them
    assert "worker_seconds" not in local_timing["random"]
    worker, moves = ray_timing["random"]["worker_seconds"], ray_timing["random"]["moves"]
    assert 0 < worker < 2 * ray_timing["random"]["seconds"]
    assert ray_timing["random"]["seconds_per_move"] == pytest.approx(worker / moves, abs=2e-6)
    check_report({**on_ray, "timing": ray_timing})  # the schema takes the new field
    assert on_ray == local
    rows = local["results"]["random"]["per_episode"]
    assert len({r["length"] for r in rows}) > 1  # the deals really differ


def test_solve_on_ray_gives_the_local_records(local_ray: Any, tmp_path: Path) -> None:
    def solve(name: str, *extra: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        results, report = tmp_path / f"{name}.jsonl", tmp_path / f"{name}.json"
        argv = ["solve", "LittleForty", "--deals", "3", "--nodes", str(NODES), "--workers", "2"]
        assert main([*argv, "--results", str(results), "--json", str(report), *extra]) == 0
        lines = [json.loads(line) for line in results.read_text().splitlines()]
        return sorted(lines, key=lambda r: r["seed"]), json.loads(report.read_text())

    local, local_report = solve("local")
    on_ray, ray_report = solve("ray", "--ray")
    timing = {"seconds", "mean_seconds", "max_seconds", "results_file"}
    assert [{k: v for k, v in r.items() if k not in timing} for r in on_ray] == [
        {k: v for k, v in r.items() if k not in timing} for r in local
    ]
    assert {k: v for k, v in ray_report.items() if k not in timing} == {
        k: v for k, v in local_report.items() if k not in timing
    }
    assert [r["seed"] for r in on_ray] == [2_000_000_000, 2_000_000_001, 2_000_000_002]


# ---------------------------------------------------------------- the docs' figures (ray.md)
def test_speedup_table_divides_one_worker_by_two() -> None:
    report = {
        "variant": "Streets",
        "episodes": 100,
        "deals": 4,
        "nodes": 1000,
        "seconds": {
            "evaluate": {"local": 9.0, "1": 10.0, "2": 5.5},
            "solve": {"local": 8.0, "1": 8.0, "2": 2.0},
        },
    }
    table = ray_speedup_table(report).splitlines()
    assert table[2].endswith("| 9.00 | 10.00 | 5.50 | 1.82x |")
    assert table[3].endswith("| 8.00 | 8.00 | 2.00 | 4.00x |")
    assert "--episodes 100 --ray" in table[2] and "--deals 4 --nodes 1000 --ray" in table[3]


def test_the_speedup_block_says_when_nothing_is_measured(tmp_path: Path) -> None:
    """Without ``results/benchmarks/ray_speedup.json`` docs/ray.md's block says so."""
    from fortythieves_agents.reports.targets import blocks

    (block,) = [b for b in blocks() if b.name == "ray-speedup"]
    assert block.make(tmp_path) == RAY_NOT_MEASURED
    saved = ROOT / "results" / "benchmarks" / "ray_speedup.json"
    assert block.make(ROOT) == ray_speedup_table(json.loads(saved.read_text(encoding="utf-8")))


def test_play_parts_are_no_longer_than_most() -> None:
    assert play_parts(5, 2, most=1) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
    assert play_parts(9, 2, most=4) == [(0, 3), (3, 6), (6, 9)]
    assert play_parts(4, 3, most=4) == [(0, 1), (1, 2), (2, 4)]  # still one part a worker
    with pytest.raises(ValueError, match="most >= 1"):
        play_parts(4, 2, most=0)


def test_the_search_on_ray_returns_each_game_as_it_ends(local_ray: Any) -> None:
    """``evaluate --ray --save-games``: a part's records are written when the part ends, so
    the search agent (one game at a time, ~30 s a deal at 0.1 s a move) played 3 deals on 2
    workers as parts of 2 and 1, and an interrupt lost the whole unfinished part. Now a part
    is one batch of the agent's (1 deal for the search): every game comes back, and is saved,
    as it ends; the results are the local ones."""
    from fortythieves_agents.evaluation.distributed import ray_play_deals
    from fortythieves_agents.evaluation.evaluate import play_deals
    from fortythieves_agents.players.baselines import make_baseline
    from fortythieves_agents.players.search import SearchBudget

    budget = SearchBudget(method="solve", samples=2, nodes=60, horizon=40)
    seeds = seeds_for_test(3)
    env_id = "FortyThieves/LittleForty-v1"
    done: list[int] = []
    ended: list[int] = []
    seconds: list[float] = []
    on_ray = ray_play_deals(
        make_baseline("search", 3, budget),
        env_id,
        seeds,
        on_done=done.append,
        workers=2,
        on_result=lambda i, result, trace: ended.append(i),
        on_seconds=seconds.append,
    )
    assert done == [1, 1, 1]
    assert sorted(ended) == [0, 1, 2]
    assert len(seconds) == 3 and all(s > 0 for s in seconds)  # each part's time in its worker
    assert on_ray == play_deals(make_baseline("search", 3, budget), env_id, seeds)
