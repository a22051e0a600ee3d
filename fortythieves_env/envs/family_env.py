"""One environment for the whole family: the shared encoding over the per-variant engine.

:class:`FamilyEnv` plays one rule set per episode (fixed, or drawn from the training
distribution) with that rule set's compiled rules (:mod:`..rules.core`, through its
:class:`~fortythieves_env.Rules` and table array) and translates: a shared action to the
rule set's own action, its action mask to the shared one. The compiled core writes the
shared observation itself (the rule set's table array is built for the shared layout).
The reward, the episode end, the no-progress count and the step limit are the episode
step of every environment (:func:`..rules.episode.episode_step`); the tests play every named
variant through both, move by move.
"""

from __future__ import annotations

import functools
import operator
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, Literal, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..rules.actions import COLUMN_TO_COLUMN
from ..rules.checks import checked_int, checked_options
from ..rules.core import FastTables, tables_for
from ..rules.engine import IllegalMoveError, InvalidPositionError, Rules, rules_for
from ..rules.episode import NOT_COUNTED, EpisodeMixin
from ..rules.observation import LATEST_VERSION
from ..rules.pysol import pysol_position
from ..rules.state import GameState
from ..rules.variants import VariantSpec
from ..rules.view import PlayerView, player_view
from . import _family_fast
from .env import checked_penalty, finite_reward
from .family import (
    FAMILY_BOUNDS,
    FAMILY_CODEC,
    FAMILY_LAYOUT,
    TRAINING,
    RuleSetMap,
    RuleSetSampler,
    get_rule_set,
    rule_set_map,
)

__all__ = ["FamilyEnv", "lacking_reason"]

_BOOLS = (bool, np.bool_)
_KEPT_RULE_SETS = 16
"""Rule sets whose compiled game a :class:`FamilyEnv` keeps (the most recently played)."""
_FD_START = FAMILY_LAYOUT.cards.face_down.start
"""Index of column 0's face-down count in the shared observation."""


def lacking_reason(spec: VariantSpec, action: int) -> str:
    """Why the rule set ``spec`` has no shared ``action``: a column it does not have, or
    more than one card moved without sequence moves; ``""`` if it has it."""
    if rule_set_map(spec).from_shared[action] >= 0:
        return ""
    kind, src, dst, n = FAMILY_CODEC.table[action]
    c = spec.n_columns
    if max(src, dst) >= c:
        return f"the rule set has {c} columns (t0..t{c - 1})"
    assert kind == COLUMN_TO_COLUMN and n > 1  # the only other actions a rule set lacks
    return "the rule set moves one card at a time (no sequence moves)"


def family_tables(spec: VariantSpec) -> FastTables:
    """The compiled tables of ``spec`` that write the shared observation (shared,
    read-only; :func:`fortythieves_env.rules.tables.tables_for` with the family's layout)."""
    return tables_for(spec, LATEST_VERSION, FAMILY_LAYOUT.cards)


class _Game:
    """One rule set's compiled game, kept by a :class:`FamilyEnv`: its rules, tables and
    maps, its state array and own mask, and the step bound to the env's shared buffers."""

    def __init__(self, spec: VariantSpec, obs: np.ndarray, mask: np.ndarray) -> None:
        self.spec = spec
        self.rules: Rules = rules_for(spec)
        self.map: RuleSetMap = rule_set_map(spec)
        self.tables = family_tables(spec)
        self.from_shared: list[int] = self.map.from_shared.tolist()  # the hot path's lookup
        self.st = np.zeros(self.tables.state_size, dtype=np.int16)
        self.own_mask = np.zeros(_family_fast.own_mask_size(self.rules.n_actions), dtype=np.int8)
        args = (self.st, self.tables.table, obs, self.own_mask, mask, self.map.to_shared)
        # step(n_legal, action): n_legal is the position's count of legal actions
        self.step: Callable[[int, int], int] = functools.partial(_family_fast.step, *args)
        self.refresh: Callable[[], int] = functools.partial(_family_fast.refresh, *args)

    def load(self, state: GameState) -> int:
        """Pack ``state`` (checked, not kept) and write the shared observation and mask;
        return the number of legal actions."""
        self.st[:] = self.tables.pack(state)
        return int(self.refresh())

    def position(self) -> GameState:
        """The position (unpacked: a new object)."""
        return self.tables.unpack(self.st)


class FamilyEnv(EpisodeMixin, gym.Env[np.ndarray, np.int64]):
    """Every game of the Forty Thieves family through one observation and one action space.

    ## Description
    Each episode is a game of one rule set (a :class:`~fortythieves_env.VariantSpec`): the
    one given as ``variant=``, or else one drawn per episode from ``sampler`` (the training
    distribution :data:`fortythieves_env.envs.family.TRAINING` by default, which never draws a
    held-out game). The game is that rule set's, played by the per-variant compiled rules;
    this environment translates actions and the mask through the shared encoding of
    :mod:`fortythieves_env.envs.family`. A named variant played here gives the same games as its
    own id (``tests/env/test_family.py`` checks all nine, move by move: legal moves,
    rewards, episode ends and positions).

    ## Action Space
    ``Discrete(2057)``: the actions of a 13-column variant with sequence moves
    (:data:`~fortythieves_env.envs.family.FAMILY_CODEC`: the formula of
    :mod:`fortythieves_env.rules.actions` with ``C = 13``, ``M = 13``), in the rule book's move
    notation (:meth:`action_to_move`). A move of the rule set is the shared action of the
    same move. The actions it lacks (columns beyond its own, ``xN`` without sequence moves)
    are masked out and illegal in it: ``illegal_action`` applies to them.

    ## Observation Space
    ``Box(0, high, shape=(501,), dtype=uint8)``: the position laid out as a 13-column
    variant's observation (version 1: the stock's order once a redeal has shown it), then
    24 entries that state the rule set (columns, cards dealt down and up, build rule,
    sequence moves, empty-column rule, cards per draw, redeals, Aces out, which columns
    exist). Index table in :class:`~fortythieves_env.envs.family.FamilyLayout`.

    ## Starting State
    ``reset(seed=n)`` seeds ``np_random``; with ``variant=`` fixed, the deal is the one
    ``FortyThievesEnv(variant).reset(seed=n)`` deals, and later resets continue the same
    generator, as there. Without ``variant=`` the rule set is drawn first
    (:meth:`~fortythieves_env.envs.family.RuleSetSampler.sample`), then the deal, from the same
    generator. ``reset(options=...)`` takes:

    - ``"variant"``: this episode's rule set (a spec, a variant or held-out game id, or a
      rule-set id; :func:`~fortythieves_env.envs.family.get_rule_set`);
    - ``"state"``: a rule-book position to start from, read by the rule set
      ``"variant"``, else ``variant=``, else the position's own ``"variant"`` id; refused
      (:class:`~fortythieves_env.InvalidPositionError`, nothing changes, not even the
      seed) as ``FortyThievesEnv`` refuses it;
    - ``"pysol_deal"``: PySolFC's game number N (named variants only, as
      ``FortyThievesEnv``).

    ## Rewards
    As ``FortyThievesEnv``: ``reward_per_card`` per card put on a foundation,
    ``win_bonus`` on top for the last one, ``-illegal_action_penalty`` for an illegal
    action (an action the rule set lacks included), 0 otherwise.

    ## Episode End
    - Termination: won, or no legal move left (as ``FortyThievesEnv``).
    - Truncation: after the rule set's ``max_episode_steps`` steps (1000; 1500 with
      redeals), or ``max_episode_steps=`` when given; every ``step`` counts, illegal ones
      too, as Gymnasium's ``TimeLimit`` counts. The environment counts itself because the
      limit changes with the rule set, so ``FortyThieves/Family-v0`` is registered without
      a ``TimeLimit``. With ``max_steps_without_progress=K``, also after K steps in a row
      without progress (as ``FortyThievesEnv``). A step that both ends the game and
      reaches the limit returns ``terminated=True`` and ``truncated=True``.

    ## Information
    As ``FortyThievesEnv``: ``"action_mask"`` (the shared mask, ``int8 (2057,)``, a new
    array), ``"foundation_cards"``, ``"is_success"``, ``"illegal_action"``; ``reset`` adds
    ``"variant"``, the rule set's id (:attr:`rule_set` is its spec).

    ## Arguments
    ```python
    import gymnasium as gym
    import fortythieves_env

    env = gym.make("FortyThieves/Family-v0")                       # training rule sets
    env = gym.make("FortyThieves/Family-v0", variant="Josephine")  # one held-out game
    ```

    - ``variant``: ``None`` (default: a rule set drawn per episode), or a spec or id
      (:func:`~fortythieves_env.envs.family.get_rule_set`) inside
      :data:`~fortythieves_env.envs.family.FAMILY_BOUNDS`, played every episode.
    - ``sampler``: a :class:`~fortythieves_env.envs.family.RuleSetSampler` (default
      :data:`~fortythieves_env.envs.family.TRAINING`); not with ``variant``.
    - ``max_episode_steps``: ``None`` (the rule set's) or a positive integer.
    - ``render_mode`` (``None``, ``"ansi"``, ``"rgb_array"``), ``reward_per_card``,
      ``win_bonus``, ``illegal_action_penalty``, ``illegal_action`` (``"penalize"`` or
      ``"raise"``), ``max_steps_without_progress``: as ``FortyThievesEnv``.
    - ``backend``: ``"auto"`` or ``"numba"`` (compiled only).

    Construction raises ``ValueError`` for a bad argument or a ``variant`` outside the
    bounds or unknown (one line naming it and the allowed values), ``TypeError`` for a
    ``sampler`` that is not a :class:`~fortythieves_env.envs.family.RuleSetSampler`.

    ## Version History
    - v0: initial release.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        variant: str | VariantSpec | None = None,
        sampler: RuleSetSampler | None = None,
        render_mode: str | None = None,
        reward_per_card: float = 1.0,
        win_bonus: float = 10.0,
        illegal_action_penalty: float = 0.1,
        illegal_action: Literal["penalize", "raise"] = "penalize",
        backend: Literal["auto", "numba"] = "auto",
        max_steps_without_progress: int | None = None,
        max_episode_steps: int | None = None,
    ) -> None:
        if variant is not None and sampler is not None:
            raise ValueError("pass variant= (one rule set) or sampler= (a sampler), not both")
        if sampler is not None and not isinstance(sampler, RuleSetSampler):
            raise TypeError(
                f"sampler must be a fortythieves_env.envs.family.RuleSetSampler, got "
                f"{type(sampler).__name__}"
            )
        self.variant: VariantSpec | None = (
            None if variant is None else FAMILY_BOUNDS.check(get_rule_set(variant))
        )
        self.sampler: RuleSetSampler = TRAINING if sampler is None else sampler
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        if illegal_action not in ("penalize", "raise"):
            raise ValueError(
                f"illegal_action must be 'penalize' or 'raise', got {illegal_action!r}"
            )
        if backend not in ("auto", "numba"):
            raise ValueError(
                f"backend must be 'auto' or 'numba' (FamilyEnv is compiled only), got {backend!r}"
            )
        for name, value in (
            ("max_steps_without_progress", max_steps_without_progress),
            ("max_episode_steps", max_episode_steps),
        ):
            if value is not None:
                checked_int(name, value, 1, or_none=True)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.backend = "numba"
        self.reward_per_card = finite_reward("reward_per_card", reward_per_card)
        self.win_bonus = finite_reward("win_bonus", win_bonus)
        self.illegal_action_penalty = checked_penalty(illegal_action_penalty)
        self.max_steps_without_progress = (
            None if max_steps_without_progress is None else int(max_steps_without_progress)
        )
        self.max_episode_steps = None if max_episode_steps is None else int(max_episode_steps)
        self.action_space = spaces.Discrete(FAMILY_CODEC.n_actions)
        self.observation_space = spaces.Box(
            low=0, high=FAMILY_LAYOUT.high(), shape=(FAMILY_LAYOUT.size,), dtype=np.uint8
        )
        self._obs = np.zeros(FAMILY_LAYOUT.size, dtype=np.uint8)
        self._mask = np.zeros(FAMILY_CODEC.n_actions, dtype=np.int8)
        self._moves = FAMILY_CODEC.table  # what the progress rule reads of a shared action
        self._fd_start = _FD_START
        self._games: OrderedDict[VariantSpec, _Game] = OrderedDict()
        self._game: _Game | None = None  # this episode's
        self._step: Callable[[int, int], int] | None = None  # its compiled step
        self._viewers: dict[VariantSpec, Any] = {}  # render and board_text
        self._clear_counts()

    def _clear_counts(self) -> None:
        self._n_legal = 0  # legal actions in the position
        self._fcards = 0  # cards on the foundations
        self._idle = 0  # steps in a row without progress
        self._elapsed = 0  # steps this episode (TimeLimit's count)
        self._max_steps = 0

    # ------------------------------------------------------------------ the rule set
    @property
    def rule_set(self) -> VariantSpec | None:
        """This episode's rule set (``None`` before the first ``reset``)."""
        return None if self._game is None else self._game.spec

    def _game_for(self, spec: VariantSpec) -> _Game:
        """The kept compiled game of ``spec`` (made on first use; the last
        :data:`_KEPT_RULE_SETS` are kept)."""
        game = self._games.get(spec)
        if game is None:
            game = self._games[spec] = _Game(spec, self._obs, self._mask)
            if len(self._games) > _KEPT_RULE_SETS:
                self._games.popitem(last=False)
        else:
            self._games.move_to_end(spec)
        return game

    def _current(self) -> _Game:
        if self._game is None:
            raise RuntimeError("call reset() first")
        return self._game

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode (see Starting State).

        Args:
            seed: None, or a non-negative integer that seeds ``np_random`` (NumPy integers
                too, not ``bool``).
            options: None, or a dict with ``"variant"``, ``"state"``, ``"pysol_deal"``.

        Raises:
            ValueError: a bad seed or option; an unknown rule set or one outside the
                bounds; a ``"state"`` without a rule set to read it by; ``"state"`` with
                ``"pysol_deal"``; no PySolFC deal for the rule set.
            InvalidPositionError: ``options["state"]`` is not a position of the rule set,
                or its game is over; nothing changes then, not even the seed.
            TypeError: ``options`` is not a dict.
            ImportError: ``"pysol_deal"`` without the ``pysol-cards`` package.
        """
        if seed is not None:
            seed = checked_int("seed", seed, 0, or_none=True)
        options = checked_options(options, ("variant", "state", "pysol_deal"))
        spec = self._episode_rule_set(options)
        position = options.get("state")
        if "pysol_deal" in options:
            assert spec is not None
            position = pysol_position(spec, options["pysol_deal"])
        state: GameState | None = None
        if position is not None:
            assert spec is not None
            rules = rules_for(spec)
            state = rules.from_position(position)  # checked (and copied) first
            if not rules.legal_actions(state):
                raise InvalidPositionError(
                    f"invalid {spec.id} position: the game is already over "
                    f"({'won' if rules.is_won(state) else 'no legal move'}); "
                    "reset needs a position with a move to play"
                )
        super().reset(seed=seed)
        if spec is None:
            spec = self.sampler.sample(self.np_random)
        if state is None:
            state = rules_for(spec).deal(self.np_random)
        self._start(spec, state)
        info = self._info(False)
        info["variant"] = spec.id
        return self._obs.copy(), info

    def _episode_rule_set(self, options: dict[str, Any]) -> VariantSpec | None:
        """The rule set that ``options`` (or ``variant=``) fix; None: draw one."""
        if "state" in options and "pysol_deal" in options:
            raise ValueError("reset options 'state' and 'pysol_deal' exclude each other")
        if "variant" in options:
            return FAMILY_BOUNDS.check(get_rule_set(options["variant"]))
        if self.variant is not None:
            return self.variant
        if "pysol_deal" in options:
            raise ValueError(
                "options['pysol_deal'] needs a named variant: pass options['variant'] too "
                "(or make the env with variant=)"
            )
        if "state" in options:
            position = options["state"]
            name = position.get("variant") if isinstance(position, Mapping) else None
            if not isinstance(name, str):
                raise ValueError(
                    "options['state'] needs a rule set: pass options['variant'], or a "
                    "position with its 'variant' id"
                )
            return FAMILY_BOUNDS.check(get_rule_set(name))
        return None

    def _start(self, spec: VariantSpec, state: GameState) -> None:
        """Start the episode of ``spec`` at ``state`` (checked; not kept)."""
        game = self._game_for(spec)
        self._obs.fill(0)  # the entries the rule set lacks stay 0
        self._obs[FAMILY_LAYOUT.rules] = game.map.features
        self._clear_counts()
        self._n_legal = game.load(state)
        self._fcards = state.foundation_cards
        self._max_steps = self.max_episode_steps or spec.max_episode_steps
        self._game = game
        self._step = game.step

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play one shared action.

        Raises:
            ValueError: ``action`` is not an integer in ``range(2057)``.
            IllegalMoveError: the action is illegal in the rule set (or lacking in it) and
                ``illegal_action="raise"``; the message names the move and why.
            RuntimeError: ``step`` before ``reset``.
        """
        if type(action) is int:  # the common case, checked quickly
            a = action
        else:
            try:
                if isinstance(action, _BOOLS):
                    raise TypeError
                a = operator.index(action)
            except TypeError:
                raise ValueError(f"action must be an integer, got {action!r}") from None
        n = FAMILY_CODEC.n_actions
        if not 0 <= a < n:
            raise ValueError(f"action {a} is outside the action space Discrete({n})")
        game = self._game
        if game is None:
            raise RuntimeError("call reset() before step()")
        own = game.from_shared[a]
        if self.illegal_action == "raise" and not self._mask[a]:
            self._raise_illegal(game, a, own)
        before = self._before_move(a) if self.max_steps_without_progress else NOT_COUNTED
        # an action the rule set lacks is refused, as an illegal one
        packed = self._step(self._n_legal, own) if own >= 0 else -1  # type: ignore[misc]
        return self._end_step(packed, before)

    def _raise_illegal(self, game: _Game, action: int, own: int) -> None:
        spec = game.spec
        if own < 0:
            reason = lacking_reason(spec, action)
        else:
            reason = game.rules.why_illegal(game.position(), own)
        raise IllegalMoveError(
            f"illegal move {FAMILY_CODEC.to_move(action)!r} (action {action}) in "
            f"{spec.name}: {reason}"
        )

    def render(self) -> str | np.ndarray | None:
        """The board as text (``render_mode="ansi"``), as a picture (``"rgb_array"``, as
        ``FortyThievesEnv``), else ``None``.

        Raises:
            RuntimeError: ``"rgb_array"`` before ``reset``.
        """
        if self.render_mode == "rgb_array":
            game = self._game
            if game is None:
                raise RuntimeError("call reset() before render() (no game to draw yet)")
            from .drawing import render_rgb  # Pillow, imported on first use

            return render_rgb(game.spec, self.player_view())
        if self.render_mode != "ansi":
            return None
        return self.board_text()

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict[str, Any]:
        d = self.__dict__.copy()
        # The compiled games are made again on the way back (their steps are bound to the
        # buffers); only this episode's position travels.
        for key in ("_games", "_game", "_step", "_viewers", "_moves"):
            del d[key]
        game = self._game
        d["_position"] = None if game is None else (game.spec, game.position())
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        d = dict(d)
        position = d.pop("_position")
        self.__dict__.update(d)
        self._games = OrderedDict()
        self._game = None
        self._step = None
        self._viewers = {}
        self._moves = FAMILY_CODEC.table
        self._fd_start = _FD_START
        self.__dict__.pop("_last_foundation_cards", None)  # pickled before the episode step
        if position is not None:
            spec, state = position
            game = self._game = self._game_for(spec)
            self._step = game.step
            game.load(state)  # rewrites the shared observation and mask, already restored

    # ------------------------------------------------------------------ extras
    def action_masks(self) -> np.ndarray:
        """Legal shared actions: ``int8``, shape ``(2057,)``, 1 where legal (a copy). The
        name ``sb3_contrib.MaskablePPO`` looks up."""
        return self._mask.copy()

    def legal_moves(self) -> list[str]:
        """The legal moves in the rule book's notation, in shared action order."""
        return [FAMILY_CODEC.to_move(a) for a in np.flatnonzero(self._mask).tolist()]

    def action_to_move(self, action: int) -> str:
        """Move notation of a shared action, e.g. ``"t2>t0x3"``.

        Raises:
            ValueError: ``action`` is not in ``range(2057)``.
        """
        return FAMILY_CODEC.to_move(action)

    def move_to_action(self, move: str) -> int:
        """The shared action of a move in the rule book's notation (columns ``t0..t12``,
        ``xN`` up to 13).

        Raises:
            ValueError: ``move`` is malformed or out of the shared range.
        """
        return FAMILY_CODEC.from_move(move)

    @property
    def state(self) -> GameState | None:
        """This episode's position: a new :class:`~fortythieves_env.GameState` of the rule
        set on each read (``None`` before ``reset``)."""
        return None if self._game is None else self._game.position()

    def get_state(self) -> dict[str, Any]:
        """The position in the rule book's format (its ``"variant"`` is the rule set's id).

        Raises:
            RuntimeError: before ``reset``.
        """
        game = self._current()
        return game.rules.to_position(game.position())

    def player_view(self) -> PlayerView:
        """What a player knows of the position (:func:`fortythieves_env.rules.view.player_view`).

        Raises:
            RuntimeError: before ``reset``.
        """
        game = self._current()
        return player_view(game.rules, game.position())

    def board_text(self) -> str:
        """The board as text (``FortyThievesEnv.board_text`` of the rule set)."""
        game = self._game
        if game is None:
            return "(no game: call reset())"
        viewer = self._viewers.get(game.spec)
        if viewer is None:
            from .env import FortyThievesEnv

            viewer = self._viewers[game.spec] = FortyThievesEnv(game.spec, backend="python")
        viewer.state = game.position()
        return viewer.board_text()
