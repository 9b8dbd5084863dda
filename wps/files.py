"""Atomic file and folder writes, shared by every stage that writes outputs.

A failed run must never leave a half-written file or folder: everything is written to a temporary
sibling first and renamed into place (a rename within one folder is atomic on POSIX). Nor may it
leave temporary files behind: the temporaries are :mod:`wps.temporaries`' (named for their owner,
removed at exit or by a later run), and a folder swap holds signals to its end
(:mod:`wps.interrupts`). The readers of untrusted JSON and text files are :mod:`wps.jsonsafe`'s;
their names and the temporaries' and signals' public names are re-exported here for their
callers.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from .errors import OutputError, UsageError, os_reason
from .interrupts import TERMINATED_EXIT, Terminated, signals_held, sigterm_unwinds
from .jsonsafe import iter_jsonl, read_json, read_text, reading
from .temporaries import (
    HOST_TAG,
    OWNER,
    disown,
    normal_mode,
    owned_temp_file,
    owned_temp_folder,
    remove_own_temporaries,
    remove_stale,
    remove_stale_staging,
    staging_prefix,
)

__all__ = ["HOST_TAG", "OWNER", "TERMINATED_EXIT", "Terminated", "atomic_file",
           "check_output_folder", "check_replaceable_folder", "iter_jsonl", "owned_temp_folder",
           "prepare_output_file", "prepare_output_folder", "read_json", "read_text", "reading",
           "remove_own_temporaries", "remove_stale", "remove_stale_staging", "sigterm_unwinds",
           "staging_directory", "write_jsonl", "write_text_atomic"]


@contextmanager
def atomic_file(path: str | Path, binary: bool = False) -> Iterator[IO[Any]]:
    """An open temporary file that replaces ``path`` when the block ends without an error.

    Text files are UTF-8 and the data is on disk (fsync) before the rename, so after a crash
    ``path`` holds either the old or the complete new content. On an error the temporary file is
    removed and ``path`` is untouched.
    """
    path = prepare_output_file(path)
    try:
        handle, temporary = owned_temp_file(staging_prefix(path.name, "tmp"), path.parent)
    except OSError as err:
        raise OutputError(f"{path}: cannot write here ({os_reason(err)})") from None
    try:
        with (os.fdopen(handle, "wb") if binary
              else os.fdopen(handle, "w", encoding="utf-8")) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        normal_mode(temporary)
        try:
            os.replace(temporary, path)
        except OSError as err:
            raise OutputError(f"{path}: cannot write here ({os_reason(err)})") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    finally:
        disown(temporary)


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file and a rename."""
    with atomic_file(path) as stream:
        stream.write(text)
    return Path(path)


def write_jsonl(records: Iterable[dict[str, Any]], path: str | Path) -> Path:
    """Write records one JSON object per line (UTF-8), through a temporary file and a rename."""
    with atomic_file(path) as stream:
        for record in records:
            stream.write(json.dumps(record, ensure_ascii=False) + "\n")
    return Path(path)


def check_replaceable_folder(directory: str | Path, marker: str, what: str) -> None:
    """Refuse to replace a non-empty folder without ``marker`` (a file every ``what`` folder has):
    an output path pointing at a user's folder must not delete it."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory}: exists and is not a folder")
    if (directory.is_dir() and any(directory.iterdir())
            and not (directory / marker).is_file()):
        raise UsageError(f"{directory}: a non-empty folder that is not a {what}; "
                         "refusing to replace it")


@contextmanager
def staging_directory(directory: str | Path, marker: str | None = None,
                      what: str = "", *, tidy: bool = True) -> Iterator[Path]:
    """A temporary sibling folder that replaces ``directory`` when the block ends without an error.

    An older ``directory`` is swapped out by two renames and then deleted; on an error the staging
    folder is removed and ``directory`` is untouched. With ``marker``, an existing non-empty folder
    is replaced only if it holds that file (see :func:`check_replaceable_folder`). ``tidy``: first
    remove the staging siblings of ``directory`` that killed processes left, which lists the
    parent folder; ``wps batch`` tidies its folder once at its start and end instead (a listing
    of a crawl's folder for each of its pages grew with the pages: 7 ms at 20,000).
    """
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory}: exists and is not a folder")
    if marker is not None:
        check_replaceable_folder(directory, marker, what)
    _make_parent(directory)
    if tidy:
        remove_stale_staging(directory.parent, directory.name)
    try:
        staging = owned_temp_folder(staging_prefix(directory.name, "staging"), directory.parent)
    except OSError as err:
        raise OutputError(f"{directory}: cannot write here ({os_reason(err)})") from None
    try:
        normal_mode(staging, directory=True)
        yield staging
        _replace_directory(staging, directory)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        disown(staging)


def prepare_output_file(path: str | Path) -> Path:
    """Check early that ``path`` can become a file: not a folder, its parent folder creatable.

    Commands call it before slow or state-changing work, so an impossible output is an
    :class:`OutputError` before anything else happened.
    """
    path = Path(path)
    if path.is_dir():
        raise OutputError(f"{path}: is a folder, expected a file name")
    _make_parent(path)
    return path


def _make_parent(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OutputError(f"{path}: cannot create its folder ({os_reason(err)})") from None
    if not os.access(path.parent, os.W_OK):
        raise OutputError(f"{path}: folder {path.parent} is not writable")


def check_output_folder(directory: str | Path) -> Path:
    """Check, creating nothing, that ``directory`` can be a folder of outputs: not an existing
    file, and its nearest existing ancestor a writable folder. Commands call it before long work
    that may still fail, so a failed run leaves no empty folder behind."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise OutputError(f"{directory}: exists and is not a folder")
    ancestor = directory
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutputError(f"{directory}: cannot create folder ({ancestor} is not a folder)")
    if not os.access(ancestor, os.W_OK):
        raise OutputError(f"{directory}: cannot create folder ({ancestor} is not writable)")
    return directory


def prepare_output_folder(directory: str | Path) -> Path:
    """Create ``directory`` (and parents) for outputs written file by file; an existing file or an
    unwritable place is an :class:`OutputError`."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise OutputError(f"{directory}: exists and is not a folder")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OutputError(f"{directory}: cannot create folder ({os_reason(err)})") from None
    if not os.access(directory, os.W_OK):
        raise OutputError(f"{directory}: folder is not writable")
    return directory


def _replace_directory(staging: Path, directory: Path) -> None:
    """Swap ``staging`` in; signals wait till the end, as one between the renames would leave
    neither folder at ``directory``."""
    with signals_held():
        if not directory.exists():
            os.rename(staging, directory)
            return
        old = owned_temp_folder(staging_prefix(directory.name, "old"), directory.parent)
        os.rmdir(old)
        os.rename(directory, old)
        try:
            os.rename(staging, directory)
        except BaseException:
            os.rename(old, directory)  # the previous output goes back
            raise
        shutil.rmtree(old, ignore_errors=True)
        disown(old)
