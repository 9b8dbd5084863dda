"""Ctrl-C during rendering ends with one stderr line; temporary screenshot folders do not leak."""

from __future__ import annotations

import gc
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from wps.capture import Browser, capture_page, discard_screenshot
from wps.capture.screenshots import SCREENSHOT_PREFIX
from wps.cli import INTERRUPTED_EXIT
from wps.files import HOST_TAG

pytestmark = pytest.mark.browser


STALLED = threading.Event()
"""Set once the stalled response has begun: Chromium is waiting on the rest of it."""


def _stall(handler) -> None:
    STALLED.set()
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html")
    handler.end_headers()
    handler.wfile.write(b"<!doctype html><p>partial")
    handler.wfile.flush()
    time.sleep(6)


def _own_screenshot_folders() -> set[Path]:
    """This process's screenshot folders (named ``wps-capture-<pid>-<host>-*``): other wps
    processes on the machine make and remove theirs in the same temp folder at any time."""
    pattern = f"{SCREENSHOT_PREFIX}{os.getpid()}-{HOST_TAG}-*"
    return set(Path(tempfile.gettempdir()).glob(pattern))


def _as_from_a_terminal() -> None:
    """The child starts with Ctrl-C delivered and handled by default, as a shell starts it: the
    test process may have inherited or set another disposition (a library imported while tests
    are collected), which the child would inherit and Python then leaves alone."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_ctrl_c_while_a_page_stalls_prints_one_line(page_server, tmp_path):
    STALLED.clear()
    page_server.routes["/interrupt-stall"] = _stall
    url = page_server.url("/interrupt-stall")
    out = tmp_path / "capture"
    command = [sys.executable, "-m", "wps", "capture", url, "--out", str(out),
               "--settle", "0", "--scroll-steps", "1", "--timeout", "20", "--allow-private"]
    # Its own process group, signalled as a whole: a terminal's Ctrl-C reaches the Playwright
    # driver and Chromium too, which is what left unobserved failing futures behind.
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONWARNINGS": "ignore"},
                               start_new_session=True, preexec_fn=_as_from_a_terminal)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not _renderer_started(process.pid):
        time.sleep(0.2)
    assert STALLED.wait(60), "the page was never requested"
    time.sleep(0.5)  # Chromium is up and waiting on the stalled response
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert (process.returncode, stderr) == (INTERRUPTED_EXIT, "wps: interrupted\n")
    assert not out.exists()


def _renderer_started(pid: int) -> bool:
    """Whether the process has a Chromium descendant (the launch is done, the page loading)."""
    listing = subprocess.run(["ps", "-eo", "pid=,ppid=,comm="], check=True, capture_output=True,
                             text=True)
    children: dict[int, list[tuple[int, str]]] = {}
    for line in listing.stdout.splitlines():
        child, parent, name = line.split(None, 2)
        children.setdefault(int(parent), []).append((int(child), name))
    pending = [pid]
    while pending:
        for child, name in children.get(pending.pop(), []):
            if "chrom" in name:
                return True
            pending.append(child)
    return False


def test_browser_close_removes_its_screenshots(page_server, quick):
    first = page_server.add_html("/lifetime-one", "<p>one</p>")
    second = page_server.add_html("/lifetime-two", "<p>two</p>")
    before = _own_screenshot_folders()
    with Browser(quick()) as browser:
        shots = [browser.capture(first).screenshot, browser.capture(second).screenshot]
        assert all(shot is not None and shot.is_file() for shot in shots)
        folders = {shot.parent.parent for shot in shots}  # <browser folder>/page-*/screenshot
        assert len(folders) == 1 and folders <= _own_screenshot_folders() - before
    assert not any(shot.exists() for shot in shots)
    assert not any(folder.exists() for folder in folders)
    assert _own_screenshot_folders() - before == set()


def test_discard_screenshot_removes_one_page_inside_a_browser(page_server, browser):
    url = page_server.add_html("/lifetime-discard", "<p>gone</p>")
    kept = browser.capture(url).screenshot
    dropped = browser.capture(url).screenshot
    discard_screenshot(dropped)
    assert not dropped.parent.exists() and kept.is_file()
    discard_screenshot(kept)
    assert not kept.parent.exists()


def test_capture_without_a_browser_keeps_its_screenshot_until_discarded(page_server, quick):
    url = page_server.add_html("/lifetime-own", "<p>own</p>")
    capture = capture_page(url, quick())
    assert capture.screenshot is not None and capture.screenshot.is_file()
    discard_screenshot(capture.screenshot)
    assert not capture.screenshot.parent.exists()


def test_capture_without_a_browser_is_cleaned_up_at_exit(page_server, tmp_path):
    url = page_server.add_html("/lifetime-exit", "<p>exit</p>")
    script = ("import sys; from wps.capture import capture_page, CaptureOptions; "
              "print(capture_page(sys.argv[1], CaptureOptions(settle_s=0, scroll_max_steps=1, "
              "allow_private=True))"
              ".screenshot)")
    result = subprocess.run([sys.executable, "-c", script, url], check=False, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    shot = Path(result.stdout.strip())
    assert shot.name == "screenshot.png" and not shot.parent.exists()


def test_ctrl_c_inside_a_page_leaves_no_pending_work(page_server, quick, caplog):
    """Ctrl-C landing inside the render task (here: from the page hook) unwinds it at once;
    closing the browser afterwards neither re-raises it nor reports an unretrieved exception."""
    url = page_server.add_html("/interrupt-hook", "<p>hook</p>")
    interrupts = [True]

    async def interrupt_once(page) -> None:
        if interrupts:
            interrupts.pop()
            raise KeyboardInterrupt

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        browser = Browser(quick(), page_hook=interrupt_once)
        try:
            with pytest.raises(KeyboardInterrupt):
                browser.capture(url)
            assert browser.capture(url).nodes[-1].text == "hook"  # still usable
        finally:
            browser.close()
        gc.collect()
    assert not [record for record in caplog.records if "never retrieved" in record.getMessage()]
