"""A family network evaluated on a named game (fortythieves_agents.family.agents): the usual
report on the game's own id is the report of the same network played through Family-v0 with
the rule set fixed, deal by deal; refusals are one line."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch
from fortythieves_agents.evaluation.evaluate import (
    ModelAgent,
    evaluate_agents,
    summarize,
)
from fortythieves_agents.family.agents import (
    FamilyModelAgent,
    is_family_model,
    load_family_agent,
    load_family_model,
    tag_family_model,
    trained_on,
)
from fortythieves_agents.family.envs import play_family_deals
from fortythieves_agents.family.zero_shot import register_held_out
from fortythieves_agents.networks.family_policy import FamilyPlayerPolicy
from fortythieves_agents.networks.model_zip import ModelMismatchError
from fortythieves_agents.seeds import seeds_for_test
from helpers import KINGS_TEN

from fortythieves_env.envs.family import get_rule_set

SIZES = {"card_dim": 4, "column_dim": 8, "state_dim": 8, "scorer_arch": [8], "value_arch": [8]}


@pytest.fixture(scope="module")
def family_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A family network (random weights, small) saved as `fortythieves train family` saves
    one."""
    from sb3_contrib import MaskablePPO

    env = gym.make("FortyThieves/Family-v0")
    model = MaskablePPO(FamilyPlayerPolicy, env, policy_kwargs=SIZES, n_steps=32, seed=3)
    tag_family_model(model, {"rule_set": None, "bounds": {}})
    path = tmp_path_factory.mktemp("family") / "family.zip"
    model.save(path)
    return path


@pytest.mark.parametrize("game", ["NumberTen", "FortyAndEight"])
def test_the_report_on_the_own_id_is_the_play_through_the_family_env(
    family_zip: Path, game: str
) -> None:
    """evaluate_agents of the family model on the game's own id (what `fortythieves
    evaluate MODEL --variant V` and the zero-shot evaluation play) and the same network
    played through Family-v0 with the rule set fixed give the same per-deal rows, so the
    same summary."""
    variant = register_held_out(game)
    agent, chosen = load_family_agent(family_zip, variant)
    assert isinstance(agent, FamilyModelAgent) and chosen == variant
    report = evaluate_agents([agent], variant, 4, per_episode=True)
    rows = report["results"]["ppo"].pop("per_episode")
    through = play_family_deals(
        ModelAgent(load_family_model(family_zip)), seeds_for_test(4), rule_set=get_rule_set(game)
    )
    assert [tuple(r.values()) for r in rows] == [
        (r.seed, r.won, r.foundation_cards, r.length, r.ret, r.truncated, r.stuck) for r in through
    ]
    assert report["results"]["ppo"] == summarize(through)
    assert report["env_id"] == f"FortyThieves/{game}-v{1 if game == 'FortyAndEight' else 0}"


def test_sampling_follows_the_same_draws(family_zip: Path) -> None:
    """A sampling family agent draws the same moves on the own id as through Family-v0 (the
    order of the actions is kept, so the cumulative probabilities are the same), with
    cycles allowed: under the no-cycling rule the moves after a refused draw are ranked by
    noise keyed on the action's number, which the two encodings number apart."""
    agent, _ = load_family_agent(family_zip, "Indian", deterministic=False, seed=5)
    own = evaluate_agents([agent], "Indian", 4, per_episode=True, allow_cycles=True)
    rows = own["results"]["ppo-sampled"]["per_episode"]
    through = play_family_deals(
        ModelAgent(load_family_model(family_zip), "ppo-sampled", False, 5),
        seeds_for_test(4),
        rule_set=get_rule_set("Indian"),
        allow_cycles=True,
    )
    assert [(row["length"], row["foundation_cards"], row["ret"]) for row in rows] == [
        (r.length, r.foundation_cards, r.ret) for r in through
    ]


def test_the_first_move_distribution_is_the_shared_one(family_zip: Path) -> None:
    """On a position of a variant, the agent's logits of the variant's actions are the
    network's logits of the shared actions they are."""
    from fortythieves_env.envs.family import rule_set_map

    agent, _ = load_family_agent(family_zip, "Streets")
    env = gym.make("FortyThieves/Streets-v0")
    obs, info = env.reset(seed=4)
    agent.start_games(env.unwrapped.variant, np.zeros(1, dtype=np.int64))
    mask = torch.as_tensor(info["action_mask"][None], dtype=torch.bool)
    m = rule_set_map(env.unwrapped.variant)
    with torch.no_grad():
        own = agent.logits(obs[None], mask)
        shared = agent.model.policy.action_logits(
            torch.as_tensor(m.to_shared_obs(obs)[None]), m.to_shared_mask(info["action_mask"])[None]
        )
    assert torch.equal(own, shared[:, torch.as_tensor(m.to_shared.copy())])


def test_refusals_are_one_line(family_zip: Path, tmp_path: Path) -> None:
    from fortythieves_env import register_variant

    with pytest.raises(
        ModelMismatchError, match="plays any rule set of the family; pass --variant"
    ):
        load_family_agent(family_zip, None)
    wide = dataclasses.replace(KINGS_TEN, id="Wide14", name="Wide", n_columns=14)
    register_variant(wide)
    with pytest.raises(ModelMismatchError, match=r"Wide14 is outside them \(n_columns 14"):
        load_family_agent(family_zip, "Wide14")
    with pytest.raises(ModelMismatchError, match="reads observation version 1"):
        load_family_agent(family_zip, "LittleForty", env_version=0)
    assert is_family_model(family_zip)
    assert not is_family_model(tmp_path / "missing.zip")
    assert trained_on(family_zip) == {"rule_set": None, "bounds": {}, "timesteps": 0}


def test_a_family_network_guides_the_search_and_sees_only_the_players_view(
    family_zip: Path,
) -> None:
    """Network + search with a family network as the guide (``--search-prior`` of a family
    zip): the search hands it the rule set when the games start, its guide is the network's
    scores of the variant's own moves, and two positions with equal views (the second one's
    unseen cards dealt again) get equal scores."""

    from fortythieves_agents.players.search import SearchAgent, SearchBudget
    from positions import redeal_into

    from fortythieves_env import FortyThievesEnv

    budget = SearchBudget(method="solve", seconds=0.002, nodes=200)
    guides = [load_family_agent(family_zip, "NumberTen")[0] for _ in range(2)]
    agents = [SearchAgent(4, budget, prior=g, prior_weight=0.05) for g in guides]
    env, other = FortyThievesEnv("NumberTen"), FortyThievesEnv("NumberTen")
    obs, _ = env.reset(seed=5)
    spec = env.variant
    for a in agents:
        a.start_games(spec, np.array([0]))
    assert guides[0]._map is not None and guides[0]._map.spec == spec  # told by the search
    rng = np.random.default_rng(5)
    differed = 0
    for _ in range(12):
        other_obs, moved = redeal_into(env, other, rng)
        differed += moved
        mask, other_mask = env.action_masks()[None], other.action_masks()[None]
        alone = guides[0].action_scores(obs[None], mask, np.array([0]))
        assert np.array_equal(alone, guides[1].action_scores(other_obs[None], other_mask, [0]))
        a = agents[0].action_scores(obs[None], mask, np.array([0]))
        b = agents[1].action_scores(other_obs[None], other_mask, np.array([0]))
        assert np.array_equal(a, b)
        assert np.all(np.isneginf(a[0]) == ~mask[0].astype(bool))
        obs, _, terminated, truncated, _ = env.step(int(np.argmax(a[0])))
        if terminated or truncated:
            break
    assert differed > 5
    for a in agents:
        a.end_games(np.array([0]))


def test_evaluate_plays_a_family_network_as_the_searchs_guide(
    family_zip: Path, tmp_path: Path
) -> None:
    """`evaluate search --search-prior FAMILY.zip` (before: refused as a model of another
    observation) plays network + search and names its guide."""
    import json

    from fortythieves_agents.cli.main import main

    report = tmp_path / "report.json"
    argv = ["evaluate", "search", "--variant", "Lucas", "--episodes", "2", "--baselines"]
    argv += ["--search-budget", "0.002", "--search-prior", str(family_zip)]
    argv += ["--search-prior-weight", "0.05", "--json", str(report), "--no-progress"]
    assert main(argv) == 0
    result = json.loads(report.read_text())["results"]["search+network"]
    assert result["episodes"] == 2
    assert result["settings"]["prior"] == str(family_zip)
    assert result["settings"]["prior_weight"] == 0.05
