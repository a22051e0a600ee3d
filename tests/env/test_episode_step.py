"""One episode step and one place for a variant's tables (issue 38, point 2).

:func:`fortythieves_env.rules.episode.episode_step` is the reward, the end and the truncation of
every environment's step, in Python (the single environments) and compiled (the batched
ones); :func:`fortythieves_env.rules.tables.tables_for` is where a spec becomes its codec, rule
table, observation layout and table array, for the rules' API, the backends, the
environments and the family's encoding alike. The environments' episodes themselves are
compared move by move elsewhere (``test_family.py``, ``test_vector_env.py``,
``test_fast_backend.py``)."""

from __future__ import annotations

import itertools

import gymnasium as gym
import numba
import numpy as np
import pytest

import fortythieves_env
from fortythieves_env import VARIANTS, FortyThievesVectorEnv, env_id
from fortythieves_env.envs import env
from fortythieves_env.envs.backends import NumbaBackend, PythonBackend
from fortythieves_env.envs.family import rule_set_map
from fortythieves_env.envs.family_env import family_tables
from fortythieves_env.rules import core, tables
from fortythieves_env.rules.actions import COLUMN_TO_COLUMN, DRAW, REDEAL, WASTE_TO_COLUMN
from fortythieves_env.rules.engine import rules_for
from fortythieves_env.rules.episode import episode_step, step_outcome
from fortythieves_env.rules.observation import LATEST_VERSION, ObservationLayout


def _packed(n_legal: int, foundation_cards: int, cards: int) -> int:
    return (n_legal << 8) | (foundation_cards << 1) | cards


def _step(packed: int, **kw: float) -> tuple[float, bool, bool, int, int, int, int]:
    """``episode_step`` with Forty Thieves' defaults: 30 legal actions and 10 cards up
    before, no count, rewards 1.0 / 10.0 / 0.1."""
    args = {
        "kind": DRAW,
        "face_down_before": 0,
        "face_down_after": 0,
        "n_legal": 30,
        "foundation_cards": 10,
        "idle": 0,
        "elapsed": 0,
        "reward_per_card": 1.0,
        "win_bonus": 10.0,
        "illegal_action_penalty": 0.1,
        "max_idle": 0,
        "max_steps": 0,
    }
    args.update(kw)
    return episode_step(packed, *args.values())  # type: ignore[arg-type]


def test_a_card_put_up_earns_the_reward_per_card_and_the_counts_follow_the_move() -> None:
    assert _step(_packed(25, 11, 1)) == (1.0, False, False, 25, 11, 0, 1)
    assert _step(_packed(25, 10, 0)) == (0.0, False, False, 25, 10, 0, 1)
    assert _step(_packed(25, 11, 1), reward_per_card=0.5)[0] == 0.5


def test_the_last_card_adds_the_win_bonus_and_terminates() -> None:
    assert _step(_packed(0, 104, 1), foundation_cards=103) == (11.0, True, False, 0, 104, 0, 1)


def test_no_legal_move_left_terminates_a_lost_game() -> None:
    assert _step(_packed(0, 40, 0))[:3] == (0.0, True, False)


def test_a_refused_action_pays_the_penalty_and_changes_no_count() -> None:
    reward, terminated, truncated, n_legal, fcards, idle, elapsed = _step(-1, elapsed=4)
    assert (reward, terminated, truncated, n_legal, fcards, idle, elapsed) == (
        -0.1,
        False,
        False,
        30,
        10,
        0,
        5,  # every step counts for the step limit, refused ones too
    )
    assert _step(-1, n_legal=0)[1] is True  # a game with no move left ends on any action


@pytest.mark.parametrize(
    ("kind", "cards", "fd_before", "fd_after", "progress"),
    [
        (DRAW, 0, 0, 0, True),
        (REDEAL, 0, 0, 0, True),
        (WASTE_TO_COLUMN, 0, 0, 0, False),
        (COLUMN_TO_COLUMN, 0, 3, 3, False),  # nothing turned up
        (COLUMN_TO_COLUMN, 0, 3, 2, True),  # a face-down card turned up
        (COLUMN_TO_COLUMN, 1, 0, 0, True),  # (no column move puts a card up: the rule still)
    ],
)
def test_the_no_progress_count(
    kind: int, cards: int, fd_before: int, fd_after: int, progress: bool
) -> None:
    counted = {"kind": kind, "face_down_before": fd_before, "face_down_after": fd_after}
    step = _step(_packed(20, 10 + cards, cards), idle=4, max_idle=5, **counted)
    assert step[5] == (0 if progress else 5)
    assert step[2] is (not progress)  # the fifth step in a row without progress truncates
    assert _step(_packed(20, 10 + cards, cards), idle=4, **counted)[5] == 4  # not counted
    refused = _step(-1, idle=4, max_idle=5, **counted)
    assert refused[5] == 5 and refused[2] is True  # a refused action is no progress


def test_the_no_progress_truncation_is_never_set_on_a_step_that_terminates() -> None:
    step = _step(_packed(0, 40, 0), kind=WASTE_TO_COLUMN, idle=9, max_idle=5)
    assert step[1:3] == (True, False)


def test_the_step_limit_truncates_even_a_step_that_terminates() -> None:
    assert _step(_packed(12, 10, 0), elapsed=98, max_steps=100)[2] is False
    assert _step(_packed(12, 10, 0), elapsed=99, max_steps=100)[2] is True
    assert _step(_packed(0, 104, 1), foundation_cards=103, elapsed=99, max_steps=100)[1:3] == (
        True,
        True,
    )


@numba.njit
def _compiled_steps(inputs: np.ndarray, out: np.ndarray) -> None:
    for k in range(inputs.shape[0]):
        r = inputs[k]
        reward, terminated, truncated, n_legal, fcards, idle, elapsed = episode_step(
            r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], 1.5, 7.0, 0.25, r[8], r[9]
        )
        out[k, 0] = reward
        out[k, 1] = terminated
        out[k, 2] = truncated
        out[k, 3] = n_legal
        out[k, 4] = fcards
        out[k, 5] = idle
        out[k, 6] = elapsed


def test_the_compiled_step_is_the_python_step() -> None:
    """The batched environments compile the same function the single ones run in Python:
    the same answers on every combination of the cases above."""
    packed = [-1, _packed(0, 104, 1), _packed(0, 40, 0), _packed(17, 55, 1), _packed(9, 20, 0)]
    kinds = [DRAW, REDEAL, WASTE_TO_COLUMN, COLUMN_TO_COLUMN]
    rows = [
        (p, kind, 3, fd_after, n_legal, 54, idle, elapsed, max_idle, max_steps)
        for p, kind, fd_after, n_legal, idle, elapsed, max_idle, max_steps in itertools.product(
            packed, kinds, (3, 2), (0, 12), (0, 4), (0, 99), (0, 5), (0, 100)
        )
    ]
    inputs = np.array(rows, dtype=np.int64)
    out = np.zeros((len(rows), 7))
    _compiled_steps(inputs, out)
    for row, got in zip(rows, out.tolist(), strict=True):
        p, kind, fdb, fda, n_legal, fcards, idle, elapsed, max_idle, max_steps = row
        want = episode_step(
            p, kind, fdb, fda, n_legal, fcards, idle, elapsed, 1.5, 7.0, 0.25, max_idle, max_steps
        )
        assert got == [float(x) for x in want], row


@pytest.mark.parametrize("packed", [-1, _packed(0, 104, 1), _packed(0, 40, 0), _packed(17, 55, 1)])
@pytest.mark.parametrize("n_legal", [0, 12])
def test_the_step_outcome_is_the_episode_step_without_its_counts(packed: int, n_legal: int) -> None:
    """``FortyThievesEnv`` counting nothing calls the first half alone: the same reward,
    end and counts."""
    whole = _step(packed, n_legal=n_legal, foundation_cards=54, win_bonus=7.0)
    assert step_outcome(packed, n_legal, 54, 1.0, 7.0, 0.1) == (*whole[:2], *whole[3:5])


def test_the_python_step_returns_python_types() -> None:
    """The single environments return these as they are (a ``float`` reward, ``bool``
    flags), as before the episode step."""
    reward, terminated, truncated, *counts = _step(_packed(25, 11, 1))
    assert type(reward) is float and type(terminated) is bool and type(truncated) is bool
    assert all(type(c) is int for c in counts)
    assert type(_step(-1)[0]) is float


@pytest.mark.parametrize(
    ("name", "args", "value"),
    [
        ("move_reward", (1, 57, 1.0, 10.0), 1.0),
        ("move_reward", (1, 104, 0.5, 10.0), 10.5),
        ("move_reward", (0, 60, 1.0, 10.0), 0.0),
        ("game_over", (104, 3), True),
        ("game_over", (70, 0), True),
        ("game_over", (70, 3), False),
        ("made_progress", (DRAW, 0, 0, 0), True),
        ("made_progress", (COLUMN_TO_COLUMN, 0, 2, 2), False),
        ("made_progress", (COLUMN_TO_COLUMN, 0, 2, 1), True),
        ("made_progress", (WASTE_TO_COLUMN, 1, 0, 0), True),
    ],
)
def test_the_old_rule_functions_warn_and_answer_as_before(
    name: str, args: tuple[int | float, ...], value: object
) -> None:
    with pytest.warns(DeprecationWarning, match=r"fortythieves_env\.rules\.episode\.episode_step"):
        function = getattr(env, name)
    assert function(*args) == value
    with pytest.raises(AttributeError):
        env.no_such_name  # noqa: B018


# ---------------------------------------------------------------------- one place for the tables
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_user_of_a_variants_tables_gets_them_from_one_place(variant: str) -> None:
    spec = VARIANTS[variant]
    own = tables.tables_for(spec)
    assert own is tables.tables_for(spec, LATEST_VERSION) is core.tables_for(spec, 1)
    rules = rules_for(spec)
    assert rules.codec is own.codec and rules.build_table is own.build_table
    assert rules._compiled()[1] is own
    assert own.layout == ObservationLayout.for_variant(spec, LATEST_VERSION)
    made = gym.make(env_id(variant)).unwrapped
    version = made.observation_version
    assert made.layout is tables.tables_for(spec, version).layout
    assert NumbaBackend(spec, version).tables is tables.tables_for(spec, version)
    assert PythonBackend(spec, version).layout is tables.tables_for(spec, version).layout
    vector = FortyThievesVectorEnv(variant, 2, observation_version=version)
    assert vector.tables is tables.tables_for(spec, version)
    assert vector.layout is vector.tables.layout
    assert rule_set_map(spec).layout is own.layout
    shared = family_tables(spec)
    assert shared.codec is own.codec and shared.build_table is own.build_table
    assert shared.layout is fortythieves_env.envs.family.FAMILY_LAYOUT.cards


def test_the_rule_table_is_made_once_per_build_and_empty_column_rule() -> None:
    by_rules: dict[tuple[object, object], list[list[bool]]] = {}
    for spec in VARIANTS.values():
        table = tables.tables_for(spec).build_table
        assert by_rules.setdefault((spec.build, spec.empty_column), table) is table
    assert len(by_rules) >= 3  # the nine variants use every build rule
    lucas = tables.tables_for(VARIANTS["Lucas"])
    block = lucas.table[tables.N_HEADER : tables.N_HEADER + 53 * 53]
    assert block.tolist() == [int(x) for row in lucas.build_table for x in row]


def test_the_tables_moved_but_keep_their_names() -> None:
    """``FastTables``, ``tables_for`` and the header names are the same objects from the
    rules core as from :mod:`fortythieves_env.rules.tables`."""
    assert core.FastTables is tables.FastTables and core.tables_for is tables.tables_for
    assert (tables.N_HEADER, tables.H_NACT, tables.H_DECODE, tables.H_TAKEN) == (21, 3, 19, 20)
    assert (core.N_HEADER, core.H_DECODE) == (tables.N_HEADER, tables.H_DECODE)
    assert (core.H_NACT, core.S_FCARDS) == (tables.H_NACT, tables.S_FCARDS)
    assert tables.FastTables.__module__ == "fortythieves_env.rules.tables"
