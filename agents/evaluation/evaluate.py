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

import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from ..players.baselines import Agent, BatchAgent, make_baseline
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
from .game_records import agent_description as agent_description
from .game_records import resumed_results as resumed_results
from .game_records import save_record as save_record
from .game_records import save_records as save_records
from .model_agent import ModelAgent as ModelAgent
from .model_agent import file_digest as file_digest
from .model_agent import load_model_agent as load_model_agent
from .model_agent import single_torch_thread as single_torch_thread
from .results import UNPROVED_NOTE as UNPROVED_NOTE
from .results import Z95 as Z95
from .results import EpisodeResult as EpisodeResult
from .results import GameTrace as GameTrace
from .results import ceiling_cell as ceiling_cell
from .results import ceiling_summary as ceiling_summary
from .results import render_table as render_table
from .results import summarize as summarize
from .results import wilson_interval as wilson_interval

# ``from .x import y as y``: names that lived here before the module was split, still
# importable from here; documented where they live now, so not in __all__
__all__ = [
    "MAX_BATCH",
    "OnResult",
    "baseline_agents",
    "evaluate_agents",
    "play_deals",
    "play_episode",
]

PlayDeals = Callable[..., "list[EpisodeResult]"]
"""What :func:`evaluate_agents` calls to play one agent's deals (its ``play`` argument):
``play(agent, env_id, seeds, on_done, traces, allow_cycles, first_game=a, on_result=f,
on_seconds=g)`` with the arguments of :func:`play_deals` (e.g.
:func:`fortythieves_agents.evaluation.distributed.ray_play_deals`); ``g(seconds)`` is to be
called with the time each process that played some of the deals spent on them (the
``timing`` entry's ``worker_seconds``)."""

OnResult = Callable[[int, "EpisodeResult", "GameTrace | None"], object]
"""Called as ``on_result(i, result, trace)`` when deal ``i`` (its index in ``seeds``) has
ended: its :class:`EpisodeResult` and, when traces are recorded, its :class:`GameTrace`
(else None). :func:`evaluate_agents` saves each game record here, as the game ends."""


MAX_BATCH = 1024
"""Most games :func:`play_deals` plays at once by default (bounds the memory of a long
evaluation: a Number Ten game's mask alone is 1193 bytes)."""


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
        ValueError: the rule is on and ``env`` is the family's environment (its shared
            actions: play its deals with
            :func:`fortythieves_agents.family.envs.play_family_deals`).
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
    from fortythieves_env.envs.family_env import FamilyEnv

    if rule and isinstance(env.unwrapped, FamilyEnv):
        raise ValueError(
            "play_episode: the family's environment plays shared actions, which the no-cycling "
            "rule here cannot follow; play its deals with "
            "fortythieves_agents.family.envs.play_family_deals (or, with an agent that has "
            "act, pass allow_cycles=True)"
        )
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
    first_deal: int = 0,
) -> dict[str, Any]:
    """Play the first ``episodes`` test deals of ``variant`` with each agent (from test deal
    ``first_deal`` if given).

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
        play: plays one agent's deals instead of this process, called as :data:`PlayDeals`
            says (``on_seconds`` included) and returning what
            :func:`play_deals` returns (e.g.
            :func:`fortythieves_agents.evaluation.distributed.ray_play_deals`, which
            splits them across Ray workers); the report does not depend on it.
        solver: the clairvoyant solver's verdict on each deal (seed -> ``"won"``,
            ``"lost"`` or ``"unknown"``), every deal played included: each agent's summary
            gets ``solver_ceiling`` (:func:`ceiling_summary`).
        allow_cycles: switch the agents' no-cycling rule off (module docstring); the
            report records the setting as ``no_cycling``.
        env_version: the id version played (``-vN``); None: the variant's newest.
        timing: add ``timing`` (agent name -> :func:`_timing`'s entry: what a budget cost
            on this machine, per move on one process even with ``play``'s workers). Off by
            default, so that a report is the same however and wherever it is played.
        resume: with ``save_games``: the deals whose records are already in the folder (an
            interrupted run's) are read from them (:func:`resumed_results`), not played
            again; the others are played with the deal indices they have in the whole list,
            so the report is the one an uninterrupted run writes (``timing`` counts the
            deals played now and says how many were read: ``resumed_deals``); a record
            not taken is played again and overwritten.
        on_note: called with one line per agent with records played again (``resume``).
        first_deal: the index of the first test deal played (default 0: the protocol's
            first deals); deal ``first_deal + i`` is the agent's game ``first_deal + i``, so
            a run from a later deal gives the rows a longer run from 0 gives on those deals.

    Returns:
        A JSON-ready dict: ``variant``, ``env_id``, ``rules_version``
        (:data:`fortythieves_env.RULES_VERSION`, the rules the games were played under),
        ``no_cycling``, ``episodes``, ``seeds`` (the first seed and the count), ``results``
        (agent name -> :func:`summarize` dict, plus ``solver_ceiling`` with ``solver`` and
        ``per_episode`` rows if asked, and ``settings``, the agent's budget and seed, for an
        agent that has a ``description()``, such as the search agent), and ``timing`` if
        asked.

    Raises:
        ValueError: ``episodes`` < 1, or ``batch_size`` < 1, or ``first_deal`` out of the
            test range, or ``solver`` lacks a deal, or ``resume`` without ``save_games``.
        fortythieves_env.records.RecordError: ``resume`` and a record that
            :func:`resumed_results` refuses (one line, its path).
        TypeError: the rule is on and an agent has no ``action_scores``.
        KeyboardInterrupt: passed on as it comes (Ctrl-C); nothing is returned then, the
            caller says how to re-run.
    """
    from ..envs import env_id_for

    if episodes < 1:
        raise ValueError(f"need at least one episode, got {episodes}")
    if batch_size is not None and batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size}")
    if resume and save_games is None:
        raise ValueError("resume needs save_games: the folder of the earlier run's game records")
    seeds = seeds_for_test(episodes, first_deal)
    if solver is not None and (missing := [s for s in seeds if s not in solver]):
        raise ValueError(
            f"the solver's verdicts lack {len(missing)} deals, first seed {missing[0]}"
        )
    env_id = env_id_for(variant, env_version)
    out = _new_report(variant, env_id, episodes, allow_cycles, seeds[0])
    with _deal_bar(episodes * len(agents), progress) as bar:
        for agent in agents:
            bar.set_description(f"{variant} {agent.name}")
            folder = None if save_games is None else Path(save_games)
            resumed: dict[int, EpisodeResult] = {}
            if resume and folder is not None:
                resumed = _resumed(folder, agent, env_id, seeds, allow_cycles, on_note)
                bar.update(len(resumed))
            start = time.perf_counter()
            worker: list[float] | None = None if play is None else []
            results = _play_agent(
                agent,
                env_id,
                seeds,
                resumed,
                folder,
                batch_size,
                play,
                bar.update,
                allow_cycles,
                first_deal,
                None if worker is None else worker.append,
            )
            seconds = time.perf_counter() - start
            out["results"][agent.name] = _agent_summary(agent, results, solver, per_episode)
            if timing:
                out.setdefault("timing", {})[agent.name] = _timing(
                    seconds, results, resumed if resume else None, worker or None
                )
    return out


def _deal_bar(total: int, progress: bool) -> Any:
    """The progress bar over ``total`` deals on stderr (tqdm; off unless ``progress``)."""
    from tqdm import tqdm

    return tqdm(
        total=total,
        unit="deal",
        disable=not progress,
        file=sys.stderr,
        leave=False,
        dynamic_ncols=True,
    )


def _timing(
    seconds: float,
    results: Sequence[EpisodeResult],
    resumed: Mapping[int, Any] | None,
    worker: Sequence[float] | None = None,
) -> dict[str, Any]:
    """An agent's ``timing`` entry (:func:`evaluate_agents`): ``seconds`` of wall time and
    the ``moves`` of the deals played now, not of those read from records (``resumed``,
    counted where given: ``resumed_deals``), and ``seconds_per_move``. With ``worker`` (the
    times of the processes that played the deals, e.g. Ray workers at once: ``play``), also
    ``worker_seconds``, their sum, and ``seconds_per_move`` is that sum over the moves: a
    move's cost on one worker, comparable with a run in one process (the wall time alone
    would shrink with the workers)."""
    moves = sum(r.length for i, r in enumerate(results) if resumed is None or i not in resumed)
    cost = seconds if worker is None else math.fsum(worker)
    entry: dict[str, Any] = {
        "seconds": round(seconds, 3),
        "moves": moves,
        "seconds_per_move": round(cost / moves, 6) if moves else None,
    }
    if worker is not None:
        entry["worker_seconds"] = round(cost, 3)
    if resumed is not None:
        entry["resumed_deals"] = len(resumed)
    return entry


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


def _new_report(
    variant: str, env_id: str, episodes: int, allow_cycles: bool, first: int = TEST_START
) -> dict[str, Any]:
    """A report's head (:func:`evaluate_agents`; ``first``: the first seed played), its
    ``results`` still empty."""
    from fortythieves_env import RULES_VERSION

    return {
        "variant": variant,
        "env_id": env_id,
        "rules_version": RULES_VERSION,
        "no_cycling": not allow_cycles,
        "episodes": episodes,
        "seeds": {"first": first, "count": episodes, "rule": "2_000_000_000 + i"},
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
    first_deal: int = 0,
    on_seconds: Callable[[float], object] | None = None,
) -> list[EpisodeResult]:
    """One agent's results on ``seeds``: those in ``resumed`` (index in ``seeds`` -> result)
    as they are, the others played (each run of consecutive deals in one call, with its deal
    indices: ``first_deal`` + the index in ``seeds``) and, with a ``folder``, saved as game
    records as each game ends. ``on_seconds`` is passed to ``play`` (:data:`PlayDeals`)."""
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
            if play is None and isinstance(agent, BatchAgent):
                got = play_deals(
                    agent,
                    env_id,
                    part,
                    batch_size,
                    on_done,
                    traces,
                    first_game=first_deal + a,
                    allow_cycles=allow_cycles,
                    on_result=save,
                )
            else:  # the given player, or this process for an agent of the one-game protocol
                extra = {} if play is None else {"on_seconds": on_seconds}
                got = (play or _play_one_by_one)(
                    agent,
                    env_id,
                    part,
                    on_done,
                    traces,
                    allow_cycles,
                    first_game=first_deal + a,
                    on_result=save,
                    **extra,
                )
        results[a:b] = got
    return results  # type: ignore[return-value]


def baseline_agents(names: Sequence[str], seed: int = 0) -> list[Agent]:
    """Baseline agents by name (see :mod:`fortythieves_agents.players.baselines`)."""
    return [make_baseline(name, seed) for name in names]
