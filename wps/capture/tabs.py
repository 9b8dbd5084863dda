"""Tabs: a browser context with its one page, its egress proxy and the request policy in force.

Tabs are reused: a local page takes the parked tab of an earlier file, a web page that of an
earlier page of the same site (:mod:`.sessions`: never another site's). Between two pages the
page goes to ``about:blank`` and the state a page can leave is cleared, so no page sees another's:
local and session storage (in every frame), IndexedDB, cookies, the HTTP cache, service workers
and the rest of each origin's storage (every origin the page's requests went to), permissions,
``window.name``, history (it holds one ``about:blank`` entry before the next page). A page's
popups are closed as soon as they open (and again before the tab is cleared, for one announced
late). A tab is closed with every page of its context after :data:`PAGES_PER_TAB` pages, after
any failure, or, for a local page, after the file opened another page. Navigating an open page
to the next page of the same site keeps its renderer process, and starting a renderer cost more
CPU than rendering the page itself: on the article benchmark's pages, a fresh context per page
took 2.2 CPU seconds a page, the same navigations in one page 0.8 (30 pages, Playwright alone,
Chromium's CPU from /proc).

Requests that a tab's policy refuses whatever they are (a saved page's scripts, fonts and
trackers: about 30 a page on the article benchmark) are refused inside Chromium (DevTools
``Network.setBlockedURLs``), not by a Python round trip each: every web request of a local page
and every ``file:`` request outside its folders (root-relative links of a saved page: about 10 a
page there), and under ``same_origin`` every web request off the page's origin. The other requests
still pass the route handler (a file in the page's folder may be a link to one elsewhere), except,
under ``same_origin``, those to the page's own origin, which the policy allows whatever they are
(unless frames are refused). What that block misses (a popup's requests) goes to the handler and
the proxy, which refuse the same. A frame's document that the policy refuses is aborted instead
of blocked (:func:`_abort_refused_frames`; the handler aborts those it sees the same way): the
frame keeps its empty document, and Chromium renders no error page into it.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any

from .addresses import url_origin
from .egress import EgressProxy
from .navigation import NAVIGATION_HOLD_JS
from .options import CaptureOptions
from .policy import RequestPolicy
from .replay import ReplayArchive
from .quiet import QUIET_WATCH_JS
from .scroll import SCROLL_WATCH_JS
from .sessions import IDLE_SITES, Proxies, proxy_rules, tab_key

PAGES_PER_TAB = 20
"""Pages one tab renders before it is closed (bounds what a long-lived renderer keeps)."""
WEB_SCHEMES = ("http", "https", "ws", "wss")
_NOT_WEB = re.compile(rf"^(?!(?:{'|'.join(WEB_SCHEMES)}):)", re.IGNORECASE)
"""URLs a local page's route handler sees: every scheme but the web's (blocked in Chromium)."""
CLOSE_TIMEOUT_S = 5.0
"""Bound on closing or resetting a tab: a busy or dead one is given up on."""

_ORIGIN_PATTERN_JS = r"""url => {
  // The URLPattern of every URL of url's origin, as Chromium's own parser writes it (host
  // canonical, default port omitted, the pattern syntax's characters escaped), checked on url
  // itself; null if it cannot be written.
  try {
    const parsed = new URL(url);
    const escape = text => text.replace(/[:*(){}+?\\]/g, character => '\\' + character);
    const port = parsed.port ? ':' + parsed.port : '';
    const pattern = `${parsed.protocol}//${escape(parsed.hostname)}${port}/*`;
    return new URLPattern(pattern).test(url) ? pattern : null;
  } catch (error) {
    return null;
  }
}"""

_FOLDER_PATTERNS_JS = r"""folders => folders.map(folder => {
  // The URLPattern of every file: URL under each folder (a file: URL ending in "/"), as
  // Chromium's own parser writes it, checked on a URL in it and one beside it; null if it cannot
  // be written.
  try {
    const parsed = new URL(folder);
    if (parsed.protocol !== "file:" || parsed.host !== "" || !parsed.pathname.endsWith("/"))
      return null;
    const escape = text => text.replace(/[:*(){}+?\\]/g, character => '\\' + character);
    const written = `file://${escape(parsed.pathname)}*`, pattern = new URLPattern(written);
    const inside = new URL("wps-probe", parsed).href;
    const beside = parsed.pathname === "/" ? null : new URL("../wps-probe", parsed).href;
    return pattern.test(inside) && !(beside && pattern.test(beside)) ? written : null;
  } catch (error) {
    return null;
  }
})"""

_FORGET_JS = """() => {
  try { localStorage.clear(); } catch (error) {}
  try { sessionStorage.clear(); } catch (error) {}
}"""


@dataclass(eq=False)
class Tab:
    context: Any
    page: Any
    proxy: EgressProxy
    """Shared with the browser's other tabs of the same proxy rules (:mod:`.sessions`)."""
    policy: RequestPolicy
    """The policy of the page it renders now (the route handler reads it at each request)."""
    key: tuple[object, ...]
    """What a page must match to reuse it (:func:`~.sessions.tab_key`)."""
    is_file: bool
    pages: int = 0
    opened: int = 0
    """Other pages its pages opened in the context (popups, ``target=_blank``)."""
    origins: set[str] = field(default_factory=set)
    """Every origin its pages sent a request to since it was last cleared."""
    replay: ReplayArchive | None = None
    """Answers every request its policy allows (WARC replay, :mod:`.replay`); nothing else."""
    missing: list[str] = field(default_factory=list)
    """Replay: what the page asked for and the archive lacks."""
    refused_navigation: str | None = None
    """The last main-frame navigation its page's policy refused (named in the error)."""
    session: Any = None
    """Its page's DevTools session, kept for the tab's life: the requests Chromium refuses
    itself and the clearing between pages go through it."""
    confined_to: list[str] | None = None
    """A local tab: the folders its block in Chromium is set for (:func:`confine_local`)."""
    deciding: set[Any] = field(default_factory=set)
    """Its paused frame documents' decisions under way (:func:`_abort_refused_frames`; the
    event loop keeps only weak references to its tasks)."""


async def open_tab(browser: Any, proxies: Proxies, options: CaptureOptions, user_agent: str,
                   policy: RequestPolicy, *, is_file: bool,
                   replay: ReplayArchive | None = None) -> Tab:
    """A new context and page whose every request passes ``policy`` (the tab's, as it changes)
    and then the proxy, which refuses internal addresses (and, for a local or replayed page,
    everything; under ``same_origin``, every other origin): Chromium resolves no names and
    opens no sockets itself. ``replay``: requests are answered from that archive."""
    offline = is_file or replay is not None
    proxy = await proxies.get(proxy_rules(options, policy.page_url, offline), policy.page_url)
    context = await browser.new_context(
        viewport={"width": options.viewport_width, "height": options.viewport_height},
        device_scale_factor=1,
        service_workers="block",
        user_agent=user_agent,
        accept_downloads=False,
        proxy={"server": proxy.url, "bypass": ""},
    )
    try:
        tab = Tab(context, None, proxy, policy,
                  tab_key(options, user_agent, policy.page_url, is_file, replay), is_file,
                  replay=replay)
        await context.add_init_script(SCROLL_WATCH_JS)
        await context.add_init_script(QUIET_WATCH_JS)
        await context.add_init_script(NAVIGATION_HOLD_JS)
        tab.page = await context.new_page()
        tab.session = await context.new_cdp_session(tab.page)
        context.on("page", lambda page: _count_opened(tab, page))
        if is_file and replay is None:
            await tab.session.send("Network.enable")  # the block holds only while it is on
            await confine_local(tab)
            await _abort_refused_frames(tab)
            await context.route(_NOT_WEB, _policy_route(tab))
        else:
            blocked = (options.same_origin and replay is None
                       and await _block_off_origin(tab, policy.page_url))
            if blocked:
                await _abort_refused_frames(tab)
            # Chromium now refuses every web request off the page's origin, and the policy
            # allows every one on it (its frames too, unless frames are refused): only the
            # other schemes need the handler, not each of the page's own subresources.
            only_other_schemes = blocked and options.frames != "none"
            await context.route(_NOT_WEB if only_other_schemes else "**/*", _policy_route(tab))
        return tab
    except BaseException:
        await _close_context(context)
        raise


def _web_block() -> dict[str, Any]:
    """``Network.setBlockedURLs`` of every web request (``net::ERR_BLOCKED_BY_CLIENT``, as the
    route handler's abort)."""
    return {"urls": [f"{scheme}://*" for scheme in WEB_SCHEMES]}


async def _block_off_origin(tab: Tab, page_url: str) -> bool:
    """Have Chromium refuse the tab's web requests except those to the origin of ``page_url``
    (written as Chromium's own URL parser writes it, so that its pattern matches that origin's
    requests). False: that origin's pattern could not be written, and nothing is blocked."""
    pattern = await tab.page.evaluate(_ORIGIN_PATTERN_JS, page_url)
    if pattern is None:
        return False  # the route handler refuses them all the same
    block = _web_block()
    block["urlPatterns"] = [{"urlPattern": pattern, "block": False}]  # they go first
    await tab.session.send("Network.enable")  # the block holds only while the domain is on
    await tab.session.send("Network.setBlockedURLs", block)
    return True


async def _abort_refused_frames(tab: Tab) -> None:
    """Have the web documents that the tab's policy refuses in a frame aborted before the block
    in Chromium refuses them. Blocked, a frame's document is replaced by Chromium's error page,
    which Chromium renders in the frame; aborted, the frame keeps its empty document. (A
    cross-site frame's navigation still starts a renderer process before it is aborted.)
    Measured on local pages with one refused web frame each: 370-377 ms of CPU a page blocked,
    273-299 aborted, 218-236 for the same pages without the frame; 16 of the article
    benchmark's first 40 pages have such frames. Every web document of the tab's pages pauses
    for the handler (:func:`_frame_document`); those of the main frame (its id stays the tab's
    across navigations) go on to the block and the route handler as before, so a refused
    navigation stays an error."""
    main_frame = (await tab.session.send("Page.getFrameTree"))["frameTree"]["frame"]["id"]

    def paused(event: dict[str, Any]) -> None:
        decision = asyncio.ensure_future(_frame_document(tab, event, main_frame))
        tab.deciding.add(decision)
        decision.add_done_callback(tab.deciding.discard)

    tab.session.on("Fetch.requestPaused", paused)
    await tab.session.send("Fetch.enable", {"patterns": [
        {"urlPattern": f"{scheme}:*", "resourceType": "Document", "requestStage": "Request"}
        for scheme in ("http", "https")]})


async def _frame_document(tab: Tab, event: dict[str, Any], main_frame: str) -> None:
    """Abort a paused frame document that the tab's policy refuses; let anything else go on
    (to the block and the route handler, which judge it again)."""
    from playwright.async_api import Error

    refused = event.get("frameId") != main_frame and not _allows(
        tab, event["request"]["url"], is_document=True, is_main_frame=False)
    try:
        if refused:
            await tab.session.send("Fetch.failRequest", {"requestId": event["requestId"],
                                                         "errorReason": "Aborted"})
        else:
            await tab.session.send("Fetch.continueRequest", {"requestId": event["requestId"]})
    except Error:  # the tab closed meanwhile
        pass


async def confine_local(tab: Tab) -> None:
    """Have Chromium refuse a local tab's web requests, and its ``file:`` requests outside the
    folders of its page (:meth:`~.policy.RequestPolicy.local_folders`), itself. Those inside still
    pass the route handler, which resolves links; if a folder's pattern cannot be written, every
    ``file:`` request does. Set for each page the tab takes whose folders differ from the last
    one's (a batch of files from one folder sets it once)."""
    folders = tab.policy.local_folders()
    if folders == tab.confined_to:
        return
    block = _web_block()
    patterns = await tab.page.evaluate(_FOLDER_PATTERNS_JS, folders)
    if patterns and all(patterns):
        block["urlPatterns"] = [*({"urlPattern": pattern, "block": False} for pattern in patterns),
                                {"urlPattern": "file://*", "block": True}]
    await tab.session.send("Network.setBlockedURLs", block)
    tab.confined_to = folders


async def take_page(tab: Tab, policy: RequestPolicy) -> None:
    """A parked tab takes its next page: the route handler reads ``policy`` from now on, and a
    local tab's block is set for the page's folders."""
    tab.policy = policy
    if tab.is_file and tab.replay is None:
        await confine_local(tab)


async def park(tab: Tab) -> bool:
    """Make a tab ready for the next page; False if it cannot be (close it then).

    A local tab whose file opened other pages is not reused; a web tab's other pages are closed
    first. Either way closing the context would close them all, whatever they opened in turn
    (the count is read again once the page has left, for a popup announced late)."""
    if tab.pages >= PAGES_PER_TAB or (tab.opened and tab.is_file):
        return False
    try:
        await asyncio.wait_for(_forget(tab), CLOSE_TIMEOUT_S)
    except Exception:  # a page that will not leave, or a dead renderer
        return False
    if tab.opened or len(tab.context.pages) > 1:
        return False
    tab.refused_navigation = None  # the proxy is shared: a page reads its own records by mark
    return True


async def _forget(tab: Tab) -> None:
    """Leave the page and clear what it (and its popups) left in the context."""
    from playwright.async_api import Error

    page = tab.page
    if not tab.is_file and (own := _origin_of(tab.policy.page_url)):
        tab.origins.add(own)  # its requests pass no handler under same_origin (open_tab)
    for each in tab.context.pages:  # redirects were not routed: where the documents ended up
        tab.origins.update(origin for frame in each.frames if (origin := _origin_of(frame.url)))
        if each is not page:
            await each.close()
    tab.opened = 0
    for frame in page.frames:  # session storage lives in the tab, per origin and frame
        try:
            await frame.evaluate(_FORGET_JS)
        except Error:  # a frame gone or never loaded
            pass
    await page.goto("about:blank")
    await page.evaluate("() => { window.name = ''; }")
    for origin in sorted(tab.origins) if not tab.is_file else ["file://"]:
        await tab.session.send("Storage.clearDataForOrigin",
                               {"origin": origin, "storageTypes": "all"})
    if not tab.is_file:
        await tab.session.send("Network.clearBrowserCache")
    await tab.session.send("Page.resetNavigationHistory")
    tab.origins.clear()
    await tab.context.clear_cookies()
    await tab.context.clear_permissions()


def evict(idle: list[Tab]) -> list[Tab]:
    """Parked web tabs beyond :data:`~.sessions.IDLE_SITES` sites, parked longest ago first:
    removed from ``idle``, for the caller to close."""
    web = [tab for tab in idle if not tab.is_file]
    extra = web[:max(0, len(web) - IDLE_SITES)]
    for tab in extra:
        idle.remove(tab)
    return extra


def _count_opened(tab: Tab, page: Any) -> None:
    """A page the tab's page opened is not the page captured: it is closed as soon as Chromium
    announces it, before it can flood the proxy (at load 10 a popup's 20 ms ``fetch`` loop
    held its opener's capture past a 30 s deadline) or navigate its opener."""
    if page is not tab.page:
        tab.opened += 1
        closing = asyncio.ensure_future(_close_page(page))
        _CLOSING.add(closing)
        closing.add_done_callback(_CLOSING.discard)


_CLOSING: set[asyncio.Future[None]] = set()
"""Popups being closed (the loop keeps only weak references to its tasks)."""


async def _close_page(page: Any) -> None:
    try:
        await asyncio.wait_for(page.close(), CLOSE_TIMEOUT_S)
    except Exception:  # noqa: BLE001, S110 - gone, or a dead renderer (closed with the context)
        pass


async def close_tab(tab: Tab) -> None:
    """Close the tab's context (its proxy is the browser's, closed with it)."""
    await _close_context(tab.context)


async def _close_context(context: Any) -> None:
    try:
        await asyncio.wait_for(context.close(), CLOSE_TIMEOUT_S)
    except Exception:  # a dead context is gone anyway
        pass


def _policy_route(tab: Tab) -> Any:
    """The route handler that lets through what the tab's policy allows and aborts the rest."""
    from playwright.async_api import Error

    async def decide(route: Any) -> None:
        request = route.request
        try:
            frame = request.frame
            is_main_frame = frame.parent_frame is None
        except Error:  # no frame (a worker's request): judged as a subresource
            is_main_frame = False
        allowed = _allows(tab, request.url, is_document=request.is_navigation_request(),
                          is_main_frame=is_main_frame)
        if allowed and not tab.is_file and (origin := _origin_of(request.url)):
            tab.origins.add(origin)  # its storage is cleared after the page
        if not allowed and is_main_frame and request.is_navigation_request():
            tab.refused_navigation = request.url
        try:
            if allowed and tab.replay is not None:
                await _replay(route, tab)
            elif allowed:
                await route.continue_()
            elif request.is_navigation_request() and not is_main_frame:
                await route.abort("aborted")  # the frame keeps its empty document: no error page
            else:
                await route.abort("blockedbyclient")
        except Error:  # the page or context closed meanwhile
            pass

    return decide


def _allows(tab: Tab, url: str, *, is_document: bool, is_main_frame: bool) -> bool:
    """May the tab's page load ``url`` now (its policy, against where its main frame is)? A URL
    the policy cannot read is one it does not allow: the error never escapes into Playwright's
    loop, where another page would get it."""
    try:
        return tab.policy.allow_request(url, is_document=is_document,
                                        is_main_frame=is_main_frame,
                                        main_url=tab.page.main_frame.url)
    except Exception:  # noqa: BLE001 - see above
        return False


def _origin_of(url: str) -> str | None:
    """``scheme://host:port`` of an http(s) URL, as the storage of that origin is named."""
    origin = url_origin(url)
    if origin is None:
        return None
    scheme, host, port = origin
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"


async def _replay(route: Any, tab: Tab) -> None:
    """Answer ``route`` from the tab's archive, or abort it and note it missing."""
    assert tab.replay is not None
    url = route.request.url
    answer = tab.replay.lookup(url)
    if answer is None:
        tab.missing.append(url)
        await route.abort("blockedbyclient")
        return
    await route.fulfill(status=answer.status, headers=answer.headers, body=answer.body)
