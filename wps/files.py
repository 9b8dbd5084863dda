"""Atomic file and folder writes, and JSONL reading, shared by every stage that writes outputs.

A failed run must never leave a half-written file or folder: everything is written to a temporary
sibling first and renamed into place (a rename within one folder is atomic on POSIX).

Nor may it leave temporary files behind. Every temporary name carries its owner's process id and
a tag of its host (``<prefix><pid>-<host>-<random>``): they are removed on every exit Python sees
(errors, Ctrl-C and, through :func:`sigterm_unwinds`, SIGTERM), and what a ``kill -9`` left is
removed by a later run on the same host (:func:`remove_stale`), which can tell a dead owner from a
live one; another host's (a shared output folder, a container's pids) are never touched.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Iterable, Iterator

from .errors import InputFileError, OutputError, UsageError
from .jsonsafe import jsonl_record, load_nested

__all__ = ["atomic_file", "staging_directory", "write_text_atomic", "write_jsonl", "read_text",
           "iter_jsonl", "prepare_output_file", "prepare_output_folder", "check_output_folder",
           "check_replaceable_folder", "Terminated", "TERMINATED_EXIT", "sigterm_unwinds",
           "HOST_TAG", "OWNER", "owned_temp_folder", "remove_own_temporaries", "remove_stale",
           "remove_stale_staging"]

TERMINATED_EXIT = 143
"""Exit code after SIGTERM (128 + 15, as a shell reports it)."""
HOST_TAG = hashlib.sha1(socket.gethostname().encode("utf-8")).hexdigest()[:6]
"""This host in temporary names: pids are only comparable on one host (one pid namespace)."""
OWNER = r"(?P<pid>\d+)-(?P<host>[0-9a-f]{6})-[a-z0-9_]{8}"
"""The end of a temporary name: owner pid, host tag and what ``tempfile`` appends."""
_STAGING_TAGS = ("staging", "old", "tmp")
"""Temporary siblings of outputs: ``.<name>.<tag>-<pid>-<random>``."""
_OWNED: dict[str, tuple[int, str]] = {}
"""The temporary files and folders this process made and has not used up: name → (pid, absolute
path). Tells ours from a dead process's with our pid; what is left at exit is removed."""
_OWNED_LOCK = threading.Lock()


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
        handle, temporary = _owned_temp_file(_staging_prefix(path.name, "tmp"), path.parent)
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
    finally:
        _disown(temporary)


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
    remove_stale_staging(directory.parent, directory.name)
    try:
        staging = owned_temp_folder(_staging_prefix(directory.name, "staging"), directory.parent)
    except OSError as err:
        raise OutputError(f"{directory}: cannot write here ({_reason(err)})") from None
    try:
        _normal_mode(staging, directory=True)
        yield staging
        _replace_directory(staging, directory)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        _disown(staging)


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
    """Swap ``staging`` in; signals wait till the end, as one between the renames would leave
    neither folder at ``directory``."""
    with _signals_held():
        if not directory.exists():
            os.rename(staging, directory)
            return
        old = owned_temp_folder(_staging_prefix(directory.name, "old"), directory.parent)
        os.rmdir(old)
        os.rename(directory, old)
        try:
            os.rename(staging, directory)
        except BaseException:
            os.rename(old, directory)  # the previous output goes back
            raise
        shutil.rmtree(old, ignore_errors=True)
        _disown(old)


@contextmanager
def _signals_held() -> Iterator[None]:
    """Defer Ctrl-C, SIGTERM and SIGALRM (page deadlines) to the end of the block, where they
    are raised again for their own handlers (Python lets only the main thread set handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM):
        if signal.getsignal(signum) is not None:  # None: a handler set outside Python
            previous[signum] = signal.signal(signum, lambda number, _: arrived.append(number))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(arrived):
            signal.raise_signal(signum)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that ``finally`` blocks and context managers remove
    temporary folders and close Chromium before the process ends."""


@contextmanager
def sigterm_unwinds() -> Iterator[None]:
    """While the block runs, SIGTERM raises :class:`Terminated` (in the main thread only, where
    Python runs signal handlers; elsewhere nothing changes).

    Every SIGTERM raises: one swallowed by library code must not leave the process running. A
    second one cutting the cleanup short is caught up with at exit (:func:`remove_own_temporaries`).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


def _raise_terminated(_signum: int, _frame: object) -> None:
    raise Terminated()


def owned_temp_folder(prefix: str, directory: str | Path | None = None) -> Path:
    """``tempfile.mkdtemp`` named ``<prefix><pid>-<host>-<random>``, so a later run can tell
    whether its owner still runs (:func:`remove_stale`); removed at exit if still there."""
    with _signals_held(), _OWNED_LOCK:
        folder = tempfile.mkdtemp(prefix=_owner_prefix(prefix), dir=directory)
        _own(folder)
    return Path(folder)


def _owned_temp_file(prefix: str, directory: Path) -> tuple[int, str]:
    """``tempfile.mkstemp`` named and kept track of like :func:`owned_temp_folder`."""
    with _signals_held(), _OWNED_LOCK:
        handle, path = tempfile.mkstemp(prefix=_owner_prefix(prefix), dir=directory)
        _own(path)
    return handle, path


def _owner_prefix(prefix: str) -> str:
    return f"{prefix}{os.getpid()}-{HOST_TAG}-"


def _own(path: str) -> None:
    _OWNED[os.path.basename(path)] = (os.getpid(), os.path.abspath(path))


def _disown(path: str | Path) -> None:
    """Forget a temporary that was renamed into place or removed."""
    with _OWNED_LOCK:
        _OWNED.pop(os.path.basename(path), None)


@atexit.register
def remove_own_temporaries() -> None:
    """Remove the temporaries this process made and left: the last line of defence when an
    interruption fell between making one and the code that would have removed it."""
    with _OWNED_LOCK:
        paths = [path for pid, path in _OWNED.values() if pid == os.getpid()]  # not a fork's
        _OWNED.clear()
    for path in paths:
        if os.path.lexists(path):
            _remove_own(Path(path))


def _staging_prefix(name: str, tag: str) -> str:
    return f".{name}.{tag}-"


def remove_stale_staging(folder: str | Path, name: str | None = None) -> list[Path]:
    """Remove staging, old and temporary siblings of output ``name`` (any name if ``None``) in
    ``folder`` that a killed process left."""
    base = ".+" if name is None else re.escape(name)
    tags = "|".join(_STAGING_TAGS)
    pattern = re.compile(rf"\.{base}\.(?:{tags})-{OWNER}")
    return remove_stale(folder, pattern, "." if name is None else f".{name}.")


def remove_stale(folder: str | Path, pattern: re.Pattern[str], prefix: str = "") -> list[Path]:
    """Remove the entries of ``folder`` whose whole name matches ``pattern`` (ending in
    :data:`OWNER`) and whose owner process on this host is gone; never a live process's, never
    another host's. Returns what went. ``prefix`` skips most names cheaply (big folders)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    removed = []
    for name in names:
        match = pattern.fullmatch(name) if name.startswith(prefix) else None
        if match and match["host"] == HOST_TAG and _owner_gone(name, int(match["pid"])):
            path = Path(folder) / name
            _remove_own(path)
            removed.append(path)
    return removed


def _owner_gone(name: str, pid: int) -> bool:
    """Whether ``pid`` has ended; our own pid counts as gone for names we did not make (a dead
    process had our pid, as happens in containers)."""
    if pid == os.getpid():
        with _OWNED_LOCK:
            return name not in _OWNED
    return not _alive(pid)


def _alive(pid: int) -> bool:
    """True unless ``pid`` surely has ended (no such process, or a zombie)."""
    import psutil

    if pid <= 0:  # os.kill would signal a process group: not a pid we wrote
        return True
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except (psutil.Error, OverflowError, ValueError):  # not ours to ask: assume it runs
        return True


def _remove_own(path: Path) -> None:
    """Remove a file or folder, only if this user owns it (another's in a shared /tmp stays)."""
    try:
        if path.lstat().st_uid != os.getuid():
            return
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    except OSError:
        pass


def read_json(path: Path, what: str, *, missing: str) -> Any:
    """The JSON value of the UTF-8 file ``path``. A missing file is an :class:`InputFileError`
    saying ``missing`` (what the folder then is not); unreadable bytes, text that is not UTF-8,
    bad JSON and deep nesting are one naming the file and ``what`` it should have been."""
    try:
        return load_nested(path.read_text(encoding="utf-8"), str(path), json.loads)
    except FileNotFoundError:
        raise InputFileError(missing) from None
    except (OSError, ValueError) as err:  # ValueError: not UTF-8 or not JSON
        raise InputFileError(f"{path}: unreadable {what} ({err})") from None


def read_text(path: str | Path, what: str) -> str:
    """The UTF-8 text of ``path``; a missing or unreadable file is an :class:`InputFileError`
    naming ``what`` it should have been."""
    path = Path(path)
    with reading(path, what):
        return path.read_text(encoding="utf-8")


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every non-blank line of a JSONL file, read as a stream.

    Errors name the file and line: missing file, not UTF-8, not JSON, nested too deep
    (:mod:`wps.jsonsafe`), not a JSON object.
    """
    path = Path(path)
    with reading(path, "file"), open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield number, jsonl_record(line, f"{path}:{number}")


@contextmanager
def reading(path: Path, what: str) -> Iterator[None]:
    """Turn the OS's errors while reading ``path`` into one-line :class:`InputFileError` s."""
    try:
        yield
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such {what}") from None
    except IsADirectoryError:
        raise InputFileError(f"{path}: is a folder, expected a {what}") from None
    except UnicodeDecodeError:
        raise InputFileError(f"{path}: unreadable {what} (not UTF-8 text)") from None
    except OSError as err:
        raise InputFileError(f"{path}: unreadable {what} ({_reason(err)})") from None
