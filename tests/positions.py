"""Hand-built positions for the rule tests, in the rule book's position format."""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np

from fortythieves_env import VARIANTS, FortyThievesEnv, VariantSpec, card_name
from fortythieves_env.rules.positions import from_position
from fortythieves_env.rules.view import player_view

RANKS = "A23456789TJQK"
SUITS = "CDHS"
ALL_CARDS = [r + s for s in SUITS for r in RANKS]


def position(
    variant: str,
    tableau: list[list[str]],
    *,
    face_down: list[int] | None = None,
    waste: list[str] | tuple[str, ...] = (),
    stock: list[str] | None = None,
    foundations: list[list[str]] | None = None,
    redeals_left: int = 0,
) -> dict[str, Any]:
    """A full 104-card position whose unnamed cards are put out of the way.

    Columns not given are empty. With ``foundations=None`` each suit's two piles are built
    from the Ace as high as the cards not named elsewhere allow; with ``stock=None`` what is
    still left over becomes the stock (bottom to top in card order).
    """
    spec = VARIANTS[variant]
    columns = [list(col) for col in tableau] + [[] for _ in range(spec.n_columns - len(tableau))]
    named = Counter(c for col in columns for c in col) + Counter(waste)
    if stock is not None:
        named += Counter(stock)
    if foundations is not None:
        named += Counter(c for pile in foundations for c in pile)
    left = Counter({c: 2 for c in ALL_CARDS}) - named
    if foundations is None:
        foundations = []
        for s in SUITS:
            for _pile in range(2):
                pile = []
                for r in RANKS:
                    if left[r + s] == 0:
                        break
                    left[r + s] -= 1
                    pile.append(r + s)
                foundations.append(pile)
    if stock is None:
        stock = sorted(left.elements(), key=ALL_CARDS.index)
    elif +left:
        raise ValueError(f"cards left with nowhere to go: {sorted(left.elements())}")
    return {
        "variant": variant,
        "tableau": columns,
        "face_down": face_down or [0] * spec.n_columns,
        "stock": list(stock),
        "waste": list(waste),
        "foundations": foundations,
        "redeals_left": redeals_left,
    }


def shuffle_hidden(pos: dict[str, Any], rng: Any, variant: str | VariantSpec | None = None) -> None:
    """Deal the position's unseen cards out again, shuffled, in place.

    The unseen cards are those of the player's view (:func:`fortythieves_env.rules.view.player_view`):
    the face-down cards, and the stock while its order is unknown (before any redeal). After
    a redeal the stock's order is known, so the stock stays. The view is unchanged: the same
    face-down counts, stock size, and known stock. ``variant`` (default: the position's) is
    needed for a variant that is not registered.
    """
    spec = pos["variant"] if variant is None else variant
    view = player_view(spec, from_position(spec, pos))
    hidden = [card_name(code) for code in view.unseen]
    rng.shuffle(hidden)
    k = 0
    for i, fd in enumerate(pos["face_down"]):
        pos["tableau"][i][:fd] = hidden[k : k + fd]
        k += fd
    if view.stock is None:
        pos["stock"] = hidden[k:]
        k = len(hidden)
    assert k == len(hidden)


def redeal_into(env: Any, other: Any, rng: Any) -> tuple[np.ndarray, bool]:
    """Deal ``env``'s position into ``other`` with its unseen cards dealt out again
    (:func:`shuffle_hidden`, drawing from ``rng``): the same player's view, other hidden
    cards. Returns ``other``'s observation and whether the hidden cards moved (False when
    there are none to move, or the shuffle left them in place)."""
    pos = env.get_state()
    shuffled = copy.deepcopy(pos)
    shuffle_hidden(shuffled, rng, env.variant)
    obs, _ = other.reset(options={"state": shuffled})
    return obs, shuffled != pos


def reference_builds(variant: str, card: str, onto: str) -> bool:
    """May ``card`` go onto ``onto`` in ``variant`` (RULES.md common rule 4, plain strings)?"""
    build = VARIANTS[variant].build.value
    if RANKS.index(onto[0]) != RANKS.index(card[0]) + 1:
        return False
    if build == "same_suit":
        return card[1] == onto[1]
    if build == "alternate_colour":
        return (card[1] in "DH") != (onto[1] in "DH")
    return card[1] != onto[1]


def reference_legal_moves(pos: dict[str, Any]) -> set[str]:
    """The legal moves of a position, by a plain reading of ``RULES.md``.

    Written apart from the engine (strings, no tables) so the two can check each other.
    """
    spec = VARIANTS[pos["variant"]]

    def rank(card: str) -> int:
        return RANKS.index(card[0])

    def builds(card: str, onto: str) -> bool:
        return reference_builds(pos["variant"], card, onto)

    def to_foundation(card: str) -> bool:
        for pile in pos["foundations"]:
            if not pile and rank(card) == 0:
                return True
            if pile and pile[-1][1] == card[1] and rank(pile[-1]) + 1 == rank(card):
                return True
        return False

    tableau = pos["tableau"]
    moves = set()
    if pos["stock"]:
        moves.add("draw")
    elif pos["redeals_left"] > 0 and pos["waste"]:
        moves.add("redeal")
    if pos["waste"]:
        card = pos["waste"][-1]
        if to_foundation(card):
            moves.add("w>f")
        for j, col in enumerate(tableau):
            if not col or builds(card, col[-1]):
                moves.add(f"w>t{j}")
    for i, col in enumerate(tableau):
        if not col:
            continue
        if to_foundation(col[-1]):
            moves.add(f"t{i}>f")
        face_up = col[pos["face_down"][i] :]
        run = 1
        if spec.sequence_moves:
            while run < len(face_up) and builds(face_up[-run], face_up[-run - 1]):
                run += 1
        for n in range(1, run + 1):
            for j, other in enumerate(tableau):
                if j != i and (not other or builds(col[-n], other[-1])):
                    moves.add(f"t{i}>t{j}" + (f"x{n}" if n > 1 else ""))
    return moves


def random_walk(
    variant: str, deals: int, steps: int, seed: int, version: int = 1
) -> Iterator[tuple[FortyThievesEnv, np.ndarray]]:
    """``(env, observation)`` along random legal play: half the time a move other than
    draw and redeal, else draw (or redeal), so the stock runs out and Little Forty redeals."""
    env = FortyThievesEnv(variant, observation_version=version)
    rng = np.random.default_rng(seed)
    for d in range(deals):
        obs, _ = env.reset(seed=seed * 100 + d)
        for _ in range(steps):
            yield env, obs
            legal = np.flatnonzero(env.action_masks())
            moves = legal[legal > 1]  # draw and redeal are actions 0 and 1
            action = int(rng.choice(moves)) if moves.size and rng.random() < 0.5 else int(legal[0])
            obs, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                break
