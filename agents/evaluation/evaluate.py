"""Fair evaluation: every agent plays the same held-out test deals, with the action mask.

:func:`evaluate_agents` plays, for each agent, one episode per seed of
:func:`fortythieves_agents.seeds.seeds_for_test` (``2_000_000_000 + i``) on a fresh environment
made with the variant's registered defaults (reward settings and step limit), so the results of
different runs and agents are comparable. Trained models act deterministically by default
(``predict(..., action_masks=mask, deterministic=True)``); with ``deterministic=False`` they
sample, deal ``i`` from a generator seeded ``(seed, i)`` (see :class:`ModelAgent`).

Deals are played in batches (:func:`play_deals`): one
:class:`~fortythieves_env.FortyThievesVectorEnv` holds up to ``batch_size`` games (default:
all the deals at once, up to :data:`MAX_BATCH`), and each step asks the agent for the
actions of every live game in one call
(:meth:`~fortythieves_agents.players.baselines.BatchAgent.act_batch`: one policy forward pass, one
compiled greedy call). A game that ends makes room for the next deal. Every random choice in deal
``i`` comes from a generator seeded ``(seed, i)``, so a report is the same whether the deals are
played one by one, in batches of any size or split across workers. Deterministic agents make the
choices of the one-deal loop :func:`play_episode`; a trained policy's batched forward pass may
differ from the one-row pass in the last bits of a logit, which changes a choice only where the two
best legal logits are within about 1e-6
(``tests/agents/players/test_batch_agents.py`` counts such steps).

Reported per agent (:func:`summarize`):

- ``win_rate`` with a 95% Wilson score interval ``win_rate_ci95`` (within [0, 1]);
- ``mean_foundation_cards`` (0..104 at the episode end), its standard error and a 95% normal
  interval ``foundation_cards_ci95`` (mean +- 1.96 SE, clipped to [0, 104]);
- ``mean_episode_length`` (steps, truncated and stuck episodes included) and
  ``mean_return``;
- ``truncated`` (episodes the environment truncated: step limit), ``stuck`` and
  ``stuck_rate`` (episodes the no-cycling rule ended, below), counted apart.
- with the solver's verdicts on the deals (``solver=``, from ``fortythieves solve``'s
  results file: :func:`fortythieves_agents.evaluation.solve.solver_verdicts`), ``solver_ceiling``:
  ``proved_won``
  (deals the clairvoyant solver won), ``wins_among_proved`` (the agent's wins among them),
  ``share_of_proved`` (their ratio; 0.0 when none was proved won) and
  ``wins_not_proved`` (the agent's wins on deals the solver left unknown or, which would be
  a bug, proved lost).

**No cycling.** Every agent plays by a rule of the agents, not of the environment: it takes
its best-ranked move that leads to a position not yet seen in the episode, hashed on the
player's view (:mod:`fortythieves_agents.cycles`); when every legal move leads back to a view
already seen, the evaluation ends the episode as *stuck* (neither won nor truncated; its foundation
cards count as they stand). Without it an agent that has nothing useful left to do shuttles
a card between two columns until the step limit. It is on by default (``evaluate
--allow-cycles`` switches it off, to compare); it changes nothing until an agent's choice
would repeat a view, and training is unaffected.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from ..networks.model_zip import ModelMismatchError, model_env_id, model_variant
from ..players.baselines import (
    Agent,
    BatchAgent,
    PerGameDraws,
    make_baseline,
    sampled_scores,
)
from ..players.episodes import (
    AgentChoice,
    DealTable,
    Ending,
    EpisodeHooks,
    NoCycling,
    OneEnvTable,
    OneGamePlayer,
    needs_scores,
    play_games,
)
from ..seeds import TEST_START, seeds_for_test

__all__ = [
    "MAX_BATCH",
    "EpisodeResult",
    "GameTrace",
    "ModelAgent",
    "OnResult",
    "agent_description",
    "baseline_agents",
    "ceiling_summary",
    "evaluate_agents",
    "file_digest",
    "load_model_agent",
    "play_deals",
    "play_episode",
    "render_table",
    "resumed_results",
    "save_record",
    "save_records",
    "single_torch_thread",
    "summarize",
    "wilson_interval",
]

PlayDeals = Callable[..., "list[EpisodeResult]"]
"""What :func:`evaluate_agents` calls to play one agent's deals (its ``play`` argument):
``play(agent, env_id, seeds, on_done, traces, allow_cycles, first_game=a, on_result=f)``
with the arguments of :func:`play_deals` (e.g.
:func:`fortythieves_agents.evaluation.distributed.ray_play_deals`)."""

OnResult = Callable[[int, "EpisodeResult", "GameTrace | None"], object]
"""Called as ``on_result(i, result, trace)`` when deal ``i`` (its index in ``seeds``) has
ended: its :class:`EpisodeResult` and, when traces are recorded, its :class:`GameTrace`
(else None). :func:`evaluate_agents` saves each game record here, as the game ends."""

Z95 = 1.959963984540054
"""Two-sided 95% standard normal quantile."""


MAX_BATCH = 1024
"""Most games :func:`play_deals` plays at once by default (bounds the memory of a long
evaluation: a Number Ten game's mask alone is 1193 bytes)."""


@dataclass(frozen=True)
class EpisodeResult:
    """One played deal.

    ``truncated``: the environment truncated it (step limit or no-progress rule), not
    terminated. ``stuck``: the no-cycling rule ended it (every legal move led back to a
    view seen in the episode; :mod:`fortythieves_agents.cycles`); neither terminated nor truncated.
    """

    seed: int
    won: bool
    foundation_cards: int
    length: int
    ret: float
    truncated: bool
    stuck: bool = False


@dataclass(frozen=True)
class GameTrace:
    """What a game record needs beyond an :class:`EpisodeResult`: the starting position
    (rule-book format) and the actions played (``int64``, shape ``(length,)``)."""

    start: dict[str, Any]
    actions: np.ndarray


@contextmanager
def single_torch_thread() -> Iterator[None]:
    """Run torch on one thread inside the block (batch-1 inference is ~4x faster so)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion; ``(0.0, 1.0)`` when ``n == 0``.

    Raises:
        ValueError: ``successes`` not in ``0..n``.
    """
    if not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return lo, hi


class ModelAgent:
    """A trained MaskablePPO policy choosing among the legal actions only.

    Deterministic (the legal action of highest logit, lowest index on ties) by default.
    With ``deterministic=False`` it samples from the masked policy: in batches
    (:meth:`act_batch`) game ``i`` draws one uniform ``u`` per step from
    ``numpy.random.default_rng((seed, i))`` and takes the action where the cumulative
    probability (legal actions in index order, ``float64``) first exceeds ``u``; one game at
    a time (:meth:`act`) it seeds torch with ``seed + k`` at the start of its k-th episode.
    """

    def __init__(
        self, model: Any, name: str = "ppo", deterministic: bool = True, seed: int = 0
    ) -> None:
        self.name = name
        self.model = model
        self.deterministic = deterministic
        self.seed = seed
        self.path: str | None = None
        """The model zip's path, if loaded from one (for game records)."""
        self.digest: str | None = None
        """The model zip's ``sha256:`` digest, if loaded from one (for game records: a
        record of another zip at the same path is not this player's)."""
        self._episodes = 0
        self._draws = PerGameDraws(seed)

    def reset(self, env: gym.Env) -> None:
        """Seed the sampling of a stochastic policy for the next episode."""
        if not self.deterministic:
            import torch

            torch.manual_seed(self.seed + self._episodes)
        self._episodes += 1

    def logits(self, obs: np.ndarray, masks: Any = None) -> Any:
        """The actor's logits (a ``float32`` torch tensor, shape ``(B, n)``) of ``obs``
        (``uint8``, shape ``(B, size)``), without masking; call under ``torch.no_grad()``.

        ``masks`` (bool torch tensor ``(B, n)``, optional) lets the ``player`` network score
        only the legal moves (the others' logits are then 0: mask them). Only the actor runs
        (no value head, no distribution object): about 4x faster than ``model.predict`` per
        step. The one place the policy is read, for :meth:`act` and :meth:`act_batch` alike,
        for either network (:func:`fortythieves_agents.networks.policy.policy_logits`).
        """
        import torch

        from ..networks.policy import policy_logits

        policy = self.model.policy
        # converted in numpy: a new writable array (the batched env's rows are read-only)
        x = torch.as_tensor(obs.astype(np.float32), device=policy.device)
        if masks is not None:
            masks = masks.to(x.device)
        return policy_logits(policy, x, masks)

    def act(self, obs: np.ndarray, env: gym.Env) -> int:
        """The policy's action, restricted to the legal ones.

        Same result as ``model.predict(obs, action_masks=mask, deterministic=...)``.
        """
        import torch

        mask = torch.as_tensor(np.asarray(env.unwrapped.action_masks(), dtype=bool))  # type: ignore[attr-defined]
        with torch.no_grad():
            logits = self.logits(obs[None], mask[None])[0]
            logits = logits.masked_fill(~mask.to(logits.device), -torch.inf)
            if self.deterministic:
                return int(logits.argmax())
            return int(torch.distributions.Categorical(logits=logits).sample())

    def start_games(self, spec: Any, games: np.ndarray) -> None:
        """Seed game ``i``'s generator with ``(seed, i)`` (sampling only)."""
        if not self.deterministic:
            self._draws.start(games)

    def end_games(self, games: np.ndarray) -> None:
        """Drop the games' generators."""
        self._draws.end(games)

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        """One forward pass for all rows; each row's legal action (see the class docstring).

        Returns:
            ``int64``, shape ``(B,)``.
        """
        import torch

        legal = torch.as_tensor(np.asarray(masks, dtype=bool))
        with torch.no_grad():
            logits = self.logits(obs, legal)
            logits = logits.masked_fill(~legal.to(logits.device), -torch.inf)
            if self.deterministic:
                return logits.argmax(dim=1).cpu().numpy().astype(np.int64)
            probs = torch.softmax(logits.double(), dim=1).cpu().numpy()
        cum = np.cumsum(probs, axis=1)
        u = self._draws.uniforms(games)
        return np.argmax(cum > (u * cum[:, -1])[:, None], axis=1).astype(np.int64)

    def action_scores(self, obs: np.ndarray, masks: np.ndarray, games: np.ndarray) -> np.ndarray:
        """The ranking of :meth:`~fortythieves_agents.players.baselines.BatchAgent.action_scores`:
        the masked logits (``float64``, ``-inf`` where illegal) when deterministic; when sampling,
        the move :meth:`act_batch` would draw first, then the others by the Gumbel-max trick on
        the log-probabilities (:func:`fortythieves_agents.players.baselines.sampled_scores`, same
        draw).

        Returns:
            ``float64``, shape ``(B, n)``.
        """
        import torch

        legal = torch.as_tensor(np.asarray(masks, dtype=bool))
        with torch.no_grad():
            logits = self.logits(obs, legal)
            logits = logits.masked_fill(~legal.to(logits.device), -torch.inf)
            if self.deterministic:
                return logits.cpu().numpy().astype(np.float64)
            probs = torch.softmax(logits.double(), dim=1).cpu().numpy()  # as act_batch
            log_probs = torch.log_softmax(logits.double(), dim=1).cpu().numpy()
        cum = np.cumsum(probs, axis=1)
        u = self._draws.uniforms(games)
        chosen = np.argmax(cum > (u * cum[:, -1])[:, None], axis=1).astype(np.int64)
        return sampled_scores(masks, u, chosen, log_probs)


def load_model_agent(
    path: str | Path,
    variant: str | None = None,
    deterministic: bool = True,
    seed: int = 0,
    env_version: int | None = None,
) -> tuple[ModelAgent, str]:
    """Load a MaskablePPO zip for evaluation and check that it fits ``variant``.

    The zip may come from anyone: its policy is rebuilt from its weights and plain JSON
    metadata by :func:`fortythieves_agents.networks.model_zip.load_inference_model`, which never
    unpickles the zip's ``data`` and refuses a zip that would need it; no code from the zip runs.

    Args:
        path: the model ``.zip``.
        variant: the variant to evaluate on; None means the one saved with the model.
        deterministic: see :class:`ModelAgent` (the agent is named ``ppo-sampled`` if False).
        seed: seeds the sampling when not ``deterministic``.
        env_version: the id version to evaluate on (``-vN``); None: the variant's newest.
            A model made for another version of the id is refused (the message names both).

    Returns:
        ``(agent, variant)``.

    Raises:
        ModelMismatchError: the file is missing or damaged, the model was trained for
            another variant (both are named), or for another version of the variant's id
            (both ids are named: ``FortyThieves/LittleForty-v0`` against ``-v1``), has no
            saved variant and none was given, was trained under other rules (both rules
            versions are named: :func:`~fortythieves_agents.networks.model_zip.check_model_rules`),
            its observation/action spaces
            differ from the variant's environment, or it needs more than weights and plain
            JSON to rebuild (what it needs is named; see
            :mod:`fortythieves_agents.networks.model_zip`).
    """
    from ..envs import env_id_for, register_saved_variant

    saved = model_variant(path)
    register_saved_variant(path)  # a custom variant the model records becomes known
    if variant is None and saved is None:
        raise ModelMismatchError(f"{path}: the model records no variant; pass --variant")
    if variant is not None and saved is not None and variant != saved:
        raise ModelMismatchError(
            f"{path}: model trained for variant {saved!r}, refusing to evaluate it on {variant!r}"
        )
    chosen = variant or saved
    assert chosen is not None
    wanted = env_id_for(chosen, env_version)
    made_for = model_env_id(path)
    same_variant = (
        made_for is not None and made_for.rpartition("-v")[0] == (wanted.rpartition("-v")[0])
    )
    if same_variant and made_for != wanted:
        raise ModelMismatchError(
            f"{path}: model made for {made_for}, refusing to evaluate it on {wanted} "
            f"(another observation version; pass --env-version {made_for.rpartition('-v')[2]} "
            "to play the version it was made for)"
        )
    from ..networks.model_zip import load_inference_model

    env = gym.make(wanted)
    try:
        model = load_inference_model(
            path, env.observation_space, env.action_space, env_name=f"variant {chosen!r}"
        )
    finally:
        env.close()
    name = "ppo" if deterministic else "ppo-sampled"
    agent = ModelAgent(model, name, deterministic, seed)
    agent.path = str(path)
    agent.digest = file_digest(path)
    return agent, chosen


def file_digest(path: str | Path) -> str:
    """``"sha256:"`` and the SHA-256 of the file's bytes (read in 1 MiB blocks).

    Raises:
        OSError: the file cannot be read.
    """
    import hashlib

    sha = hashlib.sha256()
    with open(path, "rb") as file:
        while block := file.read(2**20):
            sha.update(block)
    return "sha256:" + sha.hexdigest()


def play_episode(
    env: gym.Env,
    agent: Agent | BatchAgent,
    seed: int,
    actions: list[int] | None = None,
    *,
    game: int = 0,
    allow_cycles: bool = False,
) -> EpisodeResult:
    """Play one deal (``env.reset(seed=seed)``) to its end (termination, truncation, or
    stuck under the no-cycling rule).

    With the rule (``allow_cycles=False``, the default) the agent ranks the moves
    (:meth:`~fortythieves_agents.players.baselines.BatchAgent.action_scores` of a one-row batch,
    deal index ``game``, so its random draws are those of deal ``game`` in :func:`play_deals`) and
    plays the best-ranked one that leads to a view not seen in the episode
    (:mod:`fortythieves_agents.cycles`); when there is none the episode ends as stuck. With
    ``allow_cycles=True`` the agent's own choice is played (:meth:`Agent.act`). The loop is
    :func:`fortythieves_agents.players.episodes.play_games` on an
    :class:`~fortythieves_agents.players.episodes.OneEnvTable`.

    ``actions``, if given, gets every action played appended (for a game record).

    A deal with no legal move at all (possible in a custom variant with no stock) is not
    put to the agent: the environment ends it on its first step whatever the action
    (``FortyThievesEnv``, Information), so action 0 is played, and the deal counts as a
    lost game of length 1 whose return is the illegal-action penalty.

    Raises:
        RuntimeError: the agent chose an illegal action.
        TypeError: the rule is on and the agent has no ``action_scores``.
    """
    traces: list[GameTrace] | None = None if actions is None else []
    (result,) = _play_on_env(env, agent, [seed], game, allow_cycles, traces)
    if actions is not None and traces is not None:
        actions.extend(int(a) for a in traces[0].actions)
    return result


def _play_one_by_one(
    agent: Agent | BatchAgent,
    env_id: str,
    seeds: Sequence[int],
    on_done: Callable[[int], object],
    traces: list[GameTrace] | None = None,
    allow_cycles: bool = False,
    *,
    first_game: int = 0,
    on_result: OnResult | None = None,
) -> list[EpisodeResult]:
    """:func:`play_episode` for each seed in turn (deal index ``first_game + i`` for
    ``seeds[i]``), on one environment (``traces``, ``on_result``: as in :func:`play_deals`)."""
    env = gym.make(env_id)
    try:
        return _play_on_env(env, agent, seeds, first_game, allow_cycles, traces, on_result, on_done)
    finally:
        env.close()


def _play_on_env(
    env: gym.Env,
    agent: Agent | BatchAgent,
    seeds: Sequence[int],
    first_game: int,
    allow_cycles: bool,
    traces: list[GameTrace] | None,
    on_result: OnResult | None = None,
    on_done: Callable[[int], object] | None = None,
) -> list[EpisodeResult]:
    """The deals ``seeds`` one after the other on ``env`` (:func:`play_episode`)."""
    rule = needs_scores(agent, allow_cycles)
    table = OneEnvTable(env, seeds, first_game)
    choice = NoCycling(table) if rule else AgentChoice()
    records = _DealRecords(seeds, first_game, 1, traces is not None, on_result, on_done)
    play_games(OneGamePlayer(agent, env, rule), table, choice, records)
    return records.finish(traces)


class _DealRecords(EpisodeHooks):
    """What :func:`play_deals` and :func:`play_episode` record: one :class:`EpisodeResult`
    per deal (deal ``i`` is the agent's game ``first_game + i``) and, with ``traces``, its
    :class:`GameTrace` (the start read when the deal is dealt; the actions in one
    ``int32 (slots, width)`` array, a vectorised write per step, its width doubled when a
    game outgrows it); ``on_result`` and ``on_done`` as in :func:`play_deals`."""

    def __init__(
        self,
        seeds: Sequence[int],
        first_game: int,
        slots: int,
        traces: bool,
        on_result: OnResult | None,
        on_done: Callable[[int], object] | None,
    ) -> None:
        n = len(seeds)
        self.seeds = seeds
        self.first_game = first_game
        self.results: list[EpisodeResult | None] = [None] * n
        self.recording = traces
        self.starts: list[dict[str, Any] | None] = [None] * n
        self.played: list[np.ndarray | None] = [None] * n
        self.trace = np.zeros((slots, 256) if traces else (0, 0), dtype=np.int32)
        self.on_result = on_result
        self.on_done = on_done

    def started(self, table: Any, slots: np.ndarray) -> None:
        if self.recording:
            for b in slots.tolist():
                self.starts[int(table.game[b]) - self.first_game] = table.start_of(b)

    def before_step(self, table: Any, rows: np.ndarray, actions: np.ndarray) -> None:
        if self.recording:
            lengths = table.lengths
            if int(lengths.max()) >= self.trace.shape[1]:
                self.trace = np.concatenate([self.trace, np.zeros_like(self.trace)], axis=1)
            self.trace[rows, lengths[rows]] = actions[rows]

    def ended(self, table: Any, ending: Ending) -> None:
        i = ending.game - self.first_game
        result = EpisodeResult(
            seed=int(self.seeds[i]),
            won=ending.won,
            foundation_cards=ending.foundation_cards,
            length=ending.length,
            ret=ending.ret,
            truncated=ending.truncated,
            stuck=ending.stuck,
        )
        self.results[i] = result
        trace = None
        if self.recording:
            self.played[i] = self.trace[ending.slot, : ending.length].astype(np.int64)
            trace = GameTrace(self.starts[i], self.played[i])  # type: ignore[arg-type]
        if self.on_result is not None:
            self.on_result(i, result, trace)

    def progress(self, games: int) -> None:
        if self.on_done is not None:
            self.on_done(games)

    def finish(self, traces: list[GameTrace] | None) -> list[EpisodeResult]:
        """The results in the order of the seeds; ``traces`` extended with the traces."""
        if traces is not None:
            traces.extend(
                GameTrace(s, a)  # type: ignore[arg-type]
                for s, a in zip(self.starts, self.played, strict=True)
            )
        return self.results  # type: ignore[return-value]


def play_deals(
    agent: BatchAgent,
    env_id: str,
    seeds: Sequence[int],
    batch_size: int | None = None,
    on_done: Callable[[int], object] | None = None,
    traces: list[GameTrace] | None = None,
    *,
    first_game: int = 0,
    allow_cycles: bool = False,
    on_result: OnResult | None = None,
) -> list[EpisodeResult]:
    """Play deal ``i`` (``env.reset(seed=seeds[i])``) for every ``i``, many at once.

    One :class:`~fortythieves_env.FortyThievesVectorEnv` of ``min(batch_size, len(seeds))``
    games (the registered game of ``env_id``: its rewards and step limit) is stepped until
    every deal has ended; each step gives the agent the observations and masks of the live
    games in one :meth:`~fortythieves_agents.players.baselines.BatchAgent.act_batch` call (``games``
    = their deal
    indices ``first_game + i``). A game that ends frees its slot for the next deal, in order. A slot
    with no deal left plays its first legal action and its results are ignored. A game
    with no legal move at all plays action 0, whatever the agent chose, and ends (as in
    :func:`play_episode`). The loop is :func:`fortythieves_agents.players.episodes.play_games` on a
    :class:`~fortythieves_agents.players.episodes.DealTable`.

    With the no-cycling rule (``allow_cycles=False``, the default) each step asks
    :meth:`~fortythieves_agents.players.baselines.BatchAgent.action_scores` instead and plays, per
    game, the best-ranked legal move that leads to a view not seen in its episode (one compiled
    call, :class:`fortythieves_agents.cycles.SeenViews`); a game with none ends as stuck (its result
    says ``stuck``). ``allow_cycles=True`` plays the agent's own choice (``act_batch``).

    Args:
        agent: the agent.
        env_id: a registered ``FortyThieves/*`` id.
        seeds: the deal seeds, ``seeds[i]`` for deal ``i``.
        batch_size: games at once; None: the agent's ``batch_size`` attribute if it has one
            (the search agent's is 1), else all of them, up to :data:`MAX_BATCH`.
        on_done: called with the number of deals that just ended (a progress bar's update).
        traces: if given (an empty list), filled with one :class:`GameTrace` per seed, in
            the order of ``seeds``: its starting position and actions, for a game record.
            The actions go into one ``(games, width)`` array, a vectorised write per step
            (its width doubles when a game outgrows it); the positions are read when a
            deal starts.
        first_game: the deal index of ``seeds[0]`` in a longer list split into parts
            (:mod:`fortythieves_agents.evaluation.distributed`): the agent sees deal ``i`` of this
            call as ``first_game + i``, so its per-deal generators make the choices they make when
            the whole list is played at once.
        allow_cycles: switch the no-cycling rule off (see above).
        on_result: called as each game ends (:data:`OnResult`; ``i`` indexes ``seeds``),
            with its trace when ``traces`` is given.

    Returns:
        One :class:`EpisodeResult` per seed, in the order of ``seeds`` (what
        :func:`play_episode` gives for each, for a deterministic agent).

    Raises:
        RuntimeError: the agent chose an illegal action (the message names the deal).
        TypeError: the rule is on and the agent has no ``action_scores``.
    """
    rule = needs_scores(agent, allow_cycles)
    n = len(seeds)
    if batch_size is None:
        batch_size = getattr(agent, "batch_size", None) or MAX_BATCH
    if n == 0:
        return []
    slots = min(n, batch_size)
    table = DealTable(env_id, seeds, slots, first_game)
    try:
        choice = NoCycling(table) if rule else AgentChoice()
        records = _DealRecords(seeds, first_game, slots, traces is not None, on_result, on_done)
        play_games(agent, table, choice, records)
    finally:
        table.close()
    return records.finish(traces)


def ceiling_summary(results: Sequence[EpisodeResult], solver: Mapping[int, str]) -> dict[str, Any]:
    """An agent's wins against the solver's verdicts (``seed -> "won" | "lost" |
    "unknown"``, every played seed present): the ``solver_ceiling`` keys of the module
    docstring.

    Raises:
        KeyError: a played seed has no verdict.
    """
    proved = {r.seed for r in results if solver[r.seed] == "won"}
    among = sum(r.won for r in results if r.seed in proved)
    return {
        "proved_won": len(proved),
        "wins_among_proved": among,
        "share_of_proved": among / len(proved) if proved else 0.0,
        "wins_not_proved": sum(r.won for r in results if r.seed not in proved),
    }


def summarize(results: Sequence[EpisodeResult]) -> dict[str, Any]:
    """Aggregate episode results (see the module docstring for the keys)."""
    n = len(results)
    wins = sum(r.won for r in results)
    cards = np.array([r.foundation_cards for r in results], dtype=float)
    mean = float(cards.mean()) if n else 0.0
    std = float(cards.std(ddof=1)) if n > 1 else 0.0
    sem = std / math.sqrt(n) if n else 0.0
    lo, hi = wilson_interval(wins, n)
    return {
        "episodes": n,
        "wins": wins,
        "win_rate": wins / n if n else 0.0,
        "win_rate_ci95": [lo, hi],
        "mean_foundation_cards": mean,
        "std_foundation_cards": std,
        "sem_foundation_cards": sem,
        "foundation_cards_ci95": [max(0.0, mean - Z95 * sem), min(104.0, mean + Z95 * sem)],
        "mean_episode_length": float(np.mean([r.length for r in results])) if n else 0.0,
        "truncated": sum(r.truncated for r in results),
        "stuck": sum(r.stuck for r in results),
        "stuck_rate": sum(r.stuck for r in results) / n if n else 0.0,
        "mean_return": float(np.mean([r.ret for r in results])) if n else 0.0,
    }


def evaluate_agents(
    agents: Sequence[Agent],
    variant: str,
    episodes: int,
    per_episode: bool = False,
    progress: bool = False,
    batch_size: int | None = None,
    save_games: str | Path | None = None,
    play: PlayDeals | None = None,
    solver: Mapping[int, str] | None = None,
    allow_cycles: bool = False,
    env_version: int | None = None,
    timing: bool = False,
    resume: bool = False,
    on_note: Callable[[str], object] | None = None,
) -> dict[str, Any]:
    """Play the first ``episodes`` test deals of ``variant`` with each agent.

    Args:
        agents: the agents, played one after the other on the same deals.
        variant: the variant id (its registered game is played).
        episodes: the number of test deals.
        per_episode: also return one row per deal.
        progress: show one progress bar on stderr over all agents' deals, with the time
            left (tqdm; it draws nothing when stderr is not a terminal).
        batch_size: games played at once (:func:`play_deals`); None: all the deals, up to
            :data:`MAX_BATCH`. The report does not depend on it.
        save_games: a folder: write one game record per agent and deal there,
            ``<agent>/<variant>-<seed>.json`` (:mod:`fortythieves_env.records`), as each
            game ends (so an interrupted evaluation keeps the games it finished).
        play: plays one agent's deals instead of this process, called as
            ``play(agent, env_id, seeds, on_done, traces, allow_cycles)`` and returning what
            :func:`play_deals` returns (e.g.
            :func:`fortythieves_agents.evaluation.distributed.ray_play_deals`, which
            splits them across Ray workers); the report does not depend on it.
        solver: the clairvoyant solver's verdict on each deal (seed -> ``"won"``,
            ``"lost"`` or ``"unknown"``), every deal played included: each agent's summary
            gets ``solver_ceiling`` (:func:`ceiling_summary`).
        allow_cycles: switch the agents' no-cycling rule off (module docstring); the
            report records the setting as ``no_cycling``.
        env_version: the id version played (``-vN``); None: the variant's newest.
        timing: add ``timing`` (agent name -> ``seconds`` of wall time playing its deals,
            ``moves`` in all and ``seconds_per_move``): what a budget cost on this machine.
            Off by default, so that a report is the same however and wherever it is played.
        resume: with ``save_games``: the deals whose records are already in the folder (an
            interrupted run's) are read from them (:func:`resumed_results`), not played
            again; the others are played with the deal indices they have in the whole list,
            so the report is the one an uninterrupted run writes (``timing`` counts the
            deals played now and says how many were read: ``resumed_deals``); a record
            not taken is played again and overwritten.
        on_note: called with one line per agent with records played again (``resume``).

    Returns:
        A JSON-ready dict: ``variant``, ``env_id``, ``rules_version``
        (:data:`fortythieves_env.RULES_VERSION`, the rules the games were played under),
        ``no_cycling``, ``episodes``, ``seeds`` (the first seed and the count), ``results``
        (agent name -> :func:`summarize` dict, plus ``solver_ceiling`` with ``solver`` and
        ``per_episode`` rows if asked, and ``settings``, the agent's budget and seed, for an
        agent that has a ``description()``, such as the search agent), and ``timing`` if
        asked.

    Raises:
        ValueError: ``episodes`` < 1, or ``batch_size`` < 1, or ``solver`` lacks a deal,
            or ``resume`` without ``save_games``.
        fortythieves_env.records.RecordError: ``resume`` and a record that
            :func:`resumed_results` refuses (one line, its path).
        TypeError: the rule is on and an agent has no ``action_scores``.
        KeyboardInterrupt: passed on as it comes (Ctrl-C); nothing is returned then, the
            caller says how to re-run.
    """
    from tqdm import tqdm

    from ..envs import env_id_for

    if episodes < 1:
        raise ValueError(f"need at least one episode, got {episodes}")
    if batch_size is not None and batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size}")
    if resume and save_games is None:
        raise ValueError("resume needs save_games: the folder of the earlier run's game records")
    seeds = seeds_for_test(episodes)
    if solver is not None and (missing := [s for s in seeds if s not in solver]):
        raise ValueError(
            f"the solver's verdicts lack {len(missing)} deals, first seed {missing[0]}"
        )
    env_id = env_id_for(variant, env_version)
    out = _new_report(variant, env_id, episodes, allow_cycles)
    with tqdm(
        total=episodes * len(agents),
        unit="deal",
        disable=not progress,
        file=sys.stderr,
        leave=False,
        dynamic_ncols=True,
    ) as bar:
        for agent in agents:
            bar.set_description(f"{variant} {agent.name}")
            folder = None if save_games is None else Path(save_games)
            resumed: dict[int, EpisodeResult] = {}
            if resume and folder is not None:
                resumed = _resumed(folder, agent, env_id, seeds, allow_cycles, on_note)
                bar.update(len(resumed))
            start = time.perf_counter()
            results = _play_agent(
                agent, env_id, seeds, resumed, folder, batch_size, play, bar.update, allow_cycles
            )
            seconds = time.perf_counter() - start
            out["results"][agent.name] = _agent_summary(agent, results, solver, per_episode)
            if timing:  # of the deals played now (not those read from records)
                moves = sum(r.length for i, r in enumerate(results) if i not in resumed)
                out.setdefault("timing", {})[agent.name] = {
                    "seconds": round(seconds, 3),
                    "moves": moves,
                    "seconds_per_move": round(seconds / moves, 6) if moves else None,
                }
                if resume:
                    out["timing"][agent.name]["resumed_deals"] = len(resumed)
    return out


def _resumed(
    folder: Path,
    agent: Agent | BatchAgent,
    env_id: str,
    seeds: Sequence[int],
    allow_cycles: bool,
    on_note: Callable[[str], object] | None,
) -> dict[int, EpisodeResult]:
    """:func:`resumed_results`, with one ``on_note`` line when records are played again."""
    again: list[str] = []
    resumed = resumed_results(folder, agent, env_id, seeds, allow_cycles, again)
    if again and on_note is not None:
        more = f" (and {len(again) - 1} more)" if len(again) > 1 else ""
        on_note(f"{agent.name}: {len(again)} saved record(s) played again: {again[0]}{more}")
    return resumed


def _new_report(variant: str, env_id: str, episodes: int, allow_cycles: bool) -> dict[str, Any]:
    """A report's head (:func:`evaluate_agents`), its ``results`` still empty."""
    from fortythieves_env import RULES_VERSION

    return {
        "variant": variant,
        "env_id": env_id,
        "rules_version": RULES_VERSION,
        "no_cycling": not allow_cycles,
        "episodes": episodes,
        "seeds": {"first": TEST_START, "count": episodes, "rule": "2_000_000_000 + i"},
        "results": {},
    }


def _agent_summary(
    agent: Agent | BatchAgent,
    results: Sequence[EpisodeResult],
    solver: Mapping[int, str] | None,
    per_episode: bool,
) -> dict[str, Any]:
    """One agent's entry of a report's ``results`` (:func:`evaluate_agents`)."""
    summary = summarize(results)
    describe = getattr(agent, "description", None)
    if callable(describe):
        summary["settings"] = describe()
    if solver is not None:
        summary["solver_ceiling"] = ceiling_summary(results, solver)
    if per_episode:
        summary["per_episode"] = [asdict(r) for r in results]
    return summary


def _play_agent(
    agent: Agent | BatchAgent,
    env_id: str,
    seeds: Sequence[int],
    resumed: Mapping[int, EpisodeResult],
    folder: Path | None,
    batch_size: int | None,
    play: PlayDeals | None,
    on_done: Callable[[int], object],
    allow_cycles: bool,
) -> list[EpisodeResult]:
    """One agent's results on ``seeds``: those in ``resumed`` (deal index -> result) as
    they are, the others played (each run of consecutive deals in one call, with its deal
    indices) and, with a ``folder``, saved as game records as each game ends."""
    results: list[EpisodeResult | None] = [None] * len(seeds)
    for i, result in resumed.items():
        results[i] = result
    todo = [i for i in range(len(seeds)) if i not in resumed]
    runs = [  # [a, b): consecutive deals still to play
        (group[0], group[-1] + 1)
        for group in np.split(np.array(todo, dtype=np.int64), np.flatnonzero(np.diff(todo) > 1) + 1)
        if group.size
    ]
    for a, b in runs:
        traces: list[GameTrace] | None = None if folder is None else []

        def save(i: int, result: EpisodeResult, trace: GameTrace | None) -> None:
            if folder is not None and trace is not None:
                save_record(folder, agent, env_id, result, trace, allow_cycles=allow_cycles)

        part = list(seeds[a:b])
        with single_torch_thread():
            if play is not None:
                got = play(
                    agent, env_id, part, on_done, traces, allow_cycles, first_game=a, on_result=save
                )
            elif isinstance(agent, BatchAgent):
                got = play_deals(
                    agent,
                    env_id,
                    part,
                    batch_size,
                    on_done,
                    traces,
                    first_game=a,
                    allow_cycles=allow_cycles,
                    on_result=save,
                )
            else:  # an agent of the one-game protocol only
                got = _play_one_by_one(
                    agent, env_id, part, on_done, traces, allow_cycles, first_game=a, on_result=save
                )
        results[a:b] = got
    return results  # type: ignore[return-value]


def resumed_results(
    folder: Path,
    agent: Agent | BatchAgent,
    env_id: str,
    seeds: Sequence[int],
    allow_cycles: bool = False,
    again: list[str] | None = None,
) -> dict[int, EpisodeResult]:
    """The results of the deals whose game records ``folder/<agent>/<variant>-<seed>.json``
    an earlier (interrupted) evaluation wrote: deal index -> result.

    A record counts as a played deal only when it is a finished game of this very player,
    as the evaluation wrote it:

    - intact (:attr:`fortythieves_env.records.GameRecord.intact`: its ``digest`` matches its
      content; a record edited after it was written, or written before records carried a
      digest, is played again);
    - this player's (:func:`agent_description` with ``allow_cycles``: name, model path and
      digest, seed, settings, the no-cycling rule), of this deal, with ``env_id``'s step
      limit and no-progress setting (else refused: the folder holds another evaluation);
    - replayed (:func:`fortythieves_env.records.verify`: legal moves, the outcome it states,
      these rules) and once more on ``env_id``'s registered game for the return;
    - finished (not ``unfinished``; else played again).

    Args:
        folder: the ``--save-games`` folder.
        agent: the player.
        env_id: the id played.
        seeds: the deals, in order.
        allow_cycles: the evaluation's setting (the no-cycling rule is part of the player).
        again: if given, one line (the file and why) is appended per record not taken, whose
            deal is then played again.

    Raises:
        fortythieves_env.records.RecordError: a record that cannot be read, says it is
            another player's game or another deal's, or does not replay (one line: its path
            and what differs).
    """
    from fortythieves_env import get_variant

    spec_ = gym.spec(env_id)
    variant = get_variant(spec_.kwargs["variant"])
    who = json.loads(json.dumps(agent_description(agent, allow_cycles)))
    settings = {
        "step_limit": spec_.max_episode_steps,
        "max_steps_without_progress": spec_.kwargs.get("max_steps_without_progress"),
    }
    out: dict[int, EpisodeResult] = {}
    found = [
        (i, seed, path)
        for i, seed in enumerate(seeds)
        if (path := folder / agent.name / f"{variant.id}-{seed}.json").is_file()
    ]
    if not found:
        return out
    env = gym.make(env_id)  # the registered game: its rewards, for each record's return
    try:
        for i, seed, path in found:
            try:
                out[i] = _resumed_result(path, seed, who, variant, env_id, settings, env)
            except _PlayAgain as exc:
                if again is not None:
                    again.append(f"{path}: {exc}")
    finally:
        env.close()
    return out


class _PlayAgain(Exception):
    """A saved record that is not a played deal of this evaluation: its deal is played
    again (the message says why)."""


def _resumed_result(
    path: Path,
    seed: int,
    who: dict[str, Any],
    variant: Any,
    env_id: str,
    settings: dict[str, Any],
    env: gym.Env,
) -> EpisodeResult:
    """One record's result for :func:`resumed_results` (its checks, the same raises).

    Raises:
        _PlayAgain: the record is not intact or not finished.
    """
    from fortythieves_env.records import RecordError, load_record, verify

    record = load_record(path)
    if record.digest is None:
        raise _PlayAgain(
            f"written before records carried a digest (format {record.format_version})"
        )
    if not record.intact:
        raise _PlayAgain("changed after it was written (its digest does not match it)")
    recorded = {
        "step_limit": record.step_limit,
        "max_steps_without_progress": record.max_steps_without_progress,
    }
    try:
        if record.agent != who:
            raise RecordError(f"played by {record.agent}, not by {who}")
        if record.source != {"kind": "seed", "value": seed} or record.variant != variant:
            raise RecordError(f"not the game of {variant.id} deal seed {seed}")
        if recorded != settings:
            raise RecordError(f"made with {recorded}, not {env_id}'s {settings}")
        outcome = verify(record)
    except RecordError as exc:
        raise RecordError(
            f"{path}: cannot resume from it: {exc} (delete it, or evaluate into "
            "another --save-games folder)"
        ) from None
    if outcome["unfinished"]:
        raise _PlayAgain(f"an unfinished game ({len(record.moves)} moves), not a played deal")
    return EpisodeResult(
        seed=seed,
        won=bool(outcome["won"]),
        foundation_cards=int(outcome["foundation_cards"]),
        length=int(outcome["length"]),
        ret=_replayed_return(env, seed, record.moves),
        truncated=bool(outcome["truncated"]),
        stuck=bool(outcome["stuck"]),
    )


def _replayed_return(env: gym.Env, seed: int, moves: Sequence[str]) -> float:
    """The sum of ``env``'s rewards over ``moves`` from deal ``seed`` (moves already
    checked legal)."""
    env.reset(seed=seed)
    base = env.unwrapped
    total = 0.0
    for move in moves:
        _, reward, _, _, _ = env.step(base.move_to_action(move))  # type: ignore[attr-defined]
        total += float(reward)
    return total


def agent_description(
    agent: Agent | BatchAgent, allow_cycles: bool | None = None
) -> dict[str, Any]:
    """What a game record says of the player: ``name``, and where they apply ``model`` (the
    zip's path), ``model_digest`` (its ``sha256:`` digest: :func:`file_digest`),
    ``deterministic``, ``seed`` and ``settings`` (the agent's ``description()``, e.g. the
    search agent's budget); with ``allow_cycles`` given, ``no_cycling`` (whether the player
    followed the no-cycling rule: it changes the games)."""
    out: dict[str, Any] = {"name": agent.name}
    for key, attr in (
        ("model", "path"),
        ("model_digest", "digest"),
        ("deterministic", "deterministic"),
        ("seed", "seed"),
    ):
        value = getattr(agent, attr, None)
        if value is not None:
            out[key] = value
    describe = getattr(agent, "description", None)
    if callable(describe):
        out["settings"] = describe()
    if allow_cycles is not None:
        out["no_cycling"] = not allow_cycles
    return out


def save_records(
    folder: Path,
    agent: Agent | BatchAgent,
    env_id: str,
    results: Sequence[EpisodeResult],
    traces: Sequence[GameTrace],
    *,
    allow_cycles: bool = False,
) -> list[Path]:
    """Write one game record per deal, ``folder/<agent>/<variant>-<seed>.json``; return the
    paths. The step limit and no-progress setting are those of ``env_id``'s registration;
    ``allow_cycles`` as in :func:`save_record`.

    Raises:
        OSError: a file cannot be written.
    """

    return [
        save_record(folder, agent, env_id, result, trace, allow_cycles=allow_cycles)
        for result, trace in zip(results, traces, strict=True)
    ]


def save_record(
    folder: Path,
    agent: Agent | BatchAgent,
    env_id: str,
    result: EpisodeResult,
    trace: GameTrace,
    *,
    allow_cycles: bool = False,
) -> Path:
    """Write one game record, ``folder/<agent>/<variant>-<seed>.json`` (a temporary file
    renamed into place, so that an interruption never leaves half a record); return its
    path. The record's agent is :func:`agent_description` with ``allow_cycles`` (the
    evaluation's setting: whether the game followed the no-cycling rule).

    Raises:
        OSError: the file cannot be written.
    """
    from fortythieves_env import get_variant
    from fortythieves_env.records import make_record

    spec_ = gym.spec(env_id)
    variant = get_variant(spec_.kwargs["variant"])
    record = make_record(
        variant,
        ("seed", result.seed),
        agent_description(agent, allow_cycles),
        trace.start,
        trace.actions,
        {
            "won": result.won,
            "foundation_cards": result.foundation_cards,
            "length": result.length,
            "terminated": not (result.truncated or result.stuck),
            "truncated": result.truncated,
            "stuck": result.stuck,
        },
        step_limit=spec_.max_episode_steps,
        max_steps_without_progress=spec_.kwargs.get("max_steps_without_progress"),
    )
    path = folder / agent.name / f"{variant.id}-{result.seed}.json"
    part = path.with_name(path.name + ".part")
    record.save(part)
    part.replace(path)
    return path


def baseline_agents(names: Sequence[str], seed: int = 0) -> list[Agent]:
    """Baseline agents by name (see :mod:`fortythieves_agents.players.baselines`)."""
    return [make_baseline(name, seed) for name in names]


UNPROVED_NOTE = (
    "+N unproved: wins on deals the solver did not prove won (its budget ran out on them), "
    "not counted in wins / solver-proved wins"
)
"""What ``+N unproved`` in a :func:`ceiling_cell` means (the evaluate table's caption, the
README's search table)."""


def ceiling_cell(ceiling: Mapping[str, Any]) -> str:
    """``"wins / proved (share%)"`` of a ``solver_ceiling`` summary (:func:`ceiling_summary`),
    without the share when the solver proved no deal won, then ``" +N unproved"`` when the
    agent won N deals the solver did not prove won (so a win rate above 0 beside
    ``"0 / 53"`` is accounted for: ``"0 / 53 (0%) +1 unproved"``; see
    :data:`UNPROVED_NOTE`)."""
    cell = f"{ceiling['wins_among_proved']} / {ceiling['proved_won']}"
    if ceiling["proved_won"]:
        cell += f" ({100 * ceiling['share_of_proved']:.0f}%)"
    unproved = ceiling.get("wins_not_proved", 0)
    return cell + (f" +{unproved} unproved" if unproved else "")


def render_table(report: dict[str, Any]) -> Any:
    """A ``rich.table.Table`` of an :func:`evaluate_agents` report, one row per agent
    (with the solver's verdicts, a column "wins / solver-proved wins" beside the win rate)."""
    from rich.table import Table

    ceiling = all("solver_ceiling" in s for s in report["results"].values())
    unproved = ceiling and any(
        s["solver_ceiling"].get("wins_not_proved", 0) for s in report["results"].values()
    )

    table = Table(
        title=f"{report.get('env_id', report['variant'])}: {report['episodes']} test deals "
        f"(seeds {report['seeds']['first']}..{report['seeds']['first'] + report['episodes'] - 1})"
        + ("" if report.get("no_cycling", True) else ", cycles allowed"),
        caption=UNPROVED_NOTE if unproved else None,
    )
    for column in (
        "agent",
        "win rate [95% CI]",
        "foundation cards [95% CI]",
        "ep. length",
        "truncated",
        "stuck",
        "return",
    ):
        table.add_column(column, justify="left" if column == "agent" else "right")
        if column == "win rate [95% CI]" and ceiling:
            table.add_column("wins / solver-proved wins", justify="right")
    for name, s in report["results"].items():
        lo, hi = s["win_rate_ci95"]
        clo, chi = s["foundation_cards_ci95"]
        extra = []
        if ceiling:
            extra = [ceiling_cell(s["solver_ceiling"])]
        table.add_row(
            name,
            f"{100 * s['win_rate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]",
            *extra,
            f"{s['mean_foundation_cards']:.1f} [{clo:.1f}, {chi:.1f}]",
            f"{s['mean_episode_length']:.0f}",
            f"{s['truncated']}/{s['episodes']}",
            f"{s.get('stuck', 0)}/{s['episodes']}",
            f"{s['mean_return']:.1f}",
        )
    return table
