"""wps.executor: the one way batch, benchmarks and the tuner run work over pages; real worker
processes (spawned), real signals."""

from __future__ import annotations

import os
import time
from contextlib import contextmanager

import pytest
from executor_tasks import died, overdue, site_of, slow_exit, where, work

from wps.executor import InProcessExecutor, ListQueue, LocalExecutor, WorkerDiedError


@pytest.mark.parametrize("affinity", [None, site_of], ids=["shared pool", "lanes"])
def test_a_task_past_its_deadline_fails_and_the_others_finish_in_a_fresh_pool(affinity):
    tasks = [("stuck", 120.0), *[(f"quick-{n}", 0.1) for n in range(5)]]
    executor = LocalExecutor(2, overdue_after_s=8.0, on_overdue=overdue, on_died=died,
                             affinity=affinity)
    started = time.monotonic()
    results = list(executor.run(tasks, work))
    assert time.monotonic() - started < 90  # the stuck worker was stopped, not waited for
    assert sorted(results) == sorted([("overdue", "stuck"),
                                      *[("done", f"quick-{n}") for n in range(5)]])


@pytest.mark.parametrize("affinity", [None, site_of], ids=["shared pool", "lanes"])
def test_a_dead_worker_fails_its_task_and_a_fresh_pool_takes_the_rest(affinity):
    tasks = [("die", 0.0), *[(f"later-{n}", 0.05) for n in range(6)]]
    results = list(LocalExecutor(2, on_died=died, affinity=affinity).run(tasks, work))
    assert ("died", "die") in results
    assert sorted(name for _, name in results) == sorted(name for name, _ in tasks)
    assert sum(outcome == "done" for outcome, _ in results) >= 3  # not in flight at the death


def test_lanes_pools_end_side_by_side_at_the_end_of_a_run(tmp_path):
    # each worker's exit (its Chromium closing) overlaps the others': the run waits for the
    # slowest, not for each in turn
    executor = LocalExecutor(3, affinity=site_of, initializer=slow_exit,
                             initargs=(str(tmp_path),))
    assert sorted(executor.run([("a", 0.0), ("b", 0.0), ("c", 0.0)], where))[0][0] == "a"
    exits = [tuple(map(float, file.read_text().split())) for file in tmp_path.iterdir()]
    assert len(exits) == 3
    assert max(began for began, _ in exits) < min(ended for _, ended in exits)


def test_without_a_fallback_a_dead_worker_stops_the_run():
    with pytest.raises(WorkerDiedError, match="die"):
        list(LocalExecutor(1).run([("die", 0.0)], work))


def _workers_of_sites(tasks, workers, affinity):
    from collections import defaultdict

    from wps.runner.politeness import PageQueue

    workers_of = defaultdict(set)
    queue = PageQueue(iter(tasks), site_of, per_host=2)
    for site, pid in LocalExecutor(workers, affinity=affinity).run(queue, where):
        workers_of[site].add(pid)
    return workers_of


def test_a_sites_tasks_stay_with_few_workers_under_affinity():
    # A worker's browser keeps a tab (a renderer) per site: a shared pool hands every worker
    # every site; lanes keep a site with its own worker, but for a page that would otherwise
    # leave a worker idle.
    tasks = [(f"site-{n % 3}", (0.01, 0.05, 0.2)[n * 7 % 3]) for n in range(30)]
    shared = _workers_of_sites(tasks, 3, None)
    lanes = _workers_of_sites(tasks, 3, site_of)
    assert sorted(lanes) == sorted(shared) == ["site-0", "site-1", "site-2"]
    pairs = sum(len(pids) for pids in lanes.values())
    assert pairs <= 6 and pairs < sum(len(pids) for pids in shared.values())
    assert len(set().union(*lanes.values())) == 3  # every worker used


def test_a_single_site_runs_as_many_pages_at_once_as_its_politeness_allows():
    # Two pages of the site at a time (per_host=2): the second goes to an idle worker, not
    # behind the first in the site's lane.
    assert [len(pids) for pids in _workers_of_sites([("one", 0.3)] * 6, 3, site_of).values()] \
        == [2]


def test_in_process_tasks_hold_what_they_prepared_only_while_they_run():
    held: list[str] = []

    @contextmanager
    def prepare(task: str):
        held.append(task)
        yield task.upper()
        held.remove(task)

    def work(given: str) -> tuple[str, list[str]]:
        return given, list(held)

    results = list(InProcessExecutor(prepare=prepare).run(iter(["a", "b"]), work))
    assert results == [("A", ["a"]), ("B", ["b"])] and held == []


def test_a_list_queue_reads_a_stream_as_tasks_are_taken():
    read: list[int] = []

    def stream():
        for number in range(3):
            read.append(number)
            yield number

    queue = ListQueue(stream())
    assert not queue.exhausted() and read == [0]
    assert queue.take() == 0 and read == [0]
    queue.put_back(0)
    assert [queue.take(), queue.take(), queue.take()] == [0, 1, 2]
    assert queue.exhausted() and queue.take() is None


def _where(_task: int) -> tuple[str | None, str, bool]:
    import sys

    return os.environ.get("WPS_TEST_EXECUTOR"), os.getcwd(), "wps.runner.worker" in sys.modules


def test_forkserver_workers_start_preloaded_with_the_parents_environment(tmp_path, monkeypatch):
    """Workers forked from a server that imported the batch's modules once see the environment
    and folder their pool's parent has now, not those of the server's first start."""
    executor = LocalExecutor(1, start_method="forkserver", preload=("wps.runner.worker",))
    assert list(executor.run([0], _where))[0][2]  # the server's import, not the worker's
    monkeypatch.setenv("WPS_TEST_EXECUTOR", "set after the server started")
    monkeypatch.chdir(tmp_path)
    assert list(executor.run([0], _where)) == [
        ("set after the server started", str(tmp_path), True)]


def _chunkwork(tasks: list[tuple[str, float]]) -> list[tuple[str, str]]:
    """Does its tasks one after the other; a ``waits`` task pauses its clock while it sleeps
    (waiting for another task of its call, not stuck)."""
    from wps.executor.chunked import report

    results = []
    for kind, seconds in tasks:
        report("start", kind)
        if kind.startswith("waits"):
            report("pause", kind)
        time.sleep(seconds)
        result = ("done", kind)
        report("done", result)
        results.append(result)
    return results


def test_chunked_tasks_count_one_by_one_each_with_its_deadline():
    from wps.executor import ChunkedLocalExecutor

    tasks = [("quick-0", 0.1), ("stuck", 120.0), ("quick-1", 0.1), ("waits", 10.0),
             *[(f"quick-{n}", 0.1) for n in range(2, 6)]]
    executor = ChunkedLocalExecutor(2, 2, overdue_after_s=6.0, on_overdue=overdue,
                                    on_died=died, key=lambda task: task[0],
                                    result_key=lambda result: result[1])
    started = time.monotonic()
    results = list(executor.run(tasks, _chunkwork))
    assert time.monotonic() - started < 90  # the stuck worker was stopped, not waited for
    assert sorted(results) == sorted([("overdue", "stuck"), ("done", "waits"),
                                      *[("done", f"quick-{n}") for n in range(6)]])
    assert results.index(("done", "quick-0")) < results.index(("overdue", "stuck"))  # as it came
