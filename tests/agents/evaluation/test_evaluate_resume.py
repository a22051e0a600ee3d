"""``evaluate --save-games DIR --resume``: an interrupted evaluation keeps the games that
ended (each record written as its game ends) and a resumed one reads them, playing only the
rest with the deal indices they have in the whole list, so its report is the one an
uninterrupted run writes. A record counts only as a finished game of this very player as the
evaluation wrote it: an unfinished, edited or relabelled one is played again, one that says
it is another player's (seed, model zip, no-cycling rule) is refused (issue 37, point 2)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fortythieves_agents.cli.main import main
from fortythieves_agents.evaluation.evaluate import evaluate_agents, load_model_agent
from fortythieves_agents.players.baselines import make_baseline
from fortythieves_agents.players.search import SearchBudget
from fortythieves_agents.seeds import seeds_for_test
from helpers import ROOT

from fortythieves_env import FortyThievesEnv
from fortythieves_env.records.record import GameRecord, RecordError, load_record, verify

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
    _write_with_new_digest(first, data)  # intact, as a program writing a wrong record makes it
    second.unlink()
    with pytest.raises(RecordError, match="the outcome differs from the replay"):
        evaluate_agents([make_baseline("random", 5)], VARIANT, 2, save_games=folder, resume=True)


def _write_with_new_digest(path: Path, data: dict[str, Any]) -> None:
    """``data`` written to ``path`` with the digest of its new content."""
    record = dataclasses.replace(GameRecord.from_json(data), digest=None)
    path.write_text(json.dumps(record.to_json()))


def _cut_to_unfinished(data: dict[str, Any], moves: int) -> dict[str, Any]:
    """A game record's JSON cut to its first ``moves`` moves and marked unfinished (the
    foundation cards as they stood then, so that it replays)."""
    record = GameRecord.from_json(data)
    env = FortyThievesEnv(record.variant)
    env.reset(seed=record.source["value"])
    for move in record.moves[:moves]:
        env.step(env.move_to_action(move))
    cut = {**data, "moves": data["moves"][:moves]}
    cut["outcome"] = {
        **data["outcome"],
        "won": False,
        "foundation_cards": env.player_view().foundation_cards,
        "length": moves,
        "terminated": False,
        "truncated": False,
        "stuck": False,
        "unfinished": True,
    }
    verify(GameRecord.from_json(cut))  # a valid record of an unfinished game
    return cut


def test_an_unfinished_relabelled_or_old_record_is_played_again_and_the_report_is_the_same(
    tmp_path: Path,
) -> None:
    """Issue 37's repro: a record cut to its first 10 moves and marked unfinished, and
    random's record relabelled as greedy's, were read as played deals. Now each is played
    again (one note per agent), the records are rewritten, and the resumed report is the
    uninterrupted one; so is a record with a fresh digest that is still unfinished, and one
    written before records carried a digest (format 4)."""
    whole_dir, folder = tmp_path / "whole", tmp_path / "tampered"
    agents = lambda: [make_baseline("greedy"), make_baseline("random", 5)]  # noqa: E731
    whole = evaluate_agents(agents(), VARIANT, 4, per_episode=True, save_games=whole_dir)
    shutil.copytree(whole_dir, folder)
    seeds = seeds_for_test(4)
    greedy, random = (
        [folder / name / f"{VARIANT}-{s}.json" for s in seeds] for name in ("greedy", "random")
    )
    data = json.loads(greedy[0].read_text())
    greedy[0].write_text(json.dumps(_cut_to_unfinished(data, 10)))  # by hand: old digest
    relabelled = json.loads(random[1].read_text())
    relabelled["agent"] = json.loads(greedy[1].read_text())["agent"]
    assert relabelled["moves"] != json.loads(greedy[1].read_text())["moves"]
    greedy[1].write_text(json.dumps(relabelled))
    _write_with_new_digest(greedy[2], _cut_to_unfinished(json.loads(greedy[2].read_text()), 7))
    old = json.loads(random[3].read_text())
    del old["digest"]
    random[3].write_text(json.dumps({**old, "format_version": 4}))
    notes: list[str] = []
    resumed = evaluate_agents(
        agents(),
        VARIANT,
        4,
        per_episode=True,
        save_games=folder,
        resume=True,
        timing=True,
        on_note=notes.append,
    )
    assert resumed["results"] == whole["results"]
    assert resumed["timing"]["greedy"]["resumed_deals"] == 1  # deal 3 only
    assert resumed["timing"]["random"]["resumed_deals"] == 3
    assert notes == [
        f"greedy: 3 saved record(s) played again: {greedy[0]}: changed after it was written "
        "(its digest does not match it) (and 2 more)",
        f"random: 1 saved record(s) played again: {random[3]}: written before records "
        "carried a digest (format 4)",
    ]
    for path in [*greedy, *random]:  # rewritten as the uninterrupted run wrote them
        assert load_record(path).intact
        assert load_record(path) == load_record(whole_dir / path.relative_to(folder))
    again: list[str] = []
    _write_with_new_digest(greedy[2], _cut_to_unfinished(json.loads(greedy[2].read_text()), 7))
    evaluate_agents(agents()[:1], VARIANT, 4, save_games=folder, resume=True, on_note=again.append)
    assert again == [
        f"greedy: 1 saved record(s) played again: {greedy[2]}: an unfinished game (7 moves), "
        "not a played deal"
    ]


def test_a_record_of_another_model_zip_or_no_cycling_setting_is_refused(tmp_path: Path) -> None:
    """The player is its model's bytes, not its path (a zip replaced at the same path is
    another player), and its no-cycling rule (it changes the games)."""
    model = tmp_path / "model.zip"
    shutil.copyfile(ROOT / "results" / "training" / "Streets" / "best_model.zip", model)
    folder = tmp_path / "games"
    agent, variant = load_model_agent(model)
    evaluate_agents([agent], variant, 1, save_games=folder)
    (record,) = (folder / "ppo").iterdir()
    assert load_record(record).agent["model_digest"] == agent.digest
    assert load_record(record).agent["no_cycling"] is True
    shutil.copyfile(ROOT / "results/training/ablation/Streets/shaping/best_model.zip", model)
    other, _ = load_model_agent(model)
    assert other.digest != agent.digest
    with pytest.raises(
        RecordError, match=r"ppo/Streets-\d+\.json: cannot resume from it: played by"
    ):
        evaluate_agents([other], variant, 1, save_games=folder, resume=True)
    folder = tmp_path / "cycles"
    evaluate_agents([make_baseline("greedy")], VARIANT, 1, save_games=folder)
    with pytest.raises(RecordError, match=r"cannot resume from it: played by .*'no_cycling': True"):
        evaluate_agents(
            [make_baseline("greedy")], VARIANT, 1, save_games=folder, resume=True, allow_cycles=True
        )


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
    record = tmp_path / "g" / "random" / f"{VARIANT}-{seeds_for_test(1)[0]}.json"
    record.write_text(json.dumps(_cut_to_unfinished(json.loads(record.read_text()), 3)))
    assert main([*argv, "--resume", "--json", str(tmp_path / "c.json")]) == 0
    c = json.loads((tmp_path / "c.json").read_text())
    assert c["timing"]["random"]["resumed_deals"] == 2 and c["results"] == a["results"]
    err = capsys.readouterr().err
    assert err == (
        f"fortythieves evaluate: --resume: random: 1 saved record(s) played again: {record}: "
        "changed after it was written (its digest does not match it)\n"
    )
