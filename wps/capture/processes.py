"""Chromium's processes, found through ``/proc``: to bound a renderer's memory and to kill a
browser that a timed-out page keeps busy (closing it politely can take many seconds).

Playwright does not expose the browser's pid, so each :class:`~wps.capture.Browser` launches
Chromium with a unique marker flag and finds the process whose command line carries it; its
renderers are that process's descendants with ``--type=renderer``.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

PROC = Path("/proc")


def marker_flag(token: str) -> str:
    """A flag Chromium ignores, naming one launch (found again by :func:`find_browser_pid`)."""
    return f"--wps-browser={token}"


def _cmdline(pid: int) -> list[str]:
    """The arguments of ``pid``; processes forked from Chromium's zygote rewrite theirs as one
    space-separated title, so both separators count."""
    try:
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return []
    return raw.decode("utf-8", "replace").replace("\0", " ").split()


def _parent_map() -> dict[int, int]:
    """pid → parent pid of every process we can see."""
    parents: dict[int, int] = {}
    for entry in PROC.iterdir() if PROC.is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()  # after "pid (comm) "
        if len(fields) > 1:
            parents[int(entry.name)] = int(fields[1])
    return parents


def find_browser_pid(token: str) -> int | None:
    """The Chromium browser process launched with :func:`marker_flag` ``(token)``."""
    flag = marker_flag(token)
    for pid in sorted(_parent_map()):
        args = _cmdline(pid)
        if flag in args and not any(arg.startswith("--type=") for arg in args):
            return pid
    return None


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``: from each process's ``task/*/children`` (a few small reads),
    or, where the kernel has no such file, from a scan of all of ``/proc``."""
    children_of = _direct_children if _has_children_files(pid) else _scanned_children()
    found, stack = [], [pid]
    while stack:
        for child in children_of(stack.pop()):
            found.append(child)
            stack.append(child)
    return found


def _has_children_files(pid: int) -> bool:
    return (PROC / str(pid) / "task" / str(pid) / "children").exists()


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


def _scanned_children():
    children: dict[int, list[int]] = {}
    for child, parent in _parent_map().items():
        children.setdefault(parent, []).append(child)
    return lambda pid: children.get(pid, [])


def renderer_memory(browser_pid: int) -> dict[int, int]:
    """Anonymous resident memory (bytes) of each renderer of the browser: what a page's DOM,
    layout and scripts use (shared library pages are not counted)."""
    usage: dict[int, int] = {}
    for pid in descendants(browser_pid):
        if not _is_renderer(pid):
            continue
        try:
            with open(f"/proc/{pid}/status", "rb") as file:
                status = file.read()
        except OSError:
            continue
        start = status.find(b"RssAnon:")
        if start >= 0:
            usage[pid] = int(status[start + 8:status.index(b"kB", start)]) * 1024
    return usage


_RENDERERS: dict[int, bool] = {}
"""pid → renderer or not; a process keeps its arguments (a reused pid is rare and only costs one
wrong answer until the cache is trimmed)."""


def _is_renderer(pid: int) -> bool:
    if pid not in _RENDERERS:
        if len(_RENDERERS) > 4096:
            _RENDERERS.clear()
        _RENDERERS[pid] = "--type=renderer" in _cmdline(pid)
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
