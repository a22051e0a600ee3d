"""``fortythieves plot RUN [RUN ...]``: learning curves to a PNG (agents/training/plot.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from fortythieves_agents.cli.main import main
from fortythieves_agents.training.plot import load_curves

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def fake_run(root: Path, name: str, cards: bool = True) -> Path:
    """A run folder with two validations of 3 episodes each."""
    run = root / name
    (run / "eval").mkdir(parents=True)
    timesteps = np.array([1000, 2000])
    found = np.array([[10, 20, 104], [30, 30, 104]])
    np.savez(
        run / "eval" / "evaluations.npz",
        timesteps=timesteps,
        results=found + 10.0 * (found == 104),
        ep_lengths=np.full((2, 3), 50),
        successes=found == 104,
    )
    if cards:
        np.savez(run / "eval" / "foundation_cards.npz", timesteps=timesteps, foundation_cards=found)
    return run


def test_load_curves_reads_win_rate_and_foundation_cards(tmp_path: Path) -> None:
    curves = load_curves(fake_run(tmp_path, "a"))
    assert curves.name == "a" and curves.timesteps.tolist() == [1000, 2000]
    assert curves.win_rate is not None
    assert curves.win_rate.tolist() == pytest.approx([1 / 3, 1 / 3])
    assert curves.score.tolist() == [[10, 20, 104], [30, 30, 104]]
    assert not curves.score_is_return


def test_load_curves_falls_back_to_the_return(tmp_path: Path) -> None:
    curves = load_curves(fake_run(tmp_path, "old", cards=False))
    assert curves.score_is_return
    assert curves.score.tolist() == [[10, 20, 114], [30, 30, 114]]


def test_plot_several_runs_on_one_png(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("matplotlib", reason="the plots extra is not installed")
    a, b = fake_run(tmp_path, "a"), fake_run(tmp_path, "old", cards=False)
    monkeypatch.chdir(tmp_path)
    assert main(["plot", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    png = tmp_path / "learning_curves.png"
    assert png.read_bytes()[:8] == PNG_MAGIC and png.stat().st_size > 10_000
    assert "old: no foundation cards recorded" in out and "plotted the validation return" in out
    assert "a: no foundation cards" not in out
    assert f"written to {Path('learning_curves.png')}" in out


def test_plot_one_run_defaults_into_its_folder(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib", reason="the plots extra is not installed")
    run = fake_run(tmp_path, "a")
    assert main(["plot", str(run)]) == 0
    assert (run / "learning_curves.png").read_bytes()[:8] == PNG_MAGIC
    assert main(["plot", str(run), "--out", str(tmp_path / "sub" / "x.png")]) == 0
    assert (tmp_path / "sub" / "x.png").read_bytes()[:8] == PNG_MAGIC


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda root: root / "missing", "not a run folder"),
        (lambda root: (root / "empty").mkdir() or root / "empty", "no validation results"),
        (
            lambda root: (
                (
                    (root / "bad" / "eval").mkdir(parents=True),
                    (root / "bad" / "eval" / "evaluations.npz").write_bytes(b"not a zip"),
                )
                and root / "bad"
            ),
            "evaluations.npz: cannot read it",
        ),
    ],
)
def test_plot_errors_are_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, message: str
) -> None:
    run = make(tmp_path)  # type: ignore[operator]
    assert main(["plot", str(run), "--out", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fortythieves plot: error: ") and message in err
    assert err.count("\n") == 1
    assert not (tmp_path / "x.png").exists()


def test_plot_without_matplotlib_says_how_to_install_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from fortythieves_agents import config as config_module

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises
    assert main(["plot", str(fake_run(tmp_path, "a"))]) == 2
    err = capsys.readouterr().err
    assert "fortythieves plot: error: plots need matplotlib" in err and "[plots]" in err
    monkeypatch.setattr(config_module, "checkout_root", lambda: None)  # as from a wheel
    assert main(["plot", str(fake_run(tmp_path, "b"))]) == 2
    err = capsys.readouterr().err
    assert err == (
        "fortythieves plot: error: plots need matplotlib: pip install 'fortythieves[plots]' "
        "(or pip install matplotlib)\n"
    )


def test_plot_out_must_be_a_writable_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plot", str(fake_run(tmp_path, "a")), "--out", str(tmp_path)]) == 2
    assert "argument --out/-o" in capsys.readouterr().err


def test_plot_out_must_name_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The plot is a PNG: another name is refused before anything is drawn."""
    assert main(["plot", str(fake_run(tmp_path, "a")), "--out", str(tmp_path / "x.txt")]) == 2
    assert "x.txt: must end in .png" in capsys.readouterr().err
    assert not (tmp_path / "x.txt").exists()
