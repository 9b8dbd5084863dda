"""The Ray engine of ``wps batch`` (``pip install 'wps[ray]'``): renderer actors, CPU tasks.

Each :class:`Renderer` actor keeps one Chromium and only captures pages; the capture (with its
screenshot bytes) goes by Ray's object store straight to a :func:`finish_page` task, which runs
segmentation, main text, filters and the output into ``DIR/<key>/`` on any node with a free CPU.
The driver never sees the captures: it hands out pages (politeness, look-ahead), collects
outcomes and, as with the local engine, writes markers, failures and the summary
(:class:`~wps.runner.batch.BatchRun`). Output folders are written atomically by the tasks, so a
driver killed at any point leaves at most staging folders that the next run removes.

Without an address a local Ray instance is started on 127.0.0.1 (no dashboard) and stopped at
the end; ``auto`` or ``HOST:PORT`` joins a running cluster, which must see ``DIR`` at the same
path on every node (a shared file system).
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import MissingDependencyError, PageTimeoutError
from .worker import (
    PageOutcome,
    PageTask,
    failed_outcome,
    page_stages,
    render_page,
    restart_if_grown,
    segment_page,
)

if TYPE_CHECKING:
    from ..model import PageCapture
    from ..pipeline import PipelineOptions
    from .options import BatchOptions
    from .politeness import PageQueue

RENDERS_QUEUED = 1
"""Pages queued per renderer beyond those it renders at once (``pages_per_browser``), so that
its Chromium never waits for the driver."""
FINISHING_PER_CPU = 2
"""Captures waiting for segmentation per CPU of the cluster, at most (bounds memory)."""
_SINGLE_MACHINE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


@dataclass(slots=True)
class RenderedPage:
    """What a renderer hands to a CPU task: the capture and its screenshot as PNG bytes (the
    renderer's temporary file cannot travel to another node)."""

    task: PageTask
    capture: PageCapture
    screenshot_png: bytes | None
    render_s: float


class Renderer:
    """A Ray actor with one Chromium, restarted every ``restart_every`` pages; a threaded actor
    (``max_concurrency``) that renders ``concurrency`` pages at once, each in its own context."""

    def __init__(self, pipeline: PipelineOptions, restart_every: int | None,
                 concurrency: int = 1) -> None:
        from ..capture import Browser, CaptureOptions

        self.browser = Browser(pipeline.capture_options or CaptureOptions(),
                               restart_every=restart_every, concurrency=concurrency)

    def render(self, task: PageTask) -> RenderedPage | PageOutcome:
        from ..capture import discard_screenshot

        started = time.perf_counter()
        try:
            capture = render_page(task, self.browser)
        except Exception as err:  # noqa: BLE001 - a failed page is a value, the actor goes on
            restart_if_grown(self.browser, task.restart_above_mb)
            return failed_outcome(task, err, time.perf_counter() - started)
        restart_if_grown(self.browser, task.restart_above_mb)
        png = None
        if capture.screenshot is not None:
            png = Path(capture.screenshot).read_bytes()
            discard_screenshot(capture.screenshot)
        return RenderedPage(task, replace(capture, screenshot=None), png,
                            time.perf_counter() - started)


def finish_page(rendered: RenderedPage | PageOutcome) -> PageOutcome:
    """A Ray task: the CPU stages and the output of a rendered page (a failed render passes)."""
    if isinstance(rendered, PageOutcome):
        return rendered
    from ..capture.screenshots import SOURCE_PREFIX, new_temp_folder

    task, capture = rendered.task, rendered.capture
    started = time.perf_counter()
    folder = None
    try:
        if rendered.screenshot_png is not None:
            folder = new_temp_folder(SOURCE_PREFIX)
            capture.screenshot = folder / "screenshot.png"
            capture.screenshot.write_bytes(rendered.screenshot_png)
        result = segment_page(task, capture)
    except Exception as err:  # noqa: BLE001 - a failed page is a value, as in a local worker
        return failed_outcome(task, err, rendered.render_s + time.perf_counter() - started)
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    seconds = rendered.render_s + time.perf_counter() - started
    return PageOutcome(task.source, task.out_dir, True, seconds,
                       stages=page_stages(result, seconds))


def ray_results(queue: PageQueue[PageTask], pipeline: PipelineOptions,
                options: BatchOptions) -> Iterator[PageOutcome]:
    """Outcomes of the queue's pages in completion order, computed on Ray."""
    if queue.exhausted():
        return
    ray = import_ray(local=not options.ray_address)
    started_here = not ray.is_initialized()
    if started_here:
        _start_ray(ray, options)
    concurrency = options.pages_per_browser
    actor_class = ray.remote(num_cpus=options.cpus_per_task, max_restarts=0,
                             max_concurrency=concurrency)(Renderer)
    finish = ray.remote(num_cpus=options.cpus_per_task, max_retries=0)(finish_page)
    renderers: list[Any] = []
    try:
        renderers = [actor_class.remote(pipeline, options.restart_every, concurrency)
                     for _ in range(options.renderers)]
        yield from _schedule(ray, queue, pipeline, options, renderers, finish,
                             lambda: actor_class.remote(pipeline, options.restart_every,
                                                        concurrency))
    finally:
        for actor in renderers:
            ray.kill(actor)  # Chromium goes with its actor process
        if started_here:
            ray.shutdown()


def _schedule(ray: Any, queue: PageQueue[PageTask], pipeline: PipelineOptions,
              options: BatchOptions, renderers: list[Any], finish: Any,
              new_renderer: Any) -> Iterator[PageOutcome]:
    """Keep every renderer busy and the CPU tasks fed; yield outcomes as they come."""
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    rendering: dict[Any, int] = {}
    """Render reference → index of its renderer (a slot of that renderer)."""
    finishing: dict[Any, tuple[PageTask, int, Any, float]] = {}
    """Outcome reference → (page, renderer index, render reference, submitted at)."""
    overdue_s = 2 * pipeline.timeout_s + options.overdue_grace_s
    slots = options.pages_per_browser + RENDERS_QUEUED
    while finishing or not queue.exhausted():
        _submit(queue, renderers, finish, rendering, finishing, cpus, slots)
        if not finishing:
            time.sleep(queue.wait_s())
            continue
        ready, _ = ray.wait([*rendering, *finishing], num_returns=1, timeout=queue.poll_s())
        for ref in ready:
            if ref in rendering:
                del rendering[ref]  # the renderer has a free slot again
                continue
            task, index, render_ref, _ = finishing.pop(ref)
            queue.finished(task)
            outcome = _outcome(ray, ref, task)
            if outcome.error == "WorkerDied" and _renderer_died(ray, render_ref):
                renderers[index] = new_renderer()
            yield outcome
        now = time.monotonic()
        for ref, (task, index, render_ref, submitted) in list(finishing.items()):
            if now - submitted > overdue_s:  # a stuck Chromium or CPU stage
                del finishing[ref]
                queue.finished(task)
                if render_ref in rendering:
                    ray.kill(renderers[index])
                    renderers[index] = new_renderer()
                    for other in [r for r, i in rendering.items() if i == index]:
                        del rendering[other]
                ray.cancel(ref, force=True)
                yield PageOutcome(task.source, task.out_dir, False, now - submitted,
                                  "PageTimeoutError", f"{task.source}: the page did not finish "
                                  f"within {overdue_s:g} s on Ray and was stopped",
                                  PageTimeoutError.exit_code)


def _submit(queue: PageQueue[PageTask], renderers: list[Any], finish: Any,
            rendering: dict[Any, int], finishing: dict[Any, tuple[PageTask, int, Any, float]],
            cpus: int, slots: int) -> None:
    """Queue pages on renderers with a free slot (``slots`` each) while the CPU tasks keep
    up."""
    for index, actor in enumerate(renderers):
        while (sum(1 for i in rendering.values() if i == index) < slots
               and len(finishing) < FINISHING_PER_CPU * cpus + slots * len(renderers)):
            task = queue.take()
            if task is None:
                return
            render_ref = actor.render.remote(task)
            rendering[render_ref] = index
            finishing[finish.remote(render_ref)] = (task, index, render_ref, time.monotonic())


def _outcome(ray: Any, ref: Any, task: PageTask) -> PageOutcome:
    from ray.exceptions import RayError

    try:
        return ray.get(ref)
    except RayError as err:  # the renderer or the task's worker died (killed, out of memory)
        cause = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        return PageOutcome(task.source, task.out_dir, False, 0.0, "WorkerDied",
                           f"{task.source}: Ray worker died while on the page ({cause})", 1)


def _renderer_died(ray: Any, render_ref: Any) -> bool:
    from ray.exceptions import RayActorError

    try:
        ray.get(render_ref, timeout=0)
    except RayActorError:
        return True
    except Exception:  # noqa: BLE001 - any other answer means the actor lives
        return False
    return False


def _start_ray(ray: Any, options: BatchOptions) -> None:
    """Join ``options.ray_address``, or start a local instance bound to 127.0.0.1."""
    quiet = {"include_dashboard": False, "log_to_driver": False,
             "logging_level": logging.WARNING}
    if options.ray_address:
        ray.init(address=options.ray_address, **quiet)
        return
    cpus = int(options.renderers * options.cpus_per_task + 0.999) + (os.cpu_count() or 1)
    ray.init(num_cpus=cpus, **quiet)


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
