"""Expert iteration (issue 26): the targets, the player's view only, resume, the CLI."""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from fortythieves_agents.cli.main import main
from fortythieves_agents.config import ConfigError, load_config
from fortythieves_agents.envs import make_training_vec_env, register_config_variant
from fortythieves_agents.evaluation.evaluate import (
    EpisodeResult,
    ModelAgent,
    summarize,
    wilson_interval,
)
from fortythieves_agents.players.search import (
    SearchAgent,
    SearchBudget,
    scores_for_view,
    view_digest,
)
from fortythieves_agents.process import torch_threads
from fortythieves_agents.reports import expert as expert_table
from fortythieves_agents.reports import expert_ablation as ablation
from fortythieves_agents.run_folder import ExpertFolder
from fortythieves_agents.seeds import OUTSIDE_START, TEST_START, TRAIN_RANGE
from fortythieves_agents.training import expert as expert_module
from fortythieves_agents.training import teacher as teacher_module
from fortythieves_agents.training.expert import (
    DaggerPlayer,
    beta_at,
    expert_seeds,
    run_expert_iterations,
    targets_from_search,
)
from fortythieves_agents.training.train import build_model
from helpers import CONFIGS, ROOT, one_error_line, rewrite_zip
from positions import redeal_into

from configs import TINY, with_set
from fortythieves_env import FortyThievesEnv

EXPERT = [
    *TINY,
    "policy.network=player",
    "expert.iterations=2",
    "expert.games=3",
    "expert.search_seconds=0.002",
    "expert.validation_games=2",
    "expert.epochs=2",
    "expert.batch_size=64",
]
"""Two iterations of three Lucas games, the search at 2,000 nodes per move."""


@pytest.fixture(autouse=True)
def _one_torch_thread() -> Any:
    """As ``train`` runs them (``train.torch_threads: 1``): torch's sums are then in one
    order, so a resumed run's networks can be compared bit for bit."""
    with torch_threads(1):
        yield


def _config(extra: list[str] | None = None) -> Any:
    return load_config(CONFIGS / "lucas.yaml", [*EXPERT, *(extra or [])])


def _model(config: Any) -> Any:
    return build_model(config, make_training_vec_env(config), None)


# ---------------------------------------------------------------------- targets
def test_soft_targets_are_the_softmax_of_the_search_values_over_the_temperature() -> None:
    nan = math.nan
    mask = np.array([1, 1, 1, 1, 0, 1], dtype=np.int8)
    scores = np.array([0.0, 2.0, 1.0, 0.0, -np.inf, -4.0])
    # move 0 legal but not valued, 1 and 2 valued, 3 legal not valued, 4 illegal,
    # 5 valued but demoted (a return to a view already met: score below 0)
    values = np.array([nan, 0.9, 0.8, nan, nan, 1.0])
    soft = targets_from_search(scores, values, mask, "soft", 0.05)
    assert soft.dtype == np.float32
    expected = 1.0 / (1.0 + math.exp(-0.1 / 0.05))
    assert soft[1] == pytest.approx(expected, rel=1e-6)
    assert soft[2] == pytest.approx(1.0 - expected, rel=1e-6)
    assert soft[[0, 3, 4, 5]].tolist() == [0.0, 0.0, 0.0, 0.0]
    hotter = targets_from_search(scores, values, mask, "soft", 1.0)
    assert hotter[1] == pytest.approx(1.0 / (1.0 + math.exp(-0.1)), rel=1e-6)
    mixed = targets_from_search(scores, values, mask, "soft", 0.05, move_weight=0.25)
    assert mixed[1] == pytest.approx(0.25 + 0.75 * expected, rel=1e-6)
    assert mixed[2] == pytest.approx(0.75 * (1.0 - expected), rel=1e-6)
    # improve: the network's distribution times exp(value / temperature); the unvalued legal
    # moves 0 and 3 take the lowest value (0.8), the demoted move 5 and illegal 4 nothing
    prior = np.array([0.0, 0.0, math.log(2.0), 0.0, -np.inf, 5.0])
    improved = targets_from_search(scores, values, mask, "improve", 0.05, prior=prior)
    raw = np.array([math.exp(0.8 / 0.05), math.exp(0.9 / 0.05), 2 * math.exp(0.8 / 0.05)])
    raw = np.array([raw[0], raw[1], raw[2], raw[0]])
    assert improved[[0, 1, 2, 3]] == pytest.approx(raw / raw.sum(), rel=1e-5)
    assert improved[[4, 5]].tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="needs the network"):
        targets_from_search(scores, values, mask, "improve", 0.05)
    hard = targets_from_search(scores, values, mask, "hard", 0.05)
    assert hard.tolist() == [0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    # the only or safe move, played without search, has no values: a one-hot target
    forced = targets_from_search(
        np.array([0.0, 17.0, -np.inf]), np.full(3, nan), mask[:3], "soft", 0.05
    )
    assert forced.tolist() == [0.0, 1.0, 0.0]


def test_targets_refuse_a_position_without_moves_and_unknown_kinds() -> None:
    with pytest.raises(ValueError, match="no legal move"):
        targets_from_search(np.zeros(2), np.zeros(2), np.zeros(2), "soft", 0.1)
    with pytest.raises(ValueError, match="'soft', 'hard' or 'improve'"):
        targets_from_search(np.zeros(2), np.zeros(2), np.ones(2), "medium", 0.1)


@pytest.mark.parametrize("variant", ["NumberTen", "Indian"])
def test_the_search_values_fill_its_candidates_and_leave_its_scores_alone(variant: str) -> None:
    """``values`` holds a mean of per-sample results in [0, 1] exactly for the moves the
    solving search valued, NaN elsewhere; passing it changes no score."""
    env = FortyThievesEnv(variant)
    env.reset(seed=5)
    budget = SearchBudget(samples=2, horizon=300, method="solve", nodes=200)
    valued_positions = 0
    rng = np.random.default_rng(0)
    for _ in range(30):
        view, mask = env.player_view(), env.action_masks()
        values = np.empty(mask.shape[0])
        seed = [1, 0, *view_digest(view)]
        with_values = scores_for_view(
            env.variant, view, budget, np.random.default_rng(seed), mask, None, values
        )
        plain = scores_for_view(env.variant, view, budget, np.random.default_rng(seed), mask)
        assert np.array_equal(with_values, plain)
        finite = ~np.isnan(values)
        assert np.all(mask[finite] == 1)
        assert np.all((values[finite] >= 0.0) & (values[finite] <= 1.0))
        valued_positions += bool(finite.sum() >= 2)
        legal = np.flatnonzero(mask)
        _, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
        if terminated or truncated:
            break
    assert valued_positions >= 5


# ---------------------------------------------------------------------- the player
def test_dagger_labels_and_guided_moves_do_not_change_when_the_unseen_cards_are_re_dealt() -> None:
    config = _config()
    model = _model(config)
    budget = SearchBudget(method="solve", seconds=0.002, nodes=200)
    players = [DaggerPlayer(ModelAgent(model), SearchAgent(4, budget), 0.5, 4, 0) for _ in range(2)]
    env, other = FortyThievesEnv("Lucas"), FortyThievesEnv("Lucas")
    obs, _ = env.reset(seed=21)
    spec = env.variant
    guided = [  # network + search: the network's top 2 candidates searched
        SearchAgent(4, budget, prior=ModelAgent(model), prior_top=2) for _ in range(2)
    ]
    spread = [  # network + search: every candidate, the network's preference weighted
        SearchAgent(4, budget, prior=ModelAgent(model), prior_weight=0.05) for _ in range(2)
    ]
    for p in [*players, *guided, *spread]:
        p.start_games(spec, np.array([0]))
    rng = np.random.default_rng(3)
    differed = 0
    for _ in range(20):
        other_obs, moved = redeal_into(env, other, rng)
        differed += moved
        a = players[0].action_scores(obs[None], env.action_masks()[None], np.array([0]))
        b = players[1].action_scores(other_obs[None], other.action_masks()[None], np.array([0]))
        assert np.array_equal(a, b)
        assert np.array_equal(players[0].labels[0].probs[-1], players[1].labels[0].probs[-1])
        g = guided[0].action_scores(obs[None], env.action_masks()[None], np.array([0]))
        h = guided[1].action_scores(other_obs[None], other.action_masks()[None], np.array([0]))
        assert np.array_equal(g, h)
        g = spread[0].action_scores(obs[None], env.action_masks()[None], np.array([0]))
        h = spread[1].action_scores(other_obs[None], other.action_masks()[None], np.array([0]))
        assert np.array_equal(g, h)
        obs, _, terminated, truncated, _ = env.step(int(np.argmax(a[0])))
        if terminated or truncated:
            break
    assert differed > 5


def test_beta_decides_whose_move_is_played(tmp_path: Path) -> None:
    """With beta 1 every move played is the search's; with 0 the network's, unless the
    no-cycling rule refuses it (a move back to a view already met)."""
    for mixing, key in ((1.0, "search_moves"), (0.0, "network_moves")):
        config = _config([f"expert.mixing={mixing}", "expert.iterations=1"])
        run = tmp_path / key
        run_expert_iterations(config, _model(config), run, "FortyThieves/Lucas-v0", echo=str)
        played = agreed = 0
        for g in range(3):
            with np.load(ExpertFolder(run / "expert").game(0, g)) as data:
                played += data["actions"].shape[0]
                agreed += int((data["actions"] == data[key]).sum())
        assert played > 100
        if mixing == 1.0:
            assert agreed == played
        else:
            assert agreed >= 0.8 * played


def test_the_mixing_probability_and_deals_follow_the_config() -> None:
    config = _config(["expert.mixing=0.8", "expert.mixing_decay=0.5"])
    assert [beta_at(config.expert, i) for i in range(3)] == [0.8, 0.4, 0.2]
    seeds = expert_seeds(7, 1, 50)
    assert seeds == expert_seeds(7, 1, 50) and seeds != expert_seeds(7, 2, 50)
    assert all(TRAIN_RANGE[0] <= s < TRAIN_RANGE[1] for s in seeds)


# ---------------------------------------------------------------------- resume
def _parameters(path: Path) -> dict[str, torch.Tensor]:
    from fortythieves_agents.networks.model_zip import load_maskable_ppo

    return {k: v.clone() for k, v in load_maskable_ppo(path).policy.state_dict().items()}


def _without_times(state: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for entry in state["iterations"]:
        entry = {
            k: v
            for k, v in entry.items()
            if "second" not in k and k != "games_kept_from_earlier_start"
        }
        entry["fit"] = {k: v for k, v in entry["fit"].items() if k != "seconds"}
        out.append(entry)
    return out


@pytest.mark.parametrize("where", ["labels", "fit"])
def test_an_interrupted_expert_run_resumes_to_the_same_networks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    config = _config()
    whole = tmp_path / "whole"
    run_expert_iterations(config, _model(config), whole, "FortyThieves/Lucas-v0", echo=str)

    calls = {"n": 0}
    target = "label_game" if where == "labels" else "clone_teacher"
    module = expert_module if where == "labels" else teacher_module
    real = getattr(module, target)

    def stops(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        # labels: iteration 1's second game; fit: iteration 1's fit
        if calls["n"] == (5 if where == "labels" else 2):
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(module, target, stops)
    cut = tmp_path / "cut"
    with pytest.raises(KeyboardInterrupt):
        run_expert_iterations(config, _model(config), cut, "FortyThieves/Lucas-v0", echo=str)
    folder = ExpertFolder(cut / "expert")
    assert folder.unfinished() and len(folder.read_state()["iterations"]) == 1
    assert folder.game(1, 0).is_file() and (where == "fit") == folder.game(1, 2).is_file()
    monkeypatch.setattr(module, target, real)
    # a fresh model (other weights than the run's): the resume reloads the saved networks
    state = run_expert_iterations(
        config, _model(_config(["seed=99"])), cut, "FortyThieves/Lucas-v0", echo=str
    )
    assert state["complete"]
    assert state["iterations"][1]["games_kept_from_earlier_start"] == (
        1 if where == "labels" else 3
    )
    assert _without_times(state) == _without_times(ExpertFolder(whole / "expert").read_state())
    for name in ("iteration_model", "start_model"):
        a = _parameters(getattr(ExpertFolder(whole / "expert"), name)(1))
        b = _parameters(getattr(folder, name)(1))
        assert a.keys() == b.keys()
        assert all(torch.equal(a[k], b[k]) for k in a)


# ---------------------------------------------------------------------- the CLI
def test_train_runs_expert_iterations_then_ppo_and_resumes_after_ctrl_c(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = expert_module.label_game
    calls = {"n": 0}

    def stops(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(expert_module, "label_game", stops)
    run = tmp_path / "run"
    argv = ["train", str(CONFIGS / "lucas.yaml"), "--run-dir", str(run), *with_set(EXPERT)]
    assert main(argv) == 130
    out = capsys.readouterr().out
    assert f"continue with: fortythieves train {run / 'config.yaml'} --resume {run}" in out
    assert not (run / "models" / "final_model.zip").exists()
    monkeypatch.setattr(expert_module, "label_game", real)
    # a new run in the same folder is refused; --resume continues
    assert main(argv) == 2
    one_error_line(capsys, "--run-dir", str(run), command="train")
    assert main(["train", str(run / "config.yaml"), "--resume", str(run)]) == 0
    out = capsys.readouterr().out
    assert "continuing its expert iterations" in out and "expert iteration 1:" in out
    assert "expert iteration 0:" not in out
    meta = json.loads((run / "run.json").read_text())
    assert meta["status"] == "completed" and meta["expert"]["complete"]
    assert [e["iteration"] for e in meta["expert"]["iterations"]] == [0, 1]
    assert (run / "models" / "final_model.zip").is_file()
    assert (run / "expert" / "model.zip").is_file()
    assert register_config_variant(_config().env) == "FortyThieves/Lucas-v0"
    # the learning curves per iteration, drawn and saved from expert/state.json
    import benchmarks.expert_curves as curves

    figures, png = tmp_path / "curves.json", tmp_path / "curves.png"
    assert curves.main([str(run), "--json", str(figures), "--png", str(png)]) == 0
    rows = json.loads(figures.read_text())["runs"][0]["iterations"]
    before = meta["expert"]["start_validation"]
    assert rows[0]["iteration"] == -1 and rows[0]["win_rate"] == before["win_rate"]
    assert before["episodes"] == 2
    rows = rows[1:]
    state = meta["expert"]["iterations"]
    assert [r["win_rate"] for r in rows] == [e["validation"]["win_rate"] for e in state]
    assert [r["agreement"] for r in rows] == [e["fit"]["after"]["accuracy"] for e in state]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # where the time went, per iteration: labelling, fitting, validating (seconds > 0)
    for entry in state:
        assert entry["label_seconds"] > 0 and entry["fit_seconds"] > 0
        assert entry["validation_seconds"] > 0
        assert entry["labels_per_second"] == pytest.approx(
            entry["labels"] / entry["label_seconds"], rel=0.05
        )


@pytest.mark.parametrize(
    ("override", "names"),
    [
        ("expert.targets=medium", ["expert.targets", "soft", "hard"]),
        ("expert.mixing=1.5", ["expert.mixing", "1"]),
        ("expert.temperature=0", ["expert.temperature", "0"]),
        ("expert.games=0", ["expert.games"]),
    ],
)
def test_bad_expert_settings_are_refused_in_one_line(
    override: str, names: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ["train", str(CONFIGS / "lucas.yaml"), "--run-dir", str(tmp_path / "r")]
    assert main([*argv, "--set", override]) == 2
    one_error_line(capsys, *names)
    assert not (tmp_path / "r").exists()


def test_worker_processes_label_the_same_games(tmp_path: Path) -> None:
    """``expert.workers: 2`` (spawned processes, one game each) writes the game files one
    process writes, array for array."""
    files = {}
    for workers in (1, 2):
        config = _config(["expert.iterations=1", f"expert.workers={workers}"])
        run = tmp_path / str(workers)
        run_expert_iterations(config, _model(config), run, "FortyThieves/Lucas-v0", echo=str)
        files[workers] = [dict(np.load(ExpertFolder(run / "expert").game(0, g))) for g in range(3)]
    for one, two in zip(files[1], files[2], strict=True):
        assert one.keys() == two.keys()
        assert all(np.array_equal(one[k], two[k], equal_nan=one[k].dtype.kind == "f") for k in one)
    assert sum(f["actions"].shape[0] for f in files[1]) > 100


# ---------------------------------------------------------------------- network + search
class _Guide:
    """A fixed guide: prefers the highest action index (the test knows its choice)."""

    def action_scores(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        scores = np.tile(np.arange(masks.shape[1], dtype=np.float64), (masks.shape[0], 1))
        return np.where(masks != 0, scores, -np.inf)


GUIDED_BUDGET = SearchBudget(method="solve", seconds=0.002, nodes=200)


def _scores_along_a_game(**guided: SearchAgent) -> Iterator[dict[str, np.ndarray]]:
    """The scores of the plain search (``"plain"``) and of each agent of ``guided`` at the
    first 15 moves of Number Ten deal 8, played by the plain search's choices."""
    env = FortyThievesEnv("NumberTen")
    obs, _ = env.reset(seed=8)
    agents = {"plain": SearchAgent(2, GUIDED_BUDGET), **guided}
    for agent in agents.values():
        agent.start_games(env.variant, np.array([0]))
    for _ in range(15):
        mask = env.action_masks()
        scores = {
            k: a.action_scores(obs[None], mask[None], np.array([0]))[0] for k, a in agents.items()
        }
        yield scores
        obs, _, terminated, truncated, _ = env.step(int(np.argmax(scores["plain"])))
        if terminated or truncated:
            break


def test_a_guided_search_searches_only_the_guides_best_candidates() -> None:
    """With ``prior_top`` at least the candidates, the guided search scores as the plain one;
    with 1, the guide's best candidate is the move (scored as an only move)."""
    one = SearchAgent(2, GUIDED_BUDGET, prior=_Guide(), prior_top=1)
    assert one.name == "search+network"
    narrowed = 0
    for scores in _scores_along_a_game(
        every=SearchAgent(2, GUIDED_BUDGET, prior=_Guide(), prior_top=1000), one=one
    ):
        assert np.array_equal(scores["plain"], scores["every"])
        searched = np.flatnonzero(scores["plain"] > 0)  # the candidates (others score 0)
        if searched.size > 1:
            narrowed += 1
            assert int(np.argmax(scores["one"])) == int(searched.max())  # the guide's favourite
    assert narrowed >= 5
    with pytest.raises(ValueError, match="prior_top >= 1"):
        SearchAgent(0, GUIDED_BUDGET, prior=_Guide())


def test_a_weighted_guide_spreads_the_samples_instead_of_pruning() -> None:
    """``prior_weight`` > 0 with ``prior_top`` 0: every candidate of the plain search is
    still searched (scores above the pruned moves' 0); a weight that outweighs any value
    (100 per unit of the guide's logits, the action index; values are in [0, 1]) makes the
    guide's favourite candidate the move, as ``prior_top=1`` does; a tiny one keeps the
    samples' say (the moves differ from the guide's favourite somewhere). Bad weights are
    refused."""
    heavy = SearchAgent(2, GUIDED_BUDGET, prior=_Guide(), prior_weight=100.0)
    light = SearchAgent(2, GUIDED_BUDGET, prior=_Guide(), prior_weight=1e-6)
    several, light_differs = 0, 0
    for scores in _scores_along_a_game(heavy=heavy, light=light):
        searched = np.flatnonzero(scores["plain"] > 0)
        for k in ("heavy", "light"):
            assert np.array_equal(np.flatnonzero(scores[k] > 0), searched)  # none pruned
        if searched.size > 1:
            several += 1
            assert int(np.argmax(scores["heavy"])) == int(searched.max())
            light_differs += int(np.argmax(scores["light"])) != int(searched.max())
    assert several >= 5 and light_differs >= 1
    assert heavy.description()["prior_weight"] == 100.0
    assert heavy.description()["prior_top"] == 0
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="prior_weight must be finite and >= 0"):
            SearchAgent(0, GUIDED_BUDGET, prior=_Guide(), prior_weight=bad)
    with pytest.raises(ValueError, match="prior_weight needs the solving setting"):
        SearchAgent(0, SearchBudget(), prior=_Guide(), prior_weight=1.0)


def test_evaluate_plays_network_plus_search_and_refuses_a_lone_top(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(["expert.iterations=1", "expert.games=1"])
    run = tmp_path / "run"
    run_expert_iterations(config, _model(config), run, "FortyThieves/Lucas-v0", echo=str)
    model = ExpertFolder(run / "expert").model
    report = tmp_path / "report.json"
    argv = ["evaluate", "search", "--variant", "Lucas", "--episodes", "2", "--baselines"]
    argv += ["--search-budget", "0.002", "--search-prior", str(model), "--json", str(report)]
    assert main([*argv, "--search-prior-top", "2", "--no-progress"]) == 0
    settings = json.loads(report.read_text())["results"]["search+network"]["settings"]
    assert settings["prior_top"] == 2 and settings["prior"] == str(model)
    assert main([*argv[:9], "--search-prior-top", "2"]) == 2
    one_error_line(capsys, "--search-prior-top", "--search-prior")
    assert main([*argv, "--search-prior-weight", "0.05", "--no-progress"]) == 0
    settings = json.loads(report.read_text())["results"]["search+network"]["settings"]
    assert (settings["prior_top"], settings["prior_weight"]) == (0, 0.05)
    assert main([*argv[:9], "--search-prior-weight", "0.05"]) == 2
    one_error_line(capsys, "--search-prior-weight", "--search-prior")
    assert main([*argv, "--search-prior-weight", "-1"]) == 2
    one_error_line(capsys, "--search-prior-weight", "[0, 100]")


# ---------------------------------------------------------------------- stops and changes
def _stop_at(monkeypatch: pytest.MonkeyPatch, call: int) -> None:
    """Make the ``call``-th labelled game (counting from 1) raise KeyboardInterrupt."""
    real = expert_module.label_game
    calls = {"n": 0}

    def stops(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == call:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(expert_module, "label_game", stops)


def test_a_stop_in_the_first_game_can_be_continued_and_a_changed_config_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stop_at(monkeypatch, 1)
    run = tmp_path / "run"
    teacher = ["train.teacher=greedy", "teacher.games=2", "teacher.epochs=1"]
    argv = ["train", str(CONFIGS / "lucas.yaml"), "--run-dir", str(run)]
    argv += with_set([*EXPERT, *teacher])
    assert main(argv) == 130
    assert ExpertFolder(run / "expert").unfinished()
    capsys.readouterr()
    monkeypatch.undo()
    config_text = (run / "config.yaml").read_text()
    resume = ["train", str(run / "config.yaml"), "--resume", str(run)]
    # a setting the labels depend on: refused in one line, nothing written
    assert main([*resume, "--set", "expert.temperature=0.2"]) == 2
    line = one_error_line(capsys, "expert.temperature", "0.05", "0.2", command="train")
    assert "config.yaml" in line
    assert (run / "config.yaml").read_text() == config_text
    assert main([*resume, "--run-dir", str(tmp_path / "elsewhere")]) == 2
    one_error_line(capsys, "--run-dir", command="train")
    # fewer iterations than asked at the start: the continued run ends after one
    assert main([*resume, "--set", "expert.iterations=1"]) == 0
    state = ExpertFolder(run / "expert").read_state()
    assert state["complete"] and len(state["iterations"]) == 1
    assert state["iterations"][0]["fit"]["held_out_games"] == 1  # the window's last game
    assert not ExpertFolder(run / "expert").unfinished()
    meta = json.loads((run / "run.json").read_text())  # the teacher's figures are kept
    assert meta["teacher"]["name"] == "greedy" and meta["teacher"]["games"] == 2
    assert meta["expert"]["iterations"] == state["iterations"]


def test_value_targets_use_the_training_rewards() -> None:
    """The returns are the training env's: with the card reward at 0.01 and no win bonus they
    are 0.01 times those at 1.0 (the evaluation env's default rewards would not change)."""
    from fortythieves_agents.evaluation.evaluate import play_deals
    from fortythieves_agents.players.baselines import make_baseline

    traces: list[Any] = []
    play_deals(make_baseline("greedy"), "FortyThieves/Lucas-v0", [123], traces=traces)
    actions = traces[0].actions
    env_id = "FortyThieves/Lucas-v0"
    unit = expert_module._returns(env_id, 123, actions, 0.9, _config(["env.win_bonus=0"]))
    small = _config(["env.win_bonus=0", "env.reward_per_card=0.01"])
    scaled = expert_module._returns(env_id, 123, actions, 0.9, small)
    assert unit[0] > 1.0
    assert scaled == pytest.approx(0.01 * unit, rel=1e-5)
    default = expert_module._returns(env_id, 123, actions, 0.9)
    assert not np.allclose(default, scaled)


def test_the_search_prior_guides_the_search_baseline_beside_a_model(tmp_path: Path) -> None:
    config = _config(["expert.iterations=1", "expert.games=1"])
    run = tmp_path / "run"
    run_expert_iterations(config, _model(config), run, "FortyThieves/Lucas-v0", echo=str)
    model = ExpertFolder(run / "expert").model
    report = tmp_path / "report.json"
    argv = ["evaluate", str(model), "--episodes", "1", "--baselines", "search", "--no-progress"]
    argv += ["--search-budget", "0.002", "--search-prior", str(model), "--json", str(report)]
    assert main(argv) == 0
    assert set(json.loads(report.read_text())["results"]) == {"ppo", "search+network"}


def test_prior_vs_search_compares_deal_by_deal(tmp_path: Path) -> None:
    from benchmarks.prior_vs_search import compare

    rows = [
        {"seed": 5, "won": True, "length": 10},
        {"seed": 6, "won": False, "length": 20},
        {"seed": 7, "won": True, "length": 30},
    ]
    report = {
        "variant": "NumberTen",
        "results": {
            "search+network": {
                "per_episode": rows,
                "settings": {"budget_seconds_per_move": 0.1, "prior": "m.zip", "prior_top": 3},
            }
        },
        "timing": {"search+network": {"seconds_per_move": 0.05}},
    }
    games = [
        {"seed": 5, "won": False, "length": 40, "seconds": 4.0},
        {"seed": 6, "won": True, "length": 60, "seconds": 6.0},
        {"seed": 7, "won": True, "length": 100, "seconds": 5.0},
    ]
    other = {"variant": "NumberTen", "agent": "search", "budget_seconds": 1.0, "games": []}
    curve = {
        "points": [
            other,
            {"variant": "NumberTen", "agent": "search", "budget_seconds": 0.1, "games": games},
        ]
    }
    (tmp_path / "r.json").write_text(json.dumps(report))
    (tmp_path / "c.json").write_text(json.dumps(curve))
    out = compare(tmp_path / "r.json", tmp_path / "c.json")
    assert (out["search_plus_network_wins"], out["search_alone_wins"]) == (2, 2)
    assert (out["only_search_plus_network"], out["only_search_alone"]) == ([5], [6])
    assert out["search_alone_seconds_per_move"] == 0.075  # 15 s over 200 moves
    curve["points"][1]["games"] = games[:2]
    (tmp_path / "c.json").write_text(json.dumps(curve))
    with pytest.raises(
        SystemExit,
        match=r"no game of 1 of the guided search's 3 deals \(seed 7; it has 2 deals, seeds 5\.\.6\)",
    ):
        compare(tmp_path / "r.json", tmp_path / "c.json")
    # the search alone's game records instead of the curve (a variant the curve lacks)
    folder = tmp_path / "records"
    folder.mkdir()
    settings = {"budget_seconds_per_move": 0.1}
    for game in games:
        record = {
            "variant": {"id": "NumberTen"},
            "agent": {"name": "search", "settings": settings},
            "source": {"kind": "seed", "value": game["seed"]},
            "outcome": {"won": game["won"], "length": game["length"]},
        }
        (folder / f"NumberTen-{game['seed']}.json").write_text(json.dumps(record))
    out = compare(tmp_path / "r.json", alone_games=folder)
    assert (out["search_plus_network_wins"], out["search_alone_wins"]) == (2, 2)
    assert (out["only_search_plus_network"], out["only_search_alone"]) == ([5], [6])
    assert out["search_alone_seconds_per_move"] is None  # records do not time the moves
    record["agent"]["settings"] = {"budget_seconds_per_move": 1.0}
    (folder / "NumberTen-7.json").write_text(json.dumps(record))
    with pytest.raises(SystemExit, match=r"not the search alone at 0\.1 s per move"):
        compare(tmp_path / "r.json", alone_games=folder)


def test_prior_vs_search_reads_the_search_alone_from_its_report(tmp_path: Path) -> None:
    """``--alone-report``: the search alone's per-deal rows from its ``evaluate --per-episode``
    report (committed beside the guided one; the game records stay on the machine), its
    seconds per move from the report's timing, the sign test over the deals only one won;
    a report of another variant, budget or without rows is refused naming the file."""
    from benchmarks.prior_vs_search import compare
    from benchmarks.prior_vs_search import main as prior_main

    alone = tmp_path / "alone.json"
    argv = ["evaluate", "search", "--variant", "Lucas", "--episodes", "3", "--no-progress"]
    argv += ["--search-budget", "0.002", "--per-episode", "--json", str(alone)]
    assert main(argv) == 0
    saved = json.loads(alone.read_text())
    played = saved["results"]["search"]["per_episode"]
    rows = [{**r, "won": not r["won"]} for r in played[:2]] + played[2:]  # two deals flipped
    guided = {
        "variant": "Lucas",
        "results": {
            "search+network": {
                "per_episode": rows,
                "settings": {"budget_seconds_per_move": 0.002, "prior": "m.zip"},
            }
        },
        "timing": {"search+network": {"seconds_per_move": 0.001}},
    }
    (tmp_path / "g.json").write_text(json.dumps(guided))
    out = compare(tmp_path / "g.json", alone_report=alone)
    flipped_to_win = [r["seed"] for r in played[:2] if not r["won"]]
    flipped_to_loss = [r["seed"] for r in played[:2] if r["won"]]
    assert out["only_search_plus_network"] == flipped_to_win
    assert out["only_search_alone"] == flipped_to_loss
    assert out["search_alone_wins"] == sum(r["won"] for r in played)
    assert out["sign_test_p"] == 1.0  # two deals tell them apart: never significant
    assert out["search_alone_seconds_per_move"] == saved["timing"]["search"]["seconds_per_move"]
    assert prior_main([str(tmp_path / "g.json"), "--alone-report", str(alone)]) == 0
    guided["variant"] = "NumberTen"
    (tmp_path / "g.json").write_text(json.dumps(guided))
    with pytest.raises(SystemExit, match=r"alone\.json: a report of Lucas, not of NumberTen"):
        compare(tmp_path / "g.json", alone_report=alone)
    guided["variant"] = "Lucas"
    guided["results"]["search+network"]["settings"]["budget_seconds_per_move"] = 0.1
    (tmp_path / "g.json").write_text(json.dumps(guided))
    with pytest.raises(SystemExit, match=r"alone\.json: not the search alone at 0\.1 s per"):
        compare(tmp_path / "g.json", alone_report=alone)


def test_the_shipped_expert_config_is_the_measured_pilots_recipe() -> None:
    """``configs/expert/numberten.yaml`` makes the networks of the saved pilot 3 (its state
    file's settings fingerprint, read by the continue check, names no difference), and its
    iterations are all in that file."""
    config = load_config(CONFIGS / "expert" / "numberten.yaml")
    state = json.loads((ROOT / "results/expert/pilots/numberten-pilot3-state.json").read_text())
    assert expert_module.fingerprint_differences(state["config"], config) == []
    assert config.expert.iterations >= len(state["iterations"]) >= 5
    assert config.expert.targets == "improve" and config.eval.final_episodes == 0
    # the state was saved before policy.player.unseen_inputs existed: it means false
    assert "policy.player.unseen_inputs" not in state["config"]
    wide = load_config(CONFIGS / "expert" / "numberten.yaml", ["policy.player.unseen_inputs=true"])
    assert expert_module.fingerprint_differences(state["config"], wide) == [
        "policy.player.unseen_inputs: False -> True"
    ]


def test_the_expert_table_reads_the_saved_reports(tmp_path: Path) -> None:
    """docs/training.md's table renders results/ (that the page holds it:
    ``tests/agents/reports/test_generated.py``); a report of other deals than its column says
    is refused, naming the variant."""
    inside = expert_table.table_for(ROOT / "results")
    number_ten = next(line for line in inside.splitlines() if line.startswith("| NumberTen |"))
    assert number_ten.split(" | ")[1] != "-"  # the shipped network's report is read
    # its proved wins against today's solver records, from the goal report's rows of the same
    # network (its own report has none), as the goal table counts them
    from fortythieves_agents.evaluation.evaluate import ceiling_cell
    from fortythieves_agents.evaluation.leaderboard import solver_ceiling_of

    goal = json.loads((ROOT / "results/expert/goal/NumberTen-network-500.json").read_text())
    today = solver_ceiling_of("NumberTen", goal["results"]["ppo"], ROOT / "results" / "solver")
    assert today is not None
    assert number_ten.split(" | ")[2] == ceiling_cell(today)
    bad = tmp_path / "expert" / "numberten"
    bad.mkdir(parents=True)
    other_deals = (ROOT / "results/search/ppo/NumberTen-200.json").read_text()  # 200 deals
    (bad / "network-500.json").write_text(other_deals)
    (bad / "model.zip").write_bytes(b"")  # a shipped stage: the table reads its report
    with pytest.raises(
        ValueError, match=r"NumberTen: .*network-500\.json: a report of 200 deals where 500"
    ):
        expert_table.table_for(tmp_path)
    # network + search: one entry per saved setting, each with the search alone's wins on
    # the same deals, by number of deals; a pairing on other deals than its name says refused
    prior = tmp_path / "search" / "prior"
    prior.mkdir(parents=True)
    for name, deals, wins, alone, only in (
        ("50-s0.1-expert-top3", 50, 27, 31, (0, 4)),
        ("100-s0.1-expertppo-w0.02", 100, 71, 63, (17, 9)),
        ("50-s0.1-ppo-w0.02", 50, 33, 31, (2, 0)),
        ("200-s0.1-finetuned-w0.02", 200, 140, 120, (26, 6)),
    ):
        pairing = {
            "deals": deals,
            "search_plus_network_wins": wins,
            "search_alone_wins": alone,
            "only_search_plus_network": [TEST_START + i for i in range(only[0])],
            "only_search_alone": [TEST_START + only[0] + i for i in range(only[1])],
            "sign_test_p": 0.5,  # a file's own p-value is never shown: counted from the lists
        }
        (prior / f"Lucas-{name}-vs-search.json").write_text(json.dumps(pairing))
    cells = expert_table.row("Lucas", tmp_path).split(" | ")
    assert cells[-1] == (
        "27 vs 31 of 50 (expert, top 3; sign test p = 0.12); "
        "33 vs 31 of 50 (PPO, weight 0.02; sign test p = 0.5); "
        "71 vs 63 of 100 (expert + PPO, weight 0.02; sign test p = 0.17); "
        "140 vs 120 of 200 (family network fine-tuned, weight 0.02; sign test p = 0.00054) |"
    )
    pairing.pop("only_search_alone")
    (prior / "Lucas-200-s0.1-finetuned-w0.02-vs-search.json").write_text(json.dumps(pairing))
    with pytest.raises(ValueError, match="no lists of the deals only one of the two won"):
        expert_table.row("Lucas", tmp_path)
    (prior / "Lucas-200-s0.1-finetuned-w0.02-vs-search.json").unlink()
    (prior / "Lucas-50-s0.1-expert-w0.1-vs-search.json").write_text(
        json.dumps({"deals": 40, "search_plus_network_wins": 1, "search_alone_wins": 30})
    )
    with pytest.raises(ValueError, match="not a pairing on 50 deals"):
        expert_table.row("Lucas", tmp_path)


def test_the_goal_table_counts_the_networks_wins_on_the_searchs_deals(tmp_path: Path) -> None:
    """docs/training.md's goal table renders results/: the network's wins are counted on the
    search's first 200 deals only (from its rows per deal), a goal is met at 80% of the
    search's wins and not below, and a report without rows per deal or starting at other
    deals is refused."""
    (tmp_path / "search").mkdir()
    search = json.loads((ROOT / "results/search/Lucas-200-s0.1.json").read_text())
    wins = 100  # the rest of its summary as the leaderboard's checks want it
    search["results"]["search"].pop("per_episode", None)  # rows would give its 177 wins
    search["results"]["search"].update(wins=wins, win_rate=wins / 200)
    search["results"]["search"]["win_rate_ci95"] = list(wilson_interval(wins, 200))
    (tmp_path / "search" / "Lucas-200-s0.1.json").write_text(json.dumps(search))
    first = search["seeds"]["first"]
    goal = tmp_path / "expert" / "goal"
    goal.mkdir(parents=True)

    def network(won_first_200: int, won_after: int, **extra: object) -> str:
        rows = [
            EpisodeResult(first + i, won, 104 if won else 8, 1, 0.0, False)
            for i in range(500)
            if (won := i < won_first_200 or 200 <= i < 200 + won_after) or True
        ]
        summary = {**summarize(rows), "per_episode": [asdict(r) for r in rows], **extra}
        report = {"variant": "Lucas", "episodes": 500,
                  "seeds": {"first": first, "count": 500, "rule": "2_000_000_000 + i"},
                  "model": "results/training/Lucas/best_model.zip",
                  "results": {"ppo": summary}}  # fmt: skip
        (goal / "Lucas-network-500.json").write_text(json.dumps(report))
        return expert_table.goal_row("Lucas", tmp_path)

    cells = network(80, 300).split(" | ")
    assert cells[1:6] == ["100/200", "PPO", "80/200", "80%", "met"]
    cells = network(79, 300).split(" | ")
    assert cells[3:6] == ["79/200", "79%", "**not met**"]
    ceiling = {"proved_won": 10, "wins_among_proved": 5, "share_of_proved": 0.5}
    assert network(79, 0, solver_ceiling=ceiling).split(" | ")[6:] == [
        "5/10 (50.0%)",
        "does not apply",
        "- |",  # not played outside every range
    ]
    report = json.loads((goal / "Lucas-network-500.json").read_text())
    rows = report["results"]["ppo"]["per_episode"]
    twice = copy.deepcopy(report)
    twice["results"]["ppo"]["per_episode"] = rows[:200] + rows[:300]  # deals twice
    (goal / "Lucas-network-500.json").write_text(json.dumps(twice))
    with pytest.raises(ValueError, match=r"per_episode\[200\]\.seed: deal \d+ again"):
        expert_table.goal_row("Lucas", tmp_path)
    (goal / "Lucas-network-500.json").write_text(json.dumps({**report, "variant": "Indian"}))
    with pytest.raises(ValueError, match="a report of Indian, not of Lucas"):
        expert_table.goal_row("Lucas", tmp_path)
    del report["results"]["ppo"]["per_episode"]
    (goal / "Lucas-network-500.json").write_text(json.dumps(report))
    with pytest.raises(ValueError, match="no rows per deal"):
        expert_table.goal_row("Lucas", tmp_path)
    report["seeds"]["first"] = first + 1
    (goal / "Lucas-network-500.json").write_text(json.dumps(report))
    with pytest.raises(
        ValueError, match=r"plays test deals 1\.\.500; the leaderboard and the tables read"
    ):
        expert_table.goal_row("Lucas", tmp_path)


def test_the_goal_table_gives_the_fine_tuned_family_network_its_own_row(tmp_path: Path) -> None:
    """Where a network fine-tuned from the family network is shipped (its run's final
    evaluation under family/finetune/<Variant>/finetuned/), the goal table has a second row
    for the variant with its figures on the same deals; without one, one row."""
    (tmp_path / "search").mkdir()
    search = json.loads((ROOT / "results/search/Lucas-200-s0.1.json").read_text())
    search["results"]["search"].pop("per_episode", None)  # rows would give its 177 wins
    search["results"]["search"].update(wins=100, win_rate=0.5)
    search["results"]["search"]["win_rate_ci95"] = list(wilson_interval(100, 200))
    (tmp_path / "search" / "Lucas-200-s0.1.json").write_text(json.dumps(search))
    first = search["seeds"]["first"]

    def report(won_first_200: int, model: str) -> dict:
        rows = [
            EpisodeResult(first + i, (won := i < won_first_200), 104 if won else 8, 1, 0.0, False)
            for i in range(500)
        ]
        summary = {**summarize(rows), "per_episode": [asdict(r) for r in rows]}
        return {"variant": "Lucas", "episodes": 500,
                "seeds": {"first": first, "count": 500, "rule": "2_000_000_000 + i"},
                "model": model, "results": {"ppo": summary}}  # fmt: skip

    goal = tmp_path / "expert" / "goal"
    goal.mkdir(parents=True)
    shipped = report(70, "results/training/Lucas/best_model.zip")
    (goal / "Lucas-network-500.json").write_text(json.dumps(shipped))
    assert len(expert_table.goal_row("Lucas", tmp_path).splitlines()) == 1
    tuned = expert_table.finetuned_evaluation(tmp_path, "Lucas")
    assert tuned == tmp_path / "family/finetune/Lucas/finetuned/final_evaluation.json"
    tuned.parent.mkdir(parents=True)
    tuned.write_text(json.dumps(report(90, "models/best_model.zip")))
    first_row, second = expert_table.goal_row("Lucas", tmp_path).splitlines()
    assert first_row.split(" | ")[1:6] == ["100/200", "PPO", "70/200", "70%", "**not met**"]
    assert second.split(" | ")[1:6] == ["100/200", "family, fine-tuned", "90/200", "90%", "met"]


def test_the_goal_table_shows_the_networks_one_play_outside_every_range(tmp_path: Path) -> None:
    """issue 40 point 4: beside the best network's test figure, its one evaluation on 500 deals
    outside every range (outside-500.json beside its model, scripts/expert/outside.py), and
    the fine-tuned network's (its family evaluation's outside deals); ``-`` where none was
    played; a report of another variant or other deals is refused, naming the file."""
    outside, _, path, family_path = _outside_goal_folder(tmp_path)
    first_row, second = expert_table.goal_row("Lucas", tmp_path).splitlines()
    assert first_row.endswith(" | 120/500 (24.0%; test 50.0%) |")
    assert second.endswith(" | 90/500 (18.0%; test 20.0%) |")
    path.unlink()
    family_path.unlink()
    assert all(
        row.endswith(" | - |") for row in expert_table.goal_row("Lucas", tmp_path).splitlines()
    )
    path.write_text(json.dumps({**outside, "variant": "Indian"}))
    with pytest.raises(ValueError, match=r"outside-500\.json: not a report of Lucas.s network"):
        expert_table.goal_row("Lucas", tmp_path)
    first = json.loads((ROOT / "results/search/Lucas-200-s0.1.json").read_text())["seeds"]["first"]
    path.write_text(json.dumps({**outside, "seeds": {**outside["seeds"], "first": first}}))
    with pytest.raises(
        ValueError, match=r"outside-500\.json: its deals do not start at seed 3_000"
    ):
        expert_table.goal_row("Lucas", tmp_path)


def _outside_goal_folder(tmp_path: Path) -> tuple[dict, dict, Path, Path]:
    """A results folder whose goal row has Lucas's PPO network and its fine-tuned network,
    each with a sound report on the 500 deals outside every range: (the network's outside
    report, the fine-tuned one's family evaluation, where each is saved)."""
    (tmp_path / "search").mkdir()
    search = json.loads((ROOT / "results/search/Lucas-200-s0.1.json").read_text())
    (tmp_path / "search" / "Lucas-200-s0.1.json").write_text(json.dumps(search))
    first = search["seeds"]["first"]

    def summary(won: int, seeds: list[int]) -> dict:
        rows = [EpisodeResult(s, i < won, 104 if i < won else 8, 1, 0.0, False)
                for i, s in enumerate(seeds)]  # fmt: skip
        return {**summarize(rows), "per_episode": [asdict(r) for r in rows]}

    test_seeds = list(range(first, first + 500))
    outside_seeds = list(range(OUTSIDE_START, OUTSIDE_START + 500))
    report = {"variant": "Lucas", "episodes": 500,
              "seeds": {"first": first, "count": 500, "rule": "2_000_000_000 + i"},
              "model": "results/training/Lucas/best_model.zip",
              "results": {"ppo": summary(250, test_seeds)}}  # fmt: skip
    (tmp_path / "expert" / "goal").mkdir(parents=True)
    (tmp_path / "expert" / "goal" / "Lucas-network-500.json").write_text(json.dumps(report))
    outside = {**report, "seeds": {"first": OUTSIDE_START, "count": 500, "rule": "3_000_000_000 + i"},
               "results": {"ppo": summary(120, outside_seeds)}}  # fmt: skip
    path = tmp_path / "training" / "Lucas" / "outside-500.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(outside))
    tuned = expert_table.finetuned_evaluation(tmp_path, "Lucas")
    tuned.parent.mkdir(parents=True)
    tuned.write_text(json.dumps({**report, "results": {"ppo": summary(100, test_seeds)}}))
    family = {"kind": "family_zero_shot", "games": {"Lucas": {"outside": {
        **outside, "results": {"ppo": summary(90, outside_seeds)}}}}}  # fmt: skip
    (tuned.parent / "outside.json").write_text(json.dumps(family))
    return outside, family, path, tuned.parent / "outside.json"


def _spoiled(report: dict, where: str, value: Any) -> dict:
    """A deep copy of ``report`` with the field at dotted path ``where`` set to ``value``
    (``...`` removes it)."""
    spoiled = copy.deepcopy(report)
    *parents, last = where.split(".")
    node = spoiled
    for key in parents:
        node = node[int(key) if isinstance(node, list) else key]
    if value is ...:
        del node[last]
    else:
        node[int(last) if isinstance(node, list) else last] = value
    return spoiled


HOSTILE_OUTSIDE = {
    "seeds a list": ("seeds", [1]),
    "seeds null": ("seeds", None),
    "no results": ("results", ...),
    "results a list": ("results", []),
    "another agent's name": ("results", {"greedy": {}}),
    "the network null": ("results.ppo", None),
    "no wins": ("results.ppo.wins", ...),
    "no rows": ("results.ppo.per_episode", ...),
    "a win rate of NaN": ("results.ppo.win_rate", math.nan),
    "a win rate as text": ("results.ppo.win_rate", "high"),
    "a win rate not its wins'": ("results.ppo.win_rate", 0.99),
    "more wins than deals": ("results.ppo.wins", 900),
    "0 deals": ("episodes", 0),
    "no rows, an empty list": ("results.ppo.per_episode", []),
    "rows of the test deals": ("results.ppo.per_episode.0.seed", TEST_START),
    "another model's": ("model", "results/expert/lucas-ppo/model.zip"),
    "made under other rules": ("rules_version", 99),
}


@pytest.mark.parametrize("fault", sorted(HOSTILE_OUTSIDE))
def test_the_goal_table_refuses_a_hostile_outside_report_naming_it(
    tmp_path: Path, fault: str
) -> None:
    """The network's outside-500.json and the fine-tuned network's family evaluation
    (outside.json) are checked as the other reports are: a file of the wrong shape, a summary
    its rows do not give, other deals or another model is one ValueError naming the file,
    never a traceback from deep in the table nor a wrong or empty cell."""
    outside, family, path, family_path = _outside_goal_folder(tmp_path)
    assert (
        expert_table.goal_row("Lucas", tmp_path)
        .splitlines()[1]
        .endswith(" | 90/500 (18.0%; test 20.0%) |")
    )
    where, value = HOSTILE_OUTSIDE[fault]
    for name, target, text in [
        ("outside-500.json", path, json.dumps(_spoiled(outside, where, value))),
        (
            "outside.json",
            family_path,
            json.dumps(_spoiled(family, f"games.Lucas.outside.{where}", value)),
        ),
    ]:
        if name == "outside.json" and where == "model":
            continue  # a family evaluation names its model once, above its games
        saved = target.read_text()
        target.write_text(text)
        with pytest.raises(ValueError, match=re.escape(f"{target}: ")) as raised:
            expert_table.goal_table_for(tmp_path)
        assert "\n" not in str(raised.value)
        target.write_text(saved)


@pytest.mark.parametrize("outside", [None, {}, "x", [1]], ids=["null", "empty", "text", "list"])
def test_the_goal_table_refuses_a_family_evaluation_without_outside_deals(
    tmp_path: Path, outside: Any
) -> None:
    """A fine-tuned network's outside.json made without outside deals (--outside 0) or of
    another shape is refused naming the file, as the family page refuses it
    (reports.family._outside_line), not shown as ``-``."""
    _, family, _, family_path = _outside_goal_folder(tmp_path)
    family_path.write_text(json.dumps(_spoiled(family, "games.Lucas.outside", outside)))
    with pytest.raises(ValueError, match=r"outside\.json: "):
        expert_table.goal_table_for(tmp_path)


def test_goal_sh_tries_the_network_stages_in_the_order_of_stages() -> None:
    """scripts/expert/goal.sh picks the model best_network names: it tries every stage of
    STAGES, latest first, then the shipped PPO model."""
    text = (ROOT / "scripts" / "expert" / "goal.sh").read_text()
    tried = re.findall(r"model=results/expert/\$low([a-z-]*)/model\.zip", text)
    assert tried == [suffix for suffix, _ in expert_table.STAGES]
    assert "model=results/training/$variant/best_model.zip" in text


def test_the_budget_table_sums_each_runs_iterations(tmp_path: Path) -> None:
    """docs/training.md's budget table renders the saved run states: labels and seconds
    summed over the iterations, labels per second and the fit's positions x epochs per
    second from those sums, validation seconds only when every iteration recorded them."""
    pilots = tmp_path / "expert" / "pilots"
    pilots.mkdir(parents=True)

    def entry(labels: int, seconds: float, validation: float | None) -> dict[str, Any]:
        out = {"labels": labels, "label_seconds": seconds, "fit_seconds": 2.0,
               "fit": {"train_samples": 100}}  # fmt: skip
        return out if validation is None else {**out, "validation_seconds": validation}

    config = {"env.variant": "Lucas", "expert.epochs": 8}
    state = {"config": config, "iterations": [entry(300, 10.0, 1.0), entry(100, 10.0, 3.0)]}
    (pilots / "a-state.json").write_text(json.dumps(state))
    state["iterations"][1].pop("validation_seconds")
    (pilots / "b-state.json").write_text(json.dumps(state))
    (pilots / "c-state.json").write_text(json.dumps({"iterations": []}))
    rows = expert_table.budget_table_for(tmp_path).splitlines()[2:]
    assert rows == [
        "| pilots/a | Lucas | 2 | 400 | 20 (20.0) | 4 (400) | 4 | 71% |",
        "| pilots/b | Lucas | 2 | 400 | 20 (20.0) | 4 (400) | - | 83% (of labels + fit) |",
    ]


def test_the_ablation_table_reads_the_saved_records(tmp_path: Path) -> None:
    """docs/training.md's ablation table renders results/: every run's validation wins after
    each iteration as its state file has them, the refits per target and seed, and a
    PPO-after report of other than 500 deals refused."""
    inside = ablation.table_for(ROOT / "results")
    state = json.loads((ROOT / "results/expert/pilots/indian-ppo-state.json").read_text())
    wins = ", ".join(str(entry["validation"]["wins"]) for entry in state["iterations"])
    start = state["start_validation"]["wins"]
    assert f"| Indian | labelled games | DAgger | {start} | {wins} | - |" in inside
    (tmp_path / "expert" / "ablation").mkdir(parents=True)
    rows = [
        {"soft_temperature": None, "move_weight": 1.0, "win_rate": 0.04, "seed": 1,
         "validation_deals": 200},
        {"soft_temperature": 0.05, "move_weight": 0.0, "win_rate": 0.5, "seed": 0,
         "validation_deals": 200},
        {"soft_temperature": None, "move_weight": 0.5, "win_rate": 0.9, "seed": 0,
         "validation_deals": 200},
    ]  # fmt: skip
    (tmp_path / "expert" / "ablation" / "indian-targets.jsonl").write_text(
        "".join(json.dumps(row) + "\n" for row in rows)
    )
    table = ablation.table_for(tmp_path)
    assert "| Indian | targets | soft (temperature 0.05) | - | 100 (fit seed 0) | - |" in table
    assert "| Indian | targets | hard | - | 8 (fit seed 1) | - |" in table
    assert "180" not in table  # a mixed target is none of the three
    (tmp_path / "expert" / "indian").mkdir()
    (tmp_path / "expert" / "indian" / "network-500.json").write_text(
        (ROOT / "results/search/ppo/Indian-200.json").read_text()  # a report of 200 deals
    )
    with pytest.raises(ValueError, match="200 deals where 500"):
        ablation.table_for(tmp_path)


def test_the_refit_scripts_soft_targets_are_the_values_softmax() -> None:
    """scripts/expert/refit_targets.py's soft targets from saved values: the softmax of the
    valued moves' values over the temperature (the search's soft targets), nothing on a move
    the search did not value, and the labelled target kept where it valued none."""
    from helpers import load_script

    refit = load_script(ROOT / "scripts" / "expert" / "refit_targets.py", "refit_targets")
    values = np.array([[0.5, np.nan, 0.25], [np.nan, np.nan, np.nan]])
    labelled = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], dtype=np.float32)
    out = refit._soft(values, labelled, 0.05)
    legal = np.ones(3, dtype=np.int8)
    scores = np.nan_to_num(values[0], nan=-1.0)
    expected = expert_module.targets_from_search(scores, values[0], legal, "soft", 0.05)
    np.testing.assert_allclose(out[0], expected, rtol=1e-6)
    assert out[0, 1] == 0.0 and out[0, 0] == pytest.approx(1 / (1 + np.exp(-5)), rel=1e-6)
    np.testing.assert_array_equal(out[1], labelled[1])


def test_the_refit_script_widens_every_setting_on_one_env_it_closes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """scripts/expert/refit_targets.py --unseen-inputs: each setting's network is the start
    network widened (one row per setting), built on one vector env for all settings, which
    is closed at the end (it made and leaked one per setting)."""
    from helpers import load_script

    refit = load_script(ROOT / "scripts" / "expert" / "refit_targets.py", "refit_targets")
    run = tmp_path / "run"
    one = [*with_set(EXPERT), "--set", "expert.iterations=1"]
    assert main(["train", str(CONFIGS / "lucas.yaml"), "--run-dir", str(run), *one]) == 0
    made: list[Any] = []
    closed: list[Any] = []

    def counted(config: Any) -> Any:
        env = make_training_vec_env(config)
        made.append(env)
        close = env.close

        def closing() -> None:
            closed.append(env)
            close()

        env.close = closing
        return env

    monkeypatch.setattr(refit, "make_training_vec_env", counted)
    out = tmp_path / "refit.jsonl"
    argv = [str(run), "0,1,1e-3,0", "1,1,1e-3,1", "--games", "3", "--validation", "2"]
    assert refit.main([*argv, "--out", str(out), "--unseen-inputs"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["move_weight"], r["seed"], r["unseen_inputs"]) for r in rows] == [
        (0.0, 0, True),
        (1.0, 1, True),
    ]
    assert len(made) == 1 and closed == made


def test_a_finished_expert_run_takes_more_iterations_on_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``train RUN/config.yaml --resume RUN --set expert.iterations=2`` on a run whose one
    iteration finished (PPO and all) runs iteration 1, then PPO again: its iteration-1
    networks and records are those of a run made with 2 iterations from the start. Other
    expert settings, or another --run-dir, are refused before anything is written."""
    one = [*with_set(EXPERT), "--set", "expert.iterations=1"]
    extended, whole = tmp_path / "extended", tmp_path / "whole"
    assert main(["train", str(CONFIGS / "lucas.yaml"), "--run-dir", str(extended), *one]) == 0
    assert (
        main(["train", str(CONFIGS / "lucas.yaml"), "--run-dir", str(whole), *with_set(EXPERT)])
        == 0
    )
    capsys.readouterr()
    config = str(extended / "config.yaml")
    state_file = ExpertFolder(extended / "expert").state
    before = state_file.read_bytes()
    for extra, names in (
        (["--set", "expert.games=4"], ["expert.games", "expert.iterations"]),
        (["--run-dir", str(tmp_path / "elsewhere")], ["--run-dir", str(extended)]),
    ):
        argv = ["train", config, "--resume", str(extended), "--set", "expert.iterations=2"]
        assert main([*argv, *extra]) == 2
        line = capsys.readouterr().err.strip()
        assert "\n" not in line and all(name in line for name in names), line
        assert state_file.read_bytes() == before  # nothing written
    argv = ["train", config, "--resume", str(extended), "--set", "expert.iterations=2"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "its 1 expert iteration(s) finished; 1 more, then PPO again" in out
    assert "expert iteration 1:" in out and "expert iteration 0:" not in out
    state = ExpertFolder(extended / "expert").read_state()
    assert state["complete"] and [e["iteration"] for e in state["iterations"]] == [0, 1]
    assert _without_times(state) == _without_times(ExpertFolder(whole / "expert").read_state())
    a = _parameters(ExpertFolder(whole / "expert").iteration_model(1))
    b = _parameters(ExpertFolder(extended / "expert").iteration_model(1))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert json.loads((extended / "run.json").read_text())["status"] == "completed"


def test_expert_iterations_start_from_a_given_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``expert.start_model``: the first iteration starts from that zip's network (its
    weights, bit for bit), not from a fresh or cloned one; a zip of another variant, a
    missing one, or one with another network is refused in one line before the run folder is
    written; with a teacher or without iterations the config is refused."""
    ppo = tmp_path / "ppo"
    assert main(["train", str(CONFIGS / "lucas.yaml"), "--run-dir", str(ppo), *with_set(EXPERT),
                 "--set", "expert.iterations=0"]) == 0  # fmt: skip
    start = ppo / "models" / "final_model.zip"
    one = [*with_set(EXPERT), "--set", "expert.iterations=1", "--set", "expert.games=1"]
    run = tmp_path / "run"
    argv = ["train", str(CONFIGS / "lucas.yaml"), "--run-dir", str(run), *one]
    assert main([*argv, "--set", f"expert.start_model={start}"]) == 0
    config = _config()
    mine, theirs = _model(config), _model(config)
    mine.set_parameters(str(ExpertFolder(run / "expert").start_model(0)), exact_match=True)
    theirs.set_parameters(str(start), exact_match=True)
    for a, b in zip(mine.policy.parameters(), theirs.policy.parameters(), strict=True):
        assert torch.equal(a, b)
    fresh = _model(config)  # a new network differs: the start was really read
    assert not all(
        torch.equal(a, b)
        for a, b in zip(fresh.policy.parameters(), theirs.policy.parameters(), strict=True)
    )
    streets = tmp_path / "streets"
    assert main(["train", str(CONFIGS / "streets.yaml"), "--run-dir", str(streets),
                 *with_set(EXPERT), "--set", "expert.iterations=0"]) == 0  # fmt: skip
    for bad, message in (
        (streets / "models" / "final_model.zip", "a model of Streets, not of Lucas"),
        (tmp_path / "none.zip", "no such file"),
    ):
        other = tmp_path / f"refused-{bad.parent.name}"
        argv = ["train", str(CONFIGS / "lucas.yaml"), "--run-dir", str(other), *one]
        assert main([*argv, "--set", f"expert.start_model={bad}"]) == 2
        one_error_line(capsys, "expert.start_model", message)
        assert not other.exists()
    wider = tmp_path / "wider"
    argv = ["train", str(CONFIGS / "lucas.yaml"), "--run-dir", str(wider), *one]
    assert main([*argv, "--set", f"expert.start_model={start}", "--set",
                 "policy.player.state_dim=64"]) == 2  # fmt: skip
    one_error_line(capsys, "expert.start_model", "not this config's policy")
    # the same network with unseen inputs starts from it widened: the same moves' logits
    seeing = tmp_path / "seeing"
    argv = ["train", str(CONFIGS / "lucas.yaml"), "--run-dir", str(seeing), *one]
    assert main([*argv, "--set", f"expert.start_model={start}", "--set",
                 "policy.player.unseen_inputs=true"]) == 0  # fmt: skip
    wide = _model(_config(["policy.player.unseen_inputs=true"]))
    wide.set_parameters(str(ExpertFolder(seeing / "expert").start_model(0)), exact_match=True)
    obs = torch.as_tensor(wide.get_env().reset(), dtype=torch.float32)
    with torch.no_grad():
        assert torch.allclose(wide.policy.action_logits(obs), theirs.policy.action_logits(obs))
    # and a start with the inputs, into a config without them, is refused naming the setting
    seen = ExpertFolder(seeing / "expert").start_model(0)
    argv = ["train", str(CONFIGS / "lucas.yaml"), "--run-dir", str(tmp_path / "narrow"), *one]
    assert main([*argv, "--set", f"expert.start_model={seen}"]) == 2
    one_error_line(capsys, "expert.start_model", "set policy.player.unseen_inputs: true")

    # a zip that records no variant (a Lucas network fits other variants' shapes), and one
    # whose weights are not a torch file: refused in one line, before the run folder
    def rewritten(name: str, change: Callable[[str, bytes], bytes]) -> Path:
        return rewrite_zip(start, tmp_path / name, change)

    def no_variant(name: str, content: bytes) -> bytes:
        if name != "data":
            return content
        data = json.loads(content)
        del data["fortythieves_variant"]
        return json.dumps(data).encode()

    for bad, message in (
        (rewritten("anonymous.zip", no_variant), "records no variant"),
        (rewritten("junk.zip", lambda n, c: b"junk" if n == "policy.pth" else c),
         "its network is not this config's policy"),
    ):  # fmt: skip
        other = tmp_path / f"refused-{bad.stem}"
        argv = ["train", str(CONFIGS / "lucas.yaml"), "--run-dir", str(other), *one]
        assert main([*argv, "--set", f"expert.start_model={bad}"]) == 2
        one_error_line(capsys, "expert.start_model", message)
    assert not (tmp_path / "refused-anonymous").exists()
    with pytest.raises(ConfigError, match=r"set train\.teacher: null"):
        _config([f"expert.start_model={start}", "train.teacher=greedy"])
    with pytest.raises(ConfigError, match=r"needs expert\.iterations > 0"):
        _config([f"expert.start_model={start}", "expert.iterations=0"])


def test_a_continued_run_without_a_start_point_validates_its_first_start(tmp_path: Path) -> None:
    """A run recorded before ``start_validation`` existed gets it on continue from its first
    iteration's start network (``iter-000/start.zip``), not from the network being built."""
    one = _config(["expert.iterations=1", "expert.games=1", "expert.validation_games=4"])
    run = tmp_path / "run"
    first = run_expert_iterations(one, _model(one), run, "FortyThieves/Lucas-v0", echo=str)
    folder = ExpertFolder(run / "expert")
    state = folder.read_state()
    del state["start_validation"]
    folder.write_state(state)
    two = _config(["expert.iterations=2", "expert.games=1", "expert.validation_games=4"])
    fresh = _model(two)
    torch.manual_seed(123)
    for parameter in fresh.policy.parameters():  # a network unlike the run's start
        torch.nn.init.normal_(parameter)
    again = run_expert_iterations(two, fresh, run, "FortyThieves/Lucas-v0", echo=str)
    assert again["start_validation"] == first["start_validation"]
    assert len(again["iterations"]) == 2


def test_validation_from_a_later_deal_judges_the_start_and_the_stages_there(
    tmp_path: Path,
) -> None:
    """``expert.validation_first``: the start's validation and every stage's are the network
    on validation deals from that one (the shipped Limited network played there directly);
    a range past the validation deals is a config error; a run saved before the setting
    continues with it at 0 and refuses another value."""
    from fortythieves_agents.evaluation.evaluate import play_deals, summarize
    from fortythieves_agents.evaluation.model_agent import load_model_agent
    from fortythieves_agents.seeds import seeds_for_validation

    agent, _ = load_model_agent(ROOT / "results" / "training" / "Limited" / "best_model.zip")
    env_id = "FortyThieves/Limited-v0"
    later = expert_module.validate_network(agent.model, env_id, 6, first=40)
    assert later == summarize(play_deals(agent, env_id, seeds_for_validation(6, first=40)))
    assert later != expert_module.validate_network(agent.model, env_id, 6)  # other deals
    with pytest.raises(ConfigError, match=r"validation_games must be at most 10\*\*9"):
        _config(["expert.validation_first=999999999", "expert.validation_games=2"])
    one = _config(["expert.iterations=1", "expert.games=1", "expert.validation_games=3",
                   "expert.validation_first=7"])  # fmt: skip
    state = run_expert_iterations(one, _model(one), tmp_path / "run", "FortyThieves/Lucas-v0",
                                  echo=str)  # fmt: skip
    start = ExpertFolder(tmp_path / "run" / "expert").start_model(0)
    model = load_model_agent(start)[0].model
    lucas = "FortyThieves/Lucas-v0"
    assert state["start_validation"] == expert_module.validate_network(model, lucas, 3, 7)
    saved = dict(state["config"])
    del saved["expert.validation_first"]  # as a run saved before the setting
    at_zero = _config(["expert.iterations=1", "expert.games=1", "expert.validation_games=3"])
    assert expert_module.fingerprint_differences(saved, at_zero) == []
    assert expert_module.fingerprint_differences(saved, one) == ["expert.validation_first: 0 -> 7"]


def test_the_outside_script_plays_a_network_on_deals_outside_every_range(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """scripts/expert/outside.py: the shipped Limited network on the first 3 deals outside
    every seed range (3_000_000_000 + i), one row per deal, the rows those of the network
    played on those seeds directly; a deal count out of range is refused before any play."""
    from fortythieves_agents.evaluation.evaluate import play_deals
    from fortythieves_agents.evaluation.model_agent import load_model_agent
    from helpers import load_script

    outside = load_script(ROOT / "scripts" / "expert" / "outside.py", "outside")
    model = ROOT / "results" / "training" / "Limited" / "best_model.zip"
    out = tmp_path / "outside.json"
    assert outside.main([str(model), "--episodes", "3", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["variant"] == "Limited" and report["no_cycling"] is True
    assert report["seeds"] == {"first": 3_000_000_000, "count": 3, "rule": "3_000_000_000 + i"}
    assert report["model_digest"].startswith("sha256:")
    rows = report["results"]["ppo"]["per_episode"]
    assert [r["seed"] for r in rows] == [3_000_000_000, 3_000_000_001, 3_000_000_002]
    agent, _ = load_model_agent(model)
    direct = play_deals(agent, "FortyThieves/Limited-v0", [r["seed"] for r in rows])
    assert [(r.won, r.foundation_cards, r.length) for r in direct] == [
        (r["won"], r["foundation_cards"], r["length"]) for r in rows
    ]
    assert "on deals 3000000000..3000000002" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        outside.main([str(model), "--episodes", "0", "--json", str(out)])
    assert "--episodes: must be in 1..100000, got 0" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("move", "kind"),
    [
        ("draw", "draw"),
        ("w>f", "waste>foundation"),
        ("w>t0", "waste>column"),
        ("w>t11", "waste>column"),
        ("t0>f", "column>foundation"),
        ("t11>f", "column>foundation"),
        ("t0>t1", "column>column"),
        ("t11>t10", "column>column"),
    ],
)
def test_the_disagreements_script_names_each_moves_kind(move: str, kind: str) -> None:
    """scripts/expert/disagreements.py's kinds against the environment's own move names
    (Limited: 12 columns, the first and last of each range)."""
    import gymnasium as gym
    from helpers import load_script

    script = load_script(ROOT / "scripts" / "expert" / "disagreements.py", "disagreements")
    env = gym.make("FortyThieves/Limited-v0")
    env.reset(seed=0)
    from fortythieves_env import VARIANTS
    from fortythieves_env.rules.actions import codec_for

    codec = codec_for(VARIANTS["Limited"])
    assert script.move_kind(env.unwrapped.move_to_action(move), codec) == kind


def test_the_disagreements_value_gaps_count_where_the_search_chose_between_equals() -> None:
    """scripts/expert/disagreements.py's value gaps on four positions: an agreement, a tie
    the search broke, a clear choice, a move the search left unvalued; and the top two of
    each position with two or more valued moves."""
    from helpers import load_script

    script = load_script(ROOT / "scripts" / "expert" / "disagreements.py", "disagreements")
    nan = math.nan
    values = np.array(
        [
            [0.5, 0.2, nan],  # agree on 0
            [0.3, 0.3, 0.1],  # search 1, network 0: equal
            [0.9, 0.0, 0.04],  # search 0, network 2: 0.86 apart
            [0.2, nan, nan],  # search 0, network 1 unvalued (one valued move: no top two)
        ]
    )
    gaps = script.value_gaps(values, np.array([0, 1, 0, 0]), np.array([0, 0, 2, 1]))
    assert gaps == {
        "differ": 3,
        "unvalued": 1,
        "equal": 1,
        "below": {"0.02": 1, "0.05": 1, "0.1": 1},
        "search_lower": 0,
        "top_two": {"positions": 3, "equal": 1, "below": {"0.02": 1, "0.05": 1, "0.1": 1}},
    }
    lower = script.value_gaps(values[1:2], np.array([2]), np.array([0]))
    assert lower["search_lower"] == 1 and lower["below"]["0.02"] == 1
    # one action, no positions, a move outside the table
    one = script.value_gaps(np.array([[0.5], [nan]]), np.array([0, 0]), np.array([0, 0]))
    assert one["differ"] == 0 and one["top_two"]["positions"] == 0
    none = script.value_gaps(np.empty((0, 3)), np.array([]), np.array([]))
    assert none["differ"] == 0 and none["top_two"] == {
        "positions": 0,
        "equal": 0,
        "below": {"0.02": 0, "0.05": 0, "0.1": 0},
    }
    with pytest.raises(ValueError, match=r"a move outside 0\.\.2"):
        script.value_gaps(values[:1], np.array([-1]), np.array([0]))


def test_the_validate_script_pairs_each_model_with_the_first_deal_by_deal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """scripts/expert/validate.py: the deals only one of two models won and the sign test;
    bad ranges and missing models are one usage line before any play."""
    from helpers import load_script

    script = load_script(ROOT / "scripts" / "expert" / "validate.py", "validate")
    first = [True, True, False, False, True, False]
    other = [True, False, True, False, False, False]
    assert script.paired(first, other) == {"only_first": 2, "only_this": 1, "sign_test_p": 1.0}
    assert script.paired(first, first)["sign_test_p"] == 1.0
    out = tmp_path / "v.jsonl"
    limited = str(ROOT / "results" / "training" / "Limited" / "best_model.zip")
    junk = tmp_path / "junk.zip"
    junk.write_text("junk")
    rule = "--deals must be >= 1, --first >= 0 and --first + --deals <= 1000000000"
    for argv, message in (
        (["--deals", "0"], f"{rule} (the validation deals), got 0 and 0"),
        (["--first", "-1"], f"{rule} (the validation deals), got 200 and -1"),
        (["--first", "999999999", "--deals", "2"], "got 2 and 999999999"),  # a test deal
        ([str(tmp_path / "none.zip")], "no such model file"),
        ([limited, str(junk)], "junk.zip: not a saved SB3 model"),  # before the first plays
        (["--env", "FortyThieves/Streets-v0"], "trained for variant 'Limited', refusing"),
        (["--env", "FortyThieves/Nope-v0"], "FortyThieves/Nope-v0: not a registered environment"),
        (["--out", str(tmp_path)], "a folder, not a file to append JSON lines to"),
    ):
        env = argv[argv.index("--env") + 1] if "--env" in argv else "FortyThieves/Limited-v0"
        argv = [a for a in argv if a not in ("--env", env)]
        models = [a for a in argv if a.endswith(".zip")] or [limited]
        rest = [a for a in argv if not a.endswith(".zip")]
        out_args = [] if "--out" in rest else ["--out", str(out)]
        with pytest.raises(SystemExit):
            script.main([env, *models, *out_args, *rest])
        assert message in capsys.readouterr().err
    assert not out.exists()
