"""Where rendered screenshots wait between capture and save, and how they are removed.

A :class:`~wps.capture.Browser` keeps one temporary ``wps-capture-<pid>-<host>-*`` folder with a
``page-*`` subfolder per capture and removes it on close; a capture taken without a browser gets a
folder of its own (:func:`detach_screenshot`) that goes at interpreter exit unless discarded
earlier. What a killed process left (its pid no longer runs) is removed by the next process that
makes such a folder (:func:`remove_stale_temp_folders`).
"""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
from pathlib import Path

from ..files import OWNER, owned_temp_folder, remove_stale
from ..model import PageCapture

SCREENSHOT_PREFIX = "wps-capture-"
SOURCE_PREFIX = "wps-source-"
"""Temporary copies of local pages (:mod:`wps.capture.sources`)."""
PAGE_PREFIX = "page-"
_TEMP_FOLDER = re.compile(rf"(?:{SCREENSHOT_PREFIX}|{SOURCE_PREFIX}){OWNER}")
_DETACHED_FOLDERS: set[Path] = set()
"""Screenshot folders of captures taken without a browser, removed at exit if still there."""
_exit_cleanup_registered = False


def discard_screenshot(screenshot: Path | None) -> None:
    """Delete a screenshot that a capture left in its temporary folder (after saving).

    Anything else (a saved capture's PNG, a Webis screenshot) is left alone.
    """
    if screenshot is None:
        return
    folder = Path(screenshot).parent
    temp = Path(tempfile.gettempdir())
    standalone = folder.name.startswith(SCREENSHOT_PREFIX) and folder.parent == temp
    in_browser_folder = (folder.name.startswith(PAGE_PREFIX) and folder.parent.parent == temp
                         and folder.parent.name.startswith(SCREENSHOT_PREFIX))
    if standalone or in_browser_folder:
        shutil.rmtree(folder, ignore_errors=True)
        _DETACHED_FOLDERS.discard(folder)


def new_screenshot_folder() -> Path:
    """A temporary folder for a browser's screenshots, named for this process."""
    return new_temp_folder(SCREENSHOT_PREFIX)


def new_temp_folder(prefix: str) -> Path:
    """A ``<prefix><pid>-<host>-<random>`` folder in the temp dir, after removing stale ones."""
    remove_stale_temp_folders()
    return owned_temp_folder(prefix)


def remove_stale_temp_folders() -> list[Path]:
    """Remove the screenshot and source folders of processes that ended without cleaning up
    (``kill -9``); those of live processes stay. One listing of the temp dir."""
    return remove_stale(tempfile.gettempdir(), _TEMP_FOLDER, "wps-")


def detach_screenshot(capture: PageCapture) -> None:
    """Move the screenshot out of a browser's folder (about to close) into one of its own."""
    if capture.screenshot is None or not capture.screenshot.is_file():
        return
    global _exit_cleanup_registered
    folder = new_temp_folder(SCREENSHOT_PREFIX)
    if not _exit_cleanup_registered:
        atexit.register(_remove_detached_folders)
        _exit_cleanup_registered = True
    _DETACHED_FOLDERS.add(folder)
    target = folder / capture.screenshot.name
    shutil.move(str(capture.screenshot), target)
    capture.screenshot = target


def _remove_detached_folders() -> None:
    for folder in list(_DETACHED_FOLDERS):
        shutil.rmtree(folder, ignore_errors=True)
    _DETACHED_FOLDERS.clear()
