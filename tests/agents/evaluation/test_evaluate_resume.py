"""``evaluate --save-games DIR --resume``: an interrupted evaluation keeps the games that
ended (each record written as its game ends) and a resumed one reads them, playing only the
rest with the deal indices they have in the whole list, so its report is the one an
uninterrupted run writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fortythieves_agents.cli.main import main
from fortythieves_agents.evaluation.evaluate import evaluate_agents
from fortythieves_agents.players.baselines import make_baseline
from fortythieves_agents.players.search import SearchBudget
from fortythieves_agents.seeds import seeds_for_test

from fortythieves_env.records import RecordError

VARIANT = "LittleForty"
SOLVE = SearchBudget(method="solve", samples=2, nodes=60, horizon=40)


def _agents() -> list[Any]:
    return [
        make_baseline("search", 3, SOLVE),
        make_baseline("random", 5),
        make_baseline("greedy"),
    ]


def _report(folder: Path | None, episodes: int = 5, **kwargs: Any) -> dict[str, Any]:
    return evaluate_agents(
        _agents(), VARIANT, episodes, per_episode=True, save_games=folder, **kwargs
    )


class Interrupting:
    """Wraps a batch agent; raises KeyboardInterrupt when deal ``at`` starts."""

    def __init__(self, agent: Any, at: int) -> None:
        self.agent, self.at = agent, at
        self.name = agent.name

    def __getattr__(self, name: str) -> Any:
        return getattr(self.agent, name)

    def start_games(self, spec: Any, games: np.ndarray) -> None:
        if self.at in games.tolist():
            raise KeyboardInterrupt
        self.agent.start_games(spec, games)


def test_records_of_ended_games_survive_an_interruption_and_resume_gives_the_same_report(
    tmp_path: Path,
) -> None:
    whole = _report(tmp_path / "whole")
    folder = tmp_path / "cut"
    search = Interrupting(make_baseline("search", 3, SOLVE), at=3)
    with pytest.raises(KeyboardInterrupt):
        evaluate_agents([search], VARIANT, 5, save_games=folder)  # its batch_size: 1
    seeds = seeds_for_test(5)
    kept = sorted(p.name for p in (folder / "search").iterdir())
    assert kept == sorted(f"{VARIANT}-{s}.json" for s in seeds[:3])  # deals 0-2 ended
    (folder / "search" / f"{VARIANT}-{seeds[1]}.json").unlink()  # a hole: deal 1 again
    resumed = _report(folder, resume=True, timing=True)
    assert resumed["timing"]["search"]["resumed_deals"] == 2
    assert resumed["timing"]["random"]["resumed_deals"] == 0
    assert resumed["results"] == whole["results"]
    assert resumed["results"]["search"]["per_episode"][1]["seed"] == seeds[1]
    again = _report(folder, resume=True, timing=True)  # everything read, nothing played
    assert {t["resumed_deals"] for t in again["timing"].values()} == {5}
    assert {t["moves"] for t in again["timing"].values()} == {0}
    assert again["results"] == whole["results"]


def test_a_record_of_another_player_or_deal_is_refused_by_path(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    evaluate_agents([make_baseline("random", 5)], VARIANT, 2, save_games=folder)
    with pytest.raises(RecordError, match=r"random/LittleForty-\d+\.json: cannot resume.*seed"):
        evaluate_agents([make_baseline("random", 6)], VARIANT, 2, save_games=folder, resume=True)
    seeds = seeds_for_test(2)
    first, second = (folder / "random" / f"{VARIANT}-{s}.json" for s in seeds)
    second.write_text(first.read_text())  # deal 0's game under deal 1's name
    with pytest.raises(RecordError, match=rf"cannot resume from it: not the game of .*{seeds[1]}"):
        evaluate_agents([make_baseline("random", 5)], VARIANT, 2, save_games=folder, resume=True)
    data = json.loads(first.read_text())
    data["outcome"]["foundation_cards"] += 1
    first.write_text(json.dumps(data))
    second.unlink()
    with pytest.raises(RecordError, match="the outcome differs from the replay"):
        evaluate_agents([make_baseline("random", 5)], VARIANT, 2, save_games=folder, resume=True)


def test_resume_without_a_games_folder_is_refused() -> None:
    with pytest.raises(ValueError, match="resume needs save_games"):
        evaluate_agents([make_baseline("greedy")], VARIANT, 1, resume=True)


def test_the_cli_resumes_and_refuses_resume_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["evaluate", "greedy", "--variant", VARIANT, "--resume"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--resume needs --save-games DIR" in err and len(err.splitlines()) == 1
    argv = ["evaluate", "random", "--variant", VARIANT, "--episodes", "3", "--no-progress"]
    argv += ["--save-games", str(tmp_path / "g")]
    assert main([*argv, "--json", str(tmp_path / "a.json")]) == 0
    assert main([*argv, "--resume", "--json", str(tmp_path / "b.json")]) == 0
    a, b = (json.loads((tmp_path / f"{k}.json").read_text()) for k in "ab")
    assert b["timing"]["random"]["resumed_deals"] == 3 and a["results"] == b["results"]
    capsys.readouterr()
    assert main([*argv, "--seed", "9", "--resume"]) == 2  # records of another seed
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--resume:" in err and "cannot resume" in err
