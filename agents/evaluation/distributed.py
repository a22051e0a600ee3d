"""Past one machine: the Ray connection, and evaluation and solving spread over Ray workers.

``fortythieves evaluate ... --ray`` and ``fortythieves solve ... --ray`` run their deals as
Ray tasks (one CPU each) on a local Ray started for the command, or on the cluster named by
``--address`` or the ``RAY_ADDRESS`` environment variable; ``fortythieves sweep``
(:mod:`fortythieves_agents.training.sweep`) runs its trials on the same connection
(:func:`connect`).

**Same answers.** ``evaluate --ray`` splits the test deals into contiguous parts, one Ray
task each; part ``[a, b)`` is played by :func:`fortythieves_agents.evaluation.evaluate.play_deals`
with ``first_game=a``, so every agent's per-deal generators (``(seed, i)``, see
:class:`fortythieves_agents.players.baselines.PerGameDraws`) make the choices they make when one
process plays every deal, and the report is the local one. ``solve --ray`` submits one task per deal
(:func:`fortythieves_agents.evaluation.solve.solve_deal`, the function the local pool runs) and
appends each record as its task ends, so an interrupted run keeps every finished deal; the records
differ from a local run's only in ``seconds`` (and a deal cut by ``--budget``, which depends on the
machine).

**Code on every node.** On a cluster, :func:`runtime_env` ships this package
(``fortythieves_agents`` and
``fortythieves_env``, from the submitting machine) to every worker through Ray's runtime
environment (``py_modules``), so the workers run the code the command was started with; the
dependencies (torch, stable-baselines3, numba...) must be installed on every node
(``pip install -e ".[ray]"`` in the checkout).
"""

from __future__ import annotations

import functools
import itertools
import logging
import math
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from ..config import ConfigError

__all__ = [
    "RAY_MISSING",
    "cluster_cpus",
    "connect",
    "play_parts",
    "ray_map_unordered",
    "ray_play_deals",
    "ray_session",
    "require_ray",
    "runtime_env",
]

RAY_MISSING = "Ray is not installed (pip install -e '.[ray]' in the fortythieves checkout)"
"""The error message when ``ray`` (with Tune) cannot be imported."""
MAX_PART = 4096
"""Most deals in one ``evaluate --ray`` task (more tasks than workers keep the progress bar
moving and the workers busy to the end)."""

T = TypeVar("T")
R = TypeVar("R")


def require_ray() -> Any:
    """The ``ray`` module.

    Raises:
        ConfigError: Ray is not installed (:data:`RAY_MISSING`).
    """
    try:
        import ray
    except ImportError:
        raise ConfigError(RAY_MISSING) from None
    return ray


def runtime_env() -> dict[str, Any]:
    """Ray's runtime environment for every job: this package's two folders as ``py_modules``
    (uploaded by the driver, first on every worker's ``sys.path``).

    Ray names an uploaded module after its folder, so a checkout's ``agents/`` folder (which
    installs as ``fortythieves_agents``) is copied, without caches, into a temporary folder
    of that name first; an installed package is uploaded as it is.
    """
    import fortythieves_agents

    import fortythieves_env

    return {
        "py_modules": [
            str(
                _shipped_folder(
                    Path(fortythieves_agents.__file__).parent, fortythieves_agents.__name__
                )
            ),
            str(Path(fortythieves_env.__file__).parent),
        ],
        "env_vars": {"PYTHONUNBUFFERED": "1"},
    }


@functools.cache
def _shipped_folder(folder: Path, name: str) -> Path:
    """``folder``, or (its name not ``name``) a copy named ``name`` made once per process."""
    if folder.name == name:
        return folder
    copy = Path(tempfile.mkdtemp(prefix="fortythieves-ray-")) / name
    shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


QUIET_LEVEL = logging.ERROR
"""The level of the driver's ``ray`` logger in a quiet session (:func:`connect`)."""


def connect(address: str | None = None, quiet: bool = False) -> str:
    """Connect this process to Ray, once; return what it connected to.

    A Ray already initialised in this process (a test's ``ray.init(num_cpus=2)``, a
    notebook's) is used as it is. Otherwise: ``address`` if given, else the ``RAY_ADDRESS``
    environment variable, else a new local Ray on this machine's cores (no dashboard). On a
    cluster the package is shipped to the workers (:func:`runtime_env`); a local Ray's
    workers import it as this process does (and reuse numba's compiled-kernel cache).

    ``quiet`` (``evaluate --ray``, ``solve --ray``): Ray's own messages stay off the
    console, so the command's table is what the user sees: the driver's ``ray`` logger
    at :data:`QUIET_LEVEL` (Ray's token-authentication warning and its INFO lines, e.g.
    "Started a local Ray instance", are not printed; its errors are) and the workers'
    output not copied to the driver (``log_to_driver=False``; a task's error still reaches
    the command through ``ray.get``, traceback included).

    Returns:
        ``"local"``, or the address of the cluster.

    Raises:
        ConfigError: Ray is not installed, or the cluster cannot be reached (the message
            names the address).
    """
    ray = require_ray()
    if ray.is_initialized():
        return "local" if address is None else address
    target = address or os.environ.get("RAY_ADDRESS") or None
    options: dict[str, Any] = (
        {"logging_level": QUIET_LEVEL, "log_to_driver": False} if quiet else {}
    )
    try:
        if target is None:  # local workers start in this folder with this sys.path
            ray.init(include_dashboard=False, **options)
        else:
            ray.init(address=target, runtime_env=runtime_env(), **options)
    except (ConnectionError, ValueError, RuntimeError, TimeoutError) as exc:
        where = f"--address {address}" if address else f"RAY_ADDRESS={target}"
        raise ConfigError(
            f"{where}: cannot connect to Ray ({' '.join(str(exc).split())[:300]})"
        ) from None
    return target or "local"


@contextmanager
def ray_session(address: str | None = None, quiet: bool = False) -> Iterator[str]:
    """:func:`connect` for the block; a Ray this call started is shut down on leaving it
    (one already initialised in the process is left running), and the level of the
    ``ray`` logger a quiet session set is put back."""
    ray = require_ray()
    started = not ray.is_initialized()
    ray_logger = logging.getLogger("ray")
    level = ray_logger.level
    try:
        yield connect(address, quiet=quiet)
    finally:
        if started:
            ray.shutdown()
            ray_logger.setLevel(level)


def cluster_cpus() -> int:
    """The CPUs of the connected Ray cluster (at least 1)."""
    ray = require_ray()
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def play_parts(n: int, workers: int) -> list[tuple[int, int]]:
    """Split deals ``0..n-1`` into contiguous parts ``[a, b)``: at least ``workers`` of them
    (fewer when ``n < workers``), none longer than :data:`MAX_PART`, sizes within one of
    each other.

    Raises:
        ValueError: ``n`` < 0 or ``workers`` < 1.
    """
    if n < 0 or workers < 1:
        raise ValueError(f"need n >= 0 and workers >= 1, got {n}, {workers}")
    if n == 0:
        return []
    count = min(n, max(workers, math.ceil(n / MAX_PART)))
    bounds = [n * k // count for k in range(count + 1)]
    return list(itertools.pairwise(bounds))


def _play_part(
    agent: Any,
    env_id: str,
    variant: Any,
    seeds: Sequence[int],
    first: int,
    record: bool,
    allow_cycles: bool,
) -> tuple[list[Any], list[Any] | None]:
    """One ``evaluate --ray`` task: :func:`fortythieves_agents.evaluation.evaluate.play_deals` of
    ``seeds`` as deals ``first..`` (a custom ``variant`` spec is registered in the worker first)."""
    import fortythieves_env
    from fortythieves_env import VariantSpec

    from .evaluate import play_deals, single_torch_thread

    if isinstance(variant, VariantSpec):
        fortythieves_env.register_variant(variant)
    traces: list[Any] | None = [] if record else None
    with single_torch_thread():
        results = play_deals(
            agent,
            env_id,
            list(seeds),
            traces=traces,
            first_game=first,
            allow_cycles=allow_cycles,
        )
    return results, traces


def ray_play_deals(
    agent: Any,
    env_id: str,
    seeds: Sequence[int],
    on_done: Callable[[int], object] | None = None,
    traces: list[Any] | None = None,
    allow_cycles: bool = False,
    *,
    workers: int | None = None,
    first_game: int = 0,
    on_result: Callable[[int, Any, Any], object] | None = None,
) -> list[Any]:
    """:func:`fortythieves_agents.evaluation.evaluate.play_deals` of ``seeds`` split across Ray
    tasks.

    The agent is sent to the workers as it is now (pickled once, ``ray.put``); each task
    plays one part of :func:`play_parts` (one CPU each) and its deals keep their indices in
    ``seeds``. Use it as ``evaluate_agents(..., play=ray_play_deals)``.

    Args:
        agent: a :class:`fortythieves_agents.players.baselines.BatchAgent` (the one-game protocol is
            refused: its choices depend on the order of the games).
        env_id: a registered ``FortyThieves/*`` id (a custom variant's registration is
            repeated in each worker).
        seeds: the deal seeds, in deal order.
        on_done: called with the number of deals in each part that ends.
        traces, allow_cycles, first_game: as in
        :func:`~fortythieves_agents.evaluation.evaluate.play_deals`. workers: how many parts at
        least (default: :func:`cluster_cpus`). on_result: as in
        :func:`~fortythieves_agents.evaluation.evaluate.play_deals`, called for each deal
            of a part when the part has ended.

    Returns:
        One :class:`~fortythieves_agents.evaluation.evaluate.EpisodeResult` per seed, in the order
        of ``seeds``.

    Raises:
        TypeError: the agent is not a ``BatchAgent``.
        RuntimeError: a task failed (its error is passed on by Ray, naming the deal).
        KeyboardInterrupt: passed on; the tasks still running are cancelled first.
    """
    import gymnasium as gym

    from ..players.baselines import BatchAgent

    ray = require_ray()
    if not isinstance(agent, BatchAgent):
        raise TypeError(f"agent {getattr(agent, 'name', agent)!r} cannot play in batches")
    parts = play_parts(len(seeds), workers or cluster_cpus())
    variant = gym.spec(env_id).kwargs.get("variant")
    task = ray.remote(num_cpus=1)(_play_part)
    agent_ref = ray.put(agent)
    record = traces is not None
    refs = {
        task.remote(
            agent_ref, env_id, variant, list(seeds[a:b]), first_game + a, record, allow_cycles
        ): (a, b)
        for a, b in parts
    }
    results: list[Any] = [None] * len(seeds)
    played: list[Any] = [None] * len(seeds)
    pending = list(refs)
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                a, b = refs[ref]
                part, part_traces = ray.get(ref)
                results[a:b] = part
                if part_traces is not None:
                    played[a:b] = part_traces
                if on_result is not None:
                    for k in range(a, b):
                        on_result(k, results[k], played[k])
                if on_done is not None:
                    on_done(b - a)
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
    if traces is not None:
        traces.extend(played)
    return results


def ray_map_unordered(fn: Callable[[T], R], tasks: Iterable[T], in_flight: int) -> Iterator[R]:
    """``fn(task)`` for every task as Ray tasks (one CPU each), yielded as they end.

    At most ``in_flight`` tasks are submitted at a time (a long list is not sent at once).
    Closing the generator (or an exception where it is consumed, which closes it) cancels
    the tasks still running.

    Raises:
        ValueError: ``in_flight`` < 1.
    """
    if in_flight < 1:
        raise ValueError(f"in_flight must be >= 1, got {in_flight}")
    ray = require_ray()
    remote = ray.remote(num_cpus=1)(fn)
    todo = iter(tasks)
    pending: list[Any] = []
    try:
        for task in todo:
            pending.append(remote.remote(task))
            if len(pending) >= in_flight:
                break
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for task in todo:
                pending.append(remote.remote(task))
                break
            for ref in done:
                yield ray.get(ref)
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
