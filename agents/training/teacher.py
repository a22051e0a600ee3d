"""Start from a teacher: behaviour cloning before PPO and an optional imitation term during it.

With ``train.teacher`` set (a name of :data:`TEACHERS`),
:func:`fortythieves_agents.training.train.train` does,
before the first PPO step of a new run (never on ``--resume``):

1. **Teacher games** (:func:`collect_teacher_games`): the teacher plays ``teacher.games``
   games in batches on a :class:`fortythieves_agents.envs.BatchedVecEnv`, the training env itself
   (its rewards, shaping, step limit and no-progress truncation), dealing training-range seeds
   (:mod:`fortythieves_agents.seeds`; never a validation or test deal) from the generators
   ``numpy.random.default_rng((seed + 2**32, i))``, a stream PPO's own games
   (``(seed + i, i)``) never draw. Every step records the observation (``uint8``), the
   action mask (bit-packed) and the teacher's action; every game its discounted return from
   each step on (``ppo.gamma``, the training rewards; a truncated game counts as ended there).
   Games are numbered in the order they start and kept if their number is below
   ``teacher.games``, so long games are not under-sampled by stopping early. With
   ``teacher.no_cycling`` (which the config allows only with ``train.no_cycling``) the
   teacher plays the game PPO trains on and the evaluation scores: its moves back to a view
   seen are masked (its best move to a new view is played) and a game left with none ends
   as stuck. Without it the teacher plays the raw rules and may shuttle cards until the
   no-progress truncation (greedy's 200 Rank and File teacher games: 49.7 foundation cards,
   57.6 under the rule).
2. **Behaviour cloning** (:func:`clone_teacher`): ``teacher.epochs`` passes of Adam
   (``teacher.learning_rate``, ``teacher.batch_size``, gradients clipped at
   ``ppo.max_grad_norm``) minimising the cross-entropy ``-log pi(a_teacher | s)`` of the
   *masked* policy distribution (``policy.get_distribution(obs, action_masks)``, the one
   MaskablePPO samples from, for both networks). Illegal actions get probability 0 there, so
   the loss only ranks the legal moves. With ``teacher.ties: any`` the target is the set
   ``T`` of moves the teacher rates as high as its own (from
   :meth:`~fortythieves_agents.players.baselines.BatchAgent.action_scores`) and the loss is
   ``-log sum_{a in T} pi(a | s)``: a teacher's tie-break by action index (greedy's: by
   column order, which the player network is built not to see) is then not a target; 46% of
   greedy's Rank and File moves are such ties. Every 10th game (number ``i % 10 == 9``; the last
   game when there are fewer than 10) is held out, and the loss and the agreement with the
   teacher (the policy's most likely legal move equals the teacher's) are measured on it
   before and after.
3. **The critic** (``teacher.fit_value``, default on): then the same number of passes fit
   the value head to the teacher games' returns (mean squared error), training only the
   parameters the actor's logits do not depend on (found from the cloning's gradients), so
   the cloned policy is left exactly as it is. Why: PPO's first updates otherwise compute
   advantages from a random critic, and its value loss, about a hundred times the policy
   loss at the start, would push the shared layers (``card_slots``' features extractor)
   away from what the cloning learnt. The returns are the teacher's, the policy's own to
   the extent that it agrees with the teacher.

During PPO, with ``teacher.imitation_coef > 0``, :class:`ImitationTerm` adds
``coef_t * CE(teacher action)`` on a minibatch of the teacher's training samples to every
PPO minibatch's loss, ``coef_t`` falling linearly from ``imitation_coef`` at step 0 to 0 at
``imitation_fraction * train.total_timesteps`` (then the term costs nothing).

A teacher is any :class:`fortythieves_agents.players.baselines.BatchAgent` that :data:`TEACHERS` can
make by name;
it sees only what the agents of :mod:`fortythieves_agents.players.baselines` see (observations and
masks).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from ..players.baselines import BatchAgent, make_baseline
from ..players.episodes import (
    AgentChoice,
    Ending,
    EpisodeHooks,
    TrainingTable,
    play_games,
    rows_of,
)

if TYPE_CHECKING:
    from ..config import Config, TeacherConfig

__all__ = [
    "TEACHERS",
    "TEACHER_STREAM",
    "CriticWarmup",
    "ImitationTerm",
    "TeacherGames",
    "clone_teacher",
    "collect_teacher_games",
    "held_out",
    "make_teacher",
    "teacher_metrics",
]


def _greedy_teacher(seed: int, search_samples: int | None = None) -> BatchAgent:
    del search_samples
    return make_baseline("greedy", seed)


def _search_teacher(seed: int, search_samples: int | None = None) -> BatchAgent:
    from ..players.search import DEFAULT_SAMPLES, SearchBudget

    # the rollouts setting (the teacher of the shipped configs), not the agent's default
    budget = SearchBudget(samples=search_samples or DEFAULT_SAMPLES)
    return make_baseline("search", seed, budget)


TEACHERS: dict[str, Callable[..., BatchAgent]] = {
    "greedy": _greedy_teacher,
    "search": _search_teacher,
}
"""Teachers by name (the names of :data:`fortythieves_agents.config.TEACHER_NAMES`, which the
config's check reads): ``factory(seed, search_samples)`` gives a fresh
:class:`~fortythieves_agents.players.baselines.BatchAgent`. ``search`` is
:class:`fortythieves_agents.players.search.SearchAgent` with
``teacher.search_samples`` samples per move: a much stronger teacher than ``greedy``, and a
slower one (about 0.05-0.1 s per move at 16 samples, so 200 games of 300 moves take
roughly an hour on one core). ``random`` is left out on purpose: cloning uniform play
teaches nothing."""

TEACHER_STREAM = 2**32
"""Added to the run seed for the teacher games' deal generators ``(seed + 2**32, i)``: PPO's
training games draw from ``(seed + i, i)`` with ``i < n_envs < 2**32``, never the same."""

BATCH_GAMES = 64
"""Teacher games played at once."""


def make_teacher(name: str, seed: int = 0, search_samples: int | None = None) -> BatchAgent:
    """A fresh teacher agent (``search_samples``: the ``search`` teacher's samples per move;
    None: its default).

    Raises:
        ValueError: unknown name (the message lists the known ones).
    """
    try:
        factory = TEACHERS[name]
    except KeyError:
        raise ValueError(
            f"unknown teacher {name!r}; known teachers: {', '.join(TEACHERS)}"
        ) from None
    return factory(seed, search_samples)


@dataclass
class TeacherGames:
    """The teacher's moves, one row per step of the kept games (``S`` rows, ``N`` games).

    Attributes:
        obs: ``uint8 (S, size)``, the observation the teacher acted on.
        masks: ``uint8 (S, ceil(A / 8))``, its action mask bit-packed (``np.packbits``).
        actions: ``int64 (S,)``, the teacher's action.
        returns: ``float32 (S,)``, the discounted return from this step to the game's end.
        game: ``int64 (S,)``, the game number (0..N-1, in the order the games started).
        n_actions: ``A``.
        foundation_cards: ``int64 (N,)``, cards on the foundations at each game's end.
        won: ``bool (N,)``.
        lengths: ``int64 (N,)``, steps per game.
        seconds: wall time of the collection.
        ties: ``uint8 (S, ceil(A / 8))`` bit-packed, the moves the teacher rated as high as
            its own (``teacher.ties: any``; the action among them), or None (``first``).
        probs: ``float16 (S, A)``, a target distribution over the legal moves per row (soft
            targets: expert iteration's, :mod:`fortythieves_agents.training.expert`; rows sum to 1,
            0 on illegal moves), or None. When given it is the cloning target (``ties``
            is then unused).
    """

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    game: np.ndarray
    n_actions: int
    foundation_cards: np.ndarray
    won: np.ndarray
    lengths: np.ndarray
    seconds: float
    ties: np.ndarray | None = None
    probs: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    def mask_rows(self, rows: np.ndarray) -> np.ndarray:
        """The masks of ``rows`` unpacked: ``bool (len(rows), A)``."""
        return np.unpackbits(self.masks[rows], axis=1, count=self.n_actions).astype(bool)

    def target_rows(self, rows: np.ndarray) -> np.ndarray | None:
        """The cloning targets of ``rows``: ``float32 (len(rows), A)`` distributions when
        ``probs`` is given; else ``bool (len(rows), A)``, the teacher's equal best moves
        unpacked; None when the target is the action alone (``ties`` is None)."""
        if self.probs is not None:
            return self.probs[rows].astype(np.float32)
        if self.ties is None:
            return None
        return np.unpackbits(self.ties[rows], axis=1, count=self.n_actions).astype(bool)

    def summary(self) -> dict[str, Any]:
        """Games, samples, the teacher's mean foundation cards and win rate, seconds."""
        return {
            "games": int(self.lengths.shape[0]),
            "samples": len(self),
            "mean_foundation_cards": round(float(self.foundation_cards.mean()), 3),
            "win_rate": round(float(self.won.mean()), 4),
            "mean_length": round(float(self.lengths.mean()), 1),
            "collect_seconds": round(self.seconds, 2),
        }


class _TiedChoice:
    """The teacher's move and its equal best moves (``teacher.ties: any``): one
    ``action_scores`` call gives both (the BatchAgent contract: ``act_batch`` is the argmax
    of ``action_scores``, lowest index on ties, drawing the same random numbers).

    Attributes:
        best: ``bool (slots, A)``, the last call's equal best moves in the rows asked
            (False elsewhere).
    """

    def __init__(self) -> None:
        self.best = np.zeros((0, 0), dtype=bool)

    def start(self, table: Any, slots: np.ndarray) -> None:
        """Nothing to do."""

    def __call__(
        self, agent: Any, table: Any, rows: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray | None]:
        obs, masks, games = rows_of(table, rows)
        scores = np.asarray(agent.action_scores(obs, masks, games))
        chosen = np.argmax(scores, axis=1)
        top = scores[np.arange(chosen.size), chosen]
        self.best = np.zeros(table.masks.shape, dtype=bool)
        self.best[slice(None) if rows is None else rows] = (scores == top[:, None]) & (masks != 0)
        return chosen, None


class _TeacherRecords(EpisodeHooks):
    """What :func:`collect_teacher_games` records: every step's observations, bit-packed
    masks, actions, game numbers (-1 where no move was legal) and, with ``ties``, the
    teacher's equal best moves bit-packed; its rewards and ends; each kept game's result."""

    def __init__(
        self, games: int, ties: _TiedChoice | None, on_game: Callable[[], object] | None = None
    ) -> None:
        self.games = games
        self.ties = ties
        self.on_game = on_game
        self.obs: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self.actions: list[np.ndarray] = []
        self.best: list[np.ndarray] = []
        self.game: list[np.ndarray] = []
        self.rewards: list[np.ndarray] = []
        self.dones: list[np.ndarray] = []
        self.cards = np.zeros(games, dtype=np.int64)
        self.won = np.zeros(games, dtype=bool)
        self.lengths = np.zeros(games, dtype=np.int64)

    def before_step(self, table: Any, rows: np.ndarray, actions: np.ndarray) -> None:
        masks = table.masks
        self.obs.append(table.obs)  # a fresh array every step (BatchedVecEnv copies)
        self.masks.append(np.packbits(masks != 0, axis=1))
        self.actions.append(actions)
        if self.ties is not None:
            best = self.ties.best
            best[np.arange(actions.size), np.clip(actions, 0, masks.shape[1] - 1)] = True
            self.best.append(np.packbits(best, axis=1))
        self.game.append(np.where(masks.any(axis=1), table.game, -1))  # no move: nothing to learn

    def after_step(self, table: Any, rewards: np.ndarray, ended: np.ndarray) -> None:
        self.rewards.append(rewards)
        self.dones.append(ended)

    def ended(self, table: Any, ending: Ending) -> None:
        if ending.game < self.games:
            self.cards[ending.game] = ending.foundation_cards
            self.won[ending.game] = ending.won
            self.lengths[ending.game] = ending.length
            if self.on_game is not None:
                self.on_game()

    def returns(self, gamma: float) -> np.ndarray:
        """``float64 (T, B)``: the discounted return from each step to its game's end (a
        game cut by the step limit counts as ended there)."""
        rewards = np.stack(self.rewards).astype(np.float64)  # (T, B)
        dones = np.stack(self.dones)
        out = np.zeros_like(rewards)
        running = np.zeros(rewards.shape[1], dtype=np.float64)
        for t in range(rewards.shape[0] - 1, -1, -1):
            running = rewards[t] + gamma * running * ~dones[t]
            out[t] = running
        return out


def collect_teacher_games(
    config: Config,
    teacher: BatchAgent,
    games: int,
    batch: int = BATCH_GAMES,
    progress: bool = False,
    make_env: Callable[[int, int], Any] | None = None,
) -> TeacherGames:
    """Play ``games`` teacher games on the training env (see the module docstring).

    The loop is :func:`fortythieves_agents.players.episodes.play_games` on a
    :class:`~fortythieves_agents.players.episodes.TrainingTable`: only the kept games ask the
    teacher (a slow search teacher would otherwise play the surplus games that start in freed slots
    while the last kept ones finish); a surplus game takes its first legal move, and is
    dropped.

    Args:
        config: the run configuration (env, shaping, ``ppo.gamma``, ``seed``).
        teacher: the agent.
        games: games to keep.
        batch: games played at once (at most ``games``).
        progress: a tqdm bar on stderr counting the kept games that ended (the first games
            also wait for numba to compile the kernels on a first run).
        make_env: ``make_env(games_at_once, seed)`` builds the training env instead of a
            ``BatchedVecEnv`` of ``config.env`` (the family's:
            :mod:`fortythieves_agents.family.train`).

    Returns:
        The :class:`TeacherGames`; the same for the same config and teacher.

    Raises:
        ValueError: ``games`` or ``batch`` < 1.
        RuntimeError: the teacher chose an illegal action (the game is named).
    """
    from ..envs import BatchedVecEnv

    if games < 1 or batch < 1:
        raise ValueError(f"need games >= 1 and batch >= 1, got {games} and {batch}")
    start = time.perf_counter()
    gamma = config.ppo.gamma
    shaping = config.train.shaping.model_dump() if config.train.shaping is not None else None
    no_cycling = config.teacher.no_cycling  # the config requires train.no_cycling with it
    ties = _TiedChoice() if config.teacher.ties == "any" else None
    if make_env is not None:
        env = make_env(min(games, batch), config.seed + TEACHER_STREAM)
    else:
        env = BatchedVecEnv(
            config.env, min(games, batch), config.seed + TEACHER_STREAM, shaping, gamma, no_cycling
        )
    bar = _bar(progress, games, "teacher games", "game")
    records = _TeacherRecords(games, ties, bar.update)
    table = TrainingTable(env, games)
    try:
        play_games(teacher, table, ties or AgentChoice(), records)
    finally:
        bar.close()
        env.close()
    game_tb = np.stack(records.game)
    keep = ((game_tb >= 0) & (game_tb < games)).reshape(-1)
    return TeacherGames(
        obs=np.concatenate(records.obs)[keep],
        masks=np.concatenate(records.masks)[keep],
        actions=np.concatenate(records.actions)[keep],
        returns=records.returns(gamma).reshape(-1)[keep].astype(np.float32),
        game=game_tb.reshape(-1)[keep],
        n_actions=int(table.masks.shape[1]),
        foundation_cards=records.cards,
        won=records.won,
        lengths=records.lengths,
        seconds=time.perf_counter() - start,
        ties=np.concatenate(records.best)[keep] if ties is not None else None,
    )


def _bar(progress: bool, total: int, desc: str, unit: str) -> Any:
    """A tqdm bar on stderr (cleared when closed), or a disabled one without ``progress``."""
    import sys

    from tqdm import tqdm

    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        disable=not progress,
        file=sys.stderr,
        leave=False,
        dynamic_ncols=True,
    )


def held_out(data: TeacherGames) -> np.ndarray:
    """``bool (S,)``: the rows of held-out games (number ``i % 10 == 9``; with fewer than 10
    games the last one; with one game none)."""
    n_games = int(data.lengths.shape[0])
    if n_games >= 10:
        return data.game % 10 == 9
    if n_games >= 2:
        return data.game == n_games - 1
    return np.zeros(len(data), dtype=bool)


def _tensors(policy: Any, data: TeacherGames, rows: np.ndarray) -> tuple[Any, Any, Any, Any]:
    """Observations, masks, actions and targets (None: the action alone) of ``rows``."""
    import torch

    device = policy.device
    obs = torch.as_tensor(data.obs[rows].astype(np.float32), device=device)
    masks = torch.as_tensor(data.mask_rows(rows), device=device)
    actions = torch.as_tensor(data.actions[rows], device=device)
    targets = data.target_rows(rows)
    if targets is not None:
        targets = torch.as_tensor(targets, device=device)
    return obs, masks, actions, targets


def _cross_entropy(
    policy: Any, obs: Any, masks: Any, actions: Any, targets: Any = None
) -> tuple[Any, Any]:
    """The mean cloning loss and the masked distribution: ``-log pi(action | obs)``, or with
    ``targets`` (``bool (B, A)``, the teacher's equal best moves) ``-log`` of their total
    probability, so the network may break the teacher's ties by what it sees; with
    ``float`` targets (``(B, A)`` distributions, 0 on illegal moves) the cross-entropy
    ``-sum_a p(a) log pi(a | s)``."""
    distribution = policy.get_distribution(obs, action_masks=masks)
    if targets is None:
        return -distribution.log_prob(actions).mean(), distribution
    log_probs = distribution.distribution.logits  # normalised, illegal moves at -1e8
    if targets.is_floating_point():
        return -(targets * log_probs.masked_fill(~masks, 0.0)).sum(dim=1).mean(), distribution
    chosen = log_probs.masked_fill(~targets, float("-inf")).logsumexp(dim=1)
    return -chosen.mean(), distribution


def teacher_metrics(policy: Any, data: TeacherGames, rows: np.ndarray) -> dict[str, float]:
    """The policy against the teacher on ``rows`` (``int`` indices).

    Returns:
        ``loss`` (mean cross-entropy, nats), ``accuracy`` (share of rows where the policy's
        most likely legal move is the teacher's, or one of its equal best with ``ties``),
        ``illegal_probability`` (the largest probability put on an illegal move; 0 with
        masking), ``value_mse`` (critic against the returns) and ``samples``.
    """
    import torch

    total = {"loss": 0.0, "accuracy": 0.0, "illegal_probability": 0.0, "value_mse": 0.0}
    if rows.size == 0:
        return {**total, "samples": 0}
    with torch.no_grad():
        for chunk in np.array_split(rows, max(1, -(-rows.size // 2048))):
            obs, masks, actions, targets = _tensors(policy, data, chunk)
            loss, distribution = _cross_entropy(policy, obs, masks, actions, targets)
            probs = distribution.distribution.probs
            values = policy.predict_values(obs).flatten()
            returns = torch.as_tensor(data.returns[chunk], device=values.device)
            total["loss"] += float(loss) * chunk.size
            picked = probs.argmax(1)
            if targets is None:
                agree = picked == actions
            elif targets.is_floating_point():  # a most likely move of the target
                agree = targets.gather(1, picked[:, None]).squeeze(1) >= targets.max(1).values
            else:
                agree = targets.gather(1, picked[:, None]).squeeze(1)
            total["accuracy"] += float(agree.float().sum())
            illegal = float(probs.masked_fill(masks, 0.0).max()) if chunk.size else 0.0
            total["illegal_probability"] = max(total["illegal_probability"], illegal)
            total["value_mse"] += float(((values - returns) ** 2).sum())
    out = {k: v / rows.size for k, v in total.items() if k != "illegal_probability"}
    out["illegal_probability"] = total["illegal_probability"]
    return {**{k: round(v, 6) for k, v in out.items()}, "samples": int(rows.size)}


def actor_parameters(policy: Any, obs: Any, masks: Any) -> set[int]:
    """``id`` of every parameter of ``policy`` that its masked action distribution on ``obs``
    (``float32 (B, size)`` tensor) and ``masks`` (``bool (B, A)``) depends on: the
    parameters that get a gradient from the distribution's entropy (a gradient test, so it
    holds for either network; ``card_slots``' shared features extractor counts as actor)."""
    policy.zero_grad(set_to_none=True)
    policy.get_distribution(obs, action_masks=masks).entropy().sum().backward()
    actor = {id(p) for p in policy.parameters() if p.grad is not None}
    policy.zero_grad(set_to_none=True)
    return actor


def clone_teacher(
    model: Any,
    data: TeacherGames,
    config: TeacherConfig,
    max_grad_norm: float,
    seed: int,
    on_epoch: Callable[[str, int, float], object] | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Behaviour cloning of ``model.policy`` on ``data``, then (``config.fit_value``) the
    critic's own layers on the returns (see the module docstring).

    Args:
        model: a ``MaskablePPO`` (either network).
        data: the teacher games.
        config: ``teacher.*``.
        max_grad_norm: gradient clipping (``ppo.max_grad_norm``).
        seed: shuffles the samples (``numpy.random.default_rng((seed, 1))``).
        on_epoch: called with ``("policy" | "value", epoch, mean loss)`` after each pass.
        progress: a tqdm bar on stderr counting the minibatches of every pass (policy, then
            value).

    Returns:
        JSON-ready: ``held_out_games``, ``train_samples``, ``before`` and ``after``
        (:func:`teacher_metrics` on the held-out rows), ``train_after`` (on the training
        rows), ``value_fitted`` and ``seconds``.
    """
    import torch

    start = time.perf_counter()
    policy = model.policy
    test = held_out(data)
    train_rows = np.flatnonzero(~test)
    test_rows = np.flatnonzero(test)
    measure_rows = test_rows if test_rows.size else train_rows
    policy.set_training_mode(False)
    before = teacher_metrics(policy, data, measure_rows)
    rng = np.random.default_rng((seed, 1))
    policy.set_training_mode(True)
    obs, masks, *_ = _tensors(policy, data, train_rows[:64])
    actor = actor_parameters(policy, obs, masks)
    critic = [p for p in policy.parameters() if id(p) not in actor]
    fit = config.fit_value and bool(critic)
    batches = -(-train_rows.size // config.batch_size) * config.epochs
    bar = _bar(progress, batches * (2 if fit else 1), "behaviour cloning", "batch")

    def passes(kind: str, params: list[Any], loss_of: Callable[[np.ndarray], Any]) -> None:
        optimizer = torch.optim.Adam(params, lr=config.learning_rate)
        for epoch in range(config.epochs):
            order = rng.permutation(train_rows)
            losses = []
            for k in range(0, order.size, config.batch_size):
                loss = loss_of(order[k : k + config.batch_size])
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(params, max_grad_norm)
                optimizer.step()
                losses.append(float(loss.detach()))
                bar.update()
            if on_epoch is not None:
                on_epoch(kind, epoch, float(np.mean(losses)))
        policy.zero_grad(set_to_none=True)

    def policy_loss(rows: np.ndarray) -> Any:
        return _cross_entropy(policy, *_tensors(policy, data, rows))[0]

    def value_loss(rows: np.ndarray) -> Any:
        obs = _tensors(policy, data, rows)[0]
        returns = torch.as_tensor(data.returns[rows], device=obs.device)
        return torch.nn.functional.mse_loss(policy.predict_values(obs).flatten(), returns)

    try:
        passes("policy", list(policy.parameters()), policy_loss)
        if fit:
            passes("value", critic, value_loss)
    finally:
        bar.close()
    policy.set_training_mode(False)
    return {
        "held_out_games": int(np.unique(data.game[test_rows]).size),
        "train_samples": int(train_rows.size),
        "before": before,
        "after": teacher_metrics(policy, data, measure_rows),
        "train_after": teacher_metrics(policy, data, train_rows),
        "value_fitted": fit,
        "seconds": round(time.perf_counter() - start, 2),
    }


class ImitationTerm(BaseCallback):
    """Add ``coef_t * CE(teacher action)`` to every PPO minibatch's loss.

    ``coef_t = coef * max(0, 1 - t / (fraction * total_timesteps))`` with ``t`` the model's
    step count when the update starts (so a resume continues the schedule). MaskablePPO's
    ``train`` zeroes the gradients, back-propagates the minibatch's loss, clips and steps;
    while training runs, the optimizer's ``zero_grad`` is wrapped to back-propagate
    ``coef_t`` times the cross-entropy of a fresh minibatch of ``batch_size`` teacher samples
    right after the zeroing, so the two gradients add up before the clipping, exactly as if
    the term were part of the loss. With ``coef_t == 0`` nothing is added (no cost). TensorBoard:
    ``teacher/imitation_coef`` and ``teacher/imitation_loss`` (mean of the last update).

    Raises:
        ValueError: ``coef`` < 0, ``fraction`` not in (0, 1], or no training sample.
    """

    def __init__(
        self,
        data: TeacherGames,
        coef: float,
        fraction: float,
        total_timesteps: int,
        batch_size: int,
        seed: int = 0,
    ) -> None:
        super().__init__()
        if coef < 0 or not 0 < fraction <= 1:
            raise ValueError(f"need coef >= 0 and 0 < fraction <= 1, got {coef} and {fraction}")
        self.data = data
        self.rows = np.flatnonzero(~held_out(data))
        if self.rows.size == 0:
            raise ValueError("ImitationTerm: no teacher sample to imitate")
        self.coef, self.fraction = float(coef), float(fraction)
        self.total_timesteps, self.batch_size = int(total_timesteps), int(batch_size)
        self.rng = np.random.default_rng((seed, 2))
        self.current = 0.0
        self.losses: list[float] = []
        self._optimizer: Any = None

    def coef_at(self, timesteps: int) -> float:
        """The weight at step ``timesteps`` (see the class docstring)."""
        return self.coef * max(0.0, 1.0 - timesteps / (self.fraction * self.total_timesteps))

    def _zero_grad(self, *args: Any, **kwargs: Any) -> None:
        type(self._optimizer).zero_grad(self._optimizer, *args, **kwargs)
        if self.current <= 0.0:
            return
        policy = self.model.policy
        rows = self.rng.choice(self.rows, size=min(self.batch_size, self.rows.size))
        loss = _cross_entropy(policy, *_tensors(policy, self.data, rows))[0]
        if loss.requires_grad:  # not while CriticWarmup holds the actor still
            (self.current * loss).backward()
        self.losses.append(float(loss.detach()))

    def install(self) -> None:
        """Wrap the policy optimizer's ``zero_grad`` (idempotent)."""
        if self._optimizer is None:
            self._optimizer = self.model.policy.optimizer
            self._optimizer.zero_grad = self._zero_grad

    def remove(self) -> None:
        """Put the optimizer's own ``zero_grad`` back (idempotent)."""
        if self._optimizer is not None:
            del self._optimizer.zero_grad
            self._optimizer = None

    def _on_training_start(self) -> None:
        self.install()

    def _on_rollout_end(self) -> None:
        if self.losses:
            self.logger.record("teacher/imitation_loss", float(np.mean(self.losses)))
            self.losses = []
        self.current = self.coef_at(int(self.model.num_timesteps))
        self.logger.record("teacher/imitation_coef", self.current)

    def _on_step(self) -> bool:
        return True

    def _on_training_end(self) -> None:
        self.remove()


class CriticWarmup(BaseCallback):
    """Only the critic learns during the first ``steps`` PPO steps (``train.critic_warmup``).

    A cloned policy meets PPO with a critic fitted to the teacher's games at best, and its
    first advantages are mostly the critic's error: fine-tuning from a cloned policy then
    typically drops below the clone before it recovers (PIRLNav: Ramrakhya et al., "PIRLNav:
    Pretraining with Imitation and RL Finetuning for ObjectNav", CVPR 2023, who warm the
    critic up with the actor frozen for this reason). For every PPO update whose rollout
    ends by step ``steps`` (``model.num_timesteps <= steps`` when the rollout ends; a resume
    continues the schedule) every parameter the actor's distribution depends on
    (:func:`actor_parameters`) has ``requires_grad`` off: PPO's policy and entropy terms
    move nothing, its value loss trains the critic's own layers on the rollouts of the
    policy it will judge, and the imitation term (:class:`ImitationTerm`) waits. Then the
    actor learns as usual (Adam starts its moments for it then). TensorBoard:
    ``train/actor_frozen`` (1 or 0).

    Raises:
        ValueError: ``steps`` < 0.
    """

    def __init__(self, steps: int) -> None:
        super().__init__()
        if steps < 0:
            raise ValueError(f"need steps >= 0, got {steps}")
        self.steps = int(steps)
        self.actor: list[Any] = []
        self.frozen = False

    def _on_training_start(self) -> None:
        import torch
        from sb3_contrib.common.maskable.utils import get_action_masks

        policy = self.model.policy
        obs, _ = policy.obs_to_tensor(self.model._last_obs)
        masks = torch.as_tensor(get_action_masks(self.model.env), device=policy.device)
        ids = actor_parameters(policy, obs.float(), masks.bool())
        self.actor = [p for p in policy.parameters() if id(p) in ids]
        self._update()

    def _update(self) -> None:
        frozen = self.model.num_timesteps <= self.steps
        if frozen != self.frozen:
            for p in self.actor:
                p.requires_grad_(not frozen)
            self.frozen = frozen
        self.logger.record("train/actor_frozen", int(frozen))

    def _on_rollout_end(self) -> None:
        self._update()

    def _on_step(self) -> bool:
        return True

    def _on_training_end(self) -> None:
        self.release()

    def release(self) -> None:
        """Let the actor learn again (idempotent; also after Ctrl-C)."""
        for p in self.actor:
            p.requires_grad_(True)
        self.frozen = False
