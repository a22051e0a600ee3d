"""The clairvoyant solver (:mod:`fortythieves_env.solver`): won lines replay as wins through
``gymnasium.make``; verdicts with and without each pruning rule agree with a plain
breadth-first search on small end positions of every variant; budgets; bad input."""

from __future__ import annotations

import dataclasses
import itertools
from collections import deque
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import oracle
import pytest
from helpers import KINGS_ONLY
from positions import position

import fortythieves_env.envs.backends as backends_module
from fortythieves_env import VARIANTS, GameState, InvalidPositionError, VariantSpec, env_id
from fortythieves_env.rules.actions import COLUMN_TO_COLUMN, COLUMN_TO_FOUNDATION, WASTE_TO_COLUMN
from fortythieves_env.rules.cards import card_code
from fortythieves_env.rules.engine import rules_for

pytestmark = pytest.mark.skipif(not backends_module._HAVE_NUMBA, reason="numba is not installed")

if backends_module._HAVE_NUMBA:
    from fortythieves_env.rules import core
    from fortythieves_env.solver import (
        MAX_NODES,
        MAX_STEP_LIMIT,
        RULES,
        SolveResult,
        _child_keys,
        _full_keys,
        key_tables_for,
        solve,
    )
    from fortythieves_env.solver.pruning import _children, _safe_foundation, rule_flags

RANKS = "A23456789TJQK"
SUITS = "CDHS"
RULE_SETS: list[tuple[str, ...]] = (
    [(), ("F",), ("W",), ("E",), RULES] if backends_module._HAVE_NUMBA else []
)


# ---------------------------------------------------------------------- helpers
def end_position(spec: VariantSpec, rng: np.random.Generator, off: int) -> dict[str, Any]:
    """A random reachable position with ``off`` cards not on the foundations.

    The foundations lose ``off`` cards from the top (random piles); those cards are
    shuffled into the stock, the waste and the columns. A column gets at most as many
    unordered cards as the deal gives it (``positions.py`` condition 6), the dealt
    face-down cards at its bottom. Not every such position is winnable.
    """
    low = 1 if spec.aces_on_foundations else 0
    heights = [13] * 8
    for _ in range(off):
        piles = [p for p in range(8) if heights[p] > low]
        heights[piles[int(rng.integers(len(piles)))]] -= 1
    cards = [RANKS[r] + SUITS[p // 2] for p in range(8) for r in range(heights[p], 13)]
    rng.shuffle(cards)
    n_stock = int(rng.integers(0, min(4, len(cards)) + 1))
    stock, cards = cards[:n_stock], cards[n_stock:]
    n_waste = int(rng.integers(0, min(3, len(cards)) + 1))
    waste, cards = cards[:n_waste], cards[n_waste:]
    c, d, most = spec.n_columns, spec.face_down, spec.face_down + spec.face_up
    columns: list[list[str]] = [[] for _ in range(c)]
    while cards:
        i = int(rng.integers(c))
        if len(columns[i]) < most:
            columns[i].append(cards.pop())
    face_down = [min(d, max(len(col) - 1, 0)) for col in columns]
    foundations = [[RANKS[r] + SUITS[p // 2] for r in range(heights[p])] for p in range(8)]
    return {
        "variant": spec.id,
        "tableau": columns,
        "face_down": face_down,
        "stock": stock,
        "waste": waste,
        "foundations": foundations,
        "redeals_left": int(rng.integers(0, spec.redeals + 1)),
    }


def playable_end_positions(spec: VariantSpec, rng: np.random.Generator) -> Iterator[dict[str, Any]]:
    """:func:`end_position` with 6 to 9 cards off, drawn from ``rng`` for as long as asked:
    those the rules accept as a position with a legal move (``rng`` is drawn only as the
    next one is asked for)."""
    rules = rules_for(spec)
    while True:
        pos = end_position(spec, rng, int(rng.integers(6, 10)))
        try:
            state = rules.from_position(pos)
        except InvalidPositionError:
            continue
        if rules.legal_actions(state):
            yield pos


def canonical(state: GameState) -> tuple[Any, ...]:
    """The position with the column order forgotten (the rules do not see it)."""
    columns = tuple(sorted(zip(map(tuple, state.tableau), state.face_down, strict=True)))
    return (
        columns,
        tuple(state.stock),
        tuple(state.waste),
        tuple(state.foundations),
        state.redeals_left,
    )


def shortest_win(spec: VariantSpec, pos: dict[str, Any], cap: int = 300_000) -> int | None:
    """The fewest moves that win from ``pos`` (``None``: no line wins), by breadth-first
    search over every legal move of the test oracle (``oracle.py``: the rules restated
    apart from the compiled core the solver runs on), no pruning. Raises if the position
    has more than ``cap`` positions within reach (the caller picks smaller positions)."""
    start = rules_for(spec).from_position(pos)
    seen = {canonical(start)}
    frontier = deque([(start, 0)])
    while frontier:
        state, dist = frontier.popleft()
        if state.foundation_cards == 104:
            return dist
        for a in oracle.legal_actions(spec, state):
            child = state.copy()
            oracle.apply(spec, child, a)
            key = canonical(child)
            if key not in seen:
                seen.add(key)
                frontier.append((child, dist + 1))
        if len(seen) > cap:
            raise RuntimeError("position too big for the reference search")
    return None


def replay_in_gym(spec: VariantSpec, pos: dict[str, Any], moves: tuple[str, ...]) -> None:
    """Play ``moves`` through ``gymnasium.make`` from ``pos``: a win within the limit."""
    env = gym.make(env_id(spec))
    env.reset(options={"state": pos})
    terminated = truncated = False
    info: dict[str, Any] = {}
    for k, move in enumerate(moves):
        assert not (terminated or truncated), f"episode ended before move {k}"
        _, _, terminated, truncated, info = env.step(env.unwrapped.move_to_action(move))
        assert not info["illegal_action"], move
    assert terminated and not truncated and info["is_success"] is True
    env.close()


def lost_position() -> dict[str, Any]:
    """Forty Thieves, one card dealt left: each suit's 4 lies under its 5 (one pile of
    every suit at 3, the other complete), no column empty, every host of a column top
    buried; the stock's last card, QH, can go nowhere (KH is buried). Legal: ``draw``."""
    return position(
        "FortyThieves",
        [
            ["4C", "5C"],
            ["4D", "5D"],
            ["4H", "5H"],
            ["4S", "5S"],
            ["6C", "6D", "6H", "KC", "QC", "JC", "TC"],
            ["6S", "7D", "7H", "KD", "QD", "JD", "TD", "9D", "8D"],
            ["7S", "8H", "KH", "JH", "TH", "9H"],
            ["8S", "KS", "QS", "JS"],
            ["TS", "9S"],
            ["9C", "8C", "7C"],
        ],
        stock=["QH"],
    )


# ---------------------------------------------------------------------- won lines
@pytest.mark.parametrize("variant", ["LittleForty", "NumberTen", "Lucas"])
def test_won_lines_replay_through_gymnasium(variant: str) -> None:
    """Dealt games (seeds 4..7): every ``won`` line replays through ``gymnasium.make`` to
    a win (terminated, ``is_success``) within the variant's step limit; at least one of
    the deals tried is won."""
    spec = VARIANTS[variant]
    won = 0
    env = gym.make(env_id(spec))
    for seed in range(4, 8):
        env.reset(seed=seed)
        pos = env.unwrapped.get_state()
        result = solve(pos, nodes=200_000)
        assert result.status in ("won", "unknown"), result  # deals are rarely lost
        if result.status == "won":
            won += 1
            assert 0 < len(result.moves) <= spec.max_episode_steps == result.step_limit
            replay_in_gym(spec, pos, result.moves)
    assert won >= 1


@pytest.mark.parametrize("variant", ["NumberTen", "RankAndFile"])
def test_rollout_pass_wins_replay_and_are_deterministic(variant: str) -> None:
    """Test deals 0..3 at 300000 nodes: the rollout pass finds wins the depth-first search
    alone misses at that budget; each replays through ``gymnasium.make``; a second run
    gives the same answer, line and node count (the node budget is the figure of record)."""
    spec = VARIANTS[variant]
    env = gym.make(env_id(spec))
    by_rollouts = 0
    for seed in range(2_000_000_000, 2_000_000_004):
        env.reset(seed=seed)
        pos = env.unwrapped.get_state()
        result = solve(pos, nodes=300_000)
        again = solve(pos, nodes=300_000)
        assert (again.status, again.moves, again.nodes, again.found_by) == (
            result.status,
            result.moves,
            result.nodes,
            result.found_by,
        )
        assert result.nodes <= 300_000
        if result.status == "won":
            replay_in_gym(spec, pos, result.moves)
            if result.found_by == "rollouts":
                by_rollouts += 1
                assert solve(pos, nodes=300_000, rollouts=False).status == "unknown"
    assert by_rollouts >= 1


def test_result_fields() -> None:
    pos = end_position(VARIANTS["Maria"], np.random.default_rng(3), 6)
    result = solve(pos)
    assert isinstance(result, SolveResult)
    assert result.variant == "Maria" and result.rules == RULES and result.clairvoyant
    assert result.step_limit == 1000 and result.nodes >= 1 and result.seconds >= 0
    assert result.stopped_by == ""


# ---------------------------------------------------------------------- lost, unknown
def test_buried_predecessors_are_lost() -> None:
    pos = lost_position()
    rules = rules_for(VARIANTS["FortyThieves"])
    assert [rules.action_to_move(a) for a in rules.legal_actions(rules.from_position(pos))] == [
        "draw"
    ]
    for rule_set in RULE_SETS:
        result = solve(pos, rules=rule_set, rollouts=False)
        assert (result.status, result.moves, result.nodes) == ("lost", (), 2)
        # the rollout pass first: the root (1 node), the draw tried (1) and played (1),
        # then stuck; the beam: the draw made (1), then no child; the search after them
        # proves the loss (2)
        result = solve(pos, rules=rule_set)
        assert (result.status, result.moves, result.nodes) == ("lost", (), 6)
        result = solve(pos, rules=rule_set, beam=False)
        assert (result.status, result.moves, result.nodes) == ("lost", (), 5)
        assert result.found_by == ""


def test_lost_means_within_the_step_limit() -> None:
    """A position that wins in ``D`` moves at the fewest: ``won`` with ``step_limit=D``
    (a line of exactly ``D`` moves), ``lost`` with ``D - 1``, for every rule set."""
    spec = VARIANTS["NumberTen"]
    pos = end_position(spec, np.random.default_rng(11), 7)
    best = shortest_win(spec, pos)
    assert best is not None and best >= 7
    for rule_set in RULE_SETS:
        won = solve(pos, step_limit=best, rules=rule_set)
        assert won.status == "won" and len(won.moves) == best
        assert solve(pos, step_limit=best - 1, rules=rule_set).status == "lost"
    replay_in_gym(spec, pos, won.moves)


def test_node_budget_gives_unknown_and_is_deterministic() -> None:
    env = gym.make(env_id("NumberTen"))
    env.reset(seed=2)  # not won within 2000 nodes
    pos = env.unwrapped.get_state()
    first = solve(pos, nodes=2000)
    assert (first.status, first.stopped_by, first.nodes, first.moves) == (
        "unknown",
        "nodes",
        2000,
        (),
    )
    again = solve(pos, nodes=2000)
    assert (again.status, again.nodes) == (first.status, first.nodes)


def test_seconds_cap_and_stop_callback() -> None:
    env = gym.make(env_id("NumberTen"))
    env.reset(seed=2)
    pos = env.unwrapped.get_state()
    capped = solve(pos, nodes=10**8, seconds=1e-9, rollouts=False)
    assert (capped.status, capped.stopped_by, capped.nodes) == ("unknown", "seconds", 1 << 16)
    stopped = solve(pos, nodes=10**8, should_stop=lambda: True, rollouts=False)
    assert (stopped.status, stopped.stopped_by, stopped.nodes) == ("unknown", "stop", 1 << 16)
    # the rollout pass looks at the clock between two moves of its line, once 65536 nodes
    # are spent (it wins deal 7 after about 125000 nodes)
    env.reset(seed=7)
    pos = env.unwrapped.get_state()
    won = solve(pos, nodes=10**8)
    assert won.status == "won" and won.found_by == "rollouts" and won.nodes > 100_000
    for cut in (solve(pos, nodes=10**8, seconds=1e-9), solve(pos, should_stop=lambda: True)):
        assert cut.status == "unknown" and cut.stopped_by in ("seconds", "stop")
        assert (1 << 16) <= cut.nodes < won.nodes


def test_won_position_needs_no_move() -> None:
    """A position with all 104 cards up (a GameState, with its variant) is won in 0 moves."""
    spec = VARIANTS["Streets"]
    state = rules_for(spec).from_position(end_position(spec, np.random.default_rng(0), 0))
    result = solve(state, "Streets")
    assert (result.status, result.moves, result.nodes) == ("won", (), 1)


# ---------------------------------------------------------------------- rules vs exhaustive
@pytest.mark.parametrize("spec", [*VARIANTS.values(), *KINGS_ONLY], ids=lambda s: s.id)
def test_pruning_rules_agree_with_exhaustive_search(spec: VariantSpec) -> None:
    """Random end positions (6 to 9 cards off the foundations): for every rule set (none,
    each rule alone, all), ``solve`` is ``won`` exactly when the breadth-first reference
    finds a win within the limit, with the step limit at the default, at the shortest win
    ``D`` and at ``D - 1``; every ``won`` line replays with the engine within the limit.
    Both verdicts occur (small random end positions are nearly always won: the ``lost``
    verdicts come mostly from the limit ``D - 1``, an exhaustive search all the same).
    Also for two custom variants whose empty columns take only Kings (rules F, W and E are
    safe under that rule too: see :func:`~fortythieves_env.solver.pruning._safe_foundation`)."""
    rules = rules_for(spec)
    rng = np.random.default_rng(sum(map(ord, spec.id)))
    verdicts = {"won": 0, "lost": 0}
    for pos in itertools.islice(playable_end_positions(spec, rng), 14):
        best = shortest_win(spec, pos)
        limits = [spec.max_episode_steps] + ([best, best - 1] if best is not None else [])
        for limit in limits:
            expected = "won" if best is not None and best <= limit else "lost"
            verdicts[expected] += 1
            for rule_set, rollouts in [(r, False) for r in RULE_SETS] + [(RULES, True)]:
                result = solve(
                    pos, spec, step_limit=limit, rules=rule_set, nodes=10**7, rollouts=rollouts
                )
                assert result.status == expected, (pos, limit, rule_set, best)
                if expected == "lost" and best is not None:  # a win exists, beyond the limit
                    assert result.proof is not None and not result.proof["no_win_at_all"]
                if expected == "won":
                    assert best <= len(result.moves) <= limit
                    replay = rules.from_position(pos)
                    for move in result.moves:
                        rules.play(replay, move)
                    assert rules.is_won(replay)
    assert verdicts["won"] >= 14 and verdicts["lost"] >= 10, verdicts


def test_a_lost_verdict_says_what_its_proof_needed() -> None:
    """``SolveResult.proof`` of a ``lost`` verdict: positions stored, re-searches, positions
    not stored, the deepest frame and whether the closed set settled the root for every
    number of steps ("no line wins at all": the step limit never bit). The buried
    predecessors position has nothing to play but one draw: two positions, no win at all.
    A position won in ``D`` moves at the fewest is lost within ``D - 1``, and then never
    "no win at all" (the limit bit); ``won`` and ``unknown`` carry no proof."""
    proof = solve(lost_position(), rollouts=False).proof
    assert proof == {
        "positions": 2,
        "re_searched": 0,
        "not_stored": 0,
        "deepest": 1,
        "no_win_at_all": True,
        "dead": 0,
    }
    spec = VARIANTS["NumberTen"]
    pos = end_position(spec, np.random.default_rng(11), 7)
    best = shortest_win(spec, pos)
    assert best is not None
    short = solve(pos, step_limit=best - 1, rollouts=False)
    assert short.status == "lost" and short.proof is not None
    assert short.proof["no_win_at_all"] is False and short.proof["deepest"] <= best - 1
    assert short.proof["positions"] > 1
    assert solve(pos, step_limit=best).proof is None
    assert solve(pos, nodes=3).proof is None


# ---------------------------------------------------------------------- rule F itself
def _st(variant: str, pos: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    spec = VARIANTS[variant]
    tables = core.tables_for(spec)
    return tables.pack(rules_for(spec).from_position(pos)), tables.table


@pytest.mark.parametrize(
    ("variant", "build", "piles", "card", "safe"),
    [
        # same suit: the other pile of the suit at r-1 or more
        ("FortyThieves", 0, {"S": (5, 5)}, "6S", True),
        ("FortyThieves", 0, {"S": (5, 4)}, "6S", False),  # the twin could be stranded
        ("FortyThieves", 0, {"S": (0, 0)}, "AS", True),
        # alternate colour: other colour >= r-2, the same colour's other suit >= r-3
        ("Maria", 1, {"H": (6, 6), "C": (5, 5), "S": (5, 5), "D": (4, 4)}, "7H", True),
        ("Maria", 1, {"H": (6, 6), "C": (5, 5), "S": (4, 5), "D": (4, 4)}, "7H", False),
        ("Maria", 1, {"H": (6, 6), "C": (5, 5), "S": (5, 5), "D": (3, 4)}, "7H", False),
        ("Maria", 1, {"H": (6, 2), "C": (13, 13), "S": (13, 13), "D": (13, 13)}, "7H", False),
        # any suit but its own: the other three suits >= r-2
        ("Indian", 2, {"D": (6, 6), "C": (5, 5), "H": (5, 5), "S": (5, 5)}, "7D", True),
        ("Indian", 2, {"D": (6, 6), "C": (5, 5), "H": (5, 4), "S": (5, 5)}, "7D", False),
    ],
)
def test_rule_f_conditions(
    variant: str, build: int, piles: dict[str, tuple[int, int]], card: str, safe: bool
) -> None:
    """The conditions of rule F on foundation heights (the card fits a pile: one pile of
    its suit is at rank - 1); the ``False`` rows are the design note's counterexamples
    (a too-eager rule strands the twin or a card that needs the card's host)."""
    foundations: list[list[str]] = []
    for s in SUITS:
        for h in piles.get(s, (13, 13)):
            foundations.append([RANKS[r] + s for r in range(h)])
    off = [RANKS[r] + s for s in SUITS for p in piles.get(s, (13, 13)) for r in range(p, 13)]
    off.remove(card)
    spec = VARIANTS[variant]
    pos = {
        "variant": variant,
        "tableau": [[card]] + [[] for _ in range(spec.n_columns - 1)],
        "face_down": [0] * spec.n_columns,
        "stock": off,
        "waste": [],
        "foundations": foundations,
        "redeals_left": 0,
    }
    st, tb = _st(variant, pos)
    assert _safe_foundation(st, tb, card_code(card), build) is safe


def test_rule_f_move_is_the_only_child_and_the_waste_waits_for_the_last_redeal() -> None:
    """Little Forty, the clubs of one pile off (AC on the waste, 2C..KC in the stock):
    with rule F a foundation move of an Ace is the only child; from the waste only once
    no redeal is left (F does not cover the waste before). From a column top always."""
    spec = VARIANTS["LittleForty"]
    rules = rules_for(spec)
    tables = core.tables_for(spec)
    legal = np.zeros(rules.n_actions, dtype=np.int32)
    out = np.zeros(rules.n_actions, dtype=np.int32)
    scores = np.zeros(rules.n_actions, dtype=np.int32)
    base = end_position(spec, np.random.default_rng(5), 0)
    base["foundations"][0] = []  # AC..KC off
    base["stock"] = [RANKS[r] + "C" for r in range(12, 0, -1)]  # 2C is dealt first
    cases = [  # (waste, column 0, redeals left, children with F)
        (["AC"], [], 1, None),
        (["AC"], [], 0, ["w>f"]),
        ([], ["AC"], 1, ["t0>f"]),
    ]
    for waste, column, redeals, only in cases:
        pos = dict(base, waste=waste, redeals_left=redeals)
        pos["tableau"] = [column] + [[] for _ in range(spec.n_columns - 1)]
        st = tables.pack(rules.from_position(pos))
        n_all = _children(st, tables.table, 0, 2, legal, out, scores)
        n = _children(st, tables.table, 7, 2, legal, out, scores)
        moves = [rules.action_to_move(int(a)) for a in out[:n]]
        assert n_all > 1
        if only is None:
            assert n > 1 and moves[0] == "w>f"  # first by the move order, not forced
        else:
            assert moves == only


# ---------------------------------------------------------------------- bad input
def test_bad_input_is_refused() -> None:
    pos = end_position(VARIANTS["Lucas"], np.random.default_rng(1), 5)
    state = rules_for(VARIANTS["Lucas"]).from_position(pos)
    with pytest.raises(ValueError, match=r"nodes must be an integer 1\.\.9223372036854775807"):
        solve(pos, nodes=0)
    with pytest.raises(ValueError, match="seconds must be a positive number"):
        solve(pos, seconds=0)
    with pytest.raises(ValueError, match=r"step_limit must be an integer 0\.\.100000, got -1"):
        solve(pos, step_limit=-1)
    with pytest.raises(ValueError, match="unknown pruning rules"):
        solve(pos, rules=("F", "X"))
    with pytest.raises(ValueError, match="a GameState needs variant="):
        solve(state)
    with pytest.raises(InvalidPositionError, match="the position is for variant"):
        solve(pos, "Maria")
    with pytest.raises(TypeError, match="expected a rule-book position"):
        solve([1, 2, 3])  # type: ignore[arg-type]
    broken = dict(pos, stock=pos["stock"] + ["AS"])
    with pytest.raises(InvalidPositionError):
        solve(broken)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"step_limit": 100_001}, r"step_limit must be an integer 0\.\.100000, got 100001"),
        ({"step_limit": 2**40}, r"step_limit must be an integer 0\.\.100000, got 1099511627776"),
        ({"step_limit": 2**70}, r"step_limit must be an integer 0\.\.100000"),
        ({"step_limit": True}, r"step_limit must be an integer 0\.\.100000, got True"),
        ({"step_limit": 5.0}, r"step_limit must be an integer 0\.\.100000, got 5\.0"),
        ({"nodes": 2**63}, r"nodes must be an integer 1\.\.9223372036854775807, got 9223"),
        ({"nodes": 2**70}, r"nodes must be an integer 1\.\.9223372036854775807"),
        ({"nodes": np.bool_(True)}, r"nodes must be an integer 1\.\."),
        ({"nodes": 10.0}, r"nodes must be an integer 1\.\."),
    ],
)
def test_budgets_out_of_range_are_refused_before_any_work(kwargs: dict, message: str) -> None:
    """Too big a step limit or node budget is a ValueError, not a MemoryError or an
    OverflowError from the arrays or the compiled search."""
    pos = end_position(VARIANTS["Lucas"], np.random.default_rng(1), 5)
    with pytest.raises(ValueError, match=message):
        solve(pos, **kwargs)


def test_numpy_integer_budgets_and_the_bounds_are_accepted() -> None:
    pos = end_position(VARIANTS["Maria"], np.random.default_rng(3), 6)
    plain = solve(pos, nodes=50, step_limit=30)
    result = solve(pos, nodes=np.int64(50), step_limit=np.int32(30))
    assert result == dataclasses.replace(plain, seconds=result.seconds)
    assert type(result.step_limit) is int and result.step_limit == 30
    # the largest budget and step limit are taken (step_limit=0: lost at once, no search)
    top = solve(pos, nodes=MAX_NODES, step_limit=0)
    assert (top.status, top.step_limit) == ("lost", 0)
    # one node: the rollout pass takes it, and nothing is left for the search
    one = solve(pos, nodes=1)
    assert (one.status, one.nodes, one.stopped_by) == ("unknown", 1, "nodes")
    assert solve(pos, nodes=np.uint64(MAX_NODES), step_limit=MAX_STEP_LIMIT).status == "won"


# ---------------------------------------------------------------------- the closed set's keys
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_keys_made_by_the_move_equal_keys_made_from_scratch(variant: str) -> None:
    """Random games of each variant (redeals included): for every legal move of every
    position met, the keys :func:`_child_keys` makes from the parent and the move (and the
    source and target columns' raw terms) equal :func:`_full_keys` of the position the
    move makes; the keys do not see the column order (the columns reversed give equal
    keys); positions that differ get different keys."""
    spec = VARIANTS[variant]
    tables = core.tables_for(spec)
    tb = tables.table
    z = key_tables_for(tables)
    c = spec.n_columns
    env = gym.make(env_id(variant))
    rng = np.random.default_rng(7)
    raw, key = np.zeros((c, 2), np.uint64), np.zeros(2, np.uint64)
    raw2, key2 = np.zeros((c, 2), np.uint64), np.zeros(2, np.uint64)
    out = np.zeros(6, np.uint64)
    legal = np.zeros(int(tb[core.H_NACT]), np.int32)
    codec = rules_for(spec).codec
    checked = 0
    keys_seen: dict[tuple[int, int], tuple[Any, ...]] = {}
    for seed in range(3):
        env.reset(seed=seed)
        st = tables.pack(env.unwrapped.state)
        for _ in range(150):
            _full_keys(st, tb, *z, raw, key)
            n = core.legal_actions(st, tb, legal)
            if n == 0:
                break
            for a in legal[:n]:
                child = st.copy()
                core.apply(child, tb, int(a))
                _full_keys(child, tb, *z, raw2, key2)
                ident = canonical(tables.unpack(child))
                assert keys_seen.setdefault((int(key2[0]), int(key2[1])), ident) == ident
                move = codec.to_move(int(a))
                if move == "redeal":  # keys made from scratch in the search
                    continue
                _child_keys(st, tb, int(a), *z[:5], raw, key, out)
                assert (out[0], out[1]) == (key2[0], key2[1]), move
                kind, src, dst = (int(x) for x in tb[tb[core.H_DECODE] + 4 * a :][:3])
                if kind in (COLUMN_TO_COLUMN, COLUMN_TO_FOUNDATION):
                    assert (out[2], out[3]) == (raw2[src, 0], raw2[src, 1]), move
                if kind in (COLUMN_TO_COLUMN, WASTE_TO_COLUMN):
                    assert (out[4], out[5]) == (raw2[dst, 0], raw2[dst, 1]), move
                checked += 1
            state = tables.unpack(st)
            flipped = dataclasses.replace(
                state, tableau=state.tableau[::-1], face_down=state.face_down[::-1]
            )
            _full_keys(tables.pack(flipped), tb, *z, raw2, key2)
            assert (key2[0], key2[1]) == (key[0], key[1])
            core.apply(st, tb, int(legal[rng.integers(n)]))
    assert checked > 500 and len(keys_seen) > 300


# ---------------------------------------------------------------------- the closed set, checked
# Version 3's closed set (``_search``): records that say "no line wins within b steps" or
# "no line wins at all" (INF), pieces settled by lowlinks, re-searches, a table that may fill,
# a piece list that may grow and a search that pauses between chunks of nodes. The tests
# below read the final table of a ``lost`` search and check every record against the
# distances to a win of the whole reachable graph (an exhaustive reference, every legal move),
# and check that pausing, growing and a full table change nothing they should not.
def reach_graph(
    spec: VariantSpec, pos: dict[str, Any], cap: int = 30_000
) -> tuple[list[GameState], list[int | None]]:
    """Every position reachable from ``pos`` by legal moves (column order forgotten; none
    beyond a won one) and, for each, the fewest moves that win from it (``None``: no line
    wins at all), by a breadth-first search back from the won positions."""
    rules = rules_for(spec)
    start = rules.from_position(pos)
    index = {canonical(start): 0}
    states, succ = [start], [[]]
    todo = deque([0])
    while todo:
        i = todo.popleft()
        if rules.is_won(states[i]):
            continue
        for a in rules.legal_actions(states[i]):
            child = states[i].copy()
            rules.apply(child, a)
            j = index.setdefault(canonical(child), len(states))
            if j == len(states):
                states.append(child)
                succ.append([])
                todo.append(j)
                if len(states) > cap:
                    raise RuntimeError("position too big for the reference search")
            succ[i].append(j)
    pred: list[list[int]] = [[] for _ in states]
    for i, js in enumerate(succ):
        for j in js:
            pred[j].append(i)
    dist: list[int | None] = [0 if rules.is_won(s) else None for s in states]
    todo = deque(i for i, d in enumerate(dist) if d == 0)
    while todo:
        j = todo.popleft()
        for i in pred[j]:
            if dist[i] is None:
                dist[i] = dist[j] + 1  # type: ignore[operator]
                todo.append(i)
    return states, dist


def new_search(
    spec: VariantSpec, pos: dict[str, Any], limit: int, rule_set: tuple[str, ...], nodes: int
) -> Any:
    """The depth-first pass alone (``solve(..., rollouts=False)``'s), ready to run."""
    from fortythieves_env import solver as sv

    tables = core.tables_for(spec)
    root = tables.pack(rules_for(spec).from_position(pos))
    _, flags = rule_flags(rule_set, "test")
    return sv._Search(tables, root, limit, flags, sv.build_code(spec), nodes, 0)


def run_search(search: Any, nodes: int, step: int | None = None) -> int:
    """Run ``search`` to its end or ``nodes``: in one call, or in calls of ``step`` nodes."""
    from fortythieves_env import solver as sv

    if step is None:
        return search.run(nodes)
    while True:
        status = search.run(min(nodes, search.nodes + step))
        if status != sv.RUNNING or search.nodes >= nodes:
            return status


def position_keys(spec: VariantSpec, states: list[GameState]) -> list[tuple[int, int]]:
    """The closed set's two keys of each position (made from scratch)."""
    tables = core.tables_for(spec)
    z = key_tables_for(tables)
    raw = np.zeros((spec.n_columns, 2), np.uint64)
    key = np.zeros(2, np.uint64)
    keys = []
    for state in states:
        _full_keys(tables.pack(state), tables.table, *z, raw, key)
        k1, k2 = int(key[0]), int(key[1])
        keys.append((k1, k2 if k1 or k2 else 1))
    return keys


def check_records(
    search: Any,
    keys: list[tuple[int, int]],
    dist: list[int | None],
    finished: bool = True,
) -> dict[str, int]:
    """Every record of a finished (``lost``) search is settled, belongs to a reachable
    position (``keys``: :func:`position_keys` of the reachable graph) and is true:
    ``INF`` only where no line wins at all, a bound ``b`` only where no line wins within
    ``b`` moves. Returns how many records of each kind were met.

    ``finished=False`` (a search that won or was paused): every record belongs to a
    reachable position and every ``INF`` record is settled and true (an ``INF`` record
    leans only on ``INF`` records and on its own piece, all settled with it, so it is true
    at any time; a finite one may still lean on positions on the stack)."""
    from fortythieves_env import solver as sv

    rec = search.rec
    mask = rec.shape[0] - 1
    kinds = {"inf": 0, "finite": 0}
    for (k1, k2), d in zip(keys, dist, strict=True):
        slot = k1 & mask
        while int(rec[slot, 0]) != 0 or int(rec[slot, 1]) != 0:
            if (int(rec[slot, 0]), int(rec[slot, 1])) == (k1, k2):
                meta = int(rec[slot, 2])
                bound, kind = meta & 0xFFFFFFFF, (meta >> 32) & 0xFF
                if bound == sv.INF:
                    kinds["inf"] += 1
                    assert kind == sv.FINAL, (slot, kind)
                    assert d is None, f"INF record, but a line of {d} moves wins"
                elif not finished:
                    kinds["finite"] += 1
                else:
                    assert kind == sv.FINAL, (slot, kind)
                    kinds["finite"] += 1
                    assert d is None or d > bound, f"bound {bound}, but {d} moves win"
                break
            slot = (slot + 1) & mask
    # every stored record was met: none belongs to a position that cannot be reached
    assert kinds["inf"] + kinds["finite"] == search.proof()["positions"]
    return kinds


def cycle_position() -> dict[str, Any]:
    """Forty Thieves, 4 cards off plus JH in the stock: QD can go from one KD to its twin and
    back, cards can go to an empty column and back; the fewest moves that win: 7 (draw, JH,
    QH, QD, KD, KD, KH up)."""
    return position("FortyThieves", [["KH", "KD"], ["KD", "QD"], ["QH"]], stock=["JH"])


@pytest.mark.parametrize("variant", ["FortyThieves", "LittleForty", "NumberTen", "Maria"])
def test_every_record_of_a_lost_search_is_true(variant: str) -> None:
    """Random end positions (their whole reachable graph known): at every step limit below
    the shortest win (rules none and all; at ``D - 1`` every rule set) the search ends
    ``lost`` and its final table holds only settled records of reachable positions, each
    true against the graph's distances to a win: no ``INF`` where a line wins, no bound
    ``b`` where a line of ``b`` moves or fewer wins. Re-searches happen (positions met
    first with fewer steps left, then again with more)."""
    from fortythieves_env import solver as sv

    spec = VARIANTS[variant]
    rng = np.random.default_rng(sum(map(ord, variant)) + 24)
    re_searched = checked = positions = 0
    candidates = playable_end_positions(spec, rng)
    while positions < 2:
        pos = next(candidates)
        try:
            states, dist = reach_graph(spec, pos, cap=15_000)
            keys = position_keys(spec, states)
        except RuntimeError:
            continue
        best = dist[0]
        if best is None or best < 5:
            continue
        positions += 1
        runs = [(limit, r) for limit in range(1, best) for r in [(), RULES]]
        runs += [(best - 1, r) for r in RULE_SETS if r not in ((), RULES)]
        for limit, rule_set in runs:
            search = new_search(spec, pos, limit, rule_set, 10**7)
            assert run_search(search, 10**7) == sv.LOST, (pos, limit, rule_set)
            assert search.proof()["no_win_at_all"] is False  # a line wins, beyond the limit
            check_records(search, keys, dist)
            re_searched += search.proof()["re_searched"]
            checked += 1
    assert checked >= 10 and re_searched > 0


def test_cycles_lost_below_the_shortest_win_won_at_it_and_at_the_default() -> None:
    """A position with reversible moves (a card between twin hosts, cards to an empty column
    and back; rules none keep every cycle): with every rule set and the search alone,
    ``lost`` at ``D - 1`` (the limit bit: not "no win at all"; every record true), ``won``
    at ``D`` with a line of exactly ``D`` moves and at the default limit; every line
    replays. Without rules the ``lost`` search re-searches positions (met first deep in a
    cycle, with fewer steps left than the win from them needs)."""
    from fortythieves_env import solver as sv

    spec = VARIANTS["FortyThieves"]
    pos = cycle_position()
    states, dist = reach_graph(spec, pos)
    keys = position_keys(spec, states)
    best = shortest_win(spec, pos)
    assert best == dist[0] == 7
    for rule_set in RULE_SETS:
        lost = solve(pos, step_limit=best - 1, rules=rule_set, rollouts=False)
        assert lost.status == "lost" and lost.proof is not None
        assert lost.proof["no_win_at_all"] is False
        if rule_set == ():
            assert lost.proof["re_searched"] > 0
        search = new_search(spec, pos, best - 1, rule_set, 10**7)
        assert run_search(search, 10**7) == sv.LOST
        assert search.nodes == lost.nodes and search.proof() == lost.proof
        check_records(search, keys, dist)
        for limit in (best, spec.max_episode_steps):
            for rollouts in (False, True):
                won = solve(pos, step_limit=limit, rules=rule_set, rollouts=rollouts)
                assert won.status == "won", (rule_set, limit, rollouts)
                assert best <= len(won.moves) <= limit
                replay_in_gym(spec, pos, won.moves)
        assert len(solve(pos, step_limit=best, rules=rule_set, rollouts=False).moves) == best


def _deal(variant: str, seed: int) -> dict[str, Any]:
    """The position of a deal (``reset(seed=seed)``)."""
    env = gym.make(env_id(variant))
    env.reset(seed=seed)
    pos = env.unwrapped.get_state()
    env.close()
    return pos


def _chunk_cases() -> list[tuple[str, dict[str, Any], int, tuple[str, ...], int]]:
    """(variant, position, step limit, rules, node budget): lost, won, unknown searches."""
    env = gym.make(env_id("NumberTen"))
    env.reset(seed=2)
    deal = env.unwrapped.get_state()
    env.close()
    cases = [
        ("FortyThieves", cycle_position(), limit, rule_set, 10**6)
        for limit in (6, 7, 1000)
        for rule_set in [(), RULES]
    ]
    return [*cases, ("NumberTen", deal, 1000, RULES, 3000), ("NumberTen", deal, 1000, (), 2000)]


def test_the_search_is_the_same_whatever_the_chunking() -> None:
    """A search run in one call, or paused every 1, 2, 7 or 100 nodes and resumed, ends in
    the same state: status, node count, line, the whole control array and the whole closed
    set (the pause keeps everything in the arrays); and ``solve`` (the search alone) gives
    that status, node count and line."""
    from fortythieves_env import solver as sv

    answer = {sv.WON: "won", sv.LOST: "lost", sv.RUNNING: "unknown"}
    for variant, pos, limit, rule_set, nodes in _chunk_cases():
        spec = VARIANTS[variant]
        whole = new_search(spec, pos, limit, rule_set, nodes)
        status = run_search(whole, nodes)
        for step in (1, 2, 7, 100):
            part = new_search(spec, pos, limit, rule_set, nodes)
            assert run_search(part, nodes, step) == status, (variant, limit, rule_set, step)
            assert part.nodes == whole.nodes and part.line() == whole.line()
            assert np.array_equal(part.ctl, whole.ctl)
            assert np.array_equal(part.rec, whole.rec)
        result = solve(pos, nodes=nodes, step_limit=limit, rules=rule_set, rollouts=False)
        codec = rules_for(spec).codec
        line = tuple(codec.to_move(a) for a in whole.line()) if status == sv.WON else ()
        assert (result.status, result.nodes, result.moves) == (answer[status], whole.nodes, line)


def test_a_piece_list_grown_from_one_entry_gives_the_same_search() -> None:
    """The piece list (provisional records waiting for their piece's root) starting with
    room for one entry: the search returns ``GROW`` whenever it is full, is given a larger
    one and goes on; the end state equals the search with the usual list (status, nodes,
    line, control array, closed set), and the list did grow."""
    grown = 0
    for variant, pos, limit, rule_set, nodes in _chunk_cases():
        spec = VARIANTS[variant]
        usual = new_search(spec, pos, limit, rule_set, nodes)
        status = run_search(usual, nodes)
        small = new_search(spec, pos, limit, rule_set, nodes)
        small.piece = np.zeros(1, dtype=np.int64)
        assert run_search(small, nodes, 5) == status
        assert small.nodes == usual.nodes and small.line() == usual.line()
        assert np.array_equal(small.ctl, usual.ctl)
        assert np.array_equal(small.rec, usual.rec)
        grown += small.piece.shape[0] > 1
    assert grown >= 2


def test_a_closed_set_grown_from_two_records_gives_the_same_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The closed set starting with 2 records (``FIRST_TABLE_BITS`` patched) and doubled
    whenever 3/4 full (``TABLE``, :func:`_rehash`), paused every 3 nodes or not: the same
    status, nodes, line and control array (but the growth mark) as the search whose table
    has its full size from the start, the same records (slots aside: a record moves when
    the table doubles), and the frames and the piece list name the same records."""
    from fortythieves_env import solver as sv

    grown = 0
    for variant, pos, limit, rule_set, nodes in [
        *_chunk_cases(),
        ("Maria", _deal("Maria", 2_000_000_000), 1000, RULES, 20_000),
    ]:
        spec = VARIANTS[variant]
        monkeypatch.setattr(sv.search, "FIRST_TABLE_BITS", sv.MAX_TABLE_BITS)
        usual = new_search(spec, pos, limit, rule_set, nodes)
        status = run_search(usual, nodes)
        assert usual.ctl[sv.search.C_GROW_AT] == 0
        monkeypatch.setattr(sv.search, "FIRST_TABLE_BITS", 1)
        for step in (None, 3):
            small = new_search(spec, pos, limit, rule_set, nodes)
            assert run_search(small, nodes, step) == status
            assert small.nodes == usual.nodes and small.line() == usual.line()
            assert np.array_equal(
                small.ctl[: sv.search.C_GROW_AT], usual.ctl[: sv.search.C_GROW_AT]
            )
            assert small.rec.shape[0] <= usual.rec.shape[0]
            grown += small.rec.shape[0] > 2
            kept = {tuple(r) for r in small.rec.tolist() if r[0] or r[1]}
            assert kept == {tuple(r) for r in usual.rec.tolist() if r[0] or r[1]}
            d, n = int(small.ctl[sv.search.C_DEPTH]), int(small.ctl[sv.search.C_PIECE])
            d -= status == sv.WON  # the won child's frame was never entered
            for a, b in [*zip(small.slotof[: d + 1], usual.slotof[: d + 1], strict=True),
                         *zip(small.piece[:n], usual.piece[:n], strict=True)]:  # fmt: skip
                assert (a < 0) == (b < 0)
                if a >= 0:
                    assert np.array_equal(small.rec[a], usual.rec[b])
    assert grown >= 4


def test_a_full_closed_set_counts_positions_not_stored_as_cut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A closed set of 2, 32 and 64 records (``MAX_TABLE_BITS`` patched; 3/4 of it used):
    positions that find no room are searched unstored and count as cut. The buried
    predecessors position (no line wins at all) is still ``lost`` but no longer "no win at
    all" (its one child was not stored); the cycle position and random end positions keep
    their verdicts against the breadth-first reference at ``D - 1`` and ``D``, and each
    ``lost`` table (full) holds only true records."""
    from fortythieves_env import solver as sv

    monkeypatch.setattr(sv.search, "MAX_TABLE_BITS", 1)  # read there
    result = solve(lost_position(), rollouts=False)
    assert (result.status, result.nodes) == ("lost", 2)
    assert result.proof == {
        "positions": 1,
        "re_searched": 0,
        "not_stored": 1,
        "deepest": 1,
        "no_win_at_all": False,
        "dead": 0,
    }
    spec = VARIANTS["FortyThieves"]
    cases = [(cycle_position(), (("F",), ("W",), ("E",), RULES), 5)]
    rng = np.random.default_rng(2024)
    while len(cases) < 3:
        pos = end_position(spec, rng, int(rng.integers(6, 9)))
        best = shortest_win(spec, pos)
        if best is not None and best >= 5:
            cases.append((pos, (("F",), RULES), 6))
    dropped = 0
    for pos, rule_sets, bits in cases:
        monkeypatch.setattr(sv.search, "MAX_TABLE_BITS", bits)  # read there
        states, dist = reach_graph(spec, pos)
        keys = position_keys(spec, states)
        best = dist[0]
        assert best is not None
        for rule_set in rule_sets:
            lost = solve(pos, step_limit=best - 1, rules=rule_set, rollouts=False, nodes=10**8)
            assert lost.status == "lost" and lost.proof is not None, (pos, rule_set)
            assert lost.proof["positions"] <= (3 << bits) // 4
            assert lost.proof["no_win_at_all"] is False
            dropped += lost.proof["not_stored"]
            search = new_search(spec, pos, best - 1, rule_set, 10**8)
            assert search.rec.shape[0] == 1 << bits
            assert run_search(search, 10**8) == sv.LOST
            check_records(search, keys, dist)
            won = solve(pos, step_limit=best, rules=rule_set, rollouts=False, nodes=10**8)
            assert won.status == "won" and len(won.moves) == best
            replay_in_gym(spec, pos, won.moves)
    assert dropped > 0


@pytest.mark.parametrize("rollouts", [False, True])
def test_one_and_two_moves_from_the_win_at_step_limits_0_1_2(rollouts: bool) -> None:
    """103 cards up, KS left: on the waste or a column it wins in 1 move (the won child is
    seen as the foundation move from 103 cards), from the stock in 2 (draw, then up).
    Step limit 0: ``lost`` at once (1 node); 1: ``won`` from the waste or a column, ``lost``
    from the stock (the limit bit: not "no win at all"); 2 and the default: ``won``."""
    spec = VARIANTS["FortyThieves"]
    cases = [
        (position("FortyThieves", [], waste=["KS"]), ("w>f",)),
        (position("FortyThieves", [["KS"]]), ("t0>f",)),
        (position("FortyThieves", [], stock=["KS"]), ("draw", "w>f")),
    ]
    for pos, line in cases:
        assert shortest_win(spec, pos) == len(line)
        for rule_set in RULE_SETS:
            none = solve(pos, step_limit=0, rules=rule_set, rollouts=rollouts)
            assert (none.status, none.nodes) == ("lost", 1)
            assert none.proof == {  # nothing searched; a move exists, so not "no win at all"
                "positions": 0,
                "re_searched": 0,
                "not_stored": 0,
                "deepest": 0,
                "no_win_at_all": False,
                "dead": 0,
            }
            for limit in (1, 2, spec.max_episode_steps):
                result = solve(pos, step_limit=limit, rules=rule_set, rollouts=rollouts)
                if limit < len(line):
                    assert (result.status, result.moves) == ("lost", ())
                    assert result.proof == {
                        "positions": 1,
                        "re_searched": 0,
                        "not_stored": 0,
                        "deepest": 0,
                        "no_win_at_all": False,
                        "dead": 0,
                    }
                    # rollouts 3 nodes, the beam 1 (the draw, then the limit), search 2
                    assert result.nodes == (6 if rollouts else 2)
                else:
                    assert (result.status, result.moves) == ("won", line)
                    assert result.nodes == len(line) + 1
                    assert result.found_by == ("rollouts" if rollouts else "search")


@pytest.mark.parametrize("variant", ["FortyThieves", "Indian", "LittleForty", "Streets"])
def test_no_record_says_no_win_at_all_where_a_line_wins(variant: str) -> None:
    """At the default step limit (the limit seldom bites: pieces settle by lowlinks alone)
    and at small node budgets (paused searches), with rules none and all: whatever the
    search's end (``won`` or paused), every ``INF`` record in its closed set is settled and
    true against the whole reachable graph. These positions can always still win, so an
    ``INF`` record here would be a wrong one: a piece settled before the position it leans
    on (lowlink or cut not carried up, a stale piece joined)."""
    spec = VARIANTS[variant]
    rng = np.random.default_rng(sum(map(ord, variant)) + 25)
    cases = [cycle_position()] if variant == "FortyThieves" else []
    candidates = playable_end_positions(spec, rng)
    while len(cases) < 4:
        cases.append(next(candidates))
    checked = 0
    for pos in cases:
        try:
            states, dist = reach_graph(spec, pos, cap=15_000)
            keys = position_keys(spec, states)
        except RuntimeError:
            continue
        for rule_set in [(), RULES]:
            for nodes in (30, 300, 10**6):
                search = new_search(spec, pos, spec.max_episode_steps, rule_set, nodes)
                run_search(search, nodes)
                check_records(search, keys, dist, finished=False)
                checked += 1
    assert checked >= 12


TRAP = VariantSpec("Trap", "Trap", 3, 0, 4, "same_suit", False)
"""Forty Thieves' rules on three columns: small enough for a whole reachable graph with
positions from which no line wins (a dead region)."""


def trap_position() -> dict[str, Any]:
    """Eight cards off (a spade pile at 9, one at J, a heart pile at J); 10 moves win, and
    21 reachable positions cannot win at all (a king on the queen it must follow, with no
    empty column left to move it to), found by a random search over such positions."""

    def pile(top: int, suit: str) -> list[str]:
        return [RANKS[i] + suit for i in range(top)]

    foundations = [pile(13, s) for s in "CCDD"] + [pile(11, "H"), pile(13, "H")]
    foundations += [pile(9, "S"), pile(11, "S")]
    return {
        "variant": "Trap",
        "tableau": [["KS", "KH", "JS"], ["TS", "QH", "QS", "QS"], []],
        "face_down": [0, 0, 0],
        "stock": ["KS"],
        "waste": [],
        "foundations": foundations,
        "redeals_left": 0,
    }


def test_records_of_a_dead_region_say_no_win_at_all_and_are_true() -> None:
    """A position whose reachable graph holds positions that cannot win at all (the other
    record tests' positions can always still win, so they never need an ``INF`` record):
    below the shortest win, with rules none and all, the lost search records every dead
    position it reached as ``INF`` (at ``D - 1``: all 21 of the graph) and every record is
    true; at the default limit the search wins and its ``INF`` records are true too; from a
    dead position itself ``solve`` says lost with ``no_win_at_all`` (from the root, whose
    lost searches met the limit, never)."""
    from fortythieves_env import solver as sv

    pos = trap_position()
    states, dist = reach_graph(TRAP, pos)
    keys = position_keys(TRAP, states)
    dead = [i for i, d in enumerate(dist) if d is None]
    assert dist[0] == 10 and len(dead) == 21 and len(states) == 236
    for rule_set in [(), RULES]:
        for limit in range(1, dist[0]):
            search = new_search(TRAP, pos, limit, rule_set, 10**7)
            assert run_search(search, 10**7) == sv.LOST
            assert search.proof()["no_win_at_all"] is False  # the root wins, beyond the limit
            kinds = check_records(search, keys, dist)
            if limit == dist[0] - 1:
                assert kinds["inf"] == len(dead), (rule_set, kinds)
        search = new_search(TRAP, pos, TRAP.max_episode_steps, rule_set, 10**7)
        assert run_search(search, 10**7) == sv.WON
        assert check_records(search, keys, dist, finished=False)["inf"] > 0
    for i in dead:
        result = solve(states[i], TRAP, rollouts=False)
        assert result.status == "lost" and result.proof is not None
        assert result.proof["no_win_at_all"] is True, i
