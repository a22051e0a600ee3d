"""Batched agents: the compiled greedy against the Python one, per-game random generators,
and evaluation reports that do not depend on the batch size (issue 8, point 4)."""

from __future__ import annotations

import copy
from collections.abc import Iterator

import gymnasium as gym
import numpy as np
import pytest
from positions import shuffle_hidden

from agents.baselines import GreedyAgent, RandomAgent, greedy_actions, move_score, pick_legal
from fortythieves_env import VARIANTS, FortyThievesEnv

ALL_VARIANTS = list(VARIANTS)


def _random_walk_positions(
    variant: str, n_deals: int, steps: int, seed: int, p_move: float = 0.8
) -> Iterator[tuple[FortyThievesEnv, np.ndarray]]:
    """Yield ``(env, obs)`` along random legal play of ``n_deals`` deals (rng ``seed``):
    positions from the deal to late in the game. With probability ``p_move`` a step plays
    a move other than draw and redeal (if there is one), so columns change and empty; else
    it draws (or redeals), so the stock runs out."""
    env = FortyThievesEnv(variant)
    rng = np.random.default_rng(seed)
    for d in range(n_deals):
        obs, _ = env.reset(seed=seed * 1000 + d)
        for _ in range(steps):
            yield env, obs
            legal = np.flatnonzero(env.action_masks())
            # mostly non-draw moves, so the tableau changes and columns empty
            moves, stock = legal[legal > 1], legal[legal <= 1]  # draw and redeal are 0, 1
            if moves.size and (rng.random() < p_move or not stock.size):
                action = rng.choice(moves)
            else:
                action = stock[0] if stock.size else rng.choice(legal)
            obs, _, terminated, truncated, _ = env.step(int(action))
            if terminated or truncated:
                break


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_compiled_greedy_chooses_as_the_python_greedy(variant: str) -> None:
    agent = GreedyAgent()
    spec = VARIANTS[variant]
    obs_rows, mask_rows, expected = [], [], []
    kinds_seen: set[float] = set()
    for env, obs in _random_walk_positions(variant, 6, 150, 11):
        expected.append(agent.act(obs, env))
        obs_rows.append(obs.copy())
        mask_rows.append(env.action_masks().copy())
        view = env.player_view()
        kinds_seen.update(
            move_score(int(a), view, env.rules) for a in np.flatnonzero(env.action_masks())
        )
    got = greedy_actions(spec, np.array(obs_rows), np.array(mask_rows))
    assert got.tolist() == expected
    assert len(expected) > 300
    assert len(kinds_seen) >= 6  # many lines of the score table were exercised


def test_compiled_greedy_orders_every_pair_of_legal_moves_as_the_python_one() -> None:
    """For every pair of legal moves of many positions of every variant, a mask with only
    those two gets the same choice from both readers; together the pairs cover every line
    of the score table, so each branch of the compiled reader is compared."""
    from agents import baselines as b

    table = {
        b.S_TO_FOUNDATION, b.S_TO_FOUNDATION_REVEALS, b.S_REVEALS, b.S_EMPTIES_ONTO_CARD,
        b.S_WASTE_ONTO_CARD, b.S_BUILD_FREES, b.S_KING_TO_EMPTY, b.S_DRAW, b.S_REDEAL,
        b.S_WASTE_TO_EMPTY, b.S_PART_TO_EMPTY, b.S_POINTLESS,
    }  # fmt: skip
    seen: set[float] = set()
    for variant in ALL_VARIANTS:
        spec = VARIANTS[variant]
        for p_move in (0.8, 0.1):  # 0.1: the stock runs out, so redeals are legal
            obs_rows, mask_rows, expected = [], [], []
            for k, (env, obs) in enumerate(_random_walk_positions(variant, 2, 200, 5, p_move)):
                if k % 3:
                    continue
                view = env.player_view()
                legal = np.flatnonzero(env.action_masks()).tolist()
                score = {a: move_score(a, view, env.rules) for a in legal}
                seen.update(score.values())
                for i, x in enumerate(legal):
                    for y in legal[i + 1 :]:
                        mask = np.zeros_like(env.action_masks())
                        mask[[x, y]] = 1
                        obs_rows.append(obs)
                        mask_rows.append(mask)
                        expected.append(y if score[y] > score[x] else x)
            got = greedy_actions(spec, np.array(obs_rows), np.array(mask_rows))
            assert got.tolist() == expected, variant
    assert seen == table


@pytest.mark.parametrize("variant", ["NumberTen", "RankAndFile", "Indian", "LittleForty"])
def test_compiled_greedy_keeps_its_choice_when_unseen_cards_are_re_dealt(variant: str) -> None:
    env = gym.make(f"FortyThieves/{variant}-v0")
    obs, _ = env.reset(seed=7)
    base = env.unwrapped
    spec = base.variant
    other = FortyThievesEnv(variant)
    rng = np.random.default_rng(7)
    with_unseen = 0
    for _ in range(60):
        pos = base.get_state()
        shuffled = copy.deepcopy(pos)
        shuffle_hidden(shuffled, rng, spec)
        with_unseen += shuffled != pos
        other_obs, _ = other.reset(options={"state": shuffled})
        action = int(greedy_actions(spec, obs[None], base.action_masks()[None])[0])
        assert greedy_actions(spec, other_obs[None], other.action_masks()[None])[0] == action
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
    if variant != "LittleForty":
        assert with_unseen > 30


def test_greedy_actions_refuses_observations_of_another_variant() -> None:
    env = FortyThievesEnv("NumberTen")
    obs, _ = env.reset(seed=0)
    with pytest.raises(ValueError, match=r"greedy_actions\(FortyThieves\)"):
        greedy_actions(VARIANTS["FortyThieves"], obs[None], env.action_masks()[None])


def test_pick_legal_picks_the_kth_legal_action() -> None:
    masks = np.array([[0, 1, 0, 1, 1], [1, 0, 0, 0, 0], [0, 0, 0, 0, 0]], dtype=np.int8)
    assert pick_legal(masks, np.array([0.0, 0.5, 0.5])).tolist() == [1, 0, -1]
    assert pick_legal(masks, np.array([0.34, 0.99, 0.0])).tolist() == [3, 0, -1]
    assert pick_legal(masks, np.array([0.999, 0.0, 0.0])).tolist() == [4, 0, -1]


def test_random_agent_draws_per_game_whatever_the_batch() -> None:
    """Game i's choices come from (seed, i) only: the same alone or among other games."""
    masks = np.ones((3, 40), dtype=np.int8)
    obs = np.zeros((3, 1), dtype=np.uint8)
    together = RandomAgent(seed=4)
    together.start_games(VARIANTS["Streets"], np.array([0, 1, 2]))
    alone = RandomAgent(seed=4)
    alone.start_games(VARIANTS["Streets"], np.array([2]))
    for _ in range(5):
        both = together.act_batch(obs, masks, np.array([0, 1, 2]))
        assert alone.act_batch(obs[:1], masks[:1], np.array([2]))[0] == both[2]
    u = np.random.default_rng((4, 1)).random(6)[-1]
    assert together.act_batch(obs, masks, np.array([0, 1, 2]))[1] == int(u * 40)
