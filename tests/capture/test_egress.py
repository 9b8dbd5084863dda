"""The egress proxy with real sockets, on 127.0.0.1 only: an origin server that logs every
connection and request, the proxy on an event loop in a thread, raw-socket clients (urllib
would honour ``no_proxy`` and could skip the proxy unseen)."""

from __future__ import annotations

import asyncio
import gzip
import os
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from wps.capture.egress import HEAD_LIMIT, BlockedRequest, EgressProxy

BODY = b"hello from the origin \x00\xff" * 100


class Origin:
    """An HTTP/1.1 server on 127.0.0.1 that logs connections, request lines and headers.

    Its responses say ``Connection: keep-alive`` (the proxy must rewrite that) although it
    closes after each one."""

    def __init__(self) -> None:
        self.connections = 0
        self.requests: list[tuple[str, dict[str, str]]] = []
        origin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802
                origin.requests.append((self.requestline, dict(self.headers.items())))
                self.reply(200, BODY)

            def do_POST(self) -> None:  # noqa: N802
                origin.requests.append((self.requestline, dict(self.headers.items())))
                length = int(self.headers.get("Content-Length", "0"))
                self.reply(201, b"got " + self.rfile.read(length))

            def reply(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "keep-alive")
                self.send_header("Keep-Alive", "timeout=60")
                self.end_headers()
                self.wfile.write(body)
                self.close_connection = True

            def log_message(self, *args: object) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def verify_request(self, request, client_address) -> bool:
                origin.connections += 1
                return True

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class ProxyRunner:
    """Proxies on an event loop of their own thread, as wps runs them beside Playwright."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.loop_errors: list[dict] = []
        """What the loop's exception handler saw (unhandled errors, tasks left pending)."""
        self.loop.set_exception_handler(lambda loop, context: self.loop_errors.append(context))
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.proxies: list[EgressProxy] = []

    def run(self, coroutine, timeout: float = 10.0):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def start(self, **options) -> tuple[EgressProxy, int]:
        proxy = EgressProxy(**options)
        url = self.run(proxy.start())
        self.proxies.append(proxy)
        assert url.startswith("http://127.0.0.1:")
        return proxy, int(url.rsplit(":", 1)[1])

    def close(self) -> None:
        for proxy in self.proxies:
            self.run(proxy.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()
        assert self.loop_errors == []


@pytest.fixture
def origin():
    server = Origin()
    yield server
    server.close()


@pytest.fixture
def proxies():
    runner = ProxyRunner()
    yield runner
    runner.close()


def connect(port: int) -> socket.socket:
    client = socket.create_connection(("127.0.0.1", port), timeout=5)
    client.settimeout(5)
    return client


def exchange(port: int, request: bytes) -> bytes:
    """Send ``request`` to the proxy and read until it closes the connection."""
    with connect(port) as client:
        client.sendall(request)
        return read_all(client)


def read_all(client: socket.socket) -> bytes:
    chunks = []
    while chunk := client.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def read_head(client: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = client.recv(1)
        if not chunk:
            break
        data += chunk
    return data


def split_response(raw: bytes) -> tuple[str, dict[str, str], bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers: dict[str, str] = {}
    for line in lines:
        name, _, value = line.partition(":")
        assert name.lower() not in headers, f"repeated header {name}"
        headers[name.lower()] = value.strip()
    return status, headers, body


def get(origin_port: int, host: str = "127.0.0.1", path: str = "/hello?x=1") -> bytes:
    return (f"GET http://{host}:{origin_port}{path} HTTP/1.1\r\n"
            f"Host: {host}:{origin_port}\r\nProxy-Connection: keep-alive\r\n"
            "Connection: keep-alive, X-Hop\r\nKeep-Alive: 300\r\nX-Hop: 1\r\n"
            "Proxy-Authorization: Basic c2VjcmV0\r\nX-Custom: kept\r\n\r\n").encode()


# ------------------------------------------------------------------------------ plain HTTP
def test_get_is_forwarded_in_origin_form_and_the_response_comes_back_intact(origin, proxies):
    proxy, port = proxies.start(allow_private=True)
    status, headers, body = split_response(exchange(port, get(origin.port)))
    assert status == "HTTP/1.1 200 OK"
    assert body == BODY and headers["content-length"] == str(len(BODY))
    assert headers["connection"] == "close" and "keep-alive" not in headers
    request_line, sent = origin.requests[0]
    assert request_line == "GET /hello?x=1 HTTP/1.1"
    assert sent["Connection"] == "close" and sent["Host"] == f"127.0.0.1:{origin.port}"
    assert sent["X-Custom"] == "kept"
    assert not {"Proxy-Connection", "Keep-Alive", "Proxy-Authorization", "X-Hop"} & set(sent)
    assert proxy.requests == 1 and proxy.blocked == []


def test_request_body_is_piped_through(origin, proxies):
    _, port = proxies.start(allow_private=True)
    payload = b"a=1&b=" + b"x" * 200_000
    request = (f"POST http://127.0.0.1:{origin.port}/form HTTP/1.1\r\n"
               f"Host: 127.0.0.1:{origin.port}\r\nContent-Length: {len(payload)}\r\n\r\n")
    status, _, body = split_response(exchange(port, request.encode() + payload))
    assert status == "HTTP/1.1 201 Created" and body == b"got " + payload


def test_get_to_loopback_is_refused_and_never_reaches_the_server(origin, proxies):
    proxy, port = proxies.start(allow_private=False)
    url = f"http://127.0.0.1:{origin.port}/hello?x=1"
    status, headers, body = split_response(exchange(port, get(origin.port)))
    assert status == "HTTP/1.1 403 Forbidden"
    reason = headers["x-wps-blocked"]
    assert "127.0.0.1 is a loopback address" in reason and "--allow-private" in reason
    assert reason.encode() in body
    assert proxy.blocked == [BlockedRequest(url, reason)]
    assert origin.connections == 0 and origin.requests == []


def test_refused_request_with_a_body_still_gets_its_403(origin, proxies):
    """The proxy reads and drops the unread body: closing on it would reset the connection,
    and the client could lose the answer."""
    proxy, port = proxies.start(allow_private=False)
    payload = b"x" * 2_000_000
    request = (f"POST http://127.0.0.1:{origin.port}/form HTTP/1.1\r\n"
               f"Content-Length: {len(payload)}\r\n\r\n").encode()
    with connect(port) as client:
        client.sendall(request + payload[:500_000])
        assert read_head(client).startswith(b"HTTP/1.1 403 Forbidden")
    assert len(proxy.blocked) == 1 and origin.connections == 0


@pytest.mark.parametrize("host", ["0x7f000001", "2130706433", "127.1", "[::ffff:127.0.0.1]",
                                  "localhost"])
def test_other_spellings_of_loopback_are_refused(origin, proxies, host):
    proxy, port = proxies.start(allow_private=False)
    status, _, _ = split_response(exchange(port, get(origin.port, host)))
    assert status == "HTTP/1.1 403 Forbidden" and len(proxy.blocked) == 1
    assert origin.connections == 0


def test_name_is_resolved_once_and_the_checked_address_is_used(origin, proxies):
    """No second lookup a rebinding DNS server could answer differently: the proxy connects
    to the address it checked and passes the name on in Host."""
    lookups: list[str] = []

    def resolve(name: str) -> list[str]:
        lookups.append(name)
        return ["127.0.0.1"]

    blocking, port = proxies.start(allow_private=False, resolve=resolve)
    status, headers, _ = split_response(exchange(port, get(origin.port, "internal.test")))
    assert status == "HTTP/1.1 403 Forbidden" and "loopback" in headers["x-wps-blocked"]
    assert blocking.blocked[0].target == f"http://internal.test:{origin.port}/hello?x=1"
    assert origin.connections == 0

    _, port = proxies.start(allow_private=True, resolve=resolve)
    status, _, body = split_response(exchange(port, get(origin.port, "internal.test")))
    assert status == "HTTP/1.1 200 OK" and body == BODY
    assert lookups == ["internal.test", "internal.test"]
    assert origin.requests[0][1]["Host"] == f"internal.test:{origin.port}"


def test_async_resolver_and_lookup_failure(origin, proxies):
    async def resolve(name: str) -> list[str]:
        if name == "nowhere.test":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return ["127.0.0.1"]

    proxy, port = proxies.start(allow_private=True, resolve=resolve)
    status, _, body = split_response(exchange(port, get(origin.port, "nowhere.test")))
    assert status == "HTTP/1.1 502 Bad Gateway" and b"DNS lookup failed" in body
    assert proxy.blocked == []
    status, _, _ = split_response(exchange(port, get(origin.port, "somewhere.test")))
    assert status == "HTTP/1.1 200 OK"


def test_refuse_all_refuses_everything(origin, proxies):
    proxy, port = proxies.start(allow_private=True, refuse_all=True)
    status, headers, _ = split_response(exchange(port, get(origin.port)))
    assert status == "HTTP/1.1 403 Forbidden" and "local page" in headers["x-wps-blocked"]
    connect_request = f"CONNECT 127.0.0.1:{origin.port} HTTP/1.1\r\n\r\n".encode()
    assert exchange(port, connect_request).startswith(b"HTTP/1.1 403 ")
    assert len(proxy.blocked) == 2 and origin.connections == 0


def test_an_origin_holds_every_request_to_it(origin, proxies):
    """``--same-origin``: whatever the page asks for, each redirect hop included, goes to the
    page's origin only (written in any form Chromium may send it); a tunnel to its host:port."""
    proxy, port = proxies.start(allow_private=True,
                                origin=f"HTTP://0x7f.1:{origin.port}/page.html")
    status, _, body = split_response(exchange(port, get(origin.port)))
    assert status == "HTTP/1.1 200 OK" and body == BODY
    other_port = socket.create_server(("127.0.0.2", 0))
    with other_port:
        refused = [get(origin.port, "127.0.0.2"), get(origin.port, "localhost"),
                   get(other_port.getsockname()[1], "127.0.0.2"),
                   f"CONNECT 127.0.0.2:{origin.port} HTTP/1.1\r\n\r\n".encode()]
        for request in refused:
            status, headers, _ = split_response(exchange(port, request))
            assert status == "HTTP/1.1 403 Forbidden"
            assert headers["x-wps-blocked"] == (f"refused, not the page's origin "
                                                f"http://127.0.0.1:{origin.port} (--same-origin)")
    with connect(port) as client:
        client.sendall(f"CONNECT 127.0.0.1:{origin.port} HTTP/1.1\r\n\r\n".encode())
        assert read_head(client).startswith(b"HTTP/1.1 200 ")
    assert len(proxy.blocked) == 4 and len(origin.requests) == 1


# -------------------------------------------------------------------------------- CONNECT
def test_connect_tunnels_bytes_both_ways(origin, proxies):
    proxy, port = proxies.start(allow_private=True)
    with connect(port) as client:
        client.sendall(f"CONNECT 127.0.0.1:{origin.port} HTTP/1.1\r\n"
                       f"Host: 127.0.0.1:{origin.port}\r\n\r\n".encode())
        assert read_head(client) == b"HTTP/1.1 200 Connection established\r\n\r\n"
        client.sendall(b"GET /tunnelled HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        status, headers, body = split_response(read_all(client))
    assert status == "HTTP/1.1 200 OK" and body == BODY
    assert headers["connection"] == "keep-alive"  # a tunnel passes bytes untouched
    assert origin.requests[0][0] == "GET /tunnelled HTTP/1.1"
    assert proxy.requests == 1


def test_connect_to_loopback_is_refused(origin, proxies):
    proxy, port = proxies.start(allow_private=False)
    for target in (f"127.0.0.1:{origin.port}", f"[::ffff:127.0.0.1]:{origin.port}",
                   f"localhost:{origin.port}"):
        status, headers, _ = split_response(
            exchange(port, f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode()))
        assert status == "HTTP/1.1 403 Forbidden" and "loopback" in headers["x-wps-blocked"]
    assert [item.target for item in proxy.blocked] == [
        f"127.0.0.1:{origin.port}", f"[::ffff:127.0.0.1]:{origin.port}",
        f"localhost:{origin.port}"]
    assert origin.connections == 0


def test_connect_to_a_name_resolving_to_loopback_is_refused(origin, proxies):
    proxy, port = proxies.start(allow_private=False, resolve=lambda name: ["93.184.216.34",
                                                                           "127.0.0.1"])
    raw = exchange(port, f"CONNECT rebind.test:{origin.port} HTTP/1.1\r\n\r\n".encode())
    assert raw.startswith(b"HTTP/1.1 403 ") and b"127.0.0.1 is a loopback" in raw
    assert proxy.blocked[0].target == f"rebind.test:{origin.port}"
    assert origin.connections == 0


def test_connect_to_a_closed_port_is_a_502(proxies):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    _, port = proxies.start(allow_private=True)
    raw = exchange(port, f"CONNECT 127.0.0.1:{closed_port} HTTP/1.1\r\n\r\n".encode())
    assert raw.startswith(b"HTTP/1.1 502 Bad Gateway")
    assert b"connection refused" in raw and b"X-Wps-Error" in raw


def test_close_ends_open_tunnels_promptly(proxies):
    """A tunnel to a server that never speaks stays open until close() cuts it."""
    silent = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    threading.Thread(target=lambda: accepted.append(silent.accept()[0]), daemon=True).start()
    proxy = EgressProxy(allow_private=True)
    port = int(proxies.run(proxy.start()).rsplit(":", 1)[1])
    try:
        with connect(port) as client:
            client.sendall(f"CONNECT 127.0.0.1:{silent.getsockname()[1]} HTTP/1.1\r\n\r\n"
                           .encode())
            assert read_head(client).startswith(b"HTTP/1.1 200 ")
            started = time.monotonic()
            proxies.run(proxy.close())
            try:
                assert client.recv(100) == b""
            except ConnectionResetError:
                pass
            assert time.monotonic() - started < 2
        with pytest.raises(OSError):
            connect(port).close()
    finally:
        for sock in accepted:
            sock.close()
        silent.close()


# ------------------------------------------------------------------------ bad requests
@pytest.mark.parametrize("request_bytes, status", [
    (b"HELLO\r\n\r\n", "400"),
    (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "400"),  # origin form: not a proxy request
    (b"CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n", "400"),  # no port
    (b"CONNECT 127.0.0.1:99999 HTTP/1.1\r\n\r\n", "400"),
    (b"GET http://127.0.0.1/ HTTP/1.1\r\n folded: header\r\n\r\n", "400"),
    (b"GET ftp://127.0.0.1/ HTTP/1.1\r\n\r\n", "403"),
    (b"GET https://127.0.0.1/ HTTP/1.1\r\n\r\n", "403"),
    (b"GET http://127.0.0.1/ HTTP/1.1\r\nX-Big: " + b"a" * HEAD_LIMIT + b"\r\n\r\n", "431"),
])
def test_bad_requests_are_answered_and_do_not_hurt_the_proxy(origin, proxies, request_bytes,
                                                              status):
    _, port = proxies.start(allow_private=True)
    with connect(port) as client:
        client.sendall(request_bytes)
        assert read_head(client).startswith(f"HTTP/1.1 {status} ".encode())
    status_line, _, body = split_response(exchange(port, get(origin.port)))
    assert status_line == "HTTP/1.1 200 OK" and body == BODY


def test_silent_and_vanishing_clients_do_not_hurt_the_proxy(origin, proxies):
    proxy, port = proxies.start(allow_private=True, head_timeout_s=0.2)
    with connect(port) as silent:
        assert silent.recv(10) == b""  # closed after the head timeout
    with connect(port) as half:
        half.sendall(b"GET http://127.0.0.1:1/ HT")
    status, _, _ = split_response(exchange(port, get(origin.port)))
    assert status == "HTTP/1.1 200 OK" and proxy.requests == 1


# ------------------------------------------------------------------- judged HTML bodies
NAVIGATION_HEADERS = ("Accept: text/html,application/xhtml+xml,*/*;q=0.8\r\n"
                      "Accept-Encoding: gzip, deflate, br, zstd\r\n")
HTML = b"<html><body>" + b"<p>A paragraph of plain text about baking rye bread.</p>" * 2000


def _serve_in_two_parts(first: bytes, second: bytes, encoding: str = ""):
    """A route sending ``first``, then after a pause ``second``: two reads for the proxy."""
    def answer(handler) -> None:
        coding = f"Content-Encoding: {encoding}\r\n" if encoding else ""
        handler.wfile.write(f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{coding}"
                            f"Content-Length: {len(first) + len(second)}\r\n"
                            "Connection: close\r\n\r\n".encode() + first)
        handler.wfile.flush()
        time.sleep(0.3)
        handler.wfile.write(second)
    return answer


def _navigate(port: int, url: str, headers: str = NAVIGATION_HEADERS) -> bytes:
    host = url.split("/")[2]
    return exchange(port, f"GET {url} HTTP/1.1\r\nHost: {host}\r\n{headers}\r\n".encode())


def test_a_navigation_binary_from_the_start_is_answered_not_html(page_server, proxies):
    proxy, port = proxies.start(allow_private=True)
    junk = os.urandom(1 << 20)
    url = page_server.url("/junk-from-the-start")
    page_server.routes["/junk-from-the-start"] = (200, "text/html", junk)
    status, headers, body = split_response(_navigate(port, url))
    assert status == "HTTP/1.1 502 Bad Gateway"
    assert headers["x-wps-not-html"] == "not an HTML page (the body is binary data)"
    assert junk[:64] not in body
    assert proxy.not_html == [BlockedRequest(url, "not an HTML page (the body is binary data)")]


def test_a_navigation_turning_binary_is_cut_before_the_binary_part(page_server, proxies):
    proxy, port = proxies.start(allow_private=True)
    url = page_server.url("/junk-later")
    page_server.routes["/junk-later"] = _serve_in_two_parts(HTML, os.urandom(1 << 20))
    status, _, body = split_response(_navigate(port, url))
    assert status == "HTTP/1.1 200 OK"
    assert body == HTML  # what came before the binary part, nothing of it
    assert [item.target for item in proxy.not_html] == [url]


def test_gzipped_text_and_other_requests_pass_through_intact(page_server, proxies):
    """A gzipped page sent in two parts comes through byte for byte; binary bytes fetched by
    a script or an image (not a navigation) are not the page's document and are not judged."""
    proxy, port = proxies.start(allow_private=True)
    packed = gzip.compress(HTML)
    page_server.routes["/gzipped"] = _serve_in_two_parts(packed[:5000], packed[5000:], "gzip")
    status, _, body = split_response(_navigate(port, page_server.url("/gzipped")))
    assert status == "HTTP/1.1 200 OK" and body == packed
    junk = os.urandom(200_000)
    page_server.routes["/fetched-junk"] = (200, "text/html", junk)
    fetched = _navigate(port, page_server.url("/fetched-junk"), "Accept: */*\r\n")
    assert split_response(fetched)[2] == junk
    assert proxy.not_html == []


def test_a_malformed_response_head_is_the_servers_fault(page_server, proxies):
    """A folded header line in the *response* is a bad gateway (502), not a bad request."""
    _, port = proxies.start(allow_private=True)

    def folded(handler) -> None:
        handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n folded: x\r\n"
                            b"Content-Length: 2\r\nConnection: close\r\n\r\nok")

    page_server.routes["/folded"] = folded
    url = page_server.url("/folded")
    status, headers, _ = split_response(exchange(
        port, f"GET {url} HTTP/1.1\r\nHost: {url.split('/')[2]}\r\n\r\n".encode()))
    assert status == "HTTP/1.1 502 Bad Gateway"
    assert headers["x-wps-error"] == "response head: malformed header line"


def test_a_connection_closed_with_data_still_buffered_ends_quietly():
    # The proxy closes a connection gracefully (what is buffered is sent first), then aborts it
    # in case the peer did not read. CPython's selector transport (3.11 to 3.13) ends such a
    # connection without counting itself lost once the buffer drains, and an abort then fails
    # on its loop, gone ("'NoneType' object has no attribute 'call_soon'"): the proxy's
    # connection task died with a traceback, and a proxy closing with such a connection open
    # stopped half-way.
    from wps.capture.egress import _close_gracefully

    async def scenario() -> bytes:
        closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def answer(reader, writer):
            writer.transport.set_write_buffer_limits(high=1 << 30)  # keep it all buffered
            writer.write(b"x" * (8 << 20))
            try:
                await _close_gracefully(writer)
                closed.set_result(None)
            except BaseException as error:  # noqa: BLE001 - handed to the test
                closed.set_exception(error)

        server = await asyncio.start_server(answer, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        received = await reader.read()  # to the end: the buffer drains, the server closes
        await asyncio.wait_for(closed, 10)
        writer.close()
        server.close()
        await server.wait_closed()
        return received

    assert len(asyncio.run(scenario())) == 8 << 20
