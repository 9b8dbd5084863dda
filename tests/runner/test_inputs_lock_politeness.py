"""`wps batch` inputs (JSONL, folders, WARC written here with warcio), the lock on --out between two
real processes, and politeness (robots.txt served on 127.0.0.1, per-host limits)."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from itertools import chain
from pathlib import Path

import pytest

from wps.capture import CaptureOptions
from wps.errors import OutputLockedError
from wps.model import PageCapture
from wps.pipeline import PipelineOptions
from wps.runner import (
    BatchOptions,
    count_sources,
    iter_sources,
    page_folder_name,
    run_batch,
    source_key,
)
from wps.runner.politeness import PageQueue, RobotsRules

FAST = CaptureOptions(settle_s=0, scroll_max_steps=1, scroll_pause_s=0.05, timeout_s=30,
                      screenshot=False, allow_private=True)
QUICK = PipelineOptions(segmenter="baseline", capture_options=FAST)
CLI_FAST = ["--settle", "0", "--scroll-steps", "1", "--timeout", "30", "--no-screenshot",
            "--no-progress", "--allow-private", "--segmenter", "baseline", "--no-text"]
UNREACHABLE = "http://127.0.0.1:9"
"""Stored pages claim URLs here (the discard port): rendering them must never fetch."""


def write_warc(path: Path, pages: list[tuple[str, str, bytes, str]]) -> None:
    """A gzipped WARC of HTTP responses: (url, status line, body, content type)."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as stream:
        writer = WARCWriter(stream, gzip=True)
        for url, status, body, content_type in pages:
            headers = StatusAndHeaders(status, [("Content-Type", content_type)],
                                       protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(
                url, "response", payload=io.BytesIO(body), http_headers=headers))


def test_inputs_are_read_as_streams_of_pages(tmp_path):
    jsonl = tmp_path / "pages.jsonl"
    jsonl.write_text("\n".join([
        json.dumps({"url": f"{UNREACHABLE}/a", "html": "<p>stored a</p>"}),
        json.dumps({"url": "http://127.0.0.1:8/live"}),
        "not json",
        json.dumps({"html": "<p>no url</p>"}),
        json.dumps({"url": f"{UNREACHABLE}/a", "html": "<p>again</p>"}),  # a repeat
    ]) + "\n", encoding="utf-8")
    sources = list(iter_sources(jsonl))
    assert [(s.location, s.html) for s in sources if not s.problem] == [
        (f"{UNREACHABLE}/a", b"<p>stored a</p>"), ("http://127.0.0.1:8/live", None)]
    assert [s.problem for s in sources if s.problem] == [
        f"{jsonl}:3: not JSON (Expecting value: line 1 column 1 (char 0))",
        f"{jsonl}:4: no http(s) 'url' field"]
    assert count_sources(jsonl) == 5

    folder = tmp_path / "site"
    (folder / "b").mkdir(parents=True)
    (folder / "b" / "two.html.gz").write_bytes(gzip.compress(b"<p>two</p>"))
    (folder / "one.htm").write_text("<p>one</p>")
    (folder / "notes.txt").write_text("not a page")
    assert [s.location for s in iter_sources(folder)] == [
        str((folder / "one.htm").resolve()), str((folder / "b" / "two.html.gz").resolve())]
    assert count_sources(folder) == 2

    warc = tmp_path / "crawl.warc.gz"
    write_warc(warc, [(f"{UNREACHABLE}/w", "200 OK", b"<p>from the warc</p>", "text/html"),
                      (f"{UNREACHABLE}/img", "200 OK", b"\x89PNG", "image/png"),
                      (f"{UNREACHABLE}/gone", "404 Not Found", b"<p>404</p>", "text/html")])
    assert [(s.location, s.html) for s in iter_sources(warc)] == [
        (f"{UNREACHABLE}/w", b"<p>from the warc</p>")]
    assert count_sources(warc) is None


@pytest.mark.browser
@pytest.mark.slow
def test_stored_html_from_warc_and_jsonl_is_rendered_offline_under_its_url(tmp_path):
    warc, jsonl = tmp_path / "crawl.warc.gz", tmp_path / "pages.jsonl"
    write_warc(warc, [(f"{UNREACHABLE}/w", "200 OK",
                       b"<!doctype html><title>W</title><p>from the warc</p>", "text/html")])
    jsonl.write_text(json.dumps({"url": f"{UNREACHABLE}/j",
                                 "html": "<!doctype html><p>from the jsonl</p>"}) + "\n")
    out = tmp_path / "out"
    with_screenshot = PipelineOptions(segmenter="baseline",
                                      capture_options=replace(FAST, screenshot=True))
    summary = run_batch(chain(iter_sources(warc), iter_sources(jsonl)), out, BatchOptions(
        pipeline=with_screenshot, progress=False, merged=True, images=True))
    assert (summary.done, summary.failed) == (2, 0), (out / "failures.jsonl").read_text()
    pages = [(f"{UNREACHABLE}/w", "from the warc"), (f"{UNREACHABLE}/j", "from the jsonl")]
    for url, text in pages:
        capture = PageCapture.load(out / page_folder_name(url) / "capture")
        assert (capture.url, capture.page_id) == (url, source_key(url))
        assert [n.text for n in capture.nodes if n.is_text] == [text]
        assert capture.screenshot is not None and capture.screenshot.stat().st_size
    merged = [json.loads(line) for line in (out / "segments.jsonl").read_text().splitlines()]
    assert {line["url"] for line in merged} == {f"{UNREACHABLE}/w", f"{UNREACHABLE}/j"}
    per_page = sum(len((out / page_folder_name(url) / "segments.jsonl").read_text().splitlines())
                   for url in (f"{UNREACHABLE}/w", f"{UNREACHABLE}/j"))
    assert len(merged) == per_page


def _wps(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "wps", "batch", *args], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.browser
@pytest.mark.slow
def test_a_second_batch_on_the_same_out_refuses_or_waits(page_server, tmp_path):
    def slow(handler) -> None:
        time.sleep(4)
        body = b"<!doctype html><p>slow page</p>"
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    page_server.routes["/lock-slow"] = slow
    listing, out = tmp_path / "urls.txt", tmp_path / "out"
    listing.write_text(page_server.url("/lock-slow") + "\n")
    first = _wps(str(listing), "--out", str(out), *CLI_FAST)
    try:
        deadline = time.monotonic() + 60
        while page_server.requests.count("/lock-slow") == 0:  # the first run holds the lock
            assert time.monotonic() < deadline and first.poll() is None, first.communicate()
            time.sleep(0.1)
        second = _wps(str(listing), "--out", str(out), *CLI_FAST)
        waiting = _wps(str(listing), "--out", str(out), "--wait-for-lock", *CLI_FAST)
        _, err = second.communicate(timeout=60)
        assert second.returncode == OutputLockedError.exit_code
        assert err == (f"wps: error: {out}: another wps batch is writing here (pid {first.pid} on "
                       f"{os.uname().nodename}); wait for it or use --wait-for-lock\n")
        assert first.wait(timeout=60) == 0
        _, err = waiting.communicate(timeout=60)
        assert waiting.returncode == 0 and "0 done, 1 skipped (already done)" in err
        assert page_server.requests.count("/lock-slow") == 1  # never rendered twice
    finally:
        for process in (first,):
            if process.poll() is None:
                process.kill()
                process.wait()


ROBOTS = "User-agent: *\nDisallow: /\n\nUser-agent: wps\nDisallow: /private\nCrawl-delay: 2\n"


def test_robots_txt_decides_for_the_tools_token(other_server, tmp_path):
    other_server.routes["/robots.txt"] = (200, "text/plain", ROBOTS.encode())
    public, private = other_server.add_html("/public", "<p>x</p>"), other_server.url("/private/p")
    rules = RobotsRules(allow_private=True)
    assert rules.refusal(public) is None
    assert rules.refusal(private) == (f"{private}: disallowed by "
                                      f"http://127.0.0.1:{other_server.port}/robots.txt for wps")
    assert rules.crawl_delay(f"http://127.0.0.1:{other_server.port}") == 2.0
    assert other_server.requests.count("/robots.txt") == 1  # read once per site
    guarded = RobotsRules(allow_private=False).refusal(public)  # the pages' address guard
    assert guarded.startswith(f"http://127.0.0.1:{other_server.port}/robots.txt: refused, ")

    out = tmp_path / "out"  # a batch fails the disallowed page and never asks for it
    summary = run_batch([private], out, BatchOptions(pipeline=QUICK, progress=False))
    assert (summary.done, summary.failed) == (0, 1)
    failure = json.loads((out / "failures.jsonl").read_text())
    assert (failure["error"], failure["exit_code"]) == ("RobotsDisallowed", 18)
    assert "/private/p" not in other_server.requests


def test_robots_txt_most_specific_rule_wins(other_server):
    """RFC 9309 §2.2.2: the longest matching path decides, whatever the order of the lines
    (``urllib.robotparser`` applied the first match, so the Allow below was never seen)."""
    other_server.routes["/robots.txt"] = (
        200, "text/plain", b"User-agent: *\nDisallow: /docs\nAllow: /docs/public\n")
    rules = RobotsRules(allow_private=True)
    assert rules.refusal(other_server.url("/docs/public/page")) is None
    assert rules.refusal(other_server.url("/docs/secret")) is not None
    assert rules.refusal(other_server.url("/elsewhere")) is None


def test_robots_txt_missing_allows_and_a_failing_server_forbids(other_server):
    rules = RobotsRules(allow_private=True)
    assert rules.refusal(other_server.url("/any")) is None  # 404: no rules
    other_server.routes["/robots.txt"] = (503, "text/plain", b"busy")
    rules = RobotsRules(allow_private=True)
    assert "answered HTTP 503" in rules.refusal(other_server.url("/any"))


def test_page_queue_keeps_per_host_limits_and_delays():
    pages = ["a/1", "a/2", "a/3", "b/1", "file"]
    queue = PageQueue(iter(pages), lambda page: None if page == "file" else page[0],
                      per_host=2, delay_s=0.3)
    assert [queue.take(), queue.take(), queue.take()] == ["a/1", "b/1", "file"]
    assert queue.take() is None  # a rests 0.3 s after its start
    time.sleep(0.35)
    assert queue.take() == "a/2"
    time.sleep(0.35)
    assert queue.take() is None  # a has two pages running
    queue.finished("a/1")
    time.sleep(0.35)
    assert not queue.exhausted() and queue.take() == "a/3"
    assert queue.exhausted() and queue.take() is None  # all handed out (running is not waiting)
    queue.put_back("a/3")  # its worker was stopped for another page: a/3 waits again
    time.sleep(0.35)
    assert not queue.exhausted() and queue.take() == "a/3"


def test_bad_input_lines_fail_alone_and_are_recorded(tmp_path):
    jsonl = tmp_path / "pages.jsonl"
    jsonl.write_text('{"url": 5}\n[1, 2]\n', encoding="utf-8")
    out = tmp_path / "out"
    summary = run_batch(iter_sources(jsonl), out, BatchOptions(pipeline=QUICK, progress=False))
    assert (summary.total, summary.done, summary.failed) == (2, 0, 2)
    failures = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert [(f["url"], f["exit_code"]) for f in failures] == [(f"{jsonl}:1", 3), (f"{jsonl}:2", 3)]
    assert summary.failure_causes == {"InputFileError": 2}
