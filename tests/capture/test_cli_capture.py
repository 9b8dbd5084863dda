"""`wps capture`: writes a capture folder; on failure one stderr line, its exit code, no folder."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from wps.cli import main
from wps.errors import BrowserNotFoundError, HttpStatusError, NetworkError, NotHtmlError
from wps.model import PageCapture

pytestmark = pytest.mark.browser

FAST = ["--settle", "0", "--scroll-steps", "1", "--timeout", "10", "--allow-private"]


def wps_lines(err: str, url: str) -> list[str]:
    """The stderr lines wps wrote: its messages start with ``wps: `` or, on success, the page URL.

    ``capsys`` captures the whole process's ``sys.stderr``, the test server's request threads
    included; only wps's own lines are asserted on (the subprocess test below checks a whole
    stderr, where nothing else writes).
    """
    return [line for line in err.splitlines() if line.startswith(("wps: ", f"{url}: "))]


def test_capture_writes_a_loadable_folder(page_server, tmp_path, capsys):
    url = page_server.add_html(
        "/cli-page", "<!doctype html><title>CLI</title><body style='margin:0'>"
        "<div style='width:200px;height:30px'>hello cli</div></body>")
    out = tmp_path / "capture"
    assert main(["capture", url, "--out", str(out), "--width", "1024", *FAST]) == 0
    assert sorted(path.name for path in out.iterdir()) == [
        "capture.json", "dom.html", "screenshot.png"]
    capture = PageCapture.load(out)
    assert capture.url == url and capture.title == "CLI" and capture.width == 1024
    assert [node.text for node in capture.nodes if node.is_text] == ["hello cli"]
    assert capture.nodes[1].bbox == (0, 0, 200, 30)
    assert "hello cli" in (out / "dom.html").read_text(encoding="utf-8")
    lines = wps_lines(capsys.readouterr().err, url)
    assert len(lines) == 1 and lines[0].startswith(f"{url}: 3 nodes, 1024x768 px")


def test_refuses_to_replace_a_folder_that_is_not_a_capture(page_server, tmp_path, capsys):
    url = page_server.add_html("/cli-guard", "<p>x</p>")
    precious = tmp_path / "documents"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me", encoding="utf-8")
    assert main(["capture", url, "--out", str(precious), *FAST]) == 2
    assert "refusing to replace" in capsys.readouterr().err
    assert (precious / "notes.txt").read_text(encoding="utf-8") == "keep me"
    assert main(["capture", url, "--out", str(tmp_path / "cap"), *FAST]) == 0
    assert main(["capture", url, "--out", str(tmp_path / "cap"), *FAST]) == 0  # a capture: fine


def test_no_screenshot_option(page_server, tmp_path):
    url = page_server.add_html("/cli-noshot", "<p>no shot</p>")
    out = tmp_path / "capture"
    assert main(["capture", url, "--out", str(out), "--no-screenshot", *FAST]) == 0
    assert not (out / "screenshot.png").exists()
    assert PageCapture.load(out).screenshot is None


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("kind", ["404", "refused", "json"])
def test_failures_print_one_line_and_leave_no_output(page_server, tmp_path, capsys, kind):
    if kind == "404":
        url, error = page_server.url("/cli-missing"), HttpStatusError
    elif kind == "refused":
        url, error = f"http://127.0.0.1:{closed_port()}/", NetworkError
    else:
        page_server.routes["/cli.json"] = (200, "application/json", b"[]")
        url, error = page_server.url("/cli.json"), NotHtmlError
    out = tmp_path / "capture"
    assert main(["capture", url, "--out", str(out), *FAST]) == error.exit_code
    lines = wps_lines(capsys.readouterr().err, url)
    assert len(lines) == 1 and lines[0].startswith(f"wps: error: {url}: ")
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_missing_chromium_exit_code(page_server, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("WPS_CHROMIUM", "/nonexistent/chromium")
    url = page_server.add_html("/cli-nobrowser", "<p>x</p>")
    out = tmp_path / "capture"
    code = main(["capture", url, "--out", str(out), "--allow-private"])  # passes the guard
    assert code == BrowserNotFoundError.exit_code
    lines = wps_lines(capsys.readouterr().err, url)
    assert len(lines) == 1 and "/nonexistent/chromium" in lines[0] and not out.exists()


def test_console_script_has_no_traceback_without_debug(page_server, tmp_path):
    url = page_server.url("/cli-missing-subprocess")
    out = tmp_path / "capture"
    command = [sys.executable, "-m", "wps", "capture", url, "--out", str(out), *FAST]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert result.returncode == HttpStatusError.exit_code
    assert result.stderr == f"wps: error: {url}: HTTP 404 Not Found\n"
    assert not out.exists()
