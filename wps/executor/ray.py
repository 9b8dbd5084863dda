"""Workers as Ray actors (``pip install 'wps[ray]'``): the executor of a cluster, with what
:class:`~wps.executor.local.LocalExecutor` promises (a deadline per task, a fresh worker after a
stuck or dead one).

Each worker is an actor that runs ``initializer(*initargs)`` once (a browser, a model: in the
actor process's own globals, as a pool worker keeps them) and then ``work`` on the tasks it gets,
``concurrency`` at once (a threaded actor). A second step, ``then``, runs as a plain Ray task on
``work``'s result on any node with a free CPU: the result goes there by Ray's object store, not
through this process (a capture rendered by the actor, segmented elsewhere).

Without an address a local Ray instance is started on 127.0.0.1 (no dashboard) and stopped at
the end; ``auto`` or ``HOST:PORT`` joins a running cluster. A Ray already started by the caller
is used as it is.
"""

from __future__ import annotations

import logging
import os
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ..errors import MissingDependencyError
from .base import SiteLanes, TaskQueue, WorkerPool, as_queue

Task = TypeVar("Task")
Result = TypeVar("Result")

QUEUED_PER_WORKER = 1
"""Tasks queued on a worker beyond those it runs at once, so that it never waits for this
process."""
THEN_WAITING_PER_CPU = 2
"""Results waiting for ``then`` per CPU of the cluster, at most (bounds memory)."""
_SINGLE_MACHINE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


class RayWorker:
    """The actor: the caller's initializer once, then its ``work`` per task."""

    def __init__(self, initializer: Callable[..., None] | None,
                 initargs: tuple[Any, ...]) -> None:
        if initializer is not None:
            initializer(*initargs)

    def call(self, work: Callable[[Any], Any], given: Any) -> Any:
        return work(given)


def _then(then: Callable[[Any], Any], value: Any) -> Any:
    return then(value)


@dataclass(slots=True)
class _InFlight(Generic[Task]):
    task: Task
    worker: int
    actor: Any
    """The worker's actor when the task was handed to it (a replaced worker has another)."""
    call: Any
    """The reference of ``work``'s result (the worker has a free slot once it is ready)."""
    submitted: float
    held: ExitStack


@dataclass(slots=True)
class RayExecutor(WorkerPool[Task, Result]):
    """``workers`` Ray actors; ``work``, ``then`` and the initializer must be top-level functions
    of an importable module (pickled by name).

    A task not finished ``overdue_after_s`` after it was handed to its worker (both steps) has a
    worker that does not stop: the worker is killed and replaced, the task's result is
    ``on_overdue(task, seconds)`` and the other tasks it held go back to the queue. A task whose
    worker died gets ``on_died(task)`` (default: :class:`WorkerDiedError` is raised) and a fresh
    worker takes the rest. An exception raised by ``work`` or ``then`` is raised here, as from
    the local executors.
    """

    concurrency: int = 1
    """Tasks a worker runs at once (threads of one actor)."""
    then: Callable[[Any], Result] | None = None
    cpus: float = 1.0
    """CPUs a worker and a ``then`` task each reserve."""
    address: str | None = None

    def run(self, tasks: Iterable[Task] | TaskQueue[Task],
            work: Callable[[Any], Result]) -> Iterator[Result]:
        queue = as_queue(tasks)
        if queue.exhausted():
            return
        ray = import_ray(local=self.address is None)
        started_here = not ray.is_initialized()
        if started_here:
            start_ray(ray, self.address, self.workers * self.cpus)
        actor_class = ray.remote(num_cpus=self.cpus, max_restarts=0,
                                 max_concurrency=self.concurrency)(RayWorker)
        then = ray.remote(num_cpus=self.cpus, max_retries=0)(_then) if self.then else None
        actors: list[Any] = []

        def new_actor() -> Any:
            return actor_class.remote(self.initializer, self.initargs)

        try:
            actors.extend(new_actor() for _ in range(self.workers))
            yield from _Schedule(self, ray, queue, work, then, actors, new_actor).results()
        finally:
            for actor in actors:
                ray.kill(actor)  # what the actor started (a Chromium) goes with its process
            if started_here:
                ray.shutdown()


@dataclass(slots=True)
class _Schedule(Generic[Task, Result]):
    """One run's bookkeeping: every worker busy, the ``then`` tasks fed, results as they
    come."""

    executor: RayExecutor[Task, Result]
    ray: Any
    queue: TaskQueue[Task]
    work: Callable[[Any], Result]
    then: Any
    actors: list[Any]
    new_actor: Callable[[], Any]
    flights: dict[Any, _InFlight[Task]] = field(default_factory=dict)
    """Result reference (``then``'s, else ``work``'s) → the task in flight."""
    calls: dict[Any, int] = field(default_factory=dict)
    """``work`` references still running → their worker."""
    slots: int = 0
    """Tasks a worker holds at once: running and queued."""
    most_in_flight: int = 0
    """Tasks in flight at most: each worker's slots, and results waiting for ``then`` up to
    :data:`THEN_WAITING_PER_CPU` per CPU of the cluster (asked once, not on every poll)."""

    lanes: SiteLanes | None = None
    """With the executor's ``affinity``: which worker takes a site's task."""
    waiting: deque[Task] = field(default_factory=deque)
    """Tasks taken from the queue that wait for their site's worker."""

    def __post_init__(self) -> None:
        cpus = max(1, int(self.ray.cluster_resources().get("CPU", 1)))
        self.slots = self.executor.concurrency + QUEUED_PER_WORKER
        self.most_in_flight = THEN_WAITING_PER_CPU * cpus + self.slots * len(self.actors)
        if self.executor.affinity is not None:
            self.lanes = SiteLanes(len(self.actors), self.executor.concurrency, self.slots)

    def results(self) -> Iterator[Result]:
        try:
            while self.flights or self.waiting or not self.queue.exhausted():
                self._submit()
                if not self.flights:  # every waiting task must wait (a host resting)
                    time.sleep(self.queue.wait_s())
                    continue
                ready, _ = self.ray.wait(list({**self.calls, **self.flights}), num_returns=1,
                                         timeout=self.queue.poll_s())
                for ref in ready:
                    if self.calls.pop(ref, None) is not None and ref not in self.flights:
                        continue  # the worker has a free slot; ``then`` goes on
                    yield from self._finish(ref)
                yield from self._overdue()
        finally:
            for ref, flight in self.flights.items():
                self._cancel(ref)
                flight.held.close()

    def _submit(self) -> None:
        """Hand tasks to workers with a free slot while the ``then`` tasks keep up."""
        if self.lanes is not None:
            self._submit_by_site(self.lanes)
            return
        for index in range(len(self.actors)):
            while (sum(1 for i in self.calls.values() if i == index) < self.slots
                   and len(self.flights) < self.most_in_flight):
                task = self.queue.take()
                if task is None:
                    return
                self._hand(task, index)

    def _submit_by_site(self, lanes: SiteLanes) -> None:
        """Tasks to the workers ``lanes`` chooses (:meth:`SiteLanes.hand_out`)."""
        assert self.executor.affinity is not None
        load = Counter(self.calls.values())

        def place(task: Task) -> bool:
            index = lanes.choose(self.executor.affinity(task), load)  # type: ignore[misc]
            if index is None:
                return False
            self._hand(task, index)
            load[index] += 1
            return True

        lanes.hand_out(self.waiting, self.queue.take, place,
                       lambda: len(self.flights) < self.most_in_flight)

    def _hand(self, task: Task, index: int) -> None:
        held = ExitStack()
        prepare = self.executor.prepare
        given = held.enter_context(prepare(task)) if prepare else task
        actor = self.actors[index]
        call = actor.call.remote(self.work, given)
        result = self.then.remote(self.executor.then, call) if self.then else call
        self.calls[call] = index
        self.flights[result] = _InFlight(task, index, actor, call, time.monotonic(), held)

    def _finish(self, ref: Any) -> Iterator[Result]:
        """The task's result; if its worker died, the died results of the tasks it held."""
        from ray.exceptions import RayError, RayTaskError

        flight = self.flights.pop(ref)
        self.calls.pop(flight.call, None)
        self.queue.finished(flight.task)
        try:
            result = self.ray.get(ref)
        except RayTaskError as err:
            if not isinstance(err.cause, RayError):
                raise err.as_instanceof_cause() from None
            died = err
        except RayError as err:  # the worker died (killed, out of memory) or its node
            died = err
        else:
            yield result
            return
        finally:
            flight.held.close()
        held = self._replace(flight) if _actor_died(self.ray, flight.call) else []
        for task in held:
            self.queue.finished(task)
        for task in [flight.task, *held]:
            yield self.executor.died(task, f" ({_first_line(died)})")

    def _overdue(self) -> Iterator[Result]:
        limit = self.executor.overdue_after_s
        if limit is None:
            return
        now = time.monotonic()
        for ref, flight in list(self.flights.items()):
            if ref not in self.flights or now - flight.submitted <= limit:
                continue
            del self.flights[ref]
            self.queue.finished(flight.task)
            self._cancel(ref)
            flight.held.close()
            if flight.call in self.calls:  # stuck in the worker: it goes, its other tasks wait
                for task in self._replace(flight):
                    self.queue.put_back(task)
            yield self.executor.on_overdue(flight.task, limit)  # type: ignore[misc]

    def _replace(self, flight: _InFlight[Task]) -> list[Task]:
        """Kill the worker ``flight`` was handed to and start a fresh one, once; the tasks the
        worker held and had not done, for the caller to finish or put back."""
        if self.actors[flight.worker] is not flight.actor:
            return []  # replaced already
        self.ray.kill(flight.actor)
        self.actors[flight.worker] = self.new_actor()
        held = []
        for ref, other in list(self.flights.items()):
            if other.actor is flight.actor and other.call in self.calls:
                del self.flights[ref]
                del self.calls[other.call]
                self._cancel(ref)
                other.held.close()
                held.append(other.task)
        return held

    def _cancel(self, ref: Any) -> None:
        """Stop a ``then`` task; a call of a worker stops with its worker (Ray cannot force
        one)."""
        if self.then is not None:
            self.ray.cancel(ref, force=True)
        else:
            self.ray.cancel(ref)


def _actor_died(ray: Any, call: Any) -> bool:
    from ray.exceptions import RayActorError

    try:
        ray.get(call, timeout=0)
    except RayActorError:
        return True
    except Exception:  # noqa: BLE001 - any other answer means the actor lives
        return False
    return False


def _first_line(err: Exception) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def start_ray(ray: Any, address: str | None, cpus_reserved: float) -> None:
    """Join ``address``, or start a local instance bound to 127.0.0.1 with CPUs for the
    workers beside this machine's cores (a worker waiting for a browser is not busy)."""
    quiet = {"include_dashboard": False, "log_to_driver": False,
             "logging_level": logging.WARNING}
    if address:
        ray.init(address=address, **quiet)
        return
    ray.init(num_cpus=int(cpus_reserved + 0.999) + (os.cpu_count() or 1), **quiet)


def import_ray(local: bool) -> Any:
    """Ray; for a local instance, set up to bind every server to 127.0.0.1.

    ``ray.init`` turns a node address of 127.0.0.1 into the machine's outside address; Ray's own
    single-machine switch (the one it uses on macOS and Windows) keeps the node on loopback,
    for this process and, through the environment, for the servers and workers it starts.
    """
    if local:
        os.environ[_SINGLE_MACHINE] = "0"
    try:
        import ray
        from ray._private import ray_constants
    except ImportError:
        raise MissingDependencyError(
            "ray: the Ray engine needs Ray (pip install 'wps[ray]')") from None
    if local and not ray.is_initialized():
        ray_constants.ENABLE_RAY_CLUSTER = False  # read at init: ray may have been imported
    return ray
