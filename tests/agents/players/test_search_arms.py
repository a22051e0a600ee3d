"""lonelybot's arms for the search's UCB1 bandit (issue 40, point 2;
:mod:`fortythieves_agents.players.search_arms`): the definition of a reversible move against
the brute force, the reversible closure (bounded, the same on every sample of the hidden
cards), the arms (bounded, deduplicated, playable on every sample)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from fortythieves_agents.players.search_arms import (
    MAX_ARMS,
    MAX_CLOSURE,
    irreversible_arms,
    is_dead_end,
    is_reversible,
    reversible_closure,
)
from fortythieves_agents.players.search_scores import _demote_repeats
from helpers import KINGS_ONLY, ROOT
from positions import position

from fortythieves_env import VARIANTS, FortyThievesEnv, VariantSpec
from fortythieves_env.records.record import load_record
from fortythieves_env.rules.actions import COLUMN_TO_COLUMN, codec_for
from fortythieves_env.rules.cards import N_CARDS
from fortythieves_env.rules.core import (
    H_NACT,
    H_SCAL,
    S_FCARDS,
    apply,
    legal_actions,
    tables_for,
    view_hash,
)
from fortythieves_env.rules.engine import rules_for
from fortythieves_env.rules.view import determinize, player_view
from fortythieves_env.solver import build_code

SPECS = [*VARIANTS.values(), *KINGS_ONLY]


def _random_states(spec: VariantSpec, games: int, steps: int, seed: int) -> Iterator[np.ndarray]:
    """Full state arrays along random legal play (draw and redeal half as often as another
    move, so the tableau gets worked and the stock still runs out)."""
    tables = tables_for(spec)
    rules = rules_for(spec)
    rng = np.random.default_rng(seed)
    legal = np.empty(int(tables.table[H_NACT]), dtype=np.int64)
    for _ in range(games):
        st = tables.pack(rules.deal(rng))
        for _ in range(steps):
            n = legal_actions(st, tables.table, legal)
            if n == 0:
                break
            yield st.copy()
            moves = legal[:n]
            other = moves[moves > 1]
            pick = other if other.size and (rng.random() < 0.5 or moves[0] > 1) else moves
            apply(st, tables.table, np.int64(rng.choice(pick)))


def _undone_by_some_move(st: np.ndarray, tb: np.ndarray, action: int, n_actions: int) -> bool:
    """The brute force: after ``action``, does some legal move give back ``st`` exactly?"""
    child = st.copy()
    apply(child, tb, np.int64(action))
    legal = np.empty(n_actions, dtype=np.int64)
    for b in legal[: legal_actions(child, tb, legal)].tolist():
        back = child.copy()
        apply(back, tb, np.int64(b))
        if np.array_equal(back, st):
            return True
    return False


def _template(spec: VariantSpec, st: np.ndarray) -> tuple[np.ndarray, object]:
    """The state array of the player's view of ``st`` with the unseen cards in sorted order
    (the placeholder order), and the view."""
    tables = tables_for(spec)
    view = player_view(spec, tables.unpack(st))
    return tables.pack(determinize(view, view.unseen)), view


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_a_move_is_reversible_exactly_when_some_move_undoes_it(spec: VariantSpec) -> None:
    """Every legal move of random positions of every variant (and the two Kings-only
    customs): :func:`is_reversible` agrees with the brute force, reads only what the
    player sees (the same answer on the template), and holds only for column moves."""
    tables = tables_for(spec)
    tb, n_actions = tables.table, int(tables.table[H_NACT])
    decode = np.array(codec_for(spec).table, dtype=np.int64).reshape(-1, 4)
    legal = np.empty(n_actions, dtype=np.int64)
    counts = {True: 0, False: 0}
    for st in _random_states(spec, 3, 150, sum(map(ord, spec.id))):
        template, _ = _template(spec, st)
        for a in legal[: legal_actions(st, tb, legal)].tolist():
            reversible = bool(is_reversible(st, tb, a))
            assert reversible is _undone_by_some_move(st, tb, a, n_actions), (spec.id, a)
            assert bool(is_reversible(template, tb, a)) is reversible
            assert not reversible or decode[a][0] == COLUMN_TO_COLUMN
            counts[reversible] += 1
    assert counts[True] > 50 and counts[False] > 50, counts


@pytest.mark.parametrize(
    ("tableau", "face_down", "move", "reversible"),
    [
        ([["9S", "8H"], ["9C"]], None, "t0>t1", True),  # 9S takes 8H back
        ([["5C", "9H", "8H"], ["9C"]], [1], "t0>t1", False),  # 9H does not: its own suit
        ([["8H"], ["9C"]], None, "t0>t1", True),  # the emptied column takes it back
        ([["5C", "8H"], ["9C"]], [1, 0], "t0>t1", False),  # turns 5C face up
        ([["5C", "9S", "8H"], ["9C"]], [1, 0], "t0>t1", True),  # 9S stays, takes 8H
    ],
)
def test_the_definition_on_hand_made_indian_positions(
    tableau: list[list[str]], face_down: list[int] | None, move: str, reversible: bool
) -> None:
    """Indian builds any suit but its own: 8H goes onto 9S, 9C or 9D, never onto 9H."""
    down = (face_down or []) + [0] * (10 - len(face_down or []))
    pos = position("Indian", tableau, face_down=down)
    env = FortyThievesEnv("Indian")
    env.reset(options={"state": pos})
    tables = tables_for(env.variant)
    st = tables.pack(env.rules.from_position(pos))
    action = env.move_to_action(move)
    assert bool(is_reversible(st, tables.table, action)) is reversible
    assert _undone_by_some_move(st, tables.table, action, int(tables.table[H_NACT])) is reversible


def _views(spec: VariantSpec, states: list[np.ndarray]) -> list[int]:
    tb = tables_for(spec).table
    return [int(view_hash(s, tb)) for s in states]


@pytest.mark.parametrize("spec", list(VARIANTS.values()), ids=lambda s: s.id)
def test_the_closure_and_the_arms_are_the_same_on_every_sample(spec: VariantSpec) -> None:
    """On random positions: the closure is bounded, starts at the position, holds each
    position once, and on samples of the hidden cards (re-dealt) has the same paths and
    views as on the template; the arms are the same pairs, bounded, lead to distinct
    positions, and every path and irreversible move is legal on every sample."""
    tables = tables_for(spec)
    tb, build = tables.table, build_code(spec)
    legal = np.empty(int(tables.table[H_NACT]), dtype=np.int64)
    rng = np.random.default_rng(5)
    big = 0
    for k, st in enumerate(_random_states(spec, 2, 120, 7)):
        if k % 6:
            continue
        template, view = _template(spec, st)
        closure = reversible_closure(tables, template)
        assert 1 <= len(closure) <= MAX_CLOSURE and np.array_equal(closure[0][0], template)
        assert len({s.tobytes() for s, _ in closure}) == len(closure)
        arms = irreversible_arms(tables, build, template)
        assert len(arms) <= MAX_ARMS
        big += len(closure) > 1
        redealt = [determinize(view, rng.permutation(view.unseen)) for _ in range(2)]
        for sample in (st, *(tables.pack(s) for s in redealt)):
            other = reversible_closure(tables, sample)
            assert [p for _, p in other] == [p for _, p in closure]
            assert _views(spec, [s for s, _ in other]) == _views(spec, [s for s, _ in closure])
            again = irreversible_arms(tables, build, sample)
            assert (again.paths, again.moves) == (arms.paths, arms.moves)
            ends = set()
            for path, move in zip(arms.paths, arms.moves, strict=True):
                work = sample.copy()
                for a in (*path, move):
                    assert a in legal[: legal_actions(work, tb, legal)]
                    apply(work, tb, np.int64(a))
                ends.add(work.tobytes())
                assert not is_reversible(sample, tb, move) or path  # moves are irreversible
            assert len(ends) == len(arms)
    assert big >= 1


def test_the_closure_stops_at_its_limit_and_leaves_out_the_views_to_avoid() -> None:
    spec = VARIANTS["LittleForty"]
    tables = tables_for(spec)
    for st in _random_states(spec, 1, 200, 3):
        template, _ = _template(spec, st)
        full = reversible_closure(tables, template)
        if len(full) > 10:
            break
    assert len(full) > 10
    assert len(reversible_closure(tables, template, limit=4)) == 4
    assert len(reversible_closure(tables, template, limit=1)) == 1
    avoid = {int(view_hash(full[1][0], tables.table))}
    cut = reversible_closure(tables, template, avoid=avoid)
    assert all(int(view_hash(s, tables.table)) not in avoid for s, _ in cut)
    assert all(p[:1] != full[1][1] for _, p in cut)  # nothing through the avoided one either
    assert len(irreversible_arms(tables, build_code(spec), template, max_arms=3)) == 3


def _dead_end_limited() -> tuple[dict[str, object], dict[str, object]]:
    """Limited with the stock out (what the foundations cannot take in the waste, 9C on
    top, which goes nowhere) and every column stuck but two: the position ``before`` (6C on
    7C, column 1 empty) and ``after`` it the move ``t0>t1`` (6C into the empty column).
    From ``after`` the only legal move is ``t1>t0``, back to ``before``; from ``before`` KH
    may go into the empty column (an irreversible move: it lies on 3C), and 4C (on 5C)
    reversibly; JD (on 5D) and 5S (on 8D) too, irreversibly, into positions with no legal
    move at all."""
    rest = [["5C", "4C"], ["3C", "KH"], ["3C", "JH"], ["2H", "9H"], ["2D", "KD"], ["5D", "JD"]]
    rest += [["2S", "KS"], ["4S", "JS"], ["6S", "9S"], ["8D", "5S"]]
    out = []
    for first in (["7C", "6C"], []), (["7C"], ["6C"]):
        pos = position("Limited", [*first, *rest])
        waste = list(pos["stock"])
        waste.remove("9C")
        pos["waste"], pos["stock"] = [*waste, "9C"], []
        out.append(pos)
    return out[0], out[1]


def test_a_move_into_a_dead_end_is_found_and_put_after_the_others() -> None:
    """The hand-made dead end: after ``t0>t1`` with the view before it met, every game ends
    stuck; without that view met it does not (back there KH may go into the empty column);
    the search's no-return scores put ``t0>t1`` after every other move, as a move back into
    a view met, and only given the views met (``views``), with the two moves into positions
    with no legal move (lost: no way out either), and no other."""
    spec = VARIANTS["Limited"]
    tables = tables_for(spec)
    env = FortyThievesEnv("Limited")
    before, after = _dead_end_limited()
    st = {}
    for name, pos in (("before", before), ("after", after)):
        env.reset(options={"state": pos})
        st[name] = tables.pack(env.rules.from_position(pos))
    assert env.legal_moves() == ["t1>t0"]  # from after
    met = {int(view_hash(st["before"], tables.table))}
    assert is_dead_end(tables, st["after"], met) is True
    assert is_dead_end(tables, st["after"], set()) is False
    assert is_dead_end(tables, st["before"], set()) is False
    env.reset(options={"state": before})
    view = player_view(spec, env.rules.from_position(before))
    legal = np.flatnonzero(env.action_masks())
    lost = {env.move_to_action(m) for m in ("t0>t1", "t7>t1", "t11>t1")}
    for views, lowered in ((None, set()), (met, lost)):
        scores = np.full(env.action_space.n, -np.inf)
        scores[legal] = 0.0
        _demote_repeats(spec, view, scores, set(), 10.0, views)
        assert {int(a) for a in legal if scores[a] < 0} == lowered
        assert np.all(scores[legal] >= -10.0)
    assert {"t2>t1", "t3>t1"} <= {env.action_to_move(int(a)) for a in legal}


def test_the_winning_move_is_no_move_into_a_dead_end() -> None:
    """Limited with every card home but KH, alone in column 0: ``t0>f`` wins, and the won
    position (every card home, no legal move left) is won, not a dead end."""
    spec = VARIANTS["Limited"]
    tables = tables_for(spec)
    env = FortyThievesEnv("Limited")
    ranks = "A23456789TJQK"
    piles = [[f"{r}{suit}" for r in ranks] for suit in "SSHHDDCC"]
    piles[2].pop()  # KH
    pos = {
        "variant": "Limited",
        "tableau": [["KH"]] + [[] for _ in range(spec.n_columns - 1)],
        "face_down": [0] * spec.n_columns,
        "stock": [],
        "waste": [],
        "foundations": piles,
        "redeals_left": 0,
    }
    env.reset(options={"state": pos})
    before = tables.pack(env.rules.from_position(pos))
    won = before.copy()
    apply(won, tables.table, np.int64(env.move_to_action("t0>f")))
    met = {int(view_hash(before, tables.table))}
    assert is_dead_end(tables, won, met) is False
    assert legal_actions(won, tables.table, np.empty(int(tables.table[H_NACT]), np.int64)) == 0


def test_a_dead_end_larger_than_its_limit_is_not_shown() -> None:
    """Number Ten's deal 2000000017, played by the search at 0.1 s per move (the saved game,
    ``results/search/dead_end/records``), ended stuck after 548 moves. With 256 positions
    searched (the default), its dead end begins 185 moves before the end, after the column
    move ``t1>t3x5``; with 2,048 positions, 361 moves before it, after a draw: the positions
    between are dead ends of more than 256 positions, which the search does not see as such."""
    path = ROOT / "results/search/dead_end/records/NumberTen-200-s0.1/search"
    record = load_record(path / "NumberTen-2000000017.json")
    assert len(record.moves) == 548 and record.outcome["stuck"]
    spec = record.variant
    tables = tables_for(spec)
    env = FortyThievesEnv(spec)
    env.reset(options={"state": record.start})
    packed = [tables.pack(env.rules.from_position(env.get_state()))]
    for move in record.moves:
        env.step(env.move_to_action(move))
        packed.append(tables.pack(env.rules.from_position(env.get_state())))
    keys = [int(view_hash(st, tables.table)) for st in packed]

    def start(limit: int) -> tuple[int, str]:
        k = len(packed) - 1
        while k > 0 and is_dead_end(tables, packed[k - 1], set(keys[: k - 1]), limit):
            k -= 1
        return k, record.moves[k - 1]

    assert MAX_CLOSURE == 256 and start(MAX_CLOSURE) == (548 - 185, "t1>t3x5")
    assert start(2048) == (548 - 361, "draw")
    for limit in (0, -1, 10**9):
        with pytest.raises(ValueError, match=r"limit must be 1\.\.1000000"):
            is_dead_end(tables, packed[0], set(), limit)


def _no_return_game(
    spec: VariantSpec, rng: np.random.Generator, limit: int = 5000
) -> Iterator[tuple[np.ndarray, set[int], bool]]:
    """A random game under the no-return rule (draws and redeals half as often as another
    move), at most ``limit`` positions: ``(state, views met before it, last)`` at each,
    ``last`` at the end (stuck or no legal move)."""
    tables = tables_for(spec)
    tb = tables.table
    legal = np.empty(int(tb[H_NACT]), dtype=np.int64)
    st = tables.pack(rules_for(spec).deal(rng))
    met: set[int] = set()
    while True:
        moves = legal[: legal_actions(st, tb, legal)].tolist()
        here = int(view_hash(st, tb))
        fresh = []
        for a in moves:
            child = st.copy()
            apply(child, tb, np.int64(a))
            key = int(view_hash(child, tb))
            if key != here and key not in met:
                fresh.append((a, child))
        yield st, met, not fresh  # met: valid until the next position is asked for
        limit -= 1
        if not fresh or limit == 0:
            return
        met.add(here)
        other = [c for a, c in fresh if a > 1]  # not a draw or a redeal
        every = [c for _, c in fresh]
        pick = other if other and (rng.random() < 0.5 or len(other) == len(every)) else every
        st = pick[int(rng.integers(len(pick)))]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_every_game_from_a_dead_end_is_lost_and_the_verdict_reads_only_the_view(
    spec: VariantSpec,
) -> None:
    """Along random games of every variant (and the two Kings-only ones) under the no-return
    rule, with the views met before as the views to avoid: the last position (stuck, or no
    legal move) is a dead end unless it is won (every card home); wherever
    :func:`is_dead_end` says True, random games under the rule from there never have a legal
    irreversible move (so they end stuck or with no legal move); the verdict is the same on
    the samples of the hidden cards (re-dealt)."""
    tables = tables_for(spec)
    tb = tables.table
    legal = np.empty(int(tb[H_NACT]), dtype=np.int64)
    rng = np.random.default_rng(11)
    dead = lost = games = 0
    while lost < 4 and games < 12:  # Little Forty's random games are all won
        games += 1
        for k, (st, met, last) in enumerate(_no_return_game(spec, rng)):
            verdict = is_dead_end(tables, st, met)
            won = int(st[tb[H_SCAL] + S_FCARDS]) == N_CARDS
            assert verdict or not last or won
            lost += last and not won
            assert not (won and verdict)
            if k % 4 == 0 or verdict:
                template, view = _template(spec, st)
                redealt = tables.pack(determinize(view, rng.permutation(view.unseen)))
                assert is_dead_end(tables, template, met) is verdict
                assert is_dead_end(tables, redealt, met) is verdict
            if not verdict:
                continue
            dead += 1
            for _walk in range(3):
                seen = met | {int(view_hash(st, tb))}
                work = st.copy()
                while True:
                    moves = legal[: legal_actions(work, tb, legal)].tolist()
                    assert all(is_reversible(work, tb, a) for a in moves)
                    fresh = []
                    for a in moves:
                        child = work.copy()
                        apply(child, tb, np.int64(a))
                        if int(view_hash(child, tb)) not in seen:
                            fresh.append(child)
                    if not fresh:
                        break
                    work = fresh[int(rng.integers(len(fresh)))]
                    seen.add(int(view_hash(work, tb)))
    assert lost >= 4 or spec.id == "LittleForty"
