"""wps.executor.RayExecutor: the executor's promises (a deadline per task, a fresh worker after a
dead one, the work's own errors) kept on a real local Ray instance bound to 127.0.0.1."""

from __future__ import annotations

import csv
import os
import sys
import time

import executor_tasks
import pytest
from executor_tasks import died, overdue, site_of, where, work

from wps.executor import RayExecutor, WorkerDiedError

pytest.importorskip("ray")

pytestmark = pytest.mark.slow

@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray for the module; the workers get the tasks' functions by value (their
    modules are not importable from the workers' folder)."""
    from wps.executor.ray import import_ray

    ray = import_ray(local=True)
    ray.init(num_cpus=4, include_dashboard=False, log_to_driver=False)
    for module in (sys.modules[__name__], executor_tasks):
        ray.cloudpickle.register_pickle_by_value(module)
    yield ray
    ray.shutdown()




def test_a_task_past_its_deadline_fails_and_the_others_finish_on_a_fresh_worker():
    tasks = [("stuck", 120.0), *[(f"quick-{n}", 0.1) for n in range(5)]]
    executor = RayExecutor(2, overdue_after_s=8.0, on_overdue=overdue, on_died=died)
    started = time.monotonic()
    results = list(executor.run(tasks, work))
    assert time.monotonic() - started < 90  # the stuck worker was killed, not waited for
    assert sorted(results) == sorted([("overdue", "stuck"),
                                      *[("done", f"quick-{n}") for n in range(5)]])


def test_a_dead_worker_fails_its_task_and_a_fresh_worker_takes_the_rest():
    tasks = [("die", 0.0), *[(f"later-{n}", 0.05) for n in range(6)]]
    results = list(RayExecutor(2, on_died=died).run(tasks, work))
    assert ("died", "die") in results
    assert sorted(name for _, name in results) == sorted(name for name, _ in tasks)
    assert sum(outcome == "done" for outcome, _ in results) >= 4  # not held by the dead one


@pytest.mark.parametrize("affinity", [None, site_of], ids=["any worker", "by site"])
def test_a_sites_tasks_stay_with_few_workers_under_affinity(affinity):
    # As on the local engine: a worker's browser keeps a tab per site.
    from collections import defaultdict

    from wps.runner.politeness import PageQueue

    tasks = [(f"site-{n % 3}", (0.01, 0.05, 0.2)[n * 7 % 3]) for n in range(30)]
    workers_of = defaultdict(set)
    queue = PageQueue(iter(tasks), site_of, per_host=2)
    for site, pid in RayExecutor(3, affinity=affinity).run(queue, where):
        workers_of[site].add(pid)
    assert sorted(workers_of) == ["site-0", "site-1", "site-2"]
    pairs = sum(len(pids) for pids in workers_of.values())
    assert pairs <= 6 if affinity else pairs > 3


def test_without_a_fallback_a_dead_worker_stops_the_run():
    with pytest.raises(WorkerDiedError, match="die"):
        list(RayExecutor(1).run([("die", 0.0)], work))


def test_the_works_own_error_is_raised_as_it_was():
    with pytest.raises(ValueError, match="bad task raise"):
        list(RayExecutor(1, on_died=died).run([("raise", 0.0)], work))


def _set_prefix(prefix: str) -> None:
    os.environ["WPS_TEST_WORKER_PREFIX"] = prefix  # process state (functions come by value)


def _tagged(task: int) -> tuple[str | None, int, int]:
    return os.environ.get("WPS_TEST_WORKER_PREFIX"), task, os.getpid()


def _then(value: tuple[str | None, int, int]) -> tuple[str | None, int, int, int]:
    return (*value, os.getpid())


def test_workers_start_with_their_initializer_and_then_runs_on_the_results_elsewhere():
    executor = RayExecutor(2, initializer=_set_prefix, initargs=("warm",), concurrency=2,
                           then=_then)
    results = list(executor.run(range(8), _tagged))
    assert sorted(task for _, task, _, _ in results) == list(range(8))
    assert {prefix for prefix, _, _, _ in results} == {"warm"}
    assert len({worker for _, _, worker, _ in results}) <= 2  # two actors, each kept
    assert all(worker != then for _, _, worker, then in results)  # a Ray task, not the actor


def test_the_webis_benchmark_on_ray_scores_zip_pages_as_the_local_run_does(zip_dataset, tmp_path):
    from wps.benchmark import BenchmarkOptions, run_benchmark

    runs = {engine: run_benchmark(BenchmarkOptions(
        data=zip_dataset, segmenters=["baseline", "dom-cohesion"], out=tmp_path / engine,
        workers=2, engine=engine, progress=False)) for engine in ("local", "ray")}
    assert runs["ray"].computed == runs["local"].computed == 4
    scores = {engine: [{key: value for key, value in row.items() if key != "seconds"}
                       for row in csv.DictReader((tmp_path / engine / "per-page.csv").open())]
              for engine in runs}
    assert scores["ray"] == scores["local"] and len(scores["ray"]) == 4 * 5  # five size functions
