"""Shared fixtures: the ../shared data folders and a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import socket
import sys
import threading
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable

import pytest
from shared_data import ARTICLE_BENCHMARK, WEBIS_SAMPLE, require_shared

BROWSER_FIXTURES = frozenset({"browser", "segment_browser", "render", "text_browser"})
"""Fixtures that start Chromium: a test using one (directly or through another fixture) is marked
``browser``. Tests that start it otherwise (``capture_page``, ``Browser(...)``, a ``wps
capture/segment/batch`` subprocess on a page) carry the mark themselves."""


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if BROWSER_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def webis_sample() -> Path:
    return require_shared(WEBIS_SAMPLE)


@pytest.fixture(scope="session")
def webis_page(webis_sample: Path) -> Path:
    return webis_sample / "000000"


@pytest.fixture(scope="session")
def article_benchmark() -> Path:
    return require_shared(ARTICLE_BENCHMARK)


Route = Callable[[BaseHTTPRequestHandler], None] | tuple[int, str, bytes]


class QuietServer(ThreadingHTTPServer):
    """A threading HTTP server that never writes into the tests' captured stderr.

    A browser closing a connection early (an aborted download, a page closed while a route still
    writes) is normal and ignored; any other error of a request thread is kept in ``errors`` and
    printed to the process's real stderr (``sys.__stderr__``), so ``capsys`` sees only what the
    code under test wrote.
    """

    daemon_threads = True

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.errors: list[str] = []
        self.disconnects = 0
        """Requests whose client went away while the server answered (not errors)."""

    def handle_error(self, request: object, client_address: object) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipe, ConnectionReset/Aborted
            self.disconnects += 1
            return
        self.errors.append(traceback.format_exc())
        if sys.__stderr__ is not None:
            print(f"test server: request from {client_address} failed:\n{self.errors[-1]}",
                  file=sys.__stderr__, end="")


class QuietServer6(QuietServer):
    address_family = socket.AF_INET6


class PageServer:
    """A real HTTP server on ``host`` (127.0.0.1 unless told); tests add routes: path ->
    (status, content type, body)."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[str] = []
        """Every path asked for, in order (to prove that a request was never sent)."""
        routes, requests = self.routes, self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                requests.append(self.path)
                route = routes.get(self.path.split("?", 1)[0])
                if route is None:
                    self.send_error(404)
                    return
                if callable(route):
                    route(self)
                    return
                status, content_type, body = route
                PageServer.reply(self, body, content_type, status)

            def log_message(self, *args: object) -> None:
                pass

        self.host = host
        self.httpd = (QuietServer6 if ":" in host else QuietServer)((host, 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,),
                                       daemon=True)
        self.thread.start()

    @staticmethod
    def reply(handler: BaseHTTPRequestHandler, body: bytes, content_type: str = "text/html",
              status: int = 200) -> None:
        """Answer a request with ``body``: what a route does, and a callable route once it has
        done its own part (waited, counted)."""
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def url(self, path: str) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{path}"

    def add_html(self, path: str, html: str, status: int = 200) -> str:
        self.routes[path] = (status, "text/html; charset=utf-8", html.encode("utf-8"))
        return self.url(path)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="session")
def page_server():
    server = PageServer()
    yield server
    server.close()


@pytest.fixture
def other_server():
    """A second origin on 127.0.0.1 (another port), to see which requests a page sends it."""
    server = PageServer()
    yield server
    server.close()


@pytest.fixture
def other_host_server():
    """A server on another host, 127.0.0.2: another site than every 127.0.0.1 server."""
    server = PageServer("127.0.0.2")
    yield server
    server.close()


@pytest.fixture
def server_on():
    """Servers on the hosts asked for (``server_on("::1")``), closed after the test; the test
    is skipped where the machine has no such address (a container without IPv6)."""
    servers: list[PageServer] = []

    def start(host: str) -> PageServer:
        try:
            servers.append(PageServer(host))
        except OSError as error:
            pytest.skip(f"cannot serve on {host} here: {error}")
        return servers[-1]

    yield start
    for server in servers:
        server.close()


@pytest.fixture
def folder_dataset(webis_sample: Path, tmp_path: Path) -> Path:
    """A small Webis-WebSeg-20 copy in the extracted-folder layout (see webis_fakes)."""
    from webis_fakes import make_folder_dataset

    return make_folder_dataset(webis_sample, tmp_path / "extracted")


@pytest.fixture
def zip_dataset(folder_dataset: Path, tmp_path: Path) -> Path:
    """The same copy packed as the published zip parts."""
    from wps.webis import WebisDataset, write_zip_parts

    write_zip_parts(WebisDataset(folder_dataset), tmp_path / "zips")
    return tmp_path / "zips"
