"""``DIR/report.html`` of a ``wps batch`` folder: one sortable row per page (segments and
characters kept and dropped, the page verdict, time, failure cause) linking to the page's own
report, totals, and the distribution of drop reasons as a small inline SVG chart.

The folder is read as it is, never trusted to be complete: a page folder that cannot be read,
a failed page without a folder, a missing or odd marker or failures line each become what the
row shows, not an error.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..completions import DONE_FOLDER
from ..errors import InputFileError, WpsError
from ..files import read_text, write_text_atomic
from ..jsonsafe import jsonl_record, load_json_text
from .folders import is_page_folder, read_main_text, read_page_facts, read_records
from .page import REPORT_FILE, page_report_html, page_verdict
from .render import render

FAILURES_FILE = "failures.jsonl"
SUMMARY_FILE = "summary.json"
"""The batch folder's files, as :mod:`wps.runner.batch` writes them (it calls this module when
a run ends, so this module cannot import it; a test checks that the names agree)."""
CHART_WIDTH, CHART_LABEL_WIDTH, CHART_ROW_HEIGHT = 640, 200, 22


@dataclass(slots=True)
class PageRow:
    """One page of a batch as its row shows it."""

    key: str
    """The page's folder name; empty for a failed page that has no folder."""
    url: str = ""
    segments: int = 0
    kept: int = 0
    kept_chars: int = 0
    dropped_chars: int = 0
    main_text: dict[str, Any] | None = None
    seconds: float | None = None
    failure: str = ""
    has_report: bool = False
    drop_reasons: Counter[str] = field(default_factory=Counter)

    @property
    def dropped(self) -> int:
        return self.segments - self.kept

    @property
    def units(self) -> int:
        """The detector units of the page (``main-text.json``; 0 where it names none)."""
        units = (self.main_text or {}).get("units")
        return len(units) if isinstance(units, list) else 0

    @property
    def verdict(self) -> bool | None:
        value = (self.main_text or {}).get("page_kept")
        return value if isinstance(value, bool) else None


def is_batch_folder(folder: Path) -> bool:
    return ((folder / SUMMARY_FILE).is_file() or (folder / DONE_FOLDER).is_dir()
            or (folder / FAILURES_FILE).is_file())


def write_batch_report(folder: str | Path, rebuild_pages: bool = False,
                       embed_screenshot: bool = False, page_reports: bool = True) -> Path:
    """Write ``folder/report.html``; each page's own report is built where it is missing (with
    ``rebuild_pages``, built again everywhere, with ``embed_screenshot`` holding the page's
    saved screenshot; with ``page_reports=False``, as ``wps batch`` without ``--reports``
    calls it, none is built and only the pages that have one are linked)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputFileError(f"{folder}: no such folder")
    if not is_batch_folder(folder):
        raise InputFileError(f"{folder}: not a wps batch output folder (no {SUMMARY_FILE}, "
                             f"{DONE_FOLDER}/ or {FAILURES_FILE})")
    rows = read_batch_rows(folder, rebuild_pages, embed_screenshot, page_reports)
    return write_text_atomic(folder / REPORT_FILE,
                             batch_report_html(folder.name, rows, _summary(folder)))


def read_batch_rows(folder: Path, rebuild_pages: bool = False,
                    embed_screenshot: bool = False, page_reports: bool = True) -> list[PageRow]:
    """A row per page folder, then one per failed page that has none."""
    rows = [_page_row(child, folder / DONE_FOLDER, rebuild_pages, embed_screenshot, page_reports)
            for child in sorted(folder.iterdir())
            if not child.name.startswith(".") and child.is_dir() and is_page_folder(child)]
    by_url = {row.url: row for row in rows if row.url}
    for failure in _failures(folder / FAILURES_FILE):
        url = str(failure.get("url", ""))
        cause = _cause(failure)
        if url in by_url:  # failed this time; its folder is an earlier run's
            by_url[url].failure = cause
        else:
            rows.append(PageRow(key="", url=url, failure=cause))
    return rows


def _page_row(folder: Path, done_dir: Path, rebuild: bool, embed_screenshot: bool,
              page_reports: bool = True) -> PageRow:
    row = PageRow(folder.name)
    marker = _json_or_empty(done_dir / folder.name)
    row.url = str(marker.get("url") or "")
    seconds = marker.get("seconds")
    row.seconds = float(seconds) if isinstance(seconds, (int, float)) else None
    try:
        records = read_records(folder)
        row.main_text = read_main_text(folder)
        if page_reports and (rebuild or not (folder / REPORT_FILE).is_file()):
            write_text_atomic(folder / REPORT_FILE, page_report_html(
                read_page_facts(folder, embed_screenshot), records, row.main_text))
    except WpsError as err:
        row.failure = f"output not readable: {err}"
        row.has_report = (folder / REPORT_FILE).is_file()
        return row
    row.has_report = (folder / REPORT_FILE).is_file()
    if not row.url and records:
        row.url = str(records[0].get("url") or "")
    for record in records:
        text = record.get("text", record.get("main_text", ""))  # a slim line has main_text
        chars = len(text) if isinstance(text, str) else 0
        row.segments += 1
        if record.get("kept", True) is not False:
            row.kept += 1
            row.kept_chars += chars
        else:
            row.dropped_chars += chars
            row.drop_reasons.update(str(reason) for reason in record.get("reasons", ()))
    return row


def _failures(path: Path) -> list[dict[str, Any]]:
    """The lines of ``failures.jsonl`` that are JSON objects; others are passed over."""
    try:
        lines = read_text(path, "file").splitlines()
    except WpsError:
        return []
    failures = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            try:
                failures.append(jsonl_record(line, f"{path}:{number}"))
            except WpsError:
                continue
    return failures


def _cause(failure: dict[str, Any]) -> str:
    error, message, code = failure.get("error"), failure.get("message"), failure.get("exit_code")
    head = str(error or "failed") + (f" (exit {code})" if isinstance(code, int) else "")
    return f"{head}: {message}" if message else head


def _json_or_empty(path: Path) -> dict[str, Any]:
    try:
        value = load_json_text(read_text(path, "file"), str(path))
    except WpsError:
        return {}
    return value if isinstance(value, dict) else {}


def _summary(folder: Path) -> dict[str, Any]:
    return _json_or_empty(folder / SUMMARY_FILE)


BATCH_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"


def batch_report_html(name: str, rows: list[PageRow], summary: dict[str, Any]) -> str:
    """The report of a batch as one HTML document."""
    reasons: Counter[str] = Counter()
    for row in rows:
        reasons.update(row.drop_reasons)
    return render("batch.html", csp=BATCH_CSP, title=f"Batch {name}: {len(rows)} pages",
                  facts=_run_facts(rows, summary), chart=_chart(reasons), columns=COLUMNS,
                  rows=[_row(row) for row in rows], totals=list(zip(_totals(rows), COLUMNS)))


def _run_facts(rows: list[PageRow], summary: dict[str, Any]) -> list[tuple[str, str]]:
    failed = sum(bool(row.failure) for row in rows)
    facts = [("Pages", f"{len(rows)}: {len(rows) - failed} with output, {failed} failed")]
    if summary:
        line = ", ".join(f"{key} {summary[key]}"
                         for key in ("total", "done", "skipped", "failed") if key in summary)
        seconds = summary.get("seconds")
        if isinstance(seconds, (int, float)):
            line += f", {seconds:.1f} s"
        facts.append(("Last run", line))
        stages, done = summary.get("stage_seconds"), summary.get("done")
        if isinstance(stages, dict) and stages and isinstance(done, int) and done > 0:
            facts.append(("Seconds per page by stage", ", ".join(
                f"{str(stage).removesuffix('_s')} {value / done:.2f}"
                for stage, value in stages.items() if isinstance(value, (int, float)))))
    return facts


def _chart(reasons: Counter[str]) -> dict[str, Any]:
    """Horizontal bars, one per drop reason, each labelled with its name and count."""
    ordered = reasons.most_common()
    most = ordered[0][1] if ordered else 1
    bar_room = CHART_WIDTH - CHART_LABEL_WIDTH - 60
    bars = [{"reason": reason, "count": count, "y": row * CHART_ROW_HEIGHT,
             "width": max(1, round(bar_room * count / most))}
            for row, (reason, count) in enumerate(ordered)]
    return {"bars": bars, "width": CHART_WIDTH, "label_width": CHART_LABEL_WIDTH,
            "height": len(ordered) * CHART_ROW_HEIGHT}


COLUMNS = (("page", "Page", "text"), ("kept", "Kept segments", "num"),
           ("units", "Detector units", "num"), ("dropped", "Dropped segments", "num"),
           ("kept-chars", "Kept characters", "num"), ("dropped-chars", "Dropped characters", "num"),
           ("verdict", "Page verdict", "text"), ("seconds", "Time (s)", "num"),
           ("failure", "Failure", "text"))


def _totals(rows: list[PageRow]) -> list[str]:
    with_output = [row for row in rows if row.has_report]
    seconds = [row.seconds for row in rows if row.seconds is not None]
    verdicts = Counter(row.verdict for row in rows if row.verdict is not None)
    failed = sum(bool(row.failure) for row in rows)
    return [
        f"Total: {len(rows)} pages",
        str(sum(row.kept for row in with_output)),
        str(sum(row.units for row in with_output)),
        str(sum(row.dropped for row in with_output)),
        f"{sum(row.kept_chars for row in with_output):,}",
        f"{sum(row.dropped_chars for row in with_output):,}",
        f"{verdicts[True]} kept, {verdicts[False]} dropped",
        f"{sum(seconds):.1f}" if seconds else "",
        f"{failed} failed",
    ]


def _row(row: PageRow) -> dict[str, Any]:
    """A table row: each cell's sort value and what it shows (the template draws the page
    link, the verdict and the failure)."""
    counted = row.has_report and not row.failure.startswith("output not readable")
    verdict_sort = {True: "kept", False: "dropped", None: ""}[row.verdict]
    values = [
        (row.url or row.key, ""),
        *(_number(value, counted)
          for value in (row.kept, row.units, row.dropped, row.kept_chars, row.dropped_chars)),
        (verdict_sort, ""),
        (f"{row.seconds:.3f}" if row.seconds is not None else "",
         f"{row.seconds:.2f}" if row.seconds is not None else ""),
        (row.failure, ""),
    ]
    return {"key": row.key, "url": row.url or row.key or "unknown page",
            "report": f"{quote(row.key)}/{REPORT_FILE}" if row.has_report else "",
            "failure": row.failure, "counted": counted, "verdict": page_verdict(row.main_text),
            "cells": [{"name": name, "numeric": kind == "num", "value": value, "shown": shown}
                      for (value, shown), (name, _, kind) in zip(values, COLUMNS)]}


def _number(value: int, counted: bool) -> tuple[str, str]:
    return (str(value), f"{value:,}") if counted else ("", "")
