"""One episode loop for every game the agents play: evaluation, teacher, search and expert games.

:func:`play_games` plays one agent on a :class:`GameTable` (the games: ``slots`` of them at
once on one environment) until the table has no game left, and tells :class:`EpisodeHooks`
what happened, so each caller records what it needs and nothing else. Each step it:

1. asks the agent about the games the table asks it about (:meth:`GameTable.asked`), through
   a :class:`Choice`: the agent's own move (:class:`AgentChoice`, ``act_batch``), or the
   no-cycling rule's (:class:`NoCycling`: the agent's ranking, ``action_scores``, and its
   best-ranked move to a view not seen in the episode; a game with none ends as *stuck*,
   before the step);
2. plays action 0 in a game with no legal move at all (the environment ends it), refuses an
   illegal choice (``RuntimeError`` naming the player and the game: ``agent random chose
   illegal action 7 on deal 2000000002``), and plays each slot the table did not ask about
   (no deal left, a surplus game) its first legal action;
3. steps every slot at once (:meth:`GameTable.step`), then for the games that ended calls the
   agent's ``end_games``, lets the table deal new games into the freed slots
   (:meth:`GameTable.refill`) and calls ``start_games`` for them.

The tables:

- :class:`DealTable`: given deals (seeds, in order) on one
  :class:`~fortythieves_env.FortyThievesVectorEnv` of a registered id; a freed slot takes the
  next deal, and idles when none is left
  (:func:`fortythieves_agents.evaluation.evaluate.play_deals`: evaluation, the search agent's games,
  training's validation, the expert iteration's DAgger games and validation, the Ray workers'
  parts);
- :class:`OneEnvTable`: given deals one after the other on one gymnasium environment, the
  agent of the one-game protocol (``act(obs, env)``) adapted by :class:`OneGamePlayer`
  (:func:`fortythieves_agents.evaluation.evaluate.play_episode` and evaluate's loop for such
  agents);
- :class:`TrainingTable`: the training env's games (:class:`fortythieves_agents.envs.BatchedVecEnv`:
  its deals, rewards, shaping and no-cycling masks), numbered in the order they start, the
  first ``games`` asked about and the others played by their first legal action
  (:func:`fortythieves_agents.training.teacher.collect_teacher_games`).

The loop draws no random number of its own: every choice is the agent's, so a game depends
on the agent, its deal and its deal index only (not on the batch size or the other games),
for agents whose per-game draws are seeded by the deal index (all of this package's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import gymnasium as gym
import numpy as np

if TYPE_CHECKING:
    from fortythieves_env.rules.core import FastTables
    from fortythieves_env.rules.variants import VariantSpec

    from ..envs import BatchedVecEnv
    from .baselines import Agent, BatchAgent

__all__ = [
    "AgentChoice",
    "Choice",
    "DealTable",
    "Ending",
    "EpisodeHooks",
    "GameTable",
    "NoCycling",
    "OneEnvTable",
    "OneGamePlayer",
    "TrainingTable",
    "needs_scores",
    "play_games",
    "rows_of",
]

NO_SLOTS = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class Ending:
    """One game that ended, as its table saw it.

    ``slot``: its slot; ``game``: its deal index as the agent knows it; ``truncated``: the
    environment cut it (step limit or no-progress rule), not terminated; ``stuck``: the
    no-cycling rule ended it (every legal move led back to a view seen in the episode).
    """

    slot: int
    game: int
    won: bool
    foundation_cards: int
    length: int
    ret: float
    truncated: bool
    stuck: bool = False


class GameTable(Protocol):
    """The games :func:`play_games` plays: ``slots`` at once on one environment.

    Attributes:
        spec: the variant (what ``start_games`` gets).
        slots: games at once.
        role: names the player in the illegal-action error (``"agent"``, ``"teacher"``).
        obs: ``uint8 (slots, size)``, each slot's observation now.
        masks: ``int8 (slots, A)``, each slot's legal moves now (what the agent may choose).
        game: ``int64 (slots,)``, the deal index each slot plays, as the agent knows it.
    """

    spec: VariantSpec
    slots: int
    role: str
    obs: np.ndarray
    masks: np.ndarray
    game: np.ndarray

    def start(self) -> np.ndarray:
        """Deal the first games; return the slots dealt (``int64``)."""
        ...

    def playing(self) -> bool:
        """Whether a game the loop waits for is still on."""
        ...

    def asked(self) -> np.ndarray | None:
        """The slots whose agent's choice is played (``int64``); None: every slot."""
        ...

    def where(self, slot: int) -> str:
        """Slot ``slot``'s game for a message (``"on deal 2000000002"``)."""
        ...

    def end_stuck(self, slots: np.ndarray) -> list[Ending]:
        """End the games of ``slots`` as stuck, before the step (the no-cycling rule)."""
        ...

    def step(
        self, actions: np.ndarray, rows: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, list[Ending]]:
        """Play ``actions`` (``int64 (slots,)``); ``rows``: the slots whose agent's move it is.

        Returns:
            ``(rewards (slots,), ended bool (slots,), endings)``: one :class:`Ending` per
            ended slot, in slot order.
        """
        ...

    def refill(self, ended: np.ndarray) -> np.ndarray:
        """Deal new games into the slots ``ended`` (sorted ``int64``) freed, as far as
        there are; return the slots dealt."""
        ...


class RuleTable(GameTable, Protocol):
    """A table the no-cycling rule can be played on (:class:`NoCycling`).

    Attributes:
        rule_tables: the variant's compiled tables (the view hash).
        view_limit: the expected episode length (:class:`~fortythieves_agents.cycles.SeenViews`).
    """

    rule_tables: FastTables
    view_limit: int

    @property
    def states(self) -> np.ndarray:
        """``int16 (slots, state_size)``: the packed positions now."""
        ...


class EpisodeHooks:
    """What a caller of :func:`play_games` records; every method does nothing here."""

    def started(self, table: Any, slots: np.ndarray) -> None:
        """Games were dealt into ``slots`` (after their reset)."""

    def before_step(self, table: Any, rows: np.ndarray, actions: np.ndarray) -> None:
        """``actions`` (``int64 (slots,)``, a fresh array) are about to be played; ``rows``:
        the slots whose game is the agent's (not stuck, not idle)."""

    def after_step(self, table: Any, rewards: np.ndarray, ended: np.ndarray) -> None:
        """The step's rewards (``(slots,)``) and which slots' games it ended (``bool``)."""

    def ended(self, table: Any, ending: Ending) -> None:
        """A game ended (stuck games before the step, the others after it, by slot)."""

    def progress(self, games: int) -> None:
        """``games`` games ended in the last step (once per step that ended any)."""


def rows_of(table: GameTable, rows: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(obs, masks, game)`` of ``rows``: the table's arrays themselves (no copy) when
    ``rows`` is None."""
    if rows is None:
        return table.obs, table.masks, table.game
    return table.obs[rows], table.masks[rows], table.game[rows]


class Choice(Protocol):
    """How the loop asks the agent: ``choice(agent, table, rows)`` gives the moves of
    ``rows`` (:func:`rows_of`; ``int64 (B,)``, anything where a row has no legal move) and
    which rows are stuck (``bool (B,)``, or None: none can be)."""

    def start(self, table: Any, slots: np.ndarray) -> None:
        """Games start in ``slots``."""
        ...

    def __call__(
        self, agent: Any, table: Any, rows: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray | None]: ...


class AgentChoice:
    """The agent's own move: ``act_batch(obs, masks, games)``."""

    def start(self, table: Any, slots: np.ndarray) -> None:
        """Nothing to do."""

    def __call__(
        self, agent: Any, table: Any, rows: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray | None]:
        return np.asarray(agent.act_batch(*rows_of(table, rows))), None


class NoCycling:
    """The agents' no-cycling rule (:mod:`fortythieves_agents.cycles`): the agent ranks the
    moves (``action_scores``) and each game plays its best-ranked legal move to a view not
    seen in its episode (one compiled call); a game with legal moves but none new is stuck."""

    def __init__(self, table: RuleTable) -> None:
        self.seen = self._views(table)
        self._every = np.arange(table.slots, dtype=np.int64)

    def _views(self, table: Any) -> Any:
        """The sets of views seen, one per slot of ``table``: a
        :class:`~fortythieves_agents.cycles.SeenViews` of its variant."""
        from ..cycles import SeenViews

        return SeenViews(table.rule_tables, table.slots, table.view_limit)

    def start(self, table: RuleTable, slots: np.ndarray) -> None:
        """The views seen in ``slots``' new episodes: their start views only."""
        self.seen.start(table.states, slots)

    def __call__(
        self, agent: Any, table: RuleTable, rows: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray | None]:
        obs, masks, games = rows_of(table, rows)
        scores = agent.action_scores(obs, masks, games)
        at = self._every if rows is None else rows
        chosen = self.seen.choose(table.states, at, scores, masks).copy()
        return chosen, (chosen < 0) & masks.any(axis=1)


def needs_scores(agent: Any, allow_cycles: bool) -> bool:
    """Whether the no-cycling rule is on (``not allow_cycles``).

    Raises:
        TypeError: the rule is on and the agent has no ``action_scores``.
    """
    rule = not allow_cycles
    if rule and not hasattr(agent, "action_scores"):
        raise TypeError(
            f"agent {agent.name} has no action_scores: the no-cycling rule needs a ranking "
            "of the moves; play it with allow_cycles=True"
        )
    return rule


def play_games(agent: Any, table: GameTable, choice: Choice, hooks: EpisodeHooks) -> None:
    """Play ``agent`` (the :class:`~fortythieves_agents.players.baselines.BatchAgent` protocol) on
    ``table`` until it has no game left (module docstring).

    Raises:
        RuntimeError: the agent chose an illegal action (the message names the game:
            :meth:`GameTable.where`).
    """
    every = np.arange(table.slots, dtype=np.int64)
    started = table.start()
    choice.start(table, started)
    agent.start_games(table.spec, table.game.copy())
    hooks.started(table, started)
    while table.playing():
        asked = table.asked()
        rows = every if asked is None else asked
        chosen, stuck = choice(agent, table, asked)
        no_move = ~table.masks[rows].any(axis=1)  # the step ends such a game
        stuck_slots = NO_SLOTS
        if stuck is not None and stuck.any():  # the rule ends these games now
            stuck_slots = rows[stuck]
            for ending in table.end_stuck(stuck_slots):
                hooks.ended(table, ending)
            rows, chosen, no_move = rows[~stuck], chosen[~stuck], no_move[~stuck]
        chosen = np.where(no_move, 0, chosen)
        _refuse_illegal(agent, table, rows, chosen, no_move)
        actions = np.empty(table.slots, dtype=np.int64)
        if rows.size < table.slots:  # slots not asked play their first legal action
            idle = np.ones(table.slots, dtype=np.bool_)
            idle[rows] = False
            actions[idle] = np.argmax(table.masks[idle], axis=1)
        actions[rows] = chosen
        hooks.before_step(table, rows, actions)
        rewards, done, endings = table.step(actions, rows)
        hooks.after_step(table, rewards, done)
        for ending in endings:
            hooks.ended(table, ending)
        ended = np.flatnonzero(done)
        if stuck_slots.size:
            ended = np.union1d(ended, stuck_slots)
        if not ended.size:
            continue
        agent.end_games(table.game[ended])
        hooks.progress(int(ended.size))
        started = table.refill(ended)
        if started.size:
            choice.start(table, started)
            agent.start_games(table.spec, table.game[started])
            hooks.started(table, started)


def _refuse_illegal(
    agent: Any, table: GameTable, rows: np.ndarray, chosen: np.ndarray, no_move: np.ndarray
) -> None:
    """Raise on the first row whose move is not legal (rows with no move excepted)."""
    n = table.masks.shape[1]
    illegal = (chosen < 0) | (chosen >= n)
    illegal |= table.masks[rows, np.clip(chosen, 0, n - 1)] == 0
    illegal &= ~no_move
    if illegal.any():
        k = int(np.argmax(illegal))
        raise RuntimeError(
            f"{table.role} {agent.name} chose illegal action {int(chosen[k])} "
            f"{table.where(int(rows[k]))}"
        )


class DealTable:
    """Deal ``seeds[i]`` for every ``i`` on one vector env of ``env_id`` (its registered
    rewards and step limit), ``slots`` at once: deal ``i`` is the agent's game
    ``first_game + i``; a freed slot takes the next deal in order, and once none is left it
    idles (its first legal action, its results ignored).

    Attributes (besides :class:`GameTable`'s):
        lengths: ``int64 (slots,)``, steps of each slot's game so far.
        returns: ``float64 (slots,)``, its return so far.
    """

    role = "agent"

    def __init__(self, env_id: str, seeds: Sequence[int], slots: int, first_game: int = 0) -> None:
        self.env: Any = gym.make_vec(
            env_id, num_envs=slots, vectorization_mode="vector_entry_point", copy=False
        )
        base = self.env.unwrapped
        self.spec = base.variant
        self.rule_tables = base.tables
        self.view_limit = base.max_episode_steps
        self._fcards_at = base.tables.scal0 + 3  # S_FCARDS
        self.seeds = seeds
        self.slots = slots
        self.first_game = first_game
        self.game = np.arange(first_game, first_game + slots, dtype=np.int64)  # -1: none
        self.returns = np.zeros(slots, dtype=np.float64)
        self.lengths = np.zeros(slots, dtype=np.int64)
        self.live = np.ones(slots, dtype=np.bool_)
        self.all_live = True
        self.next_deal = slots
        self.obs = np.zeros((0,), dtype=np.uint8)
        self.masks = np.zeros((0, 0), dtype=np.int8)

    @property
    def states(self) -> np.ndarray:
        return self.env.unwrapped.states  # type: ignore[no-any-return]

    def start(self) -> np.ndarray:
        self.obs, info = self.env.reset(seed=[int(self.seeds[i]) for i in range(self.slots)])
        self.masks = info["action_mask"]
        return np.arange(self.slots, dtype=np.int64)

    def start_of(self, slot: int) -> dict[str, Any]:
        """Slot ``slot``'s position (rule-book format); its deal's start right after a deal."""
        return self.env.unwrapped.get_state(slot)  # type: ignore[no-any-return]

    def playing(self) -> bool:
        return self.all_live or bool(self.live.any())

    def asked(self) -> np.ndarray | None:
        return None if self.all_live else np.flatnonzero(self.live)

    def where(self, slot: int) -> str:
        return f"on deal {self.seeds[self.game[slot] - self.first_game]}"

    def end_stuck(self, slots: np.ndarray) -> list[Ending]:
        states = self.states
        out = [
            Ending(
                slot=b,
                game=int(self.game[b]),
                won=False,
                foundation_cards=int(states[b, self._fcards_at]),
                length=int(self.lengths[b]),
                ret=float(self.returns[b]),
                truncated=False,
                stuck=True,
            )
            for b in slots.tolist()
        ]
        self.live[slots] = False
        return out

    def step(
        self, actions: np.ndarray, rows: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, list[Ending]]:
        self.obs, rewards, terminated, truncated, info = self.env.step(actions)
        self.masks = info["action_mask"]
        self.returns[rows] += rewards[rows]
        self.lengths[rows] += 1
        done = self.live & (terminated | truncated)
        endings = [
            Ending(
                slot=b,
                game=int(self.game[b]),
                won=bool(info["is_success"][b]),
                foundation_cards=int(info["foundation_cards"][b]),
                length=int(self.lengths[b]),
                ret=float(self.returns[b]),
                truncated=bool(truncated[b] and not terminated[b]),
            )
            for b in np.flatnonzero(done).tolist()
        ]
        return rewards, done, endings

    def refill(self, ended: np.ndarray) -> np.ndarray:
        refill = ended[: max(0, len(self.seeds) - self.next_deal)]
        self.all_live = self.all_live and refill.size == ended.size
        self.live[ended] = False
        self.game[ended] = -1
        if not refill.size:
            return refill
        first = self.first_game + self.next_deal
        self.game[refill] = np.arange(first, first + refill.size)
        self.next_deal += refill.size
        self.live[refill] = True
        self.returns[refill] = 0.0
        self.lengths[refill] = 0
        reset_seeds: list[int | None] = [None] * self.slots
        for b in refill.tolist():
            reset_seeds[b] = int(self.seeds[self.game[b] - self.first_game])
        which = np.zeros(self.slots, dtype=np.bool_)
        which[refill] = True
        self.obs, _ = self.env.reset(seed=reset_seeds, options={"reset_mask": which})
        self.masks = self.env.unwrapped.action_masks()
        return refill

    def close(self) -> None:
        self.env.close()


class OneEnvTable:
    """Deal ``seeds[i]`` one after the other on ``env`` (a gymnasium env of the package,
    wrappers allowed; one slot): deal ``i`` is the agent's game ``first_game + i``. A game
    stuck under the no-cycling rule is not stepped again, and a game with no legal move ends
    on its one step as lost, whatever the environment says.

    Attributes (besides :class:`GameTable`'s):
        lengths: ``int64 (1,)``, steps of the game so far.
        returns: ``float64 (1,)``, its return so far.
    """

    role = "agent"
    slots = 1

    def __init__(self, env: gym.Env, seeds: Sequence[int], first_game: int = 0) -> None:
        self.env = env
        self.base: Any = env.unwrapped
        self.spec = self.base.variant
        self.seeds = seeds
        self.first_game = first_game
        self.view_limit = getattr(env.spec, "max_episode_steps", None) or 1000
        self.game = np.array([first_game], dtype=np.int64)
        self.returns = np.zeros(1, dtype=np.float64)
        self.lengths = np.zeros(1, dtype=np.int64)
        self.live = False
        self.seed: int = 0
        self.next_deal = 0
        self.info: dict[str, Any] = {}
        self.obs = np.zeros((0,), dtype=np.uint8)
        self.masks = np.zeros((0, 0), dtype=np.int8)
        self._rule_tables: Any = None

    @property
    def rule_tables(self) -> FastTables:
        if self._rule_tables is None:
            from fortythieves_env.rules.core import tables_for

            self._rule_tables = tables_for(self.spec)
        return self._rule_tables  # type: ignore[no-any-return]

    @property
    def states(self) -> np.ndarray:
        return self.rule_tables.pack(self.base.state)[None]  # type: ignore[no-any-return]

    def _deal(self) -> np.ndarray:
        self.seed = self.seeds[self.next_deal]
        obs, self.info = self.env.reset(seed=self.seed)
        self.obs = obs[None]
        self.masks = self.base.action_masks()[None]
        self.game[0] = self.first_game + self.next_deal
        self.next_deal += 1
        self.returns[0] = 0.0
        self.lengths[0] = 0
        self.live = True
        return np.zeros(1, dtype=np.int64)

    def start(self) -> np.ndarray:
        return self._deal()

    def start_of(self, slot: int) -> dict[str, Any]:
        """The position now (rule-book format); the deal's start right after a deal."""
        return self.base.get_state()  # type: ignore[no-any-return]

    def playing(self) -> bool:
        return self.live

    def asked(self) -> np.ndarray | None:
        return None

    def where(self, slot: int) -> str:
        return f"on deal {self.seed}"

    def end_stuck(self, slots: np.ndarray) -> list[Ending]:
        self.live = False
        return [
            Ending(
                slot=0,
                game=int(self.game[0]),
                won=False,
                foundation_cards=int(self.info["foundation_cards"]),
                length=int(self.lengths[0]),
                ret=float(self.returns[0]),
                truncated=False,
                stuck=True,
            )
        ]

    def step(
        self, actions: np.ndarray, rows: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, list[Ending]]:
        if not rows.size:  # the game ended as stuck: no step
            return np.zeros(1), np.zeros(1, dtype=np.bool_), []
        no_move = not self.masks[0].any()
        obs, reward, terminated, truncated, self.info = self.env.step(int(actions[0]))
        self.returns[0] += float(reward)
        self.lengths[0] += 1
        if not (terminated or truncated or no_move):
            self.obs = obs[None]
            self.masks = self.base.action_masks()[None]
            return np.array([float(reward)]), np.zeros(1, dtype=np.bool_), []
        self.live = False
        ending = Ending(
            slot=0,
            game=int(self.game[0]),
            won=not no_move and bool(self.info["is_success"]),
            foundation_cards=int(self.info["foundation_cards"]),
            length=int(self.lengths[0]),
            ret=float(self.returns[0]),
            truncated=bool(truncated and not terminated),
        )
        return np.array([float(reward)]), np.ones(1, dtype=np.bool_), [ending]

    def refill(self, ended: np.ndarray) -> np.ndarray:
        if self.next_deal >= len(self.seeds):
            return NO_SLOTS
        return self._deal()


class OneGamePlayer:
    """``agent`` (the one-game :class:`~fortythieves_agents.players.baselines.Agent` protocol, or a
    :class:`~fortythieves_agents.players.baselines.BatchAgent`) as the loop's player on an
    :class:`OneEnvTable` over ``env``: ``agent.reset(env)`` at each deal; with the rule
    (``rule``) its ``start_games``, ``end_games`` and ``action_scores`` of one-row batches,
    without it its ``act(obs, env)``. A position with no legal move is not put to the agent
    (the loop plays action 0 there)."""

    def __init__(self, agent: Agent | BatchAgent, env: gym.Env, rule: bool) -> None:
        self.agent: Any = agent
        self.name = agent.name
        self.env = env
        self.rule = rule

    def start_games(self, spec: VariantSpec, games: np.ndarray) -> None:
        if hasattr(self.agent, "reset"):
            self.agent.reset(self.env)
        if self.rule:
            self.agent.start_games(spec, games)

    def end_games(self, games: np.ndarray) -> None:
        if self.rule:
            self.agent.end_games(games)

    def action_scores(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        """The agent's ranking (``float64 (1, A)``); all ``-inf`` with no legal move."""
        if not masks[0].any():
            return np.full(masks.shape, -np.inf)
        return np.asarray(self.agent.action_scores(obs, masks, games))

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        """The agent's ``act`` (``int64 (1,)``); 0 with no legal move."""
        if not masks[0].any():
            return np.zeros(1, dtype=np.int64)
        return np.array([self.agent.act(obs[0], self.env)])


class TrainingTable:
    """The training env's games (``env``, a :class:`~fortythieves_agents.envs.BatchedVecEnv`:
    its deals, rewards, shaping, step limit and no-cycling masks; a game that ends is dealt
    the next at once), numbered in the order they start. Games ``0 .. games - 1`` are the
    loop's: the agent is asked about them only, and the loop runs until they have all
    ended; later games (started in freed slots meanwhile) play their first legal action.
    """

    role = "teacher"

    def __init__(self, env: BatchedVecEnv, games: int) -> None:
        self.env = env
        self.spec = env.venv.unwrapped.variant
        self.slots = int(env.num_envs)
        self.games = games
        self.finished = 0
        self.game = np.arange(self.slots, dtype=np.int64)
        self.next_game = self.slots
        self.obs = np.zeros((0,), dtype=np.uint8)
        self.masks = np.zeros((0, 0), dtype=np.int8)

    def start(self) -> np.ndarray:
        self.obs = self.env.reset()
        self.masks = self.env.action_masks()  # int8 (B, A), a copy
        return np.arange(self.slots, dtype=np.int64)

    def playing(self) -> bool:
        return self.finished < self.games

    def asked(self) -> np.ndarray | None:
        return np.flatnonzero(self.game < self.games)

    def where(self, slot: int) -> str:
        return f"in teacher game {int(self.game[slot])}"

    def end_stuck(self, slots: np.ndarray) -> list[Ending]:
        raise TypeError("the training env applies the no-cycling rule itself (its masks)")

    def step(
        self, actions: np.ndarray, rows: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, list[Ending]]:
        self.obs, rewards, done, infos = self.env.step(actions)
        self.masks = self.env.action_masks()
        endings = []
        for b in np.flatnonzero(done).tolist():
            episode = infos[b]["episode"]
            endings.append(
                Ending(
                    slot=b,
                    game=int(self.game[b]),
                    won=bool(episode["is_success"]),
                    foundation_cards=int(episode["foundation_cards"]),
                    length=int(episode["l"]),
                    ret=float(episode["r"]),
                    truncated=bool(infos[b]["TimeLimit.truncated"]),
                    stuck=bool(infos[b].get("stuck", False)),
                )
            )
            self.finished += int(self.game[b] < self.games)
        return rewards, done, endings

    def refill(self, ended: np.ndarray) -> np.ndarray:
        self.game[ended] = np.arange(self.next_game, self.next_game + ended.size)
        self.next_game += ended.size
        return ended
