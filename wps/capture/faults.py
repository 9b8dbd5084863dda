"""Turn what goes wrong while rendering into one-line ``wps.errors`` exceptions: ``<url>: <cause>``.

Playwright reports network failures as Chromium net error codes inside long multi-line messages;
these map to the error classes (and exit codes) of :mod:`wps.errors`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from ..deadline import Deadline
from ..errors import (
    BlockedTargetError,
    CaptureError,
    HttpStatusError,
    InputFileError,
    NetworkError,
    NotHtmlError,
    PageTimeoutError,
    RedirectLoopError,
)
from .sources import PageSource

HTML_TYPES = ("text/html", "application/xhtml+xml")

_NET_ERRORS: dict[str, tuple[type[CaptureError], str]] = {
    "ERR_NAME_NOT_RESOLVED": (NetworkError, "DNS lookup failed, host name not found"),
    "ERR_NAME_RESOLUTION_FAILED": (NetworkError, "DNS lookup failed"),
    "ERR_CONNECTION_REFUSED": (NetworkError, "connection refused"),
    "ERR_CONNECTION_RESET": (NetworkError, "connection reset"),
    "ERR_CONNECTION_CLOSED": (NetworkError, "connection closed"),
    "ERR_CONNECTION_FAILED": (NetworkError, "connection failed"),
    "ERR_CONNECTION_TIMED_OUT": (NetworkError, "connection timed out"),
    "ERR_EMPTY_RESPONSE": (NetworkError, "empty response from server"),
    "ERR_INVALID_RESPONSE": (NetworkError, "invalid HTTP response"),
    "ERR_INVALID_HTTP_RESPONSE": (NetworkError, "invalid HTTP response"),
    "ERR_ADDRESS_UNREACHABLE": (NetworkError, "host unreachable"),
    "ERR_NETWORK_UNREACHABLE": (NetworkError, "network unreachable"),
    "ERR_INTERNET_DISCONNECTED": (NetworkError, "no network connection"),
    "ERR_ADDRESS_INVALID": (NetworkError, "invalid address"),
    "ERR_UNSAFE_PORT": (NetworkError, "port blocked by the browser as unsafe"),
    "ERR_SSL_PROTOCOL_ERROR": (NetworkError, "TLS handshake failed"),
    "ERR_HTTP_RESPONSE_CODE_FAILURE": (HttpStatusError, "HTTP error status with an empty body"),
    "ERR_TIMED_OUT": (PageTimeoutError, "network request timed out"),
    "ERR_TOO_MANY_REDIRECTS": (RedirectLoopError, "redirect loop (too many redirects)"),
    "ERR_FILE_NOT_FOUND": (InputFileError, "file not found"),
    "ERR_ACCESS_DENIED": (InputFileError, "access denied"),
}
_NET_CODE = re.compile(r"net::(ERR_[A-Z0-9_]+)")
_CRASH_MARKERS = (
    "crash", "target closed", "has been closed", "browser closed", "connection closed",
    "browser has disconnected",
)


class RendererCrash(Exception):
    """Internal: the browser or renderer died; the caller restarts it and retries once."""

    def __init__(self, cause: str) -> None:
        super().__init__(cause)
        self.cause = cause


def first_line(message: str) -> str:
    """The first non-empty line of ``message`` without Playwright's call-log suffix."""
    for line in message.strip().splitlines():
        line = line.strip()
        if line and not line.startswith("="):
            return line
    return message.strip()


def translate_error(url: str, error: BaseException, timeout: float | Deadline) -> Exception:
    """The wps error for a Playwright error raised while rendering ``url``.

    A Playwright timeout is the page running out of time, worded as the page's deadline words it
    (one cause, one message): pass that :class:`~wps.deadline.Deadline` as ``timeout`` to name the
    page and limit exactly as it does, or the limit in seconds.
    """
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    message = str(error)
    if isinstance(error, PlaywrightTimeout):
        deadline = timeout if isinstance(timeout, Deadline) else Deadline(timeout, what=url)
        return deadline.error("capture")
    code = _NET_CODE.search(message)
    if code:
        fallback = "TLS certificate error" if code.group(1).startswith("ERR_CERT_") else \
            "network error"
        error_class, cause = _NET_ERRORS.get(code.group(1), (NetworkError, fallback))
        return error_class(f"{url}: {cause} (net::{code.group(1)})")
    if "Download is starting" in message:
        return NotHtmlError(f"{url}: not an HTML page (the browser downloads it)")
    lowered = message.lower()
    if any(marker in lowered for marker in _CRASH_MARKERS):
        return RendererCrash(first_line(message))
    return CaptureError(f"{url}: {first_line(message)}")


def check_response(source: PageSource, response: Any) -> None:
    """Reject HTTP error statuses and non-HTML responses of the main document."""
    if response is None or source.is_file:
        return
    refused = response.headers.get("x-wps-blocked")
    if refused:  # the egress proxy's answer to a redirect into an internal address
        where = "" if response.url == source.url else f"redirected to {response.url}, "
        raise BlockedTargetError(f"{source.url}: {where}{refused}")
    not_html = response.headers.get("x-wps-not-html")
    if not_html:  # the egress proxy found the body binary before the browser saw any of it
        raise NotHtmlError(f"{source.url}: {not_html}")
    unreachable = response.headers.get("x-wps-error")
    if unreachable:  # the egress proxy could not look up or connect to the host
        raise NetworkError(f"{source.url}: {unreachable}")
    status = response.status
    if status >= 400:
        reason = response.status_text or _reason(status)
        raise HttpStatusError(f"{source.url}: HTTP {status} {reason}".rstrip())
    content_type = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if content_type and content_type not in HTML_TYPES:
        raise NotHtmlError(f"{source.url}: not an HTML page (Content-Type {content_type})")


def check_cut_document(cut: list[Any], *urls: str | None) -> None:
    """Refuse a page whose main document the egress proxy cut as binary: ``cut`` holds its
    records (:attr:`.egress.EgressProxy.not_html`), ``urls`` the page's addresses (asked for,
    shown); a frame's cut body is not the page's."""
    wanted = {url.partition("#")[0] for url in urls if url}
    for record in cut:
        if record.target.partition("#")[0] in wanted:
            raise NotHtmlError(f"{urls[0]}: {record.reason}")


@dataclass(slots=True)
class MainDocuments:
    """The responses of the main frame's documents as they come (redirect hops included): a
    page can navigate itself after ``load`` (script, meta refresh, a form), and what is captured
    is its last document, whose status counts."""

    page: Any
    responses: list[Any] = field(default_factory=list)

    @classmethod
    def watch(cls, page: Any) -> MainDocuments:
        """Start listening on ``page`` (a web page's own tab: it is closed after the page)."""
        documents = cls(page)
        page.on("response", lambda response: documents.add(response))
        return documents

    def add(self, response: Any) -> None:
        from playwright.async_api import Error

        try:
            if response.frame is self.page.main_frame and response.request.is_navigation_request():
                self.responses.append(response)
        except Error:  # a worker's response: no frame
            pass

    def final(self, first: Any) -> Any:
        """The response of the document shown now: the last one for its URL, else ``first``
        (the navigation's, when the URL only changed within the document)."""
        url = self.page.url.partition("#")[0]
        for response in reversed(self.responses):
            if response.url.partition("#")[0] == url:
                return response
        return first


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""

