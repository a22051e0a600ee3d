"""The search's ``"ucb"`` allocation (issue 40, point 2): the UCB1 bandit's arithmetic on a
hand-made reward table, its budget (the solves sequential halving makes: equal nodes per
move), its validation and command-line option. The contract tests it shares with the other
allocations (the player's view only: equal choices when the unseen cards are re-dealt; legal
moves only; reproducible across batch sizes) are in ``tests/agents/players/test_search.py``
(budget ``UCB``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from fortythieves_agents.cli import main as cli
from fortythieves_agents.cli.main import main
from fortythieves_agents.players import search_scores as search_module
from fortythieves_agents.players.search import (
    DEFAULT_UCB_BATCH,
    DEFAULT_UCB_C,
    DEFAULT_UCB_PLAYS,
    SearchAgent,
    SearchBudget,
    halving_schedule,
    scores_for_view,
)
from fortythieves_agents.players.search_arms import irreversible_arms
from fortythieves_agents.players.search_ucb import ucb_allocate, ucb_index, ucb_pulls
from positions import random_walk

from fortythieves_env import FortyThievesEnv
from fortythieves_env.rules.core import apply, view_hash
from fortythieves_env.rules.view import determinize

MEANS = (0.2, 0.8, 0.5)
"""The hand-made reward table: arm ``j`` pays ``MEANS[j]`` on every pull."""


def _table(calls: list[tuple[list[int], int]]) -> Any:
    def pull(chosen: list[int], m: int) -> np.ndarray:
        calls.append((list(chosen), m))
        return np.array([[MEANS[j]] * m for j in chosen])

    return pull


# ---------------------------------------------------------------------- the bandit
def test_the_ucb1_index_of_a_hand_computed_example() -> None:
    """``mean + sqrt(C ln N / n)``: N = 30 pulls, 10 each, C = 2: sqrt(2 ln 30 / 10) = 0.82477."""
    index = ucb_index(np.array([2.0, 8.0, 5.0]), np.array([10, 10, 10]), 2.0)
    assert np.allclose(index, [1.02477, 1.62477, 1.32477], atol=1e-5)
    uneven = ucb_index(np.array([2.0, 16.0, 5.0]), np.array([10, 20, 10]), 2.0)
    bonus = [math.sqrt(2 * math.log(40) / n) for n in (10, 20, 10)]
    assert np.allclose(uneven, [0.2 + bonus[0], 0.8 + bonus[1], 0.5 + bonus[2]])
    assert np.allclose(ucb_index(np.array([1.0]), np.array([4]), 0.0), [0.25])  # C = 0: means
    with pytest.raises(ValueError, match="at least one pull"):
        ucb_index(np.zeros(2), np.array([1, 0]), 2.0)


def test_the_bandit_on_a_hand_made_reward_table() -> None:
    """3 arms paying 0.2, 0.8, 0.5; 60 pulls, batches of 10, C = 2. First round: 10 pulls
    each on shared samples (N = 30). Then, by hand:
    N = 30: indices 1.025, 1.625, 1.325: arm 1;
    N = 40: 0.2 + 0.859, 0.8 + 0.607, 0.5 + 0.859 = 1.059, 1.407, 1.359: arm 1;
    N = 50: 0.2 + 0.885, 0.8 + 0.511, 0.5 + 0.885 = 1.085, 1.311, 1.385: arm 2 (exploration);
    60 pulls spent: stop."""
    calls: list[tuple[list[int], int]] = []
    trace = ucb_allocate(3, 60, _table(calls), 2.0, 10, 3000)
    assert trace.first == 10
    assert trace.batches == ((1, 10), (1, 10), (2, 10))
    assert trace.plays.tolist() == [10, 30, 20] and trace.plays.sum() == 60
    assert np.allclose(trace.means, MEANS)
    # the pull function: every arm at once first (common samples), then one arm per batch
    assert calls == [([0, 1, 2], 10), ([1], 10), ([1], 10), ([2], 10)]


def test_the_bandit_stops_when_the_leader_has_its_plays() -> None:
    """Same table with 25 plays to stop at: arm 1 reaches 30 after its second batch; the
    pulls left (10 of 60) are not spent."""
    trace = ucb_allocate(3, 60, _table([]), 2.0, 10, 25)
    assert trace.batches == ((1, 10), (1, 10)) and trace.plays.tolist() == [10, 30, 10]
    # a leader with its plays after the first round: no batch at all
    assert ucb_allocate(3, 60, _table([]), 2.0, 10, 10).batches == ()


def test_the_last_batch_is_cut_to_the_pulls_left_and_the_first_round_to_the_budget() -> None:
    trace = ucb_allocate(3, 55, _table([]), 2.0, 10, 3000)
    assert trace.batches == ((1, 10), (1, 10), (2, 5)) and trace.plays.sum() == 55
    small = ucb_allocate(3, 12, _table([]), 2.0, 10, 3000)  # 12 // 3 = 4 < the batch
    assert small.first == 4 and small.batches == () and small.plays.tolist() == [4, 4, 4]
    assert ucb_allocate(3, 3, _table([]), 2.0, 10, 3000).plays.tolist() == [1, 1, 1]


def test_without_exploration_the_bandit_is_greedy_and_a_bonus_shifts_it() -> None:
    assert ucb_allocate(3, 60, _table([]), 0.0, 10, 3000).batches == ((1, 10),) * 3
    bonus = np.array([0.0, -1.0, 0.0])  # a guide that dislikes arm 1
    assert ucb_allocate(3, 60, _table([]), 0.0, 10, 3000, bonus).batches == ((2, 10),) * 3


def test_the_bandit_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="pulls >= arms"):
        ucb_allocate(3, 2, _table([]), 2.0, 10, 10)
    with pytest.raises(ValueError, match="batch"):
        ucb_allocate(3, 30, _table([]), 2.0, 0, 10)
    with pytest.raises(ValueError, match=r"pull returned shape \(3, 1\), not \(3, 10\)"):
        ucb_allocate(3, 30, lambda chosen, m: np.zeros((len(chosen), 1)), 2.0, 10, 10)


# ---------------------------------------------------------------------- equal nodes
def test_the_pulls_are_the_solves_of_halving() -> None:
    """8 candidates, 16 samples: halving's [5, 10, 21] solves 5x8 + 10x4 + 21x2 = 122."""
    assert ucb_pulls(halving_schedule(8, 16), 8) == 122
    assert ucb_pulls([16], 2) == 32  # a one-round schedule: samples x candidates
    for candidates in (2, 3, 7, 40):
        for samples in (1, 3, 16):
            assert ucb_pulls(halving_schedule(candidates, samples), candidates) <= (
                samples * candidates
            )
    with pytest.raises(ValueError, match="ucb_pulls"):
        ucb_pulls([], 3)


class _Counting:
    """A solver context that counts the solves and the node caps it is given."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.caps = inner, []
        self.step_limit = inner.step_limit

    def run(self, st: np.ndarray, nodes: int, step_limit: int | None = None) -> Any:
        self.caps.append(nodes)
        return self.inner.run(st, nodes, step_limit)


@pytest.mark.parametrize(
    "budget",
    [
        SearchBudget(method="solve", samples=6, nodes=150),
        SearchBudget(method="solve", seconds=0.02, nodes=200),
    ],
    ids=["samples", "seconds"],
)
def test_ucb_spends_the_solves_and_nodes_of_halving(
    budget: SearchBudget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a Rank and File opening (many candidates, cards unseen): the bandit makes exactly
    the solves halving makes, each with the same node cap, so the two compare at equal
    nodes per move; with a small ``ucb_plays`` it stops sooner."""
    env = FortyThievesEnv("RankAndFile")
    env.reset(seed=3)
    spec, view = env.variant, env.player_view()
    var = search_module._variant(spec)
    template = var.tables.pack(determinize(view, view.unseen))
    count = search_module.pruned_moves(
        template, var.tables.table, var.build, var.legal, var.out, var.order
    )
    assert count >= 5 and view.unseen
    expected = ucb_pulls(halving_schedule(count, budget.samples_for(count)), count)
    spent, solver = {}, var.context()
    for allocation in ("halving", "ucb"):
        counting = _Counting(solver)
        monkeypatch.setattr(var, "_context", counting)
        b = SearchBudget(**{**budget.__dict__, "allocation": allocation})
        scores_for_view(spec, view, b, np.random.default_rng(2), env.action_masks())
        spent[allocation] = counting.caps
    assert len(spent["ucb"]) == len(spent["halving"]) == expected
    assert set(spent["ucb"]) == set(spent["halving"]) == {budget.nodes_for(count)}
    counting = _Counting(solver)
    monkeypatch.setattr(var, "_context", counting)
    early = SearchBudget(**{**budget.__dict__, "allocation": "ucb", "ucb_plays": 2})
    scores_for_view(spec, view, early, np.random.default_rng(2), env.action_masks())
    assert count <= len(counting.caps) < expected


def test_ucb_scores_rank_the_candidates_below_samples_and_repeat() -> None:
    """The contract of :func:`solve_scores`: distinct ranks in (0, samples) for the searched
    candidates, -inf where illegal; equal generators give equal scores; the bandit's
    choice may differ from halving's on the same generator."""
    env = FortyThievesEnv("RankAndFile")
    env.reset(seed=3)
    view, spec, mask = env.player_view(), env.variant, env.action_masks()
    budget = SearchBudget(method="solve", samples=4, nodes=200, allocation="ucb")
    scores = scores_for_view(spec, view, budget, np.random.default_rng(1), mask)
    assert np.array_equal(np.isfinite(scores), mask == 1)
    searched = scores[scores > 0]
    assert searched.size >= 5 and searched.max() < budget.samples
    assert len(set(searched.tolist())) == searched.size
    assert np.array_equal(
        scores, scores_for_view(spec, view, budget, np.random.default_rng(1), mask)
    )
    values = np.empty_like(scores)
    scores_for_view(spec, view, budget, np.random.default_rng(1), mask, values=values)
    found = values[scores > 0]
    assert np.all((found >= 0) & (found <= 1))


# ---------------------------------------------------------------------- budget and command
def test_a_ucb_budget_keeps_its_settings_and_the_agent_reports_them() -> None:
    budget = SearchBudget(method="solve", allocation="ucb", ucb_c=np.float32(1.5), ucb_plays=7)
    assert budget.ucb_c == 1.5 and type(budget.ucb_c) is float and budget.ucb_plays == 7
    assert (DEFAULT_UCB_C, DEFAULT_UCB_BATCH, DEFAULT_UCB_PLAYS) == (2.0, 10, 3000)
    described = SearchAgent(0, budget).description()
    assert described["allocation"] == "ucb"
    assert (described["ucb_c"], described["ucb_batch"], described["ucb_plays"]) == (1.5, 10, 7)
    assert "ucb_c" not in SearchAgent(0).description()  # halving's reports are unchanged


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"allocation": "ucb"}, "allocation 'ucb' needs method='solve'"),
        ({"method": "solve", "allocation": "ucb", "ucb_c": -1}, r"ucb_c must be a number in \[0, 1000\.0\], got -1"),
        ({"method": "solve", "allocation": "ucb", "ucb_c": float("nan")}, "ucb_c must be a number"),
        ({"method": "solve", "allocation": "ucb", "ucb_c": True}, "ucb_c must be a number"),
        ({"method": "solve", "allocation": "ucb", "ucb_batch": 0}, r"ucb_batch must be an integer 1\.\.\d+, got 0"),
        ({"method": "solve", "allocation": "ucb", "ucb_plays": 2.5}, r"ucb_plays must be an integer 1\.\.\d+"),
        ({"method": "solve", "ucb_plays": 5}, "ucb_plays needs allocation='ucb'"),
        ({"method": "solve", "allocation": "uniform", "ucb_c": 1.0}, "ucb_c needs allocation='ucb'"),
        ({"allocation": "bandit"}, "allocation must be one of uniform, halving, ucb, got 'bandit'"),
    ],
)  # fmt: skip
def test_a_bad_ucb_budget_is_refused_by_name(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=rf"^search budget: {message}") as error:
        SearchBudget(**kwargs)
    assert "\n" not in str(error.value)


def test_the_command_line_allocation_ucb_is_the_solving_setting() -> None:
    def budget(*options: str) -> SearchBudget:
        argv = ["evaluate", "search", "--variant", "Lucas", *options]
        return cli._search_budget(cli.build_parser().parse_args(argv))

    ucb = budget("--search-allocation", "ucb")
    assert (ucb.method, ucb.allocation, ucb.seconds) == ("solve", "ucb", 0.1)
    with_samples = budget("--search-allocation", "ucb", "--search-samples", "4")
    assert (with_samples.method, with_samples.samples) == ("solve", 4)


def test_the_command_line_refuses_ucb_with_rollouts_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["evaluate", "search", "--variant", "Lucas", "--search-method", "rollouts"]
    assert main([*argv, "--search-allocation", "ucb"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "argument --search-allocation: ucb only with --search-method solve" in err


# ---------------------------------------------------------------------- lonelybot's arms
def _position_with_a_reversible_path(variant: str) -> tuple[Any, Any, np.ndarray, Any]:
    """A position of random play with cards unseen whose arms include a path of reversible
    moves: ``(env, var, template, arms)``."""
    for env, _obs in random_walk(variant, 3, 80, 1):
        view = env.player_view()
        if not view.unseen:
            continue
        var = search_module._variant(env.variant)
        template = var.tables.pack(determinize(view, view.unseen))
        arms = irreversible_arms(var.tables, var.build, template)
        count = search_module.pruned_moves(
            template, var.tables.table, var.build, var.legal, var.out, var.order
        )
        if count >= 3 and len(arms) >= 4 and any(len(p) >= 2 for p in arms.paths):
            return env, var, template, arms
    raise AssertionError(f"no {variant} position with a reversible path")


@pytest.mark.parametrize("variant", ["LittleForty", "RankAndFile"])
def test_irreversible_arms_spend_the_solves_and_nodes_of_halving_and_play_a_first_move(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a position whose arms include paths of reversible moves: the bandit over the arms
    makes exactly the solves halving makes for the candidate moves, each with the same node
    cap; the move chosen is the first move of an arm; every legal move has a finite score
    and the scores repeat for equal generators; a move's value is its best arm's mean."""
    env, var, template, arms = _position_with_a_reversible_path(variant)
    spec, view, mask = env.variant, env.player_view(), env.action_masks()
    count = search_module.pruned_moves(
        template, var.tables.table, var.build, var.legal, var.out, var.order
    )
    budget = SearchBudget(method="solve", samples=8, nodes=100, allocation="ucb")
    expected = ucb_pulls(halving_schedule(count, budget.samples_for(count)), count)
    assert len(arms) >= 4  # more than the pulls: the first ones are kept
    solver = var.context()
    spent = {}
    for name, b in (
        ("halving", SearchBudget(**{**budget.__dict__, "allocation": "halving"})),
        ("irreversible", SearchBudget(**{**budget.__dict__, "arms": "irreversible"})),
    ):
        counting = _Counting(solver)
        monkeypatch.setattr(var, "_context", counting)
        values = np.empty(mask.shape[0])
        scores = scores_for_view(spec, view, b, np.random.default_rng(4), mask, values=values)
        spent[name] = counting.caps
    assert len(spent["irreversible"]) == len(spent["halving"]) == expected
    assert set(spent["irreversible"]) == {budget.nodes_for(count)}
    assert np.array_equal(np.isfinite(scores), mask == 1)
    assert int(np.argmax(scores)) in arms.first.tolist()
    assert np.array_equal(
        scores,
        scores_for_view(spec, view, b, np.random.default_rng(4), mask),
    )
    valued = values[np.isfinite(values)]
    assert valued.size >= 1 and np.all((valued >= 0) & (valued <= 1))
    # the path's moves are played before the irreversible one: paths that do not start
    # with a candidate of the position would be illegal there; they all do
    assert set(arms.first.tolist()) <= set(np.flatnonzero(mask).tolist())


def test_irreversible_arms_avoid_the_views_met_before() -> None:
    """A view met before (``avoid``) is on no arm's path, and a move into it scores 0."""
    env, var, template, arms = _position_with_a_reversible_path("LittleForty")
    spec, view, mask = env.variant, env.player_view(), env.action_masks()
    first = next(p[0] for p in arms.paths if p)
    after = template.copy()
    apply(after, var.tables.table, np.int64(first))
    avoid = {int(view_hash(after, var.tables.table))}
    cut = irreversible_arms(var.tables, var.build, template, avoid=avoid)
    assert first not in cut.first.tolist()
    budget = SearchBudget(
        method="solve", samples=4, nodes=100, allocation="ucb", arms="irreversible"
    )
    scores = scores_for_view(spec, view, budget, np.random.default_rng(1), mask, avoid=avoid)
    if len(cut) >= 2:  # with fewer the candidate moves are the arms
        assert scores[first] < scores[int(np.argmax(scores))]


def test_arms_are_reported_validated_and_a_command_line_option() -> None:
    budget = SearchBudget(method="solve", allocation="ucb", arms="irreversible")
    assert SearchAgent(0, budget).description()["ucb_arms"] == "irreversible"
    assert SearchBudget(method="solve", allocation="ucb").arms == "moves"
    assert (
        SearchAgent(0, SearchBudget(method="solve", allocation="ucb")).description()["ucb_arms"]
        == "moves"
    )

    def parsed(*options: str) -> SearchBudget:
        argv = ["evaluate", "search", "--variant", "Lucas", *options]
        return cli._search_budget(cli.build_parser().parse_args(argv))

    implied = parsed("--search-arms", "irreversible")
    assert (implied.method, implied.allocation, implied.arms) == ("solve", "ucb", "irreversible")
    assert parsed("--search-allocation", "ucb").arms == "moves"
    assert parsed("--search-arms", "moves").allocation == "halving"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "solve", "allocation": "ucb", "arms": "lonely"}, "arms must be one of moves, irreversible, got 'lonely'"),
        ({"method": "solve", "allocation": "ucb", "arms": None}, "arms must be one of moves, irreversible, got None"),
        ({"method": "solve", "arms": "irreversible"}, "arms 'irreversible' needs allocation='ucb'"),
        ({"arms": "irreversible"}, "arms 'irreversible' needs allocation='ucb'"),
    ],
)  # fmt: skip
def test_a_bad_arms_setting_is_refused_in_one_line(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=rf"^search budget: {message}$") as error:
        SearchBudget(**kwargs)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--search-allocation", "halving"], "argument --search-arms: irreversible only with --search-allocation ucb"),
        (["--search-method", "rollouts"], "argument --search-arms: irreversible only with --search-method solve"),
        (["--search-arms", "all"], "argument --search-arms: invalid choice: 'all'"),
    ],
)  # fmt: skip
def test_the_command_line_refuses_arms_without_the_bandit_in_one_line(
    options: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["evaluate", "search", "--variant", "Lucas", "--search-arms", "irreversible"]
    assert main([*argv, *options]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err
    assert len(err.splitlines()) <= 2  # argparse's own errors add the usage line
