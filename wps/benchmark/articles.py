"""The article-extraction benchmark (scrapinghub/article-extraction-benchmark) run through wps.

Each page is rendered offline, segmented, mapped onto its main text and filtered; the kept
segments' main text, concatenated in reading order, is the prediction. Trafilatura alone (default
settings, on the file's HTML as a user would feed it) is the comparison row. The metric follows the
benchmark's ``evaluate.py`` as its README describes: case-sensitive ``\\w+`` tokens, multisets of
4-token shingles, per-page normalised tp/fp/fn, macro precision and recall, F1 of the two means.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections import Counter
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ..executor import InProcessExecutor
from ..files import check_output_folder, write_text_atomic
from ..model import PageCapture
from .article_data import (
    Score,
    load_benchmark,
    page_counts,
    read_html,
    score_predictions,
    shingles,
    without_scripts,
)

__all__ = ["Score", "shingles", "page_counts", "score_predictions", "load_benchmark",
           "cached_captures", "page_steps", "predict_page", "run_article_benchmark",
           "write_json_atomic"]

def cached_captures(files: dict[str, Path], cache: Path, *, progress: bool = True,
                    ) -> Iterator[tuple[str, PageCapture | None, str]]:
    """Render each page once (offline, one browser, scripts removed) and cache it; yield
    (id, capture, error)."""
    from ..capture import Browser, discard_screenshot
    from ..errors import CaptureError

    browser: Browser | None = None
    staging = Path(tempfile.mkdtemp(prefix="wps-articles-"))
    try:
        for key, path in _progress(files.items(), progress, "render"):
            folder = cache / key
            if (folder / "capture.json").is_file():
                yield key, PageCapture.load(folder), ""
                continue
            if browser is None:
                browser = Browser(restart_every=40)
                browser.start()
            page_file = staging / f"{key}.html"
            page_file.write_text(without_scripts(read_html(path)), encoding="utf-8")
            try:
                capture = browser.capture(page_file)
            except CaptureError as err:
                yield key, None, str(err)
                continue
            finally:
                page_file.unlink(missing_ok=True)
            capture.page_id = key
            shot = capture.screenshot
            capture.save(folder)
            discard_screenshot(shot)
            yield key, capture, ""
    finally:
        if browser is not None:
            browser.close()
        shutil.rmtree(staging, ignore_errors=True)


@dataclass(slots=True)
class PagePrediction:
    text: str
    seconds_text: float
    segments: int
    kept: int
    reasons: Counter[str] = field(default_factory=Counter)
    main_text: str = ""
    """The extractor's whole main text on the rendered DOM (no segments, no filters)."""


def page_steps(segmenter_name: str, config: dict[str, Any]) -> list[Any]:
    """The steps ``wps segment`` runs on a page with ``config`` (``--profile article``:
    segmentation, posts, main text, filters, language), built once for every page."""
    from ..pipeline import PipelineOptions, build_steps

    return build_steps(PipelineOptions(segmenter=segmenter_name, config=config))


def predict_page(capture: PageCapture, steps: list[Any]) -> PagePrediction:
    """Run ``steps`` (:func:`page_steps`) on the page; the kept main text in reading order."""
    from ..filters.base import count_outcomes
    from ..steps import PageState, run_steps

    page = PageState(capture)
    run_steps(steps[:1], page)  # segmentation: not counted as the text steps' time
    started = time.perf_counter()
    run_steps(steps[1:], page)
    seconds = time.perf_counter() - started
    assert page.text is not None and page.segmentation is not None
    segments = page.segmentation.segments
    kept = sum(segment.kept for segment in segments)
    return PagePrediction(page.text.kept_text, seconds, len(segments), kept,
                          count_outcomes(segments), page.text.report.main_text.text)


def write_json_atomic(path: Path, data: Any) -> None:
    write_text_atomic(path, json.dumps(data, ensure_ascii=False, indent=1))


def _progress(items: Any, enabled: bool, label: str) -> Any:
    if not enabled:
        return items
    from tqdm import tqdm

    return tqdm(list(items), desc=label, unit="page")


EXTRA_ROWS = {
    "trafilatura_no_comments": "trafilatura.extract(file HTML, include_comments=False)",
    "trafilatura_precision_no_comments": "trafilatura.extract(file HTML, include_comments=False, "
                                         "favor_precision=True)",
    "extractor_on_render": "wps's extractor settings on the rendered DOM, before segments/filters",
}


def run_article_benchmark(data: str | Path, out: str | Path, *, cache: str | Path,
                          segmenter_name: str = "dom-cohesion",
                          config: dict[str, Any] | None = None,
                          progress: bool = True, folds: int = 0,
                          seed: int | None = None) -> dict[str, Any]:
    """Score wps and trafilatura on every page; write summary, predictions and a table to ``out``.

    Besides the two required rows, the summary holds rows that locate the gains: trafilatura
    without comments (default and ``favor_precision``) on the same file, and wps's extractor on
    the rendered DOM before segmentation and filters. With ``folds`` (the ``article`` extractor),
    the pages are dealt into that many folds and each page is judged by a block model fitted on
    the other folds' pages only (:mod:`wps.benchmark.article_training`): the wps rows are
    held-out figures.
    """
    import trafilatura

    from ..config import load_config

    config = config or load_config()
    out = check_output_folder(out)  # an impossible --out fails before minutes of rendering
    truth, files = load_benchmark(data)
    steps = page_steps(segmenter_name, config)
    rows: dict[str, dict[str, dict[str, str]]] = {
        name: {} for name in ("wps", "trafilatura", *EXTRA_ROWS)}
    timings: list[float] = []
    failures: dict[str, str] = {}
    reasons: Counter[str] = Counter()
    fold_models, fold_of, held_out = _fold_models(data, Path(cache), truth, config, folds, seed)
    def predict(item: tuple[str, PageCapture | None, str],
                ) -> tuple[str, PagePrediction | None, str]:
        key, capture, error = item
        if capture is None:
            return key, None, error
        model = fold_models[fold_of[key]] if fold_models else None
        with _block_model(model):
            return key, predict_page(capture, steps), ""

    pages = cached_captures(files, Path(cache), progress=progress)
    for key, prediction, error in InProcessExecutor().run(pages, predict):
        html = read_html(files[key])
        rows["trafilatura"][key] = {"articleBody": trafilatura.extract(html) or ""}
        rows["trafilatura_no_comments"][key] = {
            "articleBody": trafilatura.extract(html, include_comments=False) or ""}
        rows["trafilatura_precision_no_comments"][key] = {
            "articleBody": trafilatura.extract(html, include_comments=False,
                                               favor_precision=True) or ""}
        if prediction is None:
            failures[key] = error
            rows["wps"][key] = rows["extractor_on_render"][key] = {"articleBody": ""}
            continue
        rows["wps"][key] = {"articleBody": prediction.text}
        rows["extractor_on_render"][key] = {"articleBody": prediction.main_text}
        timings.append(prediction.seconds_text)
        reasons.update(prediction.reasons)
    timings.sort()
    summary: dict[str, Any] = {name: score_predictions(truth, predictions).to_json()
                               for name, predictions in rows.items()}
    summary["setup"] = {
        "segmenter": segmenter_name,
        "profile": config.get("profile"),
        "config": {key: config[key] for key in ("extract", "text", "filters", "decide")
                   if key in config},
        "trafilatura_input": "the page file's HTML (html/<id>.html.gz), trafilatura.extract "
                             "with default settings",
        "wps_input": "the DOM Chromium rendered offline from the file with its scripts removed "
                     "(the benchmark saved pages with JavaScript disabled)",
        "extra_rows": EXTRA_ROWS,
        "render_failures": failures,
        "text_stage_median_ms": round(1000 * timings[len(timings) // 2], 2) if timings else None,
        "segment_counts": dict(reasons),
    }
    if held_out:
        held_out["per_fold"] = [
            {"fold": number, **score_predictions(
                {key: truth[key] for key in sorted(truth) if fold_of[key] == number},
                rows["wps"]).to_json()} for number in range(folds)]
        summary["held_out"] = held_out
    write_json_atomic(out / "predictions-wps.json", rows["wps"])
    write_json_atomic(out / "predictions-trafilatura.json", rows["trafilatura"])
    write_json_atomic(out / "predictions-trafilatura-no-comments.json",
                      rows["trafilatura_no_comments"])
    write_json_atomic(out / "summary.json", summary)
    write_text_atomic(out / "summary.md", markdown_table(summary))
    return summary


def _block_model(model: Any) -> AbstractContextManager[Any]:
    """The fold's block model in use while a page is judged (none: the packaged one)."""
    if model is None:
        return nullcontext()
    from ..article_body.model import using_block_model

    return using_block_model(model)


def _fold_models(data: str | Path, cache: Path, truth: dict[str, Any], config: dict[str, Any],
                 folds: int, seed: int | None) -> tuple[list[Any], dict[str, int], dict[str, Any]]:
    """One block model per fold, fitted without that fold's pages; each page's fold."""
    if folds < 2:
        return [], {}, {}
    if config.get("extract", {}).get("extractor") != "article":
        from ..errors import UsageError

        raise UsageError("--folds needs the article extractor (profile article): only its "
                         "block model is fitted on benchmark pages")
    from .article_training import SEED, fit_block_model, page_rows, split

    seed = SEED if seed is None else seed
    pages = page_rows(data, cache, None)
    models, fold_of = [], {}
    for number, (train, test) in enumerate(split(sorted(truth), folds, seed)):
        models.append(fit_block_model(pages, train))
        fold_of.update({key: number for key in test})
    return models, fold_of, {"folds": folds, "seed": seed,
                             "note": "wps rows: each page judged by a block model fitted on the "
                                     "other folds' pages only"}


def markdown_table(summary: dict[str, Any]) -> str:
    lines = ["| system | pages | precision | recall | F1 | accuracy |", "|---|---|---|---|---|---|"]
    held_out = summary.get("held_out")
    for name in ("wps", "trafilatura", *EXTRA_ROWS):
        if name not in summary:
            continue
        row = summary[name]
        label = f"{name} (held-out, {held_out['folds']} folds)" \
            if held_out and name in ("wps", "extractor_on_render") else name
        lines.append(f"| {label} | {row['pages']} | {row['precision']:.4f} | {row['recall']:.4f} | "
                     f"{row['f1']:.4f} | {row['accuracy']:.4f} |")
    return "\n".join(lines) + "\n"
