"""PySolFC deal numbers: ``reset(options={"pysol_deal": N})`` (fortythieves_env/rules/pysol.py).

The layout is checked card by card against ``pysol-cards`` in three independent ways:

* against the test's own reading of RULES.md's deal order applied to ``pysol-cards``'s
  shuffled list, with card names written by ``pysol-cards``'s own renderer;
* against ``pysol-cards``'s own layout of a PySolFC two-deck game dealt the same way
  (Gypsy: 8 columns, 2 face-down rows then 1 face-up row, the rest to the talon);
* game 32000 against a Mersenne-Twister shuffle written here from the standard library
  (checked first to agree with ``pysol-cards`` on numbers above 32000).
"""

from __future__ import annotations

import random

import gymnasium as gym
import pytest

import fortythieves_env
from fortythieves_env import VARIANTS, VariantSpec
from fortythieves_env.rules.pysol import MAX_DEAL, PYSOL_GAMES, _deal, pysol_position, pysol_shuffle

pysol_cards = pytest.importorskip(
    "pysol_cards", reason="the pysol extra is not installed (pip install -e '.[pysol]')"
)
from pysol_cards.cards import CardRenderer, createCards  # noqa: E402
from pysol_cards.deal_game import Game  # noqa: E402
from pysol_cards.random import shuffle  # noqa: E402
from pysol_cards.random_base import RandomBase  # noqa: E402

NUMBERS = [1, 2, 617, 11982, 31999, 32001, 32002, 123_456, 10**12 + 7, MAX_DEAL]
"""Game numbers below and above 32000 (32000 itself has its own test)."""

_RENDER = CardRenderer(print_ts=True)  # "TH", as the rule book writes cards


def _names(cards: list) -> list[str]:
    return [_RENDER.to_s(card) for card in cards]


def _expected(spec: VariantSpec, shuffled: list[str]) -> dict:
    """RULES.md's reading: dealt from the end of the list, row by row, face-down rows
    first; the card PySolFC turns onto the waste stays on top of the stock."""
    dealt = list(reversed(shuffled))
    c, per = spec.n_columns, spec.face_down + spec.face_up
    tableau = [[dealt[row * c + col] for row in range(per)] for col in range(c)]
    to_waste = dealt[c * per]
    stock_top_down = dealt[c * per :]  # the next card out first
    assert stock_top_down[0] == to_waste
    return {
        "variant": spec.id,
        "tableau": tableau,
        "face_down": [spec.face_down] * c,
        "stock": list(reversed(stock_top_down)),  # bottom to top
        "waste": [],
        "foundations": [[] for _ in range(8)],
        "redeals_left": spec.redeals,
    }


@pytest.mark.parametrize("variant_id", sorted(PYSOL_GAMES))
@pytest.mark.parametrize("n", NUMBERS)
def test_reset_lays_out_pysolfc_deal_card_by_card(variant_id: str, n: int) -> None:
    env = gym.make(f"FortyThieves/{variant_id}-v0")
    env.reset(options={"pysol_deal": n})
    shuffled = _names(shuffle(createCards(2), n, RandomBase.DEALS_PYSOLFC))
    assert env.unwrapped.get_state() == _expected(VARIANTS[variant_id], shuffled)


def test_first_draw_deals_the_card_pysolfc_puts_on_the_waste() -> None:
    env = gym.make("FortyThieves/FortyThieves-v0")
    env.reset(options={"pysol_deal": 5})
    shuffled = _names(shuffle(createCards(2), 5, RandomBase.DEALS_PYSOLFC))
    env.step(env.unwrapped.move_to_action("draw"))
    state = env.unwrapped.get_state()
    assert state["waste"] == [shuffled[-41]]  # the 41st card out, after 40 on the tableau
    assert len(state["stock"]) == 63


def test_layout_matches_pysol_cards_own_two_deck_layout() -> None:
    """pysol-cards lays out PySolFC's Gypsy (two decks): 8 columns, 2 face-down rows, one
    face-up row, the rest to the talon. The same dealing on a Gypsy-shaped spec gives the
    same columns and our stock is its talon, bottom to top."""
    gypsy = VariantSpec("GypsyShape", "Gypsy shape", 8, 2, 1, "alternate_colour", True)
    for n in (1, 24, 31999, 32001, 987_654_321):
        game = Game("gypsy", n, RandomBase.DEALS_PYSOLFC)
        game.deal()
        game.gypsy()
        columns = [_names(col) for col in game.board.columns.cols]
        talon = _names(game.board.talon)
        ours = _deal(gypsy, pysol_shuffle(n))
        assert [[name.strip("<>") for name in col] for col in columns] == ours["tableau"]
        assert [name.startswith("<") for name in columns[0]] == [True, True, False]
        assert ours["stock"] == talon[::-1]


def _stdlib_mt_shuffle(n: int) -> list[str]:
    """PySolFC's large-number shuffle written from the standard library: Python's Mersenne
    Twister seeded with n, Fisher-Yates from the end with j = int(random() * (i + 1))."""
    cards = _names(createCards(2))
    rng = random.Random(n)
    for i in range(len(cards) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def test_stdlib_mersenne_twister_shuffle_agrees_with_pysol_cards_above_32000() -> None:
    for n in (32001, 40000, 10**9):
        assert _stdlib_mt_shuffle(n) == _names(shuffle(createCards(2), n, RandomBase.DEALS_PYSOLFC))


def test_game_32000_is_dealt_as_pysolfc_does_with_the_mersenne_twister() -> None:
    env = gym.make("FortyThieves/Streets-v0")
    env.reset(options={"pysol_deal": 32000})
    expected = _expected(VARIANTS["Streets"], _stdlib_mt_shuffle(32000))
    assert env.unwrapped.get_state() == expected
    # pysol-cards' own shuffle() counts 32000 as small (the FreeCell generator): not PySolFC's
    small = _names(shuffle(createCards(2), 32000, RandomBase.DEALS_PYSOLFC))
    assert expected != _expected(VARIANTS["Streets"], small)


def test_shared_variants_are_every_builtin_but_lucas() -> None:
    assert set(PYSOL_GAMES) == set(VARIANTS) - {"Lucas"}
    assert all(PYSOL_GAMES[v] == VARIANTS[v].pysol_id for v in PYSOL_GAMES)


def test_lucas_is_refused_by_name_with_the_reason() -> None:
    env = gym.make("FortyThieves/Lucas-v0")
    with pytest.raises(ValueError, match=r"no PySolFC deal for Lucas \(Lucas\): .*13 columns of 4"):
        env.reset(options={"pysol_deal": 1})


def test_custom_variant_is_refused() -> None:
    spec = VariantSpec("Wide7", "Wide", 12, 0, 3, "same_suit", False, pysol_id=13)
    env = fortythieves_env.FortyThievesEnv(spec)
    with pytest.raises(ValueError, match=r"no PySolFC deal for variant 'Wide7'.*FortyThieves"):
        env.reset(options={"pysol_deal": 1})
    with pytest.raises(ValueError, match="no PySolFC deal"):
        pysol_position(spec, 1)


@pytest.mark.parametrize("bad", [0, -3, MAX_DEAL + 1, True, 1.0, "12", None])
def test_bad_game_numbers_are_refused(bad: object) -> None:
    env = gym.make("FortyThieves/FortyThieves-v0")
    with pytest.raises(ValueError, match="pysol_deal must be"):
        env.reset(options={"pysol_deal": bad})


def test_state_and_pysol_deal_exclude_each_other() -> None:
    env = gym.make("FortyThieves/FortyThieves-v0")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="exclude each other"):
        env.reset(options={"pysol_deal": 1, "state": env.unwrapped.get_state()})


def test_pysol_deal_is_the_same_on_both_backends() -> None:
    states = []
    for backend in ("python", "numba"):
        env = fortythieves_env.FortyThievesEnv("NumberTen", backend=backend)
        obs, info = env.reset(options={"pysol_deal": 4242})
        states.append((env.get_state(), obs.tolist(), info["action_mask"].tolist()))
    assert states[0] == states[1]
