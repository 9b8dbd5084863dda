"""Per-site sessions: which parked tab a page may reuse, and the egress proxies tabs share.

A web page reuses the parked tab (context, page and renderer) of an earlier page of the same
origin (scheme, host, port: never another site's, so no cache, cookie or storage of one site can
reach another even if a clearing step missed something) with the same viewport, user agent and
proxy rules; the tab was cleared between the two pages (:func:`~.tabs.park`). At most
:data:`IDLE_SITES` sites keep a parked tab (each holds a renderer process); the one parked
longest ago goes first. Every tab of a browser with the same proxy rules goes through one
:class:`~.egress.EgressProxy` (one per worker in the default case; one per origin under
``same_origin``), started with the first tab that needs it and closed with the browser.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .addresses import url_origin
from .egress import BlockedRequest, EgressProxy
from .options import CaptureOptions

IDLE_SITES = 6
"""Sites whose parked tab is kept for their next page (a renderer process each)."""

ProxyRules = tuple[bool, bool, tuple[str, str, int] | None]
"""``(allow_private, refuse_all, origin)``: what an egress proxy lets through."""


def proxy_rules(options: CaptureOptions, page_url: str, is_file: bool) -> ProxyRules:
    """The rules of the proxy a page's tab needs: a local page reaches nothing; under
    ``same_origin`` a web page reaches only its own origin."""
    if options.same_origin and not is_file:
        return (options.allow_private, False, url_origin(page_url) or ("", "", 0))
    return (options.allow_private, is_file, None)


def tab_key(options: CaptureOptions, user_agent: str, page_url: str, is_file: bool,
            replay: object = None) -> tuple[object, ...]:
    """What a parked tab must match to render a page: viewport, user agent, proxy rules and
    which frames are loaded (the tab's request handling depends on it) and, for a web page,
    its origin (the site whose session it is) and the archive it is replayed from
    (``replay``), if any."""
    site = None if is_file else (url_origin(page_url) or page_url, id(replay) if replay else None)
    return (site, options.viewport_width, options.viewport_height, user_agent, options.frames,
            proxy_rules(options, page_url, is_file or replay is not None))


@dataclass(slots=True)
class Proxies:
    """The egress proxies of one browser, one per set of rules, shared by its tabs."""

    running: dict[ProxyRules, EgressProxy] = field(default_factory=dict)

    async def get(self, rules: ProxyRules, page_url: str) -> EgressProxy:
        """The proxy for ``rules`` (those of ``page_url``), started on first use."""
        proxy = self.running.get(rules)
        if proxy is None:
            allow_private, refuse_all, origin = rules
            proxy = EgressProxy(allow_private=allow_private, refuse_all=refuse_all,
                                origin=None if origin is None else page_url)
            await proxy.start()
            self.running[rules] = proxy
        return proxy

    def forget_refusals(self) -> None:
        """Drop the refusals and failures noted so far (no page is in flight to ask)."""
        for proxy in self.running.values():
            proxy.blocked.clear()
            proxy.failed.clear()

    async def close(self) -> None:
        proxies, self.running = list(self.running.values()), {}
        for proxy in proxies:
            await proxy.close()


@dataclass(slots=True)
class ProxyMark:
    """Where a page's refusals and failures start in its (shared) proxy's lists."""

    proxy: EgressProxy
    blocked_from: int
    failed_from: int
    not_html_from: int

    @classmethod
    def now(cls, proxy: EgressProxy) -> ProxyMark:
        return cls(proxy, len(proxy.blocked), len(proxy.failed), len(proxy.not_html))

    @property
    def blocked(self) -> list[BlockedRequest]:
        return self.proxy.blocked[self.blocked_from:]

    @property
    def failed(self) -> list[BlockedRequest]:
        return self.proxy.failed[self.failed_from:]

    @property
    def not_html(self) -> list[BlockedRequest]:
        """Main documents the proxy cut or refused as binary (:mod:`.sniff`)."""
        return self.proxy.not_html[self.not_html_from:]
