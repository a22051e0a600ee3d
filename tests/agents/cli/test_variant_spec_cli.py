"""``--variant-spec FILE`` of ``play``, ``solve``, ``evaluate`` and ``replay`` (issue 28
point 5): a custom variant from a YAML file, registered before the arguments are checked,
so its id works wherever a variant id does; a bad file is one stderr line naming it and its
problem, exit 2, before any work."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from fortythieves_agents.cli.main import main

SPEC = """\
id: SpecFileForty
name: Spec File Forty
n_columns: 12
face_down: 1
face_up: 3
build: alternate_colour
sequence_moves: true
redeals: 2
max_episode_steps: 600
empty_column: kings
"""


BOMB = "lol:\n  - &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"  - &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]\n" for i in range(1, 5)
)
"""YAML aliases that expand to 10**5 values (each level names the one before ten times)."""


@pytest.fixture
def spec_file(tmp_path: Path) -> str:
    path = tmp_path / "wide.yaml"
    path.write_text(SPEC, encoding="utf-8")
    return str(path)


def test_evaluate_solve_replay_and_play_take_a_variant_from_a_file(
    spec_file: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    report, games = tmp_path / "report.json", tmp_path / "games"
    argv = ["evaluate", "greedy", "--variant", "SpecFileForty", "--variant-spec", spec_file]
    argv += ["--episodes", "2", "--json", str(report), "--save-games", str(games)]
    assert main([*argv, "--no-progress"]) == 0
    data = json.loads(report.read_text())
    # its id and its step limit (600) come from the file; a variant with redeals is -v1
    assert data["variant"] == "SpecFileForty" and data["env_id"] == "FortyThieves/SpecFileForty-v1"
    assert data["results"]["greedy"]["episodes"] == 2
    assert 0 < data["results"]["greedy"]["mean_episode_length"] <= 600
    records = tmp_path / "solved.jsonl"
    argv = ["solve", "SpecFileForty", "--variant-spec", spec_file, "--deals", "1"]
    assert main([*argv, "--nodes", "3000", "--workers", "1", "--results", str(records)]) == 0
    (line,) = records.read_text().splitlines()
    assert json.loads(line)["variant"] == "SpecFileForty"
    record = games / "greedy" / "SpecFileForty-2000000000.json"
    assert json.loads(record.read_text())["variant"]["empty_column"] == "kings"  # not "any"
    assert main(["replay", str(record), "--all", "--variant-spec", spec_file]) == 0
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    argv = ["play", "SpecFileForty", "--variant-spec", spec_file, "--seed", "3"]
    assert main(argv) == 0
    assert "Spec File Forty, seed 3" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (None, "config file not found"),
        ("- 1\n- 2\n", "the top level must be a mapping of keys, got list"),
        ("id: [1\n", "invalid YAML"),
        (SPEC + "colour: red\n", "unknown VariantSpec field(s) colour"),
        ("id: X\nname: X\n", "missing VariantSpec field(s) n_columns, face_down"),
        (SPEC.replace("n_columns: 12", "n_columns: 0"), "n_columns"),
        (SPEC.replace("build: alternate_colour", "build: any"), "build"),
        (
            SPEC.replace("empty_column: kings", "empty_column: queens"),
            "unknown empty_column rule 'queens'; choose from any, kings",
        ),
        (SPEC.replace("id: SpecFileForty", "id: Maria"), "'Maria' is a built-in variant"),
        (SPEC + "id: Again\n", "'id' is given twice"),
        ("env:\n  variant: Streets\n", "a training config without env.custom_variant"),
        (  # ids name saved files: a 300-character id failed after its games were played
            SPEC.replace("id: SpecFileForty", f"id: {'L' * 300}"),
            "variant id must be at most 40 characters (it names saved files), got 300: ",
        ),
        (  # a "billion laughs": 10**5 values from 6 lines (10**9 hung evaluate)
            SPEC + BOMB,
            "invalid YAML: it holds more than 10,000 values once its aliases are expanded; at most",
        ),
    ],
)
def test_a_bad_variant_file_is_one_line_naming_it(
    text: str | None, problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "spec.yaml"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    for argv in (
        ["evaluate", "greedy", "--variant", "Streets", "--episodes", "1"],
        ["solve", "Streets", "--deals", "1", "--nodes", "10"],
        ["play", "Streets"],
    ):
        assert main([*argv, "--variant-spec", str(path)]) == 2
        err = capsys.readouterr().err
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert lines[0].startswith(
            f"fortythieves {argv[0]}: error: argument --variant-spec: {path}: "
        )
        assert problem in lines[0], lines[0]


def test_a_training_config_with_a_custom_variant_is_a_variant_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "train.yaml"
    indented = "".join(f"    {line}\n" for line in SPEC.splitlines())
    config.write_text(f"env:\n  variant: SpecFileForty\n  custom_variant:\n{indented}")
    argv = ["evaluate", "greedy", "--variant", "SpecFileForty", "--episodes", "1"]
    assert main([*argv, "--variant-spec", str(config), "--no-progress"]) == 0
    assert "FortyThieves/SpecFileForty-v1" in capsys.readouterr().out


def test_the_longest_id_names_its_saved_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An id of 40 four-byte characters (the longest, in the widest encoding) still names
    the game records ``evaluate --save-games`` writes."""
    long_id = "\U00020000" * 40  # a CJK ideograph: a letter to isidentifier(), 4 UTF-8 bytes
    spec = tmp_path / "long.yaml"
    spec.write_text(SPEC.replace("SpecFileForty", long_id), encoding="utf-8")
    games = tmp_path / "games"
    argv = ["evaluate", "greedy", "--variant", long_id, "--variant-spec", str(spec)]
    assert main([*argv, "--episodes", "1", "--save-games", str(games), "--no-progress"]) == 0
    (record,) = (games / "greedy").iterdir()
    assert record.name == f"{long_id}-2000000000.json" and len(record.name.encode()) == 176
    assert json.loads(record.read_text(encoding="utf-8"))["variant"]["id"] == long_id
