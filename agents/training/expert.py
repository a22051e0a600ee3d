"""Expert iteration: the network learns what the search knows (Anthony, Tian and Barber 2017).

With ``expert.iterations > 0`` (:class:`~fortythieves_agents.config.ExpertConfig`),
``fortythieves train`` runs, after the teacher's behaviour cloning (if any) and before PPO,
``iterations`` rounds of:

1. **Labels** (:func:`label_game`, DAgger; Ross, Gordon and Bagnell 2011). ``expert.games``
   games on training deals (seeds drawn from ``numpy.random.default_rng((seed + EXPERT_STREAM,
   i))`` for iteration ``i``: never a validation or test deal, never PPO's or the teacher's
   draws), played by :class:`DaggerPlayer`: at every position the search agent
   (:class:`~fortythieves_agents.players.search.SearchAgent`, the solving setting at
   ``expert.search_seconds`` per move, ``expert.search_nodes`` nodes per sample) scores the
   moves and values its candidates; the move played is the search's with probability
   ``beta_i = mixing * mixing_decay**i`` and the network's (its most likely legal move)
   otherwise, one uniform draw per move from ``default_rng((seed, EXPERT_STREAM, i, game))``.
   The games follow the agents' no-cycling rule (as evaluation does). Both players see only
   what a player sees: the network its observation, the search the player's view
   (:mod:`fortythieves_agents.players.search`), so the labels never read a hidden card.
2. **Targets** (:func:`targets_from_search`). ``hard`` (the default): the search's move,
   one-hot. ``soft``: a softmax of the search's candidate
   values over ``temperature`` (values: the mean over the sampled positions of 1 won, 0 lost,
   ``cards / 208`` unsolved; moves the search did not value get 0, a move it demoted as a
   return to a view already met gets 0); the only or safe move the search plays without
   searching is a one-hot target. With ``move_weight``
   ``w > 0`` a soft target is ``w`` on the search's own move plus ``1 - w`` spread by the
   values (equally valued moves are told apart by the search's fusion-free tie-break).
   ``improve``: the network's own distribution times ``exp(value / temperature)``,
   normalised (a regularised policy-improvement step: where the values tie, the network
   keeps its preferences; :func:`targets_from_search`).
   The value target is the game's discounted return from the position on (``ppo.gamma``,
   the training env's rewards and shaping, as the teacher's).
3. **Fit** (:func:`~fortythieves_agents.training.teacher.clone_teacher`, the behaviour cloning's
   machinery): ``expert.epochs`` passes of Adam over the labels of the last
   ``expert.window`` iterations (cross-entropy with the targets; every 10th game held out to
   measure), then the critic's own layers on the returns (``expert.fit_value``).
4. **Validation**: the network alone plays ``expert.validation_games`` validation deals
   from validation deal ``expert.validation_first`` (deterministic, no-cycling rule): the
   learning curve per iteration. Past the deals the start network was picked on, the start
   and the stages are judged alike.

**Files** (``RUN/expert/``, out of git: label data is large)::

    state.json                 one entry per finished iteration (labels, timings, fit and
                               validation metrics), written after each
    iter-NNN/start.zip         the network the iteration's games were played with
    iter-NNN/game-GGGGG.npz    one labelled game, written (atomically) as it ends
    iter-NNN/model.zip         the network after the iteration's fit
    model.zip                  the last iteration's network (what PPO starts from)

**Resume.** An interrupted run continues with ``fortythieves train CONFIG --resume RUN``:
finished iterations are kept, the interrupted one restarts from its ``start.zip`` and keeps
its finished games (each game depends only on the start network, the seed, the iteration and
its deal: the search's samples are seeded by the view, the mixing draws by the game), and its
fit restarts from ``start.zip`` with the same shuffling and torch seed. So a resumed run's
networks equal those of a run that never stopped, bit for bit with one torch thread
(``train.torch_threads: 1``, the shipped setting; ``tests/agents/training/test_expert.py``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from fortythieves_env.rules.actions import codec_for

from ..players.search import SearchAgent, SearchBudget
from ..run_folder import ExpertFolder, RunFolder, atomic_write
from ..seeds import TRAIN_RANGE

if TYPE_CHECKING:
    from fortythieves_env.rules.variants import VariantSpec

    from ..config import Config, ExpertConfig
    from .teacher import TeacherGames

__all__ = [
    "EXPERT_STREAM",
    "DaggerPlayer",
    "beta_at",
    "expert_fingerprint",
    "expert_seeds",
    "fingerprint_differences",
    "label_game",
    "load_labels",
    "run_expert_iterations",
    "targets_from_search",
    "validate_network",
]

EXPERT_STREAM = 2**33
"""Added to the run seed for the expert games' deal draws (PPO's games draw from
``(seed + i, i)`` and the teacher's from ``seed + 2**32``)."""


def beta_at(config: ExpertConfig, iteration: int) -> float:
    """The probability that the search's move is played in iteration ``iteration``:
    ``mixing * mixing_decay ** iteration``."""
    return float(config.mixing * config.mixing_decay**iteration)


def expert_seeds(seed: int, iteration: int, games: int) -> list[int]:
    """The training deal seeds of iteration ``iteration`` (``games`` of them, in
    ``TRAIN_RANGE``; the same for the same arguments)."""
    rng = np.random.default_rng((seed + EXPERT_STREAM, iteration))
    return [int(s) for s in rng.integers(TRAIN_RANGE[0], TRAIN_RANGE[1], size=games)]


def targets_from_search(
    scores: np.ndarray,
    values: np.ndarray,
    mask: np.ndarray,
    targets: str,
    temperature: float,
    move_weight: float = 0.0,
    prior: np.ndarray | None = None,
) -> np.ndarray:
    """The target distribution of one position (module docstring, point 2).

    Args:
        scores: ``float64 (A,)``, the search's scores (:meth:`SearchAgent.action_scores`;
            its move is the argmax, a demoted return to a seen view scores below 0).
        values: ``float64 (A,)``, the candidates' values (NaN: not valued).
        mask: ``(A,)``, the legal moves (non-zero).
        targets: ``"soft"``, ``"hard"`` or ``"improve"``.
        temperature: of the soft and improve targets (> 0).
        move_weight: with ``soft``, the share of the target put on the search's own move
            (its argmax: among equally valued moves the one its fusion-free tie-break
            prefers), the rest spread by the values; 0: the values alone.
        prior: with ``improve``, the network's logits (``(A,)``, ``-inf`` where illegal):
            the target is ``pi(a) exp(q(a) / temperature)`` normalised, ``pi`` the
            network's distribution and ``q`` the values (a legal move the search did not
            value gets the lowest value of those it did; a demoted return to a seen view
            gets no mass): a policy-improvement step that keeps the network's own
            preferences where the values tie and moves mass to the better-valued moves
            where they differ (as MPO and AlphaZero-style regularised targets do).

    Returns:
        ``float32 (A,)``: a distribution over the legal moves (sums to 1).

    Raises:
        ValueError: no legal move, an unknown ``targets``, or ``improve`` without ``prior``.
    """
    legal = np.asarray(mask) != 0
    if not legal.any():
        raise ValueError("targets_from_search: no legal move")
    if targets not in ("soft", "hard", "improve"):
        raise ValueError(f"targets must be 'soft', 'hard' or 'improve', got {targets!r}")
    if targets == "improve" and prior is None:
        raise ValueError("targets_from_search: 'improve' needs the network's logits (prior)")
    out = np.zeros(scores.shape[0], dtype=np.float64)
    best = int(np.argmax(np.where(legal, scores, -np.inf)))
    valued = legal & ~np.isnan(values) & (scores >= 0)
    if targets == "hard" or not valued.any():
        out[best] = 1.0
        return out.astype(np.float32)
    if targets == "improve":
        assert prior is not None
        allowed = legal & (scores >= 0)
        q = np.where(valued, values, values[valued].min())
        logits = np.where(allowed, np.asarray(prior, dtype=np.float64) + q / temperature, -np.inf)
        weights = np.exp(logits - logits[allowed].max())
        out[allowed] = weights[allowed] / weights[allowed].sum()
        return out.astype(np.float32)
    v = values[valued]
    weights = np.exp((v - v.max()) / temperature)
    out[valued] = (1.0 - move_weight) * weights / weights.sum()
    out[best] += move_weight
    return out.astype(np.float32)


@dataclass
class _GameLabels:
    obs: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    probs: list[np.ndarray] = field(default_factory=list)
    values: list[np.ndarray] = field(default_factory=list)
    search_moves: list[int] = field(default_factory=list)
    network_moves: list[int] = field(default_factory=list)


class DaggerPlayer:
    """The player of the labelled games (a
    :class:`~fortythieves_agents.players.baselines.BatchAgent`): the search labels every position,
    the search's or the network's move is played (module docstring, point 1).

    Args:
        network: the network's agent (:class:`~fortythieves_agents.evaluation.evaluate.ModelAgent`,
            deterministic).
        search: the search agent that labels.
        beta: probability of playing the search's move (in [0, 1]).
        seed: the run seed.
        iteration: the iteration (with ``seed`` and the game it seeds the mixing draws).
        targets: ``"hard"``, ``"soft"`` or ``"improve"`` (:func:`targets_from_search`).
        temperature: of the soft and improve targets.
        move_weight: the share of a soft target on the search's own move.
    """

    def __init__(
        self,
        network: Any,
        search: SearchAgent,
        beta: float,
        seed: int,
        iteration: int,
        targets: str = "hard",
        temperature: float = 0.05,
        move_weight: float = 0.0,
    ) -> None:
        self.name = "dagger"
        self.batch_size = 1
        self.network = network
        self.search = search
        self.beta = float(beta)
        self.seed = int(seed)
        self.iteration = int(iteration)
        self.targets = targets
        self.temperature = float(temperature)
        self.move_weight = float(move_weight)
        self.labels: dict[int, _GameLabels] = {}
        self._draws: dict[int, np.random.Generator] = {}
        self.spec: VariantSpec | None = None

    def start_games(self, spec: VariantSpec, games: np.ndarray) -> None:
        self.spec = spec
        self.search.start_games(spec, games)
        for g in games.tolist():
            self.labels[int(g)] = _GameLabels()
            self._draws[int(g)] = np.random.default_rng(
                (self.seed, EXPERT_STREAM, self.iteration, int(g))
            )

    def end_games(self, games: np.ndarray) -> None:
        self.search.end_games(games)
        for g in games.tolist():
            self._draws.pop(int(g), None)

    def action_scores(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        """Label each row; return the scores of the player whose move is played (the
        search's or the network's masked logits): ``float64 (B, A)``, ``-inf`` illegal."""
        values = np.full(masks.shape, np.nan, dtype=np.float64)
        searched = self.search.action_scores(obs, masks, games, values)
        network = np.asarray(self.network.action_scores(obs, masks, games), dtype=np.float64)
        out = np.empty_like(searched)
        for b, g in enumerate(games.tolist()):
            record = self.labels[int(g)]  # one row per call: they line up with the moves
            record.obs.append(np.array(obs[b], dtype=np.uint8))
            record.masks.append(np.packbits(masks[b] != 0))
            probs = np.zeros(masks.shape[1], dtype=np.float16)
            if masks[b].any():
                probs[:] = targets_from_search(
                    searched[b],
                    values[b],
                    masks[b],
                    self.targets,
                    self.temperature,
                    self.move_weight,
                    network[b],
                )
            record.probs.append(probs)
            record.values.append(values[b].astype(np.float16))
            record.search_moves.append(int(np.argmax(searched[b])))
            record.network_moves.append(int(np.argmax(network[b])))
            use_search = self._draws[int(g)].random() < self.beta
            out[b] = searched[b] if use_search else network[b]
        return out

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        return np.argmax(self.action_scores(obs, masks, games), axis=1).astype(np.int64)


def _returns(
    env_id: str, seed: int, actions: np.ndarray, gamma: float, config: Config | None = None
) -> np.ndarray:
    """The discounted return from each step of the game ``actions`` on deal ``seed``
    (``float32 (T,)``): the game replayed in a fresh env of ``env_id`` for its rewards, with
    the training env's reward settings (``env.reward_per_card``, ``win_bonus``,
    ``illegal_action_penalty``) and ``train.shaping`` when ``config`` is given, as the
    teacher's returns and PPO's critic see them (the step limit stays the game's)."""
    import gymnasium as gym

    kwargs: dict[str, Any] = {}
    shaping = None
    if config is not None:
        made = config.env.make_kwargs()
        kwargs = {k: made[k] for k in ("reward_per_card", "win_bonus", "illegal_action_penalty")}
        shaping = config.train.shaping
    env = gym.make(env_id, **kwargs)
    if shaping is not None:
        from ..shaping import PotentialShaping

        env = PotentialShaping(env, gamma, **shaping.model_dump())
    try:
        env.reset(seed=seed)
        rewards = np.array([float(env.step(int(a))[1]) for a in actions], dtype=np.float64)
    finally:
        env.close()
    out = np.zeros(rewards.shape[0], dtype=np.float32)
    running = 0.0
    for t in range(rewards.shape[0] - 1, -1, -1):
        running = rewards[t] + gamma * running
        out[t] = running
    return out


def label_game(
    player: DaggerPlayer,
    env_id: str,
    seed: int,
    game: int,
    gamma: float,
    config: Config | None = None,
) -> dict[str, np.ndarray]:
    """Play and label one game (deal ``seed``, game number ``game`` of the iteration); the
    value targets use ``config``'s training rewards (:func:`_returns`) when given.

    Returns:
        The arrays of the game's file: ``obs uint8 (T, size)``, ``masks uint8 (T, ceil(A/8))``
        (bit-packed), ``probs float16 (T, A)`` (the targets), ``values float16 (T, A)``
        (the search's values, NaN where none), ``actions int64 (T,)`` (the moves played),
        ``search_moves`` and ``network_moves`` ``int64 (T,)``, ``returns float32 (T,)``, and
        0-d ``seed``, ``won``, ``foundation_cards``, ``length``, ``stuck``, ``n_actions``.

    Raises:
        RuntimeError: the labels do not line up with the moves played (a bug).
    """
    from ..evaluation.evaluate import play_deals

    traces: list[Any] = []
    result = play_deals(player, env_id, [seed], batch_size=1, traces=traces, first_game=game)[0]
    record = player.labels.pop(game)
    actions = np.asarray(traces[0].actions, dtype=np.int64)
    if len(record.obs) < actions.shape[0]:
        raise RuntimeError(
            f"expert game {game}: {len(record.obs)} labels for {actions.shape[0]} moves"
        )
    n = actions.shape[0]  # a stuck game's last call made no move: dropped here
    spec = player.spec
    assert spec is not None  # play_deals started the game
    n_actions = int(record.probs[0].shape[0]) if record.probs else codec_for(spec).n_actions
    width = -(-n_actions // 8)
    size = record.obs[0].shape[0] if record.obs else 0

    def rows(items: list[np.ndarray], shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        return np.stack(items[:n]).reshape(n, *shape) if n else np.zeros((0, *shape), dtype)

    probs = rows(record.probs, (n_actions,), np.float16)
    keep = probs.sum(axis=1) > 0  # a position with no legal move teaches nothing
    return {
        "obs": rows(record.obs, (size,), np.uint8)[keep],
        "masks": rows(record.masks, (width,), np.uint8)[keep],
        "probs": probs[keep],
        "values": rows(record.values, (n_actions,), np.float16)[keep],
        "actions": actions[keep],
        "search_moves": np.asarray(record.search_moves[:n], dtype=np.int64)[keep],
        "network_moves": np.asarray(record.network_moves[:n], dtype=np.int64)[keep],
        "returns": _returns(env_id, seed, actions, gamma, config)[keep],
        "seed": np.int64(seed),
        "won": np.bool_(result.won),
        "foundation_cards": np.int64(result.foundation_cards),
        "length": np.int64(result.length),
        "stuck": np.bool_(result.stuck),
        "n_actions": np.int64(n_actions),
    }


def _label_and_save(
    player: DaggerPlayer, config: Config, env_id: str, seed: int, game: int, path: Path
) -> int:
    """:func:`label_game` with ``config``'s rewards, its arrays written (atomically) to
    ``path``; returns the game's labels."""
    import io

    arrays = label_game(player, env_id, seed, game, config.ppo.gamma, config)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    atomic_write(path, buffer.getvalue())
    return int(arrays["actions"].shape[0])


def load_labels(folder: ExpertFolder, iterations: list[int], games: int) -> TeacherGames:
    """The labelled games of ``iterations`` (``games`` each) as one
    :class:`~fortythieves_agents.training.teacher.TeacherGames` with soft targets (``probs``); games
    are numbered ``0 .. len(iterations) * games - 1`` in the order of ``iterations``
    (``k * games + g`` for game ``g`` of the ``k``-th), so the held-out games
    (:func:`~fortythieves_agents.training.teacher.held_out`) are every 10th of the window, or its
    last one with fewer than 10.

    Raises:
        FileNotFoundError: a game file is missing.
        ValueError: no game of ``iterations`` has a labelled position.
    """
    from .teacher import TeacherGames

    parts: dict[str, list[np.ndarray]] = {
        k: [] for k in ("obs", "masks", "probs", "actions", "returns", "game")
    }
    cards, won, lengths = [], [], []
    n_actions = 0
    for k_iter, i in enumerate(iterations):
        for g in range(games):
            with np.load(folder.game(i, g)) as data:
                t = int(data["actions"].shape[0])
                if t:
                    for k in ("obs", "masks", "probs", "actions", "returns"):
                        parts[k].append(data[k])
                    parts["game"].append(np.full(t, k_iter * games + g, dtype=np.int64))
                    n_actions = int(data["n_actions"])
                cards.append(int(data["foundation_cards"]))
                won.append(bool(data["won"]))
                lengths.append(int(data["length"]))
    if not parts["obs"]:
        raise ValueError(
            f"expert iterations {iterations}: no labelled position in their games (every "
            "deal had no legal move)"
        )
    return TeacherGames(
        obs=np.concatenate(parts["obs"]),
        masks=np.concatenate(parts["masks"]),
        actions=np.concatenate(parts["actions"]),
        returns=np.concatenate(parts["returns"]).astype(np.float32),
        game=np.concatenate(parts["game"]),
        n_actions=n_actions,
        foundation_cards=np.asarray(cards, dtype=np.int64),
        won=np.asarray(won, dtype=bool),
        lengths=np.asarray(lengths, dtype=np.int64),
        seconds=0.0,
        probs=np.concatenate(parts["probs"]),
    )


FINGERPRINT_KEYS = ("env", "policy", "seed", "train.teacher", "train.shaping", "teacher")
"""The config keys expert iterations depend on besides ``expert.*`` (and ``ppo.gamma``,
``ppo.max_grad_norm``): a continued run must keep them (:func:`expert_fingerprint`)."""


def expert_fingerprint(config: Config) -> dict[str, Any]:
    """The settings a run's expert iterations are made with, flattened to ``key: value``
    (``expert.*`` but ``iterations``, ``workers`` and ``validation_games``, which a continued
    run may change; :data:`FINGERPRINT_KEYS`; ``ppo.gamma``, ``ppo.max_grad_norm``)."""
    data = config.model_dump(mode="json")
    out: dict[str, Any] = {}

    def flat(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                flat(f"{prefix}.{k}", v)
        else:
            out[prefix] = value

    for key in FINGERPRINT_KEYS:
        node: Any = data
        for part in key.split("."):
            node = node[part]
        flat(key, node)
    for key, value in data["expert"].items():
        if key not in ("iterations", "workers", "validation_games"):
            out[f"expert.{key}"] = value
    out["ppo.gamma"] = data["ppo"]["gamma"]
    out["ppo.max_grad_norm"] = data["ppo"]["max_grad_norm"]
    return out


ADDED_SETTINGS: dict[str, Any] = {
    "policy.player.unseen_inputs": False,
    "expert.validation_first": 0,
}
"""Fingerprint settings added after runs were first saved, with the value the runs saved
before them were made with (a saved fingerprint without the key means that value)."""


def fingerprint_differences(saved: dict[str, Any], config: Config) -> list[str]:
    """``key: saved -> now`` for each setting of :func:`expert_fingerprint` that differs (a
    key a run saved before it existed holds its :data:`ADDED_SETTINGS` value)."""
    now = expert_fingerprint(config)
    was = {**{k: v for k, v in ADDED_SETTINGS.items() if k not in saved}, **saved}
    return [
        f"{k}: {was.get(k)!r} -> {now.get(k)!r}"
        for k in sorted(set(was) | set(now))
        if was.get(k) != now.get(k)
    ]


def refuse_other_settings(run: Path, state: dict[str, Any], config: Config) -> None:
    """Refuse to continue the expert iterations of ``run`` (its ``state.json`` read as
    ``state``) with ``config`` when settings of :func:`expert_fingerprint` differ.

    Raises:
        ConfigError: one line naming each changed setting (only ``expert.iterations``,
            ``expert.workers`` and ``expert.validation_games`` may change).
    """
    from ..config import ConfigError

    changed = fingerprint_differences(state.get("config", {}), config)
    if changed:
        raise ConfigError(
            f"--resume {run}: the expert iterations were made with other settings ("
            + "; ".join(changed)
            + "); continue with the run's config.yaml (only expert.iterations, "
            "expert.workers and expert.validation_games may change)"
        )


def _player(config: Config, model: Any, iteration: int) -> DaggerPlayer:
    """The labelling player of ``iteration`` (module docstring, point 1)."""
    from ..evaluation.evaluate import ModelAgent

    ec = config.expert
    budget = SearchBudget(method="solve", seconds=ec.search_seconds, nodes=ec.search_nodes)
    return DaggerPlayer(
        ModelAgent(model, "network"),
        SearchAgent(config.seed, budget),
        beta_at(ec, iteration),
        config.seed,
        iteration,
        ec.targets,
        ec.temperature,
        ec.move_weight,
    )


_WORKER_MODELS: dict[str, Any] = {}
"""A labelling worker's networks, by start model path (loaded once per process)."""


def _label_task(
    config: Config, env_id: str, start: str, iteration: int, game: int, seed: int, path: str
) -> int:
    """One game labelled in a worker process (``expert.workers > 1``): the iteration's start
    network loaded from ``start``, one torch thread; the game file written. Returns its
    labels."""
    import torch

    from ..envs import register_config_variant
    from ..networks.model_zip import load_maskable_ppo

    torch.set_num_threads(1)
    register_config_variant(config.env)
    model = _WORKER_MODELS.get(start)
    if model is None:
        _WORKER_MODELS.clear()
        model = _WORKER_MODELS[start] = load_maskable_ppo(start, device="cpu")
    player = _player(config, model, iteration)
    return _label_and_save(player, config, env_id, seed, game, Path(path))


def _label_games(
    config: Config, model: Any, folder: ExpertFolder, iteration: int, env_id: str
) -> tuple[int, int]:
    """Label the games of ``iteration`` that have no file yet: in this process, or with
    ``expert.workers`` processes one game each at a time (the same files either way: a
    game depends on the start network, the seeds and its deal only).

    Returns:
        ``(labels made now, games kept from an earlier start)``.
    """
    ec = config.expert
    todo = [
        (g, seed)
        for g, seed in enumerate(expert_seeds(config.seed, iteration, ec.games))
        if not folder.game(iteration, g).is_file()
    ]
    kept = ec.games - len(todo)
    if ec.workers == 1 or len(todo) <= 1:
        player = _player(config, model, iteration)
        labelled = sum(
            _label_and_save(player, config, env_id, seed, g, folder.game(iteration, g))
            for g, seed in todo
        )
        return labelled, kept
    import multiprocessing

    start = str(folder.start_model(iteration))
    context = multiprocessing.get_context("spawn")
    pool = context.Pool(min(ec.workers, len(todo)))
    try:
        pending = [
            pool.apply_async(
                _label_task,
                (config, env_id, start, iteration, g, seed, str(folder.game(iteration, g))),
            )
            for g, seed in todo
        ]
        labelled = sum(job.get() for job in pending)
        pool.close()
    except BaseException:
        pool.terminate()  # a stop ends the games in play at once (their files are not written)
        raise
    finally:
        pool.join()
    return labelled, kept


def validate_network(model: Any, env_id: str, games: int, first: int = 0) -> dict[str, Any] | None:
    """The network alone (``model``, a ``MaskablePPO``; deterministic, the no-cycling rule,
    one torch thread) on ``games`` validation deals of ``env_id`` from validation deal
    ``first``: the :func:`~fortythieves_agents.evaluation.evaluate.summarize` of its games;
    None for ``games`` 0."""
    if games == 0:
        return None
    from ..evaluation.evaluate import (
        ModelAgent,
        play_deals,
        single_torch_thread,
        summarize,
    )
    from ..seeds import seeds_for_validation

    with single_torch_thread():
        seeds = seeds_for_validation(games, first)
        results = play_deals(ModelAgent(model, "expert"), env_id, seeds)
    return summarize(results)


def run_expert_iterations(
    config: Config,
    model: Any,
    run: Path,
    env_id: str,
    echo: Callable[[str], object] = print,
    save_model: Callable[[Any, Path], object] | None = None,
    extra_state: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run (or continue) the expert iterations of ``config.expert`` on ``model`` in place
    (module docstring); the run folder's ``expert/`` keeps everything made so far.

    Args:
        config: the resolved config (``expert``, ``seed``, ``ppo.gamma``,
            ``ppo.max_grad_norm``).
        model: the ``MaskablePPO`` to train (its weights are replaced by the interrupted
            iteration's start network when continuing).
        run: the run folder.
        env_id: the registered id the games are played on.
        echo: prints one line of progress.
        save_model: saves the model to a path (default ``model.save``); train tags it first.
        extra_state: entries written into a new ``state.json`` (train keeps the teacher's
            figures there, for the run's ``run.json`` when it is continued).

    Returns:
        ``state.json``'s content: ``iterations`` (one dict per iteration), ``complete``
        (True once the last network is saved as ``expert/model.zip``; the iterations asked
        for may be fewer than those already made, on a continued run: then none is made),
        ``config`` (:func:`expert_fingerprint`), ``start_validation`` (the network before
        the first iteration on the same validation deals; None without them) and
        ``extra_state``'s entries.
    """
    import torch

    from .teacher import clone_teacher

    ec = config.expert
    save = save_model if save_model is not None else (lambda m, p: m.save(p))
    folder = ExpertFolder(RunFolder(run).expert)
    folder.path.mkdir(parents=True, exist_ok=True)
    state = folder.read_state()
    if not folder.state.is_file():  # written first: a stop from here on can be continued
        state = {"iterations": [], "complete": False, "config": expert_fingerprint(config)}
        state.update(extra_state or {})
        folder.write_state(state)
    if "start_validation" not in state:  # the learning curve's first point: the network before
        if state["iterations"]:  # a run from before this point was recorded: its first start
            model.set_parameters(str(folder.start_model(0)), exact_match=True)
        state["start_validation"] = validate_network(
            model, env_id, ec.validation_games, ec.validation_first
        )
        folder.write_state(state)
    done = len(state["iterations"])
    if done:  # continue from the last finished iteration's network
        model.set_parameters(str(folder.iteration_model(done - 1)), exact_match=True)
    for it in range(done, ec.iterations):
        folder.iteration(it).mkdir(parents=True, exist_ok=True)
        if folder.start_model(it).is_file():
            model.set_parameters(str(folder.start_model(it)), exact_match=True)
        else:
            save(model, folder.start_model(it))
        beta = beta_at(ec, it)
        began = time.perf_counter()
        labelled, kept = _label_games(config, model, folder, it, env_id)
        label_seconds = time.perf_counter() - began
        window = list(range(max(0, it - ec.window + 1), it + 1))
        data = load_labels(folder, window, ec.games)
        this = data.game >= (len(window) - 1) * ec.games  # this iteration's games
        torch.manual_seed(config.seed + it)
        fit_began = time.perf_counter()
        fit = clone_teacher(model, data, ec, config.ppo.max_grad_norm, config.seed + it)
        fit_seconds = time.perf_counter() - fit_began
        save(model, folder.iteration_model(it))
        validation_began = time.perf_counter()
        validation = validate_network(model, env_id, ec.validation_games, ec.validation_first)
        validation_seconds = time.perf_counter() - validation_began
        entry = {
            "iteration": it,
            "beta": beta,
            "games": ec.games,
            "games_kept_from_earlier_start": kept,
            "labels": int(this.sum()),
            "label_seconds": round(label_seconds, 2),
            "labels_per_second": round(labelled / label_seconds, 2) if labelled else None,
            "search_won": round(float(data.won[-ec.games :].mean()), 4),
            "search_mean_foundation_cards": round(
                float(data.foundation_cards[-ec.games :].mean()), 2
            ),
            "window": window,
            "fit": fit,
            "fit_seconds": round(fit_seconds, 2),
            "validation": validation,
            "validation_seconds": round(validation_seconds, 2),
        }
        state["iterations"].append(entry)
        folder.write_state(state)
        val = (
            f"; network alone on {ec.validation_games} validation deals: "
            f"{100 * validation['win_rate']:.1f}% won, "
            f"{validation['mean_foundation_cards']:.1f} cards"
            if validation
            else ""
        )
        echo(
            f"expert iteration {it}: {entry['labels']} labels in {label_seconds:.0f} s "
            f"(beta {beta:.2f}; games {100 * entry['search_won']:.0f}% won), fit "
            f"{fit_seconds:.0f} s, agreement {100 * fit['after']['accuracy']:.1f}%{val}"
        )
    save(model, folder.model)
    state["complete"] = True  # only now: the network PPO starts from is saved
    folder.write_state(state)
    return state
