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
import shutil
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..capture import Browser, CaptureOptions, discard_screenshot
from ..errors import WpsError
from ..files import TERMINATED_EXIT, Terminated, remove_own_temporaries
from ..model import PageCapture
from ..pipeline import PageResult, PipelineOptions, segment_to_directory

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
    html: bytes | None = None
    """The page's stored HTML (JSONL, WARC): rendered offline and recorded under ``source``."""
    restart_above_mb: int | None = None
    """Restart the worker's Chromium after a page that left it holding more than this."""

    @property
    def host(self) -> str | None:
        """The site this page is fetched from (politeness); ``None`` for files and stored HTML."""
        from .politeness import site_of

        return None if self.html is not None else site_of(self.source)


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
    stages: dict[str, float] = field(default_factory=dict)
    """Seconds per stage of a finished page: the capture's own (``navigate_s``, ``scroll_s``,
    ``dom_s``, ``screenshot_s``, ...) and ``after_capture_s`` (segmentation to output)."""


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
        result = process_page(task, browser)
    except Exception as err:  # noqa: BLE001 - a bug on one page must not stop the batch
        outcome = failed_outcome(task, err, time.perf_counter() - started)
    else:
        seconds = time.perf_counter() - started
        outcome = PageOutcome(task.source, task.out_dir, True, seconds,
                              stages=page_stages(result, seconds))
    if browser is not None:  # not on SIGTERM or Ctrl-C: those unwind the worker
        restart_if_grown(browser, task.restart_above_mb)
    return outcome


def restart_if_grown(browser: Browser, limit_mb: int | None) -> None:
    """Restart Chromium when its processes (this process's descendants) hold more anonymous
    memory than ``limit_mb``: long runs grow caches a fresh browser does not have."""
    if limit_mb is not None and children_memory_mb() > limit_mb:
        try:
            browser.restart()
        except WpsError:  # the next page's capture launches it again, or says why it cannot
            pass


def children_memory_mb() -> float:
    """Anonymous resident memory of this process's descendants (Playwright's driver, Chromium)."""
    from ..capture.processes import descendants

    total = 0
    for pid in descendants(os.getpid()):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        total += next((int(line.split()[1]) for line in status.splitlines()
                       if line.startswith("RssAnon:")), 0)
    return total / 1024


def failed_outcome(task: PageTask, err: Exception, seconds: float) -> PageOutcome:
    """A page's failure as a value: its error class, one-line message and exit code."""
    if isinstance(err, WpsError):
        return PageOutcome(task.source, task.out_dir, False, seconds, type(err).__name__,
                           str(err), err.exit_code)
    # a bug on one page must not stop the batch
    where = traceback.extract_tb(err.__traceback__)[-1]
    message = (f"{task.source}: internal error: {type(err).__name__}: {err} "
               f"({os.path.basename(where.filename)}:{where.lineno})")
    return PageOutcome(task.source, task.out_dir, False, seconds, type(err).__name__,
                       message.replace("\n", " "), 1)


def page_stages(result: PageResult, seconds: float) -> dict[str, float]:
    """Where a page's time went: the capture's stage timings and the rest after it."""
    stages = {name: value for name, value in result.capture.timings.items()
              if name.endswith("_s") and name != "total_s"}
    stages["after_capture_s"] = max(0.0, seconds - result.capture.timings.get("total_s", 0.0))
    return stages


def process_page(task: PageTask, browser: Browser) -> PageResult:
    """The per-page pipeline, as ``wps segment --out`` runs it: every output into ``out_dir``,
    and the text step's page report beside them."""
    if task.html is None:
        return segment_to_directory(task.source, Path(task.out_dir), task.pipeline,
                                    browser=browser)
    capture = capture_stored_page(task, browser)
    rendered = capture.screenshot  # the output points the capture at its saved copy
    try:
        return segment_to_directory(capture, Path(task.out_dir), task.pipeline)
    finally:
        discard_screenshot(rendered)


def render_page(task: PageTask, browser: Browser) -> PageCapture:
    """Only the capture of a page (the Ray engine segments it elsewhere)."""
    if task.html is not None:
        return capture_stored_page(task, browser)
    from ..deadline import Deadline
    from ..pipeline import load_capture

    options = task.pipeline.capture_options or browser.options
    return load_capture(task.source, capture_options=options, browser=browser,
                        deadline=Deadline(options.timeout_s, what=task.source))


def capture_stored_page(task: PageTask, browser: Browser) -> PageCapture:
    """Render stored HTML as a local page (offline: it reaches no network, as a local file does)
    and record it under the page's own URL and id.

    Rendered from a temporary ``page.html`` because the capture takes URLs and files; a capture
    option to render given bytes under a URL would save that write.
    """
    from ..capture.screenshots import SOURCE_PREFIX, new_temp_folder
    from ..capture.sources import page_id_for
    from ..deadline import Deadline

    folder = new_temp_folder(SOURCE_PREFIX)
    try:
        page = folder / "page.html"
        page.write_bytes(task.html or b"")
        options = task.pipeline.capture_options or browser.options
        capture = browser.capture(page, options,
                                  deadline=Deadline(options.timeout_s, what=task.source))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return replace(capture, url=task.source, final_url=task.source,
                   page_id=page_id_for(task.source))
