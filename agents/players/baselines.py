"""Reference agents: ``random`` and ``greedy``.

Every agent here, and the trained-model agent of :mod:`fortythieves_agents.evaluation.evaluate`,
follows the :class:`Agent` protocol: ``reset(env)`` at the start of each episode, then ``act(obs,
env)`` returning a legal action index. ``env`` is the (possibly wrapped) Gymnasium env; agents read
the legal-action mask from ``env.unwrapped.action_masks()`` (``int8``, shape ``(n,)``).
They also follow the :class:`BatchAgent` protocol, what ``evaluate`` plays with:
``act_batch(obs, masks, games)`` chooses for many games at once, and
``action_scores(obs, masks, games)`` ranks every move (the no-cycling rule of
:mod:`fortythieves_agents.cycles` plays the best-ranked move that leads to a view not yet seen).

``random``
    Uniform over the legal actions. In batches, game ``i`` draws from its own generator
    seeded ``(seed, i)``, so an evaluation is reproducible and does not depend on the
    batching; one game at a time (``act``), from one generator seeded ``seed``. Its ranking
    (``action_scores``) puts that draw first and the other legal moves in a random order
    derived from the same draw (:func:`sampled_scores`), so the best-ranked move of any
    subset of the legal moves is uniform over it.

``greedy``
    The one-step greedy rule of :mod:`fortythieves_env.rules.greedy` (its score table is there):
    each legal move gets a score and the highest wins, ties to the lowest action index, so
    the agent is deterministic. It reads only what a player knows. One game at a time
    (:meth:`GreedyAgent.act`) it reads ``env.unwrapped.player_view()``
    (:class:`fortythieves_env.rules.view.PlayerView`: face-up cards, face-down and stock
    *counts*) into a state array with every hidden card 0
    (:func:`fortythieves_env.rules.greedy.view_state`); in batches (:func:`greedy_actions`) it
    reads each observation back into one (:func:`fortythieves_env.core.observed_state`;
    the observation holds exactly the view's face-up cards and counts). Both are scored by
    the compiled kernel :func:`~fortythieves_env.rules.greedy.greedy_pick`, the one the search
    agent's rollouts play (tested equal to the test oracle's restatement of the rule on
    positions of all nine variants).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import gymnasium as gym
import numpy as np

from fortythieves_env.envs.registration import versions as versions_of
from fortythieves_env.rules.core import observed_state, tables_for
from fortythieves_env.rules.engine import rules_for
from fortythieves_env.rules.greedy import greedy_pick, move_score, view_state
from fortythieves_env.rules.jit import kernel
from fortythieves_env.rules.observation import OBSERVATION_VERSIONS, ObservationLayout
from fortythieves_env.rules.variants import VariantSpec

if TYPE_CHECKING:
    from .search import SearchAgent, SearchBudget

__all__ = [
    "AGENT_NAMES",
    "BASELINES",
    "Agent",
    "BatchAgent",
    "GreedyAgent",
    "PerGameDraws",
    "RandomAgent",
    "greedy_actions",
    "make_baseline",
    "move_score",
    "pick_legal",
    "sampled_scores",
]


class Agent(Protocol):
    """What the evaluation loop needs from an agent."""

    name: str

    def reset(self, env: gym.Env) -> None:
        """Called after each ``env.reset``."""

    def act(self, obs: np.ndarray, env: gym.Env) -> int:
        """A legal action index for observation ``obs`` (``uint8``, shape ``(obs_size,)``)."""
        ...


@runtime_checkable
class BatchAgent(Protocol):
    """An agent that chooses for many games at once (what
    :func:`fortythieves_agents.evaluation.evaluate.evaluate_agents`
    plays with; every agent of this package is one).

    A *game* is a deal index ``i`` of the evaluation (its deal seed is
    ``2_000_000_000 + i``). Every random choice an agent makes in game ``i`` must come from
    a generator seeded by ``(seed, i)`` alone, never shared between games, so the choices do
    not depend on which other games are played in the same batch, or in which order.
    """

    name: str

    def start_games(self, spec: VariantSpec, games: np.ndarray) -> None:
        """The games ``games`` (deal indices, ``int64``, shape ``(k,)``) start now."""

    def end_games(self, games: np.ndarray) -> None:
        """The games ``games`` are over (their per-game state may be dropped)."""

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        """One legal action per row: the argmax of :meth:`action_scores` (lowest index on
        equal scores), drawing the same random numbers.

        Args:
            obs: ``uint8``, shape ``(B, size)``, one observation per row.
            masks: ``int8``, shape ``(B, n)``, row b's legal actions (1 = legal).
            games: ``int64``, shape ``(B,)``, row b's deal index.

        Returns:
            ``int64``, shape ``(B,)``.
        """
        ...

    def action_scores(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        """The agent's ranking of every action in each row, for the no-cycling rule of
        :mod:`fortythieves_agents.cycles` (which plays the best-ranked legal move to a new view).

        Contract: ``float64``, shape ``(B, n)``; higher is better; ``-inf`` where the
        action is illegal; equal scores rank by the lower action index. The argmax of a row
        (lowest index on ties) is exactly what :meth:`act_batch` returns for it, and one
        call draws the same random numbers as one :meth:`act_batch` call (one per row for
        the agents here), so an agent plays the same game with the rule as without it until
        the rule first refuses its choice. Arguments as :meth:`act_batch`.
        """
        ...


def legal_actions(env: gym.Env) -> np.ndarray:
    """Indices of the legal actions (``int64``, ascending).

    Raises:
        RuntimeError: the mask is empty (the env should have ended the episode).
    """
    mask = np.asarray(env.unwrapped.action_masks())  # type: ignore[attr-defined]
    legal = np.flatnonzero(mask)
    if legal.size == 0:
        raise RuntimeError("no legal action in a running episode (empty action mask)")
    return legal


@kernel
def _pick_legal(masks: np.ndarray, u: np.ndarray, out: np.ndarray) -> None:
    for b in range(masks.shape[0]):
        row = masks[b]
        n_legal = 0
        for a in range(row.shape[0]):
            n_legal += row[a] != 0
        k = int(u[b] * n_legal)
        out[b] = -1
        for a in range(row.shape[0]):
            if row[a] != 0:
                if k == 0:
                    out[b] = a
                    break
                k -= 1


def pick_legal(masks: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Row b's ``int(u[b] * L_b)``-th legal action (``L_b`` legal ones, ascending order).

    Args:
        masks: ``int8``, shape ``(B, n)``.
        u: ``float64`` uniforms in ``[0, 1)``, shape ``(B,)``.

    Returns:
        ``int64``, shape ``(B,)``; -1 for a row with no legal action.
    """
    out = np.empty(masks.shape[0], dtype=np.int64)
    _pick_legal(np.ascontiguousarray(masks), np.ascontiguousarray(u, dtype=np.float64), out)
    return out


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@kernel(inline="always")
def _splitmix(x: np.uint64) -> np.uint64:
    x = x + _GOLDEN
    x = (x ^ (x >> np.uint64(30))) * _M1
    x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


@kernel
def _sampled_scores(
    masks: np.ndarray, u: np.ndarray, chosen: np.ndarray, base: np.ndarray, out: np.ndarray
) -> None:
    for b in range(masks.shape[0]):
        bits = np.uint64(u[b] * 9007199254740992.0)  # the draw's 53 bits
        for a in range(masks.shape[1]):
            if masks[b, a] == 0:
                out[b, a] = -np.inf
            elif a == chosen[b]:
                out[b, a] = np.inf
            else:
                x = _splitmix(bits ^ (np.uint64(a + 1) * _GOLDEN))
                v = (np.float64(x >> np.uint64(11)) + 0.5) / 9007199254740992.0  # (0, 1)
                gumbel = -np.log(-np.log(v))
                out[b, a] = gumbel + (base[b, a] if base.shape[0] else 0.0)


def sampled_scores(
    masks: np.ndarray, u: np.ndarray, chosen: np.ndarray, log_probs: np.ndarray | None = None
) -> np.ndarray:
    """The ranking of an agent that drew ``chosen`` (from the uniforms ``u``): ``chosen``
    first (``+inf``), then the other legal moves by ``log_probs + G`` (Gumbel noise ``G``
    derived from the bits of ``u`` and the action index; no new random numbers), illegal
    ones ``-inf``.

    By the Gumbel-max trick the best-ranked move of any subset S of the legal moves not
    holding ``chosen`` is a draw from the policy restricted to S; with ``chosen`` drawn from
    the policy, the best-ranked move of any subset is then a draw from the policy restricted
    to it (uniform for the random agent, ``log_probs`` None). So the no-cycling rule, which
    takes the best-ranked move to a new view, samples among those moves as the policy would.

    Args:
        masks: ``int8``, shape ``(B, n)``.
        u: ``float64``, shape ``(B,)``, the draws ``chosen`` came from.
        chosen: ``int64``, shape ``(B,)``, the drawn moves (-1: none).
        log_probs: ``float64``, shape ``(B, n)``, or None for equal probabilities.

    Returns:
        ``float64``, shape ``(B, n)``.
    """
    out = np.empty(masks.shape, dtype=np.float64)
    base = np.zeros((0, 0)) if log_probs is None else np.ascontiguousarray(log_probs, np.float64)
    _sampled_scores(
        np.ascontiguousarray(masks, dtype=np.int8),
        np.ascontiguousarray(u, dtype=np.float64),
        np.ascontiguousarray(chosen, dtype=np.int64),
        base,
        out,
    )
    return out


class PerGameDraws:
    """One generator per deal index ``i``, ``numpy.random.default_rng((seed, i))``, so that
    every random choice of a game is the same however the games are batched or split.

    ``start(games)`` makes the generators of ``games`` (int array of deal indices), ``end``
    drops them, ``uniforms(games)`` draws one float64 in [0, 1) per game (``(B,)``).
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._rngs: dict[int, np.random.Generator] = {}

    def start(self, games: np.ndarray) -> None:
        for i in games.tolist():
            self._rngs[i] = np.random.default_rng((self.seed, i))

    def end(self, games: np.ndarray) -> None:
        for i in games.tolist():
            self._rngs.pop(i, None)

    def uniforms(self, games: np.ndarray) -> np.ndarray:
        """Raises ``KeyError`` for a game that was not started."""
        rngs = self._rngs
        return np.array([rngs[i].random() for i in games.tolist()], dtype=np.float64)


class RandomAgent:
    """Uniformly random legal actions, reproducible through ``seed``.

    In batches (:meth:`act_batch`, what ``evaluate`` plays) game ``i`` draws from its own
    generator ``numpy.random.default_rng((seed, i))``, one uniform ``u`` per step, and plays
    the ``int(u * L)``-th of its ``L`` legal actions: the same choices however the games are
    batched. One game at a time (:meth:`act`, kept for callers of the single-env loop) it
    draws from one generator seeded ``seed`` that runs on over episodes, as before.
    """

    def __init__(self, seed: int = 0) -> None:
        self.name = "random"
        self.seed = seed
        self._rng = np.random.default_rng(seed)
        self._draws = PerGameDraws(seed)

    def reset(self, env: gym.Env) -> None:
        """Nothing to reset: the generator runs on over episodes."""

    def act(self, obs: np.ndarray, env: gym.Env) -> int:
        """A uniformly drawn legal action."""
        return int(self._rng.choice(legal_actions(env)))

    def start_games(self, spec: VariantSpec, games: np.ndarray) -> None:
        """Seed game ``i``'s generator with ``(seed, i)``."""
        self._draws.start(games)

    def end_games(self, games: np.ndarray) -> None:
        """Drop the games' generators."""
        self._draws.end(games)

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        """A uniformly drawn legal action per row, from its game's generator.

        Raises:
            KeyError: a game that was not started (:meth:`start_games`).
        """
        return pick_legal(masks, self._draws.uniforms(games))

    def action_scores(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        """The ranking (:meth:`BatchAgent.action_scores`): the draw of :meth:`act_batch`
        first, the other legal moves in a random order from the same draw
        (:func:`sampled_scores`).

        Raises:
            KeyError: a game that was not started (:meth:`start_games`).
        """
        u = self._draws.uniforms(games)
        return sampled_scores(masks, u, pick_legal(masks, u))


@kernel
def _greedy_batch(
    obs: np.ndarray,
    masks: np.ndarray,
    tb: np.ndarray,
    st: np.ndarray,
    legal: np.ndarray,
    out: np.ndarray,
    scores: np.ndarray,
) -> None:
    """The greedy choice of every row: ``out[b]`` = row b's best legal action (-1: none);
    with a non-empty ``scores`` (``(B, n)``) also every action's score (-inf if illegal).
    ``st`` and ``legal`` are work arrays (a state array, ``int64`` of length ``n``)."""
    write = scores.shape[0] > 0
    if write:
        scores[:] = -np.inf
    none = np.empty(0, dtype=np.float64)
    for b in range(obs.shape[0]):
        observed_state(obs[b], tb, st)
        count = 0
        for a in range(masks.shape[1]):
            if masks[b, a] != 0:
                legal[count] = a
                count += 1
        out[b] = greedy_pick(st, tb, legal, count, scores[b] if write else none)


@cache
def _observation_tables(spec: VariantSpec, size: int) -> np.ndarray:
    """The table array (:func:`fortythieves_env.core.tables_for`) of the observation
    version of ``spec`` whose observations have ``size`` entries.

    Raises:
        ValueError: no observation of ``spec`` has ``size`` entries.
    """
    for version in OBSERVATION_VERSIONS:
        if ObservationLayout.for_variant(spec, version).size == size:
            return tables_for(spec, version).table
    raise ValueError(f"{spec.id} has no observation of {size} entries")


def greedy_actions(
    spec: VariantSpec, obs: np.ndarray, masks: np.ndarray, scores: np.ndarray | None = None
) -> np.ndarray:
    """The greedy choice in each row, compiled (one numba call for the batch).

    The same choice as :meth:`GreedyAgent.act` (:func:`move_score`, highest score, lowest
    index on ties) read from the observation instead of the
    :class:`~fortythieves_env.rules.view.PlayerView`: the observation holds the view's face-up
    cards, waste, face-down counts and stock count (and, from version 1, the known stock,
    which the heuristic does not use; :mod:`fortythieves_env.rules.observation`), so nothing a
    player does not see is read. Each row is read back into a state array
    (:func:`fortythieves_env.core.observed_state`) and scored by
    :func:`fortythieves_env.rules.greedy.greedy_pick`.

    Args:
        spec: the variant.
        obs: ``uint8``, shape ``(B, size)``: the variant's observations, of any observation
            version (told apart by ``size``).
        masks: ``int8``, shape ``(B, n)``: their legal actions.

        scores: if given, ``float64`` of shape ``(B, n)``, filled with every action's
            :func:`move_score` (``-inf`` where illegal).

    Returns:
        ``int64``, shape ``(B,)``; -1 for a row with no legal action.

    Raises:
        ValueError: ``obs`` or ``masks`` has the wrong shape for ``spec``.
    """
    n_actions = rules_for(spec).n_actions
    try:
        if obs.ndim != 2:
            raise ValueError
        tb = _observation_tables(spec, obs.shape[1])
    except ValueError:
        sizes = " or ".join(
            str(ObservationLayout.for_variant(spec, v).size) for v in versions_of(spec)
        )
        raise ValueError(
            f"greedy_actions({spec.id}): need obs of shape (B, {sizes}), got {obs.shape}"
        ) from None
    if masks.shape != (obs.shape[0], n_actions):
        raise ValueError(
            f"greedy_actions({spec.id}): need masks of shape (B, {n_actions}) for obs of "
            f"shape {obs.shape}, got {masks.shape}"
        )
    out = np.empty(obs.shape[0], dtype=np.int64)
    _greedy_batch(
        np.ascontiguousarray(obs, dtype=np.uint8),
        np.ascontiguousarray(masks, dtype=np.int8),
        tb,
        np.empty(tables_for(spec).state_size, dtype=np.int16),
        np.empty(n_actions, dtype=np.int64),
        out,
        _NO_SCORES if scores is None else scores,
    )
    return out


_NO_SCORES = np.zeros((0, 0), dtype=np.float64)
_NO_SCORE_ROW = np.zeros(0, dtype=np.float64)


class GreedyAgent:
    """The documented one-step heuristic of this module (deterministic).

    It reads ``env.unwrapped.player_view()`` and ``env.unwrapped.rules`` only, never the
    full position (so never a face-down card or the stock's order). In batches
    (:meth:`act_batch`) it is :func:`greedy_actions`, the same choice compiled, read from
    the observations.
    """

    def __init__(self, seed: int = 0) -> None:
        self.name = "greedy"
        self._spec: VariantSpec | None = None

    def start_games(self, spec: VariantSpec, games: np.ndarray) -> None:
        """Remember the variant (the games need nothing else)."""
        self._spec = spec

    def end_games(self, games: np.ndarray) -> None:
        """Nothing to drop."""

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        """:func:`greedy_actions` of the rows.

        Raises:
            RuntimeError: no game was started yet (the variant is unknown).
        """
        if self._spec is None:
            raise RuntimeError("GreedyAgent.act_batch before start_games")
        return greedy_actions(self._spec, obs, masks)

    def action_scores(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        """Every action's :func:`move_score` (``-inf`` where illegal), the ranking of
        :meth:`BatchAgent.action_scores`: equal scores go by the lower index, as the choice.

        Raises:
            RuntimeError: no game was started yet (the variant is unknown).
        """
        if self._spec is None:
            raise RuntimeError("GreedyAgent.action_scores before start_games")
        scores = np.empty(masks.shape, dtype=np.float64)
        greedy_actions(self._spec, obs, masks, scores)
        return scores

    def reset(self, env: gym.Env) -> None:
        """Nothing to reset."""

    def act(self, obs: np.ndarray, env: gym.Env) -> int:
        """The legal action with the highest :func:`move_score`, lowest index on ties: the
        compiled :func:`~fortythieves_env.rules.greedy.greedy_pick` on the player's view."""
        base = env.unwrapped
        legal = legal_actions(env)
        tables = tables_for(base.variant)  # type: ignore[attr-defined]
        st = view_state(base.player_view(), tables)  # type: ignore[attr-defined]
        return int(greedy_pick(st, tables.table, legal, legal.size, _NO_SCORE_ROW))


BASELINES: dict[str, type[RandomAgent] | type[GreedyAgent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
}
"""Baseline agents by name."""


AGENT_NAMES: tuple[str, ...] = (*BASELINES, "search")
"""Every agent :func:`make_baseline` builds by name: the baselines and the sampling
search agent of :mod:`fortythieves_agents.players.search` (slow: about 0.05-0.2 s per move)."""


def make_baseline(
    name: str, seed: int = 0, search: SearchBudget | None = None
) -> RandomAgent | GreedyAgent | SearchAgent:
    """A fresh agent by name (:data:`AGENT_NAMES`).

    Args:
        name: ``random``, ``greedy`` or ``search``.
        seed: the agent's seed.
        search: for ``search``, its :class:`fortythieves_agents.players.search.SearchBudget`
        (default: the
            default budget); ignored by the others.

    Raises:
        ValueError: unknown name (the message lists the known ones).
    """
    if name == "search":
        from .search import SearchAgent

        return SearchAgent(seed, search)
    try:
        cls = BASELINES[name]
    except KeyError:
        raise ValueError(f"unknown agent {name!r}; known: {', '.join(AGENT_NAMES)}") from None
    return cls(seed)
