"""Temporary files and folders that say whose they are: every name carries its owner's process
id and a tag of its host (``<prefix><pid>-<host>-<random>``). This process removes what it left
at exit (:func:`remove_own_temporaries`); what a ``kill -9`` left is removed by a later run on the
same host (:func:`remove_stale`), which can tell a dead owner from a live one (psutil); another
host's (a shared output folder, a container's pids) are never touched."""

from __future__ import annotations

import atexit
import hashlib
import os
import re
import shutil
import socket
import tempfile
import threading
from pathlib import Path

from .interrupts import signals_held

__all__ = ["HOST_TAG", "OWNER", "disown", "normal_mode", "owned_temp_file", "owned_temp_folder",
           "remove_own_temporaries", "remove_stale", "remove_stale_staging", "staging_prefix"]

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


def normal_mode(path: str | Path, directory: bool = False) -> None:
    """Give a ``mkstemp``/``mkdtemp`` result (0600/0700) the permissions of an ordinary new file."""
    os.chmod(path, (0o777 if directory else 0o666) & ~_umask())


def owned_temp_folder(prefix: str, directory: str | Path | None = None) -> Path:
    """``tempfile.mkdtemp`` named ``<prefix><pid>-<host>-<random>``, so a later run can tell
    whether its owner still runs (:func:`remove_stale`); removed at exit if still there."""
    with signals_held(), _OWNED_LOCK:
        folder = tempfile.mkdtemp(prefix=_owner_prefix(prefix), dir=directory)
        _own(folder)
    return Path(folder)


def owned_temp_file(prefix: str, directory: Path) -> tuple[int, str]:
    """``tempfile.mkstemp`` named and kept track of like :func:`owned_temp_folder`."""
    with signals_held(), _OWNED_LOCK:
        handle, path = tempfile.mkstemp(prefix=_owner_prefix(prefix), dir=directory)
        _own(path)
    return handle, path


def _owner_prefix(prefix: str) -> str:
    return f"{prefix}{os.getpid()}-{HOST_TAG}-"


def _own(path: str) -> None:
    _OWNED[os.path.basename(path)] = (os.getpid(), os.path.abspath(path))


def disown(path: str | Path) -> None:
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


def staging_prefix(name: str, tag: str) -> str:
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
