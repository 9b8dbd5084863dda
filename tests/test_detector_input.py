"""The detector's input in one call (PageResult.detector_input), the slim lines of --fields
detector, one segment id across lines and report, and the language of kept segments (--lang)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from warc_pages import ENGLISH, GERMAN

import wps
from wps.capture import CaptureOptions
from wps.cli import main
from wps.errors import UsageError
from wps.lang import LANG_REASON, parse_languages
from wps.model import PageCapture
from wps.pipeline import PipelineOptions
from wps.records import DETECTOR_FIELDS, DetectorInput, detector_record, segment_records

FORUM = Path(__file__).resolve().parent.parent / "datasets" / "examples" / "forum.html"
FAST = CaptureOptions(settle_s=0, scroll_max_steps=1, scroll_pause_s=0.05, timeout_s=30,
                      screenshot=False)
CLI_FAST = ["--settle", "0", "--scroll-steps", "1", "--timeout", "30", "--no-screenshot"]


@pytest.mark.browser
def test_detector_input_is_the_kept_slim_lines_under_one_id(tmp_path):
    out = tmp_path / "forum"
    assert main(["segment", str(FORUM), "--out", str(out), "--fields", "detector",
                 *CLI_FAST]) == 0
    slim = [json.loads(line) for line in (out / "segments.jsonl").read_text().splitlines()]
    assert slim and all(tuple(line) == DETECTOR_FIELDS for line in slim)

    result = wps.segment(PageCapture.load(out / "capture"))  # the same page, no browser
    items = result.detector_input()
    assert items and all(isinstance(item, DetectorInput) and item.kept for item in items)
    assert [item.to_json() for item in items] == [line for line in slim if line["kept"]]
    assert all(item.kind and item.lang == "en" and item.prose_score is not None
               for item in items)
    units = result.detector_units()  # each post of the thread is judged on its own
    assert [unit.ids for unit in units] == [(item.id,) for item in items]
    assert [unit.unit for unit in units] == [f"post-{n}" for n in range(1, len(items) + 1)]
    assert [unit.text for unit in units] == [item.main_text for item in items]

    full = segment_records(result.capture, result.segmentation)
    assert [line["id"] for line in slim] == [record["segment_id"] for record in full]
    for record, line in zip(full, slim):
        assert line["id"] == f"{record['doc_id']}:{record['order']:04d}"
        text = record["main_text"] if record["main_text"].strip() else record["text"]
        assert line["main_text"] == text
        assert detector_record(record) == detector_record(line) == line  # full or slim: same
    report = (out / "report.html").read_text(encoding="utf-8")
    for line in slim:  # the report knows each segment by the same id
        assert json.dumps(line["id"]) in report


@pytest.mark.browser
def test_lang_names_each_kept_segment_and_drops_other_languages():
    html = (f"<!doctype html><title>Bibliothek / Library</title><main>"
            f"<section><h2>Library hours</h2><p>{ENGLISH}</p><p>{ENGLISH}</p></section>"
            f"<section style='margin-top:80px'><h2>Öffnungszeiten</h2><p>{GERMAN}</p>"
            f"<p>{GERMAN}</p></section></main>")
    both = wps.segment(html=html, url="http://127.0.0.1/mixed", capture_options=FAST)
    assert {item.lang for item in both.detector_input()} == {"en", "de"}
    assert LANG_REASON not in both.counts.elements()

    english = wps.segment(both.capture, languages=("en",))  # same capture, other options
    assert {item.lang for item in english.detector_input()} == {"en"}
    dropped = [s for s in english.segmentation.segments if LANG_REASON in s.reasons]
    assert dropped and all(s.lang == "de" and not s.kept for s in dropped)
    assert english.counts[f"dropped_{LANG_REASON}"] == len(dropped)
    full = segment_records(english.capture, english.segmentation)
    assert all(record["lang"] == "de" for record in full if LANG_REASON in record["reasons"])


def test_language_codes_are_checked_before_any_page(capsys):
    assert parse_languages(" EN,de ,en") == ("de", "en")
    with pytest.raises(UsageError, match="unknown language code"):
        parse_languages("en,xx")
    with pytest.raises(UsageError, match="no language code"):
        parse_languages(" , ")
    with pytest.raises(UsageError, match="--no-text"):
        PipelineOptions(languages=("en",), text=False)
    with pytest.raises(UsageError, match="fields"):
        PipelineOptions(fields="xml")
    assert main(["segment", "http://127.0.0.1:9/never", "--format", "json", "--lang", "en,xx"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("wps: error: --lang") and "\n" not in error


def test_a_slim_line_given_to_a_step_that_reads_full_lines_is_named(tmp_path):
    """wps filter, dedup and binoculars read full lines; a slim file is refused by name, with
    its line, not as a line that merely lacks 'text'."""
    from wps.cli import main as cli
    from wps.errors import InputFileError
    from wps.records import read_segment_lines

    full = {"doc_id": "d", "url": "http://127.0.0.1/a", "segment_id": "d:0000", "id": "0",
            "order": 0, "bbox": [0, 0, 10, 10], "text": "Some words here.",
            "main_text": "Some words here.", "kept": True, "reasons": [], "stats": {},
            "kind": "article", "lang": "en"}
    slim = tmp_path / "slim.jsonl"
    slim.write_text(json.dumps(detector_record(full)) + "\n", encoding="utf-8")
    with pytest.raises(InputFileError, match=r"slim\.jsonl:1: a slim line .*--fields detector"):
        list(read_segment_lines(slim))
    assert cli(["filter", str(slim), "--out", str(tmp_path / "out.jsonl")]) == \
        InputFileError.exit_code
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.browser
def test_prose_outside_an_article_is_judged_alone():
    """On a page that is not an article (a front page of link lists with two blurbs of prose),
    each kept segment is a unit of its own: two writers' blurbs are never judged as one text."""
    links = "".join(f"<li><a href='/s{n}'>Story number {n} of the day</a></li>"
                    for n in range(600))
    html = (f"<!doctype html><title>Front page</title><nav><ul>{links}</ul></nav><main>"
            f"<section><h2>From the editor</h2><p>{ENGLISH}</p><p>{ENGLISH}</p></section>"
            f"<section style='margin-top:80px'><h2>Letters</h2><p>{GERMAN}</p>"
            f"<p>{GERMAN}</p></section></main><footer><ul>{links}</ul></footer>")
    result = wps.segment(html=html, url="http://127.0.0.1/front", capture_options=FAST)
    assert result.verdict is not None and not result.verdict.is_article
    items = result.detector_input()
    assert len(items) >= 2
    assert [item.unit for item in items] == [f"prose-{n}" for n in range(1, len(items) + 1)]
    assert len(result.detector_units()) == len(items)
