"""A pool of worker processes on this machine, with a deadline per task and a fresh pool after
a stuck or dead worker."""

from __future__ import annotations

import os
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from multiprocessing import connection, get_context
from multiprocessing.process import BaseProcess
from typing import Any, Generic, TypeVar

from .base import SiteLanes, TaskQueue, WorkerPool, as_queue

Task = TypeVar("Task")
Result = TypeVar("Result")

IN_FLIGHT_PER_WORKER = 2
"""Tasks handed to the pool per worker: one running, one ready, so no worker waits."""
STOP_WAIT_S = 30.0
"""How long an interrupted run waits for a worker to clean up before killing it."""
RESEND_S = 5.0
"""How often it repeats SIGTERM meanwhile (library code may swallow one)."""
OVERDUE_STOP_S = 3.0
"""How long an overdue pool's workers get to unwind on SIGTERM before SIGKILL."""


@dataclass(slots=True)
class LocalExecutor(WorkerPool[Task, Result]):
    """A pool of ``workers`` spawned processes on this machine; ``work`` must be a top-level
    function (it is pickled by name).

    A task still running ``overdue_after_s`` after it started has a worker that does not stop
    (stuck outside Python, where the worker's own timer cannot reach): the pool's workers are
    stopped, the task's result is ``on_overdue(task, seconds)`` and the tasks it held go back to
    the queue for a fresh pool. A pool whose worker died is broken: the tasks in flight get
    ``on_died(task)`` (default: :class:`WorkerDiedError` is raised) and a fresh pool takes the
    rest. Ctrl-C, SIGTERM or a caller that stops reading stops the workers (:func:`stop_workers`).

    A task starts when its worker takes it, after the worker has started (spawn, imports, the
    ``initializer``: tens of seconds on a loaded machine), as the worker reports; not when it
    waits in the pool's call queue, where a future already counts as running. A task no worker
    reports is overdue :data:`WORKER_START_S` later.
    """

    start_method: str | None = "spawn"
    """How workers start: ``spawn`` (a fresh interpreter: nothing of this process's state, no
    threads' locks); ``forkserver`` (forked from a fresh interpreter that imported ``preload``
    once: the same, without each worker's imports); ``None``, the platform's default (``fork``
    on Linux: a worker inherits what this process registered, such as a script's own
    segmenters)."""
    preload: tuple[str, ...] = ()
    """Modules the fork server imports once for all workers (``forkserver`` only)."""
    def run(self, tasks: Iterable[Task] | TaskQueue[Task],
            work: Callable[[Any], Result]) -> Iterator[Result]:
        queue = as_queue(tasks)
        context = worker_context(self.start_method, self.preload)
        if self.affinity is not None:
            yield from _Lanes(self, context, queue, work).results()
            return
        while not queue.exhausted():
            with reporting_pool(self.workers, context, _init_worker,
                                lambda starts: (starts, self.initializer, self.initargs),
                                ) as (pool, starts):
                yield from self._pool_results(pool, queue, work, _Starts(starts))

    def _pool_results(self, pool: ProcessPoolExecutor, queue: TaskQueue[Task],
                      work: Callable[[Any], Result], starts: _Starts) -> Iterator[Result]:
        """Results of one pool until it breaks or ``queue`` is exhausted."""
        running: dict[Future[Result], Task] = {}
        held: dict[Future[Result], ExitStack] = {}
        handed: dict[Future[Result], float] = {}
        """When each future was handed to the workers' call queue."""
        broken = False
        try:
            while running or not queue.exhausted():
                while (len(running) < IN_FLIGHT_PER_WORKER * self.workers
                       and (task := queue.take()) is not None):
                    future = self._submit(pool, work, task, held, starts)
                    running[future] = task
                if not running:  # every waiting task must wait (a host resting)
                    time.sleep(queue.wait_s())
                    continue
                finished = _wait_some(running, handed, queue.poll_s())
                overdue = self._overdue(running, finished, handed, starts)
                for future in finished:
                    task = running.pop(future)
                    queue.finished(task)
                    held.pop(future).close()
                    try:
                        result = future.result()
                    except BrokenProcessPool:
                        broken = True
                        result = self.died(task)
                    yield result
                if overdue and not broken:
                    stop_workers(pool, OVERDUE_STOP_S)
                    for future in overdue:
                        task = running.pop(future)
                        queue.finished(task)
                        yield self.on_overdue(task, self.overdue_after_s)  # type: ignore[misc,arg-type]
                    yield from _finished_or_requeued(running, queue)
                    return
                if broken:
                    for future, task in list(running.items()):
                        del running[future]
                        queue.finished(task)
                        try:
                            result = future.result(timeout=0)
                        except Exception:  # noqa: BLE001 - whatever it was, the worker is gone
                            result = self.died(task)
                        yield result
                    return
        finally:
            for future in running:
                future.cancel()
            for stack in held.values():
                stack.close()

    def _submit(self, pool: ProcessPoolExecutor, work: Callable[[Any], Result], task: Task,
                held: dict[Future[Result], ExitStack], starts: _Starts) -> Future[Result]:
        stack = ExitStack()
        given = stack.enter_context(self.prepare(task)) if self.prepare else task
        token = starts.token()
        try:
            future = pool.submit(_run_reported, work, token, given)
        except BaseException:
            stack.close()
            raise
        starts.tokens[future] = token
        held[future] = stack
        return future

    def _overdue(self, running: dict[Future[Result], Task], finished: set[Future[Result]],
                 handed: dict[Future[Result], float], starts: _Starts) -> list[Future[Result]]:
        if self.overdue_after_s is None:
            return []
        starts.read()
        now = time.monotonic()
        overdue = []
        for future in running:
            if future in finished:
                continue
            started = starts.at(future)
            if started is not None:
                late = now - started > self.overdue_after_s
            else:
                late = now - handed.get(future, now) > self.overdue_after_s + WORKER_START_S
            if late:
                overdue.append(future)
        return overdue


class _Lanes(Generic[Task, Result]):
    """A :class:`LocalExecutor` run with ``affinity``: one pool of one worker per lane, each
    with at most :data:`IN_FLIGHT_PER_WORKER` tasks, placed by :class:`SiteLanes`. A stuck or dead worker costs only its
    own lane, which a fresh pool replaces at its next task; the other lanes run on."""

    def __init__(self, executor: LocalExecutor[Task, Result], context: Any,
                 queue: TaskQueue[Task], work: Callable[[Any], Result]) -> None:
        self.executor, self.context, self.queue, self.work = executor, context, queue, work
        self.events = context.Queue()
        self.starts = _Starts(self.events)
        self.pools: list[ProcessPoolExecutor | None] = [None] * executor.workers
        self.running: dict[Future[Result], Task] = {}
        self.lane_of: dict[Future[Result], int] = {}
        self.held: dict[Future[Result], ExitStack] = {}
        self.handed: dict[Future[Result], float] = {}
        self.lanes = SiteLanes(executor.workers, 1, IN_FLIGHT_PER_WORKER)
        self.waiting: deque[Task] = deque()
        """Tasks taken from the queue that wait for their site's lane."""

    def results(self) -> Iterator[Result]:
        try:
            yield from self._results()
        except BaseException:
            for pool in self.pools:
                if pool is not None:
                    stop_workers(pool)
            raise
        finally:
            for future in self.running:
                future.cancel()
            for stack in self.held.values():
                stack.close()
            self._close_all()
            self.events.close()
            self.events.join_thread()

    def _results(self) -> Iterator[Result]:
        executor, queue, running = self.executor, self.queue, self.running
        while running or self.waiting or not queue.exhausted():
            self._hand_out()
            if not running:  # every waiting task must wait (a host resting)
                time.sleep(queue.wait_s())
                continue
            finished = _wait_some(running, self.handed, queue.poll_s())
            overdue = executor._overdue(running, finished, self.handed, self.starts)
            broken: set[int] = set()
            for future in finished:
                task, lane = self._pop(future)
                try:
                    result = future.result()
                except BrokenProcessPool:
                    broken.add(lane)
                    result = executor.died(task)
                yield result
            for lane in sorted(broken):  # its other task died with it, or finished just before
                for future in self._lane_futures(lane):
                    task, _ = self._pop(future)
                    try:
                        result = future.result(timeout=0)
                    except Exception:  # noqa: BLE001 - whatever it was, the worker is gone
                        result = executor.died(task)
                    yield result
                self._close(lane)
            for lane in sorted({self.lane_of[future] for future in overdue} - broken):
                pool = self.pools[lane]
                assert pool is not None
                stop_workers(pool, OVERDUE_STOP_S)
                for future in self._lane_futures(lane):
                    if future in overdue:
                        task, _ = self._pop(future)
                        yield executor.on_overdue(task, executor.overdue_after_s)  # type: ignore[misc,arg-type]
                    elif future.done() and not future.cancelled() and future.exception() is None:
                        self._pop(future)
                        yield future.result()
                    else:  # it did nothing wrong: a fresh worker takes it
                        self._pop(future, put_back=True)
                self._close(lane)

    def _hand_out(self) -> None:
        self.lanes.hand_out(self.waiting, self.queue.take, self._place,
                            lambda: len(self.running) < IN_FLIGHT_PER_WORKER * len(self.pools))

    def _place(self, task: Task) -> bool:
        """Submit ``task`` to the lane :class:`SiteLanes` chooses; False: it waits."""
        assert self.executor.affinity is not None
        lane = self.lanes.choose(self.executor.affinity(task), Counter(self.lane_of.values()))
        if lane is None:
            return False
        self._submit(task, lane)
        return True

    def _submit(self, task: Task, lane: int) -> None:
        pool = self.pools[lane]
        if pool is None:
            executor = self.executor
            pool = self.pools[lane] = ProcessPoolExecutor(
                max_workers=1, mp_context=self.context, initializer=_as_parent,
                initargs=(dict(os.environ), os.getcwd(), _init_worker, self.events,
                          executor.initializer, executor.initargs))
        stack = ExitStack()
        given = stack.enter_context(self.executor.prepare(task)) if self.executor.prepare \
            else task
        token = self.starts.token()
        try:
            future = pool.submit(_run_reported, self.work, token, given)
        except BaseException:
            stack.close()
            raise
        self.starts.tokens[future] = token
        self.running[future], self.lane_of[future], self.held[future] = task, lane, stack

    def _pop(self, future: Future[Result], put_back: bool = False) -> tuple[Task, int]:
        """Forget a future: its task is finished, or, with ``put_back``, waits for a worker."""
        task = self.running.pop(future)
        if put_back:
            self.queue.put_back(task)
        else:
            self.queue.finished(task)
        self.held.pop(future).close()
        self.handed.pop(future, None)
        return task, self.lane_of.pop(future)

    def _lane_futures(self, lane: int) -> list[Future[Result]]:
        return [future for future, each in self.lane_of.items() if each == lane]

    def _close(self, lane: int) -> None:
        pool, self.pools[lane] = self.pools[lane], None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def _close_all(self) -> None:
        """Shut every lane's pool down at once: their workers close their Chromiums side by side
        and the run waits for the slowest, not for each in turn (three lanes took 0.13-0.16 s
        at the end of a batch, one after another)."""
        closing = [threading.Thread(target=self._close, args=(lane,), daemon=True)
                   for lane, pool in enumerate(self.pools) if pool is not None]
        for thread in closing:
            thread.start()
        for thread in closing:
            thread.join()


WORKER_START_S = 120.0
"""How long a task handed to the pool may wait for a worker to start it (spawn, imports, the
initializer) before that worker counts as stuck."""
_STARTS: Any = None
"""In a worker: where it reports each task it starts (:func:`_run_reported`)."""


def _init_worker(starts: Any, initializer: Callable[..., None] | None,
                 initargs: tuple[Any, ...]) -> None:
    global _STARTS
    _STARTS = starts
    if initializer is not None:
        initializer(*initargs)


def _run_reported(work: Callable[[Any], Result], token: int, given: Any) -> Result:
    """In a worker: report that the task with ``token`` starts, then do it."""
    if _STARTS is not None:
        _STARTS.put((token, time.time()))
    return work(given)


@dataclass(slots=True)
class _Starts:
    """The workers' reports of the tasks they started, for one pool."""

    queue: Any
    last: int = 0
    tokens: dict[Future[Any], int] = field(default_factory=dict)
    at_time: dict[int, float] = field(default_factory=dict)
    """When each reported task started (``time.monotonic`` of this process)."""

    def token(self) -> int:
        self.last += 1
        return self.last

    def read(self) -> None:
        """Take in what the workers reported since the last read."""
        from queue import Empty

        while True:
            try:
                token, wall = self.queue.get_nowait()
            except Empty:
                return
            self.at_time[token] = time.monotonic() - max(0.0, time.time() - wall)

    def at(self, future: Future[Any]) -> float | None:
        return self.at_time.get(self.tokens.get(future, -1))


def _wait_some(running: dict[Future[Result], Any], handed: dict[Future[Result], float],
               timeout_s: float) -> set[Future[Result]]:
    """The futures that finished within ``timeout_s``; notes when the others were handed to the
    workers' call queue (where a future counts as running)."""
    finished, _ = wait(running, timeout=timeout_s, return_when=FIRST_COMPLETED)
    now = time.monotonic()
    for future in running:
        if future.running() and future not in handed:
            handed[future] = now
    return finished


def _finished_or_requeued(running: dict[Future[Result], Task],
                          queue: TaskQueue[Task]) -> Iterator[Result]:
    """After the workers were stopped: tasks that finished meanwhile count, the others wait for
    the next pool (they did nothing wrong)."""
    for future, task in list(running.items()):
        del running[future]
        if future.done() and not future.cancelled() and future.exception() is None:
            queue.finished(task)
            yield future.result()
        else:
            queue.put_back(task)


def worker_context(start_method: str | None, preload: tuple[str, ...] = ()) -> Any:
    """The multiprocessing context workers start from; a fork server imports ``preload`` once,
    on its first start in this process (measured: four spawned workers importing the batch's
    modules took 3.1-3.7 CPU s, four forked from a preloaded server 0.07 s wall)."""
    context = get_context(start_method)
    if start_method == "forkserver" and preload:
        context.set_forkserver_preload(list(preload))
    return context


def start_fork_server(preload: tuple[str, ...]) -> None:
    """Start the fork server, importing ``preload``, without waiting for it: a pool started
    later forks its workers from it (the server's imports ran meanwhile)."""
    from multiprocessing import forkserver

    worker_context("forkserver", preload)
    forkserver.ensure_running()


def _as_parent(environ: dict[str, str], cwd: str, initializer: Callable[..., None],
               *initargs: Any) -> None:
    """In a worker: this process's environment and folder as the pool's parent had them when
    the pool started (a fork server's workers would have the server's, from its first start),
    then the caller's initializer."""
    os.environ.clear()
    os.environ.update(environ)
    os.chdir(cwd)
    initializer(*initargs)


@contextmanager
def reporting_pool(workers: int, context: Any, initializer: Callable[..., None],
                   initargs: Callable[[Any], tuple[Any, ...]],
                   ) -> Iterator[tuple[ProcessPoolExecutor, Any]]:
    """A pool of ``workers`` processes and a queue of its own that they report on
    (``initargs(queue)`` gives the initializer its arguments). Ctrl-C, SIGTERM or a caller that
    stops reading stops the workers (:func:`stop_workers`): no task waits."""
    events = context.Queue()
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_as_parent,
                                 initargs=(dict(os.environ), os.getcwd(), initializer,
                                           *initargs(events))) as pool:
            try:
                yield pool, events
            except BaseException:
                stop_workers(pool)
                raise
    finally:
        events.close()
        events.join_thread()


def stop_workers(pool: ProcessPoolExecutor, wait_s: float = STOP_WAIT_S) -> None:
    """SIGTERM every worker and wait for it to unwind (its temporary folders, its Chromium go);
    kill what does not end in time. Queued tasks are dropped."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # no public API in 3.11
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + wait_s
    while processes and time.monotonic() < deadline:
        for process in processes:
            process.terminate()
        processes = _still_running(processes, min(time.monotonic() + RESEND_S, deadline))
    for process in processes:
        process.kill()
        process.join()


def _still_running(processes: list[BaseProcess], until: float) -> list[BaseProcess]:
    """Wait until every process has ended or ``until`` (``time.monotonic``); what still runs."""
    while processes and time.monotonic() < until:
        connection.wait([process.sentinel for process in processes], until - time.monotonic())
        processes = [process for process in processes if process.is_alive()]
    return processes
