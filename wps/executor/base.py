"""The executor API: where tasks come from (:class:`TaskQueue`), what an executor is
(:class:`Executor`) and the simplest one, in this process (:class:`InProcessExecutor`)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
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

    def __post_init__(self) -> None:
        if self.overdue_after_s is not None and self.on_overdue is None:
            raise TypeError(f"{type(self).__name__}: overdue_after_s needs on_overdue")

    def died(self, task: Task, cause: str = "") -> Result:
        """The result of a task whose worker died."""
        if self.on_died is None:
            raise WorkerDiedError(f"{task}: a worker died while it held the task{cause}")
        return self.on_died(task)
