"""The Ray engine of ``wps batch`` (``pip install 'wps[ray]'``): renderer actors, CPU tasks, run
by :class:`~wps.executor.RayExecutor`.

Each renderer (a worker of the executor, :func:`start_renderer`) keeps one Chromium and only
captures pages (:func:`render`); the capture (with its screenshot bytes) goes by Ray's object
store straight to a :func:`finish_page` task (the executor's ``then``), which runs segmentation,
main text, filters and the output into ``DIR/<key>/`` on any node with a free CPU. The driver
never sees the captures: it hands out pages (politeness, look-ahead), collects outcomes and, as
with the local engine, writes markers, failures and the summary
(:class:`~wps.runner.batch.BatchRun`). Output folders are written atomically by the tasks, so a
driver killed at any point leaves at most staging folders that the next run removes.

Without an address a local Ray instance is started on 127.0.0.1; ``auto`` or ``HOST:PORT`` joins
a running cluster, which must see ``DIR`` at the same path on every node (a shared file system).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import PageTimeoutError
from ..executor import RayExecutor
from .worker import (
    PageOutcome,
    PageTask,
    failed_outcome,
    page_site,
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


@dataclass(slots=True)
class RenderedPage:
    """What a renderer hands to a CPU task: the capture and its screenshot as PNG bytes (the
    renderer's temporary file cannot travel to another node)."""

    task: PageTask
    capture: PageCapture
    screenshot_png: bytes | None
    render_s: float


_BROWSER: Any = None
"""In a renderer actor: its Chromium (:func:`start_renderer`)."""


def start_renderer(pipeline: PipelineOptions, restart_every: int | None,
                   concurrency: int = 1) -> None:
    """A renderer actor's one Chromium, restarted every ``restart_every`` pages; the actor is
    threaded and renders ``concurrency`` pages at once, each in its own context."""
    from ..capture import Browser, CaptureOptions

    global _BROWSER
    _BROWSER = Browser(pipeline.capture_options or CaptureOptions(),
                       restart_every=restart_every, concurrency=concurrency)


def render(task: PageTask) -> RenderedPage | PageOutcome:
    """In a renderer actor: capture one page (a failed page is a value, the actor goes on)."""
    from ..capture import discard_screenshot

    started = time.perf_counter()
    try:
        capture = render_page(task, _BROWSER)
    except Exception as err:  # noqa: BLE001 - a failed page is a value, the actor goes on
        restart_if_grown(_BROWSER, task.restart_above_mb)
        return failed_outcome(task, err, time.perf_counter() - started)
    restart_if_grown(_BROWSER, task.restart_above_mb)
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
    """Outcomes of the queue's pages in completion order, computed on Ray: a page may wait
    for a renderer's slot, then for a CPU, so it is overdue after twice the page deadline."""
    executor = RayExecutor(
        options.renderers, 2 * pipeline.timeout_s + options.overdue_grace_s,
        on_overdue=_overdue, on_died=_died, initializer=start_renderer,
        initargs=(pipeline, options.restart_every, options.pages_per_browser),
        concurrency=options.pages_per_browser, then=finish_page, cpus=options.cpus_per_task,
        address=options.ray_address, affinity=page_site)
    yield from executor.run(queue, render)


def _overdue(task: PageTask, seconds: float) -> PageOutcome:
    return PageOutcome(task.source, task.out_dir, False, seconds, "PageTimeoutError",
                       f"{task.source}: the page did not finish within {seconds:g} s on Ray "
                       "and was stopped", PageTimeoutError.exit_code)


def _died(task: PageTask) -> PageOutcome:
    return PageOutcome(task.source, task.out_dir, False, 0.0, "WorkerDied",
                       f"{task.source}: Ray worker died while on the page", 1)
