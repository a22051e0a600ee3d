"""The search agent's work on one position (:mod:`fortythieves_agents.players.search`'s
module docstring, points 2-6): the compiled greedy rollouts, the samples of the hidden cards,
the scores of every action by rollouts or by solving (hindsight optimisation), sequential
halving (the UCB1 bandit's arithmetic is :mod:`.search_ucb`), and the no-return rule's
demotion. :class:`~fortythieves_agents.players.search.SearchAgent`
and :class:`~fortythieves_agents.players.search.SearchHint` call :func:`scores_for_view`."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING

import numpy as np

from fortythieves_env.rules.actions import (
    COLUMN_TO_COLUMN,
    COLUMN_TO_FOUNDATION,
    WASTE_TO_COLUMN,
    WASTE_TO_FOUNDATION,
    codec_for,
)
from fortythieves_env.rules.cards import N_CARDS
from fortythieves_env.rules.checks import INT64_MAX, checked_int
from fortythieves_env.rules.core import H_NACT, FastTables, apply, legal_actions, tables_for
from fortythieves_env.rules.greedy import rollout
from fortythieves_env.rules.jit import kernel
from fortythieves_env.rules.observation import OBSERVATION_VERSIONS, ObservationLayout
from fortythieves_env.rules.variants import VariantSpec
from fortythieves_env.rules.view import PlayerView, determinize, player_view
from fortythieves_env.solver import SolverContext, build_code, pruned_moves

from .search_arms import MAX_ARMS, MAX_CLOSURE, Arms, irreversible_arms, is_dead_end
from .search_budget import DEFAULT_STALL, MAX_NODES_PER_SAMPLE
from .search_leaf import N_FEATURES, UNKNOWN_WEIGHT, LeafModel, leaf_features, leaf_model
from .search_ucb import ucb_allocate, ucb_pulls

if TYPE_CHECKING:
    from .search_budget import SearchBudget

__all__ = ["greedy_rollout", "halving_schedule", "scores_for_view", "solve_scores", "view_digest"]

_CARDS_SCALE = 105.0  # mean cards / 105 < 1: the tie-break never outweighs one win


# ---------------------------------------------------------------------- compiled rollouts
@kernel
def _score_moves(
    samples: np.ndarray,
    tb: np.ndarray,
    moves: np.ndarray,
    horizon: int,
    stall: int,
    wins: np.ndarray,
    cards: np.ndarray,
    moves_played: np.ndarray,
) -> None:
    """For each sample (row of ``samples``) and move: play the move, roll out; add to
    ``wins[j]`` (won rollouts), ``cards[j]`` (foundation cards reached) and
    ``moves_played[j]`` (the rollout's moves)."""
    work = np.empty(samples.shape[1], dtype=np.int16)
    legal = np.empty(tb[H_NACT], dtype=np.int64)
    for k in range(samples.shape[0]):
        for j in range(moves.shape[0]):
            work[:] = samples[k]
            apply(work, tb, np.int64(moves[j]))
            reached, played = rollout(work, tb, legal, horizon, stall)
            cards[j] += reached
            moves_played[j] += played
            if reached == N_CARDS:
                wins[j] += 1


def greedy_rollout(
    spec: VariantSpec, st: np.ndarray, horizon: int | None = None, stall: int = DEFAULT_STALL
) -> int:
    """Play the compiled greedy policy from state array ``st`` (``int16``, changed in
    place) as a rollout does; return the foundation cards reached (104: won).

    Raises:
        ValueError: ``st`` is not a state array of ``spec``.
    """
    tables = tables_for(spec)
    if st.dtype != np.int16 or st.shape != (tables.state_size,):
        raise ValueError(f"greedy_rollout({spec.id}): need an int16 state array")
    legal = np.empty(tables.table[H_NACT], dtype=np.int64)
    h = spec.max_episode_steps if horizon is None else horizon
    return int(rollout(st, tables.table, legal, h, stall)[0])


# ---------------------------------------------------------------------- one position
class _Variant:
    """What the agent needs of one variant, computed once."""

    def __init__(self, spec: VariantSpec) -> None:
        self.spec = spec
        self.tables: FastTables = tables_for(spec)
        self.observation_sizes = tuple(
            sorted({ObservationLayout.for_variant(spec, v).size for v in OBSERVATION_VERSIONS})
        )
        self.build = build_code(spec)
        n = int(self.tables.table[H_NACT])
        self.n_actions = n
        codec = codec_for(spec)
        decode = np.array(codec.table, dtype=np.int64).reshape(-1, 4)
        self.decode = decode
        self.index = {tuple(row): a for a, row in enumerate(decode.tolist())}
        self.legal = np.empty(n, dtype=np.int32)
        self.out = np.empty(n, dtype=np.int32)
        self.order = np.empty(n, dtype=np.int32)
        self._context: SolverContext | None = None
        self.features = np.empty(N_FEATURES, dtype=np.float64)

    def leaf(self, budget: SearchBudget) -> LeafModel | None:
        """The leaf model ``budget.leaf`` asks for (None: ``"cards"``,
        :mod:`.search_leaf`)."""
        return leaf_model(self.spec.id) if budget.leaf == "learned" else None

    def context(self) -> SolverContext:
        """The variant's solver context (made at the first solve: it holds some MB)."""
        if self._context is None:
            self._context = SolverContext(self.spec)
        return self._context


_VARIANTS: dict[VariantSpec, _Variant] = {}


def _variant(spec: VariantSpec) -> _Variant:
    if spec not in _VARIANTS:
        _VARIANTS[spec] = _Variant(spec)
    return _VARIANTS[spec]


def view_digest(view: PlayerView) -> tuple[int, int]:
    """Two 64-bit words that identify ``view`` (a blake2b digest of its fields)."""
    text = repr(
        (
            view.variant,
            view.tableau,
            view.face_down,
            view.waste,
            view.foundations,
            view.stock_size,
            view.stock,
            view.redeals_left,
        )
    )
    digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
    return int.from_bytes(digest[:8], "little"), int.from_bytes(digest[8:], "little")


def scores_for_view(
    spec: VariantSpec,
    view: PlayerView,
    budget: SearchBudget,
    rng: np.random.Generator,
    mask: np.ndarray | None = None,
    steps_left: int | None = None,
    values: np.ndarray | None = None,
    prior: np.ndarray | None = None,
    top: int = 0,
    prior_weight: float = 0.0,
    avoid: Collection[int] | None = None,
) -> np.ndarray:
    """The search's scores of every action in the position a player sees as ``view``.

    Reads the view only (never a full position), so positions with equal views get
    equal scores for equal ``rng`` states. See the module docstring for the method and
    the score scale.

    Args:
        spec: the variant.
        view: the player's view of the position.
        budget: samples, horizon and stall of the rollouts.
        rng: draws the samples (its state moves on).
        mask: the legal-action mask (``int8``, shape ``(n_actions,)``), if the caller has
            it; it must agree with the view's legal moves.
        steps_left: the episode's steps left, this move included (>= 1), if known: a
            rollout then plays at most ``steps_left - 1`` moves after the candidate (and
            at most the budget's horizon), so a win past the step limit is not counted.
        values: if given (``float64``, shape ``(n_actions,)``), filled with each action's
            estimated value with ``method="solve"``: the mean over its samples of 1 (won),
            0 (lost) or ``cards / 208`` (unsolved; :func:`solve_scores`), the same for a
            move into another empty column as for its twin into the first (rule E); NaN
            for an action not valued (illegal, pruned, the rollouts setting, or the only
            or safe move played without search). Expert iteration's soft targets
            (:mod:`fortythieves_agents.training.expert`).
        prior: ``(n_actions,)`` scores of a guide (a network's logits; higher is better,
            read on the candidates only): with ``top`` >= 1 only the ``top`` candidates it
            ranks highest are searched (the rest score 0, as pruned moves), so each gets
            the budget's samples for ``top`` candidates instead of all (network + search;
            ties by the solver's move order). None: every candidate is searched.
        top: the most candidates searched with a ``prior`` (0: all).
        prior_weight: with a ``prior`` and ``budget.method="solve"``, how much the guide
            counts beside the samples' values (>= 0; 0: not at all). Each candidate's mean
            value gets ``prior_weight * (log p - max log p)`` added (``p``: the softmax of
            the prior over the candidates searched), in sequential halving's cuts and in
            the final order (:func:`solve_scores`' ``bonus``): the guide spreads the
            samples towards the moves it likes instead of pruning the others, as the
            prior's logits do in Gumbel MuZero's sequential halving (Danihelka et al.
            2022). Ignored by the rollouts setting.
        avoid: with ``budget.arms="irreversible"``, the views met before in the game (their
            :func:`~fortythieves_env.rules.core.view_hash`): no arm's path goes through one
            (:mod:`.search_arms`, the no-return rule). None: none.

    Returns:
        ``float64``, shape ``(n_actions,)``: ``-inf`` for an illegal action.

    Raises:
        ValueError: ``mask`` disagrees with the view's legal moves, the view is not
            one of ``spec``, or ``steps_left`` is not an integer >= 1.
    """
    if steps_left is not None:
        steps_left = checked_int("scores_for_view: steps_left", steps_left, 1, INT64_MAX)
    var = _variant(spec)
    tables, tb = var.tables, var.tables.table
    if view.variant != spec.id:
        raise ValueError(f"scores_for_view: a view of {view.variant}, not of {spec.id}")
    template = tables.pack(determinize(view, view.unseen))
    n_legal = legal_actions(template, tb, var.legal)
    legal = var.legal[:n_legal].astype(np.int64)
    if mask is not None and np.flatnonzero(mask).tolist() != legal.tolist():
        raise ValueError("scores_for_view: the mask disagrees with the view's legal moves")
    scores = np.full(var.n_actions, -np.inf, dtype=np.float64)
    if values is not None:
        values[:] = np.nan
    if n_legal == 0:
        return scores
    scores[legal] = 0.0
    count = pruned_moves(template, tb, var.build, var.legal, var.out, var.order)
    moves = var.out[:count].astype(np.int64)
    if prior is not None and 1 <= top < count:
        ranked = np.argsort(-np.asarray(prior, dtype=np.float64)[moves], kind="stable")
        moves = moves[np.sort(ranked[:top])]  # the guide's best, in the solver's order
        count = top
    if count == 1:
        scores[moves[0]] = budget.samples + 1.0
    elif budget.method == "solve":
        found = np.empty(count, dtype=np.float64) if values is not None else None
        bonus = None
        if prior is not None and prior_weight > 0.0:
            logits = np.asarray(prior, dtype=np.float64)[moves]
            bonus = prior_weight * (logits - logits.max())  # log-softmax minus its max
        scores[moves] = solve_scores(
            spec, view, template, moves, budget, rng, steps_left, found, bonus, avoid
        )
        if values is not None:
            values[moves] = found
    else:
        k = budget.samples if view.unseen else 1
        horizon = budget.horizon_for(spec)
        if steps_left is not None:
            horizon = min(horizon, int(steps_left) - 1)
        # halving_schedule is one round (uniform) itself for 2 candidates or k = 1
        per_round = halving_schedule(count, k) if budget.allocation == "halving" else [k]
        samples = _samples(tables, view, template, rng, sum(per_round))
        scores[moves] = _rollout_scores(
            samples, tb, moves, per_round, horizon, budget.stall, budget.samples
        )
    _copy_to_other_empty_columns(var, template, legal, scores)
    if values is not None:
        _copy_to_other_empty_columns(var, template, legal, values)
    return scores


def _samples(
    tables: FastTables,
    view: PlayerView,
    template: np.ndarray,
    rng: np.random.Generator,
    n: int,
) -> np.ndarray:
    """``n`` positions the player could be in (``int16``, shape ``(n, state_size)``): the
    state array ``template`` of ``view`` with its unseen cards (``view.unseen``) in a
    uniformly random order in the face-down places and the stock while its order is
    unknown (module docstring, point 3). All drawn at once, whatever is done with them, so
    the ``rng`` use depends on ``n`` only."""
    out = np.tile(template, (n, 1))
    if view.unseen:
        hidden = tables.hidden_indices(view.face_down, view.stock_size if view.stock is None else 0)
        unseen = np.array(view.unseen, dtype=np.int16)
        out[:, hidden] = rng.permuted(np.tile(unseen, (n, 1)), axis=1)
    return out


def solve_scores(
    spec: VariantSpec,
    view: PlayerView,
    template: np.ndarray,
    moves: np.ndarray,
    budget: SearchBudget,
    rng: np.random.Generator,
    steps_left: int | None = None,
    values: np.ndarray | None = None,
    bonus: np.ndarray | None = None,
    avoid: Collection[int] | None = None,
) -> np.ndarray:
    """The scores of ``moves`` (``int64``, shape ``(n,)``, n >= 2, the candidates in
    :func:`~fortythieves_env.solver.pruned_moves` order) by hindsight optimisation: every
    sampled position's child solved by the package's solver (``budget.method="solve"``).

    **Values.** For a candidate and a sample (a full position the player could be in, drawn
    from the view alone, :func:`_samples`): play the candidate, solve the child with
    ``budget.nodes`` nodes (:class:`~fortythieves_env.solver.SolverContext`: both passes of
    :func:`~fortythieves_env.solver.solve`, clairvoyant *within the sample*) and at most
    the steps left after the candidate (and ``budget.horizon``): 1 if won, 0 if lost,
    ``cards / 208`` if the cap ran out (``cards``: the foundation cards at the end of the
    best line the solver met). A candidate's value is the mean over its samples. With no
    unseen card the position is known: one sample with ``budget.nodes x k`` nodes.

    **Allocation.** ``k = budget.samples_for(n)`` samples per candidate in all. ``"halving"``
    (the default here): sequential halving (:func:`halving_schedule`), each round on fresh
    samples shared by the candidates still in (common random numbers), keeping the better
    half by mean value (the earlier candidate on ties); ``"uniform"``: one round of ``k``;
    ``"ucb"``: a UCB1 bandit (lonelybot's) over the candidates (or lonelybot's arms, never
    through a view of ``avoid``: :func:`_arm_solve_scores`), each pull a solve on a fresh
    sample, at most the solves halving makes (:func:`.search_ucb.ucb_pulls`: equal nodes),
    stopping early when the most-played arm has ``budget.ucb_plays`` (:mod:`.search_ucb`;
    with no unseen card it plays as uniform, the one sample being exact). Sequential
    halving is a fixed-budget best-arm identification (Karnin, Koren and Somekh 2013):
    unlike a UCB bandit (lonelybot) it has no exploration constant to tune and its work is
    a count fixed before the move, so the choice does not depend on the order of solves.

    **Strategy fusion** (a sampled deal knows its future: a move that forces a guess and
    a safe one can both score 1 on every sample; Bjarnason, Fern and Tadepalli 2009).
    The remedies chosen, from the papers' (HOP-UCT's independent futures, chance nodes,
    information-set search), those that keep one solve per sample and a deterministic
    count of work:

    1. *Fresh samples at every decision*: the agent never follows a sample's line; each
       move is chosen again from what has been seen by then, so a card turned up corrects
       the next choice (what separates HOP from solving one sample, and what the
       clairvoyant solver itself cannot do).
    2. *What a move reveals is averaged, never known*: the candidate is played on each
       sample before the solve, so a move that turns up a face-down card or draws from the
       unknown stock is valued by the mean over the cards it may reveal, the choice being
       made before the reveal, as the player must.
    3. *Ties go to the fusion-free estimate*: among the candidates with the best value
       (most often every sample won, or every sample unsolved at the same cards, exactly
       where clairvoyance hides the difference between a safe move and a guess), the one
       whose non-clairvoyant greedy rollouts (:func:`_rollout_scores`, estimator A of the
       design note: greedy reads only the face-up cards of the sample, so it cannot fuse
       strategies) do best on the same samples is preferred: the move that keeps the game
       winnable without knowing the hidden cards. Remaining ties: the solver's move order.

    **Scores.** Ranks, not values: the candidates are ordered by (the halving round they
    lasted to, with ``"ucb"`` the same for all, mean value, for the best-valued finalists
    the rollouts' score, earlier in ``moves``) and the ``i``-th worst of ``n`` scores
    ``budget.samples x (i + 1) / (n + 1)`` (in ``(0, budget.samples)``, as the rollout
    scores' range below ``samples + 1``).
    ``values`` (``float64``, shape ``(n,)``), if given, receives the candidates' mean
    values (a candidate dropped in an early halving round, or pulled little by the bandit:
    the mean of its fewer samples).
    ``bonus`` (``float64``, shape ``(n,)``, a guide's preference, :func:`scores_for_view`'s
    ``prior_weight``), if given, is added to the mean values wherever they are compared:
    the halving cuts, the bandit's index and the final order (``values`` stay the samples'
    means).

    Returns:
        ``float64``, shape ``(n,)``.
    """
    var = _variant(spec)
    tb = var.tables.table
    count = moves.shape[0]
    k = budget.samples_for(count)
    nodes = budget.nodes_for(count)
    if not view.unseen:
        nodes, k = min(MAX_NODES_PER_SAMPLE, nodes * k), 1
    leaf = var.leaf(budget)
    limit = min(var.context().step_limit, budget.horizon_for(spec))
    if steps_left is not None:
        limit = min(limit, int(steps_left) - 1)
    limit = max(limit, 0)
    if budget.allocation == "ucb" and view.unseen:
        return _ucb_solve_scores(
            var, view, template, moves, budget, rng, k, nodes, limit, values, bonus, avoid
        )
    per_round = halving_schedule(count, k) if budget.allocation == "halving" else [k]
    samples = _samples(var.tables, view, template, rng, sum(per_round))
    total = np.zeros(count, dtype=np.float64)
    used = np.zeros(count, dtype=np.int64)
    last_round = np.zeros(count, dtype=np.int64)
    alive = np.arange(count)
    child = np.empty_like(template)
    start = 0
    for r, m in enumerate(per_round):
        for row in samples[start : start + m]:
            for j in alive.tolist():
                total[j] += _sample_value(var, leaf, row, moves[j], child, nodes, limit)
        start += m
        used[alive] += m
        last_round[alive] = r
        if r < len(per_round) - 1:
            keep = (alive.size + 1) // 2
            mean = total[alive] / used[alive]
            if bonus is not None:
                mean = mean + bonus[alive]
            ranked = np.argsort(-mean, kind="stable")[:keep]
            alive = alive[np.sort(ranked)]
    value = total / np.maximum(used, 1)
    if values is not None:
        values[:] = value
    if bonus is not None:
        value = value + bonus
    return _ranked(value, last_round, samples, tb, moves, limit, budget)


def _sample_value(
    var: _Variant,
    leaf: LeafModel | None,
    sample: np.ndarray,
    move: np.int64 | int,
    child: np.ndarray,
    nodes: int,
    limit: int,
    path: tuple[int, ...] = (),
) -> float:
    """One sample's value of one candidate (:func:`solve_scores`, Values): ``move`` played
    on ``sample`` (into ``child``, overwritten; after the moves of ``path``, an arm of
    :mod:`.search_arms`), the child solved by the variant's context with ``nodes`` nodes
    and ``limit`` steps: 1 won, 0 lost; unknown: ``cards / 208``, or with a ``leaf`` model
    (``budget.leaf="learned"``) its prediction from the child's features and the solve's
    cards (:mod:`.search_leaf`)."""
    tb = var.tables.table
    child[:] = sample
    for a in path:
        apply(child, tb, np.int64(a))
    apply(child, tb, np.int64(move))
    solved = var.context().run(child, nodes, limit)
    if solved.status == "won":
        return 1.0
    if solved.status == "unknown":
        if leaf is not None:
            leaf_features(child, tb, var.features)
            return leaf.value(var.features, solved.cards)
        return solved.cards * UNKNOWN_WEIGHT
    return 0.0


def _puller(
    var: _Variant,
    leaf: LeafModel | None,
    view: PlayerView,
    template: np.ndarray,
    rng: np.random.Generator,
    drawn: list[np.ndarray],
    nodes: int,
    limit: int,
    moves: Sequence[int] | np.ndarray,
    paths: Sequence[tuple[int, ...]] | None = None,
) -> Callable[[list[int], int], np.ndarray]:
    """The bandit's pull (:func:`~.search_ucb.ucb_allocate`'s ``pull``) over arms ``j``, each
    the move ``moves[j]`` after the reversible moves ``paths[j]`` (none when ``paths`` is
    None: the candidate moves as arms): ``pull(chosen, m)`` draws ``m`` fresh samples (the
    first call's are appended to ``drawn``, the tie-break's samples) and returns the
    :func:`_sample_value` of every chosen arm on each (``float64``, shape
    ``(len(chosen), m)``), with ``limit`` minus the path's moves as the steps left."""
    child = np.empty_like(template)

    def pull(chosen: list[int], m: int) -> np.ndarray:
        rows = _samples(var.tables, view, template, rng, m)
        if not drawn:
            drawn.append(rows)  # the first round's samples, shared by every arm
        out = np.empty((len(chosen), m), dtype=np.float64)
        for i, row in enumerate(rows):
            for a, j in enumerate(chosen):
                path = paths[j] if paths is not None else ()
                left = max(limit - len(path), 0)
                out[a, i] = _sample_value(var, leaf, row, moves[j], child, nodes, left, path)
        return out

    return pull


def _ucb_solve_scores(
    var: _Variant,
    view: PlayerView,
    template: np.ndarray,
    moves: np.ndarray,
    budget: SearchBudget,
    rng: np.random.Generator,
    k: int,
    nodes: int,
    limit: int,
    values: np.ndarray | None,
    bonus: np.ndarray | None,
    avoid: Collection[int] | None = None,
) -> np.ndarray:
    """:func:`solve_scores` with ``allocation="ucb"`` (:mod:`.search_ucb`): the UCB1 bandit
    over the candidates with the solves halving would make for ``k`` samples per candidate
    (:func:`~.search_ucb.ucb_pulls`), each pull a solve of ``nodes`` nodes on a fresh sample;
    ranked as halving's finalists are (:func:`_ranked`, the tie-break's rollouts on the
    first round's samples). With ``budget.arms="irreversible"`` the arms are lonelybot's
    (:func:`_arm_solve_scores`) when there are at least two of them."""
    tb = var.tables.table
    count = moves.shape[0]
    pulls = ucb_pulls(halving_schedule(count, k), count)
    if budget.arms == "irreversible":
        arms = irreversible_arms(
            var.tables,
            var.build,
            template,
            min(MAX_ARMS, pulls),
            MAX_CLOSURE,
            avoid,
            set(moves.tolist()),
        )
        if len(arms) >= 2:
            return _arm_solve_scores(
                var, view, template, moves, arms, budget, rng, pulls, nodes, limit, values, bonus
            )
    drawn: list[np.ndarray] = []
    pull = _puller(var, var.leaf(budget), view, template, rng, drawn, nodes, limit, moves)
    trace = ucb_allocate(
        count, pulls, pull, budget.ucb_c, budget.ucb_batch, budget.ucb_plays, bonus
    )
    value = trace.means
    if values is not None:
        values[:] = value
    if bonus is not None:
        value = value + bonus
    last_round = np.zeros(count, dtype=np.int64)  # no rounds: every candidate a finalist
    return _ranked(value, last_round, drawn[0], tb, moves, limit, budget)


def _arm_solve_scores(
    var: _Variant,
    view: PlayerView,
    template: np.ndarray,
    moves: np.ndarray,
    arms: Arms,
    budget: SearchBudget,
    rng: np.random.Generator,
    pulls: int,
    nodes: int,
    limit: int,
    values: np.ndarray | None,
    bonus: np.ndarray | None,
) -> np.ndarray:
    """:func:`_ucb_solve_scores` with lonelybot's arms (``budget.arms="irreversible"``,
    :mod:`.search_arms`; at least two, at most ``pulls``, each arm's first move one of
    ``moves``).

    **A pull** of an arm: on a fresh sample, its path of reversible moves and its
    irreversible move are played, and the result is solved with ``nodes`` nodes and the
    steps left after them (``limit`` minus the path's moves): the reward of
    :func:`_sample_value`. The pulls are ``pulls``, those halving makes for ``moves``
    (equal nodes per move, whatever the number of arms), spent by
    :func:`~.search_ucb.ucb_allocate` as for the moves; a guide's ``bonus`` counts for the
    arm's first move.

    **Scores.** The arms are ordered as :func:`_ranked` orders candidates (mean reward plus
    bonus; among the best, the greedy rollouts from the arm's end on the first round's
    samples, up to the steps left; then the earlier arm, so the shorter path). A move scores
    by its best arm: the moves with an arm in that order, below them the moves with none (no
    arm left in the bound, or each through a view met before) in the order of ``moves``; the
    ``i``-th worst of ``n`` scores ``budget.samples x (i + 1) / (n + 1)``, as
    :func:`solve_scores`. ``values`` receives each move's best arm's mean reward (NaN for a
    move with no arm).
    """
    tb = var.tables.table
    count = moves.shape[0]
    n_arms = len(arms)
    drawn: list[np.ndarray] = []
    place = {int(m): j for j, m in enumerate(moves.tolist())}
    owner = np.array([place[int(f)] for f in arms.first.tolist()], dtype=np.int64)

    pull = _puller(
        var, var.leaf(budget), view, template, rng, drawn, nodes, limit, arms.moves, arms.paths
    )

    arm_bonus = bonus[owner] if bonus is not None else None
    trace = ucb_allocate(
        n_arms, pulls, pull, budget.ucb_c, budget.ucb_batch, budget.ucb_plays, arm_bonus
    )
    value = trace.means if arm_bonus is None else trace.means + arm_bonus
    top = np.flatnonzero(value == value.max())
    tie = np.zeros(n_arms, dtype=np.float64)
    if top.size > 1:
        for j in top.tolist():
            path = arms.paths[j]
            rows = drawn[0].copy()
            for row in rows:
                for a in path:
                    apply(row, tb, np.int64(a))
            left = max(limit - len(path), 0)
            move = np.array([arms.moves[j]], dtype=np.int64)
            tie[j] = _rollout_scores(rows, tb, move, [len(rows)], left, budget.stall, 1)[0]
    arm_order = np.lexsort((-np.arange(n_arms), tie, value))  # ascending: the best last
    arm_rank = np.empty(n_arms, dtype=np.int64)
    arm_rank[arm_order] = np.arange(n_arms)
    best = np.full(count, -1, dtype=np.int64)
    best_arm = np.full(count, -1, dtype=np.int64)
    for j in range(n_arms):
        if arm_rank[j] > best[owner[j]]:
            best[owner[j]], best_arm[owner[j]] = arm_rank[j], j
    if values is not None:
        values[:] = np.nan
        has = best_arm >= 0
        values[has] = trace.means[best_arm[has]]
    order = np.lexsort((-np.arange(count), best))
    scores = np.empty(count, dtype=np.float64)
    scores[order] = budget.samples * (np.arange(count) + 1.0) / (count + 1.0)
    return scores


def _ranked(
    value: np.ndarray,
    last_round: np.ndarray,
    samples: np.ndarray,
    tb: np.ndarray,
    moves: np.ndarray,
    horizon: int,
    budget: SearchBudget,
) -> np.ndarray:
    """:func:`solve_scores`' scores from the candidates' values and last halving rounds:
    ordered by (last round, value, for the best-valued finalists the greedy rollouts' score
    on ``samples`` up to ``horizon`` moves, earlier in ``moves``), the ``i``-th worst of
    ``n`` scoring ``budget.samples x (i + 1) / (n + 1)``."""
    count = moves.shape[0]
    finalists = np.flatnonzero(last_round == last_round.max())
    top = finalists[value[finalists] == value[finalists].max()]
    tie = np.zeros(count, dtype=np.float64)
    if top.size > 1:
        tie[top] = _rollout_scores(
            samples, tb, moves[top], [len(samples)], horizon, budget.stall, 1
        )
    # lexsort: the last key is the primary one; -index puts the earlier move higher
    order = np.lexsort((-np.arange(count), tie, value, last_round))
    scores = np.empty(count, dtype=np.float64)
    scores[order] = budget.samples * (np.arange(count) + 1.0) / (count + 1.0)
    return scores


def halving_schedule(candidates: int, samples: int) -> list[int]:
    """Samples per candidate in each round of sequential halving (Karnin, Koren and Somekh
    2013) with the rollouts of ``samples`` per candidate (``samples * candidates`` in all).

    ``R = ceil(log2(candidates))`` rounds; round ``r`` has ``n_r`` candidates left
    (``n_0 = candidates``, ``n_{r+1} = ceil(n_r / 2)``) and gives each
    ``samples * candidates // (R * n_r)`` new samples, so every round spends at most
    ``1/R`` of the rollouts (never more than uniform in all) and the last two candidates get
    the most. Example: 8 candidates, 16 samples: ``[5, 10, 21]`` (the finalists get 36
    samples, the first round's losers 5). With fewer samples than rounds a round could get
    none: then there is nothing to halve, and the schedule is one round, ``[samples]``
    (uniform).

    Raises:
        ValueError: ``candidates`` < 2 or ``samples`` < 1.
    """
    if candidates < 2 or samples < 1:
        raise ValueError(
            f"halving_schedule: need >= 2 candidates and >= 1 sample, got "
            f"{candidates} and {samples}"
        )
    rounds = int(np.ceil(np.log2(candidates)))
    if samples < rounds:
        return [samples]
    total = samples * candidates
    out, left = [], candidates
    for _ in range(rounds):
        out.append(total // (rounds * left))
        left = (left + 1) // 2
    return out


def _rollout_scores(
    samples: np.ndarray,
    tb: np.ndarray,
    moves: np.ndarray,
    per_round: list[int],
    horizon: int,
    stall: int,
    scale: int,
) -> np.ndarray:
    """The scores (``float64``, one per move of ``moves``) of the module docstring, point 5,
    from rollouts on the rows of ``samples`` (``sum(per_round)`` of them, used in order).

    One round (uniform): every move is rolled out on every sample; a move's score is
    ``wins + (cards + quick) / (105 k)`` (in ``[0, k + 1)``, ``k = per_round[0]``).
    Several rounds (sequential halving): round ``r`` rolls the moves still in on the next
    ``per_round[r]`` samples (the same samples for all of them) and keeps the better half
    (``ceil(n / 2)``; the earlier move on ties), by the score over all their samples so far.
    A move's score is then ``scale * (r + v) / R``: ``r`` the last round it played (of
    ``R``), ``v`` its score over its ``m`` samples divided by ``m + 1`` (in ``[0, 1)``).
    So a move that lasted longer ranks higher, and moves out in the same round rank by
    their score; every score is below ``scale``. (A halving budget whose schedule is one
    round, :func:`halving_schedule`, scores as uniform: below ``k + 1``.)
    """
    count = moves.shape[0]
    wins = np.zeros(count, dtype=np.int64)
    cards = np.zeros(count, dtype=np.int64)
    played = np.zeros(count, dtype=np.int64)
    used = np.zeros(count, dtype=np.int64)
    last_round = np.zeros(count, dtype=np.int64)
    alive = np.arange(count)
    start = 0

    def value(rows: np.ndarray) -> np.ndarray:
        m = used[rows]
        # third key, worth less than one card in one sample: fewer moves
        quick = 0.5 * (1.0 - played[rows] / (m * (horizon + 1.0)))
        return wins[rows] + (cards[rows] + quick) / (m * _CARDS_SCALE)

    for r, m in enumerate(per_round):
        w, c, p = (np.zeros(alive.size, dtype=np.int64) for _ in range(3))
        _score_moves(samples[start : start + m], tb, moves[alive], horizon, stall, w, c, p)
        start += m
        wins[alive] += w
        cards[alive] += c
        played[alive] += p
        used[alive] += m
        last_round[alive] = r
        if r < len(per_round) - 1:
            keep = (alive.size + 1) // 2
            ranked = np.argsort(-value(alive), kind="stable")[:keep]
            alive = alive[np.sort(ranked)]
    everyone = np.arange(count)
    if len(per_round) == 1:
        return value(everyone)
    return scale * (last_round + value(everyone) / (used + 1.0)) / len(per_round)


def _copy_to_other_empty_columns(
    var: _Variant, st: np.ndarray, legal: np.ndarray, scores: np.ndarray
) -> None:
    """Rule E for the scores: a move into an empty column other than the first scores as
    the same move into the first (if that one was scored above 0, or is a value where the
    move has NaN: :func:`scores_for_view`'s ``values``)."""
    tables = var.tables
    lengths = st[tables.len0 : tables.len0 + tables.n_columns]
    empty = np.flatnonzero(lengths == 0)
    if empty.size < 2:
        return
    first = int(empty[0])
    for a in legal.tolist():
        kind, src, dst, n = var.decode[a].tolist()
        if kind in (COLUMN_TO_COLUMN, WASTE_TO_COLUMN) and dst != first and lengths[dst] == 0:
            twin = var.index.get((kind, src, first, n))
            if twin is not None and (
                scores[twin] > scores[a] or (np.isnan(scores[a]) and not np.isnan(scores[twin]))
            ):
                scores[a] = scores[twin]


SEEN_RESULT = (WASTE_TO_FOUNDATION, WASTE_TO_COLUMN, COLUMN_TO_FOUNDATION, COLUMN_TO_COLUMN)
"""The kinds of move whose next view the player can work out (unless the move turns up a
face-down card): all but a draw and a redeal, which bring stock cards the player has not
seen."""


def _demote_repeats(
    spec: VariantSpec,
    view: PlayerView,
    scores: np.ndarray,
    seen: set[tuple[int, int]],
    by: float,
    views: Collection[int] | None = None,
) -> None:
    """Lower by ``by`` the score of every legal move whose next view is in ``seen``, and,
    given ``views`` (the same views met, this one included, as
    :func:`~fortythieves_env.rules.core.view_hash` keys), of every move into a dead end
    (:func:`~.search_arms.is_dead_end`: every game from there is lost) whose next view the
    player can work out (:data:`SEEN_RESULT`: a waste, foundation or column move that turns
    up no card).

    Only a column-to-column move that turns no card face up can lead back to a view met
    before: every other move changes something that never comes back (a card goes up, the
    waste or the stock shrinks, the redeals left or the face-down cards fall). A waste or
    foundation move can lead into a dead end too, one where no irreversible move is left
    within reach: the samples' solves see that lost only when their node cap covers the
    reversible positions in between, which on Number Ten, Streets, Maria and Forty Thieves
    at 0.1 s per move it often did not (``results/search/dead_end``). The next views are
    computed from the view alone.
    """
    var = _variant(spec)
    state = None
    for a in np.flatnonzero(np.isfinite(scores)).tolist():
        kind, src, _dst, n = var.decode[a].tolist()
        if kind not in SEEN_RESULT or (
            kind in (COLUMN_TO_COLUMN, COLUMN_TO_FOUNDATION)
            and view.face_down[src] > 0
            and n == len(view.tableau[src])
        ):
            continue
        if state is None:
            state = var.tables.pack(determinize(view, view.unseen))
        after = state.copy()
        apply(after, var.tables.table, np.int64(a))
        if (
            kind == COLUMN_TO_COLUMN
            and view_digest(player_view(spec, var.tables.unpack(after))) in seen
        ) or (views is not None and is_dead_end(var.tables, after, views)):
            scores[a] -= by
