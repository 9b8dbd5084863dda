"""The per-page work of a batch, run inside a worker process that keeps one Chromium.

Each worker process holds one :class:`~wps.capture.Browser` (restarted every N pages and after a
crash); every page gets a fresh browser context. With ``pages_per_browser`` above 1 a worker
takes its pages in chunks (:func:`run_chunk_in_worker`) and :func:`run_pages` keeps that many of
them rendering at once in its Chromium (capture threads) while the worker's main thread
segments the pages already rendered. Failures come back as values, never as exceptions, so one
bad page never stops a batch.

A pool worker leaves Ctrl-C to the parent, which stops its workers with SIGTERM; SIGTERM unwinds
the page in progress (its staging and temporary folders go), closes the browser (its screenshot
folder goes) and ends the worker. A worker whose parent dies (``kill -9``) sends itself SIGTERM,
and ends itself with its Chromium if that does not end it (:mod:`.orphan`).
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..deadline import Deadline

from ..capture import Browser, CaptureOptions, discard_screenshot
from ..errors import WpsError
from ..executor.chunked import report
from ..files import TERMINATED_EXIT, Terminated, remove_own_temporaries
from ..model import PageCapture, StoredPage
from ..pipeline import PageResult, PipelineOptions
from .orphan import watch_parent

_BROWSER: Browser | None = None
_IN_PAGE = False
"""Whether this worker is inside a page (SIGTERM unwinds it) or waiting for one (SIGTERM exits)."""
_WARM = False
"""Whether this process has loaded what the steps after capture load (:func:`warm_up_once`)."""


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
    save_capture: bool = True
    """Write the page's ``capture/`` folder."""
    overlay: bool = True
    """Draw the page's ``overlay.png``."""
    archive: str | None = None
    """Replay: the WARC file whose records answer the page's requests."""

    @property
    def host(self) -> str | None:
        """The site this page is fetched from (politeness); ``None`` for files and stored HTML."""
        from .politeness import fetched_site

        return fetched_site(self.source, self.html)


def page_site(page: PageTask) -> str | None:
    """Where a worker's browser keeps the page's tab, for the executors' ``affinity``: its site
    (``None``: a file or stored HTML, which any worker's one local tab renders)."""
    return page.host


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


def worker_browser(options: CaptureOptions, restart_every: int | None,
                   concurrency: int = 1) -> Browser:
    """This process's browser, launched on first use and closed at exit."""
    global _BROWSER
    if _BROWSER is None:
        _BROWSER = Browser(options, restart_every=restart_every, concurrency=concurrency)
        atexit.register(_close_browser)
    return _BROWSER


def warm_up_once(pipeline: PipelineOptions) -> None:
    """:func:`wps.pipeline.warm_up` in this process, before its first page's deadline starts."""
    global _WARM
    if not _WARM:
        from ..pipeline import warm_up

        warm_up(pipeline)
        _WARM = True


def init_worker(pipeline: PipelineOptions | None = None) -> None:
    """Pool initializer: SIGTERM ends the worker cleanly; Ctrl-C is the parent's to handle.
    ``pipeline``: warmed up
    here, before the worker takes its first page, so that the page's clock (the parent's
    watchdog's too) does not run during the imports (a failed warm-up is tried again, and
    fails, inside the first page)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _on_sigterm)
    parent = multiprocessing.parent_process()
    if parent is not None and parent.sentinel is not None:
        watch_parent(parent.sentinel)  # an orphan would keep its Chromium and folders for ever
    if pipeline is not None:
        with suppress(Exception):  # the first page tries again and reports it, as its error
            warm_up_once(pipeline)


def _on_sigterm(_signum: int, _frame: object) -> None:
    if _IN_PAGE:
        raise Terminated()
    # Nothing to unwind: exit here. SystemExit would be caught and sent back as a result by
    # the pool's worker loop, which then waits for work with SIGTERM ignored.
    _exit_terminated()


def run_in_worker(task: PageTask) -> PageOutcome:
    """:func:`run_page` in a pool worker; SIGTERM during the page ends the process after the
    page has unwound (the pool would otherwise catch it and wait for the next page)."""
    global _IN_PAGE
    warm_up_once(task.pipeline)
    try:
        _IN_PAGE = True
        return run_page(task)
    except Terminated:
        _exit_terminated()
    finally:
        _IN_PAGE = False


def _exit_terminated() -> None:
    """The page has unwound after SIGTERM: ignore another, clean up and end the worker."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _close_browser()
    remove_own_temporaries()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(TERMINATED_EXIT)


def run_chunk_in_worker(tasks: list[PageTask], concurrency: int) -> list[PageOutcome]:
    """:func:`run_pages` over a chunk of pages in a pool worker (SIGTERM as in
    :func:`run_in_worker`); each page's start, progress and outcome also go to the driver as
    they happen (:func:`wps.executor.chunked.report`)."""
    global _IN_PAGE
    pending = iter(tasks)

    def next_task() -> PageTask | None:
        task = next(pending, None)
        if task is not None:
            report("start", task.out_dir)
        return task

    try:
        _IN_PAGE = True
        browser = worker_browser(tasks[0].pipeline.capture_options or CaptureOptions(),
                                 tasks[0].restart_every, concurrency)
        warm_up_once(tasks[0].pipeline)
        outcomes = []
        for outcome in run_pages(next_task, lambda: False, browser, concurrency,
                                 report=_report_event):
            report("done", outcome)
            outcomes.append(outcome)
        return outcomes
    except Terminated:
        _exit_terminated()
    finally:
        _IN_PAGE = False


PAGE_PROGRESS = {"rendered": "pause", "segmenting": "resume"}
"""A page rendered waits for an earlier page's steps (not stuck); its steps run on its clock."""


def _report_event(kind: str, task: PageTask) -> None:
    report(PAGE_PROGRESS[kind], task.out_dir)


def run_pages(next_task: Callable[[], PageTask | None], more: Callable[[], bool],
              browser: Browser, concurrency: int,
              done: Callable[[PageTask], None] | None = None,
              report: Callable[[str, PageTask], None] | None = None
              ) -> Iterator[PageOutcome]:
    """Outcomes of pages rendered ``concurrency`` at a time in ``browser`` (capture threads)
    and segmented here, in this thread, in the order the pages came (so that state carried
    from page to page, such as ``--dedup-db``, sees them in input order, as one at a time).

    ``next_task()`` gives the next page, or ``None`` when none can start now; ``more()`` says
    whether pages may still come after a ``None`` (then it is asked again shortly). ``done``
    is told of each page whose outcome is about to be yielded; ``report("rendered", task)``
    (from a capture thread) and ``report("segmenting", task)`` of each page's progress. Captures
    that finished before
    an earlier page's wait for it (at most ``2 * concurrency`` pages in all), so a slow page
    holds up the segmentation of the later ones, not their rendering. Each page has one
    deadline, for the capture and the steps after it.
    """
    from collections import deque
    from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

    order: deque[tuple[PageTask, Future[tuple[PageCapture | None, Exception | Deadline,
                                               float]]]] = deque()
    executor = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="wps-render")
    try:
        while True:
            while (sum(1 for _, future in order if not future.done()) < concurrency
                   and len(order) < 2 * concurrency and (task := next_task()) is not None):
                order.append((task, executor.submit(_render_only, task, browser, report)))
            if not order:
                if not more():
                    return
                time.sleep(0.2)
                continue
            if not order[0][1].done():
                wait([future for _, future in order if not future.done()], timeout=0.2,
                     return_when=FIRST_COMPLETED)
            if order[0][1].done():  # one page, then more renders start if slots are free
                task, future = order.popleft()
                capture, error, render_s = future.result()
                if report is not None:
                    report("segmenting", task)
                outcome = _finish_rendered(task, capture, error, render_s)
                restart_if_grown(browser, task.restart_above_mb)
                if done is not None:
                    done(task)
                yield outcome
    finally:
        executor.shutdown(wait=False, cancel_futures=True)


def _render_only(task: PageTask, browser: Browser,
                 report: Callable[[str, PageTask], None] | None = None
                 ) -> tuple[PageCapture | None, Exception | Deadline, float]:
    """The capture of a page and its deadline (the steps after it share it), or the error."""
    from ..deadline import Deadline

    options = task.pipeline.capture_options or browser.options
    deadline = Deadline(options.timeout_s, what=task.source)
    started = time.perf_counter()
    try:
        return render_page(task, browser, deadline), deadline, time.perf_counter() - started
    except Exception as err:  # noqa: BLE001 - a failed page is a value
        return None, err, time.perf_counter() - started
    finally:
        if report is not None:
            report("rendered", task)


def _finish_rendered(task: PageTask, capture: PageCapture | None,
                     error: Exception | Deadline, render_s: float) -> PageOutcome:
    """The steps after capture of a rendered page (within the page's deadline), and its
    outcome."""
    if capture is None:
        assert isinstance(error, Exception)
        return failed_outcome(task, error, render_s)
    started = time.perf_counter()
    rendered = capture.screenshot
    try:
        result = segment_page(task, capture, deadline=error if not isinstance(
            error, Exception) else None)
    except Exception as err:  # noqa: BLE001 - a bug on one page must not stop the batch
        return failed_outcome(task, err, render_s + time.perf_counter() - started)
    finally:
        discard_screenshot(rendered)
    seconds = render_s + time.perf_counter() - started
    return PageOutcome(task.source, task.out_dir, True, seconds,
                       stages=page_stages(result, seconds))


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
    """Restart Chromium when its own processes hold more anonymous memory than ``limit_mb``:
    long runs grow caches a fresh browser does not have. A browser not running is left alone
    (restarting it would launch it), and other processes of this one (a fork server, another
    browser) never count: summing every descendant once started Chromium for a batch whose
    every page was refused."""
    if limit_mb is not None and browser.running and browser.memory_mb() > limit_mb:
        try:
            browser.restart()
        except WpsError:  # the next page's capture launches it again, or says why it cannot
            pass


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
    """The per-page pipeline, as ``wps segment --out`` runs it: the outputs the task asks for
    into ``out_dir``, and the text step's page report beside them."""
    if task.html is None:
        return segment_page(task, task.source, browser)
    capture = capture_stored_page(task, browser)
    rendered = capture.screenshot  # the output points the capture at its saved copy
    try:
        return segment_page(task, capture)
    finally:
        discard_screenshot(rendered)


def segment_page(task: PageTask, source: str | PageCapture,
                 browser: Browser | None = None, deadline: Deadline | None = None
                 ) -> PageResult:
    """:func:`wps.pipeline.segment_to_directory` for a batch page: the same steps within the
    same page deadline, then only the outputs the task asks for (``capture/`` and
    ``overlay.png`` are optional here; ``wps segment`` always writes them). ``task.pipeline``
    is already checked (once, by the driver), and the driver tidies the batch's folder
    (:meth:`~.batch.BatchRun.finish`), not each page."""
    from ..pipeline import segment_into

    return segment_into(source, task.out_dir, task.pipeline, browser, deadline,
                        capture_folder=task.save_capture, overlay=task.overlay, tidy=False)


def render_page(task: PageTask, browser: Browser,
                deadline: Deadline | None = None) -> PageCapture:
    """Only the capture of a page (the Ray engine segments it elsewhere)."""
    from ..deadline import Deadline

    options = task.pipeline.capture_options or browser.options
    deadline = deadline or Deadline(options.timeout_s, what=task.source)
    if task.html is not None:
        return capture_stored_page(task, browser, deadline)
    from ..pipeline import load_capture

    return load_capture(task.source, capture_options=options, browser=browser,
                        deadline=deadline)


def capture_stored_page(task: PageTask, browser: Browser,
                        deadline: Deadline | None = None) -> PageCapture:
    """A JSONL or WARC page's stored HTML, rendered offline under the page's own URL (replayed
    from its WARC with ``task.archive``)."""
    from ..capture import capture_stored
    from ..deadline import Deadline

    options = task.pipeline.capture_options or browser.options
    page = StoredPage.of(task.html or b"", task.source, task.archive or "")
    return capture_stored(page, options, browser=browser,
                          deadline=deadline or Deadline(options.timeout_s, what=task.source))
