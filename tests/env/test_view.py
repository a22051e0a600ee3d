"""The player's view, and the greedy baseline that reads only it (issue 7.8)."""

from __future__ import annotations

import copy
from collections import Counter

import gymnasium as gym
import numpy as np
import pytest
from fortythieves_agents.players.baselines import GreedyAgent
from positions import redeal_into, shuffle_hidden

from fortythieves_env import FortyThievesEnv, VariantSpec, card_code, register_variant
from fortythieves_env.rules.view import PlayerView

pytestmark = pytest.mark.usefixtures("backend")  # every test on both backends

HIDDEN_REDEAL = VariantSpec(
    "HiddenRedeal", "Hidden Redeal", n_columns=10, face_down=2, face_up=2,
    build="alternate_colour", sequence_moves=True, deal_count=1, redeals=1,
)  # fmt: skip
"""Face-down cards and a redeal: after the redeal the stock is known, the face-down cards not."""


def test_the_view_of_a_deal() -> None:
    env = FortyThievesEnv("NumberTen")
    env.reset(seed=0)
    pos = env.get_state()
    view = env.player_view()
    assert isinstance(view, PlayerView) and view.variant == "NumberTen"
    assert view.tableau == tuple(tuple(card_code(c) for c in col[2:]) for col in pos["tableau"])
    assert view.face_down == (2,) * 10 and view.waste == () and view.foundations == (0,) * 8
    assert view.stock_size == 64 and view.stock is None and view.redeals_left == 0
    hidden = pos["stock"] + [c for col in pos["tableau"] for c in col[:2]]
    assert view.unseen == tuple(sorted(card_code(c) for c in hidden))
    assert view.foundation_cards == 0
    with pytest.raises(AttributeError):
        view.stock_size = 3  # type: ignore[misc]


def test_the_stock_is_known_exactly_after_a_redeal() -> None:
    env = FortyThievesEnv("LittleForty")
    env.reset(seed=4)
    while env.player_view().stock_size:
        assert env.player_view().stock is None
        env.step(env.move_to_action("draw"))
    assert env.player_view().stock is None  # all in the waste, not yet turned over
    env.step(env.move_to_action("redeal"))
    view = env.player_view()
    pos = env.get_state()
    assert view.redeals_left == 2 and view.stock_size == len(pos["stock"]) > 0
    assert view.stock == tuple(card_code(c) for c in pos["stock"])
    assert view.unseen == ()  # Little Forty deals nothing face down
    env.step(env.move_to_action("draw"))
    assert env.player_view().stock == tuple(card_code(c) for c in env.get_state()["stock"])


def test_the_unseen_cards_are_the_two_decks_minus_what_the_player_knows() -> None:
    env = FortyThievesEnv("RankAndFile")
    _, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(200):
        legal = np.flatnonzero(info["action_mask"])
        if not len(legal):
            break
        _, _, terminated, _, info = env.step(int(rng.choice(legal)))
        if terminated:
            break
    view = env.player_view()
    seen = Counter(c for col in view.tableau for c in col) + Counter(view.waste)
    for k, height in enumerate(view.foundations):
        seen.update(range((k // 2) * 13 + 1, (k // 2) * 13 + 1 + height))
    assert seen + Counter(view.unseen) == Counter({code: 2 for code in range(1, 53)})
    assert len(view.unseen) == sum(view.face_down) + view.stock_size


@pytest.mark.parametrize("variant", ["NumberTen", "Indian", "RankAndFile", "LittleForty"])
def test_re_dealing_the_unseen_cards_keeps_the_view(variant: str) -> None:
    env = FortyThievesEnv(variant)
    env.reset(seed=5)
    pos = env.get_state()
    view = env.player_view()
    shuffled = copy.deepcopy(pos)
    shuffle_hidden(shuffled, np.random.default_rng(1))
    assert shuffled != pos
    other = FortyThievesEnv(variant)
    other.reset(options={"state": shuffled})
    assert other.player_view() == view


def _greedy_choices_agree_on_re_dealt_unseen_cards(env: gym.Env, steps: int, seed: int) -> int:
    """Play greedy ``steps`` times; at each step the choice must be the same in a copy of the
    position whose unseen cards are re-dealt. Return how many steps had unseen cards."""
    agent = GreedyAgent()
    base = env.unwrapped
    other = FortyThievesEnv(base.variant)
    rng = np.random.default_rng(seed)
    with_unseen = 0
    for _ in range(steps):
        obs, moved = redeal_into(base, other, rng)
        with_unseen += moved
        assert other.player_view() == base.player_view()
        action = agent.act(obs, env)
        assert agent.act(obs, other) == action
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
    return with_unseen


@pytest.mark.parametrize("variant", ["NumberTen", "RankAndFile", "Indian"])
def test_greedy_does_not_change_its_choice_when_unseen_cards_are_re_dealt(variant: str) -> None:
    env = gym.make(f"FortyThieves/{variant}-v0")
    env.reset(seed=7)
    assert _greedy_choices_agree_on_re_dealt_unseen_cards(env, 60, 7) > 30


def test_greedy_does_not_change_its_choice_after_a_redeal_either() -> None:
    register_variant(HIDDEN_REDEAL)
    for variant in ("LittleForty", "HiddenRedeal"):
        env = gym.make(f"FortyThieves/{variant}-v0")
        env.reset(seed=2)
        base = env.unwrapped
        while base.player_view().stock_size:  # deal the whole stock, then turn it over
            env.step(base.move_to_action("draw"))
        env.step(base.move_to_action("redeal"))
        assert base.player_view().stock is not None
        with_unseen = _greedy_choices_agree_on_re_dealt_unseen_cards(env, 40, 2)
        if variant == "LittleForty":
            assert with_unseen == 0  # nothing is face down and the stock is known
        else:
            assert with_unseen > 20  # the face-down cards are re-dealt, the stock stays


def test_greedy_reads_neither_the_position_nor_the_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """It sees the position only through ``player_view()``: the full one is off limits."""
    env = gym.make("FortyThieves/NumberTen-v0")
    obs, _ = env.reset(seed=1)

    def forbidden(*args: object) -> None:
        raise AssertionError("greedy read the full position")

    monkeypatch.setattr(FortyThievesEnv, "get_state", forbidden)
    monkeypatch.setattr(FortyThievesEnv, "state", property(forbidden))
    agent = GreedyAgent()
    for _ in range(20):
        obs, _, terminated, truncated, _ = env.step(agent.act(obs, env))
        if terminated or truncated:
            break
