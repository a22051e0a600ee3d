"""Rule D, dead positions (:mod:`fortythieves_env.solver.dead`): a position the relaxation
calls dead has no winning line, checked against the exhaustive search without the rule (which
``test_solver.py`` checks against a breadth-first search over the oracle's moves), on every
variant, Kings-only empty columns included; the depth-first search with the rule gives the
same verdicts, and proves dealt games lost in far fewer nodes."""

from __future__ import annotations

import itertools

import gymnasium as gym
import numpy as np
import pytest
from helpers import KINGS_ONLY
from test_solver import playable_end_positions

from fortythieves_env import VARIANTS, VariantSpec, env_id
from fortythieves_env.rules.core import tables_for
from fortythieves_env.rules.engine import rules_for
from fortythieves_env.solver import ALL_RULES, RULES, solve
from fortythieves_env.solver.dead import dead

ONE_CARD = [s for s in (*VARIANTS.values(), *KINGS_ONLY) if not s.sequence_moves]
SEQUENCES = [s for s in (*VARIANTS.values(), *KINGS_ONLY) if s.sequence_moves]


def dead_positions(spec: VariantSpec, games: int, want: int) -> tuple[int, int, int]:
    """Random play from dealt games (seeds ``0 .. games-1``, uniform legal moves, a look
    every 5th move): at each position the relaxation calls dead, the exhaustive search
    without rule D (300,000 nodes) must not win. Stops after ``want`` such positions proved
    lost. Returns (dead positions, proved lost, left unknown)."""
    rules, tables = rules_for(spec), tables_for(spec)
    rng = np.random.default_rng(5)
    fired = lost = unknown = 0
    for game in range(games):
        state = rules.deal(np.random.default_rng(game))
        for step in range(400):
            if step % 5 == 0 and dead(tables.pack(state), tables.table):
                fired += 1
                result = solve(rules.to_position(state), spec, nodes=300_000, rollouts=False)
                assert result.status != "won", (spec.id, game, step, result.moves)
                lost += result.status == "lost"
                unknown += result.status == "unknown"
                break
            legal = rules.legal_actions(state)
            if not legal:
                break
            rules.apply(state, int(rng.choice(legal)))
        if lost >= want:
            break
    return fired, lost, unknown


@pytest.mark.parametrize("spec", ONE_CARD, ids=lambda s: s.id)
def test_dead_positions_of_one_card_variants_are_lost(spec: VariantSpec) -> None:
    """Random play in every one-card variant reaches dead positions; each is lost by the
    exhaustive search (at least 3 proved per variant, none won)."""
    fired, lost, _ = dead_positions(spec, games=60, want=3)
    assert lost >= 3, (spec.id, fired, lost)


@pytest.mark.parametrize("spec", SEQUENCES, ids=lambda s: s.id)
def test_dead_positions_of_sequence_variants_are_never_won(spec: VariantSpec) -> None:
    """Sequence moves (a card may leave as the base of a sequence): where random play
    reaches a position called dead, the exhaustive search does not win it."""
    fired, lost, unknown = dead_positions(spec, games=15, want=3)
    assert fired == lost + unknown


@pytest.mark.parametrize("spec", [*VARIANTS.values(), *KINGS_ONLY], ids=lambda s: s.id)
def test_the_search_with_rule_d_gives_the_verdicts_of_the_search_without(
    spec: VariantSpec,
) -> None:
    """Small end positions (6 to 9 cards off): the depth-first search with rule D gives the
    verdict of the search without it (which ``test_solver.py`` checks against the
    breadth-first reference), a won line replayed by the engine either way."""
    rng = np.random.default_rng(17 + sum(map(ord, spec.id)))
    verdicts = set()
    for pos in itertools.islice(playable_end_positions(spec, rng), 6):
        with_d = solve(pos, spec, rules=ALL_RULES, rollouts=False)
        without = solve(pos, spec, rules=RULES, rollouts=False)
        assert with_d.status == without.status != "unknown", pos
        verdicts.add(with_d.status)
    assert "won" in verdicts


def test_rule_d_proves_dealt_forty_thieves_games_lost_in_few_nodes() -> None:
    """Forty Thieves test deal 51 (proved lost by solver versions 3 and 4 in 6.5 and 8.6
    million nodes, results/solver/FortyThieves.jsonl): with rule D the search proves it lost,
    no line at any length, within 10,000 nodes, settling dead positions unentered."""
    env = gym.make(env_id("FortyThieves"))
    env.reset(seed=2_000_000_051)
    result = solve(env.unwrapped.get_state(), "FortyThieves", nodes=10_000, rules=ALL_RULES)
    assert result.status == "lost"
    assert result.proof is not None
    assert result.proof["no_win_at_all"] is True and result.proof["dead"] > 0
    assert result.rules == ALL_RULES
    env.close()


def test_the_relaxation_says_nothing_with_an_empty_column_that_takes_any_card() -> None:
    """Hearts at Ten and King, the rest up; one column KH, JH, QH (top) and nine empty.
    With empty columns that take any card, QH can be parked, JH and QH go up, then KH: not
    dead (and won). With Kings-only empty columns QH can go nowhere (its host KH lies under
    it, its foundation pile waits for JH beneath it): dead, and the search proves it lost."""
    names = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    foundations = [names[13 * (p // 2) : 13 * (p // 2) + 13] for p in range(8)]
    foundations[5] = foundations[5][:10]  # one hearts pile at Ten: JH, QH, KH are off
    pos = {
        "tableau": [["KH", "JH", "QH"]] + [[] for _ in range(9)],
        "face_down": [0] * 10,
        "stock": [],
        "waste": [],
        "foundations": foundations,
        "redeals_left": 0,
    }
    for spec, expected in ((VARIANTS["FortyThieves"], False), (KINGS_ONLY[0], True)):
        rules, tables = rules_for(spec), tables_for(spec)
        position = {**pos, "variant": spec.id}
        state = rules.from_position(position)
        assert dead(tables.pack(state), tables.table) is expected
        verdict = solve(position, spec, rules=ALL_RULES, rollouts=False)
        assert verdict.status == ("lost" if expected else "won")
