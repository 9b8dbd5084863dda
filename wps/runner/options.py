"""How a batch runs (:class:`BatchOptions`) and what it did (:class:`BatchSummary`), shared by the
driver (:mod:`.batch`) and the engines."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ..errors import UsageError
from ..pipeline import PipelineOptions
from ..settings import none_for_empty, packaged_defaults

ENGINES = ("local", "ray")
MERGED_FORMATS = ("jsonl", "parquet")


@dataclass(slots=True)
@packaged_defaults("batch")
class BatchOptions:
    """How a batch runs: the ``[batch]`` section of the run configuration (its defaults are in
    ``wps/defaults.toml``), the engine's size and ``pipeline``, what every page goes through, as
    in ``wps segment``."""

    engine: str
    """``local``: a process pool on this machine; ``ray``: renderer actors and CPU tasks on a
    Ray cluster (:mod:`wps.runner.ray_engine`)."""
    restart_every: int | None
    """Restart each worker's Chromium after this many pages (bounds memory growth)."""
    restart_above_mb: int | None
    """Restart a worker's Chromium after a page that left it holding more than this (MiB)."""
    overdue_grace_s: float
    """A page unfinished this long past its deadline has a worker that does not stop (stuck
    outside Python, where its own timer cannot reach): it fails and its worker is stopped. The
    Ray engine counts from when the page was queued for a renderer, so it allows twice the
    deadline plus this grace."""
    renderers: int
    """Ray engine: renderer actors, one Chromium each."""
    cpus_per_task: float
    """Ray engine: CPUs each segmentation task (and each renderer) asks Ray for."""
    ray_address: str | None
    """``None``: start a local Ray instance; ``auto`` or ``HOST:PORT``: join that cluster."""
    robots: bool
    """Respect robots.txt of live sites (for the tool's token ``wps``)."""
    per_host: int | None
    """Live sites: at most this many pages of one host at a time (``None``: no limit)."""
    host_delay_s: float
    """Live sites: at least this long between two page starts on one host."""
    wait_for_lock: bool
    """Another batch on the same ``--out``: wait for it (else refuse at once)."""
    merged: bool
    """Also write ``DIR/segments.jsonl``: every finished page's segment lines in one file."""
    merged_format: str
    """``"jsonl"``, or ``"parquet"``: ``DIR/segments.parquet`` instead (pyarrow; one row group per
    :data:`~wps.runner.merged.PAGES_PER_ROW_GROUP` pages; :mod:`wps.runner.merged`)."""
    reports: bool
    """Write each page's ``report.html`` (the batch's own ``DIR/report.html`` is always written
    and links the pages that have one)."""
    images: bool
    """Take each page's screenshot, draw ``overlay.png`` and keep the screenshot in
    ``capture/`` for ``report.html`` (implies ``save_capture``). Off by default: the screenshot
    is then taken only for a segmenter that reads it (``Segmenter.needs_screenshot``)."""
    save_capture: bool
    """Write each page's ``capture/`` folder (``capture.json``, ``dom.html``, the screenshot when
    one was taken), which ``wps segment`` can segment again without a browser."""
    replay: bool
    """WARC input: render each page with its subresources from the same WARC
    (:mod:`wps.capture.replay`), not with every subresource blocked."""
    workers: int = 1
    """Local engine: worker processes, one Chromium each (``wps batch`` sizes it for the
    machine, :mod:`.sizing`)."""
    pages_per_browser: int = 2
    """Pages rendered at once by each Chromium (each in its own browser context), while the
    worker segments the pages already rendered (``wps batch`` sizes it for the machine)."""
    pipeline: PipelineOptions = field(default_factory=PipelineOptions)
    progress: bool | None = None
    """Show a tqdm bar: ``None`` = only on a terminal."""

    @classmethod
    def from_config(cls, section: dict[str, Any], **run: Any) -> BatchOptions:
        """The options of a resolved ``[batch]`` section (``""`` for an unset value), with
        ``run`` (the engine's size, the pipeline, progress) beside them."""
        return cls(**none_for_empty(cls, section), **run)

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise UsageError(f"--workers must be at least 1, got {self.workers}")
        if self.restart_every is not None and self.restart_every < 1:
            raise UsageError(f"--restart-every must be at least 1, got {self.restart_every}")
        if self.restart_above_mb is not None and self.restart_above_mb < 64:
            raise UsageError(f"--restart-above-mb must be at least 64, got {self.restart_above_mb}")
        if self.engine not in ENGINES:
            raise UsageError(f"--engine must be one of {', '.join(ENGINES)}, got {self.engine!r}")
        if self.renderers < 1:
            raise UsageError(f"--renderers must be at least 1, got {self.renderers}")
        if not self.cpus_per_task > 0:
            raise UsageError(f"--cpus-per-task must be positive, got {self.cpus_per_task}")
        if self.pages_per_browser < 1:
            raise UsageError(f"--pages-per-browser must be at least 1, got "
                             f"{self.pages_per_browser}")
        if self.per_host is not None and self.per_host < 1:
            raise UsageError(f"--per-host must be at least 1, got {self.per_host}")
        if not self.host_delay_s >= 0:
            raise UsageError(f"--host-delay must be >= 0, got {self.host_delay_s}")
        if not math.isfinite(self.overdue_grace_s):
            raise UsageError(f"overdue_grace_s must be a finite number, got "
                             f"{self.overdue_grace_s}")
        if self.merged_format not in MERGED_FORMATS:
            raise UsageError(f"--merged must be one of {', '.join(MERGED_FORMATS)}, "
                             f"got {self.merged_format!r}")

    @property
    def outputs(self) -> str:
        """What each page folder holds besides the segments (part of the completion marker)."""
        if self.images:
            kept = "segments+capture+images"
        else:
            kept = "segments+capture" if self.save_capture else "segments"
        return kept + "+reports" if self.reports else kept


@dataclass(slots=True)
class BatchSummary:
    total: int = 0
    done: int = 0
    skipped: int = 0
    """Pages finished by an earlier run (completion marker present)."""
    failed: int = 0
    seconds: float = 0.0
    failures_path: str = ""
    engine: str = "local"
    failure_causes: dict[str, int] = field(default_factory=dict)
    """Failed pages per error class."""
    slowest: list[tuple[str, float]] = field(default_factory=list)
    """The slowest pages of this run: (url, seconds)."""
    stage_seconds: dict[str, float] = field(default_factory=dict)
    """Rendering stages summed over this run's pages (from each capture's timings)."""
    first_failures: list[tuple[str, str]] = field(default_factory=list)
    """The first failed inputs of this run: (input, error class); all are in failures.jsonl."""

    def line(self) -> str:
        text = (f"batch: {self.total} pages: {self.done} done, {self.skipped} skipped "
                f"(already done), {self.failed} failed in {self.seconds:.1f} s")
        if self.failed:
            text += f" (see {self.failures_path})"
        return text

    def details(self) -> list[str]:
        """The lines under :meth:`line`: failure causes and the slowest pages."""
        lines = []
        if self.failure_causes:
            causes = ", ".join(f"{name} {count}" for name, count in
                               sorted(self.failure_causes.items(), key=lambda item: -item[1]))
            lines.append(f"  failures: {causes}")
            more = self.failed - len(self.first_failures)
            lines.append("  failed: " + ", ".join(f"{where} ({error})" for where, error
                                                  in self.first_failures)
                         + (f" and {more} more" if more > 0 else ""))
        if self.done and self.stage_seconds:
            lines.append("  stages, s/page: " + ", ".join(
                f"{stage.removesuffix('_s')} {seconds / self.done:.2f}"
                for stage, seconds in self.stage_seconds.items()))
        if self.slowest:
            lines.append("  slowest: " + ", ".join(f"{url} {seconds:.1f} s"
                                                  for url, seconds in self.slowest))
        return lines
