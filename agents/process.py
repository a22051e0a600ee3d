"""Process-wide state the commands change for a while and put back: the stop signals and
torch's thread count (so that a notebook or program calling
:func:`fortythieves_agents.training.train.train` twice sees no difference)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["stop_signals_interrupt", "torch_threads"]


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
