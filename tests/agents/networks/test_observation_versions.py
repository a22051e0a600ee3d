"""Observation version 1: what a player has seen and still knows (issue 9, point 4).

Little Forty (the variant with redeals) shows the stock's order once a redeal has happened;
version 0 (``-v0``) still shows only its size. Every backend's observation is the player's
view written out (:func:`fortythieves_env.rules.view.encode_view`), so nothing hidden gets in.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from helpers import CONFIGS
from positions import shuffle_hidden

import fortythieves_env
from configs import PLAIN
from fortythieves_env import VARIANTS, FortyThievesEnv, VariantSpec, register_variant
from fortythieves_env.envs.vector import FortyThievesVectorEnv
from fortythieves_env.rules import core
from fortythieves_env.rules.cards import card_code
from fortythieves_env.rules.engine import rules_for
from fortythieves_env.rules.observation import ObservationLayout, check_version
from fortythieves_env.rules.view import encode_view

REDEALS_TWO = VariantSpec(
    "RedealsTwo", "Redeals Two", n_columns=10, face_down=2, face_up=2,
    build="alternate_colour", sequence_moves=True, deal_count=2, redeals=2,
)  # fmt: skip
"""A custom variant with face-down cards and redeals: the stock gets known, they do not."""


def _play_through_redeals(rng: np.random.Generator, mask: np.ndarray, rules: Any) -> int:
    """A random legal action, three times in four ``draw`` or ``redeal`` when legal (so a
    game of a few hundred steps reaches every redeal)."""
    legal = np.flatnonzero(mask)
    stock_moves = [a for a in (0, 1) if mask[a]]
    if stock_moves and rng.random() < 0.75:
        return stock_moves[0]
    return int(rng.choice(legal))


@pytest.mark.parametrize("variant", ["LittleForty", REDEALS_TWO])
@pytest.mark.usefixtures("backend")
def test_the_observation_is_the_player_view_written_out(variant: str | VariantSpec) -> None:
    """v1 and v0 on both backends: at every step the observation equals the encoding of
    ``player_view`` alone; v1 shows the stock exactly after the first redeal, v0 never."""
    spec = fortythieves_env.get_variant(variant)
    rules = rules_for(spec)
    envs = {v: FortyThievesEnv(spec, observation_version=v) for v in (0, 1)}
    rng = np.random.default_rng(3)
    redealt = shown = 0
    for seed in range(3):
        obs = {v: env.reset(seed=seed)[0] for v, env in envs.items()}
        for _ in range(400):
            env = envs[1]
            view = env.player_view()
            for v, e in envs.items():
                np.testing.assert_array_equal(obs[v], encode_view(e.layout, view))
            lay = envs[1].layout
            known = obs[1][lay.known_stock]
            state = env.state
            if state.redeals_left < spec.redeals:
                assert known[: len(state.stock)].tolist() == state.stock[::-1]
                assert not known[len(state.stock) :].any()
                redealt += 1
                shown += len(state.stock) > 0
            else:
                assert not known.any()  # the stock's order is not known yet
            np.testing.assert_array_equal(obs[0], _drop_known(obs[1], lay))
            a = _play_through_redeals(rng, env.action_masks(), rules)
            results = {v: e.step(a) for v, e in envs.items()}
            obs = {v: r[0] for v, r in results.items()}
            if results[1][2]:
                break
    assert redealt > 100 and shown > 50  # the games went through redeals with cards left


def _drop_known(obs: np.ndarray, layout: ObservationLayout) -> np.ndarray:
    """A v1 observation without its known-stock slots: the v0 observation."""
    return np.delete(obs, np.arange(layout.known_stock.start, layout.known_stock.stop))


def test_the_vector_env_writes_the_same_v1_observations() -> None:
    """The batched env's rows (its own kernel loop) equal the single env's, through redeals."""
    spec = VARIANTS["LittleForty"]
    rules = rules_for(spec)
    venv = FortyThievesVectorEnv("LittleForty", 3)
    singles = [FortyThievesEnv("LittleForty", backend="numba") for _ in range(3)]
    obs, info = venv.reset(seed=10)
    for i, env in enumerate(singles):
        np.testing.assert_array_equal(obs[i], env.reset(seed=10 + i)[0])
    rng = np.random.default_rng(0)
    known_rows = 0
    for _ in range(300):
        masks = info["action_mask"]
        actions = np.array([_play_through_redeals(rng, m, rules) for m in masks])
        obs, _, terminated, truncated, info = venv.step(actions)
        assert not (terminated | truncated).any()  # 300 steps: no game of these deals ends
        for i, env in enumerate(singles):
            row = env.step(int(actions[i]))[0]
            np.testing.assert_array_equal(obs[i], row)
            np.testing.assert_array_equal(row, encode_view(env.layout, env.player_view()))
            known_rows += bool(row[env.layout.known_stock].any())
    assert known_rows > 100


def test_the_views_decide_the_observation_not_the_hidden_cards() -> None:
    """Two positions that differ only in their unseen cards give the same v1 observation and
    the same view hash; after a redeal the stock is no longer unseen, so it counts."""
    register_variant(REDEALS_TWO)
    env = FortyThievesEnv(REDEALS_TWO, backend="numba")
    env.reset(seed=5)
    tables = core.tables_for(REDEALS_TWO)
    rng = np.random.default_rng(1)
    for phase in ("before the redeal", "after the redeal"):
        pos = env.get_state()
        other = FortyThievesEnv(REDEALS_TWO, backend="numba")
        shuffled = {
            **pos,
            "tableau": [list(c) for c in pos["tableau"]],
            "stock": list(pos["stock"]),
        }
        shuffle_hidden(shuffled, rng, REDEALS_TWO)
        assert shuffled != pos, phase
        obs = other.reset(options={"state": shuffled})[0]
        np.testing.assert_array_equal(obs, encode_view(env.layout, env.player_view()), phase)
        h1 = core.view_hash(tables.pack(env.state), tables.table)
        h2 = core.view_hash(tables.pack(other.state), tables.table)
        assert h1 == h2, phase
        assert core.position_hash(tables.pack(env.state), tables.table) != core.position_hash(
            tables.pack(other.state), tables.table
        )
        while env.player_view().stock_size:
            env.step(0)
        env.step(1)  # redeal: the stock is the waste turned over, known
    # a known stock in another order is another view
    st = tables.pack(env.state)
    swapped = st.copy()
    s0 = tables.stock0
    assert st[s0] != st[s0 + 1]
    swapped[s0], swapped[s0 + 1] = st[s0 + 1], st[s0]
    assert core.view_hash(st, tables.table) != core.view_hash(swapped, tables.table)


def test_ids_and_versions() -> None:
    """-v0 and -v1 of Little Forty, and of a custom variant with redeals; -v0 only without."""
    v0 = gym.make("FortyThieves/LittleForty-v0")
    v1 = gym.make("FortyThieves/LittleForty-v1")
    assert v0.unwrapped.observation_version == 0 and v1.unwrapped.observation_version == 1
    spec = VARIANTS["LittleForty"]
    size0 = spec.n_columns * spec.max_visible + spec.stock_size + 10 + spec.n_columns
    assert v0.observation_space.shape == (size0,)
    assert v1.observation_space.shape == (size0 + spec.stock_size,)
    assert v1.unwrapped.layout.n_card_slots == v0.unwrapped.layout.n_card_slots + 64
    assert (v1.observation_space.high[v1.unwrapped.layout.known_stock] == 52).all()
    for version in (0, 1):
        venv = gym.make_vec(
            f"FortyThieves/LittleForty-v{version}", 2, vectorization_mode="vector_entry_point"
        )
        assert venv.unwrapped.observation_version == version
        assert venv.single_observation_space == (v0, v1)[version].observation_space
    id_ = register_variant(REDEALS_TWO)
    assert id_ == "FortyThieves/RedealsTwo-v1" and id_.version == 1
    assert "FortyThieves/RedealsTwo-v0" in gym.registry
    back = pickle.loads(pickle.dumps(fortythieves_env.VariantId(REDEALS_TWO, 0)))
    assert back == "FortyThieves/RedealsTwo-v0" and back.version == 0
    plain = VariantSpec("NoRedeal", "No Redeal", 8, 0, 4, "same_suit", False)
    assert register_variant(plain) == "FortyThieves/NoRedeal-v0"
    assert "FortyThieves/NoRedeal-v1" not in gym.registry
    # without redeals version 1 is version 0, entry for entry
    for name in VARIANTS:
        if not VARIANTS[name].redeals:
            a, b = (FortyThievesEnv(name, observation_version=v) for v in (0, 1))
            np.testing.assert_array_equal(a.reset(seed=4)[0], b.reset(seed=4)[0])
    # a NumPy integer is an integer (read from an array or a config), returned as int
    assert check_version(np.int64(1)) == 1 and type(check_version(np.int64(1))) is int
    for bad in (2, -1, "1", True, np.bool_(True), None):
        with pytest.raises(ValueError, match="observation_version must be one of 0, 1"):
            check_version(bad)
        with pytest.raises(ValueError, match="observation_version"):
            FortyThievesEnv("LittleForty", observation_version=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("id_", "version", "use"),
    [
        ("FortyThieves/LittleForty-v0", 1, r"make 'FortyThieves/LittleForty-v1' instead"),
        ("FortyThieves/LittleForty-v1", 0, r"make 'FortyThieves/LittleForty-v0' instead"),
        ("FortyThieves/Streets-v0", 1, r"'FortyThieves/Streets-v1' is not registered"),
    ],
)
def test_an_observation_version_contradicting_the_id_is_refused(
    id_: str, version: int, use: str
) -> None:
    """``gym.make`` and every ``make_vec`` mode refuse it, naming the id to use."""
    message = (
        rf"{id_} is observation version {1 - version}, but observation_version={version} "
        rf"was passed: the id names the observation, so it cannot be overridden; {use}"
    )
    with pytest.raises(ValueError, match=message):
        gym.make(id_, observation_version=version)
    for mode in ("vector_entry_point", "sync"):
        with pytest.raises(ValueError, match=message):
            gym.make_vec(id_, 2, vectorization_mode=mode, observation_version=version)


def test_an_observation_version_agreeing_with_the_id_is_accepted() -> None:
    for version in (0, 1):
        id_ = f"FortyThieves/LittleForty-v{version}"
        env = gym.make(id_, observation_version=version)
        assert (env.spec.id, env.unwrapped.observation_version) == (id_, version)
        back = pickle.loads(pickle.dumps(env))
        assert back.unwrapped.spec == env.unwrapped.spec and back.spec.id == id_
        assert gym.make(env.spec).unwrapped.observation_version == version
        venv = gym.make_vec(id_, 2, vectorization_mode="vector_entry_point")
        assert (venv.spec.id, venv.observation_version) == (id_, version)
    # the classes themselves take either version: only the id fixes it
    assert FortyThievesEnv("LittleForty", observation_version=0).spec is None
    assert FortyThievesVectorEnv("LittleForty", 2, observation_version=0).spec is None


def test_layout_for_size_finds_the_version() -> None:
    spec = VARIANTS["LittleForty"]
    for version in (0, 1):
        layout = ObservationLayout.for_variant(spec, version)
        assert ObservationLayout.for_size(spec, layout.size) == layout
    with pytest.raises(ValueError, match="LittleForty observations have 244 or 308 entries"):
        ObservationLayout.for_size(spec, 245)
    assert card_code("AC") == 1  # card codes as the index table says


def test_evaluate_refuses_a_model_made_for_the_other_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Little Forty model records its env id; evaluate plays the newest id (-v1) unless
    told otherwise and refuses a model of the other version, naming both ids on one line.
    A model saved before the env id was recorded counts as -v0 (the only version then)."""
    from fortythieves_agents.cli.main import main
    from fortythieves_agents.evaluation.evaluate import load_model_agent
    from fortythieves_agents.networks.model_zip import ModelMismatchError, model_env_id
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    for version in (0, 1):
        id_ = f"FortyThieves/LittleForty-v{version}"
        venv = DummyVecEnv([lambda id_=id_: gym.make(id_)])
        model = MaskablePPO("MlpPolicy", venv, policy_kwargs={"net_arch": [8]}, device="cpu")
        model.fortythieves_variant = "LittleForty"
        model.fortythieves_env_id = id_
        model.save(tmp_path / f"v{version}.zip")
        if version == 0:
            del model.fortythieves_env_id
            model.save(tmp_path / "old.zip")
        venv.close()
    assert model_env_id(tmp_path / "old.zip") == "FortyThieves/LittleForty-v0"
    for name in ("v0", "old"):
        with pytest.raises(
            ModelMismatchError,
            match="model made for FortyThieves/LittleForty-v0, refusing to evaluate it on "
            "FortyThieves/LittleForty-v1",
        ):
            load_model_agent(tmp_path / f"{name}.zip")
        assert load_model_agent(tmp_path / f"{name}.zip", env_version=0)[1] == "LittleForty"
    with pytest.raises(
        ModelMismatchError,
        match="made for FortyThieves/LittleForty-v1, refusing to evaluate it on "
        "FortyThieves/LittleForty-v0",
    ):
        load_model_agent(tmp_path / "v1.zip", env_version=0)
    assert load_model_agent(tmp_path / "v1.zip")[1] == "LittleForty"
    args = ["--episodes", "1", "--baselines", "--no-progress"]
    assert main(["evaluate", str(tmp_path / "v0.zip"), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "LittleForty-v0" in err and "LittleForty-v1" in err
    assert "--env-version 0" in err and "Traceback" not in err
    assert main(["evaluate", str(tmp_path / "v0.zip"), "--env-version", "0", *args]) == 0
    assert "FortyThieves/LittleForty" in capsys.readouterr().out
    assert main(["evaluate", "greedy", "--variant", "Maria", "--env-version", "1", *args]) == 2
    assert "Maria has no id version 1" in capsys.readouterr().err


@pytest.mark.parametrize("network", ["card_slots", "player"])
def test_both_networks_take_the_v1_observation(network: str) -> None:
    """The shipped Little Forty config trains on -v1: the card-slot extractor one-hots the
    known-stock slots as card codes, the player network reads the v1 layout."""
    import torch
    from fortythieves_agents.config import load_config
    from fortythieves_agents.envs import make_training_vec_env, n_card_slots
    from fortythieves_agents.evaluation.evaluate import ModelAgent
    from fortythieves_agents.training.train import build_model

    overrides = [
        *PLAIN,
        f"policy.network={network}",
        "train.n_envs=1",
        "ppo.n_steps=16",
        "ppo.batch_size=16",
        "train.tensorboard=false",
        "train.progress_bar=false",
    ]
    config = load_config(CONFIGS / "littleforty.yaml", overrides)
    env = make_training_vec_env(config)
    try:
        assert env.get_attr("spec", indices=[0])[0].id == "FortyThieves/LittleForty-v1"
        layout = ObservationLayout.for_variant(VARIANTS["LittleForty"], 1)
        assert n_card_slots(env) == layout.n_card_slots == layout.known_stock.stop
        model = build_model(config, env, None)
        if network == "card_slots":
            assert model.policy.features_extractor.n_card_slots == layout.n_card_slots
        obs = env.reset()
        agent = ModelAgent(model)
        masks = np.array(env.env_method("action_masks"), dtype=np.int8)
        scores = agent.action_scores(obs, masks, np.zeros(1, dtype=np.int64))
        assert np.isfinite(scores[masks == 1]).all() and np.isneginf(scores[masks == 0]).all()
        with torch.no_grad():
            assert agent.act_batch(obs, masks, np.zeros(1, dtype=np.int64))[0] == np.argmax(scores)
    finally:
        env.close()
