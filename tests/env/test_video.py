"""``gymnasium.wrappers.RecordVideo`` writes a real video of a game (the ``video`` extra:
``pip install -e ".[video]"``, moviepy and its ffmpeg)."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from fortythieves_env.envs.render import frame_size

pytest.importorskip(
    "moviepy", reason="the video extra is not installed (pip install -e '.[video]')"
)
imageio_ffmpeg = pytest.importorskip(
    "imageio_ffmpeg", reason="the video extra is not installed (pip install -e '.[video]')"
)

STEPS = 12


def test_record_video_writes_every_frame_of_a_game(tmp_path: Path) -> None:
    env = gym.make("FortyThieves/Streets-v0", render_mode="rgb_array", max_episode_steps=STEPS)
    folder = tmp_path / "videos"
    env = gym.wrappers.RecordVideo(
        env, str(folder), episode_trigger=lambda episode: episode == 0, disable_logger=True
    )
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    terminated = truncated = False
    while not (terminated or truncated):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, terminated, truncated, info = env.step(action)
        steps += 1
    env.close()
    assert truncated and steps == STEPS
    videos = sorted(folder.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
    reader = imageio_ffmpeg.read_frames(str(videos[0]))
    meta = reader.__next__()  # the first item is the video's metadata
    height, width = frame_size("Streets")
    assert tuple(meta["size"]) == (width, height)
    frames = sum(1 for _ in reader)
    assert frames == STEPS + 1  # the deal, then one frame per step
    assert meta["fps"] == env.metadata["render_fps"] == 4
