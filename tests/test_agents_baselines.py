"""Baselines, the evaluation loop and the ``evaluate`` command on a handful of deals."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from positions import position

import fortythieves_env
from agents import baselines
from agents.baselines import GreedyAgent, RandomAgent, make_baseline, move_score
from agents.cli import main
from agents.evaluation import (
    EpisodeResult,
    baseline_agents,
    evaluate_agents,
    play_episode,
    summarize,
    wilson_interval,
)
from agents.seeds import TEST_START
from fortythieves_env import Rules
from fortythieves_env.view import player_view

# Number Ten (alternate colour, sequences, 2 dealt face down); ## is a face-down card:
#   t0: ## 9H 8S    t1: TC    t2: 9D    t3: 6C    t4: ## ## 6H 5D    t5: 7H    t6: (empty)
#   t7: ## AH       t8: AC    t9: KH    waste: ... top as given; a stock to draw from
TABLEAU = [
    ["KC", "9H", "8S"], ["TC"], ["9D"], ["6C"], ["QD", "QH", "6H", "5D"], ["7H"], [],
    ["QS", "AH"], ["AC"], ["KH"],
]  # fmt: skip
FACE_DOWN = [1, 0, 0, 0, 2, 0, 0, 1, 0, 0]


def numberten(waste: list[str]) -> dict[str, Any]:
    return position("NumberTen", TABLEAU, face_down=FACE_DOWN, waste=waste)


REDEAL_POSITION = position(
    "LittleForty",
    [["KC"], ["KC"], ["KD"], ["KD"], ["KH"], ["KH"], ["KS"], ["KS"]],
    stock=[],
    waste=["QH", "JH"],
    redeals_left=1,
)

# Every row of the score table in agents/baselines.py, each on a position where it is legal.
SCORES = [
    (numberten(["AS"]), "w>f", 100.0),  # a card to a foundation: from the waste
    (numberten(["KD"]), "t8>f", 100.0),  # ... from a column, nothing turned up
    (numberten(["KD"]), "t7>f", 105.0),  # ... and turning up a face-down card
    (numberten(["KD"]), "t0>t1x2", 80.0),  # turns up the face-down card under 9H
    (numberten(["KD"]), "t3>t5", 70.0),  # 6C onto 7H empties its column
    (numberten(["8C"]), "w>t2", 60.0),  # the waste top onto a non-empty column
    (numberten(["KD"]), "t4>t3", 40.0),  # 5D onto 6C frees 6H (5D did not sit on a build)
    (numberten(["KD"]), "w>t6", 25.0),  # a King from the waste into an empty column
    (numberten(["KD"]), "draw", 10.0),
    (REDEAL_POSITION, "redeal", 8.0),
    (numberten(["8C"]), "w>t6", 5.0),  # any other waste card into an empty column
    (numberten(["KD"]), "t4>t6", 3.0),  # part of a column into an empty one, 5D not built on 6H
    (numberten(["KD"]), "t0>t2", -1.0),  # pointless: 8S already sits on 9H
    (numberten(["KD"]), "t5>t6", -1.0),  # pointless: a whole column into an empty column
]


@pytest.mark.parametrize(("pos", "move", "score"), SCORES, ids=[f"{m}={s}" for _, m, s in SCORES])
def test_every_score_of_the_table(pos: dict[str, Any], move: str, score: float) -> None:
    rules = Rules(pos["variant"])
    state = rules.from_position(pos)
    action = rules.move_to_action(move)
    assert rules.is_legal(state, action)
    assert move_score(action, player_view(rules, state), rules) == score


def test_every_row_of_the_docstring_table_is_tested() -> None:
    table = baselines.__doc__.split("====  =====")[1]
    rows = {float(m) for m in re.findall(r"^ *(-?[0-9]+) {2,}", table, re.MULTILINE)}
    assert len(rows) == 11  # 100, 80, 70, 60, 40, 25, 10, 8, 5, 3, -1
    rows.add(105.0)  # written in the 100 row: "+5 if it comes from a column and turns up ..."
    assert rows == {score for _, _, score in SCORES}


def test_move_score_refuses_a_bad_action() -> None:
    rules = Rules("NumberTen")
    view = player_view(rules, rules.from_position(numberten(["KD"])))
    with pytest.raises(ValueError, match=r"action -1 is outside 0\.\.1192"):
        move_score(-1, view, rules)


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
