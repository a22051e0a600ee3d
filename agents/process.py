"""Process-wide state the commands change for a while and put back: the stop signals,
torch's thread count (so that a notebook or program calling
:func:`fortythieves_agents.training.train.train` twice sees no difference) and a listener for
numba's compilations (:func:`compile_notice`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["CompileWatch", "compile_notice", "stop_signals_interrupt", "torch_threads"]


def _raise_keyboard_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@contextmanager
def stop_signals_interrupt() -> Iterator[None]:
    """Inside the block SIGINT and SIGTERM raise ``KeyboardInterrupt``, so training saves its
    model and an evaluation prints how to re-run it; the previous handlers are put back on
    leaving (return or exception).

    A job started in the background by a non-interactive shell inherits SIGINT as ignored,
    and batch schedulers stop jobs with SIGTERM: both would otherwise lose the model.
    Only possible in the main thread; elsewhere the handlers are left as they are.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    stops = (signal.SIGINT, signal.SIGTERM)
    previous = {signum: signal.getsignal(signum) for signum in stops}
    try:
        for signum in stops:
            signal.signal(signum, _raise_keyboard_interrupt)
        yield
    finally:
        for signum, handler in previous.items():  # None: set outside Python, not restorable
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)


@contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """``torch.set_num_threads(n)`` inside the block (``n == 0``: unchanged), then put back."""
    import torch

    before = torch.get_num_threads()
    if n > 0:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class CompileWatch:
    """What numba compiled inside :func:`compile_notice`: ``compiled`` (whether it compiled
    anything) and ``seconds`` (the wall time spent compiling; a kernel compiled while another
    one compiles, as a kernel's callees are, is counted once)."""

    def __init__(self, say: Callable[[], object] | None) -> None:
        self.say = say
        self.compiled = False
        self.seconds = 0.0
        self._depth = 0
        self._start = 0.0

    def on_start(self, event: Any) -> None:
        """numba starts compiling a kernel (never called for one loaded from its cache)."""
        if self._depth == 0:
            if not self.compiled and self.say is not None:
                self.say()
            self.compiled = True
            self._start = time.perf_counter()
        self._depth += 1

    def on_end(self, event: Any) -> None:
        """numba has compiled a kernel (or failed to)."""
        self._depth -= 1
        if self._depth == 0:
            self.seconds += time.perf_counter() - self._start


@contextmanager
def compile_notice(say: Callable[[], object] | None = None) -> Iterator[CompileWatch]:
    """Watch numba's compilations inside the block; ``say()`` is called once, when the first
    one starts.

    numba compiles a kernel the first time it is called in a process unless its on-disk
    cache holds it (:mod:`fortythieves_env.rules.jit`): after an install or an update of the
    package the first command compiles for up to minutes, with nothing else to show, and
    later ones load in a second. numba's event API (``numba:compile``, fired only for an
    actual compilation, never for a load from the cache) tells the two apart, so the
    commands say "compiling" exactly when they compile; the :class:`CompileWatch` yielded
    tells afterwards how long it took. Only this process's compilations are seen (not a
    worker process's), and without numba nothing is watched.
    """
    watch = CompileWatch(say)
    try:
        from numba.core import event
    except ImportError:
        yield watch
        return

    class Forward(event.Listener):  # type: ignore[misc]  (numba is untyped)
        def on_start(self, started: Any) -> None:
            watch.on_start(started)

        def on_end(self, ended: Any) -> None:
            watch.on_end(ended)

    with event.install_listener("numba:compile", Forward()):
        yield watch
