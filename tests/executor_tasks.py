"""Tasks for the executor tests, in a module of their own: a worker process imports them by name
(spawned pool workers) or gets them by value (Ray)."""

from __future__ import annotations

import os
import time


def work(task: tuple[str, float]) -> tuple[str, str]:
    """``("die", _)`` ends the worker, ``("raise", _)`` fails, any other sleeps its seconds."""
    kind, seconds = task
    if kind == "die":
        os._exit(3)
    if kind == "raise":
        raise ValueError(f"bad task {kind}")
    time.sleep(seconds)
    return ("done", kind)


def overdue(task: tuple[str, float], seconds: float) -> tuple[str, str]:
    return ("overdue", task[0])


def died(task: tuple[str, float]) -> tuple[str, str]:
    return ("died", task[0])


def where(task: tuple[str, float]) -> tuple[str, int]:
    """The task's site and the worker process that ran it, after its seconds."""
    site, seconds = task
    time.sleep(seconds)
    return (site, os.getpid())


def site_of(task: tuple[str, float]) -> str:
    return task[0]


def slow_exit(folder: str) -> None:
    """Initializer: the worker takes half a second to exit (as one closing its Chromium does)
    and notes in ``folder`` when that began and ended."""
    from multiprocessing.util import Finalize
    from pathlib import Path

    def leave() -> None:
        began = time.time()
        time.sleep(0.5)
        Path(folder, str(os.getpid())).write_text(f"{began} {time.time()}", encoding="utf-8")

    Finalize(None, leave, exitpriority=10)
