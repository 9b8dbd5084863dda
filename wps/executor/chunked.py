"""A pool of worker processes that each take several tasks per call and do them side by side (a
browser rendering pages at once), with a deadline per task as with one task per call.

A worker's ``work(tasks)`` tells this process how each task goes (:func:`report`): when it
starts, when it waits for another task of its call (its clock stops: it is not stuck) and runs
again, and each result as it comes; so results count one by one. A task still running
``overdue_after_s`` after it started stops the pool's workers and gets ``on_overdue``; the tasks
that finished meanwhile count, the others go back to the queue for a fresh pool. A pool whose
worker died is broken: the tasks it held get ``on_died``, and a fresh pool takes the rest.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from .base import TaskQueue, as_queue
from .local import OVERDUE_STOP_S, reporting_pool, stop_workers, worker_context

Task = TypeVar("Task")
Result = TypeVar("Result")

CALLS_PER_WORKER = 2
"""Calls handed to the pool per worker: one running, one ready."""
_REPORTS: Any = None
"""In a worker: where :func:`report` sends what its tasks do."""


def report(kind: str, value: Any) -> None:
    """In a worker of a :class:`ChunkedLocalExecutor`: ``("start", key)``, a task starts;
    ``("pause", key)``, it waits for another task of its call (its clock stops); ``("resume",
    key)``, it runs again (its clock runs on from its start); ``("done", result)``, its result.
    Elsewhere it does nothing."""
    if _REPORTS is not None:
        _REPORTS.put((kind, value))


def _init_reporting(reports: Any, initializer: Callable[..., None] | None,
                    initargs: tuple[Any, ...]) -> None:
    global _REPORTS
    _REPORTS = reports
    if initializer is not None:
        initializer(*initargs)


@dataclass(slots=True)
class _Clocks:
    """When the tasks handed to the pool started: their deadlines run from there."""

    first: dict[str, float] = field(default_factory=dict)
    """Each task's first start (kept across pools, until its result)."""
    running: dict[str, float] = field(default_factory=dict)
    """Tasks running; gone while one waits for another task of its call."""


@dataclass(slots=True)
class ChunkedLocalExecutor(Generic[Task, Result]):
    """``workers`` processes that take ``chunk`` tasks per call; ``work(tasks)`` (a top-level
    function, or a :func:`functools.partial` of one) returns their results and reports each as
    it goes (:func:`report`); ``key`` names a task in those reports and ``result_key`` the task
    of a result."""

    workers: int
    chunk: int
    overdue_after_s: float
    on_overdue: Callable[[Any, float], Result]
    on_died: Callable[[Any], Result]
    key: Callable[[Any], str]
    result_key: Callable[[Result], str]
    initializer: Callable[..., None] | None = None
    initargs: tuple[Any, ...] = field(default_factory=tuple)
    start_method: str | None = "spawn"
    preload: tuple[str, ...] = ()

    def run(self, tasks: Iterable[Task] | TaskQueue[Task],
            work: Callable[[list[Any]], list[Result]]) -> Iterator[Result]:
        queue = as_queue(tasks)
        context = worker_context(self.start_method, self.preload)
        clocks = _Clocks()
        while not queue.exhausted():
            with reporting_pool(self.workers, context, _init_reporting,
                                lambda reports: (reports, self.initializer, self.initargs),
                                ) as (pool, reports):
                yield from _Pool(self, pool, reports, queue, work, clocks).results()


@dataclass(slots=True)
class _Pool(Generic[Task, Result]):
    """One pool's bookkeeping, until it breaks, is stopped or the queue is exhausted."""

    executor: ChunkedLocalExecutor[Task, Result]
    pool: ProcessPoolExecutor
    reports: Any
    queue: TaskQueue[Task]
    work: Callable[[list[Any]], list[Result]]
    clocks: _Clocks
    calls: dict[Future[Any], list[Task]] = field(default_factory=dict)
    waiting: dict[str, Task] = field(default_factory=dict)
    """Tasks handed to a worker without a result yet, by key."""

    def results(self) -> Iterator[Result]:
        executor, queue = self.executor, self.queue
        while self.calls or not queue.exhausted():
            while (len(self.calls) < CALLS_PER_WORKER * executor.workers
                   and (tasks := self._take())):
                self.calls[self.pool.submit(self.work, tasks)] = tasks
                self.waiting.update((executor.key(task), task) for task in tasks)
            if not self.calls:  # every waiting task must wait (a host resting)
                time.sleep(queue.wait_s())
                continue
            yield from self._read_reports(queue.poll_s())
            broken = False
            for future in [future for future in self.calls if future.done()]:
                tasks = self.calls.pop(future)
                try:
                    results = future.result()
                except BrokenProcessPool:
                    broken = True
                    continue
                except Exception:  # noqa: BLE001 - the call failed as a whole: its tasks died
                    results = []
                for result in results:  # their reports may still be on the way
                    yield from self._settle(result)
                for task in tasks:
                    if executor.key(task) in self.waiting:
                        yield from self._settle(executor.on_died(task))
            now = time.monotonic()
            overdue = [key for key in self.waiting
                       if now - self.clocks.running.get(key, now) > executor.overdue_after_s]
            if broken or overdue:
                yield from self._stop(broken, overdue)
                return

    def _stop(self, broken: bool, overdue: list[str]) -> Iterator[Result]:
        """The pool's end: overdue tasks fail, finished ones count, the others die with a broken
        pool or wait for the next one."""
        executor = self.executor
        if overdue and not broken:
            stop_workers(self.pool, OVERDUE_STOP_S)
        yield from self._read_reports(0.5)  # what got through
        for key in overdue:
            yield from self._settle(executor.on_overdue(self.waiting[key],
                                                        executor.overdue_after_s))
        for key, task in list(self.waiting.items()):
            if broken:
                yield from self._settle(executor.on_died(task))
            else:
                del self.waiting[key]
                self.queue.put_back(task)

    def _read_reports(self, wait_s: float) -> Iterator[Result]:
        """Read the workers' reports for up to ``wait_s`` (until the first one, then what is
        there): clocks are set, results of waiting tasks yielded."""
        from queue import Empty

        clocks = self.clocks
        timeout: float | None = wait_s
        while True:
            try:
                kind, value = (self.reports.get(timeout=timeout) if timeout
                               else self.reports.get_nowait())
            except Empty:
                return
            timeout = None
            if kind == "start":
                clocks.running.setdefault(value, time.monotonic())
                clocks.first[value] = clocks.running[value]
            elif kind == "pause":
                clocks.running.pop(value, None)
            elif kind == "resume":
                if value in clocks.first:
                    clocks.running[value] = clocks.first[value]
            else:
                yield from self._settle(value)

    def _settle(self, result: Result) -> Iterator[Result]:
        """``result``, once: for a task still waiting for one."""
        key = self.executor.result_key(result)
        task = self.waiting.pop(key, None)
        if task is None:
            return
        self.clocks.running.pop(key, None)
        self.clocks.first.pop(key, None)
        self.queue.finished(task)
        yield result

    def _take(self) -> list[Task]:
        tasks: list[Task] = []
        while len(tasks) < self.executor.chunk and (task := self.queue.take()) is not None:
            tasks.append(task)
        return tasks
