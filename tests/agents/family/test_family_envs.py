"""The family's environments for the agents (fortythieves_agents.family.envs and .views): a
named variant played through the shared encoding gives the games of its own id, with the
no-cycling rule of each game's own rule set, in training and in evaluation."""

from __future__ import annotations

import numpy as np
import pytest
from fortythieves_agents.config import load_config
from fortythieves_agents.envs import BatchedVecEnv
from fortythieves_agents.evaluation.evaluate import play_deals
from fortythieves_agents.family.agents import FamilyGreedyAgent, rule_set_of_observation
from fortythieves_agents.family.config import load_family_config
from fortythieves_agents.family.envs import FamilyBatchedVecEnv, play_family_deals
from fortythieves_agents.family.zero_shot import register_held_out
from fortythieves_agents.players.baselines import make_baseline
from fortythieves_agents.seeds import seeds_for_test, seeds_for_validation

import fortythieves_env
from fortythieves_env.envs.family import (
    FAMILY_LAYOUT,
    FamilyBounds,
    RuleSetSampler,
    get_rule_set,
    rule_key,
    rule_set_map,
    split_of,
)

# one card, sequences, redeals and the known stock, Aces out, Kings only: every kind of game
GAMES = ["NumberTen", "Indian", "LittleForty", "SanJuanHill", "FortyAndEight", "Josephine"]


@pytest.mark.parametrize("game", GAMES)
def test_greedy_through_the_family_env_plays_the_games_of_the_own_id(game: str) -> None:
    """Greedy read from shared observations, under the family's no-cycling rule, on
    Family-v0 with the rule set fixed: the same result on every deal as greedy on the
    game's own id (wins, cards, lengths, returns, stuck and truncated games)."""
    register_held_out(game)
    seeds = seeds_for_test(12)
    through = play_family_deals(FamilyGreedyAgent(), seeds, rule_set=get_rule_set(game))
    own = play_deals(make_baseline("greedy"), fortythieves_env.env_id(game), seeds)
    assert through == own
    assert any(r.stuck for r in own) or game in ("LittleForty",)


def test_greedy_scores_are_the_own_scores_on_the_shared_actions() -> None:
    from fortythieves_agents.players.baselines import greedy_actions

    spec = fortythieves_env.VARIANTS["Lucas"]
    m = rule_set_map(spec)
    env = fortythieves_env.FortyThievesVectorEnv("Lucas", num_envs=4)
    obs, info = env.reset(seed=2)
    own = np.empty(info["action_mask"].shape)
    greedy_actions(spec, obs, info["action_mask"], own)
    shared_obs = np.stack([m.to_shared_obs(o) for o in obs])
    shared_masks = np.stack([m.to_shared_mask(k) for k in info["action_mask"]])
    scores = FamilyGreedyAgent().action_scores(shared_obs, shared_masks, np.arange(4))
    assert np.array_equal(scores[:, m.to_shared], own)
    lacking = np.setdiff1d(np.arange(scores.shape[1]), m.to_shared)
    assert np.isneginf(scores[:, lacking]).all()


@pytest.mark.parametrize("game", ["NumberTen", *fortythieves_env.envs.family.HELD_OUT_GAMES])
def test_the_rule_set_is_read_back_from_the_observation(game: str) -> None:
    spec = get_rule_set(game)
    shared = np.zeros(FAMILY_LAYOUT.size, dtype=np.uint8)
    shared[FAMILY_LAYOUT.rules] = FAMILY_LAYOUT.rule_features(spec)
    assert rule_key(rule_set_of_observation(shared)) == rule_key(spec)


def test_training_on_a_fixed_variant_is_its_own_batched_env() -> None:
    """FamilyBatchedVecEnv with NumberTen fixed and BatchedVecEnv of NumberTen, same seed,
    same moves (each game's k-th legal move, picked from the no-cycling masks): the same
    shared observations, masks, rewards, dones, infos and deal seeds, step by step, stuck
    games and new deals included."""
    config = load_config("numberten", ["train.n_envs=4", "ppo.batch_size=64"])
    own = BatchedVecEnv(config.env, 4, seed=7, no_cycling=True)
    fam = FamilyBatchedVecEnv(
        config.env.make_kwargs(),
        4,
        seed=7,
        rule_set=fortythieves_env.VARIANTS["NumberTen"],
        no_cycling=True,
    )
    m = rule_set_map(fortythieves_env.VARIANTS["NumberTen"])
    own_obs, fam_obs = own.reset(), fam.reset()
    rng = np.random.default_rng(0)
    stuck = ended = 0
    for _ in range(400):
        assert np.array_equal(np.stack([m.to_shared_obs(o) for o in own_obs]), fam_obs)
        own_masks, fam_masks = own.action_masks(), fam.action_masks()
        assert np.array_equal(np.stack([m.to_shared_mask(k) for k in own_masks]), fam_masks)
        picks = np.array([rng.choice(np.flatnonzero(k)) for k in own_masks])
        own_obs, own_r, own_d, own_i = own.step(picks)
        fam_obs, fam_r, fam_d, fam_i = fam.step(m.to_shared[picks])
        assert np.array_equal(own_r, fam_r) and np.array_equal(own_d, fam_d)
        for a, b in zip(own_i, fam_i, strict=True):
            assert a.keys() == b.keys()
            assert a.get("episode", {}).get("r") == b.get("episode", {}).get("r")
            assert a.get("stuck") == b.get("stuck")
            stuck += bool(a.get("stuck"))
        ended += int(own_d.sum())
        assert [i["deal_seed"] for i in own.reset_infos] == [
            i["deal_seed"] for i in fam.reset_infos
        ]
    assert ended and stuck  # games ended, some by the no-cycling rule


def test_sampled_training_games_are_training_rule_sets() -> None:
    """Each game of a sampled batch plays a training rule set (never a held-out game), the
    one its deal seed draws; a narrower box is kept to."""
    config = load_family_config("family", ["train.n_envs=8", "ppo.batch_size=64"])
    env = FamilyBatchedVecEnv(config.env.make_kwargs(), 8, seed=1, no_cycling=True)
    env.reset()
    seen = set()
    for _ in range(300):
        masks = env.action_masks()
        env.step(np.array([np.flatnonzero(k)[0] for k in masks]))
        seen.update(env.get_attr("rule_sets"))
    assert len(seen) > 8
    assert all(split_of(spec) == "train" for spec in seen)
    box = FamilyBounds(n_columns=(9, 10), builds=(fortythieves_env.Build.OTHER_SUIT,))
    narrow = FamilyBatchedVecEnv(
        config.env.make_kwargs(), 4, seed=1, sampler=RuleSetSampler(box), no_cycling=False
    )
    narrow.reset()
    for spec in narrow.get_attr("rule_sets"):
        assert not box.outside(spec) and split_of(spec) == "train"


def test_validation_deals_on_the_training_distribution() -> None:
    """The validation deals of a family run: each seed draws a training rule set, the same
    whatever the batch size (a deal depends on its seed only)."""
    seeds = seeds_for_validation(6)
    one = play_family_deals(FamilyGreedyAgent(), seeds, batch_size=1)
    all_ = play_family_deals(FamilyGreedyAgent(), seeds)
    assert one == all_
    assert [r.seed for r in one] == seeds
