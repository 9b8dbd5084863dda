"""``wps batch FILE.warc.gz --replay``: each page rendered with its subresources from the WARC."""

from __future__ import annotations

import json

import pytest
from warc_pages import SITE, write_replay_warc

from wps.capture import CaptureOptions
from wps.cli import main
from wps.pipeline import PipelineOptions
from wps.runner import BatchOptions, iter_sources, run_batch

pytestmark = pytest.mark.browser

FAST = CaptureOptions(settle_s=0, scroll_max_steps=1, timeout_s=30, screenshot=False)


def _image_and_missing(out) -> tuple[tuple[float, float], list[str]]:
    [capture_json] = out.glob("**/capture/capture.json")  # a batch: one folder per page
    capture = json.loads(capture_json.read_text(encoding="utf-8"))
    [image] = [node for node in capture["nodes"] if node["tag"] == "IMG"]
    left, top, right, bottom = image["bbox"]
    return (right - left, bottom - top), capture.get("replay_missing", [])


def test_a_warc_batch_replays_its_pages_with_their_resources(tmp_path):
    warc = write_replay_warc(tmp_path / "site.warc.gz")
    options = {"pipeline": PipelineOptions(capture_options=FAST), "progress": False,
               "save_capture": True}
    replayed = run_batch(iter_sources(warc), tmp_path / "replayed",
                         BatchOptions(replay=True, **options))
    offline = run_batch(iter_sources(warc), tmp_path / "offline", BatchOptions(**options))
    assert (replayed.done, offline.done) == (1, 1)
    assert _image_and_missing(tmp_path / "replayed") == ((7, 5), [f"{SITE}/missing.js"])
    size, missing = _image_and_missing(tmp_path / "offline")
    assert size != (7, 5) and missing == []  # as before: every subresource blocked


def test_replay_needs_a_warc_input(tmp_path, capsys):
    listing = tmp_path / "pages.txt"
    listing.write_text("http://127.0.0.1:9/x\n", encoding="utf-8")
    code = main(["batch", str(listing), "--out", str(tmp_path / "out"), "--replay"])
    assert code == 2
    assert capsys.readouterr().err.strip() == (
        f"wps: error: --replay answers a page's requests from its WARC file; {listing} is "
        "not a WARC file")


def _segment(tmp_path, *args: str) -> tuple[int, str]:
    out = tmp_path / f"out{len(list(tmp_path.glob('out*')))}"
    code = main(["segment", *args, "--out", str(out), "--settle", "0", "--scroll-steps", "1",
                 "--no-screenshot"])
    return code, out


def test_wps_segment_renders_one_page_of_a_warc_file(tmp_path, capsys):
    """``wps segment FILE.warc.gz``: the file's only HTML page, offline or replayed."""
    warc = write_replay_warc(tmp_path / "site.warc.gz")
    code, replayed = _segment(tmp_path, str(warc), "--replay")
    assert code == 0
    assert _image_and_missing(replayed) == ((7, 5), [f"{SITE}/missing.js"])
    code, offline = _segment(tmp_path, str(warc), "--url", f"{SITE}/page")
    assert code == 0
    size, missing = _image_and_missing(offline)
    assert size != (7, 5) and missing == []
    capture = json.loads((offline / "capture" / "capture.json").read_text(encoding="utf-8"))
    assert capture["url"] == f"{SITE}/page"


def test_wps_segment_names_the_warc_page_it_cannot_pick(tmp_path, capsys):
    from warc_pages import PAGES, write_warc

    warc = tmp_path / "two.warc.gz"
    write_warc(warc, PAGES)
    first, second = PAGES
    code, out = _segment(tmp_path, str(warc))
    assert (code, out.exists()) == (2, False)
    assert capsys.readouterr().err.strip() == (
        f"wps: error: {warc}: holds several HTML pages ({first}, {second}, ...); name one with "
        "--url, or run wps batch")
    code, out = _segment(tmp_path, str(warc), "--url", f"{first}/other")
    assert (code, out.exists()) == (3, False)
    assert capsys.readouterr().err.strip() == (
        f"wps: error: {warc}: no HTML response record of {first}/other")
    code, out = _segment(tmp_path, str(tmp_path / "page.html"), "--replay")
    assert (code, out.exists()) == (2, False)


def test_a_replayed_page_needs_an_http_url(tmp_path):
    from wps.capture.sources import replayed_source
    from wps.errors import UsageError

    for url in ("file:///etc/hostname", "http:///nohost", "javascript:alert(1)", "/etc/passwd"):
        with pytest.raises(UsageError, match="URL"):
            replayed_source(url)
    assert replayed_source(f"{SITE}/page").url == f"{SITE}/page"
