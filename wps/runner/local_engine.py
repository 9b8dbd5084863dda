"""The local engine of ``wps batch``: a pool of worker processes on this machine, one Chromium
each (:mod:`.worker`), or one worker in this process.

Pages come from a :class:`~.politeness.PageQueue` through the executors of :mod:`wps.executor`:
in this process, a pool of one page per call, or a pool of workers that each render several
pages at once (``pages_per_browser``) and report each page as it goes. Outcomes are
yielded in completion order to the driver (:class:`~.batch.BatchRun`), which alone writes
markers and failures. A page still unfinished a grace period past its deadline has a worker that
does not stop (stuck outside Python, where the worker's own timer cannot reach): the pool's
workers are stopped, that page fails as a timeout and the pages they held go back to the queue
for a fresh pool. A pool whose worker died is broken: the pages it held fail, and a new pool
takes the rest.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from functools import partial

from ..capture import Browser
from ..errors import PageTimeoutError
from ..executor import ChunkedLocalExecutor, InProcessExecutor, LocalExecutor
from ..pipeline import PipelineOptions
from .options import BatchOptions
from .politeness import PageQueue
from .prestart import WORKER_MODULES
from .worker import (
    PageOutcome,
    PageTask,
    init_worker,
    page_site,
    run_chunk_in_worker,
    run_in_worker,
    run_page,
    run_pages,
    warm_up_once,
)

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
                                 initargs=(pipeline,), start_method="forkserver",
                                 preload=WORKER_MODULES, affinity=page_site)
        yield from executor.run(queue, run_in_worker)
        return
    chunked = ChunkedLocalExecutor(
        options.workers, CHUNK_PER_BROWSER * concurrency, overdue_after_s, on_overdue=_overdue,
        on_died=_died, key=_key, result_key=_key, initializer=init_worker,
        start_method="forkserver", preload=WORKER_MODULES)
    yield from chunked.run(queue, partial(run_chunk_in_worker, concurrency=concurrency))


def _key(page: PageTask | PageOutcome) -> str:
    return page.out_dir


def _overdue(task: PageTask, seconds: float) -> PageOutcome:
    return PageOutcome(task.source, task.out_dir, False, seconds, "PageTimeoutError",
                      f"{task.source}: the worker did not stop at the page deadline and was "
                      f"killed after {seconds:g} s", PageTimeoutError.exit_code)


def _died(task: PageTask) -> PageOutcome:
    return PageOutcome(task.source, task.out_dir, False, 0.0, "WorkerDied",
                      f"{task.source}: worker process died while rendering the page", 1)
