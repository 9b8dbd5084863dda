"""One way to run a piece of work over many pages: in this process, or in a pool of worker
processes with a deadline per page, or on Ray.

The shape is datatrove's (``executor.run()`` over a pipeline of steps, a local and a distributed
executor behind one interface): the caller builds its tasks (a page, or a page with what to do
on it) and one top-level ``work`` function, and reads the results as they come, in completion
order; what it records and how it resumes stays with it. ``wps batch``, the benchmarks and the
tuner run their pages through here.

Tasks come from a :class:`TaskQueue`: a plain iterable is wrapped in one (:class:`ListQueue`);
``wps batch`` passes its :class:`~wps.runner.politeness.PageQueue`, which holds pages back for
their host. A task whose result is not wanted any more (its pool was stopped) goes back to the
queue for the next pool. With ``affinity`` (a task's site), a site's tasks stay with one worker
while it has room (:class:`SiteLanes`): a worker's browser keeps a tab per site.
"""

from ..errors import WorkerDiedError
from .base import (
    Executor,
    InProcessExecutor,
    ListQueue,
    Prepare,
    SiteLanes,
    TaskQueue,
    WorkerPool,
    as_queue,
)
from .chunked import ChunkedLocalExecutor
from .local import (
    OVERDUE_STOP_S,
    LocalExecutor,
    reporting_pool,
    stop_workers,
    worker_context,
)
from .ray import RayExecutor

__all__ = ["OVERDUE_STOP_S", "ChunkedLocalExecutor", "Executor", "InProcessExecutor",
           "ListQueue", "LocalExecutor", "Prepare", "RayExecutor", "SiteLanes", "TaskQueue",
           "WorkerDiedError", "WorkerPool", "as_queue", "reporting_pool", "stop_workers",
           "worker_context"]
