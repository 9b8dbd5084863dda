"""The executor API: where tasks come from (:class:`TaskQueue`), what an executor is
(:class:`Executor`) and the simplest one, in this process (:class:`InProcessExecutor`)."""

from __future__ import annotations

import time
from collections import Counter, deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from ..errors import WorkerDiedError

Task = TypeVar("Task")
Result = TypeVar("Result")


class TaskQueue(Protocol[Task]):
    """Where an executor takes its tasks: ``take`` gives ``None`` while every waiting task must
    wait (``wait_s`` says how long); ``finished`` and ``put_back`` return a task taken."""

    def take(self) -> Task | None: ...
    def finished(self, task: Task) -> None: ...
    def put_back(self, task: Task) -> None: ...
    def exhausted(self) -> bool: ...
    def wait_s(self) -> float: ...
    def poll_s(self, longest: float = 1.0) -> float: ...


class ListQueue(Generic[Task]):
    """The tasks of an iterable, read as they are taken (a stream stays a stream), and those
    put back."""

    def __init__(self, tasks: Iterable[Task]) -> None:
        self._stream = iter(tasks)
        self._back: deque[Task] = deque()
        self._next: list[Task] = []

    def take(self) -> Task | None:
        if self._back:
            return self._back.popleft()
        if self._next:
            return self._next.pop()
        return next(self._stream, None)

    def finished(self, task: Task) -> None:
        pass

    def put_back(self, task: Task) -> None:
        self._back.append(task)

    def exhausted(self) -> bool:
        if self._back or self._next:
            return False
        sentinel = object()
        ahead = next(self._stream, sentinel)
        if ahead is sentinel:
            return True
        self._next.append(ahead)  # type: ignore[arg-type]
        return False

    def wait_s(self) -> float:
        return 0.0

    def poll_s(self, longest: float = 1.0) -> float:
        return longest


def as_queue(tasks: Iterable[Task] | TaskQueue[Task]) -> TaskQueue[Task]:
    return tasks if hasattr(tasks, "take") else ListQueue(tasks)  # type: ignore[return-value]


class Executor(Protocol[Task, Result]):
    """Runs ``work`` on every task and yields the results in completion order."""

    def run(self, tasks: Iterable[Task] | TaskQueue[Task],
            work: Callable[[Any], Result]) -> Iterator[Result]: ...


Prepare = Callable[[Any], AbstractContextManager[Any]]
"""What this process holds while a task is in flight, and what ``work`` gets instead of the task
(a page of a zip archive, extracted to a folder)."""


@dataclass(slots=True)
class InProcessExecutor(Generic[Task, Result]):
    """One task after the other, in this process (``work`` may hold a browser, a model)."""

    prepare: Prepare | None = None

    def run(self, tasks: Iterable[Task] | TaskQueue[Task],
            work: Callable[[Any], Result]) -> Iterator[Result]:
        queue = as_queue(tasks)
        while not queue.exhausted():
            task = queue.take()
            if task is None:  # every waiting task must wait (a host resting)
                time.sleep(queue.wait_s())
                continue
            with (self.prepare or nullcontext)(task) as given:
                result = work(given)
            yield result
            queue.finished(task)


@dataclass(slots=True)
class WorkerPool(Generic[Task, Result]):
    """What the executors of several workers share: how many, a task's deadline and what an
    overdue task or one whose worker died gives (without ``on_died``: :class:`WorkerDiedError`
    is raised), what this process holds while a task is in flight, and each worker's
    ``initializer(*initargs)``."""

    workers: int
    overdue_after_s: float | None = None
    on_overdue: Callable[[Any, float], Result] | None = None
    on_died: Callable[[Any], Result] | None = None
    prepare: Prepare | None = None
    initializer: Callable[..., None] | None = None
    initargs: tuple[Any, ...] = field(default_factory=tuple)
    affinity: Callable[[Any], Hashable | None] | None = None
    """A task's site (``None``: none). When given, a site keeps a worker (:class:`SiteLanes`):
    a worker's browser keeps a tab, and so a renderer process, per site, and tasks handed to
    whichever worker is free give every worker a tab of every site."""

    def __post_init__(self) -> None:
        if self.overdue_after_s is not None and self.on_overdue is None:
            raise TypeError(f"{type(self).__name__}: overdue_after_s needs on_overdue")

    def died(self, task: Task, cause: str = "") -> Result:
        """The result of a task whose worker died."""
        if self.on_died is None:
            raise WorkerDiedError(f"{task}: a worker died while it held the task{cause}")
        return self.on_died(task)


@dataclass(slots=True)
class SiteLanes:
    """Which of ``lanes`` workers takes a task of a site (``WorkerPool.affinity``), given how
    many tasks each holds: each runs ``running`` at once and holds at most ``capacity``.

    A site keeps a lane, the one it was first given (the least loaded, of those the one that
    holds the fewest sites). Its task goes there while that worker has a free slot to run it;
    else to a worker with one (no worker waits while a site has pages: a site of one host gets
    as many workers as its politeness lets pages run at once); else behind its lane's tasks
    while the lane has room; else it waits (``None``).
    """

    lanes: int
    running: int
    capacity: int
    home: dict[Hashable, int] = field(default_factory=dict)

    def choose(self, site: Hashable | None, load: Mapping[int, int]) -> int | None:
        sites = Counter(self.home.values())
        home = self.home.get(site) if site is not None else None
        lanes = range(self.lanes)
        if home is not None and load.get(home, 0) < self.running:
            return home
        idle = [lane for lane in lanes if load.get(lane, 0) < self.running]
        if idle:
            lane = min(idle, key=lambda each: (load.get(each, 0), sites[each], each))
        elif home is not None:
            return home if load.get(home, 0) < self.capacity else None
        else:
            free = [lane for lane in lanes if load.get(lane, 0) < self.capacity]
            if not free:
                return None
            lane = min(free, key=lambda each: (load.get(each, 0), sites[each], each))
        if site is not None and home is None:
            self.home[site] = lane
        return lane

    def hand_out(self, waiting: deque[Task], take: Callable[[], Task | None],
                 place: Callable[[Task], bool], room: Callable[[], bool]) -> None:
        """Tasks ``waiting`` for their site's lane first, then new ones from ``take`` while
        there is ``room`` and at most one waits per lane; ``place`` submits a task where
        :meth:`choose` says, or returns False, and the task waits."""
        for _ in range(len(waiting)):
            task = waiting.popleft()
            if not place(task):
                waiting.append(task)
        while room() and len(waiting) < self.lanes and (task := take()) is not None:
            if not place(task):
                waiting.append(task)
