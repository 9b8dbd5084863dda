"""Chromium features wps turns off on top of Playwright's own list.

Chromium reads only the last ``--disable-features`` switch, and Playwright passes its own: the
features that would get in automation's way (HTTPS upgrades of ``http`` navigations, paint
holding, storage partitioning, ...), which must stay off. So wps learns that list from the command
line of the first Chromium it launches, keeps it in the cache (:mod:`wps.cached`, per Playwright
version; Playwright's list is a constant of its driver), and from then on launches Chromium with
one merged switch in place of Playwright's (``ignore_default_args``). Until the list is learned,
and wherever it cannot be, Chromium runs with Playwright's list alone, as before.

A kept list takes effect only if it is exactly the switch Playwright passes: otherwise Playwright's
switch is not left out, the command line shows two, and the browser is launched again, with the
list read from it, before it renders a page (:meth:`wps.capture.Browser.start`). So a stale or
altered cache file can never leave one of Playwright's features on.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import IO, Any

from ..cached import cache_dir, cached_file

__all__ = ["DISABLED_FEATURES", "launch_switches", "learn_from"]

DISABLED_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")
"""Each new window of headless Chromium (one per browser context: a batch opens one per worker
and per site) loads the omnibox popup's two WebUI pages, which no headless page ever shows, in a
renderer of their own: a context and its first page took 0.68-0.93 CPU s, 0.13-0.18 with them
off. One ``Browser`` over 40 article pages took 0.41 CPU s a page as files and 0.55 as
URLs of four sites, and 0.36 and 0.48 with them off."""
SWITCH = "--disable-features="
_CACHE_NAME = "playwright-disabled-features.txt"

_learned: dict[str, str] = {}
"""Playwright's list by Playwright version, once read in this process."""


def launch_switches() -> tuple[list[str], list[str]]:
    """The switches to add to Chromium's arguments and the default ones Playwright must leave
    out: ``([], [])`` while Playwright's own ``--disable-features`` is not known."""
    theirs = _playwright_list()
    if theirs is None:
        return [], []
    names = [name for name in theirs.split(",") if name]
    merged = [*names, *(name for name in DISABLED_FEATURES if name not in names)]
    return [SWITCH + ",".join(merged)], [SWITCH + theirs]


def learn_from(command_line: Sequence[str]) -> bool:
    """Read Playwright's ``--disable-features`` from the command line of a Chromium it
    launched and keep it; True if that Chromium ran without :data:`DISABLED_FEATURES` because
    the list was not known yet (or Playwright's has changed since it was learned)."""
    values = [arg[len(SWITCH):] for arg in command_line if arg.startswith(SWITCH)]
    if not values:
        return False  # Playwright passed none: nothing of its to keep, nothing to merge into
    in_effect = values[-1].split(",")
    if len(values) == 1 and all(name in in_effect for name in DISABLED_FEATURES):
        return False  # the merged switch alone: as it should be
    theirs = values[0]  # Playwright's, listed before wps's arguments
    key = _playwright_version()
    _learned[key] = theirs

    def write(stream: IO[Any]) -> None:
        stream.write(theirs.encode("utf-8"))

    with suppress(OSError):  # a list kept before is stale or cut: replace it
        _cache_path(key).unlink(missing_ok=True)
    cached_file(_CACHE_NAME, key, write)
    return True


def _playwright_list() -> str | None:
    key = _playwright_version()
    if key not in _learned:
        try:
            text = _cache_path(key).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return None
        if any(not name.isascii() or not name.replace("_", "").isalnum()
               for name in text.split(",") if name):
            return None  # not a list of feature names: learned again at the next launch
        _learned[key] = text  # a stale or cut one is caught by learn_from after the launch
    return _learned[key]


def _playwright_version() -> str:
    try:
        return version("playwright")
    except PackageNotFoundError:  # pragma: no cover - playwright is a dependency
        return "unknown"


def _cache_path(key: str) -> Path:
    """Where :func:`~wps.cached.cached_file` keeps the list learned for ``key``."""
    stem, dot, suffix = _CACHE_NAME.partition(".")
    return cache_dir() / f"{stem}-{key}{dot}{suffix}"
