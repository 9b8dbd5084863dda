"""``--workers auto``: how many worker processes, and pages per browser, this machine can keep busy.

Rendering (partly waiting for the page) and segmenting alternate in each worker, so about one
and a half pages in flight per core keep the cores busy: on 2 cores the article benchmark's first
40 local pages ran fastest with three workers of one page each once the settle wait ended when the
page went quiet (151.6 / 148.7 / 155.4 pages/min, against 144.1 / 138.0 / 146.7 with four, which
were fastest while every page waited half a second; README, "Batch speed"). Each
worker holds a Chromium and the pipeline's models, :data:`WORKER_MB` together; with less
memory available there are fewer workers, each rendering two pages at once (another page in a
Chromium costs less than another Chromium). Cores are those this process may run on; memory is
what the system reports available (psutil when installed, else ``/proc/meminfo``). A worker
starts by importing the pipeline (a few seconds of CPU, about what it takes to render
:data:`PAGES_PER_WORKER` pages), so a short batch gets fewer workers: under
``2 * PAGES_PER_WORKER`` pages, one, in the batch's own process.

Web pages need no other sizing: a worker's Chromium keeps a tab, and so a renderer process, per
site, and the local engine hands each site's pages to the worker that holds its tab (the
executors' ``affinity``, :class:`~wps.executor.base.SiteLanes`), so four workers of one page keep
a renderer per site, not one per site and worker. 40 URLs of 4 hosts on 2 cores ran at 116.2
pages/min with 0.81 CPU s a page that way, against 88.9 and 0.84 with the two workers of two pages
that web batches had before, from a pool shared by all sites; the same files 116.3 (README,
"Batch speed").
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

PAGES_PER_CORE = 1.5
"""Pages in flight per core (rendering or being segmented), rounded half up."""
WORKER_MB = 600
"""Memory one worker takes with its Chromium (peak PSS of four workers: 2,140 MB)."""
PAGES_PER_WORKER = 8
"""Fewest pages a worker's start-up is worth."""
MAX_PAGES_PER_BROWSER = 2
"""More pages at once in one Chromium were slower (``--pages-per-browser 3``: README)."""


@dataclass(frozen=True, slots=True)
class Machine:
    cores: int
    available_mb: int | None
    """``None``: not known (neither psutil nor ``/proc/meminfo``): cores alone decide."""


def this_machine() -> Machine:
    """The cores this process may use and the memory available now."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cores = os.cpu_count() or 1
    return Machine(max(1, cores), _available_mb())


def choose_workers(machine: Machine, workers: int | None = None,
                   pages_per_browser: int | None = None,
                   pages: int | None = None) -> tuple[int, int]:
    """``(workers, pages per browser)``: what was given, the rest chosen for ``machine`` and a
    batch of ``pages`` (``None``: not known, many).

    >>> choose_workers(Machine(cores=2, available_mb=24_000))
    (3, 1)
    >>> choose_workers(Machine(cores=8, available_mb=2_000))
    (3, 2)
    """
    in_flight = pages_in_flight(machine.cores)
    if workers is None:
        affordable = in_flight if machine.available_mb is None else \
            machine.available_mb // WORKER_MB
        worth = in_flight if pages is None else pages // PAGES_PER_WORKER
        workers = max(1, min(in_flight, affordable, worth))
    if pages_per_browser is None:
        pages_per_browser = min(MAX_PAGES_PER_BROWSER, max(1, round(in_flight / workers)))
    return workers, pages_per_browser


def pages_in_flight(cores: int) -> int:
    """:data:`PAGES_PER_CORE` pages for each of ``cores``, rounded half up."""
    return max(1, math.floor(PAGES_PER_CORE * cores + 0.5))


def _available_mb() -> int | None:
    try:
        import psutil
    except ImportError:
        return _meminfo_available_mb(Path("/proc/meminfo"))
    return int(psutil.virtual_memory().available // (1 << 20))


def _meminfo_available_mb(path: Path) -> int | None:
    """``MemAvailable`` of a ``/proc/meminfo`` file, in MiB (``None`` if it has none)."""
    try:
        lines = path.read_text(encoding="ascii").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    for line in lines:
        name, _, value = line.partition(":")
        if name == "MemAvailable" and value.split():
            return int(value.split()[0]) // 1024  # kB
    return None
