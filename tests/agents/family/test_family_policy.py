"""The family's network (fortythieves_agents.networks.family_policy.FamilyPlayerPolicy): it reads
each rule set's position as the per-variant network reads the variant's own, scores only
legal moves, ignores the columns a rule set lacks, and saves and loads as plain weights."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch
from fortythieves_agents.networks.family_policy import FamilyPlayerPolicy
from fortythieves_agents.networks.model_zip import load_inference_model
from fortythieves_agents.networks.policy import PlayerPolicy

import fortythieves_env
from fortythieves_env.envs.family import (
    FAMILY_BOUNDS,
    FAMILY_CODEC,
    FAMILY_LAYOUT,
    HELD_OUT,
    rule_set,
    rule_set_map,
)
from fortythieves_env.rules.engine import rules_for
from fortythieves_env.rules.variants import Build

SIZES = {"card_dim": 4, "column_dim": 8, "state_dim": 8, "scorer_arch": [8], "value_arch": [8]}


def family_policy(seed: int = 0) -> FamilyPlayerPolicy:
    env = gym.make("FortyThieves/Family-v0")
    torch.manual_seed(seed)
    return FamilyPlayerPolicy(env.observation_space, env.action_space, lambda _: 3e-4, **SIZES)


def played(variant: str, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` own observations and masks of ``variant`` after random legal play."""
    env = gym.make(fortythieves_env.env_id(variant))
    rng = np.random.default_rng(seed)
    obs_list, masks = [], []
    for k in range(n):
        obs, info = env.reset(seed=seed * 100 + k)
        for _ in range(int(rng.integers(0, 120))):
            legal = np.flatnonzero(info["action_mask"])
            obs, _, terminated, truncated, info = env.step(int(rng.choice(legal)))
            if terminated or truncated:
                obs, info = env.reset(seed=seed * 100 + k + 50)
        obs_list.append(obs.copy())
        masks.append(info["action_mask"].copy())
    return np.stack(obs_list), np.stack(masks)


def test_the_envelope_decodes_the_shared_actions() -> None:
    """The 13-column envelope whose tables the network builds decodes every shared action
    as the shared codec does."""
    rules = rules_for(rule_set(FAMILY_BOUNDS.n_columns[1], 0, 1, Build.SAME_SUIT, True))
    assert rules.n_actions == FAMILY_CODEC.n_actions == 2057
    for a in range(FAMILY_CODEC.n_actions):
        assert tuple(rules.decode(a)) == tuple(FAMILY_CODEC.table[a])


def test_other_spaces_are_refused() -> None:
    env = gym.make(fortythieves_env.env_id("Streets"))
    with pytest.raises(ValueError, match=r"expected the family's Box observation space"):
        FamilyPlayerPolicy(env.observation_space, env.action_space, lambda _: 3e-4)
    family = gym.make("FortyThieves/Family-v0")
    with pytest.raises(ValueError, match=r"Discrete\(2057\)"):
        FamilyPlayerPolicy(family.observation_space, gym.spaces.Discrete(10), lambda _: 3e-4)
    with pytest.raises(ValueError, match="column_dim must be a positive integer"):
        FamilyPlayerPolicy(
            family.observation_space, family.action_space, lambda _: 3e-4, column_dim=0
        )


@pytest.mark.parametrize("variant", list(fortythieves_env.VARIANTS))
def test_each_variant_is_read_as_its_own_network_reads_it(variant: str) -> None:
    """Through the shared encoding, every column the rule set has gives the numbers the
    variant's own network reads from its own observation: its top-down cards, the built
    run at its end (by the row's build rule), the run's bottom card and the card under
    it, its face-down count; and the foundations and the waste's top card. The columns it
    lacks are flagged absent and hold nothing."""
    spec = fortythieves_env.VARIANTS[variant]
    obs, _ = played(variant, 6)
    own_env = gym.make(fortythieves_env.env_id(variant))
    own = PlayerPolicy(
        own_env.observation_space, own_env.action_space, lambda _: 3e-4, variant=variant, **SIZES
    )
    m = rule_set_map(spec)
    shared = np.stack([m.to_shared_obs(o) for o in obs])
    fam = family_policy()._read(torch.as_tensor(shared))
    mine = own._read(torch.as_tensor(obs))
    c, v = spec.n_columns, own.n_slots
    assert torch.equal(fam["top_down"][:, :c, :v], mine["top_down"][:, :, :v])
    assert not fam["top_down"][:, :c, v:].any()  # the shared layout's slots beyond
    for key in ("run", "length", "face_down"):
        assert torch.equal(fam[key][:, :c], mine[key][:, :c]), key
    for key in ("run_bottom", "under_run"):
        assert torch.equal(fam[key][:, :c], mine[key]), key
    assert torch.equal(fam["found"], mine["found"])
    assert torch.equal(fam["waste_top"], mine["waste_top"])
    assert fam["exists"][:, :c].all() and not fam["exists"][:, c:].any()
    assert not fam["top_down"][:, c:].any() and not fam["face_down"][:, c:-1].any()


def test_only_legal_moves_are_played_and_scored() -> None:
    """With the mask, the logits of illegal shared actions are 0 and never chosen; the
    legal ones match the unmasked scoring of every action."""
    policy = family_policy()
    env = gym.make_vec(
        "FortyThieves/Family-v0", num_envs=6, vectorization_mode="vector_entry_point"
    )
    obs, info = env.reset(seed=3)
    masks = info["action_mask"]
    x = torch.as_tensor(obs)
    with torch.no_grad():
        masked = policy.action_logits(x, masks)
        full = policy.action_logits(x)
        actions, _, _ = policy(x, deterministic=True, action_masks=masks)
    legal = torch.as_tensor(masks, dtype=torch.bool)
    assert torch.allclose(masked[legal], full[legal], atol=1e-5)
    assert not masked[~legal].any()
    assert all(masks[i, int(a)] for i, a in enumerate(actions))


def test_a_column_swap_permutes_the_moves_that_name_it() -> None:
    """Swapping two columns of a position permutes the logits of the moves that name them
    and leaves the others (the shared weights see no column order)."""
    spec = fortythieves_env.VARIANTS["NumberTen"]
    obs, masks = played("NumberTen", 1, seed=4)
    m = rule_set_map(spec)
    shared = m.to_shared_obs(obs[0])
    mask = m.to_shared_mask(masks[0]).astype(bool)
    layout = FAMILY_LAYOUT.cards
    i, j = 2, 7
    swapped = shared.copy()
    for part in (lambda k: layout.column(k), lambda k: layout.face_down.start + k):
        a, b = part(i), part(j)
        swapped[a], swapped[b] = shared[b], shared[a]
    name = {i: j, j: i}

    def moved(action: int) -> int:
        kind, src, dst, n = FAMILY_CODEC.table[action]
        return FAMILY_CODEC.encode(kind, name.get(src, src), name.get(dst, dst), n)

    perm = np.array([moved(a) for a in range(FAMILY_CODEC.n_actions)])
    policy = family_policy()
    with torch.no_grad():
        before = policy.action_logits(torch.as_tensor(shared[None]))[0]
        after = policy.action_logits(torch.as_tensor(swapped[None]))[0]
    legal = np.flatnonzero(mask)
    assert torch.allclose(before[legal], after[perm[legal]], atol=1e-5)


def test_absent_columns_change_no_logit() -> None:
    """A card code written in a column the rule set lacks (a position no game reaches)
    changes no legal move's logit: the absent columns are left out of the pooled state."""
    obs, masks = played("Maria", 2, seed=5)  # 9 columns: 9..12 absent
    m = rule_set_map(fortythieves_env.VARIANTS["Maria"])
    shared = np.stack([m.to_shared_obs(o) for o in obs])
    noisy = shared.copy()
    noisy[:, FAMILY_LAYOUT.cards.column(11).start] = 17
    shared_masks = np.stack([m.to_shared_mask(k) for k in masks])
    policy = family_policy()
    with torch.no_grad():
        a = policy.action_logits(torch.as_tensor(shared), shared_masks)
        b = policy.action_logits(torch.as_tensor(noisy), shared_masks)
        va = policy.predict_values(torch.as_tensor(shared))
        vb = policy.predict_values(torch.as_tensor(noisy))
    assert torch.equal(a, b)
    assert torch.equal(va, vb)


def test_saved_and_loaded_as_plain_weights(tmp_path: Path) -> None:
    """A MaskablePPO zip of the family network loads without unpickling
    (load_inference_model) and gives the same logits."""
    from sb3_contrib import MaskablePPO

    env = gym.make("FortyThieves/Family-v0", variant=HELD_OUT["Josephine"])
    model = MaskablePPO(FamilyPlayerPolicy, env, policy_kwargs=SIZES, n_steps=32, seed=0)
    path = tmp_path / "family.zip"
    model.save(path)
    loaded = load_inference_model(path, env.observation_space, env.action_space)
    assert type(loaded.policy) is FamilyPlayerPolicy
    obs, info = env.reset(seed=1)
    x = torch.as_tensor(obs[None])
    with torch.no_grad():
        assert torch.equal(
            model.policy.action_logits(x, info["action_mask"][None]),
            loaded.policy.action_logits(x, info["action_mask"][None]),
        )
