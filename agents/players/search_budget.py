"""The search agent's budget in numbers: its defaults and bounds, in one module that imports
nothing (no numba, no ``fortythieves_env``), so that the ``fortythieves`` command's options
and help read the very numbers :class:`~fortythieves_agents.players.search.SearchBudget` and
:class:`~fortythieves_agents.players.search.SearchAgent` use, without restating them."""

from __future__ import annotations

__all__ = [
    "ALLOCATIONS",
    "DEFAULT_NODES",
    "DEFAULT_PRIOR_TOP",
    "DEFAULT_SAMPLES",
    "DEFAULT_SECONDS",
    "DEFAULT_STALL",
    "MAX_NODES_PER_SAMPLE",
    "MAX_SAMPLES",
    "MAX_SECONDS",
    "METHODS",
    "NODES_PER_SECOND",
]

DEFAULT_SAMPLES = 16
"""Samples per move by default (see ``results/search/probes``)."""
DEFAULT_STALL = 40
"""Moves in a row that change only the tableau after which a rollout is called lost."""
MAX_SAMPLES = 1_000_000
"""The most samples per move a budget takes (each is a state array held during the move)."""
ALLOCATIONS = ("uniform", "halving")
"""How a move's rollouts are spread over its candidates (:class:`SearchBudget`)."""
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
(:data:`DEFAULT_BUDGET`): at most 1 s per move on one core as issue 25 asks; measured over
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
DEFAULT_PRIOR_TOP = 3
"""Candidates the search examines per move with ``--search-prior`` (network + search)."""
