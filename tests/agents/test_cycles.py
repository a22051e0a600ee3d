"""The agents' no-cycling rule in evaluation (issue 9, point 5).

Agents take their best-ranked move that leads to a view not yet seen in the episode; when
there is none the episode ends as stuck. Checked by replaying the games with the pure
Python engine and its :func:`player_view` (not the compiled hash the rule uses).
"""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from fortythieves_agents.evaluation.evaluate import (
    EpisodeResult,
    GameTrace,
    evaluate_agents,
    play_deals,
    play_episode,
    render_table,
)
from fortythieves_agents.players.baselines import (
    GreedyAgent,
    RandomAgent,
    move_score,
    sampled_scores,
)
from fortythieves_agents.seeds import seeds_for_test

from fortythieves_env import FortyThievesEnv
from fortythieves_env.records.record import RecordError, load_record, verify
from fortythieves_env.rules.view import player_view

IDS = [
    "FortyThieves/Streets-v0",
    "FortyThieves/Maria-v0",
    "FortyThieves/NumberTen-v0",
    "FortyThieves/LittleForty-v1",
]


def _views(env_id: str, trace: GameTrace) -> tuple[list[object], FortyThievesEnv]:
    """The player's views along a game (start included), replayed by the Python engine."""
    env = FortyThievesEnv(gym.spec(env_id).kwargs["variant"], backend="python")
    env.reset(options={"state": trace.start})
    views = [env.player_view()]
    for a in trace.actions.tolist():
        env.step(a)
        views.append(env.player_view())
    return views, env


def _new_view_moves(env: FortyThievesEnv, seen: set[object]) -> list[int]:
    """The legal moves of ``env``'s position that lead to a view not in ``seen``."""
    state = env.state
    out = []
    for a in env.rules.legal_actions(state):
        after = state.copy()
        env.rules.apply(after, a)
        if player_view(env.rules, after) not in seen:
            out.append(a)
    return out


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("agent", [GreedyAgent, RandomAgent], ids=["greedy", "random"])
def test_no_view_repeats_and_stuck_means_no_new_view_was_left(env_id: str, agent: type) -> None:
    """With the rule: no episode ever revisits a view; an episode ends as stuck exactly when
    every legal move leads back to a view seen; so no episode reaches the step limit while
    cycling (one that reaches it saw a new view at every step). Without the rule, the
    episodes that never repeat a view are played exactly as with it."""
    seeds = seeds_for_test(12)
    limit = gym.spec(env_id).max_episode_steps
    traces: list[GameTrace] = []
    results = play_deals(agent(5), env_id, seeds, 5, traces=traces)
    free_traces: list[GameTrace] = []
    free = play_deals(agent(5), env_id, seeds, 5, traces=free_traces, allow_cycles=True)
    cycled = 0
    for result, trace, old, old_trace in zip(results, traces, free, free_traces, strict=True):
        views, env = _views(env_id, trace)
        assert len(set(views)) == len(views) == result.length + 1  # never a view twice
        left = _new_view_moves(env, set(views))
        if result.stuck:
            assert not result.truncated and not result.won
            assert env.rules.legal_actions(env.state) and left == []
            assert result.length < limit
        elif result.truncated:
            assert result.length == limit  # every step went to a new view
        else:  # won or no legal move
            assert not env.rules.legal_actions(env.state) or result.won
        old_views, _ = _views(env_id, old_trace)
        if len(set(old_views)) == len(old_views):  # the free game never repeated a view
            assert old == result and np.array_equal(old_trace.actions, trace.actions)
        else:
            cycled += 1
            assert not old.stuck
    assert sum(r.stuck for r in free) == 0
    if agent is GreedyAgent and env_id != "FortyThieves/LittleForty-v1":
        # greedy cycles to the step limit on some of these deals; the rule stops that
        assert cycled > 0
        assert sum(r.truncated for r in results) < sum(r.truncated for r in free)


@pytest.mark.parametrize("env_id", ["FortyThieves/Streets-v0", "FortyThieves/LittleForty-v1"])
@pytest.mark.parametrize("agent", [GreedyAgent, RandomAgent], ids=["greedy", "random"])
def test_the_same_results_one_by_one_and_in_batches_of_any_size(env_id: str, agent: type) -> None:
    seeds = seeds_for_test(9)
    env = gym.make(env_id)
    one = [play_episode(env, agent(2), s, game=i) for i, s in enumerate(seeds)]
    assert any(r.stuck for r in one) or env_id.endswith("v1")
    for size in (1, 4, None):
        assert play_deals(agent(2), env_id, seeds, size) == one


def test_action_scores_rank_as_act_batch_chooses() -> None:
    """The protocol: float64 (B, n), -inf exactly where illegal, argmax = act_batch (same
    random draws); greedy's scores are move_score's."""
    env_id = "FortyThieves/NumberTen-v0"
    venv = gym.make_vec(env_id, num_envs=6, vectorization_mode="vector_entry_point")
    obs, info = venv.reset(seed=3)
    spec = venv.unwrapped.variant
    games = np.arange(6, dtype=np.int64)
    for cls in (GreedyAgent, RandomAgent):
        a, b = cls(1), cls(1)
        a.start_games(spec, games)
        b.start_games(spec, games)
        for _ in range(30):
            masks = info["action_mask"]
            scores = a.action_scores(obs, masks, games)
            chosen = b.act_batch(obs, masks, games)
            assert scores.dtype == np.float64 and scores.shape == masks.shape
            assert np.array_equal(np.isneginf(scores), masks == 0)
            assert np.array_equal(np.argmax(scores, axis=1), chosen)
            obs, _, _, _, info = venv.step(chosen)
    single = gym.make(env_id)
    obs1, _ = single.reset(seed=5)
    greedy = GreedyAgent()
    greedy.start_games(spec, games[:1])
    mask = single.unwrapped.action_masks()
    scores = greedy.action_scores(obs1[None], mask[None], games[:1])[0]
    view, rules = single.unwrapped.player_view(), single.unwrapped.rules
    for action in np.flatnonzero(mask).tolist():
        assert scores[action] == move_score(action, view, rules)


def test_sampled_scores_restricted_to_a_subset_follow_the_policy() -> None:
    """Gumbel-max: the best-ranked move of a subset of the legal moves is a draw from the
    policy restricted to it (uniform for equal probabilities)."""
    rng = np.random.default_rng(0)
    n, draws = 5, 20000
    masks = np.ones((draws, n), dtype=np.int8)
    probs = np.array([0.4, 0.3, 0.15, 0.1, 0.05])
    u = rng.random(draws)
    chosen = np.searchsorted(np.cumsum(probs), u, side="right").astype(np.int64)
    scores = sampled_scores(masks, u, chosen, np.log(np.tile(probs, (draws, 1))))
    assert np.array_equal(np.argmax(scores, axis=1), chosen)
    allowed = [1, 3, 4]  # moves 0 and 2 repeat a view
    best = np.array(allowed)[np.argmax(scores[:, allowed], axis=1)]
    freq = np.bincount(best, minlength=n)[allowed] / draws
    expected = probs[allowed] / probs[allowed].sum()
    assert np.allclose(freq, expected, atol=0.015), (freq, expected)
    uniform = sampled_scores(masks, u, np.minimum((u * n).astype(np.int64), n - 1))
    best = np.array(allowed)[np.argmax(uniform[:, allowed], axis=1)]
    assert np.allclose(np.bincount(best, minlength=n)[allowed] / draws, 1 / 3, atol=0.015)


def test_stuck_games_in_the_summary_and_the_records(tmp_path: Path) -> None:
    report = evaluate_agents([GreedyAgent()], "Streets", 6, save_games=tmp_path)
    s = report["results"]["greedy"]
    assert report["no_cycling"] is True and s["stuck"] > 0
    assert s["stuck_rate"] == s["stuck"] / 6 and s["truncated"] == 0
    free = evaluate_agents([GreedyAgent()], "Streets", 6, allow_cycles=True)
    assert free["no_cycling"] is False and free["results"]["greedy"]["stuck"] == 0
    assert free["results"]["greedy"]["truncated"] == s["stuck"]  # these deals cycle
    assert "stuck" in [c.header for c in render_table(report).columns]
    stuck_files = []
    for path in sorted((tmp_path / "greedy").glob("*.json")):
        record = load_record(path)
        assert verify(record) == record.outcome
        if record.outcome["stuck"]:
            assert not record.outcome["terminated"] and not record.outcome["truncated"]
            stuck_files.append(path)
    assert len(stuck_files) == s["stuck"]
    # a record that says stuck where a move to a new view was left is refused
    data = json.loads(stuck_files[0].read_text())
    data["moves"] = data["moves"][:-1]
    data["outcome"]["length"] -= 1
    stuck_files[0].write_text(json.dumps(data))
    with pytest.raises(RecordError, match=r"says stuck, yet .* leads to a view not seen"):
        verify(load_record(stuck_files[0]))
    # a format-1 record (no stuck key) still loads, as not stuck
    ok = json.loads(sorted((tmp_path / "greedy").glob("*.json"))[1].read_text())
    ok["format_version"] = 1
    del ok["outcome"]["stuck"], ok["outcome"]["unfinished"], ok["rules_version"], ok["digest"]
    (tmp_path / "old.json").write_text(json.dumps(ok))
    assert load_record(tmp_path / "old.json").outcome["stuck"] is False


def test_an_agent_without_a_ranking_needs_allow_cycles() -> None:
    class ChoiceOnly:
        name = "choice-only"

        def start_games(self, spec: object, games: np.ndarray) -> None: ...

        def end_games(self, games: np.ndarray) -> None: ...

        def act_batch(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
            return np.argmax(masks, axis=1)

    seeds = seeds_for_test(2)
    with pytest.raises(TypeError, match="choice-only has no action_scores"):
        play_deals(ChoiceOnly(), "FortyThieves/Maria-v0", seeds)
    results = play_deals(ChoiceOnly(), "FortyThieves/Maria-v0", seeds, allow_cycles=True)
    assert all(isinstance(r, EpisodeResult) and not r.stuck for r in results)


def test_a_huge_step_limit_allocates_for_the_views_seen_and_the_sets_grow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 23.12: the sets were sized by the step limit up front, so a limit of 10**9
    (``--set env.max_episode_steps=1e9``) allocated 64 GiB for 4 games. They start with room
    for ``INITIAL_VIEWS`` views and double as they fill: a set that starts at 16 slots and
    grows chooses exactly as one that never grows."""
    from fortythieves_agents.cycles import SeenViews

    from fortythieves_env import FortyThievesVectorEnv

    envs = FortyThievesVectorEnv("Streets", 4)
    big = SeenViews(envs.tables, 4, 10**9)
    assert big.table.shape == (4, 16384) and big.table.nbytes == 512 * 1024
    monkeypatch.setattr(SeenViews, "INITIAL_VIEWS", 2)
    small = SeenViews(envs.tables, 4, 10**9)
    assert small.table.shape == (4, 16)
    _, info = envs.reset(seed=0)
    rows = np.arange(4)
    big.start(envs.states, rows)
    small.start(envs.states, rows)
    for _ in range(100):
        masks = info["action_mask"]
        scores = np.zeros(masks.shape)  # lowest action first among the moves to a new view
        chosen = big.choose(envs.states, rows, scores, masks).copy()
        assert np.array_equal(small.choose(envs.states, rows, scores, masks), chosen)
        if (chosen < 0).any():
            break
        _, _, terminated, truncated, info = envs.step(chosen)
        if (terminated | truncated).any():
            break
    assert np.array_equal(small.counts, big.counts) and small.counts.min() > 8
    assert small.table.shape[1] > 16  # it grew


def test_the_family_env_is_refused_by_the_single_variant_rule_with_its_way_out() -> None:
    """The no-cycling rule of :func:`play_episode` plays a variant's own actions; the
    family's environment plays shared ones (2057), so with the rule on it is refused in one
    line naming ``play_family_deals`` (it failed deep in the kernels before, and after the
    kernels took an action map it would read past the map). Without the rule the family
    agent plays a whole game on it. The rule's sets refuse masks wider than their map."""
    from fortythieves_agents.cycles import SeenViews
    from fortythieves_agents.family.agents import FamilyGreedyAgent

    from fortythieves_env import FAMILY_ENV_ID, FortyThievesVectorEnv, get_variant

    class FirstLegal:
        name = "first-legal"

        def act(self, obs: np.ndarray, env: gym.Env) -> int:
            return int(np.flatnonzero(env.unwrapped.action_masks())[0])

    env = gym.make(FAMILY_ENV_ID, variant="NumberTen")
    with pytest.raises(ValueError, match=r"play_family_deals \(or, with an agent that has act"):
        play_episode(env, FamilyGreedyAgent(), 5)
    result = play_episode(env, FirstLegal(), 5, allow_cycles=True)
    # the first legal move each time cycles without the rule: the game runs to Number Ten's
    # step limit
    assert result.truncated and result.length == get_variant("NumberTen").max_episode_steps
    envs = FortyThievesVectorEnv("NumberTen", 1)
    envs.reset(seed=0)
    seen = SeenViews(envs.tables, 1, 10)
    rows = np.arange(1)
    seen.start(envs.states, rows)
    wide = np.ones((1, 2057), dtype=np.int8)
    with pytest.raises(ValueError, match="the masks have 2057 actions, the rule set's map 1193"):
        seen.choose(envs.states, rows, np.zeros((1, 2057)), wide)
    with pytest.raises(ValueError, match="the masks have 2057 actions"):
        seen.fresh(envs.states, rows, wide)
