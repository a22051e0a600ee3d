"""The family's batched vector environment: N games, each of its own rule set, stepped by
one compiled call per step through the shared encoding.

:class:`FamilyVectorEnv` is :class:`~fortythieves_env.FortyThievesVectorEnv` (same
seeding, resets, autoreset modes, ``info``, copies or views) with one rule set per game.
Game i's packed position, own action mask and shared observation and mask are rows ``i``
of ``N``-row arrays; the rule sets in play each have a *slot* (their table array, built to
write the shared observation, and their action maps), shared by the games that play them.
:func:`_step_family_batch` steps each game with the per-variant batch's own step
(:func:`fortythieves_env.envs.vector_step._step_game`, the same code) on its slot's table, then maps
its mask into the shared one (:func:`fortythieves_env.envs._family_fast.mark_shared`).
Python runs only when a game starts a new deal, and for a rule set not in a slot yet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..rules.checks import checked_options
from ..rules.core import table_size
from ..rules.engine import GameState, IllegalMoveError, Rules, rules_for
from ..rules.jit import kernel
from ..rules.observation import LATEST_VERSION
from ..rules.variants import VariantSpec
from ._family_fast import mark_shared, own_mask_size
from ._family_fast import refresh as refresh_shared
from .family import (
    COLUMN_SLOTS,
    FAMILY_BOUNDS,
    FAMILY_CODEC,
    FAMILY_LAYOUT,
    MAX_COLUMNS,
    STOCK_SLOTS,
    TRAINING,
    RuleSetSampler,
    get_rule_set,
    rule_set_map,
)
from .family_env import family_tables, lacking_reason
from .vector import FortyThievesVectorEnv
from .vector_step import C_NLEGAL, F_AUTORESET, P_RAISE, _check_actions, _step_game

__all__ = ["FamilyVectorEnv"]

N_SHARED = FAMILY_CODEC.n_actions
"""Shared actions (2057): also the most actions a rule set of the bounds has."""
_MAX_STATE = MAX_COLUMNS * COLUMN_SLOTS + 2 * MAX_COLUMNS + 2 * STOCK_SLOTS + 12
"""An upper bound of a rule set's state array in the shared layout (:mod:`..rules.core`:
``C*V + 2*C + 2*S + 12``, here with ``V = 20`` for every rule set)."""
_MAX_TABLE = table_size(N_SHARED)
"""An upper bound of a rule set's table array (:func:`..rules.tables.table_size`)."""
_OWN_MASK = own_mask_size(N_SHARED)
"""Entries of a game's own mask row (the most actions of a rule set, rounded up to 8)."""


@kernel
def _step_family_batch(
    states: np.ndarray,
    own_masks: np.ndarray,
    obs: np.ndarray,
    masks: np.ndarray,
    actions: np.ndarray,
    slots: np.ndarray,
    tables: np.ndarray,
    from_shared: np.ndarray,
    to_shared: np.ndarray,
    own_widths: np.ndarray,
    max_steps: np.ndarray,
    rewards: np.ndarray,
    flags: np.ndarray,
    counts: np.ndarray,
    fparams: np.ndarray,
    iparams: np.ndarray,
) -> int:
    """Step every game of the family batch once (the body of :meth:`FamilyVectorEnv.step`).

    As :func:`fortythieves_env.envs.vector_step._step_batch`, with game i's rule set in slot
    ``slots[i]`` (its table array, maps, action count and step limit) and its shared action
    translated: ``from_shared[slot, a]``, or for an action the rule set lacks one of its
    own illegal actions (``draw`` and ``redeal`` are never both legal: the game is stepped
    as for any illegal action). Around a legal move the game's shared mask row follows its
    own mask (:func:`fortythieves_env.envs._family_fast.mark_shared`: the legal actions before
    unmarked, those after marked); the observation row is written by the step itself. The
    own mask row is used up to the slot's width (its actions rounded up to 8).

    Returns:
        As ``_step_batch``: the games flagged ``F_DEAL``, or ``-1 - i`` (game i's action
        is outside the shared range), or ``-1 - N - i`` (illegal, and illegal actions raise).
    """
    n_games = states.shape[0]
    checked = _check_actions(n_games, actions, masks, flags, masks.shape[1], iparams[P_RAISE] != 0)
    if checked < 0:
        return checked
    n_deal = 0
    for i in range(n_games):
        slot = slots[i]
        own_mask = own_masks[i, : own_widths[slot]]
        stepped = not flags[F_AUTORESET, i]  # else the game starts a new deal (ignores a)
        own = np.int64(0)
        legal = False
        if stepped:
            own = np.int64(from_shared[slot, actions[i]])
            if own < 0:
                own = np.int64(1 if own_mask[0] else 0)
            legal = own_mask[own] != 0
            if legal:  # the legal actions before the move leave the shared mask
                mark_shared(own_mask, masks[i], to_shared[slot], counts[C_NLEGAL, i], 0)
        n_deal += _step_game(
            states[i],
            tables[slot],
            obs[i],
            own_mask,
            own,
            i,
            rewards,
            flags,
            counts,
            fparams,
            iparams,
            max_steps[slot],
        )
        if legal:  # and those after it enter (_step_game counted them)
            mark_shared(own_mask, masks[i], to_shared[slot], counts[C_NLEGAL, i], 1)
    return n_deal


@kernel
def _pick_legal_family(
    own_masks: np.ndarray,
    slots: np.ndarray,
    own_widths: np.ndarray,
    to_shared: np.ndarray,
    n_legal: np.ndarray,
    u: np.ndarray,
    out: np.ndarray,
) -> None:
    """``out[i]`` = game i's ``int(u[i] * n_legal[i])``-th legal shared action (0 if none),
    found in its own mask: a rule set's actions keep their order in the shared space, so
    its k-th legal own action is its k-th legal shared action (what
    :func:`fortythieves_env.envs.vector_step._pick_legal` finds on the shared mask, reading fewer
    entries)."""
    for i in range(own_masks.shape[0]):
        k = int(u[i] * n_legal[i])
        a = 0
        if n_legal[i] > 0:
            slot = slots[i]
            row = own_masks[i]
            for j in range(own_widths[slot]):
                if row[j]:
                    if k == 0:
                        a = to_shared[slot, j]
                        break
                    k -= 1
        out[i] = a


class FamilyVectorEnv(FortyThievesVectorEnv):
    """N games of the Forty Thieves family, one rule set per game, stepped together by one
    compiled call per step through the shared encoding.

    ## Description
    The batched form of :class:`~fortythieves_env.envs.family_env.FamilyEnv`: for the same seeds
    and actions, game i plays exactly the games of ``FamilyEnv`` reset with seed ``s + i``
    (its rule sets, deals, observations, masks, rewards and episode ends;
    ``tests/env/test_family.py`` checks it). Everything else is
    :class:`~fortythieves_env.FortyThievesVectorEnv`'s: read its docstring for seeding,
    ``reset_mask``, the autoreset modes, ``info``, ``copy`` and :meth:`sample_legal`.

    ## Action Space
    ``MultiDiscrete([2057] * N)``: one shared action per game (``FamilyEnv``'s).

    ## Observation Space
    ``Box(0, high, shape=(N, 501), dtype=uint8)``: row i is game i's shared observation
    (:class:`~fortythieves_env.envs.family.FamilyLayout`).

    ## Starting State
    Each game draws its rule set per episode from ``sampler`` with its own generator (then
    its deal), unless ``variant=`` fixes one for all. ``reset(options=...)`` also takes
    ``"variant"``: one rule set (a spec or id) for every game reset, or a sequence of N
    (``None`` for the default); the rule set of that episode only. A ``"state"`` position is
    read by its game's rule set (``"variant"``, else ``variant=``, else the position's own
    ``"variant"`` id).

    ## Rewards, Episode End, Information
    As ``FamilyEnv`` and ``FortyThievesVectorEnv``; each game is truncated after its rule
    set's ``max_episode_steps`` (or ``max_episode_steps=``). :attr:`rule_sets` holds each
    game's rule set.

    ## Arguments
    ``variant``, ``sampler`` and ``max_episode_steps`` as ``FamilyEnv``; ``num_envs``,
    ``render_mode``, ``reward_per_card``, ``win_bonus``, ``illegal_action_penalty``,
    ``illegal_action``, ``backend``, ``max_steps_without_progress``, ``autoreset_mode`` and
    ``copy`` as ``FortyThievesVectorEnv``.

    ## Version History
    - v0: initial release (the ``vector_entry_point`` of ``FortyThieves/Family-v0``).
    """

    def __init__(
        self,
        variant: str | VariantSpec | None = None,
        num_envs: int = 1,
        *,
        sampler: RuleSetSampler | None = None,
        render_mode: str | None = None,
        reward_per_card: float = 1.0,
        win_bonus: float = 10.0,
        illegal_action_penalty: float = 0.1,
        illegal_action: Literal["penalize", "raise"] = "penalize",
        backend: Literal["auto", "numba"] = "auto",
        max_steps_without_progress: int | None = None,
        max_episode_steps: int | None = None,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        copy: bool = True,
    ) -> None:
        if variant is not None and sampler is not None:
            raise ValueError("pass variant= (one rule set) or sampler= (a sampler), not both")
        if sampler is not None and not isinstance(sampler, RuleSetSampler):
            raise TypeError(
                f"sampler must be a fortythieves_env.envs.family.RuleSetSampler, got "
                f"{type(sampler).__name__}"
            )
        self.variant = None if variant is None else FAMILY_BOUNDS.check(get_rule_set(variant))  # type: ignore[assignment]
        self.sampler: RuleSetSampler = TRAINING if sampler is None else sampler
        self.observation_version = LATEST_VERSION  # the rule sets' own observations
        self._configure(
            num_envs,
            render_mode=render_mode,
            reward_per_card=reward_per_card,
            win_bonus=win_bonus,
            illegal_action_penalty=illegal_action_penalty,
            illegal_action=illegal_action,
            backend=backend,
            max_steps_without_progress=max_steps_without_progress,
            max_episode_steps=max_episode_steps,
            autoreset_mode=autoreset_mode,
            copy=copy,
        )
        self.max_episode_steps = None if max_episode_steps is None else int(max_episode_steps)  # type: ignore[assignment]
        n = self.num_envs
        self.single_action_space = spaces.Discrete(N_SHARED)
        self.action_space = batch_space(self.single_action_space, n)
        self.single_observation_space = spaces.Box(
            low=0, high=FAMILY_LAYOUT.high(), shape=(FAMILY_LAYOUT.size,), dtype=np.uint8
        )
        self.observation_space = batch_space(self.single_observation_space, n)
        self._allocate(FAMILY_LAYOUT.size, N_SHARED, _MAX_STATE)
        self._own_masks = np.zeros((n, _OWN_MASK), dtype=np.int8)
        self._rule_sets: list[VariantSpec | None] = [None] * n  # each game's
        self._pending: list[VariantSpec | None] = [None] * n  # reset(options={"variant"})
        self._viewers: dict[VariantSpec, Any] = {}
        # the slots: one per rule set in play (and some kept after), shared by its games
        self._slots = np.zeros(n, dtype=np.int64)  # each game's slot
        self._slot_of: dict[VariantSpec, int] = {}
        self._slot_specs: list[VariantSpec | None] = []
        self._slot_games: list[int] = []  # how many games play each slot's rule set
        self._grow_slots(1)

    def _grow_slots(self, capacity: int) -> None:
        """Make room for ``capacity`` slots (the slots already filled are kept): each
        slot's table array, maps (``int16``: shared action -> own, -1 if none; own ->
        shared), action count and step limit."""
        old = len(self._slot_specs)
        for name, shape, dtype, fill in (
            ("_tables", (_MAX_TABLE,), np.int32, 0),
            ("_from_shared", (N_SHARED,), np.int16, -1),
            ("_to_shared", (N_SHARED,), np.int16, 0),
            ("_n_actions", (), np.int64, 0),
            ("_own_widths", (), np.int64, 0),
            ("_max_steps", (), np.int64, 0),
        ):
            new = np.full((capacity, *shape), fill, dtype=dtype)
            if old:
                new[:old] = getattr(self, name)
            setattr(self, name, new)
        self._slot_specs += [None] * (capacity - old)
        self._slot_games += [0] * (capacity - old)

    @property
    def rule_sets(self) -> tuple[VariantSpec | None, ...]:
        """Each game's rule set this episode (``None`` before the first ``reset``)."""
        return tuple(self._rule_sets)

    # ------------------------------------------------------------------ gymnasium API
    def reset(  # type: ignore[override]
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """As :meth:`FortyThievesVectorEnv.reset`, with ``options["variant"]`` too (see
        Starting State). Nothing changes when it raises.

        Raises:
            ValueError: as ``FortyThievesVectorEnv.reset``; an unknown rule set or one
                outside the bounds; a ``"variant"`` list of the wrong length; a ``"state"``
                without a rule set to read it by.
            TypeError, InvalidPositionError: as ``FortyThievesVectorEnv.reset``.
        """
        options = checked_options(options, ("state", "reset_mask", "variant"))
        pending = self._pending_rule_sets(options.pop("variant", None))
        self._pending = pending
        try:
            return super().reset(seed=seed, options=options)
        finally:
            self._pending = [None] * self.num_envs

    def _pending_rule_sets(self, value: Any) -> list[VariantSpec | None]:
        n = self.num_envs
        if value is None:
            return [None] * n
        if isinstance(value, str | VariantSpec):
            spec = FAMILY_BOUNDS.check(get_rule_set(value))
            return [spec] * n
        if not isinstance(value, Sequence) or len(value) != n:
            raise ValueError(
                f"options['variant'] must be one rule set (a spec or id) or a list of {n} "
                f"(one per game, None for the default), got {value!r}"
            )
        return [None if v is None else FAMILY_BOUNDS.check(get_rule_set(v)) for v in value]

    def _advance(self, acts: np.ndarray) -> int:
        """Step every game once (:func:`_step_family_batch`)."""
        return int(
            _step_family_batch(
                self.states,
                self._own_masks,
                self._obs,
                self._masks,
                acts,
                self._slots,
                self._tables,
                self._from_shared,
                self._to_shared,
                self._own_widths,
                self._max_steps,
                self._rewards,
                self._flags,
                self._counts,
                self._fparams,
                self._iparams,
            )
        )

    def _pick(self, out: np.ndarray) -> None:
        """:meth:`sample_legal`'s pick, from the own masks (:func:`_pick_legal_family`)."""
        _pick_legal_family(
            self._own_masks,
            self._slots,
            self._own_widths,
            self._to_shared,
            self._n_legal,
            self._uniforms,
            out,
        )

    # ------------------------------------------------------------------ extras
    def get_state(self, index: int) -> dict[str, Any]:
        """Game ``index``'s position in the rule book's format (a new dict; its
        ``"variant"`` is the rule set's id).

        Raises:
            TypeError, IndexError, RuntimeError: as ``FortyThievesVectorEnv.get_state``.
        """
        i = self._checked_index(index)
        return rules_for(self._spec(i)).to_position(self._game_state(i))

    def board_text(self, index: int) -> str:
        """Game ``index``'s board as text (``FortyThievesEnv.board_text``).

        Raises:
            TypeError, IndexError, RuntimeError: as :meth:`get_state`.
        """
        i = self._checked_index(index)
        spec = self._spec(i)
        viewer = self._viewers.get(spec)
        if viewer is None:
            from .env import FortyThievesEnv

            viewer = self._viewers[spec] = FortyThievesEnv(spec, backend="python")
        viewer.state = self._game_state(i)
        return viewer.board_text()

    # ------------------------------------------------------------------ internals
    def _spec(self, i: int) -> VariantSpec:
        spec = self._rule_sets[i]
        assert spec is not None  # every game of a started batch has one
        return spec

    def _game_state(self, index: int) -> GameState:
        i = self._checked_index(index)
        return family_tables(self._spec(i)).unpack(self.states[i])

    def _position_rules(self, i: int, position: Any) -> Rules:
        """The rules of game i's episode to read ``position`` by."""
        spec = self._pending[i] or self.variant
        if spec is None:
            name = position.get("variant") if isinstance(position, Mapping) else None
            if not isinstance(name, str):
                raise ValueError(
                    f"game {i}: options['state'] needs a rule set: pass options['variant'], "
                    "or a position with its 'variant' id"
                )
            spec = self._pending[i] = FAMILY_BOUNDS.check(get_rule_set(name))
        return rules_for(spec)

    def _deal(self, i: int, state: GameState | None) -> None:
        """Start game i: its rule set (chosen by ``reset``'s options, fixed, or drawn from
        its generator), then ``state`` or a new deal of its generator."""
        spec = self._pending[i] or self.variant
        if spec is None:
            spec = self.sampler.sample(self._rng(i))
        if spec != self._rule_sets[i]:
            self._play_rule_set(i, spec)
        if state is None:
            state = rules_for(spec).deal(self._rng(i))
        tables = family_tables(spec)
        st = self.states[i]
        st[:] = 0
        st[: tables.state_size] = tables.pack(state)
        slot = self._slots[i]
        n_legal = refresh_shared(
            st,
            self._tables[slot],
            self._obs[i],
            self._own_masks[i, : self._own_widths[slot]],
            self._masks[i],
            self._to_shared[slot, : self._n_actions[slot]],
        )
        self._started_game(i, state, n_legal)

    def _play_rule_set(self, i: int, spec: VariantSpec) -> None:
        """Game i plays ``spec`` from now: its slot (filled if new), and its shared
        observation row cleared but for the rule-set part."""
        old = self._rule_sets[i]
        if old is not None:
            self._slot_games[self._slots[i]] -= 1
        slot = self._slot_of.get(spec)
        if slot is None:
            slot = self._fill_slot(spec)
        self._slot_games[slot] += 1
        self._slots[i] = slot
        self._rule_sets[i] = spec
        self._obs[i] = 0
        self._obs[i, FAMILY_LAYOUT.rules] = rule_set_map(spec).features
        self._own_masks[i] = 0

    def _fill_slot(self, spec: VariantSpec) -> int:
        """A slot for ``spec``: one no game plays (the first), grown when there is none."""
        free = [k for k, games in enumerate(self._slot_games) if games == 0]
        if not free:
            self._grow_slots(min(2 * len(self._slot_specs), self.num_envs))
            free = [k for k, games in enumerate(self._slot_games) if games == 0]
        slot = free[0]
        old = self._slot_specs[slot]
        if old is not None:
            del self._slot_of[old]
        rule_map = rule_set_map(spec)
        table = family_tables(spec).table
        n = rule_map.to_shared.size
        self._tables[slot] = 0
        self._tables[slot, : table.size] = table
        self._from_shared[slot] = rule_map.from_shared
        self._to_shared[slot] = 0
        self._to_shared[slot, :n] = rule_map.to_shared
        self._n_actions[slot] = n
        self._own_widths[slot] = own_mask_size(n)
        self._max_steps[slot] = self.max_episode_steps or spec.max_episode_steps
        self._slot_specs[slot] = spec
        self._slot_of[spec] = slot
        return slot

    def _refuse(self, acts: np.ndarray, code: int) -> None:
        """Raise the error of :func:`_step_family_batch`'s negative return ``code``."""
        n = self.num_envs
        i = -1 - code
        if i < n:
            raise ValueError(
                f"action {int(acts[i])} of game {i} is outside the action space "
                f"Discrete({N_SHARED})"
            )
        i -= n
        a = int(acts[i])
        spec = self._spec(i)
        own = int(self._from_shared[self._slots[i], a])
        if own < 0:
            reason = lacking_reason(spec, a)
        else:
            reason = rules_for(spec).why_illegal(self._game_state(i), own)
        raise IllegalMoveError(
            f"game {i}: illegal move {FAMILY_CODEC.to_move(a)!r} (action {a}) in "
            f"{spec.name}: {reason}"
        )

    def __repr__(self) -> str:
        name = self.spec.id if self.spec is not None else "Family"
        return f"FamilyVectorEnv({name}, num_envs={self.num_envs})"
