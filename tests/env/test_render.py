"""``render_mode="rgb_array"``: pictures of the table (fortythieves_env/envs/drawing.py; the
picture command, fortythieves_env/envs/render.py).

The golden image ``tests/env/golden/rankandfile-seed3-moves40.png`` is regenerated with::

    python -m fortythieves_env.envs.render tests/env/golden/rankandfile-seed3-moves40.png --variant RankAndFile --seed 3 --moves 40

It is compared with a tolerance of :data:`GOLDEN_TOLERANCE` differing pixels: text and
ellipse edges move by a few pixels between Pillow builds (10 pixels of 503,808 differ
between Pillow 11.3 and 13.0), while the smallest change of the table, one card's rank
one higher, changes over 100 (a test below keeps that true).
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from helpers import ROOT
from PIL import Image, ImageFont

from fortythieves_env import ENV_IDS, VARIANTS, FortyThievesEnv
from fortythieves_env.envs import drawing, render
from fortythieves_env.envs.drawing import (
    CARD_W,
    HEADER_SIZE,
    LABEL_SIZE,
    MARGIN,
    RANK_SIZE,
    _font,
    frame_size,
    render_rgb,
)
from fortythieves_env.envs.render import main, table_picture

GOLDEN = Path(__file__).parent / "golden" / "rankandfile-seed3-moves40.png"
GOLDEN_TOLERANCE = 40
"""Most pixels that may differ from the golden image (see the module docstring)."""


def _differing_pixels(a: np.ndarray, b: np.ndarray) -> int:
    assert a.shape == b.shape
    return int((a != b).any(axis=2).sum())


def _play(env: gym.Env, steps: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        legal = np.flatnonzero(env.unwrapped.action_masks())
        _, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
        if terminated or truncated:
            env.reset()


def test_golden_image() -> None:
    frame = table_picture("RankAndFile", seed=3, moves=40)
    golden = np.asarray(Image.open(GOLDEN).convert("RGB"))
    assert frame.shape == golden.shape == (*frame_size("RankAndFile"), 3)
    assert _differing_pixels(frame, golden) <= GOLDEN_TOLERANCE


def test_the_smallest_change_is_beyond_the_golden_tolerance() -> None:
    env = FortyThievesEnv("RankAndFile", render_mode="rgb_array")
    env.reset(seed=3)
    view = env.player_view()
    code = view.tableau[0][-1]
    other = code + 1 if code % 13 else code - 1  # one rank up (a King one down)
    tableau = ((*view.tableau[0][:-1], other), *view.tableau[1:])
    changed = render_rgb("RankAndFile", dataclasses.replace(view, tableau=tableau))
    assert _differing_pixels(env.render(), changed) > 2 * GOLDEN_TOLERANCE
    fewer = render_rgb("RankAndFile", dataclasses.replace(view, stock_size=view.stock_size - 1))
    assert _differing_pixels(env.render(), fewer) > 2 * GOLDEN_TOLERANCE


@pytest.mark.parametrize("variant_id", sorted(VARIANTS))
def test_frames_have_one_fixed_size_per_variant(variant_id: str) -> None:
    env = gym.make(f"FortyThieves/{variant_id}-v0", render_mode="rgb_array")
    env.reset(seed=1)
    height, width = frame_size(variant_id)
    assert height % 16 == 0 and width % 16 == 0
    for _ in range(5):
        frame = env.render()
        assert frame.shape == (height, width, 3) and frame.dtype == np.uint8
        _play(env, 40)


@pytest.mark.parametrize("variant_id", sorted(VARIANTS))
def test_longest_column_fits_in_the_frame(variant_id: str) -> None:
    """A column of the most face-up cards the variant can hold (``max_visible``) ends inside
    the frame, above the bottom margin."""
    env = FortyThievesEnv(variant_id, render_mode="rgb_array")
    env.reset(seed=0)
    view = env.player_view()
    longest = VARIANTS[variant_id].max_visible
    column = tuple(range(52, 52 - longest, -1))  # KS, QS, ... (a run, then hearts)
    tall = dataclasses.replace(
        view, tableau=(column, *view.tableau[1:]), face_down=(0, *view.face_down[1:])
    )
    frame = render_rgb(variant_id, tall)
    table = frame[0, 0]
    assert (frame[-MARGIN:] == table).all()  # the bottom margin is bare table
    drawn = np.flatnonzero((frame[:, MARGIN + CARD_W // 2] != table).any(axis=1))
    assert drawn[-1] >= frame.shape[0] - MARGIN - 16  # the column reaches the margin's edge


def test_hidden_cards_never_reach_a_frame() -> None:
    """Two positions that differ only in the face-down cards and the stock's order draw the
    same frame."""
    env = FortyThievesEnv("RankAndFile", render_mode="rgb_array")
    env.reset(seed=5)
    before = env.render()
    state = env.state
    hidden = [col[:fd] for col, fd in zip(state.tableau, state.face_down, strict=True)]
    pool = [c for h in hidden for c in h] + state.stock
    rng = np.random.default_rng(0)
    rng.shuffle(pool)
    assert pool != [c for h in hidden for c in h] + state.stock
    for col, fd in zip(state.tableau, state.face_down, strict=True):
        col[:fd], pool = pool[:fd], pool[fd:]
    state.stock = pool
    original = env.get_state()
    env.state = state
    assert env.get_state() != original
    assert np.array_equal(env.render(), before)


def test_render_draws_the_player_view() -> None:
    env = FortyThievesEnv("Indian", render_mode="rgb_array")
    env.reset(seed=2)
    assert np.array_equal(env.render(), render_rgb("Indian", env.player_view()))


def test_check_env_with_rgb_array() -> None:
    env = gym.make("FortyThieves/Maria-v0", render_mode="rgb_array")
    check_env(env.unwrapped, skip_render_check=False)
    assert "rgb_array" in gym.make(ENV_IDS[0]).metadata["render_modes"]


def test_render_before_reset_raises() -> None:
    env = FortyThievesEnv("Maria", render_mode="rgb_array")
    with pytest.raises(RuntimeError, match="call reset"):
        env.render()


def test_view_of_another_variant_is_refused() -> None:
    env = FortyThievesEnv("Maria", render_mode="rgb_array")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="view is of variant 'Maria', not 'Streets'"):
        render_rgb("Streets", env.player_view())


def test_text_is_at_least_14_px_in_a_scalable_font() -> None:
    for size in (RANK_SIZE, HEADER_SIZE, LABEL_SIZE):
        assert size >= 14
        font = _font(size)
        assert isinstance(font, ImageFont.FreeTypeFont) and font.size == size


def test_render_module_still_hands_on_the_drawing_names() -> None:
    """The drawing left ``envs/render.py`` for ``envs/drawing.py`` (so that the environments,
    which ``render.py`` imports, do not import it back): every name still reads from there."""
    assert render.render_rgb is drawing.render_rgb
    assert render.frame_size is drawing.frame_size
    assert render.CARD_W == drawing.CARD_W
    assert render._font is drawing._font


def test_picture_command_writes_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "table.png"
    main([str(out), "--variant", "Lucas", "--seed", "4", "--moves", "10"])
    saved = np.asarray(Image.open(out).convert("RGB"))
    assert np.array_equal(saved, table_picture("Lucas", 4, 10))
    height, width = frame_size("Lucas")
    assert capsys.readouterr() == (
        f"table picture written to {out} ({width}x{height} pixels): Lucas, seed 4, --moves 10\n",
        "",
    )


def test_picture_command_help_is_plain_text() -> None:
    """``--help`` printed the docstring's reST (````...````, ``:func:``); it is plain text."""
    done = subprocess.run(
        [sys.executable, "-m", "fortythieves_env.envs.render", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stderr == ""
    assert "``" not in done.stdout and ":func:" not in done.stdout
    assert " ".join(done.stdout.split()).startswith(
        "usage: python -m fortythieves_env.envs.render [-h] [--variant V] [--seed S] [--moves N] "
        "OUT.png Save a picture of a deal's table as a PNG: the deal reset(seed=S) of "
        "variant V, after N moves played by a fixed rule (cards to the foundations first)."
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seed", "-1"], "argument --seed: must be an integer >= 0, got '-1'"),
        (["--moves", "x"], "argument --moves: must be an integer >= 0, got 'x'"),
    ],
)
def test_picture_command_bad_numbers_are_one_line(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main([str(tmp_path / "x.png"), *argv])
    assert exc.value.code == 2
    assert capsys.readouterr().err == f"python -m fortythieves_env.envs.render: error: {message}\n"
    assert not (tmp_path / "x.png").exists()


def test_picture_command_refuses_an_unknown_variant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main([str(tmp_path / "x.png"), "--variant", "Nope"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "unknown variant 'Nope'" in err and err.count("\n") == 1
    assert not (tmp_path / "x.png").exists()
    with pytest.raises(SystemExit) as exc:  # a folder that does not exist
        main([str(tmp_path / "no" / "x.png")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"python -m fortythieves_env.envs.render: error: argument out: cannot write "
        f"{tmp_path / 'no' / 'x.png'} ("
    )
    assert err.count("\n") == 1


def test_rgb_array_before_reset_asks_for_reset_naming_render() -> None:
    env = FortyThievesEnv("Maria", render_mode="rgb_array")
    with pytest.raises(RuntimeError, match=r"call reset\(\) before render\(\)"):
        env.render()
