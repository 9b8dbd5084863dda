"""Tabs: a browser context with its one page, its egress proxy and the request policy in force.

Local pages reuse tabs: between two files the page goes to ``about:blank`` and the storage a file
can write (local and session storage, IndexedDB, cookies, ``window.name``, history) is cleared, so
no page sees another's state (its history holds one ``about:blank`` entry before it); after
:data:`PAGES_PER_TAB` pages, after any failure, or after a file opened another page (a popup
keeps running, holds the tab as its ``opener`` and could post to, navigate or weigh on the next
file), the tab is closed with every page of its context. Navigating an open page to the
next file keeps its renderer process, and starting a renderer cost more CPU than rendering the page
itself: on the article benchmark's pages, a fresh context per page took 2.2 CPU seconds a page, the
same navigations in one page 0.8 (30 pages, Playwright alone, Chromium's CPU from /proc). Web pages
get a fresh tab each: a site's cookies and cache must never meet another site's, and their
navigations change renderer process anyway.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from .egress import EgressProxy
from .navigation import NAVIGATION_HOLD_JS
from .options import CaptureOptions
from .policy import RequestPolicy
from .scroll import SCROLL_WATCH_JS

PAGES_PER_TAB = 20
"""Local pages one tab renders before it is closed (bounds what a long-lived renderer keeps)."""
CLOSE_TIMEOUT_S = 5.0
"""Bound on closing or resetting a tab: a busy or dead one is given up on."""

_FORGET_JS = """() => {
  try { localStorage.clear(); } catch (error) {}
  try { sessionStorage.clear(); } catch (error) {}
}"""


@dataclass(eq=False)
class Tab:
    context: Any
    page: Any
    proxy: EgressProxy
    policy: RequestPolicy
    """The policy of the page it renders now (the route handler reads it at each request)."""
    key: tuple[object, ...] | None
    """What a reused tab must match (viewport, user agent); ``None``: a web page's, not reused."""
    pages: int = 0
    opened: int = 0
    """Other pages its files opened in the context (popups, ``target=_blank``): not reused."""
    refused_navigation: str | None = None
    """The last main-frame navigation its page's policy refused (named in the error)."""


def tab_key(options: CaptureOptions, user_agent: str, is_file: bool) -> tuple[object, ...] | None:
    if not is_file:
        return None
    return (options.viewport_width, options.viewport_height, user_agent)


async def open_tab(browser: Any, options: CaptureOptions, user_agent: str,
                   policy: RequestPolicy, *, is_file: bool) -> Tab:
    """A new context and page whose every request passes ``policy`` (the tab's, as it changes)
    and then the proxy, which refuses internal addresses (and, for a local page, everything;
    under ``same_origin``, every other origin): Chromium resolves no names and opens no sockets
    itself."""
    origin = policy.page_url if policy.same_origin and not is_file else None
    proxy = EgressProxy(allow_private=options.allow_private, refuse_all=is_file, origin=origin)
    proxy_url = await proxy.start()
    tab: Tab | None = None
    try:
        context = await browser.new_context(
            viewport={"width": options.viewport_width, "height": options.viewport_height},
            device_scale_factor=1,
            service_workers="block",
            user_agent=user_agent,
            accept_downloads=False,
            proxy={"server": proxy_url, "bypass": ""},
        )
        tab = Tab(context, None, proxy, policy, tab_key(options, user_agent, is_file))
        await context.add_init_script(SCROLL_WATCH_JS)
        await context.add_init_script(NAVIGATION_HOLD_JS)
        tab.page = await context.new_page()
        context.on("page", lambda page: _count_opened(tab, page))
        await context.route("**/*", _policy_route(tab))
        return tab
    except BaseException:
        if tab is not None:
            await close_tab(tab)
        else:
            await proxy.close()
        raise


async def park(tab: Tab) -> bool:
    """Make a local tab ready for the next file; False if it cannot be (close it then).

    A tab whose file opened other pages is never reused: closing the context closes them all,
    whatever they opened in turn (the count is read again once the file has left, for a popup
    announced late)."""
    if tab.key is None or tab.pages >= PAGES_PER_TAB or tab.opened:
        return False
    try:
        await asyncio.wait_for(_forget(tab), CLOSE_TIMEOUT_S)
    except Exception:  # a page that will not leave, or a dead renderer
        return False
    if tab.opened or len(tab.context.pages) > 1:
        return False
    tab.proxy.blocked.clear()
    tab.proxy.failed.clear()
    tab.proxy.not_html.clear()
    tab.refused_navigation = None
    return True


async def _forget(tab: Tab) -> None:
    page = tab.page
    await page.evaluate(_FORGET_JS)  # session storage lives in the tab, per origin
    await page.goto("about:blank")
    await page.evaluate("() => { window.name = ''; }")
    session = await tab.context.new_cdp_session(page)
    try:
        await session.send("Storage.clearDataForOrigin",
                           {"origin": "file://", "storageTypes": "all"})
        await session.send("Page.resetNavigationHistory")
    finally:
        await session.detach()
    await tab.context.clear_cookies()


def _count_opened(tab: Tab, page: Any) -> None:
    if page is not tab.page:
        tab.opened += 1


async def close_tab(tab: Tab) -> None:
    try:
        await asyncio.wait_for(tab.context.close(), CLOSE_TIMEOUT_S)
    except Exception:  # a dead context is gone anyway
        pass
    await tab.proxy.close()


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
        try:
            allowed = tab.policy.allow_request(
                request.url, is_document=request.is_navigation_request(),
                is_main_frame=is_main_frame, main_url=tab.page.main_frame.url)
        except Exception:  # a URL the policy cannot read is one it does not allow; never let
            allowed = False  # the error escape into Playwright's loop (another page gets it)
        if not allowed and is_main_frame and request.is_navigation_request():
            tab.refused_navigation = request.url
        try:
            if allowed:
                await route.continue_()
            else:
                await route.abort("blockedbyclient")
        except Error:  # the page or context closed meanwhile
            pass

    return decide
