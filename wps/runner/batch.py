"""``wps batch``: capture and segment many pages, on this machine or on a Ray cluster.

Layout of the output folder::

    DIR/<key>/              one page, as ``wps segment --out`` writes it: segmentation.json,
                            segments.jsonl, report.html (+ main-text.json); capture/ only with
                            ``save_capture``, overlay.png and the screenshot only with
                            ``images`` (the screenshot is taken anyway for a segmenter that
                            reads it)
    DIR/.done/<key>         completion marker (JSON: url, segmenter, options, outputs), written
                            after the page's folder; a rerun with the same segmenter and output
                            options skips the page, other options redo it
    DIR/.lock               held (flock) by the one batch writing here (:mod:`.lock`)
    DIR/failures.jsonl      this run's failures: {"url", "error", "message", "exit_code"}
    DIR/summary.json        counts and timings of the last run, failure causes, slowest pages
    DIR/segments.jsonl      with ``merged``: every finished page's segment lines (or
                            DIR/segments.parquet, :mod:`.merged`)
    DIR/report.html         one row per page (its own DIR/<key>/report.html linked, written
                            with ``reports``), totals, drop reasons (:mod:`wps.report.batch`),
                            written when a run ends

``<key>`` is the page's folder name (:func:`.folders.page_folder_name`): host, a slug of the
path and the page's ``page_id`` (first 12 hex digits of the SHA-1 of its URL), e.g.
``example.com_news-a-story_3f2a9c1b0d4e``; a page done by an earlier version, whose folder and
marker are the bare ``page_id``, keeps them. Pages come as a
stream (:mod:`.sources`) through a :class:`~.politeness.PageQueue` to an engine: the local one
here (a pool of worker processes, one Chromium each, each rendering ``pages_per_browser`` pages
at once while it segments the rendered ones: :mod:`.local_engine`) or :mod:`.ray_engine`.
Markers, failures and
the summary are written by the driver process only (:class:`BatchRun`), so workers never race.

A run that is interrupted (Ctrl-C, SIGTERM) stops its workers with SIGTERM and waits for them to
remove their temporary folders; what a killed run left (``DIR/.<key>.staging-<pid>-*``) is
removed when the next run starts, unless that process still runs.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import closing
from dataclasses import asdict, replace
from pathlib import Path
from typing import IO

from ..capture import CaptureOptions, find_chromium
from ..completions import Completions
from ..errors import BlockedTargetError, InputFileError
from ..files import prepare_output_folder, remove_stale_staging, write_text_atomic
from ..pipeline import PipelineOptions
from ..report.batch import write_batch_report
from ..segmenters import wants_screenshot
from .entries import BatchSource
from .folders import page_folder
from .local_engine import local_results
from .lock import output_lock
from .merged import DONE_FOLDER, import_pyarrow, write_merged_segments
from .options import BatchOptions, BatchSummary
from .politeness import USER_AGENT, PageQueue, RobotsRules
from .worker import PageOutcome, PageTask

FAILURES_FILE = "failures.jsonl"
SUMMARY_FILE = "summary.json"
_log = logging.getLogger(__name__)

SLOWEST_SHOWN = 5
FAILURES_SHOWN = 5
"""Failed inputs named in the closing lines (all are in failures.jsonl)."""
PROGRESS_LOG_S = 10.0
"""Seconds between plain progress lines when stderr is not a terminal."""


def run_batch(sources: Iterable[str | BatchSource], out_dir: str | Path, options: BatchOptions,
              total: int | None = None) -> BatchSummary:
    """Process every source into ``out_dir``; failures are recorded, never raised.

    ``sources`` may be a stream (:func:`~wps.runner.sources.iter_sources`); ``total`` (a guess
    is fine) gives the progress bar its end. A second batch on the same folder refuses with
    :class:`~wps.errors.OutputLockedError` (or waits, ``options.wait_for_lock``).
    """
    started = time.perf_counter()
    out = Path(out_dir)
    pipeline = _checked_pipeline(replace(options.pipeline, report=options.reports),
                                 options.images)
    if options.merged and options.merged_format == "parquet":  # before any page, not after
        import_pyarrow()
    if options.engine == "ray":  # a missing Ray fails before anything is written
        from ..executor.ray import import_ray

        import_ray(local=not options.ray_address)
    prepare_output_folder(out)
    with output_lock(out, wait=options.wait_for_lock):
        prepare_output_folder(out / DONE_FOLDER)
        for folder in (out, out / DONE_FOLDER):  # what a killed run left
            remove_stale_staging(folder)
        run = BatchRun(out, pipeline, options, total if total is not None else (
            len(sources) if isinstance(sources, list) else None))
        with closing(run):
            queue = PageQueue(run.tasks(sources), lambda task: task.host,
                              per_host=options.per_host, delay_s=options.host_delay_s,
                              host_delay=run.crawl_delay)
            if options.engine == "ray":
                from .ray_engine import ray_results

                results = ray_results(queue, pipeline, options)
            else:
                results = local_results(queue, pipeline, options)
            with closing(results):  # an interruption stops the workers
                for result in results:
                    run.record(result)
        return run.finish(time.perf_counter() - started)


class BatchRun:
    """One run's bookkeeping, the same for every engine: which pages are done (markers), what
    failed (``failures.jsonl``), the progress bar, the summary. Written by the driver process
    only, so workers never race on them. :meth:`finish` is where every run ends."""

    def __init__(self, out: Path, pipeline: PipelineOptions, options: BatchOptions,
                 total: int | None) -> None:
        from tqdm import tqdm

        self.out = out
        self.pipeline = pipeline
        self.options = options
        self.completions = Completions(out)
        self.done_as = {"segmenter": pipeline.segmenter, "options": pipeline.output_key(),
                        "outputs": options.outputs}
        self.summary = BatchSummary(failures_path=str(out / FAILURES_FILE), engine=options.engine)
        self.robots = (RobotsRules(_allow_private(pipeline), user_agent=_user_agent(pipeline))
                       if options.robots else None)
        self._failures = open(  # noqa: SIM115 - a run's file, closed by close()
            out / FAILURES_FILE, "w", encoding="utf-8")
        self._times: list[tuple[float, str]] = []
        self._bar = tqdm(total=total, unit="page", file=sys.stderr, dynamic_ncols=True,
                         disable=None if options.progress is None else not options.progress)
        self._started = self._logged = time.monotonic()

    def tasks(self, sources: Iterable[str | BatchSource]) -> Iterator[PageTask]:
        """The pages still to do, streamed; finished ones count as skipped, refused ones fail."""
        for source in sources:
            if isinstance(source, str):
                source = BatchSource(source)
            self.summary.total += 1
            if source.problem:
                self.record(PageOutcome(source.location, "", False, 0.0, "InputFileError",
                                        source.problem, InputFileError.exit_code))
                continue
            try:
                key = source.key
            except (OSError, RuntimeError) as err:  # a path that cannot be resolved (a loop)
                self.record(PageOutcome(source.location, "", False, 0.0, "InputFileError",
                                        f"{source.location}: unusable path ({err})",
                                        InputFileError.exit_code))
                continue
            folder = page_folder(self.out, source.location, key)
            if self.completions.is_done(folder, self.done_as):
                self.summary.skipped += 1
                self._bar.update(1)
                continue
            task = PageTask(source.location, str(self.out / folder), self.pipeline,
                            self.options.restart_every, source.html,
                            self.options.restart_above_mb,
                            save_capture=self.options.save_capture or self.options.images,
                            overlay=self.options.images,
                            archive=source.archive if self.options.replay else None)
            refusal = self.robots.refusal(task.source) if self.robots and task.host else None
            if refusal:
                self.record(PageOutcome(task.source, task.out_dir, False, 0.0,
                                        "RobotsDisallowed", refusal, BlockedTargetError.exit_code))
                continue
            yield task

    def crawl_delay(self, site: str) -> float:
        return self.robots.crawl_delay(site) if self.robots else 0.0

    def record(self, result: PageOutcome) -> None:
        """One page's outcome: its marker or its failure line, the bar, the summary."""
        _log.info("%s: %s in %.1f s", result.source,
                  "done" if result.ok else f"failed ({result.message})", result.seconds)
        if result.ok:
            folder = Path(result.out_dir).name
            self.completions.mark(folder, {"url": result.source, **self.done_as, "folder": folder,
                                           "seconds": round(result.seconds, 3)})
            self.summary.done += 1
            self._times.append((result.seconds, result.source))
            for stage, seconds in result.stages.items():
                self.summary.stage_seconds[stage] = (
                    self.summary.stage_seconds.get(stage, 0.0) + seconds)
        else:
            _record_failure(self._failures, result)
            self.summary.failed += 1
            causes = self.summary.failure_causes
            causes[result.error] = causes.get(result.error, 0) + 1
            if len(self.summary.first_failures) < FAILURES_SHOWN:
                self.summary.first_failures.append((result.source, result.error))
        self._bar.update(1)
        self._bar.set_postfix(failed=self.summary.failed, refresh=False)
        self._log_progress()

    def _log_progress(self) -> None:
        """Without a progress bar (stderr is a log file, nohup, Slurm), a plain line every
        :data:`PROGRESS_LOG_S` seconds instead, unless progress was turned off."""
        now = time.monotonic()
        if not self._bar.disable or self.options.progress is False or \
                now - self._logged < PROGRESS_LOG_S:
            return
        self._logged = now
        summary, minutes = self.summary, max(now - self._started, 1e-9) / 60
        finished = summary.done + summary.failed
        print(f"batch: {finished + summary.skipped}/{self._bar.total or '?'} pages: "
              f"{summary.done} done, {summary.failed} failed, {summary.skipped} skipped, "
              f"{finished / minutes:.1f} pages/min", file=sys.stderr, flush=True)

    def finish(self, seconds: float) -> BatchSummary:
        """The end of a run (every engine): what workers killed meanwhile left beside their page
        folders goes (the pages do not look for it), then the merged segments file,
        ``summary.json`` and the batch's ``report.html`` (:mod:`wps.report.batch`)."""
        self.close()
        remove_stale_staging(self.out)
        self.summary.seconds = seconds
        self.summary.slowest = [(url, round(s, 2)) for s, url in
                                sorted(self._times, reverse=True)[:SLOWEST_SHOWN]]
        self.summary.stage_seconds = {stage: round(value, 3) for stage, value
                                      in sorted(self.summary.stage_seconds.items())}
        if self.options.merged:
            write_merged_segments(self.out, self.options.merged_format)
        _write_summary(self.out / SUMMARY_FILE, self.summary)
        write_batch_report(self.out, page_reports=self.options.reports)
        return self.summary

    def close(self) -> None:
        self._bar.close()
        self._failures.close()


def _allow_private(pipeline: PipelineOptions) -> bool:
    return bool(pipeline.capture_options and pipeline.capture_options.allow_private)


def _user_agent(pipeline: PipelineOptions) -> str:
    return (pipeline.capture_options and pipeline.capture_options.user_agent) or USER_AGENT


def _checked_pipeline(pipeline: PipelineOptions, images: bool = True) -> PipelineOptions:
    """Fail once, before any page, on what would fail every page: no Chromium, an unknown
    segmenter or options it does not take, a bad config file (read here once for all workers).
    Without ``images`` the screenshot is taken only for a segmenter that reads it or a report
    that embeds it."""
    capture_options = pipeline.capture_options or CaptureOptions()
    find_chromium(capture_options.chromium_path)
    if capture_options.user_agent is None:  # live sites are told who visits
        capture_options = replace(capture_options, user_agent=USER_AGENT)
    if (not images and not pipeline.embed_screenshot and capture_options.screenshot
            and not wants_screenshot(pipeline.build_segmenter())):
        capture_options = replace(capture_options, screenshot=False)
    return replace(pipeline, capture_options=capture_options).checked()



def _record_failure(handle: IO[str], result: PageOutcome) -> None:
    record = {"url": _utf8_safe(result.source), "error": result.error,
              "message": _utf8_safe(result.message), "exit_code": result.exit_code}
    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    handle.flush()


def _utf8_safe(text: str) -> str:
    """``text`` with what UTF-8 cannot hold (a file name's undecodable bytes, which Python
    keeps as lone surrogates) written as backslash escapes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _write_summary(path: Path, summary: BatchSummary) -> None:
    write_text_atomic(path, json.dumps(asdict(summary), indent=1))
