"""The sync-over-async bridge of :class:`~wps.capture.Browser`: Playwright's async API run on a
private event loop behind synchronous calls.

The async API gives a hard wall-clock limit per page (``asyncio.wait_for``), which the sync API
cannot enforce while a page's script blocks. With ``threaded`` the loop runs in a thread of its
own, so that several threads may wait on it at once (concurrent pages in one Chromium).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from .tabs import CLOSE_TIMEOUT_S

GRACE_S = 2.0  # time past --timeout for closing the context cleanly

Result = TypeVar("Result")


class AsyncBridge:
    """One private event loop (in its own thread with ``threaded``) and the work waited on."""

    def __init__(self, *, threaded: bool) -> None:
        self.threaded = threaded
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        """The loop's own thread (``threaded``)."""
        self._work: set[asyncio.Task[Any]] = set()
        """What other threads wait for on the loop's thread (:meth:`cancel_pending`)."""
        self._interrupted = False

    @property
    def started(self) -> bool:
        return self._loop is not None

    def start(self) -> None:
        """Make the loop (and its thread) unless there is one."""
        if self._loop is not None:
            return
        self._loop = asyncio.new_event_loop()
        self._loop.set_exception_handler(self._report_loop_error)
        if self.threaded:
            self._thread = threading.Thread(target=self._loop.run_forever,
                                            name="wps-browser-loop", daemon=True)
            self._thread.start()

    def run(self, work: Coroutine[Any, Any, Result]) -> Result:
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
        """:meth:`run` with the loop in its own thread: wait here for ``work``; an exception in
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
                ended.wait(CLOSE_TIMEOUT_S + GRACE_S)
            raise

    def cancel_pending(self) -> None:
        """Cancel what other threads wait for (their pages fail) and wait for it to unwind."""
        if self._thread is not None:
            self.run(cancel_tasks(self._work))

    def stop(self) -> None:
        """Stop the loop's thread and close the loop (a later :meth:`start` makes a new one)."""
        if self._loop is None:
            return
        if self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._thread = None
        self._loop.run_until_complete(self._loop.shutdown_asyncgens())
        self._loop.close()
        self._loop = None

    def _report_loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """asyncio's handler, minus the fallout of Ctrl-C: a terminal's SIGINT also kills the
        Playwright driver and Chromium, whose pending futures then fail unobserved."""
        if self._interrupted and "never retrieved" in str(context.get("message", "")):
            return
        loop.default_exception_handler(context)


async def cancel_tasks(tasks: set[asyncio.Task[Any]]) -> None:
    """Cancel ``tasks`` (but not the running one) and wait for them to unwind."""
    current = asyncio.current_task()
    others = [task for task in tasks if task is not current]
    for task in others:
        task.cancel()
    await asyncio.gather(*others, return_exceptions=True)
