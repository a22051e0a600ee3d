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
environment (``py_modules``; a checkout's ``agents/`` folder goes as a temporary copy,
removed once uploaded: :func:`shipped_package`), so the workers run the code the command was
started with; the
dependencies (torch, stable-baselines3, numba...) must be installed on every node
(``pip install -e ".[ray]"`` in the checkout).

**Connecting.** An address is tried first with a plain TCP connection of at most
:data:`CONNECT_SECONDS`, so an unreachable cluster is refused in one line within seconds
(Ray itself retries for minutes), and Ray's own attempts are then bounded
(:data:`GCS_ATTEMPTS`). A local Ray whose socket paths would not fit the 107 bytes of a Unix
socket (a long ``TMPDIR``) is refused in one line naming ``RAY_TMPDIR``. ``ray.init``
replaces the process's SIGTERM handler with one that exits with status 15; :func:`connect`
puts the caller's handler back, so a command that turns SIGTERM into ``KeyboardInterrupt``
(:func:`fortythieves_agents.process.stop_signals_interrupt`) stops the same way with Ray as
without it.
"""

from __future__ import annotations

import itertools
import logging
import math
import os
import shutil
import signal
import socket
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from ..config import ConfigError, install_hint

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
    "shipped_package",
]

RAY_MISSING = f"Ray is not installed ({install_hint('ray')})"
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


def runtime_env(agents_folder: Path) -> dict[str, Any]:
    """Ray's runtime environment for a job on a cluster: ``agents_folder`` (the
    ``fortythieves_agents`` package as Ray must upload it, :func:`shipped_package`) and
    ``fortythieves_env``'s folder as ``py_modules`` (uploaded by the driver when it
    connects, first on every worker's ``sys.path``)."""
    import fortythieves_env

    return {
        "py_modules": [str(agents_folder), str(Path(fortythieves_env.__file__).parent)],
        "env_vars": {"PYTHONUNBUFFERED": "1"},
    }


@contextmanager
def shipped_package() -> Iterator[Path]:
    """The ``fortythieves_agents`` folder to upload, for the block.

    Ray names an uploaded module after its folder, so a checkout's ``agents/`` folder (which
    installs as ``fortythieves_agents``) is copied, without caches, into a temporary folder
    of that name, which is removed on leaving the block (Ray has uploaded it by then: the
    upload is part of ``ray.init``); an installed package is used as it is.
    """
    import fortythieves_agents

    folder = Path(fortythieves_agents.__file__).parent
    name = fortythieves_agents.__name__
    if folder.name == name:
        yield folder
        return
    temporary = Path(tempfile.mkdtemp(prefix="fortythieves-ray-"))
    try:
        copy = temporary / name
        shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("__pycache__"))
        yield copy
    finally:
        shutil.rmtree(temporary, ignore_errors=True)


QUIET_LEVEL = logging.ERROR
"""The level of the driver's ``ray`` logger in a quiet session (:func:`connect`)."""
CONNECT_SECONDS = 10.0
"""How long :func:`connect` waits for a TCP connection to a cluster's address before it
refuses it."""
GCS_ATTEMPTS = 2
"""Ray's attempts to reach a cluster's GCS once its port answers (``ray.init`` reads them from
:data:`GCS_ATTEMPTS_VARIABLE` unless the user set it; Ray's own default is 20 attempts of up
to about 40 s each)."""
GCS_ATTEMPTS_VARIABLE = "RAY_gcs_server_port_wait_time_s"
"""The environment variable ``ray.init`` reads its attempts to reach a cluster from."""
SOCKET_PATH_MAX = 107
"""The longest path of a Unix socket (Linux), which Ray's session folder must allow."""


def _host_port(target: str) -> tuple[str, int] | None:
    """``(host, port)`` of a Ray address ``HOST:PORT`` or ``ray://HOST:PORT`` (IPv6 hosts in
    brackets); None for an address Ray resolves itself (``auto``, ``local``, other schemes).

    Raises:
        ConfigError: not of that form (the message does not name where it came from).
    """
    rest = target
    if "://" in target:
        scheme, _, rest = target.partition("://")
        if scheme != "ray":
            return None
    elif target in ("auto", "local"):
        return None
    host, sep, port = rest.rstrip("/").rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if not sep or not host or not port.isdecimal() or not 0 < int(port) < 65536:
        raise ConfigError(f"not a Ray address HOST:PORT (got {target!r})")
    return host, int(port)


def _reach(target: str, where: str) -> None:
    """Refuse, within :data:`CONNECT_SECONDS`, an address nothing answers at.

    Raises:
        ConfigError: one line naming ``where`` (``--address X`` or ``RAY_ADDRESS=X``), what
            failed and what to do.
    """
    unset = "leave out --address" if where.startswith("--") else "unset RAY_ADDRESS"
    remedy = f"start Ray there (`ray start --head` prints the address) or {unset} for a local Ray"
    try:
        found = _host_port(target)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    if found is None:
        return
    try:
        with socket.create_connection(found, timeout=CONNECT_SECONDS):
            pass
    except TimeoutError:
        raise ConfigError(
            f"{where}: no answer from {found[0]}:{found[1]} within {CONNECT_SECONDS:g} s; " + remedy
        ) from None
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise ConfigError(
            f"{where}: cannot reach {found[0]}:{found[1]} ({reason.lower()}); " + remedy
        ) from None


def _socket_path_error(exc: OSError) -> ConfigError | None:
    """The one-line error for Ray's refusal of a socket path over :data:`SOCKET_PATH_MAX`
    bytes (its session folder is under ``RAY_TMPDIR``, else ``TMPDIR``), else None."""
    text = str(exc)
    if "AF_UNIX path length" not in text:
        return None
    name = "RAY_TMPDIR" if "RAY_TMPDIR" in os.environ else "TMPDIR"
    folder = os.environ.get(name, "")
    return ConfigError(
        f"{name}={folder} is too long for Ray: its socket paths there would pass the "
        f"{SOCKET_PATH_MAX} bytes a Unix socket allows; run with a short folder for Ray, "
        "e.g. RAY_TMPDIR=/tmp"
    )


@contextmanager
def _bounded_gcs_attempts() -> Iterator[None]:
    """:data:`GCS_ATTEMPTS_VARIABLE` at :data:`GCS_ATTEMPTS` for the block, unless the user
    set it."""
    name = GCS_ATTEMPTS_VARIABLE
    if name in os.environ:
        yield
        return
    os.environ[name] = str(GCS_ATTEMPTS)
    try:
        yield
    finally:
        os.environ.pop(name, None)


@contextmanager
def _caller_sigterm_handler() -> Iterator[None]:
    """Keep the caller's SIGTERM handler across ``ray.init``, which installs one that exits
    with status 15 (``sys.exit(15)``).

    When the caller has a Python handler (a command's
    :func:`~fortythieves_agents.process.stop_signals_interrupt`), it is put back after the
    block, and a SIGTERM that Ray's handler turned into ``SystemExit(15)`` inside the block
    is handed to it (which raises ``KeyboardInterrupt``); with no Python handler (the
    default), Ray's stays.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)
    if not callable(previous):
        yield
        return
    try:
        with _no_failure_signal_handler():
            yield
    except SystemExit as exc:
        if exc.code != signal.SIGTERM:
            raise
        previous(signal.SIGTERM, None)
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def _no_failure_signal_handler() -> Iterator[None]:
    """No crash-dump handler in this process's Ray core worker, for the block.

    The core worker that ``ray.init`` starts in the driver installs abseil's failure-signal
    handler for SIGTERM (and SIGSEGV...), which prints ``*** SIGTERM received ...`` and a
    stack dump and aborts (exit 134) on a stop signal. Ray's switch for it,
    ``RAY_DISABLE_FAILURE_SIGNAL_HANDLER``, is read into ``ray._private.ray_constants`` when
    Ray is imported and looked up there when the core worker starts; it is set for the block
    in this process only (Ray's other processes keep their handlers), and put back after.
    """
    import importlib

    try:
        constants: Any = importlib.import_module("ray._private.ray_constants")
    except ImportError:  # another Ray layout: nothing to switch
        yield
        return
    name = "RAY_DISABLE_FAILURE_SIGNAL_HANDLER"
    before = getattr(constants, name, None)
    setattr(constants, name, True)
    try:
        yield
    finally:
        setattr(constants, name, before)


def connect(address: str | None = None, quiet: bool = False) -> str:
    """Connect this process to Ray, once; return what it connected to.

    A Ray already initialised in this process (a test's ``ray.init(num_cpus=2)``, a
    notebook's) is used as it is. Otherwise: ``address`` if given, else the ``RAY_ADDRESS``
    environment variable, else a new local Ray on this machine's cores (no dashboard). On a
    cluster the package is shipped to the workers (:func:`runtime_env`, its temporary copy
    removed once uploaded); a local Ray's workers import it as this process does (and
    reuse numba's compiled-kernel cache). The connection is bounded and the caller's
    SIGTERM handler kept (module docstring, Connecting).

    ``quiet`` (``evaluate --ray``, ``solve --ray``): Ray's own messages stay off the
    console, so the command's table is what the user sees: the driver's ``ray`` logger
    at :data:`QUIET_LEVEL` (Ray's token-authentication warning and its INFO lines, e.g.
    "Started a local Ray instance", are not printed; its errors are) and the workers'
    output not copied to the driver (``log_to_driver=False``; a task's error still reaches
    the command through ``ray.get``, traceback included).

    Returns:
        ``"local"``, or the address of the cluster.

    Raises:
        ConfigError: Ray is not installed; the cluster cannot be reached (the message
            names the address and the remedy); a local Ray's temporary folder is too long
            for its sockets.
    """
    ray = require_ray()
    if ray.is_initialized():
        return "local" if address is None else address
    target = address or os.environ.get("RAY_ADDRESS") or None
    where = f"--address {address}" if address else f"RAY_ADDRESS={target}"
    options: dict[str, Any] = (
        {"logging_level": QUIET_LEVEL, "log_to_driver": False} if quiet else {}
    )
    if target is not None:
        _reach(target, where)
    try:
        with _caller_sigterm_handler():
            if target is None:  # local workers start in this folder with this sys.path
                ray.init(include_dashboard=False, **options)
            else:
                with shipped_package() as agents, _bounded_gcs_attempts():
                    ray.init(address=target, runtime_env=runtime_env(agents), **options)
    except OSError as exc:  # ConnectionError and TimeoutError too
        socket_error = _socket_path_error(exc)
        if socket_error is not None:
            raise socket_error from None
        raise ConfigError(
            f"{where if target else 'local Ray'}: cannot connect to Ray "
            f"({' '.join(str(exc).split())[:300]})"
        ) from None
    except (ValueError, RuntimeError) as exc:
        raise ConfigError(
            f"{where if target else 'local Ray'}: cannot connect to Ray "
            f"({' '.join(str(exc).split())[:300]})"
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


def play_parts(n: int, workers: int, most: int = MAX_PART) -> list[tuple[int, int]]:
    """Split deals ``0..n-1`` into contiguous parts ``[a, b)``: at least ``workers`` of them
    (fewer when ``n < workers``), none longer than ``most`` (:data:`MAX_PART`), sizes within
    one of each other.

    Raises:
        ValueError: ``n`` < 0, or ``workers`` or ``most`` < 1.
    """
    if n < 0 or workers < 1 or most < 1:
        raise ValueError(f"need n >= 0, workers >= 1 and most >= 1, got {n}, {workers}, {most}")
    if n == 0:
        return []
    count = min(n, max(workers, math.ceil(n / most)))
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
) -> tuple[list[Any], list[Any] | None, float]:
    """One ``evaluate --ray`` task: :func:`fortythieves_agents.evaluation.evaluate.play_deals` of
    ``seeds`` as deals ``first..`` (a custom ``variant`` spec is registered in the worker first),
    and the seconds the worker spent playing them (wall time, in the worker)."""
    import time

    import fortythieves_env
    from fortythieves_env import VariantSpec

    from .evaluate import play_deals, single_torch_thread

    if isinstance(variant, VariantSpec):
        fortythieves_env.register_variant(variant)
    traces: list[Any] | None = [] if record else None
    start = time.perf_counter()
    with single_torch_thread():
        results = play_deals(
            agent,
            env_id,
            list(seeds),
            traces=traces,
            first_game=first,
            allow_cycles=allow_cycles,
        )
    return results, traces, time.perf_counter() - start


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
    on_seconds: Callable[[float], object] | None = None,
) -> list[Any]:
    """:func:`fortythieves_agents.evaluation.evaluate.play_deals` of ``seeds`` split across Ray
    tasks.

    The agent is sent to the workers as it is now (pickled once, ``ray.put``); each task
    plays one part of :func:`play_parts` (one CPU each) and its deals keep their indices in
    ``seeds``. Use it as ``evaluate_agents(..., play=ray_play_deals)``. A part is no longer
    than the games the agent plays at once (its ``batch_size``, where it has one: 1 for the
    search agent), so that with ``on_result`` (``evaluate --save-games``) the records of a
    slow agent's games are written as each ends, not when a long part does, and an
    interrupted run keeps them.

    Args:
        agent: a :class:`fortythieves_agents.players.baselines.BatchAgent` (the one-game protocol is
            refused: its choices depend on the order of the games).
        env_id: a registered ``FortyThieves/*`` id (a custom variant's registration is
            repeated in each worker).
        seeds: the deal seeds, in deal order.
        on_done: called with the number of deals in each part that ends.
        traces: as in :func:`~fortythieves_agents.evaluation.evaluate.play_deals`.
        allow_cycles: as there.
        workers: how many parts at least (default: :func:`cluster_cpus`).
        first_game: as in :func:`~fortythieves_agents.evaluation.evaluate.play_deals`.
        on_result: as there, called for each deal of a part when the part has ended.
        on_seconds: called, when a part ends, with the seconds its worker spent playing it
            (its own wall time there, not the driver's): their sum is what the deals cost on
            one worker each, whatever number of workers played them (``evaluate``'s
            ``timing``).

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
    most = getattr(agent, "batch_size", None) or MAX_PART  # no longer than one batch
    parts = play_parts(len(seeds), workers or cluster_cpus(), most)
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
                part, part_traces, part_seconds = ray.get(ref)
                results[a:b] = part
                if part_traces is not None:
                    played[a:b] = part_traces
                if on_result is not None:
                    for k in range(a, b):
                        on_result(k, results[k], played[k])
                if on_seconds is not None:
                    on_seconds(part_seconds)
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
