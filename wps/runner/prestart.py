"""The local engine's fork server, started as soon as a batch knows it will have a pool.

A pool's workers are forked from one server that imported the pipeline once and warmed it up
(:mod:`.preload`: 0.65 s on this 2-core machine). Started by the pool itself, that came after
the batch's own start (its imports, reading the input: 0.39 s), one after the other; started
here, before the batch imports its engine, the two run side by side.
"""

from __future__ import annotations

from ..executor.local import start_fork_server

WORKER_MODULES = ("wps.runner.worker", "wps.output", "wps.runner.preload")
"""What a batch worker imports, once, in the fork server its workers start from (the pipeline,
capture, text and output modules and their libraries, and the default pipeline warmed up:
:mod:`wps.runner.preload`)."""


def start_worker_server(engine: str, workers: int) -> bool:
    """Start the fork server now if the batch will start a pool of local workers (``workers``
    > 1: one worker runs in this process); whether it was started."""
    if engine != "local" or workers <= 1:
        return False
    start_fork_server(WORKER_MODULES)
    return True
