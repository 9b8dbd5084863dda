"""The local engine of ``wps batch``: a pool of worker processes on this machine, one Chromium
each (:mod:`.worker`), or one worker in this process.

Pages come from a :class:`~.politeness.PageQueue` through the executors of :mod:`wps.executor`
(in this process, or a pool of one page per call), or through a pool of workers that each render
several pages at once (``pages_per_browser``) and report each page as it goes. Outcomes are
yielded in completion order to the driver (:class:`~.batch.BatchRun`), which alone writes
markers and failures. A page still unfinished a grace period past its deadline has a worker that
does not stop (stuck outside Python, where the worker's own timer cannot reach): the pool's
workers are stopped, that page fails as a timeout and the pages they held go back to the queue
for a fresh pool. A pool whose worker died is broken: the pages it held fail, and a new pool
takes the rest.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ..capture import Browser
from ..errors import PageTimeoutError
from ..executor import (
    OVERDUE_STOP_S,
    InProcessExecutor,
    LocalExecutor,
    reporting_pool,
    stop_workers,
    worker_context,
)
from ..pipeline import PipelineOptions
from .options import BatchOptions
from .politeness import PageQueue
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

WORKER_MODULES = ("wps.runner.worker", "wps.output")
"""What a batch worker imports, once, in the fork server its workers start from (the pipeline,
capture, text and output modules and their libraries)."""
CHUNK_PER_BROWSER = 2
"""A pool worker with several pages per browser takes this many times as many pages per call
(the fewer calls, the less often its Chromium renders fewer pages than it could, at a call's
end)."""


def local_results(queue: PageQueue[PageTask], pipeline: PipelineOptions,
                  options: BatchOptions) -> Iterator[PageOutcome]:
    """The local engine's results in completion order; one worker runs in this process (no
    pool to start)."""
    if queue.exhausted():
        return
    concurrency = options.pages_per_browser
    overdue_after_s = pipeline.timeout_s + options.overdue_grace_s
    if options.workers == 1:
        warm_up_once(pipeline)
        # started by the first page that reaches capture: none when every page is refused
        with closing(Browser(pipeline.capture_options, restart_every=options.restart_every,
                             concurrency=concurrency)) as browser:
            if concurrency > 1:
                yield from run_pages(queue.take, lambda: not queue.exhausted(), browser,
                                     concurrency, done=queue.finished)
                return
            yield from InProcessExecutor().run(queue, partial(run_page, browser=browser))
        return
    if concurrency == 1:
        executor = LocalExecutor(options.workers, overdue_after_s, on_overdue=_overdue,
                                 on_died=_died, initializer=init_worker,
                                 initargs=(None, pipeline), start_method="forkserver",
                                 preload=WORKER_MODULES)
        yield from executor.run(queue, run_in_worker)
        return
    yield from _chunked_results(queue, options.workers, overdue_after_s, concurrency)


def _chunked_results(queue: PageQueue[PageTask], workers: int, overdue_after_s: float,
                     concurrency: int) -> Iterator[PageOutcome]:
    """The pools of workers that render several pages at once (:func:`_chunk_pool_results`);
    a fresh pool after one broke or was stopped."""
    context = worker_context("forkserver", WORKER_MODULES)
    first_start: dict[str, float] = {}
    """When each page of a chunked pool first started rendering (across pools)."""
    while not queue.exhausted():
        with reporting_pool(workers, context, init_worker, lambda events: (events,),
                            ) as (pool, events):
            yield from _chunk_pool_results(
                pool, events, queue, workers, overdue_after_s,
                CHUNK_PER_BROWSER * concurrency, concurrency, first_start)


@dataclass(slots=True)
class _Clocks:
    """When the pages handed to a chunked pool started rendering: their deadlines run from
    there."""

    first: dict[str, float]
    """Each page's first start (kept across pools, until its outcome)."""
    running: dict[str, float] = field(default_factory=dict)
    """Pages rendering or in their steps; gone while one waits for an earlier page's steps."""


def _chunk_pool_results(pool: ProcessPoolExecutor, events: Any, queue: PageQueue[PageTask],
                        workers: int, overdue_after_s: float, chunk: int,
                        concurrency: int,
                        first_start: dict[str, float]) -> Iterator[PageOutcome]:
    """Results of one pool (as :class:`~wps.executor.LocalExecutor` gives them) for workers that
    take ``chunk`` pages per call and render ``concurrency`` of them at once
    (:func:`~.worker.run_chunk_in_worker`).

    Workers report on ``events`` when each page starts rendering, ends it and starts its steps,
    and each outcome as it comes, so pages count one by one, as with one page per call: a page
    still rendering or in its steps ``overdue_after_s`` after it started (not one rendered and
    waiting for an earlier page's steps) stops the pool's workers and fails as a timeout; the
    pages that finished meanwhile count, the others go back to the queue for a fresh pool.
    """
    calls: dict[Future[Any], list[PageTask]] = {}
    waiting: dict[str, PageTask] = {}
    """Pages handed to a worker without an outcome yet, by output folder."""
    clocks = _Clocks(first=first_start)
    while calls or not queue.exhausted():
        while len(calls) < 2 * workers and (tasks := _take(queue, chunk)):
            calls[pool.submit(run_chunk_in_worker, tasks, concurrency)] = tasks
            waiting.update((task.out_dir, task) for task in tasks)
        if not calls:  # every waiting page's host is busy or resting
            time.sleep(queue.wait_s())
            continue
        yield from _page_events(events, waiting, clocks, queue, queue.poll_s())
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
                yield from _settle(waiting, clocks, queue, outcome)
            for task in tasks:
                if task.out_dir in waiting:
                    yield from _settle(waiting, clocks, queue, _died(task))
        now = time.monotonic()
        overdue = [key for key in waiting if now - clocks.running.get(key, now) > overdue_after_s]
        if broken or overdue:
            if overdue and not broken:
                stop_workers(pool, OVERDUE_STOP_S)
            yield from _page_events(events, waiting, clocks, queue, 0.5)  # what got through
            for key in overdue:
                yield from _settle(waiting, clocks, queue,
                                   _overdue(waiting[key], overdue_after_s))
            for task in list(waiting.values()):
                if broken:
                    yield from _settle(waiting, clocks, queue, _died(task))
                else:
                    waiting.pop(task.out_dir)
                    queue.put_back(task)
            return


def _page_events(events: Any, waiting: dict[str, PageTask], clocks: _Clocks,
                 queue: PageQueue[PageTask], wait_s: float) -> Iterator[PageOutcome]:
    """Read the workers' page events for up to ``wait_s`` (until the first one, then what is
    there): starts are noted, outcomes of waiting pages yielded."""
    from queue import Empty

    timeout: float | None = wait_s
    while True:
        try:
            kind, value = events.get(timeout=timeout) if timeout else events.get_nowait()
        except Empty:
            return
        timeout = None
        if kind == "start":
            clocks.running.setdefault(value, time.monotonic())
            clocks.first[value] = clocks.running[value]
        elif kind == "rendered":
            clocks.running.pop(value, None)  # not stuck: waiting for an earlier page's steps
        elif kind == "segmenting":
            if value in clocks.first:
                clocks.running[value] = clocks.first[value]
        else:
            yield from _settle(waiting, clocks, queue, value)


def _settle(waiting: dict[str, PageTask], clocks: _Clocks,
            queue: PageQueue[PageTask], outcome: PageOutcome) -> Iterator[PageOutcome]:
    """``outcome``, once: for a page still waiting for one."""
    task = waiting.pop(outcome.out_dir, None)
    if task is None:
        return
    clocks.running.pop(outcome.out_dir, None)
    clocks.first.pop(outcome.out_dir, None)
    queue.finished(task)
    yield outcome


def _take(queue: PageQueue[PageTask], count: int) -> list[PageTask]:
    tasks: list[PageTask] = []
    while len(tasks) < count and (task := queue.take()) is not None:
        tasks.append(task)
    return tasks


def _overdue(task: PageTask, seconds: float) -> PageOutcome:
    return PageOutcome(task.source, task.out_dir, False, seconds, "PageTimeoutError",
                      f"{task.source}: the worker did not stop at the page deadline and was "
                      f"killed after {seconds:g} s", PageTimeoutError.exit_code)


def _died(task: PageTask) -> PageOutcome:
    return PageOutcome(task.source, task.out_dir, False, 0.0, "WorkerDied",
                      f"{task.source}: worker process died while rendering the page", 1)
