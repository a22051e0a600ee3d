"""The search agent's budget: its numbers (defaults and bounds) and :class:`SearchBudget`, in
one module that loads neither numba nor ``fortythieves_env`` (only :class:`SearchBudget`'s
checks import them, when a budget is made), so that the ``fortythieves`` command's options
and help read the very numbers :class:`SearchBudget` and
:class:`~fortythieves_agents.players.search.SearchAgent` use, without restating them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from fortythieves_env.rules.variants import VariantSpec

__all__ = [
    "ALLOCATIONS",
    "ARMS",
    "DEFAULT_NODES",
    "DEFAULT_PRIOR_TOP",
    "DEFAULT_SAMPLES",
    "DEFAULT_SECONDS",
    "DEFAULT_STALL",
    "DEFAULT_UCB_BATCH",
    "DEFAULT_UCB_C",
    "DEFAULT_UCB_PLAYS",
    "LEAVES",
    "MAX_NODES_PER_SAMPLE",
    "MAX_SAMPLES",
    "MAX_SECONDS",
    "MAX_UCB_C",
    "METHODS",
    "NODES_PER_SECOND",
    "SearchBudget",
]

DEFAULT_SAMPLES = 16
"""Samples per move by default (see ``results/search/probes``)."""
DEFAULT_STALL = 40
"""Moves in a row that change only the tableau after which a rollout is called lost."""
MAX_SAMPLES = 1_000_000
"""The most samples per move a budget takes (each is a state array held during the move)."""
ALLOCATIONS = ("uniform", "halving", "ucb")
"""How a move's rollouts (or solves) are spread over its candidates (:class:`SearchBudget`;
``"ucb"``: the solving setting only)."""
ARMS = ("moves", "irreversible")
"""What the arms of ``allocation="ucb"`` are (:class:`SearchBudget`'s ``arms``): the candidate
moves, or lonelybot's first irreversible moves reachable through reversible play
(:mod:`~fortythieves_agents.players.search_arms`)."""
LEAVES = ("cards", "learned")
"""What a sample's solve that runs out of nodes is worth (:class:`SearchBudget`'s ``leaf``):
``cards / 208`` of the best line met, or the variant's learned leaf value
(:mod:`~fortythieves_agents.players.search_leaf`)."""
METHODS = ("rollouts", "solve")
"""How a candidate is valued on a sample: greedy rollouts, or the solver (:class:`SearchBudget`)."""
DEFAULT_NODES = 1_000
"""The node cap of one sample's solve by default (lonelybot's cap per pull)."""
MAX_NODES_PER_SAMPLE = 10**9
"""The largest node cap of one sample's solve."""
MAX_SECONDS = 3600.0
"""The largest time budget per move (seconds)."""
DEFAULT_SECONDS = 0.1
"""The shipped budget per move (seconds) of the solving setting, the agent's default
(:data:`~.search.DEFAULT_BUDGET`): at most 1 s per move on one core as issue 25 asks; measured over
whole games (forced moves cost nothing) 0.05-0.07 s per move on the hard variants, load 2-4
on 2 cores (``results/search/<variant>-200-s0.1.json``)."""
NODES_PER_SECOND = 1_000_000
"""The fixed rate that turns a budget's seconds into nodes (:meth:`SearchBudget.samples_for`):
the order of the solver's nodes per second on one core of the reference machine (2-core AMD
EPYC) in solves capped at 1,000-10,000 nodes (``benchmarks/solver_context_speed.py``: 0.75M
to 1.9M). A constant, so the moves chosen do not depend on the machine or its load. Measured
at a 1 s budget (load 1.0 on 2 cores): a searched decision took 0.65-0.90 s on Forty Thieves
and 1.0-1.23 s on Number Ten; over whole games (forced moves cost nothing) a 0.1 s budget
cost 0.064 s per move on Number Ten, a 0.01 s budget 0.011 s."""
DEFAULT_UCB_C = 2.0
"""The exploration constant ``C`` of ``allocation="ucb"``: the index is
``mean + sqrt(C ln N / n)``, Auer, Cesa-Bianchi and Fischer's UCB1 at ``C = 2`` (lonelybot's
value)."""
DEFAULT_UCB_BATCH = 10
"""Pulls (solves, each on a fresh sample) given at once to the arm ``allocation="ucb"`` picks
(lonelybot's batches of 10)."""
DEFAULT_UCB_PLAYS = 3_000
"""``allocation="ucb"`` stops when its leader (the most-played candidate) has this many
plays, if the move's budget of solves is not spent first (lonelybot's 3,000)."""
MAX_UCB_C = 1_000.0
"""The largest exploration constant of ``allocation="ucb"``."""
DEFAULT_PRIOR_TOP = 3
"""Candidates the search examines per move with ``--search-prior`` (network + search)."""


@dataclass(frozen=True)
class SearchBudget:
    """The per-move budget of the search agent (deterministic: counts, not seconds).

    Attributes:
        samples: positions sampled per move (>= 1); each candidate move gets one rollout
            per sample.
        horizon: most moves of one rollout (>= 1); None: the variant's step limit
            (``max_episode_steps``). Rollouts are also cut where the episode would end:
            the agent counts its own moves (:class:`~.search.SearchAgent`), and a rollout plays at
            most the steps left after the candidate move.
        stall: a rollout is called lost after this many moves in a row that change only
            the tableau (>= 1).
        allocation: how the ``samples x candidates`` rollouts (or solves) of a move are
            spread over the candidates: ``"uniform"`` (``samples`` each) or ``"halving"``
            (sequential halving: the same number in all, most of them spent on the best
            candidates; :mod:`~fortythieves_agents.players.search`'s docstring, point 5)
            or, with ``method="solve"`` only, ``"ucb"`` (a UCB1 bandit over the candidates
            spending at most the solves halving would, each on a fresh sample:
            :func:`~fortythieves_agents.players.search_ucb.ucb_allocate`).
            None (the default): ``"uniform"`` for ``method="rollouts"``, ``"halving"`` for
            ``method="solve"`` (stored resolved).
        method: ``"rollouts"`` (greedy rollouts, the cheaper setting:
            :mod:`~fortythieves_agents.players.search`'s docstring) or ``"solve"`` (each
            sampled child solved by the package's solver with a node cap: hindsight
            optimisation, :func:`~fortythieves_agents.players.search_scores.solve_scores`).
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
        ucb_c: ``allocation="ucb"``: the exploration constant ``C`` of the index
            ``mean + sqrt(C ln N / n)`` (a number in ``[0, MAX_UCB_C]``;
            :data:`DEFAULT_UCB_C`).
        ucb_batch: ``allocation="ucb"``: solves given at once to the chosen candidate (>= 1;
            :data:`DEFAULT_UCB_BATCH`).
        ucb_plays: ``allocation="ucb"``: stop when the most-played candidate has this many
            plays (>= 1; :data:`DEFAULT_UCB_PLAYS`), if the budget is not spent first.
        arms: ``allocation="ucb"``: the bandit's arms (one of :data:`ARMS`): ``"moves"``
            (the default: the candidate moves) or ``"irreversible"`` (lonelybot's: each pair of
            a path of reversible moves and the irreversible move it leads to, the agent
            playing the chosen arm's first move;
            :mod:`~fortythieves_agents.players.search_arms`).
        leaf: ``method="solve"``: the value of a sample whose solve ran out of nodes (one of
            :data:`LEAVES`): ``"cards"`` (the default: the foundation cards of the best
            line met, ``/ 208``) or ``"learned"`` (the variant's fitted prediction of a
            solve with 300 times the nodes, :mod:`~fortythieves_agents.players.search_leaf`;
            the agent refuses a variant with none).

    Raises:
        ValueError: a count is not a positive integer (``int`` or a numpy integer, stored
            as ``int``; the message names it) or is too large (``samples`` above
            :data:`MAX_SAMPLES`, ``horizon`` or ``stall`` above ``2**63 - 1``, the compiled
            rollouts' ``int64``, ``nodes`` above :data:`MAX_NODES_PER_SAMPLE`), ``allocation``
            is not one of :data:`ALLOCATIONS` or ``method`` one of :data:`METHODS`,
            ``seconds`` is not a number in ``(0, MAX_SECONDS]``, ``seconds`` or
            ``allocation="ucb"`` is given with ``method="rollouts"``, ``ucb_c`` is not a
            number in ``[0, MAX_UCB_C]`` or ``ucb_batch`` / ``ucb_plays`` not an integer
            >= 1, or one of the three is not its default without ``allocation="ucb"``,
            ``arms`` is not one of :data:`ARMS`, or ``"irreversible"`` without
            ``allocation="ucb"``, or ``leaf`` is not one of :data:`LEAVES`, or
            ``"learned"`` without ``method="solve"``.
    """

    samples: int = DEFAULT_SAMPLES
    horizon: int | None = None
    stall: int = DEFAULT_STALL
    allocation: str | None = None
    method: str = "rollouts"
    nodes: int = DEFAULT_NODES
    seconds: float | None = None
    ucb_c: float = DEFAULT_UCB_C
    ucb_batch: int = DEFAULT_UCB_BATCH
    ucb_plays: int = DEFAULT_UCB_PLAYS
    arms: str = "moves"
    leaf: str = "cards"

    def __post_init__(self) -> None:
        from fortythieves_env.rules.checks import (
            INT64_MAX,
            checked_int,
        )  # not when the module loads

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
        self._check_ucb()
        if self.leaf not in LEAVES:
            raise ValueError(
                f"search budget: leaf must be one of {', '.join(LEAVES)}, got {self.leaf!r}"
            )
        if self.leaf != "cards" and self.method != "solve":
            raise ValueError(f"search budget: leaf {self.leaf!r} needs method='solve'")
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

    def _check_ucb(self) -> None:
        """Check and store the ``ucb_*`` fields (see the class docstring's Raises)."""
        from fortythieves_env.rules.checks import checked_int  # not when the module loads

        if self.allocation == "ucb" and self.method != "solve":
            raise ValueError("search budget: allocation 'ucb' needs method='solve'")
        c = self.ucb_c
        ok = isinstance(c, int | float | np.integer | np.floating) and not isinstance(c, bool)
        if not ok or not 0.0 <= float(c) <= MAX_UCB_C:  # NaN fails too
            raise ValueError(
                f"search budget: ucb_c must be a number in [0, {MAX_UCB_C}], got {c!r}"
            )
        object.__setattr__(self, "ucb_c", float(c))
        for name in ("ucb_batch", "ucb_plays"):
            value = checked_int(f"search budget: {name}", getattr(self, name), 1, MAX_SAMPLES)
            object.__setattr__(self, name, value)
        if self.arms not in ARMS:
            raise ValueError(
                f"search budget: arms must be one of {', '.join(ARMS)}, got {self.arms!r}"
            )
        if self.allocation != "ucb":
            if self.arms != "moves":
                raise ValueError(f"search budget: arms {self.arms!r} needs allocation='ucb'")
            for name, default in (
                ("ucb_c", DEFAULT_UCB_C),
                ("ucb_batch", DEFAULT_UCB_BATCH),
                ("ucb_plays", DEFAULT_UCB_PLAYS),
            ):
                if getattr(self, name) != default:
                    raise ValueError(f"search budget: {name} needs allocation='ucb'")

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
