"""HTML given as text (:class:`~wps.model.StoredPage`: a Python string, stdin, a JSONL ``html``
field, a WARC record), rendered offline as a local page is (it reaches no network) and recorded
under the URL it came from."""

from __future__ import annotations

import shutil
from dataclasses import replace
from typing import TYPE_CHECKING

from .screenshots import SOURCE_PREFIX, new_temp_folder

if TYPE_CHECKING:
    from ..deadline import Deadline
    from ..model import PageCapture, StoredPage
    from .browser import Browser, CaptureOptions

STORED_FILE = "page.html"


def capture_stored(page: StoredPage, options: CaptureOptions | None = None, *,
                   browser: Browser | None = None,
                   deadline: Deadline | None = None) -> PageCapture:
    """Render ``page`` offline and record it under its own URL and id.

    Written to a temporary ``page.html`` first, because the capture takes URLs and files; a
    capture option to render given bytes under a URL would save that write. A page with an
    ``archive`` is replayed from it under its URL instead (:func:`~.replay.replay_archive`).
    """
    from .browser import capture_page

    if page.archive:
        from .replay import replay_archive

        return capture_page(page.url, options, browser=browser, deadline=deadline,
                            replay=replay_archive(page.archive))
    folder = new_temp_folder(SOURCE_PREFIX)
    try:
        file = folder / STORED_FILE
        file.write_bytes(page.html)
        capture = capture_page(file, options, browser=browser, deadline=deadline)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return replace(capture, url=page.url, final_url=page.url, page_id=page.page_id)
