"""The ``search`` agent: it samples what it cannot see and plays the move that wins most.

It sees only what a player sees (issue 10, point 3; ``docs/solver_design.md`` section 5).
At each move, for the position it is shown (an observation row, the player's view):

1. **View.** The observation is turned back into the player's
   :class:`~fortythieves_env.view.PlayerView`
   (:func:`~fortythieves_env.view.view_from_observation`).
   The one thing a view holds that an observation does not repeat, the stock's order after
   a Little Forty redeal, the agent remembers per game: it is the waste it saw just before
   the redeal, turned over. Nothing else is carried from one move to the next.
2. **Candidates.** The legal moves, pruned by the solver's rules F, W and E
   (:func:`fortythieves_env.solver.pruned_moves`; each proven safe there). If rule F finds
   a safe foundation move, or only one candidate is left, it is played with no search.
3. **Samples.** ``samples`` full positions the player could be in: the unseen cards
   (``view.unseen``) in a uniformly random order, placed into the face-down places and the
   stock while its order is unknown (:func:`~fortythieves_env.view.determinize`). That
   is the exact belief: every placement consistent with what was seen is equally likely.
   With no unseen card the samples would all be equal, so one is used.
4. **Rollouts.** For each sample and each candidate (the same samples for every candidate:
   common random numbers) the candidate is played, then the greedy rule of the ``greedy``
   baseline plays on, compiled (:func:`fortythieves_env.greedy.rollout`, the kernel the
   baseline calls too), reading only the sampled position's face-up cards and counts, as a
   player would: *non-clairvoyant*. A rollout ends when the game is won, when no move is
   legal, after ``horizon`` moves or the episode's steps left (whichever comes first), or
   after ``stall`` moves in a row that change nothing but the tableau (a column-to-column
   move that turns no card face up: only such moves can repeat a position, so greedy is
   then going round in a loop and the rollout counts as lost).
5. **Scores** (:meth:`SearchAgent.action_scores`, ``float64``, one per action):
   ``wins + (cards + quick) / (105 k)`` for ``k`` samples, ``wins`` the samples whose
   rollout won (0..k), ``cards`` the foundation cards at the rollouts' ends summed over
   the samples and ``quick = (1 - moves / (k (horizon + 1))) / 2`` (in [0, 1/2]) with
   ``moves`` the rollouts' moves summed: wins decide, then the mean foundation cards,
   then the fewer moves (without this last key, a position that every sample wins leaves
   all moves tied and the agent wanders until the step limit). With
   ``allocation="halving"`` the same number of rollouts is spent by sequential halving
   (:func:`halving_schedule`): rounds on fresh samples, each keeping the better half of
   the candidates, so the best few get several times ``samples`` samples and the clearly
   worse ones few; a move's score then ranks first by the round it lasted to
   (:func:`_rollout_scores`). Every score stays below ``samples + 1`` with either
   allocation (below ``samples`` when halving plays more than one round). A move into an empty
   column other than the first
   gets the score of the same move into the first one (rule E: the positions differ only
   in the column order). Moves not searched (rule W's, and all but the F move when one is
   played) score 0; the F or only move scores ``samples + 1``. Illegal actions score
   ``-inf``. :meth:`SearchAgent.act_batch` plays the highest score, the lowest action
   index on ties.
6. **No return.** A move that leads back to a view already met in this game (only a
   column-to-column move that turns up no card can) has ``samples + 2`` taken off its
   score, so it comes after every other legal move (the no-cycling rule of the learning
   issue: without it, the samples of two positions can each favour the move to the other
   and the agent shuttles a card for ever).

**Two settings** (:attr:`SearchBudget.method`). Points 4-5 above are ``"rollouts"``, the
cheaper setting (the default). ``"solve"`` (issue 25) values each candidate on each sample
by *solving* the sampled child with the package's solver under a node cap per sample
(hindsight optimisation, Bjarnason, Fern and Tadepalli 2009; lonelybot's per-pull solves):
samples allocated over the candidates by sequential halving, and three remedies for
strategy fusion (fresh samples at every decision, reveals averaged over the samples,
ties between the best values broken by the non-clairvoyant rollouts of point 4):
:func:`solve_scores`. Its time budget per move, ``seconds``, becomes a node count by a
fixed rate (:data:`NODES_PER_SECOND`, :meth:`SearchBudget.samples_for`), so it stays
deterministic. Points 1-3 and 6, the randomness and the steps left below hold for both.

**Randomness.** The samples of a move come from ``numpy.random.default_rng`` seeded by
``(seed, deal index, digest of the view)``: the agent's scores are a function of what the
player sees and has seen (the moves made so far, which give the steps left; the views met,
for the no-return rule), its seed and the deal, and of nothing else. So they do not depend
on the batching, on the order of the games, or on how often the agent is asked (an
evaluation that asks twice for one position gets the same answer); and two positions with
equal views met after equal histories get equal scores, whatever their unseen cards
(:func:`scores_for_view` makes this explicit).

**Steps left.** Rollouts stop where the episode would: the agent counts its moves per game
and cuts each rollout to the steps left after the candidate (:class:`SearchAgent`), so a
win past the step limit is not counted as one.

**Budget.** Deterministic: at most ``samples x candidates`` rollouts of at most ``horizon``
moves per move, with either allocation (``"solve"``: at most ``samples x candidates``
solves of at most ``nodes`` nodes each, plus the tie-break's rollouts). The seconds per
move are measured by ``benchmarks/search_probe.py`` (the issue asks for at most 0.2 s per
move on average on one core).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fortythieves_env._checks import INT64_MAX, checked_int
from fortythieves_env._jit import kernel
from fortythieves_env.actions import (
    COLUMN_TO_COLUMN,
    WASTE_TO_COLUMN,
    codec_for,
)
from fortythieves_env.core import (
    H_NACT,
    FastTables,
    apply,
    legal_actions,
    tables_for,
)
from fortythieves_env.greedy import rollout
from fortythieves_env.observation import OBSERVATION_VERSIONS, ObservationLayout
from fortythieves_env.solver import SolverContext, build_code, pruned_moves
from fortythieves_env.variants import VariantSpec
from fortythieves_env.view import PlayerView, determinize, player_view, view_from_observation

from .search_budget import (
    ALLOCATIONS,
    DEFAULT_NODES,
    DEFAULT_SAMPLES,
    DEFAULT_SECONDS,
    DEFAULT_STALL,
    MAX_NODES_PER_SAMPLE,
    MAX_SAMPLES,
    MAX_SECONDS,
    METHODS,
    NODES_PER_SECOND,
)

__all__ = [
    "ALLOCATIONS",
    "DEFAULT_BUDGET",
    "DEFAULT_NODES",
    "DEFAULT_SAMPLES",
    "DEFAULT_SECONDS",
    "DEFAULT_STALL",
    "MAX_SAMPLES",
    "METHODS",
    "NODES_PER_SECOND",
    "SearchAgent",
    "SearchBudget",
    "SearchHint",
    "greedy_rollout",
    "halving_schedule",
    "scores_for_view",
    "solve_scores",
]

_CARDS_SCALE = 105.0  # mean cards / 105 < 1: the tie-break never outweighs one win


@dataclass(frozen=True)
class SearchBudget:
    """The per-move budget of the search agent (deterministic: counts, not seconds).

    Attributes:
        samples: positions sampled per move (>= 1); each candidate move gets one rollout
            per sample.
        horizon: most moves of one rollout (>= 1); None: the variant's step limit
            (``max_episode_steps``). Rollouts are also cut where the episode would end:
            the agent counts its own moves (:class:`SearchAgent`), and a rollout plays at
            most the steps left after the candidate move.
        stall: a rollout is called lost after this many moves in a row that change only
            the tableau (>= 1).
        allocation: how the ``samples x candidates`` rollouts (or solves) of a move are
            spread over the candidates: ``"uniform"`` (``samples`` each) or ``"halving"``
            (sequential halving: the same number in all, most of them spent on the best
            candidates; module docstring, point 5). None (the default): ``"uniform"`` for
            ``method="rollouts"``, ``"halving"`` for ``method="solve"`` (stored resolved).
        method: ``"rollouts"`` (greedy rollouts, the cheaper setting: the module
            docstring) or ``"solve"`` (each sampled child solved by the package's solver
            with a node cap: hindsight optimisation, :func:`solve_scores`).
        nodes: ``method="solve"``: the node cap of one sample's solve (>= 1,
            :data:`DEFAULT_NODES`).
        seconds: ``method="solve"``: a time budget per move instead of ``samples``, turned
            into counts deterministically: ``seconds x NODES_PER_SECOND`` nodes per move,
            so ``max(1, that // (nodes x candidates))`` samples per candidate
            (:meth:`samples_for`; at most :data:`MAX_SAMPLES`), and fewer nodes per sample
            when that is not one sample of ``nodes`` each (:meth:`nodes_for`). Not counted:
            the tie-break's rollouts and the Python work per solve (about 0.02-0.05 ms).
            The seconds really spent
            depend on the machine (evaluate's report measures them); the moves chosen do
            not. None: ``samples`` per candidate.

    Raises:
        ValueError: a count is not a positive integer (``int`` or a numpy integer, stored
            as ``int``; the message names it) or is too large (``samples`` above
            :data:`MAX_SAMPLES`, ``horizon`` or ``stall`` above ``2**63 - 1``, the compiled
            rollouts' ``int64``, ``nodes`` above :data:`MAX_NODES_PER_SAMPLE`), ``allocation``
            is not one of :data:`ALLOCATIONS` or ``method`` one of :data:`METHODS`,
            ``seconds`` is not a number in ``(0, MAX_SECONDS]``, or ``seconds`` is given
            with ``method="rollouts"``.
    """

    samples: int = DEFAULT_SAMPLES
    horizon: int | None = None
    stall: int = DEFAULT_STALL
    allocation: str | None = None
    method: str = "rollouts"
    nodes: int = DEFAULT_NODES
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(
                f"search budget: method must be one of {', '.join(METHODS)}, got {self.method!r}"
            )
        if self.allocation is None:
            default = "halving" if self.method == "solve" else "uniform"
            object.__setattr__(self, "allocation", default)
        if self.allocation not in ALLOCATIONS:
            raise ValueError(
                f"search budget: allocation must be one of {', '.join(ALLOCATIONS)}, "
                f"got {self.allocation!r}"
            )
        if self.seconds is not None:
            ok = isinstance(self.seconds, int | float | np.integer | np.floating)
            if isinstance(self.seconds, bool) or not ok or not 0 < self.seconds <= MAX_SECONDS:
                raise ValueError(
                    f"search budget: seconds must be a number in (0, {MAX_SECONDS}], "
                    f"got {self.seconds!r}"
                )
            if self.method != "solve":
                raise ValueError("search budget: seconds needs method='solve'")
            object.__setattr__(self, "seconds", float(self.seconds))
        object.__setattr__(
            self,
            "nodes",
            checked_int("search budget: nodes", self.nodes, 1, MAX_NODES_PER_SAMPLE),
        )
        for name in ("samples", "horizon", "stall"):
            value = getattr(self, name)
            if value is None and name == "horizon":
                continue
            high = MAX_SAMPLES if name == "samples" else INT64_MAX  # the compiled loops' int64
            # a numpy integer is stored as int
            object.__setattr__(self, name, checked_int(f"search budget: {name}", value, 1, high))

    def horizon_for(self, spec: VariantSpec) -> int:
        """The rollout horizon in ``spec`` (``horizon``, else its step limit)."""
        return self.horizon if self.horizon is not None else spec.max_episode_steps

    def samples_for(self, candidates: int) -> int:
        """Samples per candidate of a move with ``candidates`` candidates: ``samples``, or,
        with ``seconds``, ``max(1, seconds x NODES_PER_SECOND // (nodes x candidates))``
        (at most :data:`MAX_SAMPLES`)."""
        if self.seconds is None:
            return self.samples
        total = int(self.seconds * NODES_PER_SECOND)
        return int(min(MAX_SAMPLES, max(1, total // (self.nodes * max(1, candidates)))))

    def nodes_for(self, candidates: int) -> int:
        """The node cap of one sample's solve in a move with ``candidates`` candidates:
        ``nodes``, or, with ``seconds`` too small for one sample of ``nodes`` per
        candidate, what one sample per candidate can have:
        ``max(1, seconds x NODES_PER_SECOND // candidates)``."""
        if self.seconds is None:
            return self.nodes
        total = int(self.seconds * NODES_PER_SECOND)
        return int(max(1, min(self.nodes, total // max(1, candidates))))


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
            if reached == 104:
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
            spec, view, template, moves, budget, rng, steps_left, found, bonus
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


_UNKNOWN_WEIGHT = 0.5 / 104.0
"""A sample whose solve ran out of nodes is worth ``cards / 208`` (below 1/2): less than a
win, more than a proven loss, more with more foundation cards on the line the solver met."""


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

    **Allocation.** ``k = budget.samples_for(n)`` samples per candidate in all.
    ``"halving"`` (the default here): sequential halving (:func:`halving_schedule`),
    each round on fresh samples shared by the candidates still in (common random
    numbers), keeping the better half by mean value (the earlier candidate on ties);
    ``"uniform"``: one round of ``k``. Sequential halving is a fixed-budget best-arm
    identification (Karnin, Koren and Somekh 2013): unlike a UCB bandit (lonelybot) it has
    no exploration constant to tune and its work is a count fixed before the move, so the
    budget (and the choice) does not depend on the order of the solves.

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
    lasted to, mean value, for the best-valued finalists the rollouts' score, earlier in
    ``moves``) and the ``i``-th worst of ``n`` scores ``budget.samples x (i + 1) / (n + 1)``
    (in ``(0, budget.samples)``, as the rollout scores' range below ``samples + 1``).
    ``values`` (``float64``, shape ``(n,)``), if given, receives the candidates' mean
    values (a candidate dropped in an early halving round: the mean of its fewer samples).
    ``bonus`` (``float64``, shape ``(n,)``, a guide's preference, :func:`scores_for_view`'s
    ``prior_weight``), if given, is added to the mean values wherever they are compared:
    the halving cuts and the final order (``values`` stay the samples' means).

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
    context = var.context()
    limit = min(context.step_limit, budget.horizon_for(spec))
    if steps_left is not None:
        limit = min(limit, int(steps_left) - 1)
    limit = max(limit, 0)
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
                child[:] = row
                apply(child, tb, np.int64(moves[j]))
                solved = context.run(child, nodes, limit)
                if solved.status == "won":
                    total[j] += 1.0
                elif solved.status == "unknown":
                    total[j] += solved.cards * _UNKNOWN_WEIGHT
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


def _demote_repeats(
    spec: VariantSpec,
    view: PlayerView,
    scores: np.ndarray,
    seen: set[tuple[int, int]],
    by: float,
) -> None:
    """Lower by ``by`` the score of every legal move whose next view is in ``seen``.

    Only a column-to-column move that turns no card face up can lead back to a view met
    before: every other move changes something that never comes back (a card goes up,
    the waste or the stock shrinks, the redeals left or the face-down cards fall). So
    those moves' next views are computed (from the view alone) and looked up.
    """
    var = _variant(spec)
    state = None
    for a in np.flatnonzero(np.isfinite(scores)).tolist():
        kind, src, _dst, n = var.decode[a].tolist()
        if kind != COLUMN_TO_COLUMN or (view.face_down[src] > 0 and n == len(view.tableau[src])):
            continue
        if state is None:
            state = var.tables.pack(determinize(view, view.unseen))
        after = state.copy()
        apply(after, var.tables.table, np.int64(a))
        if view_digest(player_view(spec, var.tables.unpack(after))) in seen:
            scores[a] -= by


# ---------------------------------------------------------------------- the agent
@dataclass
class _Memory:
    """What the agent remembers of one game: the last observation's redeals left, stock
    count and waste, and the stock's order at the last redeal it saw (or None)."""

    redeals: int = -1
    stock_count: int = -1
    waste: tuple[int, ...] = ()
    order: tuple[int, ...] | None = None
    seen: set[tuple[int, int]] = field(default_factory=set)
    """Digests of the views met so far in the game (:func:`view_digest`)."""
    last: tuple[int, int] | None = None
    """The digest of the view of the last call (None: no call yet)."""
    played: int = 0
    """Moves played in the game so far: the calls whose view differed from the last."""


class SearchAgent:
    """The sampling search agent of the module docstring (a :class:`BatchAgent`).

    **Steps left.** An observation does not say how many steps the episode has left, so
    the agent counts its own moves in each game since :meth:`start_games`: a call whose view
    differs from the same game's last one is one move later (every move changes the view;
    asking twice for one position counts nothing). With ``played`` moves made and the step
    limit ``L``, the episode has ``L - played`` steps left, this move included, and the
    rollouts are cut to fit (:func:`scores_for_view`'s ``steps_left``). Past ``L`` moves
    (an env whose step limit is longer than the agent was told) the count says nothing, and
    the rollouts are cut only by the budget's horizon.

    **One game at a time.** ``batch_size`` is 1: the search's work is per game (nothing is
    shared between the games of a batch), so
    :func:`~fortythieves_agents.evaluation.evaluate.play_deals` plays its deals one after the other
    unless told otherwise. The choices are the same (they depend on the deal index, not the batch),
    and a long evaluation ends its games one by one: each game record is saved as it ends, and a
    stopped run loses at most the game in play (``evaluate --save-games DIR --resume``).

    Args:
        seed: seeds the samples (with the deal index and the view); an integer >= 0 (a
            ``numpy.random.SeedSequence`` entropy word).
        budget: the per-move budget (default :data:`DEFAULT_BUDGET`, the solving setting at
            :data:`DEFAULT_SECONDS` per move; ``SearchBudget()`` is the cheaper rollouts
            setting).
        step_limit: the episodes' step limit ``L`` (>= 1); None: the variant's
            ``max_episode_steps`` (what ``evaluate`` plays).
        prior: a guide (network + search): an agent with ``action_scores`` that sees the
            observation only (:class:`~fortythieves_agents.evaluation.evaluate.ModelAgent`, a
            trained network); each move only its ``prior_top`` best-ranked candidates are searched
            (:func:`scores_for_view`'s ``prior``). The agent is then named
            ``search+network``. None: no guide.
        prior_top: candidates searched per move with a ``prior`` (>= 1; 0: all, with a
            ``prior_weight``).
        prior_weight: how much the ``prior`` counts beside the samples' values
            (:func:`scores_for_view`'s ``prior_weight``; >= 0, finite; the solving setting
            only).

    Raises:
        ValueError: ``seed`` is not an integer >= 0, ``step_limit`` not an integer >= 1, a
            ``prior`` with neither ``prior_top`` >= 1 nor ``prior_weight`` > 0, or a
            ``prior_weight`` that is negative, not finite, or given to the rollouts setting.
    """

    def __init__(
        self,
        seed: int = 0,
        budget: SearchBudget | None = None,
        step_limit: int | None = None,
        prior: Any = None,
        prior_top: int = 0,
        prior_weight: float = 0.0,
    ) -> None:
        self.name = "search" if prior is None else "search+network"
        self.prior = prior
        self.prior_top = checked_int("search: prior_top", prior_top, 0)
        self.prior_weight = float(prior_weight)
        if not (math.isfinite(self.prior_weight) and self.prior_weight >= 0.0):
            raise ValueError(f"search: prior_weight must be finite and >= 0, got {prior_weight!r}")
        if prior is not None and self.prior_top < 1 and self.prior_weight == 0.0:
            raise ValueError(
                "search: a prior needs prior_top >= 1 (the candidates searched) or "
                "prior_weight > 0 (its weight beside the samples' values)"
            )
        self.batch_size = 1  # games at once in evaluation (see the class docstring)
        self.seed = checked_int("search: seed", seed, 0)
        self.budget = budget if budget is not None else DEFAULT_BUDGET
        if self.prior_weight > 0.0 and self.budget.method != "solve":
            raise ValueError("search: prior_weight needs the solving setting (method='solve')")
        self.step_limit = (
            None
            if step_limit is None
            else checked_int("search: step_limit", step_limit, 1, INT64_MAX)
        )
        self._spec: VariantSpec | None = None
        self._games: dict[int, _Memory] = {}

    def start_games(self, spec: VariantSpec, games: np.ndarray) -> None:
        """The games ``games`` (deal indices, integers >= 0: they seed the samples) start:
        forget anything remembered of them.

        Raises:
            ValueError: a game index < 0.
        """
        if np.any(np.asarray(games) < 0):
            raise ValueError(f"search: game indices must be >= 0, got {np.asarray(games)}")
        self._spec = spec
        for i in games.tolist():
            self._games[int(i)] = _Memory()

    def end_games(self, games: np.ndarray) -> None:
        """Drop the games' memories."""
        for i in games.tolist():
            self._games.pop(int(i), None)

    def view_of(self, spec: VariantSpec, row: np.ndarray, game: int) -> PlayerView:
        """The player's view of ``row`` in game ``game``, updating its memory."""
        try:
            memory = self._games[game]
        except KeyError:
            raise KeyError(f"search: game {game} was not started (start_games)") from None
        layout = ObservationLayout.for_size(spec, row.shape[0])
        stock = None
        if spec.redeals > 0 and not layout.stock_slots:  # version 1 shows the stock itself
            redeals = int(row[layout.redeals_left])
            count = int(row[layout.stock])
            waste = tuple(int(c) for c in row[layout.waste] if c)
            if redeals != memory.redeals and memory.redeals >= 0:
                turned = tuple(reversed(memory.waste))
                # the previous observation was the one just before the redeal: the waste
                # it showed is the new stock, turned over (RULES.md, Little Forty)
                seen_redeal = (
                    redeals == memory.redeals - 1
                    and memory.stock_count == 0
                    and len(turned) == count
                    and not waste
                )
                memory.order = turned if seen_redeal else None
            if redeals < spec.redeals and memory.order is not None:
                stock = memory.order[:count]
            memory.redeals, memory.stock_count, memory.waste = redeals, count, waste
        return view_from_observation(spec, row, stock)

    def action_scores(
        self,
        obs: np.ndarray,
        masks: np.ndarray,
        games: np.ndarray,
        values: np.ndarray | None = None,
    ) -> np.ndarray:
        """The search's score of every action in every row: win counts, then mean
        foundation cards as the tie-break (module docstring); higher is better.

        Args:
            obs: ``uint8``, shape ``(B, size)``.
            masks: ``int8``, shape ``(B, n_actions)``.
            games: ``int64``, shape ``(B,)``: each row's deal index.
            values: if given, ``float64``, shape ``(B, n_actions)``: filled with each
                action's value (:func:`scores_for_view`'s ``values``; NaN where none).

        Returns:
            ``float64``, shape ``(B, n_actions)``, ``-inf`` where illegal.

        Raises:
            RuntimeError: no game was started yet.
            KeyError: a row's game was not started.
            ValueError: a row is not an observation of the variant, or disagrees with
                its mask.
        """
        spec = self._spec
        if spec is None:
            raise RuntimeError("SearchAgent.action_scores before start_games")
        var = _variant(spec)
        obs = np.asarray(obs)
        sizes = var.observation_sizes
        if (
            obs.ndim != 2
            or obs.shape[1] not in sizes
            or masks.shape
            != (
                obs.shape[0],
                var.n_actions,
            )
        ):
            raise ValueError(
                f"search({spec.id}): need obs of shape (B, {' or '.join(map(str, sizes))}) "
                f"and masks of shape (B, {var.n_actions}), got {obs.shape} and {masks.shape}"
            )
        out = np.empty((obs.shape[0], var.n_actions), dtype=np.float64)
        guide = None
        if self.prior is not None:
            guide = np.asarray(self.prior.action_scores(obs, masks, games), dtype=np.float64)
        for b in range(obs.shape[0]):
            game = int(games[b])
            view = self.view_of(spec, obs[b], game)
            digest = view_digest(view)
            memory = self._games[game]
            if memory.last is not None and digest != memory.last:
                memory.played += 1
            memory.last = digest
            limit = self.step_limit if self.step_limit is not None else spec.max_episode_steps
            left = limit - memory.played if memory.played < limit else None
            rng = np.random.default_rng([self.seed, game, *digest])
            row_values = values[b] if values is not None else None
            out[b] = scores_for_view(
                spec,
                view,
                self.budget,
                rng,
                masks[b],
                left,
                row_values,
                guide[b] if guide is not None else None,
                self.prior_top,
                self.prior_weight,
            )
            seen = memory.seen
            seen.add(digest)
            _demote_repeats(spec, view, out[b], seen, self.budget.samples + 2.0)
        return out

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        """The highest-scoring action of each row (:meth:`action_scores`; the lowest
        index on ties). Returns ``int64``, shape ``(B,)``."""
        return np.argmax(self.action_scores(obs, masks, games), axis=1).astype(np.int64)

    def description(self) -> dict[str, Any]:
        """The agent's settings, for reports."""
        return {
            "name": self.name,
            "seed": self.seed,
            "samples": self.budget.samples,
            "horizon": self.budget.horizon,
            "stall": self.budget.stall,
            "allocation": self.budget.allocation,
            "method": self.budget.method,
            "nodes_per_sample": self.budget.nodes if self.budget.method == "solve" else None,
            "budget_seconds_per_move": self.budget.seconds,
            "step_limit": self.step_limit,
            **(
                {
                    "prior": getattr(self.prior, "path", None),
                    "prior_top": self.prior_top,
                    **({"prior_weight": self.prior_weight} if self.prior_weight else {}),
                }
                if self.prior is not None
                else {}
            ),
        }


DEFAULT_BUDGET = SearchBudget(method="solve", seconds=DEFAULT_SECONDS)
"""The search agent's default budget (``SearchAgent(seed)``, ``evaluate search`` without
search options): hindsight optimisation at :data:`DEFAULT_SECONDS` per move."""

HINT_BUDGET = SearchBudget(method="solve", seconds=0.5)
"""The budget of ``fortythieves play --hint search``: hindsight optimisation with half a
second's nodes per move (:data:`NODES_PER_SECOND`)."""


class SearchHint:
    """The search agent as the hint of ``fortythieves play --hint search`` (the
    ``act(obs, env)`` of :class:`fortythieves_agents.cli.play.HintAgent`).

    It reads the environment's :meth:`~fortythieves_env.FortyThievesEnv.player_view` (what
    the player sees and remembers; never a hidden card) and the ``TimeLimit`` wrapper's step
    count (the steps left cut the solves), and answers the best move of
    :func:`scores_for_view` with the samples seeded by ``(seed, 0, digest of the view)``:
    the same view, steps left and seed give the same hint. Unlike :class:`SearchAgent` it
    keeps no history (the person may take moves back), so it has no no-return rule.

    Args:
        seed: seeds the samples (an integer >= 0).
        budget: the per-move budget (default :data:`HINT_BUDGET`).

    Raises:
        ValueError: ``seed`` is not an integer >= 0.
    """

    def __init__(self, seed: int = 0, budget: SearchBudget | None = None) -> None:
        self.name = "search"
        self.seed = checked_int("search hint: seed", seed, 0)
        self.budget = budget if budget is not None else HINT_BUDGET

    def act(self, obs: np.ndarray, env: Any) -> int:
        """The search's move in ``env``'s position (``obs`` is not read: the view is).

        Raises:
            ValueError: the position has no legal move.
        """
        base = env.unwrapped
        spec = base.variant
        view = base.player_view()
        mask = base.action_masks()
        if not mask.any():
            raise ValueError("search hint: no legal move")
        elapsed = getattr(env, "_elapsed_steps", None)
        limit = getattr(env, "_max_episode_steps", None)
        left = None
        if isinstance(elapsed, int) and isinstance(limit, int) and limit > elapsed:
            left = limit - elapsed
        rng = np.random.default_rng([self.seed, 0, *view_digest(view)])
        scores = scores_for_view(spec, view, self.budget, rng, mask, left)
        return int(np.argmax(scores))
