"""Potential-based reward shaping (fortythieves_agents.shaping): the potential, the telescoping sum, config."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from fortythieves_agents.config import ConfigError, load_config
from fortythieves_agents.envs import make_training_vec_env
from fortythieves_agents.shaping import Potential, PotentialShaping
from helpers import STREETS
from positions import position

import fortythieves_env
from configs import PLAIN

WEIGHTS = {"face_down": 1.0, "empty_columns": 2.5, "built_runs": 0.5}


def shaped(variant: str, gamma: float = 0.99, **make: object) -> gym.Env:
    return PotentialShaping(gym.make(fortythieves_env.env_id(variant), **make), gamma, **WEIGHTS)


def play(env: gym.Env, seed: int) -> tuple[list[float], list[float], float, bool]:
    """Random legal play to the end: shaping terms, env rewards, Phi(s_0), terminated."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    phi0 = env.potential(obs)
    terms, rewards = [], []
    while True:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        terms.append(info["shaping"])
        rewards.append(float(reward) - info["shaping"])
        if terminated or truncated:
            return terms, rewards, phi0, terminated


@pytest.mark.parametrize(("variant", "gamma"), [("RankAndFile", 0.99), ("Indian", 0.995)])
def test_shaping_terms_telescope_to_minus_phi_of_the_deal(variant: str, gamma: float) -> None:
    """sum_t gamma^t F_t == gamma^T Phi(s_T) - Phi(s_0), with Phi(s_T) = 0 at the end."""
    env = shaped(variant, gamma, max_episode_steps=300)
    for seed in range(3):
        terms, _, phi0, _ = play(env, seed)
        discounted = sum(gamma**t * f for t, f in enumerate(terms))
        assert discounted == pytest.approx(-phi0, rel=1e-12, abs=1e-9)
        assert any(f != 0 for f in terms)


def test_telescoping_holds_for_a_terminated_episode_too() -> None:
    """A won game: the last step (onto the foundation) ends with Phi = 0."""
    env = PotentialShaping(gym.make(fortythieves_env.env_id("Streets")), 0.9, **WEIGHTS)
    pos = position("Streets", [["KH"]])
    obs, _ = env.reset(options={"state": pos})
    phi0 = env.potential(obs)
    assert phi0 == pytest.approx(2.5 * 9)  # nine empty columns
    _, reward, terminated, truncated, info = env.step(env.unwrapped.move_to_action("t0>f"))
    assert terminated and not truncated and info["is_success"]
    assert info["shaping"] == pytest.approx(-phi0)
    assert reward == pytest.approx(1.0 + 10.0 - phi0)


def test_reward_is_the_game_reward_plus_the_shaping_term() -> None:
    plain = gym.make(fortythieves_env.env_id("NumberTen"), max_episode_steps=200)
    env = shaped("NumberTen", max_episode_steps=200)
    terms, rewards, _, _ = play(env, 7)
    rng = np.random.default_rng(7)
    _, info = plain.reset(seed=7)
    expected = []
    for _ in terms:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, reward, _, _, info = plain.step(action)
        expected.append(float(reward))
    assert rewards == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("variant", ["NumberTen", "Streets", "Indian", "Lucas"])
def test_potential_parts_agree_with_the_rules_engine(variant: str) -> None:
    env = gym.make(fortythieves_env.env_id(variant), backend="python")
    potential = Potential(env, **WEIGHTS)
    rules, spec = env.unwrapped.rules, env.unwrapped.variant
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=3)
    seen_runs = 0
    for _ in range(300):
        state = env.unwrapped.state
        up, empty, runs = potential.parts(obs)
        assert up == spec.face_down * spec.n_columns - sum(state.face_down)
        assert empty == sum(1 for col in state.tableau if not col)
        assert runs == sum(
            max(rules.sequence_length(state, c) - 1, 0) for c in range(spec.n_columns)
        )
        seen_runs = max(seen_runs, runs)
        obs, _, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(info["action_mask"])))
        )
        if terminated or truncated:
            obs, info = env.reset(seed=int(rng.integers(1000)))
    assert seen_runs > 0


def test_potential_of_a_hand_built_position() -> None:
    # Number Ten (alternate colour): t0 = 9C face down, then 8D 7S 6H face up: a run of 3, of
    # which 2 cards lie on another; t1 = KS alone (0); t3 = 2C face down under 5H (0); t2,
    # t4..t9 empty.
    env = gym.make(fortythieves_env.env_id("NumberTen"), backend="python")
    pos = position("NumberTen", [["9C", "8D", "7S", "6H"], ["KS"], [], ["2C", "5H"]])
    pos["face_down"] = [1, 0, 0, 1, 0, 0, 0, 0, 0, 0]
    obs, _ = env.reset(options={"state": pos})
    potential = Potential(env, **WEIGHTS)
    # dealt face down: 2 per column, 20; 2 left; empty: t2 and t4..t9 = 7
    assert potential.parts(obs) == (18, 7, 2)
    assert potential(obs) == pytest.approx(18 * 1.0 + 7 * 2.5 + 2 * 0.5)


@pytest.mark.parametrize("vec_env", ["dummy", "batched"])
def test_training_envs_are_shaped_only_when_configured(vec_env: str) -> None:
    base = [
        *PLAIN,
        f"train.vec_env={vec_env}",
        "train.n_envs=2",
        "ppo.n_steps=32",
        "ppo.batch_size=32",
        "ppo.gamma=0.97",
    ]
    plain = make_training_vec_env(load_config(STREETS, base))
    plain.reset()
    _, _, _, infos = plain.step(np.zeros(2, dtype=np.int64))  # draw
    assert not any("shaping" in info for info in infos)
    if vec_env == "dummy":
        assert not any(isinstance(e, PotentialShaping) for e in plain.venv.envs)
    plain.close()
    config = load_config(
        STREETS,
        [*base, "train.shaping={face_down: 1.0, built_runs: 0.5}"],
    )
    assert config.train.shaping is not None and config.train.shaping.empty_columns == 0.0
    venv = make_training_vec_env(config)
    if vec_env == "dummy":
        envs = venv.venv.envs
        assert all(isinstance(e, PotentialShaping) for e in envs)
        assert envs[0].gamma == 0.97 and envs[0].potential.weights == (1.0, 0.0, 0.5)
    obs0 = venv.reset()
    obs1, rewards, _, infos = venv.step(np.zeros(2, dtype=np.int64))  # draw: no card goes up
    potential = Potential(gym.make("FortyThieves/Streets-v0"), face_down=1.0, built_runs=0.5)
    expected = [0.97 * potential(obs1[i]) - potential(obs0[i]) for i in range(2)]
    assert [info["shaping"] for info in infos] == pytest.approx(expected)
    assert rewards.tolist() == pytest.approx(expected)  # the draw's own reward is 0
    venv.close()


def test_bad_shaping_settings_are_refused() -> None:
    env = gym.make(fortythieves_env.env_id("Streets"))
    with pytest.raises(ValueError, match=r"gamma must be in \(0, 1\]"):
        PotentialShaping(env, 0.0, face_down=1.0)
    with pytest.raises(ValueError, match="shaping weight built_runs must be a finite number"):
        PotentialShaping(env, 0.99, built_runs=float("nan"))
    with pytest.raises(ConfigError, match=r"train\.shaping\.face_downs: unknown key"):
        load_config(STREETS, ["train.shaping={face_downs: 1.0}"])
    with pytest.raises(ConfigError, match=r"train\.shaping\.empty_columns"):
        load_config(STREETS, ["train.shaping.empty_columns=.inf"])


def test_a_shaped_training_run_is_evaluated_on_the_unshaped_game(tmp_path: Path) -> None:
    """Training rewards carry the shaping terms; the final evaluation's returns do not."""
    from fortythieves_agents.training.train import train

    config = load_config(
        STREETS,
        [
            *PLAIN,
            "train.n_envs=2",
            "ppo.n_steps=32",
            "ppo.batch_size=32",
            "ppo.n_epochs=1",
            "train.total_timesteps=64",
            "train.tensorboard=false",
            "train.progress_bar=false",
            "train.checkpoint_freq=0",
            "eval.eval_freq=0",
            "eval.final_episodes=2",
            "eval.baselines=[]",
            "train.shaping={face_down: 5.0, empty_columns: 5.0, built_runs: 5.0}",
        ],
    )
    from rich.console import Console

    result = train(config, run_dir=tmp_path / "run", argv=["test"], console=Console(quiet=True))
    ppo = result.evaluation["results"]["ppo"]
    assert ppo["wins"] == 0
    # the game's own return: one point per foundation card, nothing else
    assert ppo["mean_return"] == pytest.approx(ppo["mean_foundation_cards"])
