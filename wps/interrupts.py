"""Signals as Python sees them: SIGTERM unwinds like Ctrl-C (:func:`sigterm_unwinds`, so
``finally`` blocks remove temporaries and close Chromium), and a block that must not be cut in
two holds Ctrl-C, SIGTERM and SIGALRM to its end (:func:`signals_held`)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["TERMINATED_EXIT", "Terminated", "sigterm_unwinds", "signals_held"]

TERMINATED_EXIT = 143
"""Exit code after SIGTERM (128 + 15, as a shell reports it)."""


@contextmanager
def signals_held() -> Iterator[None]:
    """Defer Ctrl-C, SIGTERM and SIGALRM (page deadlines) to the end of the block, where they
    are raised again for their own handlers (Python lets only the main thread set handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM):
        if signal.getsignal(signum) is not None:  # None: a handler set outside Python
            previous[signum] = signal.signal(signum, lambda number, _: arrived.append(number))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(arrived):
            signal.raise_signal(signum)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that ``finally`` blocks and context managers remove
    temporary folders and close Chromium before the process ends."""


@contextmanager
def sigterm_unwinds() -> Iterator[None]:
    """While the block runs, SIGTERM raises :class:`Terminated` (in the main thread only, where
    Python runs signal handlers; elsewhere nothing changes).

    Every SIGTERM raises: one swallowed by library code must not leave the process running. A
    second one cutting the cleanup short is caught up with at exit (:func:`wps.temporaries.remove_own_temporaries`).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


def _raise_terminated(_signum: int, _frame: object) -> None:
    raise Terminated()
