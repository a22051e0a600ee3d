"""The family through one encoding (fortythieves_env.envs.family, FamilyEnv, FamilyVectorEnv).

The nine named variants played through ``FortyThieves/Family-v0`` must give the games of
their own ids, move by move: the same legal moves (compared in the rule book's notation),
rewards, episode ends, positions, and the same observation laid out in the shared table
(restated here from the two layouts' slices). The training distribution must never draw a
held-out game, and refuse boxes it cannot draw from.
"""

from __future__ import annotations

import itertools
import pickle
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from fortythieves_env import (
    FAMILY_ENV_ID,
    VARIANTS,
    Build,
    EmptyColumn,
    FortyThievesEnv,
    IllegalMoveError,
    InvalidPositionError,
    ObservationLayout,
    VariantSpec,
    env_id,
)
from fortythieves_env.envs.family import (
    FAMILY_BOUNDS,
    FAMILY_CODEC,
    FAMILY_LAYOUT,
    HELD_OUT,
    HELD_OUT_GAMES,
    OTHER_READINGS,
    TRAINING,
    FamilyBounds,
    RuleSetSampler,
    get_rule_set,
    is_held_out,
    rule_key,
    rule_set,
    rule_set_id,
    rule_set_map,
    split_of,
)
from fortythieves_env.envs.family_env import FamilyEnv
from fortythieves_env.envs.family_vector import FamilyVectorEnv
from fortythieves_env.envs.vector import FortyThievesVectorEnv, _pick_legal
from fortythieves_env.rules.actions import codec_for
from fortythieves_env.rules.core import legal_actions, tables_for
from fortythieves_env.rules.greedy import greedy_pick

MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP]
INFO_KEYS = ("foundation_cards", "is_success", "illegal_action")


# ---------------------------------------------------------------------- restatements
def shared_obs(spec: VariantSpec, obs: np.ndarray) -> np.ndarray:
    """A variant's own observation placed in the shared table, part by part (the index
    table of FamilyLayout, restated from the two layouts' slices)."""
    own = ObservationLayout.for_variant(spec, 1)
    cards = FAMILY_LAYOUT.cards
    out = np.zeros(FAMILY_LAYOUT.size, dtype=np.uint8)
    for i in range(spec.n_columns):
        out[cards.column(i).start : cards.column(i).start + own.column_slots] = obs[own.column(i)]
    out[cards.waste.start : cards.waste.start + own.waste_slots] = obs[own.waste]
    out[cards.known_stock.start : cards.known_stock.start + own.stock_slots] = obs[own.known_stock]
    out[cards.foundations] = obs[own.foundations]
    out[cards.face_down.start : cards.face_down.start + spec.n_columns] = obs[own.face_down]
    out[cards.stock] = obs[own.stock]
    out[cards.redeals_left] = obs[own.redeals_left]
    builds = [Build.SAME_SUIT, Build.ALTERNATE_COLOUR, Build.OTHER_SUIT]
    rules = [spec.n_columns, spec.face_down, spec.face_up]
    rules += [int(spec.build == b) for b in builds]
    rules += [int(spec.sequence_moves), int(spec.empty_column == EmptyColumn.KINGS)]
    rules += [spec.deal_count, spec.redeals, int(spec.aces_on_foundations)]
    rules += [int(i < spec.n_columns) for i in range(13)]
    out[477:] = rules
    return out


def moves(codec: Any, mask: np.ndarray) -> list[str]:
    """The legal moves of a mask, in the rule book's notation."""
    return [codec.to_move(a) for a in np.flatnonzero(mask).tolist()]


def to_shared(spec: VariantSpec, action: int) -> int:
    """The shared action of a variant's action, through the move notation."""
    return FAMILY_CODEC.from_move(codec_for(spec).to_move(action))


def check_same(spec: VariantSpec, own: tuple, fam: tuple) -> None:
    """One step's (or reset's) results of the variant's id and of the family env agree."""
    if len(own) == 2:  # reset: (obs, info)
        own, fam = (own[0], None, None, None, own[1]), (fam[0], None, None, None, fam[1])
    np.testing.assert_array_equal(fam[0], shared_obs(spec, own[0]))
    assert fam[1:4] == own[1:4]  # reward, terminated, truncated
    assert moves(FAMILY_CODEC, fam[4]["action_mask"]) == moves(
        codec_for(spec), own[4]["action_mask"]
    )
    assert fam[4]["action_mask"].dtype == np.int8
    for key in INFO_KEYS:
        assert fam[4][key] == own[4][key], key


def greedy_action(env: Any) -> int:
    """The greedy rule's move in a variant env's position."""
    tables = tables_for(env.unwrapped.variant)
    st = tables.pack(env.unwrapped.state)
    legal = np.zeros(tables.table[3], dtype=np.int64)
    count = legal_actions(st, tables.table, legal)
    return int(greedy_pick(st, tables.table, legal, count, np.zeros(0)))


# ---------------------------------------------------------------------- the nine, one by one
@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_each_variant_plays_the_same_games_through_the_family_env(
    variant: str, policy: str
) -> None:
    """Random games (with illegal actions, actions the rule set lacks, a short step limit
    and the no-progress truncation) and greedy games (the variant's own step limit) agree
    step by step: observation, legal moves, reward, episode end, info and position."""
    spec = VARIANTS[variant]
    kwargs: dict[str, Any] = {}
    if policy == "random":
        kwargs = {"max_episode_steps": 120, "max_steps_without_progress": 40}
    own = gym.make(env_id(variant), **kwargs)
    fam = gym.make(FAMILY_ENV_ID, variant=variant, **kwargs)
    rng = np.random.default_rng(7)
    first = own.reset(seed=11), fam.reset(seed=11)
    check_same(spec, *first)
    assert first[1][1]["variant"] == variant
    ends = {"terminated": 0, "truncated": 0}
    for _ in range(600 if policy == "random" else 1100):
        mask = own.unwrapped.action_masks()
        if policy == "greedy":
            a = greedy_action(own)
            shared = to_shared(spec, a)
        elif rng.random() < 0.1:  # an illegal action, or one the rule set lacks
            shared = int(rng.choice(np.flatnonzero(fam.unwrapped.action_masks() == 0)))
            lacking = rule_set_map(spec).from_shared[shared] < 0
            a = (
                int(np.flatnonzero(mask == 0)[0])
                if lacking
                else int(rule_set_map(spec).from_shared[shared])
            )
        else:
            a = int(rng.choice(np.flatnonzero(mask)))
            shared = to_shared(spec, a)
        results = own.step(a), fam.step(shared)
        check_same(spec, *results)
        assert fam.unwrapped.get_state() == own.unwrapped.get_state()
        if results[0][2] or results[0][3]:
            ends["terminated" if results[0][2] else "truncated"] += 1
            check_same(spec, own.reset(), fam.reset())
    assert sum(ends.values()) > 0
    if policy == "random":  # the short limit and the no-progress count were met
        assert ends["truncated"] > 0, ends


@pytest.mark.parametrize("variant", ["Streets", "LittleForty"])
def test_the_rule_sets_own_step_limit_truncates_as_the_variants_id(variant: str) -> None:
    """Always the last legal action: the game shuttles a card between columns until the
    variant's step limit (1000; 1500 with redeals), which the family env counts itself."""
    own = gym.make(env_id(variant))
    fam = gym.make(FAMILY_ENV_ID, variant=variant)
    _, info = own.reset(seed=0)
    fam.reset(seed=0)
    steps = 0
    while True:
        a = int(np.flatnonzero(info["action_mask"])[-1])
        r1 = own.step(a)
        r2 = fam.step(to_shared(VARIANTS[variant], a))
        steps += 1
        info = r1[4]
        assert r2[1:4] == r1[1:4]
        if r1[2] or r1[3]:
            break
    assert (steps, r2[2], r2[3]) == (VARIANTS[variant].max_episode_steps, False, True)


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("mode", MODES)
def test_each_variant_plays_the_same_batched_games_through_the_family_vector_env(
    variant: str, mode: AutoresetMode
) -> None:
    spec = VARIANTS[variant]
    n = 3
    kwargs = {"autoreset_mode": mode, "max_episode_steps": 60}
    own = FortyThievesVectorEnv(variant, n, **kwargs)
    fam = FamilyVectorEnv(variant, n, **kwargs)
    o1, _ = own.reset(seed=5)
    o2, _ = fam.reset(seed=5)
    for i in range(n):
        np.testing.assert_array_equal(o2[i], shared_obs(spec, o1[i]))
    rng = np.random.default_rng(3)
    ended = 0
    for t in range(250):
        acts = own.sample_legal(rng)
        shared = np.array([to_shared(spec, a) for a in acts.tolist()])
        if t % 9 == 0:  # game 0 plays a shared action its rule set lacks (illegal)
            lacking = np.flatnonzero(rule_set_map(spec).from_shared < 0)
            if lacking.size:
                shared[0] = lacking[-1]
                acts[0] = int(np.flatnonzero(own.action_masks()[0] == 0)[0])
        r1, r2 = own.step(acts), fam.step(shared)
        for i in range(n):
            np.testing.assert_array_equal(r2[0][i], shared_obs(spec, r1[0][i]))
            assert moves(FAMILY_CODEC, r2[4]["action_mask"][i]) == moves(
                codec_for(spec), r1[4]["action_mask"][i]
            )
            assert fam.get_state(i) == own.get_state(i)
        for k in (1, 2, 3):
            np.testing.assert_array_equal(r2[k], r1[k])
        for key in INFO_KEYS:
            np.testing.assert_array_equal(r2[4][key], r1[4][key])
        if "final_obs" in r1[4]:
            ended += 1
            for i in np.flatnonzero(r1[4]["_final_obs"]).tolist():
                np.testing.assert_array_equal(
                    r2[4]["final_obs"][i], shared_obs(spec, r1[4]["final_obs"][i])
                )
        ended += int(r1[2].any() or r1[3].any())
    assert ended > 0


@pytest.mark.parametrize("mode", MODES)
def test_the_family_vector_env_is_the_batch_of_family_envs_over_sampled_rule_sets(
    mode: AutoresetMode,
) -> None:
    """Rule sets drawn per episode: game i plays FamilyEnv's games for seed s + i."""
    n = 3
    fam = FamilyVectorEnv(None, n, autoreset_mode=mode, max_episode_steps=40)
    sync = SyncVectorEnv(
        [lambda: FamilyEnv(max_episode_steps=40) for _ in range(n)], autoreset_mode=mode
    )
    o1, _ = fam.reset(seed=21)
    o2, _ = sync.reset(seed=21)
    np.testing.assert_array_equal(o1, o2)
    rng = np.random.default_rng(4)
    seen = set(fam.rule_sets)
    for t in range(400):
        acts = fam.sample_legal(rng)
        if t % 7 == 0:
            acts[t % n] = rng.integers(FAMILY_CODEC.n_actions)  # often lacking or illegal
        r1, r2 = fam.step(acts), sync.step(acts)
        for k in range(4):
            np.testing.assert_array_equal(r1[k], r2[k])
        np.testing.assert_array_equal(r1[4]["action_mask"], r2[4]["action_mask"])
        for key in INFO_KEYS:
            np.testing.assert_array_equal(r1[4][key], r2[4][key])
        if "final_obs" in r1[4]:
            for i in np.flatnonzero(r1[4]["_final_obs"]).tolist():
                np.testing.assert_array_equal(r1[4]["final_obs"][i], r2[4]["final_obs"][i])
        seen.update(fam.rule_sets)
    assert len(seen) > 2 * n  # new rule sets came with new episodes
    assert not any(is_held_out(s) for s in seen)
    assert [e.rule_set for e in sync.envs] == list(fam.rule_sets)


def test_sample_legal_reads_the_own_masks_and_picks_what_the_shared_masks_give() -> None:
    envs = FamilyVectorEnv(None, 16)
    envs.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(30):
        picked = envs.sample_legal(np.random.default_rng(rng.integers(1 << 30)))
        expected = np.empty(16, dtype=np.int64)
        _pick_legal(envs._masks, envs._n_legal, envs._uniforms, expected)
        np.testing.assert_array_equal(picked, expected)
        assert envs.action_masks()[np.arange(16), picked].all()
        envs.step(picked)


# ---------------------------------------------------------------------- the encoding
def test_the_shared_encoding_sizes_and_the_rule_set_part() -> None:
    assert FAMILY_CODEC.n_actions == 3 + 2 * 13 + 13 * 12 * 13 == 2057
    assert FAMILY_LAYOUT.cards.size == 13 * 20 + 97 + 97 + 8 + 13 + 2 == 477
    assert FAMILY_LAYOUT.size == 501
    lucas = FamilyEnv(variant="Lucas").reset(seed=0)[0]
    assert lucas[477:488].tolist() == [13, 0, 3, 1, 0, 0, 0, 0, 1, 0, 1]
    assert lucas[488:].tolist() == [1] * 13
    little = FamilyEnv(variant="LittleForty").reset(seed=0)[0]
    assert little[477:488].tolist() == [10, 0, 4, 0, 0, 1, 1, 0, 3, 3, 0]
    assert little[488:].tolist() == [1] * 10 + [0] * 3
    high = FAMILY_LAYOUT.high()
    assert high[:454].max() == 52 and high[FAMILY_LAYOUT.cards.foundations].tolist() == [13] * 8
    assert high[FAMILY_LAYOUT.cards.stock] == 97 and high[477] == 13 and high[485] == 3


@pytest.mark.parametrize("spec", [*VARIANTS.values(), *HELD_OUT_GAMES.values()], ids=lambda s: s.id)
def test_every_action_of_a_rule_set_is_the_shared_action_of_the_same_move(
    spec: VariantSpec,
) -> None:
    rule_map = rule_set_map(spec)
    codec = codec_for(spec)
    assert [FAMILY_CODEC.to_move(a) for a in rule_map.to_shared.tolist()] == [
        codec.to_move(a) for a in range(codec.n_actions)
    ]
    assert (np.diff(rule_map.to_shared) > 0).all()  # the action order is kept
    lacking = np.flatnonzero(rule_map.from_shared < 0)
    assert lacking.size == FAMILY_CODEC.n_actions - codec.n_actions


def test_an_action_the_rule_set_lacks_is_masked_and_illegal() -> None:
    env = FamilyEnv(variant="Maria")  # 9 columns, one card at a time
    obs, info = env.reset(seed=1)
    for move in ("t9>f", "w>t12", "t0>t1x2"):
        a = env.move_to_action(move)
        assert info["action_mask"][a] == 0
        obs2, reward, terminated, truncated, info2 = env.step(a)
        assert (reward, terminated, truncated, info2["illegal_action"]) == (
            -0.1,
            False,
            False,
            True,
        )
        np.testing.assert_array_equal(obs2, obs)
    raising = FamilyEnv(variant="Maria", illegal_action="raise")
    raising.reset(seed=1)
    with pytest.raises(
        IllegalMoveError, match=r"'t9>f' .* Maria: the rule set has 9 columns \(t0..t8\)"
    ):
        raising.step(raising.move_to_action("t9>f"))
    with pytest.raises(IllegalMoveError, match="moves one card at a time"):
        raising.step(raising.move_to_action("t0>t1x2"))


def test_illegal_actions_in_the_batch_raise_naming_the_game_and_the_reason() -> None:
    envs = FamilyVectorEnv("Maria", 2, illegal_action="raise")
    envs.reset(seed=0)
    acts = envs.sample_legal(np.random.default_rng(0))
    acts[1] = FAMILY_CODEC.from_move("t11>f")
    before = envs._obs.copy()
    with pytest.raises(IllegalMoveError, match=r"game 1: illegal move 't11>f' .* has 9 columns"):
        envs.step(acts)
    np.testing.assert_array_equal(envs._obs, before)  # nothing moved


# ---------------------------------------------------------------------- the split and the sampler
def test_the_held_out_games_are_named_in_bounds_and_distinct() -> None:
    assert len(HELD_OUT) == 19 and set(VARIANTS) <= set(HELD_OUT)
    specs = [*HELD_OUT.values(), *OTHER_READINGS]
    assert len({rule_key(s) for s in specs}) == len(specs)
    for spec in specs:
        assert FAMILY_BOUNDS.outside(spec) == "", spec.id
        assert split_of(spec) == "held_out" and is_held_out(rule_set(*rule_key(spec)))
        assert not TRAINING.accepts(spec)
    for spec in HELD_OUT_GAMES.values():
        assert spec.pysol_id is not None and spec.name
    assert (
        HELD_OUT_GAMES["Josephine"].sequence_moves
        and HELD_OUT_GAMES["SanJuanHill"].aces_on_foundations
    )
    assert (
        HELD_OUT_GAMES["FortyAndEight"].redeals == 1 and HELD_OUT_GAMES["BusyAces"].n_columns == 12
    )


def test_the_training_distribution_never_draws_a_held_out_game_and_follows_its_seed() -> None:
    rng = np.random.default_rng(2024)
    draws = [TRAINING.sample(rng) for _ in range(3000)]
    assert not any(is_held_out(s) for s in draws)
    assert all(FAMILY_BOUNDS.outside(s) == "" and split_of(s) == "train" for s in draws)
    again = np.random.default_rng(2024)
    assert [TRAINING.sample(again) for _ in range(3000)] == draws
    assert len({s.id for s in draws}) > 2800  # spread over ~40,000 rule sets
    # every field takes all its values
    for name, values in FAMILY_BOUNDS.choices().items():
        assert {getattr(s, name) for s in draws} == set(values), name


def test_the_training_support_is_every_dealable_rule_set_of_the_bounds_but_the_held_out() -> None:
    dealable = 0
    for c, fd, fu, _b, _s, _e, deal, redeals, aces in FAMILY_BOUNDS.combinations():
        stock = 104 - 8 * aces - c * (fd + fu)  # restated: RULES.md's deal
        dealable += stock > 0 or (stock == 0 and deal == 1 and redeals == 0)
    assert TRAINING.support_size == dealable - 21 == 39_891  # 19 named games, 2 readings


def test_the_sampler_rejects_the_held_out_games_of_a_narrow_box() -> None:
    """Forty Thieves' numbers with both move rules and both empty-column rules: Forty
    Thieves and Josephine are held out, so only their Kings-only versions are drawn."""
    box = FamilyBounds(
        n_columns=(10, 10),
        face_down=(0, 0),
        face_up=(4, 4),
        builds=(Build.SAME_SUIT,),
        deal_count=(1, 1),
        redeals=(0, 0),
        aces_on_foundations=(False,),
    )
    sampler = RuleSetSampler(box)
    rng = np.random.default_rng(0)
    drawn = {sampler.sample(rng).id for _ in range(200)}
    assert drawn == {
        "R10c0d4u_SS_one_kings_deal1_redeal0",
        "R10c0d4u_SS_seq_kings_deal1_redeal0",
    }
    assert sampler.support_size == 2
    assert not sampler.accepts(VARIANTS["FortyThieves"]) and not sampler.accepts(
        HELD_OUT["Josephine"]
    )


def test_a_box_with_nothing_to_draw_or_outside_the_family_is_refused() -> None:
    only_forty_thieves = FamilyBounds(
        n_columns=(10, 10),
        face_down=(0, 0),
        face_up=(4, 4),
        builds=(Build.SAME_SUIT,),
        sequence_moves=(False,),
        empty_columns=(EmptyColumn.ANY,),
        deal_count=(1, 1),
        redeals=(0, 0),
        aces_on_foundations=(False,),
    )
    with pytest.raises(
        ValueError, match="hold no rule set to train on: every one is held out or cannot be dealt"
    ):
        RuleSetSampler(only_forty_thieves).sample(np.random.default_rng(0))
    too_many_cards = FamilyBounds(
        n_columns=(13, 13), face_down=(3, 3), face_up=(5, 5), aces_on_foundations=(True,)
    )
    with pytest.raises(ValueError, match="hold no rule set"):
        RuleSetSampler(too_many_cards).sample(np.random.default_rng(0))
    with pytest.raises(
        ValueError, match=r"inside the family's bounds .*: n_columns 6..13 is not inside 7..13"
    ):
        RuleSetSampler(FamilyBounds(n_columns=(6, 13)))
    with pytest.raises(ValueError, match=r"FamilyBounds.face_up must be a \(low, high\) pair"):
        FamilyBounds(face_up=(5, 1))
    with pytest.raises(TypeError, match=r"numpy\.random\.Generator"):
        TRAINING.sample(0)  # type: ignore[arg-type]


def test_rule_sets_that_cannot_be_dealt_are_refused() -> None:
    with pytest.raises(ValueError, match="the tableau takes 104 cards but only 96 are dealt"):
        rule_set(13, 3, 5, Build.SAME_SUIT, False, aces_on_foundations=True)
    with pytest.raises(ValueError, match="deal_count must be 1 without a stock"):
        rule_set(13, 3, 5, Build.SAME_SUIT, False, deal_count=3)


def test_rule_set_ids_read_back_into_the_same_rule_set() -> None:
    rng = np.random.default_rng(9)
    for spec in [TRAINING.sample(rng) for _ in range(50)]:
        assert get_rule_set(rule_set_id(spec)) == spec
    assert rule_set_id(VARIANTS["Lucas"]) == "R13c0d3u_SS_one_any_deal1_redeal0_aces"
    assert get_rule_set("Josephine") is HELD_OUT_GAMES["Josephine"]
    spec = get_rule_set("R10c0d4u_AC_seq_kings_deal2_redeal1")
    assert (spec.build, spec.sequence_moves, spec.empty_column, spec.deal_count, spec.redeals) == (
        Build.ALTERNATE_COLOUR,
        True,
        EmptyColumn.KINGS,
        2,
        1,
    )
    assert (
        spec.max_episode_steps == 1500
        and rule_set(10, 0, 4, "same_suit", False).max_episode_steps == 1000
    )
    with pytest.raises(
        ValueError, match="unknown rule set 'Klondike': give a VariantSpec, one of the ids"
    ):
        get_rule_set("Klondike")


# ---------------------------------------------------------------------- the environments
def test_gym_make_check_env_and_make_vec() -> None:
    env = gym.make(FAMILY_ENV_ID)
    check_env(env.unwrapped, skip_render_check=True)
    assert env.spec.max_episode_steps is None  # the env counts its rule set's limit
    envs = gym.make_vec(
        FAMILY_ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", variant="Maria"
    )
    assert isinstance(envs, FamilyVectorEnv)
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (2, 501) and envs.single_action_space.n == 2057
    assert envs.rule_sets == (VARIANTS["Maria"], VARIANTS["Maria"])


def test_seeds_fix_the_rule_sets_and_the_deals() -> None:
    a, b = FamilyEnv(), FamilyEnv()
    for seed in (0, 1, 2):
        oa, ia = a.reset(seed=seed)
        ob, ib = b.reset(seed=seed)
        np.testing.assert_array_equal(oa, ob)
        assert ia["variant"] == ib["variant"] == a.rule_set.id
    ids = {a.reset()[1]["variant"] for _ in range(20)}
    assert len(ids) > 10  # a new rule set most episodes


def test_reset_options_choose_the_rule_set_the_position_and_the_pysol_deal() -> None:
    env = FamilyEnv()
    _, info = env.reset(seed=0, options={"variant": "Josephine"})
    assert info["variant"] == "Josephine" and env.rule_set == HELD_OUT_GAMES["Josephine"]
    position = env.get_state()
    env.reset(seed=1)
    env.reset(options={"state": position})  # read by its own "variant" id
    assert env.get_state() == position
    with pytest.raises(InvalidPositionError):
        env.reset(options={"state": position, "variant": "Streets"})
    assert env.get_state() == position  # refused: nothing changed
    pytest.importorskip("pysol_cards")
    _, info = env.reset(options={"variant": "Maria", "pysol_deal": 5})
    own = gym.make(env_id("Maria")).unwrapped
    own.reset(options={"pysol_deal": 5})
    assert env.get_state() == own.get_state()


def test_bad_arguments_and_options_are_refused_in_one_line() -> None:
    wide = VariantSpec("Wide", "Wide", 14, 0, 3, Build.SAME_SUIT, False)
    cases = [
        (
            lambda: FamilyEnv(variant=wide),
            "rule set 'Wide' is outside the family's bounds: n_columns 14 is not in 7..13",
        ),
        (lambda: FamilyEnv(variant="Klondike"), "unknown rule set 'Klondike'"),
        (
            lambda: FamilyEnv(variant="Maria", sampler=TRAINING),
            "pass variant= (one rule set) or sampler=",
        ),
        (lambda: FamilyEnv(backend="python"), "backend must be 'auto' or 'numba'"),
        (lambda: FamilyEnv(max_episode_steps=0), "max_episode_steps"),
        (lambda: FamilyEnv().reset(options={"pysol_deal": 3}), "needs a named variant"),
        (
            lambda: FamilyEnv().reset(options={"state": {"tableau": []}}),
            "options['state'] needs a rule set",
        ),
        (lambda: FamilyVectorEnv(None, 2).reset(options={"variant": ["Maria"]}), "a list of 2"),
        (lambda: FamilyEnv().step(0), "call reset() before step()"),
    ]
    for make, message in cases:
        with pytest.raises((ValueError, RuntimeError)) as err:
            make()
        assert message in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(
        TypeError, match=r"sampler must be a fortythieves_env\.envs\.family\.RuleSetSampler"
    ):
        FamilyEnv(sampler="uniform")  # type: ignore[arg-type]
    env = FamilyEnv(variant="Maria")
    env.reset(seed=0)
    with pytest.raises(
        ValueError, match=r"action 2057 is outside the action space Discrete\(2057\)"
    ):
        env.step(2057)


def test_a_vector_reset_takes_a_rule_set_per_game_and_positions_by_their_own_ids() -> None:
    envs = FamilyVectorEnv(None, 3)
    envs.reset(seed=0, options={"variant": ["Lucas", None, HELD_OUT_GAMES["Roosevelt"]]})
    assert envs.rule_sets[0] == VARIANTS["Lucas"] and envs.rule_sets[2].id == "Roosevelt"
    assert TRAINING.accepts(envs.rule_sets[1])
    positions = [envs.get_state(i) for i in range(3)]
    envs.reset(seed=5)
    envs.reset(options={"state": positions})
    assert [envs.get_state(i) for i in range(3)] == positions
    assert "Lucas" in envs.board_text(0)


def test_a_pickled_family_env_goes_on_as_the_original() -> None:
    env = FamilyEnv(max_steps_without_progress=50)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(30):
        env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    clone = pickle.loads(pickle.dumps(env))
    for _ in range(60):
        a = int(rng.choice(np.flatnonzero(env.action_masks())))
        r1, r2 = env.step(a), clone.step(a)
        np.testing.assert_array_equal(r1[0], r2[0])
        assert r1[1:4] == r2[1:4] and (r1[4]["action_mask"] == r2[4]["action_mask"]).all()
        if r1[2] or r1[3]:
            r1, r2 = env.reset(), clone.reset()
            np.testing.assert_array_equal(r1[0], r2[0])


def test_text_and_pictures_show_the_rule_sets_game() -> None:
    env = FamilyEnv(variant="Streets", render_mode="ansi")
    assert env.render() == "(no game: call reset())"
    env.reset(seed=0)
    own = gym.make(env_id("Streets")).unwrapped
    own.reset(seed=0)
    assert env.render() == own.board_text()
    assert env.legal_moves() == own.legal_moves()
    picture = FamilyEnv(variant="Streets", render_mode="rgb_array")
    picture.reset(seed=0)
    assert picture.render().shape[2] == 3


def test_family_rule_sets_cover_every_combination_of_the_rule_fields() -> None:
    """Each rule field changes the game the family env plays (the rule-set part tells)."""
    env = FamilyEnv()
    for build, moves_, empty in itertools.product(list(Build), (False, True), list(EmptyColumn)):
        spec = rule_set(8, 1, 3, build, moves_, empty, 2, 1)
        obs, info = env.reset(seed=0, options={"variant": spec})
        assert info["variant"] == spec.id
        np.testing.assert_array_equal(obs[477:], FAMILY_LAYOUT.rule_features(spec))
        own_obs, own_info = FortyThievesEnv(spec).reset(seed=0)
        np.testing.assert_array_equal(obs, shared_obs(spec, own_obs))
        assert moves(FAMILY_CODEC, info["action_mask"]) == moves(
            codec_for(spec), own_info["action_mask"]
        )
