"""``train.vec_env: batched``: the SB3 adapter over the vector env (issue 8, point 3)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fortythieves_agents.config import load_config
from fortythieves_agents.envs import BatchedVecEnv, make_training_vec_env, n_card_slots
from fortythieves_agents.seeds import is_training_seed
from helpers import STREETS
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

from configs import PLAIN

SMALL = [
    *PLAIN,
    "train.n_envs=3",
    "ppo.n_steps=32",
    "ppo.batch_size=32",
    "ppo.n_epochs=1",
    "policy.features_dim=16",
    "policy.net_arch_pi=[16]",
    "policy.net_arch_vf=[16]",
    "train.progress_bar=false",
]


def _same(a: Any, b: Any, where: str) -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), (where, a.keys(), b)
        for key in a:
            if key != "t":  # Monitor's wall-clock time
                _same(a[key], b[key], f"{where}[{key}]")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), (where, a, b)
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype, (where, a, b)
        np.testing.assert_array_equal(a, b, err_msg=where)
    else:
        assert type(a) is type(b) and a == b, (where, a, b)


@pytest.mark.parametrize(
    "extra",
    [
        ["env.max_episode_steps=40"],  # many step-limit truncations
        ["env.max_steps_without_progress=6"],  # the no-progress truncation
        ["env.variant=LittleForty", "env.max_episode_steps=90", "env.illegal_action_penalty=0.5"],
        [  # training-only shaping, as PotentialShaping outside Monitor gives it
            "env.variant=NumberTen",
            "env.max_episode_steps=40",
            "train.shaping={face_down: 1.0, empty_columns: 2.0, built_runs: 0.5}",
        ],
    ],
)
def test_batched_gives_what_dummy_gives_for_the_same_deals_and_actions(extra: list[str]) -> None:
    dummy = make_training_vec_env(load_config(STREETS, [*SMALL, *extra, "seed=4"]))
    batched = make_training_vec_env(
        load_config(STREETS, [*SMALL, *extra, "seed=4", "train.vec_env=batched"])
    )
    assert isinstance(batched, BatchedVecEnv)
    assert n_card_slots(batched) == n_card_slots(dummy)
    assert batched.get_attr("spec", [0])[0].id == dummy.get_attr("spec", [0])[0].id
    rng = np.random.default_rng(0)
    ended = 0
    for round_ in range(2):
        if round_:  # SB3's VecEnv.seed (MaskablePPO(seed=...)) re-seeds the deal generators
            dummy.seed(11)
            batched.seed(11)
        _same(dummy.reset(), batched.reset(), "reset obs")
        _same(dummy.unwrapped.reset_infos, batched.reset_infos, "reset_infos")
        for t in range(150):
            masks = get_action_masks(batched)
            _same(get_action_masks(dummy), masks, f"masks {t}")
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            if t % 17 == 0:
                actions[0] = int(np.argmin(masks[0]))  # an illegal action now and then
            a, b = dummy.step(actions), batched.step(actions)
            for k, name in enumerate(("obs", "rewards", "dones", "infos")):
                if name != "infos":
                    _same(a[k], b[k], f"step {t} {name}")
            for i, (x, y) in enumerate(zip(a[3], b[3], strict=True)):
                _same(x, y, f"step {t} info {i}")
            ended += int(b[2].sum())
            _same(dummy.unwrapped.reset_infos, batched.reset_infos, f"reset_infos {t}")
    assert ended >= 6
    assert all(is_training_seed(info["deal_seed"]) for info in batched.reset_infos)
    dummy.close()
    batched.close()


def test_masks_are_one_array_per_step_and_masking_is_supported() -> None:
    env = make_training_vec_env(load_config(STREETS, [*SMALL, "train.vec_env=batched"]))
    env.reset()
    assert is_masking_supported(env)
    rows = env.env_method("action_masks")
    assert len(rows) == 3 and all(r.base is rows[0].base for r in rows)
    np.testing.assert_array_equal(np.stack(rows), env.venv.action_masks())
    assert env.env_method("action_masks", indices=[2])[0].tolist() == rows[2].tolist()
    with pytest.raises(AttributeError, match="no per-game method 'rewind'"):
        env.env_method("rewind")
    env.close()


def test_maskable_ppo_learns_on_the_batched_env_with_validation(tmp_path: Path) -> None:
    """A short MaskablePPO run on ``batched`` with the validation callback, no warning."""
    from fortythieves_agents.cli.main import main

    run = tmp_path / "run"
    overrides = [*SMALL, "train.vec_env=batched", "env.max_episode_steps=40"]
    overrides += ["train.total_timesteps=192", "eval.eval_freq=96", "eval.n_eval_episodes=2"]
    overrides += ["eval.final_episodes=2", "eval.baselines=[]", "train.checkpoint_freq=0"]
    argv = ["train", str(STREETS), "--run-dir", str(run)]
    for o in overrides:
        argv += ["--set", o]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(argv) == 0
    evaluations = np.load(run / "eval" / "evaluations.npz")
    assert evaluations["timesteps"].tolist() == [96, 192]
    assert evaluations["ep_lengths"].shape == (2, 2)  # two validation deals each time
    assert (run / "models" / "final_model.zip").is_file()


def test_maskable_ppo_reads_monitor_records_from_the_batched_env() -> None:
    from fortythieves_agents.training.train import build_model

    config = load_config(STREETS, [*SMALL, "train.vec_env=batched", "env.max_episode_steps=30"])
    env = make_training_vec_env(config)
    model = build_model(config, env, None)
    model.learn(total_timesteps=192)
    assert model.num_timesteps == 192
    episodes = list(model.ep_info_buffer)
    assert len(episodes) >= 3 * (192 // (3 * 30)) - 3  # every game ended at the step limit
    for record in episodes:
        assert record["l"] == 30 and 0 <= record["foundation_cards"] <= 104
        assert record["is_success"] is False
        # masked: never an illegal action, so the return is the cards' rewards alone
        assert record["r"] == pytest.approx(record["foundation_cards"] * config.env.reward_per_card)
    env.close()


def test_maskable_ppo_learns_exactly_the_same_on_batched_as_on_dummy() -> None:
    """Same seed, same data: the adapter returns what DummyVecEnv returns, so MaskablePPO's
    updates are the same, parameter for parameter (the 200k/500k comparison of issue 8
    then measures speed; learning can only differ through torch's own non-determinism)."""
    import torch
    from fortythieves_agents.training.train import build_model

    params = []
    for vec_env in ("dummy", "batched"):
        overrides = [*SMALL, f"train.vec_env={vec_env}", "env.max_episode_steps=30", "seed=9"]
        config = load_config(STREETS, overrides)
        env = make_training_vec_env(config)
        model = build_model(config, env, None)
        model.learn(total_timesteps=192)
        params.append([p.detach().clone() for p in model.policy.parameters()])
        env.close()
    assert len(params[0]) == len(params[1]) > 4
    for a, b in zip(*params, strict=True):
        assert torch.equal(a, b)


def test_training_with_the_no_cycling_rule_never_returns_to_a_view_and_ends_stuck_games() -> None:
    """``train.no_cycling``: the masks offer only moves to views not seen in the episode
    (checked here with the rules' own apply and view hash, one game at a time), a game with
    legal moves but no new one ends as a terminal step (``stuck``, not a truncation) with its
    last observation, and is dealt its next training deal at once."""
    from fortythieves_env.rules import core

    config = load_config(
        STREETS, [*SMALL, "train.vec_env=batched", "train.no_cycling=true", "train.n_envs=4"]
    )
    env = make_training_vec_env(config)
    base = env.venv.unwrapped
    tb = base.tables.table
    obs = env.reset()
    seen = [{int(core.view_hash(base.states[i], tb))} for i in range(4)]
    rng = np.random.default_rng(5)
    stuck_games = 0
    for _ in range(3000):
        masks = np.stack(env.env_method("action_masks"))
        legal = base.action_masks()  # the rule book's legal moves
        before = base.states.copy()
        for i in range(4):
            assert masks[i].any()
            for a in np.flatnonzero(legal[i]):
                after = before[i].copy()
                core.apply(after, tb, np.int64(a))
                assert bool(masks[i, a]) == (int(core.view_hash(after, tb)) not in seen[i])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        last_obs = obs.copy()
        obs, _, dones, infos = env.step(actions)
        for i in range(4):
            old = seen[i]
            if not dones[i]:
                h = int(core.view_hash(base.states[i], tb))
                assert h not in seen[i]  # never back to a view of the episode
                seen[i].add(h)
                continue
            seen[i] = {int(core.view_hash(base.states[i], tb))}  # the next deal
            assert is_training_seed(env.reset_infos[i]["deal_seed"])
            if infos[i].get("stuck"):
                stuck_games += 1
                assert infos[i]["TimeLimit.truncated"] is False
                after = before[i].copy()
                core.apply(after, tb, np.int64(actions[i]))
                views = old | {int(core.view_hash(after, tb))}
                moves = np.zeros(2000, dtype=np.int64)
                n = core.legal_actions(after, tb, moves)
                assert n > 0  # legal moves remain: the rule ended the game, not the rules
                for a in moves[:n]:  # every one leads back to a view of the episode
                    nxt = after.copy()
                    core.apply(nxt, tb, np.int64(a))
                    assert int(core.view_hash(nxt, tb)) in views
                terminal = infos[i]["terminal_observation"]
                assert not np.array_equal(terminal, last_obs[i])  # the position after the move
                assert infos[i]["episode"]["foundation_cards"] == infos[i]["foundation_cards"]
    assert stuck_games > 0
    env.close()


def test_no_cycling_in_training_needs_the_batched_env() -> None:
    from fortythieves_agents.config import ConfigError

    with pytest.raises(ConfigError, match=r"train\.no_cycling needs train\.vec_env: batched"):
        load_config(STREETS, [*SMALL, "train.vec_env=dummy", "train.no_cycling=true"])


def test_a_stall_ends_the_game_only_with_stall_ends_game() -> None:
    """``train.stall_ends_game``: a game cut by the no-progress truncation is reported as
    ended, not ``TimeLimit.truncated`` (so SB3 bootstraps nothing after it); a cut by the
    step limit stays a time-limit truncation. Without the option both are truncations. The
    same actions give the same games either way."""
    from fortythieves_agents.config import ConfigError

    ends: dict[bool, list[tuple[int, int, bool]]] = {}
    for flag in (False, True):
        config = load_config(
            STREETS,
            [
                *SMALL,
                "env.max_steps_without_progress=6",
                "env.max_episode_steps=25",
                f"train.stall_ends_game={str(flag).lower()}",
            ],
        )
        env = make_training_vec_env(config)
        env.reset()
        rng = np.random.default_rng(0)
        lengths = np.zeros(env.num_envs, dtype=np.int64)
        ends[flag] = []
        for step in range(200):
            masks = np.array(env.env_method("action_masks"))
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            _, _, dones, infos = env.step(actions)
            lengths += 1
            for i in np.flatnonzero(dones):
                ends[flag].append((step, int(lengths[i]), infos[i]["TimeLimit.truncated"]))
                lengths[i] = 0
        env.close()
    assert [e[:2] for e in ends[True]] == [e[:2] for e in ends[False]]
    stalls = [e for e in ends[True] if e[1] < 25]
    limits = [e for e in ends[True] if e[1] == 25]
    assert stalls and limits  # both kinds of cut happen
    assert not any(e[2] for e in stalls) and all(e[2] for e in limits)
    assert all(e[2] for e in ends[False])  # random play wins no game: every end is a cut
    with pytest.raises(ConfigError, match=r"train\.stall_ends_game needs train\.vec_env"):
        load_config(STREETS, [*SMALL, "train.vec_env=dummy", "train.stall_ends_game=true"])
    with pytest.raises(ConfigError, match=r"needs env\.max_steps_without_progress"):
        load_config(
            STREETS, [*SMALL, "env.max_steps_without_progress=null", "train.stall_ends_game=true"]
        )


def test_maskable_ppo_trains_under_the_no_cycling_rule(tmp_path: Path) -> None:
    from fortythieves_agents.training.train import build_model

    config = load_config(
        STREETS, [*SMALL, "train.vec_env=batched", "train.no_cycling=true", "seed=2"]
    )
    env = make_training_vec_env(config)
    model = build_model(config, env, None)
    model.learn(total_timesteps=384)
    assert model.num_timesteps == 384
    assert len(model.ep_info_buffer) > 0  # random-ish play gets stuck well within 384 steps
    env.close()
