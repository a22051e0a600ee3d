"""Invalid positions are refused with an error that says what is wrong."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
from positions import position

from fortythieves_env import FortyThievesEnv, InvalidPositionError


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
        InvalidPositionError, match=r"missing keys \['waste'\], unknown keys \['talon'\]"
    ):
        FortyThievesEnv("NumberTen").reset(options={"state": pos})
    with pytest.raises(InvalidPositionError, match="expected a dict"):
        FortyThievesEnv("NumberTen").reset(options={"state": [1, 2]})


def test_face_down_top_card_is_refused() -> None:
    pos = dealt()
    pos["face_down"][2] = 4
    with pytest.raises(InvalidPositionError, match=r"face_down\[2\] is 4"):
        FortyThievesEnv("NumberTen").reset(options={"state": pos})
    pos = position("Indian", [["5H", "6C"], ["AS"]], face_down=[0, 1] + [0] * 8)
    with pytest.raises(InvalidPositionError, match=r"face_down\[1\] is 1 but column 1 has 1 card"):
        FortyThievesEnv("Indian").reset(options={"state": pos})


def test_column_too_long_for_the_observation() -> None:
    cards = [r + s for s in "CD" for r in "A23456789"]  # 18 face-up cards > 16 slots
    pos = position("Streets", [cards])
    with pytest.raises(InvalidPositionError, match="column 0 has 18 face-up cards; at most 16"):
        FortyThievesEnv("Streets").reset(options={"state": pos})


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
