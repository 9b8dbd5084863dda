"""Atomic file and folder writes, and JSONL reading, shared by every stage that writes outputs.

A failed run must never leave a half-written file or folder: everything is written to a temporary
sibling first and renamed into place (a rename within one folder is atomic on POSIX).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Iterable, Iterator

from .errors import InputFileError, OutputError, UsageError

__all__ = ["atomic_file", "staging_directory", "write_text_atomic", "write_jsonl", "read_text",
           "iter_jsonl", "prepare_output_file", "prepare_output_folder", "check_output_folder",
           "check_replaceable_folder"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _normal_mode(path: str | Path, directory: bool = False) -> None:
    """Give a ``mkstemp``/``mkdtemp`` result (0600/0700) the permissions of an ordinary new file."""
    os.chmod(path, (0o777 if directory else 0o666) & ~_umask())


@contextmanager
def atomic_file(path: str | Path, binary: bool = False) -> Iterator[IO[Any]]:
    """An open temporary file that replaces ``path`` when the block ends without an error.

    Text files are UTF-8 and the data is on disk (fsync) before the rename, so after a crash
    ``path`` holds either the old or the complete new content. On an error the temporary file is
    removed and ``path`` is untouched.
    """
    path = prepare_output_file(path)
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as err:
        raise OutputError(f"{path}: cannot write here ({_reason(err)})") from None
    try:
        with (os.fdopen(handle, "wb") if binary
              else os.fdopen(handle, "w", encoding="utf-8")) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        _normal_mode(temporary)
        try:
            os.replace(temporary, path)
        except OSError as err:
            raise OutputError(f"{path}: cannot write here ({_reason(err)})") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


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
                      what: str = "") -> Iterator[Path]:
    """A temporary sibling folder that replaces ``directory`` when the block ends without an error.

    An older ``directory`` is swapped out by two renames and then deleted; on an error the staging
    folder is removed and ``directory`` is untouched. With ``marker``, an existing non-empty folder
    is replaced only if it holds that file (see :func:`check_replaceable_folder`).
    """
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory}: exists and is not a folder")
    if marker is not None:
        check_replaceable_folder(directory, marker, what)
    _make_parent(directory)
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
    except OSError as err:
        raise OutputError(f"{directory}: cannot write here ({_reason(err)})") from None
    try:
        _normal_mode(staging, directory=True)
        yield staging
        _replace_directory(staging, directory)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


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
        raise OutputError(f"{path}: cannot create its folder ({_reason(err)})") from None
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
        raise OutputError(f"{directory}: cannot create folder ({_reason(err)})") from None
    if not os.access(directory, os.W_OK):
        raise OutputError(f"{directory}: folder is not writable")
    return directory


def _reason(err: OSError) -> str:
    """The OS's reason without Python's '[Errno N]' and repeated path."""
    return err.strerror or str(err)


def _replace_directory(staging: Path, directory: Path) -> None:
    if not directory.exists():
        os.rename(staging, directory)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{directory.name}.old.", dir=directory.parent))
    os.rmdir(old)
    os.rename(directory, old)
    os.rename(staging, directory)
    shutil.rmtree(old, ignore_errors=True)


def read_text(path: str | Path, what: str) -> str:
    """The UTF-8 text of ``path``; a missing or unreadable file is an :class:`InputFileError`
    naming ``what`` it should have been."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such {what}") from None
    except IsADirectoryError:
        raise InputFileError(f"{path}: is a folder, expected a {what}") from None
    except UnicodeDecodeError:
        raise InputFileError(f"{path}: unreadable {what} (not UTF-8 text)") from None
    except OSError as err:
        raise InputFileError(f"{path}: unreadable {what} ({_reason(err)})") from None


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every non-blank line of a JSONL file, read as a stream.

    Errors name the file and line: missing file, not UTF-8, not JSON, not a JSON object.
    """
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as err:
                    raise InputFileError(f"{path}:{number}: not a JSON line ({err.msg})") from None
                if not isinstance(record, dict):
                    raise InputFileError(f"{path}:{number}: a line must be a JSON object")
                yield number, record
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputFileError(f"{path}: is a folder, expected a JSONL file") from None
    except UnicodeDecodeError as err:
        raise InputFileError(f"{path}: not UTF-8 text ({err.reason})") from None
    except OSError as err:
        raise InputFileError(f"{path}: unreadable ({_reason(err)})") from None
