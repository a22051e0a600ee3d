"""Gymnasium environment for the Forty Thieves family: the Gymnasium contract (spaces,
seeding, rewards, episode end, info) over a backend of :mod:`.backends` that holds and steps
the position."""

from __future__ import annotations

import math
import numbers
import operator
import warnings
from typing import Any, Literal, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..rules.cards import CARD_NAMES, N_CARDS, SUITS
from ..rules.checks import checked_int, checked_options
from ..rules.engine import IllegalMoveError, InvalidPositionError, rules_for
from ..rules.episode import NOT_COUNTED, EpisodeMixin, episode_step, step_outcome
from ..rules.observation import LATEST_VERSION, check_version
from ..rules.positions import checked_copy
from ..rules.pysol import pysol_position
from ..rules.state import GameState
from ..rules.tables import tables_for
from ..rules.variants import VariantSpec, get_variant
from ..rules.view import PlayerView, player_view
from .backends import Backend, make_backend
from .registration import CheckedSpec

_BOOLS = (bool, np.bool_)


def finite_reward(name: str, value: object) -> float:
    """``value`` as a ``float`` if it is a finite real number (not a bool or a string).

    Raises:
        ValueError: otherwise, naming ``name`` and the value.
    """
    if not isinstance(value, numbers.Real) or isinstance(value, _BOOLS) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def checked_penalty(value: object) -> float:
    """``value`` as a ``float`` if it is a valid ``illegal_action_penalty``: a finite number
    ``>= 0`` (an illegal action earns ``-illegal_action_penalty``; the training config asks
    the same). The one check of both :class:`FortyThievesEnv` and the batched env.

    Raises:
        ValueError: not a finite number (:func:`finite_reward`), or negative.
    """
    penalty = finite_reward("illegal_action_penalty", value)
    if penalty < 0:
        raise ValueError(
            "illegal_action_penalty must be >= 0 (an illegal action earns "
            f"-illegal_action_penalty), got {value!r}"
        )
    return penalty


def _move_reward(
    cards: int, foundation_cards: int, reward_per_card: float, win_bonus: float
) -> float:
    """The reward of a legal move putting ``cards`` (0 or 1) up, ``foundation_cards`` after
    it: :func:`~fortythieves_env.rules.episode.episode_step`'s."""
    packed = (1 << 8) | (foundation_cards << 1) | cards
    return episode_step(
        packed, 0, 0, 0, 1, foundation_cards, 0, 0, reward_per_card, win_bonus, 0.0, 0, 0
    )[0]


def _game_over(foundation_cards: int, n_legal: int) -> bool:
    """Whether the position ends the episode: :func:`~fortythieves_env.rules.episode.episode_step`'s
    ``terminated`` after a legal move to it."""
    packed = (n_legal << 8) | (foundation_cards << 1)
    return episode_step(packed, 0, 0, 0, 0, 0, 0, 0, 0.0, 0.0, 0.0, 0, 0)[1]


def _made_progress(
    kind: int, foundation_gain: int, face_down_before: int, face_down_after: int
) -> bool:
    """Whether a legal move makes progress: :func:`~fortythieves_env.rules.episode.episode_step`'s
    no-progress count restarts after it."""
    packed = (1 << 8) | (1 if foundation_gain > 0 else 0)
    step = episode_step(
        packed, kind, face_down_before, face_down_after, 1, 0, 0, 0, 0.0, 0.0, 0.0, 1, 0
    )
    return step[5] == 0


_DEPRECATED = {
    "move_reward": _move_reward,
    "game_over": _game_over,
    "made_progress": _made_progress,
}
"""The episode's rules as functions (until 0.4):
:func:`~fortythieves_env.rules.episode.episode_step` states them now
(issue 38); these compute their answers through it."""


def __getattr__(name: str) -> Any:
    """``move_reward``, ``game_over`` and ``made_progress``, deprecated (see
    :data:`_DEPRECATED`), with a :class:`DeprecationWarning`."""
    if name in _DEPRECATED:
        warnings.warn(
            f"fortythieves_env.envs.env.{name} is deprecated and will be removed in the next "
            "release: the episode's rules are fortythieves_env.rules.episode.episode_step",
            DeprecationWarning,
            stacklevel=2,
        )
        return _DEPRECATED[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class FortyThievesEnv(EpisodeMixin, gym.Env[np.ndarray, np.int64]):
    """Forty Thieves and its relatives: two-deck patience games built down on the tableau.

    ## Description
    The rules are those of ``RULES.md``: 104 cards; columns dealt face down and face
    up; a stock dealt onto a waste; 8 foundations built up in suit from Ace to King. The
    variant (``variant=``) fixes the number of columns, the deal, the build rule (same suit,
    alternate colour, or any other suit), whether sequences move as a unit, the stock deal
    and redeals, and whether the Aces start on the foundations. The nine registered variants
    are ``FortyThieves/<id>-v0`` for the ids in :data:`fortythieves_env.VARIANTS`, and
    ``FortyThieves/LittleForty-v1`` (see Version History); a
    :class:`~fortythieves_env.VariantSpec` makes a custom one.

    ## Action Space
    ``Discrete(n)`` with ``n = 3 + 2*C + C*(C-1)*M`` for ``C`` columns and ``M`` = 13 in
    sequence variants, else 1 (113 for Forty Thieves, 1193 for Number Ten):

    - ``0``: ``draw``; ``1``: ``redeal``; ``2``: ``w>f`` (waste to a foundation)
    - ``3 + j``: ``w>tj`` (waste onto column j)
    - ``3 + C + i``: ``ti>f`` (column i's top card to a foundation)
    - ``3 + 2*C + (i*(C-1) + j')*M + (N-1)``: ``ti>tjxN``, N cards from column i onto
      column j, with ``j' = j - (j > i)``.

    :meth:`action_to_move` and :meth:`move_to_action` translate to and from the rule book's
    move notation. :meth:`action_masks` (and ``info["action_mask"]``) mark the legal actions.

    ## Observation Space
    ``Box(0, high, shape=(size,), dtype=uint8)``; see :mod:`fortythieves_env.rules.observation` for
    the index table (``self.layout`` holds the slices). Column face-up cards and the whole
    waste as card codes 1..52 (0 = empty slot), then foundation heights, face-down counts,
    stock size and redeals left. Face-down cards are counts only, so their identity never
    reaches the observation. 244 entries for Forty Thieves. The observation holds what a
    player has seen and still knows (the :meth:`player_view`): from version 1
    (``observation_version=1``, the ``-v1`` ids) it also holds the stock's order once a
    redeal has shown it (Little Forty: every stock card passed over the waste face up
    before the first redeal); before that the stock is a count only. Version 0 (the
    ``-v0`` ids) leaves the stock a count throughout.

    ## Starting State
    A shuffled deal (RULES.md, rule 1) drawn from the environment's ``np_random``, so
    ``reset(seed=n)`` gives the same deal in every process; or any valid position passed as
    ``reset(options={"state": position})`` in the rule book's position format.

    Every way a position gets in goes through one load path, the same on both backends:
    ``reset(options={"state": position})``, assigning ``env.state = game_state``, unpickling
    and ``copy.deepcopy``. Each copies the position (the environment never shares a
    :class:`~fortythieves_env.GameState` with its caller) and rewrites the observation and
    the action mask from it. ``reset`` and the ``state`` setter check the position
    (:mod:`fortythieves_env.rules.positions`) and restart the environment's own no-progress count;
    the setter, unlike ``reset``, also takes a finished game (its next step is
    ``terminated``) and leaves the random generator alone. Gymnasium's ``TimeLimit`` wrapper
    restarts its step count only on ``reset``: to start an episode from a position, use
    ``reset(options={"state": ...})``. A pickled or deep-copied environment is an exact,
    independent clone of the original at that moment: same position, observation, mask,
    no-progress count and random generator; stepping one never changes the other.

    ## Rewards
    ``reward_per_card`` (default 1.0) for each card that reaches a foundation; ``win_bonus``
    (default 10.0) on top when the last card does; ``-illegal_action_penalty`` (default 0.1)
    for an illegal action; 0 otherwise. A perfect game scores 104 (96 in Lucas) + 10.

    ## Episode End
    - Termination: all 104 cards are on the foundations (a win), or no legal move remains
      (a loss).
    - Truncation: ``max_episode_steps`` of the variant (1000; 1500 for Little Forty), applied
      by ``gymnasium.make``'s ``TimeLimit`` wrapper. Play can cycle forever by moving cards
      between columns, so the limit matters.
    - Optional truncation for lack of progress: with ``max_steps_without_progress=K`` the
      episode is also truncated after K steps in a row that neither put a card on a
      foundation, nor deal or redeal, nor turn up a face-down card. In the alternate-colour,
      any-other-suit and sequence variants a card can always shuttle between two columns,
      so a game with nothing left to do rarely runs out of legal moves; this ends it early.
      Off by default (the rule book's game); the training configs turn it on. This
      truncation is never set on a step that terminates.
    - Both on one step: when the game ends (won, or no move left) on the very step that
      reaches ``max_episode_steps``, the step returns ``terminated=True`` and
      ``truncated=True``, as Gymnasium's ``TimeLimit`` does. ``terminated`` is the one to
      trust for the value of the last state (no bootstrapping after it).

    ## Information
    ``reset`` and ``step`` return an ``info`` dict with:

    - ``"action_mask"``: ``np.int8`` array of shape ``(n,)``, 1 exactly where the action is
      legal (a fresh array each time). All zero only when the episode has terminated (or,
      in a custom variant with no stock, when the deal itself has no move: the first step
      then terminates).
    - ``"foundation_cards"``: ``int``, cards on the foundations (0..104).
    - ``"is_success"``: ``bool``, True once the game is won (read it when the episode ends).
    - ``"illegal_action"``: ``bool``, True when the action just taken was illegal (step only;
      False from reset).

    ## Arguments
    ```python
    import gymnasium as gym
    import fortythieves_env

    env = gym.make("FortyThieves/Maria-v0", render_mode="ansi", win_bonus=0.0)
    ```

    - ``variant``: variant id or :class:`~fortythieves_env.VariantSpec` (default
      ``"FortyThieves"``).
    - ``render_mode``: ``None``, ``"ansi"`` (a text board) or ``"rgb_array"`` (a picture of
      the table, see :mod:`fortythieves_env.envs.drawing`).
    - ``max_steps_without_progress``: ``None`` (default) or a positive integer (NumPy
      integers too, not ``bool``; else ``ValueError``); see Episode End.
    - ``reward_per_card``, ``win_bonus``, ``illegal_action_penalty``: finite numbers, the
      penalty ``>= 0`` (else ``ValueError``); see Rewards.
    - ``illegal_action``: ``"penalize"`` (default: the position is unchanged, the penalty is
      paid and ``info["illegal_action"]`` is True) or ``"raise"`` (raise
      :class:`~fortythieves_env.IllegalMoveError`, naming the move and the reason). An
      action outside the action space always raises ``ValueError``.
    - ``backend``: ``"auto"`` (default: ``"numba"`` when numba is importable, else
      ``"python"``), ``"numba"`` or ``"python"``: the :mod:`fortythieves_env.envs.backends`
      object that holds and steps the position (``self.backend`` is the name chosen). Both
      play identical games (same deal for a seed, same observations, masks, rewards and
      positions). ``"python"`` keeps the position as a :class:`~fortythieves_env.GameState`
      and writes the observation in Python, each move made and checked by the compiled rules
      core through :class:`~fortythieves_env.Rules`; ``"numba"`` keeps the position in a
      packed array and steps it with one compiled call (:mod:`fortythieves_env.core`), the
      faster (see ``docs/performance.md``). The first numba
      env in a process loads the compiled code from numba's on-disk cache (about half a
      second), or compiles it once (a few seconds) when there is no cache. On both backends
      ``env.state`` is a snapshot :class:`~fortythieves_env.GameState` made on each read:
      changing it does not change the game (assign ``env.state = s`` to load one; see
      Starting State).
    - ``observation_version``: ``1`` (default,
      :data:`~fortythieves_env.rules.observation.LATEST_VERSION`)
      or ``0``; see Observation Space and Version History (``ValueError`` otherwise). The
      registered ids pass it: ``-v0`` ids 0, ``-v1`` ids 1; ``gymnasium.make`` of an id with
      another ``observation_version`` raises ``ValueError`` naming the id to use (the id
      names the observation). For a variant without redeals both versions are the same
      observation.

    ## Version History
    - v1: the observation adds the stock's order once it is known (after the first redeal),
      next card first, in ``K`` new card slots after the waste (index table in
      :mod:`fortythieves_env.rules.observation`). Only variants with redeals change, so only they
      have a ``-v1`` id (``FortyThieves/LittleForty-v1``; a custom variant with redeals
      too); the other variants keep ``-v0`` as their only id.
    - v0: initial release. Still registered for every variant, so saved models and results
      made on it stay usable.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}  # noqa: RUF012
    spec = CheckedSpec()  # type: ignore[assignment]  # refuses a version contradicting the id

    def __init__(
        self,
        variant: str | VariantSpec = "FortyThieves",
        render_mode: str | None = None,
        reward_per_card: float = 1.0,
        win_bonus: float = 10.0,
        illegal_action_penalty: float = 0.1,
        illegal_action: Literal["penalize", "raise"] = "penalize",
        backend: Literal["auto", "numba", "python"] = "auto",
        max_steps_without_progress: int | None = None,
        observation_version: int = LATEST_VERSION,
    ) -> None:
        self.variant = spec = get_variant(variant)
        self.observation_version = check_version(observation_version)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        if illegal_action not in ("penalize", "raise"):
            raise ValueError(
                f"illegal_action must be 'penalize' or 'raise', got {illegal_action!r}"
            )
        if max_steps_without_progress is not None:
            max_steps_without_progress = checked_int(
                "max_steps_without_progress", max_steps_without_progress, 1, or_none=True
            )
        core = make_backend(backend, spec, observation_version)  # checks ``backend``
        self.max_steps_without_progress = max_steps_without_progress
        self._idle = 0  # steps in a row without progress
        self.backend = core.name
        self.render_mode = render_mode
        self.reward_per_card = finite_reward("reward_per_card", reward_per_card)
        self.win_bonus = finite_reward("win_bonus", win_bonus)
        self.illegal_action_penalty = checked_penalty(illegal_action_penalty)
        self.illegal_action = illegal_action
        self.rules = rules_for(spec)
        self.layout = tables_for(spec, self.observation_version).layout
        self.action_space = spaces.Discrete(self.rules.n_actions)
        self.observation_space = spaces.Box(
            low=0, high=self.layout.high(spec), shape=(self.layout.size,), dtype=np.uint8
        )
        self._attach(core)

    @property
    def state(self) -> GameState | None:
        """The current position, a new independent :class:`GameState` on each read (``None``
        before ``reset``). Changing it does not change the game.

        Assigning loads a position (see Starting State in the class docstring): the
        environment keeps a copy, the observation and the mask follow it, and the
        no-progress count restarts; a finished game is accepted. Assigning ``None`` clears
        the game (as before the first ``reset``). ``TimeLimit``'s step count restarts only
        on ``reset``.

        Raises:
            InvalidPositionError: (on assignment) the state is not a position this variant
                can reach (:func:`fortythieves_env.rules.positions.from_position` says which rule
                it breaks) or holds a bad entry (a foundation height that is not an integer
                0..13, a card that is not a card code: the message names it); nothing
                changes then.
        """
        return self._backend.snapshot()

    @state.setter
    def state(self, state: GameState | None) -> None:
        self._load(None if state is None else checked_copy(self.rules, state))

    @property
    def steps_without_progress(self) -> int:
        """Steps in a row, up to now, that made no progress (see Episode End): the count
        that ``max_steps_without_progress`` truncates at. Counted only when that option is
        set (else 0); 0 after ``reset`` and after loading a position (``int``)."""
        return self._idle

    def __getstate__(self) -> dict[str, Any]:
        d = self.__dict__.copy()
        # Only the position is pickled: a new backend is made on the way back and loads it
        # (its buffers follow), and the variant's shared read-only tables are looked up again.
        for key in ("_backend", "_backend_step", "_obs", "_mask", "_moves", "_n_legal", "_fcards"):
            del d[key]
        d["_position"] = self._backend.snapshot()
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        d = dict(d)
        if "spec" in d:  # pickled before ``spec`` was checked
            d["_spec"] = d.pop("spec")
        position = d.pop("_position")
        idle = d["_idle"]
        self.__dict__.update(d)
        self.__dict__.setdefault("observation_version", 0)  # pickled before version 1
        self.__dict__.pop("_last_foundation_cards", None)  # pickled before the episode step
        self._attach(make_backend(self.backend, self.variant, self.observation_version))
        self._load(position)
        self._idle = idle  # an exact clone: the no-progress count goes on where it was

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new game (or start from ``options["state"]``, a rule-book position, or
        from ``options["pysol_deal"]``, PySolFC's game number N: see
        :mod:`fortythieves_env.rules.pysol`).

        Args:
            seed: None, or a non-negative integer that seeds ``np_random``: NumPy integers
                too (Gymnasium's own check takes only ``int``), not ``bool``.
            options: None, or a dict with ``"state"`` or ``"pysol_deal"``.

        Raises:
            InvalidPositionError: ``options["state"]`` is not a valid position of this variant,
                or the game in it is already over (won, or no legal move): an episode starts
                with a move to play. Nothing changes when it is refused, not even the seed.
                (Gymnasium's ``TimeLimit``, which ``gymnasium.make`` wraps around the env,
                zeroes its step count before it calls this ``reset``: after a refused reset
                through ``gymnasium.make`` the game goes on, the step limit counted afresh.)
            TypeError: ``options`` is not a dict (or None).
            ValueError: ``seed`` is not None or a non-negative integer; ``options`` has a
                key other than ``"state"`` and ``"pysol_deal"``, or both; no PySolFC deal for
                this variant (Lucas, custom variants) or a bad N.
            ImportError: ``"pysol_deal"`` without the ``pysol-cards`` package.
        """
        if seed is not None:
            seed = checked_int("seed", seed, 0, or_none=True)
        options = checked_options(options, ("state", "pysol_deal"))
        position = options.get("state")
        if "pysol_deal" in options:  # PySolFC's game number N, loaded as a position
            if position is not None:
                raise ValueError("reset options 'state' and 'pysol_deal' exclude each other")
            position = pysol_position(self.variant, options["pysol_deal"])
        if position is not None:
            state = self.rules.from_position(position)  # checked (and copied) first
            if not self.rules.legal_actions(state):
                raise InvalidPositionError(
                    f"invalid {self.variant.id} position: the game is already over "
                    f"({'won' if self.rules.is_won(state) else 'no legal move'}); "
                    "reset needs a position with a move to play"
                )
            super().reset(seed=seed)
        else:
            super().reset(seed=seed)
            state = self.rules.deal(self.np_random)
        self._load(state)  # a new GameState: the environment owns it
        return self._obs.copy(), self._info(False)

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play one action.

        Raises:
            ValueError: ``action`` is not an integer in ``range(n)``.
            IllegalMoveError: the action is illegal and ``illegal_action="raise"``.
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
        n = self.rules.n_actions
        if not 0 <= a < n:
            raise ValueError(f"action {a} is outside the action space Discrete({n})")
        # the backend's move step (it plays a legal action, refuses an illegal one), then the
        # episode step of every environment (fortythieves_env.rules.episode)
        counted = self.max_steps_without_progress
        before = self._before_move(a) if counted else NOT_COUNTED
        packed = self._backend_step(a)
        if packed < 0:
            if self._no_game():
                raise RuntimeError("call reset() before step()")
            if self.illegal_action == "raise":
                reason = self.rules.why_illegal(self._current(), a)
                raise IllegalMoveError(
                    f"illegal move {self.rules.action_to_move(a)!r} (action {a}) in "
                    f"{self.variant.name}: {reason}"
                )
        if counted:
            return self._end_step(packed, before)
        # Nothing counted (TimeLimit counts the steps): episode_step is its step_outcome.
        reward, terminated, self._n_legal, fcards = step_outcome(
            packed,
            self._n_legal,
            self._fcards,
            self.reward_per_card,
            self.win_bonus,
            self.illegal_action_penalty,
        )
        self._fcards = fcards
        info = {
            "action_mask": self._mask.copy(),
            "foundation_cards": fcards,
            "is_success": fcards == N_CARDS,
            "illegal_action": packed < 0,
        }
        return self._obs.copy(), reward, terminated, False, info

    def render(self) -> str | np.ndarray | None:
        """The board as text (``render_mode="ansi"``), as a picture (``"rgb_array"``: a
        ``uint8`` array ``(H, W, 3)`` of a fixed size per variant, drawn from
        :meth:`player_view` by :mod:`fortythieves_env.envs.drawing`), else ``None``.

        Raises:
            RuntimeError: ``"rgb_array"`` before ``reset`` (there is no table to draw; the
                text board says so instead).
        """
        if self.render_mode == "rgb_array":
            if self._no_game():
                raise RuntimeError("call reset() before render() (no game to draw yet)")
            from .drawing import render_rgb  # Pillow, imported on first use

            return render_rgb(self.variant, self.player_view())
        if self.render_mode != "ansi":
            return None
        return self.board_text()

    # ------------------------------------------------------------------ extras
    def action_masks(self) -> np.ndarray:
        """Legal actions: ``np.int8`` array of shape ``(n,)``, 1 where legal (a copy).

        The name is the one ``sb3_contrib.MaskablePPO`` looks up; through wrappers use
        ``env.get_wrapper_attr("action_masks")()``.
        """
        return self._mask.copy()

    def legal_moves(self) -> list[str]:
        """The legal moves in the rule book's notation, in action order."""
        return [self.rules.action_to_move(a) for a in self._backend.legal_actions()]

    def action_to_move(self, action: int) -> str:
        """Move notation of ``action``, e.g. ``"t2>t0x3"``. Raises ``ValueError`` out of range."""
        return self.rules.action_to_move(action)

    def move_to_action(self, move: str) -> int:
        """Action of a move in the rule book's notation. Raises ``ValueError`` if malformed."""
        return self.rules.move_to_action(move)

    def get_state(self) -> dict[str, Any]:
        """The current position in the rule book's format (JSON-friendly; a new dict).

        Raises:
            RuntimeError: before ``reset``.
        """
        if self._no_game():
            raise RuntimeError("call reset() before get_state()")
        return self.rules.to_position(self._current())

    def player_view(self) -> PlayerView:
        """What a player knows of the current position: the face-up cards, counts of the
        face-down cards and the stock, the stock's order once a redeal has shown it, and the
        multiset of unseen cards; see :mod:`fortythieves_env.rules.view`. A new frozen object.

        Raises:
            RuntimeError: before ``reset``.
        """
        if self._no_game():
            raise RuntimeError("call reset() before player_view()")
        return player_view(self.rules, self._current())

    def board_text(self) -> str:
        """The board as text: header, foundations, then the columns side by side.

        Face-down cards show as ``##``; cards are written rank then suit (``TH``).
        """
        if self._no_game():
            return "(no game: call reset())"
        state = self._current()
        spec = self.variant
        waste = state.waste
        waste_top = CARD_NAMES[waste[-1]] if waste else "--"
        lines = [
            f"{spec.name}  stock: {len(state.stock)}  waste: {waste_top} "
            f"({len(waste)} card{'' if len(waste) == 1 else 's'})"
            + (f"  redeals left: {state.redeals_left}" if spec.redeals else "")
            + f"  foundations: {state.foundation_cards}/104",
            "foundations: "
            + " ".join(
                CARD_NAMES[(k // 2) * 13 + h] if h else f"-{SUITS[k // 2]}"
                for k, h in enumerate(state.foundations)
            ),
            " ".join(f"t{i:<2}" for i in range(spec.n_columns)),
        ]
        height = max((len(col) for col in state.tableau), default=0)
        for row in range(height):
            cells = []
            for col, fd in zip(state.tableau, state.face_down, strict=False):
                if row >= len(col):
                    cells.append("   ")
                elif row < fd:
                    cells.append("## ")
                else:
                    cells.append(CARD_NAMES[col[row]] + " ")
            lines.append(" ".join(cells).rstrip())
        return "\n".join(lines) + "\n"

    # ------------------------------------------------------------------ internals
    def _attach(self, backend: Backend) -> None:
        """Use ``backend`` (without a game yet): its buffers become the environment's."""
        self._backend = backend
        self._backend_step = backend.step  # the hot path calls it directly
        self._obs = backend.obs
        self._mask = backend.mask
        self._n_legal = 0  # legal actions in the position (from load and every legal step)
        self._fcards = 0  # cards on the foundations (likewise)
        self._moves = self.rules._decode  # what the progress rule reads of an action
        self._fd_start = self.layout.face_down.start

    def _load(self, state: GameState | None) -> None:
        """The one load path (reset, the ``state`` setter, unpickling).

        ``state`` must be checked already and not shared with anyone (the backend keeps
        it, or packs it); ``None`` clears the game. The observation, the mask and the
        no-progress count all follow the new position.
        """
        self._idle = self._elapsed = 0
        self._fcards = 0 if state is None else state.foundation_cards
        self._n_legal = self._backend.load(state)

    def _no_game(self) -> bool:
        return not self._backend.has_game

    def _current(self) -> GameState:
        """The position, to read only (the live object on the python backend)."""
        state = self._backend.position()
        assert state is not None
        return state
