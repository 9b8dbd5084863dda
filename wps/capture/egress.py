"""The egress proxy: every request of the browser leaves through it, checked by the guard.

Chromium is told to send all its traffic (``proxy={"server": url, "bypass": ""}``) to an HTTP
proxy on 127.0.0.1, so that it never resolves a name or opens a socket itself. The proxy
resolves each target once, refuses it when any address is internal (:mod:`.addresses`), and
connects to the checked address, never to the name: a DNS answer that changes between check
and use (rebinding) cannot reach the LAN. ``CONNECT host:port`` (HTTPS, WebSockets) becomes a
byte tunnel; a plain ``GET http://host/path`` is forwarded in origin form with
``Connection: close`` both ways, so Chromium never sends a second request, perhaps for another
host, down a connection that was checked for the first one. Under ``--same-origin`` the proxy
also refuses every target off the page's origin: Chromium sends each redirect hop here as a
request of its own, while the request policy only sees the first.

A plain-HTTP navigation's HTML body is judged as it passes (:class:`.sniff.WireBodyJudge`):
binary bytes labelled HTML are cut at the first window that shows them, before the renderer lays
them out (minutes of layout for megabytes of random bytes). Its head waits for the first piece
of body; a body binary from the start is answered ``502`` with ``X-Wps-Not-Html`` instead, a
later cut is recorded in :attr:`EgressProxy.not_html`. Inside an HTTPS tunnel the bytes are
not visible: such a body is judged by the capture once it has arrived.

The proxy runs on the caller's event loop (wps drives Playwright's async API on a private
loop), one per browser and set of rules, shared by its contexts (:mod:`.sessions`):
:meth:`EgressProxy.start` before the first context, :meth:`EgressProxy.close` after the last.
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv6Address

from ..errors import BlockedTargetError, NetworkError
from .addresses import Resolver, canonical_host, check_host_async, split_host_port, url_origin
from .heads import MalformedHead, header_text, parse_head, request_head, response_head
from .sniff import NAVIGATION_ENCODINGS, Unjudgeable, WireBodyJudge, body_judge, is_navigation

HEAD_LIMIT = 64 * 1024
"""The longest request or response head (request line or status line plus headers)."""
PIPE_CHUNK = 64 * 1024
CLOSE_GRACE_S = 5.0
"""How long a finished connection may take to send what is still buffered."""
LINGER_S, LINGER_BYTES = 1.0, 1 << 20
"""How long, and how much, a refused client's unread request is read and dropped."""
LOCAL_PAGE_REASON = "refused, a local page does not reach the network"

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class BlockedRequest:
    """A refused request: ``target`` is ``host:port`` (CONNECT) or the URL (plain HTTP)."""

    target: str
    reason: str


class _Answer(Exception):
    """Answer the client with ``status`` instead of forwarding (a refusal, a bad request)."""

    def __init__(self, status: int, phrase: str, text: str, blocked: bool = False,
                 not_html: bool = False) -> None:
        super().__init__(text)
        self.status, self.phrase, self.text, self.blocked = status, phrase, text, blocked
        self.not_html = not_html


class _BinaryBody(Exception):
    """A judged body turned out binary after its head had gone to the client."""


class EgressProxy:
    """An HTTP proxy on 127.0.0.1 that connects only to addresses the guard allows.

    ``refuse_all`` refuses every request (a local page reaches no network); ``resolve``
    replaces the system lookup (tests); ``connect_timeout_s`` bounds lookup plus connect;
    ``head_timeout_s`` bounds how long a client may take to send its request head.
    ``origin`` (a URL): only that URL's origin is reached (``--same-origin``); a ``CONNECT``
    tunnel only to its host and port.
    """

    def __init__(self, *, allow_private: bool = False, refuse_all: bool = False,
                 resolve: Resolver | None = None, connect_timeout_s: float = 10.0,
                 head_timeout_s: float = 30.0, origin: str | None = None) -> None:
        self.allow_private = allow_private
        self.refuse_all = refuse_all
        self.origin = None if origin is None else url_origin(origin) or ("", "", 0)
        """``(scheme, host, port)`` every request must go to; ``None``: any origin."""
        self.resolve = resolve
        self.connect_timeout_s = connect_timeout_s
        self.head_timeout_s = head_timeout_s
        self.blocked: list[BlockedRequest] = []
        """Every refusal, in order (the browser only sees a failed request)."""
        self.failed: list[BlockedRequest] = []
        """Every target that could not be looked up or connected to (answered 502)."""
        self.not_html: list[BlockedRequest] = []
        """Every navigation whose body was cut as binary (the URL, the verdict)."""
        self.requests = 0
        """Request heads handled (CONNECT or plain HTTP), refused ones included."""
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._closed = False

    # --------------------------------------------------------------------------- life cycle
    async def start(self) -> str:
        """Listen on a free port of 127.0.0.1; returns ``http://127.0.0.1:PORT``."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=HEAD_LIMIT)
        return self.url

    @property
    def url(self) -> str:
        assert self._server is not None, "start() first"
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def close(self) -> None:
        """Stop listening and cut every open connection and tunnel now (not when they end)."""
        self._closed = True
        if self._server is not None:
            self._server.close()
        for writer in list(self._writers):
            _abort(writer)
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._server is not None:
            try:
                await asyncio.wait_for(self._server.wait_closed(), 1.0)
            except (asyncio.TimeoutError, TimeoutError):
                pass

    async def __aenter__(self) -> EgressProxy:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # ------------------------------------------------------------------------- connections
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One client connection, in a task of its own that :meth:`close` may cancel."""
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._writers.add(writer)
        try:
            if not self._closed:
                await self._serve_one(reader, writer)
        except asyncio.CancelledError:
            pass  # close() cut it; a cancelled task would make asyncio log an error
        finally:
            _abort(writer)
            self._writers.discard(writer)
            self._tasks.discard(task)

    async def _serve_one(self, reader: asyncio.StreamReader,
                         writer: asyncio.StreamWriter) -> None:
        """Whatever goes wrong here ends this connection only."""
        try:
            await self._handle(reader, writer)
        except _Answer as answer:
            await _answer(writer, answer)
            await _linger(reader, writer)
        except (OSError, EOFError, asyncio.LimitOverrunError):
            pass  # the client or the server went away
        except Exception:  # noqa: BLE001 - a bug must not take the proxy down with it
            _log.debug("egress proxy: connection failed", exc_info=True)
        finally:
            await _close_gracefully(writer)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await self._read_request_head(reader)
        if head is None:
            return
        self.requests += 1
        method, target, headers = head
        if method == "CONNECT":
            await self._tunnel(target, reader, writer)
        elif target[:7].lower() == "http://":
            await self._forward(method, target, headers, reader, writer)
        elif target[:8].lower() == "https://" or "://" in target:
            raise self._refuse(target, "refused, only http:// requests and CONNECT are proxied")
        else:
            raise _Answer(400, "Bad Request", "not a proxy request (absolute URL expected)")

    async def _read_request_head(self, reader: asyncio.StreamReader
                                 ) -> tuple[str, str, list[tuple[str, str]]] | None:
        """``(method, target, headers)``; ``None`` when the client left or stayed silent."""
        try:
            raw = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.head_timeout_s)
        except (asyncio.LimitOverrunError, ValueError):
            raise _Answer(431, "Request Header Fields Too Large",
                          f"request head longer than {HEAD_LIMIT} bytes") from None
        except (asyncio.TimeoutError, TimeoutError, asyncio.IncompleteReadError):
            return None
        try:
            first, headers = parse_head(raw)
        except MalformedHead as err:
            raise _Answer(400, "Bad Request", str(err)) from None
        parts = first.split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1.") or not parts[0].isalpha():
            raise _Answer(400, "Bad Request", "malformed request line")
        return parts[0].upper(), parts[1], headers

    # ----------------------------------------------------------------------------- CONNECT
    async def _tunnel(self, target: str, reader: asyncio.StreamReader,
                      writer: asyncio.StreamWriter) -> None:
        """``CONNECT host:port``: check, connect to the checked address, then pipe bytes."""
        try:
            host, port = split_host_port(target)
        except ValueError:
            port = None
        if port is None:
            raise _Answer(400, "Bad Request", f"{target}: CONNECT needs host:port")
        self._check_origin(target, None, host, port)
        upstream_reader, upstream_writer = await self._open(target, host, port)
        try:
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await writer.drain()
            await _relay(reader, writer, upstream_reader, upstream_writer)
        finally:
            await self._close_upstream(upstream_writer)

    # -------------------------------------------------------------------------- plain HTTP
    async def _forward(self, method: str, url: str, headers: list[tuple[str, str]],
                       reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """``GET http://host/path``: one request in origin form, one response, then close."""
        rest = url[7:]
        cut = min((index for index in map(rest.find, "/?#") if index >= 0), default=len(rest))
        authority, path = rest[:cut], rest[cut:].partition("#")[0]
        try:
            host, port = split_host_port(authority.rpartition("@")[2], 80)
        except ValueError:
            raise _Answer(400, "Bad Request", f"{url}: bad port") from None
        assert port is not None
        self._check_origin(url, "http", host, port)
        upstream_reader, upstream_writer = await self._open(url, host, port)
        if not path.startswith("/"):
            path = "/" + path
        navigation = is_navigation(headers)
        if navigation:
            headers = [(name, NAVIGATION_ENCODINGS if name.lower() == "accept-encoding" else value)
                       for name, value in headers]
        upstream_writer.write(request_head(method, path, headers, authority))
        body = asyncio.ensure_future(_pipe(reader, upstream_writer))  # the body, if any, as is
        response = asyncio.ensure_future(
            _relay_response(upstream_reader, writer, judge=navigation and method != "HEAD"))
        try:
            # done when the response has been relayed, or when the client has gone
            await asyncio.wait((body, response), return_when=asyncio.FIRST_COMPLETED)
            if response.done():
                response.result()
        except _Answer as answer:
            if answer.not_html:
                self.not_html.append(BlockedRequest(url, answer.text))
            raise
        except _BinaryBody as cut:
            self.not_html.append(BlockedRequest(url, str(cut)))
            _abort(writer)  # the client sees a body cut short, not its end
        finally:
            for task in (body, response):
                task.cancel()
            await asyncio.gather(body, response, return_exceptions=True)
            await self._close_upstream(upstream_writer)

    # ------------------------------------------------------------------------ the upstream
    async def _open(self, target: str, host: str, port: int
                    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """Check ``host`` and connect to the first of its addresses that answers."""
        addresses = await self._check(target, host)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.connect_timeout_s
        failure = "no address"
        for address in addresses:
            try:
                streams = await asyncio.wait_for(
                    asyncio.open_connection(str(address), port, limit=HEAD_LIMIT),
                    max(0.0, deadline - loop.time()))
            except (asyncio.TimeoutError, TimeoutError):
                failure = f"connection timed out after {self.connect_timeout_s:g} s " \
                          f"({_hostport(address, port)})"
                break
            except OSError as error:
                cause = os.strerror(error.errno) if error.errno else str(error)
                failure = f"{cause.lower()} ({_hostport(address, port)})"
                continue
            self._writers.add(streams[1])
            return streams
        raise self._fail(target, failure)

    async def _close_upstream(self, writer: asyncio.StreamWriter) -> None:
        try:
            await _close_gracefully(writer)
        finally:
            self._writers.discard(writer)

    def _check_origin(self, target: str, scheme: str | None, host: str, port: int) -> None:
        """Refuse ``target`` off :attr:`origin` (``scheme`` ``None``: a tunnel, any scheme)."""
        if self.origin is None:
            return
        want_scheme, want_host, want_port = self.origin
        try:
            same_host = canonical_host(host) == want_host
        except ValueError:
            same_host = False
        if not same_host or port != want_port or scheme not in (None, want_scheme):
            raise self._refuse(target, f"refused, not the page's origin {want_scheme}://"
                               f"{want_host}:{want_port} (--same-origin)")

    async def _check(self, target: str, host: str) -> list[IPv4Address | IPv6Address]:
        if self.refuse_all:
            raise self._refuse(target, LOCAL_PAGE_REASON)
        try:
            return await asyncio.wait_for(
                check_host_async(host, allow_private=self.allow_private, resolve=self.resolve),
                self.connect_timeout_s)
        except BlockedTargetError as error:
            raise self._refuse(target, getattr(error, "reason", str(error))) from None
        except NetworkError:
            raise self._fail(target, "DNS lookup failed, host name not found") from None
        except (asyncio.TimeoutError, TimeoutError):
            raise self._fail(target, "DNS lookup timed out") from None

    def _fail(self, target: str, reason: str) -> _Answer:
        self.failed.append(BlockedRequest(target, reason))
        return _Answer(502, "Bad Gateway", reason)

    def _refuse(self, target: str, reason: str) -> _Answer:
        self.blocked.append(BlockedRequest(target, reason))
        return _Answer(403, "Forbidden", reason, blocked=True)


# ---------------------------------------------------------------------------------- helpers
async def _relay_response(upstream: asyncio.StreamReader, writer: asyncio.StreamWriter,
                          judge: bool = False) -> None:
    """The response head, rewritten to ``Connection: close``, then the body as it comes.
    Interim 1xx heads go through unchanged. ``judge``: an HTML body is judged on its way
    (binary from its first piece: answered instead; later: :class:`_BinaryBody`)."""
    while True:
        try:
            raw = await upstream.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            raise _Answer(502, "Bad Gateway", "the server closed without answering") from None
        except (asyncio.LimitOverrunError, ValueError):
            raise _Answer(502, "Bad Gateway", "response head too long") from None
        try:
            status_line, headers = parse_head(raw)
        except MalformedHead as err:
            raise _Answer(502, "Bad Gateway", f"response head: {err}") from None
        parts = status_line.split(" ", 2)
        if not status_line.startswith("HTTP/1.") or len(parts) < 2 or not parts[1].isdecimal():
            raise _Answer(502, "Bad Gateway", "the server did not answer in HTTP/1")
        if parts[1].startswith("1") and parts[1] != "101":
            writer.write(raw)
            continue
        head = response_head(status_line, headers)
        break
    judged = body_judge(parts[1], headers) if judge else None
    if judged is None:
        writer.write(head)
        await _pipe(upstream, writer)
        return
    await _relay_judged(upstream, writer, head, judged)


async def _relay_judged(upstream: asyncio.StreamReader, writer: asyncio.StreamWriter,
                        head: bytes, judge: WireBodyJudge) -> None:
    """The body piece by piece, each judged before it is sent; the head with the first."""
    pending: bytes | None = head
    while True:
        chunk = await upstream.read(PIPE_CHUNK)
        try:
            verdict = judge.feed(chunk) if chunk else judge.finish()
        except Unjudgeable:
            verdict, judge = None, None  # pass the rest through unjudged
        if verdict is not None:
            text = f"not an HTML page (the body is {verdict})"
            if pending is not None:
                raise _Answer(502, "Bad Gateway", text, not_html=True)
            raise _BinaryBody(text)
        if pending is not None:
            writer.write(pending)
            pending = None
        if not chunk:
            break
        writer.write(chunk)
        await writer.drain()
        if judge is None:
            await _pipe(upstream, writer)
            return
    if writer.can_write_eof() and not writer.is_closing():
        writer.write_eof()


async def _relay(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter,
                 upstream_reader: asyncio.StreamReader,
                 upstream_writer: asyncio.StreamWriter) -> None:
    """Pipe both ways until both sides have finished (a half-close is passed on); an error
    on either side ends both."""
    pipes = [asyncio.ensure_future(_pipe(client_reader, upstream_writer)),
             asyncio.ensure_future(_pipe(upstream_reader, client_writer))]
    try:
        await asyncio.gather(*pipes)
    finally:
        for pipe in pipes:
            pipe.cancel()
        await asyncio.gather(*pipes, return_exceptions=True)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while chunk := await reader.read(PIPE_CHUNK):
        writer.write(chunk)
        await writer.drain()
    if writer.can_write_eof() and not writer.is_closing():
        writer.write_eof()


async def _answer(writer: asyncio.StreamWriter, answer: _Answer) -> None:
    """A short plain-text response; a refusal carries its reason in ``X-Wps-Blocked``."""
    body = f"wps egress proxy: {answer.text}\n".encode("utf-8", "replace")
    lines = [f"HTTP/1.1 {answer.status} {answer.phrase}", "Content-Type: text/plain; charset=utf-8",
             f"Content-Length: {len(body)}", "Connection: close"]
    if answer.blocked:
        lines.append(f"X-Wps-Blocked: {header_text(answer.text)}")
    elif answer.not_html:
        lines.append(f"X-Wps-Not-Html: {header_text(answer.text)}")
    elif answer.status == 502:  # the page's host could not be reached: a network error
        lines.append(f"X-Wps-Error: {header_text(answer.text)}")
    try:
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        await asyncio.wait_for(writer.drain(), 5.0)
    except (OSError, asyncio.TimeoutError, TimeoutError):
        pass


async def _close_gracefully(writer: asyncio.StreamWriter) -> None:
    """Close after what is buffered has been sent (an abort would cut a response's tail);
    a peer that does not read within the grace time is cut off."""
    try:
        writer.close()
        await asyncio.wait_for(writer.wait_closed(), CLOSE_GRACE_S)
    except (OSError, asyncio.TimeoutError, TimeoutError):
        pass
    finally:
        _abort(writer)


def _abort(writer: asyncio.StreamWriter) -> None:
    """Cut the connection now; nothing if it has ended. (CPython's selector transport, 3.11 to
    3.13, ends a connection closed with data still buffered without counting itself lost once
    the buffer drains; aborting it then fails on its loop, already gone.)"""
    try:
        writer.transport.abort()
    except AttributeError:  # that ended transport: it has nothing left to cut
        pass


async def _linger(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """After an answer sent before the request was read to its end: say we are done, and read
    what the client still sends until it closes. Closing a socket with unread data resets the
    connection, and the client could lose the answer (a 403's reason) with it."""
    try:
        if writer.can_write_eof():
            writer.write_eof()
        await asyncio.wait_for(_discard(reader, LINGER_BYTES), LINGER_S)
    except (OSError, asyncio.TimeoutError, TimeoutError):
        pass


async def _discard(reader: asyncio.StreamReader, limit: int) -> None:
    while limit > 0 and (chunk := await reader.read(PIPE_CHUNK)):
        limit -= len(chunk)


def _hostport(address: IPv4Address | IPv6Address, port: int) -> str:
    return f"[{address}]:{port}" if address.version == 6 else f"{address}:{port}"
