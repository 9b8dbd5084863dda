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
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..errors import InputFileError, WpsError
from ..files import read_text, write_text_atomic
from ..jsonsafe import jsonl_record, load_json_text
from .folders import is_page_folder, read_main_text, read_page_facts, read_records
from .page import REPORT_FILE, asset, decision_mark, page_report_html, page_verdict_html

DONE_FOLDER = ".done"
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
    def verdict(self) -> bool | None:
        value = (self.main_text or {}).get("page_kept")
        return value if isinstance(value, bool) else None


def is_batch_folder(folder: Path) -> bool:
    return ((folder / SUMMARY_FILE).is_file() or (folder / DONE_FOLDER).is_dir()
            or (folder / FAILURES_FILE).is_file())


def write_batch_report(folder: str | Path, rebuild_pages: bool = False) -> Path:
    """Write ``folder/report.html``; each page's own report is built where it is missing (with
    ``rebuild_pages``, built again everywhere)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputFileError(f"{folder}: no such folder")
    if not is_batch_folder(folder):
        raise InputFileError(f"{folder}: not a wps batch output folder (no {SUMMARY_FILE}, "
                             f"{DONE_FOLDER}/ or {FAILURES_FILE})")
    rows = read_batch_rows(folder, rebuild_pages)
    return write_text_atomic(folder / REPORT_FILE,
                             batch_report_html(folder.name, rows, _summary(folder)))


def read_batch_rows(folder: Path, rebuild_pages: bool = False) -> list[PageRow]:
    """A row per page folder, then one per failed page that has none."""
    rows = [_page_row(child, folder / DONE_FOLDER, rebuild_pages)
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


def _page_row(folder: Path, done_dir: Path, rebuild: bool) -> PageRow:
    row = PageRow(folder.name)
    marker = _json_or_empty(done_dir / folder.name)
    row.url = str(marker.get("url") or "")
    seconds = marker.get("seconds")
    row.seconds = float(seconds) if isinstance(seconds, (int, float)) else None
    try:
        records = read_records(folder)
        row.main_text = read_main_text(folder)
        if rebuild or not (folder / REPORT_FILE).is_file():
            write_text_atomic(folder / REPORT_FILE, page_report_html(
                read_page_facts(folder), records, row.main_text))
    except WpsError as err:
        row.failure = f"output not readable: {err}"
        row.has_report = (folder / REPORT_FILE).is_file()
        return row
    row.has_report = True
    if not row.url and records:
        row.url = str(records[0].get("url") or "")
    for record in records:
        text = record.get("text", "")
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


def batch_report_html(name: str, rows: list[PageRow], summary: dict[str, Any]) -> str:
    """The report of a batch as one HTML document."""
    reasons: Counter[str] = Counter()
    for row in rows:
        reasons.update(row.drop_reasons)
    title = f"Batch {name}: {len(rows)} pages"
    parts = [
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
        ("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"),
        f"<title>{escape(title)}</title>\n<style>\n{asset('report.css')}</style>\n",
        "</head>\n<body class=\"batch-report\">\n",
        f"<header class=\"top\"><h1>{escape(title)}</h1>{_run_facts(rows, summary)}</header>\n",
        "<main class=\"batch\">\n",
        _chart(reasons),
        _table(rows),
        "</main>\n",
        f"<script>\n{asset('batch.js')}</script>\n</body>\n</html>\n",
    ]
    return "".join(parts)


def _run_facts(rows: list[PageRow], summary: dict[str, Any]) -> str:
    failed = sum(bool(row.failure) for row in rows)
    facts = [("Pages", f"{len(rows)}: {len(rows) - failed} with output, {failed} failed")]
    if summary:
        line = ", ".join(f"{key} {escape(str(summary[key]))}"
                         for key in ("total", "done", "skipped", "failed") if key in summary)
        seconds = summary.get("seconds")
        if isinstance(seconds, (int, float)):
            line += f", {seconds:.1f} s"
        facts.append(("Last run", line))
    cells = "".join(f"<dt>{label}</dt><dd>{value}</dd>" for label, value in facts)
    return f"<dl class=\"facts\">{cells}</dl>"


def _chart(reasons: Counter[str]) -> str:
    """Horizontal bars, one per drop reason, each labelled with its name and count."""
    heading = ("<h2 id=\"reasons-title\">Drop reasons</h2><p>Dropped segments per reason, over "
               "all pages (a segment dropped for several reasons counts for each).</p>")
    if not reasons:
        return f"<section class=\"reasons\">{heading}<p>No segment was dropped.</p></section>\n"
    ordered = reasons.most_common()
    most = ordered[0][1]
    bar_room = CHART_WIDTH - CHART_LABEL_WIDTH - 60
    bars = []
    for row, (reason, count) in enumerate(ordered):
        y = row * CHART_ROW_HEIGHT
        width = max(1, round(bar_room * count / most))
        bars.append(
            f"<g data-reason=\"{escape(reason)}\" data-count=\"{count}\">"
            f"<text x=\"{CHART_LABEL_WIDTH - 6}\" y=\"{y + 15}\" text-anchor=\"end\">"
            f"{escape(reason)}</text>"
            f"<rect x=\"{CHART_LABEL_WIDTH}\" y=\"{y + 3}\" width=\"{width}\" height=\"16\">"
            f"<title>{escape(reason)}: {count}</title></rect>"
            f"<text x=\"{CHART_LABEL_WIDTH + width + 6}\" y=\"{y + 15}\">{count}</text></g>")
    height = len(ordered) * CHART_ROW_HEIGHT
    return (f"<section class=\"reasons\">{heading}<svg class=\"chart\" role=\"img\" "
            f"aria-labelledby=\"reasons-title\" width=\"{CHART_WIDTH}\" height=\"{height}\" "
            f"viewBox=\"0 0 {CHART_WIDTH} {height}\">{''.join(bars)}</svg></section>\n")


COLUMNS = (("page", "Page", "text"), ("kept", "Kept segments", "num"),
           ("dropped", "Dropped segments", "num"), ("kept-chars", "Kept characters", "num"),
           ("dropped-chars", "Dropped characters", "num"), ("verdict", "Page verdict", "text"),
           ("seconds", "Time (s)", "num"), ("failure", "Failure", "text"))


def _table(rows: list[PageRow]) -> str:
    head = "".join(
        f"<th scope=\"col\" data-type=\"{kind}\" class=\"{'n' if kind == 'num' else ''}\" "
        f"aria-sort=\"none\"><button type=\"button\">{label}</button></th>"
        for _, label, kind in COLUMNS)
    body = "".join(_row(row) for row in rows)
    with_output = [row for row in rows if row.has_report]
    seconds = [row.seconds for row in rows if row.seconds is not None]
    verdicts = Counter(row.verdict for row in rows if row.verdict is not None)
    failed = sum(bool(row.failure) for row in rows)
    totals = [
        f"Total: {len(rows)} pages",
        str(sum(row.kept for row in with_output)),
        str(sum(row.dropped for row in with_output)),
        f"{sum(row.kept_chars for row in with_output):,}",
        f"{sum(row.dropped_chars for row in with_output):,}",
        f"{verdicts[True]} kept, {verdicts[False]} dropped",
        f"{sum(seconds):.1f}" if seconds else "",
        f"{failed} failed",
    ]
    foot = "".join(f"<td class=\"{'n' if kind == 'num' else ''}\">{value}</td>"
                   for value, (_, _, kind) in zip(totals, COLUMNS))
    return ("<section><h2>Pages</h2><p>Click a column heading to sort by it.</p>"
            f"<table id=\"pages\"><thead><tr>{head}</tr></thead><tbody>{body}</tbody>"
            f"<tfoot><tr>{foot}</tr></tfoot></table></section>\n")


def _row(row: PageRow) -> str:
    url = escape(row.url or row.key or "unknown page")
    if row.has_report:
        page = (f"<a href=\"{escape(quote(row.key))}/{REPORT_FILE}\">{escape(row.key)}</a>"
                f"<div class=\"url\">{url}</div>")
    else:
        page = f"<div class=\"url\">{url}</div>"
    counted = row.has_report and not row.failure.startswith("output not readable")
    verdict_sort = {True: "kept", False: "dropped", None: ""}[row.verdict]
    cells = [
        (row.url or row.key, page),
        _number(row.kept, counted), _number(row.dropped, counted),
        _number(row.kept_chars, counted), _number(row.dropped_chars, counted),
        (verdict_sort, page_verdict_html(row.main_text) if counted else ""),
        (f"{row.seconds:.3f}" if row.seconds is not None else "",
         f"{row.seconds:.2f}" if row.seconds is not None else ""),
        (row.failure, f"{decision_mark(False)} {escape(row.failure)}" if row.failure else ""),
    ]
    tds = "".join(
        f"<td class=\"{'n' if kind == 'num' else ''}\" data-value=\"{escape(value)}\">{shown}</td>"
        for (value, shown), (_, _, kind) in zip(cells, COLUMNS))
    state = " class=\"failed\"" if row.failure else ""
    return f"<tr data-page-id=\"{escape(row.key)}\"{state}>{tds}</tr>"


def _number(value: int, counted: bool) -> tuple[str, str]:
    return (str(value), f"{value:,}") if counted else ("", "")

