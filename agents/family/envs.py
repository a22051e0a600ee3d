"""The family's environments for the agents: training, validation, play through ``Family-v0``.

:class:`FamilyBatchedVecEnv` is :class:`fortythieves_agents.envs.BatchedVecEnv` (the SB3
``VecEnv`` PPO trains on: the same deal draws, infos, ``Monitor`` records and no-cycling
masks) over one :class:`~fortythieves_env.envs.family_vector.FamilyVectorEnv`: game ``i``'s
training deal seed ``s`` (drawn from ``numpy.random.default_rng((seed, i))`` in the
training range, :mod:`fortythieves_agents.seeds`) deals it a rule set and then a deal, as
``FamilyEnv.reset(seed=s)`` does: a rule set drawn from the sampler (the training
distribution, never a held-out game), or the one rule set given (fine-tuning on a variant
through the shared encoding). The no-cycling rule runs on each game's own rule set
(:class:`~fortythieves_agents.family.views.FamilySeenViews`).

:class:`FamilyDealTable` is :class:`fortythieves_agents.players.episodes.DealTable` on
``Family-v0`` (its registered rewards and each rule set's step limit): given deal seeds,
played ``slots`` at once, with the family's no-cycling rule (:class:`FamilyNoCycling`).
:func:`play_family_deals` plays an agent on it (the family runs' validation: validation
seeds on the training distribution or on the fixed rule set; and a named variant played
through the shared encoding, which gives the games of its own id).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from fortythieves_env.envs.family import RuleSetSampler
from fortythieves_env.envs.family_env import family_tables
from fortythieves_env.envs.registration import FAMILY_ENV_ID
from fortythieves_env.rules.variants import VariantSpec

from ..envs import BatchedVecEnv
from ..evaluation.evaluate import MAX_BATCH, EpisodeResult
from ..players.episodes import (
    AgentChoice,
    DealTable,
    Ending,
    EpisodeHooks,
    NoCycling,
    play_games,
)
from .views import FamilySeenViews

__all__ = [
    "FamilyBatchedVecEnv",
    "FamilyDealTable",
    "FamilyNoCycling",
    "family_kwargs",
    "play_family_deals",
]

MAX_STEP_LIMIT = 1500
"""The longest step limit of a rule set of the family (with redeals); the no-cycling sets
start with room for this many views."""


def family_kwargs(rule_set: VariantSpec | None, sampler: RuleSetSampler | None) -> dict[str, Any]:
    """``variant=`` (one rule set) or ``sampler=`` (a narrower box) for the family's
    environments; neither: the training distribution."""
    if rule_set is not None:
        return {"variant": rule_set}
    if sampler is not None:
        return {"sampler": sampler}
    return {}


class FamilyBatchedVecEnv(BatchedVecEnv):
    """The training env of a family run (module docstring): ``BatchedVecEnv`` over a
    :class:`~fortythieves_env.envs.family_vector.FamilyVectorEnv`.

    Args:
        env_kwargs: the environment's keywords (rewards, penalty, step limits:
            ``EnvConfig.make_kwargs()``).
        n_envs: games at once.
        seed: the deal draws' seed (as ``BatchedVecEnv``).
        rule_set: one rule set every game plays (fine-tuning); None: drawn per episode.
        sampler: the rule sets' distribution when ``rule_set`` is None (default: the
            training distribution).
        gamma: unused without shaping (the family has none); kept for the signature.
        no_cycling, stall_ends_game: as ``BatchedVecEnv``; with ``stall_ends_game`` each
            game's step limit is its rule set's.
    """

    def __init__(
        self,
        env_kwargs: dict[str, Any],
        n_envs: int,
        seed: int = 0,
        *,
        rule_set: VariantSpec | None = None,
        sampler: RuleSetSampler | None = None,
        gamma: float = 1.0,
        no_cycling: bool = False,
        stall_ends_game: bool = False,
    ) -> None:
        from fortythieves_env.envs.family_vector import FamilyVectorEnv

        self.venv: Any = FamilyVectorEnv(
            num_envs=n_envs,
            autoreset_mode="SameStep",
            copy=False,
            **family_kwargs(rule_set, sampler),
            **env_kwargs,
        )
        VecEnv.__init__(
            self, n_envs, self.venv.single_observation_space, self.venv.single_action_space
        )
        self._rngs = [np.random.default_rng((seed, i)) for i in range(n_envs)]
        self._next_deals: list[int | None] = [None] * n_envs
        self._actions = np.zeros(n_envs, dtype=np.int64)
        self._returns = np.zeros(n_envs, dtype=np.float64)
        self._lengths = np.zeros(n_envs, dtype=np.int64)
        self._t_start = time.time()
        self._potential: Any = None  # no shaping on the family
        self._gamma = float(gamma)
        self._phi = np.zeros(n_envs, dtype=np.float64)
        self._masks = np.zeros((n_envs, self.venv.single_action_space.n), dtype=np.int8)
        self._seen: Any = None
        if no_cycling:
            steps = self.venv.max_episode_steps or MAX_STEP_LIMIT
            self._seen = FamilySeenViews(self.venv, n_envs, steps)
        self._every = np.arange(n_envs, dtype=np.int64)
        self._stall_ends_game = bool(stall_ends_game)
        self._step_limit: Any = np.iinfo(np.int64).max

    def step_wait(self) -> Any:
        if self._stall_ends_game:  # the step limit of each game's rule set, this episode's
            fixed = self.venv.max_episode_steps
            self._step_limit = np.array(
                [fixed or spec.max_episode_steps for spec in self.venv.rule_sets], dtype=np.int64
            )
        return super().step_wait()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "rule_sets":  # each game's own
            sets = self.venv.rule_sets
            return [sets[i] for i in self._get_indices(indices)]
        return super().get_attr(attr_name, indices)


class FamilyDealTable(DealTable):
    """:class:`~fortythieves_agents.players.episodes.DealTable` on ``Family-v0`` (module
    docstring): deal ``i`` is ``seeds[i]``, played with one rule set (``rule_set``) or the
    one each seed draws (``sampler``, default the training distribution)."""

    def __init__(
        self,
        seeds: Sequence[int],
        slots: int,
        first_game: int = 0,
        *,
        rule_set: VariantSpec | None = None,
        sampler: RuleSetSampler | None = None,
    ) -> None:
        self.env: Any = gym.make_vec(
            FAMILY_ENV_ID,
            num_envs=slots,
            vectorization_mode="vector_entry_point",
            copy=False,
            **family_kwargs(rule_set, sampler),
        )
        base = self.env.unwrapped
        self.spec = base.variant  # None: each deal's own rule set
        self.view_limit = base.variant.max_episode_steps if base.variant else MAX_STEP_LIMIT
        self.seeds = seeds
        self.slots = slots
        self.first_game = first_game
        self.game = np.arange(first_game, first_game + slots, dtype=np.int64)
        self.returns = np.zeros(slots, dtype=np.float64)
        self.lengths = np.zeros(slots, dtype=np.int64)
        self.live = np.ones(slots, dtype=np.bool_)
        self.all_live = True
        self.next_deal = slots
        self.obs = np.zeros((0,), dtype=np.uint8)
        self.masks = np.zeros((0, 0), dtype=np.int8)

    def end_stuck(self, slots: np.ndarray) -> list[Ending]:
        states = self.states
        rule_sets = self.env.unwrapped.rule_sets
        out = []
        for b in slots.tolist():
            at = family_tables(rule_sets[b]).scal0 + 3  # S_FCARDS
            out.append(
                Ending(
                    slot=b,
                    game=int(self.game[b]),
                    won=False,
                    foundation_cards=int(states[b, at]),
                    length=int(self.lengths[b]),
                    ret=float(self.returns[b]),
                    truncated=False,
                    stuck=True,
                )
            )
        self.live[slots] = False
        return out


class FamilyNoCycling(NoCycling):
    """The agents' no-cycling rule on a :class:`FamilyDealTable`
    (:class:`fortythieves_agents.players.episodes.NoCycling` with
    :class:`~fortythieves_agents.family.views.FamilySeenViews`)."""

    def _views(self, table: Any) -> FamilySeenViews:
        return FamilySeenViews(table.env.unwrapped, table.slots, table.view_limit)


class _Results(EpisodeHooks):
    """One :class:`~fortythieves_agents.evaluation.evaluate.EpisodeResult` per deal."""

    def __init__(
        self, seeds: Sequence[int], first_game: int, on_done: Callable[[int], object] | None
    ) -> None:
        self.seeds = seeds
        self.first_game = first_game
        self.on_done = on_done
        self.results: list[EpisodeResult | None] = [None] * len(seeds)

    def ended(self, table: Any, ending: Ending) -> None:
        i = ending.game - self.first_game
        self.results[i] = EpisodeResult(
            seed=int(self.seeds[i]),
            won=ending.won,
            foundation_cards=ending.foundation_cards,
            length=ending.length,
            ret=ending.ret,
            truncated=ending.truncated,
            stuck=ending.stuck,
        )

    def progress(self, games: int) -> None:
        if self.on_done is not None:
            self.on_done(games)


def play_family_deals(
    agent: Any,
    seeds: Sequence[int],
    *,
    rule_set: VariantSpec | None = None,
    sampler: RuleSetSampler | None = None,
    batch_size: int | None = None,
    allow_cycles: bool = False,
    first_game: int = 0,
    on_done: Callable[[int], object] | None = None,
) -> list[EpisodeResult]:
    """Play deal ``i`` (``Family-v0``'s ``reset(seed=seeds[i])``, with ``rule_set`` or the
    rule set the seed draws) for every ``i``, many at once, as
    :func:`fortythieves_agents.evaluation.evaluate.play_deals` plays a variant's id: the
    agent (shared observations and masks) ranks the moves and, under the no-cycling rule
    (unless ``allow_cycles``), each game plays its best-ranked move to a view not seen in
    its episode; a game with none ends as stuck.

    Returns:
        One result per seed, in their order.

    Raises:
        RuntimeError: the agent chose an illegal action.
        TypeError: the rule is on and the agent has no ``action_scores``.
    """
    if not seeds:
        return []
    rule = not allow_cycles
    if rule and not hasattr(agent, "action_scores"):
        raise TypeError(f"agent {agent.name} has no action_scores: the no-cycling rule needs it")
    slots = min(len(seeds), batch_size or MAX_BATCH)
    table = FamilyDealTable(seeds, slots, first_game, rule_set=rule_set, sampler=sampler)
    try:
        choice = FamilyNoCycling(table) if rule else AgentChoice()
        records = _Results(seeds, first_game, on_done)
        play_games(agent, table, choice, records)
    finally:
        table.close()
    return records.results  # type: ignore[return-value]
