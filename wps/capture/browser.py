"""Render pages in the distribution's Chromium with Playwright and capture them as PageCaptures.

One :class:`Browser` keeps one Chromium process, so batch runs and tests pay the launch once; it
reuses tabs, cleared between pages: a local page's for the next file, a web page's for the next
page of the same site (:mod:`wps.capture.tabs`, :mod:`wps.capture.sessions`).
Playwright's async API runs on a private event loop behind a synchronous interface
(:mod:`wps.capture.loop`): that gives a hard wall-clock limit per page (``asyncio.wait_for``),
which the sync API cannot enforce while a page's script blocks. A page renders in a tab
(:mod:`wps.capture.render`) watched for crashes and memory (:mod:`wps.capture.watchers`); a
crashed browser or renderer is restarted and the page retried once.

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
import os
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..cached import cache_dir
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
from .faults import RendererCrash, check_cut_document, translate_error
from .features import launch_switches, learn_from
from .loop import GRACE_S, AsyncBridge, Result
from .options import CaptureOptions, find_chromium
from .policy import RequestPolicy
from .processes import command_line, find_browser_pid, kill_browser, marker_flag, tree_memory
from .render import LeftPage, PageHook, render
from .replay import ReplayArchive
from .screenshots import (  # discard_screenshot: kept importable from here
    PAGE_PREFIX,
    detach_screenshot,
    discard_screenshot,  # noqa: F401
)
from .sessions import Proxies, ProxyMark, tab_key
from .sources import PageSource, prepare_source, replayed_source
from .tabs import CLOSE_TIMEOUT_S, Tab, close_tab, evict, open_tab, park, take_page
from .watchers import MemoryWatch, until_crash

LAUNCH_ARGS = (
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",  # no UDP around the proxy
)


@contextmanager
def node_compile_cache() -> Iterator[None]:
    """Start Playwright's driver (Node) with its compile cache in wps's cache folder
    (:mod:`wps.cached`), unless ``NODE_COMPILE_CACHE`` is set already: Node then reads
    Playwright's compiled modules instead of compiling them again. Three workers starting their
    drivers at once on two cores took 0.45-0.55 s each; a 40-page batch ended 0.6-0.9 s sooner."""
    if os.environ.get("NODE_COMPILE_CACHE"):
        yield
        return
    os.environ["NODE_COMPILE_CACHE"] = str(cache_dir() / "node-compile-cache")
    try:
        yield  # the driver is started, with this process's environment, meanwhile
    finally:
        os.environ.pop("NODE_COMPILE_CACHE", None)


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
        self._bridge = AsyncBridge(threaded=self.concurrency > 1)
        """Playwright's async API behind synchronous calls (:mod:`wps.capture.loop`)."""
        self._state = threading.Condition(threading.RLock())
        """Guards launching, restarts and the count of pages in flight."""
        self._in_flight = 0
        self._memory = MemoryWatch(concurrent=self.concurrency > 1)
        self._idle_tabs: list[Tab] = []
        """Parked tabs, ready for the next page of their site or the next file, the one parked
        longest ago first (see :mod:`wps.capture.tabs`)."""
        self._proxies = Proxies()
        self.pages_since_start = 0
        self.launches = 0
        self._playwright: Any = None
        self._browser: Any = None
        self._user_agent = ""
        self._screenshot_folder: Path | None = None
        self._token = uuid.uuid4().hex
        """Marks this browser's Chromium process (:func:`~.processes.marker_flag`)."""
        self._browser_pid: int | None = None

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
            self._bridge.start()
            self._run(self._launch(executable))

    async def _launch(self, executable: str) -> None:
        from playwright.async_api import Error, async_playwright

        await self._drop_idle_tabs()  # of a browser that died under them
        if self._playwright is None:
            with node_compile_cache():
                self._playwright = await async_playwright().start()
        for attempt in range(2):
            switches = launch_switches()
            try:
                self._browser = await self._playwright.chromium.launch(
                    executable_path=executable, headless=True,
                    args=[*LAUNCH_ARGS, marker_flag(self._token), *switches],
                )
            except Error as err:
                first_line = str(err).strip().splitlines()[0] if str(err).strip() else repr(err)
                raise CaptureError(f"{executable}: Chromium failed to start ({first_line})"
                                   ) from None
            self._browser_pid = find_browser_pid(self._token)
            if (attempt or self._browser_pid is None
                    or not learn_from(command_line(self._browser_pid), switches)):
                break
            # Playwright's own --disable-features was read just now (once per Playwright
            # version, kept in the cache): launch again with wps's features off as well
            await self._close_browser()
        version = self._browser.version
        self._memory.forget_usage()
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
            if self._bridge.started and self._browser is not None:
                self._run(self._close_browser())
            self.start()

    def _abandon(self) -> None:
        """Kill Chromium at once (a timed-out page can keep it busy for many seconds); the next
        capture launches a fresh one."""
        if self._browser_pid is not None:
            kill_browser(self._browser_pid)
            self._browser_pid = None
        if self._bridge.started and self._browser is not None:
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
            if not self._bridge.started:
                return
            self._bridge.cancel_pending()
            if self._browser is not None:
                self._run(self._close_browser())
            if self._playwright is not None:
                try:
                    self._run(self._playwright.stop())
                except Exception:
                    pass
                self._playwright = None
            self._bridge.stop()
        finally:
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)

    def _run(self, work: Coroutine[Any, Any, Result]) -> Result:
        return self._bridge.run(work)

    def _new_screenshot_path(self) -> Path:
        """A fresh path in this browser's temporary folder (one subfolder per page)."""
        from .screenshots import new_screenshot_folder  # named for this pid; stale ones go

        if self._screenshot_folder is None or not self._screenshot_folder.is_dir():
            self._screenshot_folder = new_screenshot_folder()
        page_folder = tempfile.mkdtemp(prefix=PAGE_PREFIX, dir=self._screenshot_folder)
        return Path(page_folder) / "screenshot.png"

    @property
    def running(self) -> bool:
        """Whether Chromium is launched and connected (not before the first page needs it)."""
        return self._browser is not None and self._browser.is_connected()

    def memory_mb(self) -> float:
        """Anonymous memory of this browser's processes (its driver, Chromium and everything
        Chromium started); 0 when it is not running. Other browsers of the process do not count."""
        if not self.running or self._browser_pid is None:
            return 0.0
        return tree_memory(self._browser_pid) / 1024 / 1024

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
        pipeline passes the page's deadline so that capture and later stages share it. Time
        spent starting or restarting Chromium for the page is added to it (a browser's start-up
        is the run's, not the page's: on a loaded machine it takes seconds). Web
        pages are checked against the address guard before Chromium sees them (a
        :class:`PageSource` is taken as :func:`prepare_source` checked it, and cleaned up here).
        Retries once after a browser or renderer crash, on a restarted browser.
        """
        options = options or self.options
        if isinstance(source, PageSource):
            resolved = source
        elif replay is not None:
            resolved = replayed_source(str(source))
        else:
            resolved = prepare_source(source, allow_private=options.allow_private)
        deadline = deadline or Deadline(options.timeout_s, what=resolved.url)
        try:
            for attempt in (1, 2):
                launches, began = self.launches, time.monotonic()
                launch = self._enter()
                started = time.monotonic()
                if launch != launches:  # Chromium (re)started first: not the page's time
                    deadline.extend(started - began)
                try:
                    return self._run_one(resolved, options, deadline, replay)
                except RendererCrash as crash:
                    memory = self._memory
                    if memory.exceeded is not None or memory.killed_at > started:
                        held = memory.exceeded or memory.killed_held
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
        assert self._bridge.started
        deadline.check("capture")
        if self.concurrency == 1:
            self._memory.exceeded = None
        limit = deadline.remaining() + GRACE_S
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
                try:
                    await take_page(tab, policy)
                except Error:  # its renderer died while parked: a new tab instead
                    await close_tab(tab)
                    tab = None
            if tab is None:
                tab = await open_tab(self._browser, self._proxies, options, user_agent, policy,
                                     is_file=source.is_file, replay=replay)
            mark = ProxyMark.now(tab.proxy)
            tab.missing = []
            tab.pages += 1
            screenshot = self._new_screenshot_path() if options.screenshot else None
            work = render(tab.page, source, options, policy, deadline, started, self.page_hook,
                           screenshot)
            watcher = asyncio.ensure_future(self._memory.watch(self._browser_pid,
                                                          options.max_renderer_mb << 20))
            try:
                capture = await until_crash(tab.page, self._browser, work)
            finally:
                watcher.cancel()
                await asyncio.gather(watcher, return_exceptions=True)
            check_cut_document(mark.not_html, source.url, capture.final_url)
            kept = await park(tab)
            if replay is not None:
                capture = replace(capture, replay_missing=sorted(set(tab.missing)))
            return capture
        except LeftPage:
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



def capture_page(
    source: str | Path,
    options: CaptureOptions | None = None,
    *,
    browser: Browser | None = None,
    deadline: Deadline | None = None,
    replay: ReplayArchive | None = None,
) -> PageCapture:
    """Render an http(s) URL or a local ``.html``/``.html.gz`` file and capture it; with
    ``replay``, the URL's page as that archive holds it (:meth:`Browser.capture`).

    Without ``browser`` a Chromium is launched for this page only and the screenshot stays in a
    temporary folder until :func:`discard_screenshot` or interpreter exit; pass a :class:`Browser`
    to reuse one (its screenshots go on :meth:`Browser.close`). Raises a
    :class:`~wps.errors.CaptureError` subclass naming the URL and the cause.
    """
    if browser is not None:
        return browser.capture(source, options, deadline=deadline, replay=replay)
    options = options or CaptureOptions()
    resolved = (replayed_source(str(source)) if replay is not None  # checked before Chromium
                else prepare_source(source, allow_private=options.allow_private))
    own = Browser(replace(options))
    try:
        own.start()
        capture = own.capture(resolved, options, deadline=deadline, replay=replay)
        detach_screenshot(capture)
        return capture
    except BrowserNotFoundError as err:
        raise BrowserNotFoundError(f"{source}: cannot render, {err}") from None
    finally:
        resolved.cleanup()
        own.close()
