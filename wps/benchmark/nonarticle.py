"""The non-article dev set (``../shared/nonarticle-dev``) run through wps and scored by its check.py.

The article benchmark only says whether article bodies survive; this set also labels what must
*not* reach the detector (navigation, login forms, spec fields, score tables, forum chrome) and
whether forum posts arrive one per segment. Every page goes through the pipeline users run
(:func:`wps.segment_to_directory`, one shared :class:`~wps.capture.Browser`), so
``OUT/<name>/segments.jsonl`` is exactly what ``wps segment --out`` writes; the data set's own
``check.py`` scores the folder, and its JSON becomes ``eval/results/nonarticle*.{md,json}``.

Reruns are cheap: a page whose outputs were made with the same options and the same wps source is
reused (its completion marker in ``OUT/.done/``, as ``wps batch`` keeps them, says so); otherwise it is re-segmented from its saved capture (``OUT/<name>/capture``), and only a
page without a capture (or ``fresh=True``) is rendered again.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from ..completions import Completions
from ..errors import InputFileError, UsageError, WpsError
from ..files import check_output_folder, prepare_output_folder
from ..pipeline import PipelineOptions
from .nonarticle_data import Dataset, PageRun, load_dataset, select_pages
from .nonarticle_report import git_commit, write_results
from .nonarticle_scores import add_posts_alone, figures, run_check

__all__ = ["RunSettings", "run_nonarticle_benchmark", "run_pages"]

SEGMENTS_FILE = "segments.jsonl"
CAPTURE_DIR = "capture"
_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_WPS_ROOT = Path(__file__).resolve().parent.parent


def code_fingerprint(root: Path = _WPS_ROOT) -> str:
    """A hash of wps's own source: outputs made by other code are not reused as this run's."""
    digest = hashlib.sha1()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".toml", ".js") and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def prepared_options(options: PipelineOptions) -> PipelineOptions:
    """Fail fast on an unknown segmenter or a bad config, and resolve the config once so that
    its content (not its path) keys the reuse of outputs."""
    from ..config import resolve_config

    options.build_segmenter()
    return replace(options, config=resolve_config(options.config, options.extractor))


def run_key(options: PipelineOptions) -> str:
    return f"{options.output_key()}-{code_fingerprint()}"


def previous_run(completions: Completions, name: str) -> PageRun | None:
    """The run that made the page's current output, as its completion marker records it."""
    record = completions.record(name)
    try:
        return PageRun.from_json(record) if record is not None else None
    except (TypeError, ValueError):
        return None  # an odd marker only costs re-segmenting


def plan_page(name: str, out: Path, key: str, previous: PageRun | None, *, fresh: bool,
              captures: Path | None) -> tuple[str, Path | None]:
    """How to make this page's output: (``reused`` | ``from-capture`` | ``rendered``, source)."""
    page_out = out / name
    if captures is not None:
        if fresh or not _is_current(page_out, key, previous):
            return "from-capture", captures / name / CAPTURE_DIR
        return "reused", None
    if fresh:
        return "rendered", None
    if _is_current(page_out, key, previous):
        return "reused", None
    if (page_out / CAPTURE_DIR / "capture.json").is_file():
        return "from-capture", page_out / CAPTURE_DIR
    return "rendered", None


def _is_current(page_out: Path, key: str, previous: PageRun | None) -> bool:
    return ((page_out / SEGMENTS_FILE).is_file() and previous is not None
            and previous.mode != "failed" and previous.key == key)


def process_page(name: str, page_file: Path, out: Path, options: PipelineOptions, key: str,
                 mode: str, source: Path | None, browser: Any) -> PageRun:
    """Run one page through :func:`wps.segment_to_directory`; a failure is recorded, not raised."""
    from ..pipeline import segment_to_directory

    page_out = out / name
    started = time.perf_counter()
    try:
        if mode == "from-capture":
            if source is None or not (source / "capture.json").is_file():
                raise InputFileError(f"{source}: no capture to re-segment (render it first)")
            result = segment_to_directory(source, page_out, options)
        else:
            result = segment_to_directory(page_file, page_out, options, browser=browser)
    except WpsError as err:
        return _failed(name, page_out, err, err.exit_code)
    except Exception as err:  # noqa: BLE001 - a bug on one page must not lose the others
        return _failed(name, page_out, err, 1)
    seconds = round(time.perf_counter() - started, 3)
    render_s = result.capture.timings.get("total_s") if mode == "rendered" else None
    return PageRun(name, mode, seconds, render_s, key)


def _failed(name: str, page_out: Path, err: BaseException, code: int) -> PageRun:
    """Record the failure and remove a stale ``segments.jsonl``, so check.py does not score an
    older run's output as this one's (the capture stays for the next try)."""
    (page_out / SEGMENTS_FILE).unlink(missing_ok=True)
    lines = str(err).strip().splitlines()
    return PageRun(name, "failed", error_class=type(err).__name__,
                   error=lines[0] if lines else repr(err), exit_code=code)


def run_pages(dataset: Dataset, names: list[str], out: Path, options: PipelineOptions, *,
              fresh: bool = False, captures: Path | None = None,
              progress: bool = True) -> dict[str, PageRun]:
    """Make every selected page's output in this process (:mod:`wps.executor`) with one shared
    browser (started only when a page needs rendering); each page made is marked done
    (:mod:`wps.completions`, keyed by the options and the code), so an interrupted run
    resumes."""
    from contextlib import closing

    from ..executor import InProcessExecutor

    key = run_key(options)
    completions = Completions(out)
    browser = _SharedBrowser()

    def make(name: str) -> PageRun:
        previous = previous_run(completions, name)
        mode, source = plan_page(name, out, key, previous, fresh=fresh, captures=captures)
        if mode == "reused" and previous is not None:
            return replace(previous, mode="reused")
        shared = browser.get() if mode == "rendered" else None
        run = process_page(name, dataset.pages[name], out, options, key, mode, source, shared)
        if run.mode == "failed":
            completions.forget(name)
        else:
            completions.mark(name, asdict(run))
        return run

    with closing(browser):
        runs = list(InProcessExecutor().run(_progress(names, progress), make))
    return {run.name: run for run in runs}


class _SharedBrowser:
    """One browser for the pages that render, launched by the first of them."""

    def __init__(self) -> None:
        self._browser: Any = None

    def get(self) -> Any:
        if self._browser is None:
            from ..capture import Browser

            self._browser = Browser(restart_every=20)
        return self._browser

    def close(self) -> None:
        if self._browser is not None:
            self._browser.close()


def _progress(items: list[str], enabled: bool) -> Iterable[str]:
    if not enabled:
        return items
    from tqdm import tqdm

    return tqdm(items, desc="nonarticle", unit="page")


# ----------------------------------------------------------------------------------- scoring


@dataclass(slots=True)
class RunSettings:
    """Where things go and what the run is called (everything but the pipeline options)."""

    data: Path
    out: Path
    label: str
    results_dir: Path
    pages: list[str] | None = None
    fresh: bool = False
    captures: Path | None = None
    command: str = ""
    config_name: str | None = None
    progress: bool = True


def run_nonarticle_benchmark(settings: RunSettings, options: PipelineOptions) -> dict[str, Any]:
    """Render/segment the selected pages, score them with check.py, write the label's results."""
    if not _LABEL.match(settings.label):
        raise UsageError(f"--label {settings.label!r}: use letters, digits, '.', '_', '-'")
    dataset = load_dataset(settings.data)
    names = select_pages(dataset, settings.pages)
    options = prepared_options(options)
    check_output_folder(settings.results_dir)
    out = prepare_output_folder(settings.out)
    if settings.captures is not None and not settings.captures.is_dir():
        raise InputFileError(f"{settings.captures}: no such folder of page outputs "
                             "(--from-captures)")
    runs = run_pages(dataset, names, out, options, fresh=settings.fresh,
                     captures=settings.captures, progress=settings.progress)
    report = run_check(dataset, out)
    add_posts_alone(dataset, out, report)
    result = figures(dataset, names, report, runs)
    result["run"] = {
        "label": settings.label, "command": settings.command,
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": git_commit(), "code_fingerprint": code_fingerprint(),
        "data": str(settings.data), "out": str(settings.out),
        "from_captures": None if settings.captures is None else str(settings.captures),
        "segmenter": options.segmenter, "segmenter_options": options.segmenter_options,
        "config": settings.config_name, "pages": len(names),
        "check_total": report.get("total", {}),
    }
    write_results(settings.results_dir, settings.label, result)
    return result
