"""A page given as HTML text: ``wps.segment(html=..., url=...)`` and ``wps segment -`` (stdin).

Rendered offline like a local file and recorded under the given URL; text that is HTML, or a
name no file system holds, passed where a path goes is a one-line error, never a raw OSError.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import wps
from wps.capture.sources import page_id_for
from wps.errors import InputFileError, UsageError

PROSE = ("The river was high after a week of rain, and the ferry waited on the far bank until "
         "the water had settled enough for the crossing.")
PAGE = f"<!DOCTYPE html><html><head><title>Ferry</title></head><body><p>{PROSE}</p></body></html>"


@pytest.fixture(scope="module")
def browser():
    from wps.capture import Browser, CaptureOptions

    with Browser(CaptureOptions(settle_s=0.0, scroll_max_steps=2, timeout_s=15.0)) as shared:
        yield shared


def test_html_text_is_segmented_under_its_url(browser):
    url = "https://ferries.example/news/1"
    result = wps.segment(html=PAGE, url=url, browser=browser)
    assert (result.capture.url, result.capture.final_url) == (url, url)
    assert result.capture.page_id == page_id_for(url)
    assert result.capture.title == "Ferry"
    assert [s.main_text for s in result.segmentation.segments if s.kept] == [PROSE]


def test_html_bytes_keep_their_declared_charset_and_text_is_utf8(browser):
    word = "Fähre über den Fluß"
    latin = (f'<html><head><meta charset="iso-8859-1"></head><body><p>{word}</p></body></html>'
             ).encode("iso-8859-1")
    assert word in wps.segment(html=latin, browser=browser, text=False).capture.html
    as_text = f"<html><body><p>{word} — ✓</p></body></html>"  # no charset named: UTF-8
    assert f"{word} — ✓" in wps.segment(html=as_text, browser=browser, text=False).capture.html


def test_pages_without_a_url_get_ids_of_their_own(browser):
    first = wps.segment(html="<p>one page</p>", browser=browser, text=False).capture
    second = wps.segment(html="<p>another page</p>", browser=browser, text=False).capture
    assert first.url == "" and first.page_id != second.page_id


@pytest.mark.parametrize("source, error, words", [
    ("<html><body><p>" + "x" * 300, UsageError, "looks like HTML"),
    ("x" * 5000, InputFileError, "cannot be read"),
    ("a\0b", InputFileError, "cannot be read"),
])
def test_text_where_a_path_goes_is_a_one_line_error(source, error, words):
    with pytest.raises(error) as caught:
        wps.segment(source)
    assert words in str(caught.value) and "\n" not in str(caught.value)
    assert "\0" not in str(caught.value)


@pytest.mark.parametrize("kwargs", [{"html": PAGE, "source": "page.html"}, {},
                                    {"source": "page.html", "url": "https://a.example/"}])
def test_source_and_html_name_exactly_one_page(kwargs):
    with pytest.raises(UsageError):
        wps.segment(**kwargs)


@pytest.mark.browser
def test_cli_reads_the_page_from_stdin(tmp_path):
    url = "https://ferries.example/news/2"
    done = subprocess.run([sys.executable, "-m", "wps", "segment", "-", "--url", url,
                           "--format", "json", "--settle", "0"], input=PAGE.encode(),
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    page = json.loads(done.stdout)
    assert page["url"] == url
    assert [s["main_text"] for s in page["segments"] if s["kept"]] == [PROSE]


@pytest.mark.parametrize("argv, stdin, words", [
    (["segment", "-", "--out", "o"], b"  \n", "stdin held no HTML"),
    (["segment", "page.html", "--url", "https://a.example/", "--out", "o"], b"",
     "--url names the page read from stdin"),
])
def test_cli_stdin_errors_are_one_line(argv, stdin, words, tmp_path):
    done = subprocess.run([sys.executable, "-m", "wps", *argv], input=stdin, cwd=tmp_path,
                          capture_output=True, timeout=60)
    err = done.stderr.decode()
    assert done.returncode == UsageError.exit_code and err.count("\n") == 1 and words in err, err
    assert not (tmp_path / "o").exists()
