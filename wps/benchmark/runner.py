"""Run segmenters over Webis-WebSeg-20 pages and evaluate them, resumably, in worker processes.

Per page: build the capture from the dataset files (no browser), run each segmenter (timed),
evaluate its Webis JSON against ``ground-truth.json`` for every size function (the pages run
through :mod:`wps.executor`: in this process, or a pool of workers). Output that is
missing (the segmenter raised, returned no segments, or wrote JSON the evaluator refuses) is
replaced by the full-page baseline's row, as R's ``--default-segmentation`` and ECIR'21's
aggregation do. Results are appended to the store page by page, in the parent process only.
"""

from __future__ import annotations

import math
import shlex
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..published.published import SIZE_FUNCTION_ORDER
from ..errors import SegmentationError, UnknownSegmenterError, UsageError
from ..executor import Executor, InProcessExecutor, LocalExecutor, RayExecutor
from ..files import check_output_folder, write_text_atomic
from ..model import PageCapture, Segment, Segmentation
from ..webis import EVALUATION_FILES, WebisDataset, WebisPage, capture_from_webis, to_webis
from .aggregate import BASELINE_NAME, SegmenterSummary, aggregate, resolve_rows
from .report import summary_to_json, summary_to_markdown, write_per_page_csv
from .store import BASELINE_SUBSTITUTE, MISSING, OWN, PageResult, ResultStore

__all__ = [
    "STORE_NAME",
    "BenchmarkOptions",
    "BenchmarkReport",
    "evaluate_page",
    "run_benchmark",
    "write_summary",
]

STORE_NAME = "results.jsonl"
_SEGMENTERS: dict[str, Any] = {}
"""Segmenters built in this process, reused across pages (a model loads once per worker)."""


@dataclass(slots=True)
class BenchmarkOptions:
    data: Path
    """Dataset root: any layout :class:`~wps.webis.WebisDataset` accepts."""
    segmenters: list[str]
    out: Path
    pages: int | None = None
    """Evaluate only the first N pages that have ground truth."""
    ids: list[str] | None = None
    workers: int = 1
    engine: str = "local"
    """``local``: processes on this machine; ``ray``: Ray actors (a local Ray, or ``ray_address``
    with the data at the same path on every node)."""
    ray_address: str | None = None
    save_segmentations: bool = False
    """Also write each segmenter's Webis JSON to ``OUT/segmentations/<segmenter>/<id>.json``."""
    progress: bool = True
    fresh: bool = False
    """Discard stored results first (after changing a segmenter); default is to resume."""
    command: str = ""
    """The command line, recorded in the summary."""


@dataclass(slots=True)
class BenchmarkReport:
    summaries: dict[str, SegmenterSummary]
    pages: list[str]
    computed: int
    """(page, segmenter) pairs computed by this run; the rest came from the store."""
    markdown: str


def run_benchmark(options: BenchmarkOptions) -> BenchmarkReport:
    """Evaluate ``options.segmenters`` on the dataset, resuming from ``OUT/results.jsonl``."""
    from ..segmenters import segmenter_names

    if options.workers < 1:
        raise UsageError(f"--workers must be >= 1, got {options.workers}")
    if options.engine not in ("local", "ray"):
        raise UsageError(f"--engine must be local or ray, got {options.engine!r}")
    if options.pages is not None and options.pages < 0:
        raise UsageError(f"--pages must be >= 0, got {options.pages}")
    if not options.segmenters:
        raise UsageError("no segmenter named (--segmenters NAME[,NAME...])")
    for name in options.segmenters:  # checked here; the segmenters are built in the workers
        if name not in segmenter_names():
            raise UnknownSegmenterError(
                f"unknown segmenter {name!r}; choose from {segmenter_names()}")
    check_output_folder(options.out)  # an impossible --out fails before any page is scored
    dataset = WebisDataset(options.data, ids=options.ids, require=EVALUATION_FILES,
                           limit=options.pages)
    pages = list(dataset)
    page_ids = [page.id for page in pages]
    skipped = [page.id for page in WebisDataset(options.data, ids=options.ids)
               if not page.has(*EVALUATION_FILES)]
    if options.fresh:
        (options.out / STORE_NAME).unlink(missing_ok=True)
    store = ResultStore(options.out / STORE_NAME)
    done = store.done()
    todo = [(page, [name for name in options.segmenters if (page.id, name) not in done])
            for page in pages]
    todo = [(page, names) for page, names in todo if names]
    save_dir = options.out / "segmentations" if options.save_segmentations else None

    computed = 0
    with dataset, _progress(len(pages), len(pages) - len(todo), options.progress) as bar:
        for results in _run_pages(todo, options, save_dir):
            store.append(results)
            computed += len(results)
            bar.update(1)

    run = {
        "data": str(options.data),
        "layout": dataset.layout,
        "pages": len(page_ids),
        "page_ids": page_ids,
        "skipped": len(skipped),
        "segmenters": list(options.segmenters),
        "command": options.command,
    }
    summaries, markdown = write_summary(options.out, store.read(), options.segmenters,
                                        page_ids, run)
    return BenchmarkReport(summaries, page_ids, computed, markdown)


def write_summary(
    out: Path, results: Sequence[PageResult], segmenters: Sequence[str],
    page_ids: Sequence[str], run: dict[str, Any],
) -> tuple[dict[str, SegmenterSummary], str]:
    """Aggregate the stored results of this page set; write per-page.csv, summary.json/.md."""
    rows = resolve_rows(results, segmenters, page_ids)
    summaries = aggregate(rows, SIZE_FUNCTION_ORDER)
    write_per_page_csv(out / "per-page.csv", rows)
    write_text_atomic(out / "summary.json", summary_to_json(summaries, run))
    markdown = summary_to_markdown(summaries, run)
    write_text_atomic(out / "summary.md", markdown)
    return summaries, markdown


def evaluate_page(page_dir: Path, segmenters: Sequence[str],
                  save_dir: Path | None = None) -> list[PageResult]:
    """Segment and evaluate one page folder with each segmenter: the per-page work function."""
    page_dir = Path(page_dir)
    ground_truth = page_dir / "ground-truth.json"
    try:
        capture: PageCapture | None = capture_from_webis(page_dir)
        capture_error = ""
    except Exception as err:  # noqa: BLE001 - a broken page: every segmenter gets the baseline row
        capture, capture_error = None, f"capture: {type(err).__name__}: {err}"
    results = []
    for name in segmenters:
        seconds = math.nan
        error = capture_error
        if capture is not None:
            started = time.perf_counter()
            try:
                segmentation = _segmenter(name).segment(capture)
                seconds = time.perf_counter() - started
                if segmentation.segments:
                    if save_dir is not None:
                        _save_segmentation(save_dir / name / f"{page_dir.name}.json",
                                           segmentation, name)
                    scores = _evaluate(segmentation, ground_truth, name)
                    results.append(PageResult(page_dir.name, name, OWN,
                                              len(segmentation.segments), seconds, scores))
                    continue
                error = "no segments"
            except Exception as err:  # noqa: BLE001 - missing output: §8 takes the baseline row
                if math.isnan(seconds):
                    seconds = time.perf_counter() - started
                error = f"{type(err).__name__}: {err}"
        results.append(_baseline_substitute(page_dir, ground_truth, capture, name, seconds,
                                            error))
    return results


def _baseline_substitute(page_dir: Path, ground_truth: Path, capture: PageCapture | None,
                         name: str, seconds: float, error: str) -> PageResult:
    """The baseline's row for a segmenter whose own output is missing (or NA if that fails)."""
    try:
        width, height = (capture.width, capture.height) if capture is not None \
            else _ground_truth_size(ground_truth)
        whole = Segment.from_box("0", (0.0, 0.0, float(width), float(height)))
        baseline = Segmentation(page_dir.name, BASELINE_NAME, width, height, [whole])
        scores = _evaluate(baseline, ground_truth, BASELINE_NAME)
    except Exception as err:  # noqa: BLE001 - NA row, dropped by the aggregation
        return PageResult(page_dir.name, name, MISSING, 0, seconds, None,
                          f"{error}; baseline: {type(err).__name__}: {err}")
    return PageResult(page_dir.name, name, BASELINE_SUBSTITUTE, 1, seconds, scores, error)


def _evaluate(segmentation: Segmentation, ground_truth: Path,
              name: str) -> dict[str, tuple[float, float, float]]:
    from ..evaluation import evaluate

    result = evaluate(to_webis(segmentation, name), ground_truth)
    return {
        str(function): (float(score.precision), float(score.recall), float(score.f1))
        for function, score in result.results.items()
    }


def _ground_truth_size(ground_truth: Path) -> tuple[int, int]:
    import json

    from ..errors import DatasetError
    from ..jsonsafe import load_nested

    data = load_nested(Path(ground_truth).read_text(encoding="utf-8"), str(ground_truth),
                       json.loads, DatasetError)
    return int(data["width"]), int(data["height"])


def _segmenter(name: str) -> Any:
    from ..segmenters import build_segmenter

    if name not in _SEGMENTERS:
        _SEGMENTERS[name] = build_segmenter(name)
    return _SEGMENTERS[name]


def _save_segmentation(path: Path, segmentation: Segmentation, name: str) -> None:
    import json

    write_text_atomic(path, json.dumps(to_webis(segmentation, name), separators=(",", ":")) + "\n")


def _run_pages(todo: list[tuple[WebisPage, list[str]]], options: BenchmarkOptions,
               save_dir: Path | None) -> Iterator[list[PageResult]]:
    """Results per page, as each page finishes; zip pages stay extracted only while in flight."""
    @contextmanager
    def opened(item: tuple[WebisPage, list[str]]) -> Iterator[_PageJob]:
        page, names = item
        with page.open() as folder:
            yield _PageJob(folder, names, save_dir)

    executor: Executor[Any, list[PageResult]]
    if options.engine == "ray":
        executor = RayExecutor(options.workers, on_died=_worker_died, prepare=opened,
                               address=options.ray_address)
    elif options.workers == 1:
        executor = InProcessExecutor(prepare=opened)
    else:
        executor = LocalExecutor(options.workers, on_died=_worker_died, prepare=opened,
                                 start_method=None)
    yield from executor.run(todo, _evaluate_job)


@dataclass(slots=True)
class _PageJob:
    """One page folder and the segmenters to run on it, as a worker gets them."""

    folder: Path
    names: list[str]
    save_dir: Path | None


def _evaluate_job(job: _PageJob) -> list[PageResult]:
    return evaluate_page(job.folder, job.names, job.save_dir)


def _worker_died(item: tuple[WebisPage, list[str]]) -> list[PageResult]:
    raise SegmentationError(f"a worker process died on page {item[0].id} or a page in flight "
                            "beside it; rerun the same command to resume")


class _NoBar:
    def update(self, count: int) -> None:
        pass


@contextmanager
def _progress(total: int, initial: int, enabled: bool) -> Iterator[Any]:
    """A tqdm bar over pages (resumed pages counted as done), or nothing when disabled."""
    if not enabled:
        yield _NoBar()
        return
    from tqdm import tqdm

    with tqdm(total=total, initial=initial, unit="page", file=sys.stderr,
              desc="webseg20") as bar:
        yield bar


def command_line(argv: Sequence[str]) -> str:
    """The command as a shell line, for the summary."""
    return " ".join(shlex.quote(part) for part in argv)


def read_ids(path: Path) -> list[str]:
    """Page ids from a file, one per line (blank lines and ``#`` comments ignored)."""
    from ..errors import InputFileError

    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise InputFileError(f"{path}: unreadable id list ({err})") from None
    ids = [line.split("#", 1)[0].strip() for line in lines]
    return [page_id for page_id in ids if page_id]
