"""``wps batch``: capture and segment many pages with a pool of workers, one Chromium each.

Layout of the output folder::

    DIR/<key>/              one page, as ``wps segment --out`` writes it: capture/,
                            segmentation.json, segments.jsonl, overlay.png (+ main-text.json)
    DIR/.done/<key>         completion marker (JSON: url, segmenter, options), written after the
                            page's folder; a rerun with the same segmenter and output options
                            skips the page, other options redo it
    DIR/failures.jsonl      this run's failures: {"url", "error", "message", "exit_code"}
    DIR/summary.json        counts and timings of the last run

``<key>`` is the page's ``page_id`` (first 12 hex digits of the SHA-1 of its URL). Markers and the
failures file are written by the parent process only, so workers never race on them.

A run that is interrupted (Ctrl-C, SIGTERM) stops its workers with SIGTERM and waits for them to
remove their temporary folders; what a killed run left (``DIR/.<key>.staging-<pid>-*``) is
removed when the next run starts, unless that process still runs.
"""

from __future__ import annotations

import json
import sys
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing
from dataclasses import asdict, dataclass, field, replace
from multiprocessing import get_context
from multiprocessing import connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import IO, Iterator

from ..capture import Browser, CaptureOptions, find_chromium
from ..errors import PageTimeoutError, UsageError, WpsError
from ..jsonsafe import load_nested
from ..files import prepare_output_folder, remove_stale_staging, write_text_atomic
from ..pipeline import PipelineOptions
from .sources import source_key
from .worker import PageOutcome, PageTask, init_worker, run_in_worker, run_page

DONE_FOLDER = ".done"
_STOP_WAIT_S = 30.0
"""How long an interrupted batch waits for a worker to clean up before killing it."""
_RESEND_S = 5.0
"""How often it repeats SIGTERM meanwhile (library code may swallow one)."""
FAILURES_FILE = "failures.jsonl"
SUMMARY_FILE = "summary.json"
OVERDUE_GRACE_S = 15.0
"""A page running this long past its deadline has a worker that does not stop: it is killed."""
OVERDUE_STOP_S = 3.0
"""How long an overdue pool's workers get to unwind on SIGTERM before SIGKILL."""


@dataclass(slots=True)
class BatchOptions:
    """How a batch runs; ``pipeline`` is what every page goes through, as in ``wps segment``."""

    workers: int = 1
    restart_every: int | None = 50
    """Restart each worker's Chromium after this many pages (bounds memory growth)."""
    pipeline: PipelineOptions = field(default_factory=PipelineOptions)
    progress: bool | None = None
    """Show a tqdm bar: ``None`` = only on a terminal."""

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise UsageError(f"--workers must be at least 1, got {self.workers}")
        if self.restart_every is not None and self.restart_every < 1:
            raise UsageError(f"--restart-every must be at least 1, got {self.restart_every}")


@dataclass(slots=True)
class BatchSummary:
    total: int = 0
    done: int = 0
    skipped: int = 0
    """Pages finished by an earlier run (completion marker present)."""
    failed: int = 0
    seconds: float = 0.0
    failures_path: str = ""

    def line(self) -> str:
        text = (f"batch: {self.total} pages: {self.done} done, {self.skipped} skipped "
                f"(already done), {self.failed} failed in {self.seconds:.1f} s")
        if self.failed:
            text += f" (see {self.failures_path})"
        return text


def run_batch(sources: list[str], out_dir: str | Path, options: BatchOptions) -> BatchSummary:
    """Process every source into ``out_dir``; failures are recorded, never raised."""
    from tqdm import tqdm

    started = time.perf_counter()
    out = Path(out_dir)
    done_dir = out / DONE_FOLDER
    pipeline = _checked_pipeline(options.pipeline)
    done_as = {"segmenter": pipeline.segmenter, "options": pipeline.output_key()}
    prepare_output_folder(out)
    prepare_output_folder(done_dir)
    for folder in (out, done_dir):  # what a killed run left
        remove_stale_staging(folder)
    summary = BatchSummary(total=len(sources), failures_path=str(out / FAILURES_FILE))
    tasks = []
    for source in sources:
        key = source_key(source)
        if _is_done(done_dir / key, done_as):
            summary.skipped += 1
        else:
            tasks.append(PageTask(source, str(out / key), pipeline, options.restart_every))
    bar = tqdm(total=len(sources), initial=summary.skipped, unit="page", file=sys.stderr,
               disable=None if options.progress is None else not options.progress,
               dynamic_ncols=True)
    with (open(out / FAILURES_FILE, "w", encoding="utf-8") as failures,
          closing(_results(tasks, options.workers)) as results):  # an interruption stops workers
        for result in results:
            if result.ok:
                _mark_done(done_dir / source_key(result.source), result, done_as)
                summary.done += 1
            else:
                _record_failure(failures, result)
                summary.failed += 1
            bar.update(1)
            bar.set_postfix(failed=summary.failed, refresh=False)
    bar.close()
    summary.seconds = time.perf_counter() - started
    _write_summary(out / SUMMARY_FILE, summary)
    return summary


def _checked_pipeline(pipeline: PipelineOptions) -> PipelineOptions:
    """Fail once, before any page, on what would fail every page: no Chromium, an unknown
    segmenter or options it does not take, a bad config file (read here once for all workers)."""
    capture_options = pipeline.capture_options or CaptureOptions()
    find_chromium(capture_options.chromium_path)
    return replace(pipeline, capture_options=capture_options).checked()


def _results(tasks: list[PageTask], workers: int) -> Iterator[PageOutcome]:
    """Results in completion order; one worker runs in this process (no pool to start)."""
    if not tasks:
        return
    if workers == 1:
        with Browser(tasks[0].pipeline.capture_options,
                     restart_every=tasks[0].restart_every) as browser:
            for task in tasks:
                yield run_page(task, browser)
        return
    pending = list(reversed(tasks))
    while pending:
        # A pool whose worker died (killed, out of memory) is broken: the pages it held fail,
        # and a new pool takes the rest.
        with ProcessPoolExecutor(max_workers=min(workers, len(pending)),
                                 mp_context=get_context("spawn"), initializer=init_worker) as pool:
            try:
                yield from _pool_results(pool, pending, workers,
                                         tasks[0].pipeline.timeout_s + OVERDUE_GRACE_S)
            except BaseException:  # Ctrl-C, SIGTERM, or the caller stopped: no page waits
                _stop_workers(pool)
                raise


def _pool_results(pool: ProcessPoolExecutor, pending: list[PageTask], workers: int,
                  overdue_after_s: float) -> Iterator[PageOutcome]:
    """Results of one pool until it breaks or ``pending`` is empty (taken from its end).

    A page still running ``overdue_after_s`` after it started has a worker that does not stop
    at its deadline (stuck outside Python, where the worker's own timer cannot reach): the
    pool's workers are stopped, that page fails as a timeout and the pages it held go back to
    ``pending`` for a fresh pool.
    """
    running: dict[Future[PageOutcome], PageTask] = {}
    started: dict[Future[PageOutcome], float] = {}
    broken = False
    while (pending or running) and not broken:
        while pending and len(running) < 2 * workers:
            task = pending.pop()
            running[pool.submit(run_in_worker, task)] = task
        finished = _wait_some(running, started)
        overdue = [future for future in running if future not in finished
                   and time.monotonic() - started.get(future, time.monotonic()) > overdue_after_s]
        for future in finished:
            task = running.pop(future)
            try:
                yield future.result()
            except BrokenProcessPool:
                broken = True
                yield _died(task)
        if overdue and not broken:
            _stop_workers(pool, OVERDUE_STOP_S)
            for future in overdue:
                yield _overdue(running.pop(future), overdue_after_s)
            yield from _finished_or_requeued(running, pending)
            return
    if broken:
        for future, task in running.items():
            try:
                yield future.result(timeout=0)
            except Exception:
                yield _died(task)


def _wait_some(running: dict[Future[PageOutcome], PageTask],
               started: dict[Future[PageOutcome], float]) -> set[Future[PageOutcome]]:
    """The futures that finished within a second; notes when the others started running."""
    from concurrent.futures import FIRST_COMPLETED, wait

    finished, _ = wait(running, timeout=1.0, return_when=FIRST_COMPLETED)
    now = time.monotonic()
    for future in running:
        if future.running() and future not in started:
            started[future] = now
    return finished


def _finished_or_requeued(running: dict[Future[PageOutcome], PageTask],
                          pending: list[PageTask]) -> Iterator[PageOutcome]:
    """After the workers were stopped: pages that finished meanwhile count, the others wait for
    the next pool (they did nothing wrong)."""
    for future, task in running.items():
        if future.done() and not future.cancelled() and future.exception() is None:
            yield future.result()
        else:
            pending.append(task)


def _stop_workers(pool: ProcessPoolExecutor, wait_s: float = _STOP_WAIT_S) -> None:
    """SIGTERM every worker and wait for it to unwind (its page's folders, its Chromium and its
    screenshots go); kill what does not end in time. Queued pages are dropped."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # no public API in 3.11
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + wait_s
    while processes and time.monotonic() < deadline:
        for process in processes:
            process.terminate()
        processes = _still_running(processes, min(time.monotonic() + _RESEND_S, deadline))
    for process in processes:
        process.kill()
        process.join()


def _still_running(processes: list[BaseProcess], until: float) -> list[BaseProcess]:
    """Wait until every process has ended or ``until`` (``time.monotonic``); what still runs."""
    while processes and time.monotonic() < until:
        connection.wait([process.sentinel for process in processes], until - time.monotonic())
        processes = [process for process in processes if process.is_alive()]
    return processes


def _overdue(task: PageTask, seconds: float) -> PageOutcome:
    return PageOutcome(task.source, task.out_dir, False, seconds, "PageTimeoutError",
                      f"{task.source}: the worker did not stop at the page deadline and was "
                      f"killed after {seconds:g} s", PageTimeoutError.exit_code)


def _died(task: PageTask) -> PageOutcome:
    return PageOutcome(task.source, task.out_dir, False, 0.0, "WorkerDied",
                      f"{task.source}: worker process died while rendering the page", 1)


def _is_done(marker: Path, done_as: dict[str, str]) -> bool:
    """A page is done if its marker exists and names the same segmenter and output options."""
    try:
        record = load_nested(marker.read_text(encoding="utf-8"), str(marker), json.loads)
    except (OSError, ValueError, WpsError):  # unreadable or odd marker: do the page again
        return False
    return isinstance(record, dict) and all(record.get(k) == v for k, v in done_as.items())


def _mark_done(marker: Path, result: PageOutcome, done_as: dict[str, str]) -> None:
    record = {"url": result.source, **done_as, "seconds": round(result.seconds, 3)}
    write_text_atomic(marker, json.dumps(record))


def _record_failure(handle: IO[str], result: PageOutcome) -> None:
    record = {"url": result.source, "error": result.error, "message": result.message,
              "exit_code": result.exit_code}
    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    handle.flush()


def _write_summary(path: Path, summary: BatchSummary) -> None:
    write_text_atomic(path, json.dumps(asdict(summary), indent=1))
