"""API tests run over every registered variant (new variants are tested automatically)."""

from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from positions import shuffle_hidden

import fortythieves_env
from fortythieves_env import ENV_IDS, VARIANTS, FortyThievesEnv, IllegalMoveError, VariantSpec

ALL_VARIANTS = list(VARIANTS)

pytestmark = pytest.mark.usefixtures("backend")  # every test on both backends


def test_every_rule_book_variant_is_registered() -> None:
    # every variant has -v0; only Little Forty (the one with redeals) also -v1
    expected = [f"FortyThieves/{v}-v0" for v in ALL_VARIANTS]
    expected.insert(
        expected.index("FortyThieves/LittleForty-v0") + 1, "FortyThieves/LittleForty-v1"
    )
    assert expected == ENV_IDS
    assert [v for v in ALL_VARIANTS if VARIANTS[v].redeals] == ["LittleForty"]
    assert fortythieves_env.env_id("LittleForty") == "FortyThieves/LittleForty-v1"
    assert fortythieves_env.env_id("Maria") == "FortyThieves/Maria-v0"
    assert fortythieves_env.env_id("LittleForty", 0) == "FortyThieves/LittleForty-v0"
    with pytest.raises(ValueError, match="Maria has no id version 1"):
        fortythieves_env.env_id("Maria", 1)
    for id_ in ENV_IDS:
        assert gym.spec(id_).kwargs["observation_version"] == int(id_[-1])
    assert ALL_VARIANTS == [
        "FortyThieves", "Indian", "Limited", "LittleForty", "Lucas",
        "Maria", "NumberTen", "RankAndFile", "Streets",
    ]  # fmt: skip
    for id_ in ENV_IDS:
        assert id_ in gym.registry
        assert gym.spec(id_).max_episode_steps == VARIANTS[id_[13:-3]].max_episode_steps


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_check_env(env_id: str) -> None:
    env = gym.make(env_id)
    check_env(env.unwrapped, skip_render_check=False)


def test_make_with_module_prefix_needs_no_import() -> None:
    code = (
        "import gymnasium as gym\n"
        "env = gym.make('fortythieves_env:FortyThieves/Maria-v0')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(env.unwrapped.variant.id, obs.shape[0], int(info['action_mask'].sum()) > 0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["Maria", "231", "True"]


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_spaces_and_reset_info(variant: str) -> None:
    spec = VARIANTS[variant]
    env = gym.make(fortythieves_env.env_id(variant))
    c, m = spec.n_columns, spec.max_move
    assert env.action_space == gym.spaces.Discrete(3 + 2 * c + c * (c - 1) * m)
    obs, info = env.reset(seed=7)
    assert obs.dtype == np.uint8
    # -v1 (Little Forty, the one variant with redeals) adds the known-stock slots
    known = spec.stock_size if spec.redeals else 0
    assert obs.shape == (c * spec.max_visible + spec.stock_size + known + 10 + c,)
    assert env.observation_space.contains(obs)
    mask = info["action_mask"]
    assert mask.dtype == np.int8 and mask.shape == (env.action_space.n,)
    assert set(np.unique(mask)) <= {0, 1} and mask.sum() > 0
    np.testing.assert_array_equal(mask, env.get_wrapper_attr("action_masks")())
    assert info["foundation_cards"] == (8 if spec.aces_on_foundations else 0)
    assert info["is_success"] is False and info["illegal_action"] is False
    assert mask[0] == 1  # a fresh deal always has a stock to deal from


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_action_encoding_is_a_bijection(variant: str) -> None:
    env = FortyThievesEnv(variant)
    moves = [env.action_to_move(a) for a in range(env.action_space.n)]
    assert len(set(moves)) == len(moves)
    assert [env.move_to_action(mv) for mv in moves] == list(range(env.action_space.n))
    c = VARIANTS[variant].n_columns
    # spot-check the documented formula
    assert moves[:4] == ["draw", "redeal", "w>f", "w>t0"]
    assert moves[3 + c] == "t0>f"
    assert moves[3 + 2 * c] == "t0>t1"
    if VARIANTS[variant].sequence_moves:
        assert moves[3 + 2 * c + (2 * (c - 1) + 0) * 13 + 4] == "t2>t0x5"
        with pytest.raises(ValueError, match="one card has no xN"):
            env.move_to_action("t1>t0x1")  # one spelling per action
    else:
        assert moves[3 + 2 * c + 2 * (c - 1) + 0] == "t2>t0"


@pytest.mark.parametrize(
    ("move", "message"),
    [
        ("t1>t1", "onto itself"),
        ("t10>t1", "does not exist"),
        ("w>t0x2", "only for column-to-column"),
        ("t0>t1x2", r"1\.\.1 card"),
        ("f>t1", "is not a move"),
        ("DRAW", "is not a move"),
        ("draw\n", "is not a move"),
        ("t03>t1", "is not a move"),
        ("t\u0663>f", "is not a move"),
        (" w>f", "is not a move"),
    ],
)
def test_bad_move_strings_are_refused(move: str, message: str) -> None:
    env = FortyThievesEnv("FortyThieves")
    with pytest.raises(ValueError, match=message):
        env.move_to_action(move)


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_same_seed_same_deal_and_different_seed_different_deal(variant: str) -> None:
    env = gym.make(fortythieves_env.env_id(variant))
    obs1, _ = env.reset(seed=123)
    state1 = env.unwrapped.get_state()
    env.reset(seed=5)
    obs2, _ = env.reset(seed=123)
    np.testing.assert_array_equal(obs1, obs2)
    assert env.unwrapped.get_state() == state1
    env.reset(seed=124)
    assert env.unwrapped.get_state() != state1


def test_seeded_deal_is_the_same_in_another_process() -> None:
    code = (
        "import json, gymnasium as gym, fortythieves_env\n"
        "env = gym.make('FortyThieves/Indian-v0'); env.reset(seed=2024)\n"
        "print(json.dumps(env.unwrapped.get_state()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    env = gym.make("FortyThieves/Indian-v0")
    env.reset(seed=2024)
    assert json.loads(out.stdout) == env.unwrapped.get_state()


def _random_steps(env: gym.Env, rng: np.random.Generator, n: int) -> None:
    mask = env.unwrapped.action_masks()
    for _ in range(n):
        legal = np.flatnonzero(mask)
        if not len(legal):
            return
        _, _, term, trunc, info = env.step(int(rng.choice(legal)))
        if term or trunc:
            return
        mask = info["action_mask"]


@pytest.mark.parametrize("variant", ["FortyThieves", "LittleForty", "RankAndFile"])
def test_pickle_and_deepcopy_continue_identically(variant: str) -> None:
    env = FortyThievesEnv(variant)
    env.reset(seed=3)
    _random_steps(env, np.random.default_rng(0), 40)
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert clone.get_state() == env.get_state()
        rng_a, rng_b = np.random.default_rng(9), np.random.default_rng(9)
        for _ in range(30):
            legal = np.flatnonzero(env.action_masks())
            np.testing.assert_array_equal(legal, np.flatnonzero(clone.action_masks()))
            if not len(legal):
                break
            a, b = int(rng_a.choice(legal)), int(rng_b.choice(legal))
            ra, rb = env.step(a), clone.step(b)
            np.testing.assert_array_equal(ra[0], rb[0])
            assert ra[1:4] == rb[1:4]
        # and a new deal from the copied generator matches too
        np.testing.assert_array_equal(env.reset()[0], clone.reset()[0])
        env.reset(seed=3)
        _random_steps(env, np.random.default_rng(0), 40)


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_get_state_round_trip(variant: str) -> None:
    env = FortyThievesEnv(variant)
    env.reset(seed=11)
    _random_steps(env, np.random.default_rng(1), 60)
    pos = env.get_state()
    json.dumps(pos)  # JSON-friendly
    obs = env._obs.copy()
    mask = env.action_masks()
    other = FortyThievesEnv(variant)
    obs2, info2 = other.reset(options={"state": pos})
    np.testing.assert_array_equal(obs2, obs)
    np.testing.assert_array_equal(info2["action_mask"], mask)
    assert other.get_state() == pos


def test_illegal_action_penalised_by_default() -> None:
    env = gym.make("FortyThieves/FortyThieves-v0")
    obs, info = env.reset(seed=0)
    state = env.unwrapped.get_state()
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs2, reward, term, trunc, info2 = env.step(illegal)
    assert reward == pytest.approx(-0.1)
    assert (term, trunc) == (False, False)
    assert info2["illegal_action"] is True
    np.testing.assert_array_equal(obs2, obs)
    np.testing.assert_array_equal(info2["action_mask"], info["action_mask"])
    assert env.unwrapped.get_state() == state
    _, _, _, _, info3 = env.step(0)  # draw is legal on a fresh deal
    assert info3["illegal_action"] is False


def test_illegal_action_penalty_is_settable() -> None:
    env = gym.make("FortyThieves/Streets-v0", illegal_action_penalty=2.5)
    env.reset(seed=0)
    assert env.step(1)[1] == -2.5  # redeal: Streets has none


def test_illegal_action_raise_names_the_move() -> None:
    env = gym.make("FortyThieves/Streets-v0", illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(
        IllegalMoveError, match=r"'redeal' \(action 1\) in Streets: Streets has no redeals"
    ):
        env.step(1)


@pytest.mark.parametrize("bad", [-1, 113, 10_000, 1.0, "draw", None, True, np.bool_(False)])
def test_action_outside_the_space_raises_value_error(bad: object) -> None:
    for mode in ("penalize", "raise"):
        env = FortyThievesEnv("FortyThieves", illegal_action=mode)
        env.reset(seed=0)
        with pytest.raises(ValueError, match="action"):
            env.step(bad)


def test_action_to_move_refuses_non_integers() -> None:
    env = FortyThievesEnv("FortyThieves")
    for bad in (1.5, True, "0"):
        with pytest.raises(ValueError, match="an action is an integer"):
            env.action_to_move(bad)  # type: ignore[arg-type]
    assert env.action_to_move(np.int64(0)) == "draw"


def test_numpy_integer_actions_are_accepted() -> None:
    env = FortyThievesEnv("FortyThieves")
    env.reset(seed=0)
    assert env.step(np.int64(0))[4]["illegal_action"] is False
    assert env.step(np.array(0))[4]["illegal_action"] is False


def test_constructor_errors() -> None:
    with pytest.raises(
        ValueError, match="unknown variant 'Klondike'; known variants: FortyThieves"
    ):
        FortyThievesEnv("Klondike")
    with pytest.raises(ValueError, match="illegal_action"):
        FortyThievesEnv(illegal_action="ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="render_mode"):
        FortyThievesEnv(render_mode="human")
    with pytest.raises(ValueError, match="unknown reset options"):
        FortyThievesEnv().reset(options={"deal": 3})
    with pytest.raises(RuntimeError, match="reset"):
        FortyThievesEnv().step(0)


def test_register_variant_gives_its_own_id_and_step_limit() -> None:
    tiny = VariantSpec("Tiny", "Tiny", 10, 0, 4, "alternate_colour", False, max_episode_steps=5)
    id_ = fortythieves_env.register_variant(tiny)
    assert id_ == "FortyThieves/Tiny-v0"
    assert fortythieves_env.register_variant(tiny) == id_  # again: fine
    env = gym.make(id_)
    _, info = env.reset(seed=0)
    for step in range(1, 6):
        _, _, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert (term, trunc) == (False, step == 5)
    with pytest.raises(ValueError, match="already registered for a different variant"):
        fortythieves_env.register_variant(VariantSpec("Tiny", "Tiny", 9, 0, 4, "same_suit", False))
    with pytest.raises(ValueError, match="FortyThieves/Maria-v0 is already registered"):
        fortythieves_env.register_variant(VariantSpec("Maria", "M", 9, 0, 4, "same_suit", False))
    assert fortythieves_env.register_variant(VARIANTS["Maria"]) == "FortyThieves/Maria-v0"
    assert FortyThievesEnv("Tiny").variant == tiny  # a registered variant is known by its id


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"id": 5}, "VariantSpec.id must be a string"),
        ({"n_columns": "10"}, "n_columns must be an integer, got '10'"),
        ({"n_columns": 2.5}, "n_columns must be an integer"),
        ({"deal_count": 2.0}, "deal_count must be an integer"),
        ({"redeals": True}, "redeals must be an integer"),
        ({"sequence_moves": "no"}, "sequence_moves must be True or False"),
        ({"aces_on_foundations": "yes"}, "aces_on_foundations must be True or False"),
        ({"face_up": 0}, "need face_up >= 1, got 0"),
        ({"redeals": -1}, "need redeals >= 0, got -1"),
        ({"id": "two words"}, "must be an identifier"),
    ],
)
def test_bad_variant_specs_are_refused(kwargs: dict, message: str) -> None:
    fields = dict(id="X", name="X", n_columns=10, face_down=0, face_up=4, build="same_suit",
                  sequence_moves=False)  # fmt: skip
    fields.update(kwargs)
    with pytest.raises(ValueError, match=message):
        VariantSpec(**fields)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"redeals": 2}, "variant Open: redeals must be 0 without a stock (the tableau takes "
                         "all 104 cards), got 2"),
        ({"deal_count": 3}, "variant Open: deal_count must be 1 without a stock (the tableau "
                            "takes all 104 cards), got 3"),
        ({"aces_on_foundations": True, "face_up": 12, "redeals": 1},
         "variant Open: redeals must be 0 without a stock (the tableau takes all 96 cards), got 1"),
    ],
)  # fmt: skip
def test_a_variant_without_a_stock_refuses_deal_count_and_redeals(
    kwargs: dict, message: str
) -> None:
    """Issue 23.12: with every card on the tableau (8 columns of 13) there is no stock to
    deal or redeal, yet ``redeals=2`` or ``deal_count=3`` were accepted, never to apply."""
    fields = dict(id="Open", name="Open", n_columns=8, face_down=0, face_up=13,
                  build="alternate_colour", sequence_moves=True)  # fmt: skip
    fields.update(kwargs)
    with pytest.raises(ValueError) as error:
        VariantSpec(**fields)
    assert str(error.value) == message
    fields.update(deal_count=1, redeals=0)
    assert VariantSpec(**fields).stock_size == 0


def test_custom_variant_from_a_spec() -> None:
    spec = VariantSpec(
        "Wide", "Wide Forty", n_columns=12, face_down=1, face_up=3,
        build="alternate_colour", sequence_moves=True, deal_count=2, redeals=1,
    )  # fmt: skip
    env = gym.make("FortyThieves/FortyThieves-v0", variant=spec)
    env.reset(seed=1)
    pos = env.unwrapped.get_state()
    assert pos["variant"] == "Wide"
    assert [len(col) for col in pos["tableau"]] == [4] * 12
    assert pos["face_down"] == [1] * 12 and len(pos["stock"]) == 104 - 48
    assert env.action_space.n == 3 + 24 + 12 * 11 * 13
    env.step(env.unwrapped.move_to_action("draw"))
    assert len(env.unwrapped.get_state()["waste"]) == 2
    with pytest.raises(ValueError, match="tableau takes 120 cards"):
        VariantSpec("Huge", "Huge", 30, 0, 4, "same_suit", False)
    with pytest.raises(
        ValueError,
        match="unknown build rule 'same_colour'; choose from same_suit, alternate_colour",
    ):
        VariantSpec("Odd", "Odd", 10, 0, 4, "same_colour", False)


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_hidden_cards_do_not_change_the_observation(variant: str) -> None:
    env = FortyThievesEnv(variant)
    env.reset(seed=21)
    pos = env.get_state()
    obs = env._obs.copy()
    rng = np.random.default_rng(0)
    before = copy.deepcopy(pos)
    # Swap the stock with face-down cards, shuffle both, and see the same observation.
    shuffle_hidden(pos, rng)
    assert pos != before
    obs2, _ = env.reset(options={"state": pos})
    np.testing.assert_array_equal(obs2, obs)


def test_ansi_render_shows_the_board() -> None:
    env = gym.make("FortyThieves/Indian-v0", render_mode="ansi")
    env.reset(seed=4)
    text = env.render()
    pos = env.unwrapped.get_state()
    lines = text.splitlines()
    assert lines[0].startswith("Indian  stock: 74  waste: -- (0 cards)")
    assert lines[1] == "foundations: -C -C -D -D -H -H -S -S"
    assert lines[2].split() == [f"t{i}" for i in range(10)]
    assert lines[3].split() == ["##"] * 10  # one face-down row
    assert lines[4].split() == [col[1] for col in pos["tableau"]]
    env.step(env.unwrapped.move_to_action("draw"))
    assert f"waste: {env.unwrapped.get_state()['waste'][-1]} (1 card)" in env.render()
    quiet = gym.make("FortyThieves/Indian-v0")
    quiet.reset(seed=4)
    assert quiet.render() is None


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_random_masked_episodes_end_within_the_step_limit(env_id: str) -> None:
    env = gym.make(env_id)
    limit = env.spec.max_episode_steps
    rng = np.random.default_rng(0)
    for episode in range(2):
        _, info = env.reset(seed=episode)
        steps = 0
        for _ in range(limit + 1):  # one more than the limit: truncation must stop it
            steps += 1
            legal = np.flatnonzero(info["action_mask"])
            assert len(legal) > 0
            _, _, term, trunc, info = env.step(int(rng.choice(legal)))
            assert info["illegal_action"] is False
            if term or trunc:
                break
        assert term or trunc
        assert steps <= limit
        assert trunc == (steps == limit and not term)
        if term and not info["is_success"]:
            assert info["action_mask"].sum() == 0


def _progress_marks(pos: dict) -> tuple[int, int, int, int]:
    return (
        sum(map(len, pos["foundations"])),
        len(pos["stock"]),
        pos["redeals_left"],
        sum(pos["face_down"]),
    )


@pytest.mark.parametrize("variant", ["Streets", "Indian", "NumberTen", "LittleForty"])
@pytest.mark.parametrize("limit", [1, 7, 40])
def test_no_progress_truncation(variant: str, limit: int, backend: str) -> None:
    env = gym.make(
        fortythieves_env.env_id(variant), max_steps_without_progress=limit, backend=backend
    )
    rng = np.random.default_rng(limit)
    truncations = 0
    for episode in range(3):
        _, info = env.reset(seed=episode)
        marks = _progress_marks(env.unwrapped.get_state())
        idle = 0
        for steps in range(1, 2000):
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            draw = env.unwrapped.action_to_move(action) in ("draw", "redeal")
            _, _, term, trunc, info = env.step(action)
            new = _progress_marks(env.unwrapped.get_state())
            idle = 0 if (draw or new != marks) else idle + 1
            marks = new
            assert env.unwrapped.steps_without_progress == idle  # the public count
            at_limit = steps == env.spec.max_episode_steps
            assert trunc == (not term and (idle >= limit or at_limit))
            if term or trunc:
                truncations += trunc
                break
    assert truncations > 0
    with pytest.raises(ValueError, match="max_steps_without_progress must be None or a positive"):
        FortyThievesEnv(variant, max_steps_without_progress=0)


@pytest.mark.parametrize("name", ["reward_per_card", "win_bonus", "illegal_action_penalty"])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), "1.0", None])
def test_rewards_must_be_finite_numbers_in_both_env_classes(name: str, value: object) -> None:
    from fortythieves_env import FortyThievesVectorEnv

    for make in (FortyThievesEnv, FortyThievesVectorEnv):
        with pytest.raises(ValueError, match=rf"{name} must be a finite number, got"):
            make("Maria", **{name: value})


@pytest.mark.parametrize("limit", [np.int64(5), np.uint8(5), np.int32(5)])
def test_numpy_integer_no_progress_limit_is_accepted(limit: object) -> None:
    """A NumPy integer is an integer: the env stores it as an ``int`` and truncates at it."""
    env = gym.make("FortyThieves/Streets-v0", max_steps_without_progress=limit)
    assert env.unwrapped.max_steps_without_progress == 5
    assert type(env.unwrapped.max_steps_without_progress) is int
    env.reset(seed=0)
    # t>t moves that turn nothing up make no progress: shuttle one card until truncated
    for steps in range(1, 6):
        legal = [m for m in env.unwrapped.legal_moves() if ">t" in m and m[0] == "t"]
        if not legal:
            pytest.skip("no column move in this deal")
        *_, trunc, _ = env.step(env.unwrapped.move_to_action(legal[0]))
        if env.unwrapped.steps_without_progress == 0:
            pytest.skip("the move made progress")
        assert trunc == (steps == 5)


@pytest.mark.parametrize("bad", [True, np.bool_(True), 5.0, "5", 0, np.int64(-1)])
def test_bad_no_progress_limits_are_refused_in_both_env_classes(bad: object) -> None:
    from fortythieves_env import FortyThievesVectorEnv

    for make in (FortyThievesEnv, FortyThievesVectorEnv):
        with pytest.raises(
            ValueError, match=r"max_steps_without_progress must be None or a positive integer"
        ):
            make("Maria", max_steps_without_progress=bad)


@pytest.mark.parametrize("value", [-5, -1, -0.1, np.float64(-2.0)])
def test_negative_illegal_action_penalty_is_refused_in_both_env_classes(value: object) -> None:
    from fortythieves_env import FortyThievesVectorEnv

    message = r"illegal_action_penalty must be >= 0 \(an illegal action earns"
    with pytest.raises(ValueError, match=message):
        gym.make("FortyThieves/Streets-v0", illegal_action_penalty=value)
    for make in (FortyThievesEnv, FortyThievesVectorEnv):
        with pytest.raises(ValueError, match=message):
            make("Streets", illegal_action_penalty=value)
    with pytest.raises(ValueError, match=message):
        gym.make_vec("FortyThieves/Streets-v0", 2, illegal_action_penalty=value)


def test_zero_illegal_action_penalty_costs_nothing() -> None:
    from fortythieves_env import FortyThievesVectorEnv

    env = gym.make("FortyThieves/Streets-v0", illegal_action_penalty=0)
    env.reset(seed=0)
    assert env.step(1)[1] == 0.0  # redeal: Streets has none
    envs = FortyThievesVectorEnv("Streets", 2, illegal_action_penalty=np.int64(0))
    envs.reset(seed=0)
    assert envs.step(np.array([1, 1]))[1].tolist() == [0.0, 0.0]


@pytest.mark.parametrize("bad", [["state"], "state", ("state", None), 3])
def test_reset_options_that_are_not_a_dict_are_a_type_error(bad: object) -> None:
    from fortythieves_env import FortyThievesVectorEnv

    env = gym.make("FortyThieves/Streets-v0")
    env.reset(seed=0)
    before = env.unwrapped.get_state()
    with pytest.raises(
        TypeError,
        match=r"reset options must be None or a dict with the keys 'state' and 'pysol_deal', "
        rf"got {type(bad).__name__}",
    ):
        env.reset(options=bad)  # type: ignore[arg-type]
    assert env.unwrapped.get_state() == before
    envs = FortyThievesVectorEnv("Streets", 2)
    with pytest.raises(
        TypeError,
        match=r"reset options must be None or a dict with the keys 'state' and 'reset_mask'",
    ):
        envs.reset(options=bad)  # type: ignore[arg-type]


def test_a_refused_first_reset_through_gym_make_changes_nothing() -> None:
    """Issue 23.11: Gymnasium's PassiveEnvChecker, which gym.make put around the env, marked
    its first reset as checked before the call returned; a refused first reset left it with
    no result, and every step after raised ``TypeError: cannot unpack non-iterable
    NoneType`` (after playing the move). The ids are registered without it, so the refused
    reset changes nothing: the next game is the one a new env plays."""
    from fortythieves_env.rules.engine import InvalidPositionError

    def play(env: gym.Env) -> list[tuple]:
        """``reset(seed=1)`` then two steps of the first legal move: every call's result."""
        out: list[tuple] = [env.reset(seed=1)]
        for _ in range(2):
            out.append(env.step(int(out[-1][-1]["action_mask"].argmax())))
        return out

    env = gym.make("FortyThieves/Streets-v0")
    with pytest.raises(InvalidPositionError, match="expected a dict with keys"):
        env.reset(options={"state": "x"})
    with pytest.raises(ValueError, match="unknown reset options"):
        env.reset(options={"sate": {}})
    got, expected = play(env), play(gym.make("FortyThieves/Streets-v0"))
    for a, b in zip(got, expected, strict=True):
        assert np.array_equal(a[0], b[0]) and a[1:-1] == b[1:-1]
        assert np.array_equal(a[-1]["action_mask"], b[-1]["action_mask"])
    # what the checker also looked for: no two calls return the same arrays
    arrays = [array for out in got for array in (out[0], out[-1]["action_mask"])]
    assert not any(np.shares_memory(a, b) for i, a in enumerate(arrays) for b in arrays[i + 1 :])
    assert "PassiveEnvChecker" not in str(env) and env.spec.disable_env_checker


@pytest.mark.parametrize("seed", [np.int64(5), np.uint32(5), np.int8(5)])
def test_numpy_integer_seeds_are_accepted_by_both_env_classes(seed: object) -> None:
    """Issue 23.11: ``reset(seed=np.int64(5))`` was refused by the single env (Gymnasium's
    check takes only ``int``) and accepted by the vector env; an integer is what
    ``fortythieves_env.rules.checks`` says it is, in both."""
    from fortythieves_env import FortyThievesVectorEnv

    env = gym.make("FortyThieves/Streets-v0")
    obs, _ = env.reset(seed=seed)
    assert np.array_equal(obs, env.reset(seed=5)[0]) and env.unwrapped.np_random_seed == 5
    envs = FortyThievesVectorEnv("Streets", 2)
    assert np.array_equal(envs.reset(seed=seed)[0][0], obs)


@pytest.mark.parametrize(
    ("bad", "shown"),
    [(True, "True"), (np.bool_(True), repr(np.bool_(True))), (-1, "-1"), (np.int64(-1), "-1"),
     (1.5, "1.5"), ("5", "'5'")],
)  # fmt: skip
def test_bad_seeds_are_refused_by_both_env_classes(bad: object, shown: str) -> None:
    from fortythieves_env import FortyThievesVectorEnv

    env = FortyThievesEnv("Streets")
    with pytest.raises(ValueError) as error:
        env.reset(seed=bad)  # type: ignore[arg-type]
    assert str(error.value) == f"seed must be None or an integer >= 0, got {shown}"
    with pytest.raises(ValueError, match="seed"):
        FortyThievesVectorEnv("Streets", 2).reset(seed=bad)  # type: ignore[arg-type]
