"""``wps batch``: capture and segment many pages, on this machine or on a Ray cluster.

Layout of the output folder::

    DIR/<key>/              one page, as ``wps segment --out`` writes it: segmentation.json,
                            segments.jsonl, report.html (+ main-text.json); capture/ only with
                            ``save_capture``, overlay.png and the screenshot only with
                            ``images`` (the screenshot is taken anyway for a segmenter that
                            reads it)
    DIR/.done/<key>         completion marker (JSON: url, segmenter, options, outputs), written
                            after the page's folder; a rerun with the same segmenter and output
                            options skips the page, other options redo it
    DIR/.lock               held (flock) by the one batch writing here (:mod:`.lock`)
    DIR/failures.jsonl      this run's failures: {"url", "error", "message", "exit_code"}
    DIR/summary.json        counts and timings of the last run, failure causes, slowest pages
    DIR/segments.jsonl      with ``merged``: every finished page's segment lines (or
                            DIR/segments.parquet, :mod:`.merged`)
    DIR/report.html         one row per page (its own DIR/<key>/report.html linked, written
                            with ``reports``), totals, drop reasons (:mod:`wps.report.batch`),
                            written when a run ends

``<key>`` is the page's folder name (:func:`.folders.page_folder_name`): host, a slug of the
path and the page's ``page_id`` (first 12 hex digits of the SHA-1 of its URL), e.g.
``example.com_news-a-story_3f2a9c1b0d4e``; a page done by an earlier version, whose folder and
marker are the bare ``page_id``, keeps them. Pages come as a
stream (:mod:`.sources`) through a :class:`~.politeness.PageQueue` to an engine: the local one
here (a pool of worker processes, one Chromium each, each rendering ``pages_per_browser`` pages
at once while it segments the rendered ones) or :mod:`.ray_engine`. Markers, failures and
the summary are written by the driver process only (:class:`BatchRun`), so workers never race.

A run that is interrupted (Ctrl-C, SIGTERM) stops its workers with SIGTERM and waits for them to
remove their temporary folders; what a killed run left (``DIR/.<key>.staging-<pid>-*``) is
removed when the next run starts, unless that process still runs.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing
from dataclasses import asdict, replace
from multiprocessing import connection, get_context
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import IO, Any

from ..capture import Browser, CaptureOptions, find_chromium
from ..errors import BlockedTargetError, InputFileError, PageTimeoutError, WpsError
from ..files import prepare_output_folder, remove_stale_staging, write_text_atomic
from ..jsonsafe import load_nested
from ..pipeline import PipelineOptions
from ..report.batch import write_batch_report
from ..segmenters import wants_screenshot
from .folders import page_folder
from .lock import output_lock
from .merged import DONE_FOLDER, import_pyarrow, write_merged_segments
from .options import BatchOptions, BatchSummary
from .politeness import USER_AGENT, PageQueue, RobotsRules
from .entries import BatchSource
from .worker import (
    PageOutcome,
    PageTask,
    init_worker,
    run_chunk_in_worker,
    run_in_worker,
    run_page,
    run_pages,
    warm_up_once,
)

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


CHUNK_PER_BROWSER = 2
"""A pool worker with several pages per browser takes this many times as many pages per call
(the fewer calls, the less often its Chromium renders fewer pages than it could, at a call's
end)."""
_log = logging.getLogger(__name__)

SLOWEST_SHOWN = 5
FAILURES_SHOWN = 5
"""Failed inputs named in the closing lines (all are in failures.jsonl)."""
PROGRESS_LOG_S = 10.0
"""Seconds between plain progress lines when stderr is not a terminal."""


def run_batch(sources: Iterable[str | BatchSource], out_dir: str | Path, options: BatchOptions,
              total: int | None = None) -> BatchSummary:
    """Process every source into ``out_dir``; failures are recorded, never raised.

    ``sources`` may be a stream (:func:`~wps.runner.sources.iter_sources`); ``total`` (a guess
    is fine) gives the progress bar its end. A second batch on the same folder refuses with
    :class:`~wps.errors.OutputLockedError` (or waits, ``options.wait_for_lock``).
    """
    started = time.perf_counter()
    out = Path(out_dir)
    pipeline = _checked_pipeline(replace(options.pipeline, report=options.reports),
                                 options.images)
    if options.merged and options.merged_format == "parquet":  # before any page, not after
        import_pyarrow()
    if options.engine == "ray":  # a missing Ray fails before anything is written
        from .ray_engine import import_ray

        import_ray(local=not options.ray_address)
    prepare_output_folder(out)
    with output_lock(out, wait=options.wait_for_lock):
        prepare_output_folder(out / DONE_FOLDER)
        for folder in (out, out / DONE_FOLDER):  # what a killed run left
            remove_stale_staging(folder)
        run = BatchRun(out, pipeline, options, total if total is not None else (
            len(sources) if isinstance(sources, list) else None))
        with closing(run):
            queue = PageQueue(run.tasks(sources), lambda task: task.host,
                              per_host=options.per_host, delay_s=options.host_delay_s,
                              host_delay=run.crawl_delay)
            if options.engine == "ray":
                from .ray_engine import ray_results

                results = ray_results(queue, pipeline, options)
            else:
                results = _results(queue, pipeline, options)
            with closing(results):  # an interruption stops the workers
                for result in results:
                    run.record(result)
        return run.finish(time.perf_counter() - started)


class BatchRun:
    """One run's bookkeeping, the same for every engine: which pages are done (markers), what
    failed (``failures.jsonl``), the progress bar, the summary. Written by the driver process
    only, so workers never race on them. :meth:`finish` is where every run ends."""

    def __init__(self, out: Path, pipeline: PipelineOptions, options: BatchOptions,
                 total: int | None) -> None:
        from tqdm import tqdm

        self.out = out
        self.pipeline = pipeline
        self.options = options
        self.done_as = {"segmenter": pipeline.segmenter, "options": pipeline.output_key(),
                        "outputs": options.outputs}
        self.summary = BatchSummary(failures_path=str(out / FAILURES_FILE), engine=options.engine)
        self.robots = (RobotsRules(_allow_private(pipeline), user_agent=_user_agent(pipeline))
                       if options.robots else None)
        self._failures = open(  # noqa: SIM115 - a run's file, closed by close()
            out / FAILURES_FILE, "w", encoding="utf-8")
        self._times: list[tuple[float, str]] = []
        self._bar = tqdm(total=total, unit="page", file=sys.stderr, dynamic_ncols=True,
                         disable=None if options.progress is None else not options.progress)
        self._started = self._logged = time.monotonic()

    def tasks(self, sources: Iterable[str | BatchSource]) -> Iterator[PageTask]:
        """The pages still to do, streamed; finished ones count as skipped, refused ones fail."""
        for source in sources:
            if isinstance(source, str):
                source = BatchSource(source)
            self.summary.total += 1
            if source.problem:
                self.record(PageOutcome(source.location, "", False, 0.0, "InputFileError",
                                        source.problem, InputFileError.exit_code))
                continue
            try:
                key = source.key
            except (OSError, RuntimeError) as err:  # a path that cannot be resolved (a loop)
                self.record(PageOutcome(source.location, "", False, 0.0, "InputFileError",
                                        f"{source.location}: unusable path ({err})",
                                        InputFileError.exit_code))
                continue
            folder = page_folder(self.out, source.location, key)
            if _is_done(self.out / DONE_FOLDER / folder, self.done_as):
                self.summary.skipped += 1
                self._bar.update(1)
                continue
            task = PageTask(source.location, str(self.out / folder), self.pipeline,
                            self.options.restart_every, source.html,
                            self.options.restart_above_mb,
                            save_capture=self.options.save_capture or self.options.images,
                            overlay=self.options.images,
                            archive=source.archive if self.options.replay else None)
            refusal = self.robots.refusal(task.source) if self.robots and task.host else None
            if refusal:
                self.record(PageOutcome(task.source, task.out_dir, False, 0.0,
                                        "RobotsDisallowed", refusal, BlockedTargetError.exit_code))
                continue
            yield task

    def crawl_delay(self, site: str) -> float:
        return self.robots.crawl_delay(site) if self.robots else 0.0

    def record(self, result: PageOutcome) -> None:
        """One page's outcome: its marker or its failure line, the bar, the summary."""
        _log.info("%s: %s in %.1f s", result.source,
                  "done" if result.ok else f"failed ({result.message})", result.seconds)
        if result.ok:
            folder = Path(result.out_dir).name
            _mark_done(self.out / DONE_FOLDER / folder, result, {**self.done_as, "folder": folder})
            self.summary.done += 1
            self._times.append((result.seconds, result.source))
            for stage, seconds in result.stages.items():
                self.summary.stage_seconds[stage] = (
                    self.summary.stage_seconds.get(stage, 0.0) + seconds)
        else:
            _record_failure(self._failures, result)
            self.summary.failed += 1
            causes = self.summary.failure_causes
            causes[result.error] = causes.get(result.error, 0) + 1
            if len(self.summary.first_failures) < FAILURES_SHOWN:
                self.summary.first_failures.append((result.source, result.error))
        self._bar.update(1)
        self._bar.set_postfix(failed=self.summary.failed, refresh=False)
        self._log_progress()

    def _log_progress(self) -> None:
        """Without a progress bar (stderr is a log file, nohup, Slurm), a plain line every
        :data:`PROGRESS_LOG_S` seconds instead, unless progress was turned off."""
        now = time.monotonic()
        if not self._bar.disable or self.options.progress is False or \
                now - self._logged < PROGRESS_LOG_S:
            return
        self._logged = now
        summary, minutes = self.summary, max(now - self._started, 1e-9) / 60
        finished = summary.done + summary.failed
        print(f"batch: {finished + summary.skipped}/{self._bar.total or '?'} pages: "
              f"{summary.done} done, {summary.failed} failed, {summary.skipped} skipped, "
              f"{finished / minutes:.1f} pages/min", file=sys.stderr, flush=True)

    def finish(self, seconds: float) -> BatchSummary:
        """The end of a run (every engine): the merged segments file, ``summary.json``, then
        the batch's ``report.html`` (:mod:`wps.report.batch`)."""
        self.close()
        self.summary.seconds = seconds
        self.summary.slowest = [(url, round(s, 2)) for s, url in
                                sorted(self._times, reverse=True)[:SLOWEST_SHOWN]]
        self.summary.stage_seconds = {stage: round(value, 3) for stage, value
                                      in sorted(self.summary.stage_seconds.items())}
        if self.options.merged:
            write_merged_segments(self.out, self.options.merged_format)
        _write_summary(self.out / SUMMARY_FILE, self.summary)
        write_batch_report(self.out, page_reports=self.options.reports)
        return self.summary

    def close(self) -> None:
        self._bar.close()
        self._failures.close()


def _allow_private(pipeline: PipelineOptions) -> bool:
    return bool(pipeline.capture_options and pipeline.capture_options.allow_private)


def _user_agent(pipeline: PipelineOptions) -> str:
    return (pipeline.capture_options and pipeline.capture_options.user_agent) or USER_AGENT


def _checked_pipeline(pipeline: PipelineOptions, images: bool = True) -> PipelineOptions:
    """Fail once, before any page, on what would fail every page: no Chromium, an unknown
    segmenter or options it does not take, a bad config file (read here once for all workers).
    Without ``images`` the screenshot is taken only for a segmenter that reads it or a report
    that embeds it."""
    capture_options = pipeline.capture_options or CaptureOptions()
    find_chromium(capture_options.chromium_path)
    if capture_options.user_agent is None:  # live sites are told who visits
        capture_options = replace(capture_options, user_agent=USER_AGENT)
    if (not images and not pipeline.embed_screenshot and capture_options.screenshot
            and not wants_screenshot(pipeline.build_segmenter())):
        capture_options = replace(capture_options, screenshot=False)
    return replace(pipeline, capture_options=capture_options).checked()


def _results(queue: PageQueue[PageTask], pipeline: PipelineOptions,
             options: BatchOptions) -> Iterator[PageOutcome]:
    """The local engine's results in completion order; one worker runs in this process (no
    pool to start)."""
    if queue.exhausted():
        return
    concurrency = options.pages_per_browser
    if options.workers == 1:
        warm_up_once(pipeline)
        # started by the first page that reaches capture: none when every page is refused
        with closing(Browser(pipeline.capture_options, restart_every=options.restart_every,
                             concurrency=concurrency)) as browser:
            if concurrency > 1:
                yield from run_pages(queue.take, lambda: not queue.exhausted(), browser,
                                     concurrency, done=queue.finished)
                return
            while not queue.exhausted():
                task = queue.take()
                if task is None:  # every waiting page's host is busy or resting
                    time.sleep(queue.wait_s())
                    continue
                yield run_page(task, browser)
                queue.finished(task)
        return
    context = get_context("spawn")
    while not queue.exhausted():
        # A pool whose worker died (killed, out of memory) is broken: the pages it held fail,
        # and a new pool takes the rest.
        events = context.Queue()
        with ProcessPoolExecutor(max_workers=options.workers, mp_context=context,
                                 initializer=init_worker, initargs=(events,)) as pool:
            try:
                if concurrency == 1:
                    yield from _pool_results(pool, events, queue, options.workers,
                                             pipeline.timeout_s + OVERDUE_GRACE_S)
                else:
                    yield from _chunk_pool_results(
                        pool, events, queue, options.workers,
                        pipeline.timeout_s + OVERDUE_GRACE_S,
                        CHUNK_PER_BROWSER * concurrency, concurrency)
            except BaseException:  # Ctrl-C, SIGTERM, or the caller stopped: no page waits
                _stop_workers(pool)
                raise
            finally:
                events.close()
                events.join_thread()


def _pool_results(pool: ProcessPoolExecutor, events: Any, queue: PageQueue[PageTask],
                  workers: int, overdue_after_s: float) -> Iterator[PageOutcome]:
    """Results of one pool until it breaks or ``queue`` is exhausted.

    A page still running ``overdue_after_s`` after it started has a worker that does not stop
    at its deadline (stuck outside Python, where the worker's own timer cannot reach): the
    pool's workers are stopped, that page fails as a timeout and the pages it held go back to
    the queue for a fresh pool. A page starts when its worker says so on ``events``, after the
    worker has started and warmed up (tens of seconds on a loaded machine): a future runs as
    soon as it waits in the pool's call queue. One that never says so is overdue
    :data:`WORKER_START_S` later.
    """
    running: dict[Future[PageOutcome], PageTask] = {}
    handed: dict[Future[PageOutcome], float] = {}
    """When each future was handed to the workers' call queue."""
    started: dict[str, float] = {}
    """When each page started, by output folder, as its worker reported."""
    broken = False
    while running or not queue.exhausted():
        while len(running) < 2 * workers and (task := queue.take()) is not None:
            running[pool.submit(run_in_worker, task)] = task
        if not running:  # every waiting page's host is busy or resting
            time.sleep(queue.wait_s())
            continue
        finished = _wait_some(running, handed, queue.poll_s())
        _note_starts(events, started)
        now = time.monotonic()
        overdue = [future for future in running if future not in finished
                   and _is_overdue(running[future], future, handed, started, now,
                                     overdue_after_s)]
        for future in finished:
            task = running.pop(future)
            started.pop(task.out_dir, None)
            queue.finished(task)
            try:
                yield future.result()
            except BrokenProcessPool:
                broken = True
                yield _died(task)
        if overdue and not broken:
            _stop_workers(pool, OVERDUE_STOP_S)
            for future in overdue:
                task = running.pop(future)
                queue.finished(task)
                yield _overdue(task, overdue_after_s)
            yield from _finished_or_requeued(running, queue)
            return
        if broken:
            for future, task in running.items():
                queue.finished(task)
                try:
                    yield future.result(timeout=0)
                except Exception:  # noqa: BLE001 - whatever it was, the worker is gone
                    yield _died(task)
            return


WORKER_START_S = 120.0
"""How long a page handed to the pool may wait for its worker to start it (spawn, imports, the
warm-up) before that worker counts as stuck."""


def _is_overdue(task: PageTask, future: Future[PageOutcome],
                handed: dict[Future[PageOutcome], float], started: dict[str, float], now: float,
                overdue_after_s: float) -> bool:
    if task.out_dir in started:
        return now - started[task.out_dir] > overdue_after_s
    return now - handed.get(future, now) > overdue_after_s + WORKER_START_S


def _note_starts(events: Any, started: dict[str, float]) -> None:
    """The pages that the workers reported started since the last look."""
    from queue import Empty

    while True:
        try:
            kind, value = events.get_nowait()
        except Empty:
            return
        if kind == "start":
            started.setdefault(value, time.monotonic())


def _wait_some(running: dict[Future[PageOutcome], PageTask],
               handed: dict[Future[PageOutcome], float],
               timeout_s: float) -> set[Future[PageOutcome]]:
    """The futures that finished within ``timeout_s``; notes when the others were handed to
    the workers' call queue."""
    from concurrent.futures import FIRST_COMPLETED, wait

    finished, _ = wait(running, timeout=timeout_s, return_when=FIRST_COMPLETED)
    now = time.monotonic()
    for future in running:
        if future.running() and future not in handed:
            handed[future] = now
    return finished


def _finished_or_requeued(running: dict[Future[PageOutcome], PageTask],
                          queue: PageQueue[PageTask]) -> Iterator[PageOutcome]:
    """After the workers were stopped: pages that finished meanwhile count, the others wait for
    the next pool (they did nothing wrong)."""
    for future, task in running.items():
        if future.done() and not future.cancelled() and future.exception() is None:
            queue.finished(task)
            yield future.result()
        else:
            queue.put_back(task)


def _chunk_pool_results(pool: ProcessPoolExecutor, events: Any, queue: PageQueue[PageTask],
                        workers: int, overdue_after_s: float, chunk: int,
                        concurrency: int) -> Iterator[PageOutcome]:
    """:func:`_pool_results` for workers that take ``chunk`` pages per call and render
    ``concurrency`` of them at once (:func:`~.worker.run_chunk_in_worker`).

    Workers report on ``events`` when each page starts rendering, ends it and starts its steps,
    and each outcome as it comes, so pages count one by one, as with one page per call: a page
    still rendering or in its steps ``overdue_after_s`` after it started (not one rendered and
    waiting for an earlier page's steps) stops the pool's workers and fails as a timeout; the
    pages that finished meanwhile count, the others go back to the queue for a fresh pool.
    """
    calls: dict[Future[Any], list[PageTask]] = {}
    waiting: dict[str, PageTask] = {}
    """Pages handed to a worker without an outcome yet, by output folder."""
    started: dict[str, float] = {}
    """When each waiting page started rendering; gone while it waits for its steps."""
    while calls or not queue.exhausted():
        while len(calls) < 2 * workers and (tasks := _take(queue, chunk)):
            calls[pool.submit(run_chunk_in_worker, tasks, concurrency)] = tasks
            waiting.update((task.out_dir, task) for task in tasks)
        if not calls:  # every waiting page's host is busy or resting
            time.sleep(queue.wait_s())
            continue
        yield from _page_events(events, waiting, started, queue, queue.poll_s())
        broken = False
        for future in [future for future in calls if future.done()]:
            tasks = calls.pop(future)
            try:
                outcomes = future.result()
            except BrokenProcessPool:
                broken = True
                continue
            except Exception:  # noqa: BLE001 - the call failed as a whole: its pages died
                outcomes = []
            for outcome in outcomes:  # their events may still be on the way
                yield from _settle(waiting, started, queue, outcome)
            for task in tasks:
                if task.out_dir in waiting:
                    yield from _settle(waiting, started, queue, _died(task))
        now = time.monotonic()
        overdue = [key for key in waiting if now - started.get(key, now) > overdue_after_s]
        if broken or overdue:
            if overdue and not broken:
                _stop_workers(pool, OVERDUE_STOP_S)
            yield from _page_events(events, waiting, started, queue, 0.5)  # what got through
            for key in overdue:
                yield from _settle(waiting, started, queue,
                                   _overdue(waiting[key], overdue_after_s))
            for task in list(waiting.values()):
                if broken:
                    yield from _settle(waiting, started, queue, _died(task))
                else:
                    waiting.pop(task.out_dir)
                    queue.put_back(task)
            return


def _page_events(events: Any, waiting: dict[str, PageTask], started: dict[str, float],
                 queue: PageQueue[PageTask], wait_s: float) -> Iterator[PageOutcome]:
    """Read the workers' page events for up to ``wait_s`` (until the first one, then what is
    there): starts are noted, outcomes of waiting pages yielded."""
    first_start = _FIRST_START
    from queue import Empty

    timeout: float | None = wait_s
    while True:
        try:
            kind, value = events.get(timeout=timeout) if timeout else events.get_nowait()
        except Empty:
            return
        timeout = None
        if kind == "start":
            started.setdefault(value, time.monotonic())
            first_start[value] = started[value]
        elif kind == "rendered":
            started.pop(value, None)  # not stuck: waiting for an earlier page's steps
        elif kind == "segmenting":
            if value in first_start:
                started[value] = first_start[value]
        else:
            yield from _settle(waiting, started, queue, value)


def _settle(waiting: dict[str, PageTask], started: dict[str, float],
            queue: PageQueue[PageTask], outcome: PageOutcome) -> Iterator[PageOutcome]:
    """``outcome``, once: for a page still waiting for one."""
    task = waiting.pop(outcome.out_dir, None)
    if task is None:
        return
    started.pop(outcome.out_dir, None)
    _FIRST_START.pop(outcome.out_dir, None)
    queue.finished(task)
    yield outcome


_FIRST_START: dict[str, float] = {}
"""When each page of a chunked pool started rendering (its deadline runs from there)."""


def _take(queue: PageQueue[PageTask], count: int) -> list[PageTask]:
    tasks: list[PageTask] = []
    while len(tasks) < count and (task := queue.take()) is not None:
        tasks.append(task)
    return tasks


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
    record = {"url": _utf8_safe(result.source), "error": result.error,
              "message": _utf8_safe(result.message), "exit_code": result.exit_code}
    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    handle.flush()


def _utf8_safe(text: str) -> str:
    """``text`` with what UTF-8 cannot hold (a file name's undecodable bytes, which Python
    keeps as lone surrogates) written as backslash escapes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _write_summary(path: Path, summary: BatchSummary) -> None:
    write_text_atomic(path, json.dumps(asdict(summary), indent=1))
