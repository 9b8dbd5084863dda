"""The per-page work of a batch, run inside a worker process that keeps one Chromium.

Each worker process holds one :class:`~wps.capture.Browser` (restarted every N pages and after a
crash); every page gets a fresh browser context. Failures come back as values, never as
exceptions, so one bad page never stops a batch.
"""

from __future__ import annotations

import atexit
import os
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from ..capture import Browser, CaptureOptions
from ..errors import WpsError
from ..pipeline import PipelineOptions, segment_to_directory

_BROWSER: Browser | None = None


@dataclass(slots=True)
class PageTask:
    source: str
    out_dir: str
    pipeline: PipelineOptions
    """With ``capture_options`` set: the worker's browser is launched with them."""
    restart_every: int | None


@dataclass(slots=True)
class PageOutcome:
    source: str
    out_dir: str
    ok: bool
    seconds: float
    error: str = ""
    """Error class name on failure."""
    message: str = ""
    exit_code: int = 0


def worker_browser(options: CaptureOptions, restart_every: int | None) -> Browser:
    """This process's browser, launched on first use and closed at exit."""
    global _BROWSER
    if _BROWSER is None:
        _BROWSER = Browser(options, restart_every=restart_every)
        atexit.register(_BROWSER.close)
    return _BROWSER


def run_page(task: PageTask, browser: Browser | None = None) -> PageOutcome:
    """Render (and segment) one page into ``task.out_dir``; errors become a failed result.

    Without ``browser`` the page uses this process's worker browser.
    """
    started = time.perf_counter()
    try:
        browser = browser or worker_browser(task.pipeline.capture_options or CaptureOptions(),
                                            task.restart_every)
        process_page(task.source, Path(task.out_dir), task.pipeline, browser)
    except WpsError as err:
        return PageOutcome(task.source, task.out_dir, False, time.perf_counter() - started,
                          type(err).__name__, str(err), err.exit_code)
    except Exception as err:  # a bug on one page must not stop the batch
        where = traceback.extract_tb(err.__traceback__)[-1]
        message = (f"{task.source}: internal error: {type(err).__name__}: {err} "
                   f"({os.path.basename(where.filename)}:{where.lineno})")
        return PageOutcome(task.source, task.out_dir, False, time.perf_counter() - started,
                          type(err).__name__, message.replace("\n", " "), 1)
    return PageOutcome(task.source, task.out_dir, True, time.perf_counter() - started)


def process_page(source: str, out_dir: Path, pipeline: PipelineOptions, browser: Browser) -> None:
    """The per-page pipeline, as ``wps segment --out`` runs it: every output into ``out_dir``,
    and the text step's page report beside them."""
    segment_to_directory(source, out_dir, pipeline, browser=browser)  # main-text.json included
