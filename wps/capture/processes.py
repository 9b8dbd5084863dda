"""Chromium's processes, found with psutil: to bound a renderer's memory and to kill a browser
that a timed-out page keeps busy (closing it politely can take many seconds).

Playwright does not expose the browser's pid, so each :class:`~wps.capture.Browser` launches
Chromium with a unique marker flag and finds the process whose command line carries it; its
renderers are that process's descendants with ``--type=renderer``.

The memory watcher asks for the renderers several times a second per page, so one step stays by
hand: a process's children are read from the kernel's ``task/*/children`` files (a few small
reads), where psutil would scan every process on the machine.
"""

from __future__ import annotations

import os
import signal

import psutil

_GONE = (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess)


def marker_flag(token: str) -> str:
    """A flag Chromium ignores, naming one launch (found again by :func:`find_browser_pid`)."""
    return f"--wps-browser={token}"


def find_browser_pid(token: str) -> int | None:
    """The Chromium browser process launched with :func:`marker_flag` ``(token)``. psutil reads
    the command line of a process forked from Chromium's zygote, which rewrites its arguments as
    one space-separated title, as separate arguments too."""
    flag = marker_flag(token)
    for process in sorted(psutil.process_iter(["cmdline"]), key=lambda process: process.pid):
        args = process.info["cmdline"] or []
        if flag in args and not any(arg.startswith("--type=") for arg in args):
            return process.pid
    return None


def command_line(pid: int) -> list[str]:
    """The arguments of process ``pid`` (none if it is gone or cannot be read)."""
    try:
        return psutil.Process(pid).cmdline()
    except psutil.Error:
        return []


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``: from each process's ``task/*/children``, or, where the
    kernel has no such file, from psutil (a scan of every process)."""
    if not os.path.exists(f"/proc/{pid}/task/{pid}/children"):
        try:
            return [child.pid for child in psutil.Process(pid).children(recursive=True)]
        except _GONE:
            return []
    found, stack = [], [pid]
    while stack:
        for child in _direct_children(stack.pop()):
            found.append(child)
            stack.append(child)
    return found


def _direct_children(pid: int) -> list[int]:
    # Plain os calls, not pathlib: the memory watcher runs this for every thread of the browser
    # several times a second, and pathlib's overhead was most of its cost.
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as file:
                listed = file.read()
        except OSError:
            continue
        if listed:
            found.extend(int(child) for child in listed.split())
    return found


def renderer_memory(browser_pid: int) -> dict[int, int]:
    """Anonymous resident memory (bytes) of each renderer of the browser: what a page's DOM,
    layout and scripts use (shared library pages are not counted: resident minus shared is the
    kernel's ``RssAnon``)."""
    usage: dict[int, int] = {}
    for pid in descendants(browser_pid):
        renderer = _renderer(pid)
        if renderer is None:
            continue
        try:
            memory = renderer.memory_info()
        except _GONE:
            continue
        usage[pid] = memory.rss - memory.shared
    return usage


def tree_memory(browser_pid: int) -> int:
    """Anonymous resident memory (bytes) of the browser, everything it started and the
    Playwright driver that launched it: what a long run grows and a restart gives back."""
    pids = [browser_pid, *descendants(browser_pid)]
    try:
        driver = psutil.Process(browser_pid).ppid()
    except _GONE:
        return 0
    if driver not in (0, 1, os.getpid()):
        pids.append(driver)
    total = 0
    for pid in pids:
        try:
            memory = psutil.Process(pid).memory_info()
        except _GONE:
            continue
        total += memory.rss - memory.shared
    return total


_RENDERERS: dict[int, psutil.Process | None] = {}
"""pid → its process if a renderer, else ``None``; a process keeps its arguments (a reused pid
is rare and only costs one wrong answer until the cache is trimmed)."""


def _renderer(pid: int) -> psutil.Process | None:
    if pid not in _RENDERERS:
        if len(_RENDERERS) > 4096:
            _RENDERERS.clear()
        try:
            process = psutil.Process(pid)
            _RENDERERS[pid] = process if "--type=renderer" in process.cmdline() else None
        except _GONE:
            return None
    return _RENDERERS[pid]


def kill(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:  # already gone
            pass


def kill_browser(browser_pid: int) -> None:
    """SIGKILL the browser and everything it started (renderers, zygotes, GPU process)."""
    kill([browser_pid, *descendants(browser_pid)])
