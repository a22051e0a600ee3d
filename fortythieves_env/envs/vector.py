"""A batched vector environment: N games stepped by one compiled call per step.

:class:`FortyThievesVectorEnv` is a Gymnasium :class:`~gymnasium.vector.VectorEnv` whose N
games live in one ``int16`` state array ``states[N, state_size]`` (the packed position of
:mod:`..rules.core`, one row per game), with their observations ``obs[N, size]`` (``uint8``) and
action masks ``masks[N, n]`` (``int8``) in two more arrays. :func:`_step_batch` loops over
the batch inside numba and calls :func:`..rules.core.step` for each game, so the rules are the
single environment's compiled rules, not a second implementation. Python only runs for
the games that start a new deal (a shuffle with the game's own generator, exactly as
:class:`~fortythieves_env.FortyThievesEnv` deals), which is rare: about once every few
hundred steps per game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..rules.cards import N_CARDS
from ..rules.checks import checked_int, checked_options, is_int
from ..rules.core import refresh, tables_for
from ..rules.engine import (
    GameState,
    IllegalMoveError,
    InvalidPositionError,
    Rules,
    rules_for,
)
from ..rules.observation import LATEST_VERSION, check_version
from ..rules.variants import VariantSpec, get_variant
from .env import checked_penalty, finite_reward
from .registration import CheckedSpec
from .vector_step import (
    _INFO_KEYS,
    _INT64_MAX,
    C_ELAPSED,
    C_FCARDS,
    C_IDLE,
    C_NLEGAL,
    F_AUTORESET,
    F_DEAL,
    F_ILLEGAL,
    F_SUCCESS,
    F_TERM,
    F_TRUNC,
    P_MAX_IDLE,
    P_MAX_STEPS,
    P_RAISE,
    P_SAME_STEP,
    _pick_legal,
    _step_batch,
)

__all__ = ["FortyThievesVectorEnv"]


def _read_only(a: np.ndarray) -> np.ndarray:
    view = a.view()
    view.flags.writeable = False
    return view


class FortyThievesVectorEnv(VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """N games of one Forty Thieves variant, stepped together by one compiled call per step.

    ## Description
    The game of :class:`~fortythieves_env.FortyThievesEnv` (same rules, deals, observations,
    masks, rewards and step limits), ``num_envs`` games at a time. For the same seeds and
    actions it gives exactly the trajectories of ``gymnasium.vector.SyncVectorEnv`` over
    ``gymnasium.make(id, **kwargs)`` single environments (their ``TimeLimit`` included), in
    both autoreset modes, observations, rewards, flags and ``info`` alike;
    ``tests/env/test_vector_env.py`` checks it for all nine variants. The positions are one
    ``int16`` array ``states[N, state_size]`` (the packed layout of
    :mod:`fortythieves_env.core`); each step is one numba call that loops over the games
    and, for each, applies the move and rewrites its observation row and mask row in place.
    Python only runs for the games that start a new deal (rare: once per episode), so a
    step costs no Python work per game.

    ## Action Space
    ``MultiDiscrete([n] * N)``: one action per game, each as in ``FortyThievesEnv``
    (``single_action_space`` is its ``Discrete(n)``). ``step`` takes any integer array of
    shape ``(N,)`` (or a list). :meth:`sample_legal` draws a uniform legal action per game.

    ## Observation Space
    ``Box(0, high, shape=(N, size), dtype=uint8)``: row i is game i's observation, laid out
    as in ``FortyThievesEnv`` (``single_observation_space``; ``self.layout`` has the slices).

    ## Starting State
    ``reset(seed=s)`` deals game i the deal of ``FortyThievesEnv.reset(seed=s + i)``; a list
    of N seeds (``int`` or ``None``, or a 1-D integer array) gives one per game, as
    ``SyncVectorEnv`` does. Each game
    keeps its own generator (``np_random`` is the tuple of them), so a game's next deals
    continue from its seed, exactly as a single environment's autoresets do.
    ``reset(seed=None)`` continues each generator (or seeds it from the OS entropy the first
    time). :meth:`set_autoreset_seeds` chooses the seed of a game's next automatic reset
    instead (a caller that draws its own deal seeds, as ``fortythieves_agents.envs.BatchedVecEnv``).

    ``reset(options=...)`` takes:

    - ``"state"``: a rule-book position for every game, or a sequence of N items each a
      position or ``None`` (a deal), e.g. ``[pos, None, None]``. Each is checked first
      (:class:`~fortythieves_env.InvalidPositionError` naming the game, nothing changes);
      the seeds still apply, so later deals follow from them.
    - ``"reset_mask"``: a ``bool`` array of shape ``(N,)``: reset only those games (as
      Gymnasium 1.x's vector envs); the others keep playing, and ``info`` holds entries only
      for the games reset (its ``_key`` masks say which).

    ## Rewards
    As ``FortyThievesEnv``: ``reward_per_card`` per card put on a foundation, ``win_bonus``
    on a win, ``-illegal_action_penalty`` for an illegal action; ``float64``, shape ``(N,)``.
    In next-step mode the step that resets a game gives it reward 0.

    ## Episode End
    Per game, ``terminated`` (``bool``, shape ``(N,)``) on a win or when no legal move is
    left; ``truncated`` after ``max_episode_steps`` steps (counted as ``TimeLimit`` counts
    them: every ``step`` call, illegal ones included; a game can be terminated and
    truncated at once, as with ``TimeLimit``) or, with ``max_steps_without_progress=K``,
    after K steps in a row without progress (see ``FortyThievesEnv``).

    A game that ends is reset automatically, as ``metadata["autoreset_mode"]`` says:

    - ``"NextStep"`` (``AutoresetMode.NEXT_STEP``, Gymnasium's default): the step that
      ends a game returns its last observation; the game's action on the next step is
      ignored (it is not checked either) and that step returns the new deal's observation
      with reward 0, ``terminated = truncated = False`` and the reset ``info``.
    - ``"SameStep"`` (``AutoresetMode.SAME_STEP``): the step that ends a game returns the
      new deal's observation and reset ``info``, with the last observation in
      ``info["final_obs"]`` (an ``object`` array of N entries, ``None`` for games that did
      not end, and ``info["_final_obs"]``) and the last step's info in
      ``info["final_info"]`` (a dict of arrays, and ``info["_final_info"]``). These keys
      are present only on steps where some game ended, as in ``SyncVectorEnv``.

    ``"Disabled"`` is not offered (``ValueError``).

    ## Information
    Gymnasium 1.x's vector convention: each key holds an array over the games, with a
    ``bool`` mask ``info["_key"]`` of the games that have it (all of them after ``step``
    and a full ``reset``; the reset games after a ``reset_mask`` reset):

    - ``"action_mask"``: ``int8``, shape ``(N, n)``, 1 where legal.
    - ``"foundation_cards"``: ``int64``, shape ``(N,)``, cards on the foundations (0..104).
    - ``"is_success"``: ``bool``, shape ``(N,)``, True once the game is won.
    - ``"illegal_action"``: ``bool``, shape ``(N,)``, True where the action was illegal.

    plus ``"final_obs"`` and ``"final_info"`` in same-step mode (see Episode End).
    :meth:`action_masks` returns the masks (``int8``, ``(N, n)``, a copy) for
    ``sb3_contrib``-style callers.

    **Copies or views.** With ``copy=True`` (the default, as ``SyncVectorEnv``)
    ``reset``/``step`` return new arrays each call. With ``copy=False`` the observation and
    the ``info`` arrays are read-only views of the environment's buffers (the rewards and
    flags are still copies): valid until the next ``step`` or ``reset``, which overwrite
    them. It saves copying ``N * (size + n)`` bytes per step (300 KB for 256 games of
    Number Ten): measured in CPU time at N = 256, the copies are 2-3% of a step (2 us of
    130 us for Forty Thieves, 9 us of 340 us for Number Ten), so copies stay the default.

    ## Arguments
    ```python
    import gymnasium as gym
    import fortythieves_env

    envs = gym.make_vec("FortyThieves/Maria-v0", num_envs=64,
                        vectorization_mode="vector_entry_point")
    envs = fortythieves_env.FortyThievesVectorEnv("Maria", num_envs=64,
                                                  autoreset_mode="SameStep")
    ```

    - ``variant``: variant id or :class:`~fortythieves_env.VariantSpec`.
    - ``num_envs``: N, the number of games (a positive ``int``).
    - ``reward_per_card``, ``win_bonus``, ``illegal_action_penalty``,
      ``max_steps_without_progress``: as ``FortyThievesEnv``.
    - ``illegal_action``: ``"penalize"`` (default) or ``"raise"``: an illegal action in any
      game raises :class:`~fortythieves_env.IllegalMoveError` naming the game and the move,
      before any game moves (``SyncVectorEnv`` would have stepped the games before it).
      An action out of range (or an array of the wrong shape or type) raises ``ValueError``,
      also before any game moves.
    - ``render_mode``: ``None`` or ``"ansi"``: :meth:`render` returns a tuple of N board
      texts (``FortyThievesEnv.board_text``), as ``SyncVectorEnv`` returns one frame per
      game; with ``None`` it returns ``None``.
    - ``backend``: ``"auto"`` or ``"numba"`` (the same thing here: the vector env is
      compiled only); ``"python"`` raises ``ValueError`` (use ``SyncVectorEnv`` over
      ``gym.make(id, backend="python")``).
    - ``max_episode_steps``: the step limit (``TimeLimit``'s); ``None`` (default) means the
      variant's :attr:`~fortythieves_env.VariantSpec.max_episode_steps`, as
      ``gymnasium.make`` does. ``make_vec`` passes the registered limit.
    - ``autoreset_mode``: ``"NextStep"`` (default) or ``"SameStep"`` (a string or an
      :class:`~gymnasium.vector.AutoresetMode`).
    - ``copy``: ``True`` (default) to return new arrays, ``False`` for views (see
      Information).
    - ``observation_version``: as ``FortyThievesEnv`` (default 1; ``-v0`` ids pass 0).

    ## Version History
    - v1: the observation of ``FortyThievesEnv`` v1 (the known stock order); the
      ``vector_entry_point`` of ``FortyThieves/LittleForty-v1`` (and custom ``-v1`` ids).
    - v0: initial release (the ``vector_entry_point`` of every ``FortyThieves/*-v0`` id).
    """

    spec = CheckedSpec()  # type: ignore[assignment]  # refuses a version contradicting the id
    metadata: dict[str, Any] = {  # noqa: RUF012  (per instance: set again in __init__)
        "render_modes": ["ansi"],
        "render_fps": 4,
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

    def __init__(
        self,
        variant: str | VariantSpec = "FortyThieves",
        num_envs: int = 1,
        *,
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
        observation_version: int = LATEST_VERSION,
    ) -> None:
        self.variant = spec = get_variant(variant)
        self.observation_version = check_version(observation_version)
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
        n = self.num_envs
        self.max_episode_steps = (
            spec.max_episode_steps if max_episode_steps is None else int(max_episode_steps)
        )
        self._iparams[P_MAX_STEPS] = self.max_episode_steps

        self.rules = rules = rules_for(spec)
        self.tables = tables = tables_for(spec, observation_version)
        self.layout = layout = tables.layout
        n_actions = rules.n_actions
        self.single_action_space = spaces.Discrete(n_actions)
        self.action_space = batch_space(self.single_action_space, n)
        self.single_observation_space = spaces.Box(
            low=0, high=layout.high(spec), shape=(layout.size,), dtype=np.uint8
        )
        self.observation_space = batch_space(self.single_observation_space, n)
        self._allocate(layout.size, n_actions, tables.state_size)

    def _configure(
        self,
        num_envs: int,
        *,
        render_mode: str | None,
        reward_per_card: float,
        win_bonus: float,
        illegal_action_penalty: float,
        illegal_action: str,
        backend: str,
        max_steps_without_progress: int | None,
        max_episode_steps: int | None,
        autoreset_mode: str | AutoresetMode,
        copy: bool,
    ) -> None:
        """Check the arguments that do not depend on the variant (see Arguments) and set
        them, with the parameter arrays of the kernel (``P_MAX_STEPS`` is left 0: the
        caller sets it). Shared with the family's batch
        (:class:`~fortythieves_env.envs.family_vector.FamilyVectorEnv`).

        Raises:
            ValueError: a bad argument, as listed under Arguments.
        """
        num_envs = checked_int("num_envs", num_envs, 1)
        if render_mode is not None and render_mode != "ansi":
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        if illegal_action not in ("penalize", "raise"):
            raise ValueError(
                f"illegal_action must be 'penalize' or 'raise', got {illegal_action!r}"
            )
        if backend == "python":
            raise ValueError(
                f"{type(self).__name__} is compiled only (backend 'auto' or 'numba'); for the "
                "Python backend use gymnasium.vector.SyncVectorEnv over "
                "gymnasium.make(id, backend='python')"
            )
        if backend not in ("auto", "numba"):
            raise ValueError(f"backend must be 'auto' or 'numba', got {backend!r}")
        for name, value in (
            ("max_steps_without_progress", max_steps_without_progress),
            ("max_episode_steps", max_episode_steps),
        ):
            if value is not None:
                checked_int(name, value, 1, or_none=True)
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            mode = None
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise ValueError(
                "autoreset_mode must be 'NextStep' or 'SameStep' (or AutoresetMode.NEXT_STEP "
                f"/ SAME_STEP), got {autoreset_mode!r}"
            )
        if not isinstance(copy, bool):
            raise ValueError(f"copy must be True or False, got {copy!r}")

        self.num_envs = int(num_envs)
        self.render_mode = render_mode
        self.autoreset_mode = mode
        self.metadata = {"render_modes": ["ansi"], "render_fps": 4, "autoreset_mode": mode}
        self.copy = copy
        self.reward_per_card = finite_reward("reward_per_card", reward_per_card)
        self.win_bonus = finite_reward("win_bonus", win_bonus)
        self.illegal_action_penalty = checked_penalty(illegal_action_penalty)
        self.illegal_action = illegal_action
        self.backend = "numba"
        self.max_steps_without_progress = (
            None if max_steps_without_progress is None else int(max_steps_without_progress)
        )
        self._fparams = np.array(
            [self.reward_per_card, self.win_bonus, self.illegal_action_penalty], dtype=np.float64
        )
        self._iparams = np.zeros(4, dtype=np.int64)
        self._iparams[P_RAISE] = illegal_action == "raise"
        self._iparams[P_SAME_STEP] = mode == AutoresetMode.SAME_STEP
        self._iparams[P_MAX_IDLE] = self.max_steps_without_progress or 0

    def _allocate(self, obs_size: int, n_actions: int, state_size: int) -> None:
        """Allocate the batch: one row per game, reused by every step (the state
        ``int16 (N, state_size)``, the observations ``uint8 (N, obs_size)``, the masks
        ``int8 (N, n_actions)``, rewards, flags, counts), the generators and the ``info``
        arrays and views."""
        n = self.num_envs
        self.states = np.zeros((n, state_size), dtype=np.int16)
        self._obs = np.zeros((n, obs_size), dtype=np.uint8)
        self._masks = np.zeros((n, n_actions), dtype=np.int8)
        self._rewards = np.zeros(n, dtype=np.float64)
        self._flags = np.zeros((6, n), dtype=np.bool_)
        self._counts = np.zeros((4, n), dtype=np.int64)
        self._uniforms = np.zeros(n, dtype=np.float64)
        self._rngs: list[np.random.Generator | None] = [None] * n
        self._seeds: list[int | None] = [None] * n
        self._started = False
        # the info arrays (rows of the arrays above), and for copy=False the same
        # read-only views of them every step
        self._info_arrays = {
            "action_mask": self._masks,
            "foundation_cards": self._counts[C_FCARDS],
            "is_success": self._flags[F_SUCCESS],
            "illegal_action": self._flags[F_ILLEGAL],
        }
        self._all_true = np.ones(n, dtype=np.bool_)
        self._view_info: dict[str, Any] = {}
        for key, array in self._info_arrays.items():
            self._view_info[key] = _read_only(array)
            self._view_info[f"_{key}"] = _read_only(self._all_true)
        self._obs_view = _read_only(self._obs)
        self._term, self._trunc = self._flags[F_TERM], self._flags[F_TRUNC]
        self._n_legal = self._counts[C_NLEGAL]
        self._sample_rng: np.random.Generator | None = None  # sample_legal's default
        self._autoreset_seeds: list[int | None] = [None] * n  # set_autoreset_seeds
        self._viewer: Any = None  # render: a FortyThievesEnv that draws one position

    # ------------------------------------------------------------------ seeding
    @property
    def np_random(self) -> tuple[np.random.Generator, ...]:  # type: ignore[override]
        """Each game's generator (as ``SyncVectorEnv.np_random``); unseeded ones get one."""
        return tuple(self._rng(i) for i in range(self.num_envs))

    @property
    def np_random_seed(self) -> tuple[int | None, ...]:  # type: ignore[override]
        """Each game's seed (as ``SyncVectorEnv.np_random_seed``)."""
        self.np_random  # noqa: B018  (seeds the unseeded games, as a single env does)
        return tuple(self._seeds)

    def _rng(self, i: int) -> np.random.Generator:
        rng = self._rngs[i]
        if rng is None:
            rng, self._seeds[i] = seeding.np_random()
            self._rngs[i] = rng
        return rng

    # ------------------------------------------------------------------ gymnasium API
    def reset(  # type: ignore[override]
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal new games (all, or ``options["reset_mask"]``'s), see Starting State.
        Nothing changes when ``reset`` raises.

        Returns:
            ``(obs, info)``: ``obs`` ``uint8`` of shape ``(N, size)`` (every game's row, the
            games not reset included), ``info`` as in Information.

        Raises:
            TypeError: ``options`` is not a dict (or None).
            ValueError: a bad seed (not a non-negative ``int``, or a list of the wrong
                length), an unknown option, a bad ``reset_mask`` (not a ``bool`` array of
                shape ``(N,)``, all False, or not all True on the first reset), a
                ``state`` list of the wrong length.
            InvalidPositionError: ``options["state"]`` holds an invalid position, or one
                with no move to play (the message names the game).
        """
        seeds = self._seeds_for(seed)
        options = checked_options(options, ("state", "reset_mask"))
        which = self._reset_mask(options.get("reset_mask"))
        positions = self._positions(options.get("state"), which)
        for i in np.flatnonzero(which).tolist():
            if seeds[i] is not None:
                self._rngs[i], self._seeds[i] = seeding.np_random(seeds[i])
            self._deal(i, positions[i])
        flags = self._flags
        flags[F_TERM, which] = False
        flags[F_TRUNC, which] = False
        flags[F_AUTORESET, which] = False
        self._rewards[which] = 0.0
        self._started = True
        if which.all():
            info = self._step_info()
        else:
            info = {}
            for key in _INFO_KEYS:
                full = self._info_arrays[key]
                part = np.zeros_like(full)
                part[which] = full[which]
                info[key], info[f"_{key}"] = part, which.copy()
        obs = self._obs.copy() if self.copy else self._obs_view
        return obs, info

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one action in every game (see Episode End for the games that are reset).
        Nothing moves when ``step`` raises.

        Args:
            actions: integers, shape ``(N,)``: ``actions[i]`` for game i.

        Returns:
            ``(obs, rewards, terminated, truncated, info)``: ``uint8 (N, size)``,
            ``float64 (N,)``, ``bool (N,)``, ``bool (N,)``, and ``info`` as in Information.

        Raises:
            ValueError: ``actions`` is not an integer array of shape ``(N,)``, or an action
                (of a game not being reset) is outside ``range(n)``.
            IllegalMoveError: an illegal action with ``illegal_action="raise"``.
            RuntimeError: ``step`` before ``reset``.
        """
        acts = actions if type(actions) is np.ndarray else np.asarray(actions)
        if acts.dtype != np.int64:
            if acts.dtype.kind not in "iu":
                raise ValueError(f"actions must be integers, got an array of dtype {acts.dtype}")
            if acts.dtype.kind == "u" and acts.size and acts.max() > _INT64_MAX:
                i = int(np.argmax(acts > _INT64_MAX))  # would wrap to a negative int64
                raise ValueError(
                    f"action {int(acts[i])} of game {i} is outside the action space "
                    f"Discrete({self.single_action_space.n})"
                )
            acts = acts.astype(np.int64)
        if acts.shape != (self.num_envs,):
            raise ValueError(
                f"actions must have shape ({self.num_envs},) (one per game), got {acts.shape}"
            )
        if not (acts.flags.c_contiguous and acts.flags.writeable):
            acts = acts.copy()  # one compiled specialisation: contiguous, writeable int64
        if not self._started:
            raise RuntimeError("call reset() before step()")
        flags = self._flags
        n_deal = self._advance(acts)
        if n_deal < 0:
            self._refuse(acts, n_deal)
        final: dict[str, Any] = {}
        if n_deal:
            ended = np.flatnonzero(flags[F_DEAL]).tolist()
            if self.autoreset_mode == AutoresetMode.SAME_STEP:
                final = self._final_info(ended)  # before the new deals overwrite the rows
            next_seeds = self._autoreset_seeds
            for i in ended:
                if next_seeds[i] is not None:
                    self._rngs[i], self._seeds[i] = seeding.np_random(next_seeds[i])
                    next_seeds[i] = None
                self._deal(i, None)
        info = self._step_info()
        if final:
            info.update(final)
        obs = self._obs.copy() if self.copy else self._obs_view
        return (
            obs,
            self._rewards.copy(),
            self._term.copy(),
            self._trunc.copy(),
            info,
        )

    def _advance(self, acts: np.ndarray) -> int:
        """Step every game once with ``acts`` (``int64``, shape ``(N,)``, contiguous): one
        call of the compiled batch kernel; its return value (:func:`_step_batch`)."""
        return int(
            _step_batch(
                self.states,
                self.tables.table,
                self._obs,
                self._masks,
                acts,
                self._rewards,
                self._flags,
                self._counts,
                self._fparams,
                self._iparams,
            )
        )

    def render(self) -> tuple[str, ...] | None:  # type: ignore[override]
        """With ``render_mode="ansi"``, each game's board as text (a tuple of N strings);
        else ``None``."""
        if self.render_mode != "ansi":
            return None
        return tuple(self.board_text(i) for i in range(self.num_envs))

    # ------------------------------------------------------------------ extras
    def action_masks(self) -> np.ndarray:
        """Legal actions of every game: ``int8``, shape ``(N, n)``, 1 where legal (a copy)."""
        return self._masks.copy()

    def set_autoreset_seeds(self, seeds: Sequence[int | None]) -> None:
        """Seed the next automatic reset of each game: game i's next deal after it ends is
        then the deal of ``reset(seed=seeds[i])`` for that game alone (its generator re-seeded
        so), e.g. a training deal seed drawn per game by the caller. ``None`` leaves a game's
        generator to deal on. Each seed is used once; ``reset`` does not use or clear them.

        Raises:
            ValueError: not one entry per game, or an entry that is neither ``None`` nor a
                non-negative integer. Nothing changes then.
        """
        if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Sequence):
            raise ValueError(f"autoreset seeds must be a list of N ints or None, got {seeds!r}")
        self._autoreset_seeds = self._seeds_for(list(seeds))

    def sample_legal(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniformly random legal action per game (one compiled call for the batch).

        Args:
            rng: the generator of the uniforms (default: one made once from OS entropy).

        Returns:
            a new ``int64`` array of shape ``(N,)`` on each call (the caller's to keep or
            change). A game with no legal action (one that ended and awaits its reset in
            next-step mode) gets 0, which ``step`` ignores.
        """
        if rng is None:
            if self._sample_rng is None:
                self._sample_rng = np.random.default_rng()
            rng = self._sample_rng
        rng.random(out=self._uniforms)
        actions = np.empty(self.num_envs, dtype=np.int64)
        self._pick(actions)
        return actions

    def _pick(self, out: np.ndarray) -> None:
        """``out[i]``: game i's ``int(u * n_legal)``-th legal action for its uniform ``u``
        of ``self._uniforms`` (0 if it has none): :func:`_pick_legal` on the masks."""
        _pick_legal(self._masks, self._n_legal, self._uniforms, out)

    def get_state(self, index: int) -> dict[str, Any]:
        """Game ``index``'s position in the rule book's format (a new dict).

        Raises:
            TypeError: ``index`` is not an integer (``bool`` is not one).
            IndexError: ``index`` is not in ``range(N)``.
            RuntimeError: before ``reset``.
        """
        return self.rules.to_position(self._game_state(index))

    def board_text(self, index: int) -> str:
        """Game ``index``'s board as text (``FortyThievesEnv.board_text``).

        Raises:
            TypeError, IndexError, RuntimeError: as :meth:`get_state`.
        """
        if self._viewer is None:
            from .env import FortyThievesEnv

            self._viewer = FortyThievesEnv(self.variant, backend="python")
        self._viewer.state = self._game_state(index)
        return self._viewer.board_text()

    # ------------------------------------------------------------------ internals
    def _game_state(self, index: int) -> GameState:
        return self.tables.unpack(self.states[self._checked_index(index)])

    def _checked_index(self, index: object) -> int:
        """``index`` as an ``int`` if it is a game index of a started batch.

        Raises:
            TypeError: not an integer (``bool`` is not one).
            IndexError: not in ``range(N)``.
            RuntimeError: before ``reset``.
        """
        if not is_int(index):
            raise TypeError(
                f"index must be a game index, an integer in range({self.num_envs}), got {index!r}"
            )
        index = int(index)  # type: ignore[call-overload]
        if not 0 <= index < self.num_envs:
            raise IndexError(f"game index {index} is outside range({self.num_envs})")
        if not self._started:
            raise RuntimeError("call reset() first")
        return index

    def _seeds_for(self, seed: Any) -> list[int | None]:
        n = self.num_envs
        if seed is None:
            return [None] * n
        if is_int(seed):  # NumPy integers too, as the single env (_checks states what)
            seeds: list[Any] = [int(seed) + i for i in range(n)]
        elif (isinstance(seed, np.ndarray) and seed.ndim == 1) or (  # rng.integers(.., size=N)
            isinstance(seed, Sequence) and not isinstance(seed, str)
        ):
            if len(seed) != n:
                raise ValueError(f"a list of seeds needs one per game ({n}), got {len(seed)}")
            seeds = list(seed)
        else:
            raise ValueError(f"seed must be None, an int or a list of N ints, got {seed!r}")
        for s in seeds:
            if s is not None and (not is_int(s) or s < 0):
                raise ValueError(f"seeds must be non-negative integers or None, got {s!r}")
        return [None if s is None else int(s) for s in seeds]

    def _reset_mask(self, mask: Any) -> np.ndarray:
        n = self.num_envs
        if mask is None:
            return np.ones(n, dtype=np.bool_)
        if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.shape != (n,):
            raise ValueError(
                f"options['reset_mask'] must be a bool numpy array of shape ({n},), got "
                f"{getattr(mask, 'dtype', type(mask).__name__)} {getattr(mask, 'shape', '')}"
            )
        if not mask.any():
            raise ValueError("options['reset_mask'] must select at least one game")
        if not self._started and not mask.all():
            raise ValueError("the first reset must reset every game (no options['reset_mask'])")
        return mask.copy()

    def _positions(self, state: Any, which: np.ndarray) -> list[GameState | None]:
        """Each game's checked start position (``None``: a deal)."""
        n = self.num_envs
        if state is None:
            return [None] * n
        if isinstance(state, Mapping):
            per_game: list[Any] = [state] * n
        elif isinstance(state, Sequence) and not isinstance(state, str):
            if len(state) != n:
                raise ValueError(
                    f"options['state'] must be one position or a list of {n} (one per game, "
                    f"None for a deal), got {len(state)}"
                )
            per_game = list(state)
        else:
            raise ValueError(
                "options['state'] must be a position (a dict) or a list of N positions, got "
                f"{type(state).__name__}"
            )
        out: list[GameState | None] = [None] * n
        checked: dict[tuple[int, int], GameState] = {}
        for i in np.flatnonzero(which).tolist():
            position = per_game[i]
            if position is None:
                continue
            rules = self._position_rules(i, position)
            key = (id(position), id(rules))
            if key not in checked:  # one position for all games: check it once
                try:
                    game = rules.from_position(position)
                except InvalidPositionError as exc:
                    raise InvalidPositionError(f"game {i}: {exc}") from None
                if not rules.legal_actions(game):
                    raise InvalidPositionError(
                        f"game {i}: invalid {rules.spec.id} position: the game is already "
                        f"over ({'won' if rules.is_won(game) else 'no legal move'}); "
                        "reset needs a position with a move to play"
                    )
                checked[key] = game
            out[i] = checked[key]
        return out

    def _position_rules(self, i: int, position: Any) -> Rules:
        """The rules that game i's start ``position`` is read by: the variant's."""
        return self.rules

    def _deal(self, i: int, state: GameState | None) -> None:
        """Start game i from ``state`` or from a new deal of its generator."""
        if state is None:
            state = self.rules.deal(self._rng(i))
        st = self.states[i]
        st[:] = self.tables.pack(state)
        self._started_game(i, state, refresh(st, self.tables.table, self._obs[i], self._masks[i]))

    def _started_game(self, i: int, state: GameState, n_legal: int) -> None:
        """Set game i's counts and flags for a game started from ``state`` (with
        ``n_legal`` legal actions)."""
        counts = self._counts
        counts[C_NLEGAL, i] = n_legal
        counts[C_FCARDS, i] = state.foundation_cards
        counts[C_ELAPSED, i] = 0
        counts[C_IDLE, i] = 0
        flags = self._flags
        flags[F_SUCCESS, i] = state.foundation_cards == N_CARDS
        flags[F_ILLEGAL, i] = False
        flags[F_DEAL, i] = False

    def _step_info(self) -> dict[str, Any]:
        if not self.copy:
            return self._view_info.copy()  # a new dict of the same views
        arrays, all_true = self._info_arrays, self._all_true
        return {
            "action_mask": arrays["action_mask"].copy(),
            "_action_mask": all_true.copy(),
            "foundation_cards": arrays["foundation_cards"].copy(),
            "_foundation_cards": all_true.copy(),
            "is_success": arrays["is_success"].copy(),
            "_is_success": all_true.copy(),
            "illegal_action": arrays["illegal_action"].copy(),
            "_illegal_action": all_true.copy(),
        }

    def _final_info(self, ended: list[int]) -> dict[str, Any]:
        """Same-step mode: ``final_obs`` and ``final_info`` of the games that ended."""
        n = self.num_envs
        mask = np.zeros(n, dtype=np.bool_)
        mask[ended] = True
        final_obs = np.full(n, None, dtype=object)
        final: dict[str, Any] = {}
        for key in _INFO_KEYS:
            full = self._info_arrays[key]
            part = np.zeros_like(full)
            part[ended] = full[ended]
            final[key], final[f"_{key}"] = part, mask.copy()
        for i in ended:
            final_obs[i] = self._obs[i].copy()
        return {
            "final_obs": final_obs,
            "_final_obs": mask.copy(),
            "final_info": final,
            "_final_info": mask.copy(),
        }

    def _refuse(self, acts: np.ndarray, code: int) -> None:
        """Raise the error of :func:`_step_batch`'s negative return ``code``."""
        n = self.num_envs
        i = -1 - code
        if i < n:
            raise ValueError(
                f"action {int(acts[i])} of game {i} is outside the action space "
                f"Discrete({self.single_action_space.n})"
            )
        i -= n
        a = int(acts[i])
        reason = self.rules.why_illegal(self._game_state(i), a)
        raise IllegalMoveError(
            f"game {i}: illegal move {self.rules.action_to_move(a)!r} (action {a}) in "
            f"{self.variant.name}: {reason}"
        )

    def __repr__(self) -> str:
        name = self.spec.id if self.spec is not None else self.variant.id
        return f"FortyThievesVectorEnv({name}, num_envs={self.num_envs})"
