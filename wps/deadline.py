"""One wall-clock deadline per page, over every stage: capture, segment, text, filters, output.

The capture enforces its share itself (Playwright calls get the remaining time). The CPU stages
are stopped two ways: long loops call :func:`check_deadline` (works in any thread, no-op when no
page deadline is set), and on the main thread :meth:`Deadline.enforced` arms a ``SIGALRM`` timer
that raises :class:`~wps.errors.PageTimeoutError` inside whatever code overruns, so a stage
without checks still stops. A batch parent kills a worker process that does not stop.
"""

from __future__ import annotations

import math
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from .errors import PageTimeoutError

_CURRENT: ContextVar[Deadline | None] = ContextVar("wps_page_deadline", default=None)


@dataclass(slots=True)
class Deadline:
    """``seconds`` from ``started`` (``time.monotonic``) for the page named ``what``.

    >>> deadline = Deadline(0.0, what="page.html")
    >>> deadline.expired()
    True
    >>> str(deadline.error("segmentation"))
    'page.html: page did not finish within the 0 s timeout (during segmentation)'
    """

    seconds: float
    what: str = "page"
    started: float = field(default_factory=time.monotonic)
    stage: str = ""
    """The stage running now, named in the timeout message."""

    def remaining(self) -> float:
        return self.seconds - (time.monotonic() - self.started)

    def expired(self) -> bool:
        return self.remaining() <= 0

    def error(self, stage: str = "") -> PageTimeoutError:
        stage = stage or self.stage
        during = f" (during {stage})" if stage else ""
        return PageTimeoutError(
            f"{self.what}: page did not finish within the {self.seconds:g} s timeout{during}")

    def extend(self, seconds: float) -> None:
        """Give the page back ``seconds`` it spent waiting on what is not its own doing (its
        browser starting): the deadline moves that much later."""
        self.started += max(0.0, seconds)

    def check(self, stage: str = "") -> None:
        if self.expired():
            raise self.error(stage)

    @contextmanager
    def active(self) -> Iterator[Deadline]:
        """Make this the deadline :func:`check_deadline` sees in this context."""
        token = _CURRENT.set(self)
        try:
            yield self
        finally:
            _CURRENT.reset(token)

    def enter(self, stage: str) -> None:
        """Mark the start of ``stage``; raise if the time is already up."""
        self.stage = stage
        self.check()

    @contextmanager
    def enforced(self) -> Iterator[Deadline]:
        """:meth:`active`, plus (on the main thread) a timer that interrupts overrunning code."""
        self.check()
        with self.active():
            if threading.current_thread() is not threading.main_thread():
                yield self
                return
            with _alarm(self):
                yield self


def current_deadline() -> Deadline | None:
    return _CURRENT.get()


def check_deadline(stage: str = "") -> None:
    """Raise :class:`PageTimeoutError` if the current page's deadline has passed."""
    deadline = _CURRENT.get()
    if deadline is not None and deadline.expired():
        raise deadline.error(stage)


REFIRE_S = 0.01
"""Delay before the timer fires again when a finalizer swallowed its exception."""
REPEAT_S = 0.5
"""After the deadline, the timer fires again this often until the page's code is left: a
library that catches every ``Exception`` (trafilatura logs a failed parse, recall retry or
justext pass and goes on) swallows the first error, and the page would run on unchecked."""


@contextmanager
def _alarm(deadline: Deadline) -> Iterator[None]:
    """SIGALRM at the deadline raises its error in the code running. Where that code is a
    finalizer (a ``__del__``, a weakref callback: garbage collection runs them anywhere), Python
    cannot raise from it: it hands the error to ``sys.unraisablehook`` and goes on, so the
    error would print a traceback and the page run on unchecked. The hook takes our error
    quietly and fires the timer again, to raise in the code the finalizer interrupted. Code
    that catches the error and goes on meets it again every :data:`REPEAT_S`."""
    raised: list[PageTimeoutError] = []

    def interrupt(_signum: int, _frame: object) -> None:
        raised.append(deadline.error())
        raise raised[-1]

    def swallowed(unraisable: sys.UnraisableHookArgs) -> None:
        if any(unraisable.exc_value is error for error in raised):
            signal.setitimer(signal.ITIMER_REAL, REFIRE_S, REPEAT_S)
        else:
            previous_hook(unraisable)

    previous_hook = sys.unraisablehook
    sys.unraisablehook = swallowed
    previous_handler = signal.signal(signal.SIGALRM, interrupt)
    previous_delay, previous_interval = signal.setitimer(
        signal.ITIMER_REAL, max(deadline.remaining(), 1e-3), REPEAT_S)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous_handler)
        sys.unraisablehook = previous_hook
        if previous_delay > 0 and math.isfinite(previous_delay):  # someone else's timer goes on
            signal.setitimer(signal.ITIMER_REAL, previous_delay, previous_interval)
