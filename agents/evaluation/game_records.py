"""Game records of an evaluation (:mod:`fortythieves_env.records`): writing one per agent and
deal as each game ends (``evaluate --save-games``), and reading back the deals an interrupted
evaluation finished (``evaluate --resume``), each checked to be this player's game."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym

from ..paths import portable_path
from ..players.baselines import Agent, BatchAgent
from .results import EpisodeResult, GameTrace

__all__ = [
    "agent_description",
    "resumed_results",
    "save_record",
    "save_records",
]


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
    from fortythieves_env.records.record import RecordError, load_record, verify

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
    agent = dict(record.agent)
    if isinstance(agent.get("model"), str):  # a record of before portable paths
        agent["model"] = portable_path(agent["model"])
    try:
        if agent != who:
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
    zip's path, as :func:`~fortythieves_agents.paths.portable_path` gives it),
    ``model_digest`` (its ``sha256:`` digest: :func:`~.model_agent.file_digest`),
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
            out[key] = portable_path(value) if key == "model" else value
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
    from fortythieves_env.records.record import make_record

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
