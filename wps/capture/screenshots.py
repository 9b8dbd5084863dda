"""Where rendered screenshots wait between capture and save, and how they are removed.

A :class:`~wps.capture.Browser` keeps one temporary ``wps-capture-*`` folder with a ``page-*``
subfolder per capture and removes it on close; a capture taken without a browser gets a folder of
its own (:func:`detach_screenshot`) that goes at interpreter exit unless discarded earlier.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from ..model import PageCapture

SCREENSHOT_PREFIX = "wps-capture-"
PAGE_PREFIX = "page-"
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


def detach_screenshot(capture: PageCapture) -> None:
    """Move the screenshot out of a browser's folder (about to close) into one of its own."""
    if capture.screenshot is None or not capture.screenshot.is_file():
        return
    global _exit_cleanup_registered
    folder = Path(tempfile.mkdtemp(prefix=SCREENSHOT_PREFIX))
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
