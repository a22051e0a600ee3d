"""A FIFO (or another path that is not a regular file) named where the commands read a file
(models, configs, variant specs, game records, solver results) is refused in one line
naming it, before any work; ``train`` hung on one given as ``expert.start_model`` (issue
37, point 5). Every file a user names is opened by ``fortythieves_env.records.files``.

Each FIFO here unblocks its readers (``helpers.fifo``), so code that reads it instead of
refusing it fails on its empty content rather than hanging the test run.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fortythieves_agents.cli.main import main
from fortythieves_agents.config import MAX_YAML_BYTES, ConfigError, load_config
from helpers import STREETS, fifo, one_error_line

FIFO = "a FIFO (named pipe), not a regular file"


def test_a_fifo_as_expert_start_model_is_refused_before_training(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    with fifo(tmp_path / "start.zip") as start:
        argv = ["train", str(STREETS), "--run-dir", str(run), "--set", "expert.iterations=1"]
        argv += ["--set", f"expert.start_model={start}", "--set", "train.teacher=null"]
        assert main(argv) == 2
    line = one_error_line(capsys, "expert.start_model", str(start), FIFO, command="train")
    assert line.endswith(f"expert.start_model {start}: {FIFO}")
    assert not run.exists()


def test_a_fifo_as_a_config_or_a_base_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with fifo(tmp_path / "config.yaml") as config:
        assert main(["train", str(config), "--run-dir", str(tmp_path / "run")]) == 2
    one_error_line(capsys, str(config), FIFO, command="train")
    child = tmp_path / "child.yaml"
    child.write_text("base: pipe.yaml\n", encoding="utf-8")
    with fifo(tmp_path / "pipe.yaml"), pytest.raises(ConfigError, match=re.escape(FIFO)) as caught:
        load_config(child)
    assert f"(named as base by {child})" in str(caught.value)


def test_a_config_over_the_size_bound_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("seed: 1\n" + "#" * MAX_YAML_BYTES, encoding="utf-8")
    with pytest.raises(ConfigError, match=f"over the limit of {MAX_YAML_BYTES:,}"):
        load_config(big)


def test_a_fifo_as_a_variant_spec_model_record_or_solver_results_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with fifo(tmp_path / "pipe") as pipe:
        assert main(["evaluate", "greedy", "--variant-spec", str(pipe), "--episodes", "1"]) == 2
        one_error_line(capsys, "--variant-spec", str(pipe), FIFO, command="evaluate")
        assert main(["evaluate", str(pipe), "--variant", "Streets", "--episodes", "1"]) == 2
        line = one_error_line(capsys, str(pipe), "a FIFO (named pipe)", command="evaluate")
        assert line.endswith("a FIFO (named pipe), not a run folder or a model file")
        assert main(["replay", str(pipe)]) == 2
        one_error_line(capsys, str(pipe), FIFO, command="replay")
        argv = ["evaluate", "greedy", "--variant", "Streets", "--episodes", "1"]
        assert main([*argv, "--solver-results", str(pipe), "--no-progress"]) == 2
        one_error_line(capsys, "--solver-results", str(pipe), FIFO, command="evaluate")
