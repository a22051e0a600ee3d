"""The ``search`` agent: it samples what it cannot see and plays the move that wins most.

It sees only what a player sees (issue 10, point 3; ``docs/solver_design.md`` section 5).
At each move, for the position it is shown (an observation row, the player's view):

1. **View.** The observation is turned back into the player's
   :class:`~fortythieves_env.rules.view.PlayerView`
   (:func:`~fortythieves_env.rules.view.view_from_observation`).
   The one thing a view holds that an observation does not repeat, the stock's order after
   a Little Forty redeal, the agent remembers per game: it is the waste it saw just before
   the redeal, turned over. Nothing else is carried from one move to the next.
2. **Candidates.** The legal moves, pruned by the solver's rules F, W and E
   (:func:`fortythieves_env.solver.pruned_moves`; each proven safe there). If rule F finds
   a safe foundation move, or only one candidate is left, it is played with no search.
3. **Samples.** ``samples`` full positions the player could be in: the unseen cards
   (``view.unseen``) in a uniformly random order, placed into the face-down places and the
   stock while its order is unknown (:func:`~fortythieves_env.rules.view.determinize`). That
   is the exact belief: every placement consistent with what was seen is equally likely.
   With no unseen card the samples would all be equal, so one is used.
4. **Rollouts.** For each sample and each candidate (the same samples for every candidate:
   common random numbers) the candidate is played, then the greedy rule of the ``greedy``
   baseline plays on, compiled (:func:`fortythieves_env.rules.greedy.rollout`, the kernel the
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
   (:func:`~.search_scores._rollout_scores`). Every score stays below ``samples + 1`` with either
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
   and the agent shuttles a card for ever). So has such a move into a *dead end*
   (:func:`~.search_arms.is_dead_end`): a position from which every game under that rule
   is lost, as no irreversible move can be reached without going back into a view met
   (the samples' solves do not know the rule, and their wins may go back into a view met:
   ``results/search/blunders`` counts the lost games that ended so).

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
solves of at most ``nodes`` nodes each, plus the tie-break's rollouts; ``"ucb"``: at most
the solves halving makes, with either arms, the candidate moves or lonelybot's first
irreversible moves, :mod:`.search_ucb`). The seconds per
move are measured by ``benchmarks/search_probe.py`` (the issue asks for at most 0.2 s per
move on average on one core).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fortythieves_env.rules.checks import INT64_MAX, checked_int
from fortythieves_env.rules.core import view_hash
from fortythieves_env.rules.observation import ObservationLayout
from fortythieves_env.rules.variants import VariantSpec
from fortythieves_env.rules.view import PlayerView, determinize, view_from_observation

from .search_budget import ALLOCATIONS as ALLOCATIONS
from .search_budget import ARMS as ARMS
from .search_budget import DEFAULT_NODES as DEFAULT_NODES
from .search_budget import DEFAULT_SAMPLES as DEFAULT_SAMPLES
from .search_budget import DEFAULT_SECONDS as DEFAULT_SECONDS
from .search_budget import DEFAULT_STALL as DEFAULT_STALL
from .search_budget import DEFAULT_UCB_BATCH as DEFAULT_UCB_BATCH
from .search_budget import DEFAULT_UCB_C as DEFAULT_UCB_C
from .search_budget import DEFAULT_UCB_PLAYS as DEFAULT_UCB_PLAYS
from .search_budget import MAX_NODES_PER_SAMPLE as MAX_NODES_PER_SAMPLE
from .search_budget import MAX_SAMPLES as MAX_SAMPLES
from .search_budget import MAX_SECONDS as MAX_SECONDS
from .search_budget import METHODS as METHODS
from .search_budget import NODES_PER_SECOND as NODES_PER_SECOND
from .search_budget import SearchBudget as SearchBudget
from .search_scores import _demote_repeats, _variant, view_digest
from .search_scores import greedy_rollout as greedy_rollout
from .search_scores import halving_schedule as halving_schedule
from .search_scores import scores_for_view as scores_for_view
from .search_scores import solve_scores as solve_scores

# ``from .x import y as y``: names that lived here before the module was split, still
# importable from here; documented where they live now, so not in __all__
__all__ = [
    "DEFAULT_BUDGET",
    "SearchAgent",
    "SearchHint",
]


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
    views: set[int] = field(default_factory=set)
    """The views met so far, as :func:`~fortythieves_env.rules.core.view_hash` keys: the
    search plays no column move into a dead end (:func:`~.search_arms.is_dead_end`) while
    another move is open, and with ``arms="irreversible"`` no arm's path goes through one."""


class SearchAgent:
    """The sampling search agent of the module docstring (a :class:`~.baselines.BatchAgent`).

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
        if self.prior is not None and hasattr(self.prior, "start_games"):
            # a family network learns the rule set here; a network's sampling streams
            self.prior.start_games(spec, games)

    def end_games(self, games: np.ndarray) -> None:
        """Drop the games' memories (and the prior's, if it keeps any)."""
        for i in games.tolist():
            self._games.pop(int(i), None)
        if self.prior is not None and hasattr(self.prior, "end_games"):
            self.prior.end_games(games)

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
            avoid = set(memory.views) if self.budget.arms == "irreversible" else None
            template = var.tables.pack(determinize(view, view.unseen))
            memory.views.add(int(view_hash(template, var.tables.table)))
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
                avoid,
            )
            seen = memory.seen
            seen.add(digest)
            _demote_repeats(spec, view, out[b], seen, self.budget.samples + 2.0, memory.views)
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
            **({"leaf": self.budget.leaf} if self.budget.leaf != "cards" else {}),
            **(
                {
                    "ucb_c": self.budget.ucb_c,
                    "ucb_batch": self.budget.ucb_batch,
                    "ucb_plays": self.budget.ucb_plays,
                    "ucb_arms": self.budget.arms,
                }
                if self.budget.allocation == "ucb"
                else {}
            ),
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
