"""`wps batch` inputs (JSONL, folders, WARC written here with warcio), the lock on --out between two
real processes, and politeness (robots.txt served on 127.0.0.1, per-host limits).

One bad entry of an input is one failure: a symlink loop in a list or a folder, a JSONL line
nested too deep, with an escaped lone surrogate, a number past Python's digit limit or a
``file:`` URL, a WARC record that cannot be read. The batch goes on, writes ``summary.json``,
exits 9, and so does its rerun."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import replace
from itertools import chain
from pathlib import Path

import pytest

from wps.capture import CaptureOptions
from wps.cli import main
from wps.errors import InputFileError, OutputLockedError
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
from wps.runner.lock import LOCK_FILE
from wps.runner.politeness import PageQueue, RobotsRules

FAST = CaptureOptions(settle_s=0, scroll_max_steps=1, scroll_pause_s=0.05, timeout_s=30,
                      screenshot=False, allow_private=True)
QUICK = PipelineOptions(segmenter="baseline", capture_options=FAST)
CLI_FAST = ["--settle", "0", "--scroll-steps", "1", "--timeout", "30", "--no-screenshot",
            "--no-progress", "--allow-private", "--segmenter", "baseline", "--no-text"]
CLI_FAST_UNHURRIED = [value if value != "30" else "240" for value in CLI_FAST]
"""For a page held open while other processes start (slowly, on a loaded machine)."""
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


@pytest.mark.browser
def test_a_warc_page_is_read_in_the_charset_its_http_header_names(tmp_path):
    # A crawl stores the header apart from the bytes, and a browser takes the header's charset
    # over the page's own <meta>; rendered from a file alone, a page whose template names
    # another charset than its server reached the detector as mojibake.
    russian = "Комитет собрался во вторник, чтобы обсудить часы работы библиотеки."
    greek = "Η επιτροπή συνεδρίασε την Τρίτη για τις ώρες λειτουργίας της βιβλιοθήκης."
    french = "Le comité s’est réuni mardi « pour discuter » des horaires de la bibliothèque."
    pages = [  # url, prose, its bytes' codec, the HTTP Content-Type, the page's own <meta>
        (f"{UNREACHABLE}/ru", russian, "windows-1251", "text/html; charset=windows-1251", ""),
        (f"{UNREACHABLE}/ru-meta", russian, "windows-1251", "text/html; charset=windows-1251",
         "<meta charset=utf-8>"),
        (f"{UNREACHABLE}/el", greek, "iso-8859-7", 'text/html; charset="ISO-8859-7"', ""),
        (f"{UNREACHABLE}/fr", french, "cp1252", "text/html;charset=ISO-8859-1", ""),
        (f"{UNREACHABLE}/utf8", french, "utf-8", "text/html; charset=ISO-8859-1", "")]
    warc = tmp_path / "crawl.warc.gz"
    write_warc(warc, [(url, "200 OK", f"<!doctype html>{meta}<p>{text}</p>".encode(codec), kind)
                      for url, text, codec, kind, meta in pages])
    out = tmp_path / "out"
    summary = run_batch(iter_sources(warc), out, BatchOptions(pipeline=QUICK, progress=False,
                                                              save_capture=True))
    assert (summary.done, summary.failed) == (5, 0), (out / "failures.jsonl").read_text()
    for url, text, *_ in pages:
        capture = PageCapture.load(out / page_folder_name(url) / "capture")
        assert [n.text for n in capture.nodes if n.is_text] == [text], url


def test_bytes_a_header_cannot_decode_stay_as_they_are():
    from wps.capture.sources import html_in_utf8

    latin = "<p>café</p>".encode("cp1252")
    assert html_in_utf8(latin, "text/html; charset=no-such-codec") == latin
    assert html_in_utf8(latin, "text/html") == latin  # Chromium reads its meta tag or guesses
    bom = b"\xef\xbb\xbf" + "<p>café</p>".encode()
    assert html_in_utf8(bom, "text/html; charset=windows-1251") == bom
    assert html_in_utf8(latin, "text/html; charset=latin1") == b"\xef\xbb\xbf<p>caf\xc3\xa9</p>"


def _wps(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "wps", "batch", *args], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _holds_open(pid: int, path: Path) -> bool:
    """Whether process ``pid`` has ``path`` open (a batch waiting for the lock polls it)."""
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(fd) == str(path):
                return True
        except OSError:
            continue
    return False


def _wait_for(condition, what: str, process: subprocess.Popen[str], limit_s: float = 120) -> None:
    deadline = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {limit_s:g} s"
        assert process.poll() is None, (what, process.communicate())
        time.sleep(0.1)


@pytest.mark.browser
@pytest.mark.slow
def test_a_second_batch_on_the_same_out_refuses_or_waits(page_server, tmp_path):
    """The first batch's page is held open until the second batch has been refused and the
    third is seen waiting on the lock: no race with how fast the processes start."""
    released = threading.Event()

    def slow(handler) -> None:
        released.wait(300)
        page_server.reply(handler, b"<!doctype html><p>slow page</p>")

    page_server.routes["/lock-slow"] = slow
    listing, out = tmp_path / "urls.txt", tmp_path / "out"
    listing.write_text(page_server.url("/lock-slow") + "\n")
    first = _wps(str(listing), "--out", str(out), *CLI_FAST_UNHURRIED)
    others: list[subprocess.Popen[str]] = []
    try:
        # the first run holds the lock while its page is asked for
        _wait_for(lambda: page_server.requests.count("/lock-slow") > 0,
                  "the first batch did not ask for its page", first)
        second = _wps(str(listing), "--out", str(out), *CLI_FAST_UNHURRIED)
        waiting = _wps(str(listing), "--out", str(out), "--wait-for-lock", *CLI_FAST_UNHURRIED)
        others += [second, waiting]
        _, err = second.communicate(timeout=120)
        assert second.returncode == OutputLockedError.exit_code
        assert err == (f"wps: error: {out}: another wps batch is writing here (pid {first.pid} on "
                       f"{os.uname().nodename}); wait for it or use --wait-for-lock\n")
        _wait_for(lambda: _holds_open(waiting.pid, out / LOCK_FILE),
                  "the waiting batch did not open the lock", waiting)
        time.sleep(0.5)  # it polls the lock a few times, held by the first
        assert waiting.poll() is None  # still waiting
        released.set()
        assert first.wait(timeout=120) == 0
        _, err = waiting.communicate(timeout=120)
        assert waiting.returncode == 0 and "0 done, 1 skipped (already done)" in err
        assert page_server.requests.count("/lock-slow") == 1  # never rendered twice
    finally:
        released.set()
        for process in (first, *others):
            if process.poll() is None:
                process.kill()
                process.communicate()


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


def test_a_driver_waits_no_longer_than_a_held_host_rests():
    """A single-host list is held by the host's delay alone: the driver's wait on its workers
    ends when the next page may start, not a second later."""
    queue = PageQueue(iter(["a/1", "a/2"]), lambda page: page[0], per_host=2, delay_s=0.3)
    assert queue.poll_s() == 1.0  # nothing held yet
    assert queue.take() == "a/1" and queue.take() is None  # a/2 is held for a's delay
    assert 0.2 < queue.poll_s() <= 0.3
    time.sleep(queue.poll_s())
    assert queue.take() == "a/2"


def test_bad_input_lines_fail_alone_and_are_recorded(tmp_path):
    jsonl = tmp_path / "pages.jsonl"
    jsonl.write_text('{"url": 5}\n[1, 2]\n', encoding="utf-8")
    out = tmp_path / "out"
    summary = run_batch(iter_sources(jsonl), out, BatchOptions(pipeline=QUICK, progress=False))
    assert (summary.total, summary.done, summary.failed) == (2, 0, 2)
    failures = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert [(f["url"], f["exit_code"]) for f in failures] == [(f"{jsonl}:1", 3), (f"{jsonl}:2", 3)]
    assert summary.failure_causes == {"InputFileError": 2}


# one bad entry, one failure ----------------------------------------------------------
SECRET = "the launch code is 0000"
GOOD_HTML = "<!doctype html><p>a stored page that renders</p>"


def _problems(path: Path) -> dict[str, str]:
    return {source.location: source.problem for source in iter_sources(path) if source.problem}


def _pages(path: Path) -> list[str]:
    return [source.location for source in iter_sources(path) if not source.problem]


def _jsonl(path: Path, secret: Path) -> Path:
    lines = [json.dumps({"url": f"{UNREACHABLE}/deep", "html": "x", "n": 0}).replace(
                 "0}", "[" * 100_000 + "]" * 100_000 + "}"),
             json.dumps({"url": f"{UNREACHABLE}/surrogate", "html": "<p>\ud800</p>"}),
             json.dumps({"url": secret.as_uri()}),
             json.dumps({"url": secret.as_uri(), "html": "<p>a label only</p>"}),
             '{"url": "%s/big", "n": %s}' % (UNREACHABLE, "9" * 5000),
             json.dumps({"url": f"{UNREACHABLE}/good", "html": GOOD_HTML})]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _warc(path: Path) -> Path:
    """A gzipped WARC whose first record is cut short, then a good page, then an HTML resource
    record claiming a ``file:`` URL."""
    from warcio.warcwriter import WARCWriter

    good, cut = path.with_suffix(".good"), path.with_suffix(".cut")
    write_warc(good, [(f"{UNREACHABLE}/good", "200 OK", GOOD_HTML.encode(), "text/html")])
    write_warc(cut, [(f"{UNREACHABLE}/cut", "200 OK", b"<p>cut</p>", "text/html")])
    local = io.BytesIO()
    writer = WARCWriter(local, gzip=True)
    writer.write_record(writer.create_warc_record(
        "file:///etc/hostname", "resource", payload=io.BytesIO(b"<p>local</p>"),
        warc_content_type="text/html"))
    path.write_bytes(cut.read_bytes()[:60] + good.read_bytes() + local.getvalue())
    return path


def _loop_list(tmp_path: Path) -> Path:
    os.symlink("loop.html", tmp_path / "loop.html")  # a link to itself
    page = tmp_path / "good.html"
    page.write_text(GOOD_HTML, encoding="utf-8")
    listing = tmp_path / "pages.txt"
    listing.write_bytes(b"loop.html\n\xff\xfe not utf-8\ngood.html\n"
                        + bytes(tmp_path / "loop.html") + b"\n")
    return listing


def _bad_folder(folder: Path) -> Path:
    """A good page, a link to itself, and an empty page whose name is not UTF-8 (its failure
    line must still be written)."""
    folder.mkdir()
    (folder / "good.html").write_text(GOOD_HTML, encoding="utf-8")
    os.symlink("loop.html", folder / "loop.html")
    (folder / os.fsdecode(b"empty-\xff.html")).write_bytes(b"")
    return folder


def test_each_bad_entry_is_a_problem_of_its_own(tmp_path):
    secret = tmp_path / "secret.html"
    secret.write_text(SECRET, encoding="utf-8")
    jsonl = _jsonl(tmp_path / "pages.jsonl", secret)
    problems = _problems(jsonl)
    assert sorted(problems) == [f"{jsonl}:{n}" for n in (1, 2, 3, 4, 5)]
    assert "nested deeper than" in problems[f"{jsonl}:1"]
    assert "lone surrogate" in problems[f"{jsonl}:2"]
    assert "no http(s) 'url'" in problems[f"{jsonl}:3"] + problems[f"{jsonl}:4"]
    assert "longer than 4300 digits" in problems[f"{jsonl}:5"]
    assert _pages(jsonl) == [f"{UNREACHABLE}/good"]

    warc = _warc(tmp_path / "crawl.warc.gz")
    problems = _problems(warc)
    assert [where.split("@")[0] for where in problems] == [str(warc)] * 2
    assert "unreadable WARC record" in problems[f"{warc}@0"]
    assert any("'file:///etc/hostname' is not an http(s) URL" in p for p in problems.values())
    assert _pages(warc) == [f"{UNREACHABLE}/good"]

    listing = _loop_list(tmp_path)
    problems = _problems(listing)
    assert sorted(problems) == [f"{listing}:1", f"{listing}:2", f"{listing}:4"]
    assert "loop.html: unusable path" in problems[f"{listing}:1"]
    assert "loop.html: unusable path" in problems[f"{listing}:4"]
    assert problems[f"{listing}:2"] == f"{listing}:2: not UTF-8 text"
    assert _pages(listing) == [str(tmp_path / "good.html")]

    folder = tmp_path / "site"
    folder.mkdir()
    shutil.copy(tmp_path / "good.html", folder / "a.html")
    os.symlink("b.html", folder / "b.html")
    assert list(_problems(folder)) == [str(folder / "b.html")]
    assert _pages(folder) == [str(folder / "a.html")]


def test_a_malformed_url_in_a_list_is_a_problem_of_its_own(tmp_path):
    """A listed URL no browser could open (a bad IPv6 literal, a port out of range, port 0)
    fails alone: its folder name and host cannot be read (it was an internal ValueError that
    stopped the batch)."""
    listing = tmp_path / "urls.txt"
    listing.write_text(f"http://[zz]/\nhttp://127.0.0.1:99999/x\nhttps://127.0.0.1:0/\n"
                       f"{UNREACHABLE}/good\n", encoding="utf-8")
    problems = _problems(listing)
    assert sorted(problems) == [f"{listing}:{n}" for n in (1, 2, 3)]
    assert all("not a valid URL" in problem for problem in problems.values())
    assert _pages(listing) == [f"{UNREACHABLE}/good"]


def test_a_warc_file_with_no_readable_record_is_still_a_bad_input(tmp_path):
    warc = tmp_path / "crawl.warc"
    warc.write_bytes(b"garbage" * 100)
    with pytest.raises(InputFileError, match="not a readable WARC file"):
        list(iter_sources(warc))


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("kind", ["jsonl", "warc", "list", "folder"])
def test_a_batch_goes_past_bad_entries_and_so_does_its_rerun(kind, tmp_path, capsys):
    secret = tmp_path / "secret.html"
    secret.write_text(SECRET, encoding="utf-8")
    source, good, codes = {
        "jsonl": lambda: (_jsonl(tmp_path / "pages.jsonl", secret), f"{UNREACHABLE}/good",
                          [3] * 5),
        "warc": lambda: (_warc(tmp_path / "crawl.warc.gz"), f"{UNREACHABLE}/good", [3, 3]),
        "list": lambda: (_loop_list(tmp_path), str(tmp_path / "good.html"), [3, 3, 3]),
        "folder": lambda: (_bad_folder(tmp_path / "site"), str(tmp_path / "site" / "good.html"),
                           [3, 22]),
    }[kind]()
    failed = len(codes)
    out = tmp_path / "out"
    for run in (1, 2):
        code = main(["batch", str(source), "--out", str(out), *CLI_FAST])
        err = capsys.readouterr().err
        assert code == 9, err
        summary = json.loads((out / "summary.json").read_text())
        assert (summary["failed"], summary["done"], summary["skipped"]) == (
            failed, 1 if run == 1 else 0, 0 if run == 1 else 1), err
        failures = (out / "failures.jsonl").read_text().splitlines()
        assert len(failures) == failed
        assert sorted(json.loads(line)["exit_code"] for line in failures) == codes
    assert (out / page_folder_name(good) / "segments.jsonl").is_file()
    written = [path for path in out.rglob("*") if path.is_file()]
    assert not any(SECRET in path.read_text(errors="replace") for path in written)
