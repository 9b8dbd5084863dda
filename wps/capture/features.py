"""Chromium features wps turns off on top of Playwright's own list.

Chromium reads only the last ``--disable-features`` switch, and Playwright passes its own: the
features that would get in automation's way (HTTPS upgrades of ``http`` navigations, paint
holding, storage partitioning, ...), which must stay off. So wps reads that list from the command
line of the first Chromium it launches, keeps it in the cache (:mod:`wps.cached`, per Playwright
version; Playwright's list is a constant of its driver), and from then on adds one switch, last,
that holds it and wps's own features. Until the list is known, and wherever it cannot be read,
Chromium runs with Playwright's list alone, as before.

After every launch the switch in effect is checked against the command line: it must hold every
feature of the switches before it (Playwright's, and any a wrapper script put there) and wps's,
and nothing else. Otherwise the list is read again from the command line and the browser is
launched again before it renders a page (:meth:`wps.capture.Browser.start`), so a stale or
altered cache file can neither leave one of Playwright's features on nor turn another one off.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import suppress
from importlib.metadata import PackageNotFoundError, version
from typing import IO, Any

from ..cached import cached_file, cached_path

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
"""Playwright's list (and any a wrapper script put before it) by Playwright version, once read in
this process."""


def launch_switches() -> list[str]:
    """The switch to add to Chromium's arguments, last: none while Playwright's own list is not
    known."""
    known = _known_list()
    return [] if known is None else [SWITCH + ",".join(_merged(known))]


def learn_from(command_line: Sequence[str], added: Sequence[str]) -> bool:
    """Check the features in effect in a Chromium launched with the switches ``added``
    (:func:`launch_switches`), from its command line; if they are not exactly those of the
    switches before them and :data:`DISABLED_FEATURES`, keep the former and return True: the
    browser should be launched again."""
    values = [arg[len(SWITCH):] for arg in command_line if arg.startswith(SWITCH)]
    if not values:
        return False  # no switch at all: nothing of Playwright's to keep
    ours_last = bool(added) and SWITCH + values[-1] == added[-1]
    if added and not ours_last:
        return False  # a switch after wps's decides: there is nothing to merge into
    earlier = _names(values[:-1] if ours_last else values)
    if set(_names(values[-1:])) == set(_merged(earlier)):
        return False  # as it should be (or Playwright's list holds wps's features already)
    key = _playwright_version()
    _learned[key] = ",".join(earlier)

    def write(stream: IO[Any]) -> None:
        stream.write(_learned[key].encode("utf-8"))

    with suppress(OSError):  # a list kept before is stale or altered: replace it
        cached_path(_CACHE_NAME, key).unlink(missing_ok=True)
    cached_file(_CACHE_NAME, key, write)
    return True


def _merged(names: Sequence[str]) -> list[str]:
    return [*names, *(name for name in DISABLED_FEATURES if name not in names)]


def _names(values: Iterable[str]) -> list[str]:
    """The feature names of ``values`` (switch values), each once, in order."""
    return list(dict.fromkeys(name for value in values for name in value.split(",") if name))


def _known_list() -> list[str] | None:
    key = _playwright_version()
    if key not in _learned:
        try:
            text = cached_path(_CACHE_NAME, key).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return None
        if any(not name.isascii() or not name.replace("_", "").isalnum()
               for name in text.split(",") if name):
            return None  # not a list of feature names: read again at the next launch
        _learned[key] = text
    return _names([_learned[key]])


def _playwright_version() -> str:
    try:
        return version("playwright")
    except PackageNotFoundError:  # pragma: no cover - playwright is a dependency
        return "unknown"

