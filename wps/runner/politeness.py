"""Politeness towards live web sites: which page may start now, and what robots.txt allows.

:class:`PageQueue` hands out the batch's pages so that no host gets more than ``per_host`` pages
at a time, nor a new page sooner than ``delay_s`` (or its robots.txt ``Crawl-delay``) after the
last one started; pages of busy hosts wait in a bounded look-ahead while others go first.
:class:`RobotsRules` reads each host's robots.txt once (parsed by Protego: RFC 9309's most
specific rule wins, where ``urllib.robotparser`` applies the first that matches; fetched through
the same address guard as the pages: each connection, redirects included, goes to an address the
guard checked, never after a second lookup) and answers for the tool's own token.
Local files and stored HTML (JSONL, WARC) reach no host and pass straight through.
"""

from __future__ import annotations

import http.client
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, Generic, TypeVar

from protego import Protego

from .. import __version__
from ..errors import BlockedTargetError, NetworkError

ROBOTS_TOKEN = "wps"
USER_AGENT = (f"Mozilla/5.0 (compatible; {ROBOTS_TOKEN}/{__version__}; web page segmentation "
              "for text detection) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome")
"""What a batch sends to live sites unless told otherwise: a browser-like string that names the
tool (``wps``, the token robots.txt rules are read for)."""
_ROBOTS_TIMEOUT_S = 10.0
_LOOKAHEAD = 10_000
"""At most this many pages of busy hosts wait while others are handed out."""

Task = TypeVar("Task")


class PageQueue(Generic[Task]):
    """The pages still to start: the input stream, pages held back for their host, pages put
    back after their worker was stopped. ``host_of`` is a page's host (``None``: no host)."""

    def __init__(self, tasks: Iterator[Task], host_of: Callable[[Task], str | None],
                 per_host: int | None = None, delay_s: float = 0.0,
                 host_delay: Callable[[str], float] | None = None) -> None:
        self._stream = tasks
        self._stream_done = False
        self._held: deque[Task] = deque()
        self._host_of = host_of
        self._per_host = per_host
        self._delay_s = delay_s
        self._host_delay = host_delay
        self._active: dict[str, int] = {}
        self._last_start: dict[str, float] = {}

    def take(self) -> Task | None:
        """A page that may start now (its host then counts it as running), or ``None``."""
        for _ in range(len(self._held)):
            task = self._held.popleft()
            if self._may_start(task):
                return self._started(task)
            self._held.append(task)
        while not self._stream_done and len(self._held) < _LOOKAHEAD:
            task = next(self._stream, None)
            if task is None:
                self._stream_done = True
                break
            if self._may_start(task):
                return self._started(task)
            self._held.append(task)
        return None

    def finished(self, task: Task) -> None:
        """``task`` no longer runs (done, failed or put back)."""
        host = self._host_of(task)
        if host is not None and self._active.get(host, 0) > 0:
            self._active[host] -= 1

    def put_back(self, task: Task) -> None:
        """A started page that must run again later (its worker was stopped for another page)."""
        self.finished(task)
        self._held.appendleft(task)

    def exhausted(self) -> bool:
        """Nothing left to hand out, now or later."""
        if self._held:
            return False
        if not self._stream_done:
            task = next(self._stream, None)
            if task is None:
                self._stream_done = True
            else:
                self._held.append(task)
        return self._stream_done and not self._held

    def wait_s(self) -> float:
        """How long until a held page may be able to start (for an idle wait)."""
        return min(max(0.05, self._next_start(task) - time.monotonic())
                   for task in self._held) if self._held else 0.05

    def poll_s(self, longest: float = 1.0) -> float:
        """How long a driver waiting on its workers may wait before it asks :meth:`take` again:
        until a held page's host has rested (a later look would stretch its delay), at most
        ``longest``."""
        return min(longest, self.wait_s()) if self._held else longest

    def _may_start(self, task: Task) -> bool:
        host = self._host_of(task)
        if host is None:
            return True
        if self._per_host is not None and self._active.get(host, 0) >= self._per_host:
            return False
        return time.monotonic() >= self._next_start(task)

    def _next_start(self, task: Task) -> float:
        host = self._host_of(task)
        if host is None or host not in self._last_start:
            return 0.0
        delay = max(self._delay_s, self._host_delay(host) if self._host_delay else 0.0)
        return self._last_start[host] + delay

    def _started(self, task: Task) -> Task:
        host = self._host_of(task)
        if host is not None:
            self._active[host] = self._active.get(host, 0) + 1
            self._last_start[host] = time.monotonic()
        return task


class RobotsRules:
    """robots.txt answers per site (``scheme://host:port``), each file fetched once.

    As RFC 9309 says: a missing robots.txt (4xx) allows everything, 401/403 and an unreachable
    or failing server (5xx) allow nothing. The file is fetched only where the page itself could
    be (the address guard, ``allow_private``), from the very address the guard checked.
    """

    def __init__(self, allow_private: bool, token: str = ROBOTS_TOKEN,
                 user_agent: str = USER_AGENT) -> None:
        self.allow_private = allow_private
        self.token = token
        self.user_agent = user_agent
        self._sites: dict[str, Protego | str] = {}

    def refusal(self, url: str) -> str | None:
        """Why robots.txt forbids ``url`` (``None``: allowed)."""
        site = _site(url)
        rules = self._sites.get(site)
        if rules is None:
            rules = self._sites[site] = self._fetch(site)
        if isinstance(rules, str):
            return rules
        if not rules.can_fetch(url, self.token):
            return f"{url}: disallowed by {site}/robots.txt for {self.token}"
        return None

    def crawl_delay(self, site_or_host: str) -> float:
        """The ``Crawl-delay`` a site asked for (0 if none or not fetched)."""
        rules = self._sites.get(site_or_host)
        if isinstance(rules, Protego):
            return float(rules.crawl_delay(self.token) or 0.0)
        return 0.0

    def _fetch(self, site: str) -> Protego | str:
        from ..capture.addresses import connect_checked

        robots_url = f"{site}/robots.txt"
        connect = partial(connect_checked, allow_private=self.allow_private)
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}),
                                             _CheckedConnections(connect), _WebRedirects())
        request = urllib.request.Request(robots_url, headers={"User-Agent": self.user_agent})
        try:
            with opener.open(request, timeout=_ROBOTS_TIMEOUT_S) as response:
                return Protego.parse(response.read(512 * 1024).decode("utf-8", "replace"))
        except BlockedTargetError as err:  # the site, or a redirect, where pages may not go
            return f"{robots_url}: {getattr(err, 'reason', err)}"
        except NetworkError as err:
            return f"{site}/robots.txt unreachable ({err}): site not crawled"
        except urllib.error.HTTPError as err:
            if err.code in (401, 403) or err.code >= 500:
                return f"{site}/robots.txt answered HTTP {err.code}: site not crawled"
            return Protego.parse("")  # no robots.txt: everything allowed
        except (urllib.error.URLError, OSError, ValueError) as err:
            reason = getattr(err, "reason", err)
            return f"{site}/robots.txt unreachable ({reason}): site not crawled"


class _CheckedConnections(urllib.request.HTTPHandler, urllib.request.HTTPSHandler):
    """http and https for urllib, each connection made by ``connect`` (the address guard's
    :func:`~wps.capture.addresses.connect_checked`); it replaces both default handlers, so no
    request opens a socket of its own. TLS still checks the certificate for the host name."""

    def __init__(self, connect: Callable[..., Any]) -> None:
        super().__init__()
        self._connect = connect

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(partial(_CheckedHTTP, connect=self._connect), req)

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(partial(_CheckedHTTPS, connect=self._connect), req,
                            context=self._context)  # type: ignore[attr-defined]


class _Connects:
    """An ``http.client`` connection whose socket comes from ``connect``."""

    def __init__(self, *args: Any, connect: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = connect


class _CheckedHTTP(_Connects, http.client.HTTPConnection):
    pass


class _CheckedHTTPS(_Connects, http.client.HTTPSConnection):
    pass


class _WebRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a robots.txt redirect to http(s) only (the connection checks the address; urllib
    would also follow ``ftp:``, whose socket no guard opens)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        from ..capture.addresses import WEB_SCHEMES, blocked, split_url

        try:
            scheme = split_url(newurl)[0]
        except ValueError:  # a bad port
            scheme = ""
        if scheme not in WEB_SCHEMES:
            raise blocked(newurl, f"refused, redirected to {newurl} (http and https only)")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def fetched_site(source: str, html: bytes | None) -> str | None:
    """The site a batch page is fetched from (politeness, worker sizing); ``None`` for files and
    stored HTML (JSONL, WARC), which are rendered offline."""
    return None if html is not None else site_of(source)


def site_of(url: str) -> str | None:
    """``scheme://host:port`` of an http(s) URL (the unit of politeness), else ``None``."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2].lower()}"


def _site(url: str) -> str:
    return site_of(url) or url
