"""The learned value for the samples the solver leaves unknown (issue 40, point 3):
:mod:`fortythieves_agents.players.search_leaf`, ``SearchBudget(leaf="learned")`` and
``evaluate --search-leaf``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from fortythieves_agents.cli.main import main
from fortythieves_agents.players import search_leaf
from fortythieves_agents.players.search import SearchBudget, solve_scores
from fortythieves_agents.players.search_leaf import (
    FEATURES,
    N_FEATURES,
    LeafModel,
    fitted_variants,
    leaf_features,
    leaf_model,
)
from positions import random_walk

from fortythieves_env import VARIANTS, VariantSpec
from fortythieves_env.rules.core import H_NACT, legal_actions, tables_for
from fortythieves_env.rules.rule_table import accepts_table
from fortythieves_env.rules.state import GameState
from fortythieves_env.rules.view import determinize, player_view
from fortythieves_env.solver import build_code, pruned_moves

REPO = Path(__file__).resolve().parents[3]


def _reference(state: GameState, spec: VariantSpec) -> list[float]:
    """:data:`FEATURES` but the last, stated again from a ``GameState`` in plain Python."""
    takes = accepts_table(spec.build, spec.empty_column)
    blockers = built = 0
    for column, down in zip(state.tableau, state.face_down, strict=True):
        for i, card in enumerate(column):
            suit, rank = (card - 1) // 13, (card - 1) % 13
            if any((o - 1) // 13 == suit and (o - 1) % 13 < rank for o in column[:i]):
                blockers += 1
            if i > down and i >= 1 and takes[column[i - 1]][card]:
                built += 1
    return [
        1.0,
        state.foundation_cards / 104,
        sum(state.face_down) / 104,
        len(state.stock) / 104,
        len(state.waste) / 104,
        sum(not c for c in state.tableau) / len(state.tableau),
        blockers / 104,
        built / 104,
        float(state.redeals_left),
        min(state.foundations) / 13,
    ]


def test_the_features_of_a_hand_made_position() -> None:
    """Forty Thieves (same suit down): C3 face down under C5 and C4; D2 under S9; 8 empty
    columns; 5 stock cards, 3 waste cards, two aces up."""
    spec = VARIANTS["FortyThieves"]
    state = GameState(
        [[3, 5, 4], [15, 48]] + [[] for _ in range(8)],
        [1, 0] + [0] * 8,
        [27, 28, 29, 30, 31],
        [40, 41, 42],
        [1, 1, 0, 0, 0, 0, 0, 0],
        0,
        2,
    )
    out = np.full(N_FEATURES, -1.0)
    leaf_features(tables_for(spec).pack(state), tables_for(spec).table, out)
    # blockers: C5 and C4 both lie above C3; built: C4 on C5 (C5 is face up above the
    # face-down C3); S9 on D2 is no build
    expected = [1.0, 2 / 104, 1 / 104, 5 / 104, 3 / 104, 0.8, 2 / 104, 1 / 104, 0.0, 0.0]
    assert out[:-1].tolist() == pytest.approx(expected)
    assert out[-1] == -1.0  # the solve's cards: the caller's


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_compiled_features_equal_the_plain_statement(variant: str) -> None:
    spec = VARIANTS[variant]
    tables = tables_for(spec)
    out = np.empty(N_FEATURES)
    seen = 0
    for env, _obs in random_walk(variant, 2, 80, 5):
        state = env.rules.from_position(env.get_state())
        leaf_features(tables.pack(state), tables.table, out)
        assert out[:-1].tolist() == pytest.approx(_reference(state, spec)), env.get_state()
        seen += 1
    assert seen >= 100


def test_the_model_is_a_logistic_of_the_features_and_stays_below_a_win() -> None:
    weights = np.zeros(N_FEATURES)
    weights[0], weights[-1] = -3.0, 4.0
    model = LeafModel("Indian", weights)
    features = np.zeros(N_FEATURES)
    features[0] = 1.0
    low, high = model.value(features.copy(), 0), model.value(features.copy(), 104)
    assert low == pytest.approx(1 / (1 + np.exp(3.0)))
    assert high == pytest.approx(1 / (1 + np.exp(-1.0)))
    assert 0.0 < low < high < 1.0
    with pytest.raises(ValueError, match="need 11 finite weights"):
        LeafModel("Indian", np.full(N_FEATURES, np.nan))
    with pytest.raises(ValueError, match="need 11 finite weights"):
        LeafModel("Indian", np.zeros(3))


def test_the_shipped_models_name_their_features_and_command() -> None:
    table = json.loads((REPO / "agents" / "players" / "leaf_values.json").read_text())
    assert sorted(table["variants"]) == list(fitted_variants())
    for variant, entry in table["variants"].items():
        assert entry["features"] == list(FEATURES)
        assert entry["command"].startswith("python scripts/search/fit_leaf_value.py " + variant)
        assert leaf_model(variant).weights.tolist() == entry["weights"]


def test_a_variant_with_no_model_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_leaf, "_table", lambda: {"Indian": {"weights": [0.0] * 11}})
    leaf_model.cache_clear()
    try:
        with pytest.raises(
            ValueError, match=r"no learned leaf value for 'Maria'; fitted for: Indian"
        ):
            leaf_model("Maria")
    finally:
        leaf_model.cache_clear()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "solve", "leaf": "deep"}, "leaf must be one of cards, learned, got 'deep'"),
        ({"leaf": "learned"}, "leaf 'learned' needs method='solve'"),
    ],
)
def test_a_bad_leaf_is_refused_by_name(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=f"search budget: {message}"):
        SearchBudget(**kwargs)


def _position(variant: str) -> tuple[VariantSpec, object, np.ndarray, np.ndarray]:
    """A position along random play with at least two candidate moves: its view, the view's
    template and the candidates."""
    spec = VARIANTS[variant]
    tables = tables_for(spec)
    n = int(tables.table[H_NACT])
    legal, out, order = (np.empty(n, dtype=np.int32) for _ in range(3))
    for step, (env, _obs) in enumerate(random_walk(variant, 1, 60, 3)):
        view = player_view(spec, env.rules.from_position(env.get_state()))
        template = tables.pack(determinize(view, view.unseen))
        legal_actions(template, tables.table, legal)
        count = pruned_moves(template, tables.table, build_code(spec), legal, out, order)
        if step >= 5 and count >= 2:
            return spec, view, template, out[:count].astype(np.int64)
    raise AssertionError("no position with two candidates")


def test_unknown_samples_take_the_models_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a model that values every unknown sample at sigmoid(bias), a candidate whose
    every sample is unknown is worth exactly that; with leaf='cards' at most 1/2."""
    spec, view, template, moves = _position("FortyThieves")
    weights = [2.0] + [0.0] * 10  # sigmoid(2) = 0.8808 for every unknown sample
    monkeypatch.setattr(search_leaf, "_table", lambda: {"FortyThieves": {"weights": weights}})
    leaf_model.cache_clear()
    try:
        found = {}
        for leaf in ("cards", "learned"):
            budget = SearchBudget(method="solve", samples=2, nodes=50, leaf=leaf)
            values = np.empty(moves.size)
            solve_scores(spec, view, template, moves, budget, np.random.default_rng(1), 300, values)
            found[leaf] = values
    finally:
        leaf_model.cache_clear()
    assert np.all(found["cards"] <= 0.5)  # 50 nodes: no sample solved early in Forty Thieves
    assert found["learned"] == pytest.approx(np.full(moves.size, 1 / (1 + np.exp(-2.0))))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--search-method", "rollouts", "--search-leaf", "learned"], "argument --search-leaf: only with --search-method solve"),
        (["--search-leaf", "deep"], "argument --search-leaf: invalid choice: 'deep' (choose from 'cards', 'learned')"),
    ],
)  # fmt: skip
def test_evaluate_refuses_a_bad_leaf_in_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["evaluate", "search", "--variant", "NumberTen", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err, err


def test_evaluate_refuses_a_learned_leaf_where_none_was_fitted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(search_leaf, "_table", lambda: {"Indian": {"weights": [0.0] * 11}})
    leaf_model.cache_clear()
    try:
        argv = ["evaluate", "search", "--variant", "Maria", "--search-leaf", "learned"]
        code = main([*argv, "--episodes", "1", "--json", str(tmp_path / "r.json")])
    finally:
        leaf_model.cache_clear()
    assert code == 2
    err = capsys.readouterr().err
    assert "no learned leaf value for 'Maria'; fitted for: Indian" in err, err
    assert not (tmp_path / "r.json").exists()


def test_reports_name_the_learned_leaf_and_tables_keep_it_apart() -> None:
    """The agent's settings say ``leaf`` only when it is not the default, the leaderboard
    labels such a row, and the README's search column (the default budget) skips it."""
    from fortythieves_agents.evaluation.leaderboard import agent_label
    from fortythieves_agents.players.search import SearchAgent
    from fortythieves_agents.reports.summary import is_default_search

    default = SearchAgent(0, SearchBudget(method="solve", seconds=0.1)).description()
    learned = SearchAgent(0, SearchBudget(method="solve", seconds=0.1, leaf="learned"))
    settings = learned.description()
    assert "leaf" not in default and settings["leaf"] == "learned"
    assert is_default_search(default) and not is_default_search(settings)
    summary = {"settings": settings}
    label = agent_label("search", summary, Path("results/search/x.json"))
    assert label == "search (solve 0.1 s per move, learned leaf)"
    assert agent_label("search", {"settings": default}, Path("x.json")) == (
        "search (solve 0.1 s per move)"
    )
