"""The solver's beam search (:mod:`fortythieves_env.solver.beam`, solver version 4's win finding):
its score on a hand-made position; on small end positions of every variant it finds a win
exactly when the breadth-first reference does, at the shortest length once nothing was
dropped; on real deals it wins where version 3's passes do not, deterministically, and every
line replays through ``gymnasium.make``."""

from __future__ import annotations

import itertools

import gymnasium as gym
import numpy as np
import oracle
import pytest
from helpers import KINGS_ONLY
from test_solver import playable_end_positions, replay_in_gym, shortest_win

from fortythieves_env import VARIANTS, GameState, VariantSpec, env_id
from fortythieves_env.rules.core import tables_for
from fortythieves_env.rules.engine import rules_for
from fortythieves_env.solver import solve
from fortythieves_env.solver.beam import B_DROPPED, DONE, PROGRESS_WEIGHTS, WON, Beam, progress
from fortythieves_env.solver.pruning import build_code, rule_flags


def progress_reference(spec: VariantSpec, state: GameState) -> int:
    """:func:`progress` restated on a :class:`GameState` with the test oracle's build rule
    (``oracle.builds_on``), apart from the compiled kernel."""
    up = state.foundation_cards
    down = sum(state.face_down)
    empty = sum(1 for col in state.tableau if not col)
    breaks = blocked = 0
    for col, fd in zip(state.tableau, state.face_down, strict=True):
        for j, card in enumerate(col):
            if j > 0 and j >= fd and not oracle.builds_on(spec, card, col[j - 1]):
                breaks += 1
            below = col[:j]
            if any((c - 1) // 13 == (card - 1) // 13 and c < card for c in below):
                blocked += 1
    w_up, w_down, w_empty, w_break, w_blocked, w_waste = PROGRESS_WEIGHTS
    return (
        w_up * up
        - w_down * down
        + w_empty * min(empty, 4)
        - w_break * breaks
        - w_blocked * blocked
        - w_waste * len(state.waste)
    )


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_progress_equals_its_restatement_in_random_play(variant: str) -> None:
    """Every 7th position of three random games (hand-counted terms: foundation cards,
    face-down cards, empty columns up to 4, breaks, blocked cards, waste cards)."""
    spec = VARIANTS[variant]
    rules = rules_for(spec)
    tables = tables_for(spec)
    rng = np.random.default_rng(3)
    env = gym.make(env_id(spec))
    checked = set()
    for game in range(3):
        env.reset(seed=game)
        for step in range(400):
            state = rules.from_position(env.unwrapped.get_state())
            if step % 7 == 0:
                value = int(progress(tables.pack(state), tables.table))
                assert value == progress_reference(spec, state), (variant, game, step)
                checked.add(value)
            legal = rules.legal_actions(state)
            if not legal:
                break
            _, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
            if terminated or truncated:
                break
    assert len(checked) >= 5  # the positions differ in their score


@pytest.mark.parametrize("spec", [*VARIANTS.values(), *KINGS_ONLY], ids=lambda s: s.id)
def test_beam_agrees_with_exhaustive_search_on_small_positions(spec: VariantSpec) -> None:
    """Random end positions (6 to 9 cards off): the beam (all pruning rules, widened until
    nothing is dropped or 2,000,000 nodes) wins only where the breadth-first reference
    finds a win within the limit (at the default, at the shortest win ``D`` and at
    ``D - 1``), each line between ``D`` and the limit long and replayed by the engine; once
    its last search dropped nothing it is a breadth-first search: it then wins exactly
    where the reference does, at length ``D``."""
    rules = rules_for(spec)
    tables = tables_for(spec)
    _, flags = rule_flags(("F", "W", "E"), "test")
    rng = np.random.default_rng(7 + sum(map(ord, spec.id)))
    complete = won = 0
    for pos in itertools.islice(playable_end_positions(spec, rng), 10):
        best = shortest_win(spec, pos)
        limits = [spec.max_episode_steps] + ([best, best - 1] if best and best > 1 else [])
        for limit in limits:
            root = tables.pack(rules.from_position(pos))
            beam = Beam(tables, root, limit, flags, build_code(spec))
            status = beam.run(2_000_000, 2_000_000)
            wins = best is not None and best <= limit
            if status == WON:
                won += 1
                line = [rules.codec.to_move(a) for a in beam.line()]
                assert wins and best <= len(line) <= limit, (pos, limit, best)
                replay = rules.from_position(pos)
                for move in line:
                    rules.play(replay, move)
                assert rules.is_won(replay)
            if not beam.ctl[B_DROPPED]:  # its last search was breadth-first
                complete += 1
                assert status == (WON if wins else DONE), (pos, limit, best)
                if wins:
                    assert len(beam.line()) == best
    assert won >= 5 and complete >= 5, (won, complete)


@pytest.mark.parametrize(("variant", "first"), [("Streets", 0), ("Maria", 15)])
def test_beam_wins_deals_version_3_leaves_unknown(variant: str, first: int) -> None:
    """Three test deals at 1,000,000 nodes: the beam pass wins at least two that the
    version-3 passes (``beam=False``) leave unknown at the same budget; a second run gives
    the same answer, line and node count; every line replays through ``gymnasium.make``."""
    spec = VARIANTS[variant]
    env = gym.make(env_id(spec))
    by_beam = 0
    for seed in range(2_000_000_000 + first, 2_000_000_003 + first):
        env.reset(seed=seed)
        pos = env.unwrapped.get_state()
        result = solve(pos, nodes=1_000_000)
        assert result.nodes <= 1_000_000
        if result.found_by != "beam":
            continue
        by_beam += 1
        again = solve(pos, nodes=1_000_000)
        assert (again.status, again.moves, again.nodes) == (
            result.status,
            result.moves,
            result.nodes,
        )
        replay_in_gym(spec, pos, result.moves)
        assert solve(pos, nodes=1_000_000, beam=False).status == "unknown"
    assert by_beam >= 2


def test_the_beam_stops_at_a_callers_stop_and_counts_every_node() -> None:
    """A stop asked for at the 21st look (every 65,536 nodes; the rollout pass's share
    is 1,000,000 nodes, 16 looks at most): ``unknown``, ``stopped_by="stop"``, with more
    nodes than the rollout pass's share (the beam ran) and fewer than the beam's end."""
    env = gym.make(env_id("FortyThieves"))
    env.reset(seed=2_000_000_001)
    pos = env.unwrapped.get_state()
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 20

    result = solve(pos, nodes=8_000_000, should_stop=stop)
    assert (result.status, result.stopped_by) == ("unknown", "stop")
    assert 1_000_000 < result.nodes < 5_000_000


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_childs_progress_and_key_by_the_move_equal_the_made_childs(variant: str) -> None:
    """In random play, for every move but ``redeal`` of every 5th position: the score the
    beam gives a child without making it (``_child_progress``, from the parent's column
    terms) equals :func:`progress` of the child made, its key by the move
    (``_child_keys``) the key made from scratch (``_full_keys``), and the child's column
    terms by the move (``_move_terms``) those made from scratch (``_fill_terms``)."""
    from fortythieves_env.rules.actions import REDEAL
    from fortythieves_env.rules.core import apply
    from fortythieves_env.rules.keys import _child_keys, _full_keys, key_tables_for
    from fortythieves_env.solver.beam import _child_progress, _fill_terms, _move_terms

    spec = VARIANTS[variant]
    rules = rules_for(spec)
    tables = tables_for(spec)
    tb = tables.table
    z = key_tables_for(tables)
    c = spec.n_columns
    terms = np.zeros(c + 2, dtype=np.int64)
    raw, key = np.zeros((c, 2), dtype=np.uint64), np.zeros(2, dtype=np.uint64)
    kbuf = np.zeros(6, dtype=np.uint64)
    child_raw, child_key = raw.copy(), key.copy()
    rng = np.random.default_rng(5)
    env = gym.make(env_id(spec))
    moves = 0
    for game in range(2):
        env.reset(seed=10 + game)
        for step in range(300):
            state = rules.from_position(env.unwrapped.get_state())
            legal = rules.legal_actions(state)
            if not legal:
                break
            if step % 5 == 0:
                st = tables.pack(state)
                _fill_terms(st, tb, terms)
                _full_keys(st, tb, *z, raw, key)
                for a in legal:
                    if rules.codec.decode(a)[0] == REDEAL:
                        continue
                    child = st.copy()
                    apply(child, tb, a)
                    assert _child_progress(st, tb, a, terms) == progress(child, tb)
                    _child_keys(st, tb, a, *z[:5], raw, key, kbuf)
                    _full_keys(child, tb, *z, child_raw, child_key)
                    assert (kbuf[0], kbuf[1]) == (child_key[0], child_key[1])
                    by_move, made = terms.copy(), terms.copy()
                    _move_terms(child, tb, terms, by_move, a)
                    _fill_terms(child, tb, made)
                    assert by_move.tolist() == made.tolist()
                    moves += 1
            _, _, terminated, truncated, _ = env.step(int(rng.choice(legal)))
            if terminated or truncated:
                break
    assert moves >= 100


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_small_budgets_are_never_passed(variant: str) -> None:
    """``solve(nodes=n)`` enters at most ``n`` positions for every ``n`` up to 40 (the beam
    stops before a child once the whole budget is spent; it used to finish a position's
    children, e.g. 9 nodes for 8 on Streets' third test deal)."""
    env = gym.make(env_id(variant))
    for seed in range(2_000_000_000, 2_000_000_003):
        env.reset(seed=seed)
        pos = env.unwrapped.get_state()
        used = [solve(pos, nodes=n).nodes for n in range(1, 41)]
        assert all(u <= n for n, u in zip(range(1, 41), used, strict=True)), used
        assert max(used) >= 20  # the budgets were spent, not left unused
