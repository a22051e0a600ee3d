"""Each variant's best shipped network (issue 26, point 4): its latest shipped
network stage (``results/expert/<variant>[-ppo-long|-ppo[-expert]]/model.zip``,
``fortythieves_agents.reports.expert.STAGES``), else the shipped PPO model
(``results/training/<Variant>/best_model.zip``), as ``scripts/expert/goal.sh`` picks it
(``best_network``). Its
saved report (``results/expert/goal/<Variant>-network-500.json``) is what ``fortythieves
evaluate`` gives again today, and ``play --hint-model`` takes its moves from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fortythieves_agents.cli.main import main
from fortythieves_agents.envs import env_id_for
from fortythieves_agents.evaluation.evaluate import load_model_agent
from fortythieves_agents.reports.expert import best_network
from helpers import ROOT, play_cli

from fortythieves_env import VARIANTS

GOAL = ROOT / "results" / "expert" / "goal"


def best_model(variant: str) -> Path:
    """The variant's best shipped network, as scripts/expert/goal.sh picks it."""
    return best_network(variant, ROOT / "results")[0]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_best_shipped_network_replays_its_report_and_gives_hints(
    variant: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``evaluate MODEL`` plays the saved report's first 3 deals move for move as saved (won,
    foundation cards, length), the report names the model goal.sh picks, and ``play
    --hint-model MODEL`` hints the network's own move for the opening position."""
    model = best_model(variant)
    saved = json.loads((GOAL / f"{variant}-network-500.json").read_text(encoding="utf-8"))
    assert Path(saved["model"]) == model.relative_to(ROOT)
    out = tmp_path / "report.json"
    argv = ["evaluate", str(model), "--episodes", "3", "--baselines", "--per-episode"]
    assert main([*argv, "--no-progress", "--json", str(out)]) == 0
    capsys.readouterr()
    rows = json.loads(out.read_text())["results"]["ppo"]["per_episode"]
    keys = ("seed", "won", "foundation_cards", "length")
    expected = saved["results"]["ppo"]["per_episode"][:3]
    assert [[r[k] for k in keys] for r in rows] == [[r[k] for k in keys] for r in expected]
    import gymnasium as gym

    agent, _ = load_model_agent(model, variant)
    env = gym.make(env_id_for(variant))
    obs, _ = env.reset(seed=3)
    move = env.unwrapped.action_to_move(agent.act(obs, env))
    code, text, _ = play_cli([variant, "--seed", "3", "--hint-model", str(model)], ["h"],
                             monkeypatch, capsys)  # fmt: skip
    assert code == 0
    assert f"hint (ppo): {move} (move " in text
