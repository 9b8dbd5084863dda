"""Render pages in the distribution's Chromium with Playwright and capture them as PageCaptures.

One :class:`Browser` keeps one Chromium process, so batch runs and tests pay the launch once; it
reuses tabs, cleared between pages: a local page's for the next file, a web page's for the next
page of the same site (:mod:`wps.capture.tabs`, :mod:`wps.capture.sessions`).
Playwright's async API runs on a private event loop behind a synchronous interface: that gives a
hard wall-clock limit per page (``asyncio.wait_for``), which the sync API cannot enforce while a
page's script blocks. A crashed browser or renderer is restarted and the page retried once.

With ``concurrency`` above 1 the loop runs in a thread of its own and :meth:`Browser.capture`
may be called from that many threads at once: the pages render side by side in one Chromium,
each in its own tab (``wps batch`` segments the rendered pages meanwhile).

Screenshots are written to a temporary folder: one per :class:`Browser`, removed by
:meth:`Browser.close` (:meth:`PageCapture.save` copies the PNG, so saved captures keep theirs);
:func:`capture_page` without a browser moves its page's screenshot out first and removes it at
interpreter exit. :func:`discard_screenshot` frees one page's screenshot earlier.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from ..deadline import Deadline
from ..errors import (
    BlockedTargetError,
    BrowserCrashError,
    BrowserNotFoundError,
    CaptureError,
    NavigationError,
    NetworkError,
    PageMemoryError,
)
from ..model import PageCapture
from .dom import MAX_FRAMES, DomWalk, serialize_with_shadow_roots, walk_dom, well_formed
from .faults import (
    MainDocuments,
    RendererCrash,
    check_cut_document,
    check_response,
    translate_error,
)
from .navigation import (
    MAX_SELF_NAVIGATIONS,
    NavigationWatch,
    cancelled_navigations,
    wait_for_load,
)
from .options import CaptureOptions, find_chromium
from .policy import RequestPolicy
from .processes import find_browser_pid, kill, kill_browser, marker_flag, renderer_memory
from .replay import ReplayArchive
from .screenshots import (  # discard_screenshot: kept importable from here
    PAGE_PREFIX,
    detach_screenshot,
    discard_screenshot,  # noqa: F401
)
from .scroll import (
    expand_scroll_container,
    lazy_scroll,
    reacts_to_scrolling,
    unreached_scroll_content,
)
from .sessions import Proxies, ProxyMark, tab_key
from .sources import PageSource, check_body, page_id_for, prepare_source
from .tabs import CLOSE_TIMEOUT_S, Tab, close_tab, evict, open_tab, park

LAUNCH_ARGS = (
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",  # no UDP around the proxy
)
_MEMORY_POLL_S = 0.25
_GRACE_S = 2.0  # time past --timeout for closing the context cleanly
_NAVIGATED_MARKERS = (
    "Execution context was destroyed", "Cannot find context with specified id",
    "because of a navigation", "the page is navigating and changing the content",
)

PageHook = Callable[[Any], Awaitable[None]]
Result = TypeVar("Result")


class Browser:
    """One Chromium process reused across pages, with tabs reused per site and for local pages
    (:mod:`wps.capture.tabs`) and one egress proxy per set of proxy rules.

    Use as a context manager. ``restart_every`` restarts Chromium after that many pages (bounds
    memory growth in long batches). ``page_hook`` is awaited with each Playwright page right after
    navigation (instrumentation; the tests use it to crash the renderer).
    Captured screenshots live in a temporary folder of this browser until :meth:`close`.

    ``concurrency`` above 1: :meth:`capture` may run in that many threads at once (the event
    loop then runs in a thread of its own). A restart (``restart_every``, memory) waits until
    no page is in flight; a browser crash is retried once per page, as with one page; a page
    past its deadline kills Chromium only when no other page is in flight (else only its
    context goes: the others would lose their work).
    """

    def __init__(
        self,
        options: CaptureOptions | None = None,
        *,
        restart_every: int | None = None,
        page_hook: PageHook | None = None,
        concurrency: int = 1,
    ) -> None:
        self.options = options or CaptureOptions()
        self.restart_every = restart_every
        self.page_hook = page_hook
        self.concurrency = max(1, concurrency)
        self._thread: threading.Thread | None = None
        """The loop's own thread (``concurrency`` above 1)."""
        self._state = threading.Condition(threading.RLock())
        """Guards launching, restarts and the count of pages in flight."""
        self._in_flight = 0
        self._work: set[asyncio.Task[Any]] = set()
        """What other threads wait for on the loop's thread (cancelled by :meth:`close`)."""
        self._memory_killed_at = 0.0
        self._memory_killed_held = 0
        """``time.monotonic()`` of the last renderer kill for memory (concurrent pages)."""
        self._idle_tabs: list[Tab] = []
        """Parked tabs, ready for the next page of their site or the next file, the one parked
        longest ago first (see :mod:`wps.capture.tabs`)."""
        self._proxies = Proxies()
        self._usage: tuple[float, dict[int, int]] = (-1.0, {})
        """The last scan of the renderers' memory and when it was taken: the watchers of the
        pages in flight share it instead of each scanning ``/proc``."""
        self.pages_since_start = 0
        self.launches = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._playwright: Any = None
        self._browser: Any = None
        self._user_agent = ""
        self._screenshot_folder: Path | None = None
        self._interrupted = False
        self._token = uuid.uuid4().hex
        """Marks this browser's Chromium process (:func:`~.processes.marker_flag`)."""
        self._browser_pid: int | None = None
        self._memory_exceeded: int | None = None
        """Bytes a renderer of the current page held when it was stopped for memory."""

    # ------------------------------------------------------------------------------ lifecycle
    def __enter__(self) -> Browser:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def start(self) -> None:
        """Launch Chromium (no-op when running). Raises BrowserNotFoundError, CaptureError."""
        with self._state:
            if self._browser is not None and self._browser.is_connected():
                return
            executable = find_chromium(self.options.chromium_path)
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._loop.set_exception_handler(self._report_loop_error)
                if self.concurrency > 1:
                    self._thread = threading.Thread(target=self._loop.run_forever,
                                                    name="wps-browser-loop", daemon=True)
                    self._thread.start()
            self._run(self._launch(executable))

    async def _launch(self, executable: str) -> None:
        from playwright.async_api import Error, async_playwright

        await self._drop_idle_tabs()  # of a browser that died under them
        if self._playwright is None:
            self._playwright = await async_playwright().start()
        try:
            self._browser = await self._playwright.chromium.launch(
                executable_path=executable, headless=True,
                args=[*LAUNCH_ARGS, marker_flag(self._token)],
            )
        except Error as err:
            first_line = str(err).strip().splitlines()[0] if str(err).strip() else repr(err)
            raise CaptureError(f"{executable}: Chromium failed to start ({first_line})") from None
        version = self._browser.version
        self._browser_pid = find_browser_pid(self._token)
        self._usage = (-1.0, {})  # the last browser's renderers are not this one's
        self._user_agent = (
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
            f"Chrome/{version} Safari/537.36"
        )
        self.pages_since_start = 0
        self.launches += 1

    def restart(self) -> None:
        """Close Chromium (ignoring errors from a dead one) and launch it again.

        With pages of other threads in flight, wait until they are done (the batch calls this
        after a page that left Chromium holding too much memory)."""
        with self._state:
            self._state.wait_for(lambda: self._in_flight == 0)
            self._restart_now()

    def _restart_now(self) -> None:
        with self._state:
            if self._loop is not None and self._browser is not None:
                self._run(self._close_browser())
            self.start()

    def _abandon(self) -> None:
        """Kill Chromium at once (a timed-out page can keep it busy for many seconds); the next
        capture launches a fresh one."""
        if self._browser_pid is not None:
            kill_browser(self._browser_pid)
            self._browser_pid = None
        if self._loop is not None and self._browser is not None:
            self._run(self._close_browser())

    async def _drop_idle_tabs(self) -> None:
        tabs, self._idle_tabs = self._idle_tabs, []
        for tab in tabs:
            await close_tab(tab)

    async def _close_browser(self) -> None:
        await self._drop_idle_tabs()
        browser, self._browser = self._browser, None
        try:
            await asyncio.wait_for(browser.close(), CLOSE_TIMEOUT_S)
        except Exception:  # a crashed or hung browser: the driver reaps the process
            pass
        await self._proxies.close()

    def close(self) -> None:
        """Stop Chromium and the Playwright driver; remove this browser's screenshots.

        Pages still in flight (other threads) are cancelled first."""
        folder, self._screenshot_folder = self._screenshot_folder, None
        try:
            if self._loop is None:
                return
            if self._thread is not None:
                self._run(_cancel_tasks(self._work))
            if self._browser is not None:
                self._run(self._close_browser())
            if self._playwright is not None:
                try:
                    self._run(self._playwright.stop())
                except Exception:
                    pass
                self._playwright = None
            if self._thread is not None:
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._thread.join()
                self._thread = None
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            self._loop.close()
            self._loop = None
        finally:
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)

    def _run(self, work: Coroutine[Any, Any, Result]) -> Result:
        """Run ``work`` on the private loop to completion.

        On Ctrl-C (or any exception out of the loop itself) the work is cancelled and unwound
        before the exception goes on: a task left pending would later fail on its own and print
        an asyncio "exception was never retrieved" traceback under the one-line CLI message.
        """
        assert self._loop is not None
        if self._thread is not None:
            return self._run_in_thread(work)
        task = self._loop.create_task(work)
        try:
            return self._loop.run_until_complete(task)
        except BaseException as error:
            self._interrupted = self._interrupted or isinstance(error, KeyboardInterrupt)
            if not task.done():
                task.cancel()
                try:
                    self._loop.run_until_complete(asyncio.gather(task, return_exceptions=True))
                except BaseException:  # a second Ctrl-C: stop unwinding, keep the first error
                    pass
            elif not task.cancelled():
                task.exception()  # retrieved: the error propagates from here
            raise

    def _run_in_thread(self, work: Coroutine[Any, Any, Result]) -> Result:
        """:meth:`_run` with the loop in its own thread: wait here for ``work``; an exception in
        the waiting thread (Ctrl-C, SIGTERM's :class:`~wps.files.Terminated`) cancels it and
        waits (a while) for it to unwind."""
        import concurrent.futures

        assert self._loop is not None
        ended = threading.Event()

        async def tracked() -> Result:
            task = asyncio.current_task()
            self._work.add(task)
            try:
                return await work
            finally:
                self._work.discard(task)
                ended.set()

        future = asyncio.run_coroutine_threadsafe(tracked(), self._loop)
        try:
            return future.result()
        except concurrent.futures.CancelledError:  # close() cancelled it: a failed page
            raise
        except BaseException as error:
            self._interrupted = self._interrupted or isinstance(error, KeyboardInterrupt)
            if not future.done():
                future.cancel()  # cancels the task on the loop
                ended.wait(CLOSE_TIMEOUT_S + _GRACE_S)
            raise

    def _report_loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """asyncio's handler, minus the fallout of Ctrl-C: a terminal's SIGINT also kills the
        Playwright driver and Chromium, whose pending futures then fail unobserved."""
        if self._interrupted and "never retrieved" in str(context.get("message", "")):
            return
        loop.default_exception_handler(context)

    def _new_screenshot_path(self) -> Path:
        """A fresh path in this browser's temporary folder (one subfolder per page)."""
        from .screenshots import new_screenshot_folder  # named for this pid; stale ones go

        if self._screenshot_folder is None or not self._screenshot_folder.is_dir():
            self._screenshot_folder = new_screenshot_folder()
        page_folder = tempfile.mkdtemp(prefix=PAGE_PREFIX, dir=self._screenshot_folder)
        return Path(page_folder) / "screenshot.png"

    @property
    def version(self) -> str:
        self.start()
        return self._browser.version

    # -------------------------------------------------------------------------------- capture
    def capture(self, source: str | Path | PageSource, options: CaptureOptions | None = None,
                *, deadline: Deadline | None = None,
                replay: ReplayArchive | None = None) -> PageCapture:
        """Render ``source`` (http(s) URL or local .html/.html.gz) and capture it; with
        ``replay``, the URL's page as that archive holds it, every request answered from it
        (:mod:`wps.capture.replay`; nothing is looked up or fetched).

        ``deadline`` (default: ``options.timeout_s`` from now) bounds the whole capture; the
        pipeline passes the page's deadline so that capture and later stages share it. Web
        pages are checked against the address guard before Chromium sees them (a
        :class:`PageSource` is taken as :func:`prepare_source` checked it, and cleaned up here).
        Retries once after a browser or renderer crash, on a restarted browser.
        """
        options = options or self.options
        if isinstance(source, PageSource):
            resolved = source
        elif replay is not None:
            resolved = PageSource(url=str(source), navigate_url=str(source), is_file=False)
        else:
            resolved = prepare_source(source, allow_private=options.allow_private)
        deadline = deadline or Deadline(options.timeout_s, what=resolved.url)
        try:
            for attempt in (1, 2):
                launch = self._enter()
                started = time.monotonic()
                try:
                    return self._run_one(resolved, options, deadline, replay)
                except RendererCrash as crash:
                    if self._memory_exceeded is not None or self._memory_killed_at > started:
                        held = self._memory_exceeded or self._memory_killed_held
                        raise PageMemoryError(
                            f"{resolved.url}: the page's renderer passed the memory limit "
                            f"({held >> 20} MiB > {options.max_renderer_mb} MiB) "
                            "and was stopped") from None
                    self._after_crash(launch)
                    if attempt == 2:
                        raise BrowserCrashError(
                            f"{resolved.url}: browser crashed twice ({crash.cause})"
                        ) from None
                finally:
                    self._leave()
            raise AssertionError("unreachable")
        finally:
            resolved.cleanup()

    def _enter(self) -> int:
        """Count a page in flight (after a due restart, which waits for the others); the launch
        it runs on."""
        with self._state:
            if self.restart_every and self.pages_since_start >= self.restart_every:
                self._state.wait_for(lambda: self._in_flight == 0)
                if self.pages_since_start >= self.restart_every:  # not done by another thread
                    self._restart_now()
            self.start()
            self._in_flight += 1
            self.pages_since_start += 1
            return self.launches

    def _leave(self) -> None:
        with self._state:
            self._in_flight -= 1
            if self._in_flight == 0:  # no page left to ask what its proxy refused
                self._proxies.forget_refusals()
            self._state.notify_all()

    def _after_crash(self, launch: int) -> None:
        """After a crash: restart Chromium, unless another page already did (concurrent pages
        on the same Chromium all see its crash) or only this page's renderer died."""
        with self._state:
            if self.launches != launch:
                return
            if (self.concurrency > 1 and self._browser is not None
                    and self._browser.is_connected()):
                return  # only the page's renderer crashed: its next context gets a new one
            self._restart_now()

    def _run_one(self, source: PageSource, options: CaptureOptions, deadline: Deadline,
                 replay: ReplayArchive | None = None) -> PageCapture:
        assert self._loop is not None
        deadline.check("capture")
        if self.concurrency == 1:
            self._memory_exceeded = None
        limit = deadline.remaining() + _GRACE_S
        try:
            return self._run(asyncio.wait_for(self._capture(source, options, deadline, replay),
                                              limit))
        except (asyncio.TimeoutError, TimeoutError):  # one class from 3.11 on
            with self._state:
                if self._in_flight <= 1:  # the context may be stuck in a busy page
                    self._abandon()
                # else: its context is closed (bounded wait); killing Chromium would lose the
                # other pages in flight, which each still have their own deadline
            raise deadline.error("capture") from None

    async def _capture(self, source: PageSource, options: CaptureOptions,
                       page_deadline: Deadline,
                       replay: ReplayArchive | None = None) -> PageCapture:
        from playwright.async_api import Error

        started = time.perf_counter()
        deadline = started + page_deadline.remaining()
        policy = RequestPolicy.for_source(source, same_origin=options.same_origin,
                                          frames=options.frames)
        user_agent = options.user_agent or self._user_agent
        key = tab_key(options, user_agent, policy.page_url, source.is_file, replay)
        tab = next((tab for tab in self._idle_tabs if tab.key == key), None)
        kept = False
        mark: ProxyMark | None = None
        try:
            if tab is not None:
                self._idle_tabs.remove(tab)
                tab.policy = policy
            else:
                tab = await open_tab(self._browser, self._proxies, options, user_agent, policy,
                                     is_file=source.is_file, replay=replay)
            mark = ProxyMark.now(tab.proxy)
            tab.missing = []
            tab.pages += 1
            screenshot = self._new_screenshot_path() if options.screenshot else None
            work = _render(tab.page, source, options, policy, deadline, started, self.page_hook,
                           screenshot)
            watcher = asyncio.ensure_future(self._watch_memory(options.max_renderer_mb << 20))
            try:
                capture = await _until_crash(tab.page, self._browser, work)
            finally:
                watcher.cancel()
                await asyncio.gather(watcher, return_exceptions=True)
            check_cut_document(mark.not_html, source.url, capture.final_url)
            kept = await park(tab)
            if replay is not None:
                capture = replace(capture, replay_missing=sorted(set(tab.missing)))
            return capture
        except _LeftPage:
            if tab is None or tab.refused_navigation is None:
                raise
            refused = tab.refused_navigation
            raise NavigationError(f"{source.url}: the page navigated to {refused}, refused: "
                                  f"{policy.main_frame_refusal(refused)}") from None
        except Error as err:
            check_cut_document(mark.not_html if mark is not None else [], source.url)
            blocked = mark.blocked if mark is not None else []
            refused = [item for item in blocked if _same_host(item.target, source.url)]
            if refused:
                raise BlockedTargetError(f"{source.url}: {refused[0].reason}") from None
            failed = mark.failed if mark is not None else []
            unreachable = [item for item in failed if _same_host(item.target, source.url)]
            if unreachable:  # an https page: the browser only saw a failed tunnel
                raise NetworkError(f"{source.url}: {unreachable[0].reason}") from None
            raise translate_error(source.url, err, page_deadline) from None
        finally:
            if tab is not None:
                if kept:
                    self._idle_tabs.append(tab)
                for gone in ([] if kept else [tab]) + evict(self._idle_tabs):
                    await close_tab(gone)

    async def _watch_memory(self, limit_bytes: int) -> None:
        """Stop the page's renderers when they hold more than ``limit_bytes`` together; the
        crash that follows is reported as :class:`PageMemoryError`, not retried. What the
        renderers held when the page started (parked tabs of other sites, each on
        ``about:blank``) is not the page's: only what they gained since counts.

        With pages of other threads in flight the renderers cannot be told apart by page: a
        renderer holding more than ``limit_bytes`` on its own is stopped, and a page whose
        renderer crashes after such a stop fails with :class:`PageMemoryError`."""
        if self._browser_pid is None:
            return
        before = 0 if self.concurrency > 1 else sum(renderer_memory(self._browser_pid).values())
        while True:
            await asyncio.sleep(_MEMORY_POLL_S)
            taken, usage = self._usage
            if time.monotonic() - taken >= _MEMORY_POLL_S / 2:
                usage = renderer_memory(self._browser_pid)
                self._usage = (time.monotonic(), usage)
            if self.concurrency > 1:
                over = [pid for pid, held in usage.items() if held > limit_bytes]
                if over:
                    self._memory_killed_held = max(usage[pid] for pid in over)
                    self._memory_killed_at = time.monotonic()
                    kill(over)
                continue
            held = sum(usage.values()) - before
            if held > limit_bytes:
                self._memory_exceeded = held
                kill(list(usage))
                return


async def _cancel_tasks(tasks: set[asyncio.Task[Any]]) -> None:
    """Cancel ``tasks`` (but not the running one) and wait for them to unwind."""
    current = asyncio.current_task()
    others = [task for task in tasks if task is not current]
    for task in others:
        task.cancel()
    await asyncio.gather(*others, return_exceptions=True)


async def _until_crash(page: Any, browser: Any, work: Awaitable[PageCapture]) -> PageCapture:
    """Await ``work`` unless the renderer or the browser dies first (then raise RendererCrash).

    A crashed page does not fail pending calls promptly; without this race they would wait for
    the page timeout instead of being retried at once.
    """
    loop = asyncio.get_running_loop()
    died: asyncio.Future[str] = loop.create_future()

    def mark(cause: str) -> None:
        if not died.done():
            died.set_result(cause)

    def on_disconnect(_browser: Any) -> None:
        mark("browser disconnected")

    def on_crash(_page: Any) -> None:
        mark("page crashed")

    page.on("crash", on_crash)
    browser.on("disconnected", on_disconnect)
    task = asyncio.ensure_future(work)
    try:
        await asyncio.wait({task, died}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        browser.remove_listener("disconnected", on_disconnect)
        page.remove_listener("crash", on_crash)  # a local page's tab renders the next one too
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        elif not task.cancelled():
            task.exception()  # marks it retrieved; result() below raises it where it matters
    if task.done() and not task.cancelled() and not died.done():
        return task.result()
    if died.done():
        raise RendererCrash(died.result())
    return task.result()


def _same_host(target: str, url: str) -> bool:
    """Is the proxy's refused ``target`` (``host:port`` or a URL) the host of ``url``? Both are
    read as the proxy and the address guard read them."""
    from .addresses import split_host_port, split_url

    host = split_url(url)[1].lower()
    try:
        other = split_url(target)[1] if "://" in target else split_host_port(target)[0]
    except ValueError:  # a target with a bad port names no host we could have asked for
        return False
    return bool(host) and other.lower() == host


async def _render(
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
    watch = NavigationWatch(page)
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
        await _cancel_tasks({load, body})


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
    if options.settle_s > 0:
        await page.wait_for_timeout(options.settle_s * 1000)
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
        raise _LeftPage(f"{source.url}: the page navigated to a place wps does not "
                        "load (blocked or failed), leaving the browser's error page")
    if not policy.allow_main_frame(url):
        raise _LeftPage(f"{source.url}: the page navigated away to {url}")


class _LeftPage(NavigationError):
    """The main frame left the page (named by :meth:`Browser._capture` where the policy
    refused where it went)."""


def capture_page(
    source: str | Path,
    options: CaptureOptions | None = None,
    *,
    browser: Browser | None = None,
    deadline: Deadline | None = None,
) -> PageCapture:
    """Render an http(s) URL or a local ``.html``/``.html.gz`` file and capture it.

    Without ``browser`` a Chromium is launched for this page only and the screenshot stays in a
    temporary folder until :func:`discard_screenshot` or interpreter exit; pass a :class:`Browser`
    to reuse one (its screenshots go on :meth:`Browser.close`). Raises a
    :class:`~wps.errors.CaptureError` subclass naming the URL and the cause.
    """
    if browser is not None:
        return browser.capture(source, options, deadline=deadline)
    options = options or CaptureOptions()
    resolved = prepare_source(source, allow_private=options.allow_private)  # before Chromium
    own = Browser(replace(options))
    try:
        own.start()
        capture = own.capture(resolved, options, deadline=deadline)
        detach_screenshot(capture)
        return capture
    except BrowserNotFoundError as err:
        raise BrowserNotFoundError(f"{source}: cannot render, {err}") from None
    finally:
        resolved.cleanup()
        own.close()
