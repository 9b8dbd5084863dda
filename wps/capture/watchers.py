"""Watching a page while it renders: for a crashed renderer or browser (retried at once, not at
the deadline) and for renderers holding more memory than the page may have."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from ..model import PageCapture
from .faults import RendererCrash
from .processes import kill, renderer_memory

MEMORY_POLL_S = 0.25


@dataclass(slots=True)
class MemoryWatch:
    """The renderers' memory of one browser, watched while its pages render.

    The watchers of the pages in flight share the last scan (``usage``) instead of each scanning
    the processes; what was stopped and when is read by the page that sees its renderer crash.
    """

    concurrent: bool
    """Pages of other threads may be in flight: renderers cannot be told apart by page."""
    usage: tuple[float, dict[int, int]] = field(default_factory=lambda: (-1.0, {}))
    """The last scan of the renderers' memory and when it was taken."""
    killed_at: float = 0.0
    """``time.monotonic()`` of the last renderer kill for memory (concurrent pages)."""
    killed_held: int = 0
    exceeded: int | None = None
    """Bytes a renderer of the current page held when it was stopped for memory."""

    def forget_usage(self) -> None:
        """A new browser: the last one's renderers are not its."""
        self.usage = (-1.0, {})

    async def watch(self, browser_pid: int | None, limit_bytes: int) -> None:
        """Stop the page's renderers when they hold more than ``limit_bytes`` together; the
        crash that follows is reported as :class:`PageMemoryError`, not retried. What the
        renderers held when the page started (parked tabs of other sites, each on
        ``about:blank``) is not the page's: only what they gained since counts.

        With pages of other threads in flight the renderers cannot be told apart by page: a
        renderer holding more than ``limit_bytes`` on its own is stopped, and a page whose
        renderer crashes after such a stop fails with :class:`PageMemoryError`."""
        if browser_pid is None:
            return
        before = 0 if self.concurrent else sum(renderer_memory(browser_pid).values())
        while True:
            await asyncio.sleep(MEMORY_POLL_S)
            taken, usage = self.usage
            if time.monotonic() - taken >= MEMORY_POLL_S / 2:
                usage = renderer_memory(browser_pid)
                self.usage = (time.monotonic(), usage)
            if self.concurrent:
                over = [pid for pid, held in usage.items() if held > limit_bytes]
                if over:
                    self.killed_held = max(usage[pid] for pid in over)
                    self.killed_at = time.monotonic()
                    kill(over)
                continue
            held = sum(usage.values()) - before
            if held > limit_bytes:
                self.exceeded = held
                kill(list(usage))
                return


async def until_crash(page: Any, browser: Any, work: Awaitable[PageCapture]) -> PageCapture:
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
