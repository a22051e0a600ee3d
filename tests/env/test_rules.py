"""Rule tests on hand-built positions, one group per rule of ``RULES.md``.

Boards are drawn bottom to top, left to right, as in the position format.
"""

from __future__ import annotations

import numpy as np
import pytest
from positions import position, reference_legal_moves

from fortythieves_env import (
    VARIANTS,
    FortyThievesEnv,
    IllegalMoveError,
    InvalidPositionError,
    Rules,
)

KINGS = [["KC"], ["KC"], ["KD"], ["KD"], ["KH"], ["KH"], ["KS"], ["KS"]]
"""Eight columns that hold a King each; the other columns are empty."""

pytestmark = pytest.mark.usefixtures("backend")  # every test on both backends


def start(variant: str, pos: dict, **kwargs: object) -> FortyThievesEnv:
    env = FortyThievesEnv(variant, illegal_action="raise", **kwargs)
    env.reset(options={"state": pos})
    return env


def play(env: FortyThievesEnv, move: str) -> tuple[float, bool, dict]:
    _, reward, terminated, truncated, info = env.step(env.move_to_action(move))
    assert not truncated
    return float(reward), terminated, info


def legal(env: FortyThievesEnv) -> set[str]:
    moves = set(env.legal_moves())
    assert moves == reference_legal_moves(env.get_state())
    return moves


# ----------------------------------------------------------------------------- the deal
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_deal_matches_the_variant_table(variant: str) -> None:
    spec = VARIANTS[variant]
    env = FortyThievesEnv(variant)
    env.reset(seed=0)
    pos = env.get_state()
    assert [len(col) for col in pos["tableau"]] == [spec.face_down + spec.face_up] * spec.n_columns
    assert pos["face_down"] == [spec.face_down] * spec.n_columns
    assert pos["waste"] == []
    assert pos["redeals_left"] == spec.redeals
    assert len(pos["stock"]) == spec.stock_size
    table = {  # columns, dealt per column, stock: straight from the rule book's table
        "FortyThieves": (10, 4, 64), "Indian": (10, 3, 74), "Limited": (12, 3, 68),
        "LittleForty": (10, 4, 64), "Lucas": (13, 3, 57), "Maria": (9, 4, 68),
        "NumberTen": (10, 4, 64), "RankAndFile": (10, 4, 64), "Streets": (10, 4, 64),
    }  # fmt: skip
    assert (spec.n_columns, spec.cards_per_column, spec.stock_size) == table[variant]
    if spec.aces_on_foundations:
        assert pos["foundations"] == [["A" + s] for s in "CCDDHHSS"]
        assert not any(c[0] == "A" for col in pos["tableau"] for c in col)
    else:
        assert pos["foundations"] == [[]] * 8


def test_deal_order_rows_then_stock() -> None:
    """The shuffled cards are dealt row by row; the next card in the deck is drawn first."""
    rules = Rules("Indian")
    order = np.random.default_rng(5).permutation(104).tolist()
    deck = [code for code in range(1, 53)] * 2
    cards = [deck[k] for k in order]
    state = rules.deal(np.random.default_rng(5))
    assert [col[0] for col in state.tableau] == cards[:10]  # the face-down row comes first
    assert [col[2] for col in state.tableau] == cards[20:30]
    assert state.stock[-1] == cards[30]
    assert state.stock[0] == cards[-1]


# ----------------------------------------------------------------------------- building
def test_forty_thieves_builds_down_in_suit_only() -> None:
    env = start("FortyThieves", position("FortyThieves", [["TH"], ["JH"], ["JS"], ["9H"]]))
    moves = legal(env)
    assert {"t0>t1", "t3>t0"} <= moves
    assert "t0>t2" not in moves
    with pytest.raises(
        IllegalMoveError, match=r"'t0>t2'.*TH does not go onto JS \(build: same suit"
    ):
        play(env, "t0>t2")
    play(env, "t0>t1")
    assert env.get_state()["tableau"][:2] == [[], ["JH", "TH"]]


def test_alternate_colour_build_maria_and_streets() -> None:
    for variant in ("Maria", "Streets"):
        env = start(variant, position(variant, [["TH"], ["JH"], ["JS"], ["JC"], ["JD"]]))
        moves = legal(env)
        assert {"t0>t2", "t0>t3"} <= moves
        assert not {"t0>t1", "t0>t4"} & moves


def test_other_suit_build_indian() -> None:
    env = start("Indian", position("Indian", [["TH"], ["JH"], ["JS"], ["JD"], ["QH"]]))
    moves = legal(env)
    assert {"t0>t2", "t0>t3"} <= moves  # any suit but its own: diamonds too
    assert "t0>t1" not in moves
    assert "t0>t4" not in moves  # one rank lower only


def test_king_goes_only_into_an_empty_column_and_empty_column_takes_any_card() -> None:
    fillers = [["KC"], ["KD"], ["KS"], ["KC"], ["KD"], ["KS"]]
    pos = position("FortyThieves", [["KH"], ["4C"], ["QS", "9D"], *fillers])
    env = start("FortyThieves", pos)
    moves = legal(env)
    assert "t0>t9" in moves and "t1>t9" in moves and "t2>t9" in moves
    assert not any(m.startswith("t0>t") and m != "t0>t9" for m in moves)


def test_waste_top_plays_to_tableau_and_foundation() -> None:
    pos = position("FortyThieves", [["6C"], ["8D"]] + [["KS"]] * 2, waste=["4S", "7D"])
    # the helper builds one diamond pile to KD and the other up to 6D (7D is in the waste)
    assert sorted(map(len, pos["foundations"][2:4])) == [6, 13]
    env = start("FortyThieves", pos)
    before = env.get_state()["foundations"]
    assert {"w>f", "w>t1"} <= legal(env)
    reward, _, info = play(env, "w>f")
    assert reward == 1.0 and info["foundation_cards"] == sum(map(len, before)) + 1
    assert env.get_state()["waste"] == ["4S"]
    assert sorted(map(len, env.get_state()["foundations"][2:4])) == [7, 13]


# ----------------------------------------------------------------------------- foundations
def test_foundations_build_up_in_suit_from_the_ace_on_either_pile() -> None:
    pos = position("FortyThieves", [["3C"], ["2C"], ["2H"], ["AH"]])
    # clubs: one pile AC..KC, one pile AC; hearts: one pile AH..KH, one empty
    assert [len(p) for p in pos["foundations"][:6]] == [13, 1, 13, 13, 13, 0]
    env = start("FortyThieves", pos)
    moves = legal(env)
    assert {"t1>f", "t3>f"} <= moves
    assert not {"t0>f", "t2>f"} & moves
    with pytest.raises(IllegalMoveError, match="no foundation takes 2H"):
        play(env, "t2>f")
    play(env, "t1>f")  # 2C onto the second clubs pile
    assert "t0>f" in legal(env)  # now 3C follows it
    play(env, "t3>f")  # AH starts the empty hearts pile
    play(env, "t2>f")
    assert [len(p) for p in env.get_state()["foundations"][:6]] == [13, 2, 13, 13, 13, 2]


def test_no_move_takes_a_card_back_from_a_foundation() -> None:
    env = FortyThievesEnv("Streets")
    moves = [env.action_to_move(a) for a in range(env.action_space.n)]
    assert not any(m.startswith("f") for m in moves)
    assert sum(">f" in m for m in moves) == 1 + 10  # waste or a column top, to a foundation


# ----------------------------------------------------------------------------- face-down
def test_face_down_card_turns_up_by_itself() -> None:
    pos = position("RankAndFile", [["4D", "9S", "2C", "TH"], ["JS"]], face_down=[3] + [0] * 9)
    env = start("RankAndFile", pos)
    assert env._obs[:3].tolist() == [36, 0, 0]  # only TH (2*13 + 9 + 1) is face up
    play(env, "t0>t1")
    state = env.get_state()
    assert state["face_down"][0] == 2
    assert state["tableau"][0] == ["4D", "9S", "2C"]
    assert env._obs[0] == 2  # 2C is now visible: code 0*13 + 1 + 1
    assert "t0>f" in legal(env)  # the turned-up 2C is playable at once (a clubs pile is at AC)


def test_face_down_cards_never_move_in_a_sequence() -> None:
    """A sequence is made of face-up cards only, even if the hidden card would fit it."""
    pos = position("NumberTen", [["8D", "7S", "6D"], ["9C"]], face_down=[1] + [0] * 9)
    env = start("NumberTen", pos)
    moves = legal(env)
    assert "t0>t2x2" in moves  # 7S 6D into an empty column
    assert "t0>t2x3" not in moves and "t0>t1x3" not in moves


# ----------------------------------------------------------------------------- sequences
def test_sequence_moves_number_ten() -> None:
    # KC is face down (a face-up KC under 9H could not be reached: see tests/env/test_positions.py)
    pos = position(
        "NumberTen", [["KC", "9H", "8S", "7H"], ["TC"], ["9D"], ["8C"]], face_down=[1] + [0] * 9
    )
    env = start("NumberTen", pos)
    moves = legal(env)
    assert {"t0>t1x3", "t0>t2x2", "t0>t3"} <= moves
    assert "t0>t1" not in moves  # 7H does not go on TC
    with pytest.raises(IllegalMoveError, match="sequence of 3 card"):
        play(env, "t0>t4x4")
    play(env, "t0>t1x3")
    assert env.get_state()["tableau"][:2] == [["KC"], ["TC", "9H", "8S", "7H"]]


def test_sequence_of_any_length_into_an_empty_column() -> None:
    fillers = [["KD"], ["KD"], ["KH"], ["KH"], ["KS"], ["KS"], ["KC"], ["2D"]]
    pos = position("RankAndFile", [["KC", "QH", "JS", "TH"], *fillers])
    env = start("RankAndFile", pos)
    assert {f"t0>t9x{n}" for n in (2, 3, 4)} | {"t0>t9"} <= legal(env)
    play(env, "t0>t9x4")
    assert env.get_state()["tableau"][9] == ["KC", "QH", "JS", "TH"]


def test_single_card_variants_have_no_sequence_moves() -> None:
    pos = position("Streets", [["9H", "8S"], ["TC"]])
    env = start("Streets", pos)
    assert "t0>t1" not in legal(env)
    with pytest.raises(ValueError, match=r"1\.\.1 card"):
        env.move_to_action("t0>t1x2")


def test_little_forty_sequences_follow_its_own_build_rule() -> None:
    # 9H on TD is a sequence in Little Forty (any suit but its own), so both move onto JC.
    pos = position("LittleForty", [["TD", "9H"], ["JC"], ["JD"]])
    env = start("LittleForty", pos)
    moves = legal(env)
    assert "t0>t1x2" in moves
    assert "t0>t2x2" not in moves


# ----------------------------------------------------------------------------- stock and waste
def test_draw_one_card() -> None:
    env = FortyThievesEnv("FortyThieves")
    env.reset(seed=1)
    stock = env.get_state()["stock"]
    env.step(env.move_to_action("draw"))
    state = env.get_state()
    assert state["waste"] == [stock[-1]] and state["stock"] == stock[:-1]


def test_little_forty_deals_three_and_redeals_three_times() -> None:
    pos = position(
        "LittleForty",
        KINGS,
        stock=["8H", "9H", "TH", "JH", "QH"],
        waste=[],
        redeals_left=3,
    )
    env = start("LittleForty", pos)
    play(env, "draw")
    assert env.get_state()["waste"] == ["QH", "JH", "TH"]  # the third card is the new top
    assert "redeal" not in legal(env)  # the stock is not empty yet
    play(env, "draw")  # fewer than three left: deal what is left
    state = env.get_state()
    assert state["waste"] == ["QH", "JH", "TH", "9H", "8H"] and state["stock"] == []
    for left in (2, 1, 0):
        assert "redeal" in legal(env) and "draw" not in legal(env)
        play(env, "redeal")
        state = env.get_state()
        assert state["redeals_left"] == left and state["waste"] == []
        assert state["stock"] == ["8H", "9H", "TH", "JH", "QH"]  # first dealt comes out first
        play(env, "draw")
        assert env.get_state()["waste"] == ["QH", "JH", "TH"]
        play(env, "draw")
    assert "redeal" not in legal(env)  # four passes in all
    with pytest.raises(IllegalMoveError, match="no redeals are left"):
        play(env, "redeal")


def test_redeal_needs_a_waste() -> None:
    pos = position("LittleForty", KINGS, stock=[], redeals_left=2)
    env = FortyThievesEnv("LittleForty")
    env.reset(options={"state": pos})
    assert "redeal" not in env.legal_moves()
    assert env.rules.why_illegal(env.state, 1) == "the waste is empty"


def test_no_redeal_without_redeals() -> None:
    pos = position("FortyThieves", KINGS, stock=[], waste=["QH"])
    env = start("FortyThieves", pos)
    assert "redeal" not in legal(env) and "draw" not in legal(env)


# ----------------------------------------------------------------------------- Lucas
def test_lucas_aces_start_on_the_foundations() -> None:
    env = FortyThievesEnv("Lucas")
    _, info = env.reset(seed=3)
    assert info["foundation_cards"] == 8
    pos = env.get_state()
    assert sorted(c for col in pos["tableau"] for c in col).count("AS") == 0
    assert len(pos["stock"]) + sum(len(col) for col in pos["tableau"]) == 96
    twos = [i for i, col in enumerate(pos["tableau"]) if col[-1][0] == "2"]
    assert {f"t{i}>f" for i in twos} <= set(env.legal_moves())


# ----------------------------------------------------------------------------- end of the game
def test_win_terminates_with_bonus_and_success() -> None:
    foundations = [[r + s for r in "A23456789TJQK"] for s in "CCDDHHS"] + [
        [r + "S" for r in "A23456789TJQ"]
    ]
    pos = position("FortyThieves", [["KS"]], stock=[], foundations=foundations)
    env = start("FortyThieves", pos, win_bonus=25.0, reward_per_card=2.0)
    reward, terminated, info = play(env, "t0>f")
    assert (reward, terminated) == (27.0, True)
    assert info["is_success"] is True and info["foundation_cards"] == 104
    assert info["action_mask"].sum() == 0


def test_every_action_after_a_win_is_refused_as_game_over() -> None:
    """Not "the stock is empty": after the win the reason is that the game is over."""
    foundations = [[r + s for r in "A23456789TJQK"] for s in "CCDDHHS"] + [
        [r + "S" for r in "A23456789TJQ"]
    ]
    env = start(
        "FortyThieves", position("FortyThieves", [["KS"]], stock=[], foundations=foundations)
    )
    assert play(env, "t0>f")[1] is True
    for move in ("draw", "redeal", "w>f", "t0>f", "t1>t2"):
        with pytest.raises(
            IllegalMoveError,
            match=rf"^illegal move '{move}' \(action \d+\) in Forty Thieves: "
            r"the game is over \(won\)$",
        ):
            play(env, move)
    assert env.rules.why_illegal(env.state, 0) == "the game is over (won)"


def test_every_action_after_a_loss_says_the_game_is_over_and_why() -> None:
    env = start("FortyThieves", _blocked_spades(stock=["3S"]))
    # while a move is left, an illegal one gets its own reason only
    assert env.rules.why_illegal(env.state, 1) == "Forty Thieves has no redeals"
    assert play(env, "draw")[1] is True  # lost: 3S fits nowhere
    with pytest.raises(
        IllegalMoveError,
        match=r"in Forty Thieves: the game is over \(lost: no legal move left\); "
        r"the stock is empty$",
    ):
        play(env, "draw")
    assert env.rules.why_illegal(env.state, env.move_to_action("w>t0")) == (
        "the game is over (lost: no legal move left); 3S does not go onto KS "
        "(build: same suit, one rank lower)"
    )


def _blocked_spades(stock: list[str]) -> dict:
    """Hearts, diamonds and clubs home; the spades in ten columns with no move among them.

    Column tops are KS KS JS JS 9S 9S 7S 7S 5S 5S: no Ace to play up, no top one rank
    below another, no empty column. ``stock`` spades are taken out of the columns.
    """
    foundations = [[r + s for r in "A23456789TJQK"] for s in "CCDDHH"] + [[], []]
    under = ["AS", "AS", "2S", "2S", "3S", "3S", "4S", "4S", "6S", "6S", "8S", "8S"]
    under += ["TS", "TS", "QS", "QS"]
    for card in stock:
        under.remove(card)
    tops = ["KS", "KS", "JS", "JS", "9S", "9S", "7S", "7S", "5S", "5S"]
    tableau = [[*under[k::10], top] for k, top in enumerate(tops)]
    return position("FortyThieves", tableau, stock=stock, foundations=foundations)


def test_position_with_no_legal_move_is_refused_at_reset() -> None:
    """An episode must start with a move to play: Gymnasium's reset cannot say "over"."""
    pos = _blocked_spades(stock=[])
    assert reference_legal_moves(pos) == set()
    env = FortyThievesEnv("FortyThieves")
    env.reset(seed=1)
    before = env.get_state()
    with pytest.raises(InvalidPositionError, match=r"already over \(no legal move\)"):
        env.reset(seed=2, options={"state": pos})
    assert env.get_state() == before
    won = position("FortyThieves", [], stock=[], foundations=None)
    assert sum(map(len, won["foundations"])) == 104
    with pytest.raises(InvalidPositionError, match=r"already over \(won\)"):
        env.reset(options={"state": won})


def test_loss_terminates_when_the_last_move_is_played() -> None:
    env = start("FortyThieves", _blocked_spades(stock=["3S"]))
    assert legal(env) == {"draw"}
    reward, terminated, info = play(env, "draw")  # 3S fits nowhere
    assert (reward, terminated) == (0.0, True)
    assert info["is_success"] is False and info["foundation_cards"] == 78
    assert info["action_mask"].sum() == 0
