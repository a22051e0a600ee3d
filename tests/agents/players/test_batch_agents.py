"""Batched agents: the compiled greedy against the Python one, per-game random generators,
and evaluation reports that do not depend on the batch size (issue 8, point 4)."""

from __future__ import annotations

from collections.abc import Iterator

import gymnasium as gym
import numpy as np
import pytest
from fortythieves_agents.evaluation.evaluate import (
    EpisodeResult,
    ModelAgent,
    evaluate_agents,
    play_deals,
    play_episode,
)
from fortythieves_agents.players.baselines import (
    GreedyAgent,
    RandomAgent,
    greedy_actions,
    make_baseline,
    move_score,
    pick_legal,
)
from fortythieves_agents.seeds import TEST_START, seeds_for_test
from positions import redeal_into

from fortythieves_env import VARIANTS, FortyThievesEnv, VariantSpec, register_variant

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
    from fortythieves_env.rules import greedy as b

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
        other_obs, moved = redeal_into(base, other, rng)
        with_unseen += moved
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


# ---------------------------------------------------------------------- batched evaluation
TINY_EPISODES = 6


@pytest.fixture(scope="module")
def tiny_model() -> object:
    """An untrained MaskablePPO for Streets (random weights: choices far from uniform
    random, and near-ties between logits do happen, which the tests below need)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = DummyVecEnv([lambda: gym.make("FortyThieves/Streets-v0")])
    model = MaskablePPO("MlpPolicy", venv, policy_kwargs={"net_arch": [16]}, seed=3, device="cpu")
    venv.close()
    return model


def _report(agent: object, variant: str, episodes: int, batch_size: int | None) -> dict:
    return evaluate_agents([agent], variant, episodes, per_episode=True, batch_size=batch_size)


@pytest.mark.parametrize(
    ("name", "variant"), [("random", "NumberTen"), ("greedy", "NumberTen"), ("random", "Indian")]
)
def test_a_baseline_report_does_not_depend_on_the_batch_size(name: str, variant: str) -> None:
    reports = [_report(make_baseline(name, 5), variant, 9, size) for size in (1, 4, None)]
    assert reports[0] == reports[1] == reports[2]
    rows = reports[0]["results"][name]["per_episode"]
    assert [r["seed"] for r in rows] == [TEST_START + i for i in range(9)]
    assert len({r["foundation_cards"] for r in rows}) > 1  # deals differ: a mix-up would show


def test_a_report_is_the_same_when_the_deals_are_split_across_workers() -> None:
    """Deals 0..3 and 4..8 played apart (two workers) give deal i the same result."""
    whole = play_deals(RandomAgent(2), "FortyThieves/Streets-v0", seeds_for_test(9), 3)
    seeds = seeds_for_test(9)
    first = play_deals(RandomAgent(2), "FortyThieves/Streets-v0", seeds[:4])
    agent = RandomAgent(2)
    second = _play_deals_from(agent, "FortyThieves/Streets-v0", seeds, start=4)
    assert first + second == whole


def _play_deals_from(agent: RandomAgent, env_id: str, seeds: list[int], start: int) -> list:
    """Deals ``start..`` only, as a worker given them would play them (deal index kept)."""

    class Offset:
        name = agent.name

        def start_games(self, spec: object, games: np.ndarray) -> None:
            agent.start_games(spec, games + start)

        def end_games(self, games: np.ndarray) -> None:
            agent.end_games(games + start)

        def act_batch(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
            return agent.act_batch(obs, masks, games + start)

        def action_scores(
            self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray
        ) -> np.ndarray:
            return agent.action_scores(obs, masks, games + start)

    return play_deals(Offset(), env_id, seeds[start:])


def test_batched_greedy_plays_the_deals_of_the_one_deal_loop() -> None:
    env = gym.make("FortyThieves/NumberTen-v0")
    seeds = seeds_for_test(8)
    old = [play_episode(env, GreedyAgent(), s) for s in seeds]
    assert play_deals(GreedyAgent(), "FortyThieves/NumberTen-v0", seeds, 3) == old


@pytest.mark.parametrize("deterministic", [True, False])
def test_a_model_report_does_not_depend_on_the_batch_size(
    tiny_model: object, deterministic: bool
) -> None:
    def agent() -> ModelAgent:
        return ModelAgent(tiny_model, "ppo", deterministic=deterministic, seed=1)

    reports = [_report(agent(), "Streets", TINY_EPISODES, size) for size in (1, 4, None)]
    assert reports[0] == reports[1] == reports[2]
    rows = reports[0]["results"]["ppo"]["per_episode"]
    assert len({r["length"] for r in rows}) > 1


NEAR_TIE = 1e-5


def test_a_deterministic_model_plays_as_in_the_one_deal_loop_except_at_near_ties(
    tiny_model: object,
) -> None:
    """Batched forward passes may differ from one-row passes in the last bits of a logit:
    a deal may then go another way, but only at a step where the two best legal logits are
    within 1e-5. The deals with no such step must give exactly the one-deal results."""
    import torch

    agent = ModelAgent(tiny_model, "ppo", deterministic=True)
    env = gym.make("FortyThieves/Streets-v0")
    seeds = seeds_for_test(TINY_EPISODES)
    near_ties = []
    old = []
    for seed in seeds:
        obs, _ = env.reset(seed=seed)
        ties, done = 0, False
        while not done:
            with torch.no_grad():
                logits = agent.logits(obs[None])[0].numpy()
            legal = np.sort(logits[env.unwrapped.action_masks() == 1])
            ties += legal.size > 1 and legal[-1] - legal[-2] < NEAR_TIE
            obs, _, terminated, truncated, _ = env.step(agent.act(obs, env))
            done = terminated or truncated
        near_ties.append(ties)
        old.append(play_episode(env, agent, seed))
    new = play_deals(agent, "FortyThieves/Streets-v0", seeds)
    differ = [i for i in range(len(seeds)) if new[i] != old[i]]
    assert all(near_ties[i] > 0 for i in differ), (differ, near_ties)
    assert len(differ) < len(seeds)  # most deals have no near-tie at all


def test_an_illegal_batched_action_is_refused_with_the_deal() -> None:
    class Cheater:
        name = "cheater"

        def start_games(self, spec: object, games: np.ndarray) -> None: ...

        def end_games(self, games: np.ndarray) -> None: ...

        def act_batch(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
            out = np.argmax(masks, axis=1)
            if (games == 2).any():  # deal 2: an illegal action
                out[games == 2] = int(np.argmin(masks[games == 2][0]))
            return out

    with pytest.raises(
        RuntimeError, match=f"cheater chose illegal action .* deal {TEST_START + 2}"
    ):
        play_deals(Cheater(), "FortyThieves/Streets-v0", seeds_for_test(4), 2, allow_cycles=True)


@pytest.mark.parametrize("name", ["greedy", "random"])
def test_a_deal_with_no_move_counts_as_a_lost_one_step_game_in_both_loops(name: str) -> None:
    """A custom variant with no stock (all 104 cards in one column) deals a game with no
    move unless an Ace is on top: the env ends it on its first step, whatever the action.
    Both evaluation loops play it so (action 0, not the agent's -1) instead of refusing it
    as an illegal choice; deals 2 and 4 have a move, 0, 1 and 3 have none."""
    spec = VariantSpec("OneColumn", "One Column", 1, 0, 104, "same_suit", False)
    id_ = register_variant(spec)
    seeds = [0, 1, 2, 3, 4]
    env = gym.make(id_)
    old = [play_episode(env, make_baseline(name, 3), s) for s in seeds]
    for b in (0, 1, 3):
        assert old[b] == EpisodeResult(seeds[b], False, 0, 1, -0.1, False)
    assert old[2].foundation_cards >= 1 and old[4].foundation_cards >= 1  # an Ace was on top
    assert play_deals(make_baseline(name, 3), id_, seeds, 2) == old
