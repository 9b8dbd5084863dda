"""The per-page work of a batch, run inside a worker process that keeps one Chromium.

Each worker process holds one :class:`~wps.capture.Browser` (restarted every N pages and after a
crash); every page gets a fresh browser context. Failures come back as values, never as
exceptions, so one bad page never stops a batch.

A pool worker leaves Ctrl-C to the parent, which stops its workers with SIGTERM; SIGTERM unwinds
the page in progress (its staging and temporary folders go), closes the browser (its screenshot
folder goes) and ends the worker. A worker whose parent dies (``kill -9``) sends itself SIGTERM.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from ..capture import Browser, CaptureOptions
from ..errors import WpsError
from ..files import TERMINATED_EXIT, Terminated, remove_own_temporaries
from ..pipeline import PipelineOptions, segment_to_directory

_BROWSER: Browser | None = None
_IN_PAGE = False
"""Whether this worker is inside a page (SIGTERM unwinds it) or waiting for one (SIGTERM exits)."""
_RESEND_S = 5.0
"""How often an orphaned worker signals itself until it has ended."""


@dataclass(slots=True)
class PageTask:
    source: str
    out_dir: str
    pipeline: PipelineOptions
    """With ``capture_options`` set: the worker's browser is launched with them."""
    restart_every: int | None


@dataclass(slots=True)
class PageOutcome:
    source: str
    out_dir: str
    ok: bool
    seconds: float
    error: str = ""
    """Error class name on failure."""
    message: str = ""
    exit_code: int = 0


def worker_browser(options: CaptureOptions, restart_every: int | None) -> Browser:
    """This process's browser, launched on first use and closed at exit."""
    global _BROWSER
    if _BROWSER is None:
        _BROWSER = Browser(options, restart_every=restart_every)
        atexit.register(_BROWSER.close)
    return _BROWSER


def init_worker() -> None:
    """Pool initializer: SIGTERM ends the worker cleanly; Ctrl-C is the parent's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_sigterm)
    parent = multiprocessing.parent_process()
    if parent is not None and parent.sentinel is not None:
        threading.Thread(target=_end_with, args=(parent.sentinel,), daemon=True).start()


def _end_with(parent_sentinel: int) -> None:
    """Wait for the parent to end, then end this worker the clean way (an orphan would keep its
    Chromium and temporary folders for ever)."""
    from multiprocessing.connection import wait

    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})  # main thread's
    wait([parent_sentinel])
    while True:  # again and again: library code may swallow one
        signal.pthread_kill(threading.main_thread().ident, signal.SIGTERM)  # wakes a blocked read
        time.sleep(_RESEND_S)


def _on_sigterm(_signum: int, _frame: object) -> None:
    if _IN_PAGE:
        raise Terminated()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # nothing to unwind; the exit must not stop
    raise SystemExit(TERMINATED_EXIT)  # waiting for work: exit; atexit closes the browser


def run_in_worker(task: PageTask) -> PageOutcome:
    """:func:`run_page` in a pool worker; SIGTERM during the page ends the process after the
    page has unwound (the pool would otherwise catch it and wait for the next page)."""
    global _IN_PAGE
    try:
        _IN_PAGE = True
        return run_page(task)
    except Terminated:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the page has unwound: clean up and go
        _close_browser()
        remove_own_temporaries()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(TERMINATED_EXIT)
    finally:
        _IN_PAGE = False


def _close_browser() -> None:
    global _BROWSER
    browser, _BROWSER = _BROWSER, None
    if browser is not None:
        browser.close()


def run_page(task: PageTask, browser: Browser | None = None) -> PageOutcome:
    """Render (and segment) one page into ``task.out_dir``; errors become a failed result.

    Without ``browser`` the page uses this process's worker browser.
    """
    started = time.perf_counter()
    try:
        browser = browser or worker_browser(task.pipeline.capture_options or CaptureOptions(),
                                            task.restart_every)
        process_page(task.source, Path(task.out_dir), task.pipeline, browser)
    except WpsError as err:
        return PageOutcome(task.source, task.out_dir, False, time.perf_counter() - started,
                          type(err).__name__, str(err), err.exit_code)
    except Exception as err:  # a bug on one page must not stop the batch
        where = traceback.extract_tb(err.__traceback__)[-1]
        message = (f"{task.source}: internal error: {type(err).__name__}: {err} "
                   f"({os.path.basename(where.filename)}:{where.lineno})")
        return PageOutcome(task.source, task.out_dir, False, time.perf_counter() - started,
                          type(err).__name__, message.replace("\n", " "), 1)
    return PageOutcome(task.source, task.out_dir, True, time.perf_counter() - started)


def process_page(source: str, out_dir: Path, pipeline: PipelineOptions, browser: Browser) -> None:
    """The per-page pipeline, as ``wps segment --out`` runs it: every output into ``out_dir``,
    and the text step's page report beside them."""
    segment_to_directory(source, out_dir, pipeline, browser=browser)  # main-text.json included
