"""Baselines, the evaluation loop and the ``evaluate`` command on a handful of deals."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from fortythieves_agents.cli.main import main
from fortythieves_agents.evaluation.evaluate import (
    EpisodeResult,
    baseline_agents,
    evaluate_agents,
    play_episode,
    summarize,
    wilson_interval,
)
from fortythieves_agents.players.baselines import GreedyAgent, RandomAgent, make_baseline
from fortythieves_agents.seeds import TEST_START

import fortythieves_env


def test_wilson_interval() -> None:
    lo, hi = wilson_interval(0, 20)
    assert lo == 0.0 and 0.15 < hi < 0.17
    lo, hi = wilson_interval(10, 20)
    assert lo == pytest.approx(0.2993, abs=1e-3) and hi == pytest.approx(0.7007, abs=1e-3)
    assert wilson_interval(20, 20)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_summarize() -> None:
    rows = [
        EpisodeResult(1, True, 104, 300, 114.0, False),
        EpisodeResult(2, False, 20, 1000, 20.0, True),
    ]
    s = summarize(rows)
    assert s["wins"] == 1 and s["win_rate"] == 0.5
    assert s["mean_foundation_cards"] == 62.0
    assert s["truncated"] == 1
    assert 0.0 <= s["foundation_cards_ci95"][0] <= 62.0 <= s["foundation_cards_ci95"][1] <= 104.0


def test_random_agent_plays_legal_and_reproducible() -> None:
    env = gym.make(fortythieves_env.env_id("Maria"))
    a = play_episode(env, RandomAgent(seed=1), TEST_START)
    b = play_episode(env, RandomAgent(seed=1), TEST_START)
    assert a == b
    assert 0 <= a.foundation_cards <= 104


def test_greedy_is_deterministic() -> None:
    env = gym.make(fortythieves_env.env_id("NumberTen"))
    assert play_episode(env, GreedyAgent(), TEST_START + 1) == play_episode(
        env, GreedyAgent(), TEST_START + 1
    )


def test_unknown_baseline() -> None:
    with pytest.raises(ValueError, match="random, greedy"):
        make_baseline("smart")


@pytest.mark.parametrize("variant", ["Streets", "FortyThieves"])
def test_greedy_beats_random_on_the_same_deals(variant: str) -> None:
    report = evaluate_agents(baseline_agents(["random", "greedy"]), variant, 20, per_episode=True)
    results = report["results"]
    seeds = [[row["seed"] for row in results[name]["per_episode"]] for name in ("random", "greedy")]
    assert seeds[0] == seeds[1] == [TEST_START + i for i in range(20)]
    assert results["greedy"]["mean_foundation_cards"] > results["random"]["mean_foundation_cards"]


def test_evaluate_command_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "greedy.json"
    assert (
        main(["evaluate", "greedy", "--variant", "Lucas", "--episodes", "3", "--json", str(out)])
        == 0
    )
    assert "greedy" in capsys.readouterr().out
    report = json.loads(out.read_text())
    assert report["variant"] == "Lucas"
    assert report["env_id"] == fortythieves_env.env_id("Lucas")
    assert report["rules_version"] == fortythieves_env.RULES_VERSION
    assert report["episodes"] == 3
    assert report["seeds"]["first"] == TEST_START
    s = report["results"]["greedy"]
    for key in (
        "win_rate",
        "win_rate_ci95",
        "mean_foundation_cards",
        "foundation_cards_ci95",
        "sem_foundation_cards",
        "mean_episode_length",
        "mean_return",
        "wins",
    ):
        assert key in s
    lo, hi = s["win_rate_ci95"]
    assert 0.0 <= lo <= s["win_rate"] <= hi <= 1.0
    clo, chi = s["foundation_cards_ci95"]
    assert 0.0 <= clo <= s["mean_foundation_cards"] <= chi <= 104.0
    assert s["mean_foundation_cards"] >= 8  # Lucas starts with the 8 Aces up


def test_evaluate_command_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "random", "--episodes", "2"]) == 2
    assert "--variant is required" in capsys.readouterr().err
    assert main(["evaluate", "random", "--variant", "Klondike", "--episodes", "2"]) == 2
    assert "unknown variant 'Klondike'" in capsys.readouterr().err
    assert main(["evaluate", "no/such/run", "--episodes", "2"]) == 2
    assert "no such run folder or model file" in capsys.readouterr().err


def test_random_agent_uses_mask_only() -> None:
    env = gym.make(fortythieves_env.env_id("Streets"))
    obs, _ = env.reset(seed=TEST_START)
    agent = RandomAgent(seed=0)
    mask = env.unwrapped.action_masks()
    assert all(mask[agent.act(obs, env)] == 1 for _ in range(50))
    assert np.asarray(mask).dtype == np.int8
