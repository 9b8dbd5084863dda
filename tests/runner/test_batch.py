"""`wps batch` against pages on the local test server: folders, markers, failures, reruns."""

from __future__ import annotations

import gzip
import json

import pytest

from wps.capture import Browser, CaptureOptions
from wps.capture.sources import page_id_for
from wps.cli import main
from wps.errors import InputFileError, UnknownSegmenterError, UsageError
from wps.model import PageCapture
from wps.pipeline import PipelineOptions
from wps.runner import BatchOptions, page_folder_name, read_source_list, run_batch, source_key

QUIET = {"progress": False, "host_delay_s": 0}

FAST = CaptureOptions(settle_s=0, scroll_max_steps=1, scroll_pause_s=0.05, timeout_s=30,
                      screenshot=False, allow_private=True)
FAST_PIPELINE = PipelineOptions(capture_options=FAST)
CLI_FAST = ["--settle", "0", "--scroll-steps", "1", "--timeout", "30", "--no-screenshot",
            "--no-progress", "--allow-private", "--host-delay", "0"]


@pytest.fixture()
def pages(page_server, tmp_path):
    """Two good URLs, one 404, one local gzipped file."""
    good = [page_server.add_html(f"/batch-{n}", f"<!doctype html><title>P{n}</title><p>page {n}")
            for n in range(2)]
    missing = page_server.url("/batch-missing")
    local = tmp_path / "local.html.gz"
    local.write_bytes(gzip.compress(b"<!doctype html><p>local page</p>"))
    return good, missing, local


def test_read_source_list(tmp_path):
    (tmp_path / "sub").mkdir()
    listing = tmp_path / "sub" / "urls.txt"
    listing.write_text("# pages\nhttp://a.example/x\n\n  http://a.example/x  \n"
                       "page.html\n/abs/other.html.gz\n# end\n", encoding="utf-8")
    assert read_source_list(listing) == [
        "http://a.example/x", str(tmp_path / "sub" / "page.html"), "/abs/other.html.gz"]
    with pytest.raises(InputFileError, match="no such URL list"):
        read_source_list(tmp_path / "nope.txt")


def test_source_key_is_the_capture_page_id(tmp_path):
    assert source_key("http://a.example/x") == page_id_for("http://a.example/x")
    page = tmp_path / "p.html"
    assert source_key(str(page)) == page_id_for(page.as_uri())


@pytest.mark.browser
@pytest.mark.slow
def test_batch_writes_folders_markers_failures_and_resumes(pages, tmp_path):
    good, missing, local = pages
    out = tmp_path / "out"
    sources = [*good, missing, str(local)]
    summary = run_batch(sources, out, BatchOptions(pipeline=FAST_PIPELINE, save_capture=True,
                                                   **QUIET))
    assert (summary.total, summary.done, summary.skipped, summary.failed) == (4, 3, 0, 1)
    for source in [*good, str(local)]:
        capture = PageCapture.load(out / page_folder_name(source) / "capture")
        assert capture.page_id == source_key(source)
        assert (out / ".done" / page_folder_name(source)).is_file()
        webis = json.loads((out / page_folder_name(source) / "segmentation.json").read_text())
        assert webis["id"] == capture.page_id and webis["segmentations"]
    assert PageCapture.load(out / page_folder_name(good[1]) / "capture").title == "P1"
    assert not (out / page_folder_name(missing)).exists()
    failures = [json.loads(line) for line in (out / "failures.jsonl").read_text().splitlines()]
    assert failures == [{"url": missing, "error": "HttpStatusError",
                         "message": f"{missing}: HTTP 404 Not Found", "exit_code": 13}]
    assert json.loads((out / "summary.json").read_text())["failed"] == 1

    again = run_batch(sources, out, BatchOptions(pipeline=FAST_PIPELINE, save_capture=True,
                                                 **QUIET))
    assert (again.done, again.skipped, again.failed) == (0, 3, 1)  # only the failure is retried

    segmented = run_batch(good, out, BatchOptions(
        pipeline=PipelineOptions(segmenter="baseline", capture_options=FAST), save_capture=True,
        **QUIET))
    assert (segmented.done, segmented.skipped) == (2, 0)  # another segmenter redoes the pages
    webis = json.loads((out / page_folder_name(good[0]) / "segmentation.json").read_text())
    assert webis["id"] == source_key(good[0]) and list(webis["segmentations"]) == ["baseline"]


def test_a_batch_tidies_its_folder_when_it_starts_and_ends_not_for_each_page(
        pages, tmp_path, monkeypatch):
    # Each page listed the batch folder for what killed processes left beside its own folder,
    # a listing that grew with the crawl (7 ms a page at 20,000 folders). The batch tidies the
    # folder when it starts (what a killed run left) and when it ends (what a worker killed
    # meanwhile left).
    import subprocess
    import sys

    import wps.files
    import wps.runner.batch
    from wps.temporaries import HOST_TAG

    out = tmp_path / "out"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    left = out / f".page.staging-{dead.pid}-{HOST_TAG}-abcdefgh"
    tidied = []
    real = wps.files.remove_stale_staging

    def counting(folder, name=None):
        tidied.append((folder, name))
        removed = real(folder, name)
        if len(tidied) == 2:  # started: a worker killed from now on leaves this
            left.mkdir()
        return removed

    monkeypatch.setattr(wps.files, "remove_stale_staging", counting)
    monkeypatch.setattr(wps.runner.batch, "remove_stale_staging", counting)
    good, _missing, local = pages
    summary = run_batch([*good, str(local)], out,
                        BatchOptions(workers=1, pipeline=FAST_PIPELINE, **QUIET))
    assert summary.done == 3
    assert tidied == [(out, None), (out / ".done", None), (out, None)]
    assert not left.exists()


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("pages_per_browser", [1, 3])
def test_batch_with_two_worker_processes(pages, tmp_path, pages_per_browser):
    good, missing, local = pages
    out = tmp_path / "out"
    summary = run_batch([*good, missing, str(local)], out,
                        BatchOptions(workers=2, pipeline=FAST_PIPELINE, save_capture=True,
                                     pages_per_browser=pages_per_browser, **QUIET))
    assert (summary.done, summary.failed) == (3, 1)
    texts = {source: [n.text for n in
                      PageCapture.load(out / page_folder_name(source) / "capture").nodes
                      if n.is_text] for source in [*good, str(local)]}
    assert texts == {good[0]: ["page 0"], good[1]: ["page 1"], str(local): ["local page"]}


@pytest.mark.browser
@pytest.mark.slow
def test_browser_restarts_every_n_pages(page_server):
    url = page_server.add_html("/restart", "<p>again</p>")
    with Browser(FAST, restart_every=2) as browser:
        for _ in range(5):
            browser.capture(url)
        assert browser.launches == 3  # pages 1-2, 3-4, 5


@pytest.mark.browser
def test_cli_batch_exit_codes_and_summary(pages, tmp_path, capsys):
    good, missing, _ = pages
    listing = tmp_path / "urls.txt"
    listing.write_text("\n".join(["# test", *good, missing]) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["batch", str(listing), "--out", str(out), *CLI_FAST]) == 9
    err = capsys.readouterr().err.splitlines()
    assert next(line for line in err if line.startswith("batch:")).startswith(
        "batch: 3 pages: 2 done, 0 skipped (already done), 1 failed in ")
    assert "  failures: HttpStatusError 1" in err and err[-1].startswith("  slowest: http://")
    listing.write_text("\n".join(good) + "\n", encoding="utf-8")
    assert main(["batch", str(listing), "--out", str(out), *CLI_FAST]) == 0
    assert "0 done, 2 skipped" in capsys.readouterr().err


def test_cli_batch_rejects_bad_input_before_any_work(tmp_path, capsys):
    listing = tmp_path / "urls.txt"
    listing.write_text("http://127.0.0.1:1/\n", encoding="utf-8")
    out = tmp_path / "out"
    code = main(["batch", str(listing), "--out", str(out), "--segmenter", "no-such", *CLI_FAST])
    assert code == UnknownSegmenterError.exit_code
    assert capsys.readouterr().err.count("\n") == 1 and not out.exists()
    assert main(["batch", str(tmp_path / "none.txt"), "--out", str(out)]) == \
        InputFileError.exit_code


BOILERPLATE = (
    "About this shop: the Riverside Bakery has baked bread by hand in the old mill since 1952. "
    "We deliver to the whole valley every weekday morning, take orders for weddings and parties "
    "up to three weeks ahead and keep a gluten-free counter beside the main oven. Our flour comes "
    "from two farms up the river, and every loaf left at closing time goes to the food bank."
)
ARTICLES = [
    ("Rye returns this autumn. After a dry summer the farm on the hill harvested enough rye for "
     "a full season, so the dark sourdough loaf is back on the shelves from Monday onwards."),
    ("New opening hours start in March: the shop opens at six on weekdays, one hour earlier "
     "than before, because the commuters on the first train asked for warm rolls before work."),
    ("Our summer recipe series begins with a peach tart. It needs ripe fruit, cold butter and a "
     "short pastry that rests overnight; the full method fits on one card at the counter."),
]


@pytest.mark.browser
def test_cli_batch_dedup_marks_boilerplate_repeated_across_pages(page_server, tmp_path):
    urls = [page_server.add_html(
        f"/site/news-{n}.html",
        f"<!doctype html><title>News {n}</title><body><main><h1>News {n}</h1><p>{article}</p>"
        f"</main><footer><p>{BOILERPLATE}</p></footer></body>")
        for n, article in enumerate(ARTICLES)]
    listing = tmp_path / "urls.txt"
    listing.write_text("\n".join(urls) + "\n", encoding="utf-8")
    out, db = tmp_path / "out", tmp_path / "site.sqlite3"
    assert main(["batch", str(listing), "--out", str(out), "--workers", "1",
                 "--dedup-db", str(db), *CLI_FAST]) == 0
    pages = [[json.loads(line) for line in
              (out / page_folder_name(url) / "segments.jsonl").read_text().splitlines()]
             for url in urls]
    footers = [[line for line in lines if "About this shop" in line["text"]] for lines in pages]
    assert all(len(found) == 1 for found in footers)
    assert "dup_chunk_share" not in footers[0][0]["reasons"]  # first page: nothing seen before
    for later in footers[1:]:
        assert "dup_chunk_share" in later[0]["reasons"] and not later[0]["kept"]
        assert later[0]["stats"]["dup_chunk_share"] > 0.5
    for lines, article in zip(pages, ARTICLES):  # the page's own text is not a repeat
        own = [line for line in lines if article[:30] in line["text"]]
        assert own and all("dup_chunk_share" not in line["reasons"] for line in own)
    # the text report, as wps segment writes it
    assert (out / page_folder_name(urls[0]) / "main-text.json").is_file()


@pytest.mark.browser
def test_cli_batch_takes_the_segment_pipeline_options(page_server, tmp_path, capsys):
    url = page_server.add_html(
        "/options/news.html",
        f"<!doctype html><title>News</title><body><main><h1>News</h1><p>{ARTICLES[0]}</p></main>"
        f"<footer><p>{BOILERPLATE}</p></footer></body>")
    listing = tmp_path / "urls.txt"
    listing.write_text(url + "\n", encoding="utf-8")
    out = tmp_path / "out"
    page = out / page_folder_name(url)

    def batch(*options: str) -> int:
        return main(["batch", str(listing), "--out", str(out), *options, *CLI_FAST])

    assert batch() == 0
    everything = [json.loads(line) for line in (page / "segments.jsonl").read_text().splitlines()]
    assert any(not line["kept"] for line in everything)  # the footer holds no main text
    assert batch("--keep-only") == 0  # other output options redo the page
    kept = [json.loads(line) for line in (page / "segments.jsonl").read_text().splitlines()]
    assert kept and all(line["kept"] for line in kept) and len(kept) < len(everything)
    capsys.readouterr()
    assert batch("--keep-only") == 0
    assert "0 done, 1 skipped" in capsys.readouterr().err  # same options: nothing to redo
    assert batch("--no-text") == 0
    assert not (page / "main-text.json").exists()  # the text step is off, its report gone
    assert batch("-O", "no_such_option=1") == UsageError.exit_code  # before any page
    assert "no_such_option" in capsys.readouterr().err


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("pages_per_browser", [1, 2])
def test_worker_that_overruns_its_deadline_is_killed_and_others_are_retried(page_server, tmp_path,
                                                                            pages_per_browser):
    """The parent's watchdog: a page still running past its deadline (+ grace; the grace is
    shortened here so that a stalled response counts as overdue after 40 s, long after a fast
    page is done even on a loaded machine, long before the page's own deadline) has its workers
    stopped; that page fails as a timeout, the other pages are done by a fresh pool. With
    several pages per browser the workers take the pages in chunks and report each page."""
    import threading
    import time

    released = threading.Event()

    def stalled(handler) -> None:  # until the test ends: only the watchdog ends this page
        released.wait(300)

    page_server.routes[f"/overdue-stall-{pages_per_browser}"] = stalled
    fast = [page_server.add_html(f"/overdue-fast-{pages_per_browser}-{n}", f"<p>fast page {n}</p>")
            for n in range(3)]
    sources = [page_server.url(f"/overdue-stall-{pages_per_browser}"), *fast]
    capture = CaptureOptions(settle_s=0, scroll_max_steps=1, timeout_s=240, screenshot=False,
                             allow_private=True)
    started = time.monotonic()
    try:
        summary = run_batch(sources, tmp_path / "out", BatchOptions(
            workers=2, pipeline=PipelineOptions(capture_options=capture, segmenter="baseline"),
            pages_per_browser=pages_per_browser, overdue_grace_s=40.0 - 240, **QUIET))
    finally:
        released.set()
    # the page's own deadline (240 s) and the stall's end (300 s) are far away: only the
    # watchdog (overdue 40 s after the page started) can have ended it; the bound leaves a
    # loaded machine time to start both pools
    assert time.monotonic() - started < 180
    assert (summary.done, summary.failed) == (3, 1)
    failures = [json.loads(line) for line in (tmp_path / "out" / "failures.jsonl").open()]
    assert [(f["url"], f["exit_code"]) for f in failures] == [(sources[0], 16)]
    assert "did not stop" in failures[0]["message"]


@pytest.mark.browser
def test_browser_restarts_when_its_memory_grew_past_the_limit(page_server, tmp_path):
    from wps.runner.worker import PageTask, run_page

    url = page_server.add_html("/memory", "<p>memory</p>")
    baseline = PipelineOptions(segmenter="baseline", text=False, capture_options=FAST)
    with Browser(FAST) as browser:
        for limit, launches in ((None, 1), (100_000, 1), (64, 2)):
            task = PageTask(url, str(tmp_path / str(limit)), baseline, None,
                            restart_above_mb=limit)
            assert run_page(task, browser).ok
            assert browser.launches == launches
        assert browser.memory_mb() > 64  # what the last limit measured: Chromium's processes


@pytest.mark.browser
def test_batch_page_folders_hold_images_and_capture_only_when_asked(page_server, tmp_path):
    """By default a page folder has the segments and the text report: no report.html, no
    screenshot taken (dom-cohesion does not read it), no overlay drawn, no capture saved.
    ``save_capture`` adds capture/, ``images`` also the screenshot and overlay.png (shown in
    report.html with ``reports``); each
    choice is part of the completion marker, so changing it redoes the page. The segments
    are the same every way, and with one or several pages per browser."""
    urls = [page_server.add_html(f"/outputs-{n}", f"<!doctype html><title>O{n}</title><main>"
                                 f"<h1>Title {n}</h1><p>{ARTICLES[n]}</p></main>"
                                 f"<footer><p>{BOILERPLATE}</p></footer>") for n in range(3)]
    capture = CaptureOptions(settle_s=0, scroll_max_steps=1, timeout_s=30, allow_private=True)
    pipeline = PipelineOptions(capture_options=capture)
    seen = {}
    for name, extra in (("default", {}), ("one-at-a-time", {"pages_per_browser": 1}),
                        ("capture", {"save_capture": True}),
                        ("images", {"images": True, "reports": True})):
        out = tmp_path / ("one" if name == "one-at-a-time" else "out")  # else: nothing to redo
        summary = run_batch(urls, out, BatchOptions(pipeline=pipeline, **extra, **QUIET))
        assert (summary.done, summary.failed) == (3, 0), name
        folder = out / page_folder_name(urls[0])
        names = sorted(path.name for path in folder.iterdir())
        if name in ("default", "one-at-a-time"):
            assert names == ["main-text.json", "segmentation.json", "segments.jsonl"]
        elif name == "capture":
            assert "capture" in names and "overlay.png" not in names
            saved = PageCapture.load(folder / "capture")
            assert saved.screenshot is None and saved.title == "O0"
        else:
            assert "overlay.png" in names
            assert PageCapture.load(folder / "capture").screenshot.stat().st_size
            assert "capture/screenshot.png" in (folder / "report.html").read_text()
        seen[name] = {url: [{key: value for key, value in json.loads(line).items()
                             if key != "doc_id"} for line in
                            (out / page_folder_name(url) / "segments.jsonl")
                            .read_text().splitlines()]
                      for url in urls}
    assert seen["default"] == seen["one-at-a-time"] == seen["capture"] == seen["images"]
    again = run_batch(urls, tmp_path / "out", BatchOptions(pipeline=pipeline, images=True,
                                                           reports=True, **QUIET))
    assert (again.done, again.skipped) == (0, 3)


@pytest.mark.browser
def test_one_browser_renders_several_pages_at_once_from_threads(page_server):
    """``Browser(concurrency=3)``: captures from several threads at once, each page in its own
    context, each capture its own page's; a due restart waits until no page is in flight."""
    from concurrent.futures import ThreadPoolExecutor

    urls = [page_server.add_html(f"/threads-{n}", f"<title>T{n}</title><p>thread page {n}</p>")
            for n in range(7)]
    with Browser(FAST, restart_every=4, concurrency=3) as browser:
        with ThreadPoolExecutor(3) as pool:
            captures = list(pool.map(browser.capture, urls))
        assert [capture.title for capture in captures] == [f"T{n}" for n in range(7)]
        assert [[node.text for node in capture.nodes if node.is_text] for capture in captures] \
            == [[f"thread page {n}"] for n in range(7)]
        assert browser.launches >= 2 and browser._in_flight == 0


@pytest.mark.browser
def test_batch_reads_its_list_from_stdin_relative_to_the_current_folder(tmp_path):
    """``wps batch - --out DIR``: a list piped in, its relative paths from where the shell is
    (not from a temporary file's folder); a JSONL piped in is read as JSONL."""
    import subprocess
    import sys

    (tmp_path / "pages").mkdir()
    for name in ("a", "b"):
        (tmp_path / "pages" / f"{name}.html").write_text(
            f"<p>Page {name} tells of a long walk along the river in the autumn rain.</p>")
    listing = b"# two local pages\npages/a.html\npages/b.html\n"
    command = [sys.executable, "-m", "wps", "batch", "-", "--out", "out", "--no-progress",
               "--settle", "0"]
    done = subprocess.run(command, input=listing, cwd=tmp_path, capture_output=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert (summary["done"], summary["failed"]) == (2, 0)
    stored = json.dumps({"url": "https://walks.example/1",
                         "html": "<p>A stored page about the same long walk by the river.</p>"})
    done = subprocess.run([*command[:6], "out-jsonl", *command[7:]], input=stored.encode(),
                          cwd=tmp_path, capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    lines = [json.loads(line) for path in (tmp_path / "out-jsonl").rglob("segments.jsonl")
             for line in path.read_text().splitlines()]
    assert {line["url"] for line in lines} == {"https://walks.example/1"}
    empty = subprocess.run(command, input=b"\n", cwd=tmp_path, capture_output=True, timeout=60)
    assert empty.returncode == UsageError.exit_code
    assert empty.stderr.decode().count("\n") == 1


def test_a_batch_logged_to_a_file_reports_progress_failed_inputs_and_stages(
        pages, tmp_path, capsys, monkeypatch):
    """stderr that is no terminal (a log file, nohup, Slurm) gets plain progress lines instead
    of a bar; the closing lines name the inputs that failed and the time per stage."""
    import wps.runner.batch as batch_module
    from wps.runner.options import BatchSummary

    monkeypatch.setattr(batch_module, "PROGRESS_LOG_S", 0.0)
    good, missing, local = pages
    summary = run_batch([*good, missing, str(local)], tmp_path / "out",
                        BatchOptions(pipeline=FAST_PIPELINE))  # progress: the default
    logged = [line for line in capsys.readouterr().err.splitlines()
              if line.startswith("batch: ") and "pages/min" in line]
    assert len(logged) == 4 and logged[-1].startswith("batch: 4/4 pages: 3 done, 1 failed")
    details = summary.details()
    assert f"  failed: {missing} (HttpStatusError)" in details
    stages = next(line for line in details if line.startswith("  stages, s/page: "))
    assert "navigate " in stages and "after_capture " in stages
    written = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert written["first_failures"] == [[missing, "HttpStatusError"]]
    assert BatchSummary(failed=7, failure_causes={"E": 7},
                        first_failures=[("a", "E")] * 5).details()[1].endswith(
        "and 2 more")

    run_batch(good, tmp_path / "quiet", BatchOptions(pipeline=FAST_PIPELINE, progress=False))
    assert "pages/min" not in capsys.readouterr().err  # --no-progress: nothing while it runs


def _slow_starting_worker() -> None:
    """A pool initializer that takes as long to start as a worker on a loaded machine."""
    import time

    from wps.runner.worker import init_worker

    time.sleep(SLOW_START_S)
    init_worker()


SLOW_START_S = 60.0


@pytest.mark.browser
@pytest.mark.slow
def test_a_page_counts_from_its_start_not_from_a_slow_worker_start(page_server, tmp_path):
    """The watchdog counts a page's time from when its worker starts it: a worker that takes
    longer to start (spawn, imports and warm-up took 35 s at load 20 here) than a page may run
    does not make its first pages overdue. Here the page is overdue after 45 s (a page of one
    line, done in seconds even at that load); its worker takes 60 s to start; the page is done."""
    from wps.executor import LocalExecutor
    from wps.runner import local_engine
    from wps.runner.worker import PageTask, run_in_worker

    url = page_server.add_html("/slow-start", "<p>a page behind a slow worker start</p>")
    capture = CaptureOptions(settle_s=0, scroll_max_steps=1, timeout_s=40, screenshot=False,
                             allow_private=True)
    pipeline = PipelineOptions(capture_options=capture, segmenter="baseline", text=False)
    task = PageTask(url, str(tmp_path / "page"), pipeline, None)
    executor = LocalExecutor(1, 45.0, on_overdue=local_engine._overdue,
                             on_died=local_engine._died, initializer=_slow_starting_worker)
    outcomes = list(executor.run([task], run_in_worker))
    assert [(outcome.ok, outcome.message) for outcome in outcomes] == [(True, "")]
