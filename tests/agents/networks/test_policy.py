"""The ``player`` network (fortythieves_agents.networks.policy.PlayerPolicy): shapes, masking, shared weights, saving."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
import torch
from fortythieves_agents.config import ConfigError, load_config
from fortythieves_agents.envs import make_training_vec_env
from fortythieves_agents.evaluation.evaluate import load_model_agent, play_episode
from fortythieves_agents.networks.policy import PlayerPolicy, policy_logits
from fortythieves_agents.training.train import build_model
from helpers import CONFIGS, STREETS
from sb3_contrib import MaskablePPO

import fortythieves_env
from configs import PLAIN
from fortythieves_env.rules.engine import COLUMN_TO_COLUMN, COLUMN_TO_FOUNDATION

SMALL = [
    *PLAIN,
    "policy.network=player",
    "policy.player.card_dim=4",
    "policy.player.column_dim=8",
    "policy.player.state_dim=8",
    "policy.player.scorer_arch=[8]",
    "policy.player.value_arch=[8]",
    "train.n_envs=2",
    "ppo.n_steps=32",
    "ppo.batch_size=32",
    "ppo.n_epochs=1",
    "train.tensorboard=false",
    "train.progress_bar=false",
]


def make_policy(variant: str, **kwargs: object) -> tuple[gym.Env, PlayerPolicy]:
    env = gym.make(fortythieves_env.env_id(variant), backend="python")
    torch.manual_seed(0)
    policy = PlayerPolicy(
        env.observation_space, env.action_space, lambda _: 3e-4, variant=variant, **kwargs
    )
    return env, policy


def positions(env: gym.Env, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, list]:
    """``n`` observations, masks and engine states from random legal play of varied length."""
    rng = np.random.default_rng(seed)
    obs_list, masks, states = [], [], []
    for k in range(n):
        obs, info = env.reset(seed=seed * 1000 + k)
        for _ in range(int(rng.integers(0, 80))):
            legal = np.flatnonzero(info["action_mask"])
            obs, _, terminated, truncated, info = env.step(int(rng.choice(legal)))
            if terminated or truncated:
                obs, info = env.reset(seed=seed * 1000 + k + 500)
        obs_list.append(obs.copy())
        masks.append(info["action_mask"].copy())
        states.append(env.unwrapped.state.copy())
    return np.stack(obs_list), np.stack(masks), states


@pytest.mark.parametrize(("variant", "n_actions"), [("Streets", 113), ("NumberTen", 1193)])
def test_output_shapes(variant: str, n_actions: int) -> None:
    env, policy = make_policy(variant)
    obs, masks, _ = positions(env, 5)
    x = torch.as_tensor(obs)  # uint8, as in SB3's rollouts
    actions, values, log_prob = policy(x, action_masks=masks)
    assert actions.shape == (5,) and actions.dtype == torch.int64
    assert values.shape == (5, 1) and log_prob.shape == (5,)
    assert policy.action_logits(x.float()).shape == (5, n_actions)
    assert policy.action_logits(x.float(), masks).shape == (5, n_actions)
    values2, log_prob2, entropy = policy.evaluate_actions(
        x.float(), actions, torch.as_tensor(masks, dtype=torch.float32)
    )
    assert values2.shape == (5, 1) and log_prob2.shape == (5,) and entropy.shape == (5,)
    torch.testing.assert_close(values2, values)
    torch.testing.assert_close(log_prob2, log_prob)
    assert policy.predict_values(x).shape == (5, 1)


@pytest.mark.parametrize("variant", ["Streets", "NumberTen"])
def test_illegal_actions_never_chosen_and_probabilities_sum_to_one(variant: str) -> None:
    env, policy = make_policy(variant)
    obs, masks, _ = positions(env, 12, seed=1)
    x = torch.as_tensor(obs, dtype=torch.float32)
    with torch.no_grad():
        probs = policy.get_distribution(x, masks).distribution.probs
    legal = torch.as_tensor(masks, dtype=torch.bool)
    torch.testing.assert_close(probs.sum(1), torch.ones(12))
    assert float(probs[~legal].max()) < 1e-30
    assert bool((probs[legal] > 0).all())
    for _ in range(20):
        actions, _, _ = policy(x, action_masks=masks)
        assert bool(legal[torch.arange(12), actions].all())
    deterministic, _, _ = policy(x, deterministic=True, action_masks=masks)
    assert bool(legal[torch.arange(12), deterministic].all())


@pytest.mark.parametrize("variant", ["Streets", "NumberTen"])
def test_legal_only_scoring_gives_the_same_logits_as_scoring_all(variant: str) -> None:
    env, policy = make_policy(variant)
    obs, masks, _ = positions(env, 6, seed=2)
    x = torch.as_tensor(obs, dtype=torch.float32)
    legal = torch.as_tensor(masks, dtype=torch.bool)
    with torch.no_grad():
        some = policy.action_logits(x, masks)
        every = policy.action_logits(x)
    torch.testing.assert_close(some[legal], every[legal])
    assert bool((some[~legal] == 0).all())


def swap_columns(obs: np.ndarray, layout: object, i: int, k: int) -> np.ndarray:
    out = obs.copy()
    ci, ck = layout.column(i), layout.column(k)  # type: ignore[attr-defined]
    out[..., ci], out[..., ck] = obs[..., ck], obs[..., ci]
    fd = layout.face_down  # type: ignore[attr-defined]
    out[..., fd.start + i], out[..., fd.start + k] = obs[..., fd.start + k], obs[..., fd.start + i]
    return out


def action_permutation(rules: object, i: int, k: int) -> np.ndarray:
    """``perm[a]``: the action that does to the swapped columns what ``a`` does to these."""
    sigma = list(range(rules.n_columns))  # type: ignore[attr-defined]
    sigma[i], sigma[k] = k, i
    perm = np.zeros(rules.n_actions, dtype=np.int64)  # type: ignore[attr-defined]
    for a in range(rules.n_actions):  # type: ignore[attr-defined]
        move = rules.action_to_move(a)  # type: ignore[attr-defined]
        _, src, dst, _ = rules.decode(a)  # type: ignore[attr-defined]
        if src >= 0:
            move = move.replace(f"t{src}>", f"T{sigma[src]}>", 1)
        if dst >= 0:
            move = move.replace(f">t{dst}", f">T{sigma[dst]}", 1)
        perm[a] = rules.move_to_action(move.replace("T", "t"))  # type: ignore[attr-defined]
    return perm


@pytest.mark.parametrize(("variant", "i", "k"), [("Streets", 0, 3), ("NumberTen", 1, 8)])
def test_swapping_two_columns_permutes_the_logits_of_their_moves(
    variant: str, i: int, k: int
) -> None:
    """Weights shared across column pairs: the same move gets the same logit wherever it is."""
    env, policy = make_policy(variant)
    rules, layout = env.unwrapped.rules, env.unwrapped.layout
    obs, _, _ = positions(env, 8, seed=3)
    perm = action_permutation(rules, i, k)
    assert sorted(perm.tolist()) == list(range(rules.n_actions))
    assert (perm != np.arange(rules.n_actions)).sum() > 0
    with torch.no_grad():
        logits = policy.action_logits(torch.as_tensor(obs, dtype=torch.float32))
        swapped = policy.action_logits(
            torch.as_tensor(swap_columns(obs, layout, i, k), dtype=torch.float32)
        )
        values = policy.predict_values(torch.as_tensor(obs, dtype=torch.float32))
        swapped_values = policy.predict_values(
            torch.as_tensor(swap_columns(obs, layout, i, k), dtype=torch.float32)
        )
    torch.testing.assert_close(swapped[:, perm], logits, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(swapped_values, values, atol=1e-5, rtol=1e-5)
    # the permutation is not trivially satisfied: the logits do depend on the columns
    moved = perm != np.arange(rules.n_actions)
    assert float((logits[:, moved] - logits[:, perm[moved]]).abs().max()) > 1e-4


@pytest.mark.parametrize("variant", ["Streets", "NumberTen"])
def test_move_features_read_the_cards_the_engine_moves(variant: str) -> None:
    """Run lengths and the moved, uncovered and landed-on cards match the rules engine."""
    env, policy = make_policy(variant)
    rules = env.unwrapped.rules
    obs, masks, states = positions(env, 10, seed=4)
    enc = policy._encode(torch.as_tensor(obs))
    rows, acts = torch.as_tensor(masks, dtype=torch.bool).nonzero(as_tuple=True)
    table = enc["card_table"]
    moved = table[rows, policy.act_moved[acts]].tolist()
    uncovered = table[rows, policy.act_uncovered[acts]].tolist()
    lands_on = table[rows, policy.act_lands_on[acts]].tolist()
    checked = 0
    for r, a, mv, un, on in zip(
        rows.tolist(), acts.tolist(), moved, uncovered, lands_on, strict=True
    ):
        state = states[r]
        kind, src, dst, n = rules.decode(a)
        if kind in (COLUMN_TO_COLUMN, COLUMN_TO_FOUNDATION):
            col = state.tableau[src]
            assert mv == col[-n]
            face_up = col[state.face_down[src] :]
            assert un == (face_up[-n - 1] if len(face_up) > n else 0)
            checked += 1
        if kind == COLUMN_TO_COLUMN:
            assert on == (state.tableau[dst][-1] if state.tableau[dst] else 0)
    assert checked > 10
    for r, state in enumerate(states):
        for c in range(rules.n_columns):
            assert int(enc["run"][r, c]) == rules.sequence_length(state, c)
            assert int(enc["face_down"][r, c]) == state.face_down[c]


def test_save_load_round_trip_gives_identical_logits(tmp_path: Path) -> None:
    config = load_config(CONFIGS / "numberten.yaml", SMALL)
    env = make_training_vec_env(config)
    model = build_model(config, env, None)
    assert isinstance(model.policy, PlayerPolicy)
    obs = env.reset()
    masks = np.stack(env.env_method("action_masks"))
    model.save(tmp_path / "m.zip")
    loaded = MaskablePPO.load(tmp_path / "m.zip", device="cpu")
    env.close()
    assert isinstance(loaded.policy, PlayerPolicy)
    assert loaded.policy.column_dim == 8 and loaded.policy.scorer_arch == [8]
    x = torch.as_tensor(obs, dtype=torch.float32)
    with torch.no_grad():
        assert torch.equal(model.policy.action_logits(x), loaded.policy.action_logits(x))
        assert torch.equal(model.policy.predict_values(x), loaded.policy.predict_values(x))
    assert np.array_equal(
        model.predict(obs, action_masks=masks, deterministic=True)[0],
        loaded.predict(obs, action_masks=masks, deterministic=True)[0],
    )


def test_learn_smoke_run_changes_the_weights_and_evaluates(tmp_path: Path) -> None:
    config = load_config(STREETS, [*SMALL, "env.max_episode_steps=40"])
    env = make_training_vec_env(config)
    model = build_model(config, env, None)
    before = {k: v.clone() for k, v in model.policy.state_dict().items()}
    model.learn(total_timesteps=128)
    env.close()
    assert model.num_timesteps == 128
    after = model.policy.state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in before)
    model.fortythieves_variant = "Streets"
    model.save(tmp_path / "m.zip")
    agent, variant = load_model_agent(tmp_path / "m.zip")
    assert variant == "Streets" and isinstance(agent.model.policy, PlayerPolicy)
    # ModelAgent plays legal moves only (play_episode raises otherwise), each the argmax of
    # the masked logits; 40-step games keep the test short (evaluate_agents plays 1000).
    game = gym.make(fortythieves_env.env_id("Streets"), max_episode_steps=40)
    result = play_episode(game, agent, 2_000_000_000)
    assert result.length == 40 or result.foundation_cards > 0
    obs, info = game.reset(seed=2_000_000_000)
    action = agent.act(obs, game)
    x = torch.as_tensor(obs, dtype=torch.float32)[None]
    with torch.no_grad():
        logits = policy_logits(agent.model.policy, x)[0]
    logits[~torch.as_tensor(info["action_mask"], dtype=torch.bool)] = -torch.inf
    assert action == int(logits.argmax())
    sampled, _ = load_model_agent(tmp_path / "m.zip", "Streets", deterministic=False, seed=3)
    first = play_episode(game, sampled, 2_000_000_001)
    again, _ = load_model_agent(tmp_path / "m.zip", "Streets", deterministic=False, seed=3)
    assert play_episode(game, again, 2_000_000_001) == first  # seeded sampling


def test_player_is_the_default_and_policy_logits_serves_card_slots_too() -> None:
    assert load_config(STREETS).policy.network == "player"
    config = load_config(STREETS, [*SMALL, "policy.network=card_slots"])
    assert config.policy.network == "card_slots"
    env = make_training_vec_env(config)
    model = build_model(config, env, None)
    obs = env.reset()
    env.close()
    assert not isinstance(model.policy, PlayerPolicy)
    x = torch.as_tensor(obs, dtype=torch.float32)
    with torch.no_grad():
        expected = model.policy.get_distribution(x).distribution.logits
        got = torch.log_softmax(policy_logits(model.policy, x), dim=1)
    torch.testing.assert_close(got, expected)


def test_unknown_network_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"policy\.network"):
        load_config(STREETS, ["policy.network=transformer"])


def test_spaces_of_another_variant_are_refused() -> None:
    env = gym.make(fortythieves_env.env_id("Limited"))  # 12 columns
    with pytest.raises(ValueError, match="PlayerPolicy for Streets: expected a Box"):
        PlayerPolicy(env.observation_space, env.action_space, lambda _: 3e-4, variant="Streets")
    streets = gym.make(fortythieves_env.env_id("Streets"))
    with pytest.raises(ValueError, match="column_dim must be a positive integer"):
        PlayerPolicy(
            streets.observation_space,
            streets.action_space,
            lambda _: 3e-4,
            variant="Streets",
            column_dim=0,
        )


def test_the_player_network_trains_on_a_variant_without_a_stock(tmp_path: Path) -> None:
    """Issue 23.12: a custom variant with every card on the tableau (8 columns of 13 face
    up) has no waste slots in its observation, and the default network crashed reading the
    waste (``waste.gather``: index 0 out of bounds for dimension 1 with size 0). It reads an
    empty waste, and PPO trains and plays it."""
    from fortythieves_env import VariantSpec

    spec = VariantSpec("Open", "Open Forty", 8, 0, 13, "alternate_colour", True)
    env = fortythieves_env.FortyThievesEnv(spec, backend="python")
    assert env.layout.waste_slots == 0 and spec.stock_size == 0
    obs, masks, _ = positions(env, 4)
    torch.manual_seed(0)
    policy = PlayerPolicy(env.observation_space, env.action_space, lambda _: 3e-4, variant=spec)
    actions, values, log_prob = policy(torch.as_tensor(obs), action_masks=masks)
    assert actions.shape == (4,) and values.shape == (4, 1)
    assert all(masks[i, a] for i, a in enumerate(actions.tolist()))
    assert torch.isfinite(values).all() and torch.isfinite(log_prob).all()

    fields = "{id: Open, name: Open Forty, n_columns: 8, face_down: 0, face_up: 13, "
    fields += "build: alternate_colour, sequence_moves: true}"
    config = load_config(
        STREETS,
        [*SMALL, "env.variant=Open", f"env.custom_variant={fields}"],
    )
    venv = make_training_vec_env(config)
    model = build_model(config, venv, None)
    model.learn(total_timesteps=64)
    venv.close()
    assert model.num_timesteps == 64 and isinstance(model.policy, PlayerPolicy)


@pytest.mark.parametrize("variant", ["Limited", "LittleForty", "Lucas"])
def test_unseen_inputs_count_what_the_player_view_leaves_unseen(variant: str) -> None:
    """The unseen counts are the view's unseen multiset (stock and face-down cards; in Little
    Forty after a redeal the known stock counts as seen), the waste counts its cards, and
    each foundation's next card reads the same two tables."""
    from fortythieves_env.rules.cards import RANK, SUIT
    from fortythieves_env.rules.view import player_view

    env, policy = make_policy(variant, unseen_inputs=True)
    obs, _, states = positions(env, 12, seed=3)
    x = torch.as_tensor(obs).long()
    raw = policy._read(x)
    extra = raw["state_scalars"][:, -120:].numpy() * 2
    assert extra.shape == (12, 120)
    for row, state in zip(extra, states, strict=True):
        view = player_view(variant, state)
        unseen = np.bincount(np.asarray(view.unseen, dtype=int), minlength=53)[1:]
        waste = np.bincount(np.asarray(state.waste, dtype=int), minlength=53)[1:]
        assert np.array_equal(row[:52], unseen)
        assert np.array_equal(row[52:104], waste)
        for j, height in enumerate(state.foundations):
            card = (j // 2) * 13 + height  # the next card's index (code - 1)
            if height < 13:
                assert SUIT[card + 1] == j // 2 and RANK[card + 1] == height
                assert row[104 + j] == unseen[card] and row[112 + j] == waste[card]
            else:
                assert row[104 + j] == 0 and row[112 + j] == 0
    assert sum(int(row[:52].sum()) for row in extra) > 0  # some cards are unseen
    env.close()


def test_a_network_without_unseen_inputs_loads_into_one_with_them_and_plays_the_same() -> None:
    env, narrow = make_policy("Limited")
    _, wide = make_policy("Limited", unseen_inputs=True)
    obs, masks, _ = positions(env, 16, seed=5)
    x = torch.as_tensor(obs, dtype=torch.float32)
    with torch.no_grad():
        before = wide.action_logits(x, masks)
        wide.load_without_unseen(narrow.state_dict())
        assert not torch.equal(before, wide.action_logits(x, masks))  # weights were replaced
        assert torch.allclose(wide.action_logits(x, masks), narrow.action_logits(x, masks))
        assert torch.allclose(wide.predict_values(x), narrow.predict_values(x))
    first = wide.actor_encoder.state_encoder[0].weight
    assert first.shape[1] == narrow.actor_encoder.state_encoder[0].weight.shape[1] + 120
    assert torch.count_nonzero(first[:, -120:]) == 0
    with pytest.raises(ValueError, match="has no unseen_inputs"):
        narrow.load_without_unseen(narrow.state_dict())
    _, other = make_policy("Limited", column_dim=16)
    with pytest.raises(ValueError, match="not this network without them"):
        wide.load_without_unseen(other.state_dict())
    with pytest.raises(ValueError, match="not this network without them"):  # already wide
        wide.load_without_unseen(wide.state_dict())
    env.close()


def test_unseen_inputs_round_trip_through_a_saved_model(tmp_path: Path) -> None:
    config = load_config(CONFIGS / "numberten.yaml", [*SMALL, "policy.player.unseen_inputs=true"])
    env = make_training_vec_env(config)
    model = build_model(config, env, None)
    assert model.policy.unseen_inputs
    model.save(tmp_path / "m.zip")
    obs = env.reset()
    env.close()
    loaded = load_model_agent(tmp_path / "m.zip")[0].model  # through the safe loader
    assert loaded.policy.unseen_inputs
    x = torch.as_tensor(obs, dtype=torch.float32)
    with torch.no_grad():
        assert torch.equal(model.policy.action_logits(x), loaded.policy.action_logits(x))


def test_unseen_inputs_need_the_player_network() -> None:
    with pytest.raises(ConfigError, match="only the player network has them") as caught:
        load_config(
            CONFIGS / "numberten.yaml",
            ["policy.network=card_slots", "policy.player.unseen_inputs=true"],
        )
    assert "\n" not in str(caught.value)
