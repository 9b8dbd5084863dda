"""Holding a page on the document it shows: navigations it starts itself are cancelled.

A page's script can navigate its main frame at any time: ``location = ...``, ``location.reload()``,
a meta refresh, a form it submits. Local pages are held from their first script on: a saved page
is the document to capture, and what it navigates to is never loaded (another file, or the
site's URL resolved against ``file:``, e.g. ``//www.example.com/x`` or a script that forces
``https:`` by assigning ``document.location`` and so reloads a ``file:`` page forever, which
never fired ``load`` and kept the capture waiting until its deadline). A web page's navigations
are followed (a script redirect leads to what a reader sees) until it has navigated
:data:`MAX_SELF_NAVIGATIONS` times by itself; then it is held as well.

The hold is :data:`NAVIGATION_HOLD_JS`, an init script that cancels the main frame's ``navigate``
events (Navigation API), which stops a navigation inside the renderer before it starts: the
document stays as it is. Cancelling the request instead (route abort) would stop the document's
own parsing or show the browser's error page. Browser-initiated navigations (``page.goto``) are
not cancelable and pass. This is robustness, not a security boundary: what a navigation that is
not held may load is still the request policy's and the proxy's decision.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

MAX_SELF_NAVIGATIONS = 2
"""Navigations a web page may start by itself (redirect scripts, meta refresh) before it is held."""

NAVIGATION_HOLD_JS = """(() => {
  if (window.top !== window || !window.navigation || window.__wpsNavigationHold) return;
  let held = location.protocol === "file:", cancelled = 0;
  window.navigation.addEventListener("navigate", (event) => {
    if (held && !event.hashChange && event.cancelable) { cancelled += 1; event.preventDefault(); }
  });
  Object.defineProperty(window, "__wpsNavigationHold", {value: Object.freeze({
    hold() { held = true; },
    cancelled() { return cancelled; },
  })});
})()"""
"""Installed in every document before the page's scripts (main frame only): cancels the page's
own navigations once held, at once in a ``file:`` document, and counts them."""

_HOLD_JS = "window.__wpsNavigationHold && window.__wpsNavigationHold.hold()"
_CANCELLED_JS = "window.__wpsNavigationHold ? window.__wpsNavigationHold.cancelled() : 0"


class NavigationWatch:
    """Counts the main frame's navigations after the first, by their documents' responses, and
    holds the page once it has started :data:`MAX_SELF_NAVIGATIONS` by itself (a page reloading
    itself before ``load`` would otherwise never finish loading). HTTP redirects are the
    server's, not counted.

    Responses, not requests: each request watched is a message from the driver to this process,
    and a saved or served page's dozens of refused requests were half of them (a navigation the
    policy refuses leaves the page for the browser's error page, an error of its own). A local
    page is held from its first script on: nothing is watched (``count`` false)."""

    def __init__(self, page: Any, *, count: bool = True) -> None:
        self.page = page
        self.navigations = 0
        self.held = False
        self._hold_script: Any = None
        """The context's init script that holds each new document (removed by :meth:`close`:
        the context renders the next page of its site too)."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._counting = count
        if count:
            page.on("response", self._on_response)

    def _on_response(self, response: Any) -> None:
        try:
            request = response.request
            if (not request.is_navigation_request() or request.redirected_from is not None
                    or request.frame != self.page.main_frame):
                return
        except Exception:  # a request of a frame already gone
            return
        self.navigations += 1
        if self.navigations > MAX_SELF_NAVIGATIONS and not self.held:
            task = asyncio.ensure_future(self.hold())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def hold(self) -> None:
        """Hold the page: this document and every later one cancels its own navigations."""
        if self.held:
            return
        self.held = True
        self._hold_script = await hold_navigations(self.page)

    async def close(self) -> None:
        """Stop watching; the document shown stays held, later pages of the context are not."""
        from playwright.async_api import Error

        if self._counting:
            self.page.remove_listener("response", self._on_response)
        await asyncio.gather(*self._tasks, return_exceptions=True)
        script, self._hold_script = self._hold_script, None
        if script is not None:
            try:
                await script.close()
            except Error:  # the context is gone, and its scripts with it
                pass


async def hold_navigations(page: Any) -> Any:
    """Cancel the page's own navigations from now on, in the document it shows and in any
    document that commits later (a navigation already under way still lands); the context's
    init script that does it (a Playwright ``Disposable``)."""
    from playwright.async_api import Error

    script = await page.context.add_init_script(_HOLD_JS)
    try:
        await page.evaluate(_HOLD_JS)
    except Error:  # the document is being replaced: the init script holds the next one
        pass
    return script


async def cancelled_navigations(page: Any) -> int:
    """How many navigations the document the page shows cancelled (0 if it cannot say)."""
    from playwright.async_api import Error

    try:
        return int(await page.evaluate(_CANCELLED_JS))
    except (Error, TypeError, ValueError):
        return 0


async def wait_for_load(page: Any, deadline: float, share: float, *, strict: bool = False
                        ) -> bool:
    """Wait for ``load`` within ``share`` of the time left before ``deadline``
    (``time.perf_counter()``); False if it did not come (the page is then incomplete).
    ``strict``: wait until the deadline, and let Playwright's timeout error out."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    wait_ms = max(1.0, (deadline - time.perf_counter()) * 1000 * (1.0 if strict else share))
    try:
        await page.wait_for_load_state("load", timeout=wait_ms)
    except PlaywrightTimeout:
        if strict:
            raise
        return False
    return True
