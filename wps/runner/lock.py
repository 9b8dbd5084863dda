"""One batch per output folder: an advisory ``flock`` on ``DIR/.lock``.

Two runs on the same folder would render every page twice and race on markers, so the second
one refuses (:class:`~wps.errors.OutputLockedError`) or, asked to, waits until the first ends.
The kernel drops the lock when its holder ends in any way (``kill -9`` included), so a lock is
never stale; the file records the holder's pid and host for the message only.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import OutputError, OutputLockedError

LOCK_FILE = ".lock"
_POLL_S = 0.5


@contextmanager
def output_lock(out: Path, wait: bool = False) -> Iterator[None]:
    """Hold ``out``'s batch lock for the block; refuse at once, or with ``wait`` poll until free."""
    path = out / LOCK_FILE
    try:
        handle = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except OSError as err:
        raise OutputError(f"{path}: cannot create the batch lock ({err.strerror})") from None
    try:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not wait:
                    raise OutputLockedError(
                        f"{out}: another wps batch is writing here ({_holder(handle)}); "
                        "wait for it or use --wait-for-lock") from None
                time.sleep(_POLL_S)
        os.ftruncate(handle, 0)
        os.pwrite(handle, json.dumps({"pid": os.getpid(), "host": socket.gethostname()})
                  .encode("utf-8"), 0)
        yield
    finally:
        os.close(handle)  # releases the lock


def _holder(handle: int) -> str:
    try:
        record = json.loads(os.pread(handle, 4096, 0) or b"{}")
        return f"pid {record['pid']} on {record['host']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "holder unknown"
