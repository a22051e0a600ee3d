"""Invalid positions are refused with an error that says what is wrong."""

from __future__ import annotations

import copy
import itertools
import re
from collections.abc import Callable

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from positions import position, reference_builds

import fortythieves_env
from fortythieves_env import VARIANTS, FortyThievesEnv, InvalidPositionError

pytestmark = pytest.mark.usefixtures("backend")  # every test on both backends


def dealt(variant: str = "NumberTen", seed: int = 0) -> dict:
    env = FortyThievesEnv(variant)
    env.reset(seed=seed)
    return env.get_state()


def _set(key: str, value: object) -> Callable[[dict], None]:
    def edit(pos: dict) -> None:
        pos[key] = value

    return edit


def _drop_a_card(pos: dict) -> None:
    pos["stock"].pop()


def _third_copy(pos: dict) -> None:
    pos["stock"][0] = pos["tableau"][0][-1]


def _unknown_card(pos: dict) -> None:
    pos["tableau"][3][1] = "1H"


def _too_many_face_down(pos: dict) -> None:
    pos["face_down"][4] = 3  # Number Ten deals 2 face down


def _bad_foundation(pos: dict) -> None:
    card = pos["tableau"][0].pop()
    pos["foundations"][5] = [card]


CASES = [
    (_set("variant", "Maria"), "position is for variant 'Maria', this game is 'NumberTen'"),
    (_drop_a_card, "the position has 103 cards, not 104; missing: "),
    (_third_copy, "appears 3 times"),
    (_unknown_card, r"tableau\[3\]\[1\]: unknown card '1H'"),
    (_too_many_face_down, r"face_down\[4\] is 3; Number Ten deals 2 face-down card\(s\)"),
    (_set("face_down", [0] * 9), "face_down must be a list of 10 integers"),
    (_set("tableau", [[]] * 9), "tableau must be a list of 10 columns"),
    (_set("redeals_left", 1), r"redeals_left must be an integer 0\.\.0, got 1"),
    (_set("foundations", [[]] * 7), "foundations must be a list of 8 piles"),
    (_set("stock", "AS"), "stock must be a list of cards"),
    (_bad_foundation, r"foundations\[5\] must run from the Ace up in one suit"),
]


@pytest.mark.parametrize(("edit", "message"), CASES)
def test_invalid_position_is_refused(edit: Callable[[dict], None], message: str) -> None:
    pos = dealt()
    edit(pos)
    env = FortyThievesEnv("NumberTen")
    with pytest.raises(InvalidPositionError, match=message):
        env.reset(options={"state": pos})


def test_missing_and_unknown_keys() -> None:
    pos = dealt()
    del pos["waste"]
    pos["talon"] = []
    with pytest.raises(
        InvalidPositionError, match=r"missing keys \['waste'\]; unknown keys \['talon'\]"
    ):
        FortyThievesEnv("NumberTen").reset(options={"state": pos})
    with pytest.raises(InvalidPositionError, match="expected a dict"):
        FortyThievesEnv("NumberTen").reset(options={"state": [1, 2]})


def test_face_down_top_card_is_refused() -> None:
    pos = dealt()
    pos["face_down"][2] = 4
    with pytest.raises(InvalidPositionError, match=r"face_down\[2\] is 4"):
        FortyThievesEnv("NumberTen").reset(options={"state": pos})
    pos = position("Indian", [["6C", "5H"], ["AS"]], face_down=[0, 1] + [0] * 8)
    with pytest.raises(InvalidPositionError, match=r"face_down\[1\] is 1 but column 1 has 1 card"):
        FortyThievesEnv("Indian").reset(options={"state": pos})


def test_unreachable_columns_are_refused() -> None:
    # 18 face-up cards with no run: far more than the 4 dealt to a Streets column
    cards = [r + s for s in "CD" for r in "A23456789"]
    pos = position("Streets", [cards])
    with pytest.raises(
        InvalidPositionError,
        match="column 0 cannot be reached: it has 18 cards but only the last 1 ",
    ):
        FortyThievesEnv("Streets").reset(options={"state": pos})
    # 16 cards (within the 16 slots) but the first 12 are no run: it could overflow later
    col = [
        "KC",
        "QD",
        "JS",
        "TC",
        "9D",
        "8S",
        "7C",
        "6D",
        "5S",
        "4C",
        "3D",
        "2S",
        "KS",
        "QS",
        "JS",
        "2H",
    ]
    pos = position("FortyThieves", [col, ["AH"]])
    with pytest.raises(
        InvalidPositionError,
        match="column 0 cannot be reached: it has 16 cards but only the last 1 ",
    ):
        FortyThievesEnv("FortyThieves").reset(options={"state": pos})


def test_the_longest_reachable_column_is_accepted() -> None:
    """Four dealt cards left, the last (KH) with a run of 12 built on it: 16, a full column."""
    run = ["KH", "QS", "JH", "TS", "9H", "8S", "7H", "6S", "5H", "4S", "3H", "2S", "AH"]
    pos = position("Streets", [["5C", "9D", "7D", *run], ["KD"]])
    env = FortyThievesEnv("Streets")
    obs, _ = env.reset(options={"state": pos})
    assert obs[env.layout.column(0)].tolist()[-1] == 27  # AH in the last of 16 slots
    pos = position("NumberTen", [["5C", "9D", "7D", *run]], face_down=[2] + [0] * 9)
    env = FortyThievesEnv("NumberTen")
    obs, _ = env.reset(options={"state": pos})  # 14 face-up cards over 2 face-down
    assert obs[env.layout.column(0)].tolist()[13:] == [27, 0, 0]
    pos = position("NumberTen", [["5C", "9D", "7D", "3C", *run]], face_down=[2] + [0] * 9)
    with pytest.raises(
        InvalidPositionError, match="it has 17 cards but only the last 13 are built"
    ):
        FortyThievesEnv("NumberTen").reset(options={"state": pos})


def test_lucas_aces_must_be_on_the_foundations() -> None:
    env = FortyThievesEnv("Lucas")
    pos = position("Lucas", [["AC"]])
    assert pos["foundations"][1] == []
    with pytest.raises(
        InvalidPositionError, match="Lucas starts with the 8 Aces on the foundations, but AC"
    ):
        env.reset(options={"state": pos})


def test_card_counts_are_checked_before_columns() -> None:
    pos = dealt()
    pos["tableau"][0] += ["JH", "JH"]  # 106 cards: the count is the first thing wrong
    with pytest.raises(InvalidPositionError, match=r"JH appears [34] times"):
        FortyThievesEnv("NumberTen").reset(options={"state": pos})


def test_numpy_integers_are_fine_in_positions() -> None:
    pos = dealt()
    pos["face_down"] = [np.int64(x) for x in pos["face_down"]]
    pos["redeals_left"] = np.int32(0)
    env = FortyThievesEnv("NumberTen")
    env.reset(options={"state": pos})
    assert env.get_state() == dealt()
    pos["variant"] = np.array(["NumberTen"])
    with pytest.raises(InvalidPositionError, match="position is for variant"):
        env.reset(options={"state": pos})


def test_more_cards_outside_the_tableau_than_the_variant_has() -> None:
    pos = position("Streets", [["KS"]], foundations=[[]] * 8)
    with pytest.raises(
        InvalidPositionError, match="stock and waste hold 103 cards; Streets has only 64"
    ):
        FortyThievesEnv("Streets").reset(options={"state": pos})


def test_a_refused_position_leaves_the_game_as_it_was() -> None:
    env = FortyThievesEnv("NumberTen")
    env.reset(seed=0)
    before = env.get_state()
    bad = copy.deepcopy(before)
    bad["stock"].pop()
    with pytest.raises(InvalidPositionError):
        env.reset(options={"state": bad})
    assert env.get_state() == before


def _steps_to_truncation(env: gym.Env | gym.vector.VectorEnv, vector: bool = False) -> int:
    """Steps of the first legal action each time until the env truncates (at most 50)."""
    for steps in range(1, 51):
        mask = env.unwrapped.action_masks()
        if vector:
            out = env.step(mask.argmax(axis=1))
            term, trunc = out[2][0], out[3][0]
        else:
            term, trunc = env.step(int(mask.argmax()))[2:4]
        assert not term
        if trunc:
            return steps
    raise AssertionError("no truncation within 50 steps")


def test_a_refused_reset_through_gym_make_restarts_time_limits_count() -> None:
    """As the docs say (the environment page): the env changes nothing, but Gymnasium's ``TimeLimit`` zeroes
    its count before it calls the env's ``reset``, so the old game goes on with the limit
    counted afresh. The batched env keeps its own count."""
    env = gym.make("FortyThieves/Streets-v0", max_episode_steps=6)
    env.reset(seed=0)
    for _ in range(4):
        env.step(int(env.unwrapped.action_masks().argmax()))
    before = env.unwrapped.get_state()
    with pytest.raises(InvalidPositionError, match="missing keys"):
        env.reset(options={"state": {"bad": 1}})
    assert env.unwrapped.get_state() == before  # the game goes on ...
    assert _steps_to_truncation(env) == 6  # ... with 6 steps more, not 2

    envs = fortythieves_env.FortyThievesVectorEnv("Streets", 1, max_episode_steps=6)
    envs.reset(seed=0)
    for _ in range(4):
        envs.step(envs.action_masks().argmax(axis=1))
    with pytest.raises(InvalidPositionError, match="missing keys"):
        envs.reset(options={"state": {"bad": 1}})
    assert _steps_to_truncation(envs, vector=True) == 2


# ------------------------------------------------------------------ turned-up cards (issue 7.3)
def _first_broken_column(pos: dict) -> int:
    """The first column whose cards, all face up, are not one built run (plain strings)."""
    for i, col in enumerate(pos["tableau"]):
        if any(not reference_builds(pos["variant"], b, a) for a, b in itertools.pairwise(col)):
            return i
    raise AssertionError("every column is one run")


@pytest.mark.parametrize("variant", ["NumberTen", "Indian", "RankAndFile"])
def test_face_up_cards_over_turned_up_ones_must_be_one_run(variant: str) -> None:
    """A face-down card turns up only as the column top, so all face-up cards are one run."""
    env = gym.make(f"FortyThieves/{variant}-v0")
    env.reset(seed=0)
    pos = env.unwrapped.get_state()
    pos["face_down"] = [0] * len(pos["face_down"])
    i = _first_broken_column(pos)
    with pytest.raises(
        InvalidPositionError, match=rf"column {i} cannot be reached: face_down\[{i}\] is 0"
    ):
        env.reset(options={"state": pos})
    if variant == "NumberTen":
        assert i == 0  # the case of the issue


def test_turned_up_column_with_one_run_is_accepted_and_one_card_more_is_not() -> None:
    # Number Ten deals 2 face down: one turned up (face_down 1), 9H 8S 7H built on it.
    pos = position("NumberTen", [["KC", "9H", "8S", "7H"], ["TC"]], face_down=[1] + [0] * 9)
    FortyThievesEnv("NumberTen").reset(options={"state": pos})
    pos = position("NumberTen", [["KC", "9H", "8S", "7C"], ["TC"]], face_down=[1] + [0] * 9)
    with pytest.raises(
        InvalidPositionError, match=r"column 0 cannot be reached.* 7C does not build on 8S"
    ):
        FortyThievesEnv("NumberTen").reset(options={"state": pos})
    # with no face-down card turned up, the dealt face-up cards need not be a run
    pos = position("NumberTen", [["KC", "2D", "9H", "5C"], ["TC"]], face_down=[2] + [0] * 9)
    FortyThievesEnv("NumberTen").reset(options={"state": pos})


def _corruptions(pos: dict) -> dict[str, tuple[dict, str]]:
    """Named corruptions of a reachable position that no game can reach, with the message.

    Each applies to every position except ``hidden cards turned up``, which needs a column
    with a face-down card whose cards are not all one run.
    """
    spec = VARIANTS[pos["variant"]]
    out: dict[str, tuple[dict, str]] = {}
    bad = copy.deepcopy(pos)
    bad["face_down"][0] = spec.face_down + 1
    out["too many face down"] = (bad, rf"face_down\[0\] is {spec.face_down + 1}")
    bad = copy.deepcopy(pos)
    pile = next(p for p in bad["tableau"] + [bad["stock"], bad["waste"]] + bad["foundations"] if p)
    card = pile.pop()
    out["a card missing"] = (bad, f"the position has 103 cards, not 104; missing: {card}")
    bad = copy.deepcopy(pos)
    bad["waste"].append(card)
    out["a card three times"] = (bad, f"{card} appears 3 times")
    bad = copy.deepcopy(pos)
    bad["redeals_left"] = spec.redeals + 1
    out["too many redeals left"] = (bad, "redeals_left must be an integer")
    i = next((i for i, col in enumerate(pos["tableau"]) if col), None)
    if i is not None:
        bad = copy.deepcopy(pos)
        bad["face_down"][i] = len(pos["tableau"][i])
        out["top card face down"] = (bad, rf"face_down\[{i}\] is {len(pos['tableau'][i])}")
    for i, (col, fd) in enumerate(zip(pos["tableau"], pos["face_down"], strict=True)):
        if fd and any(
            not reference_builds(pos["variant"], b, a) for a, b in itertools.pairwise(col)
        ):
            bad = copy.deepcopy(pos)
            bad["face_down"][i] = 0
            out["hidden cards turned up"] = (bad, rf"column {i} cannot be reached")
            break
    return out


@pytest.mark.parametrize("variant", list(VARIANTS))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 400))
def test_reached_positions_are_accepted_and_corruptions_refused(
    variant: str, seed: int, steps: int
) -> None:
    env = FortyThievesEnv(variant)
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        legal = np.flatnonzero(info["action_mask"])
        if not len(legal):
            break
        _, _, terminated, _, info = env.step(int(rng.choice(legal)))
        if terminated:
            break
    pos = env.get_state()
    # accepted: read back exactly, and (when there is a move) as a reset position
    assert env.rules.to_position(env.rules.from_position(pos)) == pos
    if info["action_mask"].any():
        other = FortyThievesEnv(variant)
        other.reset(options={"state": pos})
        assert other.get_state() == pos
    corruptions = _corruptions(pos)
    assert len(corruptions) >= 4
    for name, (bad, message) in corruptions.items():
        with pytest.raises(InvalidPositionError, match=message):
            env.rules.from_position(bad)
        with pytest.raises(InvalidPositionError, match=message):
            FortyThievesEnv(variant).reset(options={"state": bad})
        assert name  # the corruption's name shows in the report when it fails


# ------------------------------------------------------------------ GameState entries
@pytest.mark.parametrize(
    ("pile", "height"), [(7, 14), (0, 14), (0, -1), (3, True), (0, 0.0), (5, np.bool_(False))]
)
def test_foundation_heights_of_an_assigned_state_are_checked(
    pile: int, height: object, backend: str
) -> None:
    """Each bad height is refused naming the pile and 0..13, on both backends, and the
    game is left as it was (no IndexError, no silently accepted -1 or True)."""
    env = gym.make("FortyThieves/Streets-v0", backend=backend)
    env.reset(seed=0)
    u = env.unwrapped
    before = u.get_state()
    s = u.state
    s.foundations[pile] = height
    with pytest.raises(
        InvalidPositionError,
        match=rf"invalid Streets position: foundations\[{pile}\] must be a pile height, "
        rf"an integer 0\.\.13, got {re.escape(repr(height))}$",
    ):
        u.state = s
    assert u.get_state() == before


def test_numpy_integer_foundation_heights_are_fine(backend: str) -> None:
    pos = position("Streets", [["KS"], ["KS"]], stock=[], foundations=None)
    env = FortyThievesEnv("Streets", backend=backend)
    env.reset(options={"state": pos})
    s = env.state
    s.foundations = [np.int64(h) for h in s.foundations]
    env.state = s
    assert env.get_state() == pos


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda s: s.tableau[2].__setitem__(-1, 1.0),
            r"tableau\[2\]\[\d+\]: a card code is an integer 1\.\.52, got 1\.0",
        ),
        (
            lambda s: s.waste.append(True),
            r"waste\[0\]: a card code is an integer 1\.\.52, got True",
        ),
        (lambda s: s.stock.__setitem__(0, 53), r"stock\[0\]: card code must be 1\.\.52, got 53"),
        (lambda s: s.face_down.__setitem__(1, 1.5), r"face_down\[1\] must be an integer, got 1\.5"),
        (lambda s: s.foundations.pop(), r"foundations must be 8 pile heights, got 7"),
    ],
)
def test_bad_entries_of_an_assigned_state_name_the_entry(
    edit: Callable[[object], None], message: str
) -> None:
    env = FortyThievesEnv("Streets")
    env.reset(seed=0)
    s = env.state
    edit(s)
    with pytest.raises(InvalidPositionError, match=r"invalid Streets position: " + message):
        env.state = s
