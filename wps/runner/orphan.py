"""A pool worker whose parent died ends, and takes its Chromium with it.

A thread of the worker waits on the parent's sentinel (a pipe that reads EOF when the parent
is gone, however it ended). It first asks the main thread to unwind (SIGTERM, again and again:
library code may swallow one), so the page in progress removes its folders and the browser
closes politely. A signal can be lost for good, though: one raised inside Playwright's send
leaves the driver's channel half-written and the close waits for an answer that never comes;
one raised where the process pool's worker loop catches it leaves the worker waiting for work
on a queue no one will ever write to, with SIGTERM ignored. So after :data:`ORPHAN_GRACE_S` the
thread ends the process itself: SIGTERM to Playwright's driver (it closes its Chromium), SIGKILL
to whatever of the worker's processes is left, this process's temporary folders removed,
``os._exit``. The watching thread needs nothing from the main thread, so no state of it can
stop the end.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

from ..files import TERMINATED_EXIT, remove_own_temporaries

ORPHAN_GRACE_S = 10.0
"""How long an orphaned worker may unwind on its own before its watching thread ends it."""
_RESEND_S = 2.0
"""How often the watching thread repeats SIGTERM to the main thread meanwhile."""
_DRIVER_GRACE_S = 5.0
"""How long Playwright's driver gets to close its Chromium before everything is killed."""
_POLL_S = 0.05


def watch_parent(parent_sentinel: int) -> None:
    """End this process, cleanly if it can, once the parent behind ``parent_sentinel`` ends."""
    threading.Thread(target=_end_with, args=(parent_sentinel,), name="wps-orphan-watch",
                     daemon=True).start()


def _end_with(parent_sentinel: int) -> None:
    from multiprocessing.connection import wait

    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})  # main thread's
    wait([parent_sentinel])
    main = threading.main_thread().ident
    deadline = time.monotonic() + ORPHAN_GRACE_S
    while (left := deadline - time.monotonic()) > 0:
        if main is not None:
            signal.pthread_kill(main, signal.SIGTERM)  # wakes a blocked read
        time.sleep(min(_RESEND_S, left))
    end_now()


def end_now() -> None:
    """Stop this process's children (Playwright's driver and its Chromium), remove this
    process's temporary folders and exit, without the main thread."""
    stop_children(os.getpid())
    remove_own_temporaries()
    os._exit(TERMINATED_EXIT)


def stop_children(pid: int, grace_s: float = _DRIVER_GRACE_S) -> None:
    """SIGTERM the children of ``pid``, wait up to ``grace_s`` for them and what they started
    (all found before: an orphaned grandchild is no longer below ``pid``), SIGKILL the rest."""
    import psutil

    try:
        parent = psutil.Process(pid)
        children, everyone = parent.children(), parent.children(recursive=True)
    except psutil.Error:
        return
    for child in children:
        _signal(child, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while (alive := [p for p in everyone if _running(p)]) and time.monotonic() < deadline:
        time.sleep(_POLL_S)
    for process in alive:
        _signal(process, signal.SIGKILL)


def _running(process: Any) -> bool:
    """Whether ``process`` (a :class:`psutil.Process`) still runs (a zombie has ended: its
    parent has not reaped it yet)."""
    import psutil

    try:
        return process.status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except psutil.Error:
        return False


def _signal(process: Any, signum: int) -> None:
    import psutil

    try:
        process.send_signal(signum)
    except psutil.Error:  # gone, or not ours
        pass
