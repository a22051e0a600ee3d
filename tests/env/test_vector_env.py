"""FortyThievesVectorEnv plays exactly the games of SyncVectorEnv over single environments."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from positions import RANKS, SUITS, position

import fortythieves_env
from fortythieves_env import (
    VARIANTS,
    FortyThievesEnv,
    IllegalMoveError,
    InvalidPositionError,
    VariantSpec,
    env_id,
    register_variant,
)
from fortythieves_env.envs.vector import FortyThievesVectorEnv

MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP]


def win_position(variant: str) -> dict[str, Any]:
    """One card left, the King of spades alone in column 0: ``t0>f`` wins."""
    return position(variant, [["KS"]])


def dead_end_position(variant: str) -> dict[str, Any]:
    """A position whose only move is ``draw``, after which no move is left (a loss).

    Every foundation pile holds A-2-3, so no 4 is playable and no 5 can go up; the column
    tops, the waste top and the one stock card are 5s and Kings: no 4 or Queen is on top for
    them to take, no 6 is on top to take a 5, and no column is empty for a King.
    """
    spec = VARIANTS[variant]
    c, per_column = spec.n_columns, spec.cards_per_column
    foundations = [[r + s for r in RANKS[:3]] for s in SUITS for _ in range(2)]
    blocked = [r + s for r in "5K" for s in SUITS for _ in range(2)]
    others = [r + s for r in RANKS[3:] if r not in "56K" for s in SUITS for _ in range(2)]
    sixes = [f"6{s}" for s in SUITS for _ in range(2)]
    tops, stock, waste_top = blocked[:c], [blocked[c]], blocked[c + 1]
    tableau = []
    for i in range(c):  # the dealt cards, none moved (never a 6 under a 5: no run)
        tableau.append([others.pop() for _ in range(per_column - 1)] + [tops[i]])
    waste = others + sixes + blocked[c + 2 :] + [waste_top]
    return {
        "variant": variant,
        "tableau": tableau,
        "face_down": [spec.face_down] * c,  # none turned up yet: reachable in every variant
        "stock": stock,
        "waste": waste,
        "foundations": foundations,
        "redeals_left": 0,
    }


def assert_same(ours: Any, theirs: Any, where: str) -> None:
    """Equal values, types, dtypes and shapes, recursively through info dicts."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict), where
        assert sorted(ours) == sorted(theirs), f"{where}: keys {sorted(ours)} != {sorted(theirs)}"
        for key in theirs:
            assert_same(ours[key], theirs[key], f"{where}[{key!r}]")
        return
    assert isinstance(ours, np.ndarray) and isinstance(theirs, np.ndarray), where
    assert ours.dtype == theirs.dtype, f"{where}: dtype {ours.dtype} != {theirs.dtype}"
    assert ours.shape == theirs.shape, f"{where}: shape {ours.shape} != {theirs.shape}"
    if theirs.dtype == object:  # final_obs: arrays or None
        for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            if b is None:
                assert a is None, f"{where}[{k}]"
            else:
                assert_same(a, b, f"{where}[{k}]")
    else:
        assert np.array_equal(ours, theirs), f"{where}: {ours} != {theirs}"


def sync_envs(
    variant: str, n: int, mode: AutoresetMode, version: int | None = None, **kwargs: Any
) -> SyncVectorEnv:
    return SyncVectorEnv(
        [lambda: gym.make(env_id(variant, version), **kwargs) for _ in range(n)],
        autoreset_mode=mode,
    )


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize(
    ("variant", "version"),
    [(v, None) for v in VARIANTS] + [("LittleForty", 0)],  # None: the newest id
)
def test_same_trajectories_as_sync_vector_env(
    variant: str, version: int | None, mode: AutoresetMode
) -> None:
    """Same seeds and actions: the same observations, rewards, flags and info, step by step.

    Covers autoresets, truncation by the step limit (40 steps) and, in every other variant,
    by lack of progress; terminations by a win (games 0-2 start one card from the end) and
    by a dead end (game 3); illegal actions (one in ten); non-default rewards.
    """
    index = list(VARIANTS).index(variant)
    kwargs: dict[str, Any] = {
        "max_episode_steps": 40,
        "reward_per_card": 0.5,
        "win_bonus": 3.0,
        "illegal_action_penalty": 0.25,
    }
    if index % 2:
        kwargs["max_steps_without_progress"] = 8
    n = 6
    obs_version = {} if version is None else {"observation_version": version}
    ours = FortyThievesVectorEnv(variant, n, autoreset_mode=mode, **obs_version, **kwargs)
    theirs = sync_envs(variant, n, mode, version, **kwargs)
    assert ours.single_observation_space == theirs.single_observation_space
    assert ours.metadata["autoreset_mode"] == theirs.metadata["autoreset_mode"] == mode
    obs, info = ours.reset(seed=100 * index)
    obs2, info2 = theirs.reset(seed=100 * index)
    assert_same(obs, obs2, "reset obs")
    assert_same(info, info2, "reset info")
    starts = [win_position(variant)] * 3 + [dead_end_position(variant)]
    for game, pos in enumerate(starts):
        mask = np.arange(n) == game
        obs, info = ours.reset(options={"state": pos, "reset_mask": mask})
        obs2, info2 = theirs.reset(options={"state": pos, "reset_mask": mask.copy()})
        assert_same(obs, obs2, f"reset of game {game}: obs")
        assert_same(info, info2, f"reset of game {game}: info")
    rng = np.random.default_rng(index)
    c = VARIANTS[variant].n_columns
    to_foundation = [2, *range(3 + c, 3 + 2 * c)]  # w>f and ti>f
    seen = {"wins": 0, "losses": 0, "time limits": 0, "no progress": 0, "illegal": 0}
    elapsed = np.zeros(n, dtype=int)
    for t in range(160):
        actions = np.zeros(n, dtype=np.int64)
        for i, row in enumerate(info2["action_mask"]):
            legal, illegal = np.flatnonzero(row), np.flatnonzero(row == 0)
            up = legal[np.isin(legal, to_foundation)]
            if up.size and rng.random() < 0.5:  # half the time a card goes up if it can
                actions[i] = rng.choice(up)
            elif legal.size and (rng.random() > 0.1 or not illegal.size):
                actions[i] = rng.choice(legal)
            else:
                actions[i] = rng.choice(illegal)
        out, out2 = ours.step(actions), theirs.step(actions)
        for name, a, b in zip(
            ("obs", "rewards", "terminated", "truncated"), out, out2, strict=False
        ):
            assert_same(a, b, f"step {t}: {name}")
        assert_same(out[4], out2[4], f"step {t}: info")
        _, _, terminated, truncated, info = out
        info2 = out2[4]
        illegal, success = info["illegal_action"].copy(), info["is_success"].copy()
        if "final_info" in info:  # same-step mode: the info of the step that ended a game
            illegal |= info["final_info"]["illegal_action"]
            success |= info["final_info"]["is_success"]
        seen["illegal"] += int(illegal.sum())
        elapsed += 1
        for i in np.flatnonzero(terminated | truncated):
            if terminated[i]:
                seen["wins" if success[i] else "losses"] += 1
            elif elapsed[i] >= 40:
                seen["time limits"] += 1
            else:
                seen["no progress"] += 1
        elapsed[terminated | truncated] = 0 if mode == AutoresetMode.SAME_STEP else -1
    assert seen["wins"] >= 1 and seen["losses"] >= 1 and seen["illegal"] >= 10, seen
    assert seen["time limits"] >= 1, seen
    if index % 2:
        assert seen["no progress"] >= 1, seen


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
def test_illegal_actions_raise_like_the_single_env(mode: AutoresetMode) -> None:
    """``illegal_action="raise"``: the error names the game and the move; nothing moves."""
    ours = FortyThievesVectorEnv("Streets", 3, illegal_action="raise", autoreset_mode=mode)
    _, info = ours.reset(seed=7)
    states = ours.states.copy()
    actions = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
    actions[1] = 1  # redeal: Streets has none
    with pytest.raises(IllegalMoveError, match=r"game 1: illegal move 'redeal' .*no redeals"):
        ours.step(actions)
    assert np.array_equal(ours.states, states)
    single = FortyThievesEnv("Streets", illegal_action="raise")
    single.reset(seed=8)
    with pytest.raises(IllegalMoveError, match="no redeals"):
        single.step(1)


def test_reset_seeds_and_positions_per_game() -> None:
    """``seed=s`` deals game i the deal of seed ``s + i``; a list of seeds and of positions
    (None: a deal) give one per game; ``np_random`` are the games' generators."""
    n = 4
    ours = FortyThievesVectorEnv("Indian", n)
    obs, _ = ours.reset(seed=11)
    for i in range(n):
        single_obs, _ = FortyThievesEnv("Indian").reset(seed=11 + i)
        assert np.array_equal(obs[i], single_obs)
    obs, _ = ours.reset(seed=[5, None, 3, 0])
    for i, s in ((0, 5), (2, 3), (3, 0)):
        assert np.array_equal(obs[i], FortyThievesEnv("Indian").reset(seed=s)[0])
    assert ours.np_random_seed[0] == 5 and ours.np_random_seed[2] == 3
    pos = win_position("Indian")
    obs, _ = ours.reset(seed=20, options={"state": [None, pos, None, pos]})
    single = FortyThievesEnv("Indian")
    pos_obs, _ = single.reset(seed=21, options={"state": pos})
    assert np.array_equal(obs[1], pos_obs) and np.array_equal(obs[3], pos_obs)
    assert np.array_equal(obs[2], FortyThievesEnv("Indian").reset(seed=22)[0])
    assert ours.get_state(1) == single.get_state()
    # game 1's next deal follows from its seed, as the single env's next reset does
    ours.reset(options={"reset_mask": np.array([False, True, False, False])})
    assert ours.get_state(1) == (single.reset(), single.get_state())[1]


def test_partial_reset_info_marks_only_the_reset_games() -> None:
    ours = FortyThievesVectorEnv("Maria", 3)
    ours.reset(seed=0)
    mask = np.array([False, True, False])
    _, info = ours.reset(seed=9, options={"reset_mask": mask})
    for key in ("action_mask", "foundation_cards", "is_success", "illegal_action"):
        assert np.array_equal(info[f"_{key}"], mask)
    assert info["action_mask"][0].sum() == 0 and info["action_mask"][1].sum() > 0
    assert np.array_equal(
        ours.states[1], ours.tables.pack(ours.rules.deal(np.random.default_rng(10)))
    )


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
def test_next_step_ignores_the_action_of_a_game_being_reset(mode: AutoresetMode) -> None:
    """In next-step mode the action of a game that just ended is ignored, even out of range
    (as SyncVectorEnv never hands it to the game); in same-step mode it is checked."""
    ours = FortyThievesVectorEnv("Maria", 2, max_episode_steps=1, autoreset_mode=mode)
    _, info = ours.reset(seed=1)
    actions = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
    _, _, _, truncated, _ = ours.step(actions)
    assert truncated.all()
    if mode == AutoresetMode.NEXT_STEP:
        _, reward, terminated, truncated, info = ours.step(np.array([-1, 10**6]))
        assert not terminated.any() and not truncated.any() and (reward == 0).all()
    else:
        with pytest.raises(ValueError, match="action -1 of game 0 is outside"):
            ours.step(np.array([-1, 0]))


def test_shapes_dtypes_and_spaces() -> None:
    n = 5
    ours = FortyThievesVectorEnv("NumberTen", n)
    single = FortyThievesEnv("NumberTen")
    size, n_actions = single.observation_space.shape[0], single.action_space.n
    assert ours.single_observation_space == single.observation_space
    assert ours.single_action_space == single.action_space
    assert ours.observation_space.shape == (n, size)
    assert ours.action_space == gym.spaces.MultiDiscrete([n_actions] * n)
    obs, info = ours.reset(seed=0)
    assert obs.shape == (n, size) and obs.dtype == np.uint8 and obs in ours.observation_space
    actions = ours.sample_legal(np.random.default_rng(0))
    assert actions.shape == (n,) and actions.dtype == np.int64
    obs, reward, terminated, truncated, info = ours.step(actions.tolist())  # a list works
    assert obs.shape == (n, size) and obs.dtype == np.uint8
    assert reward.shape == (n,) and reward.dtype == np.float64
    assert terminated.dtype == truncated.dtype == np.bool_ and terminated.shape == (n,)
    assert info["action_mask"].shape == (n, n_actions) and info["action_mask"].dtype == np.int8
    assert info["foundation_cards"].dtype == np.int64
    masks = ours.action_masks()
    assert masks.shape == (n, n_actions) and masks.dtype == np.int8
    assert np.array_equal(masks, info["action_mask"])
    masks[:] = 0  # a copy: the env's masks are untouched
    assert ours.action_masks().any()


def test_copy_false_returns_read_only_views_of_the_same_values() -> None:
    copies = FortyThievesVectorEnv("Streets", 4)
    views = FortyThievesVectorEnv("Streets", 4, copy=False)
    a, _ = copies.reset(seed=3)
    b, _ = views.reset(seed=3)
    assert np.array_equal(a, b) and not b.flags.writeable
    rng = np.random.default_rng(0)
    for _ in range(30):
        actions = copies.sample_legal(rng).copy()
        out_a, out_b = copies.step(actions), views.step(actions)
        for x, y in zip(out_a[:4], out_b[:4], strict=True):
            assert np.array_equal(x, y)
        assert_same(out_b[4], out_a[4], "info")
    assert not out_b[4]["action_mask"].flags.writeable
    assert np.shares_memory(out_b[0], views.step(views.sample_legal(rng))[0])


def test_sample_legal_picks_uniformly_among_legal_actions() -> None:
    ours = FortyThievesVectorEnv("LittleForty", 3)
    _, info = ours.reset(seed=4)
    rng = np.random.default_rng(0)
    picks = np.array([ours.sample_legal(rng).copy() for _ in range(3000)])
    for i in range(3):
        legal = np.flatnonzero(info["action_mask"][i])
        counts = np.array([(picks[:, i] == a).sum() for a in legal])
        assert counts.sum() == 3000  # never an illegal action
        expected = 3000 / len(legal)
        assert np.all(np.abs(counts - expected) < 5 * np.sqrt(expected)), counts


def test_sample_legal_returns_a_new_array_each_call() -> None:
    """Two calls share no memory, and the caller may keep, change or freeze the result."""
    ours = FortyThievesVectorEnv("Streets", 4)
    _, info = ours.reset(seed=0)
    first = ours.sample_legal(np.random.default_rng(1))
    keep = first.copy()
    first.flags.writeable = False  # broke the next call when it was the internal buffer
    second = ours.sample_legal(np.random.default_rng(2))
    assert not np.shares_memory(first, second)
    assert second.dtype == np.int64 and second.shape == (4,) and second.flags.writeable
    np.testing.assert_array_equal(first, keep)  # the second call left the first alone
    assert all(info["action_mask"][i, a] == 1 for i, a in enumerate(second))
    second[:] = 0  # draw, legal in every fresh Streets deal
    assert ours.step(second)[4]["illegal_action"].tolist() == [False] * 4


@pytest.mark.parametrize("bad", [True, np.bool_(False), 1.0, "1", None])
def test_game_index_must_be_an_integer(bad: object) -> None:
    ours = FortyThievesVectorEnv("Streets", 2)
    ours.reset(seed=0)
    for method in (ours.get_state, ours.board_text):
        with pytest.raises(
            TypeError, match=r"index must be a game index, an integer in range\(2\), got "
        ):
            method(bad)  # type: ignore[arg-type]
        with pytest.raises(IndexError, match=r"game index 2 is outside range\(2\)"):
            method(2)
    single = FortyThievesEnv("Streets")
    single.reset(seed=1)
    assert ours.get_state(np.int64(1)) == ours.get_state(1) == single.get_state()
    assert ours.board_text(np.uint8(1)) == single.board_text()


def test_render_ansi_draws_every_game_as_the_single_env() -> None:
    ours = FortyThievesVectorEnv("Lucas", 2, render_mode="ansi")
    ours.reset(seed=6)
    frames = ours.render()
    assert isinstance(frames, tuple) and len(frames) == 2
    single = FortyThievesEnv("Lucas", render_mode="ansi")
    single.reset(seed=7)
    assert frames[1] == single.render()
    assert FortyThievesVectorEnv("Lucas", 2).render() is None


def test_make_vec_uses_the_vector_entry_point_for_built_in_and_custom_ids() -> None:
    envs = gym.make_vec(
        "FortyThieves/Maria-v0", num_envs=3, vectorization_mode="vector_entry_point"
    )
    assert isinstance(envs, FortyThievesVectorEnv) and envs.num_envs == 3
    assert envs.max_episode_steps == VARIANTS["Maria"].max_episode_steps
    assert envs.variant == VARIANTS["Maria"]
    # the default mode is now the vector entry point; "sync" still gives SyncVectorEnv
    assert isinstance(gym.make_vec("FortyThieves/Maria-v0", num_envs=2), FortyThievesVectorEnv)
    sync = gym.make_vec("FortyThieves/Maria-v0", num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, SyncVectorEnv)
    spec = VariantSpec(
        "VectorWide", "Vector Wide", 11, 1, 3, "alternate_colour", True, max_episode_steps=77
    )
    id_ = register_variant(spec)
    envs = gym.make_vec(
        id_,
        num_envs=2,
        vectorization_mode="vector_entry_point",
        autoreset_mode="SameStep",
        win_bonus=5.0,
    )
    assert isinstance(envs, FortyThievesVectorEnv) and envs.variant == spec
    assert envs.max_episode_steps == 77 and envs.win_bonus == 5.0
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, _ = envs.reset(seed=2)
    assert np.array_equal(obs[0], gym.make(id_).reset(seed=2)[0])
    assert fortythieves_env.FortyThievesVectorEnv is FortyThievesVectorEnv


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_envs": 0}, "num_envs must be a positive integer"),
        ({"num_envs": 2.0}, "num_envs must be a positive integer"),
        ({"render_mode": "human"}, "render_mode must be None or 'ansi'"),
        ({"backend": "python"}, "compiled only"),
        ({"illegal_action": "ignore"}, "illegal_action must be"),
        ({"autoreset_mode": "Disabled"}, "autoreset_mode must be 'NextStep' or 'SameStep'"),
        ({"autoreset_mode": "sometimes"}, "autoreset_mode must be"),
        ({"max_episode_steps": 0}, "max_episode_steps must be None or a positive integer"),
        ({"max_steps_without_progress": True}, "max_steps_without_progress must be"),
        ({"variant": "Klondike"}, "unknown variant 'Klondike'"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, Any], message: str) -> None:
    kwargs = {"variant": "Maria", "num_envs": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        FortyThievesVectorEnv(**kwargs)


def test_bad_actions_seeds_and_options_are_refused_and_change_nothing() -> None:
    ours = FortyThievesVectorEnv("Maria", 3)
    with pytest.raises(RuntimeError, match="reset"):
        ours.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="first reset must reset every game"):
        ours.reset(seed=0, options={"reset_mask": np.array([True, False, True])})
    _, info = ours.reset(seed=0)
    states = ours.states.copy()
    legal = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        ours.step(legal[:2])
    with pytest.raises(ValueError, match="integers"):
        ours.step(legal.astype(float))
    with pytest.raises(ValueError, match="integers"):
        ours.step(np.ones(3, dtype=bool))
    bad = legal.copy()
    bad[2] = ours.single_action_space.n
    with pytest.raises(ValueError, match=r"action 93 of game 2 is outside .*Discrete\(93\)"):
        ours.step(bad)
    assert np.array_equal(ours.states, states)
    with pytest.raises(ValueError, match="one per game"):
        ours.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="non-negative"):
        ours.reset(seed=[1, -2, 3])
    with pytest.raises(ValueError, match="unknown reset options"):
        ours.reset(options={"deal": 3})
    with pytest.raises(ValueError, match="reset_mask"):
        ours.reset(options={"reset_mask": [True, False, True]})
    with pytest.raises(ValueError, match="at least one game"):
        ours.reset(options={"reset_mask": np.zeros(3, dtype=bool)})
    with pytest.raises(ValueError, match="list of 3"):
        ours.reset(options={"state": [None]})
    bad_pos = win_position("Maria")
    bad_pos["tableau"][0] = ["KS", "KS"]
    with pytest.raises(InvalidPositionError, match="game 1: invalid Maria position"):
        ours.reset(seed=5, options={"state": [None, bad_pos, None]})
    finished = dead_end_position("Maria")
    finished["waste"].append(finished["stock"].pop())
    with pytest.raises(InvalidPositionError, match=r"game 0: .*already over \(no legal move"):
        ours.reset(options={"state": finished})
    assert np.array_equal(ours.states, states)
    assert ours.np_random_seed[0] == 0  # the refused reset(seed=5) seeded nothing
    with pytest.raises(IndexError, match="game index 3"):
        ours.get_state(3)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
def test_a_deal_without_a_move_ends_on_its_first_step_as_in_the_single_env(
    mode: AutoresetMode,
) -> None:
    """A custom variant with no stock can deal a game with no move (all 104 cards in one
    column, no Ace on top): its first step is illegal and terminates, as in the single env."""
    spec = VariantSpec("OneColumn", "One Column", 1, 0, 104, "same_suit", False)
    id_ = register_variant(spec)
    ours = FortyThievesVectorEnv(spec, 4, autoreset_mode=mode)
    theirs = SyncVectorEnv([lambda: gym.make(id_) for _ in range(4)], autoreset_mode=mode)
    _, info = ours.reset(seed=30)
    assert_same(info, theirs.reset(seed=30)[1], "reset info")
    stuck = ~info["action_mask"].any(axis=1)
    assert stuck.any()
    for t in range(3):
        actions = np.full(4, 4, dtype=np.int64)  # t0>f, the only move this variant has
        out, out2 = ours.step(actions), theirs.step(actions)
        for name, a, b in zip(
            ("obs", "rewards", "terminated", "truncated"), out, out2, strict=False
        ):
            assert_same(a, b, f"step {t}: {name}")
        assert_same(out[4], out2[4], f"step {t}: info")
        if t == 0:
            assert np.array_equal(out[2], stuck)


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP])
def test_autoreset_seeds_choose_the_next_deal_of_each_game(mode: AutoresetMode) -> None:
    """Game i's automatic reset deals ``reset(seed=seeds[i])``'s deal, once; None deals on."""
    envs = FortyThievesVectorEnv("Streets", 3, autoreset_mode=mode, max_episode_steps=4)
    single = FortyThievesEnv("Streets")
    envs.reset(seed=0)
    envs.set_autoreset_seeds([77, None, 9])
    for _ in range(4):
        obs, *_ = envs.step(envs.sample_legal(np.random.default_rng(0)).copy())
    if mode == AutoresetMode.NEXT_STEP:
        obs, *_ = envs.step(np.zeros(3, dtype=np.int64))
    np.testing.assert_array_equal(obs[0], single.reset(seed=77)[0])
    np.testing.assert_array_equal(obs[2], single.reset(seed=9)[0])
    single.reset(seed=1)  # game 1 deals on from its own generator, as a single env does
    np.testing.assert_array_equal(obs[1], single.reset()[0])
    for _ in range(4):  # used once: the next deals come from the re-seeded generators
        obs, *_ = envs.step(envs.sample_legal(np.random.default_rng(0)).copy())
    if mode == AutoresetMode.NEXT_STEP:
        obs, *_ = envs.step(np.zeros(3, dtype=np.int64))
    single.reset(seed=77)
    np.testing.assert_array_equal(obs[0], single.reset()[0])
    with pytest.raises(ValueError, match="one per game"):
        envs.set_autoreset_seeds([1, 2])
    with pytest.raises(ValueError, match="non-negative"):
        envs.set_autoreset_seeds([1, -2, None])


def test_seeds_may_be_a_numpy_array_of_integers_as_in_sync_vector_env() -> None:
    """``rng.integers(..., size=N)`` is how RL code draws per-game seeds; SyncVectorEnv
    takes it, so the batched env does too (and still refuses floats and bad lengths)."""
    seeds = np.array([11, 3, 7], dtype=np.int64)
    ours = FortyThievesVectorEnv("Maria", 3)
    theirs = SyncVectorEnv([lambda: gym.make("FortyThieves/Maria-v0") for _ in range(3)])
    obs, _ = ours.reset(seed=seeds)
    assert np.array_equal(obs, theirs.reset(seed=seeds.tolist())[0])
    assert ours.np_random_seed == (11, 3, 7)
    ours.reset(seed=np.array([1, 2, 3], dtype=np.uint32))
    assert ours.np_random_seed == (1, 2, 3)
    with pytest.raises(ValueError, match="one per game"):
        ours.reset(seed=np.array([1, 2]))
    with pytest.raises(ValueError, match="non-negative integers"):
        ours.reset(seed=np.array([1.0, 2.0, 3.0]))
    assert ours.np_random_seed == (1, 2, 3)


def test_an_unsigned_action_too_big_for_int64_is_named_as_given() -> None:
    ours = FortyThievesVectorEnv("Maria", 2)
    ours.reset(seed=0)
    states = ours.states.copy()
    huge = np.array([0, 2**64 - 1], dtype=np.uint64)
    with pytest.raises(ValueError, match=r"action 18446744073709551615 of game 1 is outside"):
        ours.step(huge)
    assert np.array_equal(ours.states, states)
