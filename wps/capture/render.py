"""Rendering one page in a tab: navigate, wait for ``load`` (bounded), settle, scroll, walk the
DOM and take the screenshot, into a :class:`~wps.model.PageCapture`.

A page that navigates itself while it is captured is followed (a few times) and captured where it
lands; a page that leaves for the browser's error page or a place its policy refuses is an error.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from ..errors import NavigationError
from ..model import PageCapture
from .dom import MAX_FRAMES, DomWalk, serialize_with_shadow_roots, walk_dom, well_formed
from .faults import MainDocuments, check_response
from .loop import cancel_tasks
from .navigation import (
    MAX_SELF_NAVIGATIONS,
    NavigationWatch,
    cancelled_navigations,
    wait_for_load,
)
from .options import CaptureOptions
from .policy import RequestPolicy
from .quiet import wait_until_quiet
from .scroll import (
    expand_scroll_container,
    lazy_scroll,
    reacts_to_scrolling,
    unreached_scroll_content,
)
from .sources import PageSource, check_body, page_id_for

_NAVIGATED_MARKERS = (
    "Execution context was destroyed", "Cannot find context with specified id",
    "because of a navigation", "the page is navigating and changing the content",
)

PageHook = Callable[[Any], Awaitable[None]]


async def render(
    page: Any,
    source: PageSource,
    options: CaptureOptions,
    policy: RequestPolicy,
    deadline: float,
    started: float,
    hook: PageHook | None,
    screenshot: Path | None,
) -> PageCapture:
    """Navigate, settle, scroll, walk and screenshot (to ``screenshot``, if given) one page."""
    timings: dict[str, float] = {}
    documents = None if source.is_file else MainDocuments.watch(page)
    mark = time.perf_counter()
    watch = NavigationWatch(page, count=not source.is_file)  # a local page is held anyway
    try:
        response, loaded = await _navigate(page, source, options, deadline)
        timings["navigate_s"] = time.perf_counter() - mark
        if hook is not None:
            await hook(page)

        walk, html, title, scroll_truncated, settled = await _prepare_and_walk(
            page, source, options, policy, deadline, timings, watch)
    finally:
        await watch.close()
    incomplete = not (loaded and settled)
    held = await cancelled_navigations(page)
    if held or watch.held:  # held: counted in the document captured (0 if one still landed)
        timings["navigations_held"] = held
    unreached = await unreached_scroll_content(page)
    if documents is not None and (final := documents.final(response)) is not response:
        check_response(source, final)  # the page navigated itself: judge what is captured
        response = final

    full_height = max(walk.page_height, 1)
    height = min(full_height, options.max_height)
    mark = time.perf_counter()
    if screenshot is not None:
        await page.screenshot(
            path=str(screenshot), type="png", full_page=True, animations="disabled",
            caret="hide", scale="css",
            clip={"x": 0, "y": 0, "width": options.viewport_width, "height": height},
        )
    timings["screenshot_s"] = time.perf_counter() - mark
    timings["total_s"] = time.perf_counter() - started
    final_url = source.url if source.is_file else page.url
    return PageCapture(
        url=source.url,
        width=options.viewport_width,
        height=height,
        nodes=walk.nodes,
        html=html,
        page_id=page_id_for(source.url),
        final_url=final_url,
        title=title,
        status=response.status if response is not None and not source.is_file else None,
        screenshot=screenshot,
        screenshot_truncated=full_height > options.max_height,
        scroll_truncated=scroll_truncated,
        incomplete=incomplete,
        unreached=unreached,
        timings={name: round(value, 4) for name, value in timings.items()},
        source="browser",
    )


async def _navigate(page: Any, source: PageSource, options: CaptureOptions,
                    deadline: float) -> tuple[Any, bool]:
    """Open the page and wait for ``load`` within ``options.load_share`` of the time left;
    the response and whether ``load`` came.

    A page that never finishes loading (a stalled subresource, a stream that never ends) is
    kept as it rendered by then and marked incomplete, unless ``allow_incomplete`` is off.
    A web page's status and type are judged once it commits, its body as soon as it has
    arrived, while the page loads: megabytes of binary labelled HTML must not hold the
    renderer until the deadline before they are refused.
    """
    remaining_ms = max(1.0, (deadline - time.perf_counter()) * 1000)
    response = await page.goto(source.navigate_url, wait_until="commit", timeout=remaining_ms)
    check_response(source, response)
    load = asyncio.ensure_future(wait_for_load(page, deadline, options.load_share,
                                               strict=not options.allow_incomplete))
    body = asyncio.ensure_future(_document_body(source, response))  # may never end
    try:
        await asyncio.wait({load, body}, return_when=asyncio.FIRST_COMPLETED)
        if not body.done() and load.done() and load.result():
            await body  # the document is complete once its load event came
        if body.done() and body.result() is not None:
            check_body(source.url, body.result())
        return response, await load
    finally:
        await cancel_tasks({load, body})


async def _document_body(source: PageSource, response: Any) -> bytes | None:
    """A web page's main document as served (a local page's was judged when it was read)."""
    from playwright.async_api import Error

    if source.is_file or response is None:
        return None  # a local file, or a same-document navigation: nothing new to judge
    try:
        return await response.body()
    except Error:  # the page navigated on meanwhile: its next document is judged as rendered
        return None


async def _prepare_and_walk(
    page: Any, source: PageSource, options: CaptureOptions, policy: RequestPolicy,
    deadline: float, timings: dict[str, float], watch: NavigationWatch
) -> tuple[DomWalk, str, str, bool, bool]:
    """Settle, scroll and walk; start over if the page navigates itself meanwhile. The last
    item: whether the document walked finished loading.

    Script and meta-refresh redirects after ``load`` destroy the page's JavaScript context under
    a running ``evaluate``; the redirect target is what a reader would see, so capture that. After
    :data:`MAX_SELF_NAVIGATIONS` the page is held on the document it shows (a navigation under
    way still lands, once); the wait for each new document's ``load`` is bounded like the first.
    """
    from playwright.async_api import Error

    loaded = True
    for attempt in range(MAX_SELF_NAVIGATIONS + 2):
        if attempt >= MAX_SELF_NAVIGATIONS:
            await watch.hold()
        try:
            walked = await _prepare_and_walk_once(page, source, options, policy, deadline,
                                                  timings)
            return (*walked, loaded)
        except Error as err:
            if not any(marker in str(err) for marker in _NAVIGATED_MARKERS):
                raise
            loaded = await wait_for_load(page, deadline, options.load_share,
                                         strict=not options.allow_incomplete)
    raise NavigationError(f"{source.url}: the page kept navigating ({MAX_SELF_NAVIGATIONS + 2} "
                          "times while it was captured, also after it was held)")


async def _prepare_and_walk_once(
    page: Any, source: PageSource, options: CaptureOptions, policy: RequestPolicy,
    deadline: float, timings: dict[str, float]
) -> tuple[DomWalk, str, str, bool]:
    _check_main_frame(page, source, policy)
    mark = time.perf_counter()
    page.set_default_timeout(max(1.0, (deadline - time.perf_counter()) * 1000))
    await page.evaluate("document.fonts.ready.then(() => true)")
    if options.settle_fixed and options.settle_s > 0:
        await page.wait_for_timeout(options.settle_s * 1000)
    else:
        await wait_until_quiet(page, options.settle_s)
    timings["settle_s"] = time.perf_counter() - mark

    mark = time.perf_counter()
    scroll_seconds = min(options.scroll_max_seconds, max(0.0, deadline - time.perf_counter() - 1))
    if options.scroll_always or await reacts_to_scrolling(page):
        scroll_truncated = await lazy_scroll(page, options, scroll_seconds)
    else:
        scroll_truncated = False
        timings["scroll_skipped"] = 1.0
    if await expand_scroll_container(page):
        timings["scroll_container_expanded"] = 1.0
    timings["scroll_s"] = time.perf_counter() - mark

    mark = time.perf_counter()
    _check_main_frame(page, source, policy)  # scrolling can trigger navigations too
    max_frames = 0 if options.frames == "none" else MAX_FRAMES
    walk = await walk_dom(page, max_frames,
                          frame_allowed=lambda url: policy.allow_frame(url, page.url))
    html = await serialize_with_shadow_roots(page) if walk.shadow_roots else \
        well_formed(await page.content())
    title = well_formed(await page.title())
    timings["dom_s"] = time.perf_counter() - mark
    if walk.frames_walked or walk.frames_skipped:
        timings["frames_walked"] = walk.frames_walked
        timings["frames_skipped"] = walk.frames_skipped
    return walk, html, title, scroll_truncated


def _check_main_frame(page: Any, source: PageSource, policy: RequestPolicy) -> None:
    """A page that left itself is an error, never captured as content: the browser's own error
    page (a blocked or failed navigation), or a local page that went to another file."""
    url = page.url
    if url.startswith("chrome-error:"):
        raise LeftPage(f"{source.url}: the page navigated to a place wps does not "
                        "load (blocked or failed), leaving the browser's error page")
    if not policy.allow_main_frame(url):
        raise LeftPage(f"{source.url}: the page navigated to {url}, refused: "
                       f"{policy.main_frame_refusal(url)}")


class LeftPage(NavigationError):
    """The main frame left the page (named by the browser's capture where the policy refused
    where it went)."""
